"""Moodle XML and issue 22 (credits, feedback, hints, penalties, names, graded and wildcard short
answers, numerical keys with units, essay options): what the writer writes, element by element as
qformat_xml::writequestion() writes them and import_question() reads them back, what it names as
not carried (what Moodle's importer ignores), and the round trips: the bank of issue 22
(tests/cases/credits) through Moodle XML, `check`, import and Moodle's own XML parser (PHP), and any
bank of strategies.banks(everything=True) through the writer and the reader."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from lxml import etree
from strategies import banks
from test_import_roundtrip import _import

from lmsexport.build import build, moodlexml_round_trip
from lmsexport.model import (
    Answer,
    Bank,
    Choice,
    Essay,
    Hint,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    OutcomeFeedback,
    Pair,
    Para,
    Question,
    Quiz,
    ResponseFormat,
    Rich,
    ShortAnswer,
    SingleChoice,
    Str,
    Strong,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
)
from lmsexport.moodlexml import format_fraction, read_fraction, read_wildcard, wildcard_text
from lmsexport.readers.moodlexml import read_quiz
from lmsexport.writers.moodlexml import write_quiz

ROOT = Path(__file__).resolve().parents[1]
CREDITS = ROOT / "tests" / "cases" / "credits"


def _quiz(*questions: Question) -> Quiz:
    return Quiz(id="q", title="T", lang="en", questions=questions)


def _q(body, **kw: object) -> Question:  # type: ignore[no-untyped-def]
    return replace(Question(id="q1", stem="Stem", body=body), **kw)


def _written(question: Question) -> tuple[etree._Element, list[tuple[str, str]]]:
    """The question's element, and the rules and severities of the writer's diagnostics."""
    data, diags = write_quiz(_quiz(question))
    (el,) = [q for q in etree.fromstring(data).iter("question") if q.get("type") != "category"]
    assert read_quiz(data, "q.xml")[0].questions == (question,)
    return el, [(d.severity.value, d.rule) for d in diags]


def _leaves(el: etree._Element, *tags: str) -> list[str | None]:
    return [el.findtext(t) for t in tags]


# -- what each element becomes ----------------------------------------------------------------


def test_credits_are_fractions_on_moodles_grade_list() -> None:
    body = SingleChoice((Choice("a", 1.0), Choice("b", 1.0), Choice("c", 1 / 3), Choice("d", -0.5)))
    el, diags = _written(_q(body))
    assert [a.get("fraction") for a in el.iter("answer")] == ["100", "100", "33.33333", "-50"]
    assert diags == []
    multi = MultipleChoice((Choice("a", 0.25), Choice("b", 0.75), Choice("c", -1 / 7)))
    el, _ = _written(_q(multi))
    assert el.findtext("single") == "false"
    assert [a.get("fraction") for a in el.iter("answer")] == ["25", "75", "-14.28571"]


def test_feedback_by_outcome_and_the_number_right() -> None:
    fb = OutcomeFeedback("Right", "Partly", "Wrong", show_num_correct=True)
    el, _ = _written(_q(MultipleChoice((Choice("a", 0.5), Choice("b", 0.5), Choice("c", -1.0))), feedback=fb))
    assert _leaves(el, "correctfeedback/text", "partiallycorrectfeedback/text", "incorrectfeedback/text") == [
        "Right",
        "Partly",
        "Wrong",
    ]
    assert el.find("shownumcorrect") is not None
    # Without it: no <shownumcorrect/> (Moodle reads its presence).
    el, _ = _written(
        _q(MultipleChoice((Choice("a", 1.0), Choice("b"))), feedback=replace(fb, show_num_correct=False))
    )
    assert el.find("shownumcorrect") is None
    # Only the number right: written as Moodle's default, and said so in lmsexport's comment.
    el, _ = _written(
        _q(
            Matching((Pair("a", "1"), Pair("b", "2")), ("3",)),
            feedback=OutcomeFeedback(show_num_correct=True),
        )
    )
    assert el.find("shownumcorrect") is not None
    assert '"show_num_correct": true' in etree.tostring(el, encoding="unicode")


def test_hints_with_their_options_and_the_penalty() -> None:
    hints = (Hint("First"), Hint("Second", show_num_correct=True, clear_wrong=True))
    el, diags = _written(_q(MultipleChoice((Choice("a", 1.0), Choice("b", -1.0))), hints=hints, penalty=0.25))
    shown = [
        (
            h.get("format"),
            h.findtext("text"),
            h.find("shownumcorrect") is not None,
            h.find("clearwrong") is not None,
        )
        for h in el.iter("hint")
    ]
    assert shown == [("html", "First", False, False), ("html", "Second", True, True)]
    assert el.findtext("penalty") == "0.2500000" and diags == []
    # Hints come after the answers and before the tags, as Moodle's exporter writes them.
    tags = [c.tag for c in el if isinstance(c.tag, str)]
    assert tags.index("hint") > max(i for i, t in enumerate(tags) if t == "answer")


@pytest.mark.parametrize(
    ("penalty", "written", "rules"),
    [
        (None, "0.3333333", []),
        (1 / 3, "0.3333333", []),  # the default, set: lmsexport's comment says so
        (0.1, "0.1000000", []),
        (0.0, "0.0000000", []),
        (0.123456789, "0.123456789", [("warning", "moodlexml.penalty-rounded")]),
        (0.33, "0.3300000", [("warning", "moodlexml.penalty-changed")]),
    ],
)
def test_penalties(penalty: float | None, written: str, rules: list[tuple[str, str]]) -> None:
    el, diags = _written(_q(SingleChoice((Choice("a", 1.0), Choice("b"))), penalty=penalty))
    assert (el.findtext("penalty"), diags) == (written, rules)


def test_names_of_their_own_or_derived() -> None:
    el, _ = _written(_q(TrueFalse(True), name="My name"))
    assert el.findtext("name/text") == "My name"
    el, _ = _written(_q(TrueFalse(True)))
    assert el.findtext("name/text") == "Stem"
    el, diags = _written(_q(TrueFalse(True), name="Stem"))  # as derived, but set: said so
    assert '"named": true' in etree.tostring(el, encoding="unicode") and diags == []
    _, diags = _written(_q(TrueFalse(True), name="<b>bold</b> name"))
    assert diags == [("warning", "moodlexml.name-changed")]


def test_true_false_feedback_on_each_answer() -> None:
    el, _ = _written(_q(TrueFalse(False, feedback_true="No", feedback_false="Yes")))
    answers = [
        (a.findtext("text"), a.get("fraction"), a.findtext("feedback/text")) for a in el.iter("answer")
    ]
    assert answers == [("true", "0", "No"), ("false", "100", "Yes")]


def test_short_answers_graded_with_wildcards_and_feedback_for_any_other() -> None:
    body = ShortAnswer(
        (
            Answer("2*3"),  # a literal asterisk
            Answer("six*", credit=0.5, feedback="Nearly", wildcard=True),
            Answer("*", credit=0.1, wildcard=True),
        ),
        case_sensitive=True,
        other_feedback="No",
    )
    el, diags = _written(_q(body))
    answers = [
        (a.findtext("text"), a.get("fraction"), a.findtext("feedback/text")) for a in el.iter("answer")
    ]
    assert answers == [("2\\*3", "100", ""), ("six*", "50", "Nearly"), ("*", "10", ""), ("*", "0", "No")]
    assert el.findtext("usecase") == "1" and diags == []


@pytest.mark.parametrize(
    ("text", "wildcard", "stored"),
    [("a*b", False, "a\\*b"), ("a*b", True, "a*b"), ("a\\*", False, "a\\\\*"), ("a\\b*", True, "a\\b*")],
)
def test_wildcards_as_compare_string_with_wildcard_reads_them(text: str, wildcard: bool, stored: str) -> None:
    assert wildcard_text(text, wildcard) == stored
    assert read_wildcard(stored) == (text, wildcard, True)


def test_a_wildcard_answer_with_a_backslash_before_a_star_cannot_be_written() -> None:
    assert wildcard_text("a\\*", True) is None
    _, diags = write_quiz(_quiz(_q(ShortAnswer((Answer("a\\*b*", wildcard=True),)))))
    assert [d.rule for d in diags] == ["moodlexml.unwritable"]


def test_numerical_keys_ranges_units_and_feedback_for_any_other() -> None:
    body = Numerical(
        keys=(
            NumericKey(answer=1.875, tolerance=0.03, feedback="Right"),
            NumericKey(low=1.39, high=1.42, answer=1.40625, credit=0.5),
            NumericKey(answer=16.640625, credit=0.0, feedback="ZeRO-1"),
        ),
        units=(Unit("GB"), Unit("MB", 1000.0), Unit("GiB", 0.9313225746)),
        unit_grading=UnitGrading.RESPONSE,
        unit_penalty=0.25,
        unit_input=UnitInput.SELECT,
        units_left=False,
        other_feedback="Count the bytes",
    )
    el, diags = _written(_q(body))
    answers = [(a.findtext("text"), a.findtext("tolerance"), a.get("fraction")) for a in el.iter("answer")]
    # A range is its midpoint and half-width, as an instructor writes them.
    assert answers == [
        ("1.875", "0.03", "100"),
        ("1.405", "0.015", "50"),
        ("16.640625", "0", "0"),
        ("*", "0", "0"),
    ]
    units = [(u.findtext("unit_name"), u.findtext("multiplier")) for u in el.iter("unit")]
    assert units == [("GB", "1"), ("MB", "1000"), ("GiB", "0.9313225746")]
    assert _leaves(el, "unitgradingtype", "unitpenalty", "showunits", "unitsleft") == [
        "1",
        "0.2500000",
        "2",
        "0",
    ]
    assert diags == []


def test_a_numerical_question_without_units_is_written_as_today() -> None:
    el, _ = _written(_q(Numerical(keys=(NumericKey(answer=2.0),))))
    assert _leaves(el, "unitgradingtype", "unitpenalty", "showunits", "unitsleft") == [
        "0",
        "0.1000000",
        "3",
        "0",
    ]
    assert el.find("units") is None


def test_essay_options() -> None:
    essay = Essay(
        response_format=ResponseFormat.MONOSPACED,
        required=False,
        lines=10,
        min_words=50,
        max_words=300,
        template="def f():\n    ...",
        grader_info="Look for a loop",
    )
    el, diags = _written(_q(essay))
    assert _leaves(
        el,
        "responseformat",
        "responserequired",
        "responsefieldlines",
        "minwordlimit",
        "maxwordlimit",
        "attachments",
    ) == ["monospaced", "0", "10", "50", "300", "0"]
    # A plain box shows the template's text as it is: written as plain text.
    assert el.find("responsetemplate").get("format") == "plain_text"  # type: ignore[union-attr]
    assert el.findtext("responsetemplate/text") == "def f():\n    ..."
    assert el.findtext("graderinfo/text") == "Look for a loop" and diags == []
    # An answer of attached files only: one allowed and required, as Moodle's form demands.
    el, _ = _written(_q(Essay(response_format=ResponseFormat.NONE, attachments=1, attachments_required=1)))
    assert _leaves(el, "responseformat", "attachments", "attachmentsrequired") == ["noinline", "1", "1"]
    # Without size limit and file types, no <maxbytes> and <filetypeslist>: as files before them.
    assert el.find("maxbytes") is None and el.find("filetypeslist") is None


@pytest.mark.parametrize(
    "essay",
    [
        Essay(attachments=3, attachments_required=2, file_types=(".pdf", "document"), max_bytes=1048576),
        Essay(response_format=ResponseFormat.NONE, attachments=-1, attachments_required=3),
        Essay(response_format=ResponseFormat.PLAIN, attachments=1, file_types=("image/png",)),
    ],
    ids=["limited", "files-only-unlimited", "optional-file"],
)
def test_essay_attachments_are_native_and_read_back(essay: Essay) -> None:
    el, diags = _written(_q(essay))
    assert diags == []
    assert _leaves(el, "attachments", "attachmentsrequired") == [
        str(essay.attachments),
        str(essay.attachments_required),
    ]
    assert el.findtext("maxbytes") == (str(essay.max_bytes) if essay.max_bytes else None)
    assert el.findtext("filetypeslist") == (",".join(essay.file_types) or None)


def test_essay_attachments_as_moodle_exports_them() -> None:
    """Moodle writes every element, `*` for any file type; save_question_options() keeps no
    required files when none are allowed."""
    data = (
        '<quiz><question type="essay"><name><text>E</text></name>'
        '<questiontext format="html"><text>Upload</text></questiontext>'
        "<responseformat>editor</responseformat><attachments>{a}</attachments>"
        "<attachmentsrequired>{r}</attachmentsrequired><maxbytes>{b}</maxbytes>"
        "<filetypeslist>{t}</filetypeslist></question></quiz>"
    )
    quiz, _ = read_quiz(data.format(a=2, r=1, b=0, t="*").encode(), "q.xml")
    assert quiz is not None
    body = quiz.questions[0].body
    assert isinstance(body, Essay)
    assert (body.attachments, body.attachments_required, body.file_types, body.max_bytes) == (2, 1, (), 0)
    quiz, _ = read_quiz(data.format(a=-1, r=2, b=512, t=".pdf, .PDF;document").encode(), "q.xml")
    assert quiz is not None and isinstance(body := quiz.questions[0].body, Essay)
    assert (body.attachments, body.attachments_required, body.file_types, body.max_bytes) == (
        -1,
        2,
        (".pdf", ".PDF", "document"),
        512,
    )
    quiz, _ = read_quiz(data.format(a=0, r=1, b=512, t=".pdf").encode(), "q.xml")
    assert quiz is not None and quiz.questions[0].body == Essay()


def test_a_rich_template_for_a_plain_box_keeps_its_words() -> None:
    words = Rich((Para((Str("Name:"),)), Para((Str("Answer:"),))))
    el, diags = _written(_q(Essay(response_format=ResponseFormat.PLAIN, template=words)))
    assert el.findtext("responsetemplate/text") == "Name:\n\nAnswer:" and diags == []
    # With markup: Moodle gets its words; lmsexport's comment keeps the template itself.
    marked = Rich((Para((Strong((Str("Name"),)),)),))
    el, diags = _written(_q(Essay(response_format=ResponseFormat.PLAIN, template=marked)))
    assert el.findtext("responsetemplate/text") == "Name"
    assert diags == [("warning", "moodlexml.template-markup-not-carried")]


# -- what Moodle's importer does not read: named, written for lmsexport's own reading ----------


@pytest.mark.parametrize(
    ("question", "rule"),
    [
        (
            _q(ShortAnswer((Answer("a"),)), feedback=OutcomeFeedback(correct="Yes")),
            "moodlexml.feedback-not-carried",
        ),
        (_q(TrueFalse(True), feedback=OutcomeFeedback(incorrect="No")), "moodlexml.feedback-not-carried"),
        (_q(Essay(), hints=(Hint("Think"),)), "moodlexml.hints-not-carried"),
        (
            _q(Numerical(keys=(NumericKey(answer=1.0),)), hints=(Hint("x", clear_wrong=True),)),
            "moodlexml.hint-options-not-carried",
        ),
    ],
)
def test_what_moodle_does_not_read_is_named_once(question: Question, rule: str) -> None:
    _, diags = _written(question)
    assert diags == [("warning", rule)]


def test_fractions_of_seven_decimals_read_back_exactly() -> None:
    for value in (1 / 3, 0.3333333, 0.1, 1 / 7, 0.1428571, 0.123456789, 1e-9, 0.0, 1.0):
        text, _ = format_fraction(value)
        assert read_fraction(text, float(text)) == value, value


# -- the bank of issue 22 ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def credits_bank() -> Bank:
    from lmsexport.source import load_paths

    return load_paths([CREDITS / "credits.yaml"])


def test_credits_bank_golden_check_and_import(credits_bank: Bank, golden) -> None:  # type: ignore[no-untyped-def]
    out = build(credits_bank, ["moodlexml"])
    (path,) = out.files
    golden(CREDITS / "expected" / path, out.files[path])
    # Moodle XML carries everything of the bank: nothing is named as lost.
    assert [w.rule for w in out.warnings] == []
    assert moodlexml_round_trip(credits_bank, out) == []
    back, _ = _import(out.files)
    assert back == credits_bank


# -- any bank ---------------------------------------------------------------------------------


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(banks(everything=True))
def test_any_bank_with_every_field_survives_moodlexml(bank: Bank) -> None:
    out = build(bank, ["moodlexml"])
    assert moodlexml_round_trip(bank, out) == []
    for quiz in bank.quizzes:
        data, diags = write_quiz(quiz)
        # Each loss is named once per question and element.
        named = [(d.rule, d.message.split("'")[1]) for d in diags if d.rule.endswith("-not-carried")]
        assert len(named) == len(set(named))
        assert read_quiz(data, f"{quiz.id}.xml", quiz_id=quiz.id, lang=quiz.lang)[0] == quiz


@pytest.mark.parametrize(
    ("written", "read", "named"),
    [
        (
            ("editor", -3, 1, ""),
            (-1, 1, ()),
            "its attachments as written (-3 allowed, 1 required; read as -1 and 1)",
        ),
        (
            ("noinline", 0, 0, ""),
            (1, 1, ()),
            "its attachments as written (0 allowed, 0 required; read as 1 and 1)",
        ),
        (("editor", 2, 5, "*.pdf .doc"), (2, 2, (".doc",)), "file types *.pdf"),
    ],
)
def test_attachments_the_loader_would_refuse_are_read_as_the_nearest_it_takes(
    written: tuple[str, int, int, str], read: tuple[int, int, tuple[str, ...]], named: str
) -> None:
    fmt, allowed, required, types = written
    data = (
        '<quiz><question type="essay"><name><text>E</text></name>'
        '<questiontext format="html"><text>U</text></questiontext>'
        f"<responseformat>{fmt}</responseformat><attachments>{allowed}</attachments>"
        f"<attachmentsrequired>{required}</attachmentsrequired><filetypeslist>{types}</filetypeslist>"
        "</question></quiz>"
    )
    quiz, warnings = read_quiz(data.encode(), "q.xml")
    assert quiz is not None and isinstance(body := quiz.questions[0].body, Essay)
    assert (body.attachments, body.attachments_required, body.file_types) == read
    assert [d.rule for d in warnings] == ["moodlexml.dropped"] and named in warnings[0].message
