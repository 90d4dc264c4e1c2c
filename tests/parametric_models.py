"""Parametric questions built in Python with variants.draw, for the QTI 2.1 and GIFT tests
(until tests/cases/parametric/parametric.yaml loads; then also alongside it)."""

from __future__ import annotations

from lmsexport.model import (
    CalcChoice,
    Calculated,
    CalculatedChoice,
    Choice,
    Derived,
    Formula,
    ListVariable,
    Parameters,
    Question,
    Quiz,
    RangeVariable,
    SingleChoice,
    Tolerance,
    ToleranceKind,
    Unit,
)
from lmsexport.variants import draw

N = RangeVariable("N", 1, 70, 1, 0)
G = ListVariable("G", (8.0, 16.0, 32.0, 64.0))


def zero3(count: int = 6) -> Question:
    """Model state per GPU under ZeRO-3 (16 bytes a parameter, all of it sharded), 1 % relative."""
    params = Parameters((N, G), (Derived("total", Formula("16*N"), 0),), count=count)
    tol = Tolerance(0.01, ToleranceKind.RELATIVE)
    drawn = draw("zero3-per-gpu", params, answer=Formula("total / G"), tolerance=tol, decimals=2)
    return Question(
        id="zero3-per-gpu",
        stem="{N} ارب پیرامیٹرز کا ماڈل {G} GPUs پر ZeRO-3 کے ساتھ: فی GPU ماڈل اسٹیٹ کتنے GB ہے؟",
        body=Calculated(params, Formula("total / G"), tol, 2, (Unit("GB", 1.0),), variants=drawn.variants),
        explanation="{total} GB کو {G} GPUs میں بانٹیں۔",
        points=2.0,
    )


def bubble(count: int = 5) -> Question:
    """The pipeline bubble fraction (p-1)/(m+p-1), absolute tolerance."""
    p = RangeVariable("p", 2, 8, 1, 0)
    m = ListVariable("m", (4.0, 8.0, 16.0, 32.0))
    params = Parameters((p, m), count=count)
    tol = Tolerance(0.001)
    drawn = draw("pipeline-bubble", params, answer=Formula("(p-1)/(m+p-1)"), tolerance=tol, decimals=3)
    return Question(
        id="pipeline-bubble",
        name="Pipeline bubble",
        stem="{p} stages and {m} micro-batches: what fraction of the time is the bubble?",
        body=Calculated(params, Formula("(p-1)/(m+p-1)"), tol, 3, variants=drawn.variants),
    )


def negative(count: int = 4) -> Question:
    """A negative key: QTI's relative tolerance matches nothing there, absolute must be used."""
    a = RangeVariable("a", 1, 5, 1, 0)
    b = RangeVariable("b", 6, 10, 1, 0)
    params = Parameters((a, b), count=count)
    tol = Tolerance(0.02, ToleranceKind.RELATIVE)
    drawn = draw("loss-delta", params, answer=Formula("a - b"), tolerance=tol, decimals=0)
    return Question(
        id="loss-delta",
        stem="a = {a}, b = {b}: a - b?",
        body=Calculated(params, Formula("a - b"), tol, 0, variants=drawn.variants),
    )


def zero1_choice(count: int = 4) -> Question:
    """ZeRO-1 per GPU as a multiple choice, the other stages' figures as distractors."""
    params = Parameters((RangeVariable("N", 2, 70, 1, 0), G), count=count)
    formulas = ("4*N + 12*N/G", "16*N/G", "16*N")
    drawn = draw(
        "zero1-choice",
        params,
        choices=[Formula(f) for f in formulas],
        correct=[0],
        decimals=2,
        tolerance=Tolerance(0.01),
    )
    return Question(
        id="zero1-choice",
        stem="ZeRO-1, {N} ارب پیرامیٹرز، {G} GPUs: فی GPU کتنے GB؟",
        body=CalculatedChoice(
            params,
            (
                CalcChoice(Formula(formulas[0]), 1.0),
                CalcChoice(Formula(formulas[1]), 0.0, "یہ ZeRO-3 ہے"),
                CalcChoice(Formula(formulas[2]), 0.0),
            ),
            decimals=2,
            tolerance=Tolerance(0.01),
            variants=drawn.variants,
        ),
    )


def parametric_quiz() -> Quiz:
    """A quiz mixing parametric questions with an ordinary one after each kind."""
    plain = Question(
        id="plain-after",
        stem="ZeRO کا مطلب؟",
        body=SingleChoice((Choice("Zero Redundancy Optimizer", 1.0), Choice("Zero Overhead", 0.0))),
    )
    return Quiz(
        id="zero-param",
        title="ZeRO حساب",
        lang="ur",
        questions=(zero3(), plain, bubble(), negative(), zero1_choice()),
        category="lmsexport/zero-param",
    )
