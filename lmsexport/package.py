"""IMS content packages (QTI 2.1 zips): the manifest, validation of every member, and zipping.

The only module that zips. Output is deterministic to the byte for a given zlib: members in a
fixed order (imsmanifest.xml first, the rest sorted by path), every entry stamped with
``ctx.timestamp`` in UTC, fixed Unix permissions, DEFLATE at a fixed level, no extra fields.
"""

from __future__ import annotations

import copy
import functools
import io
import itertools
import struct
import time
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lxml import etree

from . import __version__
from .errors import Diagnostic, SchemaValidationError
from .model import Assessment, Bank, Difficulty, Media, Question, QuestionType, Quiz
from .validate import SCHEMA_FILES, compiled_schema_without_mathml, schema_for, validate_tree
from .writers import Output, WriteContext, cc13, qti12, qti21
from .writers.qti21 import Member

if TYPE_CHECKING:
    from .validate_qti12 import CcVersion

CP_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
LOM_NS = "http://ltsc.ieee.org/xsd/LOM"
QTIMD_NS = "http://www.imsglobal.org/xsd/imsqti_metadata_v2p1"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
MANIFEST_NSMAP = {None: CP_NS, "lom": LOM_NS, "imsqti": QTIMD_NS, "xsi": XSI_NS}
MANIFEST_SCHEMA_LOCATION = " ".join(
    [
        CP_NS,
        "http://www.imsglobal.org/xsd/qti/qtiv2p1/qtiv2p1_imscpv1p2_v1p0.xsd",
        LOM_NS,
        "http://www.imsglobal.org/xsd/imsmd_loose_v1p3p2.xsd",
        QTIMD_NS,
        "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_metadata_v2p1.xsd",
    ]
)
MANIFEST_PATH = "imsmanifest.xml"
STYLESHEET_RESOURCE = "RES-css"

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


def item_resource_id(question: Question) -> str:
    return f"RES-item-{question.id}"


def test_resource_id(quiz: Quiz) -> str:
    return f"RES-test-{quiz.id}"


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


def _qti_metadata(parent: etree._Element, question: Question) -> None:
    md = _el(parent, QTIMD_NS, "qtiMetadata")
    _el(md, QTIMD_NS, "timeDependent", "false")
    # The standard namespace on purpose: Canvas then guesses the type from the item, which works;
    # interactionType in the imsqti_v2p1 namespace breaks its text-entry import.
    _el(md, QTIMD_NS, "interactionType", qti21.INTERACTIONS[question.type])
    _el(md, QTIMD_NS, "feedbackType", "nonadaptive" if _has_feedback(question) else "none")
    _el(md, QTIMD_NS, "solutionAvailable", "false" if question.type is QuestionType.ESSAY else "true")
    _el(md, QTIMD_NS, "toolName", qti21.TOOL_NAME)
    _el(md, QTIMD_NS, "toolVersion", __version__)


def _test_resource(resources: etree._Element, quiz: Quiz) -> None:
    res = _el(
        resources,
        CP_NS,
        "resource",
        identifier=test_resource_id(quiz),
        type="imsqti_test_xmlv2p1",
        href=qti21.test_path(quiz),
    )
    general = _lom(_el(res, CP_NS, "metadata"), quiz.id, quiz.title, quiz.lang, "text/x-imsqti-test-xml")
    if quiz.description:
        _el(_el(general, LOM_NS, "description"), LOM_NS, "string", quiz.description, language=quiz.lang)
    if quiz.difficulty is not None:
        difficulty = _el(_el(general.getparent(), LOM_NS, "educational"), LOM_NS, "difficulty")
        _el(difficulty, LOM_NS, "source", "LOMv1.0")
        _el(difficulty, LOM_NS, "value", LOM_DIFFICULTY[quiz.difficulty])
    _el(res, CP_NS, "file", href=qti21.test_path(quiz))
    for question in quiz.questions:
        _el(res, CP_NS, "dependency", identifierref=item_resource_id(question))


def _item_resource(resources: etree._Element, quiz: Quiz, question: Question) -> None:
    """build_item_resource's element, from a copy of a cached one of the same shape.

    An item's resource is ~20 elements of which five strings vary; copying a prebuilt one
    (libxml2's node copy) and setting those strings costs a third of building it from Python.
    The shape is all the rest depends on: the interaction, whether there is feedback, the
    language and the number of tags. Appending the copy drops the namespace declarations the
    detached copy carried (lxml strips those the new parent already declares), so the
    serialised manifest is byte for byte the built one (tests/test_perf.py).
    """
    lang = quiz.lang_of(question)
    key = (question.type, _has_feedback(question), lang, len(question.tags))
    skeleton = _RESOURCE_SKELETONS.get(key)
    if skeleton is None:
        holder = etree.Element(f"{{{CP_NS}}}resources", nsmap=MANIFEST_NSMAP)
        build_item_resource(holder, quiz, question)
        skeleton = holder[0]
        if len(_RESOURCE_SKELETONS) < _RESOURCE_CACHE_MAX:
            _RESOURCE_SKELETONS[key] = skeleton
    res = copy.deepcopy(skeleton)
    path = qti21.item_path(question)
    res.set("identifier", item_resource_id(question))
    res.set("href", path)
    # Positions as build_item_resource lays them out: metadata(qtiMetadata, lom(general, ...)).
    general = res[0][1][0]
    general[0][1].text = question.id  # identifier/entry
    general[1][0].text = qti21.short_title(question)  # title/string
    for keyword, tag in zip(general[3:], question.tags, strict=True):
        keyword[0].text = tag
    res[1].set("href", path)  # file
    resources.append(res)


_RESOURCE_SKELETONS: dict[tuple[object, ...], etree._Element] = {}
_RESOURCE_CACHE_MAX = 1024


def _has_feedback(question: Question) -> bool:
    return bool(question.explanation) or any(c.feedback for c in question.choices)


def build_item_resource(resources: etree._Element, quiz: Quiz, question: Question) -> None:
    """An item's <resource> (qtiMetadata, LOM, file, dependency) built element by element."""
    path = qti21.item_path(question)
    res = _el(
        resources,
        CP_NS,
        "resource",
        identifier=item_resource_id(question),
        type="imsqti_item_xmlv2p1",
        href=path,
    )
    metadata = _el(res, CP_NS, "metadata")
    _qti_metadata(metadata, question)  # the profile wants qtiMetadata before lom
    lang = quiz.lang_of(question)
    general = _lom(metadata, question.id, qti21.short_title(question), lang, "text/x-imsqti-item-xml")
    for tag in question.tags:
        _el(_el(general, LOM_NS, "keyword"), LOM_NS, "string", tag, language=lang)
    _el(res, CP_NS, "file", href=path)
    _el(res, CP_NS, "dependency", identifierref=STYLESHEET_RESOURCE)


def manifest_tree(quiz: Quiz) -> etree._Element:
    """imsmanifest.xml for one quiz's package, valid against qtiv2p1_imscpv1p2_v1p0.xsd."""
    manifest = etree.Element(f"{{{CP_NS}}}manifest", nsmap=MANIFEST_NSMAP)
    manifest.set("identifier", f"MANIFEST-{quiz.id}")
    manifest.set(f"{{{XSI_NS}}}schemaLocation", MANIFEST_SCHEMA_LOCATION)
    metadata = _el(manifest, CP_NS, "metadata")
    # "QTIv2.1 Package" is also what makes Canvas treat the zip as QTI 2 rather than 1.2.
    _el(metadata, CP_NS, "schema", "QTIv2.1 Package")
    _el(metadata, CP_NS, "schemaversion", "1.0.0")
    general = _el(_el(metadata, LOM_NS, "lom"), LOM_NS, "general")
    _el(_el(general, LOM_NS, "title"), LOM_NS, "string", quiz.title, language=quiz.lang)
    _el(general, LOM_NS, "language", quiz.lang)
    _el(manifest, CP_NS, "organizations")
    resources = _el(manifest, CP_NS, "resources")
    _test_resource(resources, quiz)
    for question in quiz.questions:
        _item_resource(resources, quiz, question)
    css = _el(
        resources,
        CP_NS,
        "resource",
        identifier=STYLESHEET_RESOURCE,
        type="webcontent",
        href=qti21.STYLESHEET_PATH,
    )
    _el(css, CP_NS, "file", href=qti21.STYLESHEET_PATH)
    return manifest


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

    data: bytes
    crc: int
    size: int


def deflate(data: bytes, final: bool = True) -> Deflated:
    """``data`` compressed alone. With ``final`` False the stream is only flushed to a byte
    boundary (Z_SYNC_FLUSH, no last block), so that more pieces can follow it (join_deflated)."""
    compressor = zlib.compressobj(ZIP_LEVEL, zlib.DEFLATED, -15)
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


def crc32_combine(crc1: int, crc2: int, length2: int) -> int:
    """The CRC-32 of A + B from crc32(A), crc32(B) and len(B), without the bytes (zlib's
    crc32_combine, which Python's zlib does not expose): crc1 is advanced over len(B) zero bytes
    by the cached powers-of-two operators, then xor-ed with crc2."""
    power = 0
    while length2:
        if length2 & 1:
            crc1 = _gf2_times(_zeros_operator(power), crc1)
        length2 >>= 1
        power += 1
    return crc1 ^ crc2


ZIP32_MAX = 0xFFFFFFFF
"""Sizes and offsets above this need zip64, which zip_deflated does not write."""


def zip_deflated(entries: Iterable[tuple[str, Deflated]], timestamp: int) -> bytes:
    """A deterministic zip of already compressed members, in the caller's order (imsmanifest.xml
    first, no path twice): what zip_stream(..., sorted_=False) writes for the same data."""
    date_time = zip_time(timestamp)
    buf = io.BytesIO()
    central: list[bytes] = []
    seen: set[str] = set()
    for path, member in entries:
        if path in seen or (path == MANIFEST_PATH and seen):
            raise ValueError(f"zip member {path!r} repeated, or imsmanifest.xml not first")
        seen.add(path)
        info = zipfile.ZipInfo(path, date_time)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.create_system = 3
        info.external_attr = ZIP_FILE_MODE << 16
        info.flag_bits = 0
        info.CRC, info.compress_size, info.file_size = member.crc, len(member.data), member.size
        offset = buf.tell()
        if max(offset, member.size, len(member.data)) > ZIP32_MAX or len(seen) > 0xFFFF:
            raise ValueError("the zip would need zip64 (over 4 GiB or 65,535 members)")
        buf.write(info.FileHeader(False))
        buf.write(member.data)
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
                offset,
            )
            + name
        )
    start = buf.tell()
    for record in central:
        buf.write(record)
    size = buf.tell() - start
    if buf.tell() > ZIP32_MAX:
        raise ValueError("the zip would need zip64 (over 4 GiB or 65,535 members)")
    buf.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(central), len(central), size, start, 0))
    return buf.getvalue()


def _documents(quiz: Quiz) -> tuple[list[tuple[str, str, etree._Element]], dict[str, bytes]]:
    """(path, kind, tree) of every XML member, manifest included, and the non-XML files."""
    members: list[Member] = qti21.quiz_members(quiz)
    docs = [(MANIFEST_PATH, "manifest", manifest_tree(quiz))]
    docs += [(m.path, m.kind, m.tree) for m in members if m.tree is not None]
    other = {m.path: m.data for m in members if m.data is not None}
    return docs, other


def package_path(quiz: Quiz) -> str:
    """Where a quiz's zip goes in the output directory."""
    return f"qti21/{quiz.id}.zip"


def quiz_package(quiz: Quiz, ctx: WriteContext) -> bytes:
    """One quiz's QTI 2.1 package; raises SchemaValidationError (no zip) if any member is invalid."""
    docs, files = _documents(quiz)
    problems = _validate_documents(docs, package_path(quiz))
    if problems:
        raise SchemaValidationError(problems)
    files.update({path: serialize(tree) for path, _, tree in docs})
    return zip_members(files, ctx.timestamp)


def _validate_documents(docs: Iterable[tuple[str, str, etree._Element]], zip_name: str) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    for path, kind, tree in docs:
        problems += validate_tree(tree, kind, f"{zip_name}!{path}")
    return problems


def build_qti21(bank: Bank, ctx: WriteContext) -> Output:
    """The qti21 writer: one validated package per quiz at qti21/<quiz-id>.zip.

    Every XML member of every quiz is validated before anything is zipped; all invalid members
    of the whole bank are reported together in one SchemaValidationError (a bug of ours).
    """
    output = Output()
    problems: list[Diagnostic] = []
    for quiz in bank.quizzes:
        docs, files = _documents(quiz)
        problems += _validate_documents(docs, package_path(quiz))
        output.warnings += qti21.lossy_warnings(quiz)
        # Once anything failed, keep validating (to report everything) but stop zipping.
        if not problems:
            files.update({path: serialize(tree) for path, _, tree in docs})
            output.files[package_path(quiz)] = zip_members(files, ctx.timestamp)
    if problems:
        raise SchemaValidationError(problems)
    return output


def warm_schemas() -> None:
    """Compile the schemas a build validates with, once, before a pool forks (~0.1 s)."""
    # The schemas a document lmsexport writes is validated with (validate.schema_for_tree);
    # the full MathML one is compiled only if a document ever holds MathML.
    compiled_schema_without_mathml(SCHEMA_FILES["item"])
    schema_for("manifest")


# --------------------------------------------------------------------------- QTI 1.2 and Common Cartridge


def _validated_zip(
    docs: list[tuple[str, str, etree._Element]],
    zip_name: str,
    timestamp: int,
    problems: list[Diagnostic],
    files: dict[str, bytes] | None = None,
) -> bytes | None:
    """Validate every document (problems are appended, named ``<zip>!<member>``) and, when
    nothing failed so far, return the zip of their serialisations and of ``files``."""
    from .validate_qti12 import validate_document

    for path, kind, tree in docs:
        problems += validate_document(tree, kind, f"{zip_name}!{path}")
    if problems:
        return None
    members = dict(files or {})
    members.update({path: serialize(tree) for path, _, tree in docs})
    return zip_members(members, timestamp)


def build_qti12(bank: Bank, ctx: WriteContext) -> Output:
    """The qti12 writer: one Canvas-flavour QTI 1.2 package per quiz at qti12/<quiz-id>.zip, and
    one per assessment at qti12/<assessment-id>.zip (random draws as Canvas question groups).

    Every document is validated (QTI 1.2.1 DTD, IMS CP 1.1 XSD, Canvas's settings file) before
    anything is zipped; all invalid documents of the bank are reported together.
    """
    from .writers import qti12

    output = Output()
    problems: list[Diagnostic] = []
    packages = itertools.chain(
        ((qti12.quiz_package(quiz), qti12.lossy_warnings(quiz)) for quiz in bank.quizzes),
        ((qti12.exam_package(a), qti12.exam_warnings(a)) for a in bank.assessments),
    )
    for pkg, warnings in packages:  # one package's trees at a time
        data = _validated_zip(pkg.docs, pkg.path, ctx.timestamp, problems, pkg.files)
        output.warnings += warnings
        if data is not None:
            output.files[pkg.path] = data
    if problems:
        raise SchemaValidationError(problems)
    return output


# --------------------------------------------------------------------------- Common Cartridges
#
# A cartridge holds the whole bank, so it cannot be one quiz's output like the other formats'.
# It is written in two steps, registered in writers.SPLIT: cc_parts, run per source file (in the
# workers of a parallel build), builds, validates, serialises and compresses what one quiz
# contributes (its assessment and its items as its category's bank holds them); cc_assemble, run
# once with every quiz's part, writes the manifest, the assessments of the bank's assessments
# and each category's bank (from the parts' compressed items), and zips. The in-memory writers
# (build_cc13, build_cc11) are the same two steps, so both paths give the same bytes.


@dataclass
class CcPart:
    """What one quiz contributes to a cartridge (picklable: a worker sends it to the parent)."""

    quiz: Quiz
    """The quiz's header (no questions)."""
    assessment: Deflated
    """Its CC assessment, serialised and compressed."""
    bank: Deflated | None
    """Its items as its category's bank holds them (serialised as there, indented inside the
    objectbank), compressed as a piece of that member (join_deflated); None in a 1.1 cartridge."""
    bank_idents: tuple[str, ...]
    media: dict[str, Media]
    """The images its texts show, by file name."""
    warnings: list[Diagnostic]
    problems: list[Diagnostic]
    """Its documents' validation errors (a bug of ours): the cartridge is not written."""


def _cc_check(version: str) -> CcVersion:
    from .validate_qti12 import CC_VERSIONS

    return CC_VERSIONS[version]


def _bank_frame(ident: str, title: str, version: cc13.Version) -> tuple[bytes, bytes]:
    """The serialised bank document around its items: what comes before the first item and
    after the last one (the serialisation of the bank without items, cut where they would go)."""
    empty = serialize(cc13.bank_tree(ident, title, [], version))
    cut = empty.rindex(b"  </objectbank>")
    return empty[:cut], empty[cut:]


def _bank_items(tree: etree._Element, ident: str, title: str, version: cc13.Version) -> bytes:
    """The serialised items of a bank document built by cc13.bank_tree(ident, title, ...)."""
    data = serialize(tree)
    prefix, suffix = _bank_frame(ident, title, version)
    if not (data.startswith(prefix) and data.endswith(suffix)):  # pragma: no cover - lxml's layout
        raise AssertionError("a bank's serialisation does not frame its items as expected")
    return data[len(prefix) : len(data) - len(suffix)]


def cc_part(quiz: Quiz, version: cc13.Version) -> CcPart:
    """A quiz's part of a cartridge: its documents built (cc13.quiz_documents), validated
    against the version's CC profile (XSD and Schematron), serialised and compressed."""
    from .validate_qti12 import validate_cc_tree

    check = _cc_check(version.manifest_ns)
    docs = cc13.quiz_documents(quiz, version)
    where = f"{version.cartridge_path}!"
    problems = validate_cc_tree(docs.assessment, "cc-qti", where + cc13.assessment_path(quiz), check)
    bank = None
    idents: tuple[str, ...] = ()
    if docs.bank is not None:
        title = cc13.category_title(quiz)
        problems += validate_cc_tree(
            docs.bank, "cc-qti", f"{where}{cc13.BANK_DIR} (items of {quiz.id})", check
        )
        bank = deflate(_bank_items(docs.bank, quiz.id, title, version), final=False)
        idents = tuple(
            item.get("ident") or "" for item in docs.bank[0].iterchildren(f"{{{cc13.QTI_NS}}}item")
        )
    warnings = cc13.quiz_warnings(quiz, version)
    return CcPart(
        quiz.header, deflate(serialize(docs.assessment)), bank, idents, docs.media, warnings, problems
    )


def _bank_piece(part: CcPart, taken: set[str], version: cc13.Version) -> Deflated:
    """A part's bank items for its category's bank. Its item idents are unique within the quiz
    (cc13.cc_items); one another quiz of the category already has is renamed here as
    cc13.rename_clash renames it (rare: a matching question's part named like another quiz's
    question), by reading the part's own items back."""
    assert part.bank is not None
    if taken.isdisjoint(part.bank_idents):
        taken.update(part.bank_idents)
        return part.bank
    title = cc13.category_title(part.quiz)
    prefix, suffix = _bank_frame(part.quiz.id, title, version)
    items = zlib.decompressobj(-15).decompress(part.bank.data)
    tree = etree.fromstring(prefix + items + suffix, etree.XMLParser(resolve_entities=False, no_network=True))
    for el in tree.iter():  # the layout's white space goes (the items hold no mixed content)
        if len(el) and el.text and not el.text.strip():
            el.text = None
        if el.tail and not el.tail.strip():
            el.tail = None
    held = [cc13.rename_clash(item, taken) for item in tree[0].iterchildren(f"{{{cc13.QTI_NS}}}item")]
    renamed = cc13.bank_tree(part.quiz.id, title, held, version)
    return deflate(_bank_items(renamed, part.quiz.id, title, version), final=False)


def cc_parts(bank: Bank, ctx: WriteContext, fmt: str) -> list[CcPart]:
    """The parts of a bank's quizzes (a parallel build calls it with one source file's quiz)."""
    version = cc13.VERSIONS[fmt]
    return [cc_part(quiz, version) for quiz in bank.quizzes]


def cc_assemble(
    parts: Iterable[CcPart], assessments: Sequence[Assessment], ctx: WriteContext, fmt: str
) -> Output:
    """The cartridge from every quiz's part and the bank's (resolved) assessments: the manifest,
    then per category its quizzes' assessments and its bank, then each assessment and its pool
    banks, then the images; every document validated before anything is written. Raises
    SchemaValidationError with every problem of every part."""
    from .validate_qti12 import validate_cc_tree

    version = cc13.VERSIONS[fmt]
    check = _cc_check(version.manifest_ns)
    by_id = {p.quiz.id: p for p in parts}
    ordered = [by_id[k] for k in sorted(by_id)]
    output = Output(warnings=[w for p in ordered for w in p.warnings])
    output.warnings += [w for a in assessments for w in cc13.exam_warnings(a, version)]
    problems = [d for p in ordered for d in p.problems]
    if not ordered:
        return output
    where = f"{version.cartridge_path}!"
    cats = cc13.categories(p.quiz for p in ordered)
    media: dict[str, Media] = {}
    for p in ordered:
        media.update(p.media)
    for a in assessments:
        media.update(qti12.media_files(t for c in a.candidates for t in qti12.question_texts(c.question)))
        media.update(qti12.media_files([a.description]))
    resources = cc13.Resources({p.quiz.id: tuple(p.media) for p in ordered}, tuple(assessments))
    manifest = cc13.manifest_tree([p.quiz for p in ordered], cats, version, resources)
    problems += validate_cc_tree(manifest, "cc-manifest", where + MANIFEST_PATH, check)

    def members() -> Iterator[tuple[str, Deflated]]:
        yield MANIFEST_PATH, deflate(serialize(manifest))
        for cat in cats:
            pieces: list[Deflated] = []
            taken: set[str] = set()
            for quiz in cat.quizzes:
                part = by_id[quiz.id]
                yield cc13.assessment_path(quiz), part.assessment
                if part.bank is not None:
                    pieces.append(_bank_piece(part, taken, version))
            if version.banks:
                prefix, suffix = _bank_frame(cat.name, cat.title, version)
                yield (
                    cc13.bank_path(cat),
                    join_deflated([deflate(prefix, final=False), *pieces, deflate(suffix)]),
                )
        for assessment in assessments:
            # Built here, from the resolved assessment: one document at a time.
            for path, kind, tree in cc13.exam_documents(assessment, version):
                problems.extend(validate_cc_tree(tree, kind, where + path, check))
                yield path, deflate(serialize(tree))
        for name in sorted(media):
            yield cc13.media_path(name), deflate(media[name].data)

    data = zip_deflated(members(), ctx.timestamp)
    if problems:
        raise SchemaValidationError(problems)
    output.files[version.cartridge_path] = data
    return output


def build_cc13(bank: Bank, ctx: WriteContext) -> Output:
    """The cc13 writer: one IMS Common Cartridge 1.3 of the whole bank at cc/bank.imscc.

    The manifest, every assessment and every question bank are validated against the CC 1.3
    profiles (XSD and their Schematron rules) before anything is zipped.
    """
    return cc_assemble(cc_parts(bank, ctx, "cc13"), bank.assessments, ctx, "cc13")


def build_cc11(bank: Bank, ctx: WriteContext) -> Output:
    """The cc11 writer: the same cartridge in Common Cartridge 1.1, which Moodle restores (it
    recognises 1.0 and 1.1 only: backup/converter/imscc11/lib.php), at cc11/bank-cc11.imscc."""
    return cc_assemble(cc_parts(bank, ctx, "cc11"), bank.assessments, ctx, "cc11")


def cc13_parts(bank: Bank, ctx: WriteContext) -> list[CcPart]:
    return cc_parts(bank, ctx, "cc13")


def cc13_assemble(parts: Iterable[CcPart], assessments: Sequence[Assessment], ctx: WriteContext) -> Output:
    return cc_assemble(parts, assessments, ctx, "cc13")


def cc11_parts(bank: Bank, ctx: WriteContext) -> list[CcPart]:
    return cc_parts(bank, ctx, "cc11")


def cc11_assemble(parts: Iterable[CcPart], assessments: Sequence[Assessment], ctx: WriteContext) -> Output:
    return cc_assemble(parts, assessments, ctx, "cc11")
