"""Cloze, ordering and description questions in the HTML quiz, without a browser: golden pages of
the structured case, what the page holds before submitting (no key in the visible DOM), every
blank's name and direction, the ordering's start order and buttons, descriptions unnumbered,
and the page's optional code (pages without these kinds carry exactly what they carried before).
tests/test_html_structured_browser.py runs the same pages in Chromium."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import lxml.html
import pytest
from conftest import make_types_quiz
from hypothesis import HealthCheck, given, settings
from strategies import quizzes
from test_html_writer import page_data, parse, visible_text

from lmsexport.model import (
    Answer,
    BulletList,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    Gap,
    Layout,
    Math,
    NumberBlank,
    Numbering,
    NumericKey,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    OutcomeFeedback,
    Para,
    Question,
    Quiz,
    Rich,
    SingleChoice,
    Str,
    Table,
    TextBlank,
    has_math,
    plain_text,
)
from lmsexport.scoring import key_interval
from lmsexport.source import load_paths
from lmsexport.writers import WriteContext
from lmsexport.writers.html import (
    JS_UI_FEATURE_KEYS,
    UI_STRINGS,
    _select_lines,
    render_quiz,
    write,
)

CASE = Path(__file__).resolve().parent / "cases" / "structured"
PAGES = ("structured", "structured-plain", "structured-exam")


def structured_bank():
    return load_paths([CASE])


def case_quiz() -> Quiz:
    return next(q for q in structured_bank().quizzes if q.id == "structured")


def _p(*xs) -> Para:
    return Para(tuple(xs))


def model_quiz(lang: str = "ur") -> Quiz:
    """Every widget of the new kinds, built in Python: a description first, an Urdu cloze with a
    number, a drop-down and a text blank (weight 2, a wildcard), an English cloze with vertical,
    horizontal-multiple and number blanks in a list and a table, orderings (vertical with 123
    numbering, horizontal with a contiguous subset)."""
    description = Question(
        id="m-intro",
        stem=Rich((_p(Str("اگلے سوال 64 GPU کے کلسٹر پر ہیں: "), Math("N = 8 \\times 8")),)),
        body=Description(),
        points=0,
        explanation="ہر نوڈ میں 8 GPU ہیں۔",
    )
    cloze_ur = Question(
        id="m-cloze-ur",
        stem=Rich(
            (
                _p(
                    Str("p = 4 اسٹیجز اور m = 12 مائیکرو بیچز کے ساتھ ببل کا حصہ "),
                    Gap(1),
                    Str(" ہے، اور جو شیڈول ایکٹیویشن میموری محدود رکھتا ہے وہ "),
                    Gap(2),
                    Str(" ہے۔ آپٹیمائزر اسٹیٹس، گریڈینٹس اور پیرامیٹرز سب کو تقسیم کرنے والا مرحلہ "),
                    Gap(3),
                    Str(" ہے۔"),
                ),
            )
        ),
        body=Cloze(
            (
                NumberBlank(
                    (
                        NumericKey(answer=0.2, tolerance=0.005, feedback="(p-1)/(m+p-1) = 3/15"),
                        NumericKey(low=0.245, high=0.255, credit=0.5, feedback="یہ (p-1)/m ہے"),
                    ),
                    other_feedback="کل وقت m + p - 1 ہے",
                ),
                ChoiceBlank(
                    (
                        Choice("1F1B", credit=1.0, feedback="درست: ایک فارورڈ، ایک بیک ورڈ"),
                        Choice("GPipe", feedback="GPipe تمام ایکٹیویشنز رکھتا ہے"),
                    ),
                    shuffle=True,
                ),
                TextBlank(
                    (
                        Answer("ZeRO-3"),
                        Answer("ZeRO stage 3"),
                        Answer("ZeRO*", credit=0.5, wildcard=True, feedback="کون سا مرحلہ؟"),
                    ),
                    other_feedback="ZeRO-3 پیرامیٹرز بھی تقسیم کرتا ہے",
                    weight=2,
                ),
            )
        ),
        feedback=OutcomeFeedback(correct="شاباش", partial="کچھ درست", incorrect="دوبارہ پڑھیں"),
        explanation="ببل کا حصہ (p-1)/(m+p-1) ہے۔",
        points=3,
    )
    cloze_en = Question(
        id="m-cloze-en",
        lang="en",
        stem=Rich(
            (
                _p(Str("ZeRO-Offload keeps the optimizer states on the "), Gap(1), Str(".")),
                BulletList(((_p(Str("ZeRO-3 also shards: "), Gap(2)),),)),
                Table(
                    header=((Str("setting"),), (Str("value"),)),
                    rows=(((Str("tensor parallel degree in a node"),), (Gap(3),)),),
                    aligns=(None, None),
                ),
            )
        ),
        body=Cloze(
            (
                ChoiceBlank(
                    (
                        Choice("CPU", credit=1.0),
                        Choice("GPU", credit=-0.5, feedback="No."),
                        Choice("NVMe", 0.5),
                    ),
                    display=ChoiceDisplay.VERTICAL,
                ),
                ChoiceBlank(
                    (
                        Choice("parameters", credit=0.5),
                        Choice("gradients", credit=0.5),
                        Choice("nothing", -1.0),
                    ),
                    display=ChoiceDisplay.HORIZONTAL,
                    multiple=True,
                ),
                NumberBlank((NumericKey(answer=8),)),
            )
        ),
        hints=(),
    )
    single = Question(
        id="m-single",
        stem="ZeRO-1 کیا تقسیم کرتا ہے؟",
        body=SingleChoice((Choice("آپٹیمائزر اسٹیٹس", credit=1.0), Choice("پیرامیٹرز"))),
    )
    order = Question(
        id="m-order",
        stem="ZeRO کے مراحل کو کم سے زیادہ میموری بچت کی ترتیب میں لگائیں۔",
        body=Ordering(
            ("DDP", "ZeRO-1: آپٹیمائزر اسٹیٹس", "ZeRO-2: + گریڈینٹس", "ZeRO-3: + پیرامیٹرز"),
            grading=OrderingGrading.ABSOLUTE_POSITION,
            numbering=Numbering.DIGITS,
        ),
        points=2,
    )
    order_h = Question(
        id="m-order-h",
        lang="en",
        stem="Order one micro-batch's steps on two stages.",
        body=Ordering(
            ("forward stage 1", "forward stage 2", "backward stage 2", "backward stage 1", "optimizer step"),
            grading=OrderingGrading.RELATIVE_NEXT_INCLUDE_LAST,
            select=OrderingSelect.CONTIGUOUS,
            select_count=4,
            layout=Layout.HORIZONTAL,
            numbering=Numbering.ABC,
        ),
    )
    return Quiz(
        id=f"model-{lang}",
        title="کلوز اور ترتیب" if lang == "ur" else "Cloze and ordering",
        lang=lang,
        questions=(description, cloze_ur, single, order, cloze_en, order_h),
    )


@pytest.fixture(scope="module")
def doc() -> lxml.html.HtmlElement:
    return parse(render_quiz(model_quiz()))


def section(doc: lxml.html.HtmlElement, qid: str) -> lxml.html.HtmlElement:
    (found,) = doc.xpath(f'//section[@data-question-id="{qid}"]')
    return found


# --- golden pages -------------------------------------------------------------------


@pytest.mark.parametrize("page_id", PAGES)
def test_golden_structured_pages(page_id: str, golden) -> None:
    out = write(structured_bank(), WriteContext(formats=("html",)))
    golden(CASE / "expected" / "html" / f"{page_id}.html", out.files[f"html/{page_id}.html"])


def test_model_page_golden(golden) -> None:
    golden(
        Path(__file__).resolve().parent / "cases" / "html" / "structured-model.html",
        render_quiz(model_quiz()),
    )


# --- the page's optional code -----------------------------------------------------------


def _script(html: str) -> str:
    return parse(html).xpath("//script[not(@type)]")[0].text


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_pages_without_the_new_kinds_carry_none_of_their_code() -> None:
    old = render_quiz(make_types_quiz())
    new = render_quiz(model_quiz())
    for name in ("drawStructured", "scoreCloze", "scoreOrdering", "moveItem", ".ord-item", ".blank-choices"):
        assert name not in old
        assert name in new
    for page in (old, new):
        assert not re.search(r"^\s*//#", _script(page), re.M), "a feature marker left in the page"
    assert '"blank_n"' not in old and '"moved_to"' not in old


def test_csp_hashes_the_structured_script_and_style(doc) -> None:
    (csp,) = doc.xpath('//meta[@http-equiv="Content-Security-Policy"]/@content')
    (style,) = doc.xpath("//style")
    (script,) = doc.xpath("//script[not(@type)]")
    assert f"style-src {_csp_hash(style.text)};" in csp
    assert f"script-src {_csp_hash(script.text)};" in csp
    assert not doc.xpath("//@style | //link | //@src[not(starts-with(., 'data:'))]")


@pytest.mark.parametrize(
    ("text", "features", "expected"),
    [
        ("a\n//#if x\nb\n//#else\nc\n//#endif\nd\n", frozenset(), "a\nc\nd\n"),
        ("a\n//#if x\nb\n//#else\nc\n//#endif\nd\n", frozenset({"x"}), "a\nb\nd\n"),
        ("  //#if x\n  b\n  //#endif\n", frozenset(), ""),
    ],
)
def test_feature_lines(text: str, features: frozenset[str], expected: str) -> None:
    assert _select_lines(text, features) == expected


@pytest.mark.parametrize("text", ["//#if x\nb\n", "//#wat\n"])
def test_feature_lines_refuse_bad_markers(text: str) -> None:
    with pytest.raises(ValueError):
        _select_lines(text, frozenset())


def test_ui_strings_of_the_new_kinds_in_every_table() -> None:
    for keys in (JS_UI_FEATURE_KEYS["cloze"], JS_UI_FEATURE_KEYS["ordering"]):
        for table in UI_STRINGS.values():
            assert all(table[k] for k in keys)
    assert UI_STRINGS["ur"]["blank_of"].format(n=2, total=3) == "خانہ 2 از 3"
    assert UI_STRINGS["en"]["blank_of"].format(n=2, total=3) == "blank 2 of 3"


# --- descriptions -------------------------------------------------------------------------


def test_descriptions_are_not_numbered_and_have_no_points(doc) -> None:
    intro = section(doc, "m-intro")
    assert intro.get("data-type") == "description"
    assert not intro.xpath(".//*[contains(@class, 'qnum') or contains(@class, 'points')]")
    assert not intro.xpath(".//input | .//select | .//button | .//fieldset")
    assert "64 GPU" in intro.text_content()
    assert intro.xpath(".//math")
    numbers = [s.text_content() for s in doc.xpath("//span[@class='qnum']")]
    assert numbers == [f"سوال {n} از 5" for n in range(1, 6)]
    meta = doc.xpath("//p[@class='meta']")[0].text_content()
    assert "5 سوالات" in meta and "8 نمبر" in meta
    data = {q["id"]: q for q in page_data(doc)["questions"]}
    assert data["m-intro"]["points"] == 0 and data["m-intro"]["type"] == "description"
    assert data["m-intro"]["explanation"] == "q1-x" and doc.xpath("//template[@id='q1-x']")


def test_assessment_counts_questions_not_descriptions() -> None:
    out = write(structured_bank(), WriteContext(formats=("html",)))
    exam = parse(out.files["html/structured-exam.html"])
    bank = structured_bank()
    (assessment,) = bank.assessments
    shown = [c.question for d in assessment.draws if not d.is_random for c in d.candidates]
    expected = sum(not isinstance(q.body, Description) for q in shown) + 1
    meta = exam.xpath("//p[@class='meta']")[0].text_content()
    assert f"{expected} سوالات" in meta


# --- cloze -----------------------------------------------------------------------------------


def test_every_blank_is_a_named_control_in_its_place(doc) -> None:
    ur = section(doc, "m-cloze-ur")
    number, select, text = (ur.xpath(f".//*[@data-blank='{n}']")[0] for n in (1, 2, 3))
    assert (number.tag, number.get("dir"), number.get("inputmode")) == ("input", "ltr", "decimal")
    assert (text.tag, text.get("dir"), text.get("type")) == ("input", "auto", "text")
    assert select.tag == "select"
    assert [o.text for o in select.xpath("option")] == ["منتخب کریں…", "1F1B", "GPipe"]
    assert [c.get("aria-label") for c in (number, select, text)] == [f"خانہ {n} از 3" for n in (1, 2, 3)]
    # Inside the sentence, in order: the stem's text runs between the controls.
    paragraph = ur.xpath(".//div[@id='q2-stem']/p")[0]
    assert [c.get("data-blank") for c in paragraph.xpath(".//*[@data-blank]")] == ["1", "2", "3"]
    assert "ببل کا حصہ" in paragraph.text_content()

    en = section(doc, "m-cloze-en")
    vertical = en.xpath(".//*[@data-blank-group='1']")[0]
    horizontal = en.xpath(".//*[@data-blank-group='2']")[0]
    assert (vertical.get("role"), vertical.get("aria-label")) == ("radiogroup", "خانہ 1 از 3")
    assert "vertical" in vertical.get("class") and "horizontal" in horizontal.get("class")
    assert horizontal.get("role") == "group"
    assert {i.get("type") for i in vertical.xpath(".//input")} == {"radio"}
    assert {i.get("type") for i in horizontal.xpath(".//input")} == {"checkbox"}
    assert [label.text_content() for label in horizontal.xpath(".//label")] == [
        "parameters",
        "gradients",
        "nothing",
    ]
    assert en.xpath(".//ul/li//*[@data-blank-group='2']"), "the blank inside the list item"
    assert en.xpath(".//table//td//input[@data-blank='3']"), "the blank inside the table cell"
    # Every control is named: no input, select or group of the text without a name.
    for control in doc.xpath("//div[contains(@class, 'cloze-text')]//*[@data-blank]"):
        named = control.get("aria-label") or control.xpath("ancestor::label")
        assert named, lxml.html.tostring(control)


def test_english_page_names_blanks_in_english() -> None:
    doc = parse(render_quiz(model_quiz("en")))
    labels = doc.xpath("//div[contains(@class, 'cloze-text')]//@aria-label")
    assert labels[:3] == ["blank 1 of 3", "blank 2 of 3", "blank 3 of 3"]


def test_cloze_key_and_feedback_stay_out_of_the_visible_page(doc) -> None:
    text = visible_text(doc)
    quiz = model_quiz()
    for q in quiz.questions:
        if not isinstance(q.body, Cloze):
            continue
        for blank in q.body.blanks:
            feedbacks = (
                [c.feedback for c in blank.choices]
                if isinstance(blank, ChoiceBlank)
                else [a.feedback for a in blank.answers]
                if isinstance(blank, TextBlank)
                else [k.feedback for k in blank.keys]
            )
            others = [] if isinstance(blank, ChoiceBlank) else [blank.other_feedback]
            for secret in [f for f in feedbacks + others if f]:
                assert plain_text(secret) not in text
    assert "ZeRO stage 3" not in text and "0.2 ± 0.005" not in text
    assert not doc.xpath("//input[@checked] | //option[@selected] | //input[@value and @type='text']")


def test_cloze_key_data(doc) -> None:
    data = {q["id"]: q for q in page_data(doc)["questions"]}
    ur = data["m-cloze-ur"]
    number, choice, text = ur["blanks"]
    body = model_quiz().questions[1].body
    assert isinstance(body, Cloze)
    assert number["kind"] == "number"
    assert [k["bounds"] for k in number["keys"]] == [list(key_interval(k)) for k in body.blanks[0].keys]
    assert number["keyText"] == "0.2 ± 0.005" and number["other"] == "q2-b1o"
    assert (choice["kind"], choice["credit"], choice["key"], choice["shuffle"]) == (
        "choice",
        [1.0, 0.0],
        [0],
        True,
    )
    assert text["weight"] == 2 and text["wildcard"] == [False, False, True]
    # Every feedback id names a template the page has.
    for blank in ur["blanks"]:
        for fid in [f for f in blank["feedback"] if f] + ([blank["other"]] if "other" in blank else []):
            assert doc.xpath(f"//template[@id='{fid}']"), fid
    assert ur["outcome"] == {"correct": "q2-oc", "partial": "q2-op", "incorrect": "q2-oi"}
    assert data["m-cloze-en"]["blanks"][1]["multiple"] is True


# --- ordering ---------------------------------------------------------------------------------


def test_ordering_list_buttons_and_start_order(doc) -> None:
    order = section(doc, "m-order")
    (ol,) = order.xpath(".//ol[@data-role='ordering']")
    assert "num-decimal" in ol.get("class") and "vertical" in ol.get("class")
    assert ol.get("aria-describedby") == "q4-help"
    assert order.xpath(".//*[@id='q4-help']")[0].text_content() == UI_STRINGS["ur"]["ordering_help"]
    indexes = [int(li.get("data-item-index")) for li in ol.xpath("li")]
    assert sorted(indexes) == [0, 1, 2, 3] and indexes != [0, 1, 2, 3], "shown solved without JavaScript"
    body = model_quiz().questions[3].body
    assert isinstance(body, Ordering)
    for li in ol.xpath("li"):
        name = plain_text(body.items[int(li.get("data-item-index"))])
        up, down = li.xpath(".//button")
        assert up.get("aria-label") == f"اوپر لے جائیں: {name}"
        assert down.get("aria-label") == f"نیچے لے جائیں: {name}"
        assert li.get("data-item-name") == name
    horizontal = section(doc, "m-order-h")
    (hol,) = horizontal.xpath(".//ol[@data-role='ordering']")
    assert "horizontal" in hol.get("class") and "num-lower-alpha" in hol.get("class")
    first = hol.xpath("li//button")[0]
    assert first.get("aria-label").startswith("پہلے لے جائیں: ")
    # An English question: the arrows point to its line's start and end (left to right).
    assert [b.text_content() for b in hol.xpath("li[1]//button")] == ["\u2190", "\u2192"]
    data = {q["id"]: q for q in page_data(doc)["questions"]}
    assert data["m-order-h"]["ordering"] == {
        "count": 5,
        "grading": "relative_next_include_last",
        "select": "contiguous",
        "selectCount": 4,
        "showGrading": True,
    }


def test_case_pages_render_every_question() -> None:
    out = write(structured_bank(), WriteContext(formats=("html",)))
    for quiz in structured_bank().quizzes:
        doc = parse(out.files[f"html/{quiz.id}.html"])
        ids = doc.xpath("//section/@data-question-id")
        assert ids == [q.id for q in quiz.questions]
        for q in quiz.questions:
            if isinstance(q.body, Cloze):
                controls = section(doc, q.id).xpath(".//*[@data-blank]/@data-blank")
                assert sorted(set(map(int, controls))) == list(range(1, len(q.body.blanks) + 1))


# --- any quiz of the new kinds --------------------------------------------------------------


def _squash(text: str) -> str:
    return " ".join(text.split())


def _words(text: str) -> str:
    """A text without its white space (blocks run together in text_content)."""
    return "".join(text.split())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes(structured=True, everything=True))
def test_any_structured_quiz_renders(quiz: Quiz) -> None:
    page = render_quiz(quiz)
    doc = parse(page)
    assert len(doc.xpath("//script")) == 2
    assert not [a for el in doc.iter() for a in el.attrib if a.lower().startswith("on")]
    data = {q["id"]: q for q in page_data(doc)["questions"]}
    numbered = 0
    for n, question in enumerate(quiz.questions, 1):
        box = doc.xpath(f"//section[@id='q{n}']")[0]
        if isinstance(question.body, Description):
            assert not box.xpath(".//*[@class='qnum']")
            assert data[question.id]["points"] == 0
            continue
        numbered += 1
        assert box.xpath(".//*[@class='qnum']")[0].text_content() == UI_STRINGS[
            "ur" if quiz.lang == "ur" else "en"
        ]["question_of"].format(
            n=numbered, total=sum(not isinstance(q.body, Description) for q in quiz.questions)
        )
        if isinstance(question.body, Cloze):
            blanks = question.body.blanks
            assert len(data[question.id]["blanks"]) == len(blanks)
            (text,) = box.xpath(".//div[contains(@class, 'cloze-text')]")
            boxes = text.xpath(".//span[@data-blank-box]")
            assert [int(b.get("data-blank-box")) for b in boxes] == list(range(1, len(blanks) + 1))
            for b, blank in zip(boxes, blanks, strict=True):
                controls = b.xpath(".//*[@data-blank]")
                expected = (
                    len(blank.choices)
                    if isinstance(blank, ChoiceBlank) and blank.display.value != "dropdown"
                    else 1
                )
                assert len(controls) == expected
            for blank in data[question.id]["blanks"]:
                for fid in [f for f in blank["feedback"] if f] + (
                    [blank["other"]] if "other" in blank else []
                ):
                    assert doc.xpath(f"//template[@id='{fid}']"), fid
            if not has_math(question.stem):
                # The text reads as the stem, each blank where its gap stands.
                for b in boxes:
                    marker = f"[{b.get('data-blank-box')}]"
                    tail = b.tail
                    b.clear()  # lxml's clear() takes the tail too
                    b.text, b.tail = marker, tail
                assert _words(text.text_content()) == _words(plain_text(question.stem))
        elif isinstance(question.body, Ordering):
            items = box.xpath(".//ol[@data-role='ordering']/li")
            assert sorted(int(li.get("data-item-index")) for li in items) == list(
                range(len(question.body.items))
            )
            assert [int(li.get("data-item-index")) for li in items] != list(range(len(question.body.items)))
            for li in items:
                name = _squash(plain_text(question.body.items[int(li.get("data-item-index"))]))
                assert li.get("data-item-name") == name
                assert all(name in b.get("aria-label") for b in li.xpath(".//button"))
