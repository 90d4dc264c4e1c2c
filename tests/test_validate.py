"""Offline schema validation: bundled schemas intact, examples as documented, no network ever."""

from __future__ import annotations

import hashlib
import http.server
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

from lmsexport import validate
from lmsexport.errors import Severity

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
EXAMPLES = SCHEMAS / "examples"


def test_bundled_schemas_match_their_sha256sums() -> None:
    lines = (SCHEMAS / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    entries = [line.split(None, 1) for line in lines if line.strip()]
    assert len(entries) >= 30
    bad = [
        name
        for digest, name in entries
        if hashlib.sha256((SCHEMAS / name.strip().lstrip("*")).read_bytes()).hexdigest() != digest
    ]
    assert bad == []
    listed = {name.strip().lstrip("*") for _, name in entries}
    assert {"qti21/imsqti_v2p1.xsd", "qti21/qtiv2p1_imscpv1p2_v1p0.xsd"} <= listed
    # Every schema the validator can load is covered by a checksum.
    on_disk = {p.relative_to(SCHEMAS).as_posix() for p in SCHEMAS.rglob("*.xsd")}
    assert on_disk <= listed


def test_schema_dir_is_the_bundled_one() -> None:
    assert validate.schema_dir() == SCHEMAS
    assert (validate.schema_dir() / validate.SCHEMA_FILES["item"]).is_file()


@pytest.mark.parametrize("name", ["items/ur-capital-001.xml", "test-ur-001.xml", "imsmanifest.xml"])
def test_valid_examples(name: str) -> None:
    assert validate.validate_xml_file(EXAMPLES / name) == []


@pytest.mark.parametrize(
    ("name", "line", "attribute"),
    [
        ("invalid-item-dir-attribute.xml", 23, "dir"),
        ("invalid-item-missing-responseIdentifier.xml", 24, "responseIdentifier"),
    ],
)
def test_invalid_examples(name: str, line: int, attribute: str) -> None:
    """One located schema error naming the attribute at fault (the sentence is libxml2's)."""
    (diag,) = validate.validate_xml_file(EXAMPLES / name)
    assert diag.severity is Severity.ERROR and diag.rule == "xsd.invalid"
    assert diag.loc.path.endswith(name) and diag.loc.line == line
    assert re.search(rf"\b{attribute}\b", diag.message), diag.message
    assert "{http" not in diag.message  # namespaces cleaned out of libxml2's message


def test_unknown_root_is_reported(tmp_path: Path) -> None:
    f = tmp_path / "x.xml"
    f.write_text("<html/>")
    (diag,) = validate.validate_xml_file(f)
    assert diag.rule == "xml.unknown-root"


def test_in_memory_tree_errors_name_the_element(types_quiz) -> None:
    from lmsexport.writers.qti21 import item_tree

    item = item_tree(types_quiz, types_quiz.questions[0])  # built, never parsed: no line numbers
    item.find(".//{*}choiceInteraction").set("maxChoices", "many")
    (diag,) = validate.validate_tree(item, "item", "built.xml")
    assert "maxChoices" in diag.message
    assert diag.loc.line == 0 and "(at /" in diag.message and "choiceInteraction" in diag.message


def test_unknown_kind_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown document kind"):
        validate.validate_tree(etree.Element("x"), "quiz", "x")


def test_schemas_compile_once() -> None:
    first = validate.schema_for("item")
    assert validate.schema_for("item") is first
    assert validate.schema_for("test") is first  # items and tests share imsqti_v2p1.xsd
    hits = validate.compiled_schema.cache_info().hits
    validate.schema_for("manifest")
    validate.schema_for("manifest")
    assert validate.compiled_schema.cache_info().hits >= hits + 1


# --------------------------------------------------------------------------- no network


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        _Recorder.requests.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>')

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def local_server() -> Iterator[str]:
    """A real HTTP server on localhost that records every request it gets."""
    _Recorder.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_remote_schema_location_in_an_instance_is_not_fetched(local_server: str) -> None:
    data = (EXAMPLES / "items/ur-capital-001.xml").read_bytes()
    data = data.replace(
        b"http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd", f"{local_server}/evil.xsd".encode()
    )
    diags = validate.validate_xml_bytes(data, "remote.xml")
    assert [d.rule for d in diags] == ["xml.remote-schema"]
    assert diags[0].severity is Severity.ERROR and "nothing was fetched" in diags[0].message
    assert _Recorder.requests == []


def test_schema_import_outside_the_bundle_is_refused(local_server: str) -> None:
    xsd = (
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
        f'<xs:import namespace="urn:x" schemaLocation="{local_server}/x.xsd"/>'
        '<xs:element name="a"/></xs:schema>'
    ).encode()
    doc = etree.fromstring(xsd, validate._schema_parser(SCHEMAS), base_url=str(SCHEMAS / "probe.xsd"))
    with pytest.raises(etree.XMLSchemaParseError):
        etree.XMLSchema(doc)
    assert _Recorder.requests == []


def test_resolver_maps_catalog_urls_and_refuses_the_rest(tmp_path: Path) -> None:
    resolver = validate._BundledResolver(SCHEMAS)
    assert resolver.local_path("http://www.w3.org/2001/xml.xsd") == SCHEMAS / "w3c/xml.xsd"
    assert resolver.local_path("http://www.w3.org/Math/XMLSchema/mathml2/mathml2.xsd") == (
        SCHEMAS / "w3c/mathml2/mathml2.xsd"
    )
    for url in ("http://example.com/x.xsd", str(tmp_path / "outside.xsd"), "ftp://h/x.xsd"):
        with pytest.raises(validate.SchemaResolutionError):
            resolver.local_path(url)


_NO_NET_SCRIPT = """
import socket
def refuse(*a, **k):
    raise OSError("network refused by the test")
socket.socket.connect = refuse
socket.create_connection = refuse
from lmsexport import validate
from pathlib import Path
ex = Path(validate.schema_dir()) / "examples"
assert validate.validate_xml_file(ex / "items/ur-capital-001.xml") == []
assert validate.validate_xml_file(ex / "imsmanifest.xml") == []
assert validate.validate_xml_file(ex / "invalid-item-dir-attribute.xml")
print("ok")
"""


def test_compile_and_validate_with_no_network_at_all() -> None:
    """A fresh process in a network namespace with no interfaces: compiles and validates."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not available")
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("user namespaces are not permitted here")
    run = subprocess.run(
        ["unshare", "-rn", sys.executable, "-c", _NO_NET_SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def test_compile_and_validate_with_python_sockets_refused() -> None:
    """Without unshare: a fresh process whose Python sockets refuse to connect."""
    run = subprocess.run([sys.executable, "-c", _NO_NET_SCRIPT], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


# --------------------------------------------------------------------------- real files from other tools

CORPUS = ROOT / "tests" / "corpus" / "qti21"
CORPUS_FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in (".xml", ".zip"))

# The verdict on each real file: the rules of its errors (empty: valid). The exact messages
# are in tests/corpus/qti21/expected.txt (schema errors, whose sentences are libxml2's, are
# compared by place only); tests/corpus/qti21/README.md says why each is right.
CORPUS_VERDICTS = {
    "qti-sdk/empty_test_v2p1p1.xml": set(),
    "qti-sdk/ims-2_0-choice.xml": {"qti.unsupported-version"},
    "qti-sdk/ims-2_1_1-choice.xml": set(),
    "qti-sdk/ims-2_2-choice_multiple_rtl.xml": {"qti.unsupported-version"},
    "qti-sdk/ims-2_2_4-choice.xml": {"qti.unsupported-version"},
    "qti-sdk/ims-3_0-empty_item.xml": {"qti.unsupported-version"},
    "qti-sdk/standalone_assessmentsection.xml": set(),
    "qtiworks/Aardvark-cannon.zip": {"xsd.invalid"},
    "qtiworks/BadMix.zip": {"xsd.invalid", "package.wrong-type", "package.unlisted-item"},
    "qtiworks/WebDeveloperTest1.zip": {"xsd.invalid"},
    "qtiworks/ZipSlip.zip": {"package.unsafe-path"},
    "qtiworks/choice-assessmentResult.xml": {"qti.unsupported-version"},
    "qtiworks/ims-choice.xml": set(),
    "qtiworks/ims-math.xml": set(),
    "qtiworks/ims-position_object.xml": set(),
    "qtiworks/stomp-a_mcq_dkG2.xml": {"xsd.invalid"},
    "tao/BasicSharedStimulus.zip": set(),
    "tao/MissingItemDependency.zip": {"package.missing-file"},
    "tao/NoDependencies.zip": set(),
    "tao/SubSectionRefs.zip": set(),
    "tao/WrongManifestFileItemAssetHref.zip": {"package.missing-file"},
    "tao/qtiItemDependency.zip": {"qti.unsupported-version"},
}


def _validate_path(p: Path, name: str) -> list:
    return (
        validate.validate_package(p, name)
        if p.suffix == ".zip"
        else validate.validate_xml_bytes(p.read_bytes(), name)
    )


def test_corpus_verdicts_and_messages(golden) -> None:
    """Real items, tests and packages of QTIWorks, qti-sdk (IMS examples) and TAO get the right verdict."""
    names = [p.relative_to(CORPUS).as_posix() for p in CORPUS_FILES]
    assert names == sorted(CORPUS_VERDICTS)
    report = []
    for p, name in zip(CORPUS_FILES, names, strict=True):
        diags = _validate_path(p, name)
        errors = {d.rule for d in diags if d.severity is Severity.ERROR}
        assert errors == CORPUS_VERDICTS[name], (name, [d.format() for d in diags])
        report.append(f"== {name}: {'invalid' if errors else 'valid'}\n")
        for d in sorted(diags, key=lambda d: d.sort_key()):
            # A schema error's sentence is libxml2's: marked, so that only its place is compared.
            report.append(d.format() + ("  # xsd.invalid" if d.rule == "xsd.invalid" else "") + "\n")
    golden(CORPUS / "expected.txt", "".join(report), mask=_mask_libxml2_sentences)


def _mask_libxml2_sentences(text: str) -> str:
    return re.sub(r"^(\S.*?: error: ).*(  # xsd\.invalid)$", r"\1<libxml2's words>\2", text, flags=re.M)


def test_corpus_readme_names_every_file_with_provenance_and_licence() -> None:
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    for p in CORPUS_FILES:
        row = next(
            (line for line in readme.splitlines() if f"`{p.relative_to(CORPUS).as_posix()}`" in line), None
        )
        assert row is not None, p
        assert " @ " in row and ("BSD-3-Clause" in row or "GPL-2.0-only" in row), row
    for licence in ("GPL-2.0.txt", "QTIWorks-BSD-3-Clause.txt"):
        assert (CORPUS / "LICENSES" / licence).is_file()


def test_corpus_qti211_examples_note_and_pass() -> None:
    diags = validate.validate_xml_file(CORPUS / "qti-sdk" / "ims-2_1_1-choice.xml")
    assert [(d.severity, d.rule) for d in diags] == [(Severity.NOTE, "xml.schema-revision")]
    assert "QTI 2.1.1" in diags[0].message and "bundled QTI 2.1 schema" in diags[0].message


# --------------------------------------------------------------------------- schemaLocation rules

_ITEM = (EXAMPLES / "items/ur-capital-001.xml").read_bytes()
_OFFICIAL = b"http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"


def _with_location(extra: str, url: bytes = _OFFICIAL) -> list:
    data = _ITEM.replace(_OFFICIAL, url + (b" " + extra.encode() if extra else b""))
    assert data != _ITEM or (not extra and url == _OFFICIAL)
    return validate.validate_xml_bytes(data, "i.xml")


@pytest.mark.parametrize(
    "url",
    [
        "http://www.w3.org/Math/XMLSchema/mathml2/mathml2.xsd",  # a prefix entry of locations.json
        "http://www.imsglobal.org/xsd/imsqti_v2p1.xsd",
    ],
)
def test_bundled_urls_are_known(url: str) -> None:
    assert validate.is_bundled_schema_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://www.w3.org/Math/XMLSchema/mathml2/no-such.xsd",
        "http://www.w3.org/Math/XMLSchema/mathml2/../../../../etc/passwd",
        "http://example.org/imsqti_v2p1.xsd",
    ],
)
def test_other_urls_are_not_bundled(url: str) -> None:
    assert not validate.is_bundled_schema_url(url)


def test_schema_revision_of_the_same_namespace_is_a_note() -> None:
    url = b"http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1p2.xsd"
    (diag,) = _with_location("", url)
    assert (diag.severity, diag.rule) == (Severity.NOTE, "xml.schema-revision")
    assert "QTI 2.1.2" in diag.message


def test_unused_pair_is_a_warning_and_a_used_unknown_one_an_error() -> None:
    (unused,) = _with_location("urn:x:never-used http://example.org/x.xsd")
    assert (unused.severity, unused.rule) == (Severity.WARNING, "xml.unused-schema-location")
    (used,) = _with_location("", b"http://example.org/qti.xsd")
    assert (used.severity, used.rule) == (Severity.ERROR, "xml.remote-schema")
    assert (
        _with_location(
            "http://www.w3.org/1998/Math/MathML http://www.w3.org/Math/XMLSchema/mathml2/mathml2.xsd"
        )
        == []
    )


def test_mathml_schema_location_with_mathml_validates_against_the_full_schema() -> None:
    data = (CORPUS / "qtiworks" / "ims-math.xml").read_bytes()
    assert b"http://www.w3.org/1998/Math/MathML" in data
    assert validate.validate_xml_bytes(data, "m.xml") == []
    broken = data.replace(b"<m:mi>E</m:mi>", b"<m:mnope>E</m:mnope>")
    assert any(d.rule == "xsd.invalid" for d in validate.validate_xml_bytes(broken, "m.xml"))


# --------------------------------------------------------------------------- documents of other kinds


@pytest.mark.parametrize(
    ("ns", "location", "label"),
    [
        (
            "http://www.imsglobal.org/xsd/imsqti_v2p0",
            "http://www.imsglobal.org/xsd/imsqti_v2p0.xsd",
            "QTI 2.0",
        ),
        (
            "http://www.imsglobal.org/xsd/imsqti_v2p2",
            "http://www.imsglobal.org/xsd/qti/qtiv2p2/imsqti_v2p2.xsd",
            "QTI 2.2",
        ),
        (
            "http://www.imsglobal.org/xsd/imsqti_v2p2",
            "http://www.imsglobal.org/xsd/qti/qtiv2p2/imsqti_v2p2p3.xsd",
            "QTI 2.2.3",
        ),
    ],
)
def test_other_qti_versions_get_one_message(ns: str, location: str, label: str) -> None:
    data = _ITEM.replace(b"http://www.imsglobal.org/xsd/imsqti_v2p1", ns.encode()).replace(
        ns.encode() + b" " + _OFFICIAL.replace(b"imsqti_v2p1", ns.rsplit("/", 1)[1].encode()), b""
    )
    data = re.sub(rb'xsi:schemaLocation="[^"]*"', f'xsi:schemaLocation="{ns} {location}"'.encode(), data)
    (diag,) = validate.validate_xml_bytes(data, "v.xml")
    assert diag.rule == "qti.unsupported-version" and diag.severity is Severity.ERROR
    assert diag.message.startswith(f"{label} document (assessmentItem): lmsexport validates QTI 2.1")


@pytest.mark.parametrize(
    ("ns", "label"),
    [
        ("http://www.imsglobal.org/xsd/apip/apipv1p0/qtiitem/imsqti_v2p1", "APIP 1.0 (QTI 2.1)"),
        ("http://www.imsglobal.org/xsd/apip/apipv1p0/qtiitem/imsqti_v2p2", "APIP 1.0 (QTI 2.2)"),
    ],
)
def test_apip_documents_name_apip_and_their_qti_version(ns: str, label: str) -> None:
    data = _ITEM.replace(b'xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1"', f'xmlns="{ns}"'.encode())
    data = re.sub(rb'xsi:schemaLocation="[^"]*"', b"", data)
    (diag,) = validate.validate_xml_bytes(data, "a.xml")
    assert diag.rule == "qti.unsupported-version" and diag.severity is Severity.ERROR
    assert diag.message.startswith(f"{label} document (assessmentItem): lmsexport validates QTI 2.1")
    assert "APIP" in (diag.hint or "")


def test_apip_manifest_names_the_qti_version_of_its_resources() -> None:
    """APIP's manifest namespace names no QTI version; its resource types do."""
    manifest = (
        b'<manifest xmlns="http://www.imsglobal.org/xsd/apip/apipv1p0/imscp_v1p1" identifier="m">'
        b"<organizations/><resources>"
        b'<resource identifier="i" type="imsqti_apipitem_xmlv2p2" href="i.xml"/>'
        b'<resource identifier="c" type="controlfile/apip_xmlv1p0" href="c.xml"/>'
        b"</resources></manifest>"
    )
    (diag,) = validate.validate_xml_bytes(manifest, "imsmanifest.xml")
    assert diag.rule == "qti.unsupported-version"
    assert diag.message.startswith("APIP 1.0 (QTI 2.2) document (manifest): ")
    bare = re.sub(rb"<resources>.*</resources>", b"<resources/>", manifest)
    (diag,) = validate.validate_xml_bytes(bare, "imsmanifest.xml")
    assert diag.message.startswith("APIP 1.0 document (manifest): ")


def test_apip_extension_namespace_is_not_a_version() -> None:
    """The APIP extension plain QTI 2.1 items may carry (schemas/apip/) is no root of APIP's."""
    ext = b'<apipAccessibility xmlns="http://www.imsglobal.org/xsd/apip/apipv1p0/imsapip_qtiv1p0"/>'
    (diag,) = validate.validate_xml_bytes(ext, "x.xml")
    assert diag.rule == "xml.unknown-root"


def test_qti1_document_is_named() -> None:
    (diag,) = validate.validate_xml_bytes(b"<questestinterop><item ident='a'/></questestinterop>", "q.xml")
    assert diag.rule == "qti.unsupported-version" and diag.message.startswith("QTI 1.x document")


def test_missing_namespace_gets_a_hint() -> None:
    (diag,) = validate.validate_xml_bytes(b"<assessmentItem identifier='a'/>", "n.xml")
    assert diag.rule == "xml.unknown-root" and "xmlns=" in (diag.hint or "")


def test_standalone_section_is_validated() -> None:
    good = (CORPUS / "qti-sdk" / "standalone_assessmentsection.xml").read_bytes()
    assert validate.validate_xml_bytes(good, "s.xml") == []
    (diag,) = validate.validate_xml_bytes(good.replace(b' title="Section A"', b""), "s.xml")
    assert diag.rule == "xsd.invalid" and "'title' is required" in diag.message


def test_plain_cp_manifest_is_a_note_and_the_profile_is_silent() -> None:
    profile = (EXAMPLES / "imsmanifest.xml").read_bytes()
    assert validate.validate_xml_bytes(profile, "imsmanifest.xml") == []
    plain = re.sub(rb"<metadata>.*?</metadata>", b"", profile, count=1, flags=re.S)
    plain = re.sub(rb'xsi:schemaLocation="[^"]*"', b"", plain, count=1)
    diags = validate.validate_xml_bytes(plain, "imsmanifest.xml")
    assert [(d.severity, d.rule) for d in diags] == [(Severity.NOTE, "package.plain-cp")]


# --------------------------------------------------------------------------- package paths


@pytest.mark.parametrize(
    ("member", "href", "bases", "expected"),
    [
        ("imsmanifest.xml", "./items/q%201.xml", (), ("items/q 1.xml", False)),
        ("imsmanifest.xml", "q1.xml", ("items/",), ("items/q1.xml", False)),
        ("imsmanifest.xml", "q1.xml", ("a/", "b/"), ("a/b/q1.xml", False)),
        ("imsmanifest.xml", "q1.xml", ("items/other.xml",), ("items/q1.xml", False)),
        ("items/q1.xml", "../img/a.png", (), ("img/a.png", False)),
        ("items/q1.xml", "../../etc/passwd", (), (None, False)),
        ("items/q1.xml", "/etc/passwd", (), (None, False)),
        ("items/q1.xml", "x.png", ("../../",), (None, False)),
        ("items/q1.xml", "https://example.org/a.png", (), (None, True)),
        ("items/q1.xml", "a.png", ("https://cdn.example.org/",), (None, True)),
        ("items/q1.xml", "data:image/png;base64,AAAA", (), (None, True)),
    ],
)
def test_package_path(member: str, href: str, bases: tuple[str, ...], expected: tuple) -> None:
    assert validate.package_path(member, href, bases) == expected


@pytest.mark.parametrize(
    ("name", "debris"),
    [
        ("__MACOSX/items/._q1.xml", True),
        ("__MACOSX/._imsmanifest.xml", True),
        ("items/._q1.xml", True),
        (".DS_Store", True),
        ("items/q1.xml", False),
        ("items/MACOSX.xml", False),
    ],
)
def test_is_macos_debris(name: str, debris: bool) -> None:
    assert validate.is_macos_debris(name) is debris


def test_debris_the_manifest_names_is_read() -> None:
    """Only debris nobody names is skipped: a resource naming ._q1.xml gets it validated."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_cases", ROOT / "tests/bad/package/make_cases.py")
    assert spec is not None and spec.loader is not None
    mc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mc)
    manifest = mc.MANIFEST.replace("items/q1.xml", "items/._q1.xml")
    data = mc._zip([("imsmanifest.xml", manifest.encode()), ("items/._q1.xml", mc.APPLEDOUBLE)])
    diags = validate.validate_package(data, "p.zip")
    assert "xml.syntax" in {d.rule for d in diags if d.severity is Severity.ERROR}
    assert "package.macos-debris" not in {d.rule for d in diags}
    # Without a manifest nothing names it: still skipped, only the missing manifest is an error.
    bare = validate.validate_package(
        mc._zip([("items/q1.xml", mc.ITEM.encode()), ("._x.xml", mc.APPLEDOUBLE)])
    )
    assert {(d.rule, d.severity) for d in bare} == {
        ("package.no-manifest", Severity.ERROR),
        ("package.macos-debris", Severity.NOTE),
    }


# --------------------------------------------------------------------------- validate's reports


def test_validate_reports_and_strict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Notes never fail (not even with --strict); warnings fail only with --strict; every
    report format carries the three severities."""
    import json

    from typer.testing import CliRunner

    from lmsexport.cli import app

    good = ROOT / "tests" / "good" / "package"
    monkeypatch.chdir(tmp_path)
    for name in ("macos-debris.zip", "unused-schema-location.zip"):
        shutil.copy(good / name, name)
    run = CliRunner().invoke
    assert run(app, ["validate", "--strict", "macos-debris.zip"]).exit_code == 0
    assert run(app, ["validate", "unused-schema-location.zip"]).exit_code == 0
    assert run(app, ["validate", "--strict", "unused-schema-location.zip"]).exit_code == 1

    both = ["macos-debris.zip", "unused-schema-location.zip"]
    report = json.loads(run(app, ["validate", "--report", "json", *both]).stdout)
    assert report["ok"] is True and report["counts"]["notes"] == 1 and report["counts"]["warnings"] == 1
    assert {p["severity"] for p in report["problems"]} == {"note", "warning"}
    github = run(app, ["validate", "--report", "github", *both]).stdout
    assert github.startswith("::notice file=macos-debris.zip,") and "\n::warning file=unused-schema" in github
    junit = etree.fromstring(run(app, ["validate", "--report", "junit", "--strict", *both]).stdout.encode())
    cases = {c.get("name"): c for c in junit.iter("testcase")}
    assert sorted(cases) == both  # package members are reported under their package
    assert cases["macos-debris.zip"].find("failure") is None
    assert cases["macos-debris.zip"].findtext("system-out").count(": note: ") == 1
    assert cases["unused-schema-location.zip"].find("failure") is not None
