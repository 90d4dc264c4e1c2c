"""The reference scoring of cloze and ordering responses: what each response earns, as Moodle's
own question types grade it. Every format's tests compare against these functions (the QTI 2.1
engine's SCORE, the HTML page's marks); they know no format.

A credit is a fraction of the question's points. Each rule below names the Moodle code it
follows (moodle/moodle):

* Text blanks (`text_credit`): qtype_shortanswer_question::compare_string_with_wildcard()
  (question/type/shortanswer/question.php) with question_first_matching_answer_grading_strategy:
  the answers are tried in order and the first that matches earns its credit. The response and
  the answer are NFC-normalised (safe_normalize()); the response is trimmed of PHP trim()'s
  characters (space, tab, line feed, carriage return, NUL, vertical tab) and must match the
  whole answer; case-insensitively unless `case_sensitive` (PCRE's /iu: simple Unicode case
  folding, which Python's re.IGNORECASE also does). In a wildcard answer each run of `*` not
  preceded by a backslash matches any run of characters except a line break (PCRE's `.`), and
  `\\*` is a literal star; an answer that is not a wildcard answer is matched literally (the
  writers escape its stars). An empty response is not gradable (is_gradable_response()) and
  earns 0, even against a `*` answer.
* Number blanks (`parse_number`, `number_credit`): qtype_numerical_answer_processor::apply_units()
  (question/type/numerical/questiontype.php): spaces are removed; `e`, `E`, `x10^`, `*10^`,
  `×10^` and `x10**` (etc.) introduce an exponent; when the response holds a `.` or more than
  one `,`, commas are thousands separators and are dropped, otherwise a single `,` is the
  decimal point ("1,5" is 1.5, "1.234,5" is 1.2345, "2,456,789" is 2456789); then the longest
  prefix `[+-]?(\\d+(\\.\\d*)?|\\.\\d+)(e[-+]?\\d+)?` is the number (ASCII digits only) and what
  follows it is a unit. A cloze's number blank has no units and unitgradingtype 0
  (qtype_numerical::save_unit_options(), qtype_multianswer_extract_question() gives it
  `units = []`), so apply_unit_penalty() takes nothing off and "12 kg" scores as 12. A response
  with no number prefix matches no key (0). The first key whose interval holds the value earns
  its credit (qtype_numerical_question::get_matching_answer()); the interval is
  qtype_numerical_answer::get_tolerance_interval()'s nominal one, widened by
  10^-14 * max(1, |answer|) (PHP's default `precision` of 14, MDL-3225), so a boundary value
  typed exactly is never rejected by float rounding. A range key [low, high] is Moodle's
  answer (low + high) / 2 with tolerance (high - low) / 2, as the writers store it.
* Choice blanks (`blank_credit`): a single pick earns its choice's credit, negative credits
  included (qtype_multichoice_single_question::grade_response() does not clamp);
  with `multiple`, the picks' credits add up and the sum is clamped to [0, 1]
  (qtype_multichoice_multi_question::grade_response()). No pick is not gradable: 0.
* Cloze (`cloze_credit`): qtype_multianswer_question::grade_response()
  (question/type/multianswer/question.php) adds each gradable blank's fraction times its
  weight (the subquestion's defaultmark) and divides by the sum of every blank's weight,
  unanswered blanks counting 0. It clamps nothing: a negative choice credit can make the
  question's credit negative, down to get_min_fraction(), the weighted mean of the blanks'
  lowest credits (the behaviours never go below it), exactly as a single choice question with
  a negative credit.
* Ordering (`ordering_credit`): qtype_ordering_question::grade_response()
  (question/type/ordering/question.php), each of its nine gradings transcribed below with the
  helpers it calls (get_next_answerids(), get_previous_and_next_answerids(),
  get_ordered_subset()). An attempt shows a subset of the items (start_attempt(): every item;
  `select_count` items drawn at random and kept in their right order (array_rand); or
  `select_count` adjacent items from a random offset); that subset, in right order, is the
  correct response and the only items graded (`shown_sets()` lists every subset an attempt can
  show).
"""

from __future__ import annotations

import itertools
import math
import random
import re
import unicodedata
from collections.abc import Iterator, Sequence
from typing import assert_never

from .model import (
    Answer,
    Blank,
    ChoiceBlank,
    Cloze,
    NumberBlank,
    NumericKey,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    TextBlank,
)

BlankResponse = str | int | frozenset[int] | None
"""What a learner gives one blank: the typed text (text and number blanks), the index of the
picked choice (a single choice blank), the set of picked indexes (a `multiple` one), or None
(unanswered)."""

_PHP_TRIM = " \t\n\r\0\x0b"
"""The characters PHP's trim() strips by default (PARAM_RAW_TRIMMED, compare_string_with_wildcard)."""


def _trim(text: str) -> str:
    return text.strip(_PHP_TRIM)


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# A run of stars not preceded by a backslash (compare_string_with_wildcard's preg_split).
_WILDCARD = re.compile(r"(?<!\\)\*+")


def answer_pattern(answer: Answer, case_sensitive: bool) -> re.Pattern[str]:
    """The regular expression Moodle builds for one answer (compare_string_with_wildcard): the
    whole NFC answer, `.*` for each unescaped run of stars when it is a wildcard answer."""
    text = _nfc(answer.text)
    if answer.wildcard:
        bits = [re.escape(bit.replace("\\*", "*")) for bit in _WILDCARD.split(text)]
        body = ".*".join(bits)
    else:
        body = re.escape(text)
    return re.compile(body, 0 if case_sensitive else re.IGNORECASE)


def text_matches(answer: Answer, case_sensitive: bool, response: str) -> bool:
    """Whether a (non-empty) response matches one answer, as compare_string_with_wildcard()."""
    return answer_pattern(answer, case_sensitive).fullmatch(_trim(_nfc(response))) is not None


def text_credit(
    answers: Sequence[Answer], case_sensitive: bool, response: str
) -> tuple[float, Answer | None]:
    """The credit of a typed response and the answer that earned it (the first that matches), or
    (0, None) when none matches or the response is empty after trimming."""
    if _trim(_nfc(response)) == "":
        return 0.0, None
    for answer in answers:
        if text_matches(answer, case_sensitive, response):
            return answer.credit, answer
    return 0.0, None


_EXPONENT = re.compile(r"(?:e|E|(?:x|\*|×)10(?:\^|\*\*))([+-]?[0-9]+)")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[-+]?[0-9]+)?")


def parse_number(response: str) -> float | None:
    """The number Moodle reads from a typed response (qtype_numerical_answer_processor::
    apply_units() with no units), or None when it reads none. What follows the number is
    Moodle's unit part and is ignored here (a cloze blank has no units)."""
    text = _trim(response).replace(" ", "")
    text = _EXPONENT.sub(r"e\1", text)
    if "." in text or text.count(",") > 1:
        text = text.replace(",", "")
    else:
        text = text.replace(",", ".")
    m = _NUMBER.match(text)
    if m is None:
        return None
    return float(m.group(0))


def key_interval(key: NumericKey) -> tuple[float, float]:
    """The closed interval Moodle accepts for a key (get_tolerance_interval(), nominal)."""
    lo, hi = key.bounds
    answer = key.value
    slack = 1e-14 * max(1.0, abs(answer))
    return lo - slack, hi + slack


def number_credit(keys: Sequence[NumericKey], response: float) -> tuple[float, NumericKey | None]:
    """The credit of a number and the key that earned it (the first whose interval holds it)."""
    if math.isnan(response):
        return 0.0, None
    for key in keys:
        lo, hi = key_interval(key)
        if lo <= response <= hi:
            return key.credit, key
    return 0.0, None


def blank_credit(blank: Blank, response: BlankResponse) -> float:
    """What one blank's response earns (before its weight): see the module's rules. A response
    of the wrong kind for the blank (text for a choice blank...) raises TypeError; an index out
    of range raises IndexError."""
    if response is None:
        return 0.0
    match blank:
        case TextBlank(answers=answers, case_sensitive=case_sensitive):
            if not isinstance(response, str):
                raise TypeError(f"a text blank takes a str response, not {type(response).__name__}")
            return text_credit(answers, case_sensitive, response)[0]
        case NumberBlank(keys=keys):
            if not isinstance(response, str):
                raise TypeError(f"a number blank takes a str response, not {type(response).__name__}")
            if _trim(response) == "":
                return 0.0
            value = parse_number(response)
            return 0.0 if value is None else number_credit(keys, value)[0]
        case ChoiceBlank(choices=choices, multiple=multiple):
            if multiple:
                if not isinstance(response, frozenset):
                    raise TypeError(
                        f"a multiple choice blank takes a frozenset response, not {type(response).__name__}"
                    )
                for i in response:
                    _check_index(i, len(choices))
                return min(max(sum(choices[i].credit for i in sorted(response)), 0.0), 1.0)
            if isinstance(response, bool) or not isinstance(response, int):
                raise TypeError(f"a choice blank takes an int response, not {type(response).__name__}")
            _check_index(response, len(choices))
            return choices[response].credit
        case _:
            assert_never(blank)


def _check_index(i: int, n: int) -> None:
    if not 0 <= i < n:
        raise IndexError(f"choice index {i} out of range 0..{n - 1}")


def cloze_credit(body: Cloze, responses: Sequence[BlankResponse]) -> float:
    """The question's credit for one response per blank (`responses[n - 1]` for blank n): the
    weighted mean of the blanks' credits, not clamped (qtype_multianswer_question::grade_response())."""
    if len(responses) != len(body.blanks):
        raise ValueError(f"{len(responses)} responses for {len(body.blanks)} blanks")
    total = sum(b.weight * blank_credit(b, r) for b, r in zip(body.blanks, responses, strict=True))
    return total / body.total_weight


def cloze_min_credit(body: Cloze) -> float:
    """The lowest credit a response can earn (qtype_multianswer_question::get_min_fraction())."""
    return sum(b.weight * blank_min_credit(b) for b in body.blanks) / body.total_weight


def blank_min_credit(blank: Blank) -> float:
    """The lowest credit of one blank: its most negative single choice, else 0."""
    if isinstance(blank, ChoiceBlank) and not blank.multiple:
        return min(0.0, *(c.credit for c in blank.choices))
    return 0.0


# ----------------------------------------------------------------------------------- ordering


def shown_count(body: Ordering) -> int:
    """How many items an attempt shows (start_attempt()'s sanitised selectcount)."""
    n = len(body.items)
    if body.select is OrderingSelect.ALL:
        return n
    return min(n, max(2, body.select_count))


def shown_sets(body: Ordering) -> Iterator[tuple[int, ...]]:
    """Every subset of item indexes (in right order) an attempt can show: all of them; every
    choice of `select_count` (RANDOM, array_rand keeps the order); every window of
    `select_count` adjacent items (CONTIGUOUS, mt_rand(0, n - count) as offset)."""
    n = len(body.items)
    k = shown_count(body)
    if k == n:
        yield tuple(range(n))
        return
    match body.select:
        case OrderingSelect.RANDOM:
            yield from itertools.combinations(range(n), k)
        case OrderingSelect.CONTIGUOUS:
            for offset in range(n - k + 1):
                yield tuple(range(offset, offset + k))
        case OrderingSelect.ALL:
            yield tuple(range(n))
        case _:
            assert_never(body.select)


def draw_shown(body: Ordering, rng: random.Random) -> tuple[int, ...]:
    """One attempt's shown items, drawn with rng as start_attempt() draws them."""
    n = len(body.items)
    k = shown_count(body)
    if k == n or body.select is OrderingSelect.ALL:
        return tuple(range(n))
    if body.select is OrderingSelect.CONTIGUOUS:
        offset = rng.randint(0, n - k)
        return tuple(range(offset, offset + k))
    return tuple(sorted(rng.sample(range(n), k)))


def ordering_credit(body: Ordering, shown: Sequence[int], response: Sequence[int]) -> float:
    """The credit of an ordering response. `shown`: indexes into body.items of the items the
    attempt shows, in right order; `response`: the learner's order of those same indexes.
    Raises ValueError when shown is not increasing or response is not a permutation of it."""
    if list(shown) != sorted(set(shown)) or any(not 0 <= i < len(body.items) for i in shown):
        raise ValueError(f"shown must be increasing indexes into the {len(body.items)} items: {list(shown)}")
    if sorted(response) != list(shown):
        raise ValueError(f"response {list(response)} is not an order of the shown items {list(shown)}")
    # Moodle's answer ids are never 0: 0 is its "no neighbour" marker. Index + 1 keeps that true.
    correct = [i + 1 for i in shown]
    current = [i + 1 for i in response]
    count_correct, count_answers = _ordering_counts(body.grading, correct, current)
    if count_answers == 0:
        return 0.0
    return count_correct / count_answers


def _ordering_counts(grading: OrderingGrading, correct: list[int], current: list[int]) -> tuple[int, int]:
    """qtype_ordering_question::grade_response()'s countcorrect and countanswers."""
    count_correct = 0
    count_answers = 0
    match grading:
        case OrderingGrading.ALL_OR_NOTHING | OrderingGrading.ABSOLUTE_POSITION:
            for position, answer_id in enumerate(correct):
                if position < len(current) and current[position] == answer_id:
                    count_correct += 1
                count_answers += 1
            if grading is OrderingGrading.ALL_OR_NOTHING and count_correct < count_answers:
                count_correct = 0
        case OrderingGrading.RELATIVE_NEXT_EXCLUDE_LAST | OrderingGrading.RELATIVE_NEXT_INCLUDE_LAST:
            last = grading is OrderingGrading.RELATIVE_NEXT_INCLUDE_LAST
            current_next = _next_answer_ids(current, last)
            correct_next = _next_answer_ids(correct, last)
            for this_id, next_id in correct_next.items():
                if this_id in current_next and current_next[this_id] == next_id:
                    count_correct += 1
                count_answers += 1
        case OrderingGrading.RELATIVE_ONE_PREVIOUS_AND_NEXT | OrderingGrading.RELATIVE_ALL_PREVIOUS_AND_NEXT:
            every = grading is OrderingGrading.RELATIVE_ALL_PREVIOUS_AND_NEXT
            current_pn = _previous_and_next_answer_ids(current, every)
            correct_pn = _previous_and_next_answer_ids(correct, every)
            for this_id, (prev, nxt) in correct_pn.items():
                if this_id in current_pn:
                    cur_prev, cur_next = current_pn[this_id]
                    # array_intersect($current, $correct): the current values found in correct.
                    count_correct += sum(1 for v in cur_prev if v in prev)
                    count_correct += sum(1 for v in cur_next if v in nxt)
                count_answers += len(prev) + len(nxt)
        case OrderingGrading.LONGEST_ORDERED_SUBSET | OrderingGrading.LONGEST_CONTIGUOUS_SUBSET:
            contiguous = grading is OrderingGrading.LONGEST_CONTIGUOUS_SUBSET
            count_correct = len(_ordered_subset(correct, current, contiguous))
            count_answers = len(current)
        case OrderingGrading.RELATIVE_TO_CORRECT:
            count = len(correct) - 1
            for position, answer_id in enumerate(correct):
                if answer_id in current:
                    score = count - abs(position - current.index(answer_id))
                    if score > 0:
                        count_correct += score
                count_answers += count
        case _:
            assert_never(grading)
    return count_correct, count_answers


def _next_answer_ids(answer_ids: list[int], last_item: bool) -> dict[int, int]:
    """get_next_answerids(): each id -> the id after it; the last -> 0 when last_item, else the
    last id is no key."""
    out: dict[int, int] = {}
    i_max = len(answer_ids) - 1
    if last_item:
        next_id = 0
    else:
        next_id = answer_ids[i_max]
        i_max -= 1
    for i in range(i_max, -1, -1):
        out[answer_ids[i]] = next_id
        next_id = answer_ids[i]
    return out


def _previous_and_next_answer_ids(
    answer_ids: list[int], every: bool
) -> dict[int, tuple[list[int], list[int]]]:
    """get_previous_and_next_answerids(): each id -> (the ids before it, nearest first; the ids
    after it), or with every=False only the nearest of each side, 0 when there is none."""
    out: dict[int, tuple[list[int], list[int]]] = {}
    nxt = list(answer_ids)
    prev: list[int] = []
    while nxt:
        answer_id = nxt.pop(0)
        if every:
            out[answer_id] = (list(prev), list(nxt))
        else:
            out[answer_id] = ([prev[0] if prev else 0], [nxt[0] if nxt else 0])
        prev.insert(0, answer_id)
    return out


def _ordered_subset(correct: list[int], current: list[int], contiguous: bool) -> list[int]:
    """get_ordered_subset(): the longest (then leftmost) subset get_ordered_subsets() finds; a
    one-item subset counts as none (bestcount starts at 1)."""
    positions = [correct.index(answer_id) for answer_id in current]
    best: list[int] = []
    best_count = 1
    for subset in _ordered_subsets(positions, contiguous):
        if len(subset) > best_count:
            best_count = len(subset)
            best = subset
    return best


def _ordered_subsets(positions: list[int], contiguous: bool) -> list[list[int]]:
    """get_ordered_subsets(), transcribed: PHP's foreach walks a copy of $subsets, so the
    appends of one round are not seen by that round."""
    subsets: list[list[int]] = []
    for p, value in enumerate(positions):
        is_new = True
        new: list[list[int]] = []
        snapshot = [list(s) for s in subsets]
        for s, subset in enumerate(snapshot):
            end = positions[subset[-1]]
            if value == end + 1:
                is_new = False
                subsets[s].append(p)
            elif contiguous:
                pass
            elif value > end:
                is_new = False
                new.append(subset)
                subsets[s].append(p)
        if is_new:
            new.append([p])
        subsets.extend(new)
    return subsets
