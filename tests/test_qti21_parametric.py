"""Parametric questions in QTI 2.1: each variant an item, a sub-section drawing one per attempt
(in a quiz's test and inside an assessment's draw), valid against the XSD, byte-reproducible,
losses named once per question; read back as ordinary questions (QTI 2.1 keeps no formula)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from lxml import etree

from lmsexport.formula import format_value
from lmsexport.model import (
    Assessment,
    Bank,
    Calculated,
    CalculatedChoice,
    Candidate,
    Draw,
    Numerical,
    Pool,
    Quiz,
    Section,
    SingleChoice,
)
from lmsexport.validate import validate_tree
from lmsexport.variants import variant_id
from lmsexport.writers import WriteContext, qti21
from lmsexport.writers.qti21_package import build_qti21
from tests.parametric_models import parametric_quiz

NS = {"q": qti21.QTI_NS}


def _package(bank: Bank, name: str) -> zipfile.ZipFile:
    out = build_qti21(bank, WriteContext(("qti21",)))
    return zipfile.ZipFile(io.BytesIO(out.files[f"qti21/{name}.zip"]))


def test_each_parametric_question_is_a_section_drawing_one_of_its_variants() -> None:
    quiz = parametric_quiz()
    test = qti21.test_tree(quiz)
    assert validate_tree(test, "test", "test") == []
    (top,) = test.iterfind(".//q:testPart/q:assessmentSection", NS)
    # In source order: the sub-section stands where the question stands.
    children = [
        (etree.QName(c).localname, c.get("identifier")) for c in top if c.tag != qti21._q("selection")
    ]
    assert children == [
        ("assessmentSection", "_variants-zero3-per-gpu"),
        ("assessmentItemRef", "plain-after"),
        ("assessmentSection", "_variants-pipeline-bubble"),
        ("assessmentSection", "_variants-loss-delta"),
        ("assessmentSection", "_variants-zero1-choice"),
    ]
    for q in quiz.questions:
        if not qti21.is_parametric(q):
            continue
        (sub,) = top.iterfind(f"q:assessmentSection[@identifier='_variants-{q.id}']", NS)
        assert sub.get("visible") == "false"
        assert [s.get("select") for s in sub.iterfind("q:selection", NS)] == ["1"]
        assert sub.find("q:ordering", NS) is None  # one item is drawn: nothing to order
        refs = sub.findall("q:assessmentItemRef", NS)
        assert [r.get("identifier") for r in refs] == [variant_id(q.id, v) for v in q.body.variants]  # type: ignore[union-attr]
        # Canvas reads the first <weight> under the section as the group's points per question.
        assert {r.find("q:weight", NS).get("value") for r in refs} == {qti21.num(q.points)}  # type: ignore[union-attr]


def test_the_items_hold_each_variant_and_the_package_is_valid_and_reproducible() -> None:
    quiz = parametric_quiz()
    bank = Bank((quiz,))
    z = _package(bank, quiz.id)  # build_qti21 validates every member against the XSDs
    again = build_qti21(bank, WriteContext(("qti21",))).files[f"qti21/{quiz.id}.zip"]
    assert again == build_qti21(bank, WriteContext(("qti21",))).files[f"qti21/{quiz.id}.zip"]
    manifest = etree.fromstring(z.read("imsmanifest.xml"))
    hrefs = {el.get("href") for el in manifest.iter("{*}resource")}
    for q in quiz.questions:
        body = q.body
        if isinstance(body, Calculated):
            for v in body.variants:
                path = f"items/{variant_id(q.id, v)}.xml"
                assert path in hrefs
                item = etree.fromstring(z.read(path))
                assert item.get("identifier") == variant_id(q.id, v)
                (value,) = item.iterfind(".//q:correctResponse/q:value", NS)
                assert float(value.text) == v.answer  # type: ignore[arg-type]
                text = "".join(item.find("q:itemBody", NS).itertext())  # type: ignore[union-attr]
                assert "{" not in text  # every placeholder has the variant's value
        elif isinstance(body, CalculatedChoice):
            for v in body.variants:
                item = etree.fromstring(z.read(f"items/{variant_id(q.id, v)}.xml"))
                choices = [(c.text or "").strip() for c in item.iterfind(".//q:simpleChoice", NS)]
                assert choices == [format_value(x, body.decimals) for x in v.choices]  # half up, as shown
                (key,) = item.iterfind(".//q:correctResponse/q:value", NS)
                assert key.text == "C1"
    assert "items/plain-after.xml" in hrefs


def test_the_losses_are_named_once_per_question() -> None:
    quiz = parametric_quiz()
    out = build_qti21(Bank((quiz,)), WriteContext(("qti21",)))
    rules = [(w.rule, w.message.split("'")[1]) for w in out.warnings]
    formula = [qid for rule, qid in rules if rule == "qti21.formula-not-carried"]
    assert formula == ["zero3-per-gpu", "pipeline-bubble", "loss-delta", "zero1-choice"]
    assert ("qti21.units-not-carried", "zero3-per-gpu") in rules
    assert len(rules) == len(set(rules))
    assert not any("-v0" in w.message for w in out.warnings)  # named by the question, not a variant


def _assessment(quiz: Quiz) -> Assessment:
    home = quiz.header
    by_id = {q.id: q for q in quiz.questions}
    draw = Draw(
        name="memory",
        pool=Pool(tags=()),
        pick=2,
        candidates=tuple(Candidate(home, by_id[i]) for i in ("zero3-per-gpu", "plain-after", "zero1-choice")),
    )
    listed = Draw(
        name="listed", ids=("pipeline-bubble",), candidates=(Candidate(home, by_id["pipeline-bubble"]),)
    )
    return Assessment(
        id="zero-exam",
        title="ZeRO امتحان",
        lang="ur",
        sections=(Section("حساب", True, (draw,)), Section(None, False, (listed,))),
    )


def test_in_an_assessment_the_draw_picks_the_question_and_its_section_the_variant() -> None:
    quiz = parametric_quiz()
    assessment = _assessment(quiz)
    test = qti21.assessment_test_tree(assessment)
    assert validate_tree(test, "test", "test") == []  # sections nest (assessmentSection in a section)
    (pool,) = test.iterfind(".//q:assessmentSection[@identifier='_draw-memory']", NS)
    assert pool.find("q:selection", NS).get("select") == "2"  # type: ignore[union-attr]
    kids = [
        (etree.QName(c).localname, c.get("identifier"))
        for c in pool
        if etree.QName(c).localname != "selection"
    ]
    assert kids == [
        ("assessmentSection", "_variants-zero3-per-gpu"),
        ("assessmentItemRef", "plain-after"),
        ("assessmentSection", "_variants-zero1-choice"),
    ]
    (inner,) = pool.iterfind("q:assessmentSection[@identifier='_variants-zero3-per-gpu']", NS)
    assert inner.find("q:selection", NS).get("select") == "1"  # type: ignore[union-attr]
    (listed,) = test.iterfind(".//q:assessmentSection[@identifier='_variants-pipeline-bubble']", NS)
    assert listed.getparent().get("identifier") == qti21.section_id(2)  # type: ignore[union-attr]
    z = _package(Bank((quiz,), (assessment,)), assessment.id)
    names = set(z.namelist())
    assert {f"items/{variant_id('zero1-choice', v)}.xml" for v in quiz.questions[4].body.variants} <= names  # type: ignore[union-attr]
    warnings = build_qti21(Bank((quiz,), (assessment,)), WriteContext(("qti21",))).warnings
    assert [w.rule for w in warnings].count("qti21.canvas-variants-in-draw") == 1


def test_read_back_the_variants_are_the_quiz_s_questions_in_place() -> None:
    """An lmsexport quiz package stays a quiz: each parametric question's variants are ordinary
    questions where it stood (QTI 2.1 carries no formula; the draw of one is named lost)."""
    from lmsexport.readers.packagefiles import ZipFiles
    from lmsexport.readers.qti21 import read_package

    quiz = parametric_quiz()
    data = build_qti21(Bank((quiz,)), WriteContext(("qti21",))).files[f"qti21/{quiz.id}.zip"]
    found = read_package(ZipFiles(zipfile.ZipFile(io.BytesIO(data)), "zero-param.zip"), "zero-param.zip")
    assert found.assessments == []
    (back,) = found.quizzes
    expected = [q for question in quiz.questions for q in qti21.item_questions(question)]
    assert [d.raw_id for d in back.questions] == [q.id for q in expected]
    for draft, q in zip(back.questions, expected, strict=True):
        assert type(draft.question.body) is type(q.body)
        if isinstance(q.body, Numerical):
            assert draft.question.body.key.bounds == q.body.key.bounds  # type: ignore[union-attr]
        else:
            assert isinstance(q.body, SingleChoice)
            assert draft.question.body.choices == q.body.choices  # type: ignore[union-attr]
    lost = [d.message for d in found.diags if "variants of parametric question" in d.message]
    assert len(lost) == 4 and "'zero3-per-gpu'" in lost[0] and "6 variants" in lost[0]


# --------------------------------------------------------------------------- the parametric case

PARAMETRIC = Path(__file__).parent / "cases" / "parametric"


def test_the_parametric_case_packages_are_valid_and_golden(golden) -> None:  # type: ignore[no-untyped-def]
    """tests/cases/parametric/expected/qti21/: every package of the case (build_qti21 validates
    each member against the XSDs before zipping), its files extracted."""
    from lmsexport.source import load_paths

    out = build_qti21(load_paths([PARAMETRIC]), WriteContext(("qti21",)))
    assert sorted(out.files) == [
        "qti21/parametric-exam.zip",
        "qti21/parametric-plain.zip",
        "qti21/parametric.zip",
    ]
    for path, data in out.files.items():
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for name in zf.namelist():
                golden(PARAMETRIC / "expected" / Path(path).with_suffix("").as_posix() / name, zf.read(name))


SYNTH_CALCULATED = """\
id: synth-calc
title: "calculated"
lang: en
questions:
  - id: calc-a
    type: calculated
    variables:
      N: {min: 1, max: 70}
      G: [8, 16, 32, 64]
    stem: "With {N} B parameters on {G} GPUs, how many GB of fp16 parameters does each hold?"
    explanation: "16 x {N} / {G}: ZeRO-3 shards the 16 bytes a parameter takes."
    answer: {formula: 16*N/G, tolerance: 1%, decimals: 2}
  - id: calc-b
    type: calculated
    variables:
      P: {min: 2, max: 16}
    stem: "A pipeline of {P} stages: in what range is the bubble?"
    answer: {formula: (P-1)/P, tolerance: 0.05}
"""


def test_a_calculated_questions_variant_items_come_from_skeletons(tmp_path: Path) -> None:
    """A calculated question's variants are numerical questions: where they are plain (one
    full-credit key, no feedback) their items are copies of one skeleton with the texts and
    numbers set in (qti21._Skeleton); every variant's item is, byte for byte, the item
    build_item_tree builds element by element (the source bank's calculated questions, the
    parametric model quiz's and two plain ones')."""
    from lmsexport.package import serialize
    from lmsexport.source import load_paths

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "calc.yaml").write_text(SYNTH_CALCULATED, encoding="utf-8")
    paths = [tmp_path / "calc.yaml", *sorted((root / "source").glob("*.yaml"))]
    quizzes = [parametric_quiz(), *load_paths(paths).quizzes]
    checked = fast = 0
    for quiz in quizzes:
        for q in quiz.questions:
            if not isinstance(q.body, Calculated):
                continue
            qti21._SKELETONS.clear()
            shapes = set()
            for variant_q in qti21.item_questions(q):
                assert isinstance(variant_q.body, Numerical)
                shape = qti21._shape(quiz, variant_q)
                if shape is not None:
                    shapes.add(shape)
                    fast += 1
                built = qti21.build_item_tree(quiz, variant_q)
                assert serialize(qti21.item_tree(quiz, variant_q)) == serialize(built)
                checked += 1
            assert len(qti21._SKELETONS) == len(shapes) <= 2  # a range alone is a shape of its own
    qti21._SKELETONS.clear()
    assert fast >= 40 and checked > fast
