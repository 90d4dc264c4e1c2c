"""Parametric questions of the HTML quiz in headless Chromium: two attempts show different numbers
and the right answer of each scores full (a wrong one zero); attempts draw their variants as the
seed predicts and never repeat the previous attempt's; the page's grading of hundreds of responses
at and around each variant's tolerance bounds (typed with units, Urdu digits) compared with
variants.accepts; axe-core on the new states; Urdu text with numbers and Latin runs measured where
it stands right to left."""

from __future__ import annotations

import random
import re

import pytest
import test_html_browser
from browser import (
    answer,
    page_questions,
    predict_attempts,
    question_box,
    review_all,
    shown_attempt,
    shown_variant,
    submit,
)
from test_html_browser import _axe_violations, quiz_html
from test_html_parametric import CASE_PAGES, case_bank, model_quiz, near_bounds

from lmsexport import variants as vt
from lmsexport.formula import format_value
from lmsexport.model import Assessment, Calculated, CalculatedChoice, Question, Quiz, plain_text

browser = test_html_browser.browser
open_page = test_html_browser.open_page

PARAMETRIC = ("p-zero3", "p-zero1", "p-bubble", "p-shards")
"""The model quiz's parametric questions with several variants (p-single has one)."""


def marks(page) -> dict[str, tuple[float, float]]:
    """Each scored question's (earned, points) as its mark shows them."""
    found = page.eval_on_selector_all(
        "section[data-question-id][data-result]",
        "els => els.map(e => [e.dataset.questionId, e.querySelector('[data-role=mark]').textContent])",
    )
    out = {}
    for qid, text in found:
        m = re.search(r"\((-?[\d.]+)/([\d.]+)\)", text)
        assert m, text
        out[qid] = (float(m.group(1)), float(m.group(2)))
    return out


def stem_text(page, qid: str) -> str:
    return question_box(page, qid).locator("[id$='-stem']").first.inner_text()


def by_id(quiz: Quiz) -> dict[str, Question]:
    return {q.id: q for q in quiz.questions}


# --- two attempts, different numbers, full marks for each right answer ------------------------------


def test_two_attempts_show_different_numbers_and_grade_each_right_answer(open_page) -> None:
    quiz = model_quiz()
    loaded = open_page(quiz_html(quiz), query="?seed=7")
    page = loaded.page
    questions = by_id(quiz)
    predicted = predict_attempts(quiz, 7, 3)
    seen: list[dict[str, str]] = []
    for k, correct in enumerate((True, True, False)):
        if k:
            page.locator('[data-action="retry"]').click()
        shown = shown_attempt(page)
        assert shown.variants == predicted[k].variants and shown.choices == predicted[k].choices, k
        review_all(page)
        stems = {}
        for qid in shown.ids:
            q = questions[qid]
            if isinstance(q.body, Calculated | CalculatedChoice):
                inst = vt.instantiate(q, shown_variant(question_box(page, qid), q))
                stems[qid] = stem_text(page, qid)
                if isinstance(inst.stem, str):  # a rich stem's words: tests/test_html_parametric.py
                    assert stems[qid] == inst.stem
                if isinstance(q.body, CalculatedChoice):
                    labels = question_box(page, qid).locator("[data-role=choice-text]").all_inner_texts()
                    texts = [plain_text(c.text) for c in inst.body.choices]  # type: ignore[union-attr]
                    assert sorted(labels) == sorted(texts)
            answer(page, q, correct)
        seen.append(stems)
        submit(page)
        got = marks(page)
        for qid in shown.ids:
            q = questions[qid]
            earned, points = got[qid]
            assert points == q.points
            assert earned == (q.points if correct else 0), (k, qid, earned)
            box = question_box(page, qid)
            if isinstance(q.body, Calculated):
                variant = shown_variant(box, q)
                assert variant.answer is not None
                key = format_value(variant.answer, q.body.decimals)
                assert key in box.locator(".key-line").inner_text()
            if q.explanation and isinstance(q.body, Calculated | CalculatedChoice):
                inst = vt.instantiate(q, shown_variant(box, q))
                shown_expl = box.locator('[data-role="explanation"]').inner_text()
                if isinstance(inst.explanation, str):
                    assert inst.explanation in shown_expl
    # Every attempt shows other numbers than the one before.
    for before, after in zip(seen, seen[1:], strict=False):
        for qid in PARAMETRIC:
            assert before[qid] != after[qid], qid
    assert loaded.errors == []


def test_hints_and_feedback_carry_the_variants_numbers(open_page) -> None:
    quiz = model_quiz()
    page = open_page(quiz_html(quiz), query="?seed=3").page
    zero3 = by_id(quiz)["p-zero3"]
    box = question_box(page, "p-zero3")
    inst = vt.instantiate(zero3, shown_variant(box, zero3))
    box.locator('[data-action="hint"]').click()
    assert box.locator('[data-role="hint"]').inner_text().endswith(plain_text(inst.hints[0].text))
    answer(page, zero3, False)
    submit(page)
    assert plain_text(inst.feedback.incorrect) in box.locator('[data-role="outcome-feedback"]').inner_text()
    zero1 = by_id(quiz)["p-zero1"]
    box1 = question_box(page, "p-zero1")
    inst1 = vt.instantiate(zero1, shown_variant(box1, zero1))
    assert inst1.explanation and plain_text(inst1.explanation) in box1.inner_text()


# --- the draw --------------------------------------------------------------------------------------


def test_variants_drawn_as_predicted_never_the_previous_one(open_page) -> None:
    quiz = model_quiz()
    page = open_page(quiz_html(quiz), query="?seed=2026").page
    rows = page.evaluate(
        """n => {
            const out = [];
            const retry = document.querySelector('[data-action=retry]');
            const submit = document.querySelector('[data-action=submit]');
            for (let k = 0; k < n; k++) {
                if (k) { submit.click(); retry.click(); }
                out.push(Object.fromEntries([...document.querySelectorAll('section[data-variant]')]
                    .map(e => [e.dataset.questionId, Number(e.dataset.variant)])));
            }
            return out;
        }""",
        300,
    )
    predicted = predict_attempts(quiz, 2026, 300)
    assert rows == [a.variants for a in predicted]
    questions = by_id(quiz)
    for qid in PARAMETRIC:
        body = questions[qid].body
        assert isinstance(body, Calculated | CalculatedChoice)
        drawn = [r[qid] for r in rows]
        assert all(a != b for a, b in zip(drawn, drawn[1:], strict=False)), qid
        assert set(drawn) == {v.number for v in body.variants}, qid
    assert {r["p-single"] for r in rows} == {1}


# --- grading against variants.accepts ---------------------------------------------------------------

URDU_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


def test_grading_matches_variants_accepts_near_the_bounds(open_page) -> None:
    """Responses at, just inside and just outside each shown variant's bounds, typed as a learner
    would (in GB or MB, some in Urdu digits): the page scores each full exactly when
    variants.accepts(..., "lmsexport") says so."""
    quiz = model_quiz()
    questions = by_id(quiz)
    seed, n = 41, 160
    predicted = predict_attempts(quiz, seed, n)
    rng = random.Random(5)
    typed: list[dict[str, str]] = []
    expected: list[dict[str, bool]] = []
    for attempt in predicted:
        row, want = {}, {}
        for qid in ("p-zero3", "p-bubble"):
            q = questions[qid]
            body = q.body
            assert isinstance(body, Calculated)
            (v,) = [x for x in body.variants if x.number == attempt.variants[qid]]
            assert v.answer is not None
            margin = vt.absolute_margin(v.answer, body.tolerance)
            if rng.random() < 0.5:
                r = rng.choice(near_bounds(rng, v.answer, margin, 6))
            else:  # as often inside as outside a bound, by 1e-12 .. 1e-2 of the margin
                side, out = rng.choice((-1, 1)), rng.choice((-1, 1))
                r = v.answer + side * margin * (1 + out * 10 ** rng.uniform(-12, -2))
            if body.units and rng.random() < 0.5:
                text, value = f"{r * 1000!r} MB", float(repr(r * 1000)) / 1000
            else:
                text, value = repr(r) + (" GB" if body.units and rng.random() < 0.5 else ""), r
            if rng.random() < 0.2:
                text = text.translate(URDU_DIGITS)
            row[qid] = text
            want[qid] = vt.accepts(v.answer, body.tolerance, value)
        typed.append(row)
        expected.append(want)
    page = open_page(quiz_html(quiz), query=f"?seed={seed}").page
    got = page.evaluate(
        """typed => {
            const out = [];
            const retry = document.querySelector('[data-action=retry]');
            const submit = document.querySelector('[data-action=submit]');
            const box = qid => document.querySelector(`section[data-question-id="${qid}"]`);
            typed.forEach((row, k) => {
                if (k) retry.click();
                for (const [qid, text] of Object.entries(row)) {
                    box(qid).querySelector('[data-role=answer-input]').value = text;
                }
                submit.click();
                out.push(Object.fromEntries(Object.keys(row).map(qid =>
                    [qid, box(qid).dataset.result === 'correct'])));
            });
            return out;
        }""",
        typed,
    )
    assert got == expected
    outcomes = [w for row in expected for w in row.values()]
    assert 0.25 < sum(outcomes) / len(outcomes) < 0.9, "responses on both sides of the bounds"


# --- accessibility and right to left ------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ur", "en"])
def test_axe_on_the_parametric_states(open_page, lang: str) -> None:
    quiz = model_quiz(lang)
    loaded = open_page(quiz_html(quiz), query="?seed=1")
    page = loaded.page
    assert _axe_violations(page) == [], "one at a time"
    review_all(page)
    assert _axe_violations(page) == [], "review all"
    page.locator('[data-action="hint"]').first.click()
    for i, q in enumerate(quiz.questions):
        answer(page, q, correct=i % 2 == 0)
    assert _axe_violations(page) == [], "hint taken, answered"
    submit(page)
    assert _axe_violations(page) == [], "submitted"
    page.locator('[data-action="retry"]').click()
    assert _axe_violations(page) == [], "the next attempt's variant"
    assert loaded.errors == []


def _char_x(page, selector: str) -> list[tuple[str, float]]:
    """Each character of an element's text with the x of its box's centre."""
    return page.evaluate(
        """sel => {
            const root = document.querySelector(sel);
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            const out = [];
            for (let t = walker.nextNode(); t; t = walker.nextNode()) {
                for (let i = 0; i < t.data.length; i++) {
                    const r = document.createRange();
                    r.setStart(t, i); r.setEnd(t, i + 1);
                    const b = r.getBoundingClientRect();
                    out.push([t.data[i], b.x + b.width / 2]);
                }
            }
            return out;
        }""",
        selector,
    )


def _run_x(chars: list[tuple[str, float]], text: str, start: int = 0) -> tuple[int, list[float]]:
    joined = "".join(c for c, _ in chars)
    at = joined.index(text, start)
    return at, [x for _, x in chars[at : at + len(text)]]


def test_urdu_text_with_numbers_and_latin_reads_right_to_left(open_page) -> None:
    """In the Urdu stem the values and Latin words stand in right-to-left reading order, each
    number and word reading left to right inside (Unicode's bidi algorithm on the author's text,
    as in every other Urdu text of the bank); after submitting the key reads "13.00 GB" left to
    right, isolated, as the numerical question's."""
    quiz = model_quiz()
    page = open_page(quiz_html(quiz), query="?seed=9").page
    zero3 = by_id(quiz)["p-zero3"]
    box = question_box(page, "p-zero3")
    variant = shown_variant(box, zero3)
    values = vt.shown_values(zero3.body.params, variant)  # type: ignore[union-attr]
    chars = _char_x(page, "section[data-question-id='p-zero3'] [id$='-stem']")
    at_n, n_x = _run_x(chars, values["N"] + " ارب")
    at_g, g_x = _run_x(chars, values["G"] + " GPUs", at_n + 1)
    _, zero_x = _run_x(chars, "ZeRO-3")
    assert min(n_x) > max(g_x) > max(zero_x), "values in right-to-left order"
    digits = len(values["G"])
    assert g_x[:digits] == sorted(g_x[:digits]), "digits left to right"
    gpus = g_x[digits + 1 :]
    assert gpus == sorted(gpus), "a Latin word reads left to right"
    # "64 GPUs" in Urdu text: the runs in reading order, right to left (the number first).
    assert min(g_x[:digits]) > max(gpus)
    assert zero_x == sorted(zero_x)
    review_all(page)
    answer(page, zero3, True)
    submit(page)
    key = box.locator(".key-line bdi")
    assert key.get_attribute("dir") == "ltr"
    assert variant.answer is not None
    expected = format_value(variant.answer, 2) + " GB"
    assert key.inner_text() == expected
    key_chars = _char_x(page, "section[data-question-id='p-zero3'] .key-line bdi")
    xs = [x for c, x in key_chars if c != " "]
    assert xs == sorted(xs), "the key reads left to right"


def test_an_assessment_draws_questions_and_their_variants(open_page) -> None:
    from lmsexport.model import Assessment, Bank, Candidate, Draw, Pool, Section
    from lmsexport.writers import WriteContext
    from lmsexport.writers.html import write

    quiz = model_quiz()
    pool = tuple(Candidate(quiz.header, q) for q in quiz.questions if q.id in PARAMETRIC)
    exam = Assessment(
        id="p-exam",
        title="امتحان",
        lang="ur",
        sections=(
            Section(draws=(Draw("zero", pool=Pool(quizzes=(quiz.id,)), pick=2, candidates=pool, points=3),)),
        ),
    )
    html = write(Bank((quiz,), (exam,)), WriteContext(formats=("html",))).files["html/p-exam.html"]
    loaded = open_page(html, name="p-exam.html", query="?seed=12")
    page = loaded.page
    questions = by_id(quiz)
    for k, attempt in enumerate(predict_attempts(exam, 12, 4)):
        if k:
            page.locator('[data-action="retry"]').click()
        shown = shown_attempt(page)
        assert (shown.ids, shown.variants) == (attempt.ids, attempt.variants), k
        review_all(page)
        for qid in shown.ids:
            answer(page, questions[qid], k % 2 == 0)
        submit(page)
        assert {qid: m[0] for qid, m in marks(page).items()} == dict.fromkeys(
            shown.ids, 3.0 if k % 2 == 0 else 0.0
        )
    assert loaded.errors == []


def test_without_javascript_the_first_variant_is_shown(open_page) -> None:
    quiz = model_quiz()
    page = open_page(quiz_html(quiz), js=False).page
    zero3 = by_id(quiz)["p-zero3"]
    assert isinstance(zero3.body, Calculated)
    first = vt.instantiate(zero3, zero3.body.variants[0])
    box = question_box(page, "p-zero3")
    assert box.locator("[id$='-stem']").inner_text() == first.stem
    assert box.get_attribute("data-variant") is None
    assert (
        page.locator("template").count() > 0 and page.get_by_text(plain_text(first.explanation)).count() == 0
    )


# --- the parametric case (tests/cases/parametric) ----------------------------------------------------


def _case_page(page_id: str) -> tuple[bytes, Quiz | Assessment]:
    from lmsexport.writers import WriteContext
    from lmsexport.writers.html import write

    bank = case_bank()
    out = write(bank, WriteContext(formats=("html",))).files[f"html/{page_id}.html"]
    page_of = next(x for x in (*bank.quizzes, *bank.assessments) if x.id == page_id)
    return out, page_of


@pytest.mark.parametrize("page_id", CASE_PAGES)
def test_case_pages_right_then_wrong_then_right(open_page, page_id: str) -> None:
    """Each case page over three attempts: the variants the seed predicts, each parametric
    question's numbers changed from one attempt to the next, full marks for the right answers,
    zero for wrong ones; axe-core finds nothing before and after submitting."""
    html, page_of = _case_page(page_id)
    loaded = open_page(html, name=f"{page_id}.html", query="?seed=24")
    page = loaded.page
    questions = {pq.question.id: pq for pq in page_questions(page_of)}
    predicted = predict_attempts(page_of, 24, 3)
    before: dict[str, int] = {}
    for k, correct in enumerate((True, False, True)):
        if k:
            page.locator('[data-action="retry"]').click()
        shown = shown_attempt(page)
        assert (shown.ids, shown.variants) == (predicted[k].ids, predicted[k].variants), k
        for qid, number in shown.variants.items():
            body = questions[qid].question.body
            assert isinstance(body, Calculated | CalculatedChoice)
            if qid in before and len(body.variants) > 1:
                assert number != before[qid], qid
        before = shown.variants
        if k == 0:
            assert _axe_violations(page) == [], "one at a time"
        review_all(page)
        for qid in shown.ids:
            answer(page, questions[qid].question, correct)
        submit(page)
        got = marks(page)
        for qid in shown.ids:
            earned, points = got[qid]
            assert earned == (points if correct else 0), (k, qid)
        if k < 2:
            assert _axe_violations(page) == [], f"submitted ({'right' if correct else 'wrong'})"
    assert loaded.errors == []
