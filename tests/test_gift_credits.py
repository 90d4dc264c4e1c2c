"""GIFT and issue 22 (credits, feedback, names, distractors): what the writer writes, as Moodle's
importer reads it (question/format/gift/format.php), and what the reader gives back.

Each writer test pins the GIFT a construct becomes; each reader test the model Moodle's own
reading of it stands for; property tests (hypothesis) send any bank of strategies.banks() with
every field of issue 22 through GIFT and back.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import banks
from test_import_roundtrip import _diff, _import

from lmsexport.build import build, gift_round_trip
from lmsexport.errors import GiftExportError, Severity
from lmsexport.gift import derived_name, has_wildcard, literal_answer, unescape_literal
from lmsexport.model import (
    Answer,
    Bank,
    Choice,
    Essay,
    Hint,
    Layout,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    Ordering,
    OrderingGrading,
    OutcomeFeedback,
    Pair,
    Para,
    Question,
    Quiz,
    ResponseFormat,
    Rich,
    ShortAnswer,
    SingleChoice,
    Str,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
)
from lmsexport.readers.gift import read_gift, read_quiz, read_quiz_bytes
from lmsexport.readers.moodle_import import import_gift
from lmsexport.writers import WriteContext
from lmsexport.writers.gift import write, write_quiz

ROOT = Path(__file__).resolve().parents[1]
MOODLE_FIXTURE = ROOT / "tests" / "corpus" / "import" / "moodle" / "gift" / "questions.gift.txt"


def _quiz(*questions: Question) -> Quiz:
    return Quiz(id="q", title="T", lang="en", questions=questions)


def _q(body, **kw: object) -> Question:  # type: ignore[no-untyped-def]
    return Question(id=str(kw.pop("id", "x")), stem=str(kw.pop("stem", "Stem")), body=body, **kw)  # type: ignore[arg-type]


def _block(question: Question) -> str:
    """The question's answer block as written (from its first '{' to the end)."""
    text, diags = write_quiz(_quiz(question))
    assert not [d for d in diags if d.severity is Severity.ERROR], [d.format() for d in diags]
    block = text.split("\n\n")[1].rstrip("\n")
    head = block.index("\n::")  # after the comment lines (a metadata comment holds braces)
    return block[block.index("{", head) :]


def _rules(question: Question) -> list[str]:
    return [d.rule for d in write_quiz(_quiz(question))[1]]


def _back(question: Question) -> Question:
    text, diags = write_quiz(_quiz(question))
    assert not [d for d in diags if d.severity is Severity.ERROR], [d.format() for d in diags]
    (back,) = read_quiz(text, "q.gift.txt")[0].questions
    return back


def _foreign(gift: str) -> tuple[Question, list[str]]:
    """One question of a GIFT file lmsexport did not write, and the rules of its warnings."""
    quiz, diags = read_quiz(gift, "f.gift.txt", lang="en")
    (q,) = quiz.questions
    return q, [d.rule for d in diags]


# -- choices ------------------------------------------------------------------------------


def test_single_choice_credits_are_weights() -> None:
    body = SingleChoice(
        (Choice("a", 1.0), Choice("b", 0.5), Choice("c", -1 / 3), Choice("d"), Choice("e", 1.0))
    )
    assert _block(_q(body)) == "{\n\t=a\n\t~%50%b\n\t~%-33.33333%c\n\t~d\n\t=e\n}"
    assert _back(_q(body)).body == body


def test_single_choice_without_full_credit_is_named_and_read_back() -> None:
    # Without an '=', readquestion() makes the question multi-answer: a loss, and the metadata
    # says it is single.
    body = SingleChoice((Choice("a", 0.5), Choice("b")))
    assert "gift.single-not-carried" in _rules(_q(body))
    assert "=" not in _block(_q(body)).replace("\\=", "")
    assert _back(_q(body)).body == body


def test_multiple_choice_own_credits() -> None:
    body = MultipleChoice((Choice("a", 1.0), Choice("b", -0.5), Choice("c"), Choice("d", -1.0)))
    assert not body.default_credits
    block = _block(_q(body))
    # Never '=' (single-answer to Moodle); 99.99999% is within the grade list's tolerance of 100%.
    assert block.split("\n")[1:-1] == ["\t~%99.99999%a", "\t~%-50%b", "\t~c", "\t~%-100%d"]
    assert _back(_q(body)).body == body


def test_multiple_choice_default_rule_reads_back_as_default() -> None:
    body = MultipleChoice((Choice("a", 0.5), Choice("b", 0.5), Choice("c", -1.0)))
    assert body.default_credits and _back(_q(body)).body == body


def test_a_credit_off_moodles_grade_list_is_an_error() -> None:
    with pytest.raises(GiftExportError) as info:
        write(
            Bank((_quiz(_q(SingleChoice((Choice("a", 1.0), Choice("b", 0.33))))),)), WriteContext(("gift",))
        )
    (d,) = info.value.diagnostics
    assert d.rule == "gift.bad-weight" and d.hint == "the nearest allowed grade is 33.33333%"


def test_foreign_weights_are_credits() -> None:
    q, rules = _foreign("Pick {~%50%a ~%50%b ~%-100%c ~d}")
    assert q.body == MultipleChoice((Choice("a", 0.5), Choice("b", 0.5), Choice("c", -1.0), Choice("d")))
    assert rules == []
    q, rules = _foreign("Pick {=a =b ~%25%c}")
    assert q.body == SingleChoice((Choice("a", 1.0), Choice("b", 1.0), Choice("c", 0.25)))
    assert rules == ["gift.several-full-credit"]
    q, rules = _foreign("Pick {~%50%a ~%25%b ~c}")
    assert rules == ["gift.credits-not-full"]


# -- true/false ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("truth", "ft", "ff", "block"),
    [
        (True, "yes", "no", "{TRUE#no#yes}"),
        (False, "yes", "no", "{FALSE#yes#no}"),
        (True, "yes", None, "{TRUE##yes}"),
        (True, None, "no", "{TRUE#no}"),
        (False, None, None, "{FALSE}"),
    ],
)
def test_true_false_feedback_wrong_then_right(
    truth: bool, ft: str | None, ff: str | None, block: str
) -> None:
    """`#wrong#right`: split_truefalse_comment() reads the first as the wrong answer's feedback."""
    body = TrueFalse(truth, feedback_true=ft, feedback_false=ff)
    assert _block(_q(body)) == block
    assert _back(_q(body)).body == body


def test_true_false_feedback_as_moodle_reads_it() -> None:
    # Moodle's fixture: {FALSE#42 is the Ultimate Answer.#You gave the right answer.}
    q, _ = _foreign("42 is the answer.{FALSE#It is the Ultimate Answer.#You gave the right answer.}")
    assert q.body == TrueFalse(False, "It is the Ultimate Answer.", "You gave the right answer.")
    q, _ = _foreign("1+1=2 {T#wrong#right####general}")
    assert q.body == TrueFalse(True, "right", "wrong") and q.explanation == "general"


# -- short answers ------------------------------------------------------------------------


def test_short_answer_graded_alternatives_and_any_other_answer() -> None:
    body = ShortAnswer(
        (Answer("Frog", feedback="Good!"), Answer("Cat", 0.5, "Cats?"), Answer("Dog", 0.0, "No.")),
        other_feedback="Completely wrong",
    )
    lines = _block(_q(body)).split("\n")
    assert lines[1].startswith("\t=Frog#") and lines[2].startswith("\t=%50%Cat#")
    assert lines[3].startswith("\t=%0%Dog#") and lines[4].startswith("\t=%0%*#")
    assert _back(_q(body)).body == body


@pytest.mark.parametrize(
    ("answer", "written"),
    [
        (Answer("a*b"), "=a\\\\*b"),  # literal: \* (backslash GIFT-escaped)
        (Answer("a*b", wildcard=True), "=a*b"),
        (Answer("back\\*slash"), "=back\\\\\\\\*slash"),  # a backslash before a literal *
        (Answer("*"), "=\\\\*"),
    ],
)
def test_short_answer_star(answer: Answer, written: str) -> None:
    body = ShortAnswer((answer,))
    assert _block(_q(body)).split("\n")[1] == "\t" + written
    assert _back(_q(body)).body == body


def test_wildcard_and_literal_star_functions() -> None:
    """compare_string_with_wildcard(): an unescaped run of * is a wildcard, \\* a literal *."""
    for text in ["a*b", "\\*", "a\\*b", "\\\\*", "*x*"]:
        stored = literal_answer(text)
        assert not has_wildcard(stored) and unescape_literal(stored) == text
    assert has_wildcard("a*b") and has_wildcard("\\\\*x*") and not has_wildcard("a\\*b")


def test_a_wildcard_after_a_backslash_cannot_be_written() -> None:
    with pytest.raises(GiftExportError) as info:
        write(Bank((_quiz(_q(ShortAnswer((Answer("a\\*b", wildcard=True),)))),)), WriteContext(("gift",)))
    assert [d.rule for d in info.value.diagnostics] == ["gift.unescapable"]


def test_foreign_short_answer() -> None:
    q, rules = _foreign("Animal? {=Frog#Good! =%50%Cat#Meh =%0%*#Completely wrong}")
    assert q.body == ShortAnswer(
        (Answer("Frog", feedback="Good!"), Answer("Cat", 0.5, "Meh")), other_feedback="Completely wrong"
    )
    q, _ = _foreign("Word? {=*manual* =\\\\*x}")  # GIFT \\\\* is Moodle's stored \\*: a literal *
    assert q.body == ShortAnswer((Answer("*manual*", wildcard=True), Answer("*x")))


def test_a_weight_like_answer_is_writable_after_a_weight() -> None:
    # answerweightparser() takes the first %w% only.
    body = ShortAnswer((Answer("x"), Answer("%50%half", 0.5)))
    assert "\t=%50%%50%half" in _block(_q(body))
    assert _back(_q(body)).body == body


# -- numerical ----------------------------------------------------------------------------


def test_numerical_keys_ranges_and_other_feedback() -> None:
    body = Numerical(
        (
            NumericKey(answer=12, tolerance=0.5, feedback="Yes"),
            NumericKey(answer=16, credit=0.5, feedback="Close"),
            NumericKey(answer=14, low=13, high=15, credit=0.25),
        ),
        other_feedback="No",
    )
    lines = [line.split("#")[0] for line in _block(_q(body)).split("\n")]
    assert lines == ["{", "\t=12:0.5", "\t=%50%16", "\t=%25%13..15", "\t~", "}"]
    assert _back(_q(body)).body == body


def test_foreign_numerical_best_below_full_is_a_warning() -> None:
    q, rules = _foreign("Year? {#=%50%1822:2#close ~#no}")
    assert q.body == Numerical((NumericKey(1822, 2, credit=0.5, feedback="close"),), other_feedback="no")
    assert rules == ["gift.no-full-credit"]


# -- matching -----------------------------------------------------------------------------


def test_matching_distractor_is_a_pair_with_an_empty_left_side() -> None:
    body = Matching((Pair("a", "1"), Pair("b", "2")), ("Chat", "x->y"))
    lines = _block(_q(body)).split("\n")
    assert lines[-3:] == ["\t= -> Chat", "\t= -> x->y", "}"]
    assert "gift.distractors-not-carried" not in _rules(_q(body))
    assert _back(_q(body)).body == body


def test_moodles_distractor_syntax_reads_as_a_distractor() -> None:
    q, _ = _foreign("Match {=a -> 1 =b -> 2 = -> Chat =[html] -> Forum}")
    assert q.body == Matching((Pair("a", "1"), Pair("b", "2")), ("Chat", "Forum"))


# -- names --------------------------------------------------------------------------------


def test_name_written_when_set_derived_otherwise() -> None:
    q = _q(Essay(), stem="Why: explain")
    text = write_quiz(_quiz(q))[0]
    assert "::Why\\: explain::" in text and _back(q).name is None
    named = replace(q, name="Essay 1: why")
    assert "::Essay 1\\: why::" in write_quiz(_quiz(named))[0]
    assert _back(named).name == "Essay 1: why"


def test_a_foreign_title_equal_to_the_derived_name_is_no_name() -> None:
    q, _ = _foreign("::What is 1+1?::What is 1+1? {=2}")
    assert q.name is None
    q, _ = _foreign("::Sum::What is 1+1? {=2}")
    assert q.name == "Sum"
    assert derived_name(q) == "What is 1+1?"


def test_a_name_with_a_tag_is_warned_about() -> None:
    assert "gift.name-cleaned" in _rules(replace(_q(Essay()), name="a <b>c</b>"))


# -- what GIFT has no syntax for ----------------------------------------------------------

RICH_HINT = Rich((Para((Str("Look at stage 3"),)),))


@pytest.mark.parametrize(
    ("question", "rule"),
    [
        (_q(Essay(), feedback=OutcomeFeedback(correct="Right")), "gift.combined-feedback-not-carried"),
        (_q(Essay(), feedback=OutcomeFeedback(show_num_correct=True)), "gift.combined-feedback-not-carried"),
        (_q(Essay(), hints=(Hint("Think", True, True), Hint(RICH_HINT))), "gift.hints-not-carried"),
        (_q(Essay(), penalty=0.5), "gift.penalty-not-carried"),
        (_q(TrueFalse(True), penalty=0.0), "gift.penalty-not-carried"),
        (
            _q(Numerical((NumericKey(5),), units=(Unit("GB"), Unit("MB", 1000.0)))),
            "gift.units-not-carried",
        ),
        (
            _q(Numerical((NumericKey(5),), unit_grading=UnitGrading.QUESTION, unit_input=UnitInput.SELECT)),
            "gift.units-not-carried",
        ),
        (
            _q(
                Essay(
                    ResponseFormat.MONOSPACED, False, 5, 10, 200, template="def f():", grader_info=RICH_HINT
                )
            ),
            "gift.essay-options-not-carried",
        ),
    ],
)
def test_what_gift_cannot_hold_is_named_once_and_kept_for_lmsexport(question: Question, rule: str) -> None:
    diags = write_quiz(_quiz(question))[1]
    assert [d.rule for d in diags if d.rule.endswith("-not-carried")] == [rule]
    (d,) = [d for d in diags if d.rule == rule]
    assert d.severity is Severity.WARNING and d.message.startswith("question 'x': ")
    assert _back(question) == question  # the metadata comment, which Moodle skips, carries it


def test_no_loss_is_named_for_what_is_not_set() -> None:
    for body in (Essay(), Numerical((NumericKey(5),)), TrueFalse(False), ShortAnswer((Answer("a"),))):
        assert not [r for r in _rules(_q(body)) if r.endswith("-not-carried")]


# -- Moodle's own fixture and other files -------------------------------------------------


def test_moodles_gift_fixture_reads_as_meant_and_round_trips() -> None:
    quiz, diags = read_quiz_bytes(MOODLE_FIXTURE.read_bytes(), "questions.gift.txt")
    assert quiz is not None
    assert [d.rule for d in diags] == ["gift.html-markup"]
    by_name = {q.name: q for q in quiz.questions}
    assert by_name["Moodle activities"].body == Matching(
        (
            Pair("An activity supporting asynchronous discussions.", "Forum"),
            Pair("A teacher asks a question and specifies a choice of multiple responses.", "Choice"),
            Pair("A bank of record entries which participants can add to.", "Database"),
            Pair("A collection of web pages that anyone can add to or edit.", "Wiki"),
        ),
        ("Chat",),
    )
    assert by_name["colours"].body.credits == (0.5, -1.0, 0.5, -1.0)  # type: ignore[union-attr]
    assert by_name["Shortanswer"].body == ShortAnswer(
        (Answer("Frog", feedback="Good!"), Answer("Cat", 0.5, "What is it with Moodlers and cats?")),
        other_feedback="Completely wrong",
    )
    assert by_name["Q5"].body == Numerical((NumericKey(3, 2),), other_feedback="Completely wrong")
    assert by_name["Q1"].body == TrueFalse(False, "42 is the Ultimate Answer.", "You gave the right answer.")
    bank = Bank((quiz,))
    assert gift_round_trip(bank, build(bank, ["gift"])) == []


def test_moodles_fixture_imports_with_nothing_lost() -> None:
    found = import_gift(MOODLE_FIXTURE.read_bytes(), "questions.gift.txt")
    assert not [d for d in found.diags if d.rule == "import.not-carried"], [d.format() for d in found.diags]
    (quiz,) = found.quizzes
    names = [dq.question.name for dq in quiz.questions]
    assert names == [
        "Q8",
        "Moodle activities",
        "Q2",
        "colours",
        "Q5",
        "Shortanswer",
        "Q1",
        "2-08 TSL",
        "2-08 TSL",
    ]


def test_an_ordering_question_is_read_as_moodles_plugin_takes_it() -> None:
    """qtype_ordering's import_from_gift() takes `{>N ...}` before the core types."""
    text = "::Moodle::[html]Put these words in order.{>2 ALL HORIZONTAL\nModular\nObject\n}\n\nOk {=x}"
    assert [i.qtype for i in read_gift(text, "o.gift.txt").items] == ["ordering", "shortanswer"]
    quiz, diags = read_quiz(text, "o.gift.txt")
    assert [q.stem for q in quiz.questions] == ["Put these words in order.", "Ok"]
    # set_options_for_import(): no grading word is RELATIVE_NEXT_EXCLUDE_LAST, no show word SHOW.
    assert quiz.questions[0].body == Ordering(
        items=("Modular", "Object"),
        grading=OrderingGrading.RELATIVE_NEXT_EXCLUDE_LAST,
        layout=Layout.HORIZONTAL,
    )
    assert diags == []
    found = import_gift(text.encode(), "o.gift.txt")
    assert found.skipped == [] and isinstance(found.quizzes[0].questions[0].question.body, Ordering)


# -- property tests -----------------------------------------------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banks(everything=True))
def test_any_bank_with_credits_feedback_and_names_survives_gift(bank: Bank) -> None:
    out = build(bank, ["gift"])
    assert gift_round_trip(bank, out) == []
    for quiz in bank.quizzes:
        text, diags = write_quiz(quiz)
        # Each loss is named once per question and element.
        named = [(d.rule, d.message.split("'")[1]) for d in diags if d.rule.endswith("-not-carried")]
        assert len(named) == len(set(named))
        assert read_quiz(text, f"{quiz.id}.gift.txt", quiz_id=quiz.id, lang=quiz.lang)[0] == quiz


# -- the bank of issue 22 -----------------------------------------------------------------

CREDITS = ROOT / "tests" / "cases" / "credits"


@pytest.fixture(scope="module")
def credits_bank() -> Bank:
    from lmsexport.source import load_paths

    return load_paths([CREDITS / "credits.yaml"])


def test_credits_bank_golden_and_round_trip(credits_bank: Bank, golden) -> None:  # type: ignore[no-untyped-def]
    out = build(credits_bank, ["gift"])
    (path,) = out.files
    golden(CREDITS / "expected" / path, out.files[path])
    assert gift_round_trip(credits_bank, out) == []


def test_credits_bank_losses_are_named_once_per_question_and_element(credits_bank: Bank) -> None:
    out = build(credits_bank, ["gift"])
    named = [(d.rule, d.message.split("'")[1]) for d in out.warnings if d.rule.endswith("-not-carried")]
    assert len(named) == len(set(named))
    by_question = {q.id: q for quiz in credits_bank.quizzes for q in quiz.questions}
    for rule, qid in named:
        q = by_question[qid]
        element = rule.removeprefix("gift.").removesuffix("-not-carried")
        set_in_source = {
            "points": q.points != 1,
            "case-sensitive": isinstance(q.body, ShortAnswer) and q.body.case_sensitive,
            "combined-feedback": bool(q.feedback),
            "hints": bool(q.hints),
            "penalty": q.penalty is not None,
            "units": isinstance(q.body, Numerical) and bool(q.body.units),
            "essay-options": isinstance(q.body, Essay) and q.body != Essay(),
        }
        assert set_in_source.get(element), (rule, qid)


def test_check_passes_moodles_gift_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    """`check` reads the fixture as Moodle does, builds every format and reads GIFT and Moodle XML
    back: nothing is lost on the way (the distractor `= -> Chat` included)."""
    from typer.testing import CliRunner

    from lmsexport.cli import app

    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(app, ["check", MOODLE_FIXTURE.relative_to(ROOT).as_posix()])
    assert result.exit_code == 0, result.output
    assert "round-trip" not in result.output and "read back" not in result.output


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(banks(everything=True))
def test_import_of_gift_is_the_bank_with_everything(bank: Bank) -> None:
    """`lmsexport import` of lmsexport's own GIFT, written to YAML and loaded again, is the bank."""
    back, _ = _import(build(bank, ["gift"]).files)
    theirs = {q.id: q for q in back.quizzes}
    for quiz in bank.quizzes:
        assert theirs[quiz.id] == quiz, _diff(quiz, theirs[quiz.id])
