"""Cloze, ordering and description questions (issue 23) in Moodle XML: the writer's codes read
back with Moodle's own regexes (lmsexport.moodlexml.parse_cloze, a transcription of
qtype_multianswer_extract_question()), and the structured test bank survives the round trip."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from lxml import etree
from strategies import banks, rich_banks_with_assessments

from lmsexport.build import build, moodlexml_assessment_round_trip, moodlexml_round_trip
from lmsexport.errors import Diagnostic, MoodleXmlError
from lmsexport.model import (
    Bank,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Gap,
    NumberBlank,
    Ordering,
    OrderingGrading,
    TextBlank,
    inlines_of,
    plain_text,
)
from lmsexport.moodlexml import (
    _CLOZE_CODE,
    _CLOZE_NUMERICAL,
    CLOZE_ALTERNATIVE,
    GapMarks,
    cloze_escape,
    cloze_problems,
    parse_cloze,
)
from lmsexport.readers.moodlexml import read_quiz
from lmsexport.source import load_paths
from lmsexport.writers.moodlexml import write_quiz

STRUCTURED = Path(__file__).resolve().parent / "cases" / "structured" / "structured.yaml"


@pytest.mark.parametrize(
    "text",
    [
        "a}b",
        "x#y",
        "p~q",
        "back\\slash",
        "R&",
        "&amp;",
        "<b>",
        '"q"',
        "{1:MC:x}",
        "a\\b#",
        "a\\}",
        "\\#\\\\}\\",
    ],
)
def test_every_special_character_of_an_answer_reads_back(text: str) -> None:
    code = "{1:SHORTANSWER:=" + cloze_escape(text) + "#" + cloze_escape(text) + "~%50%other}"
    marked, (sub,) = parse_cloze("before " + code + " after")
    assert marked == "before \ufdd01\ufdd1 after"
    assert [(a.text, a.fraction, a.feedback) for a in sub.alternatives] == [
        (text, 1.0, text),
        ("other", 0.5, ""),
    ]
    assert cloze_problems(sub) == []


def test_moodles_own_syntax() -> None:
    _, subs = parse_cloze(
        "{2:NM:=1.5:0.1#ok~%50%2~*#no} {:MCH:a~=b} {1:MRS:%50%a~%50%b~c} {:SAC:=Ab} {:SA:%50%x}"
    )
    num, mch, mrs, sac, sa = subs
    assert (num.weight, num.qtype, [(a.text, a.tolerance, a.fraction) for a in num.alternatives]) == (
        "2",
        "numerical",
        [("1.5", "0.1", 1.0), ("2", "0", 0.5), ("*", None, 0.0)],
    )
    assert (mch.layout, mch.multiple, mch.shuffle) == ("horizontal", False, False)
    # MULTIRESPONSE: positive fractions as given (they add up to 1), `c` at 0 kept (specific %n%).
    assert (mrs.multiple, mrs.shuffle, [a.fraction for a in mrs.alternatives]) == (
        True,
        True,
        [0.5, 0.5, 0.0],
    )
    assert sac.layout is True and sa.layout is False
    # qtype_multianswer_validate_question(): no answer at 100% refuses the question.
    assert cloze_problems(sa) == ["no answer is worth 100%"]


def test_multiresponse_without_percentages_is_normalised_as_moodle_does() -> None:
    _, (sub,) = parse_cloze("{1:MR:=a~=b~c}")
    assert [a.fraction for a in sub.alternatives] == [0.5, 0.5, -0.5]


def test_the_structured_bank_survives_moodlexml() -> None:
    bank = load_paths([STRUCTURED])
    for quiz in bank.quizzes:
        data, diags = write_quiz(quiz)
        assert not [d for d in diags if d.severity.value == "error"]
        back, warnings = read_quiz(data, f"{quiz.id}.xml", quiz_id=quiz.id, lang=quiz.lang)
        assert back is not None and warnings == []

        def strip(q):  # type: ignore[no-untyped-def]
            return [dataclasses.replace(x, loc=None) for x in q.questions]

        assert strip(back) == strip(quiz)
        # Moodle's own importer reads the types natively.
        assert b'type="cloze"' in data and b'type="ordering"' in data and b'type="description"' in data


def test_the_structured_bank_golden_and_import(golden) -> None:  # type: ignore[no-untyped-def]
    bank = load_paths([STRUCTURED])
    out = build(bank, ["moodlexml"])
    for path, data in out.files.items():
        golden(STRUCTURED.parent / "expected" / path, data)
    # Moodle gives a cloze question the sum of its weights as its mark: that, and combined
    # feedback on a cloze question (which Moodle's multianswer has not), are the only losses.
    assert {w.rule for w in out.warnings} <= {
        "moodlexml.cloze-mark-not-carried",
        "moodlexml.feedback-not-carried",
    }
    assert moodlexml_round_trip(bank, out) == []


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(banks(everything=True, structured=True))
def test_any_bank_with_cloze_ordering_and_description_survives_moodlexml(bank: Bank) -> None:
    out = build(bank, ["moodlexml"])
    assert [d.format() for d in out.warnings if d.severity.value == "error"] == []
    assert moodlexml_round_trip(bank, out) == []
    for quiz in bank.quizzes:
        data, _ = write_quiz(quiz)
        assert read_quiz(data, f"{quiz.id}.xml", quiz_id=quiz.id, lang=quiz.lang)[0] == quiz
        # Every code Moodle's regexes find is one of the quiz's blanks, in order.
        root = etree.fromstring(data)
        for el, q in zip(root.findall("question")[1:], quiz.questions, strict=True):
            if isinstance(q.body, Cloze):
                _, subs = parse_cloze(el.findtext("questiontext/text") or "")
                assert len(subs) == len(q.body.blanks)
                assert all(cloze_problems(s) == [] for s in subs)


# -- PHP's PCRE reads the codes as lmsexport's transcription does -------------------------------

PHP = shutil.which("php")
CODES = Path(__file__).resolve().parent / "php" / "cloze_codes.php"


def _pcre(texts: list[str]) -> list[dict[str, object]]:
    """What PHP's preg_match finds in each text, with Moodle's own answer look-behind
    `(?<!\\\\|&|&amp;)` (PCRE takes branches of different lengths; Python's re does not)."""
    assert PHP is not None
    alternative = CLOZE_ALTERNATIVE.replace(r"(?<!\\)(?<!&)(?<!&amp;)", r"(?<!\\|&|&amp;)", 1)
    code = _CLOZE_CODE.pattern.replace(CLOZE_ALTERNATIVE, alternative)
    payload = {
        "code": code,
        "alternative": alternative,
        "numerical": _CLOZE_NUMERICAL.pattern,
        "texts": texts,
    }
    run = subprocess.run(
        [PHP, str(CODES)], input=json.dumps(payload).encode(), capture_output=True, check=True, timeout=120
    )
    result: list[dict[str, object]] = json.loads(run.stdout)
    return result


@pytest.mark.skipif(PHP is None, reason="no php command: run scripts/ensure-php.sh")
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(banks(everything=True, structured=True))
def test_php_finds_the_codes_lmsexport_writes_and_reads(bank: Bank) -> None:
    texts = []
    for quiz in bank.quizzes:
        data, _ = write_quiz(quiz)
        root = etree.fromstring(data)
        for el, q in zip(root.findall("question")[1:], quiz.questions, strict=True):
            if isinstance(q.body, Cloze):
                texts.append(el.findtext("questiontext/text") or "")
    texts += ["{1:NM:=1,5:0.1#a\\}b~%50%2~*} {:MCVS:a&#126;b~=c#x&amp;#y}", "{2:SA:=&amp;~x}"]
    for text, php in zip(texts, _pcre(texts), strict=True):
        marked, subs = parse_cloze(text, GapMarks("{#", "}"))
        assert php["text"] == marked
        php_subs = php["subs"]
        assert isinstance(php_subs, list) and len(php_subs) == len(subs)
        for sub, (weight, _, alts) in zip(subs, php_subs, strict=True):
            assert weight == sub.weight
            assert len(alts) == len(sub.alternatives)
            for ours, (fraction, answer, tolerance, feedback) in zip(sub.alternatives, alts, strict=True):
                assert (ours.text, ours.tolerance, ours.feedback) == (answer, tolerance, feedback)
                if fraction == "=":
                    assert ours.fraction == 1 or sub.multiple
                elif fraction and fraction != "0" and not sub.multiple:
                    assert ours.fraction == pytest.approx(float(fraction.replace(",", ".")) / 100)


# -- foreign files, judged as Moodle's importer judges them -------------------------------------


def _file(question: str) -> bytes:
    return f"<quiz>{question}</quiz>".encode()


def _question(qtype: str, text: str, extra: str = "") -> str:
    return (
        f'<question type="{qtype}"><name><text>N</text></name>'
        f'<questiontext format="html"><text><![CDATA[{text}]]></text></questiontext>{extra}</question>'
    )


def _errors(data: bytes) -> list[Diagnostic]:
    with pytest.raises(MoodleXmlError) as e:
        read_quiz(data, "x.xml")
    return [d for d in e.value.diagnostics if d.severity.value == "error"]


def test_a_cloze_moodle_refuses_is_an_error() -> None:
    (error,) = _errors(_file(_question("cloze", "<p>x {1:SA:%50%half} y</p>")))
    assert error.rule == "moodlexml.bad-cloze" and "no answer is worth 100%" in error.message
    errors = _errors(_file(_question("cloze", "<p>x {1:MC:=only} {:NM:=abc}</p>")))
    assert [d.rule for d in errors] == ["moodlexml.bad-cloze"] * 2
    assert "at least 2" in errors[0].message and "not a number" in errors[1].message


def test_a_foreign_cloze_is_read_with_moodles_mark_and_blanks() -> None:
    text = (
        "<p>Stage {2:SAC:=ZeRO-3#yes~%50%ZeRO#close~*#no} shards {1:MCH:=params~grads} "
        "and {:NM:=0.2:0.01}</p>"
    )
    quiz, diags = read_quiz(_file(_question("cloze", text, "<defaultgrade>7</defaultgrade>")), "c.xml")
    assert quiz is not None
    (q,) = quiz.questions
    # Moodle ignores <defaultgrade>: the mark is the sum of the weights.
    assert q.points == 4.0 and [d.rule for d in diags] == ["moodlexml.ignored"]
    assert isinstance(q.body, Cloze)
    sa, mc, nm = q.body.blanks
    assert isinstance(sa, TextBlank) and sa.case_sensitive and sa.weight == 2
    assert [(a.text, a.credit, a.feedback) for a in sa.answers] == [
        ("ZeRO-3", 1.0, "yes"),
        ("ZeRO", 0.5, "close"),
    ]
    assert sa.other_feedback == "no"
    assert isinstance(mc, ChoiceBlank) and mc.display is ChoiceDisplay.HORIZONTAL and not mc.multiple
    assert [(c.text, c.credit) for c in mc.choices] == [("params", 1.0), ("grads", 0.0)]
    assert isinstance(nm, NumberBlank) and (nm.keys[0].answer, nm.keys[0].tolerance) == (0.2, 0.01)
    assert [x.n for x in inlines_of(q.stem) if isinstance(x, Gap)] == [1, 2, 3]
    assert plain_text(q.stem) == "Stage [1] shards [2] and [3]"


def test_gapselect_and_ddwtos_are_cloze_questions_with_drop_downs() -> None:
    options = "".join(
        f"<{tag}><text>{t}</text><group>{g}</group>{inf}</{tag}>"
        for tag in ("selectoption",)
        for t, g, inf in (("ZeRO", 1, ""), ("FSDP", 1, ""), ("1F1B", 2, ""), ("GPipe", 2, ""))
    )
    quiz, diags = read_quiz(
        _file(_question("gapselect", "<p>[[1]] shards; [[3]] schedules.</p>", options)), "g.xml"
    )
    assert quiz is not None and diags == []
    body = quiz.questions[0].body
    assert isinstance(body, Cloze)
    assert [[(c.text, c.credit) for c in b.choices] for b in body.blanks if isinstance(b, ChoiceBlank)] == [
        [("ZeRO", 1.0), ("FSDP", 0.0)],
        [("1F1B", 1.0), ("GPipe", 0.0)],
    ]
    drag = options.replace("selectoption", "dragbox")
    quiz, diags = read_quiz(_file(_question("ddwtos", "<p>[[2]]</p>", drag)), "d.xml")
    assert quiz is not None and [d.rule for d in diags] == ["moodlexml.dragging-not-carried"]


def test_an_ordering_with_moodles_defaults() -> None:
    answers = "".join(f'<answer fraction="0" format="html"><text>{t}</text></answer>' for t in "ABC")
    quiz, diags = read_quiz(_file(_question("ordering", "<p>Order</p>", answers)), "o.xml")
    assert quiz is not None and diags == []
    body = quiz.questions[0].body
    # set_options_for_import(): RANDOM 6 of 3 items is all of them; RELATIVE_NEXT_EXCLUDE_LAST.
    assert body == Ordering(("A", "B", "C"), OrderingGrading.RELATIVE_NEXT_EXCLUDE_LAST)
    one = '<answer fraction="0" format="html"><text>A</text></answer>'
    assert [d.rule for d in _errors(_file(_question("ordering", "<p>Order</p>", one)))] == [
        "moodlexml.too-few-items"
    ]


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(rich_banks_with_assessments(everything=True, structured=True))
def test_rich_blanks_items_and_assessments_survive_moodlexml(bank: Bank) -> None:
    """Rich stems around the gaps (emphasis, code, math, images), rich choices and feedback inside
    the codes (their images are files of the question text), rich ordering items, descriptions in
    assessments' sections."""
    out = build(bank, ["moodlexml"])
    assert [d.format() for d in out.warnings if d.severity.value == "error"] == []
    assert moodlexml_round_trip(bank, out) == []
    for assessment in bank.assessments:
        assert moodlexml_assessment_round_trip(assessment, out) == []


@pytest.mark.parametrize("code", ["{1:SHORTANSWER:}", "{1:MC:=a~b", "{:NUMERICAL:"])
def test_a_code_moodle_does_not_read_is_an_error(code: str) -> None:
    (error,) = _errors(_file(_question("cloze", f"<p>{{1:SA:=ok}} then {code}</p>")))
    assert error.rule == "moodlexml.bad-cloze" and "Moodle shows it as text" in error.message
