"""The HTML quiz and issue 22's elements, without a browser: partial credits, per-answer and
combined feedback, hints and their cost, numerical units, essay options, question names.

The bank is tests/cases/credits/credits.yaml (every new source key) plus small quizzes built
here for what it does not hold; tests/test_html_browser.py answers the same pages in Chromium.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import lxml.html
import pytest
from test_html_writer import REPO, page_data, parse, template_texts, visible_text

from lmsexport.model import (
    Answer,
    Bank,
    BulletList,
    Calculated,
    CalculatedChoice,
    Choice,
    Cloze,
    Description,
    Draw,
    Essay,
    Hint,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    OrderedList,
    Ordering,
    OutcomeFeedback,
    Pair,
    Para,
    Question,
    Quiz,
    ResponseFormat,
    Rich,
    Section,
    ShortAnswer,
    SingleChoice,
    Str,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
    plain_text,
)
from lmsexport.source import load_paths
from lmsexport.writers import WriteContext
from lmsexport.writers.html import JS_UI_KEYS, render_assessment, render_quiz, template_text, write

CASE = Path(__file__).resolve().parent / "cases" / "credits"


def credits_quiz() -> Quiz:
    (quiz,) = load_paths([CASE / "credits.yaml"]).quizzes
    return quiz


def question_of(quiz: Quiz, qid: str) -> Question:
    return next(q for q in quiz.questions if q.id == qid)


def data_of(page: str) -> dict[str, dict]:
    return {q["id"]: q for q in page_data(parse(page))["questions"]}


@pytest.fixture(scope="module")
def page() -> str:
    return render_quiz(credits_quiz())


def test_golden(page: str, golden) -> None:
    golden(CASE / "expected" / "html" / "credits.html", page)


# --- what the script gets: credits, keys, units, hints, in the JSON data block --------------


def test_choice_credits_and_feedback(page: str) -> None:
    data = data_of(page)
    single = data["cr-zero3-memory"]
    # Two full-credit keys, a third of the credit, a penalty, nothing.
    assert single["correct"] == [0, 1]
    assert single["credit"] == [1.0, 1.0, 1 / 3, -0.5, 0.0]
    assert single["feedback"] == [f"q1-f{i}" for i in range(5)]
    assert single["outcome"] == {"correct": "q1-oc", "partial": "q1-op", "incorrect": "q1-oi"}
    assert "numCorrect" not in single, "single choice has no count of right picks (Moodle neither)"
    multiple = data["cr-zero2-partitioned"]
    assert multiple["credit"] == [0.25, 0.25, 0.25, 0.25, -0.5, -0.25]
    assert multiple["correct"] == [0, 1, 2, 3]
    assert multiple["numCorrect"] is True
    true_false = data["cr-offload-cpu-adam"]
    assert true_false["feedback"] == ["q3-f0", "q3-f1"]


def test_short_answer_data(page: str) -> None:
    short = data_of(page)["cr-offload-config-key"]
    assert short["answers"] == [
        "offload_optimizer",
        "zero_optimization.offload_optimizer",
        "cpu_offload",
        "offload_param*",
    ]
    assert short["credit"] == [1.0, 1.0, 0.5, 0.0]
    assert short["wildcard"] == [False, False, False, True]
    assert short["feedback"] == [None, "q4-a1", "q4-a2", "q4-a3"]
    assert short["other"] == "q4-o"
    assert short["caseSensitive"] is True


def test_numerical_keys_and_units(page: str) -> None:
    data = data_of(page)
    memory = data["cr-zero3-7b-memory"]
    assert [k["credit"] for k in memory["keys"]] == [1.0, 0.5, 0.0]
    assert [k["feedback"] for k in memory["keys"]] == ["q5-k0", "q5-k1", "q5-k2"]
    assert memory["keys"][1]["bounds"] == [1.39, 1.42]
    assert "bounds" not in memory, "one way to give the keys"
    assert memory["units"] == [["GB", 1.0], ["MB", 1000.0], ["GiB", 0.9313225746]]
    assert (memory["unitGrading"], memory["unitPenalty"], memory["unitInput"], memory["unitsLeft"]) == (
        "response", 0.2, "select", False,
    )  # fmt: skip
    assert memory["keyText"] == "1.875 ± 0.03 GB"
    bubble = data["cr-bubble-cost"]
    assert bubble["keyText"] == "$ 3000 ± 1", "the unit on the side the question puts it"
    assert (bubble["unitGrading"], bubble["unitInput"], bubble["unitsLeft"]) == ("question", "text", True)


def test_hints_data_and_penalty(page: str) -> None:
    data = data_of(page)
    single = data["cr-zero3-memory"]
    assert single["hints"] == [
        {"id": "q1-h0", "numCorrect": False, "clearWrong": False},
        {"id": "q1-h1", "numCorrect": False, "clearWrong": True},
    ]
    assert single["penalty"] == 0.25
    # No penalty in the source: Moodle's default, a third.
    assert data["cr-offload-config-key"]["penalty"] == 1 / 3
    assert "hints" not in data["cr-offload-cpu-adam"] and "penalty" not in data["cr-offload-cpu-adam"]


def test_essay_data(page: str) -> None:
    essay = data_of(page)["cr-zero-or-tp-essay"]
    assert (essay["minWords"], essay["maxWords"]) == (60, 250)


def test_ui_strings_only_for_features_on_the_page(page: str) -> None:
    ui = page_data(parse(page))["ui"]
    assert {"hint_penalty", "num_correct", "words", "too_few_words", "too_many_words"} <= set(ui)
    plain = page_data(parse(render_quiz(Quiz(id="p", title="p", lang="ur", questions=(
        Question(id="q", stem="s", body=TrueFalse(True)),)))))["ui"]  # fmt: skip
    assert "hint_penalty" not in plain and "words" not in plain


# --- what waits in templates, and what is never in the page --------------------------------


def test_every_feedback_and_hint_waits_in_a_template(page: str) -> None:
    quiz = credits_quiz()
    doc = parse(page)
    texts = template_texts(doc)
    single = question_of(quiz, "cr-zero3-memory")
    assert isinstance(single.body, SingleChoice)
    for i, c in enumerate(single.body.choices):
        assert texts[f"q1-f{i}"] == c.feedback
    assert (texts["q1-oc"], texts["q1-op"], texts["q1-oi"]) == (
        single.feedback.correct, single.feedback.partial, single.feedback.incorrect,
    )  # fmt: skip
    # Each hint under its heading, in the UI's language (the quiz's, Urdu).
    assert texts["q1-h0"] == "اشارہ 1 از 2" + single.hints[0].text
    assert texts["q1-h1"] == "اشارہ 2 از 2" + single.hints[1].text
    (english_hint,) = doc.xpath('//template[@id="q2-h0"]')
    label = english_hint[0][0]
    assert (label.get("lang"), label.get("dir")) == ("ur", "rtl"), "Urdu UI heading in an English question"
    tf = question_of(quiz, "cr-offload-cpu-adam")
    assert isinstance(tf.body, TrueFalse)
    assert (texts["q3-f0"], texts["q3-f1"]) == (tf.body.feedback_true, tf.body.feedback_false)
    short = question_of(quiz, "cr-offload-config-key")
    assert isinstance(short.body, ShortAnswer)
    assert texts["q4-a2"] == short.body.answers[2].feedback and "q4-a0" not in texts
    assert texts["q4-o"] == short.body.other_feedback
    numerical = question_of(quiz, "cr-zero3-7b-memory")
    assert isinstance(numerical.body, Numerical)
    assert [texts[f"q5-k{i}"] for i in range(3)] == [k.feedback for k in numerical.body.keys]
    assert texts["q5-o"] == numerical.body.other_feedback
    # None of it is in the document before the script clones it.
    shown = visible_text(doc)
    for text in texts.values():
        assert text not in shown


def test_grader_info_and_names_never_in_the_page(page: str) -> None:
    """grader_info is for the person grading; a question's name is its name in the bank (an
    LMS shows it to teachers, never in a learner's attempt, and names often say the answer),
    so the learner's page holds neither, not even in an attribute."""
    quiz = credits_quiz()
    essay = question_of(quiz, "cr-zero-or-tp-essay")
    assert isinstance(essay.body, Essay) and essay.body.grader_info
    assert isinstance(essay.body.grader_info, str)
    assert essay.body.grader_info not in page
    assert essay.body.grader_info[:40] not in page
    names = [q.name for q in quiz.questions if q.name]
    assert len(names) == len(quiz.questions)
    for name in names:
        assert name not in page, name
    bare = tuple(
        replace(q, name=None, body=replace(q.body, grader_info=None) if isinstance(q.body, Essay) else q.body)
        for q in quiz.questions
    )
    assert render_quiz(replace(quiz, questions=bare)) == page


def test_csp_stays_strict(page: str) -> None:
    doc = parse(page)
    (csp,) = doc.xpath('//meta[@http-equiv="Content-Security-Policy"]/@content')
    assert "unsafe" not in csp and "default-src 'none'" in csp
    assert [s.get("type") for s in doc.xpath("//script")] == ["application/json", None]
    assert not doc.xpath("//@style | //@*[starts-with(name(), 'on')] | //link")


# --- the controls -------------------------------------------------------------------------


def test_hint_button_says_what_a_hint_costs(page: str) -> None:
    doc = parse(page)
    buttons = {
        s.get("data-question-id"): s.xpath(".//button[@data-action='hint']")
        for s in doc.xpath("//section[@data-question-id]")
    }
    assert [b.text_content() for b in buttons["cr-zero3-memory"]] == ["اشارہ دیکھیں (0.25 نمبر کی کٹوتی)"]
    # 1/3 of a point; the multiple choice question: a tenth of its 2 points; matching: 0.2 of 4.
    assert buttons["cr-offload-config-key"][0].text_content() == "اشارہ دیکھیں (0.33 نمبر کی کٹوتی)"
    assert buttons["cr-zero2-partitioned"][0].text_content() == "اشارہ دیکھیں (0.2 نمبر کی کٹوتی)"
    assert buttons["cr-parallelism-comm"][0].text_content() == "اشارہ دیکھیں (0.8 نمبر کی کٹوتی)"
    assert buttons["cr-offload-cpu-adam"] == [], "no hints, no button"
    for section in doc.xpath("//section[.//button[@data-action='hint']]"):
        (region,) = section.xpath(".//*[@data-role='hints']")
        assert region.get("aria-live") == "polite" and len(region) == 0
        (action,) = section.xpath(".//*[@data-role='hint-action']")
        assert action.get("hidden") is not None, "a hint needs the script: hidden without it"
        assert action.getparent().tag == "fieldset", "in the question: locked with it once submitted"
    # An assessment's draw that sets points: the cost follows them.
    quiz = credits_quiz()
    exam = _assessment(quiz, points=3.0)
    doc = parse(render_assessment(exam))
    (button,) = doc.xpath("//section[@data-question-id='cr-zero3-memory']//button[@data-action='hint']")
    assert button.text_content() == "اشارہ دیکھیں (0.75 نمبر کی کٹوتی)"


def _assessment(quiz: Quiz, points: float | None = None):
    from lmsexport.model import Assessment, Candidate

    candidates = tuple(Candidate(quiz.header, q) for q in quiz.questions)
    draw = Draw(name="all", ids=tuple(q.id for q in quiz.questions), points=points, candidates=candidates)
    return Assessment(id="exam", title="exam", lang="ur", sections=(Section(draws=(draw,)),))


def _numerical(unit_input: UnitInput, units_left: bool = False) -> Question:
    return Question(
        id=f"n-{unit_input.value}-{units_left}",
        stem="ہر GPU پر کتنی میموری؟",
        body=Numerical(
            keys=(NumericKey(answer=16),),
            units=(Unit("GB"), Unit("MB", 1000)),
            unit_grading=UnitGrading.RESPONSE,
            unit_input=unit_input,
            units_left=units_left,
        ),
    )


def units_quiz() -> Quiz:
    questions = tuple(_numerical(u, left) for u in UnitInput for left in (False, True))
    return Quiz(id="units", title="اکائیاں", lang="ur", questions=questions)


def test_unit_controls() -> None:
    doc = parse(render_quiz(units_quiz()))
    sections = {s.get("data-question-id"): s for s in doc.xpath("//section[@data-question-id]")}
    # Typed with the number: one text box, without the numeric keyboard (a unit is letters).
    text = sections["n-text-False"]
    (field,) = text.xpath(".//input[@data-role='answer-input']")
    assert field.get("inputmode") is None
    assert not text.xpath(".//select | .//input[@type='radio']")
    # A list beside the number, both left to right, the list after it or (units left) before it.
    select = sections["n-select-False"]
    (group,) = select.xpath(".//span[@class='with-unit']")
    assert group.get("dir") == "ltr"
    assert [c.tag for c in group] == ["input", "select"]
    assert [c.tag for c in sections["n-select-True"].xpath(".//span[@class='with-unit']")[0]] == [
        "select", "input",
    ]  # fmt: skip
    (unit_select,) = select.xpath(".//select")
    assert [o.text_content() for o in unit_select] == ["منتخب کریں…", "GB", "MB"]
    assert [o.get("value") for o in unit_select] == ["", "0", "1"]
    assert select.xpath(f"string(.//label[@for='{unit_select.get('id')}'])") == "اکائی"
    assert group[0].get("inputmode") == "decimal"
    # Radio buttons: a group of its own, named "Unit", each unit isolated from the Urdu around it.
    choice = sections["n-choice-False"]
    (units,) = choice.xpath(".//fieldset[@data-role='unit-choices']")
    assert units.findtext("legend") == "اکائی"
    assert [i.get("data-unit-index") for i in units.xpath(".//input[@type='radio']")] == ["0", "1"]
    assert [b.text_content() for b in units.iter("bdi")] == ["GB", "MB"]
    assert len({i.get("name") for i in units.xpath(".//input")}) == 1
    answer = choice.xpath(".//div[@class='answer']")[0]
    assert [c.tag for c in answer][1:] == ["input", "fieldset"]
    left = sections["n-choice-True"].xpath(".//div[@class='answer']")[0]
    assert [c.tag for c in left][1:] == ["fieldset", "input"]
    # Every control labelled.
    for control in doc.xpath("//input | //select | //textarea"):
        labelled = (
            control.getparent().tag == "label"
            or doc.xpath(f"//label[@for='{control.get('id')}']")
            or control.get("type") == "radio"
        )
        assert labelled, lxml.html.tostring(control)


def essays_quiz() -> Quiz:
    template = Rich(
        (
            Para((Str("Structure:"),)),
            BulletList(((Para((Str("claim"),)),), (Para((Str("evidence"),)),))),
            OrderedList(((Para((Str("first"),)),),), 3),
        )
    )
    return Quiz(
        id="essays",
        title="Essays",
        lang="en",
        questions=(
            Question(
                id="e-plain", stem="Plain", body=Essay(ResponseFormat.PLAIN, template="\nline 1\nline 2")
            ),
            Question(
                id="e-mono", stem="Code", body=Essay(ResponseFormat.MONOSPACED, lines=8, required=False)
            ),
            Question(id="e-none", stem="Files", body=Essay(ResponseFormat.NONE, grader_info="GRADER-ONLY")),
            Question(id="e-rich", stem="Rich", body=Essay(template=template, min_words=10)),
            Question(id="e-default", stem="Default", body=Essay()),
        ),
    )


def test_essay_boxes() -> None:
    doc = parse(render_quiz(essays_quiz()))
    boxes = {s.get("data-question-id"): s for s in doc.xpath("//section[@data-question-id]")}
    # The template pre-fills the box after a line break, which an HTML parser drops (libxml2's
    # keeps it), so that the template's own leading line break survives.
    (plain,) = boxes["e-plain"].iter("textarea")
    assert plain.text == "\n" + "\nline 1\nline 2"
    assert plain.get("class") is None and plain.get("aria-describedby") is None
    (mono,) = boxes["e-mono"].iter("textarea")
    assert (mono.get("class"), mono.get("rows")) == ("mono", "8")
    assert boxes["e-mono"].xpath("string(.//label)") == "Your answer (optional)"
    # No text answer: no box, a note instead (and never the grader's information).
    assert not boxes["e-none"].xpath(".//textarea | .//input")
    assert boxes["e-none"].xpath("string(.//p[contains(@class, 'no-box')])").startswith("No typed answer")
    # A Markdown template as a person would type it; word limits shown and linked to the box.
    (rich,) = boxes["e-rich"].iter("textarea")
    assert rich.text == "\nStructure:\n\n- claim\n- evidence\n\n3. first"
    (count,) = boxes["e-rich"].xpath(".//p[@class='word-count']")
    assert rich.get("aria-describedby") == count.get("id")
    assert count.xpath("string(span[@class='limits'])") == "at least 10 words"
    assert count.xpath(".//*[@data-role='word-count']")[0].text_content() == ""
    # Today's essay: today's box.
    (default,) = boxes["e-default"].iter("textarea")
    assert (default.get("rows"), default.text, default.get("class")) == ("6", None, None)


def test_template_text() -> None:
    assert template_text("as typed\n  kept") == "as typed\n  kept"
    nested = Rich((BulletList(((Para((Str("a"),)), BulletList(((Para((Str("b"),)),),))),)),))
    assert template_text(nested) == "- a\n  - b"
    assert plain_text(nested) == "a\nb"


def test_word_limits_in_urdu(page: str) -> None:
    doc = parse(page)
    (count,) = doc.xpath("//section[@data-question-id='cr-zero-or-tp-essay']//p[@class='word-count']")
    assert count.xpath("string(span[@class='limits'])") == "کم از کم 60 الفاظ · زیادہ سے زیادہ 250 الفاظ"
    (box,) = doc.xpath("//section[@data-question-id='cr-zero-or-tp-essay']//textarea")
    essay = question_of(credits_quiz(), "cr-zero-or-tp-essay").body
    assert isinstance(essay, Essay)
    assert (
        box.text == "\n" + essay.template == "\nمیرا انتخاب:\nمیموری کے لحاظ سے وجہ:\nمواصلات کے لحاظ سے وجہ:"
    )
    assert box.get("rows") == "10"


# --- today's bank: the same data -------------------------------------------------------------

KEYS_BEFORE = {
    "single": {"correct", "credit", "feedback"},
    "multiple": {"correct", "credit", "feedback"},
    "true_false": {"correct", "credit", "feedback"},
    "short_answer": {"answers", "caseSensitive"},
    "numerical": {"bounds", "keyText"},
    "matching": {"key", "options"},
    "essay": set(),
}
"""What each kind's data held before issue 22."""
COMMON = {"id", "type", "points", "lang", "dir", "explanation", "shuffle"}


def _uses_new_elements(q: Question) -> bool:
    """Whether a question has any element whose data issue 22 added."""
    b = q.body
    match b:
        case TrueFalse():
            extra = bool(b.feedback_true or b.feedback_false)
        case ShortAnswer():
            extra = bool(b.other_feedback) or any(
                a.feedback or a.wildcard or a.credit != 1 for a in b.answers
            )
        case Numerical():
            extra = bool(b.units or b.other_feedback or len(b.keys) > 1)
            extra = extra or bool(b.keys[0].feedback) or b.keys[0].credit != 1
        case Essay():
            extra = b.min_words is not None or b.max_words is not None
        case Cloze() | Ordering() | Description() | Calculated() | CalculatedChoice():
            extra = True  # issue 23's and 24's kinds: their data is new altogether
        case _:
            extra = False
    return extra or bool(q.hints or q.feedback)


def test_questions_without_the_new_elements_keep_their_data() -> None:
    """The repository's bank (which uses none of issue 22's elements) gets the same data block
    as before: every new key is left out where a question does not use the element, and the
    UI strings the new elements need are only on pages that have them."""
    bank = load_paths([str(REPO / "source")])
    plain = {q.id for quiz in bank.quizzes for q in quiz.questions if not _uses_new_elements(q)}
    out = write(bank, WriteContext(formats=("html",)))
    for path, data in out.files.items():
        if path == "index.html":
            continue
        block = page_data(parse(data))
        for q in block["questions"]:
            if q["id"] in plain:
                assert set(q) == COMMON | KEYS_BEFORE[q["type"]], (path, q["id"])
        if not any(q["id"] not in plain for q in block["questions"]):
            assert set(block["ui"]) == set(JS_UI_KEYS)
        committed = subprocess.run(
            ["git", "show", f"HEAD:dist/{path}"], cwd=REPO, capture_output=True, check=False
        )
        if committed.returncode == 0:
            assert page_data(parse(committed.stdout)) == block, path


def test_every_new_element_in_one_quiz_built_in_python() -> None:
    """The elements the credits bank does not hold: a wildcard answer with a literal star,
    negative credits only, a question penalty of 0, combined feedback without hints."""
    quiz = Quiz(
        id="py",
        title="py",
        lang="en",
        questions=(
            Question(
                id="star",
                stem="s",
                body=ShortAnswer((Answer("a*b"), Answer(r"x\*y*", 0.5, wildcard=True))),
                penalty=0.0,
                hints=(Hint("h"),),
            ),
            Question(
                id="neg",
                stem="n",
                body=SingleChoice((Choice("k", 1.0), Choice("bad", -1.0, feedback="costly"))),
                feedback=OutcomeFeedback(incorrect="no", show_num_correct=True),
            ),
            Question(
                id="match",
                stem="m",
                body=Matching((Pair("l1", "r1"), Pair("l2", "r2"))),
                feedback=OutcomeFeedback(show_num_correct=True),
            ),
            Question(id="multi", stem="m", body=MultipleChoice((Choice("a", 0.5), Choice("b", 0.5)))),
        ),
    )
    page = render_quiz(quiz)
    data = data_of(page)
    assert data["star"]["wildcard"] == [False, True] and data["star"]["answers"] == ["a*b", r"x\*y*"]
    assert data["star"]["penalty"] == 0.0
    assert parse(page).xpath("string(//button[@data-action='hint'])") == "Show a hint (costs 0 points)"
    assert data["neg"]["outcome"] == {"incorrect": "q2-oi"} and "numCorrect" not in data["neg"]
    assert data["match"]["numCorrect"] is True and "outcome" not in data["match"]
    assert template_texts(parse(page))["q2-oi"] == "no"
    assert data["multi"]["correct"] == [0, 1]
    assert page_data(parse(page))["ui"]["num_correct"] == "{n} of {total} right"
    assert Bank((quiz,))
