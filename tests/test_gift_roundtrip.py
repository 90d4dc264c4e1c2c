"""Writer -> reader round trip: any writable model survives GIFT unchanged.

Texts are assumed non-empty and without leading/trailing white space, as the YAML loader
(lmsexport.source) strips them; inside a text anything goes: every GIFT special, `->`,
`%50%`, Urdu, HTML, line breaks and blank lines, runs of spaces.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmsexport.model import Choice, NumericKey, Pair, Question, QuestionType, Quiz
from lmsexport.readers.gift import read_quiz
from lmsexport.writers.gift import FORMAT_TAGS, WEIGHT_RE, write_quiz

SOURCE = Path(__file__).resolve().parents[1] / "source"

# A fixed alphabet draws much faster than st.characters(): GIFT and HTML specials, white
# space, Urdu, bidi marks, a combining mark, CJK, an emoji, a noncharacter, C1 and U+2028.
_CHARS = st.sampled_from(
    list("~=#{}:\\%->[]<>&;*/ \n\t0aZé\u00a0\u200f\u0301سوالہے۔中🙂\ufdd0\x85\u2028\u3000")
)
_TOKENS = st.sampled_from(
    [
        "",
        "->",
        "%50%",
        "&&058;",
        "####",
        "//",
        "\n\n",
        "\\n",
        "[html]",
        "&nbsp;",
        "<br>",
        "  ",
        " \n ",
        "\n0\n",
    ]
)
TEXT = st.tuples(st.text(_CHARS, max_size=6), _TOKENS, st.text(_CHARS, max_size=6)).map(
    lambda t: "".join(t).strip() or "x"
)
"""Non-empty, stripped (as the loader leaves texts), with GIFT and HTML specials inside."""


def _writable_answer(s: str) -> bool:
    """What GIFT cannot carry in a short answer is an error of the writer (tested there)."""
    return not (
        WEIGHT_RE.match(s) or s.lower().startswith(FORMAT_TAGS) or "->" in s or "\\*" in s or "&&" in s
    )


ANSWER = TEXT.filter(_writable_answer)
PLAIN_RIGHT = TEXT.filter(lambda s: "&&" not in s)
IDS = st.text("aZ09._-", max_size=6).map(lambda s: "q" + s)
TAGS = st.lists(st.text("az09-", min_size=1, max_size=6).map(lambda s: "t" + s), max_size=3, unique=True).map(
    tuple
)
LANG = st.sampled_from([None, "en", "ur", "ar"])
NUM = st.floats(allow_nan=False, allow_infinity=False, width=64, min_value=-1e12, max_value=1e12)


@st.composite
def choices(draw: st.DrawFn, multiple: bool) -> tuple[Choice, ...]:
    n = draw(st.integers(2, 5))
    right = set(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n if multiple else 1)))
    return tuple(
        Choice(draw(TEXT), correct=i in right, feedback=draw(st.none() | TEXT), lang=draw(LANG))
        for i in range(n)
    )


@st.composite
def questions(draw: st.DrawFn, qid: str) -> Question:
    qtype = draw(st.sampled_from(list(QuestionType)))
    q = Question(
        id=qid,
        type=qtype,
        stem=draw(TEXT),
        explanation=draw(st.none() | TEXT),
        points=draw(st.sampled_from([1.0, 2.0, 0.5])),
        lang=draw(LANG),
        tags=draw(TAGS),
    )
    extra: dict[str, object] = {}
    if qtype in (QuestionType.SINGLE, QuestionType.MULTIPLE):
        extra["choices"] = draw(choices(qtype is QuestionType.MULTIPLE))
    elif qtype is QuestionType.TRUE_FALSE:
        extra["truth"] = draw(st.booleans())
    elif qtype is QuestionType.SHORT_ANSWER:
        extra["answers"] = tuple(draw(st.lists(ANSWER, min_size=1, max_size=3)))
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
        pairs = draw(st.lists(st.tuples(TEXT, PLAIN_RIGHT), min_size=2, max_size=4))
        extra["pairs"] = tuple(Pair(a, b) for a, b in pairs)
        extra["distractors"] = tuple(draw(st.lists(TEXT, max_size=2)))
    return Question(**{**q.__dict__, **extra})


def _canonical_langs(quiz: Quiz) -> Quiz:
    """The model's invariant (as the loader builds it): a question's lang is set only when it
    differs from the quiz's, a choice's only when it differs from its question's."""
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
    ids = draw(st.lists(IDS, min_size=1, max_size=2, unique=True))
    return _canonical_langs(
        Quiz(
            id="quiz-1",
            title=draw(TEXT),
            lang=draw(st.sampled_from(["ur", "en"])),
            questions=tuple(draw(questions(i)) for i in ids),
            description=draw(st.none() | TEXT),
            category=draw(st.none() | st.just("a/b:c")),
            shuffle=draw(st.booleans()),
        )
    )


def _round_trip(quiz: Quiz) -> Quiz:
    text, diags = write_quiz(quiz)
    assert not [d for d in diags if d.severity.value == "error"], [d.format() for d in diags]
    return read_quiz(text, "quiz-1.gift.txt")[0]


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes())
def test_any_quiz_survives_gift(quiz: Quiz) -> None:
    assert _round_trip(quiz) == quiz


@pytest.mark.parametrize(
    "stem", ["Ends with a colon:", "a {b} = c", "x = {", "}{", "0", "::t:: not a title", "\\n"]
)
def test_awkward_stems(stem: str) -> None:
    q = Question(id="s", type=QuestionType.SINGLE, stem=stem, choices=(Choice("=", True), Choice("{")))
    quiz = Quiz(id="quiz-1", title="T", lang="en", questions=(q,))
    assert _round_trip(quiz) == quiz


def test_seed_quizzes_survive_gift() -> None:
    source = pytest.importorskip("lmsexport.source")
    bank = source.load_paths([str(SOURCE)])
    for quiz in bank.quizzes:
        assert _round_trip(quiz) == quiz
    stems = [q.stem for quiz in bank.quizzes for q in quiz.questions]
    assert any(s.endswith(":") for s in stems)


def test_seed_000_question_3_keeps_its_colon() -> None:
    source = pytest.importorskip("lmsexport.source")
    quiz = next(q for q in source.load_paths([str(SOURCE)]).quizzes if q.id == "deepspeed-megatron-stacks")
    question = quiz.questions[2]
    assert question.stem.endswith(":")
    assert re.search(r"\\:</span>\{$", write_quiz(quiz)[0], re.M)
    assert _round_trip(quiz).questions[2].stem == question.stem
