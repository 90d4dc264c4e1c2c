"""The writer registry: one line per output format (pandoc's Writers.hs).

A writer is pure: it takes the whole Bank and a WriteContext and returns an Output, the
files it would write (paths relative to the output directory, as bytes) plus warnings for
what the format cannot carry. It touches no disk, no clock and no randomness; cli.py writes.
Entries are "module:function" strings so that `lmsexport --help` imports no writer.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import Diagnostic
from ..model import Assessment, Bank


@dataclass(frozen=True)
class WriteContext:
    """What a writer may know beyond the bank."""

    formats: tuple[str, ...]
    """Every format of this build, so a writer can link to the others' files (index.html)."""
    timestamp: int = 315532800
    """Seconds since the epoch for any date a format needs: SOURCE_DATE_EPOCH, else 1980-01-01."""
    known_valid: frozenset[str] = frozenset()
    """Digests (``valid_digest``) of documents an earlier build of the same code, schemas and
    libraries validated without a problem: a writer need not validate a document of these
    bytes again (the rebuild cache's record keeps them; see docs/performance.md)."""


@dataclass
class Output:
    files: dict[str, bytes] = field(default_factory=dict)
    """Output-relative POSIX path -> content."""
    warnings: list[Diagnostic] = field(default_factory=list)
    """What the format could not carry (lossy conversions), naming the question."""
    validated: list[str] = field(default_factory=list)
    """Digests (``valid_digest``) of this output's documents known to be without a problem
    (validated now, or found in ``WriteContext.known_valid``), for a later build's
    ``known_valid``."""


def valid_digest(kind: str, schema: str, data: bytes) -> str:
    """What a document of ``kind`` validated against ``schema`` (a namespace or schema path) is
    known by: the sha256 of both and of its bytes."""
    digest = hashlib.sha256(f"{kind}\0{schema}\0".encode())
    digest.update(data)
    return digest.hexdigest()


Writer = Callable[[Bank, WriteContext], Output]

WRITERS: dict[str, str] = {
    "qti21": "lmsexport.writers.qti21_package:build_qti21",
    "qti12": "lmsexport.writers.qti12:build_qti12",
    "cc13": "lmsexport.writers.cc13:build_cc13",
    "cc11": "lmsexport.writers.cc13:build_cc11",
    "gift": "lmsexport.writers.gift:write",
    "moodlexml": "lmsexport.writers.moodlexml:write",
    "html": "lmsexport.writers.html:write",
}
"""Format name -> "module:function" of its Writer, in build order."""

Part = Callable[[Bank, WriteContext], list[Any]]
"""What a bank-wide format makes of some quizzes: the parts of its one output they contribute
(picklable: a parallel build makes them in a worker, per source file)."""
Assemble = Callable[[Iterable[Any], Sequence[Assessment], WriteContext], Output]
"""A bank-wide format's one output from every quiz's part and the bank's resolved assessments."""

SPLIT: dict[str, tuple[str, str]] = {
    "cc13": ("lmsexport.writers.cc13:cc13_parts", "lmsexport.writers.cc13:cc13_assemble"),
    "cc11": ("lmsexport.writers.cc13:cc11_parts", "lmsexport.writers.cc13:cc11_assemble"),
}
"""Formats whose one output holds the whole bank (a cartridge), written in two steps: the part
function runs per source file (with the other formats' writers, in the workers of a parallel
build) and the assemble function once, at the end, with every part. Their registered writer
(WRITERS) is the two steps in one, for a bank in memory: the same bytes."""

LOSSES: dict[str, str] = {
    "cc13": "lmsexport.writers.cc13:cc13_losses",
    "cc11": "lmsexport.writers.cc13:cc11_losses",
}
"""Per bank-wide format, the warnings its part function gives a bank's quizzes (what the
format loses of each question), without the parts: a build that keeps the bank's outputs but
builds a file again has them so."""

BANK_WIDE = frozenset(SPLIT)
"""Formats whose one output holds the whole bank: a build that works file by file makes their
parts per file and assembles them at the end (build.build_files)."""

FOLDERS: dict[str, str] = {"moodlexml": "moodle", "cc13": "cc"}
"""Output folder of a format whose files do not live in a folder named after it."""


COMPILED_TEMPLATES: dict[str, bytes] = {}
"""The page templates compiled (jinja2 bytecode, by its cache key: writers.html), those this
process was handed and those it compiled. Compiling the quiz page's template takes ~0.1 s in
every process that renders one; the CLI keeps them between runs in the user's cache directory
(templatecache.load and save): a writer reads and adds here, it never
touches the disk."""


def folder_of(name: str) -> str:
    """The output folder a format's files live in (`dist/<folder>/...`), which a build owns."""
    return FOLDERS.get(name, name)


def _resolve(entry: str) -> Any:
    module, func = entry.split(":")
    return getattr(importlib.import_module(module), func)


def get_writer(name: str) -> Writer:
    fn: Writer = _resolve(WRITERS[name])
    return fn


def get_split(name: str) -> tuple[Part, Assemble]:
    """The part and assemble functions of a bank-wide format."""
    part, assemble = SPLIT[name]
    return _resolve(part), _resolve(assemble)


def get_losses(name: str) -> Callable[[Bank, WriteContext], list[Diagnostic]]:
    """The function giving the warnings of a bank-wide format's parts (LOSSES)."""
    fn: Callable[[Bank, WriteContext], list[Diagnostic]] = _resolve(LOSSES[name])
    return fn
