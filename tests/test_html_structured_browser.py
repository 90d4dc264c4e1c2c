"""Cloze, ordering and description questions of the HTML quiz in headless Chromium: blanks filled
and lists reordered with the keyboard alone, right and wrong, and the marks seen; every score the
page gives compared with lmsexport/scoring.py (each of the nine ordering gradings over many
random orders and subsets, cloze blanks over many responses); attempts drawn as predicted from
the seed; axe-core on the new widgets before and after submitting, right to left and left to
right; the blanks' places in right-to-left text measured (and screenshots kept)."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from itertools import permutations

import pytest
import test_html_browser
from browser import (
    answer,
    answer_blank,
    predict_attempts,
    question_box,
    review_all,
    right_response,
    shown_attempt,
    shown_order,
    submit,
    wrong_response,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import quizzes
from test_html_browser import ARTIFACTS, _axe_violations, quiz_html
from test_html_structured import case_quiz, model_quiz, structured_bank

from lmsexport.model import (
    ChoiceBlank,
    Cloze,
    Description,
    NumberBlank,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    Question,
    Quiz,
    TextBlank,
)
from lmsexport.scoring import cloze_credit, ordering_credit
from lmsexport.writers import WriteContext
from lmsexport.writers.html import write

# The browser tests' fixtures: one Chromium for this module, pages opened from file://.
browser = test_html_browser.browser
open_page = test_html_browser.open_page


def page_of(bank, page_id: str) -> bytes:
    return write(bank, WriteContext(formats=("html",))).files[f"html/{page_id}.html"]


def marks(page) -> dict[str, float]:
    """Each scored question's mark as the page shows it: "(earned/points)"."""
    found = page.eval_on_selector_all(
        "section[data-question-id][data-result]",
        "els => els.map(e => [e.dataset.questionId, e.querySelector('[data-role=mark]').textContent])",
    )
    out = {}
    for qid, text in found:
        m = re.search(r"\((-?[\d.]+)/[\d.]+\)", text)
        if m:
            out[qid] = float(m.group(1))
    return out


def set_order(page, qid: str, order: list[int]) -> None:
    """Put an ordering's shown items in this order directly in the DOM (the scoring tests; the
    keyboard tests use the buttons)."""
    page.evaluate(
        """([qid, order]) => {
            const list = document.querySelector(`section[data-question-id="${qid}"] ol[data-role=ordering]`);
            const hidden = [...list.children].filter(li => li.hidden);
            order.forEach(i => list.appendChild(list.querySelector(`li[data-item-index="${i}"]`)));
            hidden.forEach(li => list.appendChild(li));
        }""",
        [qid, order],
    )


# --- right and wrong, end to end ------------------------------------------------------------


@pytest.mark.parametrize("correct", [True, False], ids=["right", "wrong"])
def test_case_quiz_right_and_wrong(open_page, correct: bool) -> None:
    quiz = case_quiz()
    loaded = open_page(quiz_html(quiz), query="?seed=5")
    page = loaded.page
    review_all(page)
    given: dict[str, list[int]] = {}
    for q in quiz.questions:
        answer(page, q, correct)
        if isinstance(q.body, Ordering):
            given[q.id] = shown_order(question_box(page, q.id))
    submit(page)
    got = marks(page)
    for q in quiz.questions:
        box = question_box(page, q.id)
        if isinstance(q.body, Description):
            assert q.id not in got and box.get_attribute("data-result") is None
            assert box.locator('[data-role="mark"], .qnum').count() == 0
            if q.explanation:
                assert box.locator('[data-role="explanation"]').is_visible()
            continue
        if isinstance(q.body, Cloze):
            responses = [right_response(b) if correct else wrong_response(b) for b in q.body.blanks]
            credit = cloze_credit(q.body, responses)
        else:
            assert isinstance(q.body, Ordering)
            credit = ordering_credit(q.body, sorted(given[q.id]), given[q.id])
        assert got[q.id] == pytest.approx(round(credit * q.points, 2), abs=0.006), q.id
        expected = "correct" if correct else ("incorrect" if credit <= 1e-6 else "partial")
        assert box.get_attribute("data-result") == expected, q.id
        if isinstance(q.body, Cloze):
            results = box.locator("[data-blank-result]")
            assert results.count() == len(q.body.blanks)
            wrong_marks = box.locator(".blank.is-wrong").count()
            assert (wrong_marks == 0) if correct else (wrong_marks > 0)
        else:
            key = box.locator('[data-role="ordering-key"] li')
            assert key.evaluate_all("els => els.map(e => Number(e.dataset.keyIndex))") == sorted(given[q.id])
            item_marks = box.locator('[data-role="item-mark"]').count()
            assert (item_marks > 0) if q.body.show_grading else (item_marks == 0), q.id
    assert loaded.errors == []


# --- the keyboard alone --------------------------------------------------------------------


def _focused(page) -> dict:
    return page.evaluate(
        """() => { const e = document.activeElement; return {
            blank: e.dataset.blank || null, action: e.dataset.action || null,
            item: e.closest('li[data-item-index]') ? Number(e.closest('li').dataset.itemIndex) : null,
            qid: e.closest('section') ? e.closest('section').dataset.questionId : null,
            label: e.getAttribute('aria-label'), tag: e.tagName }; }"""
    )


def _tab_to(page, predicate, limit: int = 80) -> dict:
    for _ in range(limit):
        page.keyboard.press("Tab")
        f = _focused(page)
        if predicate(f):
            return f
    raise AssertionError("Tab never reached the control")


def _keyboard_order(page, qid: str, target: list[int]) -> list[str]:
    """Reorder with Tab, Shift+Tab and Enter/Space on the move buttons only; returns what the live
    region said after each move."""
    said = []
    box = question_box(page, qid)
    for place, index in enumerate(target):
        while (at := shown_order(box).index(index)) > place:
            f = _focused(page)
            if not (f["item"] == index and f["action"] == "move-up" and f["qid"] == qid):
                # From wherever the focus is, Tab (or Shift+Tab) to this item's move-up button.
                for key in ("Tab", "Shift+Tab"):
                    for _ in range(30):
                        page.keyboard.press(key)
                        f = _focused(page)
                        if f["item"] == index and f["action"] == "move-up" and f["qid"] == qid:
                            break
                    else:
                        continue
                    break
            page.keyboard.press("Enter" if at % 2 else "Space")
            f = _focused(page)
            assert f["item"] == index and f["action"] == "move-up", "the focus left the moved item"
            said.append(page.locator('[data-role="announce"]').text_content())
            assert shown_order(box).index(index) == at - 1
    return said


@pytest.mark.parametrize("correct", [True, False], ids=["right", "wrong"])
def test_blanks_and_ordering_with_the_keyboard_alone(open_page, correct: bool) -> None:
    quiz = model_quiz()
    page = open_page(quiz_html(quiz), query="?seed=11").page
    cloze_ur = quiz.questions[1]
    _tab_to(page, lambda f: f["action"] == "toggle-view")
    page.keyboard.press("Enter")  # every question on the page
    # Blank 1 (a number, typed in Urdu digits when right), blank 2 (a drop-down, by arrow keys),
    # blank 3 (text).
    f = _tab_to(page, lambda f: f["qid"] == cloze_ur.id and f["blank"] == "1")
    assert f["label"] == "خانہ 1 از 3"
    page.keyboard.type("۰٫۲" if correct else "0.3")
    page.keyboard.press("Tab")
    assert _focused(page)["blank"] == "2" and _focused(page)["tag"] == "SELECT"
    # The options are shuffled per attempt: arrow down until the wanted one is picked.
    want = "1F1B" if correct else "GPipe"
    for _ in range(4):
        if page.evaluate("document.activeElement.selectedOptions[0].textContent") == want:
            break
        page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.selectedOptions[0].textContent") == want
    page.keyboard.press("Tab")
    assert _focused(page)["blank"] == "3"
    page.keyboard.type("zero-3" if correct else "ZeRO-2")
    # The ordering: into its list, reordered by its buttons alone.
    order_q = quiz.questions[3]
    box = question_box(page, order_q.id)
    start = shown_order(box)
    assert start != sorted(start), "an ordering shown solved"
    target = sorted(start) if correct else sorted(start, reverse=True)
    _tab_to(page, lambda f: f["qid"] == order_q.id and f["action"] is not None)
    said = _keyboard_order(page, order_q.id, target)
    assert said, "no move announced"
    assert all(re.fullmatch(r".+ اب مقام \d از 4 پر ہے", s) for s in said), said
    assert page.locator('[data-role="announce"]').get_attribute("aria-live") == "polite"
    # The English cloze: a radio group (arrows), check boxes (Space), a number.
    cloze_en = quiz.questions[4]
    _tab_to(page, lambda f: f["qid"] == cloze_en.id and f["blank"] == "1")
    page.keyboard.press("Space")  # the first radio: CPU, right
    if not correct:
        page.keyboard.press("ArrowDown")  # GPU: a negative credit
    _tab_to(page, lambda f: f["qid"] == cloze_en.id and f["blank"] == "2")
    page.keyboard.press("Space")  # parameters
    page.keyboard.press("Tab")
    if correct:
        page.keyboard.press("Space")  # gradients
    page.keyboard.press("Tab")
    if not correct:
        page.keyboard.press("Space")  # nothing: -1
    _tab_to(page, lambda f: f["qid"] == cloze_en.id and f["blank"] == "3", limit=2)
    page.keyboard.type("8" if correct else "4")
    _tab_to(page, lambda f: f["action"] == "submit")
    page.keyboard.press("Enter")
    page.locator('[data-role="score"]').wait_for(state="visible")
    got = marks(page)
    body_ur = cloze_ur.body
    assert isinstance(body_ur, Cloze)
    ur_responses = ["0.2", 0, "zero-3"] if correct else ["0.3", 1, "ZeRO-2"]
    assert got[cloze_ur.id] == pytest.approx(cloze_credit(body_ur, ur_responses) * cloze_ur.points, abs=0.006)
    en_responses = [0, frozenset({0, 1}), "8"] if correct else [1, frozenset({0, 2}), "4"]
    assert isinstance(cloze_en.body, Cloze)
    assert got[cloze_en.id] == pytest.approx(cloze_credit(cloze_en.body, en_responses), abs=0.006)
    assert isinstance(order_q.body, Ordering)
    expected_order = ordering_credit(order_q.body, sorted(start), target) * order_q.points
    assert got[order_q.id] == pytest.approx(expected_order, abs=0.006)
    if correct:
        assert (got[cloze_ur.id], got[cloze_en.id], got[order_q.id]) == (3.0, 1.0, 2.0)
    ur_box = question_box(page, cloze_ur.id)
    marks_seen = ur_box.locator(".blank").evaluate_all("els => els.map(e => e.dataset.mark)")
    assert marks_seen == (["ok", "ok", "ok"] if correct else ["bad", "bad", "part"])
    # Not by colour alone: a symbol and, for screen readers, words at each blank.
    hidden = ur_box.locator(".blank-mark .visually-hidden").all_text_contents()
    assert hidden[0] == ("خانہ 1: درست" if correct else "خانہ 1: غلط")
    if not correct:
        # The right answer and the feedback the response earned, per blank.
        first = ur_box.locator('[data-blank-result="1"]')
        assert "0.2 ± 0.005" in first.inner_text()
        assert "کل وقت m + p - 1 ہے" in first.inner_text()
        assert "GPipe تمام ایکٹیویشنز رکھتا ہے" in ur_box.locator('[data-blank-result="2"]').inner_text()
        assert "کون سا مرحلہ؟" in ur_box.locator('[data-blank-result="3"]').inner_text()
        assert (
            question_box(page, cloze_en.id).locator('[data-blank-result="1"]').inner_text().count("No.") == 1
        )
    # With show_grading, which items scored.
    item_marks = box.locator('[data-role="item-mark"]').count()
    assert item_marks == 4
    assert box.locator(".ord-item.is-right").count() == (4 if correct else 0)


def test_one_at_a_time_passes_descriptions_unnumbered(open_page) -> None:
    quiz = model_quiz()
    page = open_page(quiz_html(quiz), query="?seed=2").page
    position = page.locator('[data-role="position"]')
    assert page.locator("section[data-question-id]:visible").get_attribute("data-type") == "description"
    assert position.inner_text() == ""
    page.locator('[data-action="next"]').click()
    assert position.inner_text() == "سوال 1 از 5"
    numbers = page.locator(".qnum").all_text_contents()
    assert numbers == [f"سوال {n} از 5" for n in range(1, 6)]


# --- scores against scoring.py ------------------------------------------------------------


def grading_quiz() -> Quiz:
    """One ordering per grading (5 items; a random and a contiguous subset among them), worth
    120 points each: 120 is a multiple of every denominator these gradings give, so each mark
    the page shows is a whole number and compares exactly."""
    items = ("DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3", "ZeRO-Infinity")
    selects = [OrderingSelect.ALL, OrderingSelect.RANDOM, OrderingSelect.CONTIGUOUS]
    questions = tuple(
        Question(
            id=f"g-{g.value}",
            stem=f"Order ({g.value})",
            body=Ordering(items, grading=g, select=selects[i % 3], select_count=4 if i % 3 else 0),
            points=120,
        )
        for i, g in enumerate(OrderingGrading)
    )
    return Quiz(id="gradings", title="Gradings", lang="en", questions=questions)


def test_every_ordering_grading_scores_as_scoring_py(open_page) -> None:
    quiz = grading_quiz()
    assert len(quiz.questions) == 9
    loaded = open_page(quiz_html(quiz), query="?seed=7")
    page = loaded.page
    rng = random.Random(23)
    review_all(page)
    checked = 0
    seen_credits: dict[str, set[float]] = {q.id: set() for q in quiz.questions}
    for round_ in range(24):
        given = {}
        for q in quiz.questions:
            shown = sorted(shown_order(question_box(page, q.id)))
            order = shown[:]
            # The right order, its reverse, and random ones.
            if round_ == 1:
                order.reverse()
            elif round_ > 1:
                rng.shuffle(order)
            set_order(page, q.id, order)
            given[q.id] = (shown, order)
        submit(page)
        got = marks(page)
        for q in quiz.questions:
            assert isinstance(q.body, Ordering)
            shown, order = given[q.id]
            expected = ordering_credit(q.body, shown, order) * 120
            assert got[q.id] == pytest.approx(expected, abs=1e-9), (q.id, shown, order)
            seen_credits[q.id].add(round(expected))
            checked += 1
        page.locator('[data-action="retry"]').click()
        review_all(page)
    assert checked == 9 * 24
    # The orders tried reach several credits of every partial grading.
    for qid, credits in seen_credits.items():
        assert len(credits) >= (2 if qid == "g-all_or_nothing" else 3), (qid, credits)
    assert loaded.errors == []


def test_every_order_of_four_items_scores_as_scoring_py(open_page) -> None:
    """Exhaustively: each of the 24 orders of 4 items under each grading."""
    base = grading_quiz()
    questions = tuple(
        replace(q, body=replace(q.body, items=q.body.items[:4], select=OrderingSelect.ALL, select_count=0))
        for q in base.questions
        if isinstance(q.body, Ordering)
    )
    quiz = replace(base, questions=questions)
    page = open_page(quiz_html(quiz), query="?seed=1").page
    for order in permutations(range(4)):
        review_all(page)
        for q in quiz.questions:
            set_order(page, q.id, list(order))
        submit(page)
        got = marks(page)
        for q in quiz.questions:
            assert isinstance(q.body, Ordering)
            expected = ordering_credit(q.body, [0, 1, 2, 3], list(order)) * 120
            assert got[q.id] == pytest.approx(expected, abs=1e-9), (q.id, order)
        page.locator('[data-action="retry"]').click()


def _blank_responses(blank, rng: random.Random) -> list:
    """Responses to try on a blank: right, wrong, every answer and key, tricky spellings."""
    match blank:
        case TextBlank(answers=answers):
            out = [a.text.replace("*", "abc") for a in answers] + ["", "  ", "nothing like it"]
            out += [a.text.upper() for a in answers] + [f"  {a.text}\t" for a in answers]
            return out
        case NumberBlank(keys=keys):
            out = ["", "abc", "1e9"]
            for k in keys:
                lo, hi = k.bounds
                out += [repr(lo), repr(hi), repr((lo + hi) / 2), repr(hi + 0.001), repr(lo).replace(".", ",")]
                out += [f"{(lo + hi) / 2} units", f" {(lo + hi) / 2} "]
            return out
        case ChoiceBlank(multiple=True, choices=choices):
            return [frozenset(i for i in range(len(choices)) if rng.random() < 0.5) for _ in range(6)]
        case ChoiceBlank(choices=choices):
            return [None, *range(len(choices))]
    raise AssertionError(blank)


def test_cloze_scores_as_scoring_py(open_page) -> None:
    quiz = case_quiz()
    clozes = [replace(q, points=120.0, hints=()) for q in quiz.questions if isinstance(q.body, Cloze)]
    clozes.append(replace(model_quiz().questions[4], points=120.0))
    test_quiz = Quiz(id="clozes", title="Clozes", lang="ur", questions=tuple(clozes))
    loaded = open_page(quiz_html(test_quiz), query="?seed=4")
    page = loaded.page
    rng = random.Random(5)
    checked = 0
    for _ in range(12):
        review_all(page)
        given = {}
        for q in clozes:
            assert isinstance(q.body, Cloze)
            box = question_box(page, q.id)
            responses = [rng.choice(_blank_responses(b, rng)) for b in q.body.blanks]
            for n, (b, r) in enumerate(zip(q.body.blanks, responses, strict=True), 1):
                answer_blank(box, n, b, r)
            given[q.id] = responses
        submit(page)
        got = marks(page)
        for q in clozes:
            assert isinstance(q.body, Cloze)
            expected = cloze_credit(q.body, given[q.id]) * 120
            assert got[q.id] == pytest.approx(round(expected, 2), abs=0.006), (q.id, given[q.id])
            checked += 1
        page.locator('[data-action="retry"]').click()
    assert checked == 12 * len(clozes)
    assert loaded.errors == []


def test_number_blanks_read_urdu_and_arabic_digits(open_page) -> None:
    """Urdu (Extended Arabic-Indic) and Arabic-Indic digits, the Arabic decimal separator and
    bidi marks score as the same number in ASCII does in scoring.py."""
    quiz = model_quiz()
    cloze = quiz.questions[1]
    assert isinstance(cloze.body, Cloze)
    page = open_page(quiz_html(quiz), query="?seed=1").page
    cases = {"۰٫۲": "0.2", "٠٫٢٥": "0.25", "\u200f۰.۲\u200f": "0.2", "۰,۲۵": "0.25", "۲۰": "20"}
    for typed, ascii_ in cases.items():
        review_all(page)
        box = question_box(page, cloze.id)
        box.locator('[data-blank="1"]').fill(typed)
        submit(page)
        expected = cloze_credit(cloze.body, [ascii_, None, None]) * cloze.points
        assert marks(page)[cloze.id] == pytest.approx(expected, abs=0.006), typed
        page.locator('[data-action="retry"]').click()


# --- attempts from the seed ---------------------------------------------------------------


def test_attempts_draw_as_predicted(open_page) -> None:
    bank = structured_bank()
    quiz = next(q for q in bank.quizzes if q.id == "structured")
    page = open_page(page_of(bank, quiz.id), query="?seed=9").page
    predicted = predict_attempts(quiz, 9, 4)
    for i, attempt in enumerate(predicted):
        if i:
            page.locator('[data-action="submit"]').click()
            page.locator('[data-action="retry"]').click()
        shown = shown_attempt(page)
        assert shown.ids == attempt.ids
        for qid, order in attempt.orderings.items():
            assert shown_order(question_box(page, qid)) == order
            q = next(x for x in quiz.questions if x.id == qid)
            assert isinstance(q.body, Ordering)
            assert order != sorted(order)
            if q.body.select is OrderingSelect.CONTIGUOUS:
                assert sorted(order) == list(range(min(order), min(order) + len(order)))
        for qid, blanks in attempt.blanks.items():
            box = question_box(page, qid)
            for n, order in blanks.items():
                got = box.locator(f'[data-blank="{n}"]').evaluate_all(
                    "els => els[0].tagName === 'SELECT'"
                    " ? [...els[0].querySelectorAll('option[data-choice-index]')].map(o => Number(o.value))"
                    " : els.map(e => Number(e.dataset.choiceIndex))"
                )
                assert got == order, (qid, n)
    assert any(a.orderings for a in predicted) and any(a.blanks for a in predicted)


def test_assessment_keeps_the_description_in_its_section(open_page) -> None:
    bank = structured_bank()
    (exam,) = bank.assessments
    page = open_page(page_of(bank, exam.id), query="?seed=3").page
    shown = shown_attempt(page)
    first = exam.sections[0].draws[0].ids
    assert shown.ids[: len(first)] == list(first)
    review_all(page)
    numbers = page.locator("section[data-position]:not([data-type=description]) .qnum").all_text_contents()
    total = len(numbers)
    assert numbers == [f"سوال {n} از {total}" for n in range(1, total + 1)]
    descriptions = page.locator("section[data-position][data-type=description]")
    by_id = {c.question.id: c.question for c in exam.candidates}
    assert descriptions.count() == sum(isinstance(by_id[i].body, Description) for i in shown.ids) > 0
    assert descriptions.locator(".qnum, .points").count() == 0
    submit(page)
    assert set(marks(page)) == {i for i in shown.ids if not isinstance(by_id[i].body, Description)}


# --- accessibility -------------------------------------------------------------------------


def _axe_pages() -> dict[str, tuple[bytes, Quiz | None]]:
    bank = structured_bank()
    return {
        "structured": (page_of(bank, "structured"), case_quiz()),
        "model-ur": (quiz_html(model_quiz("ur")), model_quiz("ur")),
        "model-en": (quiz_html(model_quiz("en")), model_quiz("en")),
        "structured-exam": (page_of(bank, "structured-exam"), None),
    }


@pytest.mark.parametrize("name", list(_axe_pages()))
def test_axe_on_the_new_widgets(open_page, name: str) -> None:
    html, quiz = _axe_pages()[name]
    loaded = open_page(html, name=f"{name}.html", query="?seed=1")
    page = loaded.page
    assert _axe_violations(page) == [], "one at a time"
    review_all(page)
    assert _axe_violations(page) == [], "review all"
    if quiz is not None:
        for i, q in enumerate(quiz.questions):
            answer(page, q, correct=i % 2 == 0)
    # A move, so the live region and the edge buttons' states are checked too.
    move = page.locator('[data-action="move-down"][aria-disabled="false"]').first
    if move.count():
        move.click()
    assert _axe_violations(page) == [], "answered"
    submit(page)
    assert _axe_violations(page) == [], "submitted"
    assert loaded.errors == []


# --- right to left -------------------------------------------------------------------------


def test_blanks_sit_in_right_to_left_text_and_type_left_to_right(open_page) -> None:
    quiz = model_quiz()
    cloze = quiz.questions[1]
    page = open_page(quiz_html(quiz), query="?seed=1").page
    review_all(page)
    box = question_box(page, cloze.id)
    box.locator('[data-blank="1"]').fill("0.2")
    box.locator('[data-blank="3"]').fill("ZeRO-3")
    # Each blank stands left of the Urdu words before it on its line (right to left), and right
    # of the words after it.
    geometry = box.evaluate(
        """b => {
            const p = b.querySelector('.cloze-text p');
            const out = [];
            for (const control of p.querySelectorAll('.blank')) {
                const before = control.previousSibling, after = control.nextSibling;
                const box = r => { const range = document.createRange(); range.selectNodeContents(r);
                                   const rects = [...range.getClientRects()]; return rects; };
                const c = control.getBoundingClientRect();
                const beforeRect = box(before).pop(), afterRect = box(after)[0];
                out.push({c: [c.left, c.right, c.top, c.bottom],
                          before: [beforeRect.left, beforeRect.right, beforeRect.top],
                          after: [afterRect.left, afterRect.right, afterRect.top]});
            }
            return out;
        }"""
    )
    for g in geometry:
        left, right, top, bottom = g["c"]
        if top <= g["before"][2] <= bottom:  # same line
            assert right <= g["before"][0] + 1, g
        if top <= g["after"][2] <= bottom:
            assert left >= g["after"][1] - 1, g
    directions = box.evaluate(
        "b => [1, 3].map(n => getComputedStyle(b.querySelector(`[data-blank='${n}']`)).direction)"
    )
    number_dir = box.locator('[data-blank="1"]').get_attribute("dir")
    assert number_dir == "ltr" and directions[0] == "ltr"
    assert box.locator('[data-blank="3"]').evaluate("e => e.matches(':dir(ltr)')"), (
        "Latin typed right to left"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "html-cloze-rtl.png"), full_page=True)


# --- any quiz of the new kinds, in the browser ------------------------------------------------


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(quiz=quizzes(structured=True, everything=True), right=st.booleans())
def test_any_structured_quiz_scores_as_scoring_py(open_page, quiz: Quiz, right: bool) -> None:
    """Hypothesis's quizzes of every kind, answered all right or all wrong through the page's
    controls: each cloze and ordering mark is scoring.py's, and the page raises no error."""
    loaded = open_page(quiz_html(quiz), query="?seed=1")
    page = loaded.page
    review_all(page)
    given_orders: dict[str, list[int]] = {}
    given_blanks: dict[str, list] = {}
    for q in quiz.questions:
        if isinstance(q.body, Cloze):
            responses = [right_response(b) if right else wrong_response(b) for b in q.body.blanks]
            # An input holds one line: a response with a line break cannot be typed as it is.
            if any(isinstance(r, str) and ("\r" in r or "\n" in r) for r in responses):
                continue
            box = question_box(page, q.id)
            for n, (b, r) in enumerate(zip(q.body.blanks, responses, strict=True), 1):
                answer_blank(box, n, b, r)
            given_blanks[q.id] = responses
        elif isinstance(q.body, Ordering):
            answer(page, q, right)
            given_orders[q.id] = shown_order(question_box(page, q.id))
    submit(page)
    got = marks(page)
    for q in quiz.questions:
        if q.id in given_blanks:
            assert isinstance(q.body, Cloze)
            expected = cloze_credit(q.body, given_blanks[q.id]) * q.points
        elif q.id in given_orders:
            assert isinstance(q.body, Ordering)
            order = given_orders[q.id]
            expected = ordering_credit(q.body, sorted(order), order) * q.points
        else:
            continue
        # The mark shows hundredths of a point.
        assert got[q.id] == pytest.approx(expected, abs=0.0051), q.id
    assert loaded.errors == []
