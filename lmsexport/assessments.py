"""Resolve assessment recipes against the bank: which questions each draw may yield.

An assessment file names questions by id and describes pools by conditions (model.Pool); this
module fills each draw's candidates from the loaded quizzes and reports, with the position of
the draw, every recipe that cannot work as the author meant:

* an id that names no question (with a did-you-mean);
* a pool that selects nothing, or fewer questions than it picks;
* a question that two draws of one assessment could both yield: a learner could then see it
  twice in one attempt, so pools must be disjoint (explicit ids count as a pool of their own).

Resolution is format-free and pure: the writers get candidates, never conditions to evaluate.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import Any

from .errors import Diagnostic
from .model import Assessment, Bank, Candidate, Draw, Pool, Section, SourceLoc


def candidates(bank: Bank) -> dict[str, Candidate]:
    """Every question of the bank by id, in bank order (quizzes by id, questions in source order)."""
    out: dict[str, Candidate] = {}
    for quiz in bank.quizzes:
        header = quiz.header
        for q in quiz.questions:
            out[q.id] = Candidate(header, q)
    return out


def resolve_all(bank: Bank, assessments: list[Assessment], diags: list[Diagnostic]) -> list[Assessment]:
    """Each assessment with its draws' candidates filled in; problems are appended to diags."""
    index = candidates(bank)
    return [resolve(a, index, diags) for a in assessments]


def resolve(assessment: Assessment, index: dict[str, Candidate], diags: list[Diagnostic]) -> Assessment:
    where = assessment.loc or SourceLoc(assessment.id)
    owner: dict[str, Draw] = {}
    """Question id -> the first draw that may yield it."""
    sections: list[Section] = []
    for section in assessment.sections:
        draws: list[Draw] = []
        for draw in section.draws:
            loc = draw.loc or where
            found = (
                _explicit(draw, index, loc, diags) if draw.pool is None else _pooled(draw, index, loc, diags)
            )
            for c in found:
                first = owner.setdefault(c.question.id, draw)
                if first is not draw:
                    diags.append(
                        Diagnostic(
                            loc,
                            f"question '{c.question.id}' can be drawn both by '{first.name}' "
                            f"(line {first.loc.line if first.loc else 0}) and by '{draw.name}': "
                            "a learner could see it twice",
                            rule="assessment.overlap",
                            hint="make the pools disjoint (narrow one with 'quiz:', 'tags:' or 'type:'), "
                            "or list the question in one draw only",
                        )
                    )
            draws.append(replace(draw, candidates=tuple(found)))
        sections.append(replace(section, draws=tuple(draws)))
    return replace(assessment, sections=tuple(sections))


def _explicit(
    draw: Draw, index: dict[str, Candidate], loc: SourceLoc, diags: list[Diagnostic]
) -> list[Candidate]:
    found: list[Candidate] = []
    locs = draw.id_locs or (loc,) * len(draw.ids)
    for qid, at in zip(draw.ids, locs, strict=True):
        c = index.get(qid)
        if c is not None:
            found.append(c)
            continue
        close = difflib.get_close_matches(qid, list(index), n=1, cutoff=0.6)
        if not close:  # ids differing only by case
            close = [k for k in index if k.casefold() == qid.casefold()][:1]
        diags.append(
            Diagnostic(
                at,
                f"no question has the id '{qid}'",
                rule="assessment.unknown-question",
                hint=f"did you mean '{close[0]}'?"
                if close
                else "is the quiz file that holds it among the paths given to lmsexport?",
            )
        )
    return found


def _pooled(
    draw: Draw, index: dict[str, Candidate], loc: SourceLoc, diags: list[Diagnostic]
) -> list[Candidate]:
    pool = draw.pool
    assert pool is not None and draw.pick is not None
    found = [c for c in index.values() if pool.matches(c.quiz, c.question)]
    if not found:
        diags.append(
            Diagnostic(
                loc,
                f"pool '{draw.name}' selects no question of the bank",
                rule="assessment.empty-pool",
                hint=_why_empty(pool, index),
            )
        )
    elif len(found) < draw.pick:
        diags.append(
            Diagnostic(
                loc,
                f"pool '{draw.name}' has {len(found)} question{'s' if len(found) != 1 else ''} "
                f"but picks {draw.pick}",
                rule="assessment.pool-too-small",
                hint=f"pick at most {len(found)}, or widen the pool",
            )
        )
    return found


def _why_empty(pool: Pool, index: dict[str, Candidate]) -> str:
    """The first condition that names something the bank does not have, with a did-you-mean."""
    questions = [c.question for c in index.values()]
    quizzes = {c.quiz.id for c in index.values()}
    categories = {c.quiz.category for c in index.values() if c.quiz.category}
    tags = {t for q in questions for t in q.tags}
    for tag in (*pool.tags, *pool.any_tags):
        if tag not in tags:
            return _unknown("tag", tag, tags)
    for quiz in pool.quizzes:
        if quiz not in quizzes:
            return _unknown("quiz", quiz, quizzes)
    if pool.category is not None and not any(
        c == pool.category or c.startswith(pool.category + "/") for c in categories
    ):
        return _unknown("category", pool.category, categories)
    return "no question meets every condition at once; loosen one of them"


def _unknown(what: str, value: str, known: set[str]) -> str:
    close = difflib.get_close_matches(value, sorted(known), n=1, cutoff=0.6)
    text = f"no question has the {what} '{value}'"
    return text + (f"; did you mean '{close[0]}'?" if close else "")


def summarize(assessment: Assessment) -> dict[str, object]:
    """What `check` reports of an assessment (JSON report): its size and every draw's pool."""
    return {
        "id": assessment.id,
        "file": assessment.loc.path if assessment.loc else None,
        "sections": len(assessment.sections),
        "questions_per_attempt": assessment.question_count,
        "points": assessment.total_points,
        "draws": [
            {
                "name": d.name,
                "kind": "pool" if d.is_random else "list",
                "questions": len(d.candidates),
                "pick": d.count,
                "points": d.points,
            }
            for d in assessment.draws
        ],
    }


def describe(summary: dict[str, Any]) -> list[str]:
    """The text form of summarize(): a line for the assessment, one per draw."""
    n_sections = summary["sections"]
    points = summary["points"]
    lines = [
        f"assessment '{summary['id']}': {n_sections} section{'s' if n_sections != 1 else ''}, "
        f"{summary['questions_per_attempt']} questions per attempt"
        + (f", {points:g} points" if points is not None else ", points vary with the draw")
    ]
    for draw in summary["draws"]:
        n = draw["questions"]
        if draw["kind"] == "pool":
            lines.append(
                f"  pool '{draw['name']}': {n} question{'s' if n != 1 else ''}, picks {draw['pick']}"
            )
        else:
            lines.append(f"  draw '{draw['name']}': {n} listed question{'s' if n != 1 else ''}")
    return lines
