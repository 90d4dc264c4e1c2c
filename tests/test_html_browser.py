"""The HTML quiz in a real browser: headless Chromium driven by Playwright.

Pages are written to tmp_path and opened from file://, as a learner would open them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from browser import (
    CHROMIUM_ARGS,
    DESKTOP,
    PHONE,
    Attempt,
    Xoshiro128ss,
    answer,
    answer_all,
    answer_attempt,
    answer_number,
    attempt_points,
    auto_points,
    below,
    chromium_path,
    page_questions,
    predict_attempts,
    question_box,
    review_all,
    seeded,
    shown_attempt,
    shown_order,
    submit,
)
from conftest import make_types_quiz
from test_html_credits import credits_quiz, essays_quiz, question_of, units_quiz
from test_html_writer import PAYLOADS, hostile_quiz, hostile_rich_quiz

from lmsexport import variants as vt
from lmsexport.model import (
    Answer,
    Assessment,
    Bank,
    Calculated,
    CalculatedChoice,
    Choice,
    CodeBlock,
    Description,
    Essay,
    Image,
    Matching,
    Math,
    MultipleChoice,
    Numerical,
    NumericKey,
    Ordering,
    Question,
    Quiz,
    ShortAnswer,
    SingleChoice,
    TrueFalse,
    inlines_of,
)
from lmsexport.scoring import ordering_credit
from lmsexport.source import load_paths
from lmsexport.writers import WriteContext
from lmsexport.writers.html import format_number, write

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip("no chromium binary: run scripts/ensure-chromium.sh", allow_module_level=True)

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[sync_api.Browser]:
    # Module, not session: while a sync Playwright lives, its event loop is the main thread's
    # running loop, so a later module could start neither asyncio nor a Playwright of its own
    # (test_preview.py failed so in the whole suite). tests/loop_guard.py enforces this.
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


class Loaded:
    """A page opened from file://, with everything it tried to do recorded."""

    def __init__(self, page: sync_api.Page, url: str) -> None:
        self.page = page
        self.url = url
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.console: list[str] = []
        self.errors: list[str] = []


@pytest.fixture
def open_page(browser: sync_api.Browser, tmp_path: Path) -> Iterator[Callable[..., Loaded]]:
    contexts: list[sync_api.BrowserContext] = []

    def _open(
        html: bytes, name: str = "quiz.html", viewport: dict | None = None, js: bool = True, query: str = ""
    ) -> Loaded:
        path = tmp_path / name
        path.write_bytes(html)
        context = browser.new_context(viewport=viewport or DESKTOP, java_script_enabled=js)
        contexts.append(context)
        page = context.new_page()
        loaded = Loaded(page, path.as_uri() + query)
        page.on("request", lambda r: loaded.requests.append(r.url))
        page.on("console", lambda m: loaded.console.append(m.text))
        page.on("pageerror", lambda e: loaded.errors.append(str(e)))

        def on_dialog(d: sync_api.Dialog) -> None:
            loaded.dialogs.append(d.message)
            d.dismiss()

        page.on("dialog", on_dialog)
        page.goto(loaded.url)
        return loaded

    yield _open
    for c in contexts:
        c.close()


def quiz_html(quiz: Quiz) -> bytes:
    return write(Bank((quiz,)), WriteContext(formats=("html",))).files[f"html/{quiz.id}.html"]


def seed_quizzes() -> list[Quiz]:
    """The three plain quizzes of the repository's bank (the fourth has rich text)."""
    return [q for q in _bank(REPO / "source").quizzes if q.id != "zero-memory-arithmetic"]


def score_text(page: sync_api.Page) -> str:
    return page.locator('[data-role="score"]').inner_text()


def results(page: sync_api.Page) -> dict[str, str | None]:
    return page.eval_on_selector_all(
        "section[data-question-id]",
        "els => Object.fromEntries(els.map(e => [e.dataset.questionId, e.dataset.result ?? null]))",
    )


def mark_text(page: sync_api.Page, qid: str) -> str:
    return question_box(page, qid).locator('[data-role="mark"]').inner_text()


def expected_result(q: Question, correct: bool) -> str | None:
    if isinstance(q.body, Essay):
        return "ungraded"
    if isinstance(q.body, Description):
        return None
    return "correct" if correct else "incorrect"


def _outcome(credit: float) -> str:
    return "correct" if credit >= 1 - 1e-6 else "partial" if credit > 1e-6 else "incorrect"


def check_all(loaded: Loaded, quiz: Quiz, correct: bool) -> None:
    """Every question answered right (or wrong): full marks (or none). An ordering answered
    "wrong" is reversed, which scores nothing under every grading but relative_to_correct (its
    middle items stay near their places), so its credit comes from scoring.py."""
    page = loaded.page
    answer_all(page, quiz, correct)
    orders = {
        q.id: shown_order(question_box(page, q.id)) for q in quiz.questions if isinstance(q.body, Ordering)
    }
    submit(page)
    expected = {q.id: expected_result(q, correct) for q in quiz.questions}
    earned = auto_points(quiz) if correct else 0.0
    for q in quiz.questions:
        if isinstance(q.body, Ordering) and not correct:
            credit = ordering_credit(q.body, sorted(orders[q.id]), orders[q.id])
            expected[q.id] = _outcome(credit)
            earned += credit * q.points
    total = format_number(auto_points(quiz))
    assert score_text(page) == f"{format_number(round(earned, 2))}/{total}"
    assert results(page) == expected
    assert loaded.errors == []


@pytest.mark.parametrize("correct", [True, False], ids=["all-keyed", "all-wrong"])
def test_types_quiz_scores_all_right_and_all_wrong(open_page, correct: bool) -> None:
    quiz = make_types_quiz()
    check_all(open_page(quiz_html(quiz)), quiz, correct)


@pytest.mark.parametrize("correct", [True, False], ids=["all-keyed", "all-wrong"])
def test_seed_quizzes_score_all_right_and_all_wrong(open_page, correct: bool) -> None:
    quizzes = seed_quizzes()
    assert len(quizzes) >= 3  # the three plain quizzes, and the bank's cloze and ordering quiz
    for quiz in quizzes:
        check_all(open_page(quiz_html(quiz), name=f"{quiz.id}.html"), quiz, correct)


@pytest.mark.parametrize("correct", [True, False], ids=["right", "wrong"])
@pytest.mark.parametrize("qid", [q.id for q in make_types_quiz().questions])
def test_each_type_alone(open_page, qid: str, correct: bool) -> None:
    quiz = make_types_quiz()
    question = next(q for q in quiz.questions if q.id == qid)
    loaded = open_page(quiz_html(quiz))
    review_all(loaded.page)
    answer(loaded.page, question, correct)
    submit(loaded.page)
    got = results(loaded.page)
    assert got[qid] == expected_result(question, correct)
    others = {k: v for k, v in got.items() if k != qid}
    assert set(others.values()) <= {"incorrect", "ungraded"}, "an unanswered question scored"
    earned = question.points if correct and not isinstance(question.body, Essay) else 0
    assert score_text(loaded.page) == f"{format_number(earned)}/{format_number(auto_points(quiz))}"


def test_multiple_partial_credit_and_floor(open_page) -> None:
    quiz = make_types_quiz()  # t-multiple: 3 points, choices 0-2 correct, 3 wrong
    page = open_page(quiz_html(quiz)).page
    review_all(page)
    box = question_box(page, "t-multiple")
    for i in (0, 1):
        box.locator(f'input[data-choice-index="{i}"]').check()
    submit(page)
    assert score_text(page) == "2/8"
    assert results(page)["t-multiple"] == "partial"
    assert "(2/3)" in box.locator('[data-role="mark"]').inner_text()

    page.locator('[data-action="retry"]').click()
    review_all(page)
    for i in (0, 3):  # one right, one wrong: 1 - 1 = 0
        box.locator(f'input[data-choice-index="{i}"]').check()
    submit(page)
    assert score_text(page) == "0/8"


def test_matching_partial_credit(open_page) -> None:
    quiz = make_types_quiz()
    page = open_page(quiz_html(quiz)).page
    review_all(page)
    box = question_box(page, "t-matching")
    for i, label in enumerate(["Optimizer states", "Gradients", "Activations"]):
        box.locator(f'select[data-pair-index="{i}"]').select_option(label=label)
    submit(page)
    assert score_text(page) == "0.67/8"
    assert results(page)["t-matching"] == "partial"
    assert "Parameters" in box.inner_text(), "the right answer of the wrong pair is shown"


# How learners type 12 (key: 12 +- 0.5): each form is one question of one page, so a single
# page load checks them all.
NUMBER_FORMS = {
    "12": True,
    "12.0": True,
    " 12 ": True,
    "۱۲": True,  # Extended Arabic-Indic (Urdu) digits
    "١٢": True,  # Arabic-Indic digits
    "12,4": True,  # comma as decimal separator
    "۱۲٫۵": True,  # Arabic decimal separator, on the upper bound
    "\u200f11.5": True,  # right-to-left mark from an RTL keyboard, on the lower bound
    "1.2e1": True,
    "+12": True,
    "13": False,
    "11.4": False,
    "12.6": False,
    "-12": False,
    "12abc": False,
    "": False,
    "12..0": False,
    "۱۲٫۵٫۰": False,
}


def test_numerical_input_forms(open_page) -> None:
    key = NumericKey(answer=12, tolerance=0.5)
    questions = tuple(
        Question(id=f"n{i}", stem=f"بارہ؟ {typed!r}", body=Numerical(keys=(key,)))
        for i, typed in enumerate(NUMBER_FORMS)
    )
    # 1.1 - 0.1 is 1.0000000000000002 in floating point: typing 1 must still be right.
    edge = Question(id="edge", stem="range", body=Numerical(keys=(NumericKey(answer=1.1, tolerance=0.1),)))
    quiz = Quiz(id="numbers", title="Numbers", lang="ur", questions=(*questions, edge))
    page = open_page(quiz_html(quiz)).page
    review_all(page)
    for q, typed in zip(questions, NUMBER_FORMS, strict=True):
        question_box(page, q.id).locator('[data-role="answer-input"]').fill(typed)
    question_box(page, "edge").locator('[data-role="answer-input"]').fill("1")
    submit(page)
    got = results(page)
    assert {typed: got[q.id] for q, typed in zip(questions, NUMBER_FORMS, strict=True)} == {
        typed: "correct" if ok else "incorrect" for typed, ok in NUMBER_FORMS.items()
    }
    assert got["edge"] == "correct"


# typed -> (right for an any-case key "Café" / "FSDP", right for a case-sensitive "FSDP")
SHORT_FORMS = {
    "fsdp": (True, False),
    " FSDP\t": (True, True),
    "cafe\u0301": (True, False),  # decomposed é is NFC-normalised
    "CAFÉ": (True, False),
    "caf": (False, False),
    "FSD": (False, False),
    "": (False, False),
}


def test_short_answer_matching(open_page) -> None:
    questions = []
    for i in range(len(SHORT_FORMS)):
        questions.append(
            Question(id=f"ci{i}", stem="any case", body=ShortAnswer((Answer("Café"), Answer("FSDP"))))
        )
        questions.append(
            Question(id=f"cs{i}", stem="case", body=ShortAnswer((Answer("FSDP"),), case_sensitive=True))
        )
    page = open_page(quiz_html(Quiz(id="texts", title="Texts", lang="en", questions=tuple(questions)))).page
    review_all(page)
    for i, typed in enumerate(SHORT_FORMS):
        for prefix in ("ci", "cs"):
            question_box(page, f"{prefix}{i}").locator('[data-role="answer-input"]').fill(typed)
    submit(page)
    got = results(page)
    actual = {t: (got[f"ci{i}"] == "correct", got[f"cs{i}"] == "correct") for i, t in enumerate(SHORT_FORMS)}
    assert actual == SHORT_FORMS


def _hidden_texts(quiz: Quiz) -> list[str]:
    texts = [q.explanation for q in quiz.questions if q.explanation]
    texts += [c.feedback for q in quiz.questions for c in _choices(q) if c.feedback]
    return texts


def _choices(q: Question) -> tuple[Choice, ...]:
    """The choices of a single or multiple choice question; none for the other kinds."""
    return q.body.choices if isinstance(q.body, SingleChoice | MultipleChoice) else ()


def test_explanations_hidden_until_submit(open_page) -> None:
    quiz = make_types_quiz()
    page = open_page(quiz_html(quiz)).page
    review_all(page)
    body = page.locator("body").inner_text()
    for text in _hidden_texts(quiz):
        assert text not in body
    assert page.locator('[data-role="explanation"]').count() == 0
    assert page.locator('[data-role="feedback"]').count() == 0
    assert not page.locator('[data-role="score"]').is_visible()

    answer_all(page, quiz, correct=False)
    submit(page)
    for q in quiz.questions:
        explanation = question_box(page, q.id).locator('[data-role="explanation"]')
        assert explanation.is_visible()
        assert q.explanation in explanation.inner_text()
    # all-wrong picked "Training data" in t-multiple: its feedback shows, nothing else's
    feedback = page.locator('[data-role="feedback"]')
    assert feedback.all_inner_texts() == ["صرف آپٹیمائزر اسٹیٹ۔", "Data parallelism already splits the data."]

    page.locator('[data-action="retry"]').click()
    assert page.locator('[data-role="explanation"]').count() == 0
    assert results(page) == {q.id: None for q in quiz.questions}


def test_without_javascript_every_question_shows_and_no_key(open_page) -> None:
    quiz = make_types_quiz()
    page = open_page(quiz_html(quiz), js=False).page
    for q in quiz.questions:
        assert question_box(page, q.id).is_visible()
    assert not page.locator('[data-action="submit"]').is_visible()
    body = page.locator("body").inner_text()
    for text in _hidden_texts(quiz):
        assert text not in body


def test_one_at_a_time_navigation(open_page) -> None:
    quiz = make_types_quiz()
    page = open_page(quiz_html(quiz)).page
    visible = page.locator("section[data-question-id]:visible")
    assert visible.count() == 1
    assert page.locator('[data-role="position"]').inner_text() == "سوال 1 از 7"
    page.locator('[data-action="next"]').click()
    assert visible.get_attribute("data-question-id") == "t-multiple"
    assert page.locator('[data-role="position"]').inner_text() == "سوال 2 از 7"
    page.locator('[data-action="previous"]').click()
    assert visible.get_attribute("data-question-id") == "t-single"
    assert page.locator('[data-action="previous"]').is_disabled()
    page.locator('[data-action="toggle-view"]').click()
    assert visible.count() == len(quiz.questions)


def test_direction_of_urdu_and_english_stems(open_page) -> None:
    page = open_page(quiz_html(make_types_quiz())).page
    review_all(page)

    def dir_of(qid: str) -> str:
        return question_box(page, qid).locator("legend").evaluate("e => getComputedStyle(e).direction")

    assert dir_of("t-single") == "rtl"
    assert dir_of("t-multiple") == "ltr"
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    submit(page)
    explanation = question_box(page, "t-multiple").locator('[data-role="explanation"] p.t')
    assert explanation.evaluate("e => getComputedStyle(e).direction") == "ltr"


def test_styles_and_script_allowed_by_own_csp(open_page) -> None:
    loaded = open_page(quiz_html(make_types_quiz()))
    width = loaded.page.locator("section.question").first.evaluate(
        "e => getComputedStyle(e).borderInlineStartWidth"
    )
    assert width == "6px", "the inline stylesheet was blocked"
    assert loaded.page.evaluate("document.documentElement.classList.contains('js')")
    assert not [m for m in loaded.console if "Content Security Policy" in m]


def test_no_network_requests(open_page) -> None:
    quiz = make_types_quiz()
    loaded = open_page(quiz_html(quiz))
    answer_all(loaded.page, quiz, correct=True)
    submit(loaded.page)
    assert loaded.requests == [loaded.url]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_show_as_text_and_run_nothing(open_page, payload: str) -> None:
    quiz = hostile_quiz(payload)
    loaded = open_page(quiz_html(quiz))
    page = loaded.page
    assert page.title() == payload
    review_all(page)
    stems = page.locator("legend").all_inner_texts()
    assert stems == [payload] * 4
    page.locator('input[data-choice-index="1"]').check()
    question_box(page, "q-essay").locator("textarea").fill(payload)
    submit(page)
    assert page.locator('[data-role="explanation"] p.t').all_inner_texts() == [payload] * 4
    assert page.locator('[data-role="feedback"]').all_inner_texts() == ["fb " + payload]
    assert page.locator('[data-role="essay-copy"]').inner_text() == payload
    assert loaded.dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert loaded.errors == []
    assert loaded.requests == [loaded.url]


def test_index_payloads_run_nothing(open_page) -> None:
    quiz = hostile_quiz(PAYLOADS[1])
    out = write(Bank((quiz,)), WriteContext(formats=("qti21", "gift", "html")))
    loaded = open_page(out.files["index.html"], name="index.html")
    assert loaded.page.locator("tbody th a").inner_text() == PAYLOADS[1]
    assert loaded.dialogs == []
    assert loaded.requests == [loaded.url]


def test_keyboard_only(open_page) -> None:
    quiz = make_types_quiz()
    page = open_page(quiz_html(quiz)).page

    def tab_until(predicate: str, limit: int = 40) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(f"(() => {{ const e = document.activeElement; return {predicate}; }})()"):
                return
        raise AssertionError(f"Tab never reached {predicate}")

    tab_until("e.matches('input[data-choice-index]')")
    page.keyboard.press("Space")
    checked = question_box(page, "t-single").locator("input:checked")
    assert checked.get_attribute("data-choice-index") == "0"
    page.keyboard.press("ArrowDown")  # within a radio group, arrows move the selection
    assert checked.get_attribute("data-choice-index") == "1"
    focus_ring = page.evaluate("getComputedStyle(document.activeElement.closest('li')).outlineStyle")
    assert focus_ring == "solid", "no visible focus on the focused choice"
    tab_until("e.matches('[data-action=submit]')")
    page.keyboard.press("Enter")
    page.locator('[data-role="score"]').wait_for(state="visible")
    assert page.evaluate("document.activeElement.dataset.role") == "summary"
    announce = page.locator('[data-role="announce"]')
    assert announce.get_attribute("aria-live") == "polite"
    assert announce.text_content() == "اسکور: " + score_text(page)


def _mixed_answers(page: sync_api.Page, quiz: Quiz) -> None:
    review_all(page)
    for i, q in enumerate(quiz.questions):
        answer(page, q, correct=i % 3 != 1)


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_screenshot_submitted_quizzes(open_page, size: str, viewport: dict) -> None:
    """Keeps screenshots in test-artifacts/ for a person to look at (Urdu shaping, RTL layout)."""
    quizzes = [make_types_quiz(), *seed_quizzes(), credits_quiz()]
    ARTIFACTS.mkdir(exist_ok=True)
    for quiz in quizzes:
        page = open_page(quiz_html(quiz), name=f"{quiz.id}.html", viewport=viewport).page
        _mixed_answers(page, quiz)
        submit(page)
        target = ARTIFACTS / f"html-{quiz.id}-submitted-{size}.png"
        page.screenshot(path=str(target), full_page=True)
        assert target.stat().st_size > 10_000
        # Nothing may stick out sideways on a phone.
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


# --- attempts: draws, shuffling, the generator ------------------------------------------

TYPES_CASE = REPO / "tests" / "cases" / "types"
RICH_CASE = REPO / "tests" / "cases" / "rich"


@functools.cache
def _bank(*paths: Path) -> Bank:
    return load_paths(list(paths))


def types_exam() -> tuple[Bank, Assessment]:
    bank = _bank(TYPES_CASE / "bank.yaml", TYPES_CASE / "exam.yaml")
    return bank, bank.assessments[0]


def final_exam() -> tuple[Bank, Assessment]:
    bank = _bank(REPO / "source")
    (exam,) = bank.assessments
    return bank, exam


def page_html(bank: Bank, page_id: str) -> bytes:
    return write(bank, WriteContext(formats=("html",))).files[f"html/{page_id}.html"]


def test_generator_is_xoshiro128ss(open_page) -> None:
    """The page's generator against the reference (tests/browser.py, after the C original)."""
    page = open_page(quiz_html(make_types_quiz())).page
    got = page.evaluate(
        "(() => { const r = lmsxRandom.xoshiro128ss(1, 2, 3, 4); return [...Array(500)].map(r); })()"
    )
    reference = Xoshiro128ss(1, 2, 3, 4)
    assert got == [reference() for _ in range(500)]
    # xoshiro128starstar.c's first outputs from the state {1, 2, 3, 4}:
    assert got[:6] == [11520, 0, 5927040, 70819200, 2031721883, 1637235492]
    for seed in (0, 1, 123, 2**31, 2**32 - 1):
        got = page.evaluate(
            f"(() => {{ const r = lmsxRandom.seeded({seed}); return [...Array(50)].map(r); }})()"
        )
        reference = seeded(seed)
        assert got == [reference() for _ in range(50)], seed
    # Integers below n: unbiased (rejection), equal to the reference's for every n.
    for n in (1, 2, 3, 7, 10, 1000, 2**31 + 1, 2**32 - 1):
        got = page.evaluate(
            "n => { const r = lmsxRandom.seeded(9); return [...Array(40)].map(_ => lmsxRandom.below(r, n)) }",
            n,
        )
        reference = seeded(9)
        assert got == [below(reference, n) for _ in range(40)], n
        assert all(0 <= x < n for x in got)


def _check_attempt(exam: Assessment, attempt: Attempt) -> None:
    """An attempt of an assessment: `pick` of every random draw, every listed question, each
    section's questions together (in draw order unless the section shuffles)."""
    at = 0
    for section in exam.sections:
        n = sum(d.count for d in section.draws)
        shown = attempt.ids[at : at + n]
        at += n
        in_order = []
        for draw in section.draws:
            ids = [c.question.id for c in draw.candidates]
            mine = [i for i in shown if i in ids]
            assert len(mine) == draw.count, draw.name
            if draw.pick is None:
                assert sorted(mine) == sorted(ids)
            in_order += sorted(mine, key=ids.index)
        if not section.shuffle:
            assert shown == in_order
        else:
            assert sorted(shown) == sorted(in_order)
    assert at == len(attempt.ids) == exam.question_count


@pytest.mark.parametrize("which", ["every-type-exam", "final-exam"])
def test_assessment_attempts_by_seed(open_page, which: str) -> None:
    """Two seeds draw two different papers; each is what the reference predicts, scores its
    own points (full marks and zero), and "try again" draws the seed's next attempt."""
    bank, exam = types_exam() if which == "every-type-exam" else final_exam()
    html = page_html(bank, exam.id)
    papers = []
    for seed in (11, 12):
        loaded = open_page(html, name=f"{exam.id}.html", query=f"?seed={seed}")
        page = loaded.page
        predicted = predict_attempts(exam, seed, 3)
        for k, correct in enumerate((True, False, True)):
            shown = shown_attempt(page)
            assert shown == predicted[k], (seed, k)
            _check_attempt(exam, shown)
            ids = answer_attempt(page, exam, correct)
            submit(page)
            total = format_number(attempt_points(exam, ids))
            assert score_text(page) == (f"{total}/{total}" if correct else f"0/{total}")
            got = results(page)
            assert {i: got[i] for i in ids} == {
                i: expected_result(pq.question, correct)
                for pq in page_questions(exam)
                if (i := pq.question.id) in ids
            }
            assert {k for k, v in got.items() if v is not None} == set(ids), "an undrawn question was scored"
            # Each question's mark counts its points in this assessment (draw.points_of).
            for pq in page_questions(exam):
                if pq.question.id in ids and not isinstance(pq.question.body, Essay):
                    mark = question_box(page, pq.question.id).locator('[data-role="mark"]').inner_text()
                    earned = pq.points if correct else 0
                    assert mark.endswith(f"({format_number(earned)}/{format_number(pq.points)})"), mark
            papers.append(shown.ids)
            page.locator('[data-action="retry"]').click()
        assert loaded.errors == []
        assert loaded.requests == [loaded.url]
    assert papers[0] != papers[3], "two seeds drew the same paper"
    assert papers[0] != papers[1], "try again drew the same paper"


def test_same_seed_same_attempt(open_page) -> None:
    bank, exam = final_exam()
    html = page_html(bank, exam.id)
    first = shown_attempt(open_page(html, query="?seed=424242").page)
    again = shown_attempt(open_page(html, query="?x=1&seed=424242").page)
    assert first == again
    other = shown_attempt(open_page(html, query="?seed=424243").page)
    assert other != first


def test_without_seed_attempts_are_random(open_page) -> None:
    """No seed: crypto.getRandomValues seeds each page; ten pages all equal would be a 1 in
    millions coincidence for the final exam (its 'zero' pool alone has 84 draws)."""
    bank, exam = final_exam()
    html = page_html(bank, exam.id)
    seen = set()
    for _ in range(10):
        attempt = shown_attempt(open_page(html).page)
        _check_attempt(exam, attempt)
        seen.add(tuple(attempt.ids))
    assert len(seen) > 1


def _chi_square(counts: list[int], expected: list[float]) -> float:
    return sum((c - e) ** 2 / e for c, e in zip(counts, expected, strict=True))


# 99.9th percentiles of the chi-square distribution by degrees of freedom.
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 8: 26.12}


def _many_attempts(page: sync_api.Page, n: int) -> list[Attempt]:
    """n attempts in a row ("try again" n - 1 times), read in the page."""
    rows = page.evaluate(
        """n => {
            const out = [];
            const retry = document.querySelector('[data-action=retry]');
            for (let k = 0; k < n; k++) {
                if (k) retry.click();
                const shown = [...document.querySelectorAll('section[data-position]')];
                if (shown.some((e, i) => Number(e.dataset.position) !== i + 1)) throw 'page order';
                out.push(shown
                    .map(e => [e.dataset.questionId,
                               [...e.querySelectorAll('input[data-choice-index]')]
                                   .map(i => +i.dataset.choiceIndex)]));
            }
            return out;
        }""",
        n,
    )
    return [Attempt([q for q, _ in row], {q: c for q, c in row if c}) for row in rows]


def test_draws_and_section_order_are_uniform(open_page) -> None:
    bank, exam = final_exam()
    attempts = _many_attempts(open_page(page_html(bank, exam.id), query="?seed=2024").page, 900)
    assert attempts == predict_attempts(exam, 2024, 900)
    zero = next(d for d in exam.draws if d.name == "zero")
    ids = [c.question.id for c in zero.candidates]
    counts = [sum(i in a.ids for a in attempts) for i in ids]
    expected = [len(attempts) * zero.count / len(ids)] * len(ids)
    assert _chi_square(counts, expected) < CHI2_999[len(ids) - 1], counts
    # The shuffled section: which draw the section's first question comes from, 1/2 each.
    section = next(s for s in exam.sections if s.shuffle)
    pipeline = {c.question.id for c in section.draws[0].candidates}
    start = sum(d.count for s in exam.sections[: exam.sections.index(section)] for d in s.draws)
    first = [a.ids[start] in pipeline for a in attempts]
    assert _chi_square([sum(first), len(first) - sum(first)], [len(first) / 2] * 2) < CHI2_999[1]


@pytest.mark.parametrize("quiz_id", ["zero-sharded-optimizers", "deepspeed-megatron-stacks"])
def test_seed_quiz_keys_move_between_attempts(open_page, quiz_id: str) -> None:
    """The seed quizzes' keys read 1, 2, 3, 4, 1, ... down the page in source order: shuffled
    per attempt, each key lands on every position about equally often."""
    quiz = next(q for q in seed_quizzes() if q.id == quiz_id)
    assert quiz.shuffle
    singles = {
        q.id: q.body.key_indexes
        for q in quiz.questions
        if isinstance(q.body, SingleChoice) and len(q.body.choices) == 4
    }
    assert len(singles) >= 4
    page = open_page(quiz_html(quiz), query="?seed=77").page
    attempts = _many_attempts(page, 400)
    assert attempts == predict_attempts(quiz, 77, 400)
    for qid, (key,) in singles.items():
        positions = [a.choices[qid].index(key) for a in attempts]
        counts = [positions.count(p) for p in range(4)]
        assert _chi_square(counts, [len(attempts) / 4] * 4) < CHI2_999[3], (qid, counts)
    source_pattern = [keys[0] for keys in singles.values()]
    shown_patterns = [[a.choices[qid].index(keys[0]) for qid, keys in singles.items()] for a in attempts]
    assert shown_patterns.count(source_pattern) <= 1


def test_shuffled_choices_still_score_right(open_page) -> None:
    """Answers are read by source index: a shuffled page scores as the key says."""
    for quiz in seed_quizzes():
        for seed, correct in ((5, True), (6, False)):
            loaded = open_page(quiz_html(quiz), name=f"{quiz.id}.html", query=f"?seed={seed}")
            shown = shown_attempt(loaded.page)
            moved = [q for q, order in shown.choices.items() if order != sorted(order)]
            # A quiz of cloze and ordering questions alone has no choice question to shuffle
            # (test_html_structured_browser.py checks its shuffled blanks and items).
            shuffles = any(pq.shuffles for pq in page_questions(quiz))
            assert bool(moved) == shuffles, "no choice was shuffled"
            check_all(loaded, quiz, correct)
            # The badge marks the keyed choice wherever it was shown.
            for q in quiz.questions:
                if isinstance(q.body, SingleChoice):
                    key = question_box(loaded.page, q.id).locator("li.is-key input")
                    assert key.get_attribute("data-choice-index") == str(q.body.key_indexes[0])


def test_assessment_without_javascript_lists_every_candidate(open_page) -> None:
    bank, exam = final_exam()
    page = open_page(page_html(bank, exam.id), js=False).page
    for c in exam.candidates:
        assert question_box(page, c.question.id).is_visible()
    assert page.locator("section[data-position]").count() == 0
    notes = page.locator(".draw-note").all_inner_texts()
    random = [d for d in exam.draws if d.is_random]
    assert len(notes) == len(random)
    for note, draw in zip(notes, random, strict=True):
        assert f"{len(draw.candidates)} سوالات میں سے {draw.pick} منتخب" in note
    headings = page.get_by_role("heading", level=2).all_inner_texts()
    assert headings == [s.title for s in exam.sections]
    assert not page.locator('[data-action="submit"]').is_visible()


def test_assessment_accessibility_and_keyboard(open_page) -> None:
    bank, exam = types_exam()
    loaded = open_page(page_html(bank, exam.id), query="?seed=3")
    page = loaded.page
    review_all(page)
    # Sections are regions named by their headings; every question a group named by its stem.
    for section in exam.sections:
        assert page.get_by_role("region", name=section.title).count() == 1
    shown = shown_attempt(page)
    by_id = {c.question.id: c.question for c in exam.candidates}
    for qid in shown.ids:
        group = question_box(page, qid).get_by_role("group")
        assert group.count() == 1
        name = group.evaluate("g => g.getAttribute('aria-labelledby') || g.querySelector('legend').id")
        assert page.locator(f"#{name}").inner_text().strip() == by_id[qid].stem.strip()
    assert page.locator('[data-role="toggle-view"], [data-action="toggle-view"]').count() == 1
    page.locator('[data-action="toggle-view"]').click()  # back to one question at a time
    assert page.locator("section[data-question-id]:visible").count() == 1
    assert page.locator('[data-role="position"]').inner_text() == f"سوال 1 از {exam.question_count}"
    # Keyboard only: into the first question, answer it, then submit.
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('section[data-position=\"1\"]')"):
            break
    else:
        raise AssertionError("Tab never reached the first question")
    page.keyboard.type("x")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('[data-action=submit]')"):
            break
    page.keyboard.press("Enter")
    page.locator('[data-role="score"]').wait_for(state="visible")
    assert page.evaluate("document.activeElement.dataset.role") == "summary"
    assert page.locator('[data-role="announce"]').text_content() == "اسکور: " + score_text(page)
    assert loaded.errors == []


# --- rich text ---------------------------------------------------------------------------


def rich_pages() -> dict[str, tuple[Bank, Quiz]]:
    rich = _bank(RICH_CASE / "bank.yaml")
    source = _bank(REPO / "source")
    return {
        "rich-text": (rich, rich.quizzes[0]),
        "zero-memory-arithmetic": (
            source,
            next(q for q in source.quizzes if q.id == "zero-memory-arithmetic"),
        ),
    }


def _count(quiz: Quiz, kind: type, where: str) -> int:
    """How many Math or Image inlines a quiz page shows before ('stems') or after submitting all
    right ('all': explanations, the feedback of picked right choices too)."""
    texts: list = [quiz.description]
    for q in quiz.questions:
        if isinstance(q.body, Calculated | CalculatedChoice):
            # What an attempt shows: a variant (every variant has the same formulas and images).
            q = vt.instantiate(q, q.body.variants[0])
        pairs = q.body.pairs if isinstance(q.body, Matching) else ()
        texts += [q.stem, *(c.text for c in _choices(q)), *(p.left for p in pairs)]
        if where == "all":
            picked = [c.full if isinstance(q.body, SingleChoice) else c.earns for c in _choices(q)]
            texts += [q.explanation, *(c.feedback for c, p in zip(_choices(q), picked, strict=True) if p)]
    return sum(isinstance(x, kind) for t in texts for x in inlines_of(t))


@pytest.mark.parametrize("page_id", ["rich-text", "zero-memory-arithmetic"])
@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_rich_pages_render(open_page, page_id: str, size: str, viewport: dict) -> None:
    """Formulas laid out as MathML, every image decoded, code highlighted and left to right,
    nothing fetched; screenshots kept for a person to look at."""
    _, quiz = rich_pages()[page_id]
    loaded = open_page(quiz_html(quiz), name=f"{page_id}.html", viewport=viewport, query="?seed=1")
    page = loaded.page
    review_all(page)

    def maths() -> list[dict]:
        return page.eval_on_selector_all(
            "math",
            "els => els.map(m => ({ns: m.namespaceURI, w: m.getBoundingClientRect().width,"
            " h: m.getBoundingClientRect().height, semantics: m.firstElementChild.localName}))",
        )

    before = maths()
    assert len(before) == _count(quiz, Math, "stems") > 0
    answer_all(page, quiz, correct=True)
    submit(page)
    after = maths()
    assert len(after) == _count(quiz, Math, "all") > len(before)
    for m in after:
        assert m["ns"] == "http://www.w3.org/1998/Math/MathML" and m["semantics"] == "semantics", m
        assert m["w"] > 0 and m["h"] > 0, m
    images = page.eval_on_selector_all(
        "img",
        "els => els.map(i => ({ok: i.complete && i.naturalWidth > 0, w: i.naturalWidth, alt: i.alt}))",
    )
    assert len(images) == _count(quiz, Image, "all") > 0
    assert all(i["ok"] for i in images), images
    # Code: every block left to right, highlighted by classes the page's stylesheet colours.
    blocks = page.eval_on_selector_all(
        "pre",
        """els => els.map(p => ({
            dir: getComputedStyle(p).direction, bidi: getComputedStyle(p).unicodeBidi,
            colours: new Set([...p.querySelectorAll('[class^=tok-]')]
                .map(s => getComputedStyle(s).color)).size}))""",
    )
    assert blocks, "no code block"
    for b in blocks:
        assert (b["dir"], b["bidi"]) == ("ltr", "isolate"), b
        assert b["colours"] >= 3, b
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    assert loaded.requests == [loaded.url]
    assert loaded.errors == []
    assert not [m for m in loaded.console if "Content Security Policy" in m]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    ARTIFACTS.mkdir(exist_ok=True)
    target = ARTIFACTS / f"html-{page_id}-submitted-{size}.png"
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 10_000


def test_rich_text_in_right_to_left_questions(open_page) -> None:
    """The Urdu questions of the rich quiz: their code reads left to right (block and inline),
    their table columns keep the author's alignment, their formulas left to right."""
    _, quiz = rich_pages()["rich-text"]
    page = open_page(quiz_html(quiz), query="?seed=1").page
    review_all(page)

    def style(selector: str, prop: str) -> list[str]:
        return page.eval_on_selector_all(selector, f"els => els.map(e => getComputedStyle(e).{prop})")

    config = question_box(page, "rich-ds-config")
    assert config.locator("fieldset").evaluate("e => getComputedStyle(e).direction") == "rtl"
    assert config.locator("pre").evaluate("e => getComputedStyle(e).direction") == "ltr"
    assert config.locator("pre").evaluate("e => getComputedStyle(e).textAlign") == "left"
    assert style('section[data-question-id="rich-ds-config"] li code', "direction") == ["ltr"]
    # The code's lines come out as written: read back from the page, the text is the source's.
    block = next(b for b in quiz.questions[2].stem.blocks if isinstance(b, CodeBlock))
    assert config.locator("pre code").text_content() == block.text
    table = question_box(page, "rich-zero-memory").locator("table")
    assert table.locator("th").evaluate_all("ths => ths.map(t => getComputedStyle(t).textAlign)") == [
        "left",
        "right",
    ]
    assert style('section[data-question-id="rich-zero-memory"] math', "direction") == ["ltr"] * 5
    # A stem longer than one paragraph names its fieldset; a one-paragraph one is its legend.
    assert page.get_by_role("group", name="ZeRO-3 میں فی GPU میموری").count() == 1
    assert (
        question_box(page, "rich-fsdp").locator("legend code").inner_text() == "torch.distributed.fsdp.____"
    )


# Every box that scrolls, as axe-core's scrollable-region-focusable finds them: overflow auto or
# scroll on an axis with more content than room. Focusable by its own tabindex (Chromium and
# Firefox focus a scroller without one, Safari does not, so reaching it with Tab proves nothing
# here) or by focusable content.
SCROLLERS = """() => [...document.body.querySelectorAll('*')].filter(e => {
    const s = getComputedStyle(e);
    const x = ['auto', 'scroll'].includes(s.overflowX) && e.scrollWidth > e.clientWidth;
    const y = ['auto', 'scroll'].includes(s.overflowY) && e.scrollHeight > e.clientHeight;
    return (x || y) && e.getClientRects().length > 0;
}).map(e => ({
    tag: e.tagName.toLowerCase(),
    question: e.closest('section[data-question-id]')?.dataset.questionId ?? null,
    tabindex: e.getAttribute('tabindex'),
    content: !!e.querySelector('a[href], button, input, select, textarea, [tabindex]'),
    role: e.getAttribute('role'),
    name: e.getAttribute('aria-label'),
    inLabel: !!e.closest('label'),
    lang: e.closest('[lang]').lang,
}))"""


@pytest.mark.parametrize("page_id", ["rich-text", "zero-memory-arithmetic"])
@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_scrolling_code_takes_the_keyboard_focus(open_page, page_id: str, size: str, viewport: dict) -> None:
    """A code block wider than its box scrolls; a learner without a mouse must reach it (axe-core's
    scrollable-region-focusable, serious). Every box that scrolls, before and after submitting,
    takes the focus; a code block is a group named "Code" in its text's language (in a label, the
    label names the input: no name of its own there); the focus shows, and the arrow keys scroll it."""
    bank, quiz = rich_pages()[page_id]
    page = open_page(page_html(bank, quiz.id), viewport=viewport).page
    review_all(page)
    for when in ("before", "after"):
        if when == "after":
            answer_all(page, quiz, correct=True)
            submit(page)
        scrollers = page.evaluate(SCROLLERS)
        assert [s for s in scrollers if s["tag"] == "pre"], f"no code block scrolls {when} submitting"
        for s in scrollers:
            assert s["tabindex"] == "0" or s["content"], (when, s)
            if s["tag"] == "pre" and not s["inLabel"]:
                assert s["role"] == "group", (when, s)
                assert s["name"] == ("کوڈ" if s["lang"] == "ur" else "Code"), (when, s)
            elif s["tag"] == "pre":
                assert s["role"] is None and s["name"] is None, (when, s)
    # Keyboard only: Tab to the first code block that scrolls, see the focus, scroll it.
    wide = "(e => e.matches('pre') && e.scrollWidth > e.clientWidth)(document.activeElement)"
    page.locator('[data-role="summary"]').focus()
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate(wide):
            break
    else:
        raise AssertionError("Tab never reached a code block that scrolls")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"
    assert page.evaluate("document.activeElement.scrollLeft") == 0
    page.keyboard.press("ArrowRight")
    # Polled from here: wait_for_function's polling evaluates strings, which the page's CSP forbids.
    for _ in range(50):
        if page.evaluate("document.activeElement.scrollLeft") > 0:
            break
        page.wait_for_timeout(20)
    else:
        raise AssertionError("the arrow key did not scroll the focused code block")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_rich_payloads_run_nothing(open_page, payload: str) -> None:
    """A payload in every Rich position and node (text, code, link, image alt and title, a
    hostile SVG image, TeX): shown as text, nothing runs, nothing is fetched, also when the
    learner follows a javascript: link."""
    quiz = hostile_rich_quiz(payload)
    loaded = open_page(quiz_html(quiz))
    page = loaded.page
    review_all(page)
    assert payload in page.locator('section[data-question-id="r-single"] .stem').inner_text()
    assert page.locator("pre").first.inner_text() == payload
    for q in quiz.questions:
        answer(page, q, correct=False)
    submit(page)
    assert page.locator('[data-role="feedback"]').count() >= 1
    assert payload in page.locator('[data-role="explanation"]').first.inner_text()
    images = page.eval_on_selector_all("img", "els => els.map(i => i.complete && i.naturalWidth > 0)")
    assert images and all(images)
    page.locator('a[href^="javascript:"]').first.click()
    page.wait_for_timeout(200)
    assert loaded.dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert loaded.errors == []
    assert loaded.requests == [loaded.url]


# --- issue 22: partial credits, feedback, hints, units, essays --------------------------------
#
# The credits bank (tests/cases/credits/credits.yaml, an Urdu quiz with English questions) and
# small quizzes of tests/test_html_credits.py; no ?seed= shuffles their choices, so these
# tests pick by data-choice-index, which is the source index wherever the choice is shown.


def credits_page(open_page, **kwargs) -> Loaded:
    loaded = open_page(quiz_html(credits_quiz()), name="credits.html", **kwargs)
    review_all(loaded.page)
    return loaded


def pick(page: sync_api.Page, qid: str, *indexes: int) -> None:
    for i in indexes:
        question_box(page, qid).locator(f'input[data-choice-index="{i}"]').check()


@pytest.mark.parametrize("correct", [True, False], ids=["all-keyed", "all-wrong"])
def test_credits_quiz_scores_all_right_and_all_wrong(open_page, correct: bool) -> None:
    quiz = credits_quiz()
    check_all(open_page(quiz_html(quiz), name="credits.html"), quiz, correct)


def test_partial_marks_and_partly_right_feedback(open_page) -> None:
    """Partly right answers earn their credit, the mark says so, and the page shows the
    partly-right feedback: the picked choice's own and the question's combined feedback."""
    quiz = credits_quiz()
    loaded = credits_page(open_page)
    page = loaded.page
    pick(page, "cr-zero3-memory", 2)  # ZeRO-2's memory: a third of the credit
    pick(page, "cr-zero2-partitioned", 0, 1, 5)  # two right picks (0.25 each) and one at -0.25
    submit(page)
    single = question_of(quiz, "cr-zero3-memory")
    multiple = question_of(quiz, "cr-zero2-partitioned")
    assert isinstance(single.body, SingleChoice) and isinstance(multiple.body, MultipleChoice)
    got = results(page)
    assert (got["cr-zero3-memory"], got["cr-zero2-partitioned"]) == ("partial", "partial")
    assert mark_text(page, "cr-zero3-memory") == "◐ جزوی طور پر درست (0.33/1)"
    assert mark_text(page, "cr-zero2-partitioned") == "◐ جزوی طور پر درست (0.5/2)"
    assert score_text(page) == "0.83/12"
    box = question_box(page, "cr-zero3-memory")
    partly = box.locator("li.is-part")
    assert partly.locator("input").get_attribute("data-choice-index") == "2"
    assert "جزوی طور پر درست" in partly.locator(".badge").inner_text()
    assert partly.locator('[data-role="feedback"]').inner_text() == single.body.choices[2].feedback
    assert box.locator("li.is-key").count() == 2, "both full-credit choices are keys"
    outcome = box.locator('[data-role="outcome-feedback"]')
    assert outcome.inner_text() == single.feedback.partial
    assert "partial" in outcome.get_attribute("class")
    # Multiple choice: "2 of 4 right" (in the UI's Urdu) and the partly-right text.
    outcome = question_box(page, "cr-zero2-partitioned").locator('[data-role="outcome-feedback"]')
    assert outcome.locator('[data-role="num-correct"]').inner_text() == "4 میں سے 2 درست"
    assert multiple.feedback.partial in outcome.inner_text()
    assert loaded.errors == []


def test_negative_credit_marks_the_question_below_zero_not_the_quiz(open_page) -> None:
    page = credits_page(open_page).page
    pick(page, "cr-zero3-memory", 3)  # -0.5
    submit(page)
    assert results(page)["cr-zero3-memory"] == "incorrect"
    assert mark_text(page, "cr-zero3-memory") == "✗ غلط (-0.5/1)"
    assert score_text(page) == "0/12", "the quiz total is floored at 0"
    # The mark's numbers read left to right in the Urdu line (the minus stays before its digits).
    ltr = question_box(page, "cr-zero3-memory").locator('[data-role="mark"] bdi')
    assert ltr.evaluate("b => getComputedStyle(b).direction") == "ltr"
    page.locator('[data-action="retry"]').click()
    review_all(page)
    pick(page, "cr-zero3-memory", 3)
    pick(page, "cr-offload-cpu-adam", 0)
    question_box(page, "cr-offload-config-key").locator('[data-role="answer-input"]').fill(
        "offload_optimizer"
    )
    submit(page)
    assert score_text(page) == "1.5/12", "a negative mark counts against the others"


def test_hints_one_at_a_time_each_costing_the_penalty(open_page) -> None:
    quiz = credits_quiz()
    single = question_of(quiz, "cr-zero3-memory")  # penalty 0.25, 1 point, two hints
    loaded = credits_page(open_page)
    page = loaded.page
    box = question_box(page, "cr-zero3-memory")
    button = box.locator('[data-action="hint"]')
    hints = box.locator('[data-role="hints"]')
    assert button.is_visible() and button.inner_text() == "اشارہ دیکھیں (0.25 نمبر کی کٹوتی)"
    assert hints.get_attribute("aria-live") == "polite"
    assert single.hints[0].text not in page.locator("body").inner_text()
    pick(page, "cr-zero3-memory", 3)
    button.click()
    shown = hints.locator('[data-role="hint"]').all_inner_texts()
    assert shown == ["اشارہ 1 از 2\n\n" + single.hints[0].text]
    assert box.locator('input[data-choice-index="3"]').is_checked(), "the first hint keeps the response"
    assert button.is_visible()
    button.click()  # the second: clears the wrong pick, and is the last
    assert hints.locator('[data-role="hint"]').count() == 2
    assert not box.locator('input[data-choice-index="3"]').is_checked()
    assert not button.is_visible()
    assert page.evaluate("document.activeElement.dataset.role") == "hint", "focus moves to the last hint"
    pick(page, "cr-zero3-memory", 0)
    submit(page)
    assert results(page)["cr-zero3-memory"] == "correct"
    assert mark_text(page, "cr-zero3-memory") == "✓ درست (0.5/1) · لیے گئے اشارے: 2، −0.5"
    assert box.locator('[data-role="outcome-feedback"]').inner_text() == single.feedback.correct
    assert score_text(page) == "0.5/12"
    # Try again: no hint taken, the button back.
    page.locator('[data-action="retry"]').click()
    review_all(page)
    assert hints.locator('[data-role="hint"]').count() == 0 and button.is_visible()
    assert loaded.errors == []


def test_hint_counts_right_picks_and_costs_nothing_below_zero(open_page) -> None:
    page = credits_page(open_page).page
    box = question_box(page, "cr-zero2-partitioned")
    pick(page, "cr-zero2-partitioned", 0, 4)  # one right, one wrong
    box.locator('[data-action="hint"]').click()
    hint = box.locator('[data-role="hint"]')
    assert hint.locator('[data-role="num-correct"]').inner_text() == "4 میں سے 1 درست"
    assert hint.evaluate("h => getComputedStyle(h).direction") == "ltr"  # an English question
    label = hint.locator(".label")
    assert label.evaluate("l => getComputedStyle(l).direction") == "rtl"  # its Urdu heading
    submit(page)
    # 0.25 - 0.5 is clamped to 0: nothing left for the hint to cost, and the mark says no cost.
    assert mark_text(page, "cr-zero2-partitioned") == "✗ غلط (0/2)"


# typed, unit picked -> (result, mark, feedback shown): cr-zero3-7b-memory, 2 points, key
# 1.875 +- 0.03 GB (MB x 1000, GiB x 0.93), a wrong or missing unit loses 0.2 of the credit.
MEMORY_FORMS = {
    ("1875", 1): ("correct", "(2/2)", 0),
    ("1.875", 0): ("correct", "(2/2)", 0),
    ("1.746", 2): ("correct", "(2/2)", 0),
    ("۱٫۸۷۵", 0): ("correct", "(2/2)", 0),
    ("1.875", None): ("partial", "(1.6/2)", 0),
    ("1.40", 0): ("partial", "(1/2)", 1),
    ("1400", 1): ("partial", "(1/2)", 1),
    ("16.64", 0): ("incorrect", "(0/2)", 2),
    ("5", 0): ("incorrect", "(0/2)", "other"),
    ("1.875GB", 0): ("incorrect", "(0/2)", None),
}
# typed -> (result, mark, feedback): cr-bubble-cost, 1 point, $ 3000 +- 1 (or US$), units
# left of the number, typed with it; a wrong or missing unit loses 0.25 of the points.
BUBBLE_FORMS = {
    "$3000": ("correct", "(1/1)", 0),
    "US$ 3000": ("correct", "(1/1)", 0),
    "$ ۳۰۰۰": ("correct", "(1/1)", 0),
    "3000": ("partial", "(0.75/1)", 0),
    "€3000": ("partial", "(0.75/1)", 0),
    "$3692.31": ("partial", "(0.5/1)", 1),
    "3000$": ("incorrect", "(0/1)", None),
    "$100": ("incorrect", "(0/1)", "other"),
}


def _copies(question: Question, n: int, prefix: str) -> list[Question]:
    return [replace(question, id=f"{prefix}{i}", hints=()) for i in range(n)]


def _feedback_text(question: Question, which: int | str | None) -> str | None:
    assert isinstance(question.body, Numerical | ShortAnswer)
    if which is None:
        return None
    if which == "other":
        return question.body.other_feedback  # type: ignore[return-value]
    assert isinstance(which, int)
    items = question.body.keys if isinstance(question.body, Numerical) else question.body.answers
    return items[which].feedback  # type: ignore[return-value]


def test_numbers_typed_with_units(open_page) -> None:
    quiz = credits_quiz()
    memory = question_of(quiz, "cr-zero3-7b-memory")
    bubble = question_of(quiz, "cr-bubble-cost")
    assert isinstance(memory.body, Numerical) and isinstance(bubble.body, Numerical)
    questions = _copies(memory, len(MEMORY_FORMS), "m") + _copies(bubble, len(BUBBLE_FORMS), "b")
    page = open_page(quiz_html(replace(quiz, questions=tuple(questions)))).page
    review_all(page)
    for q, (typed, unit) in zip(questions, MEMORY_FORMS, strict=False):
        answer_number(question_box(page, q.id), memory.body, typed, unit)
    for q, typed in zip(questions[len(MEMORY_FORMS) :], BUBBLE_FORMS, strict=True):
        question_box(page, q.id).locator('[data-role="answer-input"]').fill(typed)
    submit(page)
    got = results(page)
    forms = [(memory, f, e) for f, e in MEMORY_FORMS.items()] + [
        (bubble, f, e) for f, e in BUBBLE_FORMS.items()
    ]
    for q, (source, form, (result, mark, which)) in zip(questions, forms, strict=True):
        box = question_box(page, q.id)
        feedback = box.locator('[data-role="feedback"]')
        shown = feedback.inner_text() if feedback.count() else None
        assert (got[q.id], mark_text(page, q.id).split(" ")[-1], shown) == (
            result, mark, _feedback_text(source, which),
        ), form  # fmt: skip
    # The key, with its unit, left to right in the Urdu question.
    key = question_box(page, "m0").locator(".key-line bdi")
    assert key.inner_text() == "1.875 ± 0.03 GB"
    group = question_box(page, "m0").locator(".with-unit")
    assert group.evaluate("g => getComputedStyle(g).direction") == "ltr"


def test_unit_radio_buttons_and_units_left(open_page) -> None:
    quiz = units_quiz()  # 16 GB (or 16000 MB); a wrong or missing unit loses 0.1 of the credit
    by_id = {q.id: q for q in quiz.questions}
    page = open_page(quiz_html(quiz)).page
    review_all(page)
    answers = {
        "n-text-False": ("16000 MB", None),
        "n-text-True": ("MB 16000", None),
        "n-select-False": ("16000", 1),
        "n-select-True": ("16", None),
        "n-choice-False": ("16000", 1),
        "n-choice-True": ("16", 0),
    }
    for qid, (typed, unit) in answers.items():
        body = by_id[qid].body
        assert isinstance(body, Numerical)
        answer_number(question_box(page, qid), body, typed, unit)
    submit(page)
    assert results(page) == {
        "n-text-False": "correct", "n-text-True": "correct", "n-select-False": "correct",
        "n-select-True": "partial", "n-choice-False": "correct", "n-choice-True": "correct",
    }  # fmt: skip
    assert mark_text(page, "n-select-True").endswith("(0.9/1)")


# typed -> (result, feedback): cr-offload-config-key, case-sensitive; the first answer that
# matches counts: "offload_param*" is a wildcard answer worth nothing, with its feedback.
SHORT_CREDIT_FORMS = {
    "offload_optimizer": ("correct", None),
    " zero_optimization.offload_optimizer ": ("correct", 1),
    "cpu_offload": ("partial", 2),
    "offload_param": ("incorrect", 3),
    "offload_parameters": ("incorrect", 3),
    "Offload_optimizer": ("incorrect", "other"),
    "offload_optimizer_x": ("incorrect", "other"),
}


def test_graded_short_answers_first_match_wildcards_and_other_feedback(open_page) -> None:
    quiz = credits_quiz()
    short = question_of(quiz, "cr-offload-config-key")
    stars = Question(
        id="stars",
        stem="s",
        body=ShortAnswer((Answer("a*b"), Answer(r"x\*y*", 0.5, wildcard=True))),
    )
    copies = _copies(short, len(SHORT_CREDIT_FORMS), "s") + _copies(stars, 5, "t")
    page = open_page(quiz_html(replace(quiz, questions=tuple(copies)))).page
    review_all(page)
    star_forms = {
        "a*b": "correct",
        "axxb": "incorrect",
        "x*yz": "partial",
        "x*y": "partial",
        "xyz": "incorrect",
    }
    for q, typed in zip(copies, [*SHORT_CREDIT_FORMS, *star_forms], strict=True):
        question_box(page, q.id).locator('[data-role="answer-input"]').fill(typed)
    submit(page)
    got = results(page)
    for q, (typed, (result, which)) in zip(copies, SHORT_CREDIT_FORMS.items(), strict=False):
        feedback = question_box(page, q.id).locator('[data-role="feedback"]')
        shown = feedback.inner_text() if feedback.count() else None
        assert (got[q.id], shown) == (result, _feedback_text(short, which)), typed
    assert [got[q.id] for q in copies[len(SHORT_CREDIT_FORMS) :]] == list(star_forms.values())
    # The accepted answers shown are the full-credit ones.
    key = question_box(page, "s0").locator(".key-line").inner_text()
    assert "offload_optimizer · zero_optimization.offload_optimizer" in key and "cpu_offload" not in key


@pytest.mark.parametrize("pick_true", [True, False])
def test_true_false_feedback(open_page, pick_true: bool) -> None:
    tf = question_of(credits_quiz(), "cr-offload-cpu-adam")
    assert isinstance(tf.body, TrueFalse)
    page = credits_page(open_page).page
    pick(page, tf.id, 0 if pick_true else 1)
    submit(page)
    feedback = question_box(page, tf.id).locator('[data-role="feedback"]')
    assert feedback.all_inner_texts() == [tf.body.feedback_true if pick_true else tf.body.feedback_false]


def test_essays_template_word_count_formats_and_no_grader_info(open_page) -> None:
    quiz = credits_quiz()
    essay = question_of(quiz, "cr-zero-or-tp-essay")
    assert isinstance(essay.body, Essay) and essay.body.template and essay.body.grader_info
    loaded = credits_page(open_page)
    page = loaded.page
    assert essay.body.grader_info not in page.content()
    for q in quiz.questions:
        assert q.name and q.name not in page.content(), q.name
    box = question_box(page, essay.id)
    textarea = box.locator("textarea")
    assert textarea.input_value() == essay.body.template
    count = box.locator('[data-role="word-count"]')
    assert count.inner_text() == "الفاظ: 12 (مطلوبہ سے کم الفاظ)"
    textarea.fill(" ".join(["لفظ"] * 70))
    assert count.inner_text() == "الفاظ: 70"
    textarea.fill(" ".join(["word"] * 251))
    assert count.inner_text() == "الفاظ: 251 (مطلوبہ سے زیادہ الفاظ)"
    assert "off-limits" in count.get_attribute("class")
    submit(page)
    assert box.locator('[data-role="essay-copy"]').is_visible()
    page.locator('[data-action="retry"]').click()
    assert textarea.input_value() == essay.body.template, "try again starts from the template"
    assert count.inner_text() == "الفاظ: 12 (مطلوبہ سے کم الفاظ)"
    # Response formats: monospaced, plain, none (no box at all, and submitting still works).
    other = open_page(quiz_html(essays_quiz())).page
    review_all(other)
    font = question_box(other, "e-mono").locator("textarea").evaluate("t => getComputedStyle(t).fontFamily")
    assert "mono" in font.lower()
    assert question_box(other, "e-plain").locator("textarea").input_value() == "\nline 1\nline 2"
    assert question_box(other, "e-none").locator("textarea").count() == 0
    assert "GRADER-ONLY" not in other.content()
    submit(other)
    assert results(other)["e-none"] == "ungraded"
    assert loaded.errors == []


# --- accessibility: axe-core in the page -------------------------------------------------------


AXE_KNOWN = {"rich-text": {"label": "choices that are only a formula"}}
"""Rules a page is known to fail, and why. Chromium leaves MathML out of accessible names (a
radio whose label is one <math> gets the name "", one with text and a formula only the text),
and neither the TeX annotation nor `alttext` stands in; only an aria-label on <math> does,
which would hide the MathML from screen readers that read it. Open: a spoken form of each
formula for its label."""


def _axe_violations(page: sync_api.Page, skip: Iterable[str] = ()) -> list[tuple[str, list]]:
    axe = pytest.importorskip("axe_playwright_python.base", reason="axe-playwright-python is not installed")
    # Evaluated through the DevTools protocol, which the page's CSP does not govern.
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(axe.AXE_SCRIPT)
    rules = {rule: {"enabled": False} for rule in skip}
    found = page.evaluate("rules => axe.run(document, {resultTypes: ['violations'], rules})", rules)
    return [(v["id"], [n["target"] for n in v["nodes"]]) for v in found["violations"]]


def _axe_pages() -> dict[str, bytes]:
    bank, exam = final_exam()
    pages = {
        "credits": quiz_html(credits_quiz()),
        "units": quiz_html(units_quiz()),
        "essays": quiz_html(essays_quiz()),
        "all-types": quiz_html(make_types_quiz()),
        "final-exam": page_html(bank, exam.id),
        "rich-text": quiz_html(rich_pages()["rich-text"][1]),
    }
    pages.update({q.id: quiz_html(q) for q in _bank(REPO / "source").quizzes})
    return pages


@pytest.mark.parametrize("name", list(_axe_pages()))
def test_axe_finds_nothing(open_page, name: str) -> None:
    """axe-core's WCAG checks on each page: one question at a time, all of them, with every
    hint taken and answered (mixed right and wrong), and after submitting."""
    loaded = open_page(_axe_pages()[name], name=f"{name}.html", query="?seed=1")
    page = loaded.page
    known = AXE_KNOWN.get(name, {})
    assert _axe_violations(page, known) == [], "one at a time"
    review_all(page)
    assert _axe_violations(page, known) == [], "review all"
    for button in page.locator('[data-action="hint"]').all():
        while button.is_visible():
            button.click()
    shown = {qid for qid in shown_attempt(page).ids}
    for i, pq in enumerate(page_questions(_page_of(name))):
        if pq.question.id in shown:
            answer(page, pq.question, correct=i % 3 != 1)
    assert _axe_violations(page, known) == [], "hints taken, answered"
    submit(page)
    assert _axe_violations(page, known) == [], "submitted"
    assert loaded.errors == []
    if known:
        assert {rule for rule, _ in _axe_violations(page)} == set(known), "a known failure is gone"


def _page_of(name: str) -> Quiz | Assessment:
    if name == "final-exam":
        return final_exam()[1]
    named = {
        "credits": credits_quiz,
        "units": units_quiz,
        "essays": essays_quiz,
        "all-types": make_types_quiz,
    }
    if name in named:
        return named[name]()
    if name == "rich-text":
        return rich_pages()["rich-text"][1]
    return next(q for q in _bank(REPO / "source").quizzes if q.id == name)
