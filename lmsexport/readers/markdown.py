"""Markdown (CommonMark + GFM tables + $TeX$) -> the model's Rich tree, strictly.

Used by the YAML loader for files with `markup: markdown`. Parsing is markdown-it-py's
CommonMark parser with its GFM table rule and mdit-py-plugins' dollarmath (`$...$` inline,
`$$...$$` display). Everything the writers cannot carry is refused here with the position of
the offending text in the YAML file, never dropped or passed through:

* raw HTML (inline or block): refused; write Markdown instead;
* links other than http, https and mailto (javascript:, data:, file:, relative links);
* images without alt text, or whose file is missing, outside the bank folder or unsafe
  (lmsexport.media sniffs and checks the bytes);
* headings, block quotes, thematic breaks: a question text is not a document;
* TeX the MathML converter cannot take.

Positions: markdown-it gives block lines but no inline columns, and a YAML scalar's text is
not the file's text (quotes, folding, indentation). So a problem is located by finding the
offending source text (the raw HTML tag, the link target...) in the file from the scalar's
start; when it cannot be found it is reported at the scalar.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..model import (
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

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

    from ..model import Block, SourceLoc

LINK_SCHEMES = ("http://", "https://", "mailto:")
"""The only link targets a text may have: a quiz is opened in an LMS and must not run or read files."""

_REFUSED_BLOCKS = {
    "heading_open": ("a heading", "use **bold** text for emphasis: a question is not a document"),
    "blockquote_open": ("a block quote", "remove the '>' or quote the text inline"),
    "hr": ("a thematic break (---)", "remove the line of dashes, or escape it as \\---"),
}


GAP_RE = re.compile(r"\[\[(\d{1,4})\]\]")
"""A cloze blank's marker: `[[n]]`, n from 1 (`\\[[` is a literal `[[`: Markdown's own escape)."""


def _gap_rule(state: Any, silent: bool) -> bool:
    """markdown-it inline rule: `[[n]]` -> a `gap` token (n in meta), before links are tried.
    An escaped `\\[` never reaches it: the escape rule has already turned it into text."""
    pos = state.pos
    if not state.src.startswith("[[", pos):
        return False
    m = GAP_RE.match(state.src, pos)
    if m is None:
        return False
    if not silent:
        token = state.push("gap", "", 0)
        token.meta = {"n": int(m.group(1))}
        token.markup = m.group(0)
    state.pos = m.end()
    return True


@functools.cache
def parser(gaps: bool = False) -> MarkdownIt:
    """CommonMark + GFM tables + $math$, with raw HTML recognised (so that it can be refused);
    with ``gaps`` (a cloze stem), `[[n]]` is blank n's marker."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": True})
    md.enable("table")
    # allow_space/allow_digits off: "costs $5 and $6" is money, not a formula (pandoc's rule: no
    # space inside the dollars, no digit right after the closing one).
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False, allow_labels=False, double_inline=True)
    # Keep every link as a link token so its scheme is checked (and refused) here, with a
    # position; markdown-it would otherwise quietly turn a javascript: link into text.
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    if gaps:
        md.inline.ruler.before("link", "gap", _gap_rule)
    return md


class _Reader:
    def __init__(self, ctx: Any, node: Any, what: str, text: str) -> None:
        self.ctx = ctx
        self.node = node
        self.what = what
        self.lines = text.splitlines()
        self.ok = True
        self.in_link = False

    def source_line(self, t: Token) -> str | None:
        """The first line of a block token's Markdown source (what to look for in the file)."""
        if t.map is None or t.map[0] >= len(self.lines):
            return None
        return self.lines[t.map[0]].strip()[:40] or None

    def error(self, needle: str | None, message: str, rule: str, hint: str | None = None) -> None:
        self.ok = False
        self.ctx.error(self.loc(needle), f"{self.what}: {message}", rule, hint)

    def loc(self, needle: str | None) -> SourceLoc:
        return self.ctx.locate(self.node, needle)

    def src_loc(self, src: str) -> SourceLoc:
        """Where an image's path is written: found as `](path`, then past the `](`."""
        if not src:
            return self.node.loc
        loc = self.ctx.locate(self.node, f"]({src}")
        return replace(loc, col=loc.col + 2) if loc != self.node.loc else loc

    # ----------------------------------------------------------------- blocks

    def blocks(self, tokens: list[Token], i: int, end: str | None) -> tuple[list[Block], int]:
        out: list[Block] = []
        while i < len(tokens):
            t = tokens[i]
            if end is not None and t.type == end:
                return out, i + 1
            if t.type == "paragraph_open":
                out.append(Para(self.inlines(tokens[i + 1].children or [])))
                i += 3
            elif t.type in ("fence", "code_block"):
                lang = t.info.strip().split()[0] if t.info.strip() else None
                out.append(CodeBlock(t.content.removesuffix("\n"), lang))
                i += 1
            elif t.type == "math_block":
                out.append(Para((self.math(t.content.strip(), True),)))
                i += 1
            elif t.type in ("bullet_list_open", "ordered_list_open"):
                items, i = self.list_items(tokens, i + 1, t.type.replace("_open", "_close"))
                if t.type == "bullet_list_open":
                    out.append(BulletList(items))
                else:
                    start = int(t.attrs.get("start", 1) or 1)
                    out.append(OrderedList(items, start))
            elif t.type == "table_open":
                table, i = self.table(tokens, i + 1)
                out.append(table)
            elif t.type == "html_block":
                self.html(t.content, self.source_line(t))
                i += 1
            elif t.type in _REFUSED_BLOCKS:
                name, hint = _REFUSED_BLOCKS[t.type]
                self.error(
                    self.source_line(t),
                    f"{name} cannot be carried by every format",
                    "markup.unsupported",
                    hint,
                )
                i = self._skip(tokens, i)
            else:
                self.error(self.source_line(t), f"unexpected Markdown ({t.type})", "markup.unsupported")
                i = self._skip(tokens, i)
        return out, i

    def _skip(self, tokens: list[Token], i: int) -> int:
        """Past a refused block (to its matching close when it has one)."""
        t = tokens[i]
        if t.nesting != 1:
            return i + 1
        depth = 0
        while i < len(tokens):
            depth += tokens[i].nesting
            i += 1
            if depth == 0:
                break
        return i

    def list_items(
        self, tokens: list[Token], i: int, close: str
    ) -> tuple[tuple[tuple[Block, ...], ...], int]:
        items: list[tuple[Block, ...]] = []
        while tokens[i].type != close:
            assert tokens[i].type == "list_item_open"
            blocks, i = self.blocks(tokens, i + 1, "list_item_close")
            items.append(tuple(blocks))
        return tuple(items), i + 1

    def table(self, tokens: list[Token], i: int) -> tuple[Table, int]:
        header: list[tuple[Inline, ...]] = []
        rows: list[tuple[tuple[Inline, ...], ...]] = []
        aligns: list[str | None] = []
        row: list[tuple[Inline, ...]] = []
        in_head = False
        while tokens[i].type != "table_close":
            t = tokens[i]
            if t.type == "thead_open":
                in_head = True
            elif t.type == "thead_close":
                in_head = False
            elif t.type == "tr_open":
                row = []
            elif t.type == "tr_close":
                if in_head:
                    header = row
                else:
                    rows.append(tuple(row))
            elif t.type in ("th_open", "td_open"):
                if in_head:
                    style = str(t.attrs.get("style", ""))
                    aligns.append(style.removeprefix("text-align:") or None)
                row.append(self.inlines(tokens[i + 1].children or []))
                i += 2
            i += 1
        width = len(header)
        rows = [r + ((),) * (width - len(r)) for r in rows]
        return Table(tuple(header), tuple(rows), tuple(aligns)), i + 1

    # ----------------------------------------------------------------- inlines

    def inlines(self, tokens: list[Token]) -> tuple[Inline, ...]:
        out, _ = self._inlines(tokens, 0, None)
        return tuple(out)

    def _inlines(self, tokens: list[Token], i: int, close: str | None) -> tuple[list[Inline], int]:
        out: list[Inline] = []

        def text(s: str) -> None:
            if out and isinstance(out[-1], Str):
                out[-1] = Str(out[-1].text + s)
            elif s:
                out.append(Str(s))

        while i < len(tokens):
            t = tokens[i]
            kind = t.type
            if close is not None and kind == close:
                return out, i + 1
            if kind == "text":
                text(t.content)
            elif kind == "softbreak":
                text(" ")
            elif kind == "hardbreak":
                out.append(LineBreak())
            elif kind == "code_inline":
                out.append(Code(t.content))
            elif kind in ("em_open", "strong_open"):
                children, i = self._inlines(tokens, i + 1, kind.replace("_open", "_close"))
                out.append((Emph if kind == "em_open" else Strong)(tuple(children)))
                continue
            elif kind == "gap":
                if self.in_link:
                    self.error(
                        t.markup,
                        f"blank marker {t.markup} sits inside a link",
                        "source.cloze-marker-in-link",
                        hint="move the marker out of the link's text: a learner cannot type into a link",
                    )
                else:
                    out.append(Gap(t.meta["n"]))
            elif kind == "link_open":
                href = str(t.attrs.get("href", ""))
                self.in_link = True
                try:
                    children, i = self._inlines(tokens, i + 1, "link_close")
                finally:
                    self.in_link = False
                if self.link_ok(href):
                    title = t.attrs.get("title")
                    out.append(Link(href, tuple(children), str(title) if title else None))
                continue
            elif kind == "image":
                image = self.image(t)
                if image is not None:
                    out.append(image)
            elif kind in ("math_inline", "math_inline_double"):
                out.append(self.math(t.content.strip(), kind == "math_inline_double"))
            elif kind == "html_inline":
                self.html(t.content)
            else:
                self.error(t.markup or None, f"unexpected Markdown ({kind})", "markup.unsupported")
            i += 1
        return out, i

    def html(self, raw: str, needle: str | None = None) -> None:
        first = raw.strip().splitlines()[0] if raw.strip() else raw
        self.error(
            needle or first[:40],
            f"raw HTML ({_short(first)}) is not allowed",
            "markup.raw-html",
            hint="write Markdown instead (*em*, **strong**, `code`); "
            "to show the characters, escape the '<' as \\<",
        )

    def link_ok(self, href: str) -> bool:
        if href.lower().startswith(LINK_SCHEMES):
            return True
        self.error(
            href or None,
            f"link target '{_short(href)}' is not allowed",
            "markup.bad-link",
            hint="links must start with http://, https:// or mailto: "
            "(a quiz must not run code or open local files)",
        )
        return False

    def image(self, t: Token) -> Image | None:
        src = str(t.attrs.get("src", ""))
        alt = t.content.strip()
        if not alt:
            self.ok = False
            self.ctx.error(
                self.src_loc(src),
                f"{self.what}: image '{_short(src)}' has no alt text",
                "markup.image-alt",
                hint="write what the image shows between the brackets: ![1F1B schedule of 4 stages](img.svg)",
            )
            return None
        media = self.ctx.media(self.src_loc(src), src, self.what)
        if media is None:
            self.ok = False
            return None
        title = t.attrs.get("title")
        return Image(media, alt, str(title) if title else None)

    def math(self, tex: str, display: bool) -> Math:
        from ..mathml import tex_error

        problem = tex_error(tex)
        if problem is not None:
            self.ok = False
            loc = self.loc(tex[:40] or None)
            before = tex[: problem.offset]
            if loc != self.node.loc and "\n" not in before:
                loc = replace(loc, col=loc.col + len(before))
            self.ctx.error(loc, f"{self.what}: formula ${_short(tex)}$: {problem}", "markup.bad-tex")
        return Math(tex, display)


def _short(text: str, n: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def read_markdown(ctx: Any, node: Any, text: str, what: str, gaps: bool = False) -> Rich | None:
    """The Rich tree of a Markdown text from a YAML scalar; None (problems reported) if refused.

    ``ctx`` is the loader's context: it reports (``error``), locates a needle from the scalar
    ``node`` on (``locate``) and reads image files (``media``). With ``gaps`` (a cloze stem),
    each `[[n]]` is read as `Gap(n)`; elsewhere `[[n]]` is text.
    """
    reader = _Reader(ctx, node, what, text)
    blocks, _ = reader.blocks(parser(gaps).parse(text), 0, None)
    if not reader.ok:
        return None
    if not blocks:
        ctx.error(node, f"{what} is empty once read as Markdown", "source.empty-text")
        return None
    return Rich(tuple(blocks))
