"""Hypothesis strategies for the whole model: any bank the YAML loader could produce.

Texts are what the loader leaves (non-empty, stripped, no XML-illegal characters) and mix
Urdu, English, bidi marks, GIFT and HTML specials and injection payloads. Ids follow the
source format (ASCII, unique in the bank ignoring case); languages follow the loader's
invariant (a question's or choice's lang only when it differs from the enclosing one).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st

from lmsexport.model import Bank, Choice, Difficulty, NumericKey, Pair, Question, QuestionType, Quiz
from lmsexport.writers.gift import FORMAT_TAGS, WEIGHT_RE
from lmsexport.writers.moodlexml import plain_text_problem

_CHARS = st.sampled_from(
    list("~=#{}:\\%->[]<>&;*/'\" \n\t0aZé\u00a0\u200f\u202e\u0301سوالہے۔中🙂\ufdd0\x85\u2028")
)
_TOKENS = st.sampled_from(
    [
        "",
        "<script>window.__pwned=1</script>",
        "<img src=x onerror=alert(1)>",
        "]]>",
        "&amp;",
        "{{ 7*7 }}",
        "->",
        "%50%",
        "\n\n",
        "[html]",
        "ZeRO مرحلہ 3",
    ]
)
TEXT = st.tuples(st.text(_CHARS, max_size=5), _TOKENS, st.text(_CHARS, max_size=5)).map(
    lambda t: "".join(t).strip() or "x"
)
"""A non-empty, stripped text with specials inside, as the loader leaves texts."""

# What GIFT or Moodle XML cannot carry in a short answer or a matching right side is a writer
# error, tested in tests/test_gift_writer.py and tests/test_moodlexml_writer.py; the bank
# strategies stay inside what every format carries.
ANSWER = TEXT.filter(
    lambda s: (
        not (WEIGHT_RE.match(s) or s.lower().startswith(FORMAT_TAGS) or "->" in s or "\\*" in s or "&&" in s)
        and plain_text_problem(s) is None
    )
)
PLAIN_RIGHT = TEXT.filter(lambda s: "&&" not in s and plain_text_problem(s) is None)
LANG = st.sampled_from([None, "en", "ur", "ar"])
NUM = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9)
TAGS = st.lists(st.text("az09-", min_size=1, max_size=6).map(lambda s: "t" + s), max_size=3, unique=True).map(
    tuple
)


@st.composite
def choices(draw: st.DrawFn, multiple: bool) -> tuple[Choice, ...]:
    texts = draw(st.lists(TEXT, min_size=2, max_size=5, unique=True))
    right = set(
        draw(st.lists(st.integers(0, len(texts) - 1), min_size=1, max_size=len(texts) if multiple else 1))
    )
    return tuple(
        Choice(t, correct=i in right, feedback=draw(st.none() | TEXT), lang=draw(LANG))
        for i, t in enumerate(texts)
    )


@st.composite
def questions(draw: st.DrawFn, qid: str, qtype: QuestionType | None = None) -> Question:
    qtype = qtype or draw(st.sampled_from(list(QuestionType)))
    extra: dict[str, object] = {}
    if qtype in (QuestionType.SINGLE, QuestionType.MULTIPLE):
        extra["choices"] = draw(choices(qtype is QuestionType.MULTIPLE))
    elif qtype is QuestionType.TRUE_FALSE:
        extra["truth"] = draw(st.booleans())
    elif qtype is QuestionType.SHORT_ANSWER:
        extra["answers"] = tuple(draw(st.lists(ANSWER, min_size=1, max_size=3, unique=True)))
        extra["case_sensitive"] = draw(st.booleans())
    elif qtype is QuestionType.NUMERICAL:
        lo, hi = sorted((draw(NUM), draw(NUM)))
        extra["numeric"] = draw(
            st.sampled_from(
                [
                    NumericKey(answer=lo, tolerance=abs(hi - lo) / 7),
                    NumericKey(answer=hi),
                    NumericKey(low=lo, high=hi),
                    NumericKey(answer=lo, low=lo, high=hi),
                ]
            )
        )
    elif qtype is QuestionType.MATCHING:
        lefts = draw(st.lists(TEXT, min_size=2, max_size=4, unique=True))
        pairs = tuple(Pair(left, draw(PLAIN_RIGHT)) for left in lefts)
        rights = {p.right for p in pairs}
        extra["pairs"] = pairs
        extra["distractors"] = tuple(
            draw(st.lists(PLAIN_RIGHT.filter(lambda d: d not in rights), max_size=2))
        )
    return Question(
        id=qid,
        type=qtype,
        stem=draw(TEXT),
        explanation=draw(st.none() | TEXT),
        points=draw(st.sampled_from([1.0, 2.0, 0.5, 3.0])),
        lang=draw(LANG),
        tags=draw(TAGS),
        **extra,  # type: ignore[arg-type]
    )


def canonical_langs(quiz: Quiz) -> Quiz:
    """The loader's invariant: a lang is set only where it differs from the enclosing one."""
    out = []
    for q in quiz.questions:
        q = replace(q, lang=q.lang if q.lang != quiz.lang else None)
        lang = quiz.lang_of(q)
        out.append(
            replace(q, choices=tuple(replace(c, lang=c.lang if c.lang != lang else None) for c in q.choices))
        )
    return replace(quiz, questions=tuple(out))


IDS = st.text("abcxyz0129-._", max_size=8).map(lambda s: "q" + s)


@st.composite
def quizzes(draw: st.DrawFn, quiz_id: str = "quiz-1", qids: list[str] | None = None) -> Quiz:
    if qids is None:
        qids = draw(st.lists(IDS, min_size=1, max_size=4, unique_by=str.casefold))
    return canonical_langs(
        Quiz(
            id=quiz_id,
            title=draw(TEXT),
            lang=draw(st.sampled_from(["ur", "en"])),
            questions=tuple(draw(questions(i)) for i in qids),
            description=draw(st.none() | TEXT),
            difficulty=draw(st.none() | st.sampled_from(list(Difficulty))),
            category=draw(st.none() | st.sampled_from(["a/b", "llm-training/zero", "کورس/حصہ"])),
            shuffle=draw(st.booleans()),
        )
    )


@st.composite
def banks(draw: st.DrawFn) -> Bank:
    """One to three quizzes; question ids unique across the bank, also ignoring case."""
    n = draw(st.integers(1, 3))
    qids = draw(st.lists(IDS, min_size=n, max_size=n + 6, unique_by=str.casefold))
    cuts = (
        sorted(draw(st.lists(st.integers(1, len(qids) - 1), max_size=n - 1, unique=True)))
        if len(qids) > 1
        else []
    )
    groups = [qids[a:b] for a, b in zip([0, *cuts], [*cuts, len(qids)], strict=True)]
    return Bank(tuple(draw(quizzes(f"quiz-{i}", g)) for i, g in enumerate(groups)))
