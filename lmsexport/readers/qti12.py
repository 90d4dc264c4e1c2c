"""QTI 1.2 (Canvas's flavour, and the Common Cartridge profile) -> draft quizzes for import.

Canvas writes every question of a "QTI export" the way canvas-lms lib/cc/qti/qti_items.rb
``add_question`` does, and lmsexport's writers/qti12.py writes the same shapes; this reader is
their inverse, and reads other tools' QTI 1.2 leniently by its structure:

* the type from the ``question_type`` metadata (multiple_choice, multiple_answers, true_false,
  short_answer, numerical, matching, essay; fill_in_multiple_blanks and multiple_dropdowns as a
  cloze, text_only as a description, calculated_question as a calculated question with its
  variable sets as the variants; file upload questions are skipped with a warning), or the Common
  Cartridge ``cc_profile``, or, for other tools, the presentation (``response_lid`` single or
  multiple, several of them for matching, ``response_str``/``render_fib`` for a typed answer);
* credits from the response processing, each a share of the best score: a single choice's
  from the SCORE its condition sets (a foreign ``Set 50`` next to a ``Set 100`` is half right;
  lmsexport and Canvas write right answers only), a multiple choice's right choices from the
  condition that sets SCORE (``and``/``not``), which earn the bank's default credits; every
  ``varequal`` of a scoring condition, with ``case``, for short answers, each worth its
  condition's share; one key per scoring condition for numerical answers
  (``or(varequal, and(vargte, varlte))``, ranges); one ``Add`` condition per left item for
  matching;
* points from ``points_possible`` (Canvas) or ``cc_weighting`` (cartridges); the item's title
  as the question's name, unless it is the title the writers derive from the stem;
* the ``general_fb`` item feedback (shown by an ``<other/>`` condition) as the explanation,
  ``correct_fb`` and ``general_incorrect_fb`` as the feedback on a right and a wrong response,
  and an answer's own feedback (the first a condition testing it shows: ``<choice>_fb``,
  ``true_fb``/``false_fb``, a short answer's, a numerical key's) as that answer's;
* texts: ``text/html`` mattexts as rich text (lmsexport's own ``<div dir lang>`` texts exactly),
  others as plain text; images from the package;
* question groups (a section with ``selection_number``) become an assessment whose draw picks
  from a quiz of the group's questions; a quiz's settings (description, shuffling) from Canvas's
  ``assessment_meta.xml``.

Documents are parsed with validate_qti12.parse_untrusted_qti12: a DOCTYPE that only names the
QTI DTD is accepted (and never loaded), an internal subset or entity is refused.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import PurePosixPath

from lxml import etree

from .. import formula as fm
from ..media import MAX_IMAGE_BYTES, media_from_bytes, media_from_data_uri
from ..model import (
    Answer,
    Calculated,
    Choice,
    ChoiceBlank,
    Cloze,
    Description,
    Essay,
    Gap,
    Inline,
    ListVariable,
    Matching,
    Math,
    Media,
    MultipleChoice,
    Numerical,
    NumericKey,
    OutcomeFeedback,
    Pair,
    Parameters,
    Question,
    QuestionType,
    RangeVariable,
    Rich,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Text,
    TextBlank,
    Tolerance,
    ToleranceKind,
    TrueFalse,
    Variant,
    default_multiple_credits,
    exact_credit,
    is_full,
    map_inlines,
    plain_text,
)
from ..model import Formula as ModelFormula
from ..moodle import name_from_stem
from ..moodlexml import rich_of_words
from ..validate import package_path
from ..validate_qti12 import parse_untrusted_qti12
from ..writers.qti12 import short_title
from .drafts import (
    DraftAssessment,
    DraftDraw,
    DraftQuestion,
    DraftQuiz,
    DraftSection,
    Found,
    Images,
    html_text,
    simplify,
)
from .packagefiles import PackageFiles
from .qti21 import _key_from_bounds, _true_false

CANVAS_TYPES = {
    "multiple_choice_question": QuestionType.SINGLE,
    "multiple_answers_question": QuestionType.MULTIPLE,
    "true_false_question": QuestionType.TRUE_FALSE,
    "short_answer_question": QuestionType.SHORT_ANSWER,
    "numerical_question": QuestionType.NUMERICAL,
    "matching_question": QuestionType.MATCHING,
    "essay_question": QuestionType.ESSAY,
    "fill_in_multiple_blanks_question": QuestionType.CLOZE,
    "multiple_dropdowns_question": QuestionType.CLOZE,
    "text_only_question": QuestionType.DESCRIPTION,
}
CALCULATED = "calculated_question"
CANVAS_SKIPPED = {
    "file_upload_question": "file upload",
    "missing_word_question": "missing word",
}
CC_PROFILES = {
    "cc.multiple_choice.v0p1": QuestionType.SINGLE,
    "cc.multiple_response.v0p1": QuestionType.MULTIPLE,
    "cc.true_false.v0p1": QuestionType.TRUE_FALSE,
    "cc.fib.v0p1": QuestionType.SHORT_ANSWER,
    "cc.essay.v0p1": QuestionType.ESSAY,
}
_OWN_TEXT = re.compile(r'<div dir="(?:rtl|ltr)" lang="([A-Za-z0-9-]{1,35})">(.*)</div>\Z', re.DOTALL)
"""lmsexport's writers/qti12.py html_text(): a plain text with line breaks, in a div naming its language."""
_ASSESSMENT_TYPES = (
    "imsqti_xmlv1p2",
    "imsqti_xmlv1p2/imscc_xmlv1p1/assessment",
    "imsqti_xmlv1p2/imscc_xmlv1p3/assessment",
)
_BANK_TYPES = ("imsqti_xmlv1p2/imscc_xmlv1p1/question-bank", "imsqti_xmlv1p2/imscc_xmlv1p3/question-bank")
_OUTCOME_FEEDBACK = ("general_fb", "correct_fb", "general_incorrect_fb")
"""Canvas's general, right-response and wrong-response feedback idents (writers/qti12.py)."""


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def _children(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el if _local(c) == name]


def _child(el: etree._Element | None, name: str) -> etree._Element | None:
    if el is None:
        return None
    return next((c for c in el if _local(c) == name), None)


def _all(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el.iter(etree.Element) if _local(c) == name]


def _number(text: str | None) -> float | None:
    import math

    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _meta(el: etree._Element) -> dict[str, str]:
    """The qtimetadatafield label -> entry pairs directly under an item's or assessment's metadata."""
    out: dict[str, str] = {}
    for field in _all(el, "qtimetadatafield"):
        owner = next(
            (
                a
                for a in field.iterancestors()
                if _local(a) in ("item", "assessment", "objectbank", "section")
            ),
            None,
        )
        if owner is not el:
            continue
        label = _child(field, "fieldlabel")
        entry = _child(field, "fieldentry")
        if label is not None:
            out[(label.text or "").strip()] = (entry.text or "").strip() if entry is not None else ""
    return out


# --------------------------------------------------------------------------- response processing


class _Condition:
    """One respcondition: what it tests, what score it sets, which feedback it shows."""

    def __init__(self, el: etree._Element) -> None:
        self.el = el
        self.var = _child(el, "conditionvar")
        self.score = 0.0
        """The SCORE it sets or adds (the highest, when it has several setvars); may be negative."""
        self.sets = False
        """Whether it sets or adds to SCORE at all."""
        self.add = False
        for setvar in _children(el, "setvar"):
            if (setvar.get("varname") or "SCORE") == "SCORE":
                value = _number(setvar.text) or 0.0
                self.add = (setvar.get("action") or "Set") == "Add"
                self.score = value if not self.sets else max(self.score, value)
                self.sets = True
        self.feedback = [(d.get("linkrefid") or "") for d in _children(el, "displayfeedback")]

    @property
    def answer_feedback(self) -> str | None:
        """The first feedback it shows that is an answer's own (not the general, right or wrong
        feedback): Canvas's ``get_feedback_id`` takes the same one."""
        return next((f for f in self.feedback if f not in _OUTCOME_FEEDBACK), None)

    def top(self) -> list[etree._Element]:
        return [c for c in self.var if isinstance(c.tag, str)] if self.var is not None else []

    @property
    def other(self) -> bool:
        return any(_local(c) == "other" for c in self.top())

    def equals(self, respident: str | None = None) -> list[tuple[str, str, bool]]:
        """(respident, value, case) of every varequal that is not negated."""
        out: list[tuple[str, str, bool]] = []
        if self.var is None:
            return out
        for v in _all(self.var, "varequal"):
            if any(_local(a) == "not" for a in v.iterancestors() if a is not self.var.getparent()):
                continue
            r = v.get("respident") or ""
            if respident is None or r == respident:
                out.append((r, (v.text or "").strip(), (v.get("case") or "No").lower() == "yes"))
        return out


def _conditions(item: etree._Element) -> list[_Condition]:
    rp = _child(item, "resprocessing")
    return [_Condition(c) for c in _children(rp, "respcondition")] if rp is not None else []


# --------------------------------------------------------------------------- calculated questions
#
# Canvas's calculated_question (writers/qti12.py writes it as Canvas's exporter does): its
# variables, its var_sets as the question's explicit variants (values and answers, in order),
# its formula read back from Canvas's calculator syntax (formula.from_canvas). When the formula
# cannot be translated, or gives other answers than the var_sets store (Canvas never checks
# them: a hand-edited or foreign answer is the key), the stored answers are kept as the values of
# one more variable, the answer formula is that variable, and the formula is a named loss.

_BRACKET = re.compile(r"\[([A-Za-z][A-Za-z0-9_]*)\]")


_TEX_NAME = re.compile(r"\{\\text\{\[([A-Za-z][A-Za-z0-9_]*)\]\}\}")


def _tex_name(m: re.Match[str], names: set[str]) -> str:
    return "{" + m.group(1) + "}" if m.group(1) in names else m.group(0)


def _placeholders_of(text: str, names: set[str]) -> str:
    """Canvas's ``[name]`` as lmsexport's ``{name}``; literal braces doubled."""
    text = text.replace("{", "{{").replace("}", "}}")
    return _BRACKET.sub(lambda m: "{" + m.group(1) + "}" if m.group(1) in names else m.group(0), text)


def _placeholder_text(text: Text | None, names: set[str]) -> Text | None:
    if text is None or isinstance(text, str):
        return _placeholders_of(text, names) if text is not None else None

    def tex_name(m: re.Match[str]) -> str:
        return _tex_name(m, names)

    def placeholders(x: Inline) -> Inline | None:
        match x:
            case Str(text=t):
                return Str(_placeholders_of(t, names))
            case Math(tex=tex, display=d):
                # writers/qti12.canvas_text writes a name in TeX as {\text{[name]}}
                return Math(_TEX_NAME.sub(tex_name, tex), d)
        return None  # code, images: verbatim (no placeholders there)

    return map_inlines(text, placeholders)


def with_placeholders(q: Question) -> Question:
    """A read calculated question with ``{name}`` for Canvas's ``[name]`` in every text."""
    body = q.body
    assert isinstance(body, Calculated)
    names = {v.name for v in body.params.variables}

    def sub(text: Text | None) -> Text | None:
        return _placeholder_text(text, names)

    fb = q.feedback
    stem = sub(q.stem)
    assert stem is not None
    return replace(
        q,
        stem=stem,
        explanation=sub(q.explanation),
        feedback=replace(fb, correct=sub(fb.correct), partial=sub(fb.partial), incorrect=sub(fb.incorrect)),
    )


def _text_of(el: etree._Element | None) -> str | None:
    return el.text if el is not None else None


def fm_name_ok(name: str) -> bool:
    """Whether a Canvas variable name is one lmsexport can hold (variants.NAME_RE, not reserved)."""
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name)) and name not in (
        *fm.CONSTANTS,
        *fm.KEYWORDS,
        *fm.FUNCTIONS,
        *fm.REFUSED_FUNCTIONS,
    )


def _tolerance(text: str) -> Tolerance | None:
    text = text.strip()
    if not text:
        return Tolerance()
    relative = text.endswith("%")
    value = _number(text.removesuffix("%"))
    if value is None or value < 0:
        return None
    if relative:
        return Tolerance(float(Decimal(repr(value)) / 100), ToleranceKind.RELATIVE)
    return Tolerance(value, ToleranceKind.ABSOLUTE)


def _digits(text: str) -> int:
    text = text.strip().lstrip("-")
    return len(text.partition(".")[2].rstrip("0")) if "e" not in text.lower() else 0


def _answer_matches(value: float, stored: float, decimals: int) -> bool:
    """Whether our value of the formula is the answer Canvas stored, shown at its decimals (its
    editor rounds each answer to decimal_places; half a last digit of slack either way)."""
    return abs(value - stored) <= 0.5 * 10.0**-decimals * (1 + 1e-9) + 1e-12 * abs(stored)


# --------------------------------------------------------------------------- items


class _ItemReader:
    def __init__(
        self, files: PackageFiles | None, member: str, item: etree._Element, found: Found, where: str
    ) -> None:
        self.files = files
        self.member = member
        self.item = item
        self.found = found
        self.loc = SourceLoc(where, item.sourceline or 0)
        self.raw_id = (item.get("ident") or "").strip() or None
        self.title = (item.get("title") or "").strip() or None
        self.label = f"item {self.raw_id or self.title or ''!r}"
        self.meta = _meta(item)
        self.notes: list[str] = []
        self.lost: list[str] = []
        self.images = Images(self._image)
        self.feedback = {(fb.get("ident") or ""): fb for fb in _children(item, "itemfeedback")}
        self.shuffle: bool | None = None

    def _image(self, src: str) -> Media | None:
        if src.startswith("data:"):
            return media_from_data_uri(src)
        if self.files is None:
            return None
        for token in ("$IMS-CC-FILEBASE$", "%24IMS-CC-FILEBASE%24"):
            if src.startswith(token):
                # A cartridge's file base: the folder of the QTI document that names it, as Moodle's
                # importer resolves it (backup/cc/entities.class.php update_sources), so
                # "$IMS-CC-FILEBASE$../web_resources/x.png" of "quiz/assessment.xml" is
                # "web_resources/x.png"; Canvas's (lib/cc/importer/standard/converter.rb
                # replace_urls) drops the token and looks the rest up from the cartridge's root,
                # which is the fallback for a cartridge that meant that.
                rest = src[len(token) :].lstrip("/")
                target, remote = package_path(self.member, rest)
                if target is not None and not remote and target in self.files.members:
                    return media_from_bytes(
                        self.files.image(target, MAX_IMAGE_BYTES), PurePosixPath(target).name
                    )
                target, remote = package_path("", re.sub(r"^(?:\.\./|\./|/)+", "", rest))
                break
        else:
            target, remote = package_path(self.member, src.lstrip("/"))
        if target is None or remote:
            return None
        return media_from_bytes(self.files.image(target, MAX_IMAGE_BYTES), PurePosixPath(target).name)

    def material(self, el: etree._Element | None) -> tuple[Text | None, str | None]:
        """The text of the first mattext under ``el`` and the language it names."""
        if el is None:
            return None, None
        mattext = next((m for m in el.iter(etree.Element) if _local(m) == "mattext"), None)
        if mattext is None:
            return None, None
        raw = mattext.text or ""
        lang = mattext.get("{http://www.w3.org/XML/1998/namespace}lang")
        texttype = (mattext.get("texttype") or "text/plain").lower()
        if texttype != "text/html":
            return raw.strip() or None, lang
        own = _OWN_TEXT.match(raw.strip())
        if own is not None and "<" not in own.group(2).replace("<br/>", ""):
            import html

            text = html.unescape(own.group(2).replace("<br/>", "\n"))
            return text or None, own.group(1)
        found, wrapper_lang, lost = html_text(raw, True, self.images)
        for what in lost:
            if what not in self.lost:
                self.lost.append(what)
        return found, wrapper_lang or lang

    def feedback_text(self, ident: str) -> Text | None:
        fb = self.feedback.get(ident)
        return self.material(fb)[0] if fb is not None else None

    def name(self, question: Question) -> str | None:
        """The item's title as the question's name, or None when it is the one the writers derive
        from the stem (writers/qti12.py short_title, moodle.name_from_stem): a question without a
        name of its own comes back without one."""
        if self.title is None:
            return None
        derived = replace(question, id=self.raw_id or "", name=None)
        if self.title in (short_title(derived), name_from_stem(derived)):
            return None
        return self.title

    def drop(self, what: str, rule: str = "import.not-carried") -> None:
        if f"not carried: {what}" in self.notes:
            return
        self.notes.append(f"not carried: {what}")
        self.found.warn(self.loc, f"{self.label}: not carried: {what}", rule)

    def qtype(self, presentation: etree._Element) -> QuestionType | str:
        """The model type, or the name of a type lmsexport lacks."""
        canvas = self.meta.get("question_type")
        if canvas:
            if canvas == CALCULATED:
                return QuestionType.NUMERICAL  # read by _calculated (read())
            if canvas in CANVAS_TYPES:
                return CANVAS_TYPES[canvas]
            return CANVAS_SKIPPED.get(canvas, canvas.removesuffix("_question").replace("_", " "))
        profile = self.meta.get("cc_profile")
        if profile:
            return CC_PROFILES.get(profile, profile)
        lids = _all(presentation, "response_lid")
        if len(lids) > 1:
            return QuestionType.MATCHING
        if lids:
            card = (lids[0].get("rcardinality") or "Single").lower()
            return QuestionType.MULTIPLE if card == "multiple" else QuestionType.SINGLE
        if _all(presentation, "response_num"):
            return QuestionType.NUMERICAL
        fibs = _all(presentation, "render_fib")
        if fibs and (fibs[0].get("fibtype") or "").lower() in ("decimal", "integer"):
            return QuestionType.NUMERICAL
        if _all(presentation, "response_str"):
            has_key = any(c.score > 0 and c.equals() for c in _conditions(self.item))
            return QuestionType.SHORT_ANSWER if has_key else QuestionType.ESSAY
        # No response at all: text to read, as Canvas's text_only_question
        return QuestionType.DESCRIPTION

    def read(self) -> DraftQuestion | None:
        presentation = _child(self.item, "presentation")
        if presentation is None:
            self.found.skip(
                "empty", self.loc, self.title or self.raw_id, "the item has no presentation", "import.skipped"
            )
            return None
        kind = self.qtype(presentation)
        if not isinstance(kind, QuestionType):
            self.found.skip(
                kind,
                self.loc,
                self.title or self.raw_id,
                "lmsexport has no such question type",
                "import.skipped",
            )
            return None
        stem_el = _child(presentation, "material")
        if stem_el is None:
            stem_el = _child(_child(presentation, "flow"), "material")
        stem, lang = self.material(stem_el)
        if stem is None:
            self.found.warn(self.loc, f"{self.label} has no question text; skipped", "import.empty-stem")
            return None
        points = _number(self.meta.get("points_possible")) or _number(self.meta.get("cc_weighting")) or 1.0
        if kind is QuestionType.DESCRIPTION:
            points = 0.0  # a description is worth nothing (Canvas: a text_only_question's 0)
        q = Question(
            id="",
            stem=stem,
            body=Essay(),
            points=points if points > 0 or kind is QuestionType.DESCRIPTION else 1.0,
            lang=self.item.get("{http://www.w3.org/XML/1998/namespace}lang") or lang,
            loc=self.loc,
        )
        conditions = _conditions(self.item)
        used = {"general_fb"}
        typed: Question | None = q
        if kind in (QuestionType.SINGLE, QuestionType.MULTIPLE, QuestionType.TRUE_FALSE):
            typed = self._choices(q, kind, presentation, conditions, used)
        elif kind is QuestionType.SHORT_ANSWER:
            typed = self._short(q, conditions, used)
        elif kind is QuestionType.NUMERICAL and self.meta.get("question_type") == CALCULATED:
            typed = self._calculated(q)
            used |= {"correct_fb", "general_incorrect_fb"}
        elif kind is QuestionType.NUMERICAL:
            typed = self._numerical(q, conditions, used)
        elif kind is QuestionType.MATCHING:
            typed = self._matching(q, presentation, conditions, used)
        elif kind is QuestionType.CLOZE:
            dropdowns = self.meta.get("question_type") == "multiple_dropdowns_question"
            typed = self._cloze(q, presentation, conditions, used, dropdowns)
        elif kind is QuestionType.DESCRIPTION:
            typed = replace(q, body=Description())
        if typed is None:
            return None
        explanation = self.feedback_text("general_fb")
        if explanation is None:
            shown = {f for c in conditions if c.other for f in c.feedback}
            for ident in sorted(shown - {"general_incorrect_fb", "correct_fb"}):
                explanation = self.feedback_text(ident)
                used.add(ident)
                break
        typed = replace(typed, explanation=explanation, name=self.name(typed))
        if not isinstance(typed.body, Essay | Description):
            # Canvas's feedback on a right and on a wrong response (writers/qti12.py CORRECT_FB,
            # INCORRECT_FB); an essay has none (nothing scores it right or wrong).
            outcome = OutcomeFeedback(
                correct=self.feedback_text("correct_fb"), incorrect=self.feedback_text("general_incorrect_fb")
            )
            typed = replace(typed, feedback=outcome)
            used |= {"correct_fb", "general_incorrect_fb"}
        for ident in self.feedback:
            if ident in used:
                continue
            what = {
                "correct_fb": "the feedback on a right answer",
                "general_incorrect_fb": "the feedback on a wrong answer",
            }.get(ident, f"the feedback {ident!r}")
            if self.feedback_text(ident) is not None:
                self.drop(what)
        for what in self.lost:
            self.notes.append(f"not carried: {what}")
            self.found.warn(self.loc, f"{self.label}: not carried: {what}", "import.markup-lost")
        if isinstance(typed.body, Calculated):
            typed = with_placeholders(typed)
        return DraftQuestion(typed, raw_id=self.raw_id, name=self.title, notes=self.notes)

    def _choices(
        self,
        q: Question,
        kind: QuestionType,
        presentation: etree._Element,
        conditions: list[_Condition],
        used: set[str],
    ) -> Question | None:
        lid = _all(presentation, "response_lid")[0] if _all(presentation, "response_lid") else None
        if lid is None:
            self.found.warn(self.loc, f"{self.label} has no choices; skipped", "import.no-key")
            return None
        respident = lid.get("ident") or ""
        render = _child(lid, "render_choice")
        self.shuffle = None if render is None else (render.get("shuffle") or "No").lower() == "yes"
        labels = _all(lid, "response_label")
        multiple = kind is QuestionType.MULTIPLE
        scores: dict[str, float] = {}
        for c in conditions:
            if not c.sets:
                continue
            for _, value, _ in c.equals(respident):
                if c.add:
                    scores[value] = scores.get(value, 0.0) + c.score
                else:
                    scores[value] = max(scores.get(value, c.score), c.score)
        top = max(scores.values(), default=0.0)
        if top <= 0:
            self.found.warn(
                self.loc,
                f"{self.label}: no right choice can be found in its response processing; skipped",
                "import.no-key",
            )
            return None
        feedback_for: dict[str, str] = {}
        for c in conditions:
            if c.score <= 0 or c.add:
                fid = c.answer_feedback
                for _, value, _ in c.equals(respident):
                    if fid is not None:
                        feedback_for.setdefault(value, fid)
        choices = []
        for label in labels:
            ident = (label.get("ident") or "").strip()
            text, lang = self.material(label)
            if text is None:
                self.drop(f"choice {ident!r}, which has no text")
                continue
            fid = feedback_for.get(ident) or (f"{ident}_fb" if f"{ident}_fb" in self.feedback else None)
            feedback = self.feedback_text(fid) if fid else None
            if fid:
                used.add(fid)
            # A choice earns its score as a share of the best one's (Canvas's 100, a foreign
            # tool's 1): a single choice's credit, a multiple choice's right or wrong.
            credit = max(-1.0, min(1.0, exact_credit(scores.get(ident, 0.0) / top)))
            choices.append(
                Choice(text, credit, feedback, lang, loc=SourceLoc(self.loc.path, label.sourceline or 0))
            )
        if not multiple and len(choices) == 2 and sum(c.full for c in choices) == 1:
            truth = _true_false(choices)
            if truth is not None or kind is QuestionType.TRUE_FALSE:
                if truth is None:
                    truth = choices[0].full
                if any(c.credit and not c.full for c in choices):
                    self.drop("partial credit for a true/false answer")
                # the choice saying "true" is the right one exactly when the statement is true
                said_true = choices[0] if choices[0].full == truth else choices[1]
                said_false = choices[1] if said_true is choices[0] else choices[0]
                self.shuffle = None
                return replace(q, body=TrueFalse(truth, said_true.feedback, said_false.feedback))
        if multiple:
            # right/wrong only: the right choices earn the bank's default credits
            flags = [c.earns for c in choices]
            credits = default_multiple_credits(flags)
            picks = tuple(replace(c, credit=x) for c, x in zip(choices, credits, strict=True))
            return replace(q, body=MultipleChoice(picks))
        return replace(q, body=SingleChoice(tuple(choices)))

    def _short(self, q: Question, conditions: list[_Condition], used: set[str]) -> Question | None:
        """Every answer of the conditions that score, each worth its share of the best one's
        score, with the feedback a condition testing it shows (Canvas's layout: a continuing
        condition per answer with feedback, then one condition accepting every answer); an
        answer only a feedback condition names is one worth nothing (as Moodle's cartridge
        restore reads it: entity11.quiz.class.php ``get_answers_fib``)."""
        top = max((c.score for c in conditions), default=0.0)
        scores: dict[str, float] = {}
        feedback_for: dict[str, str] = {}
        cases: list[bool] = []
        for c in conditions:
            for _, value, case in c.equals():
                if not value:
                    continue
                if c.score > 0:
                    scores[value] = max(scores.get(value, 0.0), c.score)
                    cases.append(case)
                fid = c.answer_feedback
                if fid is not None and self.feedback_text(fid) is not None:
                    feedback_for.setdefault(value, fid)
        if top <= 0 or not scores:
            self.found.warn(self.loc, f"{self.label}: no accepted answer; skipped", "import.no-key")
            return None
        answers = []
        for value in dict.fromkeys([*scores, *feedback_for]):
            fid = feedback_for.get(value)
            if fid is not None:
                used.add(fid)
            credit = exact_credit(max(0.0, scores.get(value, 0.0)) / top)
            answers.append(Answer(value, credit, self.feedback_text(fid) if fid else None))
        # the full-credit answers first, as the model wants the preferred answer first
        answers.sort(key=lambda a: not is_full(a.credit))
        return replace(q, body=ShortAnswer(tuple(answers), case_sensitive=all(cases)))

    def _numerical(self, q: Question, conditions: list[_Condition], used: set[str]) -> Question | None:
        """A key per condition that scores and tests a number (Canvas's layout: one per answer),
        worth its share of the best one's score, with the feedback the condition shows."""
        top = max((c.score for c in conditions), default=0.0)
        keys: list[NumericKey] = []
        for c in conditions:
            if c.score <= 0 or c.var is None:
                continue
            key = _numeric_key(c.var)
            if key is None:
                continue
            fid = c.answer_feedback
            feedback = self.feedback_text(fid) if fid else None
            if fid is not None:
                used.add(fid)
            keys.append(replace(key, credit=exact_credit(c.score / top), feedback=feedback))
        if not keys:
            self.found.warn(
                self.loc, f"{self.label}: no numeric key in its response processing; skipped", "import.no-key"
            )
            return None
        return replace(q, body=Numerical(keys=tuple(keys)))

    def _calculated(self, q: Question) -> Question | None:
        """Canvas's calculated_question: ``itemproc_extension/calculated`` (calculated_interaction.rb
        reads the same fields) -> Calculated with its var_sets as explicit variants."""
        calc = next(
            (c for c in _all(self.item, "calculated") if _local(c.getparent()) == "itemproc_extension"), None
        )
        if calc is None:
            self.found.skip(
                "calculated",
                self.loc,
                self.title or self.raw_id,
                "no itemproc_extension/calculated",
                "import.skipped",
            )
            return None
        tolerance_el = _child(calc, "answer_tolerance")
        tolerance_text = (tolerance_el.text or "").strip() if tolerance_el is not None else ""
        tolerance = _tolerance(tolerance_text)
        if tolerance is None:
            self.drop(f"the tolerance {tolerance_text!r} (read as 0)")
            tolerance = Tolerance()
        formulas = _child(calc, "formulas")
        places = (formulas.get("decimal_places") or "").strip() if formulas is not None else ""
        decimals = int(places) if places.isdigit() else 2
        lines = (
            [(f.text or "").strip() for f in _children(formulas, "formula")] if formulas is not None else []
        )
        lines = [line for line in lines if line]
        declared: list[tuple[str, int, float | None, float | None]] = []
        vars_el = _child(calc, "vars")
        for var in _children(vars_el, "var") if vars_el is not None else []:
            name = (var.get("name") or "").strip()
            scale = (var.get("scale") or "").strip()
            declared.append(
                (
                    name,
                    int(scale) if scale.isdigit() else 0,
                    _number(_text_of(_child(var, "min"))),
                    _number(_text_of(_child(var, "max"))),
                )
            )
        names = [d[0] for d in declared]
        bad = [n for n in names if not fm_name_ok(n)] + [n for n in set(names) if names.count(n) > 1]
        if bad or not names:
            why = (
                f"its variable names {sorted(set(bad))} are not lmsexport names"
                if bad
                else "it declares no variable"
            )
            self.found.skip("calculated", self.loc, self.title or self.raw_id, why, "import.skipped")
            return None
        sets: list[tuple[dict[str, float], dict[str, str], float]] = []
        dropped = 0
        for vs in _all(calc, "var_set"):
            values: dict[str, float] = {}
            texts: dict[str, str] = {}
            for v in _children(vs, "var"):
                x = _number(v.text)
                if x is not None:
                    values[(v.get("name") or "").strip()] = x
                    texts[(v.get("name") or "").strip()] = (v.text or "").strip()
            answer_el = _child(vs, "answer")
            answer = _number(answer_el.text) if answer_el is not None else None
            if set(values) != set(names) or answer is None:
                dropped += 1
                continue
            sets.append((values, texts, answer))
        if dropped:
            self.drop(f"{dropped} variable set(s) without a value for every variable and an answer")
        if not sets:
            self.found.skip(
                "calculated",
                self.loc,
                self.title or self.raw_id,
                "it has no complete variable set",
                "import.skipped",
            )
            return None
        variables: list[RangeVariable | ListVariable] = []
        for name, scale, low, high in declared:
            got = [s[0][name] for s in sets]
            digits = max([scale, *(_digits(s[1][name]) for s in sets)])
            q10 = Decimal(1).scaleb(-digits)
            lo = min([x for x in (low, high) if x is not None] + got)
            hi = max([x for x in (low, high) if x is not None] + got)
            # The range's grid starts at min rounded down to the digits: every stored value is on it.
            lo_d = Decimal(repr(lo)).quantize(q10, rounding="ROUND_FLOOR")
            hi_d = Decimal(repr(hi)).quantize(q10, rounding="ROUND_CEILING")
            variables.append(RangeVariable(name, float(lo_d), float(hi_d), float(q10), digits))
        answer_formula, computed = self._calculated_formula(lines, names, sets, decimals)
        if computed is None:
            # Keep the stored answers as one more variable's values, the answer being that variable.
            answer_name = next(
                n for n in ("answer", *(f"answer_{i}" for i in range(1, 1000))) if n not in names
            )
            shown = ", ".join(lines) if lines else "none"
            self.drop(
                f"the formula ({shown}, Canvas's syntax): its variable sets' answers are kept as the values "
                f"of a variable {answer_name!r}, and the answer formula is {answer_name}",
                "import.formula-not-carried",
            )
            variables.append(ListVariable(answer_name, tuple(sorted({s[2] for s in sets})), None))
            answer_formula = answer_name
            sets = [({**v, answer_name: a}, t, a) for v, t, a in sets]
            computed = [a for _, _, a in sets]
        order = [v.name for v in variables]
        drawn = tuple(
            Variant(i, tuple((n, values[n]) for n in order), value)
            for i, ((values, _, _), value) in enumerate(zip(sets, computed, strict=True), 1)
        )
        params = Parameters(tuple(variables))
        return replace(
            q, body=Calculated(params, ModelFormula(answer_formula), tolerance, decimals, (), drawn)
        )

    def _calculated_formula(
        self,
        lines: list[str],
        names: list[str],
        sets: list[tuple[dict[str, float], dict[str, str], float]],
        decimals: int,
    ) -> tuple[str, list[float] | None]:
        """(the answer formula in lmsexport's syntax, each var_set's answer by it), or ("", None)
        when Canvas's formula does not translate or its values are not the stored answers."""
        if len(lines) != 1:
            return "", None
        try:
            tree = fm.from_canvas(lines[0])
        except fm.FormulaError:
            return "", None
        if fm.check_names(tree, names):
            return "", None
        out: list[float] = []
        for values, _, stored in sets:
            try:
                value = fm.evaluate(tree, values)
            except fm.EvaluationError:
                return "", None
            if not _answer_matches(value, stored, decimals):
                return "", None
            out.append(value)
        return fm.to_source(tree), out

    def _matching(
        self, q: Question, presentation: etree._Element, conditions: list[_Condition], used: set[str]
    ) -> Question | None:
        lids = _all(presentation, "response_lid")
        right_text: dict[str, str] = {}
        for lid in lids:
            for label in _all(lid, "response_label"):
                ident = (label.get("ident") or "").strip()
                if ident not in right_text:
                    text, _ = self.material(label)
                    right = plain_text(text)
                    if isinstance(text, Rich):
                        self.lost.append("markup in a right-hand item (kept as plain text)")
                        right = " ".join(right.split())
                    right_text[ident] = right
        pairs = []
        used_rights: set[str] = set()
        for lid in lids:
            respident = lid.get("ident") or ""
            left, _ = self.material(_child(lid, "material"))
            match = next((v for c in conditions if c.score > 0 for _, v, _ in c.equals(respident)), None)
            if left is None:
                continue
            if match is None or not right_text.get(match):
                self.drop(f"left item {plain_text(left)[:40]!r}, which has no right match")
                continue
            used_rights.add(match)
            pairs.append(Pair(left, right_text[match], loc=SourceLoc(self.loc.path, lid.sourceline or 0)))
            render = _child(lid, "render_choice")
            if render is not None:
                self.shuffle = (render.get("shuffle") or "No").lower() == "yes"
        if not pairs:
            self.found.warn(self.loc, f"{self.label}: no right pairs; skipped", "import.no-key")
            return None
        for c in conditions:
            for f in c.feedback:
                if f.endswith("_fb") and f not in ("correct_fb", "general_incorrect_fb", "general_fb"):
                    used.add(f)
                    if self.feedback_text(f) is not None:
                        self.drop(f"the feedback {f!r} on a wrong match")
        rights = {p.right for p in pairs}
        distractors = []
        for ident, text in right_text.items():
            if ident not in used_rights and text and text not in rights and text not in distractors:
                distractors.append(text)
        return replace(q, body=Matching(tuple(pairs), tuple(distractors)))

    def _cloze(
        self,
        q: Question,
        presentation: etree._Element,
        conditions: list[_Condition],
        used: set[str],
        dropdowns: bool,
    ) -> Question | None:
        """Canvas's fill-in-multiple-blanks or multiple-dropdowns question (writers/qti12.py
        _write_cloze, Canvas's qti_items.rb): one ``response_lid ident="response_<blank_id>"`` per
        blank, each ``[blank_id]`` of the text a gap. A fill-in blank is a text blank accepting every
        label (Canvas's process_canvas makes each one right; Canvas compares without case); a
        drop-down a choice blank whose right choices a condition adding to SCORE tests. The blanks'
        weights are the shares of the score their conditions add, when each has one."""
        lids: dict[str, etree._Element] = {}
        for lid in _all(presentation, "response_lid"):
            respident = lid.get("ident") or ""
            blank_id = respident.removeprefix("response_")
            if blank_id and blank_id not in lids:
                lids[blank_id] = lid
        stem, order = _gapped(q.stem, list(lids))
        for blank_id in lids:
            if blank_id not in order:
                self.drop(f"blank {blank_id!r}, which the text does not show ([{blank_id}] is not in it)")
        if not order:
            self.found.warn(
                self.loc, f"{self.label}: no blank of it is in its text; skipped", "import.no-key"
            )
            return None
        blanks: list[TextBlank | ChoiceBlank] = []
        shares: list[float] = []
        for blank_id in order:
            lid = lids[blank_id]
            respident = lid.get("ident") or ""
            scores: dict[str, float] = {}
            feedback_for: dict[str, str] = {}
            for c in conditions:
                values = [v for _, v, _ in c.equals(respident)]
                if c.sets and c.score > 0:
                    for v in values:
                        scores[v] = max(scores.get(v, 0.0), c.score)
                fid = c.answer_feedback
                if fid is not None and len(values) == 1 and not c.sets:
                    feedback_for.setdefault(values[0], fid)
            shares.append(max(scores.values(), default=0.0))
            entries: list[tuple[str, Text, Text | None]] = []
            for label in _all(lid, "response_label"):
                ident = (label.get("ident") or "").strip()
                text, _ = self.material(label)
                if text is None:
                    continue
                fid = feedback_for.get(ident) or (f"{ident}_fb" if f"{ident}_fb" in self.feedback else None)
                if fid is not None:
                    used.add(fid)
                entries.append((ident, text, self.feedback_text(fid) if fid else None))
            render = _child(lid, "render_choice")
            if dropdowns:
                choices = []
                for ident, text, feedback in entries:
                    words = plain_text(text) if isinstance(text, Rich) else text
                    choices.append(Choice(words, 1.0 if scores.get(ident, 0.0) > 0 else 0.0, feedback))
                shuffle = render is not None and (render.get("shuffle") or "No").lower() == "yes"
                if not any(c.full for c in choices):
                    self.found.warn(
                        self.loc,
                        f"{self.label}: blank {blank_id!r} has no right choice; skipped",
                        "import.no-key",
                    )
                    return None
                blanks.append(ChoiceBlank(tuple(choices), shuffle=shuffle))
            else:
                answers = tuple(
                    Answer(plain_text(text) if isinstance(text, Rich) else text, 1.0, feedback)
                    for _, text, feedback in entries
                )
                if not answers:
                    self.found.warn(
                        self.loc, f"{self.label}: blank {blank_id!r} has no answer; skipped", "import.no-key"
                    )
                    return None
                blanks.append(TextBlank(answers))
        weights = _weights(shares)
        blanks = [replace(b, weight=w) for b, w in zip(blanks, weights, strict=True)]
        return replace(q, stem=stem, body=Cloze(tuple(blanks)))


def _weights(shares: list[float]) -> list[int]:
    """Whole weights in the ratio of the shares the blanks' conditions add (Canvas's and
    lmsexport's ``%.2f`` of 100 x weight / total), or all 1 when a blank has none or no small
    whole ratio fits them."""
    if not shares or min(shares) <= 0:
        return [1] * len(shares)
    total = sum(shares)
    fractions = [Fraction(exact_credit(x / total)).limit_denominator(100) for x in shares]
    if any(abs(float(f) - x / total) > 0.002 for f, x in zip(fractions, shares, strict=True)):
        return [1] * len(shares)
    scale = math.lcm(*(f.denominator for f in fractions))
    weights = [int(f * scale) for f in fractions]
    common = math.gcd(*weights)
    return [w // common for w in weights] if common else [1] * len(shares)


def _gapped(stem: Text, blank_ids: list[str]) -> tuple[Rich, list[str]]:
    """The stem with the first ``[blank_id]`` of each blank as its Gap, numbered in reading order,
    and the blank ids in that order (a blank the text does not show is left out; a second
    placeholder of a blank stays text)."""
    rich = rich_of_words(stem) if isinstance(stem, str) else stem
    if not blank_ids:
        return rich, []
    pattern = re.compile(
        r"\[(" + "|".join(re.escape(b) for b in sorted(blank_ids, key=len, reverse=True)) + r")\]"
    )
    order: list[str] = []

    def gaps(x: Inline) -> tuple[Inline, ...] | None:
        if not isinstance(x, Str):
            return None
        out: list[Inline] = []
        at = 0
        for m in pattern.finditer(x.text):
            if m.group(1) in order:
                continue
            if m.start() > at:
                out.append(Str(x.text[at : m.start()]))
            order.append(m.group(1))
            out.append(Gap(len(order)))
            at = m.end()
        if at < len(x.text):
            out.append(Str(x.text[at:]))
        return tuple(out)  # () for an empty Str: dropped

    return map_inlines(rich, gaps), order


def _numeric_key(var: etree._Element) -> NumericKey | None:
    """The key a numerical condition tests: or(varequal, and(vargte, varlte)), a range, a value."""
    equal = next((_number(v.text) for v in _all(var, "varequal")), None)
    low = next((_number(v.text) for v in _all(var, "vargte")), None)
    if low is None:
        low = next((_number(v.text) for v in _all(var, "vargt")), None)
    high = next((_number(v.text) for v in _all(var, "varlte")), None)
    if high is None:
        high = next((_number(v.text) for v in _all(var, "varlt")), None)
    if low is not None and high is not None and low <= high:
        if equal is not None:
            tolerance = _exact_margin(var, equal)
            if tolerance is not None:
                return NumericKey(answer=equal, tolerance=tolerance)
        return _key_from_bounds(equal, low, high)
    if equal is not None:
        return NumericKey(answer=equal)
    return None


def _exact_margin(var: etree._Element, answer: float) -> float | None:
    """The margin of an exact answer written with decimal arithmetic (Canvas's BigDecimal, and
    lmsexport's writer): high - answer == answer - low, computed exactly."""
    try:
        a = Decimal(next(v.text or "" for v in _all(var, "varequal")).strip())
        lo = Decimal((next(v.text or "" for v in _all(var, "vargte"))).strip())
        hi = Decimal((next(v.text or "" for v in _all(var, "varlte"))).strip())
    except (StopIteration, InvalidOperation):
        return None
    if hi - a != a - lo or hi < a:
        return None
    return float(hi - a)


def _key_text(key: NumericKey) -> str:
    if key.low is not None and key.high is not None:
        return f"{key.low:g}..{key.high:g}"
    return f"{key.answer:g}" + (f" ± {key.tolerance:g}" if key.tolerance else "")


# --------------------------------------------------------------------------- documents and packages


class _Reader:
    def __init__(self, files: PackageFiles | None, display: str) -> None:
        self.files = files
        self.display = display
        self.found = Found()
        self.seen_items: set[str] = set()

    def where(self, member: str) -> str:
        return self.files.where(member) if self.files is not None else self.display

    def document(
        self,
        member: str,
        data: bytes,
        meta: dict[str, object] | None = None,
        own: bool = False,
        bank: bool = False,
    ) -> None:
        where = self.where(member)
        tree, problems = parse_untrusted_qti12(data, where)
        self.found.diags += problems
        if tree is None:
            return
        root = tree.getroot()
        if _local(root) != "questestinterop":
            self.found.error(
                SourceLoc(where, root.sourceline or 0),
                f"root element <{_local(root)}> is not a QTI 1.2 questestinterop",
                "import.unknown-kind",
            )
            return
        for el in root:
            local = _local(el)
            if local == "assessment":
                self.assessment(el, member, meta or {}, own)
            elif local in ("objectbank", "section"):
                self.bank(el, member, own)
        if _children(root, "item"):
            quiz = self._quiz(root, member, PurePosixPath(member or self.display).stem, own)
            self._finish(quiz, self.items(root, member))

    def _quiz(self, el: etree._Element, member: str, title: str, own: bool) -> DraftQuiz:
        return DraftQuiz(
            raw_id=(el.get("ident") or "").strip() or None,
            title=title,
            lang=el.get("{http://www.w3.org/XML/1998/namespace}lang"),
            origin=self.where(member),
            kind="QTI 1.2",
            own=own,
            loc=SourceLoc(self.where(member), el.sourceline or 0),
        )

    def item(self, item: etree._Element, member: str) -> tuple[DraftQuestion, bool | None] | None:
        """An item as a draft and its shuffling (None for one already read, or not importable)."""
        ident = item.get("ident") or ""
        if ident and ident in self.seen_items:
            return None
        self.seen_items.add(ident)
        reader = _ItemReader(self.files, member, item, self.found, self.where(member))
        draft = reader.read()
        return (draft, reader.shuffle) if draft is not None else None

    def items(self, container: etree._Element, member: str) -> list[tuple[DraftQuestion, bool | None]]:
        out = []
        for item in _children(container, "item"):
            read = self.item(item, member)
            if read is not None:
                out.append(read)
        for ref in _children(container, "itemref") + _children(container, "sectionref"):
            self.found.warn(
                SourceLoc(self.where(member), ref.sourceline or 0),
                f"a reference to {ref.get('linkrefid')!r} (a question kept in a bank elsewhere) "
                "cannot be followed; not imported",
                "import.not-carried",
            )
        return out

    def bank(self, el: etree._Element, member: str, own: bool) -> None:
        meta = _meta(el)
        title = meta.get("bank_title") or (el.get("title") or "").strip() or PurePosixPath(member).stem
        quiz = self._quiz(el, member, title, own)
        self._finish(quiz, self._section_items(el, member))

    def _finish(self, quiz: DraftQuiz, drafts: list[tuple[DraftQuestion, bool | None]]) -> None:
        if not drafts:
            return
        quiz.questions = [d for d, _ in drafts]
        shuffles = [s for _, s in drafts if s is not None]
        if shuffles and len(set(shuffles)) == 1:
            quiz.shuffle = shuffles[0]
        elif shuffles:
            quiz.shuffle = False
            self.found.warn(
                quiz.loc or SourceLoc(self.display),
                f"the questions of {quiz.title!r} disagree on shuffling; an lmsexport quiz has one "
                "setting: not shuffled",
                "import.mixed-shuffle",
            )
        self.found.quizzes.append(quiz)

    def assessment(self, el: etree._Element, member: str, meta: dict[str, object], own: bool) -> None:
        title = (el.get("title") or "").strip() or str(meta.get("title") or "") or PurePosixPath(member).stem
        quiz = self._quiz(el, member, title, own)
        if own and _meta(el).get("cc_profile") == "cc.exam.v0p1" and (quiz.raw_id or "").startswith("A-"):
            quiz.raw_id = (quiz.raw_id or "")[2:]  # lmsexport's cartridge names an assessment A-<quiz id>
        presentation = _child(el, "presentation_material")
        if presentation is not None and "description" not in meta:
            item = _ItemReader(self.files, member, el, self.found, self.where(member))
            quiz.description = item.material(presentation)[0]
        if isinstance(meta.get("description"), str | Rich):
            quiz.description = meta["description"]  # type: ignore[assignment]
        sections = _children(el, "section")
        roots = [s for s in sections if s.get("ident") == "root_section"]
        if (
            own
            and len(sections) == 1
            and roots
            and _children(roots[0], "section")
            # exam_tree's shape: only sections of ours under the root, none of them a group (a
            # quiz's package with a calculated choice has items and a group there: read below)
            and not _children(roots[0], "item")
            and not any(_selection(s) is not None for s in _children(roots[0], "section"))
        ):
            self._own_assessment(quiz, roots[0], member)
            return
        groups = [s for s in _all(el, "section") if _selection(s) is not None]
        if not groups:
            drafts = []
            for section in sections:
                drafts += self._section_items(section, member)
            self._finish(quiz, drafts)
            if "shuffle" in meta and quiz in self.found.quizzes:
                quiz.shuffle = bool(meta["shuffle"])
            return
        assessment = DraftAssessment(
            raw_id=quiz.raw_id,
            title=title,
            lang=quiz.lang,
            origin=quiz.origin,
            kind="QTI 1.2",
            loc=quiz.loc,
            description=quiz.description,
        )
        listed = replace(
            quiz, raw_id=f"{quiz.raw_id or 'quiz'}-questions", title=f"{title}: questions", questions=[]
        )
        out = DraftSection(None)
        listed_drafts: list[tuple[DraftQuestion, bool | None]] = []
        for section in sections:
            self._group_draws(section, member, out, listed_drafts, title)
        self._finish(listed, listed_drafts)
        assessment.sections.append(out)
        self.found.assessments.append(assessment)

    def _own_assessment(self, quiz: DraftQuiz, root_section: etree._Element, member: str) -> None:
        """lmsexport's own assessment (writers/qti12.py exam_tree): a section per section of its
        (title; ``order_type="Random"`` when shuffled), in which a listed draw's questions are items
        and a random draw is a nested section, every candidate in it. The items are copies of its
        quizzes' questions at their points in the draw (dropped where those quizzes' packages are
        imported too: importer.finish); the draws keep the ids, a random draw the ids of every
        candidate (the importer rebuilds a pool that selects exactly them)."""
        assessment = DraftAssessment(
            raw_id=quiz.raw_id,
            title=quiz.title,
            lang=quiz.lang,
            origin=quiz.origin,
            kind="QTI 1.2",
            loc=quiz.loc,
            description=quiz.description,
            own=True,
            tagless=True,
        )
        listed = replace(
            quiz, raw_id=f"{quiz.raw_id or 'quiz'}-questions", title=f"{quiz.title}: questions", questions=[]
        )
        listed.copies = True
        listed_drafts: list[tuple[DraftQuestion, bool | None]] = []
        for section in _children(root_section, "section"):
            order = _child(_child(section, "selection_ordering"), "order")
            shuffle = order is not None and (order.get("order_type") or "").lower() == "random"
            out = DraftSection((section.get("title") or "").strip() or None, shuffle)
            run: list[tuple[etree._Element, DraftQuestion | None]] = []

            for child in section:
                if _local(child) == "item":
                    read = self.item(child, member)
                    if read is not None:
                        listed_drafts.append(read)
                    run.append((child, read[0] if read is not None else None))
                elif _local(child) == "section" and _selection(child) is not None:
                    _listed_draws(run, out)
                    self._own_group(quiz, child, member, out)
            _listed_draws(run, out)
            if out.draws:
                assessment.sections.append(out)
        self._finish(listed, listed_drafts)
        self.found.assessments.append(assessment)

    def _own_group(self, quiz: DraftQuiz, section: etree._Element, member: str, out: DraftSection) -> None:
        """A random draw of lmsexport's own assessment: its candidates (copies) in a quiz of their
        own, in the assessment's language; the draw names every candidate's id."""
        selection = _selection(section)
        assert selection is not None
        pick, points = selection
        name = (section.get("title") or "").strip() or None
        pool = replace(
            self._quiz(section, member, name or f"{quiz.title} group", True),
            lang=section.get("{http://www.w3.org/XML/1998/namespace}lang") or quiz.lang,
            copies=True,
        )
        items = _children(section, "item")
        drafts = [d for d in (self.item(i, member) for i in items) if d is not None]
        self._finish(pool, drafts)
        ids = list(dict.fromkeys(i.get("ident") or "" for i in items if i.get("ident")))
        if points is None:
            values = {_number(_meta(i).get("points_possible")) for i in items}
            points = values.pop() if len(values) == 1 else None
        if ids:
            out.draws.append(
                DraftDraw(
                    name, pool=pool, pick=min(pick, len(ids)), points=points, ids=ids, points_read_off=True
                )
            )

    def _section_items(self, section: etree._Element, member: str) -> list[tuple[DraftQuestion, bool | None]]:
        drafts = self.items(section, member)
        for sub in _children(section, "section"):
            drafts += self._section_items(sub, member)
        return drafts

    def _group_draws(
        self,
        section: etree._Element,
        member: str,
        out: DraftSection,
        listed: list[tuple[DraftQuestion, bool | None]],
        title: str,
    ) -> None:
        selection = _selection(section)
        if selection is not None:
            pick, points = selection
            pool = self._quiz(
                section, member, (section.get("title") or "").strip() or f"{title} group", False
            )
            drafts = self._section_items(section, member)
            self._finish(pool, drafts)
            if drafts:
                out.draws.append(
                    DraftDraw(name=pool.title, pool=pool, pick=min(pick, len(drafts)), points=points)
                )
            return
        run = self.items(section, member)
        if run:
            listed += run
            out.draws.append(DraftDraw(name=None, questions=[d for d, _ in run]))
        for sub in _children(section, "section"):
            self._group_draws(sub, member, out, listed, title)


def _listed_draws(run: list[tuple[etree._Element, DraftQuestion | None]], out: DraftSection) -> None:
    """The items of an own assessment's section between its groups, as listed draws (emptying
    ``run``): a run of items at the same points is one draw (the writer writes a draw's questions
    one after the other, each at the draw's points); an item read before (a copy of one in a group
    too) is named by its id."""
    while run:
        points = _number(_meta(run[0][0]).get("points_possible"))
        n = 1
        while n < len(run) and _number(_meta(run[n][0]).get("points_possible")) == points:
            n += 1
        part, run[:] = run[:n], run[n:]
        out.draws.append(
            DraftDraw(
                None,
                questions=[d for _, d in part if d is not None],
                ids=[(i.get("ident") or "") for i, d in part if d is None],
                points=points,
                points_read_off=True,
            )
        )


def _selection(section: etree._Element) -> tuple[int, float | None] | None:
    """(pick, points per item) of a question group, or None for a plain section."""
    number = next((el for el in section if _local(el) == "selection_ordering"), None)
    if number is None:
        return None
    n = next((_number(el.text) for el in _all(number, "selection_number")), None)
    if n is None or n < 1:
        return None
    points = next((_number(el.text) for el in _all(number, "points_per_item")), None)
    return int(n), points if points and points > 0 else None


def _canvas_meta(files: PackageFiles, member: str, found: Found) -> dict[str, object]:
    """Canvas's quiz settings file (assessment_meta.xml): title, description, shuffling."""
    data = files.read(member)
    if data is None:
        return {}
    from ..validate import parse_untrusted

    tree, problems = parse_untrusted(data, files.where(member))
    found.diags += problems
    if tree is None:
        return {}
    meta: dict[str, object] = {}
    for el in tree.getroot():
        local = _local(el)
        if local == "title" and (el.text or "").strip():
            meta["title"] = (el.text or "").strip()
        elif local == "description" and (el.text or "").strip():
            text, _, _ = html_text(el.text or "", not _OWN_TEXT.match((el.text or "").strip()))
            own = _OWN_TEXT.match((el.text or "").strip())
            if own is not None and "<" not in own.group(2).replace("<br/>", ""):
                import html

                text = html.unescape(own.group(2).replace("<br/>", "\n"))
            meta["description"] = simplify(text) if isinstance(text, Rich) else text
        elif local == "shuffle_answers":
            meta["shuffle"] = (el.text or "").strip().lower() == "true"
    return meta


def read_package(files: PackageFiles, display: str) -> Found:
    """A QTI 1.2 package (Canvas's QTI export, lmsexport's qti12 packages) or a Common Cartridge."""
    reader = _Reader(files, display)
    members = files.members
    manifest = None
    if "imsmanifest.xml" in members:
        data = files.read("imsmanifest.xml")
        if data is None:
            reader.found.diags += files.diags
            return reader.found
        tree, problems = parse_untrusted_qti12(data, files.where("imsmanifest.xml"))
        reader.found.diags += problems
        if tree is None:
            return reader.found
        manifest = tree.getroot()
    documents: list[tuple[str, dict[str, object], bool]] = []
    banks: list[str] = []
    if manifest is not None:
        own = (manifest.get("identifier") or "").startswith("MANIFEST-")
        metas: dict[str, dict[str, object]] = {}
        resources = {
            (r.get("identifier") or ""): r for r in manifest.iter(etree.Element) if _local(r) == "resource"
        }
        for res in resources.values():
            rtype = res.get("type") or ""
            hrefs = [res.get("href")] + [f.get("href") for f in _all(res, "file")]
            hrefs = list(dict.fromkeys(h for h in hrefs if h))
            targets = []
            for href in hrefs:
                target, remote = package_path("imsmanifest.xml", href)
                if target is None or remote:
                    reader.found.error(
                        files.loc("imsmanifest.xml", res.sourceline or 0),
                        f"href {href!r} leaves the package",
                        "package.unsafe-path",
                    )
                    continue
                targets.append(target)
            if rtype in _ASSESSMENT_TYPES:
                meta: dict[str, object] = {}
                for dep in _all(res, "dependency"):
                    dep_res = resources.get(dep.get("identifierref") or "")
                    if dep_res is not None and (dep_res.get("href") or "").endswith("assessment_meta.xml"):
                        target, _ = package_path("imsmanifest.xml", dep_res.get("href") or "")
                        if target is not None and target not in metas:
                            metas[target] = _canvas_meta(files, target, reader.found)
                        meta = metas.get(target or "", {})
                for target in targets:
                    if not target.endswith("assessment_meta.xml"):
                        documents.append((target, meta, own))
            elif rtype in _BANK_TYPES:
                banks += targets
        if not documents:
            documents = [(b, {}, own) for b in banks]
    if manifest is None or not documents:
        for member in members:
            if (
                member.lower().endswith((".xml", ".qti"))
                and member != "imsmanifest.xml"
                and not member.endswith("assessment_meta.xml")
            ):
                documents.append((member, {}, False))
    for member, meta, own in documents:
        data = files.read(member)
        if data is not None:
            reader.document(member, data, meta, own)
    reader.found.diags += files.diags
    files.diags = []
    if (
        not reader.found.quizzes
        and not reader.found.assessments
        and not reader.found.skipped
        and not any(d.severity.value == "error" for d in reader.found.diags)
    ):
        reader.found.error(SourceLoc(display), "no QTI 1.2 question in the package", "import.empty")
    return reader.found


def read_document(data: bytes, display: str, files: PackageFiles | None = None, member: str = "") -> Found:
    """One QTI 1.2 document (questestinterop) outside a package."""
    reader = _Reader(files, display)
    reader.document(member, data)
    if files is not None:
        reader.found.diags += files.diags
        files.diags = []
    return reader.found
