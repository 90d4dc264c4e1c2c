"""Hypothesis strategies for the whole model: any bank the YAML loader could produce.

Texts are what the loader leaves (non-empty, stripped, no XML-illegal characters) and mix
Urdu, English, bidi marks, GIFT and HTML specials and injection payloads. Ids follow the
source format (ASCII, unique in the bank ignoring case); languages follow the loader's
invariant (a question's or choice's lang only when it differs from the enclosing one).

`everything=True` (on bodies, questions, quizzes, banks, rich_banks_with_assessments) also draws
what issue 22 added, as the loader reads it: explicit credits on Moodle's grade list (several or
no full-credit choices on a single question, negative credits, credits that do not add up to 1
on a multiple one), graded short answers with feedback and wildcards, several numerical keys with
feedback and units, other_feedback, true/false feedback, names, combined feedback, hints,
penalties and essay options. Without it, today's subset (right/wrong flags, no such fields).

`structured=True` (on questions, quizzes, banks, rich_banks_with_assessments) also draws issue
23's kinds: cloze questions (a Rich stem of words with Gap(1)..Gap(n) in order, text, number and
choice blanks), orderings and descriptions. Without it, only the kinds before issue 23, so that
existing callers draw what they always drew. `structured_questions(qid)` draws only the new
kinds; `blanks()`, `clozes()`, `orderings()` and `cloze_stem(n)` are the parts.

`parametric=True` (on questions, quizzes, banks, rich_banks_with_assessments) also draws issue
24's kinds: calculated and calculated_choice questions (`calculateds()`, `calculated_choices()`,
`parametric_questions(qid)`), their variants drawn by variants.draw with the question id's seed
or given explicitly, as the loader reads them; their texts show a {name} of each name and keep
every other brace literal (`{{`).
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import TypeVar, assert_never

from hypothesis import assume
from hypothesis import strategies as st

from lmsexport import formula as fm
from lmsexport import variants as V
from lmsexport.errors import SourceError
from lmsexport.model import (
    Answer,
    Assessment,
    Bank,
    Blank,
    Block,
    Body,
    BulletList,
    CalcChoice,
    Calculated,
    CalculatedChoice,
    Candidate,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Code,
    CodeBlock,
    Constraint,
    Derived,
    Description,
    Difficulty,
    Draw,
    Emph,
    Essay,
    Formula,
    Gap,
    Hint,
    Image,
    Inline,
    Layout,
    LineBreak,
    Link,
    ListVariable,
    Matching,
    Math,
    Media,
    MultipleChoice,
    NumberBlank,
    Numbering,
    Numerical,
    NumericKey,
    OrderedList,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    OutcomeFeedback,
    Pair,
    Para,
    Parameters,
    Pool,
    Question,
    QuestionType,
    Quiz,
    RangeVariable,
    ResponseFormat,
    Rich,
    Section,
    ShortAnswer,
    SingleChoice,
    Str,
    Strong,
    Table,
    Text,
    TextBlank,
    Tolerance,
    ToleranceKind,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
    Variable,
    Variant,
    default_multiple_credits,
    exact_credit,
    is_full,
)
from lmsexport.moodle import MOODLE_GRADES, name_from_stem
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


# --------------------------------------------------------------------------- credits (issue 22)

CREDITS = st.sampled_from(sorted({exact_credit(float(g)) for g in MOODLE_GRADES}))
"""Any credit the loader accepts: Moodle's grade list, as the exact fractions it stands for."""
EARNED = CREDITS.filter(lambda x: x >= 0)
"""A credit of a short answer or numerical answer (Moodle's lists for them have no negatives)."""
FULL_OR_EARNED = st.one_of(st.just(1.0), EARNED)


@st.composite
def credited_choices(draw: st.DrawFn, multiple: bool) -> tuple[Choice, ...]:
    """2 to 5 choices with explicit credits: at least one earns something; a single question may
    have several full-credit choices or none (the loader warns), a multiple one credits that do
    not add up to 1 (it warns too)."""
    texts = draw(st.lists(TEXT, min_size=2, max_size=5, unique=True))
    credits = [draw(CREDITS) for _ in texts]
    if max(credits) <= 0:
        credits[draw(st.integers(0, len(texts) - 1))] = draw(st.just(1.0) | CREDITS.filter(lambda x: x > 0))
    return tuple(
        Choice(t, credit=x, feedback=draw(st.none() | TEXT), lang=draw(LANG))
        for t, x in zip(texts, credits, strict=True)
    )


WILDCARD_ANSWER = ANSWER.filter(lambda s: "*" in s and s != "*")
"""A wildcard answer's text: at least one `*` (else the loader warns and drops the flag)."""


@st.composite
def graded_answers(draw: st.DrawFn) -> tuple[Answer, ...]:
    """1 to 4 answers, each its own credit (0 to 1), feedback and wildcard; at least one full."""
    texts = draw(st.lists(ANSWER | WILDCARD_ANSWER, min_size=1, max_size=4, unique=True))
    answers = []
    for text in texts:
        wildcard = "*" in text and text != "*" and draw(st.booleans())
        answers.append(Answer(text, draw(FULL_OR_EARNED), draw(st.none() | TEXT), wildcard))
    if not any(is_full(a.credit) for a in answers):
        i = draw(st.integers(0, len(answers) - 1))
        answers[i] = replace(answers[i], credit=1.0)
    return tuple(answers)


UNIT_NAMES = st.lists(
    st.sampled_from(["GB", "MB", "GiB", "%", "$", "ms", "s", "بائٹس", "TFLOP/s"]),
    min_size=1,
    max_size=3,
    unique=True,
)
MULTIPLIERS = st.sampled_from([1.0, 1000.0, 0.001, 1024.0, 0.5, 2.5, 0.9313225746])


@st.composite
def numeric_key(draw: st.DrawFn, credit: bool = False) -> NumericKey:
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
    if credit:
        key = replace(key, credit=draw(FULL_OR_EARNED), feedback=draw(st.none() | TEXT))
    return key


@st.composite
def numericals(draw: st.DrawFn) -> Numerical:
    """1 to 3 keys (the best may be below full credit: the loader warns), units or none."""
    keys = tuple(draw(numeric_key(True)) for _ in range(draw(st.integers(1, 3))))
    other = draw(st.none() | TEXT)
    if not draw(st.booleans()):
        return Numerical(keys=keys, other_feedback=other)
    names = draw(UNIT_NAMES)
    units = tuple(Unit(n, 1.0 if i == 0 else draw(MULTIPLIERS)) for i, n in enumerate(names))
    return Numerical(
        keys=keys,
        units=units,
        unit_grading=draw(st.sampled_from(list(UnitGrading))),
        unit_penalty=draw(st.sampled_from([0.1, 0.0, 0.2, 0.5, 1.0])),
        unit_input=draw(st.sampled_from(list(UnitInput))),
        units_left=draw(st.booleans()),
        other_feedback=other,
    )


@st.composite
def essays(draw: st.DrawFn) -> Essay:
    low = draw(st.none() | st.integers(1, 500))
    high = draw(st.none() | st.integers(low or 1, 1000))
    response_format = draw(st.sampled_from(list(ResponseFormat)))
    # As Moodle's form wants: files only needs one allowed and one required; at most as many
    # required as allowed; file types and a size limit only with files allowed.
    files_only = response_format is ResponseFormat.NONE
    attachments = draw(st.sampled_from([1, 2, 3, -1] if files_only else [0, 0, 1, 2, 3, -1]))
    most = 3 if attachments == -1 else attachments
    required = draw(st.integers(1 if files_only else 0, most)) if attachments else 0
    types = (
        draw(
            st.lists(st.sampled_from([".pdf", ".docx", "document", "image", "application/pdf"]), unique=True)
        )
        if attachments
        else []
    )
    max_bytes = draw(st.sampled_from([0, 1024, 1048576, 52428800])) if attachments else 0
    return Essay(
        response_format=response_format,
        required=draw(st.booleans()),
        lines=draw(st.sampled_from([15, 5, 10, 20, 40, 3])),
        min_words=low,
        max_words=high,
        template=draw(st.none() | TEXT),
        grader_info=draw(st.none() | TEXT),
        attachments=attachments,
        attachments_required=required,
        file_types=tuple(types),
        max_bytes=max_bytes,
    )


# --------------------------------------------------------------------------- cloze, ordering (issue 23)

STRUCTURED_TYPES = (QuestionType.CLOZE, QuestionType.ORDERING, QuestionType.DESCRIPTION)
"""The kinds issue 23 added (drawn only with structured=True)."""
PARAMETRIC_TYPES = tuple(t for t in QuestionType if t.value in ("calculated", "calculated_choice"))
"""The kinds issue 24 added (drawn only with parametric=True)."""
CLASSIC_TYPES = tuple(t for t in QuestionType if t not in STRUCTURED_TYPES and t not in PARAMETRIC_TYPES)
"""The kinds before issue 23: what every strategy draws by default."""

BLANK_ANSWER = ANSWER.filter(lambda s: not any(c in s for c in "\n\t\x85\u2028"))
"""A text blank's answer: one line (it is typed into an inline input)."""
_CLOZE_WORD = st.one_of(
    st.text(st.sampled_from(list('aZé0سوالہے۔中{}~=#:%/\\"<>&*[]|')), min_size=1, max_size=6),
    st.sampled_from(["[[", "[[1]]", "]]", "{1:SHORTANSWER:=x}", "\\[[", "ZeRO-3", "1F1B", "<b>"]),
)
"""A word of a cloze stem's text: Moodle's cloze, GIFT, HTML and Markdown specials, and a
literal `[[` or `[[1]]` (text, not a marker: every writer must escape it)."""


@st.composite
def cloze_stem(draw: st.DrawFn, n: int, rich: bool = False) -> Rich:
    """A cloze stem with Gap(1)..Gap(n) once each, in order, as the loader reads it: one or two
    paragraphs of words (single spaces, a LineBreak sometimes between words) and gaps; with
    ``rich``, emphasis, code and math between the words too."""
    paras: list[list[Inline]] = [[]]
    pieces = draw(st.integers(n + 1, n + 4))
    gap_at = sorted(draw(st.lists(st.integers(0, pieces - 1), min_size=n, max_size=n, unique=True)))
    gap = 0
    for i in range(pieces):
        xs = paras[-1]
        if xs and draw(st.integers(0, 5)) == 0:
            if draw(st.booleans()) and isinstance(xs[-1], Str):
                xs.append(LineBreak())
            else:
                paras.append([])
                xs = paras[-1]
        elif xs:
            xs.append(Str(" "))
        if gap < n and gap_at[gap] == i:
            gap += 1
            xs.append(Gap(gap))
            continue
        word = draw(_CLOZE_WORD)
        if rich and draw(st.integers(0, 3)) == 0:
            # Emphasis edged by letters: Markdown's flanking rules depend on the punctuation there.
            styled = Str(draw(_MD_WORD))
            # Never a formula first in a paragraph: dollarmath reads `$x$ 0` there as text.
            kinds = [Emph((styled,)), Strong((styled,)), Code(word)] + ([Math(draw(_TEX))] if xs else [])
            xs.append(draw(st.sampled_from(kinds)))
        else:
            xs.append(Str(word))
    out = []
    for xs in paras:
        # A LineBreak never ends a paragraph (readers trim it), and the first one had a word.
        while (
            xs
            and isinstance(xs[-1], LineBreak | Str)
            and (isinstance(xs[-1], LineBreak) or not xs[-1].text.strip())
        ):
            xs.pop()
        if xs:
            out.append(Para(_normal(xs)))
    return Rich(tuple(out))


WEIGHTS = st.sampled_from([1, 1, 1, 2, 3])


@st.composite
def blanks(draw: st.DrawFn, everything: bool = False) -> Blank:
    """One blank as the loader reads it: a full-credit answer, key or choice always (the loader
    refuses a blank without); with ``everything``, graded answers, several keys, explicit and
    negative credits, feedback, weights, displays, multiple picks and shuffling."""
    kind = draw(st.sampled_from(["text", "number", "choice"]))
    weight = draw(WEIGHTS) if everything else 1
    other = draw(st.none() | TEXT) if everything else None
    if kind == "text":
        if everything:
            answers = tuple(
                a for a in draw(graded_answers()) if not any(c in a.text for c in "\n\t\x85\u2028")
            )
            if not any(is_full(a.credit) for a in answers):
                answers = (Answer(draw(BLANK_ANSWER)), *answers)
                answers = tuple({a.text: a for a in reversed(answers)}.values())[::-1]
        else:
            answers = tuple(
                Answer(a) for a in draw(st.lists(BLANK_ANSWER, min_size=1, max_size=3, unique=True))
            )
        return TextBlank(answers, draw(st.booleans()), other, weight)
    if kind == "number":
        if everything:
            keys = [draw(numeric_key(True)) for _ in range(draw(st.integers(1, 3)))]
            if not any(is_full(k.credit) for k in keys):
                keys[draw(st.integers(0, len(keys) - 1))] = replace(keys[0], credit=1.0)
            return NumberBlank(tuple(keys), other, weight)
        return NumberBlank((draw(numeric_key()),))
    multiple = everything and draw(st.booleans())
    if everything and draw(st.booleans()):
        cs = list(draw(credited_choices(multiple)))
        if not multiple and not any(c.full for c in cs):
            i = draw(st.integers(0, len(cs) - 1))
            cs[i] = replace(cs[i], credit=1.0)
    else:
        cs = list(draw(choices(multiple)))
    display = (
        draw(st.sampled_from([ChoiceDisplay.VERTICAL, ChoiceDisplay.HORIZONTAL]))
        if multiple
        else draw(st.sampled_from(list(ChoiceDisplay)))
        if everything
        else ChoiceDisplay.DROPDOWN
    )
    shuffle = everything and draw(st.booleans())
    return ChoiceBlank(tuple(cs), display, multiple, shuffle, weight)


@st.composite
def clozes(draw: st.DrawFn, everything: bool = False) -> Cloze:
    """1 to 4 blanks (the stem, cloze_stem(len(blanks)), is the question's)."""
    return Cloze(tuple(draw(blanks(everything)) for _ in range(draw(st.integers(1, 4)))))


@st.composite
def orderings(draw: st.DrawFn, everything: bool = False) -> Ordering:
    """2 to 6 distinct items; with ``everything``, any grading, subset, layout and numbering."""
    items = tuple(draw(st.lists(TEXT, min_size=2, max_size=6, unique=True)))
    if not everything:
        return Ordering(items, draw(st.sampled_from(list(OrderingGrading))))
    select = OrderingSelect.ALL
    count = 0
    if len(items) >= 3 and draw(st.booleans()):
        select = draw(st.sampled_from([OrderingSelect.RANDOM, OrderingSelect.CONTIGUOUS]))
        count = draw(st.integers(2, len(items) - 1))
    return Ordering(
        items,
        draw(st.sampled_from(list(OrderingGrading))),
        select,
        count,
        draw(st.sampled_from(list(Layout))),
        draw(st.sampled_from(list(Numbering))),
        draw(st.booleans()),
    )


# --------------------------------------------------------------------------- parametric (issue 24)

_VAR_NAMES = ("N", "G", "p", "m", "x_1", "Gpu")
_LIST_VALUES = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 0.5, 1.25, 3.0)
_ANSWERS = (
    "{a} + {b}",
    "{a} * {b} + 1",
    "16*{a}/{b}",
    "({a} + 1) / ({b} + 1)",
    "sqrt({a}) + {b}",
    "2^{a} / 8",
)
"""Answer templates over two (possibly equal) names, every value > 0.01 for values >= 0.05."""


@st.composite
def parameters(draw: st.DrawFn) -> Parameters:
    """Variables as the loader reads them: whole ranges, decimal ranges with a step, lists (with
    or without decimals), maybe a derived value and a constraint every variant meets; the
    count a few variants (None, the default 20, sometimes)."""
    names = draw(st.lists(st.sampled_from(_VAR_NAMES), min_size=1, max_size=3, unique=True))
    variables: list[Variable] = []
    for n in names:
        kind = draw(st.sampled_from(["int", "dec", "list"]))
        if kind == "int":
            low = draw(st.integers(1, 50))
            variables.append(RangeVariable(n, float(low), float(low + draw(st.integers(0, 30))), 1.0, 0))
        elif kind == "dec":
            d = draw(st.integers(1, 2))
            step = Decimal(draw(st.sampled_from([1, 2, 5]))).scaleb(-d)
            low = Decimal(draw(st.integers(1, 40))).scaleb(-d)
            high = low + step * draw(st.integers(0, 12))
            variables.append(RangeVariable(n, float(low), float(high), float(step), d))
        else:
            values = draw(st.lists(st.sampled_from(_LIST_VALUES), min_size=1, max_size=5, unique=True))
            variables.append(ListVariable(n, tuple(values), draw(st.sampled_from([None, 2]))))
    derived: tuple[Derived, ...] = ()
    if draw(st.booleans()):
        derived = (Derived("total", Formula(f"2*{names[0]} + 1"), draw(st.sampled_from([None, 0, 2]))),)
    constraints: tuple[Constraint, ...] = ()
    if draw(st.booleans()):
        constraints = (Constraint(Formula(f"{names[-1]} > 0 and {names[0]} < 1000")),)
    count = draw(st.sampled_from([1, 2, 3, 5, 1, 2, None]))
    return Parameters(tuple(variables), derived, constraints, count)


def _explicit(
    qid: str, params: Parameters, variants: tuple[Variant, ...], **kwargs: object
) -> tuple[Variant, ...]:
    """The drawn variants given back as an explicit list, last first (an imported dataset)."""
    names = [v.name for v in params.variables]
    given = [V.Given({n: x for n, x in v.values if n in names}) for v in reversed(variants)]
    return V.draw(qid, replace(params, count=None), given=given, **kwargs).variants  # type: ignore[arg-type]


@st.composite
def calculateds(draw: st.DrawFn, qid: str = "q") -> Calculated:
    """A calculated question as the loader reads it: its variants drawn with its id's seed (or
    given explicitly), the key shown with its decimals inside the tolerance in every variant."""
    params = draw(parameters())
    names = [v.name for v in params.variables] + [d.name for d in params.derived]
    a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    answer = Formula(draw(st.sampled_from(_ANSWERS)).format(a=a, b=b))
    decimals = draw(st.integers(0, 4))
    if draw(st.booleans()):
        tolerance = Tolerance(float(Decimal(draw(st.sampled_from([1, 2, 5]))).scaleb(-decimals)))
    else:
        tolerance = Tolerance(draw(st.sampled_from([0.01, 0.05, 0.125])), ToleranceKind.RELATIVE)
        decimals = 4
    kwargs = {"answer": answer, "tolerance": tolerance, "decimals": decimals}
    try:
        variants = V.draw(qid, params, **kwargs).variants  # type: ignore[arg-type]
        if draw(st.integers(0, 2)) == 0:
            params = replace(params, count=None)
            variants = _explicit(qid, params, variants, **kwargs)
    except SourceError:
        assume(False)
        raise
    assume(
        all(V.accepts(v.answer, tolerance, fm.round_value(v.answer, decimals)) for v in variants if v.answer)
    )
    units = draw(st.sampled_from([(), (Unit("GB"),), (Unit("GB"), Unit("MB", 1000.0))]))
    return Calculated(params, answer, tolerance, decimals, units, variants)


def _no_braces(text: Text) -> Text:
    """A text whose braces are literal: each doubled (`{{`), outside TeX and code."""
    if isinstance(text, str):
        return text.replace("{", "{{").replace("}", "}}")

    def inl(xs: tuple[Inline, ...]) -> tuple[Inline, ...]:
        out: list[Inline] = []
        for x in xs:
            match x:
                case Str(t):
                    out.append(Str(t.replace("{", "{{").replace("}", "}}")))
                case Emph(c):
                    out.append(Emph(inl(c)))
                case Strong(c):
                    out.append(Strong(inl(c)))
                case Link(url=u, children=c, title=t):
                    out.append(Link(u, inl(c), t))
                case _:
                    out.append(x)
        return tuple(out)

    def blk(b: Block) -> Block:
        match b:
            case Para(c):
                return Para(inl(c))
            case BulletList(items):
                return BulletList(tuple(tuple(blk(x) for x in item) for item in items))
            case OrderedList(items, start):
                return OrderedList(tuple(tuple(blk(x) for x in item) for item in items), start)
            case Table(header, rows, aligns):
                return Table(
                    tuple(inl(c) for c in header), tuple(tuple(inl(c) for c in r) for r in rows), aligns
                )
        return b

    return Rich(tuple(blk(b) for b in text.blocks))


def placeholder_safe(text: Text | None, names: dict[str, str]) -> Text | None:
    """The text unchanged when its braces are placeholders of `names` or escapes, else with every
    brace made literal: what a parametric question's texts must be for the loader (idempotent)."""
    if text is None or not V.text_problems(text, names):
        return text
    return _no_braces(text)


def parametric_texts(question: Question) -> Question:
    """A parametric question's texts made valid for its names (see placeholder_safe)."""
    body = question.body
    if not isinstance(body, Calculated | CalculatedChoice):
        return question
    names = {
        n: "0" for n in [*(v.name for v in body.params.variables), *(d.name for d in body.params.derived)]
    }

    def fix(t: Text | None) -> Text | None:
        return placeholder_safe(t, names)

    if isinstance(body, CalculatedChoice):
        body = replace(body, choices=tuple(replace(c, feedback=fix(c.feedback)) for c in body.choices))
    fb = question.feedback
    stem = fix(question.stem)
    assert stem is not None
    return replace(
        question,
        stem=stem,
        body=body,
        explanation=fix(question.explanation),
        feedback=replace(fb, correct=fix(fb.correct), partial=fix(fb.partial), incorrect=fix(fb.incorrect)),
        hints=tuple(replace(h, text=fix(h.text) or h.text) for h in question.hints),
    )


@st.composite
def calculated_choices(draw: st.DrawFn, qid: str = "q") -> CalculatedChoice:
    """A calculated_choice as the loader reads it: the key a formula, the distractors the key
    shifted (never equal to it, nor to each other, in any variant), single or multiple."""
    params = draw(parameters())
    names = [v.name for v in params.variables] + [d.name for d in params.derived]
    a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    key = draw(st.sampled_from(_ANSWERS)).format(a=a, b=b)
    shifts = draw(st.lists(st.sampled_from([1, 2, 3, 5]), min_size=1, max_size=3, unique=True))
    formulas = [key, *(f"{key} + {k}" for k in shifts)]
    order = draw(st.permutations(range(len(formulas))))
    formulas = [formulas[i] for i in order]
    multiple = draw(st.booleans())
    if multiple:
        flags = [i == order.index(0) or draw(st.booleans()) for i in range(len(formulas))]
        if all(flags):
            flags[order.index(0) - 1 if order.index(0) else 1] = False
        credits = default_multiple_credits(flags)
    else:
        credits = tuple(1.0 if i == order.index(0) else 0.0 for i in range(len(formulas)))
    feedback = [draw(st.none() | TEXT) for _ in formulas]
    choices = tuple(
        CalcChoice(Formula(f), c, fb) for f, c, fb in zip(formulas, credits, feedback, strict=True)
    )
    decimals = draw(st.integers(0, 3))
    tolerance = draw(st.sampled_from([Tolerance(), Tolerance(0.1)]))
    kwargs = {
        "choices": [c.formula for c in choices],
        "correct": [i for i, c in enumerate(choices) if c.earns],
        "tolerance": tolerance,
        "decimals": decimals,
    }
    try:
        variants = V.draw(qid, params, **kwargs).variants  # type: ignore[arg-type]
        if draw(st.integers(0, 2)) == 0:
            params = replace(params, count=None)
            variants = _explicit(qid, params, variants, **kwargs)
    except SourceError:
        assume(False)
        raise
    for v in variants:
        shown = [fm.format_value(x, decimals) for x in v.choices]
        assume(len(set(shown)) == len(shown))
    return CalculatedChoice(params, choices, multiple, decimals, tolerance, variants)


@st.composite
def bodies(draw: st.DrawFn, qtype: QuestionType, everything: bool = False, qid: str = "q") -> Body:
    """A body of the given kind, as the loader reads it from today's source format (with
    ``everything``, from the source format with issue 22's keys)."""
    match qtype:
        case QuestionType.SINGLE:
            if everything and draw(st.booleans()):
                return SingleChoice(draw(credited_choices(False)))
            return SingleChoice(draw(choices(False)))
        case QuestionType.MULTIPLE:
            if everything and draw(st.booleans()):
                return MultipleChoice(draw(credited_choices(True)))
            return MultipleChoice(draw(choices(True)))
        case QuestionType.TRUE_FALSE:
            if everything:
                return TrueFalse(draw(st.booleans()), draw(st.none() | TEXT), draw(st.none() | TEXT))
            return TrueFalse(draw(st.booleans()))
        case QuestionType.SHORT_ANSWER:
            if everything:
                return ShortAnswer(draw(graded_answers()), draw(st.booleans()), draw(st.none() | TEXT))
            answers = tuple(Answer(a) for a in draw(st.lists(ANSWER, min_size=1, max_size=3, unique=True)))
            return ShortAnswer(answers, case_sensitive=draw(st.booleans()))
        case QuestionType.NUMERICAL:
            if everything:
                return draw(numericals())
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
            return draw(essays()) if everything else Essay()
        case QuestionType.CLOZE:
            return draw(clozes(everything))
        case QuestionType.ORDERING:
            return draw(orderings(everything))
        case QuestionType.DESCRIPTION:
            return Description()
        case QuestionType.CALCULATED:
            return draw(calculateds(qid))
        case QuestionType.CALCULATED_CHOICE:
            return draw(calculated_choices(qid))
        case _:
            assert_never(qtype)


NAME = TEXT.map(lambda s: " ".join(s.split())).filter(lambda s: bool(s) and len(s) <= 255)
"""A question name: one line (the loader refuses a line break in a name)."""
OUTCOME_FEEDBACK = st.builds(
    OutcomeFeedback, st.none() | TEXT, st.none() | TEXT, st.none() | TEXT, st.booleans()
)
HINTS = st.lists(st.builds(Hint, TEXT, st.booleans(), st.booleans()), max_size=3).map(tuple)
PENALTY = st.sampled_from([None, 0.0, 0.1, 0.25, 0.5, 1.0])
"""A penalty; never Moodle's default 1/3, which the loader (like every reader) gives back as None."""


@st.composite
def questions(
    draw: st.DrawFn,
    qid: str,
    qtype: QuestionType | None = None,
    everything: bool = False,
    structured: bool = False,
    parametric: bool = False,
) -> Question:
    """A question of ``qtype``, else of any kind (issue 23's too only with ``structured``, issue
    24's only with ``parametric``)."""
    kinds = list(CLASSIC_TYPES) + (list(STRUCTURED_TYPES) if structured else [])
    kinds += list(PARAMETRIC_TYPES) if parametric else []
    qtype = qtype or draw(st.sampled_from(kinds))
    body = draw(bodies(qtype, everything, qid))
    stem: Text = draw(cloze_stem(len(body.blanks))) if isinstance(body, Cloze) else draw(TEXT)
    description = isinstance(body, Description)
    question = Question(
        id=qid,
        stem=stem,
        body=body,
        explanation=draw(st.none() | TEXT),
        points=0.0 if description else draw(st.sampled_from([1.0, 2.0, 0.5, 3.0])),
        lang=draw(LANG),
        tags=draw(TAGS),
    )
    if isinstance(body, Calculated | CalculatedChoice):
        # The stem shows the numbers: a placeholder of each name, the rest of its braces literal.
        names = [v.name for v in body.params.variables] + [d.name for d in body.params.derived]
        stem = question.stem
        assert isinstance(stem, str)
        shown = " ".join(f"{n}={{{n}}}" for n in names)
        question = replace(question, stem=f"{_no_braces(stem)} {shown}")
    if not everything:
        return parametric_texts(question)
    if not description:
        question = replace(
            question,
            feedback=draw(OUTCOME_FEEDBACK),
            hints=draw(HINTS),
            penalty=draw(PENALTY),
        )
    # A name equal to the one writers derive from the stem is no name (loader and readers
    # give back None for it).
    name = draw(st.none() | NAME)
    if name is not None and name != name_from_stem(question):
        question = replace(question, name=name)
    return parametric_texts(question)


def parametric_questions(qid: str, everything: bool = False) -> st.SearchStrategy[Question]:
    """A question of one of issue 24's kinds only: calculated or calculated_choice."""
    return st.sampled_from(PARAMETRIC_TYPES).flatmap(
        lambda t: questions(qid, t, everything=everything, parametric=True)
    )


def structured_questions(qid: str, everything: bool = False) -> st.SearchStrategy[Question]:
    """A question of one of issue 23's kinds only: a cloze, an ordering or a description."""
    return st.sampled_from(STRUCTURED_TYPES).flatmap(
        lambda t: questions(qid, t, everything=everything, structured=True)
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
            case Cloze(blanks_):
                q = replace(q, body=Cloze(tuple(_bare_blank(b, lang) for b in blanks_)))
        out.append(q)
    return replace(quiz, questions=tuple(out))


def _bare_blank(blank: Blank, lang: str) -> Blank:
    if isinstance(blank, ChoiceBlank):
        bare = tuple(replace(c, lang=c.lang if c.lang != lang else None) for c in blank.choices)
        return replace(blank, choices=bare)
    return blank


IDS = st.text("abcxyz0129-._", max_size=8).map(lambda s: "q" + s)


@st.composite
def quizzes(
    draw: st.DrawFn,
    quiz_id: str = "quiz-1",
    qids: list[str] | None = None,
    everything: bool = False,
    structured: bool = False,
    parametric: bool = False,
) -> Quiz:
    if qids is None:
        qids = draw(st.lists(IDS, min_size=1, max_size=4, unique_by=str.casefold))
    return canonical_langs(
        Quiz(
            id=quiz_id,
            title=draw(TEXT),
            lang=draw(st.sampled_from(["ur", "en"])),
            questions=tuple(
                draw(questions(i, everything=everything, structured=structured, parametric=parametric))
                for i in qids
            ),
            description=draw(st.none() | TEXT),
            difficulty=draw(st.none() | st.sampled_from(list(Difficulty))),
            category=draw(st.none() | st.sampled_from(["a/b", "llm-training/zero", "کورس/حصہ"])),
            shuffle=draw(st.booleans()),
        )
    )


@st.composite
def banks(
    draw: st.DrawFn, everything: bool = False, structured: bool = False, parametric: bool = False
) -> Bank:
    """One to three quizzes; question ids unique across the bank, also ignoring case."""
    n = draw(st.integers(1, 3))
    qids = draw(st.lists(IDS, min_size=n, max_size=n + 6, unique_by=str.casefold))
    cuts = (
        sorted(draw(st.lists(st.integers(1, len(qids) - 1), max_size=n - 1, unique=True)))
        if len(qids) > 1
        else []
    )
    groups = [qids[a:b] for a, b in zip([0, *cuts], [*cuts, len(qids)], strict=True)]
    return Bank(
        tuple(draw(quizzes(f"quiz-{i}", g, everything, structured, parametric)) for i, g in enumerate(groups))
    )


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

    def opt(text: Text | None) -> Text | None:
        return None if text is None else maybe(text, RICH)

    stem = maybe(question.stem, RICH)
    explanation = opt(question.explanation)
    body = question.body
    match body:
        case SingleChoice(choices) | MultipleChoice(choices):
            richer = tuple(
                replace(c, text=maybe(c.text, INLINE_RICH | RICH), feedback=opt(c.feedback)) for c in choices
            )
            body = replace(body, choices=richer)
        case Matching(pairs):
            body = replace(body, pairs=tuple(replace(p, left=maybe(p.left, INLINE_RICH)) for p in pairs))
        case TrueFalse(truth, feedback_true, feedback_false):
            body = TrueFalse(truth, opt(feedback_true), opt(feedback_false))
        case ShortAnswer(answers, case_sensitive, other_feedback):
            answers = tuple(replace(a, feedback=opt(a.feedback)) for a in answers)
            body = ShortAnswer(answers, case_sensitive, opt(other_feedback))
        case Numerical(keys):
            keys = tuple(replace(k, feedback=opt(k.feedback)) for k in keys)
            body = replace(body, keys=keys, other_feedback=opt(body.other_feedback))
        case Essay():
            body = replace(body, template=opt(body.template), grader_info=opt(body.grader_info))
        case Cloze(blanks_):
            stem = draw(cloze_stem(len(blanks_), rich=True)) if draw(st.booleans()) else question.stem
            body = Cloze(tuple(_richer_blank(draw, b, opt, maybe) for b in blanks_))
        case Ordering(items):
            richer_items = tuple(maybe(t, INLINE_RICH) for t in items)
            if len(set(richer_items)) == len(richer_items):
                body = replace(body, items=richer_items)
        case Description() | Calculated() | CalculatedChoice():
            pass
    feedback = question.feedback
    feedback = replace(
        feedback,
        correct=opt(feedback.correct),
        partial=opt(feedback.partial),
        incorrect=opt(feedback.incorrect),
    )
    hints = tuple(replace(h, text=maybe(h.text, RICH)) for h in question.hints)
    richer = replace(question, stem=stem, explanation=explanation, body=body, feedback=feedback, hints=hints)
    return parametric_texts(richer)


def _richer_blank(draw: st.DrawFn, blank: Blank, opt, maybe) -> Blank:  # type: ignore[no-untyped-def]
    match blank:
        case ChoiceBlank(choices_):
            richer = tuple(
                replace(c, text=maybe(c.text, INLINE_RICH), feedback=opt(c.feedback)) for c in choices_
            )
            if len({c.text for c in richer}) == len(richer):
                return replace(blank, choices=richer)
            return blank
        case TextBlank(answers, other_feedback=other):
            return replace(
                blank,
                answers=tuple(replace(a, feedback=opt(a.feedback)) for a in answers),
                other_feedback=opt(other),
            )
        case NumberBlank(keys, other_feedback=other):
            return replace(
                blank,
                keys=tuple(replace(k, feedback=opt(k.feedback)) for k in keys),
                other_feedback=opt(other),
            )
    raise AssertionError(blank)


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
def rich_banks_with_assessments(
    draw: st.DrawFn, everything: bool = False, structured: bool = False, parametric: bool = False
) -> Bank:
    """banks() with rich texts mixed in and one or two assessments over it."""
    bank = draw(banks(everything, structured, parametric))
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
