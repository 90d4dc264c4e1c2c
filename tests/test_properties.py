"""Any valid bank (tests/strategies.py) builds in every format: every QTI package and the
cartridge validate as untrusted packages would, the GIFT and Moodle XML round trips hold, the
HTML shows every text as text, and every text of the QTI 1.2 package reads back exactly. Banks
with rich texts and assessments build valid QTI 2.1 packages."""

from __future__ import annotations

import io
import zipfile

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from strategies import banks, rich_banks_with_assessments

from lmsexport.build import build, gift_round_trip, moodlexml_round_trip
from lmsexport.model import Bank, Matching, MultipleChoice, Quiz, SingleChoice, TrueFalse
from lmsexport.validate import validate_package
from lmsexport.validate_qti12 import validate_cartridge, validate_qti12_package
from lmsexport.writers import WRITERS


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(banks())
def test_any_bank_builds_validates_and_round_trips(bank: Bank) -> None:
    out = build(bank, list(WRITERS))  # raises if any XML fails its XSD, DTD or Schematron
    for quiz in bank.quizzes:
        package = out.files[f"qti21/{quiz.id}.zip"]
        problems = [d.format() for d in validate_package(package, f"{quiz.id}.zip")]
        assert problems == []
        package = out.files[f"qti12/{quiz.id}.zip"]
        assert [d.format() for d in validate_qti12_package(package, f"{quiz.id}.zip")] == []
        with zipfile.ZipFile(io.BytesIO(package)) as zf:
            assert qti12_texts(etree.fromstring(zf.read(f"{quiz.id}/{quiz.id}.xml"))) == model_texts(quiz)
    assert [d.format() for d in validate_cartridge(out.files["cc/bank.imscc"], "bank.imscc")] == []
    assert [d.format() for d in validate_cartridge(out.files["cc11/bank-cc11.imscc"], "b.imscc")] == []
    assert [d.format() for d in gift_round_trip(bank, out)] == []
    assert [d.format() for d in moodlexml_round_trip(bank, out)] == []
    for quiz in bank.quizzes:
        page = lxml.html.fromstring(out.files[f"html/{quiz.id}.html"])
        # Only the page's own scripts, whatever the texts hold.
        assert len(page.xpath("//script")) == 2
        assert not [a for el in page.iter() for a in el.attrib if a.lower().startswith("on")]
        legends = [e.text_content() for e in page.iter("legend")]
        assert legends == [q.stem for q in quiz.questions]
        assert page.findtext(".//title") == quiz.title


def qti12_texts(root: etree._Element) -> list[str]:
    """Every text of a Canvas-flavour assessment, as a learner would read it, in document order."""
    out = []
    for mattext in root.iter("mattext"):
        if mattext.get("texttype") == "text/plain":
            out.append(mattext.text or "")
            continue
        div = lxml.html.fragment_fromstring(mattext.text)
        assert div.tag == "div" and all(br.tag == "br" for br in div)
        out.append("\n".join([div.text or "", *(br.tail or "" for br in div)]))
    return out


def model_texts(quiz: Quiz) -> list[str]:
    """The same texts from the model, in the order the writer emits them."""
    out = []
    for q in quiz.questions:
        out.append(q.stem)
        feedback = []
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices):
                out += [c.text for c in choices]
                feedback = [c.feedback for c in choices if c.feedback]
            case TrueFalse():
                out += ["True", "False"]
            case Matching(pairs, distractors):
                rights: list[str] = []
                for text in [p.right for p in pairs] + list(distractors):
                    if text not in rights:
                        rights.append(text)
                for pair in pairs:
                    out += [pair.left, *rights]
        if q.explanation:
            out.append(q.explanation)
        out += feedback
    return out


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(rich_banks_with_assessments())
def test_any_rich_bank_with_assessments_builds_valid_qti_packages(bank: Bank) -> None:
    """Rich texts (math, code, lists, tables, images) and assessments: every QTI package is valid
    as an untrusted package, and a question is the same item in every package that holds it."""
    out = build(bank, ["qti21"])  # raises if any XML fails its XSD
    assert sorted(out.files) == sorted(f"qti21/{t.id}.zip" for t in (*bank.quizzes, *bank.assessments))
    items: dict[str, bytes] = {}
    for name, package in sorted(out.files.items()):
        assert [d.format() for d in validate_package(package, name)] == []
        with zipfile.ZipFile(io.BytesIO(package)) as zf:
            for member in zf.namelist():
                if member.startswith("items/"):
                    data = zf.read(member)
                    assert items.setdefault(member, data) == data, (name, member)


def _html_text_by_lxml(text: str, lang: str) -> str:
    """qti12.html_text of a plain text as lxml writes it (the definition its string path keeps)."""
    from lxml import etree

    from lmsexport.model import direction

    div = etree.Element("div", dir=direction(lang), lang=lang)
    lines = text.split("\n")
    div.text = lines[0]
    for line in lines[1:]:
        etree.SubElement(div, "br").tail = line
    return etree.tostring(div, encoding="unicode")


@settings(max_examples=400, deadline=None)
@given(
    st.text(max_size=60) | st.text(alphabet="\n\r\t&<>\"' ab\u200fاردو", max_size=30),
    st.sampled_from(["ur", "en", "ar-Latn", "en-US", "ur_PK", 'x"y']),
)
def test_plain_html_text_is_what_lxml_writes(text: str, lang: str) -> None:
    """qti12.html_text writes a plain text as strings; the bytes are lxml's for any text and
    language, and where lxml refuses a character so does html_text."""
    from lmsexport.writers import qti12

    try:
        expected = _html_text_by_lxml(text, lang)
    except ValueError:
        with pytest.raises(ValueError):
            qti12.html_text(text, lang)
        return
    assert qti12.html_text(text, lang) == expected


_NUMBER_TEXTS = (
    st.from_regex(r"[-+]?(0|[1-9][0-9]{0,25})", fullmatch=True)
    | st.from_regex(r"[-+]?([0-9]{1,20}\.[0-9]{0,20}|\.[0-9]{1,20})([eE][-+]?[0-9]{1,3})?", fullmatch=True)
    | st.from_regex(
        r"[-+]?(0[0-7_]{1,6}|0x[0-9a-fA-F_]{1,6}|0b[01_]{1,8}|[1-9][0-9_]{0,6}(:[0-5]?[0-9]){0,2})",
        fullmatch=True,
    )
    | st.from_regex(
        r"[-+]?([0-9][0-9_]{0,6}\.[0-9_]{0,6}([eE][-+][0-9]{1,3})?|\.(inf|Inf|INF|nan|NaN|NAN))",
        fullmatch=True,
    )
    | st.floats(allow_nan=False).map(repr)
    | st.integers().map(str)
)


@settings(max_examples=500, deadline=None)
@given(_NUMBER_TEXTS)
def test_a_number_is_what_pyyaml_constructs(text: str) -> None:
    """source._number reads the decimal forms itself and leaves the rest to PyYAML: for any
    scalar PyYAML resolves as an int or a float, the number (or the error) is PyYAML's, and a
    scalar PyYAML resolves as a number but cannot make one ("0x_") is an error, not a traceback."""
    import math

    import yaml

    from lmsexport import source

    tag = yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False))
    if tag not in (source._INT, source._FLOAT):
        return
    node = source.Node("scalar", "bank.yaml", 1, 1, value=text, tag=tag)
    ctx = source._Ctx("bank.yaml", [])
    try:
        expected = float(yaml.safe_load(text))
    except ValueError:  # resolved as a number, not one PyYAML can make ("0b_"): an error, no traceback
        assert source._number(ctx, node, "a number") is None
        assert [d.message for d in ctx.diags] == [f"a number '{text}' is not a number"]
        return
    got = source._number(ctx, node, "a number")
    if math.isfinite(expected):
        assert got == expected and math.copysign(1, got) == math.copysign(1, expected), (text, got)
        assert ctx.diags == []
    else:
        assert got is None and [d.message for d in ctx.diags] == ["a number must be a finite number"]


@pytest.mark.parametrize("digits", [400, 5000])
def test_a_number_past_a_floats_range_is_an_error_not_a_traceback(digits: int) -> None:
    """An int of 400 digits overflows float(); one of 5,000 passes Python's limit on an int's
    digits: both are the loader's error, as 1e400 is."""
    from lmsexport import source

    for text in ("9" * digits, "-" + "9" * digits, "9_" + "9" * digits):
        node = source.Node("scalar", "bank.yaml", 3, 13, value=text, tag=source._INT)
        ctx = source._Ctx("bank.yaml", [])
        assert source._number(ctx, node, "points") is None
        assert [(d.message, d.rule) for d in ctx.diags] == [
            ("points must be a finite number", "source.bad-number")
        ]


def test_a_long_scalar_that_is_no_number_is_shown_cut() -> None:
    """YAML 1.1 resolves "0x___..." as an int that PyYAML cannot make: the error shows its
    first 37 characters and "...", not the whole scalar."""
    from lmsexport import source

    text = "0x" + "_" * 60
    node = source.Node("scalar", "bank.yaml", 3, 13, value=text, tag=source._INT)
    ctx = source._Ctx("bank.yaml", [])
    assert source._number(ctx, node, "points") is None
    assert [d.message for d in ctx.diags] == [f"points '{text[:37]}...' is not a number"]
