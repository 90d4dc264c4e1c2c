"""Moodle XML's own facts, shared by its writer and its reader (lmsexport.writers.moodlexml,
lmsexport.readers.moodlexml), so that neither imports the other. What GIFT shares with Moodle XML
(Moodle's grade list, its texts, names, assessments) is in lmsexport.moodle. Each fact names the
Moodle code it comes from (moodle/moodle: question/format/xml/format.php is qformat_xml; the
question types' questiontype.php save_question_options() and edit forms).

* Elements: which question type has which (combined feedback, hints with their options), and
  the values its elements take (essay response formats, numerical units).
* Defaults: what Moodle's forms save when nothing is chosen; a file holding them reads back as
  the model's default, and the model's default is written as them.
* Short answers: Moodle's `*` wildcard and its `\\*` escape (qtype_shortanswer_question::
  compare_string_with_wildcard()).
* Fractions Moodle stores to 7 decimals (penalties): written so that they read back exactly.
* lmsexport's own metadata comments, and how files are referred to.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, replace
from decimal import Decimal

from .model import (
    Inline,
    LineBreak,
    Para,
    Question,
    QuestionType,
    ResponseFormat,
    Rich,
    Str,
    UnitGrading,
    UnitInput,
    exact_credit,
)
from .moodle import format_number, name_from_stem
from .validate import MAX_MEMBER_BYTES

META_PREFIX = "lmsexport:"
"""`<!-- lmsexport: {...} -->` in a question: what Moodle XML has no element for."""
QUIZ_META_PREFIX = "lmsexport-quiz:"
ASSESSMENT_META_PREFIX = "lmsexport-assessment:"

PLUGINFILE = "@@PLUGINFILE@@/"
"""How a text refers to a file of its own field (question/format/xml/format.php
import_files_as_draft(); file_save_draft_area_files() keeps the reference)."""

MAX_MOODLEXML_BYTES = MAX_MEMBER_BYTES
"""A Moodle XML file larger than this is refused before it is read (a package member's limit);
the writer warns about a file it writes that is larger."""

QTYPES = {
    QuestionType.SINGLE: "multichoice",
    QuestionType.MULTIPLE: "multichoice",
    QuestionType.TRUE_FALSE: "truefalse",
    QuestionType.SHORT_ANSWER: "shortanswer",
    QuestionType.NUMERICAL: "numerical",
    QuestionType.MATCHING: "matching",
    QuestionType.ESSAY: "essay",
    QuestionType.CLOZE: "cloze",
    QuestionType.ORDERING: "ordering",
    QuestionType.DESCRIPTION: "description",
}
"""The `type` each question type is written as (qformat_xml::get_qtype() writes `matching`)."""

PENALTY = {
    "multichoice": "0.3333333",
    "truefalse": "1.0000000",
    "shortanswer": "0.3333333",
    "numerical": "0.3333333",
    "matching": "0.3333333",
    "match": "0.3333333",
    "essay": "0.0000000",
    "cloze": "0.3333333",
    "multianswer": "0.3333333",
    "ordering": "0.3333333",
    "description": "0.0000000",
    "gapselect": "0.3333333",
    "ddwtos": "0.3333333",
    "calculated": "0.3333333",
    "calculatedsimple": "0.3333333",
    "calculatedmulti": "0.3333333",
}
"""`<penalty>` as Moodle exports a question saved with its editing form's default (a decimal
of 7 places, as the database holds it): true/false 1 (a second try is always right), essay 0.
The model's `penalty: None` (the LMS's default) is written as this, and read back from it."""

COMBINED_FEEDBACK_TYPES = frozenset(
    {"multichoice", "matching", "match", "ordering", "gapselect", "ddwtos", "calculatedmulti"}
)
"""Types whose import reads `<correctfeedback>`, `<partiallycorrectfeedback>`,
`<incorrectfeedback>` and `<shownumcorrect/>` (import_combined_feedback() is called by
import_multichoice() and import_match(), and by qtype_ordering's, qtype_gapselect's and
qtype_ddwtos's import_from_xml(); import_calculated() reads it for the three calculated types,
and qtype_calculatedmulti shows it as multichoice does): true/false, short answer, numerical,
calculated, essay, cloze and description questions have no feedback by outcome in Moodle."""
HINT_PARTS_TYPES = frozenset(
    {"multichoice", "matching", "match", "cloze", "multianswer", "ordering", "gapselect", "ddwtos"}
)
"""Types whose hints keep `<shownumcorrect/>` and `<clearwrong/>` (import_hints($withparts) and
save_hints($question, true): import_multichoice(), import_match(), import_multianswer(), and the
ordering, gapselect and ddwtos types' import_from_xml()); the other types keep a hint's text only."""
HINTLESS_TYPES = frozenset({"essay", "description"})
"""Types whose import reads no `<hint>` at all (import_essay() and import_description() call no
import_hints())."""

SHOWUNITS_NONE = 3
"""qtype_numerical::UNITNONE: units are not used, only the number is graded."""
UNIT_GRADING = {UnitGrading.OPTIONAL: 0, UnitGrading.RESPONSE: 1, UnitGrading.QUESTION: 2}
"""`<unitgradingtype>`: 0 no penalty (units optional), qtype_numerical::UNITGRADEDOUTOFMARK (1:
the penalty is a fraction of the response's grade), UNITGRADEDOUTOFMAX (2: of the question's)."""
UNIT_INPUT = {UnitInput.TEXT: 0, UnitInput.CHOICE: 1, UnitInput.SELECT: 2}
"""`<showunits>` with units: qtype_numerical::UNITINPUT (0), UNITRADIO (1), UNITSELECT (2)."""
UNIT_PENALTY = "0.1000000"
"""`<unitpenalty>` of the numerical edit form's default (0.1), as Moodle exports it."""

RESPONSE_FORMATS = {
    ResponseFormat.EDITOR: "editor",
    ResponseFormat.PLAIN: "plain",
    ResponseFormat.MONOSPACED: "monospaced",
    ResponseFormat.NONE: "noinline",
}
"""`<responseformat>` (qtype_essay::response_formats(); `editorfilepicker` is the editor with
a file picker, read as the editor)."""
PLAIN_RESPONSE_FORMATS = frozenset({ResponseFormat.PLAIN, ResponseFormat.MONOSPACED})
"""Response formats whose box is a plain textarea: qtype_essay_format_plain_renderer puts the
response template's text in it as it is, so the template is written as plain text."""
NOINLINE_ATTACHMENTS = "1"
"""`<attachments>` and `<attachmentsrequired>` of an essay answered by attached files only:
edit_essay_form::validation() refuses `noinline` without one allowed and one required file."""


# -- short answers --------------------------------------------------------------------------

_UNESCAPED_STAR = re.compile(r"(?<!\\)\*")
"""A `*` compare_string_with_wildcard() takes for a wildcard (preg_split('/(?<!\\\\)\\*+/'))."""


def wildcard_text(text: str, wildcard: bool) -> str | None:
    """A short answer's text as Moodle stores it: with `wildcard` False every `*` escaped as
    `\\*` (compare_string_with_wildcard() turns `\\*` back into a literal `*`); with `wildcard` True
    as it is. None when Moodle cannot hold it: a wildcard answer with a `\\` right before a `*`
    (Moodle reads that `*` as a literal)."""
    if not wildcard:
        return text.replace("*", "\\*")
    if "\\*" in text:
        return None
    return text


def read_wildcard(text: str) -> tuple[str, bool, bool]:
    """A short answer as Moodle stores it -> (text, wildcard, exact): an unescaped `*` makes it a
    wildcard answer, kept as it is; otherwise `\\*` is a literal `*`. `exact` is False for a
    wildcard answer that also holds an escaped `\\*` (a literal asterisk the model's wildcard
    answers cannot hold): it is read with every `*` a wildcard."""
    if _UNESCAPED_STAR.search(text):
        return (text.replace("\\*", "*"), True, "\\*" not in text)
    return (text.replace("\\*", "*"), False, True)


# -- fractions --------------------------------------------------------------------------------


_SEVEN_DECIMALS = re.compile(r"[+-]?[0-9]*(?:\.[0-9]{0,7})?\Z")


def format_fraction(value: float) -> tuple[str, bool]:
    """A fraction Moodle stores to 7 decimals (a penalty) as written, and whether Moodle rounds
    it: 7 decimals when reading them back (read_fraction()) gives `value` again (`0.3333333` for
    1/3), else the exact number, with more than 7 decimals so that it is read as written (Moodle
    keeps the first 7)."""
    seven = f"{value:.7f}"
    if exact_credit(float(seven)) == value:
        return seven, False
    exact = format_number(value)
    if _SEVEN_DECIMALS.match(exact):
        exact += "." if "." not in exact else ""
        exact = exact.ljust(exact.index(".") + 8, "0") + "0"
    return exact, float(seven) != value


def read_fraction(raw: str, value: float) -> float:
    """A fraction read from a file (`raw`, which PHP reads as `value`): the exact fraction a value
    of at most 7 decimals stands for (exact_credit(): `0.3333333` is 1/3), else the value."""
    return exact_credit(value) if _SEVEN_DECIMALS.match(raw) else value


# -- numerical ranges -------------------------------------------------------------------------


def midpoint(low: float, high: float) -> tuple[float, float]:
    """A range [low, high] as Moodle's answer +- tolerance: its midpoint and half-width, computed
    in decimal (as an instructor writes them: [1.39, 1.42] is 1.405 +- 0.015; no overflow)."""
    lo, hi = Decimal(repr(low)), Decimal(repr(high))
    return float((lo + hi) / 2), float((hi - lo) / 2)


def is_midpoint(answer: float, tolerance: float, low: float, high: float) -> bool:
    """Whether a key Moodle holds is the one midpoint() writes for [low, high] (then lmsexport's
    comment naming the range is taken; a key changed in Moodle keeps its own value)."""
    mid, half = midpoint(low, high)
    return math.isclose(answer, mid, rel_tol=1e-12) and math.isclose(tolerance, half, rel_tol=1e-12)


# -- names ------------------------------------------------------------------------------------

_STRIPPED_TAG_START = re.compile(r"<(?=\S)")
"""Where PHP's strip_tags() (clean_param(PARAM_TEXT), applied to names) starts a tag."""
_STRIPPED_TAG = re.compile(r"<(?=\S)[^>]*>?")
"""What strip_tags() removes: from a `<` that starts a tag to the next `>` (or the end)."""
NAME_MAX_CHARS = 255
"""qformat_default::clean_question_name() shortens a name to 255 characters."""


def name_clean(text: str) -> str:
    """A derived name (or a category name) that Moodle keeps as written."""
    # Moodle cleans a name with clean_param(PARAM_TEXT), whose strip_tags() would eat `<b ...`
    # up to the next `>` (or the end): a space after `<` keeps the name readable. A label may
    # also lose `]]>`, which would otherwise need entity references instead of one CDATA section.
    text = _STRIPPED_TAG_START.sub("< ", text)
    return text.replace("]]>", "]] >")


def question_name(question: Question) -> str:
    """The name the writer gives a question without one, and the name the reader takes for no
    name: the stem's start, as an instructor sees it in Moodle's question bank (as in GIFT)."""
    return name_from_stem(question, name_clean)


def moodle_name(name: str) -> str:
    """The name Moodle stores for `name` (clean_question_name(): clean_param(PARAM_TEXT), which
    strips tags, then trimmed; the shortening is approximated by a cut)."""
    return _STRIPPED_TAG.sub("", name).strip()[:NAME_MAX_CHARS]


# -- plain texts of rich ones ------------------------------------------------------------------


def words_only(text: Rich) -> str | None:
    """A rich text that is only words in paragraphs as the plain text that shows the same
    (paragraphs apart by a blank line, hard breaks as line breaks), or None when it has markup or
    would not read back the same (rich_of_words() is the inverse)."""
    paras = []
    for block in text.blocks:
        if not (isinstance(block, Para) and all(isinstance(x, Str | LineBreak) for x in block.children)):
            return None
        paras.append("".join(x.text if isinstance(x, Str) else "\n" for x in block.children))
    words = "\n\n".join(paras)
    return words if rich_of_words(words) == text else None


def rich_of_words(text: str) -> Rich:
    """A plain text as the rich text of its words: paragraphs at blank lines, hard breaks at single
    line breaks (the inverse of words_only())."""
    paras = []
    for chunk in re.split(r"\n[ \t]*\n+", text):
        inlines: list[Inline] = []
        for i, line in enumerate(chunk.split("\n")):
            if i:
                inlines.append(LineBreak())
            if line:
                inlines.append(Str(line))
        if inlines:
            paras.append(Para(tuple(inlines)))
    return Rich(tuple(paras))


# -- cloze (qtype_multianswer) ----------------------------------------------------------------
# question/type/multianswer/questiontype.php: qtype_multianswer_extract_question() finds each
# `{n:TYPE:alternatives}` with ANSWER_REGEX, splits the alternatives with ANSWER_ALTERNATIVE_REGEX
# and replaces the code by `{#k}`; qtype_multianswer_validate_question() then refuses the question
# (and qformat_xml::import_multianswer() the import) when a subquestion has no answer, a
# multiple choice fewer than 2, a numerical answer that is not a number or `*`, or no answer at
# 100 % (at least one above 0 for MULTIRESPONSE). The regexes below are Moodle's, with PCRE's
# variable-width look-behind `(?<!\\|&|&amp;)` written as three fixed-width ones.

CLOZE_FRACTION = r"=|%(-?[0-9]+(?:[.,][0-9]*)?)%"
CLOZE_ANSWER = r".+?(?<!\\)(?<!&)(?<!&amp;)(?=[~#}]|$)"
CLOZE_FEEDBACK = r".*?(?<!\\)(?=[~}]|$)"
CLOZE_ALTERNATIVE = f"({CLOZE_FRACTION})?({CLOZE_ANSWER})(#({CLOZE_FEEDBACK}))?"
CLOZE_TYPES = (
    "NUMERICAL|NM", "MULTICHOICE|MC", "MULTICHOICE_V|MCV", "MULTICHOICE_H|MCH", "SHORTANSWER|SA|MW",
    "SHORTANSWER_C|SAC|MWC", "MULTICHOICE_S|MCS", "MULTICHOICE_VS|MCVS", "MULTICHOICE_HS|MCHS",
    "MULTIRESPONSE|MR", "MULTIRESPONSE_H|MRH", "MULTIRESPONSE_S|MRS", "MULTIRESPONSE_HS|MRHS",
)  # fmt: skip
"""ANSWER_TYPE_DEF_REGEX's alternatives, in its order (groups 3 to 15 of ANSWER_REGEX)."""
CLOZE_KINDS = (
    # (subquestion type, layout or case sensitivity, shuffled, multiple) per CLOZE_TYPES entry
    ("numerical", None, False, False),
    ("multichoice", "dropdown", False, False),
    ("multichoice", "vertical", False, False),
    ("multichoice", "horizontal", False, False),
    ("shortanswer", False, False, False),
    ("shortanswer", True, False, False),
    ("multichoice", "dropdown", True, False),
    ("multichoice", "vertical", True, False),
    ("multichoice", "horizontal", True, False),
    ("multichoice", "vertical", False, True),
    ("multichoice", "horizontal", False, True),
    ("multichoice", "vertical", True, True),
    ("multichoice", "horizontal", True, True),
)
_CLOZE_CODE = re.compile(
    r"\{([0-9]*):(" + "|".join(f"({t})" for t in CLOZE_TYPES) + r"):"
    f"({CLOZE_ALTERNATIVE}(~{CLOZE_ALTERNATIVE})*)" + r"\}",
    re.S,
)
"""ANSWER_REGEX: group 1 the weight, 2 the type, 3-15 which type, 16 the alternatives."""
_CLOZE_ALT = re.compile("~?" + CLOZE_ALTERNATIVE, re.S)
_CLOZE_NUMBER = r"-?(([0-9]+[.,]?[0-9]*|[.,][0-9]+)([eE][-+]?[0-9]+)?)"
_CLOZE_NUMERICAL = re.compile(f"^({_CLOZE_NUMBER})(:{_CLOZE_NUMBER})?$", re.S)
"""NUMERICAL_ALTERNATIVE_REGEX: group 1 the answer, 6 the tolerance (its sign dropped)."""
CLOZE_START = re.compile(r"\{(?=[0-9]*:(?:" + "|".join(CLOZE_TYPES) + r"):)|\{(?=#[0-9]+\})")
"""A `{` Moodle would take for the start of a cloze code (or of the `{#k}` it leaves in its place)."""
CLOZE_BROKEN = re.compile(r"\{[0-9]*:(?:" + "|".join(CLOZE_TYPES) + r"):")
"""The start of a cloze code; in a text whose codes were all taken out, one ANSWER_REGEX did not
match (Moodle shows it as text)."""
CLOZE_CODE_NAMES = {
    ("numerical", None, False, False): "NUMERICAL",
    ("shortanswer", False, False, False): "SHORTANSWER",
    ("shortanswer", True, False, False): "SHORTANSWER_C",
    ("multichoice", "dropdown", False, False): "MULTICHOICE",
    ("multichoice", "vertical", False, False): "MULTICHOICE_V",
    ("multichoice", "horizontal", False, False): "MULTICHOICE_H",
    ("multichoice", "dropdown", True, False): "MULTICHOICE_S",
    ("multichoice", "vertical", True, False): "MULTICHOICE_VS",
    ("multichoice", "horizontal", True, False): "MULTICHOICE_HS",
    ("multichoice", "vertical", False, True): "MULTIRESPONSE",
    ("multichoice", "horizontal", False, True): "MULTIRESPONSE_H",
    ("multichoice", "vertical", True, True): "MULTIRESPONSE_S",
    ("multichoice", "horizontal", True, True): "MULTIRESPONSE_HS",
}
"""The long name the writer uses for each kind of subquestion."""


@dataclass(frozen=True)
class GapMarks:
    """Two characters a text does not hold, put around a blank's number where a reader puts a
    blank into the text (then read into Gap(n) from the text's tree)."""

    open: str = "\ufdd0"
    close: str = "\ufdd1"

    def mark(self, n: int) -> str:
        return f"{self.open}{n}{self.close}"

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(re.escape(self.open) + "([0-9]+)" + re.escape(self.close))


def gap_marks(text: str) -> GapMarks | None:
    """A pair of noncharacters (U+FDD0 to U+FDEF) neither of which the text holds (None when it
    holds them all)."""
    free = [c for c in map(chr, range(0xFDD0, 0xFDF0)) if c not in text]
    return GapMarks(free[0], free[1]) if len(free) >= 2 else None


@dataclass(frozen=True)
class ClozeAlternative:
    """One alternative of a subquestion as extract_question() stores it."""

    text: str
    """The answer (html_entity_decode'd, `\\}` and `\\#` unescaped): plain for a short answer, a
    number or `*` for a numerical one, HTML for a choice."""
    fraction: float
    feedback: str
    """HTML."""
    tolerance: str | None = None


@dataclass(frozen=True)
class ClozeSub:
    """One `{n:TYPE:...}` of a cloze question text."""

    code: str
    """The code as written."""
    weight: str
    """Group 1: '' (weight 1) or digits."""
    qtype: str
    """numerical, shortanswer or multichoice."""
    layout: str | bool | None
    """A choice's layout (dropdown, vertical, horizontal), a short answer's case sensitivity."""
    shuffle: bool
    multiple: bool
    alternatives: tuple[ClozeAlternative, ...]
    specific: bool
    """Whether a `%n%` other than `%0%` was written (extract_question()'s $hasspecificfraction)."""


def _entity_decode(s: str) -> str:
    return html.unescape(s)


def parse_cloze(text: str, marks: GapMarks = GapMarks()) -> tuple[str, list[ClozeSub]]:
    """qtype_multianswer_extract_question(): the text with each code replaced by marks.mark(k)
    (Moodle writes `{#k}`), and the subquestions in order."""
    subs: list[ClozeSub] = []
    while True:
        m = _CLOZE_CODE.search(text)
        if m is None:
            return text, subs
        which = next(i for i in range(13) if m.group(3 + i))
        qtype, layout, shuffle, multiple = CLOZE_KINDS[which]
        alts: list[ClozeAlternative] = []
        remaining = m.group(16)
        specific = False
        while True:
            a = _CLOZE_ALT.search(remaining)
            if a is None:
                break
            if a.group(1) == "=":
                fraction = 1.0
            elif a.group(2) and a.group(2) != "0":
                fraction = 0.01 * float(a.group(2).replace(",", "."))
                specific = True
            else:
                fraction = 0.0
            feedback = ""
            if a.group(5) is not None:
                feedback = _entity_decode(a.group(5)).replace("\\}", "}").replace("\\#", "#")
            raw = a.group(3)
            tolerance = None
            num = _CLOZE_NUMERICAL.match(raw) if qtype == "numerical" else None
            if num is not None:
                answer = num.group(1)
                tolerance = num.group(6) if num.group(6) is not None else "0"
            else:
                answer = _entity_decode(raw).replace("\\}", "}").replace("\\#", "#")
            alts.append(ClozeAlternative(answer, fraction, feedback, tolerance))
            remaining = remaining.split(a.group(0), 1)[1]
        if multiple:
            total = sum(a.fraction for a in alts if a.fraction > 0)
            if total:
                alts = [
                    replace(
                        a,
                        fraction=a.fraction / total
                        if a.fraction > 0
                        else (a.fraction if specific else -(1.0 / total)),
                    )
                    for a in alts
                ]
        subs.append(ClozeSub(m.group(0), m.group(1), qtype, layout, shuffle, multiple, tuple(alts), specific))
        text = text.replace(m.group(0), marks.mark(len(subs)), 1)


def cloze_problems(sub: ClozeSub) -> list[str]:
    """qtype_multianswer_validate_question() for one subquestion: why Moodle refuses it."""
    problems = []
    count = 0
    top = False
    for a in sub.alternatives:
        answer = a.text.strip()
        if answer == "":
            continue
        count += 1
        if sub.qtype == "numerical" and answer != "*" and a.tolerance is None:
            problems.append(f"the numerical answer {answer[:40]!r} is not a number")
        if a.fraction == 1 or (sub.multiple and a.fraction > 0):
            top = True
    if sub.qtype == "multichoice" and count < 2:
        problems.append("a choice blank needs at least 2 choices")
    elif count == 0:
        problems.append("it has no answer")
    if not top:
        problems.append("no answer is worth 100%" if not sub.multiple else "no choice earns credit")
    return problems


_CLOZE_ESCAPES = str.maketrans(
    {"&": "&#38;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "~": "&#126;", "#": "&#35;",
     "}": "&#125;", "{": "&#123;", "\\": "&#92;"}
)  # fmt: skip


def cloze_escape(text: str) -> str:
    """A text as an answer or feedback of a cloze code: every character the ANSWER_ALTERNATIVE
    regexes stop at or unescape (`~ # } \\`), `{`, and HTML's own as numeric character references,
    which the regexes pass over (a `#` right after `&` ends no answer) and extract_question()'s
    html_entity_decode() turns back into the text. `&` is `&#38;`, never `&amp;` (an answer ending
    in `&amp;` would not end before the next `~`). extract_question() then replaces `\\}` by `}`
    and `\\#` by `#`, so a backslash before either is doubled first (`\\\\}` comes back as `\\}`)."""
    text = text.replace("\\#", "\\\\#").replace("\\}", "\\\\}")
    return text.translate(_CLOZE_ESCAPES)


# -- ordering (qtype_ordering, in core since Moodle 4.4) ---------------------------------------
# question/type/ordering/questiontype.php: import_from_xml() and set_options_for_import() read
# the options (absent: VERTICAL, RANDOM, 6, RELATIVE_NEXT_EXCLUDE_LAST, SHOW, none);
# export_to_xml() / extract_options_for_export() write them.

ORDERING_GRADINGS = {
    "all_or_nothing": "ALL_OR_NOTHING",
    "absolute_position": "ABSOLUTE_POSITION",
    "relative_next_exclude_last": "RELATIVE_NEXT_EXCLUDE_LAST",
    "relative_next_include_last": "RELATIVE_NEXT_INCLUDE_LAST",
    "relative_one_previous_and_next": "RELATIVE_ONE_PREVIOUS_AND_NEXT",
    "relative_all_previous_and_next": "RELATIVE_ALL_PREVIOUS_AND_NEXT",
    "longest_ordered_subset": "LONGEST_ORDERED_SUBSET",
    "longest_contiguous_subset": "LONGEST_CONTIGUOUS_SUBSET",
    "relative_to_correct": "RELATIVE_TO_CORRECT",
}
"""The model's gradings -> `<gradingtype>` as extract_options_for_export() writes them."""
ORDERING_GRADING_ALIASES = {"ABS": "ABSOLUTE_POSITION", "ABSOLUTE": "ABSOLUTE_POSITION"}
"""set_options_for_import() also takes these; anything unknown is RELATIVE_NEXT_EXCLUDE_LAST."""
ORDERING_NUMBERINGS = ("none", "123", "abc", "ABCD", "iii", "IIII")


# -- calculated questions --------------------------------------------------------------------

CALCULATED_TYPES = frozenset({"calculated", "calculatedsimple", "calculatedmulti"})
"""qformat_xml::import_question() reads all three with import_calculated()."""
MAX_DATASET_ITEMS = 100
"""qtype_calculated's MAX_DATASET_ITEMS: the items editor keeps at most 100 per dataset."""
DEFAULT_DATASET = ("uniform", 1.0, 10.0, 1)
"""What Moodle's dataset form proposes for a new wildcard (distribution, minimum, maximum,
decimals): qtype_calculated's datasetdefinitions form, 'uniform:1.0:10.0:1'."""
TOLERANCE_TYPES = {1: "relative", 2: "nominal", 3: "geometric"}
"""`<tolerancetype>` (qtype_numerical_answer::get_tolerance_interval())."""
PARAM_META = "parametric"
"""The key of lmsexport's comment holding a parametric question's definition (variables, derived
values, constraints and formulas as the author wrote them), which Moodle XML has no element for."""

_FORMULA_PLACEHOLDER = re.compile(r"\{[A-Za-z][A-Za-z0-9\-_\s]*\}")
_SAFE_OPS = r"\-+/*%>:\\~<?=!"
_OPNUM = rf"[{_SAFE_OPS}.0-9eE]"
_FORMULA_CALL = re.compile(rf"(^|[{_SAFE_OPS},(])([a-z0-9_]*)\(({_OPNUM}+(,{_OPNUM}+((,{_OPNUM}+)+)?)?)?\)")
_ONE_ARG_FUNCTIONS = frozenset(
    {
        "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bindec", "ceil", "cos", "cosh",
        "decbin", "decoct", "deg2rad", "exp", "expm1", "floor", "is_finite", "is_infinite", "is_nan",
        "log10", "log1p", "octdec", "rad2deg", "sin", "sinh", "sqrt", "tan", "tanh",
    }
)  # fmt: skip
FORMULAS_IN_TEXT = re.compile(r"\{=([^{}]*(?:\{[^{}]+\}[^{}]*)*)\}")
"""qtype_calculated's FORMULAS_IN_TEXT_REGEX: `{=...}` in a text, wildcards allowed inside."""


def find_formula_errors(formula: str) -> str | None:
    """qtype_calculated_find_formula_errors() (questiontype.php, Moodle 4.x), which
    validate_question_data() runs on import: None when Moodle accepts the formula, else why not
    (Moodle's string key and the culprit). Comments and PHP tags are refused first; then every
    `{name}` is 1.0, the text is lower-cased without spaces, and each call of a whitelisted
    function (with its arity) or parenthesis is replaced by 1.0 until none is left; what remains
    may hold only operators, digits, `.`, `e`/`E`. `^` is not among them: it is PHP's xor."""
    for start in ("//", "/*", "#", "<?", "?>"):
        if start in formula:
            return f"illegalformulasyntax {start}"
    formula = _FORMULA_PLACEHOLDER.sub("1.0", formula).replace(" ", "").lower()
    while m := _FORMULA_CALL.search(formula):
        whole, before, name, a3, a4, a5 = (m.group(i) for i in range(6))
        if name == "":
            if a4 or not a3:
                return f"illegalformulasyntax {whole}"
        elif name == "pi":
            if a3:
                return "functiontakesnoargs pi"
        elif name in _ONE_ARG_FUNCTIONS:
            if a4 or not a3:
                return f"functiontakesonearg {name}"
        elif name in ("log", "round"):
            if a5 or not a3:
                return f"functiontakesoneortwoargs {name}"
        elif name in ("atan2", "fmod", "pow"):
            if a5 or not a4:
                return f"functiontakestwoargs {name}"
        elif name in ("min", "max"):
            if not a4:
                return f"functiontakesatleasttwo {name}"
        else:
            return f"unsupportedformulafunction {name}"
        if before:
            formula = formula.replace(whole, before + "1.0")
        else:
            formula = re.sub("^" + re.escape(name) + r"\([^)]*\)", "1.0", formula, count=1)
    bad = re.search(rf"[^{_SAFE_OPS}.0-9eE]+", formula)
    return f"illegalformulasyntax {bad.group(0)}" if bad else None
