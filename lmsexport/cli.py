"""The command line: the only layer that touches the disk and picks exit codes.

Exit codes: 0 success; 1 problems in the content (source, packages); 2 usage errors
(unknown option or format, missing path). Library errors arrive as LmsExportError with
their diagnostics and are printed in compiler form, never as a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from . import __version__
from .errors import Diagnostic, LmsExportError, Severity
from .stage import ImportStage, same_content
from .writers import WRITERS

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2

app = typer.Typer(
    name="lmsexport",
    help="Build QTI 2.1 and QTI 1.2 packages, a Common Cartridge, Moodle GIFT files and HTML quizzes "
    "from a YAML question bank; import banks from Moodle and QTI platforms.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"lmsexport {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """lmsexport: one YAML question bank -> QTI 2.1, QTI 1.2 (Canvas), Common Cartridge, GIFT, HTML."""


class ReportFormat(str, Enum):
    text = "text"
    json = "json"
    github = "github"
    junit = "junit"


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


def _usage(message: str) -> NoReturn:
    _err(f"lmsexport: error: {message}")
    raise typer.Exit(EXIT_USAGE)


def _print_diagnostics(diags: list[Diagnostic]) -> None:
    sys.stderr.write(_rendered(diags))  # (one write: a write a line took ~0.15 s more at 80,000)


def _write_utf8(chunks: Sequence[bytes | memoryview]) -> None:
    """UTF-8 text, in pieces, on standard error: its bytes as they are, when it writes UTF-8
    (74 MB at 100,000 questions of the real-shaped bank, not decoded to be encoded again, nor
    joined)."""
    import codecs

    stream = sys.stderr
    buffer = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None) or "ascii"
    # (as they are only where a text stream writes "\n" as it is: not on Windows)
    if buffer is not None and codecs.lookup(encoding).name == "utf-8" and os.linesep == "\n":
        stream.flush()
        buffer.writelines(chunks)
        buffer.flush()
    else:
        stream.write(b"".join(chunks).decode("utf-8", "replace"))


def _rendered(diags: list[Diagnostic]) -> str:
    """Diagnostics as they are printed: in order of place, one formatted each a line (joined
    1,000 at a time: 450,000 lines are ~60 MB, and not held as 450,000 strings besides)."""
    ordered = sorted(diags, key=Diagnostic.sort_key)
    chunks = range(0, len(ordered), 1000)
    return "".join(["".join([f"{d.format()}\n" for d in ordered[i : i + 1000]]) for i in chunks])


def _summary(diags: list[Diagnostic]) -> str:
    from .report import summary_line

    return summary_line(diags)


def _formats(formats: list[str] | None) -> list[str]:
    chosen = formats or list(WRITERS)
    for f in chosen:
        if f not in WRITERS:
            _usage(f"unknown format '{f}' (available: {', '.join(WRITERS)})")
    return chosen


GIFT_SUFFIXES = (".gift", ".gift.txt")
"""Files `check` reads as GIFT, the way Moodle's importer would, instead of as YAML."""
MOODLEXML_SUFFIXES = (".xml",)
"""Files `check` reads as Moodle XML, the way Moodle's importer would."""
YAML_SUFFIXES = (".yaml", ".yml")
CHECK_KINDS = "YAML sources (.yaml, .yml), GIFT (.gift, .gift.txt) and Moodle XML (.xml)"
"""What `check` reads, for the message given about any other file."""


PathsArg = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Source YAML files or directories searched recursively [default: source/]; "
        "check also reads .gift/.gift.txt (GIFT) and .xml (Moodle XML) files as Moodle would",
        show_default=False,
    ),
]


@app.command()
def check(
    paths: PathsArg = None,
    report: Annotated[
        ReportFormat,
        typer.Option(
            "--report", "-r", help="Output: text (people), json, github (workflow commands) or junit."
        ),
    ] = ReportFormat.text,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
) -> None:
    """Check the bank as a pipeline would: load, build every format in memory, validate.

    Every XML file is validated against the bundled XSDs and every GIFT and Moodle XML file
    is read back and compared with the bank. Files given by name are read by their kind:
    .yaml/.yml as source, .gift/.gift.txt as GIFT and .xml as Moodle XML, each as Moodle's
    importer reads it. Nothing is written. Every problem of the run is reported; exit 0 when
    sound, 1 on errors (or warnings with --strict), 2 on usage errors.
    """
    from .assessments import describe, summarize
    from .build import POOL_MIN_BYTES, check_files, default_jobs, timestamp_from_env
    from .report import RunSummary, failed, to_github, to_json, to_junit
    from .source import PathError, discover

    roots = paths or [Path("source")]
    named = [p for p in roots if p.is_file()]
    gift_files = [p for p in named if p.name.lower().endswith(GIFT_SUFFIXES)]
    xml_files = [p for p in named if p.name.lower().endswith(MOODLEXML_SUFFIXES)]
    for p in named:
        if p not in gift_files and p not in xml_files and not p.name.lower().endswith(YAML_SUFFIXES):
            _usage(f"{p}: check reads {CHECK_KINDS}; this file is none of them")
    roots = [p for p in roots if p not in gift_files and p not in xml_files]
    try:
        sources = discover(roots)
    except PathError as e:
        _usage(str(e))
    if roots and not sources:
        _usage("no source files (*.yaml, *.yml) found in " + ", ".join(str(p) for p in roots))
    foreign = [(p, "gift") for p in gift_files] + [(p, "moodlexml") for p in xml_files]
    files = [f.as_posix() for f in sources] + [p.as_posix() for p, _ in foreign]
    from . import templatecache

    templatecache.load()
    try:
        result = check_files(sources, timestamp_from_env(), foreign, default_jobs(), POOL_MIN_BYTES)
        templatecache.save()
        diags = result.diagnostics
        quizzes, questions, assessments = result.quizzes, result.questions, result.assessments
    except LmsExportError as e:  # SOURCE_DATE_EPOCH
        diags, quizzes, questions, assessments = list(e.diagnostics), 0, 0, []
    summary = RunSummary(
        files=len(files),
        quizzes=quizzes,
        questions=questions,
        strict=strict,
        assessments=tuple(summarize(a) for a in assessments),
    )
    bad = failed(diags, strict)
    if report is ReportFormat.json:
        sys.stdout.write(to_json(diags, summary))
    elif report is ReportFormat.github:
        sys.stdout.write(to_github(diags))
    elif report is ReportFormat.junit:
        sys.stdout.write(to_junit(diags, summary, files))
    else:
        _print_diagnostics(diags)
        if bad:
            _err(_summary(diags))
        else:
            for assessment in summary.assessments:
                typer.echo("\n".join(describe(assessment)))
            tail = f" ({_summary(diags)})" if diags else ""
            n = len(summary.assessments)
            assessed = f", {n} assessment{'s' if n != 1 else ''}" if n else ""
            typer.echo(f"ok: {summary.quizzes} quizzes{assessed}, {summary.questions} questions{tail}")
    if bad:
        raise typer.Exit(EXIT_PROBLEMS)


@app.command()
def build(
    paths: PathsArg = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")] = Path("dist"),
    fmt: Annotated[
        list[str] | None,
        typer.Option(
            "--format",
            "-f",
            help=f"Output format, repeatable: {', '.join(WRITERS)} [default: all]",
            show_default=False,
        ),
    ] = None,
    check_only: Annotated[
        bool,
        typer.Option(
            "--check", help="Build in memory and fail if OUT differs (stale, missing or extra files)."
        ),
    ] = False,
) -> None:
    """Build the output packages of the bank into OUT (default dist/).

    Every XML file is validated against the bundled XSDs before anything is written.
    Files are written to a temporary directory beside OUT and moved into place only
    when the whole build succeeded; unchanged files are left untouched. A rebuild makes
    again only the outputs of the source files that changed, or whose images changed (and
    what is made from the whole bank, such as index.html, when that changed): a small cache
    file beside OUT records what the last build made. Any change to lmsexport, its
    libraries, the formats or SOURCE_DATE_EPOCH, and any output changed by hand, means
    building again; --check never reads the cache.
    """
    from .build import POOL_MIN_BYTES, build_files, collector_spared, default_jobs, timestamp_from_env
    from .source import PathError, discover
    from .stage import Checker, Stager, managed_paths

    formats = _formats(fmt)
    roots = paths or [Path("source")]
    try:
        sources = discover(roots)
    except PathError as e:
        _usage(str(e))
    if not sources:
        _usage("no source files (*.yaml, *.yml) found in " + ", ".join(str(p) for p in roots))
    try:
        timestamp = timestamp_from_env()
    except LmsExportError as e:
        _print_diagnostics(e.diagnostics)
        raise typer.Exit(EXIT_PROBLEMS) from None
    managed = managed_paths(out, formats)
    total = sum(f.stat().st_size for f in sources)
    cache = None
    if not check_only:
        from .cache import RebuildCache

        cache = RebuildCache(out, formats, timestamp)
        cache.open(sources)
    # With the rebuild cache: the record just read (~3 million objects at 100,000 questions of
    # the real-shaped bank, alive until the command ends, without cycles) out of the
    # collector's full passes, which walked it again and again while a no-op decoded, sorted
    # and printed its 400,000 warnings.
    with collector_spared() if cache is not None else contextlib.nullcontext():
        from . import templatecache

        templatecache.load()
        sink: Checker | Stager = Checker(out) if check_only else Stager(out)
        with _progress_bar(total) as progress:
            try:
                result = build_files(
                    sources,
                    formats,
                    timestamp,
                    sink.add,
                    jobs=default_jobs(),
                    progress=progress,
                    reuse=cache,
                    keep=None if isinstance(sink, Checker) else sink.keep,
                    pool_min_bytes=POOL_MIN_BYTES,
                )
            except BaseException:
                sink.discard()
                raise
        templatecache.save()
        if result.errors:
            sink.discard()
            _print_diagnostics(result.errors + result.warnings)
            _err(_summary(result.errors + result.warnings) + "; nothing written")
            raise typer.Exit(EXIT_PROBLEMS)
        # A no-op prints what the build it repeats printed (the rebuild cache keeps the text),
        # not its warnings decoded, sorted and formatted again (400,000 of them at 100,000
        # questions of the real-shaped bank: ~1.7 s).
        # (encoded as standard error would, and only the bytes kept: 74 MB there)
        # After an edit, the unchanged files' warnings are printed as they were (their blocks
        # copied from that text: result.pieces), not decoded, sorted and formatted again.
        from .report import Printed
        from .report import printed as printed_of

        if result.replayed is not None:
            printed = Printed((result.replayed,), {})
        else:
            printed = printed_of(result.warnings, result.pieces)
        _write_utf8(printed.chunks)
        if isinstance(sink, Checker):
            problems = sink.problems + sink.extra(managed)
            for p in problems:
                _err(p)
            if problems:
                _err(
                    f"{out}: {len(problems)} file(s) out of date; run 'lmsexport build' and commit the result"
                )
                raise typer.Exit(EXIT_PROBLEMS)
            typer.echo(f"ok: {out} is up to date ({result.files} files)")
            return
        changed, removed = sink.commit(managed)
        if cache is not None:
            cache.save(result, printed)
        assessed = (
            f", {result.assessments} assessment{'s' if result.assessments != 1 else ''}"
            if result.assessments
            else ""
        )
        quiz_files = len(result.summaries)
        reused = len(result.reused)
        if reused == quiz_files and not changed and not result.derived.keys() - result.kept:
            tail = " (cached)"
        elif reused:
            tail = f" ({reused} of {quiz_files} quiz files unchanged, not rebuilt)"
        else:
            tail = ""
        typer.echo(
            f"built {result.quizzes} quizzes{assessed}, {result.questions} questions into {out}: "
            f"{result.files} files, {changed} written, {result.files - changed} unchanged"
            + (f", {removed} removed" if removed else "")
            + tail
        )


class _progress_bar:  # noqa: N801 - used as a context manager, like open()
    """A rich progress bar on standard error for a build that runs longer than about a second.

    Only when standard error is a terminal and the CI variable is not set: never in logs,
    pipes or captured test output. Progress is counted in source bytes built.
    """

    DELAY = 1.0

    def __init__(self, total: int) -> None:
        import time

        self.total = total
        self.start = time.monotonic()
        self.enabled = sys.stderr.isatty() and not os.environ.get("CI")
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self.update if self.enabled else None

    def update(self, done: int, total: int) -> None:
        import time

        if self.bar is None:
            if time.monotonic() - self.start < self.DELAY or done >= total:
                return
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("building"),
                BarColumn(),
                TaskProgressColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("build", total=total)
        self.bar.update(self.task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


@app.command()
def validate(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="QTI 2.1 or QTI 1.2 packages (.zip), Common Cartridges (.imscc) or single QTI XML files."
        ),
    ],
    report: Annotated[
        ReportFormat,
        typer.Option(
            "--report", "-r", help="Output: text (people), json, github (workflow commands) or junit."
        ),
    ] = ReportFormat.text,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too (never on notes).")] = False,
) -> None:
    """Validate existing packages or XML files against the bundled schemas, offline.

    A zip is checked as QTI 2.1, QTI 1.2 or Common Cartridge as its manifest says (a
    .imscc is a cartridge): the manifest, that every referenced file is present, and every
    XML file against its schema (XSD, the QTI 1.2.1 DTD, the Common Cartridge Schematron
    rules). Packages are untrusted input: unsafe paths, links, encrypted entries, zip
    bombs, entity declarations and external entities are refused. Problems print as
    member:line; exit 1 on errors (or warnings with --strict); notes (harmless facts)
    never fail.
    """
    from .report import RunSummary, failed, to_github, to_json, to_junit
    from .validate import validate_xml_file
    from .validate_qti12 import validate_any_package, validate_qti12_xml_file

    diags: list[Diagnostic] = []
    for f in files:
        if not f.is_file():
            _usage(f"{f}: no such file")
    for f in files:
        if f.suffix.lower() in (".zip", ".imscc"):
            diags += validate_any_package(f, f.as_posix())
        else:
            found = validate_qti12_xml_file(f, str(f))
            diags += validate_xml_file(f) if found is None else found
    summary = RunSummary(files=len(files), strict=strict, command="validate")
    bad = failed(diags, strict)
    if report is ReportFormat.json:
        sys.stdout.write(to_json(diags, summary))
    elif report is ReportFormat.github:
        sys.stdout.write(to_github(diags))
    elif report is ReportFormat.junit:
        sys.stdout.write(to_junit(diags, summary, [f.as_posix() for f in files]))
    else:
        _print_diagnostics(diags)
        if bad:
            _err(_summary(diags))
        else:
            tail = f" ({_summary(diags)})" if diags else ""
            typer.echo(f"ok: {len(files)} file(s) valid{tail}")
    if bad:
        raise typer.Exit(EXIT_PROBLEMS)


@app.command("import")
def import_(
    sources: Annotated[
        list[Path],
        typer.Argument(
            help="GIFT files (.gift, .gift.txt, .txt), Moodle XML or QTI XML files (.xml), QTI 2.1 or "
            "QTI 1.2 packages (.zip, or an unpacked package folder), Common Cartridges (.imscc), or "
            "folders searched for them",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder to write the YAML files (and an img/ folder) into.")
    ],
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="BCP 47 language of sources that do not name theirs (GIFT, most Moodle XML) "
            "[default: und, with a warning]",
            show_default=False,
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace existing files in OUT.")] = False,
    report: Annotated[
        ReportFormat,
        typer.Option(
            "--report", "-r", help="Output: text (people), json, github (workflow commands) or junit."
        ),
    ] = ReportFormat.text,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail (and write nothing) on warnings too.")
    ] = False,
) -> None:
    """Import questions from Moodle (GIFT, Moodle XML) and QTI platforms (QTI 2.1 and QTI 1.2
    packages, Common Cartridges) as YAML source files in OUT.

    One file per quiz (a GIFT or Moodle category, a QTI test or package) and per assessment (a
    test that draws questions at random), named after its title; images go to OUT/img/. Ids come
    from the source, made valid and unique (the original kept in a comment). Everything lmsexport
    cannot carry (a question type it lacks, partial credit, unsupported markup) is a warning naming
    the file, line and question, and a comment in the YAML. The files are written to a temporary
    folder, loaded again and compared with what was read, and only then moved into OUT; existing
    files are replaced only with --force. Exit 0 when imported, 1 when a source cannot be read
    (nothing is written), 2 on usage errors (a missing path, files in the way without --force).
    """
    from .importer import ImportPathError, find_sources, output_files, read_sources, verify
    from .report import RunSummary, failed, to_github, to_json, to_junit

    if lang is not None:
        from .langtag import tag_is_valid

        if not tag_is_valid(lang):
            _usage(f"--lang '{lang}' is not a valid BCP 47 language tag (for example: ur, en, ur-PK)")
    if out.exists() and not out.is_dir():
        _usage(f"{out}: --out must be a folder, and this is a file")
    try:
        found = find_sources(sources)
    except ImportPathError as e:
        _usage(str(e))
    if not found:
        _usage("no file to import (GIFT, Moodle XML, QTI) in " + ", ".join(str(p) for p in sources))
    result = read_sources(found, lang)
    diags = list(result.diags)
    written = 0
    if not result.failed:
        files, lost = output_files(result)
        in_the_way = sorted(
            rel for rel, data in files.items() if (out / rel).exists() and not same_content(out / rel, data)
        )
        if in_the_way and not force:
            shown = ", ".join(str(out / rel) for rel in in_the_way[:5]) + (
                " ..." if len(in_the_way) > 5 else ""
            )
            _usage(
                f"{len(in_the_way)} file(s) already exist with other content: {shown}; "
                "use --force to replace them"
            )
        stage = ImportStage(out)
        try:
            stage.write(files)
            diags += verify(stage.folder, result, lost, out)
            if not failed(diags, strict):
                written = stage.commit(files)
        finally:
            stage.discard()
    summary = RunSummary(
        files=result.files,
        quizzes=len(result.quizzes),
        questions=result.questions,
        strict=strict,
        command="import",
        skipped=tuple(sorted(Counter(s.kind for s in result.skipped).items())),
    )
    bad = failed(diags, strict)
    if report is ReportFormat.json:
        sys.stdout.write(to_json(diags, summary))
    elif report is ReportFormat.github:
        sys.stdout.write(to_github(diags))
    elif report is ReportFormat.junit:
        sys.stdout.write(to_junit(diags, summary, [s.display for s in found]))
    else:
        _print_diagnostics(diags)
        if bad:
            _err(_summary(diags) + "; nothing written")
        else:
            tail = f" ({_summary(diags)})" if diags else ""
            typer.echo(result.summary() + tail)
            typer.echo(
                f"wrote {written} file(s) to {out}: {len(result.quizzes)} quiz(zes)"
                + (f", {len(result.assessments)} assessment(s)" if result.assessments else "")
            )
    if bad:
        raise typer.Exit(EXIT_PROBLEMS)


class LintReport(str, Enum):
    text = "text"
    json = "json"
    github = "github"
    junit = "junit"
    sarif = "sarif"


def _selector_list(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [v.strip() for raw in values for v in raw.split(",") if v.strip()]


@app.command()
def lint(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Source YAML files or directories [default: source/]", show_default=False),
    ] = None,
    select: Annotated[
        list[str] | None,
        typer.Option(
            "--select",
            help="Rules to run: ids or prefixes (LX3, LX401, ALL), comma-separated or repeated; "
            "replaces the configured select",
            show_default=False,
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore",
            help="Rules not to run (ids or prefixes), added to the configured ignore.",
            show_default=False,
        ),
    ] = None,
    report: Annotated[
        LintReport,
        typer.Option("--report", "-r", help="Output: text (people), json, github, junit or sarif."),
    ] = LintReport.text,
    exit_zero: Annotated[
        bool, typer.Option("--exit-zero", help="Exit 0 even when rules fire (loading errors still fail).")
    ] = False,
    list_rules: Annotated[bool, typer.Option("--list-rules", help="Print every rule and exit.")] = False,
) -> None:
    """Lint the bank against item-writing rules (docs/lint.md): key position and length,
    clang associations, 'all/none of the above', negative stems, duplicates, Urdu text
    quality, explanations.

    Each finding prints as path:line:col: warning: message [LX...] with a hint. Configure in
    pyproject.toml's [tool.lmsexport.lint] (select, ignore, per-file-ignores, significance),
    found from the current directory upward; ignore in a file with a comment
    '# lmsexport: ignore[LX301]' at its top, on a line, or above a question's id. Exit 0
    without findings, 1 with findings (like ruff; notes never fail) or load errors, 2 on
    usage errors.
    """
    from .lint.config import ConfigError, load_config
    from .lint.engine import lint_paths
    from .lint.rules import RULES, SelectorError, check_selector, sarif_rules
    from .report import RunSummary, fails, to_github, to_json, to_junit, to_sarif
    from .source import PathError, discover

    if list_rules:
        for r in RULES.values():
            typer.echo(f"{r.id}  {r.severity.value:<7}  {r.name:<32}  {r.summary}")
        return
    try:
        config = load_config()
        from dataclasses import replace

        chosen = _selector_list(select)
        if chosen is not None:
            config = replace(config, select=tuple(check_selector(s) for s in chosen))
        extra = _selector_list(ignore)
        if extra:
            config = replace(config, ignore=config.ignore + tuple(check_selector(s) for s in extra))
    except (ConfigError, SelectorError) as e:
        _usage(str(e))
    roots = paths or [Path("source")]
    try:
        files = discover(roots)
    except PathError as e:
        _usage(str(e))
    if not files:
        _usage("no source files (*.yaml, *.yml) found in " + ", ".join(str(p) for p in roots))
    from .build import POOL_MIN_BYTES, default_jobs

    total = sum(f.stat().st_size for f in files)
    jobs = default_jobs() if total >= POOL_MIN_BYTES else 1
    result = lint_paths(files, config, jobs=jobs)
    diags = result.diagnostics
    problems = any(d.severity is Severity.ERROR and not d.rule.startswith("LX") for d in diags)
    bad = problems or (not exit_zero and any(fails(d, True) for d in diags))
    summary = RunSummary(
        files=len(files),
        quizzes=result.quizzes,
        questions=result.questions,
        strict=not exit_zero,
        command="lint",
        ok=not bad,
    )
    if report is LintReport.json:
        sys.stdout.write(to_json(diags, summary))
    elif report is LintReport.github:
        sys.stdout.write(to_github(diags))
    elif report is LintReport.junit:
        sys.stdout.write(to_junit(diags, summary, [f.as_posix() for f in files]))
    elif report is LintReport.sarif:
        rules = sarif_rules(config.docs_url)
        sys.stdout.write(to_sarif(diags, rules, __version__, config.docs_url))  # type: ignore[arg-type]
    else:
        for d in diags:
            tag = f" [{d.rule}]" if d.rule.startswith("LX") else ""
            _err(f"{d.loc}: {d.severity.value}: {d.message}{tag}" + (f"\nhint: {d.hint}" if d.hint else ""))
        ignored = f"; {result.ignored} ignored" if result.ignored else ""
        if diags:
            _err(f"{_summary(diags)} in {result.quizzes} quizzes, {result.questions} questions{ignored}")
        else:
            typer.echo(f"ok: {result.quizzes} quizzes, {result.questions} questions: no findings{ignored}")
    if bad:
        raise typer.Exit(EXIT_PROBLEMS)


@app.command()
def preview(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Source YAML files or directories [default: source/]", show_default=False),
    ] = None,
    port: Annotated[
        int,
        typer.Option("--port", "-p", help="Port on 127.0.0.1 (0: any free port, printed).", min=0, max=65535),
    ] = 8000,
) -> None:
    """Serve the bank's HTML quizzes on 127.0.0.1, rebuilt and reloaded as you edit.

    The pages are built into a temporary folder exactly as 'lmsexport build --format html'
    builds them; a changed source file is rebuilt alone and the page in the browser reloads by
    itself. Problems (path:line:col: error: ...) show above the page and in the terminal.
    Served on 127.0.0.1 only; Ctrl-C stops and removes the folder.
    """
    import threading

    from .build import timestamp_from_env
    from .preview import Preview, Snapshot, remove, serve, temporary_folder
    from .source import PathError, discover

    roots = paths or [Path("source")]
    try:
        if not discover(roots):
            _usage("no source files (*.yaml, *.yml) found in " + ", ".join(str(p) for p in roots))
        timestamp = timestamp_from_env()
    except PathError as e:
        _usage(str(e))
    except LmsExportError as e:
        _print_diagnostics(e.diagnostics)
        raise typer.Exit(EXIT_PROBLEMS) from None
    folder = temporary_folder()
    state = Preview(roots, folder, timestamp)

    def report(snapshot: Snapshot) -> None:
        _print_diagnostics(snapshot.errors + snapshot.warnings)
        if snapshot.errors:
            _err(f"build {snapshot.generation}: {_summary(snapshot.errors)}; the page shows them")
        else:
            _err(f"build {snapshot.generation}: ok, {len(state.written)} files")

    stop = threading.Event()
    server = None
    import signal

    def _terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM (a service manager, kill) stops as cleanly as Ctrl-C

    signal.signal(signal.SIGTERM, _terminate)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # started in the background
    try:
        report(state.rebuild())
        try:
            server = serve(state, port)
        except OSError as e:
            _usage(f"cannot listen on 127.0.0.1:{port}: {e.strerror}")
        url = f"http://127.0.0.1:{server.server_address[1]}/"

        def ready() -> None:
            # Announced once the watcher listens: an edit made after this line is never missed.
            typer.echo(f"serving {url} (Ctrl-C to stop)")
            sys.stdout.flush()

        state.watch(stop, report, ready)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        state.stop()
        if server is not None:
            server.shutdown()
            server.server_close()
        remove(folder)
    _err("lmsexport preview: stopped")


@app.command()
def schema() -> None:
    """Print the JSON Schema of the source format, for editors.

    Generated from the definitions the loader checks files against, so it cannot drift from
    them. With VS Code's YAML extension, save it (lmsexport schema > lmsexport.schema.json)
    and put this first line in a bank file to get completion, hover docs and checks:

    # yaml-language-server: $schema=lmsexport.schema.json
    """
    from .editor_schema import schema_text

    sys.stdout.write(schema_text())


GC_THRESHOLD = 10_000
"""Allocations between two young-generation collections (CPython's default is 700). A build
allocates millions of short-lived objects, nearly all freed by reference counting, and the
bank's records hold no cycles: collecting every 700 examined each young object ~3 times and
took 4-5 % of a cold build's CPU (measured with gc.callbacks: ~0.08 s of a 483-question
file's ~1.4 s), against ~1.5 % at 10,000. Cycles still go, a little later."""


def main() -> None:
    import gc

    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    try:
        app()
    except KeyboardInterrupt:
        _err("lmsexport: interrupted")
        sys.exit(130)


def run() -> None:
    """The ``lmsexport`` command (and ``python -m lmsexport``): main(), then the process ends
    without the interpreter's teardown, which frees every object one by one and took ~0.06 s
    of an edit's rebuild at 100,000 questions (measured from outside; as Instagram's servers
    skip it). Nothing is lost: every file a command writes is closed (outputs fsync'ed)
    before main() returns, no thread or worker is left, standard output and error are flushed
    here. A program that embeds lmsexport calls main() (or the typer ``app``) and keeps the
    usual exit."""
    code: int | str | None
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code
    if not isinstance(code, int):  # sys.exit(None) or sys.exit("message"), as Python ends them
        if code is not None and sys.stderr is not None:  # (with no standard error, nowhere)
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    for stream in (sys.stdout, sys.stderr):
        # As Python's own exit flushes them: a stream that is None (its descriptor was closed
        # when the process started) or closed is left alone.
        if stream is None or getattr(stream, "closed", True):
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone (a pipe to head): 120, as Python's exit
            code = code or 120  # (Python gives 120 even after an error; its code is kept here)
    os._exit(code & 0xFF if os.name == "posix" else code)  # (the status a POSIX parent sees)


if __name__ == "__main__":
    run()
