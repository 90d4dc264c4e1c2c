"""The GIFT reader's cost per question, in this checkout and against another revision (a script, not a test).

    python benchmarks/gift_reader.py [QUESTIONS] [--against REV] [--rounds N] [--instructions]

Writes the synthetic bank (benchmarks/synth.py, default 2,000 questions) as GIFT with this
checkout's writer, then reads every file back as `lmsexport check` does (read_quiz with the
quiz's id and language), with this checkout's reader and, given --against, with
lmsexport/readers/gift.py as it was at REV, imported beside this checkout's model. A reader
from before the model's change to one class per kind (6269a63, before the reader's performance
work, is one; docs/performance.md has its figures) cannot build today's model: that is reported
as an error, not measured.

- time (default): the two alternate N times (default 7) in one process, each keeping its best
  CPU time (time.process_time), so that both see the same machine load;
- --instructions: each reads the bank once under valgrind's callgrind, and again with nothing
  read; the difference is the instructions the reading took, which no other process on a
  shared machine can change (valgrind must be installed; ~1 minute).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import synth  # noqa: E402

from lmsexport.model import Bank, Quiz  # noqa: E402
from lmsexport.readers import gift as current  # noqa: E402
from lmsexport.source import load_paths  # noqa: E402
from lmsexport.writers import WriteContext, gift  # noqa: E402

CURRENT = "this checkout"


def reader_at(rev: str, tmp: Path) -> ModuleType:
    """lmsexport/readers/gift.py as it was at rev, imported beside this checkout's package (its
    relative imports resolve to this checkout's model, errors and writer)."""
    source = subprocess.run(
        ["git", "show", f"{rev}:lmsexport/readers/gift.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = tmp / "gift_at_rev.py"
    path.write_text(source, encoding="utf-8")
    name = "lmsexport.readers._gift_at_rev"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def gift_files(questions: int, tmp: Path) -> list[tuple[Quiz, str]]:
    bank = load_paths(synth.write_bank(tmp / "bank", questions))
    ctx = WriteContext(formats=("gift",))
    return [
        (z, gift.write(Bank((z,)), ctx).files[f"gift/{z.id}.gift.txt"].decode("utf-8")) for z in bank.quizzes
    ]


def read_all(module: ModuleType, files: list[tuple[Quiz, str]]) -> None:
    for quiz, text in files:
        module.read_quiz(text, f"gift/{quiz.id}.gift.txt", quiz_id=quiz.id, lang=quiz.lang)


def instructions(args: argparse.Namespace, which: str, rounds: int) -> int:
    """Instructions callgrind counts for this script reading the bank ``rounds`` times with ``which``."""
    against = ["--against", args.against] if args.against else []
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
         str(args.questions), *against, "--only", which, "--rounds", str(rounds)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", run.stderr)
    assert found, run.stderr
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", nargs="?", type=int, default=2000)
    parser.add_argument("--against", help="a revision whose reader to compare with (default: none)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind")
    parser.add_argument("--only", help=argparse.SUPPRESS)  # one reader, `rounds` times (for --instructions)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = gift_files(args.questions, Path(tmp))
        readers = {CURRENT: current}
        if args.against:
            try:
                readers = {args.against: reader_at(args.against, Path(tmp)), **readers}
            except subprocess.CalledProcessError as e:
                print(f"error: no reader at {args.against}: {e.stderr.strip()}", file=sys.stderr)
                return 2
            except Exception as e:  # its module does not import beside this checkout's package
                message = f"error: the GIFT reader at {args.against} does not import here: {e!r}"
                print(message, file=sys.stderr)
                return 1
    n = sum(len(z.questions) for z, _ in files)
    if args.only:
        for _ in range(args.rounds):
            read_all(readers[args.only], files)
        return 0
    for name, module in readers.items():  # each reads the bank back whole (not timed)
        try:
            whole = all(module.read_quiz(t, "x", quiz_id=z.id, lang=z.lang)[0] == z for z, t in files)
        except Exception as e:  # (an older reader meets today's model: TypeError, NameError...)
            message = f"error: the GIFT reader at {name} does not build this checkout's model: {e}"
            print(message, file=sys.stderr)
            return 1
        if not whole:
            print(f"error: the GIFT reader at {name} does not read the bank back whole", file=sys.stderr)
            return 1
    if args.instructions:
        if not shutil.which("valgrind"):
            parser.error("valgrind is not installed")
        count = {name: instructions(args, name, 1) - instructions(args, name, 0) for name in readers}
        for name, c in count.items():
            print(f"{name:>14}: {c / n:,.0f} instructions a question")
        if args.against:
            print(f"ratio: {count[args.against] / count[CURRENT]:.1f}x")
        return 0
    best = dict.fromkeys(readers, float("inf"))
    for _ in range(args.rounds):
        for name, module in readers.items():
            start = time.process_time()
            read_all(module, files)
            best[name] = min(best[name], time.process_time() - start)
    for name, seconds in best.items():
        print(f"{name:>14}: {1000 * seconds / n:.3f} ms a question ({seconds:.2f} s for {n:,})")
    if args.against:
        print(f"ratio: {best[args.against] / best[CURRENT]:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
