"""Run the linter over source files: per file (in a pool of processes for a large bank), then
the bank-wide rules over what every file sent back.

A file that does not load is reported with the loader's errors (they cannot be ignored); the
other files are still linted. Loader warnings are `lmsexport check`'s business and are not
repeated here. Assessment files are loaded (their errors reported) but hold no questions.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import Diagnostic
from ..model import MultipleChoice, Quiz, SingleChoice, SourceLoc, plain_text
from .checks import Finding, QuizLinter
from .config import LintConfig
from .dupes import MIN_CHOICES, StemRecord, find, signatures
from .sourcemap import Ignores, SourceFile
from .text import normalize

if TYPE_CHECKING:
    import numpy as np

BANK_RULES = frozenset({"LX203", "LX302", "LX303"})


@dataclass
class FileLint:
    """What linting one file gives the parent."""

    path: str
    size: int
    findings: list[Finding] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    """The loader's errors: the file was not linted."""
    ids: list[tuple[str, str, SourceLoc]] = field(default_factory=list)
    records: list[StemRecord] = field(default_factory=list)
    signatures: Any = None
    """np.ndarray (len(records) x NUM_PERM) when LX303 is on."""
    ignores: Ignores | None = None
    quizzes: int = 0
    questions: int = 0


@dataclass
class LintResult:
    diagnostics: list[Diagnostic]
    """Findings that are not ignored, and the loader's errors, sorted by position."""
    files: list[str]
    quizzes: int = 0
    questions: int = 0
    ignored: int = 0
    """Findings silenced by ignore comments or per-file-ignores."""


def lint_file(path: str, enabled: frozenset[str], alpha: float) -> FileLint:
    """Load one source file and run every per-file rule on it (the unit of work of the pool)."""
    from ..source import decode_source, load_bytes

    p = Path(path)
    result = FileLint(path, 0)
    try:
        data = p.read_bytes()
    except OSError as e:
        result.errors.append(
            Diagnostic(SourceLoc(path), f"cannot read the file: {e.strerror}", rule="source.io")
        )
        return result
    result.size = len(data)
    doc = load_bytes(data, path, result.errors, None, result.ids)
    if result.errors or doc is None:
        return result
    text = decode_source(data, path, []) or ""
    src = SourceFile(path, text)
    result.findings += [Finding(d) for d in src.problems if "LX001" in enabled]
    result.ignores = src.ignores()
    if not isinstance(doc, Quiz):
        return result
    result.quizzes, result.questions = 1, len(doc.questions)
    result.findings += QuizLinter(doc, src, enabled, alpha).run()
    if enabled & BANK_RULES:
        for q in doc.questions:
            choices = None
            if isinstance(q.body, SingleChoice | MultipleChoice) and len(q.body.choices) >= MIN_CHOICES:
                right = set(q.body.key_indexes)
                choices = tuple(
                    sorted((normalize(plain_text(c.text)), i in right) for i, c in enumerate(q.body.choices))
                )
            loc = q.loc or SourceLoc(path)
            result.records.append(StemRecord(q.id, loc, normalize(plain_text(q.stem)), choices))
        if "LX303" in enabled:
            result.signatures = signatures([r.stem for r in result.records])
    return result


def lint_paths(
    files: Sequence[Path],
    config: LintConfig,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> LintResult:
    """Lint these source files (from source.discover) as one bank."""
    enabled = config.enabled
    alpha = config.significance
    results: list[FileLint] = []
    names = [f.as_posix() for f in files]
    total = sum(f.stat().st_size for f in files if f.is_file())
    done = 0

    def take(r: FileLint) -> None:
        nonlocal done
        results.append(r)
        done += r.size
        if progress is not None:
            progress(done, total)

    if jobs > 1 and len(names) > 1:
        # Imported once here and inherited by the forked workers (SciPy's stats take ~1 s).
        if enabled & {"LX101", "LX103"}:
            import scipy.stats  # noqa: F401
        if "LX303" in enabled:
            import datasketch  # noqa: F401
        _run_pool(names, enabled, alpha, min(jobs, len(names)), take)
    else:
        for name in names:
            take(lint_file(name, enabled, alpha))
    results.sort(key=lambda r: r.path)

    from ..source import check_ids

    errors: list[Diagnostic] = [d for r in results for d in r.errors]
    check_ids([i for r in results for i in r.ids], errors)
    findings = [(r.path, f) for r in results for f in r.findings]
    if enabled & BANK_RULES:
        records = [rec for r in results for rec in r.records]
        sigs = _stack([r.signatures for r in results if r.records]) if "LX303" in enabled else None
        findings += [(f.diag.loc.path, f) for f in find(records, sigs, enabled)]
    ignores = {r.path: r.ignores for r in results}
    kept: list[Diagnostic] = []
    ignored = 0
    per_file = {r.path: config.file_ignores(r.path) for r in results}
    for path, f in findings:
        rule = f.diag.rule
        if rule not in enabled:
            continue
        ig = ignores.get(path)
        if any(rule.startswith(s) for s in per_file.get(path, ())) or (
            ig is not None and ig.ignored(rule, f.diag.loc.line, f.question)
        ):
            ignored += 1
            continue
        kept.append(f.diag)
    diagnostics = sorted(errors + kept, key=lambda d: (*d.sort_key(), d.rule))
    return LintResult(
        diagnostics,
        names,
        quizzes=sum(r.quizzes for r in results),
        questions=sum(r.questions for r in results),
        ignored=ignored,
    )


def _stack(parts: list[np.ndarray]) -> np.ndarray:
    import numpy as np

    from .dupes import NUM_PERM

    return np.concatenate(parts) if parts else np.zeros((0, NUM_PERM), dtype=np.uint32)


def _run_pool(
    names: list[str], enabled: frozenset[str], alpha: float, jobs: int, take: Callable[[FileLint], None]
) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    from ..build import _die_with_parent

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    # Largest files first, so that no worker is left with a big file while the other idles.
    order = sorted(names, key=lambda n: -(os.path.getsize(n) if os.path.isfile(n) else 0))
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        pending: set[Future[FileLint]] = {pool.submit(lint_file, n, enabled, alpha) for n in order}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                take(future.result())
            del finished
