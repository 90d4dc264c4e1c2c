"""A short, bounded coverage-guided fuzz session per target (the long ones: fuzz/fuzz.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECONDS = int(os.environ.get("LMSEXPORT_FUZZ_SECONDS", "8"))

pytest.importorskip("atheris", reason="atheris is part of the [test] extra")


@pytest.mark.parametrize("target", ["yaml", "gift", "moodlexml", "package", "qti12", "cc"])
def test_fuzz_target_runs_clean(target: str, tmp_path: Path) -> None:
    # Seeds go to tmp_path: the run leaves nothing in the repository.
    subprocess.run([sys.executable, "fuzz/fuzz.py", "seed", str(tmp_path / "seeds")], cwd=ROOT, check=True)
    corpus = tmp_path / "seeds" / target
    result = subprocess.run(
        [
            sys.executable,
            "fuzz/fuzz.py",
            target,
            f"-max_total_time={SECONDS}",
            "-rss_limit_mb=2048",
            "-timeout=20",
            f"-artifact_prefix={tmp_path}/",
            str(corpus),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=SECONDS + 120,
    )
    tail = result.stderr[-3000:]
    assert result.returncode == 0, f"fuzz target {target} crashed:\n{tail}"
    assert "Done " in result.stderr, tail
