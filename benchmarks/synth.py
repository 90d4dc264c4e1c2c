"""Deterministic synthetic question banks, for the benchmark and for tests that need bulk.

The *plain* bank (``shape="plain"``, the default): single-choice questions with 4 choices,
per-choice feedback and an explanation, mixed Urdu and English text, split into quizzes of 50 to
500 questions. The *real-shaped* bank (``shape="real"``): the same, except that every fifth
question is one of the kinds real banks add to plain single choice, in turn: single choice with
a partly right choice, combined feedback and hints; multiple choice with credits (one negative),
combined feedback, hints and a penalty; a graded short answer (several answers with their own
credit and feedback, other_feedback); a numerical question with units (keys with credits, a
unit penalty); and, when this checkout's loader and writers support them (real_kinds()
feature-detects), a cloze question (a typed and a numerical blank) and a calculated question
(the parametric bank's, 20 variants): a thirtieth of the bank is parametric. The same arguments
give the same bytes on every machine (a seeded random.Random, no clock, no hash order) for one
set of kinds. The *parametric* bank (``shape="parametric"``): every fifth question is a
calculated question (two variables, a formula, 20 variants), the rest as the plain bank.
"""

from __future__ import annotations

import json
import random
from pathlib import Path


def _words(text: str) -> list[str]:
    return text.split()


UR_WORDS = _words(
    "ماڈل پیرامیٹرز گریڈیئنٹس آپٹیمائزر میموری ٹینسر پائپ لائن متوازی تربیت مرحلہ شارڈنگ "
    "مواصلات ایکٹیویشن بیچ پرت نوڈ کمپیوٹ بچت تقسیم نقل حالت"
)
EN_WORDS = _words(
    "model parameters gradients optimizer memory tensor pipeline parallel training stage sharding "
    "communication activation batch layer node compute savings partition replica state"
)


def _sentence(rng: random.Random, words: list[str] | tuple[str, ...], n: int, end: str) -> str:
    return " ".join(rng.choice(words) for _ in range(n)) + end


def quiz_sizes(total: int, rng: random.Random) -> list[int]:
    sizes = []
    left = total
    while left > 0:
        n = min(left, rng.randint(50, 500))
        sizes.append(n)
        left -= n
    return sizes


def make_quiz(index: int, n_questions: int, rng: random.Random, kinds: tuple[str, ...] = ()) -> str:
    """One quiz as YAML text (JSON-quoted strings are valid YAML double-quoted strings). With
    ``kinds`` (real_kinds()), every fifth question is of the next of those kinds."""
    q = json.dumps
    lines = [
        f"id: synth-{index:04d}",
        f"title: {q('مصنوعی کوئز ' + str(index))}",
        "lang: ur",
        "difficulty: medium",
        f"category: {q('synthetic/quiz-' + str(index))}",
        "questions:",
    ]
    for j in range(n_questions):
        english = rng.random() < 0.3
        words = EN_WORDS if english else UR_WORDS
        end, stop = ("?", ".") if english else ("؟", "۔")
        right = rng.randrange(4)
        lines.append(f"  - id: s{index:04d}-q{j:04d}")
        if english:
            lines.append("    lang: en")
        if kinds and j % 5 == 4:
            kind = kinds[(index + j // 5) % len(kinds)]
            lines += _REAL[kind](rng, words, end, stop, right)
            continue
        lines.append(f"    stem: {q(_sentence(rng, words, 14, end))}")
        lines.append(f"    explanation: {q(_sentence(rng, words, 24, stop))}")
        lines.append("    choices:")
        for k in range(4):
            lines.append(f"      - text: {q(f'{k + 1}. ' + _sentence(rng, words, 6, ''))}")
            if k == right:
                lines.append("        correct: true")
            lines.append(f"        feedback: {q(_sentence(rng, words, 8, stop))}")
    return "\n".join(lines) + "\n"


def _feedback(rng: random.Random, words: list[str], stop: str) -> list[str]:
    q = json.dumps
    return [
        "    feedback:",
        f"      correct: {q(_sentence(rng, words, 6, stop))}",
        f"      partial: {q(_sentence(rng, words, 6, stop))}",
        f"      incorrect: {q(_sentence(rng, words, 8, stop))}",
        "      show_num_correct: true",
        "    hints:",
        f"      - {q(_sentence(rng, words, 7, stop))}",
        f"      - {{text: {q(_sentence(rng, words, 7, stop))}, show_num_correct: true, clear_wrong: true}}",
    ]


def _single_partial(rng: random.Random, words: list[str], end: str, stop: str, right: int) -> list[str]:
    q = json.dumps
    half = (right + 1) % 4
    lines = [
        f"    stem: {q(_sentence(rng, words, 14, end))}",
        f"    explanation: {q(_sentence(rng, words, 24, stop))}",
    ]
    lines += _feedback(rng, words, stop)
    lines.append("    choices:")
    for k in range(4):
        credit = 1 if k == right else 0.5 if k == half else 0
        lines.append(f"      - text: {q(f'{k + 1}. ' + _sentence(rng, words, 6, ''))}")
        lines.append(f"        credit: {credit}")
        lines.append(f"        feedback: {q(_sentence(rng, words, 8, stop))}")
    return lines


def _multiple_credits(rng: random.Random, words: list[str], end: str, stop: str, right: int) -> list[str]:
    q = json.dumps
    lines = [
        "    type: multiple",
        "    points: 2",
        f"    stem: {q(_sentence(rng, words, 14, end))}",
        f"    explanation: {q(_sentence(rng, words, 24, stop))}",
    ]
    lines += _feedback(rng, words, stop)
    lines += ["    penalty: 0.25", "    choices:"]
    for k, credit in enumerate((0.5, 0.5, -0.5, 0)):
        lines.append(f"      - text: {q(f'{k + 1}. ' + _sentence(rng, words, 6, ''))}")
        lines.append(f"        credit: {credit}")
        lines.append(f"        feedback: {q(_sentence(rng, words, 8, stop))}")
    return lines


def _short_answer(rng: random.Random, words: list[str], end: str, stop: str, right: int) -> list[str]:
    q = json.dumps
    a, b = rng.sample(EN_WORDS, 2)
    half = q(_sentence(rng, words, 8, stop))
    return [
        "    type: short_answer",
        f"    stem: {q(_sentence(rng, words, 14, end))}",
        f"    explanation: {q(_sentence(rng, words, 24, stop))}",
        "    answers:",
        f"      - {q(a + '-' + str(right))}",
        f"      - {{text: {q(b + '-' + str(right))}, credit: 0.5, feedback: {half}}}",
        f"    other_feedback: {q(_sentence(rng, words, 8, stop))}",
    ] + _feedback(rng, words, stop)


def _numerical_units(rng: random.Random, words: list[str], end: str, stop: str, right: int) -> list[str]:
    q = json.dumps
    value = rng.randint(2, 900) / 4
    right_fb, half_fb = q(_sentence(rng, words, 6, stop)), q(_sentence(rng, words, 6, stop))
    return [
        "    type: numerical",
        f"    stem: {q(_sentence(rng, words, 14, end))}",
        f"    explanation: {q(_sentence(rng, words, 24, stop))}",
        "    answers:",
        f"      - {{answer: {value}, tolerance: 0.05, feedback: {right_fb}}}",
        f"      - {{answer: {value * 2}, tolerance: 0.05, credit: 0.5, feedback: {half_fb}}}",
        "    units:",
        "      - {unit: GB}",
        "      - {unit: MB, multiplier: 1000}",
        "    unit_grading: response",
        "    unit_penalty: 0.2",
        f"    other_feedback: {q(_sentence(rng, words, 8, stop))}",
    ] + _feedback(rng, words, stop)


def _cloze(rng: random.Random, words: list[str], end: str, stop: str, right: int) -> list[str]:
    q = json.dumps
    stem = f"{_sentence(rng, words, 7, '')} [[1]] {_sentence(rng, words, 5, '')} [[2]]{end}"
    return [
        "    type: cloze",
        f"    stem: {q(stem)}",
        f"    explanation: {q(_sentence(rng, words, 24, stop))}",
        "    blanks:",
        f"      - {{type: short_answer, answers: [{q(rng.choice(EN_WORDS))}]}}",
        f"      - {{type: numerical, answer: {rng.randint(1, 99)}, tolerance: 0.5}}",
    ]


def _calculated(rng: random.Random, words: list[str], end: str, stop: str, right: int) -> list[str]:
    q = json.dumps
    stem = f"{_sentence(rng, words, 8, '')} {{N}} {_sentence(rng, words, 4, '')} {{G}}{end}"
    return [
        "    type: calculated",
        "    variables:",
        "      N: {min: 1, max: 70}",
        "      G: [8, 16, 32, 64]",
        f"    stem: {q(stem)}",
        f"    explanation: {q(_sentence(rng, words, 12, '') + ' 16 x {N} / {G}' + stop)}",
        "    answer: {formula: 16*N/G, tolerance: 1%, decimals: 2}",
    ]


_REAL = {
    "single-partial": _single_partial,
    "multiple-credits": _multiple_credits,
    "short-answer": _short_answer,
    "numerical-units": _numerical_units,
    "cloze": _cloze,
    "calculated": _calculated,
}
"""The kinds of the real-shaped bank's fifth, by name: each writes one question's keys."""

_PARAMETRIC = {"calculated": _calculated}
"""The parametric bank's fifth (``shape="parametric"``): a calculated question of 20 variants
(the default count) whose stem and explanation show its two variables."""


def real_kinds() -> tuple[str, ...]:
    """The kinds of the real-shaped bank that this checkout supports: every kind whose sample
    question loads without a problem and builds in every format (cloze lands in the model before
    its writers do; until then it is left out)."""
    import tempfile

    from lmsexport.build import build
    from lmsexport.source import load_paths
    from lmsexport.writers import WRITERS

    kinds = []
    for kind, make in _REAL.items():
        rng = random.Random(0)
        text = "\n".join(
            ["id: probe", 'title: "probe"', "lang: en", "questions:", "  - id: probe-q"]
            + make(rng, EN_WORDS, "?", ".", 1)
        )
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "probe.yaml"
            path.write_text(text + "\n", encoding="utf-8")
            try:
                build(load_paths([path]), list(WRITERS))
            except Exception:  # noqa: BLE001 - any failure: this checkout does not support it
                continue
        kinds.append(kind)
    return tuple(kinds)


def write_bank(directory: Path, total: int, seed: int = 1, shape: str = "plain") -> list[Path]:
    """Write a bank of `total` questions as YAML files into directory; return the files.
    ``shape`` is "plain", "real" or "parametric" (see the module's docstring)."""
    rng = random.Random(seed)
    kinds = real_kinds() if shape == "real" else ("calculated",) if shape == "parametric" else ()
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, n in enumerate(quiz_sizes(total, rng)):
        path = directory / f"synth-{i:04d}.yaml"
        path.write_text(make_quiz(i, n, rng, kinds), encoding="utf-8")
        paths.append(path)
    return paths
