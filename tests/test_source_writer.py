"""The source writer (what `lmsexport import` writes) is the loader's inverse: any quiz, written as
YAML and loaded again, is the same quiz; the editor schema accepts what it writes."""

from __future__ import annotations

from dataclasses import replace

import jsonschema
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import MD_RICH, cloze_stem, parametric_texts, quizzes

from lmsexport.editor_schema import schema
from lmsexport.model import (
    Calculated,
    CalculatedChoice,
    ChoiceBlank,
    Cloze,
    Code,
    Description,
    Essay,
    Matching,
    Math,
    MultipleChoice,
    NumberBlank,
    Numerical,
    Ordering,
    Question,
    Quiz,
    Rich,
    ShortAnswer,
    SingleChoice,
    Str,
    Table,
    TextBlank,
    TrueFalse,
)
from lmsexport.source import load_paths, load_text
from lmsexport.writers.source import write_quiz

VALIDATOR = jsonschema.Draft7Validator(schema())


def _round_trip(quiz: Quiz) -> Quiz:
    text, lost = write_quiz(quiz)
    assert lost == []
    assert list(VALIDATOR.iter_errors(yaml.safe_load(text))) == [], text
    back = load_text(text, "written.yaml")
    for a, b in zip(quiz.questions, back.questions, strict=True):  # type: ignore[union-attr]
        assert a == b, f"{text}\n{a!r}\n!=\n{b!r}"
    return back  # type: ignore[return-value]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes())
def test_any_plain_quiz_round_trips(quiz: Quiz) -> None:
    assert _round_trip(quiz) == quiz


def _richly(quiz: Quiz, texts: st.DataObject) -> Quiz:
    """The quiz with every markup-capable text made Rich (a markdown file has no plain texts)."""

    def r() -> Rich:
        return texts.draw(MD_RICH)

    def opt(text: object) -> Rich | None:
        return None if text is None else r()

    def question(q: Question) -> Question:
        feedback = q.feedback
        q = replace(
            q,
            stem=r(),
            explanation=opt(q.explanation),
            feedback=replace(
                feedback,
                correct=opt(feedback.correct),
                partial=opt(feedback.partial),
                incorrect=opt(feedback.incorrect),
            ),
            hints=tuple(replace(h, text=r()) for h in q.hints),
        )
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices):
                rich = tuple(replace(c, text=r(), feedback=opt(c.feedback)) for c in choices)
                q = replace(q, body=replace(q.body, choices=rich))
            case Matching(pairs):
                q = replace(q, body=replace(q.body, pairs=tuple(replace(p, left=r()) for p in pairs)))
            case TrueFalse(truth, feedback_true, feedback_false):
                q = replace(q, body=TrueFalse(truth, opt(feedback_true), opt(feedback_false)))
            case ShortAnswer(answers, case_sensitive, other):
                answers = tuple(replace(a, feedback=opt(a.feedback)) for a in answers)
                q = replace(q, body=ShortAnswer(answers, case_sensitive, opt(other)))
            case Numerical(keys) as body:
                keys = tuple(replace(k, feedback=opt(k.feedback)) for k in keys)
                q = replace(q, body=replace(body, keys=keys, other_feedback=opt(body.other_feedback)))
            case Essay() as body:
                q = replace(
                    q, body=replace(body, template=opt(body.template), grader_info=opt(body.grader_info))
                )
            case Cloze(blanks):
                q = replace(
                    q,
                    stem=texts.draw(cloze_stem(len(blanks), rich=True)),
                    body=Cloze(tuple(blank(b) for b in blanks)),
                )
            case Ordering(items):
                q = replace(q, body=replace(q.body, items=tuple(r() for _ in items)))
            case CalculatedChoice(choices=calc):
                rich = tuple(replace(c, feedback=opt(c.feedback)) for c in calc)
                q = replace(q, body=replace(q.body, choices=rich))
            case Description() | Calculated():
                pass
        return parametric_texts(q)

    def blank(b: object) -> object:
        match b:
            case ChoiceBlank(choices):
                return replace(
                    b, choices=tuple(replace(c, text=r(), feedback=opt(c.feedback)) for c in choices)
                )
            case TextBlank(answers, other_feedback=other):
                return replace(
                    b,
                    answers=tuple(replace(a, feedback=opt(a.feedback)) for a in answers),
                    other_feedback=opt(other),
                )
            case NumberBlank(keys, other_feedback=other):
                return replace(
                    b,
                    keys=tuple(replace(k, feedback=opt(k.feedback)) for k in keys),
                    other_feedback=opt(other),
                )
        raise AssertionError(b)

    return replace(
        quiz,
        description=None if quiz.description is None else r(),
        questions=tuple(question(q) for q in quiz.questions),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes(everything=True))
def test_any_plain_quiz_with_credits_feedback_hints_units_round_trips(quiz: Quiz) -> None:
    """Issue 22's fields (strategies' everything=True): credits, graded answers, numerical keys
    and units, names, combined feedback, hints, penalties and essay options."""
    assert _round_trip(quiz) == quiz


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes() | quizzes(everything=True), st.data())
def test_any_rich_quiz_round_trips(quiz: Quiz, data: st.DataObject) -> None:
    _rich_round_trip(quiz, data)


def _rich_round_trip(quiz: Quiz, data: st.DataObject) -> None:
    rich = _richly(quiz, data)
    # choices of one question must stay distinct once rich
    for q in rich.questions:
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices) if len({c.text for c in choices}) < len(
                choices
            ):
                return
            case Matching(pairs) if len({p.left for p in pairs}) < len(pairs):
                return
    for q in rich.questions:
        match q.body:
            case Ordering(items) if len(set(items)) < len(items):
                return
            case Cloze(blanks) if any(
                isinstance(b, ChoiceBlank) and len({c.text for c in b.choices}) < len(b.choices)
                for b in blanks
            ):
                return
    text, lost = write_quiz(rich, image_paths=None)
    if any(m for m in lost):
        return
    del text
    # images need files beside the YAML: compared without them in test_written_images_load
    if "![" in write_quiz(rich)[0]:
        return
    assert _round_trip(rich) == rich


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes(structured=True) | quizzes(everything=True, structured=True))
def test_any_plain_quiz_with_orderings_and_descriptions_round_trips(quiz: Quiz) -> None:
    """Issue 23's kinds in a plain file: orderings (every grading, subset, layout, numbering)
    and descriptions (no points, no feedback). A cloze stem is always rich: see below."""
    assume(not any(isinstance(q.body, Cloze) for q in quiz.questions))
    assert _round_trip(quiz) == quiz


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(quizzes(structured=True) | quizzes(everything=True, structured=True), st.data())
def test_any_rich_quiz_with_cloze_questions_round_trips(quiz: Quiz, data: st.DataObject) -> None:
    """Cloze stems written as Markdown with `[[n]]` markers (a literal `[[` escaped), every
    kind of blank with its keys, in a markdown file, come back as the same model."""
    assume(any(isinstance(q.body, Cloze) for q in quiz.questions))
    _rich_round_trip(quiz, data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes(parametric=True) | quizzes(everything=True, parametric=True))
def test_any_plain_quiz_with_parametric_questions_round_trips(quiz: Quiz) -> None:
    """Issue 24's kinds in a plain file: variables (ranges, steps, lists with or without
    decimals), derived values, constraints, tolerances, units, credits; variants drawn again
    from a count, or given as the explicit list, come back the same."""
    assert _round_trip(quiz) == quiz


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quizzes(parametric=True) | quizzes(everything=True, parametric=True), st.data())
def test_any_rich_quiz_with_parametric_questions_round_trips(quiz: Quiz, data: st.DataObject) -> None:
    """The same in a markdown file: placeholders and literal braces ({{ }}) in Markdown texts."""
    assume(any(isinstance(q.body, Calculated | CalculatedChoice) for q in quiz.questions))
    _rich_round_trip(quiz, data)


def test_parametric_variants_are_written_as_a_count_or_as_the_list() -> None:
    """A bank question's variants are written as its count (the loader draws the same ones);
    variants the id's seed would not draw (an LMS's dataset) as the explicit list, in order."""
    import lmsexport.variants as V
    from lmsexport.model import Formula, ListVariable, Parameters, RangeVariable, Tolerance, ToleranceKind

    params = Parameters((RangeVariable("N", 1, 70, 1, 0), ListVariable("G", (8.0, 16.0))), count=3)
    answer = Formula("16*N/G")
    tol = Tolerance(0.01, ToleranceKind.RELATIVE)
    drawn = V.draw("z3", params, answer=answer, tolerance=tol, decimals=2).variants
    body = Calculated(params, answer, tol, 2, (), drawn)
    quiz = Quiz("q", "T", "en", (Question(id="z3", stem="{N} on {G}", body=body, explanation="e"),))
    text, _ = write_quiz(quiz)
    assert "variants: 3\n" in text and 'answer: {formula: "16*N/G", tolerance: "1%"}' in text, text
    assert _round_trip(quiz) == quiz
    given = [V.Given({"N": 12.0, "G": 8.0}), V.Given({"N": 70.0, "G": 16.0})]
    explicit = V.draw(
        "z3", replace(params, count=None), answer=answer, tolerance=tol, decimals=2, given=given
    )
    other = replace(
        quiz,
        questions=(
            replace(
                quiz.questions[0],
                body=replace(body, params=replace(params, count=None), variants=explicit.variants),
            ),
        ),
    )
    text, _ = write_quiz(other)
    assert "variants:\n    - {N: 12, G: 8}\n    - {N: 70, G: 16}\n" in text, text
    back = _round_trip(other)
    assert back == other and [v.answer for v in back.questions[0].body.variants] == [24.0, 70.0]  # type: ignore[union-attr]


def test_a_cloze_stem_writes_its_markers_and_escapes_literal_brackets() -> None:
    """A stem of words, line breaks and gaps stays a plain text (`\\[[` for a literal `[[`);
    one with markup makes the file Markdown (`\\[\\[` there). Both load back as the same tree."""
    from lmsexport.model import Answer, Emph, Gap, LineBreak, NumericKey, Para

    words = (Str("[[1]] is text, "), Gap(1), Str(" is a blank,"), LineBreak(), Str("and \\[[ too: "), Gap(2))
    body = Cloze(
        (TextBlank((Answer("ZeRO-3"),)), NumberBlank((NumericKey(answer=0.2, tolerance=0.005),), weight=2))
    )
    for stem, expected in (
        (Rich((Para(words),)), "\\[[1]] is text, [[1]] is a blank,\n      and \\\\[[ too: [[2]]\n"),
        (
            Rich((Para((Emph((Str("ZeRO"),)), Str(" [[1]] is text, "), *words[1:])),)),
            "*ZeRO* \\[\\[1\\]\\] is text, [[1]] is a blank,\\\n",
        ),
    ):
        quiz = Quiz("q", "T", "en", (Question(id="c", stem=stem, body=body, explanation="e"),))
        text, lost = write_quiz(quiz)
        assert not lost and expected in text, text
        assert "weight: 2" in text and 'type: "numerical"' in text and "tolerance: 0.005" in text
        back = load_text(text, "x.yaml").questions[0]  # type: ignore[union-attr]
        assert back.stem == stem and back.body == body


def test_the_repository_bank_round_trips() -> None:
    bank = load_paths(
        [
            "source",
            "tests/cases/types",
            "tests/cases/credits",
            "tests/cases/structured",
            "tests/cases/parametric",
        ]
    )
    for quiz in bank.quizzes:
        if quiz.id in ("zero-memory-arithmetic", "structured"):
            continue  # images: see test_written_images_load
        assert _round_trip(quiz) == quiz, quiz.id


def test_notes_and_header_are_comments() -> None:
    quiz = Quiz("q", "T", "ur", (Question(id="a", stem="s", body=Essay()),))
    text, _ = write_quiz(quiz, notes={"a": ["from bank.xml:12", "id was 'A 1'"]}, header=["imported"])
    assert text.startswith('# imported\nid: "q"\n')
    assert "  # from bank.xml:12\n  # id was 'A 1'\n  - id: \"a\"\n" in text
    assert load_text(text, "x.yaml") == quiz


def test_adjacent_lists_stay_apart() -> None:
    """Found by hypothesis: two lists of one kind in a row read back as one list."""
    from lmsexport.model import BulletList, OrderedList, Para, Str

    def item(t: str) -> tuple[Para]:
        return (Para((Str(t),)),)

    stem = Rich(
        (
            BulletList((item("a"),)),
            BulletList((item("b"),)),
            BulletList((item("c"),)),
            OrderedList((item("d"),), 3),
            OrderedList((item("e"),), 1),
        )
    )
    quiz = Quiz(
        "q", "T", "en", (Question(id="a", stem=stem, body=Essay(), explanation=Rich((Para((Str("e"),)),))),)
    )
    assert _round_trip(quiz) == quiz


def test_code_and_formulas_in_a_table_cell_keep_their_pipes() -> None:
    """A GFM row splits at every `|`, in code spans and formulas too: the writer escapes them."""
    cell = (Str("a "), Code("x | y"), Str(" "), Math(r"|v| + \|w\|", display=False))
    table = Table(header=((Str("h"),),), rows=((cell,),), aligns=(None,))
    quiz = Quiz(
        id="pipes",
        title="t",
        lang="en",
        questions=(Question(id="q", stem=Rich((table,)), body=Essay()),),
    )
    text, lost = write_quiz(quiz, image_paths=None)
    assert not lost and r"`x \| y`" in text and r"$\|v\| + \\|w\\|$" in text
    assert _round_trip(quiz) == quiz
