"""Moodle XML writer: `moodle/<quiz-id>.xml` per quiz and `moodle/<assessment-id>.xml` per
assessment, in Moodle's own lossless question format.

Moodle XML is what Moodle itself exports: unlike GIFT it carries marks, choice shuffling,
case-sensitive short answers, matching distractors, ID numbers, tags and files. Every element is
written the way Moodle's exporter writes it and read the way its importer reads it
(moodle/moodle question/format/xml/format.php, qformat_xml; question/format.php,
qformat_default; the question types' save_question_options()). What each field becomes in
Moodle is tabled in docs/moodle-xml.md.

* One file per quiz: a category question (`$course$/top/<category or title>`, the quiz's
  description as the category's info), then one `<question>` per question in source order.
* Texts. Every formatted text (stem, choice, feedback, explanation, matching left item,
  category info) goes through `_QuestionWriter.rich()`: a plain text -> HTML that Moodle shows
  exactly as written (lmsexport.moodle.text_to_html), a rich text -> the shared renderer's HTML
  blocks (writers/richtext.py, FLAVOUR: TeX in `\\( \\)`/`\\[ \\]` for Moodle's MathJax filter,
  images as `@@PLUGINFILE@@/<name>` with the file as a `<file>` of the field, ltr code),
  `format="html"`, marked with its language when it is right to left or not the quiz's (as in
  GIFT). Texts Moodle stores unformatted (short answers, matching right items, names, tags, the
  category) go through `plain()`. Both end in `_set_text()`, the one place XML text is escaped:
  a text holding `& < > " '` is one CDATA section, as qformat_xml::xml_escape() writes it,
  because Moodle's importer has been seen to drop white space standing alone between two entity
  references (the project's lms-notes; PHP 8.2 with libxml2 2.9.14 keeps it, and
  tests/test_moodlexml_php.py parses every file with PHP); any other text is written as it is.
* Marks as `<defaultgrade>` (Moodle stores 7 decimals), the explanation as the general
  feedback, `<shuffleanswers>` from the quiz's `shuffle`, the question id as `<idnumber>`
  (Moodle does not trim it: it is written bare), the question's name and penalty (without them,
  the stem's start and what Moodle's forms save: lmsexport.moodlexml.PENALTY), `<hidden>` 0.
* Grades (`fraction`) are percentages from Moodle's list of allowed grades, shared with the
  GIFT writer (lmsexport.moodle.nearest_grade): each choice's, answer's and key's credit as the
  nearest allowed grade (by default a multi-answer question's right choices share +100 % and its
  wrong ones -100 %).
* Everything of issue 22, element by element as Moodle's exporter writes it: feedback by
  outcome and `<shownumcorrect/>`, hints with their options, answer feedback (true/false too),
  graded and wildcard short answers (lmsexport.moodlexml.wildcard_text()), the feedback for any
  other answer as a last `*` at 0 %, every numerical key with its tolerance (a range as its
  midpoint and half-width), units and their options, essay options. What Moodle's importer does
  not read for a type (feedback by outcome on a true/false question, an essay's hints, hints'
  options outside multiple choice and matching) is written all the same, for lmsexport's own
  reading, and named once per question as not carried. A bank without these writes as before.
* Issue 23's kinds natively: a description as `type="description"` (mark 0), a cloze question
  as `type="cloze"` with each blank's `{w:TYPE:alternatives}` code in the stem's HTML where its
  gap is (_cloze_codes(): SHORTANSWER / _C, NUMERICAL, MULTICHOICE / _V / _H / _S..., MULTIRESPONSE
  ...; texts escaped by lmsexport.moodlexml.cloze_escape() so that
  qtype_multianswer_extract_question() reads them back; every `{` Moodle would take for a code's
  start written `&#123;`), an ordering as `type="ordering"` with qtype_ordering's options
  (export_to_xml()). Moodle's mark of a cloze question is the sum of its weights (named when the
  points differ); a multiple-pick blank's credits Moodle rescales are named and kept in the comment.
* What Moodle XML has no element for (a numerical range's exact bounds and preferred answer, a
  question's own difficulty, the quiz's id, title, language, difficulty and category as the
  source has them, `shuffle: false`, and what a file holding Moodle's defaults cannot tell from
  no setting: a name or penalty equal to the default, the number right without feedback texts)
  goes into `<!-- lmsexport... -->` comments, which Moodle's parser never reports and
  lmsexport.readers.moodlexml reads back, so `lmsexport check` proves the round trip lossless.
* An assessment (write_assessment) cannot be a Moodle quiz in a question format: its file puts
  each draw's questions in a category of their own, worth their points in the assessment, with
  instructions (lmsexport.moodle) to build the quiz from those categories.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import functools
import json
import math
import re
from dataclasses import replace
from fractions import Fraction
from typing import assert_never

from lxml import etree

from .. import formula as fm
from .. import variants
from ..errors import Diagnostic, MoodleXmlExportError, Severity
from ..media import MAX_IMAGE_BYTES, data_uri
from ..model import (
    MEDIA_EXTENSIONS,
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
    ListVariable,
    Matching,
    Math,
    Media,
    MultipleChoice,
    NumberBlank,
    Numerical,
    NumericKey,
    Ordering,
    OrderingSelect,
    Question,
    Quiz,
    ResponseFormat,
    Rich,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Text,
    TextBlank,
    TrueFalse,
    inlines_of,
    is_rtl,
    media_of,
    plain_text,
)
from ..moodle import (
    allowed_grade,
    draw_category_names,
    draw_instruction,
    format_number,
    format_percent,
    lang_span,
    nearest_grade,
    protect_tex,
    rebuild_instructions,
    rich_div,
    section_heading,
    text_to_html,
)
from ..moodlexml import (
    ASSESSMENT_META_PREFIX,
    CLOZE_CODE_NAMES,
    CLOZE_START,
    COMBINED_FEEDBACK_TYPES,
    HINT_PARTS_TYPES,
    HINTLESS_TYPES,
    MAX_DATASET_ITEMS,
    MAX_MOODLEXML_BYTES,
    META_PREFIX,
    NOINLINE_ATTACHMENTS,
    ORDERING_GRADINGS,
    PARAM_META,
    PENALTY,
    PLAIN_RESPONSE_FORMATS,
    PLUGINFILE,
    QTYPES,
    QUIZ_META_PREFIX,
    RESPONSE_FORMATS,
    SHOWUNITS_NONE,
    UNIT_GRADING,
    UNIT_INPUT,
    cloze_escape,
    find_formula_errors,
    format_fraction,
    midpoint,
    moodle_name,
    name_clean,
    question_name,
    wildcard_text,
    words_only,
)
from . import Output, WriteContext
from .richtext import Flavour, Renderer, spells_delimiter

FOLDER = "moodle"
"""Output folder: `moodle/<quiz-id>.xml`."""

MAX_MARK = 100000
"""question.defaultmark is DECIMAL(12,7) in Moodle's database: 5 digits before the point."""
TAG_MAX_CHARS = 50
"""Moodle's clean_param(PARAM_TAG) shortens a tag to TAG_MAX_LENGTH (50) characters."""


def _tex(formula: Math) -> str:
    # Moodle's MathJax filter (filter/mathjaxloader) typesets \(..\) and \[..\], never $..$.
    return f"\\[{formula.tex}\\]" if formula.display else f"\\({formula.tex}\\)"


FLAVOUR = Flavour(math=_tex, image_src=lambda image: PLUGINFILE + image.media.filename, protect_tex=True)
"""A rich text of a question: TeX for MathJax, each image a file of the text's own field."""
INFO_FLAVOUR = Flavour(math=_tex, image_src=lambda image: data_uri(image.media), protect_tex=True)
"""A category's description, which has no files in Moodle (qformat_xml::import_category() reads
only its text): images as data: URIs, which it shows (its question bank pages display the
description with format_text(..., noclean))."""


def _gap_placeholder(gap: Gap, parent: etree._Element) -> None:
    etree.SubElement(parent, _GAP_TAG, n=str(gap.n))


_GAP_TAG = "lmsexport-gap"
_GAP_ELEMENT = re.compile(f'<{_GAP_TAG} n="([0-9]+)"></{_GAP_TAG}>')
_CLOZE_FLAVOUR = Flavour(
    math=_tex,
    image_src=lambda image: PLUGINFILE + image.media.filename,
    protect_tex=True,
    gap=_gap_placeholder,
)
"""A cloze stem: as FLAVOUR, each gap an element replaced by its `{n:TYPE:...}` code afterwards
(the code's entity references must not be escaped again by the HTML serialiser)."""

_FILELESS = frozenset({"info", "responsetemplate"})
"""Fields Moodle keeps no files for (a category's description, an essay's response template):
their images are data: URIs (INFO_FLAVOUR)."""
_FORMULA_SOURCE = re.compile(r"\\[\[(]|\$\$")
"""What makes filter/mathjaxloader's text_filter::filter() treat a text as holding a formula."""
_BRACED_MARKUP = re.compile(r"\{[^}]*<[^}]*\}")
"""Markup between `{` and `}`, which text_filter::escape_html_tag_wrapper() then turns into text."""

_XML_SPECIAL = re.compile(r"[&<>\"']")
"""What makes qformat_xml::xml_escape() wrap a text in CDATA (htmlspecialchars() changes it)."""
_ESCAPED_BLANK_RUN = re.compile(r"[&<>][ \t\n]+[&<>]")
"""White space between two characters that become entity references when not in CDATA."""
_FORBIDDEN_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAG_DROPPED = re.compile(r"[\x00-\x1f\x7f<>`]")
"""clean_param(PARAM_TAG) removes control characters and < > `."""
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
"""A question without feedback by outcome, as Moodle exports one saved with its form's defaults:
empty texts and `<shownumcorrect/>` (question_edit_form::add_combined_feedback_fields() ticks
"Show the number of correct responses" by default)."""
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


def _grade(credit: float) -> Fraction:
    """A credit as the grade Moodle stores for it: the nearest one on its list."""
    return nearest_grade(Fraction(credit))


def _comment(prefix: str, data: dict[str, object]) -> etree._Comment:
    """`<!-- prefix {json} -->`; every `--` in a JSON string is broken with \\u002d (XML comments
    may not contain it)."""
    encoded = json.dumps(data, ensure_ascii=False, sort_keys=True)
    encoded = _JSON_STRING.sub(lambda m: m.group(0).replace("--", "-\\u002d"), encoded)
    return etree.Comment(f" {prefix} {encoded} ")


def _moodle_key(key: NumericKey) -> tuple[float, float, list[float] | None]:
    """A key as Moodle stores it: (answer, tolerance), and for a range its bounds (and preferred
    answer), which the metadata comment keeps. Moodle's key is answer +- tolerance
    (qtype_numerical_answer::get_tolerance_interval()): a range is its midpoint and half-width,
    computed in decimal so that [1.39, 1.42] is 1.405 +- 0.015 as an instructor would write it
    (and no bound near the float limit overflows); lmsexport.moodlexml.range_of() reads it back."""
    if key.low is not None and key.high is not None:
        bounds = [key.low, key.high] + ([key.answer] if key.answer is not None else [])
        return (*midpoint(key.low, key.high), bounds)
    assert key.answer is not None
    return key.answer, key.tolerance, None


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
    names = [name_clean(" ".join(n.split())) for n in raw]
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


def render_rich(text: Rich, lang: str | None, flavour: Flavour = FLAVOUR) -> str:
    """A rich text as the HTML of a Moodle XML text: the shared renderer's blocks, inside
    `<div lang=".." dir="..">` when `lang` is given (lmsexport.moodle.split_rich() reads both).
    Raises ValueError for text lxml refuses (control characters)."""
    holder = etree.Element("div", rich_div(lang) if lang is not None else {})
    Renderer(flavour).blocks(text, holder)
    out = etree.tostring(holder, encoding="unicode", method="html")
    return out if lang is not None else out[len("<div>") : -len("</div>")]


def _file(media: Media) -> etree._Element:
    """`<file name=".." path="/" encoding="base64">`, as qformat_xml::write_files() writes one. The
    content-addressed name (`<sha256[:16]>.<ext>`) is one that Moodle's file storage keeps as it
    is (clean_param(PARAM_FILE) removes only control characters and `&<>"`|':\\/`)."""
    el = etree.Element("file", {"name": media.filename, "path": "/", "encoding": "base64"})
    el.text = base64.b64encode(media.data).decode("ascii")
    return el


def _qtype(q: Question) -> str:
    """The `type` a question is written as: calculated / calculatedmulti for parametric ones."""
    if isinstance(q.body, Calculated):
        return "calculated"
    if isinstance(q.body, CalculatedChoice):
        return "calculatedmulti"
    return QTYPES[q.type]


def _places(text: str) -> int:
    return len(text.partition(".")[2])


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

    def rich(self, body: etree._Element, text: Text | None, what: str, lang: str | None = None) -> None:
        """The one place a formatted text in `lang` (default: the question's) becomes HTML in `body`,
        the `<text>` of its field; an absent text (no feedback) stays an empty `<text>`, as Moodle
        exports it.

        A plain text is the HTML that shows it exactly (text_to_html), in `<span lang dir>` when
        its language is right to left or not the quiz's. A rich text is the shared renderer's HTML
        blocks (FLAVOUR), in `<div lang dir>` likewise, and each image it shows is a `<file>` of
        the field (the element holding `body`), right after the `<text>`, as Moodle's exporter
        writes them (qformat_xml::write_files()): Moodle stores files per field
        (import_files_as_draft()), so an image shown in two fields is in both. A category's
        `<info>` has no files: its images are data: URIs (INFO_FLAVOUR).
        """
        if text is None:
            return
        lang = lang or self.lang
        marked = lang if _marked(lang, self.quiz.lang) else None
        if isinstance(text, Rich):
            self._rich(body, text, what, marked)
            return
        if not self._check_chars(text, what):
            return
        html_text = text_to_html(text)
        if marked is not None:
            html_text = lang_span(html_text, marked)
        if ("\\" in text or "$$" in text) and spells_delimiter(text):
            self._delimiter_warning(what)
            html_text = protect_tex(html_text)
        _set_text(body, html_text)

    def _rich(self, body: etree._Element, text: Rich, what: str, lang: str | None) -> None:
        container = body.getparent()
        assert container is not None
        files = container.tag not in _FILELESS
        self._check_tex(text, what)
        try:
            flavour = FLAVOUR if files else INFO_FLAVOUR
            if isinstance(self.q.body, Cloze) and container.tag == "questiontext":
                flavour = _CLOZE_FLAVOUR
            html_text = render_rich(text, lang, flavour)
            if flavour is _CLOZE_FLAVOUR:
                html_text = self._cloze_codes(html_text)
        except ValueError as e:  # lxml refuses what XML cannot hold; the loader does too
            self.error("moodlexml.control-character", f"{what} cannot be written as HTML: {e}")
            return
        if _FORMULA_SOURCE.search(html_text) and _BRACED_MARKUP.search(html_text):
            self.warn(
                "moodlexml.markup-in-braces",
                f"{what} has a formula and markup between '{{' and '}}': Moodle's MathJax filter then "
                "shows that markup as text (filter/mathjaxloader text_filter::escape_html_tag_wrapper())",
                "keep '{' and '}' inside one piece of code or one formula",
            )
        _set_text(body, html_text)
        anchor = body
        for f in self.__dict__.pop("_cloze_files", []) if container.tag == "questiontext" else []:
            anchor.addnext(f)
            anchor = f
        for media in media_of(text):
            if not self._check_media(media, what):
                continue
            if files:
                anchor.addnext(_file(media))
                anchor = anchor.getnext()  # type: ignore[assignment]
            elif container.tag == "info":
                self.warn(
                    "moodlexml.description-image",
                    f"{what} shows image {media.name or media.filename!r}, embedded as a data: URI: Moodle "
                    "keeps no files for a category's description; a site that forces content cleaning "
                    "($CFG->forceclean) removes it",
                )
            else:
                self.warn(
                    "moodlexml.template-image",
                    f"{what} shows image {media.name or media.filename!r}, embedded as a data: URI: Moodle "
                    "keeps no files for an essay's response template (qformat_xml::import_essay() reads its "
                    "text only); its editor may drop it",
                )

    def _check_media(self, media: Media, what: str) -> bool:
        """Whether an image can be embedded (the loader has checked it; a model built otherwise may
        not be): a type the bank allows, within lmsexport.media's size limit."""
        if media.mime not in MEDIA_EXTENSIONS:
            self.error(
                "moodlexml.bad-image", f"{what}: image {media.name!r} is {media.mime}, not an image type"
            )
            return False
        if len(media.data) > MAX_IMAGE_BYTES:
            self.error(
                "moodlexml.bad-image",
                f"{what}: image {media.name!r} is {len(media.data):,} bytes; "
                f"the limit is {MAX_IMAGE_BYTES:,}",
            )
            return False
        return True

    def _check_tex(self, text: Rich, what: str) -> None:
        """Formulas are TeX between MathJax's delimiters, so a formula may not hold its own closing
        delimiter; text that spells a delimiter is warned about (and kept from MathJax)."""
        literal = False
        for x in inlines_of(text):
            if isinstance(x, Math):
                closing = "\\]" if x.display else "\\)"
                if closing in x.tex or not x.tex.strip():
                    self.error(
                        "moodlexml.unwritable",
                        f"{what} has the formula {x.tex!r}, which MathJax cannot read between "
                        f"{closing[:1]}{'[' if x.display else '('} and {closing}",
                    )
            elif isinstance(x, Str) and spells_delimiter(x.text):
                literal = True
        if literal:
            self._delimiter_warning(what, "write it as code (in backticks), which MathJax leaves alone")

    def _delimiter_warning(self, what: str, hint: str | None = None) -> None:
        self.warn(
            "moodlexml.math-delimiter-in-text",
            f"{what} contains a MathJax delimiter (\\( \\) \\[ \\] or $$) as text: it is marked so that "
            "Moodle's MathJax and TeX filters leave it alone (tex2jax_ignore), but editing the text in "
            "Moodle's editor may undo that, and then it is typeset as a formula",
            hint,
        )

    def field(
        self, parent: etree._Element, tag: str, text: Text | None, what: str, lang: str | None = None
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
        qtype = _qtype(q)
        self.qtype = qtype
        el = _copy(parent, _QUESTION)
        el.set("type", qtype)
        self.meta: dict[str, object] = {}
        """What Moodle XML has no element for, written in the `<!-- lmsexport: -->` comment."""
        self._name(el[0][0])
        if isinstance(q.body, Calculated | CalculatedChoice):
            # Moodle's own wildcards from here on: {name} stays, {{ and }} are literal braces.
            q = self.q = self._wildcard_texts(q, q.body)
        self.rich(el[1][0], q.stem, "the stem")
        self.rich(el[2][0], q.explanation, "the explanation")
        el[3].text = self._mark()
        el[4].text = self._penalty()
        el[6].text = q.id
        if q.difficulty is not None:
            self.meta["difficulty"] = q.difficulty.value
        match q.body:
            case SingleChoice() | MultipleChoice() as body:
                self._multichoice(el, body)
            case TrueFalse() as body:
                self._truefalse(el, body)
            case ShortAnswer() as body:
                self._shortanswer(el, body)
            case Numerical() as body:
                self._numerical(el, body)
            case Matching() as body:
                self._matching(el, body)
            case Essay() as body:
                self._essay(el, body)
            case Cloze() as body:
                self._cloze(el, body)
            case Ordering() as body:
                self._ordering(el, body)
            case Description():
                pass  # qformat_xml::import_description(): the headers only, mark 0
            case Calculated() as body:
                self._calculated(el, body)
            case CalculatedChoice() as body:
                self._calculatedmulti(el, body)
            case _:
                assert_never(q.body)
        if qtype not in COMBINED_FEEDBACK_TYPES and qtype != "calculated":
            self._feedback_not_carried(el)
        elif (
            qtype == "ordering"
            and self.q.feedback.show_num_correct
            and not any(
                x is not None
                for x in (self.q.feedback.correct, self.q.feedback.partial, self.q.feedback.incorrect)
            )
        ):
            self.meta["show_num_correct"] = True
        self._hints(el)
        self._tags(el)
        if self.meta:
            el.insert(0, _comment(META_PREFIX, self.meta))

    def _name(self, body: etree._Element) -> None:
        """`<name>`: the question's own name, else the one derived from its stem (question_name())."""
        q = self.q
        derived = question_name(q)
        if q.name is None:
            self.plain(body, derived, "the name")
            return
        if q.name == derived:
            # The reader takes a name equal to the derived one for no name: say it was set.
            self.meta["named"] = True
        name = q.name
        if plain_text_problem(name):
            # What Moodle's parser cannot read back exactly (`]]>` among markup, a carriage return)
            # is written as a derived name is; lmsexport's comment keeps the name.
            name = name_clean(name.replace("\r", " "))
            self.meta["name"] = q.name
        stored = moodle_name(name)
        if stored != q.name:
            self.warn(
                "moodlexml.name-changed",
                f"Moodle stores the name {q.name!r} as {stored!r} (qformat_default::clean_question_name(): "
                "no tags, at most 255 characters)",
            )
        self.plain(body, name, "the name")

    def _mark(self) -> str:
        points = self.q.points
        if isinstance(self.q.body, Description):
            return "0"  # import_description() sets the mark 0
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

    def _penalty(self) -> str:
        """`<penalty>`: the question's own, else what Moodle's form saves for its type (PENALTY)."""
        penalty, default = self.q.penalty, PENALTY[self.qtype]
        if penalty is None:
            return default
        if not (math.isfinite(penalty) and 0 <= penalty <= 1):
            self.error("moodlexml.bad-penalty", f"has the penalty {penalty!r}; a penalty is from 0 to 1")
            return default
        text, rounded = format_fraction(penalty)
        if abs(penalty - 0.3333333) < 0.005 and text != "0.3333333":
            # import_headers() takes any penalty this close for 0.3333333 (old files' rounding),
            # which stands for 1/3: lmsexport's comment keeps the penalty.
            self.meta["penalty"] = penalty
            if f"{penalty:.7f}" != "0.3333333":
                self.warn(
                    "moodlexml.penalty-changed",
                    f"has the penalty {penalty!r}, which Moodle's importer reads as 0.3333333",
                    "use 1/3 (0.3333333), or a penalty further from it",
                )
        elif rounded:
            self.warn(
                "moodlexml.penalty-rounded",
                f"has the penalty {penalty!r}; Moodle keeps 7 decimals ({penalty:.7f})",
            )
        if text == default:
            # The reader takes the type's default for no penalty: say it was set.
            self.meta["penalty"] = penalty
        return text

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

    def _fractions(self, credits: tuple[float, ...], what: str) -> list[Fraction] | None:
        """Credits as the grades Moodle stores (the nearest on its list), warning when one is not on
        the list; None (an error) for a credit that is not a number from -1 to 1."""
        if not all(math.isfinite(c) and -1 <= c <= 1 for c in credits):
            self.error("moodlexml.bad-credit", f"has a credit that is not a number from -1 to 1: {credits!r}")
            return None
        fractions = [_grade(c) for c in credits]
        if any(allowed_grade(Fraction(c)) is None for c in credits):
            self.warn(
                "moodlexml.inexact-weights",
                f"{what} cannot be written exactly with Moodle's grades; wrote "
                + ", ".join(f"{format_percent(f)}%" for f in fractions),
            )
        return fractions

    def _combined_feedback(self, el: etree._Element) -> None:
        """`<correctfeedback>`, `<partiallycorrectfeedback>`, `<incorrectfeedback>` and
        `<shownumcorrect/>` (qformat_xml::import_combined_feedback())."""
        fb = self.q.feedback
        if not fb:
            _append(el, _COMBINED_FEEDBACK)
            return
        self.field(el, "correctfeedback", fb.correct, "the feedback for a right response")
        self.field(el, "partiallycorrectfeedback", fb.partial, "the feedback for a partly right response")
        self.field(el, "incorrectfeedback", fb.incorrect, "the feedback for a wrong response")
        if fb.show_num_correct:
            _sub(el, "shownumcorrect")
            if fb.correct is None and fb.partial is None and fb.incorrect is None:
                # Written as Moodle's default, which reads back as no feedback: say it was set.
                self.meta["show_num_correct"] = True

    def _feedback_not_carried(self, el: etree._Element) -> None:
        """Feedback by outcome on a type Moodle gives none: written (lmsexport reads it back), but
        Moodle's importer never reads it."""
        fb = self.q.feedback
        if not fb:
            return
        if any(x is not None for x in (fb.correct, fb.partial, fb.incorrect)):
            self.warn(
                "moodlexml.feedback-not-carried",
                f"has feedback for a right, partly right or wrong response, which Moodle's {self.qtype} "
                "questions do not have (qformat_xml reads it for multiple choice and matching only): "
                "Moodle's importer ignores it",
                "put what it says in the explanation or the answers' feedback",
            )
        self._combined_feedback(el)

    def _hints(self, el: etree._Element) -> None:
        """`<hint format="html"><text/><shownumcorrect/><clearwrong/></hint>` (import_hints())."""
        hints = self.q.hints
        if not hints:
            return
        if self.qtype in HINTLESS_TYPES:
            self.warn(
                "moodlexml.hints-not-carried",
                f"has hints, which Moodle's {self.qtype} questions do not have (qformat_xml::import_essay() "
                "reads none): Moodle's importer ignores them",
            )
        elif self.qtype not in HINT_PARTS_TYPES and any(h.show_num_correct or h.clear_wrong for h in hints):
            self.warn(
                "moodlexml.hint-options-not-carried",
                "has hints that show the number of right responses or clear the wrong ones; Moodle keeps "
                f"those options for multiple choice and matching only, its {self.qtype} questions keep the "
                "hints' texts (question_type::save_hints() without parts)",
            )
        for n, hint in enumerate(hints, 1):
            container = self.field(el, "hint", hint.text, f"hint {n}")
            if hint.show_num_correct:
                _sub(container, "shownumcorrect")
            if hint.clear_wrong:
                _sub(container, "clearwrong")

    def _shuffle(self) -> str:
        return "true" if self.quiz.shuffle else "false"

    def _multichoice(self, el: etree._Element, body: SingleChoice | MultipleChoice) -> None:
        choices = body.choices
        if len(choices) < 2:
            self.error(
                "moodlexml.too-few-choices",
                f"has {len(choices)} choice(s); Moodle's multichoice type refuses fewer than 2",
            )
        single = isinstance(body, SingleChoice)
        fractions: list[Fraction] | None
        if isinstance(body, MultipleChoice) and not body.key_indexes:
            self.error("moodlexml.bad-key", "has no correct choice")
            fractions = [_grade(c) if math.isfinite(c) else Fraction(0) for c in body.credits]
        elif isinstance(body, MultipleChoice) and body.default_credits:
            fractions = [_grade(c) for c in body.credits]
            if any(allowed_grade(Fraction(c)) is None for c in body.credits):
                n_correct = len(body.key_indexes)
                right = fractions[body.key_indexes[0]]
                wrong = next((f for f, c in zip(fractions, choices, strict=True) if not c.earns), Fraction(0))
                self.warn(
                    "moodlexml.inexact-weights",
                    f"{n_correct} correct / {len(choices) - n_correct} wrong choices cannot be weighted "
                    f"exactly with Moodle's grades; wrote {format_percent(right)}% and "
                    f"{format_percent(wrong)}%",
                )
        else:
            fractions = self._fractions(body.credits, "choice credits")
        _sub(el, "single", "true" if single else "false")
        _sub(el, "shuffleanswers", self._shuffle())
        _sub(el, "answernumbering", "abc")
        _sub(el, "showstandardinstruction", "0")
        self._combined_feedback(el)
        fractions = fractions or [Fraction(0)] * len(choices)
        for n, (choice, fraction) in enumerate(zip(choices, fractions, strict=True), 1):
            self._choice(el, choice, fraction, n)

    def _choice(self, el: etree._Element, choice: Choice, fraction: Fraction, n: int) -> None:
        answer = self._answer(el, fraction, _HTML_ANSWER)
        # The feedback first: the choice's files go between its <text> and the <feedback>.
        self.rich(answer[1][0], choice.feedback, f"the feedback of choice {n}")
        self.rich(answer[0], choice.text, f"choice {n}", choice.lang)

    def _truefalse(self, el: etree._Element, body: TrueFalse) -> None:
        # import_truefalse() recognises the answers by their texts `true` and `false`; each one's
        # feedback is shown for that response (qtype_truefalse feedbacktrue / feedbackfalse).
        for value, feedback in ((True, body.feedback_true), (False, body.feedback_false)):
            answer = self._answer(el, Fraction(int(value == body.truth)), _PLAIN_ANSWER)
            answer[0].text = "true" if value else "false"
            self.rich(answer[1][0], feedback, f"the feedback for the response {answer[0].text!r}")

    def _other(self, el: etree._Element, feedback: Text, numerical: bool = False) -> None:
        """Feedback for any other response: Moodle's last answer `*` at 0 % (a `*` matches every
        response: compare_string_with_wildcard(), qtype_numerical_answer::within_tolerance())."""
        answer = self._answer(el, Fraction(0), _PLAIN_ANSWER)
        answer[0].text = "*"
        self.rich(answer[1][0], feedback, "the feedback for any other answer")
        if numerical:
            _sub(answer, "tolerance", "0")

    def _shortanswer(self, el: etree._Element, body: ShortAnswer) -> None:
        if not body.answers:
            self.error("moodlexml.no-answer", "has no accepted answer")
        _sub(el, "usecase", "1" if body.case_sensitive else "0")
        fractions = self._fractions(tuple(a.credit for a in body.answers), "answer credits") or []
        for n, (accepted, fraction) in enumerate(zip(body.answers, fractions, strict=True), 1):
            text = accepted.text
            answer = self._answer(el, fraction, _PLAIN_ANSWER)
            stored = wildcard_text(text, accepted.wildcard)
            if stored is None:
                self.error(
                    "moodlexml.unwritable",
                    f"accepted answer {n} {text!r} is a wildcard answer with a '\\' right before a '*', "
                    "which Moodle reads as a literal '*'",
                )
                stored = text
            self.plain(answer[0], stored, f"accepted answer {n} {text!r}")
            self.rich(answer[1][0], accepted.feedback, f"the feedback of answer {n}")
        if body.other_feedback is not None:
            self._other(el, body.other_feedback)

    def _numerical(self, el: etree._Element, body: Numerical) -> None:
        if not body.keys:
            self.error("moodlexml.no-answer", "has no numeric key")
            return
        for key in body.keys:
            values = [v for v in (key.answer, key.tolerance, key.low, key.high) if v is not None]
            if not all(math.isfinite(v) for v in values):
                self.error("moodlexml.not-a-number", "has a numeric key that is not a finite number")
                return
        fractions = self._fractions(tuple(k.credit for k in body.keys), "key credits")
        if fractions is None:
            return
        ranges: list[list[float] | None] = []
        for n, (key, fraction) in enumerate(zip(body.keys, fractions, strict=True), 1):
            value, tolerance, bounds = _moodle_key(key)
            ranges.append(bounds)
            answer = self._answer(el, fraction, _PLAIN_ANSWER)
            answer[0].text = format_number(value)
            self.rich(answer[1][0], key.feedback, f"the feedback of key {n}")
            _sub(answer, "tolerance", format_number(tolerance))
        if len(ranges) == 1 and ranges[0] is not None:
            # One key (as every bank had before keys had credits): its range and preferred answer.
            self.meta["range"] = ranges[0][:2]
            if len(ranges[0]) == 3:
                self.meta["answer"] = ranges[0][2]
        elif any(r is not None for r in ranges):
            self.meta["ranges"] = ranges
        if body.other_feedback is not None:
            self._other(el, body.other_feedback, numerical=True)
        self._units(el, body)

    def _units(self, el: etree._Element, body: Numerical) -> None:
        """`<units>` and the unit options, as qformat_xml::writequestion() writes them."""
        if body == Numerical(keys=body.keys, other_feedback=body.other_feedback):
            _append(el, _NO_UNITS)
            return
        if body.units:
            units = _sub(el, "units")
            seen: set[str] = set()
            for n, unit in enumerate(body.units, 1):
                if not (math.isfinite(unit.multiplier) and unit.multiplier != 0):
                    self.error(
                        "moodlexml.bad-unit",
                        f"unit {unit.name!r} has the multiplier {unit.multiplier!r}; Moodle drops a unit "
                        "whose multiplier is empty or 0 (qtype_numerical::save_units())",
                    )
                if unit.name in seen:
                    self.warn(
                        "moodlexml.unit-repeated",
                        f"unit {unit.name!r} is listed twice; Moodle keeps the first",
                    )
                seen.add(unit.name)
                u = _sub(units, "unit")
                _sub(
                    u, "multiplier", format_number(unit.multiplier) if math.isfinite(unit.multiplier) else "0"
                )
                self.plain(_sub(u, "unit_name"), unit.name, f"unit {n}")
        _sub(el, "unitgradingtype", str(UNIT_GRADING[body.unit_grading]))
        penalty = body.unit_penalty
        if not (math.isfinite(penalty) and 0 <= penalty <= 1):
            self.error("moodlexml.bad-penalty", f"has the unit penalty {penalty!r}; a penalty is from 0 to 1")
            penalty = 0.1
        text, rounded = format_fraction(penalty)
        if rounded:
            self.warn(
                "moodlexml.penalty-rounded",
                f"has the unit penalty {penalty!r}; Moodle keeps 7 decimals ({penalty:.7f})",
            )
        _sub(el, "unitpenalty", text)
        _sub(el, "showunits", str(UNIT_INPUT[body.unit_input] if body.units else SHOWUNITS_NONE))
        _sub(el, "unitsleft", "1" if body.units_left else "0")

    def _matching(self, el: etree._Element, body: Matching) -> None:
        if len(body.pairs) < 2:
            self.error(
                "moodlexml.too-few-pairs",
                f"has {len(body.pairs)} pair(s); a matching question needs at least 2",
            )
        elif len(body.pairs) + len(body.distractors) < 3:
            self.warn(
                "moodlexml.match-form-minimum",
                "has 2 pairs and no distractor: Moodle imports it, but its editing form refuses to save "
                "a matching question with fewer than 3 answers",
                "add a distractor",
            )
        rights = {p.right for p in body.pairs}
        for d in body.distractors:
            if d in rights:
                self.warn(
                    "moodlexml.distractor-merged",
                    f"distractor {d!r} is also a right-hand item; Moodle shows identical answers once",
                )
        _sub(el, "shuffleanswers", self._shuffle())
        self._combined_feedback(el)
        for n, pair in enumerate(body.pairs, 1):
            sub = _copy(el, _SUBQUESTION)
            self.plain(sub[1][0], pair.right, f"the right item of pair {n}")
            # After the answer: the left item's files go between its <text> and the <answer>.
            self.rich(sub[0], pair.left, f"the left item of pair {n}")
        for n, text in enumerate(body.distractors, 1):
            # Moodle's way to store a distractor: a subquestion with an empty text.
            sub = _copy(el, _SUBQUESTION)
            self.plain(sub[1][0], text, f"distractor {n}")

    # -- cloze, ordering -------------------------------------------------------------------

    def _html_of(self, text: Text | None, what: str, lang: str | None = None) -> str:
        """A formatted text as the HTML Moodle stores for it; its images' files collected for
        the question text's field (a cloze subquestion's texts live in the question text)."""
        if text is None:
            return ""
        holder = etree.Element("feedback")
        body = _sub(holder, "text")
        self.rich(body, text, what, lang)
        files = self.__dict__.setdefault("_cloze_files", [])
        names = {f.get("name") for f in files}
        for f in holder.findall("file"):
            if f.get("name") not in names:
                files.append(f)
                names.add(f.get("name"))
        return body.text or ""

    def _percent(self, credit: float, what: str) -> str | None:
        """A credit as a cloze code's `%n%` (Moodle stores the fraction with 7 decimals; no grade
        list applies to subquestions: qformat_default::importprocess() checks top-level fractions)."""
        if not (math.isfinite(credit) and -1 <= credit <= 1):
            self.error("moodlexml.bad-credit", f"{what} has the credit {credit!r}, not a number from -1 to 1")
            return None
        return format_percent(Fraction(round(credit, 7)).limit_denominator(10**7))

    def _cloze_codes(self, html_text: str) -> str:
        """The stem's HTML with each gap's `{n:TYPE:...}` code (qtype_multianswer_extract_question()
        reads them back), and every `{` Moodle would take for a code's start as `&#123;`."""
        body = self.q.body
        assert isinstance(body, Cloze)
        html_text = CLOZE_START.sub("&#123;", html_text)

        def code(m: re.Match[str]) -> str:
            n = int(m.group(1))
            if not 1 <= n <= len(body.blanks):
                self.error("moodlexml.bad-gap", f"the stem has gap {n}, which has no blank")
                return ""
            return self._cloze_code(n, body.blanks[n - 1])

        return _GAP_ELEMENT.sub(code, html_text)

    def _cloze_code(self, n: int, blank: TextBlank | NumberBlank | ChoiceBlank) -> str:
        what = f"blank {n}"
        if blank.weight < 1:
            self.error(
                "moodlexml.bad-weight",
                f"{what} has the weight {blank.weight}; Moodle's is a whole number >= 1",
            )
        alts: list[str] = []
        match blank:
            case TextBlank():
                name = CLOZE_CODE_NAMES[("shortanswer", blank.case_sensitive, False, False)]
                if not any(a.credit == 1 for a in blank.answers):
                    self.error(
                        "moodlexml.cloze-no-full-credit",
                        f"{what} has no answer worth 100%: Moodle refuses the question "
                        "(qtype_multianswer_validate_question(): fractionsnomax)",
                    )
                for k, a in enumerate(blank.answers, 1):
                    stored = wildcard_text(a.text, a.wildcard)
                    if stored is None:
                        self.error(
                            "moodlexml.unwritable",
                            f"{what}: answer {a.text!r} is a wildcard answer with a '\\' right before a '*'",
                        )
                        stored = a.text
                    if not stored.strip():
                        self.error("moodlexml.empty-answer", f"{what}: answer {k} is empty")
                    pct = self._percent(a.credit, f"{what}: answer {k}")
                    feedback = self._html_of(a.feedback, f"the feedback of answer {k} of {what}")
                    alts.append(self._alternative(pct, stored, feedback))
                if blank.other_feedback is not None:
                    alts.append(
                        self._alternative(
                            "0", "*", self._html_of(blank.other_feedback, f"{what}'s other feedback")
                        )
                    )
            case NumberBlank():
                name = CLOZE_CODE_NAMES[("numerical", None, False, False)]
                if not any(k.credit == 1 for k in blank.keys):
                    self.error(
                        "moodlexml.cloze-no-full-credit",
                        f"{what} has no key worth 100%: Moodle refuses the question "
                        "(qtype_multianswer_validate_question(): fractionsnomax)",
                    )
                ranges: list[list[float] | None] = []
                for k, key in enumerate(blank.keys, 1):
                    values = [v for v in (key.answer, key.tolerance, key.low, key.high) if v is not None]
                    if not all(math.isfinite(v) for v in values):
                        self.error("moodlexml.not-a-number", f"{what}: key {k} is not a finite number")
                        continue
                    value, tolerance, bounds = _moodle_key(key)
                    ranges.append(bounds)
                    pct = self._percent(key.credit, f"{what}: key {k}")
                    feedback = self._html_of(key.feedback, f"the feedback of key {k} of {what}")
                    number = format_number(value) + (f":{format_number(abs(tolerance))}" if tolerance else "")
                    alts.append(self._alternative(pct, number, feedback, escape=False))
                if any(r is not None for r in ranges):
                    self.meta.setdefault("blank_ranges", {})[str(n)] = ranges  # type: ignore[index]
                if blank.other_feedback is not None:
                    alts.append(
                        self._alternative(
                            "0", "*", self._html_of(blank.other_feedback, f"{what}'s other feedback")
                        )
                    )
            case ChoiceBlank():
                if blank.multiple and blank.display is ChoiceDisplay.DROPDOWN:
                    self.error(
                        "moodlexml.bad-display",
                        f"{what} takes several picks but is a drop-down list; Moodle's MULTIRESPONSE is "
                        "vertical or horizontal check boxes",
                    )
                display = (
                    "vertical"
                    if blank.multiple and blank.display is ChoiceDisplay.DROPDOWN
                    else blank.display.value
                )
                name = CLOZE_CODE_NAMES[("multichoice", display, blank.shuffle, blank.multiple)]
                if len(blank.choices) < 2:
                    self.error(
                        "moodlexml.too-few-choices",
                        f"{what} has {len(blank.choices)} choice(s); Moodle needs 2",
                    )
                if blank.multiple:
                    total = sum(c.credit for c in blank.choices if c.credit > 0)
                    if not blank.key_indexes:
                        self.error(
                            "moodlexml.cloze-no-full-credit", f"{what} has no choice that earns credit"
                        )
                    elif abs(total - 1) > 1e-6:
                        # lmsexport's comment keeps the credits as written (its reader takes them).
                        credits = self.meta.setdefault("blank_credits", {})
                        credits[str(n)] = [c.credit for c in blank.choices]  # type: ignore[index]
                        self.warn(
                            "moodlexml.cloze-credits-rescaled",
                            f"{what}: the positive credits add up to {total:g}; Moodle divides each by their "
                            "sum (qtype_multianswer_extract_question())",
                        )
                elif not blank.key_indexes:
                    self.error(
                        "moodlexml.cloze-no-full-credit",
                        f"{what} has no choice worth 100%: Moodle refuses the question (fractionsnomax)",
                    )
                for k, c in enumerate(blank.choices, 1):
                    pct = self._percent(c.credit, f"{what}: choice {k}")
                    if blank.multiple and pct == "0":
                        pct = "0.0"  # a `%0%` alone would make Moodle give the wrong choices -100% / n
                    text = self._html_of(c.text, f"choice {k} of {what}", c.lang)
                    if not text.strip():
                        self.error("moodlexml.empty-answer", f"{what}: choice {k} is empty")
                    feedback = self._html_of(c.feedback, f"the feedback of choice {k} of {what}")
                    alts.append(self._alternative(pct, text, feedback))
            case _:
                assert_never(blank)
        weight = "" if blank.weight == 1 else str(max(blank.weight, 0))
        return "{" + f"{weight}:{name}:" + "~".join(alts) + "}"

    @staticmethod
    def _alternative(pct: str | None, answer: str, feedback: str, escape: bool = True) -> str:
        prefix = "=" if pct == "100" else f"%{pct or '0'}%"
        out = prefix + (cloze_escape(answer) if escape else answer)
        if feedback:
            out += "#" + cloze_escape(feedback)
        return out

    def _cloze(self, el: etree._Element, body: Cloze) -> None:
        """qformat_xml::import_multianswer(): the question text holds the subquestions; the mark is
        the sum of the blanks' weights (`<defaultgrade>` is not read, nor written by Moodle's
        exporter); hints with their options; no feedback by outcome."""
        gaps = [x.n for x in inlines_of(self.q.stem) if isinstance(x, Gap)]
        if gaps != list(range(1, len(body.blanks) + 1)):
            self.error(
                "moodlexml.bad-gap",
                f"the stem's gaps are {gaps}, not 1 to {len(body.blanks)} once each in order",
            )
        if not isinstance(self.q.stem, Rich):
            self.error("moodlexml.bad-gap", "a cloze stem must be a rich text with gaps")
        total = body.total_weight
        if self.q.points != total:
            self.warn(
                "moodlexml.cloze-mark-not-carried",
                f"is worth {self.q.points:g} points, but Moodle gives a cloze question the sum of its "
                f"blanks' "
                f"weights ({total}) as its mark (qtype_multianswer_extract_question(); <defaultgrade> is "
                "not read): set the mark in the quiz",
            )

    def _ordering(self, el: etree._Element, body: Ordering) -> None:
        """The options as qtype_ordering::export_to_xml() writes them, the feedback by outcome, the
        items as `<answer>`s in their right order (save_question_options() numbers them so)."""
        n = len(body.items)
        if n < 2:
            self.error("moodlexml.too-few-items", f"has {n} item(s); Moodle's ordering needs at least 2")
        select = {
            OrderingSelect.ALL: "ALL",
            OrderingSelect.RANDOM: "RANDOM",
            OrderingSelect.CONTIGUOUS: "CONTIGUOUS",
        }[body.select]
        count = body.select_count if body.select is not OrderingSelect.ALL else n
        if body.select is not OrderingSelect.ALL and not 2 <= count < n:
            self.error(
                "moodlexml.bad-select", f"shows {count} of {n} items; Moodle shows from 2 to all of them"
            )
        _sub(el, "layouttype", body.layout.value.upper())
        _sub(el, "selecttype", select)
        _sub(el, "selectcount", str(max(count, 2)))
        _sub(el, "gradingtype", ORDERING_GRADINGS[body.grading.value])
        _sub(el, "showgrading", "SHOW" if body.show_grading else "HIDE")
        _sub(el, "numberingstyle", body.numbering.value)
        fb = self.q.feedback
        self.field(el, "correctfeedback", fb.correct, "the feedback for a right response")
        self.field(el, "partiallycorrectfeedback", fb.partial, "the feedback for a partly right response")
        self.field(el, "incorrectfeedback", fb.incorrect, "the feedback for a wrong response")
        # import_from_xml() reads <shownumcorrect>'s value (an empty element is 0).
        _sub(el, "shownumcorrect", "1" if fb.show_num_correct else "0")
        plains: set[str] = set()
        for k, item in enumerate(body.items, 1):
            answer = _sub(el, "answer", fraction=str(k), format="html")
            self.rich(_sub(answer, "text"), item, f"item {k}")
            shown = plain_text(item)
            if shown in plains:
                self.warn(
                    "moodlexml.items-alike",
                    f"item {k} reads like an earlier one: learners cannot tell them apart",
                )
            plains.add(shown)

    def _essay(self, el: etree._Element, body: Essay) -> None:
        """The essay's options as qformat_xml::writequestion() writes them (import_essay())."""
        if body == Essay():
            _append(el, _ESSAY_OPTIONS)
            return
        _sub(el, "responseformat", RESPONSE_FORMATS[body.response_format])
        _sub(el, "responserequired", "1" if body.required else "0")
        if body.lines < 1:
            self.error(
                "moodlexml.bad-essay", f"has a response box of {body.lines} lines; Moodle needs at least 1"
            )
        _sub(el, "responsefieldlines", str(body.lines))
        for tag, limit in (("minwordlimit", body.min_words), ("maxwordlimit", body.max_words)):
            if limit is None:
                continue
            if limit < 1:
                # import_essay(): an empty or 0 limit is no limit (minwordenabled = !empty(...)).
                self.error("moodlexml.bad-essay", f"has the word limit {limit}; Moodle reads 0 as no limit")
            _sub(el, tag, str(limit))
        allowed, required = str(body.attachments), str(body.attachments_required)
        if body.response_format is ResponseFormat.NONE and not body.attachments:
            # A response of attached files only: Moodle's form requires one allowed and required
            # (the loader asks for them; a quiz made in code may lack them).
            allowed = required = NOINLINE_ATTACHMENTS
        _sub(el, "attachments", allowed)
        _sub(el, "attachmentsrequired", required)
        # Written only when set, as files before them were: without them import_essay() keeps
        # no size limit (maxbytes 0, the course's) and any file type (filetypeslist null).
        if body.max_bytes:
            _sub(el, "maxbytes", str(body.max_bytes))
        if body.file_types:
            _sub(el, "filetypeslist", ",".join(body.file_types))
        self.field(el, "graderinfo", body.grader_info, "the grader information")
        template = body.template
        if template is None or body.response_format not in PLAIN_RESPONSE_FORMATS:
            # An HTML template (the editor, and no box at all): no files (import_essay() reads
            # only its text), so its images are data: URIs, as in a category's description.
            self.field(el, "responsetemplate", template, "the response template")
            return
        # A plain box shows the template's text as it is (qtype_essay_format_plain_renderer).
        container = _sub(el, "responsetemplate", format="plain_text")
        if isinstance(template, Rich):
            self.meta["template_rich"] = True
            words = words_only(template)
            if words is None:
                self.warn(
                    "moodlexml.template-markup-not-carried",
                    "the response template has markup, but Moodle's "
                    f"{RESPONSE_FORMATS[body.response_format]} response box shows a template's text as it "
                    "is: written as plain text",
                    "write the template as plain text, or use response_format: editor",
                )
                words = plain_text(template)
                # lmsexport's comment keeps the template itself (its images as data: URIs).
                lang = self.lang if _marked(self.lang, self.quiz.lang) else None
                # (Text XML cannot hold is refused with the template's text, by plain().)
                with contextlib.suppress(ValueError):
                    self.meta["template_html"] = render_rich(template, lang, INFO_FLAVOUR)
            template = words
        self.plain(_sub(container, "text"), template, "the response template")

    # -- calculated, calculatedmulti (issue 24) --------------------------------------------

    def _wildcard_texts(self, q: Question, body: Calculated | CalculatedChoice) -> Question:
        """The question with its texts as Moodle reads them: every `{name}` placeholder stays
        `{name}` (Moodle substitutes the dataset item's value: qtype_calculated_variable_substituter
        ::replace_expressions_in_text()), `{{` and `}}` become the braces they stand for. A literal
        `{name}` or `{=` left that way would be taken for a wildcard or a formula by Moodle."""
        names = [v.name for v in body.params.variables] + [d.name for d in body.params.derived]
        keep = {n: "{" + n + "}" for n in names}
        literal = re.compile(r"\{\{=|\{\{(" + "|".join(re.escape(n) for n in names) + r")\}\}")

        def sub(text: Text | None) -> Text | None:
            if text is None:
                return None
            if literal.search(plain_text(text) if isinstance(text, Rich) else text):
                self.warn(
                    "moodlexml.literal-wildcard",
                    "a text has a literal {name} or {= in braces, which Moodle takes for a wildcard or "
                    "a formula and replaces",
                    "reword the text without braces around a variable's name",
                )
            try:
                return variants.substitute_text(text, keep)
            except variants.SubstitutionError as e:
                self.error("moodlexml.bad-placeholder", f"a text cannot be written: {e.message}", e.hint)
                return text

        fb = q.feedback
        new_body: Calculated | CalculatedChoice = body
        if isinstance(body, CalculatedChoice):
            new_body = replace(
                body, choices=tuple(replace(c, feedback=sub(c.feedback)) for c in body.choices)
            )
        return replace(
            q,
            stem=sub(q.stem) or "",
            explanation=sub(q.explanation),
            feedback=replace(
                fb, correct=sub(fb.correct), partial=sub(fb.partial), incorrect=sub(fb.incorrect)
            ),
            hints=tuple(replace(h, text=sub(h.text) or "") for h in q.hints),
            body=new_body,
        )

    def _kept_variants(self, body: Calculated | CalculatedChoice) -> tuple[variants.Variant, ...]:
        """The variants Moodle keeps: at most MAX_DATASET_ITEMS (the first ones, with a warning)."""
        kept = body.variants
        if not kept:
            self.error("moodlexml.no-variants", "is parametric but has no variants")
        if len(kept) > MAX_DATASET_ITEMS:
            self.warn(
                "moodlexml.variants-over-limit",
                f"has {len(kept)} variants; Moodle keeps at most {MAX_DATASET_ITEMS} dataset items per "
                f"wildcard (qtype_calculated MAX_DATASET_ITEMS): wrote the first {MAX_DATASET_ITEMS}",
                f"ask for at most {MAX_DATASET_ITEMS} variants",
            )
            kept = kept[:MAX_DATASET_ITEMS]
        return kept

    def _moodle_formula(
        self, body: Calculated | CalculatedChoice, formula: variants.Formula, what: str
    ) -> str:
        """A formula in Moodle's syntax, over the variables only (derived values inlined: Moodle
        stores the values shown, rounded, and the answer needs them at full precision), checked
        with qtype_calculated_find_formula_errors()."""
        definitions: dict[str, fm.Expr] = {}
        try:
            for d in body.params.derived:
                definitions[d.name] = variants.inline(fm.parse(d.formula.text), definitions)
            text = fm.to_moodle(variants.inline(fm.parse(formula.text), definitions))
        except fm.FormulaError as e:
            self.error(
                "moodlexml.bad-formula", f"{what} {formula.text!r} cannot be written for Moodle: {e.message}"
            )
            return "0"
        problem = find_formula_errors(text)
        if problem:
            self.error(
                "moodlexml.bad-formula",
                f"{what} written as {text!r} is refused by Moodle's formula check ({problem})",
            )
        return text

    def _calc_answer(
        self,
        el: etree._Element,
        fraction: Fraction,
        text: str,
        tolerance: variants.Tolerance,
        decimals: int,
        html: bool,
    ) -> etree._Element:
        """`<answer>` with the four fields import_calculated() reads by direct access (required)."""
        answer = _sub(el, "answer", fraction=_fraction(fraction), **({"format": "html"} if html else {}))
        _set_text(_sub(answer, "text"), text)
        kind, value = variants.moodle_tolerance(tolerance)
        _sub(answer, "tolerance", value)
        _sub(answer, "tolerancetype", str(kind))
        _sub(answer, "correctanswerformat", "1")  # decimals (2 would be significant figures)
        _sub(answer, "correctanswerlength", str(decimals))
        return answer

    def _calc_header(self, el: etree._Element, single: bool) -> None:
        """synchronize 0 (private datasets), single, answernumbering, shuffleanswers, combined feedback."""
        _sub(el, "synchronize", "0")
        _sub(el, "single", "1" if single else "0")
        _sub(el, "answernumbering", "abc")
        _sub(el, "shuffleanswers", "1" if self.qtype == "calculatedmulti" and self.quiz.shuffle else "0")
        if self.qtype == "calculated":
            fb = self.q.feedback
            if any(x is not None for x in (fb.correct, fb.partial, fb.incorrect)):
                self.warn(
                    "moodlexml.feedback-not-carried",
                    "has feedback for a right, partly right or wrong response, which Moodle's calculated "
                    "questions store but never show (qtype_calculated_question is a numerical question)",
                    "put what it says in the explanation",
                )
        self._combined_feedback(el)

    def _calculated(self, el: etree._Element, body: Calculated) -> None:
        """Moodle's `calculated` (qformat_xml::import_calculated()): the answer formula, its
        tolerance and decimals, units, and one private dataset per variable and derived value."""
        kept = self._kept_variants(body)
        self._calc_header(el, True)
        text = self._moodle_formula(body, body.answer, "the answer formula")
        self._calc_answer(el, Fraction(1), text, body.tolerance, body.decimals, False)
        answer = el[-1]
        _append(answer, (_HTML_ANSWER[1],))
        self._units(el, Numerical(keys=(), units=body.units))
        self._datasets(el, body, kept)
        self._param_meta(body, kept)

    def _calculatedmulti(self, el: etree._Element, body: CalculatedChoice) -> None:
        """Moodle's `calculatedmulti`: each choice `{=formula}`, shown with `decimals` places
        (replace_expressions_in_text() with correctanswerlength, correctanswerformat 1)."""
        kept = self._kept_variants(body)
        if len(body.choices) < 2:
            self.error("moodlexml.too-few-choices", f"has {len(body.choices)} choice(s); Moodle needs 2")
        self._calc_header(el, not body.multiple)
        fractions = self._fractions(tuple(c.credit for c in body.choices), "choice credits")
        fractions = fractions or [Fraction(0)] * len(body.choices)
        for n, (choice, fraction) in enumerate(zip(body.choices, fractions, strict=True), 1):
            text = self._moodle_formula(body, choice.formula, f"the formula of choice {n}")
            answer = self._calc_answer(el, fraction, "{=" + text + "}", body.tolerance, body.decimals, True)
            self.field(answer, "feedback", choice.feedback, f"the feedback of choice {n}")
        self._units(el, Numerical(keys=()))
        self._datasets(el, body, kept)
        self._param_meta(body, kept)

    def _datasets(
        self, el: etree._Element, body: Calculated | CalculatedChoice, kept: tuple[variants.Variant, ...]
    ) -> None:
        """`<dataset_definitions>`: a private dataset (status private, a new dataset of this
        question only: qtype_calculated::import_datasets()) per variable, and per derived value
        so that `{name}` in a text shows lmsexport's value with its decimals; itemcount = K items
        numbered 1..K, in every dataset (get_num_variants() is the smallest itemcount)."""
        params = body.params
        shown = [variants.shown_values(params, v) for v in kept]
        defs = _sub(el, "dataset_definitions")
        k = str(len(kept))
        entries: list[tuple[str, float, float, int]] = []
        for v in params.variables:
            if isinstance(v, ListVariable):
                texts = [fm.format_value(x, v.decimals) for x in v.values]
                decimals = v.decimals if v.decimals is not None else max(map(_places, texts), default=0)
                entries.append((v.name, min(v.values), max(v.values), decimals))
            else:
                entries.append((v.name, v.low, v.high, v.decimals))
        for d in params.derived:
            values = [x for var in kept for n, x in var.values if n == d.name]
            decimals = (
                d.decimals if d.decimals is not None else max((_places(s[d.name]) for s in shown), default=0)
            )
            entries.append((d.name, min(values, default=0.0), max(values, default=0.0), decimals))
        for name, low, high, decimals in entries:
            definition = _sub(defs, "dataset_definition")
            _set_text(_sub(_sub(definition, "status"), "text"), "private")
            _set_text(_sub(_sub(definition, "name"), "text"), name)
            _sub(definition, "type", "calculated")
            _set_text(_sub(_sub(definition, "distribution"), "text"), "uniform")
            _set_text(_sub(_sub(definition, "minimum"), "text"), fm.format_value(low, decimals))
            _set_text(_sub(_sub(definition, "maximum"), "text"), fm.format_value(high, decimals))
            _set_text(_sub(_sub(definition, "decimals"), "text"), str(decimals))
            _sub(definition, "itemcount", k)
            items = _sub(definition, "dataset_items")
            for n, item_values in enumerate(shown, 1):
                item = _sub(items, "dataset_item")
                _sub(item, "number", str(n))
                _sub(item, "value", item_values[name])
            _sub(definition, "number_of_items", k)

    def _param_meta(self, body: Calculated | CalculatedChoice, kept: tuple[variants.Variant, ...]) -> None:
        """What Moodle XML has no element for: the variables' ranges or lists, the derived values'
        and choices' formulas, the constraints, the answer as written, the count asked for."""
        params = body.params
        variables: list[dict[str, object]] = []
        for v in params.variables:
            if isinstance(v, ListVariable):
                variables.append({"name": v.name, "values": list(v.values), "decimals": v.decimals})
            else:
                variables.append(
                    {"name": v.name, "low": v.low, "high": v.high, "step": v.step, "decimals": v.decimals}
                )
        data: dict[str, object] = {
            "variables": variables,
            "derived": [
                {"name": d.name, "formula": d.formula.text, "decimals": d.decimals} for d in params.derived
            ],
            "constraints": [c.formula.text for c in params.constraints],
            "count": params.count,
        }
        if isinstance(body, Calculated):
            data["answer"] = body.answer.text
        else:
            data["choices"] = [c.formula.text for c in body.choices]
        self.meta[PARAM_META] = data


def _category(
    root: etree._Element, path: str, quiz: Quiz, info: Text | None, what: str, diagnostics: list[Diagnostic]
) -> None:
    """A category question: `path` becomes the current category (created with `info` as its
    description when it does not exist: qformat_default::create_category_path())."""
    category = _sub(root, "question", type="category")
    _set_text(_sub(_sub(category, "category"), "text"), path)
    if info is not None:
        about = Question(id=quiz.id, stem="", body=Essay(), loc=quiz.loc)
        header = _QuestionWriter(quiz, about, what)
        header.field(category, "info", info, "the description", quiz.lang)
        diagnostics.extend(header.diagnostics)


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
    # The quiz's description becomes the category's description (create_category_path()).
    _category(root, path, quiz, quiz.description, f"quiz {quiz.id!r}", diagnostics)


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


# --------------------------------------------------------------------------- assessments


def as_in_assessment(assessment: Assessment, draw: Draw, candidate: Candidate) -> Question:
    """A question as an assessment's Moodle XML file holds it, and as it reads back from there.

    The file has no home quizzes, so each question stands in the assessment's context: its `lang`
    is set only where it differs from the assessment's, its `difficulty` is the one it has in its
    home quiz (its own, else the quiz's), and its `points` are what it is worth in this draw (the
    draw's `points` override, else its own), written as its `<defaultgrade>`: a question added to
    a Moodle quiz from the bank keeps its default mark (mod/quiz/locallib.php
    quiz_add_quiz_question()). Everything else is the bank's question.
    """
    home, q = candidate.quiz, candidate.question
    lang = home.lang_of(q)
    return replace(
        q,
        lang=lang if lang != assessment.lang else None,
        difficulty=home.difficulty_of(q),
        points=draw.points_of(q),
    )


def assessment_category_path(assessment: Assessment, n: int, draw_index: int) -> str:
    """The category of draw `draw_index` of section `n` (both 1-based):
    `$course$/top/<assessment id>/<n>. <section title>/<draw name>`, the names of
    lmsexport.moodle.draw_category_names(), as GIFT writes them."""
    section = assessment.sections[n - 1]
    names = draw_category_names(assessment, n, section, section.draws[draw_index - 1])
    return category_path([name_clean(" ".join(name.split())) for name in names])


def shown_path(path: str) -> str:
    """A category path as Moodle's question bank lists it: no context, no `top`."""
    return path.removeprefix("$course$/top/").replace("//", "/")


def _comment_text(lines: list[str]) -> str:
    """Lines as the body of an XML comment, one indented line each: `--` (which a comment may not
    hold) is broken with a space."""
    body = "\n".join(f"  {line}".rstrip() for line in lines)
    while "--" in body:
        body = body.replace("--", "- -")
    return f"\n{body}\n"


def write_assessment(assessment: Assessment) -> tuple[bytes, list[Diagnostic]]:
    """One assessment as a Moodle XML file: its questions, one category per draw under the
    assessment's own category, with instructions to build the quiz in Moodle; plus every
    diagnostic found on the way.

    The questions' own warnings are left to their quizzes' files (the same questions, the same
    losses); their errors are kept, so no broken file is ever written.
    """
    diagnostics: list[Diagnostic] = []
    where = assessment.loc or SourceLoc(assessment.id)
    context = Quiz(id=assessment.id, title=assessment.title, lang=assessment.lang, questions=(), loc=where)
    paths: dict[tuple[int, int], str] = {}
    sections: list[dict[str, object]] = []
    for n, section in enumerate(assessment.sections, 1):
        draws: list[dict[str, object]] = []
        for k, draw in enumerate(section.draws, 1):
            paths[n, k] = assessment_category_path(assessment, n, k)
            draws.append(
                {
                    "name": draw.name,
                    "category": paths[n, k],
                    "random": draw.is_random,
                    "pick": draw.pick,
                    "points": draw.points,
                }  # fmt: skip
            )
            if draw.points is not None and round(draw.points, 7) != draw.points:
                diagnostics.append(
                    Diagnostic(
                        draw.loc or where,
                        f"assessment {assessment.id!r}: draw {draw.name!r} is worth {draw.points!r} points a "
                        f"question; Moodle keeps 7 decimals ({draw.points:.7f})",
                        Severity.WARNING,
                        "moodlexml.mark-rounded",
                    )
                )
        sections.append({"title": section.title, "shuffle": section.shuffle, "draws": draws})
    root = etree.Element("quiz")
    root.append(
        etree.Comment(
            f" {assessment.id}: Moodle XML written by lmsexport. Import it into the question bank with "
            "'Get category from file' ticked, then build the quiz as the next comment says. "
        )
    )
    shown = {key: shown_path(path) for key, path in paths.items()}
    root.append(etree.Comment(_comment_text(rebuild_instructions(assessment, shown, "moodlexml"))))
    meta: dict[str, object] = {"id": assessment.id, "title": assessment.title, "lang": assessment.lang}
    meta["sections"] = sections
    root.append(_comment(ASSESSMENT_META_PREFIX, meta))
    # The assessment's own category holds its description (as a quiz's category does).
    own = category_path([name_clean(assessment.id)])
    _category(root, own, context, assessment.description, f"assessment {assessment.id!r}", diagnostics)
    for n, section in enumerate(assessment.sections, 1):
        for k, draw in enumerate(section.draws, 1):
            info = (
                section_heading(assessment.lang, n, section)
                + "\n"
                + draw_instruction(assessment.lang, draw, shown[n, k])
            )
            _category(root, paths[n, k], context, info, f"assessment {assessment.id!r}", diagnostics)
            for candidate in draw.candidates:
                home = replace(candidate.quiz, lang=assessment.lang)
                qw = _QuestionWriter(home, as_in_assessment(assessment, draw, candidate))
                qw.write(root)
                diagnostics.extend(d for d in qw.diagnostics if d.severity is Severity.ERROR)
    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    return data, diagnostics


def _size_warning(path: str, data: bytes, loc: SourceLoc) -> list[Diagnostic]:
    """Images make a file large (base64 adds a third): warn past what lmsexport reads back."""
    if len(data) <= MAX_MOODLEXML_BYTES:
        return []
    return [
        Diagnostic(
            loc,
            f"{path} is {len(data):,} bytes, over the {MAX_MOODLEXML_BYTES:,} bytes lmsexport reads back as "
            "Moodle XML (its images are in it); the site's upload limit may refuse it too",
            Severity.WARNING,
            "moodlexml.file-too-large",
            "split the quiz, or use smaller images",
        )
    ]


def write(bank: Bank, ctx: WriteContext) -> Output:
    """The Moodle XML writer: one file per quiz and per assessment. Raises MoodleXmlExportError
    with every error of the bank, else returns the files."""
    out = Output()
    errors: list[Diagnostic] = []
    written = [(f"{FOLDER}/{q.id}.xml", write_quiz(q), q.loc) for q in bank.quizzes]
    written += [(f"{FOLDER}/{a.id}.xml", write_assessment(a), a.loc) for a in bank.assessments]
    for path, (data, diagnostics), loc in written:
        errors.extend(d for d in diagnostics if d.severity is Severity.ERROR)
        out.warnings.extend(d for d in diagnostics if d.severity is Severity.WARNING)
        out.warnings.extend(_size_warning(path, data, loc or SourceLoc(path)))
        out.files[path] = data
    if errors:
        raise MoodleXmlExportError(errors)
    return out
