"""Rich text in Moodle GIFT: tests/cases/rich through the GIFT writer, and back through the reader.

The golden file is `tests/cases/rich/expected/gift/rich-text.gift.txt` (rewrite it with
`pytest --update-golden` and review the diff). What is checked beyond the bytes: each rich
text is `[html]` HTML that starts with a block element, formulas are TeX that Moodle's MathJax
filter typesets and that survives GIFT escaping, code stays left to right, images travel as
data: URIs, and the reader gives back the very same trees.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from lmsexport.build import build, gift_round_trip
from lmsexport.errors import GiftSyntaxError, Severity
from lmsexport.media import media_from_data_uri
from lmsexport.model import (
    Bank,
    Code,
    CodeBlock,
    Essay,
    Matching,
    Math,
    MultipleChoice,
    Para,
    Question,
    Quiz,
    Rich,
    SingleChoice,
    Str,
    Text,
    media_of,
)
from lmsexport.readers.gift import read_gift, read_quiz, split_rich, unescape_rich
from lmsexport.source import load_paths
from lmsexport.writers.gift import data_uri, escape_plain, escape_rich, write_quiz

CASE = Path(__file__).resolve().parent / "cases" / "rich"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_paths([CASE / "bank.yaml"])


@pytest.fixture(scope="module")
def output(bank: Bank):
    return build(bank, ["gift"])


@pytest.fixture(scope="module")
def text(output) -> str:
    return output.files["gift/rich-text.gift.txt"].decode("utf-8")


def test_golden(output, golden) -> None:
    assert list(output.files) == ["gift/rich-text.gift.txt"]
    golden(CASE / "expected" / "gift" / "rich-text.gift.txt", output.files["gift/rich-text.gift.txt"])


def test_builds_with_only_the_expected_warnings(output) -> None:
    assert {d.rule for d in output.warnings} == {
        "gift.shuffle-not-carried",
        "gift.case-sensitive-not-carried",
        "gift.image-as-data-uri",
    }


def test_each_image_is_warned_about_once(output) -> None:
    """Moodle removes data: images where the site cleans all HTML (forceclean): never silently."""
    images = [d for d in output.warnings if d.rule == "gift.image-as-data-uri"]
    assert [d.message for d in images] == [
        f"question 'rich-pipeline-diagram': the stem shows the image '{name}' as a data: URI (GIFT has "
        "no files): Moodle shows it, except on a site with 'Content cleaning everywhere' (forceclean), "
        "which removes it"
        for name in ("img/stages.svg", "img/bar.png")
    ]
    assert all(d.severity is Severity.WARNING and "Moodle XML" in (d.hint or "") for d in images)


def test_reads_back_equal(bank: Bank, output, text: str) -> None:
    assert gift_round_trip(bank, output) == []
    quiz, diags = read_quiz(text, "rich-text.gift.txt")
    assert quiz == bank.quizzes[0]
    assert isinstance(quiz.description, Rich)
    assert diags == []


def _texts(q: Question) -> tuple[Text | None, ...]:
    """The stem, explanation, matching left items and choice texts and feedback of a question."""
    parts: tuple[Text | None, ...] = (q.stem, q.explanation)
    if isinstance(q.body, Matching):
        parts += tuple(p.left for p in q.body.pairs)
    if isinstance(q.body, SingleChoice | MultipleChoice):
        parts += tuple(x for c in q.body.choices for x in (c.text, c.feedback))
    return parts


def test_every_rich_text_is_html_that_starts_with_a_block(bank: Bank, text: str) -> None:
    texts = []
    for item in read_gift(text, "rich-text.gift.txt").items:
        texts += [item.text, item.general_feedback, *(p[0] for p in item.pairs)]
        if item.qtype == "multichoice":
            texts += [t for a in item.answers for t in (a.text, a.feedback)]
    texts = [t for t in texts if t is not None and t.text]  # a distractor's left side is empty
    rich = [t for q in bank.quizzes[0].questions for t in _texts(q) if isinstance(t, Rich)]
    assert len(texts) == len(rich) == 25
    for t in texts:
        assert re.match(r'<div lang="(ur|en)" dir="(rtl|ltr)"><(p|pre|ul|ol|table)>', t.text), t.text


def test_math_is_tex_for_mathjax_with_gift_escapes(text: str) -> None:
    # \frac{a}{b}: backslashes doubled, braces escaped, so Moodle's first '{' opens the answers.
    assert r"\\(\\frac\{(2+2+K)\\Psi\}\{N_d\}\\)" in text
    assert r"\\[2\\Psi + 2\\Psi + 12\\Psi \= 16\\Psi\\]" in text
    lines = text.splitlines()
    stem = lines[lines.index("// [id:rich-zero-memory]") + 1]
    unescaped = re.sub(r"\\.", "", stem)
    assert unescaped.index("{") == len(unescaped) - 1


def test_code_stays_left_to_right_with_gift_specials_escaped(text: str) -> None:
    assert (
        '<pre class\\="ltr" dir\\="ltr"><code class\\="language-json">\\{\\n  "zero_optimization"\\:' in text
    )
    assert '<code class\\="ltr" dir\\="ltr">K \\= 12</code>' in text


def test_images_are_data_uris_of_their_bytes(bank: Bank, text: str) -> None:
    question = next(q for q in bank.quizzes[0].questions if q.id == "rich-pipeline-diagram")
    media = media_of(question.stem)
    assert [m.mime for m in media] == ["image/svg+xml", "image/png"]
    for m in media:
        uri = data_uri(m)
        assert uri == f"data:{m.mime};base64,{base64.b64encode(m.data).decode()}"
        assert escape_plain(uri) in text
        back = media_from_data_uri(uri)
        assert back == m and back.filename == m.filename


@pytest.mark.parametrize(
    "rich",
    [
        Rich((Para((Math(r"\{x \mid x > 0\} \\ \nabla \neq a_{i}^{2}", False),)),)),
        Rich((CodeBlock("a ~= b # c\n{x: 1}\n\\n\\\\\n->\n%50%\n", "python"),)),
        Rich((Para((Str("a -> b & c < d"), Code("{~=#:}"))),)),
    ],
)
def test_escape_rich_round_trips(rich: Rich) -> None:
    gift = escape_rich(rich)
    assert "\n" not in gift
    assert "->" not in gift
    assert unescape_rich(gift) == rich
    assert unescape_rich(escape_rich(rich, "ur")) == rich


def test_plain_and_rich_texts_are_told_apart() -> None:
    assert split_rich("&lt;p&gt;x") is None
    assert split_rich('<span lang="ur" dir="rtl">&lt;p&gt;</span>') is None
    assert split_rich("<p>x</p>") == (None, "<p>x</p>")
    assert split_rich('<div lang="ur" dir="rtl"><table></table></div>') == ("ur", "<table></table>")


def _quiz(*questions: Question) -> Quiz:
    return Quiz(id="q", title="T", lang="en", questions=questions)


@pytest.mark.parametrize(
    "stem",
    [
        Rich((Para((Str(r"costs \(x\) dollars"),)),)),
        Rich((Para((Str("between $$ signs"),)),)),
        r"plain \[x\] text",
    ],
)
def test_literal_math_delimiters_are_warned_about(stem) -> None:
    q = Question(id="e", stem=stem, body=Essay())
    _, diags = write_quiz(_quiz(q))
    (d,) = [d for d in diags if d.rule == "gift.math-delimiter-in-text"]
    assert d.severity is Severity.WARNING and "the stem" in d.message and d.hint


def test_delimiters_in_code_or_formulas_are_not_warned_about() -> None:
    stem = Rich((Para((Code(r"\(x\)"), Str(" and "), Math("x", True))),))
    _, diags = write_quiz(_quiz(Question(id="e", stem=stem, body=Essay())))
    assert not [d for d in diags if d.rule == "gift.math-delimiter-in-text"]


# -- the reader, on GIFT from elsewhere -----------------------------------------------------


def test_moodle_editor_html_reads_as_rich_text_leniently() -> None:
    gift = (
        '::q::[html]<p dir\\="ltr" style\\="text-align\\: left;">Hello <b>world</b>\\n</p>\\n'
        "<h3>Note</h3><p>x</p>{}\n"
    )
    quiz, diags = read_quiz(gift, "moodle.gift.txt")
    assert quiz.questions[0].stem == Rich(
        (Para((Str("Hello "), _strong("world"))), Para((Str("Note"),)), Para((Str("x"),)))
    )
    assert [d.rule for d in diags] == ["gift.html-markup"]
    assert "<h3>" in diags[0].message


def _strong(text: str):
    from lmsexport.model import Strong

    return Strong((Str(text),))


def test_an_image_that_is_not_a_data_uri_is_lost_with_a_warning() -> None:
    quiz, diags = read_quiz(
        '::q::[html]<p>see <img src\\="https\\://x.org/a.png" alt\\="a chart"></p>{}', "x"
    )
    assert quiz.questions[0].stem == Rich((Para((Str("see a chart"),)),))
    assert [d.rule for d in diags] == ["gift.html-markup"]


def test_a_data_image_lmsexport_refuses_is_an_error() -> None:
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    html = f'<p><img src="data:image/svg+xml;base64,{base64.b64encode(svg).decode()}" alt="x"></p>'
    with pytest.raises(GiftSyntaxError) as info:
        read_quiz(f"::q::[html]{escape_plain(html)}{{}}", "x.gift.txt")
    (d,) = info.value.diagnostics
    assert d.rule == "gift.bad-image" and "<script>" in d.message


def test_data_uri_forms() -> None:
    png = (CASE / "img" / "bar.png").read_bytes()
    assert media_from_data_uri("https://x.org/a.png") is None
    plain = media_from_data_uri("data:image/png;base64," + base64.b64encode(png).decode())
    b64 = base64.b64encode(png).decode()
    spaced = media_from_data_uri(f"data:image/png;base64, {b64[:10]}\n{b64[10:]}")
    assert plain is not None and plain == spaced and plain.mime == "image/png" and plain.width == 48
    svg = media_from_data_uri(
        "data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22"
        "%20width%3D%222%22%20height%3D%221%22%2F%3E"
    )
    assert svg is not None and (svg.mime, svg.width, svg.height) == ("image/svg+xml", 2, 1)


def test_html_the_parser_makes_odd_elements_of_is_read_without_crashing() -> None:
    # Found by fuzzing: lxml's HTML parser makes an element named "hart]" of `<hart]`.
    quiz, diags = read_quiz("::q::[html]<p>down<hart]>x</p>{}", "x.gift.txt")
    assert quiz.questions[0].stem == Rich((Para((Str("downx"),)),))
    assert [d.rule for d in diags] == ["gift.html-markup"] and "<hart]>" in diags[0].message


@pytest.mark.parametrize(
    "html",
    [
        '<ol start="²"><li>a</li></ol>',  # a digit to str.isdigit(), not to int()
        '<ol start="' + "9" * 5000 + '"><li>a</li></ol>',  # past int()'s 4,300 digits
        "<table>" + "<tr><td><table>" * 1000 + "x",
    ],
)
def test_hostile_rich_html_is_read_without_crashing(html: str) -> None:
    from lmsexport.readers.gift import read_quiz_bytes

    quiz, diags = read_quiz_bytes(f"::q::[html]{escape_plain(html)}{{}}".encode(), "x.gift.txt")
    assert quiz is not None and isinstance(quiz.questions[0].stem, Rich)
    assert not [d for d in diags if d.severity is Severity.ERROR]


def test_nested_tables_are_read_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cell is read once: reading every descendant row of a table read the rows of nested
    tables once per enclosing row, exponential in the nesting (1,000 levels never finished)."""
    from lmsexport.readers import richhtml

    calls = []
    original = richhtml._Reader.inline_children
    monkeypatch.setattr(
        richhtml._Reader, "inline_children", lambda self, el: calls.append(el) or original(self, el)
    )
    depth = 12
    richhtml.read_html("<table>" + "<tr><td><table>" * depth + "x")
    assert len(calls) <= 2 * depth
