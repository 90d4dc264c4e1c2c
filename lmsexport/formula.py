"""The formula language of parametric questions: parse, check, evaluate, print, translate.

A formula is a small arithmetic expression over the variables of a question (see
docs/formulas.md for the grammar and the function table). lmsexport never `eval`s source text:
a hand-written recursive-descent parser builds a tree of frozen dataclasses that remember their
offsets in the formula text (so messages point inside the YAML scalar), and an evaluator walks
that tree over Python floats. The same tree is printed back in lmsexport's own syntax
(`to_source`), in Moodle's (`to_moodle`: `{x}`, `**`, `pi()`) and in Canvas's calculator syntax
(`to_canvas`: bare names, `^`, `log` = base 10, no `exp`).

Pure: no I/O, no randomness; imports nothing but the standard library.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Context, Decimal

# --------------------------------------------------------------------------- errors


class FormulaError(Exception):
    """A formula cannot be read, checked, evaluated or written; `offset` is 0-based in its text."""

    def __init__(self, message: str, offset: int = 0, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        """0-based character offset of the culprit in the formula text."""
        self.hint = hint

    @property
    def col(self) -> int:
        """1-based column inside the formula text (what a compiler prints)."""
        return self.offset + 1


class FormulaSyntaxError(FormulaError):
    """The text is not a formula of the grammar (bad token, missing operand or parenthesis)."""


class FormulaNameError(FormulaError):
    """A name the formula uses is not a variable of the question or not a known function."""


class EvaluationError(FormulaError):
    """A formula has no finite value for some values (division by zero, sqrt(-1), overflow)."""


class TranslationError(FormulaError):
    """A target's formula syntax cannot express this formula."""


# --------------------------------------------------------------------------- the tree


def _pos() -> int:
    return field(default=0, compare=False, repr=False)  # type: ignore[return-value]


@dataclass(frozen=True)
class Num:
    """A number literal; `value` is what the text means (1e-3 -> 0.001)."""

    value: float
    pos: int = _pos()
    """0-based offset of the literal in the formula text (not part of equality)."""


@dataclass(frozen=True)
class Var:
    """A variable of the question (drawn, listed or derived)."""

    name: str
    pos: int = _pos()


@dataclass(frozen=True)
class Const:
    """`pi` or `e`: reserved names, never variables."""

    name: str
    pos: int = _pos()


@dataclass(frozen=True)
class Neg:
    """Unary minus. Binds looser than `^`: `-x^2` is `-(x^2)`, as in Python, PHP and maths."""

    operand: Expr
    pos: int = _pos()


@dataclass(frozen=True)
class BinOp:
    """`+ - * /` (left-associative) and `^` (power, right-associative)."""

    op: str
    left: Expr
    right: Expr
    pos: int = _pos()
    """Offset of the operator (where a division by zero is reported)."""


@dataclass(frozen=True)
class Call:
    """A call of one of FUNCTIONS."""

    name: str
    args: tuple[Expr, ...]
    pos: int = _pos()


@dataclass(frozen=True)
class Compare:
    """`a < b`, `<=`, `>`, `>=`, `==`, `!=`: only in constraints, never chained."""

    op: str
    left: Expr
    right: Expr
    pos: int = _pos()


@dataclass(frozen=True)
class BoolOp:
    """`and` / `or` of two conditions (left-associative; `and` binds tighter)."""

    op: str
    left: Cond
    right: Cond
    pos: int = _pos()


@dataclass(frozen=True)
class Not:
    operand: Cond
    pos: int = _pos()


Expr = Num | Var | Const | Neg | BinOp | Call
"""A numeric formula (an answer, a choice, a derived value, `{=...}` in a text)."""
Cond = Compare | BoolOp | Not
"""A constraint on the variables of one variant."""


# --------------------------------------------------------------------------- functions


def _round_half_away(x: float) -> float:
    # PHP's round() helper (value >= 0 ? floor(value + 0.5) : ceil(value - 0.5)), which the
    # Canvas translation reproduces exactly; Python's round() would round half to even.
    return float(math.floor(x + 0.5)) if x >= 0 else float(math.ceil(x - 0.5))


@dataclass(frozen=True)
class Function:
    """One function of the language: its arity, its value and a domain check."""

    name: str
    min_args: int
    max_args: int | None
    """None: any number from min_args up."""
    impl: Callable[..., float]
    domain: Callable[..., str | None] | None = None
    """Returns why the arguments are outside the domain, or None."""
    doc: str = ""


def _need_nonneg(x: float) -> str | None:
    return f"sqrt of a negative number ({_show(x)})" if x < 0 else None


def _need_pos(name: str) -> Callable[[float], str | None]:
    def check(x: float) -> str | None:
        return f"{name} of a number that is not positive ({_show(x)})" if x <= 0 else None

    return check


def _need_unit(name: str) -> Callable[[float], str | None]:
    def check(x: float) -> str | None:
        return f"{name} of a number outside [-1, 1] ({_show(x)})" if not -1 <= x <= 1 else None

    return check


FUNCTIONS: dict[str, Function] = {
    f.name: f
    for f in (
        Function("sqrt", 1, 1, math.sqrt, _need_nonneg, "square root"),
        Function("abs", 1, 1, abs, None, "absolute value"),
        Function("min", 2, None, min, None, "smallest argument (two or more)"),
        Function("max", 2, None, max, None, "largest argument (two or more)"),
        Function("floor", 1, 1, lambda x: float(math.floor(x)), None, "round down"),
        Function("ceil", 1, 1, lambda x: float(math.ceil(x)), None, "round up"),
        Function("round", 1, 1, _round_half_away, None, "nearest integer, halves away from zero"),
        Function("ln", 1, 1, math.log, _need_pos("ln"), "natural logarithm"),
        Function("log10", 1, 1, math.log10, _need_pos("log10"), "logarithm base 10"),
        Function("exp", 1, 1, math.exp, None, "e to the power x"),
        Function("sin", 1, 1, math.sin, None, "sine (radians)"),
        Function("cos", 1, 1, math.cos, None, "cosine (radians)"),
        Function("tan", 1, 1, math.tan, None, "tangent (radians)"),
        Function("asin", 1, 1, math.asin, _need_unit("asin"), "arcsine (radians)"),
        Function("acos", 1, 1, math.acos, _need_unit("acos"), "arccosine (radians)"),
        Function("atan", 1, 1, math.atan, None, "arctangent (radians)"),
    )
}
"""Every function a formula may call: each one Moodle and Canvas can both express."""

CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}
"""Reserved names with a fixed value; no variable may take them."""

REFUSED_FUNCTIONS: dict[str, str] = {
    "log": "`log` is the natural logarithm in Moodle (PHP) and base 10 in Canvas; say which",
    "pow": "write the power as a ^ b",
}
"""Names authors will try, with why they are refused (the hint names the replacement)."""

_REFUSED_HINTS = {"log": "use ln(x) for the natural logarithm or log10(x) for base 10", "pow": "use a ^ b"}

KEYWORDS = frozenset({"and", "or", "not"})


def _show(x: float) -> str:
    """A number in a message: shortest round-trip form, no exponent for everyday sizes."""
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == int(x) and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


# --------------------------------------------------------------------------- tokenizer


@dataclass(frozen=True)
class Token:
    kind: str
    """"num", "name", "op" (operators, parentheses, comma) or "end"."""
    text: str
    pos: int


MAX_DEPTH = 40
"""Deepest nesting of parentheses: keeps the recursive parser far from Python's stack limit."""

_OPERATORS = ("**", "<=", ">=", "==", "!=", "+", "-", "*", "/", "^", "(", ")", ",", "<", ">")


def tokenize(text: str) -> list[Token]:
    """Split a formula into tokens; white space (spaces, tabs, newlines) separates only."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c.isascii() and (c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit())):
            j = i
            while j < n and text[j].isascii() and text[j].isdigit():
                j += 1
            if j < n and text[j] == ".":
                j += 1
                while j < n and text[j].isascii() and text[j].isdigit():
                    j += 1
            if j < n and text[j] in "eE":
                k = j + 1
                if k < n and text[k] in "+-":
                    k += 1
                if k < n and text[k].isascii() and text[k].isdigit():
                    while k < n and text[k].isascii() and text[k].isdigit():
                        k += 1
                    j = k
                else:
                    raise FormulaSyntaxError(
                        f"malformed number {text[i : k + 1]!r}: an exponent needs digits",
                        i,
                        "write 1e-3 or 1.5E6",
                    )
            if j < n and (text[j].isascii() and (text[j].isalpha() or text[j] == "_")):
                raise FormulaSyntaxError(
                    f"a number cannot run into a name: {text[i : j + 1]!r}", j, "write 2*x, not 2x"
                )
            tokens.append(Token("num", text[i:j], i))
            i = j
            continue
        if c.isascii() and c.isalpha():
            j = i + 1
            while j < n and text[j].isascii() and (text[j].isalnum() or text[j] == "_"):
                j += 1
            tokens.append(Token("name", text[i:j], i))
            i = j
            continue
        for op in _OPERATORS:
            if text.startswith(op, i):
                tokens.append(Token("op", op, i))
                i += len(op)
                break
        else:
            hint = None
            if c in "{}":
                hint = "write variables by name in a formula: N/G, not {N}/{G}"
            elif c == "[" or c == "]":
                hint = "use parentheses ( ) for grouping"
            elif c == "=":
                hint = "compare with == in a constraint"
            elif c == "_":
                hint = "a name starts with an ASCII letter"
            elif c in "&|!":
                hint = "write and, or, not"
            raise FormulaSyntaxError(f"unexpected character {c!r}", i, hint)
    tokens.append(Token("end", "", n))
    depth = 0
    for t in tokens:
        if t.text == "(":
            depth += 1
            if depth > MAX_DEPTH:
                raise FormulaSyntaxError(f"parentheses nested deeper than {MAX_DEPTH}", t.pos)
        elif t.text == ")":
            depth -= 1
    return tokens


# --------------------------------------------------------------------------- parser


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        t = self.tokens[self.i]
        self.i += 1
        return t

    def at_op(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.text in ops

    def at_word(self, word: str) -> bool:
        return self.tok.kind == "name" and self.tok.text == word

    def describe(self, t: Token) -> str:
        return "the end of the formula" if t.kind == "end" else repr(t.text)

    def expect_end(self) -> None:
        t = self.tok
        if t.kind != "end":
            hint = None
            if t.kind in ("num", "name") or t.text == "(":
                hint = "put an operator between the two, e.g. 2*x"
            elif t.text == ")":
                hint = "remove it or add the matching ("
            raise FormulaSyntaxError(f"unexpected {self.describe(t)}", t.pos, hint)

    # condition := or
    def condition(self) -> Cond:
        left = self.conjunction()
        while self.at_word("or"):
            t = self.take()
            left = BoolOp("or", left, self.conjunction(), t.pos)
        return left

    def conjunction(self) -> Cond:
        left = self.negation()
        while self.at_word("and"):
            t = self.take()
            left = BoolOp("and", left, self.negation(), t.pos)
        return left

    def negation(self) -> Cond:
        if self.at_word("not"):
            t = self.take()
            return Not(self.negation(), t.pos)
        if self.at_op("("):
            # "(" may open a condition, `(a < b) or c`, or an expression, `(a + b) < c`: try
            # the condition, and fall back to a comparison when what follows is arithmetic.
            save = self.i
            t = self.take()
            try:
                inner = self.condition()
                if self.at_op(")"):
                    self.take()
                    if not self._at_compare() and not self._at_arith():
                        return inner
            except FormulaSyntaxError:
                pass
            self.i = save
            del t
        return self.comparison()

    def _at_compare(self) -> bool:
        return self.at_op("<", "<=", ">", ">=", "==", "!=")

    def _at_arith(self) -> bool:
        return self.at_op("+", "-", "*", "/", "^", "**")

    def comparison(self) -> Cond:
        left = self.expr()
        if not self._at_compare():
            t = self.tok
            raise FormulaSyntaxError(
                f"expected a comparison (<, <=, >, >=, ==, !=), found {self.describe(t)}",
                t.pos,
                "a constraint compares two formulas, e.g. G <= N",
            )
        op = self.take()
        right = self.expr()
        if self._at_compare():
            t = self.tok
            raise FormulaSyntaxError(
                "comparisons do not chain", t.pos, "write a < b and b < c instead of a < b < c"
            )
        return Compare(op.text, left, right, op.pos)

    # expr := term (("+" | "-") term)*
    def expr(self) -> Expr:
        left = self.term()
        while self.at_op("+", "-"):
            t = self.take()
            left = BinOp(t.text, left, self.term(), t.pos)
        return left

    # term := unary (("*" | "/") unary)*
    def term(self) -> Expr:
        left = self.unary()
        while self.at_op("*", "/"):
            t = self.take()
            left = BinOp(t.text, left, self.unary(), t.pos)
        return left

    # unary := "-" unary | power
    def unary(self) -> Expr:
        if self.at_op("-"):
            t = self.take()
            return Neg(self.unary(), t.pos)
        if self.at_op("+"):
            t = self.tok
            raise FormulaSyntaxError("unary plus is not part of the language", t.pos, "remove the +")
        return self.power()

    # power := atom (("^" | "**") unary)?   -- right-associative, exponent may be negative
    def power(self) -> Expr:
        base = self.atom()
        if self.at_op("^", "**"):
            t = self.take()
            return BinOp("^", base, self.unary(), t.pos)
        return base

    def atom(self) -> Expr:
        t = self.tok
        if t.kind == "num":
            self.take()
            value = float(t.text)
            if math.isinf(value):
                raise FormulaSyntaxError(f"number {t.text} is too large", t.pos)
            return Num(value, t.pos)
        if t.kind == "name":
            self.take()
            if t.text in KEYWORDS:
                raise FormulaSyntaxError(
                    f"{t.text!r} joins conditions and is not a value", t.pos, "use it in a constraint"
                )
            if self.at_op("("):
                return self.call(t)
            if t.text in CONSTANTS:
                return Const(t.text, t.pos)
            if t.text in FUNCTIONS:
                raise FormulaSyntaxError(
                    f"function {t.text} needs arguments in parentheses", t.pos, f"write {t.text}(x)"
                )
            return Var(t.text, t.pos)
        if self.at_op("("):
            self.take()
            inner = self.expr()
            if not self.at_op(")"):
                c = self.tok
                raise FormulaSyntaxError(
                    f"expected ')' to close the '(' at column {t.pos + 1}, found {self.describe(c)}",
                    c.pos,
                )
            self.take()
            return inner
        raise FormulaSyntaxError(
            f"expected a number, a name or '(', found {self.describe(t)}",
            t.pos,
            "an operator needs a value on each side" if t.kind == "op" or t.kind == "end" else None,
        )

    def call(self, name: Token) -> Expr:
        open_ = self.take()
        args: list[Expr] = []
        if not self.at_op(")"):
            args.append(self.expr())
            while self.at_op(","):
                self.take()
                args.append(self.expr())
        if not self.at_op(")"):
            c = self.tok
            raise FormulaSyntaxError(
                f"expected ',' or ')' in the call of {name.text} at column {name.pos + 1}, "
                f"found {self.describe(c)}",
                c.pos,
            )
        self.take()
        del open_
        fn = FUNCTIONS.get(name.text)
        if fn is None:
            if name.text in REFUSED_FUNCTIONS:
                raise FormulaNameError(
                    f"function {name.text} is not available: {REFUSED_FUNCTIONS[name.text]}",
                    name.pos,
                    _REFUSED_HINTS[name.text],
                )
            if name.text in CONSTANTS:
                raise FormulaNameError(
                    f"{name.text} is a constant, not a function", name.pos, f"write {name.text}"
                )
            close = difflib.get_close_matches(name.text, list(FUNCTIONS), n=1)
            raise FormulaNameError(
                f"unknown function {name.text}",
                name.pos,
                f"did you mean {close[0]}?" if close else "functions: " + ", ".join(sorted(FUNCTIONS)),
            )
        n = len(args)
        if n < fn.min_args or (fn.max_args is not None and n > fn.max_args):
            if fn.max_args is None:
                want = f"at least {fn.min_args} arguments"
            elif fn.min_args == fn.max_args:
                want = f"{fn.min_args} argument{'s' if fn.min_args != 1 else ''}"
            else:
                want = f"{fn.min_args} to {fn.max_args} arguments"
            raise FormulaSyntaxError(f"{fn.name} takes {want}, given {n}", name.pos)
        return Call(name.text, tuple(args), name.pos)


def parse(text: str) -> Expr:
    """Parse a numeric formula (an answer, a choice, a derived value); raises FormulaError."""
    p = _Parser(text)
    if p.tok.kind == "end":
        raise FormulaSyntaxError("empty formula", 0)
    e = p.expr()
    if p._at_compare():
        t = p.tok
        raise FormulaSyntaxError(
            f"a comparison ({t.text}) is only allowed in a constraint", t.pos, "an answer is a number"
        )
    p.expect_end()
    return e


def parse_condition(text: str) -> Cond:
    """Parse a constraint: comparisons joined by and/or/not, e.g. `G <= N and N % 2 == 0`."""
    p = _Parser(text)
    if p.tok.kind == "end":
        raise FormulaSyntaxError("empty constraint", 0)
    c = p.condition()
    p.expect_end()
    return c


# --------------------------------------------------------------------------- names


def walk(node: Expr | Cond) -> Iterator[Expr | Cond]:
    """Every node of a tree, parents before children, left to right."""
    yield node
    match node:
        case Neg(operand=o) | Not(operand=o):
            yield from walk(o)
        case BinOp(left=a, right=b) | Compare(left=a, right=b) | BoolOp(left=a, right=b):
            yield from walk(a)
            yield from walk(b)
        case Call(args=args):
            for a in args:
                yield from walk(a)
        case _:
            pass


def variables_of(node: Expr | Cond) -> tuple[str, ...]:
    """The variable names a formula uses, in order of first use."""
    seen: dict[str, None] = {}
    for n in walk(node):
        if isinstance(n, Var):
            seen.setdefault(n.name, None)
    return tuple(seen)


def did_you_mean(name: str, known: Collection[str]) -> str | None:
    """The known name closest to a misspelt one: same letters in another case first, then
    difflib's closest (a looser cutoff for short names, where one letter is a large change)."""
    names = sorted(set(known))
    for k in names:
        if k.lower() == name.lower():
            return k
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6 if len(name) > 3 else 0.5)
    return close[0] if close else None


def check_names(node: Expr | Cond, known: Collection[str]) -> list[FormulaNameError]:
    """One error per use of a name that is not in `known`, with a did-you-mean hint."""
    errors: list[FormulaNameError] = []
    for n in walk(node):
        if isinstance(n, Var) and n.name not in known:
            close = did_you_mean(n.name, known)
            hint = (
                f"did you mean {close}?"
                if close
                else (
                    "variables: " + ", ".join(sorted(set(known))) if known else "declare it under variables:"
                )
            )
            errors.append(FormulaNameError(f"unknown variable {n.name}", n.pos, hint))
    return errors


# --------------------------------------------------------------------------- evaluation


def evaluate(node: Expr, env: Mapping[str, float]) -> float:
    """The value of a formula for one variant; raises EvaluationError, never returns nan/inf."""
    match node:
        case Num(value=v):
            return v
        case Const(name=name):
            return CONSTANTS[name]
        case Var(name=name, pos=pos):
            if name not in env:
                raise FormulaNameError(f"unknown variable {name}", pos)
            return float(env[name])
        case Neg(operand=o):
            return -evaluate(o, env)
        case BinOp(op=op, left=a, right=b, pos=pos):
            x, y = evaluate(a, env), evaluate(b, env)
            try:
                if op == "+":
                    r = x + y
                elif op == "-":
                    r = x - y
                elif op == "*":
                    r = x * y
                elif op == "/":
                    if y == 0:
                        raise EvaluationError(f"division by zero ({_show(x)} / 0)", pos)
                    r = x / y
                else:
                    if x == 0 and y < 0:
                        raise EvaluationError(f"0 to a negative power ({_show(y)})", pos)
                    if x < 0 and y != int(y):
                        raise EvaluationError(
                            f"a negative number to a fractional power ({_show(x)} ^ {_show(y)})", pos
                        )
                    r = math.pow(x, y)
            except OverflowError:
                r = math.inf
            if not math.isfinite(r):
                raise EvaluationError(f"the result of {_show(x)} {op} {_show(y)} is not finite", pos)
            return r
        case Call(name=name, args=args, pos=pos):
            fn = FUNCTIONS[name]
            vals = [evaluate(a, env) for a in args]
            if fn.domain is not None:
                why = fn.domain(*vals)
                if why:
                    raise EvaluationError(why, pos)
            try:
                r = float(fn.impl(*vals))
            except (OverflowError, ValueError):
                r = math.inf
            if not math.isfinite(r):
                raise EvaluationError(
                    f"{name}({', '.join(_show(v) for v in vals)}) is not a finite number", pos
                )
            return r
    raise TypeError(f"not a numeric formula node: {node!r}")  # pragma: no cover


def holds(node: Cond, env: Mapping[str, float]) -> bool:
    """Whether a constraint holds for one variant (== and != compare exactly)."""
    match node:
        case Compare(op=op, left=a, right=b):
            x, y = evaluate(a, env), evaluate(b, env)
            return {
                "<": x < y,
                "<=": x <= y,
                ">": x > y,
                ">=": x >= y,
                "==": x == y,
                "!=": x != y,
            }[op]
        case BoolOp(op="and", left=a, right=b):
            return holds(a, env) and holds(b, env)
        case BoolOp(left=a, right=b):
            return holds(a, env) or holds(b, env)
        case Not(operand=o):
            return not holds(o, env)
    raise TypeError(f"not a condition node: {node!r}")  # pragma: no cover


# --------------------------------------------------------------------------- numbers


def plain_number(x: float) -> str:
    """The shortest text that reads back as exactly `x`, positional (never 1e-05): every
    target's parser reads it (Canvas's calculator has no exponent notation)."""
    if not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    if x == 0:
        return "0"
    d = Decimal(repr(x))
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


_WIDE = Context(prec=800)


def format_value(x: float, decimals: int | None = None) -> str:
    """A value as every target stores and shows it: `decimals` places, halves away from zero,
    applied to the shortest decimal form of the float (2.675 -> "2.68", although the binary
    float is 2.67499...), so the digits are those a person reading the number expects and PHP's
    round() gives. Never an exponent, never a locale, never "-0". None: shortest exact form."""
    if not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    if decimals is None:
        return plain_number(x)
    if decimals < 0:
        raise ValueError("decimals must be >= 0")
    # Enough digits for any float at any decimals (the default context's 28 refuse 1.2e24 at 4).
    d = Decimal(repr(x)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP, context=_WIDE)
    text = format(d, "f")
    if text.startswith("-") and d == 0:
        text = text[1:]
    return text


def round_value(x: float, decimals: int | None) -> float:
    """`x` rounded as format_value shows it, as a float."""
    return x if decimals is None else float(format_value(x, decimals))


# --------------------------------------------------------------------------- printers

# Binding strength of each node, for printing the fewest parentheses that keep the tree.
_ADD, _MUL, _NEG, _POW, _ATOM = 1, 2, 3, 4, 5


def _prec(node: Expr) -> int:
    match node:
        case BinOp(op="+" | "-"):
            return _ADD
        case BinOp(op="*" | "/"):
            return _MUL
        case BinOp():
            return _POW
        case Neg():
            return _NEG
        case Num(value=v) if v < 0:
            return _NEG
        case _:
            return _ATOM


def _print_standard(
    node: Expr,
    var: Callable[[str], str],
    num: Callable[[float], str],
    const: Callable[[str], str],
    call: Callable[[str, list[str]], str],
    power: str,
) -> str:
    """Print with the usual precedence (power over unary minus over * / over + -)."""

    def go(n: Expr) -> str:
        match n:
            case Num(value=v):
                return num(v)
            case Var(name=name):
                return var(name)
            case Const(name=name):
                return const(name)
            case Neg(operand=o):
                inner = go(o)
                # -(a + b), -(a * b), -(-x): parenthesize; keep "-x^2" (= -(x^2)) bare.
                if _prec(o) <= _NEG:
                    inner = f"({inner})"
                return f"-{inner}"
            case BinOp(op=op, left=a, right=b):
                p = _prec(n)
                la, rb = go(a), go(b)
                if op == "^":
                    # Right-associative: the base needs parentheses for any non-atom (incl. a
                    # power: (a^b)^c); the exponent only below unary minus.
                    if _prec(a) <= _POW:
                        la = f"({la})"
                    if _prec(b) < _NEG:
                        rb = f"({rb})"
                    return f"{la}{power}{rb}"
                if _prec(a) < p:
                    la = f"({la})"
                if _prec(b) <= p:
                    rb = f"({rb})"
                return f"{la} {op} {rb}"
            case Call(name=name, args=args):
                return call(name, [go(a) for a in args])
        raise TypeError(f"not a numeric formula node: {n!r}")  # pragma: no cover

    return go(node)


def _source_number(x: float) -> str:
    text = repr(x)
    if text.endswith(".0"):
        text = text[:-2]
    return text


def to_source(node: Expr | Cond) -> str:
    """lmsexport's own syntax; `parse(to_source(t)) == t` for every tree (tests check it)."""
    if isinstance(node, Compare | BoolOp | Not):
        return _cond_source(node)
    return _print_standard(
        node,
        var=lambda name: name,
        num=_source_number,
        const=lambda name: name,
        call=lambda name, args: f"{name}({', '.join(args)})",
        power="^",
    )


def _cond_source(node: Cond) -> str:
    match node:
        case Compare(op=op, left=a, right=b):
            return f"{to_source(a)} {op} {to_source(b)}"
        case BoolOp(op=op, left=a, right=b):
            la, rb = _cond_source(a), _cond_source(b)
            if isinstance(a, BoolOp) and a.op == "or" and op == "and":
                la = f"({la})"
            if isinstance(b, BoolOp) and (b.op == "or" or op == b.op):
                rb = f"({rb})"
            return f"{la} {op} {rb}"
        case Not(operand=o):
            inner = _cond_source(o)
            if isinstance(o, BoolOp):
                inner = f"({inner})"
            return f"not {inner}"
    raise TypeError(f"not a condition node: {node!r}")  # pragma: no cover


# Moodle: qtype_calculated_find_formula_errors() allows these calls (after {x} -> 1.0).
MOODLE_FUNCTIONS: dict[str, str] = {
    "sqrt": "sqrt",
    "abs": "abs",
    "min": "min",
    "max": "max",
    "floor": "floor",
    "ceil": "ceil",
    "round": "round",
    "ln": "log",
    "log10": "log10",
    "exp": "exp",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
}
"""lmsexport function -> the PHP function Moodle's formula check allows."""


def to_moodle(node: Expr) -> str:
    """Moodle's calculated-question syntax: `{name}` placeholders, PHP's `**` (Moodle rejects
    `^`, a bitwise operator in PHP), `log` for ln, `pi()`, and `exp(1)` for e. Moodle
    substitutes a value <= 0 as `(value)`, so `{x}**2` and `-{x}**2` keep their meaning."""
    if isinstance(node, Compare | BoolOp | Not):
        raise TranslationError("Moodle stores no constraints; lmsexport checks them itself", node.pos)
    for n in walk(node):
        if isinstance(n, Var) and not _MOODLE_NAME(n.name):
            raise TranslationError(f"Moodle cannot name a dataset {n.name!r}", n.pos)
    return _print_standard(
        node,
        var=lambda name: "{" + name + "}",
        num=plain_number,
        const=lambda name: "pi()" if name == "pi" else "exp(1)",
        call=lambda name, args: f"{MOODLE_FUNCTIONS[name]}({', '.join(args)})",
        power="**",
    )


def _MOODLE_NAME(name: str) -> bool:  # noqa: N802
    # PLACEHOLDER_REGEX_PART = [[:alpha:]][[:alpha:][:digit:]\-_\s]*; our names are a subset.
    return bool(name) and name[0].isascii() and name[0].isalpha()


CANVAS_FUNCTIONS: dict[str, str] = {
    "sqrt": "sqrt",
    "abs": "abs",
    "min": "min",
    "max": "max",
    "floor": "floor",
    "ceil": "ceil",
    "ln": "ln",
    "log10": "log",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
}
"""lmsexport function -> Canvas calcCmd.js method (round and exp are rewritten, see to_canvas)."""

CANVAS_RESERVED = frozenset({"pi", "e", "_"})


def to_canvas(node: Expr) -> str:
    """Canvas's calculator syntax (public/javascripts/calcCmd.js): bare variable names, `^`.

    Its parser is not the usual one, so the printer is defensive: it evaluates a flat list in
    three rounds (all `^` left to right, then * /, then + -), so `^` is LEFT-associative there
    and every non-atomic operand of `^` is parenthesized; its only unary minus is a sign glued
    to the next number or name (`-x^2` is (-x)^2, `-(...)` and `-sqrt(x)` are syntax errors),
    so a negation is written `(0-x)`; it reads no exponent (`1e-3`), so numbers are positional;
    `log` is base 10 and `ln` natural; `exp` does not exist and `e(x)` is `exp(x || 1)` (wrong
    for 0), so exp(x) is `e^(x)`; `round` is JavaScript's Math.round (halves up), so round(x) is
    rewritten to halves away from zero with `if`.
    """
    if isinstance(node, Compare | BoolOp | Not):
        raise TranslationError("Canvas stores no constraints; lmsexport checks them itself", node.pos)
    for n in walk(node):
        if isinstance(n, Var) and n.name in CANVAS_RESERVED:
            raise TranslationError(f"Canvas reserves the name {n.name!r}", n.pos)

    def atomic(n: Expr) -> bool:
        # exp(x) is written e^(x): a power, not an atom (2^exp(x) must be 2^(e^(x)), since
        # calcCmd reads 2^e^(x) as (2^e)^x).
        if isinstance(n, Call):
            return n.name != "exp"
        return isinstance(n, Var | Const) or (isinstance(n, Num) and n.value >= 0)

    def go(n: Expr) -> str:
        match n:
            case Num(value=v):
                return plain_number(v) if v >= 0 else f"(0-{plain_number(-v)})"
            case Var(name=name) | Const(name=name):
                return name
            case Neg(operand=o):
                return f"(0-{paren(o) if isinstance(o, BinOp) and o.op in '+-' else go(o)})"
            case BinOp(op="^", left=a, right=b):
                return f"{go(a) if atomic(a) else paren(a)}^{go(b) if atomic(b) else paren(b)}"
            case BinOp(op=op, left=a, right=b):
                p = _prec(n)
                la, rb = go(a), go(b)
                if isinstance(a, BinOp) and _prec(a) < p:
                    la = f"({la})"
                if isinstance(b, BinOp) and _prec(b) <= p:
                    rb = f"({rb})"
                return f"{la} {op} {rb}"
            case Call(name="exp", args=(a,)):
                return f"e^{paren(a)}"
            case Call(name="round", args=(a,)):
                x = go(a)
                # ceil(x/(abs(x)+1)) is 1 for x > 0 and 0 (or -0) otherwise: calcCmd has no
                # comparisons, and `if` tests its first argument for being non-zero.
                return f"if(ceil(({x})/(abs({x})+1)), floor(({x})+0.5), ceil(({x})-0.5))"
            case Call(name=name, args=args):
                return f"{CANVAS_FUNCTIONS[name]}({', '.join(go(a) for a in args)})"
        raise TypeError(f"not a numeric formula node: {n!r}")  # pragma: no cover

    def paren(n: Expr) -> str:
        return f"({go(n)})"

    return go(node)


# --------------------------------------------------------------------------- from Canvas

import re as _re  # noqa: E402 (this section is appended; the module imports only the standard library)

_CANVAS_TOKEN_KINDS = (
    ("space", r"\s+"),
    ("name", r"[a-zA-Z][a-zA-Z0-9_\.]*"),
    ("num", r"[0-9]*\.?[0-9]+"),
    ("op", r"[-+*/(),^=]"),
)
_CANVAS_TOKEN_RE = _re.compile("|".join(f"(?P<{k}>{rx})" for k, rx in _CANVAS_TOKEN_KINDS))

_CANVAS_BACK: dict[str, str] = {
    "sqrt": "sqrt",
    "abs": "abs",
    "min": "min",
    "max": "max",
    "floor": "floor",
    "ceil": "ceil",
    "ln": "ln",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
}
"""calcCmd.js method -> the lmsexport function of the same value (log, e, round, if: below)."""


def from_canvas(text: str) -> Expr:
    """A formula in Canvas's calculator syntax (public/javascripts/calcCmd.js, what a Canvas
    calculated_question stores in ``formulas/formula``) as an lmsexport tree; the inverse of
    to_canvas, whose output it reads back to an equal value for every input.

    calcCmd's rules, not the usual ones: the tokens are tried in its order (a name may hold
    ``.``, which no lmsexport name does); a formula is a flat list of operands and operators
    evaluated in three rounds (every ``^`` left to right, so ``2^3^2`` is (2^3)^2, then * /,
    then + -); its only unary minus is a sign glued to the next number or name (``-x^2`` is
    (-x)^2; before a parenthesis or a call it is a syntax error there, and here). Functions:
    ``log(x)`` is base 10 (log10), ``log(x, b)`` is ln(x)/ln(b), ``ln`` natural, ``e(x)`` is
    exp(x) (calcCmd computes exp(x || 1), so e(0) is e there: the caller checks the values),
    ``round(x)`` is JavaScript's Math.round, floor(x + 0.5); the ``if(...)`` to_canvas writes for
    round() is read back as round(). Constants pi and e. Anything else (an assignment line
    ``x = ...``, calcCmd's other methods: fact, comb, sum, ...) raises TranslationError (or
    FormulaSyntaxError for what calcCmd itself refuses), with the offset of the culprit.
    """
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        m = _CANVAS_TOKEN_RE.match(text, i)
        if m is None or not m.group(0):
            raise FormulaSyntaxError(f"Canvas's calculator reads no {text[i]!r}", i)
        kind = m.lastgroup or ""
        if kind != "space":
            tokens.append(Token(kind, m.group(0), i))
        i = m.end()
    if not tokens:
        raise FormulaSyntaxError("empty formula", 0)
    tokens.append(Token("end", "", len(text)))
    pos = 0

    def peek(k: int = 0) -> Token:
        return tokens[min(pos + k, len(tokens) - 1)]

    def take() -> Token:
        nonlocal pos
        t = tokens[pos]
        pos = min(pos + 1, len(tokens) - 1)
        return t

    def name_node(t: Token, negative: bool) -> Expr:
        node: Expr
        if t.text in CONSTANTS:
            node = Const(t.text, t.pos)
        elif "." in t.text or not t.text.isascii():
            raise TranslationError(f"the Canvas name {t.text!r} is not an lmsexport name", t.pos)
        elif t.text in FUNCTIONS or t.text in KEYWORDS or t.text in REFUSED_FUNCTIONS:
            raise TranslationError(f"the Canvas variable {t.text!r} is a reserved name in lmsexport", t.pos)
        else:
            node = Var(t.text, t.pos)
        return Neg(node, t.pos) if negative else node

    def operand(depth: int) -> Expr:
        t = take()
        if t.kind == "op" and t.text == "-":
            nxt = take()
            if nxt.kind == "num":
                return Num(-float(nxt.text), t.pos)
            if nxt.kind == "name" and peek().text != "(":
                return name_node(nxt, True)
            raise FormulaSyntaxError("Canvas's calculator expects a number or a name after a sign", nxt.pos)
        if t.kind == "num":
            return Num(float(t.text), t.pos)
        if t.kind == "name":
            if peek().text == "(":
                take()
                args: list[Expr] = []
                if peek().text == ")":
                    take()
                else:
                    while True:
                        args.append(expression(depth + 1, (",", ")")))
                        sep = take()
                        if sep.text == ")":
                            break
                        if sep.text != ",":
                            raise FormulaSyntaxError("expecting close parenthesis", sep.pos)
                return call(t, tuple(args))
            return name_node(t, False)
        if t.text == "(":
            inner = expression(depth + 1, (")",))
            close = take()
            if close.text != ")":
                raise FormulaSyntaxError("expecting close parenthesis", close.pos)
            return inner
        if t.text == "=":
            raise TranslationError("an assignment (x = ...) is not an lmsexport formula", t.pos)
        raise FormulaSyntaxError(f"expecting a value, got {t.text or 'the end'!r}", t.pos)

    def expression(depth: int, enders: tuple[str, ...]) -> Expr:
        if depth > MAX_DEPTH:
            raise FormulaSyntaxError("too deeply nested", peek().pos)
        items: list[Expr | Token] = [operand(depth)]
        while peek().kind != "end" and peek().text not in enders:
            op = take()
            if op.text not in ("+", "-", "*", "/", "^"):
                if op.text == "=":
                    raise TranslationError("an assignment (x = ...) is not an lmsexport formula", op.pos)
                raise FormulaSyntaxError(f"unexpected {op.text!r}", op.pos)
            items += [op, operand(depth)]
        for ops in (("^",), ("*", "/"), ("+", "-")):  # calcCmd's three rounds
            folded: list[Expr | Token] = [items[0]]
            for k in range(1, len(items), 2):
                op_t, right = items[k], items[k + 1]
                assert isinstance(op_t, Token)
                if op_t.text in ops:
                    left = folded.pop()
                    assert not isinstance(left, Token) and not isinstance(right, Token)
                    folded.append(_canvas_binop(op_t.text, left, right, op_t.pos))
                else:
                    folded += [op_t, right]
            items = folded
        result = items[0]
        assert not isinstance(result, Token)
        return result

    def call(t: Token, args: tuple[Expr, ...]) -> Expr:
        n = len(args)
        if t.text == "log" and n in (1, 2):
            if n == 1:
                return Call("log10", args, t.pos)
            return BinOp("/", Call("ln", args[:1], t.pos), Call("ln", args[1:], t.pos), t.pos)
        if t.text == "e" and n == 1:
            return Call("exp", args, t.pos)
        if t.text == "pi" and n == 0:
            return Const("pi", t.pos)
        if t.text == "round" and n == 1:
            return Call("floor", (BinOp("+", args[0], Num(0.5)),), t.pos)
        if t.text == "if" and n == 3:
            x = _canvas_round_of(args)
            if x is not None:
                return Call("round", (x,), t.pos)
        if t.text in _CANVAS_BACK:
            fn = FUNCTIONS[_CANVAS_BACK[t.text]]
            if n >= fn.min_args and (fn.max_args is None or n <= fn.max_args):
                return Call(fn.name, args, t.pos)
        raise TranslationError(
            f"lmsexport has no counterpart of Canvas's {t.text}() with {n} argument(s)", t.pos
        )

    node = expression(0, ())
    if peek().kind != "end":  # pragma: no cover - expression() stops only at the end here
        raise FormulaSyntaxError(f"unexpected {peek().text!r}", peek().pos)
    return node


def _canvas_binop(op: str, left: Expr, right: Expr, pos: int) -> Expr:
    # to_canvas writes a negation as (0-x): read it back as -x (the same value).
    if op == "-" and isinstance(left, Num) and left.value == 0:
        return Neg(right, pos)
    return BinOp(op, left, right, pos)


def _canvas_round_of(args: tuple[Expr, ...]) -> Expr | None:
    """x when args are to_canvas's spelling of round(x), if(ceil(x/(abs(x)+1)), floor(x+0.5),
    ceil(x-0.5)); None otherwise."""
    test, up, down = args
    match down:
        case Call(name="ceil", args=(BinOp(op="-", left=x, right=Num(value=0.5)),)):
            pass
        case _:
            return None
    want_test = Call("ceil", (BinOp("/", x, BinOp("+", Call("abs", (x,)), Num(1.0))),))
    want_up = Call("floor", (BinOp("+", x, Num(0.5)),))
    return x if (test, up) == (want_test, want_up) else None


# --------------------------------------------------------------------------- from Moodle

_MOODLE_TOKEN_RE = _re.compile(
    r"(?P<space>\s+)"
    r"|(?P<var>\{[^{}]*\})"
    r"|(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>\*\*|[-+*/%(),])"
)
_MOODLE_PLACEHOLDER_RE = _re.compile(r"\{([A-Za-z][A-Za-z0-9\-_\s]*)\}\Z")
"""qtype_calculated's PLACEHOLDER_REGEX_PART: [[:alpha:]][[:alpha:][:digit:]\\-_\\s]*."""

_MOODLE_BACK: dict[str, str] = {
    "sqrt": "sqrt",
    "abs": "abs",
    "floor": "floor",
    "ceil": "ceil",
    "log10": "log10",
    "exp": "exp",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
}
"""PHP function -> the lmsexport function of the same value and arity (the rest: _moodle_call)."""


def _natural(x: Expr, naturals: Collection[str]) -> bool:
    """Whether `x` is a whole number >= 0 for every dataset item (names in `naturals` are)."""
    match x:
        case Num(value=v):
            return v >= 0 and v == int(v)
        case Var(name=name):
            return name in naturals
        case BinOp(op="+" | "*", left=a, right=b):
            return _natural(a, naturals) and _natural(b, naturals)
    return False


def _trunc(x: Expr, naturals: Collection[str] = ()) -> Expr:
    """PHP's (int) of a float, truncation toward zero: max(floor(x), 0) + min(ceil(x), 0);
    x itself for a whole number >= 0, floor(a / b) for a quotient of two of them."""
    if (isinstance(x, Num) and x.value == int(x.value)) or _natural(x, naturals):
        return x
    if isinstance(x, BinOp) and x.op == "/" and _natural(x.left, naturals) and _natural(x.right, naturals):
        return Call("floor", (x,), x.pos)
    return BinOp(
        "+", Call("max", (Call("floor", (x,)), Num(0.0))), Call("min", (Call("ceil", (x,)), Num(0.0)))
    )


def from_moodle(text: str, names: Mapping[str, str] | None = None, naturals: Collection[str] = ()) -> Expr:
    """A Moodle calculated-question formula (what `<answer><text>` or a `{=...}` holds) as an
    lmsexport tree of the same value for every dataset item.

    Moodle substitutes each `{name}` by the item's value (in parentheses when <= 0) and runs the
    result with PHP's eval (qtype_calculated_variable_substituter::calculate()), so the grammar
    is PHP's: `**` (right-associative, above unary minus: `-{x}**2` is -(x^2)) above `* / %`
    above `+ -`; `{x}` becomes the variable x (`names` renames a dataset whose name lmsexport
    cannot spell, e.g. `my var` -> `my_var`). Functions (case-insensitive, as in PHP): those of
    the same name; `log(x)` is the natural log (ln), `log(x, b)` ln(x)/ln(b); `pow(a, b)` a^b;
    `pi()` pi; `round(x)` and `round(x, n)` (round(x*10^n)/10^n); `min`/`max`; `fmod`, `deg2rad`,
    `rad2deg`, `expm1`, `log1p`, `sinh`, `cosh`, `tanh` by their definitions. PHP's `%` is
    integer modulo of the operands truncated toward zero, with the dividend's sign: `a % b` is
    A - B*trunc(A/B) with A, B the truncated operands, trunc(x) = max(floor(x), 0) + min(ceil(x),
    0), which is the operand itself for a whole number >= 0 (`naturals`: the names whose every
    dataset value is one), so `{a} % {b}` reads `a - b * floor(a / b)` for such datasets.
    Numbers: decimal, with an exponent; a literal with a leading 0 is octal in PHP (010 = 8).

    Anything else raises TranslationError (PHP's comparisons, `?:`, atan2, bindec, is_nan...:
    Moodle computes them, lmsexport's language has no counterpart) or FormulaSyntaxError (what
    PHP itself cannot parse), with the offset of the culprit.
    """
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        m = _MOODLE_TOKEN_RE.match(text, i)
        if m is None:
            ch = text[i]
            if ch in "<>=!?:~&|^":
                raise TranslationError(f"lmsexport's formulas have no PHP operator {ch!r}", i)
            raise FormulaSyntaxError(f"a Moodle formula cannot hold {ch!r}", i)
        kind = m.lastgroup or ""
        if kind != "space":
            tokens.append(Token(kind, m.group(0), i))
        i = m.end()
    if not tokens:
        raise FormulaSyntaxError("empty formula", 0)
    tokens.append(Token("end", "", len(text)))
    pos = 0

    def peek() -> Token:
        return tokens[pos]

    def take() -> Token:
        nonlocal pos
        t = tokens[pos]
        pos = min(pos + 1, len(tokens) - 1)
        return t

    def number(t: Token) -> Num:
        raw = t.text
        if raw.isdigit() and len(raw) > 1 and raw[0] == "0":
            if any(c in "89" for c in raw):
                raise FormulaSyntaxError(f"{raw} is an invalid octal number in PHP", t.pos)
            return Num(float(int(raw, 8)), t.pos)
        value = float(raw)
        if not math.isfinite(value):
            raise FormulaSyntaxError(f"{raw} is not a finite number", t.pos)
        return Num(value, t.pos)

    def additive(depth: int) -> Expr:
        if depth > MAX_DEPTH:
            raise FormulaSyntaxError("too deeply nested", peek().pos)
        node = multiplicative(depth)
        while peek().text in ("+", "-") and peek().kind == "op":
            op = take()
            node = BinOp(op.text, node, multiplicative(depth), op.pos)
        return node

    def multiplicative(depth: int) -> Expr:
        node = unary(depth)
        while peek().text in ("*", "/", "%") and peek().kind == "op":
            op = take()
            right = unary(depth)
            if op.text == "%":
                a, b = _trunc(node, naturals), _trunc(right, naturals)
                node = BinOp("-", a, BinOp("*", b, _trunc(BinOp("/", a, b, op.pos), naturals)), op.pos)
            else:
                node = BinOp(op.text, node, right, op.pos)
        return node

    def unary(depth: int) -> Expr:
        t = peek()
        if t.kind == "op" and t.text in ("-", "+"):
            take()
            if depth > MAX_DEPTH:
                raise FormulaSyntaxError("too deeply nested", t.pos)
            inner = unary(depth + 1)
            return Neg(inner, t.pos) if t.text == "-" else inner
        return power(depth)

    def power(depth: int) -> Expr:
        base = primary(depth)
        if peek().kind == "op" and peek().text == "**":
            op = take()
            return BinOp("^", base, unary(depth + 1), op.pos)
        return base

    def primary(depth: int) -> Expr:
        t = take()
        if t.kind == "num":
            return number(t)
        if t.kind == "var":
            if not _MOODLE_PLACEHOLDER_RE.match(t.text):
                raise FormulaSyntaxError(f"{t.text} is not a Moodle wildcard name", t.pos)
            raw = t.text[1:-1]
            name = names.get(raw, raw) if names is not None else raw
            if peek().kind in ("num", "var", "name"):
                # Moodle pastes the value in: `{a}{b}` is the digits of a then b. Not a formula.
                raise TranslationError(
                    f"{t.text} is followed by {peek().text!r}: Moodle pastes the two values together",
                    peek().pos,
                )
            return Var(name, t.pos)
        if t.kind == "name":
            if peek().text != "(":
                raise FormulaSyntaxError(f"PHP reads {t.text!r} as an undefined constant", t.pos)
            take()
            args: list[Expr] = []
            if peek().text != ")":
                while True:
                    args.append(additive(depth + 1))
                    sep = take()
                    if sep.text == ")":
                        break
                    if sep.text != ",":
                        raise FormulaSyntaxError("expecting ',' or ')'", sep.pos)
            else:
                take()
            return _moodle_call(t.text.lower(), tuple(args), t.pos)
        if t.kind == "op" and t.text == "(":
            inner = additive(depth + 1)
            close = take()
            if close.text != ")":
                raise FormulaSyntaxError("expecting ')'", close.pos)
            return inner
        raise FormulaSyntaxError(f"expecting a value, got {t.text or 'the end'!r}", t.pos)

    node = additive(0)
    if peek().kind != "end":
        raise FormulaSyntaxError(f"unexpected {peek().text!r}", peek().pos)
    return node


def _moodle_call(name: str, args: tuple[Expr, ...], pos: int) -> Expr:
    n = len(args)
    if name in _MOODLE_BACK and n == 1:
        return Call(_MOODLE_BACK[name], args, pos)
    if name == "pi" and n == 0:
        return Const("pi", pos)
    if name in ("min", "max") and n >= 2:
        return Call(name, args, pos)
    if name == "log" and n == 1:
        return Call("ln", args, pos)
    if name == "log" and n == 2:
        return BinOp("/", Call("ln", args[:1], pos), Call("ln", args[1:], pos), pos)
    if name == "pow" and n == 2:
        return BinOp("^", args[0], args[1], pos)
    if name == "round" and n == 1:
        return Call("round", args, pos)
    if name == "round" and n == 2:
        # PHP's round(float $num, int $precision): the precision is (int) of the argument.
        places = (
            args[1] if isinstance(args[1], Num) and args[1].value == int(args[1].value) else _trunc(args[1])
        )
        scale = BinOp("^", Num(10.0), places, pos)
        return BinOp("/", Call("round", (BinOp("*", args[0], scale, pos),), pos), scale, pos)
    if name == "fmod" and n == 2:
        x, y = args
        return BinOp("-", x, BinOp("*", y, _trunc(BinOp("/", x, y, pos)), pos), pos)
    if name == "deg2rad" and n == 1:
        return BinOp("/", BinOp("*", args[0], Const("pi")), Num(180.0), pos)
    if name == "rad2deg" and n == 1:
        return BinOp("/", BinOp("*", args[0], Num(180.0)), Const("pi"), pos)
    if name == "expm1" and n == 1:
        return BinOp("-", Call("exp", args, pos), Num(1.0), pos)
    if name == "log1p" and n == 1:
        return Call("ln", (BinOp("+", Num(1.0), args[0], pos),), pos)
    if name in ("sinh", "cosh") and n == 1:
        op = "-" if name == "sinh" else "+"
        plus, minus = Call("exp", args, pos), Call("exp", (Neg(args[0]),), pos)
        return BinOp("/", BinOp(op, plus, minus, pos), Num(2.0), pos)
    if name == "tanh" and n == 1:
        plus, minus = Call("exp", args, pos), Call("exp", (Neg(args[0]),), pos)
        return BinOp("/", BinOp("-", plus, minus), BinOp("+", plus, minus), pos)
    raise TranslationError(f"lmsexport has no counterpart of PHP's {name}() with {n} argument(s)", pos)
