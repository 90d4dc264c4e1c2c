"""Variants of a parametric question: variables, derived values, constraints, and the drawing.

lmsexport draws K variants itself (no target computes fresh numbers at attempt time: see
../shared/reference/parametric-notes.md and docs/formulas.md) with a seed derived from the
question id, so the same bank gives the same variants in every process and every format. Every
variant is checked here: formulas parse, names exist, every value is finite, constraints can be
met, no distractor equals the key within the tolerance.

The first section (model dataclasses) imports nothing but the standard library and model.py's
SourceLoc, so the coordinator can move it into model.py as is; the rest is pure logic (no I/O).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TypeVar

from . import formula as fm
from .errors import Diagnostic, Severity, SourceError
from .model import (
    Block,
    BulletList,
    Calculated,
    CalculatedChoice,
    Choice,
    Constraint,
    Derived,
    Emph,
    Formula,
    Inline,
    Link,
    ListVariable,
    Math,
    MultipleChoice,
    Numerical,
    NumericKey,
    OrderedList,
    OutcomeFeedback,
    Para,
    Parameters,
    Question,
    RangeVariable,
    SingleChoice,
    SourceLoc,
    Str,
    Strong,
    Table,
    Text,
    Tolerance,
    ToleranceKind,
    Variable,
    Variant,
    evolve_question,
    map_inlines,
)

# The model of parametric questions (Formula, the variables, Parameters, Variant) lives in
# model.py; it is re-exported here with the logic that draws and checks variants.
__all__ = [
    "Constraint",
    "Derived",
    "Formula",
    "ListVariable",
    "Parameters",
    "RangeVariable",
    "SourceLoc",
    "Tolerance",
    "ToleranceKind",
    "Variable",
    "Variant",
    "DEFAULT_COUNT",
    "Drawn",
    "Given",
    "accepts",
    "draw",
    "seed_for",
    "substitute",
    "substitute_text",
    "text_problems",
    "escape_problems",
    "shown_values",
    "instantiate",
    "variant_id",
]

DEFAULT_COUNT = 20
"""Variants per question when neither the question nor the bank says."""

TARGET_MAX_VARIANTS: dict[str, int] = {"moodle": 100, "canvas": 200}
"""What each target keeps: Moodle's MAX_DATASET_ITEMS (qtype_calculated) and Canvas's
QUIZ_MAX_COMBINATION_COUNT (quizzes_controller.rb). QTI 2.1, GIFT, CC and HTML have no cap."""

MAX_COUNT = max(TARGET_MAX_VARIANTS.values())

ENUMERATE_LIMIT = 50_000
"""Spaces up to this many tuples are enumerated (exact: a constraint nobody meets is known);
larger ones are sampled with a bounded number of tries."""

MAX_TRIES_PER_VARIANT = 200

NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


def at(loc: SourceLoc | None, offset: int, path: str = "<formula>") -> SourceLoc:
    """The position `offset` characters into a formula whose text starts at `loc`.

    Exact for a formula on one line of a plain or flow scalar (`answer: 16*N/G`); for a quoted
    scalar with escapes or a block scalar it is the start of the line, plus the offset."""
    if loc is None:
        return SourceLoc(path, 1, offset + 1)
    if loc.line <= 0:
        return loc
    return SourceLoc(loc.path, loc.line, max(loc.col, 1) + offset)


def seed_for(question_id: str) -> int:
    """The drawing seed of a question: sha256 of its id, so neither PYTHONHASHSEED nor the
    process nor the order of questions in the bank changes the variants."""
    digest = hashlib.sha256(b"lmsexport-variants\0" + question_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def domain(v: Variable) -> tuple[float, ...]:
    """Every value a variable can take, in increasing order for a range."""
    if isinstance(v, ListVariable):
        return v.values
    low, step = Decimal(repr(v.low)), Decimal(repr(v.step))
    n = int((Decimal(repr(v.high)) - low) / step) + 1
    q = Decimal(1).scaleb(-v.decimals)
    return tuple(float((low + i * step).quantize(q)) for i in range(max(n, 0)))


class _Grid(Sequence[float]):
    """A range variable's values, computed on demand (a range of a billion values costs
    nothing until drawn from): value i is low + i * step, exact in decimal."""

    def __init__(self, v: RangeVariable) -> None:
        self.low, self.step = Decimal(repr(v.low)), Decimal(repr(v.step))
        self.n = max(int((Decimal(repr(v.high)) - self.low) / self.step) + 1, 0)
        self.q = Decimal(1).scaleb(-v.decimals)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.n))]
        if not 0 <= i < self.n:
            raise IndexError(i)
        return float((self.low + i * self.step).quantize(self.q))


def _values(v: Variable) -> Sequence[float]:
    """domain(v) without building it: a list's values, or a range's grid computed on demand."""
    if isinstance(v, ListVariable):
        return v.values
    return _Grid(v)


def accepts(key: float, tolerance: Tolerance, response: float, target: str = "lmsexport") -> bool:
    """Whether `response` is graded right for `key`, as `target` grades it.

    lmsexport (the HTML quiz, the checks): |r - key| <= tol (absolute) or tol * |key|
    (relative), with 1e-9 relative slack for the float error of formatting.
    moodle: qtype_numerical_answer::get_tolerance_interval with PHP precision 14: relative
    |key| * (tol + 1e-14); nominal tol + 1e-14 * max(tol, |key|, 1e-14); then min <= r <= max.
    canvas: NumericalQuestion margin: tol, or |key| * p / 100 for "p%"; key - m <= r <= key + m.
    qti21: equal toleranceMode absolute / relative (percent: key*(1-t/100) <= r <= key*(1+t/100)),
    which matches nothing when key < 0 (qtiworks and pyslet): use absolute for negative keys.
    """
    t = abs(tolerance.value)
    rel = tolerance.kind is ToleranceKind.RELATIVE
    if target == "lmsexport":
        margin = t * abs(key) if rel else t
        return abs(response - key) <= margin + 1e-9 * max(abs(key), 1e-300)
    if target == "moodle":
        eps = 1e-14
        if rel:
            rng = abs(key) * (t + eps)
            return key - rng <= response <= key + rng
        m = t + eps * max(t, abs(key), eps)
        return key - m <= response <= key + m
    if target == "canvas":
        m = abs(key) * (t * 100) / 100 if rel else t
        return key - m <= response <= key + m
    if target == "qti21":
        if rel:
            return key * (1 - t) <= response <= key * (1 + t)
        return key - t <= response <= key + t
    raise ValueError(f"unknown target {target!r}")


def moodle_tolerance(tolerance: Tolerance) -> tuple[int, str]:
    """(tolerancetype, tolerance) for a Moodle calculated answer: 1 relative (a fraction, as
    ours), 2 nominal. Moodle's 3 (geometric) has no lmsexport counterpart."""
    kind = 1 if tolerance.kind is ToleranceKind.RELATIVE else 2
    return kind, fm.format_value(abs(tolerance.value))


def canvas_tolerance(tolerance: Tolerance) -> str:
    """Canvas's answer_tolerance: "p%" for relative (|answer| * p / 100), else the number."""
    if tolerance.kind is ToleranceKind.RELATIVE:
        return fm.format_value(float(Decimal(repr(abs(tolerance.value))) * 100)) + "%"
    return fm.format_value(abs(tolerance.value))


def qti_tolerance(tolerance: Tolerance) -> tuple[str, str]:
    """(toleranceMode, tolerance) for QTI 2.1 `equal`: relative is in PERCENT there."""
    if tolerance.kind is ToleranceKind.RELATIVE:
        return "relative", fm.format_value(float(Decimal(repr(abs(tolerance.value))) * 100))
    return "absolute", fm.format_value(abs(tolerance.value))


def absolute_margin(key: float, tolerance: Tolerance) -> float:
    """The ± margin around one variant's key, for targets with absolute tolerance only (GIFT
    `=key:margin`, a Cartridge's choices)."""
    t = abs(tolerance.value)
    return t * abs(key) if tolerance.kind is ToleranceKind.RELATIVE else t


def over_limits(count: int) -> dict[str, int]:
    """The targets that keep fewer than `count` variants -> what they keep (writers decide)."""
    return {t: n for t, n in TARGET_MAX_VARIANTS.items() if count > n}


# --------------------------------------------------------------------------- drawing


@dataclass(frozen=True)
class Drawn:
    """The variants of one question and what the writers need to show them."""

    variants: tuple[Variant, ...]
    decimals: Mapping[str, int | None]
    """Digits shown per variable/derived name (None: shortest exact form)."""
    answer: fm.Expr | None
    """The parsed answer with derived values inlined (what to_moodle/to_canvas translate)."""
    choices: tuple[fm.Expr, ...]
    warnings: tuple[Diagnostic, ...] = ()

    def text_values(self, variant: Variant) -> dict[str, str]:
        """name -> the text a target shows for it in this variant."""
        return {n: fm.format_value(x, self.decimals.get(n)) for n, x in variant.values}


def _diag(
    loc: SourceLoc | None, offset: int, message: str, hint: str | None = None, rule: str = "param"
) -> Diagnostic:
    return Diagnostic(at(loc, offset), message, rule=rule, hint=hint)


def _show_env(env: Mapping[str, float], names: Sequence[str]) -> str:
    return ", ".join(f"{n}={fm.format_value(env[n])}" for n in names if n in env)


def inline(node: fm.Expr, definitions: Mapping[str, fm.Expr]) -> fm.Expr:
    """`node` with each derived name replaced by its (already inlined) definition, for targets
    that store only the variables (Moodle datasets, Canvas vars)."""
    match node:
        case fm.Var(name=name) if name in definitions:
            return definitions[name]
        case fm.Neg(operand=o, pos=p):
            return fm.Neg(inline(o, definitions), p)
        case fm.BinOp(op=op, left=a, right=b, pos=p):
            return fm.BinOp(op, inline(a, definitions), inline(b, definitions), p)
        case fm.Call(name=name, args=args, pos=p):
            return fm.Call(name, tuple(inline(a, definitions) for a in args), p)
    return node


def draw(
    question_id: str,
    params: Parameters,
    *,
    answer: Formula | None = None,
    choices: Sequence[Formula] = (),
    correct: Collection[int] = (),
    tolerance: Tolerance = Tolerance(),  # noqa: B008 (frozen, immutable)
    decimals: int | None = None,
    count: int | None = None,
    loc: SourceLoc | None = None,
    given: Sequence[Given] | None = None,
) -> Drawn:
    """Draw and check the variants of one question; raises SourceError with every problem.

    `answer` is the key formula of a numerical question; `choices` the formulas of a multiple-
    choice one, `correct` the indices of its right choices (their values are the keys).
    `decimals` is how many digits the key is shown with: two choices that show the same text
    are refused too. `count` overrides params.count (the bank's default goes here).

    `given`: the variants are not drawn but these (a source's explicit list, a Moodle dataset,
    Canvas var_sets), in this order, each checked as a drawn one is (every variable given and
    no other name, its digits within the variable's decimals, the constraints met, every formula
    finite, no distractor equal to a key); a value outside the variable's range or list is
    only a warning (Moodle's dataset items may be edited to any value)."""
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    want = count if count is not None else (params.count if params.count is not None else DEFAULT_COUNT)
    if given is not None:
        want = len(given)
    if want < 1:
        errors.append(
            _diag(loc, 0, f"question {question_id!r} asks for {want} variants", "ask for 1 or more")
        )

    # 1. Names and definitions.
    known: list[str] = []
    decimals_of: dict[str, int | None] = {}
    for v in params.variables:
        _check_name(v.name, v.loc, known, errors)
        known.append(v.name)
        decimals_of[v.name] = v.decimals
        errors.extend(_check_variable(v))
    derived_ast: dict[str, fm.Expr] = {}
    inlined: dict[str, fm.Expr] = {}
    for d in params.derived:
        _check_name(d.name, d.loc, known, errors)
        ast = _parse(d.formula, errors, known)
        if ast is not None:
            derived_ast[d.name] = ast
            inlined[d.name] = inline(ast, inlined)
        known.append(d.name)
        decimals_of[d.name] = d.decimals
    conds: list[tuple[Constraint, fm.Cond]] = []
    for c in params.constraints:
        cond = _parse_cond(c.formula, errors, known)
        if cond is not None:
            conds.append((c, cond))
    answer_ast = _parse(answer, errors, known) if answer is not None else None
    choice_asts = [_parse(c, errors, known) for c in choices]
    if errors:
        raise SourceError(errors)

    # 2. The candidates: enumerate a small space, sample a large one.
    domains = [_values(v) for v in params.variables]
    names = [v.name for v in params.variables]
    rng = random.Random(seed_for(question_id))
    size = math.prod(len(d) for d in domains)
    failures: dict[int, int] = {}
    accepted: list[dict[str, float]] = []

    failed: list[int] = []

    def admit(idx: Sequence[int]) -> dict[str, float] | None:
        return admit_env({n: domains[k][i] for k, (n, i) in enumerate(zip(names, idx, strict=True))})

    def admit_env(env: dict[str, float]) -> dict[str, float] | None:
        pending = list(range(len(conds)))
        # A constraint is tested as soon as its names are known, so `G != 0` guards `N/G`.
        for name in [None, *derived_ast]:
            if name is not None:
                try:
                    env[name] = fm.evaluate(derived_ast[name], env)
                except fm.EvaluationError as exc:
                    d = next(x for x in params.derived if x.name == name)
                    raise _VariantFailure(
                        _diag(
                            d.formula.loc,
                            exc.offset,
                            f"derived value {name}: {exc.message} when {_show_env(env, names)}",
                            "add a constraint that excludes these values",
                            "param.evaluation",
                        )
                    ) from None
            for k in list(pending):
                if set(fm.variables_of(conds[k][1])) <= env.keys():
                    pending.remove(k)
                    try:
                        ok = fm.holds(conds[k][1], env)
                    except fm.EvaluationError as exc:
                        raise _VariantFailure(
                            _diag(
                                conds[k][0].formula.loc,
                                exc.offset,
                                f"constraint {conds[k][0].formula.text!r}: {exc.message} when "
                                f"{_show_env(env, names)}",
                                None,
                                "param.evaluation",
                            )
                        ) from None
                    if not ok:
                        failures[k] = failures.get(k, 0) + 1
                        failed.append(k)
                        return None
        return env

    if given is not None:
        accepted = _admit_given(params, given, conds, admit_env, failed, errors, warnings)
        if errors:
            raise SourceError(errors)
    try:
        if given is not None:
            pass
        elif size <= ENUMERATE_LIMIT and names and not conds and not derived_ast:
            # Every combination is admitted and none can fail: the ones _pick would draw from the
            # whole list, found by their numbers in it (product order) without making the list.
            # (With no variable the one combination is {}, which admits nothing: listed below.)
            accepted = [_combination(domains, names, i) for i in _pick_numbers(rng, size, want)]
            tries = size
        elif size <= ENUMERATE_LIMIT:
            envs = [e for idx in itertools.product(*(range(len(d)) for d in domains)) if (e := admit(idx))]
            accepted = _pick(rng, envs, want)
            tries = size
        else:
            seen: set[tuple[int, ...]] = set()
            tries = 0
            while len(accepted) < want and tries < MAX_TRIES_PER_VARIANT * want:
                tries += 1
                idx = tuple(_below(rng, len(d)) for d in domains)
                if idx in seen:
                    continue
                seen.add(idx)
                if (e := admit(idx)) is not None:
                    accepted.append(e)
    except _VariantFailure as f:
        raise SourceError(f.diagnostic) from None

    if not accepted and given is None:
        k = max(failures, key=lambda k: (failures[k], -k)) if failures else 0
        worst: Constraint | None = conds[k][0] if conds else None
        how = "of the" if size <= ENUMERATE_LIMIT else "in"
        raise SourceError(
            _diag(
                worst.formula.loc if worst else loc,
                0,
                f"no variant satisfies constraint {worst.formula.text!r} "
                f"({failures.get(k, 0)} {how} {tries} value combinations fail it)"
                if worst
                else f"question {question_id!r} has no variant",
                "widen the variables' ranges or loosen the constraint",
                "param.unsatisfiable",
            )
        )
    if len(accepted) < want and given is None:
        what = "exist" if size <= ENUMERATE_LIMIT else f"were found in {tries} tries"
        warnings.append(
            Diagnostic(
                at(loc, 0),
                f"question {question_id!r} asks for {want} variants but only {len(accepted)} distinct "
                f"ones {what}; it gets {len(accepted)}",
                Severity.WARNING,
                "param.few-variants",
                "widen the ranges, loosen the constraints, or ask for fewer",
            )
        )

    # 3. The key and the choices, per variant.
    variants: list[Variant] = []
    reported: set[int] = set()
    for number, env in enumerate(accepted, 1):
        ans = _value(answer, answer_ast, env, names, -1, reported, errors)
        vals = tuple(
            _value(c, a, env, names, i, reported, errors)
            for i, (c, a) in enumerate(zip(choices, choice_asts, strict=True))
        )
        ordered = tuple((n, env[n]) for n in [*names, *derived_ast])
        variants.append(Variant(number, ordered, ans, tuple(v if v is not None else math.nan for v in vals)))
        _check_distractors(variants[-1], choices, correct, tolerance, decimals, env, names, reported, errors)
    if errors:
        raise SourceError(errors)
    return Drawn(
        tuple(variants),
        decimals_of,
        inline(answer_ast, inlined) if answer_ast is not None else None,
        tuple(inline(a, inlined) for a in choice_asts if a is not None),
        tuple(warnings),
    )


@dataclass(frozen=True)
class Given:
    """One variant given explicitly: the value of each variable (derived values are computed)."""

    values: Mapping[str, float]
    loc: SourceLoc | None = None
    """Where the variant is written (its messages point there)."""
    locs: Mapping[str, SourceLoc] | None = None
    """Where each value is written, when known."""


def digits(x: float) -> int:
    """How many digits after the point the shortest exact form of x has (0.25 -> 2, 70 -> 0)."""
    exponent = Decimal(repr(x)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _admit_given(
    params: Parameters,
    given: Sequence[Given],
    conds: Sequence[tuple[Constraint, fm.Cond]],
    admit_env: Callable[[dict[str, float]], dict[str, float] | None],
    failed: list[int],
    errors: list[Diagnostic],
    warnings: list[Diagnostic],
) -> list[dict[str, float]]:
    """The explicit variants, each checked against the declarations; problems go to errors."""
    names = [v.name for v in params.variables]
    derived = {d.name for d in params.derived}
    out: list[dict[str, float]] = []
    seen: dict[tuple[float, ...], int] = {}
    for number, g in enumerate(given, 1):
        what = f"variant {number}"
        ok = True
        for name in g.values:
            if name in names:
                continue
            here = (g.locs or {}).get(name, g.loc)
            ok = False
            if name in derived:
                errors.append(
                    _diag(here, 0, f"{what} gives {name}, a derived value", f"remove {name}: it is computed")
                )
            else:
                close = fm.did_you_mean(name, names)
                errors.append(
                    _diag(
                        here,
                        0,
                        f"{what} gives {name}, which is not a variable",
                        f"did you mean {close}?" if close else f"the variables are {', '.join(names)}",
                    )
                )
        for v in params.variables:
            if v.name not in g.values:
                ok = False
                errors.append(_diag(g.loc, 0, f"{what} has no value for {v.name}", f"add '{v.name}: ...'"))
                continue
            x = g.values[v.name]
            here = (g.locs or {}).get(v.name, g.loc)
            if not math.isfinite(x):
                ok = False
                errors.append(_diag(here, 0, f"{what}: {v.name} is not a finite number"))
                continue
            if v.decimals is not None and digits(x) > v.decimals:
                ok = False
                errors.append(
                    _diag(
                        here,
                        0,
                        f"{what}: {v.name}={fm.format_value(x)} has more digits than {v.name}'s "
                        f"{v.decimals} decimals",
                        "raise the variable's decimals: every target shows it with them",
                    )
                )
                continue
            outside = (
                x not in v.values
                if isinstance(v, ListVariable)
                else not (v.low - 1e-12 <= x <= v.high + 1e-12)
            )
            if outside:
                warnings.append(
                    Diagnostic(
                        at(here, 0),
                        f"{what}: {v.name}={fm.format_value(x)} is not one of {v.name}'s declared values",
                        Severity.WARNING,
                        "param.variant-outside",
                        "widen the variable's range or list, or correct the value",
                    )
                )
        if not ok:
            continue
        key = tuple(g.values[n] for n in names)
        if key in seen:
            warnings.append(
                Diagnostic(
                    at(g.loc, 0),
                    f"{what} repeats variant {seen[key]}",
                    Severity.WARNING,
                    "param.repeated-variant",
                    "remove it, or change its values",
                )
            )
        seen.setdefault(key, number)
        failed.clear()
        try:
            env = admit_env({n: g.values[n] for n in names})
        except _VariantFailure as f:
            errors.append(f.diagnostic)
            continue
        if env is None:
            c = conds[failed[-1]][0] if failed else None
            errors.append(
                _diag(
                    g.loc,
                    0,
                    f"{what} ({_show_env(g.values, names)}) does not satisfy constraint "
                    f"{c.formula.text if c else ''!r}",
                    "correct the values, or the constraint",
                    "param.unsatisfiable",
                )
            )
            continue
        out.append(env)
    return out


def _below(rng: random.Random, n: int) -> int:
    """A uniform integer in [0, n) from getrandbits alone: Random.seed(int) and getrandbits are
    the documented reproducible core, unlike randrange/sample/shuffle, whose algorithms Python
    may change between versions (randrange's did in 3.2)."""
    if n <= 1:
        return 0
    k = (n - 1).bit_length()
    while True:
        r = rng.getrandbits(k)
        if r < n:
            return r


def _pick(rng: random.Random, items: list[dict[str, float]], k: int) -> list[dict[str, float]]:
    """k items in random order (all of them, shuffled, when there are at most k): a partial
    Fisher-Yates shuffle over _below."""
    pool = list(items)
    k = min(k, len(pool))
    for i in range(k):
        j = i + _below(rng, len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def _pick_numbers(rng: random.Random, size: int, k: int) -> list[int]:
    """The positions _pick(rng, list of `size` items, k) takes its items from, in its order:
    the same shuffle over a pool kept only where it was swapped."""
    swapped: dict[int, int] = {}
    k = min(k, size)
    out = []
    for i in range(k):
        j = i + _below(rng, size - i)
        at_j = swapped.get(j, j)
        swapped[j] = swapped.get(i, i)
        out.append(at_j)
    return out


def _combination(domains: Sequence[Sequence[float]], names: Sequence[str], number: int) -> dict[str, float]:
    """The `number`-th combination of the domains' values in itertools.product's order."""
    env: dict[str, float] = {}
    for name, domain in reversed(list(zip(names, domains, strict=True))):
        number, i = divmod(number, len(domain))
        env[name] = domain[i]
    return {n: env[n] for n in names}


class _VariantFailure(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _check_name(name: str, loc: SourceLoc | None, known: list[str], errors: list[Diagnostic]) -> None:
    if not NAME_RE.match(name):
        errors.append(
            _diag(
                loc,
                0,
                f"variable name {name!r} is not an ASCII identifier",
                "use letters, digits and _, letter first",
            )
        )
    elif name in fm.CONSTANTS or name in fm.KEYWORDS or name in fm.FUNCTIONS or name in fm.REFUSED_FUNCTIONS:
        errors.append(_diag(loc, 0, f"variable name {name!r} is reserved", "choose another name"))
    elif name in known:
        errors.append(_diag(loc, 0, f"variable {name} is declared twice"))


def _check_variable(v: Variable) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if isinstance(v, ListVariable):
        if not v.values:
            out.append(_diag(v.loc, 0, f"variable {v.name} lists no values"))
        elif len(set(v.values)) != len(v.values):
            out.append(_diag(v.loc, 0, f"variable {v.name} lists a value twice"))
        if any(not math.isfinite(x) for x in v.values):
            out.append(_diag(v.loc, 0, f"variable {v.name} lists a value that is not a finite number"))
        return out
    if not all(math.isfinite(x) for x in (v.low, v.high, v.step)):
        return [_diag(v.loc, 0, f"variable {v.name}: low, high and step must be finite numbers")]
    if v.step <= 0:
        out.append(
            _diag(v.loc, 0, f"variable {v.name} has step {fm.format_value(v.step)}", "the step is > 0")
        )
    if v.low > v.high:
        out.append(
            _diag(
                v.loc,
                0,
                f"variable {v.name} has low {fm.format_value(v.low)} above high {fm.format_value(v.high)}",
            )
        )
    if v.decimals < 0:
        out.append(_diag(v.loc, 0, f"variable {v.name} has decimals {v.decimals}", "decimals are >= 0"))
    elif v.step > 0 and Decimal(repr(v.step)) % Decimal(1).scaleb(-v.decimals) != 0:
        out.append(
            _diag(
                v.loc,
                0,
                f"variable {v.name}: step {fm.format_value(v.step)} is finer than its {v.decimals} decimals",
                "raise decimals or coarsen the step",
            )
        )
    return out


def _parse(f: Formula, errors: list[Diagnostic], known: Sequence[str]) -> fm.Expr | None:
    return _checked(f, errors, known, fm.parse)


def _parse_cond(f: Formula, errors: list[Diagnostic], known: Sequence[str]) -> fm.Cond | None:
    return _checked(f, errors, known, fm.parse_condition)


_T = TypeVar("_T", fm.Expr, fm.Cond)


def _checked(
    f: Formula, errors: list[Diagnostic], known: Sequence[str], parser: Callable[[str], _T]
) -> _T | None:
    try:
        ast = parser(f.text)
    except fm.FormulaError as exc:
        errors.append(_diag(f.loc, exc.offset, exc.message, exc.hint, "param.syntax"))
        return None
    names = fm.check_names(ast, known)
    for e in names:
        errors.append(_diag(f.loc, e.offset, e.message, e.hint, "param.unknown-name"))
    return None if names else ast


def _value(
    f: Formula | None,
    ast: fm.Expr | None,
    env: Mapping[str, float],
    names: Sequence[str],
    index: int,
    reported: set[int],
    errors: list[Diagnostic],
) -> float | None:
    if f is None or ast is None:
        return None
    try:
        return fm.evaluate(ast, env)
    except fm.EvaluationError as exc:
        if index not in reported:  # one message per formula, for its first failing variant
            reported.add(index)
            what = "the answer" if index < 0 else f"choice {index + 1}"
            errors.append(
                _diag(
                    f.loc,
                    exc.offset,
                    f"{what} {f.text!r}: {exc.message} when {_show_env(env, names)}",
                    "add a constraint that excludes these values",
                    "param.evaluation",
                )
            )
        return None


def _check_distractors(
    variant: Variant,
    choices: Sequence[Formula],
    correct: Collection[int],
    tolerance: Tolerance,
    decimals: int | None,
    env: Mapping[str, float],
    names: Sequence[str],
    reported: set[int],
    errors: list[Diagnostic],
) -> None:
    keys = [(i, variant.choices[i]) for i in sorted(correct) if i < len(variant.choices)]
    if variant.answer is not None:
        keys.append((-1, variant.answer))
    for i, x in enumerate(variant.choices):
        if i in correct or math.isnan(x) or (1000 + i) in reported:
            continue
        for k, key in keys:
            if math.isnan(key):
                continue
            same_text = decimals is not None and fm.format_value(x, decimals) == fm.format_value(
                key, decimals
            )
            if accepts(key, tolerance, x) or same_text:
                reported.add(1000 + i)
                what = "the answer" if k < 0 else f"the right choice {k + 1}"
                shown = fm.format_value(x, decimals)
                errors.append(
                    _diag(
                        choices[i].loc,
                        0,
                        f"distractor {i + 1} {choices[i].text!r} = {shown} equals {what} within the "
                        f"tolerance in variant {variant.number} ({_show_env(env, names)})",
                        "add a constraint that keeps them apart, or change the distractor",
                        "param.distractor-equals-key",
                    )
                )
                break


# --------------------------------------------------------------------------- texts

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")


class SubstitutionError(ValueError):
    """A `{...}` in a text that is not a placeholder of a declared name."""

    def __init__(self, message: str, offset: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.hint = hint


def placeholders(text: str) -> list[tuple[str, int]]:
    """The `{name}` placeholders of a plain text, with their offsets (escapes skipped)."""
    out: list[tuple[str, int]] = []
    for m in _PLACEHOLDER.finditer(text):
        if m.group(1) is not None:
            out.append((m.group(1), m.start()))
    return out


def text_problems(text: Text | None, values: Mapping[str, str]) -> list[tuple[str, SubstitutionError]]:
    """Every brace problem `substitute_text` would raise for this text, each with the token it
    is about (`{n}`, `{`), in reading order: what the loader reports, all at once."""
    out: list[tuple[str, SubstitutionError]] = []
    for part in _plain_parts(text):
        for m in _PLACEHOLDER.finditer(part):
            try:
                substitute(m.group(0), values)
            except SubstitutionError as exc:
                out.append((m.group(0), SubstitutionError(exc.message, m.start(), exc.hint)))
    return out


def escape_problems(text: Text, values: Mapping[str, str]) -> tuple[Text, list[str]]:
    """The text with every brace token `text_problems` would report made literal (`{` -> `{{`,
    `}` -> `}}`, `{=x}` -> `{{=x}}`), and those tokens: what an importer does with a brace that
    names no variable (a Moodle inline formula, a literal brace), so that the loader reads it."""
    found: list[str] = []

    def fix(s: str) -> str:
        def one(m: re.Match[str]) -> str:
            token = m.group(0)
            try:
                substitute(token, values)
            except SubstitutionError:
                found.append(token)
                return token.replace("{", "{{").replace("}", "}}")
            return token

        return _PLACEHOLDER.sub(one, s)

    if isinstance(text, str):
        return fix(text), found

    def fix_str(x: Inline) -> Inline | None:
        return Str(fix(x.text)) if isinstance(x, Str) else None

    return map_inlines(text, fix_str), found


def _plain_parts(text: Text | None) -> list[str]:
    """The strings of a text that `substitute` reads outside TeX (Str inlines, never code)."""
    if text is None:
        return []
    if isinstance(text, str):
        return [text]
    out: list[str] = []

    def inlines(xs: tuple[Inline, ...]) -> None:
        for x in xs:
            match x:
                case Str(text=t):
                    out.append(t)
                case Emph(children=c) | Strong(children=c) | Link(children=c):
                    inlines(c)

    def block(b: Block) -> None:
        match b:
            case Para(children=c):
                inlines(c)
            case BulletList(items=items) | OrderedList(items=items):
                for item in items:
                    for x in item:
                        block(x)
            case Table(header=h, rows=rows):
                for cell in h:
                    inlines(cell)
                for row in rows:
                    for cell in row:
                        inlines(cell)

    for b in text.blocks:
        block(b)
    return out


def substitute(text: str, values: Mapping[str, str], *, tex: bool = False) -> str:
    """Replace `{name}` by values[name] in a plain text; `{{` and `}}` are literal braces.

    Every other brace is an error (a `{` alone, `{1}`, `{=...}`, an unknown name: the message
    says which, with a did-you-mean). In TeX (`tex=True`, for Math inlines) braces are TeX's
    own: only `{name}` with a declared name is replaced (by `{value}`, braces kept) and everything
    else is kept verbatim, so `\\frac{N}{G}` shows the values and `\\frac{1}{2}` stays.
    """

    def repl(m: re.Match[str]) -> str:
        whole, name = m.group(0), m.group(1)
        if tex:
            # Keep TeX's group braces: x^{N} -> x^{70}, \\frac{N}{G} -> \\frac{70}{8}.
            return "{" + values[name] + "}" if name is not None and name in values else whole
        if whole == "{{":
            return "{"
        if whole == "}}":
            return "}"
        if name is None:
            raise SubstitutionError(
                f"unmatched {whole!r}", m.start(), f"write {whole * 2} for a literal {whole}"
            )
        if name in values:
            return values[name]
        if name.startswith("="):
            raise SubstitutionError(
                "inline formulas {=...} are not part of the source format",
                m.start(),
                "declare a derived value (with its decimals) and write {name}",
            )
        close = fm.did_you_mean(name, values)
        raise SubstitutionError(
            f"unknown variable {{{name}}} in the text",
            m.start(),
            f"did you mean {{{close}}}?" if close else "write {{ and }} for literal braces",
        )

    return _PLACEHOLDER.sub(repl, text)


# --------------------------------------------------------------------------- instantiation
#
# Targets without a parametric form (QTI 2.1 by default, GIFT, the cartridges, the HTML quiz)
# get each variant as an ordinary question: the texts with the variant's values in place of the
# placeholders, the key (or each choice) as that variant's value. Every such writer goes
# through `instantiate`, so they all show and grade the same numbers.


def shown_values(params: Parameters, variant: Variant) -> dict[str, str]:
    """name -> the text every target shows for it in this variant (its declared decimals)."""
    digits: dict[str, int | None] = {v.name: v.decimals for v in params.variables}
    digits.update({d.name: d.decimals for d in params.derived})
    return {n: fm.format_value(x, digits.get(n)) for n, x in variant.values}


def substitute_text(text: Text | None, values: Mapping[str, str]) -> Text | None:
    """A text of the bank with its placeholders replaced: a plain text through `substitute`; in
    rich text every Str (link texts, list items and table cells included) and every formula's
    TeX (`tex=True`), never code, which is verbatim. Raises SubstitutionError as `substitute`."""
    if text is None:
        return None
    if isinstance(text, str):
        return substitute(text, values)

    def sub(x: Inline) -> Inline | None:
        match x:
            case Str(text=t):
                return Str(substitute(t, values))
            case Math(tex=tex, display=d):
                return Math(substitute(tex, values, tex=True), d)
        return None  # code (verbatim), images, line breaks, gaps

    return map_inlines(text, sub)


def variant_id(question_id: str, variant: Variant) -> str:
    """The id of one variant as its own question: `<id>-v001` (three digits: at most 200)."""
    return f"{question_id}-v{variant.number:03d}"


_INSTANCES: dict[tuple[int, int], tuple[Question, Variant, Question]] = {}
_INSTANCES_MAX = 4096
"""The last variants instantiated, by the identity of (question, variant): a worker's writers
(QTI 2.1 asks five times a question, the cartridges, GIFT and the HTML quiz once each) share
one instance of each variant. Each entry holds its question and variant, so their ids cannot
be reused while it is kept, and both are frozen, so an instance made once stays right."""


def instantiate(question: Question, variant: Variant) -> Question:
    """One variant of a parametric question as an ordinary question of the bank: Numerical for
    Calculated (one key: the variant's answer at full precision, the tolerance as an absolute
    margin around it), SingleChoice / MultipleChoice for CalculatedChoice (each choice its value
    shown with the question's decimals). Every text has the variant's values in place."""
    key = (id(question), id(variant))
    hit = _INSTANCES.get(key)
    if hit is not None and hit[0] is question and hit[1] is variant:
        return hit[2]
    made = _instantiate(question, variant)
    if len(_INSTANCES) >= _INSTANCES_MAX:
        del _INSTANCES[next(iter(_INSTANCES))]  # the oldest
    _INSTANCES[key] = (question, variant, made)
    return made


def _instantiate(question: Question, variant: Variant) -> Question:
    body = question.body
    if not isinstance(body, Calculated | CalculatedChoice):
        raise TypeError(f"{question.id} is not parametric")
    values = shown_values(body.params, variant)

    def sub(text: Text | None) -> Text | None:
        return substitute_text(text, values)

    new_body: Numerical | SingleChoice | MultipleChoice
    if isinstance(body, Calculated):
        assert variant.answer is not None
        new_body = Numerical(
            keys=(
                NumericKey(answer=variant.answer, tolerance=absolute_margin(variant.answer, body.tolerance)),
            ),
            units=body.units,
        )
    else:
        choices = tuple(
            Choice(fm.format_value(x, body.decimals), c.credit, sub(c.feedback), loc=c.loc)
            for c, x in zip(body.choices, variant.choices, strict=True)
        )
        new_body = MultipleChoice(choices) if body.multiple else SingleChoice(choices)
    stem = sub(question.stem)
    assert stem is not None
    fb = question.feedback
    return evolve_question(
        question,
        id=variant_id(question.id, variant),
        stem=stem,
        body=new_body,
        name=f"{question.name} ({variant.number})" if question.name else None,
        explanation=sub(question.explanation),
        feedback=OutcomeFeedback(sub(fb.correct), sub(fb.partial), sub(fb.incorrect), fb.show_num_correct),
        hints=tuple(replace(h, text=sub(h.text) or "") for h in question.hints),
    )
