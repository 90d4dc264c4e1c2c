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

import io
import time
import zipfile
from collections.abc import Iterable

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
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in entries:
            if path in seen or (path == MANIFEST_PATH and last is not None):
                raise ValueError(f"zip member {path!r} repeated, or imsmanifest.xml not first")
            if sorted_ and last is not None and member_order(path) <= last:
                raise ValueError(f"zip member {path!r} out of order")
            seen.add(path)
            last = member_order(path)
            info = zipfile.ZipInfo(path, date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so external_attr means the same on every build machine
            info.external_attr = ZIP_FILE_MODE << 16
            zf.writestr(info, data, compresslevel=ZIP_LEVEL)
    return buf.getvalue()


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
    docs: list[tuple[str, str, etree._Element]], zip_name: str, timestamp: int, problems: list[Diagnostic]
) -> bytes | None:
    """Validate every document (problems are appended, named ``<zip>!<member>``) and, when
    nothing failed so far, return the zip of their serialisations."""
    from .validate_qti12 import validate_document

    for path, kind, tree in docs:
        problems += validate_document(tree, kind, f"{zip_name}!{path}")
    if problems:
        return None
    return zip_members({path: serialize(tree) for path, _, tree in docs}, timestamp)
