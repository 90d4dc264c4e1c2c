"""IMS content packages (QTI 2.1 zips): the manifest, validation of every member, and zipping.

The only module that zips. Output is deterministic to the byte for a given zlib: members in a
fixed order (imsmanifest.xml first, the rest sorted by path), every entry stamped with
``ctx.timestamp`` in UTC, fixed Unix permissions, DEFLATE at a fixed level, no extra fields.
"""

from __future__ import annotations

import copy
import io
import time
import zipfile
from collections.abc import Iterable, Iterator

from lxml import etree

from . import __version__
from .errors import Diagnostic, SchemaValidationError
from .model import Bank, Difficulty, Question, QuestionType, Quiz
from .validate import SCHEMA_FILES, compiled_schema_without_mathml, schema_for, validate_tree
from .writers import Output, WriteContext, qti21
from .writers.qti21 import Member

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


def build_qti12(bank: Bank, ctx: WriteContext) -> Output:
    """The qti12 writer: one Canvas-flavour QTI 1.2 package per quiz at qti12/<quiz-id>.zip.

    Every document is validated (QTI 1.2.1 DTD, IMS CP 1.1 XSD, Canvas's settings file) before
    anything is zipped; all invalid documents of the bank are reported together.
    """
    from .writers import qti12

    output = Output()
    problems: list[Diagnostic] = []
    for quiz in bank.quizzes:
        data = _validated_zip(qti12.quiz_documents(quiz), qti12.package_path(quiz), ctx.timestamp, problems)
        output.warnings += qti12.lossy_warnings(quiz)
        if data is not None:
            output.files[qti12.package_path(quiz)] = data
    if problems:
        raise SchemaValidationError(problems)
    return output


def build_cc13(bank: Bank, ctx: WriteContext) -> Output:
    """The cc13 writer: one IMS Common Cartridge 1.3 of the whole bank at cc/bank.imscc.

    The manifest, every assessment and every question bank are validated against the CC 1.3
    profiles (XSD and their Schematron rules) before anything is zipped.
    """
    from .validate_qti12 import validate_document
    from .writers import cc13

    output = Output(warnings=cc13.lossy_warnings(bank))
    if not bank.quizzes:
        return output
    problems: list[Diagnostic] = []

    def members() -> Iterator[tuple[str, bytes]]:
        # One document at a time, in the cartridge's order (cc13.cartridge_documents): built,
        # validated, serialised, then dropped, so a bank never holds more than one category's trees.
        for path, kind, tree in cc13.cartridge_documents(bank):
            problems.extend(validate_document(tree, kind, f"{cc13.CARTRIDGE_PATH}!{path}"))
            yield path, serialize(tree)

    data = zip_stream(members(), ctx.timestamp, sorted_=False)
    if problems:
        raise SchemaValidationError(problems)
    output.files[cc13.CARTRIDGE_PATH] = data
    return output
