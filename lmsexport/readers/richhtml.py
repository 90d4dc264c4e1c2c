"""An HTML fragment -> the model's Rich tree: the inverse of lmsexport.writers.richtext.

Readers of formats that store HTML as text (GIFT's [html], Moodle XML, QTI) give their texts
back as Rich trees through this one function, so a round trip compares trees. Written for two
kinds of input:

* lmsexport's own output, which must come back exactly (the round-trip checks);
* foreign HTML from other tools (an import), read leniently: what has no place in the model
  (a heading, a <div> with style, an <iframe>) is reported by name through ``lost`` and its
  text kept, never silently dropped.

Math is read from TeX between MathJax delimiters (`\\(..\\)`, `\\[..\\]`, and `$$..$$`, which
Moodle's filter also typesets) in text, except inside `<span class="tex2jax_ignore">` (which
MathJax skips, and writers use for text that spells a delimiter), and from MathML with a TeX
annotation. Images are
resolved by the caller's ``image`` callback (a data: URI, a package file, @@PLUGINFILE@@).
The HTML is parsed by lxml.html, which never fetches anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree, html

from ..model import (
    Block,
    BulletList,
    Code,
    CodeBlock,
    Emph,
    Image,
    Inline,
    LineBreak,
    Link,
    Math,
    Media,
    OrderedList,
    Para,
    Rich,
    Str,
    Strong,
    Table,
)
from ..writers.richtext import TEX_IGNORE_CLASS

_MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]|\$\$(.+?)\$\$", re.S)
_BLOCK_TAGS = frozenset(
    {"p", "pre", "ul", "ol", "table", "div", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"}
)
_TRANSPARENT = frozenset(
    {"span", "font", "u", "small", "big", "sub", "sup", "s", "strike", "del", "ins", "mark"}
)
"""Inline elements whose text is kept but which the model has no node for."""
_DROPPED = frozenset(
    {"script", "style", "iframe", "object", "embed", "form", "input", "button", "select", "video", "audio"}
)
MATHML_NS = "http://www.w3.org/1998/Math/MathML"

ImageResolver = Callable[[str], Media | None]
"""src -> the image's Media, or None when it cannot be found (reported by the caller)."""


class _Reader:
    def __init__(self, image: ImageResolver | None, collapse: bool) -> None:
        self.image = image
        self.collapse = collapse
        self.lost: list[str] = []
        self.literal = 0
        """Depth inside `<span class="tex2jax_ignore">`, whose text is never a formula."""

    def lose(self, what: str) -> None:
        if what not in self.lost:
            self.lost.append(what)

    # ----------------------------------------------------------------- blocks

    def blocks(self, parent: etree._Element) -> list[Block]:
        """The children of ``parent`` as blocks; loose inline content becomes paragraphs."""
        out: list[Block] = []
        pending: list[Inline] = []

        def flush() -> None:
            inlines = _trim(_merge(pending), self.collapse)
            if inlines:
                out.append(Para(tuple(inlines)))
            pending.clear()

        pending.extend(self.text(parent.text))
        for child in parent:
            tag = _tag(child)
            if tag in _BLOCK_TAGS:
                flush()
                out.extend(self.block(child, tag))
            else:
                pending.extend(self.inline(child, tag))
            pending.extend(self.text(child.tail))
        flush()
        return out

    def block(self, el: etree._Element, tag: str) -> list[Block]:
        if tag == "p":
            inlines = _trim(_merge(self.inline_children(el)), self.collapse)
            return [Para(tuple(inlines))] if inlines else []
        if tag == "pre":
            code = el[0] if len(el) == 1 and _tag(el[0]) == "code" and not (el.text or "").strip() else None
            lang = None
            if code is not None:
                for cls in (code.get("class") or "").split():
                    if cls.startswith("language-"):
                        lang = cls.removeprefix("language-")
            return [CodeBlock("".join((code if code is not None else el).itertext()), lang)]
        if tag in ("ul", "ol"):
            items: list[tuple[Block, ...]] = []
            for li in el:
                if _tag(li) == "#comment":
                    continue
                if _tag(li) != "li":
                    self.lose(f"<{_tag(li)}> inside a list")
                    continue
                items.append(tuple(self.blocks(li)))
            if tag == "ul":
                return [BulletList(tuple(items))]
            start = el.get("start", "1").strip()
            # ASCII digits only ("²".isdigit() holds, int("²") fails), and few of them: int()
            # refuses over 4,300 digits.
            ok = start.isascii() and start.isdigit() and len(start) <= 9
            return [OrderedList(tuple(items), int(start) if ok else 1)]
        if tag == "table":
            return [self.table(el)]
        # div, blockquote, headings: keep their content as blocks of their own
        self.lose(f"<{tag}>")
        return self.blocks(el)

    def table(self, el: etree._Element) -> Table:
        rows: list[list[tuple[Inline, ...]]] = []
        header: list[tuple[Inline, ...]] = []
        aligns: list[str | None] = []
        for tr in _rows(el):
            cells = [c for c in tr if _tag(c) in ("td", "th")]
            row = [tuple(_trim(_merge(self.inline_children(c)), self.collapse)) for c in cells]
            in_head = _tag(tr.getparent()) == "thead" or (
                not header and not rows and all(_tag(c) == "th" for c in cells)
            )
            if in_head and not header:
                header = row
                for c in cells:
                    align = None
                    for cls in (c.get("class") or "").split():
                        if cls.startswith("align-"):
                            align = cls.removeprefix("align-")
                    align = align or (c.get("align") or None)
                    aligns.append(align)
            else:
                rows.append(row)
        width = len(header) or max((len(r) for r in rows), default=0)
        if not header:
            header = [()] * width
            aligns = [None] * width
        fixed = [tuple(r[:width]) + ((),) * (width - len(r)) for r in rows]
        return Table(tuple(header), tuple(fixed), tuple(aligns))

    # ----------------------------------------------------------------- inlines

    def inline_children(self, el: etree._Element) -> list[Inline]:
        out = list(self.text(el.text))
        for child in el:
            tag = _tag(child)
            if tag in _BLOCK_TAGS:
                self.lose(f"<{tag}> inside a paragraph")
                out.append(Str(" "))
                out.extend(x for b in self.block(child, tag) for x in _inlines_of_block(b))
            else:
                out.extend(self.inline(child, tag))
            out.extend(self.text(child.tail))
        return out

    def inline(self, el: etree._Element, tag: str) -> list[Inline]:
        if tag == "#comment":  # a comment or processing instruction: nothing shows (its tail does)
            return []
        if tag in ("em", "i", "strong", "b"):
            # An empty `<b></b>` (Moodle's editor leaves them) shows nothing: no emphasis.
            styled = tuple(_merge(self.inline_children(el)))
            if not styled:
                return []
            return [Emph(styled) if tag in ("em", "i") else Strong(styled)]
        if tag in ("code", "tt", "kbd", "samp"):
            return [Code("".join(el.itertext()))]
        if tag == "br":
            return [LineBreak()]
        if tag == "a":
            href = el.get("href")
            children = tuple(_merge(self.inline_children(el)))
            if href and href.lower().startswith(("http://", "https://", "mailto:")):
                return [Link(href, children, el.get("title") or None)]
            self.lose("a link that is not http, https or mailto")
            return list(children)
        if tag == "img":
            src = el.get("src") or ""
            media = self.image(src) if self.image is not None else None
            alt = (el.get("alt") or "").strip()
            if media is None:
                self.lose(f"the image '{src[:60]}'")
                return [Str(alt)] if alt else []
            if not alt:
                self.lose("an image's missing alt text (the file name is used)")
                alt = media.name or "image"
            return [Image(media, alt, el.get("title") or None)]
        if tag == "math":
            return [self.mathml(el)]
        if tag in _DROPPED:
            self.lose(f"<{tag}>")
            return []
        if tag not in _TRANSPARENT:
            self.lose(f"<{tag}>")
        if TEX_IGNORE_CLASS in (el.get("class") or "").split():
            # Text a writer kept from MathJax (Flavour.protect_tex): its delimiters are text.
            self.literal += 1
            try:
                return self.inline_children(el)
            finally:
                self.literal -= 1
        return self.inline_children(el)

    def mathml(self, el: etree._Element) -> Inline:
        display = el.get("display") == "block"
        for ann in el.iter(f"{{{MATHML_NS}}}annotation", "annotation"):
            # application/x-tex (lmsexport, MathJax), TeX, LaTeX, text/x-latex, SnuggleTeX (QTIWorks)
            if "tex" in (ann.get("encoding") or "").lower():
                tex = (ann.text or "").strip()
                for left, right in (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")):
                    if len(tex) > len(left) + len(right) and tex.startswith(left) and tex.endswith(right):
                        tex = tex[len(left) : -len(right)].strip()
                        break
                return Math(tex, display)
        self.lose("MathML without a TeX annotation (its text is kept)")
        return Str(" ".join(el.itertext()))

    def text(self, text: str | None) -> list[Inline]:
        """Plain text, with MathJax-delimited TeX read as formulas."""
        if not text:
            return []
        if self.literal:
            return [Str(text)]
        out: list[Inline] = []
        at = 0
        for m in _MATH.finditer(text):
            if m.start() > at:
                out.append(Str(text[at : m.start()]))
            tex = (
                m.group(1) if m.group(1) is not None else m.group(2) if m.group(2) is not None else m.group(3)
            )
            out.append(Math(tex.strip(), m.group(1) is None))
            at = m.end()
        if at < len(text):
            out.append(Str(text[at:]))
        return out


def _rows(table: etree._Element) -> list[etree._Element]:
    """A table's own rows (under it or its thead/tbody/tfoot), not those of tables in its cells:
    taking every descendant row made each nested table read once per enclosing row, which is
    exponential in the nesting (30 nested tables in a GIFT text never finished reading)."""
    out = []
    for child in table:
        tag = _tag(child)
        if tag == "tr":
            out.append(child)
        elif tag in ("thead", "tbody", "tfoot"):
            out.extend(r for r in child if _tag(r) == "tr")
    return out


def _tag(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return "#comment"
    # Not etree.QName: the HTML parser makes elements of names XML refuses (`<p>down<hart]`
    # gives one named "hart]", found by fuzzing the GIFT reader), and QName raises on them.
    return (tag.rsplit("}", 1)[1] if tag.startswith("{") else tag).lower()


def _merge(inlines: list[Inline]) -> list[Inline]:
    out: list[Inline] = []
    for x in inlines:
        if isinstance(x, Str) and out and isinstance(out[-1], Str):
            out[-1] = Str(out[-1].text + x.text)
        elif not (isinstance(x, Str) and not x.text):
            out.append(x)
    return out


def _trim(inlines: list[Inline], collapse: bool) -> list[Inline]:
    """Foreign HTML: white space collapsed as a browser shows it, and trimmed at both ends."""
    if not collapse:
        return inlines
    out: list[Inline] = []
    for x in inlines:
        if isinstance(x, Str):
            x = Str(re.sub(r"\s+", " ", x.text))
        out.append(x)
    if out and isinstance(out[0], Str):
        out[0] = Str(out[0].text.lstrip())
    if out and isinstance(out[-1], Str):
        out[-1] = Str(out[-1].text.rstrip())
    out = [x for x in out if not (isinstance(x, Str) and not x.text)]
    while out and isinstance(out[-1], LineBreak):
        out.pop()  # a browser shows nothing for a <br> that ends a paragraph (editors leave them)
    return out


def _inlines_of_block(block: Block) -> list[Inline]:
    if isinstance(block, Para):
        return list(block.children)
    from ..model import plain_text

    return [Str(plain_text(Rich((block,))))]


def read_html(
    fragment: str, image: ImageResolver | None = None, foreign: bool = False
) -> tuple[Rich | None, list[str]]:
    """The Rich tree of an HTML fragment, and the names of what it could not keep.

    ``foreign``: HTML from another tool (collapse white space as a browser would); lmsexport's
    own HTML keeps its text exactly. None when the fragment holds nothing.
    """
    reader = _Reader(image, foreign)
    try:
        root = html.fragment_fromstring(fragment, create_parent="div")
    except etree.ParserError:
        return None, []
    blocks = reader.blocks(root)
    return (Rich(tuple(blocks)) if blocks else None), reader.lost


def read_element(
    parent: etree._Element, image: ImageResolver | None = None, foreign: bool = False
) -> tuple[Rich | None, list[str]]:
    """The Rich tree of an element's content (its text and children, which may be in any
    namespace: a QTI 2.1 item holds its XHTML in the QTI namespace), and what it could not keep.

    As read_html otherwise; the element itself (its tag and attributes) is not read.
    """
    reader = _Reader(image, foreign)
    blocks = reader.blocks(parent)
    return (Rich(tuple(blocks)) if blocks else None), reader.lost
