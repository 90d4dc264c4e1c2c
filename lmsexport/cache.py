"""The rebuild cache: which outputs of a build are already in OUT exactly as the build would
write them, so that a build after an edit makes again only what the edit changed.

The cache is a record of the last successful build, in one file beside OUT
(``.<out>.lmsexport-cache.json``, like the staging directories, so OUT holds nothing but
outputs). Its model is generic: a build is made of *units*, each a group of outputs with

- its *inputs*: the source files (path -> sha256 of their bytes) it was made from: one source
  file for a quiz's outputs; a unit drawing on many files (an assessment whose pools select
  questions across the bank) lists each of them;
- its *media*: the image files its texts embed (``![alt](img/x.svg)``), path -> the sha256 of
  the bytes the loader read (computed from those bytes, as it read them: source.MediaRead) and
  the path the file resolved to: the images of its quiz file for a quiz's outputs, of every
  file for the bank's (the cartridges, the assessments). index.html needs none: what it shows
  of a quiz (its header, images included) is in its derived digest;
- a *derived* digest, where it depends on data of the whole bank rather than on whole files
  (index.html: every quiz's header and question count, build.index_digest);
- its *outputs*: path in OUT -> how the file was left (size, mtime, ctime, inode) and the
  sha256 of the bytes the build made.

Each quiz file also keeps its *parts* of the cartridges (writers.SPLIT: what cc_parts makes
of it, validated and compressed) in a parts file of its own, in ``.<out>.lmsexport-cache.d/``
beside the record: one line of JSON (only classes of the model and of _EXTRA made back, never
pickle) followed by the compressed members' raw bytes it points into (parts_to_bytes), named in
the record by the sha256 of its bytes and naming the record's key, its source file and that
file's sha256, and the images (media) its parts were made from. After an
edit the cartridges are assembled from the edited files' new parts and the others' parts files
(RebuildCache.parts), not from every file loaded again. A parts file that does not have the
named digest, names anything else, was made from images that are not as they are now or does
not decode to parts of exactly this build's cartridge formats is not used: the quiz file is
loaded again, its parts made and written anew. Files the record does not name are deleted
once a new record is in place.

A unit is reused only if every input has the recorded digest now, every image has the recorded
digest and resolves to the recorded path now, its derived digest (if any) is the one the build
computes now, and every output is intact. open() hashes the images the record names (each
once, before the build reads anything) as it hashes the sources. An image edited, replaced (by
other bytes, or by a link to a file elsewhere), deleted, or no longer a regular file of at most
media.MAX_IMAGE_BYTES (then not read) makes every unit and parts file that uses it stale: its
quiz file is loaded again, and the loader gives its positioned error if the image is refused.
The digest recorded is of the bytes the outputs were made from, so an image edited while a
build runs is found changed by the next; one read twice in a build with other bytes is
recorded with the digest "" (source.merge_media), which no file has. Which images are used is
decided by the source files' texts: unchanged sources read the same images. Each source file
also keeps a *summary* (its quiz's header, ids; its warnings are in the warnings file, below:
build.FileSummary), so that the
checks across files, the counts and index.html need no unchanged file loaded again.

Warnings. The warnings of every unit are kept out of the record, in a *warnings file* of the
parts directory (``<sha256>.warnings``, WarningsFile: an index, unit -> how many are the
loader's, how many in all and where its JSON text is, then the texts), read only when a build
needs them (RecordedWarnings); a unit whose warnings are decoded and do not decode is made
again, and a unit kept is written into the next file as its text is. (A unit printed from its
blocks, below, is not decoded: its text is trusted as the file is, by the sha256 that names
it and that the printed text's record names.) (A quiz's cartridge losses
are its quiz file's warnings, not the bank's: build._make_parts.) The text a build printed of
its warnings is kept there too (``<sha256>.printed``), named in the record with the warnings
file it was made from, and with its *blocks*: for each unit every one of whose warnings is at
a path no other unit has a warning at, where the lines of each of its paths are in the text.
A no-op (nothing to build, the bank's outputs kept) prints that text, found as recorded by its
times or else by its sha256, and reads neither the warnings file nor any warning: at 100,000
questions of the real-shaped bank, 400,600 warnings, 74 MB of text. An edit prints the blocks
of the units it keeps as they are (RecordedWarnings.blocks, report.printed) among the lines of
what it builds, decoding the warnings only of a kept unit whose blocks are not recorded or meet
a path of the new lines; when its own units' warnings are those recorded, it writes neither
file again, having read of the warnings file (found as recorded by its times) only the index
and its own units' texts (WarningsFile.from_file, holds) and compared the printed text with
the recorded one instead of hashing it. Both files are trusted by their times as the parts
files are.
Safety. Everything a build's bytes or verdict depend on besides the sources and their images is
in the *key*: the formats, SOURCE_DATE_EPOCH, OUT, this package's code, templates and schemas,
the Python version, the libxml2 and zlib lxml runs with, and the name and version of every
installed distribution (tool_fingerprint): any difference and the whole record is ignored. The
file carries the sha256 of its own text: a truncated, corrupted or hand-edited record is
ignored as a whole, as is one that does not have the expected shape. An output counts as intact
only if its size, mtime, ctime and inode are those recorded; an edit always moves ctime (it
cannot be set back) and a replaced file has another inode. A file whose recorded times are not
earlier than the start of the build that recorded them may have been changed within the same
tick of the file-system clock (git's "racily clean" files), so its bytes are hashed and
compared with the recorded digest instead.

Sources by their times. A source file is read and hashed only if its size, mtime, ctime or
inode differ from those the record has for it (taken before the recording build read it), or
if they are not earlier than that build's start; otherwise its recorded sha256 stands. That is
git's index rule (core.trustctime, and its "racily clean" entries compared by content), and
stricter than make's or ninja's (mtime only): an edit that keeps the size and puts the mtime
back (``touch -r``, a tool restoring times, ``git checkout`` of a file of the same length)
still moves ctime, which no one but the kernel's clock sets, and an edit within the same
clock tick as the recording build's stat leaves times not earlier than its start, so the file
is hashed. What it trusts is a file system that keeps ctime (every local Linux and macOS one;
some network or FAT file systems do not: there, a same-size edit with the mtime put back would
go unseen until the next edit). The parts files are trusted by their times the same way (by
their sha256 otherwise). A rebuild that would record what the record already says (nothing
built, nothing racily clean) leaves the record unwritten. What the cache cannot protect against is a forger
who rewrites both an output and the record with a recomputed checksum: someone who can write
the record can write OUT itself. ``build --check`` never reads the cache.
"""

from __future__ import annotations

import base64
import contextlib
import enum
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import model
from .build import BuildResult, Derived, FileSummary, QuestionHead
from .errors import Diagnostic
from .model import SourceLoc

if TYPE_CHECKING:
    from .report import Printed
    from .source import MediaRead

CACHE_VERSION = 7
"""The record's format; a record of another version is ignored."""


class _Stale(Exception):
    """The record cannot be used (malformed, another key, a checksum that does not match)."""


def cache_path(out: Path) -> Path:
    """Where the record of builds into OUT lives: beside OUT."""
    out = out.resolve()
    return out.parent / f".{out.name}.lmsexport-cache.json"


def parts_path(out: Path) -> Path:
    """The directory of the cartridges' parts files of builds into OUT: beside OUT."""
    out = out.resolve()
    return out.parent / f".{out.name}.lmsexport-cache.d"


def tool_fingerprint() -> str:
    """A digest of everything besides the sources that decides a build's bytes or verdict:
    this package's code, templates and schema list, the Python version, the libxml2 and zlib
    actually loaded, and every installed distribution's name and version.

    Editing a writer (even without a version bump), upgrading lxml, jinja2, PyYAML or
    langcodes (or anything they use), or another libxml2 under the same lxml: a new digest.
    Installed distributions are read from the names of their metadata directories
    (``name-version.dist-info``) on sys.path, ~1 ms where importlib.metadata takes ~0.1 s.
    """
    import platform
    import sys
    import zlib

    from lxml import etree

    from .validate import schema_dir

    digest = hashlib.sha256()
    versions = (platform.python_version(), sys.implementation.name, etree.LXML_VERSION,
                etree.LIBXML_VERSION, zlib.ZLIB_RUNTIME_VERSION)  # fmt: skip
    digest.update(repr(versions).encode())
    for name in installed_distributions():
        digest.update(name.encode() + b"\0")
    package = Path(__file__).resolve().parent
    for f in sorted(package.rglob("*")):
        parts = f.relative_to(package).parts
        # schemas/ (inside a wheel) is covered by its SHA256SUMS; bytecode follows the sources.
        if f.is_file() and parts[0] != "schemas" and "__pycache__" not in parts:
            digest.update(f.relative_to(package).as_posix().encode() + b"\0" + f.read_bytes())
    sums = schema_dir() / "SHA256SUMS"
    if sums.is_file():
        digest.update(sums.read_bytes())
    return digest.hexdigest()


def installed_distributions() -> list[str]:
    """The metadata directories (``name-version.dist-info``, ``.egg-info``) of every
    distribution importable from sys.path, sorted: a change of any version changes the list."""
    import sys

    found: set[str] = set()
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as it:
                found.update(e.name for e in it if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
    return sorted(found)


def file_digest(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def fs_now(directory: Path) -> int:
    """The file system's clock now, in ns: the mtime of a file created this instant (what an
    edit made now would be stamped with; it can lag time.time_ns() by a clock tick)."""
    directory.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=".lmsexport-clock-", dir=directory)
    try:
        st = os.fstat(fd)
        return max(st.st_mtime_ns, st.st_ctime_ns)
    finally:
        os.close(fd)
        os.unlink(name)


# -- the model's values as JSON (quiz headers) --------------------------------------------


def encode(value: object) -> Any:
    """A value of the model (dataclasses and enums of lmsexport.model, and the few classes of
    _EXTRA: diagnostics, compressed members, a cartridge's parts), tuples, lists, dicts with
    str keys, bytes (base64), str, numbers, None as JSON; decode() is its inverse."""
    if isinstance(value, enum.Enum):  # first: the model's enums are str enums
        return {"enum": type(value).__name__, "value": value.value}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: encode(v) for k, v in value.items()}}
    if is_dataclass(value) and not isinstance(value, type):
        return {
            "dataclass": type(value).__name__,
            "fields": {f.name: encode(getattr(value, f.name)) for f in fields(value)},
        }
    raise TypeError(f"cannot record {type(value).__name__}")


def decode(raw: Any) -> Any:
    """The value encode() gave ``raw`` for; only lmsexport.model's own classes are made."""
    if raw is None or isinstance(raw, bool | int | float | str):
        return raw
    if isinstance(raw, list):
        return [decode(v) for v in raw]
    if isinstance(raw, dict) and raw.keys() == {"bytes"} and isinstance(raw["bytes"], str):
        return base64.b64decode(raw["bytes"], validate=True)
    if isinstance(raw, dict) and raw.keys() == {"dict"} and isinstance(raw["dict"], dict):
        return {k: decode(v) for k, v in raw["dict"].items()}
    if isinstance(raw, dict) and raw.keys() == {"enum", "value"}:
        cls = _model_class(raw["enum"])
        if not issubclass(cls, enum.Enum):
            raise _Stale("not an enum")
        return cls(raw["value"])
    if isinstance(raw, dict) and raw.keys() == {"tuple"} and isinstance(raw["tuple"], list):
        return tuple(decode(v) for v in raw["tuple"])
    if isinstance(raw, dict) and raw.keys() == {"dataclass", "fields"} and isinstance(raw["fields"], dict):
        cls = _model_class(raw["dataclass"])
        if not is_dataclass(cls) or raw["fields"].keys() != {f.name for f in fields(cls)}:
            raise _Stale("not a dataclass of the model, or other fields")
        return cls(**{k: decode(v) for k, v in raw["fields"].items()})
    raise _Stale("not a recorded value")


def _model_class(name: object) -> type:
    """The class a record names: one of lmsexport.model's or of _EXTRA, never anything else."""
    if isinstance(name, str) and name in _EXTRA:
        return _extra_class(name)
    cls = getattr(model, name, None) if isinstance(name, str) else None
    if not isinstance(cls, type) or cls.__module__ != model.__name__:
        raise _Stale(f"{name!r} is not a class of lmsexport.model")
    return cls


_EXTRA = {
    "Diagnostic": "lmsexport.errors",
    "Severity": "lmsexport.errors",
    "Deflated": "lmsexport.package",
    "CcPart": "lmsexport.writers.cc13",
}
"""The classes besides lmsexport.model's a record may hold (a cartridge's parts), by name."""


def _extra_class(name: str) -> type:
    import importlib

    cls = getattr(importlib.import_module(_EXTRA[name]), name)
    assert isinstance(cls, type)
    return cls


def _diagnostic_from(raw: Any) -> Diagnostic:
    try:
        return Diagnostic.from_list(raw)
    except ValueError:
        raise _Stale("malformed diagnostic") from None


def _check(ok: bool) -> None:
    if not ok:
        raise _Stale("malformed record")


def _check_units(units: Any) -> None:
    """The units' part of a record has the shape save() writes (checked once, when read)."""
    _check(isinstance(units, dict))
    for name, unit in units.items():
        # (a bank-level unit also has "assessments", checked when it is used)
        _check(
            isinstance(name, str)
            and isinstance(unit, dict)
            and {"inputs", "media", "derived", "outputs"} <= unit.keys()
        )
        inputs, derived, outputs = unit["inputs"], unit["derived"], unit["outputs"]
        _check(isinstance(inputs, dict) and all(isinstance(v, str) for v in inputs.values()))
        _check(derived is None or isinstance(derived, str))
        _check(isinstance(unit.get("media"), dict))
        for path, seen in unit["media"].items():
            _check(isinstance(path, str) and isinstance(seen, list) and len(seen) == 2)
            _check(all(isinstance(x, str) for x in seen))
        _check(isinstance(outputs, dict))
        valid = unit.get("valid", [])
        _check(isinstance(valid, list) and all(isinstance(d, str) and _HEX.fullmatch(d) for d in valid))
        for rel, v in outputs.items():
            _check(isinstance(rel, str) and isinstance(v, list) and len(v) == 5 and isinstance(v[4], str))
            _check(all(isinstance(x, int) and not isinstance(x, bool) for x in v[:4]))


# -- the record -----------------------------------------------------------------------------


class RebuildCache:
    """The record of the last build into OUT, checked against this build; build.Reuse for
    build_files. open() it, build, then save() the result of a successful build."""

    def __init__(self, out: Path, formats: Iterable[str], timestamp: int) -> None:
        self.out = out
        self._out_prefix = os.path.join(os.fspath(out), "")
        """OUT as a string prefix of its files' paths: an output is stat-ed by os.stat on
        prefix + rel (2,000 of them at 100,000 questions, each ~7 us less than by pathlib)."""
        self.path = cache_path(out)
        self.key = {
            "version": CACHE_VERSION,
            "tool": tool_fingerprint(),
            "formats": sorted(set(formats)),
            "timestamp": timestamp,
            "out": str(out.resolve()),
        }
        self.parts_dir = parts_path(out)
        self.key_digest = hashlib.sha256(json.dumps(self.key, sort_keys=True).encode()).hexdigest()
        """What a parts file names its build by (the record's key)."""
        self.digests: dict[str, str] = {}
        """Every source file's sha256 as this build found it."""
        self.media: dict[str, list[str] | None] = {}
        """Every image file the record names: [sha256, the path it resolves to] as this build
        found it (None: it cannot be read now)."""
        self.started = 0
        """The file system's clock when this build started (see fs_now)."""
        self.stats: dict[str, list[int]] = {}
        """Every source file's [size, mtime, ctime, inode] as this build found it, before
        reading it (recorded: the next build trusts the digest of a file still so)."""
        self.racy = False
        """Whether a file was hashed because its times were not earlier than the previous
        build's start (racily clean): then the record is written even if nothing changed, so
        that its new start settles them."""
        self.sources: dict[str, Any] = {}
        self.units: dict[str, Any] = {}
        self.previous_start = 0
        self.printed_record: Any = None
        """The record's "printed": the file of the warnings the recorded build printed."""
        self.printed_verified: str | None = None
        """The name of the printed file printed() found as recorded (then save keeps it)."""
        self.warnings_record: Any = None
        """The record's "warnings": the file of every unit's warnings."""
        self._warnings: WarningsFile | None = None
        """That file, once read (_recorded_warnings)."""
        self._printed: bytes | None = None
        """The printed file, once read and found as recorded (printed(), _printed_text)."""
        self._printed_failed = False
        """Whether the printed file was read and not found as recorded (not read again)."""
        self.warnings_verified: str | None = None
        """The name of the warnings file found as recorded (then save keeps it)."""
        self.headers: dict[str, tuple[model.Quiz, Any]] = {}
        """The quiz header summary() decoded for a file, with the record's encoding of it: save
        records that encoding again for the same header (an edit at 100,000 questions: 356
        headers not encoded again)."""

    # -- reading --------------------------------------------------------------------------

    def open(self, sources: Iterable[Path]) -> None:
        """Note the time, read the previous record and digest the sources; a record that is
        unreadable, corrupted, edited, of another version or key is ignored as a whole.

        A source whose size, mtime, ctime and inode are those the record has for it, all
        earlier than the start of the build that recorded them, is not read: its recorded
        sha256 stands (see "Sources by their times" in the module's docstring)."""
        self.started = fs_now(self.path.parent)
        self._read_record()
        for f in sources:
            path = f.as_posix()
            with contextlib.suppress(OSError):  # unreadable now: never reused; the build says why
                st = os.stat(f)
                seen = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
                self.stats[path] = seen
                recorded = self.sources.get(path)
                if (
                    isinstance(recorded, dict)
                    and recorded.get("stat") == seen
                    and isinstance(recorded.get("sha256"), str)
                ):
                    if max(seen[1], seen[2]) < self.previous_start:
                        self.digests[path] = recorded["sha256"]
                        continue
                    self.racy = True  # hashed: a new record settles it
                self.digests[path] = file_digest(f)
        # The image files the recorded outputs were made from, as they are now (once each,
        # however many units use one; before the build reads anything, as the sources above).
        for path in sorted({path for unit in self.units.values() for path in unit["media"]}):
            self.media[path] = media_digest(path)

    def _read_record(self) -> None:
        try:
            raw = self.path.read_bytes()
        except OSError:
            return
        try:
            record = self._verified(raw)
            recorded, units, started = record["sources"], record["units"], record["started"]
            _check(isinstance(recorded, dict) and isinstance(started, int))
            _check_units(units)
        except (_Stale, ValueError, KeyError, TypeError, RecursionError):
            return
        self.sources, self.units, self.previous_start = recorded, units, started
        self.printed_record = record.get("printed")
        self.warnings_record = record.get("warnings")

    def _verified(self, raw: bytes) -> dict[str, Any]:
        checksum, _, text = raw.partition(b"\n")
        if hashlib.sha256(text).hexdigest().encode() != checksum:
            raise _Stale("the record's checksum does not match its text")
        record = json.loads(text)
        _check(isinstance(record, dict))
        if record.get("key") != self.key:
            raise _Stale("another key")
        return record  # type: ignore[no-any-return]

    def _intact(self, rel: str, recorded: Any) -> bool:
        """Whether OUT/rel is the file the recorded build left (see the module's docstring)."""
        size, mtime, ctime, ino, sha = recorded
        try:
            st = os.stat(self._out_prefix + rel)
        except OSError:
            return False
        if (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino) != (size, mtime, ctime, ino):
            return False
        if max(mtime, ctime) >= self.previous_start:  # racily clean: compare the bytes
            self.racy = True
            try:
                return file_digest(self.out / rel) == sha
            except OSError:
                return False
        return True

    def _settled(self, recorded: Any, path: Path) -> bool:
        """Whether the file at ``path`` has the [size, mtime, ctime, inode] ``recorded`` by the
        previous build, all earlier than that build's start: then it is the file it recorded."""
        try:
            st = path.stat()
        except (OSError, ValueError):  # (ValueError: a name with a NUL, from a forged record)
            return False
        if recorded != [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]:
            return False
        if max(st.st_mtime_ns, st.st_ctime_ns) >= self.previous_start:
            self.racy = True
            return False
        return True

    def _fresh(self, unit: str, derived: str | None, inputs: Iterable[str]) -> dict[str, Any] | None:
        """The record of a unit that can be reused as it is, or None: made from the data whose
        digest is ``derived`` and from exactly the files ``inputs``, all as they are now."""
        rec = self.units.get(unit)
        if rec is None or rec["derived"] != derived or rec["inputs"].keys() != set(inputs):
            return None
        if any(self.digests.get(path) != digest for path, digest in rec["inputs"].items()):
            return None
        if any(self.media.get(path) != seen for path, seen in rec["media"].items()):
            return None
        if not all(self._intact(rel, v) for rel, v in rec["outputs"].items()):
            return None
        return rec  # type: ignore[no-any-return]

    def summary(self, path: str) -> FileSummary | None:
        """build.Reuse: the recorded summary of a quiz file whose outputs can stay."""
        rec = self._fresh(_source_unit(path), None, (path,))
        if rec is None:
            return None
        try:
            raw = self.sources[path]
            _check(raw["sha256"] == self.digests[path])
            quiz = decode(raw["quiz"])
            _check(isinstance(quiz, model.Quiz) and quiz.questions == ())
            self.headers[path] = (quiz, raw["quiz"])
            ids, heads = raw["ids"], raw["heads"]
            _check(isinstance(ids, str) and _IDS.fullmatch(ids) is not None and isinstance(heads, str))
            n = raw["questions"]
            _check(isinstance(n, int))
        except (_Stale, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None
        outputs = {rel: v[4] for rel, v in rec["outputs"].items()}
        return FileSummary(
            quiz, n, [], [], 0, outputs, _media_from(rec["media"]), RecordedIds(path, ids), heads,
            RecordedWarnings(self._recorded_warnings, _source_unit(path), self._printed_blocks),
        )  # fmt: skip

    def derived(self, unit: str, digest: str, inputs: Sequence[str] = ()) -> Derived | None:
        """build.Reuse: a bank-level unit whose outputs can stay, as recorded."""
        rec = self._fresh(unit, digest, inputs)
        if rec is None:
            return None
        try:
            assessments = rec["assessments"]
            _check(isinstance(assessments, int))
        except (_Stale, KeyError, TypeError):
            return None
        outputs = {rel: v[4] for rel, v in rec["outputs"].items()}
        media = _media_from(rec["media"])
        return Derived(
            digest, list(inputs), outputs, [], assessments, media, rec.get("valid", []),
            RecordedWarnings(self._recorded_warnings, unit, self._printed_blocks),
        )  # fmt: skip

    def known_valid(self) -> frozenset[str]:
        """build.Reuse: the documents the recorded build validated without a problem (its
        bank unit's "valid"). The record is of this build's key, so of the same code, schemas
        and libraries (tool_fingerprint): a document of the same bytes is as valid now."""
        return frozenset(d for unit in self.units.values() for d in unit.get("valid", ()))

    def printed(self, paths: Sequence[str]) -> bytes | None:
        """build.Reuse: the text (UTF-8) the recorded build printed of its warnings, if it is
        exactly what a build of ``paths`` would print now, every one of them reused with the
        bank's outputs; else None. The record names the file by the sha256 of its bytes, and
        the warnings file it was made from (of every file of the record and of the bank unit);
        the warnings file is not read. The printed file is trusted by its times as a parts file
        is, by its sha256 otherwise."""
        if not (len(paths) == len(self.sources) and all(p in self.sources for p in paths)):
            return None
        return self._printed_text()

    def _printed_text(self) -> bytes | None:
        """The printed file the record names, if it is as recorded and made from the warnings
        file the record names (read once, and once found otherwise, never read again: an edit
        asks for each of 356 files' blocks)."""
        if self._printed is not None or self._printed_failed:
            return self._printed
        self._printed_failed = True
        rec, warnings = self.printed_record, self.warnings_record
        try:
            _check(isinstance(rec, dict) and rec.keys() == {"name", "of", "stat", "blocks"})
            _check(isinstance(warnings, dict) and warnings.keys() == {"name", "stat"})
            _check(isinstance(rec["of"], str) and _HEX.fullmatch(rec["of"]) is not None)
            _check(rec["of"] == warnings["name"])
            name = rec["name"]
            _check(isinstance(name, str) and (name == "" or _HEX.fullmatch(name) is not None))
            if name == "":  # (no warnings: no file)
                data = b""
            else:
                path = self.parts_dir / printed_file_name(name)
                data = path.read_bytes()
                if not self._settled(rec["stat"], path):
                    _check(hashlib.sha256(data).hexdigest() == name)
        except (_Stale, OSError, KeyError, TypeError):
            return None
        self.printed_verified = name
        self._printed = data
        self._printed_failed = False
        return data

    def _printed_blocks(self, unit: str) -> list[tuple[str, bytes | memoryview]] | None:
        """RecordedWarnings.blocks: ``unit``'s warnings as the recorded build printed them, a
        block of lines a path (each path's lines all of this unit's warnings, and all of them
        in the block), if the record has them so and the unit's entry in the warnings file the
        printed text was made from; else None. Each block must be whole lines of its path's
        (starting at a line's start with the path, ending with a line's end, the next line not
        of the path), no path twice, and none at all exactly when the entry counts none: a
        block recorded otherwise (a bug of save) is not printed."""
        data = self._printed_text()
        if data is None:
            return None
        view = memoryview(data)
        try:
            blocks = self.printed_record["blocks"].get(unit)
            _check(type(blocks) is list)
            out: list[tuple[str, bytes | memoryview]] = []
            for block in blocks:
                _check(type(block) is list and len(block) == 3)
                path, start, length = block
                _check(type(path) is str and type(start) is int and type(length) is int)
                end = start + length
                _check(start >= 0 and length > 0 and end <= len(data))
                label = path.encode("utf-8", "backslashreplace") + b":"
                _check(start == 0 or data[start - 1] == 0x0A)
                _check(
                    data[end - 1] == 0x0A
                    and data.startswith(label, start)
                    and not data.startswith(label, end)
                )
                out.append((path, view[start:end]))  # (a view: 74 MB not copied)
            _check(len({path for path, _ in out}) == len(out))
            count = self._recorded_warnings().spans(unit)[1]
            _check((count == 0) == (not out))
        except (_Stale, ValueError, AttributeError):
            return None
        return out

    def _recorded_warnings(self) -> WarningsFile:
        """The warnings file the record names (WarningsFile), read once, when first needed;
        ValueError if it cannot be used (then every unit that needs it is made again)."""
        if self._warnings is None:
            rec = self.warnings_record
            try:
                _check(isinstance(rec, dict) and rec.keys() == {"name", "stat"})
                name = rec["name"]
                _check(isinstance(name, str) and _HEX.fullmatch(name) is not None)
                path = self.parts_dir / warnings_file_name(name)
                if self._settled(rec["stat"], path):
                    found = WarningsFile.from_file(path, rec["stat"])
                else:
                    data = path.read_bytes()
                    _check(hashlib.sha256(data).hexdigest() == name)
                    found = WarningsFile.from_bytes(data)
            except (_Stale, OSError, ValueError, KeyError, TypeError, RecursionError):
                self._warnings = WarningsFile({}, b"")
                raise ValueError("no recorded warnings") from None
            self._warnings = found
            self.warnings_verified = name
        if not self._warnings.index and self.warnings_verified is None:
            raise ValueError("no recorded warnings")
        return self._warnings

    def parts(self, path: str, formats: Sequence[str]) -> dict[str, list[Any]] | None:
        """build.Reuse: the parts of the bank-wide ``formats`` that the quiz file ``path`` (as
        it is now) makes, from its parts file, or None: they must be made. The file must have
        the sha256 the record names it by (its name), and name this build's key, this source
        file and its digest now, and the image files the record has for it, each as it is now;
        its parts must decode to parts of exactly these formats."""
        from .writers.cc13 import CcPart

        try:
            raw = self.sources[path]
            media = self.units[_source_unit(path)]["media"]
            name = raw.get("parts")
            _check(
                raw["sha256"] == self.digests[path]
                and all(self.media.get(image) == seen for image, seen in media.items())
                and isinstance(name, str)
                and _HEX.fullmatch(name) is not None
            )
            data = (self.parts_dir / parts_file_name(name)).read_bytes()
            # (by its times, as an output: see _intact; else by its sha256, its name)
            if not self._settled(raw.get("parts_stat"), self.parts_dir / parts_file_name(name)):
                _check(hashlib.sha256(data).hexdigest() == name)
            record, made = parts_from_bytes(data)
            _check(
                (record["key"], record["source"], record["sha256"], record["media"])
                == (self.key_digest, path, raw["sha256"], media)
            )
            _check(made.keys() == set(formats))
            for parts in made.values():
                _check(all(isinstance(p, CcPart) and _part_ok(p) for p in parts))
        except (_Stale, OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None
        return made

    # -- writing --------------------------------------------------------------------------

    def save(self, result: BuildResult, printed: Printed | None = None) -> None:
        """Record a build that succeeded and whose files are now in OUT, and ``printed``, the
        text of its warnings it printed (kept in a file beside the parts files for a no-op to
        print again: printed()). What was made from a source file that changed while this build
        read it is left out (made again next time: it may be of either text)."""
        changed = set()
        for path in result.read:
            try:
                if file_digest(Path(path)) != self.digests.get(path):
                    changed.add(path)
            except OSError:
                changed.add(path)
        sources: dict[str, Any] = {}
        units: dict[str, Any] = {}
        with contextlib.suppress(OSError):  # (if it cannot be made, no parts are recorded)
            self.parts_dir.mkdir(exist_ok=True)
        try:
            for path, s in result.summaries.items():
                digest = self.digests.get(path)
                if digest is None or path in changed:
                    continue
                sources[path] = {
                    "sha256": digest,
                    "stat": self.stats.get(path),
                    "quiz": self._header(path, s.quiz),
                    "questions": s.n_questions,
                    "ids": s.recorded_ids.text if s.recorded_ids is not None else ids_text(s.ids),
                    "heads": s.heads if isinstance(s.heads, str) else heads_text(s.heads),
                    "parts": self._save_parts(path, digest, s.media, result.parts.get(path)),
                }
                sources[path]["parts_stat"] = self._parts_stat(sources[path]["parts"])
                units[_source_unit(path)] = self._unit({path: digest}, None, s.outputs, s.media)
            for name, d in result.derived.items():
                inputs = {path: self.digests.get(path) for path in d.inputs}
                if name not in result.kept and (changed & inputs.keys() or None in inputs.values()):
                    continue
                units[name] = self._unit(inputs, d.digest, d.outputs, d.media)  # type: ignore[arg-type]
                units[name]["assessments"] = d.assessments
                if d.valid:
                    units[name]["valid"] = sorted(set(d.valid))
        except OSError:
            self.path.unlink(missing_ok=True)  # an output went missing: nothing to vouch for
            return
        warnings_record = self._save_warnings(result, sources, units)
        printed_record = self._save_printed(result, printed, sources, units, warnings_record)
        if (
            not self.racy
            and not changed
            and sources == self.sources
            and units == self.units
            and warnings_record == self.warnings_record
            and printed_record == self.printed_record
        ):
            # The record would say what it says (bar this build's start, which no recorded
            # time reaches: nothing was racily clean): left as it is, not written again.
            return
        record = {"key": self.key, "started": self.started, "sources": sources, "units": units}
        if warnings_record is not None:
            record["warnings"] = warnings_record
        if printed_record is not None:
            record["printed"] = printed_record
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_bytes(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)
        os.replace(tmp, self.path)
        # Only now (the record names the new files) go the files it does not name.
        named = {parts_file_name(s["parts"]) for s in sources.values() if s["parts"] is not None}
        if warnings_record is not None:
            named.add(warnings_file_name(warnings_record["name"]))
        if printed_record is not None and printed_record["name"]:
            named.add(printed_file_name(printed_record["name"]))
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.parts_dir):
                if entry.name not in named:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)

    def _save_warnings(
        self, result: BuildResult, sources: dict[str, Any], units: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The record's "warnings": the file of the warnings of every unit recorded
        (WarningsFile); written now unless the record's is that file. A build that printed the
        recorded text (nothing built) has the recorded warnings, not read: the file stays as
        it is."""
        from .build import BANK_UNIT

        if result.replayed is not None:
            return self._kept(self.warnings_record, self.warnings_verified, warnings_file_name)
        # unit -> (how many of its warnings are the loader's, how many, the length of their
        # text): a reused unit's as the file read has them, its text left there (at ``spans``:
        # every unit whose warnings are copied, RecordedWarnings.blocks, read the file's index;
        # a reused unit whose warnings a build prints decoded them, and index.html's, never
        # printed, are its own); a unit built now, its own, its text made (``made``).
        entries: dict[str, tuple[int, int, int]] = {}
        made: dict[str, bytes] = {}
        old = self._warnings
        spans: dict[str, tuple[int, int]] = {}

        def enter(
            unit: str, warnings: list[Diagnostic], n_source: int, recorded: RecordedWarnings | None
        ) -> None:
            if old is not None and recorded is not None and recorded.unit == unit:
                with contextlib.suppress(ValueError):  # (not readable: its own are made)
                    n, count, start, length = old.spans(unit)
                    entries[unit] = (n, count, length)
                    spans[unit] = (start, length)
                    return
            text = warnings_text(warnings)
            entries[unit] = (n_source, len(warnings), len(text))
            made[unit] = text

        for path in sources:
            s = result.summaries[path]
            enter(_source_unit(path), s.warnings, s.source_warnings, s.recorded_warnings)
        for name in units:
            d = result.derived.get(name)
            if d is not None:
                enter(name, d.warnings, 0, d.recorded_warnings)
        assert BANK_UNIT not in units or BANK_UNIT in entries
        head = WarningsFile.head_of(entries)
        previous = self.warnings_record
        try:
            if (
                isinstance(previous, dict)
                and old is not None
                and self.warnings_verified is not None
                and previous.get("name") == self.warnings_verified
                and old.holds(head, made)
            ):
                # (the file read, as recorded, is this one: an edit that changed no warning)
                kept = self._kept(previous, self.warnings_verified, warnings_file_name)
                if kept is not None:
                    return kept
            chunks: list[bytes | memoryview] = [head, b"\n"]
            for unit in entries:
                if unit in made:
                    chunks.append(made[unit])
                else:  # (the file's texts read whole, once)
                    assert old is not None
                    start, length = spans[unit]
                    chunks.append(old.body[start : start + length])
        except ValueError:  # (the texts read cannot be read now: no warnings recorded)
            return None
        digest = hashlib.sha256()
        for chunk in chunks:
            digest.update(chunk)
        name = digest.hexdigest()
        if isinstance(previous, dict) and previous.get("name") == name:
            kept = self._kept(previous, self.warnings_verified, warnings_file_name)
            if kept is not None:
                return kept
        stat = self._write_beside(warnings_file_name(name), chunks)
        return None if stat is None else {"name": name, "stat": stat}

    def _save_printed(
        self,
        result: BuildResult,
        printed: Printed | None,
        sources: dict[str, Any],
        units: dict[str, Any],
        warnings: dict[str, Any] | None,
    ) -> dict[str, Any] | None:
        """The record's "printed" for the text ``printed`` of ``result``'s warnings, made from
        the warnings file ``warnings`` names, with the block of each path a unit has alone
        (_printed_units); its file written now (atomically) unless the record's is that text.
        None (nothing recorded, so that the next build decodes and prints the warnings itself)
        if there is no such text or file, if the warnings are not exactly those of every file
        and the bank unit recorded (a file left out, an assessment file's own), or if it cannot
        be written."""
        from .build import BANK_UNIT

        if printed is None or warnings is None or BANK_UNIT not in units:
            return None
        if sources.keys() != result.summaries.keys():
            return None
        if result.replayed is None:
            counted = sum(len(s.warnings) for p, s in result.summaries.items() if p not in result.copied)
            if counted + len(result.derived[BANK_UNIT].warnings) != len(result.warnings):
                return None
        of = warnings["name"]
        previous = self.printed_record
        if result.replayed is not None:
            # (the text printed() verified, with its blocks: not hashed again, 74 MB there)
            if printed.size == 0:  # (no warnings: no file)
                return previous if previous.get("of") == of else None  # type: ignore[no-any-return]
            kept = self._kept(previous, self.printed_verified, printed_file_name)
            return None if kept is None or kept.get("of") != of else kept
        blocks = self._printed_units(result, sources, printed.blocks)
        if printed.size == 0:  # (no warnings: no file)
            return {"name": "", "of": of, "stat": None, "blocks": blocks}
        if (
            isinstance(previous, dict)
            and self._printed is not None
            and self.printed_verified is not None
            and previous.get("name") == self.printed_verified
            and printed.is_text(self._printed)
        ):
            name = self.printed_verified  # (the text read, as recorded: not hashed again, 74 MB)
        else:
            digest = hashlib.sha256()
            for chunk in printed.chunks:
                digest.update(chunk)
            name = digest.hexdigest()
        if isinstance(previous, dict) and (previous.get("name"), previous.get("of")) == (name, of):
            kept = self._kept(previous, self.printed_verified, printed_file_name)
            if kept is not None:
                return {**kept, "blocks": blocks}
        stat = self._write_beside(printed_file_name(name), printed.chunks)
        return None if stat is None else {"name": name, "of": of, "stat": stat, "blocks": blocks}

    def _printed_units(
        self, result: BuildResult, sources: dict[str, Any], at: dict[str, tuple[int, int]]
    ) -> dict[str, list[list[Any]]]:
        """unit -> [path, start, length] of each block of the printed text (``at``: path ->
        where its block is) that holds its warnings, for every printed unit (the source files'
        and the bank's) whose every warning is at a path no other unit has a warning at: what
        a later build copies of a unit it has again (RecordedWarnings.blocks). A unit whose
        warnings were copied so has the paths of its blocks; the others' are those of their
        warnings."""
        from .build import BANK_UNIT

        paths_of: dict[str, set[str]] = {}
        previous = self.printed_record.get("blocks", {}) if isinstance(self.printed_record, dict) else {}
        for path in sources:
            unit = _source_unit(path)
            if path in result.copied:
                paths_of[unit] = {block[0] for block in previous[unit]}
            else:
                paths_of[unit] = {d.sort_key()[0] for d in result.summaries[path].warnings}
        paths_of[BANK_UNIT] = {d.sort_key()[0] for d in result.derived[BANK_UNIT].warnings}
        units_at: dict[str, int] = {}
        for paths in paths_of.values():
            for path in paths:
                units_at[path] = units_at.get(path, 0) + 1
        return {
            unit: [[path, *at[path]] for path in sorted(paths)]
            for unit, paths in paths_of.items()
            if all(units_at[path] == 1 and path in at for path in paths)
        }

    def _kept(
        self, previous: Any, verified: str | None, file_name: Callable[[str], str]
    ) -> dict[str, Any] | None:
        """The record of a file of the parts directory that stays, as the previous record has
        it with the file's times now; None if it is not as recorded. A file this build found
        as recorded (``verified``, its name) or whose times are as recorded keeps them; one
        written by the build that recorded it has times not earlier than that build's start,
        and is hashed (once: by the next build only, as an output racily clean)."""
        if not isinstance(previous, dict) or not isinstance(previous.get("name"), str):
            return None
        name = previous["name"]
        if _HEX.fullmatch(name) is None:  # (only a file this cache named: never a path)
            return None
        target = self.parts_dir / file_name(name)
        if name != verified and not self._settled(previous.get("stat"), target):
            try:
                if file_digest(target) != name:
                    return None
            except OSError:
                return None
        try:
            st = target.stat()
        except OSError:
            return None
        return {**previous, "stat": [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]}

    def _write_beside(self, file_name: str, data: bytes | Sequence[bytes | memoryview]) -> list[int] | None:
        """Write a file of the parts directory atomically, of ``data`` or of its pieces; its
        [size, mtime, ctime, inode], or None if it cannot be written (a full disk: then it is
        not recorded)."""
        target = self.parts_dir / file_name
        try:
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.parts_dir)
            try:
                with os.fdopen(fd, "wb") as fh:
                    if isinstance(data, bytes):
                        fh.write(data)
                    else:
                        fh.writelines(data)
                os.replace(tmp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
            st = target.stat()
        except OSError:
            return None
        return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]

    def _header(self, path: str, quiz: model.Quiz) -> Any:
        """A file's quiz header as the record keeps it: as read, if it is the one read."""
        read = self.headers.get(path)
        return read[1] if read is not None and read[0] is quiz else encode(quiz)

    def _parts_stat(self, name: str | None) -> list[int] | None:
        if name is None:
            return None
        try:
            st = (self.parts_dir / parts_file_name(name)).stat()
        except OSError:
            return None
        return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]

    def _save_parts(
        self, path: str, digest: str, media: MediaRead, made: dict[str, list[Any]] | None
    ) -> str | None:
        """The name of the parts file of a quiz file: of its parts this build made, written now
        (atomically, named by its sha256), else of the one the record named, if made from the
        same bytes and image files (checked again when it is read); None if there is none."""
        if made is None:
            previous = self.sources.get(path)
            unit = self.units.get(_source_unit(path))
            if (
                isinstance(previous, dict)
                and previous.get("sha256") == digest
                and isinstance(unit, dict)
                and unit.get("media") == _media_to(media)
            ):
                name = previous.get("parts")
                return name if isinstance(name, str) and _HEX.fullmatch(name) else None
            return None
        head = {"key": self.key_digest, "source": path, "sha256": digest, "media": _media_to(media)}
        data = parts_to_bytes(head, made)
        name = hashlib.sha256(data).hexdigest()
        target = self.parts_dir / parts_file_name(name)
        try:  # written even when a file of that name is there: it may be the damaged one
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.parts_dir)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            return None  # (a full disk): made again next time
        return name

    def _unit(
        self, inputs: dict[str, str], derived: str | None, outputs: dict[str, str], media: MediaRead
    ) -> dict[str, Any]:
        stats = {}
        for rel, sha in sorted(outputs.items()):
            st = os.stat(self._out_prefix + rel)
            stats[rel] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, sha]
        return {"inputs": inputs, "media": _media_to(media), "derived": derived, "outputs": stats}


def _source_unit(path: str) -> str:
    return "source:" + path


def media_digest(path: str) -> list[str] | None:
    """An image file as the record holds it: [sha256 of its bytes, the path it resolves to]
    (the loader refuses an image that resolves outside its YAML file's folder), or None when
    it is not a regular file of at most media.MAX_IMAGE_BYTES that can be read (deleted, a
    folder or a pipe now, too large: the loader refuses it, and is not waited for or read
    whole here): whatever was made from it is built again, and the loader then says what is
    wrong, where the text names it."""
    import stat

    from .media import MAX_IMAGE_BYTES

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_IMAGE_BYTES:
            return None
        resolved = str(Path(path).resolve())
        return [file_digest(Path(path)), resolved]
    except (OSError, RuntimeError):  # (RuntimeError: a symlink loop, before Python 3.13)
        return None


def _media_to(media: MediaRead) -> dict[str, list[str]]:
    return {path: list(seen) for path, seen in sorted(media.items())}


def _media_from(raw: dict[str, list[str]]) -> MediaRead:
    return {path: (seen[0], seen[1]) for path, seen in raw.items()}


# -- ids and question headers, as the record keeps them --------------------------------------

_IDS = re.compile(r"(?:(?:quiz|question|assessment) [A-Za-z][A-Za-z0-9._-]* [0-9]+ [0-9]+\n)*")
"""A file's recorded ids: one ``kind id line column`` line each (ids are source.ID_RE's: no
space, ASCII), in source order. One JSON string, not a list of lists: reading the record is
then a scan of a string (~4x faster at 100,000 ids) and positions are made only when needed."""

_ID_KEYS = re.compile(r"^(?:(question)|[a-z]+) ([^ ]+)", re.MULTILINE)


def ids_text(ids: Iterable[tuple[str, str, SourceLoc]]) -> str:
    """The ids of a built file as the record keeps them (see _IDS)."""
    return "".join(f"{kind} {ident} {loc.line} {loc.col}\n" for kind, ident, loc in ids)


def id_key(kind: str, ident: str) -> tuple[str, str]:
    """What two ids that check_ids takes for the same have in common: the namespace (questions,
    or packages: quizzes and assessments) and the id ignoring case."""
    return ("question" if kind == "question" else "", ident.casefold())


class RecordedIds:
    """A reused file's ids as the record has them: their keys (id_key) for the check across
    files without decoding a position, and every id with its position only when a duplicate
    must be reported (source.check_ids)."""

    __slots__ = ("path", "text")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        """Checked against _IDS when read."""

    def keys(self) -> list[tuple[str, str]]:
        # (ASCII ids: lower() is casefold(); one call for the whole text)
        return _ID_KEYS.findall(self.text.lower())

    def located(self) -> list[tuple[str, str, SourceLoc]]:
        out = []
        for line in self.text.splitlines():
            kind, ident, row, col = line.split(" ")
            out.append((kind, ident, SourceLoc(self.path, int(row), int(col))))
        return out


def heads_text(heads: Sequence[QuestionHead]) -> str:
    """The question headers of a built file as the record keeps them: a JSON text inside the
    record, decoded (heads_from) only when assessments are resolved after an edit."""
    return json.dumps([list(h) for h in heads], ensure_ascii=False, separators=(",", ":"))


def heads_from(text: str) -> list[QuestionHead] | None:
    """The question headers heads_text recorded, or None if they are not of that shape (then
    the file is loaded instead)."""
    try:
        raw = json.loads(text)
        heads = []
        for ident, qtype, tags, difficulty, lang in raw:
            ok = isinstance(ident, str) and isinstance(tags, list) and all(isinstance(t, str) for t in tags)
            if not ok or not (lang is None or isinstance(lang, str)):
                return None
            level = None if difficulty is None else model.Difficulty(difficulty)
            heads.append(QuestionHead(ident, model.QuestionType(qtype), tuple(tags), level, lang))
    except (ValueError, TypeError, RecursionError):
        return None
    return heads


class WarningsFile:
    """The warnings file: one line of JSON, its index (unit -> [how many of its warnings are
    the loader's, how many in all, where its text starts in what follows, its length]), then
    every unit's warnings_text (UTF-8), one after the other. A unit's text is taken as it is
    (a slice), decoded only when a build needs its warnings, and written again as it is: an
    edit at 100,000 questions of the real-shaped bank copies the 356 other files' texts (94
    MB) where a JSON object of them took ~0.4 s to read and ~0.7 s to write (every quote of
    every text escaped)."""

    __slots__ = ("index", "head", "size", "_body", "_read")

    def __init__(
        self,
        index: dict[str, Any],
        body: bytes | memoryview | None,
        head: bytes = b"",
        read: Callable[[int, int], bytes] | None = None,
        size: int = 0,
    ) -> None:
        """``body``, the texts; or None, with ``read(start, length)`` giving those bytes of them
        when they are asked for (ValueError if they cannot be read as they were found) and
        ``size`` their length (from_file)."""
        self.index = index
        self.head = head
        """The index's line as read (without its newline)."""
        self.size = len(body) if body is not None else size
        """The texts' length in bytes."""
        self._body = body
        self._read = read

    @classmethod
    def from_bytes(cls, data: bytes) -> WarningsFile:
        """ValueError if ``data`` is not of that layout. (The texts are a view of ``data``, not
        a copy: 94 MB at 100,000 questions of the real-shaped bank.)"""
        end = data.find(b"\n")
        if end < 0:
            raise ValueError("not a warnings file")
        head = data[:end]
        index = json.loads(head)
        if type(index) is not dict:
            raise ValueError("not a warnings file")
        return cls(index, memoryview(data)[end + 1 :], head)

    @classmethod
    def from_file(cls, path: Path, stat: list[int]) -> WarningsFile:
        """The file at ``path``, found with the [size, mtime, ctime, inode] ``stat``: its index
        read now, its texts only when asked for, each time from the file opened again and found
        with that ``stat`` (else ValueError). An edit that changes no warning reads no text but
        those of its own files (WarningsFile.holds): 94 MB not read at 100,000 questions of the
        real-shaped bank. OSError or ValueError if it cannot be read so."""

        def opened() -> Any:
            fh = open(path, "rb")  # noqa: SIM115 - closed by the callers' with
            st = os.fstat(fh.fileno())
            if [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino] != stat:
                fh.close()
                raise ValueError("the warnings file is not as it was found")
            return fh

        with opened() as fh:
            head = fh.readline()
        if not head.endswith(b"\n"):
            raise ValueError("not a warnings file")
        index = json.loads(head)
        if type(index) is not dict:
            raise ValueError("not a warnings file")
        offset = len(head)

        def read(start: int, length: int) -> bytes:
            try:
                with opened() as fh:
                    fh.seek(offset + start)
                    data: bytes = fh.read(length)
            except OSError:
                raise ValueError("the warnings file cannot be read") from None
            if len(data) != length:
                raise ValueError("the warnings file is not as it was found")
            return data

        return cls(index, None, head[:-1], read, stat[0] - offset)

    @property
    def body(self) -> bytes | memoryview:
        """The texts, read now if they were not (ValueError if they cannot be)."""
        if self._body is None:
            assert self._read is not None
            self._body = memoryview(self._read(0, self.size))
        return self._body

    def text(self, start: int, length: int) -> bytes | memoryview:
        """``length`` bytes of the texts from ``start`` (read alone if the texts were not)."""
        if self._body is None and self._read is not None:
            return self._read(start, length)
        return self.body[start : start + length]

    @staticmethod
    def head_of(entries: dict[str, tuple[int, int, int]]) -> bytes:
        """The index line of the file of these units' entries (how many of the warnings the
        loader's, how many, the length of their text), the texts in this order."""
        index: dict[str, list[int]] = {}
        at = 0
        for unit, (n_source, count, length) in entries.items():
            index[unit] = [n_source, count, at, length]
            at += length
        return json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    @staticmethod
    def to_bytes(entries: dict[str, tuple[int, int, bytes | memoryview]]) -> bytes:
        """The file of these units' entries (how many the loader's, how many, their text)."""
        head = WarningsFile.head_of(
            {unit: (n, count, len(text)) for unit, (n, count, text) in entries.items()}
        )
        return b"".join([head, b"\n", *(text for _, _, text in entries.values())])

    def holds(self, head: bytes, made: dict[str, bytes]) -> bool:
        """Whether the file of index line ``head`` (head_of) whose texts are this file's but
        those ``made`` (unit -> its text) is this file's bytes: the same index line, and the
        texts made are those this file has of their units (read alone, if the texts were not
        read). So an edit that left every warning as it was neither reads, joins nor hashes the
        other 94 MB to find that out. ValueError if a text cannot be read."""
        if self.head != head:
            return False
        if sum(entry[3] for entry in self.index.values()) != self.size:
            return False
        for unit, text in made.items():
            start, length = self.index[unit][2:]
            if len(text) != length or bytes(self.text(start, length)) != text:
                return False
        return True

    def spans(self, unit: str) -> tuple[int, int, int, int]:
        """(how many the loader's, how many in all, where the text starts, its length) of
        ``unit``; ValueError if the index has no such entry (one inside the texts)."""
        entry = self.index.get(unit)
        if type(entry) is not list or len(entry) != 4 or any(type(n) is not int for n in entry):
            raise ValueError("not recorded warnings")
        n_source, count, start, length = entry
        if not (0 <= n_source <= count and start >= 0 and length >= 0 and start + length <= self.size):
            raise ValueError("not recorded warnings")
        return n_source, count, start, length

    def entry(self, unit: str) -> tuple[int, int, memoryview | bytes]:
        """(how many the loader's, how many in all, the text) of ``unit``; ValueError if the
        index has no such entry, or the text cannot be read."""
        n_source, count, start, length = self.spans(unit)
        return n_source, count, self.body[start : start + length]


class RecordedWarnings:
    """A reused unit's warnings as the rebuild cache has them: in the warnings file beside the
    parts files (RebuildCache._recorded_warnings), which is read only when a build needs them
    (not by a no-op, which prints the text the recorded build printed: RebuildCache.printed),
    each unit's JSON text in it (warnings_text), decoded only then; and as the recorded build
    printed them (blocks), for a build that prints them again as they were."""

    __slots__ = ("_units", "unit", "_blocks")

    def __init__(
        self,
        units: Callable[[], WarningsFile],
        unit: str,
        blocks: Callable[[str], list[tuple[str, bytes | memoryview]] | None] | None = None,
    ) -> None:
        self._units = units
        self.unit = unit
        self._blocks = blocks

    def recorded(self) -> tuple[int, int, memoryview | bytes]:
        """(how many of them, the first, are the loader's; how many in all; their
        warnings_text as UTF-8); ValueError if the file or its entry for this unit is not of
        that shape."""
        return self._units().entry(self.unit)

    def decode(self) -> tuple[list[Diagnostic], int]:
        """(the diagnostics, how many the loader's); ValueError if they are not recorded so."""
        n_source, count, text = self.recorded()
        try:
            raw = json.loads(bytes(text))
        except RecursionError:
            raise ValueError("not recorded warnings") from None
        if type(raw) is not list or len(raw) != count:
            raise ValueError("not recorded warnings")
        return [Diagnostic.from_list(d) for d in raw], n_source

    def blocks(self) -> list[tuple[str, bytes | memoryview]] | None:
        """The lines the recorded build printed of them, a block a path, (path, its lines as
        UTF-8) in the order of the paths, if every warning at each of these paths is one of
        them (then a build that has them again prints these blocks as they are, no warning
        decoded); else None. Their entry in the warnings file is as recorded."""
        return None if self._blocks is None else self._blocks(self.unit)


def warnings_text(warnings: Sequence[Diagnostic]) -> bytes:
    """Diagnostics as the warnings file keeps them: the JSON text (UTF-8) of their as_list()
    lists."""
    text = json.dumps([d.as_list() for d in warnings], ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8")


def warnings_file_name(name: str) -> str:
    """The warnings file named ``name`` (its sha256) in the parts directory."""
    return f"{name}.warnings"


def printed_file_name(name: str) -> str:
    """The file of the printed warnings named ``name`` (its sha256) in the parts directory."""
    return f"{name}.printed"


_PARTS_FILE_KEYS = {"key", "source", "sha256", "media", "parts", "blob"}

PARTS_MAGIC = b"lmsexport parts 1\n"
"""The first line of a parts file (its layout's version)."""

_CC_PART_FIELDS = (
    "quiz",
    "assessment",
    "bank",
    "bank_idents",
    "media",
    "warnings",
    "problems",
    "empty",
)
"""writers.cc13.CcPart's fields, in the order a parts file lists them (tests/test_cache.py
checks that they are CcPart's: a field added there must be added here)."""


def parts_file_name(name: str) -> str:
    """The file of the parts file named ``name`` (its sha256) in the parts directory."""
    return f"{name}.parts"


def parts_to_bytes(head: dict[str, Any], made: dict[str, list[Any]]) -> bytes:
    """A parts file: PARTS_MAGIC, one line of JSON (``head``, and each format's parts as lists
    in _CC_PART_FIELDS order, every compressed member as [offset, length, crc, size] into
    what follows), then the compressed members' bytes, one after the other.

    Raw bytes after a small header rather than everything in JSON with the bytes in base64
    (the layout before): an edit at 100,000 questions reads the 356 other files' parts (95 MB),
    which took ~0.6 s of JSON parsing, base64 and the generic decode() (123,000 calls: one a
    question id) and takes ~0.1 s so (docs/performance.md)."""
    blob = bytearray()

    def piece(d: Any) -> list[int] | None:
        if d is None:
            return None
        blob.extend(d.data)
        return [len(blob) - len(d.data), len(d.data), d.crc, d.size]

    parts = {
        fmt: [
            [
                encode(p.quiz),
                piece(p.assessment),
                piece(p.bank),
                list(p.bank_idents),
                encode(p.media),
                [d.as_list() for d in p.warnings],
                [d.as_list() for d in p.problems],
                p.empty,
            ]
            for p in its
        ]
        for fmt, its in made.items()
    }
    header = json.dumps(
        {**head, "parts": parts, "blob": len(blob)}, ensure_ascii=False, separators=(",", ":")
    )
    # (compact JSON never holds a raw newline: the header is exactly one line)
    return PARTS_MAGIC + header.encode("utf-8") + b"\n" + bytes(blob)


def parts_from_bytes(data: bytes) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The header and the parts (format -> CcPart list) of a parts file; _Stale (or ValueError,
    TypeError, KeyError) if it is not one, or points outside its bytes."""
    from .package import Deflated
    from .writers.cc13 import CcPart

    _check(data.startswith(PARTS_MAGIC))
    end = data.index(b"\n", len(PARTS_MAGIC))
    header = json.loads(data[len(PARTS_MAGIC) : end])
    _check(isinstance(header, dict) and header.keys() == _PARTS_FILE_KEYS)
    base, size = end + 1, header["blob"]
    _check(isinstance(size, int) and len(data) - base == size)
    # (each member a view of ``data``, not a copy: an edit at 100,000 questions reads the 356
    # other files' members, 74 MB, to write them into the cartridges once)
    view = memoryview(data)

    def piece(raw: Any) -> Any:
        if raw is None:
            return None
        _check(isinstance(raw, list) and len(raw) == 4 and all(type(x) is int for x in raw))
        offset, length, crc, n = raw
        _check(offset >= 0 and length >= 0 and offset + length <= size)
        return Deflated(view[base + offset : base + offset + length], crc, n)

    made: dict[str, list[Any]] = {}
    _check(isinstance(header["parts"], dict))
    for fmt, its in header["parts"].items():
        _check(isinstance(its, list))
        out = made[fmt] = []
        for raw in its:
            _check(isinstance(raw, list) and len(raw) == len(_CC_PART_FIELDS))
            quiz, assessment, bank, idents, media, warnings, problems, empty = raw
            _check(isinstance(idents, list) and all(type(i) is str for i in idents))
            _check(isinstance(warnings, list) and isinstance(problems, list))
            _check(type(empty) is bool)
            out.append(
                CcPart(
                    quiz=decode(quiz),
                    assessment=piece(assessment),
                    bank=None if bank is None else piece(bank),
                    bank_idents=tuple(idents),
                    media=decode(media),
                    warnings=[_diagnostic_from(d) for d in warnings],
                    problems=[_diagnostic_from(d) for d in problems],
                    empty=empty,
                )
            )
    return header, made


_HEX = re.compile("[0-9a-f]{64}")
"""A parts file's name (without .json): the sha256 of its bytes."""


def _part_ok(part: Any) -> bool:
    """Whether a decoded cartridge part has the types cc_assemble relies on."""
    from .package import Deflated

    def deflated(d: object) -> bool:
        return (
            isinstance(d, Deflated)
            and isinstance(d.data, (bytes, memoryview))
            and isinstance(d.crc, int)
            and isinstance(d.size, int)
        )

    return (
        isinstance(part.quiz, model.Quiz)
        and part.quiz.questions == ()
        and deflated(part.assessment)
        and (part.bank is None or deflated(part.bank))
        and isinstance(part.bank_idents, tuple)
        and all(isinstance(i, str) for i in part.bank_idents)
        and isinstance(part.media, dict)
        and all(isinstance(m, model.Media) and isinstance(m.data, bytes) for m in part.media.values())
        and all(isinstance(d, Diagnostic) for d in part.warnings + part.problems)
        and isinstance(part.empty, bool)
    )
