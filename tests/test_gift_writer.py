"""GIFT writer: golden files, the escape function, Moodle's weights and the lossy-field warnings."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from lmsexport.errors import GiftExportError, Severity
from lmsexport.model import (
    Answer,
    Bank,
    Choice,
    Matching,
    MultipleChoice,
    Numerical,
    NumericKey,
    Pair,
    Question,
    Quiz,
    ShortAnswer,
    SingleChoice,
    default_multiple_credits,
)
from lmsexport.readers.gift import unescape_text
from lmsexport.writers import WriteContext, get_writer
from lmsexport.writers.gift import (
    GRADE_TOLERANCE,
    MOODLE_GRADES,
    WEIGHT_RE,
    category_path,
    escape_text,
    format_weight,
    multi_answer_weights,
    write,
    write_quiz,
)

CASES = Path(__file__).parent / "cases" / "gift"
SOURCE = Path(__file__).resolve().parents[1] / "source"
CTX = WriteContext(formats=("gift",))


def _quiz(*questions: Question, **kw: object) -> Quiz:
    return Quiz(id="q", title="T", lang="en", questions=questions, **kw)  # type: ignore[arg-type]


def _single(choices: tuple[Choice, ...] | None = None, **kw: object) -> Question:
    body = SingleChoice(choices if choices is not None else (Choice("a", 1.0), Choice("b")))
    base = Question(id="s1", stem="Pick", body=body)
    return replace(base, **kw)


def _multiple(right: list[bool]) -> Question:
    """A multiple choice question with the default credits for its right choices."""
    credits = default_multiple_credits(right)
    return Question(
        id="m", stem="S", body=MultipleChoice(tuple(Choice(f"c{i}", c) for i, c in enumerate(credits)))
    )


def _short(*answers: str, case_sensitive: bool = False) -> Question:
    return Question(
        id="s", stem="S", body=ShortAnswer(tuple(Answer(a) for a in answers), case_sensitive=case_sensitive)
    )


def _rules(quiz: Quiz) -> list[str]:
    return [d.rule for d in write_quiz(quiz)[1]]


def test_registry_finds_the_writer(types_bank: Bank) -> None:
    out = get_writer("gift")(types_bank, CTX)
    assert list(out.files) == ["gift/all-types.gift.txt"]


def test_golden_types_quiz(types_bank: Bank, golden) -> None:
    out = write(types_bank, CTX)
    golden(CASES / "all-types.gift.txt", out.files["gift/all-types.gift.txt"])


def _seed_bank() -> Bank:
    source = pytest.importorskip("lmsexport.source")
    return source.load_paths([str(SOURCE)])


@pytest.mark.parametrize(
    "quiz_id",
    [
        "deepspeed-megatron-stacks",
        "model-pipeline-parallelism",
        "zero-memory-arithmetic",
        "zero-sharded-optimizers",
    ],
)
def test_golden_seed_quizzes(quiz_id: str, golden) -> None:
    # The committed dist/ is the seed quizzes' golden file (no second copy under tests/cases/).
    out = write(_seed_bank(), CTX)
    golden(SOURCE.parent / "dist" / "gift" / f"{quiz_id}.gift.txt", out.files[f"gift/{quiz_id}.gift.txt"])


def test_output_is_utf8_lf_no_bom_and_deterministic(types_bank: Bank) -> None:
    first = write(types_bank, CTX).files["gift/all-types.gift.txt"]
    assert first == write(types_bank, CTX).files["gift/all-types.gift.txt"]
    assert not first.startswith(b"\xef\xbb\xbf")
    assert b"\r" not in first
    first.decode("utf-8")


def test_no_line_ends_a_question_early(types_bank: Bank) -> None:
    """Inside a question no line may be blank or just '0' (Moodle ends the question there)."""
    text = write(types_bank, CTX).files["gift/all-types.gift.txt"].decode()
    for block in text.split("\n\n"):
        assert all(line.strip() not in ("", "0") for line in block.split("\n") if line), block


# -- escape_text ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plain", "gift"),
    [
        ("a~b=c#d{e}f:g\\h", "a\\~b\\=c\\#d\\{e\\}f\\:g\\\\h"),
        ("x < y & z > w", "x &lt; y &amp; z &gt; w"),
        ("line 1\nline 2", "line 1<br>line 2"),
        ("two  spaces", "two&nbsp;&nbsp;spaces"),
        ("a \nb", "a&nbsp;<br>b"),
        ("[html]x", "&\\#91;html]x"),
        ("%50%x", "&\\#37;50%x"),
        ("a->b", "a-&gt;b"),
        ("&&058;", "&amp;&amp;058;"),
        ("tab\there", "tab&\\#9;here"),
        ("اردو: سوال؟", "اردو\\: سوال؟"),
    ],
)
def test_escape_text(plain: str, gift: str) -> None:
    assert escape_text(plain) == gift
    assert unescape_text(gift) == plain


def test_escape_text_never_writes_a_line_break() -> None:
    assert "\n" not in escape_text("a\n\nb\n0\n")


# -- weights ----------------------------------------------------------------------------


def _moodle_reads(weight: str) -> Fraction:
    """answerweightparser(): the text between the first two % signs, over 100."""
    assert WEIGHT_RE.match(weight), weight
    return Fraction(weight[1 : weight.index("%", 1)]) / 100


def _on_grade_list(fraction: Fraction) -> bool:
    return any(abs(fraction - g) < GRADE_TOLERANCE for g in MOODLE_GRADES)


def test_grade_list_is_moodles() -> None:
    assert len(MOODLE_GRADES) == 41
    assert format_weight(Fraction("0.3333333")) == "%33.33333%"
    assert format_weight(Fraction("-0.1428571")) == "%-14.28571%"
    assert format_weight(Fraction(1, 2)) == "%50%"


@pytest.mark.parametrize("n_right", range(1, 12))
@pytest.mark.parametrize("n_wrong", range(0, 12))
def test_multi_answer_weights_are_on_moodles_list(n_right: int, n_wrong: int) -> None:
    right, wrong, exact = multi_answer_weights(n_right, n_wrong)
    for w in (right, wrong):
        assert _on_grade_list(_moodle_reads(format_weight(w)))
    assert exact == (n_right <= 10 and n_wrong <= 10 or n_right == 20 or n_wrong == 20)
    if exact:
        assert abs(n_right * right - 1) < Fraction(1, 10**5)
        assert n_wrong == 0 or abs(n_wrong * wrong + 1) < Fraction(1, 10**5)


def test_every_weight_written_parses_and_is_allowed() -> None:
    text, _ = write_quiz(_quiz(_multiple([i < 3 for i in range(7)])))
    weights = re.findall(r"~(%[^%]*%)", text)
    assert weights == ["%33.33333%"] * 3 + ["%-25%"] * 4
    assert all(_on_grade_list(_moodle_reads(w)) for w in weights)


def test_lone_right_choice_of_multi_answer_avoids_100() -> None:
    text, _ = write_quiz(_quiz(_multiple([True, False])))
    assert "~%99.99999%c0" in text and "%100%" not in text
    assert _on_grade_list(_moodle_reads("%99.99999%"))


def test_inexact_split_warns() -> None:
    assert "gift.inexact-weights" in _rules(_quiz(_multiple([i < 11 for i in range(12)])))


# -- warnings and errors ----------------------------------------------------------------


def test_points_warning_names_the_question() -> None:
    _, diags = write_quiz(_quiz(_single(points=2)))
    (d,) = [d for d in diags if d.rule == "gift.points-not-carried"]
    assert d.severity is Severity.WARNING
    assert d.format().startswith("q: warning: question 's1': is worth 2 points")


@pytest.mark.parametrize(
    ("question", "rule"),
    [
        (
            _short("A", case_sensitive=True),
            "gift.case-sensitive-not-carried",
        ),
        (_single(tags=("a<b",)), "gift.tag-dropped"),
    ],
)
def test_lossy_fields_warn(question: Question, rule: str) -> None:
    assert rule in _rules(_quiz(question))


def test_no_shuffle_and_odd_category_warn() -> None:
    rules = _rules(_quiz(_single(), shuffle=False, category="a:b/c{d}"))
    assert {"gift.shuffle-not-carried", "gift.category-sanitized"} <= set(rules)


@pytest.mark.parametrize(
    ("category", "title", "expected"),
    [("a/b c/d", "T", "a/b c/d"), (None, "Quiz 1/2", "Quiz 1//2"), ("x:y/#z", "T", "x-y/-z")],
)
def test_category_path(category: str | None, title: str, expected: str) -> None:
    assert category_path(Quiz(id="q", title=title, lang="en", questions=(), category=category))[0] == expected


@pytest.mark.parametrize(
    ("question", "message"),
    [
        (_single(choices=(Choice("only", 1.0),)), "has 1 choice(s); Moodle's importer needs at least 2"),
        (
            Question(id="m", stem="S", body=Matching((Pair("a", "1"),))),
            "has 1 pair(s); Moodle's importer fails on fewer than 2",
        ),
        (
            _short("%50%half"),
            "accepted answer 1 '%50%half' starts with a weight-like '%N%' that GIFT cannot escape",
        ),
        (
            _short("[html]x"),
            "accepted answer 1 '[html]x' starts with a format tag that Moodle would strip",
        ),
        (
            _short("a->b"),
            "accepted answer 1 'a->b' contains '->', which makes it a matching question to Moodle",
        ),
        (
            Question(id="n", stem="S", body=Numerical((NumericKey(answer=float("nan")),))),
            "has a numeric key that is not a finite number",
        ),
        (_single(stem="bell\x07"), "the stem contains control character U+0007"),
    ],
)
def test_unwritable_content_is_an_error(question: Question, message: str) -> None:
    with pytest.raises(GiftExportError) as info:
        write(Bank((_quiz(question),)), CTX)
    messages = [d.message for d in info.value.diagnostics]
    assert any(m.endswith(message) for m in messages), messages
    assert all(d.severity is Severity.ERROR for d in info.value.diagnostics)


def test_all_errors_of_a_bank_are_reported() -> None:
    bad1 = _single(id="a", choices=(Choice("x", 1.0),))
    bad2 = Question(id="b", stem="S", body=Matching((Pair("a", "1"),)))
    with pytest.raises(GiftExportError) as info:
        write(Bank((_quiz(bad1, bad2),)), CTX)
    assert len(info.value.diagnostics) == 2


def test_short_answer_asterisk_is_literal() -> None:
    q = _short("a*b")
    assert "=a\\\\*b" in write_quiz(_quiz(q))[0]


def test_numbers() -> None:
    q = Question(id="n", stem="S", body=Numerical((NumericKey(low=-1.5, high=2),)))
    assert "=-1.5..2\n" in write_quiz(_quiz(q))[0]
    q = replace(q, body=Numerical((NumericKey(answer=1e-7, tolerance=0),)))
    assert "=1e-07\n" in write_quiz(_quiz(q))[0]


def test_languages_travel_as_html_spans() -> None:
    """Urdu is marked right to left; English inside an Urdu quiz left to right; no warning."""
    quiz = Quiz(
        id="q",
        title="T",
        lang="ur",
        questions=(_single(lang="en", choices=(Choice("a", 1.0, lang="ur"), Choice("b"))),),
    )
    text, diags = write_quiz(quiz)
    assert not [d for d in diags if "lang" in d.rule]
    assert '::[html]<span lang\\="en" dir\\="ltr">' in text
    assert '=<span lang\\="ur" dir\\="rtl">a</span>' in text


@pytest.mark.parametrize("stem", ["&&&058;", "a  b\nc", "x" * 200, "ZeRO کس بے کار " * 10])
def test_question_name_is_one_safe_line(stem: str) -> None:
    from lmsexport.writers.gift import NAME_CHARS, question_name

    name = question_name(_single(stem=stem))
    assert "&&" not in name and "\n" not in name and len(name) <= NAME_CHARS


# -- assessments --------------------------------------------------------------------------

TYPES = Path(__file__).parent / "cases" / "types"


@pytest.fixture(scope="module")
def exam_bank() -> Bank:
    source = pytest.importorskip("lmsexport.source")
    return source.load_paths([TYPES / "bank.yaml", TYPES / "exam.yaml"])


def test_assessment_file_is_the_same_whichever_way_the_writer_is_called(exam_bank: Bank) -> None:
    whole = write(exam_bank, CTX)
    alone = write(Bank((), exam_bank.assessments), CTX)
    assert list(alone.files) == ["gift/every-type-exam.gift.txt"]
    assert alone.files["gift/every-type-exam.gift.txt"] == whole.files["gift/every-type-exam.gift.txt"]
    # The questions' own warnings come with their quiz's file, not again with the assessment's.
    assert {d.rule for d in alone.warnings} == {"gift.assessment-not-carried", "gift.points-not-carried"}


def _moodle_category_names(line: str) -> list[str]:
    """What question/format.php makes of a `$CATEGORY:` line: split_category_path()."""
    path = line.removeprefix("$CATEGORY:").strip()
    return [re.sub(r"\s+", " ", n.replace("//", "/")).strip() for n in re.split(r"(?<!/)/(?!/)", path)]


def test_each_draw_has_a_category_under_the_assessment(exam_bank: Bank) -> None:
    text = write(Bank((), exam_bank.assessments), CTX).files["gift/every-type-exam.gift.txt"].decode()
    categories = [line for line in text.splitlines() if line.startswith("$CATEGORY:")]
    assert [_moodle_category_names(c) for c in categories] == [
        ["$course$", "every-type-exam", "1. انتخابی سوالات", "choices"],
        ["$course$", "every-type-exam", "1. انتخابی سوالات", "section1-draw2"],
        ["$course$", "every-type-exam", "2. جواب لکھیں", "typed"],
        ["$course$", "every-type-exam", "2. جواب لکھیں", "section2-draw2"],
    ]
    # Every category holds exactly its draw's candidates (a random question draws from it).
    blocks = text.split("$CATEGORY:")[1:]
    draws = [d for s in exam_bank.assessments[0].sections for d in s.draws]
    for block, draw in zip(blocks, draws, strict=True):
        assert re.findall(r"^// \[id:([^\]]+)\]", block, re.M) == [c.question.id for c in draw.candidates]


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        (None, "3"),
        ("Part A: {basics}", "3. Part A- -basics-"),
        ("a/b", "3. a//b"),
        ("/lead and trail/", "3. //lead and trail// "),
        ("x <b> y", "3. x -b- y"),
        ("w " * 50, "3. " + ("w " * 29).strip() + "…"),
    ],
)
def test_draw_category_names(title: str | None, expected: str) -> None:
    from lmsexport.model import Assessment, Draw, Section
    from lmsexport.writers.gift import draw_category

    section = Section(title=title)
    assessment = Assessment(id="mid-term", title="T", lang="en", sections=(section,))
    path = draw_category(assessment, 3, section, Draw(name="pool-1"))
    assert path == f"$course$/mid-term/{expected}/pool-1"
    assert _moodle_category_names(path)[2] == re.sub(r"\s+", " ", expected.replace("//", "/")).strip()


def _exam(lang: str, **kw: object):
    from lmsexport.model import Assessment, Candidate, Draw, Pool, Section

    quiz = _quiz(_single(id="a", points=3), _single(id="b"), _single(id="c", lang="ur", difficulty=None))
    header = replace(quiz, questions=(), difficulty=None)
    cands = [Candidate(header, q) for q in quiz.questions]
    draws = (
        Draw(name="pool", pool=Pool(), pick=1, candidates=tuple(cands[:2])),
        Draw(name="listed", ids=("c",), points=2, candidates=(cands[2],)),
    )
    return Assessment(id="exam", title="Exam", lang=lang, sections=(Section("Part 1", True, draws),), **kw)


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["how to build this assessment in Moodle", 'Tick "Shuffle"', "are worth 1/3 marks"]),
        ("ur", ["Moodle میں یہ امتحان بنانے کا طریقہ", '"Shuffle" پر نشان لگائیں', "کل نمبر منتخب"]),
        ("ur-PK", ["Moodle میں یہ امتحان بنانے کا طریقہ"]),
        ("fr", ["how to build this assessment in Moodle"]),
    ],
)
def test_instructions_are_in_the_assessments_language(lang: str, words: list[str]) -> None:
    from lmsexport.writers.gift import write_assessment

    text, _ = write_assessment(_exam(lang))
    head = text.split("\n\n")[0]
    assert all(line.startswith("//") for line in head.splitlines())
    for w in words:
        assert w in head, w
    assert "c (" in head and "2)" in head  # the listed question, with its mark
    assert '"a random question"' in head and '"from question bank"' in head


def test_assessment_warnings_name_what_is_lost() -> None:
    from lmsexport.writers.gift import write_assessment

    _, diags = write_assessment(_exam("en"))
    rules = [(d.rule, d.message) for d in diags]
    assert rules[0][0] == "gift.assessment-not-carried"
    points = [m for r, m in rules if r == "gift.points-not-carried"]
    assert points == [
        "assessment 'exam': draw 'pool' gives its questions 1/3 points, but GIFT has no marks: "
        "Moodle gives each question its default mark 1",
        "assessment 'exam': draw 'listed' gives its questions 2 points, but GIFT has no marks: "
        "Moodle gives each question its default mark 1",
    ]
    # Notes, not warnings: Moodle builds no quiz from GIFT, the instructor does, from the file's
    # instructions, which name every draw and its marks (a warning would fail `check --strict`
    # on every bank that has an assessment).
    assert all(d.severity is Severity.NOTE for d in diags)


def test_assessment_questions_errors_are_kept() -> None:
    from lmsexport.model import Candidate, Draw, Section

    bad = _single(choices=(Choice("only", 1.0),))
    quiz = _quiz(bad)
    exam = replace(
        _exam("en"),
        sections=(Section(draws=(Draw(name="d", ids=("s1",), candidates=(Candidate(quiz.header, bad),)),)),),
    )
    with pytest.raises(GiftExportError) as info:
        write(Bank((), (exam,)), CTX)
    assert [d.rule for d in info.value.diagnostics] == ["gift.too-few-choices"]


def test_as_in_assessment() -> None:
    from lmsexport.model import Candidate, Difficulty
    from lmsexport.writers.gift import as_in_assessment

    home = Quiz(id="h", title="H", lang="en", questions=(), difficulty=Difficulty.HARD)
    q = _single(lang=None)
    exam = _exam("ur")
    assert as_in_assessment(exam, Candidate(home, q)) == replace(q, lang="en", difficulty=Difficulty.HARD)
    assert as_in_assessment(replace(exam, lang="en"), Candidate(home, q)) == replace(
        q, difficulty=Difficulty.HARD
    )


def test_question_difficulty_travels_in_the_metadata() -> None:
    from lmsexport.model import Difficulty

    text, _ = write_quiz(_quiz(_single(difficulty=Difficulty.EASY)))
    assert '// lmsexport: {"difficulty": "easy"}' in text


def test_a_file_too_large_to_read_back_is_warned_about() -> None:
    from lmsexport.model import Image, Media, Para, Rich, Str
    from lmsexport.readers.gift import MAX_GIFT_BYTES

    big = Media("big.png", b"\x89PNG\r\n\x1a\n" + bytes(2 * 1024 * 1024), "image/png", 1, 1)
    questions = [
        _single(
            id=f"s{i}",
            stem=Rich((Para((Str(f"{i}"), Image(replace(big, data=big.data + bytes([i])), "x"))),)),
        )
        for i in range(5)
    ]
    out = write(Bank((_quiz(*questions),)), CTX)
    assert len(out.files["gift/q.gift.txt"]) > MAX_GIFT_BYTES
    (d,) = [d for d in out.warnings if d.rule == "gift.file-too-large"]
    assert d.message.startswith("gift/q.gift.txt is ") and d.hint
    assert not [
        d for d in write(Bank((_quiz(*questions[:1]),)), CTX).warnings if d.rule == "gift.file-too-large"
    ]


def test_instructions_stay_comments_whatever_the_titles_hold() -> None:
    from lmsexport.writers.gift import write_assessment

    exam = _exam("en")
    exam = replace(
        exam,
        title="Mid\n{term}\n\n0",
        description="line 1\n\n{x}",
        sections=(replace(exam.sections[0], title="a\nb {c}"),),
    )
    text, _ = write_assessment(exam)
    head = text.split("\n\n")[0].splitlines()
    assert all(line.startswith("//") for line in head)
    assert "// Section 1: a b {c}" in head


def test_a_single_choice_whose_every_choice_is_right_stays_a_choice_question() -> None:
    """Answers of only '=' are a short answer to Moodle's readquestion() (a '~' makes a choice
    question, an '=' among them single-answer): the first is '=', the others '~%100%', and the
    file reads back as the single choice it was (hypothesis found two right choices 'x')."""
    from lmsexport.readers.gift import read_quiz

    question = _single((Choice("x", 1.0), Choice("y", 1.0), Choice("z", 1.0)))
    text, _ = write_quiz(_quiz(question))
    assert "{ =x ~%100%y ~%100%z }" in " ".join(text.split())
    back, _ = read_quiz(text, "q.gift.txt", quiz_id="q", lang="en")
    assert back.questions[0].body == question.body
