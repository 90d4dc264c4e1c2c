"""QTI 1.2 in Canvas's own flavour, as lxml trees (pure: no disk, no clock; package.py zips them).

Package layout (paths relative to the zip root), the layout of Canvas's own "QTI export"
(canvas-lms lib/cc/qti/qti_generator.rb ``generate_quiz(quiz, false)``) and of text2qti::

    imsmanifest.xml                  IMS CP 1.1 manifest (manifest_tree)
    <quiz-id>/<quiz-id>.xml          questestinterop/assessment, every question an <item>
    <quiz-id>/assessment_meta.xml    Canvas's quiz settings (title, description, shuffle)

Every field is written the way Canvas's exporter writes it (lib/cc/qti/qti_items.rb
``add_question`` and its helpers), because that is what Canvas's importer (the Python
converter instructure/QTIMigrationTool lib/imsqtiv1.py, then the Ruby converters in
gems/plugins/qti_exporter/lib/qti/) is known to read back whole. docs/canvas-qti12.md maps
each field to the code that reads it. In short:

* ``itemmetadata/qtimetadata``: ``question_type`` (decides the Canvas question type, also a
  true/false in any language) and ``points_possible``;
* the stem, every choice, every feedback: ``mattext texttype="text/html"`` holding an HTML
  ``<div dir=".." lang="..">`` (Canvas's sanitizer keeps ``dir`` and ``lang``); only the
  right-hand items of a matching question are ``text/plain`` (Canvas reads them as text);
* the explanation: ``itemfeedback ident="general_fb"`` shown by an ``<other/>`` condition
  (Canvas's "general answer comments"); a choice's feedback: ``itemfeedback ident="<choice>_fb"``
  shown when that choice is picked;
* scores on Canvas's 0-100 scale (``decvar SCORE``), the points in ``points_possible``.

The documents carry no namespace and no DOCTYPE: they are valid against the official QTI
1.2.1 DTD (schemas/qti12/ims_qtiasiv1p2p1.dtd), which declares no ``xmlns``; Canvas's
converter reads elements by local name, with or without a namespace.

Every text goes through ``material`` (HTML through ``html_text``): the one place where a
text becomes QTI 1.2, which rich text will extend.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from lxml import etree

from ..errors import Diagnostic, SchemaValidationError, Severity
from ..model import Bank, Question, QuestionType, Quiz, SourceLoc, direction
from ..package import validated_zip
from . import Output, WriteContext
from .qti21 import num, short_title

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
CP_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
IMSMD_NS = "http://www.imsglobal.org/xsd/imsmd_v1p2"
CANVAS_NS = "http://canvas.instructure.com/xsd/cccv1p0"
"""Namespace of Canvas's quiz settings file (lib/cc/cc_helper.rb CANVAS_NAMESPACE)."""

MANIFEST_PATH = "imsmanifest.xml"
META_FILE = "assessment_meta.xml"
"""Canvas's name for a quiz's settings file (lib/cc/cc_helper.rb ASSESSMENT_META)."""
ASSESSMENT_TYPE = "imsqti_xmlv1p2"
"""Resource type of a Canvas-flavour assessment (cc_helper.rb QTI_ASSESSMENT_TYPE)."""
META_TYPE = "associatedcontent/imscc_xmlv1p1/learning-application-resource"
"""Resource type Canvas looks for to find the settings file (quiz_metadata_converter.rb)."""

QUESTION_TYPES = {
    QuestionType.SINGLE: "multiple_choice_question",
    QuestionType.MULTIPLE: "multiple_answers_question",
    QuestionType.TRUE_FALSE: "true_false_question",
    QuestionType.SHORT_ANSWER: "short_answer_question",
    QuestionType.NUMERICAL: "numerical_question",
    QuestionType.MATCHING: "matching_question",
    QuestionType.ESSAY: "essay_question",
}
"""Our type -> Canvas's ``question_type`` (AssessmentQuestion::ALL_QUESTION_TYPES)."""

RESPONSE = "response1"
"""The response identifier Canvas's exporter gives every single-response question."""
GENERAL_FB = "general_fb"
"""Canvas keeps an itemfeedback whose id contains ``general_`` as the general comments."""
TRUE_FALSE = (("true", "True"), ("false", "False"))
"""(ident, text) of a true/false question's choices. Canvas recognises a true_false_question
only when its two answers' texts contain "true" and "false", and then sets them to "True" and
"False" whatever they said (choice_interaction.rb process_true_false_question), so its own
exporter, and this one, write the English words; the idents are also what Moodle's CC importer
requires (entity11.quiz.class.php)."""


def _el(parent: etree._Element | None, tag: str, text: str | None = None, **attrib: str) -> etree._Element:
    """A child of ``parent`` in the parent's namespace (a QTI document is in one namespace or
    none: the CC profile's or none), unless ``tag`` is qualified; a root when ``parent`` is None."""
    if parent is None:
        el = etree.Element(tag, attrib)
    else:
        ptag = parent.tag
        if ptag[0] == "{" and tag[0] != "{":
            tag = ptag[: ptag.index("}") + 1] + tag
        el = etree.SubElement(parent, tag, attrib)
    if text is not None:
        el.text = text
    return el


# --------------------------------------------------------------------------- text


def html_text(text: str, lang: str) -> str:
    """A text as the HTML a text/html mattext holds: a div carrying language and direction.

    Built with lxml and serialised once, so every ``<`` and ``&`` of the text is escaped here
    and the mattext's own escaping (lxml again) makes the XML; line breaks become ``<br/>``.
    Canvas's sanitizer (gems/canvas_sanitize, attributes ``:all``) keeps ``dir`` and ``lang``.
    """
    div = etree.Element("div", dir=direction(lang), lang=lang)
    lines = text.split("\n")
    div.text = lines[0]
    for line in lines[1:]:
        etree.SubElement(div, "br").tail = line
    return etree.tostring(div, encoding="unicode")


def material(parent: etree._Element, text: str, lang: str, plain: bool = False) -> etree._Element:
    """``<material><mattext>`` for one text: the one place a text of ours enters QTI 1.2.

    ``plain`` writes text/plain, for the texts Canvas reads as plain text (matching's
    right-hand items: associate_interaction.rb get_canvas_matches takes the choice's text).
    """
    mat = _el(parent, "material")
    mattext = _el(mat, "mattext", texttype="text/plain" if plain else "text/html")
    mattext.set(XML_LANG, lang)
    mattext.text = text if plain else html_text(text, lang)
    return mat


def number(value: float | Decimal) -> str:
    """A number as written in response processing: exact decimal notation, no exponent."""
    if isinstance(value, Decimal):
        text = format(value.normalize(), "f")
        return "0" if text in ("-0", "") else text
    return num(value)


def decimal(value: float) -> Decimal:
    """The shortest decimal that reads back as ``value``, for exact bound arithmetic (as
    Canvas's exporter does with BigDecimal, qti_items.rb numerical_resprocessing)."""
    return Decimal(repr(float(value)))


# --------------------------------------------------------------------------- building blocks


def meta_field(parent: etree._Element, label: str, entry: str) -> None:
    field = _el(parent, "qtimetadatafield")
    _el(field, "fieldlabel", label)
    _el(field, "fieldentry", entry)


def choice_ids(question: Question) -> list[str]:
    return [f"C{i}" for i in range(1, len(question.choices) + 1)]


def outcomes(resprocessing: etree._Element) -> None:
    """SCORE on Canvas's 0-100 scale, as every item of Canvas's exporter declares it."""
    out = _el(resprocessing, "outcomes")
    _el(out, "decvar", maxvalue="100", minvalue="0", varname="SCORE", vartype="Decimal")


def condition(resprocessing: etree._Element, continue_: bool) -> tuple[etree._Element, etree._Element]:
    """A respcondition and its conditionvar."""
    cond = _el(resprocessing, "respcondition", **{"continue": "Yes" if continue_ else "No"})
    return cond, _el(cond, "conditionvar")


def show(cond: etree._Element, feedback_id: str) -> None:
    _el(cond, "displayfeedback", feedbacktype="Response", linkrefid=feedback_id)


def set_score(cond: etree._Element, value: str, action: str = "Set") -> None:
    """setvar before any displayfeedback, as the DTD's respcondition content model orders them."""
    setvar = _el(cond, "setvar", value, action=action, varname="SCORE")
    feedback = cond.find("{*}displayfeedback")
    if feedback is not None:
        feedback.addprevious(setvar)


def varequal(parent: etree._Element, respident: str, value: str, case: bool | None = None) -> None:
    el = _el(parent, "varequal", value, respident=respident)
    if case is not None:
        el.set("case", "Yes" if case else "No")


def general_feedback(resprocessing: etree._Element, question: Question) -> None:
    """The explanation, shown whatever the answer: first, and continuing (qti_items.rb resprocessing)."""
    if question.explanation:
        cond, var = condition(resprocessing, True)
        _el(var, "other")
        show(cond, GENERAL_FB)


def itemfeedback(item: etree._Element, ident: str, text: str, lang: str) -> None:
    fb = _el(item, "itemfeedback", ident=ident)
    material(_el(fb, "flow_mat"), text, lang)


def render_fib(response: etree._Element, fibtype: str | None = None) -> None:
    """The single text box of a short-answer, numerical or essay question (qti_items.rb
    short_answer_response_str / calculated_response_str)."""
    fib = _el(response, "render_fib")
    if fibtype:
        fib.set("fibtype", fibtype)
    label = _el(fib, "response_label", ident="answer1")
    if not fibtype:
        label.set("rshuffle", "No")


# --------------------------------------------------------------------------- items


@dataclass(frozen=True)
class _Item:
    quiz: Quiz
    question: Question
    lang: str
    item: etree._Element
    presentation: etree._Element
    resprocessing: etree._Element


def _choices(ctx: _Item, cardinality: str, entries: list[tuple[str, str, str | None]]) -> None:
    """response_lid/render_choice with (ident, text, lang or None) entries."""
    lid = _el(ctx.presentation, "response_lid", ident=RESPONSE, rcardinality=cardinality)
    shuffle = ctx.quiz.shuffle and ctx.question.type is not QuestionType.TRUE_FALSE
    render = _el(lid, "render_choice", shuffle="Yes" if shuffle else "No")
    for ident, text, lang in entries:
        material(_el(render, "response_label", ident=ident), text, lang or ctx.lang)


def _choice_feedback(ctx: _Item) -> None:
    """One continuing condition per choice that has feedback (qti_items.rb
    answer_feedback_respconditions), before the scoring condition: Canvas's converter sets each
    condition's answer weight in order, so the scoring condition must come last."""
    for ident, choice in zip(choice_ids(ctx.question), ctx.question.choices, strict=True):
        if choice.feedback:
            cond, var = condition(ctx.resprocessing, True)
            varequal(var, RESPONSE, ident)
            show(cond, f"{ident}_fb")


def _write_single(ctx: _Item) -> None:
    q = ctx.question
    ids = choice_ids(q)
    _choices(ctx, "Single", [(i, c.text, c.lang) for i, c in zip(ids, q.choices, strict=True)])
    _choice_feedback(ctx)
    cond, var = condition(ctx.resprocessing, False)
    varequal(var, RESPONSE, ids[q.correct_indexes[0]])
    set_score(cond, "100")


def _write_multiple(ctx: _Item) -> None:
    q = ctx.question
    ids = choice_ids(q)
    _choices(ctx, "Multiple", [(i, c.text, c.lang) for i, c in zip(ids, q.choices, strict=True)])
    _choice_feedback(ctx)
    # Canvas's one condition (qti_items.rb multiple_answers_resprocessing): every right choice
    # and no wrong one. Canvas grades the question with its own partial-credit rule.
    cond, var = condition(ctx.resprocessing, False)
    and_ = _el(var, "and")
    for ident, choice in zip(ids, q.choices, strict=True):
        varequal(and_ if choice.correct else _el(and_, "not"), RESPONSE, ident)
    set_score(cond, "100")


def _write_true_false(ctx: _Item) -> None:
    q = ctx.question
    _choices(ctx, "Single", [(ident, text, "en") for ident, text in TRUE_FALSE])
    cond, var = condition(ctx.resprocessing, False)
    varequal(var, RESPONSE, TRUE_FALSE[0][0] if q.truth else TRUE_FALSE[1][0])
    set_score(cond, "100")


def _write_short_answer(ctx: _Item) -> None:
    q = ctx.question
    render_fib(_el(ctx.presentation, "response_str", ident=RESPONSE, rcardinality="Single"))
    # Every accepted answer in one condition, as Canvas's exporter writes it (qti_items.rb
    # short_answer_resprocessing): Canvas (extended_text_interaction.rb) and Moodle's CC
    # importer (get_answers_fib) read each varequal of it as one accepted answer.
    cond, var = condition(ctx.resprocessing, False)
    for answer in q.answers:
        varequal(var, RESPONSE, answer, case=q.case_sensitive)
    set_score(cond, "100")


def _write_numerical(ctx: _Item) -> None:
    q = ctx.question
    key = q.numeric
    assert key is not None
    render_fib(_el(ctx.presentation, "response_str", ident=RESPONSE, rcardinality="Single"), "Decimal")
    cond, var = condition(ctx.resprocessing, False)
    if key.low is not None and key.high is not None:
        # A range: Canvas's range_answer (numeric_interaction.rb reads vargte/varlte under an
        # and, which the converter makes of two conditions side by side).
        _el(var, "vargte", number(decimal(key.low)), respident=RESPONSE)
        _el(var, "varlte", number(decimal(key.high)), respident=RESPONSE)
    else:
        # An exact answer with its margin: or(equal, and(>= answer - margin, <= answer + margin)),
        # Canvas's exact_answer with margin (qti_items.rb numerical_resprocessing).
        assert key.answer is not None
        or_ = _el(var, "or")
        varequal(or_, RESPONSE, number(decimal(key.answer)))
        if key.tolerance:
            and_ = _el(or_, "and")
            answer, margin = decimal(key.answer), decimal(key.tolerance)
            _el(and_, "vargte", number(answer - margin), respident=RESPONSE)
            _el(and_, "varlte", number(answer + margin), respident=RESPONSE)
    set_score(cond, "100")


def matching_rights(question: Question) -> list[str]:
    """The right-hand items: each pair's right once, in order, then the distractors."""
    rights: list[str] = []
    for text in [p.right for p in question.pairs] + list(question.distractors):
        if text not in rights:
            rights.append(text)
    return rights


def _write_matching(ctx: _Item) -> None:
    q = ctx.question
    rights = matching_rights(q)
    right_id = {text: f"R{i}" for i, text in enumerate(rights, 1)}
    shuffle = "Yes" if ctx.quiz.shuffle else "No"
    # One response_lid per left item, each listing every right-hand item (qti_items.rb
    # matching_response_lid); Canvas takes the first one's list as the matches, distractors
    # included (associate_interaction.rb get_canvas_matches).
    for i, pair in enumerate(q.pairs, 1):
        lid = _el(ctx.presentation, "response_lid", ident=f"response_L{i}")
        material(lid, pair.left, ctx.lang)
        render = _el(lid, "render_choice", shuffle=shuffle)
        for text in rights:
            material(_el(render, "response_label", ident=right_id[text]), text, ctx.lang, plain=True)
    # Each right pair adds its share; continue="Yes" so a standard QTI 1.2 player scores every
    # pair (Canvas's exporter leaves the default, "No"; Canvas itself reads only the structure).
    share = f"{100 / len(q.pairs):.2f}"
    for i, pair in enumerate(q.pairs, 1):
        cond, var = condition(ctx.resprocessing, True)
        varequal(var, f"response_L{i}", right_id[pair.right])
        set_score(cond, share, action="Add")


def _write_essay(ctx: _Item) -> None:
    render_fib(_el(ctx.presentation, "response_str", ident=RESPONSE, rcardinality="Single"))
    # No answer: Canvas makes a text question without answers an essay
    # (extended_text_interaction.rb); qti_items.rb essay_resprocessing writes this condition.
    _el(condition(ctx.resprocessing, False)[1], "other")


_WRITERS = {
    QuestionType.SINGLE: _write_single,
    QuestionType.MULTIPLE: _write_multiple,
    QuestionType.TRUE_FALSE: _write_true_false,
    QuestionType.SHORT_ANSWER: _write_short_answer,
    QuestionType.NUMERICAL: _write_numerical,
    QuestionType.MATCHING: _write_matching,
    QuestionType.ESSAY: _write_essay,
}


def item_tree(quiz: Quiz, question: Question, parent: etree._Element | None = None) -> etree._Element:
    """One Canvas-flavour ``<item>`` for a question of any type (appended to ``parent`` if given)."""
    lang = quiz.lang_of(question)
    item = _el(parent, "item", ident=question.id, title=short_title(question))
    item.set(XML_LANG, lang)
    md = _el(_el(item, "itemmetadata"), "qtimetadata")
    meta_field(md, "question_type", QUESTION_TYPES[question.type])
    meta_field(md, "points_possible", num(question.points))
    presentation = _el(item, "presentation")
    material(presentation, question.stem, lang)
    resprocessing = _el(item, "resprocessing")
    outcomes(resprocessing)
    general_feedback(resprocessing, question)
    _WRITERS[question.type](_Item(quiz, question, lang, item, presentation, resprocessing))
    if question.explanation:
        itemfeedback(item, GENERAL_FB, question.explanation, lang)
    for ident, choice in zip(choice_ids(question), question.choices, strict=True):
        if choice.feedback:
            itemfeedback(item, f"{ident}_fb", choice.feedback, lang)
    return item


def assessment_tree(quiz: Quiz) -> etree._Element:
    """``questestinterop/assessment/section`` with every question in source order."""
    root = _el(None, "questestinterop")
    assessment = _el(root, "assessment", ident=quiz.id, title=quiz.title)
    assessment.set(XML_LANG, quiz.lang)
    section = _el(assessment, "section", ident="root_section")
    for question in quiz.questions:
        item_tree(quiz, question, section)
    return root


def meta_tree(quiz: Quiz) -> etree._Element:
    """Canvas's quiz settings file: the fields Canvas's importer reads that QTI cannot carry
    (lib/cc/importer/canvas/quiz_metadata_converter.rb get_quiz_meta), and no others."""
    # No xsi:schemaLocation: Canvas's cccv1p0.xsd is not bundled, so nothing could check it.
    root = etree.Element(f"{{{CANVAS_NS}}}quiz", nsmap={None: CANVAS_NS})
    root.set("identifier", quiz.id)
    _el(root, f"{{{CANVAS_NS}}}title", quiz.title)
    if quiz.description:
        _el(root, f"{{{CANVAS_NS}}}description", html_text(quiz.description, quiz.lang))
    _el(root, f"{{{CANVAS_NS}}}shuffle_answers", "true" if quiz.shuffle else "false")
    _el(root, f"{{{CANVAS_NS}}}points_possible", num(sum(q.points for q in quiz.questions)))
    return root


META_FIELDS = ("title", "description", "shuffle_answers", "points_possible")
"""The children meta_tree may write, in this order (what lmsexport.qti12validate checks)."""


def assessment_path(quiz: Quiz) -> str:
    return f"{quiz.id}/{quiz.id}.xml"


def meta_path(quiz: Quiz) -> str:
    return f"{quiz.id}/{META_FILE}"


def manifest_tree(quiz: Quiz) -> etree._Element:
    """The package's IMS CP 1.1 manifest: the assessment and, as its dependency, the settings
    file, typed as Canvas's exporter types them (qti_generator.rb generate_quiz)."""
    manifest = etree.Element(f"{{{CP_NS}}}manifest", nsmap={None: CP_NS, "imsmd": IMSMD_NS})
    manifest.set("identifier", f"MANIFEST-{quiz.id}")
    metadata = _el(manifest, f"{{{CP_NS}}}metadata")
    _el(metadata, f"{{{CP_NS}}}schema", "IMS Content")
    _el(metadata, f"{{{CP_NS}}}schemaversion", "1.1.3")
    general = _el(_el(metadata, f"{{{IMSMD_NS}}}lom"), f"{{{IMSMD_NS}}}general")
    _el(_el(general, f"{{{IMSMD_NS}}}title"), f"{{{IMSMD_NS}}}langstring", quiz.title).set(
        XML_LANG, quiz.lang
    )
    _el(general, f"{{{IMSMD_NS}}}language", quiz.lang)
    _el(manifest, f"{{{CP_NS}}}organizations")
    resources = _el(manifest, f"{{{CP_NS}}}resources")
    res = _el(resources, f"{{{CP_NS}}}resource", identifier=f"RES-{quiz.id}", type=ASSESSMENT_TYPE)
    _el(res, f"{{{CP_NS}}}file", href=assessment_path(quiz))
    _el(res, f"{{{CP_NS}}}dependency", identifierref=f"RES-{quiz.id}-meta")
    meta = _el(
        resources,
        f"{{{CP_NS}}}resource",
        identifier=f"RES-{quiz.id}-meta",
        type=META_TYPE,
        href=meta_path(quiz),
    )
    _el(meta, f"{{{CP_NS}}}file", href=meta_path(quiz))
    return manifest


def quiz_documents(quiz: Quiz) -> list[tuple[str, str, etree._Element]]:
    """(path, kind, tree) of every file of a quiz's package; kinds name what validates them."""
    return [
        (MANIFEST_PATH, "cp-manifest", manifest_tree(quiz)),
        (assessment_path(quiz), "qti12", assessment_tree(quiz)),
        (meta_path(quiz), "canvas-meta", meta_tree(quiz)),
    ]


def package_path(quiz: Quiz) -> str:
    return f"qti12/{quiz.id}.zip"


# --------------------------------------------------------------------------- what Canvas drops


def lossy_warnings(quiz: Quiz) -> list[Diagnostic]:
    """What Canvas's import of the package cannot keep, per question."""
    out = []
    for q in quiz.questions:
        loc = q.loc or SourceLoc(quiz.id)
        if q.type is QuestionType.SHORT_ANSWER and q.case_sensitive:
            out.append(
                _warn(
                    loc,
                    f"question {q.id!r}: Canvas compares short answers without regard to case; "
                    'case_sensitive is written (varequal case="Yes") but not kept',
                    "qti12.canvas-case-sensitive",
                )
            )
    return out


def _warn(loc: SourceLoc, message: str, rule: str) -> Diagnostic:
    return Diagnostic(loc, message, Severity.WARNING, rule)


def build_qti12(bank: Bank, ctx: WriteContext) -> Output:
    """The qti12 writer: one Canvas-flavour QTI 1.2 package per quiz at qti12/<quiz-id>.zip.

    Every document is validated (QTI 1.2.1 DTD, IMS CP 1.1 XSD, Canvas's settings file) before
    anything is zipped; all invalid documents of the bank are reported together.
    """
    output = Output()
    problems: list[Diagnostic] = []
    for quiz in bank.quizzes:
        data = validated_zip(quiz_documents(quiz), package_path(quiz), ctx.timestamp, problems)
        output.warnings += lossy_warnings(quiz)
        if data is not None:
            output.files[package_path(quiz)] = data
    if problems:
        raise SchemaValidationError(problems)
    return output
