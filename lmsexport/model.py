"""The canonical question-bank model.

It knows no format (see ../docs/architecture.md): readers build it, writers consume it,
and nothing here imports a reader or a writer. Rich text is a small document tree (pandoc's
Block/Inline, cut down to what every output format can carry), never Markdown or HTML source.
Every object is a frozen dataclass, so a model can be compared for equality (the GIFT round
trip does) and hashed. Source locations take no part in equality: a question read back from
GIFT equals the one loaded from YAML.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field, replace


@dataclass(frozen=True, order=True)
class SourceLoc:
    """A position in an input file; line and col are 1-based, as compilers print them."""

    path: str
    """Path as given to the loader (relative when the user gave a relative path)."""
    line: int = 0
    """1-based line; 0 means the whole file."""
    col: int = 0
    """1-based column in characters; 0 means the whole line."""

    def __str__(self) -> str:
        if self.line <= 0:
            return self.path
        if self.col <= 0:
            return f"{self.path}:{self.line}"
        return f"{self.path}:{self.line}:{self.col}"


def _loc() -> SourceLoc | None:
    return field(default=None, compare=False, repr=False)  # type: ignore[return-value]


# --------------------------------------------------------------------------- rich text
#
# A text of the bank is either a plain `str` (the default: shown exactly as written, line
# breaks kept) or a `Rich` document, read from a file with `markup: markdown`. Writers render
# both; readers of formats that carry markup (GIFT's [html], Moodle XML, QTI) give back the
# same tree, so round trips compare trees, never markup source.


@dataclass(frozen=True)
class Media:
    """The bytes of a file a text shows (an image), read and checked by the loader."""

    name: str = field(compare=False)
    """The path as the author wrote it, relative to the source file (for messages). Not part of
    equality: a file is its bytes, and formats that embed it (GIFT, Moodle XML) lose the name."""
    data: bytes = field(repr=False)
    mime: str = "image/png"
    """image/png, image/jpeg, image/gif, image/webp or image/svg+xml, sniffed from the bytes."""
    width: int = 0
    """Intrinsic size in CSS pixels (0 when the file does not say)."""
    height: int = 0

    @property
    def digest(self) -> str:
        """sha256 of the bytes, hex: equal files are one file in every package."""
        import hashlib

        return hashlib.sha256(self.data).hexdigest()

    @property
    def filename(self) -> str:
        """A content-addressed file name, the same in every package: `<sha256[:16]>.<ext>`."""
        return f"{self.digest[:16]}.{MEDIA_EXTENSIONS[self.mime]}"


MEDIA_EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/svg+xml": "svg",
}
"""Every media type a bank may hold -> the file extension packages use."""


@dataclass(frozen=True)
class Str:
    """Text; white space inside is significant only as a single space."""

    text: str


@dataclass(frozen=True)
class Emph:
    children: tuple[Inline, ...]


@dataclass(frozen=True)
class Strong:
    children: tuple[Inline, ...]


@dataclass(frozen=True)
class Code:
    """Inline code, shown verbatim in a monospace font, always left to right."""

    text: str


@dataclass(frozen=True)
class Math:
    """A TeX formula (the LaTeX math subset MathJax and the MathML converter share)."""

    tex: str
    display: bool = False
    """True for a display formula ($$...$$) on a line of its own."""


@dataclass(frozen=True)
class Link:
    url: str
    """http, https or mailto only (the loader refuses every other scheme)."""
    children: tuple[Inline, ...]
    title: str | None = None


@dataclass(frozen=True)
class Image:
    media: Media
    alt: str
    """Required and non-empty: what a screen reader says instead of the picture."""
    title: str | None = None


@dataclass(frozen=True)
class LineBreak:
    """A hard line break inside a paragraph."""


Inline = Str | Emph | Strong | Code | Math | Link | Image | LineBreak


@dataclass(frozen=True)
class Para:
    children: tuple[Inline, ...]


@dataclass(frozen=True)
class CodeBlock:
    """A fenced code block: verbatim, left to right, highlighted by language where a format can."""

    text: str
    lang: str | None = None
    """The fence's info word (python, json, yaml...), or None."""


@dataclass(frozen=True)
class BulletList:
    items: tuple[tuple[Block, ...], ...]


@dataclass(frozen=True)
class OrderedList:
    items: tuple[tuple[Block, ...], ...]
    start: int = 1


@dataclass(frozen=True)
class Table:
    """A GFM table: a header row and body rows of inline cells, one alignment per column."""

    header: tuple[tuple[Inline, ...], ...]
    rows: tuple[tuple[tuple[Inline, ...], ...], ...]
    aligns: tuple[str | None, ...]
    """Per column: "left", "center", "right" or None."""


Block = Para | CodeBlock | BulletList | OrderedList | Table


@dataclass(frozen=True)
class Rich:
    """A text with markup: a sequence of blocks."""

    blocks: tuple[Block, ...]

    @property
    def inline(self) -> tuple[Inline, ...] | None:
        """The inlines of a text that is one paragraph (a choice, a short feedback), else None."""
        if len(self.blocks) == 1 and isinstance(self.blocks[0], Para):
            return self.blocks[0].children
        return None


Text = str | Rich
"""Any text of the bank: plain (the default) or rich (`markup: markdown`)."""


def plain_text(text: Text | None) -> str:
    """The words of a text without markup: for titles, names, search and linting.

    Math keeps its TeX, code its text, an image its alt text; blocks are separated by a line
    break, list items and table cells by one too.
    """
    if text is None:
        return ""
    if isinstance(text, str):
        return text
    out: list[str] = []
    for block in text.blocks:
        _plain_block(block, out)
    return "\n".join(x for x in out if x)


def _plain_block(block: Block, out: list[str]) -> None:
    if isinstance(block, Para):
        out.append(_plain_inlines(block.children))
    elif isinstance(block, CodeBlock):
        out.append(block.text)
    elif isinstance(block, BulletList | OrderedList):
        for item in block.items:
            for b in item:
                _plain_block(b, out)
    elif isinstance(block, Table):
        for row in (block.header, *block.rows):
            out.append(" | ".join(_plain_inlines(cell) for cell in row))


def _plain_inlines(inlines: tuple[Inline, ...]) -> str:
    parts: list[str] = []
    for x in inlines:
        if isinstance(x, Str | Code):
            parts.append(x.text)
        elif isinstance(x, Math):
            parts.append(x.tex)
        elif isinstance(x, Emph | Strong | Link):
            parts.append(_plain_inlines(x.children))
        elif isinstance(x, Image):
            parts.append(x.alt)
        elif isinstance(x, LineBreak):
            parts.append("\n")
    return "".join(parts)


def inlines_of(text: Text | None) -> Iterator[Inline]:
    """Every inline of a text, depth first in reading order (nothing for plain text)."""
    if text is None or isinstance(text, str):
        return
    stack: list[Block | Inline] = list(reversed(text.blocks))
    while stack:
        node = stack.pop()
        if isinstance(node, Para):
            stack.extend(reversed(node.children))
        elif isinstance(node, BulletList | OrderedList):
            stack.extend(b for item in reversed(node.items) for b in reversed(item))
        elif isinstance(node, Table):
            stack.extend(
                x
                for row in reversed((node.header, *node.rows))
                for cell in reversed(row)
                for x in reversed(cell)
            )
        elif isinstance(node, CodeBlock):
            continue
        else:
            yield node
            if isinstance(node, Emph | Strong | Link):
                stack.extend(reversed(node.children))


def media_of(text: Text | None) -> list[Media]:
    """Every image file a text shows, in reading order, each once."""
    found: dict[str, Media] = {}
    for x in inlines_of(text):
        if isinstance(x, Image):
            found.setdefault(x.media.digest, x.media)
    return list(found.values())


def has_math(text: Text | None) -> bool:
    """Whether a text holds a formula (a format may then need a richer schema or a filter)."""
    return any(isinstance(x, Math) for x in inlines_of(text))


# --------------------------------------------------------------------------- questions


class QuestionType(str, enum.Enum):
    """What kind of answer a question expects; the value is the source-format spelling."""

    SINGLE = "single"
    """Choose exactly one choice; exactly one choice is correct."""
    MULTIPLE = "multiple"
    """Choose any number of choices; at least one is correct; partial credit."""
    TRUE_FALSE = "true_false"
    """A statement that is true or false."""
    SHORT_ANSWER = "short_answer"
    """Type a word or phrase; any of several accepted answers is right."""
    NUMERICAL = "numerical"
    """Type a number; right within a tolerance or a range."""
    MATCHING = "matching"
    """Match each left-hand item with one right-hand item."""
    ESSAY = "essay"
    """Free text, graded by a person; never auto-scored."""


class Difficulty(str, enum.Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


@dataclass(frozen=True)
class Choice:
    """One option of a single, multiple or (internally) true/false question."""

    text: Text
    """The choice as the learner sees it."""
    correct: bool = False
    """Whether picking this choice is (part of) the right answer."""
    feedback: Text | None = None
    """Shown when the learner picks this choice."""
    lang: str | None = None
    """BCP 47 tag when this choice is in another language than its question."""
    loc: SourceLoc | None = _loc()


@dataclass(frozen=True)
class Pair:
    """One left -> right pair of a matching question."""

    left: Text
    """The prompt side; may hold markup."""
    right: str
    """The answer side: plain text (LMSs show it in a drop-down list)."""
    loc: SourceLoc | None = _loc()


@dataclass(frozen=True)
class NumericKey:
    """The key of a numerical question: answer +- tolerance, or the closed range [low, high]."""

    answer: float | None = None
    """The expected value; None only when a range alone is given."""
    tolerance: float = 0.0
    """Accepted absolute error around answer (0 = exact). Ignored when low/high are set."""
    low: float | None = None
    """Lower bound of an explicit range (inclusive), or None."""
    high: float | None = None
    """Upper bound of an explicit range (inclusive), or None."""

    @property
    def bounds(self) -> tuple[float, float]:
        """The accepted closed interval, whichever way the key was written."""
        if self.low is not None and self.high is not None:
            return (self.low, self.high)
        assert self.answer is not None
        return (self.answer - self.tolerance, self.answer + self.tolerance)

    def accepts(self, value: float) -> bool:
        lo, hi = self.bounds
        return lo <= value <= hi


@dataclass(frozen=True)
class Question:
    """One question. Only the fields of its type are set; the loader guarantees that."""

    id: str
    """Unique across the whole bank: ASCII letter first, then letters, digits, - _ ."""
    type: QuestionType
    stem: Text
    """The question text."""
    explanation: Text | None = None
    """Why the key is right; shown after answering in every output format."""
    points: float = 1.0
    """Maximum score, > 0."""
    lang: str | None = None
    """BCP 47 tag when the question is in another language than its quiz; see Quiz.lang_of."""
    tags: tuple[str, ...] = ()
    difficulty: Difficulty | None = None
    """When it differs from its quiz's; see Quiz.difficulty_of."""
    choices: tuple[Choice, ...] = ()
    """single, multiple: the options in source order."""
    truth: bool | None = None
    """true_false: whether the stem's statement is true."""
    answers: tuple[str, ...] = ()
    """short_answer: every accepted answer, the preferred one first."""
    case_sensitive: bool = False
    """short_answer: whether letter case must match."""
    numeric: NumericKey | None = None
    """numerical: the key."""
    pairs: tuple[Pair, ...] = ()
    """matching: the right pairs, in source order."""
    distractors: tuple[str, ...] = ()
    """matching: extra right-hand items that match nothing."""
    loc: SourceLoc | None = _loc()

    @property
    def correct_indexes(self) -> tuple[int, ...]:
        """0-based indexes of the correct choices."""
        return tuple(i for i, c in enumerate(self.choices) if c.correct)

    def choice_credit(self) -> tuple[float, ...]:
        """The fraction of `points` each choice earns when picked: the one scoring rule.

        single: 1 for the right choice, 0 otherwise. multiple: each right choice
        +1/(number right), each wrong choice -1/(number wrong), so picking every
        choice scores 0 (Moodle's convention); a total below 0 counts as 0.
        """
        if self.type is not QuestionType.MULTIPLE:
            return tuple(1.0 if c.correct else 0.0 for c in self.choices)
        n_right = sum(c.correct for c in self.choices)
        n_wrong = len(self.choices) - n_right
        return tuple(1.0 / n_right if c.correct else -1.0 / n_wrong for c in self.choices)


@dataclass(frozen=True)
class Quiz:
    """One quiz: one source file, one QTI package, one GIFT file, one HTML page."""

    id: str
    title: str
    lang: str
    """BCP 47 tag of the quiz's text, e.g. "ur"."""
    questions: tuple[Question, ...]
    description: Text | None = None
    difficulty: Difficulty | None = None
    category: str | None = None
    """Question-bank category path "a/b/c", or None."""
    shuffle: bool = True
    """Whether an LMS may shuffle the choices."""
    loc: SourceLoc | None = _loc()

    def lang_of(self, question: Question) -> str:
        """The language a question's text is in."""
        return question.lang or self.lang

    def difficulty_of(self, question: Question) -> Difficulty | None:
        return question.difficulty or self.difficulty

    @property
    def header(self) -> Quiz:
        """This quiz without its questions: what a question's context needs, cheap to pass around."""
        return self if not self.questions else replace(self, questions=())


# --------------------------------------------------------------------------- assessments
#
# An assessment is a recipe over the bank: sections of draws, each draw either questions
# listed by id or `pick` questions at random from a pool. The loader reads the recipe; the
# bank resolves it (lmsexport.assessments), filling each draw's candidates, so writers get
# every question they may need without looking anything up.


@dataclass(frozen=True)
class Pool:
    """Which questions of the bank a random draw picks from: every given condition must hold."""

    tags: tuple[str, ...] = ()
    """The question has all of these tags."""
    any_tags: tuple[str, ...] = ()
    """The question has at least one of these tags."""
    category: str | None = None
    """Its quiz's category is this path or lies below it ("a/b" selects "a/b" and "a/b/c")."""
    quizzes: tuple[str, ...] = ()
    """It belongs to one of these quizzes."""
    types: tuple[QuestionType, ...] = ()
    difficulties: tuple[Difficulty, ...] = ()
    """Its difficulty (its own, else its quiz's) is one of these."""
    langs: tuple[str, ...] = ()
    """Its language (its own, else its quiz's) is one of these, compared case-insensitively."""

    def matches(self, quiz: Quiz, question: Question) -> bool:
        if self.tags and not set(self.tags) <= set(question.tags):
            return False
        if self.any_tags and not set(self.any_tags) & set(question.tags):
            return False
        if self.category is not None:
            own = quiz.category or ""
            if own != self.category and not own.startswith(self.category + "/"):
                return False
        if self.quizzes and quiz.id not in self.quizzes:
            return False
        if self.types and question.type not in self.types:
            return False
        if self.difficulties and quiz.difficulty_of(question) not in self.difficulties:
            return False
        return not self.langs or quiz.lang_of(question).casefold() in {x.casefold() for x in self.langs}


@dataclass(frozen=True)
class Candidate:
    """A question an assessment may show, with the quiz it lives in (its language, shuffle)."""

    quiz: Quiz
    """The home quiz's header (no questions)."""
    question: Question


@dataclass(frozen=True)
class Draw:
    """One entry of a section: the listed questions, or `pick` of a pool's at random."""

    name: str
    """Names the pool in messages, GIFT/Moodle categories and QTI section identifiers."""
    ids: tuple[str, ...] = ()
    """Explicit draws: the question ids, in order (empty for a pool draw)."""
    pool: Pool | None = None
    """Random draws: the selection (None for an explicit draw)."""
    pick: int | None = None
    """Random draws: how many questions each attempt gets."""
    points: float | None = None
    """Points of every question drawn, overriding each question's own."""
    candidates: tuple[Candidate, ...] = ()
    """Filled by resolution: the listed questions in order, or every pool match in bank order."""
    loc: SourceLoc | None = _loc()
    id_locs: tuple[SourceLoc, ...] = field(default=(), compare=False, repr=False)
    """Where each of `ids` is written, for messages."""

    @property
    def is_random(self) -> bool:
        return self.pool is not None

    @property
    def count(self) -> int:
        """How many questions an attempt gets from this draw."""
        return self.pick if self.pick is not None else len(self.candidates)

    def points_of(self, question: Question) -> float:
        return self.points if self.points is not None else question.points


@dataclass(frozen=True)
class Section:
    title: str | None = None
    """Shown to the learner above the section's questions when given."""
    shuffle: bool = False
    """Whether the order of the section's questions is shuffled per attempt (across its draws)."""
    draws: tuple[Draw, ...] = ()
    loc: SourceLoc | None = _loc()


@dataclass(frozen=True)
class Assessment:
    """An exam or quiz assembled from the bank: one source file, one package per format."""

    id: str
    title: str
    lang: str
    sections: tuple[Section, ...]
    description: Text | None = None
    loc: SourceLoc | None = _loc()

    @property
    def draws(self) -> tuple[Draw, ...]:
        return tuple(d for s in self.sections for d in s.draws)

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        """Every question an attempt may show, each once, in section and draw order."""
        return tuple(c for d in self.draws for c in d.candidates)

    @property
    def question_count(self) -> int:
        """How many questions one attempt shows."""
        return sum(d.count for d in self.draws)

    @property
    def total_points(self) -> float | None:
        """What a perfect attempt scores, or None when it depends on which questions are drawn
        (a random draw over questions of different points)."""
        total = 0.0
        for draw in self.draws:
            values = {draw.points_of(c.question) for c in draw.candidates}
            if not draw.is_random:
                total += sum(draw.points_of(c.question) for c in draw.candidates)
            elif len(values) > 1:
                return None
            elif values:
                total += draw.count * values.pop()
        return total


@dataclass(frozen=True)
class Bank:
    """Every quiz and assessment of a run, each sorted by id (so output never depends on file-system
    order). Assessments are resolved: their draws hold their candidates."""

    quizzes: tuple[Quiz, ...]
    assessments: tuple[Assessment, ...] = ()

    @property
    def question_count(self) -> int:
        return sum(len(q.questions) for q in self.quizzes)


RTL_LANGUAGES = frozenset(
    {
        "ar",
        "arc",
        "ckb",
        "dv",
        "fa",
        "ha-Arab",
        "he",
        "khw",
        "ks",
        "ku-Arab",
        "ps",
        "sd",
        "syr",
        "ug",
        "ur",
        "yi",
    }
)
RTL_SCRIPTS = frozenset({"Arab", "Hebr", "Syrc", "Thaa", "Nkoo", "Adlm", "Rohg"})


def is_rtl(lang: str) -> bool:
    """Whether text in this BCP 47 language is written right to left.

    Decided by an explicit script subtag when there is one (ur-Latn is left to right),
    otherwise by the primary language.
    """
    parts = lang.split("-")
    for p in parts[1:]:
        if len(p) == 4 and p.isalpha():
            return p.title() in RTL_SCRIPTS
    return parts[0].lower() in RTL_LANGUAGES


def direction(lang: str) -> str:
    """ "rtl" or "ltr" for a BCP 47 tag."""
    return "rtl" if is_rtl(lang) else "ltr"
