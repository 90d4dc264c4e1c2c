"""QTI 2.1 and issue 22: credits, combined and per-answer feedback, graded answers, hints, names and
essay options written natively (valid against the XSD), read back by readers/qti21.py, and the
losses named one warning per question and element."""

from __future__ import annotations

import io
import zipfile
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from strategies import quizzes

from lmsexport.model import (
    Answer,
    Bank,
    Essay,
    Hint,
    Numerical,
    NumericKey,
    OutcomeFeedback,
    Question,
    Quiz,
    ResponseFormat,
    Rich,
    ShortAnswer,
    SingleChoice,
    UnitGrading,
    UnitInput,
)
from lmsexport.readers.packagefiles import ZipFiles
from lmsexport.readers.qti21 import read_package
from lmsexport.validate import validate_tree
from lmsexport.writers import WriteContext, qti21
from lmsexport.writers.qti21_package import build_qti21

CREDITS = Path(__file__).resolve().parent / "cases" / "credits" / "credits.yaml"
CTX = WriteContext(formats=("qti21",))
NS = {"q": qti21.QTI_NS}


def _credits_bank() -> Bank:
    from lmsexport.source import load_paths

    return load_paths([str(CREDITS)])


def read_back(quiz: Quiz) -> list[Question]:
    """The questions of a quiz's package as readers/qti21.py reads them (before the importer)."""
    data = build_qti21(Bank((quiz,)), CTX).files[f"qti21/{quiz.id}.zip"]
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        found = read_package(ZipFiles(zf, "x.zip"), "x.zip")
    assert not [d for d in found.diags if d.severity.value == "error"], found.diags
    return [replace(d.question, id=d.raw_id or "") for q in found.quizzes for d in q.questions]


def kept(quiz: Quiz, q: Question) -> Question:
    """What QTI 2.1 carries of a question: everything but the losses loss_warnings names."""
    body = q.body
    q = replace(
        q,
        feedback=replace(q.feedback, show_num_correct=False),
        hints=tuple(replace(h, show_num_correct=False, clear_wrong=False) for h in q.hints),
        penalty=q.penalty if q.hints else None,
        lang=q.lang,
    )
    if q.penalty is not None and abs(q.penalty - 1 / 3) < 1e-9:
        q = replace(q, penalty=None)
    if isinstance(body, Numerical):
        keys = tuple(_key(k, k is body.key) for k in body.keys)
        body = replace(
            body,
            keys=keys,
            units=(),
            unit_grading=UnitGrading.OPTIONAL,
            unit_penalty=0.1,
            unit_input=UnitInput.TEXT,
            units_left=False,
        )
    elif isinstance(body, Essay):
        body = replace(
            body,
            min_words=None,
            max_words=None,
            template=body.template if isinstance(body.template, str) else None,
            response_format=ResponseFormat.EDITOR
            if body.response_format is ResponseFormat.NONE
            else body.response_format,
            # the item takes text only (qti21.attachments-not-carried)
            attachments=0,
            attachments_required=0,
            file_types=(),
            max_bytes=0,
        )
    elif isinstance(body, ShortAnswer) and all(
        a.wildcard and a.text.swapcase() == a.text for a in body.answers
    ):
        # Only patterns without a cased letter: nothing in the item tells the case sensitivity
        # (readers/qti21.py _wildcard_of gives None), read as the model's default.
        body = replace(body, case_sensitive=False)
    elif isinstance(body, ShortAnswer) and qti21._plain_short(body) and not body.case_sensitive:
        seen: dict[str, Answer] = {}
        for a in body.answers:  # one mapEntry per answer, compared ignoring case
            seen.setdefault(a.text.casefold(), a)
        body = replace(body, answers=tuple(seen.values()))
    return replace(q, body=body)


def _key(k: NumericKey, best: bool) -> NumericKey:
    """A key by what a QTI file holds: its interval, credit and feedback (and the answer of a range
    only where it is written: the best key's correct response, or an exact two-tolerance equal)."""
    low, high = k.bounds
    keep = k.answer is not None and (best or k.low is None or qti21._range_tolerances(k) is not None)
    return replace(k, answer=k.answer if keep else None, tolerance=0.0, low=low, high=high)


def _normal(q: Question) -> Question:
    if isinstance(q.body, Numerical):
        body = q.body
        return replace(q, body=replace(body, keys=tuple(_key(k, True) for k in body.keys)))
    return q


# --------------------------------------------------------------------------- the credits bank


def test_the_credits_bank_is_valid_and_warns_each_loss_once() -> None:
    bank = _credits_bank()
    (quiz,) = bank.quizzes
    for q in quiz.questions:
        assert validate_tree(qti21.item_tree(quiz, q), "item", q.id) == [], q.id
    out = build_qti21(bank, CTX)
    losses = sorted(
        (w.rule, w.message.split("'")[1]) for w in out.warnings if w.rule.endswith("-not-carried")
    )
    assert len(losses) == len(set(losses))
    rules = {r for r, _ in losses}
    assert {
        "qti21.show-num-correct-not-carried",
        "qti21.hint-clear-wrong-not-carried",
        "qti21.units-not-carried",
        "qti21.word-limits-not-carried",
        "qti21.penalty-not-carried",
    } <= rules
    # Only where a question sets the element.
    for rule, qid in losses:
        q = next(x for x in quiz.questions if x.id == qid)
        if rule == "qti21.units-not-carried":
            assert isinstance(q.body, Numerical) and q.body.units
        if rule == "qti21.penalty-not-carried":
            assert q.penalty is not None and not q.hints


def test_the_credits_bank_reads_back() -> None:
    (quiz,) = _credits_bank().quizzes
    back = read_back(quiz)
    assert [q.id for q in back] == [q.id for q in quiz.questions]
    for src, got in zip(quiz.questions, back, strict=True):
        want = kept(quiz, src)
        assert _normal(replace(got, lang=src.lang, tags=src.tags)) == _normal(want), src.id


def test_todays_bank_gives_no_loss_warning(types_bank: Bank) -> None:
    out = build_qti21(types_bank, CTX)
    assert not [w for w in out.warnings if w.rule.endswith("-not-carried")]
    assert not [w for w in out.warnings if w.rule in ("qti21.canvas-partial-credit", "qti21.canvas-feedback")]


def test_name_is_the_title_and_a_derived_one_reads_back_as_none(types_quiz: Quiz) -> None:
    q = types_quiz.questions[0]
    named = replace(q, name="ZeRO: مرحلہ")
    item = qti21.item_tree(types_quiz, named)
    assert item.get("title") == "ZeRO: مرحلہ"
    assert qti21.item_tree(types_quiz, q).get("title") == qti21.short_title(q)
    quiz = replace(types_quiz, questions=(named, types_quiz.questions[1]))
    first, second = read_back(quiz)
    assert first.name == "ZeRO: مرحلہ" and second.name is None


def test_combined_feedback_identifiers_are_what_canvas_maps() -> None:
    import re

    # Canvas's get_feedback (assessment_item_converter.rb), in its order.
    def canvas(ident: str) -> str:
        if re.search(r"wrong|incorrect|(_IC$)", ident, re.I):
            return "incorrect"
        if re.search(r"correct|(_C$)", ident, re.I):
            return "correct"
        if re.search(r"solution", ident, re.I):
            return "solution"
        if re.search(r"general_|_all", ident, re.I) or re.search(r"feedback_(\d*)_fb", ident, re.I):
            return "neutral"
        return "dropped"

    assert canvas(qti21.CORRECT_ID) == "correct"
    assert canvas(qti21.INCORRECT_ID) == "incorrect"
    assert canvas(qti21.PARTIAL_ID) == "dropped"
    assert canvas(qti21.EXPLANATION_ID) == "neutral"
    assert canvas(qti21.OTHER_ID) == "dropped"
    assert canvas(qti21.answer_id(3)) == "dropped" and canvas(qti21.hint_id(2)) == "dropped"


def test_wildcard_patterns_escape_what_xsd_regexes_need() -> None:
    assert qti21.wildcard_pattern("a.b*", True) == r"a\.b.*"
    assert qti21.wildcard_pattern("x$y", True) == "x$y"  # $ is no metacharacter in XSD regexes
    assert qti21.wildcard_pattern("ab**c", False) == "[aA][bB].*[cC]"
    assert qti21.wildcard_pattern("سوال*", False) == "سوال.*"


def test_essay_options_and_grader_information() -> None:
    q = Question(
        id="e",
        stem="?",
        body=Essay(ResponseFormat.MONOSPACED, required=False, lines=4, template="def f():", grader_info="X"),
    )
    quiz = Quiz(id="z", title="t", lang="en", questions=(q,))
    item = qti21.item_tree(quiz, q)
    (interaction,) = item.iterfind(".//q:extendedTextInteraction", NS)
    assert dict(interaction.attrib) == {
        "responseIdentifier": "RESPONSE",
        "expectedLines": "4",
        "format": "preformatted",
        "minStrings": "0",
        "placeholderText": "def f():",
    }
    assert item.find(".//q:rubricBlock", NS).get("view") == "scorer"
    assert validate_tree(item, "item", "e") == []
    assert read_back(quiz)[0].body == q.body


def test_a_negative_single_choice_credit_is_a_negative_mark() -> None:
    from lmsexport.model import Choice

    q = Question(id="n", stem="?", body=SingleChoice((Choice("a", 1.0), Choice("b", -0.5))), points=2)
    item = qti21.item_tree(Quiz(id="z", title="t", lang="en", questions=(q,)), q)
    mapping = item.find(".//q:mapping", NS)
    assert mapping.get("lowerBound") == "-1"
    assert item.find("q:outcomeDeclaration", NS).get("normalMinimum") == "-1"


# --------------------------------------------------------------------------- property


def _readable(quiz: Quiz) -> Quiz:
    """Questions QTI reads back as themselves: no rich template (a loss) and a hint-free essay."""
    out = []
    for q in quiz.questions:
        if isinstance(q.body, Essay) and isinstance(q.body.template, Rich):
            q = replace(q, body=replace(q.body, template=None))
        out.append(q)
    return replace(quiz, questions=tuple(out))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quiz=quizzes(everything=True))
def test_any_quiz_round_trips_through_qti21(quiz: Quiz) -> None:
    quiz = _readable(quiz)
    back = read_back(quiz)
    assert len(back) == len(quiz.questions)
    for src, got in zip(quiz.questions, back, strict=True):
        want = kept(quiz, src)
        got = replace(got, lang=src.lang, tags=src.tags, loc=None)
        assert _normal(got) == _normal(want), src.id


def test_hints_are_read_back_with_their_penalty() -> None:
    from lmsexport.model import Choice

    q = Question(
        id="h",
        stem="?",
        body=SingleChoice((Choice("a", 1.0), Choice("b"))),
        hints=(Hint("one"), Hint("two")),
        penalty=0.2,
        feedback=OutcomeFeedback(partial="p"),
    )
    quiz = Quiz(id="z", title="t", lang="en", questions=(q,))
    (got,) = read_back(quiz)
    assert got.hints == q.hints and got.penalty == 0.2 and got.feedback == q.feedback
    (default,) = read_back(replace(quiz, questions=(replace(q, penalty=None),)))
    assert default.penalty is None


def test_choice_questions_with_combined_feedback_hints_and_a_penalty_come_from_skeletons() -> None:
    """A single or multiple choice with credits, Moodle's combined feedback (a multi-line and an
    empty text among them), hints and a penalty takes the skeleton path (qti21._EXTRAS_TYPES):
    its item is build_item_tree's, byte for byte, whichever question of the shape made the
    skeleton; one with another feedback present is a shape of its own."""
    from lmsexport.model import Choice, MultipleChoice
    from lmsexport.package import serialize

    def question(qid: str, word: str, fb: OutcomeFeedback) -> Question:
        hints = (Hint(f"{word}: پہلا اشارہ"), Hint(f"{word}\nدوسرا", show_num_correct=True, clear_wrong=True))
        return Question(
            id=qid,
            stem=f"{word}: ZeRO-3 کیا بانٹتا ہے؟",
            explanation=f"{word} & <b>",
            body=MultipleChoice(
                (
                    Choice(f"{word} params", 0.5, feedback="ہاں"),
                    Choice(f"{word} grads", 0.5),
                    Choice(f"{word} nothing", -0.5, feedback="نہیں"),
                )
            ),
            feedback=fb,
            hints=hints,
            penalty=0.25,
        )

    full = OutcomeFeedback("ٹھیک\nبالکل", "", "غلط", show_num_correct=True)
    quiz = Quiz("fb", "FB", "ur", ())
    a, b = question("qa", "alpha", full), question("qb", "<&beta>", full)
    c = question("qc", "gamma", OutcomeFeedback("ٹھیک", None, "غلط"))
    single = replace(
        a, id="qs", body=SingleChoice((Choice("x", 1.0), Choice("y", 0.5, feedback="آدھا"), Choice("z", 0.0)))
    )
    for source, target in ((a, b), (b, a), (a, a), (single, replace(single, id="qt", stem="دوسرا"))):
        qti21._SKELETONS.clear()
        assert qti21._shape(quiz, source) is not None
        qti21.item_tree(quiz, source)
        assert serialize(qti21.item_tree(quiz, target)) == serialize(qti21.build_item_tree(quiz, target))
    assert qti21._shape(quiz, a) != qti21._shape(quiz, c)
    assert serialize(qti21.item_tree(quiz, c)) == serialize(qti21.build_item_tree(quiz, c))
    qti21._SKELETONS.clear()
