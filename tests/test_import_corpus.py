"""`lmsexport import` on real files nobody here wrote (tests/corpus/import/, tests/corpus/qti21/):
what each becomes is golden (the messages, the summary and every file written, in
tests/corpus/import/expected/), and the facts that matter are asserted by name below."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lmsexport.cli import app
from lmsexport.model import (
    Emph,
    Matching,
    MultipleChoice,
    Numerical,
    QuestionType,
    Rich,
    ShortAnswer,
    SingleChoice,
    Strong,
    TrueFalse,
    inlines_of,
    plain_text,
)
from lmsexport.source import load_paths

ROOT = Path(__file__).resolve().parents[1]
IMPORT = ROOT / "tests" / "corpus" / "import"
EXPECTED = IMPORT / "expected"
SOURCES = sorted(
    [p for p in (IMPORT / "moodle").rglob("*") if p.is_file()]
    + [p for p in (IMPORT / "canvas").rglob("*") if p.is_file()]
    + [
        p
        for p in (ROOT / "tests" / "corpus" / "qti21").rglob("*")
        if p.is_file() and p.suffix in (".xml", ".zip") and "LICENSES" not in p.parts
    ]
)


def _name(p: Path) -> str:
    return p.relative_to(ROOT / "tests" / "corpus").as_posix().replace("/", "__")


def _import(source: Path, out: Path, monkeypatch: pytest.MonkeyPatch):  # -> Result
    monkeypatch.chdir(ROOT)
    return CliRunner().invoke(
        app,
        ["import", source.relative_to(ROOT).as_posix(), "--out", str(out), "--lang", "en"],
        catch_exceptions=False,
    )


def test_corpus_is_there() -> None:
    assert len(SOURCES) >= 40
    assert (IMPORT / "README.md").is_file()
    listed = (IMPORT / "README.md").read_text(encoding="utf-8")
    for p in SOURCES:
        if IMPORT in p.parents:
            assert p.relative_to(IMPORT).as_posix() in listed, f"{p} has no provenance in the README"


@pytest.mark.parametrize("source", SOURCES, ids=_name)
def test_what_import_makes_of_it(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, golden
) -> None:
    out = tmp_path / "out"
    result = _import(source, out, monkeypatch)
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1), result.output
    parts = [
        f"exit {result.exit_code}",
        result.stderr.replace(str(out), "OUT"),
        result.stdout.replace(str(out), "OUT"),
    ]
    if result.exit_code == 0:
        for f in sorted(p for p in out.rglob("*") if p.is_file()):
            rel = f.relative_to(out).as_posix()
            if f.suffix == ".yaml":
                parts.append(f"=== {rel}\n{f.read_text(encoding='utf-8')}")
            else:
                parts.append(f"=== {rel} ({f.stat().st_size} bytes)\n")
        # Whatever was written loads: the loader accepts every file.
        load_paths([out])
    else:
        assert not out.exists()
    golden(EXPECTED / f"{_name(source)}.txt", "\n".join(parts))


# --------------------------------------------------------------------------- facts, by name


def _bank(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # -> Bank
    result = _import(source, tmp_path / "out", monkeypatch)
    assert result.exit_code == 0, result.output
    return load_paths([tmp_path / "out"])


def test_moodle_gift_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Moodle's own GIFT importer fixture: every type, partial credit, a range, general feedback."""
    bank = _bank(IMPORT / "moodle/gift/questions.gift.txt", tmp_path, monkeypatch)
    qs = {q.id: q for q in bank.quizzes[0].questions}
    assert [q.type for q in bank.quizzes[0].questions] == [
        QuestionType.ESSAY, QuestionType.MATCHING, QuestionType.SINGLE, QuestionType.MULTIPLE,
        QuestionType.NUMERICAL, QuestionType.SHORT_ANSWER, QuestionType.TRUE_FALSE,
        QuestionType.TRUE_FALSE, QuestionType.TRUE_FALSE,
    ]  # fmt: skip
    activities = qs["moodle-activities"].body
    assert isinstance(activities, Matching) and activities.distractors == ("Chat",)
    assert [p.right for p in activities.pairs] == ["Forum", "Choice", "Database", "Wiki"]
    q5 = qs["q5"].body
    assert isinstance(q5, Numerical) and q5.keys[0].bounds == (1.0, 5.0)
    short = qs["shortanswer"].body
    # Cat is worth 50%, and `=%0%*#Completely wrong` is the feedback for any other answer.
    assert isinstance(short, ShortAnswer) and short.accepted == ("Frog",)
    assert [a.credit for a in short.answers] == [1.0, 0.5]
    assert plain_text(short.other_feedback) == "Completely wrong"  # Markdown: the file has markup
    colours = qs["colours"].body
    assert isinstance(colours, MultipleChoice) and colours.key_indexes == (0, 2) and len(colours.choices) == 4
    assert colours.credits == (0.5, -1.0, 0.5, -1.0)  # its own weights, not the default rule
    # {FALSE#wrong#right}: the first feedback is for the wrong answer, "true".
    tf = qs["q1"].body
    assert isinstance(tf, TrueFalse) and not tf.truth
    assert (plain_text(tf.feedback_true), plain_text(tf.feedback_false)) == (
        "42 is the Ultimate Answer.",
        "You gave the right answer.",
    )
    assert qs["q1"].name == "Q1" and qs["moodle-activities"].name == "Moodle activities"
    assert plain_text(qs["q1"].explanation).startswith("This is, of course")
    assert {"q-2-08-tsl", "q-2-08-tsl-2"} <= set(qs)  # two questions of one name


def test_moodle_xml_categories_become_quizzes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bank = _bank(IMPORT / "moodle/xml/nested_categories_with_questions.xml", tmp_path, monkeypatch)
    by_category = {q.category: (q.title, q.description, len(q.questions)) for q in bank.quizzes}
    assert by_category == {
        "Iota": ("Iota", "This is Iota category for test", 1),
        "Iota/Kappa": ("Kappa", "This is Kappa category for test", 2),
        "Iota/Kappa/Lambda": ("Lambda", "This is Lambda category for test", 1),
        "Iota/Mu": ("Mu", "This is Mu category for test", 1),
    }


def test_moodle_multichoice_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (quiz,) = _bank(IMPORT / "moodle/xml/qtype-multichoice.moodle.xml", tmp_path, monkeypatch).quizzes
    (q,) = quiz.questions
    assert isinstance(q.body, MultipleChoice) and q.id == "multi-choice-001"
    assert [plain_text(q.body.choices[i].text) for i in q.body.key_indexes] == ["London", "Paris"]
    assert plain_text(q.explanation) == "Berlin, Paris and London" and quiz.shuffle


def test_canvas_qti12_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Canvas's QTI 1.2 bank export: points, general feedback, choice feedback, HTML kept."""
    (quiz,) = _bank(IMPORT / "canvas/qti12/multiple_choice_html.xml", tmp_path, monkeypatch).quizzes
    (q,) = quiz.questions
    assert quiz.title == "Test Bank" and q.points == 10
    assert isinstance(q.stem, Rich) and any(isinstance(x, Strong) for x in inlines_of(q.stem))
    assert isinstance(q.body, SingleChoice | MultipleChoice) and q.body.key_indexes == (0,)
    assert len(q.body.choices) == 2
    assert all(isinstance(c.feedback, Rich) and any(isinstance(x, Emph) for x in inlines_of(c.feedback))
               for c in q.body.choices)  # fmt: skip
    assert plain_text(q.explanation) == "meh"


def test_canvas_qti21_conversions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Canvas's QTI 2.1 items (converted by QTIMigrationTool): instructure metadata gives the
    points and the type; the key comes from the written-out response processing."""
    (tf,) = _bank(IMPORT / "canvas/qti21/true_false.xml", tmp_path / "a", monkeypatch).quizzes[0].questions
    assert isinstance(tf.body, TrueFalse) and not tf.body.truth and tf.points == 10
    assert plain_text(tf.body.feedback_false) == "You're an idiot."  # the false answer's feedback
    (sa,) = _bank(IMPORT / "canvas/qti21/short_answer.xml", tmp_path / "b", monkeypatch).quizzes[0].questions
    assert isinstance(sa.body, ShortAnswer) and sa.body.accepted == ("short answer", "Something else")
    assert not sa.body.case_sensitive and sa.points == 19


def test_qti21_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QTIWorks' package: its items in test order, the inline-choice item a cloze (issue 23)."""
    bank = _bank(ROOT / "tests/corpus/qti21/qtiworks/WebDeveloperTest1.zip", tmp_path, monkeypatch)
    (quiz,) = bank.quizzes
    assert quiz.title == "Web Developer Website" and len(quiz.questions) == 9
    assert sum(q.type.value == "cloze" for q in quiz.questions) == 1
