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
import math
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, assert_never

from . import sourcespec as spec
from .errors import Diagnostic, Severity, SourceError
from .model import (
    Answer,
    Assessment,
    Bank,
    Body,
    Choice,
    Difficulty,
    Draw,
    Essay,
    Matching,
    Media,
    MultipleChoice,
    Numerical,
    NumericKey,
    Pair,
    Pool,
    Question,
    QuestionType,
    Quiz,
    Section,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Text,
    TrueFalse,
    default_multiple_credits,
    plain_text,
)

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


def _number(ctx: _Ctx, node: Node, what: str) -> float | None:
    if node.kind != "scalar" or node.tag not in (_INT, _FLOAT):
        ctx.error(node, f"{what} must be a number, not {node.describe()}", "source.wrong-type")
        return None
    import yaml

    value = float(
        yaml.SafeLoader.construct_object(yaml.SafeLoader(""), yaml.ScalarNode(node.tag, node.value))
    )
    if not math.isfinite(value):
        ctx.error(node, f"{what} must be a finite number", "source.bad-number")
        return None
    return value


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
    import langcodes

    if not langcodes.tag_is_valid(value):
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
    allowed = COMMON_QUESTION_KEYS + TYPE_KEYS[qtype]
    keys = _mapping(ctx, node, what, allowed, _FOREIGN_KEYS[qtype])
    if keys is None:
        return None
    errors_before = len(ctx.diags)
    _require(ctx, keys, node, what, tuple(k.name for k in spec.COMMON_QUESTION if k.required))
    qid = _id(ctx, keys["id"][1], "question id") if "id" in keys else None
    if qid:
        ctx.ids.append(("question", qid, keys["id"][1].loc))
    stem = _rich(ctx, keys["stem"][1], "stem") if "stem" in keys else None
    fields: dict[str, Any] = {}
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
    elif qid:
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

    body = _body(ctx, keys, node, what, qtype)
    if len(ctx.diags) > errors_before or qid is None or stem is None or body is None:
        return None
    if any(v is None for k, v in fields.items()):
        return None
    return Question(id=qid, stem=stem, body=body, loc=node.loc, **fields)


def _body(
    ctx: _Ctx, keys: dict[str, tuple[Node, Node]], node: Node, what: str, qtype: QuestionType
) -> Body | None:
    """The type's own keys -> its body; None after an error."""
    match qtype:
        case QuestionType.SINGLE | QuestionType.MULTIPLE:
            return _choices(ctx, keys, node, what, qtype)
        case QuestionType.TRUE_FALSE:
            if not _require(ctx, keys, node, what, ("answer",)):
                return None
            truth = _bool(ctx, keys["answer"][1], "answer")
            return None if truth is None else TrueFalse(truth)
        case QuestionType.SHORT_ANSWER:
            answers: tuple[str, ...] | None = None
            if _require(ctx, keys, node, what, ("answers",)):
                answers = _texts(ctx, keys["answers"][1], "answers")
                if answers is not None and not answers:
                    ctx.error(
                        keys["answers"][1],
                        "answers is empty: give at least one accepted answer",
                        "source.no-answer",
                    )
            case_sensitive: bool | None = False
            if "case_sensitive" in keys:
                case_sensitive = _bool(ctx, keys["case_sensitive"][1], "case_sensitive")
            if answers is None or case_sensitive is None:
                return None
            return ShortAnswer(tuple(Answer(a) for a in answers), case_sensitive)
        case QuestionType.NUMERICAL:
            key = _numeric(ctx, keys, node, what)
            return None if key is None else Numerical(keys=(key,))
        case QuestionType.MATCHING:
            return _matching(ctx, keys, node, what)
        case QuestionType.ESSAY:
            return Essay()
        case _:
            assert_never(qtype)


def _choices(
    ctx: _Ctx,
    keys: dict[str, tuple[Node, Node]],
    node: Node,
    what: str,
    qtype: QuestionType,
) -> SingleChoice | MultipleChoice | None:
    if not _require(ctx, keys, node, what, ("choices",)):
        return None
    key_node, list_node = keys["choices"]
    items = _list(ctx, list_node, "choices")
    if items is None:
        return None
    # The source marks right choices with a flag; the credits follow from the flags.
    choices: list[Choice] = []
    flags: list[bool] = []
    seen: dict[Text, Node] = {}
    ok = True
    for i, item in enumerate(items):
        ckeys = _mapping(ctx, item, f"choice {i + 1}", CHOICE_KEYS)
        if ckeys is None or not _require(ctx, ckeys, item, f"choice {i + 1}", spec.CHOICE.required):
            ok = False
            continue
        text = _rich(ctx, ckeys["text"][1], "choice text")
        correct = _bool(ctx, ckeys["correct"][1], "correct") if "correct" in ckeys else False
        feedback = _rich(ctx, ckeys["feedback"][1], "feedback") if "feedback" in ckeys else None
        lang = _lang(ctx, ckeys["lang"][1], "lang") if "lang" in ckeys else None
        if (
            text is None
            or correct is None
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
        choices.append(Choice(text, 1.0 if correct else 0.0, feedback, lang, loc=item.loc))
        flags.append(correct)
    if len(items) < 2:
        ctx.error(
            list_node, f"{what} has {len(items)} choice(s); at least 2 are needed", "source.too-few-choices"
        )
        ok = False
    if ok:
        n = sum(flags)
        if qtype is QuestionType.SINGLE and n == 0:
            ctx.error(
                key_node,
                f"{what} has no correct choice",
                "source.no-correct-choice",
                hint="mark the right choice with 'correct: true'",
            )
            ok = False
        elif qtype is QuestionType.SINGLE and n > 1:
            ctx.error(
                key_node,
                f"{what} marks {n} choices correct but its type is single",
                "source.several-correct",
                hint="use type: multiple",
            )
            ok = False
        elif qtype is QuestionType.MULTIPLE and n == 0:
            ctx.error(
                key_node,
                f"{what} has no correct choice",
                "source.no-correct-choice",
                hint="mark at least one choice with 'correct: true'",
            )
            ok = False
    if not ok:
        return None
    if qtype is QuestionType.MULTIPLE:
        credits = default_multiple_credits(flags)
        return MultipleChoice(tuple(replace(c, credit=x) for c, x in zip(choices, credits, strict=True)))
    return SingleChoice(tuple(choices))


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
        out.append(q)
    return tuple(out)


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
        if pnode.kind != "scalar" or pnode.tag != _INT or int(pnode.value.replace("_", ""), 0) <= 0:
            ctx.error(pnode, f"pick must be a whole number above 0, not '{pnode.value}'", "source.bad-pick")
        else:
            fields["pick"] = int(pnode.value.replace("_", ""), 0)
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
