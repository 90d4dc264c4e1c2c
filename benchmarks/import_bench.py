"""Benchmark `lmsexport import` (a script, not a test).

    python benchmarks/import_bench.py [SIZES...]      # default: 200 2000

For each size: a deterministic synthetic bank (benchmarks/synth.py: single-answer questions in
Urdu and English, feedback on every choice, an explanation each) is built once as GIFT, Moodle XML,
QTI 2.1 and QTI 1.2; then ``lmsexport import`` of each format's folder runs in a fresh process of
this checkout (PYTHONPATH set to it, CI=1) into an empty folder: reading, making ids, writing the
YAML to a staging folder, loading it again and comparing, moving it into place. Wall seconds and
questions per second are printed as a Markdown table. Everything lives under benchmarks/out/
(git-ignored) and is removed afterwards.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / "out" / "import"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import synth  # noqa: E402

FORMATS = {"gift": "gift", "moodlexml": "moodle", "qti21": "qti21", "qti12": "qti12"}


def _lmsexport(*args: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "1"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lmsexport", *args], check=True, env=env, capture_output=True)
    return time.perf_counter() - start


def main(sizes: list[int]) -> None:
    rows = []
    for size in sizes:
        base = WORK / str(size)
        shutil.rmtree(base, ignore_errors=True)
        synth.write_bank(base / "source", size)
        formats = [a for f in FORMATS for a in ("--format", f)]
        _lmsexport("build", str(base / "source"), "--out", str(base / "dist"), *formats)
        for fmt, folder in FORMATS.items():
            seconds = _lmsexport("import", str(base / "dist" / folder), "--out", str(base / f"back-{fmt}"))
            rows.append((size, fmt, seconds, size / seconds))
        shutil.rmtree(base, ignore_errors=True)
    machine = platform.processor() or platform.machine()
    print(f"{machine}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print("| questions | format | wall s | questions/s |")
    print("|---:|---|---:|---:|")
    for size, fmt, seconds, rate in rows:
        print(f"| {size:,} | {fmt} | {seconds:.2f} | {rate:,.0f} |")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [200, 2000])
