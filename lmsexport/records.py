"""Frozen dataclasses with many fields, made and copied quickly.

A frozen dataclass's ``__init__`` sets each field with ``object.__setattr__(self, name,
value)``: for a record of 13-35 fields given as keyword arguments, that costs more than filling
a new instance's ``__dict__`` at once, which gives the instance ``__init__`` gives (the same
fields, values and order; equality, hashing, repr, pickling and ``dataclasses.replace`` see no
difference). ``dataclasses.replace`` calls ``__init__`` with every field again. The readers make
and copy such records several times a question when check reads a build's files back, so they
use a :class:`Maker`.

That holds while ``__init__`` is the one dataclasses writes and does nothing else:
:func:`plain_init` checks it once, when a Maker is made, and where it does not hold the Maker
calls the class itself (and ``dataclasses.replace``), so a ``__post_init__`` added to a record
later is still run. Not for the small, many records (locations, choices, answers): an instance
``__dict__`` of their own made them slower to use than ``__init__`` made them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_new = object.__new__


def plain_init(cls: type, *, copying: bool = False) -> bool:
    """Whether ``cls(**values)`` does nothing but set cls's fields to the values and the
    missing ones to their defaults: a dataclass whose ``__init__`` dataclasses wrote (a
    hand-written one in the class body would have been kept, and is not code compiled from
    "<string>"), with no ``__post_init__``, InitVar, default factory, slots or ``__new__`` of
    its own, nor a ``__getattr__`` (a field its instances may lack on purpose, made when asked
    for: errors.Diagnostic.from_list). ``copying``: whether ``dataclasses.replace`` does
    nothing but that, which a default factory does not change (replace gives every field)."""
    code = getattr(cls.__dict__.get("__init__"), "__code__", None)
    return (
        is_dataclass(cls)
        and tuple(cls.__dataclass_fields__) == tuple(f.name for f in fields(cls))  # no InitVar
        and all(f.init and (copying or f.default_factory is MISSING) for f in fields(cls))
        and code is not None
        and code.co_filename == "<string>"
        and not hasattr(cls, "__post_init__")
        and "__slots__" not in cls.__dict__
        and not hasattr(cls, "__getattr__")
        and cls.__new__ is object.__new__
    )


class Maker(Generic[T]):
    """Makes and copies instances of one frozen dataclass as ``cls(**values)`` and
    ``dataclasses.replace`` would, quickly where :func:`plain_init` holds for it."""

    __slots__ = ("cls", "quick", "quick_copy", "defaults", "required")

    def __init__(self, cls: type[T]) -> None:
        self.cls = cls
        self.quick = plain_init(cls)
        self.quick_copy = plain_init(cls, copying=True)
        self.defaults = {f.name: f.default for f in fields(cls)}  # type: ignore[arg-type]
        """Every field at its default (MISSING where the field has none)."""
        self.required = frozenset(n for n, d in self.defaults.items() if d is MISSING)

    def make(self, given: Mapping[str, Any], more: Mapping[str, Any] | None = None) -> T:
        """``cls(**given, **more)`` (``more`` wins where both name a field)."""
        defaults = self.defaults
        if (
            not self.quick
            or not given.keys() <= defaults.keys()
            or (more is not None and not more.keys() <= defaults.keys())
            or not self.required <= (given.keys() | more.keys() if more else given.keys())
        ):
            return self.cls(**(dict(given, **more) if more else given))  # and its TypeError
        made: T = _new(self.cls)
        d = made.__dict__
        d.update(defaults)
        d.update(given)
        if more:
            d.update(more)
        return made

    def evolve(self, obj: T, **changes: Any) -> T:
        """``dataclasses.replace(obj, **changes)``."""
        if not self.quick_copy or type(obj) is not self.cls or not changes.keys() <= self.defaults.keys():
            return dataclasses.replace(obj, **changes)  # type: ignore[type-var]  # and its TypeError
        made: T = _new(self.cls)
        d = made.__dict__
        d.update(obj.__dict__)
        d.update(changes)
        return made
