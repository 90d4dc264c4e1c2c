"""The YAML loader: the seed bank loads, accepted variants, located errors (the bad-input corpus
of every rule is tests/bad/yaml/, run by tests/test_bad_inputs.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lmsexport.cli import app
from lmsexport.errors import SourceError
from lmsexport.model import SingleChoice
from lmsexport.source import MAX_DEPTH, MAX_FILE_BYTES, load_paths

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"
BAD = ROOT / "tests" / "bad" / "yaml"
"""The YAML part of the bad-input corpus; tests/test_bad_inputs.py runs every case of it."""


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # Messages carry the path as given: run from the repo root with relative paths.
    monkeypatch.chdir(ROOT)


def test_seed_bank_loads() -> None:
    warnings: list = []
    bank = load_paths(["source"], warnings)
    assert [q.id for q in bank.quizzes] == sorted(q.id for q in bank.quizzes)
    assert len(bank.quizzes) == 5 and bank.question_count == 41
    assert [a.id for a in bank.assessments] == ["final-exam"]
    assert warnings == []
    for quiz in bank.quizzes:
        assert quiz.lang == "ur"
        for q in quiz.questions:
            # the three seed quizzes are single-answer; the fourth has every type but essay, the
            # fifth (training-step-structure) a description, a cloze and orderings
            if quiz.id not in ("zero-memory-arithmetic", "training-step-structure"):
                assert isinstance(q.body, SingleChoice), q.id
                assert len(q.body.key_indexes) == 1, q.id
            assert q.explanation, q.id


def test_check_command_on_seed_bank() -> None:
    result = run("check")
    assert result.exit_code == 0, result.output
    # The pools of the seed exam, then the verdict; the format warnings (what Canvas, GIFT and
    # the cartridges cannot carry of the fourth quiz) are counted, none is an error.
    lines = result.stdout.splitlines()
    assert lines[0].startswith("assessment 'final-exam': ")
    assert re.fullmatch(r"ok: 5 quizzes, 1 assessment, 41 questions \(\d+ warnings, \d+ notes\)", lines[-1])


@pytest.mark.parametrize("name", ["bom.yaml", "crlf.yaml"])
def test_accepted_variants(name: str) -> None:
    bank = load_paths([CASES / "good" / name])
    assert bank.quizzes[0].questions[0].stem == "سوال"


def test_seed_broken_three_ways(tmp_path: Path) -> None:
    """Unknown key, duplicate id, no correct choice: three located errors, exit 1."""
    text = (ROOT / "source" / "zero-sharded-optimizers.yaml").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    shuffle = next(i for i, l in enumerate(lines) if l.startswith("shuffle:"))
    lines[shuffle] = lines[shuffle].replace("shuffle:", "shufle:")
    ids = [i for i, l in enumerate(lines) if l.startswith("  - id: ")]
    lines[ids[1]] = lines[ids[0]]
    first_correct = next(i for i, l in enumerate(lines) if "correct: true" in l)
    owner = max(i for i in ids if i < first_correct)
    del lines[first_correct]
    broken = tmp_path / "broken.yaml"
    broken.write_text("".join(lines), encoding="utf-8")
    result = run("check", str(broken))
    assert result.exit_code == 1
    errors = [l for l in result.stderr.splitlines() if ": error: " in l]
    assert len(errors) == 3, result.stderr
    p = str(broken)
    dup_line = [i for i, l in enumerate(lines) if l == lines[ids[0]]][1]
    choices_line = next(i for i in range(owner, len(lines)) if lines[i].strip() == "choices:")
    assert errors == sorted(errors, key=lambda l: int(l.split(":")[1]))
    assert errors[0].startswith(f"{p}:{shuffle + 1}:1: error: unknown key 'shufle'")
    assert f"{p}:{choices_line + 1}:5: error: question 'zso-redundancy' has no correct choice" in errors
    assert any(
        e.startswith(f"{p}:{dup_line + 1}:9: error: duplicate question id 'zso-redundancy'") for e in errors
    ), errors
    assert "hint: did you mean 'shuffle'?" in result.stderr


def test_cross_file_duplicate_points_at_first(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as e:
        load_paths([BAD / "cross-file-duplicates"])
    messages = [d.message for d in e.value.diagnostics]
    assert any("duplicate quiz id 'quiz-a'" in m for m in messages)
    assert any("differs only by letter case" in m for m in messages)


def test_file_over_size_limit_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:  # sparse: 50 MB on paper, nothing on disk
        fh.truncate(50 * 1024 * 1024)
    with pytest.raises(SourceError) as e:
        load_paths([big])
    assert f"the limit for a source file is {MAX_FILE_BYTES:,} bytes" in str(e.value)


def test_nesting_one_past_the_limit_is_ours_to_refuse(tmp_path: Path) -> None:
    """Just past MAX_DEPTH every YAML parser still parses: the refusal and its wording are ours."""
    deep = tmp_path / "deep.yaml"
    deep.write_text("id: q\nx: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n")
    with pytest.raises(SourceError) as e:
        load_paths([deep])
    (diag,) = e.value.diagnostics
    assert diag.rule == "source.too-deep"
    assert diag.message == f"nesting deeper than {MAX_DEPTH} levels"
    # The root mapping is level 0, so the MAX_DEPTH-th "[" (column 4 + MAX_DEPTH - 1) is refused.
    assert (diag.loc.line, diag.loc.col) == (2, 3 + MAX_DEPTH)


@pytest.mark.parametrize("depth", [100, 10_000, 200_000])
def test_hostile_nesting_is_refused_with_a_located_error(depth: int, tmp_path: Path) -> None:
    """Far past the limit, who refuses first depends on the parser: lmsexport's own check
    (``nesting deeper than 16 levels``) or libyaml's (recent builds stop at 1,000 levels with
    their own wording). Users rely on the refusal, not on whose words: one located error, in
    compiler form, exit 1 through the CLI, no traceback, no crash of the interpreter."""
    deep = tmp_path / "deep.yaml"
    deep.write_text("id: q\nx: " + "[" * depth + "]" * depth + "\n")
    with pytest.raises(SourceError) as e:
        load_paths([deep])
    (diag,) = e.value.diagnostics
    assert diag.rule in ("source.too-deep", "source.yaml-syntax"), diag
    assert diag.loc.path == str(deep) and diag.loc.line == 2 and diag.loc.col >= 4, diag

    result = run("check", str(deep))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert re.fullmatch(rf"{re.escape(str(deep))}:2:\d+: error: \S.*", lines[0]), lines
    assert lines[-1] == "1 error", lines


def test_billion_laughs_is_refused_fast(tmp_path: Path) -> None:
    lol = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lol.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    path = tmp_path / "lol.yaml"
    path.write_text("\n".join(lol) + "\n")
    with pytest.raises(SourceError) as e:
        load_paths([path])
    assert "anchors (&a) are not allowed" in str(e.value)


def test_directory_order_does_not_matter(tmp_path: Path) -> None:
    for name in ("b.yaml", "a.yaml"):
        shutil.copy(ROOT / "source" / "zero-sharded-optimizers.yaml", tmp_path / name)
    (tmp_path / "b.yaml").write_text(
        (tmp_path / "b.yaml")
        .read_text(encoding="utf-8")
        .replace("id: zso-", "id: zzz-")
        .replace("id: zero-sharded-optimizers", "id: another"),
        encoding="utf-8",
    )
    bank = load_paths([tmp_path])
    assert [q.id for q in bank.quizzes] == ["another", "zero-sharded-optimizers"]


def test_missing_path_is_usage_error() -> None:
    result = run("check", "no/such/dir")
    assert result.exit_code == 2
    assert "no such file or directory" in result.stderr


def test_too_many_errors_stop_reading_the_file(tmp_path: Path) -> None:
    from lmsexport.source import MAX_ERRORS_PER_FILE

    path = tmp_path / "keys.yaml"
    path.write_text("id: q\ntitle: t\nlang: en\n" + "".join(f"k{i}: a\n" for i in range(5000)))
    with pytest.raises(SourceError) as e:
        load_paths([path])
    diags = e.value.diagnostics
    assert len(diags) == MAX_ERRORS_PER_FILE + 1
    assert diags[-1].rule == "source.too-many-errors" or any(
        d.rule == "source.too-many-errors" for d in diags
    )
