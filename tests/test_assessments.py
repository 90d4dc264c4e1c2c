"""Assessments: every draw rule of the source format, resolution against the bank, and what
`check` reports. Errors are in the bad-input corpus (tests/bad/yaml/assessment-*)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lmsexport.assessments import describe, summarize
from lmsexport.cli import app
from lmsexport.errors import SourceError
from lmsexport.model import Assessment, Difficulty, QuestionType
from lmsexport.source import load_paths, load_text

ROOT = Path(__file__).resolve().parents[1]

BANK = {
    "a.yaml": """
id: quiz-a
title: "A"
lang: ur
difficulty: hard
category: "course/zero"
questions:
  - {id: a1, stem: s, explanation: e, tags: [zero, memory], choices: [{text: x, correct: true}, {text: y}]}
  - {id: a2, type: true_false, stem: "s", explanation: "e", tags: [zero], answer: true, difficulty: easy}
  - {id: a3, type: essay, stem: "s", explanation: "e", tags: [memory], points: 4}
  - {id: a4, type: essay, lang: en, stem: "s", explanation: "e", tags: [pipeline]}
""",
    "b.yaml": """
id: quiz-b
title: "B"
lang: en
category: "course/zero-extra/deep"
questions:
  - {id: b1, stem: "s", explanation: "e", tags: [zero], choices: [{text: x, correct: true}, {text: y}]}
  - {id: b2, type: short_answer, stem: "s", explanation: "e", tags: [pipeline], answers: [x]}
  - {id: b3, type: numerical, stem: "s", explanation: "e", answer: 3, difficulty: hard}
""",
}


def _bank(tmp_path: Path, exam: str):
    for name, text in BANK.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "exam.yaml").write_text(exam, encoding="utf-8")
    return load_paths([tmp_path])


def _draw_ids(tmp_path: Path, pool: str) -> list[str]:
    bank = _bank(
        tmp_path,
        f"""
id: exam
title: "E"
lang: ur
sections:
  - draws:
      - {{name: p, pick: 1, from: {pool}}}
""",
    )
    (assessment,) = bank.assessments
    return [c.question.id for c in assessment.draws[0].candidates]


@pytest.mark.parametrize(
    ("pool", "expected"),
    [
        ("{}", ["a1", "a2", "a3", "a4", "b1", "b2", "b3"]),
        ("{tags: [zero]}", ["a1", "a2", "b1"]),
        ("{tags: [zero, memory]}", ["a1"]),  # all of
        ("{tags: zero}", ["a1", "a2", "b1"]),  # one value without a list
        ("{any_tags: [memory, pipeline]}", ["a1", "a3", "a4", "b2"]),
        ("{tags: [zero], any_tags: [memory, pipeline]}", ["a1"]),
        ("{category: course/zero}", ["a1", "a2", "a3", "a4"]),  # a prefix of whole parts: not zero-extra
        ("{category: course}", ["a1", "a2", "a3", "a4", "b1", "b2", "b3"]),
        ("{category: course/zero-extra/}", ["b1", "b2", "b3"]),
        ("{quiz: quiz-b}", ["b1", "b2", "b3"]),
        ("{quiz: [quiz-a, quiz-b], type: essay}", ["a3", "a4"]),
        ("{type: [single, true_false]}", ["a1", "a2", "b1"]),
        ("{difficulty: hard}", ["a1", "a3", "a4", "b3"]),  # a2 is easy itself; b has no difficulty but b3
        ("{difficulty: [easy, medium]}", ["a2"]),
        ("{lang: en}", ["a4", "b1", "b2", "b3"]),  # a4 is English in an Urdu quiz
        ("{lang: [UR]}", ["a1", "a2", "a3"]),
    ],
)
def test_pool_conditions(tmp_path: Path, pool: str, expected: list[str]) -> None:
    assert _draw_ids(tmp_path, pool) == expected


def test_explicit_draws_keep_their_order_points_and_home_quiz(tmp_path: Path) -> None:
    bank = _bank(
        tmp_path,
        """
id: exam
title: "E"
lang: en
description: "d"
sections:
  - title: "One"
    shuffle: true
    draws:
      - {questions: [b2, a3, a1], points: 2}
      - {name: rest, pick: 2, from: {quiz: quiz-b, type: [single, numerical]}}
""",
    )
    (exam,) = bank.assessments
    assert isinstance(exam, Assessment)
    (section,) = exam.sections
    assert section.title == "One" and section.shuffle
    listed, pool = section.draws
    assert listed.name == "section1-draw1" and listed.pick is None and listed.pool is None
    assert [c.question.id for c in listed.candidates] == ["b2", "a3", "a1"]
    assert [c.quiz.id for c in listed.candidates] == ["quiz-b", "quiz-a", "quiz-a"]
    assert all(c.quiz.questions == () for c in listed.candidates), "candidates carry quiz headers"
    assert [listed.points_of(c.question) for c in listed.candidates] == [2, 2, 2]
    assert [pool.points_of(c.question) for c in pool.candidates] == [1, 1]
    assert exam.question_count == 5 and exam.total_points == 8
    assert pool.pool is not None and pool.pool.types == (QuestionType.SINGLE, QuestionType.NUMERICAL)


def test_points_vary_when_a_pool_mixes_points(tmp_path: Path) -> None:
    bank = _bank(
        tmp_path, "id: exam\ntitle: E\nlang: ur\nsections:\n  - draws: [{pick: 1, from: {type: essay}}]\n"
    )
    (exam,) = bank.assessments
    assert exam.total_points is None  # a3 is worth 4, a4 1
    assert describe(summarize(exam))[0].endswith("points vary with the draw")


def test_question_difficulty_defaults_to_its_quiz(tmp_path: Path) -> None:
    bank = _bank(tmp_path, "id: exam\ntitle: E\nlang: ur\nsections:\n  - draws: [{questions: [a1]}]\n")
    quiz_a = bank.quizzes[0]
    a1, a2 = quiz_a.questions[:2]
    assert a1.difficulty is None and quiz_a.difficulty_of(a1) is Difficulty.HARD
    assert a2.difficulty is Difficulty.EASY


def test_a_difficulty_equal_to_the_quiz_is_dropped() -> None:
    quiz = load_text(
        "id: q\ntitle: T\nlang: ur\ndifficulty: hard\nquestions:\n"
        "  - {id: x, type: essay, stem: s, explanation: e, difficulty: hard}\n",
        "q.yaml",
    )
    assert quiz.questions[0].difficulty is None  # type: ignore[union-attr]


def test_an_assessment_alone_cannot_resolve(tmp_path: Path) -> None:
    (tmp_path / "exam.yaml").write_text(
        "id: exam\ntitle: E\nlang: ur\nsections:\n  - draws: [{questions: [x]}]\n", encoding="utf-8"
    )
    with pytest.raises(SourceError) as e:
        load_paths([tmp_path])
    assert "exam.yaml:5:26: error: no question has the id 'x'" in str(e.value)


def test_check_reports_pools_and_sizes_of_the_seed_exam() -> None:
    result = CliRunner().invoke(app, ["check", str(ROOT / "source")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "assessment 'final-exam': 2 sections, 8 questions per attempt, 15 points"
    assert "  pool 'zero': 9 questions, picks 3" in lines
    assert lines[-1].startswith("ok: 5 quizzes, 1 assessment, 41 questions")
    report = json.loads(CliRunner().invoke(app, ["check", str(ROOT / "source"), "-r", "json"]).stdout)
    (exam,) = report["assessments"]
    assert report["counts"]["assessments"] == 1
    assert exam["id"] == "final-exam" and exam["questions_per_attempt"] == 8 and exam["points"] == 15
    assert {"name": "zero", "kind": "pool", "questions": 9, "pick": 3, "points": 2.0} in exam["draws"]
