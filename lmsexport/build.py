"""Run the writers of a build over a bank, in memory: no disk, no clock (the CLI writes)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .errors import Diagnostic, LmsExportError, Severity
from .model import Assessment, Bank, Quiz, SourceLoc
from .writers import BANK_WIDE, WRITERS, Output, WriteContext, get_writer

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
        elif name == "moodlexml":
            diags.extend(moodlexml_round_trip(bank, out))
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
                names = [
                    f.name for f in fields(q) if f.compare and getattr(q, f.name) != getattr(other, f.name)
                ]
                why = "differs in " + ", ".join(names)
            else:
                continue
            diags.append(
                Diagnostic(
                    q.loc or SourceLoc(path),
                    f"question '{q.id}' read back from {path} {why}",
                    rule="gift.round-trip",
                )
            )
        if back.questions == quiz.questions:
            diags.append(
                Diagnostic(
                    quiz.loc or SourceLoc(path),
                    f"quiz '{quiz.id}' read back from {path} differs in its quiz fields",
                    rule="gift.round-trip",
                )
            )
    for assessment in bank.assessments:
        diags.extend(_assessment_round_trip(assessment, out))
    return diags


def _assessment_round_trip(assessment: Assessment, out: Output) -> list[Diagnostic]:
    """Read an assessment's GIFT file back: every draw must hold, under its own category, its
    candidates as the bank has them (writers.gift.as_in_assessment), and keep its pick and points."""
    from .readers.gift import read_assessment
    from .writers.gift import as_in_assessment

    path = f"gift/{assessment.id}.gift.txt"
    try:
        back, _ = read_assessment(out.files[path].decode("utf-8"), path)
    except LmsExportError as e:
        return list(e.diagnostics)
    diags: list[Diagnostic] = []

    def differs(loc: SourceLoc | None, what: str) -> None:
        diags.append(Diagnostic(loc or assessment.loc or SourceLoc(path), f"assessment '{assessment.id}': "
                                f"{what} read back from {path} differs", rule="gift.round-trip"))  # fmt: skip

    ours = [(s, d) for s in assessment.sections for d in s.draws]
    theirs = [(s, d) for s in back.sections for d in s.draws]
    if len(ours) != len(theirs) or [s.title for s in assessment.sections] != [s.title for s in back.sections]:
        differs(assessment.loc, "its sections")
        return diags
    for (section, draw), (section2, draw2) in zip(ours, theirs, strict=True):
        if (section.shuffle, draw.name, draw.is_random, draw.pick, draw.points) != (
            section2.shuffle,
            draw2.name,
            draw2.is_random,
            draw2.pick,
            draw2.points,
        ):
            differs(draw.loc, f"draw '{draw.name}'")
        got = {c.question.id: c.question for c in draw2.candidates}
        for c in draw.candidates:
            if got.get(c.question.id) != as_in_assessment(assessment, c):
                differs(c.question.loc, f"question '{c.question.id}' (in the category of draw '{draw.name}')")
        if [c.question.id for c in draw.candidates] != list(got):
            differs(draw.loc, f"the questions of draw '{draw.name}'")
    if (back.title, back.lang, back.description) != (
        assessment.title,
        assessment.lang,
        assessment.description,
    ):
        differs(assessment.loc, "its title, language or description")
    return diags


def moodlexml_round_trip(bank: Bank, out: Output) -> list[Diagnostic]:
    """Read each written Moodle XML file back (as Moodle's importer would, with every check of
    lmsexport.readers.moodlexml) and compare it with the bank, field by field."""
    from dataclasses import fields

    from .readers.moodlexml import read_quiz
    from .writers import folder_of

    diags: list[Diagnostic] = []
    for quiz in bank.quizzes:
        path = f"{folder_of('moodlexml')}/{quiz.id}.xml"
        try:
            back, _ = read_quiz(out.files[path], path, quiz_id=quiz.id, lang=quiz.lang)
        except LmsExportError as e:
            diags.extend(e.diagnostics)
            continue
        if back == quiz:
            continue
        theirs = {q.id: q for q in back.questions}
        for q in quiz.questions:
            other = theirs.get(q.id)
            if other == q:
                continue
            why = (
                "is missing"
                if other is None
                else "differs in "
                + ", ".join(
                    f.name for f in fields(q) if f.compare and getattr(q, f.name) != getattr(other, f.name)
                )
            )
            diags.append(
                Diagnostic(
                    q.loc or SourceLoc(path),
                    f"question '{q.id}' read back from {path} {why}",
                    rule="moodlexml.round-trip",
                )
            )
        if back.questions == quiz.questions:
            names = [
                f.name for f in fields(quiz) if f.compare and getattr(quiz, f.name) != getattr(back, f.name)
            ]
            diags.append(
                Diagnostic(
                    quiz.loc or SourceLoc(path),
                    f"quiz '{quiz.id}' read back from {path} differs in {', '.join(names)}",
                    rule="moodlexml.round-trip",
                )
            )
    for assessment in bank.assessments:
        diags.extend(moodlexml_assessment_round_trip(assessment, out))
    return diags


def moodlexml_assessment_round_trip(assessment: Assessment, out: Output) -> list[Diagnostic]:
    """Read an assessment's Moodle XML file back (readers.moodlexml.read_assessment): its title,
    language, description and sections, and every draw with its pick and points holding, in its
    own category, its candidates as writers.moodlexml.as_in_assessment writes them."""
    from .readers.moodlexml import read_assessment
    from .writers import folder_of
    from .writers.moodlexml import as_in_assessment

    path = f"{folder_of('moodlexml')}/{assessment.id}.xml"
    try:
        back, _ = read_assessment(out.files[path], path)
    except LmsExportError as e:
        return list(e.diagnostics)
    diags: list[Diagnostic] = []

    def differs(loc: SourceLoc | None, what: str) -> None:
        message = f"assessment '{assessment.id}': {what} read back from {path} differs"
        diags.append(
            Diagnostic(loc or assessment.loc or SourceLoc(path), message, rule="moodlexml.round-trip")
        )

    if (back.title, back.lang, back.description) != (
        assessment.title,
        assessment.lang,
        assessment.description,
    ):
        differs(assessment.loc, "its title, language or description")
    if [(s.title, s.shuffle, len(s.draws)) for s in back.sections] != [
        (s.title, s.shuffle, len(s.draws)) for s in assessment.sections
    ]:
        differs(assessment.loc, "its sections")
        return diags
    for draw, draw2 in zip(assessment.draws, back.draws, strict=True):
        if (draw.name, draw.is_random, draw.pick, draw.points) != (
            draw2.name,
            draw2.is_random,
            draw2.pick,
            draw2.points,
        ):
            differs(draw.loc, f"draw '{draw.name}'")
        got = {c.question.id: c.question for c in draw2.candidates}
        if [c.question.id for c in draw.candidates] != list(got):
            differs(draw.loc, f"the questions of draw '{draw.name}'")
        for c in draw.candidates:
            if c.question.id in got and got[c.question.id] != as_in_assessment(assessment, draw, c):
                differs(c.question.loc, f"question '{c.question.id}' (in the category of draw '{draw.name}')")
    return diags


# --------------------------------------------------------------------------- streaming, parallel build

POOL_MIN_BYTES = 512 * 1024
"""Source bytes (~200 questions) below which a build runs in one process: below that the work
a second process could take is smaller than what starting and feeding it costs."""


@dataclass
class FileResult:
    """What building one source file gives: its outputs, problems and what the bank needs."""

    path: str
    size: int
    """Bytes of the source file (progress is counted in source bytes)."""
    quiz: Quiz | None = None
    """The quiz without its questions (what index.html needs), or None if it did not load."""
    full: Quiz | None = None
    """The whole quiz, when the build needs it at the end: assessments draw from it, and
    bank-wide formats (a cartridge) are written from every quiz."""
    assessment: Assessment | None = None
    """An assessment file's recipe (unresolved: its outputs are written once the bank is known)."""
    n_questions: int = 0
    files: dict[str, bytes] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    """Loader warnings first, then the writers' warnings."""
    source_warnings: int = 0
    """How many of ``warnings`` come from the loader."""
    source_errors: list[Diagnostic] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    """Writer errors (e.g. schema validation): a bug of ours or content a format cannot carry."""
    ids: list[tuple[str, str, SourceLoc]] = field(default_factory=list)


@dataclass
class BuildResult:
    """The outcome of build_files: counts and diagnostics; the files went to ``emit``."""

    quizzes: int = 0
    assessments: int = 0
    questions: int = 0
    files: int = 0
    warnings: list[Diagnostic] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    source_failed: bool = False
    """The errors are the loader's (nothing was built), not the writers'."""


def build_file(path: str, formats: tuple[str, ...], timestamp: int, keep: bool = False) -> FileResult:
    """Load one source file and run every writer on it: the unit of work of a parallel build.

    Every XML member is validated as in build(); index.html is left out (it needs every quiz),
    and so are the bank-wide formats (BANK_WIDE). An assessment file is only loaded: its
    outputs need the whole bank (build_assessments). With ``keep``, or when a bank-wide format
    is built, the whole quiz comes back too.
    """
    from .source import load_file

    p = Path(path)
    result = FileResult(path, p.stat().st_size if p.is_file() else 0)
    diags: list[Diagnostic] = []
    quiz = load_file(p, diags, result.warnings, result.ids)
    result.source_warnings = len(result.warnings)
    if diags or quiz is None:
        result.source_errors = diags
        return result
    if isinstance(quiz, Assessment):
        result.assessment = quiz
        return result
    if keep or BANK_WIDE.intersection(formats):
        result.full = quiz
    result.quiz = quiz.header
    result.n_questions = len(quiz.questions)
    ctx = WriteContext(formats=formats, timestamp=timestamp)
    out, errors = run_writers(Bank((quiz,)), tuple(f for f in formats if f not in BANK_WIDE), ctx)
    result.errors.extend(errors)
    result.warnings.extend(out.warnings)
    result.files.update((k, v) for k, v in out.files.items() if k != "index.html")
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


def build_files(
    paths: Sequence[Path],
    formats: Iterable[str],
    timestamp: int,
    emit: Callable[[str, bytes], None],
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> BuildResult:
    """Build the bank made of these source files, handing each output file to ``emit`` as soon
    as it is ready, so that no more than a few quizzes' outputs are ever held in memory.

    Files are emitted before the whole build is known to succeed: the caller must treat them
    as provisional (the CLI stages them) until the result has no errors. The bytes, warnings
    and errors are those of ``build(load_paths(paths), formats, timestamp)``, whatever
    ``jobs``; with ``jobs`` > 1 the files are loaded, written and validated by a pool of
    processes forked after the schemas are compiled. ``progress(done, total)`` is called in
    source bytes.
    """
    names = tuple(f for f in WRITERS if f in set(formats))
    total = sum(p.stat().st_size for p in paths if p.is_file())
    keep = any(_may_be_assessment(p) for p in paths)
    result = BuildResult()
    source_errors: list[Diagnostic] = []
    source_warnings: list[Diagnostic] = []
    writer_warnings: list[Diagnostic] = []
    ids: list[tuple[str, str, SourceLoc]] = []
    headers: list[tuple[Quiz, int]] = []
    recipes: list[Assessment] = []
    kept: dict[str, Quiz] = {}
    emitted: set[str] = set()
    done = 0

    def take(fr: FileResult) -> None:
        nonlocal done
        source_errors.extend(fr.source_errors)
        source_warnings.extend(fr.warnings[: fr.source_warnings])
        writer_warnings.extend(fr.warnings[fr.source_warnings :])
        ids.extend(fr.ids)
        done += fr.size
        if fr.quiz is not None:
            headers.append((fr.quiz, fr.n_questions))
        if fr.full is not None:
            kept[fr.path] = fr.full
        if fr.assessment is not None:
            recipes.append(fr.assessment)
        if not fr.source_errors and not source_errors:
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
        if progress is not None:
            progress(done, total)

    if jobs > 1 and len(paths) > 1:
        _run_pool(paths, names, timestamp, min(jobs, len(paths)), take, keep)
    else:
        for p in paths:
            take(build_file(p.as_posix(), names, timestamp, keep))

    from .source import check_ids

    # In path order, whatever order the workers finished in: "first defined at" must not depend on it.
    check_ids(sorted(ids, key=lambda t: (t[2].path, t[2].line, t[2].col)), source_errors)
    resolved: list[Assessment] = []
    if recipes and not source_errors:
        per_file = tuple(f for f in names if f not in BANK_WIDE)
        resolved, assessed, errors = build_assessments(
            recipes, paths, kept, per_file, timestamp, source_errors
        )
        if not source_errors and not result.errors:
            result.errors.extend(errors)
            writer_warnings.extend(assessed.warnings)
            if not result.errors:
                for rel, data in sorted(assessed.files.items()):
                    if rel not in emitted:
                        emitted.add(rel)
                        emit(rel, data)
                        result.files += 1
    if source_errors:
        result.errors = sorted(source_errors, key=Diagnostic.sort_key)
        result.warnings = source_warnings
        result.source_failed = True
        return result
    result.warnings = source_warnings if result.errors else source_warnings + writer_warnings
    if result.errors:
        return result
    headers.sort(key=lambda h: h[0].id)
    result.quizzes = len(headers)
    result.assessments = len(recipes)
    result.questions = sum(n for _, n in headers)
    bank_wide = tuple(f for f in names if f in BANK_WIDE)
    if bank_wide:
        # One output for the whole bank: written last, from every quiz and assessment, as build()
        # would.
        ctx = WriteContext(formats=names, timestamp=timestamp)
        quizzes = tuple(sorted(kept.values(), key=lambda q: q.id))
        out, errors = run_writers(Bank(quizzes, tuple(resolved)), bank_wide, ctx)
        kept.clear()
        if errors:
            result.errors = errors
            result.warnings = source_warnings
            return result
        result.warnings += out.warnings
        for rel, data in sorted(out.files.items()):
            emit(rel, data)
            result.files += 1
    if "html" in names:
        from .writers.html import render_index_of

        ctx = WriteContext(formats=names, timestamp=timestamp)
        emit("index.html", render_index_of(headers, ctx, resolved).encode("utf-8"))
        result.files += 1
    return result


def _may_be_assessment(path: Path) -> bool:
    """Whether a source file may be an assessment (a top-level `sections:` key), read cheaply.

    Only decides whether workers send their whole quizzes back (build_assessments needs them);
    a file this misses (flow style) is still built right, by loading the quizzes again.
    """
    try:
        with open(path, "rb") as fh:
            return any(line.startswith(b"sections:") for line in fh)
    except OSError:
        return False


def build_assessments(
    recipes: list[Assessment],
    paths: Sequence[Path],
    kept: dict[str, Quiz],
    names: tuple[str, ...],
    timestamp: int,
    source_errors: list[Diagnostic],
) -> tuple[list[Assessment], Output, list[Diagnostic]]:
    """Resolve the assessments against the bank and write their outputs (every format): the
    resolved assessments (sorted by id), their files and warnings, and the writers' errors.

    ``kept`` holds the quizzes the workers sent back; any other quiz file is loaded again here.
    Resolution problems (an unknown id, an empty pool...) are appended to ``source_errors``.
    """
    from .assessments import resolve_all
    from .source import load_file

    quizzes: list[Quiz] = []
    for p in paths:
        quiz = kept.get(p.as_posix())
        if quiz is None and p.as_posix() not in {r.loc.path for r in recipes if r.loc}:
            loaded = load_file(p, [], None, None)
            quiz = loaded if isinstance(loaded, Quiz) else None
        if quiz is not None:
            quizzes.append(quiz)
    bank = Bank(tuple(sorted(quizzes, key=lambda q: q.id)))
    resolved = sorted(resolve_all(bank, recipes, source_errors), key=lambda a: a.id)
    if source_errors:
        return resolved, Output(), []
    ctx = WriteContext(formats=names, timestamp=timestamp)
    out, errors = run_writers(Bank((), tuple(resolved)), names, ctx)
    out.files.pop("index.html", None)
    return resolved, out, errors


def _run_pool(
    paths: Sequence[Path],
    names: tuple[str, ...],
    timestamp: int,
    jobs: int,
    take: Callable[[FileResult], None],
    keep: bool = False,
) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    if {"qti21", "qti12", "cc13"} & set(names) and context.get_start_method() == "fork":
        # Compiled once, here, and inherited by every forked worker: compiling the QTI schema
        # (~0.8 s) in each worker costs that CPU again per worker, and validating their trees in
        # this process instead would mean parsing every document back (~0.1 ms an item, more
        # than the compile from ~8,000 questions on). Elsewhere (spawn) each worker compiles.
        if "qti21" in names:
            from .package import warm_schemas

            warm_schemas()
        if {"qti12", "cc13"} & set(names):
            from .validate_qti12 import warm

            warm()
    # Largest files first, so that no worker is left with a big file while the other idles.
    order = sorted(paths, key=lambda p: -(p.stat().st_size if p.is_file() else 0))
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        pending: set[Future[FileResult]] = {
            pool.submit(build_file, p.as_posix(), names, timestamp, keep) for p in order
        }
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


def tool_fingerprint() -> str:
    """A digest of everything besides the source that decides a build's bytes or verdict: this
    package's code, templates and schema list, and the versions of the libraries and zlib.

    The rebuild cache is keyed on it, so editing a writer (even without a version bump) or
    upgrading lxml or zlib always means a full build.
    """
    import hashlib
    import platform
    import zlib

    import jinja2
    import pygments
    import yaml
    from lxml import etree

    from . import __version__
    from .validate import schema_dir

    digest = hashlib.sha256()
    versions = (
        __version__, platform.python_version(), etree.LXML_VERSION, etree.LIBXML_VERSION,
        zlib.ZLIB_RUNTIME_VERSION, jinja2.__version__, yaml.__version__,
        pygments.__version__,  # highlighted code on the HTML pages
    )  # fmt: skip
    digest.update(repr(versions).encode())
    package = Path(__file__).resolve().parent
    for f in sorted(package.rglob("*")):
        parts = f.relative_to(package).parts
        # schemas/ (inside a wheel) is covered by its SHA256SUMS; bytecode follows the sources.
        if f.is_file() and parts[0] != "schemas" and "__pycache__" not in parts:
            digest.update(f.relative_to(package).as_posix().encode() + b"\0" + f.read_bytes())
    sums = schema_dir() / "SHA256SUMS"
    if sums.is_file():
        digest.update(sums.read_bytes())
    return digest.hexdigest()
