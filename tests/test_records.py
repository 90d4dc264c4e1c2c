"""records.Maker: records made and copied quickly are the records __init__ and replace() make;
and a Diagnostic made from its list (the rebuild cache's form) is the diagnostic listed."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmsexport.errors import Diagnostic, Severity
from lmsexport.model import Question, SourceLoc
from lmsexport.readers.gift import GiftItem
from lmsexport.readers.moodlexml import MoodleQuestion
from lmsexport.records import Maker, plain_init


@dataclass(frozen=True)
class Plain:
    a: int
    b: str = "b"
    c: tuple[int, ...] = ()


@dataclass(frozen=True)
class Checked:
    a: int
    b: str = "b"

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("a < 0")


@dataclass(frozen=True)
class Factory:
    a: int
    c: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class OwnInit:
    a: int

    def __init__(self, a: int) -> None:
        object.__setattr__(self, "a", abs(a))


@dataclass(frozen=True, slots=True)
class Slotted:
    a: int


def test_plain_init_tells_the_records_apart() -> None:
    assert plain_init(Plain)
    assert not plain_init(Checked)
    assert not plain_init(Factory)
    assert not plain_init(Slotted)
    assert not plain_init(OwnInit) and not plain_init(OwnInit, copying=True)
    assert not plain_init(int)
    # the readers' records are made the quick way: if one gains a __post_init__, this says so
    for cls in (Question, GiftItem):
        assert plain_init(cls), cls
    assert not plain_init(MoodleQuestion)  # meta has a default factory: made by __init__
    assert plain_init(MoodleQuestion, copying=True)  # but copied quickly
    assert plain_init(Factory, copying=True) and not plain_init(Checked, copying=True)


def test_make_is_init() -> None:
    m = Maker(Plain)
    got = m.make({"a": 1}, {"c": (2,)})
    assert got == Plain(a=1, c=(2,))
    assert list(got.__dict__.items()) == list(Plain(a=1, c=(2,)).__dict__.items())
    assert repr(got) == repr(Plain(a=1, c=(2,)))
    assert hash(got) == hash(Plain(a=1, c=(2,)))
    assert pickle.loads(pickle.dumps(got)) == got
    assert m.make({"a": 1, "b": "x"}, {"b": "y"}).b == "y"  # more wins
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.a = 2  # type: ignore[misc]


def test_make_raises_what_init_raises() -> None:
    m = Maker(Plain)
    with pytest.raises(TypeError):
        m.make({"b": "x"})  # a missing
    with pytest.raises(TypeError):
        m.make({"a": 1, "zz": 2})


def test_a_record_with_post_init_is_made_by_its_class() -> None:
    m = Maker(Checked)
    assert not m.quick
    assert m.make({"a": 1}) == Checked(1)
    with pytest.raises(ValueError):
        m.make({"a": -1})
    with pytest.raises(ValueError):
        m.evolve(Checked(1), a=-1)
    f = Maker(Factory)
    assert not f.quick and f.quick_copy
    made = f.make({"a": 1})
    assert made.c == [] and made.c is not f.make({"a": 1}).c
    assert f.evolve(made, a=2) == Factory(2) and f.evolve(made, a=2).c is made.c  # as replace


def test_evolve_is_replace() -> None:
    m = Maker(Plain)
    p = Plain(1, "x", (3,))
    assert m.evolve(p, b="y") == dataclasses.replace(p, b="y")
    assert list(m.evolve(p, c=()).__dict__) == ["a", "b", "c"]
    assert m.evolve(p) == p and m.evolve(p) is not p
    with pytest.raises(TypeError):
        m.evolve(p, zz=1)


_diagnostics = st.builds(
    Diagnostic,
    st.builds(SourceLoc, st.text(max_size=20), st.integers(0, 10**6), st.integers(0, 500)),
    st.text(max_size=40),
    st.sampled_from(list(Severity)),
    st.text(max_size=20),
    st.none() | st.text(max_size=20),
)


@given(_diagnostics)
def test_a_diagnostic_as_a_list_comes_back_the_same(d: Diagnostic) -> None:
    """Diagnostic.from_list(d.as_list()) is d to everything that looks (the rebuild cache keeps
    warnings so, and a no-op prints them from the list without making their location)."""
    listed = json.loads(json.dumps(d.as_list()))  # as the record holds it
    back = Diagnostic.from_list(listed)
    assert type(back) is Diagnostic
    assert back.format() == d.format() and back.sort_key() == d.sort_key()
    assert back.as_list() == d.as_list()
    assert "loc" not in vars(back)  # not made for any of that
    assert back == d and d == back and hash(back) == hash(d) and repr(back) == repr(d)
    assert (back.severity, back.rule, back.hint, back.message) == (d.severity, d.rule, d.hint, d.message)
    assert back.loc == d.loc and "loc" in vars(back)
    for again in (pickle.loads(pickle.dumps(Diagnostic.from_list(listed))), copy.deepcopy(back)):
        assert again == d and again.format() == d.format()
    assert dataclasses.replace(Diagnostic.from_list(listed), rule="other") == dataclasses.replace(
        d, rule="other"
    )
    with pytest.raises(AttributeError, match="'Diagnostic' object has no attribute 'nothing'"):
        back.nothing  # noqa: B018
    # The one field made when asked for must have no class-level default, which would hide it;
    # and Maker's quick copy, which copies the instance's dict, is not for such a class.
    assert "loc" not in vars(Diagnostic) and not plain_init(Diagnostic, copying=True)


@pytest.mark.parametrize(
    "listed",
    [
        ["p", 1, 2, "m", "warning", "r"],
        ("p", 1, 2, "m", "warning", "r", None),
        ["p", "1", 2, "m", "warning", "r", None],
        ["p", True, 2, "m", "warning", "r", None],
        ["p", 1, 2.0, "m", "warning", "r", None],
        ["p", 1, 2, None, "warning", "r", None],
        ["p", 1, 2, "m", "fatal", "r", None],
        ["p", 1, 2, "m", ["warning"], "r", None],
        ["p", 1, 2, "m", "warning", 3, None],
        ["p", 1, 2, "m", "warning", "r", 4],
        [None, 1, 2, "m", "warning", "r", None],
    ],
)
def test_a_list_of_another_shape_is_not_a_diagnostic(listed: object) -> None:
    with pytest.raises(ValueError, match="not a recorded diagnostic"):
        Diagnostic.from_list(listed)
