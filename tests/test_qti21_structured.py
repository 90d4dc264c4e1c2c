"""QTI 2.1 and issue 23: cloze, ordering and description items from the structured test bank,
valid against the XSD, golden, read back to the same model, every blank and ordering scored by
pyslet as lmsexport.scoring says, and each loss named once."""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyslet.qtiv2 import variables
from strategies import canonical_langs, quizzes, structured_questions
from test_qti21 import _golden_members
from test_qti21_credits import _key, read_back
from test_qti21_credits import kept as kept_credits
from test_qti21_engine import Session, _pyslet_patches  # noqa: F401  (the engine's patches)

from lmsexport import scoring
from lmsexport.model import (
    Bank,
    Blank,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    NumberBlank,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    Para,
    Question,
    Quiz,
    Rich,
    Str,
    Text,
    TextBlank,
    plain_text,
)
from lmsexport.validate import validate_package, validate_tree
from lmsexport.writers import WriteContext, qti21
from lmsexport.writers.qti21_package import build_qti21, manifest_tree

CASE = Path(__file__).resolve().parent / "cases" / "structured"
GOLDEN = Path(__file__).resolve().parent / "cases" / "qti21"
CTX = WriteContext(formats=("qti21",))


def _bank() -> Bank:
    from lmsexport.source import load_paths

    return load_paths([str(CASE)])


def kept(quiz: Quiz, q: Question) -> Question:
    """What QTI 2.1 carries of a question (test_qti21_credits.kept), and of an ordering: the
    gradings it computes (others as absolute_position), every item shown, no numbering."""
    q = kept_credits(quiz, q)
    body = q.body
    if isinstance(body, Cloze):
        body = replace(body, blanks=tuple(_kept_blank(b) for b in body.blanks))
    if isinstance(body, Ordering):
        grading = body.grading if body.grading in qti21.NATIVE_GRADINGS else OrderingGrading.ABSOLUTE_POSITION
        body = replace(body, grading=grading, select=OrderingSelect.ALL, select_count=0)
        body = replace(body, numbering=type(body.numbering).NONE, show_grading=True)
    return replace(q, body=body)


def _kept_blank(blank: Blank) -> Blank:
    """A text blank whose answers say nothing of case (only wildcards without a cased letter:
    patternMatch has no caseSensitive) reads back as case-insensitive; it scores the same."""
    if isinstance(blank, TextBlank) and all(
        a.wildcard and a.text.swapcase() == a.text for a in blank.answers
    ):
        return replace(blank, case_sensitive=False)
    if isinstance(blank, ChoiceBlank) and blank.display is ChoiceDisplay.DROPDOWN:
        # An inlineChoice holds one line of text (the line breaks, the markup: warned losses).
        def line(text: Text) -> Text:
            words = plain_text(text).replace("\n", " ")
            return words if isinstance(text, str) else Rich((Para((Str(words),)),))

        return replace(blank, choices=tuple(replace(c, text=line(c.text)) for c in blank.choices))
    if isinstance(blank, NumberBlank):
        # As a Numerical's keys (test_qti21_credits._key): the interval, credit and feedback.
        return replace(blank, keys=tuple(_key(k, k is blank.key) for k in blank.keys))
    return blank


def _normal(q: Question) -> Question:
    """Number blanks' keys by their intervals (both sides of a comparison)."""
    if not isinstance(q.body, Cloze):
        return q
    blanks = tuple(
        replace(b, keys=tuple(_key(k, True) for k in b.keys)) if isinstance(b, NumberBlank) else b
        for b in q.body.blanks
    )
    return replace(q, body=Cloze(blanks))


def test_every_item_test_and_package_is_valid() -> None:
    bank = _bank()
    for quiz in bank.quizzes:
        for q in quiz.questions:
            assert validate_tree(qti21.item_tree(quiz, q), "item", q.id) == [], q.id
        assert validate_tree(manifest_tree(quiz), "manifest", quiz.id) == []
    out = build_qti21(bank, CTX)
    for name, data in out.files.items():
        assert validate_package(data, name) == [], name


def test_golden_structured(golden) -> None:
    for quiz in _bank().quizzes:
        _golden_members(golden, quiz, GOLDEN / quiz.id)


def test_the_structured_bank_reads_back_as_itself() -> None:
    for quiz in _bank().quizzes:
        back = read_back(quiz)
        assert [q.id for q in back] == [q.id for q in quiz.questions]
        for src, got in zip(quiz.questions, back, strict=True):
            got = replace(got, lang=src.lang, tags=src.tags)
            assert _normal(got) == _normal(kept(quiz, src)), src.id


def test_descriptions_keep_their_place_and_score_nothing() -> None:
    bank = _bank()
    for quiz in bank.quizzes:
        refs = qti21.test_tree(quiz).iter(f"{{{qti21.QTI_NS}}}assessmentItemRef")
        assert [r.get("identifier") for r in refs] == [q.id for q in quiz.questions]
    for assessment in bank.assessments:
        test = qti21.assessment_test_tree(assessment)
        ids = [r.get("identifier") for r in test.iter(f"{{{qti21.QTI_NS}}}assessmentItemRef")]
        assert ids == [c.question.id for c in assessment.candidates]
        described = [c.question for c in assessment.candidates if isinstance(c.question.body, Description)]
        assert described, "the exam uses a description in a section"
    assert any(isinstance(q.body, Description) for quiz in bank.quizzes for q in quiz.questions)


def test_each_loss_is_named_once_and_only_where_set() -> None:
    bank = _bank()
    out = build_qti21(bank, CTX)
    losses = [(w.rule, w.message.split("'")[1]) for w in out.warnings if w.rule.endswith("-not-carried")]
    assert len(losses) == len(set(losses))
    by_id = {q.id: q for quiz in bank.quizzes for q in quiz.questions}
    for rule, qid in losses:
        body = by_id[qid].body
        if rule == "qti21.ordering-grading-not-carried":
            assert isinstance(body, Ordering) and body.grading not in qti21.NATIVE_GRADINGS
        if rule == "qti21.ordering-select-not-carried":
            assert isinstance(body, Ordering) and body.select is not OrderingSelect.ALL
    canvas = {w.message.split("'")[1] for w in out.warnings if w.rule.startswith("qti21.canvas-")}
    assert {qid for qid, q in by_id.items() if isinstance(q.body, Cloze | Ordering | Description)} <= canvas


def _responses(blank) -> list[object]:
    if isinstance(blank, ChoiceBlank):
        if blank.multiple:
            n = len(blank.choices)
            return [frozenset(blank.key_indexes), frozenset(), frozenset(range(n)), frozenset({n - 1})]
        return list(range(len(blank.choices)))
    if isinstance(blank, TextBlank):
        out: list[object] = []
        for a in blank.answers:
            text = a.text.replace("*", "xy") if a.wildcard else a.text
            out += [text, text.swapcase()]
        return [*out, "no such answer", None]
    out = []
    for k in blank.keys:
        lo, hi = k.bounds
        out += [repr(lo), repr(hi), repr((lo + hi) / 2), repr(hi + abs(hi) * 1e-3 + 1e-6)]
    return [*out, "-12345", None]


def _run_cloze(quiz: Quiz, q: Question, responses: list[object]) -> float:
    session = Session(quiz, q)
    session.state.begin_attempt()
    for n, r in enumerate(responses, 1):
        if isinstance(r, frozenset):
            r = [qti21.blank_choice_id(n, i + 1) for i in sorted(r)]
        elif isinstance(r, int):
            r = qti21.blank_choice_id(n, r + 1)
        session._set(qti21.blank_response(n), r)
    session.state.end_attempt()
    for n, (blank, r) in enumerate(zip(q.body.blanks, responses, strict=True), 1):  # type: ignore[union-attr]
        back = r if not isinstance(r, list) else None
        got = session.state[qti21.blank_outcome(n)].value
        if back is not None or r is None:
            assert got == pytest.approx(scoring.blank_credit(blank, responses[n - 1]), abs=1e-9), (q.id, n, r)
    return session.outcome().score


def test_pyslet_scores_every_blank_of_the_bank_as_scoring_says() -> None:
    tried = 0
    for quiz in _bank().quizzes:
        for q in quiz.questions:
            if not isinstance(q.body, Cloze):
                continue
            per_blank = [_responses(b) for b in q.body.blanks]
            # Each blank through all its responses, the others right (first response), and all wrong.
            rows = []
            for n, options in enumerate(per_blank):
                for option in options:
                    row = [opts[0] for opts in per_blank]
                    row[n] = option
                    rows.append(row)
            rows.append([opts[-1] for opts in per_blank])
            for row in rows:
                score = _run_cloze(quiz, q, row)
                want = scoring.cloze_credit(q.body, row) * q.points
                assert score == pytest.approx(want, abs=1e-9), (q.id, row)
                tried += 1
    assert tried > 20


def test_pyslet_scores_every_ordering_of_the_bank_as_scoring_says() -> None:
    tried = 0
    for quiz in _bank().quizzes:
        for q in quiz.questions:
            body = q.body
            if not isinstance(body, Ordering) or body.grading not in qti21.NATIVE_GRADINGS:
                continue
            n = len(body.items)
            shown = tuple(range(n))  # QTI 2.1 shows every item (the subset is a named loss)
            orders = list(itertools.permutations(range(n)))[:120]
            native = replace(body, select=OrderingSelect.ALL, select_count=0)
            session = Session(quiz, q)
            for order in orders:
                session.state = variables.ItemSessionState(session.item)
                session.state.begin_session()
                got = session.attempt([qti21.order_item_id(i + 1) for i in order])
                want = scoring.ordering_credit(native, shown, order) * q.points
                assert got.score == pytest.approx(want, abs=1e-9), (q.id, order)
                tried += 1
    assert tried > 0


# --------------------------------------------------------------------------- property


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quiz=quizzes(everything=True, structured=True))
def test_any_quiz_with_the_new_kinds_round_trips_through_qti21(quiz: Quiz) -> None:
    """import -> build -> import gives the same model: build the quiz, read it back, build and
    read again; the first reading is what QTI 2.1 carries (kept), the second changes nothing."""
    for q in quiz.questions:
        assert validate_tree(qti21.item_tree(quiz, q), "item", q.id) == [], q.id
    back = read_back(quiz)
    assert len(back) == len(quiz.questions)
    for src, got in zip(quiz.questions, back, strict=True):
        if isinstance(src.body, Cloze | Ordering | Description):
            got = replace(got, lang=src.lang, tags=src.tags, loc=None)
            assert _normal(got) == _normal(kept(quiz, src)), src.id
    again = read_back(
        replace(
            quiz, questions=tuple(replace(q, lang=s.lang) for q, s in zip(back, quiz.questions, strict=True))
        )
    )
    for first, second in zip(back, again, strict=True):
        assert replace(second, lang=first.lang) == first


@st.composite
def structured_quizzes(draw: st.DrawFn) -> Quiz:
    """A quiz of one to three cloze, ordering or description questions (every option drawn)."""
    n = draw(st.integers(1, 3))
    qs = tuple(draw(structured_questions(f"q{i}", everything=True)) for i in range(n))
    return canonical_langs(Quiz(id="s", title="t", lang=draw(st.sampled_from(["ur", "en"])), questions=qs))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quiz=structured_quizzes())
def test_any_cloze_ordering_or_description_round_trips(quiz: Quiz) -> None:
    test_any_quiz_with_the_new_kinds_round_trips_through_qti21.hypothesis.inner_test(quiz)  # type: ignore[attr-defined]
