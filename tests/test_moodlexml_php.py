"""Moodle XML as PHP reads it: every file lmsexport writes, parsed by PHP's own XML parser exactly
as Moodle's importer calls it (lib/xmlize.php: xml_parse_into_struct, white space kept), gives
the same text in every element as lxml, lmsexport's reader, sees. So what the round trip
proves with lxml holds for what Moodle reads.

Needs the `php` command with its xml extension (Debian: php-cli, php-xml;
scripts/ensure-php.sh installs them); skipped without it. tests/php/xmlize_leaves.php is the
harness (ours: no Moodle code is used).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from moodle_parametric import parametric_quizzes
from strategies import quizzes
from test_moodlexml_roundtrip import assessments
from test_moodlexml_roundtrip import quizzes as rich_quizzes

from lmsexport.model import Answer, Assessment, Matching, Pair, Question, Quiz, ShortAnswer
from lmsexport.readers.moodlexml import read_quiz
from lmsexport.writers.moodlexml import write_assessment, write_quiz

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "tests" / "php" / "xmlize_leaves.php"
PHP = shutil.which("php")
pytestmark = pytest.mark.skipif(PHP is None, reason="no php command: run scripts/ensure-php.sh")


def php_leaves(paths: list[Path]) -> dict[str, dict[str, object]]:
    """{path: {"error": ..., "leaves": [[tag, attributes, text], ...]}} as PHP parses each file."""
    assert PHP is not None
    run = subprocess.run(
        [PHP, str(HARNESS), *map(str, paths)], capture_output=True, check=True, timeout=120, cwd=ROOT
    )
    result: dict[str, dict[str, object]] = json.loads(run.stdout)
    return result


def lxml_leaves(data: bytes) -> list[list[object]]:
    """The same list as the harness prints, as lxml reads the file."""
    root = etree.fromstring(data)
    return [
        [el.tag, dict(el.attrib), "".join(el.itertext())]
        for el in root.iter(etree.Element)
        if not any(isinstance(c.tag, str) for c in el)
    ]


def _assert_same(paths: list[Path]) -> None:
    parsed = php_leaves(paths)
    for p in paths:
        got = parsed[str(p)]
        assert got["error"] is None, (p, got["error"])
        assert got["leaves"] == lxml_leaves(p.read_bytes()), p


def test_golden_files_read_the_same_in_php() -> None:
    paths = sorted((ROOT / "tests" / "cases" / "types" / "expected" / "moodle").glob("*.xml"))
    paths += sorted((ROOT / "tests" / "cases" / "rich" / "expected" / "moodle").glob("*.xml"))
    # The bank of issue 22: credits, feedback by outcome, hints, units, essay options.
    paths += sorted((ROOT / "tests" / "cases" / "credits" / "expected" / "moodle").glob("*.xml"))
    # The bank of issue 23: cloze (Moodle's embedded answers), ordering and description questions.
    paths += sorted((ROOT / "tests" / "cases" / "structured" / "expected" / "moodle").glob("*.xml"))
    # The bank of issue 24: calculated and calculatedmulti questions with their datasets.
    paths += sorted((ROOT / "tests" / "cases" / "parametric" / "expected" / "moodle").glob("*.xml"))
    paths += sorted((ROOT / "dist" / "moodle").glob("*.xml"))
    assert len(paths) >= 10
    _assert_same(paths)


TRICKY = [
    "]]>",
    "a]]>b",
    "x < y && y > z",
    "&lt; is not <",
    "'quoted' \"twice\"",
    "tab\there",
    "two  spaces",
    "line\nbreak",
    "سوال: < اور >",
    "\u2028\x85\u200f",
    "]]> ]]>",
    "<![CDATA[x]]>",
]


def _tricky_quiz() -> Quiz:
    questions = [
        Question(
            id="sa",
            stem="Type it",
            body=ShortAnswer(tuple(Answer(t) for t in TRICKY if "]]> ]]>" not in t)),
        ),
        Question(
            id="m",
            stem=" / ".join(TRICKY),
            body=Matching(tuple(Pair(t, t) for t in TRICKY if "]]> ]]>" not in t), ("]]>&",)),
        ),
    ]
    return Quiz(id="tricky", title="a/b <c> ]]>", lang="en", questions=tuple(questions))


def test_tricky_texts_read_the_same_in_php_and_round_trip(tmp_path: Path) -> None:
    quiz = _tricky_quiz()
    data, diags = write_quiz(quiz)
    assert [d.format() for d in diags if d.severity.value == "error"] == []
    path = tmp_path / "tricky.xml"
    path.write_bytes(data)
    _assert_same([path])
    back, _ = read_quiz(data, "tricky.xml")
    assert back == quiz
    php = php_leaves([path])[str(path)]["leaves"]
    answers = [text for tag, _, text in php if tag == "text"]  # type: ignore[misc]
    body = quiz.questions[0].body
    assert isinstance(body, ShortAnswer)
    for t in body.accepted:
        assert t.replace("*", "\\*") in answers


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(quizzes(), min_size=15, max_size=15))
def test_any_quiz_reads_the_same_in_php(tmp_path_factory: pytest.TempPathFactory, batch: list[Quiz]) -> None:
    folder = tmp_path_factory.mktemp("php")
    paths = []
    for n, quiz in enumerate(batch):
        data, diags = write_quiz(quiz)
        assert [d.format() for d in diags if d.severity.value == "error"] == []
        paths.append(folder / f"{n}.xml")
        paths[-1].write_bytes(data)
    _assert_same(paths)


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(parametric_quizzes(), min_size=6, max_size=6))
def test_any_parametric_quiz_reads_the_same_in_php(
    tmp_path_factory: pytest.TempPathFactory, batch: list[Quiz]
) -> None:
    """Datasets, formulas with `{=...}` and `**`, texts with wildcards: as PHP parses them."""
    folder = tmp_path_factory.mktemp("php-parametric")
    paths = []
    for n, quiz in enumerate(batch):
        data, diags = write_quiz(quiz)
        assert [d.format() for d in diags if d.severity.value == "error"] == []
        paths.append(folder / f"{n}.xml")
        paths[-1].write_bytes(data)
    assert any(b"<dataset_definitions>" in p.read_bytes() for p in paths)
    _assert_same(paths)


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(rich_quizzes(), min_size=3, max_size=3), assessments())
def test_rich_texts_and_assessments_read_the_same_in_php(
    tmp_path_factory: pytest.TempPathFactory, batch: list[Quiz], exam: Assessment
) -> None:
    """Rich HTML (CDATA), embedded files and the instructions' comments, as PHP parses them."""
    folder = tmp_path_factory.mktemp("php-rich")
    paths = []
    written = [write_quiz(quiz) for quiz in batch] + [write_assessment(exam)]
    for n, (data, diags) in enumerate(written):
        assert [d.format() for d in diags if d.severity.value == "error"] == []
        paths.append(folder / f"{n}.xml")
        paths[-1].write_bytes(data)
    _assert_same(paths)
