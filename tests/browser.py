"""Playwright/Chromium helpers shared by the browser tests.

Playwright's own browser download is unreachable here, so tests drive the system Chromium
(scripts/ensure-chromium.sh installs it) through `executable_path`. The flags stop Chromium
from phoning home, which on a closed network floods the log with refused connections.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, assert_never

from lmsexport import variants as vt
from lmsexport.model import (
    Assessment,
    Blank,
    Calculated,
    CalculatedChoice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    Essay,
    Matching,
    MultipleChoice,
    NumberBlank,
    Numerical,
    Ordering,
    OrderingSelect,
    Question,
    Quiz,
    ResponseFormat,
    ShortAnswer,
    SingleChoice,
    TextBlank,
    TrueFalse,
    UnitInput,
    Variant,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
T = TypeVar("T")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def chromium_path() -> str | None:
    """The system Chromium, or None when it is not installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    fallback = Path("/usr/bin/chromium")
    return str(fallback) if fallback.exists() else None


def question_box(page: Page, question_id: str) -> Locator:
    return page.locator(f'section[data-question-id="{question_id}"]')


def _wrong_number(numerical: Numerical) -> str:
    """A number no key holds, in any unit the question has."""
    hi = max(k.bounds[1] for k in numerical.keys)
    scale = max([1.0] + [abs(u.multiplier) for u in numerical.units])
    return repr((hi + 1 + abs(hi)) * scale)


def answer_number(box: Locator, numerical: Numerical, number: str, unit: int | None = 0) -> None:
    """Type a number and give it the question's unit of that index (None: no unit)."""
    field = box.locator('[data-role="answer-input"]')
    if not numerical.units or numerical.unit_input is UnitInput.TEXT:
        name = numerical.units[unit].name if numerical.units and unit is not None else None
        if name is not None:
            number = f"{name} {number}" if numerical.units_left else f"{number} {name}"
        field.fill(number)
        return
    field.fill(number)
    if unit is None:
        return
    if numerical.unit_input is UnitInput.SELECT:
        box.locator('select[data-role="unit-input"]').select_option(value=str(unit))
    else:
        box.locator(f'input[data-unit-index="{unit}"]').check()


def _answer_choices(box: Locator, indexes: Iterable[int]) -> None:
    for i in indexes:
        box.locator(f'input[data-choice-index="{i}"]').check()


def _answer_matching(box: Locator, matching: Matching, correct: bool) -> None:
    rights = [p.right for p in matching.pairs]
    others = rights + list(matching.distractors)
    for i, pair in enumerate(matching.pairs):
        if correct:
            target = pair.right
        else:
            # Any other right-hand text: a rotation of the rights, or a distractor.
            wrong = [t for t in others if t != pair.right]
            if not wrong:
                continue
            target = wrong[0]
        box.locator(f'select[data-pair-index="{i}"]').select_option(label=target)


def answer(page: Page, question: Question, correct: bool) -> None:
    """Answer one question through its form controls: the key, or something scoring 0."""
    box = question_box(page, question.id)
    match question.body:
        case SingleChoice() as single:
            # Wrong: a choice worth nothing, rather than one with a negative credit.
            wrong = sorted((i for i, c in enumerate(single.choices) if not c.earns),
                           key=lambda i: single.choices[i].credit < 0)  # fmt: skip
            _answer_choices(box, single.key_indexes[:1] if correct else wrong[:1])
        case MultipleChoice(choices=choices):
            _answer_choices(box, [i for i, c in enumerate(choices) if c.earns == correct])
        case TrueFalse(truth=truth):
            _answer_choices(box, [0 if truth == correct else 1])
        case ShortAnswer() as short:
            text = f"  {short.accepted[0]} " if correct else "definitely not the answer"
            box.locator('[data-role="answer-input"]').fill(text)
        case Numerical() as numerical:
            lo, hi = numerical.key.bounds
            answer_number(box, numerical, repr((lo + hi) / 2) if correct else _wrong_number(numerical))
        case Matching() as matching:
            _answer_matching(box, matching, correct)
        case Essay(response_format=response_format):
            if response_format is not ResponseFormat.NONE:
                box.locator('[data-role="answer-input"]').fill("An essay answer.\nSecond line.")
        case Cloze(blanks=blanks):
            for n, blank in enumerate(blanks, 1):
                answer_blank(box, n, blank, right_response(blank) if correct else wrong_response(blank))
        case Ordering():
            order = shown_order(box)
            put_in_order(box, sorted(order) if correct else sorted(order, reverse=True))
        case Description():
            pass
        case Calculated() | CalculatedChoice():
            # The variant the attempt shows, answered as the ordinary question it is.
            answer(
                page, replace(vt.instantiate(question, shown_variant(box, question)), id=question.id), correct
            )
        case _:
            assert_never(question.body)


def shown_variant(box: Locator, question: Question) -> Variant:
    """The variant of a parametric question its box shows now (its data-variant)."""
    assert isinstance(question.body, Calculated | CalculatedChoice)
    number = int(box.get_attribute("data-variant") or "0")
    (variant,) = [v for v in question.body.variants if v.number == number]
    return variant


# --------------------------------------------------------------------------- cloze and ordering

BlankAnswer = str | int | frozenset[int] | None
"""What the tests give a blank, as scoring.BlankResponse: typed text, a choice index, the
indexes of a multiple choice blank, or None (left alone)."""


def right_response(blank: Blank) -> BlankAnswer:
    """A response earning the blank's full credit."""
    match blank:
        case TextBlank(answers=answers):
            full = [a for a in answers if abs(a.credit - 1) < 1e-6]
            words = [a for a in full if not a.wildcard]
            return words[0].text if words else full[0].text.replace("*", "x")
        case NumberBlank() as number:
            lo, hi = number.key.bounds
            return repr((lo + hi) / 2)
        case ChoiceBlank(multiple=True, choices=choices):
            return frozenset(i for i, c in enumerate(choices) if c.earns)
        case ChoiceBlank() as choice:
            return choice.key_indexes[0]
        case _:
            assert_never(blank)


def wrong_response(blank: Blank) -> BlankAnswer:
    """A response earning nothing (a choice worth 0 rather than a negative one)."""
    match blank:
        case TextBlank():
            return "definitely not the answer"
        case NumberBlank(keys=keys):
            hi = max(k.bounds[1] for k in keys)
            return repr(hi + 1 + abs(hi))
        case ChoiceBlank(multiple=True):
            return frozenset()
        case ChoiceBlank(choices=choices):
            zero = [i for i, c in enumerate(choices) if abs(c.credit) < 1e-6]
            return zero[0] if zero else None
        case _:
            assert_never(blank)


def answer_blank(box: Locator, n: int, blank: Blank, response: BlankAnswer) -> None:
    """Give blank n a response through its control(s); None leaves it as it is."""
    controls = box.locator(f'[data-blank="{n}"]')
    if response is None:
        return
    match blank:
        case TextBlank() | NumberBlank():
            assert isinstance(response, str)
            controls.fill(response)
        case ChoiceBlank(display=ChoiceDisplay.DROPDOWN):
            assert isinstance(response, int)
            controls.select_option(value=str(response))
        case ChoiceBlank():
            picks = {response} if isinstance(response, int) else response
            assert isinstance(picks, set | frozenset)
            for i in range(len(blank.choices)):
                control = box.locator(f'input[data-blank="{n}"][data-choice-index="{i}"]')
                if i in picks:
                    control.check()
                elif blank.multiple:
                    control.uncheck()
        case _:
            assert_never(blank)


def shown_order(box: Locator) -> list[int]:
    """The item indexes of an ordering as the list shows them now (the items an attempt shows)."""
    return box.evaluate(
        "b => [...b.querySelectorAll('ol[data-role=ordering] > li:not([hidden])')]"
        ".map(li => Number(li.dataset.itemIndex))"
    )


def put_in_order(box: Locator, target: Sequence[int]) -> None:
    """Reorder an ordering's list into target (item indexes) with its move-up buttons."""
    for place, index in enumerate(target):
        at = shown_order(box).index(index)
        for _ in range(at - place):
            box.locator(f'li[data-item-index="{index}"] [data-action="move-up"]').click()
    assert shown_order(box) == list(target)


def review_all(page: Page) -> None:
    """Switch to the all-questions view so that every question's controls are visible."""
    toggle = page.locator('[data-action="toggle-view"]')
    if page.locator("section[data-question-id]:not([hidden])").count() < 2:
        toggle.click()


def answer_all(page: Page, quiz: Quiz, correct: bool) -> None:
    review_all(page)
    for question in quiz.questions:
        answer(page, question, correct)


def submit(page: Page) -> None:
    page.locator('[data-action="submit"]').click()
    page.locator('[data-role="score"]').wait_for(state="visible")


def auto_points(quiz: Quiz) -> float:
    return sum(q.points for q in quiz.questions if not isinstance(q.body, Essay))


# --------------------------------------------------------------------------- attempts
#
# A reference implementation, in Python, of how templates/html/quiz.js draws an attempt, so that
# the tests can predict (and so check) every selection and order the page shows for a seed.

MASK = 0xFFFFFFFF


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & MASK


class Xoshiro128ss:
    """xoshiro128** 1.1 (Blackman and Vigna, https://prng.di.unimi.it/xoshiro128starstar.c)."""

    def __init__(self, a: int, b: int, c: int, d: int) -> None:
        self.s = [a & MASK, b & MASK, c & MASK, d & MASK]

    def __call__(self) -> int:
        s = self.s
        result = (_rotl((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 9) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 11)
        return result


def splitmix32(seed: int) -> Iterator[int]:
    a = seed & MASK
    while True:
        a = (a + 0x9E3779B9) & MASK
        t = a ^ (a >> 16)
        t = (t * 0x21F0AAAD) & MASK
        t ^= t >> 15
        t = (t * 0x735A2D97) & MASK
        yield t ^ (t >> 15)


def seeded(seed: int) -> Xoshiro128ss:
    sm = splitmix32(seed)
    return Xoshiro128ss(next(sm), next(sm), next(sm), next(sm))


def below(rng: Callable[[], int], n: int) -> int:
    limit = 2**32 - (2**32 % n)
    x = rng()
    while x >= limit:
        x = rng()
    return x % n


def shuffled(rng: Callable[[], int], items: Sequence[T]) -> list[T]:
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = below(rng, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def sample(rng: Callable[[], int], items: Sequence[T], k: int) -> list[T]:
    chosen = sorted(shuffled(rng, range(len(items)))[:k])
    return [items[i] for i in chosen]


@dataclass(frozen=True)
class PageQuestion:
    """A question as a page holds it: its home quiz, and its points on that page."""

    question: Question
    quiz: Quiz
    points: float

    @property
    def shuffles(self) -> bool:
        return self.quiz.shuffle and isinstance(
            self.question.body, SingleChoice | MultipleChoice | CalculatedChoice
        )


def page_questions(page_of: Quiz | Assessment) -> list[PageQuestion]:
    """The questions of a page in page order (an assessment: every candidate)."""
    if isinstance(page_of, Quiz):
        return [PageQuestion(q, page_of, q.points) for q in page_of.questions]
    return [
        PageQuestion(c.question, c.quiz, d.points_of(c.question)) for d in page_of.draws for c in d.candidates
    ]


@dataclass(frozen=True)
class Attempt:
    ids: list[str]
    """The questions shown, in order."""
    choices: dict[str, list[int]]
    """Per question with choices: the source indexes of its choices in the order shown."""
    blanks: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    """Per cloze with shuffled choice blanks: blank n -> its choices' indexes in the order shown."""
    orderings: dict[str, list[int]] = field(default_factory=dict)
    """Per ordering: the indexes of the items shown, in the order the attempt starts with."""
    variants: dict[str, int] = field(default_factory=dict)
    """Per parametric question: the number of the variant shown."""


def predict_attempts(page_of: Quiz | Assessment, seed: int, n: int) -> list[Attempt]:
    """The first n attempts the page shows with ?seed=<seed>."""
    rng = seeded(seed)
    everything = page_questions(page_of)
    last_variant: dict[int, int] = {}
    attempts = []
    for _ in range(n):
        if isinstance(page_of, Quiz):
            active = list(range(len(everything)))
        else:
            active, at = [], 0
            for section in page_of.sections:
                chosen: list[int] = []
                for draw in section.draws:
                    indexes = list(range(at, at + len(draw.candidates)))
                    at += len(draw.candidates)
                    chosen += indexes if draw.pick is None else sample(rng, indexes, draw.pick)
                active += shuffled(rng, chosen) if section.shuffle else chosen
        attempt = Attempt([everything[i].question.id for i in active], {})
        # Question by question, as quiz.js's drawAttempt: its variant (drawVariant), its choices
        # (shuffleChoices), then its blanks or items (drawStructured).
        for i in active:
            pq = everything[i]
            question = pq.question
            body = question.body
            if isinstance(body, Calculated | CalculatedChoice):
                attempt.variants[question.id] = body.variants[
                    draw_variant(rng, len(body.variants), last_variant, i)
                ].number
            match body:
                case (
                    SingleChoice(choices=shown)
                    | MultipleChoice(choices=shown)
                    | CalculatedChoice(choices=shown)
                ):
                    count: int | None = len(shown)
                case TrueFalse():
                    count = 2
                case _:
                    count = None
            if count is not None:
                attempt.choices[question.id] = (
                    shuffled(rng, range(count)) if pq.shuffles else list(range(count))
                )
            if isinstance(body, Cloze):
                attempt.blanks[question.id] = {
                    k: shuffled(rng, range(len(b.choices)))
                    for k, b in enumerate(body.blanks, 1)
                    if isinstance(b, ChoiceBlank) and b.shuffle and pq.quiz.shuffle
                }
            elif isinstance(body, Ordering):
                attempt.orderings[question.id] = draw_ordering(rng, body)
        attempts.append(attempt)
    return attempts


def draw_variant(rng: Callable[[], int], k: int, last: dict[int, int], index: int) -> int:
    """quiz.js's drawVariant: the 0-based variant of the question at page index `index`, never
    the previous attempt's when there are two or more (`last` remembers it)."""
    prev = last.get(index)
    if prev is None or k < 2:
        pick = below(rng, k)
    else:
        pick = below(rng, k - 1)
        pick += pick >= prev
    last[index] = pick
    return pick


def draw_ordering(rng: Callable[[], int], body: Ordering) -> list[int]:
    """quiz.js's drawOrdering: the items shown (all, `select_count` drawn in right order, or a
    run of adjacent ones), shuffled, and shuffled again while in the right order."""
    n = len(body.items)
    k = n if body.select is OrderingSelect.ALL else min(n, max(2, body.select_count))
    shown = list(range(n))
    if k < n and body.select is OrderingSelect.RANDOM:
        shown = sample(rng, shown, k)
    elif k < n:
        start = below(rng, n - k + 1)
        shown = shown[start : start + k]
    order = shuffled(rng, shown)
    while order == shown:
        order = shuffled(rng, shown)
    return order


def shown_attempt(page: Page) -> Attempt:
    """The attempt a page shows now: its questions in order and their choices' order.

    Checks that the page's order is the attempt's (what Tab and a screen reader follow): the
    questions' positions run 1..n in document order, between the toolbar and the buttons."""
    got, in_place = page.evaluate(
        """() => {
            const els = [...document.querySelectorAll('section[data-position]')];
            const toolbar = document.querySelector('[data-role=toolbar]');
            const actions = document.querySelector('[data-role=actions]');
            const inPlace = els.every(e =>
                (toolbar.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING) &&
                (actions.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING));
            return [els.map(e => [Number(e.dataset.position), e.dataset.questionId,
                                  [...e.querySelectorAll('input[data-choice-index]:not([data-blank])')]
                                      .map(i => Number(i.dataset.choiceIndex)),
                                  e.dataset.variant ? Number(e.dataset.variant) : null]), inPlace];
        }"""
    )
    assert [p for p, _, _, _ in got] == list(range(1, len(got) + 1)), "page order is not the attempt's"
    assert in_place, "a question outside the form's toolbar and buttons"
    return Attempt(
        [qid for _, qid, _, _ in got],
        {qid: order for _, qid, order, _ in got if order},
        variants={qid: v for _, qid, _, v in got if v is not None},
    )


def attempt_points(page_of: Quiz | Assessment, ids: Iterable[str]) -> float:
    """The most an attempt of these questions scores (essays are not scored)."""
    by_id = {pq.question.id: pq for pq in page_questions(page_of)}
    return sum(by_id[i].points for i in ids if not isinstance(by_id[i].question.body, Essay))


def answer_attempt(page: Page, page_of: Quiz | Assessment, correct: bool) -> list[str]:
    """Answer every question of the attempt shown; returns their ids."""
    review_all(page)
    by_id = {pq.question.id: pq.question for pq in page_questions(page_of)}
    ids = shown_attempt(page).ids
    for qid in ids:
        answer(page, by_id[qid], correct)
    return ids
