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
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeAlias, assert_never

from .records import Maker


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
        return loc_text(self.path, self.line, self.col)


def loc_text(path: str, line: int = 0, col: int = 0) -> str:
    """A position as compilers print it: ``path``, ``path:line`` or ``path:line:col``."""
    if line <= 0:
        return path
    if col <= 0:
        return f"{path}:{line}"
    return f"{path}:{line}:{col}"


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


@dataclass(frozen=True)
class Gap:
    """Where blank `n` (1-based) of a cloze question sits in its stem: the learner types or
    picks there. Only a Cloze question's stem holds gaps, each of its blanks exactly once; a
    writer renders one through its Flavour's `gap` (an input, `{1:SHORTANSWER:...}`, `[blank1]`)."""

    n: int


Inline = Str | Emph | Strong | Code | Math | Link | Image | LineBreak | Gap


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
        elif isinstance(x, Gap):
            parts.append(f"[{x.n}]")
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


InlineMap: TypeAlias = Callable[[Inline], Inline | tuple[Inline, ...] | None]
"""What `map_inlines` applies to a leaf inline: None keeps it, an inline replaces it, a tuple of
inlines is spliced in its place."""


def map_inlines(text: Rich, f: InlineMap) -> Rich:
    """The text with `f` applied to every leaf inline, the tree rebuilt around the results.

    `f` sees each inline that holds no inlines (Str, Code, Math, Image, LineBreak, Gap), once,
    in reading order (paragraphs, list items, table header then rows, cell by cell; inside
    Emph, Strong and Link), so a function with state (numbering gaps as it goes) may rely on
    it. It returns None to keep the leaf, an inline to put in its place, or a tuple of inlines
    to splice there (several for one: a Str split around a placeholder; `()` drops it). Its
    results are not mapped again. Emph, Strong and Link are rebuilt around their mapped
    children (url and title kept), every block kind around its mapped inlines (list start and
    table alignments kept); a CodeBlock, verbatim, holds no inlines and is kept as it is.
    """
    return Rich(tuple([_map_block(b, f) for b in text.blocks]))


def _map_block(b: Block, f: InlineMap) -> Block:
    match b:
        case Para(children=c):
            return Para(_map_run(c, f))
        case BulletList(items=items):
            return BulletList(tuple([tuple([_map_block(x, f) for x in item]) for item in items]))
        case OrderedList(items=items, start=start):
            return OrderedList(tuple([tuple([_map_block(x, f) for x in item]) for item in items]), start)
        case Table(header=h, rows=rows, aligns=a):
            return Table(
                tuple([_map_run(c, f) for c in h]),
                tuple([tuple([_map_run(c, f) for c in r]) for r in rows]),
                a,
            )
        case CodeBlock():
            return b
        case _:
            assert_never(b)


def _map_run(xs: tuple[Inline, ...], f: InlineMap) -> tuple[Inline, ...]:
    out: list[Inline] = []
    for x in xs:
        match x:
            case Str() | Math() | Code() | Gap() | Image() | LineBreak():
                y = f(x)
                if y is None:
                    out.append(x)
                elif isinstance(y, tuple):
                    out.extend(y)
                else:
                    out.append(y)
            case Emph(children=c):
                out.append(Emph(_map_run(c, f)))
            case Strong(children=c):
                out.append(Strong(_map_run(c, f)))
            case Link(url=u, children=c, title=t):
                out.append(Link(u, _map_run(c, f), t))
            case _:
                assert_never(x)
    return tuple(out)


# --------------------------------------------------------------------------- questions
#
# A question is a header every kind shares (id, stem, points, feedback, hints, ...) and a
# body, one frozen dataclass per kind of question (pandoc's Block): writers match on the body
# and end with assert_never, so mypy proves every writer handles every kind or says it does
# not. Scores are numbers, not flags: a response option earns a *credit*, a fraction of the
# question's points from -1 to 1; "right" is derived (credit 1), as Moodle's fractions, QTI's
# mapResponse and Canvas's answer weights all are.


class QuestionType(str, enum.Enum):
    """The kind of a question's body; the value is the source-format spelling (`type:`)."""

    SINGLE = "single"
    """Choose exactly one choice; at least one choice earns full credit."""
    MULTIPLE = "multiple"
    """Choose any number of choices; each pick adds its credit; the total lies in [0, 1]."""
    TRUE_FALSE = "true_false"
    """A statement that is true or false."""
    SHORT_ANSWER = "short_answer"
    """Type a word or phrase; each accepted answer earns its own credit."""
    NUMERICAL = "numerical"
    """Type a number; each key (a value with a tolerance, or a range) earns its own credit."""
    MATCHING = "matching"
    """Match each left-hand item with one right-hand item."""
    ESSAY = "essay"
    """Free text, graded by a person; never auto-scored."""
    CLOZE = "cloze"
    """A text with numbered blanks, each typed or picked and scored on its own (Moodle's
    embedded answers)."""
    ORDERING = "ordering"
    """Put items in their order."""
    DESCRIPTION = "description"
    """Text shown between questions, with no answer and no points."""
    CALCULATED = "calculated"
    """A numerical question whose numbers are drawn per variant; the key is a formula."""
    CALCULATED_CHOICE = "calculated_choice"
    """A choice question whose choices are formulas evaluated per variant."""


class Difficulty(str, enum.Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


CREDIT_EPSILON = 1e-6
"""Two credits closer than this are one credit (formats store them to 7 decimals)."""


def exact_credit(value: float) -> float:
    """The credit a stored fraction stands for: 0.3333333 -> 1/3, 0.1428571 -> 1/7.

    Formats write credits as decimals (Moodle to 7 places); reading them back as the exact
    fraction k/n (n <= 100) they round makes a round trip give back the same float the source
    held. A value that is no such fraction is returned unchanged.
    """
    if float(value).is_integer():
        return float(value)
    for n in range(2, 101):
        k = round(value * n)
        if abs(k / n - value) < CREDIT_EPSILON / 2:
            return k / n
    return value


def is_full(credit: float) -> bool:
    """Whether a credit is full credit (1, within the precision formats keep)."""
    return abs(credit - 1.0) < CREDIT_EPSILON


@dataclass(frozen=True)
class Choice:
    """One option of a single or multiple choice question."""

    text: Text
    """The choice as the learner sees it."""
    credit: float = 0.0
    """The fraction of the question's points picking it earns, from -1 to 1."""
    feedback: Text | None = None
    """Shown when the learner picks this choice."""
    lang: str | None = None
    """BCP 47 tag when this choice is in another language than its question."""
    loc: SourceLoc | None = _loc()

    @property
    def full(self) -> bool:
        """Whether picking it alone earns full credit (a key of a single choice question)."""
        return is_full(self.credit)

    @property
    def earns(self) -> bool:
        """Whether picking it earns anything (a right pick of a multiple choice question)."""
        return self.credit > CREDIT_EPSILON / 2


def default_multiple_credits(right: Sequence[bool]) -> tuple[float, ...]:
    """The bank's default scoring of a multiple choice question given which choices are right:
    each right pick +1/(number right), each wrong pick -1/(number wrong), so picking every
    choice scores 0 (Moodle's convention)."""
    n_right = sum(right)
    n_wrong = len(right) - n_right
    return tuple(1.0 / n_right if r else (-1.0 / n_wrong) for r in right)


@dataclass(frozen=True)
class SingleChoice:
    """Pick one choice: it earns its credit. Several choices may earn full credit (real banks
    have both a best answer and an equally good one), others a part of it or a penalty."""

    choices: tuple[Choice, ...]

    @property
    def key_indexes(self) -> tuple[int, ...]:
        """0-based indexes of the full-credit choices."""
        return tuple(i for i, c in enumerate(self.choices) if c.full)

    @property
    def credits(self) -> tuple[float, ...]:
        return tuple(c.credit for c in self.choices)


@dataclass(frozen=True)
class MultipleChoice:
    """Pick any choices: their credits add up, and the total is clamped to [0, 1]."""

    choices: tuple[Choice, ...]

    @property
    def key_indexes(self) -> tuple[int, ...]:
        """0-based indexes of the choices that earn credit (the right picks)."""
        return tuple(i for i, c in enumerate(self.choices) if c.earns)

    @property
    def credits(self) -> tuple[float, ...]:
        return tuple(c.credit for c in self.choices)

    @property
    def default_credits(self) -> bool:
        """Whether the credits are the bank's default rule for its right choices (what an
        author who marks choices `correct: true` gets)."""
        expected = default_multiple_credits([c.earns for c in self.choices])
        return all(abs(a - b) < CREDIT_EPSILON for a, b in zip(expected, self.credits, strict=True))


@dataclass(frozen=True)
class TrueFalse:
    """A statement that is true or false."""

    truth: bool
    """Whether the stem's statement is true."""
    feedback_true: Text | None = None
    """Shown when the learner answers "true"."""
    feedback_false: Text | None = None
    """Shown when the learner answers "false"."""


@dataclass(frozen=True)
class Answer:
    """One accepted (or anticipated) answer of a short answer question."""

    text: str
    credit: float = 1.0
    """The fraction of the points a response matching it earns, from 0 to 1."""
    feedback: Text | None = None
    """Shown when the response matches this answer (the first match counts, as in Moodle)."""
    wildcard: bool = False
    """Whether each `*` in text matches any run of characters (Moodle's wildcard); otherwise
    text is matched literally, `*` included."""
    loc: SourceLoc | None = _loc()


@dataclass(frozen=True)
class ShortAnswer:
    """Type a word or phrase; it is compared with each answer in order, the first match counts."""

    answers: tuple[Answer, ...]
    """Every anticipated answer, the preferred full-credit one first."""
    case_sensitive: bool = False
    """Whether letter case must match."""
    other_feedback: Text | None = None
    """Shown for a response no answer matches (Moodle's `*` answer at 0%)."""

    @property
    def accepted(self) -> tuple[str, ...]:
        """The texts of the full-credit answers, the preferred first."""
        return tuple(a.text for a in self.answers if is_full(a.credit))


@dataclass(frozen=True)
class NumericKey:
    """One key of a numerical question: answer +- tolerance, or the closed range [low, high]."""

    answer: float | None = None
    """The expected value; None only when a range alone is given."""
    tolerance: float = 0.0
    """Accepted absolute error around answer (0 = exact). Ignored when low/high are set."""
    low: float | None = None
    """Lower bound of an explicit range (inclusive), or None."""
    high: float | None = None
    """Upper bound of an explicit range (inclusive), or None."""
    credit: float = 1.0
    """The fraction of the points a response inside this key earns, from 0 to 1."""
    feedback: Text | None = None
    """Shown when the response falls inside this key (the first key that holds it counts)."""
    loc: SourceLoc | None = _loc()

    @property
    def bounds(self) -> tuple[float, float]:
        """The accepted closed interval, whichever way the key was written."""
        if self.low is not None and self.high is not None:
            return (self.low, self.high)
        assert self.answer is not None
        return (self.answer - self.tolerance, self.answer + self.tolerance)

    @property
    def value(self) -> float:
        """The value a format that stores one number stores: the answer, else the range's middle."""
        if self.answer is not None:
            return self.answer
        lo, hi = self.bounds
        return (lo + hi) / 2

    def accepts(self, value: float) -> bool:
        lo, hi = self.bounds
        return lo <= value <= hi


@dataclass(frozen=True)
class Unit:
    """A unit a numerical answer may be given in (Moodle's qtype_numerical units)."""

    name: str
    """As the learner types it: "GB", "GiB", "%"."""
    multiplier: float = 1.0
    """The key's value times this is the answer in this unit (the first unit is 1, the base)."""


class UnitGrading(str, enum.Enum):
    """Whether and how a missing or wrong unit costs points (Moodle's unitgradingtype)."""

    OPTIONAL = "optional"
    """Units are accepted and converted, never required (Moodle: unitrole 'units optional')."""
    RESPONSE = "response"
    """A wrong or missing unit loses unit_penalty of the response's grade (Moodle 1)."""
    QUESTION = "question"
    """A wrong or missing unit loses unit_penalty of the question's grade (Moodle 2)."""


class UnitInput(str, enum.Enum):
    """How the learner gives the unit (Moodle's unitsinput / showunits)."""

    TEXT = "text"
    """Typed after the number."""
    CHOICE = "choice"
    """Picked from radio buttons."""
    SELECT = "select"
    """Picked from a drop-down list."""


@dataclass(frozen=True)
class Numerical:
    """Type a number; it is compared with each key in order, the first that holds it counts."""

    keys: tuple[NumericKey, ...]
    """At least one; the first full-credit key is "the" answer formats with one key keep."""
    units: tuple[Unit, ...] = ()
    """The units an answer may carry, the base unit (multiplier 1) first; empty: no units."""
    unit_grading: UnitGrading = UnitGrading.OPTIONAL
    unit_penalty: float = 0.1
    """With RESPONSE or QUESTION grading: the fraction lost for a wrong or missing unit."""
    unit_input: UnitInput = UnitInput.TEXT
    units_left: bool = False
    """Whether the unit stands before the number ($ 5) rather than after it (5 GB)."""
    other_feedback: Text | None = None
    """Shown for a response no key holds (Moodle's `*` answer at 0%)."""

    @property
    def key(self) -> NumericKey:
        """The best key: the first with the highest credit."""
        return max(self.keys, key=lambda k: k.credit)


@dataclass(frozen=True)
class Pair:
    """One left -> right pair of a matching question."""

    left: Text
    """The prompt side; may hold markup."""
    right: str
    """The answer side: plain text (LMSs show it in a drop-down list)."""
    loc: SourceLoc | None = _loc()


@dataclass(frozen=True)
class Matching:
    """Match each left-hand item with one right-hand item; each right match earns its share."""

    pairs: tuple[Pair, ...]
    """The right pairs, in source order."""
    distractors: tuple[str, ...] = ()
    """Extra right-hand items that match nothing."""


class ResponseFormat(str, enum.Enum):
    """How an essay is typed (Moodle's qtype_essay responseformat)."""

    EDITOR = "editor"
    """A rich text editor."""
    PLAIN = "plain"
    """Plain text."""
    MONOSPACED = "monospaced"
    """Plain text in a monospaced font (code)."""
    NONE = "none"
    """No text at all: the answer is attached files only."""


@dataclass(frozen=True)
class Essay:
    """Free text, graded by a person."""

    response_format: ResponseFormat = ResponseFormat.EDITOR
    required: bool = True
    """Whether the learner must type something (Moodle's responserequired)."""
    lines: int = 15
    """The height of the input box, in lines (Moodle's responsefieldlines)."""
    min_words: int | None = None
    max_words: int | None = None
    template: Text | None = None
    """Text the answer box starts with (a structure to fill in)."""
    grader_info: Text | None = None
    """For the person grading: what a good answer holds. Never shown to the learner."""
    attachments: int = 0
    """How many files the learner may attach: 0 none, 1..n, -1 unlimited (Moodle's attachments)."""
    attachments_required: int = 0
    """How many of them the learner must attach (Moodle's attachmentsrequired)."""
    file_types: tuple[str, ...] = ()
    """The files accepted: extensions (".pdf") or groups ("document"); empty is any (Moodle's
    filetypeslist)."""
    max_bytes: int = 0
    """The largest file accepted, in bytes; 0 is the course's limit (Moodle's maxbytes)."""

    @property
    def takes_files(self) -> bool:
        """Whether any attachment option differs from none (what writers without files name)."""
        return bool(self.attachments or self.attachments_required or self.file_types or self.max_bytes)


# ----------------------------------------------------------------- cloze, ordering, description


class ChoiceDisplay(str, enum.Enum):
    """How a choice blank of a cloze question is shown (Moodle's MULTICHOICE, _V and _H)."""

    DROPDOWN = "dropdown"
    """A drop-down list inside the line (Moodle's MULTICHOICE, QTI's inlineChoiceInteraction)."""
    VERTICAL = "vertical"
    """Radio buttons (check boxes when `multiple`) one under the other."""
    HORIZONTAL = "horizontal"
    """Radio buttons (check boxes when `multiple`) in a row."""


@dataclass(frozen=True)
class TextBlank:
    """A blank the learner types a word or phrase into (Moodle's SHORTANSWER / SHORTANSWER_C).
    Scored as a ShortAnswer question: the first answer that matches earns its credit."""

    answers: tuple[Answer, ...]
    case_sensitive: bool = False
    other_feedback: Text | None = None
    """Shown for a response no answer matches (Moodle's `~*#...` at 0%)."""
    weight: int = 1
    """Its share of the question's points against the other blanks (Moodle's `{2:...}`), >= 1."""
    loc: SourceLoc | None = _loc()

    @property
    def accepted(self) -> tuple[str, ...]:
        return tuple(a.text for a in self.answers if is_full(a.credit))


@dataclass(frozen=True)
class NumberBlank:
    """A blank the learner types a number into (Moodle's NUMERICAL). Scored as a Numerical
    question without units: the first key that holds the response earns its credit."""

    keys: tuple[NumericKey, ...]
    other_feedback: Text | None = None
    weight: int = 1
    loc: SourceLoc | None = _loc()

    @property
    def key(self) -> NumericKey:
        return max(self.keys, key=lambda k: k.credit)


@dataclass(frozen=True)
class ChoiceBlank:
    """A blank the learner picks at (Moodle's MULTICHOICE*, MULTIRESPONSE*; gapselect and ddwtos
    gaps import as these). One pick earns its choice's credit; with `multiple`, every pick adds
    its credit and the blank's total is clamped to [0, 1] (as a MultipleChoice question)."""

    choices: tuple[Choice, ...]
    display: ChoiceDisplay = ChoiceDisplay.DROPDOWN
    multiple: bool = False
    """Check boxes: pick any number (never with DROPDOWN)."""
    shuffle: bool = False
    """Whether the choices are shuffled per attempt (Moodle's MULTICHOICE_S and the rest)."""
    weight: int = 1
    loc: SourceLoc | None = _loc()

    @property
    def key_indexes(self) -> tuple[int, ...]:
        """0-based indexes of the full-credit choices (of the earning ones when `multiple`)."""
        if self.multiple:
            return tuple(i for i, c in enumerate(self.choices) if c.earns)
        return tuple(i for i, c in enumerate(self.choices) if c.full)


Blank = TextBlank | NumberBlank | ChoiceBlank
"""One blank of a cloze question (match on it; end with assert_never)."""


@dataclass(frozen=True)
class Cloze:
    """A stem with numbered blanks (Moodle's embedded answers): `Gap(n)` inlines in the stem,
    which is always Rich, mark where blank n (1-based, `blanks[n - 1]`) sits; each appears
    exactly once, in order. The score is points x sum(weight_i x credit_i) / sum(weight_i)."""

    blanks: tuple[Blank, ...]

    @property
    def total_weight(self) -> int:
        return sum(b.weight for b in self.blanks)


class OrderingGrading(str, enum.Enum):
    """How an ordering response scores (qtype_ordering's gradingtype; the value is the source
    spelling). Every one but ALL_OR_NOTHING gives partial credit: a share of the items (or of
    the item relations) the response gets right."""

    ALL_OR_NOTHING = "all_or_nothing"
    """Full credit for the whole order right, else 0 (Moodle -1; QTI's match_correct)."""
    ABSOLUTE_POSITION = "absolute_position"
    """One share per item in its right position (Moodle 0)."""
    RELATIVE_NEXT_EXCLUDE_LAST = "relative_next_exclude_last"
    """One share per item followed by its right successor; the last item scores nothing (1)."""
    RELATIVE_NEXT_INCLUDE_LAST = "relative_next_include_last"
    """As above, and the last item right when it is last (2)."""
    RELATIVE_ONE_PREVIOUS_AND_NEXT = "relative_one_previous_and_next"
    """Shares for the right predecessor and the right successor of each item (3)."""
    RELATIVE_ALL_PREVIOUS_AND_NEXT = "relative_all_previous_and_next"
    """Shares for every item before and after each item that belongs there (4)."""
    LONGEST_ORDERED_SUBSET = "longest_ordered_subset"
    """The longest subsequence in right order, not necessarily adjacent (5)."""
    LONGEST_CONTIGUOUS_SUBSET = "longest_contiguous_subset"
    """The longest run of adjacent items in right order (6)."""
    RELATIVE_TO_CORRECT = "relative_to_correct"
    """Each item scored by how far it is from its right position (7)."""


class OrderingSelect(str, enum.Enum):
    """Which items an attempt shows (qtype_ordering's selecttype)."""

    ALL = "all"
    RANDOM = "random"
    """`select_count` items drawn at random, kept in their relative order."""
    CONTIGUOUS = "contiguous"
    """`select_count` adjacent items from a random start."""


class Layout(str, enum.Enum):
    VERTICAL = "vertical"
    HORIZONTAL = "horizontal"


class Numbering(str, enum.Enum):
    """How the items of an ordering are numbered for the learner (qtype_ordering's numberingstyle)."""

    NONE = "none"
    ABC = "abc"
    ABC_UPPER = "ABCD"
    DIGITS = "123"
    ROMAN = "iii"
    ROMAN_UPPER = "IIII"


@dataclass(frozen=True)
class Ordering:
    """Put items in order; `items` are in the right order (an attempt shows them shuffled)."""

    items: tuple[Text, ...]
    """At least two, each different from the others."""
    grading: OrderingGrading = OrderingGrading.ALL_OR_NOTHING
    select: OrderingSelect = OrderingSelect.ALL
    select_count: int = 0
    """With RANDOM or CONTIGUOUS: how many items an attempt shows (2 <= n < len(items))."""
    layout: Layout = Layout.VERTICAL
    numbering: Numbering = Numbering.NONE
    show_grading: bool = True
    """Whether the learner is shown which items scored after answering (Moodle's showgrading)."""


@dataclass(frozen=True)
class Description:
    """Text and no answer (Moodle's description, a QTI item without interaction, Canvas's
    text_only_question): the stem is the text. Its question's points are 0; it keeps its place
    among the questions of a quiz and of an assessment's section, and is never numbered."""


# ----------------------------------------------------------------- parametric (calculated) questions
#
# A parametric question declares variables, derived values and constraints, uses them as {name}
# in its texts and computes its key (or each choice) with a formula. No target computes fresh
# numbers at attempt time (../docs/formulas.md), so the loader draws the variants with a seed
# derived from the question id (lmsexport.variants) and every writer writes those same variants.
# Formulas are kept as the author wrote them (lmsexport's syntax, docs/formulas.md) and parsed by
# lmsexport.formula; the model holds their text only, so it stays free of any evaluator.


@dataclass(frozen=True)
class Formula:
    """A formula as the author wrote it, with where its text starts in the source."""

    text: str
    loc: SourceLoc | None = _loc()
    """Position of the first character of the formula text (the YAML scalar's value)."""


@dataclass(frozen=True)
class RangeVariable:
    """A number drawn from low, low+step, ..., up to high (both included when on the grid)."""

    name: str
    low: float
    high: float
    step: float
    """> 0; an integer variable has step 1 and decimals 0."""
    decimals: int
    """Digits after the point every target stores and shows (derived from step by the loader
    when the author gives only `step`, and step = 10^-decimals when only `decimals`)."""
    loc: SourceLoc | None = _loc()


@dataclass(frozen=True)
class ListVariable:
    """A number drawn from an explicit list (e.g. G in 8, 16, 32, 64)."""

    name: str
    values: tuple[float, ...]
    decimals: int | None = None
    """None: each value is shown in its shortest exact form."""
    loc: SourceLoc | None = _loc()


Variable = RangeVariable | ListVariable


@dataclass(frozen=True)
class Derived:
    """A named value computed from the variables (and earlier derived values) per variant."""

    name: str
    formula: Formula
    decimals: int | None = None
    """Digits shown in texts; None: the shortest exact form. Later formulas use the full value."""
    loc: SourceLoc | None = _loc()


@dataclass(frozen=True)
class Constraint:
    """A condition every variant satisfies, e.g. `G <= N` or `p < m and m <= 4 * p`."""

    formula: Formula


class ToleranceKind(str, enum.Enum):
    """How far from the key a response may be (see accepts() for each target's semantics)."""

    ABSOLUTE = "absolute"
    """|response - key| <= value (Moodle tolerancetype 2 "nominal", Canvas a plain number)."""
    RELATIVE = "relative"
    """|response - key| <= value * |key|; value is a FRACTION (0.01 = 1 %) (Moodle tolerancetype
    1 with the same fraction, Canvas "1%", QTI 2.1 toleranceMode relative with 1)."""


@dataclass(frozen=True)
class Tolerance:
    value: float = 0.0
    kind: ToleranceKind = ToleranceKind.ABSOLUTE


@dataclass(frozen=True)
class Parameters:
    """What makes a question parametric: its variables, derived values, constraints, count."""

    variables: tuple[Variable, ...]
    derived: tuple[Derived, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    count: int | None = None
    """How many variants to draw; None: the bank's default (DEFAULT_COUNT without one)."""


@dataclass(frozen=True)
class Variant:
    """One drawn variant: every variable's and derived value, the key, each choice's value."""

    number: int
    """1-based, in drawing order (Moodle dataset item numbers, Canvas var_set idents)."""
    values: tuple[tuple[str, float], ...]
    """Variables then derived values, in declaration order."""
    answer: float | None
    """The value of the answer formula, full precision (None when the question has none)."""
    choices: tuple[float, ...] = ()
    """The value of each choice formula, in choice order."""

    @property
    def env(self) -> dict[str, float]:
        return dict(self.values)


@dataclass(frozen=True)
class Calculated:
    """A numerical question whose numbers are drawn per variant (Moodle's calculated and
    calculatedsimple, Canvas's calculated_question): the stem, explanation and feedback hold
    `{name}` placeholders, the key is `answer` evaluated on each variant."""

    params: Parameters
    answer: Formula
    tolerance: Tolerance = Tolerance()
    decimals: int = 2
    """Digits after the point the key is shown (and stored) with (Moodle's correctanswerlength
    with correctanswerformat 1, Canvas's formula_decimal_places)."""
    units: tuple[Unit, ...] = ()
    """Units the answer may carry, the base unit first (Moodle's calculated units)."""
    variants: tuple[Variant, ...] = ()
    """Drawn by the loader (or read from a file's datasets / var sets): what every writer writes."""


@dataclass(frozen=True)
class CalcChoice:
    """One choice of a parametric choice question: a value computed per variant."""

    formula: Formula
    credit: float = 0.0
    feedback: Text | None = None
    loc: SourceLoc | None = _loc()

    @property
    def full(self) -> bool:
        return is_full(self.credit)

    @property
    def earns(self) -> bool:
        return self.credit > CREDIT_EPSILON / 2


@dataclass(frozen=True)
class CalculatedChoice:
    """A choice question whose choices are values computed per variant, the common mistakes as
    distractors (Moodle's calculatedmulti). Scored as SingleChoice, or MultipleChoice when
    `multiple`; each variant's choice values are in `Variant.choices`."""

    params: Parameters
    choices: tuple[CalcChoice, ...]
    multiple: bool = False
    decimals: int = 2
    """Digits after the point every choice is shown with."""
    tolerance: Tolerance = Tolerance()
    """Two choices closer than this in some variant are refused (a distractor equal to the key)."""
    variants: tuple[Variant, ...] = ()


Body = (
    SingleChoice
    | MultipleChoice
    | TrueFalse
    | ShortAnswer
    | Numerical
    | Matching
    | Essay
    | Cloze
    | Ordering
    | Description
    | Calculated
    | CalculatedChoice
)
"""What a question asks, one dataclass per kind (match on it; end with assert_never)."""

BODY_TYPES: dict[type, QuestionType] = {
    SingleChoice: QuestionType.SINGLE,
    MultipleChoice: QuestionType.MULTIPLE,
    TrueFalse: QuestionType.TRUE_FALSE,
    ShortAnswer: QuestionType.SHORT_ANSWER,
    Numerical: QuestionType.NUMERICAL,
    Matching: QuestionType.MATCHING,
    Essay: QuestionType.ESSAY,
    Cloze: QuestionType.CLOZE,
    Ordering: QuestionType.ORDERING,
    Description: QuestionType.DESCRIPTION,
    Calculated: QuestionType.CALCULATED,
    CalculatedChoice: QuestionType.CALCULATED_CHOICE,
}
"""Each kind of body -> its source-format spelling."""


def gaps_of(text: Text | None) -> tuple[int, ...]:
    """The blank numbers a text's gaps name, in reading order (a cloze stem: 1, 2, ..., n)."""
    return tuple(x.n for x in inlines_of(text) if isinstance(x, Gap))


@dataclass(frozen=True)
class OutcomeFeedback:
    """Feedback on the whole response, by how it scored (Moodle's combined feedback, QTI
    feedback shown from an outcome response processing sets)."""

    correct: Text | None = None
    """Shown for a response that earns full credit."""
    partial: Text | None = None
    """Shown for a response that earns some but not full credit."""
    incorrect: Text | None = None
    """Shown for a response that earns nothing."""
    show_num_correct: bool = False
    """Whether the learner is also told how many of their picks or matches are right."""

    def __bool__(self) -> bool:
        return (
            any(x is not None for x in (self.correct, self.partial, self.incorrect)) or self.show_num_correct
        )


@dataclass(frozen=True)
class Hint:
    """A hint shown after a wrong try, one more on each (Moodle's interactive behaviour)."""

    text: Text
    show_num_correct: bool = False
    """Also tell the learner how many of their picks are right."""
    clear_wrong: bool = False
    """Clear the wrong parts of the response before the next try."""
    loc: SourceLoc | None = _loc()


@dataclass(frozen=True, kw_only=True)
class Question:
    """One question: the header every kind shares and a body of its own kind."""

    id: str
    """Unique across the whole bank: ASCII letter first, then letters, digits, - _ ."""
    stem: Text
    """The question text."""
    body: Body
    """What it asks and how a response scores."""
    name: str | None = None
    """Its name in an LMS's question bank (Moodle's name, a QTI or Canvas title); None: the
    writers derive one from the stem."""
    explanation: Text | None = None
    """Why the key is right; shown after answering in every output format (Moodle's general
    feedback)."""
    feedback: OutcomeFeedback = OutcomeFeedback()
    """Feedback for a right, a partly right and a wrong response."""
    hints: tuple[Hint, ...] = ()
    """Shown one by one on retries, in order."""
    penalty: float | None = None
    """The fraction of the points lost for each wrong try where retries are allowed; None:
    the LMS's default (Moodle: 1/3)."""
    points: float = 1.0
    """Maximum score, > 0; 0 for a Description (and only for it)."""
    lang: str | None = None
    """BCP 47 tag when the question is in another language than its quiz; see Quiz.lang_of."""
    tags: tuple[str, ...] = ()
    difficulty: Difficulty | None = None
    """When it differs from its quiz's; see Quiz.difficulty_of."""
    loc: SourceLoc | None = _loc()

    @property
    def type(self) -> QuestionType:
        """The kind of the body, as the source format spells it."""
        return BODY_TYPES[type(self.body)]


evolve_question = Maker(Question).evolve
"""``dataclasses.replace`` for a Question, quickly (records.py): the writers copy a calculated
question's every variant once or more (variants.instantiate, the cartridges, GIFT)."""


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
        """Whether a question is in the pool. A description is only when `types` names it: a
        random draw of questions never shows a text with nothing to answer."""
        if question.type is QuestionType.DESCRIPTION and QuestionType.DESCRIPTION not in self.types:
            return False
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
        """A drawn question's points: the draw's, else its own; a description is always worth 0."""
        if question.type is QuestionType.DESCRIPTION:
            return 0.0
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


@functools.lru_cache(maxsize=1024)  # a few tags, asked for every text of every item
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


@functools.lru_cache(maxsize=1024)
def direction(lang: str) -> str:
    """ "rtl" or "ltr" for a BCP 47 tag."""
    return "rtl" if is_rtl(lang) else "ltr"
