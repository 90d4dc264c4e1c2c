"""The formula language: parser errors, evaluation, printing, and the Moodle/Canvas translations
checked against independent oracles (tests/formula_oracles.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lmsexport import formula as fm
from lmsexport.formula import (
    BinOp,
    Call,
    Const,
    EvaluationError,
    FormulaError,
    Neg,
    Num,
    TranslationError,
    Var,
    evaluate,
    format_value,
    parse,
    parse_condition,
    to_canvas,
    to_moodle,
    to_source,
)
from tests.formula_oracles import (
    CanvasFormulaError,
    MoodleFormulaError,
    canvas_evaluate,
    moodle_evaluate,
    moodle_find_formula_errors,
)

# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("16*N/G", BinOp("/", BinOp("*", Num(16), Var("N")), Var("G"))),
        ("-x^2", Neg(BinOp("^", Var("x"), Num(2)))),
        ("2^3^4", BinOp("^", Num(2), BinOp("^", Num(3), Num(4)))),
        ("2**-x", BinOp("^", Num(2), Neg(Var("x")))),
        ("a - -b", BinOp("-", Var("a"), Neg(Var("b")))),
        ("1e-3 + .5 + 2.", BinOp("+", BinOp("+", Num(0.001), Num(0.5)), Num(2.0))),
        ("pi * e", BinOp("*", Const("pi"), Const("e"))),
        ("max(a, b, 3)", Call("max", (Var("a"), Var("b"), Num(3)))),
        (
            "(p - 1) / (m + p - 1)",
            BinOp("/", BinOp("-", Var("p"), Num(1)), BinOp("-", BinOp("+", Var("m"), Var("p")), Num(1))),
        ),
    ],
)
def test_parse_trees(text: str, tree: fm.Expr) -> None:
    assert parse(text) == tree


def test_offsets_are_kept() -> None:
    t = parse("16 * N / G")
    assert isinstance(t, BinOp) and t.pos == 7
    assert isinstance(t.right, Var) and t.right.pos == 9


@pytest.mark.parametrize(
    ("text", "col", "message", "hint"),
    [
        ("", 1, "empty formula", None),
        (
            "16*N/",
            6,
            "expected a number, a name or '(', found the end of the formula",
            "an operator needs a value on each side",
        ),
        ("2x", 2, "a number cannot run into a name: '2x'", "write 2*x, not 2x"),
        ("(a+b", 5, "expected ')' to close the '(' at column 1, found the end of the formula", None),
        ("a b", 3, "unexpected 'b'", "put an operator between the two, e.g. 2*x"),
        ("a)", 2, "unexpected ')'", "remove it or add the matching ("),
        ("{N}/2", 1, "unexpected character '{'", "write variables by name in a formula: N/G, not {N}/{G}"),
        ("x = 2", 3, "unexpected character '='", "compare with == in a constraint"),
        ("1e+", 1, "malformed number '1e+': an exponent needs digits", "write 1e-3 or 1.5E6"),
        ("sqr(x)", 1, "unknown function sqr", "did you mean sqrt?"),
        (
            "2*log(x)",
            3,
            "function log is not available: `log` is the natural logarithm in Moodle (PHP) "
            "and base 10 in Canvas; say which",
            "use ln(x) for the natural logarithm or log10(x) for base 10",
        ),
        ("pow(a, 2)", 1, "function pow is not available: write the power as a ^ b", "use a ^ b"),
        ("min(a)", 1, "min takes at least 2 arguments, given 1", None),
        ("sqrt(a, b)", 1, "sqrt takes 1 argument, given 2", None),
        ("sqrt", 1, "function sqrt needs arguments in parentheses", "write sqrt(x)"),
        ("pi()", 1, "pi is a constant, not a function", "write pi"),
        ("+x", 1, "unary plus is not part of the language", "remove the +"),
        ("a < b", 3, "a comparison (<) is only allowed in a constraint", "an answer is a number"),
        ("a and b", 3, "unexpected 'and'", "put an operator between the two, e.g. 2*x"),
        ("x ≤ 2", 3, "unexpected character '≤'", None),
    ],
)
def test_syntax_errors(text: str, col: int, message: str, hint: str | None) -> None:
    with pytest.raises(FormulaError) as info:
        parse(text)
    assert (info.value.col, info.value.message, info.value.hint) == (col, message, hint)


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("a < b < c", 7, "comparisons do not chain"),
        ("a", 2, "expected a comparison (<, <=, >, >=, ==, !=), found the end of the formula"),
        ("a < ", 5, "expected a number, a name or '(', found the end of the formula"),
    ],
)
def test_condition_errors(text: str, col: int, message: str) -> None:
    with pytest.raises(FormulaError) as info:
        parse_condition(text)
    assert (info.value.col, info.value.message) == (col, message)


def test_nesting_is_bounded() -> None:
    assert parse("(" * 40 + "x" + ")" * 40) == Var("x")
    assert parse_condition("(" * 40 + "a + b" + ")" * 40 + " < c")
    with pytest.raises(FormulaError) as info:
        parse("(" * 41 + "x" + ")" * 41)
    assert (info.value.col, info.value.message) == (41, "parentheses nested deeper than 40")


def test_conditions() -> None:
    env = {"G": 8.0, "N": 70.0, "p": 4.0, "m": 8.0}
    for text, expected in [
        ("G <= N", True),
        ("G > N or N == 70", True),
        ("not (G < N) and p < m", False),
        ("(p + 1) * 2 < m", False),
        ("(p < m) and (m <= 4 * p)", True),
        ("not not G != 8", False),
    ]:
        assert fm.holds(parse_condition(text), env) is expected, text
        assert parse_condition(to_source(parse_condition(text))) == parse_condition(text)


def test_unknown_variables_with_did_you_mean() -> None:
    errors = fm.check_names(parse("16*n/Gpus + N"), ["N", "G", "gpus"])
    assert [(e.col, e.message, e.hint) for e in errors] == [
        (4, "unknown variable n", "did you mean N?"),
        (6, "unknown variable Gpus", "did you mean gpus?"),
    ]
    assert fm.check_names(parse("x"), [])[0].hint == "declare it under variables:"


# --------------------------------------------------------------------------- evaluation


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("N / (G - 8)", 3, "division by zero (12 / 0)"),
        ("sqrt(G - 9)", 1, "sqrt of a negative number (-1)"),
        ("ln(G - 8)", 1, "ln of a number that is not positive (0)"),
        ("log10(-G)", 1, "log10 of a number that is not positive (-8)"),
        ("asin(G)", 1, "asin of a number outside [-1, 1] (8)"),
        ("10 ^ 400", 4, "the result of 10 ^ 400 is not finite"),
        ("exp(1000)", 1, "exp(1000) is not a finite number"),
        ("(-G) ^ 0.5", 6, "a negative number to a fractional power (-8 ^ 0.5)"),
        ("0 ^ -1", 3, "0 to a negative power (-1)"),
        ("1e308 * 10", 7, "the result of 1e+308 * 10 is not finite"),
    ],
)
def test_evaluation_errors(text: str, col: int, message: str) -> None:
    with pytest.raises(EvaluationError) as info:
        evaluate(parse(text), {"N": 12.0, "G": 8.0})
    assert (info.value.col, info.value.message) == (col, message)


def test_evaluation_values() -> None:
    env = {"x": -2.5, "N": 7.0, "G": 8.0}
    assert evaluate(parse("round(x)"), env) == -3.0  # halves away from zero, like PHP
    assert evaluate(parse("round(2.5)"), env) == 3.0
    assert evaluate(parse("-2^2"), env) == -4.0
    assert evaluate(parse("2^3^2"), env) == 512.0
    assert evaluate(parse("(-2)^3"), env) == -8.0
    assert evaluate(parse("floor(x) + ceil(x)"), env) == -5.0
    assert evaluate(parse("log10(1000)"), env) == 3.0
    assert evaluate(parse("16*N/G"), env) == 14.0


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("x", "decimals", "text"),
    [
        (2.675, 2, "2.68"),  # the float is 2.67499999...; the digits a reader sees round up
        (2.5, 0, "3"),
        (-2.5, 0, "-3"),
        (0.125, 2, "0.13"),
        (-0.001, 2, "0.00"),  # never "-0.00"
        (1e-7, None, "0.0000001"),
        (1.5e20, None, "150000000000000000000"),
        (24.0, None, "24"),
        (24.0, 2, "24.00"),
        (0.1 + 0.2, None, "0.30000000000000004"),
        (1 / 3, 4, "0.3333"),
    ],
)
def test_format_value(x: float, decimals: int | None, text: str) -> None:
    assert format_value(x, decimals) == text


def test_format_value_refuses_non_finite() -> None:
    with pytest.raises(ValueError):
        format_value(math.inf)


# --------------------------------------------------------------------------- translations


@pytest.mark.parametrize(
    ("text", "source", "moodle", "canvas"),
    [
        ("16*N/G", "16 * N / G", "16 * {N} / {G}", "16 * N / G"),
        ("4*N + 12*N/G", "4 * N + 12 * N / G", "4 * {N} + 12 * {N} / {G}", "4 * N + 12 * N / G"),
        ("(p-1)/(m+p-1)", "(p - 1) / (m + p - 1)", "({p} - 1) / ({m} + {p} - 1)", "(p - 1) / (m + p - 1)"),
        ("-x^2", "-x^2", "-{x}**2", "(0-x^2)"),
        ("2^3^2", "2^3^2", "2**3**2", "2^(3^2)"),
        ("(2^3)^2", "(2^3)^2", "(2**3)**2", "(2^3)^2"),
        ("2^-x", "2^-x", "2**-{x}", "2^((0-x))"),
        ("-sqrt(x)", "-sqrt(x)", "-sqrt({x})", "(0-sqrt(x))"),
        ("ln(x) + log10(x)", "ln(x) + log10(x)", "log({x}) + log10({x})", "ln(x) + log(x)"),
        ("exp(x)", "exp(x)", "exp({x})", "e^(x)"),
        ("2^exp(x)", "2^exp(x)", "2**exp({x})", "2^(e^(x))"),  # found by hypothesis: 0^e^(0) = 1
        ("pi * e", "pi * e", "pi() * exp(1)", "pi * e"),
        ("1e-3 * x", "0.001 * x", "0.001 * {x}", "0.001 * x"),
        ("min(a, b)", "min(a, b)", "min({a}, {b})", "min(a, b)"),
        ("round(x)", "round(x)", "round({x})", "if(ceil((x)/(abs(x)+1)), floor((x)+0.5), ceil((x)-0.5))"),
    ],
)
def test_translations(text: str, source: str, moodle: str, canvas: str) -> None:
    tree = parse(text)
    assert (to_source(tree), to_moodle(tree), to_canvas(tree)) == (source, moodle, canvas)
    assert moodle_find_formula_errors(moodle) is None


def test_translation_errors() -> None:
    with pytest.raises(TranslationError):
        to_moodle(parse_condition("a < b"))  # type: ignore[arg-type]
    with pytest.raises(TranslationError):
        to_canvas(parse_condition("a < b"))  # type: ignore[arg-type]


def test_what_the_targets_would_get_wrong() -> None:
    """Why the translations are not the obvious ones: each naive spelling, run by the oracle."""
    assert moodle_find_formula_errors("{x}^2") == "illegalformulasyntax ^"
    assert canvas_evaluate("2^3^2", {}) == 64.0  # left-associative
    assert canvas_evaluate("-x^2", {"x": 3.0}) == 9.0  # the sign is glued to x
    assert canvas_evaluate("log(100)", {}) == pytest.approx(2.0)  # base 10
    assert canvas_evaluate("e(0)", {}) == pytest.approx(math.e)  # exp(x || 1)
    with pytest.raises(CanvasFormulaError):
        canvas_evaluate("-sqrt(4)", {})
    with pytest.raises(CanvasFormulaError):
        canvas_evaluate("1e-3", {})
    with pytest.raises(MoodleFormulaError):
        moodle_evaluate("1 / ({x} - 2)", {"x": "2"})  # PHP 8 DivisionByZeroError


# --------------------------------------------------------------------------- property tests

NAMES = ("a", "b", "c", "N", "G")
ENV = {"a": 1.5, "b": -2.0, "c": 3.0, "N": 70.0, "G": 8.0}
ENV0 = {"a": 0.0, "b": -0.25, "c": 12.5, "N": 1.0, "G": 64.0}
"""Zero (Moodle writes it as "(0)", Canvas reads `0 || x`) and a negative decimal."""

numbers = st.one_of(
    st.integers(0, 100).map(float),
    st.sampled_from([0.5, 0.25, 1.5, 2.75, 0.001, 12.5, 1e-5]),
)
leaves = st.one_of(
    numbers.map(Num),
    st.sampled_from(NAMES).map(Var),
    st.sampled_from(["pi", "e"]).map(Const),
)


def _extend(inner: st.SearchStrategy[fm.Expr]) -> st.SearchStrategy[fm.Expr]:
    one = st.sampled_from([n for n, f in fm.FUNCTIONS.items() if f.min_args == 1])
    return st.one_of(
        inner.map(Neg),
        st.builds(BinOp, st.sampled_from(["+", "-", "*", "/", "^"]), inner, inner),
        st.builds(lambda n, a: Call(n, (a,)), one, inner),
        st.builds(
            lambda n, xs: Call(n, tuple(xs)),
            st.sampled_from(["min", "max"]),
            st.lists(inner, min_size=2, max_size=3),
        ),
    )


trees = st.recursive(leaves, _extend, max_leaves=12)


@settings(max_examples=500, deadline=None)
@given(trees)
def test_print_parse_round_trip(tree: fm.Expr) -> None:
    assert parse(to_source(tree)) == tree


def _subtrees_ok(tree: fm.Expr, env: dict[str, float]) -> float | None:
    """The largest magnitude of any subterm, or None when the example sits on a discontinuity
    (floor/ceil/round near an integer or a half, a negative base to a near-integer power),
    where one ulp of difference between two correct implementations changes the result."""
    biggest = 0.0
    for node in fm.walk(tree):
        assert not isinstance(node, fm.Compare | fm.BoolOp | fm.Not)
        v = evaluate(node, env)
        biggest = max(biggest, abs(v))
        if isinstance(node, Call) and node.name in ("floor", "ceil", "round"):
            x = evaluate(node.args[0], env)
            if abs(x * 2 - round(x * 2)) < 1e-6 * max(1.0, abs(x)):
                return None
        if isinstance(node, BinOp) and node.op == "^" and evaluate(node.left, env) < 0:
            return None
        if isinstance(node, Call) and node.name in ("asin", "acos", "sqrt", "ln", "log10"):
            x = evaluate(node.args[0], env)
            if abs(abs(x) - 1) < 1e-6 or abs(x) < 1e-6:
                return None
    return biggest


@settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(trees, st.sampled_from([ENV, ENV0]))
def test_moodle_and_canvas_compute_what_lmsexport_computes(tree: fm.Expr, env: dict[str, float]) -> None:
    try:
        ours = evaluate(tree, env)
        scale = _subtrees_ok(tree, env)
    except EvaluationError:
        assume(False)
        return
    assume(scale is not None and scale < 1e12)
    assert scale is not None
    tol = 1e-9 * max(1.0, scale)
    moodle = moodle_evaluate(to_moodle(tree), {k: format_value(v) for k, v in env.items()})
    canvas = canvas_evaluate(to_canvas(tree), env)
    assert abs(moodle - ours) <= tol, (to_moodle(tree), moodle, ours)
    assert abs(canvas - ours) <= tol, (to_canvas(tree), canvas, ours)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="0123456789.eE+-*/^()<>=!, abxNGpiandorts\t{}_", max_size=40))
def test_any_text_parses_or_fails_with_a_position(text: str) -> None:
    for parser in (parse, parse_condition):
        try:
            parser(text)
        except FormulaError as exc:
            assert 0 <= exc.offset <= len(text)
            assert exc.message
