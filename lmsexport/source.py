"""Read the YAML source format into the model, strictly, with file:line:col on every problem.

Parsing uses libyaml's event stream (PyYAML's C parser: ten times faster than pure-Python
YAML, see ../docs/performance.md) and builds a small node tree of our own, because that is
the one place where every hostile construct can be refused before it costs anything:
anchors and aliases (exponential expansion), merge keys, explicit tags, nesting deeper than
MAX_DEPTH, more than one document. Nothing is ever constructed into Python objects by YAML
itself; every value is checked against the source format (docs/source-format.md) here.

All problems of a run are collected and raised together in one SourceError.
"""

from __future__ import annotations

import difflib
import enum
import math
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

from . import sourcespec as spec
from .errors import Diagnostic, Severity, SourceError
from .langtag import tag_is_valid
from .model import (
    Answer,
    Assessment,
    Bank,
    Blank,
    Body,
    CalcChoice,
    Calculated,
    CalculatedChoice,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Constraint,
    Derived,
    Description,
    Difficulty,
    Draw,
    Essay,
    Formula,
    Gap,
    Hint,
    Inline,
    Layout,
    LineBreak,
    ListVariable,
    Matching,
    Media,
    MultipleChoice,
    NumberBlank,
    Numbering,
    Numerical,
    NumericKey,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    OutcomeFeedback,
    Pair,
    Para,
    Parameters,
    Pool,
    Question,
    QuestionType,
    Quiz,
    RangeVariable,
    ResponseFormat,
    Rich,
    Section,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Text,
    TextBlank,
    Tolerance,
    ToleranceKind,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
    Variable,
    Variant,
    default_multiple_credits,
    exact_credit,
    gaps_of,
    is_full,
    plain_text,
)
from .moodle import FILE_TYPE_RE

if TYPE_CHECKING:
    from .variants import Given

# Documented limits (docs/source-format.md#limits).
MAX_FILE_BYTES = 10 * 1024 * 1024
"""A source file larger than this is refused before it is read (10 MiB, ~7,000 questions)."""
MAX_DEPTH = 16
"""Deepest nesting of mappings and sequences; the format itself needs 5."""
MAX_TEXT_CHARS = 20_000
"""Longest stem, choice, feedback or explanation."""
MAX_ID_CHARS = 64
"""Longest quiz or question id (ids become file names inside packages)."""
MAX_TAG_CHARS = 100
MAX_ERRORS_PER_FILE = 200
"""After this many errors in one file, reading it stops (a file of 100,000 unknown keys would
otherwise print 100,000 lines)."""
MAX_ITEMS = 10_000
"""Most questions in one quiz, choices in one question, etc."""
MAX_NODES = 500_000
"""Most YAML nodes (scalars, lists, mappings) in one file, counted while composing. A real
question takes ~32 nodes in ~1,100 bytes, so a full 10 MiB bank stays under it; a 10 MiB
file of `[a,a,a,...]` would otherwise become 5 million nodes: 1.5 GB and 40 s."""

ID_RE = re.compile(r"[A-Za-z][A-Za-z0-9._-]*\Z")
SOURCE_SUFFIXES = (".yaml", ".yml")

# Characters XML 1.0 cannot carry (C0 controls but TAB/LF/CR, surrogates, U+FFFE/U+FFFF).
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_TYPE_NAMES = {
    _STR: "text",
    _INT: "a number",
    _FLOAT: "a number",
    _BOOL: "a boolean",
    _NULL: "nothing (null)",
    "tag:yaml.org,2002:timestamp": "a date",
}


# --------------------------------------------------------------------------- YAML -> nodes


class Node:
    """A YAML node with its position; values are raw (scalars keep their source text).

    A plain class with slots, and the position kept as two ints: a bank has ~32 nodes a question
    and only a few of them ever need a SourceLoc (the model's, and the ones with an error).
    """

    __slots__ = ("kind", "path", "line", "col", "value", "tag", "quoted")

    def __init__(
        self,
        kind: str,
        path: str,
        line: int,
        col: int,
        value: Any = None,
        tag: str = _STR,
        quoted: bool = False,
    ) -> None:
        self.kind = kind
        """"map", "seq" or "scalar"."""
        self.path = path
        self.line = line
        """1-based, as SourceLoc."""
        self.col = col
        self.value = value
        """scalar: the text as written; seq: list[Node]; map: list[tuple[Node, Node]]."""
        self.tag = tag
        """Resolved YAML 1.1 tag of a scalar (implicit resolution, as PyYAML's safe loader)."""
        self.quoted = quoted

    @property
    def loc(self) -> SourceLoc:
        return SourceLoc(self.path, self.line, self.col)

    def describe(self) -> str:
        if self.kind == "map":
            return "a mapping"
        if self.kind == "seq":
            return "a list"
        return _TYPE_NAMES.get(self.tag, "a value")


class _Abort(Exception):
    """Stop composing this file; the diagnostic is already recorded."""


class _Composer:
    def __init__(self, text: str, path: str, diags: list[Diagnostic]) -> None:
        import yaml

        self.yaml = yaml
        self.path = path
        self.diags = diags
        self.loader = yaml.CSafeLoader(text)
        self.resolver = yaml.resolver.Resolver()
        self.nodes = 0
        self.node_events = frozenset({yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent})

    def loc(self, mark: Any) -> SourceLoc:
        return SourceLoc(self.path, mark.line + 1, mark.column + 1)

    def fail(self, mark: Any, message: str, rule: str, hint: str | None = None) -> _Abort:
        self.diags.append(Diagnostic(self.loc(mark), message, rule=rule, hint=hint))
        return _Abort()

    def compose(self) -> Node | None:
        y = self.yaml
        try:
            try:
                self.loader.get_event()  # StreamStart
                event = self.loader.get_event()
                if isinstance(event, y.StreamEndEvent):
                    raise self.fail(event.start_mark, "the file is empty", "source.empty-file")
                root = self.node(self.loader.get_event(), 0)
                self.loader.get_event()  # DocumentEnd
                event = self.loader.get_event()
                if not isinstance(event, y.StreamEndEvent):
                    raise self.fail(
                        event.start_mark,
                        "a source file holds one YAML document (one quiz); found a second one",
                        "source.multiple-documents",
                        hint="move the second quiz into a file of its own",
                    )
                return root
            except y.MarkedYAMLError as e:
                mark = e.problem_mark or e.context_mark
                problem = e.problem or "invalid YAML"
                hint = None
                if "tab" in problem or "cannot start any token" in problem:
                    hint = "YAML indentation must use spaces, not tabs"
                raise self.fail(mark, f"YAML syntax error: {problem}", "source.yaml-syntax", hint) from None
            except y.YAMLError as e:  # ReaderError and friends have no mark
                self.diags.append(
                    Diagnostic(SourceLoc(self.path), f"YAML error: {e}", rule="source.yaml-syntax")
                )
                raise _Abort() from None
        except _Abort:
            return None
        finally:
            self.loader.dispose()

    def node(self, event: Any, depth: int) -> Node:
        """The node that starts with ``event`` (already taken from the parser), and its children.

        The hot loop of loading (one call per YAML value): event classes are compared by
        identity, the refusals (aliases, anchors, tags) are checked in _refuse only when the
        event carries an anchor or a tag, and plain scalars' resolved tags are memoised.
        """
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.fail(
                event.start_mark,
                f"the file has more than {MAX_NODES:,} YAML values; that is the limit for one file",
                "source.too-many-nodes",
                hint="split the quiz into several files",
            )
        y = self.yaml
        cls = event.__class__
        if cls not in self.node_events or event.anchor is not None or event.tag is not None:
            self._refuse(event)
        mark = event.start_mark
        line = mark.line + 1
        col = mark.column + 1
        if cls is y.ScalarEvent:
            value = event.value
            if event.style in _QUOTED_STYLES:
                return Node("scalar", self.path, line, col, value, _STR, True)
            key = (value, event.implicit)
            resolved = _RESOLVED.get(key)
            if resolved is None:
                resolved = self.resolver.resolve(y.ScalarNode, value, event.implicit)
                if len(value) <= _RESOLVED_MAX_CHARS and len(_RESOLVED) < _RESOLVED_MAX:
                    _RESOLVED[key] = resolved
            return Node("scalar", self.path, line, col, value, resolved, False)
        if depth >= MAX_DEPTH:
            raise self.fail(
                event.start_mark,
                f"nesting deeper than {MAX_DEPTH} levels",
                "source.too-deep",
            )
        get = self.loader.get_event
        if cls is y.SequenceStartEvent:
            items: list[Node] = []
            event = get()
            end = y.SequenceEndEvent
            while event.__class__ is not end:
                items.append(self.node(event, depth + 1))
                event = get()
            return Node("seq", self.path, line, col, items)
        if cls is y.MappingStartEvent:
            pairs: list[tuple[Node, Node]] = []
            event = get()
            end = y.MappingEndEvent
            while event.__class__ is not end:
                key_node = self.node(event, depth + 1)
                if key_node.kind == "scalar" and key_node.tag == "tag:yaml.org,2002:merge":
                    raise self.fail(
                        _mark_of(key_node),
                        "YAML merge keys (<<) are not allowed",
                        "source.yaml-merge",
                        hint="write the keys out in full",
                    )
                pairs.append((key_node, self.node(get(), depth + 1)))
                event = get()
            return Node("map", self.path, line, col, pairs)
        raise self.fail(
            event.start_mark, f"unexpected YAML event {type(event).__name__}", "source.yaml-syntax"
        )

    def _refuse(self, event: Any) -> None:
        """Raise for an alias, an anchor or an explicit tag (a lone "!" is allowed)."""
        y = self.yaml
        if isinstance(event, y.AliasEvent):
            raise self.fail(
                event.start_mark,
                f"YAML aliases (*{event.anchor}) are not allowed",
                "source.yaml-alias",
                hint="write the value out in full; anchors and aliases allow exponential expansion",
            )
        if getattr(event, "anchor", None) is not None:
            raise self.fail(
                event.start_mark,
                f"YAML anchors (&{event.anchor}) are not allowed",
                "source.yaml-anchor",
                hint="write the value out in full; anchors and aliases allow exponential expansion",
            )
        tag = getattr(event, "tag", None)
        explicit = tag is not None and not (
            isinstance(event, y.ScalarEvent) and (event.implicit[0] or event.implicit[1]) and tag == "!"
        )
        if explicit and tag not in (None, "!"):
            raise self.fail(
                event.start_mark,
                f"YAML tags ({tag}) are not allowed",
                "source.yaml-tag",
                hint="remove the tag; quote the value if it must be text",
            )


_QUOTED_STYLES = frozenset({"'", '"', "|", ">"})
_RESOLVED: dict[tuple[str, tuple[bool, bool]], str] = {}
"""(plain scalar, implicit) -> its resolved tag: a pure function of both, and a file repeats
its keys and booleans thousands of times."""
_RESOLVED_MAX = 4096
_RESOLVED_MAX_CHARS = 64


@dataclass
class _Mark:
    line: int
    column: int


def _mark_of(node: Node) -> _Mark:
    return _Mark(node.line - 1, node.col - 1)


# --------------------------------------------------------------------------- bytes -> text


def decode_source(data: bytes, path: str, diags: list[Diagnostic]) -> str | None:
    """UTF-8 (a BOM is accepted and dropped) or a located error; other encodings are refused."""
    for bom, name in (
        (b"\xff\xfe\x00\x00", "UTF-32"),
        (b"\x00\x00\xfe\xff", "UTF-32"),
        (b"\xff\xfe", "UTF-16"),
        (b"\xfe\xff", "UTF-16"),
    ):
        if data.startswith(bom):
            diags.append(
                Diagnostic(
                    SourceLoc(path, 1, 1),
                    f"the file is encoded as {name}; source files must be UTF-8",
                    rule="source.encoding",
                    hint="save the file as UTF-8",
                )
            )
            return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        line_start = data.rfind(b"\n", 0, e.start) + 1
        col = len(data[line_start : e.start].decode("utf-8", "replace")) + 1
        diags.append(
            Diagnostic(
                SourceLoc(path, line, col),
                f"the file is not valid UTF-8 (byte 0x{data[e.start]:02X})",
                rule="source.encoding",
                hint="save the file as UTF-8 (it may be Latin-1 or Windows-1252)",
            )
        )
        return None
    bad = False
    for m in _XML_BAD.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        diags.append(
            Diagnostic(
                SourceLoc(path, line, col),
                f"control character U+{ord(m.group()):04X} is not allowed (XML cannot carry it)",
                rule="source.bad-character",
                hint="delete it; use a line break or a space instead",
            )
        )
        bad = True
        if len(diags) > 100:
            break
    return None if bad else text


# --------------------------------------------------------------------------- nodes -> model

# Which keys each mapping allows and requires: sourcespec.py, the one definition the editor
# schema (`lmsexport schema`) is generated from too.
QUIZ_KEYS = spec.QUIZ.names
COMMON_QUESTION_KEYS = tuple(k.name for k in spec.COMMON_QUESTION)
ASSESSMENT_KEYS = spec.ASSESSMENT.names
SECTION_KEYS = spec.SECTION.names
DRAW_KEYS = spec.DRAW.names
POOL_KEYS = spec.POOL.names
MARKUPS = spec.MARKUPS
TYPE_KEYS: dict[QuestionType, tuple[str, ...]] = {
    t: tuple(k.name for k in ks) for t, ks in spec.TYPE_KEYS.items()
}
CHOICE_KEYS = spec.CHOICE.names
PAIR_KEYS = spec.PAIR.names


@dataclass
class _Ctx:
    path: str
    diags: list[Diagnostic]
    warnings: list[Diagnostic] = field(default_factory=list)
    ids: list[tuple[str, str, SourceLoc]] = field(default_factory=list)
    """(kind, id, location of the id's value) of every quiz, assessment and question, for check_ids."""
    markup: str = "plain"
    """The file's `markup`: how _rich reads its texts."""
    text: str = ""
    """The whole file, to locate problems inside a text (locate)."""
    base: Path | None = None
    """The folder of the file, which images are read from (None: the text has no file)."""
    media_read: MediaRead = field(default_factory=dict)
    """Every image file read for this file (see MediaRead), for the rebuild cache."""
    _line_starts: list[int] | None = None
    _cursor: dict[int, int] = field(default_factory=dict)
    """Per scalar node (by id), where the last problem inside it was found: problems are
    reported in reading order, so the next search starts after it (two equal needles, two
    positions)."""

    variants: int | None = None
    """The quiz's `variants:`, the count of every parametric question that gives none."""
    errors: int = 0

    def error(self, node: Node | SourceLoc, message: str, rule: str, hint: str | None = None) -> None:
        loc = node.loc if isinstance(node, Node) else node
        self.diags.append(Diagnostic(loc, message, rule=rule, hint=hint))
        self.errors += 1
        if self.errors >= MAX_ERRORS_PER_FILE:
            self.diags.append(
                Diagnostic(
                    SourceLoc(self.path),
                    f"too many errors ({self.errors}); stopped reading this file",
                    rule="source.too-many-errors",
                )
            )
            raise _Abort()

    def locate(self, node: Node, needle: str | None) -> SourceLoc:
        """Where ``needle`` (text the scalar ``node`` holds) is written in the file, else the node.

        A scalar's value is not the file's text (quotes, escapes, folding, indentation), so a
        problem found inside a value is located by searching the file from the node onward.
        """
        if not needle or not self.text:
            return node.loc
        import bisect

        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        starts = self._line_starts
        if node.line - 1 >= len(starts):
            return node.loc
        start = starts[node.line - 1] + node.col - 1
        window = 4 * len(node.value if isinstance(node.value, str) else "") + 400
        at = self.text.find(needle, self._cursor.get(id(node), start), start + window)
        if at < 0:
            at = self.text.find(needle, start, start + window)
        if at < 0:
            return node.loc
        self._cursor[id(node)] = at + 1
        line = bisect.bisect_right(starts, at)
        return SourceLoc(self.path, line, at - starts[line - 1] + 1)

    def media(self, loc: SourceLoc, src: str, what: str) -> Media | None:
        """The image file ``src`` of a text, read and checked; None (problem reported) if refused."""
        from urllib.parse import unquote, urlsplit

        from .media import MAX_IMAGE_BYTES, MediaError, extension_matches, sniff

        def refuse(message: str, hint: str | None = None) -> None:
            self.error(loc, f"{what}: image '{src}' {message}", "markup.bad-image", hint)

        name = unquote(src)
        parts = urlsplit(src)
        if parts.scheme or parts.netloc or src.startswith("//"):
            refuse(
                "is a URL", "images must be files of the bank, beside the YAML file, so packages carry them"
            )
            return None
        if not name or name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
            refuse(
                "is not a relative path", "write the path relative to this YAML file, e.g. img/schedule.svg"
            )
            return None
        if ".." in name.replace("\\", "/").split("/"):
            refuse("leaves the bank's folder ('..')", "keep images in this YAML file's folder or below it")
            return None
        if self.base is None:
            refuse("cannot be read: this text is not read from a file")
            return None
        path = self.base / name
        try:
            resolved = path.resolve()
            if not resolved.is_relative_to(self.base.resolve()):
                refuse("leaves the bank's folder (through a link)")
                return None
            if not path.is_file():
                refuse("does not exist" if not path.exists() else "is not a file")
                return None
            if path.stat().st_size > MAX_IMAGE_BYTES:
                refuse(f"is {path.stat().st_size:,} bytes; the limit is {MAX_IMAGE_BYTES:,}", "scale it down")
                return None
            data = path.read_bytes()
        except OSError as e:
            refuse(f"cannot be read: {e.strerror}")
            return None
        import hashlib

        merge_media(self.media_read, {path.as_posix(): (hashlib.sha256(data).hexdigest(), str(resolved))})
        try:
            found = sniff(data)
        except MediaError as e:
            refuse(f"is refused: {e}")
            return None
        if not extension_matches(name, found.mime):
            refuse(
                f"is named like another type than it is: its bytes are {found.mime}",
                "rename the file to the extension its content has",
            )
            return None
        return Media(name, data, found.mime, found.width, found.height)

    def warn(self, node: Node | SourceLoc, message: str, rule: str, hint: str | None = None) -> None:
        loc = node.loc if isinstance(node, Node) else node
        if len(self.warnings) < MAX_ERRORS_PER_FILE:
            self.warnings.append(Diagnostic(loc, message, Severity.WARNING, rule, hint))


def _did_you_mean(word: str, options: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def _mapping(
    ctx: _Ctx, node: Node, what: str, allowed: tuple[str, ...], foreign: dict[str, str] | None = None
) -> dict[str, tuple[Node, Node]] | None:
    """Check a mapping's keys: known, not repeated. Returns key -> (key node, value node)."""
    if node.kind != "map":
        ctx.error(node, f"{what} must be a mapping of keys, not {node.describe()}", "source.wrong-type")
        return None
    out: dict[str, tuple[Node, Node]] = {}
    for key, value in node.value:
        if key.kind != "scalar":
            ctx.error(key, f"a key of {what} must be text, not {key.describe()}", "source.wrong-type")
            continue
        name = key.value
        if name in out:
            first = out[name][0].loc
            ctx.error(
                key,
                f"duplicate key '{name}' in {what} (first at line {first.line})",
                "source.duplicate-key",
                hint="remove one of them",
            )
            continue
        if name not in allowed:
            if foreign and name in foreign:
                ctx.error(
                    key,
                    f"key '{name}' does not belong to {what}: it is for {foreign[name]}",
                    "source.foreign-key",
                    hint=f"remove '{name}', or change the question's type"
                    if what.startswith("question")
                    else f"remove '{name}'",
                )
            else:
                ctx.error(
                    key,
                    f"unknown key '{name}' in {what}",
                    "source.unknown-key",
                    hint=_did_you_mean(name, allowed) or f"allowed keys: {', '.join(allowed)}",
                )
            continue
        out[name] = (key, value)
    return out


def _require(
    ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str, required: Iterable[str]
) -> bool:
    ok = True
    for name in required:
        if name not in keys:
            ctx.error(node, f"{what} has no '{name}'", "source.missing-key", hint=f"add '{name}: ...'")
            ok = False
    return ok


def _text(ctx: _Ctx, node: Node, what: str, limit: int = MAX_TEXT_CHARS) -> str | None:
    """A text value: any scalar, taken as written (so `yes` stays "yes"), stripped."""
    if node.kind != "scalar":
        ctx.error(node, f"{what} must be text, not {node.describe()}", "source.wrong-type")
        return None
    if node.tag == _NULL and not node.quoted:
        ctx.error(node, f"{what} is empty", "source.empty-text")
        return None
    text = node.value.strip()
    if not text:
        ctx.error(node, f"{what} is empty or only white space", "source.empty-text")
        return None
    if len(text) > limit:
        ctx.error(node, f"{what} is {len(text):,} characters long; the limit is {limit:,}", "source.too-long")
        return None
    bad = _XML_BAD.search(text)
    if bad:
        ctx.error(
            node,
            f"{what} contains U+{ord(bad.group()):04X}, which XML cannot carry",
            "source.bad-character",
            hint="remove the escape sequence that produces it",
        )
        return None
    return text


def _rich(ctx: _Ctx, node: Node, what: str) -> Text | None:
    """A text that may carry markup: plain text, or a Rich tree in a `markup: markdown` file."""
    text = _text(ctx, node, what)
    if text is None or ctx.markup == "plain":
        return text
    from .readers.markdown import read_markdown

    return read_markdown(ctx, node, text, what)


def _bool(ctx: _Ctx, node: Node, what: str) -> bool | None:
    if node.kind != "scalar" or node.tag != _BOOL:
        ctx.error(node, f"{what} must be true or false, not {node.describe()}", "source.wrong-type")
        return None
    return node.value.lower() in ("true", "yes", "on", "y")


_PLAIN_NUMBER = {
    _INT: re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z"),
    _FLOAT: re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z"),
}
"""The decimal forms of a YAML 1.1 int and float, which Python's int() and float() read as
PyYAML's constructors do; the other forms (octal 017, 0x1F, 1_000, 1:30, .inf) go to PyYAML."""


def _number(ctx: _Ctx, node: Node, what: str) -> float | None:
    if node.kind != "scalar" or node.tag not in (_INT, _FLOAT):
        ctx.error(node, f"{what} must be a number, not {node.describe()}", "source.wrong-type")
        return None
    try:
        if _PLAIN_NUMBER[node.tag].match(node.value):
            value = float(int(node.value)) if node.tag == _INT else float(node.value)
        else:
            value = _yaml_number(node)
    except OverflowError:  # an int past a float's range
        value = math.inf
    except ValueError:  # past Python's limit on an int's digits (4,300), or not a number at all
        if not node.value.replace("_", "").replace(":", "").lstrip("+-").isdigit():  # "0x_"
            shown = node.value if len(node.value) <= 40 else node.value[:37] + "..."
            ctx.error(node, f"{what} '{shown}' is not a number", "source.bad-number")
            return None
        value = math.inf
    if not math.isfinite(value):
        ctx.error(node, f"{what} must be a finite number", "source.bad-number")
        return None
    return value


def _yaml_number(node: Node) -> float:
    """A number as PyYAML constructs it (a fresh loader for each: the rare forms only)."""
    import yaml

    return float(yaml.SafeLoader.construct_object(yaml.SafeLoader(""), yaml.ScalarNode(node.tag, node.value)))


def _id(ctx: _Ctx, node: Node, what: str) -> str | None:
    if node.kind != "scalar" or node.tag == _NULL:
        ctx.error(node, f"{what} must be text, not {node.describe()}", "source.wrong-type")
        return None
    value = node.value
    if not ID_RE.match(value) or len(value) > MAX_ID_CHARS:
        bidi = [c for c in value if unicodedata.category(c) == "Cf"]
        why = " (it contains invisible formatting characters)" if bidi else ""
        ctx.error(
            node,
            f"{what} '{value.encode('unicode_escape').decode() if bidi else value}' is not a valid id{why}",
            "source.bad-id",
            hint=f"an id starts with an ASCII letter, then ASCII letters, digits, '-', '_' or '.'; "
            f"at most {MAX_ID_CHARS} characters",
        )
        return None
    return value


def _lang(ctx: _Ctx, node: Node, what: str) -> str | None:
    value = _text(ctx, node, what, 35)
    if value is None:
        return None
    if not tag_is_valid(value):
        ctx.error(
            node,
            f"{what} '{value}' is not a valid BCP 47 language tag",
            "source.bad-lang",
            hint="use a tag such as 'ur', 'en' or 'ur-PK'",
        )
        return None
    return value


def _list(ctx: _Ctx, node: Node, what: str) -> list[Node] | None:
    if node.kind != "seq":
        ctx.error(node, f"{what} must be a list, not {node.describe()}", "source.wrong-type")
        return None
    if len(node.value) > MAX_ITEMS:
        ctx.error(
            node, f"{what} has {len(node.value):,} entries; the limit is {MAX_ITEMS:,}", "source.too-many"
        )
        return None
    return node.value


def _texts(ctx: _Ctx, node: Node, what: str, unique: bool = True) -> tuple[str, ...] | None:
    items = _list(ctx, node, what)
    if items is None:
        return None
    out: list[str] = []
    seen: dict[str, Node] = {}
    for item in items:
        text = _text(ctx, item, f"an entry of {what}")
        if text is None:
            continue
        if unique and text in seen:
            ctx.error(item, f"duplicate entry '{text}' in {what}", "source.duplicate-text")
            continue
        seen[text] = item
        out.append(text)
    return tuple(out)


_FOREIGN_KEYS = {t: spec.QUESTIONS[t].foreign for t in QuestionType}
"""Per type, computed once: _question needs it for every question."""
_ALLOWED_KEYS = {t: spec.QUESTIONS[t].names for t in QuestionType}
"""Per type, the keys a question of it may have (a description has no points, feedback, hints)."""


def _question(ctx: _Ctx, node: Node, index: int) -> Question | None:
    what = f"question {index + 1}"
    if node.kind != "map":
        ctx.error(node, f"{what} must be a mapping of keys, not {node.describe()}", "source.wrong-type")
        return None
    # The type decides which keys are allowed, so read it first; the id names the question.
    qtype = QuestionType.SINGLE
    for key, value in node.value:
        if key.kind == "scalar" and key.value == "id" and value.kind == "scalar" and ID_RE.match(value.value):
            what = f"question '{value.value}'"
        if key.kind == "scalar" and key.value == "type":
            if value.kind == "scalar" and value.value in QuestionType._value2member_map_:
                qtype = QuestionType(value.value)
            else:
                shown = value.value if value.kind == "scalar" else value.describe()
                names = [t.value for t in QuestionType]
                ctx.error(
                    value,
                    f"unknown question type '{shown}'",
                    "source.bad-type",
                    hint=_did_you_mean(str(shown), names) or f"types: {', '.join(names)}",
                )
                return None
    keys = _mapping(ctx, node, what, _ALLOWED_KEYS[qtype], _FOREIGN_KEYS[qtype])
    if keys is None:
        return None
    errors_before = len(ctx.diags)
    _require(ctx, keys, node, what, tuple(k.name for k in spec.COMMON_QUESTION if k.required))
    qid = _id(ctx, keys["id"][1], "question id") if "id" in keys else None
    if qid:
        ctx.ids.append(("question", qid, keys["id"][1].loc))
    stem: Text | None = None
    if "stem" in keys:
        if qtype is QuestionType.CLOZE:
            stem = _cloze_stem(ctx, keys["stem"][1])
        else:
            stem = _rich(ctx, keys["stem"][1], "stem")
    fields: dict[str, Any] = {}
    if qtype is QuestionType.DESCRIPTION:
        fields["points"] = 0.0
    if "lang" in keys:
        fields["lang"] = _lang(ctx, keys["lang"][1], "lang")
    if "points" in keys:
        points = _number(ctx, keys["points"][1], "points")
        if points is not None and points <= 0:
            ctx.error(
                keys["points"][1], f"points must be greater than 0, not {points:g}", "source.bad-points"
            )
        elif points is not None:
            fields["points"] = points
    if "explanation" in keys:
        fields["explanation"] = _rich(ctx, keys["explanation"][1], "explanation")
    elif qid and qtype is not QuestionType.DESCRIPTION:
        ctx.warn(
            node,
            f"{what} has no explanation",
            "source.missing-explanation",
            hint="add 'explanation: ...': it is shown after answering in every format",
        )
    if "difficulty" in keys:
        fields["difficulty"] = _difficulty(ctx, keys["difficulty"][1])
    if "tags" in keys:
        tags = _texts(ctx, keys["tags"][1], "tags")
        if tags is not None:
            for tag in tags:
                if len(tag) > MAX_TAG_CHARS or any(c in tag for c in "[]\n\r"):
                    ctx.error(
                        keys["tags"][1],
                        f"tag '{tag[:40]}' must be one line without '[' or ']', "
                        f"at most {MAX_TAG_CHARS} characters",
                        "source.bad-tag",
                    )
            fields["tags"] = tags

    _header(ctx, keys, fields)

    body = _body(ctx, keys, node, what, qtype, qid)
    if qtype in (QuestionType.CALCULATED, QuestionType.CALCULATED_CHOICE):
        _check_texts(ctx, keys, stem, fields)
    if qtype is QuestionType.CLOZE and isinstance(stem, Rich):
        _check_gaps(ctx, keys, what, stem)
    if len(ctx.diags) > errors_before or qid is None or stem is None or body is None:
        return None
    if any(v is None for k, v in fields.items()):
        return None
    question = Question(id=qid, stem=stem, body=body, loc=node.loc, **fields)
    if question.name is not None:
        from .moodle import name_from_stem

        # A name equal to the one every writer derives from the stem says nothing: drop it, so
        # that a name read back from an LMS file compares equal (readers do the same).
        if question.name == name_from_stem(replace(question, name=None)):
            question = replace(question, name=None)
    return question


def _header(ctx: _Ctx, keys: dict[str, tuple[Node, Node]], fields: dict[str, Any]) -> None:
    """The header keys every type shares beyond id, stem and points: name, feedback, hints,
    penalty. Each read value goes into ``fields`` (None after an error)."""
    if "name" in keys:
        node = keys["name"][1]
        name = _text(ctx, node, "name", spec.NAME_CHARS)
        if name is not None and any(c in name for c in "\n\r"):
            ctx.error(
                node,
                "name must be one line",
                "source.bad-name",
                hint="an LMS lists a question's name on one line; put the rest in the stem",
            )
            name = None
        fields["name"] = name
    if "feedback" in keys:
        fields["feedback"] = _outcome_feedback(ctx, keys["feedback"][1])
    if "hints" in keys:
        fields["hints"] = _hints(ctx, keys["hints"][1])
    if "penalty" in keys:
        # Kept as written, 1/3 included: what no penalty means differs per type and LMS (Moodle:
        # 1 for true/false, 0 for an essay, 1/3 otherwise), and a writer that stores a set
        # penalty equal to its default says so in its metadata (writers/moodlexml.py _penalty).
        fields["penalty"] = _fraction(ctx, keys["penalty"][1], "penalty", "source.bad-penalty")


def _outcome_feedback(ctx: _Ctx, node: Node) -> OutcomeFeedback | None:
    what = "feedback"
    if node.kind != "map":
        ctx.error(
            node,
            f"feedback of a question must be a mapping of keys, not {node.describe()}",
            "source.wrong-type",
            hint="write 'feedback: {correct: ..., partial: ..., incorrect: ...}'; "
            "an explanation shown after every answer is 'explanation'",
        )
        return None
    keys = _mapping(ctx, node, what, spec.OUTCOME_FEEDBACK.names)
    if keys is None:
        return None
    errors_before = len(ctx.diags)
    fields: dict[str, Any] = {}
    for name in ("correct", "partial", "incorrect"):
        if name in keys:
            fields[name] = _rich(ctx, keys[name][1], f"{name} feedback")
    if "show_num_correct" in keys:
        fields["show_num_correct"] = _bool(ctx, keys["show_num_correct"][1], "show_num_correct")
    if len(ctx.diags) > errors_before:
        return None
    return OutcomeFeedback(**fields)


def _hints(ctx: _Ctx, node: Node) -> tuple[Hint, ...] | None:
    items = _list(ctx, node, "hints")
    if items is None:
        return None
    errors_before = len(ctx.diags)
    hints: list[Hint] = []
    for i, item in enumerate(items):
        what = f"hint {i + 1}"
        if item.kind == "scalar":
            text = _rich(ctx, item, what)
            if text is not None:
                hints.append(Hint(text, loc=item.loc))
            continue
        hkeys = _mapping(ctx, item, what, spec.HINT.names)
        if hkeys is None or not _require(ctx, hkeys, item, what, spec.HINT.required):
            continue
        text = _rich(ctx, hkeys["text"][1], what)
        flags = {
            name: _bool(ctx, hkeys[name][1], name)
            for name in ("show_num_correct", "clear_wrong")
            if name in hkeys
        }
        if text is not None and None not in flags.values():
            hints.append(Hint(text, loc=item.loc, **flags))  # type: ignore[arg-type]
    if len(ctx.diags) > errors_before:
        return None
    return tuple(hints)


def _fraction(ctx: _Ctx, node: Node, what: str, rule: str) -> float | None:
    """A number from 0 to 1 (a penalty), as the exact fraction a 7-decimal one stands for
    (0.3333333 is 1/3, as Moodle's fractions are: model.exact_credit)."""
    value = _number(ctx, node, what)
    if value is not None and not 0 <= value <= 1:
        ctx.error(node, f"{what} must be from 0 to 1, not {value:g}", rule, hint="0.1 is 10 %")
        return None
    return None if value is None else exact_credit(value)


def _check_texts(
    ctx: _Ctx, keys: dict[str, tuple[Node, Node]], stem: Text | None, fields: dict[str, Any]
) -> None:
    """The {name} placeholders of a parametric question's texts (choice feedback is checked
    with its choices): each names a variable or derived value. Checked even when the body has
    problems of its own, so that every problem of the question is reported at once."""
    if "variables" not in keys:
        return  # reported as missing; every placeholder would be unknown
    names = _declared_names(keys)
    if "stem" in keys:
        _check_placeholders(ctx, keys["stem"][1], stem, names)
    if "explanation" in keys:
        _check_placeholders(ctx, keys["explanation"][1], fields.get("explanation"), names)
    feedback = fields.get("feedback")
    if "feedback" in keys and feedback is not None and keys["feedback"][1].kind == "map":
        for k, v in keys["feedback"][1].value:
            if k.kind == "scalar" and k.value in ("correct", "partial", "incorrect"):
                _check_placeholders(ctx, v, getattr(feedback, k.value), names)
    hints = fields.get("hints")
    if "hints" in keys and hints and keys["hints"][1].kind == "seq":
        for item, hint in zip(keys["hints"][1].value, hints, strict=False):
            text_node = item
            if item.kind == "map":
                text_node = next((v for k, v in item.value if k.kind == "scalar" and k.value == "text"), item)
            _check_placeholders(ctx, text_node, hint.text, names)


def _body(
    ctx: _Ctx,
    keys: dict[str, tuple[Node, Node]],
    node: Node,
    what: str,
    qtype: QuestionType,
    qid: str | None = None,
) -> Body | None:
    """The type's own keys -> its body; None after an error."""
    match qtype:
        case QuestionType.SINGLE | QuestionType.MULTIPLE:
            return _choices(ctx, keys, node, what, qtype)
        case QuestionType.TRUE_FALSE:
            if not _require(ctx, keys, node, what, ("answer",)):
                return None
            truth = _bool(ctx, keys["answer"][1], "answer")
            feedback = {
                name: _rich(ctx, keys[name][1], name)
                for name in ("feedback_true", "feedback_false")
                if name in keys
            }
            if truth is None or None in feedback.values():
                return None
            return TrueFalse(truth, **feedback)
        case QuestionType.SHORT_ANSWER:
            return _short_answer(ctx, keys, node, what)
        case QuestionType.NUMERICAL:
            return _numerical(ctx, keys, node, what)
        case QuestionType.MATCHING:
            return _matching(ctx, keys, node, what)
        case QuestionType.ESSAY:
            return _essay(ctx, keys)
        case QuestionType.CLOZE:
            return _cloze(ctx, keys, node, what)
        case QuestionType.ORDERING:
            return _ordering(ctx, keys, node, what)
        case QuestionType.DESCRIPTION:
            return Description()
        case QuestionType.CALCULATED:
            return _calculated(ctx, keys, node, what, qid)
        case QuestionType.CALCULATED_CHOICE:
            return _calculated_choice(ctx, keys, node, what, qid)
        case _:
            assert_never(qtype)


# --------------------------------------------------------------------------- credits

_PERCENT_RE = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*%\s*\Z")


def _percent(value: float) -> str:
    """A credit as a percent, as Moodle prints grades: 5 decimals, trailing zeros dropped."""
    text = f"{value * 100:.5f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _credit(ctx: _Ctx, node: Node, what: str, negative: bool = True, grades: bool = True) -> float | None:
    """A credit: a number from -1 to 1 (0 to 1 unless ``negative``), or a percent text "50%",
    that Moodle's list of grades holds (GIFT and Moodle XML cannot carry any other). The exact
    fraction it stands for is returned: "33.33333%" is 1/3.

    ``grades=False`` (a cloze blank's credits): any fraction. Moodle's embedded answers take any
    percentage in a blank (qtype_multianswer's ANSWER_ALTERNATIVE_FRACTION_REGEX
    `=|%(-?[0-9]+(?:[.,][0-9]*)?)%`; its own fixture multianswer-all-types.xml has `%66%`); only
    a question's top-level fractions are checked against the grade list on import."""
    from fractions import Fraction

    from .moodle import allowed_grade, format_percent, nearest_grade

    shown = str(node.value) if node.kind == "scalar" else ""
    if node.kind == "scalar" and node.tag in (_INT, _FLOAT):
        number = _number(ctx, node, what)
        if number is None:
            return None
        value = Fraction(number).limit_denominator(10**9)
        if node.tag == _FLOAT and node.value.replace("_", "").lstrip("+-").replace(".", "", 1).isdigit():
            value = Fraction(node.value.replace("_", ""))  # exactly as written: 0.1 is 1/10
    elif node.kind == "scalar" and (m := _PERCENT_RE.match(node.value)):
        value = Fraction(m.group(1)) / 100
    else:
        ctx.error(
            node,
            f"{what} must be a number from -1 to 1 or a percent such as '50%', not "
            f"{repr(node.value) if node.kind == 'scalar' and node.tag == _STR else node.describe()}",
            "source.wrong-type",
        )
        return None
    low = -1 if negative else 0
    if value < 0 and not negative:
        ctx.error(
            node,
            f"{what} {shown} is negative; an answer of this type earns from 0 to 1",
            "source.negative-credit",
            hint="Moodle's grades for short answer and numerical answers run from 0 to 100 %; "
            "give an anticipated wrong answer credit 0 and feedback",
        )
        return None
    if not low <= value <= 1:
        ctx.error(
            node,
            f"{what} {shown} is out of range: a credit lies from {low} to 1 ({low * 100}% to 100%)",
            "source.bad-credit",
        )
        return None
    if not grades:
        return exact_credit(float(value))
    grade = allowed_grade(value)
    if grade is None:
        near = nearest_grade(value)
        ctx.error(
            node,
            f"{what} {shown} is not on Moodle's list of grades; the nearest is {format_percent(near)}%",
            "source.credit-not-a-grade",
            hint=f"write '{format_percent(near)}%': Moodle (and so GIFT and Moodle XML) takes 100, 90, "
            "83.33333, 80, 75, 70, 66.66667, 60, 50, 40, 33.33333, 30, 25, 20, 16.66667, 14.28571, "
            "12.5, 11.11111, 10 and 5 % and their negatives",
        )
        return None
    return exact_credit(float(grade))


def _choices(
    ctx: _Ctx,
    keys: dict[str, tuple[Node, Node]],
    node: Node,
    what: str,
    qtype: QuestionType,
    blank: bool = False,
) -> SingleChoice | MultipleChoice | None:
    """The choices of a single or multiple question, or (``blank``) of a choice blank, whose
    single form refuses what the question only warns about: a blank without a full-credit choice."""
    use_multiple = "use 'multiple: true' (check boxes)" if blank else "use type: multiple"
    if not _require(ctx, keys, node, what, ("choices",)):
        return None
    key_node, list_node = keys["choices"]
    items = _list(ctx, list_node, "choices")
    if items is None:
        return None
    # A choice says `correct: true|false` (the credits follow from the flags) or its `credit`.
    choices: list[Choice] = []
    flags: list[bool] = []
    credits: list[float | None] = []
    flag_nodes: list[Node] = []
    seen: dict[Text, Node] = {}
    ok = True
    for i, item in enumerate(items):
        ckeys = _mapping(ctx, item, f"choice {i + 1}", CHOICE_KEYS)
        if ckeys is None or not _require(ctx, ckeys, item, f"choice {i + 1}", spec.CHOICE.required):
            ok = False
            continue
        text = _rich(ctx, ckeys["text"][1], "choice text")
        correct = _bool(ctx, ckeys["correct"][1], "correct") if "correct" in ckeys else False
        credit = _credit(ctx, ckeys["credit"][1], "credit", grades=not blank) if "credit" in ckeys else None
        feedback = _rich(ctx, ckeys["feedback"][1], "feedback") if "feedback" in ckeys else None
        lang = _lang(ctx, ckeys["lang"][1], "lang") if "lang" in ckeys else None
        if "correct" in ckeys and "credit" in ckeys:
            ctx.error(
                ckeys["credit"][0],
                f"choice {i + 1} has both 'correct' and 'credit'",
                "source.correct-and-credit",
                hint=spec.CHOICE.exclusive_hints[("correct", "credit")],
            )
            ok = False
            continue
        if (
            text is None
            or correct is None
            or ("credit" in ckeys and credit is None)
            or ("feedback" in ckeys and feedback is None)
            or ("lang" in ckeys and lang is None)
        ):
            ok = False
            continue
        if text in seen:
            ctx.error(
                ckeys["text"][1],
                f"duplicate choice text '{_short(text)}' (also choice at line {seen[text].loc.line})",
                "source.duplicate-choice",
            )
            ok = False
            continue
        seen[text] = item
        value = credit if credit is not None else (1.0 if correct else 0.0)
        choices.append(Choice(text, value, feedback, lang, loc=item.loc))
        flags.append(correct)
        credits.append(credit)
        if "correct" in ckeys:
            flag_nodes.append(ckeys["correct"][0])
    if len(items) < 2:
        ctx.error(
            list_node, f"{what} has {len(items)} choice(s); at least 2 are needed", "source.too-few-choices"
        )
        ok = False
    if not ok:
        return None
    explicit = any(c is not None for c in credits)
    n = sum(flags)
    if qtype is QuestionType.MULTIPLE and explicit and flag_nodes:
        ctx.error(
            flag_nodes[0],
            f"{what} gives its choices credits, so no choice of it can use 'correct'",
            "source.mixed-credit",
            hint="give every choice that earns or costs something its 'credit' (a missing credit is 0), "
            "or mark the right ones 'correct: true' and give none a credit",
        )
        return None
    if not explicit:
        if qtype is QuestionType.SINGLE and n > 1:
            ctx.error(
                key_node,
                f"{what} marks {n} choices correct but its type is single",
                "source.several-correct",
                hint=f"{use_multiple}; or, when each of them alone is fully right, 'credit: 1' on each",
            )
            return None
        if n == 0:
            ctx.error(
                key_node,
                f"{what} has no correct choice",
                "source.no-correct-choice",
                hint="mark the right choice with 'correct: true'"
                if qtype is QuestionType.SINGLE
                else "mark at least one choice with 'correct: true'",
            )
            return None
        if qtype is QuestionType.MULTIPLE:
            default = default_multiple_credits(flags)
            return MultipleChoice(tuple(replace(c, credit=x) for c, x in zip(choices, default, strict=True)))
        return SingleChoice(tuple(choices))
    values = [c.credit for c in choices]
    if max(values) <= 0:
        ctx.error(
            key_node,
            f"{what} has no choice that earns credit",
            "source.no-correct-choice",
            hint="give the right choice 'credit: 1'"
            if qtype is QuestionType.SINGLE
            else "give the right choices positive credits that add up to 1",
        )
        return None
    if qtype is QuestionType.MULTIPLE:
        total = sum(v for v in values if v > 0)
        if not is_full(total):
            ctx.warn(
                key_node,
                f"{what}: the credits of its right choices add up to {_percent(total)}%, not 100%",
                "source.credit-sum",
                hint="picking every right choice then earns "
                + ("the full points before all are picked" if total > 1 else f"only {_percent(total)}%")
                + " (Moodle imports it with a warning); make the positive credits add up to 1",
            )
        return MultipleChoice(tuple(choices))
    if n > 1:
        ctx.error(
            key_node,
            f"{what} marks {n} choices correct but its type is single",
            "source.several-correct",
            hint=f"{use_multiple}; or, when each of them alone is fully right, 'credit: 1' on each",
        )
        return None
    full = sum(1 for v in values if is_full(v))
    if full == 0 and blank:
        ctx.error(
            key_node,
            f"{what}: no choice earns full credit (the best earns {_percent(max(values))}%)",
            "source.no-full-credit",
            hint="give the best choice 'credit: 1': no pick could fill the blank fully right",
        )
        return None
    if full == 0:
        ctx.warn(
            key_node,
            f"{what}: no choice earns full credit (the best earns {_percent(max(values))}%)",
            "source.no-full-credit",
            hint="give the best choice 'credit: 1'; as it is, no response earns the full points "
            "(Moodle imports it with a notice)",
        )
    elif full > 1:
        ctx.warn(
            key_node,
            f"{what} has {full} choices that each earn full credit",
            "source.several-full-credit",
            hint="each of them alone earns the full points; if a learner should pick them together, "
            "use type: multiple",
        )
    return SingleChoice(tuple(choices))


# --------------------------------------------------------------------------- short answer


def _short_answer(
    ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str, blank: bool = False
) -> ShortAnswer | None:
    answers: list[Answer] | None = None
    errors_before = len(ctx.diags)
    if _require(ctx, keys, node, what, ("answers",)):
        answers = _answers(ctx, keys["answers"][1], blank)
        if answers is not None and not answers and len(ctx.diags) == errors_before:
            ctx.error(
                keys["answers"][1],
                "answers is empty: give at least one accepted answer",
                "source.no-answer",
            )
    case_sensitive: bool | None = False
    if "case_sensitive" in keys:
        case_sensitive = _bool(ctx, keys["case_sensitive"][1], "case_sensitive")
    other = _rich(ctx, keys["other_feedback"][1], "other_feedback") if "other_feedback" in keys else None
    if (
        answers is None
        or case_sensitive is None
        or ("other_feedback" in keys and other is None)
        or len(ctx.diags) > errors_before
    ):
        return None
    if answers and not any(is_full(a.credit) for a in answers):
        ctx.error(
            keys["answers"][0],
            f"{what} has no answer that earns full credit",
            "source.no-full-credit",
            hint="give the preferred answer 'credit: 1' (or write it as a plain text): "
            + (
                "no response could fill the blank fully right"
                if blank
                else "Moodle refuses a short answer question without one"
            ),
        )
        return None
    if not answers:
        return None
    return ShortAnswer(tuple(answers), case_sensitive, other)


def _answers(ctx: _Ctx, node: Node, blank: bool = False) -> list[Answer] | None:
    items = _list(ctx, node, "answers")
    if items is None:
        return None
    out: list[Answer] = []
    seen: dict[str, Node] = {}
    for i, item in enumerate(items):
        what = f"answer {i + 1}"
        fields: dict[str, Any] = {}
        text_node = item
        if item.kind == "map":
            akeys = _mapping(ctx, item, what, spec.ANSWER.names)
            if akeys is None or not _require(ctx, akeys, item, what, spec.ANSWER.required):
                continue
            text_node = akeys["text"][1]
            if "credit" in akeys:
                fields["credit"] = _credit(
                    ctx, akeys["credit"][1], "credit", negative=False, grades=not blank
                )
            if "feedback" in akeys:
                fields["feedback"] = _rich(ctx, akeys["feedback"][1], "feedback")
            if "wildcard" in akeys:
                fields["wildcard"] = _bool(ctx, akeys["wildcard"][1], "wildcard")
        text = _text(ctx, text_node, "an entry of answers")
        if text is None or None in fields.values():
            continue
        if text in seen:
            ctx.error(text_node, f"duplicate entry '{text}' in answers", "source.duplicate-text")
            continue
        seen[text] = text_node
        if fields.get("wildcard") and "*" not in text:
            ctx.warn(
                item,
                f"{what} is a wildcard answer without a '*'",
                "source.wildcard-without-star",
                hint="a '*' matches any characters; without one, 'wildcard: true' changes nothing",
            )
            fields["wildcard"] = False
        if text == "*" and fields.get("wildcard") and fields.get("credit", 1.0) == 0:
            ctx.error(
                item,
                f"{what} matches every response and earns nothing: that is what 'other_feedback' says",
                "source.star-answer",
                hint="remove it and write its feedback as the question's 'other_feedback'",
            )
            continue
        out.append(Answer(text, loc=item.loc, **fields))
    return out


# --------------------------------------------------------------------------- cloze

_MARKER_RE = re.compile(r"\\\[\[|\[\[(\d{1,4})\]\]")
"""In a plain cloze stem: `\\[[` (a literal `[[`) or the marker `[[n]]` of blank n."""


def _cloze_stem(ctx: _Ctx, node: Node) -> Rich | None:
    """A cloze stem, always Rich: Markdown read with `[[n]]` markers in a markdown file; in a
    plain one, paragraphs at blank lines, a LineBreak at each single line break (spaces at a
    line's edges dropped, as Markdown drops them), a Gap at each `[[n]]` (`\\[[` is a literal
    `[[`): the tree the Markdown reader gives the same words, so writers see one shape, and
    writers/source.py's plain_cloze_stem writes it back as this text."""
    text = _text(ctx, node, "stem")
    if text is None:
        return None
    if ctx.markup == "markdown":
        from .readers.markdown import read_markdown

        return read_markdown(ctx, node, text, "stem", gaps=True)
    blocks: list[Para] = []
    for para in re.split(r"\n[ \t]*\n\s*", text):
        inlines: list[Inline] = []
        for n, line in enumerate(para.split("\n")):
            line = line.strip(" \t")
            if n:
                inlines.append(LineBreak())
            at = 0
            for m in _MARKER_RE.finditer(line):
                words = line[at : m.start()] + ("[[" if m.group(1) is None else "")
                if words:
                    if inlines and isinstance(inlines[-1], Str):
                        inlines[-1] = Str(inlines[-1].text + words)
                    else:
                        inlines.append(Str(words))
                if m.group(1) is not None:
                    inlines.append(Gap(int(m.group(1))))
                at = m.end()
            rest = line[at:]
            if rest:
                if inlines and isinstance(inlines[-1], Str):
                    inlines[-1] = Str(inlines[-1].text + rest)
                else:
                    inlines.append(Str(rest))
        if inlines:
            blocks.append(Para(tuple(inlines)))
    return Rich(tuple(blocks))


def _check_gaps(ctx: _Ctx, keys: dict[str, tuple[Node, Node]], what: str, stem: Rich) -> None:
    """Blank n's marker `[[n]]` stands in the stem exactly once, in order, for every blank."""
    stem_node = keys["stem"][1]
    blank_nodes = keys["blanks"][1].value if "blanks" in keys and keys["blanks"][1].kind == "seq" else None
    if blank_nodes is None:
        return
    count = len(blank_nodes)
    if not count:
        return  # "blanks is empty" says it
    seen: set[int] = set()
    order_reported = False
    for n in gaps_of(stem):
        marker = f"[[{n}]]"
        loc = ctx.locate(stem_node, marker)
        if n in seen:
            ctx.error(
                loc,
                f"stem: blank marker {marker} appears more than once",
                "source.cloze-repeated-marker",
                hint=f"blank {n} sits in one place; give another place a blank of its own",
            )
            continue
        if not 1 <= n <= count:
            ctx.error(
                loc,
                f"stem: blank marker {marker} has no blank: {what} has {count} blank(s)",
                "source.cloze-marker-without-blank",
                hint="blanks are numbered from 1"
                if n == 0
                else f"add blank {n} to 'blanks' (blank n is its n-th entry), or remove the marker",
            )
            continue
        expected = min(set(range(1, count + 1)) - seen)
        if n != expected and not order_reported:
            ctx.error(
                loc,
                f"stem: blank marker {marker} comes before [[{expected}]]",
                "source.cloze-marker-order",
                hint="number the markers 1, 2, 3... in reading order, and list the blanks in that order",
            )
            order_reported = True
        seen.add(n)
    for n, blank_node in enumerate(blank_nodes, 1):
        if n not in seen:
            ctx.error(
                blank_node,
                f"blank {n} of {what} has no marker [[{n}]] in the stem",
                "source.cloze-blank-without-marker",
                hint=f"write [[{n}]] in the stem where the learner fills it in, or remove the blank",
            )


_BLANK_TYPES = tuple(spec.BLANKS)


def _cloze(ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str) -> Cloze | None:
    if not _require(ctx, keys, node, what, ("blanks",)):
        return None
    list_node = keys["blanks"][1]
    items = _list(ctx, list_node, "blanks")
    if items is None:
        return None
    if not items:
        ctx.error(list_node, "blanks is empty: a cloze question has at least one blank", "source.no-blanks")
        return None
    errors_before = len(ctx.diags)
    blanks: list[Blank] = []
    for i, item in enumerate(items):
        b = _blank(ctx, item, f"blank {i + 1} of {what}")
        if b is not None:
            blanks.append(b)
    if len(ctx.diags) > errors_before or len(blanks) != len(items):
        return None
    return Cloze(tuple(blanks))


def _blank(ctx: _Ctx, node: Node, what: str) -> Blank | None:
    if node.kind != "map":
        ctx.error(
            node,
            f"{what} must be a mapping of keys, not {node.describe()}",
            "source.wrong-type",
            hint="write '- {type: short_answer, answers: [...]}' (or numerical, choice)",
        )
        return None
    kind: str | None = None
    for key, value in node.value:
        if key.kind == "scalar" and key.value == "type":
            if value.kind == "scalar" and value.value in _BLANK_TYPES:
                kind = value.value
            else:
                shown = value.value if value.kind == "scalar" else value.describe()
                ctx.error(
                    value,
                    f"unknown blank type '{shown}'",
                    "source.bad-blank-type",
                    hint=_did_you_mean(str(shown), _BLANK_TYPES) or f"types: {', '.join(_BLANK_TYPES)}",
                )
                return None
    if kind is None:
        ctx.error(
            node,
            f"{what} has no 'type'",
            "source.missing-key",
            hint="add 'type: short_answer', 'type: numerical' or 'type: choice'",
        )
        return None
    mapping = spec.BLANKS[kind]
    keys = _mapping(ctx, node, what, mapping.names, mapping.foreign)
    if keys is None:
        return None
    errors_before = len(ctx.diags)
    weight = _count(ctx, keys["weight"][1], "weight") if "weight" in keys else 1
    result: Blank | None = None
    if kind == "short_answer":
        sa = _short_answer(ctx, keys, node, what, blank=True)
        if sa is not None:
            result = TextBlank(sa.answers, sa.case_sensitive, sa.other_feedback, loc=node.loc)
    elif kind == "numerical":
        num = _numerical(ctx, keys, node, what, blank=True)
        if num is not None:
            result = NumberBlank(num.keys, num.other_feedback, loc=node.loc)
    else:
        result = _choice_blank(ctx, keys, node, what)
    if weight is None or result is None or len(ctx.diags) > errors_before:
        return None
    return replace(result, weight=weight)


def _choice_blank(ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str) -> ChoiceBlank | None:
    fields: dict[str, Any] = {}
    if "display" in keys:
        fields["display"] = _enum(ctx, keys["display"][1], "display", ChoiceDisplay)
    for name in ("multiple", "shuffle"):
        if name in keys:
            fields[name] = _bool(ctx, keys[name][1], name)
    if None in fields.values():
        return None
    multiple = bool(fields.get("multiple"))
    if multiple and fields.get("display", ChoiceDisplay.DROPDOWN) is ChoiceDisplay.DROPDOWN:
        ctx.error(
            keys["display"][1] if "display" in keys else keys["multiple"][1],
            f"{what} lets the learner pick several choices, which a drop-down list cannot show",
            "source.multiple-dropdown",
            hint="add 'display: vertical' or 'display: horizontal' (check boxes), or remove 'multiple'",
        )
        return None
    body = _choices(
        ctx, keys, node, what, QuestionType.MULTIPLE if multiple else QuestionType.SINGLE, blank=True
    )
    if body is None:
        return None
    return ChoiceBlank(body.choices, loc=node.loc, **fields)


# --------------------------------------------------------------------------- ordering


def _ordering(ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str) -> Ordering | None:
    errors_before = len(ctx.diags)
    items: list[Text] = []
    if _require(ctx, keys, node, what, ("items",)):
        list_node = keys["items"][1]
        nodes = _list(ctx, list_node, "items") or []
        seen: dict[Text, int] = {}
        for i, item in enumerate(nodes):
            text = _rich(ctx, item, f"item {i + 1}")
            if text is None:
                continue
            if text in seen:
                ctx.error(
                    item,
                    f"item {i + 1} '{_short(text)}' is the same as item {seen[text]}",
                    "source.duplicate-item",
                    hint="a learner could not tell the two apart, so no order of them is the right one",
                )
                continue
            seen[text] = i + 1
            items.append(text)
        if list_node.kind == "seq" and len(nodes) < 2:
            ctx.error(
                list_node,
                f"{what} has {len(nodes)} item(s); an ordering needs at least 2",
                "source.too-few-items",
                hint="add the other items, in their right order",
            )
    fields: dict[str, Any] = {}
    for name, kind in (("grading", OrderingGrading), ("layout", Layout), ("numbering", Numbering)):
        if name in keys:
            fields[name] = _enum(ctx, keys[name][1], name, kind)
    if "show_grading" in keys:
        fields["show_grading"] = _bool(ctx, keys["show_grading"][1], "show_grading")
    if "select" in keys:
        _select(ctx, keys["select"][1], len(items), fields)
    if len(ctx.diags) > errors_before or None in fields.values():
        return None
    return Ordering(tuple(items), **fields)


def _select(ctx: _Ctx, node: Node, count: int, fields: dict[str, Any]) -> None:
    """`select: {type: random | contiguous, count}` -> fields select and select_count."""
    what = "select"
    if node.kind != "map":
        ctx.error(
            node,
            f"select must be a mapping of keys, not {node.describe()}",
            "source.wrong-type",
            hint="write 'select: {type: random, count: 3}'",
        )
        fields["select"] = None
        return
    keys = _mapping(ctx, node, what, spec.ORDERING_SELECT.names)
    if keys is None or not _require(ctx, keys, node, what, spec.ORDERING_SELECT.required):
        fields["select"] = None
        return
    tnode = keys["type"][1]
    kinds = spec.ORDERING_SELECT.key("type").value.values
    if tnode.kind == "scalar" and tnode.value in kinds:
        fields["select"] = OrderingSelect(tnode.value)
    else:
        shown = tnode.value if tnode.kind == "scalar" else tnode.describe()
        ctx.error(
            tnode,
            f"select type must be one of {', '.join(kinds)}, not '{shown}'",
            "source.bad-select",
            hint=_did_you_mean(str(shown), kinds)
            or ("remove 'select' to show every item" if shown == "all" else None),
        )
        fields["select"] = None
    n = _count(ctx, keys["count"][1], "select count")
    if n is not None and count >= 2 and not 2 <= n < count:
        ctx.error(
            keys["count"][1],
            f"select count {n} is out of range: with {count} items an attempt shows from 2 to {count - 1}",
            "source.bad-select-count",
            hint="remove 'select' to show every item" if n >= count else "show at least 2 items",
        )
        n = None
    fields["select_count"] = n


# --------------------------------------------------------------------------- parametric questions
#
# A calculated or calculated_choice question declares variables, derived values and constraints
# (docs/formulas.md); variants.draw draws its variants with the question id's seed (or checks an
# explicit list) and reports every problem at its position inside the formula's scalar.

MAX_VARIANTS = 1000
"""The most variants one question may ask for (Moodle keeps 100, Canvas 200: their writers keep
the first ones and warn); a limit on the size of what a build writes."""
_TOLERANCE_PERCENT_RE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*%\s*\Z")


def _formula(ctx: _Ctx, node: Node, what: str) -> Formula | None:
    """A formula: a text or a bare number, kept as written; its loc is where its text starts,
    so variants.at(loc, offset) points at a character of it."""
    if node.kind != "scalar" or (node.tag in (_NULL, _BOOL) and not node.quoted):
        ctx.error(
            node,
            f"{what} must be a formula (text such as '16*N/G'), not {node.describe()}",
            "source.wrong-type",
        )
        return None
    text = node.value.strip()
    if not text:
        ctx.error(node, f"{what} is empty", "source.empty-text")
        return None
    limit = spec.FORMULA.max_len or MAX_TEXT_CHARS
    if len(text) > limit:
        ctx.error(node, f"{what} is {len(text):,} characters long; the limit is {limit:,}", "source.too-long")
        return None
    loc = ctx.locate(node, text.split("\n")[0]) if node.quoted else node.loc
    return Formula(text, loc)


def _decimals(ctx: _Ctx, node: Node, what: str) -> int | None:
    value = _int_of(node)
    top = int(spec.DECIMALS.maximum or 9)
    if value is not None and 0 <= value <= top:
        return value
    shown = node.value if node.kind == "scalar" else node.describe()
    ctx.error(node, f"{what} must be a whole number from 0 to {top}, not '{shown}'", "source.bad-decimals")
    return None


def _tolerance(ctx: _Ctx, node: Node, what: str) -> Tolerance | None:
    """A number >= 0 (absolute) or a percent text '1%' (relative: the fraction 0.01)."""
    if node.kind == "scalar" and node.tag in (_INT, _FLOAT):
        value = _number(ctx, node, what)
        if value is None:
            return None
        if value < 0:
            ctx.error(node, f"{what} must be 0 or more, not {value:g}", "source.bad-tolerance")
            return None
        return Tolerance(value, ToleranceKind.ABSOLUTE)
    if node.kind == "scalar" and (m := _TOLERANCE_PERCENT_RE.match(node.value)):
        from decimal import Decimal

        return Tolerance(float(Decimal(m.group(1)) / 100), ToleranceKind.RELATIVE)
    shown = repr(node.value) if node.kind == "scalar" else node.describe()
    ctx.error(
        node,
        f"{what} must be a number (absolute) or a percent such as '1%' (relative), not {shown}",
        "source.bad-tolerance",
    )
    return None


def _variables(ctx: _Ctx, node: Node) -> tuple[Variable, ...] | None:
    from .variants import digits

    if node.kind != "map" or not node.value:
        ctx.error(
            node,
            f"variables must be a mapping of names to ranges or lists, not {node.describe()}"
            if node.kind != "map"
            else "variables is empty",
            "source.wrong-type" if node.kind != "map" else "param.no-variables",
            hint="write 'variables: {N: {min: 1, max: 70}, G: [8, 16, 32]}'",
        )
        return None
    errors_before = len(ctx.diags)
    out: list[Variable] = []
    for key, value in node.value:
        if key.kind != "scalar":
            ctx.error(key, f"a variable's name must be text, not {key.describe()}", "source.wrong-type")
            continue
        name = str(key.value)
        what = f"variable {name}"
        if value.kind == "seq":
            numbers = [_number(ctx, item, f"a value of {what}") for item in value.value]
            if None not in numbers:
                out.append(ListVariable(name, tuple(x for x in numbers if x is not None), loc=key.loc))
            continue
        if value.kind != "map":
            ctx.error(
                value,
                f"{what} must be a range {{min: ..., max: ...}} or a list of values, not {value.describe()}",
                "source.wrong-type",
                hint=f"write '{name}: {{min: 1, max: 70}}' or '{name}: [8, 16, 32]'",
            )
            continue
        vkeys = _mapping(ctx, value, what, spec.VARIABLE.names)
        if vkeys is None:
            continue
        for a, b in spec.VARIABLE.exclusive:
            if a in vkeys and b in vkeys:
                ctx.error(
                    vkeys[b][0],
                    f"{what} has both '{a}' and '{b}'",
                    "param.range-and-values",
                    hint=spec.VARIABLE.exclusive_hints[(a, b)],
                )
        decimals = _decimals(ctx, vkeys["decimals"][1], "decimals") if "decimals" in vkeys else None
        if "values" in vkeys:
            items = _list(ctx, vkeys["values"][1], "values") or []
            numbers = [_number(ctx, item, f"a value of {what}") for item in items]
            if decimals is not None:
                for item, x in zip(items, numbers, strict=True):
                    if x is not None and digits(x) > decimals:
                        ctx.error(
                            item,
                            f"{what}: {x:g} has more digits than its {decimals} decimals",
                            "param.bad-range",
                            hint="raise decimals: a text shows every value with them, the formulas "
                            "use the value as written",
                        )
            if None not in numbers and len(ctx.diags) == errors_before:
                out.append(
                    ListVariable(name, tuple(x for x in numbers if x is not None), decimals, loc=key.loc)
                )
            continue
        if not _require(ctx, vkeys, value, what, ("min", "max")):
            continue
        low = _number(ctx, vkeys["min"][1], "min")
        high = _number(ctx, vkeys["max"][1], "max")
        step = _number(ctx, vkeys["step"][1], "step") if "step" in vkeys else None
        if (
            low is None
            or high is None
            or ("step" in vkeys and step is None)
            or ("decimals" in vkeys and decimals is None)
        ):
            continue
        if decimals is None:
            decimals = max(digits(low), digits(step)) if step is not None else digits(low)
        elif digits(low) > decimals:
            ctx.error(
                vkeys["min"][1],
                f"{what}: min {low:g} has more digits than its {decimals} decimals",
                "param.bad-range",
                hint="raise decimals, or round min",
            )
            continue
        if step is None:
            step = 1.0 if "decimals" not in vkeys else float(f"1e-{decimals}")
        out.append(RangeVariable(name, low, high, step, decimals, loc=key.loc))
    if len(ctx.diags) > errors_before:
        return None
    return tuple(out)


def _derived(ctx: _Ctx, node: Node) -> tuple[Derived, ...] | None:
    if node.kind != "map":
        ctx.error(
            node,
            f"derived must be a mapping of names to formulas, not {node.describe()}",
            "source.wrong-type",
            hint="write 'derived: {total: 16*N}'",
        )
        return None
    errors_before = len(ctx.diags)
    out: list[Derived] = []
    for key, value in node.value:
        if key.kind != "scalar":
            ctx.error(key, f"a derived value's name must be text, not {key.describe()}", "source.wrong-type")
            continue
        name = str(key.value)
        what = f"derived value {name}"
        decimals: int | None = None
        if value.kind == "map":
            dkeys = _mapping(ctx, value, what, spec.DERIVED.names)
            if dkeys is None or not _require(ctx, dkeys, value, what, spec.DERIVED.required):
                continue
            f = _formula(ctx, dkeys["formula"][1], f"the formula of {what}")
            if "decimals" in dkeys:
                decimals = _decimals(ctx, dkeys["decimals"][1], "decimals")
        else:
            f = _formula(ctx, value, what)
        if f is not None:
            out.append(Derived(name, f, decimals, loc=key.loc))
    if len(ctx.diags) > errors_before:
        return None
    return tuple(out)


def _constraints(ctx: _Ctx, node: Node) -> tuple[Constraint, ...] | None:
    items = [node] if node.kind == "scalar" else _list(ctx, node, "constraints")
    if items is None:
        return None
    errors_before = len(ctx.diags)
    out = [f for item in items if (f := _formula(ctx, item, "a constraint")) is not None]
    if len(ctx.diags) > errors_before:
        return None
    return tuple(Constraint(f) for f in out)


def _variants(ctx: _Ctx, node: Node, what: str, listed: bool = True) -> int | list[Given] | None:
    """`variants:` a count, or (``listed``: a question's) the variants themselves (a list of
    {variable: value})."""
    from .variants import Given

    if node.kind == "scalar" or not listed:
        count = _int_of(node)
        if count is None or not 1 <= count <= MAX_VARIANTS:
            shown = node.value if node.kind == "scalar" else node.describe()
            ctx.error(
                node,
                f"{what} must be a whole number from 1 to {MAX_VARIANTS}"
                + (", or a list of variants" if listed else "")
                + f", not '{shown}'",
                "source.bad-count",
                hint="Moodle keeps 100 variants, Canvas 200",
            )
            return None
        return count
    items = _list(ctx, node, what)
    if items is None:
        return None
    if not items or len(items) > MAX_VARIANTS:
        ctx.error(
            node,
            f"{what} lists {len(items)} variants; give 1 to {MAX_VARIANTS}",
            "source.bad-count",
        )
        return None
    errors_before = len(ctx.diags)
    out: list[Given] = []
    for i, item in enumerate(items):
        if item.kind != "map":
            ctx.error(
                item,
                f"variant {i + 1} must be a mapping of variables to values, not {item.describe()}",
                "source.wrong-type",
                hint="write '- {N: 12, G: 8}'",
            )
            continue
        values: dict[str, float] = {}
        locs: dict[str, SourceLoc] = {}
        for key, value in item.value:
            if key.kind != "scalar":
                ctx.error(key, f"a variable's name must be text, not {key.describe()}", "source.wrong-type")
                continue
            if key.value in values:
                ctx.error(key, f"variant {i + 1} gives {key.value} twice", "source.duplicate-key")
                continue
            x = _number(ctx, value, f"{key.value} in variant {i + 1}")
            if x is not None:
                values[key.value] = x
                locs[key.value] = value.loc
        out.append(Given(values, item.loc, locs))
    if len(ctx.diags) > errors_before:
        return None
    return out


def _parameters(
    ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str
) -> tuple[Parameters, int | list[Given] | None] | None:
    """The Parameters of a parametric question and its `variants` as written (None: the
    quiz's default). None after an error."""
    errors_before = len(ctx.diags)
    if not _require(ctx, keys, node, what, ("variables",)):
        return None
    variables = _variables(ctx, keys["variables"][1])
    derived = _derived(ctx, keys["derived"][1]) if "derived" in keys else ()
    constraints = _constraints(ctx, keys["constraints"][1]) if "constraints" in keys else ()
    variants = _variants(ctx, keys["variants"][1], "variants") if "variants" in keys else None
    if len(ctx.diags) > errors_before or variables is None or derived is None or constraints is None:
        return None
    count = variants if isinstance(variants, int) else None
    return Parameters(variables, derived, constraints, count), variants


def _declared_names(keys: dict[str, tuple[Node, Node]]) -> dict[str, str]:
    """Every name a text may write as {name} (the keys of `variables` and `derived` as written),
    with a stand-in value: the check needs no numbers, nor a body without problems."""
    names: dict[str, str] = {}
    for key in ("variables", "derived"):
        if key in keys and keys[key][1].kind == "map":
            names.update({str(k.value): "0" for k, _ in keys[key][1].value if k.kind == "scalar"})
    return names


def _check_placeholders(ctx: _Ctx, node: Node, text: Text | None, names: dict[str, str]) -> None:
    """Every {name} of a text names a variable or derived value; every other brace is doubled."""
    from .variants import text_problems

    for token, exc in text_problems(text, names):
        ctx.error(ctx.locate(node, token), exc.message, "param.placeholder", exc.hint)


def _draw_variants(
    ctx: _Ctx,
    qid: str,
    node: Node,
    params: Parameters,
    written: int | list[Given] | None,
    **kwargs: Any,
) -> tuple[Variant, ...] | None:
    """The variants: drawn (the question's count, else the quiz's, else the default) or the
    explicit list, checked; every problem reported (variants.draw's positions), None after one."""
    from .errors import SourceError
    from .variants import draw

    given = written if isinstance(written, list) else None
    count = written if isinstance(written, int) else ctx.variants
    try:
        drawn = draw(qid, params, count=count, loc=node.loc, given=given, **kwargs)
    except SourceError as exc:
        for d in exc.diagnostics:
            ctx.error(d.loc, d.message, d.rule or "param", d.hint)
        return None
    for w in drawn.warnings:
        ctx.warn(w.loc, w.message, w.rule or "param", w.hint)
    return drawn.variants


def _calculated(
    ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str, qid: str | None
) -> Calculated | None:
    errors_before = len(ctx.diags)
    read = _parameters(ctx, keys, node, what)
    answer: Formula | None = None
    tolerance = Tolerance()
    decimals = 2
    if _require(ctx, keys, node, what, ("answer",)):
        anode = keys["answer"][1]
        if anode.kind == "map":
            akeys = _mapping(ctx, anode, "the answer", spec.CALCULATED_ANSWER.names)
            if akeys is not None and _require(
                ctx, akeys, anode, "the answer", spec.CALCULATED_ANSWER.required
            ):
                answer = _formula(ctx, akeys["formula"][1], "the answer's formula")
                if "tolerance" in akeys:
                    tolerance = _tolerance(ctx, akeys["tolerance"][1], "tolerance") or tolerance
                if "decimals" in akeys:
                    decimals = _decimals(ctx, akeys["decimals"][1], "decimals") or 0
        else:
            answer = _formula(ctx, anode, "the answer")
    units = _units(ctx, keys["units"][1]) if "units" in keys else ()
    if len(ctx.diags) > errors_before or read is None or answer is None or units is None or qid is None:
        return None
    params, written = read
    variants = _draw_variants(
        ctx, qid, node, params, written, answer=answer, tolerance=tolerance, decimals=decimals
    )
    if variants is None:
        return None
    # The key shown with its decimals (Moodle's correctanswerlength, what the HTML quiz shows
    # after submitting) must itself be graded right, as Moodle's dataset page checks it
    # (qtype_calculated comment_on_datasetitems: "ERROR ... outside limits of true value").
    from . import formula as fm
    from .variants import accepts

    for v in variants:
        assert v.answer is not None
        shown = fm.round_value(v.answer, decimals)
        if not accepts(v.answer, tolerance, shown):
            need = _finest(v.answer, tolerance)
            ctx.error(
                answer.loc or node.loc,
                f"the answer shown with {decimals} decimals ({fm.format_value(v.answer, decimals)}) is "
                f"outside the tolerance of the key {fm.format_value(v.answer)} in variant {v.number} "
                f"({', '.join(f'{n}={fm.format_value(x)}' for n, x in v.values)})",
                "param.tolerance-finer-than-decimals",
                hint=f"show more decimals ({need} or more), or widen the tolerance",
            )
            return None
    return Calculated(params, answer, tolerance, decimals, units, variants)


def _finest(key: float, tolerance: Tolerance) -> int:
    """The fewest decimals with which `key`, rounded, is accepted under `tolerance`."""
    from . import formula as fm
    from .variants import accepts

    for d in range(0, 10):
        if accepts(key, tolerance, fm.round_value(key, d)):
            return d
    return 10


def _calculated_choice(
    ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str, qid: str | None
) -> CalculatedChoice | None:
    errors_before = len(ctx.diags)
    read = _parameters(ctx, keys, node, what)
    multiple = _bool(ctx, keys["multiple"][1], "multiple") if "multiple" in keys else False
    decimals = _decimals(ctx, keys["decimals"][1], "decimals") if "decimals" in keys else 2
    tolerance = _tolerance(ctx, keys["tolerance"][1], "tolerance") if "tolerance" in keys else Tolerance()
    choices: list[CalcChoice] = []
    flags: list[bool] = []
    explicit = False
    flag_node: Node | None = None
    if _require(ctx, keys, node, what, ("choices",)):
        items = _list(ctx, keys["choices"][1], "choices") or []
        if keys["choices"][1].kind == "seq" and len(items) < 2:
            ctx.error(
                keys["choices"][1],
                f"{what} has {len(items)} choice(s); at least 2 are needed",
                "source.too-few-choices",
            )
        names = _declared_names(keys)
        for i, item in enumerate(items):
            cwhat = f"choice {i + 1}"
            ckeys = _mapping(ctx, item, cwhat, spec.CALCULATED_CHOICE.names)
            if ckeys is None or not _require(ctx, ckeys, item, cwhat, spec.CALCULATED_CHOICE.required):
                continue
            f = _formula(ctx, ckeys["formula"][1], f"the formula of {cwhat}")
            if "correct" in ckeys and "credit" in ckeys:
                ctx.error(
                    ckeys["credit"][0],
                    f"{cwhat} has both 'correct' and 'credit'",
                    "source.correct-and-credit",
                    hint=spec.CHOICE.exclusive_hints[("correct", "credit")],
                )
                continue
            correct = _bool(ctx, ckeys["correct"][1], "correct") if "correct" in ckeys else False
            credit = _credit(ctx, ckeys["credit"][1], "credit") if "credit" in ckeys else None
            feedback = _rich(ctx, ckeys["feedback"][1], "feedback") if "feedback" in ckeys else None
            if "feedback" in ckeys and "variables" in keys:
                _check_placeholders(ctx, ckeys["feedback"][1], feedback, names)
            if f is None or correct is None or ("credit" in ckeys and credit is None):
                continue
            if "correct" in ckeys and flag_node is None:
                flag_node = ckeys["correct"][0]
            explicit = explicit or credit is not None
            value = credit if credit is not None else (1.0 if correct else 0.0)
            choices.append(CalcChoice(f, value, feedback, loc=item.loc))
            flags.append(bool(correct))
    if (
        len(ctx.diags) > errors_before
        or read is None
        or multiple is None
        or decimals is None
        or tolerance is None
        or qid is None
    ):
        return None
    key_node = keys["choices"][0]
    qtype = QuestionType.MULTIPLE if multiple else QuestionType.SINGLE
    if explicit and flag_node is not None and multiple:
        ctx.error(
            flag_node,
            f"{what} gives its choices credits, so no choice of it can use 'correct'",
            "source.mixed-credit",
            hint="give every choice that earns or costs something its 'credit', or mark the right ones "
            "'correct: true' and give none a credit",
        )
        return None
    if not explicit and multiple:
        choices = [
            replace(c, credit=x) for c, x in zip(choices, default_multiple_credits(flags), strict=True)
        ]
    full = [c for c in choices if c.full]
    if not any(c.earns for c in choices):
        ctx.error(
            key_node,
            f"{what} has no correct choice",
            "source.no-correct-choice",
            hint="mark the right choice with 'correct: true'",
        )
        return None
    if qtype is QuestionType.SINGLE and not explicit and len(full) > 1:
        ctx.error(
            key_node,
            f"{what} marks {len(full)} choices correct but picks one",
            "source.several-correct",
            hint="use 'multiple: true' (check boxes); or, when each of them alone is fully right, "
            "'credit: 1' on each",
        )
        return None
    if qtype is QuestionType.SINGLE and not full:
        best = max(c.credit for c in choices)
        ctx.warn(
            key_node,
            f"{what}: no choice earns full credit (the best earns {_percent(best)}%)",
            "source.no-full-credit",
            hint="give the best choice 'credit: 1'; as it is, no response earns the full points "
            "(Moodle imports it with a notice)",
        )
    elif qtype is QuestionType.SINGLE and len(full) > 1:
        ctx.warn(
            key_node,
            f"{what} has {len(full)} choices that each earn full credit",
            "source.several-full-credit",
            hint="each of them alone earns the full points; if a learner should pick them together, "
            "use 'multiple: true'",
        )
    if multiple and not is_full(sum(c.credit for c in choices if c.credit > 0)):
        ctx.warn(
            key_node,
            f"{what}: the credits of its right choices add up to "
            f"{_percent(sum(c.credit for c in choices if c.credit > 0))}%, not 100%",
            "source.credit-sum",
            hint="make the positive credits add up to 1",
        )
    params, written = read
    variants = _draw_variants(
        ctx,
        qid,
        node,
        params,
        written,
        choices=[c.formula for c in choices],
        correct=[i for i, c in enumerate(choices) if c.earns],
        tolerance=tolerance,
        decimals=decimals,
    )
    if variants is None:
        return None
    # Two choices that show the same number in some variant (distractors among themselves: draw
    # compares each with the keys) would be two equal options on the page.
    from . import formula as fm

    for v in variants:
        shown: dict[str, int] = {}
        for i, x in enumerate(v.choices):
            text = fm.format_value(x, decimals)
            if text in shown:
                j = shown[text]
                ctx.error(
                    choices[i].formula.loc or node.loc,
                    f"choices {j + 1} and {i + 1} both show {text} in variant {v.number} "
                    f"({', '.join(f'{n}={fm.format_value(y)}' for n, y in v.values)})",
                    "param.equal-choices",
                    hint="add a constraint that keeps them apart, or show more decimals",
                )
                return None
            shown[text] = i
    return CalculatedChoice(params, tuple(choices), multiple, decimals, tolerance, variants)


# --------------------------------------------------------------------------- numerical

_UNIT_KEYS = ("unit_grading", "unit_penalty", "unit_input", "units_left")


def _numerical(
    ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str, blank: bool = False
) -> Numerical | None:
    errors_before = len(ctx.diags)
    numeric_keys: list[NumericKey] = []
    if "answers" in keys:
        for other in ("answer", "tolerance", "range"):
            if other in keys:
                ctx.error(
                    keys[other][0],
                    f"{what} has both 'answers' and '{other}'",
                    "source.answer-and-answers",
                    hint=spec.QUESTION_RULES[QuestionType.NUMERICAL][2][("answers", other)],
                )
        items = _list(ctx, keys["answers"][1], "answers") or []
        if keys["answers"][1].kind == "seq" and not items:
            ctx.error(keys["answers"][1], "answers is empty: give at least one key", "source.no-answer")
        for i, item in enumerate(items):
            kwhat = f"key {i + 1} of {what}"
            kkeys = _mapping(ctx, item, kwhat, spec.NUMERIC_KEY.names)
            if kkeys is None:
                continue
            key = _numeric(ctx, kkeys, item, kwhat)
            fields: dict[str, Any] = {}
            if "credit" in kkeys:
                fields["credit"] = _credit(
                    ctx, kkeys["credit"][1], "credit", negative=False, grades=not blank
                )
            if "feedback" in kkeys:
                fields["feedback"] = _rich(ctx, kkeys["feedback"][1], "feedback")
            if key is not None and None not in fields.values():
                numeric_keys.append(replace(key, loc=item.loc, **fields))
    else:
        key = _numeric(ctx, keys, node, what)
        if key is not None:
            numeric_keys.append(replace(key, loc=node.loc))
    fields = {}
    if "other_feedback" in keys:
        fields["other_feedback"] = _rich(ctx, keys["other_feedback"][1], "other_feedback")
    if "units" in keys:
        fields["units"] = _units(ctx, keys["units"][1])
    else:
        for name in _UNIT_KEYS:
            if name in keys:
                ctx.error(
                    keys[name][0],
                    f"'{name}' has no meaning without 'units'",
                    "source.no-units",
                    hint="list the units an answer may carry: "
                    "'units: [{unit: GB}, {unit: MB, multiplier: 1000}]'",
                )
    if "unit_grading" in keys:
        fields["unit_grading"] = _enum(ctx, keys["unit_grading"][1], "unit_grading", UnitGrading)
    if "unit_penalty" in keys:
        fields["unit_penalty"] = _fraction(ctx, keys["unit_penalty"][1], "unit_penalty", "source.bad-penalty")
    if "unit_input" in keys:
        fields["unit_input"] = _enum(ctx, keys["unit_input"][1], "unit_input", UnitInput)
    if "units_left" in keys:
        fields["units_left"] = _bool(ctx, keys["units_left"][1], "units_left")
    if len(ctx.diags) > errors_before or not numeric_keys or None in fields.values():
        return None
    best = max(k.credit for k in numeric_keys)
    if not is_full(best) and blank:
        ctx.error(
            keys["answers"][0] if "answers" in keys else node,
            f"{what}: no key earns full credit (the best earns {_percent(best)}%)",
            "source.no-full-credit",
            hint="give the right key 'credit: 1': no response could fill the blank fully right",
        )
        return None
    if not is_full(best):
        ctx.warn(
            keys["answers"][0] if "answers" in keys else node,
            f"{what}: no key earns full credit (the best earns {_percent(best)}%)",
            "source.no-full-credit",
            hint="give the right key 'credit: 1'; as it is, no response earns the full points "
            "(Moodle imports it)",
        )
    return Numerical(keys=tuple(numeric_keys), **fields)


def _units(ctx: _Ctx, node: Node) -> tuple[Unit, ...] | None:
    items = _list(ctx, node, "units")
    if items is None:
        return None
    errors_before = len(ctx.diags)
    if not items:
        ctx.error(node, "units is empty", "source.no-units", hint="remove 'units', or list at least one unit")
    units: list[Unit] = []
    seen: dict[str, Node] = {}
    for i, item in enumerate(items):
        what = f"unit {i + 1}"
        ukeys = _mapping(ctx, item, what, spec.UNIT.names)
        if ukeys is None or not _require(ctx, ukeys, item, what, spec.UNIT.required):
            continue
        name = _text(ctx, ukeys["unit"][1], "unit", 100)
        multiplier: float | None = 1.0
        if "multiplier" in ukeys:
            multiplier = _number(ctx, ukeys["multiplier"][1], "multiplier")
            if multiplier is not None and multiplier <= 0:
                ctx.error(
                    ukeys["multiplier"][1],
                    f"multiplier must be greater than 0, not {multiplier:g}",
                    "source.bad-unit",
                )
                multiplier = None
        if name is None or multiplier is None:
            continue
        if "\n" in name:
            ctx.error(ukeys["unit"][1], "a unit must be one line", "source.bad-unit")
            continue
        if name in seen:
            ctx.error(
                ukeys["unit"][1],
                f"duplicate unit '{name}' (also at line {seen[name].line})",
                "source.duplicate-unit",
            )
            continue
        seen[name] = ukeys["unit"][1]
        if i == 0 and multiplier != 1:
            ctx.error(
                ukeys["multiplier"][1],
                f"the first unit is the base unit: its multiplier is 1, not {multiplier:g}",
                "source.bad-unit",
                hint="list the unit the keys are written in first (multiplier 1), then the others "
                "with the factor that converts a key into them (GB first, then MB with multiplier 1000)",
            )
            continue
        units.append(Unit(name, multiplier))
    if len(ctx.diags) > errors_before:
        return None
    return tuple(units)


def _enum(ctx: _Ctx, node: Node, what: str, kind: type[enum.Enum]) -> Any:
    names = [e.value for e in kind]  # type: ignore[attr-defined]
    if node.kind == "scalar" and node.value in names:
        return kind(node.value)
    shown = node.value if node.kind == "scalar" else node.describe()
    ctx.error(
        node,
        f"{what} must be one of {', '.join(names)}, not '{shown}'",
        f"source.bad-{what.replace('_', '-')}",
        hint=_did_you_mean(str(shown), names),
    )
    return None


def _int_of(node: Node) -> int | None:
    """The whole number a YAML int scalar stands for (YAML 1.1's own reading, as PyYAML's
    constructor does it: 0512 is octal, 0x1F hex, 1_000 and 1:30 too), or None for any other node."""
    if node.kind != "scalar" or node.tag != _INT:
        return None
    import yaml

    value = yaml.SafeLoader.construct_object(yaml.SafeLoader(""), yaml.ScalarNode(node.tag, node.value))
    return value if isinstance(value, int) else None


def _count(ctx: _Ctx, node: Node, what: str) -> int | None:
    """A whole number above 0."""
    value = _int_of(node)
    if value is not None and value > 0:
        return value
    shown = node.value if node.kind == "scalar" else node.describe()
    ctx.error(node, f"{what} must be a whole number above 0, not '{shown}'", "source.bad-count")
    return None


def _essay(ctx: _Ctx, keys: dict[str, tuple[Node, Node]]) -> Essay | None:
    errors_before = len(ctx.diags)
    fields: dict[str, Any] = {}
    if "response_format" in keys:
        fields["response_format"] = _enum(ctx, keys["response_format"][1], "response_format", ResponseFormat)
    if "response_required" in keys:
        fields["required"] = _bool(ctx, keys["response_required"][1], "response_required")
    for key, attr in (("response_lines", "lines"), ("min_words", "min_words"), ("max_words", "max_words")):
        if key in keys:
            fields[attr] = _count(ctx, keys[key][1], key)
    for key in ("template", "grader_info"):
        if key in keys:
            fields[key] = _rich(ctx, keys[key][1], key)
    low, high = fields.get("min_words"), fields.get("max_words")
    if low is not None and high is not None and low > high:
        ctx.error(
            keys["min_words"][1],
            f"min_words ({low}) is above max_words ({high})",
            "source.bad-word-limits",
            hint="no answer could have both; swap them",
        )
    _attachments(ctx, keys, fields)
    if len(ctx.diags) > errors_before:
        return None
    return Essay(**fields)


def _whole(ctx: _Ctx, node: Node, what: str, lowest: int, words: str) -> int | None:
    """A whole number of at least `lowest`."""
    value = _int_of(node)
    if value is not None and value >= lowest:
        return value
    shown = node.value if node.kind == "scalar" else node.describe()
    ctx.error(node, f"{what} must be {words}, not '{shown}'", "source.bad-attachments")
    return None


def _attachments(ctx: _Ctx, keys: dict[str, tuple[Node, Node]], fields: dict[str, Any]) -> None:
    """The files an essay takes, checked as Moodle's edit_essay_form::validation() does."""
    errors_before = len(ctx.diags)
    if "attachments" in keys:
        fields["attachments"] = _whole(
            ctx, keys["attachments"][1], "attachments", -1, "a whole number of files, or -1 for any number"
        )
    for key, words in (
        ("attachments_required", "a whole number of files, 0 or more"),
        ("max_bytes", "a whole number of bytes, 0 or more (0: the course's limit)"),
    ):
        if key in keys:
            fields[key] = _whole(ctx, keys[key][1], key, 0, words)
    if "file_types" in keys:
        types = _texts(ctx, keys["file_types"][1], "file_types")
        for item in keys["file_types"][1].value if types is not None else ():
            kind = item.value.strip() if item.kind == "scalar" else ""
            if kind and not FILE_TYPE_RE.fullmatch(kind):
                ctx.error(
                    item,
                    f"file type '{kind}' is neither an extension, a group of types nor a MIME type",
                    "source.bad-file-type",
                    hint="write an extension with its dot ('.pdf'), a group ('document', 'image') "
                    "or a MIME type ('application/pdf')",
                )
        fields["file_types"] = types
    if len(ctx.diags) > errors_before:
        return
    allowed, required = fields.get("attachments", 0), fields.get("attachments_required", 0)
    if allowed >= 0 and required > allowed:
        ctx.error(
            keys["attachments_required"][1],
            f"attachments_required ({required}) is above attachments ({allowed})",
            "source.bad-attachments",
            hint="no learner could attach that many files; require at most as many as are allowed",
        )
    if fields.get("response_format") is ResponseFormat.NONE:
        # edit_essay_form::validation(): no text and no files would leave nothing to grade.
        if not allowed:
            ctx.error(
                keys["response_format"][1],
                "response_format none asks for no text, and the essay takes no attachments",
                "source.bad-attachments",
                hint="allow files with 'attachments: 1' and require them with 'attachments_required: 1'",
            )
        elif not required:
            ctx.error(
                keys["response_format"][1],
                "response_format none asks for no text, and the essay requires no attachments",
                "source.bad-attachments",
                hint="require a file with 'attachments_required: 1', or the learner can hand in nothing",
            )
    if not allowed:
        for key in ("file_types", "max_bytes"):
            if fields.get(key):
                ctx.error(
                    keys[key][1],
                    f"{key} is set, but the essay takes no attachments",
                    "source.bad-attachments",
                    hint="allow files with 'attachments: 1' (or more, -1 for any number), or remove " + key,
                )


def _numeric(ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str) -> NumericKey | None:
    answer = _number(ctx, keys["answer"][1], "answer") if "answer" in keys else None
    if "answer" not in keys and "range" not in keys:
        ctx.error(
            node,
            f"{what} has neither 'answer' nor 'range'",
            "source.missing-key",
            hint="add 'answer: 16' (with an optional 'tolerance: 0.5') or 'range: [15.5, 16.5]'",
        )
        return None
    if "tolerance" in keys and "range" in keys:
        ctx.error(
            keys["range"][0],
            f"{what} has both 'tolerance' and 'range'",
            "source.tolerance-and-range",
            hint="keep one of them",
        )
        return None
    if "answer" in keys and answer is None:
        return None
    if "range" in keys:
        rnode = keys["range"][1]
        items = _list(ctx, rnode, "range")
        if items is None:
            return None
        if len(items) != 2:
            ctx.error(rnode, "range must be a list of two numbers, [low, high]", "source.bad-range")
            return None
        low, high = (_number(ctx, n, "a bound of range") for n in items)
        if low is None or high is None:
            return None
        if low > high:
            ctx.error(
                rnode,
                f"range [{low:g}, {high:g}] is empty: low is above high",
                "source.bad-range",
                hint=f"write [{high:g}, {low:g}]",
            )
            return None
        if answer is not None and not low <= answer <= high:
            ctx.error(
                keys["answer"][1],
                f"answer {answer:g} lies outside range [{low:g}, {high:g}]",
                "source.bad-range",
            )
            return None
        return NumericKey(answer=answer, low=low, high=high)
    tolerance = 0.0
    if "tolerance" in keys:
        t = _number(ctx, keys["tolerance"][1], "tolerance")
        if t is None:
            return None
        if t < 0:
            ctx.error(keys["tolerance"][1], "tolerance must not be negative", "source.bad-tolerance")
            return None
        tolerance = t
    return NumericKey(answer=answer, tolerance=tolerance)


def _matching(ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str) -> Matching | None:
    if not _require(ctx, keys, node, what, ("pairs",)):
        return None
    list_node = keys["pairs"][1]
    items = _list(ctx, list_node, "pairs")
    if items is None:
        return None
    pairs: list[Pair] = []
    lefts: dict[Text, Node] = {}
    ok = True
    for i, item in enumerate(items):
        pkeys = _mapping(ctx, item, f"pair {i + 1}", PAIR_KEYS)
        if pkeys is None or not _require(ctx, pkeys, item, f"pair {i + 1}", spec.PAIR.required):
            ok = False
            continue
        left = _rich(ctx, pkeys["left"][1], "left")
        right = _text(ctx, pkeys["right"][1], "right")
        if left is None or right is None:
            ok = False
            continue
        if left in lefts:
            ctx.error(pkeys["left"][1], f"duplicate left item '{_short(left)}'", "source.duplicate-choice")
            ok = False
            continue
        lefts[left] = item
        pairs.append(Pair(left, right, loc=item.loc))
    if len(items) < 2:
        ctx.error(
            list_node, f"{what} has {len(items)} pair(s); at least 2 are needed", "source.too-few-pairs"
        )
        ok = False
    distractors: tuple[str, ...] | None = ()
    if "distractors" in keys:
        distractors = _texts(ctx, keys["distractors"][1], "distractors")
        rights = {p.right for p in pairs}
        for d in distractors or ():
            if d in rights:
                ctx.error(
                    keys["distractors"][1],
                    f"distractor '{_short(d)}' is also a right answer",
                    "source.duplicate-choice",
                )
                ok = False
    if ok and distractors is not None:
        return Matching(tuple(pairs), distractors)
    return None


def _difficulty(ctx: _Ctx, node: Node) -> Difficulty | None:
    names = [d.value for d in Difficulty]
    if node.kind == "scalar" and node.value in names:
        return Difficulty(node.value)
    shown = node.value if node.kind == "scalar" else node.describe()
    ctx.error(
        node,
        f"difficulty must be one of {', '.join(names)}, not '{shown}'",
        "source.bad-difficulty",
        hint=_did_you_mean(str(shown), names),
    )
    return None


def _markup(ctx: _Ctx, keys: dict[str, tuple[Node, Node]]) -> None:
    """Read the file's `markup` first: it decides how every other text is read."""
    if "markup" not in keys:
        return
    node = keys["markup"][1]
    if node.kind == "scalar" and node.value in MARKUPS:
        ctx.markup = node.value
        return
    shown = node.value if node.kind == "scalar" else node.describe()
    ctx.error(
        node,
        f"markup must be one of {', '.join(MARKUPS)}, not '{shown}'",
        "source.bad-markup",
        hint=_did_you_mean(str(shown), MARKUPS),
    )


def _short(text: Text, n: int = 40) -> str:
    text = plain_text(text).replace("\n", " ")
    return text if len(text) <= n else text[: n - 1] + "…"


def _quiz(ctx: _Ctx, root: Node) -> Quiz | None:
    keys = _mapping(ctx, root, "the quiz", QUIZ_KEYS, ASSESSMENT_ONLY_KEYS)
    if keys is None:
        return None
    errors_before = len(ctx.diags)
    _markup(ctx, keys)
    _require(ctx, keys, root, "the quiz", spec.QUIZ.required)
    qid = _id(ctx, keys["id"][1], "quiz id") if "id" in keys else None
    if qid:
        ctx.ids.insert(0, ("quiz", qid, keys["id"][1].loc))
    title = _text(ctx, keys["title"][1], "title", 500) if "title" in keys else None
    lang = _lang(ctx, keys["lang"][1], "lang") if "lang" in keys else None
    fields: dict[str, Any] = {}
    if "description" in keys:
        fields["description"] = _rich(ctx, keys["description"][1], "description")
    if "difficulty" in keys:
        fields["difficulty"] = _difficulty(ctx, keys["difficulty"][1])
    if "category" in keys:
        category = _text(ctx, keys["category"][1], "category", 500)
        if category is not None:
            parts = category.split("/")
            if any(not p.strip() for p in parts) or "\n" in category:
                ctx.error(
                    keys["category"][1],
                    f"category '{category}' has an empty part",
                    "source.bad-category",
                    hint="write a path like 'course/topic/subtopic'",
                )
            else:
                fields["category"] = category
    if "shuffle" in keys:
        fields["shuffle"] = _bool(ctx, keys["shuffle"][1], "shuffle")
    if "variants" in keys:
        count = _variants(ctx, keys["variants"][1], "the quiz's variants", listed=False)
        ctx.variants = count if isinstance(count, int) else None
    questions: list[Question] = []
    if "questions" in keys:
        items = _list(ctx, keys["questions"][1], "questions")
        if items is not None and not items:
            ctx.error(keys["questions"][1], "questions is empty", "source.no-questions")
        for i, item in enumerate(items or ()):
            q = _question(ctx, item, i)
            if q is not None:
                questions.append(q)
    if len(ctx.diags) > errors_before or None in (qid, title, lang):
        return None
    assert qid is not None and title is not None and lang is not None
    questions_in_lang = _canonical_langs(lang, questions, fields.get("difficulty"))
    return Quiz(id=qid, title=title, lang=lang, questions=questions_in_lang, loc=root.loc, **fields)


def _canonical_langs(
    quiz_lang: str, questions: list[Question], difficulty: Difficulty | None = None
) -> tuple[Question, ...]:
    """A lang (or difficulty) equal to the enclosing one says nothing: drop it, so that equal
    content is equal."""
    out = []
    for q in questions:
        if q.lang == quiz_lang:
            q = replace(q, lang=None)
        if q.difficulty is not None and q.difficulty == difficulty:
            q = replace(q, difficulty=None)
        lang = q.lang or quiz_lang
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices) if any(c.lang == lang for c in choices):
                bare = tuple(replace(c, lang=None) if c.lang == lang else c for c in choices)
                q = replace(q, body=replace(q.body, choices=bare))
            case Cloze(blanks) if any(
                isinstance(b, ChoiceBlank) and any(c.lang == lang for c in b.choices) for b in blanks
            ):
                q = replace(q, body=Cloze(tuple(_bare_blank(b, lang) for b in blanks)))
        out.append(q)
    return tuple(out)


def _bare_blank(blank: Blank, lang: str) -> Blank:
    if isinstance(blank, ChoiceBlank):
        return replace(
            blank, choices=tuple(replace(c, lang=None) if c.lang == lang else c for c in blank.choices)
        )
    return blank


# --------------------------------------------------------------------------- assessments

ASSESSMENT_ONLY_KEYS = spec.QUIZ.foreign
QUIZ_ONLY_KEYS = spec.ASSESSMENT.foreign


def _is_assessment(root: Node) -> bool:
    """A file with `sections` and no `questions` is an assessment; anything else is read as a quiz."""
    if root.kind != "map":
        return False
    names = {k.value for k, _ in root.value if k.kind == "scalar"}
    return "sections" in names and "questions" not in names


def _assessment(ctx: _Ctx, root: Node) -> Assessment | None:
    keys = _mapping(ctx, root, "the assessment", ASSESSMENT_KEYS, QUIZ_ONLY_KEYS)
    if keys is None:
        return None
    errors_before = len(ctx.diags)
    _markup(ctx, keys)
    _require(ctx, keys, root, "the assessment", spec.ASSESSMENT.required)
    aid = _id(ctx, keys["id"][1], "assessment id") if "id" in keys else None
    if aid:
        ctx.ids.insert(0, ("assessment", aid, keys["id"][1].loc))
    title = _text(ctx, keys["title"][1], "title", 500) if "title" in keys else None
    lang = _lang(ctx, keys["lang"][1], "lang") if "lang" in keys else None
    description = _rich(ctx, keys["description"][1], "description") if "description" in keys else None
    sections: list[Section] = []
    names: dict[str, Node] = {}
    if "sections" in keys:
        items = _list(ctx, keys["sections"][1], "sections")
        if items is not None and not items:
            ctx.error(keys["sections"][1], "sections is empty", "source.no-sections")
        for i, item in enumerate(items or ()):
            section = _section(ctx, item, i, names)
            if section is not None:
                sections.append(section)
    if len(ctx.diags) > errors_before or None in (aid, title, lang):
        return None
    assert aid is not None and title is not None and lang is not None
    return Assessment(
        id=aid, title=title, lang=lang, sections=tuple(sections), description=description, loc=root.loc
    )


def _section(ctx: _Ctx, node: Node, index: int, names: dict[str, Node]) -> Section | None:
    what = f"section {index + 1}"
    keys = _mapping(ctx, node, what, SECTION_KEYS)
    if keys is None or not _require(ctx, keys, node, what, spec.SECTION.required):
        return None
    errors_before = len(ctx.diags)
    title = _text(ctx, keys["title"][1], "section title", 500) if "title" in keys else None
    shuffle = _bool(ctx, keys["shuffle"][1], "shuffle") if "shuffle" in keys else False
    draws: list[Draw] = []
    items = _list(ctx, keys["draws"][1], "draws")
    if items is not None and not items:
        ctx.error(keys["draws"][1], f"{what} has no draws", "source.no-draws")
    for j, item in enumerate(items or ()):
        draw = _draw(ctx, item, f"section{index + 1}-draw{j + 1}", f"draw {j + 1} of {what}", names)
        if draw is not None:
            draws.append(draw)
    if len(ctx.diags) > errors_before or shuffle is None:
        return None
    return Section(title=title, shuffle=shuffle, draws=tuple(draws), loc=node.loc)


def _draw(ctx: _Ctx, node: Node, default_name: str, what: str, names: dict[str, Node]) -> Draw | None:
    keys = _mapping(ctx, node, what, DRAW_KEYS)
    if keys is None:
        return None
    errors_before = len(ctx.diags)
    name = default_name
    if "name" in keys:
        name = _id(ctx, keys["name"][1], "draw name") or default_name
        if name in names:
            ctx.error(
                keys["name"][1],
                f"two draws are named '{name}' (first at line {names[name].line})",
                "source.duplicate-draw-name",
                hint="give each draw of an assessment a name of its own",
            )
        names[name] = keys["name"][1]
    points = None
    if "points" in keys:
        points = _number(ctx, keys["points"][1], "points")
        if points is not None and points <= 0:
            ctx.error(
                keys["points"][1], f"points must be greater than 0, not {points:g}", "source.bad-points"
            )
    fields: dict[str, Any] = {}
    if "questions" in keys:
        for other in ("pick", "from"):
            if other in keys:
                ctx.error(
                    keys[other][0],
                    f"{what} lists its questions, so '{other}' has no meaning here",
                    "source.draw-kind",
                    hint="a draw either lists 'questions' by id, or picks 'pick: N' questions 'from' a pool",
                )
        ids: list[str] = []
        id_locs: list[SourceLoc] = []
        items = _list(ctx, keys["questions"][1], "questions")
        if items is not None and not items:
            ctx.error(keys["questions"][1], "questions is empty", "source.no-questions")
        for item in items or ():
            qid = _id(ctx, item, "question id")
            if qid is None:
                continue
            if qid in ids:
                ctx.error(item, f"question '{qid}' is listed twice", "source.duplicate-draw-question")
                continue
            ids.append(qid)
            id_locs.append(item.loc)
        fields["ids"] = tuple(ids)
        fields["id_locs"] = tuple(id_locs)
    elif "pick" in keys or "from" in keys:
        if not _require(ctx, keys, node, what, ("pick", "from")):
            return None
        pnode = keys["pick"][1]
        pick = _int_of(pnode)
        if pick is None or pick <= 0:
            shown = pnode.value if pnode.kind == "scalar" else pnode.describe()
            ctx.error(pnode, f"pick must be a whole number above 0, not '{shown}'", "source.bad-pick")
        else:
            fields["pick"] = pick
        fields["pool"] = _pool(ctx, keys["from"][1])
    else:
        ctx.error(
            node,
            f"{what} has neither 'questions' nor 'pick'",
            "source.missing-key",
            hint="list questions by id ('questions: [id1, id2]') or draw at random "
            "('pick: 3' and 'from: {tags: [zero]}')",
        )
    if len(ctx.diags) > errors_before:
        return None
    return Draw(name=name, points=points, loc=node.loc, **fields)


def _pool(ctx: _Ctx, node: Node) -> Pool | None:
    keys = _mapping(ctx, node, "the pool ('from')", POOL_KEYS)
    if keys is None:
        return None
    errors_before = len(ctx.diags)
    fields: dict[str, Any] = {}
    for key, attr in (("tags", "tags"), ("any_tags", "any_tags")):
        if key in keys:
            fields[attr] = _names(ctx, keys[key][1], key, _text)
    if "category" in keys:
        category = _text(ctx, keys["category"][1], "category", 500)
        fields["category"] = category.strip("/") if category else category
    if "quiz" in keys:
        fields["quizzes"] = _names(ctx, keys["quiz"][1], "quiz", lambda c, n, w: _id(c, n, "quiz id"))
    if "type" in keys:
        fields["types"] = _names(ctx, keys["type"][1], "type", _question_type)
    if "difficulty" in keys:
        fields["difficulties"] = _names(
            ctx, keys["difficulty"][1], "difficulty", lambda c, n, w: _difficulty(c, n)
        )
    if "lang" in keys:
        fields["langs"] = _names(ctx, keys["lang"][1], "lang", _lang)
    if len(ctx.diags) > errors_before:
        return None
    return Pool(**fields)


def _names(ctx: _Ctx, node: Node, what: str, read: Any) -> tuple[Any, ...]:
    """A pool condition's value: one value, or a list of them."""
    items = [node] if node.kind == "scalar" else _list(ctx, node, what) or []
    if node.kind == "seq" and not items:
        ctx.error(
            node, f"{what} is an empty list", "source.empty-list", hint=f"remove '{what}' or name a value"
        )
    values = []
    for item in items:
        value = read(ctx, item, what)
        if value is not None and value not in values:
            values.append(value)
    return tuple(values)


def _question_type(ctx: _Ctx, node: Node, what: str) -> QuestionType | None:
    if node.kind == "scalar" and node.value in QuestionType._value2member_map_:
        return QuestionType(node.value)
    shown = node.value if node.kind == "scalar" else node.describe()
    names = [t.value for t in QuestionType]
    ctx.error(
        node,
        f"unknown question type '{shown}'",
        "source.bad-type",
        hint=_did_you_mean(str(shown), names) or f"types: {', '.join(names)}",
    )
    return None


# --------------------------------------------------------------------------- public API


def load_text(text: str, path: str, warnings: list[Diagnostic] | None = None) -> Quiz | Assessment:
    """One quiz (or an unresolved assessment) from YAML text. Raises SourceError with every
    problem of the file."""
    diags: list[Diagnostic] = []
    quiz = _load_text(text, path, diags, warnings)
    if diags or quiz is None:
        raise SourceError(sorted(diags, key=Diagnostic.sort_key))
    return quiz


def _load_text(
    text: str,
    path: str,
    diags: list[Diagnostic],
    warnings: list[Diagnostic] | None,
    ids: list[tuple[str, str, SourceLoc]] | None = None,
    media: MediaRead | None = None,
) -> Quiz | Assessment | None:
    root = _Composer(text, path, diags).compose()
    if root is None:
        return None
    folder = Path(path).parent
    ctx = _Ctx(path, diags, text=text, base=folder if folder.is_dir() else None)
    quiz: Quiz | Assessment | None
    try:
        quiz = _assessment(ctx, root) if _is_assessment(root) else _quiz(ctx, root)
    except _Abort:
        quiz = None
    if warnings is not None:
        warnings.extend(ctx.warnings)
    if ids is not None:
        ids.extend(ctx.ids)
    if media is not None:
        merge_media(media, ctx.media_read)
    return quiz


MediaRead = dict[str, tuple[str, str]]
"""The image files a load read: path (as read: the source file's folder / the path written in
the text, POSIX) -> (sha256 of the bytes read, hex; the path it resolved to). What the rebuild
cache checks a quiz's outputs against besides its source file (cache.py)."""


def merge_media(into: MediaRead, more: MediaRead) -> None:
    """Add the image files of ``more`` to ``into``. A file read twice with other bytes (it
    changed between the reads) gets the digest "" that no file has: whatever was made from it
    is never taken as up to date."""
    for path, seen in more.items():
        into[path] = seen if into.get(path, seen) == seen else ("", seen[1])


def load_bytes(
    data: bytes,
    path: str,
    diags: list[Diagnostic],
    warnings: list[Diagnostic] | None = None,
    ids: list[tuple[str, str, SourceLoc]] | None = None,
    media: MediaRead | None = None,
) -> Quiz | Assessment | None:
    """One quiz or assessment from a file's bytes; problems are appended to diags (nothing
    raised), and the image files it read to ``media`` when given."""
    if len(data) > MAX_FILE_BYTES:
        diags.append(_too_big(path, len(data)))
        return None
    text = decode_source(data, path, diags)
    if text is None:
        return None
    return _load_text(text, path, diags, warnings, ids, media)


def _too_big(path: str, size: int) -> Diagnostic:
    return Diagnostic(
        SourceLoc(path),
        f"the file is {size:,} bytes; the limit for a source file is {MAX_FILE_BYTES:,} bytes",
        rule="source.too-large",
        hint="split the quiz into several files",
    )


class PathError(Exception):
    """A path given on the command line does not exist or holds no source file (a usage error)."""


def discover(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Every .yaml/.yml file under the given files and directories, sorted, without duplicates.

    Sorting by POSIX path makes the bank independent of file-system listing order.
    """
    found: dict[str, Path] = {}
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in p.rglob("*"):
                if (
                    f.suffix in SOURCE_SUFFIXES
                    and f.is_file()
                    and not any(part.startswith(".") for part in f.relative_to(p).parts)
                ):
                    found.setdefault(f.as_posix(), f)
        elif p.is_file():
            found.setdefault(p.as_posix(), p)
        else:
            raise PathError(f"{raw}: no such file or directory")
    return [found[k] for k in sorted(found)]


def load_paths(paths: Iterable[str | os.PathLike[str]], warnings: list[Diagnostic] | None = None) -> Bank:
    """Load every source file under paths into one Bank, checking ids across files and resolving
    every assessment against the bank's questions.

    Raises SourceError with every problem of every file; PathError for a missing path.
    Warnings (a question without explanation, ...) are appended to `warnings` when given.
    """
    files = discover(paths)
    if not files:
        raise PathError("no source files (*.yaml, *.yml) found in " + ", ".join(str(p) for p in paths))
    diags: list[Diagnostic] = []
    quizzes: list[Quiz] = []
    assessments: list[Assessment] = []
    ids: list[tuple[str, str, SourceLoc]] = []
    for f in files:
        doc = load_file(f, diags, warnings, ids)
        if isinstance(doc, Quiz):
            quizzes.append(doc)
        elif doc is not None:
            assessments.append(doc)
    check_ids(ids, diags)
    if diags:
        raise SourceError(sorted(diags, key=Diagnostic.sort_key))
    from .assessments import resolve_all

    bank = Bank(tuple(sorted(quizzes, key=lambda q: q.id)))
    resolved = resolve_all(bank, assessments, diags)
    if diags:
        raise SourceError(sorted(diags, key=Diagnostic.sort_key))
    return Bank(bank.quizzes, tuple(sorted(resolved, key=lambda a: a.id)))


def load_file(
    f: Path,
    diags: list[Diagnostic],
    warnings: list[Diagnostic] | None = None,
    ids: list[tuple[str, str, SourceLoc]] | None = None,
    media: MediaRead | None = None,
) -> Quiz | Assessment | None:
    """One source file (a path from discover()) as a Quiz or an unresolved Assessment; problems
    are appended to diags, and the image files it read (MediaRead) to ``media`` when given.

    The unit of work of a parallel build: the ids it appends are checked across files by the
    caller (check_ids).
    """
    path = f.as_posix()
    try:
        size = f.stat().st_size
        if size > MAX_FILE_BYTES:
            diags.append(_too_big(path, size))
            return None
        data = f.read_bytes()
    except OSError as e:
        diags.append(Diagnostic(SourceLoc(path), f"cannot read the file: {e.strerror}", rule="source.io"))
        return None
    return load_bytes(data, path, diags, warnings, ids, media)


def check_ids(ids: Iterable[tuple[str, str, SourceLoc]], diags: list[Diagnostic]) -> None:
    """Quiz and assessment ids (one namespace: each names files in dist/) and question ids are
    unique in the bank, also ignoring letter case.

    Ids become file names, and two names differing only by case collide on the
    case-insensitive file systems of Windows and macOS.
    """
    seen: dict[tuple[str, str], tuple[str, str, SourceLoc]] = {}
    for kind, ident, loc in ids:
        key = ("question" if kind == "question" else "package", ident.casefold())
        if key not in seen:
            seen[key] = (kind, ident, loc)
            continue
        first_kind, first, first_loc = seen[key]
        if first == ident and first_kind == kind:
            msg = f"duplicate {kind} id '{ident}' (first defined at {first_loc})"
            hint = f"give each {kind} an id of its own"
        elif first == ident:
            article = "an" if first_kind[0] in "aeiou" else "a"
            msg = f"{kind} id '{ident}' is also the id of {article} {first_kind} (defined at {first_loc})"
            hint = "quizzes and assessments share one set of ids: each names its files in dist/"
        else:
            msg = f"{kind} id '{ident}' differs only by letter case from '{first}' (defined at {first_loc})"
            hint = "ids that differ only by case collide on case-insensitive file systems"
        rule = f"source.duplicate-{kind}-id" if kind == first_kind else "source.id-collision"
        diags.append(Diagnostic(loc, msg, rule=rule, hint=hint))
