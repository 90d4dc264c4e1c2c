"""Rich text on the HTML page: the rich case (tests/cases/rich) as a golden page that builds
clean and reads back as written, the page's Content-Security-Policy with MathML, data: images
and highlighted code, and the code highlighting itself. tests/test_html_browser.py renders
the same page in Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_html_writer import expected_texts, parse, read_back, template_texts, text_elements

from lmsexport.build import build
from lmsexport.model import Bank, CodeBlock, Essay, Para, Question, Quiz, Rich, Str
from lmsexport.source import load_paths, load_text
from lmsexport.writers.html import code_css, render_quiz

CASE = Path(__file__).resolve().parent / "cases" / "rich"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_paths([CASE / "bank.yaml"])


@pytest.fixture(scope="module")
def page(bank: Bank) -> bytes:
    out = build(bank, ["html"])
    assert out.warnings == []
    return out.files["html/rich-text.html"]


def test_golden(page: bytes, golden) -> None:
    golden(CASE / "expected" / "html" / "rich-text.html", page)


def test_every_text_reads_back_as_written(bank: Bank, page: bytes) -> None:
    """The inverse renderer (readers/richhtml.py) gives every rich text of the page back."""
    doc = parse(page)
    (quiz,) = bank.quizzes
    for n, question in enumerate(quiz.questions, 1):
        found = text_elements(doc, n)
        expected = expected_texts(question)
        assert set(found) == set(expected)
        assert {name: read_back(el) for name, el in found.items()} == expected, question.id
    (description,) = doc.find_class("description")
    assert read_back(description) == quiz.description


def test_csp_and_self_containment(page: bytes) -> None:
    doc = parse(page)
    (csp,) = doc.xpath('//meta[@http-equiv="Content-Security-Policy"]/@content')
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["img-src"] == "data:"
    assert directives["default-src"] == "'none'" and "unsafe" not in csp
    assert not doc.xpath("//@style | //link | //iframe | //object")
    # Images are data: URIs, formulas MathML with their TeX, code Pygments' class spans.
    srcs = doc.xpath("//img/@src")
    assert {s.split(";")[0] for s in srcs} == {"data:image/svg+xml", "data:image/png"}
    assert doc.xpath("//math/semantics/annotation/@encoding")[0] == "application/x-tex"
    assert "xmlns" not in page.decode() and b"<m:" not in page
    assert doc.xpath("//pre/code/span[starts-with(@class, 'tok-')]")
    (style,) = doc.xpath("//style")
    assert style.text.endswith(code_css())
    assert "pre .tok-k {" in style.text and "\npre {" not in code_css()


def test_rtl_code_keeps_its_direction(page: bytes) -> None:
    doc = parse(page)
    for pre in doc.iter("pre"):
        assert (pre.get("dir"), pre.get("class")) == ("ltr", "ltr")
    for code in doc.xpath("//code[not(parent::pre)]"):
        assert code.get("dir") == "ltr"
    assert doc.xpath("//ol/@start") == ["3"]
    assert doc.xpath("//th/@class") == ["align-left", "align-right"]
    # Feedback and explanations of the Urdu question hold their code, waiting in templates.
    texts = template_texts(doc)
    assert texts["q3-f2"] == "fp16 فعال ہے، bf16 نہیں۔"


CODE_EVERYWHERE = """\
id: code-everywhere
title: "کوڈ"
lang: ur
markup: markdown
questions:
  - id: c1
    lang: en
    stem: "Which line runs?\\n\\n```python\\nprint(1)\\n```"
    explanation: "The only line.\\n\\n```python\\nprint(1)\\n```"
    choices:
      - {text: "```python\\nprint(1)\\n```", correct: true, feedback: "Yes.\\n\\n```\\n1\\n```"}
      - {text: "None"}
  - id: c2
    type: matching
    stem: "جوڑیں"
    explanation: "وضاحت\\n\\n```\\nx = 1\\n```"
    pairs:
      - {left: "```\\nx = 1\\n```", right: "one"}
      - {left: "دو", right: "two"}
"""


def test_code_blocks_take_the_focus_and_are_named_outside_labels() -> None:
    """Every code block is focusable (it scrolls when wider than its box: test_html_browser.py
    checks that); outside a label it is a group named "Code" in its text's language; inside a
    label (a choice, a pair's left side) it has no name: the label names the input, and the
    group's name would stand for the code in it. Explanations and feedback (templates) too."""
    quiz = load_text(CODE_EVERYWHERE, "code-everywhere.yaml")
    assert isinstance(quiz, Quiz)
    doc = parse(render_quiz(quiz))

    def where(pre) -> str:
        holder = next(a for a in pre.iterancestors() if a.get("id") or a.tag == "label")
        return holder.tag if holder.tag == "label" else holder.get("id")

    found = sorted((where(p), p.get("tabindex"), p.get("role"), p.get("aria-label")) for p in doc.iter("pre"))
    assert found == [
        ("label", "0", None, None),  # the choice of c1
        ("label", "0", None, None),  # the left side of c2's first pair
        ("q1-f0", "0", "group", "Code"),
        ("q1-stem", "0", "group", "Code"),  # an English question on an Urdu page
        ("q1-x", "0", "group", "Code"),
        ("q2-x", "0", "group", "کوڈ"),
    ]


def _code_quiz(block: CodeBlock) -> Quiz:
    question = Question(id="c", stem=Rich((Para((Str("Read:"),)), block)), body=Essay())
    return Quiz(id="code", title="Code", lang="en", questions=(question,))


def test_highlighting_keeps_the_code_exactly() -> None:
    text = 'def f(x):\n    """<doc> & \'q\'"""\n\treturn x<1  # done\n\n\nprint(f(0))'
    doc = parse(render_quiz(_code_quiz(CodeBlock(text, "python"))))
    (code,) = doc.xpath("//pre/code")
    assert code.get("class") == "language-python"
    assert code.text_content() == text
    assert {s.get("class") for s in code.iter("span")} >= {"tok-k", "tok-nf", "tok-sd", "tok-c1"}
    assert not [s for s in code.iter("span") if s.get("style")]


@pytest.mark.parametrize("lang", [None, "no-such-language", 'x" onmouseover="alert(1)'])
def test_code_without_a_known_language_is_plain(lang: str | None) -> None:
    text = "{ a: 1 } <b>"
    html = render_quiz(_code_quiz(CodeBlock(text, lang)))
    doc = parse(html)
    (code,) = doc.xpath("//pre/code")
    assert code.text_content() == text and len(code) == 0
    assert code.get("class") == (f"language-{lang}" if lang else None)
    assert not doc.xpath("//@onmouseover")
    (style,) = doc.xpath("//style")
    assert "tok-" not in style.text, "a page without highlighted code needs no token colours"
