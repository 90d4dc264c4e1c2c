"""Rich text in Moodle XML: tests/cases/rich/bank.yaml and its golden file, and what each construct
becomes (docs/moodle-xml.md, "Rich text").

Formulas are TeX between MathJax's delimiters, code is left to right, and each image is a
`<file>` of the field whose text shows it (Moodle stores files per field). Text that spells a
MathJax delimiter is kept from being typeset. The reader gives every tree back, and reads rich
HTML from other Moodle sites leniently, naming what it drops.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from lxml import etree
from lxml import html as lxml_html

from lmsexport.build import build, moodlexml_round_trip
from lmsexport.errors import MoodleXmlError, MoodleXmlExportError
from lmsexport.media import MAX_IMAGE_BYTES, sniff
from lmsexport.model import (
    Bank,
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
    Pair,
    Para,
    Question,
    Quiz,
    Rich,
    SingleChoice,
    Str,
    Strong,
    Table,
)
from lmsexport.readers.moodlexml import read_quiz
from lmsexport.source import load_paths
from lmsexport.writers import WriteContext
from lmsexport.writers.moodlexml import PLUGINFILE, write, write_quiz

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "cases" / "rich"
CTX = WriteContext(formats=("moodlexml",))


def _media(name: str) -> Media:
    data = (CASE / "img" / name).read_bytes()
    found = sniff(data)
    return Media(f"img/{name}", data, found.mime, found.width, found.height)


BAR = _media("bar.png")
STAGES = _media("stages.svg")


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_paths([CASE / "bank.yaml"])


@pytest.fixture(scope="module")
def output(bank):
    return build(bank, ["moodlexml"])


@pytest.fixture(scope="module")
def doc(output) -> etree._Element:
    return etree.fromstring(output.files["moodle/rich-text.xml"])


def _questions(doc: etree._Element) -> dict[str, etree._Element]:
    return {q.findtext("idnumber"): q for q in doc.iter("question") if q.get("type") != "category"}


def _quiz(*questions: Question, description=None, lang: str = "en") -> Quiz:
    return Quiz(id="q", title="Rich", lang=lang, questions=questions, description=description)


def _round_trip(quiz: Quiz) -> tuple[Quiz, list]:
    data, diags = write_quiz(quiz)
    assert [d.format() for d in diags if d.severity.value == "error"] == []
    back, _ = read_quiz(data, "q.xml")
    return back, diags


# -- the golden case -------------------------------------------------------------------------


def test_golden_file(output, golden) -> None:
    golden(CASE / "expected" / "moodle" / "rich-text.xml", output.files["moodle/rich-text.xml"])


def test_the_rich_case_builds_clean_and_reads_back(bank, output) -> None:
    assert [d.format() for d in output.warnings] == []
    assert moodlexml_round_trip(bank, output) == []


def test_math_is_tex_for_mathjax(doc) -> None:
    stem = _questions(doc)["rich-adam-bytes"].findtext("questiontext/text")
    assert "<p>\\[2\\Psi + 2\\Psi + 12\\Psi = 16\\Psi\\]</p>" in stem
    choice = _questions(doc)["rich-zero-memory"].find("answer").findtext("text")
    assert choice == '<div lang="ur" dir="rtl"><p>\\(\\frac{(2+2+K)\\Psi}{N_d}\\)</p></div>'
    assert "<math" not in etree.tostring(doc, encoding="unicode")


def test_code_stays_left_to_right_in_urdu(doc) -> None:
    stem = _questions(doc)["rich-ds-config"].findtext("questiontext/text")
    assert stem.startswith('<div lang="ur" dir="rtl"><p>')
    assert '<pre class="ltr" dir="ltr"><code class="language-json">{\n  "zero_optimization"' in stem
    feedback = _questions(doc)["rich-ds-config"].findall("answer")[2].findtext("feedback/text")
    assert '<code class="ltr" dir="ltr">fp16</code>' in feedback


def test_images_are_files_of_the_field_that_shows_them(doc) -> None:
    q = _questions(doc)["rich-pipeline-diagram"]
    files = q.findall("questiontext/file")
    assert [(f.get("name"), f.get("path"), f.get("encoding")) for f in files] == [
        (STAGES.filename, "/", "base64"),
        (BAR.filename, "/", "base64"),
    ]
    assert [base64.b64decode(f.text) for f in files] == [STAGES.data, BAR.data]
    stem = q.findtext("questiontext/text")
    assert f'<img src="{PLUGINFILE}{STAGES.filename}" alt="Two pipeline stages: GPU 0 then GPU 1"' in stem
    assert 'width="48" height="12" title="bar">' in stem
    # No other field of the file has files: each file belongs to the text that shows it.
    assert len(doc.findall(".//file")) == 2


def test_an_image_in_several_fields_is_a_file_of_each() -> None:
    image = Rich((Para((Str("See "), Image(BAR, "a bar"))),))
    q = Question(
        id="img",
        stem=image,
        explanation=image,
        body=SingleChoice((Choice(image, credit=1.0, feedback=image), Choice("no"))),
    )
    m = Question(id="m", stem="Match.", body=Matching((Pair(image, "a"), Pair("b", "b"))))
    quiz = _quiz(q, m)
    data, _ = write_quiz(quiz)
    doc = etree.fromstring(data)
    holders = [f.getparent().tag for f in doc.iter("file")]
    assert holders == ["questiontext", "generalfeedback", "answer", "feedback", "subquestion"]
    assert {f.get("name") for f in doc.iter("file")} == {BAR.filename}
    for f in doc.iter("file"):
        # The file comes right after the <text> that refers to it, as Moodle's exporter writes it.
        assert f.getprevious().tag == "text" and PLUGINFILE + BAR.filename in f.getprevious().text
    back, _ = _round_trip(quiz)
    assert back == quiz


def test_a_description_shows_its_images_as_data_uris() -> None:
    """A category keeps no files (qformat_xml::import_category() reads only its text)."""
    quiz = _quiz(
        Question(id="e", stem="Write.", body=Essay()),
        description=Rich((Para((Str("Figure: "), Image(STAGES, "stages"))),)),
    )
    data, diags = write_quiz(quiz)
    info = etree.fromstring(data).find("question/info")
    assert info.find("file") is None
    assert 'src="data:image/svg+xml;base64,' in info.findtext("text")
    assert [d.rule for d in diags] == ["moodlexml.description-image"]
    back, _ = read_quiz(data, "q.xml")
    assert back == quiz


def test_every_construct_round_trips_in_every_field() -> None:
    rich = Rich(
        (
            Para((Str("a < b & "), Emph((Str("c"), Code("x = {1}"))), LineBreak(), Math("\\frac{a}{b}"))),
            CodeBlock('print("\\\\(")\n  x = 1', "python"),
            Table(((Str("h"),), (Math("x", False),)), (((Str("1"),), (Str("2"),)),), ("left", "right")),
            Para((Link("https://example.org/?a=1&b=2", (Str("link"),), "t"), Math("x^2", True))),
        )
    )
    q = Question(
        id="all",
        stem=rich,
        explanation=rich,
        # The default credits of one right choice and two wrong ones.
        body=MultipleChoice(
            (Choice(rich, credit=1.0, feedback=rich, lang="ur"), Choice("plain", -0.5), Choice(rich, -0.5))
        ),
    )
    quiz = _quiz(q, description=rich)
    back, diags = _round_trip(quiz)
    assert back == quiz
    assert diags == []


# -- MathJax delimiters in text --------------------------------------------------------------


def test_a_literal_delimiter_is_kept_from_mathjax_and_warned_about() -> None:
    rich = Rich((Para((Str("Write \\(x\\) or $$y$$ in TeX; "), Math("z"))),))
    quiz = _quiz(Question(id="d", stem=rich, body=Essay(), explanation="Plain \\[ too"))
    data, diags = write_quiz(quiz)
    assert [d.rule for d in diags] == ["moodlexml.math-delimiter-in-text"] * 2
    assert diags[0].hint == "write it as code (in backticks), which MathJax leaves alone"
    q = etree.fromstring(data).find("question[@type='essay']")
    stem = q.findtext("questiontext/text")
    assert stem == (
        '<p><span class="tex2jax_ignore">Write &#92;(x&#92;) or &#36;&#36;y&#36;&#36; in TeX; </span>'
        "\\(z\\)</p>"
    )
    # Neither Moodle's filters (which read the HTML source) nor a browser see the text otherwise.
    assert lxml_html.fragment_fromstring(stem).text_content() == "Write \\(x\\) or $$y$$ in TeX; \\(z\\)"
    assert q.findtext("generalfeedback/text") == '<span class="tex2jax_ignore">Plain &#92;[ too</span>'
    back, _ = read_quiz(data, "q.xml")
    assert back == quiz


def test_markup_between_braces_next_to_a_formula_is_warned_about() -> None:
    """filter/mathjaxloader's escape_html_tag_wrapper() turns `<...>` inside `{...}` into text."""
    rich = Rich((Para((Str("The set {"), Code("a"), Str("} has "), Math("1"), Str(" element"))),))
    _, diags = write_quiz(_quiz(Question(id="b", stem=rich, body=Essay())))
    assert [d.rule for d in diags] == ["moodlexml.markup-in-braces"]
    # Without a formula the filter leaves the text alone.
    plain = Rich((Para((Str("The set {"), Code("a"), Str("}"))),))
    assert write_quiz(_quiz(Question(id="b", stem=plain, body=Essay())))[1] == []


def test_a_formula_holding_its_own_closing_delimiter_is_refused() -> None:
    rich = Rich((Para((Math("a \\) b"),)),))
    bank = Bank((_quiz(Question(id="t", stem=rich, body=Essay())),))
    with pytest.raises(MoodleXmlExportError) as e:
        write(bank, CTX)
    assert [d.rule for d in e.value.diagnostics] == ["moodlexml.unwritable"]


def test_an_image_over_the_limit_is_refused() -> None:
    big = Media("big.png", BAR.data + b"\0" * MAX_IMAGE_BYTES, "image/png", 48, 12)
    rich = Rich((Para((Image(big, "big"),)),))
    with pytest.raises(MoodleXmlExportError) as e:
        write(Bank((_quiz(Question(id="t", stem=rich, body=Essay())),)), CTX)
    assert [d.rule for d in e.value.diagnostics] == ["moodlexml.bad-image"]


# -- reading rich HTML from Moodle ---------------------------------------------------------------

_PNG = base64.b64encode(BAR.data).decode()
FOREIGN = f"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multichoice">
    <name><text>Chart</text></name>
    <questiontext format="html">
      <text><![CDATA[<p dir="ltr" style="text-align: left;">Read the <b>chart</b>:<br></p>
<h3>Figure</h3>
<p><img src="@@PLUGINFILE@@/my%20chart.png" alt="a bar" width="48" height="12" class="img-fluid"></p>
<iframe src="https://example.org/video"></iframe>]]></text>
      <file name="my chart.png" path="/" encoding="base64">{_PNG}</file>
      <file name="unused.png" path="/" encoding="base64">{_PNG}</file>
    </questiontext>
    <idnumber>chart</idnumber>
    <single>true</single>
    <answer fraction="100" format="html">
      <text><![CDATA[<p dir="ltr">Up</p>]]></text>
    </answer>
    <answer fraction="0" format="html">
      <text><![CDATA[<p>Down by <span style="color: red;">\\(x^2\\)</span></p>]]></text>
    </answer>
  </question>
</quiz>
""".encode()


def test_moodle_html_is_read_leniently_naming_what_is_dropped() -> None:
    quiz, warnings = read_quiz(FOREIGN, "bank.xml")
    (q,) = quiz.questions
    image = q.stem.blocks[2].children[0]
    assert isinstance(image, Image)
    # The file named "my chart.png", linked as my%20chart.png, sniffed from its bytes.
    assert (image.media.data, image.media.mime, image.media.width) == (BAR.data, "image/png", 48)
    assert q.stem == Rich(
        (
            # White space collapsed as a browser shows it; the editor's trailing <br> dropped.
            Para((Str("Read the "), Strong((Str("chart"),)), Str(":"))),
            Para((Str("Figure"),)),  # the heading's text is kept
            Para((Image(image.media, "a bar"),)),
        )
    )
    # A paragraph of words comes back plain; anything more stays rich (a span's style is dropped).
    assert isinstance(q.body, SingleChoice | MultipleChoice)
    assert [c.text for c in q.body.choices] == ["Up", Rich((Para((Str("Down by "), Math("x^2"))),))]
    assert [d.format() for d in warnings] == [
        "bank.xml:3: warning: question 'chart': the model has no place for <h3>, <iframe>, embedded files "
        "no image shows; dropped"
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (base64.b64encode(b"GIF89a not really").decode(), "the image states a size of 28192 x 29807 pixels"),
        (base64.b64encode(b"plain text").decode(), "not a PNG, JPEG, GIF, WebP or SVG image"),
        ("iVBOR!!w0KGgo=", "its base64 data cannot be decoded"),
        ("A" * (MAX_IMAGE_BYTES // 3 * 4 + 8), "the limit for an image is 2,097,152"),
        (
            base64.b64encode(
                b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
            ).decode(),
            "the SVG has a <script> element",
        ),
    ],
)
def test_an_embedded_image_lmsexport_refuses_is_an_error(content: str, message: str) -> None:
    data = (
        "<quiz><question type='essay'><name><text>n</text></name><questiontext format='html'>"
        '<text><![CDATA[<p><img src="@@PLUGINFILE@@/x.png" alt="x"></p>]]></text>'
        f"<file name='x.png' path='/' encoding='base64'>{content}</file></questiontext></question></quiz>"
    ).encode()
    with pytest.raises(MoodleXmlError) as e:
        read_quiz(data, "bad.xml")
    (d,) = e.value.diagnostics
    assert d.rule == "moodlexml.bad-image"
    assert d.message.startswith("the image '@@PLUGINFILE@@/x.png' cannot be read: ")
    assert message in d.message
