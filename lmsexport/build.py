"""Run the writers of a build over a bank, in memory: no disk, no clock (the CLI writes)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from .errors import Diagnostic, LmsExportError, Severity
from .model import Bank, Quiz, SourceLoc
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


def run_writers(bank: Bank, names: tuple[str, ...], ctx: WriteContext) -> tuple[Output, list[Diagnostic]]:
    """Run the named writers over a bank: (their files and warnings, their errors).

    The one loop both build paths share: a writer's exception and any error-severity
    diagnostic it returns count as errors; everything else it returns is a warning.
    """
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
    return result, errors


def build(bank: Bank, formats: Iterable[str], timestamp: int = DEFAULT_TIMESTAMP) -> Output:
    """Every file of every requested format, plus the warnings of all writers.

    Raises LmsExportError (e.g. SchemaValidationError) carrying the errors of every writer.
    """
    names = tuple(f for f in WRITERS if f in set(formats))
    result, errors = run_writers(bank, names, WriteContext(formats=names, timestamp=timestamp))
    if errors:
        raise LmsExportError(errors)
    result.files = dict(sorted(result.files.items()))
    return result


# --------------------------------------------------------------------------- check: the round trip

READERS: dict[str, str] = {
    "gift": "lmsexport.readers.gift:read_back",
}
"""Format -> "module:function" of the reader check reads that format's files of a quiz back
with: ``(quiz, the files written for it) -> (path of the file read, the quiz read back)``,
raising LmsExportError for what it cannot read. One line per format that has a reader."""


def round_trip(name: str, quiz: Quiz, files: Mapping[str, bytes]) -> list[Diagnostic]:
    """Read the quiz's files of format ``name`` back with its reader and compare with the quiz:
    a diagnostic (rule ``<format>.round-trip``) for each question that is missing or differs,
    and one if only the quiz's own fields differ."""
    from dataclasses import fields

    module, func = READERS[name].split(":")
    read_back = getattr(importlib.import_module(module), func)
    try:
        path, back = read_back(quiz, files)
    except LmsExportError as e:
        return list(e.diagnostics)
    if back == quiz:
        return []
    diags: list[Diagnostic] = []
    rule = f"{name}.round-trip"
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
        diags.append(
            Diagnostic(q.loc or SourceLoc(path), f"question '{q.id}' read back from {path} {why}", rule=rule)
        )
    if back.questions == quiz.questions:
        diags.append(
            Diagnostic(
                quiz.loc or SourceLoc(path),
                f"quiz '{quiz.id}' read back from {path} differs in its quiz fields",
                rule=rule,
            )  # fmt: skip
        )
    return diags


def gift_round_trip(bank: Bank, out: Output) -> list[Diagnostic]:
    """Read each written GIFT file back (as Moodle's parser would) and compare with the bank."""
    return [d for quiz in bank.quizzes for d in round_trip("gift", quiz, out.files)]


def check_quiz(quiz: Quiz, names: tuple[str, ...], timestamp: int) -> list[Diagnostic]:
    """Everything check finds in one quiz: each writer's warnings and errors (every XML file
    validated) and, for each format that has a reader and was written without errors, what
    the round trip finds."""
    diags: list[Diagnostic] = []
    ctx = WriteContext(formats=names, timestamp=timestamp)
    bank = Bank((quiz,))
    for name in names:
        out, errors = run_writers(bank, (name,), ctx)
        diags += out.warnings + errors
        if not errors and name in READERS:
            diags += round_trip(name, quiz, out.files)
    return diags


def check_bank(bank: Bank, timestamp: int = DEFAULT_TIMESTAMP) -> list[Diagnostic]:
    """Build every format in memory (validating every XML file), read every file that has a
    reader back and compare it with the bank; return all diagnostics, errors included (a
    pipeline sees every problem of the run at once). check_files does the same, file by file."""
    names = tuple(WRITERS)
    return [d for quiz in bank.quizzes for d in check_quiz(quiz, names, timestamp)]


# --------------------------------------------------------------------------- streaming, parallel build

POOL_MIN_BYTES = 512 * 1024
"""Source bytes (~200 questions) below which a build runs in one process: below that the work
a second process could take is smaller than what starting and feeding it costs."""


@dataclass
class FileSummary:
    """What a build needs of a source file whose outputs it does not make again: what
    index.html, the checks across files, the counts and the printed warnings use."""

    quiz: Quiz
    """The quiz without its questions."""
    n_questions: int
    ids: list[tuple[str, str, SourceLoc]]
    """(kind, id, where) of the quiz and every question, for check_ids."""
    warnings: list[Diagnostic]
    """Loader warnings first, then the writers'."""
    source_warnings: int
    """How many of ``warnings`` come from the loader."""
    outputs: dict[str, str]
    """Every output file of this source: path in OUT -> sha256 (hex) of its bytes."""


@dataclass
class FileResult:
    """What building (or checking) one source file gives: its outputs, problems and what the
    bank needs."""

    path: str
    size: int
    """Bytes of the source file (progress is counted in source bytes)."""
    quiz: Quiz | None = None
    """The quiz without its questions (what index.html needs), or None if it did not load."""
    n_questions: int = 0
    files: dict[str, bytes] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    """sha256 (hex) of each of ``files``, computed in the worker."""
    warnings: list[Diagnostic] = field(default_factory=list)
    """Loader warnings first, then the writers'."""
    source_warnings: int = 0
    """How many of ``warnings`` come from the loader."""
    source_errors: list[Diagnostic] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    """Writer errors (e.g. schema validation): a bug of ours or content a format cannot carry."""
    ids: list[tuple[str, str, SourceLoc]] = field(default_factory=list)

    def summary(self) -> FileSummary:
        assert self.quiz is not None
        return FileSummary(self.quiz, self.n_questions, self.ids, self.warnings, self.source_warnings,
                           dict(sorted(self.digests.items())))  # fmt: skip


class Reuse(Protocol):
    """What a build may leave as it is in OUT (the rebuild cache answers; see cache.py)."""

    def summary(self, path: str) -> FileSummary | None:
        """The summary of a source file whose outputs are in OUT exactly as building it (as it
        is now) would write them, or None: it must be built."""

    def derived(self, unit: str, digest: str) -> bool:
        """Whether the outputs of ``unit``, made from bank-level data (e.g. every quiz's header
        for index.html) whose digest is ``digest``, are in OUT as built from that data."""


@dataclass
class Derived:
    """Outputs made from data of the whole bank rather than from one source file."""

    digest: str
    """sha256 of the data they are made from (see index_digest)."""
    outputs: dict[str, str]
    """Path in OUT -> sha256 of its bytes."""


@dataclass
class BuildResult:
    """The outcome of build_files: counts and diagnostics; the files went to ``emit``."""

    quizzes: int = 0
    questions: int = 0
    files: int = 0
    """Output files of the build, emitted or kept."""
    warnings: list[Diagnostic] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    source_failed: bool = False
    """The errors are the loader's (nothing was built), not the writers'."""
    summaries: dict[str, FileSummary] = field(default_factory=dict)
    """Every source file of a successful build (path -> summary), built or reused."""
    reused: set[str] = field(default_factory=set)
    """Source files whose outputs were kept as they were, not built."""
    derived: dict[str, Derived] = field(default_factory=dict)
    """Bank-level units (e.g. "index.html") of a successful build, kept or built."""
    kept: set[str] = field(default_factory=set)
    """Bank-level units kept as they were, not built."""


def build_file(path: str, formats: tuple[str, ...], timestamp: int) -> FileResult:
    """Load one source file and run every writer on it: the unit of work of a parallel build.

    Every XML member is validated as in build(); index.html is left out (it needs every quiz).
    """
    import hashlib

    from .source import load_file

    p = Path(path)
    result = FileResult(path, p.stat().st_size if p.is_file() else 0)
    diags: list[Diagnostic] = []
    quiz = load_file(p, diags, result.warnings, result.ids)
    result.source_warnings = len(result.warnings)
    if diags or quiz is None:
        result.source_errors = diags
        return result
    result.quiz = replace(quiz, questions=())
    result.n_questions = len(quiz.questions)
    out, errors = run_writers(Bank((quiz,)), formats, WriteContext(formats=formats, timestamp=timestamp))
    result.errors.extend(errors)
    result.warnings.extend(out.warnings)
    result.files.update((k, v) for k, v in out.files.items() if k != "index.html")
    # Hashed here, in the worker, for the rebuild cache: the parent has the streaming to do.
    result.digests = {k: hashlib.sha256(v).hexdigest() for k, v in result.files.items()}
    return result


def default_jobs() -> int:
    """Worker processes for a large build: LMSEXPORT_JOBS if set, else the usable CPUs."""
    raw = os.environ.get("LMSEXPORT_JOBS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def index_digest(headers: Sequence[tuple[Quiz, int]], names: tuple[str, ...]) -> str:
    """sha256 of what index.html is made from: every quiz's header fields (all but where it
    was read from) and question count, in bank order, and the formats it links to."""
    import hashlib

    data = [names] + [(_header_fields(q), n) for q, n in headers]
    return hashlib.sha256(repr(data).encode("utf-8")).hexdigest()


def _header_fields(quiz: Quiz) -> tuple[object, ...]:
    from dataclasses import fields

    # repr() of str, int, float, bool, None, enums and tuples of them is exact and stable.
    return tuple((f.name, getattr(quiz, f.name)) for f in fields(quiz) if f.compare and f.name != "questions")


def build_files(
    paths: Sequence[Path],
    formats: Iterable[str],
    timestamp: int,
    emit: Callable[[str, bytes], None],
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    reuse: Reuse | None = None,
    keep: Callable[[str], None] | None = None,
    pool_min_bytes: int = 0,
) -> BuildResult:
    """Build the bank made of these source files, handing each output file to ``emit`` as soon
    as it is ready, so that no more than a few quizzes' outputs are ever held in memory.

    Files are emitted before the whole build is known to succeed: the caller must treat them
    as provisional (the CLI stages them) until the result has no errors. The bytes, warnings
    and errors are those of ``build(load_paths(paths), formats, timestamp)``, whatever
    ``jobs``; with ``jobs`` > 1 the files are loaded, written and validated by a pool of
    processes forked after the schemas are compiled. ``progress(done, total)`` is called in
    source bytes.

    With ``reuse`` (the rebuild cache), a source file it has a summary for is not loaded or
    built: its summary stands in for it and each of its outputs goes to ``keep`` instead of
    ``emit``; so does index.html when the quizzes' headers are those it was made from. The
    pool is used only when the files to build hold at least ``pool_min_bytes``.
    """
    names = tuple(f for f in WRITERS if f in set(formats))
    result = BuildResult()
    summaries: dict[str, FileSummary] = {}
    if reuse is not None:
        assert keep is not None
        for p in paths:
            found = reuse.summary(p.as_posix())
            if found is not None:
                summaries[p.as_posix()] = found
    todo = [p for p in paths if p.as_posix() not in summaries]
    total = sum(p.stat().st_size for p in todo if p.is_file())
    results: dict[str, FileResult] = {}
    source_failed = False
    emitted: set[str] = set()
    done = 0

    def take(fr: FileResult) -> None:
        nonlocal done, source_failed
        done += fr.size
        source_failed = source_failed or bool(fr.source_errors)
        if not source_failed:
            result.errors.extend(fr.errors)
            if not result.errors:
                for rel, data in sorted(fr.files.items()):
                    # A path seen before means a second quiz with the same id, which check_ids
                    # below turns into a failed build: never hand ``emit`` one path twice
                    # (with a pool, whether it happens depended on which file finished first).
                    if rel in emitted:
                        continue
                    emitted.add(rel)
                    emit(rel, data)
                    result.files += 1
        fr.files = {}  # emitted: not held while the rest is built
        results[fr.path] = fr
        if progress is not None:
            progress(done, total)

    if jobs > 1 and len(todo) > 1 and total >= pool_min_bytes:
        _run_pool([(p, build_file, (p.as_posix(), names, timestamp)) for p in todo], jobs, take,
                  warm="qti21" in names)  # fmt: skip
    else:
        for p in todo:
            take(build_file(p.as_posix(), names, timestamp))

    from .source import check_ids

    # Everything across files in the order of the paths (never in the order the pool
    # finished), so that "first defined at" names the same file on every run.
    source_errors: list[Diagnostic] = []
    source_warnings: list[Diagnostic] = []
    writer_warnings: list[Diagnostic] = []
    ids: list[tuple[str, str, SourceLoc]] = []
    for p in paths:
        key = p.as_posix()
        fr = results.get(key)
        s = summaries[key] if fr is None else None
        warnings = s.warnings if s is not None else fr.warnings  # type: ignore[union-attr]
        n_source = s.source_warnings if s is not None else fr.source_warnings  # type: ignore[union-attr]
        source_warnings += warnings[:n_source]
        writer_warnings += warnings[n_source:]
        ids += s.ids if s is not None else fr.ids  # type: ignore[union-attr]
        if fr is not None:
            source_errors += fr.source_errors
    check_ids(ids, source_errors)
    if source_errors:
        result.errors = sorted(source_errors, key=Diagnostic.sort_key)
        result.warnings = source_warnings
        result.source_failed = True
        return result
    result.warnings = source_warnings if result.errors else source_warnings + writer_warnings
    if result.errors:
        return result
    for p in paths:
        key = p.as_posix()
        fr = results.get(key)
        if fr is None:
            result.summaries[key] = summaries[key]
            result.reused.add(key)
            for rel in summaries[key].outputs:
                if rel not in emitted:
                    emitted.add(rel)
                    keep(rel)  # type: ignore[misc]
                    result.files += 1
        else:
            result.summaries[key] = fr.summary()
    headers = sorted(((s.quiz, s.n_questions) for s in result.summaries.values()), key=lambda h: h[0].id)
    result.quizzes = len(headers)
    result.questions = sum(n for _, n in headers)
    if "html" in names:
        import hashlib

        digest = index_digest(headers, names)
        if reuse is not None and reuse.derived("index.html", digest):
            keep("index.html")  # type: ignore[misc]
            result.kept.add("index.html")
            result.derived["index.html"] = Derived(digest, {})
        else:
            from .writers.html import render_index_of

            ctx = WriteContext(formats=names, timestamp=timestamp)
            data = render_index_of(headers, ctx).encode("utf-8")
            emit("index.html", data)
            result.derived["index.html"] = Derived(digest, {"index.html": hashlib.sha256(data).hexdigest()})
        result.files += 1
    return result


# --------------------------------------------------------------------------- check, file by file


def check_file(path: str, names: tuple[str, ...], timestamp: int, as_gift: bool = False) -> FileResult:
    """check's unit of work: load one source file (or read one GIFT file, as Moodle would),
    then write every format in memory, validate, and read back what has a reader. Nothing is
    kept but the quiz's header and the diagnostics: loader (or GIFT reader) problems in
    ``source_errors`` and the first ``source_warnings`` of ``warnings``, the rest in
    ``warnings`` and ``errors``."""
    p = Path(path)
    result = FileResult(path, p.stat().st_size if p.is_file() else 0)
    if as_gift:
        from .readers.gift import read_quiz_file

        quiz, found = read_quiz_file(p)
        result.source_errors = [d for d in found if d.severity is Severity.ERROR]
        result.warnings = [d for d in found if d.severity is not Severity.ERROR]
    else:
        from .source import load_file

        quiz = load_file(p, result.source_errors, result.warnings, result.ids)
    result.source_warnings = len(result.warnings)
    if result.source_errors or quiz is None:
        return result
    result.quiz = replace(quiz, questions=())
    result.n_questions = len(quiz.questions)
    for d in check_quiz(quiz, names, timestamp):
        (result.errors if d.severity is Severity.ERROR else result.warnings).append(d)
    return result


@dataclass
class CheckResult:
    """What check_files found, in the groups `lmsexport check` reports."""

    loader_warnings: list[Diagnostic] = field(default_factory=list)
    loader_errors: list[Diagnostic] = field(default_factory=list)
    """YAML loader errors, and ids used twice across files."""
    gift: list[Diagnostic] = field(default_factory=list)
    """What reading the GIFT files given found, warnings included."""
    writers: list[Diagnostic] = field(default_factory=list)
    """Writer warnings and errors, schema validation and round trips of every quiz."""
    quizzes: int = 0
    questions: int = 0

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """What the run reports: loader warnings; then loader errors if any, else (when every
        GIFT file was read) what the writers found; then what reading the GIFT files found."""
        diags = self.loader_warnings + self.loader_errors
        if not self.loader_errors and not self.gift_failed:
            diags = diags + self.writers
        return diags + self.gift

    @property
    def gift_failed(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.gift)

    @property
    def loaded(self) -> bool:
        """The whole bank loaded (so its quizzes were written and checked)."""
        return not self.loader_errors and not self.gift_failed


def check_files(
    paths: Sequence[Path], gift_paths: Sequence[Path], timestamp: int, jobs: int = 1
) -> CheckResult:
    """check_bank over the bank made of these YAML files and GIFT files (each read as Moodle
    would), file by file: with ``jobs`` > 1 each file is loaded, written in every format,
    validated and read back in a pool of processes forked after the schemas are compiled, as
    build_files does; ids are checked across the YAML files here."""
    names = tuple(WRITERS)
    tasks: list[tuple[Path, Callable[..., FileResult], tuple[object, ...]]] = [
        (p, check_file, (p.as_posix(), names, timestamp)) for p in paths
    ] + [(p, check_file, (p.as_posix(), names, timestamp, True)) for p in gift_paths]
    results: dict[tuple[bool, str], FileResult] = {}
    gift_keys = {p.as_posix() for p in gift_paths}

    def take(fr: FileResult) -> None:
        results[(fr.path in gift_keys, fr.path)] = fr

    if jobs > 1 and len(tasks) > 1:
        _run_pool(tasks, jobs, take, warm=True)
    else:
        for _, fn, args in tasks:
            take(fn(*args))

    from .source import check_ids

    result = CheckResult()
    ids: list[tuple[str, str, SourceLoc]] = []
    for as_gift, group in ((False, paths), (True, gift_paths)):
        for p in group:
            fr = results[(as_gift, p.as_posix())]
            own = fr.warnings[: fr.source_warnings]
            if as_gift:
                result.gift += own + fr.source_errors
            else:
                result.loader_warnings += own
                result.loader_errors += fr.source_errors
                ids += fr.ids
            result.writers += fr.warnings[fr.source_warnings :] + fr.errors
            if fr.quiz is not None:
                result.quizzes += 1
                result.questions += fr.n_questions
    check_ids(ids, result.loader_errors)
    if not result.loaded:
        result.quizzes = result.questions = 0
    return result


# --------------------------------------------------------------------------- the pool


def _run_pool(
    tasks: Sequence[tuple[Path, Callable[..., FileResult], tuple[object, ...]]],
    jobs: int,
    take: Callable[[FileResult], None],
    warm: bool,
) -> None:
    """Run ``fn(*args)`` of every (source path, fn, args) task in a pool of ``jobs`` processes,
    handing each result to ``take`` (in this process) as soon as it is done."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    if warm and context.get_start_method() == "fork":
        # Compiled once, here, and inherited by every forked worker: compiling the QTI schema
        # in each worker costs that CPU again per worker, and validating their trees in this
        # process instead would mean parsing every document back (~0.1 ms an item, more than
        # the compile from ~8,000 questions on). Elsewhere (spawn) each worker compiles.
        from .package import warm_schemas

        warm_schemas()
    # Largest files first, so that no worker is left with a big file while the other idles.
    order = sorted(tasks, key=lambda t: -(t[0].stat().st_size if t[0].is_file() else 0))
    with ProcessPoolExecutor(
        max_workers=min(jobs, len(tasks)),
        mp_context=context,
        initializer=_die_with_parent,
        initargs=(os.getpid(),),
    ) as pool:
        pending: set[Future[FileResult]] = {pool.submit(fn, *args) for _, fn, args in order}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                take(future.result())
            del finished  # drop the results: only the pending ones stay in memory


def _die_with_parent(parent: int) -> None:
    """Pool worker initializer: end the worker when the build process dies.

    A build killed with SIGKILL (a CI timeout) cannot stop its pool, and each worker would
    then wait forever for work on a queue its sibling keeps open: measured, every killed
    parallel build left two sleeping processes of ~70 MB behind. Linux's PR_SET_PDEATHSIG has
    the kernel kill the worker when the thread that forked it (the build's main thread, which
    submits the work) exits; elsewhere nothing is done.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl: nobody will signal us
        os._exit(1)
