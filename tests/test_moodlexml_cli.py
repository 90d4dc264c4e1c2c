"""The command line and Moodle XML: `check` reads .xml files as Moodle's importer would, names the
kinds it reads for any other file, and `build` owns dist/moodle (stale, missing and extra files)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lmsexport.cli import app

ROOT = Path(__file__).resolve().parents[1]
DIST_XML = sorted((ROOT / "dist" / "moodle").glob("*.xml"))


def _run(*args: str):  # -> Result
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_check_reads_the_committed_moodle_xml_back() -> None:
    result = _run("check", *map(str, DIST_XML))
    assert result.exit_code == 0, result.stderr
    # final-exam.xml, an assessment's file, reads as the quiz of its 19 candidates.
    # What the writers cannot carry of the fourth quiz is warned about, never an error.
    assert re.fullmatch(r"ok: 6 quizzes, 60 questions \(\d+ warnings\)\n", result.stdout), result.stdout


def test_check_reads_yaml_gift_and_moodle_xml_together(tmp_path: Path) -> None:
    xml = tmp_path / "bank.xml"
    xml.write_bytes(
        b"<quiz><question type='essay'><name><text>n</text></name>"
        b"<questiontext format='html'><text>Write.</text></questiontext><idnumber>essay-1</idnumber>"
        b"</question></quiz>"
    )
    gift = ROOT / "dist" / "gift" / "model-pipeline-parallelism.gift.txt"
    result = _run("check", str(ROOT / "source" / "zero-sharded-optimizers.yaml"), str(gift), str(xml))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("ok: 3 quizzes, ")


def test_check_reports_a_moodle_xml_problem_at_its_line(tmp_path: Path) -> None:
    xml = tmp_path / "bad.xml"
    xml.write_text("<quiz>\n<question type='gapfill'/>\n</quiz>\n")
    result = _run("check", str(xml))
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"{xml.as_posix()}:2: error: question type 'gapfill' is not in standard Moodle"
    )


@pytest.mark.parametrize("name", ["notes.txt", "bank.json", "quiz"])
def test_check_names_the_kinds_it_reads(name: str, tmp_path: Path) -> None:
    other = tmp_path / name
    other.write_text("id: q\n")
    result = _run("check", str(other))
    assert result.exit_code == 2
    assert result.stderr == (
        f"lmsexport: error: {other}: check reads YAML sources (.yaml, .yml), GIFT (.gift, .gift.txt) "
        "and Moodle XML (.xml); this file is none of them\n"
    )


def test_build_owns_dist_moodle(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    assert _run("build", str(ROOT / "source"), "--out", str(out)).exit_code == 0
    written = sorted(p.name for p in (out / "moodle").iterdir())
    assert written == [p.name for p in DIST_XML]
    assert [(out / "moodle" / n).read_bytes() for n in written] == [p.read_bytes() for p in DIST_XML]
    (out / "moodle" / written[0]).unlink()
    shutil.copyfile(DIST_XML[1], out / "moodle" / "extra.xml")
    check = _run("build", str(ROOT / "source"), "--out", str(out), "--check")
    assert check.exit_code == 1
    assert f"{out / 'moodle' / written[0]}: error: missing" in check.stderr
    assert f"{out / 'moodle' / 'extra.xml'}: error: extra" in check.stderr
    rebuilt = _run("build", str(ROOT / "source"), "--out", str(out))
    assert rebuilt.exit_code == 0 and "1 removed" in rebuilt.stdout
    assert sorted(p.name for p in (out / "moodle").iterdir()) == written


def test_build_of_one_format(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    result = _run("build", str(ROOT / "source"), "--out", str(out), "--format", "moodlexml")
    assert result.exit_code == 0, result.stderr
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        f"moodle/{p.name}" for p in DIST_XML
    ]
