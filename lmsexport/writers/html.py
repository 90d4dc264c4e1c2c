"""Self-contained HTML quizzes (one page per quiz) and the build's index page.

Each quiz page works offline from file://: CSS and JS are inline, nothing is fetched, and
a Content-Security-Policy with sha256 hashes of the two inline blocks forbids everything
else, so even an escaping bug could not load or run anything.

Nothing of the key, the feedback or the explanations is in the visible DOM before the
learner submits: they travel in a ``<script type="application/json">`` block (not rendered,
not read by screen readers) that the page's script reads and injects on submit. With
JavaScript off the page still lists every question; it just cannot be scored.

Scoring (done in the browser by templates/html/quiz.js, documented here):
- single, true_false: full points for the keyed choice, else 0.
- multiple: each correct pick +points/ncorrect, each wrong pick -points/ncorrect, floor 0
  (the QTI mapping's rule).
- short_answer: any accepted answer after NFC normalisation and trimming; case-insensitive
  unless case_sensitive.
- numerical: Latin, Arabic-Indic and Extended Arabic-Indic (Urdu) digits, "." "," or "٫"
  as decimal separator; right within NumericKey.bounds (with a 1e-9 relative slack so that
  float rounding of answer +- tolerance never rejects a boundary value).
- matching: points/npairs per right pair.
- essay: never scored and left out of the score's denominator; the page says so.
Choices are shown in source order (the author's order; an HTML self-test has no reason to
shuffle), true_false as two choices where data-choice-index 0 = true and 1 = false.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from ..model import Assessment, Bank, Question, QuestionType, Quiz, direction
from . import Output, WriteContext

TEMPLATES = "templates/html"

UI_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "question_of": "Question {n} of {total}",
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
        "gift": "GIFT (Moodle)",
        "true": "True",
        "false": "False",
    },
    "ur": {
        "question_of": "سوال {n} از {total}",
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
        "gift": "GIFT (Moodle)",
        "true": "درست",
        "false": "غلط",
    },
}
"""Every UI string of the pages, per UI language; the quiz's language picks the table."""

FALLBACK_UI = "en"

JS_UI_KEYS = (
    "question_of", "review_all", "one_at_a_time", "correct", "incorrect", "partly_correct",
    "ungraded", "explanation", "key_answer", "accepted_answers", "your_answer",
)  # fmt: skip
"""The strings quiz.js needs; the rest are rendered by the template."""


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


@cache
def _env() -> jinja2.Environment:
    # Built once per process: PackageLoader caches compiled templates on the Environment.
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("lmsexport", TEMPLATES),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = format_number
    env.globals["direction"] = direction
    env.globals["lang_attrs"] = lang_attrs
    return env


def lang_attrs(lang: str, parent: str) -> Markup:
    """` lang="…" dir="…"` for an element whose language differs from its parent's, else nothing."""
    if lang == parent:
        return Markup("")
    return Markup(' lang="{}" dir="{}"').format(lang, direction(lang))


def _asset(name: str, closing_tag: str) -> str:
    env = _env()
    assert env.loader is not None
    text = env.loader.get_source(env, name)[0]
    # Inserted raw into <style>/<script>: a closing tag inside would end the element early.
    if closing_tag in text.lower():
        raise ValueError(f"template asset {name} contains {closing_tag}")
    return text


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


def _matching_options(question: Question) -> list[str]:
    # Sorted so that the option order gives nothing away (source order would line the
    # rights up with their lefts); duplicates collapse to one option.
    texts = dict.fromkeys([p.right for p in question.pairs] + list(question.distractors))
    return sorted(texts, key=lambda t: (t.casefold(), t))


def _numeric_key_text(question: Question) -> str:
    key = question.numeric
    assert key is not None
    if key.low is not None and key.high is not None:
        return f"{format_number(key.low)} – {format_number(key.high)}"
    assert key.answer is not None
    if key.tolerance:
        return f"{format_number(key.answer)} ± {format_number(key.tolerance)}"
    return format_number(key.answer)


def _key_data(quiz: Quiz, question: Question) -> dict[str, Any]:
    """What quiz.js needs to score and explain one question; stays out of the visible DOM."""
    lang = quiz.lang_of(question)
    data: dict[str, Any] = {
        "id": question.id,
        "type": question.type.value,
        "points": question.points,
        "lang": lang,
        "dir": direction(lang),
        "explanation": question.explanation,
    }
    t = question.type
    if t in (QuestionType.SINGLE, QuestionType.MULTIPLE):
        data["correct"] = list(question.correct_indexes)
        data["feedback"] = [c.feedback for c in question.choices]
    elif t is QuestionType.TRUE_FALSE:
        data["correct"] = [0 if question.truth else 1]
        data["feedback"] = [None, None]
    elif t is QuestionType.SHORT_ANSWER:
        data["answers"] = list(question.answers)
        data["caseSensitive"] = question.case_sensitive
    elif t is QuestionType.NUMERICAL:
        assert question.numeric is not None
        data["bounds"] = list(question.numeric.bounds)
        data["keyText"] = _numeric_key_text(question)
    elif t is QuestionType.MATCHING:
        options = _matching_options(question)
        data["key"] = [options.index(p.right) for p in question.pairs]
        data["options"] = options
    return data


def _true_false_labels(lang: str) -> tuple[str, str, str]:
    """(true, false, the language they are in): in the question's language when known."""
    ui = ui_for(lang)
    return ui.s["true"], ui.s["false"], ui.lang


def _page_data(quiz: Quiz, ui: Ui) -> dict[str, Any]:
    return {
        "ui": {k: ui.s[k] for k in JS_UI_KEYS},
        "uiLang": ui.lang,
        "uiDir": ui.dir,
        "questions": [_key_data(quiz, q) for q in quiz.questions],
    }


def render_quiz(quiz: Quiz) -> str:
    """One quiz as a self-contained HTML page."""
    ui = ui_for(quiz.lang)
    css = _asset("style.css", "</style")
    js = _asset("quiz.js", "</script")
    auto = [q for q in quiz.questions if q.type is not QuestionType.ESSAY]
    template = _env().get_template("quiz.html.j2")
    return template.render(
        quiz=quiz,
        ui=ui,
        lang=quiz.lang,
        dir=direction(quiz.lang),
        css=Markup(css),
        js=Markup(js),
        csp=_csp(css, js),
        data=script_json(_page_data(quiz, ui)),
        total_points=sum(q.points for q in auto),
        has_essay=len(auto) < len(quiz.questions),
        QT=QuestionType,
        matching_options=_matching_options,
        tf_labels=_true_false_labels,
    )


def _index_lang(quizzes: Sequence[Quiz]) -> str:
    langs = {q.lang for q in quizzes}
    return langs.pop() if len(langs) == 1 else FALLBACK_UI


def render_index(bank: Bank, ctx: WriteContext) -> str:
    """The build's landing page: every quiz, with links to each built format's file."""
    return render_index_of([(quiz, len(quiz.questions)) for quiz in bank.quizzes], ctx)


def render_index_of(
    quizzes: Sequence[tuple[Quiz, int]], ctx: WriteContext, assessments: Sequence[Assessment] = ()
) -> str:
    """The landing page from (quiz, number of questions) pairs in bank order, and the (resolved)
    assessments.

    Only the quizzes' own fields are read, never their questions, so a parallel build can
    render it from small per-quiz summaries instead of holding the whole bank.
    """
    lang = _index_lang([quiz for quiz, _ in quizzes])
    css = _asset("style.css", "</style")
    rows = [{"quiz": quiz, "slug": quote(quiz.id, safe=""), "questions": n} for quiz, n in quizzes]
    template = _env().get_template("index.html.j2")
    return template.render(
        ui=ui_for(lang),
        lang=lang,
        dir=direction(lang),
        css=Markup(css),
        csp=_csp(css, None),
        rows=rows,
        formats=ctx.formats,
        question_total=sum(n for _, n in quizzes),
    )


def write(bank: Bank, ctx: WriteContext) -> Output:
    """html/<quiz-id>.html for every quiz, and index.html linking every format built."""
    out = Output()
    for quiz in bank.quizzes:
        out.files[f"html/{quiz.id}.html"] = render_quiz(quiz).encode("utf-8")
    out.files["index.html"] = render_index(bank, ctx).encode("utf-8")
    return out
