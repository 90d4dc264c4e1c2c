"""The Canvas-flavour QTI 1.2 writer: what each type is written as (the fields Canvas's importer
reads, docs/canvas-qti12.md), validity against the QTI 1.2.1 DTD, texts and languages, and the
validator's own checks (DTD, CP manifest, Canvas's settings file)."""

from __future__ import annotations

import copy
import http.server
import io
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from dataclasses import replace
from pathlib import Path

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from lmsexport.errors import SchemaValidationError
from lmsexport.model import (
    Bank,
    Choice,
    Numerical,
    NumericKey,
    OutcomeFeedback,
    Question,
    QuestionType,
    Quiz,
    ShortAnswer,
    SingleChoice,
)
from lmsexport.validate_qti12 import (
    check_canvas_meta,
    parse_untrusted_qti12,
    validate_cp_manifest,
    validate_qti12_package,
    validate_qti12_tree,
)
from lmsexport.writers import WriteContext, qti12
from lmsexport.writers.qti12 import build_qti12

CTX = WriteContext(formats=("qti12",))


def items(quiz: Quiz) -> dict[str, etree._Element]:
    return {el.get("ident"): el for el in qti12.assessment_tree(quiz).iter("item")}


def meta(item: etree._Element) -> dict[str, str]:
    return {f.findtext("fieldlabel"): f.findtext("fieldentry") for f in item.iter("qtimetadatafield")}


def text_of(mattext: etree._Element) -> str:
    """A mattext back to the plain text it was written from (what a learner reads)."""
    if mattext.get("texttype") == "text/plain":
        return mattext.text or ""
    div = lxml.html.fragment_fromstring(mattext.text)
    parts = [div.text or ""]
    for br in div:
        assert br.tag == "br"
        parts.append(br.tail or "")
    return "\n".join(parts)


def test_every_type_has_canvas_question_type_and_points(types_quiz: Quiz) -> None:
    got = {ident: meta(item) for ident, item in items(types_quiz).items()}
    assert {ident: m["question_type"] for ident, m in got.items()} == {
        "t-single": "multiple_choice_question",
        "t-multiple": "multiple_answers_question",
        "t-true-false": "true_false_question",
        "t-short": "short_answer_question",
        "t-numerical": "numerical_question",
        "t-matching": "matching_question",
        "t-essay": "essay_question",
    }
    assert got["t-multiple"]["points_possible"] == "3"
    assert got["t-single"]["points_possible"] == "1"


def test_urdu_true_false_is_written_as_canvas_recognises_it(types_quiz: Quiz) -> None:
    """Canvas keeps a true_false_question only when its two answers say true and false
    (choice_interaction.rb process_true_false_question): an Urdu one too."""
    item = items(types_quiz)["t-true-false"]
    assert item.get("{http://www.w3.org/XML/1998/namespace}lang") == "ur"
    labels = item.findall(".//response_label")
    assert [(lab.get("ident"), text_of(lab.find(".//mattext"))) for lab in labels] == [
        ("true", "True"),
        ("false", "False"),
    ]
    assert item.xpath("string(.//respcondition[setvar]/conditionvar/varequal)") == "true"


def test_short_answer_keeps_every_accepted_answer(types_quiz: Quiz) -> None:
    item = items(types_quiz)["t-short"]
    scoring = item.xpath(".//respcondition[setvar]")
    assert len(scoring) == 1
    assert scoring[0].xpath("conditionvar/varequal/text()") == ["FSDP", "FullyShardedDataParallel"]
    assert item.find(".//response_str/render_fib") is not None


@pytest.mark.parametrize(
    ("key", "condition"),
    [
        (NumericKey(answer=12, tolerance=0.5), "or(12, and(>=11.5, <=12.5))"),
        (NumericKey(answer=0.3, tolerance=0.1), "or(0.3, and(>=0.2, <=0.4))"),
        (NumericKey(answer=7), "or(7)"),
        (NumericKey(low=19, high=21), ">=19, <=21"),
        (NumericKey(answer=20, low=19, high=21), ">=19, <=21"),
        (NumericKey(answer=1e-05), "or(0.00001)"),
    ],
)
def test_numerical_keeps_the_tolerance_or_range(key: NumericKey, condition: str) -> None:
    """Exact answer with its margin, or a range, as Canvas's exporter writes them and its
    numeric_interaction.rb reads them back (exact_answer with margin / range_answer); bounds
    computed in decimal, so 0.3 - 0.1 is 0.2, not 0.19999999999999998."""
    q = Question(id="n", stem="How many?", body=Numerical(keys=(key,)))
    item = items(Quiz("q", "T", "en", (q,)))["n"]
    var = item.find(".//respcondition[setvar]/conditionvar")

    def show(el: etree._Element) -> str:
        if el.tag in ("vargte", "varlte"):
            return (">=" if el.tag == "vargte" else "<=") + (el.text or "")
        if el.tag == "varequal":
            return el.text or ""
        return f"{el.tag}({', '.join(show(c) for c in el)})"

    assert ", ".join(show(c) for c in var) == condition
    assert item.find(".//render_fib").get("fibtype") == "Decimal"


def test_matching_lists_every_right_item_and_distractor_for_each_left(types_quiz: Quiz) -> None:
    item = items(types_quiz)["t-matching"]
    lids = item.findall(".//response_lid")
    assert [text_of(lid.find("material/mattext")) for lid in lids] == ["Stage 1", "Stage 2", "Stage 3"]
    for lid in lids:
        rights = [text_of(m) for m in lid.findall("render_choice/response_label/material/mattext")]
        assert rights == ["Optimizer states", "Gradients", "Parameters", "Activations"]
        # Canvas takes the right-hand items' text as plain text (associate_interaction.rb)
        assert {m.get("texttype") for m in lid.findall(".//response_label//mattext")} == {"text/plain"}
    pairs = [
        (c.find("conditionvar/varequal").get("respident"), c.findtext("conditionvar/varequal"))
        for c in item.findall(".//respcondition")
        if c.find("setvar") is not None
    ]
    assert pairs == [("response_L1", "R1"), ("response_L2", "R2"), ("response_L3", "R3")]
    assert {c.findtext("setvar") for c in item.findall(".//respcondition[setvar]")} == {"33.33"}
    assert {c.find("setvar").get("action") for c in item.findall(".//respcondition[setvar]")} == {"Add"}


def test_essay_has_no_answer(types_quiz: Quiz) -> None:
    item = items(types_quiz)["t-essay"]
    assert item.find(".//varequal") is None
    assert item.find(".//respcondition/conditionvar/other") is not None


def test_feedback_and_explanation(types_quiz: Quiz) -> None:
    """Choice feedback shown for the picked choice (``<ident>_fb``), the explanation as the
    general feedback (``general_fb``, Canvas's general comments), both before the scoring
    condition so Canvas's converter keeps the right choice's weight."""
    item = items(types_quiz)["t-single"]
    feedback = {fb.get("ident"): text_of(fb.find(".//mattext")) for fb in item.findall("itemfeedback")}
    assert feedback == {
        "general_fb": "مرحلہ 3 پیرامیٹرز کو بھی تقسیم کرتا ہے۔",
        "C1_fb": "صرف آپٹیمائزر اسٹیٹ۔",
        "C2_fb": "درست۔",
    }
    conds = item.findall(".//respcondition")
    assert conds[0].find("conditionvar/other") is not None and conds[0].get("continue") == "Yes"
    assert conds[-1].find("setvar") is not None and conds[-1].get("continue") == "No"
    shown = [
        c.find("displayfeedback").get("linkrefid") for c in conds if c.find("displayfeedback") is not None
    ]
    assert shown == ["general_fb", "C1_fb", "C2_fb"]


def test_shuffle_follows_the_quiz(types_quiz: Quiz) -> None:
    assert {r.get("shuffle") for r in qti12.assessment_tree(types_quiz).iter("render_choice")} == {"No"}
    shuffled = replace(types_quiz, shuffle=True)
    renders = {i: {r.get("shuffle") for r in el.iter("render_choice")} for i, el in items(shuffled).items()}
    assert renders["t-single"] == {"Yes"} and renders["t-true-false"] == {"No"}  # true before false
    assert qti12.meta_tree(shuffled).findtext(f"{{{qti12.CANVAS_NS}}}shuffle_answers") == "true"


def test_languages_and_direction_travel_in_the_html(types_quiz: Quiz) -> None:
    """QTI 1.2 has no dir: each text is a div with dir and lang, which Canvas's sanitizer keeps."""
    quiz = items(types_quiz)
    urdu = quiz["t-essay"].find("presentation/material/mattext")
    div = lxml.html.fragment_fromstring(urdu.text)
    assert (div.get("dir"), div.get("lang")) == ("rtl", "ur")
    english = quiz["t-multiple"].find("presentation/material/mattext")
    assert lxml.html.fragment_fromstring(english.text).get("dir") == "ltr"


def test_every_text_comes_back_exactly() -> None:
    """Markup-looking text is text: escaped once as HTML, once as XML, and read back whole."""
    nasty = "<b>x</b> & ]]> &amp; <script>alert(1)</script>\nسطر دوم"
    q = Question(
        id="q1",
        stem=nasty,
        explanation=nasty,
        body=SingleChoice((Choice(nasty, credit=1.0, feedback=nasty), Choice("b"))),
    )
    item = items(Quiz("qz", nasty, "ur", (q,)))["q1"]
    texts = [text_of(m) for m in item.iter("mattext")]
    assert texts.count(nasty) == 4  # stem, choice, its feedback, the explanation
    assert not any(
        el.tag == "script"
        for m in item.iter("mattext")
        for el in lxml.html.fragment_fromstring(m.text).iter()
    )


def test_built_package_is_valid_and_complete(types_bank: Bank) -> None:
    out = build_qti12(types_bank, CTX)
    (path,) = out.files
    assert path == "qti12/all-types.zip"
    assert validate_qti12_package(out.files[path], path) == []
    with zipfile.ZipFile(io.BytesIO(out.files[path])) as zf:
        assert zf.namelist() == [
            "imsmanifest.xml",
            "all-types/all-types.xml",
            "all-types/assessment_meta.xml",
        ]
        # No DOCTYPE and no namespace: valid against the QTI 1.2.1 DTD as written.
        assert b"<!DOCTYPE" not in zf.read("all-types/all-types.xml")
        assert b"xmlns" not in zf.read("all-types/all-types.xml")


def test_build_is_reproducible(types_bank: Bank) -> None:
    assert build_qti12(types_bank, CTX).files == build_qti12(types_bank, CTX).files


def test_an_invalid_document_fails_the_build(types_bank: Bank, monkeypatch: pytest.MonkeyPatch) -> None:
    real = qti12.assessment_tree

    def broken(quiz: Quiz) -> etree._Element:
        root = real(quiz)
        root.find(".//item").set("bogus", "1")
        return root

    monkeypatch.setattr(qti12, "assessment_tree", broken)
    with pytest.raises(SchemaValidationError) as caught:
        build_qti12(types_bank, CTX)
    (problem,) = caught.value.diagnostics
    assert problem.loc.path == "qti12/all-types.zip!all-types/all-types.xml"
    assert problem.rule == "dtd.invalid"
    # The attribute and the element path are named; the sentence around them is libxml2's.
    assert re.search(r"\bbogus\b", problem.message), problem.message
    assert problem.message.endswith(" (at /questestinterop/assessment/section/item)"), problem.message


def test_dtd_checks_content_models() -> None:
    tree = etree.fromstring(
        "<questestinterop><assessment ident='a' title='t'><section ident='s'>"
        "<item ident='i'><presentation><material><flow/></material></presentation></item>"
        "</section></assessment></questestinterop>"
    )
    problems = validate_qti12_tree(tree, "x.xml")
    assert {p.rule for p in problems} == {"dtd.invalid"}
    # Both elements whose content breaks the DTD are named (libxml2's sentences around them).
    assert [re.findall(r"\b(material|flow)\b", p.message)[:1] for p in problems] == [["material"], ["flow"]]


def test_namespaced_qti12_is_checked_against_the_dtd_content_model() -> None:
    """Canvas's and text2qti's QTI 1.2 (the XSD binding's namespace) get the DTD's checks."""
    ns = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
    xsi = "http://www.w3.org/2001/XMLSchema-instance"
    good = (
        f"<questestinterop xmlns='{ns}' xmlns:xsi='{xsi}' xsi:schemaLocation='{ns} "
        "http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd'><assessment ident='a' title='t'>"
        "<section ident='s'/></assessment></questestinterop>"
    )
    assert validate_qti12_tree(etree.fromstring(good), "x.xml") == []
    bad = good.replace("<section ident='s'/>", "<section/>")
    assert (
        "Element section does not carry attribute ident"
        in validate_qti12_tree(etree.fromstring(bad), "x.xml")[0].message
    )


def test_canvas_meta_is_checked(types_quiz: Quiz) -> None:
    good = qti12.meta_tree(types_quiz)
    assert check_canvas_meta(good, "m.xml") == []
    bad = qti12.meta_tree(types_quiz)
    bad.find(f"{{{qti12.CANVAS_NS}}}shuffle_answers").text = "yes"
    bad.find(f"{{{qti12.CANVAS_NS}}}points_possible").text = "many"
    messages = [d.message.split(" (at")[0] for d in check_canvas_meta(bad, "m.xml")]
    assert messages == [
        "setting shuffle_answers must be true or false, not 'yes'",
        "setting points_possible must be a number, not 'many'",
    ]
    assert check_canvas_meta(etree.fromstring("<quiz/>"), "m.xml")[0].message.startswith("root element quiz")


def test_manifest_is_valid_cp_and_names_the_files(types_quiz: Quiz) -> None:
    manifest = qti12.manifest_tree(types_quiz)
    assert validate_cp_manifest(manifest, "imsmanifest.xml") == []
    ns = {"cp": qti12.CP_NS}
    types = {r.get("type") for r in manifest.iterfind(".//cp:resource", ns)}
    assert types == {"imsqti_xmlv1p2", "associatedcontent/imscc_xmlv1p1/learning-application-resource"}
    broken = qti12.manifest_tree(types_quiz)
    broken.find("cp:resources", ns).addprevious(etree.Element(f"{{{qti12.CP_NS}}}bogus"))
    assert validate_cp_manifest(broken, "imsmanifest.xml") != []


def test_canvas_case_sensitivity_is_warned(types_bank: Bank) -> None:
    quiz = types_bank.quizzes[0]
    short = quiz.questions[3]
    assert isinstance(short.body, ShortAnswer)
    q = replace(short, body=replace(short.body, case_sensitive=True))
    warnings = qti12.lossy_warnings(replace(quiz, questions=(q,)))
    assert [w.rule for w in warnings] == ["qti12.canvas-case-sensitive"]
    assert items(replace(quiz, questions=(q,)))["t-short"].find(".//varequal").get("case") == "Yes"


# --------------------------------------------------------------------------- offline, untrusted


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        _Recorder.requests.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'<!ENTITY leak "fetched">')

    def log_message(self, *args: object) -> None:
        pass


def test_a_doctype_naming_a_dtd_is_accepted_and_never_fetched() -> None:
    _Recorder.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/qti.dtd"
        data = (
            f'<?xml version="1.0"?>\n<!DOCTYPE questestinterop SYSTEM "{url}">\n'
            "<questestinterop><assessment ident='a' title='t'><section ident='s'/></assessment>"
            "</questestinterop>"
        ).encode()
        tree, problems = parse_untrusted_qti12(data, "a.xml")
        assert tree is not None and problems == []
        assert validate_qti12_tree(tree, "a.xml") == []
        assert _Recorder.requests == []
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE questestinterop [<!ENTITY a "b">]>',
        '<!DOCTYPE questestinterop SYSTEM "x.dtd" [<!ENTITY a "b">]>',
        "<!doctype questestinterop [<!ENTITY % p SYSTEM 'http://x/'> %p;]>",
    ],
)
def test_an_internal_subset_is_refused_before_parsing(doctype: str) -> None:
    data = f'<?xml version="1.0"?>\n{doctype}\n<questestinterop/>'.encode()
    for encoded in (data, data.decode().replace('"1.0"?>', '"1.0" encoding="UTF-16"?>').encode("utf-16")):
        tree, problems = parse_untrusted_qti12(encoded, "a.xml")
        assert tree is None
        assert [(p.rule, p.loc.line) for p in problems] == [("xml.doctype", 2)]


_NO_NET_SCRIPT = """
import socket
def refuse(*a, **k):
    raise OSError("network refused by the test")
socket.socket.connect = refuse
socket.create_connection = refuse
import sys
sys.path.insert(0, sys.argv[1])
from conftest import make_types_quiz
from lmsexport.build import build
from lmsexport.model import Bank
from lmsexport.validate_qti12 import validate_cartridge, validate_qti12_package
out = build(Bank((make_types_quiz(),)), ["qti12", "cc13"])
assert validate_qti12_package(out.files["qti12/all-types.zip"], "q.zip") == []
assert validate_cartridge(out.files["cc/bank.imscc"], "b.imscc") == []
print("ok")
"""


@pytest.mark.parametrize("unshare", [True, False], ids=["network-namespace", "sockets-refused"])
def test_build_and_validate_with_no_network(unshare: bool) -> None:
    """A fresh process compiles the DTD, the CC schemas and their Schematron, builds and validates
    both formats with no network at all (unshare -rn), or with Python's sockets refused."""
    command = [sys.executable, "-c", _NO_NET_SCRIPT, str(Path(__file__).parent)]
    if unshare:
        if shutil.which("unshare") is None or subprocess.run(["unshare", "-rn", "true"]).returncode:
            pytest.skip("unshare -rn is not available here")
        command = ["unshare", "-rn", *command]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def test_schemas_are_the_shared_set_byte_for_byte() -> None:
    """schemas/ is a copy of the workspace's shared schema set (when there is one to compare)."""
    shared = Path(__file__).resolve().parents[2] / "shared" / "schemas"
    ours = Path(__file__).resolve().parents[1] / "schemas"
    if not shared.is_dir():
        pytest.skip("no shared schema set next to this checkout")
    files = {p.relative_to(shared).as_posix() for p in shared.rglob("*") if p.is_file()}
    assert files == {p.relative_to(ours).as_posix() for p in ours.rglob("*") if p.is_file()}
    assert [f for f in sorted(files) if (shared / f).read_bytes() != (ours / f).read_bytes()] == []


# --------------------------------------------------------------------------- assessments


def _exam_bank() -> Bank:
    from lmsexport.source import load_paths

    cases = Path(__file__).parent / "cases" / "types"
    return load_paths([cases / "bank.yaml", cases / "exam.yaml"])


def test_an_assessment_is_a_package_of_its_own_with_canvas_question_groups() -> None:
    bank = _exam_bank()
    (exam,) = bank.assessments
    pkg = qti12.exam_package(exam)
    assert pkg.path == "qti12/every-type-exam.zip"
    (doc,) = [tree for path, kind, tree in pkg.docs if kind == "qti12"]
    sections = doc.findall("assessment/section/section")
    assert [(s.get("ident"), s.get("title")) for s in sections] == [
        ("every-type-exam-section1", "انتخابی سوالات"),
        ("every-type-exam-section2", "جواب لکھیں"),
    ]
    assert sections[0].find("selection_ordering/order").get("order_type") == "Random"
    assert sections[1].find("selection_ordering") is None  # not shuffled
    groups = doc.findall(".//section/section/section")
    assert [
        (
            g.get("title"),
            g.findtext(".//selection_number"),
            g.findtext(".//points_per_item"),
            len(g.findall("item")),
        )
        for g in groups
    ] == [("choices", "2", "2", 4), ("typed", "3", "1", 4)]
    # An explicit draw's questions are plain items of the section, at the draw's points.
    listed = {i.get("ident"): i for i in sections[1].findall("item")}
    assert list(listed) == ["three-d-tradeoffs"]
    assert meta(listed["three-d-tradeoffs"])["points_possible"] == "10"
    # A question is the same item as in its quiz's package but for its points in the draw.
    quiz_items = items(bank.quizzes[0])
    for group in groups:
        for item in group.findall("item"):
            mine, theirs = copy.deepcopy(item), copy.deepcopy(quiz_items[item.get("ident")])
            for el in (mine, theirs):
                el.find(".//qtimetadatafield[fieldlabel='points_possible']/fieldentry").text = "x"
            assert etree.tostring(mine) == etree.tostring(theirs)
    meta_file = qti12.exam_meta_tree(exam)
    assert meta_file.findtext(f"{{{qti12.CANVAS_NS}}}points_possible") == str(int(exam.total_points or 0))
    assert validate_qti12_package(build_qti12(bank, CTX).files[pkg.path], pkg.path) == []


def test_an_assessment_warns_of_what_canvas_drops() -> None:
    bank = _exam_bank()
    (exam,) = bank.assessments
    rules = [(w.rule, w.loc.line) for w in qti12.exam_warnings(exam)]
    assert rules == [
        ("qti12.section-title", 8),
        ("qti12.section-shuffle", 8),
        ("qti12.section-title", 16),
    ]
    # A pool over questions worth different points: Canvas's group has one value.
    draw = next(d for d in exam.draws if d.is_random and d.points is not None)
    mixed = replace(
        exam, sections=(replace(exam.sections[0], draws=(replace(draw, points=None),), shuffle=False),)
    )
    (doc,) = [tree for _, kind, tree in qti12.exam_package(mixed).docs if kind == "qti12"]
    if len({c.question.points for c in draw.candidates}) > 1:
        assert doc.find(".//selection_extension") is None
        assert [w.rule for w in qti12.exam_warnings(mixed)] == ["qti12.section-title", "qti12.group-points"]
    else:  # pragma: no cover - the case has candidates of different points
        raise AssertionError("the exam's pool should mix points")


@pytest.mark.parametrize(
    ("extension", "message"),
    [
        ("<points_per_item>2</points_per_item>", None),
        ("<points_per_item>2.5</points_per_item><sourcebank_is_external>true</sourcebank_is_external>", None),
        ("<points_per_item>many</points_per_item>", "points_per_item must be a number of points, not 'many'"),
        ("<points_per_item>-1</points_per_item>", "points_per_item must be a number of points, not '-1'"),
        ("<bogus>1</bogus>", "selection_extension may hold only Canvas's"),
        ("<points_per_item>1</points_per_item><points_per_item>2</points_per_item>", "each once"),
    ],
)
def test_canvas_group_extension_is_checked_by_code(extension: str, message: str | None) -> None:
    """QTI 1.2.1's DTD declares no extension elements: Canvas's points_per_item is checked by
    validate_qti12 itself, and the rest of the document by the DTD."""
    doc = (
        "<questestinterop><assessment ident='a' title='t'><section ident='s'>"
        "<section ident='g'><selection_ordering><selection><selection_number>1</selection_number>"
        f"<selection_extension>{extension}</selection_extension></selection></selection_ordering>"
        "</section></section></assessment></questestinterop>"
    )
    problems = validate_qti12_tree(etree.fromstring(doc), "x.xml")
    if message is None:
        assert problems == []
    else:
        assert [p.rule for p in problems] == ["qti12.canvas-extension"]
        assert message in problems[0].message
    misplaced = doc.replace("<selection_number>1</selection_number>", "").replace(
        "</selection></selection_ordering>",
        "<selection_number>1</selection_number></selection></selection_ordering>",
    )
    assert validate_qti12_tree(etree.fromstring(misplaced), "x.xml") != []


# --------------------------------------------------------------------------- credits, feedback, names

CREDITS = Path(__file__).parent / "cases" / "credits" / "credits.yaml"


def _credits_quiz() -> Quiz:
    from lmsexport.source import load_paths

    (quiz,) = load_paths([CREDITS]).quizzes
    return quiz


def _scoring(item: etree._Element) -> list[tuple[list[str], str | None, list[str]]]:
    """(varequal values, the SCORE it sets, the feedback it shows) of each condition."""
    return [
        (
            [v.text or "" for v in c.iter("varequal")],
            c.findtext("setvar"),
            [d.get("linkrefid") for d in c.findall("displayfeedback")],
        )
        for c in item.iter("respcondition")
    ]


def test_a_name_is_the_item_title_and_comes_back() -> None:
    quiz = _credits_quiz()
    got = items(quiz)
    assert got["cr-zero3-memory"].get("title") == "ZeRO-3: فی GPU ماڈل اسٹیٹ کی میموری"
    nameless = replace(quiz.questions[0], name=None)
    assert qti12.item_title(nameless) == qti12.short_title(nameless)


def test_every_full_credit_choice_is_right_and_a_partial_one_is_not_written() -> None:
    """Canvas gives every choice a condition sets a positive score for the weight 100
    (choice_interaction.rb get_base_value): each full-credit choice gets its own condition, and
    a partly right or negative one none (not Set 33.33, which Canvas would make fully right)."""
    item = items(_credits_quiz())["cr-zero3-memory"]
    scoring = [(v, s, f) for v, s, f in _scoring(item) if s is not None]
    assert scoring == [(["C1"], "100", ["correct_fb"]), (["C2"], "100", ["correct_fb"])]
    # the wrong-response feedback last, when no scoring condition held (Canvas: its else branch)
    last = item.findall(".//respcondition")[-1]
    assert last.find("conditionvar/other") is not None and last.get("continue") == "No"
    assert [d.get("linkrefid") for d in last.findall("displayfeedback")] == ["general_incorrect_fb"]
    idents = [fb.get("ident") for fb in item.findall("itemfeedback")]
    assert idents == [
        "general_fb",
        "correct_fb",
        "general_incorrect_fb",
        "C1_fb",
        "C2_fb",
        "C3_fb",
        "C4_fb",
        "C5_fb",
    ]


def test_true_false_answers_carry_their_feedback() -> None:
    item = items(_credits_quiz())["cr-offload-cpu-adam"]
    assert _scoring(item)[1:] == [
        (["true"], None, ["true_fb"]),
        (["false"], None, ["false_fb"]),
        (["true"], "100", []),
    ]
    assert [fb.get("ident") for fb in item.findall("itemfeedback")] == ["general_fb", "true_fb", "false_fb"]


def test_short_answers_only_full_credit_ones_with_their_feedback() -> None:
    """Canvas makes every answer it finds fully right (extended_text_interaction.rb): the 50 %
    and the 0 % wildcard answer are not written at all, the right ones with their feedback."""
    item = items(_credits_quiz())["cr-offload-config-key"]
    assert _scoring(item)[1:] == [
        (["zero_optimization.offload_optimizer"], None, ["A2_fb"]),
        (["offload_optimizer", "zero_optimization.offload_optimizer"], "100", []),
    ]
    assert "cpu_offload" not in etree.tostring(item, encoding="unicode")


def test_numerical_keys_each_a_condition_partial_ones_left_out() -> None:
    item = items(_credits_quiz())["cr-zero3-7b-memory"]
    scoring = [(v, s, f) for v, s, f in _scoring(item) if s is not None]
    assert scoring == [(["1.875"], "100", ["K1_fb"])]
    two = Numerical(
        keys=(NumericKey(answer=3, feedback="three"), NumericKey(low=10, high=12, feedback="ten"))
    )
    q = Question(id="n", stem="?", body=two, feedback=OutcomeFeedback(correct="yes"))
    item = items(Quiz("q", "T", "en", (q,)))["n"]
    assert [(s, f) for _, s, f in _scoring(item)] == [
        ("100", ["K1_fb", "correct_fb"]),
        ("100", ["K2_fb", "correct_fb"]),
    ]


LOSSES = {
    "cr-zero3-memory": ["credit", "partial-feedback", "hints", "penalty"],
    "cr-zero2-partitioned": ["credit", "partial-feedback", "show-num-correct", "hints", "penalty"],
    "cr-offload-cpu-adam": ["penalty"],
    "cr-offload-config-key": ["credit", "hints", "other-feedback"],
    "cr-zero3-7b-memory": ["credit", "penalty", "other-feedback", "units"],
    "cr-bubble-cost": ["credit", "hints", "other-feedback", "units"],
    "cr-parallelism-comm": ["partial-feedback", "show-num-correct", "hints", "penalty"],
    "cr-zero-or-tp-essay": ["essay-options"],
}
"""What Canvas cannot keep of each question of the credits bank (docs/canvas-qti12.md)."""


def test_each_loss_is_named_once_per_question_and_element() -> None:
    quiz = _credits_quiz()
    got: dict[str, list[str]] = {}
    for w in qti12.lossy_warnings(quiz):
        qid = w.message.split("'")[1]
        if w.rule.endswith("-not-carried"):
            got.setdefault(qid, []).append(w.rule.removeprefix("qti12.").removesuffix("-not-carried"))
    assert got == LOSSES
    assert all(w.loc is not None and w.loc.line for w in qti12.lossy_warnings(quiz))


def test_the_credits_package_is_valid_and_converts() -> None:
    out = build_qti12(Bank((_credits_quiz(),)), CTX)
    assert validate_qti12_package(out.files["qti12/credits.zip"], "credits.zip") == []


def test_a_single_choice_without_a_full_credit_choice_marks_none_right() -> None:
    body = SingleChoice((Choice("a", credit=0.5), Choice("b")))
    q = Question(id="s", stem="?", body=body)
    item = items(Quiz("q", "T", "en", (q,)))["s"]
    assert _scoring(item) == [(["C1"], None, [])]
    assert validate_qti12_tree(qti12.assessment_tree(Quiz("q", "T", "en", (q,))), "x.xml") == []
    (w,) = [
        w for w in qti12.lossy_warnings(Quiz("q", "T", "en", (q,))) if w.rule == "qti12.credit-not-carried"
    ]
    assert "no choice earns full credit" in w.message


# --------------------------------------------------------------------------- round trip of what qti12 carries


def _qti12_carried(quiz: Quiz) -> tuple[Quiz, set[str]]:
    """What an import of the quiz's Canvas-flavour package gives back (the model projected on
    what the format carries), and the ids of the questions the reader skips (a single choice or
    numerical question with no full-credit answer: the package has no right answer to read)."""
    from lmsexport.model import (
        Answer,
        Essay,
        Matching,
        MultipleChoice,
        OutcomeFeedback,
        TrueFalse,
        default_multiple_credits,
    )
    from lmsexport.moodle import name_from_stem

    out, skipped = [], set()
    for q in quiz.questions:
        body = q.body
        match body:
            case SingleChoice(choices=choices):
                if not body.key_indexes:
                    skipped.add(q.id)
                    continue
                body = SingleChoice(tuple(replace(c, credit=1.0 if c.full else 0.0) for c in choices))
            case MultipleChoice(choices=choices):
                credits = default_multiple_credits([c.earns for c in choices])
                body = MultipleChoice(
                    tuple(replace(c, credit=x) for c, x in zip(choices, credits, strict=True))
                )
            case ShortAnswer():
                kept = tuple(Answer(a.text, 1.0, a.feedback) for _, a in qti12.accepted_answers(body))
                body = ShortAnswer(kept, body.case_sensitive)
            case Numerical():
                keys = []
                for _, k in qti12.full_keys(body):
                    low, high = k.bounds
                    answer = None if k.low is not None else k.answer  # a range is written without it
                    keys.append(replace(k, answer=answer, tolerance=0.0, low=low, high=high))
                if not keys:
                    skipped.add(q.id)
                    continue
                body = Numerical(keys=tuple(keys))
            case Essay():
                body = Essay()
            case TrueFalse() | Matching():
                pass
        feedback = (
            OutcomeFeedback()
            if isinstance(body, Essay)
            else OutcomeFeedback(correct=q.feedback.correct, incorrect=q.feedback.incorrect)
        )
        name = q.name if q.name not in (qti12.short_title(q), name_from_stem(q)) else None
        out.append(replace(q, body=body, feedback=feedback, name=name, hints=(), penalty=None, tags=()))
    shuffles = any(isinstance(q.body, SingleChoice | MultipleChoice | Matching) for q in out)
    del shuffles  # QTI 1.2 carries shuffling in Canvas's settings file, whatever the types
    return replace(quiz, questions=tuple(out), category=None, difficulty=None), skipped


def _bounded(quiz: Quiz) -> Quiz:
    """Numerical keys as a QTI file holds them: the accepted interval (and the answer)."""
    qs = []
    for q in quiz.questions:
        if isinstance(q.body, Numerical):
            keys = []
            for k in q.body.keys:
                low, high = k.bounds
                keys.append(replace(k, tolerance=0.0, low=low, high=high))
            q = replace(q, body=replace(q.body, keys=tuple(keys)))
        qs.append(q)
    return replace(quiz, questions=tuple(qs))


def _import_files(files: dict[str, bytes]) -> Bank:
    """Write the packages to a folder, import it, write the YAML, load it again (as the CLI does)."""
    import tempfile

    from lmsexport.importer import find_sources, output_files, read_sources, verify
    from lmsexport.source import load_paths

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for rel, data in files.items():
            (root / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "src" / rel).write_bytes(data)
        result = read_sources(find_sources([root / "src"]), None)
        assert not result.failed, [x.format() for x in result.diags]
        written, lost = output_files(result)
        for rel, data in written.items():
            (root / "out" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "out" / rel).write_bytes(data)
        assert verify(root / "out", result, lost, root / "out") == []
        return load_paths([root / "out"])


def test_the_credits_bank_comes_back_as_far_as_qti12_carries_it() -> None:
    quiz = _credits_quiz()
    (back,) = _import_files(build_qti12(Bank((quiz,)), CTX).files).quizzes
    kept, skipped = _qti12_carried(quiz)
    assert skipped == set()
    assert _bounded(back) == _bounded(kept)


@pytest.mark.parametrize("seed", [0])
def test_any_bank_comes_back_as_far_as_qti12_carries_it(seed: int) -> None:
    from hypothesis import HealthCheck, given, settings
    from strategies import banks

    @settings(
        max_examples=40,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(bank=banks(everything=True))
    def check(bank: Bank) -> None:
        # a package none of whose questions can be read is an import error: leave those out
        readable = tuple(quiz for quiz in bank.quizzes if _qti12_carried(quiz)[0].questions)
        if not readable:
            return
        back = {q.id: q for q in _import_files(build_qti12(Bank(readable), CTX).files).quizzes}
        for quiz in readable:
            kept, _ = _qti12_carried(quiz)
            got = _bounded(back[quiz.id])
            assert [q.id for q in got.questions] == [q.id for q in kept.questions]
            for mine, theirs in zip(_bounded(kept).questions, got.questions, strict=True):
                assert theirs == mine
            assert replace(got, questions=()) == replace(_bounded(kept), questions=())

    check()


def _read_items(xml: str) -> list[Question]:
    from lmsexport.readers.qti12 import read_document

    found = read_document(xml.encode(), "x.xml")
    return [dq.question for quiz in found.quizzes for dq in quiz.questions]


def test_foreign_partial_credits_and_answer_feedback_are_read() -> None:
    """Another tool's QTI 1.2 (no Canvas metadata): a choice worth half the best one's score is
    half right, a short answer worth less is a graded answer, each numerical condition a key."""
    cond = (
        "<respcondition><conditionvar><varequal respident='r'>{v}</varequal></conditionvar>"
        "<setvar action='Set'>{s}</setvar>{fb}</respcondition>"
    )
    fb = "<displayfeedback feedbacktype='Response' linkrefid='{f}'/>"

    def item(ident: str, presentation: str, conditions: str, feedback: str = "") -> str:
        return (
            f"<item ident='{ident}' title='Named {ident}'><presentation>"
            f"<material><mattext>Q {ident}</mattext></material>{presentation}</presentation>"
            f"<resprocessing><outcomes><decvar/></outcomes>{conditions}</resprocessing>{feedback}</item>"
        )

    choice = (
        "<response_lid ident='r' rcardinality='Single'><render_choice>"
        + "".join(
            f"<response_label ident='{i}'><material><mattext>{i}</mattext></material></response_label>"
            for i in "abc"
        )
        + "</render_choice></response_lid>"
    )
    text = "<response_str ident='r'><render_fib/></response_str>"
    itemfb = (
        "<itemfeedback ident='{f}'><flow_mat><material><mattext>{t}</mattext></material></flow_mat>"
        "</itemfeedback>"
    )
    doc = (
        "<questestinterop>"
        + item("s", choice, cond.format(v="a", s="1", fb="") + cond.format(v="b", s="0.5", fb=""))
        + item(
            "t",
            text,
            cond.format(v="yes", s="100", fb=fb.format(f="f1"))
            + cond.format(v="maybe", s="50", fb=fb.format(f="f2")),
            itemfb.format(f="f1", t="right") + itemfb.format(f="f2", t="half"),
        )
        + "</questestinterop>"
    )
    single, short = _read_items(doc)
    assert isinstance(single.body, SingleChoice)
    assert [c.credit for c in single.body.choices] == [1.0, 0.5, 0.0]
    assert single.name == "Named s"
    assert isinstance(short.body, ShortAnswer)
    assert [(a.text, a.credit, a.feedback) for a in short.body.answers] == [
        ("yes", 1.0, "right"),
        ("maybe", 0.5, "half"),
    ]


def test_a_title_derived_from_the_stem_is_no_name() -> None:
    q = Question(
        id="d", stem="What is ZeRO?\nSecond line", body=SingleChoice((Choice("a", 1.0), Choice("b")))
    )
    named = replace(q, id="n", name="ZeRO, stage 1")
    tree = qti12.assessment_tree(Quiz("q", "T", "en", (q, named)))
    back = [x.name for x in _read_items(etree.tostring(tree).decode())]
    assert back == [None, "ZeRO, stage 1"]


def test_the_credits_package_is_golden(golden) -> None:  # type: ignore[no-untyped-def]
    """tests/cases/credits/expected/qti12/: the package's files, as the other cases' goldens."""
    out = build_qti12(Bank((_credits_quiz(),)), CTX)
    expected = CREDITS.parent / "expected"
    with zipfile.ZipFile(io.BytesIO(out.files["qti12/credits.zip"])) as zf:
        for name in zf.namelist():
            golden(expected / "qti12" / "credits" / name, zf.read(name))


# --------------------------------------------------------------------------- cloze, ordering, description
#
# Issue 23's kinds in Canvas's flavour: tests/cases/structured (the SRC helper's bank), the
# hand-made Canvas export below (the shape of canvas-lms lib/cc/qti/qti_items.rb), and any
# structured quiz (strategies.structured_questions).

STRUCTURED = Path(__file__).parent / "cases" / "structured"


def _structured_bank() -> Bank:
    from lmsexport.source import load_paths

    return load_paths([STRUCTURED])


def _structured_quiz() -> Quiz:
    return next(q for q in _structured_bank().quizzes if q.id == "structured")


def _mattext_html(mattext: etree._Element) -> str:
    return "".join(lxml.html.fragment_fromstring(mattext.text or "<div></div>").itertext())


def test_each_new_kind_has_its_canvas_type_points_and_shape() -> None:
    from lmsexport.model import ChoiceBlank, Cloze, Description, Ordering

    quiz = _structured_quiz()
    got = items(quiz)
    for q in quiz.questions:
        item = got[q.id]
        kind = meta(item)["question_type"]
        match q.body:
            case Description():
                # Canvas's text_only_question: text, points 0, no response processing or feedback
                assert (kind, meta(item)["points_possible"]) == ("text_only_question", "0")
                assert item.find("resprocessing") is None and item.find("itemfeedback") is None
                assert item.find("presentation/response_lid") is None
            case Cloze(blanks=blanks):
                dropdowns = all(isinstance(b, ChoiceBlank) for b in blanks)
                assert kind == (
                    "multiple_dropdowns_question" if dropdowns else "fill_in_multiple_blanks_question"
                )
                lids = item.findall("presentation/response_lid")
                assert [lid.get("ident") for lid in lids] == [
                    f"response_blank{n}" for n in range(1, len(blanks) + 1)
                ]
                stem = _mattext_html(item.find("presentation/material/mattext"))
                # each gap is its [blank_id] placeholder, once, in order (Canvas finds them by text)
                assert re.findall(r"\[(blank\d+)\]", stem) == [f"blank{n}" for n in range(1, len(blanks) + 1)]
                for lid in lids:  # every answer is plain text (process_canvas takes choice.text)
                    assert {m.get("texttype") for m in lid.iter("mattext")} == {"text/plain"}
                    assert all(label.get("ident").isdigit() for label in lid.iter("response_label"))
            case Ordering(items=its):
                # a matching question: each item (in a fixed shuffle, never the right order) -> its position
                assert kind == "matching_question"
                lids = item.findall("presentation/response_lid")
                assert len(lids) == len(its)
                rights = {
                    lab.get("ident"): lab.findtext("material/mattext")
                    for lab in lids[0].iter("response_label")
                }
                assert sorted(rights.values(), key=int) == [str(i) for i in range(1, len(its) + 1)]
                order = qti12.ordering_positions(q)
                assert order != sorted(order)
                lefts = [lid.findtext("material/mattext") for lid in lids]
                assert lefts == [qti12.html_text(its[i], quiz.lang_of(q), inline=True) for i in order]
                scored = {}
                for cond in item.iter("respcondition"):
                    var = cond.find("conditionvar/varequal")
                    if cond.find("setvar") is not None and var is not None:
                        scored[int(var.get("respident").removeprefix("response_L"))] = int(rights[var.text])
                # the k-th item listed scores when matched with its position in the right order
                assert scored == {k: i + 1 for k, i in enumerate(order, 1)}
            case _:
                raise AssertionError(q.type)


def plain_words(text: object) -> str:
    from lmsexport.model import plain_text

    return plain_text(text)  # type: ignore[arg-type]


def test_a_number_blank_is_its_value_as_text_and_only_full_credit_answers_are_right() -> None:
    from lmsexport.model import Cloze, NumberBlank, TextBlank

    quiz = _structured_quiz()
    q = next(q for q in quiz.questions if q.id == "st-bubble")
    assert isinstance(q.body, Cloze)
    item = items(quiz)[q.id]
    for n, blank in enumerate(q.body.blanks, 1):
        lid = item.find(f"presentation/response_lid[@ident='response_blank{n}']")
        written = [lab.findtext("material/mattext") for lab in lid.iter("response_label")]
        if isinstance(blank, NumberBlank):
            assert written == [qti12.number(qti12.decimal(k.value)) for k in blank.keys if k.credit == 1]
        elif isinstance(blank, TextBlank):
            assert written == [a.text for _, a in qti12.accepted_answers(ShortAnswer(blank.answers))]
        else:  # a choice blank of a fill-in question: its right choice's text, typed
            assert written == [plain_words(c.text) for c in blank.choices if c.full]


def test_every_canvas_loss_of_the_new_kinds_is_named_per_question() -> None:
    quiz = _structured_quiz()
    got: dict[str, set[str]] = {}
    for w in qti12.lossy_warnings(quiz):
        got.setdefault(w.message.split("'")[1], set()).add(w.rule)
    assert {
        "qti12.number-blank-not-carried",
        "qti12.blank-choices-not-carried",
        "qti12.credit-not-carried",
    } <= got["st-bubble"]
    assert {
        "qti12.blank-weights-not-carried",
        "qti12.case-sensitive-not-carried",
        "qti12.blank-multiple-not-carried",
    } <= got["st-zero-blanks"]
    assert "qti12.explanation-not-carried" in got["st-pipeline-note"]
    assert "st-intro" not in got  # a description without explanation loses nothing
    orderings = [q.id for q in quiz.questions if q.type.value == "ordering"]
    assert orderings and all("qti12.ordering-as-matching" in got[i] for i in orderings)
    # one warning per question and element
    rules = [(w.message.split("'")[1], w.rule) for w in qti12.lossy_warnings(quiz)]
    assert len(rules) == len(set(rules))


def test_the_structured_packages_are_valid_and_golden(golden) -> None:  # type: ignore[no-untyped-def]
    """tests/cases/structured/expected/qti12/: every package of the case, as the other cases' goldens."""
    out = build_qti12(_structured_bank(), CTX)
    assert sorted(out.files) == [
        "qti12/structured-exam.zip",
        "qti12/structured-plain.zip",
        "qti12/structured.zip",
    ]
    for path, data in out.files.items():
        assert validate_qti12_package(data, path) == []
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for name in zf.namelist():
                golden(STRUCTURED / "expected" / Path(path).with_suffix("").as_posix() / name, zf.read(name))


def test_a_description_keeps_its_place_in_an_assessment_worth_nothing() -> None:
    bank = _structured_bank()
    (exam,) = bank.assessments
    tree = qti12.exam_tree(exam)
    first = tree.find("assessment/section/section")
    idents = [i.get("ident") for i in first.iter("item")]
    assert idents == ["st-intro", "st-bubble", "st-pipeline-note", "st-zero-blanks"]
    for item in first.iter("item"):
        if meta(item)["question_type"] == "text_only_question":
            assert meta(item)["points_possible"] == "0"


# -- reading Canvas's blanks back


def _read_quiz(data: bytes) -> list[Question]:
    from lmsexport.readers.packagefiles import ZipFiles
    from lmsexport.readers.qti12 import read_package

    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        found = read_package(ZipFiles(zf, "x.zip"), "x.zip")
    assert not [d for d in found.diags if d.severity.value == "error"], [d.format() for d in found.diags]
    return [replace(dq.question, id=dq.raw_id or "") for quiz in found.quizzes for dq in quiz.questions]


def _rebuild(quiz: Quiz, questions: list[Question]) -> bytes:
    bank = Bank((replace(quiz, questions=tuple(questions)),))
    return build_qti12(bank, CTX).files[f"qti12/{quiz.id}.zip"]


def test_the_new_kinds_come_back_as_the_format_carries_them() -> None:
    from lmsexport.model import ChoiceBlank, Cloze, Description, Matching, Ordering, TextBlank, gaps_of

    for quiz in _structured_bank().quizzes:
        data = build_qti12(Bank((quiz,)), CTX).files[f"qti12/{quiz.id}.zip"]
        back = {q.id: q for q in _read_quiz(data)}
        for q in quiz.questions:
            got = back[q.id]
            match q.body:
                case Description():
                    assert got.body == Description() and got.points == 0 and got.stem == q.stem
                    assert got.explanation is None  # Canvas keeps none: not written
                case Cloze(blanks=blanks):
                    assert isinstance(got.body, Cloze)
                    assert gaps_of(got.stem) == tuple(range(1, len(blanks) + 1))
                    entries = qti12.blank_entries(q.body)
                    dropdowns = qti12.all_choices(q.body)
                    for b, answers in zip(got.body.blanks, entries, strict=True):
                        if dropdowns:
                            assert isinstance(b, ChoiceBlank)
                            assert [(c.text, c.full) for c in b.choices] == [
                                (e.text, e.right) for e in answers
                            ]
                        else:
                            assert isinstance(b, TextBlank)
                            assert [(a.text, plain_words(a.feedback)) for a in b.answers] == [
                                (e.text, plain_words(e.feedback)) for e in answers
                            ]
                    # the weights' ratio, from the shares the blanks add
                    total = q.body.total_weight
                    assert [b.weight / got.body.total_weight for b in got.body.blanks] == pytest.approx(
                        [b.weight / total for b in blanks]
                    )
                    assert plain_words(got.feedback.correct) == plain_words(q.feedback.correct)
                    assert plain_words(got.feedback.incorrect) == plain_words(q.feedback.incorrect)
                case Ordering(items=its):
                    assert isinstance(got.body, Matching)
                    assert sorted((p.right, plain_words(p.left)) for p in got.body.pairs) == sorted(
                        (str(i), plain_words(t)) for i, t in enumerate(its, 1)
                    )
        # import -> build -> import changes nothing
        first = _read_quiz(data)
        assert _read_quiz(_rebuild(quiz, first)) == first


CANVAS_FIMB = """<?xml version="1.0" encoding="UTF-8"?>
<questestinterop xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2">
  <assessment ident="g5a1" title="Blanks">
    <section ident="root_section">
      <item ident="g7c2" title="ZeRO blanks">
        <itemmetadata><qtimetadata>
          <qtimetadatafield><fieldlabel>question_type</fieldlabel><fieldentry>fill_in_multiple_blanks_question</fieldentry></qtimetadatafield>
          <qtimetadatafield><fieldlabel>points_possible</fieldlabel><fieldentry>2.0</fieldentry></qtimetadatafield>
          <qtimetadatafield><fieldlabel>original_answer_ids</fieldlabel><fieldentry>5501,5502,5503</fieldentry></qtimetadatafield>
        </qtimetadata></itemmetadata>
        <presentation>
          <material><mattext texttype="text/html">&lt;div&gt;&lt;p&gt;ZeRO stage [stage] partitions the [what].&lt;/p&gt;&lt;/div&gt;</mattext></material>
          <response_lid ident="response_stage">
            <material><mattext>stage</mattext></material>
            <render_choice>
              <response_label ident="5501"><material><mattext texttype="text/plain">3</mattext></material></response_label>
              <response_label ident="5502"><material><mattext texttype="text/plain">three</mattext></material></response_label>
            </render_choice>
          </response_lid>
          <response_lid ident="response_what">
            <material><mattext>what</mattext></material>
            <render_choice>
              <response_label ident="5503"><material><mattext texttype="text/plain">parameters</mattext></material></response_label>
            </render_choice>
          </response_lid>
        </presentation>
        <resprocessing>
          <outcomes><decvar maxvalue="100" minvalue="0" varname="SCORE" vartype="Decimal"/></outcomes>
          <respcondition continue="Yes">
            <conditionvar><varequal respident="response_stage">5501</varequal></conditionvar>
            <displayfeedback feedbacktype="Response" linkrefid="5501_fb"/>
          </respcondition>
          <respcondition>
            <conditionvar><varequal respident="response_stage">5501</varequal></conditionvar>
            <setvar varname="SCORE" action="Add">50.00</setvar>
          </respcondition>
          <respcondition>
            <conditionvar><varequal respident="response_what">5503</varequal></conditionvar>
            <setvar varname="SCORE" action="Add">50.00</setvar>
          </respcondition>
        </resprocessing>
        <itemfeedback ident="correct_fb"><flow_mat><material><mattext texttype="text/plain">Right.</mattext></material></flow_mat></itemfeedback>
        <itemfeedback ident="5501_fb"><flow_mat><material><mattext texttype="text/plain">Stage 3 it is.</mattext></material></flow_mat></itemfeedback>
      </item>
      <item ident="g7c3" title="Dropdowns">
        <itemmetadata><qtimetadata>
          <qtimetadatafield><fieldlabel>question_type</fieldlabel><fieldentry>multiple_dropdowns_question</fieldentry></qtimetadatafield>
          <qtimetadatafield><fieldlabel>points_possible</fieldlabel><fieldentry>1.0</fieldentry></qtimetadatafield>
        </qtimetadata></itemmetadata>
        <presentation>
          <material><mattext texttype="text/html">&lt;div&gt;&lt;p&gt;1F1B bounds [mem].&lt;/p&gt;&lt;/div&gt;</mattext></material>
          <response_lid ident="response_mem">
            <material><mattext>mem</mattext></material>
            <render_choice>
              <response_label ident="7001"><material><mattext texttype="text/plain">activation memory</mattext></material></response_label>
              <response_label ident="7002"><material><mattext texttype="text/plain">the bubble</mattext></material></response_label>
            </render_choice>
          </response_lid>
        </presentation>
        <resprocessing>
          <outcomes><decvar maxvalue="100" minvalue="0" varname="SCORE" vartype="Decimal"/></outcomes>
          <respcondition>
            <conditionvar><varequal respident="response_mem">7001</varequal></conditionvar>
            <setvar varname="SCORE" action="Add">100.00</setvar>
          </respcondition>
        </resprocessing>
      </item>
      <item ident="g7c4" title="Read first">
        <itemmetadata><qtimetadata>
          <qtimetadatafield><fieldlabel>question_type</fieldlabel><fieldentry>text_only_question</fieldentry></qtimetadatafield>
          <qtimetadatafield><fieldlabel>points_possible</fieldlabel><fieldentry>0.0</fieldentry></qtimetadatafield>
        </qtimetadata></itemmetadata>
        <presentation>
          <material><mattext texttype="text/html">&lt;div&gt;&lt;p&gt;The next questions are on ZeRO.&lt;/p&gt;&lt;/div&gt;</mattext></material>
        </presentation>
      </item>
    </section>
  </assessment>
</questestinterop>
"""  # noqa: E501


def test_canvas_exports_of_blanks_dropdowns_and_text_only_are_read() -> None:
    """As Canvas's exporter writes them (qti_items.rb multiple_dropdowns_response_lid and
    multiple_dropdowns_resprocessing: blank ids of the author's words, numeric answer ids, the
    first right answer's condition only, a text_only_question without response processing)."""
    from lmsexport.model import ChoiceBlank, Cloze, Description, Gap, Para, Rich, Str, TextBlank
    from lmsexport.readers.qti12 import read_document

    found = read_document(CANVAS_FIMB.encode(), "canvas.xml")
    (quiz,) = found.quizzes
    fimb, drops, text = (dq.question for dq in quiz.questions)
    assert fimb.stem == Rich((Para((Str("ZeRO stage "), Gap(1), Str(" partitions the "), Gap(2), Str("."))),))
    assert isinstance(fimb.body, Cloze)
    stage, what = fimb.body.blanks
    assert isinstance(stage, TextBlank) and isinstance(what, TextBlank)
    assert [(a.text, a.credit, a.feedback) for a in stage.answers] == [
        ("3", 1.0, "Stage 3 it is."),
        ("three", 1.0, None),  # every label of a fill-in blank is right (process_canvas)
    ]
    assert [a.text for a in what.answers] == ["parameters"]
    assert (stage.weight, what.weight, fimb.points, fimb.feedback.correct) == (1, 1, 2.0, "Right.")
    assert isinstance(drops.body, Cloze)
    (mem,) = drops.body.blanks
    assert isinstance(mem, ChoiceBlank)
    assert [(c.text, c.credit) for c in mem.choices] == [("activation memory", 1.0), ("the bubble", 0.0)]
    assert (text.body, text.points) == (Description(), 0.0)
    assert not found.skipped


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_structured_quiz_is_valid_and_comes_back_the_same(data: st.DataObject) -> None:
    """Any quiz of issue 23's kinds: the package is valid (build validates it), and import ->
    build -> import changes nothing."""
    from strategies import canonical_langs, structured_questions

    qs = tuple(data.draw(structured_questions(f"q{i}", everything=True)) for i in range(3))
    quiz = canonical_langs(Quiz("sq", "T", data.draw(st.sampled_from(["ur", "en"])), qs))
    out = build_qti12(Bank((quiz,)), CTX)
    first = _read_quiz(out.files["qti12/sq.zip"])
    assert [q.id for q in first] == [q.id for q in qs]
    assert [q.type for q in first] == [
        QuestionType.MATCHING if q.type is QuestionType.ORDERING else q.type for q in qs
    ]
    assert _read_quiz(_rebuild(quiz, first)) == first


def test_import_build_import_of_the_structured_package_changes_nothing(tmp_path: Path) -> None:
    """The whole `lmsexport import` path (sources, YAML written, loaded again) on the structured
    package, twice: the second import gives back the first."""
    from lmsexport.importer import find_sources, output_files, read_sources, verify
    from lmsexport.source import load_paths

    def imported(data: bytes, where: Path) -> Bank:
        (where / "src").mkdir(parents=True)
        (where / "src" / "s.zip").write_bytes(data)
        result = read_sources(find_sources([where / "src"]), None)
        assert not result.failed, [x.format() for x in result.diags]
        written, lost = output_files(result)
        for rel, content in written.items():
            (where / "out" / rel).parent.mkdir(parents=True, exist_ok=True)
            (where / "out" / rel).write_bytes(content)
        assert verify(where / "out", result, lost, where / "out") == []
        return load_paths([where / "out"])

    quiz = _structured_quiz()
    first = imported(build_qti12(Bank((quiz,)), CTX).files[f"qti12/{quiz.id}.zip"], tmp_path / "1")
    (back,) = first.quizzes
    assert [q.type.value for q in back.questions] == [
        "matching" if q.type.value == "ordering" else q.type.value for q in quiz.questions
    ]
    second = imported(build_qti12(first, CTX).files[f"qti12/{back.id}.zip"], tmp_path / "2")
    assert second.quizzes[0].questions == back.questions
