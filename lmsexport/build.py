"""Run the writers of a build over a bank, in memory: no disk, no clock (the CLI writes)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

from .errors import Diagnostic, LmsExportError, Severity
from .model import Assessment, Bank, Difficulty, Question, QuestionType, Quiz, SourceLoc
from .writers import BANK_WIDE, WRITERS, Output, WriteContext, get_losses, get_split, get_writer

if TYPE_CHECKING:
    from .cache import RecordedIds, RecordedWarnings
    from .source import MediaRead
    from .validate_qti12 import CcVersion

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
    from .readers.gift import read_quiz
    from .writers.gift import as_written

    diags: list[Diagnostic] = []
    for quiz in bank.quizzes:
        path = f"gift/{quiz.id}.gift.txt"
        try:
            back, _ = read_quiz(out.files[path].decode("utf-8"), path, quiz_id=quiz.id, lang=quiz.lang)
        except LmsExportError as e:
            diags.extend(e.diagnostics)
            continue
        # A question GIFT cannot hold is left out of the file, and named by the writer; a
        # parametric one is its variants (ordinary questions: GIFT has no formula).
        kept = replace(quiz, questions=tuple(x for q in quiz.questions for x in as_written(q)))
        diags += _read_back_differences(kept, back, path, "gift.round-trip")
    for assessment in bank.assessments:
        diags.extend(_assessment_round_trip(assessment, out))
    return diags


def _read_back_differences(quiz: Quiz, back: Quiz, path: str, rule: str) -> list[Diagnostic]:
    """What a quiz read back from the file ``path`` it was written to lost or changed: each
    question missing or differing (naming its fields), else the quiz's own fields."""
    from dataclasses import fields

    if back == quiz:
        return []
    diags: list[Diagnostic] = []
    theirs = {q.id: q for q in back.questions}
    for q in quiz.questions:
        other = theirs.get(q.id)
        if other == q:
            continue
        if other is None:
            why = "is missing"
        else:
            why = "differs in " + ", ".join(_differing_fields(q, other))
        diags.append(
            Diagnostic(q.loc or SourceLoc(path), f"question '{q.id}' read back from {path} {why}", rule=rule)
        )
    if back.questions == quiz.questions:
        names = [f.name for f in fields(quiz) if f.compare and getattr(quiz, f.name) != getattr(back, f.name)]
        diags.append(
            Diagnostic(
                quiz.loc or SourceLoc(path),
                f"quiz '{quiz.id}' read back from {path} differs in {', '.join(names)}",
                rule=rule,
            )
        )
    return diags


def _differing_fields(q: Question, other: Question) -> list[str]:
    """The fields two questions differ in; within bodies of one kind, the body's own fields
    (choices, answers, pairs, ...), which are what a reader lost; `type` when the kinds differ."""
    from dataclasses import fields

    names: list[str] = []
    for f in fields(q):
        mine, theirs = getattr(q, f.name), getattr(other, f.name)
        if not f.compare or mine == theirs:
            continue
        if f.name != "body":
            names.append(f.name)
        elif type(mine) is not type(theirs):
            names.append("type")
        else:
            names += [
                g.name for g in fields(mine) if g.compare and getattr(mine, g.name) != getattr(theirs, g.name)
            ]
    return names


def _assessment_round_trip(assessment: Assessment, out: Output) -> list[Diagnostic]:
    """Read an assessment's GIFT file back: every draw must hold, under its own category, its
    candidates as the bank has them (writers.gift.as_in_assessment), and keep its pick and points."""
    from .readers.gift import read_assessment
    from .writers.gift import as_in_assessment, carried, is_parametric

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
        # As the writer left them in: a parametric candidate's variants are in a category of
        # their own below the draw's, compared with its quiz's file (gift_round_trip).
        kept = [c for c in draw.candidates if carried(c.question) and not is_parametric(c.question)]
        for c in kept:
            if got.get(c.question.id) != as_in_assessment(assessment, c):
                differs(c.question.loc, f"question '{c.question.id}' (in the category of draw '{draw.name}')")
        if [c.question.id for c in kept] != list(got):
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
        diags += _read_back_differences(quiz, back, path, "moodlexml.round-trip")
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


ROUND_TRIPS: dict[str, Callable[[Bank, Output], list[Diagnostic]]] = {
    "gift": gift_round_trip,
    "moodlexml": moodlexml_round_trip,
}
"""Format -> the round trip check runs on what that format wrote for a bank: its reader reads
every file back (quizzes' and assessments') and what differs from the bank is a diagnostic.
One line per format that has a reader."""


def check_quiz(bank: Bank, names: tuple[str, ...], timestamp: int) -> list[Diagnostic]:
    """Everything check finds in a bank of one quiz, or of assessments only: each writer's
    warnings and errors (every XML file validated) and, for each format with a reader
    (ROUND_TRIPS) written without errors, what its round trip finds. As check_bank does for
    the whole bank, writer by writer."""
    diags: list[Diagnostic] = []
    for name in names:
        out, errors = run_writers(bank, (name,), WriteContext(formats=(name,), timestamp=timestamp))
        diags += out.warnings + errors
        if not errors and name in ROUND_TRIPS:
            diags += ROUND_TRIPS[name](bank, out)
    return diags


# --------------------------------------------------------------------------- streaming, parallel build

POOL_MIN_BYTES = 512 * 1024
"""Source bytes (~200 questions) below which a build runs in one process: below that the work
a second process could take is smaller than what starting and feeding it costs."""


class QuestionHead(NamedTuple):
    """What an assessment's lists and pools select a question by (model.Pool.matches reads
    these fields): kept for every question of a reused file, so that resolving assessments
    after an edit loads again only the quiz files they draw from."""

    id: str
    type: QuestionType
    tags: tuple[str, ...]
    difficulty: Difficulty | None
    lang: str | None


def question_heads(quiz: Quiz) -> list[QuestionHead]:
    return [QuestionHead(q.id, q.type, q.tags, q.difficulty, q.lang) for q in quiz.questions]


@dataclass
class FileSummary:
    """What a build needs of a quiz file whose outputs it does not make again: what index.html,
    the checks across files, the counts and the printed warnings use."""

    quiz: Quiz
    """The quiz without its questions (Quiz.header)."""
    n_questions: int
    ids: list[tuple[str, str, SourceLoc]]
    """(kind, id, where) of the quiz and every question, for check_ids."""
    warnings: list[Diagnostic]
    """Loader warnings first, then the writers'."""
    source_warnings: int
    """How many of ``warnings`` come from the loader."""
    outputs: dict[str, str]
    """Every output file of this source: path in OUT -> sha256 (hex) of its bytes."""
    media: MediaRead = field(default_factory=dict)
    """The image files its outputs were made from (source.MediaRead)."""
    recorded_ids: RecordedIds | None = None
    """A reused file's ids as the rebuild cache has them (``ids`` is then empty): positions
    are decoded only when a duplicate must be reported (check_ids_across)."""
    heads: list[QuestionHead] | str = field(default_factory=list)
    """Its questions' QuestionHead, in source order; a reused file's as the record's text
    (cache.heads_from decodes it, only when assessments are resolved)."""
    recorded_warnings: RecordedWarnings | None = None
    """A reused file's warnings as the rebuild cache has them: ``warnings`` and
    ``source_warnings`` are set from them (decode_recorded) unless the build prints the
    recorded text instead (BuildResult.replayed) or the file's blocks of it (it is among
    BuildResult.copied): then they stay empty."""


@dataclass
class FileResult:
    """What building (or checking) one source file gives: its outputs, problems and what the
    bank needs."""

    path: str
    size: int
    """Bytes of the source file (progress is counted in source bytes)."""
    quiz: Quiz | None = None
    """The quiz without its questions (what index.html needs), or None if it did not load."""
    full: Quiz | None = None
    """The whole quiz, when the build needs it at the end: assessments draw from it."""
    parts: dict[str, list[object]] = field(default_factory=dict)
    """Bank-wide format -> this file's parts of its one output (writers.SPLIT), assembled at the end."""
    assessment: Assessment | None = None
    """An assessment file's recipe (unresolved: its outputs are written once the bank is known)."""
    n_questions: int = 0
    files: dict[str, bytes] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    """sha256 (hex) of each of ``files``, computed in the worker (for the rebuild cache)."""
    warnings: list[Diagnostic] = field(default_factory=list)
    """Loader warnings first, then the writers' warnings."""
    source_warnings: int = 0
    """How many of ``warnings`` come from the loader."""
    source_errors: list[Diagnostic] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    """Writer errors (e.g. schema validation): a bug of ours or content a format cannot carry."""
    ids: list[tuple[str, str, SourceLoc]] = field(default_factory=list)
    heads: list[QuestionHead] = field(default_factory=list)
    media: MediaRead = field(default_factory=dict)
    """The image files loading it read (source.MediaRead)."""
    reloaded: bool = False
    """Only loaded again for ``full`` (its outputs and summary are reused): nothing else counts."""
    part_warnings: list[Diagnostic] = field(default_factory=list)
    """The warnings of ``parts`` of a file only loaded again (reload_file): the quiz file's own
    writers' warnings when its build was split in two (a lone file's), else those its recorded
    summary has already (build_file adds its own to ``warnings``)."""

    def summary(self) -> FileSummary:
        assert self.quiz is not None
        return FileSummary(self.quiz, self.n_questions, self.ids, self.warnings, self.source_warnings,
                           dict(sorted(self.digests.items())), dict(sorted(self.media.items())),
                           heads=self.heads)  # fmt: skip


class Reuse(Protocol):
    """What a build may leave as it is in OUT (the rebuild cache answers; see cache.py)."""

    def summary(self, path: str) -> FileSummary | None:
        """The summary of a quiz file whose outputs are in OUT exactly as building it (as it is
        now, with the image files it uses as they are now) would write them, or None: it must
        be built."""

    def derived(self, unit: str, digest: str, inputs: Sequence[str] = ()) -> Derived | None:
        """The record of ``unit``, outputs made from bank-level data whose digest is ``digest``
        and from the source files ``inputs`` and the image files they use (all as they are
        now), if its outputs are in OUT as made from them; else None."""

    def parts(self, path: str, formats: Sequence[str]) -> dict[str, list[Any]] | None:
        """The parts of the bank-wide ``formats`` (writers.SPLIT) that building the quiz file
        ``path`` as it is now makes, exactly, kept from an earlier build; else None."""

    def known_valid(self) -> frozenset[str]:
        """The documents (writers.valid_digest) an earlier build with the same code, schemas and
        libraries validated without a problem (WriteContext.known_valid)."""

    def printed(self, paths: Sequence[str]) -> bytes | None:
        """The text (UTF-8) an earlier build printed of its warnings (the CLI's), if
        those are exactly the warnings of the summaries of ``paths`` and of BANK_UNIT given
        now; else None."""


@dataclass
class Derived:
    """Outputs made from data of the whole bank rather than from one source file."""

    digest: str
    """sha256 of the data they are made from (index_digest; BANK_UNIT's is of the formats)."""
    inputs: list[str]
    """Source files they are made from (all of them for BANK_UNIT)."""
    outputs: dict[str, str]
    """Path in OUT -> sha256 of its bytes."""
    warnings: list[Diagnostic] = field(default_factory=list)
    """What their writers warned about (printed again when they are reused)."""
    assessments: int = 0
    """Assessments among them (BANK_UNIT)."""
    media: MediaRead = field(default_factory=dict)
    """The image files they are made from (BANK_UNIT: every one the bank's files use)."""
    valid: list[str] = field(default_factory=list)
    """Documents their writers validated without a problem (Output.validated; BANK_UNIT: the
    cartridges' manifests), for the next build's WriteContext.known_valid."""
    recorded_warnings: RecordedWarnings | None = None
    """A reused unit's warnings as the rebuild cache has them (as FileSummary's)."""


BANK_UNIT = "bank"
"""The unit of every output made from the whole bank: the bank-wide formats' (a cartridge),
the assessments' (their pools draw from any quiz), and index.html when there are assessments
(it shows what they draw). Made from every source file and every image file they use: reused
only when none changed."""

INDEX_UNIT = "index.html"


@dataclass
class BuildResult:
    """The outcome of build_files: counts and diagnostics; the files went to ``emit``."""

    quizzes: int = 0
    assessments: int = 0
    questions: int = 0
    files: int = 0
    """Output files of the build, emitted or kept."""
    warnings: list[Diagnostic] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    source_failed: bool = False
    """The errors are the loader's (nothing was built), not the writers'."""
    summaries: dict[str, FileSummary] = field(default_factory=dict)
    """Every quiz file of a successful build (path -> summary), built or reused."""
    reused: set[str] = field(default_factory=set)
    """Quiz files whose outputs were kept as they were, not built."""
    derived: dict[str, Derived] = field(default_factory=dict)
    """Bank-level units of a successful build (INDEX_UNIT, BANK_UNIT), kept or made."""
    kept: set[str] = field(default_factory=set)
    """Bank-level units kept as they were, not made."""
    replayed: bytes | None = None
    """When nothing was built (every file's summary and the bank's outputs reused) and the
    rebuild cache has the text the recorded build printed of these very warnings: that text,
    and ``warnings`` is empty (not one of them decoded: 400,000 at 100,000 questions of the
    real-shaped bank)."""
    copied: set[str] = field(default_factory=set)
    """Reused quiz files whose warnings are printed as the recorded build printed them
    (``pieces``), not decoded: ``warnings`` has none of theirs (their summaries' are empty)."""
    pieces: list[tuple[str, bytes | memoryview]] = field(default_factory=list)
    """The printed blocks of the ``copied`` files' warnings, (path, its lines as UTF-8), each
    of a path no other warning is at (report.printed puts them in their place)."""
    read: set[str] = field(default_factory=set)
    """Source files this build read (built, or loaded again for the whole bank's outputs)."""
    parts: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    """Quiz file -> bank-wide format -> the parts this build made of it (for the rebuild cache)."""


def build_file(
    path: str,
    formats: tuple[str, ...],
    timestamp: int,
    keep: bool = False,
    parts: bool = True,
    losses: bool = True,
) -> FileResult:
    """Load one source file and run every writer on it: the unit of work of a parallel build.

    Every XML member is validated as in build(); index.html is left out (it needs every quiz);
    of a bank-wide format (BANK_WIDE) the quiz's part is made, for build_files to assemble. An
    assessment file is only loaded: its outputs need the whole bank (build_assessments). With
    ``keep`` the whole quiz comes back too; without ``parts`` (the rebuild cache kept the
    bank-wide outputs) no parts are made, but their warnings, which are the file's, are given
    (writers.LOSSES: a file built again with the bank's outputs kept, its own outputs damaged
    or its recorded warnings), unless another task makes the parts (not ``losses``: a lone
    file's build split in two).
    """
    import hashlib

    from .source import load_file

    p = Path(path)
    result = FileResult(path, p.stat().st_size if p.is_file() else 0)
    diags: list[Diagnostic] = []
    quiz = load_file(p, diags, result.warnings, result.ids, result.media)
    result.source_warnings = len(result.warnings)
    if diags or quiz is None:
        result.source_errors = diags
        return result
    if isinstance(quiz, Assessment):
        result.assessment = quiz
        return result
    if keep:
        result.full = quiz
    result.quiz = quiz.header
    result.n_questions = len(quiz.questions)
    result.heads = question_heads(quiz)
    ctx = WriteContext(formats=formats, timestamp=timestamp)
    out, errors = run_writers(Bank((quiz,)), tuple(f for f in formats if f not in BANK_WIDE), ctx)
    result.errors.extend(errors)
    result.warnings.extend(out.warnings)
    result.files.update((k, v) for k, v in out.files.items() if k != "index.html")
    if parts:
        _make_parts(result, quiz, formats, ctx)
        result.warnings += result.part_warnings
        result.part_warnings = []
    elif losses:
        for name in formats:
            if name in BANK_WIDE:
                result.warnings += get_losses(name)(Bank((quiz,)), ctx)
    # Hashed here, in the worker, for the rebuild cache: the parent has the streaming to do.
    result.digests = {k: hashlib.sha256(v).hexdigest() for k, v in result.files.items()}
    return result


def _make_parts(
    result: FileResult, quiz: Quiz, formats: tuple[str, ...], ctx: WriteContext, own: bool = True
) -> None:
    """This quiz's parts of each bank-wide format's one output (writers.SPLIT). With ``own``
    (a build's), the warnings of each part (what the format loses of each question: 188,000
    of the 400,600 of the real-shaped bank at 100,000 questions) go to
    ``result.part_warnings``, taken out of the parts: they are the quiz file's, recorded and
    printed with its other writers' (a file's printed warnings are then all of its own unit,
    which an edit of another file prints as they were printed: cache.RecordedWarnings.blocks),
    and no parts file keeps them."""
    for name in formats:
        if name in BANK_WIDE:
            try:
                made = get_split(name)[0](Bank((quiz,)), ctx)
            except LmsExportError as e:
                result.errors.extend(e.diagnostics)
                continue
            if own:
                for part in made:
                    result.part_warnings += part.warnings
                made = [replace(part, warnings=[]) for part in made]
            result.parts[name] = made


def reload_file(
    path: str, formats: tuple[str, ...], timestamp: int, keep: bool, parts: bool = True
) -> FileResult:
    """A quiz file whose outputs are reused, loaded again only for what is built from the whole
    bank: its parts of the bank-wide formats (unless ``parts`` is False: the rebuild cache has
    them), and the whole quiz with ``keep`` (assessments)."""
    from .source import load_file

    p = Path(path)
    result = FileResult(path, 0, reloaded=True)
    quiz = load_file(p, [], None, None, result.media)
    if isinstance(quiz, Quiz):
        if keep:
            result.full = quiz
        if parts:
            _make_parts(result, quiz, formats, WriteContext(formats=formats, timestamp=timestamp))
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
    """sha256 of what index.html is made from when the bank has no assessments: every quiz's
    header and question count, in bank order, and the formats it links to."""
    import hashlib
    import json

    from .cache import encode

    data = [list(names)] + [[encode(q), n] for q, n in headers]
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


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
    and errors are those of ``build(load_paths(paths), formats, timestamp)`` (the warnings as
    the recorded text in ``replayed`` when nothing was built and ``reuse`` has it, and those of
    the ``copied`` files as their printed blocks in ``pieces``), whatever ``jobs``; with
    ``jobs`` > 1 the files are loaded, written and validated by a pool of processes forked
    after the schemas are compiled (only when the files to build hold at least
    ``pool_min_bytes``). ``progress(done, total)`` is called in source bytes.

    With ``reuse`` (the rebuild cache), a quiz file it has a summary for is not built: the
    summary stands in for it and each of its outputs goes to ``keep`` instead of ``emit``; so
    do index.html when the quizzes' headers are those it was made from, and the outputs of
    the whole bank (BANK_UNIT) when no source file changed. When those must be made again,
    the bank-wide formats' parts of a reused quiz file are those ``reuse`` kept, and it is
    loaded (not written) again only for parts ``reuse`` does not have or, when the bank has
    assessments, for its whole quiz if one of them draws from it (by its summary's question
    headers: which files that is is known once the assessment files are loaded).
    """
    run = _BankBuild(paths, formats, timestamp, emit, jobs, progress, reuse, keep, pool_min_bytes)
    run.build_sources()
    # (with a replay nothing is built, so gather_diagnostics finds no error: check_ids_across
    # checks only the ids of built files, and there is nothing else)
    source_errors, source_warnings, writer_warnings = run.gather_diagnostics()
    run.build_assessments(source_errors, writer_warnings)
    result = run.result
    result.replayed = run.replayed
    if source_errors:
        result.errors = sorted(source_errors, key=Diagnostic.sort_key)
        result.warnings = source_warnings + run.uncopy()
        result.source_failed = True
        return result
    if result.errors:
        result.warnings = source_warnings + run.uncopy()
        return result
    result.warnings = source_warnings + writer_warnings
    headers = run.summarise()
    if not run.bank_outputs(source_warnings):
        result.warnings += run.uncopy()
        return result
    run.index(headers)
    if run.bank_record is None:
        run.bank_unit.media = dict(sorted(run.bank_media.items()))
    result.derived[BANK_UNIT] = run.bank_unit
    run.place_copied()
    return result


class _BankBuild:
    """One run of build_files, in its steps: the source files built (or their summaries and
    parts reused), their diagnostics gathered in the order of the paths, the assessments built,
    then what the whole bank makes (the bank-wide formats assembled from every file's parts,
    index.html). Everything it emits goes to ``emit`` as soon as it is made."""

    def __init__(
        self,
        paths: Sequence[Path],
        formats: Iterable[str],
        timestamp: int,
        emit: Callable[[str, bytes], None],
        jobs: int,
        progress: Callable[[int, int], None] | None,
        reuse: Reuse | None,
        keep: Callable[[str], None] | None,
        pool_min_bytes: int,
    ) -> None:
        from .source import merge_media

        self.paths = paths
        self.names = names = tuple(f for f in WRITERS if f in set(formats))
        self.bank_wide = tuple(f for f in names if f in BANK_WIDE)
        self.every = [p.as_posix() for p in paths]
        self.timestamp = timestamp
        self.emit = emit
        self.jobs = jobs
        self.progress = progress
        self.reuse = reuse
        self._keep = keep
        self.pool_min_bytes = pool_min_bytes
        self.result = BuildResult()
        self.summaries: dict[str, FileSummary] = {}
        self.bank_record: Derived | None = None
        if reuse is not None:
            assert keep is not None
            for p in self.every:
                found = reuse.summary(p)
                if found is not None:
                    self.summaries[p] = found
            self.bank_record = reuse.derived(BANK_UNIT, bank_digest(names), self.every)
        self.replayed: bytes | None = None
        """The recorded build's printed warnings, when they are this build's (nothing to build)."""
        self.copied: dict[str, list[tuple[str, bytes | memoryview]]] = {}
        """Reused files whose warnings are printed as the recorded build printed them: path ->
        those blocks (decode_recorded)."""
        if reuse is not None:
            if self.bank_record is not None and len(self.summaries) == len(self.every):
                self.replayed = reuse.printed(self.every)
            if self.replayed is None:
                self.decode_recorded()
        self.todo = [p for p in paths if p.as_posix() not in self.summaries]
        # Bank-level outputs must be made unless the cache kept them: from every file's parts of
        # the bank-wide formats, and for assessments from whole quizzes, which then come back from
        # the workers. Only files to build can be assessments: a reused file is a quiz file,
        # unchanged.
        self.remake = self.bank_record is None
        self.whole = self.remake and any(_may_be_assessment(p) for p in self.todo)
        self.reload = (
            [p for p in paths if p.as_posix() in self.summaries] if self.remake and self.bank_wide else []
        )
        # The parts of a reused file are the rebuild cache's when it has them (made by an earlier
        # build from the same bytes, with the same key): then the file is not loaded again,
        # unless an assessment draws from it (loaded after the assessment files, below).
        self.parts: dict[str, list[object]] = {}
        self.cached: set[str] = set()
        self.total = sum(p.stat().st_size for p in self.todo if p.is_file())
        self.results: dict[str, FileResult] = {}
        self.split: dict[str, list[Diagnostic]] = {}
        """A file whose build is split in two (a lone file's) -> its parts' warnings, when they
        came before its build's result (take)."""
        self.kept: dict[str, Quiz] = {}
        self.recipes: list[Assessment] = []
        self.source_failed = False
        self.emitted: set[str] = set()
        self.done = 0
        self.skip: set[str] = set()
        """Reused quiz files no assessment draws from (build_assessments leaves them out)."""
        self.resolved: list[Assessment] = []
        self.bank_unit = (
            Derived(bank_digest(names), self.every, {}) if self.bank_record is None else self.bank_record
        )
        # The image files of every file (built, loaded again, or as its summary records them):
        # what the whole bank's outputs are made from besides the source files.
        self.bank_media: MediaRead = {}
        self.reused_keys: set[tuple[str, str]] | None = None
        """The reused files' id keys (prepare_reused), or None: not indexed yet."""
        for reused in self.summaries.values():
            merge_media(self.bank_media, reused.media)

    def decode_recorded(self) -> None:
        """The reused units' recorded warnings made into diagnostics, but for the files whose
        warnings can be printed as the recorded build printed them (RecordedWarnings.blocks:
        an edit at 100,000 questions of the real-shaped bank decodes, sorts and formats none of
        the 356 other files' ~400,000). A file whose record does not decode is built instead
        (the bank's: its outputs are made again)."""
        for p, summary in list(self.summaries.items()):
            recorded = summary.recorded_warnings
            if recorded is not None:
                blocks = recorded.blocks()
                if blocks is not None:
                    self.copied[p] = blocks
                    continue
                try:
                    summary.warnings, summary.source_warnings = recorded.decode()
                except ValueError:
                    del self.summaries[p]
        bank = self.bank_record
        if bank is not None and bank.recorded_warnings is not None:
            try:
                bank.warnings = bank.recorded_warnings.decode()[0]
            except ValueError:
                self.bank_record = None

    def uncopy(self) -> list[Diagnostic]:
        """The loader's warnings of the files whose warnings were to be copied, decoded (a
        failed build prints the loader's warnings with its errors); none copied any more."""
        found: list[Diagnostic] = []
        for p in self.copied:
            summary = self.summaries[p]
            assert summary.recorded_warnings is not None
            # (its entry found of its shape by blocks(); a text that does not decode, which only
            # a forged warnings file named with the record's checksum made again gives: left out)
            with contextlib.suppress(ValueError):
                summary.warnings, summary.source_warnings = summary.recorded_warnings.decode()
                found += summary.warnings[: summary.source_warnings]
        self.copied.clear()
        return found

    def place_copied(self) -> None:
        """The result's printed blocks of the files whose warnings are copied, but of a file
        with a block at a path that some warning of this build is at (say, an assessment
        file's at a quiz file's) or that another copied file has a block at (a record save
        would not write): its warnings are decoded, to be printed among those. (One whose
        record does not decode then, found as recorded otherwise, which only a forged
        warnings file named in the record with its checksum made again gives, keeps its
        blocks, printed after the new lines of their path.)"""
        result = self.result
        if not self.copied:
            return
        at = {d.sort_key()[0] for d in result.warnings}
        claims: dict[str, int] = {}
        for blocks in self.copied.values():
            for path, _ in blocks:
                claims[path] = claims.get(path, 0) + 1
        for p, blocks in list(self.copied.items()):
            if all(path not in at and claims[path] == 1 for path, _ in blocks):
                continue
            summary = self.summaries[p]
            assert summary.recorded_warnings is not None
            try:
                summary.warnings, summary.source_warnings = summary.recorded_warnings.decode()
            except ValueError:
                continue
            result.warnings += summary.warnings
            del self.copied[p]
        result.copied = set(self.copied)
        result.pieces = [block for blocks in self.copied.values() for block in blocks]

    def keep(self, rel: str) -> None:
        assert self._keep is not None  # only a reused output is kept, and reuse comes with keep
        self._keep(rel)

    # -- the source files

    def prepare_reused(self) -> None:
        """What needs the reused files only, done while the pool builds the others (an edit at
        100,000 questions: ~1 s of one worker, while this process would wait): their parts read
        (read_cached_parts) and the index of their ids for check_ids_across (~0.1 s for 356
        files)."""
        if self.bank_wide and self.reload:
            self.read_cached_parts()
            # What assembling the cartridges (the bank-wide formats) imports after the pool
            # (~0.03 s): imported now.
            from . import validate_qti12  # noqa: F401
        if self.todo:  # (with nothing built, no id is checked across files)
            self.reused_keys = recorded_keys(
                s.recorded_ids for s in self.summaries.values() if s.recorded_ids is not None
            )

    def read_cached_parts(self) -> None:
        assert self.reuse is not None
        for source in self.reload:
            found_parts = self.reuse.parts(source.as_posix(), self.bank_wide)
            if found_parts is not None:
                self.cached.add(source.as_posix())
                for name, its_parts in found_parts.items():
                    self.parts.setdefault(name, []).extend(its_parts)

    def take(self, fr: FileResult) -> None:
        """One file's result, as it comes from the pool (in any order)."""
        from .source import merge_media

        result = self.result
        result.read.add(fr.path)
        merge_media(self.bank_media, fr.media)
        if fr.full is not None:
            self.kept[fr.path] = fr.full
        for name, made in fr.parts.items():
            self.parts.setdefault(name, []).extend(made)
        if fr.parts:
            result.parts[fr.path] = fr.parts
        if fr.reloaded:
            result.errors.extend(fr.errors)
            if fr.path in self.results:  # a lone file's parts (build_sources), after its build
                self.results[fr.path].warnings += fr.part_warnings
            elif fr.path in self.split:  # before it
                self.split[fr.path] = fr.part_warnings
            return
        fr.warnings += self.split.pop(fr.path, [])
        self.done += fr.size
        self.source_failed = self.source_failed or bool(fr.source_errors)
        if fr.assessment is not None:
            self.recipes.append(fr.assessment)
        if not self.source_failed:
            result.errors.extend(fr.errors)
            if not result.errors:
                for rel, data in sorted(fr.files.items()):
                    # A path seen before means a second quiz with the same id, which check_ids
                    # below turns into a failed build: never hand ``emit`` one path twice
                    # (with a pool, whether it happens depended on which file finished first).
                    if rel in self.emitted:
                        continue
                    self.emitted.add(rel)
                    self.emit(rel, data)
                    result.files += 1
        fr.files = {}  # emitted: not held while the rest is built
        self.results[fr.path] = fr
        if self.progress is not None:
            self.progress(self.done, self.total)

    def _lone_file(self) -> Path | None:
        """The one quiz file to build when its build is worth splitting in two (build_sources):
        it is the only one, the build makes the bank's outputs (so its parts) and per-file
        formats besides, a pool may run (two workers, the file at least pool_min_bytes), and it
        is not an assessment file."""
        if len(self.todo) != 1 or self.jobs < 2 or not (self.remake and self.bank_wide):
            return None
        if len(self.bank_wide) == len(self.names):
            return None
        lone = self.todo[0]
        if not lone.is_file() or lone.stat().st_size < self.pool_min_bytes or _may_be_assessment(lone):
            return None
        return lone

    def _run(
        self,
        tasks: list[Task],
        warm: tuple[str, ...],
        meanwhile: Callable[[], None] | None = None,
        preimport: bool = True,
    ) -> None:
        """The tasks in a pool when there is enough to share (``meanwhile`` runs here while the
        pool works), else in this process. Without ``preimport`` the workers import what their
        tasks need themselves (_run_pool)."""
        size = sum(p.stat().st_size for p, _, _ in tasks if p.is_file())
        jobs = self.jobs
        if jobs > 1 and tasks and (len(tasks) > 1 or meanwhile is not None) and size >= self.pool_min_bytes:
            _run_pool(tasks, jobs, self.take, warm=warm, meanwhile=meanwhile, preimport=preimport)
            return
        if meanwhile is not None:
            meanwhile()
        for _, fn, args in tasks:
            self.take(fn(*args))

    def build_sources(self) -> None:
        """Build the files to build; load again the reused ones whose parts or whole quizzes the
        bank's outputs need."""
        names, bank_wide, timestamp = self.names, self.bank_wide, self.timestamp
        # The files to build go to the pool first; meanwhile this process reads the parts files of
        # the others and indexes their ids (an edit at 100,000 questions: the edited file's build,
        # ~1 s, in a worker while the 356 other files are seen to here), then what has no parts
        # file is loaded again.
        meanwhile = self.prepare_reused if self.summaries and (self.todo or self.reload) else None
        tasks = [
            _task(p, build_file, p.as_posix(), names, timestamp, self.whole, self.remake) for p in self.todo
        ]
        lone = self._lone_file()
        if lone is not None:
            self.split[lone.as_posix()] = []
            # One quiz file to build, with its parts of the bank's outputs to make (an edit): its
            # own formats and its parts in two workers, each loading it, importing what it needs
            # and compiling the schemas it validates with (QTI 2.1's in one, the cartridges' in
            # the other: ~0.1 s each, at once, where this process compiled all of them before
            # forking). At 300 questions, ~1.1 s in one worker, ~0.6 s in two (docs/performance.md).
            tasks = [
                _task(lone, build_file, lone.as_posix(), names, timestamp, self.whole, False, False),
                _task(lone, reload_file, lone.as_posix(), bank_wide, timestamp, False),
            ]
        self._run(tasks, names if lone is None else (), meanwhile, preimport=lone is None)
        tasks = [
            _task(p, reload_file, p.as_posix(), bank_wide, timestamp, self.whole)
            for p in self.reload
            if p.as_posix() not in self.cached
        ]
        self._run(tasks, bank_wide)
        if self.whole and self.recipes and not self.source_failed:
            # The reused quiz files the assessments draw from, by their questions' headers: only
            # those are loaded again (the rest go to build_assessments as ``skip``).
            drawn = [
                p for p in self.paths if p.as_posix() in self.summaries and p.as_posix() not in self.kept
            ]
            selects = _selector(self.recipes)
            self.skip = {
                p.as_posix() for p in drawn if not _draws_from(selects, self.summaries[p.as_posix()])
            }
            tasks = [
                _task(p, reload_file, p.as_posix(), bank_wide, timestamp, True, False)
                for p in drawn
                if p.as_posix() not in self.skip
            ]
            self._run(tasks, ())

    def gather_diagnostics(self) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
        """(source errors, source warnings, writer warnings) across files in the order of the
        paths (never in the order the pool finished), so that "first defined at" names the same
        file on every run; the ids checked across files."""
        source_errors: list[Diagnostic] = []
        source_warnings: list[Diagnostic] = []
        writer_warnings: list[Diagnostic] = []
        ids: list[tuple[str, str, SourceLoc]] = []
        recorded_ids: list[RecordedIds] = []
        for p in self.every:
            fr = self.results.get(p)
            summary = self.summaries.get(p) if fr is None else None
            if summary is not None:
                warnings, n_source, their_ids = summary.warnings, summary.source_warnings, summary.ids
                if summary.recorded_ids is not None:
                    recorded_ids.append(summary.recorded_ids)
            else:
                assert fr is not None
                warnings, n_source, their_ids = fr.warnings, fr.source_warnings, fr.ids
                source_errors += fr.source_errors
            source_warnings += warnings[:n_source]
            writer_warnings += warnings[n_source:]
            ids += their_ids
        check_ids_across(ids, recorded_ids, source_errors, self.reused_keys)
        return source_errors, source_warnings, writer_warnings

    def build_assessments(self, source_errors: list[Diagnostic], writer_warnings: list[Diagnostic]) -> None:
        """The assessments, resolved against the bank and written (unless the bank's outputs
        are reused: then their warnings are the record's)."""
        result, bank_unit = self.result, self.bank_unit
        if self.recipes and not source_errors and self.bank_record is None:
            per_file = tuple(f for f in self.names if f not in BANK_WIDE)
            self.resolved, assessed, errors = build_assessments(
                self.recipes,
                self.paths,
                self.kept,
                per_file,
                self.timestamp,
                source_errors,
                self.bank_media,
                self.skip,
            )
            if not source_errors and not result.errors:
                result.errors.extend(errors)
                writer_warnings.extend(assessed.warnings)
                bank_unit.warnings += assessed.warnings
                if not result.errors:
                    for rel, data in sorted(assessed.files.items()):
                        if rel not in self.emitted:
                            self.emitted.add(rel)
                            self.emit(rel, data)
                            bank_unit.outputs[rel] = _sha256(data)
                            result.files += 1
        elif self.bank_record is not None:
            writer_warnings.extend(self.bank_record.warnings)

    # -- the whole bank

    def summarise(self) -> list[tuple[Quiz, int]]:
        """Each file's summary (a reused file's outputs kept), the counts; the quizzes' headers
        and sizes, by quiz id."""
        result = self.result
        for p in self.every:
            fr = self.results.get(p)
            if fr is None:
                result.summaries[p] = self.summaries[p]
                result.reused.add(p)
                for rel in self.summaries[p].outputs:
                    if rel not in self.emitted:
                        self.emitted.add(rel)
                        self.keep(rel)
                        result.files += 1
            elif fr.quiz is not None:
                result.summaries[p] = fr.summary()
        headers = sorted(((s.quiz, s.n_questions) for s in result.summaries.values()), key=lambda h: h[0].id)
        result.quizzes = len(headers)
        result.assessments = (
            self.bank_record.assessments if self.bank_record is not None else len(self.recipes)
        )
        self.bank_unit.assessments = result.assessments
        result.questions = sum(n for _, n in headers)
        return headers

    def bank_outputs(self, source_warnings: list[Diagnostic]) -> bool:
        """The bank-wide formats' outputs: kept when nothing changed, else assembled last from
        every file's part and the assessments, as build() would write them. False when that
        failed (the errors are the result's)."""
        result = self.result
        if self.bank_record is not None:
            # Nothing changed: the bank's outputs (index.html among them when there are
            # assessments) are in OUT as made.
            for rel in self.bank_record.outputs:
                self.keep(rel)
                result.files += 1
            result.kept.add(BANK_UNIT)
            return True
        if not self.bank_wide:
            return True
        from concurrent.futures import Future, ThreadPoolExecutor

        known = self.reuse.known_valid() if self.reuse is not None else frozenset()
        ctx = WriteContext(formats=self.names, timestamp=self.timestamp, known_valid=known)
        self.kept.clear()
        out, errors = Output(), []
        digests: dict[str, Future[str]] = {}
        # The outputs' digests (the two cartridges, 48 and 24 MB at 100,000 questions: ~0.1 s) are
        # taken by a thread while the next is assembled and both are written: hashlib and the
        # writes let go of the GIL. (No pool is forked after this: no thread is alive at a fork.)
        with ThreadPoolExecutor(max_workers=1) as hasher:
            for name in self.bank_wide:
                try:
                    made = get_split(name)[1](self.parts.pop(name, []), tuple(self.resolved), ctx)
                except LmsExportError as e:
                    errors.extend(e.diagnostics)
                    continue
                errors.extend(d for d in made.warnings if d.severity is Severity.ERROR)
                out.warnings.extend(d for d in made.warnings if d.severity is not Severity.ERROR)
                out.files.update(made.files)
                digests.update((rel, hasher.submit(_sha256, data)) for rel, data in made.files.items())
                self.bank_unit.valid += made.validated
            if errors:
                result.errors = errors
                result.warnings = source_warnings
                return False
            result.warnings += out.warnings
            self.bank_unit.warnings += out.warnings
            for rel, data in sorted(out.files.items()):
                self.emit(rel, data)
                result.files += 1
            for rel in sorted(out.files):
                self.bank_unit.outputs[rel] = digests[rel].result()
        return True

    def index(self, headers: list[tuple[Quiz, int]]) -> None:
        """index.html: kept when the quizzes' headers are those it was made from, else made."""
        result = self.result
        if "html" not in self.names or (self.bank_record is not None and result.assessments):
            return
        digest = index_digest(headers, self.names)
        index = None
        if self.reuse is not None and not result.assessments:
            index = self.reuse.derived(INDEX_UNIT, digest)
        if index is not None:
            self.keep("index.html")
            result.derived[INDEX_UNIT] = index
            result.kept.add(INDEX_UNIT)
        else:
            # (imported only now: jinja2 and the HTML writer cost ~0.05 s, and an edit that
            # leaves every title and count as it was keeps index.html)
            from .writers.html import render_index_of

            ctx = WriteContext(formats=self.names, timestamp=self.timestamp)
            data = render_index_of(headers, ctx, self.resolved).encode("utf-8")
            self.emit("index.html", data)
            if result.assessments:  # it shows what the assessments draw: made from the whole bank
                self.bank_unit.outputs["index.html"] = _sha256(data)
            else:
                result.derived[INDEX_UNIT] = Derived(digest, [], {"index.html": _sha256(data)})
        result.files += 1


def recorded_keys(recorded: Iterable[RecordedIds]) -> set[tuple[str, str]]:
    """The keys (cache.id_key) of every id the reused files recorded: what check_ids_across
    checks a built file's ids against."""
    keys: set[tuple[str, str]] = set()
    for r in recorded:
        keys.update(r.keys())
    return keys


def check_ids_across(
    ids: list[tuple[str, str, SourceLoc]],
    recorded: Sequence[RecordedIds],
    diags: list[Diagnostic],
    others: set[tuple[str, str]] | None = None,
) -> None:
    """source.check_ids over the built files' ``ids`` and the reused files' ``recorded`` ones,
    with the messages of a build from scratch, decoding no recorded position unless needed.
    ``others``, when given, is the index of the recorded ids' keys (made while the pool worked).

    The reused files' ids were checked together by the build that recorded them (a record is
    only written for a build that succeeded), so among themselves they cannot collide: only
    the built files' ids are checked, against each other and against an index of the
    others' keys. Any collision (rare: the build then fails) runs the whole check over every
    id with its position, so that both positions and "first defined at" are those of a full
    build."""
    from .source import check_ids

    if recorded:
        from .cache import id_key

        if not ids:
            return
        built = [id_key(kind, ident) for kind, ident, _ in ids]
        if others is None:
            others = recorded_keys(recorded)
        if len(set(built)) == len(built) and others.isdisjoint(built):
            return
        ids = ids + [t for r in recorded for t in r.located()]
    check_ids(sorted(ids, key=lambda t: (t[2].path, t[2].line, t[2].col)), diags)


def _selector(recipes: Sequence[Assessment]) -> tuple[set[str], list[Any]]:
    """What the assessments select questions by: the listed ids, and the pools."""
    listed = {qid for r in recipes for d in r.draws if d.pool is None for qid in d.ids}
    return listed, [d.pool for r in recipes for d in r.draws if d.pool is not None]


def _draws_from(selects: tuple[set[str], list[Any]], summary: FileSummary) -> bool:
    """Whether an assessment may draw a question of this reused quiz file (by its summary's
    question headers; a file whose headers cannot be read counts as drawn from)."""
    from .cache import heads_from

    heads = heads_from(summary.heads) if isinstance(summary.heads, str) else summary.heads
    if heads is None:
        return True
    listed, pools = selects
    quiz = summary.quiz
    # (a QuestionHead has every field Pool.matches reads of a question)
    return any(h.id in listed or any(pool.matches(quiz, cast(Question, h)) for pool in pools) for h in heads)


def bank_digest(names: tuple[str, ...]) -> str:
    """What BANK_UNIT is made from besides every source file: the formats."""
    import hashlib

    return hashlib.sha256(repr(names).encode()).hexdigest()


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _may_be_assessment(path: Path) -> bool:
    """Whether a source file may be an assessment (a top-level `sections:` key), read cheaply.

    Only decides whether workers send their whole quizzes back (build_assessments needs them);
    a file this misses (flow style) is still built right, by loading the quizzes again.
    """
    try:
        data = path.read_bytes()
    except OSError:
        return False
    # A line that starts with `sections:` (what rb"^sections:" finds in MULTILINE mode), by the
    # fast substring search of bytes: the regex tried every position of the file, ~7 ms a
    # megabyte of the parent's CPU before the pool starts; this is ~0.3 ms a megabyte.
    return data.startswith(_SECTIONS) or b"\n" + _SECTIONS in data


_SECTIONS = b"sections:"
"""The key that starts an assessment file's line (_may_be_assessment)."""


def build_assessments(
    recipes: list[Assessment],
    paths: Sequence[Path],
    kept: dict[str, Quiz],
    names: tuple[str, ...],
    timestamp: int,
    source_errors: list[Diagnostic],
    media: MediaRead | None = None,
    skip: set[str] | None = None,
) -> tuple[list[Assessment], Output, list[Diagnostic]]:
    """Resolve the assessments against the bank and write their outputs (every format): the
    resolved assessments (sorted by id), their files and warnings, and the writers' errors.

    ``kept`` holds the quizzes the workers sent back; any other quiz file is loaded again here
    (the image files it reads go to ``media``), except those of ``skip``: unchanged quiz files
    none of whose questions any assessment selects (by their recorded headers), whose absence
    changes no draw's candidates. Resolution problems (an unknown id, an empty pool...) are
    appended to ``source_errors``; when there are any and files were skipped, the bank is
    resolved again with every file, since a hint may name anything of the bank (a
    did-you-mean over every id, tag or quiz).
    """
    from .assessments import resolve_all
    from .source import load_file

    recipe_paths = {r.loc.path for r in recipes if r.loc}

    def bank_of(skip: set[str]) -> Bank:
        quizzes: list[Quiz] = []
        for p in paths:
            quiz = kept.get(p.as_posix())
            if quiz is None and p.as_posix() not in recipe_paths and p.as_posix() not in skip:
                loaded = load_file(p, [], None, None, media)
                quiz = loaded if isinstance(loaded, Quiz) else None
                if quiz is not None:
                    kept[p.as_posix()] = quiz
            if quiz is not None:
                quizzes.append(quiz)
        return Bank(tuple(sorted(quizzes, key=lambda q: q.id)))

    problems: list[Diagnostic] = []
    resolved = resolve_all(bank_of(skip or set()), recipes, problems)
    if problems and skip:
        problems = []
        resolved = resolve_all(bank_of(set()), recipes, problems)
    source_errors.extend(problems)
    resolved = sorted(resolved, key=lambda a: a.id)
    if source_errors:
        return resolved, Output(), []
    ctx = WriteContext(formats=names, timestamp=timestamp)
    out, errors = run_writers(Bank((), tuple(resolved)), names, ctx)
    out.files.pop("index.html", None)
    return resolved, out, errors


# --------------------------------------------------------------------------- check, file by file


def check_file(
    path: str, timestamp: int, kind: str = "yaml", whole: bool = False, parts: tuple[str, ...] = ()
) -> FileResult:
    """check's unit of work: load one source file (or read one GIFT or Moodle XML file, as
    Moodle would: ``kind``), then write every per-file format in memory, validate, and read
    back what has a reader (check_quiz); and make the quiz's parts of the bank-wide formats
    ``parts``, as a build's worker does. Only the quiz's header, its parts and the diagnostics
    come back (and the whole quiz with ``whole``, or the recipe of an assessment file): the
    loader's (or reader's) in ``source_errors`` and the first ``source_warnings`` of
    ``warnings``, the writers' in the rest of ``warnings`` and in ``errors``."""
    from .package import discarding

    p = Path(path)
    result = FileResult(path, p.stat().st_size if p.is_file() else 0)
    if kind == "yaml":
        from .source import load_file

        loaded = load_file(p, result.source_errors, result.warnings, result.ids)
    else:
        found: list[Diagnostic] = []
        loaded = read_foreign_file(p, kind, found)
        result.source_errors = [d for d in found if d.severity is Severity.ERROR]
        result.warnings = [d for d in found if d.severity is not Severity.ERROR]
    result.source_warnings = len(result.warnings)
    if isinstance(loaded, Assessment):
        result.assessment = loaded
        return result
    if result.source_errors or loaded is None:
        return result
    result.quiz = loaded.header
    result.n_questions = len(loaded.questions)
    if whole:
        result.full = loaded
    per_file = tuple(f for f in WRITERS if f not in BANK_WIDE)
    # The per-file packages are validated member by member, then thrown away, and so is the
    # cartridge the parts make: no zip is made, no member compressed (package.discarding).
    with discarding():
        found = check_quiz(Bank((loaded,)), per_file, timestamp)
    for d in found:
        (result.errors if d.severity is Severity.ERROR else result.warnings).append(d)
    if parts:
        with discarding():
            _make_parts(
                result, loaded, parts, WriteContext(formats=tuple(WRITERS), timestamp=timestamp), own=False
            )
    return result


def read_foreign_file(path: Path, kind: str, diags: list[Diagnostic]) -> Quiz | None:
    """A GIFT ("gift") or Moodle XML ("moodlexml") file read as one quiz, as Moodle's importer
    would; its size is checked before it is read. Problems are appended to diags."""
    if kind == "gift":
        from .readers.gift import MAX_GIFT_BYTES as limit
        from .readers.gift import gift_too_large as too_large
        from .readers.gift import read_quiz_bytes
    else:
        from .readers.moodlexml import MAX_MOODLEXML_BYTES as limit
        from .readers.moodlexml import moodlexml_too_large as too_large
        from .readers.moodlexml import read_quiz_bytes  # type: ignore[assignment]

    where = path.as_posix()
    try:
        size = path.stat().st_size
        if size > limit:
            diags.append(too_large(where, size))
            return None
        data = path.read_bytes()
    except OSError as e:
        diags.append(Diagnostic(SourceLoc(where), f"cannot read the file: {e.strerror}", rule=f"{kind}.io"))
        return None
    quiz, found = read_quiz_bytes(data, where)
    diags += found
    return quiz


@dataclass
class CheckResult:
    """What check_files found, in the groups `lmsexport check` reports."""

    loader_warnings: list[Diagnostic] = field(default_factory=list)
    loader_errors: list[Diagnostic] = field(default_factory=list)
    """YAML loader errors, ids used twice across files, assessments that cannot be resolved."""
    foreign: list[Diagnostic] = field(default_factory=list)
    """What reading the GIFT and Moodle XML files given found, warnings included."""
    writers: list[Diagnostic] = field(default_factory=list)
    """Writer warnings and errors, schema validation and round trips of the whole bank."""
    quizzes: int = 0
    questions: int = 0
    assessments: list[Assessment] = field(default_factory=list)
    """The bank's assessments, resolved (none when the bank did not load)."""

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """What the run reports, as check_bank over the loaded bank does: loader warnings; then
        loader errors if any, else (when every GIFT and Moodle XML file was read) what the
        writers found; then what reading those files found."""
        diags = self.loader_warnings + self.loader_errors
        if self.loaded:
            diags = diags + self.writers
        return diags + self.foreign

    @property
    def loaded(self) -> bool:
        """The whole bank loaded (so its quizzes were written and checked)."""
        return not self.loader_errors and not any(d.severity is Severity.ERROR for d in self.foreign)


def check_files(
    paths: Sequence[Path],
    timestamp: int,
    foreign: Sequence[tuple[Path, str]] = (),
    jobs: int = 1,
    pool_min_bytes: int = 0,
) -> CheckResult:
    """check_bank over the bank made of these YAML files and of the ``foreign`` (path, "gift" or
    "moodlexml") files, each read as Moodle would, file by file: with ``jobs`` > 1 (and at least
    ``pool_min_bytes`` of files) each file is loaded, written in every per-file format,
    validated and read back in a pool of processes forked after the schemas are compiled, as
    build_files does. Here, afterwards: ids across the YAML files, the assessments (resolved
    against the YAML quizzes, written, read back) and the bank-wide formats, assembled from the
    parts the workers made of every quiz, as build_files assembles them."""
    from .package import discarding

    names = tuple(WRITERS)
    bank_wide = tuple(f for f in names if f in BANK_WIDE)
    whole = any(_may_be_assessment(p) for p in paths)
    tasks = [_task(p, check_file, p.as_posix(), timestamp, "yaml", whole, bank_wide) for p in paths]
    tasks += [_task(p, check_file, p.as_posix(), timestamp, kind, whole, bank_wide) for p, kind in foreign]
    results: dict[tuple[str, str], FileResult] = {}
    kinds = {p.as_posix(): kind for p, kind in foreign}

    def take(fr: FileResult) -> None:
        results[(kinds.get(fr.path, "yaml"), fr.path)] = fr

    total = sum(p.stat().st_size for p, _, _ in tasks if p.is_file())
    if jobs > 1 and len(tasks) > 1 and total >= pool_min_bytes:
        _run_pool(tasks, jobs, take, warm=names, readers=True)
    else:
        for _, fn, args in tasks:
            take(fn(*args))

    from .source import check_ids

    result = CheckResult()
    ids: list[tuple[str, str, SourceLoc]] = []
    yaml_quizzes: list[Quiz] = []
    parts: dict[str, list[object]] = {}
    recipes: list[Assessment] = []
    for kind, group in (("yaml", list(paths)), ("foreign", [p for p, _ in foreign])):
        for p in group:
            fr = results[(kinds.get(p.as_posix(), "yaml"), p.as_posix())]
            own = fr.warnings[: fr.source_warnings]
            if kind == "foreign":
                result.foreign += own + fr.source_errors
            else:
                result.loader_warnings += own
                result.loader_errors += fr.source_errors
                ids += fr.ids
            result.writers += fr.warnings[fr.source_warnings :] + fr.errors
            if fr.assessment is not None:
                recipes.append(fr.assessment)
            if fr.quiz is not None:
                result.quizzes += 1
                result.questions += fr.n_questions
            if fr.full is not None and kind == "yaml":
                yaml_quizzes.append(fr.full)
            for name, made in fr.parts.items():
                parts.setdefault(name, []).extend(made)
    check_ids(sorted(ids, key=lambda t: (t[2].path, t[2].line, t[2].col)), result.loader_errors)
    if not result.loader_errors and (recipes or bank_wide):
        if recipes:
            from .assessments import resolve_all

            bank = Bank(tuple(sorted(yaml_quizzes, key=lambda q: q.id)))
            found = resolve_all(bank, recipes, result.loader_errors)
            result.assessments = sorted(found, key=lambda a: a.id)
        if result.loaded:
            per_file = tuple(f for f in names if f not in BANK_WIDE)
            if result.assessments:
                with discarding():
                    result.writers += check_quiz(Bank((), tuple(result.assessments)), per_file, timestamp)
            ctx = WriteContext(formats=names, timestamp=timestamp)
            for name in bank_wide:
                try:
                    with discarding():
                        cartridge = get_split(name)[1](parts.pop(name, []), tuple(result.assessments), ctx)
                except LmsExportError as e:
                    result.writers += e.diagnostics
                    continue
                result.writers += [d for d in cartridge.warnings if d.severity is not Severity.ERROR]
                result.writers += [d for d in cartridge.warnings if d.severity is Severity.ERROR]
    if not result.loaded:
        result.quizzes = result.questions = 0
        result.assessments = []
    return result


# --------------------------------------------------------------------------- the pool


Task = tuple[Path, Callable[..., FileResult], tuple[Any, ...]]
"""A unit of work for the pool: the source file (for its size), the function and its arguments."""


def _task(path: Path, fn: Callable[..., FileResult], *args: Any) -> Task:
    return (path, fn, args)


def _run_pool(
    tasks: Sequence[Task],
    jobs: int,
    take: Callable[[FileResult], None],
    warm: tuple[str, ...] = (),
    meanwhile: Callable[[], None] | None = None,
    readers: bool = False,
    preimport: bool = True,
) -> None:
    """Run ``fn(*args)`` of every (source path, fn, args) task in a pool of ``jobs`` processes,
    handing each result to ``take`` (in this process) as soon as it is done. The schemas the
    formats ``warm`` validate with are compiled first, and, for two workers or more, what their
    tasks import (_import_for_tasks; the readers too with ``readers``), unless ``preimport`` is
    False: two tasks of one file (a lone file's build split in two) import each its own part,
    at the same time, rather than all of it here first. ``meanwhile`` runs here once every
    task is submitted, before the first result is taken."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    if {"qti21", "qti12", "cc13", "cc11"} & set(warm) and context.get_start_method() == "fork":
        # Compiled once, here, and inherited by every forked worker: compiling the QTI schema
        # (~0.8 s) in each worker costs that CPU again per worker, and validating their trees in
        # this process instead would mean parsing every document back (~0.1 ms an item, more
        # than the compile from ~8,000 questions on). Elsewhere (spawn) each worker compiles.
        if "qti21" in warm:
            from .package import warm_schemas

            warm_schemas()
        if {"qti12", "cc13", "cc11"} & set(warm):
            from .validate_qti12 import CC_VERSIONS
            from .validate_qti12 import warm as warm_qti12

            # Only the cartridge versions built: a QTI 1.2 build compiles neither (nor imports
            # the cartridge writer, ~5-8 ms here before the pool starts, for its table).
            cc: tuple[CcVersion, ...] = ()
            if {"cc13", "cc11"} & set(warm):
                from .writers.cc13 import VERSIONS

                cc = tuple(CC_VERSIONS[VERSIONS[f].manifest_ns] for f in VERSIONS if f in warm)
            warm_qti12(cc)
    if preimport and context.get_start_method() == "fork" and min(jobs, len(tasks)) > 1:
        _import_for_tasks(warm, readers)
    # Largest files first, so that no worker is left with a big file while the other idles.
    order = sorted(tasks, key=lambda t: -(t[0].stat().st_size if t[0].is_file() else 0))
    # What this process holds now (modules, compiled schemas' proxies), out of the collector's
    # reach in the forked workers: their full collections no longer walk it (nor write to its
    # pages, which fork shares until they are written).
    with (
        collector_spared(),
        ProcessPoolExecutor(
            max_workers=min(jobs, len(tasks)),
            mp_context=context,
            initializer=_die_with_parent,
            initargs=(os.getpid(),),
        ) as pool,
    ):
        pending: set[Future[FileResult]] = {pool.submit(fn, *args) for _, fn, args in order}
        if meanwhile is not None:
            meanwhile()
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                take(future.result())
            del finished  # drop the results: only the pending ones stay in memory


_spared = 0
"""How many collector_spared() blocks are open in this process."""


@contextlib.contextmanager
def collector_spared() -> Iterator[None]:
    """What this process holds when the block starts, out of the cyclic collector's full passes
    for as long as it lasts (gc.freeze: frozen objects are still freed by reference counting;
    only cycles among them wait), undone when the outermost such block ends. Nested blocks (a
    pool under the CLI's build) freeze what was made since. When something else froze objects
    first (a host program), the collector is left alone: freezing more would keep the host's
    garbage cycles of the moment for good."""
    import gc

    global _spared
    if _spared == 0 and gc.get_freeze_count() > 0:
        yield
        return
    _spared += 1
    try:
        gc.freeze()
        yield
    finally:
        _spared -= 1
        if _spared == 0:
            gc.unfreeze()


def _import_for_tasks(names: tuple[str, ...], readers: bool) -> None:
    """Import here, before the pool forks, what a task imports on its first file: the loader
    and PyYAML, the writers of the formats ``names`` and their part functions, the HTML page's
    template compiled, and with ``readers`` the GIFT and Moodle XML readers (check's
    read-backs). Each forked worker inherits them. Measured on a 483-question file, a worker's
    first file otherwise cost ~0.1 s more CPU than the next for QTI 1.2 alone and ~0.3 s for
    every format, in each worker. Not langcodes (~0.05 s): the common tags are answered without
    it (langtag), and a worker that meets another tag imports it then, beside its sibling."""
    import yaml  # noqa: F401

    from . import source  # noqa: F401

    for name in names:
        get_writer(name)
        if name in BANK_WIDE:
            get_split(name)
    if "html" in names:
        from .writers.html import warm as warm_html

        warm_html()
    if readers:
        from .readers import gift, moodlexml  # noqa: F401


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
