"""IMS Common Cartridge 1.3 of the whole bank, as lxml trees (pure; package.py zips them).

Cartridge layout (paths relative to the zip root)::

    imsmanifest.xml               CC 1.3 manifest: organization (category > quiz) and resources
    <quiz-id>/assessment.xml      one CC assessment per quiz (imsqti_xmlv1p2/imscc_xmlv1p3/assessment)
    banks/<quiz-id>.xml           one CC question bank per category (.../question-bank), named
                                  after the first quiz of the category

Assessments and banks are QTI 1.2 in the CC profile (cc/v1p3/ccv1p3_qtiasiv1p2p1_v1p0.xsd and
the Schematron rules embedded in it). An item is written as Canvas's own cartridge exporter
writes one (canvas-lms lib/cc/qti/qti_items.rb ``add_question`` with ``for_cc``): the same
structure as the Canvas-flavour items of writers/qti12.py with ``cc_profile`` metadata instead of
Canvas's ``question_type``. The profile knows six item types; ours map as follows, and every loss
is a warning naming the question (docs/canvas-qti12.md has the per-LMS details):

| ours | CC profile | lost |
|---|---|---|
| single | cc.multiple_choice.v0p1 | - |
| multiple | cc.multiple_response.v0p1 | partial credit: the profile scores all or nothing |
| true_false | cc.true_false.v0p1 (choices ``true``/``false``, labels in the question's language) | - |
| short_answer | cc.fib.v0p1, every accepted answer | case sensitivity where the LMS ignores it |
| numerical | cc.fib.v0p1 accepting the answer's text; a range alone: cc.essay.v0p1 | tolerance, range |
| matching | one cc.multiple_choice.v0p1 per left item, every right item a choice | one question: several |
| essay | cc.essay.v0p1, qmd_computerscored No | - |

Points travel as ``cc_weighting``, which the profile allows only as a whole number 1-99.
Every text goes through qti12.material, as in the Canvas flavour.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from lxml import etree

from ..errors import Diagnostic, SchemaValidationError, Severity
from ..model import Bank, Choice, Question, QuestionType, Quiz, SourceLoc
from ..package import serialize, zip_stream
from . import Output, WriteContext, qti12
from .qti12 import _el
from .qti21 import TRUE_FALSE_LABELS, num, short_title, true_false_labels

CC_NS = "http://www.imsglobal.org/xsd/imsccv1p3/imscp_v1p1"
LOMIMSCC_NS = "http://ltsc.ieee.org/xsd/imsccv1p3/LOM/manifest"
QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
MANIFEST_SCHEMA_LOCATION = " ".join(
    [
        CC_NS,
        "http://www.imsglobal.org/profile/cc/ccv1p3/ccv1p3_imscp_v1p2_v1p0.xsd",
        LOMIMSCC_NS,
        "http://www.imsglobal.org/profile/cc/ccv1p3/LOM/ccv1p3_lommanifest_v1p0.xsd",
    ]
)
QTI_SCHEMA_LOCATION = f"{QTI_NS} http://www.imsglobal.org/profile/cc/ccv1p3/ccv1p3_qtiasiv1p2p1_v1p0.xsd"

ASSESSMENT_TYPE = "imsqti_xmlv1p2/imscc_xmlv1p3/assessment"
BANK_TYPE = "imsqti_xmlv1p2/imscc_xmlv1p3/question-bank"
CARTRIDGE_PATH = "cc/bank.imscc"
"""Where the cartridge goes in the output directory: one file for the whole bank."""
MANIFEST_PATH = "imsmanifest.xml"
BANK_DIR = "banks"
DEFAULT_TITLE = "lmsexport question bank"

PROFILES = {
    QuestionType.SINGLE: "cc.multiple_choice.v0p1",
    QuestionType.MULTIPLE: "cc.multiple_response.v0p1",
    QuestionType.TRUE_FALSE: "cc.true_false.v0p1",
    QuestionType.SHORT_ANSWER: "cc.fib.v0p1",
    QuestionType.NUMERICAL: "cc.fib.v0p1",
    QuestionType.MATCHING: "cc.multiple_choice.v0p1",
    QuestionType.ESSAY: "cc.essay.v0p1",
}
"""Our type -> the CC profile it is written as (numerical with a range alone: cc.essay.v0p1)."""

MAX_WEIGHTING = 99
"""cc_weighting must be a whole number from 1 to 99 (Schematron rule 2c of the CC QTI profile)."""


# --------------------------------------------------------------------------- categories


@dataclass(frozen=True)
class Category:
    """One question bank of the cartridge and one folder of its organization."""

    key: str
    """The quizzes' category path, or the quiz id of a quiz without one."""
    title: str
    """The category path as written, or the quiz's title."""
    lang: str
    quizzes: tuple[Quiz, ...]

    @property
    def name(self) -> str:
        """The file and identifier stem: the id of its first quiz (ids are unique, ASCII)."""
        return self.quizzes[0].id


def categories(bank: Bank) -> list[Category]:
    """The bank's categories, sorted by path; a quiz without a category is one of its own,
    after them, by quiz id."""
    groups: dict[str, list[Quiz]] = {}
    for quiz in bank.quizzes:
        groups.setdefault(quiz.category or f"\0{quiz.id}", []).append(quiz)
    out = []
    for key in sorted(groups, key=lambda k: (k.startswith("\0"), k)):  # uncategorised last
        quizzes = tuple(sorted(groups[key], key=lambda q: q.id))
        first = quizzes[0]
        out.append(Category(key, first.category or first.title, first.lang, quizzes))
    return out


# --------------------------------------------------------------------------- items


@dataclass(frozen=True)
class CcItem:
    """One item of the cartridge, and the question (possibly a stand-in) it is written from."""

    ident: str
    question: Question
    """What the item asks: the question itself, or a stand-in (a matching question's pair)."""
    source: Question
    """The question of the bank it comes from."""
    profile: str
    weight: float


def cc_items(quiz: Quiz, taken: set[str]) -> list[CcItem]:
    """The items a quiz's questions become; ``taken`` holds every item ident already used in
    the bank (our ids, then the ones made here), so a matching question's parts never clash."""
    out = []
    for q in quiz.questions:
        if q.type is QuestionType.MATCHING and len(qti12.matching_rights(q)) > 1:
            out += _split_matching(q, taken)
            continue
        if _as_essay(q):
            asked = q
            if q.type is QuestionType.MATCHING:  # the items to match, listed in the question
                texts = [p.left for p in q.pairs] + qti12.matching_rights(q)
                asked = replace(q, type=QuestionType.ESSAY, stem="\n".join([q.stem, *texts]), pairs=())
            out.append(CcItem(q.id, asked, q, "cc.essay.v0p1", q.points))
            continue
        out.append(CcItem(q.id, q, q, PROFILES[q.type], q.points))
    return out


def _as_essay(q: Question) -> bool:
    """What the profile cannot ask at all: a numerical range with no answer, and a matching
    question whose left items all take one right-hand item (a choice of one is no question)."""
    if q.type is QuestionType.NUMERICAL:
        return q.numeric is not None and q.numeric.answer is None
    return q.type is QuestionType.MATCHING and len(qti12.matching_rights(q)) < 2


def _split_matching(q: Question, taken: set[str]) -> list[CcItem]:
    rights = qti12.matching_rights(q)
    items = []
    for i, pair in enumerate(q.pairs, 1):
        ident = f"{q.id}-{i}"
        while ident in taken:
            ident += "-"
        taken.add(ident)
        stand_in = replace(
            q,
            id=ident,
            type=QuestionType.SINGLE,
            stem=f"{q.stem}\n{pair.left}",
            choices=tuple(Choice(text, correct=text == pair.right) for text in rights),
            pairs=(),
            distractors=(),
            points=q.points / len(q.pairs),
        )
        items.append(CcItem(ident, stand_in, q, PROFILES[QuestionType.MATCHING], stand_in.points))
    return items


def _weighting(points: float) -> str | None:
    if points == int(points) and 1 <= points <= MAX_WEIGHTING:
        return str(int(points))
    return None


def item_tree(quiz: Quiz, cc: CcItem, category: str | None, parent: etree._Element) -> etree._Element:
    """One CC-profile ``<item>``, appended to ``parent`` (a section or an objectbank)."""
    q = cc.question
    lang = quiz.lang_of(cc.source)
    item = _el(parent, "item", ident=cc.ident, title=short_title(q))
    item.set(qti12.XML_LANG, lang)
    md = _el(_el(item, "itemmetadata"), "qtimetadata")
    qti12.meta_field(md, "cc_profile", cc.profile)
    weighting = _weighting(cc.weight)
    if weighting is not None:
        qti12.meta_field(md, "cc_weighting", weighting)
    if category is not None:
        qti12.meta_field(md, "cc_question_category", category)
    if cc.profile == "cc.essay.v0p1":
        qti12.meta_field(md, "qmd_computerscored", "No")
    presentation = _el(item, "presentation")
    qti12.material(presentation, q.stem, lang)
    resprocessing = _el(item, "resprocessing")
    qti12.outcomes(resprocessing)
    qti12.general_feedback(resprocessing, q)
    ctx = qti12._Item(quiz, q, lang, item, presentation, resprocessing)
    if cc.profile == "cc.essay.v0p1":
        qti12._write_essay(ctx)
    elif q.type is QuestionType.SINGLE:
        qti12._write_single(ctx)
    elif q.type is QuestionType.MULTIPLE:
        _write_multiple_response(ctx)
    elif q.type is QuestionType.TRUE_FALSE:
        _write_true_false(ctx)
    elif q.type is QuestionType.SHORT_ANSWER:
        qti12._write_short_answer(ctx)
    elif q.type is QuestionType.NUMERICAL:
        _write_numerical_fib(ctx)
    else:  # pragma: no cover - every type is handled above (matching is split into singles)
        raise AssertionError(q.type)
    if q.explanation:
        qti12.itemfeedback(item, qti12.GENERAL_FB, q.explanation, lang)
    for ident, choice in zip(qti12.choice_ids(q), q.choices, strict=True):
        if choice.feedback:
            qti12.itemfeedback(item, f"{ident}_fb", choice.feedback, lang)
    return item


def _write_multiple_response(ctx: qti12._Item) -> None:
    """Canvas's all-or-nothing condition (the profile's setvar can only Set). Moodle's CC
    importer finds the right choices as ``varequal[@case='Yes']`` under the scoring condition
    (entity11.quiz.class.php get_answers), so the right ones say case="Yes" (identifiers are
    compared exactly anyway)."""
    q = ctx.question
    ids = qti12.choice_ids(q)
    lid = _el(ctx.presentation, "response_lid", ident=qti12.RESPONSE, rcardinality="Multiple")
    render = _el(lid, "render_choice", shuffle="Yes" if ctx.quiz.shuffle else "No")
    for ident, choice in zip(ids, q.choices, strict=True):
        qti12.material(_el(render, "response_label", ident=ident), choice.text, choice.lang or ctx.lang)
    qti12._choice_feedback(ctx)
    cond, var = qti12.condition(ctx.resprocessing, False)
    and_ = _el(var, "and")
    for ident, choice in zip(ids, q.choices, strict=True):
        if choice.correct:
            qti12.varequal(and_, qti12.RESPONSE, ident, case=True)
        else:
            qti12.varequal(_el(and_, "not"), qti12.RESPONSE, ident)
    qti12.set_score(cond, "100")


def _write_true_false(ctx: qti12._Item) -> None:
    """Choices ``true`` and ``false`` (Moodle's CC importer requires exactly these idents,
    entity11.quiz.class.php), labelled in the question's language."""
    q = ctx.question
    lid = _el(ctx.presentation, "response_lid", ident=qti12.RESPONSE, rcardinality="Single")
    render = _el(lid, "render_choice", shuffle="No")
    labels = true_false_labels(ctx.lang)
    label_lang = "en" if labels == TRUE_FALSE_LABELS["en"] else ctx.lang  # unknown languages get English
    for (ident, _), label in zip(qti12.TRUE_FALSE, labels, strict=True):
        qti12.material(_el(render, "response_label", ident=ident), label, label_lang)
    cond, var = qti12.condition(ctx.resprocessing, False)
    qti12.varequal(var, qti12.RESPONSE, "true" if q.truth else "false")
    qti12.set_score(cond, "100")


def _write_numerical_fib(ctx: qti12._Item) -> None:
    """The answer's text as the one accepted answer of a fill-in-the-blank."""
    key = ctx.question.numeric
    assert key is not None and key.answer is not None
    response = _el(ctx.presentation, "response_str", ident=qti12.RESPONSE, rcardinality="Single")
    qti12.render_fib(response)
    cond, var = qti12.condition(ctx.resprocessing, False)
    qti12.varequal(var, qti12.RESPONSE, qti12.number(qti12.decimal(key.answer)))
    qti12.set_score(cond, "100")


# --------------------------------------------------------------------------- documents


def qti_root() -> etree._Element:
    """``questestinterop`` in the QTI 1.2 namespace the CC profile uses; its descendants inherit
    the namespace (qti12._el)."""
    root = etree.Element(f"{{{QTI_NS}}}questestinterop", nsmap={None: QTI_NS, "xsi": XSI_NS})
    root.set(f"{{{XSI_NS}}}schemaLocation", QTI_SCHEMA_LOCATION)
    return root


def assessment_tree(quiz: Quiz, items: list[CcItem]) -> etree._Element:
    root = qti_root()
    assessment = _el(root, "assessment", ident=f"A-{quiz.id}", title=quiz.title)
    assessment.set(qti12.XML_LANG, quiz.lang)
    md = _el(assessment, "qtimetadata")
    qti12.meta_field(md, "cc_profile", "cc.exam.v0p1")
    qti12.meta_field(md, "qmd_assessmenttype", "Examination")
    qti12.meta_field(md, "qmd_scoretype", "Percentage")
    if quiz.description:
        qti12.material(_el(_el(assessment, "presentation_material"), "flow_mat"), quiz.description, quiz.lang)
    section = _el(assessment, "section", ident="root_section")
    for cc in items:
        item_tree(quiz, cc, None, section)
    return root


def bank_tree(category: Category, items: Iterable[etree._Element]) -> etree._Element:
    """A question bank (``objectbank``) holding ``items`` (made by bank_item). ``bank_title`` is
    Canvas's own bank name field (its converter, QTIMigrationTool imsqtiv1.py BankTitle, names the
    bank after it)."""
    root = qti_root()
    objectbank = _el(root, "objectbank", ident=f"BANK-{category.name}")
    qti12.meta_field(_el(objectbank, "qtimetadata"), "bank_title", category.title)
    objectbank.extend(items)
    return root


def bank_item(item: etree._Element, category: str) -> etree._Element:
    """An assessment's item as its bank holds it: a copy with ``cc_question_category``, where
    item_tree would have put it (before qmd_computerscored). Copying a built item costs a
    fraction of building it again."""
    out = copy.deepcopy(item)
    md = out[0][0]  # itemmetadata/qtimetadata
    labels = [field[0].text for field in md]
    at = labels.index("qmd_computerscored") if "qmd_computerscored" in labels else len(md)
    holder = etree.Element(md.tag)
    qti12.meta_field(holder, "cc_question_category", category)
    md.insert(at, holder[0])
    return out


def assessment_path(quiz: Quiz) -> str:
    return f"{quiz.id}/assessment.xml"


def bank_path(category: Category) -> str:
    return f"{BANK_DIR}/{category.name}.xml"


def cartridge_title(cats: list[Category]) -> str:
    """The categories' common leading path ("llm-training"), else a generic title."""
    paths = [c.key.split("/") for c in cats if not c.key.startswith("\0")]
    if not paths or len(paths) < len(cats):
        return DEFAULT_TITLE
    common: list[str] = []
    for parts in zip(*paths, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return "/".join(common) or DEFAULT_TITLE


def manifest_tree(bank: Bank, cats: list[Category]) -> etree._Element:
    """The CC 1.3 manifest: an organization folder per category holding its quizzes, an
    assessment resource per quiz and a question-bank resource per category (banks are not in
    the organization: they are not something a learner opens)."""
    langs = {q.lang for q in bank.quizzes}
    lang = langs.pop() if len(langs) == 1 else "en"
    title = cartridge_title(cats)
    manifest = etree.Element(
        f"{{{CC_NS}}}manifest", nsmap={None: CC_NS, "lomimscc": LOMIMSCC_NS, "xsi": XSI_NS}
    )
    manifest.set("identifier", "MANIFEST-lmsexport")
    manifest.set(f"{{{XSI_NS}}}schemaLocation", MANIFEST_SCHEMA_LOCATION)
    metadata = _el(manifest, f"{{{CC_NS}}}metadata")
    _el(metadata, f"{{{CC_NS}}}schema", "IMS Common Cartridge")
    _el(metadata, f"{{{CC_NS}}}schemaversion", "1.3.0")
    general = _el(_el(metadata, f"{{{LOMIMSCC_NS}}}lom"), f"{{{LOMIMSCC_NS}}}general")
    _el(_el(general, f"{{{LOMIMSCC_NS}}}title"), f"{{{LOMIMSCC_NS}}}string", title, language=lang)
    _el(general, f"{{{LOMIMSCC_NS}}}language", lang)
    org = _el(
        _el(manifest, f"{{{CC_NS}}}organizations"),
        f"{{{CC_NS}}}organization",
        identifier="ORG",
        structure="rooted-hierarchy",
    )
    root_item = _el(org, f"{{{CC_NS}}}item", identifier="ROOT")
    for cat in cats:
        folder = _el(root_item, f"{{{CC_NS}}}item", identifier=f"FOLDER-{cat.name}")
        _el(folder, f"{{{CC_NS}}}title", cat.title)
        for quiz in cat.quizzes:
            entry = _el(
                folder, f"{{{CC_NS}}}item", identifier=f"ITEM-{quiz.id}", identifierref=f"RES-{quiz.id}"
            )
            _el(entry, f"{{{CC_NS}}}title", quiz.title)
    resources = _el(manifest, f"{{{CC_NS}}}resources")
    for cat in cats:
        for quiz in cat.quizzes:
            res = _el(resources, f"{{{CC_NS}}}resource", identifier=f"RES-{quiz.id}", type=ASSESSMENT_TYPE)
            _el(res, f"{{{CC_NS}}}file", href=assessment_path(quiz))
    for cat in cats:
        res = _el(resources, f"{{{CC_NS}}}resource", identifier=f"RES-BANK-{cat.name}", type=BANK_TYPE)
        _el(res, f"{{{CC_NS}}}file", href=bank_path(cat))
    return manifest


def cartridge_documents(bank: Bank) -> Iterator[tuple[str, str, etree._Element]]:
    """(path, kind, tree) of every file of the cartridge, one at a time, in zip order: the
    manifest, then per category its quizzes' assessments and its question bank. A bank's items
    are copies of its assessments' items, so only one category's items are ever held."""
    cats = categories(bank)
    taken = {q.id for quiz in bank.quizzes for q in quiz.questions}
    yield MANIFEST_PATH, "cc-manifest", manifest_tree(bank, cats)
    for cat in cats:
        held: list[etree._Element] = []
        for quiz in cat.quizzes:
            tree = assessment_tree(quiz, cc_items(quiz, taken))
            held += [bank_item(item, cat.title) for item in tree[0][-1]]  # assessment/section
            yield assessment_path(quiz), "cc-qti", tree
        yield bank_path(cat), "cc-qti", bank_tree(cat, held)


# --------------------------------------------------------------------------- what the profile drops


def lossy_warnings(bank: Bank) -> list[Diagnostic]:
    """What the CC profile cannot carry, per question (once, for the assessment and the bank)."""
    out: list[Diagnostic] = []
    for quiz in bank.quizzes:
        for q in quiz.questions:
            out += _question_warnings(quiz, q)
    return out


def _question_warnings(quiz: Quiz, q: Question) -> Iterable[Diagnostic]:
    loc = q.loc or SourceLoc(quiz.id)
    if q.type is QuestionType.MULTIPLE:
        yield _warn(
            loc,
            f"question {q.id!r}: the Common Cartridge profile scores a multiple-answer question "
            "all or nothing; its partial credit is not carried",
            "cc13.partial-credit",
        )
    if q.type is QuestionType.NUMERICAL and q.numeric is not None:
        if q.numeric.answer is None:
            yield _warn(
                loc,
                f"question {q.id!r}: the Common Cartridge profile has no numerical type and cannot "
                "test a range; written as an essay (graded by hand)",
                "cc13.numerical-as-essay",
            )
        else:
            text = qti12.number(qti12.decimal(q.numeric.answer))
            yield _warn(
                loc,
                f"question {q.id!r}: the Common Cartridge profile has no numerical type; written as "
                f"fill-in-the-blank accepting only the text {text!r} "
                "(tolerance or range lost)",
                "cc13.numerical-as-fib",
            )
    if q.type is QuestionType.MATCHING and _as_essay(q):
        yield _warn(
            loc,
            f"question {q.id!r}: the Common Cartridge profile has no matching type, and with a single "
            "right-hand item it cannot be asked as a choice; written as an essay (graded by hand)",
            "cc13.matching-as-essay",
        )
    elif q.type is QuestionType.MATCHING:
        yield _warn(
            loc,
            f"question {q.id!r}: the Common Cartridge profile has no matching type; written as "
            f"{len(q.pairs)} multiple-choice questions, one per left-hand item",
            "cc13.matching-split",
        )
    if q.type is QuestionType.SHORT_ANSWER and q.case_sensitive:
        yield _warn(
            loc,
            f'question {q.id!r}: case_sensitive is written (varequal case="Yes") but Canvas\'s and '
            "Moodle's cartridge importers compare short answers without regard to case",
            "cc13.case-sensitive",
        )
    parts = len(q.pairs) if q.type is QuestionType.MATCHING and not _as_essay(q) else 1
    if _weighting(q.points / parts) is None:
        worth = f"{num(q.points)} points over {parts} items" if parts > 1 else f"{num(q.points)} points"
        yield _warn(
            loc,
            f"question {q.id!r}: the Common Cartridge profile carries points only as a whole number "
            f"from 1 to {MAX_WEIGHTING} per item (cc_weighting); {worth} cannot be written, so LMSs "
            "give it their default",
            "cc13.points-not-carried",
        )


def _warn(loc: SourceLoc, message: str, rule: str) -> Diagnostic:
    return Diagnostic(loc, message, Severity.WARNING, rule)


def build_cc13(bank: Bank, ctx: WriteContext) -> Output:
    """The cc13 writer: one IMS Common Cartridge 1.3 of the whole bank at cc/bank.imscc.

    The manifest, every assessment and every question bank are validated against the CC 1.3
    profiles (XSD and their Schematron rules) before anything is zipped.
    """
    from ..validate_qti12 import validate_document

    output = Output(warnings=lossy_warnings(bank))
    if not bank.quizzes:
        return output
    problems: list[Diagnostic] = []

    def members() -> Iterator[tuple[str, bytes]]:
        # One document at a time, in the cartridge's order (cartridge_documents): built,
        # validated, serialised, then dropped, so a bank never holds more than one category's trees.
        for path, kind, tree in cartridge_documents(bank):
            problems.extend(validate_document(tree, kind, f"{CARTRIDGE_PATH}!{path}"))
            yield path, serialize(tree)

    data = zip_stream(members(), ctx.timestamp, sorted_=False)
    if problems:
        raise SchemaValidationError(problems)
    output.files[CARTRIDGE_PATH] = data
    return output
