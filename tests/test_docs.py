"""Docs are tested (sqlite-utils' test_docs.py): every command has help and a README entry,
and every YAML example in docs/source-format.md loads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lmsexport.cli import app
from lmsexport.source import load_paths, load_text

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = sorted(c.name or c.callback.__name__ for c in app.registered_commands)


def test_commands_are_known() -> None:
    assert {"check", "build", "validate"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_and_docs(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.stdout and len(result.stdout.splitlines()) > 5
    assert f"`lmsexport {command}" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("lmsexport ")


def _yaml_blocks() -> list[str]:
    text = (ROOT / "docs" / "source-format.md").read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


@pytest.mark.parametrize("index", range(len(_yaml_blocks())))
def test_source_format_examples_load(index: int, tmp_path: Path) -> None:
    block = _yaml_blocks()[index]
    if block.lstrip().startswith("- id:"):
        header = 'id: example\ntitle: "Example"\nlang: ur\nquestions:\n'
        quiz = load_text(header + block, f"docs/source-format.md#example-{index}")
        assert len(quiz.questions) == 1
    elif "\nsections:" in block:
        # an assessment: resolved against the repository's own bank
        (tmp_path / "example.yaml").write_text(block, encoding="utf-8")
        bank = load_paths([ROOT / "source", tmp_path / "example.yaml"])
        assert [a.id for a in bank.assessments] == ["final-exam", "midterm"]
        assert len(bank.assessments) == 2
    elif "\nmarkup: markdown" in block:
        # images are resolved beside the file: the example's live in tests/cases/rich/img/
        quiz = load_text(block, f"tests/cases/rich/docs-example-{index}.yaml")
        assert quiz.id == "zero-memory-arithmetic"
    else:
        # the quiz-level example: complete it with one question
        body = block.replace("  - ...\n", '  - {id: q1, type: essay, stem: "s", explanation: "e"}\n')
        quiz = load_text(body, "docs/source-format.md#quiz")
        assert quiz.id == "zero-sharded-optimizers"


def test_import_example_runs_as_documented(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/import.md: its GIFT file imports to exactly the YAML it shows, which checks and builds."""
    text = (ROOT / "docs" / "import.md").read_text(encoding="utf-8")
    example = text[text.index("## Example") :]
    gift = re.search(r"```\n(.*?)```", example, re.S)
    shown = re.search(r"```yaml\n(.*?)```", example, re.S)
    printed = re.search(r"```\n(imported .*?)```", example, re.S)
    assert gift is not None and shown is not None and printed is not None
    monkeypatch.chdir(tmp_path)
    Path("moodle.gift").write_text(gift.group(1), encoding="utf-8")
    result = CliRunner().invoke(app, ["import", "moodle.gift", "--out", "source", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert result.stdout == printed.group(1)
    assert Path("source/zero.yaml").read_text(encoding="utf-8") == shown.group(1)
    assert CliRunner().invoke(app, ["check", "source"]).exit_code == 0
    assert CliRunner().invoke(app, ["build", "source"]).exit_code == 0
    assert Path("dist/gift/zero.gift.txt").is_file()
