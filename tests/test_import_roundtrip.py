"""Round trips through `lmsexport import`, as property tests over any bank (strategies.banks()):

* for every format that carries a bank whole (GIFT and Moodle XML, with lmsexport's metadata
  comments), ``import(build(B)) == B``; for QTI 2.1 and QTI 1.2, it equals what the format keeps
  (``kept``): the whole import, sources written to disk, YAML written, loaded again, compared;
* a foreign GIFT file (lmsexport's, stripped of everything lmsexport adds for itself, as Moodle's
  own export looks), imported and built as GIFT again, gives Moodle the same questions: both files
  read by the GIFT reader item for item;
* the text path: any rich text lmsexport renders as HTML (Moodle's formats, QTI 1.2) or as QTI
  2.1 XHTML with MathML comes back as the same tree.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import MD_RICH, RICH, banks

from lmsexport.build import build
from lmsexport.importer import find_sources, output_files, read_sources, verify
from lmsexport.mathml import to_mathml
from lmsexport.model import (
    Answer,
    Assessment,
    Bank,
    Calculated,
    CalculatedChoice,
    Draw,
    Essay,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    Question,
    QuestionType,
    Quiz,
    Rich,
    Section,
    ShortAnswer,
    SingleChoice,
)
from lmsexport.readers.drafts import Images, html_text
from lmsexport.readers.gift import read_gift
from lmsexport.readers.richhtml import read_element
from lmsexport.source import load_paths
from lmsexport.writers.gift import write_quiz as write_gift
from lmsexport.writers.richtext import Flavour, Renderer, to_html

ROOT = Path(__file__).resolve().parents[1]
FORMATS = {"gift": "gift", "moodlexml": "moodle", "qti21": "qti21", "qti12": "qti12"}


def _import(files: dict[str, bytes], lang: str | None = None) -> tuple[Bank, list[str]]:
    """Write sources to a folder, import it, write the YAML, load it again."""
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for rel, data in files.items():
            (root / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "src" / rel).write_bytes(data)
        result = read_sources(find_sources([root / "src"]), lang)
        assert not result.failed, [x.format() for x in result.diags]
        written, lost = output_files(result)
        out = root / "out"
        for rel, data in written.items():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / rel).write_bytes(data)
        problems = verify(out, result, lost, out)
        assert problems == [], [p.format() for p in problems]
        return load_paths([out]), [x.format() for x in result.diags]


def _bounds(key: NumericKey, keep_answer: bool = True) -> NumericKey:
    """A numerical key by what a QTI file holds: the accepted interval (and the answer)."""
    low, high = key.bounds
    return replace(key, answer=key.answer if keep_answer else None, tolerance=0.0, low=low, high=high)


def _kept(fmt: str, quiz: Quiz) -> Quiz:
    """What a format carries of a quiz (lmsexport's own files: everything but the listed losses)."""
    if fmt == "gift":  # a parametric question is its variants (writers/gift.py as_written)
        from lmsexport.writers.gift import as_written

        return replace(quiz, questions=tuple(x for q in quiz.questions for x in as_written(q)))
    if fmt == "moodlexml":
        return quiz
    from lmsexport.writers.qti21 import item_questions

    questions = []
    # QTI 2.1 too: each variant an item (writers/qti21.py item_questions).
    for q in (x for y in quiz.questions for x in (item_questions(y) if fmt == "qti21" else (y,))):
        match q.body:
            case Numerical(keys):
                # QTI 1.2 writes a range as vargte/varlte only: the answer inside it is not written.
                bounded = tuple(
                    _bounds(k, keep_answer=not (fmt == "qti12" and k.low is not None)) for k in keys
                )
                q = replace(q, body=replace(q.body, keys=bounded))
            case ShortAnswer(answers, case_sensitive=False) if fmt == "qti21":
                seen: dict[str, Answer] = {}
                for a in answers:  # one mapEntry per answer, case-insensitively
                    seen.setdefault(a.text.casefold(), a)
                q = replace(q, body=replace(q.body, answers=tuple(seen.values())))
        if fmt == "qti12":
            q = replace(q, tags=())
        questions.append(q)
    shuffles = any(
        q.type in (QuestionType.SINGLE, QuestionType.MULTIPLE, QuestionType.MATCHING) for q in questions
    )
    # QTI 2.1 says "shuffle" on choice and match interactions only (QTI 1.2 also in Canvas's settings).
    shuffle = quiz.shuffle if shuffles or fmt == "qti12" else True
    quiz = replace(quiz, questions=tuple(questions), category=None, shuffle=shuffle)
    if fmt == "qti12":
        quiz = replace(quiz, difficulty=None)
    return quiz


def _normal(fmt: str, quiz: Quiz) -> Quiz:
    if fmt in ("gift", "moodlexml"):
        return quiz
    questions = []
    for q in quiz.questions:
        if isinstance(q.body, Numerical):
            q = replace(
                q, body=replace(q.body, keys=tuple(_bounds(k, keep_answer=True) for k in q.body.keys))
            )
        questions.append(q)
    return replace(quiz, questions=tuple(questions))


def _diff(a: Quiz, b: Quiz) -> list[str]:
    out = [
        f.name
        for f in fields(a)
        if f.compare and f.name != "questions" and getattr(a, f.name) != getattr(b, f.name)
    ]
    for x, y in zip(a.questions, b.questions, strict=False):
        out += [
            f"{x.id}.{f.name}" for f in fields(x) if f.compare and getattr(x, f.name) != getattr(y, f.name)
        ]
    if len(a.questions) != len(b.questions):
        out.append("question count")
    return out


@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(bank=banks())
def test_import_of_build_is_the_bank(fmt: str, bank: Bank) -> None:
    out = build(bank, [fmt])
    back, _ = _import(out.files)
    theirs = {q.id: q for q in back.quizzes}
    assert sorted(theirs) == sorted(q.id for q in bank.quizzes)
    for quiz in bank.quizzes:
        mine = _normal(fmt, _kept(fmt, quiz))
        other = _normal(fmt, theirs[quiz.id])
        assert other == mine, _diff(mine, other)


# --------------------------------------------------------------------------- cloze, ordering, description


def _plain_file(quiz: Quiz) -> bool:
    """Whether the quiz is written as a plain file: every cloze stem plain (writers/source.py
    plain_cloze_stem); otherwise its plain texts come back as the Markdown file's rich ones."""
    from lmsexport.model import Cloze
    from lmsexport.writers.source import plain_cloze_stem

    return all(plain_cloze_stem(q.stem) is not None for q in quiz.questions if isinstance(q.body, Cloze))


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(bank=banks(structured=True) | banks(everything=True, structured=True))
def test_import_of_a_moodlexml_build_with_cloze_ordering_and_descriptions_is_the_bank(bank: Bank) -> None:
    """Moodle XML is the format of record of issue 23's kinds: every blank, grading and
    description comes back as it was (strategies' structured=True)."""
    assume(all(_plain_file(q) for q in bank.quizzes))
    back, _ = _import(build(bank, ["moodlexml"]).files)
    theirs = {q.id: q for q in back.quizzes}
    for quiz in bank.quizzes:
        assert theirs[quiz.id] == quiz, _diff(quiz, theirs[quiz.id])


def test_the_structured_case_comes_back_from_moodle_xml() -> None:
    """tests/cases/structured (every blank kind, gradings, subsets, descriptions with an image
    and math, rich and plain stems) through Moodle XML and import."""
    bank = load_paths([ROOT / "tests" / "cases" / "structured"])
    back, _ = _import(build(bank, ["moodlexml"]).files)
    theirs = {q.id: q for q in back.quizzes}
    for quiz in bank.quizzes:
        assert [q.id for q in theirs[quiz.id].questions] == [q.id for q in quiz.questions]
        for mine, other in zip(quiz.questions, theirs[quiz.id].questions, strict=True):
            assert other == mine, _diff(replace(quiz, questions=(mine,)), replace(quiz, questions=(other,)))


def test_the_parametric_case_comes_back_from_moodle_xml_with_its_variants() -> None:
    """tests/cases/parametric (issue 24) through Moodle XML's calculated and calculatedmulti and
    import: the YAML written (the variants as their count when the id's seed draws them again,
    else as the explicit list) loads back as the same questions, every variant kept; through
    Canvas's calculated_question the variants are kept too (its losses are named)."""
    bank = load_paths([ROOT / "tests" / "cases" / "parametric"])
    back, _ = _import(build(bank, ["moodlexml"]).files)
    theirs = {q.id: q for quiz in back.quizzes for q in quiz.questions}
    for quiz in bank.quizzes:
        for mine in quiz.questions:
            assert theirs[mine.id] == mine, _diff(
                replace(quiz, questions=(mine,)), replace(quiz, questions=(theirs[mine.id],))
            )
    back, _ = _import(build(bank, ["qti12"]).files)
    canvas = {q.id: q for quiz in back.quizzes for q in quiz.questions}
    calculated = [q for quiz in bank.quizzes for q in quiz.questions if q.type.value == "calculated"]
    kept = [q.id for q in calculated if q.id in canvas]
    assert kept, "Canvas's calculated_question comes back"
    for qid in kept:
        mine = next(q for q in calculated if q.id == qid)
        names = [v.name for v in mine.body.params.variables]  # type: ignore[union-attr]
        ours = [tuple((n, x) for n, x in v.values if n in names) for v in mine.body.variants]  # type: ignore[union-attr]
        got = [tuple((n, x) for n, x in v.values if n in names) for v in canvas[qid].body.variants]  # type: ignore[union-attr]
        assert got == ours, qid
        assert [v.answer for v in canvas[qid].body.variants] == [v.answer for v in mine.body.variants]  # type: ignore[union-attr]


# --------------------------------------------------------------------------- foreign GIFT

_OURS = re.compile(r"^// (?:lmsexport|\[id:|[A-Za-z][\w.-]*: GIFT for Moodle).*\n", re.M)


def _moodle_view(text: str, path: str) -> list[tuple[object, ...]]:
    """What Moodle imports from a GIFT file: each question's type, texts, answers and weights."""
    out = []
    for item in read_gift(text, path).items:
        if item.qtype in ("comment", "category"):
            continue
        out.append(
            (
                item.qtype,
                item.name,
                item.text,
                item.general_feedback,
                item.single,
                tuple((a.text.text, a.text.format, a.fraction, a.feedback, a.numeric) for a in item.answers),
                tuple((left.text, right) for left, right in item.pairs),
                item.truth,
            )
        )
    return out


def _same_text(view: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    # GiftText carries a location; compare what it says.
    def strip(x: object) -> object:
        if hasattr(x, "text") and hasattr(x, "format") and hasattr(x, "loc"):
            return (x.text, x.format)  # type: ignore[attr-defined]
        if isinstance(x, tuple):
            return tuple(strip(y) for y in x)
        return x

    return [tuple(strip(x) for x in row) for row in view]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(bank=banks())
def test_foreign_gift_imported_and_built_again_gives_moodle_the_same_questions(bank: Bank) -> None:
    files = {}
    for quiz in bank.quizzes:
        text, _ = write_gift(quiz)
        files[f"{quiz.id}.gift"] = _OURS.sub("", text).encode("utf-8")
    lang = bank.quizzes[0].lang
    if any(q.lang != lang for q in bank.quizzes):
        return  # a foreign file names no language: one --lang for every file
    back, _ = _import(files, lang)
    rebuilt = build(back, ["gift"]).files
    original = [row for name, data in sorted(files.items()) for row in _moodle_view(data.decode(), name)]
    again = [row for name, data in sorted(rebuilt.items()) for row in _moodle_view(data.decode(), name)]
    assert sorted(_same_text(again), key=repr) == sorted(_same_text(original), key=repr)


# --------------------------------------------------------------------------- the text path


def _data_uri(image):  # type: ignore[no-untyped-def]
    import base64

    return f"data:{image.media.mime};base64,{base64.b64encode(image.media.data).decode()}"


MOODLE_HTML = Flavour(math=lambda m: f"\\[{m.tex}\\]" if m.display else f"\\({m.tex}\\)", image_src=_data_uri)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rich=RICH)
def test_rendered_html_reads_back_as_the_same_tree(rich: Rich) -> None:
    """HTML as lmsexport's writers render it (Moodle's formats, QTI 1.2): MathJax TeX, data: images."""
    html, _ = to_html(rich, MOODLE_HTML)
    from lmsexport.media import media_from_data_uri

    back, _, lost = html_text(
        f"<div>{html}</div>" if not html.startswith("<") else html, False, Images(media_from_data_uri)
    )
    assert lost == [] or lost == ["<div>"]
    assert back == rich


QTI_NS = "http://www.imsglobal.org/xsd/imsqti_v2p1"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rich=RICH)
def test_qti_xhtml_with_mathml_reads_back_as_the_same_tree(rich: Rich) -> None:
    """QTI 2.1 XHTML as the shared renderer writes it (MathML with its TeX annotation), through
    the same element reader the QTI 2.1 import uses."""
    from lxml import etree

    flavour = Flavour(
        ns=QTI_NS, math=lambda m: to_mathml(m.tex, m.display), image_src=_data_uri, dir_attr=False
    )
    holder = etree.Element(f"{{{QTI_NS}}}div")
    Renderer(flavour).blocks(rich, holder)
    # as a package holds it: serialised and parsed again
    parsed = etree.fromstring(etree.tostring(holder))
    from lmsexport.media import media_from_data_uri

    back, lost = read_element(parsed, Images(media_from_data_uri), foreign=False)
    assert lost == []
    assert back == rich


@pytest.mark.parametrize("fmt", ["qti21", "qti12"])
def test_what_qti_drops_is_what_kept_says(fmt: str) -> None:
    """The losses _kept() allows are real: category (both), tags and difficulty (QTI 1.2)."""
    quiz = Quiz(
        "q",
        "Q",
        "en",
        (Question(id="a", stem="Say", body=Essay(), tags=("t",), explanation="e"),),
        category="x/y",
        difficulty=None,
    )
    back, _ = _import(build(Bank((quiz,)), [fmt]).files)
    got = back.quizzes[0]
    assert got.category is None
    assert got.questions[0].tags == (() if fmt == "qti12" else ("t",))


# --------------------------------------------------------------------------- rich banks


def _survives_the_source_format(quiz: Quiz) -> bool:
    """Whether a quiz written as YAML (images beside it) loads back as itself."""
    from lmsexport.importer import ImportedQuiz, ImportResult

    written, _ = output_files(ImportResult(quizzes=[ImportedQuiz(quiz, {}, [])]))
    with tempfile.TemporaryDirectory() as d:
        for rel, data in written.items():
            (Path(d) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(d) / rel).write_bytes(data)
        try:
            return load_paths([d]).quizzes == (quiz,)
        except Exception:
            return False


def _richly(quiz: Quiz, data: st.DataObject) -> Quiz:
    """The quiz with every markup-capable text rich (a Markdown file has no plain texts)."""

    def r() -> Rich:
        return data.draw(MD_RICH)

    def question(q: Question) -> Question:
        q = replace(q, stem=r(), explanation=None if q.explanation is None else r())
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices):
                rich = tuple(
                    replace(c, text=r(), feedback=None if c.feedback is None else r()) for c in choices
                )
                q = replace(q, body=replace(q.body, choices=rich))
            case Matching(pairs):
                q = replace(q, body=replace(q.body, pairs=tuple(replace(p, left=r()) for p in pairs)))
        return q

    return replace(
        quiz,
        description=None if quiz.description is None else r(),
        questions=tuple(question(q) for q in quiz.questions),
    )


@pytest.mark.parametrize("fmt", ["gift", "moodlexml"])
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(bank=banks(), data=st.data())
def test_import_of_a_rich_build_is_the_bank(fmt: str, bank: Bank, data: st.DataObject) -> None:
    """Formats that carry rich text (GIFT's and Moodle XML's HTML, with TeX for MathJax and images
    as data: URIs or per-field files) give every tree back, images extracted beside the YAML."""
    rich = Bank(tuple(_richly(q, data) for q in bank.quizzes))
    for quiz in rich.quizzes:
        for q in quiz.questions:
            # choices of one question must stay distinct once rich
            match q.body:
                case SingleChoice(choices) | MultipleChoice(choices) if len({c.text for c in choices}) < len(
                    choices
                ):
                    return
                case Matching(pairs) if len({p.left for p in pairs}) < len(pairs):
                    return
    # What the source format itself cannot write exactly (writers/markdown.py, tested in
    # test_source_writer.py) is not the import's to prove here.
    assume(all(_survives_the_source_format(q) for q in rich.quizzes))
    back, _ = _import(build(rich, [fmt]).files)
    theirs = {q.id: q for q in back.quizzes}
    for quiz in rich.quizzes:
        assert theirs[quiz.id] == quiz, _diff(quiz, theirs[quiz.id])


def _draws(assessment: Assessment) -> list[tuple[object, ...]]:
    """What an assessment gives an attempt: per draw, what it can yield, how many, at what points."""
    return [
        (s.title, s.shuffle, d.name, tuple(c.question.id for c in d.candidates), d.pick, d.points)
        for s in assessment.sections
        for d in s.draws
    ]


STRUCTURED_QUIZ = "training-step-structure"


def _seed_bank(fmt: str) -> Bank:
    """The repository's bank as a format carries it whole: Moodle XML all of it; the others
    without issue 23's quiz (cloze, ordering, description), whose losses there are by design,
    named per question, and tested per format (tests/test_*_structured.py), and without issue 24's
    parametric questions (variants written as K questions, a group or a pool; the formula not
    carried or rewritten: tested per format, tests/test_*_parametric.py)."""
    bank = load_paths([ROOT / "source"])
    if fmt == "moodlexml":
        return bank
    quizzes = tuple(
        replace(
            q,
            questions=tuple(x for x in q.questions if not isinstance(x.body, Calculated | CalculatedChoice)),
        )
        for q in bank.quizzes
        if q.id != STRUCTURED_QUIZ
    )
    return Bank(quizzes, bank.assessments)


@pytest.mark.parametrize("fmt", ["gift", "moodlexml", "qti21"])
def test_the_seed_bank_comes_back_with_its_assessment(fmt: str) -> None:
    """The repository's bank, its rich quiz (formulas, tables, code, images) included, and its final
    exam: the exam's file holds copies of its questions (dropped: the quizzes' own files are
    imported too) and, for each random draw, the questions it can yield, from which a pool that
    selects exactly those is rebuilt."""
    bank = _seed_bank(fmt)
    back, messages = _import(build(bank, [fmt]).files)
    kept = [_normal(fmt, _kept(fmt, q)) for q in bank.quizzes]
    got = [_normal(fmt, q) for q in back.quizzes]
    if fmt == "qti21":  # a quiz's description is the manifest's LOM string: its plain text only
        kept, got = [replace(q, description=None) for q in kept], [replace(q, description=None) for q in got]
    assert got == kept
    (exam,) = bank.assessments
    (got,) = back.assessments
    assert (got.id, got.title, got.lang, got.description) == (
        exam.id,
        exam.title,
        exam.lang,
        exam.description,
    )
    assert _draws(got) == _draws(exam)
    assert not [m for m in messages if "assessment" in m]


def test_an_assessment_file_alone_keeps_what_it_can() -> None:
    """Alone, the exam's GIFT file gives its questions as a quiz; its draw 'tensor' yields questions
    that no pool over that one quiz selects exactly (other draws' questions share their tags): said,
    and the assessment is not written. Its QTI 2.1 package keeps each draw's items apart."""
    bank = load_paths([ROOT / "source"])
    files = build(bank, ["gift", "qti21"]).files
    back, messages = _import({"final-exam.gift.txt": files["gift/final-exam.gift.txt"]})
    assert [q.id for q in back.quizzes] == ["final-exam-questions"] and back.assessments == ()
    assert any("no pool selects exactly the questions draw 'tensor' can yield" in m for m in messages)
    back, messages = _import({"final-exam.zip": files["qti21/final-exam.zip"]})
    (exam,) = bank.assessments
    (got,) = back.assessments
    assert _draws(got) == _draws(exam)


def test_an_assessment_of_listed_questions_comes_back() -> None:
    bank = _seed_bank("gift")
    exam = Assessment(
        "midterm",
        "Midterm",
        "en",
        (Section("Part 1", False, (Draw("first", ids=("zso-redundancy", "mpp-core-problem"), points=2.0),)),),
    )
    from lmsexport.assessments import resolve_all

    resolved = resolve_all(Bank(bank.quizzes), [exam], [])
    files = build(Bank(bank.quizzes, tuple(resolved)), ["gift"]).files
    back, _ = _import(files)
    (got,) = back.assessments
    assert got.id == "midterm" and [d.ids for d in got.draws] == [("zso-redundancy", "mpp-core-problem")]
    assert got.draws[0].points == 2 and got.sections[0].title == "Part 1"
    assert back.quizzes == bank.quizzes  # the assessment file's copies of its questions are dropped


def _drawn_tags(exam: Assessment) -> dict[str, tuple[str, ...]]:
    """The tags a tagless format's import gives the candidates of each random draw."""
    out: dict[str, tuple[str, ...]] = {}
    for d in exam.draws:
        if d.is_random:
            for c in d.candidates:
                out[c.question.id] = (*out.get(c.question.id, ()), f"{exam.id}-{d.name}")
    return out


def test_the_seed_bank_comes_back_from_qti12_with_its_assessment() -> None:
    """QTI 1.2 (Canvas's flavour) has no field for tags: the exam's copies are dropped as in the
    other formats, and each random draw's candidates get a tag of the draw's own, which the rebuilt
    pool selects: every draw yields exactly what it did, at the same points."""
    bank = _seed_bank("qti12")
    back, messages = _import(build(bank, ["qti12"]).files)
    (exam,) = bank.assessments
    tags = _drawn_tags(exam)
    kept = [_normal("qti12", _kept("qti12", q)) for q in bank.quizzes]
    kept = [
        replace(quiz, questions=tuple(replace(q, tags=tags.get(q.id, ())) for q in quiz.questions))
        for quiz in kept
    ]
    got = [_normal("qti12", q) for q in back.quizzes]
    assert got == kept, [_diff(a, b) for a, b in zip(kept, got, strict=False)]
    (got_exam,) = back.assessments
    assert (got_exam.id, got_exam.title, got_exam.lang, got_exam.description) == (
        exam.id,
        exam.title,
        exam.lang,
        exam.description,
    )
    assert _draws(got_exam) == _draws(exam)
    random_draws = [d.name for d in exam.draws if d.is_random]
    tagged = [m.split("draw '")[1].split("'")[0] for m in messages if "they are given the tag" in m]
    assert sorted(tagged) == sorted(random_draws)
    assert not [m for m in messages if "no language" in m or "und" in m.split()]


def _attempt(assessment: Assessment) -> list[tuple[object, ...]]:
    """Per draw: what it can yield at what points, and how many."""
    return [
        (
            s.title,
            s.shuffle,
            d.name,
            tuple((c.question.id, d.points_of(c.question)) for c in d.candidates),
            d.pick,
        )
        for s in assessment.sections
        for d in s.draws
    ]


def test_the_qti12_exam_alone_keeps_its_draws() -> None:
    """Alone, the exam's QTI 1.2 package keeps each group's items apart: a quiz per draw, and the
    assessment draws from them what it did."""
    bank = load_paths([ROOT / "source"])
    files = build(bank, ["qti12"]).files
    back, messages = _import({"final-exam.zip": files["qti12/final-exam.zip"]})
    (exam,) = bank.assessments
    random = [d.name for d in exam.draws if d.is_random]
    (got,) = back.assessments
    # Alone, a copy is worth what the draw gives it: the same attempt, the points said once.
    assert _attempt(got) == _attempt(exam)
    assert sorted(q.id for q in back.quizzes) == sorted(
        ["final-exam-questions", *(f"final-exam-{n}" for n in random)]
    )
    assert {q.lang for q in back.quizzes} == {exam.lang}
    assert not any("they are given the tag" in m for m in messages)


@pytest.mark.parametrize("fmt", ["cc13", "cc11"])
def test_a_cartridge_brings_its_images_back(fmt: str) -> None:
    """The cartridges name images at ``$IMS-CC-FILEBASE$../web_resources/...``: the token is the
    folder of the QTI document (Moodle's reading), so the seed bank's SVG comes back, byte for byte."""
    from lmsexport.model import media_of

    bank = load_paths([ROOT / "source"])
    files = build(bank, [fmt]).files
    back, messages = _import({k: v for k, v in files.items() if k.endswith(".imscc")})
    assert not [m for m in messages if "not in the package" in m]
    theirs = {q.id: q for quiz in back.quizzes for q in quiz.questions}
    shown = [(q.id, m.data) for quiz in bank.quizzes for q in quiz.questions for m in media_of(q.stem)]
    assert shown
    for qid, data in shown:
        assert [m.data for m in media_of(theirs[qid].stem)] == [data]
