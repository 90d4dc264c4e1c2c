"""Canvas's own QTI 1.2 converter on our packages: instructure/QTIMigrationTool, the Python
step Canvas runs on every QTI 1.2 zip before its Ruby converters (gems/plugins/qti_exporter
lib/qti/converter.rb ``run_qti_converter``).

Needs a checkout of the tool (it is not on PyPI): point LMSEXPORT_QTI_MIGRATION_TOOL at it,
e.g. after ``git clone https://github.com/instructure/QTIMigrationTool`` (checked at 7847455);
the tests are skipped without it. The tool's QTI 2.1 output is then read as Canvas's Ruby code
reads it, by small Python copies of the parts that matter here (cited at each): how
assessment_test_converter.rb ``process_section`` makes question groups, and how converter.rb
``convert_files`` and html_helper.rb ``find_best_path_match`` find an image's file.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import lxml.html
import pytest
from lxml import etree

from lmsexport.build import build
from lmsexport.model import Assessment, Bank
from lmsexport.source import load_paths

TOOL = Path(os.environ.get("LMSEXPORT_QTI_MIGRATION_TOOL", "/nonexistent"))
pytestmark = pytest.mark.skipif(
    not (TOOL / "migrate.py").is_file(),
    reason="set LMSEXPORT_QTI_MIGRATION_TOOL to a checkout of instructure/QTIMigrationTool",
)
CASES = Path(__file__).resolve().parent / "cases"
QTI2 = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"


def convert(package: bytes, tmp: Path) -> Path:
    """The package unzipped and run through the converter as Canvas runs it (qti.rb
    get_conversion_command: --ucvars --nogui --overwrite --cpout=OUT IN)."""
    src, out = tmp / "in", tmp / "out"
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        zf.extractall(src)
    run = subprocess.run(
        [
            sys.executable,
            str(TOOL / "migrate.py"),
            "--ucvars",
            "--nogui",
            "--overwrite",
            f"--cpout={out}",
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=TOOL,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def canvas_entries(section: etree._Element) -> list[object]:
    """What Canvas's assessment_test_converter.rb ``process_section`` makes of a converted test:
    question references and question groups, in order (a section with ``selection`` select > 0
    is a group with that pick_count, its points_per_item as question_points, its item refs as
    its questions; other sections are walked through)."""
    out: list[object] = []
    group = None
    selection = section.find(f"{QTI2}selection")
    if selection is not None and int(selection.get("select", "0")) > 0:
        points = selection.findtext(f".//{QTI2}points_per_item")  # get_float_val(section, ...)
        group = {
            "title": section.get("title"),
            "pick_count": int(selection.get("select", "0")),
            "question_points": float(points) if points is not None else None,
            "questions": [],
        }
    for child in section:
        if child.tag == f"{QTI2}assessmentSection":
            out += canvas_entries(child)
        elif child.tag == f"{QTI2}assessmentItemRef":
            target = group["questions"] if group is not None else out
            target.append(child.get("identifier"))
    if group is not None:
        out.append(group)
    return out


def expected_entries(assessment: Assessment) -> list[object]:
    """The assessment as Canvas's question groups should give it back: explicit questions as
    questions, each random draw a group with its pick and points, in the assessment's order."""
    out: list[object] = []
    for draw in assessment.draws:
        ids = [c.question.id for c in draw.candidates]
        if not draw.is_random:
            out += ids
            continue
        points = {draw.points_of(c.question) for c in draw.candidates}
        out.append(
            {
                "title": draw.name,
                "pick_count": draw.pick,
                "question_points": points.pop() if len(points) == 1 else None,
                "questions": ids,
            }
        )
    return out


@pytest.fixture(scope="module")
def exam_bank() -> Bank:
    return load_paths([CASES / "types" / "bank.yaml", CASES / "types" / "exam.yaml"])


def test_random_draws_come_back_as_question_groups(exam_bank: Bank, tmp_path: Path) -> None:
    (exam,) = exam_bank.assessments
    out = convert(build(exam_bank, ["qti12"]).files[f"qti12/{exam.id}.zip"], tmp_path)
    test = etree.parse(str(out / "assessmentTests" / f"{exam.id}.xml")).getroot()
    part = test.find(f"{QTI2}testPart")
    entries = canvas_entries(part)
    assert entries == expected_entries(exam)
    groups = [e for e in entries if isinstance(e, dict)]
    assert [(g["title"], g["pick_count"], g["question_points"]) for g in groups] == [
        ("choices", 2, 2.0),
        ("typed", 3, 1.0),
    ]
    # Every item the groups and sections name was converted, with Canvas's question type.
    manifest = etree.parse(str(out / "imsmanifest.xml")).getroot()
    converted = {
        r.get("identifier")
        for r in manifest.iter(f"{CP}resource")
        if r.get("type", "").startswith("imsqti_item")
    }
    named = {q for e in entries for q in (e["questions"] if isinstance(e, dict) else [e])}  # type: ignore[index]
    assert named == converted


def test_every_item_of_a_quiz_is_converted_with_its_canvas_type(exam_bank: Bank, tmp_path: Path) -> None:
    quiz = exam_bank.quizzes[0]
    out = convert(build(Bank((quiz,)), ["qti12"]).files[f"qti12/{quiz.id}.zip"], tmp_path)
    manifest = etree.parse(str(out / "imsmanifest.xml")).getroot()
    types = {
        r.get("identifier"): r.find(".//{*}instructureField[@name='question_type']").get("value")
        for r in manifest.iter(f"{CP}resource")
        if r.get("type", "").startswith("imsqti_item")
    }
    assert set(types) == {q.id for q in quiz.questions}
    assert set(types.values()) == {
        "multiple_choice_question",
        "multiple_answers_question",
        "true_false_question",
        "short_answer_question",
        "numerical_question",
        "matching_question",
        "essay_question",
    }


def test_rich_texts_and_their_images_reach_canvas(tmp_path: Path) -> None:
    """The converter keeps each text's HTML as written (an escaped ``div.html``, which Canvas
    parses and sanitises) and copies the images the manifest lists into its package, where
    Canvas finds each ``src`` by path suffix (converter.rb convert_files, html_helper.rb
    find_best_path_match)."""
    bank = load_paths([CASES / "rich" / "bank.yaml"])
    (quiz,) = bank.quizzes
    package = build(bank, ["qti12"]).files[f"qti12/{quiz.id}.zip"]
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        ours = etree.fromstring(zf.read(f"{quiz.id}/{quiz.id}.xml"))
        images = {n: zf.read(n) for n in zf.namelist() if "/media/" in n}
    out = convert(package, tmp_path)
    manifest = etree.parse(str(out / "imsmanifest.xml")).getroot()
    resource_hrefs = {r.get("href") for r in manifest.iter(f"{CP}resource")}
    attachments = [f.get("href") for f in manifest.iter(f"{CP}file") if f.get("href") not in resource_hrefs]
    assert sorted(attachments) == sorted(images)
    for path in attachments:
        assert (out / path).read_bytes() == images[path]
    sorted_paths = sorted(attachments, key=len)
    for item in ours.iter("item"):
        converted = etree.parse(str(out / "assessmentItems" / f"{item.get('ident')}.xml")).getroot()
        html = [div.text for div in converted.iter(f"{QTI2}div") if div.get("class") == "html"]
        assert html == [m.text for m in item.iter("mattext") if m.get("texttype") == "text/html"]
        for text in html:
            for src in lxml.html.fragment_fromstring(text).xpath("//img/@src"):
                assert [p for p in sorted_paths if p.endswith(src)][:1] == [f"{quiz.id}/{src}"]
