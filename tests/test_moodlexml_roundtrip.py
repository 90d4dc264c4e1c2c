"""Writer -> reader round trip: any writable model survives Moodle XML unchanged, like GIFT.

Texts are non-empty and stripped, as the loader leaves them; inside a text anything XML 1.0
holds: markup, entities, `]]>`, CDATA look-alikes, quotes, white space runs, tabs and carriage
returns, Urdu, bidi marks. Texts Moodle stores unformatted (short answers, matching right items)
leave out what plain_text_problem() names: the writer refuses those (tests/test_moodlexml_writer.py).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmsexport.model import Choice, Difficulty, NumericKey, Pair, Question, QuestionType, Quiz
from lmsexport.readers.moodlexml import read_quiz
from lmsexport.writers.moodlexml import plain_text_problem, write_quiz

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


@st.composite
def questions(draw: st.DrawFn, qid: str) -> Question:
    qtype = draw(st.sampled_from(list(QuestionType)))
    extra: dict[str, object] = {}
    if qtype in (QuestionType.SINGLE, QuestionType.MULTIPLE):
        n = draw(st.integers(2, 6))
        right = set(
            draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n if qtype.value == "multiple" else 1))
        )
        extra["choices"] = tuple(
            Choice(draw(TEXT), correct=i in right, feedback=draw(st.none() | TEXT), lang=draw(LANG))
            for i in range(n)
        )
    elif qtype is QuestionType.TRUE_FALSE:
        extra["truth"] = draw(st.booleans())
    elif qtype is QuestionType.SHORT_ANSWER:
        extra["answers"] = tuple(draw(st.lists(PLAIN, min_size=1, max_size=3)))
        extra["case_sensitive"] = draw(st.booleans())
    elif qtype is QuestionType.NUMERICAL:
        lo, hi = sorted((draw(NUM), draw(NUM)))
        extra["numeric"] = draw(
            st.sampled_from(
                [
                    NumericKey(answer=lo, tolerance=abs(hi) / 7),
                    NumericKey(answer=hi),
                    NumericKey(low=lo, high=hi),
                    NumericKey(answer=lo, low=lo, high=hi),
                ]
            )
        )
    elif qtype is QuestionType.MATCHING:
        extra["pairs"] = tuple(
            Pair(a, b) for a, b in draw(st.lists(st.tuples(TEXT, PLAIN), min_size=2, max_size=4))
        )
        extra["distractors"] = tuple(draw(st.lists(PLAIN, max_size=2)))
    return Question(
        id=qid,
        type=qtype,
        stem=draw(TEXT),
        explanation=draw(st.none() | TEXT),
        points=draw(POINTS),
        lang=draw(LANG),
        tags=draw(TAGS),
        **extra,  # type: ignore[arg-type]
    )


def _canonical_langs(quiz: Quiz) -> Quiz:
    """The loader's invariant: a lang is set only where it differs from the enclosing one."""
    qs = []
    for q in quiz.questions:
        q = replace(q, lang=q.lang if q.lang != quiz.lang else None)
        lang = quiz.lang_of(q)
        qs.append(
            replace(q, choices=tuple(replace(c, lang=c.lang if c.lang != lang else None) for c in q.choices))
        )
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
            description=draw(st.none() | TEXT),
            difficulty=draw(st.none() | st.sampled_from(list(Difficulty))),
            category=draw(st.none() | st.sampled_from(["a/b", "a//b", "کورس/حصہ", "x <y>"])),
            shuffle=draw(st.booleans()),
        )
    )


def _round_trip(quiz: Quiz) -> Quiz:
    data, diags = write_quiz(quiz)
    assert not [d for d in diags if d.severity.value == "error"], [d.format() for d in diags]
    return read_quiz(data, "quiz-1.xml")[0]


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes())
def test_any_quiz_survives_moodlexml(quiz: Quiz) -> None:
    assert _round_trip(quiz) == quiz


def test_seed_quizzes_survive_moodlexml() -> None:
    source = pytest.importorskip("lmsexport.source")
    bank = source.load_paths([str(SOURCE)])
    for quiz in bank.quizzes:
        assert _round_trip(quiz) == quiz
