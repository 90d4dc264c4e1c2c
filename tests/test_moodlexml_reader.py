"""Moodle XML reader: a bank exported from Moodle is read as Moodle's importer reads it, and mapped
onto the model with a warning for everything the model cannot hold. Refusals with their exact
messages are in tests/bad/moodlexml (tests/test_bad_inputs.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmsexport.errors import MoodleXmlError
from lmsexport.model import (
    Answer,
    Choice,
    Description,
    Essay,
    Hint,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    OutcomeFeedback,
    QuestionType,
    ShortAnswer,
    SingleChoice,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
)
from lmsexport.readers.moodlexml import (
    MAX_MOODLEXML_BYTES,
    read_moodlexml,
    read_quiz,
    read_quiz_bytes,
    split_category_path,
)

# Shaped like Moodle's own export (qformat_xml::writequestion): a course-category bank, HTML in
# CDATA, combined feedback, hints, tags, ID numbers.
MOODLE_EXPORT = b"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
<!-- question: 0  -->
  <question type="category">
    <category>
      <text>$course$/top/Default for LLM training/ZeRO</text>
    </category>
    <info format="moodle_auto_format">
      <text>Sharded optimizers</text>
    </info>
    <idnumber></idnumber>
  </question>

<!-- question: 101  -->
  <question type="multichoice">
    <name>
      <text>ZeRO stage 1</text>
    </name>
    <questiontext format="html">
      <text><![CDATA[<p dir="ltr">Which state does ZeRO stage 1 partition?</p>]]></text>
    </questiontext>
    <generalfeedback format="html">
      <text><![CDATA[Only the optimizer states.]]></text>
    </generalfeedback>
    <defaultgrade>2.0000000</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <idnumber>zero-1</idnumber>
    <single>true</single>
    <shuffleanswers>true</shuffleanswers>
    <answernumbering>abc</answernumbering>
    <showstandardinstruction>0</showstandardinstruction>
    <correctfeedback format="html">
      <text>Your answer is correct.</text>
    </correctfeedback>
    <partiallycorrectfeedback format="html">
      <text></text>
    </partiallycorrectfeedback>
    <incorrectfeedback format="html">
      <text></text>
    </incorrectfeedback>
    <shownumcorrect/>
    <answer fraction="100" format="html">
      <text>Optimizer states</text>
      <feedback format="html">
        <text>Right.</text>
      </feedback>
    </answer>
    <answer fraction="0" format="html">
      <text>Parameters</text>
      <feedback format="html">
        <text></text>
      </feedback>
    </answer>
    <hint format="html">
      <text>Think of Adam.</text>
    </hint>
    <tags>
      <tag><text>zero</text></tag>
    </tags>
    <coursetags>
      <tag><text>llm</text></tag>
    </coursetags>
  </question>

<!-- question: 102  -->
  <question type="shortanswer">
    <name>
      <text>FSDP</text>
    </name>
    <questiontext format="moodle_auto_format">
      <text>Name the PyTorch feature that shards parameters.</text>
    </questiontext>
    <generalfeedback format="moodle_auto_format">
      <text></text>
    </generalfeedback>
    <defaultgrade>1.0000000</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <idnumber></idnumber>
    <usecase>1</usecase>
    <answer fraction="100" format="moodle_auto_format">
      <text>FSDP</text>
      <feedback format="html">
        <text></text>
      </feedback>
    </answer>
    <answer fraction="50" format="moodle_auto_format">
      <text>ZeRO\\*</text>
      <feedback format="html">
        <text>Close.</text>
      </feedback>
    </answer>
  </question>

<!-- question: 103  -->
  <question type="numerical">
    <name>
      <text>Adam bytes</text>
    </name>
    <questiontext format="html">
      <text>Bytes of optimizer state per parameter?</text>
    </questiontext>
    <defaultgrade>1.0000000</defaultgrade>
    <idnumber>adam</idnumber>
    <answer fraction="100" format="moodle_auto_format">
      <text>12</text>
      <feedback format="html">
        <text></text>
      </feedback>
      <tolerance>0.5</tolerance>
    </answer>
    <answer fraction="0" format="moodle_auto_format">
      <text>*</text>
      <feedback format="html">
        <text>Count the fp32 copies.</text>
      </feedback>
      <tolerance>0</tolerance>
    </answer>
  </question>

<!-- question: 104  -->
  <question type="matching">
    <name>
      <text>Stages</text>
    </name>
    <questiontext format="html">
      <text>Match the stages.</text>
    </questiontext>
    <idnumber>stages</idnumber>
    <shuffleanswers>true</shuffleanswers>
    <subquestion format="html">
      <text>Stage 1</text>
      <answer><text>Optimizer states</text></answer>
    </subquestion>
    <subquestion format="html">
      <text>Stage 2</text>
      <answer><text>Gradients</text></answer>
    </subquestion>
    <subquestion format="html">
      <text></text>
      <answer><text>Activations</text></answer>
    </subquestion>
  </question>

<!-- question: 105  -->
  <question type="description">
    <name><text>Intro</text></name>
    <questiontext format="html"><text>Read this first.</text></questiontext>
  </question>

<!-- question: 106  -->
  <question type="truefalse">
    <name>
      <text>TP</text>
    </name>
    <questiontext format="html">
      <text>Tensor parallelism needs communication inside every layer.</text>
    </questiontext>
    <idnumber>tp</idnumber>
    <answer fraction="100" format="moodle_auto_format">
      <text>true</text>
      <feedback format="html"><text>Yes: all-reduce.</text></feedback>
    </answer>
    <answer fraction="0" format="moodle_auto_format">
      <text>false</text>
      <feedback format="html"><text></text></feedback>
    </answer>
  </question>

</quiz>
"""


@pytest.fixture(scope="module")
def exported():
    return read_quiz(MOODLE_EXPORT, "bank.xml")


def test_a_moodle_export_is_read(exported) -> None:
    quiz, _ = exported
    assert quiz.id == "bank"
    assert quiz.title == "ZeRO"
    assert quiz.category == "Default for LLM training/ZeRO"
    assert quiz.description == "Sharded optimizers"
    assert [q.id for q in quiz.questions] == ["zero-1", "q2", "adam", "stages", "q5", "tp"]
    mc, sa, num, match, intro, tf = quiz.questions
    # A description keeps its place, worth nothing (qformat_xml::import_description()).
    assert (intro.body, intro.points, intro.stem, intro.name) == (
        Description(),
        0.0,
        "Read this first.",
        "Intro",
    )
    assert (mc.type, mc.points, mc.tags) == (QuestionType.SINGLE, 2.0, ("zero", "llm"))
    # Moodle's editor wraps every text in a paragraph: one paragraph of words reads back plain.
    assert mc.stem == "Which state does ZeRO stage 1 partition?"
    assert isinstance(mc.body, SingleChoice)
    assert [(c.text, c.credit, c.feedback) for c in mc.body.choices] == [
        ("Optimizer states", 1.0, "Right."),
        ("Parameters", 0.0, None),
    ]
    assert mc.explanation == "Only the optimizer states."
    # Moodle's question names, its combined feedback (with <shownumcorrect/>), hints; the
    # penalty 0.3333333 is Moodle's default: None.
    assert [q.name for q in quiz.questions] == ["ZeRO stage 1", "FSDP", "Adam bytes", "Stages", "Intro", "TP"]
    assert mc.feedback == OutcomeFeedback(correct="Your answer is correct.", show_num_correct=True)
    assert mc.hints == (Hint("Think of Adam."),) and mc.penalty is None
    # A short answer worth 50% with its feedback; Moodle's \\* is a literal asterisk.
    assert sa.body == ShortAnswer(
        (Answer("FSDP"), Answer("ZeRO*", credit=0.5, feedback="Close.")), case_sensitive=True
    )
    # The last answer '*' at 0% is the feedback for any other response.
    assert num.body == Numerical(
        keys=(NumericKey(answer=12.0, tolerance=0.5),), other_feedback="Count the fp32 copies."
    )
    assert isinstance(match.body, Matching)
    assert [(p.left, p.right) for p in match.body.pairs] == [
        ("Stage 1", "Optimizer states"),
        ("Stage 2", "Gradients"),
    ]
    assert match.body.distractors == ("Activations",)
    assert tf.body == TrueFalse(True, feedback_true="Yes: all-reduce.")
    assert quiz.shuffle is True


def test_what_the_model_cannot_hold_is_warned_about_at_its_line(exported) -> None:
    _, warnings = exported
    # Every question of the export comes in whole, the description too.
    assert [(d.loc.line, d.rule) for d in warnings] == []
    essay = _one(
        "<responseformat>editorfilepicker</responseformat><attachments>2</attachments>"
        "<attachmentsrequired>1</attachmentsrequired>",
        "essay",
    )
    quiz, warnings = read_quiz(essay, "e.xml")
    # The attachments come in; the editor's file picker (files inside the text) does not.
    assert quiz.questions[0].body == Essay(attachments=2, attachments_required=1)
    assert [(d.rule, d.message) for d in warnings] == [
        (
            "moodlexml.dropped",
            "question 'q1': the model has no place for the editor's file picker (files in the response); "
            "dropped",
        )
    ]


def test_moodle_file_reading_keeps_what_moodle_reads() -> None:
    mx = read_moodlexml(MOODLE_EXPORT, "bank.xml")
    mc = mx.questions[1]
    assert mc.qtype == "multichoice" and mc.name == "ZeRO stage 1" and mc.idnumber == "zero-1"
    assert [a.fraction for a in mc.answers] == [Fraction(1), Fraction(0)]
    sa = mx.questions[2]
    # Moodle's \\* is a literal asterisk; the reader keeps Moodle's text.
    assert [a.text.text for a in sa.answers] == ["FSDP", "ZeRO\\*"]


def _one(body: str, qtype: str = "multichoice", name: str = "<name><text>n</text></name>") -> bytes:
    text = "<questiontext format='html'><text>Stem</text></questiontext>"
    return f"<quiz><question type='{qtype}'>{name}{text}{body}</question></quiz>".encode()


@pytest.mark.parametrize(
    ("body", "single", "shuffle"),
    [
        ("", True, False),  # Moodle's defaults: single-answer, not shuffled
        ("<single>0</single><shuffleanswers>1</shuffleanswers>", False, True),
        ("<single></single><shuffleanswers>true</shuffleanswers>", False, True),
        ("<single>yes</single><shuffleanswers>no way</shuffleanswers>", True, True),
    ],
)
def test_single_and_shuffle_as_trans_single_reads_them(body: str, single: bool, shuffle: bool) -> None:
    answers = "<answer fraction='100'><text>a</text></answer><answer fraction='0'><text>b</text></answer>"
    if not single:
        answers = (
            "<answer fraction='100'><text>a</text></answer><answer fraction='-100'><text>b</text></answer>"
        )
    (q,) = read_moodlexml(_one(body + answers), "x.xml").questions
    assert (q.single, q.shuffle) == (single, shuffle)


def test_single_false_is_read_as_moodle_reads_it() -> None:
    """`<single>False</single>` is single-answer to Moodle (trans_single()): a 75/25 question is
    then a single choice without a 100 % answer, which Moodle imports with a notice."""
    body = (
        "<single>False</single><shuffleanswers>FALSE</shuffleanswers><answer fraction='75'><text>2</text>"
        "</answer><answer fraction='25'><text>4</text></answer><answer fraction='0'><text>5</text></answer>"
    )
    quiz, warnings = read_quiz(_one(body), "x.xml")
    assert quiz.questions[0].body == SingleChoice((Choice("2", 0.75), Choice("4", 0.25), Choice("5", 0.0)))
    assert sorted(d.rule for d in warnings) == [
        "moodlexml.false-is-true",
        "moodlexml.false-is-true",
        "moodlexml.no-full-credit",
    ]


def test_matching_is_shuffled_unless_it_says_otherwise() -> None:
    subs = "".join(
        f"<subquestion><text>{i}</text><answer><text>{i}{i}</text></answer></subquestion>" for i in "ab"
    )
    (q,) = read_moodlexml(_one(subs, "match"), "x.xml").questions
    assert q.shuffle is True


def test_true_false_old_style_texts_are_taken_in_order() -> None:
    body = (
        "<answer fraction='0'><text>Wahr</text></answer><answer fraction='100'><text>Falsch</text></answer>"
    )
    quiz, warnings = read_quiz(_one(body, "truefalse"), "x.xml")
    assert quiz.questions[0].body == TrueFalse(False)
    assert [d.rule for d in warnings] == ["moodlexml.truefalse-texts"]


def test_true_false_last_answer_decides() -> None:
    body = (
        "<answer fraction='100'><text>true</text></answer><answer fraction='100'><text>false</text></answer>"
    )
    quiz, _ = read_quiz(_one(body, "truefalse"), "x.xml")
    assert quiz.questions[0].body == TrueFalse(False)


def test_weights_not_adding_to_100_are_warned_about() -> None:
    body = (
        "<single>false</single><answer fraction='50'><text>a</text></answer>"
        "<answer fraction='20'><text>b</text></answer><answer fraction='0'><text>c</text></answer>"
    )
    quiz, warnings = read_quiz(_one(body), "x.xml")
    # The file's own credits, as Moodle grades them.
    assert quiz.questions[0].body == MultipleChoice((Choice("a", 0.5), Choice("b", 0.2), Choice("c", 0.0)))
    assert [d.rule for d in warnings] == ["moodlexml.weights-sum"]


def test_default_credits_as_moodle_stores_them_read_back_exactly() -> None:
    """1/3 is stored as 33.33333 %, and 1/11 as Moodle's nearest grade 10 %: the default credits
    of the right and wrong choices come back as the exact fractions."""
    thirds = "".join(f"<answer fraction='33.33333'><text>{c}</text></answer>" for c in "abc")
    quiz, _ = read_quiz(
        _one("<single>false</single>" + thirds + "<answer fraction='-100'><text>d</text></answer>"), "x.xml"
    )
    body = quiz.questions[0].body
    assert isinstance(body, MultipleChoice) and body.credits == (1 / 3, 1 / 3, 1 / 3, -1.0)
    assert body.default_credits


@pytest.mark.parametrize(
    ("fractions", "rule"),
    [(("100", "100", "0"), "moodlexml.several-full-credit"), (("50", "0"), "moodlexml.no-full-credit")],
)
def test_single_choice_credits_moodle_imports_are_warnings(fractions: tuple[str, ...], rule: str) -> None:
    answers = "".join(f"<answer fraction='{f}'><text>{i}</text></answer>" for i, f in enumerate(fractions))
    quiz, warnings = read_quiz(_one(answers), "x.xml")
    body = quiz.questions[0].body
    assert isinstance(body, SingleChoice)
    assert body.credits == tuple(float(f) / 100 for f in fractions)
    assert [d.rule for d in warnings] == [rule]


def test_numerical_whose_best_key_is_partly_right_is_a_warning() -> None:
    body = (
        "<answer fraction='50'><text>3</text><tolerance>0.5</tolerance><feedback><text>Near</text></feedback>"
        "</answer><answer fraction='12.5'><text>30</text></answer>"
    )
    quiz, warnings = read_quiz(_one(body, "numerical"), "x.xml")
    assert quiz.questions[0].body == Numerical(
        keys=(
            NumericKey(answer=3.0, tolerance=0.5, credit=0.5, feedback="Near"),
            NumericKey(answer=30.0, credit=0.125),
        )
    )
    assert [(d.rule, d.message) for d in warnings] == [
        (
            "moodlexml.no-full-credit",
            "numerical question: no key earns full credit (the best earns 50%): Moodle imports it",
        )
    ]


def test_units_and_their_options() -> None:
    body = (
        "<answer fraction='100'><text>2</text><tolerance>0</tolerance></answer>"
        "<units><unit><multiplier>1</multiplier><unit_name>GB</unit_name></unit>"
        "<unit><multiplier>1000</multiplier><unit_name>MB</unit_name></unit>"
        "<unit><multiplier>5</multiplier><unit_name>GB</unit_name></unit>"  # a repeat: dropped
        "<unit><multiplier>0</multiplier><unit_name>KB</unit_name></unit></units>"  # no multiplier
        "<unitgradingtype>2</unitgradingtype><unitpenalty>0.25</unitpenalty><showunits>2</showunits>"
        "<unitsleft>1</unitsleft>"
    )
    quiz, warnings = read_quiz(_one(body, "numerical"), "x.xml")
    assert quiz.questions[0].body == Numerical(
        keys=(NumericKey(answer=2.0),),
        units=(Unit("GB"), Unit("MB", 1000.0)),
        unit_grading=UnitGrading.QUESTION,
        unit_penalty=0.25,
        unit_input=UnitInput.SELECT,
        units_left=True,
    )
    # Units Moodle does not use (showunits 3: only the number is graded) are no units.
    unused = body.replace("<showunits>2</showunits>", "<showunits>3</showunits>")
    assert read_quiz(_one(unused, "numerical"), "x.xml")[0].questions[0].body == Numerical(
        keys=(NumericKey(answer=2.0),)
    )
    assert warnings == []


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("FS*P", Answer("FS*P", wildcard=True)),
        ("FS\\*P", Answer("FS*P")),
        ("*", Answer("*", wildcard=True)),
        ("a\\\\*", Answer("a\\*")),
    ],
)
def test_short_answer_wildcards_as_moodle_compares_them(text: str, answer: Answer) -> None:
    body = f"<answer fraction='100'><text>{text}</text></answer>"
    quiz, _ = read_quiz(_one(body, "shortanswer"), "x.xml")
    assert quiz.questions[0].body == ShortAnswer((answer,))


def test_penalties() -> None:
    answers = "<answer fraction='100'><text>a</text></answer><answer fraction='0'><text>b</text></answer>"
    for raw, penalty in [("0.3333333", None), ("0.333", None), ("0.5", 0.5), ("0", 0.0), ("2", 1.0)]:
        quiz, _ = read_quiz(_one(f"<penalty>{raw}</penalty>" + answers), "x.xml")
        assert quiz.questions[0].penalty == penalty, raw
    tf = "<penalty>1.0000000</penalty><answer fraction='100'><text>true</text></answer>"
    assert read_quiz(_one(tf, "truefalse"), "x.xml")[0].questions[0].penalty is None


def test_what_moodle_ignores_is_ignored_in_a_file_from_elsewhere() -> None:
    """Feedback by outcome and hints' options of a true/false question, and an essay's hints:
    Moodle's importer does not read them (lmsexport's own files keep them)."""
    tf = (
        "<answer fraction='100'><text>true</text></answer><answer fraction='0'><text>false</text></answer>"
        "<correctfeedback><text>Yes</text></correctfeedback>"
        "<hint><text>Think</text><shownumcorrect/></hint>"
    )
    quiz, warnings = read_quiz(_one(tf, "truefalse"), "x.xml")
    q = quiz.questions[0]
    assert (q.feedback, q.hints) == (OutcomeFeedback(), (Hint("Think"),))
    assert [d.rule for d in warnings] == ["moodlexml.ignored", "moodlexml.ignored"]
    quiz, warnings = read_quiz(_one("<hint><text>Think</text></hint>", "essay"), "x.xml")
    assert quiz.questions[0].hints == () and [d.rule for d in warnings] == ["moodlexml.ignored"]


def test_a_category_named_nothing_is_no_category() -> None:
    answers = "<answer fraction='100'><text>a</text></answer><answer fraction='0'><text>b</text></answer>"
    for path in ("$course$/top/", ""):
        category = f"<question type='category'><category><text>{path}</text></category></question>"
        data = _one(answers).replace(b"<quiz>", b"<quiz>" + category.encode())
        quiz, _ = read_quiz(data, "c.xml")
        assert (quiz.category, quiz.title) == (None, "c")


def test_id_numbers() -> None:
    answers = "<answer fraction='100'><text>a</text></answer><answer fraction='0'><text>b</text></answer>"
    quiz, warnings = read_quiz(_one("<idnumber> spaced </idnumber>" + answers), "x.xml")
    assert quiz.questions[0].id == "q1"
    assert [d.rule for d in warnings] == ["moodlexml.idnumber-space", "moodlexml.bad-id"]


def test_category_paths_as_split_category_path_reads_them() -> None:
    assert split_category_path("$course$/top/a//b/c") == ["a/b", "c"]
    assert split_category_path("top/ //x") == ["/x"]
    assert split_category_path("$cat1$/top/Default") == ["Default"]
    assert split_category_path("plain") == ["plain"]


def test_numerical_range_comment_is_used_only_when_the_visible_key_matches() -> None:
    body = (
        '<!-- lmsexport: {"range": [1, 3], "answer": 1.5} -->'
        "<answer fraction='100'><text>{}</text><tolerance>1</tolerance></answer>"
    )
    good, _ = read_quiz(_one(body.replace("{}", "2"), "numerical"), "x.xml")
    assert good.questions[0].body == Numerical(keys=(NumericKey(answer=1.5, low=1.0, high=3.0),))
    tampered, _ = read_quiz(_one(body.replace("{}", "5"), "numerical"), "x.xml")
    assert tampered.questions[0].body == Numerical(keys=(NumericKey(answer=5.0, tolerance=1.0),))


def test_bad_metadata_values_are_ignored() -> None:
    meta = '<!-- lmsexport-quiz: {"id": "not an id", "lang": 7, "difficulty": "extreme", "shuffle": "no"} -->'
    answers = "<answer fraction='100'><text>a</text></answer><answer fraction='0'><text>b</text></answer>"
    data = _one(answers).replace(b"<quiz>", b"<quiz>" + meta.encode())
    quiz, _ = read_quiz(data, "safe.xml")
    # No valid value: read as a foreign file (not shuffled: Moodle's multichoice default).
    assert (quiz.id, quiz.lang, quiz.difficulty, quiz.shuffle) == ("safe", "und", None, False)


def test_refusals_raise_with_every_error() -> None:
    with pytest.raises(MoodleXmlError) as e:
        read_quiz(_one("<answer fraction='12'><text>a</text></answer>", name=""), "x.xml")
    assert sorted(d.rule for d in e.value.diagnostics) == [
        "moodlexml.bad-grade",
        "moodlexml.no-name",
        "moodlexml.too-few-answers",
    ]


def test_size_limit_is_checked_before_parsing() -> None:
    quiz, diags = read_quiz_bytes(b" " * (MAX_MOODLEXML_BYTES + 1), "big.xml")
    assert quiz is None
    assert [d.rule for d in diags] == ["moodlexml.too-large"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300) | st.text(st.sampled_from(list("<>/=\"' ?!&;[]quizetionamx-")), max_size=300))
def test_any_input_gets_diagnostics_never_an_exception(data: bytes | str) -> None:
    raw = data.encode() if isinstance(data, str) else data
    quiz, diags = read_quiz_bytes(raw, "fuzz.xml")
    assert quiz is not None or any(d.severity.value == "error" for d in diags)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(MOODLE_EXPORT) - 1), st.binary(min_size=1, max_size=8))
def test_a_damaged_export_gets_diagnostics_never_an_exception(at: int, junk: bytes) -> None:
    data = MOODLE_EXPORT[:at] + junk + MOODLE_EXPORT[at + len(junk) :]
    quiz, diags = read_quiz_bytes(data, "damaged.xml")
    assert quiz is not None or any(d.severity.value == "error" for d in diags)


@pytest.mark.parametrize("number", ["1e999", "9" * 5000, "-1e999"])
def test_numbers_beyond_a_float_are_not_numbers(number: str) -> None:
    body = f"<defaultgrade>{number}</defaultgrade><answer fraction='{number}'><text>{number}</text></answer>"
    quiz, diags = read_quiz_bytes(_one(body, "numerical"), "n.xml")
    assert quiz is None
    assert {d.rule for d in diags} == {"moodlexml.not-a-number", "moodlexml.bad-fraction"}
