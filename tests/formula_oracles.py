"""Independent models of how Moodle and Canvas evaluate a stored formula (test oracles).

Nothing here imports lmsexport: each oracle reads the TEXT a writer stores and evaluates it the
way the target's own code does, so a translation bug in lmsexport.formula shows up as a
different number.

moodle_evaluate: moodle/moodle question/type/calculated/questiontype.php:
  substitute_variables() replaces `{name}` by the dataset item's value, wrapped as `(value)`
  when value <= 0 (MDL-36025); qtype_calculated_find_formula_errors() (ported below, run on the
  raw and on the substituted formula) whitelists the functions; then PHP `eval('$str = ' .
  $formula . ';')`. The PHP expression subset is parsed with PHP's precedence: `**` (right-
  associative) above unary minus above `* / %` above `+ -`, so `-2 ** 2` is -4. PHP 8 throws
  DivisionByZeroError for `/ 0`; math functions return NAN / INF instead of failing (sqrt(-1),
  log(0)); `log` is natural (optional base), `round` rounds halves away from zero
  (php_round_helper: value >= 0 ? floor(value + 0.5) : ceil(value - 0.5), PHP <= 8.3).

canvas_evaluate: instructure/canvas-lms public/javascripts/calcCmd.js (the quiz editor's
  calculator; the server never evaluates a formula). A port of its tokenizer (regexes in its
  order: whitespace, variable [a-zA-Z][a-zA-Z0-9_.]*, number [0-9]*\\.?[0-9]+, + - * / ( ) , ^ =),
  of parseArgument/parseModifier/parseExpression (a flat list: value op value op ...; a `-`
  directly before a number or a variable is glued to it as a sign; anything else after `-` is
  "expecting a number"), and of computeExpression's three rounds (every `^` left to right, so
  `2^3^2` = 64; then * /; then + -). JavaScript numbers: x/0 is Infinity or NaN, Math.* never
  throws. Predefined pi and e; methods as registered there (log(x, base=10), ln, e(x)=exp(x||1),
  round = Math.round, if(c, a, b), min/max of any count, ...).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

# =========================================================================== Moodle / PHP


class MoodleFormulaError(Exception):
    """qtype_calculated_find_formula_errors() returns an error, or PHP's eval fails."""


_PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9\-_\s]*)\}")  # PLACEHODLER_REGEX
_SAFE = r"\-+/*%>:\\~<?=!"
_OPNUM = rf"[{_SAFE}.0-9eE]"
_CALL = re.compile(rf"(^|[{_SAFE},(])([a-z0-9_]*)\(({_OPNUM}+(,{_OPNUM}+((,{_OPNUM}+)+)?)?)?\)")

_ONE_ARG = {
    *("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bindec", "ceil", "cos", "cosh"),
    *("decbin", "decoct", "deg2rad", "exp", "expm1", "floor", "is_finite", "is_infinite", "is_nan"),
    *("log10", "log1p", "octdec", "rad2deg", "sin", "sinh", "sqrt", "tan", "tanh"),
}


def moodle_find_formula_errors(formula: str) -> str | None:
    """Port of qtype_calculated_find_formula_errors (Moodle 4.x); None when the formula passes."""
    for start in ("//", "/*", "#", "<?", "?>"):
        if start in formula:
            return f"illegalformulasyntax {start}"
    formula = _PLACEHOLDER.sub("1.0", formula)
    formula = formula.replace(" ", "").lower()
    while m := _CALL.search(formula):
        g = [m.group(i) for i in range(6)]
        name, a3, a4, a5 = g[2], g[3], g[4], g[5]
        if name == "":
            if a4 or not a3:
                return f"illegalformulasyntax {g[0]}"
        elif name == "pi":
            if a3 is not None:
                return "functiontakesnoargs pi"
        elif name in _ONE_ARG:
            if a4 or not a3:
                return f"functiontakesonearg {name}"
        elif name in ("log", "round"):
            if a5 or not a3:
                return f"functiontakesoneortwoargs {name}"
        elif name in ("atan2", "fmod", "pow"):
            if a5 or not a4:
                return f"functiontakestwoargs {name}"
        elif name in ("min", "max"):
            if not a4:
                return f"functiontakesatleasttwo {name}"
        else:
            return f"unsupportedformulafunction {name}"
        if g[1]:
            formula = formula.replace(g[0], g[1] + "1.0")
        else:
            formula = re.sub("^" + re.escape(name) + r"\([^)]*\)", "1.0", formula, count=1)
    if bad := re.search(rf"[^{_SAFE}.0-9eE]+", formula):
        return f"illegalformulasyntax {bad.group(0)}"
    return None


def moodle_substitute(formula: str, dataset: Mapping[str, str]) -> str:
    """substitute_variables(): str_replace of `{name}` by the stored value, `(value)` if <= 0."""
    for name, value in dataset.items():
        val = value if float(value) > 0 else f"({value})"
        formula = formula.replace("{" + name + "}", val)
    return formula


def _php_round(x: float, places: float = 0) -> float:
    if not math.isfinite(x):
        return x
    try:
        f = 10.0 ** int(places)
    except OverflowError:  # 10^places is INF in PHP, and round() gives the value back
        return x
    y = x * f
    if not math.isfinite(y):  # (math.c: a non-finite pre-rounding value returns the value)
        return x
    r = math.floor(y + 0.5) if y >= 0 else math.ceil(y - 0.5)
    return r / f


def _php_log(x: float, base: float | None = None) -> float:
    def ln(v: float) -> float:
        if math.isnan(v) or v < 0:
            return math.nan
        if v == 0:
            return -math.inf
        if math.isinf(v):
            return math.inf
        return math.log(v)

    return ln(x) if base is None else ln(x) / ln(base)


def _php_pow(x: float, y: float) -> float:
    try:
        if x == 0 and y < 0:
            return math.inf
        if x < 0 and y != int(y):
            return math.nan
        return math.pow(x, y)
    except OverflowError:
        return math.inf if x > 0 or int(y) % 2 == 0 else -math.inf


def _safe(f: Callable[[float], float]) -> Callable[..., float]:
    def g(*a: float) -> float:
        try:
            return f(*a)
        except ValueError:
            return math.nan
        except OverflowError:
            return math.inf

    return g


_PHP_FUNCTIONS: dict[str, Callable[..., float]] = {
    "abs": abs,
    "sqrt": lambda x: math.nan if x < 0 else math.sqrt(x),
    "log": _php_log,
    "log10": lambda x: math.log10(x) if x > 0 else _php_log(x),
    "exp": _safe(math.exp),
    "floor": lambda x: float(math.floor(x)) if math.isfinite(x) else x,
    "ceil": lambda x: float(math.ceil(x)) if math.isfinite(x) else x,
    "round": _php_round,
    "min": lambda *a: min(a),
    "max": lambda *a: max(a),
    "pow": _php_pow,
    "sin": _safe(math.sin),
    "cos": _safe(math.cos),
    "tan": _safe(math.tan),
    "asin": _safe(math.asin),
    "acos": _safe(math.acos),
    "atan": math.atan,
    "pi": lambda: math.pi,
}

_PHP_TOKEN = re.compile(
    r"\s*(?:(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_]\w*)|(\*\*|[-+*/(),]))"
)


def php_eval(expr: str) -> float:
    """PHP's value of an arithmetic expression of numbers, calls, ** * / + - and parentheses."""
    tokens: list[tuple[str, str]] = []
    i = 0
    expr = expr.rstrip()
    while i < len(expr):
        m = _PHP_TOKEN.match(expr, i)
        if not m:
            raise MoodleFormulaError(f"PHP parse error at {i}: {expr[i:]!r}")
        kind = "num" if m.group(1) else "name" if m.group(2) else "op"
        tokens.append((kind, m.group(m.lastindex or 0)))
        i = m.end()
    tokens.append(("end", ""))
    pos = 0

    def peek() -> tuple[str, str]:
        return tokens[pos]

    def take() -> tuple[str, str]:
        nonlocal pos
        t = tokens[pos]
        pos += 1
        return t

    def additive() -> float:
        x = multiplicative()
        while peek() in (("op", "+"), ("op", "-")):
            op = take()[1]
            y = multiplicative()
            x = x + y if op == "+" else x - y
        return x

    def multiplicative() -> float:
        x = unary()
        while peek() in (("op", "*"), ("op", "/")):
            op = take()[1]
            y = unary()
            if op == "*":
                x = x * y
            else:
                if y == 0:
                    raise MoodleFormulaError("DivisionByZeroError: Division by zero")
                x = x / y
        return x

    def unary() -> float:
        if peek() == ("op", "-"):
            take()
            return -unary()
        if peek() == ("op", "+"):
            take()
            return +unary()
        return power()

    def power() -> float:
        base = primary()
        if peek() == ("op", "**"):
            take()
            return _php_pow(base, unary())  # right-associative; the exponent may be signed
        return base

    def primary() -> float:
        kind, text = take()
        if kind == "num":
            return float(text)
        if kind == "name":
            if take() != ("op", "("):
                raise MoodleFormulaError(f"PHP: undefined constant {text}")
            args: list[float] = []
            if peek() != ("op", ")"):
                args.append(additive())
                while peek() == ("op", ","):
                    take()
                    args.append(additive())
            if take() != ("op", ")"):
                raise MoodleFormulaError("PHP parse error: expected )")
            fn = _PHP_FUNCTIONS.get(text.lower())
            if fn is None:
                raise MoodleFormulaError(f"PHP: call to undefined function {text}")
            return float(fn(*args))
        if (kind, text) == ("op", "("):
            x = additive()
            if take() != ("op", ")"):
                raise MoodleFormulaError("PHP parse error: expected )")
            return x
        raise MoodleFormulaError(f"PHP parse error: unexpected {text!r}")

    value = additive()
    if peek()[0] != "end":
        raise MoodleFormulaError(f"PHP parse error: unexpected {peek()[1]!r}")
    return value


def moodle_evaluate(formula: str, dataset: Mapping[str, str]) -> float:
    """What Moodle computes for a stored answer formula and one dataset item (values as stored)."""
    if err := moodle_find_formula_errors(formula):
        raise MoodleFormulaError(err)
    substituted = moodle_substitute(formula, dataset)
    if err := moodle_find_formula_errors(substituted):
        raise MoodleFormulaError(err)
    if re.search(r"\{[^}]*\}", substituted):
        raise MoodleFormulaError(f"unsubstituted placeholder in {substituted!r}")
    return php_eval(substituted)


# =========================================================================== Canvas / calcCmd.js


class CanvasFormulaError(Exception):
    """calcCmd.js throws (its messages, e.g. "unexpected open_paren at 5")."""


_CANVAS_TOKENS = [
    (re.compile(r"\s+"), "whitespace"),
    (re.compile(r"[a-zA-Z][a-zA-Z0-9_\.]*"), "variable"),
    (re.compile(r"[0-9]*\.?[0-9]+"), "number"),
    (re.compile(r"\+"), "add"),
    (re.compile(r"\-"), "subtract"),
    (re.compile(r"\*"), "multiply"),
    (re.compile(r"/"), "divide"),
    (re.compile(r"\("), "open_paren"),
    (re.compile(r"\)"), "close_paren"),
    (re.compile(r","), "comma"),
    (re.compile(r"\^"), "power"),
    (re.compile(r"="), "equals"),
]


def _js_round(x: float) -> float:
    if not math.isfinite(x):
        return x
    r = math.floor(x)
    return float(r + 1 if x - r >= 0.5 else r)


def _js(f: Callable[..., float]) -> Callable[..., float]:
    def g(*a: float) -> float:
        try:
            return float(f(*a))
        except ValueError:
            return math.nan
        except OverflowError:
            return math.inf
        except ZeroDivisionError:
            return math.nan

    return g


def _js_div(x: float, y: float) -> float:
    if y == 0:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def _js_log(x: float) -> float:
    if math.isnan(x) or x < 0:
        return math.nan
    return -math.inf if x == 0 else math.log(x)


def _js_pow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except ValueError:
        if x == 0:
            return math.inf
        return math.nan
    except OverflowError:
        return math.inf if x > 0 or int(y) % 2 == 0 else -math.inf


def _truthy(x: float) -> bool:
    return not (x == 0 or math.isnan(x))


_CANVAS_METHODS: dict[str, Callable[..., float]] = {
    "abs": _js(abs),
    "asin": _js(math.asin),
    "acos": _js(math.acos),
    "atan": _js(math.atan),
    "log": lambda x, base=None: _js_div(_js_log(x), _js_log(base if _truthy(base or 0) else 10)),
    "ln": _js_log,
    "rad_to_deg": lambda x: x * 180 / math.pi,
    "deg_to_rad": lambda x: x * math.pi / 180,
    "sin": _js(math.sin),
    "cos": _js(math.cos),
    "tan": _js(math.tan),
    "pi": lambda *a: math.pi,
    "if": lambda b, p, f: p if _truthy(b) else f,
    "max": lambda *a: max(a),
    "min": lambda *a: min(a),
    "sqrt": lambda x: math.nan if x < 0 else math.sqrt(x),
    "ceil": lambda x: float(math.ceil(x)) if math.isfinite(x) else x,
    "floor": lambda x: float(math.floor(x)) if math.isfinite(x) else x,
    "round": _js_round,
    "e": lambda x=0.0: _js(math.exp)(x if _truthy(x) else 1.0),
}


def canvas_tokens(command: str) -> list[dict[str, object]]:
    """parseSyntax: the first regex (in calcCmd's order) that matches at the index wins."""
    out: list[dict[str, object]] = []
    i = 0
    while i < len(command):
        for rx, kind in _CANVAS_TOKENS:
            m = rx.match(command, i)
            if m and m.group(0):
                out.append({"token": kind, "value": m.group(0), "newIndex": m.end()})
                i = m.end()
                break
        else:
            raise CanvasFormulaError(f"unrecognized token at {i}")
    return out


def canvas_evaluate(command: str, variables: Mapping[str, float]) -> float:
    """calcCmd.compute(command).computedValue with `variables` predefined."""
    syntax = [t for t in canvas_tokens(command) if t["token"] != "whitespace"]
    if not syntax:
        raise CanvasFormulaError("empty")
    idx = 0

    def tok(k: int) -> dict[str, object] | None:
        return syntax[k] if 0 <= k < len(syntax) else None

    def parse_argument() -> dict[str, object]:
        nonlocal idx
        t = tok(idx)
        result: dict[str, object] | None = None
        kind = t["token"] if t else None
        if kind == "number":
            result = dict(t)  # type: ignore[arg-type]
        elif kind == "subtract":
            nxt = tok(idx + 1)
            if nxt and nxt["token"] in ("number", "variable"):
                nxt["value"] = "-" + str(nxt["value"])
                idx += 1
                result = dict(nxt)
            else:
                raise CanvasFormulaError(f"expecting a number at {t['newIndex']}")  # type: ignore[index]
        elif kind == "variable":
            nxt = tok(idx + 1)
            if nxt and nxt["token"] == "open_paren":
                result = {"token": "method", "value": t["value"], "arguments": []}  # type: ignore[index]
                ender = "comma"
                idx += 2
                if tok(idx) is None:
                    raise CanvasFormulaError("TypeError: end of input in a call")
                if tok(idx)["token"] == "close_paren":  # type: ignore[index]
                    ender = "close_paren"
                    idx += 1
                while ender == "comma":
                    result["arguments"].append(parse_expression(["comma", "close_paren"]))  # type: ignore[attr-defined]
                    cur = tok(idx)
                    if cur is None:
                        raise CanvasFormulaError("TypeError: end of input in a call")
                    ender = str(cur["token"])
                    idx += 1
                idx -= 1
                if ender != "close_paren":
                    raise CanvasFormulaError("expecting close parenthesis")
            else:
                result = dict(t)  # type: ignore[arg-type]
        elif kind == "open_paren":
            idx += 1
            result = {"token": "parenthesized_expression", "expression": parse_expression(["close_paren"])}
        if result is None:
            raise CanvasFormulaError(f"expecting a value, got a {kind or 'nothing'}")
        idx += 1
        return result

    def parse_modifier() -> dict[str, object]:
        nonlocal idx
        t = tok(idx)
        if t and t["token"] in ("add", "subtract", "multiply", "divide", "power"):
            idx += 1
            return t
        raise CanvasFormulaError(f"unexpected {t['token'] if t else 'value'}")

    def parse_expression(enders: list[str]) -> dict[str, object]:
        if tok(idx) is None:
            raise CanvasFormulaError("TypeError: expression expected")
        items = [parse_argument()]
        while idx < len(syntax):
            if syntax[idx]["token"] in enders:
                break
            items.append(parse_modifier())
            if tok(idx) is None:
                raise CanvasFormulaError("TypeError: value expected")
            items.append(parse_argument())
        return {"token": "expression", "expressionItems": items}

    def number(x: float) -> dict[str, object]:
        return {"token": "number", "value": x}

    def compute_expression(tree: dict[str, object]) -> float:
        r0: list[dict[str, object]] = tree["expressionItems"]  # type: ignore[assignment]
        r1 = [r0[0]]
        for k in range(1, len(r0), 2):
            if r0[k]["token"] == "power":
                left = r1.pop()
                r1.append(number(_js_pow(compute(left), compute(r0[k + 1]))))
            else:
                r1 += [r0[k], r0[k + 1]]
        r2 = [r1[0]]
        for k in range(1, len(r1), 2):
            op = r1[k]["token"]
            if op == "multiply":
                r2.append(number(compute(r2.pop()) * compute(r1[k + 1])))
            elif op == "divide":
                r2.append(number(_js_div(compute(r2.pop()), compute(r1[k + 1]))))
            else:
                r2 += [r1[k], r1[k + 1]]
        r3 = [r2[0]]
        for k in range(1, len(r2), 2):
            op = r2[k]["token"]
            if op == "add":
                r3.append(number(compute(r3.pop()) + compute(r2[k + 1])))
            elif op == "subtract":
                r3.append(number(compute(r3.pop()) - compute(r2[k + 1])))
            else:
                r3 += [r2[k], r2[k + 1]]
        if len(r3) != 1:
            raise CanvasFormulaError(f"unexpected modifier: {r3[1]['token']}")
        return compute(r3[0])

    predefined = {"pi": math.pi, "e": math.exp(1)}

    def compute(tree: dict[str, object]) -> float:
        kind = tree["token"]
        if kind == "number":
            return float(tree["value"])  # type: ignore[arg-type]
        if kind == "expression":
            return compute_expression(tree)
        if kind == "parenthesized_expression":
            return compute(tree["expression"])  # type: ignore[arg-type]
        if kind == "variable":
            name = str(tree["value"])
            negative = name.startswith("-")
            name = name.lstrip("-") if negative else name
            value = predefined.get(name) or variables.get(name)
            if value is None:
                if name in variables:  # a variable whose value is 0 (0 || x in JavaScript)
                    value = variables[name]
                else:
                    raise CanvasFormulaError(f"undefined variable {tree['value']}")
            return -value if negative else value
        if kind == "method":
            args = [compute(a) for a in tree["arguments"]]  # type: ignore[attr-defined]
            fn = _CANVAS_METHODS.get(str(tree["value"]))
            if fn is None:
                raise CanvasFormulaError(f"unrecognized method {tree['value']}")
            return float(fn(*args))
        raise CanvasFormulaError(f"Unexpected token type: {kind}")

    tree = parse_expression([])
    if idx < len(syntax):
        raise CanvasFormulaError("trailing input")
    return compute(tree)
