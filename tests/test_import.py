"""`lmsexport import`: the command (exit codes, staging, --force, reports), ids, texts and images,
assessments from question groups and QTI selections, and what each reader keeps and reports."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from pathlib import Path

import pytest
from strategies import _tiny_png
from typer.testing import CliRunner

from lmsexport.cli import app
from lmsexport.importer import find_sources, read_sources, slug
from lmsexport.model import (
    Image,
    Math,
    MultipleChoice,
    Para,
    Rich,
    ShortAnswer,
    SingleChoice,
    Str,
    inlines_of,
)
from lmsexport.source import load_paths

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "import"

GIFT = """// question: 1  name: Colours
::Colours::What's between orange and green?{
=yellow#right
~red#wrong
~blue
####Yellow lies between them.}

::Capital::[html]The capital of France is?{=Paris =paris}

// a cloze question Moodle knows and lmsexport does not
$CATEGORY: $course$/top/Geography/Europe

::Rivers::[html]Which river flows through Paris?{
=Seine#Right.
~Loire
}
"""


def _run(*args: str):  # -> Result
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# --------------------------------------------------------------------------- the command


def test_gift_import_then_check_and_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The docs' example: import a GIFT file, check it, build it."""
    monkeypatch.chdir(tmp_path)
    Path("moodle.gift").write_text(GIFT, encoding="utf-8")
    result = _run("import", "moodle.gift", "--out", "source", "--lang", "en")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "imported 3 questions from 1 file"
    assert sorted(_snapshot(Path("source"))) == ["europe.yaml", "moodle.yaml"]
    europe = Path("source/europe.yaml").read_text(encoding="utf-8")
    assert 'category: "Geography/Europe"' in europe and 'id: "rivers"' in europe
    moodle = Path("source/moodle.yaml").read_text(encoding="utf-8")
    assert "markup" not in moodle and 'stem: "The capital of France is?"' in moodle
    assert 'explanation: "Yellow lies between them."' in moodle
    check = _run("check", "source")
    assert check.exit_code == 0, check.stderr
    assert check.stdout.startswith("ok: 2 quizzes, 3 questions")
    build = _run("build", "source", "--out", "dist", "--format", "gift", "--format", "qti21")
    assert build.exit_code == 0, build.stderr
    assert Path("dist/gift/europe.gift.txt").is_file() and Path("dist/qti21/moodle.zip").is_file()


def test_existing_files_need_force_and_nothing_is_half_written(tmp_path: Path) -> None:
    src = tmp_path / "a.gift"
    src.write_text(GIFT, encoding="utf-8")
    out = tmp_path / "bank"
    assert _run("import", str(src), "--out", str(out), "--lang", "en").exit_code == 0
    first = _snapshot(out)
    # The same import again: nothing changes, nothing is in the way.
    again = _run("import", str(src), "--out", str(out), "--lang", "en")
    assert again.exit_code == 0 and "wrote 0 file(s)" in again.stdout
    # Another language changes the files: usage error without --force, and OUT untouched.
    (out / "moodle-notes.txt").write_text("mine", encoding="utf-8")
    before = _snapshot(out)
    refused = _run("import", str(src), "--out", str(out), "--lang", "ur")
    assert refused.exit_code == 2
    assert "already exist with other content" in refused.stderr and "--force" in refused.stderr
    assert _snapshot(out) == before
    forced = _run("import", str(src), "--out", str(out), "--lang", "ur", "--force")
    assert forced.exit_code == 0, forced.stderr
    after = _snapshot(out)
    assert after["moodle-notes.txt"] == b"mine"  # files the import does not write are left alone
    assert after["a.yaml"] != first["a.yaml"] and b'lang: "ur"' in after["a.yaml"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".lmsexport-import-")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no/such.gift", "--out", "o"], "no such file or directory"),
        (["notes.pdf", "--out", "o"], "this file is none of them"),
        (["a.gift", "--out", "a.gift"], "--out must be a folder"),
        (["a.gift", "--out", "o", "--lang", "urdu"], "not a valid BCP 47"),
        (["a.gift"], "Missing option '--out'"),
    ],
)
def test_usage_errors(args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.gift").write_text(GIFT, encoding="utf-8")
    Path("notes.pdf").write_bytes(b"%PDF-1.4")
    before = _snapshot(tmp_path)
    result = _run("import", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert _snapshot(tmp_path) == before


def test_an_unreadable_file_fails_the_run_and_writes_nothing(tmp_path: Path) -> None:
    good = tmp_path / "good.gift"
    good.write_text(GIFT, encoding="utf-8")
    bad = tmp_path / "bad.xml"
    bad.write_text("<quiz><question type='essay'>", encoding="utf-8")
    result = _run("import", str(good), str(bad), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert f"{bad.as_posix()}:1: error: not well-formed XML" in result.stderr
    assert result.stderr.rstrip().endswith("nothing written")
    assert not (tmp_path / "out").exists()


def test_strict_fails_on_warnings_and_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "a.gift"
    src.write_text(GIFT, encoding="utf-8")
    result = _run("import", str(src), "--out", str(tmp_path / "out"), "--strict")  # no --lang: a warning
    assert result.exit_code == 1
    assert "warning: 'a': the source does not say which language it is in" in result.stderr
    assert not (tmp_path / "out").exists()


def test_nothing_to_import_is_an_error(tmp_path: Path) -> None:
    src = tmp_path / "c.xml"
    src.write_text(
        '<quiz><question type="coderunner"><name><text>c</text></name>'
        '<questiontext format="html"><text>Sum a list.</text></questiontext></question></quiz>\n',
        encoding="utf-8",
    )
    result = _run("import", str(src), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "error: nothing to import: no question lmsexport can hold (1 skipped)" in result.stderr
    assert "(coderunner) skipped" in result.stderr


def test_a_gift_description_is_imported(tmp_path: Path) -> None:
    """readquestion(): a question without an answer block is a description, worth nothing."""
    src = tmp_path / "d.gift"
    src.write_text("::Only text:: Read this first.\n", encoding="utf-8")
    result = _run("import", str(src), "--out", str(tmp_path / "out"), "--lang", "en")
    assert result.exit_code == 0, result.stderr
    written = (tmp_path / "out" / "d.yaml").read_text(encoding="utf-8")
    assert 'type: "description"' in written and "Read this first." in written


def test_json_report_counts_and_skipped(tmp_path: Path) -> None:
    result = _run(
        "import",
        str(CORPUS / "moodle" / "xml"),
        "--out",
        str(tmp_path / "out"),
        "--lang",
        "en",
        "--report",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True
    assert report["counts"]["files"] == 10 and report["counts"]["questions"] == 15
    # Moodle's own fixtures come in, cloze, ordering and select-missing-words included (#23):
    # nothing is skipped, and the one loss named is the ordering fixture's.
    assert report["skipped"] == {}
    problems = report["problems"]
    assert [p["rule"] for p in problems] == ["import.not-carried"]
    assert problems[0]["file"].endswith("qtype-ordering.moodle.xml") and problems[0]["line"]


def test_summary_names_what_was_skipped(tmp_path: Path) -> None:
    result = _run("import", str(CORPUS), "--out", str(tmp_path / "out"), "--lang", "en")
    assert result.exit_code == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("imported ")
    # Only two of Canvas's QTI 2.1 intermediates (migrate.py output) remain of a kind not read.
    assert "; skipped 2: 1 calculated, 1 fill in multiple blanks" in first
    # Every file loads; the HTML writer builds their rich texts.
    bank = load_paths([tmp_path / "out"])
    assert bank.question_count == int(first.split()[1])
    build = _run("build", str(tmp_path / "out"), "--out", str(tmp_path / "dist"), "--format", "html")
    assert build.exit_code == 0, build.stderr


# --------------------------------------------------------------------------- ids


def test_slug() -> None:
    assert slug("Moodle activities") == "Moodle-activities"
    assert slug("2-08 TSL") == "q-2-08-TSL"
    assert slug("T & F") == "T-F"
    assert slug("سوال") == ""
    assert slug("Café déjà vu") == "Cafe-deja-vu"
    assert len(slug("x" * 200)) == 64


def test_ids_made_valid_and_unique_with_the_original_in_a_comment(tmp_path: Path) -> None:
    xml = tmp_path / "ids.xml"
    xml.write_text(
        "<quiz>"
        + "".join(
            f"<question type='essay'><name><text>{name}</text></name>"
            f"<questiontext format='html'><text>Stem {i}</text></questiontext><idnumber>{ident}</idnumber>"
            "</question>"
            for i, (name, ident) in enumerate(
                [("One", "T &amp; F"), ("Two", "q1"), ("Three", "Q1"), ("Four", ""), ("سوال", "")]
            )
        )
        + "</quiz>",
        encoding="utf-8",
    )
    result = _run("import", str(xml), "--out", str(tmp_path / "out"), "--lang", "en")
    assert result.exit_code == 0, result.stderr
    text = (tmp_path / "out" / "ids.yaml").read_text(encoding="utf-8")
    ids = [line.split('"')[1] for line in text.splitlines() if line.startswith("  - id: ")]
    assert ids == ["T-F", "q1", "Q1-2", "four", "ids-5"]
    assert "  # id was 'T & F'\n  - id: \"T-F\"" in text
    assert "  # id was 'Q1'\n  - id: \"Q1-2\"" in text
    # The Moodle name travels as the question's name, not as a note.
    assert '  - id: "ids-5"\n    type: "essay"\n    name: "سوال"' in text
    assert "# named" not in text


def test_lmsexport_ids_win_over_foreign_names(tmp_path: Path) -> None:
    """A foreign question named like one of lmsexport's own ids yields that id to it."""
    foreign = tmp_path / "a.gift"
    foreign.write_text("::zso-redundancy::A foreign question{=x ~y}\n", encoding="utf-8")
    own = ROOT / "dist" / "gift" / "zero-sharded-optimizers.gift.txt"
    result = read_sources(find_sources([foreign, own]))
    ids = {q.id: iq.quiz.id for iq in result.quizzes for q in iq.quiz.questions}
    assert ids["zso-redundancy"] == "zero-sharded-optimizers"
    assert ids["zso-redundancy-2"] == "a"


# --------------------------------------------------------------------------- texts and images


def test_moodle_xml_html_images_and_tex(tmp_path: Path) -> None:
    png = _tiny_png(3, 2)
    xml = tmp_path / "rich.xml"
    xml.write_text(
        f"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multichoice">
    <name><text>Rich</text></name>
    <questiontext format="html">
      <text><![CDATA[<p dir="ltr" style="text-align: left;">With \\(x^2\\) and
<img src="@@PLUGINFILE@@/chart%201.png" alt="A chart"></p>
<ul><li>one</li><li><strong>two</strong></li></ul>]]></text>
      <file name="chart 1.png" path="/" encoding="base64">{base64.b64encode(png).decode()}</file>
    </questiontext>
    <single>true</single>
    <answer fraction="100" format="html"><text><![CDATA[<p>$$\\frac{{1}}{{2}}$$</p>]]></text></answer>
    <answer fraction="0" format="html"><text>two</text></answer>
  </question>
</quiz>""",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = _run("import", str(xml), "--out", str(out), "--lang", "en")
    assert result.exit_code == 0, result.stderr
    assert "not carried: inline styles (style attributes)" in result.stderr
    images = _snapshot(out / "img")
    assert list(images.values()) == [png]
    bank = load_paths([out])
    q = bank.quizzes[0].questions[0]
    assert isinstance(q.stem, Rich)
    found = list(inlines_of(q.stem))
    assert Math("x^2") in found
    image = next(x for x in found if isinstance(x, Image))
    assert image.media.data == png and image.alt == "A chart"
    assert isinstance(q.body, SingleChoice | MultipleChoice)
    assert q.body.choices[0].text == Rich((Para((Math("\\frac{1}{2}", True),)),))
    assert q.body.choices[1].text == Rich((Para((Str("two"),)),))


def test_old_moodle_image_field_is_kept(tmp_path: Path) -> None:
    result = read_sources(
        find_sources([CORPUS / "moodle" / "xml" / "sample_questions_with_old_image_tag.xml"]), "en"
    )
    q = result.quizzes[0].quiz.questions[0]
    assert isinstance(q.stem, Rich)
    image = next(x for x in inlines_of(q.stem) if isinstance(x, Image))
    assert image.alt == "moodle.png" and image.media.mime == "image/png"


def test_qti21_package_images_and_mathml(tmp_path: Path) -> None:
    png = _tiny_png(2, 5)
    ns = "http://www.imsglobal.org/xsd/imsqti_v2p1"
    item = f"""<assessmentItem xmlns="{ns}" identifier="pic" title="Pic" adaptive="false"
    timeDependent="false" xml:lang="en">
  <responseDeclaration identifier="R" cardinality="single" baseType="identifier">
    <correctResponse><value>A</value></correctResponse>
  </responseDeclaration>
  <outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>
  <itemBody>
    <p>Look: <img src="../media/p.png" alt="a picture"/> and
      <math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mi>x</mi>
      <annotation encoding="application/x-tex">x</annotation></semantics></math>
      and <math xmlns="http://www.w3.org/1998/Math/MathML"><mi>y</mi></math></p>
    <choiceInteraction responseIdentifier="R" shuffle="true" maxChoices="1">
      <simpleChoice identifier="A">yes</simpleChoice><simpleChoice identifier="B">no way</simpleChoice>
    </choiceInteraction>
  </itemBody>
  <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>
</assessmentItem>"""
    zpath = tmp_path / "pkg.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("items/pic.xml", item)
        zf.writestr("media/p.png", png)
    result = read_sources(find_sources([zpath]))
    assert not result.failed, [d.format() for d in result.diags]
    q = result.quizzes[0].quiz.questions[0]
    found = list(inlines_of(q.stem))
    assert Math("x") in found
    assert any(isinstance(x, Image) and x.media.data == png for x in found)
    assert any("MathML without a TeX annotation" in d.message for d in result.diags)
    assert isinstance(q.body, SingleChoice) and q.body.credits == (1.0, 0.0)
    assert result.quizzes[0].quiz.shuffle


# --------------------------------------------------------------------------- assessments


def _canvas_group_package(tmp_path: Path) -> Path:
    def item(ident: str, right: str) -> str:
        return f"""<item ident="{ident}" title="{ident}"><itemmetadata><qtimetadata>
<qtimetadatafield><fieldlabel>question_type</fieldlabel><fieldentry>multiple_choice_question</fieldentry></qtimetadatafield>
<qtimetadatafield><fieldlabel>points_possible</fieldlabel><fieldentry>2</fieldentry></qtimetadatafield>
</qtimetadata></itemmetadata><presentation><material>
<mattext texttype="text/html">&lt;p&gt;Question {ident}&lt;/p&gt;</mattext></material>
<response_lid ident="response1" rcardinality="Single"><render_choice>
<response_label ident="a"><material><mattext texttype="text/plain">A</mattext></material></response_label>
<response_label ident="b"><material><mattext texttype="text/plain">B</mattext></material></response_label>
</render_choice></response_lid></presentation>
<resprocessing><outcomes><decvar maxvalue="100" minvalue="0" varname="SCORE" vartype="Decimal"/></outcomes>
<respcondition continue="No"><conditionvar><varequal respident="response1">{right}</varequal></conditionvar>
<setvar action="Set" varname="SCORE">100</setvar></respcondition></resprocessing></item>"""

    doc = f"""<?xml version="1.0" encoding="UTF-8"?>
<questestinterop xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2">
<assessment ident="g1" title="Midterm"><section ident="root_section">
{item("fixed1", "a")}
<section ident="grp" title="Pool A"><selection_ordering><selection><selection_number>1</selection_number>
<selection_extension><points_per_item>3</points_per_item></selection_extension></selection></selection_ordering>
{item("p1", "a")}{item("p2", "b")}</section>
</section></assessment></questestinterop>"""
    manifest = """<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="m">
<organizations/><resources>
<resource identifier="r1" type="imsqti_xmlv1p2"><file href="g1/g1.xml"/></resource></resources></manifest>"""
    zpath = tmp_path / "canvas.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("imsmanifest.xml", manifest)
        zf.writestr("g1/g1.xml", doc)
    return zpath


def test_canvas_question_group_becomes_an_assessment(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _run("import", str(_canvas_group_package(tmp_path)), "--out", str(out), "--lang", "en")
    assert result.exit_code == 0, result.stderr
    assert sorted(_snapshot(out)) == ["midterm-questions.yaml", "midterm.yaml", "pool-a.yaml"]
    bank = load_paths([out])
    (assessment,) = bank.assessments
    draws = assessment.sections[0].draws
    assert [d.ids for d in draws] == [("fixed1",), ()]
    assert draws[1].pick == 1 and draws[1].points == 3 and draws[1].pool is not None
    assert [c.question.id for c in draws[1].candidates] == ["p1", "p2"]
    assert {q.id: q.points for quiz in bank.quizzes for q in quiz.questions} == {
        "fixed1": 2,
        "p1": 2,
        "p2": 2,
    }


def test_qti21_selection_becomes_an_assessment(tmp_path: Path) -> None:
    ns = "http://www.imsglobal.org/xsd/imsqti_v2p1"

    def item(ident: str) -> str:
        return f"""<assessmentItem xmlns="{ns}" identifier="{ident}" title="{ident}" adaptive="false"
timeDependent="false"><responseDeclaration identifier="R" cardinality="single" baseType="string">
<correctResponse><value>{ident}</value></correctResponse></responseDeclaration>
<itemBody><p>Type {ident}: <textEntryInteraction responseIdentifier="R"/></p></itemBody></assessmentItem>"""

    test = f"""<assessmentTest xmlns="{ns}" identifier="exam" title="Exam">
<testPart identifier="p" navigationMode="linear" submissionMode="individual">
<assessmentSection identifier="s" title="S" visible="true"><ordering shuffle="true"/>
<assessmentItemRef identifier="a" href="a.xml"/>
<assessmentSection identifier="pool" title="Pool" visible="false"><selection select="1"/>
<assessmentItemRef identifier="b" href="b.xml"><weight identifier="W" value="2"/></assessmentItemRef>
<assessmentItemRef identifier="c" href="c.xml"><weight identifier="W" value="2"/></assessmentItemRef>
</assessmentSection></assessmentSection></testPart></assessmentTest>"""
    folder = tmp_path / "pkg"
    folder.mkdir()
    for name in "abc":
        (folder / f"{name}.xml").write_text(item(name), encoding="utf-8")
    (folder / "test.xml").write_text(test, encoding="utf-8")
    out = tmp_path / "out"
    result = _run("import", str(folder), "--out", str(out), "--lang", "en")
    assert result.exit_code == 0, result.stderr
    bank = load_paths([out])
    (exam,) = bank.assessments
    assert exam.sections[0].title == "S" and exam.sections[0].shuffle
    listed, pool = exam.sections[0].draws
    assert listed.ids == ("a",) and pool.pick == 1 and pool.points == 2
    q = next(q for quiz in bank.quizzes for q in quiz.questions if q.id == "a")
    assert isinstance(q.body, ShortAnswer) and q.body.accepted == ("a",) and q.body.case_sensitive
    assert sorted(_snapshot(out)) == ["exam-questions.yaml", "exam.yaml", "pool.yaml"]
    assert 'stem: "Type a: _____"' in (out / "exam-questions.yaml").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- hostile input


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "rule"),
    [
        (
            "bomb.zip",
            _zip_bytes({"imsmanifest.xml": b"<manifest/>", "big.xml": b"<a>" + b" " * 20_000_000 + b"</a>"}),
            "package.too-large",
        ),
        ("slip.zip", _zip_bytes({"../evil.xml": b"<a/>"}), "package.unsafe-path"),
        (
            "xxe.xml",
            b'<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY x SYSTEM "file:///etc/passwd">]><quiz>&x;</quiz>',
            "xml.doctype",
        ),
        (
            "laughs.xml",
            b'<?xml version="1.0"?><!DOCTYPE questestinterop [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>'
            b"<questestinterop>&b;</questestinterop>",
            "xml.doctype",
        ),
    ],
)
def test_hostile_sources_are_refused(name: str, data: bytes, rule: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    result = read_sources(find_sources([path]))
    assert result.failed
    assert rule in {d.rule for d in result.diags}
    assert not result.quizzes


def test_a_symlink_in_a_package_folder_is_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(_tiny_png(1, 1))
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "imsmanifest.xml").write_text(
        '<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="m"><organizations/><resources>'
        '<resource identifier="i" type="imsqti_item_xmlv2p1" href="q.xml"/></resources></manifest>',
        encoding="utf-8",
    )
    (folder / "q.xml").write_text(
        '<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="q" title="q" '
        'adaptive="false" timeDependent="false"><itemBody><p>See <img src="link.png" alt="x"/></p>'
        '<extendedTextInteraction responseIdentifier="R"/></itemBody></assessmentItem>',
        encoding="utf-8",
    )
    (folder / "link.png").symlink_to(secret)
    result = read_sources(find_sources([folder]), "en")
    messages = [d.format() for d in result.diags]
    assert any("link.png: error: is a symbolic link" in m for m in messages), messages
    assert any("names a path outside the package" in m or "the image 'link.png'" in m for m in messages), (
        messages
    )


@pytest.mark.parametrize(("name", "limit"), [("big.gift", "10,485,760"), ("big.xml", "16,777,216")])
def test_huge_files_are_refused_before_they_are_read(name: str, limit: str, tmp_path: Path) -> None:
    path = tmp_path / name
    with open(path, "wb") as fh:
        fh.truncate(17 * 1024 * 1024)  # sparse: costs no disk
    result = _run("import", str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "the file is 17,825,792 bytes; the limit for" in result.stderr and limit in result.stderr
    assert not (tmp_path / "out").exists()


def test_github_and_junit_reports(tmp_path: Path) -> None:
    # Canvas's QTI 2.1 fill-in-multiple-blanks intermediate: a kind import does not read.
    src = CORPUS / "canvas" / "qti21" / "fimb.xml"
    other = CORPUS / "canvas" / "qti21" / "essay2.xml"
    gh = _run(
        "import", str(src), str(other), "--out", str(tmp_path / "a"), "--lang", "en", "--report", "github"
    )
    assert gh.exit_code == 0
    assert gh.stdout.startswith(f"::warning file={src.as_posix()},line=24,title=import.skipped::")
    junit = _run("import", str(src), "--out", str(tmp_path / "b"), "--lang", "en", "--report", "junit")
    assert junit.exit_code == 1  # the skipped question was all there was: nothing to import
    assert '<testsuite name="lmsexport import"' in junit.stdout and "import.nothing" in junit.stdout
