"""Compare TeX -> MathML converters on this bank's formulas (a script, not a test).

    python benchmarks/mathml_quality.py [--out DIR] [--node-modules DIR] [--only NAME,...]
                                        [--repeat N] [--no-browser]

For every converter that is installed and every formula in FORMULAS it records:

- converts: the converter returned MathML (not an exception, not an error node such as
  ``<merror>``, and not the TeX echoed back as an identifier, e.g. ``<mi>\\foo</mi>``);
- xml: the output parses as namespaced XML (HTML entities such as ``&ApplyFunction;`` do not);
- qti: a QTI 2.1 item holding the ``<math>`` in its itemBody validates against the bundled
  QTI 2.1 + MathML 2 schemas (lmsexport.validate.validate_tree, offline);
- structure: the expected MathML structure is there (EXPECT below: a fraction is an
  ``mfrac``, ``\\sum`` with limits is an ``munderover``/``msubsup`` around U+2211, ...);
- core: only MathML Core elements are used (what Chromium renders; ``mfenced``, ``menclose``
  and friends are ignored by it);
- chromium: headless Chromium renders the ``<math>`` with a non-zero box (one screenshot
  of the whole grid per converter under OUT, to look at);
- us: median microseconds per conversion over --repeat runs in a warm process (for the
  Node converters measured inside Node; pandoc is one process per formula);
- bad TeX: each of BAD is converted; the exception type and message are recorded and
  whether the message gives a position.

Candidates (install what you want compared; the missing ones are reported and skipped):
``pip install latex2mathml math-core ziamath mumath pypandoc-binary`` for Python, and
``npm install katex temml mathjax-full`` in a folder passed as --node-modules for Node.
pylatexenc (LaTeX -> Unicode text) and plasTeX (document renderer that leaves math to MathJax)
have no MathML output and are not candidates.

Results: a Markdown summary on stdout, per-formula details in OUT/mathml_quality.json and
screenshots OUT/mathml-<converter>.png; OUT defaults to benchmarks/out/mathml (git-ignored).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lmsexport.validate import validate_tree  # noqa: E402

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
QTI_NS = "http://www.imsglobal.org/xsd/imsqti_v2p1"

# (id, TeX, display). The bank's memory arithmetic first, then the constructs the issue lists.
FORMULAS: list[tuple[str, str, bool]] = [
    ("adam16", r"2\Psi + 2\Psi + 12\Psi = 16\Psi", False),
    ("zero_slash", r"(2+2+K)\Psi/N_d", False),
    ("zero_sum", r"2\Psi + 2\Psi + \frac{K\Psi}{N_d}", False),
    ("zero_frac", r"\frac{(2+2+K)\Psi}{N_d}", True),
    ("bubble", r"\frac{p-1}{m+p-1}", True),
    ("sum_display", r"\sum_{i=1}^{N} x_i", True),
    ("sum_inline", r"\sum_{i=1}^{N} x_i", False),
    ("sub", r"N_d", False),
    ("sup", r"x^{2}", False),
    ("psi_text", r"\Psi_{\text{params}}", False),
    ("greek", r"\alpha, \beta, \Psi, \Phi", False),
    ("ops", r"a \times b \cdot c \approx d \le e", False),
    ("units", r"16\Psi \approx 112\,\text{GB}", False),
    ("mathrm", r"\mathrm{FLOPs} = 6 N D", False),
    ("leftright", r"\left( \frac{a}{b} \right)^{2}", True),
    (
        "aligned",
        r"\begin{aligned} M &= 2\Psi + 2\Psi + 12\Psi \\ &= 16\Psi \end{aligned}",
        True,
    ),
    ("pmatrix", r"\begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}", True),
    ("sqrt", r"\sqrt{N_d} + \sqrt[3]{x}", False),
    ("operatorname", r"\operatorname{softmax}(z)_i", False),
    ("ceil", r"\left\lceil \frac{N}{B} \right\rceil", True),
    ("sci", r"1.5 \times 10^{9}", False),
    ("percent_braces", r"50\% \text{ of } \{1, 2\}", False),
    ("bold_hat", r"\mathbf{W}\hat{y} + \bar{x}", False),
    ("urdu_text", r"16\Psi\ \text{بائٹس}", False),
]

# Expected structure, as XPath over the <math> element (prefix m = MathML), per formula id.
EXPECT: dict[str, list[str]] = {
    "adam16": ["//m:mn[.='16']", "//m:mo[.='=']", "count(//m:mi[.='\u03a8'])=4"],
    "zero_slash": ["//m:msub[*[1]='N' and *[2]='d']", "//*[self::m:mi or self::m:mo][.='/']"],
    "zero_sum": ["//m:mfrac", "//m:mfrac//m:msub"],
    "zero_frac": ["//m:mfrac/*[1][contains(., 'K')]", "//m:mfrac/*[2]//self::m:msub"],
    "bubble": ["//m:mfrac", "//m:mfrac/*[2][contains(., 'm')]"],
    "sum_display": ["(//m:munderover|//m:msubsup)/*[1][normalize-space(.)='\u2211']"],
    "sum_inline": ["(//m:munderover|//m:msubsup)/*[1][normalize-space(.)='\u2211']"],
    "sub": ["//m:msub"],
    "sup": ["//m:msup[*[2]='2']"],
    "psi_text": ["//m:msub/*[2][self::m:mtext or .//m:mtext][contains(., 'params')]"],
    "greek": ["//*[.='\u03b1']", "//*[.='\u03b2']", "//*[.='\u03a8']", "//*[.='\u03a6']"],
    "ops": [
        "//m:mo[.='\u00d7']",
        "//m:mo[.='\u22c5' or .='\u00b7']",
        "//m:mo[.='\u2248']",
        "//m:mo[.='\u2264']",
    ],
    "units": ["//m:mtext[normalize-space(.)='GB']", "//m:mo[.='\u2248']"],
    # One token, or five upright letters (both render the same; one token reads better).
    "mathrm": ["//*[self::m:mi or self::m:mtext][.='FLOPs'] or count(//m:mi[@mathvariant='normal'])=5"],
    "leftright": ["//m:mo[.='('] | //m:mfenced", "//m:mfrac"],
    "aligned": ["//m:mtable", "count(//m:mtr)=2"],
    "pmatrix": ["//m:mtable", "count(//m:mtr)=2"],
    "sqrt": ["//m:msqrt", "//m:mroot"],
    "operatorname": ["//*[self::m:mi or self::m:mo][.='softmax']"],
    "ceil": ["//*[.='\u2308']", "//*[.='\u2309']", "//m:mfrac"],
    "sci": ["//m:mn[.='1.5']", "//m:msup[*[1]='10']"],
    "percent_braces": ["//*[.='%']", "//*[.='{']", "//*[.='}']"],
    "bold_hat": ["//m:mover", "//*[.='W' or .='\U0001d416']"],
    "urdu_text": ["//m:mtext[contains(., 'بائٹس')]"],
}

# Malformed TeX: a converter should raise, ideally naming the position.
BAD: list[tuple[str, str]] = [
    ("unclosed_group", r"a + \frac{1}{"),
    ("unknown_command", r"a + \foo{1}"),
    ("missing_right", r"\left( x"),
    ("dangling_sup", r"x^"),
    ("unclosed_env", r"\begin{aligned} a &= b"),
    ("extra_brace", r"a}"),
]

# MathML Core (https://www.w3.org/TR/mathml-core/): the elements Chromium lays out.
_CORE_NAMES = (
    "math annotation annotation-xml maction merror mfrac mi mmultiscripts mn mo mover mpadded "
    "mphantom mprescripts mroot mrow ms mspace msqrt mstyle msub msubsup msup mtable mtd mtext "
    "mtr munder munderover semantics none"
)
MATHML_CORE = frozenset(_CORE_NAMES.split())
# A position in an error message: "position 13" (KaTeX, Temml), "13: ..." (math-core's byte
# offset), a caret line under the TeX (pandoc).
MATH_FONTS = '"STIX Two Math","Cambria Math","Latin Modern Math","DejaVu Math TeX Gyre","Noto Sans Math",math'
_POSITION = re.compile(r"(position \d+|^LatexError: \d+:|\n\s*\^)")


@dataclass
class Converter:
    name: str
    version: str
    convert: Callable[[str, bool], str] | None = None  # None: converted in a batch (Node)
    note: str = ""


@dataclass
class Row:
    converter: str
    formula: str
    mathml: str = ""
    error: str = ""
    us: float | None = None
    converts: bool = False
    xml: bool = False
    qti: bool = False
    qti_errors: list[str] = field(default_factory=list)
    qti_annotated: bool = False
    structure: bool = False
    missing: list[str] = field(default_factory=list)
    non_core: list[str] = field(default_factory=list)
    chromium: bool | None = None
    box: tuple[float, float] | None = None


# --------------------------------------------------------------------------- converters


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


_NAMED = {"ApplyFunction": "&#x2061;", "InvisibleTimes": "&#x2062;"}
_NAMED_RE = re.compile(r"&(ApplyFunction|InvisibleTimes);")


def mathml2_fix(mathml: str) -> str:
    """math-core's output made MathML 2: its two HTML named entities become numeric references
    (XML knows neither), and ``scriptlevel``, which MathML 2 does not allow on ``mtable``, goes."""
    math = etree.fromstring(_NAMED_RE.sub(lambda m: _NAMED[m.group(1)], mathml).encode())
    for table in math.iter(f"{{{MATHML_NS}}}mtable"):
        table.attrib.pop("scriptlevel", None)
    return etree.tostring(math, encoding="unicode")


def python_converters() -> tuple[list[Converter], list[str]]:
    found: list[Converter] = []
    missing: list[str] = []
    try:
        from latex2mathml.converter import convert as l2m

        found.append(
            Converter(
                "latex2mathml",
                _version("latex2mathml"),
                lambda tex, display: l2m(tex, display="block" if display else "inline"),
            )
        )
    except ImportError:
        missing.append("latex2mathml")
    try:
        from math_core import LatexToMathML

        core = LatexToMathML(xml_namespace=True, fancy_error=False)
        found.append(
            Converter(
                "math-core",
                _version("math-core"),
                lambda tex, display: core.convert_with_local_state(tex, displaystyle=display),
            )
        )
        found.append(
            Converter(
                "math-core+fix",
                _version("math-core"),
                lambda tex, display: mathml2_fix(core.convert_with_local_state(tex, displaystyle=display)),
                "math-core plus the two-rule MathML 2 post-pass (mathml2_fix)",
            )
        )
    except ImportError:
        missing.append("math-core")
    try:
        from ziamath.tex import tex2mml

        found.append(
            Converter(
                "ziamath",
                _version("ziamath"),
                lambda tex, display: tex2mml(tex, inline=not display),
                "wraps latex2mathml with regex pre/post-processing",
            )
        )
    except ImportError:
        missing.append("ziamath")
    try:
        from mumath import MuMath

        mu = MuMath.from_area(None)
        found.append(
            Converter(
                "mumath",
                _version("mumath"),
                lambda tex, display: f'<math xmlns="{MATHML_NS}">{mu.convert(tex)}</math>',
                "LaTeX-like syntax of its own",
            )
        )
    except ImportError:
        missing.append("mumath")
    try:
        import pypandoc

        pandoc = pypandoc.get_pandoc_path()

        def via_pandoc(tex: str, display: bool) -> str:
            text = f"$${tex}$$" if display else f"${tex}$"
            done = subprocess.run(
                [pandoc, "-f", "markdown", "-t", "html", "--mathml"],
                input=text.encode(),
                capture_output=True,
                check=True,
            )
            out = done.stdout.decode()
            if "Could not convert TeX math" in done.stderr.decode():
                raise ValueError(done.stderr.decode().strip())
            found_math = re.search(r"<math.*</math>", out, re.DOTALL)
            if not found_math:
                raise ValueError(f"no <math> in pandoc output: {out.strip()}")
            return found_math.group(0)

        found.append(
            Converter(
                "pandoc",
                "pandoc " + pypandoc.get_pandoc_version(),
                via_pandoc,
                "texmath (Haskell, GPL-2) via the pypandoc-binary wheel; one process per call",
            )
        )
    except (ImportError, OSError):
        missing.append("pypandoc-binary")
    return found, missing


NODE_SCRIPT = r"""
const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = {};
function timeIt(fn, repeat) {
  const times = [];
  let result;
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    result = fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return [result, times[Math.floor(times.length / 2)]];
}
function run(name, version, convert) {
  const rows = {};
  for (const [id, tex, display] of input.formulas) {
    try {
      const [mml, us] = timeIt(() => convert(tex, display), input.repeat);
      rows[id] = {mathml: mml, us: us};
    } catch (e) {
      rows[id] = {error: String(e.message || e)};
    }
  }
  const bad = {};
  for (const [id, tex] of input.bad) {
    try { bad[id] = {mathml: convert(tex, false)}; }
    catch (e) { bad[id] = {error: (e.name || 'Error') + ': ' + String(e.message || e)
                             + (e.position !== undefined ? ' [position ' + e.position + ']' : '')}; }
  }
  out[name] = {version: version, rows: rows, bad: bad};
}
function pkgVersion(name) { return require(name + '/package.json').version; }
try {
  const katex = require('katex');
  run('katex', pkgVersion('katex'), (tex, display) => {
    const html = katex.renderToString(tex, {output: 'mathml', displayMode: display,
                                            throwOnError: true});
    return html.replace(/^<span class="katex">/, '').replace(/<\/span>$/, '');
  });
} catch (e) { if (e.code !== 'MODULE_NOT_FOUND') throw e; }
try {
  const temml = require('temml');
  run('temml', pkgVersion('temml'), (tex, display) =>
    temml.renderToString(tex, {displayMode: display, throwOnError: true, xml: true}));
} catch (e) { if (e.code !== 'MODULE_NOT_FOUND') throw e; }
try {
  const {mathjax} = require('mathjax-full/js/mathjax.js');
  const {TeX} = require('mathjax-full/js/input/tex.js');
  const {liteAdaptor} = require('mathjax-full/js/adaptors/liteAdaptor.js');
  const {RegisterHTMLHandler} = require('mathjax-full/js/handlers/html.js');
  const {AllPackages} = require('mathjax-full/js/input/tex/AllPackages.js');
  const {STATE} = require('mathjax-full/js/core/MathItem.js');
  const {SerializedMmlVisitor} = require('mathjax-full/js/core/MmlTree/SerializedMmlVisitor.js');
  RegisterHTMLHandler(liteAdaptor());
  const packages = AllPackages.filter(p => p !== 'bussproofs');  // needs an output jax
  const tex = new TeX({packages: packages, formatError: (jax, err) => { throw err; }});
  const doc = mathjax.document('', {InputJax: tex});
  const visitor = new SerializedMmlVisitor();
  run('mathjax', pkgVersion('mathjax-full'), (s, display) =>
    visitor.visitTree(doc.convert(s, {display: display, end: STATE.CONVERT}), doc));
} catch (e) { if (e.code !== 'MODULE_NOT_FOUND') throw e; }
process.stdout.write(JSON.stringify(out));
"""


def node_results(node_modules: str | None, repeat: int) -> dict[str, Any]:
    node = shutil.which("node")
    if not node or not node_modules:
        return {}
    payload = {"formulas": FORMULAS, "bad": BAD, "repeat": repeat}
    env = dict(os.environ, NODE_PATH=node_modules)
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as f:
        f.write(NODE_SCRIPT)
    try:
        done = subprocess.run(
            [node, f.name],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env=env,
            check=True,
        )
    finally:
        os.unlink(f.name)
    return json.loads(done.stdout)


# --------------------------------------------------------------------------- checks


def _qti_item(math: etree._Element) -> etree._Element:
    q = f"{{{QTI_NS}}}"
    item = etree.Element(
        q + "assessmentItem",
        identifier="mathml-probe",
        title="MathML probe",
        adaptive="false",
        timeDependent="false",
        nsmap={None: QTI_NS},
    )
    body = etree.SubElement(item, q + "itemBody")
    p = etree.SubElement(body, q + "p")
    p.text = "Memory: "
    p.append(math)
    return item


def check_row(row: Row, formula_id: str, tex: str) -> None:
    text = row.mathml
    row.converts = bool(text) and not row.error
    if not row.converts:
        return
    try:
        math = etree.fromstring(text.encode())
    except etree.XMLSyntaxError as e:
        row.error = f"not XML: {e}"
        return
    if math.tag != f"{{{MATHML_NS}}}math":
        row.error = f"root is {math.tag}, not MathML <math>"
        return
    row.xml = True
    echoed = [
        el
        for el in math.iter(etree.Element)
        if (el.text or "").startswith("\\") and etree.QName(el).localname != "annotation"
    ]
    if math.findall(f".//{{{MATHML_NS}}}merror") or echoed:
        row.converts = False
        row.error = "error node or TeX echoed back in the output"
    ns = {"m": MATHML_NS}
    row.missing = [x for x in EXPECT[formula_id] if not math.xpath(f"boolean({x})", namespaces=ns)]
    row.structure = not row.missing
    row.non_core = sorted({etree.QName(el).localname for el in math.iter(etree.Element)} - MATHML_CORE)
    diags = validate_tree(_qti_item(copy.deepcopy(math)), "item", formula_id)
    row.qti = not diags
    row.qti_errors = [d.message for d in diags]
    row.qti_annotated = not validate_tree(_qti_item(_annotated(math, tex)), "item", formula_id)


def _annotated(math: etree._Element, tex: str) -> etree._Element:
    """``math`` with the TeX kept as MathML 2 wants it: semantics(mrow, annotation)."""
    m = f"{{{MATHML_NS}}}"
    math = copy.deepcopy(math)
    if len(math) == 1 and etree.QName(math[0]).localname == "semantics":
        return math  # the converter already wrote one
    out = etree.Element(m + "math", dict(math.attrib), nsmap={None: MATHML_NS})
    sem = etree.SubElement(out, m + "semantics")
    mrow = etree.SubElement(sem, m + "mrow")
    mrow.extend(list(math))
    etree.SubElement(sem, m + "annotation", encoding="application/x-tex").text = tex
    return out


def run_python(conv: Converter, repeat: int) -> tuple[list[Row], dict[str, str]]:
    assert conv.convert is not None
    rows = []
    for fid, tex, display in FORMULAS:
        row = Row(conv.name, fid)
        try:
            row.mathml = conv.convert(tex, display)
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter_ns()
                conv.convert(tex, display)
                times.append((time.perf_counter_ns() - t0) / 1000)
            row.us = statistics.median(times)
        except Exception as e:  # noqa: BLE001 - any converter failure is a measurement
            row.error = f"{type(e).__name__}: {e}".strip()
        check_row(row, fid, tex)
        rows.append(row)
    bad = {}
    for bid, tex in BAD:
        try:
            bad[bid] = "NO ERROR: " + conv.convert(tex, False)
        except Exception as e:  # noqa: BLE001
            bad[bid] = f"{type(e).__name__}: {e}".strip()
    return rows, bad


# --------------------------------------------------------------------------- Chromium


def render(rows_by_conv: dict[str, list[Row]], out: Path) -> None:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    tex_of = {fid: tex for fid, tex, _ in FORMULAS}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 900, "height": 600})
        for name, rows in rows_by_conv.items():
            cells = []
            for i, row in enumerate(rows):
                body = row.mathml if row.xml else f'<b style="color:red">{row.error[:80]}</b>'
                tex = tex_of[row.formula].replace("&", "&amp;").replace("<", "&lt;")
                cells.append(
                    f'<tr><td class="id">{row.formula}</td><td class="tex"><code>{tex}</code>'
                    f'</td><td id="c{i}" class="out">{body}</td></tr>'
                )
            html = (
                '<!doctype html><html><head><meta charset="utf-8"><style>'
                "body{font:15px sans-serif;margin:8px} td{border-bottom:1px solid #ccc;"
                "padding:4px 8px} .tex{font-size:12px;max-width:380px} .out{font-size:20px}"
                # Stretchy delimiters and large operators need an OpenType MATH font; the
                # generic `math` family alone fell back to a text serif font here.
                f"math{{font-family:{MATH_FONTS}}}"
                f"</style></head><body><h3>{name}</h3><table>{''.join(cells)}</table>"
                "</body></html>"
            )
            page.set_content(html)
            for i, row in enumerate(rows):
                if not row.xml:
                    continue
                box = page.eval_on_selector(
                    f"#c{i} math",
                    "m => { const r = m.getBoundingClientRect(); return [r.width, r.height]; }",
                )
                row.box = (round(box[0], 1), round(box[1], 1))
                row.chromium = box[0] > 0 and box[1] > 0
            page.screenshot(path=str(out / f"mathml-{name}.png"), full_page=True)
        browser.close()


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "mathml")
    ap.add_argument("--node-modules", default=os.environ.get("NODE_PATH"))
    ap.add_argument("--only", default="", help="comma-separated converter names")
    ap.add_argument("--repeat", type=int, default=25)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    only = {s for s in args.only.split(",") if s}

    convs, missing = python_converters()
    rows_by_conv: dict[str, list[Row]] = {}
    bad_by_conv: dict[str, dict[str, str]] = {}
    versions: dict[str, str] = {}
    notes: dict[str, str] = {}
    for conv in convs:
        if only and conv.name not in only:
            continue
        repeat = 3 if conv.name == "pandoc" else args.repeat
        rows_by_conv[conv.name], bad_by_conv[conv.name] = run_python(conv, repeat)
        versions[conv.name], notes[conv.name] = conv.version, conv.note
    for name, res in node_results(args.node_modules, args.repeat).items():
        if only and name not in only:
            continue
        versions[name], notes[name] = res["version"], "Node.js; timed inside a warm Node process"
        rows = []
        for fid, tex, _ in FORMULAS:
            r = res["rows"][fid]
            row = Row(name, fid, mathml=r.get("mathml", ""), error=r.get("error", ""), us=r.get("us"))
            check_row(row, fid, tex)
            rows.append(row)
        rows_by_conv[name] = rows
        bad_by_conv[name] = {
            bid: v.get("error") or "NO ERROR: " + v.get("mathml", "") for bid, v in res["bad"].items()
        }
    if not args.no_browser:
        render(rows_by_conv, args.out)

    n = len(FORMULAS)
    print(f"{n} formulas; missing converters: {', '.join(missing) or 'none'}\n")
    print(
        "| converter | version | converts | XML | QTI 2.1+MathML 2 valid | + TeX annotation | "
        "structure | "
        "MathML Core only | Chromium box | median us | bad TeX raised (with position) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, rows in rows_by_conv.items():
        bad = bad_by_conv[name]
        raised = [v for v in bad.values() if not v.startswith("NO ERROR")]
        with_pos = [v for v in raised if _POSITION.search(v)]
        times = [r.us for r in rows if r.us is not None]
        chrome = "-" if args.no_browser else str(sum(bool(r.chromium) for r in rows))
        print(
            f"| {name} | {versions[name]} | {sum(r.converts for r in rows)}/{n} | "
            f"{sum(r.xml for r in rows)} | {sum(r.qti for r in rows)} | "
            f"{sum(r.qti_annotated for r in rows)} | "
            f"{sum(r.structure and r.converts for r in rows)} | "
            f"{sum(r.xml and not r.non_core for r in rows)} | {chrome} | "
            f"{statistics.median(times) if times else float('nan'):.0f} | "
            f"{len(raised)}/{len(BAD)} ({len(with_pos)}) |"
        )
    print("\nFailures (converter / formula: what):")
    for name, rows in rows_by_conv.items():
        for r in rows:
            problems = []
            if r.error:
                problems.append(r.error.splitlines()[0][:140])
            if r.xml and not r.qti:
                problems.append("QTI: " + "; ".join(e[:160] for e in r.qti_errors[:2]))
            if r.xml and r.missing:
                problems.append("structure: missing " + ", ".join(r.missing))
            if r.non_core:
                problems.append("non-Core: " + ",".join(r.non_core))
            if r.chromium is False:
                problems.append(f"Chromium box {r.box}")
            if problems:
                print(f"- {name} / {r.formula}: " + " | ".join(problems))
    print("\nBad TeX (converter / case: first line of the error):")
    for name, bad in bad_by_conv.items():
        for bid, v in bad.items():
            print(f"- {name} / {bid}: {v.splitlines()[0][:150] if v else '(empty message)'}")
    data = {
        "versions": versions,
        "notes": notes,
        "missing": missing,
        "rows": {k: [r.__dict__ for r in v] for k, v in rows_by_conv.items()},
        "bad": bad_by_conv,
    }
    (args.out / "mathml_quality.json").write_text(json.dumps(data, indent=1, ensure_ascii=False))
    print(f"\ndetails: {args.out / 'mathml_quality.json'}; screenshots: {args.out}/mathml-*.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
