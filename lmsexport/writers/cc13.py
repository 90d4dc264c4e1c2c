"""IMS Common Cartridge 1.3 and 1.1 of the whole bank, as lxml trees (pure; package.py validates,
compresses and zips them).

Cartridge layout (paths relative to the zip root)::

    imsmanifest.xml                   the manifest: organization (category > quiz, then each
                                      assessment) and resources
    <quiz-id>/assessment.xml          one CC assessment per quiz (.../assessment)
    banks/<quiz-id>.xml               1.3 only: one CC question bank per category (.../question-bank),
                                      named after the first quiz of the category
    <assessment-id>/assessment.xml    one CC assessment per assessment of the bank, every question it
                                      may draw in its one section
    <assessment-id>/pools/<draw>.xml  1.3 only: a question bank per random draw, its candidates
    web_resources/media/<file>        the images the texts show, one ``webcontent`` resource each

The two versions differ in namespaces, schema locations, resource types and one rule: CC 1.1
allows a cartridge at most one question bank (rule 4a of the CC 1.1 manifest profile, removed in
1.3), so the 1.1 cartridge has none (Moodle, the LMS it is for, makes a question category of
every quiz it restores anyway: backup/cc/entity11.quiz.class.php). Assessments and banks are
QTI 1.2 in the CC profile (``cc/v1p3/ccv1p3_qtiasiv1p2p1_v1p0.xsd``, ``cc/v1p1/...``, and the
Schematron rules embedded in them). An item is written as Canvas's own cartridge exporter writes
one (canvas-lms lib/cc/qti/qti_items.rb ``add_question`` with ``for_cc``): the same structure as
the Canvas-flavour items of writers/qti12.py with ``cc_profile`` metadata instead of Canvas's
``question_type``. The profile knows six item types; ours map as follows, and every loss is a
warning naming the question (docs/canvas-qti12.md has the per-LMS details):

| ours | CC profile | lost |
|---|---|---|
| single | cc.multiple_choice.v0p1, every full-credit choice right | partly right and negative credits |
| multiple | cc.multiple_response.v0p1 | partial credit: the profile scores all or nothing |
| true_false | cc.true_false.v0p1 (choices ``true``/``false``, labels in the question's language) | - |
| short_answer | cc.fib.v0p1, every full-credit answer | answers worth less, wildcards, case |
| numerical | cc.fib.v0p1 accepting each full key's answer as text, else cc.essay.v0p1 | tolerance, units |
| matching | one cc.multiple_choice.v0p1 per left item, every right item a choice | one question: several |
| essay | cc.essay.v0p1, qmd_computerscored No | its settings (format, lines, words, template...) |
| cloze | one item per blank (cloze_parts), each as its blank's kind | one question: several; drop-downs |
| ordering | its matching question (qti12.ordering_as_matching), split | gradings but per position |
| description | not written (the profile has no item without a response) | the whole question |
| calculated, calculated_choice | variant 1 as a cc.fib or choice item; 1.3: the bank all | formula, draw |

The profile's setvar can only Set, so an answer is right or wrong; its itemfeedback carries the
rest as the Canvas flavour does (name as the item title, ``correct_fb``, ``general_incorrect_fb``,
each answer's ``<answer>_fb``); no partly-right feedback, hints, penalty or units
(``<format>.<element>-not-carried``, qti12.common_losses). The 1.1 cartridge also names what
Moodle's restore drops of it (profile_losses).

Points travel as ``cc_weighting``, which the profile allows only as a whole number 1-99.
Every text goes through qti12.material, as in the Canvas flavour, with images at
``$IMS-CC-FILEBASE$../web_resources/media/<file>``: the token stands for the folder of the QTI
document that holds the text (Moodle's importer, backup/cc/entities.class.php ``update_sources``,
resolves it so; the IMS sample cartridges and Sakai's exporter write ``$IMS-CC-FILEBASE$../``),
and Canvas's importer strips the token and finds ``web_resources/...`` among the cartridge's
files (lib/cc/importer/standard/converter.rb ``replace_urls``, ``get_canvas_att_replacement_url``).

The CC QTI profile has no random selection (an assessment is one section of items): an
assessment's random draw is written with every question it may draw, so an LMS asks all of
them, and (1.3) its questions also become a question bank of their own to rebuild the draw
from; a named warning says so for each random draw.
"""

from __future__ import annotations

import copy
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, assert_never

from lxml import etree

from .. import formula as fm
from ..errors import Diagnostic, SchemaValidationError, Severity
from ..model import (
    Answer,
    Assessment,
    Bank,
    Block,
    BulletList,
    Calculated,
    CalculatedChoice,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    Draw,
    Essay,
    Gap,
    Inline,
    LineBreak,
    Matching,
    Media,
    MultipleChoice,
    NumberBlank,
    Numerical,
    OrderedList,
    Ordering,
    OutcomeFeedback,
    Para,
    Question,
    QuestionType,
    Quiz,
    Rich,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Table,
    Text,
    TextBlank,
    TrueFalse,
    Variant,
    evolve_question,
    is_full,
)
from ..package import Deflated, current_zip_level, deflate, join_deflated, serialize, zip_deflated
from ..variants import instantiate
from . import Output, WriteContext, qti12, valid_digest
from .qti12 import _el, item_title
from .qti21 import TRUE_FALSE_LABELS, num, true_false_labels

if TYPE_CHECKING:
    from ..validate_qti12 import CcVersion, Shape

QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"


@dataclass(frozen=True)
class Version:
    """What differs between the Common Cartridge versions written."""

    format: str
    """The build format writing it (``cc13``, ``cc11``); also the prefix of its warnings' rules."""
    number: str
    manifest_ns: str
    lom_ns: str
    profile: str
    """Folder of the version's profile schemas at IMS, e.g. http://www.imsglobal.org/profile/cc/ccv1p3."""
    stem: str
    """The profile files' prefix, e.g. ccv1p3."""
    cartridge_path: str
    """Where the cartridge goes in the output directory."""
    banks: bool
    """Whether question banks are written (category and pool banks; not in 1.1, see above)."""
    choices_min: int
    """The fewest choices a cc.multiple_choice item may have: rule 4d of the QTI profile wants
    more than two in 1.1, more than one in 1.3. A single-answer question with fewer is written
    as cc.multiple_response (same key, all or nothing)."""

    @property
    def schema_version(self) -> str:
        return f"{self.number}.0"

    @property
    def assessment_type(self) -> str:
        return f"imsqti_xmlv1p2/imscc_xmlv{self.stem[3:]}/assessment"

    @property
    def bank_type(self) -> str:
        return f"imsqti_xmlv1p2/imscc_xmlv{self.stem[3:]}/question-bank"

    @property
    def manifest_schema_location(self) -> str:
        return " ".join(
            [
                self.manifest_ns,
                f"{self.profile}/{self.stem}_imscp_v1p2_v1p0.xsd",
                self.lom_ns,
                f"{self.profile}/LOM/{self.stem}_lommanifest_v1p0.xsd",
            ]
        )

    @property
    def qti_schema_location(self) -> str:
        return f"{QTI_NS} {self.profile}/{self.stem}_qtiasiv1p2p1_v1p0.xsd"


CC13 = Version(
    "cc13",
    "1.3",
    "http://www.imsglobal.org/xsd/imsccv1p3/imscp_v1p1",
    "http://ltsc.ieee.org/xsd/imsccv1p3/LOM/manifest",
    "http://www.imsglobal.org/profile/cc/ccv1p3",
    "ccv1p3",
    "cc/bank.imscc",
    banks=True,
    choices_min=2,
)
CC11 = Version(
    "cc11",
    "1.1",
    "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1",
    "http://ltsc.ieee.org/xsd/imsccv1p1/LOM/manifest",
    "http://www.imsglobal.org/profile/cc/ccv1p1",
    "ccv1p1",
    "cc11/bank-cc11.imscc",
    banks=False,
    choices_min=3,
)
VERSIONS = {v.format: v for v in (CC13, CC11)}

# The 1.3 names, as the module has always had them.
CC_NS = CC13.manifest_ns
LOMIMSCC_NS = CC13.lom_ns
ASSESSMENT_TYPE = CC13.assessment_type
BANK_TYPE = CC13.bank_type
CARTRIDGE_PATH = CC13.cartridge_path
MANIFEST_SCHEMA_LOCATION = CC13.manifest_schema_location
QTI_SCHEMA_LOCATION = CC13.qti_schema_location

MANIFEST_PATH = "imsmanifest.xml"
BANK_DIR = "banks"
MEDIA_DIR = "web_resources/media"
DEFAULT_TITLE = "lmsexport question bank"

STYLE = qti12.flavour(f"$IMS-CC-FILEBASE$../{MEDIA_DIR}/")
"""How texts are written in a cartridge: as in the Canvas flavour, images in web_resources
(every QTI document of the cartridge is one folder deep, so ``../`` reaches the root)."""

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


def category_title(quiz: Quiz) -> str:
    """The title of the bank and folder a quiz belongs to: its category path, else its title."""
    return quiz.category or quiz.title


def categories(quizzes: Bank | Iterable[Quiz]) -> list[Category]:
    """The categories of some quizzes (their questions are not read), sorted by path; a quiz
    without a category is one of its own, after them, by quiz id."""
    groups: dict[str, list[Quiz]] = {}
    for quiz in quizzes.quizzes if isinstance(quizzes, Bank) else quizzes:
        groups.setdefault(quiz.category or f"\0{quiz.id}", []).append(quiz)
    out = []
    for key in sorted(groups, key=lambda k: (k.startswith("\0"), k)):  # uncategorised last
        members = tuple(sorted(groups[key], key=lambda q: q.id))
        first = members[0]
        out.append(Category(key, category_title(first), first.lang, members))
    return out


# --------------------------------------------------------------------------- texts


def _blocks(text: Text) -> tuple[Block, ...]:
    if isinstance(text, Rich):
        return text.blocks
    if not text:
        return ()
    inlines: list[Inline] = []
    for i, line in enumerate(text.split("\n")):
        if i:
            inlines.append(LineBreak())
        if line:
            inlines.append(Str(line))
    return (Para(tuple(inlines)),)


def join_texts(texts: Iterable[Text]) -> Text:
    """Texts one after the other: plain ones joined by line breaks; when any is rich, one rich
    text whose paragraphs are theirs (a plain text one paragraph, its line breaks kept)."""
    texts = list(texts)
    if all(isinstance(t, str) for t in texts):
        return "\n".join(t for t in texts if isinstance(t, str))
    return Rich(tuple(b for t in texts for b in _blocks(t)))


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


MULTIPLE_RESPONSE = PROFILES[QuestionType.MULTIPLE]


def cc_variant(q: Question, variant: Variant) -> Question:
    """One variant of a parametric question as the profile asks it (variants.instantiate): a
    calculated one's key is its answer shown with the question's decimals, the text a
    fill-in-the-blank accepts (the profile compares text: fib_answers)."""
    asked = instantiate(q, variant)
    if isinstance(q.body, Calculated) and isinstance(asked.body, Numerical):
        keys = tuple(
            replace(k, answer=fm.round_value(k.answer, q.body.decimals)) if k.answer is not None else k
            for k in asked.body.keys
        )
        asked = evolve_question(asked, body=replace(asked.body, keys=keys))
    return asked


def cc_items(
    quiz: Quiz,
    taken: set[str],
    questions: Iterable[tuple[Question, float]] | None = None,
    choices_min: int = 2,
    all_variants: bool = False,
) -> list[CcItem]:
    """The items a quiz's questions (or the given (question, points) pairs) become; ``taken``
    holds every item ident of the document so far (its questions' ids, then the ones made
    here), so a matching question's parts never clash with another item of the document.
    A single-answer choice (a matching part too) with fewer than ``choices_min`` choices is a
    multiple-response item (Version.choices_min). A parametric question is its first variant
    (cc_variant), or with ``all_variants`` (a 1.3 question bank) every variant, as ordinary
    questions ``<id>-v001``, ... (the profile has no calculated type and no random draw)."""
    out = []
    pairs = ((q, q.points) for q in quiz.questions) if questions is None else questions
    for q, points in pairs:
        if isinstance(q.body, Calculated | CalculatedChoice):
            chosen = q.body.variants if all_variants else q.body.variants[:1]
            variant_pairs = []
            for v in chosen:
                one = cc_variant(q, v)
                ident = one.id
                while ident in taken:
                    ident += "-"
                taken.add(ident)
                variant_pairs.append((evolve_question(one, id=ident), points))
            out += cc_items(quiz, taken, variant_pairs, choices_min)
            continue
        if isinstance(q.body, Description):
            continue  # the profile has no item without a response (_question_warnings)
        rights = None
        if isinstance(q.body, Ordering):
            rights = list(qti12.ordering_rights(q.body))
            q = qti12.ordering_as_matching(q)  # then split as a matching question
        if isinstance(q.body, Cloze):
            out += cc_items(quiz, taken, cloze_parts(q, points, taken), choices_min)
            continue
        body = q.body
        if isinstance(body, Matching) and len(qti12.matching_rights(body)) > 1:
            # each part's choices are the right-hand items
            few = len(qti12.matching_rights(body)) < choices_min
            for cc in _split_matching(q, body, points, taken, rights):
                out.append(replace(cc, profile=MULTIPLE_RESPONSE) if few else cc)
            continue
        if isinstance(body, SingleChoice) and len(body.choices) < choices_min:
            out.append(CcItem(q.id, q, q, MULTIPLE_RESPONSE, points))
            continue
        if _as_essay(q):
            asked = q
            if isinstance(body, Matching):  # the items to match, listed in the question
                texts = [q.stem, *(p.left for p in body.pairs), *qti12.matching_rights(body)]
                asked = replace(q, stem=join_texts(texts), body=Essay())
            out.append(CcItem(q.id, asked, q, "cc.essay.v0p1", points))
            continue
        if isinstance(body, Numerical):
            asked = evolve_question(q, body=ShortAnswer(tuple(fib_answers(body))))
            out.append(CcItem(q.id, asked, q, PROFILES[q.type], points))
            continue
        out.append(CcItem(q.id, q, q, PROFILES[q.type], points))
    return out


def fib_answers(body: Numerical) -> list[Answer]:
    """A numerical question's keys as the fill-in-the-blank accepts them: each full-credit key's
    answer as text (with its feedback), once; a range alone has no text to accept."""
    out: dict[str, Answer] = {}
    for _, key in qti12.full_keys(body):
        if key.answer is not None:
            text = qti12.number(qti12.decimal(key.answer))
            out.setdefault(text, Answer(text, feedback=key.feedback))
    return list(out.values())


def _as_essay(q: Question) -> bool:
    """What the profile cannot ask at all: a numerical question with no full-credit answer (a
    range alone has none), and a matching question whose left items all take one right-hand
    item (a choice of one is no question)."""
    match q.body:
        case Numerical():
            return not fib_answers(q.body)
        case Matching():
            return len(qti12.matching_rights(q.body)) < 2
    return False


def _split_matching(
    q: Question, body: Matching, points: float, taken: set[str], rights: list[str] | None = None
) -> list[CcItem]:
    """One multiple-choice part per left item, its choices the right-hand items (``rights`` in
    that order, else matching_rights's)."""
    rights = rights or qti12.matching_rights(body)
    items = []
    for i, pair in enumerate(body.pairs, 1):
        ident = f"{q.id}-{i}"
        while ident in taken:
            ident += "-"
        taken.add(ident)
        stand_in = replace(
            q,
            id=ident,
            # A part of the question: named after it, and without its feedback on the whole
            # response (_question_warnings names that loss).
            name=f"{q.name} ({i})" if q.name is not None else None,
            feedback=OutcomeFeedback(),
            stem=join_texts([q.stem, pair.left]),
            body=SingleChoice(
                tuple(Choice(text, credit=1.0 if text == pair.right else 0.0) for text in rights)
            ),
            points=points / len(body.pairs),
        )
        items.append(CcItem(ident, stand_in, q, PROFILES[QuestionType.MATCHING], stand_in.points))
    return items


def _marked(inlines: tuple[Inline, ...]) -> tuple[Inline, ...]:
    return tuple(Str(f"[{x.n}]") if isinstance(x, Gap) else x for x in inlines)


def _marked_block(block: Block) -> Block:
    match block:
        case Para(children=children):
            return Para(_marked(children))
        case BulletList(items=items):
            return BulletList(tuple(tuple(_marked_block(b) for b in item) for item in items))
        case OrderedList(items=items, start=start):
            return OrderedList(tuple(tuple(_marked_block(b) for b in item) for item in items), start)
        case Table(header=header, rows=rows, aligns=aligns):
            return Table(
                tuple(_marked(c) for c in header), tuple(tuple(_marked(c) for c in r) for r in rows), aligns
            )
        case _:
            return block


def marked_stem(stem: Text) -> Text:
    """A cloze stem with each gap as the text ``[n]``: what every part of it shows."""
    return Rich(tuple(_marked_block(b) for b in stem.blocks)) if isinstance(stem, Rich) else stem


def cloze_parts(q: Question, points: float, taken: set[str]) -> list[tuple[Question, float]]:
    """A cloze question as the profile can ask it: one question per blank (the profile's
    fill-in-the-blank holds one blank, rule-checked: one response_str), each its stem with the
    blanks shown as ``[n]``, the blank asked named at its end (``[n]``, as a matching part names
    its left item), worth the blank's weight's share of the points: a text blank a short answer
    (cc.fib), a number blank a numerical one (cc.fib accepting its values as text), a choice blank a
    single or multiple choice. A cloze of one blank is one question of the same id."""
    body = q.body
    assert isinstance(body, Cloze)
    stem = marked_stem(q.stem)
    one = len(body.blanks) == 1
    out = []
    for n, blank in enumerate(body.blanks, 1):
        asked: SingleChoice | MultipleChoice | ShortAnswer | Numerical
        match blank:
            case TextBlank():
                asked = ShortAnswer(blank.answers, blank.case_sensitive, blank.other_feedback)
            case NumberBlank():
                asked = Numerical(blank.keys, other_feedback=blank.other_feedback)
            case ChoiceBlank() if blank.multiple:
                asked = MultipleChoice(blank.choices)
            case ChoiceBlank():
                asked = SingleChoice(blank.choices)
            case _:
                assert_never(blank)
        ident = q.id
        if not one:
            ident = f"{q.id}-{n}"
            while ident in taken:
                ident += "-"
            taken.add(ident)
        part = replace(
            q,
            id=ident,
            name=(f"{q.name} ({n})" if q.name is not None and not one else q.name),
            feedback=q.feedback if one else OutcomeFeedback(),
            stem=stem if one else join_texts([stem, f"[{n}]"]),
            body=asked,
            points=points * blank.weight / body.total_weight,
        )
        out.append((part, part.points))
    return out


def question_texts(q: Question) -> Iterator[Text]:
    """Every text the cartridge's items of a question write (and so every image they show): a
    cloze's parts', none of a description (it is not written)."""
    match q.body:
        case Description():
            return
        case Cloze():
            for part, _ in cloze_parts(q, q.points, set()):
                yield from qti12.question_texts(part)
        case _:
            yield from qti12.question_texts(q)


def quiz_media(quiz: Quiz) -> dict[str, Media]:
    return qti12.media_files([quiz.description, *(t for q in quiz.questions for t in question_texts(q))])


def _weighting(points: float) -> str | None:
    if points == int(points) and 1 <= points <= MAX_WEIGHTING:
        return str(int(points))
    return None


def item_tree(quiz: Quiz, cc: CcItem, category: str | None, parent: etree._Element) -> etree._Element:
    """One CC-profile ``<item>``, appended to ``parent`` (a section or an objectbank): a copy of
    its shape's skeleton (qti12.skeleton_for) when the question asks as itself (or a numerical
    one as the fill-in-the-blank of its key) and its type allows, else built (build_item_tree)."""
    q = cc.question
    # A numerical question asks as the fill-in-the-blank of its key (cc_items): the source's
    # type decides whether its answers say their case.
    numerical = isinstance(cc.source.body, Numerical) and q is not cc.source
    if (
        (q is not cc.source and not numerical)
        or cc.ident != q.id
        or not qti12.skeleton_type(q)
        or _as_essay(q)
    ):
        return build_item_tree(quiz, cc, category, parent)
    key = (
        "cc",
        quiz.lang_of(q),
        quiz.shuffle,
        cc.profile,
        cc.weight,
        category,
        numerical,
        *qti12.text_shape(q),
    )

    def build(stand_in: Question) -> etree._Element:
        holder = etree.Element(f"{{{QTI_NS}}}section")
        source = cc.source if numerical else stand_in  # (the builder reads its language and type)
        made = replace(cc, ident=stand_in.id, question=stand_in, source=source)
        return build_item_tree(quiz, made, category, holder)

    skeleton = qti12.skeleton_for(key, q, build, STYLE)
    if skeleton is None:
        return build_item_tree(quiz, cc, category, parent)
    item = skeleton.fill(q)
    parent.append(item)
    return item


def build_item_tree(quiz: Quiz, cc: CcItem, category: str | None, parent: etree._Element) -> etree._Element:
    """item_tree built element by element: the definition item_tree's fast path must match."""
    q = cc.question
    lang = quiz.lang_of(cc.source)
    item = _el(parent, "item", ident=cc.ident, title=item_title(q))
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
    qti12.material(presentation, q.stem, lang, style=STYLE)
    resprocessing = _el(item, "resprocessing")
    qti12.outcomes(resprocessing)
    qti12.general_feedback(resprocessing, q)
    ctx = qti12._Item(quiz, q, lang, item, presentation, resprocessing, STYLE)
    body = q.body
    if cc.profile == "cc.essay.v0p1":
        qti12._write_essay(ctx)
    elif cc.profile == MULTIPLE_RESPONSE:
        assert isinstance(body, SingleChoice | MultipleChoice)
        _write_multiple_response(ctx, body)
    else:
        match body:
            case SingleChoice():
                qti12._write_single(ctx, body)
            case TrueFalse():
                _write_true_false(ctx, body)
            case ShortAnswer():
                # a numerical question's too (fib_answers): its numbers as text, with no case
                qti12._write_short_answer(ctx, body, say_case=not isinstance(cc.source.body, Numerical))
            case (
                MultipleChoice()
                | Numerical()
                | Matching()
                | Essay()
                | Cloze()
                | Ordering()
                | Description()
                | Calculated()
                | CalculatedChoice()
            ):  # pragma: no cover
                # profiles of their own; matching, cloze, ordering split; parametric ones instantiated
                raise AssertionError(q.type)
            case _:
                assert_never(body)
    qti12.item_feedbacks(item, q, lang, STYLE)
    return item


def _write_multiple_response(ctx: qti12._Item, body: SingleChoice | MultipleChoice) -> None:
    """Canvas's all-or-nothing condition (the profile's setvar can only Set). Moodle's CC
    importer finds the right choices as ``varequal[@case='Yes']`` under the scoring condition
    (entity11.quiz.class.php get_answers), so the right ones say case="Yes" (identifiers are
    compared exactly anyway)."""
    ids = qti12.choice_ids(body.choices)
    lid = _el(ctx.presentation, "response_lid", ident=qti12.RESPONSE, rcardinality="Multiple")
    render = _el(lid, "render_choice", shuffle="Yes" if ctx.quiz.shuffle else "No")
    for ident, choice in zip(ids, body.choices, strict=True):
        label = _el(render, "response_label", ident=ident)
        qti12.material(label, choice.text, choice.lang or ctx.lang, style=ctx.style, inline=True)
    qti12._choice_feedback(ctx, body.choices)
    keys = set(body.key_indexes)  # a single choice's full-credit ones, a multiple choice's earning ones
    if not keys:
        # A single choice with no full-credit choice: no right answer (as qti12._write_single).
        qti12.varequal(qti12.condition(ctx.resprocessing, False)[1], qti12.RESPONSE, ids[0])
        qti12._show_incorrect(ctx)
        return
    cond, var = qti12.condition(ctx.resprocessing, False)
    and_ = _el(var, "and")
    for i, ident in enumerate(ids):
        if i in keys:
            qti12.varequal(and_, qti12.RESPONSE, ident, case=True)
        else:
            qti12.varequal(_el(and_, "not"), qti12.RESPONSE, ident)
    qti12.set_score(cond, "100")
    qti12._show_correct(ctx, cond)
    qti12._show_incorrect(ctx)


def _write_true_false(ctx: qti12._Item, body: TrueFalse) -> None:
    """Choices ``true`` and ``false`` (Moodle's CC importer requires exactly these idents,
    entity11.quiz.class.php), labelled in the question's language."""
    lid = _el(ctx.presentation, "response_lid", ident=qti12.RESPONSE, rcardinality="Single")
    render = _el(lid, "render_choice", shuffle="No")
    labels = true_false_labels(ctx.lang)
    label_lang = "en" if labels == TRUE_FALSE_LABELS["en"] else ctx.lang  # unknown languages get English
    for (ident, _), label in zip(qti12.TRUE_FALSE, labels, strict=True):
        qti12.material(_el(render, "response_label", ident=ident), label, label_lang)
    qti12.true_false_feedback(ctx, body)
    cond, var = qti12.condition(ctx.resprocessing, False)
    qti12.varequal(var, qti12.RESPONSE, "true" if body.truth else "false")
    qti12.set_score(cond, "100")
    qti12._show_correct(ctx, cond)
    qti12._show_incorrect(ctx)


# --------------------------------------------------------------------------- documents


def qti_root(version: Version = CC13) -> etree._Element:
    """``questestinterop`` in the QTI 1.2 namespace the CC profile uses; its descendants inherit
    the namespace (qti12._el)."""
    root = etree.Element(f"{{{QTI_NS}}}questestinterop", nsmap={None: QTI_NS, "xsi": XSI_NS})
    root.set(f"{{{XSI_NS}}}schemaLocation", version.qti_schema_location)
    return root


def assessment_tree(
    ident: str,
    title: str,
    lang: str,
    description: Text | None,
    items: Iterable[etree._Element],
    version: Version = CC13,
) -> etree._Element:
    """A CC assessment ``A-<ident>``: its metadata (Canvas's cartridge exporter's,
    qti_generator.rb ``generate_assessment`` with ``for_cc``), the description as presentation
    material, and the one section the profile allows, holding ``items``."""
    root = qti_root(version)
    assessment = _el(root, "assessment", ident=f"A-{ident}", title=title)
    assessment.set(qti12.XML_LANG, lang)
    md = _el(assessment, "qtimetadata")
    qti12.meta_field(md, "cc_profile", "cc.exam.v0p1")
    qti12.meta_field(md, "qmd_assessmenttype", "Examination")
    qti12.meta_field(md, "qmd_scoretype", "Percentage")
    if description:
        flow = _el(_el(assessment, "presentation_material"), "flow_mat")
        qti12.material(flow, description, lang, style=STYLE)
    section = _el(assessment, "section", ident="root_section")
    section.extend(items)
    return root


def quiz_assessment_tree(quiz: Quiz, items: list[CcItem], version: Version = CC13) -> etree._Element:
    """A quiz's CC assessment, its items built from ``items``."""
    holder = etree.Element(f"{{{QTI_NS}}}section")
    built = [item_tree(quiz, cc, None, holder) for cc in items]
    return assessment_tree(quiz.id, quiz.title, quiz.lang, quiz.description, built, version)


def bank_tree(
    ident: str, title: str, items: Iterable[etree._Element], version: Version = CC13
) -> etree._Element:
    """A question bank (``objectbank``) holding ``items`` (made by bank_item). ``bank_title`` is
    Canvas's own bank name field (its converter, QTIMigrationTool imsqtiv1.py BankTitle, names the
    bank after it)."""
    root = qti_root(version)
    objectbank = _el(root, "objectbank", ident=f"BANK-{ident}")
    qti12.meta_field(_el(objectbank, "qtimetadata"), "bank_title", title)
    objectbank.extend(items)
    return root


def bank_item(item: etree._Element, category: str) -> etree._Element:
    """An assessment's item as a bank holds it: a copy with ``cc_question_category``, where
    item_tree would have put it (before qmd_computerscored). Copying a built item costs a
    fraction of building it again."""
    out = copy.deepcopy(item)
    md = out[0][0]  # itemmetadata/qtimetadata
    labels = [f[0].text for f in md]
    at = labels.index("qmd_computerscored") if "qmd_computerscored" in labels else len(md)
    holder = etree.Element(md.tag)
    qti12.meta_field(holder, "cc_question_category", category)
    md.insert(at, holder[0])
    return out


def assessment_path(quiz: Quiz | Assessment) -> str:
    return f"{quiz.id}/assessment.xml"


def bank_path(category: Category) -> str:
    return f"{BANK_DIR}/{category.name}.xml"


def pool_path(assessment: Assessment, draw: Draw) -> str:
    """A random draw's bank, in its assessment's folder (no quiz's bank can be named so)."""
    return f"{assessment.id}/pools/{draw.name}.xml"


def pool_title(assessment: Assessment, draw: Draw) -> str:
    return f"{assessment.title} / {draw.name}"


def media_path(filename: str) -> str:
    return f"{MEDIA_DIR}/{filename}"


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


@dataclass
class Resources:
    """What the manifest lists besides the quizzes: for every document, the images it shows."""

    quiz_media: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Quiz id -> the file names of the images its questions show."""
    assessments: tuple[Assessment, ...] = ()


def manifest_tree(
    quizzes: Iterable[Quiz],
    cats: list[Category],
    version: Version = CC13,
    resources: Resources | None = None,
) -> etree._Element:
    """The manifest: an organization folder per category holding its quizzes, then a folder per
    assessment; an assessment resource per quiz and per assessment, a question-bank resource per
    category and per random draw (1.3), and a ``webcontent`` resource per image, on which the
    documents showing it depend. Banks are not in the organization: they are not something a
    learner opens."""
    resources = resources or Resources()
    quizzes = list(quizzes)
    ns = version.manifest_ns
    langs = {q.lang for q in quizzes} | {a.lang for a in resources.assessments}
    lang = langs.pop() if len(langs) == 1 else "en"
    title = cartridge_title(cats)
    manifest = etree.Element(f"{{{ns}}}manifest", nsmap={None: ns, "lomimscc": version.lom_ns, "xsi": XSI_NS})
    manifest.set("identifier", "MANIFEST-lmsexport")
    manifest.set(f"{{{XSI_NS}}}schemaLocation", version.manifest_schema_location)
    metadata = _el(manifest, f"{{{ns}}}metadata")
    _el(metadata, f"{{{ns}}}schema", "IMS Common Cartridge")
    _el(metadata, f"{{{ns}}}schemaversion", version.schema_version)
    general = _el(_el(metadata, f"{{{version.lom_ns}}}lom"), f"{{{version.lom_ns}}}general")
    _el(_el(general, f"{{{version.lom_ns}}}title"), f"{{{version.lom_ns}}}string", title, language=lang)
    _el(general, f"{{{version.lom_ns}}}language", lang)
    org = _el(
        _el(manifest, f"{{{ns}}}organizations"),
        f"{{{ns}}}organization",
        identifier="ORG",
        structure="rooted-hierarchy",
    )
    root_item = _el(org, f"{{{ns}}}item", identifier="ROOT")
    for cat in cats:
        folder = _el(root_item, f"{{{ns}}}item", identifier=f"FOLDER-{cat.name}")
        _el(folder, f"{{{ns}}}title", cat.title)
        for quiz in cat.quizzes:
            entry = _el(folder, f"{{{ns}}}item", identifier=f"ITEM-{quiz.id}", identifierref=f"RES-{quiz.id}")
            _el(entry, f"{{{ns}}}title", quiz.title)
    for exam in resources.assessments:
        folder = _el(root_item, f"{{{ns}}}item", identifier=f"FOLDER-{exam.id}")
        _el(folder, f"{{{ns}}}title", exam.title)
        entry = _el(folder, f"{{{ns}}}item", identifier=f"ITEM-{exam.id}", identifierref=f"RES-{exam.id}")
        _el(entry, f"{{{ns}}}title", exam.title)
    res_el = _el(manifest, f"{{{ns}}}resources")

    def resource(ident: str, rtype: str, path: str, media: Iterable[str]) -> None:
        res = _el(res_el, f"{{{ns}}}resource", identifier=ident, type=rtype)
        _el(res, f"{{{ns}}}file", href=path)
        for name in media:
            _el(res, f"{{{ns}}}dependency", identifierref=media_resource_id(name))

    every: dict[str, None] = {}
    for cat in cats:
        for quiz in cat.quizzes:
            used = resources.quiz_media.get(quiz.id, ())
            every.update(dict.fromkeys(used))
            resource(f"RES-{quiz.id}", version.assessment_type, assessment_path(quiz), used)
    if version.banks:
        for cat in cats:
            shown = dict.fromkeys(n for q in cat.quizzes for n in resources.quiz_media.get(q.id, ()))
            resource(f"RES-BANK-{cat.name}", version.bank_type, bank_path(cat), shown)
    for exam in resources.assessments:
        used = tuple(qti12.media_files(_exam_texts(exam)))
        every.update(dict.fromkeys(used))
        resource(f"RES-{exam.id}", version.assessment_type, assessment_path(exam), used)
        if version.banks:
            for draw in exam.draws:
                if draw.is_random:
                    pool = tuple(
                        qti12.media_files(t for c in draw.candidates for t in question_texts(c.question))
                    )
                    resource(
                        f"RES-POOL-{exam.id}-{draw.name}", version.bank_type, pool_path(exam, draw), pool
                    )
    for name in sorted(every):
        web = _el(
            res_el,
            f"{{{ns}}}resource",
            identifier=media_resource_id(name),
            type="webcontent",
            href=media_path(name),
        )
        _el(web, f"{{{ns}}}file", href=media_path(name))
    return manifest


def media_resource_id(filename: str) -> str:
    return f"WEB-{filename}"


def _exam_texts(assessment: Assessment) -> Iterator[Text | None]:
    yield assessment.description
    for c in assessment.candidates:
        yield from question_texts(c.question)


def exam_items(assessment: Assessment, version: Version = CC13) -> Iterator[tuple[Draw, list[CcItem], Quiz]]:
    """The items of an assessment, draw by draw: every candidate, at its points in the draw."""
    taken = {c.question.id for c in assessment.candidates}
    for draw in assessment.draws:
        for c in draw.candidates:
            entry = [(c.question, draw.points_of(c.question))]
            yield draw, cc_items(c.quiz, taken, entry, version.choices_min), c.quiz


def exam_documents(
    assessment: Assessment, version: Version = CC13
) -> Iterator[tuple[str, str, etree._Element]]:
    """(path, kind, tree) of an assessment's documents: its CC assessment (every section's items,
    in order, in the one section the profile allows) and (1.3) a bank per random draw."""
    built: list[tuple[Draw, etree._Element]] = []
    holder = etree.Element(f"{{{QTI_NS}}}section")
    for draw, items, quiz in exam_items(assessment, version):
        for cc in items:
            built.append((draw, item_tree(quiz, cc, None, holder)))
    tree = assessment_tree(
        assessment.id,
        assessment.title,
        assessment.lang,
        assessment.description,
        [item for _, item in built],
        version,
    )
    yield assessment_path(assessment), "cc-qti", tree
    if not version.banks:
        return
    for draw in assessment.draws:
        if draw.is_random:
            title = pool_title(assessment, draw)
            items = [bank_item(item, title) for d, item in built if d is draw]
            yield (
                pool_path(assessment, draw),
                "cc-qti",
                bank_tree(f"{assessment.id}-{draw.name}", title, items, version),
            )


# --------------------------------------------------------------------------- a quiz's documents


@dataclass
class QuizDocuments:
    """What a quiz contributes to a cartridge: its assessment, and (1.3) its items as its
    category's bank holds them, in a bank of their own (package.py cuts them out of it)."""

    assessment: etree._Element
    bank: etree._Element | None
    media: dict[str, Media]


_BUILT: list[tuple[Quiz, dict[str, tuple[CcItem, etree._Element]]]] = []
"""The last quiz's built items, by ident: the 1.3 and the 1.1 cartridge hold the same items
(unless the quiz has a choice that 1.1 wants more choices for), a 1.3 bank of a parametric quiz
holds its assessment's items and the other variants, and a build of a quiz writes its documents
one after the other in the same process. An item is built again when its CcItem differs."""


def _built_items(
    quiz: Quiz, version: Version, all_variants: bool = False, items: list[CcItem] | None = None
) -> list[etree._Element]:
    """The quiz's items in ``version`` built (``items``: its cc_items, when the caller has them)."""
    if items is None:
        items = cc_items(
            quiz, {q.id for q in quiz.questions}, choices_min=version.choices_min, all_variants=all_variants
        )
    if not (_BUILT and _BUILT[0][0] is quiz):
        _BUILT[:] = [(quiz, {})]
    built = _BUILT[0][1]
    holder = None
    out = []
    for cc in items:
        hit = built.get(cc.ident)
        if hit is None or hit[0] != cc:
            if holder is None:
                holder = etree.Element(f"{{{QTI_NS}}}section")
            hit = built[cc.ident] = (cc, item_tree(quiz, cc, None, holder))
        out.append(hit[1].__deepcopy__(None))  # (lxml's copy: copy.deepcopy adds ~2 us a call)
    return out


def parametric(quiz: Quiz) -> bool:
    return any(isinstance(q.body, Calculated | CalculatedChoice) for q in quiz.questions)


def quiz_documents(quiz: Quiz, version: Version = CC13, cc: list[CcItem] | None = None) -> QuizDocuments:
    """The quiz's assessment and (a version with banks) its bank; ``cc``: its cc_items, when the
    caller has them."""
    items = _built_items(quiz, version, items=cc)
    bank = quiz_bank_tree(quiz, version, items) if version.banks else None
    tree = assessment_tree(quiz.id, quiz.title, quiz.lang, quiz.description, items, version)
    return QuizDocuments(tree, bank, quiz_media(quiz))


def quiz_bank_tree(quiz: Quiz, version: Version, items: list[etree._Element]) -> etree._Element:
    """A quiz's items as its category's bank holds them (``items``: its assessment's)."""
    category = category_title(quiz)
    # The bank holds every variant of a parametric question (the assessment its first), so
    # a random draw of one can be set up in the LMS after import.
    held = _built_items(quiz, version, all_variants=True) if parametric(quiz) else items
    return bank_tree(quiz.id, category, [bank_item(item, category) for item in held], version)


def cartridge_documents(bank: Bank, version: Version = CC13) -> Iterator[tuple[str, str, etree._Element]]:
    """(path, kind, tree) of every XML file of the cartridge, whole, in zip order: the manifest,
    per category its quizzes' assessments and its bank, then the assessments and their pool
    banks. package.py writes the same files from per-quiz parts (so that a parallel build can
    make them in its workers); this is their definition, which tests compare the parts with."""
    quizzes = [q for q in bank.quizzes if holds_items(q, version)]
    exams = tuple(a for a in bank.assessments if holds_items(a, version))
    cats = categories(quizzes)
    res = Resources({q.id: tuple(quiz_media(q)) for q in quizzes}, exams)
    yield MANIFEST_PATH, "cc-manifest", manifest_tree(quizzes, cats, version, res)
    for cat in cats:
        held: list[etree._Element] = []
        taken: set[str] = set()
        for quiz in cat.quizzes:
            docs = quiz_documents(quiz, version)
            yield assessment_path(quiz), "cc-qti", docs.assessment
            if docs.bank is not None:
                for item in docs.bank[0].iterchildren(f"{{{QTI_NS}}}item"):
                    held.append(rename_clash(item, taken))
        if version.banks:
            yield bank_path(cat), "cc-qti", bank_tree(cat.name, cat.title, held, version)
    for assessment in exams:
        yield from exam_documents(assessment, version)


def rename_clash(item: etree._Element, taken: set[str]) -> etree._Element:
    """An item as a bank spanning several quizzes holds it: a matching question's part whose
    ident another quiz's question already has there gets dashes appended until it is unique (a
    quiz's documents avoid only its own idents)."""
    ident = item.get("ident") or ""
    while ident in taken:
        ident += "-"
    taken.add(ident)
    item.set("ident", ident)
    return item


# --------------------------------------------------------------------------- what the profile drops


def lossy_warnings(bank: Bank, version: Version = CC13) -> list[Diagnostic]:
    """What the CC profile cannot carry: per question of every quiz, then per assessment."""
    out: list[Diagnostic] = []
    for quiz in bank.quizzes:
        out += quiz_warnings(quiz, version)
    for assessment in bank.assessments:
        out += exam_warnings(assessment, version)
    return out


def quiz_warnings(quiz: Quiz, version: Version = CC13) -> list[Diagnostic]:
    """Per question (once, for the assessment and the bank)."""
    return [w for q in quiz.questions for w in _question_warnings(quiz, q, version)]


def _question_warnings(quiz: Quiz, q: Question, version: Version) -> Iterable[Diagnostic]:
    loc = q.loc or SourceLoc(quiz.id)
    fmt, cc = version.format, f"the Common Cartridge {version.number} profile"
    if isinstance(q.body, Calculated | CalculatedChoice):
        k = len(q.body.variants)
        kind = "calculated" if isinstance(q.body, Calculated) else "calculated multiple-choice"
        held = (
            f"its question bank holds all {k} variants ({q.id}-v001 ...), to set up a random draw of "
            "one in the LMS after import"
            if version.banks
            else f"the other {k - 1} variants are not written (a 1.1 cartridge has no question bank)"
        )
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} has no {kind} question and no random draw: the assessment asks "
            f"its first variant as an ordinary question; {held}; the formulas are not carried",
            f"{fmt}.variants-not-carried",
        )
        first = cc_variant(q, q.body.variants[0])
        yield from _question_warnings(quiz, replace(first, id=q.id, loc=q.loc), version)
        return
    if isinstance(q.body, Description):
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} has no item without a response (no text-only question); the "
            "description is not written",
            f"{fmt}.description-not-carried",
        )
        return
    if isinstance(q.body, Cloze):
        yield from _cloze_warnings(quiz, q, version)
        return
    if isinstance(q.body, Ordering):
        lost = qti12.ordering_losses(q.body)
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} has no ordering type; written as a matching question of each item "
            "with its position (as Canvas imports an ordering), split as one below"
            + (f"; not carried: {'; '.join(lost)}" if lost else ""),
            f"{fmt}.ordering-as-matching",
        )
        q = qti12.ordering_as_matching(q)
    if isinstance(q.body, MultipleChoice):
        # Moodle's 1.1 importer gives each right choice 1/n of the mark and a wrong one nothing
        # (entity11.quiz.class.php get_answers): partial credit without the penalty.
        moodle = (
            "; Moodle's importer gives each right choice a share and wrong choices nothing"
            if version is CC11
            else ""
        )
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} scores a multiple-answer question "
            f"all or nothing; its partial credit is not carried{moodle}",
            f"{fmt}.partial-credit",
        )
    if isinstance(q.body, Numerical):
        texts = [a.text for a in fib_answers(q.body)]
        if not texts:
            yield _warn(
                loc,
                f"question {q.id!r}: {cc} has no numerical type and cannot "
                "test a range; written as an essay (graded by hand)",
                f"{fmt}.numerical-as-essay",
            )
        else:
            accepted = (
                f"the text {texts[0]!r}" if len(texts) == 1 else f"the texts {', '.join(map(repr, texts))}"
            )
            yield _warn(
                loc,
                f"question {q.id!r}: {cc} has no numerical type; written as "
                f"fill-in-the-blank accepting only {accepted} "
                "(tolerance or range lost)",
                f"{fmt}.numerical-as-fib",
            )
    few = version.choices_min
    if (isinstance(q.body, SingleChoice) and len(q.body.choices) < few) or (
        isinstance(q.body, Matching) and 1 < len(qti12.matching_rights(q.body)) < few
    ):
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} wants a multiple-choice question to have at least {few} "
            f"choices (rule 4d); written as multiple-response with the same key, where a learner may "
            "tick more than one",
            f"{fmt}.few-choices",
        )
    if isinstance(q.body, Matching) and _as_essay(q):
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} has no matching type, and with a single "
            "right-hand item it cannot be asked as a choice; written as an essay (graded by hand)",
            f"{fmt}.matching-as-essay",
        )
    elif isinstance(q.body, Matching):
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} has no matching type; written as "
            f"{len(q.body.pairs)} multiple-choice questions, one per left-hand item",
            f"{fmt}.matching-split",
        )
    if isinstance(q.body, ShortAnswer) and q.body.case_sensitive:
        yield _warn(
            loc,
            f'question {q.id!r}: case_sensitive is written (varequal case="Yes") but Canvas\'s and '
            "Moodle's cartridge importers compare short answers without regard to case",
            f"{fmt}.case-sensitive",
        )
    weight = _points_warning(q, q.points, version)
    if weight is not None:
        yield _warn(loc, f"question {q.id!r}: {weight}", f"{fmt}.points-not-carried")
    for element, why in profile_losses(q, version):
        yield _warn(loc, f"question {q.id!r}: {why}", f"{fmt}.{element}-not-carried")


def _cloze_warnings(quiz: Quiz, q: Question, version: Version) -> Iterator[Diagnostic]:
    """A cloze question's losses: its split into one question per blank (cloze_parts), and each
    part's own, one warning per element for the whole question."""
    body = q.body
    assert isinstance(body, Cloze)
    loc = q.loc or SourceLoc(quiz.id)
    fmt, cc = version.format, f"the Common Cartridge {version.number} profile"
    parts = cloze_parts(q, q.points, set())
    if len(parts) > 1:
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} holds one blank per question (cc.fib has one response); written as "
            f"{len(parts)} questions, one per blank, each showing the text with the blanks as [n]",
            f"{fmt}.cloze-split",
        )
        if q.feedback:
            yield _warn(
                loc,
                f"question {q.id!r}: {cc}: written as one question per blank, the cloze has no response "
                "to show its feedback on the whole response for",
                f"{fmt}.feedback-not-carried",
            )
    blanks = list(enumerate(body.blanks, 1))
    dropdowns = [n for n, b in blanks if isinstance(b, ChoiceBlank) and b.display is ChoiceDisplay.DROPDOWN]
    if dropdowns:
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} has no drop-down: the choices of {qti12._blanks(dropdowns)} are "
            "shown as buttons",
            f"{fmt}.blank-display-not-carried",
        )
    shuffled = [n for n, b in blanks if isinstance(b, ChoiceBlank) and b.shuffle != quiz.shuffle]
    if shuffled:
        yield _warn(
            loc,
            f"question {q.id!r}: {cc} shuffles a choice as the quiz does ({'' if quiz.shuffle else 'not '}"
            f"shuffled); the shuffle setting of {qti12._blanks(shuffled)} not carried",
            f"{fmt}.blank-shuffle-not-carried",
        )
    found: dict[str, list[tuple[int, str]]] = {}
    for n, (part, _) in enumerate(parts, 1):
        for w in _question_warnings(quiz, part, version):
            found.setdefault(w.rule or "", []).append((n, w.message.removeprefix(f"question {part.id!r}: ")))
    for rule, said in found.items():
        texts = list(dict.fromkeys(m for _, m in said))
        if len(texts) == 1 and (len(said) == len(parts) or len(parts) == 1):
            why = texts[0]
        else:
            why = "; ".join(f"blank {n}: {m}" for n, m in said)
        yield _warn(loc, f"question {q.id!r}: {why}", rule)


def profile_losses(q: Question, version: Version) -> Iterator[tuple[str, str]]:
    """(element, why) for what a cartridge item of the question cannot hold: the profile has
    right and wrong answers only (setvar can only Set, rule-checked by its XSD), no wildcards,
    hints for retries, penalties, units or essay settings; and, in the 1.1 cartridge, what
    Moodle's restore (the LMS it is for) drops of what the profile holds."""
    cc = f"the Common Cartridge {version.number} profile"
    body = q.body
    credit = None
    match body:
        case SingleChoice(choices=choices):
            odd = [
                f"{qti12._percent(c.credit)} for choice {i}"
                for i, c in enumerate(choices, 1)
                if c.credit and not c.full
            ]
            if odd:
                credit = f"{cc} marks a choice right or wrong: {', '.join(odd)} not carried (written as 0 %)"
        case ShortAnswer(answers=answers):
            odd = [f"{a.text!r} ({qti12._percent(a.credit)})" for a in answers if not is_full(a.credit)]
            if odd:
                credit = f"{cc} accepts an answer as fully right or not at all; {', '.join(odd)} not written"
        case Numerical(keys=keys):
            odd = [
                f"key {i} ({qti12._percent(k.credit)})"
                for i, k in enumerate(keys, 1)
                if not is_full(k.credit)
            ]
            if odd:
                credit = f"{cc} accepts an answer as fully right or not at all; {', '.join(odd)} not written"
        case MultipleChoice() | TrueFalse() | Matching() | Essay():
            pass  # a multiple choice question's credits: the partial-credit warning
        case Cloze() | Ordering() | Description() | Calculated() | CalculatedChoice():
            pass  # asked as other questions (cc_items), whose own losses these are
        case _:
            assert_never(body)
    if credit is not None:
        yield "credit", credit
    if isinstance(body, ShortAnswer):
        wild = [a.text for a in body.answers if a.wildcard and is_full(a.credit)]
        if wild:
            kept = any(a.wildcard for _, a in qti12.accepted_answers(body))
            how = "written as text, * matching only a *" if kept else "not written"
            yield "wildcard", f"{cc} has no wildcard answers; {wild!r} {how}"
    correct, incorrect = q.feedback.correct, q.feedback.incorrect
    asked_apart = isinstance(body, Matching) or _as_essay(q)
    if not isinstance(body, Essay) and asked_apart and (correct is not None or incorrect is not None):
        how = "an essay" if _as_essay(q) else "one question per left-hand item"
        yield (
            "feedback",
            f"{cc}: written as {how}, the question has no response to show its right or wrong feedback for",
        )
    elif version is CC11 and not isinstance(body, Essay) and (correct is not None or incorrect is not None):
        # entity11.quiz.class.php reads a continuing condition's feedback as the general feedback
        # and a condition's as the feedback of the answer its first varequal names: correct_fb,
        # shown by the condition naming the right choice, becomes that choice's feedback.
        kept = isinstance(body, SingleChoice | TrueFalse) and correct is not None
        lost = [
            w
            for w, t in (("right", correct), ("wrong", incorrect))
            if t is not None and not (w == "right" and kept)
        ]
        if lost:
            yield (
                "feedback",
                (
                    f"Moodle's cartridge restore keeps no feedback on a {' or a '.join(lost)} response"
                    + ("; the feedback on a right one becomes the right choice's feedback" if kept else "")
                ),
            )
    if version is CC11 and isinstance(body, ShortAnswer | Numerical) and not _as_essay(q):
        written = body if isinstance(body, ShortAnswer) else ShortAnswer(tuple(fib_answers(body)))
        if any(a.feedback is not None for _, a in qti12.accepted_answers(written)):
            # get_answers_fib stores a right answer's feedback in a misspelt array
            # ($correctanswerfib), so it never reaches the question.
            yield (
                "answer-feedback",
                "Moodle's cartridge restore drops the feedback of a right fill-in-the-blank answer",
            )
    yield from qti12.common_losses(q, cc)


def _points_warning(q: Question, points: float, version: Version) -> str | None:
    parts = len(q.body.pairs) if isinstance(q.body, Matching) and not _as_essay(q) else 1
    if _weighting(points / parts) is not None:
        return None
    worth = f"{num(points)} points over {parts} items" if parts > 1 else f"{num(points)} points"
    return (
        f"the Common Cartridge {version.number} profile carries points only as a whole number from 1 "
        f"to {MAX_WEIGHTING} per item (cc_weighting); {worth} cannot be written, so LMSs give it "
        "their default"
    )


def exam_warnings(assessment: Assessment, version: Version = CC13) -> list[Diagnostic]:
    """What an assessment loses in a cartridge: its random draws, its sections and the points
    its draws give that the profile cannot carry (its questions' own losses are reported by
    their quizzes)."""
    fmt = version.format
    where = assessment.loc or SourceLoc(assessment.id)
    out = []
    for draw in assessment.draws:
        if draw.is_random:
            rebuild = (
                f"its questions are also the question bank {pool_title(assessment, draw)!r}, to rebuild "
                "the random draw from"
                if version.banks
                else "rebuild the random draw from the question category the LMS makes of the assessment"
            )
            out.append(
                _warn(
                    draw.loc or where,
                    f"assessment {assessment.id!r}: the Common Cartridge {version.number} profile has no "
                    f"random selection; pool {draw.name!r} (pick {draw.pick} of {len(draw.candidates)}) is "
                    f"written with all {len(draw.candidates)} questions, so an LMS asks every one; {rebuild}",
                    f"{fmt}.random-draw",
                )
            )
        if draw.points is not None:
            for c in draw.candidates:
                if isinstance(c.question.body, Description):
                    continue  # not written (and worth nothing in any draw)
                weight = _points_warning(c.question, draw.points, version)
                if weight is not None and draw.points != c.question.points:
                    out.append(
                        _warn(
                            draw.loc or where,
                            f"assessment {assessment.id!r}, question {c.question.id!r}: {weight}",
                            f"{fmt}.points-not-carried",
                        )
                    )
    lost = [s for s in assessment.sections if s.title or s.shuffle]
    if len(assessment.sections) > 1 or lost:
        what = []
        if len(assessment.sections) > 1:
            what.append(f"its {len(assessment.sections)} sections are written as one")
        if any(s.title for s in assessment.sections):
            what.append("section titles are lost")
        if any(s.shuffle for s in assessment.sections):
            what.append("the shuffled order of a section is lost")
        out.append(
            _warn(
                where,
                f"assessment {assessment.id!r}: the Common Cartridge {version.number} profile allows an "
                f"assessment one section of questions; {', '.join(what)}",
                f"{fmt}.sections",
            )
        )
    return out


def _warn(loc: SourceLoc, message: str, rule: str) -> Diagnostic:
    return Diagnostic(loc, message, Severity.WARNING, rule)


# --------------------------------------------------------------------------- Common Cartridges
#
# A cartridge holds the whole bank, so it cannot be one quiz's output like the other formats'.
# It is written in two steps, registered in writers.SPLIT: cc_parts, run per source file (in the
# workers of a parallel build), builds, validates, serialises and compresses what one quiz
# contributes (its assessment and its items as its category's bank holds them); cc_assemble, run
# once with every quiz's part, writes the manifest, the assessments of the bank's assessments
# and each category's bank (from the parts' compressed items), and zips. The in-memory writers
# (build_cc13, build_cc11) are the same two steps, so both paths give the same bytes.


@dataclass
class CcPart:
    """What one quiz contributes to a cartridge (picklable: a worker sends it to the parent)."""

    quiz: Quiz
    """The quiz's header (no questions)."""
    assessment: Deflated
    """Its CC assessment, serialised and compressed."""
    bank: Deflated | None
    """Its items as its category's bank holds them (serialised as there, indented inside the
    objectbank), compressed as a piece of that member (join_deflated); None in a 1.1 cartridge."""
    bank_idents: tuple[str, ...]
    media: dict[str, Media]
    """The images its texts show, by file name."""
    warnings: list[Diagnostic]
    problems: list[Diagnostic]
    """Its documents' validation errors (a bug of ours): the cartridge is not written."""
    empty: bool = False
    """Whether the quiz has no item the profile can hold (only descriptions): it is left out."""


def _cc_check(version: str) -> CcVersion:
    from ..validate_qti12 import CC_VERSIONS

    return CC_VERSIONS[version]


def _bank_frame(ident: str, title: str, version: Version) -> tuple[bytes, bytes]:
    """The serialised bank document around its items: what comes before the first item and
    after the last one (the serialisation of the bank without items, cut where they would go)."""
    empty = serialize(bank_tree(ident, title, [], version))
    cut = empty.rindex(b"  </objectbank>")
    return empty[:cut], empty[cut:]


def _bank_items(
    tree: etree._Element, ident: str, title: str, version: Version, data: bytes | None = None
) -> bytes:
    """The serialised items of a bank document built by bank_tree(ident, title, ...) (``data``:
    its serialisation, when made already)."""
    data = serialize(tree) if data is None else data
    prefix, suffix = _bank_frame(ident, title, version)
    if not (data.startswith(prefix) and data.endswith(suffix)):  # pragma: no cover - lxml's layout
        raise AssertionError("a bank's serialisation does not frame its items as expected")
    return data[len(prefix) : len(data) - len(suffix)]


def cc_part(quiz: Quiz, version: Version) -> CcPart:
    """A quiz's part of a cartridge: its documents built (quiz_documents), validated
    against the version's CC profile (XSD and Schematron), serialised and compressed."""
    from ..validate_qti12 import validate_cc_tree

    check = _cc_check(version.manifest_ns)
    if not holds_items(quiz, version):
        warnings = part_warnings(quiz, version, holds=False)
        return CcPart(quiz.header, deflate(b""), None, (), {}, warnings, [], empty=True)
    made = _quiz_assessment(quiz, version)
    docs = made.documents(version)
    where = f"{version.cartridge_path}!"
    # The assessment was serialised once, before it is validated, and its items' shapes cut
    # from those bytes (_quiz_assessment) rather than serialising every item again.
    problems = validate_cc_tree(
        docs.assessment, "cc-qti", where + assessment_path(quiz), check, made.data, made.shapes
    )
    assessment = join_deflated([deflate(made.head, final=False), made.body])
    bank = None
    idents: tuple[str, ...] = ()
    if docs.bank is not None:
        title = category_title(quiz)
        bank_data = serialize(docs.bank)
        where_bank = f"{where}{BANK_DIR} (items of {quiz.id})"
        problems += validate_cc_tree(docs.bank, "cc-qti", where_bank, check, bank_data)
        bank = deflate(_bank_items(docs.bank, quiz.id, title, version, bank_data), final=False)
        idents = tuple(item.get("ident") or "" for item in docs.bank[0].iterchildren(f"{{{QTI_NS}}}item"))
    warnings = part_warnings(quiz, version, holds=True)
    return CcPart(quiz.header, assessment, bank, idents, docs.media, warnings, problems)


@dataclass
class _Assessment:
    """A quiz's CC assessment as cc_part last made it, for the other version's part: a build
    makes a quiz's parts of both cartridges one after the other in the same process, and the
    1.3 and 1.1 assessments differ only in the root's schemaLocation when their items are the
    same (as they are unless Version.choices_min changes an item of the quiz). So the other
    version's part takes the tree (its schemaLocation set), the serialisation (its
    schemaLocation replaced), the items' shapes and the compressed body, and is still
    validated against its own XSD and rules (what it saves: docs/performance.md, "the 1.1
    cartridge takes the 1.3 assessment")."""

    quiz: Quiz
    items: list[CcItem]
    tree: etree._Element
    section: etree._Element
    """The tree's section, which holds the items."""
    version: Version
    """The version ``data``, ``head`` and ``tree``'s schemaLocation are of."""
    data: bytes
    """serialize(tree)."""
    head: bytes
    """``data`` to the end of the root's start tag (what the versions' documents differ in)."""
    body: Deflated
    """The rest of ``data``, compressed: the piece after either version's head."""
    level: int | None
    """The zip level ``body`` was compressed at (package.current_zip_level)."""
    shapes: list[Shape]
    """validate_qti12.item_shapes of the document."""
    bank: etree._Element | None
    """Its 1.3 bank, when the part made was of a version with banks."""
    media: dict[str, Media]

    def documents(self, version: Version) -> QuizDocuments:
        """The quiz's documents in ``version``, this record's data, head and tree moved to it."""
        if version is not self.version:
            old, new = self.version.qti_schema_location, version.qti_schema_location
            start = self.head.index(b"<questestinterop ")
            at = self.head.index(old.encode(), start)
            self.head = self.head[:at] + new.encode() + self.head[at + len(old) :]
            self.data = self.head + self.data[len(self.data) - self.body.size :]
            self.tree.set(f"{{{XSI_NS}}}schemaLocation", new)
            self.version = version
            self.bank = None
        if version.banks and self.bank is None:
            self.bank = quiz_bank_tree(self.quiz, version, list(self.section))
        return QuizDocuments(self.tree, self.bank, self.media)


_ASSESSMENT: list[_Assessment] = []
"""The last part's _Assessment (none or one) until another part takes or replaces it."""


def _quiz_assessment(quiz: Quiz, version: Version) -> _Assessment:
    """The quiz's assessment in ``version`` (with its bank, in a version with banks), from the
    last part's when that was of the same quiz and items, compressed at the same zip level
    (_Assessment), else made."""
    from ..validate_qti12 import item_shapes

    items = cc_items(quiz, {q.id for q in quiz.questions}, choices_min=version.choices_min)
    level = current_zip_level()
    last = _ASSESSMENT[0] if _ASSESSMENT else None
    _ASSESSMENT.clear()  # taken once (both versions' parts are made then), or replaced: the
    # last quiz's tree goes before this one's is built
    if last is not None and last.quiz is quiz and last.items == items and last.level == level:
        return last
    docs = quiz_documents(quiz, version, items)
    data = serialize(docs.assessment)
    cut = data.index(b">", data.index(b"<questestinterop ")) + 1
    made = _Assessment(
        quiz,
        items,
        docs.assessment,
        docs.assessment[0][-1],  # assessment_tree: the assessment's last child is its section
        version,
        data,
        data[:cut],
        deflate(data[cut:]),
        level,
        item_shapes(docs.assessment, data),
        docs.bank,
        docs.media,
    )
    _ASSESSMENT.append(made)
    return made


def part_warnings(quiz: Quiz, version: Version, holds: bool | None = None) -> list[Diagnostic]:
    """The warnings of a quiz's part (cc_part, and cc_losses without the part): what the
    version cannot carry of each of its questions, and, when it holds none of them, that the
    quiz is left out. ``holds``: holds_items(quiz, version), when the caller knows it."""
    warnings = quiz_warnings(quiz, version)
    if not (holds_items(quiz, version) if holds is None else holds):
        warnings = [*warnings, _left_out(quiz, version)]
    return warnings


def _bank_piece(part: CcPart, taken: set[str], version: Version) -> Deflated:
    """A part's bank items for its category's bank. Its item idents are unique within the quiz
    (cc_items); one another quiz of the category already has is renamed here as
    rename_clash renames it (rare: a matching question's part named like another quiz's
    question), by reading the part's own items back."""
    assert part.bank is not None
    if taken.isdisjoint(part.bank_idents):
        taken.update(part.bank_idents)
        return part.bank
    title = category_title(part.quiz)
    prefix, suffix = _bank_frame(part.quiz.id, title, version)
    items = zlib.decompressobj(-15).decompress(part.bank.data)
    tree = etree.fromstring(prefix + items + suffix, etree.XMLParser(resolve_entities=False, no_network=True))
    for el in tree.iter():  # the layout's white space goes (the items hold no mixed content)
        if len(el) and el.text and not el.text.strip():
            el.text = None
        if el.tail and not el.tail.strip():
            el.tail = None
    held = [rename_clash(item, taken) for item in tree[0].iterchildren(f"{{{QTI_NS}}}item")]
    renamed = bank_tree(part.quiz.id, title, held, version)
    return deflate(_bank_items(renamed, part.quiz.id, title, version), final=False)


def holds_items(quiz: Quiz | Assessment, version: Version = CC13) -> bool:
    """Whether a quiz (an assessment) has an item in the cartridge: one of only descriptions has
    none, and the profile wants a section to hold at least one item, so it is left out."""
    if isinstance(quiz, Assessment):
        return any(items for _, items, _ in exam_items(quiz, version))
    return bool(cc_items(quiz, {q.id for q in quiz.questions}, choices_min=version.choices_min))


def _left_out(what: Quiz | Assessment, version: Version) -> Diagnostic:
    kind = "assessment" if isinstance(what, Assessment) else "quiz"
    return _warn(
        what.loc or SourceLoc(what.id),
        f"{kind} {what.id!r}: the Common Cartridge {version.number} profile wants an assessment to hold "
        "at least one item, and it has only descriptions, which the profile cannot hold; left out of "
        "the cartridge",
        f"{version.format}.{kind}-not-carried",
    )


def cc_parts(bank: Bank, ctx: WriteContext, fmt: str) -> list[CcPart]:
    """The parts of a bank's quizzes (a parallel build calls it with one source file's quiz)."""
    version = VERSIONS[fmt]
    return [cc_part(quiz, version) for quiz in bank.quizzes]


def cc_assemble(
    parts: Iterable[CcPart], assessments: Sequence[Assessment], ctx: WriteContext, fmt: str
) -> Output:
    """The cartridge from every quiz's part and the bank's (resolved) assessments: the manifest,
    then per category its quizzes' assessments and its bank, then each assessment and its pool
    banks, then the images; every document validated before anything is written. Raises
    SchemaValidationError with every problem of every part."""
    from ..validate_qti12 import validate_cc_tree

    version = VERSIONS[fmt]
    check = _cc_check(version.manifest_ns)
    by_id = {p.quiz.id: p for p in parts}
    ordered = [by_id[k] for k in sorted(by_id)]
    output = Output(warnings=[w for p in ordered for w in p.warnings])
    output.warnings += [w for a in assessments for w in exam_warnings(a, version)]
    problems = [d for p in ordered for d in p.problems]
    ordered = [p for p in ordered if not p.empty]
    output.warnings += [_left_out(a, version) for a in assessments if not holds_items(a, version)]
    assessments = [a for a in assessments if holds_items(a, version)]
    if not ordered:
        return output
    where = f"{version.cartridge_path}!"
    cats = categories(p.quiz for p in ordered)
    media: dict[str, Media] = {}
    for p in ordered:
        media.update(p.media)
    for a in assessments:
        media.update(qti12.media_files(t for c in a.candidates for t in question_texts(c.question)))
        media.update(qti12.media_files([a.description]))
    resources = Resources({p.quiz.id: tuple(p.media) for p in ordered}, tuple(assessments))
    manifest = manifest_tree([p.quiz for p in ordered], cats, version, resources)
    manifest_data = serialize(manifest)
    # The manifest lists the quizzes, not their questions: an edit of a question leaves its bytes
    # as the last build validated them (~0.2 s of Schematron at 100,000 questions), and a
    # document of the same bytes is valid or not whatever build made it.
    known = valid_digest("cc-manifest", version.manifest_ns, manifest_data)
    if known in ctx.known_valid:
        output.validated.append(known)
    else:
        found = validate_cc_tree(manifest, "cc-manifest", where + MANIFEST_PATH, check)
        problems += found
        if not found:
            output.validated.append(known)

    def members() -> Iterator[tuple[str, Deflated]]:
        yield MANIFEST_PATH, deflate(manifest_data)
        for cat in cats:
            pieces: list[Deflated] = []
            taken: set[str] = set()
            for quiz in cat.quizzes:
                part = by_id[quiz.id]
                yield assessment_path(quiz), part.assessment
                if part.bank is not None:
                    pieces.append(_bank_piece(part, taken, version))
            if version.banks:
                prefix, suffix = _bank_frame(cat.name, cat.title, version)
                yield (
                    bank_path(cat),
                    join_deflated([deflate(prefix, final=False), *pieces, deflate(suffix)]),
                )
        for assessment in assessments:
            # Built here, from the resolved assessment: one document at a time.
            for path, kind, tree in exam_documents(assessment, version):
                data = serialize(tree)
                problems.extend(validate_cc_tree(tree, kind, where + path, check, data))
                yield path, deflate(data)
        for name in sorted(media):
            yield media_path(name), deflate(media[name].data)

    data = zip_deflated(members(), ctx.timestamp)
    if problems:
        raise SchemaValidationError(problems)
    output.files[version.cartridge_path] = data
    return output


def build_cc13(bank: Bank, ctx: WriteContext) -> Output:
    """The cc13 writer: one IMS Common Cartridge 1.3 of the whole bank at cc/bank.imscc.

    The manifest, every assessment and every question bank are validated against the CC 1.3
    profiles (XSD and their Schematron rules) before anything is zipped.
    """
    return cc_assemble(cc_parts(bank, ctx, "cc13"), bank.assessments, ctx, "cc13")


def build_cc11(bank: Bank, ctx: WriteContext) -> Output:
    """The cc11 writer: the same cartridge in Common Cartridge 1.1, which Moodle restores (it
    recognises 1.0 and 1.1 only: backup/converter/imscc11/lib.php), at cc11/bank-cc11.imscc."""
    return cc_assemble(cc_parts(bank, ctx, "cc11"), bank.assessments, ctx, "cc11")


def cc_losses(bank: Bank, fmt: str) -> list[Diagnostic]:
    """The warnings of the parts cc_parts makes of a bank's quizzes, without making them."""
    version = VERSIONS[fmt]
    return [d for quiz in bank.quizzes for d in part_warnings(quiz, version)]


def cc13_losses(bank: Bank, ctx: WriteContext) -> list[Diagnostic]:
    return cc_losses(bank, "cc13")


def cc11_losses(bank: Bank, ctx: WriteContext) -> list[Diagnostic]:
    return cc_losses(bank, "cc11")


def cc13_parts(bank: Bank, ctx: WriteContext) -> list[CcPart]:
    return cc_parts(bank, ctx, "cc13")


def cc13_assemble(parts: Iterable[CcPart], assessments: Sequence[Assessment], ctx: WriteContext) -> Output:
    return cc_assemble(parts, assessments, ctx, "cc13")


def cc11_parts(bank: Bank, ctx: WriteContext) -> list[CcPart]:
    return cc_parts(bank, ctx, "cc11")


def cc11_assemble(parts: Iterable[CcPart], assessments: Sequence[Assessment], ctx: WriteContext) -> Output:
    return cc_assemble(parts, assessments, ctx, "cc11")
