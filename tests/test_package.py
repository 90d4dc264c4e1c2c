"""QTI 2.1 packages: deterministic zips, a complete manifest, and broken or hostile packages."""

from __future__ import annotations

import dataclasses
import io
import os
import posixpath
import re
import stat
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from lmsexport import package, validate
from lmsexport.errors import SchemaValidationError, Severity
from lmsexport.model import Bank, Quiz, SourceLoc
from lmsexport.writers import WriteContext, get_writer, qti21
from lmsexport.writers import qti21_package as qp

ROOT = Path(__file__).resolve().parents[1]
CP = {"cp": package.CP_NS}
CTX = WriteContext(formats=("qti21",), timestamp=1700000000)


def build(bank: Bank, ctx: WriteContext = CTX) -> bytes:
    (data,) = qp.build_qti21(bank, ctx).files.values()
    return data


@pytest.fixture
def good(types_bank: Bank) -> bytes:
    return build(types_bank)


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def rezip(files: dict[str, bytes], infos: dict[str, dict] | None = None) -> bytes:
    """A zip of ``files``; ``infos`` overrides ZipInfo attributes per member."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            for key, value in (infos or {}).get(name, {}).items():
                setattr(info, key, value)
            zf.writestr(info, data)
    return buf.getvalue()


def rules(diags) -> set[str]:
    return {d.rule for d in diags if d.severity is Severity.ERROR}


# --------------------------------------------------------------------------- the writer entry


def test_registry_points_here(types_bank: Bank) -> None:
    out = get_writer("qti21")(types_bank, CTX)
    assert list(out.files) == ["qti21/all-types.zip"]
    assert [w.rule for w in out.warnings] == [
        "qti21.canvas-true-false",  # Urdu labels
        "qti21.canvas-short-answer",  # two accepted answers
        "qti21.canvas-numerical",
    ]
    assert all(w.severity is Severity.WARNING and w.loc.path == "all-types" for w in out.warnings)


def test_built_package_validates(good: bytes) -> None:
    assert validate.validate_package(good, "all-types.zip") == []


# --------------------------------------------------------------------------- determinism


def test_two_builds_are_identical(types_bank: Bank) -> None:
    assert build(types_bank) == build(types_bank)


def test_independent_of_the_time_zone(types_bank: Bank) -> None:
    script = (
        "import sys; sys.path.insert(0, 'tests'); import conftest, hashlib;"
        "from lmsexport.writers.qti21_package import build_qti21; from lmsexport.writers import WriteContext;"
        "bank = conftest.Bank((conftest.make_types_quiz(),));"
        "out = build_qti21(bank, WriteContext(('qti21',), 1700000000));"
        "print(hashlib.sha256(out.files['qti21/all-types.zip']).hexdigest())"
    )
    digests = set()
    for tz in ("UTC", "Asia/Karachi", "America/St_Johns"):
        env = {**os.environ, "TZ": tz}
        run = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        digests.add(run.stdout.strip())
    assert len(digests) == 1
    import hashlib

    assert digests == {hashlib.sha256(build(types_bank)).hexdigest()}


def test_entries_order_times_and_modes(good: bytes) -> None:
    with zipfile.ZipFile(io.BytesIO(good)) as zf:
        infos = zf.infolist()
    names = [i.filename for i in infos]
    assert names[0] == "imsmanifest.xml" and names[1:] == sorted(names[1:])
    assert all(i.date_time == (2023, 11, 14, 22, 13, 20) for i in infos)  # 1700000000 in UTC
    assert all(i.compress_type == zipfile.ZIP_DEFLATED and i.create_system == 3 for i in infos)
    assert all(i.external_attr >> 16 == 0o100644 for i in infos)
    assert not any(i.is_dir() or i.extra for i in infos)


@pytest.mark.parametrize(
    ("timestamp", "expected"),
    [(0, (1980, 1, 1, 0, 0, 0)), (315532800, (1980, 1, 1, 0, 0, 0)), (10**11, (2107, 12, 31, 23, 59, 58))],
)
def test_zip_time_is_clamped_utc(timestamp: int, expected: tuple[int, ...]) -> None:
    assert package.zip_time(timestamp) == expected


def test_xml_members_are_serialised_the_same_way(good: bytes) -> None:
    for name, data in members(good).items():
        if name.endswith(".xml"):
            assert data.startswith(b"<?xml version='1.0' encoding='UTF-8'?>\n")
            assert data.endswith(b">\n") and b"\n  <" in data


# --------------------------------------------------------------------------- manifest


def test_manifest_lists_every_file_and_every_file_is_listed(good: bytes, types_quiz: Quiz) -> None:
    files = members(good)
    manifest = etree.fromstring(files["imsmanifest.xml"])
    hrefs = {f.get("href") for f in manifest.iterfind(".//cp:file", CP)}
    assert hrefs == set(files) - {"imsmanifest.xml"}
    resources = {r.get("identifier"): r for r in manifest.iterfind(".//cp:resource", CP)}
    for res in resources.values():
        assert res.get("href") in hrefs
        for dep in res.iterfind("cp:dependency", CP):
            assert dep.get("identifierref") in resources
    test = resources[qp.test_resource_id(types_quiz)]
    assert test.get("type") == "imsqti_test_xmlv2p1"
    deps = [d.get("identifierref") for d in test.iterfind("cp:dependency", CP)]
    assert deps == [qp.item_resource_id(q) for q in types_quiz.questions]
    assert resources[qp.STYLESHEET_RESOURCE].get("type") == "webcontent"


def test_manifest_metadata(good: bytes, types_quiz: Quiz) -> None:
    manifest = etree.fromstring(members(good)["imsmanifest.xml"])
    assert manifest.findtext("cp:metadata/cp:schema", namespaces=CP) == "QTIv2.1 Package"
    assert manifest.findtext("cp:metadata/cp:schemaversion", namespaces=CP) == "1.0.0"
    assert len(manifest.find("cp:organizations", CP)) == 0
    ns = {**CP, "md": qp.QTIMD_NS, "lom": package.LOM_NS}
    for q in types_quiz.questions:
        res = manifest.find(f".//cp:resource[@identifier='{qp.item_resource_id(q)}']", CP)
        meta = res.find("cp:metadata", CP)
        assert [etree.QName(c).localname for c in meta] == ["qtiMetadata", "lom"]
        assert meta.findtext("md:qtiMetadata/md:interactionType", namespaces=ns) == qti21.INTERACTIONS[q.type]
        assert meta.findtext("lom:lom/lom:general/lom:language", namespaces=ns) == types_quiz.lang_of(q)
        deps = [d.get("identifierref") for d in res.iterfind("cp:dependency", CP)]
        assert deps == [qp.STYLESHEET_RESOURCE]


# --------------------------------------------------------------------------- our own bugs


def _break_items(monkeypatch: pytest.MonkeyPatch) -> None:
    real = qti21.build_item

    def broken(quiz, question):
        built = real(quiz, question)
        built.tree.find(f"{{{qti21.QTI_NS}}}itemBody/{{{qti21.QTI_NS}}}p").set("dir", "rtl")
        return built

    monkeypatch.setattr(qti21, "build_item", broken)


def test_an_invalid_member_raises_and_produces_no_zip(
    monkeypatch: pytest.MonkeyPatch, types_quiz: Quiz
) -> None:
    _break_items(monkeypatch)
    other = dataclasses.replace(types_quiz, id="second")
    with pytest.raises(SchemaValidationError) as err:
        qp.build_qti21(Bank((types_quiz, other)), CTX)
    paths = {d.loc.path for d in err.value.diagnostics}
    # Every invalid item of every quiz is reported, not only the first.
    assert "qti21/all-types.zip!items/t-single.xml" in paths
    assert "qti21/second.zip!items/t-essay.xml" in paths
    assert len(paths) == 2 * len(types_quiz.questions)
    # Each names the attribute at fault (the sentence around it is libxml2's).
    assert all(d.rule == "xsd.invalid" and re.search(r"\bdir\b", d.message) for d in err.value.diagnostics)


# --------------------------------------------------------------------------- broken packages


def test_invalid_item_in_a_package(good: bytes) -> None:
    files = members(good)
    files["items/t-single.xml"] = files["items/t-single.xml"].replace(b'maxChoices="1"', b'maxChoices="one"')
    diags = validate.validate_package(rezip(files), "p.zip")
    assert rules(diags) == {"xsd.invalid"}
    (diag,) = diags
    assert diag.loc.path == "p.zip!items/t-single.xml" and diag.loc.line > 0
    assert diag.format().startswith(f"p.zip!items/t-single.xml:{diag.loc.line}: error: ")


def test_missing_file(good: bytes) -> None:
    files = members(good)
    del files["items/t-matching.xml"]
    diags = validate.validate_package(rezip(files), "p.zip")
    missing = [d for d in diags if d.rule == "package.missing-file"]
    assert missing and all("t-matching.xml" in d.message for d in missing)
    assert {d.loc.path for d in missing} == {"p.zip!imsmanifest.xml", "p.zip!tests/all-types.xml"}


def test_bad_manifest(good: bytes) -> None:
    files = members(good)
    files["imsmanifest.xml"] = files["imsmanifest.xml"].replace(b"<schemaversion>1.0.0</schemaversion>", b"")
    diags = validate.validate_package(rezip(files), "p.zip")
    assert rules(diags) == {"xsd.invalid"} and diags[0].loc.path == "p.zip!imsmanifest.xml"


def test_no_manifest(good: bytes) -> None:
    files = members(good)
    del files["imsmanifest.xml"]
    assert "package.no-manifest" in rules(validate.validate_package(rezip(files), "p.zip"))


def test_item_not_in_the_manifest(good: bytes) -> None:
    files = members(good)
    files["items/stray.xml"] = files["items/t-single.xml"]
    diags = validate.validate_package(rezip(files), "p.zip")
    assert rules(diags) == {"package.unlisted-item"}
    assert diags[0].loc.path == "p.zip!items/stray.xml"


def test_href_leaving_the_package(good: bytes) -> None:
    files = members(good)
    files["imsmanifest.xml"] = files["imsmanifest.xml"].replace(
        b'<file href="css/lmsexport.css"/>', b'<file href="../../etc/passwd"/>'
    )
    assert "package.unsafe-path" in rules(validate.validate_package(rezip(files), "p.zip"))


def test_not_a_zip(tmp_path: Path) -> None:
    f = tmp_path / "x.zip"
    f.write_bytes(b"not a zip")
    (diag,) = validate.validate_package(f)
    assert diag.rule == "package.bad-zip" and diag.loc.path == str(f)


# --------------------------------------------------------------------------- hostile zips


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("../evil.xml", "'..'"),
        ("items/../../evil.xml", "'..'"),
        ("/etc/evil.xml", "absolute"),
        ("items\\evil.xml", "backslash"),
        ("C:/evil.xml", "drive letter"),
    ],
)
def test_unsafe_member_names(good: bytes, name: str, why: str) -> None:
    files = {**members(good), name: b"<x/>"}
    diags = validate.validate_package(rezip(files), "p.zip")
    assert rules(diags) == {"package.unsafe-path"}
    assert why in diags[0].message and diags[0].loc.path == f"p.zip!{name}"


def test_symlink_member(good: bytes) -> None:
    files = {**members(good), "items/link.xml": b"/etc/passwd"}
    data = rezip(files, {"items/link.xml": {"external_attr": (stat.S_IFLNK | 0o777) << 16}})
    assert rules(validate.validate_package(data, "p.zip")) == {"package.symlink"}


def test_duplicate_member(good: bytes) -> None:
    buf = io.BytesIO(good)
    with zipfile.ZipFile(buf, "a") as zf, pytest.warns(UserWarning, match="Duplicate name"):
        zf.writestr("items/t-single.xml", b"<x/>")
    assert rules(validate.validate_package(buf.getvalue(), "p.zip")) == {"package.duplicate"}


def _headers(data: bytes, name: str) -> tuple[int, int]:
    """Offsets of a member's local header and central-directory header."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        local = zf.getinfo(name).header_offset
    raw = name.encode()
    central = data.find(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(raw)] != raw:
        central = data.find(b"PK\x01\x02", central + 4)
    return local, central


def test_encrypted_member(good: bytes) -> None:
    # zipfile cannot write encrypted members: set the "encrypted" flag bit in both headers.
    data = bytearray(good)
    local, central = _headers(good, "items/t-essay.xml")
    data[local + 6] |= 0x1
    data[central + 8] |= 0x1
    diags = validate.validate_package(bytes(data), "p.zip")
    assert rules(diags) == {"package.encrypted"} and diags[0].loc.path == "p.zip!items/t-essay.xml"


def test_zip_bomb_is_refused_before_inflating(good: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {**members(good), "items/bomb.xml": b"<a>" + b" " * (4 * 1024 * 1024) + b"</a>"}
    data = rezip(files)

    def no_read(*args, **kwargs):
        raise AssertionError("a member was inflated")

    monkeypatch.setattr(zipfile.ZipFile, "open", no_read)
    diags = validate.validate_package(data, "p.zip")
    assert rules(diags) == {"package.ratio"} and "zip bomb" in diags[0].message


def test_size_limits(good: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validate, "MAX_MEMBER_BYTES", 1000)
    assert "package.too-large" in rules(validate.validate_package(good, "p.zip"))
    monkeypatch.setattr(validate, "MAX_MEMBER_BYTES", 10**9)
    monkeypatch.setattr(validate, "MAX_TOTAL_BYTES", 5000)
    diags = validate.validate_package(good, "p.zip")
    assert rules(diags) == {"package.too-large"} and diags[0].loc.path == "p.zip"
    monkeypatch.setattr(validate, "MAX_TOTAL_BYTES", 10**9)
    monkeypatch.setattr(validate, "MAX_MEMBERS", 3)
    assert rules(validate.validate_package(good, "p.zip")) == {"package.too-many"}


def test_member_larger_than_its_header_says(good: bytes) -> None:
    """The central directory may lie: the size is enforced again while inflating."""
    size = zipfile.ZipFile(io.BytesIO(good)).getinfo("items/t-single.xml").file_size
    data = bytearray(good)
    local, central = _headers(good, "items/t-single.xml")
    true_size, fake_size = size.to_bytes(4, "little"), (size // 2).to_bytes(4, "little")
    assert data[local + 22 : local + 26] == true_size and data[central + 24 : central + 28] == true_size
    data[local + 22 : local + 26] = fake_size
    data[central + 24 : central + 28] = fake_size
    diags = validate.validate_package(bytes(data), "p.zip")
    # zipfile stops at the declared size and then fails the CRC; _read_member's own limit is a
    # second line for readers that do not.
    bad = [d for d in diags if d.rule in ("package.too-large", "package.bad-member")]
    assert bad and bad[0].loc.path == "p.zip!items/t-single.xml", diags


# --------------------------------------------------------------------------- hostile XML


XXE = b"""<?xml version="1.0"?>
<!DOCTYPE assessmentItem [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1">&xxe;</assessmentItem>
"""
LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<lolz>&lol3;</lolz>
"""
EXTERNAL_DTD = b"""<?xml version="1.0"?>
<!DOCTYPE manifest SYSTEM "http://127.0.0.1:9/evil.dtd">
<manifest/>
"""


@pytest.mark.parametrize(
    "payload",
    [
        XXE,
        LAUGHS,
        EXTERNAL_DTD,
        XXE.decode().replace('"1.0"?>', '"1.0" encoding="UTF-16"?>').encode("utf-16"),
    ],
)
def test_doctype_is_refused(good: bytes, tmp_path: Path, payload: bytes) -> None:
    diags = validate.validate_package(rezip({**members(good), "items/t-single.xml": payload}), "p.zip")
    assert "xml.doctype" in rules(diags)
    assert [d for d in diags if d.rule == "xml.doctype"][0].loc.path == "p.zip!items/t-single.xml"
    f = tmp_path / "x.xml"
    f.write_bytes(payload)
    (diag,) = validate.validate_xml_file(f)
    assert diag.rule == "xml.doctype" and "refused" in diag.message


def test_not_well_formed(good: bytes) -> None:
    diags = validate.validate_package(rezip({**members(good), "items/t-single.xml": b"<a><b></a>"}), "p.zip")
    syntax = [d for d in diags if d.rule == "xml.syntax"]
    assert syntax and syntax[0].loc.path == "p.zip!items/t-single.xml" and syntax[0].loc.line == 1


def test_package_from_disk(tmp_path: Path, good: bytes) -> None:
    f = tmp_path / "ok.zip"
    f.write_bytes(good)
    assert validate.validate_package(f) == []
    assert validate.validate_package(tmp_path / "missing.zip")[0].rule == "package.missing"


def test_timing_is_reasonable(types_bank: Bank) -> None:
    """Not a benchmark: catches an accidental re-parse or re-compile per item."""
    qp.build_qti21(types_bank, CTX)  # compile the schemas
    quiz = types_bank.quizzes[0]
    big = dataclasses.replace(
        quiz,
        questions=tuple(dataclasses.replace(q, id=f"{q.id}-{i}") for i in range(100) for q in quiz.questions),
    )
    start = time.perf_counter()
    qp.build_qti21(Bank((big,)), CTX)
    assert time.perf_counter() - start < 10  # 700 items; ~0.3 s on a laptop
    assert posixpath.basename(qp.package_path(big)) == "all-types.zip"


def test_reading_stops_at_the_limit(good: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validate, "MAX_MEMBER_BYTES", 100)
    with zipfile.ZipFile(io.BytesIO(good)) as zf:
        assert validate._read_member(zf, zf.getinfo("imsmanifest.xml")) is None
    monkeypatch.setattr(validate, "MAX_MEMBER_BYTES", 10**9)
    with zipfile.ZipFile(io.BytesIO(good)) as zf:
        assert validate._read_member(zf, zf.getinfo("imsmanifest.xml")) == members(good)["imsmanifest.xml"]


@pytest.mark.parametrize(
    ("blob", "rule"),
    [
        # Found by fuzz/fuzz.py: a local-header offset that seeks before the start of the file.
        (
            "UEsDBBQAAAAAAGaOfV3tN8mLCwAAAAsAAAAPAAAAaW1zbWFuaWZlc3QueG1sPG1hbmlmZXN0Lz5QSwECFAMUAAAAAABmjn1d7TfJiwsAAA"
            "ALAAAADwAAAAAAAAAAAAAAgAEAAAAAaW1zbWFuaWZlc3QueG1sUEsFBgAAAAABAAEAPQAAAMgAAAAAAA==",
            "package.bad-member",
        ),
        # Found by fuzz/fuzz.py: a member with an empty name.
        (
            "UEsDBBQAAAAAAGyOfV3tN8mLCwAAAAsAAAAPAAAAaW1zbWFuaWZlc3QueG1sPG9hbmlmZXN0Lz5QSwECFAMUAAAAAABsjn1d7TfJiwsAAA"
            "ALAAAADwAAAAAAAAAAAAAAAIABAAAAAGltc21hbmZ4c2V0LmxtUEsFBgAAAAABAAEAPQAAADgAAAAAAA==",
            "package.unsafe-path",
        ),
    ],
)
def test_fuzz_regressions(blob: str, rule: str) -> None:
    import base64

    diags = validate.validate_package(base64.b64decode(blob), "f.zip")
    assert rule in rules(diags), diags


def test_only_stored_and_deflated(good: bytes) -> None:
    data = rezip(members(good), {"items/t-essay.xml": {"compress_type": zipfile.ZIP_BZIP2}})
    assert rules(validate.validate_package(data, "p.zip")) == {"package.compression"}


# --------------------------------------------------------------------------- pre-compressed members


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=3000), min_size=1, max_size=5))
def test_pieces_compressed_apart_join_into_one_member(pieces: list[bytes]) -> None:
    """A member compressed in pieces (a cartridge's bank, from every quiz's part): the joined
    DEFLATE stream inflates to the whole, and the CRC-32 combined from the pieces' is the
    whole's (crc32_combine, zlib's algorithm, which Python's zlib does not expose)."""
    import zlib

    from lmsexport.package import crc32_combine, deflate, join_deflated

    joined = join_deflated([deflate(p, final=False) for p in pieces[:-1]] + [deflate(pieces[-1])])
    whole = b"".join(pieces)
    assert zlib.decompress(joined.data, -15) == whole
    assert (joined.crc, joined.size) == (zlib.crc32(whole), len(whole))
    first, rest = pieces[0], b"".join(pieces[1:])
    assert crc32_combine(zlib.crc32(first), zlib.crc32(rest), len(rest)) == zlib.crc32(whole)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.text("ab/ضص.", min_size=1, max_size=8), st.binary(max_size=500)),
        max_size=5,
        unique_by=lambda t: t[0],
    )
)
def test_a_zip_of_precompressed_members_is_zipfiles_zip(members: list[tuple[str, bytes]]) -> None:
    """zip_deflated writes the bytes zipfile writes (zip_stream) for the same members."""
    from lmsexport.package import deflate, zip_deflated, zip_stream

    entries = [("imsmanifest.xml", b"<m/>"), *members]
    expected = zip_stream(iter(entries), 315532800, sorted_=False)
    assert zip_deflated(((p, deflate(d)) for p, d in entries), 315532800) == expected
    with zipfile.ZipFile(io.BytesIO(expected)) as zf:
        assert zf.testzip() is None


def test_check_s_zip_level_does_not_leak_into_builds() -> None:
    """check makes no zip of what it throws away (package.discarding); a build in the same
    process afterwards, and one inside the level's scope that raised, still compress as always."""
    from lmsexport.build import build, check_files
    from lmsexport.package import ZIP_LEVEL, _zip_level, zip_level
    from lmsexport.source import load_paths

    source = Path(__file__).resolve().parents[1] / "source" / "zero-sharded-optimizers.yaml"
    bank = load_paths([source])
    before = build(bank, ["qti21"]).files
    assert check_files([source], 315532800).loaded
    with pytest.raises(RuntimeError), zip_level(0):
        raise RuntimeError
    assert _zip_level.get() == ZIP_LEVEL
    assert build(bank, ["qti21"]).files == before
    with zip_level(0):
        assert build(bank, ["qti21"]).files != before  # the level does reach the zips


def test_discarding_checks_members_but_makes_no_zip() -> None:
    """Within package.discarding() the zip writers check their members as always and give no
    bytes; what runs while the members are produced (a cartridge validates its assessments'
    documents in its member generator) still runs."""
    from lmsexport.package import Deflated, deflate, discarding, zip_deflated, zip_stream

    with discarding():
        assert zip_stream(iter([("imsmanifest.xml", b"<m/>"), ("a.xml", b"x")]), 0) == b""
        with pytest.raises(ValueError, match="out of order"):
            zip_stream(iter([("imsmanifest.xml", b"<m/>"), ("b", b""), ("a", b"")]), 0)
        with pytest.raises(ValueError, match="repeated"):
            zip_deflated(iter([("a", deflate(b"1")), ("a", deflate(b"2"))]), 0)
        d = deflate(b"12345")
        assert (d.data, d.size) == (b"", 5)
        produced: list[str] = []

        def members() -> Iterator[tuple[str, Deflated]]:
            for p in ("imsmanifest.xml", "x.xml", "y.xml"):
                produced.append(p)
                yield p, deflate(b"data")

        assert zip_deflated(members(), 0) == b""
        assert produced == ["imsmanifest.xml", "x.xml", "y.xml"]
    assert deflate(b"12345").data != b""  # and out of it, as always


def test_check_serialises_no_document_whose_zip_it_throws_away(monkeypatch: pytest.MonkeyPatch) -> None:
    """Within discarding() the QTI 2.1 and QTI 1.2 packages' documents are validated but not
    serialised (zip_stream never reads their bytes; package.serialized), while an invalid one is
    still reported; out of it every document is serialised and the zips are as always."""
    from lmsexport import package
    from lmsexport.build import build
    from lmsexport.errors import SchemaValidationError
    from lmsexport.source import load_paths
    from lmsexport.writers import WriteContext, qti12, qti21_package

    source = Path(__file__).resolve().parents[1] / "source" / "zero-sharded-optimizers.yaml"
    bank = load_paths([source])
    before = build(bank, ["qti21", "qti12"]).files
    real = package.serialize
    calls: list[str] = []

    def counting(tree: Any) -> bytes:
        calls.append(etree.QName(tree).localname)
        return real(tree)

    monkeypatch.setattr(package, "serialize", counting)
    ctx = WriteContext(formats=("qti21", "qti12"), timestamp=0)
    with package.discarding():
        assert all(data == b"" for data in qti21_package.build_qti21(bank, ctx).files.values())
        assert all(data == b"" for data in qti12.build_qti12(bank, ctx).files.values())
    assert calls == []
    assert build(bank, ["qti21", "qti12"]).files == before
    assert "assessmentItem" in calls and "questestinterop" in calls
    # What is not serialised is still validated: an item made invalid is reported.
    from lmsexport.writers import qti21

    made = qti21.build_item

    def broken(*args: Any, **kw: Any) -> Any:
        item = made(*args, **kw)
        item.tree.set("adaptive", "sometimes")
        return item

    monkeypatch.setattr(qti21, "build_item", broken)
    with package.discarding(), pytest.raises(SchemaValidationError, match="adaptive"):
        qti21_package.build_qti21(bank, ctx)


def test_check_still_reports_what_a_cartridge_assembly_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """check assembles the cartridges without zipping them (package.discarding), and what the
    assembly's validation finds is still reported: here a problem made up for every document
    the assembly validates in the parent (the manifest, and an assessment's documents)."""
    from lmsexport import validate_qti12
    from lmsexport.build import check_files
    from lmsexport.errors import Diagnostic

    real = validate_qti12.validate_cc_tree
    made: list[str] = []

    def failing(tree: Any, kind: str, where: str, *args: Any, **kw: Any) -> Any:
        found = real(tree, kind, where, *args, **kw)
        if kind == "cc-manifest":
            made.append(where)
            found = [*found, Diagnostic(SourceLoc(where), "made up")]
        return found

    monkeypatch.setattr(validate_qti12, "validate_cc_tree", failing)
    source = Path(__file__).resolve().parents[1] / "source" / "zero-sharded-optimizers.yaml"
    result = check_files([source], 315532800)
    assert sorted(made) == ["cc/bank.imscc!imsmanifest.xml", "cc11/bank-cc11.imscc!imsmanifest.xml"]
    assert sorted(d.loc.path for d in result.writers if d.message == "made up") == sorted(made)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=64), st.binary(max_size=64), st.integers(0, 1 << 22))
def test_crc32_combine_is_zlibs_over_long_members(first: bytes, tail: bytes, zeros: int) -> None:
    """crc32_combine by its byte tables, for a second part of up to 4 MiB (a cartridge's bank
    at 100,000 questions is ~20 MB of XML in ~1,000 pieces): the CRC-32 zlib gives the whole,
    and what the operators' plain GF(2) products give (package._gf2_times, the definition)."""
    import zlib

    from lmsexport.package import _gf2_times, _zeros_operator, crc32_combine

    rest = tail + bytes(zeros)
    crc1, crc2 = zlib.crc32(first), zlib.crc32(rest)
    assert crc32_combine(crc1, crc2, len(rest)) == zlib.crc32(rest, crc1)
    slow, length, power = crc1, len(rest), 0
    while length:
        if length & 1:
            slow = _gf2_times(_zeros_operator(power), slow)
        length, power = length >> 1, power + 1
    assert crc32_combine(crc1, crc2, len(rest)) == slow ^ crc2
