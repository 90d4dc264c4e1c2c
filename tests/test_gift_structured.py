"""GIFT and issue 23's kinds: descriptions (a question without an answer block), a cloze of one
blank in GIFT's missing-word form, qtype_ordering's `{>N ...}` form, and a cloze of several
blanks left out with its loss named. Each expectation names the Moodle code it follows."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import banks, rich_banks_with_assessments

from lmsexport.build import build, gift_round_trip
from lmsexport.errors import GiftSyntaxError
from lmsexport.model import (
    Answer,
    Bank,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Code,
    Description,
    Gap,
    Layout,
    NumberBlank,
    Numbering,
    NumericKey,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    Para,
    Question,
    Quiz,
    Rich,
    SingleChoice,
    Str,
    TextBlank,
)
from lmsexport.readers.gift import read_gift, read_quiz
from lmsexport.readers.moodle_import import import_gift
from lmsexport.writers.gift import write_quiz


def _r(*inlines: object) -> Rich:
    return Rich((Para(tuple(inlines)),))  # type: ignore[arg-type]


def _quiz(*questions: Question, lang: str = "ur") -> Quiz:
    return Quiz(id="t", title="T", lang=lang, questions=questions)


def _round_trip(quiz: Quiz) -> tuple[str, Quiz, list[str]]:
    text, diags = write_quiz(quiz)
    back, _ = read_quiz(text, "t.gift.txt", quiz_id=quiz.id, lang=quiz.lang)
    return text, back, [d.rule for d in diags]


DESCRIPTION = Question(
    id="intro",
    stem=_r(Str("ZeRO-3 پیرامیٹرز کو بھی "), Code("dp"), Str(" رینکس میں بانٹتا ہے۔")),
    body=Description(),
    points=0.0,
    explanation="پہلے مرحلے 1 اور 2 دیکھیں۔",
)
CHOICE_CLOZE = Question(
    id="schedule",
    stem=_r(Str("ایکٹیویشن میموری محدود رکھنے والا شیڈول "), Gap(1), Str(" ہے۔")),
    body=Cloze(
        (
            ChoiceBlank(
                (Choice("1F1B", 1.0, feedback="درست"), Choice("GPipe", -0.5), Choice("ZeRO-3", 0.0)),
                display=ChoiceDisplay.DROPDOWN,
            ),
        )
    ),
)
ORDERING = Question(
    id="zero-order",
    stem="ZeRO کے مراحل کو اس ترتیب میں رکھیں جس میں وہ مزید حالت بانٹتے ہیں",
    body=Ordering(
        items=(
            "ZeRO-1: optimizer states",
            "ZeRO-2: + gradients {g} #4",
            _r(Str("ZeRO-3: + "), Code("params\\n")),
        ),
        grading=OrderingGrading.ABSOLUTE_POSITION,
        select=OrderingSelect.CONTIGUOUS,
        select_count=2,
        layout=Layout.HORIZONTAL,
        numbering=Numbering.ABC,
        show_grading=False,
    ),
    explanation="ZeRO-1 → 2 → 3",
)


def test_a_description_has_no_answer_block_and_its_explanation_is_named() -> None:
    text, back, rules = _round_trip(_quiz(DESCRIPTION))
    block = [line for line in text.split("\n\n")[-1].splitlines() if not line.startswith("//")]
    # readquestion(): no '{' and no '}' (comment lines are blanked first) makes a description.
    assert (
        len(block) == 1 and "{" not in block[0].replace("\\{", "") and "}" not in block[0].replace("\\}", "")
    )
    assert rules == ["gift.explanation-not-carried"]  # and no gift.points-not-carried for its 0 points
    assert back.questions == (DESCRIPTION,)


def test_a_cloze_of_one_choice_blank_is_a_missing_word_question() -> None:
    text, back, rules = _round_trip(_quiz(CHOICE_CLOZE))
    assert rules == ["gift.cloze-as-missing-word"]
    item = read_gift(text, "t.gift.txt").items[-1]
    # Text after '}' makes Moodle put '_____' where the block was (readquestion()).
    assert item.qtype == "multichoice" and item.single and item.missing_word
    assert "_____" in item.text.text and item.text.text.endswith("ہے۔</p></div>")
    assert back.questions == (CHOICE_CLOZE,)


def test_a_cloze_of_one_text_or_number_blank_is_a_missing_word_question() -> None:
    text_blank = Question(
        id="stage",
        stem=_r(Str("پیرامیٹرز بھی بانٹنے والا مرحلہ "), Gap(1), Str(" ہے۔")),
        body=Cloze((TextBlank((Answer("ZeRO-3"), Answer("ZeRO stage 3", 0.5)), weight=2),)),
    )
    number = Question(
        id="bubble",
        stem=_r(Str("p = 4, m = 12: bubble = "), Gap(1), Str(" (fraction).")),
        body=Cloze(
            (
                NumberBlank(
                    (NumericKey(answer=0.2, tolerance=0.005), NumericKey(low=0.1, high=0.3, credit=0.5))
                ),
            )
        ),
    )
    text, back, rules = _round_trip(_quiz(text_blank, number))
    assert rules == ["gift.cloze-as-missing-word", "gift.cloze-as-missing-word"]
    kinds = [i.qtype for i in read_gift(text, "t.gift.txt").items if i.missing_word]
    assert kinds == ["shortanswer", "numerical"]
    assert back.questions == (text_blank, number)


def test_a_cloze_of_several_blanks_is_left_out_and_named() -> None:
    two = Question(
        id="two",
        stem=_r(Gap(1), Str(" and "), Gap(2)),
        body=Cloze((TextBlank((Answer("a"),)), TextBlank((Answer("b"),)))),
    )
    text, back, rules = _round_trip(_quiz(two, DESCRIPTION))
    assert "gift.cloze-not-carried" in rules and "[id:two]" not in text
    assert [q.id for q in back.questions] == ["intro"]
    bank = Bank((_quiz(two, DESCRIPTION),))
    # check compares what the file holds: the left-out question is the writer's named loss.
    assert gift_round_trip(bank, build(bank, ["gift"])) == []


def test_an_ordering_is_qtype_orderings_gift_form() -> None:
    text, back, rules = _round_trip(_quiz(ORDERING))
    assert rules == []
    block = text.split("\n\n")[-1]
    # export_to_gift()'s words, then one item a line; the items escaped for import_from_gift(),
    # which never unescapes them: braces and '#' as character references, `\\` as GIFT's.
    assert "{>2 CONTIGUOUS HORIZONTAL ABSOLUTE_POSITION HIDE abc\n" in block
    assert "&#123;g&#125; &#35;4" in block and "params\\\\n" in block
    assert back.questions == (ORDERING,)


def test_longest_ordered_subset_is_written_as_a_grading_moodle_reads() -> None:
    """import_from_gift()'s pattern misspells LONGEST_ORDERED_SUBSET: never written."""
    q = Question(
        id="o", stem="s", body=Ordering(items=("a", "b", "c"), grading=OrderingGrading.LONGEST_ORDERED_SUBSET)
    )
    text, back, rules = _round_trip(_quiz(q, lang="en"))
    assert rules == ["gift.grading-not-carried"]
    assert "LONGEST_CONTIGUOUS_SUBSET" in text and "LONGEST_ORDERED_SUBSET" not in text.split("\n", 5)[-1]
    assert back.questions == (q,)


@pytest.mark.parametrize(("item", "written"), [("0", "&#48;"), ("//x", "&#47;/x")])
def test_an_item_is_never_a_line_moodle_takes_for_something_else(item: str, written: str) -> None:
    q = Question(id="o", stem="s", body=Ordering(items=("a", item)))
    text, back, _ = _round_trip(_quiz(q, lang="en"))
    assert f"\t{written}\n" in text
    assert back.questions == (q,)


def test_moodles_own_ordering_export_reads_as_moodle_imports_it() -> None:
    """question/type/ordering/tests/fixtures/testexport.gift.txt: `{>2     none`, no selection,
    layout, grading or show word: set_options_for_import() makes it RANDOM, VERTICAL,
    RELATIVE_NEXT_EXCLUDE_LAST, shown grading, and the attempt shows 2 of the 6 items."""
    text = (
        "// question: 123  name: Moodle\n// [id:myid]\n"
        "::Moodle::[html]Put these words in order.{>2     none\n"
        "Modular\nObject\nOriented\nDynamic\nLearning\nEnvironment\n}\n"
    )
    quiz, diags = read_quiz(text, "testexport.gift.txt")
    assert diags == []
    assert quiz.questions[0].body == Ordering(
        items=("Modular", "Object", "Oriented", "Dynamic", "Learning", "Environment"),
        grading=OrderingGrading.RELATIVE_NEXT_EXCLUDE_LAST,
        select=OrderingSelect.RANDOM,
        select_count=2,
    )
    found = import_gift(text.encode(), "testexport.gift.txt")
    assert isinstance(found.quizzes[0].questions[0].question.body, Ordering)


@pytest.mark.parametrize(
    ("block", "rule"),
    [
        ("{>3 ALL VERTICAL LONGEST_ORDERED_SUBSET SHOW\na\nb\nc\n}", "gift.ordering-words"),
        ("{>2 ALL\na\\: b\nc\n}", "gift.escape-in-ordering-item"),
        ("{>2 ALL\nonly\n}", "gift.too-few-items"),
    ],
)
def test_what_moodle_mangles_in_a_foreign_ordering_is_an_error(block: str, rule: str) -> None:
    with pytest.raises(GiftSyntaxError) as info:
        read_gift(f"::o::Order{block}\n", "o.gift.txt")
    assert [d.rule for d in info.value.diagnostics] == [rule]


def test_a_foreign_missing_word_question_is_what_moodle_imports() -> None:
    """Moodle makes `text {=a ~b} more` a multiple-choice question with `_____` in its text:
    read as that, not as a cloze (only lmsexport's own files say they were one)."""
    quiz, _ = read_quiz("Grant is {=entombed ~buried} in Grant's tomb.\n", "m.gift.txt")
    assert isinstance(quiz.questions[0].body, SingleChoice)
    assert quiz.questions[0].stem == "Grant is _____ in Grant's tomb."


def test_import_brings_back_descriptions_clozes_and_orderings() -> None:
    quiz = _quiz(DESCRIPTION, CHOICE_CLOZE, ORDERING)
    text, _ = write_quiz(quiz)
    found = import_gift(text.encode(), "t.gift.txt")
    assert found.skipped == []
    got = [d.question for d in found.quizzes[0].questions]
    assert [type(q.body) for q in got] == [Description, Cloze, Ordering]
    assert [(q.stem, q.body, q.points, q.explanation) for q in got] == [
        (q.stem, q.body, q.points, q.explanation) for q in quiz.questions
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banks(everything=True, structured=True))
def test_any_bank_of_every_kind_survives_gift(bank: Bank) -> None:
    """What GIFT carries reads back as the bank has it; what it cannot is named and left out."""
    out = build(bank, ["gift"])
    assert gift_round_trip(bank, out) == []
    for quiz in bank.quizzes:
        text, diags = write_quiz(quiz)
        named = [(d.rule, d.message.split("'")[1]) for d in diags if d.rule.endswith("-not-carried")]
        assert len(named) == len(set(named))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rich_banks_with_assessments(everything=True, structured=True))
def test_rich_banks_and_assessments_of_every_kind_survive_gift(bank: Bank) -> None:
    assert gift_round_trip(bank, build(bank, ["gift"])) == []


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banks(everything=True, structured=True))
def test_import_of_lmsexports_gift_gives_back_every_kind_it_carries(bank: Bank) -> None:
    """`lmsexport import` of the GIFT the writer wrote: each question GIFT carries comes back with
    its stem, body, points and explanation (the metadata restores what GIFT's syntax cannot)."""
    for quiz in bank.quizzes:
        text, _ = write_quiz(quiz)
        found = import_gift(text.encode(), f"{quiz.id}.gift.txt")
        got = [d.question for q in found.quizzes for d in q.questions]
        kept = [q for q in quiz.questions if not isinstance(q.body, Cloze) or len(q.body.blanks) == 1]
        assert [(q.stem, q.body, q.points, q.explanation) for q in got] == [
            (q.stem, q.body, q.points, q.explanation) for q in kept
        ]
