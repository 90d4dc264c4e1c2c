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

import math
import re
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
}
"""`<penalty>` as Moodle exports a question saved with its editing form's default (a decimal
of 7 places, as the database holds it): true/false 1 (a second try is always right), essay 0.
The model's `penalty: None` (the LMS's default) is written as this, and read back from it."""

COMBINED_FEEDBACK_TYPES = frozenset({"multichoice", "matching", "match"})
"""Types whose import reads `<correctfeedback>`, `<partiallycorrectfeedback>`,
`<incorrectfeedback>` and `<shownumcorrect/>` (import_combined_feedback() is called by
import_multichoice() and import_match() only): true/false, short answer, numerical and essay
questions have no feedback by outcome in Moodle."""
HINT_PARTS_TYPES = frozenset({"multichoice", "matching", "match"})
"""Types whose hints keep `<shownumcorrect/>` and `<clearwrong/>` (import_hints($withparts) and
save_hints($question, true)); the other types keep a hint's text only."""
HINTLESS_TYPES = frozenset({"essay"})
"""Types whose import reads no `<hint>` at all (import_essay() calls no import_hints())."""

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
