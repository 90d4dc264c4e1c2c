"""Run the writers of a build over a bank, in memory: no disk, no clock (the CLI writes)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from .errors import Diagnostic, LmsExportError, Severity
from .model import Bank, SourceLoc
from .writers import WRITERS, Output, WriteContext, get_writer

DEFAULT_TIMESTAMP = 315532800
"""1980-01-01T00:00:00Z: the earliest date a zip entry can carry; used without SOURCE_DATE_EPOCH."""


def timestamp_from_env(environ: dict[str, str] | None = None) -> int:
    """SOURCE_DATE_EPOCH when set (reproducible-builds.org), else a fixed date. Never the clock."""
    env = os.environ if environ is None else environ
    raw = env.get("SOURCE_DATE_EPOCH", "").strip()
    if not raw:
        return DEFAULT_TIMESTAMP
    if not raw.isdigit():
        raise LmsExportError(
            Diagnostic(
                SourceLoc("SOURCE_DATE_EPOCH"),
                f"SOURCE_DATE_EPOCH must be a whole number of seconds, not '{raw}'",
                rule="env.source-date-epoch",
            )
        )
    return int(raw)


def build(bank: Bank, formats: Iterable[str], timestamp: int = DEFAULT_TIMESTAMP) -> Output:
    """Every file of every requested format, plus the warnings of all writers.

    Raises LmsExportError (e.g. SchemaValidationError) carrying the errors of every writer.
    """
    names = tuple(f for f in WRITERS if f in set(formats))
    ctx = WriteContext(formats=names, timestamp=timestamp)
    result = Output()
    errors: list[Diagnostic] = []
    for name in names:
        try:
            out = get_writer(name)(bank, ctx)
        except LmsExportError as e:
            errors.extend(e.diagnostics)
            continue
        errors.extend(d for d in out.warnings if d.severity is Severity.ERROR)
        result.warnings.extend(d for d in out.warnings if d.severity is not Severity.ERROR)
        for path, data in out.files.items():
            if path in result.files:
                raise AssertionError(f"two writers produced {path}")
            result.files[path] = data
    if errors:
        raise LmsExportError(errors)
    result.files = dict(sorted(result.files.items()))
    return result


def check_bank(bank: Bank, timestamp: int = DEFAULT_TIMESTAMP) -> list[Diagnostic]:
    """Build every format in memory (validating every XML file), read every GIFT file back
    and compare it with the bank; return all diagnostics.

    Errors of the writers come back as diagnostics rather than an exception, so that a
    pipeline sees every problem of the run at once.
    """
    diags: list[Diagnostic] = []
    for name in WRITERS:
        try:
            out = build(bank, [name], timestamp)
        except LmsExportError as e:
            diags.extend(e.diagnostics)
            continue
        diags.extend(out.warnings)
        if name == "gift":
            diags.extend(gift_round_trip(bank, out))
    return diags


def gift_round_trip(bank: Bank, out: Output) -> list[Diagnostic]:
    """Read each written GIFT file back (as Moodle's parser would) and compare with the bank."""
    from dataclasses import fields

    from .readers.gift import read_quiz

    diags: list[Diagnostic] = []
    for quiz in bank.quizzes:
        path = f"gift/{quiz.id}.gift.txt"
        try:
            back, _ = read_quiz(out.files[path].decode("utf-8"), path, quiz_id=quiz.id, lang=quiz.lang)
        except LmsExportError as e:
            diags.extend(e.diagnostics)
            continue
        if back == quiz:
            continue
        theirs = {q.id: q for q in back.questions}
        for q in quiz.questions:
            other = theirs.get(q.id)
            if other is None:
                why = "is missing"
            elif other != q:
                names = [f.name for f in fields(q) if f.compare and getattr(q, f.name) != getattr(other, f.name)]
                why = "differs in " + ", ".join(names)
            else:
                continue
            diags.append(Diagnostic(q.loc or SourceLoc(path), f"question '{q.id}' read back from {path} {why}",
                                    rule="gift.round-trip"))
        if back.questions == quiz.questions:
            diags.append(Diagnostic(quiz.loc or SourceLoc(path), f"quiz '{quiz.id}' read back from {path} "
                                    "differs in its quiz fields", rule="gift.round-trip"))
    return diags
