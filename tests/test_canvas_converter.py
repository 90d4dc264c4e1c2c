"""Canvas's own QTI 1.2 converter on our packages: instructure/QTIMigrationTool, the Python
step Canvas runs on every QTI 1.2 zip before its Ruby converters (gems/plugins/qti_exporter
lib/qti/converter.rb ``run_qti_converter``).

Needs a checkout of the tool (it is not on PyPI): point LMSEXPORT_QTI_MIGRATION_TOOL at it,
e.g. after ``git clone https://github.com/instructure/QTIMigrationTool`` (checked at 7847455);
the tests are skipped without it. The tool's QTI 2.1 output is then read as Canvas's Ruby code
reads it, by small Python copies of the parts that matter here (cited at each): how
assessment_test_converter.rb ``process_section`` makes question groups, and how converter.rb
``convert_files`` and html_helper.rb ``find_best_path_match`` find an image's file.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import lxml.html
import pytest
from lxml import etree

from lmsexport.build import build
from lmsexport.model import Assessment, Bank
from lmsexport.source import load_paths

TOOL = Path(os.environ.get("LMSEXPORT_QTI_MIGRATION_TOOL", "/nonexistent"))
pytestmark = pytest.mark.skipif(
    not (TOOL / "migrate.py").is_file(),
    reason="set LMSEXPORT_QTI_MIGRATION_TOOL to a checkout of instructure/QTIMigrationTool",
)
CASES = Path(__file__).resolve().parent / "cases"
QTI2 = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"


def convert(package: bytes, tmp: Path) -> Path:
    """The package unzipped and run through the converter as Canvas runs it (qti.rb
    get_conversion_command: --ucvars --nogui --overwrite --cpout=OUT IN)."""
    src, out = tmp / "in", tmp / "out"
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        zf.extractall(src)
    run = subprocess.run(
        [
            sys.executable,
            str(TOOL / "migrate.py"),
            "--ucvars",
            "--nogui",
            "--overwrite",
            f"--cpout={out}",
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=TOOL,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def canvas_entries(section: etree._Element) -> list[object]:
    """What Canvas's assessment_test_converter.rb ``process_section`` makes of a converted test:
    question references and question groups, in order (a section with ``selection`` select > 0
    is a group with that pick_count, its points_per_item as question_points, its item refs as
    its questions; other sections are walked through)."""
    out: list[object] = []
    group = None
    selection = section.find(f"{QTI2}selection")
    if selection is not None and int(selection.get("select", "0")) > 0:
        points = selection.findtext(f".//{QTI2}points_per_item")  # get_float_val(section, ...)
        group = {
            "title": section.get("title"),
            "pick_count": int(selection.get("select", "0")),
            "question_points": float(points) if points is not None else None,
            "questions": [],
        }
    for child in section:
        if child.tag == f"{QTI2}assessmentSection":
            out += canvas_entries(child)
        elif child.tag == f"{QTI2}assessmentItemRef":
            target = group["questions"] if group is not None else out
            target.append(child.get("identifier"))
    if group is not None:
        out.append(group)
    return out


def expected_entries(assessment: Assessment) -> list[object]:
    """The assessment as Canvas's question groups should give it back: explicit questions as
    questions, each random draw a group with its pick and points, in the assessment's order."""
    out: list[object] = []
    for draw in assessment.draws:
        ids = [c.question.id for c in draw.candidates]
        if not draw.is_random:
            out += ids
            continue
        points = {draw.points_of(c.question) for c in draw.candidates}
        out.append(
            {
                "title": draw.name,
                "pick_count": draw.pick,
                "question_points": points.pop() if len(points) == 1 else None,
                "questions": ids,
            }
        )
    return out


@pytest.fixture(scope="module")
def exam_bank() -> Bank:
    return load_paths([CASES / "types" / "bank.yaml", CASES / "types" / "exam.yaml"])


def test_random_draws_come_back_as_question_groups(exam_bank: Bank, tmp_path: Path) -> None:
    (exam,) = exam_bank.assessments
    out = convert(build(exam_bank, ["qti12"]).files[f"qti12/{exam.id}.zip"], tmp_path)
    test = etree.parse(str(out / "assessmentTests" / f"{exam.id}.xml")).getroot()
    part = test.find(f"{QTI2}testPart")
    entries = canvas_entries(part)
    assert entries == expected_entries(exam)
    groups = [e for e in entries if isinstance(e, dict)]
    assert [(g["title"], g["pick_count"], g["question_points"]) for g in groups] == [
        ("choices", 2, 2.0),
        ("typed", 3, 1.0),
    ]
    # Every item the groups and sections name was converted, with Canvas's question type.
    manifest = etree.parse(str(out / "imsmanifest.xml")).getroot()
    converted = {
        r.get("identifier")
        for r in manifest.iter(f"{CP}resource")
        if r.get("type", "").startswith("imsqti_item")
    }
    named = {q for e in entries for q in (e["questions"] if isinstance(e, dict) else [e])}  # type: ignore[index]
    assert named == converted


def test_every_item_of_a_quiz_is_converted_with_its_canvas_type(exam_bank: Bank, tmp_path: Path) -> None:
    quiz = exam_bank.quizzes[0]
    out = convert(build(Bank((quiz,)), ["qti12"]).files[f"qti12/{quiz.id}.zip"], tmp_path)
    manifest = etree.parse(str(out / "imsmanifest.xml")).getroot()
    types = {
        r.get("identifier"): r.find(".//{*}instructureField[@name='question_type']").get("value")
        for r in manifest.iter(f"{CP}resource")
        if r.get("type", "").startswith("imsqti_item")
    }
    assert set(types) == {q.id for q in quiz.questions}
    assert set(types.values()) == {
        "multiple_choice_question",
        "multiple_answers_question",
        "true_false_question",
        "short_answer_question",
        "numerical_question",
        "matching_question",
        "essay_question",
    }


def test_rich_texts_and_their_images_reach_canvas(tmp_path: Path) -> None:
    """The converter keeps each text's HTML as written (an escaped ``div.html``, which Canvas
    parses and sanitises) and copies the images the manifest lists into its package, where
    Canvas finds each ``src`` by path suffix (converter.rb convert_files, html_helper.rb
    find_best_path_match)."""
    bank = load_paths([CASES / "rich" / "bank.yaml"])
    (quiz,) = bank.quizzes
    package = build(bank, ["qti12"]).files[f"qti12/{quiz.id}.zip"]
    with zipfile.ZipFile(io.BytesIO(package)) as zf:
        ours = etree.fromstring(zf.read(f"{quiz.id}/{quiz.id}.xml"))
        images = {n: zf.read(n) for n in zf.namelist() if "/media/" in n}
    out = convert(package, tmp_path)
    manifest = etree.parse(str(out / "imsmanifest.xml")).getroot()
    resource_hrefs = {r.get("href") for r in manifest.iter(f"{CP}resource")}
    attachments = [f.get("href") for f in manifest.iter(f"{CP}file") if f.get("href") not in resource_hrefs]
    assert sorted(attachments) == sorted(images)
    for path in attachments:
        assert (out / path).read_bytes() == images[path]
    sorted_paths = sorted(attachments, key=len)
    for item in ours.iter("item"):
        converted = etree.parse(str(out / "assessmentItems" / f"{item.get('ident')}.xml")).getroot()
        html = [div.text for div in converted.iter(f"{QTI2}div") if div.get("class") == "html"]
        assert html == [m.text for m in item.iter("mattext") if m.get("texttype") == "text/html"]
        for text in html:
            for src in lxml.html.fragment_fromstring(text).xpath("//img/@src"):
                assert [p for p in sorted_paths if p.endswith(src)][:1] == [f"{quiz.id}/{src}"]


# --------------------------------------------------------------------------- credits and feedback
#
# What Canvas's Ruby converters make of a converted item, by small Python copies of the reads
# that matter for scores and feedback (gems/plugins/qti_exporter/lib/qti/):
# assessment_item_converter.rb (question_name from the item's title, get_feedback,
# get_feedback_id, attach_feedback_values), choice_interaction.rb (process_response_conditions'
# last branch, get_response_weight / get_base_value), extended_text_interaction.rb
# (process_response_conditions) and numeric_interaction.rb (get_canvas_answers).

_FEEDBACK_ID_SKIP = re.compile(r"general_|_all|wrong|incorrect|correct|(_IC$)|(_C$)", re.I)


def _feedback_id(node: etree._Element) -> str | None:
    """get_feedback_id: the first FEEDBACK set in the node, unless it reads as a general one."""
    for sov in node.iter(f"{QTI2}setOutcomeValue"):
        if sov.get("identifier") == "FEEDBACK":
            base = next((b for b in sov.iter(f"{QTI2}baseValue") if b.get("baseType") == "identifier"), None)
            if base is not None and sov.find(f".//{QTI2}variable[@identifier='FEEDBACK']") is not None:
                ident = (base.text or "").strip()
                return None if _FEEDBACK_ID_SKIP.search(ident) else ident
            return None
    return None


def _weight(r_if: etree._Element) -> int:
    """get_response_weight: 100 when the SCORE it sets is a float above 0, else 0."""
    for sov in r_if.iter(f"{QTI2}setOutcomeValue"):
        if sov.get("identifier") == "SCORE":
            base = sov.find(f".//{QTI2}baseValue")
            if base is not None and base.get("baseType") == "float":
                return 100 if float(base.text or 0) > 0 else 0
    return 0


def _text(node: etree._Element) -> str:
    return "".join(lxml.html.fragment_fromstring(node.text or "<div></div>").itertext()).strip()


def canvas_question(path: Path) -> dict[str, object]:
    """A converted item as Canvas's converters store the question (the fields compared here)."""
    doc = etree.parse(str(path)).getroot()
    kind = doc.find(f".//{QTI2}instructureField[@name='question_type']").get("value")
    modal = {f.get("identifier"): f for f in doc.iter(f"{QTI2}modalFeedback")}
    question: dict[str, object] = {"question_name": doc.get("title"), "question_type": kind}
    for ident, f in modal.items():  # get_feedback: by identifier only
        div = f.find(f".//{QTI2}div")
        text = _text(div) if div is not None else ""
        if re.search(r"wrong|incorrect|(_IC$)", ident, re.I):
            question["incorrect_comments"] = text
        elif re.search(r"correct|(_C$)", ident, re.I):
            question["correct_comments"] = text
        elif re.search(r"general_|_all", ident, re.I):
            question["neutral_comments"] = text
    conditions = doc.findall(f"{QTI2}responseProcessing/{QTI2}responseCondition")
    answers: list[dict[str, object]] = []
    if kind in ("multiple_choice_question", "true_false_question"):
        by_id = {}
        for choice in doc.iter(f"{QTI2}simpleChoice"):
            by_id[choice.get("identifier")] = {"id": choice.get("identifier"), "weight": 0, "fb": None}
        for cond in conditions:
            for r_if in cond.iter(f"{QTI2}responseIf", f"{QTI2}responseElseIf"):
                match = r_if.find(f"{QTI2}match/{QTI2}baseValue[@baseType='identifier']")
                if match is not None and (answer := by_id.get((match.text or "").strip())):
                    answer["weight"] = _weight(r_if)
                    answer["fb"] = answer["fb"] or _feedback_id(r_if)
        answers = list(by_id.values())
    elif kind == "short_answer_question":
        for cond in conditions:
            for m in cond.iter(f"{QTI2}stringMatch", f"{QTI2}match"):
                base = m.find(f"{QTI2}baseValue")
                text = base.text if base is not None else None
                existing = next((a for a in answers if a["text"] == text), None)
                if existing is None and text:
                    answers.append({"text": text, "weight": 100, "fb": _feedback_id(cond)})
                elif existing is not None and existing["fb"] is None:
                    existing["fb"] = _feedback_id(cond)
    elif kind == "numerical_question":
        for r_if in doc.iter(f"{QTI2}responseIf", f"{QTI2}responseElseIf"):
            or_ = r_if.find(f".//{QTI2}or")
            and_ = r_if.find(f".//{QTI2}and")
            if or_ is not None:
                exact = or_.find(f".//{QTI2}stringMatch/{QTI2}baseValue")
                upper = or_.find(f".//{QTI2}customOperator[@class='varlte']/{QTI2}baseValue")
                if exact is None:
                    continue
                margin = float(upper.text) - float(exact.text) if upper is not None else None
                answers.append(
                    {"exact": float(exact.text), "margin": margin, "weight": 100, "fb": _feedback_id(r_if)}
                )
            elif and_ is not None:
                low = and_.find(f".//{QTI2}customOperator[@class='vargte']/{QTI2}baseValue")
                high = and_.find(f".//{QTI2}customOperator[@class='varlte']/{QTI2}baseValue")
                answers.append(
                    {
                        "start": float(low.text),
                        "end": float(high.text),
                        "weight": 100,
                        "fb": _feedback_id(r_if),
                    }
                )
    for answer in answers:  # attach_feedback_values
        fb = modal.get(answer.pop("fb"))  # type: ignore[arg-type]
        if fb is not None:
            answer["comments"] = _text(fb.find(f".//{QTI2}div"))
    question["answers"] = answers
    return question


def test_canvas_keeps_names_right_answers_and_feedback_never_a_partial_credit(tmp_path: Path) -> None:
    """The credits bank through the converter and Canvas's reads: every name, the full-credit
    choices and answers at weight 100 and nothing else above 0 (a partly right answer never
    becomes a second right one), the feedback on a right and a wrong response, true/false,
    choice, short answer and numerical feedback as the answers' comments."""
    bank = load_paths([CASES / "credits" / "credits.yaml"])
    (quiz,) = bank.quizzes
    out = convert(build(bank, ["qti12"]).files[f"qti12/{quiz.id}.zip"], tmp_path)
    got = {q.id: canvas_question(out / "assessmentItems" / f"{q.id}.xml") for q in quiz.questions}
    for q in quiz.questions:
        assert got[q.id]["question_name"] == q.name
    single = got["cr-zero3-memory"]
    assert [a["weight"] for a in single["answers"]] == [100, 100, 0, 0, 0]  # type: ignore[index]
    assert single["correct_comments"] and single["incorrect_comments"]
    assert all(a.get("comments") for a in single["answers"])  # type: ignore[union-attr]
    tf = got["cr-offload-cpu-adam"]
    assert [(a["id"], a["weight"], bool(a.get("comments"))) for a in tf["answers"]] == [  # type: ignore[index]
        ("true", 100, True),
        ("false", 0, True),
    ]
    short = got["cr-offload-config-key"]
    assert [(a["text"], a["weight"], "comments" in a) for a in short["answers"]] == [  # type: ignore[index]
        ("zero_optimization.offload_optimizer", 100, True),
        ("offload_optimizer", 100, False),
    ]
    numerical = got["cr-zero3-7b-memory"]
    assert [(a["exact"], round(a["margin"], 9), "comments" in a) for a in numerical["answers"]] == [  # type: ignore[index]
        (1.875, 0.03, True)
    ]


# --------------------------------------------------------------------------- blanks and text only
#
# What Canvas's fill_in_the_blank.rb makes of a converted fill-in-multiple-blanks or
# multiple-dropdowns item (``process_canvas``, then ``get_feedback``'s ``feedback_N_fb`` rule,
# assessment_item_converter.rb), and what create_instructure_question does with a text_only_question
# (no parsing: its text and points only), by small Python copies of those reads.


def canvas_blanks(path: Path) -> dict[str, object]:
    doc = etree.parse(str(path)).getroot()
    kind = doc.find(f".//{QTI2}instructureField[@name='question_type']").get("value")
    points = doc.find(f".//{QTI2}instructureField[@name='points_possible']").get("value")
    body = doc.find(f"{QTI2}itemBody")
    # question_text: the itemBody > div texts (no prompts for these two types)
    texts = [_text(div) for div in body.findall(f"{QTI2}div")]
    question: dict[str, object] = {"question_type": kind, "points": float(points), "question_text": texts}
    if kind == "text_only_question":
        return question  # create_instructure_question skips parse_question_data and get_feedback
    answers: dict[str, dict[str, object]] = {}
    for ci in doc.iter(f"{QTI2}choiceInteraction"):
        blank_id = re.sub(r"^response_", "", ci.get("responseIdentifier") or "")
        for choice in ci.iter(f"{QTI2}simpleChoice"):
            answers[choice.get("identifier")] = {
                "blank_id": blank_id,
                "text": "".join(choice.itertext()).strip(),
                "weight": 0 if kind == "multiple_dropdowns_question" else 100,
            }
    if kind == "multiple_dropdowns_question":
        for r_if in doc.iter(f"{QTI2}responseIf", f"{QTI2}responseElseIf"):
            if r_if.find(f"{QTI2}setOutcomeValue[@identifier='SCORE']/{QTI2}sum") is None:
                continue
            base = r_if.find(f".//{QTI2}match/{QTI2}baseValue[@baseType='identifier']")
            if base is not None and (base.text or "").strip() in answers:
                answers[(base.text or "").strip()]["weight"] = 100
    for f in doc.iter(f"{QTI2}modalFeedback"):
        ident = f.get("identifier") or ""
        if re.search(r"wrong|incorrect|(_IC$)", ident, re.I):
            question["incorrect_comments"] = _text(f.find(f".//{QTI2}div"))
        elif re.search(r"correct|(_C$)", ident, re.I):
            question["correct_comments"] = _text(f.find(f".//{QTI2}div"))
        elif (m := re.search(r"feedback_(\d*)_fb", ident, re.I)) and (
            answer := answers.get(f"RESPONSE_{m.group(1)}")
        ) is not None:
            answer["comments"] = _text(f.find(f".//{QTI2}div"))
    question["answers"] = list(answers.values())
    return question


def test_canvas_reads_blanks_dropdowns_and_text_only_as_written(tmp_path: Path) -> None:
    """The structured case through the converter and Canvas's reads: a description is a
    text_only_question worth 0; each cloze's text keeps a ``[blank_id]`` per blank; a fill-in
    blank's answers are the accepted ones (a number blank's value as text, a mixed cloze's choice
    blank its right choice's text), every one right; a drop-down's right choices are those its
    conditions score; each answer's feedback reaches it; an ordering is a matching question."""
    from lmsexport.model import Cloze, Description, Ordering
    from lmsexport.writers import qti12

    bank = load_paths([CASES / "structured"])
    for quiz in bank.quizzes:
        out = convert(build(Bank((quiz,)), ["qti12"]).files[f"qti12/{quiz.id}.zip"], tmp_path / quiz.id)
        for q in quiz.questions:
            path = out / "assessmentItems" / f"{q.id}.xml"
            match q.body:
                case Description():
                    got = canvas_blanks(path)
                    assert (got["question_type"], got["points"]) == ("text_only_question", 0.0)
                    assert got["question_text"]
                case Cloze():
                    got = canvas_blanks(path)
                    assert got["question_type"] == qti12.canvas_type(q)
                    (text,) = got["question_text"]  # type: ignore[misc]
                    n = len(q.body.blanks)
                    assert re.findall(r"\[(blank\d+)\]", text) == [f"blank{i}" for i in range(1, n + 1)]
                    expected = [
                        {
                            "blank_id": qti12.blank_ident(i),
                            "text": e.text,
                            "weight": 100 if e.right else 0,
                            "comments": e.feedback is not None,
                        }
                        for i, entries in enumerate(qti12.blank_entries(q.body), 1)
                        for e in entries
                    ]
                    for answer in got["answers"]:  # type: ignore[attr-defined]
                        answer["comments"] = bool(answer.get("comments"))
                    assert got["answers"] == expected
                case Ordering():
                    kind = etree.parse(str(path)).find(f".//{QTI2}instructureField[@name='question_type']")
                    assert kind.get("value") == "matching_question"


# --------------------------------------------------------------------------- calculated questions
#
# A calculated question through the converter: it keeps Canvas's own ``itemproc_extension``
# (imsqtiv1.py CalculatedNode ... imsqti.py Calculated.WriteXML) and marks the item Calculated,
# which Canvas's question_type_educated_guesser.rb routes to calculated_interaction.rb. Read here
# as that converter reads it (parse_question_data: ``calculated formula``, answer_tolerance kept
# as a string unless all digits and dots, ``vars var``, ``var_sets var_set`` with answer.to_f).


def _canvas_calculated(item: etree._Element) -> dict[str, object]:
    calc = item.find(".//{*}itemproc_extension/{*}calculated")
    assert calc is not None
    tolerance = calc.findtext("{*}answer_tolerance")
    return {
        "formula": calc.findtext(".//{*}formula"),
        "answer_tolerance": float(tolerance) if re.fullmatch(r"[\d.]+", tolerance or "") else tolerance,
        "formula_decimal_places": int(calc.find("{*}formulas").get("decimal_places")),
        "variables": [
            (v.get("name"), int(v.get("scale")), float(v.findtext("{*}min")), float(v.findtext("{*}max")))
            for v in calc.find("{*}vars")
        ],
        "answers": [
            (
                {v.get("name"): float(v.text) for v in vs.iter("{*}var")},
                float(vs.findtext("{*}answer")),
            )
            for vs in calc.iter("{*}var_set")
        ],
    }


def test_a_calculated_question_reaches_canvas_with_its_variable_sets(tmp_path: Path) -> None:
    from test_qti12_parametric import functions, quiz, zero1_choice, zero3

    from lmsexport.formula import format_value
    from lmsexport.model import Calculated
    from lmsexport.variants import shown_values
    from lmsexport.writers import WriteContext
    from lmsexport.writers.qti12 import build_qti12

    calc, other, choice = zero3(), functions(), zero1_choice()
    qz = quiz(calc, other, choice)
    package = build_qti12(Bank((qz,)), WriteContext(formats=("qti12",))).files[f"qti12/{qz.id}.zip"]
    out = convert(package, tmp_path)
    for q in (calc, other):
        assert isinstance(q.body, Calculated)
        item = etree.parse(str(out / "assessmentItems" / f"{q.id}.xml")).getroot()
        kind = item.find(".//{*}instructureField[@name='question_type']").get("value")
        assert "calculated" in kind.lower()  # question_type_educated_guesser: custom_type =~ /calculated/
        got = _canvas_calculated(item)
        assert got["answer_tolerance"] == ("1%" if q is calc else 0.001)
        assert got["formula_decimal_places"] == q.body.decimals
        assert [v[0] for v in got["variables"]][:2] == [v.name for v in q.body.params.variables]
        answers = got["answers"]
        assert len(answers) == len(q.body.variants)
        for (values, answer), variant in zip(answers, q.body.variants, strict=True):
            shown = shown_values(q.body.params, variant)
            assert values == {n: float(shown[n]) for n in values}
            assert answer == float(format_value(variant.answer or 0.0, q.body.decimals))
        # the stem Canvas fills in: every [name] it holds is a variable of each var_set
        stem = "".join(d.text or "" for d in item.iter(f"{QTI2}div") if d.get("class") == "html")
        assert set(re.findall(r"\[([A-Za-z]\w*)\]", stem)) <= {v[0] for v in got["variables"]}
    test = etree.parse(str(out / "assessmentTests" / f"{qz.id}.xml")).getroot()
    entries = canvas_entries(test.find(f"{QTI2}testPart"))
    assert entries == [
        calc.id,
        other.id,
        {
            "title": "ZeRO-1, [N]B parameters on [G] GPUs: GB per GPU?",
            "pick_count": 1,
            "question_points": 1.0,
            "questions": [f"{choice.id}-v{n:03d}" for n in range(1, 7)],
        },
    ]
