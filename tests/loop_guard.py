"""A pytest plugin: no test may leave an asyncio event loop in the main thread.

Playwright's sync API marks its event loop as the main thread's running loop for as long as the
Playwright instance lives (playwright/_impl/_greenlets.py, wait_for_future). A fixture that keeps
one alive past its module breaks every later test that starts asyncio (asyncio.run, anyio.run) or
a sync Playwright of its own ("It looks like you are using Playwright Sync API inside the asyncio
loop"), far from the cause. So does code that sets an event loop and never closes it, such as
asyncio.get_event_loop() outside a running loop. This plugin fails the test that leaves such a
loop, and says where the loop appeared:

- a test body may leave none, nor may a function-scoped fixture or a teardown;
- a fixture of a wider scope may hold one until the last test of its module is torn down (a
  module-scoped browser), never longer: a session-scoped one would hold it through every later
  module.

tests/conftest.py registers it; tests/test_loop_guard.py runs it on tests that leak.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import TypeVar

import pytest

T = TypeVar("T")

# Every loop seen, and where it first appeared.
_ORIGINS: dict[asyncio.AbstractEventLoop, str] = {}
# Loops that fixtures wider than a function made: they may live until their module ends.
_OF_WIDE_FIXTURES: set[asyncio.AbstractEventLoop] = set()
# Loops already reported, so that one leak fails one test, not every later one.
_REPORTED: set[asyncio.AbstractEventLoop] = set()
_BEFORE_SETUP = pytest.StashKey[dict[asyncio.AbstractEventLoop, str]]()
_setting_up = "?"  # the node id of the test whose setup runs


def main_thread_loops() -> dict[asyncio.AbstractEventLoop, str]:
    """The event loops the main thread holds: running, or set as current and not closed."""
    found: dict[asyncio.AbstractEventLoop, str] = {}
    running = asyncio._get_running_loop()
    if running is not None:
        found[running] = "running"
    # The policy's current loop, read without asyncio.get_event_loop(), which would make one.
    policy = getattr(asyncio.events, "_event_loop_policy", None)
    current = getattr(getattr(policy, "_local", None), "_loop", None)
    if current is not None and not current.is_closed() and current not in found:
        found[current] = "set as the current event loop, not closed"
    return found


def _note_new(before: dict[asyncio.AbstractEventLoop, str], where: str) -> list[asyncio.AbstractEventLoop]:
    new = [loop for loop in main_thread_loops() if loop not in before]
    for loop in new:
        _ORIGINS.setdefault(loop, where)
    return new


def _fail_for(loops: dict[asyncio.AbstractEventLoop, str], what: str) -> None:
    loops = {loop: state for loop, state in loops.items() if loop not in _REPORTED}
    if not loops:
        return
    _REPORTED.update(loops)
    lines = [
        f"  {loop!r} ({state}), which appeared in {_ORIGINS.get(loop, '?')}" for loop, state in loops.items()
    ]
    pytest.fail(f"{what} an asyncio event loop in the main thread:\n" + "\n".join(lines), pytrace=False)


def pytest_collection_finish(session: pytest.Session) -> None:
    _note_new({}, "the import of a test module or a conftest (collection)")


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[T], request: pytest.FixtureRequest
) -> Generator[None, T, T]:
    before = main_thread_loops()
    try:
        return (yield)
    finally:
        new = _note_new(
            before, f"fixture {fixturedef.argname!r} ({fixturedef.scope} scope), set up for {_setting_up}"
        )
        if fixturedef.scope != "function":  # a function's fixtures are gone after its teardown
            _OF_WIDE_FIXTURES.update(new)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    global _setting_up
    before = item.stash[_BEFORE_SETUP] = main_thread_loops()
    _setting_up = item.nodeid
    try:
        return (yield)
    finally:
        # Fixtures noted theirs already; a loop noted only now is a setup hook's.
        where = f"the setup of {item.nodeid}"
        _OF_WIDE_FIXTURES.update(loop for loop in _note_new(before, where) if _ORIGINS[loop] == where)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    before = main_thread_loops()
    result = yield
    now = main_thread_loops()
    new = _note_new(before, f"the test body of {item.nodeid}")
    _fail_for({loop: now[loop] for loop in new}, f"{item.nodeid} leaves")
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    result = yield
    _note_new(item.stash.get(_BEFORE_SETUP, {}), f"the teardown of {item.nodeid}")
    module = item.getparent(pytest.Module)
    now = main_thread_loops()
    if nextitem is None or nextitem.getparent(pytest.Module) is not module:
        # The module's fixtures are gone: nothing may remain (a session fixture's loop neither).
        where = module.nodeid if module else item.nodeid
        _fail_for(now, f"after the last test of {where} is torn down, something leaves")
    else:
        _fail_for(
            {loop: state for loop, state in now.items() if loop not in _OF_WIDE_FIXTURES},
            f"the teardown of {item.nodeid} leaves",
        )
    return result
