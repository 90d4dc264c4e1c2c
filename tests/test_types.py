"""Every question type through every format: tests/cases/types/bank.yaml and its golden outputs.

The bank is the worked examples of docs/source-format.md; exam.yaml is an assessment over it.
Expected outputs live beside them: `expected/qti21/<quiz or assessment>/...` and
`expected/qti12/<quiz or assessment>/...` (the packages' members, unzipped so diffs are
readable), `expected/cc/bank/...` and `expected/cc11/bank-cc11/...` (the cartridges' members),
`expected/gift/<quiz>.gift.txt`, `expected/moodle/<quiz>.xml`, `expected/html/<quiz>.html` and
`expected/index.html`.
Rewrite them with `pytest --update-golden` and review the diff.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from lmsexport.build import build, gift_round_trip, moodlexml_round_trip
from lmsexport.model import QuestionType
from lmsexport.source import load_paths
from lmsexport.validate import validate_package, validate_xml_bytes
from lmsexport.validate_qti12 import validate_cartridge, validate_qti12_package

CASE = Path(__file__).resolve().parent / "cases" / "types"
FORMATS = ["qti21", "qti12", "cc13", "cc11", "gift", "moodlexml", "html"]
QTI = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"


@pytest.fixture(scope="module")
def bank():
    return load_paths([CASE / "bank.yaml", CASE / "exam.yaml"])


@pytest.fixture(scope="module")
def output(bank):
    return build(bank, FORMATS)


STRUCTURED = Path(__file__).resolve().parent / "cases" / "structured"
"""Issue 23's kinds (cloze, ordering, description) are a golden case of their own
(tests/cases/structured), so that this bank's goldens stay what they were."""
NEW_TYPES = {QuestionType.CLOZE, QuestionType.ORDERING, QuestionType.DESCRIPTION}


@pytest.fixture(scope="module")
def structured():
    return load_paths([STRUCTURED])


@pytest.fixture(scope="module")
def structured_output(structured):
    return build(structured, FORMATS)


PARAMETRIC = Path(__file__).resolve().parent / "cases" / "parametric"
"""Issue 24's kinds (calculated, calculated_choice): a golden case of their own too."""
PARAMETRIC_TYPES = {QuestionType.CALCULATED, QuestionType.CALCULATED_CHOICE}


@pytest.fixture(scope="module")
def parametric():
    return load_paths([PARAMETRIC])


@pytest.fixture(scope="module")
def parametric_output(parametric):
    return build(parametric, FORMATS)


def test_bank_has_every_type(bank, structured, parametric) -> None:
    types = {q.type for quiz in bank.quizzes for q in quiz.questions}
    new = {q.type for quiz in structured.quizzes for q in quiz.questions}
    calculated = {q.type for quiz in parametric.quizzes for q in quiz.questions}
    assert types == set(QuestionType) - NEW_TYPES - PARAMETRIC_TYPES and new == NEW_TYPES
    assert calculated == PARAMETRIC_TYPES


def test_every_parametric_kind_builds_valid_in_every_format(parametric_output, parametric) -> None:
    """Every package of tests/cases/parametric is valid against the official schemas; what a
    format cannot carry of a parametric question is a warning (or a note), never an error."""
    files = parametric_output.files
    names = {q.id for q in parametric.quizzes} | {a.id for a in parametric.assessments}
    assert {p for p in files if p.startswith("qti21/")} == {f"qti21/{n}.zip" for n in names}
    for path, data in files.items():
        if path.startswith("qti21/"):
            assert validate_package(data, path) == [], path
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for name in (n for n in zf.namelist() if n.endswith(".xml")):
                    assert validate_xml_bytes(zf.read(name), name) == [], name
        elif path.startswith("qti12/"):
            assert validate_qti12_package(data, path) == [], path
        elif path.endswith(".imscc"):
            assert validate_cartridge(data, path) == [], path
    assert {d.severity.value for d in parametric_output.warnings} <= {"warning", "note"}
    # Moodle XML carries them natively, one <question> per parametric question
    doc = etree.fromstring(files["moodle/parametric.xml"])
    written = {
        el.findtext("idnumber"): el.get("type") for el in doc.iter("question") if el.get("type") != "category"
    }
    quiz = next(q for q in parametric.quizzes if q.id == "parametric")
    native = {QuestionType.CALCULATED: "calculated", QuestionType.CALCULATED_CHOICE: "calculatedmulti"}
    assert written == {q.id: native[q.type] for q in quiz.questions}


def test_every_new_kind_builds_valid_in_every_format(structured_output, structured) -> None:
    files = structured_output.files
    names = {q.id for q in structured.quizzes} | {a.id for a in structured.assessments}
    assert {p for p in files if p.startswith("qti21/")} == {f"qti21/{n}.zip" for n in names}
    for path, data in files.items():
        if path.startswith("qti21/"):
            assert validate_package(data, path) == [], path
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for name in (n for n in zf.namelist() if n.endswith(".xml")):
                    assert validate_xml_bytes(zf.read(name), name) == [], name
        elif path.startswith("qti12/"):
            assert validate_qti12_package(data, path) == [], path
        elif path.endswith(".imscc"):
            assert validate_cartridge(data, path) == [], path
    # what a format cannot carry is a warning (or a note), never an error
    assert {d.severity.value for d in structured_output.warnings} <= {"warning", "note"}


def test_interactions_and_moodle_types_of_the_new_kinds(structured_output, structured) -> None:
    """QTI 2.1: a cloze's blanks are text entry, inline choice and choice interactions, an
    ordering is an orderInteraction, a description has no interaction; Moodle XML: cloze,
    ordering, description, in the quiz's order."""
    quiz = next(q for q in structured.quizzes if q.id == "structured")
    per_blank = {"TextBlank": "textEntryInteraction", "NumberBlank": "textEntryInteraction"}
    with zipfile.ZipFile(io.BytesIO(structured_output.files["qti21/structured.zip"])) as zf:
        for q in quiz.questions:
            item = etree.fromstring(zf.read(f"items/{q.id}.xml"))
            found = [
                el.tag.removeprefix(QTI)
                for el in item.iter()
                if str(el.tag).endswith("Interaction") and el.tag != f"{QTI}endAttemptInteraction"
            ]
            match q.type:
                case QuestionType.DESCRIPTION:
                    assert found == [], q.id
                case QuestionType.ORDERING:
                    assert found == ["orderInteraction"], q.id
                case QuestionType.CLOZE:
                    expected = [
                        per_blank.get(type(b).__name__)
                        or (
                            "inlineChoiceInteraction"
                            if b.display.value == "dropdown"
                            else "choiceInteraction"
                        )
                        for b in q.body.blanks  # type: ignore[union-attr]
                    ]
                    assert found == expected, q.id
    doc = etree.fromstring(structured_output.files["moodle/structured.xml"])
    written = [
        (el.get("type"), el.findtext("idnumber"))
        for el in doc.iter("question")
        if el.get("type") != "category"
    ]
    assert written == [(q.type.value, q.id) for q in quiz.questions]
    for el in doc.iter("question"):
        if el.get("type") == "description":
            assert float(el.findtext("defaultgrade")) == 0


def test_gift_and_moodlexml_readers_return_the_new_kinds(structured, structured_output) -> None:
    assert gift_round_trip(structured, structured_output) == []
    assert moodlexml_round_trip(structured, structured_output) == []


def test_golden_outputs(output, golden) -> None:
    expected = CASE / "expected"
    seen = set()
    for path, data in output.files.items():
        if path.endswith((".zip", ".imscc")):
            folder = Path(path).with_suffix("").as_posix()  # qti21/<quiz>, qti12/<quiz>, cc/bank
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for name in zf.namelist():
                    rel = f"{folder}/{name}"
                    golden(expected / rel, zf.read(name))
                    seen.add(rel)
        else:
            golden(expected / path, data)
            seen.add(path)
    stale = {p.relative_to(expected).as_posix() for p in expected.rglob("*") if p.is_file()} - seen
    assert not stale, f"expected files no build produces any more: {sorted(stale)}"


def test_every_qti_file_is_schema_valid(output, bank) -> None:
    zips = sorted(p for p in output.files if p.startswith("qti21/"))
    assert zips == ["qti21/every-type-exam.zip", "qti21/every-type.zip"]
    questions = {"every-type": 10, "every-type-exam": len(bank.assessments[0].candidates)}
    for zip_path in zips:
        data = output.files[zip_path]
        assert validate_package(data, zip_path) == []
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            xml_members = [n for n in zf.namelist() if n.endswith(".xml")]
            # manifest, test, one item per question it may show
            assert len(xml_members) == 1 + 1 + questions[Path(zip_path).stem]
            for name in xml_members:
                assert validate_xml_bytes(zf.read(name), name) == [], name


def test_every_qti12_and_cc_file_is_valid(output) -> None:
    zips = sorted(p for p in output.files if p.startswith("qti12/"))
    assert zips == ["qti12/every-type-exam.zip", "qti12/every-type.zip"]  # the quiz, the assessment
    for path in zips:
        assert validate_qti12_package(output.files[path], path) == []
    assert validate_cartridge(output.files["cc/bank.imscc"], "cc/bank.imscc") == []
    assert validate_cartridge(output.files["cc11/bank-cc11.imscc"], "cc11/bank-cc11.imscc") == []


def test_interactions_per_type(output, bank) -> None:
    """The interaction each type is written as, and the manifest says the same."""
    expected = {
        QuestionType.SINGLE: "choiceInteraction",
        QuestionType.MULTIPLE: "choiceInteraction",
        QuestionType.TRUE_FALSE: "choiceInteraction",
        QuestionType.SHORT_ANSWER: "textEntryInteraction",
        QuestionType.NUMERICAL: "textEntryInteraction",
        QuestionType.MATCHING: "matchInteraction",
        QuestionType.ESSAY: "extendedTextInteraction",
    }
    with zipfile.ZipFile(io.BytesIO(output.files["qti21/every-type.zip"])) as zf:
        manifest = etree.fromstring(zf.read("imsmanifest.xml"))
        declared = {
            r.get("identifier"): r.findtext(".//{*}interactionType")
            for r in manifest.iter("{*}resource")
            if r.get("type") == "imsqti_item_xmlv2p1"
        }
        for q in bank.quizzes[0].questions:
            item = etree.fromstring(zf.read(f"items/{q.id}.xml"))
            found = [el.tag.removeprefix(QTI) for el in item.iter() if str(el.tag).endswith("Interaction")]
            assert found == [expected[q.type]], q.id
            assert expected[q.type] in declared.values()
            cardinality = item.find(f"{QTI}responseDeclaration")
            if q.type is QuestionType.ESSAY:
                assert item.find(f".//{QTI}correctResponse") is None
            if q.type is QuestionType.MULTIPLE:
                assert cardinality.get("cardinality") == "multiple"
                assert item.find(f".//{QTI}mapping") is not None
            if q.type is QuestionType.MATCHING:
                assert cardinality.get("baseType") == "directedPair"
            if q.type is QuestionType.NUMERICAL:
                assert cardinality.get("baseType") == "float"


def test_gift_reader_returns_the_same_model(bank, output) -> None:
    assert gift_round_trip(bank, output) == []


def test_moodlexml_reader_returns_the_same_model(bank, output) -> None:
    assert moodlexml_round_trip(bank, output) == []


def test_moodlexml_types_per_question_type(output, bank) -> None:
    """The Moodle question type each type is written as, and what Moodle XML keeps of it."""
    doc = etree.fromstring(output.files["moodle/every-type.xml"])
    questions = {q.findtext("idnumber"): q for q in doc.iter("question") if q.get("type") != "category"}
    expected = {
        QuestionType.SINGLE: "multichoice",
        QuestionType.MULTIPLE: "multichoice",
        QuestionType.TRUE_FALSE: "truefalse",
        QuestionType.SHORT_ANSWER: "shortanswer",
        QuestionType.NUMERICAL: "numerical",
        QuestionType.MATCHING: "matching",
        QuestionType.ESSAY: "essay",
    }
    for q in bank.quizzes[0].questions:
        el = questions[q.id]
        assert el.get("type") == expected[q.type], q.id
        assert float(el.findtext("defaultgrade")) == q.points
    assert questions["zero3-partitions"].findtext("single") == "false"
    assert [a.get("fraction") for a in questions["zero3-partitions"].iter("answer")] == [
        "33.33333", "33.33333", "33.33333", "-100",
    ]  # fmt: skip
    assert questions["megatron-name"].findtext("usecase") == "1"
    assert questions["fsdp-name"].findtext("usecase") == "0"
    distractors = [s for s in questions["zero-stages-match"].iter("subquestion") if not s.findtext("text")]
    assert [s.findtext("answer/text") for s in distractors] == ["Activations"]
    assert questions["bubble-percent"].findtext("answer/text") == "20"
    assert questions["bubble-percent"].findtext("answer/tolerance") == "1"


def test_lossy_conversions_are_warned_about(output) -> None:
    rules = {(d.rule, d.message.split("'")[1]) for d in output.warnings}
    assert ("gift.points-not-carried", "zero3-partitions") in rules
    assert ("gift.case-sensitive-not-carried", "megatron-name") in rules
    # GIFT carries a distractor as a pair with an empty left side (`= -> Activations`).
    assert not any(r == "gift.distractors-not-carried" for r, _ in rules)
    assert any(r == "qti21.canvas-numerical" for r, _ in rules)
    assert ("qti12.canvas-case-sensitive", "megatron-name") in rules
    assert ("cc13.matching-split", "zero-stages-match") in rules
    # Never errors; an assessment's structure, which GIFT never carries, is a note (the file
    # says how to rebuild it in Moodle).
    assert {d.severity.value for d in output.warnings} == {"warning", "note"}
    assert {d.rule for d in output.warnings if d.severity.value == "note"} == {
        "gift.assessment-not-carried",
        "gift.points-not-carried",
    }
