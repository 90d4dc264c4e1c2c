"""The loader on issue 23's kinds: cloze questions (`[[n]]` markers in plain and Markdown stems,
text, number and choice blanks), orderings and descriptions, as tests/cases/structured holds them.
Every loader error of these kinds, located, is a case of the bad-input corpus (tests/bad/yaml:
cloze-*.yaml, ordering-bad.yaml, description-bad.yaml), run by tests/test_bad_inputs.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import cloze_stem

from lmsexport.errors import SourceError
from lmsexport.model import (
    BulletList,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    Emph,
    Gap,
    Layout,
    LineBreak,
    Math,
    NumberBlank,
    Numbering,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    Para,
    Rich,
    Str,
    Table,
    TextBlank,
    gaps_of,
    media_of,
    plain_text,
)
from lmsexport.source import load_paths, load_text
from lmsexport.writers.source import plain_cloze_stem

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "cases" / "structured"


@pytest.fixture(scope="module")
def bank():
    warnings: list = []
    bank = load_paths([CASE], warnings)
    assert [w.rule for w in warnings] == []
    return bank


def _questions(bank, quiz_id: str) -> dict:
    quiz = next(q for q in bank.quizzes if q.id == quiz_id)
    return {q.id: q for q in quiz.questions}


def test_the_structured_case_has_every_new_kind(bank) -> None:
    qs = _questions(bank, "structured")
    assert [q.type.value for q in qs.values()] == [
        "description", "cloze", "description", "cloze", "ordering", "ordering", "ordering", "ordering",
    ]  # fmt: skip
    intro, note = qs["st-intro"], qs["st-pipeline-note"]
    assert isinstance(intro.body, Description) and intro.points == 0 and note.points == 0
    assert intro.explanation is None and note.explanation is not None
    assert not intro.feedback and intro.hints == () and intro.penalty is None
    # the note between questions shows an image and a display formula
    assert any(isinstance(b, Para) and isinstance(b.children[0], Math) for b in note.stem.blocks)  # type: ignore[union-attr]
    assert "img/pipeline-bubble.svg" in [m.name for m in media_of(note.stem)]


def test_cloze_blanks_keep_every_key(bank) -> None:
    qs = _questions(bank, "structured")
    bubble = qs["st-bubble"]
    assert isinstance(bubble.body, Cloze) and isinstance(bubble.stem, Rich)
    assert gaps_of(bubble.stem) == (1, 2, 3)
    number, schedule, split = bubble.body.blanks
    assert isinstance(number, NumberBlank) and number.weight == 1
    assert [(k.answer, k.tolerance, k.low, k.high, k.credit) for k in number.keys] == [
        (0.2, 0.005, None, None, 1.0),
        (None, 0.0, 0.245, 0.255, 0.5),
        (20, 0.5, None, None, 0.0),
    ]
    assert number.key.accepts(3 / 15) and number.other_feedback is not None
    assert isinstance(schedule, ChoiceBlank) and schedule.display is ChoiceDisplay.DROPDOWN
    assert schedule.key_indexes == (0,) and not schedule.multiple and not schedule.shuffle
    assert isinstance(split, TextBlank) and not split.case_sensitive
    assert [a.wildcard for a in split.answers] == [False, False, True, False, True]
    assert bubble.hints and bubble.penalty == 0.1

    blanks = qs["st-zero-blanks"]
    assert isinstance(blanks.body, Cloze) and blanks.points == 4
    bytes_, key, stage2, stage3, offload = blanks.body.blanks
    assert isinstance(bytes_, NumberBlank) and bytes_.key.answer == 16
    assert isinstance(key, TextBlank) and key.case_sensitive and key.weight == 2
    assert key.accepted == ("offload_optimizer",) and [a.credit for a in key.answers] == [1.0, 0.5, 0.25]
    assert isinstance(stage2, ChoiceBlank) and stage2.display is ChoiceDisplay.VERTICAL and stage2.shuffle
    assert [c.credit for c in stage2.choices] == [1.0, 0.0, -0.5]
    assert isinstance(stage3, ChoiceBlank) and stage3.display is ChoiceDisplay.HORIZONTAL
    assert isinstance(offload, ChoiceBlank) and offload.multiple and offload.display is ChoiceDisplay.VERTICAL
    assert [c.credit for c in offload.choices] == [0.5, 0.5, -0.5]
    assert blanks.body.total_weight == 6
    # blanks inside a list and a table, in reading order
    list_, table = (b for b in blanks.stem.blocks if isinstance(b, BulletList | Table))  # type: ignore[union-attr]
    assert gaps_of(Rich((list_,))) == (1, 2) and gaps_of(Rich((table,))) == (3, 4)


def test_orderings_keep_every_key(bank) -> None:
    qs = _questions(bank, "structured")
    zero3, offload, memory, mlp = (
        qs[i].body for i in ("st-zero3-forward", "st-offload-step", "st-zero-memory-order", "st-megatron-mlp")
    )
    assert isinstance(zero3, Ordering) and zero3.grading is OrderingGrading.ABSOLUTE_POSITION
    assert zero3.numbering is Numbering.DIGITS and len(zero3.items) == 6
    assert offload == Ordering(offload.items)  # every default: all or nothing, all shown, vertical
    assert (
        isinstance(memory, Ordering)
        and memory.select is OrderingSelect.CONTIGUOUS
        and memory.select_count == 3
    )
    assert (
        memory.layout is Layout.HORIZONTAL
        and memory.numbering is Numbering.ABC_UPPER
        and not memory.show_grading
    )
    assert isinstance(mlp, Ordering) and mlp.select is OrderingSelect.RANDOM and mlp.select_count == 4
    assert mlp.grading is OrderingGrading.RELATIVE_ALL_PREVIOUS_AND_NEXT and mlp.numbering is Numbering.ROMAN


def test_the_assessment_keeps_a_description_in_its_section(bank) -> None:
    (exam,) = bank.assessments
    first, second = exam.sections
    assert [c.question.id for c in first.draws[0].candidates][:3] == [
        "st-intro",
        "st-bubble",
        "st-pipeline-note",
    ]
    assert first.draws[0].points_of(first.draws[0].candidates[0].question) == 0
    # a random draw never picks a description; orderings only here, from both quizzes
    pool = second.draws[0]
    assert {c.question.type.value for c in pool.candidates} == {"ordering"}
    assert exam.total_points == 1 + 4 + 2  # the descriptions are worth nothing


def test_a_plain_cloze_stem_reads_as_markdown_does() -> None:
    plain = load_text(_quiz("plain", "  A   [[1]]  and *b*\n  then [[2]].  \n\n\n next \\[[ para"), "p.yaml")
    expected = Rich(
        (
            Para((Str("A   "), Gap(1), Str("  and *b*"), LineBreak(), Str("then "), Gap(2), Str("."))),
            Para((Str("next [[ para"),)),
        )
    )
    assert plain.questions[0].stem == expected  # type: ignore[union-attr]
    markdown = load_text(_quiz("markdown", "A [[1]] and *b*\\\nthen [[2]].\n\nnext \\[[ para"), "m.yaml")
    assert markdown.questions[0].stem == Rich(  # type: ignore[union-attr]
        (
            Para(
                (
                    Str("A "),
                    Gap(1),
                    Str(" and "),
                    Emph((Str("b"),)),
                    LineBreak(),
                    Str("then "),
                    Gap(2),
                    Str("."),
                )
            ),
            Para((Str("next [[ para"),)),
        )
    )


def test_markers_are_text_outside_a_cloze_stem() -> None:
    text = _quiz("markdown", "[[1]] [[2]]").replace("    type: cloze\n", "    type: essay\n")
    text = text[: text.index("    blanks:")]
    quiz = load_text(text, "e.yaml")
    assert plain_text(quiz.questions[0].stem) == "[[1]] [[2]]"  # type: ignore[union-attr]
    assert gaps_of(quiz.questions[0].stem) == ()  # type: ignore[union-attr]


def test_a_description_is_refused_points_with_its_reason() -> None:
    text = "id: q\ntitle: T\nlang: en\nquestions:\n  - {id: d, type: description, stem: s, points: 2}\n"
    with pytest.raises(SourceError) as e:
        load_text(text, "d.yaml")
    (d,) = e.value.diagnostics
    assert d.loc.line == 5 and d.rule == "source.foreign-key" and "worth no points" in d.message


def _quiz(markup: str, stem: str) -> str:
    import json

    return (
        f"id: q\ntitle: T\nlang: en\nmarkup: {markup}\nquestions:\n  - id: c\n    type: cloze\n"
        f"    stem: {json.dumps(stem)}\n    explanation: e\n    blanks:\n"
        "      - {type: short_answer, answers: [a]}\n      - {type: numerical, answer: 1}\n"
    )


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 4).flatmap(cloze_stem))
def test_a_plain_cloze_stem_is_written_back_as_the_same_tree(stem: Rich) -> None:
    """writers/source.py's plain_cloze_stem is the plain loader's inverse wherever it answers."""
    text = plain_cloze_stem(stem)
    if text is None:
        return
    import json

    n = len(gaps_of(stem))
    yaml_text = (
        "id: q\ntitle: T\nlang: en\nquestions:\n  - id: c\n    type: cloze\n"
        f"    stem: {json.dumps(text)}\n    explanation: e\n    blanks:\n"
        + "      - {type: numerical, answer: 1}\n"
        * n
    )
    assert load_text(yaml_text, "c.yaml").questions[0].stem == stem  # type: ignore[union-attr]
