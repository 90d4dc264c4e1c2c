"""Parametric questions built in Python (variants.draw, as the loader does) for the Moodle XML
tests: the ZeRO memory arithmetic of the bank's fourth quiz and a pipeline bubble."""

from __future__ import annotations

from lmsexport import variants
from lmsexport.model import (
    CalcChoice,
    Calculated,
    CalculatedChoice,
    Derived,
    Formula,
    ListVariable,
    OutcomeFeedback,
    Parameters,
    Question,
    Quiz,
    RangeVariable,
    Tolerance,
    ToleranceKind,
    Unit,
)

REL1 = Tolerance(0.01, ToleranceKind.RELATIVE)
N = RangeVariable("N", 1, 70, 1, 0)
G = ListVariable("G", (8.0, 16.0, 32.0, 64.0))


def zero3(count: int = 30, qid: str = "zero3-per-gpu") -> Question:
    params = Parameters((N, G), derived=(Derived("total", Formula("16*N"), 0),), count=count)
    answer = Formula("total / G")
    drawn = variants.draw(qid, params, answer=answer, tolerance=REL1, decimals=2)
    return Question(
        id=qid,
        stem="{N} ارب پیرامیٹرز کا ماڈل {G} GPUs پر ZeRO-3 کے ساتھ: کل {total} GB۔ فی GPU کتنے GB؟",
        body=Calculated(params, answer, REL1, 2, (Unit("GB", 1.0),), variants=drawn.variants),
        explanation="16 × {N} / {G}; a literal {{brace}}",
    )


def bubble(count: int = 20, qid: str = "pipeline-bubble") -> Question:
    p = RangeVariable("p", 2, 8, 1, 0)
    m = RangeVariable("m", 4, 32, 4, 0)
    params = Parameters((p, m), count=count)
    answer = Formula("(p - 1) / (m + p - 1)")
    tol = Tolerance(0.005, ToleranceKind.ABSOLUTE)
    drawn = variants.draw(qid, params, answer=answer, tolerance=tol, decimals=3)
    return Question(
        id=qid,
        stem="Pipeline of {p} stages, {m} micro-batches: what fraction of the time is bubble?",
        body=Calculated(params, answer, tol, 3, variants=drawn.variants),
    )


def zero1_choice(count: int = 25, qid: str = "zero1-choice") -> Question:
    params = Parameters((N, G), count=count)
    formulas = ("4*N + 12*N/G", "16*N/G", "2*N + 14*N/G", "16*N")
    choices = tuple(
        CalcChoice(Formula(f), 1.0 if k == 0 else 0.0, "That is ZeRO-3" if k == 1 else None)
        for k, f in enumerate(formulas)
    )
    drawn = variants.draw(
        qid, params, choices=[c.formula for c in choices], correct=[0], tolerance=REL1, decimals=2
    )
    return Question(
        id=qid,
        stem="ZeRO-1, {N} B parameters, {G} GPUs: GB per GPU?",
        body=CalculatedChoice(params, choices, decimals=2, tolerance=REL1, variants=drawn.variants),
        feedback=OutcomeFeedback("Right: {N}", None, "Wrong"),
    )


def quiz(*questions: Question) -> Quiz:
    chosen = questions or (zero3(), bubble(), zero1_choice())
    return Quiz(id="memory", title="Memory arithmetic", lang="ur", questions=chosen)


def parametric_quizzes():  # type: ignore[no-untyped-def]
    """A quiz of one to three parametric questions (tests/strategies.py's), sometimes with an
    ordinary one beside them."""
    from hypothesis import strategies as st
    from strategies import canonical_langs, parametric_questions, questions

    @st.composite
    def build(draw: st.DrawFn) -> Quiz:
        n = draw(st.integers(1, 3))
        qs = [draw(parametric_questions(f"p{k}", everything=draw(st.booleans()))) for k in range(n)]
        if draw(st.booleans()):
            qs.append(draw(questions("plain")))
        lang = draw(st.sampled_from(["ur", "en"]))
        return canonical_langs(Quiz(id="pq", title="پیرامیٹرک", lang=lang, questions=tuple(qs)))

    return build()
