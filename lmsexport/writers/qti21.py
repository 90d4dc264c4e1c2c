"""QTI 2.1 items and tests as lxml trees (pure: no disk, no clock; qti21_package.py assembles
the content packages and package.py zips them).

Package layout (paths relative to the zip root)::

    imsmanifest.xml              written by qti21_package.py
    tests/<id>.xml               one assessmentTest: the quiz's, or the assessment's
    items/<question-id>.xml      one assessmentItem per question, in source order
    items/media/<sha256>.<ext>   each image the items show, once (content-addressed)
    css/lmsexport.css            right-to-left styling every item links to

An item is built from (its home quiz's header, the question) only, so a question has the same
identifier and the same bytes in its quiz's package and in every assessment's package.

Rich text (``markup: markdown``) is rendered by writers/richtext.py as QTI-namespaced XHTML:
block content where the schema allows it (itemBody, simpleChoice, simpleAssociableChoice,
modalFeedback), inline content in feedbackInline (other blocks are flattened to lines, with a
warning), formulas as presentation MathML (lmsexport.mathml), images as ``<img>`` with alt,
width and height pointing into ``items/media/``.

A cloze item holds one interaction per blank inside its stem's text, an ordering an
orderInteraction whose response processing computes every qtype_ordering grading, a description
no interaction at all (docs/source-format.md, "QTI 2.1: cloze, ordering and description").

Shaped for what Canvas's QTI 2 importer keeps (see shared/reference/lms-notes.md) while staying
valid against the official XSD: the stem is a ``<p>`` directly under ``itemBody``; response
processing is written out, never a template, so FEEDBACK is set and both the chosen choice's
``feedbackInline`` and the explanation (``modalFeedback`` identified ``general_explanation``,
which Canvas keeps as the general comment) are shown; the points live in MAXSCORE, in the
scores and in the test's ``<weight>`` (the only place Canvas reads them).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import assert_never

from lxml import etree

from .. import __version__
from ..errors import Diagnostic, Severity
from ..mathml import to_mathml
from ..model import (
    Answer,
    Assessment,
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
    Para,
    Question,
    QuestionType,
    Quiz,
    ResponseFormat,
    Rich,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Text,
    TextBlank,
    TrueFalse,
    direction,
    inlines_of,
    is_full,
    media_of,
    plain_text,
)
from ..scoring import cloze_min_credit
from ..variants import instantiate, variant_id
from .richtext import Flavour, Renderer

QTI_NS = "http://www.imsglobal.org/xsd/imsqti_v2p1"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
SCHEMA_LOCATION = f"{QTI_NS} http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"
NSMAP = {None: QTI_NS, "xsi": XSI_NS}

TOOL_NAME = "lmsexport"
ITEM_DIR = "items"
TEST_DIR = "tests"
MEDIA_DIR = f"{ITEM_DIR}/media"
"""Images live beside the items that show them, so an item's ``src`` is ``media/<name>``: Canvas
maps an image to the package file whose path ends with the ``src`` (find_best_path_match in
gems/plugins/qti_exporter/lib/qti/html_helper.rb), which a ``../media/...`` src never does."""
STYLESHEET_PATH = "css/lmsexport.css"
STYLESHEET_HREF = "../" + STYLESHEET_PATH
"""The stylesheet as an item (in ITEM_DIR) links to it."""

EXPLANATION_ID = "general_explanation"
"""modalFeedback identifier of the explanation: Canvas keeps ids containing "general_" as the
general comment and drops others; it must not contain "correct", "wrong" or "solution"."""
WEIGHT_ID = "points"
"""Identifier of the <weight> on each assessmentItemRef: its value is the question's points.
Canvas reads the first <weight> of a ref (and of a section with a selection) as points, whatever
its identifier (assessment_test_converter.rb: get_node_att(item_ref, "weight", "value"))."""
SCALE_ID = "scale"
"""Identifier of the second <weight> on an assessment's refs: points in this assessment divided by
the question's own points. Item SCOREs are in the question's own points, so the test sums them
weighted by it (testVariables weightIdentifier): a standard player's total then counts each
question at the assessment's points, once; Canvas ignores it (it reads the first weight)."""
TF_RESPONSE = "TF_RESPONSE"
"""Canvas imports a two-choice item as true/false only when its response identifier starts with TF."""

CORRECT_ID = "correct_fb"
"""modalFeedback identifier of the feedback for a right response (question.feedback.correct): Canvas
keeps an id matching /correct|_C$/i (and not /wrong|incorrect|_IC$/i) as the correct comment
(get_feedback in gems/plugins/qti_exporter/lib/qti/assessment_item_converter.rb)."""
INCORRECT_ID = "incorrect_fb"
"""modalFeedback identifier of the feedback for a wrong response: Canvas's incorrect comment
(/wrong|incorrect|_IC$/i)."""
PARTIAL_ID = "partial_fb"
"""modalFeedback identifier of the feedback for a partly right response. Canvas has no partial
comment: an id matching none of its patterns (correct, wrong, solution, general_, _all,
feedback_N_fb) is dropped there, which is what this one is meant to be (rather than shown as the
wrong response's comment)."""
OTHER_ID = "other_fb"
"""modalFeedback identifier of a short answer's or numerical question's feedback for a response no
answer matches (Canvas drops it)."""
HINT_REQUEST = "HINTREQUEST"
"""The boolean response of the endAttemptInteraction a learner ends an attempt with to see a hint
(the QTI 2.1 information model's own name for it)."""
HINTS_TAKEN = "HINTS"
"""Outcome: how many hints the learner has seen (persists between attempts: the item is adaptive)."""
FULL_FRACTION = 0.999999
"""A score at least this fraction of MAXSCORE is full marks: credits are stored to 7 decimals, so
seven 1/7 credits add up to a hair below the maximum."""

HINT_LABELS: dict[str, str] = {
    "en": "Show a hint",
    "ur": "اشارہ دکھائیں",
    "ar": "أظهر تلميحًا",
    "fa": "نمایش راهنما",
    "hi": "संकेत दिखाएँ",
}
"""Primary language subtag -> the hint button's title; unknown languages fall back to English."""

PENALTY_DEFAULT = 1 / 3
"""What a hint costs when the question sets no penalty (Moodle's default penalty, as the HTML quiz)."""

TRUE_FALSE_LABELS: dict[str, tuple[str, str]] = {
    "en": ("True", "False"),
    "ur": ("درست", "غلط"),
    "ar": ("صحيح", "خطأ"),
    "fa": ("درست", "نادرست"),
    "hi": ("सही", "ग़लत"),
}
"""Primary language subtag -> (true, false) choice texts; unknown languages fall back to English."""

TITLE_MAX = 60

INTERACTIONS = {
    QuestionType.SINGLE: "choiceInteraction",
    QuestionType.MULTIPLE: "choiceInteraction",
    QuestionType.TRUE_FALSE: "choiceInteraction",
    QuestionType.SHORT_ANSWER: "textEntryInteraction",
    QuestionType.NUMERICAL: "textEntryInteraction",
    QuestionType.MATCHING: "matchInteraction",
    QuestionType.ESSAY: "extendedTextInteraction",
    QuestionType.ORDERING: "orderInteraction",
}
"""The one interaction each question type is written with (also the manifest's interactionType).
A cloze item has one interaction per blank and a description none: see interaction_types."""


def interaction_types(question: Question) -> list[str]:
    """The interactions a question's item holds, each kind once, in first-use order (the
    manifest's interactionType elements): none for a description, the blanks' for a cloze."""
    body = question.body
    if isinstance(body, Description):
        return []
    if isinstance(body, Cloze):
        return list(dict.fromkeys(_blank_interaction(b) for b in body.blanks))
    return [INTERACTIONS[question.type]]


def _blank_interaction(blank: TextBlank | NumberBlank | ChoiceBlank) -> str:
    if isinstance(blank, ChoiceBlank):
        return "inlineChoiceInteraction" if blank.display is ChoiceDisplay.DROPDOWN else "choiceInteraction"
    return "textEntryInteraction"


def _q(tag: str) -> str:
    return f"{{{QTI_NS}}}{tag}"


def _sub(parent: etree._Element, tag: str, text: str | None = None, **attrib: str) -> etree._Element:
    el = etree.SubElement(parent, _q(tag), attrib)
    if text is not None:
        el.text = text
    return el


def num(value: float) -> str:
    """A number as QTI writes it: integral values without a fraction, others exactly (repr)."""
    if _NUMBER_STAND_INS:  # only while a skeleton is made (_Skeleton.make)
        stand_in = _NUMBER_STAND_INS.get(id(value))
        if stand_in is not None:
            return stand_in
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def _add_text(parent: etree._Element, text: str) -> None:
    """Append plain text to an empty element, keeping line breaks as <br/>."""
    lines = text.split("\n")
    parent.text = lines[0]
    for line in lines[1:]:
        _sub(parent, "br").tail = line


def _mark_lang(el: etree._Element, lang: str, parent_lang: str) -> None:
    """xml:lang and a direction class on an element whose language differs from its parent's."""
    if lang != parent_lang:
        el.set(XML_LANG, lang)
        el.set("class", direction(lang))


def item_title(question: Question) -> str:
    """The item title: the question's name when it has one, else the one derived from its stem."""
    return question.name if question.name is not None else short_title(question)


def short_title(question: Question) -> str:
    """The title derived from the stem: its first line, whitespace collapsed, cut at TITLE_MAX
    characters."""
    first = " ".join(plain_text(question.stem).split("\n", 1)[0].split())
    if not first:
        return question.id
    return first if len(first) <= TITLE_MAX else first[: TITLE_MAX - 1].rstrip() + "…"


def true_false_labels(lang: str) -> tuple[str, str]:
    return TRUE_FALSE_LABELS.get(lang.split("-")[0].lower(), TRUE_FALSE_LABELS["en"])


# --------------------------------------------------------------------------- rich text


def media_path(media: Media) -> str:
    """Where an image is in a package (each file once, named by its content)."""
    return f"{MEDIA_DIR}/{media.filename}"


def _math(m: Math) -> etree._Element:
    return to_mathml(m.tex, m.display)


FLAVOUR = Flavour(
    ns=QTI_NS,
    math=_math,
    image_src=lambda image: "media/" + image.media.filename,  # relative to the item, in ITEM_DIR
    dir_attr=False,  # QTI 2.1 has no dir: code is marked with the class "ltr" (css/lmsexport.css)
    list_start=False,
    title_attr=False,
)
"""How QTI 2.1 items write rich text (writers/richtext.py)."""

FEEDBACK_FLATTENED = (
    "the lists, tables or code blocks of a choice's feedback, shown as plain lines "
    "(QTI 2.1's feedbackInline holds inline content only)"
)


def question_texts(question: Question) -> list[Text]:
    """Every text of a question an item shows, in reading order."""
    texts: list[Text] = [question.stem]
    body = question.body
    if isinstance(body, SingleChoice | MultipleChoice):
        for c in body.choices:
            texts.append(c.text)
            if c.feedback is not None:
                texts.append(c.feedback)
    elif isinstance(body, Matching):
        texts += [p.left for p in body.pairs]
    elif isinstance(body, Ordering):
        texts += list(body.items)
    elif isinstance(body, Cloze):
        for blank in body.blanks:
            if isinstance(blank, ChoiceBlank):
                for c in blank.choices:
                    texts.append(c.text)
                    if c.feedback is not None:
                        texts.append(c.feedback)
            else:
                items = blank.answers if isinstance(blank, TextBlank) else blank.keys
                texts += [a.feedback for a in items if a.feedback is not None]
                if blank.other_feedback is not None:
                    texts.append(blank.other_feedback)
    if question.explanation is not None:
        texts.append(question.explanation)
    return texts + _extra_texts(question)


def _extra_texts(question: Question) -> list[Text]:
    """The texts of a question's feedback, hints and grading notes (beyond stem, choices and
    explanation), in the order the item shows them."""
    texts: list[Text] = []
    body = question.body
    if isinstance(body, TrueFalse):
        texts += [t for t in (body.feedback_true, body.feedback_false) if t is not None]
    elif isinstance(body, ShortAnswer | Numerical):
        items = body.answers if isinstance(body, ShortAnswer) else body.keys
        texts += [a.feedback for a in items if a.feedback is not None]
        if body.other_feedback is not None:
            texts.append(body.other_feedback)
    elif isinstance(body, Essay) and body.grader_info is not None:
        texts.append(body.grader_info)
    fb = question.feedback
    texts += [t for t in (fb.correct, fb.partial, fb.incorrect) if t is not None]
    texts += [h.text for h in question.hints]
    return texts


def question_media(question: Question) -> list[Media]:
    """Every image a question's item shows, each once, in reading order."""
    if _is_plain(question):
        return []
    found: dict[str, Media] = {}
    for text in question_texts(question):
        for m in media_of(text):
            found.setdefault(m.digest, m)
    return list(found.values())


def _is_plain(question: Question) -> bool:
    """Whether every text of a question is plain (on the hot path of every item: kept cheap)."""
    if not isinstance(question.stem, str) or isinstance(question.explanation, Rich):
        return False
    body = question.body
    if isinstance(body, SingleChoice | MultipleChoice):
        if not all(isinstance(c.text, str) and not isinstance(c.feedback, Rich) for c in body.choices):
            return False
    elif isinstance(body, Matching | Ordering):
        texts = [p.left for p in body.pairs] if isinstance(body, Matching) else list(body.items)
        if not all(isinstance(t, str) for t in texts):
            return False
    if not _has_extras(question):
        return True
    return all(isinstance(t, str) for t in _extra_texts(question))


def has_extra_feedback(question: Question) -> bool:
    """Whether a question shows feedback other than its explanation and its choices' (outcome
    feedback, true/false or per-answer feedback, hints)."""
    if not _has_extras(question):
        return False
    body = question.body
    return bool(
        any(
            t is not None
            for t in (question.feedback.correct, question.feedback.partial, question.feedback.incorrect)
        )
        or question.hints
        or isinstance(body, TrueFalse | ShortAnswer | Numerical)
        and any(True for t in _extra_texts(question))
        or isinstance(body, Cloze)
        and _cloze_feedback(body)
    )


def _has_extras(question: Question) -> bool:
    """Whether a question sets anything today's items never held (credits aside): a name's
    enough to leave the skeleton path alone, this is what changes the tree's structure."""
    if question.feedback or question.hints or question.penalty is not None:
        return True
    return _body_extras(question)


def _body_extras(question: Question) -> bool:
    """_has_extras for what the question's kind sets (its feedback by answer, graded keys...)."""
    body = question.body
    if isinstance(body, TrueFalse):
        return body.feedback_true is not None or body.feedback_false is not None
    if isinstance(body, ShortAnswer):
        return not _plain_short(body)
    if isinstance(body, Numerical):
        return not _plain_numerical(body)
    if isinstance(body, Essay):
        return body != Essay()
    return isinstance(body, Cloze)  # its per-blank feedback


def _plain_short(body: ShortAnswer) -> bool:
    """A short answer as today's items hold it: every answer full credit, literal, no feedback."""
    return body.other_feedback is None and all(
        a.credit == 1.0 and a.feedback is None and not a.wildcard for a in body.answers
    )


def _plain_numerical(body: Numerical) -> bool:
    """A numerical question as today's items hold it: one full-credit key without feedback."""
    return (
        body.other_feedback is None
        and len(body.keys) == 1
        and body.keys[0].credit == 1.0
        and body.keys[0].feedback is None
    )


def _plain_single(body: SingleChoice) -> bool:
    """A single choice question as today's items hold it: one full-credit choice, the rest 0."""
    return len(body.key_indexes) == 1 and all(c.credit == 0.0 for c in body.choices if not c.full)


_VERBATIM = frozenset(_q(t) for t in ("pre", "code", "span", "em", "strong", "a"))
"""Elements in which white space shows: a code block's lines, or text in the middle of a line."""


def _finish_rich(item: etree._Element) -> None:
    """Make a rendered item valid and keep it exact through serialisation.

    * A QTI <tbody> needs a row: a table with a header only gets its header row as the body.
    * Pretty printing indents an element whose content is elements only; inside a <pre> or an
      inline element that white space would show (an indented first line of code, a space
      inside a link). An empty text node makes libxml2 write that element's content as is.
    """
    for table in item.iter(_q("table")):
        head, body = table.find(_q("thead")), table.find(_q("tbody"))
        if body is not None and len(body) == 0 and head is not None:
            body.extend(list(head))
            table.remove(head)
    for el in item.iter(_VERBATIM):
        if el.text is None and len(el):
            el.text = ""


# --------------------------------------------------------------------------- declarations


def _response_decl(
    item: etree._Element, ident: str, cardinality: str, base_type: str, correct: list[str]
) -> etree._Element:
    decl = _sub(item, "responseDeclaration", identifier=ident, cardinality=cardinality, baseType=base_type)
    if correct:
        cr = _sub(decl, "correctResponse")
        for value in correct:
            _sub(cr, "value", value)
    return decl


def _mapping(
    decl: etree._Element, entries: list[tuple[str, float]], points: float, lower: float = 0.0, **extra: str
) -> None:
    mapping = _sub(decl, "mapping", lowerBound=num(lower), upperBound=num(points), defaultValue="0")
    for key, value in entries:
        _sub(mapping, "mapEntry", mapKey=key, mappedValue=num(value), **extra)


def _outcomes(item: etree._Element, points: float, feedback: bool) -> None:
    score = _sub(
        item,
        "outcomeDeclaration",
        identifier="SCORE",
        cardinality="single",
        baseType="float",
        normalMaximum=num(points),
    )
    _sub(_sub(score, "defaultValue"), "value", "0")
    maxscore = _sub(item, "outcomeDeclaration", identifier="MAXSCORE", cardinality="single", baseType="float")
    _sub(_sub(maxscore, "defaultValue"), "value", num(points))
    if feedback:
        _sub(item, "outcomeDeclaration", identifier="FEEDBACK", cardinality="multiple", baseType="identifier")


def _description_outcomes(item: etree._Element, feedback: bool) -> None:
    """A description's outcomes: SCORE and MAXSCORE 0 (a test's sums count it as nothing; no
    normalMaximum, which QTI wants positive), FEEDBACK when it shows an explanation."""
    for name in ("SCORE", "MAXSCORE"):
        decl = _sub(item, "outcomeDeclaration", identifier=name, cardinality="single", baseType="float")
        _sub(_sub(decl, "defaultValue"), "value", "0")
    if feedback:
        _sub(item, "outcomeDeclaration", identifier="FEEDBACK", cardinality="multiple", baseType="identifier")


def _float_outcome(item: etree._Element, ident: str, base_type: str) -> None:
    """A single numeric outcome that starts at 0 (a blank's credit, a count)."""
    decl = _sub(item, "outcomeDeclaration", identifier=ident, cardinality="single", baseType=base_type)
    _sub(_sub(decl, "defaultValue"), "value", "0")


# --------------------------------------------------------------------------- response processing


def _base(parent: etree._Element, base_type: str, value: str) -> etree._Element:
    return _sub(parent, "baseValue", value, baseType=base_type)


def _var(parent: etree._Element, ident: str) -> etree._Element:
    return _sub(parent, "variable", identifier=ident)


def _score_if(rp: etree._Element, points: float, condition: Callable[[etree._Element], None]) -> None:
    """if <condition> then SCORE = points else SCORE = 0; ``condition`` appends the test expression."""
    cond = _sub(rp, "responseCondition")
    if_ = _sub(cond, "responseIf")
    condition(if_)
    _base(_sub(if_, "setOutcomeValue", identifier="SCORE"), "float", num(points))
    _base(_sub(_sub(cond, "responseElse"), "setOutcomeValue", identifier="SCORE"), "float", "0")


def _score_map(rp: etree._Element, response: str) -> None:
    _sub(_sub(rp, "setOutcomeValue", identifier="SCORE"), "mapResponse", identifier=response)


def _set_feedback(rp: etree._Element, response: str | None, explanation: bool, keep: bool = False) -> None:
    """FEEDBACK = the picked choice identifiers, plus the explanation's id whatever the answer
    (``keep``: added to what FEEDBACK already holds)."""
    multiple = _sub(_sub(rp, "setOutcomeValue", identifier="FEEDBACK"), "multiple")
    if keep:
        _var(multiple, "FEEDBACK")
    if response is not None:
        _var(multiple, response)
    if explanation:
        _base(multiple, "identifier", EXPLANATION_ID)


def _add_feedback(parent: etree._Element, ident: str) -> None:
    """FEEDBACK = FEEDBACK plus ``ident``."""
    multiple = _sub(_sub(parent, "setOutcomeValue", identifier="FEEDBACK"), "multiple")
    _var(multiple, "FEEDBACK")
    _base(multiple, "identifier", ident)


def _set_combined_feedback(rp: etree._Element) -> None:
    """The feedback on the whole response, from the score: full marks (SCORE at least MAXSCORE,
    to the precision of stored credits) -> CORRECT_ID, more than 0 -> PARTIAL_ID, else
    INCORRECT_ID. Written after every rule that sets SCORE."""
    cond = _sub(rp, "responseCondition")
    full = _sub(cond, "responseIf")
    gte = _sub(full, "gte")
    _var(gte, "SCORE")
    product = _sub(gte, "product")
    _var(product, "MAXSCORE")
    _base(product, "float", repr(FULL_FRACTION))
    _add_feedback(full, CORRECT_ID)
    some = _sub(cond, "responseElseIf")
    gt = _sub(some, "gt")
    _var(gt, "SCORE")
    _base(gt, "float", "0")
    _add_feedback(some, PARTIAL_ID)
    _add_feedback(_sub(cond, "responseElse"), INCORRECT_ID)


def hint_id(n: int) -> str:
    """The modalFeedback identifier of the n-th hint (1-based); Canvas drops it (it has no hints)."""
    return f"hint_{n}"


def hint_label(lang: str) -> str:
    return HINT_LABELS.get(lang.split("-")[0].lower(), HINT_LABELS["en"])


def _hint_processing(ctx: _Ctx) -> None:
    """Hints the QTI 2.1 way: an endAttemptInteraction (HINT_REQUEST) after the question, in an
    adaptive item (its outcomes persist from attempt to attempt, so HINTS counts the hints seen).

    An attempt ended with the hint button shows the next hint (FEEDBACK = its id) and scores
    nothing; any other attempt is the response: the question's own rules run, then a positive
    SCORE loses HINTS x the penalty (the question's, else Moodle's 1/3) of the points, never
    below 0, and completionStatus is completed, which ends the item. So a player shows hints on
    request, one at a time in order, each costing the penalty, as the HTML quiz does.
    """
    q = ctx.question
    n = len(q.hints)
    _sub(ctx.item, "responseDeclaration", identifier=HINT_REQUEST, cardinality="single", baseType="boolean")
    _sub(
        _sub(ctx.body, "p"),
        "endAttemptInteraction",
        responseIdentifier=HINT_REQUEST,
        title=hint_label(ctx.lang),
    )
    scoring = list(ctx.rp)
    cond = _sub(ctx.rp, "responseCondition")
    asked = _sub(cond, "responseIf")
    _var(asked, HINT_REQUEST)
    more = _sub(_sub(asked, "responseCondition"), "responseIf")
    lt = _sub(more, "lt")
    _var(lt, HINTS_TAKEN)
    _base(lt, "integer", str(n))
    total = _sub(_sub(more, "setOutcomeValue", identifier=HINTS_TAKEN), "sum")
    _var(total, HINTS_TAKEN)
    _base(total, "integer", "1")
    which = _sub(asked, "responseCondition")
    for k in range(1, n + 1):
        branch = _sub(which, "responseIf" if k == 1 else "responseElseIf")
        match = _sub(branch, "match")
        _var(match, HINTS_TAKEN)
        _base(match, "integer", str(k))
        _base(
            _sub(_sub(branch, "setOutcomeValue", identifier="FEEDBACK"), "multiple"), "identifier", hint_id(k)
        )
    answered = _sub(cond, "responseElse")
    # Outcomes persist in an adaptive item: a hint shown before must not stay on.
    _sub(_sub(answered, "setOutcomeValue", identifier="FEEDBACK"), "null")
    for rule in scoring:
        answered.append(rule)
    cost = (q.penalty if q.penalty is not None else PENALTY_DEFAULT) * q.points
    paid = _sub(_sub(answered, "responseCondition"), "responseIf")
    positive = _sub(paid, "gt")
    _var(positive, "SCORE")
    _base(positive, "float", "0")
    sub = _sub(_sub(paid, "setOutcomeValue", identifier="SCORE"), "subtract")
    _var(sub, "SCORE")
    product = _sub(sub, "product")
    _var(product, HINTS_TAKEN)
    _base(product, "float", num(cost))
    floor = _sub(_sub(paid, "responseCondition"), "responseIf")
    below = _sub(floor, "lt")
    _var(below, "SCORE")
    _base(below, "float", "0")
    _base(_sub(floor, "setOutcomeValue", identifier="SCORE"), "float", "0")
    _base(_sub(answered, "setOutcomeValue", identifier="completionStatus"), "identifier", "completed")


# --------------------------------------------------------------------------- per type


@dataclass(frozen=True)
class _Ctx:
    quiz: Quiz
    question: Question
    lang: str
    item: etree._Element
    body: etree._Element
    rp: etree._Element
    renderer: Renderer
    """Renders the question's rich texts; collects what QTI could not carry."""
    feedback: list[tuple[str, Text]] = field(default_factory=list)
    """(identifier, text) of each modalFeedback the type writer's response processing shows."""

    def text(self, parent: etree._Element, text: Text) -> None:
        """A text as the content of an element that allows blocks (a choice, an associable choice)."""
        if isinstance(text, str):
            _add_text(parent, text)
        else:
            self.renderer.inline_or_blocks(text, parent)

    def inline_text(self, parent: etree._Element, text: Text) -> None:
        """A text as the content of an element that allows inline content only (feedbackInline)."""
        if isinstance(text, str):
            _add_text(parent, text)
        elif not self.renderer.flattened(text, parent):
            self.renderer.lost.append(FEEDBACK_FLATTENED)


def _choice_feedback(choices: tuple[Choice, ...]) -> bool:
    return any(c.feedback for c in choices)


def _simple_choices(
    ctx: _Ctx, parent: etree._Element, texts: list[tuple[str, Text, str | None, Text | None]]
) -> None:
    """simpleChoice elements: (identifier, text, lang or None, feedback or None)."""
    for ident, text, lang, feedback in texts:
        choice = _sub(parent, "simpleChoice", identifier=ident)
        if lang:
            _mark_lang(choice, lang, ctx.lang)
        # Canvas reads a choice with feedbackInline as "first child's text" (choice_interaction.rb):
        # keep the text first, and a rich text in one element so that its words are all there.
        if feedback and isinstance(text, Rich):
            ctx.text(_sub(choice, "span" if text.inline is not None else "div"), text)
        else:
            ctx.text(choice, text)
        if feedback:
            fb = _sub(
                choice, "feedbackInline", outcomeIdentifier="FEEDBACK", identifier=ident, showHide="show"
            )
            _mark_lang(fb, ctx.lang, lang or ctx.lang)
            ctx.inline_text(fb, feedback)


def _choice_ids(choices: tuple[Choice, ...]) -> list[str]:
    return [f"C{i}" for i in range(1, len(choices) + 1)]


def _write_single(ctx: _Ctx, body: SingleChoice) -> None:
    q = ctx.question
    ids = _choice_ids(body.choices)
    plain = _plain_single(body)
    if plain:
        correct = [ids[i] for i in body.key_indexes]
    else:
        # One value (single cardinality): the first choice that earns the most.
        best = max(body.credits)
        correct = [ids[body.credits.index(best)]] if best > 0 else []
    decl = _response_decl(ctx.item, "RESPONSE", "single", "identifier", correct)
    if not plain:
        # Each choice earns its credit of the points. A negative credit is a negative mark for the
        # question (Moodle's qtype_multichoice_single allows it: get_min_fraction()), so the lower
        # bound is the lowest credit's, not 0: QTI carries it as it is.
        entries = [(ids[i], q.points * c) for i, c in enumerate(body.credits) if c != 0.0]
        _mapping(decl, entries or [(ids[0], 0.0)], q.points, lower=min(0.0, *body.credits) * q.points)
    ci = _sub(
        ctx.body,
        "choiceInteraction",
        responseIdentifier="RESPONSE",
        shuffle=_bool(ctx.quiz.shuffle),
        maxChoices="1",
    )
    _simple_choices(ctx, ci, [(ids[i], c.text, c.lang, c.feedback) for i, c in enumerate(body.choices)])

    def matches_correct(parent: etree._Element) -> None:
        match = _sub(parent, "match")
        _var(match, "RESPONSE")
        _sub(match, "correct", identifier="RESPONSE")

    if plain:
        _score_if(ctx.rp, q.points, matches_correct)
    else:
        _score_map(ctx.rp, "RESPONSE")


def _write_multiple(ctx: _Ctx, body: MultipleChoice) -> None:
    q = ctx.question
    ids = _choice_ids(body.choices)
    decl = _response_decl(ctx.item, "RESPONSE", "multiple", "identifier", [ids[i] for i in body.key_indexes])
    # Each pick earns its credit of the points; a total below 0 counts as 0 (lowerBound): with
    # the default credits ticking every box scores 0, not a pass.
    entries = [(ids[i], q.points * credit) for i, credit in enumerate(body.credits)]
    _mapping(decl, entries, q.points)
    ci = _sub(
        ctx.body,
        "choiceInteraction",
        responseIdentifier="RESPONSE",
        shuffle=_bool(ctx.quiz.shuffle),
        maxChoices=str(len(body.choices)),
    )
    _simple_choices(ctx, ci, [(ids[i], c.text, c.lang, c.feedback) for i, c in enumerate(body.choices)])
    _score_map(ctx.rp, "RESPONSE")


def _write_true_false(ctx: _Ctx, body: TrueFalse) -> None:
    q = ctx.question
    right = "TRUE" if body.truth else "FALSE"
    _response_decl(ctx.item, TF_RESPONSE, "single", "identifier", [right])
    # The order true, false is the convention every LMS shows; shuffling two choices only confuses.
    ci = _sub(ctx.body, "choiceInteraction", responseIdentifier=TF_RESPONSE, shuffle="false", maxChoices="1")
    yes, no = true_false_labels(ctx.lang)
    _simple_choices(
        ctx, ci, [("TRUE", yes, None, body.feedback_true), ("FALSE", no, None, body.feedback_false)]
    )

    # Canvas needs an explicit match against a baseValue here: <correct/> crashes its importer.
    def matches_right(parent: etree._Element) -> None:
        match = _sub(parent, "match")
        _var(match, TF_RESPONSE)
        _base(match, "identifier", right)

    _score_if(ctx.rp, q.points, matches_right)


def _write_short_answer(ctx: _Ctx, body: ShortAnswer) -> None:
    if not _plain_short(body):
        _write_graded_short_answer(ctx, body)
        return
    q = ctx.question
    answers = [a.text for a in body.answers]
    decl = _response_decl(ctx.item, "RESPONSE", "single", "string", [answers[0]])
    seen: set[str] = set()
    entries = []
    for answer in answers:
        key = answer if body.case_sensitive else answer.casefold()
        if key not in seen:  # a mapping must not list one key twice
            seen.add(key)
            entries.append((answer, q.points))
    _mapping(decl, entries, q.points, caseSensitive=_bool(body.case_sensitive))
    _sub(
        _sub(ctx.body, "p"),
        "textEntryInteraction",
        responseIdentifier="RESPONSE",
        expectedLength=str(max(len(a) for a in answers)),
    )
    _score_map(ctx.rp, "RESPONSE")


def _write_graded_short_answer(ctx: _Ctx, body: ShortAnswer) -> None:
    """Each answer in order, the first that matches setting SCORE (its credit of the points) and
    FEEDBACK (its feedback's id): stringMatch for a literal answer, patternMatch for a wildcard one;
    no match: SCORE 0 and the other-answer feedback."""
    full = next((a for a in body.answers if is_full(a.credit)), body.answers[0]) if body.answers else None
    # The correct response is a response that matches: a wildcard's text without its stars.
    correct = [full.text.replace("*", "") if full.wildcard else full.text] if full else []
    _response_decl(ctx.item, "RESPONSE", "single", "string", [c for c in correct if c])
    _sub(
        _sub(ctx.body, "p"),
        "textEntryInteraction",
        responseIdentifier="RESPONSE",
        expectedLength=str(max((len(a.text) for a in body.answers), default=10)),
    )

    _graded_chain(
        ctx,
        [
            (answer_condition(a, body.case_sensitive), a.credit, a.feedback, answer_id(i))
            for i, a in enumerate(body.answers, 1)
        ],
        body.other_feedback,
    )


def answer_condition(
    answer: Answer, case_sensitive: bool, response: str = "RESPONSE"
) -> Callable[[etree._Element], None]:
    """The test of whether a response matches an answer: stringMatch for a literal answer,
    patternMatch for a wildcard one (see _write_graded_short_answer)."""

    def condition(parent: etree._Element) -> None:
        if answer.wildcard:
            _var(
                _sub(parent, "patternMatch", pattern=wildcard_pattern(answer.text, case_sensitive)), response
            )
        else:
            sm = _sub(parent, "stringMatch", caseSensitive=_bool(case_sensitive))
            _var(sm, response)
            _base(sm, "string", answer.text)

    return condition


def answer_id(n: int) -> str:
    """The FEEDBACK identifier of a short answer's n-th answer (1-based) or a numerical n-th key."""
    return f"answer_{n}"


_REGEX_SPECIALS = frozenset("\\|.?*+(){}-[]^")
"""The characters an XML Schema regular expression (XSD Part 2, appendix F: SingleCharEsc) needs
escaped; `$` is not one of them there, and `\\$` would be an error."""


def wildcard_pattern(text: str, case_sensitive: bool) -> str:
    """A Moodle wildcard answer (each `*` any run of characters) as a patternMatch pattern: an XML
    Schema regular expression, which matches the whole response (it is anchored by definition).
    Without case sensitivity each cased letter is a class of its two cases, its own first
    ([aA]); XSD regular expressions have no flag for it."""
    out: list[str] = []
    for ch in text:
        if ch == "*":
            if not out or out[-1] != ".*":  # ** is *, as Moodle splits on runs of stars
                out.append(".*")
            continue
        other = ch.swapcase()
        if not case_sensitive and other != ch and len(other) == 1 and other.swapcase() == ch:
            out.append(f"[{ch}{other}]")
        else:
            out.append("\\" + ch if ch in _REGEX_SPECIALS else ch)
    return "".join(out)


def _graded_chain(
    ctx: _Ctx,
    branches: list[tuple[Callable[[etree._Element], None], float, Text | None, str]],
    other: Text | None,
) -> None:
    """One responseCondition: the first branch whose condition holds sets SCORE to its credit of
    the points and FEEDBACK to its id (when it has feedback); none: SCORE 0 and OTHER_ID. The
    feedback texts become modalFeedback (see _Ctx.modal)."""
    q = ctx.question
    cond = _sub(ctx.rp, "responseCondition")
    for n, (condition, credit, feedback, ident) in enumerate(branches):
        branch = _sub(cond, "responseIf" if n == 0 else "responseElseIf")
        condition(branch)
        _base(_sub(branch, "setOutcomeValue", identifier="SCORE"), "float", num(q.points * credit))
        if feedback is not None:
            _base(
                _sub(_sub(branch, "setOutcomeValue", identifier="FEEDBACK"), "multiple"), "identifier", ident
            )
            ctx.feedback.append((ident, feedback))
    otherwise = _sub(cond, "responseElse")
    _base(_sub(otherwise, "setOutcomeValue", identifier="SCORE"), "float", "0")
    if other is not None:
        _base(
            _sub(_sub(otherwise, "setOutcomeValue", identifier="FEEDBACK"), "multiple"),
            "identifier",
            OTHER_ID,
        )
        ctx.feedback.append((OTHER_ID, other))


def _write_numerical(ctx: _Ctx, body: Numerical) -> None:
    if not _plain_numerical(body):
        _write_graded_numerical(ctx, body)
        return
    q = ctx.question
    key = body.key
    _response_decl(
        ctx.item, "RESPONSE", "single", "float", [num(key.answer)] if key.answer is not None else []
    )
    _sub(_sub(ctx.body, "p"), "textEntryInteraction", responseIdentifier="RESPONSE", expectedLength="10")
    low, high = key.bounds

    def within_bounds(parent: etree._Element) -> None:
        and_ = _sub(parent, "and")
        for op, bound in (("gte", low), ("lte", high)):
            cmp = _sub(and_, op)
            _var(cmp, "RESPONSE")
            _base(cmp, "float", num(bound))

    _score_if(ctx.rp, q.points, within_bounds)


def _write_graded_numerical(ctx: _Ctx, body: Numerical) -> None:
    """Each key in order, the first that holds the response setting SCORE and FEEDBACK (as a
    graded short answer): a value with a tolerance is `equal` with toleranceMode absolute (exact
    when the tolerance is 0), a range `gte` and `lte` of its bounds."""
    key = body.key
    _response_decl(
        ctx.item, "RESPONSE", "single", "float", [num(key.answer)] if key.answer is not None else []
    )
    _sub(_sub(ctx.body, "p"), "textEntryInteraction", responseIdentifier="RESPONSE", expectedLength="10")

    _graded_chain(
        ctx,
        [(key_condition(k), k.credit, k.feedback, answer_id(i)) for i, k in enumerate(body.keys, 1)],
        body.other_feedback,
    )


def key_condition(k: NumericKey, response: str = "RESPONSE") -> Callable[[etree._Element], None]:
    """The test of whether a numeric key holds the response (see _write_graded_numerical)."""

    def condition(parent: etree._Element) -> None:
        below_above = _range_tolerances(k)
        if below_above is not None:
            # A range around an answer: equal with a tolerance below and one above.
            assert k.answer is not None
            tolerance = " ".join(num(t) for t in below_above)
            eq = _sub(parent, "equal", toleranceMode="absolute", tolerance=tolerance)
            # The tolerances are around the first value (x - t0 <= y <= x + t1): the answer.
            _base(eq, "float", num(k.answer))
            _var(eq, response)
            return
        if k.low is not None and k.high is not None:
            and_ = _sub(parent, "and")
            for op, bound in (("gte", k.low), ("lte", k.high)):
                cmp = _sub(and_, op)
                _var(cmp, response)
                _base(cmp, "float", num(bound))
            return
        assert k.answer is not None
        if k.tolerance:
            eq = _sub(parent, "equal", toleranceMode="absolute", tolerance=num(k.tolerance))
        else:
            eq = _sub(parent, "equal", toleranceMode="exact")
        _base(eq, "float", num(k.answer))
        _var(eq, response)

    return condition


def _range_tolerances(key: NumericKey) -> tuple[float, float] | None:
    """For a key that is a range with an answer inside it: the tolerances below and above the
    answer that give back exactly its bounds (answer - below == low, answer + above == high), or
    None (no answer, or floating point cannot say it exactly: then the range alone is written)."""
    if key.answer is None or key.low is None or key.high is None or not key.low <= key.answer <= key.high:
        return None
    below, above = key.answer - key.low, key.high - key.answer
    if key.answer - below == key.low and key.answer + above == key.high:
        return below, above
    return None


def _write_matching(ctx: _Ctx, body: Matching) -> None:
    q = ctx.question
    rights: list[str] = []
    for text in [p.right for p in body.pairs] + list(body.distractors):
        if text not in rights:  # two lefts may share one right: one choice, matchMax 2
            rights.append(text)
    right_id = {text: f"R{i}" for i, text in enumerate(rights, 1)}
    pairs = [f"L{i} {right_id[p.right]}" for i, p in enumerate(body.pairs, 1)]
    decl = _response_decl(ctx.item, "RESPONSE", "multiple", "directedPair", pairs)
    _mapping(decl, [(pair, q.points / len(pairs)) for pair in pairs], q.points)
    mi = _sub(
        ctx.body,
        "matchInteraction",
        responseIdentifier="RESPONSE",
        shuffle=_bool(ctx.quiz.shuffle),
        maxAssociations=str(len(body.pairs)),
    )
    lefts = _sub(mi, "simpleMatchSet")
    for i, pair in enumerate(body.pairs, 1):
        ctx.text(_sub(lefts, "simpleAssociableChoice", identifier=f"L{i}", matchMax="1"), pair.left)
    right_set = _sub(mi, "simpleMatchSet")
    for text in rights:
        uses = sum(1 for p in body.pairs if p.right == text)
        _add_text(
            _sub(right_set, "simpleAssociableChoice", identifier=right_id[text], matchMax=str(max(uses, 1))),
            text,
        )
    _score_map(ctx.rp, "RESPONSE")


ESSAY_FORMATS = {
    ResponseFormat.EDITOR: "xhtml",
    ResponseFormat.PLAIN: "plain",
    ResponseFormat.MONOSPACED: "preformatted",
}
"""extendedTextInteraction's format for each response format (ResponseFormat.NONE, files only,
has none: QTI 2.1's uploadInteraction is another kind of item)."""
DEFAULT_ESSAY_LINES = "10"
"""expectedLines of an essay with the default options: what items have always said (kept so that
they stay byte for byte the same). An essay with any option of its own writes its format and its
own lines; readers take an item without a format as the default essay."""


def _write_essay(ctx: _Ctx, body: Essay) -> None:
    # No correctResponse: Canvas would turn the essay into a short-answer question.
    _response_decl(ctx.item, "RESPONSE", "single", "string", [])
    attrs = {"responseIdentifier": "RESPONSE", "expectedLines": DEFAULT_ESSAY_LINES}
    if (body.response_format, body.lines) != (Essay.response_format, Essay.lines):
        attrs["expectedLines"] = str(body.lines)
        attrs["format"] = ESSAY_FORMATS.get(body.response_format, "xhtml")
    if not body.required:
        # minStrings 0 is QTI's default (a response is never required there); written out, it
        # says "optional" for readers, which take an item without it as required (Moodle's default).
        attrs["minStrings"] = "0"
    if isinstance(body.template, str):
        attrs["placeholderText"] = body.template
    _sub(ctx.body, "extendedTextInteraction", **attrs)
    if body.grader_info is not None:
        # For the person who grades, never the learner: QTI 2.1's scorer view.
        rubric = _sub(ctx.body, "rubricBlock", view="scorer")
        if isinstance(body.grader_info, str):
            _add_text(_sub(rubric, "p"), body.grader_info)
        else:
            ctx.renderer.blocks(body.grader_info, _sub(rubric, "div"))


# --------------------------------------------------------------------------- cloze
#
# A cloze item has one interaction per blank, where its Gap stands in the stem: a text or number
# blank is a textEntryInteraction (string / float), a drop-down choice blank an
# inlineChoiceInteraction, a vertical or horizontal one (and every `multiple` one: an inline
# choice takes one pick) a choiceInteraction with that orientation. A choiceInteraction is block
# content: the paragraph that holds one is written as a <div> (whose content model takes text,
# inline markup and block interactions alike), so the buttons stand where the blank is in the
# sentence, as Moodle's MULTICHOICE_V / _H do. Response processing computes each blank's credit
# (0..1) into BLANK_n, then SCORE = points x sum(weight x BLANK_n) / sum(weight).

_INLINE_TAGS = frozenset({"em", "strong", "a", "span", "code", "b", "i", "sub", "sup"})


def blank_response(n: int) -> str:
    """The response identifier of blank n (Canvas takes it as the blank's id)."""
    return f"RESPONSE_{n}"


def blank_outcome(n: int) -> str:
    """The outcome holding blank n's credit, 0..1."""
    return f"BLANK_{n}"


def blank_choice_id(n: int, i: int) -> str:
    """The identifier of choice i of blank n (and of the feedback its pick shows)."""
    return f"B{n}_C{i}"


def blank_answer_id(n: int, i: int) -> str:
    """The FEEDBACK identifier of answer (or key) i of text or number blank n."""
    return f"B{n}_A{i}"


def blank_other_id(n: int) -> str:
    """The FEEDBACK identifier of blank n's feedback for a response no answer matches."""
    return f"B{n}_OTHER"


def _cloze_feedback(body: Cloze) -> bool:
    """Whether any blank has feedback of its own."""
    for blank in body.blanks:
        if isinstance(blank, ChoiceBlank):
            if any(c.feedback is not None for c in blank.choices):
                return True
        else:
            items = blank.answers if isinstance(blank, TextBlank) else blank.keys
            if blank.other_feedback is not None or any(a.feedback is not None for a in items):
                return True
    return False


def _feedback_inline(ctx: _Ctx, parent: etree._Element, ident: str, text: Text) -> None:
    fb = _sub(parent, "feedbackInline", outcomeIdentifier="FEEDBACK", identifier=ident, showHide="show")
    ctx.inline_text(fb, text)


def _expected_length(blank: TextBlank | NumberBlank) -> str:
    if isinstance(blank, TextBlank):
        return str(max((len(a.text) for a in blank.answers), default=10) or 1)
    return str(
        max(len(num(v)) for k in blank.keys for v in ((k.answer,) if k.answer is not None else k.bounds))
    )


PLAIN_TEXTS_CLASS = "plain-texts"
"""The class of a cloze stem's <div> when every other text of the question is plain."""


def _plain_texts(question: Question) -> bool:
    """Whether a cloze's choices, feedback, explanation and hints are all plain texts."""
    texts = question_texts(question)[1:]
    return bool(texts) and all(isinstance(t, str) for t in texts)


def _write_gap(ctx: _Ctx, gap: Gap, parent: etree._Element) -> None:
    """Blank n's interaction where its Gap stands (Flavour.gap), and the feedback shown beside it:
    feedbackInline after a text entry or an inline choice, inside each simpleChoice otherwise."""
    body = ctx.question.body
    assert isinstance(body, Cloze)
    n = gap.n
    blank = body.blanks[n - 1]
    response = blank_response(n)
    if isinstance(blank, TextBlank | NumberBlank):
        _sub(
            parent,
            "textEntryInteraction",
            responseIdentifier=response,
            expectedLength=_expected_length(blank),
        )
        feedbacks = (
            [a.feedback for a in blank.answers]
            if isinstance(blank, TextBlank)
            else [k.feedback for k in blank.keys]
        )
        for i, feedback in enumerate(feedbacks, 1):
            if feedback is not None:
                _feedback_inline(ctx, parent, blank_answer_id(n, i), feedback)
        if blank.other_feedback is not None:
            _feedback_inline(ctx, parent, blank_other_id(n), blank.other_feedback)
        return
    ids = [blank_choice_id(n, i) for i in range(1, len(blank.choices) + 1)]
    if blank.display is ChoiceDisplay.DROPDOWN and not blank.multiple:
        ic = _sub(
            parent, "inlineChoiceInteraction", responseIdentifier=response, shuffle=_bool(blank.shuffle)
        )
        for ident, c in zip(ids, blank.choices, strict=True):
            choice = _sub(ic, "inlineChoice", identifier=ident)
            if c.lang:
                _mark_lang(choice, c.lang, ctx.lang)
            # inlineChoice holds text only (textOrVariable): a choice's markup is lost.
            words = plain_text(c.text)
            choice.text = words.replace("\n", " ")
            if "\n" in words:
                ctx.renderer.lost.append("the line breaks of a drop-down blank's choice (shown as spaces)")
            if _has_markup(c.text):
                ctx.renderer.lost.append(
                    "the markup of a drop-down blank's choice (an inlineChoice holds text only)"
                )
        for ident, c in zip(ids, blank.choices, strict=True):
            if c.feedback is not None:
                _feedback_inline(ctx, parent, ident, c.feedback)
        return
    ci = _sub(
        parent,
        "choiceInteraction",
        responseIdentifier=response,
        shuffle=_bool(blank.shuffle),
        maxChoices=str(len(blank.choices)) if blank.multiple else "1",
        orientation="horizontal" if blank.display is ChoiceDisplay.HORIZONTAL else "vertical",
    )
    _simple_choices(ctx, ci, [(ids[i], c.text, c.lang, c.feedback) for i, c in enumerate(blank.choices)])


def _lift_block_interactions(root: etree._Element) -> None:
    """Give each choiceInteraction of a cloze stem a parent that may hold it: an inline element
    around it is split in two around it, and the paragraph holding it becomes a <div>."""
    for ci in list(root.iter(_q("choiceInteraction"))):
        while True:
            parent = ci.getparent()
            assert parent is not None
            local = etree.QName(parent).localname
            if local in _INLINE_TAGS:
                _split_around(parent, ci)
                continue
            if local == "p":
                parent.tag = _q("div")
            break


def _split_around(el: etree._Element, child: etree._Element) -> None:
    """el(a, child, b) -> el(a) child el(b); an empty second half is dropped."""
    outer = el.getparent()
    assert outer is not None
    after = etree.Element(el.tag, dict(el.attrib))
    after.text = child.tail
    child.tail = None
    for sibling in list(child.itersiblings()):
        after.append(sibling)
    el.remove(child)
    at = outer.index(el)
    after.tail, el.tail = el.tail, None
    outer.insert(at + 1, child)
    if after.text or len(after):
        outer.insert(at + 2, after)
    else:
        child.tail = after.tail


def _blank_declaration(ctx: _Ctx, n: int, blank: TextBlank | NumberBlank | ChoiceBlank) -> None:
    response = blank_response(n)
    if isinstance(blank, TextBlank):
        full = next((a for a in blank.answers if is_full(a.credit)), None)
        # The correct response is a response that matches: a wildcard's text without its stars.
        correct = [full.text.replace("*", "") if full.wildcard else full.text] if full else []
        _response_decl(ctx.item, response, "single", "string", [c for c in correct if c])
    elif isinstance(blank, NumberBlank):
        key = blank.key
        _response_decl(
            ctx.item, response, "single", "float", [num(key.answer)] if key.answer is not None else []
        )
    elif blank.multiple:
        ids = [blank_choice_id(n, i) for i in range(1, len(blank.choices) + 1)]
        decl = _response_decl(
            ctx.item, response, "multiple", "identifier", [ids[i] for i in blank.key_indexes]
        )
        # Each pick adds its credit; the blank's total is clamped to [0, 1] (a MultipleChoice).
        _mapping(decl, [(ids[i], c.credit) for i, c in enumerate(blank.choices)], 1.0)
    else:
        ids = [blank_choice_id(n, i) for i in range(1, len(blank.choices) + 1)]
        credits = [c.credit for c in blank.choices]
        best = max(credits)
        decl = _response_decl(
            ctx.item, response, "single", "identifier", [ids[credits.index(best)]] if best > 0 else []
        )
        entries = [(ids[i], c) for i, c in enumerate(credits) if c != 0.0]
        _mapping(decl, entries or [(ids[0], 0.0)], 1.0, lower=min(0.0, *credits))


def _blank_processing(ctx: _Ctx, n: int, blank: TextBlank | NumberBlank | ChoiceBlank) -> None:
    """BLANK_n = the blank's credit, and FEEDBACK += the feedback it shows.

    A text or number blank: its answers (keys) in order, the first that matches counting (as a
    ShortAnswer or Numerical); unanswered scores 0 and shows nothing; no match: the other-answer
    feedback. A choice blank: mapResponse (the pick's credit; the picks' credits clamped to
    [0, 1] when multiple), FEEDBACK += the picked choices."""
    response, outcome = blank_response(n), blank_outcome(n)
    if isinstance(blank, ChoiceBlank):
        _sub(_sub(ctx.rp, "setOutcomeValue", identifier=outcome), "mapResponse", identifier=response)
        if any(c.feedback is not None for c in blank.choices):
            multiple = _sub(_sub(ctx.rp, "setOutcomeValue", identifier="FEEDBACK"), "multiple")
            _var(multiple, "FEEDBACK")
            _var(multiple, response)
        return
    if isinstance(blank, TextBlank):
        branches = [
            (answer_condition(a, blank.case_sensitive, response), a.credit, a.feedback) for a in blank.answers
        ]
    else:
        branches = [(key_condition(k, response), k.credit, k.feedback) for k in blank.keys]
    cond = _sub(ctx.rp, "responseCondition")
    unanswered = _sub(cond, "responseIf")
    _var(_sub(unanswered, "isNull"), response)
    _base(_sub(unanswered, "setOutcomeValue", identifier=outcome), "float", "0")
    for i, (condition, credit, feedback) in enumerate(branches, 1):
        branch = _sub(cond, "responseElseIf")
        condition(branch)
        _base(_sub(branch, "setOutcomeValue", identifier=outcome), "float", num(credit))
        if feedback is not None:
            _add_feedback(branch, blank_answer_id(n, i))
    otherwise = _sub(cond, "responseElse")
    _base(_sub(otherwise, "setOutcomeValue", identifier=outcome), "float", "0")
    if blank.other_feedback is not None:
        _add_feedback(otherwise, blank_other_id(n))


def _write_cloze(ctx: _Ctx, body: Cloze) -> None:
    """The blanks' declarations and processing (their interactions are in the stem: _write_gap),
    then SCORE: each blank's credit times its share of the points."""
    q = ctx.question
    for n, blank in enumerate(body.blanks, 1):
        _blank_declaration(ctx, n, blank)
    for n, blank in enumerate(body.blanks, 1):
        _blank_processing(ctx, n, blank)
    # SCORE = points x sum(weight_n x BLANK_n) / sum(weight_n), the weights written as they are.
    score = _sub(_sub(ctx.rp, "setOutcomeValue", identifier="SCORE"), "divide")
    product = _sub(score, "product")
    _base(product, "float", num(q.points))
    total = _sub(product, "sum")
    for n, blank in enumerate(body.blanks, 1):
        weighted = _sub(total, "product")
        _base(weighted, "integer", str(blank.weight))
        _var(weighted, blank_outcome(n))
    _base(score, "float", str(body.total_weight))
    # Nothing clamped: qtype_multianswer_question::grade_response() does not, so a negative choice
    # blank can make the question's score negative (scoring.cloze_credit; normalMinimum says how far).


# --------------------------------------------------------------------------- ordering

ORDER_RIGHT = "ORDER_RIGHT"
"""Outcome of an ordering item with partial credit: qtype_ordering's countcorrect (the items,
item relations or subset length the response gets right)."""
GRADING_INTERPRETATION = "countcorrect of qtype_ordering grading "
"""How ORDER_RIGHT's interpretation names the grading (followed by its source spelling)."""
ORDER_BEST = "ORDER_BEST"
"""Outcome: the longest subset found so far (longest_ordered_subset / longest_contiguous_subset)."""
ORDER_DISTANCE = "ORDER_DISTANCE"
"""Outcome: how far an item is from its right position (relative_to_correct)."""


def order_item_id(i: int) -> str:
    """The simpleChoice identifier of an ordering's i-th item (1-based, in the right order)."""
    return f"I{i}"


def order_position(i: int) -> str:
    """The outcome holding where the response puts item i (1-based; 0 while unanswered)."""
    return f"POS_{i}"


def order_run(i: int) -> str:
    """The outcome holding the longest subset that ends with item i (the longest gradings)."""
    return f"RUN_{i}"


def ordering_outcomes(body: Ordering) -> list[tuple[str, str]]:
    """(identifier, baseType) of the outcomes an ordering's response processing uses."""
    n = len(body.items)
    g = body.grading
    if g is OrderingGrading.ALL_OR_NOTHING:
        return []
    out = [(ORDER_RIGHT, "integer")]
    if g is OrderingGrading.ABSOLUTE_POSITION:
        return out
    out += [(order_position(i), "integer") for i in range(1, n + 1)]
    if g in (OrderingGrading.LONGEST_ORDERED_SUBSET, OrderingGrading.LONGEST_CONTIGUOUS_SUBSET):
        out += [(order_run(i), "integer") for i in range(1, n + 1)] + [(ORDER_BEST, "integer")]
    if g is OrderingGrading.RELATIVE_TO_CORRECT:
        out.append((ORDER_DISTANCE, "integer"))
    return out


_ADJACENCY = frozenset(
    {
        OrderingGrading.RELATIVE_NEXT_EXCLUDE_LAST,
        OrderingGrading.RELATIVE_NEXT_INCLUDE_LAST,
        OrderingGrading.RELATIVE_ONE_PREVIOUS_AND_NEXT,
    }
)
"""Gradings that only ask which items stand next to which."""


def _ordering_answers(grading: OrderingGrading, n: int) -> int:
    """qtype_ordering_question::grade_response()'s countanswers for n items (scoring.py)."""
    match grading:
        case OrderingGrading.ALL_OR_NOTHING | OrderingGrading.ABSOLUTE_POSITION:
            return n
        case OrderingGrading.RELATIVE_NEXT_EXCLUDE_LAST:
            return n - 1
        case OrderingGrading.RELATIVE_NEXT_INCLUDE_LAST:
            return n
        case OrderingGrading.RELATIVE_ONE_PREVIOUS_AND_NEXT:
            return 2 * n
        case OrderingGrading.RELATIVE_ALL_PREVIOUS_AND_NEXT | OrderingGrading.RELATIVE_TO_CORRECT:
            return n * (n - 1)
        case OrderingGrading.LONGEST_ORDERED_SUBSET | OrderingGrading.LONGEST_CONTIGUOUS_SUBSET:
            return n
        case _:
            assert_never(grading)


def _set_int(parent: etree._Element, ident: str) -> etree._Element:
    """setOutcomeValue ident = <the expression appended to the returned element>."""
    return _sub(parent, "setOutcomeValue", identifier=ident)


def _add_int(parent: etree._Element, ident: str, amount: Callable[[etree._Element], None]) -> None:
    """ident = ident + amount."""
    total = _sub(_set_int(parent, ident), "sum")
    _var(total, ident)
    amount(total)


def _one(parent: etree._Element) -> None:
    _base(parent, "integer", "1")


def _count_if(rp: etree._Element, condition: Callable[[etree._Element], None]) -> None:
    """if condition: ORDER_RIGHT += 1."""
    branch = _sub(_sub(rp, "responseCondition"), "responseIf")
    condition(branch)
    _add_int(branch, ORDER_RIGHT, _one)


def _at(parent: etree._Element, position: int, ident: str) -> None:
    """match(index(RESPONSE, position), ident): the response puts item ident at position."""
    match = _sub(parent, "match")
    _var(_sub(match, "index", n=str(position)), "RESPONSE")
    _base(match, "identifier", ident)


def _adjacent(parent: etree._Element, first: int, second: int) -> None:
    """POS_second == POS_first + 1: item second stands right after item first. (QTI 2.1's
    ``contains`` of an ordered pair says the same, but engines disagree on which operand holds
    the other: pyslet 0.7 tests the reverse; positions and integer match are read alike.)"""
    match = _sub(parent, "match")
    _var(match, order_position(second))
    after = _sub(match, "sum")
    _var(after, order_position(first))
    _one(after)


def _compare(parent: etree._Element, op: str, left: str, right: str | int) -> None:
    """op(variable left, variable right | integer right); op "": the two into parent itself."""
    cmp = _sub(parent, op) if op else parent
    _var(cmp, left)
    if isinstance(right, int):
        _base(cmp, "integer", str(right))
    else:
        _var(cmp, right)


def _ordering_counts(rp: etree._Element, body: Ordering, ids: list[str]) -> None:
    """ORDER_RIGHT = qtype_ordering's countcorrect for the grading (see scoring._ordering_counts)."""
    n = len(ids)
    g = body.grading
    if g is OrderingGrading.ABSOLUTE_POSITION:
        for i, ident in enumerate(ids, 1):
            _count_if(rp, functools.partial(_at, position=i, ident=ident))
        return
    # POS_i = where the response puts item i.
    for position in range(1, n + 1):
        cond = _sub(rp, "responseCondition")
        for i, ident in enumerate(ids, 1):
            branch = _sub(cond, "responseIf" if i == 1 else "responseElseIf")
            _at(branch, position, ident)
            _base(_set_int(branch, order_position(i)), "integer", str(position))
    if g in _ADJACENCY:
        # An item followed by its right successor; with include_last the last item last; with
        # one_previous_and_next also each item preceded by its right predecessor, the first first.
        times = 2 if g is OrderingGrading.RELATIVE_ONE_PREVIOUS_AND_NEXT else 1
        for k in range(1, n):
            for _ in range(times):
                _count_if(rp, functools.partial(_adjacent, first=k, second=k + 1))
        if g is not OrderingGrading.RELATIVE_NEXT_EXCLUDE_LAST:
            _count_if(rp, lambda b: _compare(_sub(b, "match"), "", order_position(n), n))
        if g is OrderingGrading.RELATIVE_ONE_PREVIOUS_AND_NEXT:
            _count_if(rp, lambda b: _compare(_sub(b, "match"), "", order_position(1), 1))
        return
    if g is OrderingGrading.RELATIVE_ALL_PREVIOUS_AND_NEXT:
        # Each pair of items in the right relative order counts twice: the earlier one is among
        # the later one's previous items, the later among the earlier's next ones.
        for i in range(1, n + 1):
            for j in range(i + 1, n + 1):
                branch = _sub(_sub(rp, "responseCondition"), "responseIf")
                _compare(branch, "lt", order_position(i), order_position(j))
                _add_int(branch, ORDER_RIGHT, lambda t: _base(t, "integer", "2"))
        return
    if g is OrderingGrading.RELATIVE_TO_CORRECT:
        # Each item earns (n - 1) - its distance from its right position, when that is positive.
        for i in range(1, n + 1):
            cond = _sub(rp, "responseCondition")
            later = _sub(cond, "responseIf")
            _compare(later, "gt", order_position(i), i)
            diff = _sub(_set_int(later, ORDER_DISTANCE), "subtract")
            _var(diff, order_position(i))
            _base(diff, "integer", str(i))
            diff = _sub(_set_int(_sub(cond, "responseElse"), ORDER_DISTANCE), "subtract")
            _base(diff, "integer", str(i))
            _var(diff, order_position(i))
            near = _sub(_sub(rp, "responseCondition"), "responseIf")
            _compare(near, "lt", ORDER_DISTANCE, n - 1)

            def remaining(total: etree._Element) -> None:
                rest = _sub(total, "subtract")
                _base(rest, "integer", str(n - 1))
                _var(rest, ORDER_DISTANCE)

            _add_int(near, ORDER_RIGHT, remaining)
        return
    # The longest subsets (get_ordered_subset): RUN_i = the longest one ending with item i, items
    # in right order at increasing positions; contiguous: only runs of consecutive items.
    contiguous = g is OrderingGrading.LONGEST_CONTIGUOUS_SUBSET
    for i in range(1, n + 1):
        _base(_set_int(rp, order_run(i)), "integer", "1")
        for j in range(i - 1 if contiguous else 1, i):
            if j < 1:
                continue
            branch = _sub(_sub(rp, "responseCondition"), "responseIf")
            both = _sub(branch, "and")
            _compare(both, "lt", order_position(j), order_position(i))
            longer = _sub(both, "gte")
            _var(longer, order_run(j))
            _var(longer, order_run(i))
            total = _sub(_set_int(branch, order_run(i)), "sum")
            _var(total, order_run(j))
            _one(total)
        branch = _sub(_sub(rp, "responseCondition"), "responseIf")
        _compare(branch, "gt", order_run(i), ORDER_BEST)
        _var(_set_int(branch, ORDER_BEST), order_run(i))
    # A one-item subset counts as none (get_ordered_subset's bestcount starts at 1).
    branch = _sub(_sub(rp, "responseCondition"), "responseIf")
    _compare(branch, "gt", ORDER_BEST, 1)
    _var(_set_int(branch, ORDER_RIGHT), ORDER_BEST)


def _write_ordering(ctx: _Ctx, body: Ordering) -> None:
    """An orderInteraction: the items as simpleChoices in their right order, shuffled by the player
    (always: shown in order they would give the answer away), oriented by the layout; an ordered
    response whose correct response is the right order.

    Response processing computes each of qtype_ordering's gradings (question.php grade_response,
    as lmsexport.scoring transcribes it): all_or_nothing matches the correct response; the others
    count into ORDER_RIGHT (items at their position with ``index``; neighbours with ``contains``
    of an ordered pair; relations, distances and longest subsets from each item's position) and
    SCORE = points x ORDER_RIGHT / countanswers. An unanswered item scores 0."""
    q = ctx.question
    ids = [order_item_id(i) for i in range(1, len(body.items) + 1)]
    _response_decl(ctx.item, "RESPONSE", "ordered", "identifier", ids)
    oi = _sub(
        ctx.body,
        "orderInteraction",
        responseIdentifier="RESPONSE",
        shuffle="true",
        orientation=body.layout.value,
    )
    for ident, text in zip(ids, body.items, strict=True):
        ctx.text(_sub(oi, "simpleChoice", identifier=ident), text)
    if body.grading is OrderingGrading.ALL_OR_NOTHING:

        def matches_correct(parent: etree._Element) -> None:
            match = _sub(parent, "match")
            _var(match, "RESPONSE")
            _sub(match, "correct", identifier="RESPONSE")

        _score_if(ctx.rp, q.points, matches_correct)
        return
    answered = _sub(_sub(ctx.rp, "responseCondition"), "responseIf")
    _var(_sub(_sub(answered, "not"), "isNull"), "RESPONSE")
    _ordering_counts(answered, body, ids)
    score = _sub(_set_int(answered, "SCORE"), "divide")
    product = _sub(score, "product")
    _base(product, "float", num(q.points))
    _var(product, ORDER_RIGHT)
    _base(score, "float", str(_ordering_answers(body.grading, len(ids))))


def _write_description(ctx: _Ctx) -> None:
    """Nothing to answer: the stem is the item (an itemBody without interaction is valid QTI 2.1,
    and needs no responseDeclaration)."""


def _write_body(ctx: _Ctx) -> None:
    """The declaration, interaction and response processing of the question's kind."""
    match ctx.question.body:
        case SingleChoice() as body:
            _write_single(ctx, body)
        case MultipleChoice() as body:
            _write_multiple(ctx, body)
        case TrueFalse() as body:
            _write_true_false(ctx, body)
        case ShortAnswer() as body:
            _write_short_answer(ctx, body)
        case Numerical() as body:
            _write_numerical(ctx, body)
        case Matching() as body:
            _write_matching(ctx, body)
        case Essay() as body:
            _write_essay(ctx, body)
        case Cloze() as body:
            _write_cloze(ctx, body)
        case Ordering() as body:
            _write_ordering(ctx, body)
        case Description():
            _write_description(ctx)
        case Calculated() | CalculatedChoice():
            # One question, K items: item_questions gives the variants, each an ordinary question.
            raise TypeError(f"{ctx.question.id}: a parametric question is written as its variants")
        case _:
            assert_never(ctx.question.body)


def _bool(value: bool) -> str:
    return "true" if value else "false"


# --------------------------------------------------------------------------- item and test


def item_tree(quiz: Quiz, question: Question) -> etree._Element:
    """One assessmentItem for a question of any type; valid against imsqti_v2p1.xsd."""
    key = _shape(quiz, question)
    return _build(quiz, question).tree if key is None else _skeleton(key, quiz, question).fill(question)


@dataclass(frozen=True)
class BuiltItem:
    tree: etree._Element
    """The assessmentItem."""
    lost: tuple[str, ...] = ()
    """What the item could not carry of the question's rich texts, for warnings."""


def build_item(quiz: Quiz, question: Question) -> BuiltItem:
    """The item and what it lost.

    Built by filling a copy of a cached skeleton when the question's type allows it (see
    _Skeleton): the same tree as build_item_tree, element for element, at about a fifth of
    the cost.
    """
    key = _shape(quiz, question)
    if key is None:
        return _build(quiz, question)
    return BuiltItem(_skeleton(key, quiz, question).fill(question))


def _skeleton(key: tuple[object, ...], quiz: Quiz, question: Question) -> _Skeleton:
    skeleton = _SKELETONS.get(key)
    if skeleton is None:
        skeleton = _Skeleton.make(quiz, question)
        if len(_SKELETONS) < _SKELETON_CACHE_MAX:
            _SKELETONS[key] = skeleton
    return skeleton


def build_item_tree(quiz: Quiz, question: Question) -> etree._Element:
    """item_tree built element by element: the definition item_tree's fast path must match."""
    return _build(quiz, question).tree


def _build(quiz: Quiz, question: Question) -> BuiltItem:
    lang = quiz.lang_of(question)
    item = etree.Element(_q("assessmentItem"), nsmap=NSMAP)
    item.set(f"{{{XSI_NS}}}schemaLocation", SCHEMA_LOCATION)
    for name, value in (
        ("identifier", question.id),
        ("title", item_title(question)),
        ("adaptive", "false"),
        ("timeDependent", "false"),
        ("toolName", TOOL_NAME),
        ("toolVersion", __version__),
    ):
        item.set(name, value)
    item.set(XML_LANG, lang)

    # Declarations must precede the body in the schema's sequence, but only the type writer
    # knows them: build the body and the processing detached, then append in schema order.
    body = etree.Element(_q("itemBody"), {"class": direction(lang)})
    qbody = question.body
    holder: list[_Ctx] = []
    if isinstance(qbody, Cloze):
        # A cloze stem's gaps are the blanks' interactions.
        renderer = Renderer(replace(FLAVOUR, gap=lambda gap, parent: _write_gap(holder[0], gap, parent)))
    else:
        renderer = Renderer(FLAVOUR)
    rp = etree.Element(_q("responseProcessing"))
    ctx = _Ctx(quiz, question, lang, item, body, rp, renderer)
    holder.append(ctx)
    if isinstance(question.stem, str):
        _add_text(_sub(body, "p"), question.stem)
    else:
        # Canvas takes the question text from itemBody's <p> and <div> children only
        # (assessment_item_converter.rb): a table or list straight under itemBody would be lost.
        stem = _sub(body, "div")
        renderer.blocks(question.stem, stem)
        if isinstance(qbody, Cloze):
            _lift_block_interactions(stem)
            if _plain_texts(question):
                # A cloze stem is rich whatever the source's markup; this says the blanks' texts
                # are plain (a reader cannot tell a plain choice from a one-word rich one).
                stem.set("class", PLAIN_TEXTS_CLASS)
    _write_body(ctx)

    choice_ids = (
        isinstance(qbody, SingleChoice | MultipleChoice)
        and _choice_feedback(qbody.choices)
        or isinstance(qbody, TrueFalse)
        and (qbody.feedback_true is not None or qbody.feedback_false is not None)
    )
    explanation = bool(question.explanation)
    if choice_ids or explanation:
        response = (TF_RESPONSE if isinstance(qbody, TrueFalse) else "RESPONSE") if choice_ids else None
        # A graded chain (or a cloze's blanks) has set FEEDBACK to the matching answer's id
        # already: keep it.
        _set_feedback(rp, response, explanation, keep=bool(ctx.feedback) or isinstance(qbody, Cloze))
    combined = [
        (ident, text)
        for ident, text in (
            (CORRECT_ID, question.feedback.correct),
            (PARTIAL_ID, question.feedback.partial),
            (INCORRECT_ID, question.feedback.incorrect),
        )
        if text is not None
    ]
    if combined:
        _set_combined_feedback(rp)
    hints = question.hints
    if hints:
        _hint_processing(ctx)
    blank_feedback = isinstance(qbody, Cloze) and _cloze_feedback(qbody)
    feedback = bool(choice_ids or explanation or ctx.feedback or combined or hints or blank_feedback)
    if isinstance(qbody, Description):
        _description_outcomes(item, feedback)
    else:
        _outcomes(item, question.points, feedback)
    if isinstance(qbody, Cloze):
        for n in range(1, len(qbody.blanks) + 1):
            _float_outcome(item, blank_outcome(n), "float")
    elif isinstance(qbody, Ordering):
        for ident, base_type in ordering_outcomes(qbody):
            _float_outcome(item, ident, base_type)
            if ident == ORDER_RIGHT:
                # Two gradings can be one computation (2 items); readers take the name from here.
                decl = item[-1]
                decl.set("interpretation", f"{GRADING_INTERPRETATION}{qbody.grading.value}")
    if hints:
        item.set("adaptive", "true")
        hints_taken = _sub(
            item, "outcomeDeclaration", identifier=HINTS_TAKEN, cardinality="single", baseType="integer"
        )
        _sub(_sub(hints_taken, "defaultValue"), "value", "0")
    if isinstance(qbody, SingleChoice) and min(qbody.credits, default=0.0) < 0:
        score = item.find(_q("outcomeDeclaration"))
        assert score is not None and score.get("identifier") == "SCORE"
        score.set("normalMinimum", num(min(qbody.credits) * question.points))
    if isinstance(qbody, Cloze) and cloze_min_credit(qbody) < 0:
        score = item.find(_q("outcomeDeclaration"))
        assert score is not None and score.get("identifier") == "SCORE"
        score.set("normalMinimum", num(cloze_min_credit(qbody) * question.points))
    _sub(item, "stylesheet", href=STYLESHEET_HREF, type="text/css")
    item.append(body)
    if len(rp):
        item.append(rp)
    modal = [(EXPLANATION_ID, question.explanation)] if question.explanation else []
    modal += ctx.feedback + combined
    modal += [(hint_id(n), h.text) for n, h in enumerate(hints, 1)]
    for ident, text in modal:
        assert text is not None
        fb = _sub(item, "modalFeedback", outcomeIdentifier="FEEDBACK", identifier=ident, showHide="show")
        # modalFeedback has no class or xml:lang: its one child carries the direction.
        if isinstance(text, str):
            p = _sub(fb, "p")
            p.set("class", direction(lang))
            _add_text(p, text)
        else:
            renderer.blocks(text, _sub(fb, "div", **{"class": direction(lang)}))
    if not _is_plain(question):
        _finish_rich(item)
    return BuiltItem(item, tuple(dict.fromkeys(renderer.lost)))


# --------------------------------------------------------------------------- item skeletons
#
# lxml costs ~3-7 us to create an element from Python and a question's item has ~40 of them,
# while copying a whole prebuilt tree costs ~0.6 us an element (libxml2's own node copy). So
# items of one *shape* share a skeleton: build_item_tree run once on a stand-in question whose
# every text field is a unique placeholder, with the slots (element, text/tail/attribute) where
# each placeholder landed recorded. A question's item is then a deep copy of its shape's
# skeleton with the real strings set into the slots through the same lxml setters
# build_item_tree uses, so the tree (and its serialisation) is the same.
#
# The shape holds everything that decides structure or a constant: the type, points, shuffle,
# the languages, which optional texts are present (empty counts as absent, as in the builder)
# and each text's number of lines (a line break is a <br/> element). Only types whose structure
# depends on nothing else take this path: single, multiple, true/false, essay, and a numerical
# question of one full-credit key without feedback (a calculated question's variants), whose
# numbers are slots too: num() writes a placeholder for the stand-in key's own float objects
# (_NUMBER_STAND_INS, by identity) and _fields the numbers num() writes for the real key. Short
# answer (keys deduplicated by text, expectedLength from text lengths), graded numerical and
# matching (rights deduplicated by text) are built element by element.

_PLACEHOLDER = "\ue000{}\ue001"
"""Private-use characters: no constant the builder writes contains them."""
_SKELETON_CACHE_MAX = 4096
"""Shapes kept per process; past it a shape's skeleton is built for one item and dropped."""
_FAST_TYPES = frozenset(
    {
        QuestionType.SINGLE,
        QuestionType.MULTIPLE,
        QuestionType.TRUE_FALSE,
        QuestionType.ESSAY,
        QuestionType.NUMERICAL,
    }
)
_NUMBER_STAND_INS: dict[int, str] = {}
"""While a skeleton is made: the id of each float of its stand-in key -> its placeholder."""
_EXTRAS_TYPES = frozenset({QuestionType.SINGLE, QuestionType.MULTIPLE, QuestionType.NUMERICAL})
"""Types whose skeleton holds the combined feedback, hints and penalty too (each present text
a slot, which are present and the penalty part of the shape): a choice question with credits
and Moodle's combined feedback, as most exported banks hold them."""


def _lines(text: Text | None) -> int:
    """How a text shapes the tree: 0 when the builder leaves it out (None or empty), else its lines."""
    return text.count("\n") + 1 if isinstance(text, str) and text else 0


def _given_lines(text: Text | None) -> int:
    """As _lines for a text the builder writes whenever it is not None (empty too)."""
    return text.count("\n") + 1 if isinstance(text, str) else 0


def _extras_shape(question: Question) -> tuple[object, ...]:
    """How the combined feedback, hints and penalty shape the tree (see _EXTRAS_TYPES)."""
    fb = question.feedback
    return (
        tuple(_given_lines(t) for t in (fb.correct, fb.partial, fb.incorrect)),
        tuple(_given_lines(h.text) for h in question.hints),
        question.penalty,
    )


def _shape(quiz: Quiz, question: Question) -> tuple[object, ...] | None:
    # Only plain texts: a rich text's structure is its tree (isinstance also narrows for mypy).
    stem = question.stem
    if question.type not in _FAST_TYPES or not isinstance(stem, str) or not _is_plain(question):
        return None
    if _has_extras(question) and (question.type not in _EXTRAS_TYPES or _body_extras(question)):
        return None
    body = question.body
    choices = body.choices if isinstance(body, SingleChoice | MultipleChoice) else ()
    return (
        _extras_shape(question),
        question.type,
        question.points,
        quiz.shuffle,
        quiz.lang_of(question),
        body.truth if isinstance(body, TrueFalse) else None,
        body.key.answer is None if isinstance(body, Numerical) else None,  # a range alone
        stem.count("\n") + 1,  # the stem is written even when empty
        _lines(question.explanation),
        tuple(
            (c.credit, c.lang, c.text.count("\n") + 1 if isinstance(c.text, str) else 0, _lines(c.feedback))
            for c in choices
        ),
    )


def _fields(question: Question) -> list[str]:
    """Every string a skeleton's slots take, in placeholder order (see _Skeleton.make)."""
    # isinstance narrows for mypy: only plain questions take the fast path (_shape).
    stem, explanation = question.stem, question.explanation
    assert isinstance(stem, str)
    out = [question.id, *stem.split("\n")]
    if isinstance(explanation, str) and explanation:
        out += explanation.split("\n")
    body = question.body
    for c in body.choices if isinstance(body, SingleChoice | MultipleChoice) else ():
        if isinstance(c.text, str):
            out += c.text.split("\n")
        if isinstance(c.feedback, str) and c.feedback:
            out += c.feedback.split("\n")
    if isinstance(body, Numerical):
        key = body.key
        if key.answer is not None:
            out.append(num(key.answer))
        out += [num(bound) for bound in key.bounds]
    fb = question.feedback
    for text in (fb.correct, fb.partial, fb.incorrect, *(h.text for h in question.hints)):
        if isinstance(text, str):
            out += text.split("\n")
    return out


_Slot = tuple[int, str | None, int]
"""(element index in document order, attribute name or None for text or "" for tail, field index)."""


@dataclass(frozen=True)
class _Skeleton:
    tree: etree._Element
    slots: tuple[_Slot, ...]
    elements: tuple[int, ...]
    """The indexes (document order) of the elements that hold a slot."""

    @staticmethod
    def make(quiz: Quiz, question: Question) -> _Skeleton:
        counter = iter(range(1 << 30))

        def ph(text: Text) -> str:
            assert isinstance(text, str)  # _shape sends rich texts to the builder
            return "\n".join(_PLACEHOLDER.format(next(counter)) for _ in text.split("\n"))

        # Same order as _fields: id, stem, explanation, each choice's text and feedback, a
        # numerical key's numbers, the combined feedback, the hints.
        id_, stem = ph(question.id), ph(question.stem)
        explanation = ph(question.explanation) if question.explanation else question.explanation
        body = question.body
        if isinstance(body, SingleChoice | MultipleChoice):
            body = replace(
                body,
                choices=tuple(
                    replace(c, text=ph(c.text), feedback=ph(c.feedback) if c.feedback else c.feedback)
                    for c in body.choices
                ),
            )
        numbers: dict[int, str] = {}
        if isinstance(body, Numerical):
            # The key's numbers, as _fields gives them: the answer (when there is one), then the
            # bounds, here set apart (key.bounds gives these very objects). Fresh floats: their
            # ids are no other number's while they live.
            old = body.key
            answer = float("1.5") if old.answer is not None else None
            low, high = float("1.25"), float("1.75")
            for value in (answer, low, high):
                if value is not None:
                    numbers[id(value)] = _PLACEHOLDER.format(next(counter))
            key = replace(old, answer=answer, low=low, high=high, tolerance=0.0)
            body = replace(body, keys=(key,))
        fb = question.feedback
        feedback = replace(
            fb,
            correct=ph(fb.correct) if fb.correct is not None else None,
            partial=ph(fb.partial) if fb.partial is not None else None,
            incorrect=ph(fb.incorrect) if fb.incorrect is not None else None,
        )
        hints = tuple(replace(h, text=ph(h.text)) for h in question.hints)
        stand_in = replace(
            question, id=id_, stem=stem, explanation=explanation, body=body, feedback=feedback, hints=hints
        )
        n_fields = next(counter)
        _NUMBER_STAND_INS.update(numbers)
        try:
            tree = build_item_tree(quiz, stand_in)
        finally:
            _NUMBER_STAND_INS.clear()
        index = {_PLACEHOLDER.format(i): i for i in range(n_fields)}
        slots: list[_Slot] = []
        for i, el in enumerate(tree.iter()):
            for kind, value in ((None, el.text), ("", el.tail)):
                if value is not None and "\ue000" in value:
                    slots.append((i, kind, index[value]))
            for name, value in el.attrib.items():
                if "\ue000" in value and not (i == 0 and name == "title"):
                    slots.append((i, name, index[value]))
        # Every field lands in exactly one slot, whole (a KeyError above means one was altered).
        if sorted(f for _, _, f in slots) != list(range(n_fields)):
            raise AssertionError(f"item skeleton for {question.type.value}: fields and slots differ")
        return _Skeleton(tree, tuple(slots), tuple(sorted({i for i, _, _ in slots})))

    def fill(self, question: Question) -> etree._Element:
        item = copy.deepcopy(self.tree)
        values = _fields(question)
        wanted = self.elements
        els: dict[int, etree._Element] = {}
        j = 0
        for i, el in enumerate(item.iter()):
            if i == wanted[j]:
                els[i] = el
                j += 1
                if j == len(wanted):
                    break
        for i, kind, f in self.slots:
            if kind is None:
                els[i].text = values[f]
            elif kind == "":
                els[i].tail = values[f]
            else:
                els[i].set(kind, values[f])
        item.set("title", item_title(question))
        return item


_SKELETONS: dict[tuple[object, ...], _Skeleton] = {}


def item_path(question: Question) -> str:
    return f"{ITEM_DIR}/{question.id}.xml"


def test_path(quiz: Quiz | Assessment) -> str:
    return f"{TEST_DIR}/{quiz.id}.xml"


def _test_part(ident: str, title: str) -> tuple[etree._Element, etree._Element]:
    """An assessmentTest with SCORE and MAXSCORE and one nonlinear testPart: (test, part)."""
    test = etree.Element(_q("assessmentTest"), nsmap=NSMAP)
    test.set(f"{{{XSI_NS}}}schemaLocation", SCHEMA_LOCATION)
    for name, value in (
        ("identifier", ident),
        ("title", title),
        ("toolName", TOOL_NAME),
        ("toolVersion", __version__),
    ):
        test.set(name, value)
    for name in ("SCORE", "MAXSCORE"):
        decl = _sub(test, "outcomeDeclaration", identifier=name, cardinality="single", baseType="float")
        _sub(_sub(decl, "defaultValue"), "value", "0")
    part = _sub(test, "testPart", identifier="part1", navigationMode="nonlinear", submissionMode="individual")
    # showFeedback defaults to false inside a test, which would hide every explanation.
    _sub(part, "itemSessionControl", showFeedback="true")
    return test, part


def _outcome_processing(test: etree._Element, weight: str | None) -> None:
    """SCORE and MAXSCORE: the sums of the items' (weighted by ``weight`` when given)."""
    processing = _sub(test, "outcomeProcessing")
    for name in ("SCORE", "MAXSCORE"):
        attrs = {"variableIdentifier": name}
        if weight is not None:
            attrs["weightIdentifier"] = weight
        _sub(_sub(_sub(processing, "setOutcomeValue", identifier=name), "sum"), "testVariables", **attrs)


# --------------------------------------------------------------------------- parametric questions
#
# No QTI 2.1 player computes a formula lmsexport can rely on (templates run in QTIworks and, in
# part, pyslet; Canvas ignores them: shared/reference/parametric-notes.md §3), so a parametric
# question is its K variants as ordinary items (variants.instantiate: item identifiers
# `<id>-v001`) in an invisible sub-section with `<selection select="1"/>` where the question
# stands: a QTI player draws one variant per attempt, and Canvas makes the sub-section a question
# group picking 1 (assessment_test_converter.rb process_section). No `<ordering>`: one item is
# selected, so there is nothing to order, and Canvas reads `ordering shuffle="true"` as "shuffle
# answers" for the whole quiz.


def is_parametric(question: Question) -> bool:
    return isinstance(question.body, Calculated | CalculatedChoice)


def item_questions(question: Question) -> tuple[Question, ...]:
    """The questions a question's items are built from: its variants, or itself."""
    body = question.body
    if isinstance(body, Calculated | CalculatedChoice):
        return tuple(instantiate(question, v) for v in body.variants)
    return (question,)


def variants_section_id(question: Question) -> str:
    """The sub-section of a parametric question's variants ("_" starts no question id or draw name)."""
    return f"_variants-{question.id}"


def _variants_section(parent: etree._Element, question: Question) -> etree._Element:
    section = _sub(
        parent,
        "assessmentSection",
        identifier=variants_section_id(question),
        title=question.name or question.id,
        visible="false",
    )
    _sub(section, "selection", select="1")
    return section


def test_tree(quiz: Quiz) -> etree._Element:
    """One assessmentTest: every item in source order, points as weights, SCORE = sum of SCOREs;
    a parametric question is a sub-section drawing one of its variants' items."""
    test, part = _test_part(quiz.id, quiz.title)
    # Invisible: Canvas turns a visible section title into an extra text-only question.
    section = _sub(part, "assessmentSection", identifier="section1", title=quiz.title, visible="false")
    for question in quiz.questions:
        parent = _variants_section(section, question) if is_parametric(question) else section
        for q in item_questions(question):
            ref = _sub(parent, "assessmentItemRef", identifier=q.id, href="../" + item_path(q))
            _sub(ref, "weight", identifier=WEIGHT_ID, value=num(q.points))
    # Item SCOREs are already in points, so they are summed unweighted; the weight is for Canvas.
    _outcome_processing(test, None)
    return test


def section_id(index: int) -> str:
    """A section's identifier: "_" cannot start a question id or a draw name, so none collides."""
    return f"_section-{index}"


def draw_section_id(draw: Draw) -> str:
    return f"_draw-{draw.name}"


def _item_ref(parent: etree._Element, draw: Draw, question: Question) -> None:
    ref = _sub(parent, "assessmentItemRef", identifier=question.id, href="../" + item_path(question))
    points = draw.points_of(question)
    # The points weight first: Canvas reads the first <weight> it finds (see WEIGHT_ID).
    _sub(ref, "weight", identifier=WEIGHT_ID, value=num(points))
    # A description scores 0 whatever its scale: 1.
    _sub(ref, "weight", identifier=SCALE_ID, value=num(points / question.points) if question.points else "1")


def assessment_test_tree(assessment: Assessment) -> etree._Element:
    """An assessment's assessmentTest.

    Each section is an assessmentSection, visible (its title shown) when it has a title. A
    random draw is an invisible sub-section with ``<selection select="pick">`` over every
    candidate; listed questions are plain assessmentItemRefs. A shuffled section has
    ``<ordering shuffle="true">`` and its draws are ``keepTogether="false"``: QTI 2.1 treats an
    invisible sub-section as one block when its parent shuffles unless keepTogether is false,
    and then mixes its selected children with the parent's (Ordering, QTI 2.1 information
    model), so the drawn questions mix with each other and with the listed ones.

    Points: each ref has the ``points`` weight (Canvas) and the ``scale`` weight (SCALE_ID);
    SCORE and MAXSCORE are the items' sums weighted by ``scale``, so a standard player totals
    each question at the points it has in this assessment, counted once.
    """
    test, part = _test_part(assessment.id, assessment.title)
    for index, section in enumerate(assessment.sections, 1):
        el = _sub(
            part,
            "assessmentSection",
            identifier=section_id(index),
            title=section.title or assessment.title,
            visible=_bool(section.title is not None),
        )
        if section.shuffle:
            _sub(el, "ordering", shuffle="true")
        for draw in section.draws:
            parent = el
            if draw.is_random:
                parent = _sub(
                    el,
                    "assessmentSection",
                    identifier=draw_section_id(draw),
                    title=draw.name,
                    visible="false",
                )
                if section.shuffle:
                    parent.set("keepTogether", "false")
                _sub(parent, "selection", select=str(draw.count))
            for c in draw.candidates:
                # A parametric candidate is one child of the draw: the draw picks it, its own
                # sub-section picks the variant (selection counts child sections as one).
                holder = _variants_section(parent, c.question) if is_parametric(c.question) else parent
                for q in item_questions(c.question):
                    _item_ref(holder, draw, q)
    _outcome_processing(test, SCALE_ID)
    return test


# --------------------------------------------------------------------------- members


@dataclass(frozen=True)
class Member:
    """One file of a package, before serialisation."""

    path: str
    """Package-relative POSIX path."""
    kind: str
    """"test", "item", "css" or "media"."""
    tree: etree._Element | None = None
    """The document, for "test" and "item"."""
    data: bytes | None = None
    """The bytes, for "css" and "media"."""
    question: Question | None = None
    """The question an item was built from."""
    quiz: Quiz | None = None
    """The quiz (header) an item was built with: its question's home quiz."""
    lost: tuple[str, ...] = ()
    """What an item could not carry of its question's rich texts."""
    variant_of: Question | None = None
    """The parametric question an item is a variant of (None: the item is the question's)."""


@functools.cache
def stylesheet() -> bytes:
    """The CSS every item links to (a packaged data file, read once per process)."""
    return resources.files("lmsexport").joinpath("templates/qti/lmsexport.css").read_bytes()


def _item_members(pairs: list[tuple[Quiz, Question]]) -> list[Member]:
    """The items of (home quiz, question) pairs, the stylesheet, then each image once."""
    members = []
    media: dict[str, Media] = {}
    for quiz, question in pairs:
        of = question if is_parametric(question) else None
        for q in item_questions(question):
            built = build_item(quiz, q)
            members.append(
                Member(
                    item_path(q), "item", built.tree, question=q, quiz=quiz, lost=built.lost, variant_of=of
                )
            )
            for m in question_media(q):
                media.setdefault(m.filename, m)
    members.append(Member(STYLESHEET_PATH, "css", data=stylesheet()))
    members += [Member(media_path(m), "media", data=m.data) for m in media.values()]
    return members


def quiz_members(quiz: Quiz) -> list[Member]:
    """Every file of a quiz's package except the manifest: test, items in source order, CSS, images."""
    header = quiz.header
    return [Member(test_path(quiz), "test", tree=test_tree(quiz))] + _item_members(
        [(header, q) for q in quiz.questions]
    )


def assessment_members(assessment: Assessment) -> list[Member]:
    """Every file of an assessment's package except the manifest: the test, every question it may
    draw (built with its home quiz, so the same item as in that quiz's package), CSS, images."""
    return [Member(test_path(assessment), "test", tree=assessment_test_tree(assessment))] + _item_members(
        [(c.quiz, c.question) for c in assessment.candidates]
    )


def _has_markup(text: Text | None) -> bool:
    """Whether a text holds more than words in paragraphs (what a plain-text field would lose)."""
    if not isinstance(text, Rich):
        return False
    return any(not isinstance(b, Para) for b in text.blocks) or any(
        not isinstance(x, Str) for x in inlines_of(text)
    )


def _as_items(question: Question) -> Question:
    """What a question's items are, for naming their losses once per question: a parametric
    question's first variant under the question's own id (every variant loses the same)."""
    if not is_parametric(question):
        return question
    first = item_questions(question)
    return replace(first[0], id=question.id, name=question.name) if first else question


def lossy_warnings(quiz: Quiz) -> list[Diagnostic]:
    """What a Canvas import of the package loses, per question (QTI itself carries it all)."""
    out = []
    if _has_markup(quiz.description):
        out.append(_description_warning("quiz", quiz.id, quiz.loc))
    for q in map(_as_items, quiz.questions):
        loc = q.loc or SourceLoc(quiz.id)
        body = q.body
        if isinstance(body, ShortAnswer) and len(body.answers) > 1:
            out.append(
                _warn(
                    loc,
                    f"question {q.id!r}: Canvas keeps only the first accepted answer "
                    f"({body.answers[0].text!r}) of a QTI text-entry item",
                    "qti21.canvas-short-answer",
                )
            )
        if isinstance(body, TrueFalse) and true_false_labels(quiz.lang_of(q)) != TRUE_FALSE_LABELS["en"]:
            out.append(
                _warn(
                    loc,
                    f"question {q.id!r}: Canvas knows true/false only by the English words, so it imports "
                    "this one as a two-choice multiple-choice question (the key is kept)",
                    "qti21.canvas-true-false",
                )
            )
        if isinstance(body, Numerical):
            out.append(
                _warn(
                    loc,
                    f"question {q.id!r}: Canvas imports a QTI numerical item as fill-in-the-blank "
                    "and loses the tolerance or range",
                    "qti21.canvas-numerical",
                )
            )
        if (
            isinstance(body, SingleChoice)
            and not _plain_single(body)
            or isinstance(body, MultipleChoice)
            and not body.default_credits
        ):
            out.append(
                _warn(
                    loc,
                    f"question {q.id!r}: Canvas has no partial credit: it makes every choice that earns "
                    "anything fully right (choice_interaction.rb), and a single choice question with "
                    "several such choices a multiple answers question",
                    "qti21.canvas-partial-credit",
                )
            )
        canvas = _canvas_new_kinds(q)
        if canvas is not None:
            out.append(_warn(loc, f"question {q.id!r}: {canvas}", f"qti21.canvas-{q.type.value}"))
        if q.feedback.partial is not None or q.hints:
            what = " and ".join(
                x
                for x, on in (
                    ("the partly-right feedback", q.feedback.partial is not None),
                    ("hints", q.hints),
                )
                if on
            )
            out.append(
                _warn(
                    loc,
                    f"question {q.id!r}: Canvas drops {what} (it keeps only modal feedback it reads as "
                    "correct, incorrect or general: get_feedback in assessment_item_converter.rb)",
                    "qti21.canvas-feedback",
                )
            )
        if isinstance(body, SingleChoice | MultipleChoice) and any(
            c.feedback and _has_markup(c.text) for c in body.choices
        ):
            out.append(
                _warn(
                    loc,
                    f"question {q.id!r}: Canvas keeps only the plain text of a choice that has feedback "
                    "(choice_interaction.rb): the markup of such choices is lost there",
                    "qti21.canvas-choice-markup",
                )
            )
    return out


def _canvas_new_kinds(q: Question) -> str | None:
    """What Canvas's QTI 2 import does with a cloze, an ordering or a description item
    (shared/reference/lms-notes.md: Canvas's own converter run on such items)."""
    body = q.body
    if isinstance(body, Description):
        return (
            "Canvas cannot import a QTI 2.1 item without interaction (question_type_educated_guesser.rb "
            "finds no type; AssessmentItemConverter raises): it becomes an Error question"
        )
    if isinstance(body, Ordering):
        return (
            "Canvas imports an orderInteraction from a package valid against the QTI 2.1 profile as an "
            "Error question (order_interaction.rb is reached only with Canvas's own manifest metadata)"
        )
    if isinstance(body, Cloze):
        kinds = set(interaction_types(q))
        if kinds == {"textEntryInteraction"}:
            return (
                "Canvas imports the blanks as fill_in_multiple_blanks (fill_in_the_blank.rb "
                "process_text_entry): one answer per blank (its correctResponse), the tolerance of a "
                "number blank, the weights, partial credits and feedback lost"
            )
        if kinds == {"inlineChoiceInteraction"}:
            return (
                "Canvas imports the blanks as multiple_dropdowns (fill_in_the_blank.rb process_inline): "
                "the right choice of each fully right, the weights, partial credits and feedback lost"
            )
        return (
            "Canvas's importer takes an item mixing blank kinds for fill_in_multiple_blanks "
            "(educatedly_guess_type tries textEntry first): a drop-down blank becomes a text answer "
            "(its choice identifier) missing from the text, raw inlineChoice elements stay in the "
            "question text, and a choiceInteraction blank is lost"
        )
    return None


def loss_warnings(quiz: Quiz) -> list[Diagnostic]:
    """What QTI 2.1 itself cannot carry of each question, one warning per question and element
    (rule ``qti21.<element>-not-carried``), only for what a question really sets."""
    out = []
    for original in quiz.questions:
        q = _as_items(original)
        loc = q.loc or SourceLoc(quiz.id)
        body = q.body
        lost: list[tuple[str, str]] = []
        if isinstance(original.body, Calculated | CalculatedChoice):
            lost.append(
                (
                    "formula",
                    f"the formula and the variables: the question is written as its "
                    f"{len(original.body.variants)} variants, one item each, in a section drawing one "
                    "of them per attempt",
                )
            )
        if q.feedback.show_num_correct:
            lost.append(
                (
                    "show-num-correct",
                    "telling the learner how many picks are right (no QTI 2.1 outcome says it)",
                )
            )
        if any(h.show_num_correct for h in q.hints):
            lost.append(("hint-show-num-correct", "a hint's number of right picks"))
        if any(h.clear_wrong for h in q.hints):
            lost.append(("hint-clear-wrong", "clearing the wrong parts of a response with a hint"))
        if q.penalty is not None and not q.hints:
            lost.append(
                (
                    "penalty",
                    f"the penalty {num(q.penalty)} per try (an item without hints has one attempt; "
                    "only its hints cost the penalty)",
                )
            )
        if isinstance(body, Numerical) and any(
            k.answer is not None and k.low is not None and _range_tolerances(k) is None and k is not body.key
            for k in body.keys
        ):
            lost.append(("range-answer", "the answer inside a range that is not the question's best key"))
        if isinstance(body, Numerical) and body.units:
            lost.append(("units", "the units (QTI 2.1 has no unit: the response is a bare number)"))
        if isinstance(body, Essay):
            if body.min_words is not None or body.max_words is not None:
                lost.append(
                    ("word-limits", "the word limits (minStrings and maxStrings count responses, not words)")
                )
            if isinstance(body.template, Rich):
                lost.append(("template", "the response template's markup (placeholderText holds plain text)"))
            if body.response_format is ResponseFormat.NONE:
                lost.append(
                    ("response-format", "an answer of attached files only (written as a text answer)")
                )
            if body.takes_files:
                # uploadInteraction would take a file, but Canvas's converter and lmsexport's
                # reader take none: the essay stays one text answer.
                lost.append(("attachments", "the essay's file attachments (the item takes text only)"))
        if isinstance(body, Ordering):
            lost += _ordering_losses(body)
        for element, what in lost:
            out.append(
                _warn(loc, f"question {q.id!r}: QTI 2.1 cannot carry {what}", f"qti21.{element}-not-carried")
            )
    return out


NATIVE_GRADINGS = frozenset(OrderingGrading)
"""The ordering gradings an item's response processing computes: all of qtype_ordering's nine."""


def _ordering_losses(body: Ordering) -> list[tuple[str, str]]:
    """What an orderInteraction item cannot say of an ordering (see _write_ordering)."""
    lost: list[tuple[str, str]] = []
    if body.select is not OrderingSelect.ALL:
        lost.append(
            (
                "ordering-select",
                f"showing {body.select_count} of the {len(body.items)} items per attempt (QTI 2.1 "
                "draws no subset of an interaction's choices; minChoices/maxChoices say how many the "
                "learner must order, not which are shown): every item is shown and graded",
            )
        )
    if body.numbering is not Numbering.NONE:
        lost.append(("ordering-numbering", f"the numbering {body.numbering.value} of the items"))
    if body.show_grading and body.grading is not OrderingGrading.ALL_OR_NOTHING:
        lost.append(("ordering-show-grading", "showing which items scored (no QTI 2.1 outcome says it)"))
    return lost


def item_warnings(member: Member) -> list[Diagnostic]:
    """What an item could not carry of its question's rich texts (QTI 2.1 itself); for a
    parametric question's variants, named once, by the first variant's item."""
    q = member.question
    if q is None or not member.lost:
        return []
    of = member.variant_of
    if of is not None:
        assert isinstance(of.body, Calculated | CalculatedChoice)
        if q.id != variant_id(of.id, of.body.variants[0]):
            return []
        q = of
    loc = q.loc or SourceLoc(member.quiz.id if member.quiz else q.id)
    return [
        _warn(loc, f"question {q.id!r}: QTI 2.1 cannot carry {what}", "qti21.markup-lost")
        for what in member.lost
    ]


def _description_warning(kind: str, ident: str, loc: SourceLoc | None) -> Diagnostic:
    return _warn(
        loc or SourceLoc(ident),
        f"{kind} {ident!r}: the description is written as plain text in the package manifest "
        "(an IMS metadata description holds no markup): its formatting is lost",
        "qti21.description-plain",
    )


def assessment_warnings(assessment: Assessment) -> list[Diagnostic]:
    """What the test of an assessment loses in Canvas (its questions were warned about with their
    quizzes). Facts from gems/plugins/qti_exporter/lib/qti/assessment_test_converter.rb."""
    out = []
    where = assessment.loc or SourceLoc(assessment.id)
    if _has_markup(assessment.description):
        out.append(_description_warning("assessment", assessment.id, assessment.loc))
    for index, section in enumerate(assessment.sections, 1):
        loc = section.loc or where
        if section.shuffle:
            fixed = sorted({c.question.id for d in section.draws for c in d.candidates if not c.quiz.shuffle})
            also = (
                f", including those whose quiz keeps choices in order ({', '.join(fixed)})" if fixed else ""
            )
            out.append(
                _warn(
                    loc,
                    f"assessment {assessment.id!r}, section {index}: Canvas cannot shuffle question order "
                    "(only a random draw's questions come in random order); it reads the section's "
                    f"<ordering shuffle> as 'shuffle answers' for every question of the quiz{also}",
                    "qti21.canvas-shuffle",
                )
            )
        for draw in section.draws:
            inner = [c.question.id for c in draw.candidates if is_parametric(c.question)]
            if draw.is_random and inner:
                out.append(
                    _warn(
                        draw.loc or loc,
                        f"assessment {assessment.id!r}, pool {draw.name!r}: Canvas makes a question group of "
                        f"each parametric question's variants ({', '.join(inner)}) next to the pool's group, "
                        "not inside it (groups do not nest: process_section in "
                        "assessment_test_converter.rb), so every attempt there asks it",
                        "qti21.canvas-variants-in-draw",
                    )
                )
            values = {draw.points_of(c.question) for c in draw.candidates}
            if draw.is_random and len(values) > 1:
                first = draw.points_of(draw.candidates[0].question)
                out.append(
                    _warn(
                        draw.loc or loc,
                        f"assessment {assessment.id!r}, pool {draw.name!r}: Canvas gives every question "
                        f"of a random draw the same points, here {num(first)} (the first question's); "
                        f"its questions are worth {', '.join(num(v) for v in sorted(values))}",
                        "qti21.canvas-group-points",
                    )
                )
    return out


def _warn(loc: SourceLoc, message: str, rule: str) -> Diagnostic:
    return Diagnostic(loc, message, Severity.WARNING, rule)
