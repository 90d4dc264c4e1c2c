"""Rich text -> Markdown that lmsexport's own Markdown reader reads back as the same tree.

Used where the bank is written as source files (`lmsexport import`): a text that carried markup
in Moodle or a QTI package becomes Markdown in the YAML. The inverse of readers/markdown.py:
`read_markdown(to_markdown(rich)) == rich` for every tree that reader can produce (a property
test). Text is escaped in one place (`_escape`): every character Markdown, GFM tables or
dollarmath could read as markup gets a backslash, which CommonMark allows before any ASCII
punctuation.

What Markdown cannot express is reported through ``lost`` (for the import's warnings) rather
than silently changed: a line break inside a table cell, emphasis that begins or ends with a
space.

A cloze stem's Gap(n) is written as its marker `[[n]]`, which the reader reads back with
``gaps=True``; a literal `[` is always escaped, so text never spells a marker.
"""

from __future__ import annotations

import re

from ..model import (
    Block,
    BulletList,
    Code,
    CodeBlock,
    Emph,
    Gap,
    Image,
    Inline,
    LineBreak,
    Link,
    Math,
    OrderedList,
    Para,
    Rich,
    Str,
    Strong,
    Table,
)

_ALWAYS = re.compile(r"([\\`*_\[\]<>$|&~])")
"""Escaped wherever they stand."""
_LINE_START = re.compile(r"^(\s*)([#+=-]|\d+[.)])")
"""Block markers at the start of a line (a heading, a list item, a setext underline)."""


class _Writer:
    def __init__(self, image_src: dict[str, str] | None) -> None:
        self.image_src = image_src or {}
        self.in_cell = False
        self.lost: list[str] = []

    def lose(self, what: str) -> None:
        if what not in self.lost:
            self.lost.append(what)

    # ----------------------------------------------------------------- blocks

    def blocks(self, blocks: tuple[Block, ...]) -> str:
        out = []
        alt = False
        for i, b in enumerate(blocks):
            # Two lists of one kind in a row would be read as one list: every other one is
            # written with the other marker (`*` for `-`, `)` for `.`), which starts a new list.
            same = i > 0 and type(b) is type(blocks[i - 1]) and isinstance(b, BulletList | OrderedList)
            alt = same and not alt
            out.append(self.block(b, alt))
        return "\n\n".join(out)

    def block(self, block: Block, alt: bool = False) -> str:
        if isinstance(block, Para):
            if len(block.children) == 1 and isinstance(block.children[0], Math) and block.children[0].display:
                return f"$${block.children[0].tex}$$"
            return self.inlines(block.children, start_of_line=True)
        if isinstance(block, CodeBlock):
            longest = max((len(m) for m in re.findall(r"`+", block.text)), default=0)
            fence = "`" * max(3, longest + 1)
            return f"{fence}{block.lang or ''}\n{block.text}\n{fence}"
        if isinstance(block, BulletList | OrderedList):
            lines = []
            loose = any(len(item) > 1 for item in block.items)
            for n, item in enumerate(block.items):
                if isinstance(block, BulletList):
                    marker = "*" if alt else "-"
                else:
                    marker = f"{block.start + n}{')' if alt else '.'}"
                body = self.blocks(item) if item else ""
                pad = " " * (len(marker) + 1)
                indented = "\n".join((pad + line) if line else "" for line in body.split("\n"))
                lines.append(marker + " " + indented[len(pad) :])
            return ("\n\n" if loose else "\n").join(lines)
        if isinstance(block, Table):

            def row(cells: tuple[tuple[Inline, ...], ...]) -> str:
                return "| " + " | ".join(self.cell(c) for c in cells) + " |"

            rule = {None: "---", "left": ":--", "center": ":-:", "right": "--:"}
            aligns = [rule[a] for a in block.aligns] + ["---"] * (len(block.header) - len(block.aligns))
            lines = [row(block.header), "| " + " | ".join(aligns) + " |"]
            lines += [row(r) for r in block.rows]
            return "\n".join(lines)
        raise AssertionError(f"unknown block {block!r}")

    def cell(self, inlines: tuple[Inline, ...]) -> str:
        if any(isinstance(x, LineBreak) for x in inlines):
            self.lose("a line break inside a table cell (a space instead)")
            inlines = tuple(Str(" ") if isinstance(x, LineBreak) else x for x in inlines)
        # A GFM table splits its rows at every unescaped `|`, inside code and formulas too, and
        # takes `\|` there for `|`: theirs are written escaped (see inline()).
        self.in_cell = True
        try:
            return self.inlines(inlines) or " "
        finally:
            self.in_cell = False

    # ----------------------------------------------------------------- inlines

    def inlines(self, inlines: tuple[Inline, ...], start_of_line: bool = False) -> str:
        out: list[str] = []
        for i, x in enumerate(inlines):
            at_start = start_of_line and (not out or out[-1].endswith("\n"))
            out.append(self.inline(x, at_start, inlines[i + 1] if i + 1 < len(inlines) else None))
        return "".join(out)

    def piped(self, text: str) -> str:
        """Code or TeX as written in a table cell: every `|` as `\\|` (the cell gives `|` back)."""
        return text.replace("|", "\\|") if self.in_cell else text

    def inline(self, x: Inline, at_start: bool, following: Inline | None) -> str:
        if isinstance(x, Str):
            return _escape(x.text, at_start)
        if isinstance(x, Emph | Strong):
            inner = self.inlines(x.children)
            if inner[:1].isspace() or inner[-1:].isspace():
                self.lose("emphasis that begins or ends with a space (the space moved outside)")
                stripped = inner.strip()
                lead, trail = inner[: len(inner) - len(inner.lstrip())], inner[len(inner.rstrip()) :]
                mark = "*" if isinstance(x, Emph) else "**"
                return f"{lead}{mark}{stripped}{mark}{trail}"
            # Delimiters next to each other merge into one run (`***x***` reads as emphasis around
            # strong): emphasis at the edge of other emphasis is written with `_` instead.
            if isinstance(x, Emph):
                nested = inner.startswith(("*", "_")) or inner.endswith(("*", "_"))
                return f"_{inner}_" if nested else f"*{inner}*"
            first, last = x.children[0], x.children[-1]
            if isinstance(first, Emph) or isinstance(last, Emph):
                inner = "".join(
                    f"_{self.inlines(c.children)}_"
                    if isinstance(c, Emph) and c in (first, last)
                    else self.inlines((c,))
                    for c in x.children
                )
            return f"**{inner}**"
        if isinstance(x, Code):
            longest = max((len(m) for m in re.findall(r"`+", x.text)), default=0)
            ticks = "`" * (longest + 1)
            pad = " " if x.text.startswith(("`", " ")) or x.text.endswith(("`", " ")) else ""
            return f"{ticks}{pad}{self.piped(x.text)}{pad}{ticks}"
        if isinstance(x, Math):
            if isinstance(following, Str) and following.text[:1].isdigit():
                self.lose("a formula followed directly by a digit (Markdown would not read it as a formula)")
            tex = self.piped(x.tex)
            return f"$${tex}$$" if x.display else f"${tex}$"
        if isinstance(x, LineBreak):
            return "\\\n"
        if isinstance(x, Link):
            return f"[{self.inlines(x.children)}]({_destination(x.url)}{_title(x.title)})"
        if isinstance(x, Image):
            src = self.image_src.get(x.media.digest, x.media.name)
            return f"![{_escape(x.alt, False)}]({_destination(src)}{_title(x.title)})"
        if isinstance(x, Gap):
            # A cloze blank's marker; a literal `[[` in text is always escaped (`\[\[`, _ALWAYS).
            return f"[[{x.n}]]"
        raise AssertionError(f"unknown inline {x!r}")


def _escape(text: str, at_start: bool) -> str:
    text = _ALWAYS.sub(r"\\\1", text)
    if at_start:
        text = _LINE_START.sub(lambda m: m.group(1) + _escape_marker(m.group(2)), text)
    # A run of spaces at the start of a paragraph is indentation to Markdown (a code block).
    if at_start and text.startswith(" "):
        text = "&#32;" + text[1:]
    return text


def _escape_marker(marker: str) -> str:
    """`#` -> `\\#`, `1.` -> `1\\.`: a backslash before the punctuation of a block marker."""
    return "".join(c if c.isdigit() else "\\" + c for c in marker)


def _destination(url: str) -> str:
    if re.search(r"[\s()<>]", url):
        return "<" + url.replace("\\", "\\\\").replace("<", "\\<").replace(">", "\\>") + ">"
    return url.replace("\\", "\\\\")


def _title(title: str | None) -> str:
    if not title:
        return ""
    return ' "' + title.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_markdown(rich: Rich, image_src: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """Markdown for a Rich text, and what it could not express exactly.

    ``image_src`` maps an image's digest to the path the YAML will name (default: its name).
    """
    writer = _Writer(image_src)
    return writer.blocks(rich.blocks), writer.lost


def plain_to_markdown(text: str) -> str:
    """A plain text as Markdown that reads back as the same words (line breaks become hard breaks)."""
    lines = text.split("\n")
    return "\\\n".join(_escape(line, True) for line in lines)
