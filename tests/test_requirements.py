"""The lock files (requirements/*.txt, made by scripts/lock.sh) still hold what pyproject.toml asks
for: a dependency added or raised without refreshing the locks fails here, with the command
that refreshes them, rather than as an ImportError somewhere in the suite."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PIN_RE = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;\\]+)", re.MULTILINE)
REFRESH = "refresh the locks: bash scripts/lock.sh"


def _pins(name: str) -> dict[str, set[Version]]:
    pins: dict[str, set[Version]] = {}
    for package, version in PIN_RE.findall((ROOT / "requirements" / name).read_text(encoding="utf-8")):
        pins.setdefault(canonicalize_name(package), set()).add(Version(version))
    return pins


def _build_requirements() -> list[str]:
    text = (ROOT / "requirements" / "build.in").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


RUNTIME = PYPROJECT["project"]["dependencies"]
TEST = PYPROJECT["project"]["optional-dependencies"]["test"]
BUILD = PYPROJECT["build-system"]["requires"]


@pytest.mark.parametrize(
    ("lock", "wanted"),
    [("test.txt", RUNTIME + TEST + BUILD), ("run.txt", RUNTIME + BUILD)],
    ids=["test.txt", "run.txt"],
)
def test_every_requirement_is_locked(lock: str, wanted: list[str]) -> None:
    pins = _pins(lock)
    problems = []
    for spec in [*wanted, *_build_requirements()]:
        req = Requirement(spec)
        versions = pins.get(canonicalize_name(req.name), set())
        if not versions:
            problems.append(f"{req.name} is not in requirements/{lock}")
        elif not any(req.specifier.contains(v, prereleases=True) for v in versions):
            problems.append(f"requirements/{lock} pins {req.name} {sorted(map(str, versions))}, not {req}")
    assert problems == [], f"{problems}: {REFRESH}"


def test_run_lock_is_the_test_locks_versions() -> None:
    """Both install into one .venv/: run.txt must not pull a package to another version."""
    test, run = _pins("test.txt"), _pins("run.txt")
    assert {name: v for name, v in run.items() if test.get(name) != v} == {}, REFRESH


@pytest.mark.parametrize("lock", ["test.txt", "run.txt"])
def test_every_pin_carries_its_hashes(lock: str) -> None:
    """pip --require-hashes refuses a lock with one pin without hashes."""
    lines = (ROOT / "requirements" / lock).read_text(encoding="utf-8").splitlines()
    pinned = [i for i, line in enumerate(lines) if PIN_RE.match(line)]
    assert pinned
    bare = [lines[i] for i in pinned if not lines[i + 1].lstrip().startswith("--hash=sha256:")]
    assert bare == [], REFRESH
