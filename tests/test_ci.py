"""CI mode: reports, --strict, build --check, reproducible bytes, atomic output."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lxml import etree
from typer.testing import CliRunner

from lmsexport.cli import app

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"
sys.path.insert(0, str(ROOT / "benchmarks"))
import synth  # noqa: E402


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def lmsexport(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from lmsexport.cli import main; main()", *args],
        cwd=cwd,
        env=env or os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=600,
    )


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------- reports

BROKEN = "tests/cases/ci/broken"


def test_json_report_matches_golden(golden) -> None:
    result = run("check", BROKEN, "--report", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False and report["counts"]["errors"] >= 3
    assert all(
        {"file", "line", "column", "severity", "rule", "message"} <= p.keys() for p in report["problems"]
    )
    golden(CASES / "ci" / "broken.report.json", result.stdout)


def test_github_report_annotates_file_and_line() -> None:
    result = run("check", BROKEN, "--report", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines and all(l.startswith("::error file=tests/cases/ci/broken/") for l in lines)
    assert all(",line=" in l and ",col=" in l for l in lines)


def test_junit_report_parses() -> None:
    result = run("check", BROKEN, "source", "--report", "junit")
    assert result.exit_code == 1
    root = etree.fromstring(result.stdout.encode())
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    # One test case per source file given: the broken one and source/'s quizzes and assessment.
    expected = 1 + len(list((ROOT / "source").glob("*.yaml")))
    assert int(suite.get("tests")) == len(cases) == expected
    failing = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failing == ["tests/cases/ci/broken/zero.yaml"]


def test_warnings_fail_only_under_strict(tmp_path: Path) -> None:
    text = (CASES / "good" / "bom.yaml").read_bytes()[3:].decode().replace('    explanation: "کیونکہ"\n', "")
    (tmp_path / "q.yaml").write_text(text, encoding="utf-8")
    relaxed = run("check", str(tmp_path))
    assert relaxed.exit_code == 0 and "warning: question 'q1' has no explanation" in relaxed.stderr
    strict = run("check", str(tmp_path), "--strict", "--report", "json")
    assert strict.exit_code == 1 and json.loads(strict.stdout)["ok"] is False


def test_seed_bank_checks_clean() -> None:
    result = run("check", "--report", "json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, result.stdout
    assert report["counts"]["errors"] == 0 and report["counts"]["questions"] == 41
    assert [a["id"] for a in report["assessments"]] == ["final-exam"]


# ---------------------------------------------------------------------------- dist/ freshness


def test_committed_dist_is_up_to_date() -> None:
    """A change to source/ without a rebuild fails the suite (and so CI)."""
    result = run("build", "--check")
    assert result.exit_code == 0, result.stderr


def test_stale_dist_is_named(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    assert run("build", "--out", str(out)).exit_code == 0
    gift = sorted((out / "gift").iterdir())
    gift[0].write_text("changed")
    gift[1].unlink()
    (out / "qti21" / "old-quiz.zip").write_bytes(b"PK")
    (out / "cc" / "old-bank.imscc").write_bytes(b"PK")  # the cc13 format's folder is cc/
    result = run("build", "--check", "--out", str(out))
    assert result.exit_code == 1
    assert f"{gift[0]}: error: stale" in result.stderr
    assert f"{gift[1]}: error: missing" in result.stderr
    assert f"{out / 'qti21' / 'old-quiz.zip'}: error: extra" in result.stderr
    assert f"{out / 'cc' / 'old-bank.imscc'}: error: extra" in result.stderr
    assert run("build", "--out", str(out)).exit_code == 0
    assert not (out / "cc" / "old-bank.imscc").exists() and (out / "cc" / "bank.imscc").is_file()


def test_rebuild_leaves_unchanged_files_alone(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    assert run("build", "--out", str(out)).exit_code == 0
    old = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    for p in old:
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
    result = run("build", "--out", str(out))
    assert result.exit_code == 0 and ", 0 written," in result.stdout
    assert all(p.stat().st_mtime_ns == 1_000_000_000 for p in old)


def test_failed_build_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    assert run("build", "--out", str(out)).exit_code == 0
    before = tree_bytes(out)
    result = run("build", BROKEN, "source", "--out", str(out))
    assert result.exit_code == 1 and "nothing written" in result.stderr
    assert tree_bytes(out) == before
    assert not list(tmp_path.glob(".dist.lmsexport-tmp-*"))


# ---------------------------------------------------------------------------- reproducibility


def test_builds_are_byte_identical_across_environments(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "source", src)
    outs = []
    settings = [
        {"TZ": "UTC", "LC_ALL": "C", "PYTHONHASHSEED": "0"},
        {"TZ": "Asia/Karachi", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "12345", "LANG": "ur_PK.UTF-8"},
    ]
    for i, extra in enumerate(settings):
        out = tmp_path / f"out{i}"
        env = {**os.environ, **extra}
        env.pop("SOURCE_DATE_EPOCH", None)
        result = lmsexport("build", str(src), "--out", str(out), env=env)
        assert result.returncode == 0, result.stderr
        outs.append(tree_bytes(out))
        # a different file-system order for the second run: recreate files in reverse order
        files = sorted((f for f in src.rglob("*") if f.is_file()), reverse=True)
        data = {f: f.read_bytes() for f in files}
        for f in files:
            f.unlink()
        for f in files:
            f.write_bytes(data[f])
    assert outs[0].keys() == outs[1].keys() and len(outs[0]) >= 10
    assert outs[0] == outs[1]


def test_source_date_epoch_sets_zip_times(tmp_path: Path) -> None:
    import zipfile

    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    result = lmsexport("build", "--out", str(tmp_path / "o"), "--format", "qti21", env=env)
    assert result.returncode == 0, result.stderr
    zf = zipfile.ZipFile(next((tmp_path / "o" / "qti21").iterdir()))
    assert {i.date_time for i in zf.infolist()} == {(2023, 11, 14, 22, 13, 20)}


# ---------------------------------------------------------------------------- atomic output


def test_killed_build_leaves_dist_unchanged(tmp_path: Path) -> None:
    """SIGKILL a large build at several moments: dist/ is always whole and unchanged."""
    src = tmp_path / "src"
    synth.write_bank(src, 6000)
    out = tmp_path / "dist"
    assert run("build", "--out", str(out)).exit_code == 0  # the seed build: the "previous" dist/
    before = tree_bytes(out)
    fresh = tmp_path / "fresh"
    assert run("build", str(src), "--out", str(fresh)).exit_code == 0
    after = tree_bytes(fresh)  # what a build that ran to the end leaves
    killed = 0
    for delay in (0.2, 0.5, 0.9, 1.4, 2.0):
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from lmsexport.cli import main; main()",
                "build",
                str(src),
                "--out",
                str(out),
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        if proc.returncode == 0:
            break  # finished before the signal: nothing more to kill
        assert proc.returncode == -signal.SIGKILL
        killed += 1
        state = tree_bytes(out)
        # A kill that lands after the final renames (during interpreter shutdown) may leave
        # the new output; anything else must leave the old one. Never a mixture.
        whole = state in (before, after)
        assert whole, f"a build killed after {delay}s left a mixed dist/ ({len(state)} files)"
        if state == after:
            break
    assert killed >= 1, "the build finished too fast to be killed; make the bank larger"
