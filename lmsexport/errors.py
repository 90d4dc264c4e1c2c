"""Typed errors. The library raises them; only cli.py turns them into text and exit codes."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .model import SourceLoc


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


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
        text = f"{self.loc}: {self.severity.value}: {self.message}"
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
