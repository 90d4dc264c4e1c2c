"""Parametric questions in GIFT: each variant a numerical (or multichoice) question named
`<name> (n)` in a category of its own below the quiz's, with the instruction to draw "a random
question" from it; read back as those ordinary questions (GIFT has no formula)."""

from __future__ import annotations

import re
from pathlib import Path

from lmsexport.build import gift_round_trip
from lmsexport.model import Bank, Calculated, CalculatedChoice, MultipleChoice, Numerical, SingleChoice
from lmsexport.readers.gift import read_assessment, read_quiz
from lmsexport.variants import accepts, variant_id
from lmsexport.writers import WriteContext
from lmsexport.writers.gift import as_written, write, write_quiz
from tests.parametric_models import parametric_quiz
from tests.test_qti21_parametric import _assessment


def _blocks(text: str) -> list[str]:
    return [b for b in text.split("\n\n") if b.strip()]


def test_each_variant_is_a_question_in_the_question_s_own_category() -> None:
    quiz = parametric_quiz()
    text, diags = write_quiz(quiz)
    categories = re.findall(r"^\$CATEGORY: (.*)$", text, re.M)
    home = "lmsexport/zero-param"
    # The quiz's, the first question's, back for plain-after, then one per parametric question
    # (the quiz's again only where an ordinary question follows).
    assert categories == [
        home,
        f"{home}/zero3-per-gpu",
        home,
        f"{home}/pipeline-bubble",
        f"{home}/loss-delta",
        f"{home}/zero1-choice",
    ]
    names = re.findall(r"^::(.*?)::", text, re.M)
    assert names[:6] == [f"zero3-per-gpu ({n})" for n in range(1, 7)]
    assert "Pipeline bubble (1)" in names  # the question's own name when it has one
    assert "ZeRO کا مطلب؟" in names
    # The instruction, in the file and in the warning, once per question.
    assert text.count("add 'a random question' from the category") == 4
    warned = [d for d in diags if d.rule == "gift.variants-as-category"]
    assert [d.message.split("'")[1] for d in warned] == [
        "zero3-per-gpu",
        "pipeline-bubble",
        "loss-delta",
        "zero1-choice",
    ]
    assert all("a random question" in (d.hint or "") for d in warned)
    # A variant's losses are the question's: named once, by its id.
    assert [d.rule for d in diags].count("gift.units-not-carried") == 1
    assert not any("-v0" in d.message for d in diags)
    # Numerical variants are {#...}; the choice question's are multichoice ({ = ~ }).
    for block in _blocks(text):
        if "[id:loss-delta-v" in block:
            assert "{#" in block
        if "[id:zero1-choice-v" in block:
            assert "{\n\t=" in block and "{#" not in block


def test_every_variant_key_and_margin_accepts_what_lmsexport_accepts() -> None:
    quiz = parametric_quiz()
    text, _ = write_quiz(quiz)
    back, _ = read_quiz(text, "zero-param.gift.txt", quiz_id=quiz.id, lang=quiz.lang)
    by_id = {q.id: q for q in back.questions}
    checked = 0
    for q in quiz.questions:
        body = q.body
        if isinstance(body, Calculated):
            for v in body.variants:
                got = by_id[variant_id(q.id, v)].body
                assert isinstance(got, Numerical)
                key = got.key
                assert key.answer == v.answer
                lo, hi = key.bounds
                assert v.answer is not None
                # GIFT's `=key:margin` is absolute: the margin is the variant's (negative keys too).
                assert accepts(v.answer, body.tolerance, lo * (1 + 1e-12) if lo > 0 else lo * (1 - 1e-12))
                assert accepts(v.answer, body.tolerance, hi * (1 - 1e-12) if hi > 0 else hi * (1 + 1e-12))
                checked += 1
        elif isinstance(body, CalculatedChoice):
            for v in body.variants:
                got = by_id[variant_id(q.id, v)].body
                assert isinstance(got, SingleChoice | MultipleChoice)
                assert [c.credit for c in got.choices] == [c.credit for c in body.choices]
                checked += 1
    assert checked == sum(len(q.body.variants) for q in quiz.questions if hasattr(q.body, "variants"))  # type: ignore[union-attr]


def test_the_quiz_reads_back_as_its_variants_and_check_s_round_trip_passes() -> None:
    quiz = parametric_quiz()
    bank = Bank((quiz,))
    out = write(bank, WriteContext(("gift",)))
    back, warnings = read_quiz(
        out.files["gift/zero-param.gift.txt"].decode(), "x.gift.txt", quiz_id=quiz.id, lang=quiz.lang
    )
    assert [
        w.rule for w in warnings if w.rule == "gift.extra-category"
    ] == []  # the variants' categories are the quiz's
    assert back.category == quiz.category
    assert back.questions == tuple(x for q in quiz.questions for x in as_written(q))
    assert len(back.questions) == 1 + 6 + 5 + 4 + 4
    assert gift_round_trip(bank, out) == []


def test_an_assessment_puts_a_parametric_candidate_s_variants_below_its_draw() -> None:
    quiz = parametric_quiz()
    assessment = _assessment(quiz)
    bank = Bank((quiz,), (assessment,))
    out = write(bank, WriteContext(("gift",)))
    text = out.files["gift/zero-exam.gift.txt"].decode()
    categories = re.findall(r"^\$CATEGORY: (.*)$", text, re.M)
    draw = categories[0]
    assert categories[:4] == [draw, f"{draw}/zero3-per-gpu", draw, f"{draw}/zero1-choice"]
    back, _ = read_assessment(text, "zero-exam.gift.txt")
    (first, *_) = back.draws
    # The draw's own category holds its ordinary candidate; the variants are below it.
    assert [c.question.id for c in first.candidates] == ["plain-after"]
    assert gift_round_trip(bank, out) == []


PARAMETRIC = Path(__file__).parent / "cases" / "parametric"


def test_the_parametric_case_is_golden_and_survives_check_s_round_trip(golden) -> None:  # type: ignore[no-untyped-def]
    """tests/cases/parametric/expected/gift/: the case's GIFT files, read back as written."""
    from lmsexport.source import load_paths

    bank = load_paths([PARAMETRIC])
    out = write(bank, WriteContext(("gift",)))
    assert sorted(out.files) == [
        "gift/parametric-exam.gift.txt",
        "gift/parametric-plain.gift.txt",
        "gift/parametric.gift.txt",
    ]
    for path, data in out.files.items():
        golden(PARAMETRIC / "expected" / path, data)
    assert gift_round_trip(bank, out) == []
