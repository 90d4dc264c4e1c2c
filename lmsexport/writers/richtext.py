"""Rich text -> (X)HTML elements with lxml: the one renderer every writer's markup goes through.

Each format asks for the same HTML vocabulary (p, em, strong, code, pre, ul, ol, li, table,
thead, tbody, tr, th, td, a, img, br) in its own namespace (QTI 2.1's, or none for HTML,
GIFT and Moodle XML) and says how to write what differs between formats: a formula (MathML
element or TeX text), an image (its src) and a code block (highlighted or not). Building
elements, never strings, means lxml is the one place text is escaped.

Layout rules shared by every format:
* code (inline and blocks) is marked left to right (the `ltr` class, plus `dir` where the
  format has it), so a PyTorch snippet inside an Urdu question does not get mirrored;
* table alignment is a class (`align-left|center|right`): QTI has no align attribute and the
  HTML page's Content-Security-Policy forbids style attributes;
* a text that is a single paragraph can be rendered "inline" (its inlines without the <p>),
  for choices, labels and short feedback.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import assert_never

from lxml import etree

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


@dataclass(frozen=True)
class Flavour:
    """How one format writes the parts that differ between formats."""

    ns: str | None = None
    """Namespace of the HTML elements (QTI 2.1 items use the QTI namespace)."""
    math: Callable[[Math], etree._Element | str] = field(default=lambda m: m.tex)
    """A formula as an element (MathML) or as text (TeX with delimiters)."""
    image_src: Callable[[Image], str] = field(default=lambda i: i.media.name)
    """The src of an image: a package path, a data: URI, @@PLUGINFILE@@/name..."""
    code_block: Callable[[CodeBlock, etree._Element], None] | None = None
    """Fills the <code> of a code block (e.g. with highlighted spans); default: the plain text."""
    pre_attrs: tuple[tuple[str, str], ...] = ()
    """More attributes of a code block's <pre> (the HTML page makes it focusable and names it)."""
    dir_attr: bool = True
    """Whether elements may carry `dir` (HTML may; QTI 2.1 may not)."""
    list_start: bool = True
    """Whether <ol> may carry `start` (QTI 2.1's may not)."""
    title_attr: bool = True
    """Whether <a> and <img> may carry `title` (QTI 2.1's may not)."""
    gap: Callable[[Gap, etree._Element], None] | None = None
    """Renders blank n of a cloze stem at the end of the given parent (an input element, or text
    such as Moodle's `{1:SHORTANSWER:=...}` appended with `append_text`). None: the text holds
    no gap (only a Cloze stem does; a gap elsewhere is a bug, and raises)."""
    protect_tex: bool = False
    """For formats whose formulas are TeX in text (GIFT, Moodle XML): a text that spells a MathJax
    delimiter (MATHJAX_DELIMITERS) goes into `<span class="tex2jax_ignore">`, which MathJax does
    not typeset, with every `\\` and `$` in it as a character reference (`&#92;`, `&#36;`), so
    that filters reading the HTML source for delimiters (Moodle's filter_mathjaxloader and
    filter_tex) do not take it for a formula either. readers/richhtml.py reads it back as text."""


MATHJAX_DELIMITERS = ("\\(", "\\)", "\\[", "\\]", "$$")
"""What MathJax (as Moodle's filter_mathjaxloader configures it) takes for the start or end of a
formula in text: inline `\\(..\\)`, display `\\[..\\]` and `$$..$$`."""
TEX_IGNORE_CLASS = "tex2jax_ignore"
"""The class MathJax 2 and 3 skip when they look for formulas (ignoreClass / ignoreHtmlClass)."""
_DELIMITER = re.compile(r"\\[()\[\]]|\$\$")
_TEX_SPECIAL = re.compile(r"[\\$]")


def spells_delimiter(text: str) -> bool:
    """Whether a text holds a MathJax delimiter (it would be typeset as a formula)."""
    return _DELIMITER.search(text) is not None


class Renderer:
    """Renders Rich trees for one format; collects what the format could not carry."""

    def __init__(self, flavour: Flavour) -> None:
        self.f = flavour
        self.lost: list[str] = []
        """Names of what was dropped (e.g. "list start"), for the writer's warnings."""

    def _el(self, parent: etree._Element | None, tag: str, **attrib: str) -> etree._Element:
        name = f"{{{self.f.ns}}}{tag}" if self.f.ns else tag
        if parent is None:
            return etree.Element(name, attrib)
        return etree.SubElement(parent, name, attrib)

    # ----------------------------------------------------------------- entry points

    def blocks(self, rich: Rich, parent: etree._Element) -> None:
        """Append the blocks of a text to ``parent``."""
        for block in rich.blocks:
            self.block(block, parent)

    def inline_or_blocks(self, rich: Rich, parent: etree._Element) -> None:
        """A one-paragraph text as inlines straight into ``parent``; anything else as blocks."""
        inlines = rich.inline
        if inlines is None:
            self.blocks(rich, parent)
        else:
            self.inlines(inlines, parent)

    def flattened(self, rich: Rich, parent: etree._Element) -> bool:
        """Inline content only (for places that allow no blocks): paragraphs joined by <br/>.

        Returns False when something had to be flattened (a list, a table, a code block): the
        caller warns that the format shows it as plain lines.
        """
        whole = True
        for i, block in enumerate(rich.blocks):
            if i:
                self._el(parent, "br")
            if isinstance(block, Para):
                self.inlines(block.children, parent)
            else:
                whole = False
                from ..model import plain_text

                _append_text(parent, plain_text(Rich((block,))).replace("\n", " / "))
        return whole

    # ----------------------------------------------------------------- blocks

    def block(self, block: Block, parent: etree._Element) -> None:
        if isinstance(block, Para):
            self.inlines(block.children, self._el(parent, "p"))
        elif isinstance(block, CodeBlock):
            pre = self._el(parent, "pre", **self._ltr(), **dict(self.f.pre_attrs))
            code = self._el(pre, "code")
            if block.lang:
                code.set("class", f"language-{block.lang}")
            if self.f.code_block is not None:
                self.f.code_block(block, code)
            else:
                code.text = block.text
        elif isinstance(block, BulletList | OrderedList):
            attrs: dict[str, str] = {}
            if isinstance(block, OrderedList) and block.start != 1:
                if self.f.list_start:
                    attrs["start"] = str(block.start)
                else:
                    self.lost.append(f"the start number {block.start} of a numbered list")
            lst = self._el(parent, "ul" if isinstance(block, BulletList) else "ol", **attrs)
            for item in block.items:
                li = self._el(lst, "li")
                # A tight item (one paragraph) renders without <p>, as Markdown renders it.
                if len(item) == 1 and isinstance(item[0], Para):
                    self.inlines(item[0].children, li)
                else:
                    for b in item:
                        self.block(b, li)
        elif isinstance(block, Table):
            table = self._el(parent, "table")
            head = self._el(self._el(table, "thead"), "tr")
            for col, cell in enumerate(block.header):
                self.inlines(cell, self._el(head, "th", **self._align(block, col)))
            body = self._el(table, "tbody")
            for row in block.rows:
                tr = self._el(body, "tr")
                for col, cell in enumerate(row):
                    self.inlines(cell, self._el(tr, "td", **self._align(block, col)))

    def _ltr(self) -> dict[str, str]:
        return {"class": "ltr", "dir": "ltr"} if self.f.dir_attr else {"class": "ltr"}

    def _title(self, attrs: dict[str, str], title: str, what: str) -> None:
        if self.f.title_attr:
            attrs["title"] = title
        else:
            self.lost.append(f"the title {title!r} of {what}")

    @staticmethod
    def _align(table: Table, col: int) -> dict[str, str]:
        align = table.aligns[col] if col < len(table.aligns) else None
        return {"class": f"align-{align}"} if align else {}

    # ----------------------------------------------------------------- inlines

    def inlines(self, inlines: tuple[Inline, ...], parent: etree._Element) -> None:
        for x in inlines:
            if isinstance(x, Str):
                if self.f.protect_tex and spells_delimiter(x.text):
                    _protected(self._el(parent, "span", **{"class": TEX_IGNORE_CLASS}), x.text)
                else:
                    _append_text(parent, x.text)
            elif isinstance(x, Emph | Strong):
                self.inlines(x.children, self._el(parent, "em" if isinstance(x, Emph) else "strong"))
            elif isinstance(x, Code):
                self._el(parent, "code", **self._ltr()).text = x.text
            elif isinstance(x, LineBreak):
                self._el(parent, "br")
            elif isinstance(x, Link):
                attrs = {"href": x.url}
                if x.title:
                    self._title(attrs, x.title, "a link")
                self.inlines(x.children, self._el(parent, "a", **attrs))
            elif isinstance(x, Image):
                attrs = {"src": self.f.image_src(x), "alt": x.alt}
                if x.media.width and x.media.height:
                    attrs["width"] = str(x.media.width)
                    attrs["height"] = str(x.media.height)
                if x.title:
                    self._title(attrs, x.title, "an image")
                self._el(parent, "img", **attrs)
            elif isinstance(x, Math):
                math = self.f.math(x)
                if isinstance(math, str):
                    _append_text(parent, math)
                else:
                    parent.append(math)
            elif isinstance(x, Gap):
                if self.f.gap is None:
                    raise ValueError(f"gap {x.n} outside a cloze stem")
                self.f.gap(x, parent)
            else:
                assert_never(x)


def _protected(span: etree._Element, text: str) -> None:
    """Text with every `\\` and `$` as a character reference (see Flavour.protect_tex)."""
    at = 0
    for m in _TEX_SPECIAL.finditer(text):
        _append_text(span, text[at : m.start()])
        span.append(etree.Entity("#92" if m.group(0) == "\\" else "#36"))
        at = m.end()
    _append_text(span, text[at:])


def append_text(parent: etree._Element, text: str) -> None:
    """Append text after the last child of parent (for a Flavour's `gap`)."""
    _append_text(parent, text)


def _append_text(parent: etree._Element, text: str) -> None:
    """Append text after the last child of parent (lxml keeps it in that child's tail)."""
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def to_html(rich: Rich, flavour: Flavour, inline: bool = False) -> tuple[str, list[str]]:
    """A text as an HTML fragment string (for formats that store HTML as text: GIFT, Moodle
    XML, QTI 1.2), and what the flavour could not carry."""
    renderer = Renderer(flavour)
    holder = etree.Element("div")
    if inline:
        renderer.inline_or_blocks(rich, holder)
    else:
        renderer.blocks(rich, holder)
    html = etree.tostring(holder, encoding="unicode", method="html")
    return html[len("<div>") : -len("</div>")], renderer.lost
