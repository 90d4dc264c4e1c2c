"""Playwright/Chromium helpers shared by the browser tests.

Playwright's own browser download is unreachable here, so tests drive the system Chromium
(scripts/ensure-chromium.sh installs it) through `executable_path`. The flags stop Chromium
from phoning home, which on a closed network floods the log with refused connections.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from lmsexport.model import Question, QuestionType, Quiz

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def chromium_path() -> str | None:
    """The system Chromium, or None when it is not installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    fallback = Path("/usr/bin/chromium")
    return str(fallback) if fallback.exists() else None


def question_box(page: Page, question_id: str) -> Locator:
    return page.locator(f'section[data-question-id="{question_id}"]')


def _wrong_number(question: Question) -> str:
    assert question.numeric is not None
    _, hi = question.numeric.bounds
    return repr(hi + 1 + abs(hi))


def _answer_choices(box: Locator, indexes: Iterable[int]) -> None:
    for i in indexes:
        box.locator(f'input[data-choice-index="{i}"]').check()


def _answer_matching(box: Locator, question: Question, correct: bool) -> None:
    rights = [p.right for p in question.pairs]
    others = rights + list(question.distractors)
    for i, pair in enumerate(question.pairs):
        if correct:
            target = pair.right
        else:
            # Any other right-hand text: a rotation of the rights, or a distractor.
            wrong = [t for t in others if t != pair.right]
            if not wrong:
                continue
            target = wrong[0]
        box.locator(f'select[data-pair-index="{i}"]').select_option(label=target)


def answer(page: Page, question: Question, correct: bool) -> None:
    """Answer one question through its form controls: the key, or something scoring 0."""
    box = question_box(page, question.id)
    t = question.type
    if t is QuestionType.SINGLE:
        indexes = (
            question.correct_indexes[:1]
            if correct
            else [i for i, c in enumerate(question.choices) if not c.correct][:1]
        )
        _answer_choices(box, indexes)
    elif t is QuestionType.MULTIPLE:
        _answer_choices(box, [i for i, c in enumerate(question.choices) if c.correct == correct])
    elif t is QuestionType.TRUE_FALSE:
        _answer_choices(box, [0 if question.truth == correct else 1])
    elif t is QuestionType.SHORT_ANSWER:
        text = f"  {question.answers[0]} " if correct else "definitely not the answer"
        box.locator('[data-role="answer-input"]').fill(text)
    elif t is QuestionType.NUMERICAL:
        assert question.numeric is not None
        lo, hi = question.numeric.bounds
        text = repr((lo + hi) / 2) if correct else _wrong_number(question)
        box.locator('[data-role="answer-input"]').fill(text)
    elif t is QuestionType.MATCHING:
        _answer_matching(box, question, correct)
    else:
        box.locator('[data-role="answer-input"]').fill("An essay answer.\nSecond line.")


def review_all(page: Page) -> None:
    """Switch to the all-questions view so that every question's controls are visible."""
    toggle = page.locator('[data-action="toggle-view"]')
    if page.locator("section[data-question-id]:not([hidden])").count() < 2:
        toggle.click()


def answer_all(page: Page, quiz: Quiz, correct: bool) -> None:
    review_all(page)
    for question in quiz.questions:
        answer(page, question, correct)


def submit(page: Page) -> None:
    page.locator('[data-action="submit"]').click()
    page.locator('[data-role="score"]').wait_for(state="visible")


def auto_points(quiz: Quiz) -> float:
    return sum(q.points for q in quiz.questions if q.type is not QuestionType.ESSAY)
