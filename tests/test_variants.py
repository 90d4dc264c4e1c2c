"""Drawing and checking variants: determinism, constraints, the checks' messages, texts, and the
ZeRO / pipeline-bubble examples verified per variant with the Moodle and Canvas oracles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmsexport.errors import Severity, SourceError
from lmsexport.formula import evaluate, format_value, parse, to_canvas, to_moodle
from lmsexport.model import SourceLoc
from lmsexport.variants import (
    Constraint,
    Derived,
    Formula,
    ListVariable,
    Parameters,
    RangeVariable,
    SubstitutionError,
    Tolerance,
    ToleranceKind,
    accepts,
    domain,
    draw,
    over_limits,
    placeholders,
    seed_for,
    substitute,
)
from tests.formula_oracles import canvas_evaluate, moodle_evaluate

ROOT = Path(__file__).resolve().parent.parent
LOC = SourceLoc("source/zero.yaml", 14, 13)
REL1 = Tolerance(0.01, ToleranceKind.RELATIVE)

N = RangeVariable("N", 1, 70, 1, 0)
"""Billions of parameters."""
G = ListVariable("G", (8.0, 16.0, 32.0, 64.0))
"""GPUs."""
ZERO = Parameters((N, G), count=30)


def messages(info: pytest.ExceptionInfo[SourceError]) -> list[str]:
    return [d.format() for d in info.value.diagnostics]


# --------------------------------------------------------------------------- domains, seeds


def test_domains() -> None:
    assert domain(RangeVariable("x", 1, 5, 2, 0)) == (1.0, 3.0, 5.0)
    assert domain(RangeVariable("x", 0.1, 0.5, 0.1, 1)) == (0.1, 0.2, 0.3, 0.4, 0.5)  # no 0.30000000000000004
    assert domain(RangeVariable("x", 1, 2, 0.25, 2))[-1] == 2.0
    assert domain(RangeVariable("x", 1, 1.9, 0.5, 1)) == (1.0, 1.5)
    assert domain(G) == G.values


def test_seed_is_sha256_of_the_id() -> None:
    assert seed_for("zero-3") == seed_for("zero-3") != seed_for("zero-2")
    import hashlib

    digest = hashlib.sha256(b"lmsexport-variants\0zero-3").digest()
    assert seed_for("zero-3") == int.from_bytes(digest[:8], "big")


def _drawn_json(qid: str) -> str:
    d = draw(qid, ZERO, answer=Formula("16*N/G"))
    return json.dumps([[v.values, v.answer] for v in d.variants])


def test_same_id_same_variants_in_every_process() -> None:
    here = _drawn_json("zero-3")
    assert here == _drawn_json("zero-3")
    assert here != _drawn_json("zero-2")
    code = "from tests.test_variants import _drawn_json; print(_drawn_json('zero-3'))"
    for seed in ("0", "1", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == here


def test_the_draw_is_pinned() -> None:
    """A change of these values changes every built package: it must be deliberate."""
    d = draw("zero-3", ZERO, answer=Formula("16*N/G"))
    first = [(v.env["N"], v.env["G"]) for v in d.variants[:5]]
    assert first == [(26.0, 64.0), (50.0, 16.0), (21.0, 8.0), (49.0, 8.0), (63.0, 16.0)]


def test_variants_are_distinct_and_numbered() -> None:
    d = draw("zero-3", ZERO, answer=Formula("16*N/G"))
    assert [v.number for v in d.variants] == list(range(1, 31))
    assert len({v.values for v in d.variants}) == 30
    assert all(v.env["N"] in domain(N) and v.env["G"] in G.values for v in d.variants)


def test_large_spaces_are_sampled_without_duplicates() -> None:
    big = Parameters((RangeVariable("x", 0, 9999, 1, 0), RangeVariable("y", 0, 9999, 1, 0)), count=200)
    d = draw("big", big, answer=Formula("x + y"))
    assert len({v.values for v in d.variants}) == 200
    assert d.variants == draw("big", big, answer=Formula("x + y")).variants


# --------------------------------------------------------------------------- constraints


def test_constraints_filter_every_variant() -> None:
    p = Parameters(
        (N, G), constraints=(Constraint(Formula("G <= N")), Constraint(Formula("N != 64"))), count=50
    )
    d = draw("c", p, answer=Formula("N / G"))
    assert all(v.env["G"] <= v.env["N"] != 64 for v in d.variants)


def test_a_constraint_guards_a_derived_value() -> None:
    p = Parameters(
        (RangeVariable("a", 0, 5, 1, 0),),
        derived=(Derived("inv", Formula("1 / a")),),
        constraints=(Constraint(Formula("a != 0")),),
        count=5,
    )
    d = draw("guard", p, answer=Formula("inv"))
    assert sorted(v.answer for v in d.variants if v.answer is not None) == [0.2, 0.25, 1 / 3, 0.5, 1.0]


def test_unsatisfiable_constraint_is_named() -> None:
    p = Parameters((N,), constraints=(Constraint(Formula("N > 0")), Constraint(Formula("N > 100", LOC))))
    with pytest.raises(SourceError) as info:
        draw("u", p, answer=Formula("N"))
    assert messages(info) == [
        "source/zero.yaml:14:13: error: no variant satisfies constraint 'N > 100' "
        "(70 of the 70 value combinations fail it)\n"
        "hint: widen the variables' ranges or loosen the constraint"
    ]


def test_unsatisfiable_constraint_in_a_sampled_space() -> None:
    big = Parameters(
        (RangeVariable("x", 0, 9999, 1, 0), RangeVariable("y", 0, 9999, 1, 0)),
        constraints=(Constraint(Formula("x + y < 0", LOC)),),
        count=2,
    )
    with pytest.raises(SourceError) as info:
        draw("big", big, answer=Formula("x"))
    assert messages(info)[0].startswith(
        "source/zero.yaml:14:13: error: no variant satisfies constraint 'x + y < 0' "
        "(400 in 400 value combinations"
    )


def test_too_few_variants_is_a_warning() -> None:
    d = draw("few", Parameters((RangeVariable("N", 1, 3, 1, 0),), count=10), answer=Formula("N"), loc=LOC)
    assert len(d.variants) == 3
    (w,) = d.warnings
    assert w.severity is Severity.WARNING and w.rule == "param.few-variants"
    assert w.format() == (
        "source/zero.yaml:14:13: warning: question 'few' asks for 10 variants but only 3 distinct "
        "ones exist; it gets 3\nhint: widen the ranges, loosen the constraints, or ask for fewer"
    )


# --------------------------------------------------------------------------- checks


def test_every_problem_is_reported_with_its_position() -> None:
    p = Parameters(
        (N, G, RangeVariable("pi", 1, 2, 1, 0), RangeVariable("N", 1, 2, 1, 0)),
        derived=(Derived("B", Formula("16*n", SourceLoc("z.yaml", 9, 14))),),
        constraints=(Constraint(Formula("G <= ", SourceLoc("z.yaml", 10, 7))),),
    )
    with pytest.raises(SourceError) as info:
        draw("bad", p, answer=Formula("B/Gpu", SourceLoc("z.yaml", 11, 13)))
    assert messages(info) == [
        "<formula>:1:1: error: variable name 'pi' is reserved\nhint: choose another name",
        "<formula>:1:1: error: variable N is declared twice",
        "z.yaml:9:17: error: unknown variable n\nhint: did you mean N?",
        "z.yaml:10:12: error: expected a number, a name or '(', found the end of the formula\n"
        "hint: an operator needs a value on each side",
        "z.yaml:11:15: error: unknown variable Gpu\nhint: did you mean G?",
    ]


def test_division_by_zero_names_the_variant() -> None:
    with pytest.raises(SourceError) as info:
        draw("zero-3", ZERO, answer=Formula("16*N/(G-8)", LOC))
    (m,) = messages(info)
    assert m.startswith("source/zero.yaml:14:17: error: the answer '16*N/(G-8)': division by zero (")
    assert " when N=" in m and ", G=8\nhint: add a constraint that excludes these values" in m


def test_non_finite_answer() -> None:
    p = Parameters((RangeVariable("x", 1, 400, 1, 0),))
    with pytest.raises(SourceError) as info:
        draw("big-power", p, answer=Formula("10^x", LOC), count=400)
    assert "error: the answer '10^x': the result of 10 ^ " in messages(info)[0]
    assert messages(info)[0].startswith("source/zero.yaml:14:15:")


def test_variable_definitions_are_checked() -> None:
    p = Parameters(
        (
            RangeVariable("a", 5, 1, 1, 0),
            RangeVariable("b", 0, 1, 0.05, 1),
            RangeVariable("c", 0, 1, 0, 0),
            ListVariable("d", ()),
            ListVariable("f", (1.0, 1.0)),
        )
    )
    with pytest.raises(SourceError) as info:
        draw("defs", p, answer=Formula("a"))
    assert [d.message for d in info.value.diagnostics] == [
        "variable a has low 5 above high 1",
        "variable b: step 0.05 is finer than its 1 decimals",
        "variable c has step 0",
        "variable d lists no values",
        "variable f lists a value twice",
    ]


# --------------------------------------------------------------------------- ZeRO

# Mixed-precision Adam keeps 16 bytes per parameter: 2 (fp16 weights) + 2 (fp16 gradients) +
# 12 (fp32 master weights, momentum, variance). N in billions of parameters -> GB.
ZERO_FORMULAS = {
    "none": "16*N",
    "zero-1": "4*N + 12*N/G",  # optimizer states partitioned
    "zero-2": "2*N + 14*N/G",  # ... and gradients
    "zero-3": "16*N/G",  # ... and weights
}


def _zero_reference(stage: str, n: float, g: float) -> float:
    weights, grads, optim = 2 * n, 2 * n, 12 * n
    if stage == "none":
        return weights + grads + optim
    if stage == "zero-1":
        return weights + grads + optim / g
    if stage == "zero-2":
        return weights + (grads + optim) / g
    return (weights + grads + optim) / g


def _oracle_check(drawn_answer: object, d: object) -> None:
    """Every stored variant, evaluated by the Moodle and the Canvas oracle, gives the stored answer."""
    from lmsexport.variants import Drawn

    assert isinstance(d, Drawn) and d.answer is not None
    moodle, canvas = to_moodle(d.answer), to_canvas(d.answer)
    for v in d.variants:
        assert v.answer is not None
        stored = {n: t for n, t in d.text_values(v).items() if n in {x[0] for x in v.values}}
        values = {n: float(t) for n, t in stored.items()}
        assert moodle_evaluate(moodle, stored) == pytest.approx(v.answer, rel=1e-9)
        assert canvas_evaluate(canvas, values) == pytest.approx(v.answer, rel=1e-9)


@pytest.mark.parametrize("stage", list(ZERO_FORMULAS))
def test_zero_numerical_every_variant(stage: str) -> None:
    d = draw(stage, Parameters((N, G), count=100), answer=Formula(ZERO_FORMULAS[stage]), tolerance=REL1)
    assert len(d.variants) == 100
    for v in d.variants:
        assert v.answer == pytest.approx(_zero_reference(stage, v.env["N"], v.env["G"]), rel=1e-12)
    _oracle_check(d.answer, d)
    for v in d.variants:  # the key shown with 2 decimals is graded right everywhere
        assert v.answer is not None
        shown = float(format_value(v.answer, 2))
        assert all(accepts(v.answer, REL1, shown, t) for t in ("lmsexport", "moodle", "canvas", "qti21"))


def test_zero_multiple_choice_distractors_are_the_other_stages() -> None:
    choices = [Formula(ZERO_FORMULAS[s]) for s in ("zero-3", "zero-1", "zero-2", "none")]
    d = draw("zero-3-mc", ZERO, choices=choices, correct=[0], tolerance=REL1, decimals=2)
    for v in d.variants:
        n, g = v.env["N"], v.env["G"]
        assert v.choices == pytest.approx(
            [_zero_reference(s, n, g) for s in ("zero-3", "zero-1", "zero-2", "none")]
        )
    assert [to_moodle(c) for c in d.choices] == [
        "16 * {N} / {G}",
        "4 * {N} + 12 * {N} / {G}",
        "2 * {N} + 14 * {N} / {G}",
        "16 * {N}",
    ]


def test_a_distractor_equal_to_the_key_is_refused() -> None:
    # With a single GPU every stage keeps everything: ZeRO-1's distractor equals the key.
    p = Parameters((N, ListVariable("G", (1.0, 8.0))), count=30)
    choices = [Formula("16*N/G"), Formula("4*N + 12*N/G", SourceLoc("z.yaml", 20, 9))]
    with pytest.raises(SourceError) as info:
        draw("zero-mc", p, choices=choices, correct=[0], tolerance=REL1, decimals=2)
    (m,) = messages(info)
    assert m.startswith("z.yaml:20:9: error: distractor 2 '4*N + 12*N/G' = ")
    assert "equals the right choice 1 within the tolerance in variant " in m and ", G=1)" in m
    # The constraint the hint asks for fixes it.
    p = Parameters((N, ListVariable("G", (1.0, 8.0))), constraints=(Constraint(Formula("G > 1")),), count=30)
    assert len(draw("zero-mc", p, choices=choices, correct=[0], tolerance=REL1, decimals=2).variants) == 30


def test_derived_values_are_inlined_for_the_targets() -> None:
    p = Parameters(
        (N, G), derived=(Derived("B", Formula("16*N"), 0), Derived("per", Formula("B/G"), 2)), count=10
    )
    d = draw("zero-derived", p, answer=Formula("per"))
    assert to_moodle(d.answer) == "16 * {N} / {G}"  # type: ignore[arg-type]
    v = d.variants[0]
    assert d.text_values(v)["per"] == format_value(16 * v.env["N"] / v.env["G"], 2)
    _oracle_check(d.answer, d)


# --------------------------------------------------------------------------- pipeline bubble


def test_pipeline_bubble_every_variant() -> None:
    p = Parameters(
        (RangeVariable("p", 2, 16, 1, 0), ListVariable("m", (4.0, 8.0, 16.0, 32.0, 64.0))),
        constraints=(Constraint(Formula("m >= p")),),
        count=40,
    )
    d = draw("bubble", p, answer=Formula("(p - 1) / (m + p - 1)"), tolerance=Tolerance(0.005))
    for v in d.variants:
        pp, m = v.env["p"], v.env["m"]
        assert m >= pp and v.answer == pytest.approx((pp - 1) / (m + pp - 1))
    _oracle_check(d.answer, d)
    assert evaluate(parse("(p - 1) / (m + p - 1)"), {"p": 4, "m": 12}) == pytest.approx(0.2)


# --------------------------------------------------------------------------- tolerance, limits


def test_accepts_per_target() -> None:
    key = 100.0
    assert accepts(key, REL1, 101.0) and not accepts(key, REL1, 101.01)
    assert accepts(key, REL1, 101.0, "moodle") and accepts(key, REL1, 101.0, "canvas")
    assert not accepts(key, REL1, 101.5, "moodle")
    assert accepts(-key, REL1, -101.0, "moodle")
    assert not accepts(-key, REL1, -100.0, "qti21")  # QTI relative matches nothing below zero
    absolute = Tolerance(0.5)
    assert accepts(2.0, absolute, 2.5, "moodle") and not accepts(2.0, absolute, 2.51, "canvas")
    with pytest.raises(ValueError):
        accepts(1.0, absolute, 1.0, "gift")


def test_tolerance_as_each_target_writes_it() -> None:
    from lmsexport.variants import absolute_margin, canvas_tolerance, moodle_tolerance, qti_tolerance

    assert moodle_tolerance(REL1) == (1, "0.01") and moodle_tolerance(Tolerance(0.5)) == (2, "0.5")
    assert (
        canvas_tolerance(REL1) == "1%" and canvas_tolerance(Tolerance(0.07, ToleranceKind.RELATIVE)) == "7%"
    )
    assert canvas_tolerance(Tolerance(0.5)) == "0.5"
    assert qti_tolerance(REL1) == ("relative", "1") and qti_tolerance(Tolerance(2)) == ("absolute", "2")
    assert absolute_margin(-200.0, REL1) == 2.0 and absolute_margin(-200.0, Tolerance(0.5)) == 0.5


def test_over_limits() -> None:
    assert over_limits(100) == {}
    assert over_limits(101) == {"moodle": 100}
    assert over_limits(201) == {"moodle": 100, "canvas": 200}


# --------------------------------------------------------------------------- texts


def test_substitute() -> None:
    values = {"N": "70", "G": "8"}
    assert substitute("{N} billion parameters on {G} GPUs", values) == "70 billion parameters on 8 GPUs"
    assert substitute("a set {{x}} and {N}", values) == "a set {x} and 70"
    assert substitute(r"$\frac{N}{G}$ and \frac{1}{2}", values, tex=True) == r"$\frac{70}{8}$ and \frac{1}{2}"
    assert placeholders("{N} {{G}} {G}") == [("N", 0), ("G", 10)]


@pytest.mark.parametrize(
    ("text", "message", "offset", "hint"),
    [
        ("{n} GPUs", "unknown variable {n} in the text", 0, "did you mean {N}?"),
        ("a { b", "unmatched '{'", 2, "write {{ for a literal {"),
        ("x}", "unmatched '}'", 1, "write }} for a literal }"),
        (
            "= {=16*N/G}",
            "inline formulas {=...} are not part of the source format",
            2,
            "declare a derived value (with its decimals) and write {name}",
        ),
        ("{1}", "unknown variable {1} in the text", 0, "write {{ and }} for literal braces"),
    ],
)
def test_substitute_errors(text: str, message: str, offset: int, hint: str) -> None:
    with pytest.raises(SubstitutionError) as info:
        substitute(text, {"N": "70", "G": "8"})
    assert (info.value.message, info.value.offset, info.value.hint) == (message, offset, hint)


def test_an_instance_is_made_once_and_stays_right() -> None:
    """instantiate() keeps the variants it made (every writer of a worker asks for them): the
    same (question, variant) gives the very same instance, equal to one made afresh; an equal
    question that is another object is made again; the oldest entries go past the bound."""
    from dataclasses import replace

    from lmsexport import variants as vt
    from lmsexport.model import Parameters
    from tests.test_html_parametric import REL1, G, N, calculated

    q = calculated("memo", Parameters((N, G), count=5), "16*N/G", REL1, 2, stem="{N} / {G}?")
    assert isinstance(q.body, vt.Calculated)
    first = [vt.instantiate(q, v) for v in q.body.variants]
    again = [vt.instantiate(q, v) for v in q.body.variants]
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert first == [vt._instantiate(q, v) for v in q.body.variants]
    twin = replace(q)  # equal, but another object: made again, equal
    assert vt.instantiate(twin, twin.body.variants[0]) == first[0]
    assert vt.instantiate(twin, twin.body.variants[0]) is not first[0]
    old_max = vt._INSTANCES_MAX
    try:
        vt._INSTANCES_MAX = 2
        vt._INSTANCES.clear()
        made = [vt.instantiate(q, v) for v in q.body.variants]
        assert len(vt._INSTANCES) == 2 and made == first
        assert vt.instantiate(q, q.body.variants[0]) is not made[0]  # evicted, made again
    finally:
        vt._INSTANCES_MAX = old_max


# --------------------------------------------------------------------------- the draw without a list


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.integers(-20, 20), st.integers(0, 30), st.integers(1, 5)).map(
                lambda t: ("range", t)
            ),
            st.lists(st.integers(-99, 99), min_size=1, max_size=6, unique=True).map(lambda v: ("list", v)),
        ),
        min_size=1,
        max_size=3,
    ),
    st.integers(1, 40),
    st.text("abcz-0123", min_size=1, max_size=8),
)
def test_an_unconstrained_small_space_draws_what_the_enumeration_draws(
    specs: list[tuple[str, Any]], count: int, qid: str
) -> None:
    """Without constraints or derived values every combination is admitted, so the draw picks
    from them by their numbers (variants._pick_numbers, _combination) instead of listing them:
    the same variants, in the same order, as enumerating them all (what a constraint that
    always holds still does)."""
    variables: list[RangeVariable | ListVariable] = []
    for k, (kind, spec) in enumerate(specs):
        name = f"v{k}"
        if kind == "range":
            low, width, step = spec
            variables.append(RangeVariable(name, low, low + width, step, 0))
        else:
            variables.append(ListVariable(name, tuple(float(x) for x in spec)))
    answer = Formula(" + ".join(v.name for v in variables))
    plain = draw(qid, Parameters(tuple(variables), count=count), answer=answer)
    always = Constraint(Formula(f"{variables[0].name} == {variables[0].name}"))
    listed = draw(qid, Parameters(tuple(variables), constraints=(always,), count=count), answer=answer)
    assert plain.variants == listed.variants
    assert plain.warnings == listed.warnings


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 300), st.integers(0, 40), st.integers(0, 2**32))
def test_pick_numbers_is_pick(size: int, k: int, seed: int) -> None:
    import random

    from lmsexport.variants import _pick, _pick_numbers

    items = [{"i": float(i)} for i in range(size)]
    picked = _pick(random.Random(seed), items, k)
    assert [int(e["i"]) for e in picked] == _pick_numbers(random.Random(seed), size, k)


def test_a_question_without_variables_has_no_variant() -> None:
    """With no variable the one combination is the empty one, which the draw never admits (as
    the enumeration always did): the question has no variant (a Moodle XML calculated question
    with no dataset is left out, not given one variant)."""
    with pytest.raises(SourceError, match="has no variant"):
        draw("no-vars", Parameters(()), answer=Formula("1 + 1"))
