"""Moodle GIFT writer: one `gift/<quiz-id>.gift.txt` per quiz, written for Moodle's own importer.

Every rule below comes from Moodle's parser (question/format/gift/format.php and
question/format.php) and from running its importer (see the project's lms-notes):

* Text format. Question text, choices, feedback, matching left-hand items and the general
  feedback are written as `[html]` with the plain source text HTML-escaped (`&`, `<`, `>`),
  line breaks as `<br>` and spaces that HTML would collapse (runs, or next to a line break)
  as `&nbsp;`. That is the one format in which Moodle shows any plain text exactly: the
  default auto-format interprets HTML and links URLs, `[markdown]` interprets `*` and `_`,
  and `[plain]` is lost on answers. HTML escaping also defuses what GIFT cannot escape:
  `->` becomes `-&gt;`, a leading `[` (a format tag to Moodle) becomes `&#91;`, a leading
  `%` (a weight to Moodle) becomes `&#37;`, and Moodle's own escape placeholders
  (`&&058;`...) can no longer occur in the text.
* Some fields are never formatted by Moodle: short answers (compared with what the learner
  types), the right-hand items of matching, the question name and the category. They get
  GIFT escaping only, and what GIFT cannot carry there is reported as an error.
* GIFT escaping (`\\ \\~ \\= \\# \\{ \\} \\:` and `\\n` for a line break) is applied last, once,
  by `_escape_gift`, so each text of a question sits on one line: a blank line or a line
  that is just `0` would end the question, and Moodle trims every line.
* Weights are percentages from Moodle's list of allowed grades (question_bank::
  fraction_options_full), written to 5 decimals as Moodle prints them, so the importer's
  0.00001 tolerance matches them (`%33.33333%`). Moodle's weight regex reads `%100%` but the
  importer notes say it is refused, so a lone correct choice of a multi-answer question is
  written `%99.99999%`, which matches 100% within that tolerance.
* Languages travel as HTML: a formatted text in a right-to-left language, or in another
  language than the quiz, is wrapped in `<span lang=".." dir="rtl|ltr">`, so Urdu reads
  right to left on any Moodle page and the reader recovers each question's language.
* What Moodle cannot hold (points, case sensitivity, matching distractors) is
  warned about and also written into a `// lmsexport: {...}` comment line, which Moodle
  ignores and lmsexport.readers.gift reads back, so our own round trip is lossless.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from fractions import Fraction

from ..errors import Diagnostic, GiftExportError, Severity
from ..model import Bank, Choice, Question, QuestionType, Quiz, SourceLoc, is_rtl
from ..moodle import (  # noqa: F401 - re-exported: the GIFT reader and tests use them from here
    GRADE_TOLERANCE,
    MOODLE_GRADES,
    NAME_CHARS,
    format_number,
    format_percent,
    lang_span,
    multi_answer_weights,
    name_from_stem,
    nearest_grade,
    text_to_html,
)
from . import Output, WriteContext

WEIGHT_RE = re.compile(r"^%-*([0-9]{1,2})\.?([0-9]*)%")
"""format.php's $giftanswerweightregex: what Moodle takes for a weight at the start of an answer."""

FORMAT_TAGS = ("[html]", "[moodle]", "[plain]", "[markdown]")
"""Leading tags Moodle strips from a text and takes as its format."""

_GIFT_ESCAPES = (
    ("\\", "\\\\"), ("~", "\\~"), ("=", "\\="), ("#", "\\#"), ("{", "\\{"), ("}", "\\}"), (":", "\\:"),
    ("\n", "\\n"),
)  # fmt: skip
"""GIFT's escapes, backslash first so that no escape is escaped again."""
_MOODLE_PLACEHOLDER = re.compile(r"&&(?:058;|035;|061;|123;|125;|126;|092;|010)")
_FORBIDDEN_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CATEGORY_SPECIALS = re.compile(r"[~=#{}:\\]")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_TAG_UNSAFE = re.compile(r"[\]<>`\x00-\x1f\x7f]")


def _escape_gift(text: str) -> str:
    """GIFT escaping as Moodle's own exporter (repchar) does it, newlines as `\\n`."""
    # str.replace per special (backslash first) rather than str.translate: translate looks
    # every character up in a dict and is ~25x slower on Urdu text, the hot spot of a build.
    for char, escaped in _GIFT_ESCAPES:
        if char in text:
            text = text.replace(char, escaped)
    return text


def escape_text(text: str, lang: str | None = None) -> str:
    """Plain source text -> the GIFT of an `[html]` text that Moodle shows exactly as `text`.

    The one place rich texts are escaped (the inverse is lmsexport.readers.gift.unescape_text).
    With `lang`, the text is wrapped in `<span lang=".." dir="..">` so that Moodle's page,
    whatever its own direction, lays Urdu out right to left (and English inside an Urdu quiz
    left to right); Moodle's HTML purifier keeps both attributes.
    """
    out = text_to_html(text)
    # GIFT-only: a leading `[` is a format tag and a leading `%` a weight to Moodle.
    if text[:1] in ("[", "%"):
        out = f"&#{ord(text[0])};" + out[1:]
    if lang is not None:
        out = lang_span(out, lang)
    return _escape_gift(out)


def escape_plain(text: str) -> str:
    """A text Moodle stores unformatted (short answer, matching item, name): GIFT escaping only."""
    return _escape_gift(text)


def format_weight(fraction: Fraction) -> str:
    """`%w%` as Moodle prints a grade: percent to 5 decimals, trailing zeros dropped."""
    return f"%{format_percent(fraction)}%"


def _meta_comment(prefix: str, data: dict[str, object]) -> str:
    """A `// prefix {json}` line; `[` is \\u-escaped so Moodle finds no [id:]/[tag:] in it."""
    encoded = json.dumps(data, ensure_ascii=False, sort_keys=True)
    encoded = _JSON_STRING.sub(lambda m: m.group(0).replace("[", "\\u005b"), encoded)
    return f"// {prefix} {encoded}"


class _QuestionWriter:
    """Writes one question, collecting diagnostics instead of stopping at the first."""

    def __init__(self, quiz: Quiz, question: Question) -> None:
        self.quiz = quiz
        self.q = question
        self.loc = question.loc or SourceLoc(quiz.id)
        self.diagnostics: list[Diagnostic] = []
        self.meta: dict[str, object] = {}

    def _report(self, severity: Severity, rule: str, message: str, hint: str | None = None) -> None:
        self.diagnostics.append(
            Diagnostic(self.loc, f"question '{self.q.id}': {message}", severity, rule, hint)
        )

    def error(self, rule: str, message: str, hint: str | None = None) -> None:
        self._report(Severity.ERROR, rule, message, hint)

    def warn(self, rule: str, message: str, hint: str | None = None) -> None:
        self._report(Severity.WARNING, rule, message, hint)

    def rich(self, text: str, what: str, lang: str | None = None) -> str:
        """A formatted text in `lang` (default: the question's), marked up when it needs to be:
        right-to-left text, or text in another language than the quiz."""
        self._check_chars(text, what)
        lang = lang or self.quiz.lang_of(self.q)
        marked = is_rtl(lang) or lang != self.quiz.lang
        return escape_text(text, lang if marked else None)

    def plain(self, text: str, what: str) -> str:
        self._check_chars(text, what)
        if _MOODLE_PLACEHOLDER.search(text):
            self.error(
                "gift.placeholder-in-text",
                f"{what} contains {_MOODLE_PLACEHOLDER.search(text).group(0)!r}, which Moodle's importer "  # type: ignore[union-attr]
                "turns into another character",
            )
        return escape_plain(text)

    def _check_chars(self, text: str, what: str) -> None:
        bad = _FORBIDDEN_CONTROL.search(text)
        if bad:
            self.error(
                "gift.control-character", f"{what} contains control character U+{ord(bad.group(0)):04X}"
            )

    # -- the parts of a question -------------------------------------------------------

    def write(self) -> str:
        body = self._answer_block()
        lines = [self._comment_line()]
        self._common_warnings()
        if self.meta:
            lines.append(_meta_comment("lmsexport:", self.meta))
        head = (
            f"::{self.plain(question_name(self.q), 'the name')}::[html]{self.rich(self.q.stem, 'the stem')}"
        )
        lines.append(head + body)
        return "\n".join(lines)

    def _comment_line(self) -> str:
        bits = [f"[id:{self.q.id.replace(']', chr(92) + ']')}]"]
        for tag in self.q.tags:
            if _TAG_UNSAFE.search(tag) or tag != tag.strip() or not tag:
                self.warn("gift.tag-dropped", f"tag {tag!r} cannot be written in a GIFT [tag:] comment")
                self.meta.setdefault("tags", list(self.q.tags))
            else:
                bits.append(f"[tag:{tag}]")
        return "// " + " ".join(bits)

    def _common_warnings(self) -> None:
        q = self.q
        if q.points != 1:
            self.meta["points"] = q.points
            self.warn(
                "gift.points-not-carried",
                f"is worth {q.points:g} points, but GIFT has no marks: Moodle gives it its default mark 1",
                "set the mark in Moodle's question bank or quiz after importing",
            )

    def _general_feedback(self) -> list[str]:
        if self.q.explanation is None:
            return []
        return [f"\t####{self.rich(self.q.explanation, 'the explanation')}"]

    def _answer_block(self) -> str:
        t = self.q.type
        if t is QuestionType.ESSAY:
            gf = self._general_feedback()
            return "{" + (gf[0].strip() if gf else "") + "}"
        if t is QuestionType.TRUE_FALSE:
            gf = self._general_feedback()
            return "{" + ("TRUE" if self.q.truth else "FALSE") + (gf[0].strip() if gf else "") + "}"
        lines = {
            QuestionType.SINGLE: self._single,
            QuestionType.MULTIPLE: self._multiple,
            QuestionType.SHORT_ANSWER: self._short_answer,
            QuestionType.NUMERICAL: self._numerical,
            QuestionType.MATCHING: self._matching,
        }[t]()
        opener = "{#" if t is QuestionType.NUMERICAL else "{"
        return "\n".join([opener, *lines, *self._general_feedback(), "}"])

    def _choice(self, marker: str, choice: Choice, n: int) -> str:
        text = marker + self.rich(choice.text, f"choice {n}", choice.lang)
        if choice.feedback:
            text += "#" + self.rich(choice.feedback, f"the feedback of choice {n}")
        return "\t" + text

    def _check_choice_count(self) -> None:
        if len(self.q.choices) < 2:
            self.error(
                "gift.too-few-choices",
                f"has {len(self.q.choices)} choice(s); Moodle's importer needs at least 2",
            )

    def _single(self) -> list[str]:
        self._check_choice_count()
        return [self._choice("=" if c.correct else "~", c, n) for n, c in enumerate(self.q.choices, 1)]

    def _multiple(self) -> list[str]:
        self._check_choice_count()
        n_correct = sum(c.correct for c in self.q.choices)
        n_wrong = len(self.q.choices) - n_correct
        if n_correct == 0:
            self.error("gift.no-correct-choice", "has no correct choice")
            return []
        right, wrong, exact = multi_answer_weights(n_correct, n_wrong)
        if not exact:
            self.warn(
                "gift.inexact-weights",
                f"{n_correct} correct / {n_wrong} wrong choices cannot be weighted exactly with Moodle's "
                f"grades; wrote {format_weight(right)} and {format_weight(wrong)}",
            )
        # %100% is refused by the importer; 99.99999% is within its tolerance of 100%.
        right_text = "%99.99999%" if right == 1 else format_weight(right)
        return [
            self._choice("~" + (right_text if c.correct else format_weight(wrong)), c, n)
            for n, c in enumerate(self.q.choices, 1)
        ]

    def _short_answer(self) -> list[str]:
        q = self.q
        if not q.answers:
            self.error("gift.no-answer", "has no accepted answer")
        if q.case_sensitive:
            self.meta["case_sensitive"] = True
            self.warn(
                "gift.case-sensitive-not-carried",
                "is case sensitive, but GIFT cannot say so: Moodle imports it case-insensitive",
                "tick 'Case sensitivity' on the question in Moodle after importing",
            )
        return [f"\t={self._short_answer_text(a, n)}" for n, a in enumerate(q.answers, 1)]

    def _short_answer_text(self, answer: str, n: int) -> str:
        what = f"accepted answer {n} {answer!r}"
        if WEIGHT_RE.match(answer):
            self.error("gift.unescapable", f"{what} starts with a weight-like '%N%' that GIFT cannot escape")
        if answer.lower().startswith(FORMAT_TAGS):
            self.error("gift.unescapable", f"{what} starts with a format tag that Moodle would strip")
        if "->" in answer:
            self.error(
                "gift.unescapable", f"{what} contains '->', which makes it a matching question to Moodle"
            )
        if "\\*" in answer:
            self.error(
                "gift.unescapable",
                f"{what} contains '\\*', which Moodle reads as a literal '*'",
            )
        # Moodle's short-answer grading takes * as a wildcard; \* is a literal asterisk.
        return self.plain(answer.replace("*", "\\*"), what)

    def _numerical(self) -> list[str]:
        key = self.q.numeric
        if key is None:
            self.error("gift.no-answer", "has no numeric key; Moodle fails on an empty '{#}'")
            return []
        values = [v for v in (key.answer, key.tolerance, key.low, key.high) if v is not None]
        if any(v != v or v in (float("inf"), float("-inf")) for v in values):
            self.error("gift.not-a-number", "has a numeric key that is not a finite number")
            return []
        if key.low is not None and key.high is not None:
            if key.answer is not None:
                self.meta["answer"] = key.answer
            return [f"\t={format_number(key.low)}..{format_number(key.high)}"]
        assert key.answer is not None
        if key.tolerance:
            return [f"\t={format_number(key.answer)}:{format_number(key.tolerance)}"]
        return [f"\t={format_number(key.answer)}"]

    def _matching(self) -> list[str]:
        q = self.q
        if len(q.pairs) < 2:
            self.error(
                "gift.too-few-pairs",
                f"has {len(q.pairs)} pair(s); Moodle's importer fails on fewer than 2",
            )
        if q.distractors:
            self.meta["distractors"] = list(q.distractors)
            self.warn(
                "gift.distractors-not-carried",
                f"has {len(q.distractors)} distractor(s), which GIFT cannot express (Moodle drops them)",
                "add the extra answers in Moodle after importing, or export Moodle XML/QTI instead",
            )
        lines = []
        for n, pair in enumerate(q.pairs, 1):
            left = self.rich(pair.left, f"the left item of pair {n}")
            lines.append(f"\t={left} -> {self.plain(pair.right, f'the right item of pair {n}')}")
        return lines


def _break_placeholders(text: str) -> str:
    # A label only: Moodle's escape placeholders (&&058; ...) cannot be written in it, so break them.
    while "&&" in text:
        text = text.replace("&&", "& &")
    return text


def question_name(question: Question) -> str:
    """The `::name::` Moodle lists in its question bank: the stem's start, on one line.

    The id travels separately as the question's ID number (`// [id:...]`), so the name is
    free to be what an instructor recognises: the question itself.
    """
    return name_from_stem(question, _break_placeholders)


def category_path(quiz: Quiz) -> tuple[str, bool]:
    """The `$CATEGORY:` path of a quiz and whether GIFT specials had to be replaced.

    Moodle does not unescape `$CATEGORY:` lines, so specials are replaced by `-`. A model
    category is already a `/`-separated path; a title is one name, so its `/` is doubled.
    """
    if quiz.category:
        names = [n.strip() for n in quiz.category.split("/")]
    else:
        names = [quiz.title.strip().replace("/", "//")]
    names = [" ".join(n.split()) for n in names]  # a newline would end the category line
    cleaned = [_CATEGORY_SPECIALS.sub("-", n) for n in names]
    return "/".join(cleaned), cleaned != names


def _quiz_header(quiz: Quiz, diagnostics: list[Diagnostic]) -> str:
    path, sanitized = category_path(quiz)
    qloc = quiz.loc or SourceLoc(quiz.id)
    if sanitized:
        diagnostics.append(
            Diagnostic(
                qloc,
                f"quiz {quiz.id!r}: category {quiz.category or quiz.title!r} has GIFT special characters, "
                f"written as {path!r}",
                Severity.WARNING,
                "gift.category-sanitized",
            )
        )
    if not quiz.shuffle:
        diagnostics.append(
            Diagnostic(
                qloc,
                f"quiz {quiz.id!r} asks not to shuffle choices; GIFT cannot say so",
                Severity.WARNING,
                "gift.shuffle-not-carried",
            )
        )
    meta: dict[str, object] = {"id": quiz.id, "title": quiz.title, "lang": quiz.lang}
    if quiz.description is not None:
        meta["description"] = quiz.description
    if quiz.difficulty is not None:
        meta["difficulty"] = quiz.difficulty.value
    if quiz.category is not None:
        meta["category"] = quiz.category
    if not quiz.shuffle:
        meta["shuffle"] = False
    return "\n".join(
        [
            f"// {quiz.id}: GIFT for Moodle, written by lmsexport. Import with 'Get category from file'.",
            _meta_comment("lmsexport-quiz:", meta),
            f"$CATEGORY: {path}",
        ]
    )


def write_quiz(quiz: Quiz) -> tuple[str, list[Diagnostic]]:
    """One quiz as GIFT text, plus every diagnostic (errors and warnings) found on the way."""
    diagnostics: list[Diagnostic] = []
    blocks = [_quiz_header(quiz, diagnostics)]
    for question in quiz.questions:
        qw = _QuestionWriter(quiz, question)
        blocks.append(qw.write())
        diagnostics.extend(qw.diagnostics)
    return "\n\n".join(blocks) + "\n", diagnostics


def _errors(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]


def write(bank: Bank, ctx: WriteContext) -> Output:
    """The GIFT writer: raises GiftExportError with every error of the bank, else returns files."""
    out = Output()
    errors: list[Diagnostic] = []
    for quiz in bank.quizzes:
        text, diagnostics = write_quiz(quiz)
        errors.extend(_errors(diagnostics))
        out.warnings.extend(d for d in diagnostics if d.severity is Severity.WARNING)
        out.files[f"gift/{quiz.id}.gift.txt"] = text.encode("utf-8")
    if errors:
        raise GiftExportError(errors)
    return out
