"""Assessments as QTI 2.1 packages: tests/cases/types/exam.yaml and source/final-exam.yaml.

What is checked: the test's structure (sections, random draws as sub-sections with a
selection, shuffling), that a question is the same item in every package, what Canvas's own
converter makes of the test (a port of its section logic below), and what a standard QTI
player totals (the test's outcome processing run on the items' MAXSCOREs).
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from lmsexport.model import Assessment, Bank
from lmsexport.source import load_paths
from lmsexport.validate import validate_package
from lmsexport.writers import WriteContext, qti21
from lmsexport.writers.qti21_package import build_qti21

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "cases" / "types"
CTX = WriteContext(formats=("qti21",))
Q = f"{{{qti21.QTI_NS}}}"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_paths([CASE / "bank.yaml", CASE / "exam.yaml"])


@pytest.fixture(scope="module")
def exam(bank: Bank) -> Assessment:
    (assessment,) = bank.assessments
    return assessment


@pytest.fixture(scope="module")
def out(bank: Bank):
    return build_qti21(bank, CTX)


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def test_packages_validate(out) -> None:
    assert sorted(out.files) == ["qti21/every-type-exam.zip", "qti21/every-type.zip"]
    for name, data in out.files.items():
        assert validate_package(data, name) == []


def test_a_question_is_the_same_item_in_every_package(out, exam: Assessment) -> None:
    quiz = _members(out.files["qti21/every-type.zip"])
    test = _members(out.files["qti21/every-type-exam.zip"])
    items = sorted(n for n in test if n.startswith("items/"))
    assert items == sorted(f"items/{c.question.id}.xml" for c in exam.candidates)
    for name in items:
        assert test[name] == quiz[name], name
    # Written the same whichever way the writer is called (whole bank, or the assessment alone,
    # as the per-file build does once every quiz is loaded).
    alone = build_qti21(Bank((), (exam,)), CTX)
    assert alone.files == {"qti21/every-type-exam.zip": out.files["qti21/every-type-exam.zip"]}


def test_manifest_names_the_assessment_and_every_item(out, exam: Assessment) -> None:
    manifest = etree.fromstring(_members(out.files["qti21/every-type-exam.zip"])["imsmanifest.xml"])
    cp = {"cp": "http://www.imsglobal.org/xsd/imscp_v1p1", "lom": "http://ltsc.ieee.org/xsd/LOM"}
    assert (
        manifest.findtext("cp:metadata/lom:lom/lom:general/lom:title/lom:string", namespaces=cp) == exam.title
    )
    assert manifest.findtext("cp:metadata/lom:lom/lom:general/lom:language", namespaces=cp) == exam.lang
    test = manifest.find("cp:resources/cp:resource[@type='imsqti_test_xmlv2p1']", cp)
    assert test.get("href") == f"tests/{exam.id}.xml"
    description = test.findtext(".//lom:description/lom:string", namespaces=cp)
    assert description == exam.description
    deps = [d.get("identifierref") for d in test.iterfind("cp:dependency", cp)]
    assert deps == [f"RES-item-{c.question.id}" for c in exam.candidates]


# --------------------------------------------------------------------------- structure


def test_sections_draws_and_shuffling(exam: Assessment) -> None:
    test = qti21.assessment_test_tree(exam)
    first, second = test.findall(f"{Q}testPart/{Q}assessmentSection")
    assert [s.get("title") for s in (first, second)] == [s.title for s in exam.sections]
    assert first.get("visible") == second.get("visible") == "true"
    # Section 1 shuffles: its draws are invisible sub-sections that do not keep together, so
    # the drawn questions mix with each other and with the listed one.
    assert first.find(f"{Q}ordering").get("shuffle") == "true"
    (draw,) = first.findall(f"{Q}assessmentSection")
    assert (draw.get("visible"), draw.get("keepTogether")) == ("false", "false")
    assert draw.find(f"{Q}selection").get("select") == "2"
    assert [etree.QName(c).localname for c in first] == ["ordering", "assessmentSection", "assessmentItemRef"]
    # Section 2 keeps its order: no ordering, draws keep together (the default).
    assert second.find(f"{Q}ordering") is None
    (typed,) = second.findall(f"{Q}assessmentSection")
    assert typed.get("keepTogether") is None and typed.find(f"{Q}selection").get("select") == "3"
    ids = [el.get("identifier") for el in test.iter(f"{Q}assessmentSection", f"{Q}assessmentItemRef")]
    assert len(ids) == len(set(ids))  # one namespace in a test: sections never collide with items


# --------------------------------------------------------------------------- Canvas


def canvas_quiz(test: etree._Element) -> dict[str, Any]:
    """What Canvas makes of our assessmentTest: AssessmentTestConverter#process_section and
    #process_question (instructure/canvas-lms, gems/plugins/qti_exporter/lib/qti/
    assessment_test_converter.rb), ported for the elements lmsexport writes. Nokogiri's
    ``at_css(name)`` is the first descendant of that name in document order."""
    quiz: dict[str, Any] = {"questions": [], "shuffle_answers": False}

    def at(el: etree._Element, name: str) -> etree._Element | None:
        return next((d for d in el.iterdescendants(f"{Q}{name}")), None)

    def process_section(section: etree._Element) -> None:
        group = None
        questions = quiz["questions"]
        ordering = at(section, "ordering")
        if ordering is not None and re.search("true", ordering.get("shuffle", ""), re.I):
            quiz["shuffle_answers"] = True
        selection = next((c for c in section if c.tag == f"{Q}selection"), None)
        select = (selection.get("select") or "").strip() if selection is not None else ""
        if re.fullmatch(r"\d+", select):
            group = {"question_type": "question_group", "pick_count": int(select), "questions": []}
            group["title"] = section.get("title")
            if (weight := at(section, "weight")) is not None:
                group["question_points"] = float(weight.get("value"))
            group["migration_id"] = section.get("identifier")
            questions = group["questions"]
        if re.search("true", section.get("visible", ""), re.I) and section.get("title"):
            quiz["questions"].append(
                {"question_type": "text_only_question", "question_text": section.get("title")}
            )
        for child in section:
            if child.tag == f"{Q}assessmentSection":
                process_section(child)
            elif child.tag == f"{Q}assessmentItemRef":
                question = {"question_type": "question_reference", "migration_id": child.get("identifier")}
                if (weight := at(child, "weight")) is not None:
                    question["points_possible"] = float(weight.get("value"))
                questions.append(question)
        if group is not None:
            group.setdefault("question_points", 1.0)
            if group["questions"]:
                quiz["questions"].append(group)

    process_section(test.find(f"{Q}testPart"))
    return quiz


def test_canvas_makes_question_groups_with_pick_counts_and_points(exam: Assessment) -> None:
    quiz = canvas_quiz(qti21.assessment_test_tree(exam))
    shape = [
        (
            q["question_type"],
            q.get("question_text") or q.get("migration_id"),
            q.get("pick_count"),
            q.get("question_points") or q.get("points_possible"),
            [(m["migration_id"], m["points_possible"]) for m in q.get("questions", [])],
        )
        for q in quiz["questions"]
    ]
    choices, typed = exam.sections[0].draws[0], exam.sections[1].draws[0]
    assert shape == [
        ("text_only_question", exam.sections[0].title, None, None, []),
        ("question_group", "_draw-choices", 2, 2.0, [(c.question.id, 2.0) for c in choices.candidates]),
        ("question_reference", "zero-stages-match", None, 1.0, []),
        ("text_only_question", exam.sections[1].title, None, None, []),
        ("question_group", "_draw-typed", 3, 1.0, [(c.question.id, 1.0) for c in typed.candidates]),
        ("question_reference", "three-d-tradeoffs", None, 10.0, []),
    ]
    # Canvas reads a shuffled section as "shuffle answers" for the whole quiz: warned about.
    assert quiz["shuffle_answers"] is True


def test_what_canvas_loses_of_an_assessment_is_warned_about(exam: Assessment) -> None:
    rules = {d.rule for d in qti21.assessment_warnings(exam)}
    assert rules == {"qti21.canvas-shuffle"}
    # A pool over questions of different points, without an override: Canvas's group has one
    # question_points (the first ref's weight), so the others' points change there.
    draw = dataclasses.replace(exam.sections[0].draws[0], points=None)
    section = dataclasses.replace(exam.sections[0], draws=(draw,), shuffle=False)
    mixed = dataclasses.replace(exam, sections=(section,))
    (warning,) = qti21.assessment_warnings(mixed)
    assert warning.rule == "qti21.canvas-group-points" and "1, 3" in warning.message
    quiz = canvas_quiz(qti21.assessment_test_tree(mixed))
    (group,) = quiz["questions"][1:]
    assert group["question_points"] == draw.points_of(draw.candidates[0].question)


# --------------------------------------------------------------------------- standard players


def _max_scores(package: dict[str, bytes]) -> dict[str, float]:
    out = {}
    for name, data in package.items():
        if name.startswith("items/") and name.endswith(".xml"):
            item = etree.fromstring(data)
            value = item.findtext(f"{Q}outcomeDeclaration[@identifier='MAXSCORE']/{Q}defaultValue/{Q}value")
            out[item.get("identifier")] = float(value)
    return out


def player_totals(
    test: etree._Element, picked: dict[str, set[str]], scores: dict[str, float]
) -> dict[str, float]:
    """SCORE and MAXSCORE as a QTI 2.1 player computes them from the test's outcomeProcessing
    (sum of testVariables, weighted by weightIdentifier: each value times the ref's weight of
    that identifier, 1 when the ref has none) over the items of one attempt: every ref outside
    a selection, and the ``picked`` refs of each section with a selection. Every item scores
    its maximum (a perfect attempt)."""
    refs = []
    for ref in test.iter(f"{Q}assessmentItemRef"):
        section = ref.getparent()
        if (
            section.find(f"{Q}selection") is not None
            and ref.get("identifier") not in picked[section.get("identifier")]
        ):
            continue
        refs.append(ref)
    totals = {}
    for rule in test.find(f"{Q}outcomeProcessing"):
        variables = rule.find(f"{Q}sum/{Q}testVariables")
        weight_id = variables.get("weightIdentifier")
        total = 0.0
        for ref in refs:
            weight = ref.find(f"{Q}weight[@identifier='{weight_id}']") if weight_id else None
            total += scores[ref.get("identifier")] * (
                float(weight.get("value")) if weight is not None else 1.0
            )
        totals[rule.get("identifier")] = total
    return totals


def test_a_standard_player_totals_each_question_at_its_points_once(out, exam: Assessment) -> None:
    package = _members(out.files["qti21/every-type-exam.zip"])
    scores = _max_scores(package)
    test = etree.fromstring(package[f"tests/{exam.id}.xml"])
    pools = [d for d in exam.draws if d.is_random]
    assert exam.total_points == 2 * 2 + 1 + 3 * 1 + 10
    for choice in itertools.product(*(itertools.combinations(d.candidates, d.count) for d in pools)):
        picked = {f"_draw-{d.name}": {c.question.id for c in cs} for d, cs in zip(pools, choice, strict=True)}
        totals = player_totals(test, picked, scores)
        assert totals["MAXSCORE"] == pytest.approx(exam.total_points)
        assert totals["SCORE"] == pytest.approx(exam.total_points)
    # A quiz's test sums unweighted: the item SCOREs are already its points.
    quiz = _members(out.files["qti21/every-type.zip"])
    totals = player_totals(etree.fromstring(quiz["tests/every-type.xml"]), {}, _max_scores(quiz))
    assert totals["MAXSCORE"] == sum(_max_scores(quiz).values())


# --------------------------------------------------------------------------- the seed bank


def test_the_final_exam_package_in_dist() -> None:
    dist = ROOT / "dist" / "qti21"
    data = (dist / "final-exam.zip").read_bytes()
    assert validate_package(data, "final-exam.zip") == []
    exam = _members(data)
    quizzes: dict[str, bytes] = {}
    for path in sorted(dist.glob("*.zip")):
        if path.name != "final-exam.zip":
            quizzes.update((n, b) for n, b in _members(path.read_bytes()).items() if n.startswith("items/"))
    items = [n for n in exam if n.startswith("items/")]
    assert items and all(exam[n] == quizzes[n] for n in items)
    test = etree.fromstring(exam["tests/final-exam.xml"])
    assert {s.get("select") for s in test.iter(f"{Q}selection")} == {"2", "3"}
