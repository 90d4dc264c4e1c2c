"""Typed errors. The library raises them; only cli.py turns them into text and exit codes."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .model import SourceLoc


class Severity(str, enum.Enum):
    """How much a diagnostic matters: errors fail a run, warnings only with --strict, notes never.

    A note states a harmless fact the user may want to know (gcc's and clang's "note:"), e.g.
    that a QTI 2.1.1 item was checked against the bundled QTI 2.1 schema or that macOS
    ``__MACOSX/`` debris in a package was ignored; a warning under ``--strict`` would fail a
    pipeline over a package that imports fine.
    """

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


SEVERITY_TEXT = {s: s.value for s in Severity}
"""Each severity's text (a dict: an enum member's .value is a descriptor call, ~2 us, and a
bank-shaped build reports ~4 warnings a question, each formatted and recorded)."""


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in an input or an output, in compiler form."""

    loc: SourceLoc
    message: str
    severity: Severity = Severity.ERROR
    rule: str = "error"
    """Stable rule id for machine-readable reports, e.g. "source.unknown-key"."""
    hint: str | None = None
    """A suggested fix, printed on its own "hint:" line."""

    def format(self) -> str:
        text = f"{self.loc}: {SEVERITY_TEXT[self.severity]}: {self.message}"
        if self.hint:
            text += f"\nhint: {self.hint}"
        return text

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.loc.path, self.loc.line, self.loc.col, self.message)


class LmsExportError(Exception):
    """Base class: carries every diagnostic of a failed step, not only the first."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic) -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))


class SourceError(LmsExportError):
    """The YAML question bank is malformed or breaks a rule of the source format."""


class GiftSyntaxError(LmsExportError):
    """A GIFT file cannot be read the way Moodle would read it."""


class SchemaValidationError(LmsExportError):
    """An XML document is not valid against its XSD."""


class GiftExportError(LmsExportError):
    """Bank content that GIFT cannot carry without breaking Moodle's import."""


class MoodleXmlExportError(LmsExportError):
    """Bank content that Moodle XML cannot carry so that Moodle's importer reads it back."""


class MoodleXmlError(LmsExportError):
    """A Moodle XML file cannot be read the way Moodle would read it."""
