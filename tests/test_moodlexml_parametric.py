"""Parametric questions (issue 24) in Moodle XML: native `calculated` and `calculatedmulti` with
private datasets, checked against independent models of what Moodle does with them.

* Structure as qformat_xml::import_calculated() and qtype_calculated::import_datasets() need it:
  the four answer fields, `status` private, `synchronize` 0, itemcount = K items numbered 1..K in
  every dataset, K <= 100 (more: the first 100 and a warning).
* Every formula written passes tests/formula_oracles.py's port of
  qtype_calculated_find_formula_errors(), and Moodle's evaluation of it on every stored dataset
  item (the oracle: `{x}` -> `(value)`, PHP's precedence and functions) finds lmsexport's answer
  within Moodle's tolerance interval.
* `formula.from_moodle` (Moodle's syntax -> lmsexport's) gives the value PHP gives, on formulas
  generated at random; lmsexport's own port of the formula check agrees with the oracle's.
* Round trips: lmsexport's own file comes back exactly; a file from elsewhere (no lmsexport
  comment) keeps its variants through import -> build -> import; the real corpus's calculated
  questions (tests/corpus/moodlexml-real) come in with their dataset items as the variants, and
  each variant's answer is what Moodle computes from the file's formula.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from formula_oracles import (
    MoodleFormulaError,
    moodle_evaluate,
    moodle_find_formula_errors,
    php_eval,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lxml import etree
from moodle_parametric import bubble, parametric_quizzes, quiz, zero1_choice, zero3

from lmsexport import formula as fm
from lmsexport import variants
from lmsexport.build import build, moodlexml_round_trip
from lmsexport.model import Bank, Calculated, CalculatedChoice, Question, Quiz
from lmsexport.moodlexml import find_formula_errors
from lmsexport.readers.moodlexml import _lmsexport_names, read_quiz
from lmsexport.source import load_paths
from lmsexport.writers.moodlexml import write_quiz

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "cases" / "parametric"
CORPUS = ROOT / "tests" / "corpus" / "moodlexml-real"
CALCULATED_FILES = {
    "ewoner+moodleXML/questions-Brion Lang-Development Course-top-20201107-0938.xml": 23,
    "LucasWolfgang+QAS-Editor/calculated.xml": 1,
    "LucasWolfgang+QAS-Editor/calculatedsimple.xml": 1,
    "LucasWolfgang+QAS-Editor/all.xml": 4,
    "AdrianoRuseler+python-scripts-for-moodle-questions/calculated.xml": 1,
}
"""The real files with calculated questions -> how many: the 24 calculated, 2 calculatedsimple and
4 calculatedmulti questions of the survey (all.xml holds copies of the other two LucasWolfgang
files' questions)."""


def _case_bank() -> Bank:
    return load_paths(sorted(CASE.glob("*.yaml")))


def _written(quiz_: Quiz) -> tuple[bytes, list[str]]:
    data, diags = write_quiz(quiz_)
    assert [d.format() for d in diags if d.severity.value == "error"] == []
    return data, [d.rule for d in diags]


def _parametric(quiz_: Quiz) -> dict[str, Question]:
    return {q.id: q for q in quiz_.questions if isinstance(q.body, Calculated | CalculatedChoice)}


# --------------------------------------------------------------------------- the oracle


def check_against_moodle(data: bytes, questions: dict[str, Question]) -> int:
    """Every calculated question of a written file, judged as Moodle would: returns how many
    dataset items were evaluated."""
    root = etree.fromstring(data)
    evaluated = 0
    seen = 0
    for el in root.iter("question"):
        qtype = el.get("type")
        if qtype not in ("calculated", "calculatedmulti"):
            continue
        seen += 1
        q = questions[el.findtext("idnumber") or ""]
        body = q.body
        assert isinstance(body, Calculated | CalculatedChoice)
        assert el.findtext("synchronize") == "0"
        kept = body.variants[:100]
        k = len(kept)
        datasets: dict[str, list[str]] = {}
        for d in el.iterfind("dataset_definitions/dataset_definition"):
            assert d.findtext("status/text") == "private" and d.findtext("type") == "calculated"
            for tag in ("distribution/text", "minimum/text", "maximum/text", "decimals/text"):
                assert d.findtext(tag) is not None
            items = d.findall("dataset_items/dataset_item")
            assert d.findtext("itemcount") == str(k) == str(len(items)) == d.findtext("number_of_items")
            assert [i.findtext("number") for i in items] == [str(n) for n in range(1, k + 1)]
            values = [i.findtext("value") or "" for i in items]
            assert all(re.fullmatch(r"-?\d+(\.\d+)?", v) for v in values), values
            datasets[d.findtext("name/text") or ""] = values
        assert 1 <= k <= 100
        names = {v.name for v in body.params.variables} | {d.name for d in body.params.derived}
        assert set(datasets) == names
        # Every {name} of the formulas has a dataset (a text's other braces stay literal in Moodle).
        for text_el in el.iterfind("answer/text"):
            for m in re.finditer(r"\{([A-Za-z][A-Za-z0-9\-_\s]*)\}", text_el.text or ""):
                assert m.group(1) in datasets, m.group(0)
        answers = el.findall("answer")
        for a in answers:
            for tag in ("tolerance", "tolerancetype", "correctanswerformat", "correctanswerlength"):
                assert a.find(tag) is not None, tag
            assert a.findtext("correctanswerformat") == "1"
            assert a.findtext("correctanswerlength") == str(body.decimals)
        kind, tol = variants.moodle_tolerance(body.tolerance)
        assert {a.findtext("tolerancetype") for a in answers} == {str(kind)}
        assert {a.findtext("tolerance") for a in answers} == {tol}
        if isinstance(body, Calculated):
            (a,) = answers
            formulas = [a.findtext("text") or ""]
        else:
            texts = [a.findtext("text") or "" for a in answers]
            assert all(t.startswith("{=") and t.endswith("}") for t in texts)
            formulas = [t[2:-1] for t in texts]
        for f in formulas:
            assert moodle_find_formula_errors(f) is None, f
            assert find_formula_errors(f) is None, f
        for n, v in enumerate(kept):
            variables = {x.name for x in body.params.variables}
            item = {name: values[n] for name, values in datasets.items() if name in variables}
            keys = [v.answer] if isinstance(body, Calculated) else list(v.choices)
            for f, key in zip(formulas, keys, strict=True):
                assert key is not None
                moodle = moodle_evaluate(f, item)
                # Moodle's value is the key it grades with: lmsexport's answer is inside its interval.
                assert variants.accepts(moodle, body.tolerance, key, "moodle"), (q.id, n, f, moodle, key)
                assert moodle == pytest.approx(key, rel=1e-12, abs=1e-12)
                if isinstance(body, CalculatedChoice):
                    # What the student sees: sprintf('%.{d}F') there, format_value here.
                    shown = float(fm.format_value(key, body.decimals))
                    assert abs(shown - moodle) <= 0.5 * 10**-body.decimals + 1e-9
                evaluated += 1
    assert seen == len(questions)
    return evaluated


def test_the_python_quiz_matches_moodles_evaluation() -> None:
    qz = quiz()
    data, rules = _written(qz)
    assert rules == []
    assert check_against_moodle(data, _parametric(qz)) == 30 + 20 + 25 * 4


def test_the_case_bank_matches_moodles_evaluation_golden_and_round_trip(golden) -> None:  # type: ignore[no-untyped-def]
    bank = _case_bank()
    out = build(bank, ["moodlexml"])
    for path, data in out.files.items():
        golden(CASE / "expected" / path, data)
    assert moodlexml_round_trip(bank, out) == []
    total = 0
    for qz in bank.quizzes:
        data = out.files[f"moodle/{qz.id}.xml"]
        total += check_against_moodle(data, _parametric(qz))
    assert total > 100
    assert b'type="calculated"' in out.files["moodle/parametric.xml"]
    assert b'type="calculatedmulti"' in out.files["moodle/parametric.xml"]


def test_more_than_100_variants_write_the_first_100_with_a_warning() -> None:
    q = zero3(count=150, qid="zero3-many")
    assert isinstance(q.body, Calculated) and len(q.body.variants) == 150
    qz = quiz(q)
    data, rules = _written(qz)
    assert rules == ["moodlexml.variants-over-limit"]
    assert check_against_moodle(data, _parametric(qz)) == 100
    back, _ = read_quiz(data, "m.xml", quiz_id=qz.id, lang=qz.lang)
    (b,) = back.questions
    assert isinstance(b.body, Calculated) and b.body.variants == q.body.variants[:100]


def test_derived_values_are_datasets_of_lmsexports_shown_values() -> None:
    """`{total}` in a text shows lmsexport's value with its decimals: Moodle substitutes the
    stored text itself (the substituter's prettyvalue), while `{=...}` would be formatted by PHP."""
    q = zero3()
    data, _ = _written(quiz(q))
    root = etree.fromstring(data)
    (total,) = [d for d in root.iter("dataset_definition") if d.findtext("name/text") == "total"]
    assert isinstance(q.body, Calculated)
    shown = [variants.shown_values(q.body.params, v)["total"] for v in q.body.variants]
    assert [i.findtext("value") for i in total.iter("dataset_item")] == shown
    # The formula is over the variables only (the derived value inlined, at full precision).
    assert root.findtext("question[@type='calculated']/answer/text") == "16 * {N} / {G}"
    # Literal braces ({{ }} in the source) are Moodle's literal braces.
    assert "a literal {brace}" in data.decode()


def test_a_file_from_elsewhere_keeps_its_variants_through_import_build_import() -> None:
    qz = quiz(bubble(), zero1_choice(), zero3())
    data, _ = _written(qz)
    foreign = re.sub(rb"<!-- lmsexport.*?-->", b"", data)
    first, _ = read_quiz(foreign, "m.xml", quiz_id=qz.id, lang=qz.lang)
    again, _ = read_quiz(write_quiz(first)[0], "m.xml", quiz_id=qz.id, lang=qz.lang)
    assert again == first
    for ours, theirs in zip(qz.questions, first.questions, strict=True):
        assert isinstance(ours.body, Calculated | CalculatedChoice)
        assert isinstance(theirs.body, Calculated | CalculatedChoice)
        mine = [(dict(v.values), v.answer, v.choices) for v in ours.body.variants]
        got = [(dict(v.values), v.answer, v.choices) for v in theirs.body.variants]
        if ours.id == "zero3-per-gpu":
            # Its derived value comes back as a dataset of its shown values (a variable).
            mine = [({k: x for k, x in m.items() if k != "total"}, a, c) for m, a, c in mine]
            got = [({k: x for k, x in m.items() if k != "total"}, a, c) for m, a, c in got]
        assert got == mine
        assert theirs.stem == ours.stem


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(parametric_quizzes())
def test_any_parametric_quiz_survives_moodlexml(qz: Quiz) -> None:
    data, _ = _written(qz)
    back, _ = read_quiz(data, "q.xml", quiz_id=qz.id, lang=qz.lang)
    assert back == qz
    check_against_moodle(data, _parametric(qz))
    # Without lmsexport's comment (as another tool would leave the file), the variants stay.
    foreign = re.sub(rb"<!-- lmsexport: .*?-->", b"", data)
    first, _ = read_quiz(foreign, "q.xml", quiz_id=qz.id, lang=qz.lang)
    again, _ = read_quiz(write_quiz(first)[0], "q.xml", quiz_id=qz.id, lang=qz.lang)
    assert again == first
    for ours, theirs in zip(_parametric(qz).values(), _parametric(first).values(), strict=True):
        assert isinstance(ours.body, Calculated | CalculatedChoice)
        assert isinstance(theirs.body, Calculated | CalculatedChoice)
        variables = {v.name for v in ours.body.params.variables}
        kept = ours.body.variants[:100]
        assert [{n: x for n, x in v.values if n in variables} for v in theirs.body.variants] == [
            {n: x for n, x in v.values if n in variables} for v in kept
        ]
        for a, b in zip(kept, theirs.body.variants, strict=True):
            assert (a.answer is None) == (b.answer is None)
            if a.answer is not None and b.answer is not None:
                assert b.answer == pytest.approx(a.answer, rel=1e-9, abs=1e-12)
            assert b.choices == pytest.approx(a.choices, rel=1e-9, abs=1e-12)


# --------------------------------------------------------------------------- Moodle's formulas


@pytest.mark.parametrize(
    ("moodle", "ours"),
    [
        ("{a}*{b}", "a * b"),
        ("-{x}**2", "-x^2"),
        ("{x}**-1", "x^-1"),
        ("2**3**2", "2^3^2"),
        ("pow({a}, 2) + log({b})", "a^2 + ln(b)"),
        ("log({b}, 10)", "ln(b) / ln(10)"),
        ("pi()*{r}**2", "pi * r^2"),
        ("LOG10({x})", "log10(x)"),
        ("010 + 1", "8 + 1"),
        ("round({x}, 2)", "round(x * 10^2) / 10^2"),
        ("{a} % {b}", "a - b * floor(a / b)"),
        ("min({a}, {b}, 3)", "min(a, b, 3)"),
    ],
)
def test_from_moodle_translates(moodle: str, ours: str) -> None:
    assert fm.to_source(fm.from_moodle(moodle, naturals={"a", "b"})) == ours


@pytest.mark.parametrize(
    ("moodle", "error"),
    [
        ("{a} > 2 ? 1 : 0", fm.TranslationError),
        ("atan2({a}, {b})", fm.TranslationError),
        ("{a}{b}", fm.TranslationError),
        ("08", fm.FormulaSyntaxError),
        ("2 +", fm.FormulaSyntaxError),
        ("foo", fm.FormulaSyntaxError),
    ],
)
def test_from_moodle_refuses_what_lmsexport_cannot_say(moodle: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        fm.from_moodle(moodle)


_ATOMS = st.sampled_from(["{a}", "{b}", "{c}", "2", "0.5", "3", "(-{a})", "pi()"])
_FUNCS1 = ["sqrt", "abs", "floor", "ceil", "log10", "exp", "sin", "cos", "atan", "log", "round"]
_DOMAIN = {"sqrt": "abs({})", "log10": "abs({}) + 1", "log": "abs({}) + 1"}
"""Arguments kept inside the domain, so that few formulas are NAN in PHP."""


def _expr(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return _ATOMS
    sub = _expr(depth - 1)
    return st.one_of(
        _ATOMS,
        st.tuples(sub, st.sampled_from(["+", "-", "*", "/", "**"]), sub).map(
            lambda t: f"{t[0]} {t[1]} {t[2]}"
        ),
        st.tuples(st.sampled_from(_FUNCS1), sub).map(
            lambda t: f"{t[0]}({_DOMAIN.get(t[0], '{}').format(t[1])})"
        ),
        st.tuples(st.sampled_from(["min", "max", "pow", "fmod", "round"]), sub, sub).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
        st.tuples(sub, sub).map(lambda t: f"log(abs({t[0]}) + 1, abs({t[1]}) + 2)"),
        sub.map(lambda s: f"-({s})"),
        sub.map(lambda s: f"({s})"),
    )


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
# round() to 3,125 places: 10^places overflows, and PHP's round() gives the value back (the
# oracle raised OverflowError; found by hypothesis)
@example("(round({a}, {a} ** {a}))", 5, 1, "1.5")
@given(
    _expr(3),
    st.integers(-20, 20),
    st.integers(1, 20),
    st.sampled_from(["1.5", "2", "0.25", "-3.5", "7"]),
)
def test_from_moodle_gives_the_value_php_gives(formula: str, a: int, b: int, c: str) -> None:
    item = {"a": str(a), "b": str(b), "c": c}
    try:
        php = moodle_evaluate(formula, item)
    except MoodleFormulaError:
        return  # PHP refuses it (division by zero, ...): nothing to compare
    except (ZeroDivisionError, ValueError):
        return  # a NAN inside (0/0 in C; pow() of a NAN): the oracle's Python refuses it
    if not math.isfinite(php):
        return
    tree = fm.from_moodle(formula, naturals={"b"})
    # PHP's finite value: lmsexport's evaluator finds it too. Its refusals (sqrt(-1), ln(0), 0^-1,
    # x/0) are PHP's NAN, INF and DivisionByZeroError, which only PHP's min() and max() can turn
    # back into a number (a comparison with NAN is false): there lmsexport is stricter.
    try:
        ours = fm.evaluate(tree, {k: float(v) for k, v in item.items()})
    except fm.EvaluationError:
        # PHP went on with a NAN or INF that min(), max() or a power of 1 or to 0 turned back
        # into a number; lmsexport refuses the value at its cause.
        assert re.search(r"min\(|max\(|\*\*|pow\(", formula), (formula, item)
        return
    assert ours == pytest.approx(php, rel=1e-9, abs=1e-9), (formula, item)


@settings(max_examples=300, deadline=None)
@given(st.integers(-50, 50), st.integers(-9, 9).filter(bool), st.sampled_from(["", ".5", ".75"]))
def test_php_modulo_truncates_its_operands(a: int, b: int, frac: str) -> None:
    """PHP's `%`: (int) of each operand (toward zero), then the remainder with the dividend's sign."""
    x = float(f"{a}{frac}") if frac and a >= 0 else float(a)
    want = math.fmod(int(x), b)
    for naturals in ((), ("a", "b")):
        if naturals and (x < 0 or b < 0 or x != int(x)):
            continue
        tree = fm.from_moodle("{a} % {b}", naturals=naturals)
        assert fm.evaluate(tree, {"a": x, "b": float(b)}) == want


@settings(max_examples=300, deadline=None)
@given(st.text("{}abcx()*/+-%^,.0123456789 piolgsqrtmn#<>?:=!", max_size=24))
def test_the_formula_check_agrees_with_the_oracle(text: str) -> None:
    assert find_formula_errors(text) == moodle_find_formula_errors(text)


def test_php_eval_sanity() -> None:
    assert php_eval("-2 ** 2") == -4


# --------------------------------------------------------------------------- the real corpus


def _corpus_questions(data: bytes) -> list[tuple[str, list[str], dict[str, dict[int, str]]]]:
    """Each calculated question of a file: (type, its 100 % answers' texts, each dataset's items)."""
    out = []
    for el in etree.fromstring(data).iter("question"):
        qtype = el.get("type", "")
        if not qtype.startswith("calculated"):
            continue
        datasets = {
            d.findtext("name/text") or "": {
                int(i.findtext("number") or 0): i.findtext("value") or "" for i in d.iter("dataset_item")
            }
            for d in el.iterfind("dataset_definitions/dataset_definition")
        }
        right = [a.findtext("text") or "" for a in el.iter("answer") if a.get("fraction") == "100"]
        out.append((qtype, right, datasets))
    return out


@pytest.mark.parametrize("name", sorted(CALCULATED_FILES))
def test_the_corpus_calculated_questions_come_in_with_moodles_values(name: str) -> None:
    """Imported (none left out), the dataset items as the variants, each variant's answer (or
    choice) what Moodle computes from the file's own formula for that item (the oracle)."""
    from lmsexport.importer import find_sources, read_sources

    path = CORPUS / name
    result = read_sources(find_sources([path]), "en")
    assert not result.failed
    imported = [
        q
        for iq in result.quizzes
        for q in iq.quiz.questions
        if isinstance(q.body, Calculated | CalculatedChoice)
    ]
    originals = _corpus_questions(path.read_bytes())
    assert len(imported) == CALCULATED_FILES[name] == len(originals)
    checked = 0
    for q, (qtype, right, datasets) in zip(imported, originals, strict=True):
        body = q.body
        assert isinstance(body, Calculated if qtype != "calculatedmulti" else CalculatedChoice)
        names = [v.name for v in body.params.variables]
        if not any(datasets.values()):
            assert len(body.variants) == variants.DEFAULT_COUNT  # drawn from the ranges (named)
            continue
        # The datasets are the first variables, renamed where lmsexport reserves the name (e -> e_).
        renamed = dict(zip(datasets, names, strict=False))
        assert renamed == _lmsexport_names(list(datasets))
        items = {
            tuple(float(datasets[n][k]) for n in datasets): {n: datasets[n][k] for n in datasets}
            for k in range(1, min(len(x) for x in datasets.values()) + 1)
            if all(k in datasets[n] for n in datasets)
        }
        for v in body.variants:
            values = dict(v.values)
            item = items[tuple(values[renamed[n]] for n in datasets)]
            if isinstance(body, Calculated) and "%" in right[0]:
                # The oracle has no `%`: PHP's on whole numbers is C's fmod (the dividend's sign).
                assert right[0] == "{a} + ( {b} * {c} % {d} ) - {e} % {f}"
                a, b, c, d, e, f = (int(item[n]) for n in "abcdef")
                assert v.answer == a + math.fmod(b * c, d) - math.fmod(e, f)
            elif isinstance(body, Calculated):
                assert v.answer == pytest.approx(moodle_evaluate(right[0], item), rel=1e-12, abs=1e-12)
            else:
                (formula,) = re.findall(r"\{=(.*)\}", right[0])
                full = [i for i, c in enumerate(body.choices) if c.full]
                assert v.choices[full[0]] == pytest.approx(moodle_evaluate(formula, item), rel=1e-12)
            checked += 1
    assert checked >= len([o for o in originals if any(o[2].values())])


def test_the_banks_parametric_questions_match_moodles_evaluation_and_round_trip() -> None:
    """The bank's ZeRO memory-arithmetic quiz (source/): what `lmsexport check` round-trips."""
    bank = load_paths([ROOT / "source"])
    out = build(bank, ["moodlexml"])
    assert moodlexml_round_trip(bank, out) == []
    evaluated = sum(
        check_against_moodle(out.files[f"moodle/{qz.id}.xml"], _parametric(qz)) for qz in bank.quizzes
    )
    assert evaluated > 0


def _ratio_question(a_items: list[int], b_items: list[int]) -> bytes:
    """A calculated question from elsewhere, {a}/{b}, with private datasets of these items."""

    def dataset(name: str, values: list[int]) -> str:
        items = "".join(
            f"<dataset_item><number>{n}</number><value>{v}</value></dataset_item>"
            for n, v in enumerate(values, 1)
        )
        return (
            "<dataset_definition><status><text>private</text></status>"
            f"<name><text>{name}</text></name><type>calculated</type>"
            "<distribution><text>uniform</text></distribution><minimum><text>0</text></minimum>"
            "<maximum><text>10</text></maximum><decimals><text>0</text></decimals>"
            f"<itemcount>{len(values)}</itemcount><dataset_items>{items}</dataset_items>"
            f"<number_of_items>{len(values)}</number_of_items></dataset_definition>"
        )

    return f"""<?xml version="1.0" encoding="UTF-8"?>
<quiz><question type="calculated"><name><text>ratio</text></name>
<questiontext format="html"><text>{{a}} over {{b}}?</text></questiontext>
<generalfeedback format="html"><text></text></generalfeedback><defaultgrade>1</defaultgrade>
<penalty>0.33</penalty><hidden>0</hidden><idnumber></idnumber><synchronize>0</synchronize>
<single>0</single><answernumbering>abc</answernumbering><shuffleanswers>0</shuffleanswers>
<answer fraction="100"><text>{{a}}/{{b}}</text><tolerance>0.01</tolerance><tolerancetype>1</tolerancetype>
<correctanswerformat>1</correctanswerformat><correctanswerlength>2</correctanswerlength>
<feedback format="html"><text></text></feedback></answer>
<unitgradingtype>0</unitgradingtype><unitpenalty>0.1</unitpenalty><showunits>3</showunits><unitsleft>0</unitsleft>
<dataset_definitions>{dataset("a", a_items)}{dataset("b", b_items)}</dataset_definitions>
</question></quiz>""".encode()


def test_dataset_items_without_a_usable_variant_are_left_out_and_named() -> None:
    """Each dataset item that gives no variant of its own (here b = 0) is dropped and named; the
    others are the variants, in their order; with none left the question is left out. (The
    items are drawn together first and one by one only when that fails: the same outcome.)"""
    from lmsexport.readers.moodlexml import read_quiz_bytes

    whole, diags = read_quiz_bytes(_ratio_question([2, 3, 4], [1, 1, 2]), "m.xml", quiz_id="r", lang="en")
    assert whole is not None and not diags
    body = whole.questions[0].body
    assert isinstance(body, Calculated)
    assert [(dict(v.values), v.answer) for v in body.variants] == [
        ({"a": 2.0, "b": 1.0}, 2.0),
        ({"a": 3.0, "b": 1.0}, 3.0),
        ({"a": 4.0, "b": 2.0}, 2.0),
    ]
    some, diags = read_quiz_bytes(
        _ratio_question([2, 3, 4, 5], [1, 0, 2, 0]), "m.xml", quiz_id="r", lang="en"
    )
    assert some is not None and isinstance(some.questions[0].body, Calculated)
    assert [dict(v.values) for v in some.questions[0].body.variants] == [
        {"a": 2.0, "b": 1.0},
        {"a": 4.0, "b": 2.0},
    ]
    assert [d.message for d in diags] == [
        "question 'q1': the model has no place for dataset items 2, 4 (the answer 'a / b': division by "
        "zero (3 / 0) when a=3, b=0); dropped"
    ]
    none, diags = read_quiz_bytes(_ratio_question([2, 3], [0, 0]), "m.xml", quiz_id="r", lang="en")
    assert none is None
    left_out = [d.message for d in diags if "left out: dataset items 1, 2" in d.message]
    assert len(left_out) == 1 and "no dataset item gives a usable variant" in left_out[0]
