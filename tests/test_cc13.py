"""The Common Cartridge 1.3 writer and validator: one cartridge for the bank, the CC profile each
type maps to (and the warnings for what it cannot carry), question banks per category, and the
CC profiles' XSDs and Schematron rules doing their work."""

from __future__ import annotations

import copy
import io
import re
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from lmsexport import validate_qti12 as v
from lmsexport.model import (
    Bank,
    Choice,
    Essay,
    Matching,
    Numerical,
    NumericKey,
    Pair,
    Question,
    Quiz,
    SingleChoice,
)
from lmsexport.package import discarding, serialize
from lmsexport.validate import schema_dir
from lmsexport.validate_qti12 import validate_cartridge, validate_cc_tree
from lmsexport.writers import WriteContext, cc13
from lmsexport.writers.cc13 import build_cc11, build_cc13

CTX = WriteContext(formats=("cc13",))
Q = {"q": cc13.QTI_NS}
CP = {"cp": cc13.CC_NS}


def docs(bank: Bank) -> dict[str, etree._Element]:
    return {path: tree for path, _, tree in cc13.cartridge_documents(bank)}


def fields(item: etree._Element) -> dict[str, str]:
    return {
        f.findtext("q:fieldlabel", namespaces=Q): f.findtext("q:fieldentry", namespaces=Q)
        for f in item.iterfind(".//q:qtimetadatafield", Q)
    }


def test_one_cartridge_for_the_bank(types_bank: Bank) -> None:
    out = build_cc13(types_bank, CTX)
    assert list(out.files) == ["cc/bank.imscc"]
    data = out.files["cc/bank.imscc"]
    assert validate_cartridge(data, "bank.imscc") == []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.namelist() == ["imsmanifest.xml", "all-types/assessment.xml", "banks/all-types.xml"]
    assert build_cc13(types_bank, CTX).files == out.files  # reproducible


def test_profiles_per_type(types_bank: Bank) -> None:
    assessment = docs(types_bank)["all-types/assessment.xml"]
    profiles = {i.get("ident"): fields(i)["cc_profile"] for i in assessment.iterfind(".//q:item", Q)}
    assert profiles == {
        "t-single": "cc.multiple_choice.v0p1",
        "t-multiple": "cc.multiple_response.v0p1",
        "t-true-false": "cc.true_false.v0p1",
        "t-short": "cc.fib.v0p1",
        "t-numerical": "cc.fib.v0p1",
        "t-matching-1": "cc.multiple_choice.v0p1",
        "t-matching-2": "cc.multiple_choice.v0p1",
        "t-matching-3": "cc.multiple_choice.v0p1",
        "t-essay": "cc.essay.v0p1",
    }


def test_true_false_uses_the_idents_moodle_requires_and_the_questions_language(types_bank: Bank) -> None:
    item = docs(types_bank)["all-types/assessment.xml"].find(".//q:item[@ident='t-true-false']", Q)
    labels = [
        (lab.get("ident"), lab.findtext(".//q:mattext", namespaces=Q))
        for lab in item.iterfind(".//q:response_label", Q)
    ]
    assert [ident for ident, _ in labels] == ["true", "false"]
    assert "درست" in labels[0][1] and "غلط" in labels[1][1]


def test_multiple_response_marks_right_choices_as_moodle_reads_them(types_bank: Bank) -> None:
    item = docs(types_bank)["all-types/assessment.xml"].find(".//q:item[@ident='t-multiple']", Q)
    # entity11.quiz.class.php: setvar[.=100]/../conditionvar//varequal[@case='Yes'][not(parent::not)]
    right = item.xpath(
        ".//q:setvar[@varname='SCORE'][.=100]/../q:conditionvar//q:varequal[@case='Yes'][not(parent::q:not)]/text()",
        namespaces=Q,
    )
    assert right == ["C1", "C2", "C3"]


def test_matching_becomes_one_choice_question_per_left_item(types_bank: Bank) -> None:
    assessment = docs(types_bank)["all-types/assessment.xml"]
    parts = [i for i in assessment.iterfind(".//q:item", Q) if i.get("ident").startswith("t-matching")]
    assert len(parts) == 3
    for part, right in zip(parts, ["Optimizer states", "Gradients", "Parameters"], strict=True):
        choices = [m.text for m in part.iterfind(".//q:response_label//q:mattext", Q)]
        assert [re.sub("<[^>]+>", "", c) for c in choices] == [
            "Optimizer states",
            "Gradients",
            "Parameters",
            "Activations",
        ]
        key = part.findtext(".//q:respcondition/q:setvar/../q:conditionvar/q:varequal", namespaces=Q)
        label = part.find(f".//q:response_label[@ident='{key}']//q:mattext", Q).text
        assert right in label


def test_split_idents_never_clash_with_question_ids() -> None:
    m = Question(
        id="m",
        stem="Match",
        body=Matching((Pair("a", "1"), Pair("b", "2"))),
    )
    taken = Question(id="m-1", stem="x", body=Essay())
    bank = Bank((Quiz("quiz", "T", "en", (m, taken)),))
    idents = [i.get("ident") for i in docs(bank)["quiz/assessment.xml"].iterfind(".//q:item", Q)]
    assert idents == ["m-1-", "m-2", "m-1"]
    assert validate_cartridge(build_cc13(bank, CTX).files["cc/bank.imscc"], "b.imscc") == []


def test_numerical_is_fib_with_the_answer_or_an_essay_for_a_range_alone(types_bank: Bank) -> None:
    quiz = types_bank.quizzes[0]
    ranged = Question(id="r", stem="Range?", body=Numerical(keys=(NumericKey(low=1, high=2),)))
    bank = Bank((replace(quiz, questions=(*quiz.questions, ranged)),))
    assessment = docs(bank)["all-types/assessment.xml"]
    exact = assessment.find(".//q:item[@ident='t-numerical']", Q)
    assert exact.xpath(".//q:varequal/text()", namespaces=Q) == ["12"]
    essay = assessment.find(".//q:item[@ident='r']", Q)
    assert fields(essay) == {"cc_profile": "cc.essay.v0p1", "cc_weighting": "1", "qmd_computerscored": "No"}
    rules = {(w.rule, w.message.split("'")[1]) for w in cc13.lossy_warnings(bank)}
    assert ("cc13.numerical-as-fib", "t-numerical") in rules
    assert ("cc13.numerical-as-essay", "r") in rules


def test_warnings_name_each_loss(types_bank: Bank) -> None:
    rules = sorted((w.rule, w.message.split("'")[1]) for w in cc13.lossy_warnings(types_bank))
    assert rules == [
        ("cc13.matching-split", "t-matching"),
        ("cc13.numerical-as-fib", "t-numerical"),
        ("cc13.partial-credit", "t-multiple"),
        ("cc13.points-not-carried", "t-matching"),
    ]
    assert all(w.severity.value == "warning" for w in cc13.lossy_warnings(types_bank))


def test_points_travel_as_whole_weightings() -> None:
    qs = tuple(
        Question(id=f"q{i}", stem="x", body=Essay(), points=p) for i, p in enumerate([1.0, 99.0, 100.0, 1.5])
    )
    items = docs(Bank((Quiz("z", "T", "en", qs),)))["z/assessment.xml"].iterfind(".//q:item", Q)
    assert [fields(i).get("cc_weighting") for i in items] == ["1", "99", None, None]


def test_question_banks_per_category() -> None:
    def quiz(qid: str, category: str | None) -> Quiz:
        return Quiz(
            qid, f"Title {qid}", "ur", (Question(id=f"{qid}-q", stem="x", body=Essay()),), category=category
        )

    bank = Bank((quiz("a", "course/one"), quiz("b", "course/one"), quiz("c", None), quiz("d", "course/two")))
    built = docs(bank)
    assert sorted(built) == [
        "a/assessment.xml",
        "b/assessment.xml",
        "banks/a.xml",
        "banks/c.xml",
        "banks/d.xml",
        "c/assessment.xml",
        "d/assessment.xml",
        "imsmanifest.xml",
    ]
    one = built["banks/a.xml"]
    assert [i.get("ident") for i in one.iterfind(".//q:item", Q)] == ["a-q", "b-q"]
    assert fields(one.find("q:objectbank/q:qtimetadata", Q)) == {"bank_title": "course/one"}
    assert {fields(i)["cc_question_category"] for i in one.iterfind(".//q:item", Q)} == {"course/one"}
    assert fields(built["banks/c.xml"].find("q:objectbank/q:qtimetadata", Q)) == {"bank_title": "Title c"}
    manifest = built["imsmanifest.xml"]
    folders = [
        (f.findtext("cp:title", namespaces=CP), [i.get("identifierref") for i in f.iterfind("cp:item", CP)])
        for f in manifest.iterfind(".//cp:item[@identifier='ROOT']/cp:item", CP)
    ]
    assert folders == [
        ("course/one", ["RES-a", "RES-b"]),
        ("course/two", ["RES-d"]),
        ("Title c", ["RES-c"]),
    ]
    # Assessments name no category; banks are resources, not organization items.
    assert "cc_question_category" not in fields(built["a/assessment.xml"])
    refs = {i.get("identifierref") for i in manifest.iterfind(".//cp:item", CP)}
    assert not any(r and r.startswith("RES-BANK") for r in refs)
    assert cc13.cartridge_title(cc13.categories(bank)) == "lmsexport question bank"
    assert cc13.cartridge_title(cc13.categories(Bank(bank.quizzes[:2]))) == "course/one"
    assert validate_cartridge(build_cc13(bank, CTX).files["cc/bank.imscc"], "b.imscc") == []


# --------------------------------------------------------------------------- the profile's rules


def _assessment(quiz: Quiz) -> etree._Element:
    return docs(Bank((quiz,)))[f"{quiz.id}/assessment.xml"]


def test_schematron_rules_catch_what_the_xsd_cannot(types_quiz: Quiz) -> None:
    tree = _assessment(types_quiz)
    assert validate_cc_tree(tree, "cc-qti", "a.xml") == []
    tf = tree.find(".//q:item[@ident='t-true-false']//q:render_choice", Q)
    tf.append(copy.deepcopy(tf[0]))  # a third choice on a true/false
    problems = validate_cc_tree(tree, "cc-qti", "a.xml")
    assert [(p.rule, p.message) for p in problems] == [
        (
            "schematron.failed",
            "[RULE 3d] There are too many or too few response labels for the T/F question. "
            "(at /questestinterop/assessment/section/item/itemmetadata/qtimetadata/"
            "qtimetadatafield/fieldentry)",
        )
    ]


def test_duplicate_item_idents_are_rule_13a(types_quiz: Quiz) -> None:
    tree = _assessment(types_quiz)
    tree.find(".//q:item[@ident='t-essay']", Q).set("ident", "t-single")
    (problem,) = validate_cc_tree(tree, "cc-qti", "a.xml")
    assert problem.message == (
        "[RULE 13a] There are Items that have common identifiers: t-single. "
        "(at /questestinterop/assessment/section/item)"
    )


def test_a_failing_item_among_identical_ones_is_named(types_quiz: Quiz) -> None:
    """The rules run on one item per shape; a failure reruns them on the whole document, so the
    message locates the failing item, not its representative."""
    single = types_quiz.questions[0]
    many = tuple(replace(single, id=f"s{i}", stem=f"stem {i}") for i in range(40))
    tree = _assessment(replace(types_quiz, questions=many))
    assert validate_cc_tree(tree, "cc-qti", "a.xml") == []
    bad = copy.deepcopy(tree)
    last = bad.findall(".//q:item", Q)[-1]
    last.find(".//q:response_lid", Q).set("ident", "elsewhere")  # no condition tests it now
    data = etree.tostring(bad)
    parsed = etree.parse(io.BytesIO(data))
    problems = validate_cc_tree(parsed, "cc-qti", "a.xml")
    assert [p.message.split("]")[0] for p in problems] == ["[RULE 4e"]
    fieldentry = parsed.findall(".//q:item", Q)[-1].find(".//q:fieldentry", Q)
    assert problems[0].loc.line == fieldentry.sourceline  # the last item's, not its shape's first
    assert etree.tostring(parsed) == data  # validation leaves the document as it was


def test_shapes_seen_before_are_not_rerun_but_still_checked_for_failures(types_quiz: Quiz) -> None:
    tree = _assessment(types_quiz)
    v._GOOD_SHAPES.clear()
    assert validate_cc_tree(tree, "cc-qti", "a.xml") == []
    assert v._GOOD_SHAPES[cc13_qti_xsd()]  # the shapes of this document are known good now
    broken = copy.deepcopy(tree)
    broken.find(".//q:item[@ident='t-essay']//q:itemmetadata", Q).getparent().find(
        ".//q:qtimetadatafield", Q
    ).find("q:fieldentry", Q).text = "cc.bogus.v0p1"
    assert [p.message.split("]")[0] for p in validate_cc_tree(broken, "cc-qti", "a.xml")] == ["[RULE 2b"]


def test_shapes_cut_from_the_document_are_the_items_own(types_quiz: Quiz) -> None:
    """The shapes cut from the document's serialisation (what cc_part passes) are those of
    each item serialised alone, item by item; a count that does not match falls back."""
    single = types_quiz.questions[0]
    many = tuple(replace(single, id=f"s{i}", stem=f"stem {i}") for i in range(5))
    tree = _assessment(replace(types_quiz, questions=types_quiz.questions + many))
    items = tree.findall(".//q:item", Q)
    contents = v._item_contents(serialize(tree), len(items))
    assert contents is not None and len(contents) == len(items) > 5
    assert [v._item_shape(i, c) for i, c in zip(items, contents, strict=True)] == [
        v._item_shape(i) for i in items
    ]
    assert v._item_contents(serialize(tree), len(items) + 1) is None
    empty = etree.fromstring(f'<questestinterop xmlns="{v.QTI12_NS}"><item ident="x"/></questestinterop>')
    assert v._item_contents(serialize(empty), 1) == [b""]
    assert v._item_shape(empty[0], b"") == v._item_shape(empty[0])


def test_a_failure_is_found_with_the_documents_bytes(types_quiz: Quiz) -> None:
    tree = _assessment(types_quiz)
    assert validate_cc_tree(tree, "cc-qti", "a.xml", data=serialize(tree)) == []
    tf = tree.find(".//q:item[@ident='t-true-false']//q:render_choice", Q)
    tf.append(copy.deepcopy(tf[0]))  # a third choice on a true/false: its shape is new
    problems = validate_cc_tree(tree, "cc-qti", "a.xml", data=serialize(tree))
    assert [p.message.split("]")[0] for p in problems] == ["[RULE 3d"]


def cc13_qti_xsd() -> str:
    return v.CC13.qti_xsd


_RULE_TEXT = ("fieldlabel", "fieldentry")
OPERAND = re.compile(r"""^(count\(.*\)|'[^']*'|\d+|.*@[\w:-]+|.*asi:field(label|entry)(\[[^]]*\])?)$""")


@pytest.mark.parametrize(
    "relpath", ["cc/v1p3/ccv1p3_qtiasiv1p2p1_v1p0.xsd", "cc/v1p1/ccv1p1_qtiasiv1p2p1_v1p0.xsd"]
)
def test_rules_read_no_text_but_fieldlabel_and_fieldentry(relpath: str) -> None:
    """What makes checking one item per shape sound: in every rule of the bundled profiles, each
    side of a comparison is an attribute, a count, a literal or a fieldlabel/fieldentry (no other
    element's text), every value-of reads an attribute or those, no rule reads an item's title,
    and an item's own ident is read only by rule 13a (checked in Python)."""
    sch = "http://purl.oclc.org/dsdl/schematron"
    doc = etree.parse(str(schema_dir() / relpath))
    seen = 0
    for rule in doc.iter(f"{{{sch}}}rule"):
        context = rule.get("context")
        for el in rule.iter(f"{{{sch}}}assert", f"{{{sch}}}value-of"):
            expr = " ".join((el.get("test") or el.get("select") or "").split())
            assert "@title" not in expr
            if el.tag.endswith("value-of"):
                assert OPERAND.match(expr) or expr == ".", expr
                continue
            seen += 1
            for step, predicate in re.findall(r"asi:(\w+)\[([^\]]*)\]", expr):
                # a predicate reads its step's text only through "."
                assert not re.search(r"(?<![\w@])\.(?![\w/.])", predicate) or step in _RULE_TEXT, expr
            flat = re.sub(r"\[[^\]]*\]", "", expr)
            flat = re.sub(r"contains\(([^,]+),\s*'[^']*'\)", r"\1", flat)
            for clause in re.split(r"\s+(?:and|or)\s+", flat):
                sides = re.split(r"\s*(?:!=|<=|>=|=|<|>)\s*", clause)
                if len(sides) == 1:
                    assert "text()" not in clause, expr  # a test for existence: reads no text
                    continue
                for side in sides:
                    _check_operand(side, expr)
            if context == "asi:item" and re.search(r"(?<![\w/])@ident", flat):
                assert expr == "not(@ident=preceding-sibling::asi:item/@ident)", expr
    assert seen > 50


def _check_operand(side: str, expr: str) -> None:
    """One side of a comparison is an attribute, a count, a literal or fieldlabel/fieldentry."""
    while side.strip().startswith(("not(", "(")):
        side = side.strip().removeprefix("not(").removeprefix("(")
    side = side.strip()
    while side.endswith(")") and side.count("(") < side.count(")"):
        side = side[:-1].strip()
    if side:
        assert OPERAND.match(side), (expr, side)
        assert "text()" not in side, expr


def test_manifest_rules(types_bank: Bank) -> None:
    manifest = docs(types_bank)["imsmanifest.xml"]
    assert validate_cc_tree(manifest, "cc-manifest", "imsmanifest.xml") == []
    manifest.find(".//cp:schemaversion", CP).text = "1.2.0"
    problems = validate_cc_tree(manifest, "cc-manifest", "imsmanifest.xml")
    assert problems and problems[0].rule == "xsd.invalid"


def test_the_shared_examples_behave(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """schemas/examples/cc: the valid cartridge validates, the invalid one fails in both files."""
    for name, expected in (("cc13-ur-mc", True), ("cc13-ur-mc-invalid", False)):
        folder = schema_dir() / "examples" / "cc" / name
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for f in sorted(folder.rglob("*")):
                if f.is_file():
                    zf.write(f, f.relative_to(folder).as_posix())
        problems = validate_cartridge(buf.getvalue(), name + ".imscc")
        if expected:
            assert problems == []
        else:
            assert {p.loc.path.split("!")[1] for p in problems} == {
                "imsmanifest.xml",
                "quiz-ur-001/assessment.xml",
            }


def test_choice_text_is_html_with_direction(types_bank: Bank) -> None:
    item = docs(types_bank)["all-types/assessment.xml"].find(".//q:item[@ident='t-single']", Q)
    stem = item.find("q:presentation/q:material/q:mattext", Q)
    assert stem.get("texttype") == "text/html"
    assert stem.text.startswith('<div dir="rtl" lang="ur">')
    assert Choice  # the model type the stand-ins are built from


def test_matching_with_one_right_item_is_an_essay_listing_the_items() -> None:
    """Found by the property test: a choice of one is not a CC multiple choice (rule 4d)."""
    m = Question(id="m", stem="Match", body=Matching((Pair("a", "x"), Pair("b", "x"))))
    bank = Bank((Quiz("quiz", "T", "en", (m,)),))
    (item,) = docs(bank)["quiz/assessment.xml"].iterfind(".//q:item", Q)
    assert fields(item)["cc_profile"] == "cc.essay.v0p1"
    assert (
        item.findtext(".//q:mattext", namespaces=Q)
        == '<div dir="ltr" lang="en">Match<br/>a<br/>b<br/>x</div>'
    )
    assert [w.rule for w in cc13.lossy_warnings(bank)] == ["cc13.matching-as-essay"]
    assert validate_cartridge(build_cc13(bank, CTX).files["cc/bank.imscc"], "b.imscc") == []


def test_validate_command_takes_single_qti12_and_cc_documents() -> None:
    """`lmsexport validate FILE.xml`: a questestinterop is checked as QTI 1.2 (the CC profile when
    it names one, the DTD otherwise); the shared invalid CC example fails where it should."""
    from typer.testing import CliRunner

    from lmsexport.cli import app

    expected = Path(__file__).parent / "cases" / "types" / "expected"
    good = [
        expected / "qti12" / "every-type" / "every-type" / "every-type.xml",
        expected / "cc" / "bank" / "every-type" / "assessment.xml",
        expected / "cc" / "bank" / "banks" / "every-type.xml",
    ]
    result = CliRunner().invoke(app, ["validate", *map(str, good)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    bad = schema_dir() / "examples" / "cc" / "cc13-ur-mc-invalid" / "quiz-ur-001" / "assessment.xml"
    result = CliRunner().invoke(app, ["validate", str(bad)], catch_exceptions=False)
    assert result.exit_code == 1
    assert [line.split(": error: ")[0].rsplit(":", 1)[1] for line in result.stderr.splitlines()[:-1]] == [
        "47",
        "57",
    ]


# --------------------------------------------------------------------------- assessments, 1.1, parts


def _exam_bank() -> Bank:
    from lmsexport.source import load_paths

    cases = Path(__file__).parent / "cases"
    return load_paths(
        [cases / "types" / "bank.yaml", cases / "types" / "exam.yaml", cases / "rich" / "bank.yaml"]
    )


@pytest.mark.parametrize("version", [cc13.CC13, cc13.CC11], ids=["cc13", "cc11"])
def test_an_assessment_asks_every_question_it_may_draw(version: cc13.Version) -> None:
    """The profile has no random selection: one section with every candidate, at its points
    in the draw; (1.3) each random draw's candidates also make a bank of their own."""
    bank = _exam_bank()
    (exam,) = bank.assessments
    built = {path: tree for path, _, tree in cc13.cartridge_documents(bank, version)}
    doc = built["every-type-exam/assessment.xml"]
    (section,) = doc.iterfind(".//q:section", Q)
    idents = [i.get("ident") for i in section.iterfind("q:item", Q)]
    expected = []
    for draw in exam.draws:
        for c in draw.candidates:
            body = c.question.body
            n = len(body.pairs) if isinstance(body, Matching) else 0
            expected += [f"{c.question.id}-{i}" for i in range(1, n + 1)] or [c.question.id]
    assert idents == expected
    weights = {i.get("ident"): fields(i).get("cc_weighting") for i in section.iterfind("q:item", Q)}
    assert weights["zso-stage1"] == "2" and weights["three-d-tradeoffs"] == "10"  # the draws' points
    pools = sorted(p for p in built if "/pools/" in p)
    if version.banks:
        assert pools == ["every-type-exam/pools/choices.xml", "every-type-exam/pools/typed.xml"]
        choices = built["every-type-exam/pools/choices.xml"]
        title = "ہر قسم کا امتحان / choices"
        assert fields(choices.find("q:objectbank/q:qtimetadata", Q)) == {"bank_title": title}
        draw = exam.draws[0]
        assert [i.get("ident") for i in choices.iterfind(".//q:item", Q)] == [
            c.question.id for c in draw.candidates
        ]
        assert {fields(i)["cc_question_category"] for i in choices.iterfind(".//q:item", Q)} == {title}
    else:
        assert pools == [] and not any(p.startswith("banks/") for p in built)
    rules = [w.rule for w in cc13.exam_warnings(exam, version)]
    assert rules == [
        f"{version.format}.random-draw",
        f"{version.format}.random-draw",
        f"{version.format}.sections",
    ]
    out = build_cc11(bank, CTX) if version is cc13.CC11 else build_cc13(bank, CTX)
    assert validate_cartridge(out.files[version.cartridge_path], "b.imscc") == []


@pytest.mark.parametrize("version", [cc13.CC13, cc13.CC11], ids=["cc13", "cc11"])
def test_the_cartridge_from_parts_is_the_cartridge_of_the_trees(version: cc13.Version) -> None:
    """cc13.cc_assemble writes, from per-quiz parts (compressed in a build's workers), the
    very bytes of each document cc13.cartridge_documents defines; the zip holds nothing else
    but the images."""
    bank = _exam_bank()
    data = build_cc11(bank, CTX) if version is cc13.CC11 else build_cc13(bank, CTX)
    with zipfile.ZipFile(io.BytesIO(data.files[version.cartridge_path])) as zf:
        got = {n: zf.read(n) for n in zf.namelist()}
    trees = {path: serialize(tree) for path, _, tree in cc13.cartridge_documents(bank, version)}
    assert list(got)[: len(trees)] == list(trees)  # the same order: manifest first
    assert {n: got[n] for n in trees} == trees
    assert sorted(set(got) - set(trees)) == [
        "web_resources/media/87efb6e5462136ec.png",
        "web_resources/media/93c95c861895bbc0.svg",
    ]


@pytest.mark.parametrize(
    "first,second", [(cc13.CC13, cc13.CC11), (cc13.CC11, cc13.CC13)], ids=["13-then-11", "11-then-13"]
)
def test_a_part_made_after_the_other_versions_is_the_part_made_alone(
    first: cc13.Version, second: cc13.Version, types_quiz: Quiz
) -> None:
    """A quiz's part of one cartridge made right after its part of the other, as a build makes
    them (the second takes the first's assessment: cc13._Assessment), is the part made alone:
    the same compressed documents, bank idents, media, warnings and problems. Over the seed
    bank, the credits and structured cases and the types quiz, some parts take the other's
    assessment and some cannot (an item differs: a single choice of two choices is multiple
    response in 1.1)."""
    from lmsexport.source import load_paths

    seed = load_paths(sorted((Path(__file__).parent.parent / "source").glob("*.yaml")))
    quizzes = [*seed.quizzes, *_credits().quizzes, *_structured().quizzes, types_quiz]
    two = replace(types_quiz.questions[0], id="two-choices")
    assert isinstance(two.body, SingleChoice) and len(two.body.choices) > 2
    two = replace(two, body=replace(two.body, choices=two.body.choices[:2]))
    quizzes.append(replace(types_quiz, id="with-two-choices", questions=(two,)))

    def fresh() -> None:
        cc13._ASSESSMENT.clear()
        cc13._BUILT.clear()

    taken = {True: 0, False: 0}
    for quiz in quizzes:
        if not (cc13.holds_items(quiz, first) and cc13.holds_items(quiz, second)):
            continue
        fresh()
        alone = cc13.cc_part(quiz, second)
        fresh()
        cc13.cc_part(quiz, first)
        assert len(cc13._ASSESSMENT) == 1
        after = cc13.cc_part(quiz, second)
        taken[not cc13._ASSESSMENT] += 1  # taken, or replaced by the second version's own
        assert after == alone, quiz.id
        # A part made within discarding() (check's) is not taken by a build's, nor the reverse:
        # their compressed bodies differ (a library user may check a Bank, then build it).
        fresh()
        with discarding():
            checked = cc13.cc_part(quiz, second)
            fresh()
            cc13.cc_part(quiz, first)
        assert cc13.cc_part(quiz, second) == alone, quiz.id
        fresh()
        cc13.cc_part(quiz, first)
        with discarding():
            assert cc13.cc_part(quiz, second) == checked, quiz.id
    fresh()
    assert taken[True] >= 5 and taken[False] >= 1, taken


def test_a_bank_spanning_quizzes_renames_an_ident_clash() -> None:
    """A quiz's items avoid its own idents only (a worker knows no other quiz); where a
    category's bank meets a matching question's part named like another quiz's question, the
    later item gets a dash, in the trees and in the bytes assembled from the parts alike."""
    m = Question(id="m", stem="Match", body=Matching((Pair("a", "1"), Pair("b", "2"), Pair("c", "3"))))
    a = Quiz("a", "A", "en", (m,), category="same")
    b = Quiz("b", "B", "en", (Question(id="m-1", stem="x", body=Essay()),), category="same")
    bank = Bank((a, b))
    built = docs(bank)
    assert [i.get("ident") for i in built["banks/a.xml"].iterfind(".//q:item", Q)] == [
        "m-1",
        "m-2",
        "m-3",
        "m-1-",
    ]
    assert [i.get("ident") for i in built["b/assessment.xml"].iterfind(".//q:item", Q)] == ["m-1"]
    data = build_cc13(bank, CTX).files["cc/bank.imscc"]
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.read("banks/a.xml") == serialize(built["banks/a.xml"])
    assert validate_cartridge(data, "b.imscc") == []


def test_cc11_is_detected_by_moodle_and_has_no_bank(types_bank: Bank) -> None:
    """Moodle's imscc11 converter looks for the 1.1 namespace in the manifest's first 500 bytes
    (backup/converter/imscc11/lib.php detect_format); 1.1 allows one question bank at most."""
    out = build_cc11(types_bank, WriteContext(formats=("cc11",)))
    data = out.files["cc11/bank-cc11.imscc"]
    assert validate_cartridge(data, "b.imscc") == []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        head = zf.read("imsmanifest.xml")[:500].decode().lower()
        assert zf.namelist() == ["imsmanifest.xml", "all-types/assessment.xml"]
    flat = re.sub(r"\s", "", head).replace('"', "").replace("'", "")
    assert "xmlns=http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1" in flat
    assert {w.rule.split(".")[0] for w in out.warnings} == {"cc11"}


# --------------------------------------------------------------------------- credits, feedback, names


def _credits() -> Bank:
    from lmsexport.source import load_paths

    return load_paths([Path(__file__).parent / "cases" / "credits" / "credits.yaml"])


def _conditions(item: etree._Element) -> list[tuple[list[str], str | None, list[str]]]:
    return [
        (
            c.xpath(".//q:varequal/text()", namespaces=Q),
            c.findtext("q:setvar", namespaces=Q),
            [d.get("linkrefid") for d in c.iterfind("q:displayfeedback", Q)],
        )
        for c in item.iterfind(".//q:respcondition", Q)
    ]


@pytest.mark.parametrize("build_cc", [build_cc13, build_cc11], ids=["cc13", "cc11"])
def test_the_credits_bank_is_a_valid_cartridge(build_cc) -> None:  # type: ignore[no-untyped-def]
    ((path, data),) = build_cc(_credits(), CTX).files.items()
    assert validate_cartridge(data, path) == []


def test_credits_feedback_and_names_as_the_profile_holds_them() -> None:
    bank = _credits()
    doc = docs(bank)["credits/assessment.xml"]
    item = {i.get("ident"): i for i in doc.iterfind(".//q:item", Q)}
    by_id = {q.id: q for q in bank.quizzes[0].questions}
    assert item["cr-zero3-memory"].get("title") == by_id["cr-zero3-memory"].name
    scoring = [c for c in _conditions(item["cr-zero3-memory"]) if c[1] is not None]
    assert scoring == [(["C1"], "100", ["correct_fb"]), (["C2"], "100", ["correct_fb"])]
    assert _conditions(item["cr-offload-cpu-adam"])[1:] == [
        (["true"], None, ["true_fb"]),
        (["false"], None, ["false_fb"]),
        (["true"], "100", []),
    ]
    # numerical: each full-credit key's number as an accepted text, with its feedback
    assert _conditions(item["cr-zero3-7b-memory"])[1:] == [
        (["1.875"], None, ["A1_fb"]),
        (["1.875"], "100", []),
    ]
    # matching parts: named after the question, without its right/wrong feedback
    parts = [i for ident, i in item.items() if ident.startswith("cr-parallelism-comm-")]
    assert [p.get("title") for p in parts] == [
        f"{by_id['cr-parallelism-comm'].name} ({n})" for n in range(1, 5)
    ]
    assert not [
        fb for p in parts for fb in p.iterfind("q:itemfeedback", Q) if fb.get("ident") != "general_fb"
    ]


CC_LOSSES = {
    "cr-zero3-memory": ["credit", "partial-feedback", "hints", "penalty"],
    "cr-zero2-partitioned": ["partial-feedback", "show-num-correct", "hints", "penalty"],
    "cr-offload-cpu-adam": ["penalty"],
    "cr-offload-config-key": ["credit", "hints", "other-feedback"],
    "cr-zero3-7b-memory": ["credit", "penalty", "other-feedback", "units"],
    "cr-bubble-cost": ["credit", "hints", "other-feedback", "units"],
    "cr-parallelism-comm": ["feedback", "partial-feedback", "show-num-correct", "hints", "penalty"],
    "cr-zero-or-tp-essay": ["essay-options"],
}
"""What the CC 1.3 profile cannot hold of each question of the credits bank (the multiple choice
question's credits: cc13.partial-credit, as for every multiple choice question)."""


def test_each_profile_loss_is_named_once_per_question_and_element() -> None:
    got: dict[str, list[str]] = {}
    for w in cc13.lossy_warnings(_credits()):
        if w.rule.endswith("-not-carried") and w.rule != "cc13.points-not-carried":
            got.setdefault(w.message.split("'")[1], []).append(w.rule[len("cc13.") : -len("-not-carried")])
    assert got == CC_LOSSES
    cc11 = {(w.message.split("'")[1], w.rule) for w in cc13.lossy_warnings(_credits(), cc13.CC11)}
    # what Moodle's restore, the 1.1 cartridge's reader, drops besides (tests/test_cc11_moodle.py)
    assert {r for r in cc11 if r[1] in ("cc11.feedback-not-carried", "cc11.answer-feedback-not-carried")} == {
        ("cr-zero3-memory", "cc11.feedback-not-carried"),
        ("cr-zero2-partitioned", "cc11.feedback-not-carried"),
        ("cr-offload-config-key", "cc11.answer-feedback-not-carried"),
        ("cr-zero3-7b-memory", "cc11.answer-feedback-not-carried"),
        ("cr-bubble-cost", "cc11.answer-feedback-not-carried"),
        ("cr-parallelism-comm", "cc11.feedback-not-carried"),
    }


@pytest.mark.parametrize("build_cc", [build_cc13, build_cc11], ids=["cc13", "cc11"])
def test_the_credits_cartridges_are_golden(build_cc, golden) -> None:  # type: ignore[no-untyped-def]
    """tests/cases/credits/expected/{cc,cc11}/: the cartridges' files, as the other cases' goldens."""
    ((path, data),) = build_cc(_credits(), CTX).files.items()
    expected = Path(__file__).parent / "cases" / "credits" / "expected"
    folder = Path(path).with_suffix("").as_posix()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name in zf.namelist():
            golden(expected / folder / name, zf.read(name))


# --------------------------------------------------------------------------- cloze, ordering, description

STRUCTURED = Path(__file__).parent / "cases" / "structured"


def _structured() -> Bank:
    from lmsexport.source import load_paths

    return load_paths([STRUCTURED])


def _expected_items(quiz: Quiz) -> list[tuple[str, str]]:
    """(ident, profile) of the items a quiz's new kinds become: a description none, a cloze one per
    blank (a text or number blank cc.fib, a choice blank a choice), an ordering one
    cc.multiple_choice per item (its matching stand-in split)."""
    from lmsexport.model import ChoiceBlank, Cloze, Description, NumberBlank, Ordering, TextBlank

    out = []
    for q in quiz.questions:
        match q.body:
            case Description():
                pass
            case Cloze(blanks=blanks):
                for n, b in enumerate(blanks, 1):
                    ident = q.id if len(blanks) == 1 else f"{q.id}-{n}"
                    if isinstance(b, TextBlank | NumberBlank):
                        out.append((ident, "cc.fib.v0p1"))
                    elif isinstance(b, ChoiceBlank) and not b.multiple:
                        out.append((ident, "cc.multiple_choice.v0p1"))
                    else:
                        out.append((ident, "cc.multiple_response.v0p1"))
            case Ordering(items=its):
                out += [(f"{q.id}-{i}", "cc.multiple_choice.v0p1") for i in range(1, len(its) + 1)]
            case _:
                out.append((q.id, cc13.PROFILES[q.type]))
    return out


def test_the_new_kinds_are_what_the_profile_can_ask() -> None:
    bank = _structured()
    got = docs(bank)
    for quiz in bank.quizzes:
        tree = got[f"{quiz.id}/assessment.xml"]
        items = [(i.get("ident"), fields(i)["cc_profile"]) for i in tree.iterfind(".//q:item", Q)]
        assert items == _expected_items(quiz)
        for item in tree.iterfind(".//q:item", Q):
            # a cloze part shows the text with its blanks as [n] (the profile's items have no gaps)
            assert item.find(".//q:response_str", Q) is None or len(item.findall(".//q:response_str", Q)) == 1


def test_the_structured_cartridges_are_valid_and_name_every_loss() -> None:
    bank = _structured()
    for build_cc, fmt in ((build_cc13, "cc13"), (build_cc11, "cc11")):
        out = build_cc(bank, WriteContext(formats=(fmt,)))
        ((path, data),) = out.files.items()
        assert validate_cartridge(data, path) == []
        rules = {(w.message.split("'")[1], w.rule) for w in out.warnings}
        assert ("st-intro", f"{fmt}.description-not-carried") in rules
        assert ("st-bubble", f"{fmt}.cloze-split") in rules
        assert ("st-bubble", f"{fmt}.numerical-as-fib") in rules
        assert ("st-zero-blanks", f"{fmt}.feedback-not-carried") in rules
        assert ("st-zero3-forward", f"{fmt}.ordering-as-matching") in rules
        assert ("st-zero3-forward", f"{fmt}.matching-split") in rules
        keyed = [(w.message.split("'")[1], w.rule) for w in out.warnings if w.message.startswith("question")]
        assert len(keyed) == len(set(keyed))  # one per question and element


def test_a_cloze_part_shows_the_blanks_as_numbers_and_asks_one() -> None:
    from lmsexport.model import Cloze, Gap, Str, inlines_of

    quiz = next(q for q in _structured().quizzes if q.id == "structured")
    q = next(q for q in quiz.questions if q.id == "st-zero-blanks")
    assert isinstance(q.body, Cloze)
    parts = cc13.cloze_parts(q, q.points, set())
    assert [p.id for p, _ in parts] == [f"st-zero-blanks-{n}" for n in range(1, len(q.body.blanks) + 1)]
    assert sum(points for _, points in parts) == pytest.approx(q.points)
    weights = [b.weight for b in q.body.blanks]
    assert [points for _, points in parts] == pytest.approx([q.points * w / sum(weights) for w in weights])
    for n, (part, _) in enumerate(parts, 1):
        inlines = list(inlines_of(part.stem))
        assert not any(isinstance(x, Gap) for x in inlines)
        words = "".join(x.text for x in inlines if isinstance(x, Str))
        assert all(f"[{k}]" in words for k in range(1, len(parts) + 1)) and words.endswith(f"[{n}]")


@pytest.mark.parametrize("build_cc", [build_cc13, build_cc11], ids=["cc13", "cc11"])
def test_the_structured_cartridges_are_golden(build_cc, golden) -> None:  # type: ignore[no-untyped-def]
    ((path, data),) = build_cc(_structured(), CTX).files.items()
    folder = Path(path).with_suffix("").as_posix()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name in zf.namelist():
            golden(STRUCTURED / "expected" / folder / name, zf.read(name))


def test_a_cartridge_of_the_new_kinds_reads_back_as_its_parts() -> None:
    """What lmsexport's reader makes of the cartridge: each part a question of its own (a cartridge
    item cannot say it was part of a cloze); nothing for a description."""
    from lmsexport.readers.packagefiles import ZipFiles
    from lmsexport.readers.qti12 import read_package

    bank = _structured()
    ((path, data),) = build_cc13(bank, CTX).files.items()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        found = read_package(ZipFiles(zf, path), path)
    read = {dq.raw_id for quiz in found.quizzes for dq in quiz.questions}
    assert {i for quiz in bank.quizzes for i, _ in _expected_items(quiz)} <= read
    assert "st-intro" not in read


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_structured_quiz_makes_valid_cartridges_that_read_back_stably(data: st.DataObject) -> None:
    """Any quiz of issue 23's kinds: both cartridges are valid (the build validates them, the
    untrusted-package check too), and import -> build -> import of the 1.3 one changes nothing."""
    from strategies import canonical_langs, structured_questions

    from lmsexport.readers.packagefiles import ZipFiles
    from lmsexport.readers.qti12 import read_package

    qs = tuple(data.draw(structured_questions(f"q{i}", everything=True)) for i in range(3))
    quiz = canonical_langs(Quiz("sq", "T", data.draw(st.sampled_from(["ur", "en"])), qs))

    def read(bank: Bank) -> list[Question]:
        ((path, blob),) = build_cc13(bank, CTX).files.items()
        assert validate_cartridge(blob, path) == []
        with zipfile.ZipFile(io.BytesIO(blob)) as zf:
            found = read_package(ZipFiles(zf, path), path)
        return [replace(dq.question, id=dq.raw_id or "") for q in found.quizzes for dq in q.questions]

    out11 = build_cc11(Bank((quiz,)), WriteContext(formats=("cc11",)))
    if not cc13.holds_items(quiz, cc13.CC11):  # only descriptions: no cartridge, and a warning
        assert out11.files == {} and "cc11.quiz-not-carried" in {w.rule for w in out11.warnings}
        return
    ((path11, blob11),) = out11.files.items()
    assert validate_cartridge(blob11, path11) == []
    first = read(Bank((quiz,)))
    written = {cc.ident for cc in cc13.cc_items(quiz, {q.id for q in quiz.questions})}
    assert {q.id for q in first} == written
    again = read(Bank((replace(quiz, questions=tuple(first)),)))
    assert again == first


def test_a_quiz_of_only_descriptions_is_left_out_of_the_cartridge(types_bank: Bank) -> None:
    """The profile wants an assessment's section to hold an item: a quiz with nothing but
    descriptions is left out, with a warning, and the rest of the cartridge is written."""
    from lmsexport.model import Description

    notes = Quiz("notes", "Notes", "ur", (Question(id="n1", stem="ZeRO", body=Description(), points=0.0),))
    bank = Bank((*types_bank.quizzes, notes))
    for build_cc, fmt in ((build_cc13, "cc13"), (build_cc11, "cc11")):
        out = build_cc(bank, WriteContext(formats=(fmt,)))
        ((path, data),) = out.files.items()
        assert validate_cartridge(data, path) == []
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            assert not any(n.startswith("notes/") for n in zf.namelist())
        assert {w.rule for w in out.warnings} >= {f"{fmt}.quiz-not-carried", f"{fmt}.description-not-carried"}
        assert [p for p, _, _ in cc13.cartridge_documents(bank, cc13.VERSIONS[fmt])] == [
            p for p, _, _ in cc13.cartridge_documents(Bank(types_bank.quizzes), cc13.VERSIONS[fmt])
        ]


# --------------------------------------------------------------------------- parametric questions
#
# The profile has no calculated type and no random draw (the CC 1.1 QTI profile's XSD annotation:
# "the itemproc_extension structure has been removed", "the entire Selection and Ordering ...
# removed"): the assessment asks a parametric question's first variant as an ordinary question,
# and the 1.3 question bank holds every variant (variants.instantiate), named per question.


def _parametric_bank() -> Bank:
    from test_qti12_parametric import bubble, quiz, zero1_choice, zero3

    return Bank((quiz(zero3(), bubble(), zero1_choice()),))


def _members(data: bytes) -> dict[str, etree._Element]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: etree.fromstring(zf.read(n)) for n in zf.namelist() if n.endswith(".xml")}


def test_a_parametric_question_is_its_first_variant_and_the_bank_holds_every_one() -> None:
    from lmsexport.formula import format_value
    from lmsexport.model import Calculated

    bank = _parametric_bank()
    (qz,) = bank.quizzes
    out = build_cc13(bank, CTX)
    ((path, data),) = out.files.items()
    assert validate_cartridge(data, path) == []
    docs = _members(data)
    assessment = docs[f"{qz.id}/assessment.xml"]
    asked = [i.get("ident") for i in assessment.iter("{*}item")]
    assert asked == [f"{q.id}-v001" for q in qz.questions]
    (bank_doc,) = [d for n, d in docs.items() if n.startswith("banks/")]
    held = [i.get("ident") for i in bank_doc.iter("{*}item")]
    assert held == [f"{q.id}-v{v.number:03d}" for q in qz.questions for v in q.body.variants]  # type: ignore[union-attr]
    for q in qz.questions:
        if not isinstance(q.body, Calculated):
            continue
        item = next(i for i in assessment.iter("{*}item") if i.get("ident") == f"{q.id}-v001")
        first = q.body.variants[0]
        assert first.answer is not None
        # the fill-in-the-blank accepts the key as shown with the question's decimals
        typed = [e.text for e in item.iter("{*}varequal")]
        assert typed == [str(float(format_value(first.answer, q.body.decimals))).removesuffix(".0")]
        assert "{" not in "".join(m.text or "" for m in item.iter("{*}mattext"))
    rules = [w.rule for w in out.warnings if w.rule == "cc13.variants-not-carried"]
    assert len(rules) == len(qz.questions)


def test_a_11_cartridge_has_the_first_variant_only_named() -> None:
    bank = _parametric_bank()
    (qz,) = bank.quizzes
    out = build_cc11(bank, WriteContext(formats=("cc11",)))
    ((path, data),) = out.files.items()
    assert validate_cartridge(data, path) == []
    docs = _members(data)
    asked = [i.get("ident") for n, d in docs.items() if n != "imsmanifest.xml" for i in d.iter("{*}item")]
    assert asked == [f"{q.id}-v001" for q in qz.questions]
    warnings = [w for w in out.warnings if w.rule == "cc11.variants-not-carried"]
    assert len(warnings) == len(qz.questions)
    assert all("not written (a 1.1 cartridge has no question bank)" in w.message for w in warnings)


def test_items_shared_between_documents_are_the_items_built_afresh() -> None:
    """A quiz's items are built once and shared (cc13._BUILT) by its 1.3 assessment, its 1.3
    bank (every variant of a parametric question, the first being the assessment's) and its
    1.1 assessment (unless 1.1 wants more choices): each document is the one built with nothing
    shared, in any order, for a quiz with a single choice of two choices (1.1's minimum is more)."""
    from lmsexport.writers import cc13

    plain = _parametric_bank().quizzes[0]
    two = Question(id="two-choices", stem="Which?", body=SingleChoice((Choice("a", 1.0), Choice("b"))))
    qz = replace(plain, questions=(*plain.questions, two))

    def documents(order: list[cc13.Version], fresh: bool) -> list[bytes]:
        cc13._BUILT.clear()
        out = []
        for version in order:
            if fresh:
                cc13._BUILT.clear()
            docs = cc13.quiz_documents(qz, version)
            out += [etree.tostring(docs.assessment)]
            if docs.bank is not None:
                out += [etree.tostring(docs.bank)]
        return out

    for order in ([cc13.CC13, cc13.CC11], [cc13.CC11, cc13.CC13], [cc13.CC13, cc13.CC13]):
        assert documents(order, fresh=False) == documents(order, fresh=True)
    cc13._BUILT.clear()


def test_the_losses_are_the_parts_warnings(types_bank: Bank, tmp_path: Path) -> None:
    """writers.LOSSES (what a build that keeps the cartridges but builds a file again gives
    of them) are exactly the warnings of the file's parts, for every kind of question: the
    seed bank, the real-shaped synthetic bank and a quiz of descriptions only (left out)."""
    import sys

    from lmsexport.model import Description
    from lmsexport.source import load_paths
    from lmsexport.writers import BANK_WIDE, LOSSES, get_losses, get_split

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        import synth
    finally:
        sys.path.remove(str(root / "benchmarks"))
    synth.write_bank(tmp_path, 300, shape="real")
    [quiz] = types_bank.quizzes
    described = replace(
        quiz, id="descriptions-only", questions=tuple(
            replace(q, points=0, body=Description()) for q in quiz.questions[:2]
        )
    )  # fmt: skip
    quizzes = [*load_paths([root / "source"]).quizzes, *load_paths([tmp_path]).quizzes, quiz, described]
    assert set(LOSSES) == BANK_WIDE
    ctx = WriteContext(formats=tuple(LOSSES), timestamp=0)
    seen = 0
    for name in LOSSES:
        for q in quizzes:
            parts = get_split(name)[0](Bank((q,)), ctx)
            expected = [w for part in parts for w in part.warnings]
            assert get_losses(name)(Bank((q,)), ctx) == expected
            seen += len(expected)
    assert seen > 100
    assert any(w.rule.endswith("quiz-not-carried") for w in get_losses("cc13")(Bank((described,)), ctx))
