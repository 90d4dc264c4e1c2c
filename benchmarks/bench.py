"""Benchmark lmsexport from 200 to 100,000 questions (a script, not a test): one run per size
measures every figure of docs/performance.md.

    python benchmarks/bench.py [SIZES...] [--shape plain|real|both] [--text2qti PATH]
                               [--text2qti-max N] [--rounds N] [--ratio-rounds N] [--keep]

For each size and each bank (benchmarks/synth.py: the plain single-choice bank and the
real-shaped one, a fifth of its questions with partial credit, combined feedback, hints, graded
short answers, numerical with units, cloze where supported) it generates the bank, then
measures, each in a fresh process of this checkout's lmsexport (PYTHONPATH is set to it,
whatever is installed), with CI=1 so that no progress bar is drawn:

- cold: ``lmsexport build`` of every format, every XML file validated, into an empty OUT;
- no-op: the same command again with nothing changed, after one rebuild that settles the
  cold build's outputs (the first rebuild finds every output just written, racily clean, and
  hashes it: see lmsexport/cache.py);
- edit one: one question's stem changed in one source file (the middle one), then the same
  command: the rebuild cache has it build that file's outputs only (and index.html if needed);
- check: ``lmsexport check`` of the same bank (every format built in memory and validated, every
  GIFT and Moodle XML file read back and compared), no output;
- floor: zipping (same level, same order) and writing, with fsync, the very bytes the build
  wrote, in one process, without generating or validating anything.

With more than one bank (--shape both or all), --ratio-rounds rounds (3 by default, the first
being the cold build above) alternate a cold build of each bank, and the cost a question of the
real-shaped (and parametric) bank over the plain one is given per round and as the median of the
rounds: one cold build each drifts with the machine's neighbours by more than the target's
margin (20 % between two runs of the same 20,000-question bank measured on this shared machine).
Each of those rounds also runs `check` right after its cold build (the first, after the rebuilds),
and check/cold is given per round and as the median, for one bank as for several.

On the plain bank, up to --text2qti-max questions, --rounds rounds alternate ``text2qti`` (on
one text file holding the same questions, choices, per-choice feedback and explanations as
general feedback: QTI 1.2 only, validates nothing), a cold build of every format and a cold
build of QTI 1.2 alone (``--format qti12``, validated); medians and ratios by wall and CPU,
measured without the memory sampler (measure()).
text2qti is best installed into a venv of its own (``--text2qti VENV/bin/text2qti``): the
rebuild cache's key holds every distribution installed beside lmsexport.

Wall and CPU seconds (CPU = user + system of the process and its workers), peak RSS (the
largest sum of PSS over the process tree, sampled every 50 ms) and bytes written are printed as
Markdown tables, with the machine and the load average at the start and the end. Last, the
GIFT reader's cost per question on a 2,000-question bank (benchmarks/gift_reader.py, run
alone with --against REV to compare with another revision; --no-reader skips it). The banks and outputs live
under benchmarks/out/ (git-ignored) and are removed afterwards unless --keep is given.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import synth  # noqa: E402

DEFAULT_SIZES = (200, 2000, 20000, 100000)


@dataclass
class Run:
    wall: float
    cpu: float
    peak_rss: int
    """Bytes: the largest sum of proportional resident memory over the process and its descendants."""
    returncode: int
    stdout: str


def _tree_rss(pid: int) -> int:
    """Memory of pid and every descendant, from /proc (Linux): the sum of their PSS, so that
    pages a forked worker still shares with its parent are counted once, not once a process."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/smaps_rollup", encoding="ascii", errors="replace") as fh:
                for line in fh:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as fh:
                    stack += [int(c) for c in fh.read().split()]
        except (OSError, ValueError):
            continue
    return total


def measure(argv: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT, peak: bool = True) -> Run:
    """Run argv to completion; wall, CPU of it and its waited-for children, and (``peak``) its
    peak tree RSS, else 0.

    The sampler is not free: each reading of smaps_rollup walks the page tables of every
    process of the tree, on one of the machine's two cores. A cold build of QTI 1.2 alone at
    2,000 questions took 0.68 s sampled against 0.65 s unsampled (medians of 5 alternating
    rounds), while text2qti, one process leaving the other core to the sampler, did not move.
    So rows that report no peak (the comparison with text2qti) are measured without it."""
    top = 0
    done = threading.Event()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def sample() -> None:
        nonlocal top
        while not done.is_set():
            top = max(top, _tree_rss(proc.pid))
            done.wait(0.05)  # every 10 ms the sampler itself took ~0.3 of a core of the two

    sampler = threading.Thread(target=sample, daemon=True) if peak else None
    if sampler is not None:
        sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    if sampler is not None:
        sampler.join()
    # communicate() reaped the child; its rusage (with its workers') is in RUSAGE_CHILDREN.
    usage = _children_cpu()
    cpu = usage - measure.cpu_before  # type: ignore[attr-defined]
    measure.cpu_before = usage  # type: ignore[attr-defined]
    if proc.returncode != 0:
        sys.stderr.write(err)
    return Run(wall, cpu, top, proc.returncode, out)


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


measure.cpu_before = _children_cpu()  # type: ignore[attr-defined]


def lmsexport_env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "1"}
    env.pop("SOURCE_DATE_EPOCH", None)
    return env


def lmsexport(*args: str) -> list[str]:
    return [sys.executable, "-c", "from lmsexport.cli import run; run()", *args]


def tree_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def floor(out: Path, dest: Path) -> float:
    """Seconds to zip and write (fsync'ed) the bytes of ``out`` without making or checking them."""
    from lmsexport.package import zip_members

    packages: dict[str, dict[str, bytes]] = {}
    plain: dict[str, bytes] = {}
    for p in sorted(out.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(out).as_posix()
        if p.suffix == ".zip":
            with zipfile.ZipFile(io.BytesIO(p.read_bytes())) as zf:
                packages[rel] = {n: zf.read(n) for n in zf.namelist()}
        else:
            plain[rel] = p.read_bytes()
    start = time.perf_counter()
    files = {rel: zip_members(members, 315532800) for rel, members in packages.items()}
    files.update(plain)
    for rel, data in files.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    return time.perf_counter() - start


def text2qti_source(bank_dir: Path, dest: Path) -> Path:
    """The bank as one text2qti quiz: same stems, choices, per-choice feedback, explanations."""
    from lmsexport.model import Choice, MultipleChoice, SingleChoice
    from lmsexport.source import load_paths

    bank = load_paths([bank_dir])
    lines = ["Quiz title: synthetic bank", ""]
    n = 0
    for quiz in bank.quizzes:
        for q in quiz.questions:
            n += 1
            lines.append(f"{n}.  {q.stem}")
            if q.explanation:
                lines.append(f"... {q.explanation}")
            choices: tuple[Choice, ...] = ()
            right: tuple[int, ...] = ()
            if isinstance(q.body, SingleChoice | MultipleChoice):
                choices, right = q.body.choices, q.body.key_indexes
            for i, c in enumerate(choices):
                mark = "*" if i in right else ""
                lines.append(f"{mark}{'abcdefghij'[i]}) {c.text}")
                if c.feedback:
                    lines.append(f"... {c.feedback}")
            lines.append("")
    dest.write_text("\n".join(lines), encoding="utf-8")
    return dest


def machine() -> list[str]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem = next(x for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal"))
        memory = f"{int(mem.split()[1]) / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        memory = "unknown"
    import zlib

    from lxml import etree

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = load_average()
    return [
        f"- CPU: {cpus} usable ({model}); memory {memory}; load average at start {load}",
        f"- Python {platform.python_version()} on {platform.system()} {platform.release()}",
        f"- lxml {'.'.join(map(str, etree.LXML_VERSION))}, "
        f"libxml2 {'.'.join(map(str, etree.LIBXML_VERSION))}, zlib {zlib.ZLIB_RUNTIME_VERSION}",
    ]


def mb(n: int) -> str:
    return f"{n / 1024 / 1024:.0f} MB"


def median_run(runs: list[Run]) -> Run:
    """The run of median wall time (its CPU with it); a failed run wins, to be reported."""
    failed = [r for r in runs if r.returncode != 0]
    if failed:
        return failed[0]
    return sorted(runs, key=lambda r: r.wall)[len(runs) // 2]


def fresh_out(out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    (out.parent / f".{out.name}.lmsexport-cache.json").unlink(missing_ok=True)
    shutil.rmtree(out.parent / f".{out.name}.lmsexport-cache.d", ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=list(DEFAULT_SIZES))
    parser.add_argument(
        "--text2qti-max", type=int, default=20000, help="largest size text2qti is run on (default 20000)"
    )
    parser.add_argument(
        "--text2qti",
        default=shutil.which("text2qti"),
        help="the text2qti executable (default: the one on PATH; e.g. a separate venv's bin/text2qti)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of the comparison with text2qti, alternating (text2qti, every format, QTI 1.2 "
        "alone); medians are reported (default 3)",
    )
    parser.add_argument(
        "--shape",
        choices=("plain", "real", "parametric", "both", "all"),
        default="both",
        help="which synthetic bank (benchmarks/synth.py): plain single choice, real-shaped, a fifth "
        "parametric, both (plain and real) or all three",
    )
    parser.add_argument(
        "--ratio-rounds",
        type=int,
        default=3,
        help="rounds of alternating cold builds of each bank, for the cost ratios (default 3)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the banks and outputs (benchmarks/out/)")
    parser.add_argument("--no-reader", action="store_true", help="skip the GIFT reader comparison")
    parser.add_argument(
        "--format",
        action="append",
        dest="formats",
        help="build only these formats (repeatable; default all); check always checks every format",
    )
    parser.add_argument("--no-check", action="store_true", help="skip the check rows")
    args = parser.parse_args()
    # Bytecode as an installed package has it (PYTHONDONTWRITEBYTECODE in the caller's
    # environment would otherwise have every run compile the modules it changed).
    import compileall

    compileall.compile_dir(str(ROOT / "lmsexport"), quiet=1)
    WORK.mkdir(parents=True, exist_ok=True)
    groups = {"both": ("plain", "real"), "all": ("plain", "real", "parametric")}
    shapes = groups.get(args.shape, (args.shape,))
    header = (
        "| questions | bank | quizzes | cold wall s | cold CPU s | CPU ms/question | peak RSS "
        "| bytes written | no-op wall / CPU s | edit one wall / CPU s | check wall / CPU s "
        "| check/cold wall, CPU | floor s | cold/floor (wall) |"
    )
    rows = [header, "|" + "---|" * (header.count("|") - 1)]
    compare = [
        "| questions | rounds | text2qti wall / CPU s | every format wall / CPU s | ratio wall, CPU "
        "| QTI 1.2 alone wall / CPU s | ratio wall, CPU |",
        "|---|---|---|---|---|---|---|",
    ]
    per_question: dict[tuple[int, str], list[float]] = {}
    check_cold: dict[tuple[int, str], list[tuple[float, float]]] = {}
    print("\n".join(machine()), flush=True)
    print(f"- formats built: {', '.join(args.formats) if args.formats else 'all (the default)'}", flush=True)
    print(f"- real-shaped bank's kinds: {', '.join(synth.real_kinds())}", flush=True)
    env = lmsexport_env()
    chosen = [arg for f in args.formats or () for arg in ("--format", f)]
    for n in args.sizes:
        for shape in shapes:
            bank = WORK / f"bank-{n}-{shape}"
            shutil.rmtree(bank, ignore_errors=True)  # fresh: a kept bank may hold an earlier run's edit
            synth.write_bank(bank, n, shape=shape)
            out = WORK / f"dist-{n}-{shape}"
            fresh_out(out)
            build_argv = lmsexport("build", str(bank), "--out", str(out), *chosen)
            cold = measure(build_argv, env)
            if cold.returncode != 0:
                print(f"build of {n} questions ({shape}) failed", file=sys.stderr)
                return 1
            quizzes = len(list(bank.glob("*.yaml")))
            written = tree_bytes(out)
            measure(build_argv, env)  # the first rebuild: every output just written, hashed
            noop = measure(build_argv, env)
            if "(cached)" not in noop.stdout:
                print(f"the no-op rebuild was not cached: {noop.stdout}", file=sys.stderr)
            edited = edit_one(bank)
            edit = measure(build_argv, env)
            if edit.returncode != 0 or f"({quizzes - 1} of {quizzes} quiz files" not in edit.stdout:
                print(f"the edit-one rebuild did not reuse the other files: {edit.stdout}", file=sys.stderr)
            check = (
                Run(float("nan"), float("nan"), 0, 0, "")
                if args.no_check
                else measure(lmsexport("check", str(bank)), env)
            )
            if check.returncode != 0:
                print(f"check of {n} questions ({shape}) failed", file=sys.stderr)
                return 1
            print(f"  ({n:,} {shape}: edited {edited.name}; {edit.stdout.strip()})", flush=True)
            floor_dir = WORK / f"floor-{n}"
            shutil.rmtree(floor_dir, ignore_errors=True)
            floor_s = floor(out, floor_dir)
            shutil.rmtree(floor_dir, ignore_errors=True)
            per_question[(n, shape)] = [cold.cpu / n]
            check_cold[(n, shape)] = [] if args.no_check else [(check.wall / cold.wall, check.cpu / cold.cpu)]
            cells = [
                f"{n:,}", shape, str(quizzes), f"{cold.wall:.2f}", f"{cold.cpu:.2f}",
                f"{1000 * cold.cpu / n:.2f}", mb(cold.peak_rss), mb(written),
                f"{noop.wall:.2f} / {noop.cpu:.2f}", f"{edit.wall:.2f} / {edit.cpu:.2f}",
                f"{check.wall:.2f} / {check.cpu:.2f}",
                f"{check.wall / cold.wall:.2f}, {check.cpu / cold.cpu:.2f}",
                f"{floor_s:.2f}", f"{cold.wall / floor_s:.1f}x",
            ]  # fmt: skip
            rows.append("| " + " | ".join(cells) + " |")
            print(rows[-1], flush=True)
            if shape == "plain" and args.text2qti and n <= args.text2qti_max:
                compare.append(compare_text2qti(n, bank, args.text2qti, args.rounds, chosen, env))
                print(compare[-1], flush=True)
        for _ in range(args.ratio_rounds - 1):
            for shape in shapes:
                bank = WORK / f"bank-{n}-{shape}"
                out = WORK / f"dist-{n}-{shape}"
                fresh_out(out)
                again = measure(lmsexport("build", str(bank), "--out", str(out), *chosen), env)
                if again.returncode != 0:
                    print(f"build of {n} questions ({shape}) failed", file=sys.stderr)
                    return 1
                per_question[(n, shape)].append(again.cpu / n)
                if not args.no_check:
                    check = measure(lmsexport("check", str(bank)), env)
                    if check.returncode != 0:
                        print(f"check of {n} questions ({shape}) failed", file=sys.stderr)
                        return 1
                    check_cold[(n, shape)].append((check.wall / again.wall, check.cpu / again.cpu))
        if args.ratio_rounds > 1:
            print(
                f"  ({n:,}: cold CPU ms a question by round: "
                + "; ".join(
                    f"{shape} " + ", ".join(f"{1000 * c:.2f}" for c in per_question[(n, shape)])
                    for shape in shapes
                )
                + ")",
                flush=True,
            )
        if not args.keep:
            for shape in shapes:
                shutil.rmtree(WORK / f"bank-{n}-{shape}", ignore_errors=True)
                fresh_out(WORK / f"dist-{n}-{shape}")
    help_run = measure(lmsexport("--help"), lmsexport_env())
    seed_out = WORK / "dist-seed"
    fresh_out(seed_out)
    seed = measure(lmsexport("build", "source", "--out", str(seed_out)), lmsexport_env())
    fresh_out(seed_out)
    reader = None
    if not args.no_reader:
        reader = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "gift_reader.py")],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    print()
    print("\n".join(rows))
    print()
    if len(compare) > 2:
        print("\n".join(compare))
        print()
    for n in args.sizes:
        for shape, name in (("real", "real-shaped"), ("parametric", "a fifth parametric")):
            if (n, "plain") in per_question and (n, shape) in per_question:
                ratios = [
                    r / p for r, p in zip(per_question[(n, shape)], per_question[(n, "plain")], strict=True)
                ]
                print(
                    f"- {n:,}: cold CPU a question, {name} / plain: {statistics.median(ratios):.2f}x, "
                    f"the median of {len(ratios)} alternating rounds ("
                    + ", ".join(f"{r:.2f}" for r in ratios)
                    + ")"
                )
    for (n, shape), pairs in check_cold.items():
        if len(pairs) > 1:
            walls, cpus = [w for w, _ in pairs], [c for _, c in pairs]
            print(
                f"- {n:,} {shape}: check/cold {statistics.median(walls):.2f}x wall, "
                f"{statistics.median(cpus):.2f}x CPU, the medians of {len(pairs)} rounds, each a cold "
                "build then a check (" + ", ".join(f"{w:.2f}/{c:.2f}" for w, c in pairs) + ")"
            )
    print(f"- `lmsexport --help`: {help_run.wall:.2f} s")
    print(f"- seed bank (source/), cold, schema compile included: {seed.wall:.2f} s")
    if reader is not None:
        print("- GIFT reader, 2,000 questions (benchmarks/gift_reader.py):")
        print("".join(f"  - {line}\n" for line in reader.splitlines()), end="")
    print(f"- load average at the end: {load_average()}")
    return 0


def compare_text2qti(
    n: int, bank: Path, text2qti: str, rounds: int, chosen: list[str], env: dict[str, str]
) -> str:
    """Rounds alternating text2qti (QTI 1.2, no validation), a cold build of every format and a
    cold build of QTI 1.2 alone (both validated), on the same single-choice bank; the medians
    and the ratios to text2qti, by wall and by CPU, as a table row."""
    t2q_dir = WORK / f"text2qti-{n}"
    shutil.rmtree(t2q_dir, ignore_errors=True)
    t2q_dir.mkdir()
    src = text2qti_source(bank, t2q_dir / "bank.txt")
    every_out, qti12_out = WORK / f"cmp-all-{n}", WORK / f"cmp-qti12-{n}"
    runs: dict[str, list[Run]] = {"text2qti": [], "all": [], "qti12": []}
    for _ in range(rounds):
        for f in t2q_dir.glob("*.zip"):
            f.unlink()
        runs["text2qti"].append(measure([text2qti, src.name], cwd=t2q_dir, peak=False))
        fresh_out(every_out)
        every = lmsexport("build", str(bank), "--out", str(every_out), *chosen)
        runs["all"].append(measure(every, env, peak=False))
        fresh_out(qti12_out)
        qti12 = lmsexport("build", str(bank), "--out", str(qti12_out), "--format", "qti12")
        runs["qti12"].append(measure(qti12, env, peak=False))
    for d in (t2q_dir, every_out, qti12_out):
        fresh_out(d)
    t, a, q = (median_run(runs[k]) for k in ("text2qti", "all", "qti12"))
    if t.returncode != 0:
        return f"| {n:,} | {rounds} | text2qti failed | | | | |"
    return (
        f"| {n:,} | {rounds} | {t.wall:.2f} / {t.cpu:.2f} | {a.wall:.2f} / {a.cpu:.2f} "
        f"| {a.wall / t.wall:.2f}x, {a.cpu / t.cpu:.2f}x | {q.wall:.2f} / {q.cpu:.2f} "
        f"| {q.wall / t.wall:.2f}x, {q.cpu / t.cpu:.2f}x |"
    )


def edit_one(bank: Path) -> Path:
    """Change the first question's stem in the middle source file of the bank; return the file."""
    files = sorted(bank.glob("*.yaml"))
    path = files[len(files) // 2]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('stem: "', 'stem: "edited ', 1), encoding="utf-8")
    return path


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


if __name__ == "__main__":
    raise SystemExit(main())
