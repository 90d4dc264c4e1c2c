"""A source file's text as the linter needs it: where things are, and what is ignored where.

The model carries the position of each quiz, question and choice; a finding inside a text (a
letter, a word) is located by searching the file from its owner's position, as the loader does
(source._Ctx.locate): a YAML value is not its file text (quotes, escapes, folding).

Ignore comments (docs/lint.md, "Ignoring findings"):

- ``# lmsexport: ignore[LX101,LX4]`` among the comment lines at the top of a file: the whole file;
- the same comment on a line, or in the comment lines directly above it: findings reported on
  that line; on (or above) a question's ``id:`` line: every finding about that question.

``# lmsexport: ignore`` without a list ignores every rule there.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from ..errors import Diagnostic, Severity
from ..model import SourceLoc
from .rules import RULES

_IGNORE = re.compile(r"(?:^|\s)#\s*lmsexport\s*:\s*ignore\b(?:\[([^\]]*)\])?", re.IGNORECASE)
_ID_LINES = re.compile(
    r"""^[ \t]*(?:-[ \t]+)?(?:\{[ \t]*)?id[ \t]*:[ \t]*"""
    r"""["']?([A-Za-z][A-Za-z0-9._-]*)["']?[ \t]*(?:[#,}]|$)""",
    re.M,
)
"""A question's (or quiz's) ``id:`` line, block style or the first key of a flow mapping."""
_COMMENT_ONLY = re.compile(r"^[ \t]*#")
ALL = "LX"
"""The selector every rule starts with: what a bare ``ignore`` comment ignores."""


@dataclass
class SourceFile:
    path: str
    text: str
    lines: list[str] = field(init=False)
    starts: list[int] = field(init=False)
    file_ignores: set[str] = field(default_factory=set)
    """Selectors ignored in the whole file."""
    line_ignores: dict[int, set[str]] = field(default_factory=dict)
    """1-based line -> selectors an ignore comment on that line names."""
    id_lines: dict[str, int] = field(default_factory=dict)
    """Question (and quiz) id -> the 1-based line of its ``id:``."""
    problems: list[Diagnostic] = field(default_factory=list)
    """LX001 findings: ignore comments naming no rule."""

    def __post_init__(self) -> None:
        self.lines = self.text.split("\n")
        self.starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        for m in _ID_LINES.finditer(self.text):
            self.id_lines.setdefault(m.group(1), bisect.bisect_right(self.starts, m.start()))
        if "lmsexport" not in self.text.lower():
            return  # no ignore comment anywhere: the common case, decided at once
        header = True
        for number, line in enumerate(self.lines, 1):
            stripped = line.strip()
            if header and stripped and not stripped.startswith("#"):
                header = False
            for found in _IGNORE.finditer(line):
                codes = self._codes(found, number, line)
                if header:
                    self.file_ignores |= codes
                else:
                    self.line_ignores.setdefault(number, set()).update(codes)

    def _codes(self, found: re.Match[str], number: int, line: str) -> set[str]:
        if found.group(1) is None:
            return {ALL}
        codes = set()
        for raw in found.group(1).split(","):
            code = raw.strip().upper()
            if not code:
                continue
            if any(r.startswith(code) for r in RULES) and code.startswith("LX"):
                codes.add(code)
                continue
            col = line.find(raw.strip(), found.start(1)) + 1
            self.problems.append(
                Diagnostic(
                    SourceLoc(self.path, number, col),
                    f"'{raw.strip()}' in an ignore comment is not a rule id or prefix",
                    Severity.WARNING,
                    "LX001",
                    "write ids as lmsexport lint --list-rules shows them, e.g. LX301",
                )
            )
        return codes

    # ------------------------------------------------------------------ positions

    def loc(self, offset: int) -> SourceLoc:
        line = bisect.bisect_right(self.starts, offset)
        return SourceLoc(self.path, line, offset - self.starts[line - 1] + 1)

    def offset(self, loc: SourceLoc) -> int:
        if loc.line <= 0 or loc.line > len(self.starts):
            return 0
        return self.starts[loc.line - 1] + max(loc.col - 1, 0)

    def find(self, needle: str, start: SourceLoc | None, end_line: int | None = None) -> SourceLoc | None:
        """Where needle is first written at or after start (and before end_line), else None."""
        if not needle or start is None:
            return None
        begin = self.offset(start)
        stop = self.starts[end_line - 1] if end_line and end_line - 1 < len(self.starts) else len(self.text)
        at = self.text.find(needle, begin, stop)
        return self.loc(at) if at >= 0 else None

    def key(self, key: str, start_line: int, end_line: int | None = None) -> SourceLoc | None:
        """The first ``key:`` (at any indentation, in a list item or not) in [start_line, end_line)."""
        pattern = re.compile(rf"^([ \t]*(?:-[ \t]+)?){re.escape(key)}[ \t]*:")
        last = min(end_line or len(self.lines) + 1, len(self.lines) + 1)
        for number in range(max(start_line, 1), last):
            m = pattern.match(self.lines[number - 1])
            if m:
                return SourceLoc(self.path, number, len(m.group(1)) + 1)
        return None

    def top_key(self, key: str) -> SourceLoc | None:
        """A top-level key of the file (``shuffle:``), else None."""
        pattern = re.compile(rf"^{re.escape(key)}[ \t]*:")
        for number, line in enumerate(self.lines, 1):
            if pattern.match(line):
                return SourceLoc(self.path, number, 1)
        return None

    # ------------------------------------------------------------------ ignores

    def ignores(self) -> Ignores:
        """What this file's comments ignore, without its text (cheap to send between processes)."""
        comments = frozenset(n for n, line in enumerate(self.lines, 1) if _COMMENT_ONLY.match(line))
        return Ignores(frozenset(self.file_ignores), dict(self.line_ignores), dict(self.id_lines), comments)


@dataclass(frozen=True)
class Ignores:
    file: frozenset[str]
    lines: dict[int, set[str]]
    id_lines: dict[str, int]
    comment_lines: frozenset[int]

    def _ignored_at(self, rule_id: str, line: int) -> bool:
        if any(rule_id.startswith(c) for c in self.lines.get(line, ())):
            return True
        above = line - 1
        while above in self.comment_lines:
            if any(rule_id.startswith(c) for c in self.lines.get(above, ())):
                return True
            above -= 1
        return False

    def ignored(self, rule_id: str, line: int, question: str | None = None) -> bool:
        """Whether a finding of rule_id reported on line (about question, if any) is ignored."""
        if any(rule_id.startswith(c) for c in self.file):
            return True
        if line and self._ignored_at(rule_id, line):
            return True
        id_line = self.id_lines.get(question) if question else None
        return bool(id_line and id_line != line and self._ignored_at(rule_id, id_line))
