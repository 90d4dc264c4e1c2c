"""lmsexport lint: every rule fires on what it is for and stays quiet otherwise, in Urdu and
English; the docs' examples are linted; selection, configuration and ignore comments; the
statistics against independent computations; reports (SARIF against the SARIF 2.1.0 schema).

(tests/test_lint.py is the project's own ruff/mypy test.)
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lmsexport.cli import app
from lmsexport.errors import Diagnostic
from lmsexport.lint import stats
from lmsexport.lint.config import ConfigError, LintConfig, load_config
from lmsexport.lint.engine import lint_paths
from lmsexport.lint.rules import RULES, SelectorError, resolve
from lmsexport.lint.text import normalize, zero_width_changes_something

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "lint.md"


def lint(tmp_path: Path, files: dict[str, str], **config: object) -> list[Diagnostic]:
    paths = []
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        paths.append(p)
    return lint_paths(sorted(paths), LintConfig(**config)).diagnostics  # type: ignore[arg-type]


def rules(diags: list[Diagnostic]) -> list[str]:
    return sorted(d.rule for d in diags)


def quiz(questions: str, lang: str = "ur", shuffle: bool = True, markdown: bool = False) -> str:
    head = f'id: t\ntitle: "T"\nlang: {lang}\nshuffle: {"true" if shuffle else "false"}\n'
    if markdown:
        head += "markup: markdown\n"
    return head + "questions:\n" + textwrap.indent(textwrap.dedent(questions).strip("\n"), "  ") + "\n"


def single(qid: str, stem: str, choices: list[str], key: int, explanation: str | None = None) -> str:
    parts = [f"id: {qid}", f"stem: {json.dumps(stem, ensure_ascii=False)}"]
    if explanation is not None:
        parts.append(f"explanation: {json.dumps(explanation, ensure_ascii=False)}")
    cs = ", ".join(
        "{text: " + json.dumps(c, ensure_ascii=False) + (", correct: true}" if i == key else "}")
        for i, c in enumerate(choices)
    )
    return "- {" + ", ".join(parts) + ", choices: [" + cs + "]}\n"


# --------------------------------------------------------------------------- the docs' examples


def _doc_examples() -> Iterator[tuple[str, bool, str]]:
    text = DOCS.read_text(encoding="utf-8")
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    for section in sections:
        rule_id = section.split()[0]
        for label, block in re.findall(
            r"^(Fires|Does not fire)[^`]*?\n\n```yaml\n(.*?)```", section, re.S | re.M
        ):
            yield rule_id, label == "Fires", block


DOC_EXAMPLES = list(_doc_examples())


def test_every_rule_has_a_doc_section_with_both_examples() -> None:
    documented = {(r, fires) for r, fires, _ in DOC_EXAMPLES}
    for rule_id in RULES:
        assert (rule_id, True) in documented, f"{rule_id}: no 'Fires:' example in docs/lint.md"
        assert (rule_id, False) in documented, f"{rule_id}: no 'Does not fire:' example in docs/lint.md"
    text = DOCS.read_text(encoding="utf-8")
    for rule_id, rule in RULES.items():
        assert f"### {rule_id} {rule.name}\n" in text


@pytest.mark.parametrize(
    ("rule_id", "fires", "block"),
    DOC_EXAMPLES,
    ids=[f"{r}-{'fires' if f else 'quiet'}-{i}" for i, (r, f, _) in enumerate(DOC_EXAMPLES)],
)
def test_doc_example(tmp_path: Path, rule_id: str, fires: bool, block: str) -> None:
    (tmp_path / "example.yaml").write_text(block, encoding="utf-8")
    result = lint_paths([tmp_path / "example.yaml"], LintConfig())
    assert not [d for d in result.diagnostics if not d.rule.startswith("LX")], result.diagnostics
    found = [d.rule for d in result.diagnostics]
    assert (rule_id in found) == fires, [d.format() for d in result.diagnostics]


def test_docs_list_every_rule_in_the_readme_and_ci() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`lmsexport lint" in readme and "docs/lint.md" in readme
    assert "sarif" in (ROOT / "docs" / "ci.md").read_text(encoding="utf-8").lower()


# --------------------------------------------------------------------------- LX1: the key

LETTERS = {"en": ["Alpha", "Bravo", "Charlie", "Delta"], "ur": ["الف", "بے", "جیم", "دال"]}


def keyed_quiz(lang: str, positions: list[int], shuffle: bool = False) -> str:
    qs = "".join(
        single(
            f"q{i:02d}", f"{'سوال' if lang == 'ur' else 'Question'} {i}", LETTERS[lang], k, LETTERS[lang][k]
        )
        for i, k in enumerate(positions)
    )
    return quiz(qs, lang, shuffle)


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx101_unbalanced_keys(tmp_path: Path, lang: str) -> None:
    found = lint(tmp_path, {"q.yaml": keyed_quiz(lang, [0] * 9 + [1, 2, 3])}, select=("LX101",))
    assert rules(found) == ["LX101"]
    assert "exact" in found[0].message and found[0].loc.line == 4  # the shuffle: line


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx101_quiet_when_balanced_or_shuffled(tmp_path: Path, lang: str) -> None:
    assert lint(tmp_path, {"a.yaml": keyed_quiz(lang, [0, 2, 1, 3, 3, 0, 2, 1])}, select=("LX101",)) == []
    shuffled = (
        keyed_quiz(lang, [0] * 12, shuffle=True).replace("id: t\n", "id: t2\n").replace("id: q", "id: s")
    )
    assert lint(tmp_path, {"b.yaml": shuffled}, select=("LX101",)) == []


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx102_cycle_and_run(tmp_path: Path, lang: str) -> None:
    cycle = lint(tmp_path, {"a.yaml": keyed_quiz(lang, [0, 1, 2, 3] * 4)}, select=("LX102",))
    assert rules(cycle) == ["LX102"] and "cycle of 4" in cycle[0].message
    run = [0, 2, 1, 3] + [1] * 9 + [3, 0, 2]
    found = lint(
        tmp_path,
        {"b.yaml": keyed_quiz(lang, run).replace("id: t\n", "id: t2\n").replace("id: q", "id: r")},
        select=("LX102",),
    )
    assert rules(found) == ["LX102"] and "in a row" in found[0].message


@pytest.mark.parametrize("lang", ["en", "ur"])
@pytest.mark.parametrize(
    ("positions", "kind"),
    [
        ([0, 1, 2, 3] * 2, "cycle of 4 (1, 2, 3, 4, 1, 2, 3, 4)"),  # issue 25: two turns, eight questions
        ([2, 0, 1] * 2 + [2], "cycle of 3"),
        ([1, 3] * 3, "cycle of 2"),
        ([2] * 5, "position 3 in 5 questions in a row"),
    ],
)
def test_lx102_whole_quiz_pattern(tmp_path: Path, lang: str, positions: list[int], kind: str) -> None:
    """A pattern over the whole quiz has one place to be, not one per start: two turns of a
    cycle of four in eight questions is significant (p = 0.0052), where a stretch of the same
    length inside a longer quiz is not."""
    found = lint(tmp_path, {"a.yaml": keyed_quiz(lang, positions)}, select=("LX102",))
    assert rules(found) == ["LX102"]
    assert kind in found[0].message
    assert f"over all {len(positions)} single-choice questions" in found[0].message
    assert found[0].loc.line == 6  # the first question's id


@pytest.mark.parametrize("lang", ["en", "ur"])
@pytest.mark.parametrize(
    "positions",
    [
        [0, 1, 2, 0, 1, 2],  # two turns of three in six questions: p = 0.021
        [0, 1, 2, 3, 0, 1, 2],  # a turn and three quarters
        [0, 1, 2, 3, 0, 1, 2, 3, 2],  # two turns, then the ninth breaks it: a stretch, p = 0.13
        [1, 1, 1, 1],  # four in a row, four questions: p = 0.016
        [0, 1, 2, 3, 0, 1, 2, 3, 1, 3, 0, 2, 2, 0, 3, 1, 3, 2, 1, 0],  # two turns at the start of 20
    ],
)
def test_lx102_quiet_on_short_patterns(tmp_path: Path, lang: str, positions: list[int]) -> None:
    assert lint(tmp_path, {"a.yaml": keyed_quiz(lang, positions)}, select=("LX102",)) == []


@pytest.mark.parametrize("n", [8, 12, 20, 40])
def test_lx102_chance_rate(n: int) -> None:
    """LX102 fires on random four-choice keys (what shuffling gives) in under 1% of quizzes of
    8, 12, 20 and 40 questions (measured with 200,000 quizzes each: 0.49%, 0.09%, 0.29%, 0.21%;
    docs/lint.md). A fixed seed keeps the test deterministic."""
    rng = random.Random(25 * n)
    quizzes = 20_000
    fired = 0
    for _ in range(quizzes):
        pattern = stats.key_pattern([rng.randrange(4) for _ in range(n)], [4] * n)
        fired += pattern is not None and pattern.p < 0.01
    assert fired / quizzes < 0.01


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx102_quiet_without_pattern(tmp_path: Path, lang: str) -> None:
    assert (
        lint(tmp_path, {"a.yaml": keyed_quiz(lang, [0, 2, 3, 1, 1, 0, 3, 2, 2, 1, 0, 3])}, select=("LX102",))
        == []
    )


LONG = {
    "en": ("The optimizer states, split across every data-parallel GPU", ["Labels", "Files", "Logs"]),
    "ur": ("آپٹیمائزر کی حالت، ہر ڈیٹا متوازی GPU میں تقسیم", ["لیبل", "فائلیں", "لاگ"]),
}


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx103_longest_key(tmp_path: Path, lang: str) -> None:
    key, others = LONG[lang]
    qs = "".join(
        single(f"q{i}", f"Q{i}", [*others[: i % 3], key, *others[i % 3 :]], i % 3, key) for i in range(6)
    )
    assert rules(lint(tmp_path, {"a.yaml": quiz(qs, lang)}, select=("LX103",))) == ["LX103"]
    # The same choices with a distractor as the longest: quiet.
    qs = "".join(single(f"p{i}", f"Q{i}", [others[0], key, others[1]], 0, others[0]) for i in range(6))
    assert lint(tmp_path, {"b.yaml": quiz(qs, lang).replace("id: t\n", "id: t2\n")}, select=("LX103",)) == []


CLANG = {
    "en": (
        "How do micro-batches shrink the pipeline bubble?",
        "The bubble gets smaller as stages overlap",
        ["Lower learning rate", "Fewer layers"],
        "bubbles",
    ),
    "ur": (
        "مائیکرو بیچ پائپ لائن کے بلبلے کو کیسے کم کرتے ہیں؟",
        "بلبلا کم ہوتا ہے کیونکہ مراحل ساتھ چلتے ہیں",
        ["سیکھنے کی کم شرح", "کم پرتیں"],
        "بلبلوں",
    ),
}


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx104_clang(tmp_path: Path, lang: str) -> None:
    stem, key, others, word = CLANG[lang]
    found = lint(
        tmp_path, {"a.yaml": quiz(single("q1", stem, [key, *others], 0, key), lang)}, select=("LX104",)
    )
    assert rules(found) == ["LX104"] and found[0].loc.line == 6
    # A distractor with the same word: quiet.
    others = [others[0] + " " + word, others[1]]
    assert (
        lint(tmp_path, {"a.yaml": quiz(single("q1", stem, [key, *others], 0, key), lang)}, select=("LX104",))
        == []
    )


# --------------------------------------------------------------------------- LX2: the choices


@pytest.mark.parametrize(
    ("lang", "phrase", "rule"),
    [
        ("en", "All of the above", "LX201"),
        ("en", "all of these.", "LX201"),
        ("ur", "مندرجہ بالا سب", "LX201"),
        ("ur", "تمام", "LX201"),
        ("ur", "مندرجه بالا سب", "LX201"),  # Arabic heh: normalised
        ("en", "None of the above", "LX202"),
        ("ur", "ان میں سے کوئی نہیں", "LX202"),
        ("ur", "کوئی نہیں", "LX202"),
    ],
)
def test_lx201_lx202_positional_choices(tmp_path: Path, lang: str, phrase: str, rule: str) -> None:
    q = single("q1", "Which?" if lang == "en" else "کون سا؟", ["One", "Two", phrase], 2, phrase)
    assert rules(lint(tmp_path, {"a.yaml": quiz(q, lang, shuffle=True)}, select=("LX2",))) == [rule]
    assert lint(tmp_path, {"a.yaml": quiz(q, lang, shuffle=False)}, select=("LX2",)) == []


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx201_not_for_choices_that_merely_contain_the_words(tmp_path: Path, lang: str) -> None:
    phrase = "All of the above layers are sharded" if lang == "en" else "سب پرتیں تقسیم ہوتی ہیں"
    q = single("q1", "Which?", ["One", "Two", phrase], 2, phrase)
    assert lint(tmp_path, {"a.yaml": quiz(q, lang)}, select=("LX2",)) == []


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx203_identical_choice_sets(tmp_path: Path, lang: str) -> None:
    opts = LETTERS[lang][:3]
    same = single("q1", "First?", opts, 2, opts[2]) + single(
        "q2", "Second?", [opts[2], opts[0], opts[1]], 0, opts[2]
    )
    found = lint(tmp_path, {"a.yaml": quiz(same, lang)}, select=("LX203",))
    assert rules(found) == ["LX203"] and "'q2'" in found[0].message
    other_key = single("q1", "First?", opts, 2, opts[2]) + single("q2", "Second?", opts, 0, opts[0])
    assert lint(tmp_path, {"a.yaml": quiz(other_key, lang)}, select=("LX203",)) == []


# --------------------------------------------------------------------------- LX3: the stem


@pytest.mark.parametrize(
    ("stem", "markdown", "fires"),
    [
        ("Which of these is not sharded?", False, True),
        ("Which of these is NOT sharded?", False, False),
        ("Which of these isn't sharded?", False, True),
        ("All EXCEPT which one are sharded?", False, False),
        ("Which needs at least two GPUs?", False, False),
        ("True or false: ZeRO shards gradients.", False, False),
        ("Which of these is **not** sharded?", True, False),
        ("Which of these is not sharded?", True, True),
        ("ZeRO-2 کیا تقسیم نہیں کرتا؟", False, True),
        ("ZeRO-2 کیا تقسیم **نہیں** کرتا؟", True, False),
        ("ZeRO-2 کیا تقسیم *نہیں* کرتا؟", True, False),
        ("ZeRO-2 کیا تقسیم نہیں کرتا؟", True, True),
        ("ZeRO-2 سوائے کس کے سب تقسیم کرتا ہے؟", False, True),
        ("ZeRO-2 نہ صرف گریڈیئنٹس بلکہ کیا تقسیم کرتا ہے؟", False, False),
        ("درست یا غلط: ZeRO گریڈیئنٹس تقسیم کرتا ہے۔", False, False),
    ],
)
def test_lx301_negative_stems(tmp_path: Path, stem: str, markdown: bool, fires: bool) -> None:
    lang = "ur" if any("\u0600" <= c <= "\u06ff" for c in stem) else "en"
    q = single("q1", stem, ["Parameters", "Gradients", "Labels"], 0, "Parameters")
    found = lint(tmp_path, {"a.yaml": quiz(q, lang, markdown=markdown)}, select=("LX301",))
    assert bool(found) == fires, [d.format() for d in found]
    if found:
        line = (tmp_path / "a.yaml").read_text(encoding="utf-8").split("\n")[found[0].loc.line - 1]
        word = re.findall(r"'(.+?)'", found[0].message)[1]
        assert line[found[0].loc.col - 1 :].startswith(word)


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx302_duplicates_across_files(tmp_path: Path, lang: str) -> None:
    stem = "What does ZeRO-3 shard?" if lang == "en" else "ZeRO-3 کیا تقسیم کرتا ہے؟"
    variant = "WHAT does ZeRO-3 shard ?!" if lang == "en" else "ZeRO-3 كيا تقسيم کرتا ہے?"
    a = quiz(single("a1", stem, ["x", "y", "z"], 0, "x"), lang).replace("id: t\n", "id: ta\n")
    b = quiz(single("b1", variant, ["p", "q", "r"], 0, "p"), lang).replace("id: t\n", "id: tb\n")
    found = lint(tmp_path, {"a.yaml": a, "b.yaml": b}, select=("LX302",))
    assert rules(found) == ["LX302"] and found[0].loc.path.endswith("b.yaml") and "'a1'" in found[0].message
    c = quiz(single("b1", stem + " and why", ["p", "q", "r"], 0, "p"), lang).replace("id: t\n", "id: tb\n")
    assert lint(tmp_path, {"a.yaml": a, "b.yaml": c}, select=("LX302",)) == []


NEAR = {
    "en": (
        "Why is tensor parallelism usually kept within a single node of the cluster?",
        "Why is tensor parallelism normally kept within a single node of the cluster?",
        "What data must move between stages in pipeline parallelism during a forward pass?",
    ),
    "ur": (
        "ٹینسر متوازی کو عام طور پر ایک نوڈ کے اندر کیوں رکھا جاتا ہے اور اس کی کیا وجہ ہے؟",
        "ٹینسر متوازی کو اکثر طور پر ایک نوڈ کے اندر کیوں رکھا جاتا ہے اور اس کی کیا وجہ ہے؟",
        "پائپ لائن متوازی میں مراحل کے درمیان کون سا ڈیٹا منتقل ہوتا ہے؟",
    ),
}


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx303_near_duplicates(tmp_path: Path, lang: str) -> None:
    first, edited, other = NEAR[lang]
    qs = single("q1", first, ["a", "b", "c"], 0, "a") + single("q2", edited, ["d", "e", "f"], 0, "d")
    found = lint(tmp_path, {"a.yaml": quiz(qs, lang)}, select=("LX3",))
    assert rules(found) == ["LX303"] and "'q2'" in found[0].message and "'q1'" in found[0].message
    qs = single("q1", first, ["a", "b", "c"], 0, "a") + single("q2", other, ["d", "e", "f"], 0, "d")
    assert lint(tmp_path, {"a.yaml": quiz(qs, lang)}, select=("LX3",)) == []


def test_lx303_finds_planted_pairs_in_a_large_bank(tmp_path: Path) -> None:
    """Recall and precision at scale: 3,000 distinct random stems of 20 words, 20 of them re-typed
    with one word changed (about 85% of their 5-letter pieces shared); every planted pair is
    found and nothing else."""
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(3000)]
    stems = [" ".join(rng.choice(vocab) for _ in range(20)) for _ in range(3000)]
    planted = {}
    for k in range(20):
        words = stems[k].split()
        words[5] = "changed"
        stems.append(" ".join(words))
        planted[f"n{k}"] = f"s{k}"
    lines = ['id: big\ntitle: "Big"\nlang: en\nquestions:\n']
    names = [f"s{i}" for i in range(3000)] + list(planted)
    for name, stem in zip(names, stems, strict=True):
        lines.append(
            f'  - {{id: {name}, stem: "{stem}", explanation: "e", '
            f'choices: [{{text: "x {name}", correct: true}}, {{text: y}}]}}\n'
        )
    (tmp_path / "big.yaml").write_text("".join(lines), encoding="utf-8")
    found = lint_paths([tmp_path / "big.yaml"], LintConfig(select=("LX303",))).diagnostics
    pairs = {re.findall(r"'(\w+)'", d.message)[0]: re.findall(r"'(\w+)'", d.message)[1] for d in found}
    assert pairs == planted


# --------------------------------------------------------------------------- LX4: Urdu and bidi


def text_quiz(stem: str, lang: str = "ur", markdown: bool = False) -> str:
    return quiz(single("q1", stem, ["x", "y"], 0, "x"), lang, markdown=markdown)


@pytest.mark.parametrize(
    ("stem", "lang", "expected"),
    [
        ("ZeRO كيا تقسیم کرتا ہے؟", "ur", ["LX401"]),
        ("ZeRO کیا تقسیم کرتا ہے؟", "ur", []),
        ("Which script is كيا written in?", "en", []),
        ("۱۲٣ میں کتنے ہندسے ہیں؟", "ur", ["LX402"]),
        ("٣ میں کتنے ہندسے ہیں؟", "ur", ["LX402"]),
        ("۱۲۳ میں کتنے ہندسے ہیں؟", "ur", []),
        ("How many digits has 123?", "en", []),
        ("Is ٣ three?", "en", []),
        ("Does \u202bGPU mean?", "en", ["LX403"]),
        ("Does \u202eUPG\u202c mean?", "en", ["LX403"]),
        ("Stray \u202c here", "en", ["LX403"]),
        ("What does \u2067ماڈل\u2069 mean?", "en", []),
        ("بلبلا\u200f کیا ہے؟", "ur", ["LX404"]),
        ("Plain\u200e English", "en", ["LX404"]),
        ("پائپ لائن کا (GPipe)\u200e شیڈول کیا ہے؟", "ur", []),
        ("مرحلہ ۳\u200f کیا ہے؟", "ur", []),
        ("پائپ لائن کے\u200c مراحل کیا ہیں؟", "ur", ["LX405"]),
        ("لفظ نہ\u200cیں کیا ہے؟", "ur", []),
        ("ب\u200dب کیا ہے؟", "ur", ["LX405"]),
        ("ہ\u200d کیا ہے؟", "ur", []),
        ("zero\u200b width", "en", ["LX405"]),
        ("long\u200bword", "en", []),
        ("پائپ لائن کا بلبلا کیا ہے?", "ur", ["LX406"]),
        ("پائپ لائن، بلبلا; اور مراحل.", "ur", ["LX406"]),
        ("پائپ لائن کا بلبلا کیا ہے؟", "ur", []),
        ("بلبلا 3.5 فیصد ہے۔", "ur", []),
        ("What is the bubble?", "en", []),
    ],
)
def test_lx4_text_quality(tmp_path: Path, stem: str, lang: str, expected: list[str]) -> None:
    found = lint(tmp_path, {"a.yaml": text_quiz(stem, lang)}, select=("LX4",))
    assert rules(found) == expected, [d.format() for d in found]


def test_lx401_hint_names_the_urdu_letter_and_position(tmp_path: Path) -> None:
    (found,) = lint(tmp_path, {"a.yaml": text_quiz("ZeRO كيا تقسیم کرتا ہے؟")}, select=("LX401",))
    assert "ک (U+06A9 ARABIC LETTER KEHEH)" in (found.hint or "")
    assert "ی (U+06CC" in (found.hint or "")
    line = (tmp_path / "a.yaml").read_text(encoding="utf-8").split("\n")[found.loc.line - 1]
    assert line[found.loc.col - 1] == "ك"


def test_lx401_aspirate_hint(tmp_path: Path) -> None:
    (found,) = lint(tmp_path, {"a.yaml": text_quiz("یہ بهی ہے؟")}, select=("LX401",))
    assert "ھ" in (found.hint or "")


def test_lx406_hint_and_position(tmp_path: Path) -> None:
    (found,) = lint(tmp_path, {"a.yaml": text_quiz("بلبلا کیا ہے?")}, select=("LX406",))
    assert "؟ (U+061F" in (found.hint or "")
    line = (tmp_path / "a.yaml").read_text(encoding="utf-8").split("\n")[found.loc.line - 1]
    assert line[found.loc.col - 1] == "?"


def test_lx406_skips_code_and_math_in_markdown(tmp_path: Path) -> None:
    found = lint(
        tmp_path, {"a.yaml": text_quiz("بلبلا `x?` اور $a.b$ کیا ہے؟", markdown=True)}, select=("LX406",)
    )
    assert found == []


def test_zero_width_rules_follow_joining_types() -> None:
    # ZWNJ between two dual-joining letters (ب ب) matters, after ا (right-joining) it does not.
    assert zero_width_changes_something("ب\u200cب", 1)
    assert not zero_width_changes_something("ا\u200cب", 1)
    # Marks are skipped: ب + fatha + ZWNJ + ب still separates a join.
    assert zero_width_changes_something("ب\u064e\u200cب", 2)
    # ZWJ after a letter that joins forward, before a space: shows the joining form alone.
    assert zero_width_changes_something("ب\u200d ", 1)
    assert not zero_width_changes_something("ب\u200dب", 1)
    # Devanagari: ZWNJ after a virama selects the half form.
    assert zero_width_changes_something("क्\u200cष", 2)
    # Emoji ZWJ sequences.
    assert zero_width_changes_something("👩\u200d💻", 1)


def test_normalize() -> None:
    assert normalize("ZeRO كيا ہے?") == normalize("zero کیا ہے؟") == "zero کیا ہے"
    assert normalize("۱۶ GB") == normalize("16 gb") == normalize("١٦ GB")
    assert normalize("1,000 and 1.5, then 2") == "1000 and 1.5 then 2"
    assert normalize("ﻛﺘﺎﺏ") == normalize("کتاب")  # presentation forms, via NFKC


# --------------------------------------------------------------------------- LX5: explanations


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_lx501_missing_explanation(tmp_path: Path, lang: str) -> None:
    found = lint(tmp_path, {"a.yaml": quiz(single("q1", "Q?", ["x", "y"], 0), lang)}, select=("LX5",))
    assert rules(found) == ["LX501"]
    assert (
        lint(
            tmp_path, {"a.yaml": quiz(single("q1", "Q?", ["x", "y"], 0, "x is right"), lang)}, select=("LX5",)
        )
        == []
    )


@pytest.mark.parametrize(
    ("lang", "key", "explanation", "fires"),
    [
        ("en", "Optimizer states", "ZeRO-1 shards the optimizer state across GPUs.", False),
        ("en", "Optimizer states", "Data parallelism copies everything to every GPU.", True),
        ("en", "16 GB", "Sixteen, that is 16 gigabytes.", False),
        ("ur", "آپٹیمائزر کی حالت", "ZeRO-1 آپٹیمائزر کی حالت کو تقسیم کرتا ہے۔", False),
        ("ur", "پرت", "ہر GPU کو الگ پرتیں ملتی ہیں۔", False),
        ("ur", "آپٹیمائزر کی حالت", "ڈیٹا متوازی میں ہر GPU پر سب کچھ نقل ہوتا ہے۔", True),
        ("ur", "۱۶ GB", "کل 16 گیگا بائٹ۔", False),
        ("ur", "مندرجہ بالا سب", "تینوں درست ہیں۔", False),
    ],
)
def test_lx502_explanation_mentions_key(
    tmp_path: Path, lang: str, key: str, explanation: str, fires: bool
) -> None:
    q = single("q1", "Q?", [key, "Labels", "Files"], 0, explanation)
    found = lint(tmp_path, {"a.yaml": quiz(q, lang)}, select=("LX502",))
    assert bool(found) == fires, [d.format() for d in found]


def test_lx502_numerical(tmp_path: Path) -> None:
    base = '- {id: q1, type: numerical, stem: "How many?", answer: 16, explanation: %s}\n'
    assert lint(tmp_path, {"a.yaml": quiz(base % '"۱۶ bytes"', "en")}, select=("LX502",)) == []
    assert rules(lint(tmp_path, {"a.yaml": quiz(base % '"Many bytes"', "en")}, select=("LX502",))) == [
        "LX502"
    ]


# --------------------------------------------------------------------------- credits (LX105, LX106)


def _credited(qid: str, credits: list[str], explanation: str = "x") -> str:
    cs = ", ".join(f'{{text: "c{i}", credit: {c}}}' for i, c in enumerate(credits))
    return f'- {{id: {qid}, stem: "Q {qid}?", explanation: "{explanation}", choices: [{cs}]}}\n'


@pytest.mark.parametrize(
    ("credits", "found"),
    [
        (["1", "0", "0"], []),
        (["1", "0.5", "0"], []),
        (["0.5", "0", "0"], ["LX105"]),
        (["'90%'", "0.5", "0"], ["LX105"]),
        (["1", "-0.5", "0"], ["LX106"]),
        (["0.5", "-1", "'-25%'"], ["LX105", "LX106", "LX106"]),
        (["1", "1", "-0.25"], ["LX106"]),
    ],
)
def test_lx105_lx106_single_choice_credits(tmp_path: Path, credits: list[str], found: list[str]) -> None:
    assert rules(lint(tmp_path, {"a.yaml": quiz(_credited("q1", credits), "en")}, select=("LX1",))) == found


def test_lx106_only_single_choice(tmp_path: Path) -> None:
    q = (
        '- {id: q1, type: multiple, stem: "Q?", explanation: "x", '
        "choices: [{text: a, credit: 1}, {text: b, credit: -1}]}\n"
    )
    assert lint(tmp_path, {"a.yaml": quiz(q, "en")}, select=("LX105", "LX106")) == []


def test_key_statistics_count_only_questions_with_one_full_credit_key(tmp_path: Path) -> None:
    """Eight single-choice questions keyed at position 1 fire LX101/LX102; a question with two
    full-credit choices or only a partly right one has no one key position and is left out."""
    keyed = "".join(single(f"q{i}", f"Question {i}?", ["a", "b", "c", "d"], 0) for i in range(8))
    assert "LX102" in rules(lint(tmp_path, {"a.yaml": quiz(keyed, "en", shuffle=False)}, select=("LX10",)))
    unkeyed = "".join(_credited(f"q{i}", ["1", "1", "0", "0"]) for i in range(4))
    unkeyed += "".join(_credited(f"p{i}", ["0.5", "0", "0", "0"]) for i in range(4))
    found = lint(tmp_path, {"b.yaml": quiz(unkeyed, "en", shuffle=False)}, select=("LX101", "LX102", "LX103"))
    assert found == []


@pytest.mark.parametrize(
    ("explanation", "fires"),
    [
        ("Sixteen bytes per parameter.", False),
        ("Two plus two plus twelve.", False),
        ("Something else entirely.", True),
    ],
)
def test_lx502_one_of_several_full_credit_keys_is_enough(
    tmp_path: Path, explanation: str, fires: bool
) -> None:
    q = (
        f'- {{id: q1, stem: "Q?", explanation: "{explanation}", choices: '
        '[{text: "sixteen bytes", credit: 1}, {text: "two plus two plus twelve", credit: 1}, '
        '{text: "labels"}]}\n'
    )
    found = lint(tmp_path, {"a.yaml": quiz(q, "en")}, select=("LX502",))
    assert bool(found) == fires, [d.format() for d in found]


def test_feedback_hints_and_answer_feedback_are_checked_as_urdu_text(tmp_path: Path) -> None:
    """LX401 (Arabic ك for Urdu ک) in each text issue 22 added."""
    arabic = "كتاب"
    q = f"""
    - id: q1
      type: short_answer
      stem: "سوال؟"
      explanation: "وضاحت۔"
      name: "{arabic} نام"
      feedback: {{incorrect: "{arabic} غلط"}}
      hints: ["{arabic} اشارہ"]
      answers: [{{text: "جواب", feedback: "{arabic} درست"}}]
      other_feedback: "{arabic} دوسرا"
    """
    found = lint(tmp_path, {"a.yaml": quiz(q)}, select=("LX401",))
    assert rules(found) == ["LX401"] * 5, [d.format() for d in found]


# --------------------------------------------------------------------------- ignoring


NEGATIVE_Q = single("q1", "Which is not sharded?", ["Parameters", "Gradients", "Labels"], 0, "Parameters")


def test_ignore_comment_at_top_of_file(tmp_path: Path) -> None:
    text = "# a bank file\n# lmsexport: ignore[LX301]\n" + quiz(NEGATIVE_Q, "en")
    assert lint(tmp_path, {"a.yaml": text}, select=("LX3",)) == []
    result = lint_paths([tmp_path / "a.yaml"], LintConfig(select=("LX3",)))
    assert result.ignored == 1


def test_ignore_comment_below_the_top_is_not_file_wide(tmp_path: Path) -> None:
    text = quiz(NEGATIVE_Q, "en").replace("lang: en\n", "lang: en\n# lmsexport: ignore[LX301]\n")
    assert rules(lint(tmp_path, {"a.yaml": text}, select=("LX3",))) == ["LX301"]


def test_ignore_comment_on_and_above_the_id_line(tmp_path: Path) -> None:
    on = quiz(NEGATIVE_Q, "en").replace("- {id: q1,", "- {id: q1,", 1)
    on = on.rstrip("\n") + "  # lmsexport: ignore[LX301]\n"
    assert lint(tmp_path, {"a.yaml": on}, select=("LX3",)) == []
    block = quiz(
        "- id: q1\n  stem: Which is not sharded?\n  explanation: Parameters\n"
        "  choices: [{text: Parameters, correct: true}, {text: Labels}]\n",
        "en",
    )
    above = block.replace("  - id: q1", "  # lmsexport: ignore[LX3]\n  - id: q1")
    assert lint(tmp_path, {"a.yaml": above}, select=("LX3",)) == []
    other = block.replace("  - id: q1", "  # lmsexport: ignore[LX4]\n  - id: q1")
    assert rules(lint(tmp_path, {"a.yaml": other}, select=("LX3",))) == ["LX301"]
    bare = block.replace("  - id: q1", "  - id: q1  # lmsexport: ignore")
    assert lint(tmp_path, {"a.yaml": bare}) == []


def test_lx001_unknown_code_in_ignore_comment(tmp_path: Path) -> None:
    text = "# lmsexport: ignore[LX31, E501]\n" + quiz(NEGATIVE_Q, "en")
    found = lint(tmp_path, {"a.yaml": text}, select=("LX0", "LX3"))
    assert rules(found) == ["LX001", "LX001", "LX301"]
    assert found[0].loc.line == 1 and "'LX31'" in found[0].message and "'E501'" in found[1].message
    assert found[1].loc.col == "# lmsexport: ignore[LX31, E501]".index("E501") + 1


def test_per_file_ignores(tmp_path: Path) -> None:
    text = quiz(NEGATIVE_Q, "en")
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "a.yaml").write_text(text, encoding="utf-8")
    cfg = LintConfig(select=("LX3",), per_file_ignores=(("legacy/*.yaml", ("LX301",)),), root=tmp_path)
    assert lint_paths([tmp_path / "legacy" / "a.yaml"], cfg).diagnostics == []
    cfg = LintConfig(select=("LX3",), per_file_ignores=(("a.yaml", ("LX3",)),), root=tmp_path)
    assert lint_paths([tmp_path / "legacy" / "a.yaml"], cfg).diagnostics == []
    cfg = LintConfig(select=("LX3",), per_file_ignores=(("other/*.yaml", ("LX3",)),), root=tmp_path)
    assert rules(lint_paths([tmp_path / "legacy" / "a.yaml"], cfg).diagnostics) == ["LX301"]


def test_selection_is_resolved_like_ruff() -> None:
    assert resolve(["LX"], []) == frozenset(RULES)
    assert resolve(["LX4"], ["LX40"]) == frozenset()
    assert resolve(["LX4", "LX401"], ["LX40"]) == {"LX401"}
    assert resolve(["LX401"], ["LX401"]) == frozenset()
    assert resolve(["ALL"], ["LX1", "LX2", "LX3", "LX4", "LX5"]) == {"LX001"}
    with pytest.raises(SelectorError, match="did you mean LX301"):
        resolve(["LX3011"], [])


def test_pyproject_found_upward(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.lmsexport.lint]\nselect = ["LX3"]\nignore = ["LX303"]\nsignificance = 0.05\n'
        'per-file-ignores = { "old/*.yaml" = ["LX301"] }\n',
        encoding="utf-8",
    )
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    cfg = load_config(tmp_path / "sub" / "deeper")
    assert cfg.select == ("LX3",) and cfg.ignore == ("LX303",) and cfg.significance == 0.05
    assert cfg.enabled == {"LX301", "LX302"}
    assert cfg.file_ignores(str(tmp_path / "old" / "x.yaml")) == ("LX301",)
    (tmp_path / "pyproject.toml").write_text('[tool.lmsexport.lint]\nselct = ["LX3"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown key 'selct'"):
        load_config(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.lmsexport.lint]\nselect = ["XX1"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown rule selector"):
        load_config(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert load_config(tmp_path) == LintConfig()


# --------------------------------------------------------------------------- statistics


def test_chi_square_asymptotic_matches_closed_form() -> None:
    # 40 questions of 4 choices: every expected count is 10, the chi-square approximation is used.
    positions = [0] * 16 + [1] * 10 + [2] * 8 + [3] * 6
    test = stats.key_positions_test(positions, [4] * 40)
    assert test is not None and not test.exact and test.df == 3
    x = (36 + 0 + 4 + 16) / 10
    # Survival function of chi-square with 3 df: erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2).
    assert test.p == pytest.approx(
        math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    )


def test_chi_square_exact_matches_brute_force() -> None:
    sizes = [4, 4, 3, 4, 2, 4, 3]
    positions = [0, 0, 0, 0, 1, 0, 2]
    test = stats.key_positions_test(positions, sizes)
    assert test is not None and test.exact
    expected = test.expected
    observed_stat = test.statistic
    total = 0.0
    for combo in itertools.product(*(range(n) for n in sizes)):
        counts = [0] * 4
        for k in combo:
            counts[k] += 1
        stat = sum((o - e) ** 2 / e for o, e in zip(counts, expected, strict=True))
        if stat >= observed_stat - 1e-9:
            total += math.prod(1 / n for n in sizes)
    assert test.p == pytest.approx(total)


def test_poisson_binomial_tail_matches_brute_force() -> None:
    probs = [1 / 4, 1 / 3, 1 / 4, 1 / 2, 1 / 5]
    for k in range(7):
        brute = sum(
            math.prod(p if hit else 1 - p for p, hit in zip(probs, hits, strict=True))
            for hits in itertools.product([0, 1], repeat=len(probs))
            if sum(hits) >= k
        )
        assert stats.at_least_p(k, probs) == pytest.approx(brute)
    assert stats.at_least_p(3, [0.25] * 10) == pytest.approx(
        1 - sum(math.comb(10, i) * 0.25**i * 0.75 ** (10 - i) for i in range(3))
    )


def test_key_pattern() -> None:
    cycle = stats.key_pattern([0, 1, 2, 3] * 4, [4] * 16)
    assert cycle is not None and cycle.period == 4 and cycle.length == 16 and cycle.start == 0
    assert cycle.chance == pytest.approx(0.25**12)
    run = stats.key_pattern([0, 1, 2, 2, 2, 2, 2, 2, 3], [4] * 9)
    assert run is not None and run.period == 1 and run.start == 2 and run.length == 6
    assert stats.key_pattern([0, 1], [4, 4]) is None
    whole = stats.key_pattern([0, 1, 2, 3] * 2, [4] * 8)
    assert whole is not None and whole.whole and whole.period == 4 and whole.length == 8
    # p: the quiz's keys have period 4, 3, 2 or 1 (union bound)
    assert whole.p == pytest.approx(0.25**4 + 0.25**5 + 0.25**6 + 0.25**7)
    mixed = stats.key_pattern([0, 1, 2] * 2, [3, 4, 4, 4, 4, 3])
    assert mixed is not None and mixed.whole
    # equalities of period 3: (3, 4), (4, 4), (4, 3) choices: 1/4 each
    assert mixed.chance == pytest.approx(0.25**3)


# --------------------------------------------------------------------------- the command


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture
def in_tmp(tmp_path: Path) -> Iterator[Path]:
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def test_cli_exit_codes_and_text(in_tmp: Path) -> None:
    write(in_tmp, "a.yaml", quiz(NEGATIVE_Q, "en"))
    r = CliRunner().invoke(app, ["lint", "a.yaml"])
    assert r.exit_code == 1
    assert (
        "a.yaml:6:" in r.stderr
        and "warning: question 'q1': the stem asks negatively ('not') without emphasis [LX301]" in r.stderr
    )
    assert "hint: write it in capitals: NOT" in r.stderr
    assert CliRunner().invoke(app, ["lint", "a.yaml", "--exit-zero"]).exit_code == 0
    ok = CliRunner().invoke(app, ["lint", "a.yaml", "--ignore", "LX301"])
    assert ok.exit_code == 0 and "no findings" in ok.stdout
    assert CliRunner().invoke(app, ["lint", "a.yaml", "--select", "LX9"]).exit_code == 2
    assert CliRunner().invoke(app, ["lint", "missing.yaml"]).exit_code == 2
    listed = CliRunner().invoke(app, ["lint", "--list-rules"])
    assert listed.exit_code == 0 and all(r in listed.stdout for r in RULES)


def test_cli_reports_load_errors_and_lints_the_rest(in_tmp: Path) -> None:
    write(in_tmp, "bad.yaml", "id: bad\ntitle: [\n")
    write(in_tmp, "good.yaml", quiz(NEGATIVE_Q, "en"))
    r = CliRunner().invoke(app, ["lint", ".", "--exit-zero"])
    assert r.exit_code == 1
    assert "bad.yaml:" in r.stderr and "error: YAML syntax error" in r.stderr and "[LX301]" in r.stderr


def test_cli_pyproject(in_tmp: Path) -> None:
    write(in_tmp, "a.yaml", quiz(NEGATIVE_Q, "en"))
    write(in_tmp, "pyproject.toml", '[tool.lmsexport.lint]\nignore = ["LX3"]\n')
    assert CliRunner().invoke(app, ["lint", "a.yaml"]).exit_code == 0
    assert CliRunner().invoke(app, ["lint", "a.yaml", "--select", "LX301"]).exit_code == 1
    write(in_tmp, "pyproject.toml", '[tool.lmsexport.lint]\nignore = "LX3"\n')
    bad = CliRunner().invoke(app, ["lint", "a.yaml"])
    assert bad.exit_code == 2 and "must be a list" in bad.stderr


def test_cli_json_github_junit(in_tmp: Path) -> None:
    write(in_tmp, "a.yaml", quiz(NEGATIVE_Q, "en"))
    data = json.loads(CliRunner().invoke(app, ["lint", "a.yaml", "-r", "json"]).stdout)
    assert data["ok"] is False and data["problems"][0]["rule"] == "LX301" and data["counts"]["warnings"] == 1
    data = json.loads(CliRunner().invoke(app, ["lint", "a.yaml", "-r", "json", "--exit-zero"]).stdout)
    assert data["ok"] is True
    gh = CliRunner().invoke(app, ["lint", "a.yaml", "-r", "github"]).stdout
    assert gh.startswith("::warning file=a.yaml,line=6,") and "title=LX301" in gh
    junit = CliRunner().invoke(app, ["lint", "a.yaml", "-r", "junit"]).stdout
    assert 'name="lmsexport lint"' in junit and 'type="LX301"' in junit


SARIF_SCHEMA = ROOT / "tests" / "corpus" / "sarif" / "sarif-2.1.0-rtm.5.json"


def test_sarif_is_valid_against_the_schema(in_tmp: Path) -> None:
    from jsonschema import Draft4Validator

    write(
        in_tmp, "a.yaml", quiz(NEGATIVE_Q + single("q2", "Which?", ["One", "All of the above"], 1, "x"), "en")
    )
    write(in_tmp, "bad.yaml", "id: bad\ntitle: [\n")
    write(in_tmp, "pyproject.toml", '[tool.lmsexport.lint]\ndocs-url = "https://example.org/docs/lint.md"\n')
    r = CliRunner().invoke(app, ["lint", ".", "-r", "sarif"])
    assert r.exit_code == 1
    log = json.loads(r.stdout)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(Draft4Validator(schema).iter_errors(log), key=str)
    assert errors == [], errors[:3]
    run = log["runs"][0]
    rules_ = run["tool"]["driver"]["rules"]
    assert [x["id"] for x in rules_[: len(RULES)]] == list(RULES)
    by_id = {x["id"]: x for x in rules_}
    assert by_id["LX301"]["helpUri"] == "https://example.org/docs/lint.md#lx301"
    assert by_id["LX201"]["defaultConfiguration"]["level"] == "error"
    assert by_id["LX301"]["shortDescription"]["text"] and by_id["LX301"]["fullDescription"]["text"]
    results = {x["ruleId"]: x for x in run["results"]}
    assert set(results) >= {"LX301", "LX201", "source.yaml-syntax"}
    loc = results["LX301"]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "a.yaml", "uriBaseId": "%SRCROOT%"}
    assert loc["region"]["startLine"] == 6 and loc["region"]["startColumn"] > 1
    for result in run["results"]:
        assert rules_[result["ruleIndex"]]["id"] == result["ruleId"]
    assert results["LX201"]["level"] == "error" and run["columnKind"] == "unicodeCodePoints"


def test_sarif_without_docs_url_has_no_help_uri(in_tmp: Path) -> None:
    from jsonschema import Draft4Validator

    write(in_tmp, "a.yaml", quiz(NEGATIVE_Q, "en"))
    log = json.loads(CliRunner().invoke(app, ["lint", "a.yaml", "-r", "sarif"]).stdout)
    assert not list(Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))).iter_errors(log))
    assert all("helpUri" not in r for r in log["runs"][0]["tool"]["driver"]["rules"])
    assert (
        "docs/lint.md#lx301"
        in log["runs"][0]["tool"]["driver"]["rules"][RULES_INDEX["LX301"]]["help"]["markdown"]
    )


RULES_INDEX = {r: i for i, r in enumerate(RULES)}


def test_lint_is_deterministic(tmp_path: Path) -> None:
    a = lint_paths(sorted((ROOT / "source").glob("*.yaml")), LintConfig()).diagnostics
    b = lint_paths(sorted((ROOT / "source").glob("*.yaml")), LintConfig()).diagnostics
    assert a == b


def test_pool_and_serial_agree(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import synth

    files = synth.write_bank(tmp_path / "bank", 1200, seed=3)
    # Plant a duplicate across two files.
    first = files[0].read_text(encoding="utf-8")
    stem = re.search(r"    stem: (.*)\n", first).group(1)  # type: ignore[union-attr]
    last = files[-1].read_text(encoding="utf-8")
    files[-1].write_text(
        re.sub(r"    stem: .*\n", lambda _: f"    stem: {stem}\n", last, count=1), encoding="utf-8"
    )
    serial = lint_paths(files, LintConfig(), jobs=1)
    pooled = lint_paths(files, LintConfig(), jobs=2)
    assert serial.diagnostics == pooled.diagnostics
    assert "LX302" in {d.rule for d in serial.diagnostics}
