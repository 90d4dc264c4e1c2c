"""check's round trips report what a written file lost: a question missing or changed (naming
its fields) or the quiz's own fields, with the rule of the format."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lmsexport.build import build, gift_round_trip, moodlexml_round_trip
from lmsexport.model import Bank, SingleChoice
from lmsexport.source import load_paths

ROOT = Path(__file__).resolve().parents[1]
CHECKS = {
    "gift": (gift_round_trip, "gift/zero-sharded-optimizers.gift.txt", "gift.round-trip"),
    "moodlexml": (moodlexml_round_trip, "moodle/zero-sharded-optimizers.xml", "moodlexml.round-trip"),
}


@pytest.fixture(scope="module")
def bank() -> Bank:
    return Bank(load_paths([ROOT / "source" / "zero-sharded-optimizers.yaml"]).quizzes)


@pytest.mark.parametrize("fmt", sorted(CHECKS))
def test_a_faithful_file_reads_back_clean(bank: Bank, fmt: str) -> None:
    check, _, _ = CHECKS[fmt]
    assert check(bank, build(bank, [fmt])) == []


@pytest.mark.parametrize("fmt", sorted(CHECKS))
def test_a_changed_choice_is_named(bank: Bank, fmt: str) -> None:
    check, path, rule = CHECKS[fmt]
    out = build(bank, [fmt])
    body = bank.quizzes[0].questions[0].body
    assert isinstance(body, SingleChoice)
    choice = body.choices[1].text
    assert isinstance(choice, str) and out.files[path].count(choice.encode()) >= 1
    out.files[path] = out.files[path].replace(choice.encode(), b"something else", 1)
    (d,) = check(bank, out)
    q = bank.quizzes[0].questions[0]
    assert d.rule == rule and d.loc == q.loc
    assert d.message == f"question '{q.id}' read back from {path} differs in choices"


@pytest.mark.parametrize("fmt", sorted(CHECKS))
def test_a_question_missing_or_the_quiz_changed_is_named(bank: Bank, fmt: str) -> None:
    check, path, rule = CHECKS[fmt]
    quiz = bank.quizzes[0]
    extra = replace(quiz.questions[0], id="not-written")
    claimed = Bank((replace(quiz, questions=(*quiz.questions, extra)),))
    diags = check(claimed, build(bank, [fmt]))
    assert [d.message for d in diags] == [f"question 'not-written' read back from {path} is missing"]
    retitled = Bank((replace(quiz, title="another title"),))
    (d,) = check(retitled, build(bank, [fmt]))
    assert (d.rule, d.message) == (rule, f"quiz '{quiz.id}' read back from {path} differs in title")
