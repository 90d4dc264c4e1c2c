"""Parametric questions in Canvas's QTI 1.2 flavour: a calculated question as Canvas's own
exporter writes a calculated_question (canvas-lms lib/cc/qti/qti_items.rb
``calculated_extension``), every stored answer checked with the independent port of Canvas's
calculator (tests/formula_oracles.py, not lmsexport.formula), the 200 variable sets Canvas keeps,
a calculated multiple-choice question as a question group of its variants, the validator's
checks of Canvas's extension, formula.from_canvas, and the reader on our packages and on
Canvas's own exports (instructure/qti's fixtures), round trips included."""

from __future__ import annotations

import io
import math
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from lxml import etree
from test_formula import ENV, _subtrees_ok, trees

from lmsexport import formula as fm
from lmsexport.errors import Severity
from lmsexport.model import (
    Assessment,
    Bank,
    CalcChoice,
    Calculated,
    CalculatedChoice,
    Candidate,
    Constraint,
    Derived,
    Draw,
    Formula,
    ListVariable,
    OutcomeFeedback,
    Parameters,
    Pool,
    Question,
    Quiz,
    RangeVariable,
    Section,
    SingleChoice,
    Tolerance,
    ToleranceKind,
    plain_text,
)
from lmsexport.readers.qti12 import read_document
from lmsexport.validate_qti12 import validate_qti12_package, validate_qti12_tree
from lmsexport.variants import draw, instantiate, shown_values
from lmsexport.writers import WriteContext, qti12
from lmsexport.writers.qti12 import build_qti12
from tests.formula_oracles import canvas_evaluate

CTX = WriteContext(formats=("qti12",))
REL1 = Tolerance(0.01, ToleranceKind.RELATIVE)

N = RangeVariable("N", 1, 70, 1, 0)
"""Billions of parameters."""
G = ListVariable("G", (8.0, 16.0, 32.0, 64.0))
"""GPUs."""


def calculated(
    qid: str,
    params: Parameters,
    answer: str,
    stem: str,
    tolerance: Tolerance = REL1,
    decimals: int = 2,
    count: int | None = None,
    **extra: object,
) -> Question:
    """A Calculated question with its variants drawn as the loader draws them."""
    drawn = draw(qid, params, answer=Formula(answer), tolerance=tolerance, decimals=decimals, count=count)
    body = Calculated(params, Formula(answer), tolerance, decimals, variants=drawn.variants)
    return Question(id=qid, stem=stem, body=body, **extra)  # type: ignore[arg-type]


def zero3() -> Question:
    """ZeRO-3: 16 bytes per parameter (fp16 weights and gradients, fp32 Adam states and master
    weights), all of it split over the G GPUs; the total is a derived value the stem shows."""
    params = Parameters(
        (N, G),
        derived=(Derived("total", Formula("16*N"), 0),),
        constraints=(Constraint(Formula("G <= 8*N")),),
    )
    return calculated(
        "zero3-per-gpu",
        replace(params, count=30),
        "total / G",
        "{N} ارب پیرامیٹرز کا ماڈل {G} GPUs پر ZeRO-3 کے ساتھ: کل {total} GB۔ فی GPU کتنے GB؟",
        explanation="{total} GB / {G} = فی GPU حصہ",
        feedback=OutcomeFeedback(correct="درست", incorrect="ZeRO-3 سب کچھ {G} حصوں میں بانٹتا ہے"),
        lang="ur",
    )


def bubble() -> Question:
    """The pipeline bubble (p - 1) / (m + p - 1) in percent, with one decimal."""
    p = RangeVariable("p", 2, 16, 1, 0)
    m = RangeVariable("m", 4, 64, 4, 0)
    params = Parameters((p, m), constraints=(Constraint(Formula("m >= p")),), count=25)
    return calculated(
        "bubble",
        params,
        "100 * (p - 1) / (m + p - 1)",
        "A pipeline of {p} stages runs {m} micro-batches. What percentage of the time is bubble?",
        tolerance=Tolerance(0.05, ToleranceKind.ABSOLUTE),
        decimals=1,
        lang="en",
    )


def functions() -> Question:
    """Formulas Canvas's calculator reads differently from everyone else: a negative power,
    exp (no exp there), log10 (its log), ln, round (Math.round rounds halves up), decimals."""
    x = RangeVariable("x", -2.5, 2.5, 0.5, 1)
    y = RangeVariable("y", 1, 9, 0.25, 2)
    params = Parameters((x, y), constraints=(Constraint(Formula("x != 0")),), count=40)
    return calculated(
        "functions",
        params,
        "-x^2 + exp(x) / ln(y + 1) + log10(y) * round(x * 3) - 2^-x",
        "x = {x}, y = {y}: compute it.",
        tolerance=Tolerance(0.001, ToleranceKind.ABSOLUTE),
        decimals=4,
        lang="en",
    )


def zero1_choice() -> Question:
    """ZeRO-1 with its common mistakes as distractors (ZeRO-3's and no ZeRO at all)."""
    params = Parameters((N, G), constraints=(Constraint(Formula("G >= 16")),), count=6)
    choices = (
        CalcChoice(Formula("4*N + 12*N/G"), 1.0),
        CalcChoice(Formula("16*N/G"), 0.0, "That is ZeRO-3"),
        CalcChoice(Formula("16*N"), 0.0, "Nothing is partitioned there"),
    )
    drawn = draw("zero1-choice", params, choices=[c.formula for c in choices], correct={0}, decimals=2)
    body = CalculatedChoice(params, choices, variants=drawn.variants)
    return Question(id="zero1-choice", stem="ZeRO-1, {N}B parameters on {G} GPUs: GB per GPU?", body=body)


def quiz(*questions: Question) -> Quiz:
    return Quiz(id="memory", title="Memory arithmetic", lang="ur", questions=questions)


def items(q: Quiz) -> dict[str, etree._Element]:
    return {el.get("ident"): el for el in qti12.assessment_tree(q).iter("item")}


def meta(item: etree._Element) -> dict[str, str]:
    return {f.findtext("fieldlabel"): f.findtext("fieldentry") for f in item.iter("qtimetadatafield")}


def var_sets(item: etree._Element) -> list[tuple[dict[str, str], str]]:
    return [
        ({v.get("name"): v.text for v in vs.iter("var")}, vs.findtext("answer"))
        for vs in item.iter("var_set")
    ]


ALL = (zero3, bubble, functions)


# --------------------------------------------------------------------------- the writer


def test_a_calculated_question_is_written_as_canvas_exports_one() -> None:
    q = zero3()
    (item,) = items(quiz(q)).values()
    assert meta(item) == {"question_type": "calculated_question", "points_possible": "1"}
    # qti_items.rb add_question: itemmetadata, presentation, resprocessing, itemproc_extension, itemfeedback
    assert [c.tag for c in item] == [
        "itemmetadata",
        "presentation",
        "resprocessing",
        "itemproc_extension",
        "itemfeedback",
        "itemfeedback",
        "itemfeedback",
    ]
    response = item.find("presentation/response_str")
    assert (response.get("ident"), response.get("rcardinality")) == ("response1", "Single")
    fib = response.find("render_fib")
    assert fib.get("fibtype") == "Decimal" and fib.find("response_label").attrib == {"ident": "answer1"}
    conditions = item.findall("resprocessing/respcondition")
    # calculated_resprocessing: "correct" <other/> 100, "incorrect" not(other) 0 (after the
    # explanation's continuing condition)
    assert [c.get("title") for c in conditions] == [None, "correct", "incorrect"]
    assert conditions[1].findtext("setvar") == "100" and conditions[1].find("conditionvar/other") is not None
    assert (
        conditions[2].findtext("setvar") == "0" and conditions[2].find("conditionvar/not/other") is not None
    )
    calc = item.find("itemproc_extension/calculated")
    assert [c.tag for c in calc] == ["answer_tolerance", "formulas", "vars", "var_sets"]
    assert calc.findtext("answer_tolerance") == "1%"
    assert calc.find("formulas").get("decimal_places") == "2"
    assert [f.text for f in calc.iter("formula")] == ["16 * N / G"]  # the derived value inlined
    declared = [
        (v.get("name"), v.get("scale"), v.findtext("min"), v.findtext("max")) for v in calc.find("vars")
    ]
    # the variables (a list's smallest and largest value), then the derived value the stem shows
    assert declared == [("N", "0", "1", "70"), ("G", "0", "8", "64"), ("total", "0", *_range(q, "total"))]
    stem = item.findtext("presentation/material/mattext")
    assert "[N] ارب" in stem and "[G] GPUs" in stem and "کل [total] GB" in stem and "{" not in stem


def _range(q: Question, name: str) -> tuple[str, str]:
    assert isinstance(q.body, Calculated)
    values = [dict(v.values)[name] for v in q.body.variants]
    return fm.format_value(min(values), 0), fm.format_value(max(values), 0)


@pytest.mark.parametrize("make", ALL, ids=lambda f: f.__name__)
def test_every_variant_is_a_var_set_with_lmsexports_answer(make) -> None:  # type: ignore[no-untyped-def]
    q = make()
    assert isinstance(q.body, Calculated)
    (item,) = items(quiz(q)).values()
    sets = var_sets(item)
    assert [vs.get("ident") for vs in item.iter("var_set")] == [str(v.number) for v in q.body.variants]
    assert len(sets) == len(q.body.variants)
    for (values, answer), variant in zip(sets, q.body.variants, strict=True):
        shown = shown_values(q.body.params, variant)
        assert {n: float(t) for n, t in values.items()} == {n: float(shown[n]) for n in values}
        assert answer == fm.format_value(variant.answer, q.body.decimals)


@pytest.mark.parametrize("make", ALL, ids=lambda f: f.__name__)
def test_canvas_computes_each_stored_answer_from_the_stored_formula(make) -> None:  # type: ignore[no-untyped-def]
    """The independent port of calcCmd.js evaluates the stored formula on each var_set's stored
    values and lands on the stored answer within its decimal places (what Canvas's editor
    shows when it recomputes them), and Canvas grades the model's key right."""
    q = make()
    assert isinstance(q.body, Calculated)
    (item,) = items(quiz(q)).values()
    calc = item.find("itemproc_extension/calculated")
    formula = calc.findtext("formulas/formula")
    places = int(calc.find("formulas").get("decimal_places"))
    tolerance = calc.findtext("answer_tolerance")
    for (values, answer), variant in zip(var_sets(item), q.body.variants, strict=True):
        got = canvas_evaluate(formula, {n: float(t) for n, t in values.items()})
        assert abs(got - float(answer)) <= 0.5 * 10**-places * (1 + 1e-9), (formula, values, got, answer)
        # Canvas's NumericalQuestion margin: "p%" of |answer|, or the number
        margin = (
            abs(float(answer)) * float(tolerance[:-1]) / 100 if tolerance.endswith("%") else float(tolerance)
        )
        assert variant.answer is not None
        assert abs(variant.answer - float(answer)) <= margin + 0.5 * 10**-places


def test_every_name_in_the_text_is_a_declared_variable() -> None:
    import re

    for make in ALL:
        (item,) = items(quiz(make())).values()
        declared = {v.get("name") for v in item.iter("var") if v.getparent().tag == "vars"}
        stem = item.findtext("presentation/material/mattext")
        used = set(re.findall(r"\[([A-Za-z][A-Za-z0-9_]*)\]", stem))
        assert used and used <= declared


def test_packages_are_valid_and_reproducible() -> None:
    bank = Bank((quiz(zero3(), bubble(), functions(), zero1_choice()),))
    out = build_qti12(bank, CTX)
    assert validate_qti12_package(out.files["qti12/memory.zip"]) == []
    assert build_qti12(bank, CTX).files == out.files


def test_over_200_variants_the_first_200_are_written_with_a_warning() -> None:
    params = Parameters((N, G), count=230)
    q = calculated("many", params, "16*N/G", "{N} on {G}?")
    assert isinstance(q.body, Calculated) and len(q.body.variants) == 230
    (item,) = items(quiz(q)).values()
    assert len(var_sets(item)) == 200
    assert [vs.get("ident") for vs in item.iter("var_set")][-1] == "200"
    warnings = [w for w in qti12.lossy_warnings(quiz(q)) if w.rule == "qti12.variants-not-carried"]
    assert len(warnings) == 1 and "the first 200 of 230" in warnings[0].message
    assert validate_qti12_tree(qti12.assessment_tree(quiz(q)), "x.xml") == []


def test_the_losses_are_named_once_per_question_and_only_where_set() -> None:
    assert [w.rule for w in qti12.lossy_warnings(quiz(bubble()))] == []
    rules = [w.rule for w in qti12.lossy_warnings(quiz(zero3()))]
    # the explanation and the wrong-answer feedback show [total], [G]: Canvas fills them in the stem only
    assert rules == ["qti12.feedback-values-not-carried"]
    assert all(w.severity is Severity.WARNING for w in qti12.lossy_warnings(quiz(zero1_choice())))
    assert [w.rule for w in qti12.lossy_warnings(quiz(zero1_choice()))] == [
        "qti12.calculated-choice-not-carried"
    ]


def test_a_calculated_choice_is_a_question_group_of_its_variants() -> None:
    q = zero1_choice()
    assert isinstance(q.body, CalculatedChoice)
    tree = qti12.assessment_tree(quiz(q))
    (group,) = tree.findall("assessment/section/section")
    assert group.get("ident") == "zero1-choice-variants"
    assert group.findtext("selection_ordering/selection/selection_number") == "1"
    assert group.findtext("selection_ordering/selection/selection_extension/points_per_item") == "1"
    got = group.findall("item")
    assert [i.get("ident") for i in got] == [f"zero1-choice-v{v.number:03d}" for v in q.body.variants]
    for item, variant in zip(got, q.body.variants, strict=True):
        assert meta(item)["question_type"] == "multiple_choice_question"
        asked = instantiate(q, variant)
        assert isinstance(asked.body, SingleChoice)
        labels = [m.text for m in item.iter("mattext")][1:4]
        assert [fm.format_value(x, 2) in t for x, t in zip(variant.choices, labels, strict=True)] == [
            True
        ] * 3
        right = item.find("resprocessing/respcondition[setvar='100']/conditionvar/varequal")
        assert right is not None and right.text == "C1"
    assert validate_qti12_tree(tree, "x.xml") == []


def test_in_an_assessments_random_draw_a_calculated_choice_is_its_first_variant() -> None:
    """Canvas's question groups do not nest: a calculated choice drawn at random is asked as its
    first variant (named), a calculated question natively."""
    qz = quiz(zero1_choice(), zero3())
    pool = Draw(
        name="pool",
        pool=Pool(quizzes=(qz.id,)),
        pick=1,
        candidates=tuple(Candidate(qz, q) for q in qz.questions),
    )
    listed = Draw(name="listed", ids=("zero1-choice",), candidates=(Candidate(qz, qz.questions[0]),))
    assessment = Assessment(id="exam", title="Exam", lang="ur", sections=(Section(draws=(pool, listed)),))
    tree = qti12.exam_tree(assessment)
    (group,) = [s for s in tree.iter("section") if s.get("ident") == "exam-pool"]
    assert [i.get("ident") for i in group.findall("item")] == ["zero1-choice-v001", "zero3-per-gpu"]
    assert group.find("section") is None
    # a listed one is its own group of every variant, beside the pool
    (own,) = [s for s in tree.iter("section") if s.get("ident") == "zero1-choice-variants"]
    assert len(own.findall("item")) == 6
    rules = [w.rule for w in qti12.exam_warnings(assessment)]
    assert rules.count("qti12.variants-not-carried") == 1
    assert validate_qti12_tree(tree, "x.xml") == []
    out = build_qti12(Bank((qz,), (assessment,)), CTX)
    assert validate_qti12_package(out.files["qti12/exam.zip"]) == []


# --------------------------------------------------------------------------- the validator


def _tree_of(q: Question) -> etree._Element:
    return qti12.assessment_tree(quiz(q))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda c: c.find("answer_tolerance").__setattr__("text", "1 %"),
            "answer_tolerance must be a number",
        ),
        (lambda c: c.find("formulas").attrib.pop("decimal_places"), "formulas needs decimal_places"),
        (lambda c: c.find("formulas/formula").__setattr__("text", " "), "one or more non-empty formula"),
        (lambda c: c.find("vars/var").set("name", "N.x"), "distinct names of letters, digits and _"),
        (lambda c: c.find("vars/var/min").__setattr__("text", "one"), "min of var p must be a number"),
        (lambda c: c.find("vars/var/max").__setattr__("text", "0"), "var p has min 2.0 above max 0.0"),
        (
            lambda c: c.find("var_sets/var_set").remove(c.find("var_sets/var_set/var")),
            "var_set 1 gives m; vars declares p, m",
        ),
        (lambda c: c.find("var_sets/var_set/answer").__setattr__("text", "NaN"), "answer of var_set 1"),
        (lambda c: c.find("var_sets/var_set[2]").set("ident", "1"), "distinct idents ('1')"),
        (lambda c: c.remove(c.find("vars")), "calculated has no vars"),
        (lambda c: c.append(etree.Element("formula_x")), "calculated may hold only"),
        (lambda c: c.insert(0, c.find("vars")), "in Canvas's order"),
        (lambda c: [c.find("var_sets").remove(x) for x in list(c.find("var_sets"))], "1 to 200 var_set"),
    ],
)
def test_canvas_calculated_extension_is_checked_by_code(edit, message: str) -> None:  # type: ignore[no-untyped-def]
    tree = _tree_of(bubble())
    assert validate_qti12_tree(tree, "x.xml") == []
    edit(tree.find(".//itemproc_extension/calculated"))
    found = validate_qti12_tree(tree, "x.xml")
    assert any(message in d.message and d.rule == "qti12.canvas-extension" for d in found), [
        d.message for d in found
    ]


def test_the_extension_must_be_where_qti_12_puts_it() -> None:
    tree = _tree_of(bubble())
    item = tree.find(".//item")
    ext = item.find("itemproc_extension")
    item.find("presentation").addprevious(ext)  # before the presentation
    assert any("after the item's resprocessing" in d.message for d in validate_qti12_tree(tree, "x.xml"))
    tree = _tree_of(bubble())
    ext = tree.find(".//itemproc_extension")
    ext.append(etree.Element("calculated"))
    assert any("one calculated element" in d.message for d in validate_qti12_tree(tree, "x.xml"))


# --------------------------------------------------------------------------- formula.from_canvas


@pytest.mark.parametrize(
    ("canvas", "source"),
    [
        ("16 * N / G", "16 * N / G"),
        ("x^2^3", "(x^2)^3"),  # calcCmd's powers are left-associative
        ("-x^2", "(-x)^2"),  # and a sign binds to its number or name
        ("(0-x^2)", "-x^2"),  # to_canvas's negation
        ("log(x)", "log10(x)"),  # base 10 there
        ("log(x, 2)", "ln(x) / ln(2)"),
        ("e(x) + e^x + ln(x)", "exp(x) + e^x + ln(x)"),
        ("round(x)", "floor(x + 0.5)"),  # JavaScript's Math.round
        ("if(ceil((x)/(abs(x)+1)), floor((x)+0.5), ceil((x)-0.5))", "round(x)"),  # to_canvas's round
        ("pi() * pi", "pi * pi"),
        ("max(1, x, .5)", "max(1, x, 0.5)"),
    ],
)
def test_from_canvas(canvas: str, source: str) -> None:
    assert fm.to_source(fm.from_canvas(canvas)) == source


@pytest.mark.parametrize(
    ("canvas", "message", "offset"),
    [
        ("x = n*x", "an assignment", 2),
        ("fact(x)", "no counterpart of Canvas's fact()", 0),
        ("a.b + 1", "not an lmsexport name", 0),
        ("2 * -(x)", "after a sign", 5),
        ("sqrt + 1", "reserved name", 0),
        ("x $ 2", "reads no '$'", 2),
        ("(x + 1", "close parenthesis", 6),
    ],
)
def test_from_canvas_refuses_with_a_position(canvas: str, message: str, offset: int) -> None:
    with pytest.raises(fm.FormulaError) as info:
        fm.from_canvas(canvas)
    assert message in info.value.message and info.value.offset == offset


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(trees)
def test_from_canvas_reads_back_what_to_canvas_writes(tree: fm.Expr) -> None:
    """For any formula: to_canvas, then from_canvas, computes the same value (checked with
    lmsexport's evaluator on both trees, and with the calcCmd port on the text)."""
    try:
        ours = fm.evaluate(tree, ENV)
        scale = _subtrees_ok(tree, ENV)
    except fm.EvaluationError:
        assume(False)
        return
    assume(scale is not None and scale < 1e12)
    assert scale is not None
    text = fm.to_canvas(tree)
    back = fm.from_canvas(text)
    tol = 1e-9 * max(1.0, scale)
    assert abs(fm.evaluate(back, ENV) - ours) <= tol, (text, fm.to_source(back))
    assert abs(canvas_evaluate(text, ENV) - ours) <= tol
    assert fm.from_canvas(fm.to_canvas(back)) == back  # a fixed point after one trip


# --------------------------------------------------------------------------- the reader


def read(data: bytes) -> list[Question]:
    found = read_document(data, "x.xml")
    return [dq.question for qz in found.quizzes for dq in qz.questions]


def _xml(q: Quiz) -> bytes:
    return etree.tostring(qti12.assessment_tree(q), xml_declaration=True, encoding="utf-8")


def _kept(q: Question) -> list[tuple[dict[str, float], float]]:
    """A calculated question's variants as Canvas holds them: the values shown (at their
    decimals) and the answer at the question's decimals."""
    assert isinstance(q.body, Calculated)
    return [
        (
            {n: float(t) for n, t in shown_values(q.body.params, v).items()},
            float(fm.format_value(v.answer or 0.0, q.body.decimals)),
        )
        for v in q.body.variants
    ]


@pytest.mark.parametrize("make", ALL, ids=lambda f: f.__name__)
def test_our_calculated_question_comes_back_with_its_variants(make) -> None:  # type: ignore[no-untyped-def]
    q = make()
    assert isinstance(q.body, Calculated)
    (back,) = read(_xml(quiz(q)))
    body = back.body
    assert isinstance(body, Calculated)
    assert (body.tolerance, body.decimals) == (q.body.tolerance, q.body.decimals)
    # the formula read back from Canvas's syntax gives every stored answer
    assert [(v.env, float(fm.format_value(v.answer or 0.0, body.decimals))) for v in body.variants] == _kept(
        q
    )
    for mine, theirs in zip(q.body.variants, body.variants, strict=True):
        assert theirs.answer is not None and mine.answer is not None
        assert math.isclose(theirs.answer, mine.answer, rel_tol=1e-12, abs_tol=1e-12)
    assert back.stem == q.stem and back.name is None
    assert back.explanation == q.explanation
    assert (back.feedback.correct, back.feedback.incorrect) == (q.feedback.correct, q.feedback.incorrect)


def test_import_build_import_keeps_the_variants() -> None:
    q = zero3()
    (once,) = read(_xml(quiz(q)))
    (twice,) = read(_xml(quiz(replace(once, id=q.id))))
    assert twice.body == once.body
    assert twice.stem == once.stem


FORMULA_XML = b"""<?xml version="1.0" encoding="UTF-8"?>
<questestinterop xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2">
  <item ident="id39adb107fd2d03971a2d4206c6550dc" title="Question">
    <itemmetadata><qtimetadata>
      <qtimetadatafield><fieldlabel>question_type</fieldlabel>
        <fieldentry>calculated_question</fieldentry></qtimetadatafield>
      <qtimetadatafield><fieldlabel>points_possible</fieldlabel>
        <fieldentry>1.0</fieldentry></qtimetadatafield>
    </qtimetadata></itemmetadata>
    <presentation>
      <material><mattext texttype="text/html"
        >&lt;div&gt;&lt;p&gt;%(stem)s&lt;/p&gt;&lt;/div&gt;</mattext></material>
      <response_str ident="response1" rcardinality="Single">
        <render_fib fibtype="Decimal"><response_label ident="answer1"/></render_fib>
      </response_str>
    </presentation>
    <resprocessing>
      <outcomes><decvar maxvalue="100" minvalue="0" varname="SCORE" vartype="Decimal"/></outcomes>
      <respcondition title="correct"><conditionvar><other/></conditionvar>
        <setvar varname="SCORE" action="Set">100</setvar></respcondition>
      <respcondition title="incorrect"><conditionvar><not><other/></not></conditionvar>
        <setvar varname="SCORE" action="Set">0</setvar></respcondition>
    </resprocessing>
    <itemproc_extension><calculated>
      <answer_tolerance>%(tolerance)s</answer_tolerance>
      <formulas decimal_places="2">%(formulas)s</formulas>
      <vars>
        <var name="y" scale="2"><min>1.0</min><max>10.0</max></var>
        <var name="x" scale="2"><min>1.0</min><max>10.0</max></var>
        <var name="n" scale="2"><min>1.0</min><max>10.0</max></var>
        <var name="m" scale="2"><min>1.0</min><max>10.0</max></var>
      </vars>
      <var_sets>
        <var_set ident="8965">
          <var name="y">4.70</var>
          <var name="x">4.70</var>
          <var name="n">8.94</var>
          <var name="m">8.63</var>
          <answer>82.58</answer>
        </var_set>
        <var_set ident="2716">
          <var name="y">3.60</var>
          <var name="x">1.84</var>
          <var name="n">1.31</var>
          <var name="m">5.92</var>
          <answer>23.72</answer>
        </var_set>
        <var_set ident="549">
          <var name="y">7.33</var>
          <var name="x">4.30</var>
          <var name="n">3.67</var>
          <var name="m">3.27</var>
          <answer>39.75</answer>
        </var_set>
      </var_sets>
    </calculated></itemproc_extension>
  </item>
</questestinterop>
"""
"""instructure/qti@4141976 spec/fixtures/items_1.2/formula_mform.xml (a Canvas export, MIT
licence), cut to three var_sets, with the stem, tolerance and formulas as parameters."""


def _canvas_export(
    formulas: list[str], stem: str = "[n][x] + [m][y] {literal}", tolerance: str = "10%"
) -> bytes:
    text = "".join(f"<formula>{f}</formula>" for f in formulas)
    return FORMULA_XML % {
        b"formulas": text.encode(),
        b"stem": stem.encode(),
        b"tolerance": tolerance.encode(),
    }


def test_a_canvas_export_with_a_translatable_formula() -> None:
    (q,) = read(_canvas_export(["n*x+m*y"]))
    body = q.body
    assert isinstance(body, Calculated)
    assert body.answer.text == "n * x + m * y"
    assert body.tolerance == Tolerance(0.1, ToleranceKind.RELATIVE) and body.decimals == 2
    assert [v.name for v in body.params.variables] == ["y", "x", "n", "m"]
    assert body.params.variables[0] == RangeVariable("y", 1.0, 10.0, 0.01, 2)
    assert [v.env for v in body.variants][0] == {"y": 4.7, "x": 4.7, "n": 8.94, "m": 8.63}
    assert [round(v.answer or 0, 2) for v in body.variants] == [82.58, 23.72, 39.75]
    assert q.stem == _rich_or_text(q, "{n}{x} + {m}{y} {{literal}}")


def _rich_or_text(q: Question, words: str) -> object:
    from lmsexport.model import plain_text

    assert plain_text(q.stem) == words
    return q.stem


def test_a_canvas_export_whose_formula_does_not_translate_keeps_the_answers() -> None:
    """formula_mform.xml's formula lines assign (x = n*x): no lmsexport formula; the stored
    answers become the values of a variable `answer`, which is the answer formula (named)."""
    data = _canvas_export(["x=n*x", "y=m*y", "x+y"])
    found = read_document(data, "x.xml")
    (dq,) = [d for qz in found.quizzes for d in qz.questions]
    body = dq.question.body
    assert isinstance(body, Calculated)
    assert body.answer.text == "answer"
    assert [v.name for v in body.params.variables] == ["y", "x", "n", "m", "answer"]
    assert [v.answer for v in body.variants] == [82.58, 23.72, 39.75]
    assert [v.env["answer"] for v in body.variants] == [82.58, 23.72, 39.75]
    (warning,) = [d for d in found.diags if d.rule == "import.formula-not-carried"]
    assert "x=n*x, y=m*y, x+y" in warning.message and "'answer'" in warning.message


def test_a_formula_whose_values_are_not_the_stored_answers_keeps_the_answers() -> None:
    (q,) = read(_canvas_export(["n*x"]))  # translates, but is not what the var_sets hold
    assert isinstance(q.body, Calculated) and q.body.answer.text == "answer"


def test_a_canvas_export_is_read_and_written_back_as_canvas_wrote_it() -> None:
    (q,) = read(_canvas_export(["n*x+m*y"]))
    (item,) = items(quiz(replace(q, id="again"))).values()
    assert [f.text for f in item.iter("formula")] == ["n * x + m * y"]
    assert var_sets(item)[0] == ({"y": "4.70", "x": "4.70", "n": "8.94", "m": "8.63"}, "82.58")
    assert item.findtext("itemproc_extension/calculated/answer_tolerance") == "10%"


# --------------------------------------------------------------------------- round trips


NAMES = ("a", "b", "c")


@st.composite
def calculated_questions(draw_: st.DrawFn) -> Question:
    """A calculated question over two or three variables (ranges with decimals, lists), with
    an answer formula of them, drawn by variants.draw (locally: tests/strategies.py has none
    yet)."""
    n = draw_(st.integers(2, 3))
    variables: list[RangeVariable | ListVariable] = []
    for name in NAMES[:n]:
        if draw_(st.booleans()):
            decimals = draw_(st.integers(0, 2))
            step = 10.0**-decimals * draw_(st.sampled_from([1, 2, 5]))
            low = draw_(st.integers(-20, 20)) * step
            variables.append(
                RangeVariable(
                    name,
                    round(low, decimals),
                    round(low + step * 30, decimals),
                    round(step, decimals),
                    decimals,
                )
            )
        else:
            values = draw_(
                st.lists(
                    st.sampled_from([1.0, 2.0, 2.5, 8.0, 16.0, 0.75, 64.0]),
                    min_size=1,
                    max_size=4,
                    unique=True,
                )
            )
            variables.append(ListVariable(name, tuple(values)))
    answer = draw_(
        st.sampled_from(
            ["a + b", "a * b - 2", "(a - b) / 4", "a^2 + b", "abs(a) + sqrt(abs(b))", "max(a, b) * 3"]
        )
    )
    if n == 3:
        answer += " + c / 2"
    decimals = draw_(st.integers(0, 4))
    tolerance = draw_(
        st.sampled_from([Tolerance(0.0), Tolerance(0.01, ToleranceKind.RELATIVE), Tolerance(0.5)])
    )
    params = Parameters(tuple(variables), count=draw_(st.integers(1, 12)))
    qid = draw_(st.sampled_from(["q1", "zero", "bubble"]))
    stem = " ".join(f"{{{v.name}}}" for v in variables) + " = ?"
    return calculated(qid, params, answer, stem, tolerance, decimals)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calculated_questions())
def test_any_calculated_question_is_valid_and_comes_back_with_its_variants(q: Question) -> None:
    assert isinstance(q.body, Calculated)
    tree = qti12.assessment_tree(quiz(q))
    assert validate_qti12_tree(tree, "x.xml") == []
    (back,) = read(_xml(quiz(q)))
    assert isinstance(back.body, Calculated)
    assert back.stem == q.stem
    assert (back.body.tolerance, back.body.decimals) == (q.body.tolerance, q.body.decimals)
    assert [
        (v.env, float(fm.format_value(v.answer or 0.0, back.body.decimals))) for v in back.body.variants
    ] == _kept(q)
    assert back.body.answer.text != "answer"  # the formula translated back
    (again,) = read(_xml(quiz(replace(back, id=q.id))))
    assert again.body == back.body


def test_a_rich_stem_shows_each_value_where_canvas_fills_it_in() -> None:
    """In a formula a name is ``\\text{[name]}``: MathML ``<mtext>[N]</mtext>``, one text node
    Canvas's ``gsub`` reaches; in prose, emphasis and links ``[name]``; code is verbatim."""
    from lmsexport.model import Code, Emph, Math, Para, Rich, Str

    stem = Rich(
        (
            Para(
                (
                    Str("A model of "),
                    Math("{N} \\times 16", False),
                    Str(" GB on "),
                    Emph((Str("{G} GPUs"),)),
                    Str(" ({{not a name}}): "),
                    Code("{N}"),
                )
            ),
        )
    )
    q = replace(zero3(), stem=stem, explanation=None, feedback=OutcomeFeedback())
    (item,) = items(quiz(q)).values()
    html = item.findtext("presentation/material/mattext")
    assert "<mtext>[N]</mtext>" in html and "<em>[G] GPUs</em>" in html and "({not a name})" in html
    assert "<code" in html and ">{N}</code>" in html
    assert validate_qti12_tree(qti12.assessment_tree(quiz(q)), "x.xml") == []
    (back,) = read(_xml(quiz(q)))
    assert back.stem == stem


def test_a_literal_bracketed_name_in_the_text_is_named() -> None:
    q = replace(bubble(), stem="stages[p] = {p}, {m} micro-batches: bubble?")
    rules = [w.rule for w in qti12.lossy_warnings(quiz(q))]
    assert rules == ["qti12.brackets-not-carried"]


# --------------------------------------------------------------------------- the parametric case

PARAMETRIC = Path(__file__).parent / "cases" / "parametric"


def _case() -> Bank:
    from lmsexport.source import load_paths

    return load_paths([PARAMETRIC])


def test_the_parametric_packages_are_valid_and_golden(golden) -> None:  # type: ignore[no-untyped-def]
    """tests/cases/parametric/expected/qti12/: every package of the case."""
    out = build_qti12(_case(), CTX)
    assert sorted(out.files) == [
        "qti12/parametric-exam.zip",
        "qti12/parametric-plain.zip",
        "qti12/parametric.zip",
    ]
    for path, data in out.files.items():
        assert validate_qti12_package(data, path) == []
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for name in zf.namelist():
                golden(PARAMETRIC / "expected" / Path(path).with_suffix("").as_posix() / name, zf.read(name))


def test_the_parametric_cartridges_are_valid_and_golden(golden) -> None:  # type: ignore[no-untyped-def]
    """tests/cases/parametric/expected/{cc,cc11}/: both cartridges' files."""
    from lmsexport.validate_qti12 import validate_cartridge
    from lmsexport.writers.cc13 import build_cc11, build_cc13

    bank = _case()
    for build, fmt in ((build_cc13, "cc13"), (build_cc11, "cc11")):
        out = build(bank, WriteContext(formats=(fmt,)))
        for path, data in out.files.items():
            assert validate_cartridge(data, path) == []
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for name in zf.namelist():
                    golden(
                        PARAMETRIC / "expected" / Path(path).with_suffix("").as_posix() / name, zf.read(name)
                    )


def test_canvas_computes_every_stored_answer_of_the_bank() -> None:
    """Every var_set of every calculated_question the case's packages hold: the calcCmd port on
    the stored formula and values gives the stored answer within its decimal places, and the
    stored answer is the loader's key at its decimals."""
    bank = _case()
    models = {q.id: q for qz in bank.quizzes for q in qz.questions}
    checked = 0
    for data in build_qti12(bank, CTX).files.values():
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            docs = [etree.fromstring(zf.read(n)) for n in zf.namelist() if n.endswith(".xml")]
        for doc in docs:
            for item in doc.iter("item"):
                calc = item.find("itemproc_extension/calculated")
                if calc is None:
                    continue
                q = models[item.get("ident")]
                assert isinstance(q.body, Calculated)
                formula = calc.findtext("formulas/formula")
                places = int(calc.find("formulas").get("decimal_places"))
                for (values, answer), variant in zip(var_sets(item), q.body.variants, strict=True):
                    got = canvas_evaluate(formula, {n: float(t) for n, t in values.items()})
                    assert abs(got - float(answer)) <= 0.5 * 10**-places * (1 + 1e-9), (
                        q.id,
                        values,
                        got,
                        answer,
                    )
                    assert answer == fm.format_value(variant.answer or 0.0, q.body.decimals)
                    checked += 1
    assert checked >= 100


def test_the_parametric_bank_comes_back_with_its_variants() -> None:
    """The case's packages read back: every calculated question with its variants' values and
    answers (at the decimals Canvas stores), its formula read back from Canvas's syntax (texts
    compared as words: a one-paragraph Markdown text comes back as plain text)."""
    bank = _case()
    out = build_qti12(bank, CTX)
    for qz in bank.quizzes:
        data = out.files[f"qti12/{qz.id}.zip"]
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            back = {plain_text(q.stem): q for q in read(zf.read(f"{qz.id}/{qz.id}.xml"))}
        for q in qz.questions:
            if not isinstance(q.body, Calculated):
                continue
            got = back[plain_text(q.stem)]
            assert isinstance(got.body, Calculated)
            assert got.name == q.name
            assert [
                (v.env, float(fm.format_value(v.answer or 0.0, got.body.decimals))) for v in got.body.variants
            ] == _kept(q), q.id
            assert got.body.answer.text != "answer", q.id


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.data())
def test_any_parametric_question_of_the_shared_strategies_is_valid_and_comes_back(
    data: st.DataObject,
) -> None:
    """tests/strategies.py's parametric questions (SRC2's, as the loader reads them), in a quiz
    with the other kinds: the Canvas package and both cartridges validate, and every
    calculated question comes back with its variants (values and answers as Canvas stores them)."""
    from strategies import parametric_questions

    from lmsexport.validate_qti12 import validate_cartridge
    from lmsexport.writers.cc13 import build_cc11, build_cc13

    qs = [
        data.draw(parametric_questions(f"p{i}", everything=True)) for i in range(data.draw(st.integers(1, 3)))
    ]
    qz = replace(quiz(*qs), lang="en")
    bank = Bank((qz,))
    out = build_qti12(bank, CTX)
    (package,) = out.files.values()
    assert validate_qti12_package(package) == []
    for build, fmt in ((build_cc13, "cc13"), (build_cc11, "cc11")):
        for path, cartridge in build(bank, WriteContext(formats=(fmt,))).files.items():
            assert validate_cartridge(cartridge, path) == []
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        back = read(zf.read(f"{qz.id}/{qz.id}.xml"))
    calculated_back = [q for q in back if isinstance(q.body, Calculated)]
    mine = [q for q in qs if isinstance(q.body, Calculated)]
    assert len(calculated_back) == len(mine)
    for q, got in zip(mine, calculated_back, strict=True):
        assert isinstance(got.body, Calculated) and isinstance(q.body, Calculated)
        kept = _kept(q)[:200]
        assert [
            (v.env, float(fm.format_value(v.answer or 0.0, got.body.decimals))) for v in got.body.variants
        ] == kept


def test_lmsexport_import_build_import_keeps_the_variants() -> None:
    """The whole path (`lmsexport import` to YAML, the loader, a build, an import again, as in
    test_qti12._import_files): every calculated question of the case keeps its variants, values
    and answers, and the second import is the first."""
    from test_qti12 import _import_files

    bank = _case()
    once = _import_files(build_qti12(bank, CTX).files)
    twice = _import_files(build_qti12(once, CTX).files)
    got = {q.id: q for qz in once.quizzes for q in qz.questions if isinstance(q.body, Calculated)}
    again = {q.id: q for qz in twice.quizzes for q in qz.questions if isinstance(q.body, Calculated)}
    mine = [q for qz in bank.quizzes for q in qz.questions if isinstance(q.body, Calculated)]
    assert sorted(got) == sorted(q.id for q in mine)
    for q in mine:
        body = got[q.id].body
        assert isinstance(body, Calculated)
        assert [
            (v.env, float(fm.format_value(v.answer or 0.0, body.decimals))) for v in body.variants
        ] == _kept(q)
        assert again[q.id].body == body
        assert again[q.id].stem == got[q.id].stem
