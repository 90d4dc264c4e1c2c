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

* description items (no answer block) are skipped with a warning;
* missing-word questions (text after `}`) get Moodle's `_____` in the stem and are read as
  their answer block says;
* partial credit on single-choice or short answers, per-answer feedback on true/false,
  short and numerical answers, and extra numerical answers are dropped with a warning;
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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import PurePosixPath

from ..errors import Diagnostic, GiftSyntaxError, Severity
from ..model import (
    Assessment,
    Candidate,
    Choice,
    Difficulty,
    Draw,
    Media,
    NumericKey,
    Pair,
    Pool,
    Question,
    QuestionType,
    Quiz,
    Rich,
    Section,
    SourceLoc,
    Text,
)
from ..moodle import GRADE_TOLERANCE, has_markup, html_to_plain, nearest_grade, parse_meta, split_lang
from ..writers.gift import WEIGHT_RE, format_weight

_PHP_TRIM = " \t\n\r\0\x0b"
"""The characters PHP's trim() removes; Moodle trims lines and texts with it."""

# Moodle's escapedchar_pre() turns escapes into placeholders ("\\:" -> "&&058;") that no
# later step looks into, and escapedchar_post() turns every placeholder, escaped or written
# literally, back into its character. Using the same strings keeps that behaviour exact.
_ESCAPES = {
    ":": "&&058;",
    "#": "&&035;",
    "=": "&&061;",
    "{": "&&123;",
    "}": "&&125;",
    "~": "&&126;",
    "n": "&&010",
}
_POST = re.compile("|".join(re.escape(p) for p in _ESCAPES.values()))
_POST_CHAR = {p: ("\n" if k == "n" else k) for k, p in _ESCAPES.items()}
# A literal "&&092;" is what Moodle's escaped backslash turns into, so it is one too.
_TOKEN = re.compile(r"\\\\|\\[:#={}~n]|&&092;")
_PHP_NUMERIC = re.compile(
    r"[ \t\n\r\v\f]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\r\v\f]*\Z"
)
_ID_RE = re.compile(r"[A-Za-z][A-Za-z0-9._-]*\Z")
_ID_COMMENT = re.compile(r"\[id:((?:\\]|[^\]\[\x00-\x1f\x7f])+)]")
_TAG_COMMENT = re.compile(r"\[tag:((?:\\]|[^\]<>`\x00-\x1f\x7f])+)]")
_FORMATS = ("moodle", "html", "plain", "markdown")


# -- text with positions ---------------------------------------------------------------


def _pack(line: int, col: int) -> int:
    return line << 32 | col


def _unpack(packed: int) -> tuple[int, int]:
    return packed >> 32, packed & 0xFFFFFFFF


def _positions(packed: Iterable[int] = ()) -> array[int]:
    return array("q", packed)


@dataclass(frozen=True, eq=False)
class _Text:
    """A string that remembers the (line, col) each character came from, for diagnostics."""

    s: str
    pos: array[int]
    """Per character, its position packed by _at() (8 bytes a character, where a tuple of
    (line, col) tuples took ~120: a 10 MiB line would otherwise cost over a gigabyte)."""

    def __getitem__(self, key: slice) -> _Text:
        return _Text(self.s[key], self.pos[key])

    def __add__(self, other: _Text) -> _Text:
        return _Text(self.s + other.s, self.pos + other.pos)

    def at(self, i: int) -> tuple[int, int]:
        if not self.pos:
            return (0, 0)
        return _unpack(self.pos[min(max(i, 0), len(self.pos) - 1)])

    def strip(self) -> _Text:
        start = len(self.s) - len(self.s.lstrip(_PHP_TRIM))
        end = len(self.s.rstrip(_PHP_TRIM))
        return self[start:end] if start < end else _Text("", self.pos[start:start])

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


def _unescape_gift(t: _Text) -> _Text:
    """Moodle's escapedchar_pre(): escapes and placeholders become inert characters."""
    chars: list[str] = []
    pos = _positions()
    i = 0
    for m in _TOKEN.finditer(t.s):
        chars.extend(t.s[i : m.start()])
        pos.extend(t.pos[i : m.start()])
        tok = m.group(0)
        out = _ESCAPES[tok[1]] if tok[0] == "\\" and tok[1] != "\\" else "\\"
        chars.extend(out)
        pos.extend([t.pos[m.start()]] * len(out))
        i = m.end()
    chars.extend(t.s[i:])
    pos.extend(t.pos[i:])
    return _Text("".join(chars), pos)


def _post(s: str) -> str:
    """Moodle's escapedchar_post(): the escaped characters themselves."""
    return _POST.sub(lambda m: _POST_CHAR[m.group(0)], s)


def unescape_text(gift: str) -> str:
    """The inverse of lmsexport.writers.gift.escape_text: GIFT of an `[html]` text -> plain text."""
    t = _unescape_gift(_Text(gift, _positions(range(_pack(1, 1), _pack(1, len(gift) + 1)))))
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
_DATA_URI = re.compile(r"data:([^,;]*)((?:;[^,;]*)*),(.*)\Z", re.DOTALL | re.IGNORECASE)


def split_rich(html_text: str) -> tuple[str | None, str] | None:
    """The language and the blocks of a rich `[html]` text, or None for a plain one."""
    text = html_text.strip()
    lang = None
    m = _RICH_LANG.match(text)
    if m is not None and "<div" not in m.group(2):
        lang, text = m.group(1), m.group(2)
    return (lang, text) if _RICH_START.match(text) else None


def media_from_data_uri(src: str) -> Media | None:
    """The image of a `data:` URI (the writer's data_uri), sniffed from its bytes; None for
    any other src. Raises lmsexport.media.MediaError (its message says why) for bytes that
    are not an image lmsexport accepts, or a payload that cannot be decoded."""
    import base64
    import binascii
    import urllib.parse

    from ..media import MediaError, sniff

    m = _DATA_URI.match(src.strip())
    if m is None:
        return None
    params = [p.strip().lower() for p in m.group(2).split(";") if p.strip()]
    payload = m.group(3)
    if "base64" in params:
        try:
            data = base64.b64decode("".join(payload.split()), validate=True)
        except (binascii.Error, ValueError):
            raise MediaError("its base64 data cannot be decoded") from None
    else:
        data = urllib.parse.unquote_to_bytes(payload)
    found = sniff(data)
    media = Media("", data, found.mime, found.width, found.height)
    return replace(media, name=media.filename)


def read_rich(
    html_text: str, foreign: bool = False
) -> tuple[Rich | None, str | None, list[str], list[str]] | None:
    """A rich `[html]` text (escapes already resolved) as (tree, language, what was lost,
    problems with its images); None for a plain text. ``foreign``: not written by lmsexport,
    so white space is collapsed as a browser would."""
    from ..media import MediaError
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


# -- what Moodle reads ------------------------------------------------------------------


@dataclass(frozen=True)
class GiftText:
    """A text as Moodle stores it: escapes resolved, format tag taken off, trimmed."""

    text: str
    format: str
    """moodle, html, plain or markdown."""
    loc: SourceLoc

    def plain(self) -> str:
        return self.plain_and_lang()[0]

    def plain_and_lang(self) -> tuple[str, str | None]:
        """The text as shown, and the language its lmsexport wrapper names (or None)."""
        if self.format != "html":
            return self.text, None
        lang, inner = split_lang(self.text)
        return html_to_plain(inner), lang


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
    """category, description, essay, multichoice, match, truefalse, shortanswer or numerical."""
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


@dataclass
class GiftFile:
    """Every item of a file (comment-only blocks included, as qtype "comment") and warnings."""

    items: list[GiftItem] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)


class _Block:
    """Parses one blank-line-separated block, collecting diagnostics."""

    def __init__(self, path: str, lines: list[tuple[int, str]], diags: list[Diagnostic]) -> None:
        self.path = path
        self.lines = lines
        self.diags = diags
        self.qformat = "moodle"

    def loc(self, t: _Text, i: int = 0) -> SourceLoc:
        if not t.pos:  # an empty piece (`{=}`) has no characters: name the block's first line
            return SourceLoc(self.path, self.lines[0][0], 1)
        line, col = t.at(i)
        return SourceLoc(self.path, line, col)

    def error(
        self, t: _Text, i: int, message: str, hint: str | None = None, rule: str = "gift.syntax"
    ) -> None:
        self.diags.append(Diagnostic(self.loc(t, i), message, Severity.ERROR, rule, hint))

    def warn(self, t: _Text, i: int, message: str, rule: str) -> None:
        self.diags.append(Diagnostic(self.loc(t, i), message, Severity.WARNING, rule))

    def _join(self) -> tuple[_Text, list[str]]:
        """Comment lines out (as Moodle, they become a space), the rest joined with newlines."""
        comments: list[str] = []
        chars: list[str] = []
        pos = _positions()
        for k, (lineno, raw) in enumerate(self.lines):
            stripped = raw.strip(_PHP_TRIM)
            col = len(raw) - len(raw.lstrip(_PHP_TRIM)) + 1
            if stripped.startswith("//"):
                comments.append(stripped)
                stripped = " "
            if k:
                chars.append("\n")
                pos.append(pos[-1] if pos else _pack(lineno, 1))
            chars.extend(stripped)
            pos.extend(range(_pack(lineno, col), _pack(lineno, col + len(stripped))))
        return _Text("".join(chars), pos).strip(), comments

    def text_with_format(self, t: _Text, default: str) -> GiftText:
        """parse_text_with_format(): an optional leading [format] tag, then trim."""
        t = t.strip()
        fmt = default
        if t.s.startswith("["):
            end = t.s.find("]")
            if end > 0 and t.s[1:end] in _FORMATS:
                fmt, t = t.s[1:end], t[end + 1 :]
        return GiftText(_post(t.s).strip(_PHP_TRIM), fmt, self.loc(t.strip()))

    def read(self) -> GiftItem:
        t, comments = self._join()
        first = self.lines[0][0]
        if not t.s:
            return GiftItem("comment", SourceLoc(self.path, first, 1), tuple(comments))
        t = _unescape_gift(t)
        item = GiftItem("description", self.loc(t), tuple(comments), idnumber=_idnumber(comments))
        item = replace(item, tags=_tags(comments))
        if t.s.startswith("$CATEGORY:"):
            # Moodle does not unescape category lines: its placeholders stay in the name.
            return replace(item, qtype="category", category=t[10:].strip().s)
        if t.s.startswith("::"):
            end = t.s.find("::", 2)
            if end >= 0:
                item = replace(item, name=_post(t.s[2:end]).strip())
                t = t[end + 2 :].strip()
        return self._body(t, item)

    def _body(self, t: _Text, item: GiftItem) -> GiftItem:
        start, finish = t.s.find("{"), t.s.find("}")
        if start < 0 and finish < 0:
            text = self.text_with_format(t, "moodle")
            return replace(item, text=text)
        if finish < 0:
            self.error(
                t, start, "'{' is never closed: the answer block has no '}'", "add '}' or escape it as \\{"
            )
            return replace(item, qtype="error")
        if start < 0 or finish < start:
            self.error(t, finish, "'}' without an opening '{'", "escape a literal brace as \\}")
            return replace(item, qtype="error")
        answer = t[start + 1 : finish].strip()
        missing = not t.s.endswith("}")
        qtext = (
            t[:start]
            + (_Text("_____", _positions([_pack(*t.at(start))] * 5)) if missing else _Text("", _positions()))
            + t[finish + 1 :]
        )
        gf = answer.s.rfind("####")
        general = None
        if gf >= 0:
            general = answer[gf + 4 :]
            answer = answer[:gf].strip()
        text = self.text_with_format(qtext, "moodle")
        self.qformat = text.format
        general_text = self.text_with_format(general, self.qformat) if general is not None else None
        item = replace(item, text=text, general_feedback=general_text, missing_word=missing)
        return self._typed(answer, item)

    def _typed(self, a: _Text, item: GiftItem) -> GiftItem:
        s = a.s
        if s == "":
            return replace(item, qtype="essay")
        if s[0] == "#":
            return self._numerical(a, item)
        if "~" in s:
            return self._multichoice(a, item)
        if "=" in s and "->" in s:
            return self._match(a, item)
        check = s[: s.find("#")].strip(_PHP_TRIM) if s.find("#") > 0 else s
        if check in ("T", "TRUE", "F", "FALSE"):
            return self._truefalse(a, item)
        return self._shortanswer(a, item)

    # -- answers ------------------------------------------------------------------------

    def _split_answers(self, a: _Text, sep: str) -> list[_Text]:
        parts = a.split(sep)
        if parts and not parts[0].strip().s:
            parts = parts[1:]
        return [p.strip() for p in parts]

    def _weight(self, a: _Text, default: Fraction) -> tuple[Fraction | None, _Text]:
        """A leading %w% weight (Moodle's regex), checked against the grade list."""
        m = WEIGHT_RE.match(a.s)
        if not m:
            return default, a
        end = a.s.find("%", 1)
        raw = a.s[1:end]
        rest = a[end + 1 :]
        try:
            fraction = Fraction(raw.lstrip("-")) / 100 * (-1 if raw.startswith("-") else 1)
        except ValueError:
            fraction = None
        if fraction is None or raw.startswith("--"):
            self.error(a, 0, f"weight '%{raw}%' is not a number Moodle can read", rule="gift.bad-weight")
            return None, rest
        near = nearest_grade(fraction)
        if abs(near - fraction) >= GRADE_TOLERANCE:
            self.error(
                a,
                0,
                f"weight '%{raw}%' is not one of Moodle's allowed grades, so Moodle refuses the file",
                f"the nearest allowed grade is {format_weight(near)}",
                "gift.bad-weight",
            )
            return None, rest
        return near, rest

    def _comment(self, a: _Text) -> tuple[GiftText, GiftText | None]:
        """commentparser(): text, then feedback after the first '#'."""
        bits = a.split("#", 1)
        feedback = self.text_with_format(bits[1], self.qformat) if len(bits) > 1 else None
        return self.text_with_format(bits[0], self.qformat), feedback

    def _multichoice(self, a: _Text, item: GiftItem) -> GiftItem:
        single = "=" in a.s
        marked = _Text(
            a.s.replace("=", "~="),
            _positions(p for ch, p in zip(a.s, a.pos, strict=True) for _ in range(1 + (ch == "="))),
        )
        parts = self._split_answers(marked, "~")
        if len(parts) < 2:
            self.error(a, 0, f"a multiple-choice question needs at least 2 answers, found {len(parts)}",
                       "Moodle fails on '{~only}'; add a choice", "gift.too-few-answers")  # fmt: skip
            return replace(item, qtype="error")
        answers = []
        for p in parts:
            if not p.s:
                self.error(a, 0, "empty answer between '~' or '=' markers", rule="gift.empty-answer")
                continue
            if p.s[0] == "=":
                weight: Fraction | None = Fraction(1)
                p = p[1:]
            else:
                weight, p = self._weight(p, Fraction(0))
            text, feedback = self._comment(p)
            if weight is not None:
                answers.append(GiftAnswer(text, weight, feedback))
        return replace(item, qtype="multichoice", single=single, answers=tuple(answers))

    def _match(self, a: _Text, item: GiftItem) -> GiftItem:
        parts = self._split_answers(a, "=")
        if len(parts) < 2:
            self.error(a, 0, f"a matching question needs at least 2 pairs, found {len(parts)}",
                       "Moodle fails on a matching question with one pair", "gift.too-few-pairs")  # fmt: skip
            return replace(item, qtype="error")
        pairs = []
        for p in parts:
            marker = p.s.find("->")
            if marker < 0:
                self.error(p, 0, "matching pair has no '->'", rule="gift.bad-pair")
                continue
            left = self.text_with_format(p[:marker], self.qformat)
            pairs.append((left, _post(p.s[marker + 2 :]).strip(_PHP_TRIM)))
        return replace(item, qtype="match", pairs=tuple(pairs))

    def _truefalse(self, a: _Text, item: GiftItem) -> GiftItem:
        bits = a.split("#", 2)
        answer = _post(bits[0].s).strip(_PHP_TRIM)
        wrong = self.text_with_format(bits[1], self.qformat) if len(bits) > 1 else None
        right = self.text_with_format(bits[2], self.qformat) if len(bits) > 2 else None
        return replace(
            item, qtype="truefalse", truth=answer in ("T", "TRUE"), true_false_feedback=(wrong, right)
        )

    def _shortanswer(self, a: _Text, item: GiftItem) -> GiftItem:
        answers = []
        for p in self._split_answers(a, "="):
            weight, p = self._weight(p, Fraction(1))
            text, feedback = self._comment(p)
            if not text.text:
                self.error(p, 0, "empty short answer", rule="gift.empty-answer")
            elif weight is not None:
                answers.append(GiftAnswer(text, weight, feedback))
        return replace(item, qtype="shortanswer", answers=tuple(answers))

    def _numerical(self, hashed: _Text, item: GiftItem) -> GiftItem:
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
            return replace(item, qtype="error")
        answers = []
        for p in parts:
            weight, p = self._weight(p, Fraction(1))
            text, feedback = self._comment(p)
            key = self._numeric_key(p, text.text)
            if key is not None and weight is not None:
                answers.append(GiftAnswer(text, weight, feedback, key))
        if wrong is not None:
            _, feedback = self._comment(wrong)
            answers.append(GiftAnswer(GiftText("*", self.qformat, self.loc(wrong)), Fraction(0), feedback))
        return replace(item, qtype="numerical", answers=tuple(answers))

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


def _idnumber(comments: list[str]) -> str:
    m = _ID_COMMENT.search("\n".join(comments))
    return m.group(1).strip().replace("\\]", "]") if m else ""


def _tags(comments: list[str]) -> tuple[str, ...]:
    return tuple(m.group(1).strip().replace("\\]", "]") for m in _TAG_COMMENT.finditer("\n".join(comments)))


def _split_lines(text: str) -> Iterator[str]:
    """readdata(): BOM off; a file with CR but no LF is split on CR, any other on LF.

    One line at a time: a 10 MiB file of empty lines would be millions of strings at once."""
    text = text.removeprefix("\ufeff")
    sep = "\r" if "\n" not in text and "\r" in text else "\n"
    start = 0
    while (end := text.find(sep, start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def _blocks(lines: Iterable[str]) -> Iterator[list[tuple[int, str]]]:
    """readquestions(): blocks between lines that PHP's empty() takes for blank ('' or '0')."""
    current: list[tuple[int, str]] = []
    for lineno, line in enumerate(lines, 1):
        if line.strip(_PHP_TRIM) in ("", "0"):
            if current:
                yield current
            current = []
        else:
            current.append((lineno, line))
    if current:
        yield current


def _sorted(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diags, key=Diagnostic.sort_key)


MAX_GIFT_BLOCKS = 20_000
"""Most blank-line-separated blocks (questions, comments, categories) in one file: twice the
YAML source's 10,000 questions a quiz, so that every question may carry a comment block."""
MAX_GIFT_ERRORS = 100
"""Reading stops after this many errors: a file with more is not a GIFT file worth reading on."""


def read_gift(text: str, path: str) -> GiftFile:
    """Every block of a GIFT file as Moodle reads it; raises GiftSyntaxError with every error."""
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
        items.append(_Block(path, block, diags).read())
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
        if t.format != "html" or t.text[:1] != "<":  # texts are trimmed; most are not rich
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
        if t is not None and t.text:
            rich = self.rich(item, t)
            if rich is not None:
                return rich
        return self.plain_and_lang(item, t)

    def plain(self, item: GiftItem, t: GiftText | None) -> Text | None:
        return self.text_and_lang(item, t)[0]

    def plain_and_lang(self, item: GiftItem, t: GiftText | None) -> tuple[str | None, str | None]:
        if t is None or not t.text:
            return None, None
        if t.format == "html" and has_markup(t.text):
            self.warn(item, "HTML markup other than <br> is kept as text", "gift.html-markup")
        return t.plain_and_lang()

    def question(self, item: GiftItem, n: int, quiz_lang: str | None = None) -> Question | None:
        meta = _meta(item.comments, "lmsexport:")
        qid = item.idnumber or f"q{n}"
        if not _ID_RE.match(qid):
            self.warn(item, f"ID number {qid!r} is not a valid lmsexport id; using 'q{n}'", "gift.bad-id")
            qid = f"q{n}"
        stem, stem_lang = self.text_and_lang(item, item.text)
        if not stem:
            self.error(item, f"question {qid!r} has no question text", "gift.empty-stem")
            return None
        q = Question(
            id=qid,
            type=QuestionType.ESSAY,
            stem=stem,
            explanation=self.plain(item, item.general_feedback),
            points=float(meta.get("points", 1.0)),  # type: ignore[arg-type]
            # The stem's wrapper names the question's language; the quiz's own is implied.
            lang=stem_lang if stem_lang != quiz_lang else None,
            tags=tuple(meta.get("tags", item.tags)),  # type: ignore[arg-type]
            difficulty=Difficulty(meta["difficulty"]) if "difficulty" in meta else None,
            loc=item.loc,
        )
        typed = getattr(self, f"_{item.qtype}")(item, q, meta)
        return typed  # type: ignore[no-any-return]

    def _essay(self, item: GiftItem, q: Question, meta: dict[str, object]) -> Question:
        return q

    def _truefalse(self, item: GiftItem, q: Question, meta: dict[str, object]) -> Question:
        if any(f is not None and f.text for f in item.true_false_feedback):
            self.warn(item, f"question {q.id!r}: true/false feedback is dropped", "gift.feedback-dropped")
        return replace(q, type=QuestionType.TRUE_FALSE, truth=item.truth)

    def _multichoice(self, item: GiftItem, q: Question, meta: dict[str, object]) -> Question | None:
        qlang = q.lang or self.quiz_lang
        texts = [self.rich(item, a.text) or a.text.plain_and_lang() for a in item.answers]
        if item.single and any(0 < a.fraction < 1 for a in item.answers):
            self.warn(item, f"question {q.id!r}: partial credit is dropped", "gift.partial-credit-dropped")
        choices = tuple(
            Choice(
                text=text or "",
                correct=(a.fraction == 1) if item.single else a.fraction > 0,
                feedback=self.plain(item, a.feedback),
                # Unmarked text is in the quiz's language (the writer marks every other one).
                lang=(lang or self.quiz_lang) if (lang or self.quiz_lang) != qlang else None,
                loc=a.text.loc,
            )
            for a, (text, lang) in zip(item.answers, texts, strict=True)
        )
        qtype = QuestionType.SINGLE if item.single else QuestionType.MULTIPLE
        n_right = sum(c.correct for c in choices)
        if n_right == 0 or (item.single and n_right != 1):
            self.error(item, f"question {q.id!r}: expected {'one' if item.single else 'a'} right answer, "
                       f"found {n_right}", "gift.bad-key")  # fmt: skip
            return None
        if not item.single and sum(a.fraction for a in item.answers if a.fraction > 0) != sum(
            nearest_grade(Fraction(1, n_right)) for _ in range(n_right)
        ):
            self.warn(
                item, f"question {q.id!r}: weights are read as right/wrong only", "gift.weights-simplified"
            )
        return replace(q, type=qtype, choices=choices)

    def _shortanswer(self, item: GiftItem, q: Question, meta: dict[str, object]) -> Question | None:
        right = [a for a in item.answers if a.fraction == 1]
        if len(right) != len(item.answers) or any(a.feedback for a in item.answers):
            self.warn(item, f"question {q.id!r}: partial credit and answer feedback are dropped",
                      "gift.partial-credit-dropped")  # fmt: skip
        if not right:
            self.error(item, f"question {q.id!r} has no answer worth 100%", "gift.bad-key")
            return None
        # Moodle's \* is a literal asterisk in a short answer (a bare * is a wildcard).
        answers = tuple(a.text.text.replace("\\*", "*") for a in right)
        return replace(q, type=QuestionType.SHORT_ANSWER, answers=answers,
                       case_sensitive=bool(meta.get("case_sensitive", False)))  # fmt: skip

    def _numerical(self, item: GiftItem, q: Question, meta: dict[str, object]) -> Question | None:
        keys = [a.numeric for a in item.answers if a.numeric is not None and a.fraction == 1]
        if len(keys) != len(item.answers):
            self.warn(item, f"question {q.id!r}: only the first 100% answer is kept", "gift.answers-dropped")
        if not keys:
            self.error(item, f"question {q.id!r} has no answer worth 100%", "gift.bad-key")
            return None
        key = keys[0]
        if "answer" in meta and key.low is not None:
            key = replace(key, answer=float(meta["answer"]))  # type: ignore[arg-type]
        return replace(q, type=QuestionType.NUMERICAL, numeric=key)

    def _match(self, item: GiftItem, q: Question, meta: dict[str, object]) -> Question:
        pairs = tuple(Pair(self.plain(item, left) or "", right, loc=left.loc) for left, right in item.pairs)
        raw = meta.get("distractors", [])
        distractors = tuple(str(d) for d in raw) if isinstance(raw, list) else ()
        return replace(q, type=QuestionType.MATCHING, pairs=pairs, distractors=distractors)


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
        quiz_meta = quiz_meta or _meta(item.comments, "lmsexport-quiz:")
        assessment_meta = assessment_meta or _meta(item.comments, "lmsexport-assessment:")
        mapper.foreign = not (quiz_meta or assessment_meta)
        if item.qtype == "category":
            if category is not None and item.category != category and not assessment_meta:
                mapper.warn(item, "a quiz has one category: this $CATEGORY is ignored", "gift.extra-category")
            category = category or item.category
            current = item.category
        elif item.qtype == "description":
            mapper.warn(item, "text-only item (no answer block) skipped: the model has no such item",
                        "gift.description-skipped")  # fmt: skip
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
    header = quiz.header
    sections = []
    for sec in meta["sections"]:  # type: ignore[attr-defined]
        draws = []
        for d in sec["draws"]:
            candidates = tuple(
                Candidate(header, q) for q in quiz.questions if category_of.get(q.id) == d["category"]
            )
            draws.append(
                Draw(
                    name=d["name"],
                    ids=tuple(c.question.id for c in candidates) if not d["random"] else (),
                    pool=Pool() if d["random"] else None,
                    pick=d["pick"],
                    points=float(d["points"]) if d["points"] is not None else None,
                    candidates=candidates,
                )
            )
        sections.append(Section(title=sec["title"], shuffle=sec["shuffle"], draws=tuple(draws)))
    assessment = Assessment(
        id=quiz.id,
        title=quiz.title,
        lang=quiz.lang,
        sections=tuple(sections),
        description=quiz.description,
        loc=SourceLoc(path),
    )
    return assessment, diags


def read_bank_gift(text: str, path: str, *, quiz_id: str | None = None, lang: str | None = None) -> Quiz:
    """A GIFT file as one Quiz (warnings dropped; use read_quiz to get them)."""
    return read_quiz(text, path, quiz_id=quiz_id, lang=lang)[0]


# -- files from elsewhere ---------------------------------------------------------------

MAX_GIFT_BYTES = 10 * 1024 * 1024
"""A GIFT file larger than this is refused before it is read (the YAML source's limit too)."""


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
        return read_quiz(text, path, quiz_id=quiz_id, lang=lang)
    except GiftSyntaxError as e:
        return None, e.diagnostics
