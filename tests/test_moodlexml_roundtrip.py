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
    Hint,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    OutcomeFeedback,
    Pair,
    Para,
    Pool,
    Question,
    QuestionType,
    Quiz,
    ResponseFormat,
    Rich,
    Section,
    ShortAnswer,
    SingleChoice,
    Str,
    Text,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
    default_multiple_credits,
    exact_credit,
)
from lmsexport.moodle import MOODLE_GRADES
from lmsexport.moodlexml import question_name
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


GRADES = [float(g) for g in MOODLE_GRADES]
"""Credits on Moodle's grade list (what the loader accepts), as the floats Moodle stores."""
CREDIT = st.sampled_from(GRADES).map(exact_credit)
POSITIVE = st.sampled_from([g for g in GRADES if g >= 0]).map(exact_credit)
FRACTION = st.one_of(
    st.sampled_from([0.0, 0.1, 1 / 3, 0.5, 1.0, 0.3333333, 1 / 7, 0.123456789]),
    st.floats(min_value=0, max_value=1, allow_nan=False),
)
"""A penalty: Moodle's defaults and fractions Moodle stores to 7 decimals, and any other."""
HINTS = st.lists(st.builds(Hint, FORMATTED, st.booleans(), st.booleans()), max_size=3).map(tuple)
FEEDBACK = st.builds(
    OutcomeFeedback, st.none() | FORMATTED, st.none() | FORMATTED, st.none() | FORMATTED, st.booleans()
)
UNIT_NAMES = st.lists(PLAIN, min_size=1, max_size=3, unique=True)


@st.composite
def numeric_key(draw: st.DrawFn) -> NumericKey:
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
    return replace(key, credit=draw(POSITIVE), feedback=draw(st.none() | FORMATTED))


@st.composite
def short_answers(draw: st.DrawFn) -> tuple[Answer, ...]:
    """Answers with credits (one of them full), feedback and wildcards: a wildcard answer has a `*`
    and no `\\` right before one (Moodle reads that `*` as a literal: the writer refuses it)."""
    texts = draw(st.lists(PLAIN, min_size=1, max_size=3, unique=True))
    answers = []
    for n, text in enumerate(texts):
        wildcard = "*" in text and "\\*" not in text and draw(st.booleans())
        credit = 1.0 if n == 0 else draw(POSITIVE)
        answers.append(Answer(text, credit, draw(st.none() | FORMATTED), wildcard))
    return tuple(answers)


@st.composite
def essays(draw: st.DrawFn) -> Essay:
    response_format = draw(st.sampled_from(list(ResponseFormat)))
    low = draw(st.none() | st.integers(1, 500))
    high = draw(st.none() | st.integers(low or 1, 1000))
    plain_box = response_format in (ResponseFormat.PLAIN, ResponseFormat.MONOSPACED)
    # A plain box shows the template as written: plain text (Moodle stores it unformatted), or a
    # rich one, whose markup Moodle loses and lmsexport's comment keeps.
    template = draw(st.none() | (PLAIN | RICH if plain_box else FORMATTED))
    # Attachments as the loader takes them (Moodle's form): files only needs one allowed and
    # one required; no more required than allowed; types and a size only with files allowed.
    files_only = response_format is ResponseFormat.NONE
    allowed = draw(st.sampled_from([1, 2, 3, 10, -1] if files_only else [0, 1, 2, 3, 10, -1]))
    required = draw(st.integers(int(files_only), 5 if allowed < 0 else allowed)) if allowed else 0
    types = st.sampled_from([".pdf", ".tar.gz", "document", "web_image", "application/pdf", "image/*"])
    return Essay(
        attachments=allowed,
        attachments_required=required,
        file_types=tuple(draw(st.lists(types, unique=True, max_size=3))) if allowed else (),
        max_bytes=draw(st.sampled_from([0, 1, 102400, 2147483648])) if allowed else 0,
        response_format=response_format,
        required=draw(st.booleans()),
        lines=draw(st.integers(1, 40)),
        min_words=low,
        max_words=high,
        template=template,
        grader_info=draw(st.none() | FORMATTED),
    )


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
        if draw(st.booleans()):
            # Credits of their own: any grade, several full-credit choices or none.
            credits = tuple(draw(CREDIT) for _ in range(n))
            if multiple and not any(c > 0 for c in credits):
                credits = (1.0, *credits[1:])
        choices = tuple(
            Choice(draw(FORMATTED), credit=credit, feedback=draw(st.none() | FORMATTED), lang=draw(LANG))
            for credit in credits
        )
        body = MultipleChoice(choices) if multiple else SingleChoice(choices)
    elif qtype is QuestionType.TRUE_FALSE:
        body = TrueFalse(draw(st.booleans()), draw(st.none() | FORMATTED), draw(st.none() | FORMATTED))
    elif qtype is QuestionType.SHORT_ANSWER:
        body = ShortAnswer(
            draw(short_answers()),
            case_sensitive=draw(st.booleans()),
            other_feedback=draw(st.none() | FORMATTED),
        )
    elif qtype is QuestionType.NUMERICAL:
        keys = tuple(draw(st.lists(numeric_key(), min_size=1, max_size=3)))
        other = draw(st.none() | FORMATTED)
        if draw(st.booleans()):
            names = draw(UNIT_NAMES)
            multipliers = [1.0] + [draw(st.sampled_from([1000.0, 0.001, 2.5, -1.0, 1e-9])) for _ in names[1:]]
            body = Numerical(
                keys=keys,
                units=tuple(Unit(u, m) for u, m in zip(names, multipliers, strict=True)),
                unit_grading=draw(st.sampled_from(list(UnitGrading))),
                unit_penalty=draw(FRACTION),
                unit_input=draw(st.sampled_from(list(UnitInput))),
                units_left=draw(st.booleans()),
                other_feedback=other,
            )
        else:
            body = Numerical(keys=keys, other_feedback=other)
    elif qtype is QuestionType.MATCHING:
        pairs = tuple(
            Pair(a, b) for a, b in draw(st.lists(st.tuples(FORMATTED, PLAIN), min_size=2, max_size=4))
        )
        body = Matching(pairs, tuple(draw(st.lists(PLAIN, max_size=2))))
    else:
        body = draw(essays()) if draw(st.booleans()) else Essay()
    question = Question(
        id=qid,
        stem=draw(FORMATTED),
        body=body,
        explanation=draw(st.none() | FORMATTED),
        points=draw(POINTS),
        lang=draw(LANG),
        tags=draw(TAGS),
        difficulty=draw(st.none() | st.sampled_from(list(Difficulty))),
    )
    if draw(st.booleans()):
        question = replace(
            question,
            feedback=draw(FEEDBACK),
            hints=draw(HINTS),
            penalty=draw(st.none() | FRACTION),
        )
    if draw(st.booleans()):
        # A name of its own, or the one the writer derives from the stem (which reads back as None
        # unless the file says it was set). The model has no empty name (the loader refuses one),
        # and a stem of only a line break derives one: then only a name of its own.
        derived = question_name(question)
        question = replace(question, name=draw(PLAIN | st.just(derived)) if derived else draw(PLAIN))
    return question


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
