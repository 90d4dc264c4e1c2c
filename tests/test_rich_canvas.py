"""Rich text in the Canvas-flavour QTI 1.2 packages and the Common Cartridges: the rich case
(tests/cases/rich) as golden packages, every text read back as written (images from the package's
own files, formulas from their MathML's TeX annotation), images resolved the way Canvas's and
Moodle's importers resolve them, code left to right, and any rich quiz round-tripping."""

from __future__ import annotations

import io
import posixpath
import zipfile
from dataclasses import replace
from pathlib import Path

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from strategies import rich_banks_with_assessments
from test_html_writer import _rich_quiz

from lmsexport.build import build
from lmsexport.media import sniff
from lmsexport.model import (
    Bank,
    Essay,
    Matching,
    Math,
    Media,
    MultipleChoice,
    Numerical,
    Question,
    QuestionType,
    Quiz,
    Rich,
    ShortAnswer,
    SingleChoice,
    Text,
    inlines_of,
)
from lmsexport.readers.richhtml import read_html
from lmsexport.source import load_paths
from lmsexport.validate_qti12 import validate_cartridge, validate_qti12_package
from lmsexport.writers import qti12

CASE = Path(__file__).resolve().parent / "cases" / "rich"
FORMATS = ["qti12", "cc13", "cc11"]
Q = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
MATHML = "{http://www.w3.org/1998/Math/MathML}"
FILEBASE = "$IMS-CC-FILEBASE$"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_paths([CASE / "bank.yaml"])


@pytest.fixture(scope="module")
def output(bank: Bank) -> dict[str, bytes]:
    return build(bank, FORMATS).files


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def test_golden(output: dict[str, bytes], golden) -> None:  # type: ignore[no-untyped-def]
    """The packages' members, unzipped so that diffs are readable (images included)."""
    expected = CASE / "expected"
    seen = set()
    for path, data in output.items():
        folder = Path(path).with_suffix("").as_posix()  # qti12/rich-text, cc/bank, cc11/bank-cc11
        for name, content in members(data).items():
            golden(expected / folder / name, content)
            seen.add(f"{folder}/{name}")
    on_disk = {p.relative_to(expected).as_posix() for p in expected.rglob("*") if p.is_file()}
    stale = {p for p in on_disk if p.split("/")[0] in ("qti12", "cc", "cc11")} - seen
    assert not stale, f"expected files no build produces any more: {sorted(stale)}"


def test_packages_validate_and_warn_only_of_real_losses(bank: Bank, output: dict[str, bytes]) -> None:
    assert validate_qti12_package(output["qti12/rich-text.zip"], "rich-text.zip") == []
    assert validate_cartridge(output["cc/bank.imscc"], "bank.imscc") == []
    assert validate_cartridge(output["cc11/bank-cc11.imscc"], "bank-cc11.imscc") == []
    rules = sorted({w.rule for w in build(bank, FORMATS).warnings})
    assert rules == [
        "cc11.case-sensitive",
        "cc11.matching-split",
        "cc11.numerical-as-fib",
        "cc11.partial-credit",
        "cc11.points-not-carried",  # the matching question's 1 point over its 2 items
        "cc13.case-sensitive",
        "cc13.matching-split",
        "cc13.numerical-as-fib",
        "cc13.partial-credit",
        "cc13.points-not-carried",
        "qti12.canvas-case-sensitive",
    ]


# --------------------------------------------------------------------------- reading texts back


def _resolver(files: dict[str, bytes], doc: str, cartridge: bool):  # type: ignore[no-untyped-def]
    """An image callback for read_html: the package's own file, as Moodle's importer finds it
    in a cartridge (``$IMS-CC-FILEBASE$`` is the document's folder: backup/cc/entities.class.php
    update_sources) and Canvas's in a QTI package (relative to the document)."""

    def image(src: str) -> Media | None:
        if cartridge:
            assert src.startswith(FILEBASE), src
            src = src[len(FILEBASE) :]
        path = posixpath.normpath(posixpath.join(posixpath.dirname(doc), src))
        data = files[path]
        found = sniff(data)
        return Media(path, data, found.mime, found.width, found.height)

    return image


def read_text(mattext: etree._Element, expected: Text, image) -> Text:  # type: ignore[no-untyped-def]
    """A mattext back to the model's text: a plain one from its div's lines, a rich one through
    the inverse renderer (lmsexport.readers.richhtml) from the div's content."""
    assert mattext.get("texttype") == "text/html"
    div = lxml.html.fragment_fromstring(mattext.text)
    assert div.tag == "div" and div.get("dir") in ("ltr", "rtl") and div.get("lang")
    if isinstance(expected, str):
        assert all(br.tag == "br" for br in div)
        return "\n".join([div.text or "", *(br.tail or "" for br in div)])
    inner = (div.text or "") + "".join(lxml.html.tostring(c, encoding="unicode") for c in div)
    rich, lost = read_html(inner, image)
    assert lost == []
    assert rich is not None
    return rich


def item_texts(item: etree._Element, question: Question, image) -> dict[str, Text]:  # type: ignore[no-untyped-def]
    """The texts of a Canvas-flavour item, named as expected_texts names the question's."""
    ns = Q if item.tag.startswith(Q) else ""
    expected = expected_texts(question)
    out = {"stem": read_text(item.find(f"{ns}presentation/{ns}material/{ns}mattext"), question.stem, image)}
    feedback = {fb.get("ident"): fb.find(f".//{ns}mattext") for fb in item.iter(f"{ns}itemfeedback")}
    if question.explanation:
        out["explanation"] = read_text(feedback[qti12.GENERAL_FB], question.explanation, image)
    body = question.body
    if isinstance(body, SingleChoice | MultipleChoice):
        labels = item.findall(f".//{ns}response_label")
        for i, (label, choice) in enumerate(zip(labels, body.choices, strict=True)):
            out[f"c{i}"] = read_text(label.find(f".//{ns}mattext"), choice.text, image)
            if choice.feedback:
                out[f"f{i}"] = read_text(feedback[f"{label.get('ident')}_fb"], choice.feedback, image)
    pairs = body.pairs if isinstance(body, Matching) else ()
    for i, (lid, pair) in enumerate(zip(item.findall(f".//{ns}response_lid"), pairs, strict=False)):
        out[f"l{i}"] = read_text(lid.find(f"{ns}material/{ns}mattext"), pair.left, image)
    assert set(out) == set(expected)
    return out


def expected_texts(question: Question) -> dict[str, Text]:
    out: dict[str, Text] = {"stem": question.stem}
    if question.explanation:
        out["explanation"] = question.explanation
    body = question.body
    if isinstance(body, SingleChoice | MultipleChoice):
        for i, c in enumerate(body.choices):
            out[f"c{i}"] = c.text
            if c.feedback:
                out[f"f{i}"] = c.feedback
    if isinstance(body, Matching):
        for i, p in enumerate(body.pairs):
            out[f"l{i}"] = p.left
    return out


def test_every_qti12_text_reads_back_as_written(bank: Bank, output: dict[str, bytes]) -> None:
    files = members(output["qti12/rich-text.zip"])
    doc = "rich-text/rich-text.xml"
    root = etree.fromstring(files[doc])
    image = _resolver(files, doc, cartridge=False)
    (quiz,) = bank.quizzes
    items = {item.get("ident"): item for item in root.iter("item")}
    for question in quiz.questions:
        assert item_texts(items[question.id], question, image) == expected_texts(question), question.id
    meta = etree.fromstring(files["rich-text/assessment_meta.xml"])
    description = meta.find(f"{{{qti12.CANVAS_NS}}}description")
    assert read_text(_as_mattext(description.text), quiz.description, image) == quiz.description


def _as_mattext(html: str) -> etree._Element:
    el = etree.Element("mattext", texttype="text/html")
    el.text = html
    return el


@pytest.mark.parametrize("path", ["cc/bank.imscc", "cc11/bank-cc11.imscc"])
def test_every_cartridge_text_reads_back_as_written(bank: Bank, output: dict[str, bytes], path: str) -> None:
    """Items the profile asks as the quiz asks them (not matching, true/false or numerical,
    which it rewrites): every text back, images through Moodle's resolution of the token."""
    files = members(output[path])
    (quiz,) = bank.quizzes
    docs = ["rich-text/assessment.xml"] + (["banks/rich-text.xml"] if path.startswith("cc/") else [])
    for doc in docs:
        root = etree.fromstring(files[doc])
        image = _resolver(files, doc, cartridge=True)
        items = {item.get("ident"): item for item in root.iter(f"{Q}item")}
        for question in quiz.questions:
            if question.type in (QuestionType.MATCHING, QuestionType.TRUE_FALSE, QuestionType.NUMERICAL):
                continue
            assert item_texts(items[question.id], question, image) == expected_texts(question), (
                doc,
                question.id,
            )
    description = etree.fromstring(files["rich-text/assessment.xml"]).find(
        f".//{Q}presentation_material//{Q}mattext"
    )
    image = _resolver(files, "rich-text/assessment.xml", cartridge=True)
    assert read_text(description, quiz.description, image) == quiz.description


# --------------------------------------------------------------------------- images, math, code


def _srcs(files: dict[str, bytes]) -> dict[str, list[str]]:
    """Every img src in the HTML of every QTI document (mattexts and Canvas's description)."""
    out = {}
    for name, data in files.items():
        if not name.endswith(".xml") or name == "imsmanifest.xml":
            continue
        root = etree.fromstring(data)
        texts = [el.text for el in root.iter() if isinstance(el.tag, str) and el.text and "<" in el.text]
        out[name] = [
            src for t in texts for src in lxml.html.fragment_fromstring(t, "div").xpath("//img/@src")
        ]
    return out


def test_qti12_images_are_package_files_canvas_finds(bank: Bank, output: dict[str, bytes]) -> None:
    """Each src is relative to its document, names a member holding the image's bytes, and that
    member is a manifest ``file``: Canvas's converter copies every manifest file into its output
    (QTIMigrationTool imsqtiv1.py Manifest.AddCPFile) and Canvas replaces a src by the file whose
    path ends with it (qti_exporter html_helper.rb find_best_path_match)."""
    files = members(output["qti12/rich-text.zip"])
    manifest = etree.fromstring(files["imsmanifest.xml"])
    hrefs = {f.get("href") for f in manifest.iter(f"{{{qti12.CP_NS}}}file")}
    by_name = {m.filename: m for q in bank.quizzes for m in qti12.quiz_media(q).values()}
    srcs = _srcs(files)
    assert sorted({s for v in srcs.values() for s in v}) == sorted(f"media/{n}" for n in by_name)
    for doc, found in srcs.items():
        for src in found:
            path = posixpath.join(posixpath.dirname(doc), src)
            assert files[path] == by_name[src.split("/")[-1]].data
            assert [h for h in hrefs if h.endswith(src)] == [path]
    images = [m for m in files if "/media/" in m]
    assert sorted(images) == sorted(f"rich-text/media/{n}" for n in by_name)


@pytest.mark.parametrize("path", ["cc/bank.imscc", "cc11/bank-cc11.imscc"])
def test_cartridge_images_are_web_content_canvas_and_moodle_find(
    bank: Bank, output: dict[str, bytes], path: str
) -> None:
    """``$IMS-CC-FILEBASE$../web_resources/media/<file>``: Moodle resolves the token as the
    document's folder and copies every webcontent file (entities.class.php update_sources,
    cc112moodle.php $restypes); Canvas strips the token and the ``../``, then finds the path
    among the webcontent files with ``web_resources/`` taken off (lib/cc/importer/standard/
    converter.rb get_canvas_att_replacement_url, webcontent_converter.rb create_file_map)."""
    files = members(output[path])
    manifest = etree.fromstring(files["imsmanifest.xml"])
    ns = manifest.nsmap[None]
    web = {
        f.get("href")
        for r in manifest.iter(f"{{{ns}}}resource")
        if r.get("type") == "webcontent"
        for f in r.iter(f"{{{ns}}}file")
    }
    canvas_files = {h.removeprefix("web_resources/") for h in web}
    srcs = _srcs(files)
    assert any(srcs.values())
    for doc, found in srcs.items():
        for src in found:
            assert src.startswith(FILEBASE + "../web_resources/media/"), src
            moodle = posixpath.normpath(posixpath.join(posixpath.dirname(doc), src[len(FILEBASE) :]))
            assert moodle in web and moodle in files
            canvas = src[len(FILEBASE) :].removeprefix("../").removeprefix("web_resources/")
            assert canvas in canvas_files
    # every document that shows an image depends on its webcontent resource
    for res in manifest.iter(f"{{{ns}}}resource"):
        (doc,) = [f.get("href") for f in res.iter(f"{{{ns}}}file")]
        needed = {f"WEB-{s.rsplit('/', 1)[1]}" for s in srcs.get(doc, [])}
        assert {d.get("identifierref") for d in res.iter(f"{{{ns}}}dependency")} == needed, doc


@pytest.mark.parametrize("path", ["qti12/rich-text.zip", "cc/bank.imscc", "cc11/bank-cc11.imscc"])
def test_math_is_mathml_carrying_its_tex_and_code_is_left_to_right(
    bank: Bank, output: dict[str, bytes], path: str
) -> None:
    """Canvas keeps MathML through its sanitizer and loads MathJax for it (docs/research/
    rich-text.md, 2); the TeX rides along as the annotation. Code keeps ``dir="ltr"``, which
    Canvas's sanitizer keeps (attributes ``:all``), inside Urdu text."""
    files = members(output[path])
    tex = set()
    for name, data in files.items():
        if not name.endswith(".xml") or name == "imsmanifest.xml":
            continue
        for el in etree.fromstring(data).iter():
            if not (isinstance(el.tag, str) and el.text and el.text.startswith("<div")):
                continue
            frag = lxml.html.fragment_fromstring(el.text)
            for math in frag.iter(f"{MATHML}math", "math"):
                (annotation,) = math.iter(f"{MATHML}annotation", "annotation")
                assert annotation.get("encoding") == "application/x-tex"
                tex.add(annotation.text)
            for code in frag.iter("code", "pre"):
                if code.tag == "pre" or code.getparent().tag != "pre":
                    assert (code.get("dir"), code.get("class")) == ("ltr", "ltr")
    (quiz,) = bank.quizzes
    texts = [quiz.description, *(t for q in quiz.questions for t in qti12.question_texts(q))]
    assert tex == {x.tex for t in texts for x in inlines_of(t) if isinstance(x, Math)}


# --------------------------------------------------------------------------- any rich quiz


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.composite(_rich_quiz)())
def test_any_rich_quiz_reads_back_from_qti12_and_validates(quiz: Quiz) -> None:
    out = build(Bank((quiz,)), FORMATS)
    files = members(out.files[f"qti12/{quiz.id}.zip"])
    doc = f"{quiz.id}/{quiz.id}.xml"
    image = _resolver(files, doc, cartridge=False)
    items = {item.get("ident"): item for item in etree.fromstring(files[doc]).iter("item")}
    for question in quiz.questions:
        if question.type is QuestionType.TRUE_FALSE:
            continue  # its choices are Canvas's True/False
        assert item_texts(items[question.id], question, image) == expected_texts(question)
    assert validate_qti12_package(out.files[f"qti12/{quiz.id}.zip"], "q.zip") == []
    assert validate_cartridge(out.files["cc/bank.imscc"], "bank.imscc") == []
    assert validate_cartridge(out.files["cc11/bank-cc11.imscc"], "bank.imscc") == []


def _other(question: Question) -> Question:
    """The same shape with another id and other texts (plain ones stay plain, rich ones rich)."""

    def other(text: Text | None) -> Text | None:
        if text is None or isinstance(text, str):
            return None if text is None else "<&" + text[::-1] + "]]>"
        return Rich(tuple(reversed(text.blocks)))

    body = question.body
    if isinstance(body, SingleChoice | MultipleChoice):
        body = replace(
            body,
            choices=tuple(
                replace(
                    c, text=other(c.text) or "y", feedback=other(c.feedback) if c.feedback else c.feedback
                )
                for c in body.choices
            ),
        )
    elif isinstance(body, ShortAnswer):  # its answers are slots too (and a numerical one's key)
        body = replace(
            body,
            answers=tuple(
                replace(
                    a, text=a.text[::-1] + "<&z", feedback=other(a.feedback) if a.feedback else a.feedback
                )
                for a in body.answers
            ),
        )
    elif isinstance(body, Numerical):
        body = replace(
            body,
            keys=tuple(
                replace(k, answer=None if k.answer is None else k.answer * 3 + 1, feedback=other(k.feedback))
                if k.low is None
                else k
                for k in body.keys
            ),
        )
    fb = question.feedback
    return replace(
        question,
        # a right and a wrong response's feedback are slots too (an empty one stays empty)
        feedback=replace(
            fb,
            correct=other(fb.correct) if fb.correct else fb.correct,
            incorrect=other(fb.incorrect) if fb.incorrect else fb.incorrect,
        ),
        id=question.id + "-b",
        name=question.name + "-b" if question.name is not None else None,
        stem=other(question.stem) or "x",
        explanation=other(question.explanation) if question.explanation else question.explanation,
        body=body,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.composite(_rich_quiz)())
def test_items_from_skeletons_are_the_built_items(quiz: Quiz) -> None:
    """qti12.item_tree's and cc13.item_tree's fast path (a copy of the shape's skeleton, its
    slots filled) gives the builder's bytes, whichever question of the shape made the skeleton."""
    _check_skeletons(quiz)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(rich_banks_with_assessments(everything=True))
def test_any_bank_with_credits_and_feedback_validates_and_skeletons_hold(bank: Bank) -> None:
    """Credits, names, combined, true/false and answer feedback (rich or plain): every package
    valid (DTD, CC XSD and Schematron), every item the builder's."""
    out = build(bank, FORMATS)
    for path, data in out.files.items():
        if path.startswith("qti12/"):
            assert validate_qti12_package(data, path) == []
        else:
            assert validate_cartridge(data, path) == []
    for quiz in bank.quizzes:
        _check_skeletons(quiz)


def _check_skeletons(quiz: Quiz) -> None:
    from lmsexport.package import serialize
    from lmsexport.writers import cc13

    for q in quiz.questions:
        for source, target in ((q, q), (_other(q), q), (q, _other(q))):
            for points in (None, 7.0):
                qti12._SKELETONS.clear()
                qti12.item_tree(quiz, source, points=points)
                fast = qti12.item_tree(quiz, target, points=points)
                assert serialize(fast) == serialize(qti12.build_item_tree(quiz, target, points=points))
                # the fast path was taken (a skeleton made, not given up) where the type allows it
                assert [v is not None for v in qti12._SKELETONS.values()] == [True] * qti12.skeleton_type(q)
            for version in (cc13.CC13, cc13.CC11):
                qti12._SKELETONS.clear()
                made = {}
                for which in (source, target):
                    (cc,) = cc13.cc_items(quiz, set(), [(which, which.points)], version.choices_min)[:1] or [
                        None
                    ]
                    made[which.id] = cc
                if made[target.id] is None or len(cc13.cc_items(quiz, set(), [(target, 1.0)])) != 1:
                    continue
                holder = etree.Element(f"{Q}section")
                if made[source.id] is not None:
                    cc13.item_tree(quiz, made[source.id], "cat", holder)
                fast = cc13.item_tree(quiz, made[target.id], "cat", holder)
                slow = cc13.build_item_tree(quiz, made[target.id], "cat", etree.Element(f"{Q}section"))
                assert etree.tostring(fast) == etree.tostring(slow)
    qti12._SKELETONS.clear()


def test_short_answers_and_numerical_keys_take_the_skeleton_path() -> None:
    """A short answer's item (QTI 1.2, both cartridges) and a numerical question's
    fill-in-the-blank in a cartridge come from a skeleton, its answers slots like its texts: the
    builder's bytes for each, whichever question of the shape made the skeleton (answers with
    and without feedback, case-sensitive, a wildcard one left out, one partly right; a plain and
    a rich feedback; a key with a tolerance)."""
    from lmsexport.model import Answer, NumericKey, Para, Str
    from lmsexport.package import serialize
    from lmsexport.writers import cc13

    rich = Rich((Para((Str("ZeRO-3 <shards> & "), Str("parameters"))),))
    shorts = [
        ShortAnswer((Answer("ZeRO-3"), Answer("zero 3", feedback="قریب"), Answer("Z*", wildcard=True))),
        ShortAnswer((Answer("Adam & <m>", feedback=rich), Answer("adam", 0.5)), case_sensitive=True),
        ShortAnswer((Answer("x*", wildcard=True),)),
    ]
    questions = [Question(id=f"s{i}", stem="کون سا؟", body=b) for i, b in enumerate(shorts)]
    questions.append(Question(id="n1", stem="GB?", body=Numerical((NumericKey(12.5, 0.1),))))
    quiz = Quiz("sa", "SA", "ur", tuple(questions))
    _check_skeletons(quiz)
    # An empty feedback is written, with no slot: a shape of its own, never the one of a text.
    empty, text = (
        Question(id=f"e{i}", stem="کون سا؟", body=ShortAnswer((Answer("Paris", feedback=fb),)))
        for i, fb in enumerate(("", "Well done"))
    )
    qti12._SKELETONS.clear()
    for q in (empty, text):
        assert serialize(qti12.item_tree(quiz, q)) == serialize(qti12.build_item_tree(quiz, q))
    for q in quiz.questions:
        assert qti12.skeleton_type(q) is isinstance(q.body, ShortAnswer)
        qti12._SKELETONS.clear()
        (cc,) = cc13.cc_items(quiz, set(), [(q, q.points)])
        cc13.item_tree(quiz, cc, "cat", etree.Element(f"{Q}section"))
        assert [v is not None for v in qti12._SKELETONS.values()] == [True]  # made, not given up
    qti12._SKELETONS.clear()


def test_feedback_on_right_and_wrong_responses_takes_the_skeleton_path() -> None:
    """Moodle's combined feedback on a right and a wrong response (correct_fb,
    general_incorrect_fb) are slots of a QTI 1.2 and a cartridge item's skeleton: the builder's
    bytes whichever question of the shape made it, plain or rich, with an empty one (written,
    no slot) a shape of its own; true/false feedback still builds."""
    from lmsexport.model import Choice, OutcomeFeedback, Para, Str
    from lmsexport.writers import cc13

    rich = Rich((Para((Str("ٹھیک <b> & "), Str("ZeRO"))),))
    body = SingleChoice((Choice("params", 1.0, feedback="ہاں"), Choice("grads", 0.5), Choice("none", 0.0)))
    questions = [
        Question(id=f"f{i}", stem="ZeRO-3?", body=body, feedback=fb)
        for i, fb in enumerate(
            (
                OutcomeFeedback("ٹھیک", "آدھا", "غلط"),
                OutcomeFeedback(rich, None, "غلط\nدوبارہ"),
                OutcomeFeedback("", None, None),
                OutcomeFeedback(None, "آدھا", "غلط"),
            )
        )
    ]
    quiz = Quiz("ofb", "OFB", "ur", tuple(questions))
    _check_skeletons(quiz)
    for q in quiz.questions:
        qti12._SKELETONS.clear()
        qti12.item_tree(quiz, q)
        (cc,) = cc13.cc_items(quiz, set(), [(q, q.points)])
        cc13.item_tree(quiz, cc, "cat", etree.Element(f"{Q}section"))
        assert len(qti12._SKELETONS) == 2 and None not in qti12._SKELETONS.values()  # made, not given up
    qti12._SKELETONS.clear()


def test_true_false_with_an_empty_answer_feedback_is_built() -> None:
    """The builder writes a true/false answer's feedback whenever it is not None, an empty one
    too: such a question is built, never a copy of the skeleton of one without feedback (the
    QTI 1.2 item and both cartridges'), whichever comes first."""
    from lmsexport.model import TrueFalse
    from lmsexport.package import serialize
    from lmsexport.writers import cc13

    plain = Question(id="t1", stem="ZeRO-1 بانٹتا ہے؟", body=TrueFalse(True))
    empty = Question(id="t2", stem="ZeRO-2 بانٹتا ہے؟", body=TrueFalse(True, feedback_true=""))
    quiz = Quiz("tf", "TF", "ur", (plain, empty))
    for order in ((plain, empty), (empty, plain)):
        qti12._SKELETONS.clear()
        for q in order:
            assert serialize(qti12.item_tree(quiz, q)) == serialize(qti12.build_item_tree(quiz, q))
            for version in (cc13.CC13, cc13.CC11):
                (cc,) = cc13.cc_items(quiz, set(), [(q, q.points)], version.choices_min)
                fast = cc13.item_tree(quiz, cc, "cat", etree.Element(f"{Q}section"))
                slow = cc13.build_item_tree(quiz, cc, "cat", etree.Element(f"{Q}section"))
                assert etree.tostring(fast) == etree.tostring(slow)
    qti12._SKELETONS.clear()


def test_a_literal_tex_delimiter_is_not_a_formula() -> None:
    """Prose that spells ``\\(`` or ``$$`` is kept from MathJax (Canvas's with
    new_math_equation_handling, Moodle's filter): a ``tex2jax_ignore`` span with ``\\`` and ``$``
    as character references, read back as the same text."""
    from lmsexport.model import Para, Str

    text = "cost \\(n\\) or $$x$$ in prose"
    quiz = Quiz("lit", "Lit", "en", (Question(id="q", stem=Rich((Para((Str(text),)),)), body=Essay()),))
    out = build(Bank((quiz,)), FORMATS)
    files = members(out.files["qti12/lit.zip"])
    item = etree.fromstring(files["lit/lit.xml"]).find(".//item")
    mattext = item.find("presentation/material/mattext")
    assert "tex2jax_ignore" in mattext.text and "\\(" not in mattext.text and "$$" not in mattext.text
    assert read_text(mattext, quiz.questions[0].stem, None) == quiz.questions[0].stem
    cc = etree.fromstring(members(out.files["cc11/bank-cc11.imscc"])["lit/assessment.xml"])
    (stem,) = [m.text for m in cc.iter(f"{Q}mattext")]
    assert "tex2jax_ignore" in stem and "\\(" not in stem  # the item's title stays plain text
