"""Per-phase CPU cost of a build, in ms per question, on a synthetic bank (serial, in-process).

    python benchmarks/phases.py [questions]      # default 2000

Schemas are compiled before timing (a build compiles them once, before the pool forks).
Each phase is timed with time.process_time over the whole bank, best of three.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synth  # noqa: E402

from lmsexport import package  # noqa: E402
from lmsexport.model import Quiz  # noqa: E402
from lmsexport.source import load_paths  # noqa: E402
from lmsexport.validate import validate_tree  # noqa: E402
from lmsexport.writers import WriteContext, gift, html, moodlexml, qti21, qti21_package  # noqa: E402


def best(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = synth.write_bank(Path(tmp), n)
        bank = load_paths(paths, [])
        load_s = best(lambda: load_paths(paths, []))
    package.warm_schemas()
    quizzes: tuple[Quiz, ...] = bank.quizzes
    ctx = WriteContext(formats=("qti21", "gift", "moodlexml", "html"), timestamp=0)

    def items() -> list[object]:
        return [qti21.item_tree(z, q) for z in quizzes for q in z.questions]

    def manifests() -> list[object]:
        return [qti21_package.manifest_tree(z) for z in quizzes]

    trees = items() + manifests()
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
    }
    q = bank.question_count
    print(f"{q} questions, {len(quizzes)} quizzes")
    for name, s in rows.items():
        print(f"{name:36} {s:7.3f} s  {1000 * s / q:6.3f} ms/question")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
