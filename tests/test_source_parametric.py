"""The loader on issue 24's kinds: calculated and calculated_choice questions as
tests/cases/parametric holds them (variables, derived values, constraints, tolerances, units,
the quiz's and a question's count of variants, an explicit list), their variants drawn by
variants.draw with the question id's seed, every {name} of their texts checked; and
variants.instantiate / substitute_text on them. Every loader error of these kinds, located, is
a case of the bad-input corpus (tests/bad/yaml/param-*.yaml), run by tests/test_bad_inputs.py."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import parametric_questions

import lmsexport.variants as V
from lmsexport import formula as fm
from lmsexport.errors import SourceError
from lmsexport.model import (
    Calculated,
    CalculatedChoice,
    ListVariable,
    Math,
    MultipleChoice,
    Numerical,
    Para,
    Question,
    RangeVariable,
    Rich,
    SingleChoice,
    Str,
    Tolerance,
    ToleranceKind,
    Unit,
    plain_text,
)
from lmsexport.source import load_paths, load_text

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "cases" / "parametric"


@pytest.fixture(scope="module")
def bank():  # type: ignore[no-untyped-def]
    return load_paths([CASE])


def _q(bank, qid: str) -> Question:  # type: ignore[no-untyped-def]
    return next(q for quiz in bank.quizzes for q in quiz.questions if q.id == qid)


def test_the_case_reads_every_parametric_feature(bank) -> None:  # type: ignore[no-untyped-def]
    z3 = _q(bank, "pm-zero3").body
    assert isinstance(z3, Calculated)
    n, g = z3.params.variables
    assert n == RangeVariable("N", 1.0, 70.0, 1.0, 0) and g == ListVariable(
        "G", (8.0, 16.0, 32.0, 64.0, 128.0)
    )
    assert [d.name for d in z3.params.derived] == ["total"] and z3.params.derived[0].decimals == 0
    assert [c.formula.text for c in z3.params.constraints] == ["G <= 8*N", "16*N/G <= 80"]
    assert z3.tolerance == Tolerance(0.01, ToleranceKind.RELATIVE) and z3.decimals == 2
    assert z3.units == (Unit("GB"), Unit("MB", 1000.0))
    assert z3.params.count == 30 and len(z3.variants) == 30
    # the quiz's `variants: 12` for a question without its own
    z1 = _q(bank, "pm-zero1").body
    assert z1.params.count is None and len(z1.variants) == 12
    # an explicit list, in its order, derived values computed
    z2 = _q(bank, "pm-zero2").body
    assert [(v.env["N"], v.env["G"], v.answer) for v in z2.variants] == [
        (7, 8, 26.25),
        (13, 16, 37.375),
        (30, 32, 73.125),
        (70, 64, 155.3125),
    ]
    assert z2.tolerance == Tolerance(0.005, ToleranceKind.RELATIVE)
    nz = _q(bank, "pm-no-zero").body
    assert nz.params.variables[0] == RangeVariable("N", 0.1, 3.0, 0.1, 1)
    assert nz.tolerance == Tolerance(0.05) and nz.decimals == 1
    bubble = _q(bank, "pm-bubble")
    assert bubble.lang == "en" and isinstance(bubble.body, Calculated)
    assert [d.formula.text for d in bubble.body.params.derived] == ["p - 1", "m + p - 1"]


def test_every_stored_variant_is_technically_right(bank) -> None:  # type: ignore[no-untyped-def]
    """An independent computation of each key from the physics: mixed-precision Adam keeps 16
    bytes per parameter (2 + 2 + 12); per GPU ZeRO-1 4N + 12N/G, ZeRO-2 2N + 14N/G, ZeRO-3
    16N/G; the bubble (p-1)/(m+p-1). Every constraint holds and every variant is distinct."""
    expected = {
        "pm-zero3": lambda e: 16 * e["N"] / e["G"],
        "pm-zero1": lambda e: (2 + 2) * e["N"] + 12 * e["N"] / e["G"],
        "pm-zero2": lambda e: 2 * e["N"] + (2 + 12) * e["N"] / e["G"],
        "pm-no-zero": lambda e: 16 * e["N"],
        "pm-bubble": lambda e: (e["p"] - 1) / (e["m"] + e["p"] - 1),
        "pp-zero3-fits": lambda e: 16 * e["N"] / e["G"],
    }
    seen = 0
    for quiz in bank.quizzes:
        for q in quiz.questions:
            body = q.body
            keys = [tuple(v.values) for v in body.variants]
            assert len(set(keys)) == len(keys), q.id
            for v in body.variants:
                e = v.env
                seen += 1
                if q.id in expected:
                    assert math.isclose(v.answer, expected[q.id](e), rel_tol=1e-12), (q.id, v)
                if q.id == "pm-zero3":
                    assert e["G"] <= 8 * e["N"] and 16 * e["N"] / e["G"] <= 80
                if q.id == "pm-bubble":
                    assert e["m"] >= e["p"] and 0 < v.answer < 1
                if q.id == "pm-zero-choice":
                    n, g = e["N"], e["G"]
                    assert v.choices == (
                        2 * n + 14 * n / g,
                        4 * n + 12 * n / g,
                        16 * n / g,
                        2 * n + 12 * n / g,
                        16 * n,
                    )
                    shown = {fm.format_value(x, 2) for x in v.choices}
                    assert len(shown) == 5  # no two choices alike
    assert seen == sum(len(q.body.variants) for quiz in bank.quizzes for q in quiz.questions) > 100


def test_variants_are_drawn_with_the_question_ids_seed(bank) -> None:  # type: ignore[no-untyped-def]
    """The same YAML gives the same variants in any process; another id, other variants."""
    z3 = _q(bank, "pm-zero3")
    body = z3.body
    again = V.draw("pm-zero3", body.params, answer=body.answer, tolerance=body.tolerance, decimals=2)
    assert again.variants == body.variants
    other = V.draw("pm-zero3b", body.params, answer=body.answer, tolerance=body.tolerance, decimals=2)
    assert other.variants != body.variants
    assert load_paths([CASE]) == bank


def test_instantiate_gives_ordinary_questions_with_the_numbers_in_place(bank) -> None:  # type: ignore[no-untyped-def]
    z3 = _q(bank, "pm-zero3")
    v = z3.body.variants[0]
    n, g, total = (fm.format_value(v.env[k]) for k in ("N", "G", "total"))
    one = V.instantiate(z3, v)
    assert one.id == "pm-zero3-v001" and isinstance(one.body, Numerical)
    key = one.body.keys[0]
    assert key.answer == v.answer and math.isclose(key.tolerance, 0.01 * v.answer)
    assert one.body.units == z3.body.units
    assert f"{n} ارب" in plain_text(one.stem) and f"{g} GPUs" in plain_text(one.stem)
    assert "{" not in plain_text(one.stem)
    # inside TeX a placeholder keeps TeX's group braces: \frac{total}{G} -> \frac{704}{128}
    maths = [x.tex for b in one.explanation.blocks for x in b.children if isinstance(x, Math)]
    assert f"\\frac{{{total}}}{{{g}}}" in maths and f"16 \\times {{{n}}} = {{{total}}}" in maths
    assert plain_text(one.hints[1].text) == f"کل {total} GB ہے؛ اب اسے GPUs کی تعداد پر تقسیم کریں۔"
    assert f"{g} حصوں" in plain_text(one.feedback.incorrect)
    choice = _q(bank, "pm-zero-choice")
    cv = choice.body.variants[2]
    inst = V.instantiate(choice, cv)
    assert isinstance(inst.body, SingleChoice) and inst.id == "pm-zero-choice-v003"
    assert [c.text for c in inst.body.choices] == [fm.format_value(x, 2) for x in cv.choices]
    assert [c.credit for c in inst.body.choices] == [1.0, 0, 0, 0, 0]
    assert fm.format_value(cv.env["G"]) in plain_text(inst.body.choices[1].feedback)
    plain = _q(bank, "pp-fractions")
    inst = V.instantiate(plain, plain.body.variants[0])
    assert isinstance(inst.body, MultipleChoice) and [c.credit for c in inst.body.choices] == [
        1.0,
        -0.5,
        -0.5,
    ]
    # a literal {{ }} is one brace once substituted
    bubble = _q(bank, "pm-bubble")
    assert "{2, 4, 8, 16}" in plain_text(V.instantiate(bubble, bubble.body.variants[0]).explanation)


def test_substitute_text_reaches_every_str_and_tex_never_code() -> None:
    from lmsexport.model import BulletList, Code, Emph, Link, Table

    values = {"N": "70", "G": "8"}
    text = Rich(
        (
            Para((Str("{N} on {G}, {{x}}"), Math("\\frac{N}{G} + \\frac{1}{2}"), Code("{N}"))),
            BulletList(((Para((Emph((Str("{G}"),)), Link("https://x.invalid/{N}", (Str("{N}"),)))),),)),
            Table(((Str("{N}"),),), (((Str("{G}"),),),), ("",)),
        )
    )
    out = V.substitute_text(text, values)
    assert out == Rich(
        (
            Para((Str("70 on 8, {x}"), Math("\\frac{70}{8} + \\frac{1}{2}"), Code("{N}"))),
            BulletList(((Para((Emph((Str("8"),)), Link("https://x.invalid/{N}", (Str("70"),)))),),)),
            Table(((Str("70"),),), (((Str("8"),),),), ("",)),
        )
    )
    with pytest.raises(V.SubstitutionError) as err:
        V.substitute("ZeRO on {Gpu} GPUs", values)
    assert err.value.offset == 8 and err.value.hint == "did you mean {G}?"
    assert [(t, e.offset, e.message) for t, e in V.text_problems("a } b {n} {{ {=1}", {"N": "1"})] == [
        ("}", 2, "unmatched '}'"),
        ("{n}", 6, "unknown variable {n} in the text"),
        ("{=1}", 13, "inline formulas {=...} are not part of the source format"),
    ]


def _one(question: str) -> object:
    return load_text("id: q\ntitle: T\nlang: en\nquestions:\n" + question, "q.yaml")


def test_a_range_reads_its_decimals_from_its_step_or_its_step_from_its_decimals() -> None:
    quiz = _one(
        "  - {id: a, type: calculated, stem: '{x} {y} {z} {w}', explanation: e, variants: 2,\n"
        "     variables: {x: {min: 0.5, max: 0.9, step: 0.1}, y: {min: 1, max: 2, decimals: 2},\n"
        "                 z: {min: 0.25, max: 2.25}, w: {values: [1, 2.5], decimals: 1}},\n"
        "     answer: {formula: x + y + z + w, tolerance: 0.01}}\n"
    )
    x, y, z, w = quiz.questions[0].body.params.variables  # type: ignore[union-attr]
    assert x == RangeVariable("x", 0.5, 0.9, 0.1, 1)
    assert y == RangeVariable("y", 1.0, 2.0, 0.01, 2)
    assert z == RangeVariable("z", 0.25, 2.25, 1.0, 2)
    assert w == ListVariable("w", (1.0, 2.5), 1)


def test_explicit_variants_are_checked_as_drawn_ones() -> None:
    base = (
        "  - {id: a, type: calculated, stem: '{N} {G}', explanation: e, answer: 16*N/G,\n"
        "     variables: {N: {min: 1, max: 70}, G: [8, 16]}, constraints: [G != 0],\n"
        "     variants: %s}\n"
    )
    quiz = _one(base % "[{N: 3, G: 8}, {N: 1, G: 16}]")
    assert [v.answer for v in quiz.questions[0].body.variants] == [6.0, 1.0]  # type: ignore[union-attr]
    with pytest.raises(SourceError) as err:
        _one(base % "[{N: 3, G: 0}]")
    assert "does not satisfy constraint 'G != 0'" in str(err.value)


def test_a_blank_takes_any_percentage_a_question_only_moodles_grades() -> None:
    """Moodle's cloze takes any percentage in a blank (its fixture multianswer-all-types.xml
    has %66%); a question's top-level credits must be on Moodle's list of grades."""
    quiz = _one(
        "  - id: c\n    type: cloze\n    stem: '[[1]]'\n    explanation: e\n    blanks:\n"
        "      - {type: short_answer, answers: [a, {text: b, credit: 66%}]}\n"
    )
    blank = quiz.questions[0].body.blanks[0]  # type: ignore[union-attr]
    assert [a.credit for a in blank.answers] == [1.0, 0.66]
    with pytest.raises(SourceError) as err:
        _one(
            "  - {id: s, stem: s, explanation: e, choices: [{text: a, credit: 1}, {text: b, credit: 66%}]}\n"
        )
    assert "not on Moodle's list of grades" in str(err.value)


def test_texts_of_other_questions_keep_their_braces() -> None:
    quiz = _one(
        "  - {id: s, stem: 'a set {1, 2} and {N}', explanation: e,\n"
        "     choices: [{text: a, correct: true}, {text: b}]}\n"
    )
    assert quiz.questions[0].stem == "a set {1, 2} and {N}"  # type: ignore[union-attr]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(parametric_questions("q-1", everything=True))
def test_instantiate_every_variant_of_any_parametric_question(question: Question) -> None:
    """Each variant instantiates (no brace left unescaped, one key per variant, its texts
    substituted), and the key it stores is graded right by lmsexport's own tolerance."""
    body = question.body
    assert isinstance(body, Calculated | CalculatedChoice)
    for v in body.variants:
        one = V.instantiate(question, v)
        assert one.id == V.variant_id(question.id, v)
        if isinstance(body, Calculated):
            assert isinstance(one.body, Numerical) and one.body.keys[0].answer == v.answer
            shown = fm.round_value(v.answer, body.decimals)
            assert V.accepts(v.answer, body.tolerance, shown)
        else:
            assert isinstance(one.body, MultipleChoice if body.multiple else SingleChoice)
            assert len({c.text for c in one.body.choices}) == len(body.choices)


def test_the_banks_parametric_questions_are_right_in_every_variant() -> None:
    """source/zero-memory-arithmetic.yaml: model state per GPU under ZeRO-1, 2 and 3 for Psi
    billion parameters on N_d GPUs (16 bytes per parameter with mixed-precision Adam: 2 + 2 +
    12), the usual mistakes as distractors, and the pipeline bubble, each computed here from the
    physics in every stored variant."""
    quiz = next(q for q in load_paths([ROOT / "source"]).quizzes if q.id == "zero-memory-arithmetic")
    per_gpu = {
        "zma-calc-zero1": lambda psi, nd: (2 + 2) * psi + 12 * psi / nd,
        "zma-calc-zero2": lambda psi, nd: 2 * psi + (2 + 12) * psi / nd,
        "zma-calc-zero3": lambda psi, nd: (2 + 2 + 12) * psi / nd,
    }
    found = set()
    for q in quiz.questions:
        body = q.body
        if not isinstance(body, Calculated | CalculatedChoice):
            continue
        found.add(q.id)
        assert len(body.variants) == 30 and len({v.values for v in body.variants}) == 30, q.id
        for v in body.variants:
            e = v.env
            if q.id in per_gpu:
                assert math.isclose(v.answer, per_gpu[q.id](e["Psi"], e["Nd"]), rel_tol=1e-12)
            elif q.id == "zma-calc-bubble":
                assert e["m"] >= e["p"] and math.isclose(v.answer, (e["p"] - 1) / (e["m"] + e["p"] - 1))
            else:
                psi, nd = e["Psi"], e["Nd"]
                assert v.choices[0] == 4 * psi + 12 * psi / nd  # the key: ZeRO-1
                assert set(v.choices[1:]) == {
                    2 * psi + 14 * psi / nd,
                    16 * psi / nd,
                    16 * psi,
                    4 * psi + 8 * psi / nd,
                }
    assert found == {*per_gpu, "zma-calc-bubble", "zma-calc-stage-choice"}
