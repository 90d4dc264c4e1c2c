"""The seed quizzes in source/*.yaml are faithful transcriptions of ../shared/seeds.

Every stem, choice text and title must occur verbatim (same Unicode characters) in the
seed pages they were transcribed from; each question must be keyed and explained.
Reads the YAML with PyYAML directly, independently of lmsexport's own loader.
"""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

REPO = Path(__file__).resolve().parents[1]
SOURCE_DIR = REPO / "source"
SEEDS_DIR = Path(__file__).resolve().parents[2] / "shared" / "seeds"

EXPECTED_QUIZZES = {
    "deepspeed-megatron-stacks": "000_",
    "model-pipeline-parallelism": "001_",
    "zero-sharded-optimizers": "002_",
}
QUESTIONS_PER_QUIZ = 8
CHOICES_PER_QUESTION = 4

SOURCE_FILES = [SOURCE_DIR / f"{quiz_id}.yaml" for quiz_id in sorted(EXPECTED_QUIZZES)]
"""The seed quizzes' files. source/ holds more (a fourth quiz written here, not transcribed, and
an assessment drawing from the seeds): tests/test_markdown.py and test_assessments.py cover them."""


def _seed_texts() -> dict[str, str]:
    """Seed file name -> its text; skips the test when the seeds are not available."""
    if not SEEDS_DIR.is_dir():
        pytest.skip(
            f"../shared/seeds not found: expected the seed pages at {SEEDS_DIR} "
            "(a checkout outside the shared workspace has no seeds to compare with)"
        )
    texts = {p.name: p.read_text(encoding="utf-8") for p in sorted(SEEDS_DIR.glob("*.txt"))}
    if not texts:
        pytest.skip(f"../shared/seeds not found: {SEEDS_DIR} holds no *.txt seed pages")
    return texts


def _load(path: Path) -> dict:
    raw = path.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf"), f"{path.name}: starts with a UTF-8 BOM"
    assert b"\r" not in raw, f"{path.name}: has CR line endings, expected LF only"
    data = yaml.safe_load(raw.decode("utf-8"))
    assert isinstance(data, dict), f"{path.name}: top level is not a mapping"
    return data


def _seed_of(quiz: dict, seeds: dict[str, str]) -> tuple[str, str]:
    prefix = EXPECTED_QUIZZES.get(quiz.get("id"))
    assert prefix is not None, f"unexpected quiz id {quiz.get('id')!r}"
    names = [n for n in seeds if n.startswith(prefix)]
    assert len(names) == 1, f"quiz {quiz['id']}: expected one seed named {prefix}*, found {names}"
    return names[0], seeds[names[0]]


def test_quiz_set_and_question_count() -> None:
    missing = [p.name for p in SOURCE_FILES if not p.is_file()]
    assert not missing, f"seed quizzes missing from {SOURCE_DIR}: {missing}"
    quizzes = [_load(p) for p in SOURCE_FILES]
    ids = sorted(q.get("id") for q in quizzes)
    assert ids == sorted(EXPECTED_QUIZZES), f"quiz ids {ids} != expected {sorted(EXPECTED_QUIZZES)}"
    for path, quiz in zip(SOURCE_FILES, quizzes, strict=True):
        assert path.stem == quiz["id"], f"{path.name}: file name does not match quiz id {quiz['id']!r}"
    total = sum(len(q.get("questions") or []) for q in quizzes)
    assert total == len(EXPECTED_QUIZZES) * QUESTIONS_PER_QUIZ, (
        f"expected 24 questions in total, found {total}"
    )


def test_question_ids_unique_across_files() -> None:
    seen: dict[str, str] = {}
    duplicates = []
    for path in SOURCE_FILES:
        for question in _load(path).get("questions") or []:
            qid = question.get("id")
            if qid in seen:
                duplicates.append(f"{qid} ({seen[qid]} and {path.name})")
            seen[qid] = path.name
    assert not duplicates, f"duplicate question ids: {', '.join(duplicates)}"


@pytest.mark.parametrize("path", SOURCE_FILES, ids=lambda p: p.name)
def test_text_is_verbatim_from_seed(path: Path) -> None:
    seeds = _seed_texts()
    all_seed_text = "\n".join(seeds.values())
    quiz = _load(path)
    seed_name, seed_text = _seed_of(quiz, seeds)

    assert quiz.get("title"), f"{path.name}: empty title"
    assert quiz["title"] in seed_text, (
        f"{path.name}: title {quiz['title']!r} not found verbatim in {seed_name}"
    )
    if quiz.get("description"):
        assert quiz["description"] in seed_text, (
            f"{path.name}: description {quiz['description']!r} not found verbatim in {seed_name}"
        )

    missing = []
    for question in quiz.get("questions") or []:
        qid = question.get("id")
        if question.get("stem") not in all_seed_text:
            missing.append(f"{qid}: stem {question.get('stem')!r}")
        for i, choice in enumerate(question.get("choices") or []):
            if choice.get("text") not in all_seed_text:
                missing.append(f"{qid}: choice {i} {choice.get('text')!r}")
    assert not missing, f"{path.name}: text not found verbatim in the seeds:\n" + "\n".join(missing)


@pytest.mark.parametrize("path", SOURCE_FILES, ids=lambda p: p.name)
def test_questions_keyed_and_explained(path: Path) -> None:
    quiz = _load(path)
    questions = quiz.get("questions") or []
    assert len(questions) == QUESTIONS_PER_QUIZ, f"{path.name}: {len(questions)} questions, expected 8"
    for question in questions:
        qid = question.get("id")
        choices = question.get("choices") or []
        assert len(choices) == CHOICES_PER_QUESTION, f"{path.name} {qid}: {len(choices)} choices, expected 4"
        correct = [i for i, c in enumerate(choices) if c.get("correct") is True]
        assert len(correct) == 1, f"{path.name} {qid}: expected exactly one correct choice, found {correct}"
        explanation = question.get("explanation")
        assert isinstance(explanation, str) and explanation.strip(), f"{path.name} {qid}: missing explanation"


# --------------------------------------------------------------------------- issue 23's quiz

STRUCTURED_FILE = SOURCE_DIR / "training-step-structure.yaml"
"""Written here, not transcribed: the bank's description, cloze and ordering questions."""
_ARABIC = "\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff"


def _texts_of(question: dict) -> list[str]:
    texts = [question.get("stem"), question.get("explanation"), *(question.get("items") or [])]
    texts += [h if isinstance(h, str) else h.get("text") for h in question.get("hints") or []]
    texts += list((question.get("feedback") or {}).values())
    for blank in question.get("blanks") or []:
        texts.append(blank.get("other_feedback"))
        for entry in (blank.get("answers") or []) + (blank.get("choices") or []):
            if isinstance(entry, dict):
                texts += [entry.get("text"), entry.get("feedback")]
    return [t for t in texts if isinstance(t, str)]


def test_the_structured_quiz_has_every_new_kind_explained() -> None:
    quiz = _load(STRUCTURED_FILE)
    assert quiz["lang"] == "ur" and STRUCTURED_FILE.stem == quiz["id"]
    types = [q.get("type") for q in quiz["questions"]]
    assert {"cloze", "ordering", "description"} <= set(types), types
    for question in quiz["questions"]:
        assert str(question.get("explanation") or "").strip(), question["id"]
    cloze = next(q for q in quiz["questions"] if q["type"] == "cloze")
    # the bubble of p = 4 stages and m = 12 micro-batches: (p - 1) / (m + p - 1) = 3/15
    number = next(b for b in cloze["blanks"] if b["type"] == "numerical")
    assert number["answers"][0]["answer"] == pytest.approx((4 - 1) / (12 + 4 - 1))


def test_urdu_lines_of_the_structured_quiz_read_right_to_left() -> None:
    """An Urdu line that starts with a Latin letter or a parenthesis starts left to right in any
    viewer that takes a paragraph's direction from its first strong character (Unicode's bidi
    rule P2: GIFT, Moodle's plain fields, dir="auto"): Latin terms stand inside the sentence."""
    import re

    bad = []
    for question in _load(STRUCTURED_FILE)["questions"]:
        if question.get("lang", "ur") != "ur":
            continue
        for text in _texts_of(question):
            for line in text.splitlines():
                line = line.strip()
                if re.search(f"[{_ARABIC}]", line) and re.match(r"[(A-Za-z]", line):
                    bad.append(f"{question['id']}: {line[:50]}")
    assert not bad, "\n".join(bad)


# --------------------------------------------------------------------------- issue 24's questions

PARAMETRIC_FILE = SOURCE_DIR / "zero-memory-arithmetic.yaml"
"""Written here, not transcribed (like training-step-structure.yaml): the memory-arithmetic quiz,
whose parametric questions (issue 24) draw their numbers per attempt."""


def _parametric_questions() -> list[dict]:
    return [
        q for q in _load(PARAMETRIC_FILE)["questions"] if q.get("type") in ("calculated", "calculated_choice")
    ]


def test_the_memory_quiz_has_parametric_questions_for_each_zero_stage_and_the_bubble() -> None:
    questions = _parametric_questions()
    stages = set()
    for q in questions:
        derived = {
            name: (v if isinstance(v, str) else v["formula"]) for name, v in (q.get("derived") or {}).items()
        }
        key = q["answer"]["formula"] if "answer" in q else q["choices"][0]["formula"]
        stages.add(derived.get(key, key))
    # ZeRO-1, 2, 3 per GPU (GB for Psi billion parameters on N_d GPUs) and the bubble
    assert {"4*Psi + 12*Psi/Nd", "2*Psi + 14*Psi/Nd", "state/Nd", "idle/slots"} <= stages, stages
    for q in questions:
        assert str(q.get("explanation") or "").strip(), q["id"]
        # every variable is shown in the stem, or the question cannot be answered
        for name in q["variables"]:
            assert "{" + name + "}" in q["stem"], (q["id"], name)


def test_urdu_lines_of_the_parametric_questions_read_right_to_left() -> None:
    """As for the structured quiz: no Urdu line starts with a Latin letter or a parenthesis,
    choice feedback included."""
    import re

    bad = []
    for question in _parametric_questions():
        texts = _texts_of(question) + [c.get("feedback") or "" for c in question.get("choices") or []]
        for text in texts:
            for line in text.splitlines():
                line = line.strip()
                if re.search(f"[{_ARABIC}]", line) and re.match(r"[(A-Za-z]", line):
                    bad.append(f"{question['id']}: {line[:50]}")
    assert not bad, "\n".join(bad)
