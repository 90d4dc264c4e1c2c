"""No-op and edit-one rebuilds, this checkout against another, medians of alternating runs.

    python benchmarks/rebuild.py SIZE [--repeat N] [--base TREE]

TREE is another checkout of lmsexport (e.g. ``git worktree add --detach ../base main``). For
each checkout (this one, then TREE) a synthetic bank of SIZE questions (benchmarks/synth.py)
is written under benchmarks/out/, built cold, and rebuilt once unchanged (that rebuild finds
every output just written, racily clean, and hashes it). Then, N times, alternating between
the checkouts: a no-op rebuild (must say "(cached)"), an edit of one file (the middle one; one
question's stem, toggled, so each edit is a real change) and its rebuild (must reuse the other
files), and one more rebuild to settle the edit. Wall and CPU seconds (user + system of the
build and its workers) are printed per run and as medians, with the load average.

Every build runs ``python -S`` with PYTHONPATH = the checkout and this interpreter's
site-packages: the rebuild cache's key includes every distribution on sys.path, so a package
installed into a shared environment mid-run (or a checkout on the path through an editable
install) would otherwise make a rebuild a full build.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT / "benchmarks"))
import synth  # noqa: E402


def run(tree: Path, bank: Path, out: Path) -> tuple[float, float, str]:
    env = {**os.environ, "CI": "1", "PYTHONPATH": f"{tree}:{sysconfig.get_paths()['purelib']}"}
    env.pop("SOURCE_DATE_EPOCH", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    argv = [sys.executable, "-S", "-m", "lmsexport", "build", str(bank), "--out", str(out)]
    p = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(p.stderr)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, p.stdout.strip()


def edit(bank: Path) -> None:
    files = sorted(bank.glob("*.yaml"))
    path = files[len(files) // 2]
    text = path.read_text(encoding="utf-8")
    marked = 'stem: "edited '
    new = text.replace(marked, 'stem: "', 1) if marked in text else text.replace('stem: "', marked, 1)
    path.write_text(new, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("size", type=int)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--base", type=Path, help="another checkout to compare with")
    args = parser.parse_args()
    trees = {"this": ROOT} | ({"base": args.base.resolve()} if args.base else {})
    dirs = {}
    for name, tree in trees.items():
        bank, out = WORK / f"rebuild-bank-{args.size}-{name}", WORK / f"rebuild-dist-{args.size}-{name}"
        shutil.rmtree(bank, ignore_errors=True)
        synth.write_bank(bank, args.size)
        shutil.rmtree(out, ignore_errors=True)
        (out.parent / f".{out.name}.lmsexport-cache.json").unlink(missing_ok=True)
        dirs[name] = (tree, bank, out)
        print(
            f"{name}: cold {run(tree, bank, out)[:2]}, first rebuild {run(tree, bank, out)[:2]}", flush=True
        )
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    print(f"load average at the start: {os.getloadavg()}", flush=True)
    for i in range(args.repeat):
        for name, (tree, bank, out) in dirs.items():
            wall, cpu, said = run(tree, bank, out)
            assert "(cached)" in said, said
            times.setdefault((name, "no-op"), []).append((wall, cpu))
            edit(bank)
            wall, cpu, said = run(tree, bank, out)
            assert "quiz files unchanged" in said, said
            times.setdefault((name, "edit one"), []).append((wall, cpu))
            run(tree, bank, out)  # settles the edit: the next no-op is a settled one
        print(
            f"run {i + 1}: "
            + ", ".join(f"{k[0]} {k[1]} {v[-1][0]:.2f}/{v[-1][1]:.2f}" for k, v in times.items())
        )
    print(f"load average at the end: {os.getloadavg()}")
    for (name, what), runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"{args.size:,} {name} {what}: wall median {statistics.median(walls):.2f} s "
            f"({min(walls):.2f}-{max(walls):.2f}), CPU median {statistics.median(cpus):.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
