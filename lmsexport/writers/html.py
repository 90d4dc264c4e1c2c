"""Self-contained HTML quizzes and assessments (one page each) and the build's index page.

Each page works offline from file://: CSS and JS are inline, images are data: URIs, formulas
are MathML (Chromium renders MathML Core natively; the TeX stays as an annotation), code is
highlighted by Pygments into class-styled spans, and nothing is fetched. A
Content-Security-Policy with sha256 hashes of the two inline blocks and `img-src data:` forbids
everything else, so even an escaping bug could not load or run anything.

Nothing of the key, the feedback, the hints or the explanations is in the visible DOM before
the learner submits (or asks for a hint): the key travels in a
``<script type="application/json">`` block and the feedback, hints and explanations in
``<template>`` elements (neither is rendered nor read by screen readers); the page's script
reads the key and clones the templates on submit (a hint: when asked for). It never
parses markup at run time: every text was escaped once, here, by lxml or jinja2. With
JavaScript off the page still lists every question (an assessment: every candidate, grouped
by draw, saying how many of them an attempt gets); it just cannot be scored.

Attempts (templates/html/quiz.js): every attempt (a fresh page, "try again") draws each
random draw's `pick` questions from its candidates (they keep the bank's order), shuffles a
section's questions across its draws when `Section.shuffle`, and shuffles the choices of
single and multiple questions whose quiz says `shuffle: true` (true/false keeps true, false).
Randomness is xoshiro128** seeded from `crypto.getRandomValues`, or from `?seed=N` in the
page's URL (0 <= N < 2**32; later attempts continue the same stream), so a test can replay
an attempt. Choices keep their source index (`data-choice-index`) whatever their position.

Scoring (in the browser, documented here and in docs/source-format.md), out of each shown
question's points (in an assessment, `Draw.points_of`), as a credit times the points:
- single, true_false: the picked choice's credit; a negative credit is a negative mark for the
  question, and only the page's total is floored at 0.
- multiple: the picks' credits (`MultipleChoice.credits`) summed, clamped to [0, 1].
- short_answer: the first answer, in order, that the response matches (after NFC normalisation
  and trimming; case-insensitive unless ShortAnswer.case_sensitive; `*` any text in a wildcard
  answer, as Moodle's compare_string_with_wildcard) earns its credit; none: 0.
- numerical: Latin, Arabic-Indic and Extended Arabic-Indic (Urdu) digits, "." "," or "٫"
  as decimal separator; the first key whose bounds hold the number (with a 1e-9 relative slack
  so that float rounding of answer +- tolerance never rejects a boundary value) earns its
  credit. With units, a number in a known unit is divided by its multiplier first, and a key
  that holds it only as typed (a wrong or missing unit) earns its credit less the unit penalty
  (Moodle's qtype_numerical grade_response and apply_unit_penalty).
- matching: the share of right pairs.
- essay: never scored and left out of the score's denominator; the page says so.
- cloze: points x the blanks' credits weighted by their weights (lmsexport/scoring.py's
  cloze_credit, qtype_multianswer's rule, not clamped); each blank is an <input>, a <select> or an
  inline radio/check box group inside the stem's text (cloze_stem, the renderer's gap hook).
- ordering: scoring.py's ordering_credit over the items an attempt shows (all, or select_count
  drawn at random or adjacent), ported to the script; reordered with move buttons, each move
  announced in a live region.
- description: its text in its place, not numbered, worth nothing, never scored.
- calculated, calculated_choice (parametric): each attempt shows one of the question's variants,
  drawn at random and never the previous attempt's when it has two or more, as the ordinary
  question variants.instantiate makes of it (the texts, keys and choices every other format
  shows). A calculated variant is right when |response - key| <= margin, margin being the very
  float variants.accepts(..., "lmsexport") compares with (its absolute margin plus 1e-9 |key|),
  computed here, so the page grades as Python does; units, Urdu digits and the unit penalty as
  for numerical; after submitting the key is shown with the question's decimals ("13.00 GB").
  A calculated_choice variant scores as single (multiple) choice, its choices' numbers left to
  right. What the page carries (_parametric): the question's markup once, as its first variant
  (what a page without JavaScript shows), and each variant's texts that differ (stem,
  explanation, feedback, hints) pre-rendered into inert <template>s, with its key and choices
  in the data; each text is written once per distinct rendering (a feedback without placeholders
  once, a hint naming only {G} once per value of G). Pre-rendered, not rendered by the script
  from data: a formula's MathML and a text's markup are made here once, and the script never
  builds markup. A 20-variant question costs about 1 KB a variant (18.6 KB for the ZeRO-3
  question of tests/test_html_parametric.py with its explanation, hint and feedback; 24.5 KB for
  the pipeline bubble one, whose stem and explanation hold formulas), against 1.6 to 1.8 KB a
  variant as 20 questions of their own; writing the page takes less time than writing those 20.
The script and style of these kinds are only in pages that have them (`_features`: "structured",
"parametric"), so a page without them carries exactly what it carried before they existed.
Each hint taken before submitting costs the question's penalty (default 1/3) of its points, never
taking its mark below 0. The combined feedback (correct, partial, incorrect) follows the credit.
true_false is shown as two choices where data-choice-index 0 = true and 1 = false.

What the learner never sees is never written: an essay's grader information, and the question's
name (its name in an LMS's question bank: Moodle shows it to teachers, never in an attempt).

Rich texts go through the shared renderer (writers/richtext.py). A stem that is one paragraph
is the question's <legend>; a longer one (a table, a code block) is a <div> naming the
fieldset through aria-labelledby, as a legend may hold phrasing content only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import types
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property, lru_cache
from typing import Any, assert_never
from urllib.parse import quote

import jinja2
from lxml import etree
from markupsafe import Markup, escape

from .. import variants as vt
from ..formula import format_value
from ..mathml import to_mathml
from ..media import data_uri as media_data_uri
from ..model import (
    Assessment,
    Bank,
    Blank,
    Block,
    Body,
    BulletList,
    Calculated,
    CalculatedChoice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    CodeBlock,
    Description,
    Draw,
    Essay,
    Gap,
    Image,
    Layout,
    Matching,
    Math,
    MultipleChoice,
    NumberBlank,
    Numerical,
    NumericKey,
    OrderedList,
    Ordering,
    Para,
    Question,
    QuestionType,
    Quiz,
    ResponseFormat,
    Rich,
    ShortAnswer,
    SingleChoice,
    Table,
    Text,
    TextBlank,
    TrueFalse,
    UnitInput,
    direction,
    is_full,
    plain_text,
)
from ..scoring import key_interval
from . import COMPILED_TEMPLATES, Output, WriteContext
from .richtext import Flavour, Renderer, to_html

TEMPLATES = "templates/html"

UI_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "question_of": "Question {n} of {total}",
        "question_n": "Question {n}",
        "submit": "Submit",
        "score": "Score",
        "previous": "Previous",
        "next": "Next",
        "review_all": "Review all",
        "one_at_a_time": "One at a time",
        "try_again": "Try again",
        "correct": "Correct",
        "incorrect": "Incorrect",
        "partly_correct": "Partly correct",
        "ungraded": "Not scored: a teacher grades this answer",
        "explanation": "Explanation",
        "key_answer": "Correct answer",
        "accepted_answers": "Accepted answers",
        "your_answer": "Your answer",
        "choose": "Choose…",
        "difficulty": "Difficulty",
        "easy": "Easy",
        "medium": "Medium",
        "hard": "Hard",
        "points_one": "{n} point",
        "points_many": "{n} points",
        "questions_count": "{n} questions",
        "tags": "Tags",
        "essay_not_counted": "Essay questions are not counted in the score.",
        "noscript": "Scoring needs JavaScript; every question is listed below.",
        "quizzes": "Quizzes",
        "quiz": "Quiz",
        "questions": "Questions",
        "downloads": "Downloads",
        "qti21": "QTI 2.1 (Canvas)",
        "qti12": "QTI 1.2 (Canvas)",
        "gift": "GIFT (Moodle)",
        "moodlexml": "Moodle XML",
        "cc13": "Common Cartridge 1.3 of every quiz (Canvas, Blackboard, Brightspace, Sakai)",
        "cc11": "Common Cartridge 1.1 of every quiz (Moodle's course restore)",
        "true": "True",
        "false": "False",
        "html": "HTML quiz",
        "assessments": "Assessments",
        "assessment": "Assessment",
        "per_attempt": "Questions per attempt",
        "drawn": "{pick} of these {n} questions are drawn for each attempt.",
        "points_each": "Each is worth {points}.",
        "hint_button": "Show a hint (costs {cost})",
        "hint_n": "Hint {n} of {total}",
        "hint_penalty": "Hints taken: {n}, {cost}",
        "num_correct": "{n} of {total} right",
        "unit": "Unit",
        "words": "Words: {n}",
        "min_words": "at least {n} words",
        "max_words": "at most {n} words",
        "too_few_words": "fewer words than asked",
        "too_many_words": "more words than asked",
        "optional": "(optional)",
        "no_response_box": "No typed answer here: hand in this answer as your teacher asks.",
        "files_note": (
            "Files for this answer: {files}. Hand them in as your teacher asks; this page takes none."
        ),
        "files_up_to": "up to {n}",
        "files_any": "as many as needed",
        "file_types": "{files} ({types})",
        "code": "Code",
        "blank_of": "blank {n} of {total}",
        "blank_n": "Blank {n}",
        "move_up": "Move up: {item}",
        "move_down": "Move down: {item}",
        "move_earlier": "Move earlier: {item}",
        "move_later": "Move later: {item}",
        "moved_to": "{item} moved to position {n} of {total}",
        "ordering_help": "Put the items in order with the move buttons.",
        "correct_order": "Correct order",
        "item_scored": "Scored",
        "item_not_scored": "Not scored",
    },
    "ur": {
        "question_of": "سوال {n} از {total}",
        "question_n": "سوال {n}",
        "submit": "جمع کریں",
        "score": "اسکور",
        "previous": "پچھلا",
        "next": "اگلا",
        "review_all": "تمام سوالات دیکھیں",
        "one_at_a_time": "ایک وقت میں ایک سوال",
        "try_again": "دوبارہ کوشش کریں",
        "correct": "درست",
        "incorrect": "غلط",
        "partly_correct": "جزوی طور پر درست",
        "ungraded": "اسکور نہیں کیا گیا: اس جواب کو استاد جانچیں گے",
        "explanation": "وضاحت",
        "key_answer": "درست جواب",
        "accepted_answers": "قابلِ قبول جوابات",
        "your_answer": "آپ کا جواب",
        "choose": "منتخب کریں…",
        "difficulty": "مشکل کی سطح",
        "easy": "آسان",
        "medium": "درمیانہ",
        "hard": "مشکل",
        "points_one": "{n} نمبر",
        "points_many": "{n} نمبر",
        "questions_count": "{n} سوالات",
        "tags": "ٹیگز",
        "essay_not_counted": "مضمون والے سوالات اسکور میں شامل نہیں۔",
        "noscript": "اسکور کے لیے JavaScript درکار ہے؛ تمام سوالات نیچے درج ہیں۔",
        "quizzes": "کوئز",
        "quiz": "کوئز",
        "questions": "سوالات",
        "downloads": "ڈاؤن لوڈ",
        "qti21": "QTI 2.1 (Canvas)",
        "qti12": "QTI 1.2 (Canvas)",
        "gift": "GIFT (Moodle)",
        "moodlexml": "Moodle XML",
        "cc13": "تمام کوئز کا Common Cartridge 1.3 (Canvas، Blackboard، Brightspace، Sakai)",
        "cc11": "تمام کوئز کا Common Cartridge 1.1 (Moodle میں کورس کی بحالی)",
        "true": "درست",
        "false": "غلط",
        "html": "HTML کوئز",
        "assessments": "امتحانات",
        "assessment": "امتحان",
        "per_attempt": "فی کوشش سوالات",
        "drawn": "ہر کوشش میں ان {n} سوالات میں سے {pick} منتخب ہوتے ہیں۔",
        "points_each": "ہر سوال {points} کا ہے۔",
        "hint_button": "اشارہ دیکھیں ({cost} کی کٹوتی)",
        "hint_n": "اشارہ {n} از {total}",
        "hint_penalty": "لیے گئے اشارے: {n}، {cost}",
        "num_correct": "{total} میں سے {n} درست",
        "unit": "اکائی",
        "words": "الفاظ: {n}",
        "min_words": "کم از کم {n} الفاظ",
        "max_words": "زیادہ سے زیادہ {n} الفاظ",
        "too_few_words": "مطلوبہ سے کم الفاظ",
        "too_many_words": "مطلوبہ سے زیادہ الفاظ",
        "optional": "(اختیاری)",
        "no_response_box": (
            "اس سوال کا جواب یہاں ٹائپ نہیں ہوتا: جواب اپنے استاد کی ہدایت کے مطابق جمع کرائیں۔"
        ),
        "files_note": (
            "اس جواب کی فائلیں: {files}۔ انہیں اپنے استاد کی ہدایت کے مطابق جمع کرائیں؛"
            " یہ صفحہ فائلیں نہیں لیتا۔"
        ),
        "files_up_to": "زیادہ سے زیادہ {n}",
        "files_any": "جتنی ضرورت ہو",
        "file_types": "{files} ({types})",
        "code": "کوڈ",
        "blank_of": "خانہ {n} از {total}",
        "blank_n": "خانہ {n}",
        "move_up": "اوپر لے جائیں: {item}",
        "move_down": "نیچے لے جائیں: {item}",
        "move_earlier": "پہلے لے جائیں: {item}",
        "move_later": "بعد میں لے جائیں: {item}",
        "moved_to": "{item} اب مقام {n} از {total} پر ہے",
        "ordering_help": "آئٹمز کو منتقل کرنے کے بٹنوں سے درست ترتیب میں لگائیں۔",
        "correct_order": "درست ترتیب",
        "item_scored": "نمبر ملے",
        "item_not_scored": "نمبر نہیں ملے",
    },
}
"""Every UI string of the pages, per UI language; the quiz's language picks the table."""

FALLBACK_UI = "en"

DOWNLOADS = {
    "qti21": "qti21/{slug}.zip",
    "qti12": "qti12/{slug}.zip",
    "gift": "gift/{slug}.gift.txt",
    "moodlexml": "moodle/{slug}.xml",
}
"""Formats index.html offers for download, in this order, with each quiz's or assessment's file."""

JS_UI_KEYS = (
    "question_of", "review_all", "one_at_a_time", "correct", "incorrect", "partly_correct",
    "ungraded", "explanation", "key_answer", "accepted_answers", "your_answer", "points_one",
    "points_many",
)  # fmt: skip
"""The strings quiz.js needs on every page; the rest are rendered by the template."""

JS_UI_FEATURE_KEYS = {
    "hints": ("hint_penalty", "num_correct"),
    "num_correct": ("num_correct",),
    "words": ("words", "too_few_words", "too_many_words"),
    "cloze": ("blank_n",),
    "ordering": ("moved_to", "correct_order", "item_scored", "item_not_scored"),
}
"""The strings quiz.js needs only on a page that has the feature (hints, a count of right
picks, an essay word limit): a page without them carries the same data as before they existed."""


@dataclass(frozen=True)
class Ui:
    """The UI strings chosen for one page, and the language they are in."""

    lang: str
    dir: str
    s: dict[str, str]

    def points(self, value: float) -> str:
        key = "points_one" if value == 1 else "points_many"
        return self.s[key].format(n=format_number(value))


def ui_for(lang: str) -> Ui:
    """The UI table for a BCP 47 tag, by primary subtag, falling back to English."""
    primary = lang.split("-")[0].lower()
    ui_lang = primary if primary in UI_STRINGS else FALLBACK_UI
    return Ui(ui_lang, direction(ui_lang), UI_STRINGS[ui_lang])


def format_number(value: float) -> str:
    """12.0 -> "12", 0.5 -> "0.5": no needless decimals, never exponent notation."""
    if not math.isfinite(value):
        return str(value)
    if value == int(value):
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


_ENV_OPTIONS: dict[str, Any] = {
    "autoescape": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "keep_trailing_newline": True,
    "undefined": jinja2.StrictUndefined,
    # No constant folding: the compiled code is then a function of the template's text and of
    # these options alone (the optimizer would bake a filter's result on a literal into it, so
    # that a changed filter left the code kept in COMPILED_TEMPLATES stale). Measured: the same
    # bytes and the same time on a 2,000-question bank.
    "optimized": False,
}


class _CompiledTemplates(jinja2.BytecodeCache):
    """jinja2's bytecode cache over writers.COMPILED_TEMPLATES. Its key names jinja2's version
    and the environment's options besides the template's name and file; jinja2 checks, in the
    data, its own bytecode format, Python's version and the template's source checksum, and
    compiles again on any difference; a damaged entry is compiled again too."""

    _signature = repr((jinja2.__version__, sorted(_ENV_OPTIONS.items(), key=lambda kv: kv[0])))

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return hashlib.sha256(f"{self._signature}\0{name}\0{filename or ''}".encode()).hexdigest()

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = COMPILED_TEMPLATES.get(bucket.key)
        if data is None:
            return
        try:
            bucket.bytecode_from_string(data)
        except Exception:  # noqa: BLE001 - whatever a damaged entry raises, it is compiled again
            bucket.reset()
        if bucket.code is not None and not isinstance(bucket.code, types.CodeType):
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        COMPILED_TEMPLATES[bucket.key] = bucket.bytecode_to_string()


@cache
def _env() -> jinja2.Environment:
    # Built once per process: PackageLoader caches compiled templates on the Environment, and
    # _CompiledTemplates across processes (through the CLI).
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("lmsexport", TEMPLATES),
        bytecode_cache=_CompiledTemplates(),
        **_ENV_OPTIONS,
    )
    env.filters["num"] = format_number
    env.globals["direction"] = direction
    env.filters["lang_attrs"] = lang_attrs
    env.tests["inline"] = is_inline
    env.filters["text_class"] = text_class
    env.filters["content"] = content
    env.filters["phrase"] = phrase
    env.filters["templates"] = templates
    return env


def warm() -> None:
    """Compile the quiz page's template now (jinja2 keeps it on the Environment): a build does it
    once before its pool forks, so that no worker compiles it again on its first quiz."""
    _env().get_template("quiz.html.j2")


def lang_attrs(lang: str, parent: str) -> Markup:
    """` lang="…" dir="…"` for an element whose language differs from its parent's, else nothing."""
    if lang == parent:
        return Markup("")
    # An f-string of escape()d values, not Markup.format: this runs several times a question and
    # str.format's machinery took a tenth of the writer's time. (str + Markup would escape the str.)
    return Markup(f' lang="{escape(lang)}" dir="{direction(lang)}"')


# --------------------------------------------------------------------------- rich text
#
# A plain text (str) is escaped by jinja2 and shown with white-space: pre-wrap (class "t"), as
# it always was; a Rich text is rendered by the shared renderer into lxml elements and
# serialised as HTML (class "rich"). lxml escapes it; jinja2 takes the result as Markup.


def data_uri(image: Image) -> str:
    """The image's bytes as a data: URI: the page stays one file (CSP: img-src data:)."""
    return media_data_uri(image.media)


def _html_math(formula: Math) -> etree._Element:
    """A formula as MathML without a namespace: the HTML parser puts <math> and everything in
    it in the MathML namespace by itself, and an HTML serialiser writes no prefixes then."""
    return _strip_namespace(to_mathml(formula.tex, formula.display))


def _strip_namespace(el: etree._Element) -> etree._Element:
    out = etree.Element(etree.QName(el).localname, dict(el.attrib))
    out.text = el.text
    for child in el:
        copy = _strip_namespace(child)
        copy.tail = child.tail
        out.append(copy)
    return out


@lru_cache(maxsize=256)
def _lexer(lang: str) -> Any | None:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        # stripnl/ensurenl off: the code shows exactly as written.
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@cache
def _formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    # Classes only, never style attributes: the page's CSP allows no inline style.
    return HtmlFormatter(nowrap=True, classprefix="tok-")


def _highlight(block: CodeBlock, code: etree._Element) -> None:
    """Fill a code block's <code> with Pygments' token spans (plain text for an unknown language).
    Its <pre> takes the focus by the flavour's pre_attrs (_flavour)."""
    lexer = _lexer(block.lang) if block.lang else None
    if lexer is None:
        code.text = block.text
        return
    from pygments import highlight

    spans = highlight(block.text, lexer, _formatter())
    if not block.text.endswith("\n"):
        spans = spans.removesuffix("\n")
    # Pygments escapes & < > " ' in its output, so it parses as XML; the XML parser (unlike
    # libxml2's HTML one) keeps every white-space-only text node, i.e. the indentation.
    parsed = etree.fromstring(f"<code>{spans}</code>")
    code.text = parsed.text
    for span in parsed:
        code.append(span)


def code_css() -> str:
    """Pygments' token colours, scoped to <pre>, for a page that shows highlighted code."""
    return "\n".join(_formatter().get_token_style_defs("pre")) + "\n"


@cache
def _flavour(code_name: str | None) -> Flavour:
    """HTML pages: MathML, data: images, highlighted code, `dir` on code, `start` on lists.

    A code block wider than its box scrolls (pre: overflow-x: auto), and a box that scrolls
    must take the keyboard's focus, or a learner without a mouse cannot read its end (WCAG
    2.1.1; axe-core's scrollable-region-focusable; Chromium and Firefox focus such a region by
    themselves, Safari does not): every <pre> has tabindex="0", and is a group named
    ``code_name`` ("Code" in the text's language), so that a screen reader says what took the
    focus. A group, not a region: regions are landmarks, and two landmarks of one name on a
    page are an error (axe's landmark-unique). Inside a <label> (a choice, a matching pair's
    left side) ``code_name`` is None: the label's text names its input, and a named group there
    would replace the code in that name by the word "Code", alike for every choice.
    """
    attrs = (
        (("tabindex", "0"),)
        if code_name is None
        else (("tabindex", "0"), ("role", "group"), ("aria-label", code_name))
    )
    return Flavour(ns=None, math=_html_math, image_src=data_uri, code_block=_highlight, pre_attrs=attrs)


def is_inline(text: Text) -> bool:
    """Whether a text shows as phrasing content (a plain text, or one paragraph)."""
    return isinstance(text, str) or text.inline is not None


def text_class(text: Text) -> str:
    """The class of a text's element: "t" (plain, line breaks kept) or "rich"."""
    return "t" if isinstance(text, str) else "rich"


def content(text: Text, lang: str, in_label: bool = False) -> str | Markup:
    """What goes inside a text's element: the plain text (jinja2 escapes it), or the rendered
    inlines of a one-paragraph Rich text, or its blocks. ``lang``: the text's language;
    ``in_label``: the element is a <label>."""
    if isinstance(text, str):
        return text
    return Markup(_rendered(text, True, None if in_label else _code_name(lang)))


def _code_name(lang: str) -> str:
    """The word for "Code" naming a code block's group, in the language of the text around it
    (the attribute has no language of its own), English when there is no UI table for it."""
    return ui_for(lang).s["code"]


def _rendered(text: Rich, inline: bool, code_name: str | None) -> str:
    # Not cached: a rendered text holds its images as data: URIs (up to 2.7 MB each).
    return to_html(text, _flavour(code_name), inline=inline)[0]


def phrase(text: Text, inline_tag: str, block_tag: str) -> Markup:
    """A choice's text, in the <label> of its input, in an element of its own: ``inline_tag``
    for phrasing content (a plain text, one paragraph), ``block_tag`` for blocks (a choice
    holding a code block)."""
    if isinstance(text, str):
        return Markup(f'<{inline_tag} class="t">{escape(text)}</{inline_tag}>')
    tag = inline_tag if text.inline is not None else block_tag
    return Markup(f'<{tag} class="rich">{_rendered(text, True, None)}</{tag}>')


def body(text: Text, lang: str) -> str:
    """A text as a block of its own (an explanation, a feedback), as HTML: <p class="t"> or
    <div class="rich">."""
    if isinstance(text, str):
        return f'<p class="t">{escape(text)}</p>'
    return f'<div class="rich">{_rendered(text, False, _code_name(lang))}</div>'


def templates(item: Item, ui: Ui) -> Markup:
    """The <template>s of a question's texts that wait for the script, inert until it clones
    them: the explanation (<qid>-x), the feedback of a choice or of true/false's two answers
    (<qid>-f<i>), of a short answer (<qid>-a<i>), of a numerical key (<qid>-k<i>), for any
    other response (<qid>-o), the combined feedback (<qid>-oc, -op, -oi: correct, partly
    correct, incorrect) and the hints (<qid>-h<i>, each headed "Hint i of n" in the UI's
    language). Built here in one go: a jinja2 line per text made the whole page writer a
    quarter slower. An essay's grader information is for the person grading and is never
    written."""
    if item.variant_items:
        return Markup(_parametric(item, ui).templates)
    qid = item.qid
    return Markup(
        "".join(
            f'<template id="{qid}-{suffix}">{html}</template>\n' for suffix, html in _template_parts(item, ui)
        )
    )


def _template_parts(item: Item, ui: Ui) -> list[tuple[str, str]]:
    """(id suffix, inner HTML) of each <template> of a question's texts (see templates())."""
    question = item.question
    out: list[tuple[str, str]] = []

    def add(suffix: str, text: Text | None) -> None:
        if text:
            out.append((suffix, body(text, item.lang)))

    add("x", question.explanation)
    prefix, feedbacks = _answer_feedback(question.body)
    for i, feedback in enumerate(feedbacks):
        add(f"{prefix}{i}", feedback)
    if isinstance(question.body, ShortAnswer | Numerical):
        add("o", question.body.other_feedback)
    if isinstance(question.body, Cloze):
        for n, blank in enumerate(question.body.blanks, 1):
            letter, texts = _blank_feedback(blank)
            for i, text in enumerate(texts):
                add(f"b{n}{letter}{i}", text)
            if not isinstance(blank, ChoiceBlank):
                add(f"b{n}o", blank.other_feedback)
    outcome = question.feedback
    for suffix, text in (("oc", outcome.correct), ("op", outcome.partial), ("oi", outcome.incorrect)):
        add(suffix, text)
    label_lang = lang_attrs(ui.lang, item.lang)
    total = len(question.hints)
    for i, hint in enumerate(question.hints):
        label = escape(ui.s["hint_n"].format(n=i + 1, total=total))
        out.append(
            (
                f"h{i}",
                f'<div class="hint-text" data-role="hint">'
                f'<p class="label"{label_lang}>{label}</p>{body(hint.text, item.lang)}</div>',
            )
        )
    return out


def _answer_feedback(question_body: Body) -> tuple[str, tuple[Text | None, ...]]:
    """The feedback of each response option, in order, and the letter of their template ids:
    choices and true/false's (true, false) "f", short answers "a", numerical keys "k"; nothing
    for matching and essays."""
    match question_body:
        case SingleChoice(choices=choices) | MultipleChoice(choices=choices):
            return "f", tuple(c.feedback for c in choices)
        case TrueFalse(feedback_true=if_true, feedback_false=if_false):
            return "f", (if_true, if_false)
        case ShortAnswer(answers=answers):
            return "a", tuple(a.feedback for a in answers)
        case Numerical(keys=keys):
            return "k", tuple(k.feedback for k in keys)
        case Matching() | Essay() | Cloze() | Ordering() | Description():
            # A cloze's feedback is per blank (_blank_feedback); ordering and description have none.
            return "", ()
        case CalculatedChoice(choices=calc_choices):
            # With their placeholders: the page shows each variant's (Item.variant_items).
            return "f", tuple(c.feedback for c in calc_choices)
        case Calculated():
            return "", ()
        case _:
            assert_never(question_body)


def _blank_feedback(blank: Blank) -> tuple[str, tuple[Text | None, ...]]:
    """The feedback of each response option of a cloze blank and the letter of their template ids
    (<qid>-b<n><letter><i>): a text blank's answers "a", a number blank's keys "k", a choice
    blank's choices "f"."""
    match blank:
        case TextBlank(answers=answers):
            return "a", tuple(a.feedback for a in answers)
        case NumberBlank(keys=keys):
            return "k", tuple(k.feedback for k in keys)
        case ChoiceBlank(choices=choices):
            return "f", tuple(c.feedback for c in choices)
        case _:
            assert_never(blank)


# --------------------------------------------------------------------------- cloze and ordering


def cloze_stem(item: Item, ui: Ui) -> Markup:
    """A cloze question's stem with its blanks in place, through the renderer's gap hook: a text
    or number blank is an <input>, a drop-down choice blank a <select>, a vertical or horizontal
    one an inline group of radio buttons (check boxes when `multiple`). Each is named "blank n of
    m" in the UI's language (aria-label: the sentence around it is what it asks). A number is
    typed left to right (dir="ltr", as the numerical question's input reads it), a word in the
    direction of what is typed (dir="auto": a Latin answer inside Urdu text reads left to right).
    Every control carries data-blank="n"; the script finds them by it."""
    question, qid = item.question, item.qid
    assert isinstance(question.body, Cloze) and isinstance(question.stem, Rich)
    blanks = question.body.blanks
    base = _flavour(_code_name(item.lang))
    choice_renderer = Renderer(_flavour(None))
    ui_lang = ui.lang if ui.lang != item.lang else None

    def gap(g: Gap, parent: etree._Element) -> None:
        blank = blanks[g.n - 1]
        label = ui.s["blank_of"].format(n=g.n, total=len(blanks))
        n = str(g.n)
        wrap = etree.SubElement(parent, "span", {"class": "blank", "data-blank-box": n})
        match blank:
            case TextBlank() | NumberBlank():
                attrs = {
                    "type": "text",
                    "class": "blank-input",
                    "id": f"{qid}-b{n}",
                    "aria-label": label,
                    "autocomplete": "off",
                    "spellcheck": "false",
                    "data-blank": n,
                }
                if isinstance(blank, NumberBlank):
                    attrs.update({"dir": "ltr", "inputmode": "decimal", "size": "8"})
                else:
                    attrs.update({"dir": "auto", "size": "14"})
                etree.SubElement(wrap, "input", attrs)
            case ChoiceBlank(display=ChoiceDisplay.DROPDOWN, choices=choices):
                select = etree.SubElement(
                    wrap, "select", {"id": f"{qid}-b{n}", "aria-label": label, "data-blank": n}
                )
                empty = etree.SubElement(select, "option", {"value": ""})
                empty.text = ui.s["choose"]
                if ui_lang:
                    empty.set("lang", ui_lang)
                    empty.set("dir", ui.dir)
                for i, c in enumerate(choices):
                    option = etree.SubElement(
                        select, "option", {"value": str(i), "data-choice-index": str(i)}
                    )
                    option.text = " ".join(plain_text(c.text).split())
                    if c.lang and c.lang != item.lang:
                        option.set("lang", c.lang)
            case ChoiceBlank(display=display, choices=choices, multiple=multiple):
                group = etree.SubElement(
                    wrap,
                    "span",
                    {
                        "class": f"blank-choices {display.value}",
                        "role": "group" if multiple else "radiogroup",
                        "aria-label": label,
                        "id": f"{qid}-b{n}",
                        "data-blank-group": n,
                    },
                )
                for i, c in enumerate(choices):
                    lab = etree.SubElement(group, "label", {"class": "blank-choice"})
                    if c.lang and c.lang != item.lang:
                        lab.set("lang", c.lang)
                        lab.set("dir", direction(c.lang))
                    etree.SubElement(
                        lab,
                        "input",
                        {
                            "type": "checkbox" if multiple else "radio",
                            "name": f"{qid}-b{n}",
                            "value": str(i),
                            "data-blank": n,
                            "data-choice-index": str(i),
                        },
                    )
                    text = etree.SubElement(
                        lab, "span", {"class": "t" if isinstance(c.text, str) else "rich"}
                    )
                    inlines = c.text.inline if isinstance(c.text, Rich) else None
                    if inlines is not None:
                        choice_renderer.inlines(inlines, text)
                    else:
                        # A choice of blocks cannot sit inside a sentence: its words, on one line.
                        text.text = " ".join(plain_text(c.text).split())
            case _:
                assert_never(blank)

    flavour = replace(base, gap=gap)
    return Markup(to_html(question.stem, flavour)[0])


def ordering_order(item: Item) -> list[int]:
    """The order an ordering's items stand in the page before the script shuffles them (and with
    JavaScript off): never the right one, which would give the answer away. A deterministic
    shuffle (by a hash of the question's id and each item), rotated by one when it happens to
    be the right order."""
    question = item.question
    assert isinstance(question.body, Ordering)
    items = question.body.items

    def weight(i: int) -> str:
        return hashlib.sha256(f"{question.id}\0{i}\0{plain_text(items[i])}".encode()).hexdigest()

    order = sorted(range(len(items)), key=weight)
    if order == sorted(order):
        order = order[1:] + order[:1]
    return order


def item_name(text: Text) -> str:
    """An ordering item's words on one line: what its move buttons and announcements name it by."""
    return " ".join(plain_text(text).split())


ORDERING_NUMBERING = {
    "none": "none",
    "abc": "lower-alpha",
    "ABCD": "upper-alpha",
    "123": "decimal",
    "iii": "lower-roman",
    "IIII": "upper-roman",
}
"""qtype_ordering's numbering styles -> the CSS counter style of the item markers (a class)."""


def _has_code(texts: Iterable[Text | None]) -> bool:
    """Whether any text shows a highlighted code block (the page then needs Pygments' CSS)."""
    stack: list[Any] = [t.blocks for t in texts if isinstance(t, Rich)]
    while stack:
        for block in stack.pop():
            if isinstance(block, CodeBlock) and block.lang and _lexer(block.lang) is not None:
                return True
            if isinstance(block, BulletList | OrderedList):
                stack.extend(block.items)
    return False


def _texts(question: Question) -> Iterator[Text | None]:
    """Every text of a question the page shows (an essay's grader information is not shown)."""
    yield question.stem
    yield question.explanation
    yield from _answer_feedback(question.body)[1]
    yield question.feedback.correct
    yield question.feedback.partial
    yield question.feedback.incorrect
    for hint in question.hints:
        yield hint.text
    match question.body:
        case SingleChoice(choices=choices) | MultipleChoice(choices=choices):
            for c in choices:
                yield c.text
        case Matching(pairs=pairs):
            for p in pairs:
                yield p.left
        case ShortAnswer(other_feedback=other) | Numerical(other_feedback=other):
            yield other
        case Cloze(blanks=blanks):
            for blank in blanks:
                yield from _blank_feedback(blank)[1]
                if isinstance(blank, ChoiceBlank):
                    yield from (c.text for c in blank.choices)
                else:
                    yield blank.other_feedback
        case Ordering(items=items):
            yield from items
        case TrueFalse() | Essay() | Description() | Calculated() | CalculatedChoice():
            pass
        case _:
            assert_never(question.body)


# --------------------------------------------------------------------------- page assets


def _asset(name: str, closing_tag: str) -> str:
    env = _env()
    assert env.loader is not None
    text = env.loader.get_source(env, name)[0]
    # Inserted raw into <style>/<script>: a closing tag inside would end the element early.
    if closing_tag in text.lower():
        raise ValueError(f"template asset {name} contains {closing_tag}")
    return text


def _features(items: Sequence[Item]) -> frozenset[str]:
    """The optional parts of the page's script and style its questions need ("structured": cloze,
    ordering or description questions; "parametric": calculated ones). A page without them
    carries exactly the code it carried before those kinds existed."""
    structured = any(isinstance(it.question.body, Cloze | Ordering | Description) for it in items)
    parametric = any(isinstance(it.question.body, Calculated | CalculatedChoice) for it in items)
    return frozenset(name for name, used in (("structured", structured), ("parametric", parametric)) if used)


FEATURE_LINE = "//#"
"""quiz.js marks a feature's lines: `//#if NAME` ... (`//#else` ...) `//#endif`, each on a line
of its own (indentation allowed). The lines of a feature the page lacks are left out (the
`//#else` lines kept instead), and the marker lines always."""


def _select_lines(text: str, features: frozenset[str]) -> str:
    out: list[str] = []
    stack: list[bool] = []
    for line in text.splitlines(keepends=True):
        marker = line.strip()
        if marker.startswith(FEATURE_LINE):
            word, _, name = marker[len(FEATURE_LINE) :].partition(" ")
            if word == "if":
                stack.append(name.strip() in features)
            elif word == "else":
                stack[-1] = not stack[-1]
            elif word == "endif":
                stack.pop()
            else:
                raise ValueError(f"unknown marker {marker!r}")
            continue
        if all(stack):
            out.append(line)
    if stack:
        raise ValueError("an unclosed //#if")
    return "".join(out)


@lru_cache(maxsize=8)
def _script(features: frozenset[str]) -> str:
    return _select_lines(_asset("quiz.js", "</script"), features)


def _style(with_code: bool, features: frozenset[str] = frozenset()) -> str:
    css = _asset("style.css", "</style")
    if "structured" in features:
        css += _asset("structured.css", "</style")
    return css + code_css() if with_code else css


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _csp(style: str, script: str | None) -> str:
    script_src = _csp_hash(script) if script is not None else "'none'"
    return (
        f"default-src 'none'; style-src {_csp_hash(style)}; script-src {script_src}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def script_json(data: Any) -> Markup:
    """JSON safe to place inside <script type="application/json">.

    Escaping <, > and & as \\u escapes means no "</script>" or "<!--" can appear in the
    element's text; JSON.parse gives the original characters back.
    """
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


# --------------------------------------------------------------------------- questions


def _matching_options(matching: Matching) -> list[str]:
    # Sorted so that the option order gives nothing away (source order would line the
    # rights up with their lefts); duplicates collapse to one option.
    texts = dict.fromkeys([p.right for p in matching.pairs] + list(matching.distractors))
    return sorted(texts, key=lambda t: (t.casefold(), t))


def _with_unit(numerical: Numerical, number: str) -> str:
    """A number with the question's base unit on the side the question puts it ("5 GB", "$ 5")."""
    if not numerical.units:
        return number
    unit = numerical.units[0].name
    return f"{unit} {number}" if numerical.units_left else f"{number} {unit}"


def _key_text(key: NumericKey) -> str:
    """A numeric key as the learner is shown it after submitting: "12 ± 0.5", "11 – 13"."""
    if key.low is not None and key.high is not None:
        return f"{format_number(key.low)} – {format_number(key.high)}"
    assert key.answer is not None
    if key.tolerance:
        return f"{format_number(key.answer)} ± {format_number(key.tolerance)}"
    return format_number(key.answer)


def _numeric_key_text(numerical: Numerical) -> str:
    """The best key as the learner is shown it after submitting: "12 ± 0.5", "11 – 13 GB"."""
    key = numerical.key
    if key.low is not None and key.high is not None:
        return _with_unit(numerical, f"{format_number(key.low)} – {format_number(key.high)}")
    assert key.answer is not None
    if key.tolerance:
        return _with_unit(numerical, f"{format_number(key.answer)} ± {format_number(key.tolerance)}")
    return _with_unit(numerical, format_number(key.answer))


DEFAULT_PENALTY = 1 / 3
"""What a hint costs, as a fraction of the question's points, when the question sets no
penalty: Moodle's default penalty for each wrong try (0.3333333)."""


@dataclass(frozen=True)
class Item:
    """A question as placed on a page."""

    n: int
    """1-based position in the page (its element id is q<n>)."""
    question: Question
    quiz: Quiz
    """Its home quiz (header): language and shuffle."""
    points: float
    """What it is worth on this page (an assessment's draw may override its own points)."""
    number: int | None = None
    """The number the learner sees ("Question <number>"): questions are counted, descriptions
    are not (None). The page's script renumbers an attempt's questions the same way."""
    variant: int | None = None
    """For one variant of a parametric question (see variant_items): its number, which names
    the templates of its texts (q<n>-v<variant>-x); None for a question as the page places it."""

    @property
    def qid(self) -> str:
        return f"q{self.n}" if self.variant is None else f"q{self.n}-v{self.variant}"

    @cached_property
    def variant_items(self) -> tuple[Item, ...]:
        """A parametric question's variants, each as the ordinary question every format without
        a parametric form shows (variants.instantiate: the same texts, keys and choices); empty
        for any other question."""
        question = self.question
        if not isinstance(question.body, Calculated | CalculatedChoice):
            return ()
        if not question.body.variants:
            raise ValueError(f"parametric question {question.id!r} has no variants")
        return tuple(
            replace(self, question=vt.instantiate(question, v), variant=v.number)
            for v in question.body.variants
        )

    @property
    def shown(self) -> Question:
        """The question as the page's markup shows it: a parametric one as its first variant
        (what a page without JavaScript shows; the script puts an attempt's variant in place)."""
        return self.variant_items[0].question if self.variant_items else self.question

    @property
    def lang(self) -> str:
        return self.quiz.lang_of(self.question)

    @property
    def shuffle(self) -> bool:
        """Whether its choices are shuffled per attempt."""
        return self.quiz.shuffle and isinstance(self.shown.body, SingleChoice | MultipleChoice)

    @property
    def penalty(self) -> float:
        """The fraction of its points each hint taken costs."""
        return self.question.penalty if self.question.penalty is not None else DEFAULT_PENALTY

    @property
    def hint_cost(self) -> float:
        """What each hint taken costs, in points, to two decimals (as the page shows it)."""
        return round(self.penalty * self.points, 2)


def _key_data(item: Item, ui: Ui) -> dict[str, Any]:
    """What quiz.js needs to score and explain one question; stays out of the visible DOM.

    Texts are not here but in <template> elements (see templates()); this names them. Keys of
    elements a question does not use are left out (a question without hints, units, graded
    short answers... carries exactly the data it carried before the model had them)."""
    if item.variant_items:
        return _parametric(item, ui).data
    question = item.question
    qid = item.qid
    lang = item.lang
    data: dict[str, Any] = {
        "id": question.id,
        "type": question.type.value,
        "points": item.points,
        "lang": lang,
        "dir": direction(lang),
        "explanation": f"{qid}-x" if question.explanation else None,
        "shuffle": item.shuffle,
    }

    prefix, feedbacks = _answer_feedback(question.body)
    feedback_ids = [f"{qid}-{prefix}{i}" if t else None for i, t in enumerate(feedbacks)]

    match question.body:
        case SingleChoice() | MultipleChoice() as choice_body:
            data["correct"] = list(choice_body.key_indexes)
            data["credit"] = list(choice_body.credits)
            data["feedback"] = feedback_ids
        case TrueFalse(truth=truth):
            data["correct"] = [0 if truth else 1]
            data["credit"] = [1.0, 0.0] if truth else [0.0, 1.0]
            data["feedback"] = feedback_ids
        case ShortAnswer() as short:
            # Every answer in order: the first that matches counts (credit 1 when "credit" is left out).
            data["answers"] = [a.text for a in short.answers]
            data["caseSensitive"] = short.case_sensitive
            if not all(is_full(a.credit) for a in short.answers):
                data["credit"] = [a.credit for a in short.answers]
            if any(a.wildcard for a in short.answers):
                data["wildcard"] = [a.wildcard for a in short.answers]
            if any(feedback_ids):
                data["feedback"] = feedback_ids
            if short.other_feedback:
                data["other"] = f"{qid}-o"
        case Numerical() as numerical:
            keys = numerical.keys
            if len(keys) == 1 and is_full(keys[0].credit) and not keys[0].feedback:
                data["bounds"] = list(keys[0].bounds)
            else:
                data["keys"] = [
                    {"bounds": list(k.bounds), "credit": k.credit, "feedback": f}
                    for k, f in zip(keys, feedback_ids, strict=True)
                ]
            data["keyText"] = _numeric_key_text(numerical)
            if numerical.other_feedback:
                data["other"] = f"{qid}-o"
            if numerical.units:
                data["units"] = [[u.name, u.multiplier] for u in numerical.units]
                data["unitGrading"] = numerical.unit_grading.value
                data["unitPenalty"] = numerical.unit_penalty
                data["unitInput"] = numerical.unit_input.value
                data["unitsLeft"] = numerical.units_left
        case Matching() as matching:
            options = _matching_options(matching)
            data["key"] = [options.index(p.right) for p in matching.pairs]
            data["options"] = options
        case Essay() as essay:
            if essay.min_words is not None:
                data["minWords"] = essay.min_words
            if essay.max_words is not None:
                data["maxWords"] = essay.max_words
        case Cloze(blanks=blanks):
            data["blanks"] = [_blank_data(qid, n, b, item.quiz.shuffle) for n, b in enumerate(blanks, 1)]
        case Ordering() as ordering:
            data["ordering"] = {
                "count": len(ordering.items),
                "grading": ordering.grading.value,
                "select": ordering.select.value,
                "selectCount": ordering.select_count,
                "showGrading": ordering.show_grading,
            }
        case Description():
            pass
        case Calculated() | CalculatedChoice():
            raise TypeError(f"{question.id}: a parametric question's data is its variants' (_parametric)")
        case _:
            assert_never(question.body)
    outcome = question.feedback
    shown = {
        name: f"{qid}-{suffix}"
        for name, suffix, text in (
            ("correct", "oc", outcome.correct),
            ("partial", "op", outcome.partial),
            ("incorrect", "oi", outcome.incorrect),
        )
        if text
    }
    if shown:
        data["outcome"] = shown
    if outcome.show_num_correct and _counts_right(question.body):
        data["numCorrect"] = True
    if question.hints:
        data["hints"] = [
            {"id": f"{qid}-h{i}", "numCorrect": h.show_num_correct, "clearWrong": h.clear_wrong}
            for i, h in enumerate(question.hints)
        ]
        data["penalty"] = item.penalty
    return data


# --------------------------------------------------------------------------- parametric questions


@dataclass(frozen=True)
class Parametric:
    """A parametric question on a page: the <template>s of its variants' texts and its data."""

    templates: str
    data: dict[str, Any]


_ID_FIELDS = ("explanation", "feedback", "other", "outcome", "hints", "stem")
"""The fields of a question's data that name templates (strings, lists, a dict, hint dicts)."""


def _rename(value: Any, names: dict[str, str]) -> Any:
    """Every string in a value (a field of _ID_FIELDS) renamed by `names`."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [_rename(x, names) for x in value]
    if isinstance(value, dict):
        return {k: _rename(x, names) for k, x in value.items()}
    return value


def _parametric(item: Item, ui: Ui) -> Parametric:
    """A parametric question's variants as the page carries them, computed once per page.

    The controls are the page's once (a number box with its units, or the choices); each
    variant's texts are pre-rendered into inert <template>s, as every other text waiting for
    the script, named q<n>-v<k>-<suffix> (stem "s", explanation "x", feedback, hints...) after
    the first variant k that renders them so, or q<n>-<suffix> when every variant does. The
    data is the first variant's as an ordinary question would carry it, split into what every
    variant shares and, in "variants", what differs (the stem's template, the key, the choices'
    texts, the ids of the texts that differ); the script draws a variant per attempt and puts
    its fields in place (quiz.js's drawVariant).

    Grading: a variant of a Calculated question is right when |response - key| <= margin,
    "near": [key, margin], with margin = the tolerance's absolute margin + 1e-9 * |key|, the
    very float variants.accepts(key, tolerance, response, "lmsexport") compares with, so the
    page decides every response exactly as Python does. The key is shown with the question's
    decimals (and its base unit), as Moodle and Canvas show it."""
    cache: dict[str, Parametric] = item.__dict__.setdefault("_parametric", {})
    if ui.lang in cache:
        return cache[ui.lang]
    question = item.question
    assert isinstance(question.body, Calculated | CalculatedChoice)
    shown = item.variant_items
    parts: list[dict[str, str]] = []
    for v in shown:
        stem = v.question.stem
        stem_html = str(escape(stem)) if isinstance(stem, str) else str(content(stem, v.lang))
        parts.append({"s": stem_html, **dict(_template_parts(v, ui))})
    # Each text once per distinct rendering: q<n>-<suffix> when every variant's is the same,
    # else q<n>-v<k>-<suffix> for the first variant k showing it (a hint naming only {G} is
    # written once per value of G).
    qid = item.qid
    first_of: dict[tuple[str, str], str] = {}
    out: list[str] = []
    for v, p in zip(shown, parts, strict=True):
        for suffix, html in p.items():
            if (suffix, html) in first_of:
                continue
            alone = all(other.get(suffix) == html for other in parts)
            tid = f"{qid}-{suffix}" if alone else f"{v.qid}-{suffix}"
            first_of[suffix, html] = tid
            if not (alone and suffix == "s"):  # a stem every variant shares is the page's own
                out.append(f'<template id="{tid}">{html}</template>\n')
    datas = []
    for v, p, variant in zip(shown, parts, question.body.variants, strict=True):
        d = _key_data(v, ui)
        d["id"] = question.id
        d["variant"] = variant.number
        d["stem"] = f"{v.qid}-s"
        names = {f"{v.qid}-{suffix}": first_of[suffix, html] for suffix, html in p.items()}
        d = {k: (_rename(x, names) if k in _ID_FIELDS else x) for k, x in d.items()}
        if d["stem"] == f"{qid}-s":
            del d["stem"]
        body = v.question.body
        if isinstance(question.body, Calculated):
            assert isinstance(body, Numerical) and variant.answer is not None
            key = body.keys[0]
            assert key.answer is not None
            # The margin as variants.accepts computes it for "lmsexport" (same operations, same float).
            d.pop("bounds")
            d["near"] = [key.answer, key.tolerance + 1e-9 * max(abs(key.answer), 1e-300)]
            d["keyText"] = _with_unit(body, format_value(variant.answer, question.body.decimals))
        else:
            assert isinstance(body, SingleChoice | MultipleChoice)
            d["choices"] = [plain_text(c.text) for c in body.choices]
        datas.append(d)
    common = {k: x for k, x in datas[0].items() if all(k in d and d[k] == x for d in datas)}
    data = {**common, "variants": [{k: x for k, x in d.items() if k not in common} for d in datas]}
    cache[ui.lang] = Parametric("".join(out), data)
    return cache[ui.lang]


def _blank_data(qid: str, n: int, blank: Blank, may_shuffle: bool) -> dict[str, Any]:
    """What quiz.js needs to score blank n of a cloze question (its feedback in <template>s named
    <qid>-b<n><letter><i>, see _blank_feedback). A choice blank's choices are shuffled per
    attempt when the blank says so and its quiz lets choices be shuffled (``may_shuffle``)."""
    letter, feedbacks = _blank_feedback(blank)
    ids = [f"{qid}-b{n}{letter}{i}" if t else None for i, t in enumerate(feedbacks)]
    data: dict[str, Any] = {"weight": blank.weight}
    match blank:
        case TextBlank() as text:
            data["kind"] = "text"
            data["answers"] = [a.text for a in text.answers]
            data["caseSensitive"] = text.case_sensitive
            data["credit"] = [a.credit for a in text.answers]
            data["wildcard"] = [a.wildcard for a in text.answers]
        case NumberBlank() as number:
            data["kind"] = "number"
            # The interval as scoring.key_interval widens it, so the page compares exactly.
            data["keys"] = [{"bounds": list(key_interval(k)), "credit": k.credit} for k in number.keys]
            data["keyText"] = _key_text(number.key)
        case ChoiceBlank() as choice:
            data["kind"] = "choice"
            data["multiple"] = choice.multiple
            data["shuffle"] = choice.shuffle and may_shuffle
            data["credit"] = [c.credit for c in choice.choices]
            data["key"] = list(choice.key_indexes)
        case _:
            assert_never(blank)
    data["feedback"] = ids
    if not isinstance(blank, ChoiceBlank) and blank.other_feedback:
        data["other"] = f"{qid}-b{n}o"
    return data


def _counts_right(question_body: Body) -> bool:
    """Whether "n of m right" means something for a kind: the right picks of a multiple choice
    question, the right pairs of a matching one (as Moodle's "show the number of correct
    responses", which only those two kinds have)."""
    return isinstance(question_body, MultipleChoice | Matching | Cloze)


def _js_ui(ui: Ui, items: Sequence[Item]) -> dict[str, str]:
    """The UI strings quiz.js needs on this page (JS_UI_KEYS, and JS_UI_FEATURE_KEYS of the
    features its questions use)."""
    keys = list(JS_UI_KEYS)
    for item in items:
        question = item.shown
        if question.hints:
            keys += JS_UI_FEATURE_KEYS["hints"]
        if question.feedback.show_num_correct and _counts_right(question.body):
            keys += JS_UI_FEATURE_KEYS["num_correct"]
        if isinstance(question.body, Essay) and (
            question.body.min_words is not None or question.body.max_words is not None
        ):
            keys += JS_UI_FEATURE_KEYS["words"]
        if isinstance(question.body, Cloze):
            keys += JS_UI_FEATURE_KEYS["cloze"]
        if isinstance(question.body, Ordering):
            keys += JS_UI_FEATURE_KEYS["ordering"]
    return {k: ui.s[k] for k in keys}


def template_text(text: Text) -> str:
    """An essay's template as the text its answer box starts with: a box holds plain text, so
    a Rich template keeps its words and its structure as a person would type it (paragraphs
    apart, "- " and "1. " before list items), not its markup."""
    if isinstance(text, str):
        return text
    return "\n\n".join(_plain_lines(b, "") for b in text.blocks)


def _plain_lines(block: Block, indent: str) -> str:
    if isinstance(block, Para | CodeBlock | Table):
        return "\n".join(indent + line for line in plain_text(Rich((block,))).split("\n"))
    lines = []
    start = block.start if isinstance(block, OrderedList) else 1
    for i, item in enumerate(block.items):
        marker = f"{start + i}. " if isinstance(block, OrderedList) else "- "
        text = "\n".join(_plain_lines(b, indent + " " * len(marker)) for b in item)
        lines.append(indent + marker + text[len(indent) + len(marker) :])
    return "\n".join(lines)


def _essay_rows(essay: Essay) -> int:
    """The answer box's height: the page's 6 rows unless the author asked for a height (15 lines,
    Moodle's default for a whole-page editor, is what every essay has when none is asked for)."""
    return 6 if essay.lines == Essay().lines else essay.lines


def _files_note(essay: Essay, ui: Ui) -> str | None:
    """ "Files for this answer: up to 2 (.pdf, image)...": what an essay takes besides its text,
    in the UI's language, or None. The page is offline: it takes no file, the teacher does."""
    if not essay.attachments:
        return None
    files = ui.s["files_any"] if essay.attachments < 0 else ui.s["files_up_to"].format(n=essay.attachments)
    if essay.file_types:
        files = ui.s["file_types"].format(files=files, types=", ".join(essay.file_types))
    return ui.s["files_note"].format(files=files)


def _word_limits(essay: Essay, ui: Ui) -> str:
    """ "at least 50 words · at most 200 words": an essay's word limits, in the UI's language."""
    parts = []
    if essay.min_words is not None:
        parts.append(ui.s["min_words"].format(n=essay.min_words))
    if essay.max_words is not None:
        parts.append(ui.s["max_words"].format(n=essay.max_words))
    return " · ".join(parts)


def _true_false_labels(lang: str) -> tuple[str, str, str]:
    """(true, false, the language they are in): in the question's language when known."""
    ui = ui_for(lang)
    return ui.s["true"], ui.s["false"], ui.lang


def _render_page(
    *,
    kind: str,
    page_id: str,
    title: str,
    lang: str,
    description: Text | None,
    difficulty: str | None,
    items: Sequence[Item],
    rows: Sequence[Markup | Item],
    question_count: int,
    total_points: float | None,
    parts: list[dict[str, Any]] | None,
) -> str:
    ui = ui_for(lang)
    features = _features(items)
    css = _style(_has_code([description, *(t for it in items for t in _texts(it.shown))]), features)
    js = _script(features)
    data = {
        "ui": _js_ui(ui, items),
        "uiLang": ui.lang,
        "uiDir": ui.dir,
        "questions": [_key_data(it, ui) for it in items],
        "parts": parts,
    }
    template = _env().get_template("quiz.html.j2")
    return template.render(
        kind=kind,
        page_id=page_id,
        title=title,
        description=description,
        difficulty=difficulty,
        rows=rows,
        question_count=question_count,
        candidate_count=len(items),
        total_points=total_points,
        ui=ui,
        lang=lang,
        dir=direction(lang),
        css=Markup(css),
        js=Markup(js),
        csp=_csp(css, js),
        data=script_json(data),
        has_essay=any(isinstance(it.question.body, Essay) for it in items),
        QT=QuestionType,
        cloze_stem=cloze_stem,
        ordering_order=ordering_order,
        item_name=item_name,
        ordering_numbering=ORDERING_NUMBERING,
        HORIZONTAL=Layout.HORIZONTAL,
        UI_TEXT=UnitInput.TEXT,
        UI_CHOICE=UnitInput.CHOICE,
        UI_SELECT=UnitInput.SELECT,
        RF_NONE=ResponseFormat.NONE,
        RF_MONOSPACED=ResponseFormat.MONOSPACED,
        matching_options=_matching_options,
        tf_labels=_true_false_labels,
        essay_rows=_essay_rows,
        template_text=template_text,
        word_limits=_word_limits,
        files_note=_files_note,
    )


def render_quiz(quiz: Quiz) -> str:
    """One quiz as a self-contained HTML page."""
    header = quiz.header
    items = []
    number = 0
    for n, q in enumerate(quiz.questions, 1):
        shown = None if isinstance(q.body, Description) else (number := number + 1)
        items.append(Item(n, q, header, q.points, shown))
    auto = sum(q.points for q in quiz.questions if not isinstance(q.body, Essay))
    return _render_page(
        kind="quiz",
        page_id=quiz.id,
        title=quiz.title,
        lang=quiz.lang,
        description=quiz.description,
        difficulty=quiz.difficulty.value if quiz.difficulty else None,
        items=items,
        rows=items,
        question_count=number,
        total_points=auto,
        parts=None,
    )


def _auto_points(assessment: Assessment) -> float | None:
    """What a perfect attempt scores on the page (essays are not scored), or None when it
    depends on the draw."""
    total = 0.0
    for draw in assessment.draws:
        values = [
            0.0 if isinstance(c.question.body, Essay) else draw.points_of(c.question) for c in draw.candidates
        ]
        if not draw.is_random:
            total += sum(values)
        elif len(set(values)) > 1:
            return None
        elif values:
            total += draw.count * values[0]
    return total


def _question_count(assessment: Assessment) -> int:
    """How many questions an attempt shows, descriptions not counted (a draw of listed ids shows
    each; a random draw `pick` of its pool, which holds descriptions only when asked to)."""
    return sum(
        sum(not isinstance(c.question.body, Description) for c in draw.candidates)
        if not draw.is_random
        else draw.count
        for draw in assessment.draws
    )


def _draw_note(draw: Draw, ui: Ui) -> Markup:
    note = ui.s["drawn"].format(pick=draw.count, n=len(draw.candidates))
    if draw.points is not None:
        note += " " + ui.s["points_each"].format(points=ui.points(draw.points))
    return Markup('<p class="draw-note">{}</p>\n').format(note)


def render_assessment(assessment: Assessment) -> str:
    """One assessment as a self-contained HTML page: every candidate in the DOM, grouped by
    section and draw; the script draws an attempt from them (see the module docstring)."""
    ui = ui_for(assessment.lang)
    items: list[Item] = []
    rows: list[Markup | Item] = []
    parts: list[dict[str, Any]] = []
    for s_index, section in enumerate(assessment.sections):
        head = Markup('<section class="part" data-part="{}"').format(s_index)
        if section.title:
            title_id = f"s{s_index + 1}-title"
            head += Markup(' aria-labelledby="{}">\n<h2 class="part-title t" id="{}">{}</h2>\n').format(
                title_id, title_id, section.title
            )
        else:
            head += Markup(">\n")
        rows.append(head + Markup('<div class="attempt" data-role="attempt"></div>\n'))
        draws: list[dict[str, Any]] = []
        for draw in section.draws:
            random = draw.is_random
            rows.append(
                Markup('<div class="draw{}" data-draw="{}">\n').format(" random" if random else "", draw.name)
            )
            if random:
                rows.append(_draw_note(draw, ui))
            indexes: list[int] = []
            for c in draw.candidates:
                indexes.append(len(items))
                shown = None if isinstance(c.question.body, Description) else len(items) + 1
                item = Item(len(items) + 1, c.question, c.quiz, draw.points_of(c.question), shown)
                items.append(item)
                rows.append(item)
            rows.append(Markup("</div>\n"))
            draws.append({"pick": draw.pick if random else None, "items": indexes})
        rows.append(Markup("</section>\n"))
        parts.append({"shuffle": section.shuffle, "draws": draws})
    return _render_page(
        kind="assessment",
        page_id=assessment.id,
        title=assessment.title,
        lang=assessment.lang,
        description=assessment.description,
        difficulty=None,
        items=items,
        rows=rows,
        question_count=_question_count(assessment),
        total_points=_auto_points(assessment),
        parts=parts,
    )


# --------------------------------------------------------------------------- index


def _index_lang(langs: Iterable[str]) -> str:
    found = set(langs)
    return found.pop() if len(found) == 1 else FALLBACK_UI


def render_index(bank: Bank, ctx: WriteContext) -> str:
    """The build's landing page: every quiz and assessment, with links to each built format's file."""
    return render_index_of([(quiz, len(quiz.questions)) for quiz in bank.quizzes], ctx, bank.assessments)


def render_index_of(
    quizzes: Sequence[tuple[Quiz, int]], ctx: WriteContext, assessments: Sequence[Assessment] = ()
) -> str:
    """The landing page from (quiz, number of questions) pairs in bank order, and the (resolved)
    assessments.

    Only the quizzes' own fields are read, never their questions, so a parallel build can
    render it from small per-quiz summaries instead of holding the whole bank.
    """
    lang = _index_lang([quiz.lang for quiz, _ in quizzes] + [a.lang for a in assessments])
    descriptions = [quiz.description for quiz, _ in quizzes] + [a.description for a in assessments]
    css = _style(_has_code(descriptions))
    rows = [
        {"item": quiz, "kind": "quiz", "slug": quote(quiz.id, safe=""), "questions": n} for quiz, n in quizzes
    ]
    exams = [
        {"item": a, "kind": "assessment", "slug": quote(a.id, safe=""), "questions": a.question_count}
        for a in sorted(assessments, key=lambda a: a.id)
    ]
    template = _env().get_template("index.html.j2")
    return template.render(
        ui=ui_for(lang),
        lang=lang,
        dir=direction(lang),
        css=Markup(css),
        csp=_csp(css, None),
        tables=[(rows, "quizzes", "quiz", "questions"), (exams, "assessments", "assessment", "per_attempt")],
        formats=ctx.formats,
        downloads=[f for f in DOWNLOADS if f in ctx.formats],
        download_paths=DOWNLOADS,
        question_total=sum(n for _, n in quizzes),
    )


def write(bank: Bank, ctx: WriteContext) -> Output:
    """html/<id>.html for every quiz and assessment, and index.html linking every format built."""
    out = Output()
    for quiz in bank.quizzes:
        out.files[f"html/{quiz.id}.html"] = render_quiz(quiz).encode("utf-8")
    for assessment in bank.assessments:
        out.files[f"html/{assessment.id}.html"] = render_assessment(assessment).encode("utf-8")
    out.files["index.html"] = render_index(bank, ctx).encode("utf-8")
    return out
