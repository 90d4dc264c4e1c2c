"""Parametric (calculated) questions in the HTML quiz, without a browser: the golden page, each
variant's texts, key and choices exactly as variants.instantiate gives them (what every other
format shows), the grading margin against variants.accepts, texts shared by every variant written
once, nothing of the key in the visible page, the page's size for a 20-variant question against
one question per variant, and pages without parametric questions carrying none of their code.
tests/test_html_parametric_browser.py runs the same page in Chromium."""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import lxml.html
import pytest
from conftest import make_types_quiz
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import quizzes
from test_html_writer import page_data, parse, visible_text

from lmsexport import variants as vt
from lmsexport.formula import format_value
from lmsexport.model import (
    CalcChoice,
    Calculated,
    CalculatedChoice,
    Constraint,
    Derived,
    Formula,
    Hint,
    ListVariable,
    Math,
    Numerical,
    NumericKey,
    OutcomeFeedback,
    Para,
    Parameters,
    Question,
    Quiz,
    RangeVariable,
    Rich,
    Str,
    Text,
    Tolerance,
    ToleranceKind,
    Unit,
    Variant,
    plain_text,
)
from lmsexport.writers.html import body, content, render_quiz

HERE = Path(__file__).resolve().parent
REL1 = Tolerance(0.01, ToleranceKind.RELATIVE)
N = RangeVariable("N", 1, 70, 1, 0)
"""Billions of parameters."""
G = ListVariable("G", (8.0, 16.0, 32.0, 64.0))
"""GPUs."""


def calculated(
    qid: str, params: Parameters, answer: str, tolerance: Tolerance, decimals: int, **kw
) -> Question:
    """A numerical parametric question, its variants drawn as the loader draws them."""
    units = kw.pop("units", ())
    drawn = vt.draw(qid, params, answer=Formula(answer), tolerance=tolerance, decimals=decimals)
    body = Calculated(params, Formula(answer), tolerance, decimals, units, variants=drawn.variants)
    return Question(id=qid, body=body, **kw)


def calculated_choice(
    qid: str, params: Parameters, choices: list[tuple[str, float, str | None]], multiple: bool = False, **kw
) -> Question:
    """A choice parametric question: (formula, credit, feedback) per choice."""
    formulas = [Formula(f) for f, _, _ in choices]
    correct = [i for i, (_, credit, _) in enumerate(choices) if credit > 0]
    drawn = vt.draw(qid, params, choices=formulas, correct=correct, tolerance=REL1, decimals=2)
    body = CalculatedChoice(
        params,
        tuple(
            CalcChoice(f, credit, feedback)
            for f, (_, credit, feedback) in zip(formulas, choices, strict=True)
        ),
        multiple=multiple,
        decimals=2,
        tolerance=REL1,
        variants=drawn.variants,
    )
    return Question(id=qid, body=body, **kw)


def model_quiz(lang: str = "ur") -> Quiz:
    """Every shape of parametric question the page shows, built in Python (as the loader would):
    an Urdu numerical one with units, a derived value, a hint and combined feedback; an English
    single choice one whose distractors are the other ZeRO stages; an Urdu one with a formula in
    its rich stem and explanation; a multiple choice one; one with a single variant; and an
    ordinary numerical question among them."""
    zero = Parameters((N, G), derived=(Derived("total", Formula("16*N"), 0),), count=20)
    zero3 = calculated(
        "p-zero3",
        zero,
        "total / G",
        REL1,
        2,
        units=(Unit("GB", 1.0), Unit("MB", 1000.0)),
        stem="{N} ارب پیرامیٹرز کا ماڈل {G} GPUs پر ZeRO-3 کے ساتھ تربیت پاتا ہے۔"
        " ہر GPU پر ماڈل کی حالت کتنے GB ہے؟",
        explanation="ماڈل کی حالت 16 × {N} = {total} GB ہے، جو {G} GPUs میں برابر بٹتی ہے۔",
        hints=(Hint("{total} GB کو {G} پر تقسیم کریں۔"),),
        feedback=OutcomeFeedback(correct="شاباش!", incorrect="ZeRO-3 سب کچھ {G} حصوں میں بانٹتا ہے۔"),
        points=2,
    )
    zero1 = calculated_choice(
        "p-zero1",
        Parameters((N, G), count=15),
        [
            ("4*N + 12*N/G", 1.0, "Only the optimizer states are split over the {G} GPUs."),
            ("16*N/G", 0.0, "That is ZeRO-3."),
            ("2*N + 14*N/G", 0.0, "That is ZeRO-2."),
            ("16*N", 0.0, None),
        ],
        stem="A {N}B-parameter model trains with ZeRO-1 on {G} GPUs (mixed precision, Adam). "
        "How many GB of model state does each GPU hold?",
        lang="en",
        explanation="2N + 2N of fp16 weights and gradients stay whole; the 12N of Adam states are split: "
        "4 × {N} + 12 × {N} / {G}.",
    )
    bubble_params = Parameters(
        (RangeVariable("p", 2, 8, 1, 0), ListVariable("m", (8.0, 16.0, 32.0))),
        constraints=(Constraint(Formula("m >= p")),),
        count=12,
    )
    bubble = calculated(
        "p-bubble",
        bubble_params,
        "(p - 1) / (m + p - 1)",
        Tolerance(0.005),
        3,
        stem=Rich(
            (
                Para(
                    (
                        Str("پائپ لائن کے {p} اسٹیجز اور {m} مائیکرو بیچز ہیں (GPipe)۔ ببل کا حصہ "),
                        Math("\\frac{p-1}{m+p-1}"),
                        Str(" کتنا ہے؟"),
                    )
                ),
            )
        ),
        explanation=Rich((Para((Str("ببل کا حصہ "), Math("({p} - 1) / ({m} + {p} - 1)"), Str(" ہے۔"))),)),
    )
    shards = calculated_choice(
        "p-shards",
        Parameters((N, G), count=10),
        [
            ("2*N + 14*N/G", 0.5, None),
            ("16*N/G", 0.5, None),
            ("4*N + 12*N/G", -0.5, "ZeRO-1 keeps every gradient."),
            ("16*N", -0.5, None),
        ],
        multiple=True,
        stem="Which of these are the per-GPU model state (GB) of a ZeRO stage that shards the gradients, "
        "for {N}B parameters on {G} GPUs?",
        lang="en",
    )
    single = calculated(
        "p-single",
        Parameters((ListVariable("N", (7.5,)),), count=1),
        "16 * N",
        Tolerance(0),
        1,
        stem="How many GB of model state does a {N}B-parameter model need with Adam?",
        lang="en",
    )
    plain = Question(
        id="p-plain",
        stem="ایک پیرامیٹر کی ماڈل کی حالت کتنے بائٹس ہے؟",
        body=Numerical((NumericKey(answer=16),)),
    )
    return Quiz(
        id=f"parametric-{lang}",
        title="پیرامیٹرک سوالات" if lang == "ur" else "Parametric questions",
        lang=lang,
        questions=(zero3, zero1, bubble, shards, single, plain),
    )


@pytest.fixture(scope="module")
def quiz() -> Quiz:
    return model_quiz()


@pytest.fixture(scope="module")
def html(quiz: Quiz) -> str:
    return render_quiz(quiz)


@pytest.fixture(scope="module")
def doc(html: str) -> lxml.html.HtmlElement:
    return parse(html)


def data_of(doc: lxml.html.HtmlElement, qid: str) -> dict:
    return next(q for q in page_data(doc)["questions"] if q["id"] == qid)


def variant_data(q: dict) -> list[dict]:
    """Each variant's full data, as the script sees it once the variant is drawn."""
    common = {k: v for k, v in q.items() if k != "variants"}
    return [{**common, **v} for v in q["variants"]]


def template_text(doc: lxml.html.HtmlElement, tid: str) -> str:
    (t,) = doc.xpath(f"//template[@id='{tid}']")
    return t.text_content()


def words(text: Text | None) -> str:
    """What a text reads as in the page: a formula by its MathML's characters and its TeX (the
    annotation), as text_content() gives them."""
    if isinstance(text, str):
        return text
    tree = parse(f"<div>{content(text, 'ur')}</div>") if text.inline is not None else parse(body(text, "ur"))
    return tree.body.text_content()


def section(doc: lxml.html.HtmlElement, qid: str) -> lxml.html.HtmlElement:
    (found,) = doc.xpath(f'//section[@data-question-id="{qid}"]')
    return found


# --- golden page ----------------------------------------------------------------------------


def test_model_page_golden(html: str, golden) -> None:
    golden(HERE / "cases" / "html" / "parametric-model.html", html)


def test_same_bytes_every_build(quiz: Quiz, html: str) -> None:
    assert render_quiz(quiz) == html
    assert render_quiz(model_quiz()) == html


# --- every variant is what instantiate gives -----------------------------------------------------


def test_every_variant_is_the_instantiated_question(quiz: Quiz, doc) -> None:
    """The texts, keys and choices of each variant are exactly what variants.instantiate gives,
    the text every other format (QTI 2.1 items, GIFT's category, the cartridges) shows."""
    for n, question in enumerate(quiz.questions, 1):
        body = question.body
        if not isinstance(body, Calculated | CalculatedChoice):
            continue
        q = data_of(doc, question.id)
        box = section(doc, question.id)
        assert box.get("data-type") == question.type.value
        assert len(q["variants"]) == len(body.variants)
        (stem,) = box.xpath(f".//*[@id='q{n}-stem']")
        for v, d in zip(body.variants, variant_data(q), strict=True):
            inst = vt.instantiate(question, v)
            assert d["variant"] == v.number
            # The stem: a template of each variant's (the first's also in the page, for no JS), or
            # none when every variant's stem is the same (the page's stays).
            if len(body.variants) > 1:
                assert template_text(doc, d["stem"]) == words(inst.stem)
            else:
                assert "stem" not in d and stem.text_content() == words(inst.stem)
            if question.explanation:
                assert template_text(doc, d["explanation"]) == words(inst.explanation)
            for i, h in enumerate(inst.hints):
                assert template_text(doc, d["hints"][i]["id"]).endswith(plain_text(h.text))
            if inst.feedback.incorrect:
                assert template_text(doc, d["outcome"]["incorrect"]) == plain_text(inst.feedback.incorrect)
            if isinstance(body, Calculated):
                assert isinstance(inst.body, Numerical) and v.answer is not None
                unit = f" {body.units[0].name}" if body.units else ""
                assert d["keyText"] == format_value(v.answer, body.decimals) + unit
                assert d["near"][0] == v.answer == inst.body.keys[0].answer
                assert d["type"] == "numerical"
            else:
                assert d["choices"] == [plain_text(c.text) for c in inst.body.choices]  # type: ignore[union-attr]
                assert d["credit"] == [c.credit for c in body.choices]
                assert d["type"] == ("multiple" if body.multiple else "single")
                for i, c in enumerate(inst.body.choices):  # type: ignore[union-attr]
                    if c.feedback:
                        assert template_text(doc, d["feedback"][i]) == plain_text(c.feedback)
        # Without JavaScript the page shows the first variant.
        first = vt.instantiate(question, body.variants[0])
        assert stem.text_content() == words(first.stem)


def test_key_shown_with_the_questions_decimals(quiz: Quiz, doc) -> None:
    zero3 = variant_data(data_of(doc, "p-zero3"))
    assert all(re.fullmatch(r"\d+\.\d\d GB", d["keyText"]) for d in zero3)
    bubble = variant_data(data_of(doc, "p-bubble"))
    assert all(re.fullmatch(r"0\.\d{3}", d["keyText"]) for d in bubble)
    (single,) = variant_data(data_of(doc, "p-single"))
    assert single["keyText"] == "120.0" and single["near"] == [120.0, 120.0 * 1e-9]


def test_the_margin_decides_as_variants_accepts(quiz: Quiz, doc) -> None:
    """The page's rule, |response - key| <= margin with the writer's margin, gives
    variants.accepts(..., "lmsexport") for random responses at and around each bound."""
    rng = random.Random(24)
    checked = 0
    for question in quiz.questions:
        if not isinstance(question.body, Calculated):
            continue
        for v, d in zip(question.body.variants, variant_data(data_of(doc, question.id)), strict=True):
            key, margin = d["near"]
            assert v.answer is not None
            for r in near_bounds(rng, v.answer, vt.absolute_margin(v.answer, question.body.tolerance)):
                assert (abs(r - key) <= margin) == vt.accepts(v.answer, question.body.tolerance, r), (v, r)
                checked += 1
    assert checked > 1000


def near_bounds(rng: random.Random, key: float, margin: float, n: int = 24) -> list[float]:
    """Responses at, just inside and just outside key +- margin (within a few ulps, and within
    1e-12 .. 1e-2 of the margin either side: the 1e-9 slack's edge among them), the key, and
    their decimal forms as a learner types them (2 to 12 decimals)."""
    out = [key, key + margin, key - margin]
    for _ in range(n):
        side = rng.choice((-1, 1))
        rel = rng.choice((1e-12, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-4, 1e-2)) * rng.uniform(-2, 2)
        x = key + side * margin * (1 + rel)
        out.append(x)
        out.append(float(f"{x:.{rng.randint(2, 12)}f}"))
    for b in (key + margin, key - margin):
        up, down = b, b
        for _ in range(3):
            up, down = math.nextafter(up, math.inf), math.nextafter(down, -math.inf)
            out += [up, down]
    return out


# --- sharing, secrecy, the page's code ----------------------------------------------------------


def test_each_text_is_written_once_per_distinct_rendering(quiz: Quiz, doc) -> None:
    ids = [t.get("id") for t in doc.iter("template")]
    assert len(ids) == len(set(ids))
    zero1 = data_of(doc, "p-zero1")
    # "That is ZeRO-3." holds no placeholder: one template, named without a variant.
    assert {d["feedback"][1] for d in variant_data(zero1)} == {"q2-f1"}
    assert template_text(doc, "q2-f1") == "That is ZeRO-3."
    # "... split over the {G} GPUs." names G only: one template per value of G, named after the
    # first variant that shows it, and each variant's the text it shows.
    body = quiz.questions[1].body
    assert isinstance(body, CalculatedChoice)
    right = {}
    for v, d in zip(body.variants, variant_data(zero1), strict=True):
        right.setdefault(v.env["G"], d["feedback"][0])
        assert d["feedback"][0] == right[v.env["G"]]
        assert template_text(doc, d["feedback"][0]).endswith(f" over the {v.env['G']:g} GPUs.")
    assert len(right) == len(set(right.values())) > 1
    first = {v.env["G"]: v.number for v in reversed(body.variants)}
    assert sorted(right.values()) == sorted(f"q2-v{n}-f0" for n in first.values())
    zero3 = data_of(doc, "p-zero3")
    outcomes = [d["outcome"] for d in variant_data(zero3)]
    assert {o["correct"] for o in outcomes} == {"q1-oc"}
    assert not [i for i in ids if re.fullmatch(r"q\d+-s", i)], "a stem template without a variant"
    # Every variant's stem differs here, so each has its own.
    assert len({d["stem"] for d in variant_data(zero3)}) == len(zero3["variants"])


def test_nothing_of_the_key_in_the_visible_page(quiz: Quiz, doc) -> None:
    text = visible_text(doc)
    for question in quiz.questions:
        body = question.body
        if not isinstance(body, Calculated):
            continue
        for v in body.variants:
            assert v.answer is not None
            key = format_value(v.answer, body.decimals)
            assert f"{key} GB" not in text
        first = vt.instantiate(question, body.variants[0])
        if first.explanation:
            assert plain_text(first.explanation) not in text
    assert not doc.xpath("//input[@checked] | //input[@value and @type='text']")


def test_choices_are_numbers_left_to_right(doc) -> None:
    box = section(doc, "p-zero1")
    texts = box.xpath(".//label/bdi[@data-role='choice-text']")
    assert len(texts) == 4 and {t.get("dir") for t in texts} == {"ltr"}
    assert all(re.fullmatch(r"\d+\.\d\d", t.text) for t in texts)


def test_pages_without_parametric_questions_carry_none_of_their_code(html: str) -> None:
    old = render_quiz(make_types_quiz())
    for name in ("drawVariant", "lastVariant", "holds(", "data-variant", "choice-text"):
        assert name not in old
        assert name in html
    assert "inBounds(scaled" in old and "inBounds(scaled" not in html


def test_an_assessment_draws_a_parametric_question_and_its_variant(quiz: Quiz) -> None:
    from lmsexport.model import Assessment, Bank, Candidate, Draw, Pool, Section
    from lmsexport.writers import WriteContext
    from lmsexport.writers.html import write

    header = quiz.header
    pool = tuple(Candidate(header, q) for q in quiz.questions[:3])
    exam = Assessment(
        id="p-exam",
        title="Exam",
        lang="ur",
        sections=(Section(draws=(Draw("zero", pool=Pool(quizzes=(quiz.id,)), pick=1, candidates=pool),)),),
    )
    out = write(Bank((quiz,), (exam,)), WriteContext(formats=("html",))).files["html/p-exam.html"]
    page = parse(out)
    data = page_data(page)
    assert [len(q["variants"]) for q in data["questions"]] == [20, 15, 12]
    assert "drawVariant" in out.decode()


# --- size -----------------------------------------------------------------------------------------


def _variant_pages(question: Question) -> tuple[int, int, int]:
    """(bytes of a page with the question, of a page without it, of a page holding each of its
    variants as an ordinary question): what one parametric question costs the page, against
    pre-rendering every variant as a question of its own."""
    body = question.body
    assert isinstance(body, Calculated | CalculatedChoice)
    base = Quiz(id="size", title="size", lang="ur", questions=(model_quiz().questions[-1],))
    with_it = Quiz(id="size", title="size", lang="ur", questions=(question, *base.questions))
    each = tuple(vt.instantiate(question, v) for v in body.variants)
    naive = Quiz(id="size", title="size", lang="ur", questions=(*each, *base.questions))
    sizes = [len(render_quiz(q).encode()) for q in (with_it, base, naive)]
    return sizes[0], sizes[1], sizes[2]


@pytest.mark.parametrize("qid", ["p-zero3", "p-bubble"])
def test_size_of_a_twenty_variant_question(quiz: Quiz, qid: str) -> None:
    """A 20-variant question costs the page its controls once and its texts 20 times: about 1 KB
    a variant, against 1.6 to 1.9 KB for each variant as a question of its own (the figures are in
    writers/html.py's module docstring)."""
    question = next(q for q in quiz.questions if q.id == qid)
    body = question.body
    assert isinstance(body, Calculated)
    params = Parameters(body.params.variables, body.params.derived, body.params.constraints, count=20)
    drawn = vt.draw(qid, params, answer=body.answer, tolerance=body.tolerance, decimals=body.decimals)
    from dataclasses import replace

    question = replace(question, body=replace(body, params=params, variants=drawn.variants))
    with_it, base, naive = _variant_pages(question)
    ours, theirs = with_it - base, naive - base
    print(f"{qid}: 20 variants cost {ours} bytes; as 20 questions {theirs} bytes")
    assert len(drawn.variants) == 20
    assert ours < 0.8 * theirs, (ours, theirs)
    assert ours / 20 < 1400, ours


def test_csp_hashes_the_parametric_script(doc) -> None:
    import base64
    import hashlib

    (csp,) = doc.xpath('//meta[@http-equiv="Content-Security-Policy"]/@content')
    (script,) = doc.xpath("//script[not(@type)]")
    digest = base64.b64encode(hashlib.sha256(script.text.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}';" in csp
    assert not re.search(r"^\s*//#", script.text, re.M), "a feature marker left in the page"


@settings(max_examples=60, deadline=None)
@given(
    answers=st.lists(st.floats(-1e12, 1e12, allow_nan=False), min_size=1, max_size=4),
    value=st.floats(0, 0.5, allow_nan=False),
    relative=st.booleans(),
    offsets=st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=8),
)
def test_margin_for_any_key_and_tolerance(answers, value, relative, offsets) -> None:
    """Any key (negative, zero, huge) and tolerance: the page's margin decides every response as
    variants.accepts does, the response a bound moved by offsets x margin x 1e-9 .. 1e-6."""
    tolerance = Tolerance(value, ToleranceKind.RELATIVE if relative else ToleranceKind.ABSOLUTE)
    params = Parameters((ListVariable("x", tuple(float(i) for i in range(len(answers)))),))
    variants = tuple(Variant(i + 1, (("x", float(i)),), a) for i, a in enumerate(answers))
    question = Question(
        id="h", stem="x = {x}", body=Calculated(params, Formula("x"), tolerance, 2, variants=variants)
    )
    data = page_data(parse(render_quiz(Quiz(id="h", title="h", lang="en", questions=(question,)))))
    for v, d in zip(variants, variant_data(data["questions"][0]), strict=True):
        key, margin = d["near"]
        assert v.answer is not None and key == v.answer
        m = vt.absolute_margin(v.answer, tolerance)
        for off in offsets:
            for scale in (1e-9, 1e-7, 1e-6):
                for r in (v.answer + m + off * scale * max(m, 1.0), v.answer - m + off * scale * max(m, 1.0)):
                    assert (abs(r - key) <= margin) == vt.accepts(v.answer, tolerance, r), (v.answer, r)


# --- the parametric case (tests/cases/parametric) --------------------------------------------------

CASE = HERE / "cases" / "parametric"
CASE_PAGES = ("parametric", "parametric-plain", "parametric-exam")


def case_bank():
    from lmsexport.source import load_paths

    return load_paths([CASE])


@pytest.mark.parametrize("page_id", CASE_PAGES)
def test_golden_case_pages(page_id: str, golden) -> None:
    from lmsexport.writers import WriteContext
    from lmsexport.writers.html import write

    out = write(case_bank(), WriteContext(formats=("html",)))
    golden(CASE / "expected" / "html" / f"{page_id}.html", out.files[f"html/{page_id}.html"])


def test_case_variants_are_the_instantiated_questions() -> None:
    """Every variant of the case's questions, as the page carries it, against instantiate."""
    for quiz in case_bank().quizzes:
        doc = parse(render_quiz(quiz))
        for question in quiz.questions:
            body = question.body
            if not isinstance(body, Calculated | CalculatedChoice):
                continue
            q = data_of(doc, question.id)
            assert [d["variant"] for d in variant_data(q)] == [v.number for v in body.variants]
            for v, d in zip(body.variants, variant_data(q), strict=True):
                inst = vt.instantiate(question, v)
                if "stem" in d:
                    assert template_text(doc, d["stem"]) == words(inst.stem)
                if inst.explanation:
                    assert template_text(doc, d["explanation"]) == words(inst.explanation)
                if isinstance(body, Calculated):
                    assert v.answer is not None and d["near"][0] == v.answer
                    assert d["keyText"].split(" ")[0] == format_value(v.answer, body.decimals)
                else:
                    assert d["choices"] == [plain_text(c.text) for c in inst.body.choices]  # type: ignore[union-attr]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(quiz=quizzes(everything=True, structured=True, parametric=True))
def test_any_parametric_quiz_renders_every_variant(quiz: Quiz) -> None:
    """Any quiz of every kind (tests/strategies.py): each parametric question's variants are in
    its data, in order, each a stem (or the one stem they share) and a key or choices, and every
    id the data names is a template the page holds."""
    doc = parse(render_quiz(quiz))
    templates = {t.get("id") for t in doc.iter("template")}
    for n, question in enumerate(quiz.questions, 1):
        body = question.body
        if not isinstance(body, Calculated | CalculatedChoice):
            continue
        q = next(x for x in page_data(doc)["questions"] if x["id"] == question.id)
        box = section(doc, question.id)
        assert box.get("id") == f"q{n}" and box.get("data-type") == question.type.value
        for v, d in zip(body.variants, variant_data(q), strict=True):
            assert d["variant"] == v.number
            inst = vt.instantiate(question, v)
            named = [d.get("stem"), d.get("explanation"), *(d.get("feedback") or [])]
            named += [h["id"] for h in d.get("hints", [])] + list(d.get("outcome", {}).values())
            assert {i for i in named if i} <= templates
            if "stem" in d:
                assert template_text(doc, d["stem"]) == words(inst.stem)
            if isinstance(body, Calculated):
                assert v.answer is not None and d["near"][0] == v.answer
            else:
                assert len(d["choices"]) == len(body.choices)
