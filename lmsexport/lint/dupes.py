"""The bank-wide rules: duplicate stems (LX302), near-duplicate stems (LX303) and identical
choice sets (LX203).

Stems are compared normalized (text.normalize). Exact duplicates are grouped by the normalized
text itself (a hash table). Near duplicates are found as every large bank does it: each stem
becomes its set of character 5-grams ("shingles"); a MinHash signature of 128 values
(datasketch; CRC-32 as the shingle hash, so signatures are the same in every process and on
every machine) estimates the Jaccard similarity of two sets; locality-sensitive hashing groups
stems whose signatures agree on one of 16 bands of 8 values, which makes a pair of similarity s
a candidate with probability 1 - (1 - s^8)^16 (0.95 at s = 0.8, 0.998 at 0.9, 0.06 at 0.5);
each candidate pair is then checked exactly (Jaccard of the shingle sets >= NEAR). So the cost
grows with the bank, not with its square: 100,000 stems take seconds (docs/lint.md).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import Diagnostic
from ..model import SourceLoc
from .checks import Finding
from .rules import RULES

if TYPE_CHECKING:
    import numpy as np

SHINGLE = 5
NUM_PERM = 128
BANDS, ROWS = 16, 8
NEAR = 0.8
"""Jaccard similarity of two stems' 5-gram sets from which they are near duplicates."""
MIN_CHOICES = 3
"""Choice sets of fewer choices (yes/no) are too common to report."""
MAX_BUCKET_COMPARE = 32
"""In one LSH bucket, each stem is checked against at most this many earlier ones: a bucket
of a thousand templated stems would otherwise cost half a million comparisons, and the earliest
similar stem is the one a finding names anyway."""


@dataclass(frozen=True)
class StemRecord:
    """What the bank-wide rules need of a question (sent from a worker to the parent)."""

    qid: str
    loc: SourceLoc
    stem: str
    """Normalized stem."""
    choices: tuple[tuple[str, bool], ...] | None = None
    """Sorted (normalized choice, is a key) pairs (single/multiple with at least MIN_CHOICES
    choices), else None: two questions offering the same options with different keys reuse an
    option set on purpose (which ZeRO stage ...?); with the same keys too, one is a copy."""


def shingles(stem: str) -> set[bytes]:
    if len(stem) <= SHINGLE:
        return {stem.encode("utf-8")}
    return {stem[i : i + SHINGLE].encode("utf-8") for i in range(len(stem) - SHINGLE + 1)}


def signatures(stems: Sequence[str]) -> np.ndarray:
    """The MinHash signatures of these normalized stems: an array of len(stems) x NUM_PERM uint32."""
    import numpy as np
    from datasketch import MinHash

    if not stems:
        return np.zeros((0, NUM_PERM), dtype=np.uint32)
    hashes = MinHash.bulk([list(shingles(s)) for s in stems], num_perm=NUM_PERM, hashfunc=zlib.crc32)
    return np.stack([h.hashvalues for h in hashes]).astype(np.uint32)


def jaccard(a: set[bytes], b: set[bytes]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _where(r: StemRecord) -> str:
    return f"{r.loc.path}:{r.loc.line}" if r.loc.line else r.loc.path


def _finding(rule_id: str, r: StemRecord, message: str, hint: str) -> Finding:
    rule = RULES[rule_id]
    return Finding(Diagnostic(r.loc, message, rule.severity, rule_id, hint), r.qid)


def find(records: Sequence[StemRecord], sigs: np.ndarray | None, enabled: frozenset[str]) -> list[Finding]:
    """Every bank-wide finding; records are in bank order (files sorted, then file order), and
    each finding is reported on the later question, naming the earliest one it repeats."""
    findings: list[Finding] = []
    exact_of: dict[int, int] = {}
    if "LX302" in enabled or "LX303" in enabled:
        first: dict[str, int] = {}
        for i, r in enumerate(records):
            if not r.stem:
                continue
            j = first.setdefault(r.stem, i)
            if j != i:
                exact_of[i] = j
    if "LX302" in enabled:
        for i, j in sorted(exact_of.items()):
            findings.append(
                _finding(
                    "LX302",
                    records[i],
                    f"question '{records[i].qid}' has the same stem as '{records[j].qid}' "
                    f"({_where(records[j])})",
                    "remove one of them, or make each question ask something of its own",
                )
            )
    if "LX303" in enabled and sigs is not None and len(records) > 1:
        findings += _near(records, sigs, exact_of)
    if "LX203" in enabled:
        seen: dict[tuple[tuple[str, bool], ...], int] = {}
        for i, r in enumerate(records):
            if r.choices is None:
                continue
            j = seen.setdefault(r.choices, i)
            if j != i:
                findings.append(
                    _finding(
                        "LX203",
                        r,
                        f"question '{r.qid}' offers the same {len(r.choices)} choices, with the same "
                        f"key, as '{records[j].qid}' ({_where(records[j])})",
                        "check that the choices were not copied from the other question unchanged; "
                        "if both ask the same thing, keep one",
                    )
                )
    return findings


def _near(records: Sequence[StemRecord], sigs: np.ndarray, exact_of: dict[int, int]) -> list[Finding]:
    import numpy as np

    # Candidate pairs (later, earlier) from the LSH buckets, as arrays: a set per stem would
    # cost more memory than the whole bank's text.
    later: list[np.ndarray] = []
    earlier: list[np.ndarray] = []
    for band in range(BANDS):
        block = np.ascontiguousarray(sigs[:, band * ROWS : (band + 1) * ROWS])
        keys = block.view(np.dtype((np.void, block.dtype.itemsize * ROWS))).ravel()
        _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
        shared = np.flatnonzero(counts[inverse] > 1)
        if not len(shared):
            continue
        order = shared[np.argsort(inverse[shared], kind="stable")]  # grouped, ascending within
        starts = np.flatnonzero(np.r_[True, np.diff(inverse[order]) != 0])
        rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
        for back in range(1, MAX_BUCKET_COMPARE + 1):
            # Each stem against the stem `back` places before it in its bucket.
            ok = rank >= back
            later.append(order[ok])
            earlier.append(order[np.flatnonzero(ok) - back])
            if not ok.any():
                break
    if not later:
        return []
    n = len(records)
    pairs = np.unique(np.concatenate(later).astype(np.int64) * n + np.concatenate(earlier))
    # The signatures' agreement estimates each pair's similarity: only pairs that may reach NEAR
    # (a margin of 0.15 for the estimate's error, ~0.035 standard deviation at 128 values) have
    # their shingles compared exactly.
    keep = []
    for chunk in np.array_split(pairs, max(1, len(pairs) // 200_000)):
        i, j = chunk // n, chunk % n
        estimate = (sigs[i] == sigs[j]).mean(axis=1)
        keep.append(chunk[estimate >= NEAR - 0.15])
    survivors = np.concatenate(keep)
    findings = []
    done: set[int] = set()
    for pair in survivors.tolist():  # sorted: by later stem, then earliest partner first
        i, j = divmod(pair, n)
        if i in done or i in exact_of or not records[i].stem or not records[j].stem:
            continue
        if records[j].stem == records[i].stem:
            continue
        similarity = jaccard(shingles(records[i].stem), shingles(records[j].stem))
        if similarity >= NEAR:
            done.add(i)
            findings.append(
                _finding(
                    "LX303",
                    records[i],
                    f"question '{records[i].qid}' has nearly the same stem as '{records[j].qid}' "
                    f"({_where(records[j])}): {similarity:.0%} of their 5-letter pieces are shared",
                    "merge them, or make the stems differ in what they ask",
                )
            )
    return findings
