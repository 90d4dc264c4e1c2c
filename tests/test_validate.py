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
