"""lmsexport.scoring: the reference scoring of cloze and ordering responses, checked against the
expectations of Moodle's own tests (question/type/ordering/tests/question_test.php) and against
hand-worked cases of the Moodle code each rule transcribes."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmsexport.model import (
    Answer,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    NumberBlank,
    NumericKey,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    Para,
    Rich,
    Str,
    TextBlank,
)
from lmsexport.scoring import (
    blank_credit,
    blank_min_credit,
    cloze_credit,
    cloze_min_credit,
    draw_shown,
    number_credit,
    ordering_credit,
    parse_number,
    shown_sets,
    text_credit,
)


def _item(text: str) -> Rich:
    return Rich((Para((Str(text),)),))


# Moodle's test question: CORRECTORDER = Modular Object Oriented Dynamic Learning Environment.
WORDS = ["Modular", "Object", "Oriented", "Dynamic", "Learning", "Environment"]
MOODLE = Ordering(items=tuple(_item(w) for w in WORDS))


def _moodle(grading: OrderingGrading, order: list[str]) -> float:
    body = dataclasses.replace(MOODLE, grading=grading)
    return ordering_credit(body, range(6), [WORDS.index(w) for w in order])


RIGHT = WORDS
REVERSE = list(reversed(WORDS))
# The partial orders Moodle's question_test.php grades.
ENV_FIRST = ["Environment", "Object", "Oriented", "Dynamic", "Learning", "Modular"]
ORIENTED_FIRST = ["Oriented", "Object", "Dynamic", "Learning", "Environment", "Modular"]
MODULAR_LAST = ["Object", "Oriented", "Dynamic", "Learning", "Environment", "Modular"]


@pytest.mark.parametrize("grading", list(OrderingGrading))
def test_right_order_is_full_credit(grading: OrderingGrading) -> None:
    assert _moodle(grading, RIGHT) == 1.0


G = OrderingGrading


@pytest.mark.parametrize(
    ("grading", "order", "low", "high"),
    [
        (G.ALL_OR_NOTHING, REVERSE, 0.0, 0.0),
        (G.ALL_OR_NOTHING, ORIENTED_FIRST, 0.0, 0.0),
        (G.ABSOLUTE_POSITION, REVERSE, 0.0, 0.0),
        (G.ABSOLUTE_POSITION, ENV_FIRST, 0.66, 0.67),
        (G.ABSOLUTE_POSITION, ORIENTED_FIRST, 0.16, 0.17),
        (G.RELATIVE_NEXT_EXCLUDE_LAST, REVERSE, 0.0, 0.0),
        (G.RELATIVE_NEXT_EXCLUDE_LAST, ENV_FIRST, 0.6, 0.6),
        (G.RELATIVE_NEXT_EXCLUDE_LAST, ORIENTED_FIRST, 0.4, 0.4),
        (G.RELATIVE_NEXT_INCLUDE_LAST, REVERSE, 0.0, 0.0),
        (G.RELATIVE_NEXT_INCLUDE_LAST, ENV_FIRST, 0.5, 0.5),
        (G.RELATIVE_ONE_PREVIOUS_AND_NEXT, REVERSE, 0.0, 0.0),
        (G.RELATIVE_ONE_PREVIOUS_AND_NEXT, ORIENTED_FIRST, 0.33, 0.34),
        (G.RELATIVE_ALL_PREVIOUS_AND_NEXT, REVERSE, 0.0, 0.0),
        (G.RELATIVE_ALL_PREVIOUS_AND_NEXT, ORIENTED_FIRST, 0.6, 0.6),
        (G.RELATIVE_ALL_PREVIOUS_AND_NEXT, MODULAR_LAST, 0.6, 0.7),
        (G.LONGEST_ORDERED_SUBSET, REVERSE, 0.0, 0.0),
        (G.LONGEST_ORDERED_SUBSET, MODULAR_LAST, 0.8, 0.84),
        (G.LONGEST_CONTIGUOUS_SUBSET, REVERSE, 0.0, 0.0),
        (G.LONGEST_CONTIGUOUS_SUBSET, MODULAR_LAST, 0.8, 0.84),
        (G.RELATIVE_TO_CORRECT, REVERSE, 0.4, 0.4),
        (G.RELATIVE_TO_CORRECT, MODULAR_LAST, 0.6, 0.7),
    ],
)
def test_moodle_question_test_expectations(
    grading: OrderingGrading, order: list[str], low: float, high: float
) -> None:
    """The bounds Moodle's own question_test.php asserts for each grading."""
    assert low - 1e-12 <= _moodle(grading, order) <= high + 1e-12


@pytest.mark.parametrize(
    ("grading", "expected"),
    [
        # positions [1, 0, 2, 3, 5, 4] of six items, worked through question.php by hand
        (G.ALL_OR_NOTHING, 0.0),
        (G.ABSOLUTE_POSITION, 2 / 6),  # items 3 and 4 in place
        (G.RELATIVE_NEXT_EXCLUDE_LAST, 1 / 5),  # only 3 -> 4 kept
        (G.RELATIVE_NEXT_INCLUDE_LAST, 1 / 6),  # 6 is not last, so no more
        (G.RELATIVE_ONE_PREVIOUS_AND_NEXT, 2 / 12),  # 3's next, 4's previous
        (G.RELATIVE_ALL_PREVIOUS_AND_NEXT, 26 / 30),
        (G.LONGEST_ORDERED_SUBSET, 4 / 6),  # 1 3 4 5 (or 2 3 4 6)
        (G.LONGEST_CONTIGUOUS_SUBSET, 4 / 6),  # values 1 2 3 4 in order, not adjacent: Moodle's rule
        (G.RELATIVE_TO_CORRECT, 26 / 30),  # four items one off: 4 x 4 + 2 x 5
    ],
)
def test_hand_worked_swaps(grading: OrderingGrading, expected: float) -> None:
    body = Ordering(items=tuple(_item(str(i)) for i in range(6)), grading=grading)
    assert ordering_credit(body, range(6), [1, 0, 2, 3, 5, 4]) == pytest.approx(expected)


def test_longest_subset_of_one_item_counts_as_none() -> None:
    """get_ordered_subset() starts bestcount at 1: a lone item in order is no subset."""
    body = Ordering(items=(_item("a"), _item("b")), grading=G.LONGEST_ORDERED_SUBSET)
    assert ordering_credit(body, [0, 1], [1, 0]) == 0.0
    contiguous = dataclasses.replace(body, grading=G.LONGEST_CONTIGUOUS_SUBSET)
    assert ordering_credit(contiguous, [0, 1], [1, 0]) == 0.0


def test_relative_next_include_last_counts_the_last_item_in_place() -> None:
    body = Ordering(items=tuple(_item(c) for c in "abc"), grading=G.RELATIVE_NEXT_INCLUDE_LAST)
    # b a c: a -> c is wrong (a -> b), b -> a wrong, c last is right: 1/3
    assert ordering_credit(body, [0, 1, 2], [1, 0, 2]) == pytest.approx(1 / 3)
    exclude = dataclasses.replace(body, grading=G.RELATIVE_NEXT_EXCLUDE_LAST)
    assert ordering_credit(exclude, [0, 1, 2], [1, 0, 2]) == 0.0


def test_subset_is_graded_on_its_own() -> None:
    """The shown items, in right order, are the correct response (start_attempt())."""
    body = Ordering(
        items=tuple(_item(c) for c in "abcde"),
        grading=G.ABSOLUTE_POSITION,
        select=OrderingSelect.RANDOM,
        select_count=3,
    )
    assert ordering_credit(body, [0, 2, 4], [0, 2, 4]) == 1.0
    assert ordering_credit(body, [0, 2, 4], [2, 0, 4]) == pytest.approx(1 / 3)


def test_shown_sets_and_draws() -> None:
    items = tuple(_item(c) for c in "abcde")
    assert list(shown_sets(Ordering(items=items))) == [(0, 1, 2, 3, 4)]
    contiguous = Ordering(items=items, select=OrderingSelect.CONTIGUOUS, select_count=3)
    assert list(shown_sets(contiguous)) == [(0, 1, 2), (1, 2, 3), (2, 3, 4)]
    rnd = Ordering(items=items, select=OrderingSelect.RANDOM, select_count=2)
    assert list(shown_sets(rnd)) == list(itertools.combinations(range(5), 2))
    rng = random.Random(7)
    for _ in range(50):
        assert draw_shown(contiguous, rng) in set(shown_sets(contiguous))
        assert draw_shown(rnd, rng) in set(shown_sets(rnd))


def test_ordering_rejects_responses_that_are_no_order_of_the_shown_items() -> None:
    body = Ordering(items=tuple(_item(c) for c in "abc"))
    with pytest.raises(ValueError, match="not an order"):
        ordering_credit(body, [0, 1, 2], [0, 1])
    with pytest.raises(ValueError, match="increasing"):
        ordering_credit(body, [2, 1], [1, 2])


@given(st.integers(2, 7), st.sampled_from(list(OrderingGrading)), st.randoms(use_true_random=False))
def test_ordering_credit_is_a_share(n: int, grading: OrderingGrading, rng: random.Random) -> None:
    body = Ordering(items=tuple(_item(str(i)) for i in range(n)), grading=grading)
    response = list(range(n))
    rng.shuffle(response)
    credit = ordering_credit(body, range(n), response)
    assert 0.0 <= credit <= 1.0
    if grading is G.ALL_OR_NOTHING:
        assert credit == (1.0 if response == list(range(n)) else 0.0)
    if response != list(range(n)):
        assert credit < 1.0


# ------------------------------------------------------------------------------------ text


def test_text_first_match_counts_and_case() -> None:
    answers = (Answer("ZeRO-3"), Answer("zero*", credit=0.5, wildcard=True), Answer("ZeRO-3", credit=0.2))
    assert text_credit(answers, False, "  zero-3 \n") == (1.0, answers[0])
    assert text_credit(answers, True, "zero-3") == (0.5, answers[1])
    assert text_credit(answers, True, "ZERO-3")[0] == 0.0
    assert text_credit(answers, False, "ZERO stage 3") == (0.5, answers[1])
    assert text_credit(answers, False, "") == (0.0, None)


def test_text_literal_star_and_escaped_star() -> None:
    literal = (Answer("a*b"),)
    assert text_credit(literal, True, "a*b")[0] == 1.0
    assert text_credit(literal, True, "axxb")[0] == 0.0
    wild = (Answer("a\\*b*", wildcard=True),)
    assert text_credit(wild, True, "a*bcd")[0] == 1.0
    assert text_credit(wild, True, "axbcd")[0] == 0.0


def test_text_nfc_and_php_trim_only() -> None:
    # "é" typed as e + combining acute matches the precomposed answer (safe_normalize()).
    assert text_credit((Answer("caf\u00e9"),), True, "cafe\u0301")[0] == 1.0
    # PHP's trim() does not strip a no-break space.
    assert text_credit((Answer("x"),), True, "\u00a0x")[0] == 0.0
    # a wildcard never spans a line break (PCRE's `.`)
    assert text_credit((Answer("a*b", wildcard=True),), True, "a\nb")[0] == 0.0


def test_text_urdu_answer() -> None:
    answers = (Answer("پائپ لائن"),)
    assert text_credit(answers, False, " پائپ لائن ")[0] == 1.0


# ---------------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("1,5", 1.5),
        ("1.5", 1.5),
        ("1.234,5", 1.2345),
        ("2,456,789", 2456789.0),
        ("1 000", 1000.0),
        ("1e3", 1000.0),
        ("1E-3", 0.001),
        ("1x10^3", 1000.0),
        ("2*10**2", 200.0),
        ("3×10^2", 300.0),
        (".5", 0.5),
        ("+7", 7.0),
        ("-0.25", -0.25),
        ("12 kg", 12.0),
        ("abc", None),
        ("", None),
        ("۱۲", None),  # Urdu digits: PCRE's \d without /u is ASCII
    ],
)
def test_parse_number_as_apply_units(typed: str, value: float | None) -> None:
    assert parse_number(typed) == value


def test_number_keys_first_match_and_boundaries() -> None:
    keys = (
        NumericKey(answer=0.2, tolerance=0.005),
        NumericKey(low=0.1, high=0.3, credit=0.5),
    )
    assert number_credit(keys, 0.195) == (1.0, keys[0])
    assert number_credit(keys, 0.205) == (1.0, keys[0])
    assert number_credit(keys, 0.25) == (0.5, keys[1])
    assert number_credit(keys, 0.3) == (0.5, keys[1])
    assert number_credit(keys, 0.31) == (0.0, None)
    assert number_credit(keys, float("nan")) == (0.0, None)


def test_number_blank_reads_commas() -> None:
    blank = NumberBlank(keys=(NumericKey(answer=1.5),))
    assert blank_credit(blank, "1,5") == 1.0
    assert blank_credit(blank, "1.5 GB") == 1.0
    assert blank_credit(blank, "x") == 0.0
    assert blank_credit(blank, "   ") == 0.0


# ---------------------------------------------------------------------------------- choices


def _choice(text: str, credit: float) -> Choice:
    return Choice(text=text, credit=credit)


def test_single_choice_blank_keeps_negative_credit() -> None:
    blank = ChoiceBlank(choices=(_choice("1F1B", 1.0), _choice("GPipe", -0.5)))
    assert blank_credit(blank, 0) == 1.0
    assert blank_credit(blank, 1) == -0.5
    assert blank_credit(blank, None) == 0.0
    assert blank_min_credit(blank) == -0.5


def test_multiple_choice_blank_is_clamped() -> None:
    blank = ChoiceBlank(
        choices=(_choice("a", 0.5), _choice("b", 0.5), _choice("c", -1.0)),
        display=ChoiceDisplay.VERTICAL,
        multiple=True,
    )
    assert blank_credit(blank, frozenset({0, 1})) == 1.0
    assert blank_credit(blank, frozenset({0, 2})) == 0.0
    assert blank_credit(blank, frozenset()) == 0.0
    assert blank_min_credit(blank) == 0.0


def test_wrong_response_kinds_raise() -> None:
    single = ChoiceBlank(choices=(_choice("a", 1.0), _choice("b", 0.0)))
    with pytest.raises(TypeError):
        blank_credit(single, "a")
    with pytest.raises(TypeError):
        blank_credit(single, True)
    with pytest.raises(IndexError):
        blank_credit(single, 2)
    with pytest.raises(TypeError):
        blank_credit(TextBlank(answers=(Answer("a"),)), 0)


# ------------------------------------------------------------------------------------ cloze

CLOZE = Cloze(
    blanks=(
        NumberBlank(keys=(NumericKey(answer=0.2, tolerance=0.005),), weight=1),
        ChoiceBlank(choices=(_choice("1F1B", 1.0), _choice("GPipe", -1.0))),
        TextBlank(answers=(Answer("ZeRO-3"), Answer("ZeRO stage 3", credit=0.5)), weight=2),
    )
)


def test_cloze_weighted_mean() -> None:
    assert cloze_credit(CLOZE, ["0.2", 0, "zero-3"]) == 1.0
    assert cloze_credit(CLOZE, ["0,2", 0, "ZeRO stage 3"]) == pytest.approx((1 + 1 + 2 * 0.5) / 4)
    assert cloze_credit(CLOZE, [None, None, None]) == 0.0
    assert cloze_credit(CLOZE, ["9", 0, None]) == pytest.approx(1 / 4)


def test_cloze_is_not_clamped() -> None:
    """qtype_multianswer_question::grade_response() adds weighted fractions and clamps nothing."""
    assert cloze_credit(CLOZE, [None, 1, None]) == pytest.approx(-1 / 4)
    assert cloze_min_credit(CLOZE) == pytest.approx(-1 / 4)


def test_cloze_needs_one_response_per_blank() -> None:
    with pytest.raises(ValueError, match="3 blanks"):
        cloze_credit(CLOZE, ["0.2"])
