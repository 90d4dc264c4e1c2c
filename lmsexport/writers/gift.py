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
* Rich texts (`markup: markdown`) are HTML blocks from the shared renderer
  (writers/richtext.py), GIFT-escaped by the same `_escape_gift` (`\\n` inside `<pre>`), so
  a rich text always starts with a block element (`<p>`, `<pre>`, `<ul>`, `<ol>`, `<table>`)
  and a plain one never does: that is how the reader tells them apart. Its language marker is
  a `<div lang=".." dir="..">` around the blocks. Formulas are TeX between `\\(..\\)` or
  `\\[..\\]`, which Moodle's MathJax filter typesets; code is `<code class="ltr" dir="ltr">`
  so it stays left to right inside Urdu. Images are `data:` URIs in the `<img src>` (see
  `data_uri` for why Moodle shows them, and where it does not: each is warned about).
* An assessment has no GIFT form: its file puts each draw's questions in a category of their
  own (`$course$/<assessment id>/<n>. <section>/<draw>`) and explains at the top, in a comment
  in the assessment's language, how to build the quiz in Moodle from those categories.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from fractions import Fraction
from typing import assert_never

from lxml import etree

from ..errors import Diagnostic, GiftExportError, Severity
from ..media import data_uri as media_data_uri
from ..model import (
    Assessment,
    Bank,
    Candidate,
    Choice,
    Draw,
    Essay,
    Matching,
    Math,
    Media,
    MultipleChoice,
    Numerical,
    Question,
    Quiz,
    Rich,
    Section,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Text,
    TrueFalse,
    direction,
    inlines_of,
    is_rtl,
    media_of,
    plain_text,
)
from ..moodle import (  # noqa: F401 - re-exported: the GIFT reader and tests use them from here
    GRADE_TOLERANCE,
    MOODLE_GRADES,
    NAME_CHARS,
    draw_category_names,
    format_marks,
    format_number,
    format_percent,
    lang_span,
    multi_answer_weights,
    name_from_stem,
    nearest_grade,
    rebuild_instructions,
    text_to_html,
)
from . import Output, WriteContext
from .richtext import Flavour, Renderer, to_html

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


def data_uri(media: Media) -> str:
    """An image as the `src` of an `<img>` in GIFT, which cannot carry files.

    Moodle shows it: the GIFT importer stores the text as written (question/format/gift/
    format.php readquestion(); question/format.php importprocess() inserts the question text
    and saves files only from questiontextitemid/questiontextfiles, which GIFT never sets), and
    question texts are displayed with format_text(..., noclean) (question/type/questionbase.php
    question_definition::format_text(): `$formatoptions->noclean = !$clean`, $clean false for
    question parts), so HTMLPurifier never sees them. The one exception is a site with
    "Content cleaning everywhere" ($CFG->forceclean, lib/classes/formatting.php
    format_text()): purify_html() (lib/weblib.php) allows no `data` scheme in
    URI.AllowedSchemes, so the src is dropped and HTMLPurifier removes the image
    (lib/htmlpurifier/HTMLPurifier/AttrTransform/ImgRequired.php, Core.RemoveInvalidImg);
    even with `data` allowed, HTMLPurifier_URIScheme_data takes only PNG, JPEG and GIF.
    """
    return media_data_uri(media)


def _tex(math: Math) -> str:
    # Moodle's MathJax filter (filter_mathjaxloader) typesets \(..\) and \[..\].
    return f"\\[{math.tex}\\]" if math.display else f"\\({math.tex}\\)"


FLAVOUR = Flavour(math=_tex, image_src=lambda image: data_uri(image.media))
"""How GIFT's `[html]` writes what differs between formats: TeX for MathJax, data: images."""


def escape_rich(rich: Rich, lang: str | None = None) -> str:
    """A rich text -> the GIFT of an `[html]` text (the inverse is lmsexport.readers.gift's
    rich-text reading). With `lang`, the blocks are wrapped in `<div lang=".." dir="..">`, as
    `escape_text` wraps a plain text in a span. Raises ValueError for text lxml refuses
    (control characters), which the writer reports as an error."""
    if lang is None:
        out, _ = to_html(rich, FLAVOUR)
    else:
        holder = etree.Element("div", {"lang": lang, "dir": direction(lang)})
        Renderer(FLAVOUR).blocks(rich, holder)
        out = etree.tostring(holder, encoding="unicode", method="html")
    return _escape_gift(out)


MATH_DELIMITERS = ("\\(", "\\[", "$$")
"""What Moodle's MathJax filter starts a formula at, wherever it occurs in displayed text."""


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

    def rich(self, text: Text, what: str, lang: str | None = None) -> str:
        """A formatted text in `lang` (default: the question's), marked up when it needs to be:
        right-to-left text, or text in another language than the quiz."""
        lang = lang or self.quiz.lang_of(self.q)
        marked = lang if is_rtl(lang) or lang != self.quiz.lang else None
        if isinstance(text, str):
            self._check_chars(text, what)
            if "\\" in text or "$$" in text:  # rare: the check is not paid on every text
                self._check_math_delimiters(text, what)
            return escape_text(text, marked)
        self._check_math_delimiters(text, what)
        self._check_chars(plain_text(text), what)
        for media in media_of(text):
            self._warn_image(media, what)
        try:
            return escape_rich(text, marked)
        except ValueError as e:  # lxml refuses what XML cannot hold; the loader does too
            self.error("gift.control-character", f"{what} cannot be written as HTML: {e}")
            return ""

    def _warn_image(self, media: Media, what: str) -> None:
        """An image travels as a data: URI, which Moodle shows unless the site cleans all HTML
        (see data_uri): never silently."""
        self.warn(
            "gift.image-as-data-uri",
            f"{what} shows the image '{media.name}' as a data: URI (GIFT has no files): Moodle shows "
            "it, except on a site with 'Content cleaning everywhere' (forceclean), which removes it",
            "import Moodle XML instead, which carries images as files",
        )

    def _check_math_delimiters(self, text: Text, what: str) -> None:
        """Moodle's MathJax filter typesets `\\(..\\)`, `\\[..\\]` and `$$..$$` wherever
        they are in an [html] text, so text that holds them is not shown as written."""
        texts = [text] if isinstance(text, str) else [x.text for x in inlines_of(text) if isinstance(x, Str)]
        found = sorted({d for t in texts for d in MATH_DELIMITERS if d in t})
        if found:
            self.warn(
                "gift.math-delimiter-in-text",
                f"{what} contains {' and '.join(repr(d) for d in found)} as text, which Moodle's MathJax "
                "filter may typeset as a formula",
                "write it as code (in backticks), which MathJax leaves alone",
            )

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
        if q.difficulty is not None:
            self.meta["difficulty"] = q.difficulty.value
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
        body = self.q.body
        opener = "{"
        match body:
            case Essay():
                gf = self._general_feedback()
                return "{" + (gf[0].strip() if gf else "") + "}"
            case TrueFalse(truth=truth):
                gf = self._general_feedback()
                return "{" + ("TRUE" if truth else "FALSE") + (gf[0].strip() if gf else "") + "}"
            case SingleChoice():
                lines = self._single(body)
            case MultipleChoice():
                lines = self._multiple(body)
            case ShortAnswer():
                lines = self._short_answer(body)
            case Numerical():
                lines = self._numerical(body)
                opener = "{#"
            case Matching():
                lines = self._matching(body)
            case _:
                assert_never(body)
        return "\n".join([opener, *lines, *self._general_feedback(), "}"])

    def _choice(self, marker: str, choice: Choice, n: int) -> str:
        text = marker + self.rich(choice.text, f"choice {n}", choice.lang)
        if choice.feedback:
            text += "#" + self.rich(choice.feedback, f"the feedback of choice {n}")
        return "\t" + text

    def _check_choice_count(self, choices: tuple[Choice, ...]) -> None:
        if len(choices) < 2:
            self.error(
                "gift.too-few-choices",
                f"has {len(choices)} choice(s); Moodle's importer needs at least 2",
            )

    def _single(self, body: SingleChoice) -> list[str]:
        self._check_choice_count(body.choices)
        return [self._choice("=" if c.full else "~", c, n) for n, c in enumerate(body.choices, 1)]

    def _multiple(self, body: MultipleChoice) -> list[str]:
        self._check_choice_count(body.choices)
        n_correct = len(body.key_indexes)
        n_wrong = len(body.choices) - n_correct
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
            self._choice("~" + (right_text if c.earns else format_weight(wrong)), c, n)
            for n, c in enumerate(body.choices, 1)
        ]

    def _short_answer(self, body: ShortAnswer) -> list[str]:
        answers = body.accepted
        if not answers:
            self.error("gift.no-answer", "has no accepted answer")
        if body.case_sensitive:
            self.meta["case_sensitive"] = True
            self.warn(
                "gift.case-sensitive-not-carried",
                "is case sensitive, but GIFT cannot say so: Moodle imports it case-insensitive",
                "tick 'Case sensitivity' on the question in Moodle after importing",
            )
        return [f"\t={self._short_answer_text(a, n)}" for n, a in enumerate(answers, 1)]

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

    def _numerical(self, body: Numerical) -> list[str]:
        if not body.keys:
            self.error("gift.no-answer", "has no numeric key; Moodle fails on an empty '{#}'")
            return []
        key = body.key
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

    def _matching(self, body: Matching) -> list[str]:
        if len(body.pairs) < 2:
            self.error(
                "gift.too-few-pairs",
                f"has {len(body.pairs)} pair(s); Moodle's importer fails on fewer than 2",
            )
        if body.distractors:
            self.meta["distractors"] = list(body.distractors)
            self.warn(
                "gift.distractors-not-carried",
                f"has {len(body.distractors)} distractor(s), which GIFT cannot express (Moodle drops them)",
                "add the extra answers in Moodle after importing, or export Moodle XML/QTI instead",
            )
        lines = []
        for n, pair in enumerate(body.pairs, 1):
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


def _describe(meta: dict[str, object], description: Text | None) -> None:
    """A description in metadata: plain as `description`, rich as the HTML of `description_html`
    (a comment line is not unescaped by Moodle, so it is not GIFT-escaped)."""
    if isinstance(description, str):
        meta["description"] = description
    elif description is not None:
        meta["description_html"] = to_html(description, FLAVOUR)[0]


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
    _describe(meta, quiz.description)
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


# --------------------------------------------------------------------------- assessments

ASSESSMENT_CONTEXT = "$course$"
"""The context an assessment's categories are created in when the importer ticks "Get context
from file" (question/format.php create_category_path(): a first name `$[a-z]+$` is a context,
removed from the path either way; a context the importer cannot find falls back to the one
chosen on the import page, so the prefix is safe wherever course banks do not exist). In the
course's question bank, every quiz of the course can draw random questions from them."""


def as_in_assessment(assessment: Assessment, candidate: Candidate) -> Question:
    """A question as an assessment's GIFT file holds it, and as it reads back from there.

    The file has no home quizzes, so each question stands in the assessment's context: its
    `lang` is set only when it differs from the assessment's, and its `difficulty` is the one
    it has in its home quiz (its own, else the quiz's). Everything else is the bank's question.
    """
    home, q = candidate.quiz, candidate.question
    lang = home.lang_of(q)
    return replace(q, lang=lang if lang != assessment.lang else None, difficulty=home.difficulty_of(q))


def _category_name(name: str) -> str:
    """One name of a `$CATEGORY:` path, as Moodle's assemble_category_path() (question/format.php)
    writes it: a `/` doubled, a space before a leading or after a trailing one. Moodle does not
    unescape category lines, so GIFT specials are replaced, and so are `<` and `>`, which
    clean_param(PARAM_TEXT) in split_category_path() would take for tags."""
    name = _CATEGORY_SPECIALS.sub("-", " ".join(name.split())).replace("<", "-").replace(">", "-")
    name = name.replace("/", "//")
    if name.startswith("/"):
        name = " " + name
    if name.endswith("/"):
        name += " "
    return name


def draw_category(assessment: Assessment, n: int, section: Section, draw: Draw) -> str:
    """The `$CATEGORY:` path of the questions of one draw of section `n` (1-based): the names
    Moodle XML uses too (moodle.draw_category_names), so both files fill the same categories."""
    names = draw_category_names(assessment, n, section, draw)
    return "/".join((ASSESSMENT_CONTEXT, *(_category_name(x) for x in names)))


def _shown_path(category: str) -> str:
    """A category path as Moodle lists it (no context, one `/` between names)."""
    return category.removeprefix(ASSESSMENT_CONTEXT + "/")


def _instructions(assessment: Assessment, categories: dict[tuple[int, int], str]) -> list[str]:
    """The comment an instructor reads first: how to build the quiz in Moodle from the categories
    (moodle.rebuild_instructions, the wording Moodle XML uses too), every line a comment."""
    paths = {key: _shown_path(category) for key, category in categories.items()}
    rule = "// " + "=" * 76
    return [rule, *(f"// {line}".rstrip() for line in rebuild_instructions(assessment, paths, "gift")), rule]


def write_assessment(assessment: Assessment) -> tuple[str, list[Diagnostic]]:
    """One assessment as GIFT text: its questions, one category per draw, under instructions to
    build the quiz in Moodle; plus every diagnostic found on the way.

    The questions' own warnings are left to their quizzes' files (the same questions, the same
    losses); their errors are kept, so no broken file is ever written.
    """
    diagnostics: list[Diagnostic] = []
    where = assessment.loc or SourceLoc(assessment.id)
    context = Quiz(id=assessment.id, title=assessment.title, lang=assessment.lang, questions=())
    categories: dict[tuple[int, int], str] = {}
    sections: list[dict[str, object]] = []
    body: list[str] = []
    for n, section in enumerate(assessment.sections, 1):
        draws: list[dict[str, object]] = []
        for k, draw in enumerate(section.draws, 1):
            category = draw_category(assessment, n, section, draw)
            categories[n, k] = category
            draws.append(
                {
                    "name": draw.name,
                    "category": category,
                    "random": draw.is_random,
                    "pick": draw.pick,
                    "points": draw.points,
                }
            )
            body.append(f"$CATEGORY: {category}")
            for candidate in draw.candidates:
                qw = _QuestionWriter(context, as_in_assessment(assessment, candidate))
                body.append(qw.write())
                diagnostics.extend(_errors(qw.diagnostics))
            marks = {draw.points_of(c.question) for c in draw.candidates}
            if marks != {1.0}:
                diagnostics.append(
                    Diagnostic(
                        draw.loc or where,
                        f"assessment '{assessment.id}': draw '{draw.name}' gives its questions "
                        f"{'/'.join(format_marks(m) for m in sorted(marks))} points, but GIFT has no marks: "
                        "Moodle gives each question its default mark 1",
                        # A note: Moodle builds no quiz from GIFT, the instructor does, from the
                        # file's instructions, which list these marks.
                        Severity.NOTE,
                        "gift.points-not-carried",
                        "set the marks in the quiz as the comment at the top of the file lists them",
                    )
                )
        sections.append({"title": section.title, "shuffle": section.shuffle, "draws": draws})
    diagnostics.insert(
        0,
        Diagnostic(
            where,
            f"assessment '{assessment.id}': GIFT has no quizzes: the file holds its questions, one "
            "category per draw, and instructions to build the quiz from them in Moodle",
            Severity.NOTE,
            "gift.assessment-not-carried",
            f"after importing, follow the comment at the top of gift/{assessment.id}.gift.txt",
        ),
    )
    meta: dict[str, object] = {"id": assessment.id, "title": assessment.title, "lang": assessment.lang}
    _describe(meta, assessment.description)
    meta["sections"] = sections
    head = [
        f"// {assessment.id}: GIFT for Moodle, written by lmsexport. Import with 'Get category from file'.",
        *_instructions(assessment, categories),
        _meta_comment("lmsexport-assessment:", meta),
    ]
    return "\n\n".join(["\n".join(head), *body]) + "\n", diagnostics


def _errors(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]


def _size_warning(path: str, data: bytes, loc: SourceLoc) -> list[Diagnostic]:
    """Images make a GIFT file large (base64 adds a third): warn past what lmsexport's own
    reader takes, since `lmsexport check` could then not read the file back."""
    from ..readers.gift import MAX_GIFT_BYTES

    if len(data) <= MAX_GIFT_BYTES:
        return []
    return [
        Diagnostic(
            loc,
            f"{path} is {len(data):,} bytes, over the {MAX_GIFT_BYTES:,} bytes lmsexport reads back as GIFT "
            "(its images are in it as data: URIs); Moodle's upload limit may refuse it too",
            Severity.WARNING,
            "gift.file-too-large",
            "split the quiz, use smaller images, or import Moodle XML or QTI, which carry images as files",
        )
    ]


def write(bank: Bank, ctx: WriteContext) -> Output:
    """The GIFT writer: raises GiftExportError with every error of the bank, else returns files."""
    out = Output()
    errors: list[Diagnostic] = []

    def add(path: str, written: tuple[str, list[Diagnostic]], loc: SourceLoc | None) -> None:
        data = written[0].encode("utf-8")
        errors.extend(_errors(written[1]))
        out.warnings.extend(d for d in written[1] if d.severity is not Severity.ERROR)  # and notes
        out.warnings.extend(_size_warning(path, data, loc or SourceLoc(path)))
        out.files[path] = data

    for quiz in bank.quizzes:
        add(f"gift/{quiz.id}.gift.txt", write_quiz(quiz), quiz.loc)
    for assessment in bank.assessments:
        add(f"gift/{assessment.id}.gift.txt", write_assessment(assessment), assessment.loc)
    if errors:
        raise GiftExportError(errors)
    return out
