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
  A text that spells a MathJax delimiter is kept from being typeset (protect_tex()). A rich
  text is HTML blocks (writers/richtext.py), so it always starts with a block element and a
  plain one never does (split_rich()).
* Names. A question's name is what an instructor sees in Moodle's question bank: the start
  of its stem, as Moodle names a GIFT question without one (qformat_default::
  create_default_question_name(): 80 characters).
* Assessments. Neither GIFT nor Moodle XML can describe a quiz: an assessment's file puts each
  draw's questions in a category of its own (draw_category_names()) and says, in the
  assessment's language, how to build the quiz from those categories in Moodle
  (rebuild_instructions(), draw_instruction()).
* lmsexport's own metadata (what Moodle has no field for) travels in comments Moodle ignores;
  checked_meta() accepts only well-typed values from them, since files are untrusted.
"""

from __future__ import annotations

import functools
import html
import json
import math
import re
from collections.abc import Callable
from fractions import Fraction

from .model import (
    Assessment,
    Candidate,
    Difficulty,
    Draw,
    Pool,
    Question,
    Quiz,
    Section,
    SourceLoc,
    direction,
    plain_text,
)
from .writers.richtext import TEX_IGNORE_CLASS, spells_delimiter

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


@functools.lru_cache(maxsize=4096)
def nearest_grade(target: Fraction) -> Fraction:
    """The allowed grade closest to `target` (ties go to the smaller magnitude). Cached: a
    bank's answers have few distinct weights, and the search does Fraction arithmetic against
    every listed grade (it was a quarter of `check`'s time reading Moodle XML back)."""
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
"""lang_span()'s wrapper: what split_lang() takes off (matching it by hand)."""
MARKUP = re.compile(r"</?[A-Za-z!][^>]*>")
"""An HTML tag or comment; what html_to_plain() keeps as text, except `<br>`."""


def html_to_plain(text: str) -> str:
    """What a browser shows for an HTML text, as plain text (inverse of text_to_html)."""
    # Each step only when it can change something: this runs for every text a reader reads.
    # isprintable() is False for tab, line breaks and form feed (and more): one pass, not four.
    if "  " in text or not text.isprintable():
        text = _HTML_SPACE.sub(" ", text)
    text = text.strip(" ")
    if "&" in text:
        text = text.replace("&nbsp;", " ")
    if "<" in text:
        text = _BR.sub("\n", text)
    return html.unescape(text)


_LANG_TAG = re.compile("[A-Za-z0-9-]{1,35}")
_DIR_ATTRS = ('" dir="rtl">', '" dir="ltr">')


def split_lang(html_text: str) -> tuple[str | None, str]:
    """lang_span()'s wrapper taken off an HTML text: (lang, inner), or (None, the text)."""
    s = html_text
    if not s or s[0].isspace() or s[-1].isspace():
        s = s.strip()
    # _LANG_SPAN.match(s), by hand (it runs for every text a reader reads; tests/test_perf.py
    # checks the two agree): lang="..." then dir="rtl" or "ltr", and the closing tag, which
    # cannot overlap the dir attribute's ">".
    if not (s.startswith('<span lang="') and s.endswith("</span>")):
        return None, html_text
    close = s.find('"', 12)
    if close < 0 or s[close : close + 12] not in _DIR_ATTRS or not _LANG_TAG.fullmatch(s[12:close]):
        return None, html_text
    inner = s[close + 12 : -7]
    if "<" in inner and ("<span" in inner or "</span" in inner):
        return None, html_text
    return s[12:close], inner


def has_markup(html_text: str) -> bool:
    """Whether an HTML text holds markup html_to_plain() cannot turn into plain text."""
    return bool(MARKUP.search(_BR.sub("", split_lang(split_tex_ignore(html_text))[1])))


_TEX_IGNORE_OPEN = f'<span class="{TEX_IGNORE_CLASS}">'


def protect_tex(html_text: str) -> str:
    """The HTML of a plain text that spells a MathJax delimiter, kept from being typeset: in
    `<span class="tex2jax_ignore">` (MathJax skips that class: filter/mathjaxloader typesets with
    MathJax's defaults), with every `\\` and `$` as a character reference, so that filters
    reading the HTML source for delimiters (filter/mathjaxloader/classes/text_filter.php,
    filter/tex/classes/text_filter.php) do not see one either. split_tex_ignore() undoes it; as
    writers/richtext.py's Flavour.protect_tex does for rich texts."""
    if not spells_delimiter(html_text):
        return html_text
    return _TEX_IGNORE_OPEN + html_text.replace("\\", "&#92;").replace("$", "&#36;") + "</span>"


def split_tex_ignore(html_text: str) -> str:
    """protect_tex()'s wrapper taken off an HTML text (its character references stay: they are
    HTML, which html_to_plain() decodes)."""
    text = html_text.strip()
    if text.startswith(_TEX_IGNORE_OPEN) and text.endswith("</span>"):
        inner = text[len(_TEX_IGNORE_OPEN) : -len("</span>")]
        if inner.count("<span") == inner.count("</span>"):
            return inner
    return html_text


_RICH_START = re.compile(r"<(?:p|pre|ul|ol|table)[\s>]", re.IGNORECASE)
_RICH_LANG = re.compile(r'<div lang="([A-Za-z0-9-]{1,35})" dir="(?:rtl|ltr)">(.*)</div>\Z', re.DOTALL)


def rich_div(lang: str) -> dict[str, str]:
    """The attributes of the `<div>` that marks a rich text's language (split_rich() reads it)."""
    return {"lang": lang, "dir": direction(lang)}


def split_rich(html_text: str) -> tuple[str | None, str] | None:
    """The language and the blocks of a rich HTML text, or None for a plain one.

    A rich text is HTML blocks (`<p>`, `<pre>`, `<ul>`, `<ol>`, `<table>`), maybe inside the
    writers' `<div lang=".." dir="..">`; a plain text is escaped HTML that never starts with an
    element but lang_span()'s or protect_tex()'s `<span>`. Moodle's editors also start a text with
    a block (`<p dir="ltr" style="text-align: left;">`), so texts from Moodle read as rich.
    """
    text = html_text.strip()
    lang = None
    m = _RICH_LANG.match(text)
    if m is not None and "<div" not in m.group(2):
        lang, text = m.group(1), m.group(2)
    return (lang, text) if _RICH_START.match(text) else None


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


# -- assessments ----------------------------------------------------------------------------
#
# Moodle imports questions, never quizzes (GIFT and Moodle XML are question formats;
# question/format.php qformat_default::importprocess() only fills the question bank). A quiz
# that draws questions at random is built in Moodle's quiz editor from question categories:
# "Add > a random question" picks from one category (mod/quiz/classes/structure.php
# add_random_questions(), every random slot with maximum mark 1), "Add > from question bank"
# adds chosen questions, each with its default mark (mod/quiz/locallib.php
# quiz_add_quiz_question()). So an assessment's file puts each draw's questions in a category of
# their own and tells the instructor, in the assessment's language, what to add from each.

SECTION_NAME_CHARS = 60
"""Longest section title in a category name (Moodle allows 255 characters a name)."""


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


def draw_category_names(assessment: Assessment, n: int, section: Section, draw: Draw) -> tuple[str, str, str]:
    """The category names (below the context and `top`) of the questions of one draw of section
    `n` (1-based): the assessment's id, the section (`<n>. <title>`, or `<n>`), the draw's name.
    Each format writes them as its category path (GIFT's `$CATEGORY:`, Moodle XML's category
    question), so that both files fill the same categories."""
    label = (
        f"{n}. {_shorten(' '.join(section.title.split()), SECTION_NAME_CHARS)}" if section.title else str(n)
    )
    return (assessment.id, label, draw.name)


def format_marks(value: float) -> str:
    """Marks as an instructor types them: `2`, `0.5`."""
    return f"{value:g}"


# The instructions, per language (the primary subtag of the assessment's lang; English for any
# other). Moodle's own labels are quoted in English as its English language pack writes them
# (mod/quiz/lang/en/quiz.php: 'addasection' = "a new section heading", 'questionbank' = "from
# question bank", 'addarandomquestion' = "a random question"; question/format/xml/lang/en/
# qformat_xml.php: 'pluginname' = "Moodle XML format"), since a site's language pack may not
# translate them. Keys ending in `.gift` or `.moodlexml` differ by format.
_INSTRUCTIONS: dict[str, dict[str, str]] = {
    "en": {
        "head": "{title} ({id}): how to build this assessment in Moodle",
        "intro1.gift": (
            "GIFT cannot describe a quiz, so this file only fills the question bank, with the"
            " questions of each draw in a category of their own."
        ),
        "intro1.moodlexml": (
            "Moodle XML cannot describe a quiz, so this file only fills the question bank, with the"
            " questions of each draw in a category of their own; each question's default mark is its"
            " mark in this assessment."
        ),
        "intro2.gift": (
            'Import it (Question bank > Import > "GIFT format") with "Get category from file" ticked'
            ' (and "Get context from file", to put the categories in the course\'s question bank),'
            " then create a quiz and, on its Questions page, build it as below."
        ),
        "intro2.moodlexml": (
            'Import it (Question bank > Import > "Moodle XML format") with "Get category from file"'
            ' ticked (and "Get context from file", to put the categories in the course\'s question'
            " bank), then create a quiz and, on its Questions page, build it as below."
        ),
        "intro3": (
            "Each section is a section of the Moodle quiz: the first one is there already (edit its"
            ' heading); add each other one with Add > "a new section heading".'
        ),
        "description": "Description (for the quiz's settings): {text}",
        "section": "Section {n}: {title}",
        "section-untitled": "Section {n} (no heading)",
        "shuffle": (
            '  Tick "Shuffle" for this section: the order of its questions changes with every attempt.'
        ),
        "random": (
            'Add > "a random question": category "{path}", "Number of random questions" {pick}'
            " (of the {size} in the category); maximum mark {marks} each."
        ),
        "random-varied": (
            'Add > "a random question": category "{path}", "Number of random questions" {pick}'
            " (of the {size} in the category); its questions are worth {marks} marks, but Moodle gives a"
            " random question one maximum mark: choose it."
        ),
        "listed": (
            'Add > "from question bank": category "{path}", all of its questions, in this order: {ids}.'
        ),
        "listed-question": "{id} (maximum mark {marks})",
        "marks.gift": (
            "Marks: GIFT cannot carry them, so every question imports with a default mark of 1. Set"
            " each question's maximum mark on the quiz's Questions page as listed above."
        ),
        "marks.moodlexml": (
            "Marks: a question added from the question bank comes with its mark from this file, but"
            " Moodle gives every random question a maximum mark of 1: set each random question's"
            " maximum mark on the quiz's Questions page as listed above."
        ),
        "total": "One attempt: {count} questions, {marks} marks in all.",
        "total-varied": "One attempt: {count} questions; the total of marks depends on the questions drawn.",
    },
    "ur": {
        "head": "{title} ({id}): Moodle میں یہ امتحان بنانے کا طریقہ",
        "intro1.gift": (
            "GIFT کوئز کی ساخت بیان نہیں کر سکتا، اس لیے یہ فائل صرف سوالات کا بینک بھرتی ہے: ہر انتخاب"
            " (draw) کے سوالات اپنے الگ زمرے (category) میں ہیں۔"
        ),
        "intro1.moodlexml": (
            "Moodle XML کوئز کی ساخت بیان نہیں کر سکتا، اس لیے یہ فائل صرف سوالات کا بینک بھرتی ہے: ہر"
            " انتخاب (draw) کے سوالات اپنے الگ زمرے (category) میں ہیں، اور ہر سوال کے طے شدہ نمبر"
            " (default mark) وہی ہیں جو اس امتحان میں ہیں۔"
        ),
        "intro2.gift": (
            'اسے Question bank > Import > "GIFT format" سے درآمد کریں اور "Get category from file" پر'
            ' نشان لگائیں (زمروں کو کورس کے سوالات کے بینک میں رکھنے کے لیے "Get context from file" پر بھی)،'
            " پھر ایک کوئز بنائیں اور اس کے Questions صفحے پر اسے نیچے دی گئی ترتیب سے بنائیں۔"
        ),
        "intro2.moodlexml": (
            'اسے Question bank > Import > "Moodle XML format" سے درآمد کریں اور "Get category from file"'
            ' پر نشان لگائیں (زمروں کو کورس کے سوالات کے بینک میں رکھنے کے لیے "Get context from file" پر'
            " بھی)، پھر ایک کوئز بنائیں اور اس کے Questions صفحے پر اسے نیچے دی گئی ترتیب سے بنائیں۔"
        ),
        "intro3": (
            "ہر حصہ Moodle کوئز کا ایک section ہے: پہلا پہلے سے موجود ہے (اس کا عنوان بدل دیں)؛ باقی ہر ایک"
            ' Add > "a new section heading" سے شامل کریں۔'
        ),
        "description": "تفصیل (کوئز کی ترتیبات کے لیے): {text}",
        "section": "حصہ {n}: {title}",
        "section-untitled": "حصہ {n} (بغیر عنوان)",
        "shuffle": '  اس حصے کے لیے "Shuffle" پر نشان لگائیں: ہر کوشش پر اس کے سوالات کی ترتیب بدلتی ہے۔',
        "random": (
            'Add > "a random question": زمرہ "{path}"، "Number of random questions" {pick}'
            " (زمرے کے {size} سوالات میں سے)؛ ہر سوال کے زیادہ سے زیادہ نمبر {marks}۔"
        ),
        "random-varied": (
            'Add > "a random question": زمرہ "{path}"، "Number of random questions" {pick}'
            " (زمرے کے {size} سوالات میں سے)؛ ان سوالات کے نمبر {marks} ہیں، لیکن Moodle بے ترتیب سوال"
            " کو ایک ہی زیادہ سے زیادہ نمبر دیتا ہے: اسے خود چنیں۔"
        ),
        "listed": 'Add > "from question bank": زمرہ "{path}" کے تمام سوالات، اسی ترتیب سے: {ids}۔',
        "listed-question": "{id} (زیادہ سے زیادہ نمبر {marks})",
        "marks.gift": (
            "نمبر: GIFT نمبر منتقل نہیں کر سکتا، اس لیے ہر سوال 1 نمبر کے ساتھ درآمد ہوتا ہے۔ کوئز کے"
            " Questions صفحے پر ہر سوال کے زیادہ سے زیادہ نمبر اوپر دی گئی فہرست کے مطابق مقرر کریں۔"
        ),
        "marks.moodlexml": (
            "نمبر: سوالات کے بینک سے شامل کیا گیا سوال اس فائل والے نمبر کے ساتھ آتا ہے، لیکن Moodle ہر"
            " بے ترتیب سوال (random question) کو زیادہ سے زیادہ 1 نمبر دیتا ہے: کوئز کے Questions صفحے"
            " پر ہر بے ترتیب سوال کے زیادہ سے زیادہ نمبر اوپر دی گئی فہرست کے مطابق مقرر کریں۔"
        ),
        "total": "ایک کوشش: {count} سوالات، کل {marks} نمبر۔",
        "total-varied": "ایک کوشش: {count} سوالات؛ کل نمبر منتخب ہونے والے سوالات پر منحصر ہیں۔",
    },
}
FORMATS = ("gift", "moodlexml")
"""The formats whose files carry these instructions."""


def _wording(lang: str) -> dict[str, str]:
    return _INSTRUCTIONS.get(lang.split("-")[0].lower(), _INSTRUCTIONS["en"])


def draw_instruction(lang: str, draw: Draw, path: str) -> str:
    """What to add to the quiz from one draw's category (`path` as Moodle lists it), in `lang`."""
    t = _wording(lang)
    marks = sorted({draw.points_of(c.question) for c in draw.candidates})
    if draw.is_random:
        key = "random" if len(marks) == 1 else "random-varied"
        return t[key].format(
            path=path, pick=draw.count, size=len(draw.candidates), marks="/".join(map(format_marks, marks))
        )
    ids = ", ".join(
        t["listed-question"].format(id=c.question.id, marks=format_marks(draw.points_of(c.question)))
        for c in draw.candidates
    )
    return t["listed"].format(path=path, ids=ids)


def section_heading(lang: str, n: int, section: Section) -> str:
    """`Section 2: <title>` in `lang`: the line that opens a section's instructions."""
    t = _wording(lang)
    title = " ".join(section.title.split()) if section.title else ""
    return t["section"].format(n=n, title=title) if title else t["section-untitled"].format(n=n)


def rebuild_instructions(assessment: Assessment, paths: dict[tuple[int, int], str], fmt: str) -> list[str]:
    """The lines an instructor reads first, in the assessment's language: how to build the quiz in
    Moodle from the categories of a `fmt` ("gift" or "moodlexml") file. `paths[n, k]` is the
    category of draw k of section n (1-based) as Moodle lists it. No line holds a line break."""
    assert fmt in FORMATS
    t = _wording(assessment.lang)
    lines = [t["head"].format(title=" ".join(assessment.title.split()), id=assessment.id), ""]
    lines += [t[f"intro1.{fmt}"], t[f"intro2.{fmt}"], t["intro3"]]
    if assessment.description is not None:
        description = plain_text(assessment.description).split("\n")
        lines += ["", t["description"].format(text=description[0]), *description[1:]]
    for n, section in enumerate(assessment.sections, 1):
        lines += ["", section_heading(assessment.lang, n, section)]
        if section.shuffle:
            lines.append(t["shuffle"])
        for k, draw in enumerate(section.draws, 1):
            lines.append(f"  {k}. " + draw_instruction(assessment.lang, draw, paths[n, k]))
    total = assessment.total_points
    lines += ["", t[f"marks.{fmt}"]]
    if total is None:
        lines.append(t["total-varied"].format(count=assessment.question_count))
    else:
        lines.append(t["total"].format(count=assessment.question_count, marks=format_marks(total)))
    return lines


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
    # Moodle XML question metadata: what a file holding Moodle's defaults cannot tell apart
    "named": lambda v: v is True,
    "name": lambda v: isinstance(v, str) and bool(v),
    "penalty": lambda v: _is_number(v) and 0 <= v <= 1,  # type: ignore[operator]
    "show_num_correct": lambda v: v is True,
    "ranges": lambda v: isinstance(v, list) and all(x is None or _is_range(x) for x in v),
    # a cloze's number blanks (Moodle XML): blank number -> each key's range, as "ranges"
    "blank_ranges": lambda v: (
        isinstance(v, dict)
        and all(isinstance(r, list) and all(x is None or _is_range(x) for x in r) for r in v.values())
    ),
    # a cloze's multiple-pick blanks whose credits Moodle rescales: blank number -> the credits
    "blank_credits": lambda v: (
        isinstance(v, dict)
        and all(
            isinstance(r, list) and all(isinstance(x, int | float) and not isinstance(x, bool) for x in r)
            for r in v.values()
        )
    ),
    "template_rich": lambda v: v is True,
    "template_html": _is_text,
    # a parametric question's definition (Moodle XML; checked field by field by the reader)
    "parametric": lambda v: isinstance(v, dict),
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


def _is_range(v: object) -> bool:
    """A range's [low, high], or [low, high, preferred answer] (with the answer inside)."""
    return (
        isinstance(v, list)
        and len(v) in (2, 3)
        and all(_is_number(x) for x in v)
        and v[0] <= v[1]
        and (len(v) == 2 or v[0] <= v[2] <= v[1])
    )


def _is_draw(d: object) -> bool:
    return (
        isinstance(d, dict)
        and isinstance(d.get("name"), str)
        and bool(_ID_RE.match(d["name"]))
        and _is_text(d.get("category"))
        and isinstance(d.get("random"), bool)
        and (
            d.get("pick") is None
            or (isinstance(d["pick"], int) and not isinstance(d["pick"], bool) and d["pick"] > 0)
        )
        and (d.get("points") is None or (_is_number(d["points"]) and d["points"] > 0))
        and (d.get("pick") is None) != d["random"]
    )


def _is_sections(v: object) -> bool:
    """An assessment's `sections`: [{title, shuffle, draws: [{name, category, random, pick, points}]}]."""
    return isinstance(v, list) and all(
        isinstance(sec, dict)
        and (sec.get("title") is None or _is_text(sec["title"]))
        and isinstance(sec.get("shuffle"), bool)
        and isinstance(sec.get("draws"), list)
        and all(_is_draw(d) for d in sec["draws"])
        for sec in v
    )


def parse_meta(encoded: str, checks: dict[str, Callable[[object], bool]] = META_CHECKS) -> dict[str, object]:
    """The JSON object of a metadata comment, keeping only known keys with well-typed values
    (``checks``: key -> its check; a format may know more keys, as GIFT does).

    The comments are ours, but the file is untrusted input: a value of the wrong type or
    outside its domain is dropped (the field keeps what Moodle itself would give it).
    """
    try:
        data = json.loads(encoded)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k in checks and checks[k](v)}


def assessment_from_meta(
    quiz: Quiz, meta: dict[str, object], category_of: dict[str, str], path: str
) -> Assessment:
    """An assessment's GIFT or Moodle XML file, read as a quiz, back as the Assessment it was
    written from (readers/gift.py and readers/moodlexml.py, read_assessment): sections, titles,
    shuffling, draw names, picks and points from its `lmsexport-assessment` metadata (``meta``,
    with "sections"); each draw's candidates the questions in its category (``category_of``:
    question id -> category), in file order. A candidate's quiz is the assessment's header (the
    file has no home quizzes), and a random draw's pool is empty: its conditions were resolved
    into the category, which is all the format keeps."""
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
    return Assessment(
        id=quiz.id,
        title=quiz.title,
        lang=quiz.lang,
        sections=tuple(sections),
        description=quiz.description,
        loc=SourceLoc(path),
    )


FILE_TYPE_RE = re.compile(
    r"\.[A-Za-z0-9][A-Za-z0-9_+-]*(\.[A-Za-z0-9_+-]+)*"  # an extension: .pdf, .tar.gz
    r"|[a-z][a-z0-9_]*"  # a group of types: document, web_image
    r"|[a-z]+/[A-Za-z0-9.+*-]+"  # a MIME type: application/pdf, image/*
)
"""An accepted file type of an essay, as Moodle's filetypes element takes one (core_form\\filetypes_util)."""


def file_types_of(listed: str) -> list[str]:
    """An essay's `filetypeslist` as its entries: split on commas, semicolons and white space
    (filetypes_util::normalize_file_types()), each once; `*` (any file) is no list at all."""
    out: list[str] = []
    for entry in re.split(r"[\s,;:]+", listed):
        if entry == "*":
            return []
        if entry and entry not in out:
            out.append(entry)
    return out
