"""QTI 2.1 items, tests and content packages -> draft quizzes for `lmsexport import`.

What is read (the IMS QTI 2.1 information model; lmsexport's own writer, writers/qti21.py, is
read back exactly):

* interactions: ``choiceInteraction`` (single or multiple response; two choices reading
  true/false in any language lmsexport writes are a true/false question),
  ``textEntryInteraction`` (a string: short answer, accepted answers from the correct response
  and the full-score mapping entries with their case sensitivity; a float or integer: numerical,
  the tolerance from ``equal toleranceMode="absolute"`` or the ``gte``/``lte`` bounds lmsexport
  writes), ``matchInteraction`` and ``associateInteraction`` (matching, unused right items as
  distractors), ``extendedTextInteraction`` (essay), ``orderInteraction`` (ordering); an item
  with no interaction is a description, one of several text entry or of inline choice
  interactions a cloze (docs/source-format.md, "QTI 2.1: cloze, ordering and description"); an
  item with another interaction, or with several others, is skipped with a warning naming it;
* the key from ``correctResponse``, else the mapping, else the written-out response processing
  (``match`` of the response with a value that sets SCORE), which also links choices to the
  ``modalFeedback`` they show; the standard templates (match_correct, map_response) add nothing
  the declarations do not say;
* points: the test's ``<weight>`` on the item's reference (lmsexport's and Canvas's reading), or
  the item's MAXSCORE, SCORE's normalMaximum, the mapping's upper bound, the score it sets;
  Canvas's converted items carry ``instructureField points_possible``;
* texts: the item body's XHTML and MathML as the model's rich text (readers/richhtml.py), images
  from the package; ``feedbackInline`` in a choice and ``modalFeedback`` as choice feedback, the
  general ``modalFeedback`` as the explanation; ``xml:lang`` on the item and its choices;
* a test whose sections draw at random (``selection``) becomes an assessment, each drawn section
  a quiz of its own that the draw picks from; any other test is a quiz of its items in order;
* the manifest's LOM: keywords (tags), the test's description and difficulty, the language.

Everything is untrusted: the package is read through readers/packagefiles.py, every document
with validate.parse_untrusted (no DOCTYPE, no entity, no network).
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from lxml import etree

from ..errors import Severity
from ..media import MAX_IMAGE_BYTES, media_from_bytes, media_from_data_uri
from ..model import (
    Answer,
    Blank,
    Block,
    BulletList,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    Difficulty,
    Emph,
    Essay,
    Gap,
    Hint,
    Inline,
    Layout,
    Link,
    Matching,
    Media,
    MultipleChoice,
    NumberBlank,
    Numerical,
    NumericKey,
    OrderedList,
    Ordering,
    OrderingGrading,
    OutcomeFeedback,
    Pair,
    Para,
    Question,
    ResponseFormat,
    Rich,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Strong,
    Table,
    Text,
    TextBlank,
    TrueFalse,
    default_multiple_credits,
    exact_credit,
    plain_text,
)
from ..moodle import name_from_stem
from ..validate import package_path, parse_untrusted
from .drafts import (
    DraftAssessment,
    DraftDraw,
    DraftQuestion,
    DraftQuiz,
    DraftSection,
    Found,
    Images,
    simplify,
)
from .packagefiles import PackageFiles
from .richhtml import read_element

# The identifiers lmsexport's writer gives its outcome feedback (writers/qti21.py).
CORRECT_ID, PARTIAL_ID, INCORRECT_ID = "correct_fb", "partial_fb", "incorrect_fb"

QTI2 = re.compile(r"http://www\.imsglobal\.org/xsd/(?:qti/qtiv2p[012]|imsqti_v2p[012])\Z")
"""Namespaces read as QTI 2.1: 2.1 itself, and 2.0 and 2.2, whose items these interactions share."""
CP_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
_ITEM_TYPE = re.compile(r"imsqti_item_xmlv2p[012]")
_TEST_TYPE = re.compile(r"imsqti_test_xmlv2p[012]")
SUPPORTED = frozenset(
    {
        "choiceInteraction",
        "textEntryInteraction",
        "matchInteraction",
        "associateInteraction",
        "extendedTextInteraction",
        "orderInteraction",
    }
)
_DROPPED_BODY = {
    "rubricBlock": "a rubric block",
    "feedbackBlock": "a feedback block",
    "templateBlock": "a template block",
    "templateInline": "template text",
    "printedVariable": "a printed variable",
    "include": "a passage included from another file (xi:include)",
}
_CHOICE_FEEDBACK = frozenset({"feedbackInline", "feedbackBlock"})
"""Feedback inside a simpleChoice: that choice's feedback."""
_EXPLANATION_IDS = ("general_explanation", "general_fb", "solution", "explanation")
_LOM_DIFFICULTY = {
    "very easy": Difficulty.EASY,
    "easy": Difficulty.EASY,
    "medium": Difficulty.MEDIUM,
    "difficult": Difficulty.HARD,
    "very difficult": Difficulty.HARD,
}
_TRUE_WORDS = frozenset({"true", "t", "yes", "درست", "صحيح", "सही"})
_FALSE_WORDS = frozenset({"false", "f", "no", "غلط", "خطأ", "نادرست", "ग़लत"})


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def _children(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el if _local(c) == name]


def _child(el: etree._Element, name: str) -> etree._Element | None:
    return next((c for c in el if _local(c) == name), None)


def _descendants(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el.iter(etree.Element) if _local(c) == name]


def _number(text: str | None) -> float | None:
    import math

    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _interaction_kind(name: str) -> str:
    """choiceInteraction -> "choice", gapMatchInteraction -> "gap match"."""
    base = name.removesuffix("Interaction")
    return re.sub(r"(?<!^)([A-Z])", lambda m: " " + m.group(1).lower(), base)


# --------------------------------------------------------------------------- declarations


@dataclass
class _Decl:
    cardinality: str
    base_type: str
    correct: list[str]
    mapping: list[tuple[str, float, bool]] | None
    """(key, value, caseSensitive) of each mapEntry, or None without a mapping."""
    upper: float | None = None


def _decls(item: etree._Element) -> dict[str, _Decl]:
    out = {}
    for d in _children(item, "responseDeclaration"):
        correct = [
            (v.text or "").strip()
            for v in _descendants(d, "correctResponse")[:1]
            for v in _children(v, "value")
        ]
        mapping_el = _child(d, "mapping")
        mapping = None
        upper = None
        if mapping_el is not None:
            mapping = []
            for e in _children(mapping_el, "mapEntry"):
                value = _number(e.get("mappedValue"))
                case = (e.get("caseSensitive") or "true").strip().lower() not in ("false", "0")
                mapping.append(((e.get("mapKey") or "").strip(), value or 0.0, case))
            upper = _number(mapping_el.get("upperBound"))
        out[d.get("identifier") or ""] = _Decl(
            d.get("cardinality") or "single", d.get("baseType") or "", correct, mapping, upper
        )
    return out


# --------------------------------------------------------------------------- response processing


@dataclass
class _Rules:
    """What a written-out responseProcessing says, as far as lmsexport can use it."""

    scoring: list[tuple[str, str, float]] = field(default_factory=list)
    """(response, value, score) of each `match(variable, baseValue)` that sets SCORE > 0."""
    feedback: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """(response, value) -> the FEEDBACK identifiers that `match` adds."""
    bounds: tuple[float, float] | None = None
    """`and(gte(R, low), lte(R, high))`: lmsexport's numerical key."""
    tolerance: tuple[float, float] | None = None
    """`equal(R, value) toleranceMode="absolute" tolerance="t1 t2"`: (value, tolerance)."""
    strings: list[tuple[str, bool]] = field(default_factory=list)
    """(text, caseSensitive) of each `stringMatch(R, baseValue)` in a condition that sets SCORE."""
    max_score: float | None = None
    understood: bool = True


def _rules(item: etree._Element, response: str) -> _Rules:
    rules = _Rules()
    rp = _child(item, "responseProcessing")
    if rp is None:
        return rules
    if rp.get("template") and not len(rp):
        return rules
    for branch in rp.iter(etree.Element):
        if _local(branch) not in ("responseIf", "responseElseIf"):
            continue
        children = [c for c in branch if isinstance(c.tag, str)]
        if not children:
            continue
        test, actions = children[0], children[1:]
        score = None
        feedback: list[str] = []
        for a in actions:
            if _local(a) != "setOutcomeValue":
                continue
            values = [v for v in _descendants(a, "baseValue")]
            if a.get("identifier") == "SCORE":
                nums = [_number(v.text) for v in values]
                score = max((n for n in nums if n is not None), default=None)
                if score is not None:
                    rules.max_score = max(rules.max_score or 0.0, score)
            elif a.get("identifier") == "FEEDBACK":
                feedback += [(v.text or "").strip() for v in values]
        kind = _local(test)
        if kind == "match":
            var, value = _child(test, "variable"), _child(test, "baseValue")
            if var is not None and value is not None and var.get("identifier") == response:
                key = (response, (value.text or "").strip())
                if score is not None and score > 0:
                    rules.scoring.append((*key, score))
                if feedback:
                    rules.feedback.setdefault(key, []).extend(feedback)
        elif kind == "and" and score:
            gte, lte = _child(test, "gte"), _child(test, "lte")
            if gte is not None and lte is not None:
                low_el, high_el = _child(gte, "baseValue"), _child(lte, "baseValue")
                low = _number(low_el.text) if low_el is not None else None
                high = _number(high_el.text) if high_el is not None else None
                if low is not None and high is not None:
                    rules.bounds = (low, high)
            for sm in _descendants(test, "stringMatch"):
                value = _child(sm, "baseValue")
                if value is not None:
                    rules.strings.append(((value.text or "").strip(), sm.get("caseSensitive") == "true"))
        elif kind == "equal" and score:
            value = _child(test, "baseValue")
            tol = (test.get("tolerance") or "0").split()
            if value is not None and test.get("toleranceMode", "exact") in ("absolute", "exact"):
                v, t = _number(value.text), _number(tol[0]) if tol else 0.0
                if v is not None and t is not None:
                    rules.tolerance = (v, abs(t) if test.get("toleranceMode") == "absolute" else 0.0)
        elif kind == "stringMatch" and score:
            value = _child(test, "baseValue")
            if value is not None:
                rules.strings.append(((value.text or "").strip(), test.get("caseSensitive") == "true"))
    return rules


@dataclass
class _Branch:
    """One branch of a graded chain: its test of the response, the score and FEEDBACK it sets."""

    kind: str
    """"string" (stringMatch), "pattern" (patternMatch), "equal" or "range" (gte and lte)."""
    score: float
    feedback: list[str]
    text: str = ""
    case: bool = True
    value: float = 0.0
    tolerance: tuple[float, float] | None = None
    two: bool = False
    """Whether the tolerance attribute gave two numbers (below and above the value)."""
    low: float = 0.0
    high: float = 0.0


@dataclass
class _Chain:
    """A responseCondition whose branches, in order, each test the response and set SCORE (the
    first that holds counts): lmsexport's graded short answers and numerical keys."""

    branches: list[_Branch] = field(default_factory=list)
    other: list[str] = field(default_factory=list)
    """The FEEDBACK identifiers the responseElse sets (the other-answer feedback)."""


def _sets(branch: etree._Element) -> tuple[float | None, list[str]]:
    """The SCORE (a baseValue) and the FEEDBACK identifiers a branch sets directly."""
    score = None
    feedback: list[str] = []
    for a in branch:
        if _local(a) != "setOutcomeValue":
            continue
        values = _descendants(a, "baseValue")
        if a.get("identifier") == "SCORE" and len(values) == 1 and len(a) == 1:
            score = _number(values[0].text)
        elif a.get("identifier") == "FEEDBACK":
            feedback += [(v.text or "").strip() for v in values if v.get("baseType") == "identifier"]
    return score, feedback


def _test_of(test: etree._Element, response: str, score: float) -> _Branch | None:
    """The branch a condition on the response reads as, or None."""

    def is_response(el: etree._Element | None) -> bool:
        return el is not None and _local(el) == "variable" and el.get("identifier") == response

    kind = _local(test)
    kids = [c for c in test if isinstance(c.tag, str)]
    if kind == "stringMatch" and len(kids) == 2 and is_response(kids[0]) and _local(kids[1]) == "baseValue":
        case = (test.get("caseSensitive") or "true").strip() == "true"
        return _Branch("string", score, [], text=kids[1].text or "", case=case)
    if kind == "patternMatch" and len(kids) == 1 and is_response(kids[0]):
        return _Branch("pattern", score, [], text=test.get("pattern") or "")
    if kind == "equal" and len(kids) == 2 and {_local(kids[0]), _local(kids[1])} == {"variable", "baseValue"}:
        # The tolerances are around the first value (x - t0 <= y <= x + t1): lmsexport writes the
        # answer first; with the response first, [v - t1, v + t0] is the range.
        response_first = is_response(kids[0])
        if not (response_first or is_response(kids[1])):
            return None
        value = _number(kids[1 if response_first else 0].text)
        mode = test.get("toleranceMode") or "exact"
        if value is None or mode not in ("exact", "absolute"):
            return None
        tolerance = None
        two = False
        if mode == "absolute":
            parts = [_number(t) for t in (test.get("tolerance") or "0").split()]
            if not parts or any(t is None for t in parts):
                return None
            t0 = abs(parts[0] or 0.0)
            t1 = abs(parts[1] or 0.0) if len(parts) > 1 else t0
            tolerance = (t1, t0) if response_first else (t0, t1)
            two = len(parts) > 1
        return _Branch("equal", score, [], value=value, tolerance=tolerance, two=two)
    if kind == "and" and len(kids) == 2 and [_local(k) for k in kids] == ["gte", "lte"]:
        bounds: list[float | None] = []
        for cmp in kids:
            args = [c for c in cmp if isinstance(c.tag, str)]
            if len(args) != 2 or not is_response(args[0]) or _local(args[1]) != "baseValue":
                return None
            bounds.append(_number(args[1].text))
        if bounds[0] is None or bounds[1] is None:
            return None
        return _Branch("range", score, [], low=bounds[0], high=bounds[1])
    return None


def _chain(item: etree._Element, response: str) -> _Chain:
    """The first responseCondition (at any depth) that is a graded chain on ``response``."""
    rp = _child(item, "responseProcessing")
    if rp is None:
        return _Chain()
    for cond in rp.iter(etree.Element):
        if _local(cond) != "responseCondition":
            continue
        chain = _Chain()
        for branch in cond:
            local = _local(branch)
            score, feedback = _sets(branch)
            if local == "responseElse":
                chain.other = feedback
                continue
            kids = [c for c in branch if isinstance(c.tag, str)]
            if local not in ("responseIf", "responseElseIf") or not kids or score is None:
                chain = _Chain()
                break
            found = _test_of(kids[0], response, score)
            if found is None:
                chain = _Chain()
                break
            found.feedback = feedback
            chain.branches.append(found)
        if chain.branches:
            return chain
    return _Chain()


def _wildcard_of(pattern: str) -> tuple[str, bool | None] | None:
    """A patternMatch pattern lmsexport writes (writers/qti21.py wildcard_pattern) as the Moodle
    wildcard answer and its case sensitivity (None: the pattern has no cased letter to tell), or
    None for any other regular expression."""
    out: list[str] = []
    classes = bare = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith(".*", i):
            out.append("*")
            i += 2
        elif ch == "\\" and i + 1 < len(pattern) and pattern[i + 1] in _REGEX_SPECIALS:
            out.append(pattern[i + 1])
            i += 2
        elif (
            ch == "["
            and i + 3 < len(pattern)
            and pattern[i + 3] == "]"
            and pattern[i + 1].swapcase() == pattern[i + 2]
            and pattern[i + 1] != pattern[i + 2]
        ):
            out.append(pattern[i + 1])
            classes = True
            i += 4
        elif ch in _REGEX_SPECIALS:
            return None
        else:
            bare = bare or ch.swapcase() != ch
            out.append(ch)
            i += 1
    if classes and bare:
        return None
    return "".join(out), (False if classes else True if bare else None)


_REGEX_SPECIALS = "\\|.?*+(){}-[]^"
"""What an XML Schema regular expression escapes (writers/qti21.py _REGEX_SPECIALS)."""


def _is_scorer(el: etree._Element) -> bool:
    """Whether a rubricBlock is for the person who scores (view="scorer", among others)."""
    return "scorer" in (el.get("view") or "").split()


# --------------------------------------------------------------------------- items


class _ItemReader:
    """One assessmentItem -> a draft question (or a skip), its warnings and notes."""

    def __init__(self, files: PackageFiles, member: str, root: etree._Element, found: Found) -> None:
        self.files = files
        self.member = member
        self.root = root
        self.found = found
        self.loc = files.loc(member, root.sourceline or 0)
        self.own = root.get("toolName") == "lmsexport"
        self.raw_id = (root.get("identifier") or "").strip() or None
        self.title = (root.get("title") or "").strip() or None
        self.label = f"item {self.raw_id or self.title or member!r}"
        self.notes: list[str] = []
        self.lost: list[str] = []
        self.images = Images(self._image)
        self.shuffle: bool | None = None
        self.plain_texts = False
        """Whether a cloze's choices and feedback are plain texts (its stem's class)."""
        self.buttons: set[str] = set()
        """Response identifiers of the item's endAttemptInteractions (its hint buttons)."""
        """What the item's choice or match interaction says about shuffling (None: nothing)."""
        self.instructure = {
            (f.get("name") or ""): (f.get("value") or "")
            for f in root.iter(etree.Element)
            if _local(f) == "instructureField"
        }

    # -- texts -------------------------------------------------------------------------

    def _image(self, src: str) -> Media | None:
        if src.startswith("data:"):
            return media_from_data_uri(src)
        target, remote = package_path(self.member, src)
        if target is None or remote:
            return None
        return media_from_bytes(self.files.image(target, MAX_IMAGE_BYTES), PurePosixPath(target).name)

    def text(self, el: etree._Element | None, plain: bool | None) -> Text | None:
        """The content of an element as a text: exact for lmsexport's own items (a plain text when
        ``plain``; None: decided per element, as a cloze's texts are: a modalFeedback holding a
        <p> or words and line breaks only), lenient and simplified for other tools'."""
        if el is None:
            return None
        if self.own:
            el = _dedent(copy.deepcopy(el))
        rich, lost = read_element(el, self.images, foreign=not self.own)
        for what in self.images.lost(lost):
            if what != "<div>" and what not in self.lost:
                self.lost.append(what)
        if rich is None:
            return None
        if not self.own:
            return simplify(rich)
        if plain is None:
            # A modalFeedback holds <p> for a plain text, <div> for a rich one; other elements of
            # a cloze: its stem's class says (writers/qti21.py PLAIN_TEXTS_CLASS).
            plain = _child(el, "div") is None if _local(el) == "modalFeedback" else self.plain_texts
        if plain:
            return plain_text(rich) or None
        return rich

    def drop(self, what: str, rule: str = "import.not-carried") -> None:
        if f"not carried: {what}" in self.notes:
            return
        self.notes.append(f"not carried: {what}")
        self.found.warn(self.loc, f"{self.label}: not carried: {what}", rule)

    # -- the item ----------------------------------------------------------------------

    def read(self) -> DraftQuestion | None:
        body = _child(self.root, "itemBody")
        if body is None:
            self.found.skip("empty", self.loc, self.raw_id, "the item has no itemBody", "import.skipped")
            return None
        interactions = [el for el in body.iter(etree.Element) if _local(el).endswith("Interaction")]
        # An endAttemptInteraction beside another interaction is a button ("show a hint"), not
        # something to answer (QTI 2.1: its response is true when the learner used it).
        if any(_local(el) != "endAttemptInteraction" for el in interactions):
            self.buttons = {
                el.get("responseIdentifier") or ""
                for el in interactions
                if _local(el) == "endAttemptInteraction"
            }
            interactions = [el for el in interactions if _local(el) != "endAttemptInteraction"]
        kinds = [_local(el) for el in interactions]
        qtype_meta = self.instructure.get("question_type", "")
        canvas_skip = {
            "calculated_question": "calculated",
            "fill_in_multiple_blanks_question": "fill in multiple blanks",
            "multiple_dropdowns_question": "multiple dropdowns",
            "file_upload_question": "file upload",
        }
        if qtype_meta in canvas_skip:
            self.found.skip(
                canvas_skip[qtype_meta],
                self.loc,
                self.title or self.raw_id,
                "lmsexport has no such question type",
                "import.skipped",
            )
            return None
        if not interactions or _is_cloze(self.root, kinds):
            # A description (nothing to answer) or a cloze (blanks in the text).
            if interactions:
                made = self._cloze(body, interactions)
                self.points = self._points(_Decl("single", "", [], None), _rules(self.root, ""))
            else:
                made = self._description(body)
                self.points = 0.0
            if made is None:
                return None
            return self._finish(
                made, body, set(), None if interactions else self.own and _child(body, "div") is None
            )
        unsupported = [k for k in kinds if k not in SUPPORTED]
        if unsupported or len(interactions) > 1:
            kind = _interaction_kind(unsupported[0]) if unsupported else "composite"
            why = (
                f"lmsexport has no {_interaction_kind(unsupported[0])} interaction"
                if unsupported
                else f"the item has {len(interactions)} interactions; an lmsexport question has one"
            )
            self.found.skip(kind, self.loc, self.title or self.raw_id, why, "import.skipped")
            return None
        interaction = interactions[0]
        decls = _decls(self.root)
        response = interaction.get("responseIdentifier") or ""
        decl = decls.get(response)
        if decl is None:
            decl = _Decl("single", "string" if "Text" in kinds[0] else "identifier", [], None)
        rules = _rules(self.root, response)
        stem_plain = self.own and _child(body, "div") is None
        stem = self.text(self._stem_body(body, interaction), stem_plain)
        if stem is None:
            self.found.warn(self.loc, f"{self.label} has no question text; skipped", "import.empty-stem")
            return None
        lang = self.root.get(XML_LANG)
        q = Question(id="", stem=stem, body=Essay(), lang=lang, loc=self.loc)
        used_feedback: set[str] = set()
        kind = kinds[0]
        self.points = self._points(decl, rules)
        self.chain = _chain(self.root, response)
        typed: Question | None
        if kind == "choiceInteraction":
            typed = self._choice(q, interaction, decl, rules, used_feedback, stem_plain)
        elif kind == "textEntryInteraction":
            typed = self._text_entry(q, decl, rules, used_feedback, stem_plain)
        elif kind in ("matchInteraction", "associateInteraction"):
            typed = self._match(q, interaction, decl, stem_plain)
        elif kind == "orderInteraction":
            typed = self._ordering(q, interaction, decl, stem_plain)
        elif kind == "extendedTextInteraction" and qtype_meta != "short_answer_question":
            typed = self._essay(q, interaction, body, stem_plain)
        elif qtype_meta == "short_answer_question" and rules.strings:
            answers = tuple(Answer(a) for a in dict.fromkeys(s for s, _ in rules.strings if s))
            typed = replace(q, body=ShortAnswer(answers, case_sensitive=all(c for _, c in rules.strings)))
        else:
            typed = q
        if typed is None:
            return None
        return self._finish(typed, body, used_feedback, stem_plain)

    def _finish(
        self, typed: Question, body: etree._Element, used_feedback: set[str], stem_plain: bool | None
    ) -> DraftQuestion:
        """The header every kind shares: feedback, hints, explanation, points, name; and the
        warnings for what the body held that lmsexport drops."""
        hints = self._hints(used_feedback, stem_plain)
        typed = replace(
            typed,
            feedback=self._outcome_feedback(used_feedback, stem_plain),
            hints=hints,
            penalty=self._penalty() if hints else None,
            explanation=self._explanation(used_feedback, stem_plain),
            points=self.points,
        )
        if self.title is not None:
            from ..writers.qti21 import short_title

            derived = {short_title(typed), name_from_stem(typed)}
            typed = replace(typed, name=None if self.title in derived else self.title)
        for el in body.iter(etree.Element):
            in_choice = any(_local(a) == "simpleChoice" for a in el.iterancestors())
            if _local(el) in _DROPPED_BODY and not (in_choice and _local(el) in _CHOICE_FEEDBACK):
                if _local(el) == "rubricBlock" and isinstance(typed.body, Essay) and _is_scorer(el):
                    continue  # the essay's grader information
                self.drop(_DROPPED_BODY[_local(el)])
        if self.root.get("adaptive") == "true" and not (hints and self.own):
            self.drop("adaptive scoring (several attempts with feedback in between)")
        for what in self.lost:
            self.notes.append(f"not carried: {what}")
            self.found.warn(self.loc, f"{self.label}: not carried: {what}", "import.markup-lost")
        return DraftQuestion(typed, raw_id=self.raw_id, name=self.title, notes=self.notes)

    def _description(self, body: etree._Element) -> Question | None:
        """An item without interaction: its body is the text of a description."""
        copy_body = copy.deepcopy(body)
        for el in list(copy_body.iter(etree.Element)):
            if _local(el) in _DROPPED_BODY:
                _remove_keep_tail(el)
        stem = self.text(copy_body, self.own and _child(body, "div") is None)
        if stem is None:
            self.found.skip(
                "empty", self.loc, self.title or self.raw_id, "the item has no text", "import.skipped"
            )
            return None
        return Question(
            id="", stem=stem, body=Description(), points=0.0, lang=self.root.get(XML_LANG), loc=self.loc
        )

    def _stem_body(self, body: etree._Element, interaction: etree._Element) -> etree._Element:
        """itemBody without its interaction (its prompt kept in its place) and without feedback."""
        copy_body = copy.deepcopy(body)
        target = next(
            el
            for el in copy_body.iter(etree.Element)
            if _local(el) == _local(interaction)
            and el.get("responseIdentifier") == interaction.get("responseIdentifier")
        )
        parent = target.getparent()
        assert parent is not None
        prompt = _child(target, "prompt")
        replacement: etree._Element | None = None
        if prompt is not None and (len(prompt) or (prompt.text or "").strip()):
            replacement = etree.Element(
                etree.QName(target).namespace and f"{{{etree.QName(target).namespace}}}p" or "p"
            )
            replacement.text = prompt.text
            replacement.extend(list(prompt))
        elif _local(target) == "textEntryInteraction":
            around = (
                (parent.text or "")
                + "".join((c.tail or "") for c in parent)
                + "".join("".join(c.itertext()) for c in parent if c is not target)
            )
            if around.strip():
                replacement = etree.Element("span")
                replacement.text = "_____"
        if replacement is not None:
            replacement.tail = target.tail
            parent.replace(target, replacement)
        else:
            _remove_keep_tail(target)
            # The paragraph that held only the interaction is no part of the stem.
            if parent is not copy_body and not len(parent) and not (parent.text or "").strip():
                _remove_keep_tail(parent)
        for el in list(copy_body.iter(etree.Element)):
            if _local(el) in _DROPPED_BODY or _local(el) == "feedbackInline":
                _remove_keep_tail(el)
            elif _local(el) == "endAttemptInteraction":
                holder = el.getparent()
                _remove_keep_tail(el)
                if (
                    holder is not None
                    and holder is not copy_body
                    and not len(holder)
                    and not (holder.text or "").strip()
                ):
                    _remove_keep_tail(holder)
        return copy_body

    def _modal(self) -> dict[str, etree._Element]:
        return {(m.get("identifier") or ""): m for m in _children(self.root, "modalFeedback")}

    def _explanation(self, used: set[str], plain: bool | None) -> Text | None:
        modal = self._modal()
        chosen = None
        for ident, el in modal.items():
            if ident in used:
                continue
            low = ident.lower()
            if chosen is None and (low in _EXPLANATION_IDS or ("general" in low and "incorrect" not in low)):
                chosen = el
                continue
            title = el.get("title")
            self.drop(f"the feedback {ident!r}" + (f" ({title})" if title else "") + " shown on a condition")
        if chosen is None:
            return None
        return self.text(chosen, plain)

    def _points(self, decl: _Decl, rules: _Rules) -> float:
        candidates: list[float | None] = [_number(self.instructure.get("points_possible"))]
        for o in _children(self.root, "outcomeDeclaration"):
            if o.get("identifier") == "MAXSCORE":
                value = _descendants(o, "value")
                candidates.append(_number(value[0].text) if value else None)
        for o in _children(self.root, "outcomeDeclaration"):
            if o.get("identifier") == "SCORE":
                candidates.append(_number(o.get("normalMaximum")))
        candidates += [decl.upper, rules.max_score]
        return next((c for c in candidates if c is not None and c > 0), 1.0)

    # -- per interaction -----------------------------------------------------------------

    def _choice(
        self,
        q: Question,
        interaction: etree._Element,
        decl: _Decl,
        rules: _Rules,
        used: set[str],
        plain: bool,
    ) -> Question | None:
        multiple = decl.cardinality in ("multiple", "ordered")
        modal = self._modal()
        shuffle = (interaction.get("shuffle") or "false").strip() == "true"
        choices: list[Choice] = []
        idents: list[str] = []
        for sc in _children(interaction, "simpleChoice"):
            ident = (sc.get("identifier") or "").strip()
            inline = [f for f in sc.iter(etree.Element) if _local(f) in _CHOICE_FEEDBACK]
            content = copy.deepcopy(sc)
            for f in [f for f in content.iter(etree.Element) if _local(f) in _CHOICE_FEEDBACK]:
                _remove_keep_tail(f)
            text = self.text(content, plain)
            if text is None:
                self.drop(f"choice {ident!r}, which has no text")
                continue
            feedback = self.text(inline[0], plain) if inline else None
            if feedback is None:
                for fid in rules.feedback.get((decl_response(interaction), ident), []) + [ident]:
                    if fid in modal and fid not in used:
                        feedback = self.text(modal[fid], plain)
                        used.add(fid)
                        break
            choices.append(
                Choice(
                    text,
                    0.0,
                    feedback,
                    sc.get(XML_LANG),
                    loc=self.files.loc(self.member, sc.sourceline or 0),
                )
            )
            idents.append(ident)
        right = set(decl.correct)
        values = {k: v for k, v, _ in decl.mapping or []}
        if not right and values:
            best = max(values.values())
            right = {k for k, v in values.items() if (v > 0 if multiple else v == best and v > 0)}
        if not right:
            right = {v for r, v, _ in rules.scoring if r == decl_response(interaction)}
        if not right:
            self.found.warn(
                self.loc,
                f"{self.label}: no right choice can be found (no correctResponse, mapping or "
                "scoring rule lmsexport reads); skipped",
                "import.no-key",
            )
            return None
        flags = [i in right for i in idents]
        # Without a mapping: a single choice question's right choices earn full credit; a multiple
        # choice question's credits are the bank's default rule (right +1/number right, wrong
        # -1/number wrong).
        credits = default_multiple_credits(flags) if multiple else tuple(1.0 if f else 0.0 for f in flags)
        if values and max(values.values()) > 0:
            # With one: each choice's mapped value is its credit of the points (mapResponse).
            positive = sum(v for v in values.values() if v > 0)
            top = max(values.values())
            scale = max(self.points, top) if not multiple else (self.points or positive)
            if multiple and positive < scale * (1 - 1e-6) and decl.upper is None:
                scale = positive
            credits = tuple(max(-1.0, min(1.0, exact_credit(values.get(i, 0.0) / scale))) for i in idents)
        choices = [replace(c, credit=credit) for c, credit in zip(choices, credits, strict=True)]
        question = replace(
            q, body=MultipleChoice(tuple(choices)) if multiple else SingleChoice(tuple(choices))
        )
        self.shuffle = shuffle
        if not multiple and len(choices) == 2:
            truth = _true_false(choices)
            if truth is not None:
                self.shuffle = None
                trues = _TRUE_WORDS | {t.casefold() for t in _labels()[0]}
                first_true = plain_text(choices[0].text).strip().casefold() in trues
                said_true, said_false = (choices[0], choices[1]) if first_true else (choices[1], choices[0])
                return replace(
                    question,
                    body=TrueFalse(
                        truth, feedback_true=said_true.feedback, feedback_false=said_false.feedback
                    ),
                )
        return question

    def _text_entry(
        self, q: Question, decl: _Decl, rules: _Rules, used: set[str], plain: bool
    ) -> Question | None:
        if decl.base_type in ("float", "integer"):
            if any(b.kind in ("equal", "range") for b in self.chain.branches):
                return self._graded_numerical(q, decl, used, plain)
            return self._numerical(q, decl, rules)
        if self.chain.branches and all(b.kind in ("string", "pattern") for b in self.chain.branches):
            graded = self._graded_short_answer(q, used, plain)
            if graded is not None:
                return graded
        answers: list[str] = [a for a in decl.correct if a]
        cases: list[bool] = []
        credit: dict[str, float] = {}
        if decl.mapping:
            top = max(v for _, v, _ in decl.mapping)
            for key, value, case in decl.mapping:
                if value > 0 and top > 0:
                    answers.append(key)
                    cases.append(case)
                    credit.setdefault(key, exact_credit(value / top))
        for text, case in rules.strings:
            answers.append(text)
            cases.append(case)
        answers = list(dict.fromkeys(a for a in answers if a))
        if not answers:
            self.found.warn(
                self.loc, f"{self.label}: no accepted answer can be found; skipped", "import.no-key"
            )
            return None
        # match_correct compares strings exactly: case sensitive unless a mapping says otherwise.
        case_sensitive = all(cases) if cases else True
        if cases and len(set(cases)) > 1:
            self.drop("case sensitivity that differs between answers (all are compared ignoring case)")
            case_sensitive = False
        return replace(
            q, body=ShortAnswer(tuple(Answer(a, credit=credit.get(a, 1.0)) for a in answers), case_sensitive)
        )

    def _feedback_text(self, ids: list[str], used: set[str], plain: bool | None) -> Text | None:
        modal = self._modal()
        for fid in ids:
            if fid in modal:
                used.add(fid)
                return self.text(modal[fid], plain)
        return None

    def _credit(self, score: float) -> float:
        return exact_credit(score / self.points) if self.points > 0 else 0.0

    def _graded_short_answer(self, q: Question, used: set[str], plain: bool) -> Question | None:
        """The answers of a written-out chain of stringMatch / patternMatch conditions, in order."""
        answers: list[Answer] = []
        cases: list[bool] = []
        for b in self.chain.branches:
            feedback = self._feedback_text(b.feedback, used, plain)
            case: bool | None
            if b.kind == "string":
                text, case = b.text, b.case
            else:
                parsed = _wildcard_of(b.text)
                if parsed is None:
                    self.drop(f"the answer pattern {b.text!r} (lmsexport reads only Moodle-style wildcards)")
                    continue
                text, case = parsed
            if case is not None:
                cases.append(case)
            answers.append(
                Answer(text, credit=self._credit(b.score), feedback=feedback, wildcard=b.kind == "pattern")
            )
        if not answers:
            return None
        case_sensitive = bool(cases) and all(cases)
        if len(set(cases)) > 1:
            self.drop("case sensitivity that differs between answers (all are compared ignoring case)")
            case_sensitive = False
        other = self._feedback_text(self.chain.other, used, plain)
        return replace(q, body=ShortAnswer(tuple(answers), case_sensitive, other_feedback=other))

    def _graded_numerical(self, q: Question, decl: _Decl, used: set[str], plain: bool) -> Question | None:
        """The keys of a written-out chain of equal / gte-and-lte conditions, in order."""
        answer = _number(decl.correct[0]) if decl.correct else None
        keys: list[NumericKey] = []
        scores = [b.score for b in self.chain.branches if b.kind in ("equal", "range")]
        best = max(scores, default=0.0)
        answered = False
        for b in self.chain.branches:
            if b.kind not in ("equal", "range"):
                continue
            feedback = self._feedback_text(b.feedback, used, plain)
            credit = self._credit(b.score)
            # The correct response is the best key's answer (the first with the highest credit).
            best_key = b.score == best and not answered
            answered = answered or best_key
            if b.kind == "range":
                if best_key and answer is not None:
                    key = _key_from_bounds(answer, b.low, b.high)
                else:
                    key = NumericKey(low=b.low, high=b.high)
            elif b.tolerance is not None and b.two:
                # Two tolerances: a range around the answer (below it, above it).
                key = NumericKey(answer=b.value, low=b.value - b.tolerance[0], high=b.value + b.tolerance[1])
            else:
                key = NumericKey(answer=b.value, tolerance=b.tolerance[0] if b.tolerance else 0.0)
            keys.append(replace(key, credit=credit, feedback=feedback))
        if not keys:
            return None
        other = self._feedback_text(self.chain.other, used, plain)
        return replace(q, body=Numerical(keys=tuple(keys), other_feedback=other))

    def _essay(self, q: Question, interaction: etree._Element, body: etree._Element, plain: bool) -> Question:
        """An extendedTextInteraction's options; an lmsexport item without a format is the default essay."""
        fmt = interaction.get("format")
        essay = Essay()
        if fmt is not None or not self.own:
            lines = _number(interaction.get("expectedLines"))
            formats = {
                "xhtml": ResponseFormat.EDITOR,
                "plain": ResponseFormat.PLAIN,
                "preformatted": ResponseFormat.MONOSPACED,
            }
            if fmt is not None:
                essay = replace(essay, response_format=formats.get(fmt, ResponseFormat.EDITOR))
            if lines is not None and lines >= 1 and fmt is not None:
                essay = replace(essay, lines=int(lines))
        min_strings = interaction.get("minStrings")
        if min_strings is not None and (_number(min_strings) or 0) < 1:
            essay = replace(essay, required=False)
        template = interaction.get("placeholderText")
        if template:
            essay = replace(essay, template=template)
        rubric = next(
            (el for el in body.iter(etree.Element) if _local(el) == "rubricBlock" and _is_scorer(el)), None
        )
        if rubric is not None:
            essay = replace(essay, grader_info=self.text(rubric, plain and _child(rubric, "div") is None))
        return replace(q, body=essay)

    def _outcome_feedback(self, used: set[str], plain: bool | None) -> OutcomeFeedback:
        """lmsexport's feedback for a right, a partly right and a wrong response (by identifier)."""
        correct, partial, incorrect = (
            self._feedback_text([ident], used, plain) for ident in (CORRECT_ID, PARTIAL_ID, INCORRECT_ID)
        )
        return OutcomeFeedback(correct, partial, incorrect)

    def _hints(self, used: set[str], plain: bool | None) -> tuple[Hint, ...]:
        """The hints an adaptive item with a hint button shows, in order (hint_1, hint_2, ...)."""
        if not self.buttons:
            return ()
        hints = []
        for n in range(1, 1 + len(self._modal())):
            text = self._feedback_text([f"hint_{n}"], used, plain)
            if text is None:
                break
            hints.append(Hint(text))
        return tuple(hints)

    def _penalty(self) -> float | None:
        """What each hint costs, as a fraction of the points (None: Moodle's default 1/3)."""
        for product in self.root.iter(etree.Element):
            if _local(product) != "product":
                continue
            var, value = _child(product, "variable"), _child(product, "baseValue")
            if var is not None and value is not None and var.get("identifier") == "HINTS":
                cost = _number(value.text)
                if cost is None or self.points <= 0:
                    return None
                penalty = exact_credit(cost / self.points)
                return None if abs(penalty - 1 / 3) < 1e-9 else penalty
        return None

    def _numerical(self, q: Question, decl: _Decl, rules: _Rules) -> Question | None:
        answer = _number(decl.correct[0]) if decl.correct else None
        key: NumericKey | None = None
        if rules.bounds is not None:
            low, high = rules.bounds
            key = _key_from_bounds(answer, low, high)
        elif rules.tolerance is not None:
            value, tolerance = rules.tolerance
            key = NumericKey(answer=value, tolerance=tolerance)
        elif answer is not None:
            key = NumericKey(answer=answer)
        elif decl.mapping:
            top = max(v for _, v, _ in decl.mapping)
            first = next((_number(k) for k, v, _ in decl.mapping if v == top), None)
            key = NumericKey(answer=first) if first is not None else None
        if key is None:
            self.found.warn(self.loc, f"{self.label}: no numeric key can be found; skipped", "import.no-key")
            return None
        return replace(q, body=Numerical(keys=(key,)))

    def _match(self, q: Question, interaction: etree._Element, decl: _Decl, plain: bool) -> Question | None:
        sets = _children(interaction, "simpleMatchSet")
        if _local(interaction) == "matchInteraction" and len(sets) == 2:
            lefts = _children(sets[0], "simpleAssociableChoice")
            rights = _children(sets[1], "simpleAssociableChoice")
        else:
            everything = _children(interaction, "simpleAssociableChoice")
            lefts, rights = everything, everything
        self.shuffle = (interaction.get("shuffle") or "false").strip() == "true"
        pairs_raw = [tuple(v.split()) for v in decl.correct if len(v.split()) == 2]
        if not pairs_raw and decl.mapping:
            pairs_raw = [tuple(k.split()) for k, v, _ in decl.mapping if v > 0 and len(k.split()) == 2]
        left_by = {(c.get("identifier") or ""): c for c in lefts}
        right_text: dict[str, str] = {}
        for c in rights:
            text = self.text(c, True)
            if isinstance(text, Rich):
                self.lost.append("markup in a right-hand item (kept as plain text)")
            right = plain_text(text)
            right_text[(c.get("identifier") or "")] = right if self.own else " ".join(right.split())
        pairs: list[Pair] = []
        used_left: set[str] = set()
        used_right: set[str] = set()
        for a, b in pairs_raw:
            if a not in left_by and b in left_by:
                a, b = b, a
            if a not in left_by or b not in right_text:
                continue
            if a in used_left:
                self.drop(f"a second right match for left item {a!r}")
                continue
            left = self.text(left_by[a], plain)
            if left is None or not right_text[b]:
                continue
            used_left.add(a)
            used_right.add(b)
            pairs.append(
                Pair(left, right_text[b], loc=self.files.loc(self.member, left_by[a].sourceline or 0))
            )
        if not pairs:
            self.found.warn(self.loc, f"{self.label}: no right pairs can be found; skipped", "import.no-key")
            return None
        for ident in left_by:
            if ident not in used_left and ident not in used_right and lefts is not rights:
                self.drop(f"left item {ident!r}, which matches nothing")
        rights_used = {p.right for p in pairs}
        distractors = []
        for ident, text in right_text.items():
            if ident in used_right or ident in used_left or not text or text in rights_used:
                continue
            if text not in distractors:
                distractors.append(text)
        return replace(q, body=Matching(tuple(pairs), tuple(distractors)))

    # -- cloze, ordering, description ------------------------------------------------------

    def _inline_feedback(self) -> dict[str, etree._Element]:
        """The feedbackInline of the item body outside any choice, by identifier."""
        body = _child(self.root, "itemBody")
        out: dict[str, etree._Element] = {}
        for el in body.iter(etree.Element) if body is not None else ():
            if _local(el) == "feedbackInline" and not any(
                _local(a) == "simpleChoice" for a in el.iterancestors()
            ):
                out.setdefault(el.get("identifier") or "", el)
        return out

    def _fb(self, ids: list[str], inline: dict[str, etree._Element]) -> Text | None:
        for ident in ids:
            if ident in inline:
                return self.text(inline[ident], None)
        return None

    def _cloze(self, body: etree._Element, interactions: list[etree._Element]) -> Question | None:
        decls = _decls(self.root)
        copy_body = _dedent(copy.deepcopy(body)) if self.own else copy.deepcopy(body)
        responses = [decl_response(i) for i in interactions]
        targets = [
            el
            for el in copy_body.iter(etree.Element)
            if _local(el) in _CLOZE_KINDS and decl_response(el) in responses
        ]
        for n, target in enumerate(targets, 1):
            marker = f"\ue010{n}\ue011"
            parent = target.getparent()
            assert parent is not None
            prev = target.getprevious()
            if prev is not None:
                prev.tail = (prev.tail or "") + marker + (target.tail or "")
            else:
                parent.text = (parent.text or "") + marker + (target.tail or "")
            parent.remove(target)
        for el in list(copy_body.iter(etree.Element)):
            if _local(el) in _DROPPED_BODY or _local(el) == "feedbackInline":
                _remove_keep_tail(el)
            elif _local(el) == "endAttemptInteraction":
                holder = el.getparent()
                _remove_keep_tail(el)
                if (
                    holder is not None
                    and holder is not copy_body
                    and not len(holder)
                    and not (holder.text or "").strip()
                ):
                    _remove_keep_tail(holder)
        stem_div = _child(body, "div")
        self.plain_texts = stem_div is not None and "plain-texts" in (stem_div.get("class") or "").split()
        stem = self.text(copy_body, False)
        if stem is None:
            self.found.warn(self.loc, f"{self.label} has no question text; skipped", "import.empty-stem")
            return None
        inline = self._inline_feedback()
        blanks: list[Blank] = []
        for interaction in interactions:
            blank = self._blank(interaction, decls, inline)
            if blank is None:
                self.found.skip(
                    "cloze",
                    self.loc,
                    self.title or self.raw_id,
                    f"no answer of its blank {decl_response(interaction)!r} can be read",
                    "import.skipped",
                )
                return None
            blanks.append(blank)
        weights = self._blank_weights(len(blanks))
        blanks = [replace(b, weight=w) for b, w in zip(blanks, weights, strict=True)]
        return Question(
            id="", stem=_gapped(stem), body=Cloze(tuple(blanks)), lang=self.root.get(XML_LANG), loc=self.loc
        )

    def _blank_weights(self, count: int) -> list[int]:
        """lmsexport's SCORE = points x sum(weight x BLANK_n) / total: the integer weights."""
        weights = [1] * count
        for product in self.root.iter(etree.Element):
            if _local(product) != "product":
                continue
            kids = [c for c in product if isinstance(c.tag, str)]
            if len(kids) == 2 and _local(kids[0]) == "baseValue" and _local(kids[1]) == "variable":
                m = re.fullmatch(r"BLANK_([0-9]+)", kids[1].get("identifier") or "")
                w = _number(kids[0].text)
                if m and w is not None and w >= 1 and w.is_integer() and 1 <= int(m.group(1)) <= count:
                    weights[int(m.group(1)) - 1] = int(w)
        return weights

    def _blank(
        self, interaction: etree._Element, decls: dict[str, _Decl], inline: dict[str, etree._Element]
    ) -> Blank | None:
        response = decl_response(interaction)
        kind = _local(interaction)
        decl = decls.get(response) or _Decl(
            "single", "string" if kind == "textEntryInteraction" else "identifier", [], None
        )
        if kind == "textEntryInteraction":
            chain = _BlankChain(self.root, response)
            other = self._fb(chain.other, inline)
            if decl.base_type in ("float", "integer"):
                answer = _number(decl.correct[0]) if decl.correct else None
                keys: list[NumericKey] = []
                best = max((b.score for b in chain.branches), default=0.0)
                answered = False
                for b in chain.branches:
                    best_key = b.score == best and not answered
                    answered = answered or best_key
                    if b.kind == "range":
                        key = (
                            _key_from_bounds(answer, b.low, b.high)
                            if best_key
                            else NumericKey(low=b.low, high=b.high)
                        )
                    elif b.kind == "equal" and b.tolerance is not None and b.two:
                        key = NumericKey(
                            answer=b.value, low=b.value - b.tolerance[0], high=b.value + b.tolerance[1]
                        )
                    elif b.kind == "equal":
                        key = NumericKey(answer=b.value, tolerance=b.tolerance[0] if b.tolerance else 0.0)
                    else:
                        continue
                    keys.append(
                        replace(key, credit=exact_credit(b.score), feedback=self._fb(b.feedback, inline))
                    )
                if not keys and answer is not None:
                    keys = [NumericKey(answer=answer)]
                return NumberBlank(tuple(keys), other_feedback=other) if keys else None
            answers: list[Answer] = []
            cases: list[bool] = []
            for b in chain.branches:
                if b.kind == "string":
                    text, case = b.text, b.case
                elif b.kind == "pattern":
                    parsed = _wildcard_of(b.text)
                    if parsed is None:
                        self.drop(
                            f"the answer pattern {b.text!r} (lmsexport reads only Moodle-style wildcards)"
                        )
                        continue
                    text, case = parsed  # type: ignore[assignment]
                else:
                    continue
                if case is not None:
                    cases.append(case)
                answers.append(
                    Answer(
                        text,
                        credit=exact_credit(b.score),
                        feedback=self._fb(b.feedback, inline),
                        wildcard=b.kind == "pattern",
                    )
                )
            if not answers:
                texts = [a for a in decl.correct if a]
                top = max((v for _, v, _ in decl.mapping or []), default=0.0)
                mapped = {k: exact_credit(v / top) for k, v, _ in decl.mapping or [] if v > 0 and top > 0}
                texts += [k for k in mapped if k not in texts]
                cases = [c for _, _, c in decl.mapping or []]
                answers = [Answer(t, credit=mapped.get(t, 1.0)) for t in texts]
            if not answers:
                return None
            return TextBlank(tuple(answers), case_sensitive=bool(cases) and all(cases), other_feedback=other)
        if kind == "inlineChoiceInteraction":
            elements = _children(interaction, "inlineChoice")
            display = ChoiceDisplay.DROPDOWN
            multiple = False
        else:
            elements = _children(interaction, "simpleChoice")
            horizontal = (interaction.get("orientation") or "").strip() == "horizontal"
            display = ChoiceDisplay.HORIZONTAL if horizontal else ChoiceDisplay.VERTICAL
            multiple = decl.cardinality in ("multiple", "ordered")
        idents = [(e.get("identifier") or "").strip() for e in elements]
        values = {k: v for k, v, _ in decl.mapping or []}
        right = set(decl.correct) or {v for v in idents if values.get(v, 0) > 0}
        if self.own and values:
            credits = [exact_credit(values.get(i, 0.0)) for i in idents]
        elif multiple:
            credits = list(default_multiple_credits([i in right for i in idents]))
        else:
            credits = [1.0 if i in right else 0.0 for i in idents]
        choices: list[Choice] = []
        for e, ident, credit in zip(elements, idents, credits, strict=True):
            content = copy.deepcopy(e)
            fb_el = [f for f in content.iter(etree.Element) if _local(f) in _CHOICE_FEEDBACK]
            for f in fb_el:
                _remove_keep_tail(f)
            if kind == "inlineChoiceInteraction":
                words = "".join(content.itertext())
                if not self.own:
                    words = " ".join(words.split())
                # An inlineChoice holds text only: a rich choice comes back as its words.
                rich = self.own and not self.plain_texts
                label: Text | None = (Rich((Para((Str(words),)),)) if rich else words) if words else None
            else:
                label = self.text(content, None)
            if label is None:
                if kind == "inlineChoiceInteraction":
                    # QTI players show an empty inlineChoice as "nothing picked yet".
                    self.drop("an empty drop-down choice (the prompt to pick one)")
                    continue
                return None
            inline_fb = [f for f in e.iter(etree.Element) if _local(f) in _CHOICE_FEEDBACK]
            feedback = self.text(inline_fb[0], None) if inline_fb else self._fb([ident], inline)
            choices.append(Choice(label, credit, feedback, e.get(XML_LANG)))
        if not choices:
            return None
        shuffle = (interaction.get("shuffle") or "false").strip() == "true"
        return ChoiceBlank(tuple(choices), display=display, multiple=multiple, shuffle=shuffle)

    def _ordering(
        self, q: Question, interaction: etree._Element, decl: _Decl, plain: bool
    ) -> Question | None:
        by_id = {(sc.get("identifier") or "").strip(): sc for sc in _children(interaction, "simpleChoice")}
        order = [i for i in decl.correct if i in by_id]
        if len(order) < 2 or len(set(order)) != len(order):
            self.found.warn(self.loc, f"{self.label}: no right order can be found; skipped", "import.no-key")
            return None
        if len(order) < len(by_id):
            self.drop("the items outside the right order")
        items: list[Text] = []
        for ident in order:
            text = self.text(by_id[ident], plain)
            if text is None:
                return None
            items.append(text)
        # lmsexport names the grading in its count's interpretation (writers/qti21.py
        # GRADING_INTERPRETATION); another tool's item scoring per position uses `index`.
        grading = OrderingGrading.ALL_OR_NOTHING
        for o in _children(self.root, "outcomeDeclaration"):
            m = re.fullmatch(
                r"countcorrect of qtype_ordering grading ([a-z_]+)", o.get("interpretation") or ""
            )
            if m and m.group(1) in {g.value for g in OrderingGrading}:
                grading = OrderingGrading(m.group(1))
                break
        else:
            if any(_local(el) == "index" for el in self.root.iter(etree.Element)):
                grading = OrderingGrading.ABSOLUTE_POSITION
        horizontal = (interaction.get("orientation") or "").strip() == "horizontal"
        return replace(
            q,
            body=Ordering(
                tuple(items), grading=grading, layout=Layout.HORIZONTAL if horizontal else Layout.VERTICAL
            ),
        )


def decl_response(interaction: etree._Element) -> str:
    return interaction.get("responseIdentifier") or ""


_VERBATIM = frozenset({"pre", "code"})


def _dedent(el: etree._Element) -> etree._Element:
    """Take out the indentation pretty printing added (lmsexport's own items are pretty printed):
    white space between the children of an element whose content is only elements. Mixed
    content keeps every space (a pretty printer never indents it)."""
    for node in el.iter(etree.Element):
        if _local(node) in _VERBATIM or any(_local(a) in _VERBATIM for a in node.iterancestors()):
            continue
        texts = [node.text] + [c.tail for c in node]
        if (
            len(node)
            and all(t is None or not t.strip() for t in texts)
            and any(t and "\n" in t for t in texts)
        ):
            node.text = None
            for c in node:
                c.tail = None
    return el


def _remove_keep_tail(el: etree._Element) -> None:
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail or ""
    prev = el.getprevious()
    if prev is not None:
        prev.tail = (prev.tail or "") + tail
    else:
        parent.text = (parent.text or "") + tail
    parent.remove(el)


def _labels() -> tuple[list[str], list[str]]:
    """The true and the false words of lmsexport's QTI writer, in every language it writes."""
    from ..writers.qti21 import TRUE_FALSE_LABELS

    return [t for t, _ in TRUE_FALSE_LABELS.values()], [f for _, f in TRUE_FALSE_LABELS.values()]


def _true_false(choices: list[Choice]) -> bool | None:
    """The truth of a two-choice question whose choices read true and false, else None."""
    words = [plain_text(c.text).strip().casefold() for c in choices]
    labels = _labels()
    trues = _TRUE_WORDS | {t.casefold() for t in labels[0]}
    falses = _FALSE_WORDS | {f.casefold() for f in labels[1]}
    if not ({words[0], words[1]} & trues and {words[0], words[1]} & falses) or words[0] == words[1]:
        return None
    if sum(c.full for c in choices) != 1:
        return None
    right = words[0] if choices[0].full else words[1]
    return right in trues


def _key_from_bounds(answer: float | None, low: float, high: float) -> NumericKey:
    """lmsexport's written numerical key, read back: answer +- tolerance when the bounds are exactly
    what its writer computes from one, else the range (with the answer, if any)."""
    if answer is not None and low <= answer <= high:
        if low == high == answer:
            return NumericKey(answer=answer)
        for t in _tolerances(answer, low, high):
            if answer - t == low and answer + t == high:
                return NumericKey(answer=answer, tolerance=t)
        return NumericKey(answer=answer, low=low, high=high)
    return NumericKey(low=low, high=high)


def _tolerances(answer: float, low: float, high: float) -> list[float]:
    raw = [high - answer, answer - low, (high - low) / 2]
    out = []
    for t in raw:
        out.append(t)
        for digits in range(1, 18):
            out.append(float(f"{t:.{digits}g}"))
    return sorted({t for t in out if t > 0}, key=lambda t: len(repr(t)))


# --------------------------------------------------------------------------- cloze, ordering, description

_CLOZE_KINDS = frozenset({"textEntryInteraction", "inlineChoiceInteraction", "choiceInteraction"})
_MARK = re.compile("\ue010([0-9]+)\ue011")
"""Where a blank's interaction stood in the stem while its text is read (private-use characters)."""


def _is_cloze(root: etree._Element, kinds: list[str]) -> bool:
    """Blanks in a text: lmsexport's own cloze (its BLANK_1 outcome; choice interactions are its
    vertical and horizontal blanks), or another tool's item of inline interactions only, several
    text entries or any inline choice. (Several block choiceInteractions of another tool are a
    composite item: a question and a "don't know" button, Canvas's converted blanks.)"""
    if any(o.get("identifier") == "BLANK_1" for o in _children(root, "outcomeDeclaration")):
        return bool(kinds) and set(kinds) <= _CLOZE_KINDS
    inline = {"textEntryInteraction", "inlineChoiceInteraction"}
    return bool(kinds) and set(kinds) <= inline and (len(kinds) > 1 or "inlineChoiceInteraction" in kinds)


def _gapped_inlines(inlines: tuple[Inline, ...]) -> tuple[Inline, ...]:
    out: list[Inline] = []
    for x in inlines:
        if isinstance(x, Str):
            at = 0
            for m in _MARK.finditer(x.text):
                if m.start() > at:
                    out.append(Str(x.text[at : m.start()]))
                out.append(Gap(int(m.group(1))))
                at = m.end()
            if at < len(x.text):
                out.append(Str(x.text[at:]))
        elif isinstance(x, Emph | Strong):
            out.append(type(x)(_gapped_inlines(x.children)))
        elif isinstance(x, Link):
            out.append(replace(x, children=_gapped_inlines(x.children)))
        else:
            out.append(x)
    return _merge_split(tuple(out))


def _merge_split(inlines: tuple[Inline, ...]) -> tuple[Inline, ...]:
    """Emph(a) Gap Emph(b) -> Emph(a Gap b): the writer splits an inline element around a block
    choice interaction (writers/qti21.py _split_around); reading puts it back together."""
    out: list[Inline] = []
    for x in inlines:
        if (
            len(out) >= 2
            and isinstance(out[-1], Gap)
            and isinstance(x, Emph | Strong)
            and type(out[-2]) is type(x)
        ):
            gap, before = out.pop(), out.pop()
            assert isinstance(before, Emph | Strong)
            x = type(x)(before.children + (gap,) + x.children)
        out.append(x)
    return tuple(out)


def _gapped_block(block: Block) -> Block:
    if isinstance(block, Para):
        return Para(_gapped_inlines(block.children))
    if isinstance(block, BulletList | OrderedList):
        return replace(block, items=tuple(tuple(_gapped_block(b) for b in item) for item in block.items))
    if isinstance(block, Table):
        return replace(
            block,
            header=tuple(_gapped_inlines(c) for c in block.header),
            rows=tuple(tuple(_gapped_inlines(c) for c in row) for row in block.rows),
        )
    return block


def _gapped(text: Text) -> Rich:
    """A stem read with blank markers, the markers as Gap inlines."""
    rich = text if isinstance(text, Rich) else Rich((Para((Str(text),)),))
    return Rich(tuple(_gapped_block(b) for b in rich.blocks))


def _outcome_number(action: etree._Element) -> float | None:
    values = _descendants(action, "baseValue")
    return _number(values[0].text) if len(values) == 1 and len(action) == 1 else None


class _BlankChain:
    """A responseCondition on one blank's response, as lmsexport writes it: an optional
    isNull branch, then one branch per answer (key), then an else with the other feedback."""

    def __init__(self, root: etree._Element, response: str) -> None:
        self.branches: list[_Branch] = []
        self.other: list[str] = []
        rp = _child(root, "responseProcessing")
        if rp is None:
            return
        for cond in rp.iter(etree.Element):
            if _local(cond) != "responseCondition":
                continue
            branches: list[_Branch] = []
            ok = True
            other: list[str] = []
            for branch in cond:
                local = _local(branch)
                kids = [c for c in branch if isinstance(c.tag, str)]
                credit = None
                feedback: list[str] = []
                for a in kids[1:] if local != "responseElse" else kids:
                    if _local(a) != "setOutcomeValue":
                        continue
                    if a.get("identifier") == "FEEDBACK":
                        feedback += [
                            (v.text or "").strip()
                            for v in _descendants(a, "baseValue")
                            if v.get("baseType") == "identifier"
                        ]
                    elif credit is None:
                        credit = _outcome_number(a)
                if local == "responseElse":
                    other = feedback
                    continue
                if not kids:
                    ok = False
                    break
                test = kids[0]
                if _local(test) == "isNull" and any(
                    _local(v) == "variable" and v.get("identifier") == response for v in test
                ):
                    continue
                found = _test_of(test, response, credit or 0.0) if credit is not None else None
                if found is None:
                    ok = False
                    break
                found.feedback = feedback
                branches.append(found)
            if ok and branches:
                self.branches, self.other = branches, other
                return


# --------------------------------------------------------------------------- tests and packages


def _parse(files: PackageFiles, member: str, found: Found) -> etree._ElementTree | None:
    data = files.read(member)
    if data is None:
        return None
    tree, problems = parse_untrusted(data, files.where(member))
    found.diags += problems
    return tree


def _is_qti2(root: etree._Element, local: str) -> bool:
    return _local(root) == local and bool(QTI2.match(etree.QName(root).namespace or ""))


@dataclass
class _Section:
    title: str | None
    visible: bool
    shuffle: bool
    select: int | None
    identifier: str
    refs: list[tuple[str, dict[str, float]]] = field(default_factory=list)
    """(item member, weights) directly in the section, in order."""
    subsections: list[_Section] = field(default_factory=list)
    order: list[object] = field(default_factory=list)
    """The section's children in document order: ref tuples and _Sections."""


class _TestReader:
    def __init__(self, files: PackageFiles, member: str, root: etree._Element, found: Found) -> None:
        self.files = files
        self.member = member
        self.root = root
        self.found = found

    def sections(self) -> list[_Section]:
        out = []
        for part in _children(self.root, "testPart"):
            for el in part:
                if _local(el) in ("assessmentSection", "assessmentSectionRef"):
                    s = self._section(el, self.member, 0)
                    if s is not None:
                        out.append(s)
        return out

    def _section(self, el: etree._Element, member: str, depth: int) -> _Section | None:
        if depth > 16:
            return None
        if _local(el) == "assessmentSectionRef":
            target, remote = package_path(member, el.get("href") or "", _bases(el))
            if target is None or remote:
                self.found.error(
                    self.files.loc(member, el.sourceline or 0),
                    f"section reference {el.get('href')!r} leaves the package",
                    "package.unsafe-path",
                )
                return None
            tree = _parse(self.files, target, self.found)
            if tree is None or not _is_qti2(tree.getroot(), "assessmentSection"):
                return None
            return self._section(tree.getroot(), target, depth + 1)
        selection = _child(el, "selection")
        ordering = _child(el, "ordering")
        select = None
        if selection is not None:
            n = _number(selection.get("select"))
            select = int(n) if n is not None and n >= 1 else None
            if (selection.get("withReplacement") or "false") == "true":
                self.found.warn(
                    self.files.loc(member, selection.sourceline or 0),
                    "a selection with replacement is imported as one without",
                    "import.not-carried",
                )
        section = _Section(
            title=(el.get("title") or "").strip() or None,
            visible=(el.get("visible") or "true") == "true",
            shuffle=ordering is not None and ordering.get("shuffle") == "true",
            select=select,
            identifier=el.get("identifier") or "",
        )
        for child in el:
            local = _local(child)
            if local == "assessmentItemRef":
                target, remote = package_path(member, child.get("href") or "", _bases(child))
                if target is None or remote:
                    self.found.error(
                        self.files.loc(member, child.sourceline or 0),
                        f"item reference {child.get('href')!r} leaves the package",
                        "package.unsafe-path",
                    )
                    continue
                weights = {}
                for w in _children(child, "weight"):
                    value = _number(w.get("value"))
                    if value is not None:
                        weights[w.get("identifier") or ""] = value
                ref = (target, weights)
                section.refs.append(ref)
                section.order.append(ref)
            elif local in ("assessmentSection", "assessmentSectionRef"):
                sub = self._section(child, member, depth + 1)
                if sub is not None:
                    section.subsections.append(sub)
                    section.order.append(sub)
        return section


def _bases(el: etree._Element) -> list[str]:
    return [b for a in reversed([el, *el.iterancestors()]) if (b := a.get(XML_BASE)) is not None]


def _all_refs(section: _Section) -> list[tuple[str, dict[str, float]]]:
    """Every item reference of a section and its sub-sections, in document order."""
    out: list[tuple[str, dict[str, float]]] = []
    for child in section.order:
        if isinstance(child, _Section):
            out += _all_refs(child)
        else:
            out.append(child)  # type: ignore[arg-type]
    return out


VARIANTS_PREFIX = "_variants-"
"""writers/qti21.py's sub-section of a parametric question's variants (one drawn per attempt)."""


def _variants_of(section: _Section, own: bool) -> bool:
    """Whether a section is lmsexport's own sub-section of one parametric question's variants."""
    return own and section.select == 1 and section.identifier.startswith(VARIANTS_PREFIX)


def _randomized(sections: list[_Section], own: bool = False) -> bool:
    """Whether a test draws at random; lmsexport's variant sections do not count: a quiz with
    parametric questions stays a quiz (their variants read as its questions)."""
    return any(
        (s.select is not None and not _variants_of(s, own)) or _randomized(s.subsections, own)
        for s in sections
    )


def _variant_sections(sections: list[_Section], own: bool) -> list[_Section]:
    out = []
    for s in sections:
        out += [s] if _variants_of(s, own) else _variant_sections(s.subsections, own)
    return out


class PackageReader:
    """A QTI 2.1 package (zip or folder) or a single item or test file."""

    def __init__(self, files: PackageFiles, display: str) -> None:
        self.files = files
        self.display = display
        self.found = Found()
        self.items: dict[str, DraftQuestion | None] = {}
        self.item_lang: dict[str, str | None] = {}
        self.item_shuffle: dict[str, bool | None] = {}
        self.item_own: dict[str, bool] = {}
        self.tags: dict[str, tuple[str, ...]] = {}
        self.taken: set[str] = set()

    # -- items -------------------------------------------------------------------------

    def item(self, member: str) -> DraftQuestion | None:
        """The draft of an item member (read once)."""
        if member not in self.items:
            tree = _parse(self.files, member, self.found)
            draft = None
            if tree is not None:
                root = tree.getroot()
                if _is_qti2(root, "assessmentItem"):
                    reader = _ItemReader(self.files, member, root, self.found)
                    draft = reader.read()
                    self.item_shuffle[member] = reader.shuffle
                    self.item_lang[member] = root.get(XML_LANG)
                    self.item_own[member] = reader.own
                else:
                    self.found.error(
                        self.files.loc(member, root.sourceline or 0),
                        f"{etree.QName(root).localname} is not a QTI 2.1 assessmentItem",
                        "import.not-an-item",
                    )
            if draft is not None and member in self.tags:
                draft.question = replace(draft.question, tags=self.tags[member])
            self.items[member] = draft
        return self.items[member]

    @staticmethod
    def ref_points(draft: DraftQuestion, weights: dict[str, float], weighted: str | None) -> float:
        """The points a test's reference gives an item: its score times the weight the test's
        outcome processing applies, else the reference's first weight (lmsexport's and Canvas's
        reading), else the item's own points."""
        own = draft.question.points
        if weighted is not None and weighted in weights:
            points = own * weights[weighted]
        elif weights:
            points = next(iter(weights.values()))
        else:
            points = own
        return points if points > 0 else own

    # -- the package ---------------------------------------------------------------------

    def read_package(self) -> Found:
        members = self.files.members
        manifest = None
        if "imsmanifest.xml" in members:
            tree = _parse(self.files, "imsmanifest.xml", self.found)
            if tree is None:
                return self._done()
            manifest = tree.getroot()
        tests: list[str] = []
        items: list[str] = []
        title = PurePosixPath(self.display.rstrip("/")).stem
        lang = None
        test_meta: dict[str, dict[str, object]] = {}
        if manifest is not None:
            title = _manifest_title(manifest) or title
            lang = _manifest_lang(manifest)
            for res in manifest.iter(etree.Element):
                if _local(res) != "resource":
                    continue
                rtype = res.get("type") or ""
                if not (_ITEM_TYPE.fullmatch(rtype) or _TEST_TYPE.fullmatch(rtype)):
                    continue
                href = res.get("href")
                if href is None:
                    file = next((f for f in res.iter(etree.Element) if _local(f) == "file"), None)
                    href = file.get("href") if file is not None else None
                if href is None:
                    continue
                target, remote = package_path("imsmanifest.xml", href, _bases(res))
                if target is None or remote:
                    self.found.error(
                        self.files.loc("imsmanifest.xml", res.sourceline or 0),
                        f"resource href {href!r} leaves the package",
                        "package.unsafe-path",
                    )
                    continue
                if _ITEM_TYPE.fullmatch(rtype):
                    items.append(target)
                    if keywords := _lom_keywords(res):
                        self.tags[target] = keywords
                else:
                    tests.append(target)
                    test_meta[target] = _lom_test(res)
        else:
            for member in members:
                if not member.lower().endswith(".xml"):
                    continue
                tree = _parse(self.files, member, self.found)
                if tree is None:
                    continue
                if _is_qti2(tree.getroot(), "assessmentTest"):
                    tests.append(member)
                elif _is_qti2(tree.getroot(), "assessmentItem"):
                    items.append(member)
        for test in tests:
            self.read_test(test, lang, test_meta.get(test, {}))
        rest = [m for m in items if m not in self.taken]
        if rest:
            quiz = DraftQuiz(
                raw_id=None,
                title=title,
                lang=lang,
                origin=self.display,
                kind="QTI 2.1",
                loc=SourceLoc(self.display),
            )
            self._fill(quiz, [(m, {}) for m in rest], None)
        if not tests and not items and not any(d.severity is Severity.ERROR for d in self.found.diags):
            self.found.error(
                SourceLoc(self.display), "no QTI 2.1 item or test in the package", "import.empty"
            )
        return self._done()

    def read_test(self, member: str, lang: str | None, meta: dict[str, object]) -> None:
        tree = _parse(self.files, member, self.found)
        if tree is None:
            return
        root = tree.getroot()
        if not _is_qti2(root, "assessmentTest"):
            self.found.warn(
                self.files.loc(member, root.sourceline or 0),
                f"a test resource names <{etree.QName(root).localname}>, not an assessmentTest; its "
                "items are read as the package's",
                "import.not-a-test",
            )
            return
        weighted = None
        for tv in root.iter(etree.Element):
            if _local(tv) == "testVariables" and tv.get("variableIdentifier") == "SCORE":
                weighted = tv.get("weightIdentifier") or weighted
        sections = _TestReader(self.files, member, root, self.found).sections()
        title = (root.get("title") or "").strip() or PurePosixPath(member).stem
        test_id = (root.get("identifier") or "").strip() or None
        where = self.files.where(member)
        loc = self.files.loc(member, root.sourceline or 0)
        own = root.get("toolName") == "lmsexport"
        for s in _variant_sections(sections, own):
            self.found.warn(
                self.files.loc(member, 0),
                f"the {len(s.refs)} variants of parametric question "
                f"{s.identifier.removeprefix(VARIANTS_PREFIX)!r} are read as that many questions: QTI 2.1 "
                "carries no formula, and the draw of one variant per attempt is not kept",
                "import.not-carried",
            )
        if not _randomized(sections, own):
            quiz = DraftQuiz(
                raw_id=test_id, title=title, lang=lang, origin=where, kind="QTI 2.1", own=own, loc=loc
            )
            description, difficulty = meta.get("description"), meta.get("difficulty")
            quiz.description = description if isinstance(description, str) else None
            quiz.difficulty = difficulty if isinstance(difficulty, Difficulty) else None
            self._fill(quiz, [r for s in sections for r in _all_refs(s)], weighted)
            return
        assessment = DraftAssessment(
            raw_id=test_id, title=title, lang=lang, origin=where, kind="QTI 2.1", loc=loc, own=own
        )
        if isinstance(meta.get("description"), str):
            assessment.description = str(meta["description"])
        # lmsexport's own assessment package holds copies of its quizzes' items (the same
        # identifiers): dropped where those quizzes' packages are imported too (importer.finish).
        listed = DraftQuiz(
            raw_id=f"{test_id or 'test'}-questions",
            title=f"{title}: questions",
            lang=lang,
            origin=where,
            kind="QTI 2.1",
            loc=loc,
            copies=own,
        )
        for section in sections:
            out = DraftSection(section.title if section.visible else None, section.shuffle)
            self._draws(section, out, listed, weighted, where, lang, top=True)
            if out.draws:
                assessment.sections.append(out)
        self.found.assessments.append(assessment)

    def _draws(
        self,
        section: _Section,
        out: DraftSection,
        listed: DraftQuiz,
        weighted: str | None,
        where: str,
        lang: str | None,
        top: bool,
    ) -> None:
        if section.select is not None:
            pool = DraftQuiz(
                raw_id=section.identifier.strip("_") or None,
                title=section.title or section.identifier,
                lang=lang,
                origin=where,
                kind="QTI 2.1",
                loc=SourceLoc(where),
                copies=listed.copies,
            )
            drafts = self._fill(pool, _all_refs(section), weighted, apply_points=False)
            if drafts:
                out.draws.append(
                    DraftDraw(
                        name=section.title or section.identifier,
                        pool=pool,
                        pick=min(section.select, len(drafts)),
                        points=_draw_points(drafts),
                        ids=[d.raw_id for d, _ in drafts if d.raw_id] if listed.copies else [],
                    )
                )
            return
        run: list[tuple[DraftQuestion, float]] = []

        def flush() -> None:
            if run:
                out.draws.append(
                    DraftDraw(name=None, questions=[d for d, _ in run], points=_draw_points(run))
                )
                run.clear()

        for child in section.order:
            if isinstance(child, _Section) and _variants_of(child, listed.copies):
                # A parametric question's variants, as in a quiz's test: listed questions.
                run += self._fill(listed, _all_refs(child), weighted, apply_points=False)
            elif isinstance(child, _Section):
                flush()
                self._draws(child, out, listed, weighted, where, lang, top=False)
            else:
                run += self._fill(listed, [child], weighted, apply_points=False)  # type: ignore[list-item]
        flush()

    def _fill(
        self,
        quiz: DraftQuiz,
        refs: list[tuple[str, dict[str, float]]],
        weighted: str | None,
        apply_points: bool = True,
    ) -> list[tuple[DraftQuestion, float]]:
        """Put the referenced items into a quiz (each item once in the whole package); returns each
        draft with the points its reference gives (set on the question when ``apply_points``)."""
        out = []
        for member, weights in refs:
            if member in self.taken:
                draft = self.items.get(member)
                if draft is not None:
                    out.append((draft, self.ref_points(draft, weights, weighted)))
                continue
            draft = self.item(member)
            self.taken.add(member)
            if draft is None:
                continue
            points = self.ref_points(draft, weights, weighted)
            if apply_points and points != draft.question.points:
                draft.question = replace(draft.question, points=points)
            quiz.questions.append(draft)
            out.append((draft, points))
        members = [m for m, _ in refs if self.items.get(m) is not None]
        if quiz.questions and quiz not in self.found.quizzes:
            langs = Counter(lang for m in members if (lang := self.item_lang.get(m)))
            if quiz.lang is None and langs:
                quiz.lang = langs.most_common(1)[0][0]
            shuffles = [s for m in members if (s := self.item_shuffle.get(m)) is not None]
            quiz.shuffle = all(shuffles)
            if len(set(shuffles)) > 1:
                self.found.warn(
                    quiz.loc or SourceLoc(self.display),
                    f"the items of {quiz.title!r} disagree on shuffling; an lmsexport quiz has one setting: "
                    "not shuffled",
                    "import.mixed-shuffle",
                )
            quiz.own = quiz.own or all(self.item_own.get(m, False) for m in members)
            self.found.quizzes.append(quiz)
        return out

    def _done(self) -> Found:
        self.found.diags += self.files.diags
        self.files.diags = []
        return self.found


def _draw_points(drafts: list[tuple[DraftQuestion, float]]) -> float | None:
    """A draw's points: None when every question keeps its own, else the one value all share."""
    if all(points == d.question.points for d, points in drafts):
        return None
    values = {points for _, points in drafts}
    return values.pop() if len(values) == 1 else None


def _manifest_title(manifest: etree._Element) -> str | None:
    for el in manifest.iter(etree.Element):
        if _local(el) == "title":
            parent = el.getparent()
            if parent is not None and _local(parent) == "general" and _local(parent.getparent()) == "lom":
                gp = parent.getparent().getparent()
                if gp is not None and _local(gp) == "metadata" and gp.getparent() is manifest:
                    text = " ".join("".join(el.itertext()).split())
                    return text or None
    return None


def _manifest_lang(manifest: etree._Element) -> str | None:
    metadata = _child(manifest, "metadata")
    if metadata is None:
        return None
    for el in metadata.iter(etree.Element):
        if _local(el) == "language" and _local(el.getparent()) == "general":
            return (el.text or "").strip() or None
    return None


def _lom_keywords(res: etree._Element) -> tuple[str, ...]:
    out = []
    for kw in res.iter(etree.Element):
        if _local(kw) == "keyword":
            for s in kw.iter(etree.Element):
                if _local(s) in ("string", "langstring") and (s.text or "").strip():
                    out.append((s.text or "").strip())
    return tuple(dict.fromkeys(out))


def _lom_test(res: etree._Element) -> dict[str, object]:
    meta: dict[str, object] = {}
    for el in res.iter(etree.Element):
        local = _local(el)
        if local == "description" and _local(el.getparent()) == "general":
            text = "".join(el.itertext()).strip()
            if text:
                meta["description"] = text
        elif local == "difficulty":
            value = next((v for v in el.iter(etree.Element) if _local(v) == "value"), None)
            if value is not None:
                d = _LOM_DIFFICULTY.get((value.text or "").strip().lower())
                if d is not None:
                    meta["difficulty"] = d
    return meta


def read_package(files: PackageFiles, display: str) -> Found:
    """Every quiz (and assessment) of a QTI 2.1 package."""
    return PackageReader(files, display).read_package()


def read_file(files: PackageFiles, member: str, display: str) -> Found:
    """One QTI 2.1 item or test file; ``files`` is its folder (for images and the items of a test)."""
    reader = PackageReader(files, display)
    tree = _parse(files, member, reader.found)
    if tree is None:
        return reader._done()
    root = tree.getroot()
    if _is_qti2(root, "assessmentTest"):
        reader.read_test(member, root.get(XML_LANG), {})
    elif _is_qti2(root, "assessmentItem"):
        quiz = DraftQuiz(
            raw_id=None,
            title=PurePosixPath(member).stem,
            lang=root.get(XML_LANG),
            origin=display,
            kind="QTI 2.1",
            loc=SourceLoc(display),
        )
        reader._fill(quiz, [(member, {})], None)
    else:
        reader.found.error(
            SourceLoc(display, root.sourceline or 0),
            f"{etree.QName(root).localname} is not a QTI 2.1 item or test",
            "import.unknown-kind",
        )
    return reader._done()
