"""The command line: the only layer that touches the disk and picks exit codes.

Exit codes: 0 success; 1 problems in the content (source, packages); 2 usage errors
(unknown option or format, missing path). Library errors arrive as LmsExportError with
their diagnostics and are printed in compiler form, never as a traceback.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from enum import Enum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from . import __version__
from .errors import Diagnostic, LmsExportError, Severity
from .model import Bank, SourceLoc
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


def _load(paths: list[Path] | None, warnings: list[Diagnostic]):  # -> Bank
    from .source import PathError, load_paths

    try:
        return load_paths(paths or [Path("source")], warnings)
    except PathError as e:
        _usage(str(e))


def _formats(formats: list[str] | None) -> list[str]:
    chosen = formats or list(WRITERS)
    for f in chosen:
        if f not in WRITERS:
            _usage(f"unknown format '{f}' (available: {', '.join(WRITERS)})")
    return chosen


GIFT_SUFFIXES = (".gift", ".gift.txt")
"""Files `check` reads as GIFT, the way Moodle's importer would, instead of as YAML."""


def _read_gift_files(files: list[Path]):  # -> tuple[list[Quiz], list[Diagnostic]]
    """Each GIFT file read as one quiz; its size is checked before it is read."""
    from .readers.gift import MAX_GIFT_BYTES, gift_too_large, read_quiz_bytes

    quizzes, diags = [], []
    for f in files:
        path = f.as_posix()
        try:
            size = f.stat().st_size
            if size > MAX_GIFT_BYTES:
                diags.append(gift_too_large(path, size))
                continue
            data = f.read_bytes()
        except OSError as e:
            diags.append(Diagnostic(SourceLoc(path), f"cannot read the file: {e.strerror}", rule="gift.io"))
            continue
        quiz, found = read_quiz_bytes(data, path)
        diags += found
        if quiz is not None:
            quizzes.append(quiz)
    return quizzes, diags


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
        typer.Option("--report", "-r", help="Output: text (people), json, github (workflow commands) or junit."),
    ] = ReportFormat.text,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
) -> None:
    """Check the bank as a pipeline would: load, build every format in memory, validate.

    Every XML file is validated against the bundled XSDs and every GIFT file is read back
    and compared with the bank. Nothing is written. Every problem of the run is reported;
    exit 0 when sound, 1 on errors (or warnings with --strict), 2 on usage errors.
    """
    from .build import check_bank, timestamp_from_env
    from .report import RunSummary, failed, to_github, to_json, to_junit
    from .source import PathError, discover

    roots = paths or [Path("source")]
    gift_files = [p for p in roots if p.is_file() and p.name.lower().endswith(GIFT_SUFFIXES)]
    roots = [p for p in roots if p not in gift_files]
    try:
        files = [f.as_posix() for f in discover(roots)] + [f.as_posix() for f in gift_files]
    except PathError as e:
        _usage(str(e))
    warnings: list[Diagnostic] = []
    diags: list[Diagnostic] = []
    bank = None
    gift_quizzes, gift_diags = _read_gift_files(gift_files)
    try:
        yaml_bank = _load(roots, warnings) if roots else Bank(())
        if not any(d.severity is Severity.ERROR for d in gift_diags):
            bank = Bank(yaml_bank.quizzes + tuple(gift_quizzes))
            diags += check_bank(bank, timestamp_from_env())
    except LmsExportError as e:
        diags += e.diagnostics
    diags += gift_diags
    diags = warnings + diags
    summary = RunSummary(
        files=len(files),
        quizzes=len(bank.quizzes) if bank else 0,
        questions=bank.question_count if bank else 0,
        strict=strict,
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
    when the whole build succeeded; unchanged files are left untouched.
    """
    from .build import build as run_build
    from .build import timestamp_from_env

    formats = _formats(fmt)
    warnings: list[Diagnostic] = []
    try:
        bank = _load(paths, warnings)
        output = run_build(bank, formats, timestamp_from_env())
    except LmsExportError as e:
        _print_diagnostics(e.diagnostics + warnings)
        _err(_summary(e.diagnostics + warnings) + "; nothing written")
        raise typer.Exit(EXIT_PROBLEMS) from None
    warnings += output.warnings
    _print_diagnostics(warnings)
    managed = _managed_paths(out, formats)
    if check_only:
        problems = _compare_tree(out, output.files, managed)
        for p in problems:
            _err(p)
        if problems:
            _err(f"{out}: {len(problems)} file(s) out of date; run 'lmsexport build' and commit the result")
            raise typer.Exit(EXIT_PROBLEMS)
        typer.echo(f"ok: {out} is up to date ({len(output.files)} files)")
        return
    changed, removed = _write_tree(out, output.files, managed)
    typer.echo(
        f"built {len(bank.quizzes)} quizzes, {bank.question_count} questions into {out}: "
        f"{len(output.files)} files, {changed} written, {len(output.files) - changed} unchanged"
        + (f", {removed} removed" if removed else "")
    )


def _managed_paths(out: Path, formats: list[str]) -> set[str]:
    """Files under OUT that a build of these formats owns: its format folders and index.html."""
    owned: set[str] = set()
    for f in formats:
        folder = out / f
        if folder.is_dir():
            owned.update(p.relative_to(out).as_posix() for p in folder.rglob("*") if p.is_file())
    if "html" in formats and (out / "index.html").is_file():
        owned.add("index.html")
    return owned


def _compare_tree(out: Path, files: dict[str, bytes], managed: set[str]) -> list[str]:
    problems = []
    for rel, data in files.items():
        target = out / rel
        if not target.is_file():
            problems.append(f"{target}: error: missing (the build would create it)")
        elif target.read_bytes() != data:
            problems.append(f"{target}: error: stale (the build would change it)")
    for rel in sorted(managed - files.keys()):
        problems.append(f"{out / rel}: error: extra (the build would remove it)")
    return problems


def _write_tree(out: Path, files: dict[str, bytes], managed: set[str]) -> tuple[int, int]:
    """Write files under out; return (files written, files removed).

    Every changed file is first written and fsync'ed in a temporary directory beside
    out (same file system, but not inside it), and only then renamed into place, so a
    build that fails or is killed before that point leaves out exactly as it was; the
    renames themselves take milliseconds. Unchanged files are not rewritten: their
    mtime stays, rebuilds are quick and diffs clean. Staging directories left by a
    killed build are removed by the next one.
    """
    out.mkdir(parents=True, exist_ok=True)
    prefix = f".{out.resolve().name}.lmsexport-tmp-"
    for leftover in out.resolve().parent.glob(prefix + "*"):
        shutil.rmtree(leftover, ignore_errors=True)
    changed = [rel for rel, data in files.items() if not _same_content(out / rel, data)]
    stale = sorted(managed - files.keys())
    if changed:
        tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=out.resolve().parent))
        try:
            staged = []
            for i, rel in enumerate(changed):
                path = tmp / str(i)
                with open(path, "wb") as fh:
                    fh.write(files[rel])
                    fh.flush()
                    os.fsync(fh.fileno())
                path.chmod(0o644)
                staged.append((path, out / rel))
            for src, dst in staged:
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dst)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    for rel in stale:
        (out / rel).unlink()
    return len(changed), len(stale)


def _same_content(path: Path, data: bytes) -> bool:
    try:
        if path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False


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
