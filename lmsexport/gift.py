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

from .model import (
    Block,
    BulletList,
    Emph,
    Gap,
    Inline,
    Link,
    OrderedList,
    Para,
    Question,
    Rich,
    Str,
    Strong,
    Table,
    plain_text,
)
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
    # GIFT's first: it is the one lmsexport's files hold, and the other is not worked out then.
    return name == derived_name(question) or name == name_from_stem(question)


# -- missing words (a cloze of one blank) and ordering (qtype_ordering) -----------------

MISSING_WORD = "_____"
"""What readquestion() puts in the question text where the answer block was, when text follows
the block (Moodle's missing-word form)."""


def _map_runs(rich: Rich, fn: Callable[[tuple[Inline, ...]], tuple[Inline, ...]]) -> Rich:
    """The text with every run of inlines (a paragraph's, a cell's, an emphasis's...) mapped by
    fn, innermost runs first."""

    def inlines(run: tuple[Inline, ...]) -> tuple[Inline, ...]:
        out: list[Inline] = []
        for x in run:
            if isinstance(x, Emph | Strong):
                out.append(type(x)(inlines(x.children)))
            elif isinstance(x, Link):
                out.append(Link(x.url, inlines(x.children), x.title))
            else:
                out.append(x)
        return fn(tuple(out))

    def block(b: Block) -> Block:
        if isinstance(b, Para):
            return Para(inlines(b.children))
        if isinstance(b, BulletList):
            return BulletList(tuple(tuple(block(x) for x in item) for item in b.items))
        if isinstance(b, OrderedList):
            return OrderedList(tuple(tuple(block(x) for x in item) for item in b.items), b.start)
        if isinstance(b, Table):
            return Table(
                tuple(inlines(c) for c in b.header),
                tuple(tuple(inlines(c) for c in r) for r in b.rows),
                b.aligns,
            )
        return b

    return Rich(tuple(block(b) for b in rich.blocks))


def _merged(run: tuple[Inline, ...]) -> tuple[Inline, ...]:
    """Adjacent Str joined, as a reader of the HTML gets them."""
    out: list[Inline] = []
    for x in run:
        if isinstance(x, Str) and out and isinstance(out[-1], Str):
            out[-1] = Str(out[-1].text + x.text)
        else:
            out.append(x)
    return tuple(out)


def gap_as_missing_word(stem: Rich) -> Rich:
    """A cloze stem as Moodle shows its missing-word form: the gap as `_____` in the text."""
    return _map_runs(
        stem, lambda run: _merged(tuple(Str(MISSING_WORD) if isinstance(x, Gap) else x for x in run))
    )


def missing_word_as_gap(stem: Rich, at: int = 0) -> Rich | None:
    """The inverse of gap_as_missing_word: occurrence `at` (0-based) of `_____` in the text
    becomes Gap(1); None when the text has fewer. Occurrences are counted non-overlapping, left
    to right in each text, runs in the order _map_runs visits them (an emphasis's before the
    paragraph holding it): missing_word_at counts the same way."""
    seen = 0
    done = False

    def split(run: tuple[Inline, ...]) -> tuple[Inline, ...]:
        nonlocal seen, done
        out: list[Inline] = []
        for x in run:
            if done or not isinstance(x, Str) or MISSING_WORD not in x.text:
                out.append(x)
                continue
            text = x.text
            i = text.find(MISSING_WORD)
            while i >= 0 and seen < at:
                seen += 1
                i = text.find(MISSING_WORD, i + len(MISSING_WORD))
            if i < 0:
                out.append(x)
                continue
            done = True
            before, after = text[:i], text[i + len(MISSING_WORD) :]
            out += [*([Str(before)] if before else []), Gap(1), *([Str(after)] if after else [])]
        return tuple(out)

    found = _map_runs(stem, split)
    return found if done else None


def missing_word_at(stem: Rich) -> int | None:
    """Which `_____` of the stem's missing-word form (gap_as_missing_word) is the gap: the `at`
    that missing_word_as_gap needs to give the stem back, or None when none does (an underscore
    right next to the gap)."""
    shown = gap_as_missing_word(stem)
    want = _map_runs(stem, _merged)
    for at in range(plain_text(shown).count(MISSING_WORD) + 1):
        if missing_word_as_gap(shown, at) == want:
            return at
    return None


ORDERING_HEAD = re.compile(
    r"[ \t\n\r\f\v]*>[ \t\n\r\f\v]*([0-9]+)[ \t\n\r\f\v]*"
    r"(ALL|EXACT|RANDOM|REL|CONTIGUOUS|CONTIG)?[ \t\n\r\f\v]*"
    r"(HORIZONTAL|HORI|H|1|VERTICAL|VERT|V|0)?[ \t\n\r\f\v]*"
    r"(ALL_OR_NOTHING|ABSOLUTE_POSITION|ABSOLUTE|ABS|RELATIVE_NEXT_EXCLUDE_LAST|RELATIVE_NEXT_INCLUDE_LAST"
    r"|RELATIVE_ONE_PREVIOUS_AND_NEXT|RELATIVE_ALL_PREVIOUS_AND_NEXT|RELATIVE_TO_CORRECT|RELATIVE"
    r"|RELLONGEST_ORDERED_SUBSET|LONGEST_CONTIGUOUS_SUBSET)?[ \t\n\r\f\v]*"
    r"(SHOW|TRUE|YES|1|HIDE|FALSE|NO|0)?[ \t\n\r\f\v]*"
    r"(none|123|abc|ABCD|iii|IIII)?[ \t\n\r\f\v]*"
    r"(.*?)[ \t\n\r\f\v]*\Z",
    re.DOTALL,
)
r"""qtype_ordering::import_from_gift()'s $search (question/type/ordering/questiontype.php, core
since Moodle 4.3), matched against the answer block without its general feedback: `>count`,
then optional selection, layout, grading, show-grading and numbering words, then the items, one
a line. Transcribed with its typo: `'RELATIVE|REL' . 'LONGEST_ORDERED_SUBSET|'` joins into
`RELLONGEST_ORDERED_SUBSET`, so the grading LONGEST_ORDERED_SUBSET is never matched and becomes
the start of the first item (and the grading the default). PHP's `\s` is written out: Python's
takes more characters for space. No /i flag: the words are case sensitive."""

ORDERING_GRADINGS = {
    "ALL_OR_NOTHING": "all_or_nothing",
    "ABS": "absolute_position",
    "ABSOLUTE": "absolute_position",
    "ABSOLUTE_POSITION": "absolute_position",
    "RELATIVE_NEXT_INCLUDE_LAST": "relative_next_include_last",
    "RELATIVE_ONE_PREVIOUS_AND_NEXT": "relative_one_previous_and_next",
    "RELATIVE_ALL_PREVIOUS_AND_NEXT": "relative_all_previous_and_next",
    "LONGEST_ORDERED_SUBSET": "longest_ordered_subset",
    "LONGEST_CONTIGUOUS_SUBSET": "longest_contiguous_subset",
    "RELATIVE_TO_CORRECT": "relative_to_correct",
}
"""set_options_for_import(): a grading word -> the model's grading; any other word (or none)
is RELATIVE_NEXT_EXCLUDE_LAST, Moodle's default."""

ORDERING_WORDS = {
    "all_or_nothing": "ALL_OR_NOTHING",
    "absolute_position": "ABSOLUTE_POSITION",
    "relative_next_exclude_last": "RELATIVE_NEXT_EXCLUDE_LAST",
    "relative_next_include_last": "RELATIVE_NEXT_INCLUDE_LAST",
    "relative_one_previous_and_next": "RELATIVE_ONE_PREVIOUS_AND_NEXT",
    "relative_all_previous_and_next": "RELATIVE_ALL_PREVIOUS_AND_NEXT",
    "longest_contiguous_subset": "LONGEST_CONTIGUOUS_SUBSET",
    "relative_to_correct": "RELATIVE_TO_CORRECT",
}
"""The model's grading -> the word the writer writes (extract_options_for_export()'s); the
grading longest_ordered_subset has none Moodle's GIFT import reads (see ORDERING_HEAD)."""

ORDERING_ITEM_ESCAPES = (("\\", "\\\\"), ("{", "&#123;"), ("}", "&#125;"), ("#", "&#35;"), ("\n", "&#10;"))
"""How an item of an ordering is written: import_from_gift() takes the items from the answer
block as escapedchar_pre() leaves it and never calls escapedchar_post(), so a GIFT escape but
`\\\\` (which escapedchar_pre() turns into one backslash itself) would reach the item as Moodle's
placeholder (`&&123;`). The items are FORMAT_MOODLE, which shows HTML, so braces (which would end
the answer block) and `#` (`####` would start the general feedback) are character references, and
a line break inside a code block too (each line of the block is an item)."""


def escape_ordering_item(html_text: str) -> str:
    """The HTML of one item as a line of an ordering's answer block (ORDERING_ITEM_ESCAPES),
    never a line Moodle takes for something else: a line that trim() leaves as `0` ends the
    question (and array_filter() drops it), one starting with `//` is a comment."""
    # A `#` right after `&` starts a character reference of the HTML itself (a literal `&#` is
    # `&amp;#`), which stays: only a run of four `#` means anything to Moodle.
    out = _ITEM_SPECIAL.sub(lambda m: _ITEM_ESCAPE[m.group(0)], html_text)
    if out.startswith("/"):
        out = "&#47;" + out[1:]
    if out == "0":
        out = "&#48;"
    return out


_ITEM_ESCAPE = dict(ORDERING_ITEM_ESCAPES)
_ITEM_SPECIAL = re.compile(r"[\\{}\n]|(?<!&)#")


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

_CLOZE: dict[str, Callable[[object], bool]] = {
    "display": lambda v: v in ("dropdown", "vertical", "horizontal"),
    "shuffle": lambda v: isinstance(v, bool),
    "weight": lambda v: _is_count(v) and v >= 1,  # type: ignore[operator]
    "at": _is_count,
}

GIFT_META_CHECKS: dict[str, Callable[[object], bool]] = {
    "single": lambda v: v is True,
    "answers": lambda v: isinstance(v, list) and all(x is None or _is_number(x) for x in v),
    "feedback": lambda v: _keys(v, _FEEDBACK),
    "hints": lambda v: isinstance(v, list) and all(_keys(h, _HINT) and "text" in h for h in v),
    "penalty": _is_credit,
    "units": lambda v: _keys(v, _UNITS),
    "essay": lambda v: _keys(v, _ESSAY),
    "cloze": lambda v: _keys(v, _CLOZE),
    "grading": lambda v: v == "longest_ordered_subset",
    "explanation": is_meta_text,
}
"""The GIFT-only keys of a question's metadata (besides moodle.META_CHECKS'), with their checks:
`single` (a single-choice question without a full-credit choice, which GIFT makes a
multiple-answer one), `answers` (the values of a numerical question's range keys, one per key),
and what GIFT has no syntax for: combined `feedback`, `hints`, `penalty`, `units` and `essay`
options; `cloze` (a question written in GIFT's missing-word form is a cloze of one blank: the
blank's `display`, `shuffle` and `weight`, and `at`, which of the stem's `_____` is the blank
when it is not the first); `grading` (an ordering's grading that GIFT cannot say, written as
another: see ORDERING_HEAD); `explanation` (a description's, which GIFT cannot hold: a question
without an answer block has no `####`)."""


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
