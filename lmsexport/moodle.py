"""What Moodle's question bank does with what it is given: facts shared by the GIFT and the
Moodle XML writers and readers (lmsexport.writers.gift, .moodlexml; lmsexport.readers.gift,
.moodlexml). Each fact names the Moodle source it comes from (moodle/moodle).

* Grades. An answer's weight must be on Moodle's list of allowed grades
  (question_bank::fraction_options_full()), within match_grade_options()'s 0.00001, or
  question/format.php's importprocess() refuses the whole file.
* Texts. lmsexport's texts are plain Unicode; Moodle shows HTML. text_to_html() is the one
  place a plain text becomes the HTML that Moodle shows exactly as that text (html_to_plain()
  is its inverse), and lang_span() marks its language so that Urdu reads right to left on any
  Moodle page (Moodle's HTML purifier keeps `lang` and `dir`).
* Names. A question's name is what an instructor sees in Moodle's question bank: the start
  of its stem, as Moodle names a GIFT question without one (qformat_default::
  create_default_question_name(): 80 characters).
* lmsexport's own metadata (what Moodle has no field for) travels in comments Moodle ignores;
  checked_meta() accepts only well-typed values from them, since files are untrusted.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable
from fractions import Fraction

from .model import Difficulty, Question, direction, plain_text

# -- grades -------------------------------------------------------------------------------

# Moodle's question_bank::ensure_fraction_options_initialised(): p/q for q <= 6, p/10, 1/q
# for q <= 10, and 1/20, stored rounded to 7 decimals, plus their negatives, 0, 1 and -1.
_RAW_FRACTIONS = (
    "0.9", "0.8333333", "0.8", "0.75", "0.7", "0.6666667", "0.6", "0.5", "0.4", "0.3333333",
    "0.3", "0.25", "0.2", "0.1666667", "0.1428571", "0.125", "0.1111111", "0.1", "0.05",
)  # fmt: skip
MOODLE_GRADES: tuple[Fraction, ...] = tuple(
    sorted(
        {Fraction(0), Fraction(1), Fraction(-1)}
        | {Fraction(f) for f in _RAW_FRACTIONS}
        | {-Fraction(f) for f in _RAW_FRACTIONS}
    )
)
"""Every fraction Moodle's importer accepts as an answer weight (exact 7-decimal values)."""

GRADE_TOLERANCE = Fraction(1, 100000)
"""match_grade_options() accepts a weight within this distance of a listed grade."""


def nearest_grade(target: Fraction) -> Fraction:
    """The allowed grade closest to `target` (ties go to the smaller magnitude)."""
    return min(MOODLE_GRADES, key=lambda g: (abs(g - target), abs(g)))


def allowed_grade(fraction: Fraction) -> Fraction | None:
    """The listed grade Moodle's match_grade_options() takes `fraction` for, or None (refused)."""
    near = nearest_grade(fraction)
    return near if abs(near - fraction) < GRADE_TOLERANCE else None


def multi_answer_weights(n_correct: int, n_wrong: int) -> tuple[Fraction, Fraction, bool]:
    """Weights (correct, wrong, exact) for a multi-answer question.

    Correct picks share +100% and wrong picks share -100%, so ticking every box scores 0.
    `exact` is False when 1/n is not on Moodle's list and the nearest grade was taken.
    """
    correct = nearest_grade(Fraction(1, n_correct))
    wrong = nearest_grade(Fraction(-1, n_wrong)) if n_wrong else Fraction(0)
    exact = abs(correct - Fraction(1, n_correct)) < GRADE_TOLERANCE and (
        n_wrong == 0 or abs(wrong - Fraction(-1, n_wrong)) < GRADE_TOLERANCE
    )
    return correct, wrong, exact


def format_percent(fraction: Fraction) -> str:
    """A grade as Moodle's exporters print it: percent to 5 decimals, trailing zeros dropped."""
    percent = f"{float(fraction * 100):.5f}".rstrip("0").rstrip(".")
    return "0" if percent == "-0" else percent


def format_number(value: float) -> str:
    """A number as PHP's is_numeric() reads it back exactly: `12`, `0.5`, `1e-07`."""
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


# -- texts --------------------------------------------------------------------------------

_COLLAPSIBLE_SPACE = re.compile(r"(?<![^ \n]) | (?![^ \n])")
"""A space HTML would collapse or drop: first or last, in a run, or beside a line break."""


def text_to_html(text: str) -> str:
    """Plain source text -> HTML that a browser (and so Moodle) shows exactly as `text`.

    `&`, `<`, `>` escaped, tab and carriage return as character references, spaces HTML would
    collapse as `&nbsp;`, line breaks as `<br>`. The inverse is html_to_plain().
    """
    # Whole-string replaces (C speed) in an order where no step can produce what a later one
    # rewrites; tests/test_perf.py checks it against the character-by-character definition.
    out = html.escape(text, quote=False)
    if "\t" in out or "\r" in out:
        out = out.replace("\t", "&#9;").replace("\r", "&#13;")
    if out[:1] == " " or out[-1:] == " " or "  " in out or " \n" in out or "\n " in out:
        out = _COLLAPSIBLE_SPACE.sub("&nbsp;", out)
    return out.replace("\n", "<br>")


def lang_span(html_text: str, lang: str) -> str:
    """HTML wrapped so that any page lays it out in `lang`'s direction (split_lang() undoes it)."""
    return f'<span lang="{html.escape(lang)}" dir="{direction(lang)}">{html_text}</span>'


_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")
_LANG_SPAN = re.compile(r'<span lang="([A-Za-z0-9-]{1,35})" dir="(?:rtl|ltr)">(.*)</span>\Z', re.DOTALL)
MARKUP = re.compile(r"</?[A-Za-z!][^>]*>")
"""An HTML tag or comment; what html_to_plain() keeps as text, except `<br>`."""


def html_to_plain(text: str) -> str:
    """What a browser shows for an HTML text, as plain text (inverse of text_to_html)."""
    text = _HTML_SPACE.sub(" ", text).strip(" ")
    text = text.replace("&nbsp;", " ")
    text = _BR.sub("\n", text)
    return html.unescape(text)


def split_lang(html_text: str) -> tuple[str | None, str]:
    """lang_span()'s wrapper taken off an HTML text: (lang, inner), or (None, the text)."""
    m = _LANG_SPAN.match(html_text.strip())
    if m is None or "<span" in m.group(2) or "</span" in m.group(2):
        return None, html_text
    return m.group(1), m.group(2)


def has_markup(html_text: str) -> bool:
    """Whether an HTML text holds markup html_to_plain() cannot turn into plain text."""
    return bool(MARKUP.search(_BR.sub("", split_lang(html_text)[1])))


# -- names --------------------------------------------------------------------------------

NAME_CHARS = 80
"""Longest question name, as Moodle names a question without one (it allows 255)."""


def name_from_stem(question: Question, clean: Callable[[str], str] | None = None) -> str:
    """The name Moodle lists in its question bank: the stem's start, on one line.

    The question's id travels separately as its ID number, so the name is free to be what an
    instructor recognises: the question itself. `clean` adapts the one-line text to what a
    format cannot hold in a name, before it is shortened.
    """
    text = " ".join(plain_text(question.stem).split())  # a rich stem's words, formulas as TeX
    if clean is not None:
        text = clean(text)
    if len(text) <= NAME_CHARS:
        return text
    cut = text[: NAME_CHARS - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


# -- lmsexport's own metadata ----------------------------------------------------------------

_ID_RE = re.compile(r"[A-Za-z][A-Za-z0-9._-]*\Z")


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _is_text(v: object) -> bool:
    return isinstance(v, str) and v.strip() == v and bool(v)


def _is_texts(v: object) -> bool:
    return isinstance(v, list) and all(_is_text(x) for x in v)


META_CHECKS: dict[str, Callable[[object], bool]] = {
    # question metadata
    "points": lambda v: _is_number(v) and v > 0,  # type: ignore[operator]
    "tags": _is_texts,
    "case_sensitive": lambda v: isinstance(v, bool),
    "answer": _is_number,
    "range": lambda v: isinstance(v, list) and len(v) == 2 and all(_is_number(x) for x in v) and v[0] <= v[1],
    "distractors": _is_texts,
    # quiz metadata
    "id": lambda v: isinstance(v, str) and bool(_ID_RE.match(v)),
    "title": _is_text,
    "lang": lambda v: isinstance(v, str) and bool(re.fullmatch(r"[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*", v)),
    "description": _is_text,
    "difficulty": lambda v: v in {d.value for d in Difficulty},
    "category": _is_text,
    "shuffle": lambda v: isinstance(v, bool),
    "description_html": _is_text,
    # assessment metadata (GIFT's `lmsexport-assessment:` comment; id, title, lang as a quiz's)
    "sections": lambda v: _is_sections(v),
}
"""Every key lmsexport writes into its metadata comments, with the check its value must pass."""


def _is_sections(v: object) -> bool:
    """The `sections` of an assessment's metadata, as writers.gift.write_assessment writes them."""

    def is_draw(d: object) -> bool:
        return (
            isinstance(d, dict)
            and isinstance(d.get("name"), str)
            and bool(_ID_RE.match(d["name"]))
            and _is_text(d.get("category"))
            and isinstance(d.get("random"), bool)
            and (
                d.get("pick") is None
                or (isinstance(d["pick"], int) and not isinstance(d["pick"], bool) and d["pick"] > 0)
            )  # fmt: skip
            and (d.get("points") is None or (_is_number(d["points"]) and d["points"] > 0))
            and (d.get("pick") is None) != d["random"]
        )

    return isinstance(v, list) and all(
        isinstance(sec, dict)
        and (sec.get("title") is None or _is_text(sec["title"]))
        and isinstance(sec.get("shuffle"), bool)
        and isinstance(sec.get("draws"), list)
        and all(is_draw(d) for d in sec["draws"])
        for sec in v
    )


def parse_meta(encoded: str) -> dict[str, object]:
    """The JSON object of a metadata comment, keeping only known keys with well-typed values.

    The comments are ours, but the file is untrusted input: a value of the wrong type or
    outside its domain is dropped (the field keeps what Moodle itself would give it).
    """
    try:
        data = json.loads(encoded)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k in META_CHECKS and META_CHECKS[k](v)}
