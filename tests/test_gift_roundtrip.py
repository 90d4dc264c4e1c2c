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

from lmsexport.build import _assessment_round_trip
from lmsexport.gift import is_derived_name
from lmsexport.media import sniff
from lmsexport.model import (
    Answer,
    Assessment,
    Bank,
    Block,
    Body,
    BulletList,
    Candidate,
    Choice,
    Code,
    CodeBlock,
    Difficulty,
    Draw,
    Emph,
    Essay,
    Hint,
    Image,
    Inline,
    LineBreak,
    Link,
    Matching,
    Math,
    Media,
    MultipleChoice,
    Numerical,
    NumericKey,
    OrderedList,
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
    Strong,
    Table,
    Text,
    TrueFalse,
    Unit,
    UnitGrading,
    default_multiple_credits,
    exact_credit,
)
from lmsexport.moodle import MOODLE_GRADES
from lmsexport.readers.gift import read_quiz
from lmsexport.writers import Output
from lmsexport.writers.gift import (
    FORMAT_TAGS,
    MATH_DELIMITERS,
    WEIGHT_RE,
    as_in_assessment,
    as_written,
    write_assessment,
    write_quiz,
)

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
    flags = [i in right for i in range(n)]
    # Credits as the loader gives them: 1 for a single choice question's key, the default
    # rule for a multiple choice question's choices.
    credits = default_multiple_credits(flags) if multiple else tuple(1.0 if f else 0.0 for f in flags)
    return tuple(
        Choice(draw(TEXT), credit=credit, feedback=draw(st.none() | TEXT), lang=draw(LANG))
        for credit in credits
    )


@st.composite
def questions(draw: st.DrawFn, qid: str) -> Question:
    qtype = draw(st.sampled_from(list(QuestionType)))
    stem, explanation = draw(TEXT), draw(st.none() | TEXT)
    points, lang, tags = draw(st.sampled_from([1.0, 2.0, 0.5])), draw(LANG), draw(TAGS)
    body: Body
    if qtype is QuestionType.SINGLE:
        body = SingleChoice(draw(choices(False)))
    elif qtype is QuestionType.MULTIPLE:
        body = MultipleChoice(draw(choices(True)))
    elif qtype is QuestionType.TRUE_FALSE:
        body = TrueFalse(draw(st.booleans()))
    elif qtype is QuestionType.SHORT_ANSWER:
        answers = tuple(Answer(a) for a in draw(st.lists(ANSWER, min_size=1, max_size=3)))
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
        body = Numerical((key,))
    elif qtype is QuestionType.MATCHING:
        pairs = draw(st.lists(st.tuples(TEXT, PLAIN_RIGHT), min_size=2, max_size=4))
        body = Matching(tuple(Pair(a, b) for a, b in pairs), tuple(draw(st.lists(PLAIN_RIGHT, max_size=2))))
    else:
        body = Essay()
    return Question(
        id=qid, stem=stem, explanation=explanation, points=points, lang=lang, tags=tags, body=body
    )


# -- issue 22: credits, feedback, names, distractors, and what only the metadata carries ---

GRADES = st.sampled_from(sorted({exact_credit(float(g)) for g in MOODLE_GRADES}))
"""Any credit on Moodle's grade list, as the exact fraction it stands for."""
EARNED = GRADES.filter(lambda x: x >= 0)
LITERAL_ANSWER = TEXT.filter(lambda s: _writable_answer(s.replace("\\*", "*")))
"""A literal answer: `*` and `\\*` included (written `\\*` and `\\\\*`, read back exactly)."""
WILDCARD_ANSWER = ANSWER.filter(lambda s: "*" in s and s != "*")
NAME = TEXT.map(lambda s: " ".join(s.split())).filter(lambda s: bool(s) and "&&" not in s)


@st.composite
def graded_questions(draw: st.DrawFn, qid: str) -> Question:
    """A question of questions() with every field of issue 22 GIFT carries, or carries in its
    metadata comment, drawn with GIFT's and HTML's specials in every text."""
    q = draw(questions(qid))
    opt = st.none() | TEXT
    body: Body = q.body
    match body:
        case SingleChoice(choices) | MultipleChoice(choices) if draw(st.booleans()):
            credits = [draw(GRADES) for _ in choices]
            if max(credits) <= 0:
                credits[0] = draw(GRADES.filter(lambda x: x > 0))
            body = replace(
                body, choices=tuple(replace(c, credit=x) for c, x in zip(choices, credits, strict=True))
            )
        case TrueFalse(truth):
            body = TrueFalse(truth, draw(opt), draw(opt))
        case ShortAnswer():
            answers = []
            for _ in range(draw(st.integers(1, 3))):
                wildcard = draw(st.booleans())
                text = draw(WILDCARD_ANSWER if wildcard else LITERAL_ANSWER)
                answers.append(Answer(text, draw(EARNED), draw(opt), wildcard))
            i = draw(st.integers(0, len(answers) - 1))
            answers[i] = replace(answers[i], credit=1.0)
            other = draw(opt)
            if other is None and answers[-1].wildcard and answers[-1].text == "*" and answers[-1].credit == 0:
                other = "x"  # a last `*` at 0% with feedback is Moodle's "any other answer"
            body = ShortAnswer(tuple(answers), body.case_sensitive, other)
        case Numerical(keys):
            extra = draw(st.lists(st.builds(NumericKey, NUM, st.just(0.0)), max_size=2))
            keys = tuple(replace(k, credit=draw(EARNED), feedback=draw(opt)) for k in (*keys, *extra))
            units = draw(st.sampled_from([(), (Unit("GB"), Unit("MB", 1000.0))]))
            body = Numerical(keys, units=units, unit_grading=draw(st.sampled_from(list(UnitGrading))),
                             other_feedback=draw(opt))  # fmt: skip
        case Essay():
            body = Essay(
                draw(st.sampled_from(list(ResponseFormat))),
                draw(st.booleans()),
                draw(st.sampled_from([15, 3])),
                draw(st.none() | st.integers(0, 5)),
                draw(st.none() | st.integers(5, 9)),
                draw(opt),
                draw(opt),
            )
    q = replace(
        q,
        body=body,
        feedback=OutcomeFeedback(draw(opt), draw(opt), draw(opt), draw(st.booleans())),
        hints=tuple(
            Hint(t, draw(st.booleans()), draw(st.booleans())) for t in draw(st.lists(TEXT, max_size=2))
        ),
        penalty=draw(st.sampled_from([None, 0.0, 0.5, 1.0])),
    )
    name = draw(st.none() | NAME)
    # A name equal to the one the writer derives from the stem reads back as no name.
    return q if name is None or is_derived_name(name, q) else replace(q, name=name)


def _canonical_langs(quiz: Quiz) -> Quiz:
    """The model's invariant (as the loader builds it): a question's lang is set only when it
    differs from the quiz's, a choice's only when it differs from its question's."""
    qs = []
    for q in quiz.questions:
        q = replace(q, lang=q.lang if q.lang != quiz.lang else None)
        lang = quiz.lang_of(q)
        if isinstance(q.body, SingleChoice | MultipleChoice):
            own = tuple(replace(c, lang=c.lang if c.lang != lang else None) for c in q.body.choices)
            q = replace(q, body=replace(q.body, choices=own))
        qs.append(q)
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


@st.composite
def graded_quizzes(draw: st.DrawFn) -> Quiz:
    quiz = draw(quizzes())
    return _canonical_langs(
        replace(quiz, questions=tuple(draw(graded_questions(q.id)) for q in quiz.questions))
    )


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graded_quizzes())
def test_any_quiz_with_credits_feedback_and_names_survives_gift(quiz: Quiz) -> None:
    assert _round_trip(quiz) == quiz


@pytest.mark.parametrize(
    "stem", ["Ends with a colon:", "a {b} = c", "x = {", "}{", "0", "::t:: not a title", "\\n"]
)
def test_awkward_stems(stem: str) -> None:
    q = Question(id="s", stem=stem, body=SingleChoice((Choice("=", 1.0), Choice("{"))))
    quiz = Quiz(id="quiz-1", title="T", lang="en", questions=(q,))
    assert _round_trip(quiz) == quiz


def test_seed_quizzes_survive_gift() -> None:
    source = pytest.importorskip("lmsexport.source")
    bank = source.load_paths([str(SOURCE)])
    for quiz in bank.quizzes:
        # A cloze of several blanks has no GIFT form: left out, and named (gift.cloze-not-carried);
        # a parametric question is its variants (tests/test_gift_parametric.py).
        kept = replace(quiz, questions=tuple(x for q in quiz.questions for x in as_written(q)))
        assert _round_trip(quiz) == kept
    stems = [q.stem for quiz in bank.quizzes for q in quiz.questions]
    assert any(s.endswith(":") for s in stems)


def test_seed_000_question_3_keeps_its_colon() -> None:
    source = pytest.importorskip("lmsexport.source")
    quiz = next(q for q in source.load_paths([str(SOURCE)]).quizzes if q.id == "deepspeed-megatron-stacks")
    question = quiz.questions[2]
    assert question.stem.endswith(":")
    assert re.search(r"\\:</span>\{$", write_quiz(quiz)[0], re.M)
    assert _round_trip(quiz).questions[2].stem == question.stem


# -- rich texts and assessments ----------------------------------------------------------
#
# Rich trees as the Markdown loader builds them (adjacent Strs merged, no empty Str, formulas
# stripped, table cells trimmed), with every GIFT and HTML special inside, and banks of them
# drawn into assessments: both must come back from GIFT unchanged.

_IMG = Path(__file__).resolve().parent / "cases" / "rich" / "img"


def _media(name: str) -> Media:
    data = (_IMG / name).read_bytes()
    found = sniff(data)
    return Media(name, data, found.mime, found.width, found.height)


MEDIA = st.sampled_from([_media("bar.png"), _media("stages.svg")])
_RICH_CHARS = st.sampled_from(list("~=#{}:\\%->[]<>&;*/'\" \t0aZé\u00a0\u200fسوالہے۔中🙂$()"))
_RICH_TOKENS = st.sampled_from(
    ["", "->", "%50%", "&&058;", "####", "\\n", "[html]", "&nbsp;", "<br>", "  ", "</p>"]
)


def _no_math_delimiter(s: str) -> bool:
    """Literal MathJax delimiters in text are warned about (tests/test_rich_gift.py) and read back
    as formulas, so the trees drawn here hold none."""
    return not any(d in s for d in MATH_DELIMITERS)


STR_TEXT = (
    st.tuples(st.text(_RICH_CHARS, max_size=6), _RICH_TOKENS, st.text(_RICH_CHARS, max_size=6))
    .map("".join)
    .filter(lambda s: s != "" and _no_math_delimiter(s))
)
WORD = st.text(st.sampled_from(list("aZ~=#{}:\\<>&سوال")), min_size=1, max_size=5).filter(_no_math_delimiter)
TEX = (
    st.text(st.sampled_from(list("\\{}^_ax2+=#~:<&|")), min_size=1, max_size=12)
    .map(lambda s: s.strip())
    .filter(
        lambda s: s and not s.endswith("\\") and not any(d in s for d in ("\\)", "\\]", "$$", "\\(", "\\["))
    )
)
URL = st.text(st.sampled_from(list("abz019-._~%/?=&#")), max_size=12).map(
    lambda s: "https://example.org/" + s
)
TITLE = st.none() | WORD


def _normal(inlines: list[Inline]) -> tuple[Inline, ...]:
    """Adjacent Strs merged, as the loader (and the HTML reader) leave them."""
    out: list[Inline] = []
    for x in inlines:
        if isinstance(x, Str) and out and isinstance(out[-1], Str):
            out[-1] = Str(out[-1].text + x.text)
        else:
            out.append(x)
    return tuple(out)


def _inlines(children: st.SearchStrategy[list[Inline]]) -> st.SearchStrategy[Inline]:
    return st.one_of(
        STR_TEXT.map(Str),
        st.builds(lambda c: Emph(_normal(c)), children),
        st.builds(lambda c: Strong(_normal(c)), children),
        st.builds(Code, st.text(_RICH_CHARS, min_size=1, max_size=8)),
        st.builds(Math, TEX, st.booleans()),
        st.builds(lambda url, c, title: Link(url, _normal(c), title), URL, children, TITLE),
        st.builds(Image, MEDIA, WORD.map(str.strip).filter(bool), TITLE),
        st.just(LineBreak()),
    )


INLINE: st.SearchStrategy[Inline] = st.recursive(
    _inlines(st.nothing()).filter(lambda x: not isinstance(x, Emph | Strong | Link)),
    lambda inner: _inlines(st.lists(inner, min_size=1, max_size=3)),
    max_leaves=6,
)


def _links_in(inlines: tuple[Inline, ...], inside: bool = False) -> bool:
    """Whether a link holds a link (HTML cannot nest them, and CommonMark never does)."""
    for x in inlines:
        if isinstance(x, Link) and (inside or _links_in(x.children, True)):
            return True
        if isinstance(x, Emph | Strong) and _links_in(x.children, inside):
            return True
    return False


INLINES = st.lists(INLINE, min_size=1, max_size=4).map(_normal).filter(lambda x: not _links_in(x))
CELL = (
    st.sampled_from([(), (Str("x"),)])
    | st.tuples(WORD.map(lambda w: Str(w.strip() or "w")))
    | st.tuples(st.builds(Code, WORD))
    | st.tuples(WORD.map(lambda w: Str((w.strip() or "w") + " ")), st.builds(Math, TEX, st.just(False)))
)


@st.composite
def tables(draw: st.DrawFn) -> Table:
    width = draw(st.integers(1, 3))
    row = st.lists(CELL, min_size=width, max_size=width).map(tuple)
    aligns = draw(
        st.lists(st.sampled_from([None, "left", "center", "right"]), min_size=width, max_size=width)
    )
    return Table(draw(row), tuple(draw(st.lists(row, max_size=2))), tuple(aligns))


def _blocks(items: st.SearchStrategy[list[Block]]) -> st.SearchStrategy[Block]:
    return st.one_of(
        INLINES.map(Para),
        st.builds(
            CodeBlock,
            st.text(st.sampled_from(list("~=#{}:\\ \n\tx<&>-")), min_size=1, max_size=12),
            st.sampled_from([None, "python", "json", "c++"]),
        ),
        st.builds(lambda i: BulletList(tuple(map(tuple, i))), st.lists(items, min_size=1, max_size=3)),
        st.builds(
            lambda i, start: OrderedList(tuple(map(tuple, i)), start),
            st.lists(items, min_size=1, max_size=3),
            st.integers(0, 5),
        ),
        tables(),
    )


BLOCK: st.SearchStrategy[Block] = st.recursive(
    INLINES.map(Para), lambda inner: _blocks(st.lists(inner, min_size=1, max_size=2)), max_leaves=4
)
RICH = st.lists(BLOCK, min_size=1, max_size=3).map(lambda b: Rich(tuple(b)))


@st.composite
def rich_quizzes(draw: st.DrawFn) -> Quiz:
    """A quiz of quizzes(), with any of its texts made rich and per-question difficulties."""
    quiz = draw(quizzes())

    def maybe(text: Text | None) -> Text | None:
        return draw(RICH) if text is not None and draw(st.booleans()) else text

    out = []
    for q in quiz.questions:
        q = replace(
            q,
            stem=maybe(q.stem),
            explanation=maybe(q.explanation),
            difficulty=draw(st.none() | st.sampled_from(list(Difficulty))),
        )
        body = q.body
        if isinstance(body, SingleChoice | MultipleChoice):
            choices = tuple(replace(c, text=maybe(c.text), feedback=maybe(c.feedback)) for c in body.choices)
            q = replace(q, body=replace(body, choices=choices))
        elif isinstance(body, Matching):
            q = replace(
                q, body=replace(body, pairs=tuple(replace(p, left=maybe(p.left)) for p in body.pairs))
            )
        out.append(q)
    return replace(quiz, questions=tuple(out), description=maybe(quiz.description) or draw(st.none() | RICH))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rich_quizzes())
def test_any_quiz_with_rich_texts_survives_gift(quiz: Quiz) -> None:
    assert _round_trip(quiz) == quiz


@st.composite
def assessments(draw: st.DrawFn) -> tuple[Bank, Assessment]:
    """Two quizzes (one Urdu, one English) and an assessment drawing every question once.

    Plain texts and per-question difficulties: rich texts are the test above's (drawing them
    here too costs minutes and tests nothing the structure depends on)."""

    def quiz() -> Quiz:
        q = draw(quizzes())
        return replace(
            q,
            difficulty=draw(st.none() | st.sampled_from(list(Difficulty))),
            questions=tuple(
                replace(x, difficulty=draw(st.none() | st.sampled_from(list(Difficulty))))
                for x in q.questions
            ),
        )

    first = quiz()
    second = quiz()
    second = replace(
        second,
        id="quiz-2",
        lang="en" if first.lang == "ur" else "ur",
        questions=tuple(replace(q, id=q.id + "-2") for q in second.questions),
    )
    second = _canonical_langs(second)
    pool = [Candidate(quiz.header, q) for quiz in (first, second) for q in quiz.questions]
    draws = []
    while pool:
        n = draw(st.integers(1, len(pool)))
        taken, pool = pool[:n], pool[n:]
        random = draw(st.booleans())
        draws.append(
            Draw(
                name=f"d{len(draws) + 1}",
                ids=() if random else tuple(c.question.id for c in taken),
                pool=Pool() if random else None,
                pick=draw(st.integers(1, len(taken))) if random else None,
                points=draw(st.none() | st.sampled_from([1.0, 2.5, 10.0])),
                candidates=tuple(taken),
            )
        )
    cut = draw(st.integers(1, len(draws)))
    sections = tuple(
        Section(title=draw(st.none() | TEXT), shuffle=draw(st.booleans()), draws=tuple(part))
        for part in (draws[:cut], draws[cut:])
        if part
    )
    assessment = Assessment(
        id="exam-1",
        title=draw(TEXT),
        lang=draw(st.sampled_from(["ur", "en", "ar"])),
        sections=sections,
        description=draw(st.none() | TEXT | RICH),
    )
    return Bank((first, second), (assessment,)), assessment


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(assessments())
def test_any_assessment_survives_gift(drawn: tuple[Bank, Assessment]) -> None:
    bank, assessment = drawn
    text, diags = write_assessment(assessment)
    assert not [d for d in diags if d.severity.value == "error"], [d.format() for d in diags]
    assert _assessment_round_trip(assessment, Output({"gift/exam-1.gift.txt": text.encode()})) == []
    # Read as a quiz, the file is every question an attempt may show, once, in draw order.
    quiz, _ = read_quiz(text, "exam-1.gift.txt")
    assert quiz.questions == tuple(as_in_assessment(assessment, c) for c in assessment.candidates)
