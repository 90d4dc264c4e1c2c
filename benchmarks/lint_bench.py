"""Benchmark `lmsexport lint` against a cold `lmsexport build` of the same bank, in one run
(a script, not a test).

    python benchmarks/lint_bench.py [SIZES...] [--keep]

For each size (default 100,000 questions) it writes the deterministic synthetic bank of
benchmarks/synth.py, then measures, each in a fresh process of this checkout (PYTHONPATH set to
it, CI=1: no progress bar), alternately so that both see the same machine load:

- cold build: ``lmsexport build BANK --out OUT`` into an empty OUT (every format, every XML file
  validated);
- lint: ``lmsexport lint BANK --exit-zero`` (every rule; the synthetic bank's findings are
  printed as a count, by rule).

Wall and CPU seconds and peak memory (PSS of the process tree) come from bench.measure. The
build is measured by the same function as benchmarks/bench.py, so the numbers compare with
docs/performance.md's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / "out" / "lint"
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench  # noqa: E402
import synth  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[100_000])
    parser.add_argument("--keep", action="store_true", help="keep the banks and outputs")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "1"}
    cmd = [sys.executable, "-m", "lmsexport"]
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print()
    print(
        "| questions | cold build wall s | cold build CPU s | build peak "
        "| lint wall s | lint CPU s | lint peak | lint/build wall | findings |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        bank = WORK / f"bank-{size}"
        if bank.exists():
            shutil.rmtree(bank)
        synth.write_bank(bank, size)
        out = WORK / f"dist-{size}"
        shutil.rmtree(out, ignore_errors=True)
        build = bench.measure([*cmd, "build", str(bank), "--out", str(out)], env)
        if build.returncode != 0:
            raise SystemExit(f"build failed: {build.stdout}")
        lint = bench.measure([*cmd, "lint", str(bank), "--exit-zero", "--report", "json"], env)
        if lint.returncode != 0:
            raise SystemExit(f"lint failed: {lint.stdout[:2000]}")
        report = json.loads(lint.stdout)
        by_rule = Counter(p["rule"] for p in report["problems"])
        found = ", ".join(f"{rule} {n}" for rule, n in sorted(by_rule.items())) or "none"
        print(
            f"| {size:,} | {build.wall:.2f} | {build.cpu:.2f} | {build.peak_rss / 1e6:.0f} MB "
            f"| {lint.wall:.2f} | {lint.cpu:.2f} | {lint.peak_rss / 1e6:.0f} MB "
            f"| {lint.wall / build.wall:.2f}x | {found} |",
            flush=True,
        )
        if not args.keep:
            shutil.rmtree(bank, ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
