"""Offline XSD validation of QTI 2.1 items, tests, manifests and whole content packages.

Every schema import is resolved from the bundled ``schemas/`` folder through ``locations.json``
(the same map as ``catalog.xml``) by an lxml resolver that refuses anything else, so no schema
compile and no validation ever touches the network. Each schema is compiled once per process.

Input that is not ours (``validate_package``, ``validate_xml_file``) is treated as hostile: zip
members are checked from the central directory before anything is decompressed, and XML with
a DOCTYPE (hence any entity, external or not) is refused before libxml2 sees it.

Diagnostic locations: a file is named as given (``name`` or the path); a zip member is named
``<zip name>!<member path>``, e.g. ``dist/qti21/quiz.zip!items/q1.xml:12``, the convention of
Java's jar URLs. Line 0 means the whole file or a tree built in memory; for those the message
ends with the element's path, ``(at /assessmentItem/itemBody/...)``.
"""

from __future__ import annotations

import functools
import io
import json
import re
import stat
import struct
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from lxml import etree

import lmsexport

from .errors import Diagnostic, Severity
from .model import SourceLoc

# Limits for untrusted packages. Our own packages are far below them (a 24-question quiz is
# ~40 KiB); they exist so a zip bomb or a huge member is refused before it is inflated.
MAX_MEMBERS = 20_000
"""Most entries a package may have."""
MAX_MEMBER_BYTES = 16 * 1024 * 1024
"""Largest uncompressed size of one member."""
MAX_TOTAL_BYTES = 256 * 1024 * 1024
"""Largest uncompressed size of all members together."""
MAX_RATIO = 100
"""Largest uncompressed/compressed ratio of a member (pretty-printed XML deflates ~10-20x)."""
RATIO_MIN_BYTES = 64 * 1024
"""Members smaller than this are not ratio-checked: tiny files have meaningless ratios."""
READ_CHUNK = 64 * 1024
ALLOWED_COMPRESSION = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED})
"""Compression methods a package may use; bzip2/lzma are rare in packages and only add risk."""

# What zipfile raises on a malformed archive (negative offsets, truncated data, bad CRCs, odd
# header fields): each is a diagnostic about the input, never a crash.
_ZIP_READ_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    NotImplementedError,
    RuntimeError,
    struct.error,
)

QTI_NS = "http://www.imsglobal.org/xsd/imsqti_v2p1"
CP_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"

SCHEMA_FILES = {
    "item": "qti21/imsqti_v2p1.xsd",
    "test": "qti21/imsqti_v2p1.xsd",
    "manifest": "qti21/qtiv2p1_imscpv1p2_v1p0.xsd",
}
"""Document kind -> schema file, relative to the schema directory."""

ROOT_KINDS = {
    f"{{{QTI_NS}}}assessmentItem": "item",
    f"{{{QTI_NS}}}assessmentTest": "test",
    f"{{{CP_NS}}}manifest": "manifest",
}

ITEM_RESOURCE_TYPES = frozenset({"imsqti_item_xmlv2p1", "imsqti_item_xmlv2p1p1"})
TEST_RESOURCE_TYPES = frozenset({"imsqti_test_xmlv2p1", "imsqti_test_xmlv2p1p1"})

# libxml2 names elements as {namespace}local; these prefixes make its messages readable.
_NS_PREFIXES = {
    QTI_NS: "",
    CP_NS: "",
    "http://ltsc.ieee.org/xsd/LOM": "lom:",
    "http://www.imsglobal.org/xsd/imsqti_metadata_v2p1": "imsqti:",
    "http://www.w3.org/XML/1998/namespace": "xml:",
    "http://www.w3.org/1998/Math/MathML": "m:",
}
_CLARK = re.compile(r"\{([^}]*)\}")
_DRIVE = re.compile(r"^[A-Za-z]:")
_DOCTYPE = re.compile(rb"<!DOCTYPE", re.IGNORECASE)


class SchemaResolutionError(Exception):
    """A schema tried to import something that is not in the bundled schema set."""


# --------------------------------------------------------------------------- schemas


def schema_dir() -> Path:
    """The bundled schemas: inside the installed package, else the checkout's ``schemas/``."""
    installed = Path(lmsexport.__file__).resolve().parent / "schemas"
    if (installed / "locations.json").is_file():
        return installed
    return Path(lmsexport.__file__).resolve().parents[1] / "schemas"


class _BundledResolver(etree.Resolver):
    """Maps the catalog's remote URLs to local files; refuses every other URL or path."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root.resolve()
        locations = json.loads((self.root / "locations.json").read_text(encoding="utf-8"))
        self.exact: dict[str, str] = locations["map"]
        self.prefixes: dict[str, str] = locations["prefix"]

    def local_path(self, url: str) -> Path:
        if url in self.exact:
            return self.root / self.exact[url]
        for prefix, folder in self.prefixes.items():
            if url.startswith(prefix):
                return self.root / folder / url[len(prefix) :]
        parts = urlsplit(url)
        if parts.scheme in ("", "file") and not parts.netloc:
            candidate = Path(unquote(parts.path)).resolve()
            if candidate.is_relative_to(self.root):
                return candidate
        raise SchemaResolutionError(f"refusing to load {url!r}: it is not one of the bundled schemas")

    def resolve(self, url: str, pubid: str | None, context: Any) -> Any:
        return self.resolve_filename(str(self.local_path(url)), context)


def _schema_parser(root: Path) -> etree.XMLParser:
    parser = etree.XMLParser(no_network=True, resolve_entities=False, load_dtd=False)
    parser.resolvers.add(_BundledResolver(root))
    return parser


@functools.cache
def compiled_schema(relpath: str) -> etree.XMLSchema:
    """The compiled schema at ``relpath`` under schema_dir(); compiled once per process."""
    root = schema_dir()
    doc = etree.parse(str(root / relpath), _schema_parser(root))
    return etree.XMLSchema(doc)


def schema_for(kind: str) -> etree.XMLSchema:
    """The compiled schema for "item", "test" or "manifest"."""
    try:
        return compiled_schema(SCHEMA_FILES[kind])
    except KeyError:
        raise ValueError(f"unknown document kind {kind!r}; expected one of {sorted(SCHEMA_FILES)}") from None


# The QTI 2.1 schema imports MathML 2 (and MathML imports XLink): 0.86 s of the QTI schema's
# 0.94 s compile, paid by every build and every `validate`, while no document lmsexport writes
# holds MathML. MathML declarations only take part in validating a document through elements
# or attributes in the MathML or XLink namespaces (QTI refers to MathML only by
# <xs:element ref="m:math"/>; its wildcards are ##other). So a document with none of those is
# valid against the QTI schema compiled with a stand-in MathML schema that declares just
# m:math exactly when it is valid against the full one, with the same messages (the expected-
# element lists name m:math either way). validate_tree uses the stand-in for such documents
# and the full schema, compiled on first need, for any other: no document is checked less.
MATHML_NS = "http://www.w3.org/1998/Math/MathML"
XLINK_NS = "http://www.w3.org/1999/xlink"
_MATHML_SCHEMA = "w3c/mathml2/mathml2.xsd"
_MATHML_STAND_IN = f"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="{MATHML_NS}"
    elementFormDefault="qualified">
  <xs:element name="math">
    <xs:complexType>
      <xs:sequence><xs:any processContents="lax" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
      <xs:anyAttribute processContents="lax"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
""".encode()
_USES_MATHML = etree.XPath(
    "boolean(//m:* | //@m:* | //xl:* | //@xl:*)", namespaces={"m": MATHML_NS, "xl": XLINK_NS}
)


class _StandInMathResolver(_BundledResolver):
    """The bundled resolver, but MathML 2 is the stand-in above (everything else as bundled)."""

    def resolve(self, url: str, pubid: str | None, context: Any) -> Any:
        if self.local_path(url) == self.root / _MATHML_SCHEMA:
            return self.resolve_string(_MATHML_STAND_IN, context)
        return super().resolve(url, pubid, context)


@functools.cache
def compiled_schema_without_mathml(relpath: str) -> etree.XMLSchema:
    """The schema at ``relpath`` compiled with the stand-in MathML schema (~0.08 s for QTI 2.1)."""
    root = schema_dir()
    parser = etree.XMLParser(no_network=True, resolve_entities=False, load_dtd=False)
    parser.resolvers.add(_StandInMathResolver(root))
    return etree.XMLSchema(etree.parse(str(root / relpath), parser))


def schema_for_tree(kind: str, tree: etree._ElementTree | etree._Element) -> etree.XMLSchema:
    """The schema that gives ``tree`` schema_for(kind)'s verdict at the lowest compile cost."""
    if kind in ("item", "test") and not _USES_MATHML(tree):
        return compiled_schema_without_mathml(SCHEMA_FILES[kind])
    return schema_for(kind)


# --------------------------------------------------------------------------- trees


def _clean(message: str) -> str:
    return _CLARK.sub(lambda m: _NS_PREFIXES.get(m.group(1), "{" + m.group(1) + "}"), message).strip()


def _readable_path(doc: etree._ElementTree | etree._Element, path: str) -> str:
    """libxml2's positional XPath (/*/*[6]/*[2]) as local names, with identifiers where known."""
    root = doc.getroot() if isinstance(doc, etree._ElementTree) else doc
    try:
        found = root.getroottree().xpath(path)
    except etree.XPathError:
        return path
    if not found or not isinstance(found[0], etree._Element):
        return path
    steps = []
    for el in [found[0], *found[0].iterancestors()]:
        step = etree.QName(el).localname
        if el.get("identifier"):
            step += f"[@identifier='{el.get('identifier')}']"
        steps.append(step)
    return "/" + "/".join(reversed(steps))


def validate_tree(
    tree_or_element: etree._ElementTree | etree._Element, kind: str, name: str
) -> list[Diagnostic]:
    """Validate an in-memory document against the schema of ``kind`` without re-parsing it.

    ``kind`` is "item", "test" or "manifest"; ``name`` becomes the Diagnostic path. Lines come
    from libxml2 (0 for a tree built in memory, whose messages then name the element's path).
    """
    schema = schema_for_tree(kind, tree_or_element)
    if schema.validate(tree_or_element):
        return []
    diagnostics = []
    for entry in schema.error_log:
        message = _clean(entry.message)
        if entry.line <= 0 and entry.path:
            message += f" (at {_readable_path(tree_or_element, entry.path)})"
        diagnostics.append(
            Diagnostic(SourceLoc(name, max(entry.line, 0)), message, Severity.ERROR, "xsd.invalid")
        )
    return diagnostics


# --------------------------------------------------------------------------- untrusted XML


class _RefusingResolver(etree.Resolver):
    """Loads nothing: untrusted documents may not pull in any external resource."""

    def resolve(self, url: str, pubid: str | None, context: Any) -> Any:
        raise SchemaResolutionError(f"refusing to load external resource {url!r}")


def _untrusted_parser() -> etree.XMLParser:
    parser = etree.XMLParser(
        no_network=True, resolve_entities=False, load_dtd=False, dtd_validation=False, huge_tree=False
    )
    parser.resolvers.add(_RefusingResolver())
    return parser


def parse_untrusted(data: bytes, name: str) -> tuple[etree._ElementTree | None, list[Diagnostic]]:
    """Parse a document we did not write: refuse any DOCTYPE; never load anything it names."""
    tree, diagnostics = parse_without_dtd(
        data, name, "QTI 2.1 documents are validated against XSDs and need no DOCTYPE: remove it"
    )
    if tree is None:
        return None, diagnostics
    return tree, _remote_schema_locations(tree, name)


def parse_without_dtd(
    data: bytes, name: str, doctype_hint: str
) -> tuple[etree._ElementTree | None, list[Diagnostic]]:
    """parse_untrusted() without its schema-location check: any XML document from elsewhere
    (a Moodle XML file too). A DOCTYPE is refused with `doctype_hint`."""
    doctype = Diagnostic(
        SourceLoc(name),
        "document has a DOCTYPE; DTDs and entities (XXE, entity expansion) are refused",
        rule="xml.doctype",
        hint=doctype_hint,
    )
    # The byte scan refuses the common case before libxml2 parses any entity declaration; the
    # docinfo check after parsing catches encodings the scan cannot read (UTF-16).
    if found := _DOCTYPE.search(data[:65536]):
        line = data.count(b"\n", 0, found.start()) + 1
        return None, [replace(doctype, loc=SourceLoc(name, line))]
    try:
        tree = etree.parse(io.BytesIO(data), _untrusted_parser())
    except etree.XMLSyntaxError as exc:
        line = exc.lineno or 0
        return None, [
            Diagnostic(SourceLoc(name, line), f"not well-formed XML: {_clean(exc.msg)}", rule="xml.syntax")
        ]
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        return None, [doctype]
    return tree, []


@functools.cache
def _known_schema_urls() -> frozenset[str]:
    return frozenset(_BundledResolver(schema_dir()).exact)


def _remote_schema_locations(tree: etree._ElementTree, name: str) -> list[Diagnostic]:
    """Refuse xsi:schemaLocation URLs outside the bundled set (they are never fetched).

    Every URL a QTI 2.1 package legitimately names is in the bundle (locations.json), so an
    unknown one claims conformance to a schema we cannot check: an error, not a guess.
    """
    known = _known_schema_urls()
    out = []
    for el in tree.iter(etree.Element):
        for attr in (f"{{{XSI_NS}}}schemaLocation", f"{{{XSI_NS}}}noNamespaceSchemaLocation"):
            value = el.get(attr)
            if value is None:
                continue
            urls = value.split()[1::2] if attr.endswith("}schemaLocation") else value.split()
            for url in urls:
                if urlsplit(url).scheme and url not in known:
                    out.append(
                        Diagnostic(
                            SourceLoc(name, el.sourceline or 0),
                            f"remote schemaLocation {url!r} is not one of the bundled QTI 2.1 schemas; "
                            "refused (nothing was fetched)",
                            Severity.ERROR,
                            "xml.remote-schema",
                            hint="name the official IMS schema URL, or remove xsi:schemaLocation",
                        )
                    )
    return out


def kind_of(tree: etree._ElementTree) -> str | None:
    """ "item", "test" or "manifest" from the root element, or None for anything else."""
    return ROOT_KINDS.get(tree.getroot().tag)


def validate_xml_bytes(data: bytes, name: str) -> list[Diagnostic]:
    """Validate one untrusted QTI XML document (item, test or manifest, told by its root)."""
    tree, diagnostics = parse_untrusted(data, name)
    if tree is None:
        return diagnostics
    kind = kind_of(tree)
    if kind is None:
        root = _clean(tree.getroot().tag)
        return [
            *diagnostics,
            Diagnostic(
                SourceLoc(name, tree.getroot().sourceline or 0),
                f"root element {root} is not a QTI 2.1 assessmentItem, assessmentTest or IMS CP manifest",
                rule="xml.unknown-root",
            ),
        ]
    return diagnostics + validate_tree(tree, kind, name)


def validate_xml_file(path: str | Path) -> list[Diagnostic]:
    """Validate a single QTI XML file (item, test or manifest, detected from the root element)."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_MEMBER_BYTES:
        return [_too_large(str(path), size)]
    return validate_xml_bytes(path.read_bytes(), str(path))


# --------------------------------------------------------------------------- packages


def _too_large(name: str, size: int) -> Diagnostic:
    return Diagnostic(
        SourceLoc(name),
        f"{size} bytes uncompressed exceeds the limit of {MAX_MEMBER_BYTES} bytes per file",
        rule="package.too-large",
    )


def _unsafe_name(name: str) -> str | None:
    """Why a member name could escape the extraction folder, or None when it is safe."""
    if not name:
        return "is empty"
    if "\\" in name:
        return "contains a backslash"
    if name.startswith("/"):
        return "is an absolute path"
    if _DRIVE.match(name):
        return "starts with a drive letter"
    if "\x00" in name:
        return "contains a NUL character"
    if ".." in PurePosixPath(name).parts:
        return "contains a '..' component"
    return None


def _check_entries(infos: list[zipfile.ZipInfo], zname: str) -> list[Diagnostic]:
    """Everything that can be refused from the central directory alone, before inflating."""
    out: list[Diagnostic] = []

    def bad(member: str, message: str, rule: str) -> None:
        out.append(Diagnostic(SourceLoc(f"{zname}!{member}"), message, rule=rule))

    if len(infos) > MAX_MEMBERS:
        out.append(
            Diagnostic(
                SourceLoc(zname),
                f"{len(infos)} entries exceed the limit of {MAX_MEMBERS}",
                rule="package.too-many",
            )
        )
    for member, count in Counter(i.filename for i in infos).items():
        if count > 1:
            bad(member, f"appears {count} times in the zip", "package.duplicate")
    total = 0
    for info in infos:
        if (why := _unsafe_name(info.filename)) is not None:
            bad(info.filename, f"unsafe member name: it {why}", "package.unsafe-path")
        if stat.S_ISLNK(info.external_attr >> 16):
            bad(info.filename, "is a symbolic link", "package.symlink")
        if info.compress_type not in ALLOWED_COMPRESSION:
            bad(
                info.filename,
                f"uses compression method {info.compress_type}; only stored and deflated are accepted",
                "package.compression",
            )
        if info.flag_bits & 0x1:
            bad(info.filename, "is encrypted", "package.encrypted")
        if info.file_size > MAX_MEMBER_BYTES:
            out.append(_too_large(f"{zname}!{info.filename}", info.file_size))
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size >= RATIO_MIN_BYTES and ratio > MAX_RATIO:
            bad(
                info.filename,
                f"compression ratio {ratio:.0f}:1 exceeds {MAX_RATIO}:1 (zip bomb?)",
                "package.ratio",
            )
        total += info.file_size
    if total > MAX_TOTAL_BYTES:
        out.append(
            Diagnostic(
                SourceLoc(zname),
                f"{total} bytes uncompressed exceed the limit of {MAX_TOTAL_BYTES}",
                rule="package.too-large",
            )
        )
    return out


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes | None:
    """The member's bytes, or None when it inflates beyond what its header declared."""
    limit = min(info.file_size, MAX_MEMBER_BYTES)
    buf = bytearray()
    with zf.open(info) as fh:
        while chunk := fh.read(READ_CHUNK):
            buf += chunk
            if len(buf) > limit:
                return None
    return bytes(buf)


def _resolve_href(base: str, href: str) -> str | None:
    """The member path an href names, relative to the member ``base``; None if it leaves the zip."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return None
    path = unquote(parts.path)
    if path.startswith("/") or "\\" in path:
        return None
    joined: list[str] = list(PurePosixPath(base).parent.parts)
    for part in PurePosixPath(path).parts:
        if part == "..":
            if not joined:
                return None
            joined.pop()
        elif part != ".":
            joined.append(part)
    return "/".join(joined)


def validate_package(source: str | Path | bytes, name: str | None = None) -> list[Diagnostic]:
    """Validate an existing QTI 2.1 content package (zip), treating it as hostile input.

    Checks, in order: the zip's central directory (unsafe or duplicate names, symlinks,
    encryption, size and ratio limits: see the MAX_* constants) before inflating anything;
    then ``imsmanifest.xml`` against the QTI 2.1 CP profile; every file a resource names is
    present; every XML member is valid against its XSD; every item in the zip is a manifest
    resource; every assessmentItemRef of a test names a file in the zip. Locations read
    ``<name>!<member>:<line>``; ``name`` defaults to the path (or "<bytes>").
    """
    zname = name if name is not None else ("<bytes>" if isinstance(source, bytes) else str(source))
    if isinstance(source, bytes):
        opened: Any = io.BytesIO(source)
    else:
        opened = Path(source)
        if not opened.is_file():
            return [Diagnostic(SourceLoc(zname), "no such file", rule="package.missing")]
    try:
        with zipfile.ZipFile(opened) as zf:
            return _validate_zip(zf, zname)
    except _ZIP_READ_ERRORS as exc:
        return [Diagnostic(SourceLoc(zname), f"not a readable zip file: {exc}", rule="package.bad-zip")]


def _validate_zip(zf: zipfile.ZipFile, zname: str) -> list[Diagnostic]:
    infos = zf.infolist()
    refused = _check_entries(infos, zname)
    if refused:
        return sorted(refused, key=Diagnostic.sort_key)
    files = {i.filename: i for i in infos if not i.filename.endswith("/")}
    out: list[Diagnostic] = []
    trees: dict[str, etree._ElementTree] = {}
    for member, info in files.items():
        if not member.lower().endswith(".xml"):
            continue
        mname = f"{zname}!{member}"
        try:
            data = _read_member(zf, info)
        except _ZIP_READ_ERRORS as exc:
            out.append(Diagnostic(SourceLoc(mname), f"cannot be read: {exc}", rule="package.bad-member"))
            continue
        if data is None:
            out.append(
                Diagnostic(SourceLoc(mname), "inflates beyond its declared size", rule="package.too-large")
            )
            continue
        tree, diagnostics = parse_untrusted(data, mname)
        out += diagnostics
        if tree is not None:
            trees[member] = tree
    if "imsmanifest.xml" not in files:
        out.append(
            Diagnostic(
                SourceLoc(zname), "no imsmanifest.xml at the root of the package", rule="package.no-manifest"
            )
        )
    for member, tree in trees.items():
        kind = kind_of(tree)
        if kind is not None:
            out += validate_tree(tree, kind, f"{zname}!{member}")
    if "imsmanifest.xml" in trees:
        out += _check_manifest_refs(trees, set(files), zname)
    return sorted(out, key=Diagnostic.sort_key)


def _check_manifest_refs(
    trees: dict[str, etree._ElementTree], members: set[str], zname: str
) -> list[Diagnostic]:
    manifest = trees["imsmanifest.xml"]
    mname = f"{zname}!imsmanifest.xml"
    out: list[Diagnostic] = []
    listed_items: set[str] = set()
    for res in manifest.iter(f"{{{CP_NS}}}resource"):
        rtype = res.get("type", "")
        hrefs = [(res, res.get("href"))] + [(f, f.get("href")) for f in res.iter(f"{{{CP_NS}}}file")]
        for el, href in hrefs:
            if href is None:
                continue
            target = _resolve_href("imsmanifest.xml", href)
            if target is None:
                out.append(
                    Diagnostic(
                        SourceLoc(mname, el.sourceline or 0),
                        f"href {href!r} points outside the package",
                        rule="package.unsafe-path",
                    )
                )
            elif target not in members:
                out.append(
                    Diagnostic(
                        SourceLoc(mname, el.sourceline or 0),
                        f"href {href!r} names a file that is not in the package",
                        rule="package.missing-file",
                        hint='Canvas turns such a question into an "Error" question',
                    )
                )
            elif rtype in ITEM_RESOURCE_TYPES and el is res:
                listed_items.add(target)
            if target in trees and el is res:
                out += _check_resource_kind(trees[target], rtype, href, mname, el.sourceline or 0)
    for member, tree in trees.items():
        if kind_of(tree) == "item" and member not in listed_items:
            out.append(
                Diagnostic(
                    SourceLoc(f"{zname}!{member}"),
                    "assessmentItem is not a resource of the manifest",
                    rule="package.unlisted-item",
                    hint="add an imsqti_item_xmlv2p1 resource for it to imsmanifest.xml",
                )
            )
        if kind_of(tree) == "test":
            out += _check_item_refs(tree, member, members, zname)
    return out


def _check_resource_kind(
    tree: etree._ElementTree, rtype: str, href: str, mname: str, line: int
) -> list[Diagnostic]:
    kind = kind_of(tree)
    expected = "item" if rtype in ITEM_RESOURCE_TYPES else "test" if rtype in TEST_RESOURCE_TYPES else None
    if expected is None or kind == expected:
        return []
    return [
        Diagnostic(
            SourceLoc(mname, line),
            f"resource of type {rtype} points to {href!r}, which is not an assessment{expected.title()}",
            rule="package.wrong-type",
        )
    ]


def _check_item_refs(
    tree: etree._ElementTree, member: str, members: Iterable[str], zname: str
) -> list[Diagnostic]:
    present = set(members)
    out = []
    for ref in tree.iter(f"{{{QTI_NS}}}assessmentItemRef"):
        href = ref.get("href", "")
        target = _resolve_href(member, href)
        if target is None or target not in present:
            out.append(
                Diagnostic(
                    SourceLoc(f"{zname}!{member}", ref.sourceline or 0),
                    f"assessmentItemRef {ref.get('identifier')!r} names {href!r}, which is not in "
                    "the package",
                    rule="package.missing-file",
                )
            )
    return out
