"""QTI 1.2 in Canvas's own flavour, as lxml trees (pure: no disk, no clock; package.py zips them).

Package layout (paths relative to the zip root), the layout of Canvas's own "QTI export"
(canvas-lms lib/cc/qti/qti_generator.rb ``generate_quiz(quiz, false)``) and of text2qti::

    imsmanifest.xml                  IMS CP 1.1 manifest (manifest_tree)
    <quiz-id>/<quiz-id>.xml          questestinterop/assessment, every question an <item>
    <quiz-id>/assessment_meta.xml    Canvas's quiz settings (title, description, shuffle)
    <quiz-id>/media/<file>           the images its texts show (webcontent resources)

An assessment of the bank is a package of its own laid out the same way, its random draws as
Canvas question groups (exam_tree).

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
  (Canvas's "general answer comments"); the feedback on a right response ``correct_fb``, shown
  by each condition giving full credit, and on a wrong one ``general_incorrect_fb``, shown when
  none did (its correct and incorrect comments); an answer's feedback (a choice's, a true/false
  answer's, a short answer's, a numerical key's): ``itemfeedback ident="<answer>_fb"`` shown
  when that answer is given;
* scores on Canvas's 0-100 scale (``decvar SCORE``), the points in ``points_possible``; the
  question's name as the item's title;
* a cloze as a fill_in_multiple_blanks_question or (every blank a choice) a
  multiple_dropdowns_question, an ordering as the matching question Canvas makes of one, a
  description as a text_only_question (section "cloze, ordering, description" below);
* a calculated question as Canvas's calculated_question (``itemproc_extension/calculated``:
  the formula in Canvas's syntax, every variant a ``var_set`` with lmsexport's answer, ``[name]``
  in the text), a calculated choice as a question group of its variants (section "parametric
  questions");
* only what Canvas keeps: an answer is right (100) or wrong, since Canvas makes any positive
  score 100 and every short or numerical answer fully right, so an answer worth less than full
  credit is not written as right; what is not carried is a warning per question and element
  (lossy_warnings: ``qti12.<element>-not-carried``).

The documents carry no namespace and no DOCTYPE: they are valid against the official QTI
1.2.1 DTD (schemas/qti12/ims_qtiasiv1p2p1.dtd), which declares no ``xmlns``; Canvas's
converter reads elements by local name, with or without a namespace.

Every text goes through ``material`` (HTML through ``html_text``, rich text through the shared
renderer, lmsexport.writers.richtext): the one place where a text becomes QTI 1.2.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import assert_never

from lxml import etree

from .. import formula as fm
from ..errors import Diagnostic, SchemaValidationError, Severity
from ..mathml import to_mathml
from ..model import (
    Answer,
    Assessment,
    Bank,
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
    Layout,
    Matching,
    Math,
    Media,
    MultipleChoice,
    NumberBlank,
    Numbering,
    Numerical,
    NumericKey,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    Pair,
    Parameters,
    Question,
    QuestionType,
    Quiz,
    RangeVariable,
    Rich,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Text,
    TextBlank,
    ToleranceKind,
    TrueFalse,
    direction,
    is_full,
    map_inlines,
    media_of,
    plain_text,
)
from ..package import validated_zip
from ..variants import TARGET_MAX_VARIANTS, canvas_tolerance, instantiate, substitute, substitute_text
from ..variants import inline as inline_derived
from ..variants import shown_values as variants_shown
from . import Output, WriteContext
from .qti21 import TITLE_MAX, num
from .richtext import Flavour, Renderer, append_text

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
    QuestionType.ORDERING: "matching_question",
    QuestionType.DESCRIPTION: "text_only_question",
}
"""Our type -> Canvas's ``question_type`` (AssessmentQuestion::ALL_QUESTION_TYPES); a cloze's
depends on its blanks (canvas_type), an ordering is written as a matching question
(ordering_as_matching)."""
FIMB = "fill_in_multiple_blanks_question"
DROPDOWNS = "multiple_dropdowns_question"

RESPONSE = "response1"
"""The response identifier Canvas's exporter gives every single-response question."""
GENERAL_FB = "general_fb"
"""Canvas keeps an itemfeedback whose id contains ``general_`` as the general comments."""
CORRECT_FB = "correct_fb"
"""The feedback on a right response: Canvas's exporter's ident (qti_items.rb ``correct_feedback_ref``);
Canvas's importer keeps an itemfeedback whose id contains ``correct`` as the correct comments
(assessment_item_converter.rb ``get_feedback``)."""
INCORRECT_FB = "general_incorrect_fb"
"""The feedback on a wrong response (qti_items.rb ``resprocessing``); ``get_feedback`` keeps an id
containing ``incorrect`` as the incorrect comments (it tests ``incorrect`` before ``correct``)."""
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

MEDIA_DIR = "media"
"""Folder, beside the QTI document, that holds the images its texts show (``<quiz>/media/``)."""


def _math(formula: Math) -> etree._Element:
    """MathML with the TeX as its annotation: Canvas's sanitizer keeps MathML (gems/canvas_sanitize
    allows every presentation element, ``semantics`` and ``annotation``) and its pages load
    MathJax when a text holds a ``<math>`` (packages/mathml); docs/research/rich-text.md, 2."""
    return to_mathml(formula.tex, formula.display)


def flavour(image_prefix: str) -> Flavour:
    """The shared renderer's settings for QTI 1.2 HTML: MathML, ``dir`` and ``start`` allowed (it
    is HTML), code left to right, images at ``image_prefix + <content-addressed name>``, and text
    that spells a MathJax delimiter protected (Flavour.protect_tex): Canvas typesets ``\\(..\\)``
    in text when its new_math_equation_handling is on (packages/mathml ``isMathInElement``) and
    Moodle's MathJax filter always does, so a literal ``\\(`` in prose would become a formula."""
    return Flavour(math=_math, image_src=lambda image: image_prefix + image.media.filename, protect_tex=True)


FLAVOUR = flavour(f"{MEDIA_DIR}/")
"""The Canvas-flavour package's: images relative to the QTI document, ``media/<file>``, which
Canvas's importer maps to the imported file (qti_exporter html_helper.rb ``sanitize_html!``
looks each relative ``src`` up among the package's files, by path suffix)."""


_PLAIN_LANG = re.compile(r"[A-Za-z0-9-]+\Z")
"""A language tag lxml writes in an attribute as it is."""
_NOT_AS_IS = re.compile("[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters lxml does not write as they are in text (a carriage return as ``&#13;``) or refuses:
a text holding one takes lxml's own path."""


def html_text(text: Text, lang: str, style: Flavour = FLAVOUR, inline: bool = False) -> str:
    """A text as the HTML a text/html mattext holds: a div carrying language and direction.

    Built with lxml and serialised once, so every ``<`` and ``&`` of the text is escaped here
    and the mattext's own escaping (lxml again) makes the XML. A plain text keeps its line
    breaks as ``<br/>``; a rich one goes through the shared renderer (lmsexport.writers.richtext):
    blocks, or with ``inline`` a one-paragraph text's inlines only (a choice, a matching item).
    Canvas's sanitizer (gems/canvas_sanitize, attributes ``:all``) keeps ``dir`` and ``lang``.
    """
    if not isinstance(text, Rich) and _PLAIN_LANG.match(lang) and not _NOT_AS_IS.search(text):
        # What lxml gives below, as strings (~1 us against ~5: this runs for every text of every
        # QTI 1.2 and cartridge item); tests/test_properties.py checks the two agree on any text.
        escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return f'<div dir="{direction(lang)}" lang="{lang}">{escaped.replace(chr(10), "<br/>")}</div>'
    div = etree.Element("div", dir=direction(lang), lang=lang)
    if isinstance(text, Rich):
        renderer = Renderer(style)
        if inline:
            renderer.inline_or_blocks(text, div)
        else:
            renderer.blocks(text, div)
        # HTML serialisation: an empty <td> or <mi> stays <td></td>, as HTML parsers need.
        return etree.tostring(div, encoding="unicode", method="html")
    lines = text.split("\n")
    div.text = lines[0]
    for line in lines[1:]:
        etree.SubElement(div, "br").tail = line
    return etree.tostring(div, encoding="unicode")


def material(
    parent: etree._Element,
    text: Text,
    lang: str,
    plain: bool = False,
    style: Flavour = FLAVOUR,
    inline: bool = False,
) -> etree._Element:
    """``<material><mattext>`` for one text: the one place a text of ours enters QTI 1.2.

    ``plain`` writes text/plain, for the texts Canvas reads as plain text (matching's
    right-hand items: associate_interaction.rb get_canvas_matches takes the choice's text).
    """
    mat = _el(parent, "material")
    mattext = _el(mat, "mattext", texttype="text/plain" if plain else "text/html")
    mattext.set(XML_LANG, lang)
    if plain:
        assert isinstance(text, str)
        mattext.text = text
    else:
        mattext.text = html_text(text, lang, style, inline)
    return mat


def short_title(question: Question) -> str:
    """The title derived from the stem: the first line of its words (a rich stem's without
    markup, its formulas as TeX), whitespace collapsed, cut at qti21.TITLE_MAX characters; for a
    plain stem the title qti21 gives the same question."""
    first = " ".join(plain_text(question.stem).split("\n", 1)[0].split())
    if not first:
        return question.id
    return first if len(first) <= TITLE_MAX else first[: TITLE_MAX - 1].rstrip() + "…"


def item_title(question: Question) -> str:
    """The item title: the question's name, else the one derived from the stem (short_title).
    Canvas names the question after it (assessment_item_converter.rb ``create_instructure_question``:
    ``question_name`` is the item's title, which migrate.py copies to the QTI 2 item), and so
    does Moodle's cartridge restore (entity11.quiz.class.php ``get_questions``: ``@title``)."""
    return question.name if question.name is not None else short_title(question)


def question_texts(question: Question) -> Iterator[Text]:
    """Every text of a question this format writes (and so every image it shows), in reading order."""
    yield question.stem
    if isinstance(question.body, Description):
        return  # Canvas's text_only_question has nothing but its text (item_tree)
    if isinstance(question.body, Ordering):
        question = ordering_as_matching(question)
    if question.explanation is not None:
        yield question.explanation
    correct, incorrect = outcome_feedback(question)
    yield from (t for t in (correct, incorrect) if t is not None)
    match question.body:
        case SingleChoice(choices=choices) | MultipleChoice(choices=choices):
            for choice in choices:
                yield choice.text
                if choice.feedback is not None:
                    yield choice.feedback
        case Matching(pairs=pairs):
            for pair in pairs:
                yield pair.left
        case TrueFalse(feedback_true=yes, feedback_false=no):
            yield from (t for t in (yes, no) if t is not None)
        case ShortAnswer():
            yield from (a.feedback for _, a in accepted_answers(question.body) if a.feedback is not None)
        case Numerical():
            yield from (k.feedback for _, k in full_keys(question.body) if k.feedback is not None)
        case Cloze():
            yield from (e.feedback for b in blank_entries(question.body) for e in b if e.feedback is not None)
        case Essay() | Ordering() | Description() | Calculated():
            pass  # no texts this format writes besides the stem and explanation
        case CalculatedChoice(choices=choices):
            yield from (c.feedback for c in choices if c.feedback is not None)
        case _:
            assert_never(question.body)


def outcome_feedback(question: Question) -> tuple[Text | None, Text | None]:
    """The feedback on a right and on a wrong response that is written (``correct_fb``,
    ``general_incorrect_fb``): an essay's none, since no response of it is scored right or wrong
    (a person grades it)."""
    if isinstance(question.body, Essay | Description):
        return None, None
    return question.feedback.correct, question.feedback.incorrect


def accepted_answers(body: ShortAnswer) -> list[tuple[int, Answer]]:
    """(1-based index, answer) of the short answers written, the accepted ones: every full-credit
    answer matched literally. Canvas makes every answer it finds fully right
    (extended_text_interaction.rb ``process_response_conditions`` gives each ``stringMatch`` weight
    100; short_answer_question.rb counts any match right), so a partly right one is left out; it
    has no wildcard either, so a wildcard answer is left out too, unless every full-credit answer
    is one (then they are written as text, so the question keeps an answer)."""
    full = [(i, a) for i, a in enumerate(body.answers, 1) if is_full(a.credit)]
    literal = [(i, a) for i, a in full if not a.wildcard]
    return literal or full


def full_keys(body: Numerical) -> list[tuple[int, NumericKey]]:
    """(1-based index, key) of the numerical keys written: the full-credit ones (Canvas makes every
    answer of a numerical_question fully right: numeric_interaction.rb ``get_canvas_answers``)."""
    return [(i, k) for i, k in enumerate(body.keys, 1) if is_full(k.credit)]


def media_files(texts: Iterable[Text | None]) -> dict[str, Media]:
    """The image files some texts show, by content-addressed file name, in first-use order."""
    found: dict[str, Media] = {}
    for text in texts:
        for media in media_of(text):
            found.setdefault(media.filename, media)
    return found


def quiz_media(quiz: Quiz) -> dict[str, Media]:
    return media_files([quiz.description, *(t for q in quiz.questions for t in question_texts(q))])


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


def choice_ids(choices: tuple[Choice, ...]) -> list[str]:
    return [f"C{i}" for i in range(1, len(choices) + 1)]


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


def itemfeedback(
    item: etree._Element, ident: str, text: Text, lang: str, style: Flavour = FLAVOUR, inline: bool = False
) -> None:
    fb = _el(item, "itemfeedback", ident=ident)
    material(_el(fb, "flow_mat"), text, lang, style=style, inline=inline)


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
    style: Flavour = field(default=FLAVOUR)
    """How rich text is written (where images are)."""
    rights: tuple[str, ...] | None = None
    """A matching question's right-hand items in the order listed, when not matching_rights's
    (an ordering's positions: "1", "2", ... in order, ordering_rights)."""
    shown: frozenset[str] = frozenset()
    """A calculated question's names its texts show (shown_names of the question as written in
    the bank, before its placeholders became Canvas's ``[name]``)."""


def _choices(ctx: _Item, cardinality: str, entries: list[tuple[str, Text, str | None]]) -> None:
    """response_lid/render_choice with (ident, text, lang or None) entries."""
    lid = _el(ctx.presentation, "response_lid", ident=RESPONSE, rcardinality=cardinality)
    shuffle = ctx.quiz.shuffle and not isinstance(ctx.question.body, TrueFalse)
    render = _el(lid, "render_choice", shuffle="Yes" if shuffle else "No")
    for ident, text, lang in entries:
        material(
            _el(render, "response_label", ident=ident), text, lang or ctx.lang, style=ctx.style, inline=True
        )


def _answer_feedback(ctx: _Item, entries: Iterable[tuple[str, str, bool | None, bool]]) -> None:
    """One continuing condition per answer that has feedback, before the scoring condition
    (qti_items.rb ``answer_feedback_respconditions``): ``(value, feedback ident, case, has
    feedback)`` entries, the value a choice's ident or a short answer's text. Canvas's converter
    sets each condition's answer weight in order (choice_interaction.rb
    ``process_response_conditions``), so the scoring condition must come last; it takes each
    condition's feedback as that answer's comments (``get_feedback_id``, ``attach_feedback_values``)."""
    for value, ident, case, has in entries:
        if has:
            cond, var = condition(ctx.resprocessing, True)
            varequal(var, RESPONSE, value, case=case)
            show(cond, ident)


def _choice_feedback(ctx: _Item, choices: tuple[Choice, ...]) -> None:
    """A condition showing ``<choice>_fb`` for each choice that has feedback (_answer_feedback)."""
    ids = choice_ids(choices)
    _answer_feedback(ctx, ((i, f"{i}_fb", None, bool(c.feedback)) for i, c in zip(ids, choices, strict=True)))


def _show_correct(ctx: _Item, cond: etree._Element) -> None:
    """``correct_fb`` shown by a condition that gives full credit, after its other feedback (Canvas's
    ``get_feedback_id`` takes a condition's first feedback as its answer's, and ignores ``correct_fb``)."""
    if outcome_feedback(ctx.question)[0] is not None:
        show(cond, CORRECT_FB)


def _show_incorrect(ctx: _Item) -> None:
    """``general_incorrect_fb`` shown by an ``<other/>`` condition after the scoring ones, so only
    when none of them held (qti_items.rb ``resprocessing``; migrate.py makes it the scoring
    condition's ``responseElse``). It does not continue: Moodle's cartridge restore appends the
    feedback of every continuing condition to the general feedback (entity11.quiz.class.php
    ``get_general_feedback``), which every learner sees."""
    if outcome_feedback(ctx.question)[1] is not None:
        cond, var = condition(ctx.resprocessing, False)
        _el(var, "other")
        show(cond, INCORRECT_FB)


def _write_single(ctx: _Item, body: SingleChoice) -> None:
    ids = choice_ids(body.choices)
    _choices(ctx, "Single", [(i, c.text, c.lang) for i, c in zip(ids, body.choices, strict=True)])
    _choice_feedback(ctx, body.choices)
    # One condition per full-credit choice, each setting 100: Canvas gives each the weight 100
    # (choice_interaction.rb reads every responseIf/responseElseIf), and a multiple_choice_question
    # counts any answer of weight 100 right (multiple_choice_question.rb). A partly right choice is
    # not written so: Canvas makes any positive score 100, a second fully right answer
    # (``get_base_value``); it scores 0 here (lossy_warnings says so).
    for index in body.key_indexes:
        cond, var = condition(ctx.resprocessing, False)
        varequal(var, RESPONSE, ids[index])
        set_score(cond, "100")
        _show_correct(ctx, cond)
    if not body.key_indexes:
        # No full-credit choice: no scoring condition, but a condition the profiles' rules want
        # (a varequal on the response), which sets nothing.
        varequal(condition(ctx.resprocessing, False)[1], RESPONSE, ids[0])
    _show_incorrect(ctx)


def _write_multiple(ctx: _Item, body: MultipleChoice) -> None:
    ids = choice_ids(body.choices)
    _choices(ctx, "Multiple", [(i, c.text, c.lang) for i, c in zip(ids, body.choices, strict=True)])
    _choice_feedback(ctx, body.choices)
    # Canvas's one condition (qti_items.rb multiple_answers_resprocessing): every right choice
    # and no wrong one. Canvas grades the question with its own partial-credit rule.
    cond, var = condition(ctx.resprocessing, False)
    and_ = _el(var, "and")
    for ident, choice in zip(ids, body.choices, strict=True):
        varequal(and_ if choice.earns else _el(and_, "not"), RESPONSE, ident)
    set_score(cond, "100")
    _show_correct(ctx, cond)
    _show_incorrect(ctx)


def true_false_feedback(ctx: _Item, body: TrueFalse) -> None:
    """The feedback on each answer of a true/false question, as a choice's (``true_fb``, ``false_fb``:
    Canvas's choice_interaction.rb keeps it as that answer's comments)."""
    texts = (body.feedback_true, body.feedback_false)
    _answer_feedback(
        ctx,
        (
            (ident, f"{ident}_fb", None, t is not None)
            for (ident, _), t in zip(TRUE_FALSE, texts, strict=True)
        ),
    )


def _write_true_false(ctx: _Item, body: TrueFalse) -> None:
    _choices(ctx, "Single", [(ident, text, "en") for ident, text in TRUE_FALSE])
    true_false_feedback(ctx, body)
    cond, var = condition(ctx.resprocessing, False)
    varequal(var, RESPONSE, TRUE_FALSE[0][0] if body.truth else TRUE_FALSE[1][0])
    set_score(cond, "100")
    _show_correct(ctx, cond)
    _show_incorrect(ctx)


def _write_short_answer(ctx: _Item, body: ShortAnswer, say_case: bool = True) -> None:
    """``say_case``: whether the varequals carry the case attribute (a cartridge's numerical
    answer, a number as text, carries none)."""
    render_fib(_el(ctx.presentation, "response_str", ident=RESPONSE, rcardinality="Single"))
    accepted = accepted_answers(body)
    case = body.case_sensitive if say_case else None
    _answer_feedback(ctx, ((a.text, f"A{i}_fb", case, a.feedback is not None) for i, a in accepted))
    # Every accepted answer in one condition, as Canvas's exporter writes it (qti_items.rb
    # short_answer_resprocessing): Canvas (extended_text_interaction.rb) and Moodle's CC
    # importer (get_answers_fib) read each varequal of it as one accepted answer.
    cond, var = condition(ctx.resprocessing, False)
    for _, answer in accepted:
        varequal(var, RESPONSE, answer.text, case=case)
    set_score(cond, "100")
    _show_correct(ctx, cond)
    _show_incorrect(ctx)


def numeric_test(var: etree._Element, key: NumericKey) -> None:
    """The test of one numerical key, in a conditionvar."""
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


def _write_numerical(ctx: _Item, body: Numerical) -> None:
    render_fib(_el(ctx.presentation, "response_str", ident=RESPONSE, rcardinality="Single"), "Decimal")
    # One condition per full-credit key, as Canvas's exporter writes a numerical question's answers
    # (qti_items.rb numerical_resprocessing: each sets 100 and shows ``<answer>_fb``); Canvas reads
    # each responseIf/responseElseIf as one answer of weight 100 (numeric_interaction.rb
    # ``get_canvas_answers``, which takes the condition's first feedback as its comments).
    keys = full_keys(body)
    for i, key in keys:
        cond, var = condition(ctx.resprocessing, False)
        numeric_test(var, key)
        set_score(cond, "100")
        if key.feedback is not None:
            show(cond, f"K{i}_fb")
        _show_correct(ctx, cond)
    if not keys:
        # No full-credit key: any key written would be a fully right answer in Canvas, so none is;
        # an <other/> condition that sets nothing keeps the processing valid.
        _el(condition(ctx.resprocessing, False)[1], "other")
    _show_incorrect(ctx)


def matching_rights(body: Matching) -> list[str]:
    """The right-hand items: each pair's right once, in order, then the distractors."""
    rights: list[str] = []
    for text in [p.right for p in body.pairs] + list(body.distractors):
        if text not in rights:
            rights.append(text)
    return rights


def _write_matching(ctx: _Item, body: Matching) -> None:
    rights = list(ctx.rights) if ctx.rights is not None else matching_rights(body)
    right_id = {text: f"R{i}" for i, text in enumerate(rights, 1)}
    shuffle = "Yes" if ctx.quiz.shuffle else "No"
    # One response_lid per left item, each listing every right-hand item (qti_items.rb
    # matching_response_lid); Canvas takes the first one's list as the matches, distractors
    # included (associate_interaction.rb get_canvas_matches).
    for i, pair in enumerate(body.pairs, 1):
        lid = _el(ctx.presentation, "response_lid", ident=f"response_L{i}")
        material(lid, pair.left, ctx.lang, style=ctx.style, inline=True)
        render = _el(lid, "render_choice", shuffle=shuffle)
        for text in rights:
            material(_el(render, "response_label", ident=right_id[text]), text, ctx.lang, plain=True)
    # Each right pair adds its share; continue="Yes" so a standard QTI 1.2 player scores every
    # pair (Canvas's exporter leaves the default, "No"; Canvas itself reads only the structure).
    share = f"{100 / len(body.pairs):.2f}"
    for i, pair in enumerate(body.pairs, 1):
        cond, var = condition(ctx.resprocessing, True)
        varequal(var, f"response_L{i}", right_id[pair.right])
        set_score(cond, share, action="Add")
    if outcome_feedback(ctx.question)[0] is not None:
        # Every pair right, setting nothing more: where ``correct_fb`` is shown (Canvas's
        # associate_interaction.rb connects a pair only through a condition that adds to SCORE).
        cond, var = condition(ctx.resprocessing, False)
        and_ = _el(var, "and")
        for i, pair in enumerate(body.pairs, 1):
            varequal(and_, f"response_L{i}", right_id[pair.right])
        _show_correct(ctx, cond)
    _show_incorrect(ctx)


def _write_essay(ctx: _Item) -> None:
    render_fib(_el(ctx.presentation, "response_str", ident=RESPONSE, rcardinality="Single"))
    # No answer: Canvas makes a text question without answers an essay
    # (extended_text_interaction.rb); qti_items.rb essay_resprocessing writes this condition.
    _el(condition(ctx.resprocessing, False)[1], "other")


# --------------------------------------------------------------------------- cloze, ordering, description
#
# Canvas's fill_in_multiple_blanks_question and multiple_dropdowns_question, as its exporter writes
# them (qti_items.rb multiple_dropdowns_response_lid, multiple_dropdowns_resprocessing): a
# ``[blank_id]`` placeholder in the text per blank, and per blank a ``response_lid
# ident="response_<blank_id>"`` listing its answers as response_labels. Canvas's importer
# (fill_in_the_blank.rb process_canvas, after migrate.py made each response_lid a
# choiceInteraction) takes every label of a fill-in blank as a right answer (weight 100), and a
# drop-down's choice as right when a condition adding to SCORE tests it; it reads no share, no
# case and no number (fill_in_multiple_blanks_question.rb compares the typed text, downcased).


def blank_ident(n: int) -> str:
    """Canvas's name of blank n: the ``[blank1]`` placeholder in the text and the response
    ``response_blank1`` (process_canvas strips ``response_`` to find the blank_id)."""
    return f"blank{n}"


def _canvas_gap(gap: Gap, parent: etree._Element) -> None:
    append_text(parent, f"[{blank_ident(gap.n)}]")


def cloze_flavour(style: Flavour) -> Flavour:
    """The stem of a cloze question: each gap is its ``[blank_id]`` placeholder."""
    return replace(style, gap=_canvas_gap)


def answer_ident(n: int, j: int) -> str:
    """Answer j of blank n, all digits (unique while a blank has fewer than 1000 answers). Canvas's
    exporter names an answer by its numeric id, and its importer finds a blank answer's feedback
    only so: get_feedback (assessment_item_converter.rb) gives a modalFeedback
    ``feedback_<digits>_fb`` (migrate.py's name for our ``<digits>_fb``) to the answer whose
    identifier is ``RESPONSE_<digits>`` (migrate.py's name for the label ``<digits>``)."""
    return str(n * 1000 + j)


def all_choices(body: Cloze) -> bool:
    """Whether every blank is a choice blank: a multiple_dropdowns_question (canvas_type)."""
    return all(isinstance(b, ChoiceBlank) for b in body.blanks)


def canvas_type(question: Question) -> str:
    """Canvas's ``question_type`` of a question: a cloze whose blanks are all choices is a
    multiple_dropdowns_question, any other a fill_in_multiple_blanks_question (Canvas has no
    item mixing typed blanks and drop-downs: each choice blank of a mixed one becomes a typed
    blank accepting its right choice's text, cloze_losses)."""
    if isinstance(question.body, Cloze):
        return DROPDOWNS if all_choices(question.body) else FIMB
    if isinstance(question.body, Calculated):
        return CALCULATED
    return QUESTION_TYPES[question.type]


def choice_words(text: Text) -> str:
    """A choice as the plain text Canvas shows in a drop-down or compares a typed blank with."""
    return " ".join(plain_text(text).split())


@dataclass(frozen=True)
class BlankEntry:
    """One answer of a blank as written: a response_label."""

    ident: str
    text: str
    """Plain text: Canvas takes a blank answer's text as it is (process_canvas ``choice.text``)."""
    right: bool
    feedback: Text | None


def blank_entries(body: Cloze) -> list[list[BlankEntry]]:
    """Per blank, the answers written: a text blank's accepted answers (full credit, literal ones
    first: accepted_answers), a number blank's full-credit keys as their values in text, a
    drop-down's every choice (its full-credit ones right), and in a fill-in question a choice
    blank's right choices as typed answers (with `multiple`, its right picks as one text)."""
    dropdowns = all_choices(body)
    out: list[list[BlankEntry]] = []
    for n, blank in enumerate(body.blanks, 1):
        entries: list[BlankEntry] = []
        match blank:
            case TextBlank():
                accepted = accepted_answers(ShortAnswer(blank.answers, blank.case_sensitive))
                entries = [BlankEntry(answer_ident(n, j), a.text, True, a.feedback) for j, a in accepted]
            case NumberBlank():
                seen: set[str] = set()
                for j, key in enumerate(blank.keys, 1):
                    text = number(decimal(key.value))
                    if is_full(key.credit) and text not in seen:
                        seen.add(text)
                        entries.append(BlankEntry(answer_ident(n, j), text, True, key.feedback))
            case ChoiceBlank():
                keys = set(blank.key_indexes)
                if dropdowns:
                    entries = [
                        BlankEntry(answer_ident(n, j), choice_words(c.text), j - 1 in keys, c.feedback)
                        for j, c in enumerate(blank.choices, 1)
                    ]
                elif blank.multiple:
                    words = ", ".join(choice_words(blank.choices[i].text) for i in sorted(keys))
                    entries = [BlankEntry(answer_ident(n, 1), words, True, None)] if keys else []
                else:
                    entries = [
                        BlankEntry(answer_ident(n, j), choice_words(c.text), True, c.feedback)
                        for j, c in enumerate(blank.choices, 1)
                        if j - 1 in keys
                    ]
            case _:
                assert_never(blank)
        out.append(entries)
    return out


def _blank_test(parent: etree._Element, n: int, rights: list[BlankEntry]) -> None:
    """The test that blank n holds one of its right answers."""
    respident = f"response_{blank_ident(n)}"
    holder = _el(parent, "or") if len(rights) > 1 else parent
    for e in rights:
        varequal(holder, respident, e.ident)


def _write_cloze(ctx: _Item, body: Cloze) -> None:
    entries = blank_entries(body)
    dropdowns = all_choices(body)
    for n, (blank, answers) in enumerate(zip(body.blanks, entries, strict=True), 1):
        bid = blank_ident(n)
        lid = _el(ctx.presentation, "response_lid", ident=f"response_{bid}")
        _el(_el(lid, "material"), "mattext", bid, texttype="text/plain")
        render = _el(lid, "render_choice")
        if dropdowns and isinstance(blank, ChoiceBlank) and blank.shuffle:
            render.set("shuffle", "Yes")
        for e in answers:
            material(_el(render, "response_label", ident=e.ident), e.text, ctx.lang, plain=True)
    # Each answer's feedback first, continuing (qti_items.rb answer_feedback_respconditions).
    for n, answers in enumerate(entries, 1):
        for e in answers:
            if e.feedback is not None:
                cond, var = condition(ctx.resprocessing, True)
                varequal(var, f"response_{blank_ident(n)}", e.ident)
                show(cond, f"{e.ident}_fb")
    # Each right blank adds its share (multiple_dropdowns_resprocessing, which writes 100 / blanks;
    # this one the blank's weight's share, the same when every weight is 1), continuing so a
    # QTI 1.2 player scores every blank. A drop-down gets a condition per right choice: Canvas
    # makes a choice right when a condition adding to SCORE matches it (process_canvas).
    total = body.total_weight
    wrote = False
    for n, (blank, answers) in enumerate(zip(body.blanks, entries, strict=True), 1):
        share = f"{100 * blank.weight / total:.2f}"
        rights = [e for e in answers if e.right]
        groups = [[e] for e in rights] if dropdowns else ([rights] if rights else [])
        for group in groups:
            cond, var = condition(ctx.resprocessing, True)
            _blank_test(var, n, group)
            set_score(cond, share, action="Add")
            wrote = True
    if (
        outcome_feedback(ctx.question)[0] is not None
        and wrote
        and all(any(e.right for e in a) for a in entries)
    ):
        # Every blank right, setting nothing more: where ``correct_fb`` is shown (as for matching).
        cond, var = condition(ctx.resprocessing, False)
        and_ = _el(var, "and")
        for n, answers in enumerate(entries, 1):
            _blank_test(and_, n, [e for e in answers if e.right])
        _show_correct(ctx, cond)
    if not wrote and outcome_feedback(ctx.question)[1] is None:
        _el(condition(ctx.resprocessing, False)[1], "other")  # the DTD wants a condition
    _show_incorrect(ctx)


def ordering_positions(question: Question) -> list[int]:
    """The order (0-based indexes of the items) an ordering's items are listed in when written as
    a matching question: a fixed shuffle seeded by the question's id (the same on every machine),
    never the right order, since Canvas lists a matching question's left items as written."""
    assert isinstance(question.body, Ordering)
    n = len(question.body.items)
    order = list(range(n))
    seed = int.from_bytes(hashlib.sha256(question.id.encode("utf-8")).digest()[:8], "big")
    random.Random(seed).shuffle(order)
    if order == sorted(order) and n > 1:
        order = order[1:] + order[:1]
    return order


def ordering_rights(body: Ordering) -> tuple[str, ...]:
    """The positions an ordering's items are matched with, listed in order ("1", "2", ...): in the
    order of the (shuffled) items they would give the key away."""
    return tuple(str(i) for i in range(1, len(body.items) + 1))


def ordering_as_matching(question: Question) -> Question:
    """An ordering as the matching question Canvas itself makes of one (order_interaction.rb: one
    pair per position, worth its share, no distractors): each item, in a shuffled order
    (ordering_positions), matched with its position "1", "2", ...; the items stay the prompts, so
    their markup is kept (a Canvas match is plain text)."""
    body = question.body
    assert isinstance(body, Ordering)
    pairs = tuple(Pair(body.items[i], str(i + 1)) for i in ordering_positions(question))
    return replace(question, body=Matching(pairs))


def _write_body(ctx: _Item) -> None:
    """The response and its processing, by the kind of the question."""
    match body := ctx.question.body:
        case SingleChoice():
            _write_single(ctx, body)
        case MultipleChoice():
            _write_multiple(ctx, body)
        case TrueFalse():
            _write_true_false(ctx, body)
        case ShortAnswer():
            _write_short_answer(ctx, body)
        case Numerical():
            _write_numerical(ctx, body)
        case Matching():
            _write_matching(ctx, body)
        case Essay():
            _write_essay(ctx)
        case Cloze():
            _write_cloze(ctx, body)
        case Ordering():
            as_matching = ordering_as_matching(ctx.question)
            assert isinstance(as_matching.body, Matching)
            _write_matching(replace(ctx, rights=ordering_rights(body)), as_matching.body)
        case Description():
            pass  # no response (build_item_tree writes none)
        case Calculated():
            _write_calculated(ctx, body)
        case CalculatedChoice():
            raise TypeError("a CalculatedChoice is written by add_question, as a group of its variants")
        case _:
            assert_never(body)


def item_tree(
    quiz: Quiz,
    question: Question,
    parent: etree._Element | None = None,
    style: Flavour = FLAVOUR,
    points: float | None = None,
) -> etree._Element:
    """One Canvas-flavour ``<item>`` for a question of any type (appended to ``parent`` if given).

    ``points`` overrides the question's own (an assessment's draw may); otherwise an item is the
    same in every document that holds the question. Made by filling a copy of a cached skeleton
    (below) when the question's type allows it: the tree build_item_tree makes, for a fraction
    of the cost.
    """
    if isinstance(question.body, Calculated | CalculatedChoice) or not skeleton_type(question):
        return build_item_tree(quiz, question, parent, style, points)
    key = (
        "qti12",
        quiz.lang_of(question),
        quiz.shuffle,
        style,
        question.points if points is None else points,
    )
    skeleton = skeleton_for(
        key + text_shape(question), question, lambda q: build_item_tree(quiz, q, None, style, points), style
    )
    item = (
        skeleton.fill(question)
        if skeleton is not None
        else build_item_tree(quiz, question, None, style, points)
    )
    if parent is not None:
        parent.append(item)
    return item


def build_item_tree(
    quiz: Quiz,
    question: Question,
    parent: etree._Element | None = None,
    style: Flavour = FLAVOUR,
    points: float | None = None,
) -> etree._Element:
    """item_tree built element by element: the definition item_tree's fast path must match."""
    lang = quiz.lang_of(question)
    rights = None
    shown: frozenset[str] = frozenset()
    if isinstance(question.body, Calculated):
        shown = frozenset(shown_names(question, question.body.params))
        question = as_canvas_texts(question)
    if isinstance(question.body, Ordering):
        rights = ordering_rights(question.body)
        question = ordering_as_matching(question)
    item = _el(parent, "item", ident=question.id, title=item_title(question))
    item.set(XML_LANG, lang)
    md = _el(_el(item, "itemmetadata"), "qtimetadata")
    meta_field(md, "question_type", canvas_type(question))
    meta_field(md, "points_possible", num(question.points if points is None else points))
    presentation = _el(item, "presentation")
    if isinstance(question.body, Cloze):
        style = cloze_flavour(style)
    material(presentation, question.stem, lang, style=style)
    if isinstance(question.body, Description):
        # Canvas's text_only_question: its text and no response processing or feedback
        # (qti_items.rb add_question writes neither for one; Canvas reads neither of one).
        return item
    resprocessing = _el(item, "resprocessing")
    outcomes(resprocessing)
    general_feedback(resprocessing, question)
    _write_body(_Item(quiz, question, lang, item, presentation, resprocessing, style, rights, shown))
    item_feedbacks(item, question, lang, style)
    return item


def item_feedbacks(item: etree._Element, question: Question, lang: str, style: Flavour) -> None:
    """Every ``itemfeedback`` the response processing shows, in Canvas's exporter's order
    (qti_items.rb ``add_question``): the general, right and wrong feedback, then each answer's;
    only those a condition shows (the CC profile wants each shown, rule 12d: a question with no
    full-credit answer shows no ``correct_fb``)."""
    shown = {d.get("linkrefid") for d in item.iter("{*}displayfeedback", "displayfeedback")}
    texts: list[tuple[str, Text | None, bool]] = [(GENERAL_FB, question.explanation or None, False)]
    texts += zip((CORRECT_FB, INCORRECT_FB), outcome_feedback(question), (False, False), strict=True)
    match body := question.body:
        case SingleChoice() | MultipleChoice():
            texts += [
                (f"{i}_fb", c.feedback or None, True)
                for i, c in zip(choice_ids(body.choices), body.choices, strict=True)
            ]
        case TrueFalse():
            texts += [
                (f"{ident}_fb", text, False)
                for (ident, _), text in zip(
                    TRUE_FALSE, (body.feedback_true, body.feedback_false), strict=True
                )
            ]
        case ShortAnswer():
            texts += [(f"A{i}_fb", a.feedback, False) for i, a in accepted_answers(body)]
        case Numerical():
            texts += [(f"K{i}_fb", k.feedback, False) for i, k in full_keys(body)]
        case Cloze():
            texts += [(f"{e.ident}_fb", e.feedback, False) for a in blank_entries(body) for e in a]
        case Matching() | Essay() | Ordering() | Description() | Calculated() | CalculatedChoice():
            pass
        case _:
            assert_never(body)
    for ident, text, inline in texts:
        if text is not None and ident in shown:
            itemfeedback(item, ident, text, lang, style, inline=inline)


def choice_feedbacks(item: etree._Element, choices: tuple[Choice, ...], lang: str, style: Flavour) -> None:
    """``<choice>_fb`` item feedback for each choice that has feedback."""
    for ident, choice in zip(choice_ids(choices), choices, strict=True):
        if choice.feedback:
            itemfeedback(item, f"{ident}_fb", choice.feedback, lang, style, inline=True)


# --------------------------------------------------------------------------- parametric questions
#
# A Calculated question is Canvas's calculated_question, written as Canvas's exporter writes one
# (qti_items.rb ``calculated_response_str``, ``calculated_resprocessing``, ``calculated_extension``)
# and its importer reads it (gems/plugins/qti_exporter/lib/qti/calculated_interaction.rb):
# the stem with ``[name]`` where the source says ``{name}``, a Decimal text box, the boilerplate
# correct/incorrect conditions, and ``itemproc_extension/calculated`` holding the tolerance, the
# formula (to_canvas, derived values inlined), the variables and one var_set per variant with
# lmsexport's own answer. Canvas's server never evaluates the formula: at attempt time it picks
# one var_set, fills in ``[name]`` and grades against that var_set's answer with the tolerance
# (quiz_question/calculated_question.rb, numerical_question.rb). A CalculatedChoice has no Canvas
# type: it is a question group picking one of its variants, each a multiple-choice item.

CALCULATED = "calculated_question"
CANVAS_MAX_VARIANTS = TARGET_MAX_VARIANTS["canvas"]
"""Canvas's QUIZ_MAX_COMBINATION_COUNT (quizzes_controller.rb): the most var_sets its editor makes."""


class _Used(dict[str, str]):
    """name -> ``[name]``, remembering which names a text used (substitute_text looks each up)."""

    def __init__(self, names: Iterable[str]) -> None:
        super().__init__((n, f"[{n}]") for n in names)
        self.used: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.used.add(key)
        return super().__getitem__(key)


def _names(params: Parameters) -> list[str]:
    return [v.name for v in params.variables] + [d.name for d in params.derived]


def canvas_text(text: Text | None, params: Parameters) -> Text | None:
    """A text with each ``{name}`` as Canvas's ``[name]`` (``{{``/``}}`` as single braces). In a
    formula's TeX the name becomes ``\\text{[name]}``: MathML ``<mtext>[name]</mtext>``, whose
    text Canvas's replacement reaches (a bare ``[N]`` would be three MathML tokens)."""
    names = _names(params)
    if isinstance(text, Rich):
        in_tex = {n: f"\\text{{[{n}]}}" for n in names}

        def tex_names(x: Inline) -> Inline | None:
            return Math(substitute(x.tex, in_tex, tex=True), x.display) if isinstance(x, Math) else None

        text = map_inlines(text, tex_names)
    return substitute_text(text, _Used(names))


def shown_names(question: Question, params: Parameters) -> set[str]:
    """The variable and derived names the question's texts show."""
    used = _Used(_names(params))
    for text in _parametric_texts(question):
        substitute_text(text, used)
    return used.used


def _parametric_texts(question: Question) -> Iterator[Text]:
    yield question.stem
    for text in (question.explanation, *outcome_feedback(question), *(h.text for h in question.hints)):
        if text:
            yield text
    if isinstance(question.body, CalculatedChoice):
        yield from (c.feedback for c in question.body.choices if c.feedback)


def inlined_answer(body: Calculated) -> fm.Expr:
    """The answer formula with every derived value replaced by its definition (Canvas stores
    only the variables' values)."""
    definitions: dict[str, fm.Expr] = {}
    for d in body.params.derived:
        definitions[d.name] = inline_derived(fm.parse(d.formula.text), definitions)
    return inline_derived(fm.parse(body.answer.text), definitions)


def _places(texts: Iterable[str]) -> int:
    return max((len(t.partition(".")[2]) for t in texts), default=0)


@dataclass(frozen=True)
class CanvasVar:
    name: str
    scale: int
    low: str
    high: str


def canvas_vars(shown_in_texts: Iterable[str], body: Calculated) -> list[CanvasVar]:
    """``vars/var``: every variable (min, max, scale = its decimals: what Canvas's editor would
    generate with), then each derived value a text shows (its values' range), which Canvas can
    show only as a variable of each var_set."""
    params, kept = body.params, body.variants[:CANVAS_MAX_VARIANTS]
    shown = [variants_shown(params, v) for v in kept]
    out = []
    for v in params.variables:
        if isinstance(v, RangeVariable):
            low, high, scale = v.low, v.high, v.decimals
        else:
            low, high = min(v.values), max(v.values)
            scale = v.decimals if v.decimals is not None else _places(fm.plain_number(x) for x in v.values)
        out.append(CanvasVar(v.name, scale, fm.format_value(low, scale), fm.format_value(high, scale)))
    names = set(shown_in_texts)
    for d in params.derived:
        if d.name not in names:
            continue
        values = [dict(v.values)[d.name] for v in kept]
        scale = d.decimals if d.decimals is not None else _places(s[d.name] for s in shown)
        out.append(
            CanvasVar(d.name, scale, fm.format_value(min(values), scale), fm.format_value(max(values), scale))
        )
    return out


def _write_calculated(ctx: _Item, body: Calculated) -> None:
    render_fib(_el(ctx.presentation, "response_str", ident=RESPONSE, rcardinality="Single"), "Decimal")
    right = _el(ctx.resprocessing, "respcondition", title="correct")
    _el(_el(right, "conditionvar"), "other")
    set_score(right, "100")
    _show_correct(ctx, right)
    wrong = _el(ctx.resprocessing, "respcondition", title="incorrect")
    _el(_el(_el(wrong, "conditionvar"), "not"), "other")
    set_score(wrong, "0")
    if outcome_feedback(ctx.question)[1] is not None:
        show(wrong, INCORRECT_FB)
    calc = _el(_el(ctx.item, "itemproc_extension"), "calculated")
    _el(calc, "answer_tolerance", canvas_tolerance(body.tolerance))
    formulas = _el(calc, "formulas", decimal_places=str(body.decimals))
    _el(formulas, "formula", fm.to_canvas(inlined_answer(body)))
    cvars = canvas_vars(ctx.shown, body)
    vars_ = _el(calc, "vars")
    for v in cvars:
        var = _el(vars_, "var", name=v.name, scale=str(v.scale))
        _el(var, "min", v.low)
        _el(var, "max", v.high)
    sets = _el(calc, "var_sets")
    for variant in body.variants[:CANVAS_MAX_VARIANTS]:
        values = dict(variant.values)
        vs = _el(sets, "var_set", ident=str(variant.number))
        for v in cvars:
            # A variable as every target shows it (its decimals); Canvas shows round_if_whole of it.
            _el(vs, "var", fm.format_value(values[v.name], v.scale), name=v.name)
        assert variant.answer is not None
        _el(vs, "answer", fm.format_value(variant.answer, body.decimals))


def as_canvas_texts(question: Question) -> Question:
    """A Calculated question with ``[name]`` in its texts, as the item writes them."""
    body = question.body
    assert isinstance(body, Calculated)
    p = body.params

    def sub(text: Text | None) -> Text | None:
        return canvas_text(text, p)

    fb = question.feedback
    stem = sub(question.stem)
    assert stem is not None
    return replace(
        question,
        stem=stem,
        explanation=sub(question.explanation),
        feedback=replace(fb, correct=sub(fb.correct), partial=sub(fb.partial), incorrect=sub(fb.incorrect)),
    )


def add_question(
    quiz: Quiz,
    question: Question,
    parent: etree._Element,
    points: float | None = None,
    in_group: bool = False,
) -> None:
    """The item(s) of one question, appended to ``parent``: one item, or for a CalculatedChoice
    a question group (a section picking 1, ``points_per_item`` its points) of its variants, each
    a multiple-choice item (variants.instantiate); inside a group already (``in_group``: an
    assessment's random draw; Canvas groups do not nest) only its first variant."""
    body = question.body
    if not isinstance(body, CalculatedChoice):
        item_tree(quiz, question, parent, points=points)
        return
    if in_group:
        item_tree(quiz, instantiate(question, body.variants[0]), parent, points=points)
        return
    # Canvas shows a group's title to the teacher only: the question's name, or its stem's first
    # line with the names in brackets (as a calculated question's text says them).
    stem = canvas_text(question.stem, body.params)
    assert stem is not None
    title = item_title(replace(question, stem=stem))
    group = _el(parent, "section", ident=f"{question.id}-variants", title=title)
    selection = _el(_el(group, "selection_ordering"), "selection")
    _el(selection, "selection_number", "1")
    worth = question.points if points is None else points
    _el(_el(selection, "selection_extension"), "points_per_item", num(worth))
    for variant in body.variants:
        item_tree(quiz, instantiate(question, variant), group, points=points)


def parametric_losses(q: Question, lms: str = "Canvas") -> Iterator[tuple[str, str]]:
    """(element, why) for what Canvas's import of a parametric question's item(s) loses."""
    body = q.body
    if isinstance(body, CalculatedChoice):
        yield (
            "calculated-choice",
            f"{lms} has no calculated multiple-choice question: written as a question group that picks one "
            f"of its {len(body.variants)} variants, each a multiple-choice question (the choice formulas "
            "are not carried; an import brings back the variants, not the formulas)",
        )
        return
    if not isinstance(body, Calculated):
        return
    if len(body.variants) > CANVAS_MAX_VARIANTS:
        yield (
            "variants",
            f"{lms} keeps at most {CANVAS_MAX_VARIANTS} variable sets: the first {CANVAS_MAX_VARIANTS} of "
            f"{len(body.variants)} variants are written",
        )
    if body.units:
        yield "units", f"{lms} calculated questions have no units ({len(body.units)} not carried)"
    p = body.params
    others = [t for t in _parametric_texts(q) if t is not q.stem]
    used = _Used(_names(p))
    for text in others:
        substitute_text(text, used)
    if used.used:
        yield (
            "feedback-values",
            f"{lms} fills in [name] in the question text only: the feedback shows "
            f"{', '.join(f'[{n}]' for n in sorted(used.used))} as written",
        )
    words = plain_text(q.stem)
    literal = sorted(n for n in _names(p) if f"[{n}]" in words)
    if literal:
        yield (
            "brackets",
            f"{lms} replaces every [name] of the question text with the variable's value: the literal "
            f"{', '.join(f'[{n}]' for n in literal)} of the text will show a value",
        )
    if body.tolerance.kind is ToleranceKind.RELATIVE and any(v.answer == 0 for v in body.variants):
        yield "tolerance", f"{lms}'s relative tolerance of an answer 0 accepts only 0"


# --------------------------------------------------------------------------- item skeletons
#
# lxml costs a few microseconds to create an element from Python and an item has ~60-80 of
# them, while copying a prebuilt tree is libxml2's own node copy (qti21 does the same, for the
# same reason). So items of one *shape* share a skeleton: the builder run once on a stand-in
# whose id and texts are unique placeholders, with the slots where each placeholder landed
# recorded (an attribute, or a mattext's text). An item is then a copy of its shape's skeleton
# with each slot set to what the builder would have put there: the question's id, its title,
# and each text as html_text renders it, in the language and form (inline or not) the slot's
# mattext says. The shape is everything else the builder reads (type, languages, points,
# shuffle, the key, which optional texts there are); only the types whose structure depends on
# nothing else take this path. A short answer's accepted answers are slots too (the text of
# each varequal, as written), its shape which answers are accepted and which have feedback
# (a cartridge's numerical question, a fill-in-the-blank of its key, is one).
# tests/test_rich_canvas.py checks the fast path against the builder on any quiz.

SKELETON_TYPES = frozenset(
    {
        QuestionType.SINGLE,
        QuestionType.MULTIPLE,
        QuestionType.TRUE_FALSE,
        QuestionType.ESSAY,
        QuestionType.SHORT_ANSWER,
    }
)


def skeleton_type(question: Question) -> bool:
    """Whether a question's item may be a skeleton's copy: its type's structure depends on nothing
    but text_shape, and it has no text the skeleton does not mark (the feedback on a true/false
    answer: those questions are built)."""
    if question.type not in SKELETON_TYPES:
        return False
    body = question.body
    # As the builder decides whether to write them (an empty one is written too).
    return not (
        isinstance(body, TrueFalse) and (body.feedback_true is not None or body.feedback_false is not None)
    )


_SKELETONS: dict[tuple[object, ...], Skeleton | None] = {}
_SKELETON_CACHE_MAX = 4096
_MARK = "\ue000"


def text_shape(question: Question) -> tuple[object, ...]:
    """What of a question besides its id and texts decides its item (with the writer's own
    settings, which the caller adds to the key)."""
    body: tuple[object, ...]
    match question.body:
        case SingleChoice(choices=choices) | MultipleChoice(choices=choices):
            body = tuple((c.credit, c.lang, bool(c.feedback)) for c in choices)
        case TrueFalse(truth=truth):
            body = (truth,)
        case Essay():
            body = ()
        case ShortAnswer(case_sensitive=case):
            accepted = accepted_answers(question.body)
            # which answers are written, and whether each one's feedback is absent, empty or a slot
            feedback = tuple((i, 0 if a.feedback is None else 2 if a.feedback else 1) for i, a in accepted)
            body = (case, len(question.body.answers), feedback)
        case (
            Numerical()
            | Matching()
            | Cloze()
            | Ordering()
            | Description()
            | Calculated()
            | CalculatedChoice()
        ):
            body = (question.body,)  # not skeleton types: the whole body, to be safe
        case _:
            assert_never(question.body)
    # The feedback on a right and on a wrong response: absent, empty (written as such, no slot) or a slot.
    outcome = tuple(0 if t is None else 2 if t else 1 for t in outcome_feedback(question))
    return (
        question.type,
        question.lang,
        bool(question.explanation),
        question.name is not None,
        outcome,
        body,
    )


@dataclass(frozen=True)
class Skeleton:
    item: etree._Element
    slots: tuple[tuple[tuple[int, ...], str | None, Callable[[Question], str]], ...]
    """(element path from the item, attribute or None for the text, the value for a question)."""

    def fill(self, question: Question) -> etree._Element:
        item = copy.deepcopy(self.item)
        for path, attr, value in self.slots:
            el = item
            for index in path:
                el = el[index]
            if attr is None:
                el.text = value(question)
            else:
                el.set(attr, value(question))
        return item


def skeleton_for(
    key: tuple[object, ...],
    question: Question,
    build: Callable[[Question], etree._Element],
    style: Flavour,
) -> Skeleton | None:
    """The skeleton of a shape (made from ``question`` with ``build`` the first time), or None
    when the built stand-in does not have the expected slots (then the caller builds)."""
    if key in _SKELETONS:
        return _SKELETONS[key]
    skeleton = _make_skeleton(question, build, style)
    if len(_SKELETONS) < _SKELETON_CACHE_MAX:
        _SKELETONS[key] = skeleton
    return skeleton


def _make_skeleton(
    question: Question, build: Callable[[Question], etree._Element], style: Flavour
) -> Skeleton | None:
    def mark(name: str) -> str:
        return f"{_MARK}{name}{_MARK}"

    texts: dict[str, tuple[Callable[[Question], Text | None], bool]] = {
        "stem": (lambda q: q.stem, False),
        "explanation": (lambda q: q.explanation, False),
        "correct": (lambda q: outcome_feedback(q)[0], False),
        "incorrect": (lambda q: outcome_feedback(q)[1], False),
    }
    body = question.body
    if isinstance(body, SingleChoice | MultipleChoice):
        choices = []
        for i, c in enumerate(body.choices):
            texts[f"c{i}"] = ((lambda q, i=i: _choice(q, i).text), True)  # type: ignore[misc]
            texts[f"f{i}"] = ((lambda q, i=i: _choice(q, i).feedback), True)  # type: ignore[misc]
            choices.append(
                replace(c, text=mark(f"c{i}"), feedback=mark(f"f{i}") if c.feedback else c.feedback)
            )
        body = replace(body, choices=tuple(choices))
    answer_texts: dict[str, Callable[[Question], str]] = {}
    if isinstance(body, ShortAnswer):
        answers = []
        for j, a in enumerate(body.answers):
            answer_texts[f"a{j}"] = lambda q, j=j: _answer(q, j).text  # type: ignore[misc]
            texts[f"af{j}"] = ((lambda q, j=j: _answer(q, j).feedback), False)  # type: ignore[misc]
            answers.append(
                replace(a, text=mark(f"a{j}"), feedback=mark(f"af{j}") if a.feedback else a.feedback)
            )
        body = replace(body, answers=tuple(answers))
    fb = question.feedback
    stand_in = replace(
        question,
        feedback=replace(
            fb,
            correct=mark("correct") if fb.correct else fb.correct,
            incorrect=mark("incorrect") if fb.incorrect else fb.incorrect,
        ),
        id=mark("id"),
        name=mark("name") if question.name is not None else None,
        stem=mark("stem"),
        explanation=mark("explanation") if question.explanation else question.explanation,
        body=body,
    )
    item = build(stand_in)
    slots: list[tuple[tuple[int, ...], str | None, Callable[[Question], str]]] = []
    stack: list[tuple[etree._Element, tuple[int, ...]]] = [(item, ())]
    while stack:
        el, path = stack.pop()
        stack.extend((child, (*path, i)) for i, child in enumerate(el))
        for attr, value in el.attrib.items():
            if _MARK not in value:
                continue
            if el is item and attr == "ident" and value == mark("id"):
                slots.append((path, attr, lambda q: q.id))
            elif el is item and attr == "title" and value == item_title(stand_in):
                slots.append((path, attr, item_title))
            else:
                return None
        if el.tail and _MARK in el.tail:
            return None
        if not (el.text and _MARK in el.text):
            continue
        name = el.text.split(_MARK)[1]
        if name in answer_texts:  # an accepted answer, written as it is
            if el.text != mark(name) or etree.QName(el).localname != "varequal":
                return None
            slots.append((path, None, answer_texts[name]))
            continue
        lang = el.get(XML_LANG)
        if name not in texts or lang is None or etree.QName(el).localname != "mattext":
            return None
        get, inline = texts[name]
        if el.text != html_text(mark(name), lang, style, inline):
            return None

        def value(
            q: Question, get: Callable[[Question], Text | None] = get, lang: str = lang, inline: bool = inline
        ) -> str:
            text = get(q)
            assert text is not None
            return html_text(text, lang, style, inline)

        slots.append((path, None, value))
    return Skeleton(item, tuple(slots))


def _answer(question: Question, index: int) -> Answer:
    """An answer of a short answer question (what a skeleton's answer slot holds)."""
    assert isinstance(question.body, ShortAnswer)
    return question.body.answers[index]


def _choice(question: Question, index: int) -> Choice:
    """A choice of a question of a choice shape (what a skeleton's choice slot holds)."""
    assert isinstance(question.body, SingleChoice | MultipleChoice)
    return question.body.choices[index]


def assessment_tree(quiz: Quiz) -> etree._Element:
    """``questestinterop/assessment/section`` with every question in source order."""
    root = _el(None, "questestinterop")
    assessment = _el(root, "assessment", ident=quiz.id, title=quiz.title)
    assessment.set(XML_LANG, quiz.lang)
    section = _el(assessment, "section", ident="root_section")
    for question in quiz.questions:
        add_question(quiz, question, section)
    return root


# --------------------------------------------------------------------------- assessments


def group_points(draw: Draw) -> float | None:
    """The points every question of a random draw is worth, or None when they differ (a Canvas
    question group has one ``question_points`` for all of its questions)."""
    values = {draw.points_of(c.question) for c in draw.candidates}
    return values.pop() if len(values) == 1 else None


def section_ident(assessment: Assessment, index: int) -> str:
    return f"{assessment.id}-section{index}"


def group_ident(assessment: Assessment, draw: Draw) -> str:
    """A random draw's section: Canvas makes its question group's migration id of it
    (assessment_test_converter.rb), so it names the assessment too (draw names repeat across
    assessments; two imports must not share a group)."""
    return f"{assessment.id}-{draw.name}"


def exam_tree(assessment: Assessment) -> etree._Element:
    """An assessment of the bank as Canvas's exporter writes a quiz with question groups
    (qti_generator.rb ``generate_assessment`` with ``add_group``): a ``root_section`` holding a
    section per section of ours (its title; ``order order_type="Random"`` when it is shuffled),
    in which an explicit draw's questions are plain items and a random draw is a nested section
    with ``selection_ordering/selection/selection_number`` (the pick) and, when every candidate is
    worth the same, Canvas's ``selection_extension/points_per_item``, holding every candidate.
    Canvas's converter reads both (imsqtiv1.py ``SelectionNumber``, ``PointsPerItem``) and its
    assessment_test_converter.rb ``process_section`` makes a question group with ``pick_count``
    and ``question_points`` of them. Each item is the one its quiz's package holds, but for its
    points in this assessment."""
    root = _el(None, "questestinterop")
    exam = _el(root, "assessment", ident=assessment.id, title=assessment.title)
    exam.set(XML_LANG, assessment.lang)
    root_section = _el(exam, "section", ident="root_section")
    for index, section in enumerate(assessment.sections, 1):
        sec = _el(root_section, "section", ident=section_ident(assessment, index))
        if section.title:
            sec.set("title", section.title)
        if section.shuffle:
            _el(_el(sec, "selection_ordering"), "order", order_type="Random")
        for draw in section.draws:
            holder = sec
            if draw.is_random:
                assert draw.pick is not None
                holder = _el(sec, "section", ident=group_ident(assessment, draw), title=draw.name)
                selection = _el(_el(holder, "selection_ordering"), "selection")
                _el(selection, "selection_number", str(draw.pick))
                points = group_points(draw)
                if points is not None:
                    _el(_el(selection, "selection_extension"), "points_per_item", num(points))
            for c in draw.candidates:
                add_question(c.quiz, c.question, holder, draw.points_of(c.question), in_group=draw.is_random)
    return root


def exam_shuffles(assessment: Assessment) -> bool:
    """Canvas's one *Shuffle answers* setting for an assessment: on when every quiz its questions
    come from shuffles."""
    return all(c.quiz.shuffle for c in assessment.candidates)


# --------------------------------------------------------------------------- the package


def meta_tree(quiz: Quiz) -> etree._Element:
    """Canvas's quiz settings file: the fields Canvas's importer reads that QTI cannot carry
    (lib/cc/importer/canvas/quiz_metadata_converter.rb get_quiz_meta), and no others."""
    total = sum(q.points for q in quiz.questions)
    return _meta(quiz.id, quiz.title, quiz.lang, quiz.description, quiz.shuffle, total)


def exam_meta_tree(assessment: Assessment) -> etree._Element:
    """An assessment's settings file; its total when every attempt has the same one (Canvas
    computes it from the questions and groups otherwise)."""
    return _meta(
        assessment.id,
        assessment.title,
        assessment.lang,
        assessment.description,
        exam_shuffles(assessment),
        assessment.total_points,
    )


def _meta(
    ident: str, title: str, lang: str, description: Text | None, shuffle: bool, total: float | None
) -> etree._Element:
    # No xsi:schemaLocation: Canvas's cccv1p0.xsd is not bundled, so nothing could check it.
    root = etree.Element(f"{{{CANVAS_NS}}}quiz", nsmap={None: CANVAS_NS})
    root.set("identifier", ident)
    _el(root, f"{{{CANVAS_NS}}}title", title)
    if description:
        _el(root, f"{{{CANVAS_NS}}}description", html_text(description, lang))
    _el(root, f"{{{CANVAS_NS}}}shuffle_answers", "true" if shuffle else "false")
    if total is not None:
        _el(root, f"{{{CANVAS_NS}}}points_possible", num(total))
    return root


META_FIELDS = ("title", "description", "shuffle_answers", "points_possible")
"""The children meta_tree may write, in this order (what lmsexport.qti12validate checks)."""


def document_path(ident: str) -> str:
    """``<id>/<id>.xml``: Canvas's layout for a QTI-only export (qti_generator.rb
    ``generate_quiz(quiz, false)``); its settings file must be ``<ident>/assessment_meta.xml``,
    the assessment's ident as folder (quiz_metadata_converter.rb finds it by that path)."""
    return f"{ident}/{ident}.xml"


def assessment_path(quiz: Quiz) -> str:
    return document_path(quiz.id)


def meta_path(quiz: Quiz) -> str:
    return f"{quiz.id}/{META_FILE}"


def media_path(ident: str, filename: str) -> str:
    return f"{ident}/{MEDIA_DIR}/{filename}"


def manifest_tree(quiz: Quiz) -> etree._Element:
    return _manifest(quiz.id, quiz.title, quiz.lang, quiz_media(quiz))


def _manifest(ident: str, title: str, lang: str, media: dict[str, Media]) -> etree._Element:
    """The package's IMS CP 1.1 manifest: the assessment and, as its dependencies, the settings
    file and each image, typed as Canvas's exporter types them (qti_generator.rb generate_quiz;
    qti_manifest.rb adds each file a text references as a ``webcontent`` resource). Canvas's
    converter copies every ``file`` the manifest names into its output package (imsqtiv1.py
    ``Manifest.AddCPFile``), and Canvas imports those as the quiz's files (converter.rb
    ``convert_files``)."""
    manifest = etree.Element(f"{{{CP_NS}}}manifest", nsmap={None: CP_NS, "imsmd": IMSMD_NS})
    manifest.set("identifier", f"MANIFEST-{ident}")
    metadata = _el(manifest, f"{{{CP_NS}}}metadata")
    _el(metadata, f"{{{CP_NS}}}schema", "IMS Content")
    _el(metadata, f"{{{CP_NS}}}schemaversion", "1.1.3")
    general = _el(_el(metadata, f"{{{IMSMD_NS}}}lom"), f"{{{IMSMD_NS}}}general")
    _el(_el(general, f"{{{IMSMD_NS}}}title"), f"{{{IMSMD_NS}}}langstring", title).set(XML_LANG, lang)
    _el(general, f"{{{IMSMD_NS}}}language", lang)
    _el(manifest, f"{{{CP_NS}}}organizations")
    resources = _el(manifest, f"{{{CP_NS}}}resources")
    res = _el(resources, f"{{{CP_NS}}}resource", identifier=f"RES-{ident}", type=ASSESSMENT_TYPE)
    _el(res, f"{{{CP_NS}}}file", href=document_path(ident))
    _el(res, f"{{{CP_NS}}}dependency", identifierref=f"RES-{ident}-meta")
    for filename in media:
        _el(res, f"{{{CP_NS}}}dependency", identifierref=media_resource_id(filename))
    meta_href = f"{ident}/{META_FILE}"
    meta = _el(
        resources, f"{{{CP_NS}}}resource", identifier=f"RES-{ident}-meta", type=META_TYPE, href=meta_href
    )
    _el(meta, f"{{{CP_NS}}}file", href=meta_href)
    for filename in media:
        href = media_path(ident, filename)
        web = _el(
            resources,
            f"{{{CP_NS}}}resource",
            identifier=media_resource_id(filename),
            type="webcontent",
            href=href,
        )
        _el(web, f"{{{CP_NS}}}file", href=href)
    return manifest


def media_resource_id(filename: str) -> str:
    return "MEDIA-" + filename.replace(".", "-")


@dataclass
class Package:
    """One zip of this format: its documents (validated before zipping) and its other files."""

    path: str
    """Where the zip goes in the output directory: ``qti12/<id>.zip``."""
    docs: list[tuple[str, str, etree._Element]]
    """(member path, kind, tree); kinds name what validates them (validate_qti12.validate_document)."""
    files: dict[str, bytes]
    """Member path -> bytes of the non-XML members (the images)."""


def quiz_package(quiz: Quiz) -> Package:
    media = quiz_media(quiz)
    docs = [
        (MANIFEST_PATH, "cp-manifest", _manifest(quiz.id, quiz.title, quiz.lang, media)),
        (assessment_path(quiz), "qti12", assessment_tree(quiz)),
        (meta_path(quiz), "canvas-meta", meta_tree(quiz)),
    ]
    files = {media_path(quiz.id, name): m.data for name, m in media.items()}
    return Package(package_path(quiz), docs, files)


def exam_package(assessment: Assessment) -> Package:
    """``qti12/<assessment-id>.zip``: one package per assessment, laid out as a quiz's."""
    ident = assessment.id
    texts = [assessment.description, *(t for c in assessment.candidates for t in question_texts(c.question))]
    media = media_files(texts)
    docs = [
        (MANIFEST_PATH, "cp-manifest", _manifest(ident, assessment.title, assessment.lang, media)),
        (document_path(ident), "qti12", exam_tree(assessment)),
        (f"{ident}/{META_FILE}", "canvas-meta", exam_meta_tree(assessment)),
    ]
    files = {media_path(ident, name): m.data for name, m in media.items()}
    return Package(f"qti12/{ident}.zip", docs, files)


def quiz_documents(quiz: Quiz) -> list[tuple[str, str, etree._Element]]:
    """(path, kind, tree) of every XML file of a quiz's package; kinds name what validates them."""
    return quiz_package(quiz).docs


def package_path(quiz: Quiz) -> str:
    return f"qti12/{quiz.id}.zip"


# --------------------------------------------------------------------------- what Canvas drops


def lossy_warnings(quiz: Quiz) -> list[Diagnostic]:
    """What Canvas's import of the package cannot keep, per question: one warning per question and
    element, only where the element is set (docs/canvas-qti12.md, "What Canvas keeps")."""
    out = []
    for q in quiz.questions:
        loc = q.loc or SourceLoc(quiz.id)
        if isinstance(q.body, Ordering):
            lost = ordering_losses(q.body)
            out.append(
                _warn(
                    loc,
                    f"question {q.id!r}: Canvas classic quizzes have no ordering question; written as a "
                    "matching question of each item with its position (as Canvas imports an ordering, "
                    "order_interaction.rb)" + (f"; not carried: {'; '.join(lost)}" if lost else ""),
                    "qti12.ordering-as-matching",
                )
            )
        if isinstance(q.body, ShortAnswer) and q.body.case_sensitive:
            out.append(
                _warn(
                    loc,
                    f"question {q.id!r}: Canvas compares short answers without regard to case; "
                    'case_sensitive is written (varequal case="Yes") but not kept',
                    "qti12.canvas-case-sensitive",
                )
            )
        for element, why in canvas_losses(q):
            out.append(_warn(loc, f"question {q.id!r}: {why}", f"qti12.{element}-not-carried"))
    return out


def _percent(credit: float) -> str:
    return f"{num(round(credit * 100, 5))} %"


def credit_loss(q: Question) -> str | None:
    """What of a question's credits a Canvas-flavour item cannot hold, or None: Canvas keeps an
    answer right (weight 100) or wrong (0) and nothing between (choice_interaction.rb
    ``get_base_value``: any positive score is 100, any other 0; short answers and numerical
    answers are all 100)."""
    match body := q.body:
        case SingleChoice(choices=choices):
            odd = [
                f"{_percent(c.credit)} for choice {i}"
                for i, c in enumerate(choices, 1)
                if c.credit and not c.full
            ]
            if not odd:
                return None
            none = "" if body.key_indexes else "; no choice earns full credit, so none is marked right"
            return (
                f"Canvas keeps a choice right (100 %) or wrong (0 %) and nothing between, and makes any "
                f"positive score fully right: {', '.join(odd)} not carried (written as 0 %){none}"
            )
        case MultipleChoice():
            if body.default_credits:
                return None
            return (
                "Canvas keeps which choices are right and scores a multiple-answer question by its own "
                "rule (each right pick 1/n of the points, each wrong pick -1/n); the credits "
                f"({', '.join(_percent(c) for c in body.credits)}) are not carried"
            )
        case ShortAnswer(answers=answers):
            odd = [f"{a.text!r} ({_percent(a.credit)})" for a in answers if not is_full(a.credit)]
            if not odd:
                return None
            return (
                "every answer of a Canvas short_answer_question is fully right; the answers worth less, "
                f"{', '.join(odd)}, are not written (with their feedback)"
            )
        case Numerical(keys=keys):
            odd = [f"key {i} ({_percent(k.credit)})" for i, k in enumerate(keys, 1) if not is_full(k.credit)]
            if not odd:
                return None
            return (
                "every answer of a Canvas numerical_question is fully right; the keys worth less, "
                f"{', '.join(odd)}, are not written (with their feedback)"
            )
        case TrueFalse() | Matching() | Essay() | Cloze() | Ordering() | Description() | Calculated():
            return None  # a cloze's credits: cloze_losses
        case CalculatedChoice():
            return credit_loss(instantiate(q, body.variants[0])) if body.variants else None
        case _:
            assert_never(body)


def _blanks(numbers: Iterable[int]) -> str:
    found = list(numbers)
    return ("blank " if len(found) == 1 else "blanks ") + ", ".join(map(str, found))


def cloze_losses(body: Cloze, lms: str = "Canvas") -> Iterator[tuple[str, str]]:
    """(element, why) for what a Canvas fill-in-multiple-blanks or multiple-dropdowns item cannot
    hold of a cloze question, each only where it is set (docs/canvas-qti12.md, "Cloze")."""
    blanks = list(enumerate(body.blanks, 1))
    dropdowns = all_choices(body)
    numbers = [n for n, b in blanks if isinstance(b, NumberBlank)]
    if numbers:
        yield (
            "number-blank",
            f"{lms} has no number blanks: {_blanks(numbers)} written as text answers (each full-credit "
            "key's value), compared as typed text; tolerances and ranges not carried",
        )
    partial: list[str] = []
    for n, b in blanks:
        match b:
            case TextBlank(answers=answers):
                partial += [
                    f"{a.text!r} of blank {n} ({_percent(a.credit)})"
                    for a in answers
                    if not is_full(a.credit)
                ]
            case NumberBlank(keys=keys):
                partial += [
                    f"key {i} of blank {n} ({_percent(k.credit)})"
                    for i, k in enumerate(keys, 1)
                    if not is_full(k.credit)
                ]
            case ChoiceBlank(choices=choices) if not b.multiple:
                partial += [
                    f"choice {i} of blank {n} ({_percent(c.credit)})"
                    for i, c in enumerate(choices, 1)
                    if c.credit and not c.full
                ]
            case ChoiceBlank():
                pass
            case _:
                assert_never(b)
    if partial:
        yield (
            "credit",
            f"a {lms} blank answer is right or wrong, only full-credit ones are written right: "
            f"{', '.join(partial)} not carried",
        )
    weights = [b.weight for _, b in blanks]
    if len(set(weights)) > 1:
        yield (
            "blank-weights",
            f"{lms} scores every blank alike (it reads no share of the score); the weights "
            f"{', '.join(map(str, weights))} are written as shares but not kept",
        )
    cased = [n for n, b in blanks if isinstance(b, TextBlank) and b.case_sensitive]
    if cased:
        yield (
            "case-sensitive",
            f"{lms} compares blank answers without regard to case; {_blanks(cased)} case_sensitive not kept",
        )
    wild = [
        n
        for n, b in blanks
        if isinstance(b, TextBlank) and any(a.wildcard and is_full(a.credit) for a in b.answers)
    ]
    if wild:
        yield (
            "wildcard",
            f"{lms} blanks have no wildcard; the wildcard answers of {_blanks(wild)} are not carried",
        )
    other = [n for n, b in blanks if isinstance(b, TextBlank | NumberBlank) and b.other_feedback is not None]
    if other:
        yield (
            "other-feedback",
            f"{lms} has no feedback for a blank answer it does not know ({_blanks(other)})",
        )
    picked = [n for n, b in blanks if isinstance(b, ChoiceBlank)]
    if picked and not dropdowns:
        yield (
            "blank-choices",
            f"{lms} has no item mixing typed blanks and drop-downs: {_blanks(picked)} written as typed "
            "blanks accepting the right choice's text; the other choices and their feedback not carried",
        )
    shown = [n for n, b in blanks if isinstance(b, ChoiceBlank) and b.display is not ChoiceDisplay.DROPDOWN]
    if shown and dropdowns:
        yield (
            "blank-display",
            f"{lms} shows every choice blank as a drop-down: the buttons of {_blanks(shown)} not carried",
        )
    multi = [n for n, b in blanks if isinstance(b, ChoiceBlank) and b.multiple]
    if multi:
        how = (
            "each right pick is a right choice of one drop-down"
            if dropdowns
            else "the right picks are one typed answer"
        )
        yield (
            "blank-multiple",
            f"{lms} has no blank taking several picks: {_blanks(multi)} written so that {how}",
        )
    rich = [
        n
        for n, b in blanks
        if isinstance(b, ChoiceBlank) and any(isinstance(c.text, Rich) for c in b.choices)
    ]
    if rich:
        yield (
            "blank-markup",
            f"{lms} blank answers are plain text: the markup of the choices of {_blanks(rich)} not carried",
        )


def ordering_losses(body: Ordering) -> list[str]:
    """What an ordering written as a matching question (ordering_as_matching) loses, in words."""
    out = []
    if body.grading is OrderingGrading.ALL_OR_NOTHING:
        out.append("all-or-nothing grading (a matching question scores each item in its right position)")
    elif body.grading is not OrderingGrading.ABSOLUTE_POSITION:
        out.append(
            f"grading {body.grading.value} (a matching question scores each item in its right position)"
        )
    if body.select is not OrderingSelect.ALL:
        out.append(f"the {body.select.value} subset of {body.select_count} items (every item is asked)")
    if body.layout is not Layout.VERTICAL:
        out.append(f"the {body.layout.value} layout")
    if body.numbering is not Numbering.NONE:
        out.append(f"the numbering {body.numbering.value!r}")
    if not body.show_grading:
        out.append("show_grading false")
    return out


def essay_options(body: Essay) -> list[str]:
    """The essay settings that differ from the defaults (model.Essay), by their source names."""
    default = Essay()
    names = {
        "response_format": body.response_format != default.response_format,
        "response_required": body.required != default.required,
        "response_lines": body.lines != default.lines,
        "min_words": body.min_words is not None,
        "max_words": body.max_words is not None,
        "template": body.template is not None,
        "grader_info": body.grader_info is not None,
    }
    return [name for name, set_ in names.items() if set_]


def attachments_said(body: Essay) -> str:
    """An essay's attachment settings in a few words, for the messages of formats without them."""
    allowed = "any number of files" if body.attachments < 0 else f"{body.attachments} file(s)"
    parts = [allowed, f"{body.attachments_required} required"]
    if body.file_types:
        parts.append(", ".join(body.file_types))
    if body.max_bytes:
        parts.append(f"at most {body.max_bytes} bytes")
    return "; ".join(parts)


def units_set(body: Numerical) -> bool:
    """Whether a numerical question says anything about units (model.Numerical's defaults otherwise)."""
    default = Numerical(keys=body.keys)
    return bool(body.units) or (
        body.unit_grading,
        body.unit_penalty,
        body.unit_input,
        body.units_left,
    ) != (default.unit_grading, default.unit_penalty, default.unit_input, default.units_left)


def common_losses(q: Question, lms: str) -> Iterator[tuple[str, str]]:
    """(element, why) for what no QTI 1.2 item of ours carries, whichever LMS reads it: the parts
    of a question Canvas's classic quizzes (and the CC profile) have no field for. ``lms`` names
    the reader in the sentences."""
    fb = q.feedback
    if fb.partial is not None:
        yield "partial-feedback", f"{lms} has no feedback for a partly right response"
    if fb.show_num_correct:
        yield "show-num-correct", f"{lms} does not tell how many parts of a response are right"
    if isinstance(q.body, Essay) and (fb.correct is not None or fb.incorrect is not None):
        yield "feedback", "an essay is graded by hand, so no response is shown right or wrong feedback"
    if q.hints:
        # The CC profile's itemfeedback "hint" says nothing of when it shows, and neither Canvas
        # (get_feedback keeps no id "hint") nor Moodle's restore reads it: not written either.
        yield "hints", f"{lms} has no hints shown one by one on retries ({len(q.hints)} not carried)"
    if q.penalty is not None:
        yield "penalty", f"{lms} has no penalty per try (penalty {num(q.penalty)} not carried)"
    match body := q.body:
        case ShortAnswer() | Numerical() if body.other_feedback is not None:
            yield "other-feedback", f"{lms} has no feedback for a response no answer matches"
        case _:
            pass
    if isinstance(q.body, Numerical) and units_set(q.body):
        yield (
            "units",
            f"{lms} has no units for numerical answers (units, unit grading and penalty not carried)",
        )
    if isinstance(q.body, Essay) and (options := essay_options(q.body)):
        yield "essay-options", f"{lms} has no such settings for essays ({', '.join(options)} not carried)"
    if isinstance(q.body, Essay) and q.body.takes_files:
        yield "attachments", f"{lms} takes no files with an essay ({attachments_said(q.body)} not carried)"


def canvas_losses(q: Question) -> list[tuple[str, str]]:
    """(element, why) for each part of a question Canvas's import of a Canvas-flavour item drops."""
    out = []
    credit = credit_loss(q)
    if credit is not None:
        out.append(("credit", credit))
    match q.body:
        case Cloze():
            out += cloze_losses(q.body)
        case Description() if q.explanation:
            out.append(
                (
                    "explanation",
                    "Canvas keeps no feedback of a text_only_question (assessment_item_converter.rb "
                    "create_instructure_question reads feedback only for other types); not written",
                )
            )
        case _:
            pass
    if isinstance(q.body, ShortAnswer):
        full_wild = [a.text for a in q.body.answers if a.wildcard and is_full(a.credit)]
        if full_wild:
            kept = any(a.wildcard for _, a in accepted_answers(q.body))
            how = "written as text, * matching only a *" if kept else "not written"
            out.append(("wildcard", f"Canvas short answers have no wildcard; {full_wild!r} {how}"))
    out += parametric_losses(q)
    out += common_losses(q, "Canvas")
    return out


def exam_warnings(assessment: Assessment) -> list[Diagnostic]:
    """What Canvas's import of an assessment's package cannot keep (its questions' own losses are
    reported once, by their quizzes' packages)."""
    out = []
    where = assessment.loc or SourceLoc(assessment.id)
    for index, section in enumerate(assessment.sections, 1):
        loc = section.loc or where
        name = f"section {section.title!r}" if section.title else f"section {index}"
        if section.title:
            out.append(
                _warn(
                    loc,
                    f"assessment {assessment.id!r}: Canvas keeps a section title only for sections "
                    f"marked visible, which QTI 1.2.1 cannot say; the title of {name} is written but "
                    "Canvas drops it",
                    "qti12.section-title",
                )
            )
        if section.shuffle and not (len(section.draws) == 1 and section.draws[0].is_random):
            out.append(
                _warn(
                    loc,
                    f"assessment {assessment.id!r}: {name} shuffles its questions; Canvas's classic quizzes "
                    "keep a fixed question order (only a question group's picks are random), so the order "
                    'is written (order_type="Random") but not kept',
                    "qti12.section-shuffle",
                )
            )
        for draw in section.draws:
            if draw.is_random:
                for c in draw.candidates:
                    body = c.question.body
                    if isinstance(body, CalculatedChoice) and len(body.variants) > 1:
                        out.append(
                            _warn(
                                draw.loc or loc,
                                f"assessment {assessment.id!r}: question {c.question.id!r} of pool "
                                f"{draw.name!r} is a calculated multiple-choice question, which Canvas "
                                "can ask only as a question group of its variants, and Canvas's groups do "
                                f"not nest: only its first of {len(body.variants)} variants is written",
                                "qti12.variants-not-carried",
                            )
                        )
            if draw.is_random and group_points(draw) is None:
                worth = sorted({num(draw.points_of(c.question)) for c in draw.candidates}, key=float)
                out.append(
                    _warn(
                        draw.loc or loc,
                        f"assessment {assessment.id!r}: Canvas gives every question of a question group the "
                        f"same points, but the questions of pool {draw.name!r} are worth {', '.join(worth)}; "
                        "Canvas will count each as 1 point",
                        "qti12.group-points",
                        hint="give the draw its own points (points: N)",
                    )
                )
    shuffles = {c.quiz.shuffle for c in assessment.candidates}
    if len(shuffles) > 1:
        out.append(
            _warn(
                where,
                f"assessment {assessment.id!r}: its questions come from quizzes that shuffle choices "
                "and from quizzes that do not; Canvas has one setting for the whole quiz, written as "
                "not shuffled",
                "qti12.shuffle-mixed",
            )
        )
    return out


def _warn(loc: SourceLoc, message: str, rule: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(loc, message, Severity.WARNING, rule, hint=hint)


# --------------------------------------------------------------------------- the writer


def build_qti12(bank: Bank, ctx: WriteContext) -> Output:
    """The qti12 writer: one Canvas-flavour QTI 1.2 package per quiz at qti12/<quiz-id>.zip, and
    one per assessment at qti12/<assessment-id>.zip (random draws as Canvas question groups).

    Every document is validated (QTI 1.2.1 DTD, IMS CP 1.1 XSD, Canvas's settings file) before
    anything is zipped; all invalid documents of the bank are reported together.
    """
    output = Output()
    problems: list[Diagnostic] = []
    packages = itertools.chain(
        ((quiz_package(quiz), lossy_warnings(quiz)) for quiz in bank.quizzes),
        ((exam_package(a), exam_warnings(a)) for a in bank.assessments),
    )
    for pkg, warnings in packages:  # one package's trees at a time
        data = validated_zip(pkg.docs, pkg.path, ctx.timestamp, problems, pkg.files)
        output.warnings += warnings
        if data is not None:
            output.files[pkg.path] = data
    if problems:
        raise SchemaValidationError(problems)
    return output
