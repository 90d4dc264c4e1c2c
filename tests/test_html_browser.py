"""The HTML quiz in a real browser: headless Chromium driven by Playwright.

Pages are written to tmp_path and opened from file://, as a learner would open them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import (
    CHROMIUM_ARGS,
    DESKTOP,
    PHONE,
    answer,
    answer_all,
    auto_points,
    chromium_path,
    question_box,
    review_all,
    submit,
)
from conftest import make_types_quiz
from test_html_writer import PAYLOADS, hostile_quiz, seed_bank

from lmsexport.model import Bank, NumericKey, Question, QuestionType, Quiz
from lmsexport.writers import WriteContext
from lmsexport.writers.html import format_number, write

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip("no chromium binary: run scripts/ensure-chromium.sh", allow_module_level=True)

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"


@pytest.fixture(scope="session")
def browser() -> Iterator[sync_api.Browser]:
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

    def _open(html: bytes, name: str = "quiz.html", viewport: dict | None = None, js: bool = True) -> Loaded:
        path = tmp_path / name
        path.write_bytes(html)
        context = browser.new_context(viewport=viewport or DESKTOP, java_script_enabled=js)
        contexts.append(context)
        page = context.new_page()
        loaded = Loaded(page, path.as_uri())
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
    return list(seed_bank().quizzes)


def score_text(page: sync_api.Page) -> str:
    return page.locator('[data-role="score"]').inner_text()


def results(page: sync_api.Page) -> dict[str, str | None]:
    return page.eval_on_selector_all(
        "section[data-question-id]",
        "els => Object.fromEntries(els.map(e => [e.dataset.questionId, e.dataset.result ?? null]))",
    )


def expected_result(q: Question, correct: bool) -> str:
    if q.type is QuestionType.ESSAY:
        return "ungraded"
    return "correct" if correct else "incorrect"


def check_all(loaded: Loaded, quiz: Quiz, correct: bool) -> None:
    page = loaded.page
    answer_all(page, quiz, correct)
    submit(page)
    total = format_number(auto_points(quiz))
    assert score_text(page) == (f"{total}/{total}" if correct else f"0/{total}")
    assert results(page) == {q.id: expected_result(q, correct) for q in quiz.questions}
    assert loaded.errors == []


@pytest.mark.parametrize("correct", [True, False], ids=["all-keyed", "all-wrong"])
def test_types_quiz_scores_all_right_and_all_wrong(open_page, correct: bool) -> None:
    quiz = make_types_quiz()
    check_all(open_page(quiz_html(quiz)), quiz, correct)


@pytest.mark.parametrize("correct", [True, False], ids=["all-keyed", "all-wrong"])
def test_seed_quizzes_score_all_right_and_all_wrong(open_page, correct: bool) -> None:
    quizzes = seed_quizzes()
    assert len(quizzes) == 3
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
    earned = question.points if correct and question.type is not QuestionType.ESSAY else 0
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
    assert results(page)["t-multiple"] == "incorrect"
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
    assert results(page)["t-matching"] == "incorrect"
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
        Question(f"n{i}", QuestionType.NUMERICAL, f"بارہ؟ {typed!r}", numeric=key)
        for i, typed in enumerate(NUMBER_FORMS)
    )
    # 1.1 - 0.1 is 1.0000000000000002 in floating point: typing 1 must still be right.
    edge = Question("edge", QuestionType.NUMERICAL, "range", numeric=NumericKey(answer=1.1, tolerance=0.1))
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
        questions.append(Question(f"ci{i}", QuestionType.SHORT_ANSWER, "any case", answers=("Café", "FSDP")))
        questions.append(
            Question(f"cs{i}", QuestionType.SHORT_ANSWER, "case", answers=("FSDP",), case_sensitive=True)
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
    texts += [c.feedback for q in quiz.questions for c in q.choices if c.feedback]
    return texts


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
    quizzes = [make_types_quiz(), *seed_quizzes()]
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
