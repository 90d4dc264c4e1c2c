"""ruff (lint) and mypy (types) on the package, as part of the suite, so CI enforces them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> str:
    """ruff from the environment the tests run in (it is in the [test] extra and the lock): a
    missing ruff is a broken environment, which must fail rather than skip the check."""
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert found, "ruff is not installed: install the test requirements (bash scripts/test.sh)"
    return found


def test_ruff() -> None:
    result = subprocess.run(
        [_ruff(), "check", "--no-cache", "lmsexport", "tests", "benchmarks", "fuzz"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy() -> None:
    import mypy  # noqa: F401  (a missing mypy is a broken test environment: fail, do not skip)

    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir=/dev/null"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
