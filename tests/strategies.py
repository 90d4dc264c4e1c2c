"""Hypothesis strategies for the whole model: any bank the YAML loader could produce.

Texts are what the loader leaves (non-empty, stripped, no XML-illegal characters) and mix
Urdu, English, bidi marks, GIFT and HTML specials and injection payloads. Ids follow the
source format (ASCII, unique in the bank ignoring case); languages follow the loader's
invariant (a question's or choice's lang only when it differs from the enclosing one).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar, assert_never

from hypothesis import strategies as st

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
    Strong,
    Table,
    Text,
    TrueFalse,
    default_multiple_credits,
)
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
    """2 to 5 choices with the credits the loader gives `correct: true` flags: single, 1 for the
    one right choice; multiple, the default rule (model.default_multiple_credits)."""
    texts = draw(st.lists(TEXT, min_size=2, max_size=5, unique=True))
    right = set(
        draw(st.lists(st.integers(0, len(texts) - 1), min_size=1, max_size=len(texts) if multiple else 1))
    )
    flags = [i in right for i in range(len(texts))]
    credits = default_multiple_credits(flags) if multiple else tuple(1.0 if f else 0.0 for f in flags)
    return tuple(
        Choice(t, credit=x, feedback=draw(st.none() | TEXT), lang=draw(LANG))
        for t, x in zip(texts, credits, strict=True)
    )


@st.composite
def bodies(draw: st.DrawFn, qtype: QuestionType) -> Body:
    """A body of the given kind, as the loader reads it from today's source format."""
    match qtype:
        case QuestionType.SINGLE:
            return SingleChoice(draw(choices(False)))
        case QuestionType.MULTIPLE:
            return MultipleChoice(draw(choices(True)))
        case QuestionType.TRUE_FALSE:
            return TrueFalse(draw(st.booleans()))
        case QuestionType.SHORT_ANSWER:
            answers = tuple(Answer(a) for a in draw(st.lists(ANSWER, min_size=1, max_size=3, unique=True)))
            return ShortAnswer(answers, case_sensitive=draw(st.booleans()))
        case QuestionType.NUMERICAL:
            lo, hi = sorted((draw(NUM), draw(NUM)))
            key = draw(
                st.sampled_from(
                    [
                        NumericKey(answer=lo, tolerance=abs(hi - lo) / 7),
                        NumericKey(answer=hi),
                        NumericKey(low=lo, high=hi),
                        NumericKey(answer=lo, low=lo, high=hi),
                    ]
                )
            )
            return Numerical(keys=(key,))
        case QuestionType.MATCHING:
            lefts = draw(st.lists(TEXT, min_size=2, max_size=4, unique=True))
            pairs = tuple(Pair(left, draw(PLAIN_RIGHT)) for left in lefts)
            rights = {p.right for p in pairs}
            distractors = tuple(
                draw(st.lists(PLAIN_RIGHT.filter(lambda d: d not in rights), max_size=2, unique=True))
            )
            return Matching(pairs, distractors)
        case QuestionType.ESSAY:
            return Essay()
        case _:
            assert_never(qtype)


@st.composite
def questions(draw: st.DrawFn, qid: str, qtype: QuestionType | None = None) -> Question:
    qtype = qtype or draw(st.sampled_from(list(QuestionType)))
    body = draw(bodies(qtype))
    return Question(
        id=qid,
        stem=draw(TEXT),
        body=body,
        explanation=draw(st.none() | TEXT),
        points=draw(st.sampled_from([1.0, 2.0, 0.5, 3.0])),
        lang=draw(LANG),
        tags=draw(TAGS),
    )


def canonical_langs(quiz: Quiz) -> Quiz:
    """The loader's invariant: a lang is set only where it differs from the enclosing one."""
    out = []
    for q in quiz.questions:
        q = replace(q, lang=q.lang if q.lang != quiz.lang else None)
        lang = quiz.lang_of(q)
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices):
                bare = tuple(replace(c, lang=c.lang if c.lang != lang else None) for c in choices)
                q = replace(q, body=replace(q.body, choices=bare))
        out.append(q)
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


# --------------------------------------------------------------------------- rich text

_WORD = st.text(st.sampled_from(list("aZé سوال~=#{}:\\<>&%[]*_`$|")), min_size=1, max_size=6)
"""Words with the specials of every format (GIFT, HTML, Markdown, TeX delimiters' neighbours)."""
_TEX = st.sampled_from(
    [
        "x",
        "\\frac{(2+2+K)\\Psi}{N_d}",
        "\\frac{p-1}{m+p-1}",
        "\\sum_{i=1}^{N} x_i",
        "2\\Psi + 2\\Psi",
        "a < b",
    ]
)


def _tiny_png(w: int, h: int) -> bytes:
    import struct
    import zlib

    def chunk(t: bytes, d: bytes) -> bytes:
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))

    raw = b"".join(b"\x00" + b"\x10\x80\xc0" * w for _ in range(h))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


MEDIA = st.sampled_from(
    [
        Media("a.png", _tiny_png(3, 2), "image/png", 3, 2),
        Media("b.png", _tiny_png(2, 5), "image/png", 2, 5),
        Media(
            "c.svg",
            b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="4">'
            b'<rect width="8" height="4"/></svg>',
            "image/svg+xml",
            8,
            4,
        ),
    ]
)


def _inline_leaf() -> st.SearchStrategy[Inline]:
    return st.one_of(
        _WORD.map(Str),
        _WORD.map(Code),
        _TEX.map(lambda t: Math(t)),
        st.just(LineBreak()),
        st.builds(Image, MEDIA, _WORD.map(str.strip).filter(bool)),
    )


def _normal(xs: list[Inline]) -> tuple[Inline, ...]:
    """Adjacent Str merged, as every reader gives them back."""
    out: list[Inline] = []
    for x in xs:
        if isinstance(x, Str) and out and isinstance(out[-1], Str):
            out[-1] = Str(out[-1].text + x.text)
        else:
            out.append(x)
    return tuple(out)


_STYLED = st.recursive(
    _inline_leaf(),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: Emph(_normal(xs))),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: Strong(_normal(xs))),
    ),
    max_leaves=4,
)
INLINES = st.one_of(
    _STYLED,
    st.builds(
        Link,
        st.sampled_from(["https://example.org/a?b=1&c=2", "mailto:a@example.org", "http://x.y/<z>"]),
        st.lists(_STYLED, min_size=1, max_size=2).map(_normal),
    ),
)
"""Inlines as Markdown makes them: styled text, and links (which never nest)."""


PARA_INLINES = (
    st.lists(INLINES, min_size=1, max_size=4)
    .map(_normal)
    .filter(lambda xs: not all(isinstance(x, Str) and not x.text.strip() for x in xs))
)
"""A paragraph's inlines; never only white space, which no reader makes (Markdown drops such a
paragraph, import drops such a text), and which reads back as no text at all."""
BLOCKS = st.one_of(
    PARA_INLINES.map(Para),
    st.tuples(PARA_INLINES.map(lambda xs: (Para(xs),))).map(lambda t: BulletList(t)),
    st.builds(
        lambda items, start: OrderedList(tuple((Para(x),) for x in items), start),
        st.lists(PARA_INLINES, min_size=1, max_size=3),
        st.integers(1, 4),
    ),
    st.builds(
        CodeBlock,
        st.text(st.sampled_from(list("ab{}~=#:\\<>&\n ")), min_size=1, max_size=20).map(
            lambda s: s.strip("\n") or "x"
        ),
        st.sampled_from([None, "python", "json"]),
    ),
    st.builds(
        lambda head, body, aligns: Table(
            tuple(head), tuple(tuple(r) for r in body), tuple(aligns[: len(head)])
        ),
        st.lists(PARA_INLINES, min_size=2, max_size=2),
        st.lists(st.lists(PARA_INLINES, min_size=2, max_size=2), max_size=2),
        st.lists(st.sampled_from([None, "left", "center", "right"]), min_size=2, max_size=2),
    ),
)


def _no_tex_delimiters(rich: Rich) -> bool:
    """Text that does not spell a MathJax delimiter: formats that carry math as TeX in text
    (GIFT, Moodle XML) cannot tell it from a formula, and their writers warn about it."""
    from lmsexport.model import inlines_of

    return not any(
        isinstance(x, Str) and any(d in x.text for d in ("\\(", "\\)", "\\[", "\\]", "$$"))
        for x in inlines_of(rich)
    )


RICH = st.lists(BLOCKS, min_size=1, max_size=3).map(lambda bs: Rich(tuple(bs))).filter(_no_tex_delimiters)
"""Any Rich text the loader could produce (images from a few fixed tiny files), without text that
spells a TeX delimiter."""


# Rich texts Markdown can express exactly (what `markup: markdown` files hold): the source
# writer's round trip is exact on these. Edges of paragraphs, cells and emphasis are words
# (Markdown trims white space there and its emphasis rules depend on neighbouring punctuation),
# line breaks stand between words, and two lists of one kind never follow each other directly
# except as the writer separates them.
_MD_WORD = st.text(st.sampled_from(list("aZé0سوال")), min_size=1, max_size=5)
_MD_INNER = st.text(st.sampled_from(list("aZ سوال~=#{}:\\<>&%[]*_`$|!.-+")), min_size=1, max_size=6)
"""Specials only inside a Str, between words."""
_MD_STR = st.tuples(_MD_WORD, _MD_INNER, _MD_WORD).map(lambda t: Str("".join(t)))
_MD_STYLED = st.recursive(
    st.one_of(_MD_WORD.map(Str), _MD_STR),
    lambda inner: st.one_of(
        inner.map(lambda x: Emph((x,))),
        inner.map(lambda x: Strong((x,))),
    ),
    max_leaves=3,
)


def _md_inlines(draw: st.DrawFn) -> tuple[Inline, ...]:
    parts: list[Inline] = []
    for i in range(draw(st.integers(1, 3))):
        if i:
            sep = draw(st.sampled_from(["space", "break", "math", "code", "image", "link"]))
            if sep == "break":
                parts.append(LineBreak())
            elif sep == "math":
                parts += [Str(" "), Math(draw(_TEX)), Str(" ")]
            elif sep == "code":
                parts += [Str(" "), Code(draw(_WORD.map(str.strip).filter(bool))), Str(" ")]
            elif sep == "image":
                parts += [Str(" "), Image(draw(MEDIA), draw(_MD_WORD)), Str(" ")]
            elif sep == "link":
                url = draw(st.sampled_from(["https://example.org/a?b=1&c=2", "mailto:a@example.org"]))
                parts += [Str(" "), Link(url, (draw(_MD_STYLED),)), Str(" ")]
            else:
                parts.append(Str(" "))
        parts.append(draw(_MD_STYLED))
    return _normal(parts)


@st.composite
def markdown_rich(draw: st.DrawFn) -> Rich:
    blocks: list[Block] = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["para", "para", "math", "code", "bullets", "numbers", "table"]))
        if kind == "para":
            blocks.append(Para(_md_inlines(draw)))
        elif kind == "math":
            blocks.append(Para((Math(draw(_TEX), display=True),)))
        elif kind == "code":
            text = draw(st.text(st.sampled_from(list("ab{}~=#:\\<>&`$ \n")), min_size=1, max_size=20))
            blocks.append(CodeBlock(text.strip("\n") or "x", draw(st.sampled_from([None, "python", "json"]))))
        elif kind in ("bullets", "numbers"):
            items = tuple((Para(_md_inlines(draw)),) for _ in range(draw(st.integers(1, 3))))
            blocks.append(
                BulletList(items) if kind == "bullets" else OrderedList(items, draw(st.integers(1, 12)))
            )
        else:
            width = draw(st.integers(1, 3))

            def cell() -> tuple[Inline, ...]:
                return _normal([Str(" ") if isinstance(x, LineBreak) else x for x in _md_inlines(draw)])

            header = tuple(cell() for _ in range(width))
            rows = tuple(tuple(cell() for _ in range(width)) for _ in range(draw(st.integers(0, 2))))
            aligns = tuple(draw(st.sampled_from([None, "left", "center", "right"])) for _ in range(width))
            blocks.append(Table(header, rows, aligns))
    return Rich(tuple(blocks))


MD_RICH = markdown_rich()


# --------------------------------------------------------------------------- rich banks, assessments
# (QTI 2.1 helper) Banks whose texts are partly Rich, with assessments over them: draws cut from
# a shuffled subset of the bank's questions, so no question can be drawn twice (as resolution in
# lmsexport.assessments guarantees), each draw listed or random, points overridden or not.

T = TypeVar("T")

INLINE_RICH = PARA_INLINES.map(lambda xs: Rich((Para(xs),)))
"""A one-paragraph rich text: what a choice or a matching left side usually is."""


@st.composite
def _richer_question(draw: st.DrawFn, question: Question) -> Question:
    """The question with some of its texts rich: stem, explanation, choices, feedback, lefts."""

    def maybe(text: Text, strategy: st.SearchStrategy[Rich]) -> Text:
        return draw(strategy) if draw(st.booleans()) else text

    stem = maybe(question.stem, RICH)
    explanation = None if question.explanation is None else maybe(question.explanation, RICH)
    body = question.body
    match body:
        case SingleChoice(choices) | MultipleChoice(choices):
            richer = tuple(
                replace(
                    c,
                    text=maybe(c.text, INLINE_RICH | RICH),
                    feedback=None if c.feedback is None else maybe(c.feedback, RICH),
                )
                for c in choices
            )
            body = replace(body, choices=richer)
        case Matching(pairs):
            body = replace(body, pairs=tuple(replace(p, left=maybe(p.left, INLINE_RICH)) for p in pairs))
    return replace(question, stem=stem, explanation=explanation, body=body)


def _cut(draw: st.DrawFn, items: list[T], most: int) -> list[list[T]]:
    """items cut into 1..most non-empty consecutive groups."""
    n = draw(st.integers(1, min(most, len(items))))
    if n == 1:
        return [items]
    cuts = sorted(draw(st.lists(st.integers(1, len(items) - 1), min_size=n - 1, max_size=n - 1, unique=True)))
    return [items[a:b] for a, b in zip([0, *cuts], [*cuts, len(items)], strict=True)]


@st.composite
def assessment_over(draw: st.DrawFn, bank: Bank, ident: str = "exam-0") -> Assessment:
    """A resolved assessment over some of the bank's questions (sections of draws)."""
    every = [Candidate(quiz.header, q) for quiz in bank.quizzes for q in quiz.questions]
    chosen = draw(st.permutations(every))[: draw(st.integers(1, len(every)))]
    draws = []
    for i, group in enumerate(_cut(draw, chosen, 4)):
        points = draw(st.none() | st.sampled_from([1.0, 2.5, 10.0]))
        if draw(st.booleans()):
            pick = draw(st.integers(1, len(group)))
            draws.append(Draw(f"pool-{i}", pool=Pool(), pick=pick, points=points, candidates=tuple(group)))
        else:
            ids = tuple(c.question.id for c in group)
            draws.append(Draw(f"list-{i}", ids=ids, points=points, candidates=tuple(group)))
    sections = tuple(
        Section(title=draw(st.none() | TEXT), shuffle=draw(st.booleans()), draws=tuple(part))
        for part in _cut(draw, draws, 3)
    )
    return Assessment(
        id=ident,
        title=draw(TEXT),
        lang=draw(st.sampled_from(["ur", "en"])),
        sections=sections,
        description=draw(st.none() | TEXT | RICH),
    )


@st.composite
def rich_banks_with_assessments(draw: st.DrawFn) -> Bank:
    """banks() with rich texts mixed in and one or two assessments over it."""
    bank = draw(banks())
    quizzes = tuple(
        replace(
            quiz,
            description=draw(st.none() | TEXT | RICH),
            questions=tuple(draw(_richer_question(q)) for q in quiz.questions),
        )
        for quiz in bank.quizzes
    )
    rich = Bank(quizzes)
    n = draw(st.integers(1, 2))
    return Bank(quizzes, tuple(draw(assessment_over(rich, f"exam-{i}")) for i in range(n)))
