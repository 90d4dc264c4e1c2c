"""GIFT's facts: what lmsexport.writers.gift and lmsexport.readers.gift both need, so that
neither imports the other (pandoc's Text.Pandoc.Readers.LaTeX.Types; moodle.py plays the same
part for what GIFT and Moodle XML share).

Every fact names the Moodle source it comes from (moodle/moodle question/format/gift/format.php,
qformat_gift; question/format.php, qformat_default):

* the grammar's markers: `%w%` weights (readquestion()'s $giftanswerweightregex), the format
  tags parse_text_with_format() takes off a text, the true/false words, `####` general feedback;
* GIFT's escapes (repchar() writes them, escapedchar_pre() and escapedchar_post() read them
  through Moodle's `&&058;` placeholders);
* the short answer's `*` (qtype_shortanswer_question::compare_string_with_wildcard(): an
  unescaped run of `*` matches anything, `\\*` is a literal asterisk; qformat_gift never unescapes
  `\\*`, so it reaches the grading as written);
* lmsexport's own metadata comments (`// lmsexport: {...}`), which Moodle skips as comments and
  lmsexport's reader reads back: their prefixes and the GIFT-only keys with the check each
  value must pass (the file is untrusted);
* the limits lmsexport's reader keeps to, which the writer warns about.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

from .model import Question
from .moodle import FILE_TYPE_RE, META_CHECKS, format_percent, name_from_stem
from .moodle import parse_meta as moodle_parse_meta

# -- the grammar ----------------------------------------------------------------------

WEIGHT_RE = re.compile(r"^%-*([0-9]{1,2})\.?([0-9]*)%")
"""format.php's $giftanswerweightregex: what Moodle takes for a weight at the start of an answer."""

FORMAT_TAGS = ("[html]", "[moodle]", "[plain]", "[markdown]")
"""Leading tags Moodle strips from a text and takes as its format (parse_text_with_format())."""

FORMAT_NAMES = ("moodle", "html", "plain", "markdown")
"""The names inside those tags (format_name_to_const())."""

TRUE_FALSE_WORDS = ("T", "TRUE", "F", "FALSE")
"""An answer block that is one of these (before any '#') is a true/false question."""

GENERAL_FEEDBACK = "####"
"""The last one in an answer block starts the general feedback (strrpos())."""

GIFT_ESCAPES = (
    ("\\", "\\\\"), ("~", "\\~"), ("=", "\\="), ("#", "\\#"), ("{", "\\{"), ("}", "\\}"), (":", "\\:"),
    ("\n", "\\n"),
)  # fmt: skip
"""GIFT's escapes as Moodle's exporter writes them (repchar()), backslash first so that no
escape is escaped again."""

PLACEHOLDERS = {
    ":": "&&058;",
    "#": "&&035;",
    "=": "&&061;",
    "{": "&&123;",
    "}": "&&125;",
    "~": "&&126;",
    "n": "&&010",
}
"""escapedchar_pre(): the character after a backslash -> the placeholder it becomes (an escaped
backslash is `&&092;` on the way); escapedchar_post() turns every placeholder, escaped or
written literally, back into its character."""

MOODLE_PLACEHOLDER = re.compile(r"&&(?:058;|035;|061;|123;|125;|126;|092;|010)")
"""A placeholder written literally: Moodle's importer turns it into another character."""

# -- short answers: Moodle's wildcard --------------------------------------------------

OTHER_ANSWER = "*"
"""A short answer that matches any response: Moodle's "any other answer" at 0% carries the
feedback for a response no other answer matches."""

_UNESCAPED_STAR = re.compile(r"(?<!\\)\*")
"""compare_string_with_wildcard()'s split: a `*` not right after a backslash is a wildcard."""


def has_wildcard(stored: str) -> bool:
    """Whether Moodle grades a stored short answer with a wildcard (an unescaped `*`)."""
    return "*" in stored and _UNESCAPED_STAR.search(stored) is not None


def literal_answer(text: str) -> str:
    """A short answer matched literally, as GIFT stores it: each `*` as `\\*`, which
    compare_string_with_wildcard() turns back into one literal `*` (and nothing else: a
    backslash before an escaped `*` stays a backslash)."""
    return text.replace("*", "\\*")


def unescape_literal(stored: str) -> str:
    """The inverse of literal_answer() on a stored answer with no wildcard: `\\*` -> `*`, left to
    right as PHP's str_replace() does."""
    return stored.replace("\\*", "*")


# -- weights --------------------------------------------------------------------------


def format_weight(fraction: Fraction) -> str:
    """`%w%` as Moodle prints a grade: percent to 5 decimals, trailing zeros dropped."""
    return f"%{format_percent(fraction)}%"


# -- names ----------------------------------------------------------------------------


def _break_placeholders(text: str) -> str:
    # A label only: Moodle's escape placeholders (&&058; ...) cannot be written in it, so break them.
    while "&&" in text:
        text = text.replace("&&", "& &")
    return text


def derived_name(question: Question) -> str:
    """The `::name::` the writer gives a question without a name: the stem's start, on one line
    (moodle.name_from_stem), with Moodle's placeholders broken up.

    The id travels separately as the question's ID number (`// [id:...]`), so the name is
    free to be what an instructor recognises: the question itself.
    """
    return name_from_stem(question, _break_placeholders)


def is_derived_name(name: str, question: Question) -> bool:
    """Whether a title read back is the one the writers derive from the question's stem (GIFT's,
    or moodle.name_from_stem's), so that the question's name is None."""
    return name in (derived_name(question), name_from_stem(question))


# -- lmsexport's metadata comments ----------------------------------------------------

QUESTION_META = "lmsexport:"
"""`// lmsexport: {...}` before a question: what Moodle cannot hold of it."""
QUIZ_META = "lmsexport-quiz:"
"""`// lmsexport-quiz: {...}` at the top of a quiz's file."""
ASSESSMENT_META = "lmsexport-assessment:"
"""`// lmsexport-assessment: {...}` at the top of an assessment's file."""


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def _is_credit(v: object) -> bool:
    return _is_number(v) and 0 <= v <= 1  # type: ignore[operator]


def is_meta_text(v: object) -> bool:
    """A text in metadata: a plain text as a JSON string, a rich one as {"html": "<p>...</p>"}."""
    if isinstance(v, str):
        return True
    return isinstance(v, dict) and set(v) == {"html"} and isinstance(v["html"], str)


def _optional_text(v: object) -> bool:
    return v is None or is_meta_text(v)


def _is_count(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _keys(v: object, checks: dict[str, Callable[[object], bool]]) -> bool:
    """A JSON object with only these keys, each value passing its check."""
    return isinstance(v, dict) and set(v) <= set(checks) and all(checks[k](x) for k, x in v.items())


_FEEDBACK = {
    "correct": is_meta_text,
    "partial": is_meta_text,
    "incorrect": is_meta_text,
    "show_num_correct": lambda v: isinstance(v, bool),
}
_HINT: dict[str, Callable[[object], bool]] = {
    "text": is_meta_text,
    "show_num_correct": lambda v: isinstance(v, bool),
    "clear_wrong": lambda v: isinstance(v, bool),
}
_UNITS: dict[str, Callable[[object], bool]] = {
    "units": lambda v: (
        isinstance(v, list)
        and all(
            isinstance(u, list) and len(u) == 2 and isinstance(u[0], str) and _is_number(u[1]) and u[1] != 0
            for u in v
        )
    ),
    "grading": lambda v: v in ("optional", "response", "question"),
    "penalty": _is_credit,
    "input": lambda v: v in ("text", "choice", "select"),
    "left": lambda v: isinstance(v, bool),
}
_ESSAY: dict[str, Callable[[object], bool]] = {
    "format": lambda v: v in ("editor", "plain", "monospaced", "none"),
    "required": lambda v: isinstance(v, bool),
    "lines": lambda v: _is_count(v) and v > 0,  # type: ignore[operator]
    "min_words": lambda v: v is None or _is_count(v),
    "max_words": lambda v: v is None or _is_count(v),
    "template": _optional_text,
    "grader_info": _optional_text,
    "attachments": lambda v: _is_count(v) or v == -1,
    "attachments_required": _is_count,
    "file_types": lambda v: (
        isinstance(v, list) and all(isinstance(t, str) and FILE_TYPE_RE.fullmatch(t) for t in v)
    ),
    "max_bytes": _is_count,
}

GIFT_META_CHECKS: dict[str, Callable[[object], bool]] = {
    "single": lambda v: v is True,
    "answers": lambda v: isinstance(v, list) and all(x is None or _is_number(x) for x in v),
    "feedback": lambda v: _keys(v, _FEEDBACK),
    "hints": lambda v: isinstance(v, list) and all(_keys(h, _HINT) and "text" in h for h in v),
    "penalty": _is_credit,
    "units": lambda v: _keys(v, _UNITS),
    "essay": lambda v: _keys(v, _ESSAY),
}
"""The GIFT-only keys of a question's metadata (besides moodle.META_CHECKS'), with their checks:
`single` (a single-choice question without a full-credit choice, which GIFT makes a
multiple-answer one), `answers` (the values of a numerical question's range keys, one per key),
and what GIFT has no syntax for: combined `feedback`, `hints`, `penalty`, `units` and `essay`
options."""


def parse_meta(encoded: str) -> dict[str, object]:
    """The JSON object of a GIFT metadata comment: moodle.parse_meta with GIFT's keys too
    (moodle.META_CHECKS and GIFT_META_CHECKS)."""
    return moodle_parse_meta(encoded, META_CHECKS | GIFT_META_CHECKS)


# -- limits ---------------------------------------------------------------------------

MAX_GIFT_BYTES = 10 * 1024 * 1024
"""A GIFT file larger than this is refused before it is read (the YAML source's limit too)."""

MAX_GIFT_BLOCKS = 20_000
"""Most blank-line-separated blocks (questions, comments, categories) in one file: twice the
YAML source's 10,000 questions a quiz, so that every question may carry a comment block."""

MAX_GIFT_ERRORS = 100
"""Reading stops after this many errors: a file with more is not a GIFT file worth reading on."""
