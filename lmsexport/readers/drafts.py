"""What the import readers hand to lmsexport.importer: quizzes as found, before ids are made.

Each reader (readers/moodle_import.py for GIFT and Moodle XML, readers/qti21.py, readers/qti12.py)
turns one source into a ``Found``: draft quizzes whose questions are model ``Question``s without
their final id, the source's own id and name for each, the notes the YAML file will carry as
comments, what was skipped (a question type lmsexport lacks) and every diagnostic. The importer
then makes ids valid and unique across every source, fits what the loader would refuse, and
writes. Also here: the text helpers every reader shares (an HTML text as a model text, images
from data: URIs or package files).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import Diagnostic, Severity
from ..model import (
    Difficulty,
    Image,
    Inline,
    LineBreak,
    Media,
    Para,
    Question,
    Rich,
    SourceLoc,
    Str,
    Text,
)
from ..moodle import has_markup, html_to_plain, split_lang, split_tex_ignore
from .richhtml import ImageResolver, read_html

# --------------------------------------------------------------------------- drafts

QUIZ_LANG = "x-quiz-lang"
"""A choice's language when it is "the quiz's, whatever that turns out to be" (an unmarked choice
under a marked stem: GIFT and Moodle XML mark only what differs from the quiz); the importer
replaces it once the quiz's language is known (from the file, or --lang)."""


@dataclass
class DraftQuestion:
    """A question as read, before the importer gives it its id."""

    question: Question
    """The model question; its ``id`` is replaced by the importer."""
    raw_id: str | None = None
    """The source's own id (GIFT ``[id:]``, Moodle ID number, QTI identifier), if any."""
    name: str | None = None
    """The source's name or title of the question (GIFT ``::name::``, Moodle ``<name>``, QTI title)."""
    notes: list[str] = field(default_factory=list)
    """Comment lines the YAML file carries above the question (what changed or was not carried)."""


@dataclass
class DraftQuiz:
    """A quiz (a GIFT or Moodle category, a QTI test or package) as read."""

    raw_id: str | None
    """The source's id for it (a QTI test identifier), if any."""
    title: str
    lang: str | None
    """None when the source does not say (the importer takes --lang, else 'und')."""
    questions: list[DraftQuestion] = field(default_factory=list)
    description: Text | None = None
    difficulty: Difficulty | None = None
    category: str | None = None
    shuffle: bool = True
    own: bool = False
    """Written by lmsexport (its metadata is there): ids are kept as they are."""
    copies: bool = False
    """The questions of an lmsexport assessment's GIFT or Moodle XML file: copies of its quizzes'
    questions, dropped where the quizzes' own files are imported too."""
    origin: str = ""
    """The source file (or package!member), for the file's header comment."""
    kind: str = ""
    """What the source is, for the header: GIFT, Moodle XML, QTI 2.1, QTI 1.2..."""
    loc: SourceLoc | None = None


@dataclass
class DraftDraw:
    """One draw of an imported assessment: listed questions, or ``pick`` from a quiz of its own."""

    name: str | None
    questions: list[DraftQuestion] = field(default_factory=list)
    """Explicit draws: the questions, in order."""
    ids: list[str] = field(default_factory=list)
    """Draws of lmsexport's own assessment files: the question ids, in order (explicit draws), or
    the ids of every question the draw can yield (random draws, with ``pick``): the importer
    rebuilds a pool that selects exactly those."""
    pool: DraftQuiz | None = None
    """Random draws: the quiz holding the group's questions (pool: that quiz)."""
    pick: int | None = None
    points: float | None = None
    points_read_off: bool = False
    """``points`` were read off the items (lmsexport's QTI 1.2 and cartridge files write each
    candidate at its points in the draw): kept only where a question's own points differ."""


@dataclass
class DraftSection:
    title: str | None
    shuffle: bool = False
    draws: list[DraftDraw] = field(default_factory=list)


@dataclass
class DraftAssessment:
    """A test with random draws (QTI 2.1 selection, a Canvas question group) as read."""

    raw_id: str | None
    title: str
    lang: str | None
    sections: list[DraftSection] = field(default_factory=list)
    description: Text | None = None
    origin: str = ""
    kind: str = ""
    loc: SourceLoc | None = None
    own: bool = False
    """Written by lmsexport: its id is kept."""
    tagless: bool = False
    """Read from a format with no field for tags (QTI 1.2, Common Cartridge): a random draw that
    no pool of the imported questions selects exactly gives its candidates a tag of its own."""


@dataclass(frozen=True)
class Skipped:
    """A question lmsexport has no type for, left out (each one is also a warning)."""

    kind: str
    """The source's type, in words: cloze, calculated, drag-and-drop, description..."""
    loc: SourceLoc
    name: str | None = None


@dataclass
class Found:
    """Everything one source gave."""

    quizzes: list[DraftQuiz] = field(default_factory=list)
    assessments: list[DraftAssessment] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    diags: list[Diagnostic] = field(default_factory=list)

    def warn(self, loc: SourceLoc, message: str, rule: str, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(loc, message, Severity.WARNING, rule, hint))

    def error(self, loc: SourceLoc, message: str, rule: str, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(loc, message, Severity.ERROR, rule, hint))

    def skip(self, kind: str, loc: SourceLoc, name: str | None, why: str, rule: str) -> None:
        """Leave a question out: recorded for the summary and reported as a warning."""
        self.skipped.append(Skipped(kind, loc, name))
        who = f"question {name!r}" if name else "a question"
        self.warn(loc, f"{who} ({kind}) skipped: {why}", rule)

    def extend(self, other: Found) -> None:
        self.quizzes += other.quizzes
        self.assessments += other.assessments
        self.skipped += other.skipped
        self.diags += other.diags


# --------------------------------------------------------------------------- texts

_DIV_LANG = re.compile(r'<div lang="([A-Za-z0-9-]{1,35})" dir="(?:rtl|ltr)">(.*)</div>\Z', re.DOTALL)
"""The language marker lmsexport's GIFT and Moodle XML writers put around a rich text."""
_STYLE_ATTR = re.compile(r"<[A-Za-z][^>]*\sstyle\s*=", re.IGNORECASE)
_HARMLESS = frozenset({"<div>"})
"""What richhtml reports as not kept but whose content is all there: a plain container."""


def with_image(text: Text, media: Media, alt: str) -> Rich:
    """A text with an image shown after it (as Moodle shows a question's old image field)."""
    rich = text if isinstance(text, Rich) else plain_to_rich(text)
    return Rich((*rich.blocks, Para((Image(media, alt),))))


def simplify(rich: Rich) -> Text:
    """A foreign rich text that is only words in paragraphs as a plain text (paragraphs separated
    by a blank line, hard breaks as line breaks), so that a bank of plain questions stays plain."""
    paras: list[str] = []
    for block in rich.blocks:
        if not isinstance(block, Para) or not all(isinstance(x, Str | LineBreak) for x in block.children):
            return rich
        paras.append("".join(x.text if isinstance(x, Str) else "\n" for x in block.children))
    text = "\n\n".join(p.strip() for p in paras if p.strip())
    return text or rich


def plain_to_rich(text: str) -> Rich:
    """A plain text as the rich text a Markdown file holds for it: paragraphs at blank lines,
    hard breaks at single line breaks."""
    paras = []
    for chunk in re.split(r"\n[ \t]*\n+", text):
        lines = chunk.split("\n")
        inlines: list[Inline] = []
        for i, line in enumerate(lines):
            if i:
                inlines.append(LineBreak())
            inlines.append(Str(line))
        paras.append(Para(tuple(x for x in inlines if not (isinstance(x, Str) and not x.text))))
    return Rich(tuple(p for p in paras if p.children))


def html_text(
    html: str, foreign: bool, image: ImageResolver | None = None
) -> tuple[Text | None, str | None, list[str]]:
    """An HTML text (Moodle's html format, a QTI 1.2 text/html mattext) as a model text, the
    language its lmsexport wrapper names, and what could not be kept.

    lmsexport's own plain texts (escaped text with ``<br>``, in a ``<span lang dir>``) come back
    exactly; anything with markup is read by readers/richhtml.py (leniently when ``foreign``,
    simplified to plain text when it is only words in paragraphs).
    """
    # lmsexport's wrappers: a language (<span lang dir> around plain text, <div lang dir> around
    # blocks) and, around plain text that spells a TeX delimiter, Moodle's tex2jax_ignore span.
    lang, inner = split_lang(split_tex_ignore(html.strip()))
    if lang is None:
        m = _DIV_LANG.match(html.strip())
        if m is not None and "<div" not in m.group(2):
            lang, inner = m.group(1), m.group(2)
    if not has_markup(inner):
        text = html_to_plain(split_tex_ignore(inner))
        return (text.strip() or None), lang, []
    rich, lost = read_html(inner, image, foreign=foreign)
    lost = [x for x in lost if x not in _HARMLESS]
    if isinstance(image, Images):
        lost = image.lost(lost)
    if foreign and _STYLE_ATTR.search(inner):
        lost.append("inline styles (style attributes)")
    if rich is None:
        return None, lang, lost
    return (simplify(rich) if foreign else rich), lang, lost


def markdown_text(text: str, image: ImageResolver | None = None) -> tuple[Text | None, list[str]]:
    """A text in Moodle's Markdown format, rendered by markdown-it (CommonMark) and read as HTML."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(text)
    found, _, lost = html_text(html, True, image)
    return found, lost


# --------------------------------------------------------------------------- images


class Images:
    """An image resolver that remembers why each image it could not give was refused."""

    def __init__(self, lookup: ImageResolver) -> None:
        self.lookup = lookup
        self.problems: list[str] = []
        self._refused: set[str] = set()

    def __call__(self, src: str) -> Media | None:
        from ..media import MediaError

        try:
            found = self.lookup(src)
        except MediaError as e:
            problem = f"the image '{src[:60]}' ({e})"
            if problem not in self.problems:
                self.problems.append(problem)
            self._refused.add(f"the image '{src[:60]}'")  # as richhtml names an image it lost
            return None
        return found

    def lost(self, lost: list[str]) -> list[str]:
        """What a text lost, with this resolver's reasons for the images it refused: take the
        problems once (they are cleared) and drop richhtml's bare mention of the same images."""
        out = [x for x in lost if x not in self._refused] + self.problems
        self.problems = []
        self._refused = set()
        return out
