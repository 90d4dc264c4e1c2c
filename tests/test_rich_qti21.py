"""Rich text in QTI 2.1 items: tests/cases/rich/bank.yaml and its golden package.

Expected members live in tests/cases/rich/expected/qti21/rich-text/ (unzipped, so diffs are
readable; images byte for byte). Rewrite them with `pytest --update-golden` and review the diff.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import posixpath
import re
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from lmsexport import media as media_mod
from lmsexport import validate
from lmsexport.errors import LmsExportError
from lmsexport.mathml import MATHML_NS
from lmsexport.model import (
    Bank,
    BulletList,
    Choice,
    Code,
    Essay,
    Image,
    Link,
    Media,
    Para,
    Question,
    Quiz,
    Rich,
    SingleChoice,
    Str,
    Table,
)
from lmsexport.source import load_paths
from lmsexport.writers import WriteContext, qti21
from lmsexport.writers.qti21_package import build_qti21

CASE = Path(__file__).resolve().parent / "cases" / "rich"
EXPECTED = CASE / "expected" / "qti21" / "rich-text"
CTX = WriteContext(formats=("qti21",))
Q = f"{{{qti21.QTI_NS}}}"
M = f"{{{MATHML_NS}}}"
NS = {"q": qti21.QTI_NS, "m": MATHML_NS, "cp": "http://www.imsglobal.org/xsd/imscp_v1p1"}

# The smallest valid PNG (1x1) and SVG files: images for the synthetic banks below.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2"><rect width="4" height="2"/></svg>'


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_paths([CASE / "bank.yaml"])


@pytest.fixture(scope="module")
def built(bank: Bank):
    return build_qti21(bank, CTX)


@pytest.fixture(scope="module")
def files(built) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(built.files["qti21/rich-text.zip"])) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _item(files: dict[str, bytes], qid: str) -> etree._Element:
    return etree.fromstring(files[f"items/{qid}.xml"])


def test_golden_package(files: dict[str, bytes], golden) -> None:
    for name, data in files.items():
        golden(EXPECTED / name, data)
    stale = {p.relative_to(EXPECTED).as_posix() for p in EXPECTED.rglob("*") if p.is_file()} - set(files)
    assert not stale, f"expected files no build produces any more: {sorted(stale)}"


def test_every_member_is_schema_valid(built, files: dict[str, bytes]) -> None:
    assert validate.validate_package(built.files["qti21/rich-text.zip"], "rich-text.zip") == []
    for name, data in files.items():
        if name.endswith(".xml"):
            assert validate.validate_xml_bytes(data, name) == [], name


def test_what_qti_cannot_carry_is_warned_about(built) -> None:
    found = {(d.rule, d.message.split("'")[1]) for d in built.warnings}
    assert ("qti21.markup-lost", "rich-essay") in found  # <ol> has no start in QTI 2.1
    assert ("qti21.markup-lost", "rich-pipeline-diagram") in found  # nor <img title>
    assert ("qti21.description-plain", "rich-text") in found
    # Canvas keeps MathML (canvas_sanitize allows it): nothing to warn about.
    assert not [r for r, _ in found if "math" in r]
    assert all(d.severity.value == "warning" for d in built.warnings)


# --------------------------------------------------------------------------- markup


def test_stem_is_one_div_under_item_body(files: dict[str, bytes], bank: Bank) -> None:
    """Canvas takes the question text from itemBody's <p> and <div> children only."""
    for q in bank.quizzes[0].questions:
        body = _item(files, q.id).find(f"{Q}itemBody")
        assert body[0].tag == f"{Q}div", q.id
        blocks = [etree.QName(b).localname for b in body[0]]
        assert len(blocks) == len(q.stem.blocks)
    table = _item(files, "rich-zero-memory").find(f".//{Q}table")
    assert [c.get("class") for c in table.iter(f"{Q}th")] == ["align-left", "align-right"]


def test_code_stays_left_to_right_in_right_to_left_items(files: dict[str, bytes]) -> None:
    item = _item(files, "rich-ds-config")
    assert item.find(f"{Q}itemBody").get("class") == "rtl"
    pre = item.find(f".//{Q}pre")
    assert pre.get("class") == "ltr" and pre[0].get("class") == "language-json"
    assert pre[0].text.startswith("{\n") and pre.text in (None, "")  # no indentation added
    assert b'<pre class="ltr"><code class="language-json">{\n' in files["items/rich-ds-config.xml"]
    inline = item.findall(f".//{Q}simpleChoice//{Q}code")
    assert inline and all(c.get("class") == "ltr" for c in inline)
    css = files["css/lmsexport.css"].decode()
    assert re.search(r"\.ltr\s*\{[^}]*direction:\s*ltr;[^}]*unicode-bidi:\s*isolate", css)
    for align in ("left", "center", "right"):
        assert re.search(rf"\.align-{align}\s*\{{\s*text-align:\s*{align}", css)


def test_math_is_mathml_with_the_tex_kept(files: dict[str, bytes]) -> None:
    item = _item(files, "rich-adam-bytes")
    maths = item.findall(f".//{M}math")
    assert [m.get("display") for m in maths][:1] == ["block"]
    tex = [m.findtext(f"{M}semantics/{M}annotation") for m in maths]
    assert "2\\Psi + 2\\Psi + 12\\Psi = 16\\Psi" in tex
    # a formula inside a choice and inside the explanation
    zero = _item(files, "rich-zero-memory")
    assert zero.find(f".//{Q}simpleChoice/{M}math") is not None
    assert zero.find(f"{Q}modalFeedback//{M}math") is not None


def test_a_mathml_item_is_validated_by_the_full_schema(files: dict[str, bytes]) -> None:
    item = _item(files, "rich-zero-memory")
    full = validate.schema_for("item")
    stand_in = validate.compiled_schema_without_mathml(validate.SCHEMA_FILES["item"])
    assert validate.schema_for_tree("item", item) is full
    assert validate.validate_tree(item, "item", "x.xml") == []
    # Break the MathML only: the full schema catches it; the stand-in alone would not.
    broken = copy.deepcopy(item)
    frac = next(broken.iter(f"{M}mfrac"))
    frac.append(etree.Element(f"{M}mbogus"))
    assert stand_in.validate(broken)
    messages = [d.message for d in validate.validate_tree(broken, "item", "x.xml")]
    assert any("mbogus" in m for m in messages), messages
    # And an item without MathML takes the fast path.
    plain = _item(files, "rich-ds-config")
    assert validate.schema_for_tree("item", plain) is stand_in


def test_choice_feedback_and_explanations_survive(files: dict[str, bytes]) -> None:
    item = _item(files, "rich-zero-memory")
    choices = item.findall(f".//{Q}simpleChoice")
    # A rich choice with feedback keeps its words in one element before the feedback (Canvas
    # reads "the first child's text" of such a choice).
    assert [etree.QName(c[0]).localname for c in choices[1:]] == ["span", "span"]
    feedback = choices[1].find(f"{Q}feedbackInline")
    assert feedback.get("identifier") == "C2" and feedback.find(f"{Q}em").text == "پوری"
    explanation = item.find(f"{Q}modalFeedback")
    assert explanation.get("identifier") == qti21.EXPLANATION_ID
    assert explanation[0].tag == f"{Q}div" and explanation[0].get("class") == "rtl"


# --------------------------------------------------------------------------- images


def test_images_are_in_the_package_once_and_listed_per_item(files: dict[str, bytes]) -> None:
    media = sorted(n for n in files if n.startswith("items/media/"))
    assert media == sorted(
        f"items/media/{m.filename}"
        for m in (
            Media("x", (CASE / "img" / "bar.png").read_bytes(), "image/png"),
            Media("x", (CASE / "img" / "stages.svg").read_bytes(), "image/svg+xml"),
        )
    )
    assert files[media[0]] in (
        (CASE / "img" / "bar.png").read_bytes(),
        (CASE / "img" / "stages.svg").read_bytes(),
    )
    item = _item(files, "rich-pipeline-diagram")
    images = item.findall(f".//{Q}img")
    assert [(i.get("alt"), i.get("width"), i.get("height")) for i in images] == [
        ("Two pipeline stages: GPU 0 then GPU 1", "240", "80"),
        ("a blue bar", "48", "12"),
    ]
    shown = {posixpath.normpath(posixpath.join("items", i.get("src"))) for i in images}
    assert shown == set(media)
    manifest = etree.fromstring(files["imsmanifest.xml"])
    res = manifest.find(".//cp:resource[@identifier='RES-item-rich-pipeline-diagram']", NS)
    assert [f.get("href") for f in res.iterfind("cp:file", NS)] == [
        "items/rich-pipeline-diagram.xml",
        *[posixpath.normpath(posixpath.join("items", i.get("src"))) for i in images],
    ]


def _image_quiz(images: list[Media], qids: tuple[str, ...] = ("a", "b")) -> Quiz:
    def stem(media: Media) -> Rich:
        return Rich((Para((Str("see "), Image(media, "alt text"))),))

    questions = tuple(
        Question(id=qid, stem=Rich(tuple(b for m in images for b in stem(m).blocks)), body=Essay())
        for qid in qids
    )
    return Quiz(id="pics", title="t", lang="en", questions=questions)


def test_an_image_shown_by_two_questions_is_one_file(golden) -> None:
    png = Media("a.png", PNG, "image/png", 1, 1)
    quiz = _image_quiz([png, dataclasses.replace(png, name="copy.png")])
    data = build_qti21(Bank((quiz,)), CTX).files["qti21/pics.zip"]
    assert validate.validate_package(data, "pics.zip") == []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = zf.namelist()
        manifest = etree.fromstring(zf.read("imsmanifest.xml"))
    assert [n for n in names if n.startswith("items/media/")] == [f"items/media/{png.filename}"]
    for qid in ("a", "b"):
        res = manifest.find(f".//cp:resource[@identifier='RES-item-{qid}']", NS)
        assert [f.get("href") for f in res.iterfind("cp:file", NS)] == [
            f"items/{qid}.xml",
            qti21.media_path(png),
        ]


def test_the_images_of_a_package_have_a_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    png = Media("a.png", PNG, "image/png", 1, 1)
    svg = Media("b.svg", SVG, "image/svg+xml", 4, 2)
    quiz = _image_quiz([png, svg])
    monkeypatch.setattr(media_mod, "MAX_PACKAGE_MEDIA_BYTES", len(PNG) + len(SVG) - 1)
    with pytest.raises(LmsExportError) as caught:
        build_qti21(Bank((quiz,)), CTX)
    (diag,) = caught.value.diagnostics
    assert diag.rule == "qti21.media-too-large" and "qti21/pics.zip" in diag.message
    assert png.filename in (diag.hint or "")
    monkeypatch.setattr(media_mod, "MAX_PACKAGE_MEDIA_BYTES", len(PNG) + len(SVG))
    assert list(build_qti21(Bank((quiz,)), CTX).files) == ["qti21/pics.zip"]


def test_a_missing_image_is_reported_by_validate(built) -> None:
    """An image an item shows must be in the package, even when the manifest does not list it."""
    data = built.files["qti21/rich-text.zip"]
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {n: zf.read(n) for n in zf.namelist() if not n.endswith(".png")}
    manifest = etree.fromstring(members["imsmanifest.xml"])
    for f in list(manifest.iterfind(".//cp:file", NS)):
        if f.get("href").endswith(".png"):
            f.getparent().remove(f)
    members["imsmanifest.xml"] = etree.tostring(manifest)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, body in members.items():
            zf.writestr(name, body)
    (diag,) = validate.validate_package(buf.getvalue(), "p.zip")
    assert diag.rule == "package.missing-asset" and diag.loc.path == "p.zip!items/rich-pipeline-diagram.xml"
    assert "img src='media/" in diag.message and "not in the package" in diag.message
    # An image that points out of the package is reported as such.
    item = members["items/rich-pipeline-diagram.xml"].replace(b'src="media/', b'src="../../../media/', 1)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, body in {**members, "items/rich-pipeline-diagram.xml": item}.items():
            zf.writestr(name, body)
    messages = [d.message for d in validate.validate_package(buf.getvalue(), "p.zip")]
    assert any("points outside the package" in m for m in messages), messages


# --------------------------------------------------------------------------- what QTI cannot hold


def test_feedback_is_flattened_to_inline_content_with_a_warning() -> None:
    feedback = Rich(
        (
            Para((Str("not quite:"),)),
            BulletList(((Para((Str("one"),)),), (Para((Code("two"),)),))),
        )
    )
    q = Question(
        id="fb",
        stem="?",
        body=SingleChoice((Choice("a", credit=1.0), Choice("b", feedback=feedback))),
        explanation=Rich((Para((Link("https://example.org/x", (Str("see"),), title="t"),)),)),
    )
    quiz = Quiz(id="flat", title="t", lang="ur", questions=(q,))
    out = build_qti21(Bank((quiz,)), CTX)
    lost = sorted(d.message for d in out.warnings if d.rule == "qti21.markup-lost")
    assert len(lost) == 2 and "feedbackInline" in lost[0] and "'t' of a link" in lost[1]
    item = qti21.item_tree(quiz, q)
    fb = item.find(f".//{Q}feedbackInline")
    assert not [el for el in fb.iter() if etree.QName(el).localname in ("ul", "li", "p")]
    assert "".join(fb.itertext()) == "not quite:one / two"
    assert validate.validate_tree(item, "item", "fb") == []


def test_a_table_with_a_header_only_is_valid() -> None:
    table = Table(header=(((Str("h1"),), (Str("h2"),))), rows=(), aligns=("center", None))
    q = Question(id="t", stem=Rich((table,)), body=Essay())
    item = qti21.item_tree(Quiz(id="z", title="t", lang="en", questions=(q,)), q)
    assert validate.validate_tree(item, "item", "t") == []
    body = item.find(f".//{Q}tbody")
    assert [c.text for c in body.iter(f"{Q}th")] == ["h1", "h2"]
