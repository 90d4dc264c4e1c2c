"""Real Moodle XML files nobody here wrote (tests/corpus/moodlexml-real/, provenance and licences in
its README): every question of a type lmsexport has comes in whole through `lmsexport import`
(nothing named as not carried but markup and the model gaps listed below), import -> build Moodle
XML -> import changes nothing, and `check`'s reader (which judges a file as Moodle's importer does)
reads each file Moodle imports, whose quiz survives lmsexport's own writer and reader."""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree

from lmsexport.build import build
from lmsexport.importer import find_sources, output_files, read_sources, verify
from lmsexport.model import Bank, Essay
from lmsexport.readers.moodlexml import read_quiz, read_quiz_bytes
from lmsexport.source import load_paths
from lmsexport.writers.moodlexml import write_quiz

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "moodlexml-real"
FILES = sorted(CORPUS.rglob("*.xml"))
SUPPORTED = frozenset(
    {
        "multichoice", "truefalse", "shortanswer", "numerical", "matching", "match", "essay",
        "cloze", "multianswer", "ordering", "description", "gapselect", "ddwtos",
        "calculated", "calculatedsimple", "calculatedmulti",
    }
)  # fmt: skip
"""The Moodle types lmsexport has."""
LOSSES = frozenset({"import.not-carried", "import.unfit", "import.no-key", "import.empty-stem"})
"""What an import names as lost or skipped (markup the format cannot hold is import.markup-lost)."""
KNOWN_LOSSES: dict[str, Counter[str]] = {
    # Two choices with one text (one right, one wrong): the loader refuses duplicate choices.
    "ewoner+moodleXML/questions-Brion Lang-Development Course-top-20201107-0938.xml": Counter(
        {
            "two choices": 1,
            # Blanks inside <pre>: read as lines of inline code around the blanks.
            "a code block holding blanks": 6,
            "unlimited drag boxes": 4,
            # Calculated questions (issue 24): wildcards inside <pre> (Moodle substitutes them
            # there too; lmsexport's code is verbatim, so it is cut around them).
            "a code block holding wildcards": 18,
            "no dataset items": 1,
            "shared datasets": 1,
            # Two wrong answer formulas beside the right one (the model has one formula).
            "the answer '{start}": 4,
            "the feedback of the answer": 2,
            # correctanswerlength 0 with a tolerance finer than a unit: shown with more decimals.
            "the right answer shown with": 1,
        }
    ),
    "LucasWolfgang+QAS-Editor/calculatedsimple.xml": Counter(
        {
            "how the unit is entered": 1,
            "the feedback for any other answer": 1,
            "the feedback of the answer": 1,
            "the right answer shown with": 1,
        }
    ),
    # A calculated question with no dataset definitions and a 70% answer (Moodle imports it).
    "AdrianoRuseler+python-scripts-for-moodle-questions/calculated.xml": Counter(
        {"no dataset items": 1, "the credit of its answer": 1, "the feedback of the answer": 1}
    ),
    # Gaps whose group holds one choice (Moodle shows a drop-down list of one; a cloze blank needs 2).
    "AdrianoRuseler+python-scripts-for-moodle-questions/gapselects.xml": Counter(
        {"a group of one choice": 16}
    ),
    "TU-Berlin-DIMA+moodle-tools/dragdrop_missing-wordsRef.xml": Counter(
        {"a group of one choice": 1, "unlimited drag boxes": 1}
    ),
    "TU-Berlin-DIMA+moodle-tools/missing-wordsRef.xml": Counter({"a group of one choice": 3}),
    # A gapselect hint with options and no text: the model's hints have a text.
    "LucasWolfgang+QAS-Editor/all.xml": Counter(
        {
            "hint 2, which has options but no text": 1,
            # A calculatedmulti whose two wrong choices are 1 in every variant (a syntax test).
            "choice 3, which shows the same number": 1,
            "the right answer shown with": 1,
            "how the unit is entered": 1,
            "the feedback for any other answer": 1,
            "the feedback of the answer": 1,
        }
    ),
}
"""Per file, what the model cannot hold, by the start of the message."""


def _name(p: Path) -> str:
    return p.relative_to(CORPUS).as_posix()


def _supported(path: Path) -> dict[int, str]:
    """Line -> type of each question of a type lmsexport has."""
    root = etree.parse(str(path), etree.XMLParser(huge_tree=True)).getroot()
    return {
        el.sourceline or 0: el.get("type", "")
        for el in root.iterchildren("question")
        if el.get("type", "") in SUPPORTED
    }


def _import(files: dict[str, bytes]):  # type: ignore[no-untyped-def]
    """Sources written to a folder, imported, the YAML written and loaded: (bank, diagnostics)."""
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for rel, data in files.items():
            (root / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "src" / rel).write_bytes(data)
        result = read_sources(find_sources([root / "src"]), "en")
        assert not result.failed, [x.format() for x in result.diags if x.severity.value == "error"]
        written, lost = output_files(result)
        for rel, data in written.items():
            (root / "out" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "out" / rel).write_bytes(data)
        # What the YAML file does not read back as imported (Markdown's limits), as import says.
        reread = verify(root / "out", result, lost, root / "out")
        return load_paths([root / "out"]), result.diags + reread


def test_the_corpus_is_there_with_its_provenance() -> None:
    assert len(FILES) >= 15
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    for p in FILES:
        assert f"`{_name(p)}`" in readme, f"{p} has no provenance in the README"
    for licence in ("MIT-ewoner-moodleXML.txt", "Apache-2.0.txt", "GPL-3.0.txt"):
        assert (CORPUS / "LICENSES" / licence).is_file()


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_every_question_of_a_type_lmsexport_has_comes_in_whole(path: Path) -> None:
    supported = _supported(path)
    assert supported, "every file of the corpus has questions of lmsexport's types"
    result = read_sources(find_sources([path]), "en")
    assert not result.failed, [d.format() for d in result.diags]
    lost: Counter[str] = Counter()
    for d in result.diags:
        if d.rule in LOSSES:
            assert d.loc is not None and d.loc.line in supported, d.format()
            what = d.message.split(": ", 1)[1].removeprefix("not carried: ")
            known = [k for k in KNOWN_LOSSES.get(_name(path), {}) if what.startswith(k)]
            assert known, f"not carried: {d.format()}"
            lost[known[0]] += 1
    assert lost == KNOWN_LOSSES.get(_name(path), Counter())
    skipped = sum(
        1 for d in result.diags if d.rule in ("import.unfit", "import.no-key") and "skipped" in d.message
    )
    assert result.questions == len(supported) - skipped


_ROUND_TRIP = re.compile(r"question '([^']+)' reads back from .* with a different ((?:\w+(?:, )?)+)")
TEXT_FIELDS = frozenset({"stem", "explanation", "body", "feedback", "hints"})
"""Where a question holds rich text, which a YAML file holds as Markdown."""


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_import_build_import_changes_nothing(path: Path) -> None:
    bank, diags = _import({path.name: path.read_bytes()})
    again, again_diags = _import(dict(build(bank, ["moodlexml"]).files))
    # Questions whose markup a YAML file cannot hold (each import says so: the Markdown writer's
    # limits) are compared by what Markdown keeps, elsewhere; the rest must come back the same.
    markup = {
        m.group(1)
        for d in [*diags, *again_diags]
        if d.rule == "import.round-trip"
        for m in [_ROUND_TRIP.search(d.message)]
        if m and set(m.group(2).split(", ")) <= TEXT_FIELDS
    }
    assert [q.header for q in again.quizzes] == [q.header for q in bank.quizzes]
    for ours, theirs in zip(bank.quizzes, again.quizzes, strict=True):
        assert [q.id for q in theirs.questions] == [q.id for q in ours.questions]
        for q, back in zip(ours.questions, theirs.questions, strict=True):
            if q.id not in markup:
                assert back == q, q.id
    assert isinstance(again, Bank)


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_check_reads_it_and_its_quiz_survives_moodlexml(path: Path) -> None:
    quiz, diags = read_quiz_bytes(path.read_bytes(), _name(path))
    if quiz is None:
        # A question type standard Moodle lacks (a plugin's) stops Moodle's whole import; an ID
        # number used twice Moodle drops silently from the second question, which check refuses.
        errors = {d.rule for d in diags if d.severity.value == "error"}
        assert errors and errors <= {"moodlexml.unknown-type", "moodlexml.duplicate-id"}
        return
    data, written = write_quiz(quiz)
    assert [d.format() for d in written if d.severity.value == "error"] == []
    assert read_quiz(data, _name(path), quiz_id=quiz.id, lang=quiz.lang)[0] == quiz


ATTACHMENTS = {
    # file -> each essay's (response format, attachments, required, file types, max bytes), in order
    "AdrianoRuseler+python-scripts-for-moodle-questions/essaysnum.xml": [
        ("none", 1, 1, (), 0),
        ("plain", 1, 1, (), 0),
        ("editor", 1, 1, (), 0),
        ("monospaced", 1, 1, (), 0),
        ("none", 1, 1, (), 0),
    ],
    "TU-Berlin-DIMA+moodle-tools/essayRef.xml": [
        ("editor", 1, 1, ("document", ".pdf", ".docx"), 15360),
        ("plain", 0, 0, (), 0),
    ],
}
"""Essays of the corpus that take files: once lost, now read whole (`*`, any file, is no list)."""


@pytest.mark.parametrize("name", sorted(ATTACHMENTS))
def test_essays_come_in_with_their_attachments(name: str) -> None:
    bank, diags = _import({Path(name).name: (CORPUS / name).read_bytes()})
    assert not [d for d in diags if d.rule in LOSSES], [d.format() for d in diags if d.rule in LOSSES]
    essays = [q.body for quiz in bank.quizzes for q in quiz.questions if isinstance(q.body, Essay)]
    got = [
        (e.response_format.value, e.attachments, e.attachments_required, e.file_types, e.max_bytes)
        for e in essays
    ]
    assert got == ATTACHMENTS[name]
