"""TeX -> presentation MathML, the one converter every writer uses (see README, "Libraries").

The converter is latex2mathml (pure Python, no network, MIT). Its output is wrapped as

    <math display="inline|block"><semantics><mrow>...</mrow>
      <annotation encoding="application/x-tex">TeX</annotation></semantics></math>

which is MathML 2 (valid inside QTI 2.1 items against the bundled schema) and MathML Core
(rendered natively by Chromium), and keeps the author's TeX for screen readers, copy and
paste, and any tool that prefers TeX. Conversions are cached: a bank repeats its formulas.
"""

from __future__ import annotations

import functools

from lxml import etree

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
TEX_ENCODING = "application/x-tex"


_ARITY = {
    "mfrac": 2,
    "msub": 2,
    "msup": 2,
    "msubsup": 3,
    "mroot": 2,
    "munder": 2,
    "mover": 2,
    "munderover": 3,
}
"""MathML elements with a fixed number of children: a converter that lets `\frac{1}` through
writes an <mfrac> with one, which no schema or browser accepts."""
_COMMANDS = {"mfrac": "\\frac", "mroot": "\\sqrt[n]", "msub": "a subscript (_)", "msup": "a superscript (^)"}


class TexError(ValueError):
    """TeX the converter cannot turn into MathML; the message says what."""


def to_mathml(tex: str, display: bool = False) -> etree._Element:
    """A new <math> element for a formula (callers may attach it anywhere). Raises TexError."""
    return etree.fromstring(_convert(tex, display))


def tex_error(tex: str) -> str | None:
    """Why a formula cannot be converted, or None when it can."""
    try:
        _convert(tex, False)
    except TexError as e:
        return str(e)
    return None


@functools.lru_cache(maxsize=8192)
def _convert(tex: str, display: bool) -> bytes:
    from latex2mathml.converter import convert

    if not tex.strip():
        raise TexError("the formula is empty")
    try:
        converted = etree.fromstring(convert(tex, display="block" if display else "inline"))
    except TexError:
        raise
    except Exception as e:  # latex2mathml raises its own exception classes, and plain ones on odd input
        raise TexError(_describe(e)) from None
    for el in converted.iter():
        text = (el.text or "").strip()
        if text.startswith("\\") and len(text) > 1:
            raise TexError(f"unknown TeX command {text}")
        local = etree.QName(el).localname
        if local in _ARITY and len(el) != _ARITY[local]:
            raise TexError(f"{_COMMANDS.get(local, local)} needs {_ARITY[local]} arguments, not {len(el)}")
    math = etree.Element(f"{{{MATHML_NS}}}math", nsmap={None: MATHML_NS})
    math.set("display", "block" if display else "inline")
    semantics = etree.SubElement(math, f"{{{MATHML_NS}}}semantics")
    row = etree.SubElement(semantics, f"{{{MATHML_NS}}}mrow")
    for child in list(converted):
        # latex2mathml wraps everything in one <mrow>; unwrap it so that rows do not nest twice.
        if child.tag == f"{{{MATHML_NS}}}mrow" and len(converted) == 1:
            row.text = child.text
            row.extend(list(child))
        else:
            row.append(child)
    annotation = etree.SubElement(semantics, f"{{{MATHML_NS}}}annotation", encoding=TEX_ENCODING)
    annotation.text = tex
    return etree.tostring(math)


def _describe(e: Exception) -> str:
    name = type(e).__name__
    detail = str(e).strip()
    known = {
        "NoAvailableTokensError": "the formula ends too early (a missing argument or closing brace?)",
        "MissingSuperScriptOrSubscriptError": "a ^ or _ has nothing to attach to",
        "DoubleSuperscriptsError": "double superscript: write x^{a}^{b} as x^{ab} or {x^a}^b",
        "DoubleSubscriptsError": "double subscript: write x_a_b as x_{ab} or {x_a}_b",
        "MissingEndError": "a \\begin{...} has no \\end{...}",
        "InvalidStyleForGenfracError": "bad style argument to \\genfrac",
        "InvalidWidthError": "bad width",
        "InvalidAlignmentError": "bad column alignment",
        "ExtraLeftOrMissingRightError": "a \\left has no matching \\right",
        "MissingRightError": "a \\left has no matching \\right",
    }
    if name in known:
        return known[name]
    return f"cannot convert the formula ({name}{': ' + detail if detail else ''})"
