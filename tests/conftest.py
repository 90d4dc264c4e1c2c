"""Shared fixtures: golden-file comparison and a small in-memory bank with every question type."""

from __future__ import annotations

import atexit
import difflib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from lmsexport.model import (
    Answer,
    Bank,
    Choice,
    Difficulty,
    Essay,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    Pair,
    Question,
    Quiz,
    ShortAnswer,
    SingleChoice,
    TrueFalse,
)

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

# The suite's builds keep their compiled page templates (lmsexport.templatecache) in a cache
# directory of the session's own, never the user's (subprocesses inherit it).
_CACHE_HOME = tempfile.mkdtemp(prefix="lmsexport-tests-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite the expected files of golden tests from the current output (review the diff!)",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """golden(path, actual, mask=None): compare with the expected file, or rewrite it under --update-golden.

    ``mask``, for text goldens, maps both sides before they are compared: it blanks out what a
    third-party library wrote (a parser's own wording), so the golden file still shows users'
    exact output while the test pins only what is lmsexport's. --update-golden writes the
    output unmasked.
    """
    update = request.config.getoption("--update-golden")

    def check(path: Path, actual: bytes | str, mask: Callable[[str], str] | None = None) -> None:
        data = actual.encode("utf-8") if isinstance(actual, str) else actual
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_bytes() != data:
                path.write_bytes(data)
            return
        assert path.exists(), f"{path} is missing: run pytest --update-golden and review the new file"
        expected = path.read_bytes()
        if mask is None:
            same = expected == data
        else:
            same = mask(expected.decode("utf-8")) == mask(data.decode("utf-8"))
        if not same:
            try:
                diff = "".join(
                    difflib.unified_diff(
                        expected.decode().splitlines(True),
                        data.decode().splitlines(True),
                        str(path),
                        "actual",
                    )
                )
            except UnicodeDecodeError:
                diff = f"binary files differ ({len(expected)} vs {len(data)} bytes)"
            pytest.fail(f"golden mismatch (run pytest --update-golden to accept):\n{diff[:20000]}")

    return check


def make_types_quiz() -> Quiz:
    """A quiz with one question of every type, Urdu with English questions mixed in."""
    return Quiz(
        id="all-types",
        title="ہر قسم کے سوالات",
        lang="ur",
        description="ہر سوال کی قسم کا ایک نمونہ۔",
        difficulty=Difficulty.MEDIUM,
        category="samples/all-types",
        shuffle=False,
        questions=(
            Question(
                id="t-single",
                stem="ZeRO کا کون سا مرحلہ پیرامیٹرز کو بھی شارڈ کرتا ہے؟",
                explanation="مرحلہ 3 پیرامیٹرز کو بھی تقسیم کرتا ہے۔",
                tags=("zero",),
                body=SingleChoice(
                    (
                        Choice("مرحلہ 1", feedback="صرف آپٹیمائزر اسٹیٹ۔"),
                        Choice("مرحلہ 3", credit=1.0, feedback="درست۔"),
                        Choice("مرحلہ 2"),
                    )
                ),
            ),
            Question(
                id="t-multiple",
                lang="en",
                stem="Which of these does ZeRO-3 partition?",
                explanation="Stage 3 partitions optimizer states, gradients and parameters.",
                points=3,
                # The default credits of 3 right choices and 1 wrong: +1/3 each, -1.
                body=MultipleChoice(
                    (
                        Choice("Optimizer states", credit=1 / 3),
                        Choice("Gradients", credit=1 / 3),
                        Choice("Parameters", credit=1 / 3),
                        Choice(
                            "Training data", credit=-1.0, feedback="Data parallelism already splits the data."
                        ),
                    )
                ),
            ),
            Question(
                id="t-true-false",
                stem="ٹینسر متوازی ہر پرت کے اندر مواصلات کا تقاضا کرتی ہے۔",
                explanation="ہر پرت کے جزوی نتائج کو all-reduce کرنا پڑتا ہے۔",
                body=TrueFalse(True),
            ),
            Question(
                id="t-short",
                lang="en",
                stem="Name the PyTorch feature that shards parameters like ZeRO-3.",
                explanation="FullyShardedDataParallel (FSDP).",
                body=ShortAnswer((Answer("FSDP"), Answer("FullyShardedDataParallel"))),
            ),
            Question(
                id="t-numerical",
                lang="en",
                stem="How many bytes per parameter does mixed-precision Adam keep for optimizer state?",
                explanation="fp32 master weights, momentum and variance: 4 + 4 + 4 = 12 bytes.",
                body=Numerical(keys=(NumericKey(answer=12, tolerance=0.5),)),
            ),
            Question(
                id="t-matching",
                lang="en",
                stem="Match each ZeRO stage with what it partitions first.",
                explanation="Each stage adds one more kind of state.",
                body=Matching(
                    (
                        Pair("Stage 1", "Optimizer states"),
                        Pair("Stage 2", "Gradients"),
                        Pair("Stage 3", "Parameters"),
                    ),
                    ("Activations",),
                ),
            ),
            Question(
                id="t-essay",
                stem="3D متوازی کے فوائد اور نقصانات بیان کریں۔",
                explanation="ایک اچھا جواب ڈیٹا، ٹینسر اور پائپ لائن متوازی کا موازنہ کرتا ہے۔",
                body=Essay(),
            ),
        ),
    )


@pytest.fixture
def types_quiz() -> Quiz:
    return make_types_quiz()


@pytest.fixture
def types_bank() -> Bank:
    return Bank((make_types_quiz(),))


# --------------------------------------------------------------------------- no stray files

# What a test run may leave in the working tree: caches, the kept browser screenshots
# (test-artifacts/, gitignored) and fuzz corpora (fuzz/corpus/, gitignored).
_ALLOWED_LEFTOVERS = ("test-artifacts/", "fuzz/corpus/", ".pytest_cache/", ".hypothesis/", ".ruff_cache/",
                      ".mypy_cache/")  # fmt: skip
_LEFTOVERS_KEY = pytest.StashKey[set[str]]()


def _tree_state() -> set[str] | None:
    """`git status` of the repository, ignored files included; None outside a git checkout."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all", "--ignored", "--no-renames"],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return {
        line
        for line in out.splitlines()
        if not line[3:].startswith(_ALLOWED_LEFTOVERS)
        and "__pycache__/" not in line
        and not line.endswith(".pyc")
    }


def pytest_sessionstart(session: pytest.Session) -> None:
    state = _tree_state()
    if state is not None:
        session.config.stash[_LEFTOVERS_KEY] = state


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """No test may leave files outside its temporary directory.

    Compares `git status` before and after the session. Other people (or editors) may change
    the tree while the suite runs, so by default a change is reported as a warning; with CI
    or LMSEXPORT_CHECK_CLEAN=1 in the environment it fails the run.
    """
    import os

    before = session.config.stash.get(_LEFTOVERS_KEY, None)
    after = _tree_state()
    if before is None or after is None:
        return
    new = sorted(after - before)
    if not new:
        return
    message = (
        "the test session changed the working tree (a test wrote outside its tmp_path?):\n  "
        + "\n  ".join(new[:50])
    )
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(message, yellow=True)
    if os.environ.get("CI") or os.environ.get("LMSEXPORT_CHECK_CLEAN") == "1":
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# --------------------------------------------------------------------------- no stray event loops


def pytest_configure(config: pytest.Config) -> None:
    # Registered as a plugin of the whole session, not as this conftest's hooks, which would
    # not see session-scoped fixtures being set up (their node is the session, outside tests/).
    import loop_guard

    if not config.pluginmanager.is_registered(loop_guard):
        config.pluginmanager.register(loop_guard, "loop_guard")
