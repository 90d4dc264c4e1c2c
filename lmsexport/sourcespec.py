"""The shape of the YAML source format: every mapping, its keys, what each value is, and why.

One definition, read by two consumers so that they cannot drift apart:

* the loader (source.py) takes from here which keys each mapping allows and requires, and which
  keys belong to another question type or file kind (for its "belongs to" messages);
* the editor schema (editor_schema.py, `lmsexport schema`) turns it into JSON Schema, with the
  docs below as hover text in an editor.

What a value must be beyond its shape (a valid BCP 47 tag, an id unique in the bank, a range
whose low is below its high...) is checked by the loader alone; tests/test_editor_schema.py
proves that the schema accepts everything the loader accepts and rejects every shape error the
loader rejects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Difficulty, QuestionType

MARKUPS = ("plain", "markdown")
"""Values of a file's `markup`: how its texts are read (plain is the default)."""
ID_PATTERN = r"^[A-Za-z][A-Za-z0-9._-]{0,63}$"
"""Ids (quizzes, assessments, questions, draw names): an ASCII letter, then letters, digits,
`-`, `_` or `.`; at most 64 characters (source.ID_RE and MAX_ID_CHARS)."""


@dataclass(frozen=True)
class Value:
    """What a key's value is. `kind` is one of:

    text (any scalar, taken as written: `yes` is the text "yes"), rich (text that may carry
    Markdown), id, lang (a BCP 47 tag), bool, number, count (a whole number above 0), enum,
    list (of `item`), map (a Mapping named `ref`), one-or-list (one `item` or a list of them),
    range (a list of two numbers).
    """

    kind: str
    item: Value | None = None
    ref: str | None = None
    values: tuple[str, ...] = ()
    """enum: the allowed values."""
    max_len: int | None = None
    min_items: int = 0
    positive: bool = False
    """number: greater than 0."""
    non_negative: bool = False


@dataclass(frozen=True)
class Key:
    name: str
    value: Value
    doc: str
    required: bool = False


@dataclass(frozen=True)
class Mapping:
    name: str
    doc: str
    keys: tuple[Key, ...]
    foreign: dict[str, str] = field(default_factory=dict)
    """Keys of another kind of mapping -> who they belong to (for messages)."""
    any_of: tuple[tuple[str, ...], ...] = ()
    """At least one of these sets of keys is present in full (numerical: answer, or range)."""
    exclusive: tuple[tuple[str, str], ...] = ()
    """Pairs of keys that cannot be given together (tolerance and range)."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keys)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keys if k.required)

    def key(self, name: str) -> Key:
        return next(k for k in self.keys if k.name == name)


TEXT = Value("text", max_len=20_000)
RICH = Value("rich", max_len=20_000)
SHORT = Value("text", max_len=500)
ID = Value("id")
LANG = Value("lang")
BOOL = Value("bool")
TYPE = Value("enum", values=tuple(t.value for t in QuestionType))
DIFFICULTY = Value("enum", values=tuple(d.value for d in Difficulty))
MARKUP = Value("enum", values=MARKUPS)
TAGS = Value("list", item=Value("text", max_len=100))

_MARKUP_DOC = "How this file's texts are read: plain (default, shown exactly as written) or markdown."

QUIZ = Mapping(
    "quiz",
    "A quiz: one file, its questions; built into one package per format.",
    (
        Key("id", ID, "Unique among the bank's quizzes and assessments; names the files in dist/.", True),
        Key("title", SHORT, "The quiz's title (plain text).", True),
        Key("description", RICH, "Shown on the quiz's page and in package metadata."),
        Key("lang", LANG, "BCP 47 tag of the quiz's text, e.g. ur, en, ur-PK.", True),
        Key("markup", MARKUP, _MARKUP_DOC),
        Key("difficulty", DIFFICULTY, "easy, medium or hard; questions may override it."),
        Key("category", SHORT, "Question-bank category path 'a/b/c'."),
        Key("shuffle", BOOL, "Whether an LMS may shuffle the choices (default true)."),
        Key(
            "questions", Value("list", item=Value("map", ref="question"), min_items=1), "The questions.", True
        ),
    ),
    foreign={"sections": "assessments (a file with 'sections' draws its questions from the bank)"},
)

COMMON_QUESTION = (
    Key("id", ID, "Unique across the whole bank (also ignoring letter case).", True),
    Key("type", TYPE, "single (default), multiple, true_false, short_answer, numerical, matching or essay."),
    Key("lang", LANG, "Only when the question is in another language than its quiz."),
    Key("stem", RICH, "The question text.", True),
    Key("points", Value("number", positive=True), "The score of a fully right answer (default 1)."),
    Key("explanation", RICH, "Why the key is right; shown after answering in every format."),
    Key("tags", TAGS, "Short labels (one line, no [ or ]); assessments select pools by them."),
    Key("difficulty", DIFFICULTY, "When it differs from the quiz's difficulty."),
)

CHOICE = Mapping(
    "choice",
    "One option of a single or multiple question.",
    (
        Key("text", RICH, "The choice as the learner sees it.", True),
        Key("correct", BOOL, "Whether picking it is (part of) the right answer (default false)."),
        Key("feedback", RICH, "Shown when the learner picks this choice."),
        Key("lang", LANG, "Only when the choice is in another language than its question."),
    ),
)
PAIR = Mapping(
    "pair",
    "One left -> right pair of a matching question.",
    (
        Key("left", RICH, "The prompt side.", True),
        Key("right", TEXT, "The answer side (plain text: LMSs show it in a drop-down).", True),
    ),
)
CHOICES = Key("choices", Value("list", item=Value("map", ref="choice"), min_items=2), "The options.", True)

TYPE_KEYS: dict[QuestionType, tuple[Key, ...]] = {
    QuestionType.SINGLE: (CHOICES,),
    QuestionType.MULTIPLE: (CHOICES,),
    QuestionType.TRUE_FALSE: (Key("answer", BOOL, "Whether the stem's statement is true.", True),),
    QuestionType.SHORT_ANSWER: (
        Key(
            "answers",
            Value("list", item=TEXT, min_items=1),
            "Every accepted answer, the preferred first.",
            True,
        ),
        Key("case_sensitive", BOOL, "Whether letter case must match (default false)."),
    ),
    QuestionType.NUMERICAL: (
        Key("answer", Value("number"), "The expected value (optional with a range)."),
        Key("tolerance", Value("number", non_negative=True), "Accepted absolute error (default 0)."),
        Key("range", Value("range"), "Inclusive bounds [low, high], instead of a tolerance."),
    ),
    QuestionType.MATCHING: (
        Key("pairs", Value("list", item=Value("map", ref="pair"), min_items=2), "The right pairs.", True),
        Key("distractors", Value("list", item=TEXT), "Extra right-hand items that match nothing."),
    ),
    QuestionType.ESSAY: (),
}
"""The keys each question type adds to COMMON_QUESTION, and no others."""


def question(qtype: QuestionType) -> Mapping:
    """The mapping of one question type: the common keys, then the type's own."""
    own = {k.name for k in TYPE_KEYS[qtype]}
    foreign: dict[str, str] = {}
    for other, keys in TYPE_KEYS.items():
        for k in keys:
            if k.name not in own:
                foreign.setdefault(k.name, f"{other.value} questions")
    any_of, exclusive = QUESTION_RULES.get(qtype, ((), ()))
    return Mapping(
        f"question ({qtype.value})",
        "A question.",
        COMMON_QUESTION + TYPE_KEYS[qtype],
        foreign,
        any_of,
        exclusive,
    )


QUESTION_RULES: dict[QuestionType, tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, str], ...]]] = {
    QuestionType.NUMERICAL: ((("answer",), ("range",)), (("tolerance", "range"),)),
}
"""Per type: (any_of, exclusive) beyond which keys exist."""


QUESTIONS = {t: question(t) for t in QuestionType}

POOL = Mapping(
    "pool",
    "Which questions of the bank a random draw picks from: every condition given must hold.",
    (
        Key(
            "tags",
            Value("one-or-list", item=Value("text", max_len=100)),
            "The question has all of these tags.",
        ),
        Key(
            "any_tags", Value("one-or-list", item=Value("text", max_len=100)), "It has at least one of these."
        ),
        Key("category", SHORT, "Its quiz's category is this path or lies below it."),
        Key("quiz", Value("one-or-list", item=ID), "It belongs to one of these quizzes."),
        Key("type", Value("one-or-list", item=TYPE), "It is of one of these types."),
        Key("difficulty", Value("one-or-list", item=DIFFICULTY), "Its difficulty (own, else its quiz's)."),
        Key("lang", Value("one-or-list", item=LANG), "Its language (own, else its quiz's)."),
    ),
)
DRAW = Mapping(
    "draw",
    "Questions listed by id, or `pick` questions at random `from` a pool.",
    (
        Key("name", ID, "Names the pool in messages, LMS categories and packages."),
        Key("questions", Value("list", item=ID, min_items=1), "Question ids, shown in this order."),
        Key("pick", Value("count"), "How many questions each attempt draws from the pool."),
        Key("from", Value("map", ref="pool"), "The pool's conditions ({} is the whole bank)."),
        Key(
            "points", Value("number", positive=True), "Points of every question drawn (overrides their own)."
        ),
    ),
)
SECTION = Mapping(
    "section",
    "A part of an assessment.",
    (
        Key("title", SHORT, "Shown above the section's questions."),
        Key("shuffle", BOOL, "Shuffle the section's question order per attempt (default false)."),
        Key(
            "draws",
            Value("list", item=Value("map", ref="draw"), min_items=1),
            "What the section shows.",
            True,
        ),
    ),
)
_QUIZ_ONLY = "quizzes (an assessment draws its questions from the bank; set this on their quizzes)"
ASSESSMENT = Mapping(
    "assessment",
    "An assessment: sections of questions drawn from the bank's quizzes.",
    (
        Key("id", ID, "Unique among the bank's quizzes and assessments; names the files in dist/.", True),
        Key("title", SHORT, "The assessment's title (plain text).", True),
        Key("description", RICH, "Shown on its page and in package metadata."),
        Key("lang", LANG, "BCP 47 tag of the assessment's own text.", True),
        Key("markup", MARKUP, _MARKUP_DOC),
        Key("sections", Value("list", item=Value("map", ref="section"), min_items=1), "The sections.", True),
    ),
    foreign={k: _QUIZ_ONLY for k in ("questions", "difficulty", "category", "shuffle")},
)

MAPPINGS: dict[str, Mapping] = {m.name: m for m in (QUIZ, ASSESSMENT, CHOICE, PAIR, SECTION, DRAW, POOL)}
"""Every named mapping but the questions (QUESTIONS, by type)."""
