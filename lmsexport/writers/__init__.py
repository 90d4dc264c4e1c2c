"""The writer registry: one line per output format (pandoc's Writers.hs).

A writer is pure: it takes the whole Bank and a WriteContext and returns an Output, the
files it would write (paths relative to the output directory, as bytes) plus warnings for
what the format cannot carry. It touches no disk, no clock and no randomness; cli.py writes.
Entries are "module:function" strings so that `lmsexport --help` imports no writer.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import Diagnostic
from ..model import Bank


@dataclass(frozen=True)
class WriteContext:
    """What a writer may know beyond the bank."""

    formats: tuple[str, ...]
    """Every format of this build, so a writer can link to the others' files (index.html)."""
    timestamp: int = 315532800
    """Seconds since the epoch for any date a format needs: SOURCE_DATE_EPOCH, else 1980-01-01."""


@dataclass
class Output:
    files: dict[str, bytes] = field(default_factory=dict)
    """Output-relative POSIX path -> content."""
    warnings: list[Diagnostic] = field(default_factory=list)
    """What the format could not carry (lossy conversions), naming the question."""


Writer = Callable[[Bank, WriteContext], Output]

WRITERS: dict[str, str] = {
    "qti21": "lmsexport.writers.qti21_package:build_qti21",
    "qti12": "lmsexport.writers.qti12:build_qti12",
    "cc13": "lmsexport.writers.cc13:build_cc13",
    "gift": "lmsexport.writers.gift:write",
    "moodlexml": "lmsexport.writers.moodlexml:write",
    "html": "lmsexport.writers.html:write",
}
"""Format name -> "module:function" of its Writer, in build order."""

BANK_WIDE = frozenset({"cc13"})
"""Formats whose one output holds the whole bank (a cartridge): a build that works file by file
runs them once, at the end, over every quiz (build.build_files)."""

FOLDERS: dict[str, str] = {"moodlexml": "moodle", "cc13": "cc"}
"""Output folder of a format whose files do not live in a folder named after it."""


def folder_of(name: str) -> str:
    """The output folder a format's files live in (`dist/<folder>/...`), which a build owns."""
    return FOLDERS.get(name, name)


def get_writer(name: str) -> Writer:
    module, func = WRITERS[name].split(":")
    fn: Writer = getattr(importlib.import_module(module), func)
    return fn
