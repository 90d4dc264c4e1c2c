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

from .model import (
    ChoiceDisplay,
    Difficulty,
    Layout,
    Numbering,
    OrderingGrading,
    OrderingSelect,
    QuestionType,
    ResponseFormat,
    UnitGrading,
    UnitInput,
)

MARKUPS = ("plain", "markdown")
"""Values of a file's `markup`: how its texts are read (plain is the default)."""
ID_PATTERN = r"^[A-Za-z][A-Za-z0-9._-]{0,63}$"
"""Ids (quizzes, assessments, questions, draw names): an ASCII letter, then letters, digits,
`-`, `_` or `.`; at most 64 characters (source.ID_RE and MAX_ID_CHARS)."""


@dataclass(frozen=True)
class Value:
    """What a key's value is. `kind` is one of:

    text (any scalar, taken as written: `yes` is the text "yes"), rich (text that may carry
    Markdown), id, lang (a BCP 47 tag), bool, number, count (a whole number above 0), whole (a
    whole number of at least `minimum`), enum,
    list (of `item`), map (a Mapping named `ref`), one-or-list (one `item` or a list of them),
    range (a list of two numbers), credit (a number from -1 to 1, or a percent text "50%"),
    text-or-map (one `item` text, or a Mapping named `ref`), formula (a text or a bare number),
    tolerance (a number >= 0, or a percent text "1%"), names (a mapping whose keys are variable
    names and whose values are `item`), list-or-map (a list of `item`, or a Mapping named `ref`),
    count-or-list (a whole number from 1 to `maximum`, or a list of `item`).
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
    maximum: float | None = None
    """number: at most this."""
    minimum: float | None = None
    """number, credit: at least this."""


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
    exclusive_hints: dict[tuple[str, str], str] = field(default_factory=dict)
    """Per exclusive pair, the hint the loader gives."""

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
NAME_CHARS = 255
"""Longest question name (Moodle's question.name is a varchar(255))."""
NAME = Value("text", max_len=NAME_CHARS)
CREDIT = Value("credit", minimum=-1.0, maximum=1.0)
"""A credit: a fraction of the points from -1 to 1, as a number (0.5) or a percent ("50%")."""
EARNED = Value("credit", minimum=0.0, maximum=1.0)
"""A credit that cannot be negative (short answer and numerical answers: Moodle's lists for
them run from 0 to 100 %)."""
FRACTION = Value("number", minimum=0.0, maximum=1.0)

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
            "variants",
            Value("count", maximum=1000),
            "How many variants each calculated question draws when it does not say (default 20; "
            "Moodle keeps 100, Canvas 200).",
        ),
        Key(
            "questions", Value("list", item=Value("map", ref="question"), min_items=1), "The questions.", True
        ),
    ),
    foreign={"sections": "assessments (a file with 'sections' draws its questions from the bank)"},
)

COMMON_QUESTION = (
    Key("id", ID, "Unique across the whole bank (also ignoring letter case).", True),
    Key(
        "type",
        TYPE,
        "single (default), multiple, true_false, short_answer, numerical, matching, essay, cloze, "
        "ordering, description, calculated or calculated_choice.",
    ),
    Key("lang", LANG, "Only when the question is in another language than its quiz."),
    Key("stem", RICH, "The question text.", True),
    Key("points", Value("number", positive=True), "The score of a fully right answer (default 1)."),
    Key("explanation", RICH, "Why the key is right; shown after answering in every format."),
    Key("tags", TAGS, "Short labels (one line, no [ or ]); assessments select pools by them."),
    Key("difficulty", DIFFICULTY, "When it differs from the quiz's difficulty."),
    Key(
        "name",
        NAME,
        "Its name in an LMS's question bank (Moodle's question name, a QTI or Canvas title); "
        "default: the start of the stem.",
    ),
    Key(
        "feedback",
        Value("map", ref="outcome_feedback"),
        "Feedback on the whole response: correct, partial, incorrect.",
    ),
    Key(
        "hints",
        Value("list", item=Value("text-or-map", item=RICH, ref="hint")),
        "Hints shown one by one on retries, in order: a text, or {text, show_num_correct, clear_wrong}.",
    ),
    Key(
        "penalty",
        FRACTION,
        "The fraction of the points lost for each wrong try where retries are allowed "
        "(default: the LMS's, Moodle 1/3).",
    ),
)

OUTCOME_FEEDBACK = Mapping(
    "outcome_feedback",
    "Feedback on the whole response, by how it scored (Moodle's combined feedback).",
    (
        Key("correct", RICH, "Shown for a response that earns full credit."),
        Key("partial", RICH, "Shown for a response that earns some but not full credit."),
        Key("incorrect", RICH, "Shown for a response that earns nothing."),
        Key("show_num_correct", BOOL, "Also tell the learner how many of their picks are right."),
    ),
)
HINT = Mapping(
    "hint",
    "A hint shown after a wrong try (Moodle's interactive behaviour).",
    (
        Key("text", RICH, "The hint.", True),
        Key("show_num_correct", BOOL, "Also tell the learner how many of their picks are right."),
        Key("clear_wrong", BOOL, "Clear the wrong parts of the response before the next try."),
    ),
)

CHOICE = Mapping(
    "choice",
    "One option of a single or multiple question.",
    (
        Key("text", RICH, "The choice as the learner sees it.", True),
        Key("correct", BOOL, "Whether picking it is (part of) the right answer (default false)."),
        Key(
            "credit",
            CREDIT,
            "Instead of correct: the fraction of the points picking it earns, -1 to 1 (0.5 or '50%').",
        ),
        Key("feedback", RICH, "Shown when the learner picks this choice."),
        Key("lang", LANG, "Only when the choice is in another language than its question."),
    ),
    exclusive=(("correct", "credit"),),
    exclusive_hints={
        ("correct", "credit"): "keep one: 'correct: true' is 'credit: 1', 'correct: false' is 'credit: 0'"
    },
)
ANSWER = Mapping(
    "answer",
    "One anticipated answer of a short answer question, with its own credit and feedback.",
    (
        Key("text", TEXT, "The answer as the learner types it.", True),
        Key("credit", EARNED, "The fraction of the points it earns, 0 to 1 (default 1)."),
        Key("feedback", RICH, "Shown when the response matches this answer."),
        Key("wildcard", BOOL, "Whether each * in the text matches any characters (default false)."),
    ),
)
NUMERIC_KEY = Mapping(
    "numeric_key",
    "One key of a numerical question: answer with a tolerance, or a range.",
    (
        Key("answer", Value("number"), "The expected value (optional with a range)."),
        Key("tolerance", Value("number", non_negative=True), "Accepted absolute error (default 0)."),
        Key("range", Value("range"), "Inclusive bounds [low, high], instead of a tolerance."),
        Key("credit", EARNED, "The fraction of the points it earns, 0 to 1 (default 1)."),
        Key("feedback", RICH, "Shown when the response falls inside this key."),
    ),
    any_of=(("answer",), ("range",)),
    exclusive=(("tolerance", "range"),),
    exclusive_hints={("tolerance", "range"): "keep one of them"},
)
UNIT = Mapping(
    "unit",
    "A unit a numerical answer may be given in.",
    (
        Key("unit", Value("text", max_len=100), "The unit as the learner types it: GB, GiB, %.", True),
        Key(
            "multiplier",
            Value("number", positive=True),
            "The answer in this unit is the key's value times this (default 1; the first unit's is 1).",
        ),
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
BLANK_COMMON = (
    Key(
        "type",
        Value("enum", values=("short_answer", "numerical", "choice")),
        "short_answer (typed text), numerical (a typed number) or choice (picked).",
        True,
    ),
    Key(
        "weight",
        Value("count"),
        "The blank's share of the question's points against the other blanks (default 1).",
    ),
)
BLANK_KEYS: dict[str, tuple[Key, ...]] = {}
"""Per blank type, the keys it adds to BLANK_COMMON (filled below, once the answer keys exist)."""
ORDERING_SELECT = Mapping(
    "ordering_select",
    "Which items an attempt shows: `count` of them, drawn at random or adjacent.",
    (
        Key(
            "type",
            Value("enum", values=tuple(x.value for x in OrderingSelect if x is not OrderingSelect.ALL)),
            "random (count items drawn at random, kept in their order) or contiguous (count "
            "adjacent items from a random start).",
            True,
        ),
        Key("count", Value("count"), "How many items an attempt shows: at least 2, fewer than all.", True),
    ),
)
DESCRIPTION_REFUSED = {
    "points": "questions with an answer (a description is worth no points)",
    "feedback": "questions with an answer (a description has no response to give feedback on; "
    "write what is shown after the quiz as 'explanation')",
    "hints": "questions with an answer (a description has nothing to retry)",
    "penalty": "questions with an answer (a description has nothing to retry)",
}
"""Common keys a description does not take -> who they are for (the loader's messages)."""

CHOICES = Key("choices", Value("list", item=Value("map", ref="choice"), min_items=2), "The options.", True)

# Parametric (calculated) questions (docs/formulas.md): variables drawn per variant, `{name}` in
# the texts, the key (or each choice) a formula.
VARIABLE_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*$"
"""A variable's or derived value's name (variants.NAME_RE): an ASCII identifier."""
FORMULA = Value("formula", max_len=2000)
"""A formula in lmsexport's syntax (docs/formulas.md): a text, or a bare number."""
DECIMALS = Value("whole", minimum=0, maximum=9)
"""Digits after the point (Moodle's correctanswerlength runs from 0 to 9)."""
TOLERANCE = Value("tolerance")
"""An absolute margin (a number >= 0, `0.05`) or a relative one (a percent text, `"1%"`)."""
VARIABLE = Mapping(
    "variable",
    "A variable of a parametric question: a range {min, max, step | decimals}, or {values, decimals}.",
    (
        Key("min", Value("number"), "The lowest value (on the grid: min, min + step, ...)."),
        Key("max", Value("number"), "The highest value (included when on the grid)."),
        Key(
            "step",
            Value("number", positive=True),
            "The distance between values (default 1, or 10^-decimals); its digits set the decimals.",
        ),
        Key(
            "decimals",
            DECIMALS,
            "Digits after the point every target stores and shows (default: the step's, 0 for whole steps).",
        ),
        Key(
            "values",
            Value("list", item=Value("number"), min_items=1),
            "Instead of a range: the values to draw from (writing the list alone is the same).",
        ),
    ),
    any_of=(("min", "max"), ("values",)),
    exclusive=(("values", "min"), ("values", "max"), ("values", "step")),
    exclusive_hints={
        ("values", "min"): "a variable is a range (min, max) or a list (values), not both",
        ("values", "max"): "a variable is a range (min, max) or a list (values), not both",
        ("values", "step"): "a list's values are drawn as listed: remove 'step'",
    },
)
DERIVED = Mapping(
    "derived",
    "A value computed from the variables (and earlier derived values) in each variant.",
    (
        Key("formula", FORMULA, "How it is computed (docs/formulas.md).", True),
        Key("decimals", DECIMALS, "Digits shown in texts (default: its shortest exact form)."),
    ),
)
CALCULATED_ANSWER = Mapping(
    "calculated_answer",
    "The key of a calculated question: a formula, with its tolerance and the decimals it is shown with.",
    (
        Key("formula", FORMULA, "The key, computed per variant (docs/formulas.md).", True),
        Key(
            "tolerance",
            TOLERANCE,
            "Accepted error: a number is absolute (0.05), a percent relative to the key ('1%'); default 0.",
        ),
        Key(
            "decimals",
            DECIMALS,
            "Digits after the point the key is shown and stored with (default 2); the key shown with "
            "them must lie within the tolerance.",
        ),
    ),
)
CALCULATED_CHOICE = Mapping(
    "calculated_choice",
    "One choice of a calculated_choice question: a value computed per variant.",
    (
        Key("formula", FORMULA, "The value this choice shows, computed per variant.", True),
        Key("correct", BOOL, "Whether picking it is (part of) the right answer (default false)."),
        Key(
            "credit",
            CREDIT,
            "Instead of correct: the fraction of the points picking it earns, -1 to 1 (0.5 or '50%').",
        ),
        Key("feedback", RICH, "Shown when the learner picks this choice; may hold {name} placeholders."),
    ),
    exclusive=(("correct", "credit"),),
    exclusive_hints=CHOICE.exclusive_hints,
)
PARAMETER_KEYS = (
    Key(
        "variables",
        Value("names", item=Value("list-or-map", item=Value("number"), ref="variable")),
        "name: {min, max, step | decimals} (a range; whole numbers by default), or a list of values; "
        "written {name} in the texts.",
        True,
    ),
    Key(
        "derived",
        Value("names", item=Value("text-or-map", item=FORMULA, ref="derived")),
        "name: formula (or {formula, decimals}), computed per variant in order; written {name} in the texts.",
    ),
    Key(
        "constraints",
        Value("list", item=FORMULA, min_items=1),
        "Conditions every variant meets, e.g. 'G <= 8*N' or 'm >= p and p > 1'.",
    ),
    Key(
        "variants",
        Value("count-or-list", item=Value("names", item=Value("number")), maximum=1000),
        "How many variants to draw (default: the quiz's 'variants', else 20; Moodle keeps 100, Canvas "
        "200), or the variants themselves: a list of {variable: value}.",
    ),
)
"""The keys both parametric types share (Parameters)."""

TYPE_KEYS: dict[QuestionType, tuple[Key, ...]] = {
    QuestionType.SINGLE: (CHOICES,),
    QuestionType.MULTIPLE: (CHOICES,),
    QuestionType.TRUE_FALSE: (
        Key("answer", BOOL, "Whether the stem's statement is true.", True),
        Key("feedback_true", RICH, "Shown when the learner answers true."),
        Key("feedback_false", RICH, "Shown when the learner answers false."),
    ),
    QuestionType.SHORT_ANSWER: (
        Key(
            "answers",
            Value("list", item=Value("text-or-map", item=TEXT, ref="answer"), min_items=1),
            "Every anticipated answer, the preferred first: a text (full credit), or "
            "{text, credit, feedback, wildcard}.",
            True,
        ),
        Key("case_sensitive", BOOL, "Whether letter case must match (default false)."),
        Key("other_feedback", RICH, "Shown for a response no answer matches."),
    ),
    QuestionType.NUMERICAL: (
        Key("answer", Value("number"), "The expected value (optional with a range)."),
        Key("tolerance", Value("number", non_negative=True), "Accepted absolute error (default 0)."),
        Key("range", Value("range"), "Inclusive bounds [low, high], instead of a tolerance."),
        Key(
            "answers",
            Value("list", item=Value("map", ref="numeric_key"), min_items=1),
            "Instead of answer: several keys, each {answer, tolerance | range, credit, feedback}; "
            "the first that holds the response counts.",
        ),
        Key("other_feedback", RICH, "Shown for a response no key holds."),
        Key(
            "units",
            Value("list", item=Value("map", ref="unit"), min_items=1),
            "The units an answer may carry, the base unit (multiplier 1) first.",
        ),
        Key(
            "unit_grading",
            Value("enum", values=tuple(u.value for u in UnitGrading)),
            "optional (default: units accepted, never required), response or question "
            "(a wrong or missing unit loses unit_penalty of the response's or the question's grade).",
        ),
        Key("unit_penalty", FRACTION, "The fraction lost for a wrong or missing unit (default 0.1)."),
        Key(
            "unit_input",
            Value("enum", values=tuple(u.value for u in UnitInput)),
            "How the unit is given: text (default, typed after the number), choice (radio buttons) "
            "or select (a drop-down).",
        ),
        Key("units_left", BOOL, "Whether the unit stands before the number ($ 5), default false."),
    ),
    QuestionType.MATCHING: (
        Key("pairs", Value("list", item=Value("map", ref="pair"), min_items=2), "The right pairs.", True),
        Key("distractors", Value("list", item=TEXT), "Extra right-hand items that match nothing."),
    ),
    QuestionType.ESSAY: (
        Key(
            "response_format",
            Value("enum", values=tuple(f.value for f in ResponseFormat)),
            "editor (default), plain, monospaced, or none (files only).",
        ),
        Key("response_required", BOOL, "Whether the learner must type something (default true)."),
        Key("response_lines", Value("count"), "The height of the answer box in lines (default 15)."),
        Key("min_words", Value("count"), "The fewest words an answer may have."),
        Key("max_words", Value("count"), "The most words an answer may have."),
        Key("template", RICH, "Text the answer box starts with."),
        Key(
            "grader_info", RICH, "For the person grading: what a good answer holds (never shown to learners)."
        ),
        Key(
            "attachments",
            Value("whole", minimum=-1),
            "How many files the learner may attach: 0 (default) none, -1 any number.",
        ),
        Key(
            "attachments_required",
            Value("whole", minimum=0),
            "How many files the learner must attach (default 0).",
        ),
        Key(
            "file_types",
            Value("list", item=Value("text", max_len=100)),
            "The files accepted: extensions ('.pdf') or groups ('document'); default any.",
        ),
        Key(
            "max_bytes",
            Value("whole", minimum=0),
            "The largest file accepted, in bytes (default 0: the course's limit).",
        ),
    ),
    QuestionType.CLOZE: (
        Key(
            "blanks",
            Value("list", item=Value("map", ref="blank"), min_items=1),
            "The blanks, blank n written [[n]] in the stem (n from 1, each once, in order): each "
            "{type: short_answer | numerical | choice, weight, ...} with that type's keys.",
            True,
        ),
    ),
    QuestionType.ORDERING: (
        Key(
            "items",
            Value("list", item=RICH, min_items=2),
            "The items in their right order (an attempt shows them shuffled); at least 2, all different.",
            True,
        ),
        Key(
            "grading",
            Value("enum", values=tuple(g.value for g in OrderingGrading)),
            "How a response scores (Moodle's ordering grading types): all_or_nothing (default), "
            "absolute_position, relative_next_exclude_last, relative_next_include_last, "
            "relative_one_previous_and_next, relative_all_previous_and_next, longest_ordered_subset, "
            "longest_contiguous_subset or relative_to_correct.",
        ),
        Key(
            "select",
            Value("map", ref="ordering_select"),
            "Show only some items per attempt: {type: random | contiguous, count}.",
        ),
        Key(
            "layout",
            Value("enum", values=tuple(x.value for x in Layout)),
            "vertical (default) or horizontal.",
        ),
        Key(
            "numbering",
            Value("enum", values=tuple(x.value for x in Numbering)),
            "How the items are numbered: none (default), abc, ABCD, 123, iii or IIII.",
        ),
        Key("show_grading", BOOL, "Whether the learner is shown which items scored (default true)."),
    ),
    QuestionType.DESCRIPTION: (),
    QuestionType.CALCULATED: PARAMETER_KEYS
    + (
        Key(
            "answer",
            Value("text-or-map", item=FORMULA, ref="calculated_answer"),
            "The key: {formula, tolerance, decimals}, or the formula alone (tolerance 0, 2 decimals).",
            True,
        ),
        Key(
            "units",
            Value("list", item=Value("map", ref="unit"), min_items=1),
            "The units an answer may carry, the base unit (multiplier 1) first.",
        ),
    ),
    QuestionType.CALCULATED_CHOICE: PARAMETER_KEYS
    + (
        Key(
            "choices",
            Value("list", item=Value("map", ref="calculated_choice"), min_items=2),
            "The options, each a formula; the wrong ones the common mistakes.",
            True,
        ),
        Key("multiple", BOOL, "Check boxes: pick any number, credits add up (default false)."),
        Key("decimals", DECIMALS, "Digits after the point every choice is shown with (default 2)."),
        Key(
            "tolerance",
            TOLERANCE,
            "Two choices this close in some variant are refused (a distractor equal to the key); "
            "a number is absolute, a percent relative (default 0: only equal shown values).",
        ),
    ),
}
"""The keys each question type adds to COMMON_QUESTION, and no others."""

BLANK_KEYS["short_answer"] = tuple(
    k
    for k in TYPE_KEYS[QuestionType.SHORT_ANSWER]
    if k.name in ("answers", "case_sensitive", "other_feedback")
)
BLANK_KEYS["numerical"] = tuple(
    k
    for k in TYPE_KEYS[QuestionType.NUMERICAL]
    if k.name in ("answer", "tolerance", "range", "answers", "other_feedback")
)
BLANK_KEYS["choice"] = (
    Key(
        "choices",
        Value("list", item=Value("map", ref="choice"), min_items=2),
        "The options, as a single or multiple question's choices.",
        True,
    ),
    Key(
        "display",
        Value("enum", values=tuple(d.value for d in ChoiceDisplay)),
        "dropdown (default: a list inside the line), vertical or horizontal (buttons).",
    ),
    Key(
        "multiple",
        BOOL,
        "Check boxes: pick any number, credits add up as a multiple question's (default false; "
        "never with display dropdown).",
    ),
    Key("shuffle", BOOL, "Shuffle the choices per attempt (default false)."),
)


def blank(kind: str) -> Mapping:
    """The mapping of one blank type: type and weight, then the type's own keys."""
    own = {k.name for k in BLANK_KEYS[kind]}
    owners: dict[str, list[str]] = {}
    for other, keys in BLANK_KEYS.items():
        for k in keys:
            if k.name not in own:
                owners.setdefault(k.name, []).append(other)
    foreign = {name: " and ".join(kinds) + " blanks" for name, kinds in owners.items()}
    any_of, exclusive, hints = (
        QUESTION_RULES.get(QuestionType.NUMERICAL, ((), (), {})) if kind == "numerical" else ((), (), {})
    )
    return Mapping(
        f"blank ({kind})",
        "One blank of a cloze question.",
        BLANK_COMMON + BLANK_KEYS[kind],
        foreign,
        any_of,
        exclusive,
        hints,
    )


def _and(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def question(qtype: QuestionType) -> Mapping:
    """The mapping of one question type: the common keys, then the type's own."""
    own = {k.name for k in TYPE_KEYS[qtype]}
    owners: dict[str, list[str]] = {}
    for other, keys in TYPE_KEYS.items():
        for k in keys:
            if k.name not in own:
                owners.setdefault(k.name, []).append(other.value)
    foreign = {name: _and(types) + " questions" for name, types in owners.items()}
    common: tuple[Key, ...] = COMMON_QUESTION
    if qtype is QuestionType.DESCRIPTION:
        common = tuple(k for k in COMMON_QUESTION if k.name not in DESCRIPTION_REFUSED)
        foreign.update(DESCRIPTION_REFUSED)
    any_of, exclusive, hints = QUESTION_RULES.get(qtype, ((), (), {}))
    return Mapping(
        f"question ({qtype.value})",
        "A question."
        if qtype is not QuestionType.DESCRIPTION
        else "A text shown between questions: no answer, no points.",
        common + TYPE_KEYS[qtype],
        foreign,
        any_of,
        exclusive,
        hints,
    )


_ONE_KEY = "give one key as 'answer' (with 'tolerance' or 'range'), or several as 'answers'"
QUESTION_RULES: dict[
    QuestionType,
    tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, str], ...], dict[tuple[str, str], str]],
] = {
    QuestionType.NUMERICAL: (
        (("answer",), ("range",), ("answers",)),
        (("tolerance", "range"), ("answers", "answer"), ("answers", "tolerance"), ("answers", "range")),
        {
            ("tolerance", "range"): "keep one of them",
            ("answers", "answer"): _ONE_KEY,
            ("answers", "tolerance"): "give each key of 'answers' its own tolerance",
            ("answers", "range"): "give each key of 'answers' its own range",
        },
    ),
}
"""Per type: (any_of, exclusive, a hint per exclusive pair) beyond which keys exist."""


QUESTIONS = {t: question(t) for t in QuestionType}
BLANKS = {kind: blank(kind) for kind in BLANK_KEYS}
"""The mapping of each blank type (a blank's `type` decides its keys, as a question's does)."""

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

MAPPINGS: dict[str, Mapping] = {
    m.name: m
    for m in (
        QUIZ,
        ASSESSMENT,
        CHOICE,
        PAIR,
        OUTCOME_FEEDBACK,
        HINT,
        ANSWER,
        NUMERIC_KEY,
        UNIT,
        SECTION,
        DRAW,
        POOL,
        ORDERING_SELECT,
        VARIABLE,
        DERIVED,
        CALCULATED_ANSWER,
        CALCULATED_CHOICE,
    )
}
"""Every named mapping but the questions (QUESTIONS, by type)."""
