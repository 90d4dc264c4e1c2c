"""Typed errors. The library raises them; only cli.py turns them into text and exit codes."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

from .model import SourceLoc, loc_text


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
_SEVERITY_OF = {text: s for s, text in SEVERITY_TEXT.items()}


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
        listed = self.__dict__.get("_listed")
        where = str(self.loc) if listed is None else loc_text(listed[0], listed[1], listed[2])
        text = f"{where}: {SEVERITY_TEXT[self.severity]}: {self.message}"
        if self.hint:
            text += f"\nhint: {self.hint}"
        return text

    def sort_key(self) -> tuple[str, int, int, str]:
        listed = self.__dict__.get("_listed")
        if listed is not None:
            return (listed[0], listed[1], listed[2], self.message)
        return (self.loc.path, self.loc.line, self.loc.col, self.message)

    # -- as a list of plain values (the rebuild cache's records keep diagnostics so) ----------

    def as_list(self) -> list[Any]:
        """``[path, line, col, message, severity, rule, hint]``, every item a JSON value;
        from_list() gives the diagnostic back. For a diagnostic from_list() made, the very list
        it was made from (not to be changed)."""
        listed = self.__dict__.get("_listed")
        if listed is not None:
            return listed  # type: ignore[no-any-return]
        loc = self.loc
        return [loc.path, loc.line, loc.col, self.message, SEVERITY_TEXT[self.severity], self.rule, self.hint]

    @classmethod
    def from_list(cls, listed: Any) -> Self:
        """The diagnostic as_list() gave; ValueError if ``listed`` is not of that shape.

        Its location is made only when first asked for: a no-op rebuild of a bank with ~4
        warnings a question replays 400,000 of them at 100,000 questions, and needs of most
        only their text (format(), sort_key()), which come from the list, where a SourceLoc
        (a frozen dataclass) takes ~0.6 us to make. The other fields are set at once: they have
        class-level defaults, which a missing instance field would show."""
        if type(listed) is not list or len(listed) != 7:
            raise ValueError("not a recorded diagnostic")
        path, line, col, message, severity, rule, hint = listed
        if not (
            type(path) is str
            and type(line) is int
            and type(col) is int
            and type(message) is str
            and type(severity) is str
            and severity in _SEVERITY_OF
            and type(rule) is str
            and (hint is None or type(hint) is str)
        ):
            raise ValueError("not a recorded diagnostic")
        made = object.__new__(cls)
        made.__dict__.update(
            _listed=listed, message=message, severity=_SEVERITY_OF[severity], rule=rule, hint=hint
        )
        return made

    if not TYPE_CHECKING:  # (for mypy, a class with __getattr__ has every attribute)

        def __getattr__(self, name: str) -> Any:
            # Reached only for an attribute the instance lacks: the location of a diagnostic
            # from_list() made, made now.
            listed = self.__dict__.get("_listed")
            if name != "loc" or listed is None:
                raise AttributeError(
                    f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self
                )
            loc = self.__dict__["loc"] = SourceLoc(listed[0], listed[1], listed[2])
            return loc


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
