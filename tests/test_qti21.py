"""The QTI 2.1 writer: validity, golden files, keys read back, language marking, scoring."""

from __future__ import annotations

import dataclasses
import io
import posixpath
import re
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from lmsexport.model import (
    Answer,
    Bank,
    Choice,
    Essay,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    Pair,
    Question,
    QuestionType,
    Quiz,
    ShortAnswer,
    SingleChoice,
    TrueFalse,
    default_multiple_credits,
)
from lmsexport.package import serialize
from lmsexport.validate import validate_tree
from lmsexport.writers import WriteContext, qti21
from lmsexport.writers.qti21_package import build_qti21, manifest_tree

ROOT = Path(__file__).resolve().parents[1]
CASES = Path(__file__).resolve().parent / "cases" / "qti21"
NS = {"q": qti21.QTI_NS}
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
CTX = WriteContext(formats=("qti21",))


def items(quiz: Quiz) -> dict[str, etree._Element]:
    return {q.id: qti21.item_tree(quiz, q) for q in quiz.questions}


def correct_values(item: etree._Element) -> list[str]:
    return item.xpath("q:responseDeclaration/q:correctResponse/q:value/text()", namespaces=NS)


# --------------------------------------------------------------------------- a tiny QTI scorer
# Just enough of QTI 2.1 response processing to run what the writer emits, so scoring tests
# check behaviour (what a learner gets) rather than the shape of the XML.


def _parse_value(base_type: str, text: str) -> object:
    return float(text) if base_type in ("float", "integer") else text


def _mapping(decl: etree._Element, value: object) -> float:
    mapping = decl.find("q:mapping", NS)
    values = value if isinstance(value, list) else [value]
    total = 0.0
    for v in values:
        for entry in mapping.findall("q:mapEntry", NS):
            key = entry.get("mapKey")
            same = (
                key == v
                if entry.get("caseSensitive", "true") == "true"
                else key.casefold() == str(v).casefold()
            )
            if same:
                total += float(entry.get("mappedValue"))
                break
        else:
            total += float(mapping.get("defaultValue", "0"))
    return max(float(mapping.get("lowerBound", "-inf")), min(total, float(mapping.get("upperBound", "inf"))))


def _eval(expr: etree._Element, item: etree._Element, env: dict[str, object]) -> object:
    tag = etree.QName(expr).localname
    decls = {d.get("identifier"): d for d in item.findall("q:responseDeclaration", NS)}
    if tag == "variable":
        return env.get(expr.get("identifier"))
    if tag == "baseValue":
        return _parse_value(expr.get("baseType"), expr.text)
    if tag == "correct":
        values = correct_values(item)
        decl = decls[expr.get("identifier")]
        return values if decl.get("cardinality") == "multiple" else values[0]
    if tag == "mapResponse":
        return _mapping(decls[expr.get("identifier")], env.get(expr.get("identifier")))
    args = [_eval(child, item, env) for child in expr]
    if tag == "match":
        a, b = args
        return sorted(a) == sorted(b) if isinstance(a, list) else a == b
    if tag == "and":
        return all(args)
    if tag in ("gte", "lte"):
        a, b = args
        if a is None:
            return None
        return a >= b if tag == "gte" else a <= b
    if tag == "multiple":
        out: list[object] = []
        for a in args:
            out += a if isinstance(a, list) else ([] if a is None else [a])
        return out
    raise AssertionError(f"scorer does not know <{tag}>")


def _run(rules: list[etree._Element], item: etree._Element, env: dict[str, object]) -> None:
    for rule in rules:
        tag = etree.QName(rule).localname
        if tag == "setOutcomeValue":
            env[rule.get("identifier")] = _eval(rule[0], item, env)
        elif tag == "responseCondition":
            for branch in rule:
                kind = etree.QName(branch).localname
                if kind == "responseElse":
                    _run(list(branch), item, env)
                    break
                if _eval(branch[0], item, env):
                    _run(list(branch)[1:], item, env)
                    break
        else:
            raise AssertionError(f"scorer does not know <{tag}>")


def score(item: etree._Element, response: object) -> dict[str, object]:
    """Outcomes after one attempt with ``response`` as the single response variable."""
    assert item.find("q:responseProcessing[@template]", NS) is None, "response processing must be written out"
    env: dict[str, object] = {}
    for decl in item.findall("q:outcomeDeclaration", NS):
        default = decl.find("q:defaultValue/q:value", NS)
        env[decl.get("identifier")] = (
            None if default is None else _parse_value(decl.get("baseType"), default.text)
        )
    (decl,) = item.findall("q:responseDeclaration", NS)
    env[decl.get("identifier")] = response
    rp = item.find("q:responseProcessing", NS)
    if rp is not None:
        _run(list(rp), item, env)
    return env


# --------------------------------------------------------------------------- validity and goldens


def test_every_item_and_the_test_are_valid(types_quiz: Quiz) -> None:
    # Today's seven kinds (cloze, ordering and description are in tests/test_qti21_structured.py,
    # the parametric ones in tests/test_qti21_parametric.py).
    new = {QuestionType.CLOZE, QuestionType.ORDERING, QuestionType.DESCRIPTION}
    new |= {QuestionType.CALCULATED, QuestionType.CALCULATED_CHOICE}
    assert {q.type for q in types_quiz.questions} == set(QuestionType) - new
    for qid, item in items(types_quiz).items():
        assert validate_tree(item, "item", qid) == []
    assert validate_tree(qti21.test_tree(types_quiz), "test", "test") == []
    assert validate_tree(manifest_tree(types_quiz), "manifest", "manifest") == []


def test_an_invalid_item_is_caught_by_the_schema(types_quiz: Quiz) -> None:
    item = qti21.item_tree(types_quiz, types_quiz.questions[0])
    del item.find(".//q:choiceInteraction", NS).attrib["maxChoices"]
    item.find(".//q:p", NS).set("dir", "rtl")
    diagnostics = validate_tree(item, "item", "x.xml")
    # The attribute at fault is named (the sentence around the name is libxml2's).
    assert {d.rule for d in diagnostics} == {"xsd.invalid"}, diagnostics
    assert any(re.search(r"\bdir\b", d.message) for d in diagnostics), diagnostics


def _golden_members(golden, quiz: Quiz, folder: Path) -> None:
    golden(folder / "imsmanifest.xml", serialize(manifest_tree(quiz)))
    golden(folder / qti21.test_path(quiz), serialize(qti21.test_tree(quiz)))
    for q in quiz.questions:
        golden(folder / qti21.item_path(q), serialize(qti21.item_tree(quiz, q)))


def test_golden_types_quiz(golden, types_quiz: Quiz) -> None:
    _golden_members(golden, types_quiz, CASES / types_quiz.id)


def test_golden_seed_quiz(golden) -> None:
    from lmsexport.source import load_paths

    bank = load_paths([str(ROOT / "source" / "zero-sharded-optimizers.yaml")])
    (quiz,) = bank.quizzes
    _golden_members(golden, quiz, CASES / quiz.id)
    for q in quiz.questions:
        assert validate_tree(qti21.item_tree(quiz, q), "item", q.id) == []


def test_whole_seed_bank_builds_valid_packages() -> None:
    from lmsexport.source import load_paths
    from lmsexport.validate import validate_package

    bank = load_paths([str(ROOT / "source")])
    out = build_qti21(bank, CTX)
    assert bank.assessments  # source/final-exam.yaml
    assert sorted(out.files) == sorted(f"qti21/{q.id}.zip" for q in (*bank.quizzes, *bank.assessments))
    for name, data in out.files.items():
        assert validate_package(data, name) == []


# --------------------------------------------------------------------------- keys read back


def test_correct_response_matches_the_model_key(types_quiz: Quiz) -> None:
    for q in types_quiz.questions:
        item = qti21.item_tree(types_quiz, q)
        got = correct_values(item)
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices):
                texts = {c.get("identifier"): c.text for c in item.iterfind(".//q:simpleChoice", NS)}
                right = [choices[i].text for i in q.body.key_indexes]
                assert sorted(texts[v] for v in got) == sorted(right)
            case TrueFalse(truth):
                assert got == ["TRUE" if truth else "FALSE"]
            case ShortAnswer(answers):
                assert got == [answers[0].text]
            case Numerical() as body:
                assert body.key.answer is not None
                assert [float(v) for v in got] == [body.key.answer]
            case Matching(pairs):
                text = {c.get("identifier"): c.text for c in item.iterfind(".//q:simpleAssociableChoice", NS)}
                got_pairs = [tuple(text[i] for i in v.split()) for v in got]
                assert got_pairs == [(p.left, p.right) for p in pairs]
            case _:
                assert isinstance(q.body, Essay)
                assert got == []
                assert item.find("q:responseDeclaration/q:correctResponse", NS) is None


# --------------------------------------------------------------------------- language and direction


def test_languages_and_stylesheet(types_quiz: Quiz) -> None:
    for q in types_quiz.questions:
        item = qti21.item_tree(types_quiz, q)
        lang = types_quiz.lang_of(q)
        assert item.get(XML_LANG) == lang
        assert item.find("q:itemBody", NS).get("class") == ("rtl" if lang == "ur" else "ltr")
        assert item.find("q:stylesheet", NS).get("href") == "../css/lmsexport.css"
    langs = {q.id: qti21.item_tree(types_quiz, q).get(XML_LANG) for q in types_quiz.questions}
    assert langs["t-single"] == "ur" and langs["t-multiple"] == "en"


def test_package_carries_the_stylesheet(types_bank: Bank) -> None:
    data = build_qti21(types_bank, CTX).files["qti21/all-types.zip"]
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        css = zf.read("css/lmsexport.css").decode()
        item = etree.fromstring(zf.read("items/t-single.xml"))
    href = item.find("q:stylesheet", NS).get("href")
    assert posixpath.normpath(posixpath.join("items", href)) == "css/lmsexport.css"
    assert re.search(r"\.rtl\s*\{[^}]*direction:\s*rtl", css)
    assert ":lang(ur)" in css and "unicode-bidi: isolate" in css


def test_a_choice_in_another_language_is_marked() -> None:
    q = Question(
        id="mixed",
        stem="کون سا درست ہے؟",
        body=SingleChoice(
            (
                Choice("Optimizer states", credit=1.0, lang="en", feedback="یہ درست ہے۔"),
                Choice("گریڈینٹس"),
            )
        ),
    )
    quiz = Quiz(id="mixed-quiz", title="t", lang="ur", questions=(q,))
    item = qti21.item_tree(quiz, q)
    first, second = item.iterfind(".//q:simpleChoice", NS)
    assert first.get(XML_LANG) == "en" and first.get("class") == "ltr"
    assert XML_LANG not in second.attrib and "class" not in second.attrib
    feedback = first.find("q:feedbackInline", NS)
    assert feedback.get(XML_LANG) == "ur" and feedback.get("class") == "rtl"
    assert validate_tree(item, "item", "mixed") == []


def test_line_breaks_are_kept_and_markup_is_escaped() -> None:
    q = Question(id="lines", stem="x < y && z\nline two", body=Essay(), explanation="a\nb")
    quiz = Quiz(id="q", title="t", lang="en", questions=(q,))
    item = qti21.item_tree(quiz, q)
    p = item.find("q:itemBody/q:p", NS)
    assert p.text == "x < y && z" and p[0].tag == f"{{{qti21.QTI_NS}}}br" and p[0].tail == "line two"
    assert b"x &lt; y &amp;&amp; z" in serialize(item)
    assert validate_tree(item, "item", "lines") == []


# --------------------------------------------------------------------------- Canvas shape


def test_canvas_shape(types_quiz: Quiz) -> None:
    for q in types_quiz.questions:
        item = qti21.item_tree(types_quiz, q)
        body = item.find("q:itemBody", NS)
        assert body[0].tag == f"{{{qti21.QTI_NS}}}p" and "".join(body[0].itertext()) == q.stem
        for fb in item.iterfind("q:modalFeedback", NS):
            ident = fb.get("identifier")
            # Canvas's get_feedback: these win before "general_", so the explanation must avoid them.
            assert not re.search(r"wrong|incorrect|_IC$|correct|_C$|solution", ident, re.I)
            assert re.search(r"general_|_all", ident, re.I)
        assert item.find("q:responseProcessing[@template]", NS) is None
    tf = qti21.item_tree(types_quiz, types_quiz.questions[2])
    assert tf.find("q:responseDeclaration", NS).get("identifier").startswith("TF")
    assert tf.find(".//q:responseIf/q:match/q:baseValue", NS) is not None
    assert tf.find(".//q:responseIf/q:match/q:correct", NS) is None


def test_english_true_false_uses_the_english_words(types_quiz: Quiz) -> None:
    q = dataclasses.replace(
        types_quiz.questions[2], lang="en", stem="Tensor parallelism talks inside a layer."
    )
    texts = [c.text for c in qti21.item_tree(types_quiz, q).iterfind(".//q:simpleChoice", NS)]
    assert texts == ["True", "False"]
    urdu = [
        c.text for c in qti21.item_tree(types_quiz, types_quiz.questions[2]).iterfind(".//q:simpleChoice", NS)
    ]
    assert urdu == ["درست", "غلط"]
    assert qti21.true_false_labels("xx-Unknown") == ("True", "False")


def test_test_weights_section_and_outcomes(types_quiz: Quiz) -> None:
    test = qti21.test_tree(types_quiz)
    section = test.find(".//q:assessmentSection", NS)
    assert section.get("visible") == "false"
    refs = section.findall("q:assessmentItemRef", NS)
    assert [r.get("identifier") for r in refs] == [q.id for q in types_quiz.questions]
    assert [float(r.find("q:weight", NS).get("value")) for r in refs] == [
        q.points for q in types_quiz.questions
    ]
    assert [r.get("href") for r in refs] == [f"../items/{q.id}.xml" for q in types_quiz.questions]
    # Item SCOREs are already in points: summing them weighted would count points twice.
    sums = test.findall("q:outcomeProcessing/q:setOutcomeValue/q:sum/q:testVariables", NS)
    assert {s.get("variableIdentifier") for s in sums} == {"SCORE", "MAXSCORE"}
    assert all(s.get("weightIdentifier") is None for s in sums)
    assert test.find("q:testPart/q:itemSessionControl", NS).get("showFeedback") == "true"


# --------------------------------------------------------------------------- scoring


def test_scoring_semantics(types_quiz: Quiz) -> None:
    it = items(types_quiz)
    single = it["t-single"]
    assert score(single, "C2")["SCORE"] == 1 and score(single, "C1")["SCORE"] == 0
    assert score(single, "C1")["FEEDBACK"] == ["C1", qti21.EXPLANATION_ID]

    multiple = it["t-multiple"]
    mapped = [float(v) for v in multiple.xpath(".//q:mapEntry/@mappedValue", namespaces=NS)]
    assert sum(v for v in mapped if v > 0) == pytest.approx(3)
    assert score(multiple, ["C1", "C2", "C3"])["SCORE"] == pytest.approx(3)
    assert score(multiple, ["C1"])["SCORE"] == pytest.approx(1)
    assert score(multiple, ["C1", "C2", "C3", "C4"])["SCORE"] == pytest.approx(0)
    assert score(multiple, ["C4"])["SCORE"] == 0  # lowerBound, not negative
    assert score(multiple, ["C4"])["MAXSCORE"] == 3

    tf = it["t-true-false"]
    assert score(tf, "TRUE")["SCORE"] == 1 and score(tf, "FALSE")["SCORE"] == 0

    short = it["t-short"]
    assert score(short, "fsdp")["SCORE"] == 1 and score(short, "FullyShardedDataParallel")["SCORE"] == 1
    assert score(short, "DDP")["SCORE"] == 0

    numerical = it["t-numerical"]
    assert [score(numerical, v)["SCORE"] for v in (11.5, 12.0, 12.5, 12.6, None)] == [1, 1, 1, 0, 0]

    matching = it["t-matching"]
    assert score(matching, ["L1 R1", "L2 R2", "L3 R3"])["SCORE"] == pytest.approx(1)
    assert score(matching, ["L1 R1", "L2 R4"])["SCORE"] == pytest.approx(1 / 3)

    essay = score(it["t-essay"], "anything")
    assert essay["SCORE"] == 0 and essay["MAXSCORE"] == 1 and essay["FEEDBACK"] == [qti21.EXPLANATION_ID]


def test_case_sensitive_short_answer_and_range_numerical() -> None:
    sa = Question(
        id="sa",
        stem="?",
        body=ShortAnswer((Answer("NCCL"), Answer("nccl")), case_sensitive=True),
        points=2,
    )
    num = Question(id="nu", stem="?", body=Numerical(keys=(NumericKey(low=1.5, high=2.5),)))
    quiz = Quiz(id="z", title="t", lang="en", questions=(sa, num))
    sa_item, num_item = qti21.item_tree(quiz, sa), qti21.item_tree(quiz, num)
    assert score(sa_item, "NCCL")["SCORE"] == 2 and score(sa_item, "Nccl")["SCORE"] == 0
    assert correct_values(num_item) == []
    assert [score(num_item, v)["SCORE"] for v in (1.4, 1.5, 2.5, 2.6)] == [0, 1, 1, 0]
    assert validate_tree(sa_item, "item", "sa") == [] and validate_tree(num_item, "item", "nu") == []


def test_matching_with_a_shared_right_side() -> None:
    q = Question(
        id="m",
        stem="?",
        body=Matching((Pair("a", "x"), Pair("b", "x"), Pair("c", "y")), distractors=("z",)),
    )
    quiz = Quiz(id="z", title="t", lang="en", questions=(q,))
    item = qti21.item_tree(quiz, q)
    rights = item.findall(".//q:simpleMatchSet", NS)[1]
    assert [(c.text, c.get("matchMax")) for c in rights] == [("x", "2"), ("y", "1"), ("z", "1")]
    assert correct_values(item) == ["L1 R1", "L2 R1", "L3 R2"]
    assert validate_tree(item, "item", "m") == []


# --------------------------------------------------------------------------- property


_text = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Co", "Cn"), blacklist_characters="\ufffe\uffff"),
    min_size=1,
    max_size=40,
).filter(lambda s: s.strip() != "")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stem=_text,
    choices=st.lists(_text, min_size=2, max_size=5, unique=True),
    correct=st.integers(0, 4),
    points=st.floats(0.25, 100, allow_nan=False),
)
def test_any_single_or_multiple_question_is_valid(
    stem: str, choices: list[str], correct: int, points: float
) -> None:
    picked = correct % len(choices)
    flags = [i == picked for i in range(len(choices))]
    single = SingleChoice(
        tuple(Choice(c, credit=1.0 if f else 0.0) for c, f in zip(choices, flags, strict=True))
    )
    multiple = MultipleChoice(
        tuple(Choice(c, credit=cr) for c, cr in zip(choices, default_multiple_credits(flags), strict=True))
    )
    for body in (single, multiple):
        qtype = QuestionType.SINGLE if isinstance(body, SingleChoice) else QuestionType.MULTIPLE
        q = Question(id="p1", stem=stem, points=points, body=body)
        quiz = Quiz(id="prop", title=stem, lang="ur", questions=(q,))
        item = qti21.item_tree(quiz, q)
        assert validate_tree(item, "item", "p1") == []
        reparsed = etree.fromstring(serialize(item))
        assert [c.text for c in reparsed.iterfind(".//q:simpleChoice", NS)] == choices
        assert score(item, f"C{picked + 1}" if qtype is QuestionType.SINGLE else [f"C{picked + 1}"])[
            "SCORE"
        ] == pytest.approx(points)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(_text, min_size=3, max_size=6, unique=True),
    lang=st.sampled_from(["ur", "en", "ar", "ur-Latn"]),
    case_sensitive=st.booleans(),
)
def test_any_text_question_is_valid(texts: list[str], lang: str, case_sensitive: bool) -> None:
    left, right = texts[: len(texts) // 2], texts[len(texts) // 2 :]
    questions = (
        Question(
            id="sa",
            stem=texts[0],
            body=ShortAnswer(tuple(Answer(t) for t in texts), case_sensitive=case_sensitive),
            explanation=texts[-1],
        ),
        Question(
            id="ma",
            stem=texts[0],
            body=Matching(
                tuple(Pair(a, b) for a, b in zip(left, right, strict=False)), distractors=(texts[-1],)
            ),
        ),
        Question(id="es", stem="\n".join(texts), body=Essay()),
        Question(id="tf", stem=texts[1], body=TrueFalse(False)),
    )
    quiz = Quiz(id="prop", title=texts[0], lang=lang, questions=questions)
    for q in questions:
        item = qti21.item_tree(quiz, q)
        assert validate_tree(item, "item", q.id) == [], q
        assert item.find("q:itemBody", NS).get("class") == ("ltr" if lang in ("en", "ur-Latn") else "rtl")
    assert validate_tree(manifest_tree(quiz), "manifest", "m") == []
    assert validate_tree(qti21.test_tree(quiz), "test", "t") == []
