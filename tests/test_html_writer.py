"""The HTML writer without a browser: golden pages, escaping of every text position, CSP,
languages and determinism. tests/test_html_browser.py runs the same pages in Chromium."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import lxml.html
import pytest
from conftest import make_types_quiz
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import RICH, _tiny_png, quizzes

from lmsexport.model import (
    Answer,
    Bank,
    Body,
    BulletList,
    Choice,
    Code,
    CodeBlock,
    Emph,
    Essay,
    Image,
    LineBreak,
    Link,
    Matching,
    Math,
    Media,
    MultipleChoice,
    Numerical,
    OrderedList,
    Pair,
    Para,
    Question,
    Quiz,
    Rich,
    ShortAnswer,
    SingleChoice,
    Str,
    Strong,
    Table,
    Text,
    TrueFalse,
)
from lmsexport.writers import WRITERS, WriteContext, get_writer
from lmsexport.writers.html import UI_STRINGS, format_number, render_index, render_quiz, script_json, write

REPO = Path(__file__).resolve().parents[1]
CASES = Path(__file__).resolve().parent / "cases" / "html"
ALL_FORMATS = WriteContext(formats=tuple(WRITERS))
SEED_IDS = [
    "deepspeed-megatron-stacks",
    "final-exam",
    "model-pipeline-parallelism",
    "training-step-structure",
    "zero-memory-arithmetic",
    "zero-sharded-optimizers",
]
"""Every page of the repository's bank: its quizzes and its assessment."""

PAYLOADS = [
    "<script>window.__pwned=1;alert(1)</script>",
    '<img src=x onerror="window.__pwned=2;alert(2)">',
    '"><svg onload="window.__pwned=3;alert(3)">',
    "javascript:window.__pwned=4;alert(4)",
    "</script><script>window.__pwned=5;alert(5)</script><!--",
    "{{ 7*7 }} {% raw %} ${alert(6)} &amp; &lt;",
]


def hostile_quiz(payload: str) -> Quiz:
    """A payload in every text position of a quiz, ids included (which the loader would refuse)."""
    choices = (
        Choice(payload, credit=1.0, feedback=payload),
        Choice("b " + payload, feedback="fb " + payload),
    )
    return Quiz(
        id="hostile" + payload,
        title=payload,
        lang="en",
        description=payload,
        questions=(
            Question(
                id="q-single" + payload,
                stem=payload,
                body=SingleChoice(choices),
                explanation=payload,
                tags=(payload,),
            ),
            Question(id="q-short", stem=payload, body=ShortAnswer((Answer(payload),)), explanation=payload),
            Question(
                id="q-match",
                stem=payload,
                body=Matching(
                    pairs=(Pair(payload, "r " + payload), Pair("l2", payload)), distractors=("d " + payload,)
                ),
                explanation=payload,
            ),
            Question(id="q-essay", stem=payload, body=Essay(), explanation=payload),
        ),
    )


TINY_PNG = _tiny_png(4, 3)
HOSTILE_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="window.__pwned=9;alert(9)">'
    b'<script>window.__pwned=10;alert(10)</script><rect width="10" height="10"/></svg>'
)
"""What the loader refuses (media.py): embedded as an <img> it still runs nothing."""


def rich_payload(payload: str, blocks: bool = True) -> Rich:
    """A payload in every kind of Rich node; ``blocks=False``: one paragraph (inline positions)."""
    inlines = (
        Str(payload + " "),
        Emph((Str(payload),)),
        Strong((Str(payload),)),
        Code(payload),
        Link("https://example.org/?q=" + payload, (Str(payload),), payload),
        Link("javascript:window.__pwned=7;alert(7)", (Str("js link"),)),
        Image(Media("p.png", TINY_PNG, "image/png", 4, 3), payload, payload),
        Image(Media("h.svg", HOSTILE_SVG, "image/svg+xml", 10, 10), "svg " + payload),
        LineBreak(),
        Math(r"\text{</script><img src=x onerror=alert(8)>} < b"),
    )
    if not blocks:
        return Rich((Para(inlines),))
    return Rich(
        (
            Para(inlines),
            CodeBlock(payload, "html"),
            CodeBlock(payload, payload),
            BulletList(((Para((Str(payload),)),),)),
            OrderedList(((Para((Code(payload),)),), (CodeBlock(payload),)), 3),
            Table(
                ((Str(payload),), (Math("x", True),)), (((Code(payload),), (Str(payload),)),), ("right", None)
            ),
        )
    )


def hostile_rich_quiz(payload: str) -> Quiz:
    """A payload in every Rich position of a quiz, in every kind of Rich node."""
    rich, line = rich_payload(payload), rich_payload(payload, blocks=False)
    single = (Choice(line, credit=1.0, feedback=rich), Choice(rich, feedback=line), Choice("plain"))
    multiple = tuple(replace(c, credit=x) for c, x in zip(single, (1.0, -0.5, -0.5), strict=True))
    return Quiz(
        id="hostile-rich",
        title=payload,
        lang="ur",
        description=rich,
        questions=(
            Question(id="r-single", stem=rich, body=SingleChoice(single), explanation=rich),
            Question(id="r-multiple", stem=line, body=MultipleChoice(multiple), explanation=line),
            Question(
                id="r-match",
                stem=rich,
                body=Matching(pairs=(Pair(line, "r " + payload), Pair(rich, payload))),
                explanation=rich,
            ),
        ),
    )


def seed_bank() -> Bank:
    from lmsexport.source import load_paths

    return load_paths([str(REPO / "source")])


def parse(html: str | bytes) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(html)


def page_data(doc: lxml.html.HtmlElement) -> dict:
    (block,) = doc.xpath('//script[@type="application/json"]')
    return json.loads(block.text)


def visible_text(doc: lxml.html.HtmlElement) -> str:
    """What a CSS-off view or a screen reader gets before any script runs (a <template>'s
    content is not part of the document until the script clones it)."""
    return "".join(doc.xpath("//body//text()[not(ancestor::script) and not(ancestor::template)]"))


def template_texts(doc: lxml.html.HtmlElement) -> dict[str, str]:
    """The text of every <template> (explanations, feedback) by id."""
    return {t.get("id"): t.text_content() for t in doc.iter("template")}


# --- golden files -----------------------------------------------------------------


def test_golden_types_quiz(types_quiz: Quiz, golden) -> None:
    golden(CASES / "all-types.html", render_quiz(types_quiz))


def test_golden_index(types_bank: Bank, golden) -> None:
    golden(CASES / "index.html", render_index(types_bank, ALL_FORMATS))


# The seed pages' golden files are the committed dist/ itself (reviewed in every diff):
# keeping a second copy under tests/cases/ would only duplicate them.
@pytest.mark.parametrize("page_id", SEED_IDS)
def test_golden_seed_pages(page_id: str, golden) -> None:
    out = write(seed_bank(), ALL_FORMATS)
    assert sorted(out.files) == sorted([f"html/{i}.html" for i in SEED_IDS] + ["index.html"])
    golden(REPO / "dist" / "html" / f"{page_id}.html", out.files[f"html/{page_id}.html"])


def test_golden_seed_index(golden) -> None:
    golden(REPO / "dist" / "index.html", write(seed_bank(), ALL_FORMATS).files["index.html"])


# --- the writer contract ----------------------------------------------------------


def test_registry_files_and_no_warnings(types_bank: Bank) -> None:
    out = get_writer("html")(types_bank, ALL_FORMATS)
    assert sorted(out.files) == ["html/all-types.html", "index.html"]
    assert out.warnings == []


def test_deterministic_across_runs_and_hash_seeds(types_bank: Bank) -> None:
    first = write(types_bank, ALL_FORMATS).files
    assert write(types_bank, ALL_FORMATS).files == first
    code = (
        "import sys, hashlib; sys.path.insert(0, 'tests'); from conftest import make_types_quiz;"
        "from lmsexport.model import Bank; from lmsexport.writers import WRITERS, WriteContext;"
        "from lmsexport.writers.html import write;"
        "out = write(Bank((make_types_quiz(),)), WriteContext(formats=tuple(WRITERS)));"
        "print(hashlib.sha256(b''.join(out.files[k] for k in sorted(out.files))).hexdigest())"
    )
    digests = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        digests.add(run.stdout.strip())
    expected = hashlib.sha256(b"".join(first[k] for k in sorted(first))).hexdigest()
    assert digests == {expected}


def test_ui_tables_have_the_same_keys() -> None:
    keys = {lang: set(table) for lang, table in UI_STRINGS.items()}
    assert keys["ur"] == keys["en"]


@pytest.mark.parametrize(
    ("value", "text"),
    [(12.0, "12"), (0.5, "0.5"), (3, "3"), (1 / 3, "0.333333"), (-2.5, "-2.5"), (1e7, "10000000")],
)
def test_format_number(value: float, text: str) -> None:
    assert format_number(value) == text


# --- safety: escaping, CSP, no key before submit ------------------------------------


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_text_position_is_escaped(payload: str) -> None:
    quiz = hostile_quiz(payload)
    doc = parse(render_quiz(quiz))
    assert doc.findtext(".//title") == payload
    assert doc.find(".//h1").text_content() == payload
    assert doc.find('.//p[@class="description t"]').text_content() == payload
    assert [e.text_content() for e in doc.iter("legend")] == [payload] * 4
    assert [e.text_content() for e in doc.xpath('//li[@class="choice"]//span')] == [payload, "b " + payload]
    assert [e.text_content() for e in doc.xpath('//ul[@class="tags"]/li')] == [payload]
    assert [e.text_content() for e in doc.xpath('//li[@class="pair"]/label')] == [payload, "l2"]
    options = doc.xpath('//select[@data-pair-index="0"]/option[@value!=""]')
    assert sorted(o.text_content() for o in options) == sorted([payload, "r " + payload, "d " + payload])
    assert doc.find(".//form").get("data-quiz-id") == quiz.id
    assert doc.xpath("//section/@data-question-id") == [q.id for q in quiz.questions]
    # Nothing but the page's own two scripts, no handlers, no injected elements.
    scripts = doc.xpath("//script")
    assert [s.get("type") for s in scripts] == ["application/json", None]
    assert not doc.xpath("//@*[starts-with(name(), 'on')]")
    assert not doc.xpath("//img | //svg | //iframe | //a | //b")
    # Explanations and feedback wait in <template>s, as text.
    assert template_texts(doc) == {
        "q1-x": payload, "q1-f0": payload, "q1-f1": "fb " + payload,
        "q2-x": payload, "q3-x": payload, "q4-x": payload,
    }  # fmt: skip
    assert [(len(t), t[0].tag, t[0].get("class")) for t in doc.iter("template")] == [(1, "p", "t")] * 6
    data = page_data(doc)
    assert [q["explanation"] for q in data["questions"]] == ["q1-x", "q2-x", "q3-x", "q4-x"]
    assert data["questions"][1]["answers"] == [payload]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_index_is_escaped(payload: str) -> None:
    doc = parse(render_index(Bank((hostile_quiz(payload),)), ALL_FORMATS))
    assert not doc.xpath("//script | //img | //svg | //@*[starts-with(name(), 'on')]")
    (title,) = doc.xpath("//tbody/tr/th/a")
    assert title.text_content() == payload
    for href in doc.xpath("//a/@href"):
        assert href.split("/")[0] in {"html", "qti21", "qti12", "cc", "cc11", "gift", "moodle"}
        assert ":" not in href and "<" not in href and '"' not in href


def test_script_json_cannot_close_its_element() -> None:
    text = str(script_json({"a": "</script><!-- & \u2028 </SCRIPT>"}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028 </SCRIPT>"}


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@pytest.mark.parametrize("page", ["quiz", "index"])
def test_csp_allows_exactly_the_inline_blocks(types_bank: Bank, page: str) -> None:
    out = write(types_bank, ALL_FORMATS)
    doc = parse(out.files["html/all-types.html" if page == "quiz" else "index.html"])
    (csp,) = doc.xpath('//meta[@http-equiv="Content-Security-Policy"]/@content')
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data:"
    (style,) = doc.xpath("//style")
    assert directives["style-src"] == _csp_hash(style.text)
    scripts = doc.xpath("//script[not(@type)]")
    if page == "quiz":
        assert directives["script-src"] == _csp_hash(scripts[0].text)
    else:
        assert scripts == [] and directives["script-src"] == "'none'"
    assert "unsafe" not in csp
    assert not doc.xpath("//@style | //link | //@src")


def test_no_key_feedback_or_explanation_before_submit(types_quiz: Quiz) -> None:
    doc = parse(render_quiz(types_quiz))
    text = visible_text(doc)
    secrets = [q.explanation for q in types_quiz.questions if q.explanation]
    secrets += [
        c.feedback
        for q in types_quiz.questions
        if isinstance(q.body, SingleChoice | MultipleChoice)
        for c in q.body.choices
        if c.feedback
    ]
    secrets += ["FullyShardedDataParallel", "12 ± 0.5"]
    for secret in secrets:
        assert secret not in text
    assert not doc.xpath("//*[@data-role='explanation' or @data-role='feedback' or @data-result]")
    assert not doc.xpath("//input[@checked] | //option[@selected]")


def test_key_data_block(types_quiz: Quiz) -> None:
    questions = {q["id"]: q for q in page_data(parse(render_quiz(types_quiz)))["questions"]}
    assert questions["t-single"]["correct"] == [1]
    assert questions["t-multiple"]["correct"] == [0, 1, 2]
    assert questions["t-true-false"]["correct"] == [0]
    assert questions["t-numerical"]["bounds"] == [11.5, 12.5]
    matching = questions["t-matching"]
    assert matching["options"] == ["Activations", "Gradients", "Optimizer states", "Parameters"]
    assert [matching["options"][i] for i in matching["key"]] == [
        "Optimizer states",
        "Gradients",
        "Parameters",
    ]


# --- languages, directions, structure ---------------------------------------------


def test_languages_and_directions(types_quiz: Quiz) -> None:
    first = types_quiz.questions[0]
    assert isinstance(first.body, SingleChoice)
    quiz = replace(
        types_quiz,
        questions=(
            replace(
                first, body=replace(first.body, choices=(*first.body.choices, Choice("Stage 0", lang="en")))
            ),
            *types_quiz.questions[1:],
        ),
    )
    doc = parse(render_quiz(quiz))
    assert (doc.get("lang"), doc.get("dir")) == ("ur", "rtl")
    fieldsets = {s.get("data-question-id"): s.find(".//fieldset") for s in doc.iter("section")}
    for q in quiz.questions:
        expected = (None, None) if quiz.lang_of(q) == "ur" else ("en", "ltr")
        assert (fieldsets[q.id].get("lang"), fieldsets[q.id].get("dir")) == expected, q.id
    choice_langs = [li.get("lang") for li in fieldsets["t-single"].iter("li")]
    assert choice_langs == [None, None, None, "en"]
    assert all(i.get("dir") == "auto" for i in doc.xpath("//input[@type='text'] | //textarea"))


@pytest.mark.parametrize(
    ("lang", "labels", "ui_word", "html_dir"),
    [("ur", ["درست", "غلط"], "جمع کریں", "rtl"), ("en", ["True", "False"], "Submit", "ltr"),
     ("de", ["True", "False"], "Submit", "ltr")],
)  # fmt: skip
def test_true_false_labels_and_ui_language(lang: str, labels: list[str], ui_word: str, html_dir: str) -> None:
    quiz = Quiz(
        id="tf",
        title="t",
        lang=lang,
        questions=(Question(id="q", stem="s", body=TrueFalse(truth=False)),),
    )
    doc = parse(render_quiz(quiz))
    assert doc.get("dir") == html_dir
    items = doc.xpath("//li[@class='choice']")
    assert [li.text_content() for li in items] == labels
    # German has no UI table: the English labels say they are English.
    assert {li.get("lang") for li in items} == ({"en"} if lang == "de" else {None})
    assert doc.xpath("string(//*[@data-action='submit'])") == ui_word


def test_line_breaks_kept_and_every_input_labelled() -> None:
    quiz = replace(
        make_types_quiz(),
        questions=tuple(replace(q, stem=q.stem + "\nline two") for q in make_types_quiz().questions),
    )
    doc = parse(render_quiz(quiz))
    assert all(legend.text_content().endswith("\nline two") for legend in doc.iter("legend"))
    assert all("t" in legend.get("class").split() for legend in doc.iter("legend"))
    for control in doc.xpath("//input | //select | //textarea"):
        labelled = control.getparent().tag == "label" or doc.xpath(f"//label[@for='{control.get('id')}']")
        assert labelled, lxml.html.tostring(control)
    assert len(doc.xpath("//section[@data-question-id]/fieldset/legend")) == len(quiz.questions)


def test_hooks(types_quiz: Quiz) -> None:
    doc = parse(render_quiz(types_quiz))
    assert doc.xpath("count(//*[@data-action='submit'])") == 1
    assert doc.xpath("count(//*[@data-role='score'])") == 1
    assert doc.xpath("//section[@data-question-id='t-true-false']//input/@data-choice-index") == ["0", "1"]
    assert doc.xpath("//section[@data-question-id='t-multiple']//input/@data-choice-index") == [
        "0",
        "1",
        "2",
        "3",
    ]
    assert doc.xpath("//select/@data-pair-index") == ["0", "1", "2"]
    assert doc.xpath("count(//*[@data-role='answer-input'])") == 3
    assert doc.xpath("//meta[@name='viewport']/@content") == ["width=device-width, initial-scale=1"]


@pytest.mark.parametrize(
    ("formats", "hrefs"),
    [
        (
            ("qti21", "gift", "html"),
            ["html/all-types.html", "qti21/all-types.zip", "gift/all-types.gift.txt"],
        ),
        (
            ("qti21", "gift", "moodlexml", "html"),
            ["html/all-types.html", "qti21/all-types.zip", "gift/all-types.gift.txt", "moodle/all-types.xml"],
        ),
        (("html",), ["html/all-types.html"]),
        (("gift",), ["gift/all-types.gift.txt"]),
        (("moodlexml", "gift"), ["gift/all-types.gift.txt", "moodle/all-types.xml"]),
        (
            ("qti21", "qti12", "cc13", "gift", "html"),
            [
                "cc/bank.imscc",
                "html/all-types.html",
                "qti21/all-types.zip",
                "qti12/all-types.zip",
                "gift/all-types.gift.txt",
            ],
        ),
        (("qti12",), ["qti12/all-types.zip"]),
    ],
)
def test_index_links_follow_formats(types_bank: Bank, formats: tuple[str, ...], hrefs: list[str]) -> None:
    doc = parse(render_index(types_bank, WriteContext(formats=formats)))
    assert doc.xpath("//a/@href") == hrefs
    (row,) = doc.xpath("//tbody/tr")
    assert row.get("data-quiz-id") == "all-types"
    assert row.xpath("string(td[@class='count'])") == "7"


def test_index_language_mixed_bank(types_quiz: Quiz) -> None:
    english = replace(types_quiz, id="en-quiz", lang="en", title="English quiz")
    doc = parse(render_index(Bank((types_quiz, english)), ALL_FORMATS))
    assert (doc.get("lang"), doc.get("dir")) == ("en", "ltr")
    heads = doc.xpath("//tbody/tr/th")
    assert [(h.get("lang"), h.get("dir")) for h in heads] == [("ur", "rtl"), (None, None)]


def test_index_links_point_at_files_the_build_writes() -> None:
    bank = seed_bank()
    every = WriteContext(formats=("qti21", "qti12", "cc13", "cc11", "gift", "moodlexml", "html"))
    files: dict[str, bytes] = {}
    for fmt in every.formats:
        files.update(get_writer(fmt)(bank, every).files)
    hrefs = parse(files["index.html"]).xpath("//a/@href")
    # html, qti21, qti12, gift, moodle per quiz and assessment; two cartridges
    assert len(hrefs) == 5 * (len(bank.quizzes) + len(bank.assessments)) + 2
    assert [h for h in hrefs if h not in files] == []


def test_ui_strings_in_another_language_than_the_quiz_say_so() -> None:
    quiz = Quiz(id="ar", title="اختبار", lang="ar", questions=(Question(id="q", stem="سؤال", body=Essay()),))
    doc = parse(render_quiz(quiz))
    assert (doc.get("lang"), doc.get("dir")) == ("ar", "rtl")
    for role in ("toolbar", "nav", "actions", "summary", "announce"):
        (node,) = doc.xpath(f"//*[@data-role='{role}']")
        assert (node.get("lang"), node.get("dir")) == ("en", "ltr"), role
    (head,) = doc.xpath("//p[@class='qhead']")
    assert (head.get("lang"), head.get("dir")) == ("en", "ltr")
    assert doc.xpath("//fieldset/@lang") == []


# --- rich text ----------------------------------------------------------------------


def inner_html(el: lxml.html.HtmlElement) -> str:
    """What an element holds, as HTML (the fragment the writer rendered into it)."""
    outer = lxml.html.tostring(el, encoding="unicode", with_tail=False)
    return outer[outer.index(">") + 1 : outer.rindex("<")]


def data_image(src: str) -> Media | None:
    """The image of a data: URI, as the page shows it (read_html's image callback)."""
    from lmsexport.media import sniff

    head, _, payload = src.partition(",")
    if not head.startswith("data:") or not head.endswith(";base64"):
        return None
    data = base64.b64decode(payload)
    found = sniff(data)
    return Media("img", data, found.mime, found.width, found.height)


def read_back(el: lxml.html.HtmlElement) -> Rich | str:
    """A rendered text read back: a Rich text through the inverse renderer, a plain one as its text."""
    from lmsexport.readers.richhtml import read_html

    classes = (el.get("class") or "").split()
    if "t" in classes:
        return el.text_content()
    assert "rich" in classes, lxml.html.tostring(el)
    rich, lost = read_html(inner_html(el), data_image)
    assert lost == [], lost
    assert rich is not None
    return rich


def text_elements(doc: lxml.html.HtmlElement, question_n: int) -> dict[str, lxml.html.HtmlElement]:
    """The elements of question q<n>'s texts: stem, c<i> (choices), l<i> (matching lefts) and,
    waiting in templates, explanation, f<i> (choice and true/false feedback), a<i> (short
    answers'), k<i> (numerical keys'), o (any other answer's), oc/op/oi (combined feedback),
    h<i> (hints, under their "Hint i of n" heading)."""
    qid = f"q{question_n}"
    out = {"stem": doc.get_element_by_id(f"{qid}-stem")}
    for t in doc.iter("template"):
        name = t.get("id")
        if name.startswith(qid + "-"):
            (child,) = t
            name = name.removeprefix(qid + "-")
            if name.startswith("h"):
                label, child = child
                assert label.get("class") == "label"
            out["explanation" if name == "x" else name] = child
    section = doc.get_element_by_id(qid)
    if section.get("data-type") in ("single", "multiple"):  # true/false's labels are the page's own
        for i, label in enumerate(section.xpath(".//li[@class='choice']/label")):
            out[f"c{i}"] = label[1]
    for i, label in enumerate(section.xpath(".//li[@class='pair']/label")):
        out[f"l{i}"] = label
    return out


def expected_texts(question: Question) -> dict[str, Text]:
    """Every text of a question the page shows, by the names text_elements() gives them."""
    out: dict[str, Text] = {"stem": question.stem}
    if question.explanation:
        out["explanation"] = question.explanation

    def add(name: str, text: Text | None) -> None:
        if text:
            out[name] = text

    match question.body:
        case SingleChoice(choices=choices) | MultipleChoice(choices=choices):
            for i, c in enumerate(choices):
                out[f"c{i}"] = c.text
                add(f"f{i}", c.feedback)
        case TrueFalse(feedback_true=if_true, feedback_false=if_false):
            add("f0", if_true)
            add("f1", if_false)
        case ShortAnswer(answers=answers, other_feedback=other):
            for i, a in enumerate(answers):
                add(f"a{i}", a.feedback)
            add("o", other)
        case Numerical(keys=keys, other_feedback=other):
            for i, k in enumerate(keys):
                add(f"k{i}", k.feedback)
            add("o", other)
        case Matching(pairs=pairs):
            for i, p in enumerate(pairs):
                out[f"l{i}"] = p.left
        case Essay():
            pass
    add("oc", question.feedback.correct)
    add("op", question.feedback.partial)
    add("oi", question.feedback.incorrect)
    for i, hint in enumerate(question.hints):
        out[f"h{i}"] = hint.text
    return out


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_rich_position_is_escaped(payload: str) -> None:
    quiz = hostile_rich_quiz(payload)
    doc = parse(render_quiz(quiz))
    assert [s.get("type") for s in doc.xpath("//script")] == ["application/json", None]
    assert not doc.xpath("//@*[starts-with(name(), 'on')]")
    assert not doc.xpath("//svg | //iframe | //object | //embed | //style[not(parent::head)]")
    assert all(src.startswith(("data:image/png;base64,", "data:image/svg+xml;base64,")) for src in
               doc.xpath("//@src"))  # fmt: skip
    assert doc.xpath("//@style") == []
    rich = rich_payload(payload)
    # Every rich position holds every node of its text, as text or as an attribute value. The
    # javascript: link stays a link (the loader refuses it; the CSP stops it, see the browser tests).
    for n, question in enumerate(quiz.questions, 1):
        found = text_elements(doc, n)
        expected = expected_texts(question)
        assert set(found) == set(expected)
        for name, el in found.items():
            if isinstance(expected[name], str):
                assert el.text_content() == expected[name]
                continue
            assert el.text_content().count(payload) >= 3, (question.id, name)
            assert [c.text_content() for c in el.iter("code")].count(payload) >= 1
            assert el.xpath(".//img/@alt")[0] == payload
            assert el.xpath(".//a[@title]/@title") == [payload]
            assert el.xpath(".//a/@href")[-1] == "javascript:window.__pwned=7;alert(7)"
            if expected[name] == rich:
                assert [p.text_content() for p in el.iter("pre")] == [payload] * 3
                assert el.xpath(".//pre/code/@class") == ["language-html", f"language-{payload}"]
    description = doc.xpath("//div[contains(@class, 'description')]")[0]
    assert description.text_content().count(payload) >= 3


def _rich_quiz(draw: st.DrawFn) -> Quiz:
    """Any quiz (strategies.quizzes, with every element: feedback, hints, units, essay options)
    with a third of its texts turned into Rich texts (strategies.RICH)."""

    def maybe(text: Text) -> Text:
        return draw(RICH) if draw(st.integers(0, 2)) == 0 else text

    def rich_body(body: Body) -> Body:
        match body:
            case SingleChoice(choices=choices) | MultipleChoice(choices=choices):
                return replace(
                    body,
                    choices=tuple(
                        replace(c, text=maybe(c.text), feedback=maybe(c.feedback) if c.feedback else None)
                        for c in choices
                    ),
                )
            case Matching(pairs=pairs):
                return replace(body, pairs=tuple(replace(p, left=maybe(p.left)) for p in pairs))
            case _:
                return body

    quiz = draw(quizzes(everything=True))
    questions = [
        replace(
            q,
            stem=maybe(q.stem),
            explanation=maybe(q.explanation) if q.explanation else None,
            body=rich_body(q.body),
            hints=tuple(replace(h, text=maybe(h.text)) for h in q.hints),
        )
        for q in quiz.questions
    ]
    description = maybe(quiz.description) if quiz.description else None
    return replace(quiz, questions=tuple(questions), description=description)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.composite(_rich_quiz)())
def test_any_rich_quiz_renders_every_text_as_written(quiz: Quiz) -> None:
    page = render_quiz(quiz)
    doc = parse(page)
    assert len(doc.xpath("//script")) == 2
    assert not [a for el in doc.iter() for a in el.attrib if a.lower().startswith("on")]
    assert all(src.startswith("data:image/") for src in doc.xpath("//@src"))
    if quiz.description:
        (description,) = doc.find_class("description")
        assert read_back(description) == quiz.description
    for n, question in enumerate(quiz.questions, 1):
        found = text_elements(doc, n)
        expected = expected_texts(question)
        assert set(found) == set(expected)
        assert {name: read_back(el) for name, el in found.items()} == expected
        # Explanations, feedback and hints wait in <template>s: not in the document until the
        # learner submits (or asks for a hint).
        assert all(
            (el.getparent().tag == "template" or el.getparent().get("data-role") == "hint")
            == (name != "stem" and name[0] not in "cl")
            for name, el in found.items()
        )
    assert not doc.xpath("//*[@data-role='explanation' or @data-role='feedback']")
    # An essay's grader information is for the person grading, and a question's name is the
    # bank's: the page is the same without them.
    bare = tuple(
        replace(q, name=None, body=replace(q.body, grader_info=None) if isinstance(q.body, Essay) else q.body)
        for q in quiz.questions
    )
    assert render_quiz(replace(quiz, questions=bare)) == page


def test_index_from_summaries_is_the_same_page() -> None:
    """The parallel build renders index.html from quiz headers and the resolved assessments
    (build.build_files); it must equal the page the whole bank gives."""
    from lmsexport.writers.html import render_index_of

    bank = seed_bank()
    assert bank.assessments
    summaries = [(quiz.header, len(quiz.questions)) for quiz in bank.quizzes]
    assert render_index_of(summaries, ALL_FORMATS, bank.assessments) == render_index(bank, ALL_FORMATS)
