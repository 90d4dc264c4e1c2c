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
* Credits are weights, percentages from Moodle's list of allowed grades (question_bank::
  fraction_options_full), written to 5 decimals as Moodle prints them, so the importer's
  0.00001 tolerance matches them (`%33.33333%`): `~%50%` and `~%-50%` on a single choice
  (full credit is `=`), each choice's own weight on a multiple choice, `=%50%` on a short
  answer or numerical key (full credit has no weight: readquestion() makes it 100%). Moodle's
  weight regex reads `%100%` but the importer notes say it is refused, so a full-credit choice
  of a multi-answer question is written `%99.99999%`, which matches 100% within that tolerance
  (an `=` would make the question single-answer).
* Feedback: `#` after a choice, a short answer or a numerical key; a short answer's or a
  numerical question's feedback for any other answer as Moodle's `=%0%*#...` / `~#...`;
  true/false as `{TRUE#feedback-for-the-wrong-answer#feedback-for-the-right-answer}`
  (split_truefalse_comment()). A matching distractor is a pair with an empty left side,
  `= -> right`, which qtype_match saves as a choice that matches nothing. The question's
  name is `::name::` (derived from the stem when it has none).
* Languages travel as HTML: a formatted text in a right-to-left language, or in another
  language than the quiz, is wrapped in `<span lang=".." dir="rtl|ltr">`, so Urdu reads
  right to left on any Moodle page and the reader recovers each question's language.
* What GIFT cannot hold (points, case sensitivity, combined feedback, hints, the penalty,
  units, essay options) is warned about, once per question and element, and also written
  into a `// lmsexport: {...}` comment line, which Moodle ignores and lmsexport.readers.gift
  reads back, so our own round trip is lossless.
* Rich texts (`markup: markdown`) are HTML blocks from the shared renderer
  (writers/richtext.py), GIFT-escaped by the same `_escape_gift` (`\\n` inside `<pre>`), so
  a rich text always starts with a block element (`<p>`, `<pre>`, `<ul>`, `<ol>`, `<table>`)
  and a plain one never does: that is how the reader tells them apart. Its language marker is
  a `<div lang=".." dir="..">` around the blocks. Formulas are TeX between `\\(..\\)` or
  `\\[..\\]`, which Moodle's MathJax filter typesets; code is `<code class="ltr" dir="ltr">`
  so it stays left to right inside Urdu. Images are `data:` URIs in the `<img src>` (see
  `data_uri` for why Moodle shows them, and where it does not: each is warned about).
* Issue 23's kinds: a description is a question with no answer block (readquestion()'s
  description, defaultmark 0; its explanation cannot be written: there is no `####`); an
  ordering is qtype_ordering's own form (core since Moodle 4.4), `{>count SELECT LAYOUT GRADING
  SHOW NUMBERING` and the items one a line, as HTML escaped for import_from_gift(), which never
  unescapes them (lmsexport.gift.escape_ordering_item; LONGEST_ORDERED_SUBSET, which its pattern
  misspells, is written as LONGEST_CONTIGUOUS_SUBSET, named); a cloze of one blank is GIFT's
  missing-word form, the answer block where the gap is and text after it (readquestion() shows
  `_____` there), the blank's answers as the question's, with its loss named; a cloze of
  several blanks has no GIFT form: left out of the file and named (`carried`).
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
from ..gift import (  # noqa: F401 - FORMAT_TAGS, WEIGHT_RE, format_weight re-exported for tests
    ASSESSMENT_META,
    FORMAT_TAGS,
    GENERAL_FEEDBACK,
    GIFT_ESCAPES,
    MAX_GIFT_BYTES,
    MOODLE_PLACEHOLDER,
    ORDERING_WORDS,
    OTHER_ANSWER,
    QUESTION_META,
    QUIZ_META,
    WEIGHT_RE,
    derived_name,
    escape_ordering_item,
    format_weight,
    literal_answer,
    missing_word_at,
)
from ..media import data_uri as media_data_uri
from ..model import (
    Answer,
    Assessment,
    Bank,
    Calculated,
    CalculatedChoice,
    Candidate,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    Draw,
    Essay,
    Gap,
    Layout,
    Matching,
    Math,
    Media,
    MultipleChoice,
    NumberBlank,
    Numerical,
    NumericKey,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    Question,
    Quiz,
    ResponseFormat,
    Rich,
    Section,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Text,
    TextBlank,
    TrueFalse,
    direction,
    evolve_question,
    inlines_of,
    is_full,
    is_rtl,
    media_of,
    plain_text,
)
from ..moodle import (  # noqa: F401 - GRADE_TOLERANCE, MOODLE_GRADES, NAME_CHARS: tests use them from here
    GRADE_TOLERANCE,
    MOODLE_GRADES,
    NAME_CHARS,
    allowed_grade,
    draw_category_names,
    format_marks,
    format_number,
    format_percent,
    lang_span,
    multi_answer_weights,
    nearest_grade,
    rebuild_instructions,
    text_to_html,
)
from ..variants import instantiate
from . import Output, WriteContext
from .richtext import Flavour, Renderer, append_text, to_html

_GIFT_ESCAPES = GIFT_ESCAPES
_MOODLE_PLACEHOLDER = MOODLE_PLACEHOLDER
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


def escape_rich(rich: Rich, lang: str | None = None, flavour: Flavour = FLAVOUR) -> str:
    """A rich text -> the GIFT of an `[html]` text (the inverse is lmsexport.readers.gift's
    rich-text reading). With `lang`, the blocks are wrapped in `<div lang=".." dir="..">`, as
    `escape_text` wraps a plain text in a span. Raises ValueError for text lxml refuses
    (control characters), which the writer reports as an error."""
    return _escape_gift(rich_html(rich, lang, flavour))


def rich_html(rich: Rich, lang: str | None = None, flavour: Flavour = FLAVOUR) -> str:
    """A rich text as the HTML of an `[html]` text, before GIFT escaping (escape_rich)."""
    if lang is None:
        return to_html(rich, flavour)[0]
    holder = etree.Element("div", {"lang": lang, "dir": direction(lang)})
    Renderer(flavour).blocks(rich, holder)
    return etree.tostring(holder, encoding="unicode", method="html")


MATH_DELIMITERS = ("\\(", "\\[", "$$")
"""What Moodle's MathJax filter starts a formula at, wherever it occurs in displayed text."""


def escape_plain(text: str) -> str:
    """A text Moodle stores unformatted (short answer, matching item, name): GIFT escaping only."""
    return _escape_gift(text)


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

    def _marked(self, lang: str | None) -> str | None:
        """The language a text in `lang` (default: the question's) is marked with, if any:
        right-to-left text, or text in another language than the quiz."""
        lang = lang or self.quiz.lang_of(self.q)
        return lang if is_rtl(lang) or lang != self.quiz.lang else None

    def rich(self, text: Text, what: str, lang: str | None = None, flavour: Flavour = FLAVOUR) -> str:
        """A formatted text in `lang` (default: the question's), marked up when it needs to be:
        right-to-left text, or text in another language than the quiz."""
        marked = self._marked(lang)
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
            return escape_rich(text, marked, flavour)
        except ValueError as e:  # lxml refuses what XML cannot hold; the loader does too
            self.error("gift.control-character", f"{what} cannot be written as HTML: {e}")
            return ""

    def item_html(self, text: Text, what: str) -> str:
        """An ordering's item as one line of its answer block: its HTML (marked up as rich()
        marks a text) with escape_ordering_item's escapes instead of GIFT's (qtype_ordering
        never unescapes its items)."""
        marked = self._marked(None)
        if isinstance(text, str):
            self._check_chars(text, what)
            self._check_math_delimiters(text, what)
            out = text_to_html(text)
            return escape_ordering_item(lang_span(out, marked) if marked is not None else out)
        self._check_math_delimiters(text, what)
        self._check_chars(plain_text(text), what)
        for media in media_of(text):
            self._warn_image(media, what)
        try:
            return escape_ordering_item(rich_html(text, marked))
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
            lines.append(_meta_comment(QUESTION_META, self.meta))
        name = self._name()
        if isinstance(self.q.body, Cloze):
            # The missing-word form: the answer block where the gap is, text after it.
            head = f"::{name}::[html]{self._stem_around(body)}"
        else:
            head = f"::{name}::[html]{self.rich(self.q.stem, 'the stem')}" + body
        lines.append(head)
        return "\n".join(lines)

    def _stem_around(self, block: str) -> str:
        """A cloze stem with the answer block in place of its gap (readquestion() replaces the
        block by `_____` when text follows it, as it always does: the gap is inside a block
        element, whose end tag follows)."""
        marker = "\ue000"
        if marker in plain_text(self.q.stem):
            self.error("gift.control-character", "the stem contains U+E000, which the writer reserves")
            return ""

        def gap(g: Gap, parent: etree._Element) -> None:
            append_text(parent, marker)

        stem = self.rich(self.q.stem, "the stem", flavour=replace(FLAVOUR, gap=gap))
        return stem.replace(marker, block)

    def _name(self) -> str:
        """`::name::`: the question's name, else the one derived from its stem."""
        name = self.q.name
        if name is None:
            return self.plain(derived_name(self.q), "the name")
        if "<" in name:
            # clean_question_name() runs clean_param(PARAM_TEXT), which strips what reads as a tag.
            self.warn(
                "gift.name-cleaned",
                f"its name {name!r} holds '<', and Moodle's importer strips what reads as an HTML tag from a "
                "question's name",
            )
        return self.plain(name, "the name")

    def _comment_line(self) -> str:
        bits = [f"[id:{self.q.id.replace(']', chr(92) + ']')}]"]
        for tag in self.q.tags:
            if _TAG_UNSAFE.search(tag) or tag != tag.strip() or not tag:
                self.warn("gift.tag-dropped", f"tag {tag!r} cannot be written in a GIFT [tag:] comment")
                self.meta.setdefault("tags", list(self.q.tags))
            else:
                bits.append(f"[tag:{tag}]")
        return "// " + " ".join(bits)

    def meta_text(self, text: Text, what: str) -> object:
        """A text as lmsexport's metadata holds it (Moodle never sees it): a plain one as it is,
        a rich one as its HTML (read back as the rich texts of `[html]` are)."""
        if isinstance(text, str):
            self._check_chars(text, what)
            return text
        try:
            return {"html": to_html(text, FLAVOUR)[0]}
        except ValueError as e:  # lxml refuses what XML cannot hold; the loader does too
            self.error("gift.control-character", f"{what} cannot be written as HTML: {e}")
            return ""

    def _common_warnings(self) -> None:
        q = self.q
        if q.difficulty is not None:
            self.meta["difficulty"] = q.difficulty.value
        if q.points != 1 and not isinstance(q.body, Description):
            # A description is worth nothing, as readquestion() makes it (defaultmark 0).
            self.meta["points"] = q.points
            self.warn(
                "gift.points-not-carried",
                f"is worth {q.points:g} points, but GIFT has no marks: Moodle gives it its default mark 1",
                "set the mark in Moodle's question bank or quiz after importing",
            )
        # What GIFT has no syntax for: kept in the metadata comment for lmsexport's own reader,
        # and named, since Moodle's importer never sees it (readquestion() gives choice and
        # matching questions blank combined feedback, and no question hints or a penalty but
        # its default, 1 for true/false).
        if q.feedback:
            fb = q.feedback
            feedback: dict[str, object] = {
                name: self.meta_text(text, f"the {name} feedback")
                for name, text in (
                    ("correct", fb.correct),
                    ("partial", fb.partial),
                    ("incorrect", fb.incorrect),
                )
                if text is not None
            }
            if fb.show_num_correct:
                feedback["show_num_correct"] = True
            self.meta["feedback"] = feedback
            self.warn(
                "gift.combined-feedback-not-carried",
                "has feedback for a right, partly right or wrong response, which GIFT cannot hold: Moodle "
                "imports it blank",
                "add it in Moodle after importing, or import Moodle XML, which carries it",
            )
        if q.hints:
            hints: list[dict[str, object]] = []
            for n, hint in enumerate(q.hints, 1):
                h: dict[str, object] = {"text": self.meta_text(hint.text, f"hint {n}")}
                if hint.show_num_correct:
                    h["show_num_correct"] = True
                if hint.clear_wrong:
                    h["clear_wrong"] = True
                hints.append(h)
            self.meta["hints"] = hints
            self.warn(
                "gift.hints-not-carried",
                f"has {len(q.hints)} hint(s), which GIFT cannot hold: Moodle imports none",
                "add them in Moodle after importing, or import Moodle XML, which carries them",
            )
        if q.penalty is not None:
            self.meta["penalty"] = q.penalty
            # readquestion() gives a true/false question penalty 1, any other defaultquestion()'s.
            default = 1.0 if isinstance(q.body, TrueFalse) else 0.3333333
            if abs(q.penalty - default) >= 1e-7:
                self.warn(
                    "gift.penalty-not-carried",
                    f"has a penalty of {q.penalty:g} for each wrong try, which GIFT cannot hold: Moodle "
                    f"gives it {'1' if default == 1 else '0.3333333'}",
                    "set the penalty in Moodle after importing, or import Moodle XML, which carries it",
                )

    def _general_feedback(self) -> list[str]:
        if self.q.explanation is None:
            return []
        return [f"\t{GENERAL_FEEDBACK}{self.rich(self.q.explanation, 'the explanation')}"]

    def _answer_block(self) -> str:
        body = self.q.body
        opener = "{"
        match body:
            case Essay():
                self._essay_options(body)
                gf = self._general_feedback()
                return "{" + (gf[0].strip() if gf else "") + "}"
            case TrueFalse():
                gf = self._general_feedback()
                return "{" + self._true_false(body) + (gf[0].strip() if gf else "") + "}"
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
            case Cloze():
                opener, lines = self._cloze(body)
            case Ordering():
                opener, lines = self._ordering(body)
            case Description():
                # readquestion(): a question without an answer block is a description.
                self._description()
                return ""
            case Calculated() | CalculatedChoice():
                # write_quiz writes each variant instead (variant_questions): GIFT has no formula.
                raise TypeError(f"{self.q.id}: a parametric question is written as its variants")
            case _:
                assert_never(body)
        return "\n".join([opener, *lines, *self._general_feedback(), "}"])

    def _description(self) -> None:
        """A description's explanation, which GIFT cannot hold: the general feedback is written
        after `####` in an answer block, and a description has none."""
        if self.q.explanation is None:
            return
        self.meta["explanation"] = self.meta_text(self.q.explanation, "the explanation")
        self.warn(
            "gift.explanation-not-carried",
            "is a description with an explanation, which GIFT cannot hold (a question without an "
            "answer block has no general feedback): Moodle imports it without one",
            "add it in Moodle after importing, or import Moodle XML, which carries it",
        )

    def _cloze(self, body: Cloze) -> tuple[str, list[str]]:
        """A cloze of one blank in GIFT's missing-word form (write_quiz leaves out any other):
        the blank's answers as the question's, `{...}` where the gap is. Moodle imports the
        question of the blank's kind, with `_____` in the text where the gap is and the choices
        or the answer box below the text; the metadata says it was a cloze, for lmsexport's
        reader."""
        blank = body.blanks[0]
        cloze: dict[str, object] = {}
        if blank.weight != 1:
            cloze["weight"] = blank.weight
        opener = "{"
        match blank:
            case TextBlank():
                lines = self._short_answer(
                    ShortAnswer(blank.answers, blank.case_sensitive, blank.other_feedback)
                )
                shown = "a short-answer question, its answer box below the text"
            case NumberBlank():
                lines = self._numerical(Numerical(blank.keys, other_feedback=blank.other_feedback))
                opener = "{#"
                shown = "a numerical question, its answer box below the text"
            case ChoiceBlank():
                cloze["display"] = blank.display.value
                cloze["shuffle"] = blank.shuffle
                if blank.multiple:
                    lines = self._multiple(MultipleChoice(blank.choices))
                else:
                    lines = self._single(SingleChoice(blank.choices))
                widget = "check boxes" if blank.multiple else "radio buttons"
                shown = f"a multiple-choice question, its choices {widget} one under the other below the text"
                if blank.display is not ChoiceDisplay.VERTICAL:
                    dropdown = blank.display is ChoiceDisplay.DROPDOWN
                    instead = "a drop-down list in" if dropdown else "a row under"
                    shown += f" (not {instead} the text)"
                if not blank.shuffle:
                    # readquestion(): defaultquestion()'s shuffleanswers, the site's quiz default.
                    shown += ", shuffled if the site's default says so (it does unless changed)"
            case _:
                assert_never(blank)
        assert isinstance(self.q.stem, Rich)  # a cloze stem always is
        at = missing_word_at(self.q.stem)
        if at is None:
            self.warn(
                "gift.blank-position-not-carried",
                "has an underscore right next to its blank, so lmsexport's reader cannot tell which "
                "'_____' of the stem Moodle shows is the blank",
                "put a space between the underscore and the blank",
            )
        elif at:
            cloze["at"] = at
        self.meta["cloze"] = cloze
        self.warn(
            "gift.cloze-as-missing-word",
            f"is a cloze of one blank, written in GIFT's missing-word form: Moodle imports {shown}, "
            "with '_____' where the blank is",
            "import Moodle XML, which carries embedded answers (cloze)",
        )
        return opener, lines

    def _ordering(self, body: Ordering) -> tuple[str, list[str]]:
        """qtype_ordering's GIFT form (import_from_gift(), export_to_gift(); core since Moodle
        4.3): `{>count SELECT LAYOUT GRADING SHOW NUMBERING`, then the items in their right
        order, one a line (see lmsexport.gift.ORDERING_HEAD and escape_ordering_item)."""
        count = len(body.items) if body.select is OrderingSelect.ALL else body.select_count
        word = ORDERING_WORDS.get(body.grading.value)
        if word is None:
            # ORDERING_HEAD: Moodle's import cannot read LONGEST_ORDERED_SUBSET.
            self.meta["grading"] = body.grading.value
            word = ORDERING_WORDS[OrderingGrading.LONGEST_CONTIGUOUS_SUBSET.value]
            self.warn(
                "gift.grading-not-carried",
                "is graded by its longest ordered subset, which Moodle's GIFT import cannot read (its "
                "pattern misspells LONGEST_ORDERED_SUBSET, and would take the word for the first item): "
                "written as LONGEST_CONTIGUOUS_SUBSET, which gives no more credit",
                "set the grading in Moodle after importing, or import Moodle XML, which carries it",
            )
        head = " ".join(
            (
                f">{count}",
                body.select.name,
                "HORIZONTAL" if body.layout is Layout.HORIZONTAL else "VERTICAL",
                word,
                "SHOW" if body.show_grading else "HIDE",
                body.numbering.value,
            )
        )
        items = [f"\t{self.item_html(item, f'item {n}')}" for n, item in enumerate(body.items, 1)]
        return "{" + head, items

    def _essay_options(self, body: Essay) -> None:
        """Essay options, which GIFT has no syntax for: readquestion() gives every essay an HTML
        editor, a required response of 15 lines, no template and no grader information (and
        qtype_essay no word limits and no attachments), which are the model's defaults."""
        default = Essay()
        essay: dict[str, object] = {}
        lost = []
        for name, key, what in _ESSAY_FIELDS:
            value = getattr(body, name)
            if value == getattr(default, name):
                continue
            lost.append(what)
            if isinstance(value, ResponseFormat):
                essay[key] = value.value
            elif name in ("template", "grader_info"):
                essay[key] = self.meta_text(value, f"the essay's {what}")
            elif name == "file_types":
                essay[key] = list(value)
            else:
                essay[key] = value
        if lost:
            self.meta["essay"] = essay
            self.warn(
                "gift.essay-options-not-carried",
                f"has essay options GIFT cannot hold ({', '.join(lost)}): Moodle imports an essay with an "
                "HTML editor, a required response of 15 lines, no word limits, no template, no grader "
                "information and no attachments",
                "set them in Moodle after importing, or import Moodle XML, which carries them",
            )

    def _true_false(self, body: TrueFalse) -> str:
        """`TRUE#wrong#right`: split_truefalse_comment() takes the first feedback for the wrong
        answer and the second for the right one, and readquestion() gives feedbacktrue the right
        one when the key is TRUE, the wrong one when it is FALSE (as Moodle's exporter writes it:
        `##right` when only the right answer has feedback)."""
        if body.truth:
            right, wrong = body.feedback_true, body.feedback_false
        else:
            right, wrong = body.feedback_false, body.feedback_true
        out = "TRUE" if body.truth else "FALSE"
        right_text = self.rich(right, "the feedback for the right answer") if right is not None else ""
        wrong_text = self.rich(wrong, "the feedback for the wrong answer") if wrong is not None else ""
        if wrong_text:
            out += "#" + wrong_text
        elif right_text:
            out += "#"
        if right_text:
            out += "#" + right_text
        return out

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

    def _weight(self, credit: float, what: str) -> str:
        """A credit as `%w%`: a grade on Moodle's list, or an error (importprocess() refuses a
        file with any other weight)."""
        grade = allowed_grade(Fraction(credit))
        if grade is None:
            near = nearest_grade(Fraction(credit))
            self.error(
                "gift.bad-weight",
                f"{what} {format_percent(Fraction(credit))}% is not one of Moodle's allowed grades, so "
                "Moodle refuses the file",
                f"the nearest allowed grade is {format_percent(near)}%",
            )
            return format_weight(near)
        return format_weight(grade)

    def _single(self, body: SingleChoice) -> list[str]:
        self._check_choice_count(body.choices)
        if not body.key_indexes:
            # readquestion(): a choice question with an '=' is single-answer, one without is not.
            self.meta["single"] = True
            self.warn(
                "gift.single-not-carried",
                "has no full-credit choice, and GIFT makes a choice question without one ('=') a "
                "multiple-answer question: Moodle imports it as one, with the credits as weights",
                "give one choice full credit, or import Moodle XML, which says the question is single-answer",
            )
        # Every choice full: answers of only '=' are a short answer to readquestion() (a
        # multiple-choice question is one with a '~'), so the first is '=' (single-answer) and
        # the others '~%100%'.
        every_full = all(c.full for c in body.choices)
        return [
            self._choice(self._single_marker(c, n, every_full and n > 1), c, n)
            for n, c in enumerate(body.choices, 1)
        ]

    def _single_marker(self, choice: Choice, n: int, weighted: bool = False) -> str:
        """`=` for full credit (`~%100%` when ``weighted``), `~` for none, `~%w%` for a part or a
        penalty (Moodle's qtype_multichoice_single allows a negative grade: get_min_fraction())."""
        if choice.full:
            return "~" + self._weight(choice.credit, f"the credit of choice {n}") if weighted else "="
        if choice.credit == 0:
            return "~"
        return "~" + self._weight(choice.credit, f"the credit of choice {n}")

    def _multiple(self, body: MultipleChoice) -> list[str]:
        self._check_choice_count(body.choices)
        n_correct = len(body.key_indexes)
        n_wrong = len(body.choices) - n_correct
        if n_correct == 0:
            self.error("gift.no-correct-choice", "has no correct choice")
            return []
        if not body.default_credits:
            return [
                self._choice("~" + self._multiple_weight(c, n), c, n) for n, c in enumerate(body.choices, 1)
            ]
        right, wrong, exact = multi_answer_weights(n_correct, n_wrong)
        if not exact:
            self.warn(
                "gift.inexact-weights",
                f"{n_correct} correct / {n_wrong} wrong choices cannot be weighted exactly with Moodle's "
                f"grades; wrote {format_weight(right)} and {format_weight(wrong)}",
            )
        right_text = _FULL_MULTI if right == 1 else format_weight(right)
        return [
            self._choice("~" + (right_text if c.earns else format_weight(wrong)), c, n)
            for n, c in enumerate(body.choices, 1)
        ]

    def _multiple_weight(self, choice: Choice, n: int) -> str:
        """A multiple choice question's own credit: never `=`, which would make it single-answer."""
        if choice.full:
            return _FULL_MULTI
        if choice.credit == 0:
            return ""
        return self._weight(choice.credit, f"the credit of choice {n}")

    def _short_answer(self, body: ShortAnswer) -> list[str]:
        if not body.accepted:
            self.error("gift.no-answer", "has no accepted answer")
        if body.case_sensitive:
            self.meta["case_sensitive"] = True
            self.warn(
                "gift.case-sensitive-not-carried",
                "is case sensitive, but GIFT cannot say so: Moodle imports it case-insensitive",
                "tick 'Case sensitivity' on the question in Moodle after importing",
            )
        lines = [self._short_answer_line(a, n) for n, a in enumerate(body.answers, 1)]
        if body.other_feedback is not None:
            # Moodle's "any other answer": `*` at 0%, after every other (the first match counts).
            feedback = self.rich(body.other_feedback, "the feedback for any other answer")
            lines.append(f"\t={format_weight(Fraction(0))}{OTHER_ANSWER}#{feedback}")
        return lines

    def _short_answer_line(self, answer: Answer, n: int) -> str:
        # readquestion(): an answer without a weight is worth 100%.
        weight = "" if is_full(answer.credit) else self._weight(answer.credit, f"the credit of answer {n}")
        out = f"\t={weight}{self._short_answer_text(answer, n, bool(weight))}"
        if answer.feedback is not None:
            out += "#" + self.rich(answer.feedback, f"the feedback of answer {n}")
        return out

    def _short_answer_text(self, answer: Answer, n: int, weighted: bool) -> str:
        text = answer.text
        what = f"accepted answer {n} {text!r}"
        if WEIGHT_RE.match(text) and not weighted:
            # After a weight, answerweightparser() takes the first '%w%' only: the text keeps its own.
            self.error("gift.unescapable", f"{what} starts with a weight-like '%N%' that GIFT cannot escape")
        if text.lower().startswith(FORMAT_TAGS):
            self.error("gift.unescapable", f"{what} starts with a format tag that Moodle would strip")
        if "->" in text:
            self.error(
                "gift.unescapable", f"{what} contains '->', which makes it a matching question to Moodle"
            )
        if not answer.wildcard:
            # Moodle grades a short answer with `*` as a wildcard; `\*` is a literal asterisk
            # (compare_string_with_wildcard()), and GIFT's importer leaves `\*` as written.
            return self.plain(literal_answer(text), what)
        if "\\*" in text:
            self.error(
                "gift.unescapable",
                f"{what} has a '\\' right before a wildcard '*', which Moodle then reads as a literal '*'",
            )
        return self.plain(text, what)

    def _numerical(self, body: Numerical) -> list[str]:
        if not body.keys:
            self.error("gift.no-answer", "has no numeric key; Moodle fails on an empty '{#}'")
            return []
        for key in body.keys:
            values = [v for v in (key.answer, key.tolerance, key.low, key.high) if v is not None]
            if any(v != v or v in (float("inf"), float("-inf")) for v in values):
                self.error("gift.not-a-number", "has a numeric key that is not a finite number")
                return []
        lines = [self._numeric_key(key, n) for n, key in enumerate(body.keys, 1)]
        # A range keeps no answer of its own in GIFT (Moodle takes the middle): the metadata does.
        answers = [k.answer if k.low is not None and k.high is not None else None for k in body.keys]
        if len(answers) == 1 and answers[0] is not None:
            self.meta["answer"] = answers[0]
        elif any(a is not None for a in answers):
            self.meta["answers"] = answers
        if body.other_feedback is not None:
            # readquestion(): the part from '~' on is the feedback for any other answer (0%).
            lines.append("\t~#" + self.rich(body.other_feedback, "the feedback for any other answer"))
        self._units(body)
        return lines

    def _numeric_key(self, key: NumericKey, n: int) -> str:
        weight = "" if is_full(key.credit) else self._weight(key.credit, f"the credit of key {n}")
        if key.low is not None and key.high is not None:
            value = f"{format_number(key.low)}..{format_number(key.high)}"
        else:
            assert key.answer is not None
            value = format_number(key.answer)
            if key.tolerance:
                value += f":{format_number(key.tolerance)}"
        out = f"\t={weight}{value}"
        if key.feedback is not None:
            out += "#" + self.rich(key.feedback, f"the feedback of key {n}")
        return out

    def _units(self, body: Numerical) -> None:
        """Units, which GIFT has no syntax for (readquestion() gives a numerical question none)."""
        default = Numerical(keys=body.keys)
        units: dict[str, object] = {}
        if body.units:
            units["units"] = [[u.name, u.multiplier] for u in body.units]
        if body.unit_grading is not default.unit_grading:
            units["grading"] = body.unit_grading.value
        if body.unit_penalty != default.unit_penalty:
            units["penalty"] = body.unit_penalty
        if body.unit_input is not default.unit_input:
            units["input"] = body.unit_input.value
        if body.units_left:
            units["left"] = True
        if not units:
            return
        self.meta["units"] = units
        names = ", ".join(repr(u.name) for u in body.units)
        self.warn(
            "gift.units-not-carried",
            (f"has units ({names})" if names else "has unit settings")
            + ", which GIFT cannot hold: Moodle imports the question without units",
            "add the units in Moodle after importing, or import Moodle XML, which carries them",
        )

    def _matching(self, body: Matching) -> list[str]:
        if len(body.pairs) < 2:
            self.error(
                "gift.too-few-pairs",
                f"has {len(body.pairs)} pair(s); Moodle's importer fails on fewer than 2",
            )
        lines = []
        for n, pair in enumerate(body.pairs, 1):
            left = self.rich(pair.left, f"the left item of pair {n}")
            lines.append(f"\t={left} -> {self.plain(pair.right, f'the right item of pair {n}')}")
        for n, distractor in enumerate(body.distractors, 1):
            # A pair with nothing on the left: readquestion() makes it a subquestion with empty
            # text, which qtype_match's save_question_options() keeps and offers as one more
            # right-hand choice matching nothing (as Moodle's own exporter writes it).
            lines.append(f"\t= -> {self.plain(distractor, f'distractor {n}')}")
        return lines


_FULL_MULTI = "%99.99999%"
"""Full credit on a multiple-answer choice: `=` would make the question single-answer, and
99.99999% is within match_grade_options()'s tolerance of 100%."""

_ESSAY_FIELDS = (
    ("response_format", "format", "response format"),
    ("required", "required", "response required"),
    ("lines", "lines", "box size"),
    ("min_words", "min_words", "minimum words"),
    ("max_words", "max_words", "maximum words"),
    ("template", "template", "response template"),
    ("grader_info", "grader_info", "grader information"),
    ("attachments", "attachments", "attachments"),
    ("attachments_required", "attachments_required", "attachments required"),
    ("file_types", "file_types", "file types"),
    ("max_bytes", "max_bytes", "largest file"),
)
"""Essay fields -> their metadata key and how messages name them."""


def question_name(question: Question) -> str:
    """The `::name::` Moodle lists in its question bank: the question's name when it has one,
    else the stem's start, on one line (lmsexport.gift.derived_name)."""
    return question.name if question.name is not None else derived_name(question)


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
            _meta_comment(QUIZ_META, meta),
            f"$CATEGORY: {path}",
        ]
    )


def write_quiz(quiz: Quiz) -> tuple[str, list[Diagnostic]]:
    """One quiz as GIFT text, plus every diagnostic (errors and warnings) found on the way.

    A parametric question is its variants in a category of their own below the quiz's
    (variants_block); the questions after it go back to the quiz's category."""
    diagnostics: list[Diagnostic] = []
    blocks = [_quiz_header(quiz, diagnostics)]
    home = category_path(quiz)[0]
    away = False
    for question in quiz.questions:
        if not carried(question):
            diagnostics.append(_not_carried(quiz, question))
            continue
        if is_parametric(question):
            block, diags = variants_block(quiz, question, home)
            blocks.append(block)
            diagnostics.extend(diags)
            away = True
            continue
        if away:
            blocks.append(f"$CATEGORY: {home}")
            away = False
        qw = _QuestionWriter(quiz, question)
        blocks.append(qw.write())
        diagnostics.extend(qw.diagnostics)
    return "\n\n".join(blocks) + "\n", diagnostics


# --------------------------------------------------------------------------- parametric questions
#
# GIFT has no calculated question (readquestion() knows no such type, and qtype_calculated has no
# GIFT hook: shared/reference/parametric-notes.md §2). What people do instead, and what lmsexport
# writes: the variants as ordinary numerical (or multichoice) questions in a category of their
# own, and the quiz draws "a random question" from that category, one variant per attempt.


def is_parametric(question: Question) -> bool:
    return isinstance(question.body, Calculated | CalculatedChoice)


def variant_questions(question: Question) -> tuple[Question, ...]:
    """A parametric question's variants as GIFT holds them, and as they read back: each one
    variants.instantiate gives (id `<id>-v001`), named `<name> (n)` after the question's name,
    else its id (a name derived from the stem would differ per variant but say nothing)."""
    body = question.body
    assert isinstance(body, Calculated | CalculatedChoice)
    base = question.name if question.name is not None else question.id
    out = []
    for v in body.variants:
        q = instantiate(question, v)
        if isinstance(q.body, Numerical):
            # A relative tolerance is a margin per variant (0.01 * 35 = 0.35000000000000003):
            # 12 significant digits write it as the author would, and change it by < 1e-12.
            keys = tuple(replace(k, tolerance=float(f"{k.tolerance:.12g}")) for k in q.body.keys)
            out.append(evolve_question(q, body=replace(q.body, keys=keys), name=f"{base} ({v.number})"))
        else:
            out.append(evolve_question(q, name=f"{base} ({v.number})"))
    return tuple(out)


def as_written(question: Question) -> tuple[Question, ...]:
    """What a quiz's GIFT file holds of a question: none (not carried), its variants, or itself."""
    if not carried(question):
        return ()
    return variant_questions(question) if is_parametric(question) else (question,)


def variant_category(parent: str, question: Question) -> str:
    """The `$CATEGORY:` path a parametric question's variants are written under."""
    return f"{parent}/{_category_name(question.id)}"


def variants_block(quiz: Quiz, question: Question, parent: str) -> tuple[str, list[Diagnostic]]:
    """A parametric question as GIFT text: a comment telling the instructor what to do, the
    variants' category, each variant; with the variants' errors (all) and warnings (the first
    variant's: every variant has the same losses) and `gift.variants-as-category`."""
    variants = variant_questions(question)
    category = variant_category(parent, question)
    shown = category.removeprefix(ASSESSMENT_CONTEXT + "/")
    kind = "multichoice" if isinstance(question.body, CalculatedChoice) else "numerical"
    lines = [
        f"// {question.id}: a calculated question as {len(variants)} {kind} questions, one per variant "
        f"(GIFT has no formula). In the quiz, add 'a random question' from the category '{shown}', "
        "not these questions themselves.",
        f"$CATEGORY: {category}",
    ]
    diagnostics: list[Diagnostic] = [
        Diagnostic(
            question.loc or quiz.loc or SourceLoc(quiz.id),
            f"question '{question.id}': GIFT has no calculated question: its formula and variables are "
            f"not carried, its {len(variants)} variants are written as {kind} questions in the category "
            f"'{shown}'",
            Severity.WARNING,
            "gift.variants-as-category",
            f"in the Moodle quiz, add 'a random question' from the category '{shown}' (one variant per "
            "attempt), or import Moodle XML, which carries the calculated question",
        )
    ]
    blocks = ["\n".join(lines)]
    for n, variant in enumerate(variants):
        qw = _QuestionWriter(quiz, variant)
        blocks.append(qw.write())
        for d in qw.diagnostics:
            if d.severity is Severity.ERROR:
                diagnostics.append(d)
            elif n == 0:  # the losses are the question's: named once, by its own id
                own = d.message.replace(f"question '{variant.id}'", f"question '{question.id}'", 1)
                diagnostics.append(replace(d, message=own))
    return "\n\n".join(blocks), diagnostics


def carried(question: Question) -> bool:
    """Whether GIFT holds the question at all: every kind but a cloze of several blanks, which
    Moodle's GIFT has no syntax for (only the missing-word form, one blank)."""
    return not isinstance(question.body, Cloze) or len(question.body.blanks) == 1


def _not_carried(quiz: Quiz, question: Question) -> Diagnostic:
    assert isinstance(question.body, Cloze)
    return Diagnostic(
        question.loc or quiz.loc or SourceLoc(quiz.id),
        f"question '{question.id}': is a cloze of {len(question.body.blanks)} blanks, which GIFT cannot "
        "hold (its missing-word form has one): the question is left out of the file",
        Severity.WARNING,
        "gift.cloze-not-carried",
        "import Moodle XML, which carries embedded answers (cloze)",
    )


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
                if not carried(candidate.question):
                    continue  # named by its quiz's file (gift.cloze-not-carried)
                if is_parametric(candidate.question):
                    # Its variants in a sub-category of the draw's (named by its quiz's file): the
                    # instructor draws one of them where the draw's question stands.
                    block, diags = variants_block(context, as_in_assessment(assessment, candidate), category)
                    body += [block, f"$CATEGORY: {category}"]
                    diagnostics.extend(_errors(diags))
                    continue
                qw = _QuestionWriter(context, as_in_assessment(assessment, candidate))
                body.append(qw.write())
                diagnostics.extend(_errors(qw.diagnostics))
            inner = [c.question.id for c in draw.candidates if is_parametric(c.question)]
            if inner:
                shown = _shown_path(category)
                how = (
                    f"when adding the random question from '{shown}', tick 'Include questions from "
                    "subcategories too' (Moodle then draws among all the variants, so a question weighs as "
                    "many variants as it has)"
                    if draw.is_random
                    else f"add, in place of each, 'a random question' from '{shown}/<its id>'"
                )
                diagnostics.append(
                    Diagnostic(
                        draw.loc or where,
                        f"assessment '{assessment.id}': draw '{draw.name}' holds parametric questions "
                        f"({', '.join(inner)}), written as their variants in a category of their own below "
                        f"the draw's: {how}",
                        Severity.WARNING,
                        "gift.variants-in-draw",
                    )
                )
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
        _meta_comment(ASSESSMENT_META, meta),
    ]
    return "\n\n".join(["\n".join(head), *body]) + "\n", diagnostics


def _errors(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]


def _size_warning(path: str, data: bytes, loc: SourceLoc) -> list[Diagnostic]:
    """Images make a GIFT file large (base64 adds a third): warn past what lmsexport's own
    reader takes, since `lmsexport check` could then not read the file back."""
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
