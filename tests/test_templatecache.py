"""The page templates' compiled code kept between runs (lmsexport.templatecache): a run with it
compiles nothing and writes the same bytes; a damaged entry, or one the user does not own
alone, is compiled again and changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_RUN = """
import sys
import jinja2
compiled = []
original = jinja2.Environment.compile
def compile(self, source, name=None, filename=None, raw=False, defer_init=False):
    compiled.append(name)
    return original(self, source, name, filename, raw, defer_init)
jinja2.Environment.compile = compile
from lmsexport.cli import main
sys.argv = ["lmsexport"] + sys.argv[1:]
try:
    main()
except SystemExit as e:
    assert not e.code, e.code
print("compiled:", sorted(compiled))
"""


def _build(tmp_path: Path, cache_home: Path, out: Path, *extra: str) -> list[str]:
    """One build of the seed bank (every format) in a fresh process: the templates it compiled."""
    script = tmp_path / "run.py"
    script.write_text(_RUN)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache_home), "CI": "1"}
    argv = [sys.executable, str(script), "build", str(ROOT / "source"), "--out", str(out), *extra]
    run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    line = run.stdout.strip().splitlines()[-1]
    assert line.startswith("compiled: ")
    return eval(line[len("compiled: ") :])  # noqa: S307 - our own script's repr of a list of str


def _tree(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _entries(cache_home: Path) -> list[Path]:
    return sorted((cache_home / "lmsexport" / "templates").glob("*.jinja2c"))


def test_a_second_run_compiles_no_template_and_writes_the_same_bytes(tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    first = _build(tmp_path, cache_home, tmp_path / "a")
    assert first == ["index.html.j2", "quiz.html.j2"]
    entries = _entries(cache_home)
    assert len(entries) == 2
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in entries)
    assert (cache_home / "lmsexport" / "templates").stat().st_mode & 0o777 == 0o700
    again = _build(tmp_path, cache_home, tmp_path / "b")
    assert again == []
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert _entries(cache_home) == entries


@pytest.mark.parametrize("damage", [b"", b"garbage", b"j2" + b"\x80\x04" * 40])
def test_a_damaged_entry_is_compiled_again(tmp_path: Path, damage: bytes) -> None:
    cache_home = tmp_path / "cache"
    _build(tmp_path, cache_home, tmp_path / "a")
    kept = {p: p.read_bytes() for p in _entries(cache_home)}
    for p in kept:
        p.write_bytes(damage if damage else kept[p][: len(kept[p]) // 2])
    assert _build(tmp_path, cache_home, tmp_path / "b") == ["index.html.j2", "quiz.html.j2"]
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert {p: p.read_bytes() for p in _entries(cache_home)} == kept  # written again, whole


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX only")
def test_entries_others_may_write_are_not_run(tmp_path: Path) -> None:
    """A cache directory, or an entry, that another user could have written is not used (its
    code would be run): the template is compiled, and nothing is kept there."""
    cache_home = tmp_path / "cache"
    _build(tmp_path, cache_home, tmp_path / "a")
    where = cache_home / "lmsexport" / "templates"
    entry = _entries(cache_home)[0]
    entry.chmod(0o666)
    assert len(_build(tmp_path, cache_home, tmp_path / "b")) == 1
    entry.chmod(0o600)
    where.chmod(0o777)
    try:
        assert len(_build(tmp_path, cache_home, tmp_path / "c")) == 2
    finally:
        where.chmod(0o700)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "c")


def test_check_uses_the_kept_templates(tmp_path: Path) -> None:
    """`lmsexport check` builds the HTML pages in memory too: with the entries a build kept, it
    compiles nothing."""
    cache_home = tmp_path / "cache"
    _build(tmp_path, cache_home, tmp_path / "a")
    script = tmp_path / "run.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache_home), "CI": "1"}
    run = subprocess.run(
        [sys.executable, str(script), "check", str(ROOT / "source")], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "compiled: []"
