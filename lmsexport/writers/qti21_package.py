"""The qti21 writer: QTI 2.1 content packages (imsmanifest.xml + the members of writers/qti21.py).

One package per quiz (``qti21/<quiz-id>.zip``) and one per assessment
(``qti21/<assessment-id>.zip``). A question drawn by an assessment is the same item, with the
same identifier and bytes, in its quiz's package and in the assessment's (writers/qti21.py
builds items from the question and its home quiz's header only).

The manifest follows the QTI 2.1 content-package profile (qtiv2p1_imscpv1p2_v1p0.xsd): one
test resource depending on every item resource; one item resource per question, listing its
own file and each image it shows (IMS CP: a resource's ``<file>`` elements are the files it
needs), depending on the stylesheet resource. Canvas turns every such image ``<file>`` into a
course file and points the item's ``src`` at it (Qti.convert_files in
gems/plugins/qti_exporter/lib/qti.rb).

Every XML member is validated against its XSD before anything is zipped; package.py zips.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from lxml import etree

from .. import __version__
from ..errors import Diagnostic, LmsExportError, SchemaValidationError, Severity
from ..model import (
    Assessment,
    Bank,
    MultipleChoice,
    Question,
    QuestionType,
    Quiz,
    SingleChoice,
    SourceLoc,
    plain_text,
)
from ..package import (
    CP_NS,
    LOM_DIFFICULTY,
    LOM_NS,
    MANIFEST_PATH,
    XSI_NS,
    _el,
    _lom,
    serialized,
    validate_documents,
    zip_members,
)
from . import Output, WriteContext, qti21
from .qti21 import Member

QTIMD_NS = "http://www.imsglobal.org/xsd/imsqti_metadata_v2p1"
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
STYLESHEET_RESOURCE = "RES-css"


def item_resource_id(question: Question) -> str:
    return f"RES-item-{question.id}"


def test_resource_id(quiz: Quiz | Assessment) -> str:
    return f"RES-test-{quiz.id}"


# --------------------------------------------------------------------------- manifest


def _qti_metadata(parent: etree._Element, question: Question) -> None:
    md = _el(parent, QTIMD_NS, "qtiMetadata")
    _el(md, QTIMD_NS, "timeDependent", "false")
    # The standard namespace on purpose: Canvas then guesses the type from the item, which works;
    # interactionType in the imsqti_v2p1 namespace breaks its text-entry import.
    # One per kind of interaction the item holds (a cloze's blanks), none for a description.
    for kind in qti21.interaction_types(question):
        _el(md, QTIMD_NS, "interactionType", kind)
    _el(md, QTIMD_NS, "feedbackType", _feedback_type(question))
    no_solution = question.type in (QuestionType.ESSAY, QuestionType.DESCRIPTION)
    _el(md, QTIMD_NS, "solutionAvailable", "false" if no_solution else "true")
    _el(md, QTIMD_NS, "toolName", qti21.TOOL_NAME)
    _el(md, QTIMD_NS, "toolVersion", __version__)


def _test_resource(resources: etree._Element, test: Quiz | Assessment, questions: Iterable[Question]) -> None:
    res = _el(
        resources,
        CP_NS,
        "resource",
        identifier=test_resource_id(test),
        type="imsqti_test_xmlv2p1",
        href=qti21.test_path(test),
    )
    general = _lom(_el(res, CP_NS, "metadata"), test.id, test.title, test.lang, "text/x-imsqti-test-xml")
    if test.description:
        description = plain_text(test.description)
        _el(_el(general, LOM_NS, "description"), LOM_NS, "string", description, language=test.lang)
    if isinstance(test, Quiz) and test.difficulty is not None:
        difficulty = _el(_el(general.getparent(), LOM_NS, "educational"), LOM_NS, "difficulty")
        _el(difficulty, LOM_NS, "source", "LOMv1.0")
        _el(difficulty, LOM_NS, "value", LOM_DIFFICULTY[test.difficulty])
    _el(res, CP_NS, "file", href=qti21.test_path(test))
    for question in questions:
        _el(res, CP_NS, "dependency", identifierref=item_resource_id(question))


def _item_resource(resources: etree._Element, quiz: Quiz, question: Question) -> None:
    """build_item_resource's element, from a copy of a cached one of the same shape.

    An item's resource is ~20 elements of which five strings vary; copying a prebuilt one
    (libxml2's node copy) and setting those strings costs a third of building it from Python.
    The shape is all the rest depends on: the interaction, whether there is feedback, the
    language and the number of tags (an item with images is built: its files vary). Appending
    the copy drops the namespace declarations the detached copy carried (lxml strips those the
    new parent already declares), so the serialised manifest is byte for byte the built one
    (tests/test_perf.py).
    """
    if qti21.question_media(question):
        build_item_resource(resources, quiz, question)
        return
    lang = quiz.lang_of(question)
    key = (
        question.type,
        _feedback_type(question),
        lang,
        len(question.tags),
        *qti21.interaction_types(question),
    )
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
    general[1][0].text = qti21.item_title(question)  # title/string
    for keyword, tag in zip(general[3:], question.tags, strict=True):
        keyword[0].text = tag
    res[1].set("href", path)  # file
    resources.append(res)


_RESOURCE_SKELETONS: dict[tuple[object, ...], etree._Element] = {}
_RESOURCE_CACHE_MAX = 1024


def _feedback_type(question: Question) -> str:
    """The qtiMetadata feedbackType: "adaptive" for an item with hints (an adaptive item, see
    qti21._hint_processing), "nonadaptive" for one with feedback, else "none"."""
    if question.hints:
        return "adaptive"
    body = question.body
    choices = body.choices if isinstance(body, SingleChoice | MultipleChoice) else ()
    if question.explanation or any(c.feedback for c in choices) or qti21.has_extra_feedback(question):
        return "nonadaptive"
    return "none"


def build_item_resource(resources: etree._Element, quiz: Quiz, question: Question) -> None:
    """An item's <resource> (qtiMetadata, LOM, its files, dependency) built element by element."""
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
    general = _lom(metadata, question.id, qti21.item_title(question), lang, "text/x-imsqti-item-xml")
    for tag in question.tags:
        _el(_el(general, LOM_NS, "keyword"), LOM_NS, "string", tag, language=lang)
    _el(res, CP_NS, "file", href=path)
    for media in qti21.question_media(question):
        _el(res, CP_NS, "file", href=qti21.media_path(media))
    _el(res, CP_NS, "dependency", identifierref=STYLESHEET_RESOURCE)


def _manifest(
    ident: str, title: str, lang: str, test: Quiz | Assessment, items: list[tuple[Quiz, Question]]
) -> etree._Element:
    manifest = etree.Element(f"{{{CP_NS}}}manifest", nsmap=MANIFEST_NSMAP)
    manifest.set("identifier", f"MANIFEST-{ident}")
    manifest.set(f"{{{XSI_NS}}}schemaLocation", MANIFEST_SCHEMA_LOCATION)
    metadata = _el(manifest, CP_NS, "metadata")
    # "QTIv2.1 Package" is also what makes Canvas treat the zip as QTI 2 rather than 1.2.
    _el(metadata, CP_NS, "schema", "QTIv2.1 Package")
    _el(metadata, CP_NS, "schemaversion", "1.0.0")
    general = _el(_el(metadata, LOM_NS, "lom"), LOM_NS, "general")
    _el(_el(general, LOM_NS, "title"), LOM_NS, "string", title, language=lang)
    _el(general, LOM_NS, "language", lang)
    _el(manifest, CP_NS, "organizations")
    resources = _el(manifest, CP_NS, "resources")
    # A parametric question is its variants' items (qti21.item_questions), each a resource.
    items = [(quiz, q) for quiz, question in items for q in qti21.item_questions(question)]
    _test_resource(resources, test, (q for _, q in items))
    for quiz, question in items:
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


def manifest_tree(quiz: Quiz) -> etree._Element:
    """imsmanifest.xml for one quiz's package, valid against qtiv2p1_imscpv1p2_v1p0.xsd."""
    return _manifest(quiz.id, quiz.title, quiz.lang, quiz, [(quiz, q) for q in quiz.questions])


def assessment_manifest_tree(assessment: Assessment) -> etree._Element:
    """imsmanifest.xml for an assessment's package: its test and every question it may draw."""
    items = [(c.quiz, c.question) for c in assessment.candidates]
    return _manifest(assessment.id, assessment.title, assessment.lang, assessment, items)


# --------------------------------------------------------------------------- packages


Documents = tuple[list[tuple[str, str, etree._Element]], dict[str, bytes]]
"""(path, kind, tree) of every XML member, manifest first, and the other files' bytes."""


def _split(manifest: etree._Element, members: list[Member]) -> Documents:
    docs = [(MANIFEST_PATH, "manifest", manifest)]
    docs += [(m.path, m.kind, m.tree) for m in members if m.tree is not None]
    other = {m.path: m.data for m in members if m.data is not None}
    return docs, other


def package_path(test: Quiz | Assessment) -> str:
    """Where a quiz's or an assessment's zip goes in the output directory."""
    return f"qti21/{test.id}.zip"


def media_problems(members: list[Member], name: str, loc: SourceLoc) -> list[Diagnostic]:
    """An error when a package's images together exceed media.MAX_PACKAGE_MEDIA_BYTES."""
    from .. import media

    files = [(m.path, len(m.data)) for m in members if m.kind == "media" and m.data is not None]
    total = sum(size for _, size in files)
    if total <= media.MAX_PACKAGE_MEDIA_BYTES:
        return []
    largest = ", ".join(
        f"{path.rsplit('/', 1)[-1]} ({size:,} bytes)" for path, size in sorted(files, key=lambda f: -f[1])[:3]
    )
    return [
        Diagnostic(
            loc,
            f"{name} would carry {total:,} bytes of images; the limit of a package is "
            f"{media.MAX_PACKAGE_MEDIA_BYTES:,}",
            Severity.ERROR,
            "qti21.media-too-large",
            hint=f"shrink or drop the largest images ({largest}), or split the quiz",
        )
    ]


def quiz_package(quiz: Quiz, ctx: WriteContext) -> bytes:
    """One quiz's QTI 2.1 package; raises LmsExportError (no zip) if it cannot be written."""
    out = build_qti21(Bank((quiz,)), ctx)
    return out.files[package_path(quiz)]


def build_qti21(bank: Bank, ctx: WriteContext) -> Output:
    """The qti21 writer: one validated package per quiz and per assessment, at qti21/<id>.zip.

    Every XML member of every package is validated before anything is zipped; every problem of
    the whole bank (invalid members, a bug of ours, SchemaValidationError; too many images,
    LmsExportError) is reported together and nothing is returned then.
    """
    output = Output()
    invalid: list[Diagnostic] = []
    problems: list[Diagnostic] = []

    def add(name: str, manifest: etree._Element, members: list[Member], loc: SourceLoc) -> None:
        # One package at a time, so that only one package's trees are ever held in memory.
        nonlocal invalid, problems
        problems += media_problems(members, name, loc)
        docs, files = _split(manifest, members)
        invalid += validate_documents(docs, name)
        # Once anything failed, keep validating (to report everything) but stop zipping.
        if not invalid and not problems:
            files.update(serialized(docs))
            output.files[name] = zip_members(files, ctx.timestamp)

    for quiz in bank.quizzes:
        members = qti21.quiz_members(quiz)
        add(package_path(quiz), manifest_tree(quiz), members, quiz.loc or SourceLoc(quiz.id))
        output.warnings += qti21.loss_warnings(quiz)
        output.warnings += qti21.lossy_warnings(quiz)
        # Item losses are warned about with the question's quiz only (not again per assessment).
        for m in members:
            output.warnings += qti21.item_warnings(m)
    for assessment in bank.assessments:
        members = qti21.assessment_members(assessment)
        loc = assessment.loc or SourceLoc(assessment.id)
        add(package_path(assessment), assessment_manifest_tree(assessment), members, loc)
        output.warnings += qti21.assessment_warnings(assessment)
    if invalid:
        raise SchemaValidationError(invalid + problems)
    if problems:
        raise LmsExportError(problems)
    return output
