"""The statistics of the key rules: is what a quiz shows more than chance?

Null hypothesis everywhere: each question's key is in a position drawn uniformly at random
from its own number of choices, independently of the other questions (what shuffling gives).
Distributions come from SciPy (chi-square, Poisson-binomial); the exact chi-square test for
small quizzes is an enumeration of that null distribution.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

EXACT_MAX_STATES = 60_000
"""Largest number of count vectors the exact test enumerates (a quiz of 20 questions of four
choices has 1,771); above it the chi-square distribution is used, which is then accurate (every
expected count is at least 5 by then in any quiz that reaches it with four choices)."""


@dataclass(frozen=True)
class ChiSquare:
    observed: tuple[int, ...]
    """Keys seen at positions 1, 2, ... (0-based index = position - 1)."""
    expected: tuple[float, ...]
    statistic: float
    df: int
    p: float
    exact: bool
    """True: p by enumerating the null distribution (small quizzes); False: chi-square(df)."""


def _statistic(observed: Sequence[int], expected: Sequence[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True) if e > 0)


def key_positions_test(positions: Sequence[int], sizes: Sequence[int]) -> ChiSquare | None:
    """Chi-square goodness of fit of the keys' positions (0-based) against uniform positions,
    each question with its own number of choices (sizes). None when there is nothing to test
    (fewer than two questions, or a single possible position)."""
    if len(positions) < 2:
        return None
    width = max(sizes)
    if width < 2:
        return None
    observed = [0] * width
    expected = [0.0] * width
    for pos, n in zip(positions, sizes, strict=True):
        observed[pos] += 1
        for k in range(n):
            expected[k] += 1.0 / n
    stat = _statistic(observed, expected)
    df = width - 1
    states = math.comb(len(positions) + width - 1, width - 1)
    if min(expected) < 5 and states <= EXACT_MAX_STATES:
        p = _exact_p(stat, sizes, width, expected)
        exact = True
    else:
        from scipy.stats import chi2

        p = float(chi2.sf(stat, df))
        exact = False
    return ChiSquare(tuple(observed), tuple(expected), stat, df, min(1.0, p), exact)


def _exact_p(stat: float, sizes: Sequence[int], width: int, expected: Sequence[float]) -> float:
    """P(X^2 >= stat) under the null, by enumerating every count vector with its probability."""
    dist: dict[tuple[int, ...], float] = {(0,) * width: 1.0}
    for n in sizes:
        nxt: dict[tuple[int, ...], float] = {}
        share = 1.0 / n
        for counts, prob in dist.items():
            for k in range(n):
                c = counts[:k] + (counts[k] + 1,) + counts[k + 1 :]
                nxt[c] = nxt.get(c, 0.0) + prob * share
        dist = nxt
    tolerance = 1e-9 * max(1.0, stat)
    return sum(p for counts, p in dist.items() if _statistic(counts, expected) >= stat - tolerance)


def at_least_p(successes: int, probabilities: Sequence[float]) -> float:
    """P(Y >= successes) for Y the number of successes of independent trials with these
    probabilities (binomial when they are equal, Poisson-binomial otherwise)."""
    if successes <= 0:
        return 1.0
    if successes > len(probabilities):
        return 0.0
    from scipy.stats import binom, poisson_binom

    if len(set(probabilities)) == 1:
        return float(binom.sf(successes - 1, len(probabilities), probabilities[0]))
    return float(poisson_binom.sf(successes - 1, list(probabilities)))


@dataclass(frozen=True)
class Pattern:
    start: int
    """Index of the first question of the pattern."""
    length: int
    """How many questions the pattern covers."""
    period: int
    """1 for a run (the same position again and again), else the length of the repeated cycle."""
    chance: float
    """Probability of this stretch under the null, before the correction for the number of tests."""
    p: float
    """For a stretch, chance times the number of (start, period) pairs looked at (Bonferroni);
    for the whole quiz, the probability that the whole quiz has this period or a shorter one.
    At most 1."""
    whole: bool = False
    """True: the pattern covers every question (the quiz's keys are periodic as a whole)."""


MAX_PERIOD = 6


def key_pattern(positions: Sequence[int], sizes: Sequence[int]) -> Pattern | None:
    """The least probable run or cycle in the keys' positions (None when there is no stretch of
    two repeats at all).

    For each period p (1 = a run) every maximal stretch where position[i] == position[i + p]
    holds for consecutive i is a candidate; under the null each such equality has probability
    min(n_i, n_j) / (n_i * n_j). A stretch that is also periodic with a smaller period (a run
    seen as a cycle of 2) is left to the smaller period. The chance is multiplied by the number
    of (start, period) pairs examined, a Bonferroni correction.

    A pattern over the whole quiz is one test per period, not one per start: its p is that of
    the whole quiz having a period this short (_whole_pattern). Without it, two turns of a cycle
    of four in a quiz of eight (1, 2, 3, 4, 1, 2, 3, 4) would be corrected for 27 places it could
    have started and stay below significance, although no other place exists for it.
    """
    n = len(positions)
    best: Pattern | None = _whole_pattern(positions, sizes)
    tests = sum(max(0, n - p) for p in range(1, MAX_PERIOD + 1))
    for period in range(1, min(MAX_PERIOD, n // 2) + 1):
        i = 0
        while i + period < n:
            if positions[i] != positions[i + period]:
                i += 1
                continue
            start, chance = i, 1.0
            while i + period < n and positions[i] == positions[i + period]:
                a, b = sizes[i], sizes[i + period]
                chance *= min(a, b) / (a * b)
                i += 1
            length = i - start + period
            segment = positions[start : start + length]
            if length < 2 * period or _smaller_period(segment, period):
                continue
            p = min(1.0, chance * tests)
            if best is None or p < best.p:
                best = Pattern(start, length, period, chance, p)
    return best


def _whole_pattern(positions: Sequence[int], sizes: Sequence[int]) -> Pattern | None:
    """The quiz's keys as a whole, when they repeat with a period of at most MAX_PERIOD and at
    least two turns: the shortest such period, with p = the probability (union bound) that the
    keys of a quiz with these numbers of choices have that period or a shorter one."""
    n = len(positions)
    shortest = next(
        (
            d
            for d in range(1, min(MAX_PERIOD, n // 2) + 1)
            if all(positions[i] == positions[i + d] for i in range(n - d))
        ),
        None,
    )
    if shortest is None:
        return None
    chances = [_equal_chance(sizes, d, 0, n - d) for d in range(1, shortest + 1)]
    return Pattern(0, n, shortest, chances[-1], min(1.0, sum(chances)), whole=True)


def _equal_chance(sizes: Sequence[int], period: int, start: int, stop: int) -> float:
    """Probability under the null that position[i] == position[i + period] for every i in
    start..stop - 1."""
    chance = 1.0
    for i in range(start, stop):
        a, b = sizes[i], sizes[i + period]
        chance *= min(a, b) / (a * b)
    return chance


def _smaller_period(segment: Sequence[int], period: int) -> bool:
    for d in range(1, period):
        if period % d == 0 and all(segment[i] == segment[i + d] for i in range(len(segment) - d)):
            return True
    return False
