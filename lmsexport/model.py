"""The canonical question-bank model.

It knows no format (see ../docs/architecture.md): readers build it, writers consume it,
and nothing here imports a reader or a writer. Every object is a frozen dataclass, so a
model can be compared for equality (the GIFT round trip does) and hashed. Source locations
take no part in equality: a question read back from GIFT equals the one loaded from YAML.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


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

    text: str
    """Plain Unicode text as written in the source (no markup); line breaks are kept."""
    correct: bool = False
    """Whether picking this choice is (part of) the right answer."""
    feedback: str | None = None
    """Shown when the learner picks this choice."""
    lang: str | None = None
    """BCP 47 tag when this choice is in another language than its question."""
    loc: SourceLoc | None = _loc()


@dataclass(frozen=True)
class Pair:
    """One left -> right pair of a matching question."""

    left: str
    right: str
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
    stem: str
    """The question text, plain Unicode text."""
    explanation: str | None = None
    """Why the key is right; shown after answering in every output format."""
    points: float = 1.0
    """Maximum score, > 0."""
    lang: str | None = None
    """BCP 47 tag when the question is in another language than its quiz; see Quiz.lang_of."""
    tags: tuple[str, ...] = ()
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
    description: str | None = None
    difficulty: Difficulty | None = None
    category: str | None = None
    """Question-bank category path "a/b/c", or None."""
    shuffle: bool = True
    """Whether an LMS may shuffle the choices."""
    loc: SourceLoc | None = _loc()

    def lang_of(self, question: Question) -> str:
        """The language a question's text is in."""
        return question.lang or self.lang


@dataclass(frozen=True)
class Bank:
    """Every quiz of a run, sorted by quiz id (so output never depends on file-system order)."""

    quizzes: tuple[Quiz, ...]

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
