"""Issue 22's keys of the source format: what the loader reads into the model, what it warns
about, and what the YAML writer (`lmsexport import`) writes back, one feature at a time.

The refusals, with their exact messages and positions, are cases of tests/bad/yaml/; the round
trip over arbitrary quizzes is tests/test_source_writer.py's property test."""

from __future__ import annotations

import pytest

from lmsexport.errors import Diagnostic, SourceError
from lmsexport.model import (
    Answer,
    Essay,
    Hint,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    OutcomeFeedback,
    Question,
    Quiz,
    ResponseFormat,
    ShortAnswer,
    SingleChoice,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
)
from lmsexport.source import load_paths, load_text
from lmsexport.writers.source import write_quiz

HEADER = 'id: q\ntitle: "T"\nlang: en\nquestions:\n'


def _load(question: str, warnings: list[Diagnostic] | None = None) -> Question:
    quiz = load_text(HEADER + question, "t.yaml", warnings)
    assert isinstance(quiz, Quiz)
    return quiz.questions[0]


def _rules(question: str) -> list[str]:
    warnings: list[Diagnostic] = []
    _load(question, warnings)
    return [w.rule for w in warnings if w.rule != "source.missing-explanation"]


def _written(question: Question) -> str:
    text, lost = write_quiz(Quiz("q", "T", "en", (question,)))
    assert lost == []
    back = load_text(text, "w.yaml")
    assert isinstance(back, Quiz) and back.questions == (question,), text
    return text


# --------------------------------------------------------------------------- single, multiple


SINGLE = """  - id: a
    stem: "s"
    choices:
      - {text: "best", credit: 1}
      - {text: "also best", credit: "100%"}
      - {text: "half", credit: "50%", feedback: "f"}
      - {text: "a third", credit: 0.3333333}
      - {text: "costly", credit: "-33.33333%"}
      - {text: "nothing"}
"""


def test_single_choice_credits_exact_fractions_and_a_warning_for_two_full() -> None:
    warnings: list[Diagnostic] = []
    q = _load(SINGLE, warnings)
    assert isinstance(q.body, SingleChoice)
    assert q.body.credits == (1.0, 1.0, 0.5, 1 / 3, -1 / 3, 0.0)
    assert q.body.key_indexes == (0, 1)
    several = [w for w in warnings if w.rule == "source.several-full-credit"]
    assert [str(w.loc) for w in several] == ["t.yaml:7:5"]
    text = _written(q)
    assert 'credit: "33.33333%"' in text and 'credit: "-33.33333%"' in text and "correct" not in text


def test_single_choice_with_flags_is_written_as_today() -> None:
    q = _load('  - id: a\n    stem: "s"\n    choices:\n      - {text: "x", credit: 1}\n      - {text: "y"}\n')
    text = _written(q)
    assert "correct: true" in text and "credit" not in text


def test_single_choice_warns_when_no_choice_is_fully_right() -> None:
    q = '  - id: a\n    stem: "s"\n    choices:\n      - {text: "x", credit: 0.5}\n      - {text: "y"}\n'
    assert _rules(q) == ["source.no-full-credit"]


def test_a_correct_flag_and_credits_may_mix_on_a_single_question() -> None:
    q = (
        '  - id: a\n    stem: "s"\n    choices:\n'
        '      - {text: "x", correct: true}\n      - {text: "y", credit: 0.5}\n'
    )
    body = _load(q).body
    assert isinstance(body, SingleChoice) and body.credits == (1.0, 0.5)


def test_multiple_choice_explicit_credits() -> None:
    q = _load(
        """  - id: a
    type: multiple
    stem: "s"
    choices:
      - {text: "a", credit: 0.5}
      - {text: "b", credit: 0.5}
      - {text: "c", credit: -1}
      - {text: "d"}
"""
    )
    assert isinstance(q.body, MultipleChoice)
    assert q.body.credits == (0.5, 0.5, -1.0, 0.0) and not q.body.default_credits
    text = _written(q)
    assert "credit: -1" in text and "correct" not in text


def test_multiple_choice_credits_equal_to_the_default_rule_are_written_as_flags() -> None:
    q = _load(
        '  - id: a\n    type: multiple\n    stem: "s"\n    choices:\n'
        '      - {text: "a", credit: 1}\n      - {text: "b", credit: -1}\n'
    )
    assert isinstance(q.body, MultipleChoice) and q.body.default_credits
    assert "correct: true" in _written(q)


@pytest.mark.parametrize(("credits", "rules"), [("0.5, 0.25", ["source.credit-sum"]), ("0.5, 0.5", [])])
def test_multiple_choice_credits_that_do_not_add_up_to_one_are_warned_about(
    credits: str, rules: list[str]
) -> None:
    a, b = credits.split(", ")
    q = (
        f'  - id: a\n    type: multiple\n    stem: "s"\n    choices:\n'
        f'      - {{text: "a", credit: {a}}}\n      - {{text: "b", credit: {b}}}\n      - {{text: "c"}}\n'
    )
    assert _rules(q) == rules


# --------------------------------------------------------------------------- true/false, short answer


def test_true_false_feedback() -> None:
    q = _load(
        '  - id: a\n    type: true_false\n    stem: "s"\n    answer: false\n'
        '    feedback_true: "no"\n    feedback_false: "yes"\n'
    )
    assert q.body == TrueFalse(False, "no", "yes")
    _written(q)


def test_short_answer_graded_answers_wildcards_and_other_feedback() -> None:
    q = _load(
        """  - id: a
    type: short_answer
    stem: "s"
    answers:
      - "FSDP"
      - {text: "FullyShardedDataParallel", feedback: "the long name"}
      - {text: "ZeRO*3", credit: 0.5, wildcard: true}
      - {text: "a*b", credit: 0}
    other_feedback: "other"
    case_sensitive: true
"""
    )
    assert q.body == ShortAnswer(
        (
            Answer("FSDP"),
            Answer("FullyShardedDataParallel", 1.0, "the long name"),
            Answer("ZeRO*3", 0.5, None, True),
            Answer("a*b", 0.0),
        ),
        True,
        "other",
    )
    text = _written(q)
    assert '- "FSDP"\n' in text and "wildcard: true" in text and 'other_feedback: "other"' in text


def test_a_wildcard_answer_without_a_star_is_warned_about_and_literal() -> None:
    q = '  - id: a\n    type: short_answer\n    stem: "s"\n    answers: [{text: "x", wildcard: true}]\n'
    assert _rules(q) == ["source.wildcard-without-star"]
    body = _load(q).body
    assert isinstance(body, ShortAnswer) and body.answers == (Answer("x"),)


def test_plain_short_answers_are_written_as_today() -> None:
    q = _load('  - id: a\n    type: short_answer\n    stem: "s"\n    answers: ["x", "y"]\n')
    assert '    answers:\n    - "x"\n    - "y"\n' in _written(q)


# --------------------------------------------------------------------------- numerical


NUMERICAL = """  - id: a
    type: numerical
    stem: "s"
    answers:
      - {answer: 1.875, tolerance: 0.03, feedback: "right"}
      - {answer: 1.40625, range: [1.39, 1.42], credit: 0.5}
      - {range: [16, 17], credit: 0, feedback: "ZeRO-2"}
    units:
      - {unit: GB}
      - {unit: MB, multiplier: 1000}
    unit_grading: response
    unit_penalty: 0.2
    unit_input: select
    units_left: true
    other_feedback: "other"
"""


def test_numerical_keys_and_units() -> None:
    q = _load(NUMERICAL)
    assert q.body == Numerical(
        keys=(
            NumericKey(answer=1.875, tolerance=0.03, feedback="right"),
            NumericKey(answer=1.40625, low=1.39, high=1.42, credit=0.5),
            NumericKey(low=16, high=17, credit=0.0, feedback="ZeRO-2"),
        ),
        units=(Unit("GB"), Unit("MB", 1000)),
        unit_grading=UnitGrading.RESPONSE,
        unit_penalty=0.2,
        unit_input=UnitInput.SELECT,
        units_left=True,
        other_feedback="other",
    )
    assert [k.loc.line for k in q.body.keys if k.loc] == [9, 10, 11]
    _written(q)


def test_one_full_credit_key_is_written_as_today() -> None:
    q = _load('  - id: a\n    type: numerical\n    stem: "s"\n    answers: [{answer: 12, tolerance: 0.5}]\n')
    text = _written(q)
    assert "    answer: 12\n    tolerance: 0.5\n" in text and "answers" not in text


def test_numerical_whose_best_key_is_below_full_credit_is_warned_about() -> None:
    q = '  - id: a\n    type: numerical\n    stem: "s"\n    answers: [{answer: 12, credit: 0.5}]\n'
    assert _rules(q) == ["source.no-full-credit"]


# --------------------------------------------------------------------------- matching, essay, header


def test_essay_options() -> None:
    q = _load(
        """  - id: a
    type: essay
    stem: "s"
    response_format: monospaced
    response_required: false
    response_lines: 5
    min_words: 10
    max_words: 100
    template: "t"
    grader_info: "g"
"""
    )
    assert q.body == Essay(ResponseFormat.MONOSPACED, False, 5, 10, 100, "t", "g")
    _written(q)


def test_essay_defaults_are_not_written() -> None:
    q = _load(
        '  - id: a\n    type: essay\n    stem: "s"\n    response_format: editor\n    response_lines: 15\n'
    )
    assert q.body == Essay()
    text = _written(q)
    assert "response" not in text


def test_header_name_feedback_hints_penalty() -> None:
    q = _load(
        """  - id: a
    type: matching
    name: "Stages"
    stem: "s"
    penalty: 0.25
    pairs: [{left: "1", right: "a"}, {left: "2", right: "b"}]
    distractors: ["c"]
    feedback: {correct: "c", partial: "p", incorrect: "i", show_num_correct: true}
    hints:
      - "first"
      - {text: "second", show_num_correct: true, clear_wrong: true}
"""
    )
    assert isinstance(q.body, Matching)
    assert (q.name, q.penalty) == ("Stages", 0.25)
    assert q.feedback == OutcomeFeedback("c", "p", "i", True)
    assert q.hints == (Hint("first"), Hint("second", True, True))
    _written(q)


def test_a_name_equal_to_the_derived_one_says_nothing_and_a_set_penalty_stays() -> None:
    # An essay's default penalty in Moodle is 0, a true/false's 1: a penalty of 1/3 that is
    # written is the author's, and stays (a real essay export with 0.3333333 keeps it).
    q = _load(
        '  - id: a\n    type: essay\n    name: "The stem"\n    stem: "The stem"\n    penalty: 0.3333333\n'
    )
    assert (q.name, q.penalty) == (None, 1 / 3)


def test_a_line_break_in_a_name_is_refused() -> None:
    with pytest.raises(SourceError) as e:
        _load('  - id: a\n    type: essay\n    name: "a\\nb"\n    stem: "s"\n')
    assert [d.rule for d in e.value.diagnostics] == ["source.bad-name"]


def test_the_credits_bank_round_trips_and_uses_every_feature() -> None:
    (quiz,) = load_paths(["tests/cases/credits"]).quizzes
    text, lost = write_quiz(quiz)
    assert lost == [] and load_text(text, "w.yaml") == quiz
    bodies = [q.body for q in quiz.questions]
    single = next(b for b in bodies if isinstance(b, SingleChoice))
    assert (
        len(single.key_indexes) == 2 and min(single.credits) < 0 < min(c for c in single.credits if c > 0) < 1
    )
    multiple = next(b for b in bodies if isinstance(b, MultipleChoice))
    assert not multiple.default_credits and min(multiple.credits) < 0
    short = next(b for b in bodies if isinstance(b, ShortAnswer))
    assert short.case_sensitive and short.other_feedback and any(a.wildcard for a in short.answers)
    assert any(0 < a.credit < 1 for a in short.answers) and any(a.feedback for a in short.answers)
    numericals = [b for b in bodies if isinstance(b, Numerical)]
    assert any(k.low is not None for b in numericals for k in b.keys)
    assert any(0 < k.credit < 1 for b in numericals for k in b.keys)
    assert {b.unit_grading for b in numericals} >= {UnitGrading.RESPONSE, UnitGrading.QUESTION}
    assert any(b.units_left for b in numericals) and all(b.other_feedback for b in numericals)
    assert any(len(b.units) == 3 for b in numericals)
    tf = next(b for b in bodies if isinstance(b, TrueFalse))
    assert tf.feedback_true and tf.feedback_false
    assert any(isinstance(b, Matching) and b.distractors for b in bodies)
    essay = next(b for b in bodies if isinstance(b, Essay))
    assert essay.template and essay.grader_info and essay.min_words and essay.max_words
    assert essay.response_format is ResponseFormat.PLAIN and essay.lines != 15
    assert all(q.name for q in quiz.questions)
    assert any(q.feedback.partial and q.feedback.show_num_correct for q in quiz.questions)
    hints = [h for q in quiz.questions for h in q.hints]
    assert any(h.show_num_correct for h in hints) and any(h.clear_wrong for h in hints)
    assert any(q.penalty for q in quiz.questions)
    assert {q.lang for q in quiz.questions} == {None, "en"} and quiz.lang == "ur"
