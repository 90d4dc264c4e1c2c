"""The loop guard (tests/loop_guard.py) on tests that leak event loops, in a pytest of its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

LEAKY = """
import asyncio
import warnings

import pytest

@pytest.fixture
def leaky_function_fixture():
    asyncio.set_event_loop(asyncio.new_event_loop())
    yield

@pytest.fixture(scope="module")
def tidy_module_fixture():
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()

def test_body_sets_a_loop():
    asyncio.set_event_loop(asyncio.new_event_loop())

def test_get_event_loop_makes_one():
    asyncio.set_event_loop(None)
    asyncio.set_event_loop_policy(None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        asyncio.get_event_loop()

def test_asyncio_run_is_tidy():
    asyncio.set_event_loop(None)
    asyncio.run(asyncio.sleep(0))

def test_anyio_run_is_tidy():
    import anyio
    anyio.run(anyio.sleep, 0)

def test_function_fixture_leaks(leaky_function_fixture):
    pass

def test_module_fixture_1(tidy_module_fixture):
    assert not tidy_module_fixture.is_closed()

def test_module_fixture_2(tidy_module_fixture):
    assert not tidy_module_fixture.is_closed()
"""

# What a sync Playwright does while it lives (playwright/_impl/_greenlets.py): mark its loop as
# the main thread's running loop. Held by a session fixture, it outlives its module.
HELD = """
import asyncio
import pytest

@pytest.fixture(scope="session")
def held_loop():
    loop = asyncio.new_event_loop()
    asyncio._set_running_loop(loop)
    yield loop
    asyncio._set_running_loop(None)
    loop.close()

def test_uses_the_held_loop(held_loop):
    assert asyncio.get_running_loop() is held_loop

def test_again(held_loop):
    pass
"""

LATER = """
import asyncio

def test_runs_asyncio():
    asyncio.run(asyncio.sleep(0))
"""


def run_pytest(tmp_path: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(TESTS) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    command = [sys.executable, "-m", "pytest", "-p", "loop_guard", "-p", "no:cacheprovider", "-q", "-rfE"]
    return subprocess.run(
        [*command, "--tb=line", *files], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    ).stdout


def test_names_the_test_or_fixture_that_leaves_a_loop(tmp_path: Path) -> None:
    out = run_pytest(tmp_path, {"test_leaky.py": LEAKY})
    assert re.search(r"^2 failed, 5 passed, 1 error in ", out.splitlines()[-1]), out
    assert (
        "test_leaky.py::test_body_sets_a_loop leaves an asyncio event loop in the main thread:\n"
        "  <_UnixSelectorEventLoop running=False closed=False debug=False> (set as the current event loop,"
        " not closed), which appeared in the test body of test_leaky.py::test_body_sets_a_loop"
    ) in out
    assert "which appeared in the test body of test_leaky.py::test_get_event_loop_makes_one" in out
    assert ("the teardown of test_leaky.py::test_function_fixture_leaks leaves an asyncio event loop") in out
    assert (
        "which appeared in fixture 'leaky_function_fixture' (function scope), set up for "
        "test_leaky.py::test_function_fixture_leaks"
    ) in out
    assert "FAILED test_leaky.py::test_body_sets_a_loop" in out
    assert "FAILED test_leaky.py::test_get_event_loop_makes_one" in out
    assert "ERROR test_leaky.py::test_function_fixture_leaks" in out


def test_a_loop_held_past_its_module_fails_the_modules_last_test(tmp_path: Path) -> None:
    out = run_pytest(tmp_path, {"test_held.py": HELD, "test_later.py": LATER})
    assert "ERROR at teardown of test_again" in out, out
    assert (
        "after the last test of test_held.py is torn down, something leaves an asyncio event loop in the"
        " main thread:\n  <_UnixSelectorEventLoop running=False closed=False debug=False> (running), which"
        " appeared in fixture 'held_loop' (session scope), set up for test_held.py::test_uses_the_held_loop"
    ) in out
    # The victim, far from the cause: what the guard is there to explain.
    assert "FAILED test_later.py::test_runs_asyncio" in out
    assert "RuntimeError: asyncio.run() cannot be called from a running event loop" in out


@pytest.mark.parametrize("scope", ["module", "function"])
def test_a_loop_held_within_its_module_passes(tmp_path: Path, scope: str) -> None:
    out = run_pytest(
        tmp_path, {"test_held.py": HELD.replace('"session"', f'"{scope}"'), "test_later.py": LATER}
    )
    assert re.search(r"^3 passed in ", out.splitlines()[-1]), out
