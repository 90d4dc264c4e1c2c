"""TeX -> presentation MathML, the one converter every writer uses (see README, "Libraries").

The converter is math-core (Rust, MIT; chosen by measurement in docs/research/rich-text.md:
24 of 24 real formulas converted and, after the post-pass below, valid MathML 2; 3-15 us a
formula; the only Python option that refuses every malformed formula, with its position).
Its output is made MathML 2 (what QTI 2.1 allows) by two rules: the HTML named entities it may
write (`&ApplyFunction;`, `&InvisibleTimes;`) become numeric references, and `scriptlevel`,
which MathML 2 does not allow on `mtable`, goes. The result is wrapped as

    <math display="inline|block"><semantics><mrow>...</mrow>
      <annotation encoding="application/x-tex">TeX</annotation></semantics></math>

which is valid inside QTI 2.1 items against the bundled schema, rendered natively by Chromium
(MathML Core), and keeps the author's TeX for screen readers, copy and paste, and any tool
that prefers TeX. Conversions are cached: a bank repeats its formulas.
"""

from __future__ import annotations

import functools
import re

from lxml import etree

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
TEX_ENCODING = "application/x-tex"
_NAMED = {"ApplyFunction": "&#x2061;", "InvisibleTimes": "&#x2062;"}
_NAMED_RE = re.compile(r"&(ApplyFunction|InvisibleTimes);")
_ERROR_RE = re.compile(r"^(\d+): (.*)$", re.S)


class TexError(ValueError):
    """TeX the converter cannot turn into MathML: what, and where in the formula."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.offset = offset
        """0-based character offset in the TeX where the problem was found."""


def to_mathml(tex: str, display: bool = False) -> etree._Element:
    """A new <math> element for a formula (callers may attach it anywhere). Raises TexError."""
    return etree.fromstring(_convert(tex, display))


def tex_error(tex: str) -> TexError | None:
    """Why a formula cannot be converted, or None when it can."""
    try:
        _convert(tex, False)
    except TexError as e:
        return e
    return None


@functools.cache
def _converter():  # type: ignore[no-untyped-def]
    from math_core import LatexToMathML

    return LatexToMathML(xml_namespace=True, fancy_error=False)


@functools.lru_cache(maxsize=8192)
def _convert(tex: str, display: bool) -> bytes:
    if not tex.strip():
        raise TexError("the formula is empty")
    try:
        raw = _converter().convert_with_local_state(tex, displaystyle=display)
    except Exception as e:  # math_core.LatexError: "<byte offset>: <message>"
        m = _ERROR_RE.match(str(e))
        if m is None:
            raise TexError(str(e) or type(e).__name__) from None
        offset = len(tex.encode("utf-8")[: int(m.group(1))].decode("utf-8", "ignore"))
        message = m.group(2).rstrip(".")
        raise TexError(message[:1].lower() + message[1:], offset) from None
    converted = etree.fromstring(_NAMED_RE.sub(lambda m: _NAMED[m.group(1)], raw).encode("utf-8"))
    for table in converted.iter(f"{{{MATHML_NS}}}mtable"):
        table.attrib.pop("scriptlevel", None)
    math = etree.Element(f"{{{MATHML_NS}}}math", nsmap={None: MATHML_NS})
    math.set("display", "block" if display else "inline")
    semantics = etree.SubElement(math, f"{{{MATHML_NS}}}semantics")
    row = etree.SubElement(semantics, f"{{{MATHML_NS}}}mrow")
    row.text = converted.text
    row.extend(list(converted))
    annotation = etree.SubElement(semantics, f"{{{MATHML_NS}}}annotation", encoding=TEX_ENCODING)
    annotation.text = tex
    return etree.tostring(math)
