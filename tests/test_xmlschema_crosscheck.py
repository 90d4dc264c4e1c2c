"""A second, independent XSD implementation agrees: xmlschema (pure Python) accepts every XML
file of the built packages that lxml/libxml2 accepted, and rejects the shared invalid samples.

lxml is the validator on the build's hot path (performance-notes.md: 0.9 s to compile against
xmlschema's ~3 s); this test guards against a libxml2 quirk letting an invalid file through.
Network access is refused (allow="local"), imports resolve through schemas/locations.json.
"""

from __future__ import annotations

import io
import json
import zipfile
from functools import cache
from pathlib import Path

import pytest
import xmlschema

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
LOCATIONS = json.loads((SCHEMAS / "locations.json").read_text(encoding="utf-8"))


def _mapper(uri: str) -> str:
    if uri in LOCATIONS["map"]:
        return (SCHEMAS / LOCATIONS["map"][uri]).as_uri()
    for prefix, folder in LOCATIONS["prefix"].items():
        if uri.startswith(prefix):
            return (SCHEMAS / folder / uri[len(prefix) :]).as_uri()
    return uri


@cache
def schema(name: str) -> xmlschema.XMLSchema10:
    return xmlschema.XMLSchema10(str(SCHEMAS / name), uri_mapper=_mapper, allow="local")


def _kind(data: bytes) -> str:
    head = data[:600]
    return "qti21/qtiv2p1_imscpv1p2_v1p0.xsd" if b"<manifest" in head else "qti21/imsqti_v2p1.xsd"


PACKAGES = sorted((ROOT / "dist" / "qti21").glob("*.zip")) + [
    folder
    for case in ("types", "rich")  # rich: MathML items, checked against the full MathML 2 schema
    for folder in sorted((ROOT / "tests" / "cases" / case / "expected" / "qti21").glob("*"))
]


def _members(package: Path) -> list[tuple[str, bytes]]:
    if package.is_dir():
        return [(p.relative_to(package).as_posix(), p.read_bytes()) for p in sorted(package.rglob("*.xml"))]
    with zipfile.ZipFile(io.BytesIO(package.read_bytes())) as zf:
        return [(n, zf.read(n)) for n in zf.namelist() if n.endswith(".xml")]


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_xmlschema_accepts_every_member(package: Path) -> None:
    members = _members(package)
    assert members
    for name, data in members:
        errors = [e.reason for e in schema(_kind(data)).iter_errors(io.BytesIO(data))]
        assert errors == [], f"{package.name}!{name}: {errors[:3]}"


@pytest.mark.parametrize(
    "sample", ["invalid-item-missing-responseIdentifier.xml", "invalid-item-dir-attribute.xml"]
)
def test_xmlschema_rejects_the_invalid_samples(sample: str) -> None:
    data = (SCHEMAS / "examples" / sample).read_bytes()
    assert not schema("qti21/imsqti_v2p1.xsd").is_valid(io.BytesIO(data))


CARTRIDGES = sorted((ROOT / "dist" / "cc").glob("*.imscc")) + [
    ROOT / "tests" / "cases" / "types" / "expected" / "cc" / "bank"
]


@pytest.mark.parametrize("cartridge", CARTRIDGES, ids=lambda p: p.name)
def test_xmlschema_accepts_every_cartridge_member(cartridge: Path) -> None:
    """The Common Cartridge 1.3 profiles, in xmlschema too: the manifest and every QTI document."""
    members = _members(cartridge)
    assert len(members) >= 3
    for name, data in members:
        xsd = (
            "cc/v1p3/ccv1p3_imscp_v1p2_v1p0.xsd"
            if name == "imsmanifest.xml"
            else "cc/v1p3/ccv1p3_qtiasiv1p2p1_v1p0.xsd"
        )
        errors = [e.reason for e in schema(xsd).iter_errors(io.BytesIO(data))]
        assert errors == [], f"{cartridge.name}!{name}: {errors[:3]}"


def test_xmlschema_rejects_the_invalid_cartridge_sample() -> None:
    folder = SCHEMAS / "examples" / "cc" / "cc13-ur-mc-invalid"
    assert not schema("cc/v1p3/ccv1p3_imscp_v1p2_v1p0.xsd").is_valid(str(folder / "imsmanifest.xml"))
    assert not schema("cc/v1p3/ccv1p3_qtiasiv1p2p1_v1p0.xsd").is_valid(
        str(folder / "quiz-ur-001" / "assessment.xml")
    )


def test_xmlschema_checks_mathml_against_the_full_schema() -> None:
    """A rich item's MathML is validated, not skipped: an unknown MathML element is rejected."""
    item = (
        ROOT
        / "tests"
        / "cases"
        / "rich"
        / "expected"
        / "qti21"
        / "rich-text"
        / "items"
        / "rich-zero-memory.xml"
    )
    data = item.read_bytes()
    assert schema("qti21/imsqti_v2p1.xsd").is_valid(io.BytesIO(data))
    broken = data.replace(b"<mfrac>", b"<mfrac><mbogus/>", 1)
    assert broken != data
    assert not schema("qti21/imsqti_v2p1.xsd").is_valid(io.BytesIO(broken))
