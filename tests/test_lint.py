"""ruff (lint) and mypy (types) on the package, as part of the suite, so CI enforces them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff() -> None:
    if shutil.which("ruff") is None:
        pytest.skip("ruff is not installed (it is in the [test] extra)")
    result = subprocess.run(
        ["ruff", "check", "--no-cache", "lmsexport", "tests", "benchmarks", "fuzz"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy() -> None:
    pytest.importorskip("mypy", reason="mypy is in the [test] extra")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir=/dev/null"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
