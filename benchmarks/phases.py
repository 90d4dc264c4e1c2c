"""Per-phase CPU cost of a build, in ms per question, on a synthetic bank (serial, in-process).

    python benchmarks/phases.py [questions] [--shape plain|real|parametric] [--repeat N]

The bank is synth.write_bank's of that shape (default 2,000 plain questions). Schemas are
compiled before timing (a build compiles them once, before the pool forks). Each phase is
timed with time.process_time over the whole bank, best of ``--repeat`` (3). A parametric
question is its variants' items in QTI 2.1 (qti21.item_questions), as the writer builds them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synth  # noqa: E402

from lmsexport import package  # noqa: E402
from lmsexport.model import Bank, Quiz  # noqa: E402
from lmsexport.readers.gift import read_quiz  # noqa: E402
from lmsexport.source import load_paths  # noqa: E402
from lmsexport.validate import validate_tree  # noqa: E402
from lmsexport.writers import WriteContext, cc13, gift, html, moodlexml, qti12, qti21, qti21_package  # noqa: E402

REPEAT = 3
"""Timings per phase, the best kept (``--repeat``)."""


def best(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEAT):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def main(n: int, shape: str = "plain") -> None:
    """Print each phase's CPU seconds and ms a question."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = synth.write_bank(Path(tmp), n, shape=shape)
        bank = load_paths(paths, [])
        load_s = best(lambda: load_paths(paths, []))
    package.warm_schemas()
    from lmsexport.validate_qti12 import warm

    warm()
    quizzes: tuple[Quiz, ...] = bank.quizzes
    ctx = WriteContext(formats=("qti21", "gift", "moodlexml", "html"), timestamp=0)

    def items() -> list[object]:
        return [qti21.item_tree(z, v) for z in quizzes for q in z.questions for v in qti21.item_questions(q)]

    def manifests() -> list[object]:
        return [qti21_package.manifest_tree(z) for z in quizzes]

    trees = items() + manifests()
    gift_texts = [
        (z, f.decode("utf-8"))
        for z in quizzes
        for f in [gift.write(Bank((z,)), ctx).files[f"gift/{z.id}.gift.txt"]]
    ]

    def gift_read_back() -> None:
        # check's round trip: every GIFT file read as Moodle would, mapped to the model.
        for z, text in gift_texts:
            read_quiz(text, f"gift/{z.id}.gift.txt", quiz_id=z.id, lang=z.lang)

    rows = {
        "load (YAML -> model)": load_s,
        "qti21 item trees": best(items),
        "qti21 manifests": best(manifests),
        "qti21 validate (items+manifests)": best(
            lambda: [validate_tree(t, "item" if t.tag.endswith("Item") else "manifest", "x") for t in trees]
        ),
        "qti21 serialize": best(lambda: [package.serialize(t) for t in trees]),
        "qti21 whole writer": best(lambda: qti21_package.build_qti21(bank, ctx)),
        "gift writer": best(lambda: gift.write(bank, ctx)),
        "moodlexml writer": best(lambda: moodlexml.write(bank, ctx)),
        "html writer": best(lambda: html.write(bank, ctx)),
        "qti12 whole writer": best(lambda: qti12.build_qti12(bank, ctx)),
        "gift reader (check's read-back)": best(gift_read_back),
    }
    # The cartridges: the per-quiz parts (what a parallel build's workers do), then the assembly
    # (what is left for the build's main process, serially), for each version; and both parts in
    # a row, as a build of both formats makes them (the second reuses the first's items).
    for fmt in ("cc13", "cc11"):
        parts: list[object] = []
        rows[f"{fmt} parts (in the workers)"] = best(
            lambda fmt=fmt, parts=parts: parts.__setitem__(slice(None), cc13.cc_parts(bank, ctx, fmt))
        )
        rows[f"{fmt} assemble (main process)"] = best(
            lambda fmt=fmt, parts=parts: cc13.cc_assemble(parts, (), ctx, fmt)
        )

    def both() -> None:
        for z in quizzes:
            for version in (cc13.CC13, cc13.CC11):
                cc13.cc_part(z, version)

    rows["cc13 + cc11 parts, quiz by quiz"] = best(both)
    q = bank.question_count
    print(f"{q} questions ({shape}), {len(quizzes)} quizzes")
    for name, s in rows.items():
        print(f"{name:36} {s:7.3f} s  {1000 * s / q:6.3f} ms/question")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("questions", nargs="?", type=int, default=2000)
    parser.add_argument("--shape", choices=("plain", "real", "parametric"), default="plain")
    parser.add_argument("--repeat", type=int, default=REPEAT, help="timings per phase, the best kept")
    args = parser.parse_args()
    if args.questions < 1 or args.repeat < 1:
        parser.error("questions and --repeat must be at least 1")
    REPEAT = args.repeat
    main(args.questions, args.shape)
