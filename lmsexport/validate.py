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
    "section": "qti21/imsqti_v2p1.xsd",
    "responseprocessing": "qti21/imsqti_v2p1.xsd",
    "manifest": "qti21/qtiv2p1_imscpv1p2_v1p0.xsd",
    "cp-manifest": "imscp11/imscp_v1p1.xsd",
}
"""Document kind -> schema file, relative to the schema directory. "manifest" is the QTI 2.1
profile of IMS CP (what lmsexport writes); "cp-manifest" plain IMS CP 1.1, for manifests from
other tools that do not declare the profile."""

QTI_KINDS = frozenset({"item", "test", "section", "responseprocessing"})
"""Kinds validated against the QTI 2.1 schema. A section is a document of its own when a test
includes it by assessmentSectionRef; a responseProcessing document is a template a package may
carry (resource type imsqti_resprocessing_xmlv2p1)."""

ROOT_KINDS = {
    f"{{{QTI_NS}}}assessmentItem": "item",
    f"{{{QTI_NS}}}assessmentTest": "test",
    f"{{{QTI_NS}}}assessmentSection": "section",
    f"{{{QTI_NS}}}responseProcessing": "responseprocessing",
    f"{{{CP_NS}}}manifest": "manifest",
}

RESOURCE_KINDS = {
    "item": "assessmentItem",
    "test": "assessmentTest",
    "section": "assessmentSection",
    "resprocessing": "responseProcessing",
}
"""imsqti_<word>_xmlv2p1 resource types -> the root element their file must have."""
_QTI21_RESOURCE_TYPE = re.compile(r"^imsqti_(item|test|section|resprocessing)_xmlv2p1(?:p\d+)?$")
_QTI_RESOURCE_TYPE = re.compile(r"^imsqti_(?:[a-z]+_)?xmlv(\d+)p(\d+)(?:p\d+)?$")

OTHER_QTI_NAMESPACES = {
    "http://www.imsglobal.org/xsd/imsqti_v2p0": "QTI 2.0",
    "http://www.imsglobal.org/xsd/imsqti_v2p2": "QTI 2.2",
    "http://www.imsglobal.org/xsd/imsqtiasi_v3p0": "QTI 3.0",
    "http://www.imsglobal.org/xsd/imsqti_result_v2p1": "QTI 2.1 results reporting",
    "http://www.imsglobal.org/xsd/imsqti_result_v2p2": "QTI 2.2 results reporting",
}
"""Root namespaces of QTI documents lmsexport does not validate, and what they are. QTI 1.x
documents have no namespace; their root is ``questestinterop``."""
_SCHEMA_REVISION = re.compile(r"imsqti_v(\d+)p(\d+)p(\d+)\.xsd$")
_APIP_NAMESPACE = re.compile(
    r"^http://www\.imsglobal\.org/xsd/apip/apipv(\d+)p(\d+)/(?:[a-z]+/imsqti_v(\d+)p(\d+)|imscp_v1p1)$"
)
"""APIP's own namespaces for the QTI documents it wraps (.../apipv1p0/qtiitem/imsqti_v2p1, qtisection,
qtitest, ...) and for its manifest (.../apipv1p0/imscp_v1p1), which names no QTI version: the
manifest's resource types do (imsqti_apipitem_xmlv2p1). The APIP extension that plain QTI 2.1 items
may carry (apipv1p0/imsapip_qtiv1p0, bundled in schemas/apip/) is not a root and does not match."""

SCHEMA_REVISIONS = {
    "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1p1.xsd": ("QTI 2.1.1", "QTI 2.1"),
    "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1p2.xsd": ("QTI 2.1.2", "QTI 2.1"),
    "http://www.imsglobal.org/xsd/imsmd_v1p2.xsd": ("IMS Meta-data 1.2", "IMS Meta-data 1.2.4"),
    "http://www.w3.org/Math/XMLSchema/mathml3/mathml3.xsd": (
        "MathML 3",
        "MathML 2 (the MathML QTI 2.1 imports)",
    ),
}
"""Official schemaLocation URLs of other revisions of a namespace lmsexport bundles -> (what the
URL names, the bundled schema the namespace is validated against). QTI 2.1.1 and 2.1.2 keep the
QTI 2.1 namespace (IMS examples of 2.1.1 name imsqti_v2p1p1.xsd); an instance's schemaLocation
is only a hint (validation goes by namespace), so such a document is checked against the
bundled schema of its namespace, with a note, instead of being refused."""

# libxml2 names elements as {namespace}local; these prefixes make its messages readable.
_NS_PREFIXES = {
    QTI_NS: "",
    CP_NS: "",
    "http://ltsc.ieee.org/xsd/LOM": "lom:",
    "http://www.imsglobal.org/xsd/imsqti_metadata_v2p1": "imsqti:",
    "http://www.w3.org/XML/1998/namespace": "xml:",
    "http://www.w3.org/1998/Math/MathML": "m:",
    "http://www.imsglobal.org/xsd/imsmd_v1p2": "imsmd:",
}
_CLARK = re.compile(r"\{([^}]*)\}")
_DRIVE = re.compile(r"^[A-Za-z]:")
_DOCTYPE = re.compile(rb"<!DOCTYPE", re.IGNORECASE)
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
XINCLUDE_NS = "http://www.w3.org/2001/XInclude"


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
    """The compiled schema for a kind of SCHEMA_FILES ("item", "test", "manifest", ...)."""
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
    if kind in QTI_KINDS and not _USES_MATHML(tree):
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

    ``kind`` is a key of SCHEMA_FILES ("item", "test", "manifest", ...); ``name`` becomes the
    Diagnostic path. Lines come from libxml2 (0 for a tree built in memory, whose messages then
    name the element's path).
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
    # XInclude is never processed (lxml only does so when asked: tree.xinclude()), so an
    # xi:include in an item is validated as an element and its href checked as a package file.
    parser = etree.XMLParser(
        no_network=True, resolve_entities=False, load_dtd=False, dtd_validation=False, huge_tree=False
    )
    parser.resolvers.add(_RefusingResolver())
    return parser


def parse_untrusted(data: bytes, name: str) -> tuple[etree._ElementTree | None, list[Diagnostic]]:
    """Parse a document we did not write: refuse any DOCTYPE; never load anything it names."""
    return parse_without_dtd(
        data, name, "QTI 2.1 documents are validated against XSDs and need no DOCTYPE: remove it"
    )


def parse_without_dtd(
    data: bytes, name: str, doctype_hint: str
) -> tuple[etree._ElementTree | None, list[Diagnostic]]:
    """Parse any XML document from elsewhere (a QTI document, a Moodle XML file): refuse any
    DOCTYPE, with `doctype_hint`; never load anything it names."""
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
def _bundled_resolver() -> _BundledResolver:
    return _BundledResolver(schema_dir())


def is_bundled_schema_url(url: str) -> bool:
    """A remote schema URL the bundle maps to one of its files (locations.json: exact or prefix)."""
    resolver = _bundled_resolver()
    if url in resolver.exact:
        return True
    for prefix, folder in resolver.prefixes.items():
        if url.startswith(prefix):
            local = (resolver.root / folder / url[len(prefix) :]).resolve()
            return local.is_relative_to(resolver.root / folder) and local.is_file()
    return False


def _namespaces_used(tree: etree._ElementTree) -> set[str]:
    used = set()
    for el in tree.iter(etree.Element):
        used.add(etree.QName(el).namespace or "")
        used.update(a[1 : a.index("}")] for a in el.attrib if a.startswith("{"))
    return used


def schema_location_diagnostics(tree: etree._ElementTree, name: str) -> list[Diagnostic]:
    """Judge every xsi:schemaLocation URL; none is ever fetched (validation goes by namespace).

    A bundled URL (locations.json, exact or prefix) is silent; a relative one names a file
    beside the document, which is never read, and is silent too. An official URL of another
    revision of a bundled namespace (SCHEMA_REVISIONS) gets a note: the namespace is validated
    against the bundled schema. A pair for a namespace no element or attribute uses is a
    warning: it affects nothing. Any other URL claims conformance to a schema we cannot check:
    an error.
    """
    used: set[str] | None = None
    out: list[Diagnostic] = []
    noted: set[str] = set()
    for el in tree.iter(etree.Element):
        for attr in (f"{{{XSI_NS}}}schemaLocation", f"{{{XSI_NS}}}noNamespaceSchemaLocation"):
            value = el.get(attr)
            if value is None:
                continue
            tokens = value.split()
            pairs = (
                zip(tokens[0::2], tokens[1::2], strict=False)
                if attr.endswith("}schemaLocation")
                else (("", t) for t in tokens)
            )
            loc = SourceLoc(name, el.sourceline or 0)
            for ns, url in pairs:
                if not urlsplit(url).scheme or is_bundled_schema_url(url):
                    continue
                if used is None:
                    used = _namespaces_used(tree)
                if ns not in used:
                    out.append(
                        Diagnostic(
                            loc,
                            f"xsi:schemaLocation names {url!r} for namespace {ns or '(none)'}, which no "
                            "element or attribute of this document uses; ignored (nothing was fetched)",
                            Severity.WARNING,
                            "xml.unused-schema-location",
                            hint="remove the unused pair from xsi:schemaLocation",
                        )
                    )
                elif url in SCHEMA_REVISIONS:
                    if url not in noted:
                        noted.add(url)
                        names, against = SCHEMA_REVISIONS[url]
                        out.append(
                            Diagnostic(
                                loc,
                                f"xsi:schemaLocation names {names} ({url}); validated against the bundled "
                                f"{against} schema of the same namespace (nothing was fetched)",
                                Severity.NOTE,
                                "xml.schema-revision",
                            )
                        )
                else:
                    out.append(
                        Diagnostic(
                            loc,
                            f"remote schemaLocation {url!r} is not one of the bundled schemas; refused "
                            "(nothing was fetched)",
                            Severity.ERROR,
                            "xml.remote-schema",
                            hint="name the official IMS schema URL, or remove xsi:schemaLocation",
                        )
                    )
    return out


def kind_of(tree: etree._ElementTree) -> str | None:
    """ "item", "test", "section", "responseprocessing" or "manifest" from the root element;
    None for anything else (another QTI version, an unknown document)."""
    return ROOT_KINDS.get(tree.getroot().tag)


def _apip_version(tree: etree._ElementTree) -> str | None:
    """ "APIP 1.0 (QTI 2.1)" when the root is in one of APIP's namespaces ("APIP 1.0" for a
    manifest whose resources name no QTI version)."""
    root = tree.getroot()
    ns = etree.QName(root).namespace or ""
    if (m := _APIP_NAMESPACE.match(ns)) is None:
        return None
    apip = f"APIP {m[1]}.{m[2]}"
    if m[3] is not None:
        return f"{apip} (QTI {m[3]}.{m[4]})"
    versions = sorted(
        {(int(v[1]), int(v[2])) for t in _resource_types(root, ns) if (v := _QTI_RESOURCE_TYPE.match(t))}
    )
    return f"{apip} ({', '.join(f'QTI {a}.{b}' for a, b in versions)})" if versions else apip


def _other_version(tree: etree._ElementTree) -> str | None:
    """ "QTI 2.2.4", "QTI 2.0", "QTI 1.x", "APIP 1.0 (QTI 2.1)", ... when the root is a QTI
    document of another version or of APIP."""
    root = tree.getroot()
    qname = etree.QName(root)
    if qname.namespace is None and qname.localname == "questestinterop":
        return "QTI 1.x"
    if (apip := _apip_version(tree)) is not None:
        return apip
    label = OTHER_QTI_NAMESPACES.get(qname.namespace or "")
    if label is None:
        return None
    # The namespace names the minor version; the schemaLocation may name the revision.
    tokens = (root.get(f"{{{XSI_NS}}}schemaLocation") or "").split()
    for ns, url in zip(tokens[0::2], tokens[1::2], strict=False):
        if ns == qname.namespace and (m := _SCHEMA_REVISION.search(url)) and label.startswith("QTI "):
            return f"QTI {m[1]}.{m[2]}.{m[3]}" + label[len("QTI x.y") :]
    return label


def _unsupported(name: str, line: int, what: str) -> Diagnostic:
    if "results" in what:
        hint = None
    elif what.startswith("APIP"):
        # APIP's documents are QTI in APIP's own namespaces, which no bundled schema declares.
        hint = (
            "export it as a plain QTI 2.1 package (without APIP's namespaces), "
            "or validate it with APIP's own schemas"
        )
    else:
        hint = "export it as QTI 2.1 (authoring tools such as TAO and Onyx offer a QTI 2.1 export)"
    return Diagnostic(
        SourceLoc(name, line),
        f"{what}: lmsexport validates QTI 2.1 (items, tests, sections, their content packages); not checked",
        rule="qti.unsupported-version",
        hint=hint,
    )


def document_kind(tree: etree._ElementTree, name: str) -> tuple[str | None, list[Diagnostic]]:
    """The kind ``tree`` is validated as (manifests: profile or plain CP), and what to say about it;
    kind None with the reason when it is not a document lmsexport validates."""
    root = tree.getroot()
    line = root.sourceline or 0
    kind = kind_of(tree)
    if kind == "manifest":
        return _manifest_kind(tree, name)
    if kind is not None:
        return kind, []
    qname = etree.QName(root)
    if (version := _other_version(tree)) is not None:
        return None, [_unsupported(name, line, f"{version} document ({qname.localname})")]
    hint = None
    if qname.namespace is None and f"{{{QTI_NS}}}{qname.localname}" in ROOT_KINDS:
        hint = f'QTI 2.1 elements are in a namespace: add xmlns="{QTI_NS}" to the root element'
    what = f"root element {_clean(root.tag)}"
    if qname.namespace == QTI_NS:
        what += " is a QTI 2.1 element but"
    return None, [
        Diagnostic(
            SourceLoc(name, line),
            f"{what} is not a QTI 2.1 assessmentItem, assessmentTest, assessmentSection or "
            "responseProcessing document, nor an IMS CP manifest",
            rule="xml.unknown-root",
            hint=hint,
        )
    ]


_PROFILE_SCHEMAS = ("QTIv2.1 Package", "QTIv2.1 Item Bank Package")


def _manifest_kind(tree: etree._ElementTree, name: str) -> tuple[str, list[Diagnostic]]:
    """The QTI 2.1 CP profile when the manifest declares it, else plain IMS CP 1.1 (with a note).

    The profile (what lmsexport writes) requires <metadata> with <schema>QTIv2.1 Package</schema>
    and an empty <organizations/>. Many tools write plain IMS CP 1.1 manifests instead (QTIWorks'
    own test packages, Aardvark, older TAO exports: no metadata, <schema>IMS Content</schema>,
    organizations), which QTI players and Canvas import; holding them to the profile would call
    every one invalid. A manifest declares the profile by its metadata schema or by naming the
    profile's XSD in xsi:schemaLocation.
    """
    root = tree.getroot()
    schema = root.find(f"{{{CP_NS}}}metadata/{{{CP_NS}}}schema")
    declared = schema is not None and (schema.text or "").strip() in _PROFILE_SCHEMAS
    tokens = (root.get(f"{{{XSI_NS}}}schemaLocation") or "").split()
    if declared or any(url.endswith("qtiv2p1_imscpv1p2_v1p0.xsd") for url in tokens[1::2]):
        return "manifest", []
    return "cp-manifest", [
        Diagnostic(
            SourceLoc(name, root.sourceline or 0),
            "the manifest does not declare the QTI 2.1 package profile (<schema>QTIv2.1 Package</schema>); "
            "validated as a plain IMS Content Packaging 1.1 manifest",
            Severity.NOTE,
            "package.plain-cp",
        )
    ]


def validate_document(tree: etree._ElementTree, name: str) -> list[Diagnostic]:
    """Everything said about one parsed untrusted document: its kind, schemaLocations, XSD."""
    kind, diagnostics = document_kind(tree, name)
    if kind is None:
        return diagnostics
    return diagnostics + schema_location_diagnostics(tree, name) + validate_tree(tree, kind, name)


def validate_xml_bytes(data: bytes, name: str) -> list[Diagnostic]:
    """Validate one untrusted QTI XML document (item, test, section or manifest, told by its root)."""
    tree, diagnostics = parse_untrusted(data, name)
    if tree is None:
        return diagnostics
    return validate_document(tree, name)


def validate_xml_file(path: str | Path) -> list[Diagnostic]:
    """Validate a single QTI XML file (item, test, section or manifest, detected from the root element)."""
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


def is_macos_debris(member: str) -> bool:
    """What macOS's Finder adds to a zip it makes: __MACOSX/ (AppleDouble resource forks), ._*
    files and .DS_Store. AppleDouble files are binary even when named ._item.xml."""
    parts = PurePosixPath(member).parts
    return bool(parts) and (parts[0] == "__MACOSX" or parts[-1].startswith("._") or parts[-1] == ".DS_Store")


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


def _xml_bases(el: etree._Element) -> list[str]:
    """The xml:base values in scope at ``el``, outermost first."""
    return [b for a in reversed([el, *el.iterancestors()]) if (b := a.get(XML_BASE)) is not None]


def package_path(member: str, href: str, bases: Iterable[str] = ()) -> tuple[str | None, bool]:
    """Where ``href``, written in ``member`` under the xml:base values ``bases``, points.

    (member path, False) inside the package; (None, True) for an absolute URL, which names
    nothing in the package (http:, data:, ...); (None, False) when it leaves the package (climbs
    above its root or is an absolute path). Percent-escapes are decoded (``my%20pic.png``).
    """
    directory = list(PurePosixPath(member).parent.parts)
    refs = [*bases, href]
    for i, ref in enumerate(refs):
        parts = urlsplit(ref)
        if parts.scheme or parts.netloc:
            return None, True
        path = unquote(parts.path)
        if path.startswith("/") or "\\" in path:
            return None, False
        segments = path.split("/")
        if i < len(refs) - 1:
            segments = segments[:-1]  # an xml:base "items/q.xml" or "items/" sets the folder items/
        for seg in segments:
            if seg == "..":
                if not directory:
                    return None, False
                directory.pop()
            elif seg not in ("", "."):
                directory.append(seg)
    return "/".join(directory), False


def validate_package(source: str | Path | bytes, name: str | None = None) -> list[Diagnostic]:
    """Validate an existing QTI 2.1 content package (zip), treating it as hostile input.

    Checks, in order: the zip's central directory (unsafe or duplicate names, symlinks,
    encryption, size and ratio limits: see the MAX_* constants) before inflating anything;
    then ``imsmanifest.xml`` (against the QTI 2.1 CP profile when it declares it, else plain
    IMS CP 1.1); every file a resource names is present; every XML member is valid against
    its XSD; every item in the zip is a manifest resource; every assessmentItemRef and
    assessmentSectionRef names a file of the right kind; files items and tests refer to
    (img, object, stylesheet, xi:include) are present (a warning). macOS debris the manifest
    does not name is skipped with a note. Locations read ``<name>!<member>:<line>``; ``name``
    defaults to the path (or "<bytes>").
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


def _load_member(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, mname: str, named: bool
) -> tuple[etree._ElementTree | None, list[Diagnostic]]:
    """Read and parse one XML member. Broken XML no resource names is a warning: importers
    follow the manifest and never read it. A DOCTYPE is refused wherever it is."""
    try:
        data = _read_member(zf, info)
    except _ZIP_READ_ERRORS as exc:
        return None, [Diagnostic(SourceLoc(mname), f"cannot be read: {exc}", rule="package.bad-member")]
    if data is None:
        return None, [
            Diagnostic(SourceLoc(mname), "inflates beyond its declared size", rule="package.too-large")
        ]
    tree, diagnostics = parse_untrusted(data, mname)
    if not named:
        diagnostics = [
            replace(
                d,
                severity=Severity.WARNING,
                message=d.message + "; no resource of the manifest names this file, so importers ignore it",
            )
            if d.rule == "xml.syntax"
            else d
            for d in diagnostics
        ]
    return tree, diagnostics


def _manifest_names(manifest: etree._ElementTree, members: set[str]) -> set[str]:
    """Every member a resource of the manifest names (href and file href, after xml:base)."""
    named = set()
    for res in manifest.iter(f"{{{CP_NS}}}resource"):
        for el in [res, *res.iterchildren(f"{{{CP_NS}}}file")]:
            if (href := el.get("href")) is not None:
                target = _member_for(*package_path("imsmanifest.xml", href, _xml_bases(el)), href, members)
                if target is not None:
                    named.add(target)
    return named


def _member_for(target: str | None, remote: bool, href: str, members: set[str]) -> str | None:
    """The member ``target`` names; a member whose name holds literal %XX escapes matches too."""
    if target is None or target in members:
        return target
    raw = package_path("imsmanifest.xml", href.replace("%", "%25"))[0]
    return raw if raw in members else target


def _validate_zip(zf: zipfile.ZipFile, zname: str) -> list[Diagnostic]:
    infos = zf.infolist()
    refused = _check_entries(infos, zname)
    if refused:
        return sorted(refused, key=Diagnostic.sort_key)
    files = {i.filename: i for i in infos if not i.filename.endswith("/")}
    members = set(files)
    out: list[Diagnostic] = []
    manifest = None
    if "imsmanifest.xml" not in files:
        out.append(
            Diagnostic(
                SourceLoc(zname), "no imsmanifest.xml at the root of the package", rule="package.no-manifest"
            )
        )
    else:
        manifest, found = _load_member(zf, files["imsmanifest.xml"], f"{zname}!imsmanifest.xml", True)
        out += found
    if manifest is not None and (apip := _apip_version(manifest)) is not None:
        types = _resource_types(manifest.getroot(), etree.QName(manifest.getroot()).namespace or "")
        what = f"{apip} package (resource types {', '.join(types)})" if types else f"{apip} package"
        out.append(_unsupported(f"{zname}!imsmanifest.xml", manifest.getroot().sourceline or 0, what))
        return sorted(out, key=Diagnostic.sort_key)
    if manifest is not None and kind_of(manifest) == "manifest":
        if (version := _package_version(manifest)) is not None:
            what = f"{version} package (resource types {', '.join(_qti_resource_types(manifest))})"
            out.append(_unsupported(f"{zname}!imsmanifest.xml", manifest.getroot().sourceline or 0, what))
            return sorted(out, key=Diagnostic.sort_key)
        named: set[str] | None = _manifest_names(manifest, members)
    else:
        named = None  # no usable manifest: every member counts as named
    trees: dict[str, etree._ElementTree] = {} if manifest is None else {"imsmanifest.xml": manifest}
    debris = 0
    for member in sorted(files):
        is_named = named is None or member in named
        if member == "imsmanifest.xml":
            continue
        if is_macos_debris(member) and (named is None or member not in named):
            debris += 1
            continue
        if not member.lower().endswith(".xml"):
            continue
        tree, found = _load_member(zf, files[member], f"{zname}!{member}", is_named)
        out += found
        if tree is not None:
            trees[member] = tree
    if debris:
        out.append(
            Diagnostic(
                SourceLoc(zname),
                f"ignored {debris} macOS metadata file(s) (__MACOSX/, ._*, .DS_Store) that no resource names",
                Severity.NOTE,
                "package.macos-debris",
            )
        )
    kinds: dict[str, str | None] = {}
    for member, tree in trees.items():
        kind, found = document_kind(tree, f"{zname}!{member}")
        kinds[member] = kind
        if kind is None and member != "imsmanifest.xml" and found and found[0].rule == "xml.unknown-root":
            continue  # any other XML a package carries (a resource's data): not ours to judge
        out += found
        if kind is not None:
            out += schema_location_diagnostics(tree, f"{zname}!{member}")
            out += validate_tree(tree, kind, f"{zname}!{member}")
    if manifest is not None and kinds.get("imsmanifest.xml") in ("manifest", "cp-manifest"):
        out += _check_manifest_refs(
            manifest, trees, members, zname, kinds["imsmanifest.xml"] == "cp-manifest"
        )
    for member, tree in trees.items():
        if kinds[member] in QTI_KINDS:
            out += _check_document_refs(tree, member, trees, members, zname)
    return sorted(out, key=Diagnostic.sort_key)


def _qti_resource_types(manifest: etree._ElementTree) -> list[str]:
    return _resource_types(manifest.getroot(), CP_NS)


def _resource_types(root: etree._Element, ns: str) -> list[str]:
    """The QTI resource types of a manifest whose elements are in namespace ``ns``."""
    types = {res.get("type", "") for res in root.iter(f"{{{ns}}}resource")}
    return sorted(t for t in types if _QTI_RESOURCE_TYPE.match(t))


def _package_version(manifest: etree._ElementTree) -> str | None:
    """ "QTI 2.2" (etc.) when the manifest's QTI resources are all of one other version."""
    versions: Counter[tuple[int, int]] = Counter()
    for t in _qti_resource_types(manifest):
        m = _QTI_RESOURCE_TYPE.match(t)
        assert m is not None
        versions[(int(m[1]), int(m[2]))] += 1
    if not versions or (2, 1) in versions:
        return None
    major, minor = max(versions)
    return f"QTI {major}.{minor}"


def _wrong_root(tree: etree._ElementTree | None, expected: str) -> bool:
    """A parsed file whose root is not the QTI 2.1 ``expected`` element. A document of another
    QTI version is not "wrong": it has its own message (qti.unsupported-version)."""
    if tree is None:
        return False
    root = tree.getroot()
    return (
        root.tag != f"{{{QTI_NS}}}{expected}"
        and etree.QName(root).namespace not in OTHER_QTI_NAMESPACES
        and _apip_version(tree) is None
    )


def _check_manifest_refs(
    manifest: etree._ElementTree,
    trees: dict[str, etree._ElementTree],
    members: set[str],
    zname: str,
    plain_cp: bool,
) -> list[Diagnostic]:
    mname = f"{zname}!imsmanifest.xml"
    out: list[Diagnostic] = []
    listed_items: set[str] = set()
    resources = list(manifest.iter(f"{{{CP_NS}}}resource"))
    identifiers = {r.get("identifier") for r in resources}
    for res in resources:
        rtype = res.get("type", "")
        m = _QTI21_RESOURCE_TYPE.match(rtype)
        expected = RESOURCE_KINDS[m[1]] if m else None
        hrefs = [(res, res.get("href"))] + [(f, f.get("href")) for f in res.iterchildren(f"{{{CP_NS}}}file")]
        for el, href in hrefs:
            if href is None:
                continue
            line = el.sourceline or 0
            target, remote = package_path("imsmanifest.xml", href, _xml_bases(el))
            target = _member_for(target, remote, href, members)
            if remote and expected is None:
                continue  # IMS CP allows a resource of web content to name an external URL
            if target is None:
                out.append(
                    Diagnostic(
                        SourceLoc(mname, line),
                        f"href {href!r} points outside the package",
                        rule="package.unsafe-path",
                    )
                )
            elif target not in members:
                out.append(
                    Diagnostic(
                        SourceLoc(mname, line),
                        f"href {href!r} names a file that is not in the package",
                        rule="package.missing-file",
                        hint='Canvas turns such a question into an "Error" question'
                        if el is res and expected == "assessmentItem"
                        else None,
                    )
                )
            elif el is res and expected is not None:
                if expected == "assessmentItem":
                    listed_items.add(target)
                if _wrong_root(trees.get(target), expected):
                    out.append(
                        Diagnostic(
                            SourceLoc(mname, line),
                            f"resource of type {rtype} points to {href!r}, which is not an {expected}",
                            rule="package.wrong-type",
                        )
                    )
        # The profile's XSD types identifierref as an IDREF (libxml2 reports a dangling one);
        # plain IMS CP 1.1 types it as a string, so it is checked here.
        if plain_cp:
            for dep in res.iterchildren(f"{{{CP_NS}}}dependency"):
                ref = dep.get("identifierref")
                if ref is not None and ref not in identifiers:
                    out.append(
                        Diagnostic(
                            SourceLoc(mname, dep.sourceline or 0),
                            f"dependency names resource {ref!r}, which the manifest does not declare",
                            rule="package.missing-dependency",
                        )
                    )
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
    return out


# Attributes of QTI 2.1 documents that name another file: the file must be in the package.
_ASSET_REFS = (
    (f"{{{QTI_NS}}}img", "src"),
    (f"{{{QTI_NS}}}object", "data"),
    (f"{{{QTI_NS}}}stylesheet", "href"),
    (f"{{{XINCLUDE_NS}}}include", "href"),
)
_DOC_REFS = {
    f"{{{QTI_NS}}}assessmentItemRef": "assessmentItem",
    f"{{{QTI_NS}}}assessmentSectionRef": "assessmentSection",
}


def _check_document_refs(
    tree: etree._ElementTree,
    member: str,
    trees: dict[str, etree._ElementTree],
    members: set[str],
    zname: str,
) -> list[Diagnostic]:
    """A test's or section's item and section references (errors: the LMS cannot build the test)
    and the files an item, test or section shows (warnings: a broken image or an unstyled
    item, the question still imports)."""
    out = []
    mname = f"{zname}!{member}"
    for el in tree.iter(*_DOC_REFS):
        expected = _DOC_REFS[el.tag]
        href = el.get("href", "")
        target, _remote = package_path(member, href, _xml_bases(el))
        what = f"{etree.QName(el).localname} {el.get('identifier')!r} names {href!r}"
        if target is None or target not in members:
            out.append(
                Diagnostic(
                    SourceLoc(mname, el.sourceline or 0),
                    f"{what}, which is not in the package",
                    rule="package.missing-file",
                )
            )
        elif _wrong_root(trees.get(target), expected):
            out.append(
                Diagnostic(
                    SourceLoc(mname, el.sourceline or 0),
                    f"{what}, which is not an {expected}",
                    rule="package.wrong-type",
                )
            )
    for tag, attr in _ASSET_REFS:
        for el in tree.iter(tag):
            href = el.get(attr)
            if not href:
                continue
            target, remote = package_path(member, href, _xml_bases(el))
            if remote:
                continue
            prefix = "xi:" if tag.startswith(f"{{{XINCLUDE_NS}}}") else ""
            label = f"{prefix}{etree.QName(el).localname} {attr}={href!r}"
            if target is None:
                message = f"{label} points outside the package"
            elif _member_for(target, False, href, members) not in members:
                message = f"{label} names a file that is not in the package"
            else:
                continue
            out.append(
                Diagnostic(
                    SourceLoc(mname, el.sourceline or 0),
                    message,
                    Severity.WARNING,
                    "package.missing-asset",
                    hint="add the file to the package (and to its resource's <file> list): "
                    "an LMS shows a broken image or an unstyled question",
                )
            )
    return out
