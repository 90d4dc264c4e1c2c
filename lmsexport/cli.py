"""The command line: the only layer that touches the disk and picks exit codes.

Exit codes: 0 success; 1 problems in the content (source, packages); 2 usage errors
(unknown option or format, missing path). Library errors arrive as LmsExportError with
their diagnostics and are printed in compiler form, never as a traceback.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from . import __version__
from .errors import Diagnostic, LmsExportError, Severity
from .writers import WRITERS

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2

app = typer.Typer(
    name="lmsexport",
    help="Build QTI 2.1 packages, Moodle GIFT files and HTML quizzes from a YAML question bank.",
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
    """lmsexport: one YAML question bank -> QTI 2.1, Moodle GIFT and HTML quizzes."""


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
    for d in sorted(diags, key=Diagnostic.sort_key):
        _err(d.format())


def _summary(diags: list[Diagnostic]) -> str:
    n_err = sum(d.severity is Severity.ERROR for d in diags)
    n_warn = len(diags) - n_err
    parts = []
    if n_err:
        parts.append(f"{n_err} error{'s' if n_err != 1 else ''}")
    if n_warn:
        parts.append(f"{n_warn} warning{'s' if n_warn != 1 else ''}")
    return ", ".join(parts)


def _formats(formats: list[str] | None) -> list[str]:
    chosen = formats or list(WRITERS)
    for f in chosen:
        if f not in WRITERS:
            _usage(f"unknown format '{f}' (available: {', '.join(WRITERS)})")
    return chosen


GIFT_SUFFIXES = (".gift", ".gift.txt")
"""Files `check` reads as GIFT, the way Moodle's importer would, instead of as YAML."""


PathsArg = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Source YAML files or directories searched recursively [default: source/]; "
        "check also reads .gift/.gift.txt files as Moodle would",
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

    Every XML file is validated against the bundled XSDs and every GIFT file is read back
    and compared with the bank. Nothing is written. Every problem of the run is reported;
    exit 0 when sound, 1 on errors (or warnings with --strict), 2 on usage errors.
    """
    from .build import POOL_MIN_BYTES, check_files, default_jobs, timestamp_from_env
    from .report import RunSummary, failed, to_github, to_json, to_junit
    from .source import PathError, discover

    roots = paths or [Path("source")]
    gift_files = [p for p in roots if p.is_file() and p.name.lower().endswith(GIFT_SUFFIXES)]
    roots = [p for p in roots if p not in gift_files]
    try:
        sources = discover(roots)
    except PathError as e:
        _usage(str(e))
    if roots and not sources:
        _usage("no source files (*.yaml, *.yml) found in " + ", ".join(str(p) for p in roots))
    files = [f.as_posix() for f in sources] + [f.as_posix() for f in gift_files]
    total = sum(f.stat().st_size for f in [*sources, *gift_files] if f.is_file())
    jobs = default_jobs() if total >= POOL_MIN_BYTES else 1
    try:
        result = check_files(sources, gift_files, timestamp_from_env(), jobs=jobs)
        diags = result.diagnostics
        quizzes, questions = result.quizzes, result.questions
    except LmsExportError as e:  # SOURCE_DATE_EPOCH
        diags, quizzes, questions = list(e.diagnostics), 0, 0
    summary = RunSummary(files=len(files), quizzes=quizzes, questions=questions, strict=strict)
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
            tail = f" ({_summary(diags)})" if diags else ""
            typer.echo(f"ok: {summary.quizzes} quizzes, {summary.questions} questions{tail}")
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
    again only the outputs of the source files that changed (and index.html when a quiz's
    title, language or size did): a small cache file beside OUT records what the last
    build made; any change to lmsexport, its libraries, the formats or SOURCE_DATE_EPOCH,
    and any output changed by hand, means building again. --check never reads it.
    """
    from .build import POOL_MIN_BYTES, build_files, default_jobs, timestamp_from_env
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
    if result.errors:
        sink.discard()
        _print_diagnostics(result.errors + result.warnings)
        _err(_summary(result.errors + result.warnings) + "; nothing written")
        raise typer.Exit(EXIT_PROBLEMS)
    _print_diagnostics(result.warnings)
    if isinstance(sink, Checker):
        problems = sink.problems + sink.extra(managed)
        for p in problems:
            _err(p)
        if problems:
            _err(f"{out}: {len(problems)} file(s) out of date; run 'lmsexport build' and commit the result")
            raise typer.Exit(EXIT_PROBLEMS)
        typer.echo(f"ok: {out} is up to date ({result.files} files)")
        return
    changed, removed = sink.commit(managed)
    if cache is not None:
        cache.save(result)
    reused = len(result.reused)
    if reused == len(sources) and not changed and not result.derived.keys() - result.kept:
        tail = " (cached)"
    elif reused:
        tail = f" ({reused} of {len(sources)} source files unchanged, not rebuilt)"
    else:
        tail = ""
    typer.echo(
        f"built {result.quizzes} quizzes, {result.questions} questions into {out}: "
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
    files: Annotated[list[Path], typer.Argument(help="QTI 2.1 packages (.zip) or single QTI XML files.")],
) -> None:
    """Validate existing QTI 2.1 packages or XML files against the bundled XSDs, offline.

    Checks the manifest, that every referenced file is present and every item is
    referenced, and every XML file against its schema. Packages are untrusted input:
    unsafe paths, links, encrypted entries, zip bombs, DTDs and external entities are
    refused. Problems print as member:line; exit 1 if any.
    """
    from .validate import validate_package, validate_xml_file

    diags: list[Diagnostic] = []
    for f in files:
        if not f.is_file():
            _usage(f"{f}: no such file")
    for f in files:
        if f.suffix.lower() == ".zip":
            diags += validate_package(f, f.as_posix())
        else:
            diags += validate_xml_file(f)
    errors = [d for d in diags if d.severity is Severity.ERROR]
    _print_diagnostics(diags)
    if errors:
        _err(_summary(diags))
        raise typer.Exit(EXIT_PROBLEMS)
    typer.echo(f"ok: {len(files)} file(s) valid")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        _err("lmsexport: interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
