"""Probes behind docs/research/rich-text.md, questions 4-6 (a script, not a test).

    python benchmarks/rich_text_probes.py

Needs ``pip install mdit-py-plugins imagesize pillow`` (Pillow only makes the sample images).
Prints what each library does on the inputs the research is about: markdown-it-py's math,
table, raw-HTML and link tokens and where their positions come from; YAML scalar styles and
marks; imagesize on good and bad bytes; a lxml-based SVG safety check; Pygments' classes.
"""

from __future__ import annotations

import io
import re

import yaml
from lxml import etree


def markdown() -> None:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = (
        MarkdownIt("commonmark", {"html": True})  # html on: raw HTML becomes tokens we can refuse
        .enable("table")
        .use(dollarmath_plugin, allow_space=False, allow_digits=False, allow_labels=False, double_inline=True)
    )
    print("== dollarmath (allow_space=False, allow_digits=False, double_inline=True)")
    for s in ["price $5 and $6.", "a $x$ b", "a $ x $ b", "cost $10, $x^2$", "escaped \\$5", "$a$b", "$x$2"]:
        print(f"  {s!r:22} -> {[(t.type, t.content) for t in md.parseInline(s)[0].children or []]}")
    src = (
        "Per GPU: $\\frac{(2+2+K)\\Psi}{N_d}$\n\n$$\n16\\Psi\n$$\n\n"
        "| a | b |\n|---|---|\n| $x$ | <b>x</b> |\n"
    )
    print("== block tokens carry .map (0-based [first line, line after]); inline children do not")
    for t in md.parse(src):
        kids = [(c.type, c.content) for c in t.children or [] if c.type != "text"]
        if t.map is not None or kids:
            print(f"  {t.type:14} map={t.map} {kids if kids else ''}")
    print("== validateLink (default refuses javascript:, keeps data:image/png, refuses data:image/svg+xml)")
    for url in ["javascript:alert(1)", "data:image/png;base64,AA", "data:image/svg+xml;base64,AA", "a.png"]:
        print(f"  {url!r:34} {md.validateLink(url)}")


def yaml_positions() -> None:
    doc = 'q:\n  text: |\n    First $x$\n    <b>bad</b>\n  other: "plain $y$\n    folded <i>x</i>"\n'
    print("== YAML scalar events: style, start mark (0-based), value")
    loader = yaml.CSafeLoader(doc)
    try:
        while loader.check_event():
            ev = loader.get_event()
            if isinstance(ev, yaml.ScalarEvent) and ev.style:
                m, e = ev.start_mark, ev.end_mark
                print(
                    f"  style={ev.style!r} start={m.line}:{m.column} index={m.index}..{e.index} {ev.value!r}"
                )
    finally:
        loader.dispose()


def images() -> None:
    import imagesize
    from PIL import Image

    print("== imagesize.get(BytesIO) (bytes are taken as a path: always wrap in BytesIO)")
    for fmt in ["PNG", "JPEG", "GIF", "WEBP"]:
        buf = io.BytesIO()
        Image.new("RGB", (123, 45)).save(buf, fmt)
        data = buf.getvalue()
        print(
            f"  {fmt:5} {imagesize.get(io.BytesIO(data))}  truncated: {imagesize.get(io.BytesIO(data[:12]))}"
        )
    print(f"  bytes-as-path: {imagesize.get(b'x')}, text: {imagesize.get(io.BytesIO(b'hello'))}")


SVG_NS = "http://www.w3.org/2000/svg"
XLINK = "{http://www.w3.org/1999/xlink}href"
_URL = re.compile(r"url\(\s*['\"]?\s*([^)'\"\s]*)", re.IGNORECASE)


def svg_problems(data: bytes) -> list[str]:
    """A refusing checker (not a cleaner): every reason, with the line, that the SVG is unsafe."""
    if re.search(rb"<!DOCTYPE|<!ENTITY", data, re.IGNORECASE):
        return ["1: a DOCTYPE or ENTITY declaration"]
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        return [f"{e.lineno}: not well-formed XML: {e.msg}"]
    out = []
    if root.tag != f"{{{SVG_NS}}}svg":
        out.append(f"{root.sourceline}: the root is {root.tag}, not svg")
    for el in root.iter():
        if not isinstance(el.tag, str):
            if isinstance(el, etree._ProcessingInstruction):
                out.append(f"{el.sourceline}: processing instruction")
            continue
        name = etree.QName(el)
        if name.namespace != SVG_NS:
            out.append(f"{el.sourceline}: element {el.tag} outside the SVG namespace")
        if name.localname in {"script", "foreignObject", "iframe", "embed", "object", "handler"}:
            out.append(f"{el.sourceline}: <{name.localname}>")
        for attr, value in el.attrib.items():
            local = etree.QName(attr).localname
            if local.lower().startswith("on"):
                out.append(f"{el.sourceline}: event attribute {local}")
            if (attr == XLINK or local == "href") and not value.strip().startswith("#"):
                out.append(f"{el.sourceline}: {local}={value!r} points outside the image")
            for ref in _URL.findall(value):
                if not ref.startswith("#"):
                    out.append(f"{el.sourceline}: url({ref}) in {local}")
        if name.localname == "style":
            text = el.text or ""
            if "@import" in text.lower() or any(not r.startswith("#") for r in _URL.findall(text)):
                out.append(f"{el.sourceline}: <style> imports or loads external resources")
    return out


def svg() -> None:
    evil = b"""<svg xmlns="http://www.w3.org/2000/svg"
 xmlns:xlink="http://www.w3.org/1999/xlink" onload="a()">
<script>alert(2)</script>
<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
<a href="javascript:alert(3)"><rect width="5" height="5" style="fill:url(http://evil/x)"/></a>
<use xlink:href="http://evil/#x"/><circle r="2" fill="url(#g)"/>
<style>@import url(http://evil/s.css);</style>
</svg>"""
    good = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle r="2" fill="url(#g)"/></svg>'
    print("== SVG check")
    for p in svg_problems(evil):
        print("  evil:", p)
    print("  good:", svg_problems(good) or "no problems")
    print("  billion laughs:", svg_problems(b'<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg/>'))


def pygments() -> None:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name

    f = HtmlFormatter(nowrap=True, classprefix="tok-")
    print("== Pygments", __import__("pygments").__version__)
    print(" ", highlight("x = (2 + 2 + k) * psi  # bytes\n", get_lexer_by_name("python"), f).strip())
    rules = HtmlFormatter(classprefix="tok-").get_token_style_defs(".code")
    print(f"  get_token_style_defs('.code'): {len(rules)} rules, first: {rules[0]!r}")


if __name__ == "__main__":
    markdown()
    yaml_positions()
    images()
    svg()
    pygments()
