"""Read GIFT the way Moodle's importer does, into the model.

`read_gift` follows question/format.php (readdata, readquestions) and
question/format/gift/format.php (readquestion) step by step: BOM strip, CR-only files,
blocks split on blank lines (or a line that is just `0`, which PHP's empty() also takes for
blank), every line trimmed, `//` comment lines, `$CATEGORY:`, `::name::`, escapes, the FIRST
`{` and the FIRST `}`, `####` general feedback (the last one), type detection in Moodle's
order, `#` feedback, `%w%` weights checked against Moodle's grade list. Where Moodle fails,
crashes or silently imports something else (`{~only}`, `{#}`, `{#abc}`, `{#5:abc}`, a
matching question with one pair, an unclosed brace, a weight off the grade list), this
reader reports a `path:line:col` error instead, and it reports every problem of a file.

`read_quiz` then maps Moodle's questions onto the model (`Quiz`): the question id comes
from `[id:...]`, tags from `[tag:...]`, and the `// lmsexport: {...}` comment lines written
by lmsexport.writers.gift restore what GIFT cannot hold. Decisions for what the model has
no place for:

* description items (no answer block) are descriptions, worth 0 (readquestion()'s
  `defaultmark = 0`), their explanation from lmsexport's metadata;
* missing-word questions (text after `}`) get Moodle's `_____` in the stem and are read as
  their answer block says, as Moodle imports them; lmsexport's own, whose metadata says it
  wrote a cloze of one blank in that form (writers/gift.py), read back as that cloze, the
  `_____` as its gap (lmsexport.gift.missing_word_as_gap);
* weights are credits (model.exact_credit of the grade; a multi-answer question weighted
  as lmsexport's default rule gets that rule's credits); feedback after `#` is the answer's,
  `{T#wrong#right}` the true/false answers', a last short answer `*` at 0% and a numerical
  `~#...` the feedback for any other answer; a short answer with an unescaped `*` is a
  wildcard, `\\*` a literal `*`; a matching pair with an empty left side a distractor; a
  `::title::` equal to the name the writer derives from the stem is no name. A file from
  elsewhere is warned about where Moodle imports with a notice (several full-credit choices,
  weights not adding to 100%, no full-credit numerical key);
* ordering questions (`{>N ...}`, Moodle's qtype_ordering, core since Moodle 4.4) are read as its
  import_from_gift() reads them (lmsexport.gift.ORDERING_HEAD, ordering_body): the items one a
  line, escapes left as Moodle's placeholders; what Moodle mangles is an error (a word its
  pattern does not read, LONGEST_ORDERED_SUBSET among them; an escape in an item; one item);
* `[html]` texts are turned back into plain text (`<br>` -> line break, `&nbsp;` -> space,
  entities decoded, white space collapsed as a browser would); other markup is kept as
  text with a warning. Other formats are kept as written.
* `[html]` texts that start with a block element (`<p>`, `<pre>`, `<ul>`, `<ol>`, `<table>`,
  maybe inside the writer's `<div lang dir>`) are rich texts: read into the model's tree by
  readers/richhtml.py (exactly for lmsexport's own files, leniently for others), images from
  their `data:` URIs, sniffed and checked like the source's image files (`read_rich`).
* An assessment's file (`// lmsexport-assessment: {...}`) reads as the quiz of its questions
  (`read_quiz`) or as the assessment, each draw's candidates from its category
  (`read_assessment`).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache, partial
from itertools import accumulate
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from ..errors import Diagnostic, GiftSyntaxError, Severity
from ..gift import (  # noqa: F401 - the limits are re-exported: the CLI and tests use them from here
    ASSESSMENT_META,
    FORMAT_NAMES,
    GENERAL_FEEDBACK,
    MAX_GIFT_BLOCKS,
    MAX_GIFT_BYTES,
    MAX_GIFT_ERRORS,
    MISSING_WORD,
    MOODLE_PLACEHOLDER,
    ORDERING_GRADINGS,
    ORDERING_HEAD,
    OTHER_ANSWER,
    PLACEHOLDERS,
    QUESTION_META,
    QUIZ_META,
    TRUE_FALSE_WORDS,
    WEIGHT_RE,
    format_weight,
    has_wildcard,
    is_derived_name,
    missing_word_as_gap,
    parse_meta,
    unescape_literal,
)
from ..model import (
    Answer,
    Assessment,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    Difficulty,
    Essay,
    Hint,
    Layout,
    Matching,
    Media,
    MultipleChoice,
    NumberBlank,
    Numbering,
    Numerical,
    NumericKey,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    OutcomeFeedback,
    Pair,
    Question,
    Quiz,
    ResponseFormat,
    Rich,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Text,
    TextBlank,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
    default_multiple_credits,
    exact_credit,
    is_full,
)
from ..moodle import (
    GRADE_TOLERANCE,
    assessment_from_meta,
    format_percent,
    has_markup,
    html_to_plain,
    multi_answer_weights,
    nearest_grade,
    split_lang,
)
from ..records import Maker

_PHP_TRIM = " \t\n\r\0\x0b"
"""The characters PHP's trim() removes; Moodle trims lines and texts with it."""

# Moodle's escapedchar_pre() turns escapes into placeholders ("\\:" -> "&&058;") that no
# later step looks into, and escapedchar_post() turns every placeholder, escaped or written
# literally, back into its character. Using the same strings keeps that behaviour exact.
_ESCAPES = PLACEHOLDERS
# A literal "&&092;" is what Moodle's escaped backslash turns into, so it is one too.
_TOKEN = re.compile(r"\\\\|\\[:#={}~n]|&&092;")

# The quick way to the same result (_stand_ins): each escape becomes two characters no text
# from lmsexport or a file read can hold, U+0001 (XML cannot carry it, so neither can the
# model's texts, and the source's and GIFT file's reading refuses it) and a control character
# (U+0010 to U+0017) that names the escaped character. Neither is white space (to trim() or
# str.split()), a delimiter, a letter or a digit, so no later step looks into them, and
# _post() turns them into their characters as it does Moodle's placeholders, which are left
# as written until then: the same texts, and, an escape keeping its length, every character
# keeps its position with no map. The second characters are never where a text starts or a
# problem is found (those are delimiters, or the start of an escape), so every position
# reported is the general way's. A text that holds _OPAQUE is read the general way (only the
# pairs this reader makes are turned back, so other U+0010 to U+0017 stay as they are).
# Latin-1 characters (a lone surrogate was used first) keep an ASCII block ASCII: Python
# keeps it one byte a character, and turning a text's stand-ins back is a plain copy.
_OPAQUE = "\x01"
_STAND_IN = {c: _OPAQUE + chr(0x10 + k) for k, c in enumerate("\\:#={}~n")}
"""Escaped character -> its stand-in."""
_ESCAPE_STAND_INS = (("\\\\", _STAND_IN["\\"], ""),) + tuple(("\\" + c, _STAND_IN[c], c) for c in ":#={}~n")
"""(escape, its stand-in, what follows the escape's first backslash when split on backslashes:
'' for a backslash right after it), backslash pairs first."""
_STAND_IN_CHAR = {v: ("\n" if k == "n" else k) for k, v in _STAND_IN.items()}
_REVERT_ONE = {v: ((v, c),) for v, c in _STAND_IN_CHAR.items()}
"""Stand-in -> _Block.reverts when it is a block's only one."""
_STAND_IN_MOODLE = {v: _ESCAPES.get(k, "\\") for k, v in _STAND_IN.items()}
"""Stand-in -> what Moodle's escapedchar_pre() leaves (a backslash for an escaped one)."""
_PHP_NUMERIC = re.compile(
    r"[ \t\n\r\v\f]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\r\v\f]*\Z"
)
_ID_RE = re.compile(r"[A-Za-z][A-Za-z0-9._-]*\Z")
_ID_COMMENT = re.compile(r"\[id:((?:\\]|[^\]\[\x00-\x1f\x7f])+)]")
_TAG_COMMENT = re.compile(r"\[tag:((?:\\]|[^\]<>`\x00-\x1f\x7f])+)]")
_FORMATS = FORMAT_NAMES
_WEIGHT_AT = re.compile(WEIGHT_RE.pattern.removeprefix("^"))
"""WEIGHT_RE for Pattern.match(text, pos): that anchors at pos already, where "^" would not."""
_ONE, _ZERO = Fraction(1), Fraction(0)
# Moodle's embedded-answer (Cloze) start, question/type/multianswer/questiontype.php
# ANSWER_START_REGEX without its "{": a grade, then a subquestion type, each ended by ":".
_CLOZE_START = re.compile(
    r"[0-9]*:(?:NUMERICAL|NM|MULTICHOICE(?:_V|_H|_S|_VS|_HS)?|MCV?S?|MCHS?|SHORTANSWER(?:_C)?|SAC?|MWC?"
    r"|MULTIRESPONSE(?:_H|_S|_HS)?|MRH?S?):"
)
_ORDERING = re.compile(r">\s*[0-9]")
"""The start of qtype_ordering's GIFT answer block (question/type/ordering/questiontype.php
import_from_gift(): `{>N [selection] [layout] [grading] ...}`)."""
_ORDERING_WORDS = frozenset((
    "ALL", "EXACT", "RANDOM", "REL", "CONTIGUOUS", "CONTIG", "HORIZONTAL", "HORI", "H", "VERTICAL", "VERT",
    "V", "ALL_OR_NOTHING", "ABSOLUTE_POSITION", "ABSOLUTE", "ABS", "RELATIVE_NEXT_EXCLUDE_LAST",
    "RELATIVE_NEXT_INCLUDE_LAST", "RELATIVE_ONE_PREVIOUS_AND_NEXT", "RELATIVE_ALL_PREVIOUS_AND_NEXT",
    "RELATIVE_TO_CORRECT", "RELATIVE", "LONGEST_CONTIGUOUS_SUBSET", "SHOW", "TRUE", "YES", "HIDE", "FALSE",
    "NO", "none", "abc", "ABCD", "iii", "IIII",
))  # fmt: skip
"""The words of qtype_ordering's GIFT answer block (ORDERING_HEAD); one starting the first item
was not read as a word (out of order, or Moodle's misspelt LONGEST_ORDERED_SUBSET)."""
_TEX_COMMAND_END = re.compile(r"\\[A-Za-z]+\*?[ \t]*\Z")


def _tex_before(s: str, i: int, escaped: Callable[[int], bool]) -> bool:
    """Whether the "{" at s[i] opens a TeX argument: after a command (`\\frac{`), or right
    after "^" or "_" that follow a letter, digit or bracket. Only the few characters before it
    are looked at. A command starts with a backslash the file writes as itself: one that
    ``escaped(k)`` says is an escaped backslash (`\\\\`, or Moodle's "&&092;", read the general way
    as a backslash, the quick way as a stand-in) is a literal one the author asked for, as in
    what lmsexport's GIFT writer writes for a stem that ends in `\\a` before an essay's `{}`."""
    if i >= 2 and s[i - 1] in "^_":  # x^{2}, a_{n}; not a blank written as "___{"
        c = s[i - 2]
        return c.isalnum() or c in ")}]"
    j = i
    while j and s[j - 1] in " \t":
        j -= 1
    if not j:
        return False
    c = s[j - 1]
    if not (c.isascii() and c.isalpha() or c == "*"):
        return False
    start = max(0, j - 40)
    m = _TEX_COMMAND_END.search(s[start:i])
    return m is not None and not escaped(start + m.start())


# -- text with positions ---------------------------------------------------------------


def _pack(line: int, col: int) -> int:
    return line << 32 | col


def _unpack(packed: int) -> tuple[int, int]:
    return packed >> 32, packed & 0xFFFFFFFF


class _Origin(Protocol):
    """Where each character of a string came from: ``at(i)`` is character i's packed position."""

    def at(self, i: int) -> int: ...


class _Lines:
    """The origin of a block's lines trimmed and joined with newlines (a comment line as one
    space): line k's text starts at starts[k] and ends before starts[k + 1] - 1 (its joining
    newline, which has the position of the character before it)."""

    __slots__ = ("starts", "lines")

    def __init__(self, lines: list[tuple[int, str]], starts: list[int]) -> None:
        self.lines = lines
        """(line number, line as read) of each line of the block."""
        self.starts = starts
        """Where each line's text starts in the joined text, then where one more would."""

    def at(self, i: int) -> int:
        starts = self.starts
        k = bisect_right(starts, i) - 1
        lineno, raw = self.lines[k]
        col = len(raw) - len(raw.lstrip(_PHP_TRIM)) + 1  # of the line's text
        d, n = i - starts[k], starts[k + 1] - starts[k] - 1  # the character's index in it, its length
        return lineno << 32 | col + (d if d < n else n - 1)  # _pack(), inlined


class _OneLine:
    """The origin of a string that is line 1 of its file, from column 1."""

    def at(self, i: int) -> int:
        return _pack(1, 1 + i)


class _Edited:
    """The origin of a string made from ``parent`` by replacing spans: every character of a
    replacement comes from the first character of the span it replaces, every other one from
    its parent character."""

    __slots__ = ("parent", "new_starts", "new_ends", "old_starts", "old_ends")

    def __init__(self, parent: _Text) -> None:
        self.parent = parent
        self.new_starts = array("q")
        self.new_ends = array("q")
        self.old_starts = array("q")
        self.old_ends = array("q")

    def at(self, i: int) -> int:
        origin: _Origin = self
        while isinstance(origin, _Edited):  # a loop, not a recursion: edits stack up
            k = bisect_right(origin.new_starts, i) - 1
            if k < 0:
                j = i
            elif i < origin.new_ends[k]:
                j = origin.old_starts[k]
            else:
                j = origin.old_ends[k] + i - origin.new_ends[k]
            parent = origin.parent
            origin, i = parent.origin, parent.off + j
        return origin.at(i)


class _Text:
    """A string that knows the (line, col) each of its characters came from, for diagnostics.

    Positions are computed when asked for (an error, a location), from an origin shared by
    every slice: slicing costs what slicing the string costs. Storing a position per
    character, as this class first did, made the GIFT reader spend most of its time copying
    positions no message ever used.
    """

    __slots__ = ("s", "origin", "off")

    def __init__(self, s: str, origin: _Origin, off: int = 0) -> None:
        self.s = s
        self.origin = origin
        self.off = off
        """Index in ``origin`` of s[0]."""

    def __getitem__(self, key: slice) -> _Text:
        start = key.start or 0
        if start < 0:
            start = key.indices(len(self.s))[0]
        # A start past the end gives an empty text, whose offset is never used.
        return _Text(self.s[key], self.origin, self.off + start)

    def at(self, i: int) -> tuple[int, int]:
        """The (line, col) of character i, clamped to the string; (0, 0) for an empty one."""
        n = len(self.s)
        if not n:
            return (0, 0)
        return _unpack(self.origin.at(self.off + min(max(i, 0), n - 1)))

    def strip(self) -> _Text:
        s = self.s
        if s and s[0] not in _PHP_TRIM and s[-1] not in _PHP_TRIM:
            return self  # the common case, without copying the text twice to find out
        start = len(s) - len(s.lstrip(_PHP_TRIM))
        end = len(s.rstrip(_PHP_TRIM))
        return self[start:end] if start < end else self[start:start]

    def trimmed(self, start: int, end: int) -> _Text:
        """self[start:end].strip() for 0 <= start <= end <= len(self.s), copying the text once."""
        s = self.s
        while start < end and s[start] in _PHP_TRIM:
            start += 1
        while end > start and s[end - 1] in _PHP_TRIM:
            end -= 1
        return _Text(s[start:end], self.origin, self.off + start)

    def split(self, sep: str, maxsplit: int = -1) -> list[_Text]:
        parts, start = [], 0
        while maxsplit != 0:
            i = self.s.find(sep, start)
            if i < 0:
                break
            parts.append(self[start:i])
            start, maxsplit = i + len(sep), maxsplit - 1
        parts.append(self[start:])
        return parts

    def replace_matches(self, matches: Iterable[re.Match[str]], by: Callable[[str], str]) -> _Text:
        """This text with each match (of a regex over its string, in order) replaced by
        ``by(matched text)``."""
        s = self.s
        origin = _Edited(self)
        pieces: list[str] = []
        new_starts, new_ends = origin.new_starts.append, origin.new_ends.append
        old_starts, old_ends = origin.old_starts.append, origin.old_ends.append
        i = shift = 0
        for m in matches:
            start, end = m.span()
            text = by(m.group())
            pieces += (s[i:start], text)
            new_starts(start + shift)
            old_starts(start)
            old_ends(end)
            shift += len(text) - end + start
            new_ends(end + shift)
            i = end
        if not pieces:
            return self
        pieces.append(s[i:])
        return _Text("".join(pieces), origin)

    def without(self, start: int, end: int, instead: str = "") -> _Text:
        """This text with [start, end) replaced by ``instead``, whose characters all take the
        position of character ``start``."""
        if not instead and end == len(self.s):
            return self[:start]
        s = self.s
        origin = _Edited(self)
        origin.new_starts.append(start)
        origin.new_ends.append(start + len(instead))
        origin.old_starts.append(start)
        origin.old_ends.append(end)
        return _Text(s[:start] + instead + s[end:], origin)


_ONE_CHAR_PLACEHOLDER = dict(_ESCAPES)
"""The character after a backslash -> what escapedchar_pre() turns the pair into."""
_UNESCAPED = {f"\\{k}": v for k, v in _ESCAPES.items()} | {"\\\\": "\\", "&&092;": "\\"}
"""What escapedchar_pre() turns each _TOKEN into."""


def _unescape_gift(t: _Text) -> _Text:
    """Moodle's escapedchar_pre(): escapes and placeholders become inert characters; each
    takes the position of the escape it comes from.

    Long texts (a whole block) are costly to scan, so this looks at the text once, cut at its
    backslashes, rather than once per kind of escape; the regex pass is kept for a text that
    holds Moodle's escaped-backslash placeholder itself (a backslash written as "&&092;")."""
    s = t.s
    if "&&092;" in s:
        return t.replace_matches(_TOKEN.finditer(s), _UNESCAPED.__getitem__)
    parts = s.split("\\")
    if len(parts) == 1:
        return t
    origin = _Edited(t)
    new_starts, new_ends = origin.new_starts.append, origin.new_ends.append
    old_starts, old_ends = origin.old_starts.append, origin.old_ends.append
    out = [parts[0]]
    old = new = len(parts[0])  # where the backslash before parts[k] is, in s and in the result
    k, last = 1, len(parts) - 1
    while k <= last:
        part = parts[k]
        if not part and k < last:  # a backslash right after this one: "\\\\" -> "\\"
            following = parts[k + 1]
            out += ("\\", following)
            new_starts(new), old_starts(old), old_ends(old + 2), new_ends(new + 1)
            old, new, k = old + 2 + len(following), new + 1 + len(following), k + 2
            continue
        placeholder = _ONE_CHAR_PLACEHOLDER.get(part[:1])
        if placeholder is None:  # a backslash escaping nothing stays
            out += ("\\", part)
            old, new = old + 1 + len(part), new + 1 + len(part)
        else:
            out += (placeholder, part[1:])
            grown = len(placeholder)
            new_starts(new), old_starts(old), old_ends(old + 2), new_ends(new + grown)
            old, new = old + 1 + len(part), new + grown + len(part) - 1
        k += 1
    if not origin.new_starts:
        return t
    return _Text("".join(out), origin)


def _stand_ins(t: _Text, found: set[str]) -> _Text:
    """escapedchar_pre() the quick way: each escape replaced by its stand-in (see _STAND_IN);
    the stand-ins used are added to ``found``.

    Backslash pairs first: str.replace pairs them left to right as Moodle's regex does, and
    every backslash left is then the start of a one-character escape or of nothing."""
    s = t.s
    if "\\" not in s:
        return t
    # lmsexport's own files: "\=" is the only escape (its HTML's lang="" and dir=""). When
    # replacing "\=" leaves no backslash, every backslash started one: none was in a pair or
    # started another escape, so the loop below would make this very string. (A block scan
    # costs as much as the rest of a text's reading; the loop makes eight.)
    replaced = s.replace("\\=", _STAND_IN["="])
    if "\\" not in replaced:
        found.add(_STAND_IN["="])
        return _Text(replaced, t.origin, t.off)
    # The character after each backslash ("" for one before another, or at the end): an
    # escape that is not there is not looked for. Skipping it is exact, as replacing an
    # escape can only take backslashes away, never bring one next to a character.
    following = {part[:1] for part in s.split("\\")[1:]}
    for escape, stand_in, after in _ESCAPE_STAND_INS:
        if after not in following:
            continue
        replaced = s.replace(escape, stand_in)
        if replaced is not s:  # str.replace returns the very string when nothing matched
            found.add(stand_in)
            s = replaced
    return _Text(s, t.origin, t.off)


def _post(s: str, stand_ins: Iterable[str] = ()) -> str:
    """Moodle's escapedchar_post(): the escaped characters themselves, from Moodle's
    placeholders (also when written literally) and, read the quick way, from stand-ins.

    One str.replace per placeholder gives what one left-to-right pass gives: no two
    placeholders can overlap (none ends with a prefix of another) and no character they
    turn into ("#:={}~", a backslash or a line break) is part of one. ``stand_ins``: those
    the text may hold."""
    if "&&" in s:
        if "&&0" in s:
            s = s.replace("&&058;", ":").replace("&&035;", "#").replace("&&061;", "=").replace("&&010", "\n")
            s = s.replace("&&092;", "\\")  # the general way turned these into "\\" already
        if "&&1" in s:
            s = s.replace("&&123;", "{").replace("&&125;", "}").replace("&&126;", "~")
    if stand_ins and _OPAQUE in s:
        for stand_in in stand_ins:
            s = s.replace(stand_in, _STAND_IN_CHAR[stand_in])
    return s


def _moodle_raw(s: str) -> str:
    """A text read the quick way as the general way leaves it before escapedchar_post()."""
    s = s.replace("&&092;", "\\")
    for stand_in, raw in _STAND_IN_MOODLE.items():
        s = s.replace(stand_in, raw)
    return s


def unescape_text(gift: str) -> str:
    """The inverse of lmsexport.writers.gift.escape_text: GIFT of an `[html]` text -> plain text."""
    t = _unescape_gift(_Text(gift, _OneLine()))
    return html_to_plain(split_lang(_post(t.s))[1])


# -- rich texts -------------------------------------------------------------------------
#
# lmsexport.writers.gift writes a rich text as HTML blocks (`<p>`, `<pre>`, `<ul>`, `<ol>`,
# `<table>`), optionally inside its `<div lang=".." dir="..">` language marker; a plain text
# is escaped HTML that never starts with an element but the writer's `<span lang>`. Texts from
# elsewhere that start with a block element (Moodle's editors write `<p dir="ltr" ...>`) are
# read the same way, leniently.

_RICH_START = re.compile(r"<(?:p|pre|ul|ol|table)[\s>]", re.IGNORECASE)
_RICH_LANG = re.compile(r'<div lang="([A-Za-z0-9-]{1,35})" dir="(?:rtl|ltr)">(.*)</div>\Z', re.DOTALL)


def split_rich(html_text: str) -> tuple[str | None, str] | None:
    """The language and the blocks of a rich `[html]` text, or None for a plain one."""
    text = html_text.strip()
    lang = None
    m = _RICH_LANG.match(text)
    if m is not None and "<div" not in m.group(2):
        lang, text = m.group(1), m.group(2)
    return (lang, text) if _RICH_START.match(text) else None


def read_rich(
    html_text: str, foreign: bool = False
) -> tuple[Rich | None, str | None, list[str], list[str]] | None:
    """A rich `[html]` text (escapes already resolved) as (tree, language, what was lost,
    problems with its images); None for a plain text. ``foreign``: not written by lmsexport,
    so white space is collapsed as a browser would."""
    from ..media import MediaError, media_from_data_uri
    from .richhtml import read_html

    found = split_rich(html_text)
    if found is None:
        return None
    lang, blocks = found
    problems: list[str] = []
    refused: set[str] = set()

    def image(src: str) -> Media | None:
        try:
            return media_from_data_uri(src)
        except MediaError as e:
            problems.append(f"the image '{src[:40]}' cannot be read: {e}")
            refused.add(f"the image '{src[:60]}'")  # as read_html names a lost image
            return None

    rich, lost = read_html(blocks, image, foreign=foreign)
    return rich, lang, [x for x in lost if x not in refused], problems


def unescape_rich(gift: str) -> Rich | None:
    """The inverse of lmsexport.writers.gift.escape_rich: GIFT of an `[html]` rich text -> its
    tree (None when it is not a rich text)."""
    # Moodle's escapedchar_pre() then escapedchar_post(), as str_replace calls on the string.
    text = gift.replace("\\\\", "&&092;")
    for char, placeholder in _ESCAPES.items():
        text = text.replace("\\" + char, placeholder)
    found = read_rich(_post(text.replace("&&092;", "\\")))
    return None if found is None else found[0]


_HEAD_LANG: dict[str, str] = {}
"""The language split_lang() reads in each wrapper head seen ('<span lang="ur" dir="rtl">'), or
'' for a head it does not take off; a few at most (lmsexport's files have one a language)."""


def _html_plain(text: str) -> tuple[str, str | None, bool]:
    """An `[html]` text as shown and its language: (html_to_plain(inner), lang) for
    (lang, inner) = moodle.split_lang(text), quicker (this runs for every text); and whether
    inner holds a "<" (if not, it has no markup).

    For a text with no white space at either end (split_lang() strips it first: then it does
    it all), split_lang() takes the wrapper off when the text starts with '<span lang="',
    ends with "</span>", its head is '<span lang="TAG" dir="rtl">' (or "ltr") with a valid TAG
    (no ">" before the head's own: the first ">" ends it), and the rest before "</span>" (which
    cannot overlap the head) holds no span tag. The head's part of that is what split_lang()
    says of the head with an empty text, cached by head; the rest is tested here as it does.

    html_to_plain(inner) is inner itself when it has no "\t", "\n", "\r", "\f" or two spaces
    running (its white space collapse, [ \t\n\r\f]+ -> " ", changes nothing then), no space at
    either end (strip(" ")), no "&" (no &nbsp;, no entity for html.unescape()) and no "<" (no
    <br>); it is called for any other."""
    lang = None
    inner = text
    if text.startswith('<span lang="') and text.endswith("</span>"):  # no white space at the ends
        head = text[: text.find(">") + 1]
        tag = _HEAD_LANG.get(head)
        if tag is None:
            tag = split_lang(head + "</span>")[0] or ""
            if len(_HEAD_LANG) < 64:
                _HEAD_LANG[head] = tag
        if tag:
            body = text[len(head) : -7]
            if "<" not in body or "<span" not in body and "</span" not in body:
                lang, inner = tag, body
    elif not text or text[0].isspace() or text[-1].isspace():
        lang, inner = split_lang(text)
    if (
        not inner
        or "<" in inner
        or "&" in inner
        or "\n" in inner
        or "\t" in inner
        or "\r" in inner
        or "\f" in inner
        or "  " in inner
        or inner[0] == " "
        or inner[-1] == " "
    ):
        return html_to_plain(inner), lang, "<" in inner
    return inner, lang, False


# -- what Moodle reads ------------------------------------------------------------------


class GiftText:
    """A text as Moodle stores it: escapes resolved, format tag taken off, trimmed.

    Immutable by convention; equal when text, format and location are. The location is
    worked out when first asked for: a question's texts are ~10 and the model keeps the
    location of its choices only, so most are never needed. What it is worked out from is
    the origin of the block's text and an index in it (not the block or the text, which a
    file's items would keep alive until the file is read, for the garbage collector to go
    through again and again).
    """

    __slots__ = ("text", "format", "_loc", "_origin", "_index", "_path")
    _origin: _Origin
    _index: int
    _path: str

    def __init__(self, text: str, format: str, loc: SourceLoc) -> None:
        self.text = text
        self.format = format
        """moodle, html, plain or markdown."""
        self._loc: SourceLoc | None = loc

    @classmethod
    def _at(cls, text: str, format: str, block: _Block, t: _Text, start: int, n: int) -> GiftText:
        """A text whose location is that of the n characters of t from start, in block
        (block._loc_at(t, start, n), worked out when asked for)."""
        self = cls.__new__(cls)
        self.text, self.format = text, format
        if n:
            self._loc, self._origin, self._index, self._path = None, t.origin, t.off + start, block.path
        else:  # the block's first line, as _loc_at() says
            self._loc = SourceLoc(block.path, block.lines[0][0], 1)
        return self

    @property
    def loc(self) -> SourceLoc:
        loc = self._loc
        if loc is None:
            packed = self._origin.at(self._index)
            loc = self._loc = SourceLoc(self._path, packed >> 32, packed & 0xFFFFFFFF)
            del self._origin  # what the location was worked out from is not kept
        return loc

    def _key(self) -> tuple[str, str, SourceLoc]:
        return (self.text, self.format, self.loc)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GiftText) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"GiftText(text={self.text!r}, format={self.format!r}, loc={self.loc!r})"

    def plain(self) -> str:
        return self.plain_and_lang()[0]

    def plain_and_lang(self) -> tuple[str, str | None]:
        """The text as shown, and the language its lmsexport wrapper names (or None)."""
        if self.format != "html":
            return self.text, None
        plain, lang, _ = _html_plain(self.text)
        return plain, lang


_new = object.__new__  # GiftText's __new__, as _at() calls it


@dataclass(frozen=True)
class GiftAnswer:
    """One answer of a multichoice, short-answer or numerical question."""

    text: GiftText
    fraction: Fraction
    feedback: GiftText | None
    numeric: NumericKey | None = None
    """numerical: the key this answer stands for; None for the `~` wrong-answer feedback."""


@dataclass(frozen=True)
class GiftItem:
    """One block of a GIFT file as Moodle's readquestion() would return it."""

    qtype: str
    """category, description, essay, multichoice, match, truefalse, shortanswer, numerical or
    ordering (a plugin type lmsexport skips)."""
    loc: SourceLoc
    comments: tuple[str, ...] = ()
    name: str | None = None
    text: GiftText | None = None
    general_feedback: GiftText | None = None
    idnumber: str = ""
    tags: tuple[str, ...] = ()
    category: str | None = None
    single: bool = True
    missing_word: bool = False
    answers: tuple[GiftAnswer, ...] = ()
    pairs: tuple[tuple[GiftText, str], ...] = ()
    truth: bool | None = None
    true_false_feedback: tuple[GiftText | None, GiftText | None] = (None, None)
    ordering: GiftOrdering | None = None


@dataclass(frozen=True)
class GiftOrdering:
    """An ordering question's answer block as qtype_ordering's import_from_gift() splits it
    (lmsexport.gift.ORDERING_HEAD): the words as written ('' when left out), the items in their
    right order (FORMAT_MOODLE texts, Moodle's escape placeholders left in, as Moodle keeps them)."""

    count: str
    select: str
    layout: str
    grading: str
    show: str
    numbering: str
    items: tuple[GiftText, ...]


# GiftItem has 17 fields and Question 13; each is made once a question read (see records.py).
_gift_item = Maker(GiftItem).make
_question = Maker(Question).make


@dataclass
class GiftFile:
    """Every item of a file (comment-only blocks included, as qtype "comment") and warnings."""

    items: list[GiftItem] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)


class _Block:
    """Parses one blank-line-separated block, collecting diagnostics."""

    __slots__ = ("path", "lines", "diags", "quick", "stand_ins", "reverts", "newline", "qformat")

    def __init__(
        self, path: str, lines: list[tuple[int, str]], diags: list[Diagnostic], quick: bool = False
    ) -> None:
        self.path = path
        self.lines = lines
        self.diags = diags
        self.quick = quick
        """Escapes as stand-ins (see _STAND_IN): only for a text without _OPAQUE."""
        self.stand_ins: set[str] = set()
        """The stand-ins this block's text holds."""
        self.reverts: tuple[tuple[str, str], ...] = ()
        """(stand-in, its character) of each of stand_ins, set with them: what _post() does
        with them."""
        self.newline = False
        """Whether stand_ins holds an escaped "n"'s (a line break, which trim() takes off)."""
        self.qformat = "moodle"

    def loc(self, t: _Text, i: int = 0) -> SourceLoc:
        n = len(t.s)
        if not n:  # an empty piece (`{=}`) has no characters: name the block's first line
            return SourceLoc(self.path, self.lines[0][0], 1)
        packed = t.origin.at(t.off + min(max(i, 0), n - 1))  # t.at(i), inlined: it runs per text
        return SourceLoc(self.path, packed >> 32, packed & 0xFFFFFFFF)

    def _escaped_backslash(self, t: _Text, i: int) -> bool:
        """Whether the character at t.s[i] comes from an escaped backslash of the file: where
        it comes from, the file has `\\\\` or "&&092;" (the general way makes either a backslash,
        at the place of its first character)."""
        loc = self.loc(t, i)
        raw = next((text for n, text in self.lines if n == loc.line), "")
        return raw.startswith(("\\\\", "&&092;"), loc.col - 1)

    def error(
        self, t: _Text, i: int, message: str, hint: str | None = None, rule: str = "gift.syntax"
    ) -> None:
        self.diags.append(Diagnostic(self.loc(t, i), message, Severity.ERROR, rule, hint))

    def warn(self, t: _Text, i: int, message: str, rule: str) -> None:
        self.diags.append(Diagnostic(self.loc(t, i), message, Severity.WARNING, rule))

    def _join(self) -> tuple[_Text, list[str]]:
        """Comment lines out (as Moodle, they become a space), the rest joined with newlines,
        trimmed."""
        lines = self.lines
        texts = [raw.strip(_PHP_TRIM) for _, raw in lines]
        comments = [x for x in texts if x.startswith("//")]
        if comments:
            texts = [" " if x.startswith("//") else x for x in texts]
        origin = _Lines(lines, list(accumulate([len(x) + 1 for x in texts], initial=0)))
        if not comments:  # trimmed lines, joined: trimmed already
            return _Text("\n".join(texts), origin), comments
        # Trimming the joined text takes off the comments' spaces and the newlines before the
        # first other line and after the last: only those (a trimmed line is not empty, as a
        # block has no blank line, and does not start or end with what trim() takes off, so
        # the lines turned into " " are the comments). So the trimmed text is those lines
        # joined, without copying the whole text twice more.
        if len(comments) == len(texts):
            return _Text("", origin, origin.starts[-1] - 1), comments
        first, last = 0, len(texts) - 1
        while texts[first] == " ":
            first += 1
        while texts[last] == " ":
            last -= 1
        return _Text("\n".join(texts[first : last + 1]), origin, origin.starts[first]), comments

    def text_with_format(self, t: _Text, default: str, start: int = 0, end: int | None = None) -> GiftText:
        """parse_text_with_format() of t[start:end]: an optional leading [format] tag, then trim."""
        s = t.s
        if end is None:
            end = len(s)
        if start < end and (s[start] in _PHP_TRIM or s[end - 1] in _PHP_TRIM):  # else trim() keeps it
            start, end = _trimmed(s, start, end)
        fmt = default
        if s[start : start + 1] == "[":
            close = s.find("]", start, end)
            if close > start + 1 and s[start + 1 : close] in _FORMATS:
                fmt = s[start + 1 : close]
                start, end = _trimmed(s, close + 1, end)
        # Trimming before escapedchar_post() as well as after gives Moodle's text: no
        # placeholder holds or touches white space.
        text = s[start:end]
        # _post(text).strip(_PHP_TRIM), each step only when it can change something: a text
        # without "&" holds no placeholder, one without _OPAQUE no stand-in, and the text is
        # trimmed already unless one turns into a line break ("\n" from an escaped "n").
        if "&" in text:
            text = _post(text, self.stand_ins).strip(_PHP_TRIM)
        elif _OPAQUE in text:
            for stand_in, char in self.reverts:
                text = text.replace(stand_in, char)
            if self.newline:
                text = text.strip(_PHP_TRIM)
        # GiftText._at(text, fmt, self, t, start, end - start), inlined: it runs for every text.
        made = _new(GiftText)
        made.text, made.format = text, fmt
        if end > start:
            made._loc, made._origin, made._index, made._path = None, t.origin, t.off + start, self.path
        else:
            made._loc = SourceLoc(self.path, self.lines[0][0], 1)
        return made

    def _loc_at(self, t: _Text, i: int, n: int) -> SourceLoc:
        """Where the n characters of t from i start (the block's first line when n is 0):
        self.loc(t[i : i + n]) without copying them."""
        if not n:
            return SourceLoc(self.path, self.lines[0][0], 1)
        packed = t.origin.at(t.off + i)
        return SourceLoc(self.path, packed >> 32, packed & 0xFFFFFFFF)

    def read(self) -> GiftItem:
        t, comments = self._join()
        first = self.lines[0][0]
        if not t.s:
            return GiftItem("comment", SourceLoc(self.path, first, 1), tuple(comments))
        if self.quick:
            t = _stand_ins(t, self.stand_ins)
            if self.stand_ins:
                stand_ins = self.stand_ins
                self.reverts = (
                    _REVERT_ONE[next(iter(stand_ins))]
                    if len(stand_ins) == 1
                    else tuple((x, _STAND_IN_CHAR[x]) for x in stand_ins)
                )
                self.newline = _STAND_IN["n"] in stand_ins
        else:
            t = _unescape_gift(t)
        # The item's fields, set step by step and made into a GiftItem once.
        item: dict[str, Any] = {
            "qtype": "description",
            "loc": self.loc(t),
            "comments": tuple(comments),
            "idnumber": _idnumber(comments) if comments else "",
            "tags": _tags(comments) if comments else (),
        }
        if t.s.startswith("$CATEGORY:"):
            # Moodle does not unescape category lines: its placeholders stay in the name.
            category = t[10:].strip().s
            return GiftItem(
                **item | {"qtype": "category", "category": _moodle_raw(category) if self.quick else category}
            )
        if t.s.startswith("::"):
            end = t.s.find("::", 2)
            if end >= 0:
                item["name"] = _post(t.s[2:end], self.stand_ins).strip()
                t = t.trimmed(end + 2, len(t.s))
            else:
                # Moodle takes the "::" off, finds no end, and names the question after its text.
                self.error(t, 0, "'::' opens a title that is never closed: Moodle drops the '::' and "
                           "keeps the title in the question text", "close the title with '::'",
                           "gift.bad-title")  # fmt: skip
                item["qtype"] = "error"
                return GiftItem(**item)
        elif t.s[:1] == ":" and self._single_colon_title(t):
            item["qtype"] = "error"
            return GiftItem(**item)
        self._body(t, item)
        return _gift_item(item)

    def _single_colon_title(self, t: _Text) -> bool:
        """A title opened with one ':' (`:Title:: text`), reported; Moodle's title must start
        the text with '::', so it keeps ':Title::' in the question text."""
        s = t.s
        end = s.find("::", 1)
        brace = s.find("{")
        if end < 0 or 0 <= brace < end or "\n" in s[:end]:
            return False
        title = _post(s[: end + 2], self.stand_ins)
        message = (
            f"a title opens with '::', not ':': Moodle keeps {_quote(title)} in the question text "
            "and names the question after it"
        )
        self.error(t, 0, message, "write '::' before the title", "gift.bad-title")
        return True

    def _body(self, t: _Text, item: dict[str, Any]) -> None:
        start, finish = t.s.find("{"), t.s.find("}")
        if start < 0 and finish < 0:
            item["text"] = self.text_with_format(t, "moodle")
            return
        if finish < 0:
            self.error(
                t, start, "'{' is never closed: the answer block has no '}'", "add '}' or escape it as \\{"
            )
            item["qtype"] = "error"
            return
        if start < 0 or finish < start:
            self.error(t, finish, "'}' without an opening '{'", "escape a literal brace as \\}")
            item["qtype"] = "error"
            return
        answer = t.trimmed(start + 1, finish)
        missing = not t.s.endswith("}")
        s = t.s
        # Any "{" or "}" but the first of each is text to Moodle: a second answer block, a
        # brace meant literally, TeX. Moodle's embedded answers (Cloze) and TeX are told apart.
        if (
            s.find("{", start + 1) >= 0
            or s.find("}", finish + 1) >= 0
            or answer.s[:1] in "0123456789:"
            and _CLOZE_START.match(answer.s)
            or _tex_before(s, start, partial(self._escaped_backslash, t))
        ):
            self._misread_braces(t, start, finish, missing)
            item["qtype"] = "error"
            return
        gf = answer.s.rfind(GENERAL_FEEDBACK)
        if missing:
            # Moodle's blank for a missing word takes the position of the answer block.
            text = self.text_with_format(t.without(start, finish + 1, "_____"), "moodle")
        else:  # the text before the block, which ends the text: t.without(start, finish + 1)
            text = self.text_with_format(t, "moodle", 0, start)
        self.qformat = text.format
        general_text = None
        if gf >= 0:
            # text_with_format(answer[gf + 4 :]), without the copy: the same text and origin.
            general_text = self.text_with_format(answer, self.qformat, gf + len(GENERAL_FEEDBACK))
            answer = answer.trimmed(0, gf)
        item.update(text=text, general_feedback=general_text, missing_word=missing)
        item.update(self._typed(answer))

    def _misread_braces(self, t: _Text, start: int, finish: int, missing: bool) -> None:
        """Report a question whose braces Moodle reads otherwise than written: what it takes as
        the answer block, what it makes of it, and what it keeps in the question text."""
        s = t.s
        answer = t[start + 1 : finish].strip()
        block = _quote(_post(s[start : finish + 1], self.stand_ins))
        kept = _post(s[:start] + ("_____" if missing else "") + s[finish + 1 :], self.stand_ins)
        kept = _quote(kept.strip(_PHP_TRIM))
        # What Moodle makes of the block, read as it would (into a scratch list of diagnostics).
        scratch = _Block(self.path, self.lines, [], self.quick)
        scratch.stand_ins, scratch.reverts, scratch.newline = self.stand_ins, self.reverts, self.newline
        scratch.qformat = self.qformat
        gf = answer.s.rfind(GENERAL_FEEDBACK)
        made = _what(scratch._typed(answer[:gf].strip() if gf >= 0 else answer))
        reading = f"Moodle takes {block} as the answer block ({made}) and keeps {kept} in the question text"
        extra = s.find("{", start + 1)
        close = s.find("}", finish + 1)
        if answer.s[:1] in "0123456789:" and _CLOZE_START.match(answer.s):
            self.error(t, start, f"Moodle's embedded-answer (Cloze) syntax is not GIFT: {reading}",
                       "write GIFT answers such as {=Paris}, or import the question in Moodle's "
                       "Embedded answers (Cloze) format", "gift.cloze")  # fmt: skip
        elif _tex_before(s, start, partial(self._escaped_backslash, t)):
            self.error(t, start, f"'{{' in TeX: {reading}",
                       "escape braces in TeX too: $\\frac\\{1\\}\\{2\\}$", "gift.brace-in-tex")  # fmt: skip
        elif finish == start + 1 and extra > finish:
            self.error(t, start, f"'{{}}' in the question text: {reading}",
                       "escape a literal brace as \\{ or \\}", "gift.extra-brace")  # fmt: skip
        else:
            at = min(i for i in (extra, close) if i >= 0)
            where = "after" if at > finish else "inside"
            self.error(t, at, f"'{s[at]}' {where} the answer block: {reading}",
                       "a question has one answer block; escape a literal brace as \\{ or \\}",
                       "gift.extra-brace")  # fmt: skip

    def _typed(self, a: _Text) -> dict[str, Any]:
        """The item's fields that its answer block decides."""
        s = a.s
        if s == "":
            return {"qtype": "essay"}
        if s[0] == ">" and _ORDERING.match(s):
            # Moodle's qtype_ordering (core since Moodle 4.4) takes `{>N ...}` before any core
            # type is looked for (readquestion()'s try_importing_using_qtypes()).
            found = self._ordering(a)
            if found is not None:
                return found
        if s[0] == "#":
            return self._numerical(a)
        if "~" in s:
            return self._multichoice(a)
        if "=" in s and "->" in s:
            return self._match(a)
        check = s[: s.find("#")].strip(_PHP_TRIM) if s.find("#") > 0 else s
        if check in TRUE_FALSE_WORDS:
            return self._truefalse(a)
        return self._shortanswer(a)

    def _ordering(self, a: _Text) -> dict[str, Any] | None:
        """qtype_ordering::import_from_gift() on the answer block (as readquestion() passes it,
        without its general feedback; None where its pattern does not match and Moodle goes on
        to the core types). The items are the lines after the words, trimmed, empty ones and
        `0` left out (array_filter()), and keep GIFT's escapes as Moodle's placeholders: Moodle
        never calls escapedchar_post() on them."""
        s = a.s
        m = ORDERING_HEAD.match(s)
        if m is None:
            return None
        items: list[GiftText] = []
        for line in re.finditer(r"[^\r\n]+", m.group(7)):
            start, end = _trimmed(s, m.start(7) + line.start(), m.start(7) + line.end())
            raw = _moodle_raw(s[start:end]) if self.quick else s[start:end]
            if raw in ("", "0"):
                continue
            n = len(items) + 1
            placeholder = MOODLE_PLACEHOLDER.search(raw)
            if placeholder is not None:
                shown = {v: k for k, v in _ESCAPES.items()}.get(placeholder.group(0), "\\")
                self.error(a, start, f"item {n} of an ordering question holds the GIFT escape "
                           f"'\\{'n' if shown == 'n' else shown}', which Moodle's ordering import keeps as "
                           f"{placeholder.group(0)!r} in the item", "write the character as an HTML "
                           "character reference (&#123; for '{'), or unescaped where GIFT lets it be",
                           "gift.escape-in-ordering-item")  # fmt: skip
            items.append(GiftText._at(raw, "moodle", self, a, start, end - start))
        words = [x or "" for x in m.groups()[:6]]
        # A word left on the header line is one the pattern did not read (the items are the
        # lines after it): Moodle makes it the start of the first item.
        if items and "\n" not in s[: m.start(7)]:
            first = items[0].text.split(None, 1)[0]
            if first in _ORDERING_WORDS or first == "LONGEST_ORDERED_SUBSET":
                why = (
                    "qtype_ordering's GIFT import cannot read the grading word LONGEST_ORDERED_SUBSET (its "
                    "pattern misspells it)"
                    if first == "LONGEST_ORDERED_SUBSET"
                    else f"the word {first!r} is out of place (the order is count, selection, layout, "
                    "grading, show or hide, numbering)"
                )
                self.error(a, m.start(7), f"{why}: Moodle takes {_quote(items[0].text)} for the first item "
                           "of the ordering question", "leave the word out and set it in Moodle after "
                           "importing, or import Moodle XML", "gift.ordering-words")  # fmt: skip
        if len(items) < 2:
            self.error(a, 0, f"an ordering question needs at least 2 items, found {len(items)}",
                       "Moodle does not save an ordering with fewer (save_question_options())",
                       "gift.too-few-items")  # fmt: skip
            return {"qtype": "error"}
        count, select, layout, grading, show, numbering = words
        ordering = GiftOrdering(count, select, layout, grading, show, numbering, tuple(items))
        return {"qtype": "ordering", "ordering": ordering}

    # -- answers ------------------------------------------------------------------------

    def _split_answers(self, a: _Text, sep: str) -> list[_Text]:
        parts = a.split(sep)
        if parts and not parts[0].strip().s:
            parts = parts[1:]
        return [p.strip() for p in parts]

    def _weight(self, a: _Text, default: Fraction) -> tuple[Fraction | None, _Text]:
        """A leading %w% weight (Moodle's regex), checked against the grade list."""
        weight, start = self._weight_in(a, default, 0, len(a.s))
        return weight, a[start:]

    def _weight_in(self, t: _Text, default: Fraction, start: int, end: int) -> tuple[Fraction | None, int]:
        """_weight() of t[start:end]: the weight, and where the rest of the answer starts."""
        s = t.s
        if s[start : start + 1] != "%" or not _WEIGHT_AT.match(s, start, end):
            return default, start
        close = s.find("%", start + 1, end)
        raw = s[start + 1 : close]
        rest = close + 1
        near, allowed = _grade(raw)
        if near is None:
            self.error(
                t[start:end], 0, f"weight '%{raw}%' is not a number Moodle can read", rule="gift.bad-weight"
            )
            return None, rest
        if not allowed:
            self.error(
                t[start:end],
                0,
                f"weight '%{raw}%' is not one of Moodle's allowed grades, so Moodle refuses the file",
                f"the nearest allowed grade is {format_weight(near)}",
                "gift.bad-weight",
            )
            return None, rest
        return near, rest

    def _comment(self, a: _Text, start: int = 0, end: int | None = None) -> tuple[GiftText, GiftText | None]:
        """commentparser() of a[start:end]: text, then feedback after the first '#'."""
        end = len(a.s) if end is None else end
        i = a.s.find("#", start, end)
        if i < 0:
            return self.text_with_format(a, self.qformat, start, end), None
        return self.text_with_format(a, self.qformat, start, i), self.text_with_format(
            a, self.qformat, i + 1, end
        )

    def _multichoice(self, a: _Text) -> dict[str, Any]:
        s = a.s
        single = "=" in s
        # Moodle marks each '=' as '~=' and splits on '~'; cutting before each '=' and
        # around each '~' gives the same pieces, with no text to rewrite. Pieces are kept as
        # trimmed (start, end) spans of the answer block: no copies until a text is made.
        # Each piece with the index of the '~' that opens it (-1 for the first).
        spans = []
        start = 0
        mark = -1
        # Where each '~' and '=' is, in order: what re.finditer("[~=]", s) finds, found with
        # str.find (the regex tests every character: ten times slower).
        marks = []
        i = s.find("~")
        while i >= 0:
            marks.append(i)
            i = s.find("~", i + 1)
        if single:
            i = s.find("=")
            while i >= 0:
                marks.append(i)
                i = s.find("=", i + 1)
            marks.sort()
        for i in marks:
            end = i
            while start < end and s[start] in _PHP_TRIM:  # _trimmed(s, start, i), inlined
                start += 1
            while end > start and s[end - 1] in _PHP_TRIM:
                end -= 1
            spans.append((start, end, mark))
            start, mark = (i + 1 if s[i] == "~" else i), i
        spans.append((*_trimmed(s, start, len(s)), mark))
        if spans[0][0] == spans[0][1]:
            spans = spans[1:]
        if len(spans) < 2:
            self.error(a, 0, f"a multiple-choice question needs at least 2 answers, found {len(spans)}",
                       "Moodle fails on '{~only}'; add a choice", "gift.too-few-answers")  # fmt: skip
            return {"qtype": "error"}
        answers = []
        empty = 0
        text_with_format, qformat = self.text_with_format, self.qformat
        for start, end, mark in spans:
            if start == end:
                # Moodle keeps the empty piece as an answer; saving the question drops it
                # (question/type/multichoice/questiontype.php, save_question_options).
                empty += 1
                what = "'~' right before '='" if s[mark + 1 : mark + 2] == "=" else "'~' with no text"
                self.warn(a, mark, f"an empty choice ({what}): Moodle drops it", "gift.empty-answer")
                continue
            first = s[start]
            if first == "=":
                weight: Fraction | None = _ONE
                start += 1
            elif first == "%":
                weight, start = self._weight_in(a, _ZERO, start, end)
            else:  # _weight_in() finds no weight without a "%"
                weight = _ZERO
            # self._comment(a, start, end), inlined
            i = s.find("#", start, end)
            if i < 0:
                text, feedback = text_with_format(a, qformat, start, end), None
            else:
                text, feedback = (
                    text_with_format(a, qformat, start, i),
                    text_with_format(a, qformat, i + 1, end),
                )
            if weight is not None:
                answers.append(GiftAnswer(text, weight, feedback))
        if empty and len(spans) - empty < 2:
            n = len(spans) - empty
            self.error(a, 0, f"a multiple-choice question needs at least 2 answers, found {n} not empty",
                       "Moodle drops empty choices; add a choice", "gift.too-few-answers")  # fmt: skip
            return {"qtype": "error"}
        return {"qtype": "multichoice", "single": single, "answers": tuple(answers)}

    def _match(self, a: _Text) -> dict[str, Any]:
        parts = self._split_answers(a, "=")
        if len(parts) < 2:
            self.error(a, 0, f"a matching question needs at least 2 pairs, found {len(parts)}",
                       "Moodle fails on a matching question with one pair", "gift.too-few-pairs")  # fmt: skip
            return {"qtype": "error"}
        pairs = []
        for p in parts:
            marker = p.s.find("->")
            if marker < 0:
                self.error(p, 0, "matching pair has no '->'", rule="gift.bad-pair")
                continue
            left = self.text_with_format(p[:marker], self.qformat)
            pairs.append((left, _post(p.s[marker + 2 :], self.stand_ins).strip(_PHP_TRIM)))
        return {"qtype": "match", "pairs": tuple(pairs)}

    def _truefalse(self, a: _Text) -> dict[str, Any]:
        bits = a.split("#", 2)
        answer = _post(bits[0].s, self.stand_ins).strip(_PHP_TRIM)
        wrong = self.text_with_format(bits[1], self.qformat) if len(bits) > 1 else None
        right = self.text_with_format(bits[2], self.qformat) if len(bits) > 2 else None
        return {"qtype": "truefalse", "truth": answer in ("T", "TRUE"), "true_false_feedback": (wrong, right)}

    def _shortanswer(self, a: _Text) -> dict[str, Any]:
        answers = []
        for p in self._split_answers(a, "="):
            weight, p = self._weight(p, _ONE)
            text, feedback = self._comment(p)
            if not text.text:
                self.error(p, 0, "empty short answer", rule="gift.empty-answer")
            elif weight is not None:
                answers.append(GiftAnswer(text, weight, feedback))
        return {"qtype": "shortanswer", "answers": tuple(answers)}

    def _numerical(self, hashed: _Text) -> dict[str, Any]:
        a = hashed[1:]
        tilde = a.s.find("~")
        wrong = a[tilde:] if tilde >= 0 else None
        if tilde >= 0:
            a = a[:tilde]
        parts = self._split_answers(a, "=")
        if not parts:
            self.error(
                hashed, 0, "numerical question has no answer: Moodle fails on '{#}'", rule="gift.no-answer"
            )
            return {"qtype": "error"}
        answers = []
        for p in parts:
            weight, p = self._weight(p, _ONE)
            text, feedback = self._comment(p)
            key = self._numeric_key(p, text.text)
            if key is not None and weight is not None:
                answers.append(GiftAnswer(text, weight, feedback, key))
        if wrong is not None:
            _, feedback = self._comment(wrong)
            answers.append(GiftAnswer(GiftText("*", self.qformat, self.loc(wrong)), Fraction(0), feedback))
        return {"qtype": "numerical", "answers": tuple(answers)}

    def _numeric_key(self, p: _Text, s: str) -> NumericKey | None:
        def number(x: str) -> float | None:
            return float(x) if _PHP_NUMERIC.match(x) else None

        if s.find("..") > 0:
            lo, hi = (number(x.strip(_PHP_TRIM)) for x in s.split("..", 1))
            if lo is not None and hi is not None:
                return NumericKey(low=lo, high=hi)
        elif s.find(":") > 0:
            ans, tol = (number(x.strip(_PHP_TRIM)) for x in s.split(":", 1))
            if ans is not None and tol is not None:
                return NumericKey(answer=ans, tolerance=tol)
        elif (ans := number(s)) is not None:
            return NumericKey(answer=ans)
        self.error(p, 0, f"numerical answer {s!r} is not a number, a number:tolerance or a min..max range",
                   "Moodle fails on a bad tolerance and gives full marks for any response to a bad answer",
                   "gift.not-a-number")  # fmt: skip
        return None


@lru_cache(maxsize=256)
def _grade(raw: str) -> tuple[Fraction | None, bool]:
    """A `%w%` weight's w as _Block._weight_in() reads it: the allowed grade nearest to it
    (None when it is not a number Moodle reads), and whether it is that grade (within
    Moodle's tolerance). Cached: a bank's weights are few, and this is Fraction arithmetic."""
    try:
        fraction = Fraction(raw.lstrip("-")) / 100 * (-1 if raw.startswith("-") else 1)
    except ValueError:
        fraction = None
    if fraction is None or raw.startswith("--"):
        return None, False
    near = nearest_grade(fraction)
    return near, abs(near - fraction) < GRADE_TOLERANCE


def _trimmed(s: str, start: int, end: int) -> tuple[int, int]:
    """The span of s[start:end] trim() leaves, found without copying it."""
    while start < end and s[start] in _PHP_TRIM:
        start += 1
    while end > start and s[end - 1] in _PHP_TRIM:
        end -= 1
    return start, end


def _quote(text: str, limit: int = 60) -> str:
    """A text for a message: in single quotes, on one line, cut after ``limit`` characters."""
    text = " ".join(text.split())
    return "'" + (text if len(text) <= limit else text[: limit - 3] + "...") + "'"


def _what(fields: Mapping[str, Any]) -> str:
    """What Moodle imports, from _Block._typed()'s fields: the question type and its answers."""
    qtype = fields["qtype"]
    if qtype == "essay":
        return "an essay question"
    if qtype == "ordering":
        return "an ordering question"
    if qtype == "truefalse":
        return f"a true/false question, {'true' if fields['truth'] else 'false'}"
    if qtype == "match":
        return "a matching question"
    if qtype == "error":
        return "a question Moodle refuses"
    answers = fields["answers"]
    if qtype == "multichoice":
        right = [_quote(a.text.text, 30) for a in answers if a.fraction > 0]
        listed = ", ".join(_quote(a.text.text, 30) for a in answers)
        return f"a multiple-choice question with the choices {listed}; right: {', '.join(right) or 'none'}"
    listed = ", ".join(_quote(a.text.text, 30) for a in answers if a.fraction == 1)
    kind = "numerical" if qtype == "numerical" else "short-answer"
    return f"a {kind} question accepting {listed or 'nothing'}"


def _idnumber(comments: list[str]) -> str:
    text = "\n".join(comments)
    m = _ID_COMMENT.search(text) if "[id:" in text else None  # the pattern's start, looked for quickly
    return m.group(1).strip().replace("\\]", "]") if m else ""


def _tags(comments: list[str]) -> tuple[str, ...]:
    text = "\n".join(comments)
    if "[tag:" not in text:  # the pattern's start, looked for quickly
        return ()
    return tuple(m.group(1).strip().replace("\\]", "]") for m in _TAG_COMMENT.finditer(text))


def _split_lines(text: str) -> Iterator[str]:
    """readdata(): BOM off; a file with CR but no LF is split on CR, any other on LF.

    A chunk of lines at a time (str.split of each piece of the text up to a separator, which
    gives the lines splitting the whole text gives): a 10 MiB file of empty lines would be
    millions of strings at once."""
    text = text.removeprefix("\ufeff")
    sep = "\r" if "\n" not in text and "\r" in text else "\n"
    start, n = 0, len(text)
    while n - start > _LINES_CHUNK:
        end = text.rfind(sep, start, start + _LINES_CHUNK)
        if end < 0:  # a line longer than a chunk
            end = text.find(sep, start + _LINES_CHUNK)
            if end < 0:
                break
        yield from text[start:end].split(sep)
        start = end + 1
    yield from text[start:].split(sep)


_LINES_CHUNK = 1 << 16
"""How many characters of a file _split_lines() splits at once."""


_BLANK_LINE = re.compile("[ \t\n\r\0\x0b]*0?[ \t\n\r\0\x0b]*\\Z")
"""A line that trim() leaves empty or "0" (matched without copying the line, as strip would)."""
_TRIM_OR_ZERO = _PHP_TRIM + "0"


def _blocks(lines: Iterable[str]) -> Iterator[list[tuple[int, str]]]:
    """readquestions(): blocks between lines that PHP's empty() takes for blank ('' or '0')."""
    current: list[tuple[int, str]] = []
    for lineno, line in enumerate(lines, 1):
        # A line whose last character trim() keeps and is not "0" is not blank: trim() leaves
        # a text ending with it. Other lines are matched.
        if line and line[-1] not in _TRIM_OR_ZERO:
            current.append((lineno, line))
        elif _BLANK_LINE.match(line):
            if current:
                yield current
            current = []
        else:
            current.append((lineno, line))
    if current:
        yield current


def _sorted(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diags, key=Diagnostic.sort_key)


def read_gift(text: str, path: str, *, quick: bool = True) -> GiftFile:
    """Every block of a GIFT file as Moodle reads it; raises GiftSyntaxError with every error.

    ``quick=False`` reads escapes the general way, through Moodle's own placeholders (the
    definition the quick way is tested against); the result is the same."""
    quick = quick and _OPAQUE not in text
    diags: list[Diagnostic] = []
    items = []
    n_errors = 0
    for n, block in enumerate(_blocks(_split_lines(text))):
        if n == MAX_GIFT_BLOCKS:
            message = f"more than {MAX_GIFT_BLOCKS:,} questions and comments; that is the limit for one file"
            hint = "split the questions into several files"
            diags.append(
                Diagnostic(SourceLoc(path, block[0][0], 1), message, rule="gift.too-many", hint=hint)
            )
            break
        before = len(diags)
        items.append(_Block(path, block, diags, quick).read())
        if len(diags) > before:
            n_errors += sum(d.severity is Severity.ERROR for d in diags[before:])
        if n_errors >= MAX_GIFT_ERRORS:
            diags.append(Diagnostic(SourceLoc(path, block[-1][0]), f"stopping after {n_errors} errors",
                                    rule="gift.too-many-errors"))  # fmt: skip
            break
    errors = [d for d in diags if d.severity is Severity.ERROR]
    if errors:
        raise GiftSyntaxError(_sorted(diags))
    return GiftFile([i for i in items if i.qtype != "error"], _sorted(diags))


# -- Moodle's questions -> the model ----------------------------------------------------


def _meta(comments: tuple[str, ...], prefix: str) -> dict[str, object]:
    """The JSON of lmsexport's `// prefix {...}` comment, with every value checked (parse_meta)."""
    for line in comments:
        if prefix not in line:  # then the body does not start with it: found without copying
            continue
        body = line[2:].strip()
        if body.startswith(prefix):
            return parse_meta(body[len(prefix) :])
    return {}


class _Mapper:
    """Turns GiftItems into Questions, collecting diagnostics."""

    def __init__(self, path: str, quiz_lang: str | None = None) -> None:
        self.path = path
        self.quiz_lang = quiz_lang
        self.diags: list[Diagnostic] = []
        self.foreign = True
        """Whether the file is not lmsexport's (no metadata of ours): HTML is read leniently."""

    def warn(self, item: GiftItem, message: str, rule: str) -> None:
        self.diags.append(Diagnostic(item.loc, message, Severity.WARNING, rule))

    def error(self, item: GiftItem, message: str, rule: str) -> None:
        self.diags.append(Diagnostic(item.loc, message, Severity.ERROR, rule))

    def rich(self, item: GiftItem, t: GiftText) -> tuple[Rich | None, str | None] | None:
        """A rich `[html]` text as a tree and its language; None when the text is plain."""
        # Texts are trimmed; most are not rich, and none that starts as the writer's language
        # wrapper of a plain text is (split_rich() wants a <div> or a block element first).
        if t.format != "html" or t.text[:1] != "<" or t.text.startswith("<span "):
            return None
        found = read_rich(t.text, self.foreign)
        if found is None:
            return None
        rich, lang, lost, problems = found
        for problem in problems:
            self.diags.append(Diagnostic(t.loc, problem, Severity.ERROR, "gift.bad-image"))
        if lost:
            self.diags.append(Diagnostic(t.loc, f"HTML the model has no place for: {', '.join(lost)}",
                                         Severity.WARNING, "gift.html-markup"))  # fmt: skip
        return rich, lang

    def description(self, meta: dict[str, object], loc: SourceLoc) -> Text | None:
        """The quiz's or assessment's description from its metadata: plain, or rich HTML."""
        if "description_html" not in meta:
            return meta.get("description")  # type: ignore[return-value]
        found = read_rich(str(meta["description_html"]))
        if found is None:
            message = "the description in the metadata is not rich HTML; it is dropped"
            self.diags.append(Diagnostic(loc, message, Severity.WARNING, "gift.bad-metadata"))
            return None
        rich, _, lost, problems = found
        self.diags.extend(Diagnostic(loc, p, Severity.ERROR, "gift.bad-image") for p in problems)
        if lost:
            self.diags.append(Diagnostic(loc, f"HTML the model has no place for: {', '.join(lost)}",
                                         Severity.WARNING, "gift.html-markup"))  # fmt: skip
        return rich

    def text_and_lang(self, item: GiftItem, t: GiftText | None) -> tuple[Text | None, str | None]:
        """A text as the model holds it, and its language: a rich text's tree, else the plain
        text of plain_and_lang."""
        # rich() then plain_and_lang(), their tests in one place: this runs for every text.
        if t is None:
            return None, None
        text = t.text
        if not text:
            return None, None
        if t.format != "html":
            return text, None
        if text[0] == "<" and not text.startswith("<span "):
            rich = self.rich(item, t)
            if rich is not None:
                return rich
        # self._html_plain_and_lang(item, text), inlined
        plain, lang, markup = _html_plain(text)
        if markup and has_markup(text):
            self.warn(item, "HTML markup other than <br> is kept as text", "gift.html-markup")
        return plain, lang

    def plain(self, item: GiftItem, t: GiftText | None) -> Text | None:
        return self.text_and_lang(item, t)[0]

    def plain_and_lang(self, item: GiftItem, t: GiftText | None) -> tuple[str | None, str | None]:
        if t is None or not t.text:
            return None, None
        if t.format != "html":
            return t.text, None
        return self._html_plain_and_lang(item, t.text)

    def _html_plain_and_lang(self, item: GiftItem, text: str) -> tuple[str, str | None]:
        """plain_and_lang() of a non-empty `[html]` text."""
        plain, lang, markup = _html_plain(text)
        # has_markup(text), skipped for a text with no markup besides the writer's language
        # wrapper: it would find the same inner text, and no "<" in it.
        if markup and has_markup(text):
            self.warn(item, "HTML markup other than <br> is kept as text", "gift.html-markup")
        return plain, lang

    def question(self, item: GiftItem, n: int, quiz_lang: str | None = None) -> Question | None:
        meta = _meta(item.comments, QUESTION_META)
        qid = item.idnumber or f"q{n}"
        if not _ID_RE.match(qid):
            self.warn(item, f"ID number {qid!r} is not a valid lmsexport id; using 'q{n}'", "gift.bad-id")
            qid = f"q{n}"
        stem, stem_lang = self.text_and_lang(item, item.text)
        if not stem:
            self.error(item, f"question {qid!r} has no question text", "gift.empty-stem")
            return None
        # The question's fields; the answers' part comes from the typed method. One Question
        # is made at the end (dataclasses.replace on a 15-field frozen class costs ~5 us).
        q: dict[str, Any] = {
            "id": qid,
            "stem": stem,
            "explanation": self.text_and_lang(item, item.general_feedback)[0],  # self.plain()
            "points": float(meta.get("points", 1.0)),  # type: ignore[arg-type]
            # The stem's wrapper names the question's language; the quiz's own is implied.
            "lang": stem_lang if stem_lang != quiz_lang else None,
            "tags": tuple(meta.get("tags", item.tags)),  # type: ignore[arg-type]
            "difficulty": Difficulty(meta["difficulty"]) if "difficulty" in meta else None,
            "loc": item.loc,
        }
        if meta:  # header_from_meta({}) is {}
            q.update(header_from_meta(meta))
        typed = getattr(self, "_" + item.qtype)(item, q, meta)
        if typed is None:
            return None
        question = _question(q, typed)
        spec = meta.get("cloze")
        if item.missing_word and isinstance(spec, dict):
            # lmsexport's missing-word form of a cloze of one blank (writers/gift.py _cloze).
            cloze = cloze_from_missing_word(question, spec)
            if cloze is None:
                message = (
                    f"question {qid!r}: its metadata says it is a cloze, but its stem has no '_____' where "
                    "the blank would be; read as Moodle reads it"
                )
                self.warn(item, message, "gift.bad-metadata")
            else:
                question = cloze
        # lmsexport writes the name it derives from the stem when the question has none.
        if item.name and not is_derived_name(item.name, question):
            question = replace(question, name=item.name)
        return question

    def problems(self, item: GiftItem, found: list[tuple[str, str]], qid: str) -> None:
        """What a mapping function found, as warnings of a foreign file (lmsexport's own files
        were checked when they were written)."""
        if self.foreign:
            for message, rule in found:
                self.warn(item, f"question {qid!r}: {message}", rule)

    # Each returns the fields its type adds to the question's (its body), or None (an error).

    def _essay(self, item: GiftItem, q: dict[str, Any], meta: dict[str, object]) -> dict[str, Any]:
        return {"body": essay_from_meta(meta)}

    def _description(self, item: GiftItem, q: dict[str, Any], meta: dict[str, object]) -> dict[str, Any]:
        """readquestion()'s description (no answer block): worth nothing (defaultmark 0); its
        explanation, which GIFT cannot hold, from lmsexport's metadata."""
        return {"body": Description(), "points": 0.0, "explanation": meta_text(meta.get("explanation"))}

    def _ordering(self, item: GiftItem, q: dict[str, Any], meta: dict[str, object]) -> dict[str, Any]:
        assert item.ordering is not None  # the parser sets it on every ordering item
        # FORMAT_MOODLE items show HTML; lmsexport's are (escape_ordering_item), read as such.
        items = tuple(
            self.plain(item, GiftText(t.text, "moodle" if self.foreign else "html", t.loc)) or t.text
            for t in item.ordering.items
        )
        return {"body": ordering_body(item.ordering, items, meta)}

    def _truefalse(self, item: GiftItem, q: dict[str, Any], meta: dict[str, object]) -> dict[str, Any]:
        assert item.truth is not None  # the parser sets it on every true/false item
        wrong, right = (self.plain(item, f) for f in item.true_false_feedback)
        return {"body": true_false(item.truth, wrong, right)}

    def _multichoice(
        self, item: GiftItem, q: dict[str, Any], meta: dict[str, object]
    ) -> dict[str, Any] | None:
        qid, quiz_lang, single = q["id"], self.quiz_lang, item.single
        qlang = q["lang"] or quiz_lang
        answers = item.answers
        # self.rich(item, a.text) or a.text.plain_and_lang() of each answer, rich()'s tests inline.
        texts: list[tuple[Text | None, str | None]] = []
        for a in answers:
            t = a.text
            text = t.text
            if t.format != "html":
                texts.append((text, None))
                continue
            if text[:1] == "<" and not text.startswith("<span "):
                rich = self.rich(item, t)
                if rich is not None:
                    texts.append(rich)
                    continue
            plain, lang, _ = _html_plain(text)
            texts.append((plain, lang))
        found = choice_credits([a.fraction for a in answers], single)
        if found is None:
            right = sum(a.fraction > 0 for a in answers)
            self.error(item, f"question {qid!r}: expected {'one' if single else 'a'} right answer, "
                       f"found {right}", "gift.bad-key")  # fmt: skip
            return None
        credits, problems = found
        if problems:
            self.problems(item, problems, qid)
        choices = []
        text_and_lang = self.text_and_lang
        for a, (shown, lang), credit in zip(answers, texts, credits, strict=True):
            lang = lang or quiz_lang
            # Unmarked text is in the quiz's language (the writer marks every other one).
            choices.append(
                Choice(
                    shown or "",
                    credit,
                    text_and_lang(item, a.feedback)[0],
                    lang if lang != qlang else None,
                    a.text.loc,
                )
            )
        if single or meta.get("single"):
            return {"body": SingleChoice(tuple(choices))}
        return {"body": MultipleChoice(tuple(choices))}

    def _shortanswer(
        self, item: GiftItem, q: dict[str, Any], meta: dict[str, object]
    ) -> dict[str, Any] | None:
        answers = [(a.text.text, a.fraction, self.plain(item, a.feedback), a.text.loc) for a in item.answers]
        found = short_answers(answers)
        if found is None:
            self.error(item, f"question {q['id']!r} has no answer worth 100%", "gift.bad-key")
            return None
        accepted, other, problems = found
        self.problems(item, problems, q["id"])
        case_sensitive = bool(meta.get("case_sensitive", False))
        return {"body": ShortAnswer(accepted, case_sensitive=case_sensitive, other_feedback=other)}

    def _numerical(self, item: GiftItem, q: dict[str, Any], meta: dict[str, object]) -> dict[str, Any] | None:
        answers = [(a.numeric, a.fraction, self.plain(item, a.feedback)) for a in item.answers]
        found = numeric_keys(answers, meta)
        if found is None:
            self.error(item, f"question {q['id']!r} has no numeric answer", "gift.bad-key")
            return None
        keys, other, problems = found
        self.problems(item, problems, q["id"])
        return {"body": numerical_from_meta(meta, keys, other)}

    def _match(self, item: GiftItem, q: dict[str, Any], meta: dict[str, object]) -> dict[str, Any]:
        pairs, distractors = [], []
        for left, right in item.pairs:
            text = self.plain(item, left)
            if text is None:
                # An empty left side: qtype_match saves it as a choice that matches nothing.
                distractors.append(right)
            else:
                pairs.append(Pair(text, right, loc=left.loc))
        raw = meta.get("distractors", [])  # how lmsexport wrote distractors before GIFT carried them
        if isinstance(raw, list):
            distractors += [str(d) for d in raw]
        return {"body": Matching(tuple(pairs), tuple(distractors))}


# -- Moodle's answers -> the model's, for check's reader above and for the import ----------
#
# Each takes what the parser found (fractions as Moodle's grades, texts already read into the
# model's) and returns the model's part and the conditions a foreign file is warned about
# (message, rule), worded as the YAML loader words them; None where Moodle refuses the question.


def choice_credits(
    fractions: Sequence[Fraction], single: bool
) -> tuple[list[float], list[tuple[str, str]]] | None:
    """The credits of a choice question's answers: each its weight (model.exact_credit of the
    grade), except a multi-answer question weighted as lmsexport's default rule for its right
    choices (moodle.multi_answer_weights), which gets exactly that rule's credits. None when
    no answer earns anything."""
    # A Fraction's sign is its numerator's (its denominator is positive), it is 1 when the two
    # are equal, and float() divides them: the same tests and floats as f > 0, f == 1 and
    # float(f), without Fraction's operators (this runs for every choice question).
    # The reader's own 1 and 0 (an unweighted '=' and '~') are told by identity.
    right = [f is _ONE or f is not _ZERO and f.numerator > 0 for f in fractions]
    n_right = sum(right)
    if n_right == 0:
        return None
    problems: list[tuple[str, str]] = []
    if single:
        n_full = sum(f is _ONE or f is not _ZERO and f.numerator == f.denominator for f in fractions)
        if n_full > 1:
            problems.append(
                (f"{n_full} choices earn full credit in a single-choice question", "gift.several-full-credit")
            )
    else:
        best, worst, _ = multi_answer_weights(n_right, len(fractions) - n_right)
        if all(f == (best if r else worst) for f, r in zip(fractions, right, strict=True)):
            return list(default_multiple_credits(right)), problems
        total = sum((f for f in fractions if f > 0), Fraction(0))
        if abs(total - 1) >= GRADE_TOLERANCE:
            message = (
                f"the positive credits of a multiple-choice question add up to {format_percent(total)}%, "
                "not 100% (Moodle imports it with a warning)"
            )
            problems.append((message, "gift.credits-not-full"))
    return [
        1.0 if f is _ONE else 0.0 if f is _ZERO else exact_credit(f.numerator / f.denominator)
        for f in fractions
    ], problems


def true_false(truth: bool, wrong: Text | None, right: Text | None) -> TrueFalse:
    """A true/false question from `{T#wrong#right}`: readquestion() gives the right answer's
    feedback to "true" when the key is true, to "false" when it is false."""
    if truth:
        return TrueFalse(truth, feedback_true=right, feedback_false=wrong)
    return TrueFalse(truth, feedback_true=wrong, feedback_false=right)


def short_answers(
    answers: Sequence[tuple[str, Fraction, Text | None, SourceLoc | None]],
) -> tuple[tuple[Answer, ...], Text | None, list[tuple[str, str]]] | None:
    """A short answer question's answers (stored text, fraction, feedback, where) as the model's,
    and the feedback for any other answer: a last `*` at 0% with feedback. An answer with an
    unescaped `*` is a wildcard (compare_string_with_wildcard()); one without is matched
    literally, its `\\*` a `*`. None when no answer is worth 100% (Moodle refuses to save it)."""
    problems: list[tuple[str, str]] = []
    other = None
    if answers and answers[-1][0] == OTHER_ANSWER and answers[-1][1] == 0 and answers[-1][2] is not None:
        other = answers[-1][2]
        answers = answers[:-1]
    out = []
    for text, fraction, feedback, loc in answers:
        wildcard = has_wildcard(text)
        if wildcard and "\\*" in text:
            why = "which the model cannot hold (kept as written, every '*' a wildcard)"
            message = f"answer {text!r} has both a wildcard '*' and a literal '\\*', {why}"
            problems.append((message, "gift.literal-star-dropped"))
        credit = exact_credit(float(fraction))
        if credit < 0:
            problems.append((f"answer {text!r} has a negative credit, read as 0", "gift.negative-credit"))
            credit = 0.0
        out.append(Answer(text if wildcard else unescape_literal(text), credit, feedback, wildcard, loc=loc))
    if not any(is_full(a.credit) for a in out):
        return None
    return tuple(out), other, problems


def numeric_keys(
    answers: Sequence[tuple[NumericKey | None, Fraction, Text | None]], meta: Mapping[str, object]
) -> tuple[tuple[NumericKey, ...], Text | None, list[tuple[str, str]]] | None:
    """A numerical question's keys (key, fraction, feedback; no key for the `~` feedback for any
    other answer), each with its credit and feedback, and that other feedback. A range's own
    answer comes from lmsexport's metadata (`answer` for one key, `answers` for several). None
    when there is no key."""
    problems: list[tuple[str, str]] = []
    other = None
    keys = []
    for key, fraction, feedback in answers:
        if key is None:
            other = feedback
            continue
        credit = exact_credit(float(fraction))
        if credit < 0:
            message = f"key {_key_text(key)} has a negative credit, read as 0"
            problems.append((message, "gift.negative-credit"))
            credit = 0.0
        keys.append(replace(key, credit=credit, feedback=feedback))
    if not keys:
        return None
    values: list[object] = [meta["answer"]] if "answer" in meta and len(keys) == 1 else []
    raw = meta.get("answers")
    if isinstance(raw, list) and len(raw) == len(keys):
        values = raw
    for i, value in enumerate(values):
        k = keys[i]
        lo, hi = k.low, k.high
        if isinstance(value, int | float) and lo is not None and hi is not None and lo <= value <= hi:
            keys[i] = replace(k, answer=float(value))
    if not any(is_full(k.credit) for k in keys):
        best = max(k.credit for k in keys)
        problems.append(
            (
                f"its best key earns {format_percent(Fraction(best))}%, not full credit (Moodle imports it)",
                "gift.no-full-credit",
            )  # fmt: skip
        )
    return tuple(keys), other, problems


def _key_text(key: NumericKey) -> str:
    if key.low is not None and key.high is not None:
        return f"{key.low:g}..{key.high:g}"
    return f"{key.answer:g}" + (f":{key.tolerance:g}" if key.tolerance else "")


def meta_text(value: object) -> Text | None:
    """A text of lmsexport's metadata (lmsexport.gift.is_meta_text): plain as it is, rich from
    its HTML."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, dict) and isinstance(value.get("html"), str):
        found = read_rich(value["html"])
        return None if found is None else found[0]
    return None


def header_from_meta(meta: Mapping[str, object]) -> dict[str, Any]:
    """The question fields GIFT has no syntax for, from lmsexport's metadata: combined
    `feedback`, `hints` and `penalty` (only those it holds)."""
    fields: dict[str, Any] = {}
    fb = meta.get("feedback")
    if isinstance(fb, dict):
        fields["feedback"] = OutcomeFeedback(
            correct=meta_text(fb.get("correct")),
            partial=meta_text(fb.get("partial")),
            incorrect=meta_text(fb.get("incorrect")),
            show_num_correct=bool(fb.get("show_num_correct", False)),
        )
    hints = meta.get("hints")
    if isinstance(hints, list):
        fields["hints"] = tuple(
            Hint(text, bool(h.get("show_num_correct", False)), bool(h.get("clear_wrong", False)))
            for h in hints
            if (text := meta_text(h.get("text"))) is not None
        )
    if "penalty" in meta:
        fields["penalty"] = float(meta["penalty"])  # type: ignore[arg-type]
    return fields


def ordering_body(o: GiftOrdering, items: tuple[Text, ...], meta: Mapping[str, object]) -> Ordering:
    """An ordering as qtype_ordering imports its GIFT (import_from_gift(), then
    set_options_for_import()) and shows it (qtype_ordering_question::start_attempt(), which
    clamps the count to [2, items] and shows every item when it reaches them): `items` in the
    right order, the grading from lmsexport's metadata when the file could not say it."""
    n = len(items)
    count = int(o.count) if o.count.isdigit() else 0
    if not 2 <= count <= n:
        count = min(6, n)
    select = {"ALL": OrderingSelect.ALL, "EXACT": OrderingSelect.ALL, "CONTIGUOUS": OrderingSelect.CONTIGUOUS,
              "CONTIG": OrderingSelect.CONTIGUOUS}.get(o.select.upper(), OrderingSelect.RANDOM)  # fmt: skip
    if select is OrderingSelect.ALL or count >= n:
        select, count = OrderingSelect.ALL, 0
    layout = Layout.HORIZONTAL if o.layout.upper() in ("HORIZONTAL", "HORI", "H", "1") else Layout.VERTICAL
    grading = OrderingGrading(ORDERING_GRADINGS.get(o.grading.upper(), "relative_next_exclude_last"))
    if meta.get("grading") == OrderingGrading.LONGEST_ORDERED_SUBSET.value:
        grading = OrderingGrading.LONGEST_ORDERED_SUBSET
    numbering = Numbering(o.numbering) if o.numbering in {x.value for x in Numbering} else Numbering.NONE
    return Ordering(
        items=items,
        grading=grading,
        select=select,
        select_count=count,
        layout=layout,
        numbering=numbering,
        show_grading=o.show.upper() not in ("HIDE", "FALSE", "NO"),
    )


def cloze_from_missing_word(question: Question, spec: Mapping[str, object]) -> Question | None:
    """A question read from lmsexport's missing-word form of a cloze of one blank (its metadata's
    `cloze`: the blank's display, shuffling and weight, which `_____` is the blank) as that cloze:
    the question's answers become the blank's, `_____` in the stem its gap. None when the stem
    has no such `_____`."""
    stem = question.stem
    if not isinstance(stem, Rich):
        return None
    at = spec.get("at", 0)
    gapped = missing_word_as_gap(stem, at if isinstance(at, int) else 0)
    if gapped is None:
        return None
    weight = spec.get("weight", 1)
    weight = weight if isinstance(weight, int) else 1
    body = question.body
    blank: TextBlank | NumberBlank | ChoiceBlank
    if isinstance(body, ShortAnswer):
        blank = TextBlank(body.answers, body.case_sensitive, body.other_feedback, weight)
    elif isinstance(body, Numerical):
        blank = NumberBlank(body.keys, body.other_feedback, weight)
    elif isinstance(body, SingleChoice | MultipleChoice):
        display = spec.get("display", ChoiceDisplay.VERTICAL.value)
        blank = ChoiceBlank(
            body.choices,
            display=ChoiceDisplay(display)
            if display in {d.value for d in ChoiceDisplay}
            else ChoiceDisplay.VERTICAL,
            multiple=isinstance(body, MultipleChoice),
            shuffle=bool(spec.get("shuffle", True)),
            weight=weight,
        )
    else:
        return None
    return replace(question, stem=gapped, body=Cloze((blank,)))


def essay_from_meta(meta: Mapping[str, object]) -> Essay:
    """An essay: GIFT's (the model's defaults), with the options lmsexport's metadata holds."""
    options = meta.get("essay")
    if not isinstance(options, dict):
        return Essay()
    return Essay(
        response_format=ResponseFormat(options.get("format", "editor")),
        required=bool(options.get("required", True)),
        lines=int(options.get("lines", 15)),
        min_words=options.get("min_words"),
        max_words=options.get("max_words"),
        template=meta_text(options.get("template")),
        grader_info=meta_text(options.get("grader_info")),
        attachments=int(options.get("attachments", 0)),
        attachments_required=int(options.get("attachments_required", 0)),
        file_types=tuple(str(t) for t in options.get("file_types", ())),
        max_bytes=int(options.get("max_bytes", 0)),
    )


def numerical_from_meta(
    meta: Mapping[str, object], keys: tuple[NumericKey, ...], other: Text | None
) -> Numerical:
    """A numerical question: its keys and other feedback, with the units lmsexport's metadata holds."""
    units = meta.get("units")
    if not isinstance(units, dict):
        return Numerical(keys, other_feedback=other)
    return Numerical(
        keys,
        units=tuple(Unit(str(name), float(multiplier)) for name, multiplier in units.get("units", [])),
        unit_grading=UnitGrading(units.get("grading", "optional")),
        unit_penalty=float(units.get("penalty", 0.1)),
        unit_input=UnitInput(units.get("input", "text")),
        units_left=bool(units.get("left", False)),
        other_feedback=other,
    )


def _default_quiz_id(path: str) -> str:
    name = PurePosixPath(path.replace("\\", "/")).name
    for suffix in (".gift.txt", ".txt", ".gift"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def read_quiz(
    text: str, path: str, *, quiz_id: str | None = None, lang: str | None = None
) -> tuple[Quiz, list[Diagnostic]]:
    """A GIFT file as one Quiz, with the warnings; raises GiftSyntaxError with every error.

    An assessment's file (lmsexport.writers.gift.write_assessment) reads as the quiz of every
    question an attempt may show: the assessment's id, title, language and description, each
    question once, in file order, as writers.gift.as_in_assessment gives it, and no category
    (it has one per draw; read_assessment gives the draws back).
    """
    quiz, diags, _, _ = _read(text, path, quiz_id, lang)
    return quiz, diags


def _read(
    text: str, path: str, quiz_id: str | None, lang: str | None
) -> tuple[Quiz, list[Diagnostic], dict[str, object], dict[str, str]]:
    """read_quiz, plus an assessment file's metadata (else {}) and each question's category."""
    gift = read_gift(text, path)
    mapper = _Mapper(path)
    quiz_meta: dict[str, object] = {}
    assessment_meta: dict[str, object] = {}
    category = None
    current = None
    category_of: dict[str, str] = {}
    questions: list[Question] = []
    seen: dict[str, SourceLoc] = {}
    for item in gift.items:
        quiz_meta = quiz_meta or _meta(item.comments, QUIZ_META)
        assessment_meta = assessment_meta or _meta(item.comments, ASSESSMENT_META)
        mapper.foreign = not (quiz_meta or assessment_meta)
        if item.qtype == "category":
            # A parametric question's variants stand in a category below the quiz's
            # (writers.gift.variants_block): not another category of the quiz.
            below = category is not None and (item.category or "").startswith(category + "/")
            if category is not None and item.category != category and not assessment_meta and not below:
                mapper.warn(item, "a quiz has one category: this $CATEGORY is ignored", "gift.extra-category")
            category = category or item.category
            current = item.category
        elif item.qtype != "comment":
            meta = quiz_meta or assessment_meta
            mapper.quiz_lang = lang or str(meta.get("lang") or "und")
            q = mapper.question(item, len(questions) + 1, mapper.quiz_lang)
            if q is None:
                continue
            if q.id in seen:
                mapper.error(
                    item, f"question id {q.id!r} is used twice (first at {seen[q.id]})", "gift.duplicate-id"
                )
                continue
            seen[q.id] = item.loc
            questions.append(q)
            if current is not None:
                category_of[q.id] = current
    meta = quiz_meta or assessment_meta
    description = mapper.description(meta, SourceLoc(path, 1, 1))
    if any(d.severity is Severity.ERROR for d in mapper.diags):
        raise GiftSyntaxError(_sorted(gift.warnings + mapper.diags))
    qid = quiz_id or str(meta.get("id") or _default_quiz_id(path))
    difficulty = quiz_meta.get("difficulty")
    quiz = Quiz(
        id=qid,
        title=str(meta.get("title") or (category or qid).rsplit("/", 1)[-1]),
        lang=lang or str(meta.get("lang") or "und"),
        questions=tuple(questions),
        description=description,
        difficulty=Difficulty(difficulty) if isinstance(difficulty, str) else None,
        # lmsexport writes a category for every quiz; its metadata says whether the model had one.
        # An assessment's file has a category per draw and none of its own.
        category=None if assessment_meta else quiz_meta.get("category") if quiz_meta else category,  # type: ignore[arg-type]
        shuffle=bool(quiz_meta.get("shuffle", True)),
        loc=SourceLoc(path),
    )
    return quiz, _sorted(gift.warnings + mapper.diags), assessment_meta, category_of


def read_assessment(text: str, path: str) -> tuple[Assessment, list[Diagnostic]]:
    """An assessment's GIFT file (lmsexport.writers.gift.write_assessment) as the Assessment it
    was written from, as far as GIFT holds it; raises GiftSyntaxError with every error.

    Sections, titles, shuffling, draw names, picks and points come from the file's
    `lmsexport-assessment:` metadata; each draw's candidates are the questions under its
    `$CATEGORY:` line (what Moodle's random questions draw from), in file order, as
    writers.gift.as_in_assessment gives them. A candidate's quiz is the assessment's header
    (the file has no home quizzes), and a random draw's pool is empty: its conditions were
    resolved into the category, and GIFT keeps no conditions.
    """
    quiz, diags, meta, category_of = _read(text, path, None, None)
    if "sections" not in meta:
        raise GiftSyntaxError(
            [
                Diagnostic(
                    SourceLoc(path),
                    "not an assessment written by lmsexport: its "
                    "'// lmsexport-assessment: {...}' line is missing or malformed",
                    rule="gift.not-an-assessment",
                )
            ]  # fmt: skip
        )
    return assessment_from_meta(quiz, meta, category_of, path), diags


def read_bank_gift(text: str, path: str, *, quiz_id: str | None = None, lang: str | None = None) -> Quiz:
    """A GIFT file as one Quiz (warnings dropped; use read_quiz to get them)."""
    return read_quiz(text, path, quiz_id=quiz_id, lang=lang)[0]


# -- files from elsewhere ---------------------------------------------------------------


def gift_too_large(path: str, size: int) -> Diagnostic:
    """The diagnostic for a GIFT file over MAX_GIFT_BYTES (the CLI checks the size before reading)."""
    return Diagnostic(
        SourceLoc(path),
        f"the file is {size:,} bytes; the limit for a GIFT file is {MAX_GIFT_BYTES:,} bytes",
        rule="gift.too-large",
        hint="split the questions into several files",
    )


def read_quiz_bytes(
    data: bytes, path: str, *, quiz_id: str | None = None, lang: str | None = None
) -> tuple[Quiz | None, list[Diagnostic]]:
    """A GIFT file's bytes as one Quiz and every diagnostic; never raises for bad input.

    The file is untrusted: it must be UTF-8 (Moodle reads it as such; a BOM is accepted) and
    hold no character the model's XML outputs cannot carry, checked as for YAML sources.
    """
    from ..source import decode_source

    if len(data) > MAX_GIFT_BYTES:
        return None, [gift_too_large(path, len(data))]
    diags: list[Diagnostic] = []
    text = decode_source(data, path, diags)
    if text is None:
        # decode_source speaks of source files; its rule names say what went wrong.
        return None, [
            replace(
                d,
                rule=d.rule.replace("source.", "gift.", 1),
                message=d.message.replace("source files must", "GIFT files must"),
            )
            for d in diags
        ]
    try:
        quiz, warnings = read_quiz(text, path, quiz_id=quiz_id, lang=lang)
    except GiftSyntaxError as e:
        return None, e.diagnostics
    if not quiz.questions:
        # Nothing to check or import: no quiz, rather than an empty one no format can hold.
        message = "the file holds no question (a block with answers in '{...}'): nothing to check or import"
        return None, [*warnings, Diagnostic(SourceLoc(path), message, Severity.WARNING, "gift.no-questions")]
    return quiz, warnings


def read_quiz_file(path: Path) -> tuple[Quiz | None, list[Diagnostic]]:
    """A GIFT file on disk as one Quiz and every diagnostic; its size is checked before it is
    read (what `lmsexport check FILE.gift.txt` does with it)."""
    where = path.as_posix()
    try:
        size = path.stat().st_size
        if size > MAX_GIFT_BYTES:
            return None, [gift_too_large(where, size)]
        data = path.read_bytes()
    except OSError as e:
        return None, [Diagnostic(SourceLoc(where), f"cannot read the file: {e.strerror}", rule="gift.io")]
    return read_quiz_bytes(data, where)


def read_back(quiz: Quiz, files: Mapping[str, bytes]) -> tuple[str, Quiz]:
    """The quiz's GIFT file, as lmsexport.writers.gift wrote it, read back as Moodle would:
    (its output path, the quiz read). For check's round trip (lmsexport.build.READERS);
    raises GiftSyntaxError."""
    path = f"gift/{quiz.id}.gift.txt"
    back, _ = read_quiz(files[path].decode("utf-8"), path, quiz_id=quiz.id, lang=quiz.lang)
    return path, back
