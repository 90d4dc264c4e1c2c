"""Moodle XML writer: one `moodle/<quiz-id>.xml` per quiz, in Moodle's own lossless question format.

Moodle XML is what Moodle itself exports: unlike GIFT it carries marks, choice shuffling,
case-sensitive short answers, matching distractors, ID numbers and tags. Every element is
written the way Moodle's exporter writes it and read the way its importer reads it
(moodle/moodle question/format/xml/format.php, qformat_xml; question/format.php,
qformat_default; the question types' save_question_options()). What each field becomes in
Moodle is tabled in docs/moodle-xml.md.

* One file per quiz: a category question (`$course$/top/<category or title>`, the quiz's
  description as the category's info), then one `<question>` per question in source order.
* Texts. Every formatted text (stem, choice, feedback, explanation, matching left item,
  category info) goes through `_QuestionWriter.rich()`: plain source text -> HTML that Moodle
  shows exactly as written (lmsexport.moodle.text_to_html), `format="html"`, wrapped in
  `<span lang dir>` when its language is right to left or not the quiz's (as in GIFT). Texts
  Moodle stores unformatted (short answers, matching right items, names, tags, the category)
  go through `plain()`. Both end in `_set_text()`, the one place XML text is escaped: a text
  holding `& < > " '` is one CDATA section, as qformat_xml::xml_escape() writes it, because
  Moodle's importer has been seen to drop white space standing alone between two entity
  references (the project's lms-notes; PHP 8.2 with libxml2 2.9.14 keeps it, and
  tests/test_moodlexml_php.py parses every file with PHP); any other text is written as it is.
* Marks as `<defaultgrade>` (Moodle stores 7 decimals), the explanation as the general
  feedback, `<shuffleanswers>` from the quiz's `shuffle`, the question id as `<idnumber>`
  (Moodle does not trim it: it is written bare), `<penalty>`/`<hidden>` as Moodle's exporter
  writes a question made with its forms' defaults.
* Grades (`fraction`) are percentages from Moodle's list of allowed grades, shared with the
  GIFT writer (lmsexport.moodle.multi_answer_weights): a multi-answer question's right choices
  share +100 % and its wrong ones -100 %.
* What Moodle XML has no element for (a numerical range's exact bounds and preferred answer,
  the quiz's id, title, language, difficulty and category as the source has them, and
  `shuffle: false`) goes into `<!-- lmsexport... -->` comments, which Moodle's parser never
  reports and lmsexport.readers.moodlexml reads back, so `lmsexport check` proves the round
  trip lossless.

Coming: rich text (images embedded as `<file name path="/" encoding="base64">` inside the
text's element, referenced as `@@PLUGINFILE@@/name`; TeX as `\\( \\)` for MathJax) will be
rendered in rich(), and assessments drawing from pools will become one file per assessment
with one category per pool.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from fractions import Fraction

from lxml import etree

from ..errors import Diagnostic, MoodleXmlExportError, Severity
from ..model import Bank, Choice, Question, QuestionType, Quiz, SourceLoc, is_rtl
from ..moodle import (
    format_number,
    format_percent,
    lang_span,
    multi_answer_weights,
    name_from_stem,
    text_to_html,
)
from . import Output, WriteContext

FOLDER = "moodle"
"""Output folder: `moodle/<quiz-id>.xml`."""

QTYPES = {
    QuestionType.SINGLE: "multichoice",
    QuestionType.MULTIPLE: "multichoice",
    QuestionType.TRUE_FALSE: "truefalse",
    QuestionType.SHORT_ANSWER: "shortanswer",
    QuestionType.NUMERICAL: "numerical",
    QuestionType.MATCHING: "matching",
    QuestionType.ESSAY: "essay",
}
"""The `type` each question type is written as (qformat_xml::get_qtype() writes `matching`)."""

PENALTY = {
    "multichoice": "0.3333333",
    "truefalse": "1.0000000",
    "shortanswer": "0.3333333",
    "numerical": "0.3333333",
    "matching": "0.3333333",
    "essay": "0.0000000",
}
"""`<penalty>` as Moodle exports a question saved with its editing form's default (a decimal
of 7 places, as the database holds it): true/false 1 (a second try is always right), essay 0."""

MAX_MARK = 100000
"""question.defaultmark is DECIMAL(12,7) in Moodle's database: 5 digits before the point."""
TAG_MAX_CHARS = 50
"""Moodle's clean_param(PARAM_TAG) shortens a tag to TAG_MAX_LENGTH (50) characters."""

META_PREFIX = "lmsexport:"
QUIZ_META_PREFIX = "lmsexport-quiz:"

_XML_SPECIAL = re.compile(r"[&<>\"']")
"""What makes qformat_xml::xml_escape() wrap a text in CDATA (htmlspecialchars() changes it)."""
_ESCAPED_BLANK_RUN = re.compile(r"[&<>][ \t\n]+[&<>]")
"""White space between two characters that become entity references when not in CDATA."""
_FORBIDDEN_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAG_DROPPED = re.compile(r"[\x00-\x1f\x7f<>`]")
"""clean_param(PARAM_TAG) removes control characters and < > `."""
_STRIPPED_TAG_START = re.compile(r"<(?=\S)")
"""Where PHP's strip_tags() (clean_param(PARAM_TEXT), applied to names) starts a tag."""
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def plain_text_problem(text: str) -> str | None:
    """Why Moodle's importer would not read `text` back exactly from an unformatted field, or None.

    A text holding `]]>` cannot sit in one CDATA section, and written with entity references
    it loses any white space standing alone between two of them; a carriage return becomes a
    line feed (XML end-of-line handling) or such a lone character reference.
    """
    if "\r" in text:
        return "contains a carriage return, which Moodle's XML parser turns into a line feed"
    if "]]>" in text and _ESCAPED_BLANK_RUN.search(text):
        return "contains ']]>' and white space between markup characters, which Moodle's parser drops"
    return None


def _set_text(el: etree._Element, text: str) -> None:
    """The one place XML text is escaped: CDATA exactly where Moodle's own exporter uses it."""
    if not text:
        return
    if _XML_SPECIAL.search(text) and "]]>" not in text:
        el.text = etree.CDATA(text)
    else:
        # No special character (nothing to escape), or `]]>`, which no CDATA section can hold:
        # lxml writes entity references (plain_text_problem() has ruled out the unsafe cases).
        el.text = text


def _sub(parent: etree._Element, tag: str, text: str | None = None, **attrib: str) -> etree._Element:
    el = etree.SubElement(parent, tag, attrib)
    if text is not None:
        el.text = text
    return el


def _template(xml: str) -> tuple[etree._Element, ...]:
    """Elements every question of a type carries unchanged, parsed once and copied into each
    question (one C-level deep copy instead of a Python call per element)."""
    return tuple(etree.fromstring(f"<t>{xml}</t>"))


_COMBINED_FEEDBACK = _template(
    '<correctfeedback format="html"><text/></correctfeedback>'
    '<partiallycorrectfeedback format="html"><text/></partiallycorrectfeedback>'
    '<incorrectfeedback format="html"><text/></incorrectfeedback><shownumcorrect/>'
)
"""The model has no right/partly right/wrong feedback: empty, as Moodle exports unset ones."""
_NO_UNITS = _template(
    "<unitgradingtype>0</unitgradingtype><unitpenalty>0.1000000</unitpenalty><showunits>3</showunits>"
    "<unitsleft>0</unitsleft>"
)
"""A numerical question without units, as Moodle's exporter writes one."""
_ESSAY_OPTIONS = _template(
    "<responseformat>editor</responseformat><responserequired>1</responserequired>"
    "<responsefieldlines>15</responsefieldlines><attachments>0</attachments>"
    '<attachmentsrequired>0</attachmentsrequired><graderinfo format="html"><text/></graderinfo>'
    '<responsetemplate format="html"><text/></responsetemplate>'
)
"""The defaults of Moodle's essay form: an HTML editor of 15 lines, a response required, no
attachments; no grader information and no response template."""


_QUESTION = _template(
    '<question type=""><name><text/></name><questiontext format="html"><text/></questiontext>'
    '<generalfeedback format="html"><text/></generalfeedback><defaultgrade/><penalty/><hidden>0</hidden>'
    "<idnumber/></question>"
)[0]
"""What every question starts with, in the order Moodle's exporter writes it."""
_HTML_ANSWER = _template(
    '<answer fraction="" format="html"><text/><feedback format="html"><text/></feedback></answer>'
)[0]
_PLAIN_ANSWER = _template(
    '<answer fraction="" format="moodle_auto_format"><text/>'
    '<feedback format="html"><text/></feedback></answer>'
)[0]
_SUBQUESTION = _template('<subquestion format="html"><text/><answer><text/></answer></subquestion>')[0]


def _copy(parent: etree._Element, template: etree._Element) -> etree._Element:
    el = copy.deepcopy(template)
    parent.append(el)
    return el


def _append(parent: etree._Element, template: tuple[etree._Element, ...]) -> None:
    parent.extend(copy.deepcopy(el) for el in template)


@functools.cache
def _marked(lang: str, quiz_lang: str) -> bool:
    """Whether a text in `lang` is wrapped in a lang span: right to left, or not the quiz's."""
    return is_rtl(lang) or lang != quiz_lang


_fraction = functools.cache(format_percent)

_TYPE_WRITERS = {
    QuestionType.SINGLE: "_multichoice",
    QuestionType.MULTIPLE: "_multichoice",
    QuestionType.TRUE_FALSE: "_truefalse",
    QuestionType.SHORT_ANSWER: "_shortanswer",
    QuestionType.NUMERICAL: "_numerical",
    QuestionType.MATCHING: "_matching",
    QuestionType.ESSAY: "_essay",
}


def _comment(prefix: str, data: dict[str, object]) -> etree._Comment:
    """`<!-- prefix {json} -->`; every `--` in a JSON string is broken with \\u002d (XML comments
    may not contain it)."""
    encoded = json.dumps(data, ensure_ascii=False, sort_keys=True)
    encoded = _JSON_STRING.sub(lambda m: m.group(0).replace("--", "-\\u002d"), encoded)
    return etree.Comment(f" {prefix} {encoded} ")


def _name_clean(text: str) -> str:
    # Moodle cleans a name with clean_param(PARAM_TEXT), whose strip_tags() would eat `<b ...`
    # up to the next `>` (or the end): a space after `<` keeps the name readable. A label may
    # also lose `]]>`, which would otherwise need entity references instead of one CDATA section.
    text = _STRIPPED_TAG_START.sub("< ", text)
    return text.replace("]]>", "]] >")


def question_name(question: Question) -> str:
    """The name an instructor sees in Moodle's question bank: the stem's start (as in GIFT)."""
    return name_from_stem(question, _name_clean)


def moodle_tag(tag: str) -> str:
    """The tag Moodle stores for `tag`: clean_param(PARAM_TAG) as core_tag_tag applies it."""
    cleaned = " ".join(_TAG_DROPPED.sub("", tag).split())
    return cleaned[:TAG_MAX_CHARS]


def format_mark(points: float) -> str:
    """`<defaultgrade>` as Moodle's exporter prints a mark (7 decimals), or the exact number when
    7 decimals would change it (Moodle rounds it; the writer warns)."""
    if round(points, 7) == points:
        return f"{points:.7f}"
    return format_number(points)


def category_names(quiz: Quiz) -> tuple[list[str], bool]:
    """The category path's names (without `$course$/top`) and whether any had to be changed.

    The quiz's category is already a path of names; without one the questions go into a
    category named after the quiz's title. Names are one line (Moodle trims them) and keep
    no `<` that strip_tags() would take for a tag.
    """
    raw = [n.strip() for n in quiz.category.split("/")] if quiz.category else [quiz.title.strip()]
    names = [_name_clean(" ".join(n.split())) for n in raw]
    return names, names != raw


def category_path(names: list[str]) -> str:
    """qformat_default::assemble_category_path() after `$course$/top`: `/` in a name doubled, a
    name starting or ending with `/` padded with a space (split_category_path() trims it)."""
    escaped = []
    for name in names:
        e = name.replace("/", "//")
        if e.startswith("/"):
            e = " " + e
        if e.endswith("/"):
            e += " "
        escaped.append(e)
    return "/".join(["$course$", "top", *escaped])


class _QuestionWriter:
    """Writes one question, collecting diagnostics instead of stopping at the first."""

    def __init__(self, quiz: Quiz, question: Question, label: str | None = None) -> None:
        self.quiz = quiz
        self.q = question
        self.loc = question.loc or quiz.loc or SourceLoc(quiz.id)
        self.lang = quiz.lang_of(question)
        self.label = label or f"question '{question.id}'"
        """How messages name what they are about."""
        self.diagnostics: list[Diagnostic] = []

    def _report(self, severity: Severity, rule: str, message: str, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(self.loc, f"{self.label}: {message}", severity, rule, hint))

    def error(self, rule: str, message: str, hint: str | None = None) -> None:
        self._report(Severity.ERROR, rule, message, hint)

    def warn(self, rule: str, message: str, hint: str | None = None) -> None:
        self._report(Severity.WARNING, rule, message, hint)

    # -- texts: every text of a question passes through rich() or plain() ------------------

    def _check_chars(self, text: str, what: str) -> bool:
        """Whether XML can hold the text; an error (and an empty text written) when it cannot."""
        bad = _FORBIDDEN_CONTROL.search(text)
        if bad:
            self.error(
                "moodlexml.control-character", f"{what} contains control character U+{ord(bad.group(0)):04X}"
            )
        return bad is None

    def rich(self, body: etree._Element, text: str | None, what: str, lang: str | None = None) -> None:
        """A formatted text in `lang` (default: the question's) as HTML in `body`, the `<text>` of
        its field (the field's element, whose `format` says html, will also hold the text's
        files); an absent text (no feedback) stays an empty `<text>`, as Moodle exports it."""
        if text is None or not self._check_chars(text, what):
            return
        html_text = text_to_html(text)
        lang = lang or self.lang
        if _marked(lang, self.quiz.lang):
            html_text = lang_span(html_text, lang)
        _set_text(body, html_text)

    def field(
        self, parent: etree._Element, tag: str, text: str | None, what: str, lang: str | None = None
    ) -> etree._Element:
        """`<tag format="html"><text>HTML</text></tag>`: a formatted text in its own element."""
        container = _sub(parent, tag, format="html")
        self.rich(_sub(container, "text"), text, what, lang)
        return container

    def plain(self, body: etree._Element, text: str, what: str) -> None:
        """A text Moodle stores unformatted, exactly as written, in `body` (a `<text>`)."""
        if self._check_chars(text, what):
            problem = plain_text_problem(text)
            if problem:
                self.error("moodlexml.unwritable", f"{what} {problem}")
            _set_text(body, text)

    # -- the question ------------------------------------------------------------------

    def write(self, parent: etree._Element) -> None:
        q = self.q
        qtype = QTYPES[q.type]
        el = _copy(parent, _QUESTION)
        el.set("type", qtype)
        self.plain(el[0][0], question_name(q), "the name")
        self.rich(el[1][0], q.stem, "the stem")
        self.rich(el[2][0], q.explanation, "the explanation")
        el[3].text = self._mark()
        el[4].text = PENALTY[qtype]
        el[6].text = q.id
        getattr(self, _TYPE_WRITERS[q.type])(el)
        self._tags(el)

    def _mark(self) -> str:
        points = self.q.points
        if not (math.isfinite(points) and 0 < points < MAX_MARK):
            self.error(
                "moodlexml.bad-mark",
                f"is worth {points:g} points; Moodle stores a mark above 0 and below {MAX_MARK:,}",
            )
        elif round(points, 7) != points:
            self.warn(
                "moodlexml.mark-rounded",
                f"is worth {points!r} points; Moodle keeps 7 decimals ({points:.7f})",
            )
        return format_mark(points)

    def _tags(self, el: etree._Element) -> None:
        if not self.q.tags:
            return
        tags = _sub(el, "tags")
        for tag in self.q.tags:
            stored = moodle_tag(tag)
            if stored != tag:
                self.warn("moodlexml.tag-changed", f"Moodle stores tag {tag!r} as {stored!r}")
            self.plain(_sub(_sub(tags, "tag"), "text"), tag, f"tag {tag!r}")

    def _answer(self, parent: etree._Element, fraction: Fraction, template: etree._Element) -> etree._Element:
        """`<answer fraction format><text/><feedback format="html"><text/></feedback></answer>`."""
        answer = _copy(parent, template)
        answer.set("fraction", _fraction(fraction))
        return answer

    def _combined_feedback(self, el: etree._Element) -> None:
        _append(el, _COMBINED_FEEDBACK)

    def _shuffle(self) -> str:
        return "true" if self.quiz.shuffle else "false"

    def _multichoice(self, el: etree._Element) -> None:
        q = self.q
        if len(q.choices) < 2:
            self.error(
                "moodlexml.too-few-choices",
                f"has {len(q.choices)} choice(s); Moodle's multichoice type refuses fewer than 2",
            )
        n_correct = sum(c.correct for c in q.choices)
        single = q.type is QuestionType.SINGLE
        if single:
            if n_correct != 1:
                self.error("moodlexml.bad-key", f"is single-answer with {n_correct} correct choices")
            right, wrong = Fraction(1), Fraction(0)
        else:
            if n_correct == 0:
                self.error("moodlexml.bad-key", "has no correct choice")
                n_correct = 1
            n_wrong = len(q.choices) - n_correct
            right, wrong, exact = multi_answer_weights(n_correct, n_wrong)
            if not exact:
                self.warn(
                    "moodlexml.inexact-weights",
                    f"{n_correct} correct / {n_wrong} wrong choices cannot be weighted exactly with "
                    f"Moodle's grades; wrote {format_percent(right)}% and {format_percent(wrong)}%",
                )
        _sub(el, "single", "true" if single else "false")
        _sub(el, "shuffleanswers", self._shuffle())
        _sub(el, "answernumbering", "abc")
        _sub(el, "showstandardinstruction", "0")
        self._combined_feedback(el)
        for n, choice in enumerate(q.choices, 1):
            self._choice(el, choice, right if choice.correct else wrong, n)

    def _choice(self, el: etree._Element, choice: Choice, fraction: Fraction, n: int) -> None:
        answer = self._answer(el, fraction, _HTML_ANSWER)
        self.rich(answer[0], choice.text, f"choice {n}", choice.lang)
        self.rich(answer[1][0], choice.feedback, f"the feedback of choice {n}")

    def _truefalse(self, el: etree._Element) -> None:
        # import_truefalse() recognises the answers by their texts `true` and `false`.
        for value in (True, False):
            answer = self._answer(el, Fraction(int(value == self.q.truth)), _PLAIN_ANSWER)
            answer[0].text = "true" if value else "false"

    def _shortanswer(self, el: etree._Element) -> None:
        q = self.q
        if not q.answers:
            self.error("moodlexml.no-answer", "has no accepted answer")
        _sub(el, "usecase", "1" if q.case_sensitive else "0")
        for n, text in enumerate(q.answers, 1):
            answer = self._answer(el, Fraction(1), _PLAIN_ANSWER)
            # Moodle's short-answer grading takes * as a wildcard; \* is a literal asterisk.
            self.plain(answer[0], text.replace("*", "\\*"), f"accepted answer {n} {text!r}")

    def _numerical(self, el: etree._Element) -> None:
        key = self.q.numeric
        if key is None:
            self.error("moodlexml.no-answer", "has no numeric key")
            return
        values = [v for v in (key.answer, key.tolerance, key.low, key.high) if v is not None]
        if not all(math.isfinite(v) for v in values):
            self.error("moodlexml.not-a-number", "has a numeric key that is not a finite number")
            return
        if key.low is not None and key.high is not None:
            # Moodle's key is answer +- tolerance: a range is its midpoint and half-width
            # (halves first, so that no bound near the float limit overflows).
            value, tolerance = key.low / 2 + key.high / 2, key.high / 2 - key.low / 2
            meta: dict[str, object] = {"range": [key.low, key.high]}
            if key.answer is not None:
                meta["answer"] = key.answer
            el.insert(0, _comment(META_PREFIX, meta))
        else:
            assert key.answer is not None
            value, tolerance = key.answer, key.tolerance
        answer = self._answer(el, Fraction(1), _PLAIN_ANSWER)
        answer[0].text = format_number(value)
        _sub(answer, "tolerance", format_number(tolerance))
        _append(el, _NO_UNITS)

    def _matching(self, el: etree._Element) -> None:
        q = self.q
        if len(q.pairs) < 2:
            self.error(
                "moodlexml.too-few-pairs",
                f"has {len(q.pairs)} pair(s); a matching question needs at least 2",
            )
        elif len(q.pairs) + len(q.distractors) < 3:
            self.warn(
                "moodlexml.match-form-minimum",
                "has 2 pairs and no distractor: Moodle imports it, but its editing form refuses to save "
                "a matching question with fewer than 3 answers",
                "add a distractor",
            )
        rights = {p.right for p in q.pairs}
        for d in q.distractors:
            if d in rights:
                self.warn(
                    "moodlexml.distractor-merged",
                    f"distractor {d!r} is also a right-hand item; Moodle shows identical answers once",
                )
        _sub(el, "shuffleanswers", self._shuffle())
        self._combined_feedback(el)
        for n, pair in enumerate(q.pairs, 1):
            sub = _copy(el, _SUBQUESTION)
            self.rich(sub[0], pair.left, f"the left item of pair {n}")
            self.plain(sub[1][0], pair.right, f"the right item of pair {n}")
        for n, text in enumerate(q.distractors, 1):
            # Moodle's way to store a distractor: a subquestion with an empty text.
            sub = _copy(el, _SUBQUESTION)
            self.plain(sub[1][0], text, f"distractor {n}")

    def _essay(self, el: etree._Element) -> None:
        _append(el, _ESSAY_OPTIONS)


def _quiz_header(quiz: Quiz, root: etree._Element, diagnostics: list[Diagnostic]) -> None:
    qloc = quiz.loc or SourceLoc(quiz.id)
    names, changed = category_names(quiz)
    path = category_path(names)
    if changed:
        diagnostics.append(
            Diagnostic(
                qloc,
                f"quiz {quiz.id!r}: category {quiz.category or quiz.title!r} is written as {path!r} "
                "(one line, no '<' Moodle would strip)",
                Severity.WARNING,
                "moodlexml.category-sanitized",
            )
        )
    root.append(
        etree.Comment(
            f" {quiz.id}: Moodle XML written by lmsexport. Import it into the question bank with "
            "'Get category from file' ticked. "
        )
    )
    meta: dict[str, object] = {"id": quiz.id, "title": quiz.title, "lang": quiz.lang}
    if quiz.difficulty is not None:
        meta["difficulty"] = quiz.difficulty.value
    if quiz.category is not None:
        meta["category"] = quiz.category
    if not quiz.shuffle:
        meta["shuffle"] = False
    root.append(_comment(QUIZ_META_PREFIX, meta))
    category = _sub(root, "question", type="category")
    _set_text(_sub(_sub(category, "category"), "text"), path)
    # The quiz's description becomes the category's description (create_category_path()).
    if quiz.description is not None:
        about = Question(id=quiz.id, type=QuestionType.ESSAY, stem="", loc=quiz.loc)
        header = _QuestionWriter(quiz, about, f"quiz {quiz.id!r}")
        header.field(category, "info", quiz.description, "the description", quiz.lang)
        diagnostics.extend(header.diagnostics)


def write_quiz(quiz: Quiz) -> tuple[bytes, list[Diagnostic]]:
    """One quiz as a Moodle XML file, plus every diagnostic (errors and warnings) found on the way."""
    diagnostics: list[Diagnostic] = []
    root = etree.Element("quiz")
    _quiz_header(quiz, root, diagnostics)
    for question in quiz.questions:
        qw = _QuestionWriter(quiz, question)
        qw.write(root)
        diagnostics.extend(qw.diagnostics)
    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    return data, diagnostics


def write(bank: Bank, ctx: WriteContext) -> Output:
    """The Moodle XML writer: raises MoodleXmlExportError with every error of the bank, else files."""
    out = Output()
    errors: list[Diagnostic] = []
    for quiz in bank.quizzes:
        data, diagnostics = write_quiz(quiz)
        errors.extend(d for d in diagnostics if d.severity is Severity.ERROR)
        out.warnings.extend(d for d in diagnostics if d.severity is Severity.WARNING)
        out.files[f"{FOLDER}/{quiz.id}.xml"] = data
    if errors:
        raise MoodleXmlExportError(errors)
    return out
