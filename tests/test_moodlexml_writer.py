"""Moodle XML writer: what each model field becomes, the one escaping function, and what the
writer refuses or warns about. Golden files: tests/cases/types/expected/moodle (tests/test_types.py)
and the committed dist/moodle (tests/test_ci.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lxml import etree

from lmsexport.errors import MoodleXmlExportError, Severity
from lmsexport.model import (
    Answer,
    Bank,
    Body,
    Choice,
    Essay,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    Pair,
    Question,
    Quiz,
    ShortAnswer,
    SingleChoice,
    TrueFalse,
    default_multiple_credits,
)
from lmsexport.readers.moodlexml import read_quiz
from lmsexport.writers import WriteContext, folder_of, get_writer
from lmsexport.writers.moodlexml import (
    category_names,
    category_path,
    format_mark,
    moodle_tag,
    plain_text_problem,
    question_name,
    write,
    write_quiz,
)

CTX = WriteContext(formats=("moodlexml",))


def _quiz(*questions: Question, **kw: object) -> Quiz:
    fields: dict[str, object] = {"id": "q", "title": "T", "lang": "en", **kw}
    return Quiz(questions=questions, **fields)  # type: ignore[arg-type]


def _single(choices: tuple[Choice, ...] | None = None, **kw: object) -> Question:
    base = Question(id="s1", stem="Pick", body=SingleChoice(choices or (Choice("a", 1.0), Choice("b"))))
    return replace(base, **kw)


def _multiple(*right: bool) -> MultipleChoice:
    """Choices "0", "1", ... with the default credits of the right ones."""
    credits = default_multiple_credits(right)
    return MultipleChoice(tuple(Choice(str(i), credit) for i, credit in enumerate(credits)))


def _short(*answers: str, case_sensitive: bool = False) -> Question:
    return Question(
        id="sa", stem="s", body=ShortAnswer(tuple(Answer(a) for a in answers), case_sensitive=case_sensitive)
    )


def _doc(quiz: Quiz) -> etree._Element:
    data, diags = write_quiz(quiz)
    assert [d.format() for d in diags if d.severity is Severity.ERROR] == []
    return etree.fromstring(data)


def _questions(quiz: Quiz) -> list[etree._Element]:
    return [q for q in _doc(quiz).iter("question") if q.get("type") != "category"]


def _rules(quiz: Quiz) -> list[tuple[str, str]]:
    return [(d.severity.value, d.rule) for d in write_quiz(quiz)[1]]


def test_registry_and_folder() -> None:
    out = get_writer("moodlexml")(Bank((_quiz(_single()),)), CTX)
    assert list(out.files) == ["moodle/q.xml"]
    assert folder_of("moodlexml") == "moodle"
    assert folder_of("gift") == "gift"


def test_same_bank_same_bytes() -> None:
    bank = Bank((_quiz(_single(), _single(id="s2", stem="ایک سوال")),))
    assert write(bank, CTX).files == write(bank, CTX).files


# -- the one escaping function --------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "raw"),
    [
        ("plain words", b"<text>plain words</text>"),
        ("a < b & c", b"<text><![CDATA[a < b & c]]></text>"),
        ("it's", b"<text><![CDATA[it's]]></text>"),
        ('"quoted"', b'<text><![CDATA["quoted"]]></text>'),
        # `]]>` cannot be in a CDATA section: entity references, which PHP's parser joins back.
        ("a]]>b", b"<text>a]]&gt;b</text>"),
        ("x]]><y", b"<text>x]]&gt;&lt;y</text>"),
    ],
)
def test_plain_texts_are_one_cdata_section_exactly_where_moodle_uses_one(answer: str, raw: bytes) -> None:
    data, _ = write_quiz(_quiz(_short(answer)))
    assert raw in data
    body = read_quiz(data, "q.xml")[0].questions[0].body
    assert isinstance(body, ShortAnswer) and body.accepted == (answer,)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("ok", None),
        ("a]]>b", None),
        ("a]]> <b", "white space between markup characters"),
        ("]]>\n&", "white space between markup characters"),
        ("line\rfeed", "carriage return"),
    ],
)
def test_plain_text_problem(text: str, problem: str | None) -> None:
    found = plain_text_problem(text)
    assert (found is None) if problem is None else (problem in (found or ""))


def test_unwritable_plain_texts_are_errors() -> None:
    q = _short("a]]> <b", "c\rd")
    with pytest.raises(MoodleXmlExportError) as e:
        write(Bank((_quiz(q),)), CTX)
    assert [d.rule for d in e.value.diagnostics] == ["moodlexml.unwritable"] * 2
    assert all(d.message.startswith("question 'sa': accepted answer") for d in e.value.diagnostics)


def test_rich_texts_are_html_that_shows_the_plain_text() -> None:
    stem = "<b> & \n  two\tspaces"
    (q,) = _questions(_quiz(_single(stem=stem)))
    html = q.findtext("questiontext/text")
    assert q.find("questiontext").get("format") == "html"
    assert html == "&lt;b&gt; &amp;&nbsp;<br>&nbsp;&nbsp;two&#9;spaces"


def test_every_text_passes_the_control_character_check() -> None:
    q = _single((Choice("a\x01", 1.0), Choice("b")))
    with pytest.raises(MoodleXmlExportError) as e:
        write(Bank((_quiz(q),)), CTX)
    assert [d.rule for d in e.value.diagnostics] == ["moodlexml.control-character"]


# -- languages --------------------------------------------------------------------------------


def test_urdu_is_marked_right_to_left_and_other_languages_are_marked() -> None:
    quiz = Quiz(
        id="q",
        title="T",
        lang="ur",
        questions=(
            _single((Choice("ہاں", 1.0), Choice("yes", lang="en")), stem="سوال"),
            _single(id="s2", stem="English", lang="en"),
        ),
    )
    first, second = _questions(quiz)
    assert first.findtext("questiontext/text") == '<span lang="ur" dir="rtl">سوال</span>'
    texts = [a.findtext("text") for a in first.iter("answer")]
    assert texts == ['<span lang="ur" dir="rtl">ہاں</span>', '<span lang="en" dir="ltr">yes</span>']
    assert second.findtext("questiontext/text") == '<span lang="en" dir="ltr">English</span>'


def test_text_in_the_quiz_language_left_to_right_is_not_wrapped() -> None:
    (q,) = _questions(_quiz(_single(stem="Plain")))
    assert q.findtext("questiontext/text") == "Plain"


# -- the fields of every question ---------------------------------------------------------------


def test_common_fields() -> None:
    q = _single(points=2.5, explanation="Because", tags=("zero", "zero-1"))
    (el,) = _questions(_quiz(q))
    assert el.findtext("name/text") == "Pick"
    assert el.findtext("generalfeedback/text") == "Because"
    assert el.findtext("defaultgrade") == "2.5000000"
    assert el.findtext("penalty") == "0.3333333"
    assert el.findtext("hidden") == "0"
    assert el.findtext("idnumber") == "s1"
    assert [t.findtext("text") for t in el.iterfind("tags/tag")] == ["zero", "zero-1"]


def test_no_explanation_and_no_feedback_are_empty_texts_as_moodle_exports_them() -> None:
    (el,) = _questions(_quiz(_single()))
    assert el.find("generalfeedback/text") is not None
    assert el.findtext("generalfeedback/text") == ""
    assert [a.findtext("feedback/text") for a in el.iter("answer")] == ["", ""]


@pytest.mark.parametrize(
    ("body", "penalty"),
    [
        (TrueFalse(True), "1.0000000"),
        (Essay(), "0.0000000"),
        (ShortAnswer((Answer("x"),)), "0.3333333"),
    ],
)
def test_penalty_as_moodle_exports_its_form_defaults(body: Body, penalty: str) -> None:
    q = Question(id="x", stem="s", body=body)
    (el,) = _questions(_quiz(q))
    assert el.findtext("penalty") == penalty


@pytest.mark.parametrize(("points", "text"), [(1.0, "1.0000000"), (0.1, "0.1000000"), (1 / 3, repr(1 / 3))])
def test_format_mark(points: float, text: str) -> None:
    assert format_mark(points) == text
    assert float(text) == points


def test_marks_moodle_cannot_store() -> None:
    assert _rules(_quiz(_single(points=1 / 3))) == [("warning", "moodlexml.mark-rounded")]
    assert _rules(_quiz(_single(points=100000.0))) == [("error", "moodlexml.bad-mark")]


def test_tags_moodle_changes_are_warned_about() -> None:
    assert moodle_tag("a  b") == "a b"
    assert moodle_tag("<x>`") == "x"
    assert moodle_tag("t" * 60) == "t" * 50
    q = _single(tags=("fine", "two  spaces", "t" * 60))
    assert _rules(_quiz(q)) == [("warning", "moodlexml.tag-changed")] * 2


# -- names and categories -------------------------------------------------------------------------


def test_name_is_the_stem_start_and_survives_moodles_tag_stripping() -> None:
    assert question_name(_single(stem="Is x<y or <b>bold</b>?\nYes")) == "Is x< y or < b>bold< /b>? Yes"
    long = question_name(_single(stem="word " * 40))
    assert long.endswith("…") and len(long) <= 80
    assert question_name(_single(stem="a ]]> b")) == "a ]] > b"


def test_category_is_the_quiz_category_under_course_top() -> None:
    quiz = _quiz(_single(), category="llm-training/zero", description="About ZeRO")
    doc = _doc(quiz)
    (cat,) = [q for q in doc.iter("question") if q.get("type") == "category"]
    assert cat.findtext("category/text") == "$course$/top/llm-training/zero"
    assert cat.findtext("info/text") == "About ZeRO"
    assert doc.find("question") is cat


def test_category_from_the_title_escapes_slashes_as_moodle_does() -> None:
    assert category_path(category_names(_quiz(_single(), title="A/B test"))[0]) == "$course$/top/A//B test"
    assert category_path(["/lead", "trail/"]) == "$course$/top/ //lead/trail// "
    names, changed = category_names(_quiz(_single(), title="Two\nlines <b>"))
    assert (names, changed) == (["Two lines < b>"], True)
    assert _rules(_quiz(_single(), title="Two\nlines")) == [("warning", "moodlexml.category-sanitized")]


# -- per type -------------------------------------------------------------------------------------


def test_single_and_multiple_fractions_from_moodles_grade_list() -> None:
    single, multiple = _questions(
        _quiz(
            _single(),
            Question(id="m", stem="Pick", body=_multiple(True, True, True, False)),
        )
    )
    assert single.findtext("single") == "true"
    assert [a.get("fraction") for a in single.iter("answer")] == ["100", "0"]
    assert multiple.findtext("single") == "false"
    assert [a.get("fraction") for a in multiple.iter("answer")] == ["33.33333"] * 3 + ["-100"]
    assert {a.get("format") for a in multiple.iter("answer")} == {"html"}


def test_inexact_weights_are_warned_about() -> None:
    q = Question(id="m", stem="s", body=_multiple(*[True] * 11))
    assert _rules(_quiz(q)) == [("warning", "moodlexml.inexact-weights")]


@pytest.mark.parametrize("shuffle", [True, False])
def test_shuffle_is_carried_on_choices_and_matching(shuffle: bool) -> None:
    m = Question(id="m", stem="s", body=Matching((Pair("a", "1"), Pair("b", "2"), Pair("c", "3"))))
    quiz = _quiz(_single(), m, shuffle=shuffle)
    assert [q.findtext("shuffleanswers") for q in _questions(quiz)] == [str(shuffle).lower()] * 2
    assert read_quiz(write_quiz(quiz)[0], "q.xml")[0].shuffle is shuffle


def test_true_false_answers_are_recognised_by_their_texts() -> None:
    (el,) = _questions(_quiz(Question(id="tf", stem="s", body=TrueFalse(False))))
    assert [(a.findtext("text"), a.get("fraction")) for a in el.iter("answer")] == [
        ("true", "0"),
        ("false", "100"),
    ]


def test_short_answer_case_and_literal_asterisk() -> None:
    (el,) = _questions(_quiz(_short("2*3", "Six", case_sensitive=True)))
    assert el.findtext("usecase") == "1"
    assert [a.findtext("text") for a in el.iter("answer")] == ["2\\*3", "Six"]
    assert {a.get("fraction") for a in el.iter("answer")} == {"100"}


def test_numerical_range_is_midpoint_and_half_width_with_the_exact_range_in_a_comment() -> None:
    key = NumericKey(answer=19.5, low=19.0, high=21.0)
    quiz = _quiz(Question(id="n", stem="s", body=Numerical(keys=(key,))))
    (el,) = _questions(quiz)
    assert (el.findtext("answer/text"), el.findtext("answer/tolerance")) == ("20", "1")
    assert isinstance(el[0], etree._Comment) and '"range": [19.0, 21.0]' in el[0].text
    assert read_quiz(write_quiz(quiz)[0], "q.xml")[0].questions[0].body == Numerical(keys=(key,))


def test_numerical_range_at_the_float_limit_does_not_overflow() -> None:
    key = NumericKey(low=-1.7e308, high=1.7e308)
    quiz = _quiz(Question(id="n", stem="s", body=Numerical(keys=(key,))))
    (el,) = _questions(quiz)
    assert (el.findtext("answer/text"), el.findtext("answer/tolerance")) == ("0", "1.7e+308")
    assert read_quiz(write_quiz(quiz)[0], "q.xml")[0].questions[0].body == Numerical(keys=(key,))


def test_numerical_tolerance_and_units_off() -> None:
    key = NumericKey(answer=12.0, tolerance=0.5)
    (el,) = _questions(_quiz(Question(id="n", stem="s", body=Numerical(keys=(key,)))))
    assert (el.findtext("answer/text"), el.findtext("answer/tolerance")) == ("12", "0.5")
    assert el.findtext("showunits") == "3"
    assert not [c for c in el if isinstance(c, etree._Comment)]


def test_matching_distractors_are_subquestions_with_empty_text() -> None:
    q = Question(id="m", stem="s", body=Matching((Pair("a", "1"), Pair("b", "2")), ("3",)))
    (el,) = _questions(_quiz(q))
    subs = [(s.findtext("text"), s.findtext("answer/text")) for s in el.iter("subquestion")]
    assert subs == [("a", "1"), ("b", "2"), ("", "3")]


def test_matching_warnings_and_errors() -> None:
    pairs = Matching((Pair("a", "1"), Pair("b", "2")))
    two = Question(id="m", stem="s", body=pairs)
    assert _rules(_quiz(two)) == [("warning", "moodlexml.match-form-minimum")]
    merged = replace(two, body=replace(pairs, distractors=("1",)))
    assert _rules(_quiz(merged)) == [("warning", "moodlexml.distractor-merged")]
    one = replace(two, body=replace(pairs, pairs=pairs.pairs[:1]))
    assert _rules(_quiz(one)) == [("error", "moodlexml.too-few-pairs")]


def test_essay_has_moodles_form_defaults() -> None:
    (el,) = _questions(_quiz(Question(id="e", stem="s", body=Essay())))
    assert [el.findtext(t) for t in ("responseformat", "responserequired", "responsefieldlines")] == [
        "editor", "1", "15",
    ]  # fmt: skip


def test_every_error_of_a_bank_is_reported_together() -> None:
    bad = (
        _single((Choice("a", 1.0),)),
        Question(id="m", stem="s", body=MultipleChoice((Choice("a"), Choice("b")))),
        replace(_single(), id="p", penalty=1.5),
    )
    with pytest.raises(MoodleXmlExportError) as e:
        write(Bank((_quiz(*bad),)), CTX)
    assert [d.rule for d in e.value.diagnostics] == [
        "moodlexml.too-few-choices",
        "moodlexml.bad-key",
        "moodlexml.bad-penalty",
    ]


def test_a_single_choice_may_have_several_or_no_full_credit_choices() -> None:
    """Moodle imports both (qtype_multichoice::save_question_options() gives a notice only when no
    answer is worth 100%); the loader warns about them."""
    two = _single((Choice("a", 1.0), Choice("b", 1.0), Choice("c", -0.5)))
    half = _single((Choice("a", 0.5), Choice("b")), id="s2")
    data, diags = write_quiz(_quiz(two, half))
    assert diags == []
    fractions = [[a.get("fraction") for a in q.iter("answer")] for q in _questions(_quiz(two, half))]
    assert fractions == [["100", "100", "-50"], ["50", "0"]]
    assert read_quiz(data, "q.xml")[0].questions == (two, half)


def test_quiz_metadata_comment_never_holds_a_double_hyphen() -> None:
    quiz = _quiz(_single(), title="a -- b --- c-", description="x -- y")
    data, _ = write_quiz(quiz)
    comments = [c.text for c in etree.fromstring(data).iter(etree.Comment)]
    assert all("--" not in c for c in comments)
    assert read_quiz(data, "q.xml")[0] == quiz
