"""The Common Cartridge 1.1 as Moodle's course restore reads it: tests/php/cc11_moodle_reads.php
repeats, with PHP's own DOM and libxml2, the reads of Moodle's CC 1.1 converter (format
detection on the manifest's first 500 bytes, the manifest validated against Moodle's
cc11libxml2validator.xsd, each quiz's questions by the XPath queries of backup/cc/
entity11.quiz.class.php, images resolved as entities.class.php update_sources resolves them).

Needs the ``php`` command with its dom extension (Debian: php-cli, php-xml;
scripts/ensure-php.sh installs them); skipped without it.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from lmsexport.build import build
from lmsexport.model import Bank, Matching, Numerical, Question, QuestionType, SingleChoice, TrueFalse
from lmsexport.source import load_paths
from lmsexport.writers import cc13, qti12

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "tests" / "php" / "cc11_moodle_reads.php"
SCHEMAS = ROOT / "schemas"
PHP = shutil.which("php")
pytestmark = pytest.mark.skipif(PHP is None, reason="no php command: run scripts/ensure-php.sh")
CASES = ROOT / "tests" / "cases"


def moodle_reads(cartridge: bytes, tmp: Path) -> dict:  # type: ignore[type-arg]
    folder = tmp / "cartridge"
    with zipfile.ZipFile(io.BytesIO(cartridge)) as zf:
        zf.extractall(folder)
    assert PHP is not None
    run = subprocess.run(
        [
            PHP,
            str(HARNESS),
            str(folder),
            str(SCHEMAS / "cc" / "v1p1" / "cc11libxml2validator.xsd"),
            str(SCHEMAS / "locations.json"),
        ],
        capture_output=True,
        check=True,
        timeout=120,
    )
    assert b"getaddrinfo" not in run.stderr, run.stderr  # nothing was fetched
    result: dict = json.loads(run.stdout)  # type: ignore[type-arg]
    return result


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_paths(
        [CASES / "types" / "bank.yaml", CASES / "types" / "exam.yaml", CASES / "rich" / "bank.yaml"]
    )


def moodle_questions(question: Question, points: float) -> list[tuple[str, str, int]]:
    """(ident, Moodle type, default grade) of what Moodle's importer makes of a question."""
    grade = int(points) if points == int(points) and 1 <= points <= 99 else 1  # get_defaultgrade
    body = question.body
    if isinstance(body, Matching):
        share = points / len(body.pairs)
        part = int(share) if share == int(share) and 1 <= share <= 99 else 1
        if len(qti12.matching_rights(body)) < 2:
            return [(question.id, "essay", grade)]
        return [(f"{question.id}-{i}", "multichoice", part) for i in range(1, len(body.pairs) + 1)]
    if isinstance(body, Numerical):
        return [(question.id, "shortanswer" if body.key.answer is not None else "essay", grade)]
    kind = {
        QuestionType.SINGLE: "multichoice",
        QuestionType.MULTIPLE: "multichoice",
        QuestionType.TRUE_FALSE: "truefalse",
        QuestionType.SHORT_ANSWER: "shortanswer",
        QuestionType.ESSAY: "essay",
    }[question.type]
    return [(question.id, kind, grade)]


def test_moodle_detects_validates_and_reads_every_question(bank: Bank, tmp_path: Path) -> None:
    out = build(bank, ["cc11"]).files["cc11/bank-cc11.imscc"]
    reads = moodle_reads(out, tmp_path)
    assert reads["detected"] is True
    assert reads["valid"] is True, reads["errors"]
    got = {
        quiz["resource"]: [(q["ident"], q["moodle_type"], q["defaultgrade"]) for q in quiz["questions"]]
        for quiz in reads["quizzes"]
    }
    expected = {
        f"RES-{quiz.id}": [m for q in quiz.questions for m in moodle_questions(q, q.points)]
        for quiz in bank.quizzes
    }
    for exam in bank.assessments:
        expected[f"RES-{exam.id}"] = [
            m
            for d in exam.draws
            for c in d.candidates
            for m in moodle_questions(c.question, d.points_of(c.question))
        ]
    assert got == expected
    titles = {quiz["resource"]: quiz["title"] for quiz in reads["quizzes"]}
    assert titles == {f"RES-{q.id}": q.title for q in (*bank.quizzes, *bank.assessments)}
    for quiz in reads["quizzes"]:
        for q in quiz["questions"]:
            if q["moodle_type"] == "truefalse":  # anything else makes Moodle's importer throw
                assert q["answers"] == ["true", "false"]
            for image in q["images"]:
                assert image["exists"], image
    # No question bank (CC 1.1 allows one; Moodle makes a category of every quiz anyway), and
    # the images are course files.
    assert reads["banks"] == 0
    media = {m.filename for quiz in bank.quizzes for m in qti12.quiz_media(quiz).values()}
    assert sorted(reads["course_files"]) == sorted(cc13.media_path(n) for n in media)
    assert any(q["images"] for quiz in reads["quizzes"] for q in quiz["questions"])


def test_a_two_choice_question_is_what_moodle_takes(tmp_path: Path) -> None:
    """CC 1.1 wants three choices for a multiple choice (rule 4d): two are written as
    multiple-response, which Moodle reads as a multichoice question with both choices."""
    quiz = load_paths([CASES / "types" / "bank.yaml"]).quizzes[0]
    from dataclasses import replace

    single = next(q for q in quiz.questions if q.type is QuestionType.SINGLE)
    body = single.body
    assert isinstance(body, SingleChoice)
    choices = body.choices[:2] if body.choices[0].full else body.choices[1:3]
    two = replace(single, body=replace(body, choices=choices))
    bank = Bank((replace(quiz, questions=(two,)),))
    out = build(bank, ["cc11"])
    assert [w.rule for w in out.warnings if w.rule.endswith("few-choices")] == ["cc11.few-choices"]
    reads = moodle_reads(out.files["cc11/bank-cc11.imscc"], tmp_path)
    ((question,),) = [quiz["questions"] for quiz in reads["quizzes"]]
    assert (question["cc_profile"], question["moodle_type"], len(question["answers"])) == (
        "cc.multiple_response.v0p1",
        "multichoice",
        2,
    )


def test_moodle_does_not_take_the_13_cartridge(bank: Bank, tmp_path: Path) -> None:
    """Why there is a 1.1 cartridge: Moodle's detection does not recognise a 1.3 manifest."""
    reads = moodle_reads(build(bank, ["cc13"]).files["cc/bank.imscc"], tmp_path)
    assert reads["detected"] is False


def test_what_moodle_keeps_of_credits_names_and_feedback(tmp_path: Path) -> None:
    """The credits bank (tests/cases/credits) as Moodle's restore reads it: the names (@title,
    which Moodle's own CC export writes too), right choices 100 % and the partly right ones 0 %
    (never a second right answer), true/false feedback per answer, the feedback on a right
    response as the right choice's; the wrong-response feedback and a right short answer's
    feedback do not arrive, as the cc11 warnings say."""
    bank = load_paths([CASES / "credits" / "credits.yaml"])
    (quiz,) = bank.quizzes
    out = build(bank, ["cc11"])
    reads = moodle_reads(out.files["cc11/bank-cc11.imscc"], tmp_path)
    assert reads["valid"] is True, reads["errors"]
    got = {q["ident"]: q for q in reads["quizzes"][0]["questions"]}
    by_id = {q.id: q for q in quiz.questions}
    for qid, q in by_id.items():
        if q.type is not QuestionType.MATCHING:
            assert got[qid]["name"] == q.name
    assert got["cr-parallelism-comm-1"]["name"] == f"{by_id['cr-parallelism-comm'].name} (1)"

    single = got["cr-zero3-memory"]
    assert [c["fraction"] for c in single["choices"]] == [1, 1, 0, 0, 0]
    correct = by_id["cr-zero3-memory"].feedback.correct
    incorrect = by_id["cr-zero3-memory"].feedback.incorrect
    assert isinstance(correct, str) and isinstance(incorrect, str)
    assert [correct in c["feedback"] for c in single["choices"]] == [True, True, False, False, False]
    assert incorrect not in single["general_feedback"] + "".join(c["feedback"] for c in single["choices"])

    tf = got["cr-offload-cpu-adam"]
    body = by_id["cr-offload-cpu-adam"].body
    assert isinstance(body, TrueFalse) and body.feedback_true and body.feedback_false
    assert [(c["ident"], c["fraction"]) for c in tf["choices"]] == [("true", 1), ("false", 0)]
    assert (
        body.feedback_true in tf["choices"][0]["feedback"]
        and body.feedback_false in tf["choices"][1]["feedback"]
    )

    short = got["cr-offload-config-key"]
    assert [(c["ident"], c["fraction"], c["feedback"]) for c in short["choices"]] == [
        ("offload_optimizer", 1, ""),
        ("zero_optimization.offload_optimizer", 1, ""),  # its feedback is lost in Moodle
    ]
    assert [c["ident"] for c in got["cr-zero3-7b-memory"]["choices"]] == ["1.875"]
    rules = {(w.message.split("'")[1], w.rule) for w in out.warnings}
    assert ("cr-offload-config-key", "cc11.answer-feedback-not-carried") in rules
    assert ("cr-zero3-memory", "cc11.feedback-not-carried") in rules
    assert ("cr-zero3-memory", "cc11.credit-not-carried") in rules


def test_moodle_takes_each_part_of_the_new_kinds(tmp_path: Path) -> None:
    """Issue 23's kinds in the 1.1 cartridge as Moodle's restore reads them (tests/cases/structured):
    each cloze blank a question of its own (a text or number blank shortanswer, a choice blank
    multichoice), each ordering item a multichoice question whose choices are the positions, no
    question for a description (the profile has no text-only item); every image found."""
    from lmsexport.model import ChoiceBlank, Cloze, Description, Ordering

    bank = load_paths([CASES / "structured"])
    reads = moodle_reads(build(bank, ["cc11"]).files["cc11/bank-cc11.imscc"], tmp_path)
    assert reads["detected"] is True and reads["valid"] is True, reads["errors"]
    got = {quiz["resource"]: quiz["questions"] for quiz in reads["quizzes"]}
    for quiz in bank.quizzes:
        questions = {q["ident"]: q for q in got[f"RES-{quiz.id}"]}
        expected: dict[str, str] = {}
        for q in quiz.questions:
            match q.body:
                case Description():
                    assert not any(i == q.id or i.startswith(f"{q.id}-") for i in questions)
                case Cloze(blanks=blanks):
                    for n, b in enumerate(blanks, 1):
                        ident = q.id if len(blanks) == 1 else f"{q.id}-{n}"
                        expected[ident] = "multichoice" if isinstance(b, ChoiceBlank) else "shortanswer"
                case Ordering(items=its):
                    for i in range(1, len(its) + 1):
                        expected[f"{q.id}-{i}"] = "multichoice"
                        answers = sorted(questions[f"{q.id}-{i}"]["answers"], key=lambda a: str(a))
                        assert len(answers) == len(its)
                case _:
                    pass
        assert {i: questions[i]["moodle_type"] for i in expected} == expected
        for q in questions.values():
            for image in q["images"]:
                assert image["exists"], image
