"""Read Moodle XML the way Moodle's importer does, into the model.

`read_moodlexml` follows moodle/moodle question/format/xml/format.php (qformat_xml:
readquestions, import_question, import_headers, getpath, import_text_with_files,
import_<type>), question/format.php (qformat_default::importprocess,
create_category_path, split_category_path) and the question types' save_question_options(),
and reports, each at its line, what Moodle refuses or silently changes:

* refused (errors): XML that is not well-formed; a DOCTYPE (never parsed: no DTD, no entity is
  ever expanded, as for packages); a root that is not `<quiz>`; a question without
  `<name><text>` (xmlimportnoname: nothing is imported); raw markup inside a `<text>`
  (invalidxml, "use CDATA?"); a question type that standard Moodle lacks (xmltypeunsupported:
  the whole file stops there); a grade not on Moodle's list (importprocess() refuses the
  file); a multiple choice with fewer than two answers, a short answer with no answer worth
  100 %, a numerical question with no number, a matching question with fewer than two pairs or
  with a left item but no right one, a number Moodle cannot read, a `<file>` path that does not
  start and end with `/`, or a file name Moodle changes;
* imported as they are, though probably not meant (warnings worded as the loader's): a
  single-answer question with no answer worth 100 % or several, a numerical question whose best
  key is worth less, multi-answer weights that do not add up to 100 %;
* silently changed (warnings): `<single>False</single>` (only `false`, `0` or empty mean no, so
  it is single-answer), empty answers (dropped), white space around an ID number (kept),
  `$cat1$/...` categories (not a context Moodle's importer knows: a category literally named
  `$cat1$`), a category question without `<category><text>`, references to files that are not
  there, what Moodle's importer does not read for a question's type (feedback by outcome on a
  true/false question, an essay's hints...: ignored, except in lmsexport's own files).

`read_quiz` then maps the questions onto the model (`Quiz`), as lmsexport.readers.gift does:
the question id is the ID number, `<span lang dir>` and `<div lang dir>` wrappers give the
languages back, rich HTML (a text that starts with a block element) is read into the model's
tree by readers/richhtml.py with its images from the field's `<file>`s, checked as the loader
checks image files (lmsexport.media), and `<!-- lmsexport... -->` comments written by
lmsexport.writers.moodlexml restore what Moodle XML has no element for. `to_model` is the one
mapping of a question's body, name, penalty, feedback and hints, which the import
(readers/moodle_import.py) shares: credits as the exact fractions Moodle's grades stand for,
answer feedback, wildcards and the feedback for any other answer, numerical keys and units,
essay options; a file holding Moodle's defaults gives the model's defaults. A file from
elsewhere is read leniently; what the model has no place for (headings, styles, files no
image shows) is dropped with a warning. An assessment's file reads as the quiz of its questions (`read_quiz`)
or as the assessment (`read_assessment`). The file is untrusted input: it is parsed by
validate.parse_untrusted (no DTD, no entities, no network) within the limits below
(docs/security.md).

Cloze questions (`cloze`, `multianswer`) are taken apart by lmsexport.moodlexml.parse_cloze()
(qtype_multianswer_extract_question()'s regexes) and judged by cloze_problems()
(qtype_multianswer_validate_question(), which stops Moodle's import); each code becomes a Gap of
the stem. gapselect and ddwtos questions are read as cloze questions with a drop-down blank per
`[[n]]` gap (its group's choices; ddwtos's dragging named as lost); orderings with
qtype_ordering's options and defaults (set_options_for_import()); descriptions worth 0.

Calculated questions (`calculated`, `calculatedsimple`, `calculatedmulti`: import_calculated())
become Calculated / CalculatedChoice with their dataset items as the variants (variants.draw with
`given`), the formulas through formula.from_moodle(), the texts' `{name}` as placeholders and
`{=...}` as derived values; what the model lacks is named (docs/moodle-xml.md, "Calculated
questions").
"""

from __future__ import annotations

import functools
import math
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from pathlib import PurePosixPath
from typing import Any, Protocol

from lxml import etree

from .. import formula as fm
from .. import variants
from ..errors import Diagnostic, MoodleXmlError, Severity, SourceError
from ..media import MediaError, decode_base64, media_from_bytes, media_from_data_uri
from ..model import (
    Answer,
    Assessment,
    Block,
    Body,
    BulletList,
    CalcChoice,
    Calculated,
    CalculatedChoice,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Code,
    CodeBlock,
    Constraint,
    Derived,
    Description,
    Difficulty,
    Emph,
    Essay,
    Formula,
    Gap,
    Hint,
    Inline,
    Layout,
    LineBreak,
    Link,
    ListVariable,
    Matching,
    Math,
    Media,
    MultipleChoice,
    NumberBlank,
    Numbering,
    Numerical,
    NumericKey,
    OrderedList,
    Ordering,
    OrderingGrading,
    OrderingSelect,
    OutcomeFeedback,
    Pair,
    Para,
    Parameters,
    Question,
    Quiz,
    RangeVariable,
    ResponseFormat,
    Rich,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Strong,
    Table,
    Text,
    TextBlank,
    Tolerance,
    ToleranceKind,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
    Variable,
    Variant,
    default_multiple_credits,
    exact_credit,
    inlines_of,
    plain_text,
)
from ..moodle import (
    FILE_TYPE_RE,
    allowed_grade,
    assessment_from_meta,
    file_types_of,
    format_percent,
    has_markup,
    html_to_plain,
    nearest_grade,
    parse_meta,
    split_lang,
    split_rich,
    split_tex_ignore,
)
from ..moodlexml import (
    ASSESSMENT_META_PREFIX,
    CALCULATED_TYPES,
    CLOZE_BROKEN,
    COMBINED_FEEDBACK_TYPES,
    DEFAULT_DATASET,
    FORMULAS_IN_TEXT,
    HINT_PARTS_TYPES,
    HINTLESS_TYPES,
    MAX_MOODLEXML_BYTES,
    META_PREFIX,
    NOINLINE_ATTACHMENTS,
    ORDERING_GRADING_ALIASES,
    ORDERING_GRADINGS,
    ORDERING_NUMBERINGS,
    PARAM_META,
    PENALTY,
    PLUGINFILE,
    QUIZ_META_PREFIX,
    RESPONSE_FORMATS,
    SHOWUNITS_NONE,
    TOLERANCE_TYPES,
    UNIT_GRADING,
    UNIT_INPUT,
    ClozeSub,
    GapMarks,
    cloze_problems,
    find_formula_errors,
    gap_marks,
    is_midpoint,
    parse_cloze,
    question_name,
    read_fraction,
    read_wildcard,
    rich_of_words,
)
from ..records import Maker
from ..validate import parse_without_dtd
from .richhtml import read_html

MAX_MOODLEXML_QUESTIONS = 20_000
"""Most `<question>` elements (categories included) read from one file; the GIFT reader's limit."""
MAX_MOODLEXML_ERRORS = 100
"""Reading stops after this many errors."""

_PHP_TRIM = " \t\n\r\0\x0b"
_PHP_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
"""What qtype_numerical_answer_processor::apply_units() takes for a number (without units)."""
_PHP_LEADING_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""The start of a string PHP's arithmetic reads as a number (with a warning) instead of failing."""
_ID_RE = re.compile(r"[A-Za-z][A-Za-z0-9._-]*\Z")
_CONTEXT = re.compile(r"\$([a-z]+)\$\Z")
"""create_category_path(): the only context prefix Moodle's importer recognises."""
_PLUGINFILE = re.compile(r"@@PLUGINFILE@@/([^\"'<>\s?#]+)")
_PARAM_FILE_DROPS = re.compile(r"[\x00-\x1f\x7f&<>\"`|':\\/]")
"""clean_param(PARAM_FILE): what Moodle's file storage removes from a file name."""
_NO_WORDS = frozenset({"false", "no", "off", "f", "n"})

FORMATS = {
    "moodle_auto_format": "moodle",
    "html": "html",
    "plain_text": "plain",
    "wiki_like": "wiki",
    "markdown": "markdown",
}
"""qformat_xml::trans_format(): a `format` attribute -> the text format (unknown: html)."""

MODEL_TYPES = frozenset(
    {
        "multichoice", "truefalse", "shortanswer", "numerical", "matching", "match", "essay",
        "cloze", "multianswer", "ordering", "description", "gapselect", "ddwtos",
        "calculated", "calculatedsimple", "calculatedmulti",
    }
)  # fmt: skip
"""Types the model holds (import_question() takes `match` and `matching` alike)."""
SKIPPED_TYPES = frozenset(
    {
        "ddimageortext", "ddmarker", "randomsamatch",
    }
)  # fmt: skip
"""Standard Moodle types (format.php, or a standard plugin's import_from_xml()) with no place in
the model: skipped with a warning."""


# -- what Moodle reads ------------------------------------------------------------------


@dataclass(frozen=True)
class MoodleFile:
    """A `<file>` of a text field: its path and name in the field's file area, its base64 text."""

    path: str
    name: str
    data: str = field(repr=False)
    loc: SourceLoc | None = None


@dataclass(frozen=True)
class MoodleText:
    """A text field as Moodle stores it: trimmed text, its format, and its files."""

    text: str
    format: str
    """moodle, html, plain, wiki or markdown."""
    loc: SourceLoc
    files: tuple[MoodleFile, ...] = ()

    def plain_and_lang(self) -> tuple[str, str | None]:
        """The text as shown, and the language lmsexport's wrapper names (or None)."""
        if self.format != "html":
            return self.text, None
        lang, inner = split_lang(split_tex_ignore(self.text))
        return html_to_plain(inner), lang

    @property
    def has_markup(self) -> bool:
        return self.format == "html" and has_markup(self.text)


@dataclass(frozen=True)
class MoodleAnswer:
    text: MoodleText
    fraction: Fraction
    feedback: MoodleText | None
    tolerance: str | None = None


@dataclass(frozen=True)
class MoodleHint:
    """A `<hint>` as import_hint() reads it: its text and options (present or not)."""

    text: MoodleText
    show_num_correct: bool = False
    clear_wrong: bool = False


@dataclass(frozen=True)
class MoodleUnit:
    """A `<unit>` of a numerical question that qtype_numerical::save_units() keeps."""

    name: str
    multiplier: float


@dataclass(frozen=True)
class MoodleEssay:
    """An essay's options as import_essay() reads them (Moodle's defaults where absent)."""

    response_format: str = "editor"
    required: bool = True
    lines: int = 15
    min_words: int | None = None
    max_words: int | None = None
    attachments: int = 0
    attachments_required: int = 0
    file_types: str = ""
    """`<filetypeslist>` as written (empty or absent: any file)."""
    max_bytes: int = 0
    grader_info: MoodleText | None = None
    template: MoodleText | None = None


@dataclass(frozen=True)
class MoodleCalcAnswer:
    """An `<answer>` of a calculated question as import_calculated() reads it."""

    text: MoodleText
    """The formula (calculated, calculatedsimple) or the choice's text with `{=...}` (calculatedmulti)."""
    fraction: Fraction
    feedback: MoodleText | None
    tolerance: float
    tolerance_type: int
    answer_format: int
    """correctanswerformat: 1 decimals, 2 significant figures."""
    answer_length: int


@dataclass(frozen=True)
class MoodleDataset:
    """A `<dataset_definition>` (all its fields read by direct access: required)."""

    name: str
    status: str
    minimum: float
    maximum: float
    decimals: int
    itemcount: int
    items: dict[int, str]
    """item number -> the value as stored."""
    loc: SourceLoc


@dataclass(frozen=True)
class MoodleCalc:
    """What a calculated, calculatedsimple or calculatedmulti question has beyond the headers."""

    synchronize: int
    single: bool
    answers: tuple[MoodleCalcAnswer, ...]
    datasets: tuple[MoodleDataset, ...]
    has_definitions: bool
    """Whether `<dataset_definitions>` is there at all."""


@dataclass(frozen=True)
class MoodleQuestion:
    """One `<question>` as qformat_xml::import_question() reads it."""

    qtype: str
    loc: SourceLoc
    name: str = ""
    text: MoodleText | None = None
    general_feedback: MoodleText | None = None
    mark: float = 1.0
    penalty: float | None = None
    """`<penalty>` as written (None when absent: Moodle's default, 0.3333333)."""
    idnumber: str | None = None
    tags: tuple[str, ...] = ()
    single: bool = True
    shuffle: bool | None = None
    case_sensitive: bool = False
    answers: tuple[MoodleAnswer, ...] = ()
    subquestions: tuple[tuple[MoodleText, str], ...] = ()
    truth: bool | None = None
    truefalse_feedback: tuple[MoodleText | None, MoodleText | None] = (None, None)
    """The feedback of the answers `true` and `false`."""
    feedback: tuple[MoodleText | None, MoodleText | None, MoodleText | None] = (None, None, None)
    """`<correctfeedback>`, `<partiallycorrectfeedback>`, `<incorrectfeedback>`."""
    show_num_correct: bool = False
    """Whether `<shownumcorrect/>` is there (import_combined_feedback())."""
    hints: tuple[MoodleHint, ...] = ()
    units: tuple[MoodleUnit, ...] = ()
    unit_grading: int = 0
    unit_penalty: float = 0.1
    show_units: int | None = None
    units_left: bool = False
    essay: MoodleEssay | None = None
    category: str | None = None
    info: MoodleText | None = None
    meta: dict[str, object] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()
    """What Moodle keeps but the model has no place for (file attachments, unit instructions...)."""
    cloze: tuple[ClozeSub, ...] = ()
    calc: MoodleCalc | None = None
    """A cloze question's subquestions, in order (its text holds marks.mark(k) for each)."""
    marks: GapMarks = GapMarks()
    """What the text of a cloze, gapselect or ddwtos question holds around each blank's number."""
    ordering: tuple[str, str, int, str, bool, str] | None = None
    """An ordering's layout, select type, select count, grading, show grading and numbering, as
    qtype_ordering::set_options_for_import() reads them."""
    gaps: tuple[int, ...] = ()
    """gapselect / ddwtos: the right choice (1-based) of each gap, in text order."""
    drops: tuple[tuple[str, int, bool], ...] = ()
    """gapselect / ddwtos: each choice's text, group and (ddwtos) whether it is unlimited."""
    old_image: tuple[str, str] | None = field(default=None, compare=False, repr=False)
    """Moodle 1.9's `<image>` name and `<image_base64>` data, which Moodle shows after the
    question text (import keeps it)."""


@dataclass
class MoodleXmlFile:
    """Every question of a file (categories included) and the warnings."""

    questions: list[MoodleQuestion] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    meta: dict[str, object] = field(default_factory=dict)
    """lmsexport's `<!-- lmsexport-quiz: {...} -->`, when the file has one."""
    skipped: list[tuple[str, SourceLoc, str]] = field(default_factory=list)
    """(type, where, name) of each question of a type the model lacks, left out."""
    assessment_meta: dict[str, object] = field(default_factory=dict)
    """lmsexport's `<!-- lmsexport-assessment: {...} -->` (an assessment's file), when it has one."""


def _trim(s: str) -> str:
    return s.strip(_PHP_TRIM)


MAX_NUMBER_CHARS = 100
"""Longest number text read: a float needs ~25 characters; 5,000 digits would hit Python's
integer-conversion limit (and PHP reads them as INF)."""


def php_number(raw: str) -> float | None:
    """A finite number as Moodle reads it from a trimmed text, or None (not a number, or not finite)."""
    if len(raw) > MAX_NUMBER_CHARS or not _PHP_NUMBER.match(raw):
        return None
    value = float(raw)
    return value if math.isfinite(value) else None


def _comment_meta(el: etree._Element, prefix: str) -> dict[str, object]:
    for comment in el.iterchildren(etree.Comment):
        body = (comment.text or "").strip()
        if body.startswith(prefix):
            return parse_meta(body[len(prefix) :])
    return {}


@functools.lru_cache(maxsize=1024)
def _grade_of(raw: str) -> tuple[Fraction, Fraction | None]:
    """A fraction attribute (a PHP number, checked) as a Fraction of 1, and the allowed grade
    Moodle takes it for (None: refused). Cached: a bank's answers have few distinct fractions,
    and the Fraction arithmetic was ~10 % of reading a file back."""
    percent = Fraction(raw) if "e" not in raw.lower() else Fraction(float(raw))
    value = percent / 100
    return value, allowed_grade(value)


def _first(el: etree._Element, tag: str) -> etree._Element | None:
    # el.find(tag) for a plain tag, by lxml's C iterator rather than its ElementPath (in Python):
    # half the time, and this runs ~30 times a question reading a file back.
    return next(el.iterchildren(tag), None)


_evolve = Maker(MoodleQuestion).evolve
"""``dataclasses.replace`` for a MoodleQuestion (~35 fields), quickly (records.py): four times a
question when a file is read back (check's round trip)."""


class _Reader:
    """Reads the questions of one file, collecting diagnostics."""

    def __init__(self, path: str, lenient: bool = False, own: bool = False) -> None:
        self.path = path
        self.lenient = lenient
        """Import: a type the model lacks, standard or not, is left out (recorded in ``skipped``)."""
        self.own = own
        """The file is lmsexport's (its metadata is there): what lmsexport writes where Moodle reads
        nothing (feedback by outcome on a true/false question...) is read back too."""
        self.skipped: list[tuple[str, SourceLoc, str]] = []
        self.diags: list[Diagnostic] = []
        self.dropped: list[str] = []
        self.bad_fraction = False
        """Whether an answer of the current question has a fraction Moodle refuses (reported)."""
        self._question: etree._Element | None = None
        self._children: dict[object, etree._Element] = {}
        """The current question's first child of each tag (self.first)."""

    def first(self, el: etree._Element, tag: str) -> etree._Element | None:
        """``_first(el, tag)``: for the question being read, from a map of its children made once
        (a question is asked for ~15 of them), else by lxml's iterator."""
        if el is self._question:
            return self._children.get(tag)
        return _first(el, tag)

    def loc(self, at: etree._Element | SourceLoc) -> SourceLoc:
        return at if isinstance(at, SourceLoc) else SourceLoc(self.path, at.sourceline or 0)

    def error(self, at: etree._Element | SourceLoc, message: str, rule: str, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(self.loc(at), message, Severity.ERROR, rule, hint))

    def warn(self, at: etree._Element | SourceLoc, message: str, rule: str, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(self.loc(at), message, Severity.WARNING, rule, hint))

    # -- getpath() ------------------------------------------------------------------------

    def string(self, el: etree._Element, what: str) -> str:
        """getpath(..., istext=true): the element's text, trimmed; child elements are refused."""
        if len(el) == 0:  # no children at all (the usual case): its text is all there is
            return _trim(el.text or "")
        child = next((c for c in el if isinstance(c.tag, str)), None)
        if child is not None:
            self.error(
                child,
                f"{what}: <{el.tag}> holds a <{child.tag}> element; Moodle expects text here and "
                "refuses the file ('string expected (use CDATA?)')",
                "moodlexml.markup-in-text",
                "escape the HTML, or put it in a CDATA section",
            )
        return _trim("".join(el.itertext()))

    def text_child(self, container: etree._Element | None, what: str, crashes: bool = False) -> str | None:
        """The `<text>` of a container (`<name>`, `<answer>`...), or None when it has none.

        Text directly in the container is not read: getpath() finds no `<text>` and Moodle sees
        nothing, except where format.php indexes the string itself (`crashes`: the category and
        its description), which is a PHP TypeError that stops the import."""
        if container is None:
            return None
        text = _first(container, "text")
        if text is None:
            bare = _trim(container.text or "")
            if bare:
                effect = "Moodle's import crashes on it (PHP TypeError)" if crashes else "Moodle sees nothing"
                self.error(
                    container,
                    f"{what}: the text is directly in <{container.tag}>; Moodle reads it only from a "
                    f"<text> child: {effect}",
                    "moodlexml.bare-text",
                    f"write <{container.tag}><text>...</text></{container.tag}>",
                )
                if crashes:
                    return bare
            return None
        return self.string(text, what)

    def field(
        self, container: etree._Element | None, what: str, default_format: str = "html"
    ) -> MoodleText | None:
        """import_text_with_files(): text, format and files of a formatted field."""
        if container is None:
            return None
        text = self.text_child(container, what) or ""
        fmt = FORMATS.get(_trim(container.get("format", "")) or default_format, "html")
        files = self.files(container, text, what)
        return MoodleText(text, fmt, self.loc(container), files)

    def files(self, container: etree._Element, text: str, what: str) -> tuple[MoodleFile, ...]:
        """import_files_as_draft(): each `<file>` of a field, checked as Moodle's file storage does."""
        files: list[MoodleFile] = []
        seen: set[str] = set()
        for f in container.iterchildren("file"):
            name = _trim(f.get("name", ""))
            path = _trim(f.get("path", "/")) or "/"
            if not (path.startswith("/") and path.endswith("/")):
                self.error(
                    f,
                    f"{what}: file path {path!r} does not start and end with '/'; Moodle's file "
                    "storage throws and the import fails",
                    "moodlexml.file-path",
                )
            cleaned = _PARAM_FILE_DROPS.sub("", name)
            if cleaned in ("", ".", ".."):
                self.error(
                    f,
                    f"{what}: file name {name!r} is not a name Moodle can store; the import fails",
                    "moodlexml.file-name",
                )
            elif cleaned != name:
                self.error(
                    f,
                    f"{what}: Moodle stores file {name!r} as {cleaned!r}, so every "
                    f"@@PLUGINFILE@@/{name} link to it breaks",
                    "moodlexml.file-name",
                )
            if path + name in seen:
                self.error(
                    f,
                    f"{what}: a second file {name!r} in path {path!r}: Moodle's import fails on it (versions "
                    "that skip duplicates keep the first)",
                    "moodlexml.duplicate-file",
                )
            if path + name not in seen:
                files.append(MoodleFile(path, name, "".join(f.itertext()), self.loc(f)))
            seen.add(path + name)
        for ref in _PLUGINFILE.findall(text) if "@@PLUGINFILE@@" in text else ():
            if "/" + urllib.parse.unquote(ref) not in seen:
                self.warn(
                    container,
                    f"{what}: links to @@PLUGINFILE@@/{ref}, but no <file> of that name is in "
                    "this field: a broken image in Moodle",
                    "moodlexml.missing-file",
                )
        return tuple(files)

    def flag(self, el: etree._Element, tag: str, default: str, what: str, severity: Severity) -> bool:
        """trans_single(): only `false`, `0` or empty mean no; anything else (`False`!) means yes."""
        child = self.first(el, tag)
        raw = default if child is None else _trim("".join(child.itertext()))
        value = not (raw == "false" or raw in ("", "0"))
        if value and raw.lower() in _NO_WORDS:
            report = self.error if severity is Severity.ERROR else self.warn
            report(
                child if child is not None else el,
                f"<{tag}>{raw}</{tag}>: Moodle reads it as true ({what}); only 'false', '0' or empty mean no",
                "moodlexml.false-is-true",
                f"write <{tag}>false</{tag}>",
            )
        return value

    def number(self, el: etree._Element | None, default: float, what: str) -> float | None:
        if el is None:
            return default
        raw = _trim("".join(el.itertext()))
        value = php_number(raw)
        if value is None:
            self.error(el, f"{what} {raw[:40]!r} is not a number Moodle can read", "moodlexml.not-a-number")
        return value

    def fraction_of(self, el: etree._Element, what: str) -> float | None:
        """A fraction Moodle stores to 7 decimals (a penalty): the exact fraction such a value
        stands for (lmsexport.moodlexml.read_fraction())."""
        value = self.number(el, 0.0, what)
        return None if value is None else read_fraction(_trim("".join(el.itertext())), value)

    def fraction(self, answer: etree._Element, graded: bool) -> Fraction | None:
        """`fraction` / 100, checked against Moodle's grade list when importprocess() checks it."""
        raw = _trim(answer.get("fraction", "0"))
        if php_number(raw) is None:
            lead = _PHP_LEADING_NUMBER.match(raw[:MAX_NUMBER_CHARS])
            why = (
                f"Moodle reads only its leading {lead.group(0)!r}"
                if lead
                else "Moodle's import crashes on it"
            )
            self.error(answer, f"fraction {raw[:40]!r} is not a number: {why}", "moodlexml.bad-fraction")
            return None
        value, grade = _grade_of(raw)
        if not graded:
            return value
        if grade is None:
            self.error(
                answer,
                f"fraction {raw!r} is not one of Moodle's allowed grades, so Moodle refuses the whole file",
                "moodlexml.bad-grade",
                f"the nearest allowed grade is {format_percent(nearest_grade(value))}",
            )
        return grade

    # -- questions ------------------------------------------------------------------------

    def question(self, el: etree._Element) -> MoodleQuestion | None:
        children: dict[object, etree._Element] = {}
        for child in el.iterchildren():
            children.setdefault(child.tag, child)
        self._question, self._children = el, children
        qtype = _trim(el.get("type", ""))
        self.dropped = []
        self.bad_fraction = False
        if qtype == "category":
            return self.category(el)
        if self.lenient and qtype not in MODEL_TYPES:
            name_el = self.first(el, "name")
            name = _first(name_el, "text") if name_el is not None else None
            self.skipped.append(
                (qtype, self.loc(el), _trim("".join(name.itertext())) if name is not None else "")
            )
            return None
        if qtype in SKIPPED_TYPES:
            self.warn(
                el, f"{qtype} question skipped: the model has no such question type", "moodlexml.type-skipped"
            )
            return None
        if qtype not in MODEL_TYPES:
            shown = f"question type {qtype!r}" if qtype else "a question without a type"
            self.error(
                el,
                f"{shown} is not in standard Moodle: a site without its plugin stops the whole import "
                "here (xmltypeunsupported)",
                "moodlexml.unknown-type",
                "install the question type's plugin on the site, or remove the question",
            )
            return None
        q = self.headers(el, qtype)
        kind = {"match": "matching", "multianswer": "cloze"}.get(qtype, qtype)
        if qtype in CALCULATED_TYPES:
            kind = "calculated"
        q = getattr(self, f"_{kind}")(el, q)
        q = self.combined_feedback(el, q)
        q = self.hints(el, q)
        if self.first(el, "image_base64") is not None:
            self.dropped.append("embedded files")
        old_image = None
        image_el = self.first(el, "image_base64")
        if image_el is not None:
            name_el = self.first(el, "image")
            name = _trim("".join(name_el.itertext())) if name_el is not None else ""
            old_image = (name, "".join(image_el.itertext()))
        return _evolve(q, dropped=tuple(dict.fromkeys(self.dropped)), old_image=old_image)

    def ignored(self, at: etree._Element, what: str, qtype: str) -> None:
        """Something Moodle's importer does not read for this type (lmsexport's own files keep it,
        written with a warning: lmsexport.writers.moodlexml)."""
        self.warn(
            at,
            f"{what}: Moodle's importer does not read it for a {qtype} question; ignored",
            "moodlexml.ignored",
        )

    def combined_feedback(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        """import_combined_feedback(): the three feedback texts and `<shownumcorrect/>`."""
        fmt = q.text.format if q.text else "html"
        texts = tuple(
            self.field(self.first(el, tag), "combined feedback", fmt)
            for tag in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback")
        )
        show = self.first(el, "shownumcorrect") is not None
        if q.qtype == "ordering":
            # qtype_ordering::import_from_xml() reads the element's value (absent: 1; empty: 0).
            found = self.first(el, "shownumcorrect")
            show = found is None or _trim("".join(found.itertext())) not in ("", "0")
        old = self.first(el, "correctresponsesfeedback")
        if old is not None:
            # Backwards compatibility: a flag's value instead of the element's presence.
            show = self.flag(el, "correctresponsesfeedback", "1", "show the number right", Severity.WARNING)
        if q.qtype not in COMBINED_FEEDBACK_TYPES and not self.own:
            if any(t is not None and t.text for t in texts):
                self.ignored(el, "right/partly right/wrong feedback", q.qtype)
            return q
        return _evolve(q, feedback=texts, show_num_correct=show)

    def hints(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        """import_hints(): each `<hint>`'s text, with its options where the type keeps them; a
        hint with no text (and no option kept) is dropped, as question_type::save_hints() does."""
        parts = q.qtype in HINT_PARTS_TYPES or self.own
        fmt = q.text.format if q.text else "html"
        hints = []
        for n, h in enumerate(list(el.iterchildren("hint")), 1):
            if q.qtype in HINTLESS_TYPES and not self.own:
                self.ignored(h, "hints", q.qtype)
                break
            container = _first(h, "hintcontent")
            if container is not None:
                # Backwards compatibility (import_hint()): the text and options in other elements.
                text = self.field(container, f"hint {n}", fmt)
                show = _trim(h.findtext("statenumberofcorrectresponses") or "") not in ("", "0")
                clear = _trim(h.findtext("clearincorrectresponses") or "") not in ("", "0")
            else:
                text = self.field(h, f"hint {n}", fmt)
                show = _first(h, "shownumcorrect") is not None
                clear = _first(h, "clearwrong") is not None
            assert text is not None
            if not parts and (show or clear):
                self.ignored(h, "a hint's options (show the number right, clear wrong responses)", q.qtype)
                show = clear = False
            if text.text or show or clear:
                hints.append(MoodleHint(text, show, clear))
        return _evolve(q, hints=tuple(hints))

    def headers(self, el: etree._Element, qtype: str) -> MoodleQuestion:
        """import_headers(): name, question text, general feedback, mark, ID number, tags."""
        name_el = self.first(el, "name")
        name = self.text_child(name_el, "the name")
        if name is None:
            self.error(
                el,
                "question has no <name><text>: Moodle refuses the file (xmlimportnoname)",
                "moodlexml.no-name",
                "add <name><text>...</text></name>",
            )
        text = self.field(self.first(el, "questiontext"), "the question text")
        if text is None:
            text = MoodleText("", "html", self.loc(el))
        general = self.field(self.first(el, "generalfeedback"), "the general feedback", text.format)
        mark = self.number(self.first(el, "defaultgrade"), 1.0, "mark (defaultgrade)")
        penalty_el = self.first(el, "penalty")
        penalty = None if penalty_el is None else self.fraction_of(penalty_el, "penalty")
        idnumber_el = self.first(el, "idnumber")
        idnumber = None
        if idnumber_el is not None:
            idnumber = "".join(idnumber_el.itertext())
            if idnumber != _trim(idnumber):
                self.warn(
                    idnumber_el,
                    f"ID number {idnumber!r} has white space around it, which Moodle keeps "
                    "(it does not trim ID numbers)",
                    "moodlexml.idnumber-space",
                )
        tags: list[str] = []
        for container in ("tags", "coursetags"):
            for tag in el.findall(f"{container}/tag"):
                value = self.text_child(tag, "a tag")
                if value:
                    tags.append(value)
        return MoodleQuestion(
            qtype=qtype,
            loc=self.loc(el),
            name=name or "",
            text=text,
            general_feedback=general,
            mark=1.0 if mark is None else mark,
            penalty=penalty,
            idnumber=idnumber,
            tags=tuple(dict.fromkeys(tags)),
            meta=_comment_meta(el, META_PREFIX),
        )

    def answers(self, el: etree._Element, graded: bool, fmt: str, formatted: bool) -> list[MoodleAnswer]:
        """import_answer() for every `<answer>`: text (formatted or plain), fraction, feedback."""
        out = []
        for n, a in enumerate(list(el.iterchildren("answer")), 1):
            what = f"answer {n}"
            if formatted:
                text = self.field(a, what, fmt)
                assert text is not None
            else:
                text = MoodleText(self.text_child(a, what) or "", "plain", self.loc(a))
            fraction = self.fraction(a, graded)
            feedback = self.field(_first(a, "feedback"), f"the feedback of {what}", fmt)
            tolerance = _first(a, "tolerance")
            if fraction is None:
                self.bad_fraction = True
            else:
                tol = None if tolerance is None else _trim("".join(tolerance.itertext()))
                out.append(MoodleAnswer(text, fraction, feedback, tol))
        return out

    def _multichoice(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        # Moodle imports `<single>False</single>` as a single-answer question: a warning, and read
        # as Moodle reads it (a multi-answer question's credits then judged as a single's).
        single = self.flag(el, "single", "true", "a single-answer question", Severity.WARNING)
        shuffle = self.flag(el, "shuffleanswers", "false", "choices shuffled", Severity.WARNING)
        answers = self.answers(el, True, q.text.format if q.text else "html", True)
        n_elements = len(list(el.iterchildren("answer")))
        if n_elements < 2:
            self.error(
                el,
                f"multiple choice with {n_elements} answer(s): Moodle's import stops at this "
                "question (notenoughanswers)",
                "moodlexml.too-few-answers",
            )
        kept = []
        for a in answers:
            if not a.text.text:
                self.error(a.text.loc, "empty answer: Moodle drops it silently", "moodlexml.empty-answer")
            else:
                kept.append(a)
        if single and n_elements >= 2 and kept and not self.bad_fraction:
            # qtype_multichoice::save_question_options() saves these with a notice only.
            best = max(a.fraction for a in kept)
            full = sum(1 for a in kept if a.fraction == 1)
            if full == 0:
                self.warn(
                    el,
                    f"single-answer multiple choice: no choice earns full credit (the best earns "
                    f"{format_percent(best)}%): Moodle imports it with a notice",
                    "moodlexml.no-full-credit",
                )
            elif full > 1:
                self.warn(
                    el,
                    f"single-answer multiple choice with {full} choices that each earn full credit: each "
                    "of them alone earns the full points",
                    "moodlexml.several-full-credit",
                )
        if not single and kept:
            total = sum((a.fraction for a in kept if a.fraction > 0), Fraction(0))
            if abs(total - 1) > Fraction(1, 200):
                self.warn(
                    el,
                    f"the positive fractions add up to {format_percent(total)}%, not 100%: Moodle "
                    "imports it, but full marks are out of reach or too easy",
                    "moodlexml.weights-sum",
                )
        return _evolve(q, single=single, shuffle=shuffle, answers=tuple(kept))

    def _truefalse(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        truth: bool | None = None
        answers = list(el.iterchildren("answer"))
        if not answers:
            self.error(el, "true/false question with no answers", "moodlexml.too-few-answers")
        old_style = False
        feedback: dict[str, MoodleText | None] = {}
        for n, a in enumerate(answers):
            text = self.text_child(a, f"answer {n + 1}") or ""
            fraction = self.fraction(a, False)
            if text not in ("true", "false"):
                # Older exports hold localised texts: Moodle takes the first answer for true.
                old_style = True
                text = "true" if n == 0 else "false"
            full = fraction == 1
            # The last answer decides, as in import_truefalse() (feedbacktrue / feedbackfalse too).
            truth = full if text == "true" else not full
            feedback[text] = self.field(
                _first(a, "feedback"), "the feedback", q.text.format if q.text else "html"
            )
        q = replace(q, truefalse_feedback=(feedback.get("true"), feedback.get("false")))
        if old_style:
            self.warn(
                el,
                "true/false answers are not the texts 'true' and 'false': Moodle takes the first "
                "answer for true (truefalseimporterror)",
                "moodlexml.truefalse-texts",
            )
        return replace(q, truth=truth)

    def _shortanswer(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        usecase_el = self.first(el, "usecase")
        case_sensitive = False
        if usecase_el is not None:
            raw = _trim("".join(usecase_el.itertext()))
            if raw not in ("0", "1"):
                self.error(
                    usecase_el,
                    f"<usecase>{raw}</usecase>: Moodle stores 0 or 1 here",
                    "moodlexml.bad-usecase",
                    "write 1 for case sensitive, 0 for not",
                )
            case_sensitive = raw == "1"
        answers = self.answers(el, True, q.text.format if q.text else "html", False)
        kept = []
        for a in answers:
            if not a.text.text:
                self.error(
                    a.text.loc,
                    "empty short answer: it matches only an empty response",
                    "moodlexml.empty-answer",
                )
            else:
                kept.append(a)
        if not self.bad_fraction and not any(a.fraction == 1 for a in answers):
            self.error(
                el,
                "short answer with no answer worth 100%: Moodle refuses to save it (fractionsnomax)",
                "moodlexml.no-full-marks",
            )
        return replace(q, case_sensitive=case_sensitive, answers=tuple(kept))

    def _numerical(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        answers = self.answers(el, True, q.text.format if q.text else "html", False)
        for a in answers:
            if a.text.text != "*" and php_number(a.text.text) is None:
                self.error(
                    a.text.loc,
                    f"numerical answer {a.text.text[:40]!r} is not a number: Moodle stores no usable key "
                    "for it",
                    "moodlexml.not-a-number",
                )
            if a.tolerance is not None and a.tolerance != "" and php_number(a.tolerance) is None:
                self.error(
                    a.text.loc, f"tolerance {a.tolerance[:40]!r} is not a number", "moodlexml.not-a-number"
                )
        keys = [a for a in answers if a.text.text != "*"]
        if not self.bad_fraction and not keys:
            self.error(el, "numerical question with no numeric answer", "moodlexml.no-full-marks")
        elif not self.bad_fraction and not any(a.fraction == 1 for a in keys):
            best = max(a.fraction for a in keys)
            self.warn(
                el,
                f"numerical question: no key earns full credit (the best earns {format_percent(best)}%): "
                "Moodle imports it",
                "moodlexml.no-full-credit",
            )
        return replace(q, answers=tuple(answers), **self.unit_options(el))

    def unit_options(self, el: etree._Element) -> dict[str, Any]:
        """`<units>` and the unit options (import_numerical(), import_calculated())."""
        units: list[MoodleUnit] = []
        for n, u in enumerate(el.findall("units/unit"), 1):
            name_el = _first(u, "unit_name")
            name = "" if name_el is None else self.string(name_el, f"unit {n}")
            multiplier = self.number(_first(u, "multiplier"), 1.0, f"the multiplier of unit {n}")
            # qtype_numerical::save_units() drops a unit without a name or multiplier, and repeats.
            if name and multiplier and all(x.name != name for x in units):
                units.append(MoodleUnit(name, multiplier))
        grading = self.number(self.first(el, "unitgradingtype"), 0.0, "unitgradingtype")
        penalty_el = self.first(el, "unitpenalty")
        penalty = 0.1 if penalty_el is None else self.fraction_of(penalty_el, "unitpenalty")
        show_el = self.first(el, "showunits")
        show = None if show_el is None else self.number(show_el, 0.0, "showunits")
        left = self.number(self.first(el, "unitsleft"), 0.0, "unitsleft")
        instructions = self.field(self.first(el, "instructions"), "the units' instructions")
        if instructions is not None and instructions.text:
            self.dropped.append("the instructions about units")
        return {
            "units": tuple(units),
            "unit_grading": int(grading or 0),
            "unit_penalty": 0.1 if penalty is None else penalty,
            "show_units": None if show is None else int(show),
            "units_left": bool(left),
        }

    def required(self, el: etree._Element, path: str, what: str) -> etree._Element | None:
        """An element import_calculated() reads by direct access: absent, PHP warns and stores
        nothing usable (an error here)."""
        found = el.find(path)
        if found is None:
            self.error(
                el,
                f"{what}: <{el.tag}> has no <{path}>, which Moodle's import_calculated() reads without "
                "a default (a PHP warning and an unusable question)",
                "moodlexml.calculated-missing",
                f"add <{path}>",
            )
        return found

    def required_number(self, el: etree._Element, path: str, what: str) -> float | None:
        found = self.required(el, path, what)
        return None if found is None else self.number(found, 0.0, f"{what}: {path}")

    def _calculated(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        """import_calculated(): synchronize, single, the answers with their four fields, units,
        the dataset definitions with their items (calculatedsimple and calculatedmulti alike)."""
        fmt = q.text.format if q.text else "html"
        multi = q.qtype == "calculatedmulti"
        answers: list[MoodleCalcAnswer] = []
        for n, a in enumerate(el.findall("answer"), 1):
            what = f"answer {n}"
            if multi:
                text = self.field(a, what, "plain" if a.get("format") is None else fmt)
                assert text is not None
                if a.get("format") is None:
                    text = replace(text, format="plain")
            else:
                text = MoodleText(self.text_child(a, what) or "*", "plain", self.loc(a))
            fraction = self.fraction(a, True)
            feedback = self.field(_first(a, "feedback"), f"the feedback of {what}", fmt)
            tol = self.required_number(a, "tolerance", what)
            kind = self.required_number(a, "tolerancetype", what)
            form = self.required_number(a, "correctanswerformat", what)
            length = self.required_number(a, "correctanswerlength", what)
            if fraction is None:
                self.bad_fraction = True
                continue
            answers.append(
                MoodleCalcAnswer(
                    text,
                    fraction,
                    feedback,
                    abs(tol or 0.0),
                    int(kind or 1),
                    int(form or 1),
                    int(length or 0),
                )
            )
        if not answers and not self.bad_fraction:
            self.error(el, f"{q.qtype} question with no answer", "moodlexml.no-answer")
        datasets: list[MoodleDataset] = []
        for n, d in enumerate(el.findall("dataset_definitions/dataset_definition"), 1):
            what = f"dataset {n}"
            fields = {}
            for tag in ("status", "name", "distribution", "minimum", "maximum", "decimals"):
                found = self.required(d, f"{tag}/text", what)
                fields[tag] = "" if found is None else self.string(found, f"{what}: {tag}")
            count = self.required_number(d, "itemcount", what)
            self.required(d, "type", what)
            items: dict[int, str] = {}
            for item in d.findall("dataset_items/dataset_item"):
                number = self.number(self.required(item, "number", what), 0.0, f"{what}: item number")
                value_el = self.required(item, "value", what)
                if number is None or value_el is None:
                    continue
                value = self.string(value_el, f"{what}: item {number:g}")
                if php_number(value) is None:
                    self.error(
                        value_el,
                        f"{what} ({fields['name']}): item {number:g} {value[:40]!r} is not a number; "
                        "Moodle refuses it at every attempt (notvalidnumber)",
                        "moodlexml.not-a-number",
                    )
                    continue
                items.setdefault(int(number), value)
            low, high = php_number(fields["minimum"]), php_number(fields["maximum"])
            places = php_number(fields["decimals"])
            datasets.append(
                MoodleDataset(
                    fields["name"], fields["status"], low if low is not None else DEFAULT_DATASET[1],
                    high if high is not None else DEFAULT_DATASET[2],
                    int(places) if places is not None and places >= 0 else DEFAULT_DATASET[3],
                    int(count or 0), items, self.loc(d),
                )
            )  # fmt: skip
        synchronize = self.number(self.first(el, "synchronize"), 0.0, "synchronize") or 0.0
        # Only calculatedmulti uses <single> (import_calculated() reads it for all three).
        single = not multi or self.flag(el, "single", "true", "a single-answer question", Severity.WARNING)
        return replace(
            q,
            calc=MoodleCalc(
                int(synchronize), single, tuple(answers), tuple(datasets),
                el.find("dataset_definitions") is not None,
            ),
            **self.unit_options(el),
        )  # fmt: skip

    def _matching(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        shuffle = self.flag(el, "shuffleanswers", "1", "items shuffled", Severity.WARNING)
        subs = []
        for n, sub in enumerate(list(el.iterchildren("subquestion")), 1):
            text = self.field(sub, f"subquestion {n}", q.text.format if q.text else "html")
            assert text is not None
            answer = self.text_child(_first(sub, "answer"), f"the answer of subquestion {n}") or ""
            if text.text and not answer:
                self.error(
                    sub,
                    f"subquestion {n} has a text but no answer: Moodle's import stops after this "
                    "question (nomatchinganswer)",
                    "moodlexml.match-no-answer",
                )
                continue
            if text.text or answer:
                subs.append((text, answer))
        pairs = sum(1 for t, _ in subs if t.text)
        if pairs < 2:
            self.error(
                el, f"matching question with {pairs} pair(s); it needs at least 2", "moodlexml.too-few-pairs"
            )
        return replace(q, shuffle=shuffle, subquestions=tuple(subs))

    def _essay(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        """import_essay(): the response's format and box, word limits, attachments, the grader
        information and the response template (its text only: Moodle keeps no files for it)."""
        fmt = q.text.format if q.text else "html"

        def text(tag: str, default: str) -> str:
            found = self.first(el, tag)
            return default if found is None else self.string(found, f"<{tag}>")

        def count(tag: str, default: float | None) -> int | None:
            raw = text(tag, "")
            if raw == "":
                return None if default is None else int(default)
            value = php_number(raw)
            if value is None or not value.is_integer():
                self.error(el, f"<{tag}>{raw[:40]}</{tag}> is not a whole number", "moodlexml.not-a-number")
                return None if default is None else int(default)
            return int(value)

        template_el = self.first(el, "responsetemplate")
        template = None
        if template_el is not None:
            raw = self.text_child(template_el, "the response template") or ""
            tfmt = FORMATS.get(_trim(template_el.get("format", "")) or fmt, "html")
            template = MoodleText(raw, tfmt, self.loc(template_el))
        essay = MoodleEssay(
            response_format=text("responseformat", "editor"),
            required=count("responserequired", 1) != 0,
            lines=count("responsefieldlines", 15) or 15,
            min_words=count("minwordlimit", None) or None,
            max_words=count("maxwordlimit", None) or None,
            attachments=count("attachments", 0) or 0,
            attachments_required=count("attachmentsrequired", 0) or 0,
            file_types=text("filetypeslist", ""),
            max_bytes=count("maxbytes", 0) or 0,
            grader_info=self.field(self.first(el, "graderinfo"), "the grader information", fmt),
            template=template,
        )
        return replace(q, essay=essay)

    def _text_with_gaps(self, q: MoodleQuestion) -> tuple[MoodleText, GapMarks]:
        text = q.text or MoodleText("", "html", q.loc)
        marks = gap_marks(text.text)
        if marks is None:
            self.error(
                text.loc, "the question text holds every noncharacter U+FDD0 to U+FDEF", "moodlexml.bad-text"
            )
            marks = GapMarks()
        return text, marks

    def _cloze(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        """qformat_xml::import_multianswer(): qtype_multianswer_extract_question() parses the codes,
        qtype_multianswer_validate_question() refuses a subquestion it cannot save (the import stops:
        invalidmultianswerquestion); the mark is the sum of the weights (`<defaultgrade>` unread)."""
        text, marks = self._text_with_gaps(q)
        marked, subs = parse_cloze(text.text, marks)
        if not subs:
            self.error(
                el,
                "cloze question without a subquestion: Moodle refuses it (questionsmissing)",
                "moodlexml.cloze-empty",
            )
        broken = CLOZE_BROKEN.search(marked)
        if broken is not None:
            self.error(
                el,
                f"{marked[broken.start() : broken.start() + 40]!r} starts a cloze code Moodle does not read "
                "(no alternative, or no closing '}'): Moodle shows it as text "
                "(qtype_multianswer_extract_question()'s ANSWER_REGEX does not match it)",
                "moodlexml.bad-cloze",
            )
        for k, sub in enumerate(subs, 1):
            for problem in cloze_problems(sub):
                self.error(
                    el,
                    f"cloze blank {k} {sub.code[:60]!r}: {problem}: Moodle refuses the question and stops "
                    "the import (qtype_multianswer_validate_question(): invalidmultianswerquestion)",
                    "moodlexml.bad-cloze",
                )
        weights = sum(int(s.weight) if s.weight else 1 for s in subs)
        mark = q.mark
        if not self.own:
            grade = self.first(el, "defaultgrade")
            if grade is not None and self.number(grade, 1.0, "mark") != weights:
                self.warn(
                    grade,
                    f"<defaultgrade> of a cloze question is not read: Moodle's mark is the sum of the "
                    f"blanks' weights, {weights}",
                    "moodlexml.ignored",
                )
            mark = float(weights)
        return replace(q, text=replace(text, text=marked), cloze=tuple(subs), mark=mark, marks=marks)

    def _description(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        """qformat_xml::import_description(): the headers, mark 0."""
        return replace(q, mark=0.0)

    def _ordering(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        """qtype_ordering::import_from_xml() and set_options_for_import() (its defaults where absent)."""

        def value(*tags: str, default: str) -> str:
            for tag in tags:
                found = self.first(el, tag)
                if found is not None:
                    return _trim("".join(found.itertext()))
            return default

        has_new = self.first(el, "selecttype") is not None
        layout = value("layouttype", default="VERTICAL").upper()
        select = value("selecttype" if has_new else "logical", default="RANDOM").upper()
        count_raw = value("selectcount" if has_new else "studentsee", default="6")
        grading = value("gradingtype", default="RELATIVE").upper()
        show = value("showgrading", default="1").upper()
        numbering = value("numberingstyle", default="1")
        count_value = php_number(count_raw)
        count = int(count_value) if count_value is not None and count_value >= 2 else 2
        options = (
            "horizontal" if layout in ("HORIZONTAL", "HORI", "H", "1") else "vertical",
            "all"
            if select in ("ALL", "EXACT")
            else "contiguous"
            if select in ("CONTIGUOUS", "CONTIG")
            else "random",
            count,
            ORDERING_GRADING_ALIASES.get(grading, grading),
            show not in ("HIDE", "FALSE", "NO"),
            numbering if numbering in ORDERING_NUMBERINGS else "none",
        )
        answers = [
            a for a in self.answers(el, False, q.text.format if q.text else "html", True) if a.text.text
        ]
        if len(answers) < 2:
            self.error(
                el,
                f"ordering with {len(answers)} item(s): Moodle saves none with fewer than 2 "
                "(notenoughanswers)",
                "moodlexml.too-few-items",
            )
        return replace(q, ordering=options, answers=tuple(answers))

    def _gapselect(self, el: etree._Element, q: MoodleQuestion) -> MoodleQuestion:
        """qtype_gapselect::import_from_xml(): `<selectoption>`s with their groups; `[[n]]` in the
        text is a gap whose right choice is choice n, offered with the choices of its group
        (qtype_gapselect_base::initialise_question_instance())."""
        shuffle = self.flag(el, "shuffleanswers", "1", "choices shuffled", Severity.WARNING)
        drops: list[tuple[str, int, bool]] = []
        tag = "selectoption" if q.qtype == "gapselect" else "dragbox"
        for n, option in enumerate(el.findall(tag), 1):
            label = self.text_child(option, f"choice {n}") or ""
            group = self.number(_first(option, "group"), 1.0, f"the group of choice {n}") or 1.0
            drops.append((label, int(group), option.find("infinite") is not None))
        if q.qtype == "gapselect" and not drops:
            for n, a in enumerate(el.findall("answer"), 1):  # the legacy format
                label = self.text_child(a, f"choice {n}") or ""
                group = php_number(self.text_child(_first(a, "feedback"), "the group") or "1") or 1.0
                drops.append((label, int(group), False))
        # save_question_options() drops blank choices and renumbers the gaps.
        renumber: dict[int, int] = {}
        kept: list[tuple[str, int, bool]] = []
        for n, d in enumerate(drops, 1):
            if d[0].strip():
                kept.append(d)
                renumber[n] = len(kept)
        text, marks = self._text_with_gaps(q)
        gaps: list[int] = []

        def gap(m: re.Match[str]) -> str:
            n = int(m.group(1))
            if n not in renumber:
                self.error(
                    el,
                    f"gap [[{n}]] names no choice: Moodle cannot show the question",
                    "moodlexml.bad-gap",
                )
                return m.group(0)
            gaps.append(renumber[n])
            return marks.mark(len(gaps))

        marked = re.sub(r"\[\[(\d+)]]", gap, text.text)
        if not gaps:
            self.error(el, f"{q.qtype} question without a gap [[n]]", "moodlexml.bad-gap")
        return replace(
            q,
            text=replace(text, text=marked),
            gaps=tuple(gaps),
            drops=tuple(kept),
            shuffle=shuffle,
            marks=marks,
        )

    _ddwtos = _gapselect

    def category(self, el: etree._Element) -> MoodleQuestion:
        """import_category(): `<category><text>`; create_category_path()'s context prefix."""
        container = self.first(el, "category")
        path = self.text_child(container, "the category", crashes=True)
        if path is None:
            self.warn(
                el,
                "category question without <category><text>: Moodle files every following question "
                "under a category named ''",
                "moodlexml.category-missing",
            )
            path = ""
        first = path.split("/", 1)[0]
        if first.startswith("$") and first.endswith("$") and len(first) > 1 and not _CONTEXT.match(first):
            self.warn(
                el,
                f"category context {first!r} is not one Moodle's importer recognises ($[a-z]+$): it "
                f"creates a category literally named {first!r}",
                "moodlexml.category-context",
                "write $course$/top/... (or $system$/..., $module$/...)",
            )
        info_el = self.first(el, "info")
        info = None
        if info_el is not None and _first(info_el, "text") is None:
            self.text_child(info_el, "the category description", crashes=True)
        else:
            info = self.field(info_el, "the category description")
        return MoodleQuestion("category", self.loc(el), category=path, info=info)


def split_category_path(path: str) -> list[str]:
    """qformat_default::split_category_path() without the context and `top` (names trimmed)."""
    names = [_trim(n.replace("//", "/")) for n in re.split(r"(?<!/)/(?!/)", path)]
    if names and _CONTEXT.match(names[0]) or names and names[0].startswith("$") and names[0].endswith("$"):
        names = names[1:]
    while names and names[0] == "top":
        names = names[1:]
    return names


def _sorted(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diags, key=Diagnostic.sort_key)


def read_moodlexml(data: bytes, path: str, lenient: bool = False) -> MoodleXmlFile:
    """Every question of a Moodle XML file as Moodle reads it; raises MoodleXmlError with every error.

    ``lenient`` (import): a question of a type the model lacks is left out and recorded in
    ``skipped`` (with no diagnostic: the caller reports it), whether standard Moodle has the type
    or a plugin does."""
    tree, diags = parse_without_dtd(data, path, "Moodle XML needs no DOCTYPE: remove it")
    if tree is None:
        raise MoodleXmlError(diags)
    root = tree.getroot()
    encoding = (tree.docinfo.encoding or "UTF-8").upper()
    if encoding not in ("UTF-8", "UTF8") and not data.isascii():
        try:
            data.decode("utf-8")
            diags.append(
                Diagnostic(
                    SourceLoc(path, 1),
                    f"the file is UTF-8 but declares encoding {encoding!r}: Moodle "
                    "garbles every non-ASCII character",
                    Severity.ERROR,
                    "moodlexml.encoding",
                    'declare encoding="UTF-8"',
                )
            )
        except UnicodeDecodeError:
            pass
    if root.tag != "quiz":
        diags.append(
            Diagnostic(
                SourceLoc(path, root.sourceline or 0),
                f"root element <{root.tag}> is not <quiz>: Moodle finds no questions in the file",
                rule="moodlexml.not-moodle-xml",
            )
        )
        raise MoodleXmlError(_sorted(diags))
    out = MoodleXmlFile(
        meta=_comment_meta(root, QUIZ_META_PREFIX),
        assessment_meta=_comment_meta(root, ASSESSMENT_META_PREFIX),
    )
    reader = _Reader(path, lenient, own=bool(out.meta or out.assessment_meta))
    if _first(root, "question") is None:
        diags.append(
            Diagnostic(
                SourceLoc(path, root.sourceline or 0),
                "no <question> in <quiz>: Moodle imports nothing (noquestionsinfile)",
                rule="moodlexml.no-questions",
            )
        )
    # One element at a time: a 16 MiB file holds ~700,000 of them.
    for n, el in enumerate(root.iterchildren("question")):
        if n == MAX_MOODLEXML_QUESTIONS:
            reader.error(
                el,
                f"more than {MAX_MOODLEXML_QUESTIONS:,} questions; that is the limit for one file",
                "moodlexml.too-many",
                "split the questions into several files",
            )
            break
        q = reader.question(el)
        if q is not None:
            out.questions.append(q)
        n_errors = sum(d.severity is Severity.ERROR for d in reader.diags)
        if n_errors >= MAX_MOODLEXML_ERRORS:
            reader.diags.append(
                Diagnostic(
                    reader.loc(el), f"stopping after {n_errors} errors", rule="moodlexml.too-many-errors"
                )
            )
            break
    diags += reader.diags
    if any(d.severity is Severity.ERROR for d in diags):
        raise MoodleXmlError(_sorted(diags))
    out.warnings = _sorted(diags)
    out.skipped = reader.skipped
    return out


# -- Moodle's questions -> the model, for check's reader and for import ------------------


class TextSource(Protocol):
    """How a reader turns Moodle's texts into the model's (check's reader reads lmsexport's own
    texts exactly; import also reads Moodle's other formats) and records what a question loses."""

    def text(self, t: MoodleText | None) -> tuple[Text | None, str | None]:
        """A text as the model holds it, and the language lmsexport's wrapper names (or None)."""
        ...

    def lose(self, what: str) -> None:
        """Something of the question the model has no place for."""
        ...

    def unreachable(self, what: str) -> None:
        """An answer left out that no response ever reaches (so nothing is lost)."""
        ...


def _credit(fraction: Fraction) -> float:
    """A stored grade as the model's credit: the exact fraction its 7 decimals stand for."""
    return exact_credit(float(fraction))


def to_model(mq: MoodleQuestion, q: Question, texts: TextSource, quiz_lang: str) -> Question | None:
    """What every reader of Moodle XML maps alike, given the question's header (id, stem,
    explanation, points, language, tags): its body, name, penalty, feedback by outcome and hints.
    None when Moodle's question has no body the model can hold (a short answer without a 100%
    answer, a numerical question without a number: the XML reader reports those)."""
    if mq.calc is not None:
        done = _parametric(mq, q, texts)
        if isinstance(done, str):
            texts.lose(f"the whole question: {done}")
            return None
        return done
    body = _body(mq, q, texts, quiz_lang)
    if body is None:
        return None
    q = replace(q, body=body)
    if isinstance(body, Cloze):
        stem, code = _gapped(q.stem, len(body.blanks), mq.marks)
        if code:
            texts.lose("a code block holding blanks (read as lines of inline code around the blanks)")
        if stem is None:
            texts.lose("a blank inside a formula, code or attribute (the question is left out)")
            return None
        q = replace(q, stem=stem)
    elif isinstance(body, Description):
        q = replace(q, points=0.0)
    return _finish(mq, q, texts)


def _finish(
    mq: MoodleQuestion,
    q: Question,
    texts: TextSource,
    convert: Callable[[Text | None], Text | None] | None = None,
) -> Question:
    """The feedback by outcome, hints, name and penalty (each text through `convert`)."""

    def text(t: MoodleText | None) -> Text | None:
        got = texts.text(t)[0]
        return convert(got) if convert is not None else got

    correct, partial, incorrect = (text(t) for t in mq.feedback)
    written = any(x is not None for x in (correct, partial, incorrect))
    # `<shownumcorrect/>` with no feedback is what Moodle's form saves by default (and what the
    # writer writes for no feedback): the model's default, unless lmsexport's comment says it was set.
    show = mq.show_num_correct and (written or mq.meta.get("show_num_correct") is True)
    hints = []
    for n, h in enumerate(mq.hints, 1):
        hint = text(h.text)
        if hint is None:
            texts.lose(f"hint {n}, which has options but no text")
            continue
        hints.append(Hint(hint, h.show_num_correct, h.clear_wrong))
    return replace(
        q,
        name=_name(mq, q),
        penalty=_penalty(mq, texts),
        feedback=OutcomeFeedback(correct, partial, incorrect, show),
        hints=tuple(hints),
    )


def _name(mq: MoodleQuestion, q: Question) -> str | None:
    """The question's name, or None when it is the one the writers derive from the stem."""
    own = mq.meta.get("name")
    if isinstance(own, str):
        return own  # a name Moodle's parser cannot read back exactly, as lmsexport's comment keeps it
    if not mq.name or (mq.name == question_name(q) and mq.meta.get("named") is not True):
        return None
    return mq.name


def _penalty(mq: MoodleQuestion, texts: TextSource) -> float | None:
    """The penalty per wrong try, or None for the default of the question's type in Moodle."""
    own = mq.meta.get("penalty")
    if isinstance(own, int | float) and not isinstance(own, bool):
        return float(own)
    raw = mq.penalty
    if raw is None:
        return None
    if abs(raw - 0.3333333) < 0.005:
        raw = 1 / 3  # import_headers() "fixes problematic rounding from old files": 0.3333333
    default = PENALTY[mq.qtype]
    if raw == read_fraction(default, float(default)):
        return None
    if raw < 0:
        texts.lose(f"its penalty {raw:g} (a negative penalty adds marks for wrong tries)")
        return None
    # Above 1 takes everything, as 1 does (qbehaviour_interactive::adjust_fraction() floors at 0).
    return min(raw, 1.0)


def _body(mq: MoodleQuestion, q: Question, texts: TextSource, quiz_lang: str) -> Body | None:
    kind = "matching" if mq.qtype == "match" else mq.qtype
    if kind == "multichoice":
        return _choices(mq, q, texts, quiz_lang)
    if kind == "truefalse":
        if mq.truth is None:
            return None
        true, false = (texts.text(t)[0] for t in mq.truefalse_feedback)
        return TrueFalse(mq.truth, true, false)
    if kind == "shortanswer":
        return _short_answer(mq, texts)
    if kind == "numerical":
        return _numerical(mq, texts)
    if kind == "matching":
        pairs, distractors = [], []
        for left, right in mq.subquestions:
            text = texts.text(left)[0] if left.text else None
            if text is None:
                distractors.append(right)
            else:
                pairs.append(Pair(text, right, loc=left.loc))
        return Matching(tuple(pairs), tuple(distractors))
    if kind == "essay":
        return _essay(mq, texts)
    if kind in ("cloze", "multianswer"):
        return _cloze(mq, texts, quiz_lang, q.lang or quiz_lang)
    if kind in ("gapselect", "ddwtos"):
        return _gapselect(mq, texts)
    if kind == "ordering":
        return _ordering(mq, texts)
    if kind == "description":
        return Description()
    return None


# -- calculated questions (issue 24) -----------------------------------------------------------

_MOODLE_TEXT_TOKEN = re.compile(r"\{=([^{}]*(?:\{[^{}]+\}[^{}]*)*)\}|\{([^{}]*)\}|[{}]")
"""In a Moodle text: a formula `{=...}` (FORMULAS_IN_TEXT_REGEX), a `{...}`, or a lone brace."""
_RESERVED_NAMES = frozenset({*fm.FUNCTIONS, *fm.CONSTANTS, *fm.KEYWORDS, *fm.REFUSED_FUNCTIONS})


def _lmsexport_names(raw: list[str]) -> dict[str, str]:
    """Moodle's wildcard name -> an lmsexport variable name (Moodle allows `-` and spaces after
    the first letter; lmsexport names are [A-Za-z][A-Za-z0-9_]* and not a function's)."""
    out: dict[str, str] = {}
    for name in raw:
        new = re.sub(r"[^A-Za-z0-9_]", "_", name.strip()) or "v"
        if not new[0].isalpha() or not new.isascii():
            new = "v" + new
        while new in _RESERVED_NAMES or new in out.values():
            new += "_"
        out[name] = new
    return out


class _Placeholders:
    """Turns Moodle's texts into lmsexport's: `{name}` of a dataset stays a placeholder (renamed
    as the variable is), `{=formula}` becomes a derived value `{f1}` (Moodle computes it per
    variant: replace_expressions_in_text()), every other brace a literal `{{` / `}}`."""

    def __init__(self, names: dict[str, str], naturals: set[str], texts: TextSource) -> None:
        self.names = names
        self.naturals = naturals
        self.texts = texts
        self.formulas: dict[str, tuple[str, fm.Expr]] = {}
        """Moodle formula text -> (derived name, tree)."""
        self.code = False

    def string(self, s: str) -> str:
        def repl(m: re.Match[str]) -> str:
            formula, inner = m.group(1), m.group(2)
            if formula is not None:
                return self._formula(formula, m.group(0))
            if inner is not None and inner in self.names:
                return "{" + self.names[inner] + "}"
            return m.group(0).replace("{", "{{").replace("}", "}}")

        return _MOODLE_TEXT_TOKEN.sub(repl, s)

    def _formula(self, formula: str, whole: str) -> str:
        known = self.formulas.get(formula)
        if known is None:
            try:
                tree = fm.from_moodle(formula, self.names, self.naturals)
                unknown = [n for n in fm.variables_of(tree) if n not in self.names.values()]
                if unknown:
                    raise fm.FormulaNameError(f"no dataset {unknown[0]}")
            except fm.FormulaError as e:
                self.texts.lose(f"the formula {whole[:60]} in a text ({e.message}; kept as text)")
                return whole.replace("{", "{{").replace("}", "}}")
            name = f"f{len(self.formulas) + 1}"
            while name in self.names.values():
                name += "_"
            known = self.formulas[formula] = (name, tree)
        return "{" + known[0] + "}"

    def text(self, text: Text | None) -> Text | None:
        if text is None:
            return None
        if isinstance(text, str):
            return self.string(text)
        return Rich(tuple(self.block(b) for b in text.blocks))

    def inlines(self, xs: tuple[Inline, ...]) -> tuple[Inline, ...]:
        out: list[Inline] = []
        for x in xs:
            match x:
                case Str(text=t):
                    out.append(Str(self.string(t)))
                case Emph(children=c) | Strong(children=c):
                    out.append(type(x)(self.inlines(c)))
                case Link(children=c):
                    out.append(replace(x, children=self.inlines(c)))
                case Code(text=t) if _MOODLE_TEXT_TOKEN.search(t):
                    out.extend(self.code_parts(t))
                case Math(tex=tex):
                    # TeX's braces are TeX's (variants.substitute(tex=True) replaces `{name}` by
                    # `{value}`); Moodle's `{{name}}` there is the group around the value.
                    out.append(replace(x, tex=self.tex(tex)))
                case _:
                    out.append(x)
        return tuple(out)

    def tex(self, tex: str) -> str:
        def repl(m: re.Match[str]) -> str:
            name = self.names.get(m.group(1))
            return "{" + name + "}" if name is not None else m.group(0)

        return re.sub(r"\{\{([^{}]*)\}\}", repl, tex)

    def code_parts(self, t: str) -> list[Inline]:
        """Code holding wildcards: Moodle substitutes them there too; lmsexport's code is
        verbatim, so the code is cut around them (inline code, the placeholder as text)."""
        out: list[Inline] = []
        last = 0
        for m in _MOODLE_TEXT_TOKEN.finditer(t):
            if m.group(1) is None and (m.group(2) is None or m.group(2) not in self.names):
                continue
            if m.start() > last:
                out.append(Code(t[last : m.start()]))
            out.append(Str(self.string(m.group(0))))
            last = m.end()
        if last < len(t):
            out.append(Code(t[last:]))
        return out

    def block(self, b: Block) -> Block:
        match b:
            case Para(children=c):
                return Para(self.inlines(c))
            case CodeBlock(text=t) if any(
                m.group(1) is not None or (m.group(2) or "") in self.names
                for m in _MOODLE_TEXT_TOKEN.finditer(t)
            ):
                self.code = True
                lines: list[Inline] = []
                for i, line in enumerate(t.rstrip("\n").split("\n")):
                    if i:
                        lines.append(LineBreak())
                    lines.extend(
                        self.code_parts(line)
                        if _MOODLE_TEXT_TOKEN.search(line)
                        else [Code(line)]
                        if line
                        else []
                    )
                return Para(tuple(lines))
            case BulletList(items=items) | OrderedList(items=items):
                return replace(b, items=tuple(tuple(self.block(c) for c in item) for item in items))
            case Table(header=h, rows=rows):
                return replace(
                    b,
                    header=tuple(self.inlines(c) for c in h),
                    rows=tuple(tuple(self.inlines(c) for c in row) for row in rows),
                )
        return b


def _dataset_variable(ds: MoodleDataset, name: str, values: list[str]) -> Variable:
    """A dataset as a variable: a range (min..max in steps of 10^-decimals) when every item lies on
    it and shows as Moodle stores it, else the list of its values."""
    floats = [float(v) for v in values]
    shows = all(fm.format_value(x, ds.decimals) == v for x, v in zip(floats, values, strict=True))
    if shows and ds.minimum <= ds.maximum:
        step = float(Decimal(1).scaleb(-ds.decimals))
        grid = all(
            ds.minimum <= x <= ds.maximum
            and Decimal(repr(x)) - Decimal(repr(ds.minimum))
            == ((Decimal(repr(x)) - Decimal(repr(ds.minimum))) / Decimal(repr(step))).to_integral_value()
            * Decimal(repr(step))
            for x in floats
        )
        if grid:
            return RangeVariable(name, ds.minimum, ds.maximum, step, ds.decimals)
    distinct = tuple(sorted(set(floats)))
    return ListVariable(name, distinct, ds.decimals if shows else None)


def _meta_parameters(meta: object) -> Parameters | None:
    """lmsexport's own definition of the variables, derived values and constraints."""
    if not isinstance(meta, dict):
        return None
    try:
        variables: list[Variable] = []
        for v in meta["variables"]:
            if "values" in v:
                variables.append(ListVariable(v["name"], tuple(float(x) for x in v["values"]), v["decimals"]))
            else:
                variables.append(
                    RangeVariable(
                        v["name"], float(v["low"]), float(v["high"]), float(v["step"]), int(v["decimals"])
                    )
                )
        derived = tuple(Derived(d["name"], Formula(d["formula"]), d["decimals"]) for d in meta["derived"])
        constraints = tuple(Constraint(Formula(c)) for c in meta["constraints"])
        count = meta.get("count")
        return Parameters(tuple(variables), derived, constraints, count if isinstance(count, int) else None)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _calc_units(mq: MoodleQuestion, texts: TextSource) -> tuple[Unit, ...]:
    if not mq.units or mq.show_units == SHOWUNITS_NONE:
        return ()
    if mq.unit_grading:
        texts.lose(f"its unit grading {mq.unit_grading} (units read as optional)")
    if mq.show_units not in (None, 0):
        texts.lose(f"how the unit is entered (showunits {mq.show_units}; read as typed)")
    if mq.units_left:
        texts.lose("the unit on the left")
    return tuple(Unit(u.name, u.multiplier) for u in mq.units)


def _parametric(mq: MoodleQuestion, q: Question, texts: TextSource) -> Question | str:
    """A calculated, calculatedsimple or calculatedmulti question as Calculated / CalculatedChoice
    with its dataset items as the variants (q with its texts' wildcards as placeholders), or why
    it cannot be one."""
    calc = mq.calc
    assert calc is not None
    own = _meta_parameters(mq.meta.get(PARAM_META))
    datasets = {d.name: d for d in calc.datasets}
    if len(datasets) < len(calc.datasets):
        texts.lose("a second dataset of the same name (Moodle keeps one)")
    raw_names = list(datasets)
    # Wildcards of the answers without a dataset (Moodle's form would propose its default
    # dataset for each: qtype_calculated::find_dataset_names() reads the answers only).
    wildcards: list[str] = []
    for src in (a.text.text for a in calc.answers):
        for m in re.finditer(r"\{([A-Za-z][A-Za-z0-9\-_\s]*)\}", src):
            if m.group(1) not in datasets and m.group(1) not in wildcards:
                wildcards.append(m.group(1))
    names = _lmsexport_names(raw_names + wildcards)
    if own is not None:
        names = {n: n for n in raw_names}
    if any(d.status == "shared" for d in calc.datasets):
        texts.lose(
            "shared datasets (read as the question's own: Moodle reuses a category dataset of the same "
            "name and options when there is one)"
        )
    if calc.synchronize:
        texts.lose(f"the datasets' synchronisation (synchronize {calc.synchronize})")
    count = min((d.itemcount for d in calc.datasets), default=0)
    given: list[variants.Given] = []
    missing: list[int] = []
    for k in range(1, count + 1):
        if all(k in d.items for d in calc.datasets):
            given.append(
                variants.Given(
                    {
                        names[n]: float(d.items[k])
                        for n, d in datasets.items()
                        if own is None or n in {v.name for v in own.variables}
                    }
                )
            )
        else:
            missing.append(k)
    if wildcards and given:
        shown = ", ".join("{" + w + "}" for w in wildcards)
        return f"its formulas use {shown}, which has no dataset (Moodle's attempts fail)"
    if missing:
        texts.lose(
            f"dataset items {', '.join(map(str, missing[:5]))} (a dataset lacks them: Moodle's attempt "
            "fails there)"
        )
    naturals = {
        names[n]
        for n, d in datasets.items()
        if d.items and all(float(v) >= 0 and float(v) == int(float(v)) for v in d.items.values())
    }
    ph = _Placeholders(names, naturals, texts)
    # The body's formulas.
    multi = mq.qtype == "calculatedmulti"
    answers = [a for a in calc.answers]
    answer_formula: Formula | None = None
    choices: list[CalcChoice] = []
    decimals = 2
    tolerance = Tolerance()
    units: tuple[Unit, ...] = ()
    own_meta = mq.meta.get(PARAM_META)
    meta_answer = own_meta.get("answer") if own is not None and isinstance(own_meta, dict) else None
    meta_choices = own_meta.get("choices") if own is not None and isinstance(own_meta, dict) else None

    def translate(text: str, what: str) -> fm.Expr | str:
        problem = find_formula_errors(text)
        if problem:
            return f"{what} {text[:60]!r} fails Moodle's formula check ({problem})"
        try:
            tree = fm.from_moodle(text, names, naturals)
        except fm.FormulaError as e:
            return f"{what} {text[:60]!r} cannot be written in lmsexport's formulas: {e.message}"
        return tree

    def tol_of(a: MoodleCalcAnswer) -> Tolerance:
        if a.tolerance_type == 2:
            return Tolerance(a.tolerance, ToleranceKind.ABSOLUTE)
        if a.tolerance_type not in (1, 2):
            texts.lose(
                f"the {TOLERANCE_TYPES.get(a.tolerance_type, str(a.tolerance_type))} tolerance "
                "(read as relative)"
            )
        return Tolerance(a.tolerance, ToleranceKind.RELATIVE)

    if not multi:
        keys = [a for a in answers if a.text.text != "*"]
        for a in answers:
            if a.text.text == "*" and a.fraction:
                texts.lose(f"the answer '*' worth {format_percent(a.fraction)}% (any number)")
            elif a.text.text == "*" and a.feedback is not None and a.feedback.text:
                texts.lose("the feedback for any other answer ('*')")
        if not keys:
            return "it has no answer formula"
        best = next((a for a in keys if a.fraction == 1), max(keys, key=lambda a: a.fraction))
        if best.fraction != 1:
            texts.lose(f"the credit of its answer ({format_percent(best.fraction)}%, read as 100%)")
        for a in keys:
            if a is not best:
                texts.lose(
                    f"the answer {a.text.text[:40]!r} worth {format_percent(a.fraction)}% (the model has "
                    "one answer formula)"
                )
        if best.feedback is not None and best.feedback.text:
            texts.lose("the feedback of the answer")
        tree = translate(best.text.text, "the answer formula")
        if isinstance(tree, str):
            return tree
        answer_formula = Formula(meta_answer if isinstance(meta_answer, str) else fm.to_source(tree))
        tolerance = tol_of(best)
        decimals = best.answer_length
        if best.answer_format == 2:
            texts.lose(f"the answer shown with {best.answer_length} significant figures (read as decimals)")
        units = _calc_units(mq, texts)
    else:
        lengths = {a.answer_length for a in answers}
        if len(lengths) > 1:
            texts.lose(
                f"choices shown with different decimals ({', '.join(map(str, sorted(lengths)))}; read as "
                f"{answers[0].answer_length})"
            )
        if answers:
            decimals = answers[0].answer_length
            tolerance = tol_of(answers[0])
            if answers[0].answer_format == 2:
                texts.lose("choices shown with significant figures (read as decimals)")
        for n, a in enumerate(answers, 1):
            plain, _ = a.text.plain_and_lang()
            plain = plain.strip()
            whole = FORMULAS_IN_TEXT.fullmatch(plain)
            inner = whole.group(1) if whole else plain
            tree = translate(inner, f"choice {n}")
            if isinstance(tree, str):
                return tree
            if a.text.has_markup:
                texts.lose(f"the markup of choice {n}")
            feedback = texts.text(a.feedback)[0]
            ftext = (
                meta_choices[n - 1]
                if isinstance(meta_choices, list) and len(meta_choices) == len(answers)
                else fm.to_source(tree)
            )
            choices.append(CalcChoice(Formula(ftext), _credit(a.fraction), feedback, loc=a.text.loc))
        if len(choices) < 2:
            return f"it has {len(choices)} choice(s)"
    # The texts' wildcards and formulas.
    stem = ph.text(q.stem)
    explanation = ph.text(q.explanation)
    if own is not None:
        params = own
    else:
        variables: list[Variable] = []
        for raw in raw_names + wildcards:
            ds = datasets.get(raw)
            name = names[raw]
            if ds is None:
                variables.append(
                    RangeVariable(name, DEFAULT_DATASET[1], DEFAULT_DATASET[2], 0.1, DEFAULT_DATASET[3])
                )
            elif given:
                variables.append(
                    _dataset_variable(
                        ds, name, [ds.items[k] for k in range(1, count + 1) if k not in missing]
                    )
                )
            else:
                step = float(Decimal(1).scaleb(-ds.decimals))
                low, high = sorted((ds.minimum, ds.maximum))
                variables.append(RangeVariable(name, low, high, step, ds.decimals))
        params = Parameters(tuple(variables))
    return _finish_parametric(
        mq,
        q,
        texts,
        ph,
        params,
        given,
        stem,
        explanation,
        answer_formula,
        choices,
        tolerance,
        decimals,
        units,
        multi and not calc.single,
    )


def _distinct_choices(
    drawn: tuple[Variant, ...], choices: list[CalcChoice], decimals: int, texts: TextSource
) -> tuple[list[CalcChoice], set[int]] | str | None:
    """Moodle shows two choices that show the same number as two equal options; lmsexport's
    loader refuses them. A wrong choice equal to another in every variant is left out (named),
    then each variant where two choices still show the same is (named); None: nothing to do."""

    def shown(v: Variant, i: int) -> str:
        return fm.format_value(v.choices[i], decimals)

    n = len(choices)
    dropped: set[int] = set()
    for i in range(n):
        for j in range(i + 1, n):
            if i in dropped or j in dropped:
                continue
            if all(shown(v, i) == shown(v, j) for v in drawn):
                gone = j if not choices[j].earns else i if not choices[i].earns else None
                if gone is None:
                    return f"its right choices {i + 1} and {j + 1} show the same number in every variant"
                dropped.add(gone)
                texts.lose(
                    f"choice {gone + 1}, which shows the same number as choice {i + j + 1 - gone} in "
                    "every variant"
                )
    keep = [i for i in range(n) if i not in dropped]
    numbers = {v.number for v in drawn if len({shown(v, i) for i in keep}) == len(keep)}
    if len(numbers) < len(drawn):
        bad = [v.number for v in drawn if v.number not in numbers]
        texts.lose(
            f"dataset items {', '.join(map(str, bad[:5]))}{' ...' if len(bad) > 5 else ''}, where two "
            "choices show the same number"
        )
    if not numbers:
        return "two choices show the same number in every variant"
    if not dropped and len(numbers) == len(drawn):
        return None
    kept = [choices[i] for i in keep]
    if len(kept) < 2:
        return "fewer than 2 distinct choices"
    return kept, numbers


def _finish_parametric(
    mq: MoodleQuestion,
    q: Question,
    texts: TextSource,
    ph: _Placeholders,
    params: Parameters,
    given: list[variants.Given],
    stem: Text | None,
    explanation: Text | None,
    answer: Formula | None,
    choices: list[CalcChoice],
    tolerance: Tolerance,
    decimals: int,
    units: tuple[Unit, ...],
    multiple: bool,
) -> Question | str:
    choices = [replace(c, feedback=ph.text(c.feedback)) for c in choices]
    q = _finish(mq, replace(q, stem=stem or q.stem, explanation=explanation), texts, ph.text)
    if ph.code:
        texts.lose("a code block holding wildcards (read as lines of inline code around them)")
    derived = tuple(Derived(name, Formula(fm.to_source(tree))) for name, tree in ph.formulas.values())
    params = replace(params, derived=params.derived + derived)
    correct = [i for i, c in enumerate(choices) if c.full] or [i for i, c in enumerate(choices) if c.earns]
    kw: dict[str, object] = {"tolerance": tolerance, "decimals": decimals}
    if answer is not None:
        kw["answer"] = answer
    else:
        kw["choices"] = [c.formula for c in choices]
        kw["correct"] = correct
    drawn: variants.Drawn | None
    try:
        if not given:
            texts.lose(
                "no dataset items (Moodle imports the question but no attempt can start: lmsexport drew "
                f"{variants.DEFAULT_COUNT} variants from the datasets' ranges)"
            )
            drawn = variants.draw(q.id, params, count=variants.DEFAULT_COUNT, **kw)  # type: ignore[arg-type]
        else:
            drawn = _draw_given(q.id, params, given, kw, texts)
    except SourceError as e:
        return e.diagnostics[0].message
    if drawn is None:
        return "no dataset item gives a usable variant"
    return _parametric_body(
        q, params, drawn, answer, choices, tolerance, decimals, units, multiple, kw, texts
    )


def _draw_given(
    qid: str, params: Parameters, given: list[variants.Given], kw: dict[str, object], texts: TextSource
) -> variants.Drawn | None:
    """The variants of a question's dataset items, leaving out (and naming) each item that
    gives no usable variant on its own; None when none does. Raises SourceError for a problem
    of the kept items together. All of them are tried at once first: a draw of items that
    each pass is the draw of the kept ones (the common case: one draw, not one per item)."""
    try:
        return variants.draw(qid, params, given=given, **kw)  # type: ignore[arg-type]
    except SourceError:
        pass
    kept: list[variants.Given] = []
    dropped: list[tuple[int, str]] = []
    for n, g in enumerate(given, 1):
        try:
            variants.draw(qid, params, given=[g], **kw)  # type: ignore[arg-type]
            kept.append(g)
        except SourceError as e:
            dropped.append((n, e.diagnostics[0].message))
    if dropped:
        texts.lose(
            f"dataset items {', '.join(str(n) for n, _ in dropped[:5])}"
            f"{' ...' if len(dropped) > 5 else ''} ({dropped[0][1]})"
        )
    if not kept:
        return None
    return variants.draw(qid, params, given=kept, **kw)  # type: ignore[arg-type]


def _parametric_body(
    q: Question,
    params: Parameters,
    drawn: variants.Drawn,
    answer: Formula | None,
    choices: list[CalcChoice],
    tolerance: Tolerance,
    decimals: int,
    units: tuple[Unit, ...],
    multiple: bool,
    kw: dict[str, object],
    texts: TextSource,
) -> Question | str:
    """The question with its Calculated or CalculatedChoice body, from its drawn variants: the
    key's decimals raised until the key shown is graded right, a choice question's choices
    refitted until they read apart."""
    if answer is not None:
        # The key shown with its decimals must itself be graded right (the loader asks it, as
        # Moodle's dataset page warns "outside limits of true value"; Moodle imports it).
        need = next(
            (
                d
                for d in range(decimals, 16)
                if all(
                    v.answer is not None
                    and variants.accepts(v.answer, tolerance, fm.round_value(v.answer, d))
                    for v in drawn.variants
                )
            ),
            decimals,
        )
        if need > decimals:
            texts.lose(
                f"the right answer shown with {decimals} decimals, outside its tolerance in some variants "
                f"(Moodle's dataset page says so; read as {need} decimals)"
            )
            decimals = need
    else:
        refit = _distinct_choices(drawn.variants, choices, decimals, texts)
        if isinstance(refit, str):
            return refit
        if refit is not None:
            choices, kept_numbers = refit
            kw["choices"] = [c.formula for c in choices]
            kw["correct"] = [i for i, c in enumerate(choices) if c.full] or [
                i for i, c in enumerate(choices) if c.earns
            ]
            again = [
                variants.Given(dict(v.values[: len(params.variables)]))
                for v in drawn.variants
                if v.number in kept_numbers
            ]
            try:
                drawn = variants.draw(q.id, params, given=again, **kw)  # type: ignore[arg-type]
            except SourceError as e:
                return e.diagnostics[0].message
    body: Calculated | CalculatedChoice
    if answer is not None:
        body = Calculated(params, answer, tolerance, decimals, units, drawn.variants)
    else:
        body = CalculatedChoice(params, tuple(choices), multiple, decimals, tolerance, drawn.variants)
    return replace(q, body=body)


DRAGGING_LOST = (
    "a drag-and-drop into text question (ddwtos) is read as a cloze question with a drop-down list "
    "per gap: the dragging is not carried"
)


def _gapped(stem: Text, n: int, marks: GapMarks) -> tuple[Rich | None, bool]:
    """A stem whose text holds marks.mark(k) as the Rich tree with Gap(k) in their places, or None
    when the markers are not 1 to n once each in reading order (one fell inside a formula, code
    or an attribute, where the model has no blank), and whether a code block held a blank (the
    model's code blocks hold text only: it is read as lines of inline code around the blanks)."""
    rich = rich_of_words(stem) if isinstance(stem, str) else stem
    code_blocks = False
    marker = marks.pattern

    def code(text: str) -> list[Inline]:
        out: list[Inline] = []
        for i, part in enumerate(marker.split(text)):
            if i % 2:
                out.append(Gap(int(part)))
            elif part:
                out.append(Code(part))
        return out

    def inlines(xs: tuple[Inline, ...]) -> tuple[Inline, ...]:
        out: list[Inline] = []
        for x in xs:
            if isinstance(x, Str):
                parts = marker.split(x.text)
                for i, part in enumerate(parts):
                    if i % 2:
                        out.append(Gap(int(part)))
                    elif part:
                        out.append(Str(part))
            elif isinstance(x, Emph | Strong):
                out.append(type(x)(inlines(x.children)))
            elif isinstance(x, Link):
                out.append(replace(x, children=inlines(x.children)))
            elif isinstance(x, Code) and marks.open in x.text:
                out.extend(code(x.text))
            else:
                out.append(x)
        return tuple(out)

    def block(b: Block) -> Block:
        nonlocal code_blocks
        if isinstance(b, CodeBlock) and marks.open in b.text:
            code_blocks = True
            lines: list[Inline] = []
            for i, line in enumerate(b.text.rstrip("\n").split("\n")):
                if i:
                    lines.append(LineBreak())
                lines.extend(code(line))
            return Para(tuple(lines))
        if isinstance(b, Para):
            return Para(inlines(b.children))
        if isinstance(b, BulletList | OrderedList):
            return replace(b, items=tuple(tuple(block(c) for c in item) for item in b.items))
        if isinstance(b, Table):
            return replace(
                b,
                header=tuple(inlines(c) for c in b.header),
                rows=tuple(tuple(inlines(c) for c in row) for row in b.rows),
            )
        return b

    out = Rich(tuple(block(b) for b in rich.blocks))
    if [x.n for x in inlines_of(out) if isinstance(x, Gap)] != list(range(1, n + 1)):
        return None, code_blocks
    if marks.open in plain_text(out):
        return None, code_blocks
    return out, code_blocks


def _html(text: str, mq: MoodleQuestion) -> MoodleText:
    return MoodleText(text, "html", mq.loc, mq.text.files if mq.text else ())


def _cloze(mq: MoodleQuestion, texts: TextSource, quiz_lang: str, qlang: str) -> Cloze | None:
    """Each subquestion a blank, as qtype_multianswer_extract_question() stored it: a short answer
    (SHORTANSWER_C case sensitive), a numerical one without units, a choice (its layout, shuffling,
    MULTIRESPONSE several picks); a last `*` at 0 % the feedback for any other response."""
    blanks: list[TextBlank | NumberBlank | ChoiceBlank] = []
    ranges = mq.meta.get("blank_ranges")
    for k, sub in enumerate(mq.cloze, 1):
        weight = int(sub.weight) if sub.weight else 1
        if weight < 1:
            texts.lose(f"blank {k}'s weight 0 (read as 1)")
            weight = 1
        alts = list(sub.alternatives)
        other = None
        if sub.qtype != "multichoice":
            for i, a in enumerate(alts):
                if a.text.strip() == "*" and a.fraction == 0:
                    if i < len(alts) - 1:
                        texts.unreachable(f"{len(alts) - i - 1} answer(s) of blank {k} after '*'")
                    other = texts.text(_html(a.feedback, mq))[0] if a.feedback else None
                    if other is None:
                        other = ""
                    alts = alts[:i]
                    break
        feedbacks = [texts.text(_html(a.feedback, mq))[0] if a.feedback else None for a in alts]
        if sub.qtype == "shortanswer":
            answers: list[Answer] = []
            for a, fb in zip(alts, feedbacks, strict=True):
                text, wildcard, exact = read_wildcard(a.text.strip())
                if not exact:
                    texts.lose(f"the literal '*' of wildcard answer {a.text!r} (read as a wildcard)")
                if not text or any(x.text == text for x in answers):
                    continue
                credit = _positive(Fraction(a.fraction).limit_denominator(10**7), f"answer {text!r}", texts)
                answers.append(Answer(text, exact_credit(credit), fb, wildcard, loc=mq.loc))
            if not any(a.credit == 1 for a in answers):
                return None
            blanks.append(TextBlank(tuple(answers), bool(sub.layout), other or None, weight, loc=mq.loc))
        elif sub.qtype == "numerical":
            keys: list[NumericKey] = []
            own = ranges.get(str(k)) if isinstance(ranges, dict) else None
            for i, (a, fb) in enumerate(zip(alts, feedbacks, strict=True)):
                if a.tolerance is None:
                    texts.lose(f"the answer {a.text!r} of blank {k} (any number)")
                    continue
                value = float(a.text.replace(",", "."))
                tolerance = float(a.tolerance.replace(",", "."))
                credit = exact_credit(max(a.fraction, 0.0))
                key = NumericKey(value, tolerance, credit=credit, feedback=fb, loc=mq.loc)
                bounds = own[i] if isinstance(own, list) and i < len(own) else None
                if (
                    isinstance(bounds, list)
                    and len(bounds) >= 2
                    and is_midpoint(value, tolerance, *bounds[:2])
                ):
                    answer = bounds[2] if len(bounds) == 3 else None
                    key = NumericKey(answer, 0.0, bounds[0], bounds[1], credit, fb, loc=mq.loc)
                keys.append(key)
            if not any(x.credit == 1 for x in keys):
                return None
            blanks.append(NumberBlank(tuple(keys), other or None, weight, loc=mq.loc))
        else:
            choices = []
            for a, fb in zip(alts, feedbacks, strict=True):
                label, lang = texts.text(_html(a.text, mq))
                if label is None:
                    continue
                lang = lang or quiz_lang
                credit = exact_credit(round(a.fraction, 7))
                choices.append(Choice(label, credit, fb, lang if lang != qlang else None, loc=mq.loc))
            own_credits = mq.meta.get("blank_credits")
            kept = own_credits.get(str(k)) if isinstance(own_credits, dict) else None
            if isinstance(kept, list) and len(kept) == len(choices) and sub.multiple:
                # Credits Moodle rescales (their sum is not 1), as lmsexport's comment keeps them.
                choices = [replace(c, credit=float(x)) for c, x in zip(choices, kept, strict=True)]
            display = ChoiceDisplay(sub.layout) if isinstance(sub.layout, str) else ChoiceDisplay.DROPDOWN
            blanks.append(ChoiceBlank(tuple(choices), display, sub.multiple, sub.shuffle, weight, loc=mq.loc))
    return Cloze(tuple(blanks)) if blanks else None


def _gapselect(mq: MoodleQuestion, texts: TextSource) -> Cloze | None:
    """gapselect and ddwtos: one drop-down blank per gap, offering the choices of the right
    choice's group in their order, the right one full credit (qtype_gapselect_question_base
    grades each gap right or wrong, the question the share right)."""
    blanks: list[TextBlank | NumberBlank | ChoiceBlank] = []
    for k, right in enumerate(mq.gaps, 1):
        group = mq.drops[right - 1][1]
        alone = sum(1 for _, g, _ in mq.drops if g == group) < 2
        if alone:
            # Moodle shows a drop-down list of one choice, which a cloze blank cannot be (Moodle's
            # MULTICHOICE needs 2: qtype_multianswer_validate_question()).
            texts.lose(f"a group of one choice (gap {k} offers every choice of the question)")
        credits: dict[str, float] = {}
        for n, (text, g, _) in enumerate(mq.drops, 1):
            if g == group or alone:
                if text in credits and not alone:
                    texts.lose(
                        f"a second choice {text!r} of gap {k} (offered once, earning the better credit)"
                    )
                credits[text] = max(credits.get(text, 0.0), 1.0 if n == right else 0.0)
        choices = tuple(Choice(text, credit, loc=mq.loc) for text, credit in credits.items())
        blanks.append(ChoiceBlank(choices, ChoiceDisplay.DROPDOWN, False, bool(mq.shuffle), loc=mq.loc))
    if mq.qtype == "ddwtos" and any(d[2] for d in mq.drops):
        texts.lose("unlimited drag boxes (a choice usable in several gaps is offered in each)")
    return Cloze(tuple(blanks)) if blanks else None


def _ordering(mq: MoodleQuestion, texts: TextSource) -> Ordering | None:
    assert mq.ordering is not None
    layout, select, count, grading, show, numbering = mq.ordering
    items = [t for t in (texts.text(a.text)[0] for a in mq.answers) if t is not None]
    if len(items) < 2:
        return None
    kind = OrderingSelect(select)
    if kind is not OrderingSelect.ALL and count >= len(items):
        kind = OrderingSelect.ALL  # qtype_ordering_question::start_attempt(): all of them
    names = {v: k for k, v in ORDERING_GRADINGS.items()}
    return Ordering(
        tuple(items),
        OrderingGrading(names.get(grading, "relative_next_exclude_last")),
        kind,
        count if kind is not OrderingSelect.ALL else 0,
        Layout(layout),
        Numbering(numbering),
        show,
    )


def _choices(mq: MoodleQuestion, q: Question, texts: TextSource, quiz_lang: str) -> Body:
    """Each answer a choice earning its fraction (the exact credit its grade stands for); a
    multi-answer question whose grades are the default credits of its right choices, as Moodle
    stores them (model.default_multiple_credits()), gets those exact credits."""
    fractions = [a.fraction for a in mq.answers]
    credits = [_credit(f) for f in fractions]
    if not mq.single and any(f > 0 for f in fractions):
        default = default_multiple_credits([f > 0 for f in fractions])
        if all(f == nearest_grade(Fraction(c)) for f, c in zip(fractions, default, strict=True)):
            credits = list(default)
    qlang = q.lang or quiz_lang
    choices = []
    for a, credit in zip(mq.answers, credits, strict=True):
        text, lang = texts.text(a.text)
        if text is None:
            texts.lose("an empty answer")
            continue
        lang = lang or quiz_lang  # unmarked text is in the quiz's language
        choices.append(
            Choice(
                text=text,
                credit=credit,
                feedback=texts.text(a.feedback)[0],
                lang=lang if lang != qlang else None,
                loc=a.text.loc,
            )
        )
    return SingleChoice(tuple(choices)) if mq.single else MultipleChoice(tuple(choices))


def _any_other(
    mq: MoodleQuestion, texts: TextSource
) -> tuple[list[tuple[MoodleAnswer, Text | None]], Text | None]:
    """The answers that can match before a `*` at 0 %, with their feedback, and that `*`'s
    feedback: the model's feedback for any other response (Moodle tries answers in order, and `*`
    matches every response, so nothing after it is ever reached)."""
    kept: list[tuple[MoodleAnswer, Text | None]] = []
    for n, a in enumerate(mq.answers):
        feedback = texts.text(a.feedback)[0]
        if a.text.text == "*" and a.fraction == 0:
            if n < len(mq.answers) - 1:
                texts.unreachable(f"{len(mq.answers) - n - 1} answer(s) after the answer '*'")
            return kept, feedback
        kept.append((a, feedback))
    return kept, None


def _positive(fraction: Fraction, what: str, texts: TextSource) -> float:
    if fraction < 0:
        texts.lose(f"the negative credit of {what} ({format_percent(fraction)}%, read as 0%)")
        return 0.0
    return _credit(fraction)


def _short_answer(mq: MoodleQuestion, texts: TextSource) -> ShortAnswer | None:
    kept, other = _any_other(mq, texts)
    answers: list[Answer] = []
    for a, feedback in kept:
        text, wildcard, exact = read_wildcard(a.text.text)
        if not exact:
            texts.lose(f"the literal '*' of wildcard answer {a.text.text!r} (read as a wildcard)")
        if any(x.text == text for x in answers):
            texts.unreachable(f"a second answer {text!r}")
            continue
        credit = _positive(a.fraction, f"answer {text!r}", texts)
        answers.append(Answer(text, credit, feedback, wildcard, loc=a.text.loc))
    if not any(a.credit == 1 for a in answers):
        return None
    return ShortAnswer(tuple(answers), case_sensitive=mq.case_sensitive, other_feedback=other)


def _numerical(mq: MoodleQuestion, texts: TextSource) -> Numerical | None:
    kept, other = _any_other(mq, texts)
    keys: list[NumericKey] = []
    for a, feedback in kept:
        if a.text.text == "*":
            texts.lose(f"the answer '*' worth {format_percent(a.fraction)}% (any number)")
            continue
        value = php_number(a.text.text)
        if value is None:
            continue  # the XML reader has refused it
        tolerance = abs(php_number(a.tolerance) or 0.0) if a.tolerance else 0.0
        credit = _positive(a.fraction, f"answer {a.text.text!r}", texts)
        keys.append(
            NumericKey(answer=value, tolerance=tolerance, credit=credit, feedback=feedback, loc=a.text.loc)
        )
    if not keys:
        return None
    keys = _ranges(mq, keys)
    if not mq.units or mq.show_units == SHOWUNITS_NONE:
        # No units, or units Moodle does not use (UNITNONE: only the number is graded, a unit is
        # refused): either way the model's no units.
        return Numerical(keys=tuple(keys), other_feedback=other)
    grading = {v: k for k, v in UNIT_GRADING.items()}.get(mq.unit_grading)
    if grading is None:
        texts.lose(f"its unit grading {mq.unit_grading} (read as units optional)")
        grading = UnitGrading.OPTIONAL
    unit_input = {v: k for k, v in UNIT_INPUT.items()}.get(mq.show_units or 0, UnitInput.TEXT)
    penalty = mq.unit_penalty
    if not 0 <= penalty <= 1:
        texts.lose(f"its unit penalty {penalty:g} (read as {min(max(penalty, 0.0), 1.0):g})")
        penalty = min(max(penalty, 0.0), 1.0)
    return Numerical(
        keys=tuple(keys),
        units=tuple(Unit(u.name, u.multiplier) for u in mq.units),
        unit_grading=grading,
        unit_penalty=penalty,
        unit_input=unit_input,
        units_left=mq.units_left,
        other_feedback=other,
    )


def _ranges(mq: MoodleQuestion, keys: list[NumericKey]) -> list[NumericKey]:
    """lmsexport's ranges (its comment's `range` and `answer` for one key, `ranges` for several),
    where the visible key is the one its writer derives from the range (a midpoint and
    half-width: lmsexport.moodlexml.midpoint())."""
    many = mq.meta.get("ranges")
    one = mq.meta.get("range")
    if isinstance(many, list) and len(many) == len(keys):
        bounds = many
    elif isinstance(one, list) and len(keys) == 1:
        answer = mq.meta.get("answer")
        bounds = [[*one, answer] if isinstance(answer, int | float) else one]
    else:
        return keys
    out = []
    for key, b in zip(keys, bounds, strict=True):
        if isinstance(b, list) and len(b) in (2, 3):
            low, high = float(b[0]), float(b[1])
            if key.answer is not None and is_midpoint(key.answer, key.tolerance, low, high):
                key = replace(
                    key, answer=float(b[2]) if len(b) == 3 else None, tolerance=0.0, low=low, high=high
                )
        out.append(key)
    return out


def _essay(mq: MoodleQuestion, texts: TextSource) -> Essay:
    e = mq.essay or MoodleEssay()
    formats = {v: k for k, v in RESPONSE_FORMATS.items()}
    response_format = formats.get(e.response_format)
    if response_format is None:
        response_format = ResponseFormat.EDITOR
        if e.response_format == "editorfilepicker":
            texts.lose("the editor's file picker (files in the response)")
        else:
            texts.lose(f"the response format {e.response_format!r} (read as the editor)")
    allowed = max(e.attachments, -1)
    # save_question_options(): no files allowed keeps none required.
    required = max(e.attachments_required, 0) if allowed else 0
    if allowed >= 0:
        required = min(required, allowed)
    if response_format is ResponseFormat.NONE and not (allowed and required):
        # Moodle's form refuses files only without a file allowed and required (as the loader
        # does): the least it would take.
        allowed, required = allowed or int(NOINLINE_ATTACHMENTS), required or int(NOINLINE_ATTACHMENTS)
    if (allowed, required) != (e.attachments, e.attachments_required if e.attachments else 0):
        texts.lose(
            f"its attachments as written ({e.attachments} allowed, {e.attachments_required} required; "
            f"read as {allowed} and {required})"
        )
    listed = file_types_of(e.file_types) if allowed else []
    file_types = tuple(t for t in listed if FILE_TYPE_RE.fullmatch(t))
    if len(file_types) < len(listed):
        texts.lose(f"file types {', '.join(t for t in listed if t not in file_types)}")
    max_bytes = max(e.max_bytes, 0) if allowed else 0
    template = texts.text(e.template)[0] if e.template is not None and e.template.text else None
    own = mq.meta.get("template_html")
    if isinstance(own, str) and e.template is not None:
        # A rich template with markup, written as a plain box's text: lmsexport's comment has it.
        template = texts.text(MoodleText(own, "html", e.template.loc))[0]
    elif isinstance(template, str) and mq.meta.get("template_rich") is True:
        # A rich template lmsexport wrote as plain text (for a plain text box): its words.
        template = rich_of_words(template)
    return Essay(
        response_format=response_format,
        required=e.required,
        lines=e.lines,
        min_words=e.min_words,
        max_words=e.max_words,
        template=template,
        grader_info=texts.text(e.grader_info)[0],
        attachments=allowed,
        attachments_required=required,
        file_types=file_types,
        max_bytes=max_bytes,
    )


# -- the check's mapping ---------------------------------------------------------------


class _Mapper:
    """Turns MoodleQuestions into Questions, collecting diagnostics."""

    def __init__(self, quiz_lang: str, foreign: bool = True) -> None:
        self.quiz_lang = quiz_lang
        self.foreign = foreign
        """Whether the file is not lmsexport's (no metadata of ours): HTML is read leniently."""
        self.diags: list[Diagnostic] = []
        self.markup = False
        self.lost: list[str] = []
        """What the current question's HTML had that the model has no place for."""

    def warn(self, q: MoodleQuestion, message: str, rule: str) -> None:
        self.diags.append(Diagnostic(q.loc, message, Severity.WARNING, rule))

    def error(self, q: MoodleQuestion, message: str, rule: str) -> None:
        self.diags.append(Diagnostic(q.loc, message, Severity.ERROR, rule))

    def _lose(self, what: str) -> None:
        if what not in self.lost:
            self.lost.append(what)

    def plain_and_lang(self, t: MoodleText | None) -> tuple[str | None, str | None]:
        if t is None or not t.text:
            return None, None
        if t.format != "html":
            return t.text, None
        # t.plain_and_lang() and t.has_markup in one pass: has_markup() looks at this very inner
        # text (split_lang(split_tex_ignore(text))), and markup needs a "<" in it.
        lang, inner = split_lang(split_tex_ignore(t.text))
        if not self.markup and "<" in inner:
            self.markup = has_markup(t.text)
        return html_to_plain(inner), lang

    def text_and_lang(self, t: MoodleText | None) -> tuple[Text | None, str | None]:
        """A formatted text as the model holds it, and the language lmsexport's wrapper names.

        A text that starts with a block element (lmsexport.moodle.split_rich) is rich: read by
        readers/richhtml.py, its images from the field's `<file>`s (or data: URIs), exactly for
        lmsexport's own files and leniently for others. In a file from elsewhere, any other HTML
        markup is read the same way, and a text that is one paragraph of words comes back plain.
        Everything else is plain text (plain_and_lang).
        """
        if t is None or not t.text or t.format != "html" or "<" not in t.text:
            return self.plain_and_lang(t)
        # A text that starts with a <span> (lmsexport's language wrapper: most texts it writes)
        # is never rich: split_rich() wants a <div lang> or a block element first.
        found = None if t.text.lstrip().startswith("<span") else split_rich(t.text)
        if found is None and self.foreign and t.has_markup:
            found = split_lang(split_tex_ignore(t.text))
        if found is None:
            return self.plain_and_lang(t)
        lang, blocks = found
        rich = self.read_rich(t, blocks)
        if rich is None:
            return None, lang
        if self.foreign:
            inlines = rich.inline
            if inlines is not None and all(isinstance(x, Str | LineBreak) for x in inlines):
                return "".join(x.text if isinstance(x, Str) else "\n" for x in inlines), lang
        return rich, lang

    def read_rich(self, t: MoodleText, html_text: str) -> Rich | None:
        """The tree of an HTML text, its images resolved from the field's files."""
        files = {f.path + f.name: f for f in t.files}
        used: set[str] = set()
        refused: set[str] = set()

        def image(src: str) -> Media | None:
            loc = t.loc
            try:
                if src.startswith(PLUGINFILE):
                    key = "/" + urllib.parse.unquote(src[len(PLUGINFILE) :])
                    f = files.get(key)
                    if f is None:
                        return None  # the XML reader has warned: moodlexml.missing-file
                    used.add(key)
                    loc = f.loc or loc
                    return media_from_bytes(decode_base64(f.data), f.name)
                return media_from_data_uri(src)
            except MediaError as e:
                self.diags.append(
                    Diagnostic(
                        loc,
                        f"the image '{src[:60]}' cannot be read: {e}",
                        Severity.ERROR,
                        "moodlexml.bad-image",
                    )
                )
                refused.add(f"the image '{src[:60]}'")  # as read_html names a lost image
                return None

        rich, lost = read_html(html_text, image, foreign=self.foreign)
        for what in lost:
            if what not in refused:
                self._lose(what)
        if len(used) < len(files):
            self._lose("embedded files no image shows")
        return rich

    def plain(self, t: MoodleText | None) -> Text | None:
        return self.text_and_lang(t)[0]

    def question(self, mq: MoodleQuestion, n: int) -> Question | None:
        self.markup = False
        self.lost = []
        qid = mq.idnumber if mq.idnumber else f"q{n}"
        if not _ID_RE.match(qid):
            self.warn(mq, f"ID number {qid!r} is not a valid lmsexport id; using 'q{n}'", "moodlexml.bad-id")
            qid = f"q{n}"
        stem, stem_lang = self.text_and_lang(mq.text)
        if not stem:
            self.error(mq, f"question {qid!r} has no question text", "moodlexml.empty-stem")
            return None
        if not (math.isfinite(mq.mark) and mq.mark > 0) and mq.qtype != "description":
            self.error(
                mq,
                f"question {qid!r} is worth {mq.mark:g} points; lmsexport needs a mark above 0",
                "moodlexml.bad-mark",
            )
            return None
        difficulty = mq.meta.get("difficulty")
        q = Question(
            id=qid,
            stem=stem,
            body=Essay(),
            explanation=self.plain(mq.general_feedback),
            points=mq.mark,
            lang=stem_lang if stem_lang != self.quiz_lang else None,
            tags=mq.tags,
            difficulty=Difficulty(difficulty) if isinstance(difficulty, str) else None,
            loc=mq.loc,
        )
        self.unreached: list[str] = []
        typed = to_model(mq, q, self, self.quiz_lang)
        if typed is None and mq.calc is not None:
            self.warn(
                mq,
                f"question {qid!r} ({mq.qtype}) left out: {'; '.join(self.lost)}",
                "moodlexml.calculated-skipped",
            )
        for what in self.unreached:
            self.warn(
                mq,
                f"question {qid!r}: {what} left out: Moodle tries answers in order, and no response "
                "reaches it",
                "moodlexml.unreachable-answer",
            )
        if (
            isinstance(typed, Question)
            and isinstance(typed.body, MultipleChoice)
            and not typed.body.key_indexes
        ):
            self.error(mq, f"question {qid!r}: no answer has a positive fraction", "moodlexml.bad-key")
            return None
        if typed is not None and mq.qtype == "ddwtos":
            self.warn(mq, f"question {qid!r}: {DRAGGING_LOST}", "moodlexml.dragging-not-carried")
        if typed is not None:
            dropped = list(mq.dropped) + self.lost
            if self.markup:
                dropped.append("HTML markup other than <br> (kept as text)")
            if dropped:
                self.warn(
                    mq,
                    f"question {qid!r}: the model has no place for {', '.join(dropped)}; dropped",
                    "moodlexml.dropped",
                )
        return typed

    def text(self, t: MoodleText | None) -> tuple[Text | None, str | None]:
        return self.text_and_lang(t)

    def lose(self, what: str) -> None:
        self._lose(what)

    def unreachable(self, what: str) -> None:
        self.unreached.append(what)


def _default_quiz_id(path: str) -> str:
    name = PurePosixPath(path.replace("\\", "/")).name
    return name[: -len(".xml")] if name.lower().endswith(".xml") else name


def read_quiz(
    data: bytes, path: str, *, quiz_id: str | None = None, lang: str | None = None
) -> tuple[Quiz, list[Diagnostic]]:
    """A Moodle XML file as one Quiz, with the warnings; raises MoodleXmlError with every error.

    An assessment's file (lmsexport.writers.moodlexml.write_assessment) reads as the quiz of every
    question an attempt may show: the assessment's id, title, language and description, each
    question once, in file order, as writers.moodlexml.as_in_assessment gives it (worth its points
    in the assessment), and no category (it has one per draw; read_assessment gives the draws back).
    """
    quiz, diags, _, _ = _read(data, path, quiz_id, lang)
    return quiz, diags


def _read(
    data: bytes, path: str, quiz_id: str | None, lang: str | None
) -> tuple[Quiz, list[Diagnostic], dict[str, object], dict[str, str]]:
    """read_quiz, plus an assessment file's metadata (else {}) and each question's category."""
    mx = read_moodlexml(data, path)
    meta = mx.meta or mx.assessment_meta
    assessment = bool(mx.assessment_meta) and not mx.meta
    quiz_lang = lang or str(meta.get("lang") or "und")
    mapper = _Mapper(quiz_lang, foreign=not meta)
    category: MoodleQuestion | None = None
    current: str | None = None
    category_of: dict[str, str] = {}
    questions: list[Question] = []
    seen: dict[str, SourceLoc] = {}
    shuffles: list[bool] = []
    for mq in mx.questions:
        if mq.qtype == "category":
            if category is not None and mq.category != category.category and not assessment:
                mapper.warn(
                    mq, "a quiz has one category: this category is ignored", "moodlexml.extra-category"
                )
            category = category or mq
            current = mq.category
            continue
        q = mapper.question(mq, len(questions) + 1)
        if q is None:
            continue
        if q.id in seen:
            mapper.error(
                mq,
                f"question id {q.id!r} is used twice (first at {seen[q.id]}); Moodle drops the "
                "second's ID number",
                "moodlexml.duplicate-id",
            )
            continue
        seen[q.id] = mq.loc
        if mq.shuffle is not None:
            shuffles.append(mq.shuffle)
        questions.append(q)
        if current is not None:
            category_of[q.id] = current
    if not questions and not any(d.severity is Severity.ERROR for d in mapper.diags):
        mapper.diags.append(
            Diagnostic(SourceLoc(path), "no question lmsexport can hold", rule="moodlexml.no-questions")
        )
    # The first category's description is the quiz's (or the assessment's): the writer puts it there.
    description: Text | None = None
    if category is not None and category.info is not None and category.info.text:
        mapper.lost = []
        description = mapper.text_and_lang(category.info)[0]
        if mapper.lost:
            mapper.diags.append(
                Diagnostic(
                    category.loc,
                    f"the category's description: the model has no place for "
                    f"{', '.join(mapper.lost)}; dropped",
                    Severity.WARNING,
                    "moodlexml.dropped",
                )
            )
    if any(d.severity is Severity.ERROR for d in mapper.diags):
        raise MoodleXmlError(_sorted(mx.warnings + mapper.diags))
    # A category named '' ('$course$/top/', or no category text: Moodle creates one of that name)
    # has no place in a category path (the loader refuses an empty name): left out.
    names = [n for n in split_category_path(category.category or "") if n] if category is not None else []
    if meta:
        shuffle = bool(meta.get("shuffle", True))
        quiz_category = None if assessment else meta.get("category")
    else:
        if len(set(shuffles)) > 1:
            mapper.diags.append(
                Diagnostic(
                    SourceLoc(path),
                    "questions disagree on shuffling; the model has one setting per quiz: not shuffled",
                    Severity.WARNING,
                    "moodlexml.mixed-shuffle",
                )
            )
        shuffle = all(shuffles)
        quiz_category = "/".join(names) if names else None
    qid = quiz_id or str(meta.get("id") or _default_quiz_id(path))
    difficulty = meta.get("difficulty")
    quiz = Quiz(
        id=qid,
        title=str(meta.get("title") or (names[-1] if names else qid)),
        lang=quiz_lang,
        questions=tuple(questions),
        description=description,
        difficulty=Difficulty(difficulty) if isinstance(difficulty, str) else None,
        category=quiz_category,  # type: ignore[arg-type]
        shuffle=shuffle,
        loc=SourceLoc(path),
    )
    return quiz, _sorted(mx.warnings + mapper.diags), mx.assessment_meta if assessment else {}, category_of


def read_assessment(data: bytes, path: str) -> tuple[Assessment, list[Diagnostic]]:
    """An assessment's Moodle XML file (lmsexport.writers.moodlexml.write_assessment) as the
    Assessment it was written from; raises MoodleXmlError with every error.

    Sections, titles, shuffling, draw names, picks and points come from the file's
    `lmsexport-assessment` metadata; each draw's candidates are the questions in its category
    (what Moodle's random questions draw from), in file order, as writers.moodlexml.
    as_in_assessment gives them (worth the draw's points). A candidate's quiz is the assessment's
    header (the file has no home quizzes), and a random draw's pool is empty: its conditions were
    resolved into the category, and Moodle XML keeps no conditions.
    """
    quiz, diags, meta, category_of = _read(data, path, None, None)
    if "sections" not in meta:
        raise MoodleXmlError(
            [
                Diagnostic(
                    SourceLoc(path),
                    "not an assessment written by lmsexport: its '<!-- lmsexport-assessment: {...} -->' "
                    "comment is missing or malformed",
                    rule="moodlexml.not-an-assessment",
                )
            ]
        )
    return assessment_from_meta(quiz, meta, category_of, path), diags


def moodlexml_too_large(path: str, size: int) -> Diagnostic:
    """The diagnostic for a file over MAX_MOODLEXML_BYTES (the CLI checks the size before reading)."""
    return Diagnostic(
        SourceLoc(path),
        f"the file is {size:,} bytes; the limit for a Moodle XML file is {MAX_MOODLEXML_BYTES:,} bytes",
        rule="moodlexml.too-large",
        hint="split the questions into several files",
    )


def read_quiz_bytes(
    data: bytes, path: str, *, quiz_id: str | None = None, lang: str | None = None
) -> tuple[Quiz | None, list[Diagnostic]]:
    """A Moodle XML file's bytes as one Quiz and every diagnostic; never raises for bad input."""
    if len(data) > MAX_MOODLEXML_BYTES:
        return None, [moodlexml_too_large(path, len(data))]
    try:
        return read_quiz(data, path, quiz_id=quiz_id, lang=lang)
    except MoodleXmlError as e:
        return None, e.diagnostics
