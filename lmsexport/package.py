"""IMS content packages: what every package format shares, and zipping.

The only module that zips. Output is deterministic to the byte for a given zlib: members in a
fixed order (imsmanifest.xml first, the rest sorted by path), every entry stamped with
``ctx.timestamp`` in UTC, fixed Unix permissions, DEFLATE at a fixed level, no extra fields.

Also here: the namespaces and element helpers of IMS CP manifests and their IEEE LOM
metadata, serialisation, and schema validation of a package's XML members. What a format puts
in its package (the QTI 2.1 manifest and members: writers/qti21_package.py) lives with its
writer.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import io
import struct
import time
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from lxml import etree

from .errors import Diagnostic
from .model import Difficulty
from .validate import SCHEMA_FILES, compiled_schema_without_mathml, schema_for, validate_tree

CP_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
LOM_NS = "http://ltsc.ieee.org/xsd/LOM"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
MANIFEST_PATH = "imsmanifest.xml"

ZIP_EPOCH = 315532800
"""1980-01-01T00:00:00Z, the earliest time a zip entry can carry."""
ZIP_LAST = 4354819198
"""2107-12-31T23:59:58Z, the latest."""
ZIP_LEVEL = 9
"""DEFLATE level of every zip a build writes (part of its bytes). Level 6, zlib's default,
took ~2/3 of its CPU for zips 0.7-3.7 % larger, ~5 % of a build's CPU, and was not kept:
`check`, which deflates nothing, would then take longer than the build it must not outlast
(docs/performance.md, "level 6 tried")."""

_zip_level: contextvars.ContextVar[int | None] = contextvars.ContextVar("zip_level", default=ZIP_LEVEL)


@contextlib.contextmanager
def zip_level(level: int | None) -> Iterator[None]:
    """Within it, zips and DEFLATE pieces are written at ``level`` instead of ZIP_LEVEL; with
    None they are not written at all (see discarding)."""
    token = _zip_level.set(level)
    try:
        yield
    finally:
        _zip_level.reset(token)


def discarding() -> contextlib.AbstractContextManager[None]:
    """Within it, no zip is made: for `check`, which validates every document and throws the
    packages away. A zip's members are still checked as they are when it is written (order,
    names, the zip32 limits on a member's size and on their number) and come from the same
    generators, so everything made or validated while they are produced still is; only their
    compression and the container's bytes are left out: zip_stream and zip_deflated give b"",
    deflate an empty Deflated of the data's size, and serialized() gives the documents of a
    zip_stream zip (whose bytes it never reads) as empty placeholders. A document whose bytes
    feed a check (a cartridge's, whose items' shapes are cut from its serialisation, and whose
    size zip_deflated checks) is still serialised. (What a zip64 limit on the container's total
    compressed size would say is not known without compressing; a build still says it.)"""
    return zip_level(None)


def _discarding() -> bool:
    return _zip_level.get() is None


def current_zip_level() -> int | None:
    """The DEFLATE level zips and pieces are written at here (None within discarding()): what
    a compressed piece kept for later use was made at."""
    return _zip_level.get()


ZIP_FILE_MODE = 0o100644
"""Regular file, rw-r--r--, whatever the umask of the machine that builds."""

LOM_DIFFICULTY = {Difficulty.EASY: "easy", Difficulty.MEDIUM: "medium", Difficulty.HARD: "difficult"}
"""Our difficulty -> the LOMv1.0 difficulty vocabulary."""


def _el(parent: etree._Element, ns: str, tag: str, text: str | None = None, **attrib: str) -> etree._Element:
    el = etree.SubElement(parent, f"{{{ns}}}{tag}", attrib)
    if text is not None:
        el.text = text
    return el


# --------------------------------------------------------------------------- manifest


def _lom(parent: etree._Element, ident: str, title: str, lang: str, fmt: str) -> etree._Element:
    """A lom:lom with general identifier, title and language, and technical format; returns general."""
    lom = _el(parent, LOM_NS, "lom")
    general = _el(lom, LOM_NS, "general")
    identifier = _el(general, LOM_NS, "identifier")
    _el(identifier, LOM_NS, "catalog", "URI")
    _el(identifier, LOM_NS, "entry", ident)
    _el(_el(general, LOM_NS, "title"), LOM_NS, "string", title, language=lang)
    _el(general, LOM_NS, "language", lang)
    _el(_el(lom, LOM_NS, "technical"), LOM_NS, "format", fmt)
    return general


# --------------------------------------------------------------------------- serialise, validate, zip


def serialize(tree: etree._Element) -> bytes:
    """UTF-8 with an XML declaration, pretty printed, newline-terminated."""
    data: bytes = etree.tostring(tree, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    return data if data.endswith(b"\n") else data + b"\n"


def serialized(docs: Iterable[tuple[str, str, etree._Element]]) -> dict[str, bytes]:
    """Each (path, kind, tree) document's serialisation by path, the members of a zip_stream zip.
    Within discarding() each is b"": zip_stream then reads its members' paths only, and what
    serialising would prove, it proves without it (lxml checks every string as it is set on a
    tree, so a tree lmsexport built always serialises). In a check of the 2,000-question
    banks that was ~3 % (plain) and ~5 % (real-shaped) of the command's CPU (cProfile)."""
    if _discarding():
        return {path: b"" for path, _, _ in docs}
    return {path: serialize(tree) for path, _, tree in docs}


def zip_time(timestamp: int) -> tuple[int, int, int, int, int, int]:
    """A zip entry's date_time for a Unix time, in UTC, clamped to what zip can store."""
    clamped = min(max(timestamp, ZIP_EPOCH), ZIP_LAST)
    return time.gmtime(clamped)[:6]  # type: ignore[return-value]


def member_order(path: str) -> tuple[bool, str]:
    """Sort key of a zip's members: imsmanifest.xml first, then by path."""
    return (path != MANIFEST_PATH, path)


def zip_members(files: dict[str, bytes], timestamp: int) -> bytes:
    """A deterministic zip of ``files``: imsmanifest.xml first, then sorted by path."""
    return zip_stream(((path, files[path]) for path in sorted(files, key=member_order)), timestamp)


def zip_stream(entries: Iterable[tuple[str, bytes]], timestamp: int, sorted_: bool = True) -> bytes:
    """A deterministic zip of (path, bytes), each compressed as it comes, so a caller can produce
    the members one at a time (a whole bank's cartridge). The entries must come in member_order,
    or, with ``sorted_`` False, in an order of the caller's that never depends on anything but the
    bank (imsmanifest.xml first all the same)."""
    date_time = zip_time(timestamp)
    buf = io.BytesIO()
    last: tuple[bool, str] | None = None
    seen: set[str] = set()
    level = _zip_level.get()
    if level is None:  # discarding(): the members are checked, not zipped
        for path, _ in entries:
            _check_member(path, seen, last, sorted_)
            last = member_order(path)
        return b""
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in entries:
            _check_member(path, seen, last, sorted_)
            last = member_order(path)
            info = zipfile.ZipInfo(path, date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so external_attr means the same on every build machine
            info.external_attr = ZIP_FILE_MODE << 16
            zf.writestr(info, data, compresslevel=level)
    return buf.getvalue()


def _check_member(path: str, seen: set[str], last: tuple[bool, str] | None, sorted_: bool) -> None:
    if path in seen or (path == MANIFEST_PATH and last is not None):
        raise ValueError(f"zip member {path!r} repeated, or imsmanifest.xml not first")
    if sorted_ and last is not None and member_order(path) <= last:
        raise ValueError(f"zip member {path!r} out of order")
    seen.add(path)


# --------------------------------------------------------------------------- zips of pre-compressed members
#
# A cartridge is assembled at the end of a parallel build from members the workers compressed:
# zipfile cannot store data that is already compressed, so the container is written here, with
# the very local headers zipfile writes (ZipInfo.FileHeader) and its central directory layout:
# for the same members, zip_deflated and zip_stream give the same bytes (tests/test_package.py).


@dataclass(frozen=True)
class Deflated:
    """A zip member's data compressed as zipfile compresses it (raw DEFLATE, level ZIP_LEVEL),
    with the CRC-32 and the size of the uncompressed data."""

    data: bytes | memoryview
    """(a view of a parts file's bytes when read from the rebuild cache)"""
    crc: int
    size: int


def deflate(data: bytes, final: bool = True) -> Deflated:
    """``data`` compressed alone. With ``final`` False the stream is only flushed to a byte
    boundary (Z_SYNC_FLUSH, no last block), so that more pieces can follow it (join_deflated)."""
    level = _zip_level.get()
    if level is None:  # discarding()
        return Deflated(b"", 0, len(data))
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    out = compressor.compress(data) + compressor.flush(zlib.Z_FINISH if final else zlib.Z_SYNC_FLUSH)
    return Deflated(out, zlib.crc32(data), len(data))


def join_deflated(pieces: Sequence[Deflated]) -> Deflated:
    """One member of pieces compressed apart (every piece but the last with ``final`` False): a
    DEFLATE stream is a sequence of blocks, so byte-aligned pieces concatenate; the CRC-32 of
    the whole is combined from the pieces' own."""
    crc = 0
    for piece in pieces:
        crc = crc32_combine(crc, piece.crc, piece.size)
    return Deflated(b"".join(p.data for p in pieces), crc, sum(p.size for p in pieces))


def _gf2_times(matrix: Sequence[int], vector: int) -> int:
    out = 0
    for row in matrix:
        if not vector:
            break
        if vector & 1:
            out ^= row
        vector >>= 1
    return out


@functools.cache
def _zeros_operator(power: int) -> tuple[int, ...]:
    """The GF(2) matrix that appends 2**power zero bytes to a CRC-32 (zlib's crc32_combine)."""
    if power == 0:  # one zero byte: eight one-bit shifts of the reflected polynomial
        bit = [0xEDB88320] + [1 << n for n in range(31)]
        matrix = bit
        for _ in range(3):
            matrix = [_gf2_times(matrix, row) for row in matrix]
        return tuple(matrix)
    half = _zeros_operator(power - 1)
    return tuple(_gf2_times(half, row) for row in half)


@functools.cache
def _zeros_tables(power: int) -> tuple[tuple[int, ...], ...]:
    """_zeros_operator(power) as four tables of 256, one per byte of the CRC: the operator
    applied to a CRC is then four lookups xor-ed (a GF(2) product is linear), not up to 32 steps
    of _gf2_times. Each table is made from the operator's eight rows for its byte, a value from
    the one without its lowest bit (~0.1 ms a power)."""
    matrix = _zeros_operator(power)
    tables = []
    for byte in range(4):
        rows = matrix[8 * byte : 8 * byte + 8]
        table = [0] * 256
        for value in range(1, 256):
            low = value & -value
            table[value] = table[value ^ low] ^ rows[low.bit_length() - 1]
        tables.append(tuple(table))
    return tuple(tables)


def crc32_combine(crc1: int, crc2: int, length2: int) -> int:
    """The CRC-32 of A + B from crc32(A), crc32(B) and len(B), without the bytes (zlib's
    crc32_combine, which Python's zlib does not expose): crc1 is advanced over len(B) zero bytes
    by the cached powers-of-two operators (by their byte tables: a cartridge's banks at 100,000
    questions join ~1,000 pieces: 29-31 ms with _gf2_times, 9-10 ms so), then xor-ed with crc2."""
    power = 0
    while length2:
        if length2 & 1:
            t0, t1, t2, t3 = _zeros_tables(power)
            crc1 = t0[crc1 & 0xFF] ^ t1[(crc1 >> 8) & 0xFF] ^ t2[(crc1 >> 16) & 0xFF] ^ t3[crc1 >> 24]
        length2 >>= 1
        power += 1
    return crc1 ^ crc2


ZIP32_MAX = 0xFFFFFFFF
"""Sizes and offsets above this need zip64, which zip_deflated does not write."""


def zip_deflated(entries: Iterable[tuple[str, Deflated]], timestamp: int) -> bytes:
    """A deterministic zip of already compressed members, in the caller's order (imsmanifest.xml
    first, no path twice): what zip_stream(..., sorted_=False) writes for the same data."""
    date_time = zip_time(timestamp)
    # (pieces joined once at the end: a BytesIO grown by ~3,000 writes to 48 MB, as a cartridge
    # at 100,000 questions, copied it over again as it grew, ~0.05 s)
    chunks: list[bytes | memoryview] = []
    offset = 0
    central: list[bytes] = []
    seen: set[str] = set()
    discard = _discarding()
    for path, member in entries:
        if path in seen or (path == MANIFEST_PATH and seen):
            raise ValueError(f"zip member {path!r} repeated, or imsmanifest.xml not first")
        seen.add(path)
        if discard:  # discarding(): the members are checked, not zipped
            if member.size > ZIP32_MAX or len(seen) > 0xFFFF:
                raise ValueError("the zip would need zip64 (over 4 GiB or 65,535 members)")
            continue
        info = zipfile.ZipInfo(path, date_time)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.create_system = 3
        info.external_attr = ZIP_FILE_MODE << 16
        info.flag_bits = 0
        info.CRC, info.compress_size, info.file_size = member.crc, len(member.data), member.size
        if max(offset, member.size, len(member.data)) > ZIP32_MAX or len(seen) > 0xFFFF:
            raise ValueError("the zip would need zip64 (over 4 GiB or 65,535 members)")
        header = info.FileHeader(False)
        chunks += (header, member.data)
        member_offset = offset
        offset += len(header) + len(member.data)
        try:
            name, flags = path.encode("ascii"), 0
        except UnicodeEncodeError:
            name, flags = path.encode("utf-8"), 0x800  # the UTF-8 name flag, as zipfile sets it
        dosdate = (date_time[0] - 1980) << 9 | date_time[1] << 5 | date_time[2]
        dostime = date_time[3] << 11 | date_time[4] << 5 | (date_time[5] // 2)
        central.append(
            struct.pack(
                "<4s4B4HL2L5H2L",
                b"PK\x01\x02",
                info.create_version,
                info.create_system,
                info.extract_version,
                info.reserved,
                flags,
                info.compress_type,
                dostime,
                dosdate,
                info.CRC,
                info.compress_size,
                info.file_size,
                len(name),
                0,
                0,
                0,
                info.internal_attr,
                info.external_attr,
                member_offset,
            )
            + name
        )
    if discard:
        return b""
    start = offset
    size = sum(len(record) for record in central)
    if start + size > ZIP32_MAX:
        raise ValueError("the zip would need zip64 (over 4 GiB or 65,535 members)")
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(central), len(central), size, start, 0)
    return b"".join([*chunks, *central, end])


def validate_documents(docs: Iterable[tuple[str, str, etree._Element]], zip_name: str) -> list[Diagnostic]:
    """Every problem of a package's XML members, (path, kind, tree), named ``<zip>!<path>``."""
    problems: list[Diagnostic] = []
    for path, kind, tree in docs:
        problems += validate_tree(tree, kind, f"{zip_name}!{path}")
    return problems


def warm_schemas() -> None:
    """Compile the schemas a build validates with, once, before a pool forks (~0.1 s)."""
    # The schemas a document lmsexport writes is validated with (validate.schema_for_tree);
    # the full MathML one is compiled only if a document ever holds MathML.
    compiled_schema_without_mathml(SCHEMA_FILES["item"])
    schema_for("manifest")


# --------------------------------------------------------------------------- QTI 1.2 and Common Cartridge


def validated_zip(
    docs: list[tuple[str, str, etree._Element]],
    zip_name: str,
    timestamp: int,
    problems: list[Diagnostic],
    files: dict[str, bytes] | None = None,
) -> bytes | None:
    """Validate every document (problems are appended, named ``<zip>!<member>``) and, when
    nothing failed so far, return the zip of their serialisations and of ``files`` (a
    package's other members: its images)."""
    from .validate_qti12 import validate_document

    for path, kind, tree in docs:
        problems += validate_document(tree, kind, f"{zip_name}!{path}")
    if problems:
        return None
    members = dict(files or {})
    members.update(serialized(docs))
    return zip_members(members, timestamp)
