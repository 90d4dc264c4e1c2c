"""Deterministic synthetic question banks, for the benchmark and for tests that need bulk.

Single-choice questions with 4 choices, per-choice feedback and an explanation, mixed Urdu
and English text, split into quizzes of 50 to 500 questions. The same arguments give the
same bytes on every machine (a seeded random.Random, no clock, no hash order).
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


def make_quiz(index: int, n_questions: int, rng: random.Random) -> str:
    """One quiz as YAML text (JSON-quoted strings are valid YAML double-quoted strings)."""
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
        lines.append(f"    stem: {q(_sentence(rng, words, 14, end))}")
        lines.append(f"    explanation: {q(_sentence(rng, words, 24, stop))}")
        lines.append("    choices:")
        for k in range(4):
            lines.append(f"      - text: {q(f'{k + 1}. ' + _sentence(rng, words, 6, ''))}")
            if k == right:
                lines.append("        correct: true")
            lines.append(f"        feedback: {q(_sentence(rng, words, 8, stop))}")
    return "\n".join(lines) + "\n"


def write_bank(directory: Path, total: int, seed: int = 1) -> list[Path]:
    """Write a bank of `total` questions as YAML files into directory; return the files."""
    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, n in enumerate(quiz_sizes(total, rng)):
        path = directory / f"synth-{i:04d}.yaml"
        path.write_text(make_quiz(i, n, rng), encoding="utf-8")
        paths.append(path)
    return paths
