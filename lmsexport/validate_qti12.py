"""Offline validation of QTI 1.2 packages (Canvas's flavour) and IMS Common Cartridges.

What is checked, against the bundled ``schemas/`` only (never the network):

* a QTI 1.2 document (``questestinterop``) against the official QTI 1.2.1 DTD,
  ``qti12/ims_qtiasiv1p2p1.dtd``. The DTD is compiled once per process from the bundled file;
  a document's own DOCTYPE is never loaded (see ``parse_untrusted_qti12``). A document in the
  namespace of the QTI 1.2 XSD binding (``ims_qtiasiv1p2``, what Canvas and text2qti write) is
  checked against the same content model with the namespace and ``xsi:`` attributes removed:
  the XSD binding was generated from that DTD, and its XSD is not bundled;
* a Common Cartridge 1.3 or 1.1 manifest against its CC profile of IMS CP
  (``cc/v1p3/ccv1p3_imscp_v1p2_v1p0.xsd``, ``cc/v1p1/...``), and every assessment and question
  bank it lists against the CC profile of QTI 1.2.1 of the same version, including the
  Schematron rules embedded in those XSDs (run with lxml.isoschematron; libxml2's XSD validation
  ignores them);
* a plain IMS CP 1.1 manifest (the Canvas-flavour package's) against ``imscp11/imscp_v1p1.xsd``;
* Canvas's quiz settings file (``assessment_meta.xml``): no schema of it is bundled (Canvas's
  cccv1p0.xsd is not available offline), so its structure is checked here, by
  ``check_canvas_meta``, against what Canvas's importer reads
  (lib/cc/importer/canvas/quiz_metadata_converter.rb).

Packages are untrusted input, with the policy of lmsexport.validate: the zip's central directory
is checked before anything is inflated (its checks are reused), member names may not escape,
hrefs must stay inside the package. QTI 1.2 documents usually carry a DOCTYPE naming the DTD, so
one is accepted when it is only that (a name and an external identifier, which is never
fetched); a DOCTYPE with an internal subset (entity declarations: XXE, billion laughs) is refused
before libxml2 parses it, and after parsing any declared entity is refused too.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from lxml import etree

from .errors import Diagnostic, Severity
from .model import SourceLoc
from .validate import (
    _ZIP_READ_ERRORS,
    MAX_MEMBER_BYTES,
    _check_entries,
    _clean,
    _read_member,
    _readable_path,
    _schema_parser,
    _too_large,
    _untrusted_parser,
    compiled_schema,
    schema_dir,
    validate_package,
)

if TYPE_CHECKING:  # imported where the rules are compiled: a QTI 1.2 build runs none (~6 ms)
    from lxml import isoschematron

QTI12_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
CP_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
CANVAS_NS = "http://canvas.instructure.com/xsd/cccv1p0"
SCH_NS = "http://purl.oclc.org/dsdl/schematron"
SVRL_NS = "http://purl.oclc.org/dsdl/svrl"
XS_NS = "http://www.w3.org/2001/XMLSchema"
QTI2_NAMESPACES = (
    "http://www.imsglobal.org/xsd/imsqti_v2p0",
    "http://www.imsglobal.org/xsd/imsqti_v2p1",
    "http://www.imsglobal.org/xsd/qti/qtiv2p0",
    "http://www.imsglobal.org/xsd/qti/qtiv2p1",
)
"""Canvas treats a package as QTI 2 when its manifest declares one of these (converter.rb is_qti_2)."""

QTI12_DTD = "qti12/ims_qtiasiv1p2p1.dtd"
CP11_MANIFEST_XSD = "imscp11/imscp_v1p1.xsd"
QTI12_XSD_URLS = frozenset({"http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd"})
"""The QTI 1.2.1 XSD binding's URL, as Canvas and text2qti name it: checked against the DTD."""
CANVAS_XSD_URLS = frozenset(
    {"https://canvas.instructure.com/xsd/cccv1p0.xsd", "http://canvas.instructure.com/xsd/cccv1p0.xsd"}
)
"""Canvas's schema of its settings files, named by Canvas's exports: checked by check_canvas_meta."""
MANIFEST = "imsmanifest.xml"


@dataclass(frozen=True)
class CcVersion:
    name: str
    manifest_ns: str
    manifest_xsd: str
    qti_xsd: str
    lom_xsd: str
    qti_types: frozenset[str]
    """Resource types whose files are CC-profile QTI (assessments and question banks)."""


CC_VERSIONS = {
    v.manifest_ns: v
    for v in (
        CcVersion(
            "1.3",
            "http://www.imsglobal.org/xsd/imsccv1p3/imscp_v1p1",
            "cc/v1p3/ccv1p3_imscp_v1p2_v1p0.xsd",
            "cc/v1p3/ccv1p3_qtiasiv1p2p1_v1p0.xsd",
            "cc/v1p3/LOM/ccv1p3_lommanifest_v1p0.xsd",
            frozenset(
                {"imsqti_xmlv1p2/imscc_xmlv1p3/assessment", "imsqti_xmlv1p2/imscc_xmlv1p3/question-bank"}
            ),
        ),
        CcVersion(
            "1.1",
            "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1",
            "cc/v1p1/ccv1p1_imscp_v1p2_v1p0.xsd",
            "cc/v1p1/ccv1p1_qtiasiv1p2p1_v1p0.xsd",
            "cc/v1p1/ccv1p1_lommanifest_v1p0.xsd",
            frozenset(
                {"imsqti_xmlv1p2/imscc_xmlv1p1/assessment", "imsqti_xmlv1p2/imscc_xmlv1p1/question-bank"}
            ),
        ),
    )
}
CC13 = CC_VERSIONS["http://www.imsglobal.org/xsd/imsccv1p3/imscp_v1p1"]
CC11 = CC_VERSIONS["http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"]

# A DOCTYPE that only names a DTD: <!DOCTYPE name [SYSTEM "..." | PUBLIC "..." "..."]>, no
# internal subset. Anything else after <!DOCTYPE (a "[") is an internal subset.
_QUOTED = r"""(?:"[^"<>\[\]]*"|'[^'<>\[\]]*')"""
_BARE_DOCTYPE = re.compile(
    rf"<!DOCTYPE\s+[A-Za-z_:][\w.:-]*(?:\s+(?:SYSTEM\s+{_QUOTED}|PUBLIC\s+{_QUOTED}\s+{_QUOTED}))?\s*>"
)
_DOCTYPE = re.compile(r"<!DOCTYPE", re.IGNORECASE)
PROLOG_BYTES = 65536


# --------------------------------------------------------------------------- schemas


@functools.cache
def _known_schema_urls() -> frozenset[str]:
    """Every remote schema URL the bundle maps to a local file (schemas/locations.json)."""
    locations = json.loads((schema_dir() / "locations.json").read_text(encoding="utf-8"))
    return frozenset(locations["map"])


def _resolve_href(base: str, href: str) -> str | None:
    """The member path an href names, relative to the member ``base``; None if it is a URL or
    leaves the package."""
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


@functools.cache
def qti12_dtd() -> etree.DTD:
    """The QTI 1.2.1 DTD, compiled once per process from the bundled file (it references no
    other file)."""
    return etree.DTD(str(schema_dir() / QTI12_DTD))


@functools.cache
def schematron(relpath: str) -> isoschematron.Schematron | None:
    """The Schematron rules embedded in the XSD at ``relpath`` (``xs:appinfo``), compiled once.

    They are collected from the parsed XSD into one ``sch:schema`` rather than extracted by
    isoschematron's own XSD step, whose XSLT would try to fetch the XSD's imports. The rules are
    old-style (``pattern/@name``), so the Schematron schema itself is not validated. None when
    the XSD embeds no rules.
    """
    root = schema_dir()
    doc = etree.parse(str(root / relpath), _schema_parser(root))
    schema = etree.Element(f"{{{SCH_NS}}}schema", nsmap={"sch": SCH_NS})
    for el in doc.iter(f"{{{SCH_NS}}}ns", f"{{{SCH_NS}}}title", f"{{{SCH_NS}}}pattern"):
        parent = el.getparent()
        if parent is not None and parent.tag == f"{{{XS_NS}}}appinfo":
            schema.append(copy.deepcopy(el))
    for assert_ in schema.iter(f"{{{SCH_NS}}}assert"):
        if assert_.get("test") == _RULE_13A_TEST:
            # Compares every item with every earlier one: quadratic in XSLT (minutes for a
            # bank of 20,000 items). unique_item_idents checks the same rule, in linear time.
            assert_.getparent().remove(assert_)
    if schema.find(f"{{{SCH_NS}}}pattern") is None:
        return None
    from lxml import isoschematron

    return isoschematron.Schematron(schema, validate_schema=False)


def warm(cc: tuple[CcVersion, ...] = (CC13, CC11)) -> None:
    """Compile what a build of qti12 and the cartridges validates with, once (before a pool
    forks)."""
    qti12_dtd()
    compiled_schema(CP11_MANIFEST_XSD)
    for version in cc:
        for relpath in (version.manifest_xsd, version.qti_xsd):
            compiled_schema(relpath)
            schematron(relpath)
        schematron(version.lom_xsd)


# --------------------------------------------------------------------------- documents


def _where(tree: etree._ElementTree | etree._Element, line: int, path: str | None) -> str:
    return f" (at {_readable_path(tree, path)})" if line <= 0 and path else ""


_OWN_NAMESPACES = re.compile(
    r"\{(?:http://www\.imsglobal\.org/xsd/(?:ims_qtiasiv1p2|imscp_v1p1|imsccv1p[13]/imscp_v1p1))\}"
)


def _message(text: str) -> str:
    """libxml2's message with the namespaces of these formats left out of element names."""
    return _OWN_NAMESPACES.sub("", _clean(text))


def _log(tree: Any, log: Any, name: str, rule: str) -> list[Diagnostic]:
    out = []
    for entry in log:
        line = max(entry.line, 0)
        message = _message(entry.message) + _where(tree, line, entry.path)
        out.append(Diagnostic(SourceLoc(name, line), message, Severity.ERROR, rule))
    return out


def _without_qti12_namespace(tree: etree._ElementTree | etree._Element) -> etree._Element:
    """A copy in no namespace, without xsi: attributes, for the DTD (lines are kept)."""
    root = tree.getroot() if isinstance(tree, etree._ElementTree) else tree
    out = copy.deepcopy(root)
    for el in out.iter(etree.Element):
        if etree.QName(el).namespace == QTI12_NS:
            el.tag = etree.QName(el).localname
        for attr in [a for a in el.attrib if a.startswith(f"{{{XSI_NS}}}")]:
            del el.attrib[attr]
    etree.cleanup_namespaces(out)
    return out


CANVAS_SELECTION_FIELDS = frozenset({"points_per_item", "sourcebank_context", "sourcebank_is_external"})
"""What Canvas writes in a question group's ``selection_extension`` (lib/cc/qti/qti_generator.rb
``add_group``) and its converter reads (QTIMigrationTool imsqtiv1.py ``PointsPerItem``,
``SourceBankContext``, ``SourceBankIsExternal``)."""


def _canvas_selection_extensions(root: etree._Element, name: str) -> tuple[etree._Element, list[Diagnostic]]:
    """The document with Canvas's question-group extensions checked and taken out, for the DTD.

    QTI 1.2 made ``selection_extension`` (ANY) the place for a selection's proprietary data; the
    QTI 1.2.1 DTD declares no extension elements at all, so Canvas's ``points_per_item`` there
    cannot be checked by it. It is checked here instead: inside a ``selection``, last, holding
    only Canvas's fields, each once, as text (``points_per_item`` a number); a copy without the
    extensions then goes to the DTD, which checks everything else.
    """
    names = ("selection_extension", f"{{{QTI12_NS}}}selection_extension")
    found = list(root.iter(*names))
    if not found:
        return root, []
    out: list[Diagnostic] = []
    for ext in found:
        parent = ext.getparent()

        def bad(el: etree._Element, message: str) -> None:
            line = el.sourceline or 0
            where = _where(root, line, root.getroottree().getpath(el)) if line == 0 else ""
            out.append(Diagnostic(SourceLoc(name, line), message + where, rule="qti12.canvas-extension"))

        if parent is None or etree.QName(parent).localname != "selection" or ext.getnext() is not None:
            bad(ext, "selection_extension must be the last child of a selection")
        seen: set[str] = set()
        for child in ext:
            field = etree.QName(child).localname if isinstance(child.tag, str) else ""
            if field not in CANVAS_SELECTION_FIELDS or field in seen or len(child):
                bad(
                    child,
                    "selection_extension may hold only Canvas's "
                    f"{', '.join(sorted(CANVAS_SELECTION_FIELDS))}, each once, as text",
                )
                continue
            seen.add(field)
            if field == "points_per_item":
                try:
                    value = float((child.text or "").strip())
                except ValueError:
                    value = -1.0
                if not value >= 0:
                    bad(
                        child,
                        f"points_per_item must be a number of points, not {(child.text or '').strip()!r}",
                    )
        if (ext.text or "").strip() or any((c.tail or "").strip() for c in ext):
            bad(ext, "selection_extension holds text outside its fields")
    stripped = copy.deepcopy(root)
    for ext in list(stripped.iter(*names)):
        parent = ext.getparent()
        if parent is not None:
            parent.remove(ext)
    return stripped, out


CANVAS_CALCULATED_FIELDS = (
    "answer_tolerance",
    "unit_points_percent",
    "unit_value",
    "unit_required",
    "unit_case_sensitive",
    "partial_credit_points_percent",
    "partial_credit_tolerance",
)
"""The scalar fields of Canvas's ``calculated`` extension, as its importer reads them
(gems/plugins/qti_exporter/lib/qti/calculated_interaction.rb ``get_calculated_property``)."""
CANVAS_MAX_VAR_SETS = 200
"""Canvas's QUIZ_MAX_COMBINATION_COUNT (app/controllers/quizzes/quizzes_controller.rb)."""
_NUMBER = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)\Z")
_TOLERANCE = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)%?\Z")
_CANVAS_VAR = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


def _check_calculated(calc: etree._Element, bad: Callable[[etree._Element, str], None]) -> None:
    """Canvas's ``calculated`` extension as its importer reads it and its quiz engine grades it:
    the tolerance a number or ``p%`` (numerical_question.rb reads a trailing % as a percentage of
    the answer); ``formulas@decimal_places`` a count of digits with at least one ``formula``;
    each ``vars/var`` a name Canvas can put in its ``[name]`` regex, a scale (digits) and a
    numeric ``min`` <= ``max``; 1 to 200 ``var_sets/var_set``, each with a distinct ident, one
    numeric ``var`` per declared variable and a numeric ``answer`` (the server never evaluates
    the formula: that answer is the key)."""

    def local(el: etree._Element) -> str:
        return etree.QName(el).localname if isinstance(el.tag, str) else ""

    def text(el: etree._Element | None) -> str:
        return (el.text or "").strip() if el is not None else ""

    def number(el: etree._Element | None, what: str, owner: etree._Element) -> float | None:
        value = text(el)
        if el is None or not _NUMBER.match(value):
            bad(el if el is not None else owner, f"{what} must be a number, not {value!r}")
            return None
        return float(value)

    children = [c for c in calc if isinstance(c.tag, str)]
    order = [*CANVAS_CALCULATED_FIELDS, "formulas", "vars", "var_sets"]
    names = [local(c) for c in children]
    if any(n not in order for n in names) or len(set(names)) != len(names):
        bad(calc, f"calculated may hold only {', '.join(order)}, each once")
        return
    if names != sorted(names, key=order.index):
        bad(calc, f"calculated's fields must come in Canvas's order ({', '.join(order)})")
    found = dict(zip(names, children, strict=True))
    for field in ("formulas", "vars", "var_sets"):
        if field not in found:
            bad(calc, f"calculated has no {field}")
            return
    tolerance = found.get("answer_tolerance")
    if tolerance is not None and not _TOLERANCE.match(text(tolerance)):
        bad(tolerance, f"answer_tolerance must be a number or a percentage (p%), not {text(tolerance)!r}")
    formulas = found["formulas"]
    if not re.fullmatch(r"[0-9]+", formulas.get("decimal_places") or ""):
        bad(formulas, "formulas needs decimal_places, a whole number of digits")
    lines = [c for c in formulas if isinstance(c.tag, str)]
    if not lines or any(local(c) != "formula" or not text(c) for c in lines):
        bad(formulas, "formulas must hold one or more non-empty formula elements")
    declared: list[str] = []
    for var in found["vars"]:
        if not isinstance(var.tag, str):
            continue
        name = var.get("name") or ""
        if local(var) != "var" or not _CANVAS_VAR.match(name) or name in declared:
            bad(var, f"vars must hold var elements with distinct names of letters, digits and _ ({name!r})")
            continue
        declared.append(name)
        if not re.fullmatch(r"[0-9]+", var.get("scale") or ""):
            bad(var, f"var {name} needs scale, a whole number of digits")
        parts = {local(c): c for c in var if isinstance(c.tag, str)}
        if set(parts) != {"min", "max"} or len(var) != 2:
            bad(var, f"var {name} must hold min and max")
            continue
        low = number(parts["min"], f"min of var {name}", var)
        high = number(parts["max"], f"max of var {name}", var)
        if low is not None and high is not None and low > high:
            bad(var, f"var {name} has min {low} above max {high}")
    sets = [c for c in found["var_sets"] if isinstance(c.tag, str)]
    if not 1 <= len(sets) <= CANVAS_MAX_VAR_SETS:
        bad(
            found["var_sets"],
            f"var_sets must hold 1 to {CANVAS_MAX_VAR_SETS} var_set elements, not {len(sets)}",
        )
    idents: set[str] = set()
    for vs in sets:
        ident = vs.get("ident") or ""
        if local(vs) != "var_set" or not ident or ident in idents:
            bad(vs, f"var_sets must hold var_set elements with distinct idents ({ident!r})")
            continue
        idents.add(ident)
        given: list[str] = []
        answers = 0
        for c in vs:
            if not isinstance(c.tag, str):
                continue
            if local(c) == "var":
                given.append(c.get("name") or "")
                number(c, f"var {c.get('name')!r} of var_set {ident}", vs)
            elif local(c) == "answer":
                answers += 1
                number(c, f"the answer of var_set {ident}", vs)
            else:
                bad(c, f"var_set {ident} may hold only var and answer")
        if sorted(given) != sorted(declared):
            bad(
                vs,
                f"var_set {ident} gives {', '.join(given) or 'no variable'}; "
                f"vars declares {', '.join(declared)}",
            )
        if answers != 1:
            bad(vs, f"var_set {ident} must hold one answer")


def _canvas_item_extensions(root: etree._Element, name: str) -> tuple[etree._Element, list[Diagnostic]]:
    """The document with Canvas's ``itemproc_extension`` checked and taken out, for the DTD.

    QTI 1.2 gave an item an ``itemproc_extension`` (ANY) after its response processing
    (schemas/qti12/ims_qtiasiv1p2.dtd); QTI 1.2.1 dropped it, but Canvas still writes its
    calculated_question's variables and answers there (lib/cc/qti/qti_items.rb
    ``calculated_extension``) and reads them from there. It is checked here, where QTI 1.2
    puts it (an item's child after its resprocessing, before its itemfeedback, once) and with
    the content Canvas reads (_check_calculated); a copy without it goes to the 1.2.1 DTD."""
    names = ("itemproc_extension", f"{{{QTI12_NS}}}itemproc_extension")
    found = [
        e
        for e in root.iter(*names)
        if e.getparent() is not None and etree.QName(e.getparent()).localname == "item"
    ]
    if not found:
        return root, []
    out: list[Diagnostic] = []

    def bad(el: etree._Element, message: str) -> None:
        line = el.sourceline or 0
        where = _where(root, line, root.getroottree().getpath(el)) if line == 0 else ""
        out.append(Diagnostic(SourceLoc(name, line), message + where, rule="qti12.canvas-extension"))

    for ext in found:
        item = ext.getparent()
        assert item is not None
        after = [etree.QName(c).localname for c in ext.itersiblings() if isinstance(c.tag, str)]
        before = [
            etree.QName(c).localname for c in ext.itersiblings(preceding=True) if isinstance(c.tag, str)
        ]
        if any(n not in ("itemfeedback", "reference") for n in after) or "itemproc_extension" in before:
            bad(
                ext,
                "itemproc_extension must come once, after the item's resprocessing and before its "
                "itemfeedback",
            )
        content = [c for c in ext if isinstance(c.tag, str)]
        if len(content) != 1 or etree.QName(content[0]).localname != "calculated":
            bad(ext, "itemproc_extension must hold one calculated element (Canvas's calculated_question)")
            continue
        _check_calculated(content[0], bad)
    stripped = copy.deepcopy(root)
    for ext in list(stripped.iter(*names)):
        parent = ext.getparent()
        if parent is not None and etree.QName(parent).localname == "item":
            parent.remove(ext)
    return stripped, out


def validate_qti12_tree(tree: etree._ElementTree | etree._Element, name: str) -> list[Diagnostic]:
    """A QTI 1.2 document against the QTI 1.2.1 DTD (namespaced ones as described above;
    Canvas's question-group extension checked by _canvas_selection_extensions, its calculated
    question's by _canvas_item_extensions)."""
    root = tree.getroot() if isinstance(tree, etree._ElementTree) else tree
    target = _without_qti12_namespace(root) if etree.QName(root).namespace == QTI12_NS else root
    target, out = _canvas_selection_extensions(target, name)
    target, calculated = _canvas_item_extensions(target, name)
    out += calculated
    dtd = qti12_dtd()
    if dtd.validate(target):
        return out
    return out + _log(target, dtd.error_log, name, "dtd.invalid")


_RULE_13A_TEST = "not(@ident=preceding-sibling::asi:item/@ident)"
"""Rule 13a of the CC QTI profiles (1.1 and 1.3): sibling items have distinct idents."""


def unique_item_idents(tree: etree._ElementTree | etree._Element, name: str) -> list[Diagnostic]:
    """Rule 13a, as the profile's Schematron words it: an item whose ident an earlier sibling
    item already has."""
    root = tree.getroot() if isinstance(tree, etree._ElementTree) else tree
    out = []
    for parent in root.iter(f"{{{QTI12_NS}}}section", f"{{{QTI12_NS}}}objectbank"):
        seen: set[str | None] = set()
        for item in parent.iterchildren(f"{{{QTI12_NS}}}item"):
            ident = item.get("ident")
            if ident in seen:
                line = item.sourceline or 0
                where = "" if line else f" (at {_readable_path(root, root.getroottree().getpath(item))})"
                out.append(
                    Diagnostic(
                        SourceLoc(name, line),
                        f"[RULE 13a] There are Items that have common identifiers: {ident}.{where}",
                        rule="schematron.failed",
                    )
                )
            seen.add(ident)
    return out


def _schematron_diagnostics(tree: Any, rules: isoschematron.Schematron, name: str) -> list[Diagnostic]:
    if rules.validate(tree):
        return []
    out = []
    for entry in rules.error_log:
        try:
            report = etree.fromstring(entry.message)
        except etree.XMLSyntaxError:
            text, location = entry.message, None
        else:
            text = report.findtext(f"{{{SVRL_NS}}}text") or ""
            location = report.get("location")
        line = 0
        if location:
            found = (
                tree.xpath(location) if isinstance(tree, etree._Element) else tree.getroot().xpath(location)
            )
            if found and isinstance(found[0], etree._Element):
                line = found[0].sourceline or 0
                if not line:
                    location = _readable_path(tree, location)
        message = " ".join(text.split())
        if not line and location:
            message += f" (at {location})"
        out.append(Diagnostic(SourceLoc(name, line), message, Severity.ERROR, "schematron.failed"))
    return out


# libxslt runs the profile's 13 patterns at ~3 ms an item (each pattern walks the whole
# document): ten minutes for a bank of 100,000 questions. But the rules read only element names,
# attributes other than an item's ident and title (rule 13a, which reads the ident, is checked
# by unique_item_idents) and the text of fieldlabel and fieldentry (tests/test_qti12.py checks
# this against every rule of the bundled profiles). So two items that differ only in other text
# and in ident and title get the same verdict, and the rules are run on a copy of the document
# that keeps one item of each such shape, minus the shapes this process has already seen pass.
# Only if that copy fails is the whole document run, for messages naming the actual elements.
_RULE_TEXT = frozenset({"fieldlabel", "fieldentry"})
Shape = tuple[object, ...]
"""What the rules can see of an item (_item_shape)."""
_GOOD_SHAPES: dict[str, set[Shape]] = {}
_GOOD_SHAPES_MAX = 4096


_OTHER_TEXT = re.compile(rb">(?<!<fieldlabel>)(?<!<fieldentry>)[^<]+<")
"""Text after a tag other than fieldlabel's or fieldentry's start tag (serialised text holds no
``<``; the XSD, checked first, allows those two no attributes): every other text, the layout's
white space included, so that a pretty-printed document and a bare item give one shape."""


def _item_shape(item: etree._Element, content: bytes | None = None) -> Shape:
    """What the rules can see of an item: its attributes but ident and title, and its content
    (from its start tag's ``>`` to its end tag's ``<``) serialised with every text removed but
    fieldlabel's and fieldentry's (element names, attributes and nesting kept). Equal shapes get
    equal verdicts; serialising in libxml2 and one regular-expression pass cost a tenth of
    walking the elements in Python. ``content`` is that content as the whole document's serialisation holds it
    (_item_contents), which spares serialising the item again."""
    attrib = tuple((k, v) for k, v in item.attrib.items() if k not in ("ident", "title"))
    if content is None:
        data = etree.tostring(item, with_tail=False)
        start = data.index(b">") + 1  # after the start tag (serialised attributes hold no ">")
        content = b"" if data[start - 2 : start] == b"/>" else data[start - 1 : data.rindex(b"</") + 1]
    return (item.tag, attrib, _OTHER_TEXT.sub(b"><", content))


_ITEM_TAG = re.compile(rb"<item[\s/>]")
"""An item's start tag in a serialised QTI document (its namespace is the default one: lxml
writes the QTI documents lmsexport builds without a prefix)."""


def _item_contents(data: bytes, count: int) -> list[bytes] | None:
    """The content of each item of a QTI document, in document order, cut from ``data``, the
    document's serialisation by lxml (serialised text and attributes hold no ``<``, and items do
    not nest); None unless exactly ``count`` items are found (then each is serialised alone)."""
    out: list[bytes] = []
    for m in _ITEM_TAG.finditer(data):
        start = data.index(b">", m.start()) + 1
        if data[start - 2 : start] == b"/>":
            out.append(b"")
            continue
        end = data.find(b"</item>", start)
        if end < 0:
            return None
        out.append(data[start - 1 : end + 1])  # from the start tag's ">" to the end tag's "<"
    return out if len(out) == count else None


def _items(tree: Any) -> list[etree._Element]:
    root = tree.getroot() if isinstance(tree, etree._ElementTree) else tree
    return [
        item
        for container in root.iter(f"{{{QTI12_NS}}}section", f"{{{QTI12_NS}}}objectbank")
        for item in container.iterchildren(f"{{{QTI12_NS}}}item")
    ]


def item_shapes(tree: Any, data: bytes | None = None) -> list[Shape]:
    """The shape (_item_shape) of each item of a QTI document, in document order; ``data`` is
    the document's serialisation (package.serialize), which the items' contents are cut from.
    A shape is the document's, not a profile's: the 1.3 and 1.1 rules judge the same shapes."""
    return _shapes(_items(tree), data)


def _shapes(items: list[etree._Element], data: bytes | None) -> list[Shape]:
    contents = _item_contents(data, len(items)) if data is not None else None
    return [_item_shape(item, None if contents is None else contents[n]) for n, item in enumerate(items)]


def _item_schematron(
    tree: Any,
    rules: isoschematron.Schematron,
    relpath: str,
    name: str,
    data: bytes | None = None,
    shapes: list[Shape] | None = None,
) -> list[Diagnostic]:
    root = tree.getroot() if isinstance(tree, etree._ElementTree) else tree
    good = _GOOD_SHAPES.setdefault(relpath, set())
    new: set[Shape] = set()
    drop: list[etree._Element] = []
    items = _items(root)
    if shapes is None or len(shapes) != len(items):
        shapes = _shapes(items, data)
    for item, shape in zip(items, shapes, strict=True):
        if shape in good or shape in new:
            drop.append(item)
        else:
            new.add(shape)
    # The copy leaves out the dropped items: detach them, copy, and put them back where they
    # were (in document order, so that each index is right when it is used).
    places = [(item.getparent(), item.getparent().index(item), item) for item in drop]
    for parent, _, item in places:
        parent.remove(item)
    try:
        reduced = copy.deepcopy(root)
    finally:
        for parent, index, item in places:
            parent.insert(index, item)
    if rules.validate(reduced):
        if len(good) + len(new) <= _GOOD_SHAPES_MAX:
            good |= new
        return []
    return _schematron_diagnostics(tree, rules, name)


def validate_cc_tree(
    tree: etree._ElementTree | etree._Element,
    kind: str,
    name: str,
    version: CcVersion = CC13,
    data: bytes | None = None,
    shapes: list[Shape] | None = None,
) -> list[Diagnostic]:
    """A cartridge's manifest (``kind`` "cc-manifest") or QTI document ("cc-qti") against the
    version's XSD and then, when the XSD accepts it, its embedded Schematron rules. ``data``,
    when given, is ``package.serialize(tree)``: the items' shapes are cut from it; ``shapes``,
    when given, are item_shapes(tree, data), made once for a document both versions check."""
    relpaths = (
        (version.manifest_xsd, version.manifest_xsd, version.lom_xsd)
        if kind == "cc-manifest"
        else (version.qti_xsd, version.qti_xsd)
    )
    schema = compiled_schema(relpaths[0])
    if not schema.validate(tree):
        return _log(tree, schema.error_log, name, "xsd.invalid")
    out: list[Diagnostic] = []
    for relpath in relpaths[1:]:
        rules = schematron(relpath)
        if rules is None:
            pass
        elif kind == "cc-qti":
            out += _item_schematron(tree, rules, relpath, name, data, shapes)
        else:
            out += _schematron_diagnostics(tree, rules, name)
    if kind == "cc-qti":
        out += unique_item_idents(tree, name)
    return out


def validate_cp_manifest(tree: etree._ElementTree | etree._Element, name: str) -> list[Diagnostic]:
    schema = compiled_schema(CP11_MANIFEST_XSD)
    if schema.validate(tree):
        return []
    return _log(tree, schema.error_log, name, "xsd.invalid")


CANVAS_META_BOOLEANS = frozenset(
    [
        "could_be_locked",
        "anonymous_submissions",
        "show_correct_answers",
        "require_lockdown_browser",
        "require_lockdown_browser_for_results",
        "shuffle_answers",
        "disable_timer_autosubmission",
        "available",
        "cant_go_back",
        "one_question_at_a_time",
        "require_lockdown_browser_monitor",
        "one_time_results",
        "show_correct_answers_last_attempt",
        "only_visible_to_overrides",
    ]
)
"""The settings Canvas reads as booleans (quiz_metadata_converter.rb get_quiz_meta)."""
CANVAS_META_NUMBERS = {"points_possible": float, "time_limit": int, "allowed_attempts": int}
CANVAS_META_TEXTS = frozenset(
    ["title", "description", "access_code", "ip_filter", "quiz_type", "scoring_policy", "hide_results"]
)


def check_canvas_meta(tree: etree._ElementTree | etree._Element, name: str) -> list[Diagnostic]:
    """Canvas's quiz settings file, checked as Canvas's importer reads it (no schema is bundled):
    a ``quiz`` root in Canvas's namespace with an ``identifier``; the text, boolean and number
    settings it reads hold text only, and booleans and numbers parse as Canvas parses them."""
    root = tree.getroot() if isinstance(tree, etree._ElementTree) else tree
    out: list[Diagnostic] = []

    def bad(el: etree._Element, message: str) -> None:
        line = el.sourceline or 0
        where = _where(root, line, root.getroottree().getpath(el)) if line == 0 else ""
        out.append(Diagnostic(SourceLoc(name, line), message + where, rule="canvas-meta.invalid"))

    if root.tag != f"{{{CANVAS_NS}}}quiz":
        bad(
            root, f"root element {_clean(root.tag)} is not Canvas's quiz settings element {{{CANVAS_NS}}}quiz"
        )
        return out
    if not (root.get("identifier") or "").strip():
        bad(root, "quiz has no identifier attribute")
    for child in root.iterchildren(etree.Element):
        qname = etree.QName(child)
        field = qname.localname
        if qname.namespace != CANVAS_NS:
            bad(child, f"element {_clean(child.tag)} is not in Canvas's namespace {CANVAS_NS}")
            continue
        known = field in CANVAS_META_BOOLEANS or field in CANVAS_META_NUMBERS or field in CANVAS_META_TEXTS
        if not known:
            continue  # Canvas's exports carry many more settings; its importer ignores the others
        if len(child):
            bad(child, f"setting {field} must hold text only")
            continue
        value = (child.text or "").strip()
        if field in CANVAS_META_BOOLEANS and value not in ("true", "false"):
            bad(child, f"setting {field} must be true or false, not {value!r}")
        if field in CANVAS_META_NUMBERS:
            try:
                CANVAS_META_NUMBERS[field](value)
            except ValueError:
                bad(child, f"setting {field} must be a number, not {value!r}")
    return out


def validate_document(tree: etree._ElementTree | etree._Element, kind: str, name: str) -> list[Diagnostic]:
    """A document a writer of ours built, by the kind the writer gives it."""
    if kind == "qti12":
        return validate_qti12_tree(tree, name)
    if kind == "cp-manifest":
        return validate_cp_manifest(tree, name)
    if kind == "canvas-meta":
        return check_canvas_meta(tree, name)
    if kind in ("cc-manifest", "cc-qti"):
        return validate_cc_tree(tree, kind, name)
    raise ValueError(f"unknown document kind {kind!r}")


# --------------------------------------------------------------------------- untrusted documents


def _prolog(data: bytes) -> str:
    """The start of a document as text, for finding a DOCTYPE before libxml2 parses it: UTF-16
    and UTF-32 by their byte-order mark or zero bytes, anything else as Latin-1 (every
    ASCII-compatible encoding keeps ``<!DOCTYPE`` readable that way)."""
    head = data[: PROLOG_BYTES * 4]
    for bom, codec in (
        (b"\xff\xfe\x00\x00", "utf-32-le"),
        (b"\x00\x00\xfe\xff", "utf-32-be"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if head.startswith(bom):
            return head[len(bom) :].decode(codec, errors="replace")[:PROLOG_BYTES]
    if head[:4] in (b"<\x00?\x00", b"<\x00!\x00"):
        return head.decode("utf-16-le", errors="replace")[:PROLOG_BYTES]
    if head[:4] in (b"\x00<\x00?", b"\x00<\x00!"):
        return head.decode("utf-16-be", errors="replace")[:PROLOG_BYTES]
    return head[:PROLOG_BYTES].decode("latin-1")


def parse_untrusted_qti12(data: bytes, name: str) -> tuple[etree._ElementTree | None, list[Diagnostic]]:
    """Parse a QTI 1.2 package member: a DOCTYPE naming a DTD is accepted and never loaded; an
    internal subset or a declared entity is refused; nothing external is ever fetched."""
    prolog = _prolog(data)
    if found := _DOCTYPE.search(prolog):
        line = prolog.count("\n", 0, found.start()) + 1
        if not _BARE_DOCTYPE.match(prolog, found.start()):
            return None, [
                Diagnostic(
                    SourceLoc(name, line),
                    "DOCTYPE has an internal subset; entity declarations (XXE, entity expansion) are refused",
                    rule="xml.doctype",
                    hint='a QTI 1.2 document may name its DTD (<!DOCTYPE questestinterop SYSTEM "..">) '
                    "but not declare anything",
                )
            ]
    try:
        tree = etree.parse(io.BytesIO(data), _untrusted_parser())
    except etree.XMLSyntaxError as exc:
        return None, [
            Diagnostic(
                SourceLoc(name, exc.lineno or 0), f"not well-formed XML: {_clean(exc.msg)}", rule="xml.syntax"
            )
        ]
    internal = tree.docinfo.internalDTD
    if internal is not None and (list(internal.iterentities()) or list(internal.iterelements())):
        return None, [
            Diagnostic(
                SourceLoc(name),
                "DOCTYPE has an internal subset; entity declarations (XXE, entity expansion) are refused",
                rule="xml.doctype",
            )
        ]
    return tree, _unknown_schema_locations(tree, name)


def _unknown_schema_locations(tree: etree._ElementTree, name: str) -> list[Diagnostic]:
    known = _known_schema_urls() | QTI12_XSD_URLS | CANVAS_XSD_URLS
    out = []
    for el in tree.iter(etree.Element):
        value = el.get(f"{{{XSI_NS}}}schemaLocation")
        if value is None:
            continue
        for url in value.split()[1::2]:
            if "://" in url and url not in known:
                out.append(
                    Diagnostic(
                        SourceLoc(name, el.sourceline or 0),
                        f"remote schemaLocation {url!r} is not one of the bundled schemas; refused "
                        "(nothing was fetched)",
                        rule="xml.remote-schema",
                        hint="name the official IMS schema URL, or remove xsi:schemaLocation",
                    )
                )
    return out


def _qti12_document(tree: etree._ElementTree, name: str) -> list[Diagnostic]:
    """An untrusted QTI 1.2 document: a CC-profile one (naming a CC profile XSD) against that
    profile, any other against the DTD."""
    root = tree.getroot()
    location = root.get(f"{{{XSI_NS}}}schemaLocation") or ""
    for version in CC_VERSIONS.values():
        if version.qti_xsd.rsplit("/", 1)[1] in location:
            return validate_cc_tree(tree, "cc-qti", name, version)
    return validate_qti12_tree(tree, name)


def _is_questestinterop(tree: etree._ElementTree) -> bool:
    return etree.QName(tree.getroot()).localname == "questestinterop" and etree.QName(
        tree.getroot()
    ).namespace in (None, QTI12_NS)


# --------------------------------------------------------------------------- packages


@dataclass
class _Package:
    zname: str
    files: dict[str, zipfile.ZipInfo]
    zf: zipfile.ZipFile
    out: list[Diagnostic]
    trees: dict[str, etree._ElementTree]
    refused: int = 0
    """XML members that could not be read or parsed (each reported)."""

    def read(self, member: str) -> etree._ElementTree | None:
        """Parse a member once (None if unreadable, reported)."""
        if member in self.trees:
            return self.trees[member]
        mname = f"{self.zname}!{member}"
        try:
            data = _read_member(self.zf, self.files[member])
        except _ZIP_READ_ERRORS as exc:
            self.out.append(Diagnostic(SourceLoc(mname), f"cannot be read: {exc}", rule="package.bad-member"))
            return None
        if data is None:
            self.out.append(
                Diagnostic(SourceLoc(mname), "inflates beyond its declared size", rule="package.too-large")
            )
            return None
        tree, problems = parse_untrusted_qti12(data, mname)
        self.out += problems
        if tree is None:
            self.refused += 1
        else:
            self.trees[member] = tree
        return tree


def _open(
    source: str | Path | bytes, name: str | None, check: Callable[[_Package], None]
) -> list[Diagnostic]:
    zname = name if name is not None else ("<bytes>" if isinstance(source, bytes) else str(source))
    if isinstance(source, bytes):
        opened: Any = io.BytesIO(source)
    else:
        opened = Path(source)
        if not opened.is_file():
            return [Diagnostic(SourceLoc(zname), "no such file", rule="package.missing")]
    try:
        with zipfile.ZipFile(opened) as zf:
            infos = zf.infolist()
            refused = _check_entries(infos, zname)
            if refused:
                return sorted(refused, key=Diagnostic.sort_key)
            files = {i.filename: i for i in infos if not i.filename.endswith("/")}
            pkg = _Package(zname, files, zf, [], {})
            if MANIFEST not in files:
                pkg.out.append(
                    Diagnostic(
                        SourceLoc(zname),
                        "no imsmanifest.xml at the root of the package",
                        rule="package.no-manifest",
                    )
                )
            check(pkg)
            return sorted(pkg.out, key=Diagnostic.sort_key)
    except _ZIP_READ_ERRORS as exc:
        return [Diagnostic(SourceLoc(zname), f"not a readable zip file: {exc}", rule="package.bad-zip")]


def _resource_files(
    pkg: _Package, manifest: etree._ElementTree, ns: str
) -> list[tuple[etree._Element, str, str]]:
    """(resource, type, member) of every file a resource names that is in the package; hrefs
    that leave the package or name a missing file are reported."""
    mname = f"{pkg.zname}!{MANIFEST}"
    found = []
    for res in manifest.iter(f"{{{ns}}}resource"):
        rtype = res.get("type", "")
        hrefs = [(res, res.get("href"))] + [(f, f.get("href")) for f in res.iter(f"{{{ns}}}file")]
        for el, href in hrefs:
            if href is None:
                continue
            target = _resolve_href(MANIFEST, href)
            if target is None:
                pkg.out.append(
                    Diagnostic(
                        SourceLoc(mname, el.sourceline or 0),
                        f"href {href!r} points outside the package",
                        rule="package.unsafe-path",
                    )
                )
            elif target not in pkg.files:
                pkg.out.append(
                    Diagnostic(
                        SourceLoc(mname, el.sourceline or 0),
                        f"href {href!r} names a file that is not in the package",
                        rule="package.missing-file",
                    )
                )
            elif el is not res:
                found.append((res, rtype, target))
    return found


def validate_qti12_package(source: str | Path | bytes, name: str | None = None) -> list[Diagnostic]:
    """Validate a QTI 1.2 content package (Canvas's flavour, text2qti's, a Canvas QTI export),
    treating it as hostile input: the zip checks of lmsexport.validate, then the manifest
    (against IMS CP 1.1 when it is one), every file it names is present and inside the package,
    every ``questestinterop`` in the zip against the QTI 1.2.1 DTD, and Canvas's quiz settings
    files as Canvas reads them."""
    return _open(source, name, _check_qti12)


def _check_qti12(pkg: _Package) -> None:
    manifest = pkg.read(MANIFEST) if MANIFEST in pkg.files else None
    if manifest is not None:
        ns = etree.QName(manifest.getroot()).namespace or ""
        mname = f"{pkg.zname}!{MANIFEST}"
        if manifest.getroot().tag == f"{{{CP_NS}}}manifest":
            pkg.out += validate_cp_manifest(manifest, mname)
        else:
            pkg.out.append(
                Diagnostic(
                    SourceLoc(mname, manifest.getroot().sourceline or 0),
                    f"manifest element {_clean(manifest.getroot().tag)} is not an IMS CP 1.1 manifest; "
                    "only the files it names were checked",
                    Severity.WARNING,
                    "package.manifest-not-checked",
                )
            )
        _resource_files(pkg, manifest, ns)
    for member in sorted(pkg.files):
        if not member.lower().endswith((".xml", ".qti")) or member == MANIFEST:
            continue
        tree = pkg.read(member)
        if tree is None:
            continue
        mname = f"{pkg.zname}!{member}"
        if _is_questestinterop(tree):
            pkg.out += _qti12_document(tree, mname)
        elif tree.getroot().tag == f"{{{CANVAS_NS}}}quiz":
            pkg.out += check_canvas_meta(tree, mname)
    if not pkg.refused and not any(_is_questestinterop(t) for t in pkg.trees.values()):
        pkg.out.append(
            Diagnostic(
                SourceLoc(pkg.zname),
                "no QTI 1.2 document (questestinterop) in the package",
                rule="package.no-assessment",
            )
        )


def validate_cartridge(source: str | Path | bytes, name: str | None = None) -> list[Diagnostic]:
    """Validate an IMS Common Cartridge (1.3 or 1.1), treating it as hostile input: the zip
    checks of lmsexport.validate, the manifest against its CC profile (XSD and Schematron),
    every file a resource names is present and inside the package, every organization item
    names a resource, and every assessment and question bank against the CC QTI profile of the
    cartridge's version (XSD and Schematron)."""
    return _open(source, name, _check_cartridge)


def _check_cartridge(pkg: _Package) -> None:
    manifest = pkg.read(MANIFEST) if MANIFEST in pkg.files else None
    if manifest is None:
        return
    mname = f"{pkg.zname}!{MANIFEST}"
    root = manifest.getroot()
    ns = etree.QName(root).namespace or ""
    version = CC_VERSIONS.get(ns)
    if version is None or etree.QName(root).localname != "manifest":
        known = ", ".join(sorted(CC_VERSIONS))
        pkg.out.append(
            Diagnostic(
                SourceLoc(mname, root.sourceline or 0),
                f"{_clean(root.tag)} is not a Common Cartridge 1.3 or 1.1 manifest (expected one of {known})",
                rule="cc.unknown-manifest",
            )
        )
        return
    pkg.out += validate_cc_tree(manifest, "cc-manifest", mname, version)
    identifiers = {r.get("identifier") for r in root.iter(f"{{{ns}}}resource")}
    for item in root.iter(f"{{{ns}}}item"):
        ref = item.get("identifierref")
        if ref is not None and ref not in identifiers:
            pkg.out.append(
                Diagnostic(
                    SourceLoc(mname, item.sourceline or 0),
                    f"organization item {item.get('identifier')!r} names resource {ref!r}, which is not in "
                    "the manifest",
                    rule="package.missing-resource",
                )
            )
    for _, rtype, member in _resource_files(pkg, manifest, ns):
        if rtype not in version.qti_types or not member.lower().endswith(".xml"):
            continue
        tree = pkg.read(member)
        if tree is None:
            continue
        qname = f"{pkg.zname}!{member}"
        if tree.getroot().tag != f"{{{QTI12_NS}}}questestinterop":
            pkg.out.append(
                Diagnostic(
                    SourceLoc(qname, tree.getroot().sourceline or 0),
                    f"resource of type {rtype} is {_clean(tree.getroot().tag)}, not a CC QTI 1.2 "
                    f"questestinterop in {QTI12_NS}",
                    rule="package.wrong-type",
                )
            )
            continue
        pkg.out += validate_cc_tree(tree, "cc-qti", qname, version)


# --------------------------------------------------------------------------- which kind of package


def package_kind(source: str | Path | bytes, name: str) -> str:
    """ "cc", "qti12" or "qti21": what ``lmsexport validate`` checks a zip as.

    A ``.imscc`` is a cartridge. Otherwise the manifest decides, as Canvas decides (converter.rb
    is_qti_2): a QTI 2 namespace or a ``<schema>`` naming QTIv2 is QTI 2.1; a ``<schema>`` naming
    Common Cartridge is a cartridge; a manifest listing ``imsqti_xmlv1p2`` resources, or a zip
    holding a ``questestinterop``, is QTI 1.2. Anything else, including a zip that cannot be
    read or a manifest that cannot be parsed safely, goes to the QTI 2.1 checks, which report it.
    """
    if name.lower().endswith(".imscc"):
        return "cc"
    try:
        opened: Any = io.BytesIO(source) if isinstance(source, bytes) else Path(source)
        with zipfile.ZipFile(opened) as zf:
            infos = zf.infolist()
            if _check_entries(infos, name):
                return "qti21"
            files = {i.filename: i for i in infos}
            manifest = _peek(zf, files.get(MANIFEST))
            if manifest is None:
                return "qti21"
            root = manifest.getroot()
            namespaces = {v for el in root.iter(etree.Element) for v in el.nsmap.values()}
            schema = " ".join(
                t.text or "" for t in root.iter(etree.Element) if etree.QName(t).localname == "schema"
            )
            if any(v.startswith(QTI2_NAMESPACES) for v in namespaces) or re.search(r"QTIv2\.", schema, re.I):
                return "qti21"
            if "common cartridge" in schema.lower():
                return "cc"
            types = [
                r.get("type", "") for r in root.iter(etree.Element) if etree.QName(r).localname == "resource"
            ]
            if any(t.startswith("imsqti_xmlv1p2") for t in types):
                return "qti12"
            for member, info in files.items():
                if member.lower().endswith(".xml") and member != MANIFEST:
                    tree = _peek(zf, info)
                    if tree is not None and _is_questestinterop(tree):
                        return "qti12"
    except _ZIP_READ_ERRORS:
        return "qti21"
    return "qti21"


def _peek(zf: zipfile.ZipFile, info: zipfile.ZipInfo | None) -> etree._ElementTree | None:
    """A member parsed under the QTI 1.2 policy, or None for anything wrong with it (the
    validator that gets the package reports it)."""
    if info is None:
        return None
    try:
        data = _read_member(zf, info)
    except _ZIP_READ_ERRORS:
        return None
    if data is None:
        return None
    tree, problems = parse_untrusted_qti12(data, info.filename)
    return tree if tree is not None and not problems else None


def validate_any_package(source: str | Path, name: str | None = None) -> list[Diagnostic]:
    """Validate a package of any kind lmsexport writes: a QTI 2.1 or QTI 1.2 zip, or a cartridge."""
    zname = name if name is not None else str(source)
    if not Path(source).is_file():
        return [Diagnostic(SourceLoc(zname), "no such file", rule="package.missing")]
    kind = package_kind(source, zname)
    if kind == "cc":
        return validate_cartridge(source, zname)
    if kind == "qti12":
        return validate_qti12_package(source, zname)
    return validate_package(source, zname)


def validate_qti12_xml_file(path: Path, name: str | None = None) -> list[Diagnostic] | None:
    """A single QTI 1.2 document (questestinterop) validated as in a package, or None when the
    file is not one (the QTI 2.1 checks then report on it)."""
    size = path.stat().st_size
    display = name if name is not None else str(path)
    if size > MAX_MEMBER_BYTES:
        return [_too_large(display, size)]
    data = path.read_bytes()
    tree, problems = parse_untrusted_qti12(data, display)
    if tree is None or not _is_questestinterop(tree):
        return None
    return problems + _qti12_document(tree, display)
