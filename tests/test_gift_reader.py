"""GIFT reader: Moodle's parsing rules, hand-written Moodle GIFT, and malformed files."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from lmsexport.errors import GiftSyntaxError, Severity
from lmsexport.model import (
    Description,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    QuestionType,
    ShortAnswer,
    SingleChoice,
    TrueFalse,
)
from lmsexport.readers.gift import read_gift, read_quiz, read_quiz_bytes

READ_CASES = Path(__file__).parent / "cases" / "gift" / "read"

# The examples of Moodle's GIFT documentation and format.php's header, as a teacher writes them.
MOODLE_DOCS = """\
// true-false
::Q1:: 1+1=2 {T}

// multiple choice with specified feedback for right and wrong answers
::Q2:: What's between orange and green in the spectrum?
{ =yellow # right; good! ~red # wrong, it's yellow ~blue # wrong, it's yellow }

// fill-in-the-blank
::Q3:: Two plus {=two =2} equals four.

// matching
::Q4:: Which animal eats which food? { =cat -> cat food =dog -> dog food }

// math range question
::Q5:: What is a number from 1 to 5? {#3:2}

// math range specified with interval end points
::Q6:: What is a number from 1 to 5? {#1..5}

// multiple numeric answers with partial credit and feedback
::Q7:: When was Ulysses S. Grant born? {#
         =1822:0      # Correct! Full credit.
         =%50%1822:2  # He was born in 1822. Half credit for being close.
}

// essay
::Q8:: How are you? {}

What two people are entombed in Grant's tomb? {
   ~%-100%No one
   ~%50%Grant
   ~%50%Grant's wife
   ~%-100%Grant's father
}
"""


def _read(text: str, path: str = "docs.gift.txt"):
    return read_quiz(text, path, quiz_id="docs", lang="en")


def test_moodle_docs_examples() -> None:
    quiz, warnings = _read(MOODLE_DOCS)
    types = [q.type for q in quiz.questions]
    assert types == [
        QuestionType.TRUE_FALSE,
        QuestionType.SINGLE,
        QuestionType.SHORT_ANSWER,
        QuestionType.MATCHING,
        QuestionType.NUMERICAL,
        QuestionType.NUMERICAL,
        QuestionType.NUMERICAL,
        QuestionType.ESSAY,
        QuestionType.MULTIPLE,
    ]
    q1, q2, q3, q4, q5, q6, q7, _, q9 = quiz.questions
    assert (q1.stem, q1.body) == ("1+1=2", TrueFalse(True))
    assert isinstance(q2.body, SingleChoice)
    assert [(c.text, c.full, c.feedback) for c in q2.body.choices] == [
        ("yellow", True, "right; good!"),
        ("red", False, "wrong, it's yellow"),
        ("blue", False, "wrong, it's yellow"),
    ]
    assert isinstance(q3.body, ShortAnswer)
    assert q3.stem == "Two plus _____ equals four." and q3.body.accepted == ("two", "2")
    assert isinstance(q4.body, Matching)
    assert [(p.left, p.right) for p in q4.body.pairs] == [("cat", "cat food"), ("dog", "dog food")]
    assert q5.body == Numerical((NumericKey(answer=3, tolerance=2),))
    assert q6.body == Numerical((NumericKey(low=1, high=5),))
    assert q7.body == Numerical(
        (
            NumericKey(answer=1822, tolerance=0, feedback="Correct! Full credit."),
            NumericKey(
                answer=1822,
                tolerance=2,
                credit=0.5,
                feedback="He was born in 1822. Half credit for being close.",
            ),
        )
    )
    assert isinstance(q9.body, MultipleChoice)
    assert [c.earns for c in q9.body.choices] == [False, True, True, False]
    # Its own weights, not the default rule's (which would take off 50% for a wrong pick).
    assert q9.body.credits == (-1.0, 0.5, 0.5, -1.0) and not q9.body.default_credits
    assert q9.id == "q9" and q1.id == "q1"
    assert [q.name for q in quiz.questions] == [f"Q{n}" for n in range(1, 9)] + [None]
    assert warnings == []


def test_moodle_level_items_keep_weights_and_formats() -> None:
    items = read_gift("::w::[markdown]Pick {~%50%a ~%50%b ~%-100%c####*why*}", "w.txt").items
    (item,) = items
    assert item.qtype == "multichoice" and not item.single
    assert [a.fraction for a in item.answers] == [Fraction(1, 2), Fraction(1, 2), Fraction(-1)]
    assert item.text is not None and item.text.format == "markdown"
    assert item.general_feedback is not None and item.general_feedback.text == "*why*"
    assert item.general_feedback.format == "markdown"


def test_id_tags_and_metadata_come_from_comments() -> None:
    text = (
        '// [id:my-q] [tag:a] [tag:b\\]c]\n// lmsexport: {"points": 2}\n'
        '::x::[html]<span lang\\="ur" dir\\="rtl">Q</span> {T}\n'
    )
    (q,) = _read(text)[0].questions
    assert (q.id, q.tags, q.points, q.lang, q.stem) == ("my-q", ("a", "b]c"), 2.0, "ur", "Q")


@pytest.mark.parametrize(
    "raw",
    [
        "\ufeff::a::Q {T}\n\n::b::R {F}\n",
        "::a::Q {T}\r\n\r\n::b::R {F}\r\n",
        "::a::Q {T}\r\r::b::R {F}\r",
        "::a::Q {T}\n0\n::b::R {F}",
        "   ::a::Q {T}   \n \t \n// just a comment\n::b::R\n{F}",
    ],
)
def test_file_layouts_moodle_accepts(raw: str) -> None:
    quiz, _ = _read(raw)
    assert [(q.stem, q.body) for q in quiz.questions] == [("Q", TrueFalse(True)), ("R", TrueFalse(False))]


def test_escapes_and_html() -> None:
    text = "::e::[html]a \\{b\\} \\= c\\: d\\#<br>x &lt;y&gt; &amp;nbsp;{=\\~z\\\\ ~w}"
    (q,) = _read(text)[0].questions
    assert q.stem == "a {b} = c: d#\nx <y> &nbsp;"
    assert isinstance(q.body, SingleChoice)
    assert [c.text for c in q.body.choices] == ["~z\\", "w"]


def test_category_description_and_markup_are_reported() -> None:
    text = "$CATEGORY: $course$/top/a\\:b\n\n::d::Just text.\n\n::h::[html]<b>Bold</b> {T}\n"
    quiz, warnings = _read(text)
    assert quiz.category == "$course$/top/a&&058;b"
    assert [w.rule for w in warnings] == ["gift.html-markup"]
    assert all(w.severity is Severity.WARNING for w in warnings)
    # readquestion(): no answer block is a description, worth nothing (defaultmark 0).
    description, bold = quiz.questions
    assert description.body == Description() and description.stem == "Just text." and description.points == 0
    assert bold.stem == "<b>Bold</b>"


def test_duplicate_ids_are_errors() -> None:
    with pytest.raises(GiftSyntaxError) as info:
        _read("// [id:x]\n::a::Q {T}\n\n// [id:x]\n::b::R {F}\n", "dup.gift.txt")
    assert (
        str(info.value)
        == "dup.gift.txt:5:1: error: question id 'x' is used twice (first at dup.gift.txt:2:1)"
    )


@pytest.mark.parametrize("case", sorted(p.stem.removesuffix(".gift") for p in READ_CASES.glob("*.gift.txt")))
def test_malformed_gift(case: str) -> None:
    source = READ_CASES / f"{case}.gift.txt"
    expected = (READ_CASES / f"{case}.err").read_text(encoding="utf-8").rstrip("\n")
    with pytest.raises(GiftSyntaxError) as info:
        _read(source.read_text(encoding="utf-8"), source.name)
    assert str(info.value) == expected


@pytest.mark.parametrize(
    "meta",
    [
        '{"points": "2"}',
        '{"points": -1}',
        '{"points": true}',
        '{"points": 1e999}',
        '{"tags": "a"}',
        '{"tags": [1]}',
        '{"case_sensitive": "yes"}',
        '{"answer": "x"}',
        '{"distractors": {"a": 1}}',
        "[1, 2]",
        '{"points": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}',
    ],
)
def test_hostile_question_metadata_is_ignored(meta: str) -> None:
    """Our `// lmsexport:` comments are untrusted input too (found by fuzzing: a crash on them)."""
    (q,) = _read(f"// [id:q]\n// lmsexport: {meta}\n::q::Q {{=a ~b}}\n")[0].questions
    assert isinstance(q.body, SingleChoice)
    assert (q.points, q.tags, q.body.choices[0].text) == (1.0, (), "a")


@pytest.mark.parametrize(
    "meta",
    ['{"difficulty": "madium"}', '{"id": "1 bad"}', '{"lang": 5}', '{"shuffle": "no"}', '{"title": ""}'],
)
def test_hostile_quiz_metadata_is_ignored(meta: str) -> None:
    quiz, _ = _read(f"// lmsexport-quiz: {meta}\n$CATEGORY: c\n\n::q::Q {{T}}\n")
    assert quiz.difficulty is None and quiz.shuffle is True and quiz.title


# -- assessments and rich metadata ----------------------------------------------------------

DIST = Path(__file__).resolve().parents[1] / "dist" / "gift"


def test_an_assessment_file_reads_as_its_questions_and_as_its_draws() -> None:
    from lmsexport.readers.gift import read_assessment

    text = (DIST / "final-exam.gift.txt").read_text(encoding="utf-8")
    quiz, warnings = read_quiz(text, "final-exam.gift.txt")
    assert warnings == []  # no "a quiz has one category" for an assessment's categories
    assert (quiz.id, quiz.lang, quiz.category) == ("final-exam", "ur", None)
    assessment, _ = read_assessment(text, "final-exam.gift.txt")
    assert [c.question for c in assessment.candidates] == list(quiz.questions)
    assert [(d.name, d.is_random, d.pick, d.points) for d in assessment.draws] == [
        ("zero", True, 3, 2.0),
        ("section1-draw2", False, None, 3.0),
        ("pipeline", True, 2, 2.0),
        ("tensor", True, 2, None),
    ]
    assert [len(d.candidates) for d in assessment.draws] == [9, 1, 5, 4]
    assert [s.shuffle for s in assessment.sections] == [False, True]


def test_a_quiz_file_is_not_an_assessment() -> None:
    from lmsexport.readers.gift import read_assessment

    text = (DIST / "zero-sharded-optimizers.gift.txt").read_text(encoding="utf-8")
    with pytest.raises(GiftSyntaxError) as info:
        read_assessment(text, "z.gift.txt")
    assert [d.rule for d in info.value.diagnostics] == ["gift.not-an-assessment"]


@pytest.mark.parametrize(
    "sections",
    [
        '"x"',
        '[{"draws": [{"name": "a", "category": "c", "random": true, "pick": null}], "shuffle": false}]',
        '[{"draws": [{"name": "a", "category": "c", "random": false, "pick": 2}], "shuffle": false}]',
        '[{"draws": [{"name": "1a", "category": "c", "random": false}], "shuffle": false}]',
        '[{"draws": [], "shuffle": "no"}]',
        '[{"draws": [{"name": "a", "category": "c", "random": true, "pick": true}], "shuffle": false}]',
    ],
)
def test_hostile_assessment_metadata_is_refused(sections: str) -> None:
    from lmsexport.readers.gift import read_assessment

    meta = f'{{"id": "e", "lang": "en", "sections": {sections}}}'
    text = f"// lmsexport-assessment: {meta}\n\n$CATEGORY: c\n\n::q::Q {{T}}\n"
    assert read_quiz(text, "e.gift.txt")[0].questions[0].body == TrueFalse(True)
    with pytest.raises(GiftSyntaxError):
        read_assessment(text, "e.gift.txt")


def test_question_difficulty_and_rich_description_come_from_metadata() -> None:
    from lmsexport.model import Difficulty, Para, Rich, Str, Strong

    text = (
        '// lmsexport-quiz: {"id": "q", "lang": "en", '
        '"description_html": "<p><strong>Bold</strong> text</p>"}\n'
        "$CATEGORY: c\n\n"
        '// lmsexport: {"difficulty": "hard"}\n::q::Q {T}\n'
    )
    quiz, _ = read_quiz(text, "q.gift.txt")
    assert quiz.description == Rich((Para((Strong((Str("Bold"),)), Str(" text"))),))
    assert quiz.questions[0].difficulty is Difficulty.HARD


def test_an_empty_choice_is_dropped_as_moodle_does_with_a_warning() -> None:
    # Moodle turns "=" into "~=" and splits on "~": "~=b" leaves an empty piece, which
    # saving the question drops. The reader reads what the author meant and says so.
    quiz, warnings = read_quiz("::q::Pick {~a ~=b ~c}\n", "e.gift.txt")
    (q,) = quiz.questions
    assert isinstance(q.body, SingleChoice)
    assert [(c.text, c.credit) for c in q.body.choices] == [("a", 0.0), ("b", 1.0), ("c", 0.0)]
    assert [(str(d.loc), d.severity, d.rule, d.message) for d in warnings] == [
        ("e.gift.txt:1:15", Severity.WARNING, "gift.empty-answer",
         "an empty choice ('~' right before '='): Moodle drops it"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "::q::The empty set \\{\\} costs \\$5. {=set()}\n",
        "::q::What is $\\frac\\{1\\}\\{2\\}$ as a decimal? {=0.5}\n",
        "::q::Grant is buried in ____ {=Grant's tomb}\n",
        "::q::Grant is {~buried =entombed ~living} in Grant's tomb.\n",
        "::a\\:b::Title with an escaped colon {T}\n",
        "::q:: A colon: here :: and there {T}\n",
        "::q::x_1 and \\\\frac {=1}\n",
    ],
)
def test_braces_and_titles_moodle_reads_as_written_raise_nothing(text: str) -> None:
    quiz, warnings = read_quiz(text, "fine.gift.txt")
    assert len(quiz.questions) == 1 and warnings == []


@pytest.mark.parametrize(
    ("text", "where", "rule"),
    [
        ("::q::a^{2} = 4, a? {=2}\n", "1:8", "gift.brace-in-tex"),
        ("::q::\\(\\sqrt {4}\\) {=2}\n", "1:14", "gift.brace-in-tex"),
        ("::q::Pick $x_{i}$ {=a}\n", "1:14", "gift.brace-in-tex"),
        ("::q::{=a} and {=b}\n", "1:15", "gift.extra-brace"),
        ("::q::{=a} then }\n", "1:16", "gift.extra-brace"),
        ("::q::Capital? {:MCV:~a~=b}\n", "1:15", "gift.cloze"),
    ],
)
def test_misread_braces_are_errors_at_the_brace(text: str, where: str, rule: str) -> None:
    with pytest.raises(GiftSyntaxError) as info:
        read_quiz(text, "m.gift.txt")
    (d,) = info.value.diagnostics
    assert (str(d.loc), d.rule) == (f"m.gift.txt:{where}", rule), d


@pytest.mark.parametrize("quick", [True, False])
@pytest.mark.parametrize(
    ("text", "tex"),
    [
        ("\\\\T{}", False),  # an escaped backslash: the stem is "\T", then an essay's block
        ("&&092;T{}", False),  # Moodle's placeholder for one, written out: the same to Moodle
        ("a \\\\\\\\LaTeX {}", False),
        ("\\\\\\T{}", True),  # an escaped backslash, then a command written as itself
        ("x \\T{}", True),
    ],
)
def test_a_tex_command_starts_with_a_backslash_the_file_writes_as_itself(
    text: str, tex: bool, quick: bool
) -> None:
    """Both ways of reading escapes (found by the property test of the quick one: the general
    way took an escaped backslash for the start of a command)."""
    try:
        read_gift(text, "t.gift", quick=quick)
    except GiftSyntaxError as e:
        assert tex and [d.rule for d in e.diagnostics] == ["gift.brace-in-tex"]
    else:
        assert not tex


@pytest.mark.parametrize("text", ["", "// only a comment\n", "$CATEGORY: a/b\n\n// c\n"])
def test_a_file_with_no_question_is_a_warning_and_no_quiz(text: str) -> None:
    quiz, diags = read_quiz_bytes(text.encode(), "none.gift.txt")
    assert quiz is None
    assert [(str(d.loc), d.severity, d.rule) for d in diags] == [
        ("none.gift.txt", Severity.WARNING, "gift.no-questions")
    ]
