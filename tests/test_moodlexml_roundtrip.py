"""Writer -> reader round trip: any writable model survives Moodle XML unchanged, like GIFT.

Texts are non-empty and stripped, as the loader leaves them; inside a text anything XML 1.0
holds: markup, entities, `]]>`, CDATA look-alikes, quotes, white space runs, tabs and carriage
returns, Urdu, bidi marks. Texts Moodle stores unformatted (short answers, matching right items)
leave out what plain_text_problem() names: the writer refuses those (tests/test_moodlexml_writer.py).
Formatted texts are plain or rich (tests/strategies.py's trees, with text that spells MathJax
delimiters too, which the writer keeps from MathJax), and assessments over such banks come back
as their draws with every candidate.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import BLOCKS, INLINES, _normal, banks

from lmsexport.build import moodlexml_assessment_round_trip
from lmsexport.model import (
    Answer,
    Assessment,
    Body,
    Candidate,
    Choice,
    Difficulty,
    Draw,
    Essay,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    Pair,
    Para,
    Pool,
    Question,
    QuestionType,
    Quiz,
    Rich,
    Section,
    ShortAnswer,
    SingleChoice,
    Str,
    Text,
    TrueFalse,
    default_multiple_credits,
)
from lmsexport.readers.moodlexml import read_assessment, read_quiz
from lmsexport.writers import Output
from lmsexport.writers.moodlexml import as_in_assessment, plain_text_problem, write_assessment, write_quiz

SOURCE = Path(__file__).resolve().parents[1] / "source"

_CHARS = st.sampled_from(
    list("<>&;'\"=/![]-*\\% \n\t\r0aZé\u00a0\u200f\u202e\u0301سوالہے۔中🙂\ufdd0\x85\u2028\u3000")
)
_TOKENS = st.sampled_from(
    ["", "]]>", "<![CDATA[", "&amp;", "&lt;", "&nbsp;", "<br>", "</span>", '<span lang="ur" dir="rtl">',
     "--", "-->", "<!--", "  ", " \n ", "@@PLUGINFILE@@/x.png", "$course$/"]
)  # fmt: skip
TEXT = st.tuples(st.text(_CHARS, max_size=6), _TOKENS, st.text(_CHARS, max_size=6)).map(
    lambda t: "".join(t).strip() or "x"
)
PLAIN = TEXT.filter(lambda s: plain_text_problem(s) is None)
IDS = st.text("aZ09._-", max_size=6).map(lambda s: "q" + s)
TAGS = st.lists(st.text("az09-", min_size=1, max_size=6).map(lambda s: "t" + s), max_size=3, unique=True).map(
    tuple
)
LANG = st.sampled_from([None, "en", "ur", "ar"])
NUM = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)
POINTS = st.sampled_from([1.0, 2.0, 0.5, 0.1, 3.0, 99999.5])
_DELIMITED = st.sampled_from(["\\(", "\\)", "a \\[b", "$$", "x $$ y \\] z", "\\(1\\)"]).map(Str)
"""Text that spells MathJax delimiters: the writer keeps it from MathJax, the reader reads it as text."""
_DELIMITER_PARA = st.lists(INLINES | _DELIMITED, min_size=1, max_size=4).map(lambda xs: Para(_normal(xs)))
RICH = st.lists(BLOCKS | _DELIMITER_PARA, min_size=1, max_size=3).map(lambda bs: Rich(tuple(bs)))
FORMATTED: st.SearchStrategy[Text] = TEXT | RICH
"""A formatted text: plain, or any rich tree the loader could make (and more)."""


@st.composite
def questions(draw: st.DrawFn, qid: str) -> Question:
    qtype = draw(st.sampled_from(list(QuestionType)))
    body: Body
    if qtype in (QuestionType.SINGLE, QuestionType.MULTIPLE):
        n = draw(st.integers(2, 6))
        multiple = qtype is QuestionType.MULTIPLE
        right = set(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n if multiple else 1)))
        flags = [i in right for i in range(n)]
        credits = default_multiple_credits(flags) if multiple else tuple(1.0 if r else 0.0 for r in flags)
        choices = tuple(
            Choice(draw(FORMATTED), credit=credit, feedback=draw(st.none() | FORMATTED), lang=draw(LANG))
            for credit in credits
        )
        body = MultipleChoice(choices) if multiple else SingleChoice(choices)
    elif qtype is QuestionType.TRUE_FALSE:
        body = TrueFalse(draw(st.booleans()))
    elif qtype is QuestionType.SHORT_ANSWER:
        answers = tuple(Answer(a) for a in draw(st.lists(PLAIN, min_size=1, max_size=3)))
        body = ShortAnswer(answers, case_sensitive=draw(st.booleans()))
    elif qtype is QuestionType.NUMERICAL:
        lo, hi = sorted((draw(NUM), draw(NUM)))
        key = draw(
            st.sampled_from(
                [
                    NumericKey(answer=lo, tolerance=abs(hi) / 7),
                    NumericKey(answer=hi),
                    NumericKey(low=lo, high=hi),
                    NumericKey(answer=lo, low=lo, high=hi),
                ]
            )
        )
        body = Numerical(keys=(key,))
    elif qtype is QuestionType.MATCHING:
        pairs = tuple(
            Pair(a, b) for a, b in draw(st.lists(st.tuples(FORMATTED, PLAIN), min_size=2, max_size=4))
        )
        body = Matching(pairs, tuple(draw(st.lists(PLAIN, max_size=2))))
    else:
        body = Essay()
    return Question(
        id=qid,
        stem=draw(FORMATTED),
        body=body,
        explanation=draw(st.none() | FORMATTED),
        points=draw(POINTS),
        lang=draw(LANG),
        tags=draw(TAGS),
        difficulty=draw(st.none() | st.sampled_from(list(Difficulty))),
    )


def _canonical_langs(quiz: Quiz) -> Quiz:
    """The loader's invariant: a lang is set only where it differs from the enclosing one."""
    qs = []
    for q in quiz.questions:
        q = replace(q, lang=q.lang if q.lang != quiz.lang else None)
        lang = quiz.lang_of(q)
        if isinstance(q.body, SingleChoice | MultipleChoice):
            choices = tuple(replace(c, lang=c.lang if c.lang != lang else None) for c in q.body.choices)
            q = replace(q, body=replace(q.body, choices=choices))
        qs.append(q)
    return replace(quiz, questions=tuple(qs))


@st.composite
def quizzes(draw: st.DrawFn) -> Quiz:
    ids = draw(st.lists(IDS, min_size=1, max_size=3, unique=True))
    return _canonical_langs(
        Quiz(
            id="quiz-1",
            title=draw(TEXT),
            lang=draw(st.sampled_from(["ur", "en"])),
            questions=tuple(draw(questions(i)) for i in ids),
            description=draw(st.none() | FORMATTED),
            difficulty=draw(st.none() | st.sampled_from(list(Difficulty))),
            category=draw(st.none() | st.sampled_from(["a/b", "a//b", "کورس/حصہ", "x <y>"])),
            shuffle=draw(st.booleans()),
        )
    )


def _round_trip(quiz: Quiz) -> Quiz:
    data, diags = write_quiz(quiz)
    assert not [d for d in diags if d.severity.value == "error"], [d.format() for d in diags]
    return read_quiz(data, "quiz-1.xml")[0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes())
def test_any_quiz_survives_moodlexml(quiz: Quiz) -> None:
    assert _round_trip(quiz) == quiz


def test_seed_quizzes_survive_moodlexml() -> None:
    source = pytest.importorskip("lmsexport.source")
    bank = source.load_paths([str(SOURCE)])
    for quiz in bank.quizzes:
        assert _round_trip(quiz) == quiz


# -- assessments --------------------------------------------------------------------------


def _richer(quiz: Quiz, draw: st.DrawFn) -> Quiz:
    """A quiz of strategies.banks() with some texts made rich and some per-question difficulties."""

    def maybe(text: Text | None) -> Text | None:
        return draw(RICH) if text is not None and draw(st.booleans()) else text

    def richer_body(body: Body) -> Body:
        if isinstance(body, SingleChoice | MultipleChoice):
            choices = tuple(replace(c, text=maybe(c.text), feedback=maybe(c.feedback)) for c in body.choices)
            return replace(body, choices=choices)
        if isinstance(body, Matching):
            return replace(body, pairs=tuple(replace(p, left=maybe(p.left)) for p in body.pairs))
        return body

    return replace(
        quiz,
        questions=tuple(
            replace(
                q,
                stem=maybe(q.stem),
                explanation=maybe(q.explanation),
                difficulty=draw(st.none() | st.sampled_from(list(Difficulty))),
                body=richer_body(q.body),
            )
            for q in quiz.questions
        ),
    )


@st.composite
def assessments(draw: st.DrawFn) -> Assessment:
    """A resolved assessment over a bank: its questions split into draws (random or listed, with
    or without a points override) in one or two sections."""
    bank = draw(banks())
    pool = [
        Candidate(_richer(quiz, draw).header, q)
        for quiz in bank.quizzes
        for q in _richer(quiz, draw).questions
    ]
    cuts = (
        sorted(draw(st.lists(st.integers(1, len(pool) - 1), max_size=3, unique=True)))
        if len(pool) > 1
        else []
    )
    groups = [pool[a:b] for a, b in zip([0, *cuts], [*cuts, len(pool)], strict=True)]
    draws = []
    for n, group in enumerate(groups):
        random = draw(st.booleans())
        draws.append(
            Draw(
                name=f"d{n}",
                ids=() if random else tuple(c.question.id for c in group),
                pool=Pool() if random else None,
                pick=draw(st.integers(1, len(group))) if random else None,
                points=draw(st.none() | POINTS),
                candidates=tuple(group),
            )
        )
    split = draw(st.integers(1, len(draws)))
    sections = tuple(
        Section(title=draw(st.none() | TEXT), shuffle=draw(st.booleans()), draws=tuple(part))
        for part in (draws[:split], draws[split:])
        if part
    )
    return Assessment(
        id="exam-1",
        title=draw(TEXT),
        lang=draw(st.sampled_from(["ur", "en"])),
        sections=sections,
        description=draw(st.none() | FORMATTED),
    )


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(assessments())
def test_any_assessment_survives_moodlexml(assessment: Assessment) -> None:
    data, diags = write_assessment(assessment)
    assert [d.format() for d in diags if d.severity.value == "error"] == []
    back, _ = read_assessment(data, "exam-1.xml")
    assert [[(d.name, d.is_random, d.pick, d.points) for d in s.draws] for s in back.sections] == [
        [(d.name, d.is_random, d.pick, d.points) for d in s.draws] for s in assessment.sections
    ]
    for ours, theirs in zip(assessment.draws, back.draws, strict=True):
        assert [c.question for c in theirs.candidates] == [
            as_in_assessment(assessment, ours, c) for c in ours.candidates
        ]
    assert (back.title, back.lang, back.description) == (
        assessment.title,
        assessment.lang,
        assessment.description,
    )
    # What `lmsexport check` runs on every build.
    assert moodlexml_assessment_round_trip(assessment, Output({"moodle/exam-1.xml": data})) == []
    # Read as a quiz: every question once, as the assessment holds it.
    quiz, _ = read_quiz(data, "exam-1.xml")
    assert quiz.questions == tuple(
        as_in_assessment(assessment, d, c) for d in assessment.draws for c in d.candidates
    )
