"""`lmsexport import`: question banks from Moodle (GIFT, Moodle XML) and QTI platforms (QTI 2.1 and
QTI 1.2 packages, Common Cartridges) as source files of this project's own format.

The steps, each a function the CLI calls (only the CLI writes anything):

1. ``find_sources``: what each path given is (by name, and for XML by its root element); a
   folder is searched for files of those kinds, and a folder holding ``imsmanifest.xml`` is an
   unpacked package;
2. ``read_sources``: every source through its reader (readers/moodle_import.py, readers/qti21.py,
   readers/qti12.py), which hand back draft quizzes (readers/drafts.py); then ``finish``: ids made
   valid and unique across everything imported (the original kept in a comment when it changed),
   languages made canonical, and whatever the loader would refuse fitted or left out with a
   warning (duplicate choices, a matching question with one pair, TeX the converter cannot take);
3. ``output_files``: the YAML files (writers/source.py; one per quiz, one per assessment) and the
   images beside them (``img/<sha256[:16]>.<ext>``);
4. ``verify``: the written files loaded again by the loader from where they were staged, and
   compared with what was imported: a difference is a warning naming the question.

Every source is untrusted input, read within the limits of validate and check (docs/security.md).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import assert_never

from .errors import Diagnostic, LmsExportError, Severity
from .model import (
    Answer,
    Assessment,
    Blank,
    Block,
    BulletList,
    Calculated,
    CalculatedChoice,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    Draw,
    Emph,
    Essay,
    Inline,
    LineBreak,
    Link,
    Matching,
    Math,
    Media,
    MultipleChoice,
    NumberBlank,
    Numerical,
    NumericKey,
    OrderedList,
    Ordering,
    OrderingSelect,
    OutcomeFeedback,
    Pair,
    Para,
    Pool,
    Question,
    Quiz,
    Rich,
    Section,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Strong,
    Table,
    Text,
    TextBlank,
    TrueFalse,
    default_multiple_credits,
    gaps_of,
    is_full,
    media_of,
    plain_text,
)
from .readers.drafts import (
    QUIZ_LANG,
    DraftAssessment,
    DraftDraw,
    DraftQuestion,
    DraftQuiz,
    Found,
    Skipped,
    plain_to_rich,
)
from .validate import MAX_MEMBER_BYTES

GIFT_SUFFIXES = (".gift", ".gift.txt")
XML_SUFFIXES = (".xml", ".qti")
PACKAGE_SUFFIXES = (".zip", ".imscc")
NAMED_SUFFIXES = (*GIFT_SUFFIXES, ".txt", *XML_SUFFIXES, *PACKAGE_SUFFIXES)
"""What a file named on the command line may be (a .txt file is read as GIFT)."""
KINDS = (
    "GIFT (.gift, .gift.txt, .txt), Moodle XML or QTI XML (.xml), QTI packages (.zip) and cartridges (.imscc)"
)

MAX_SOURCE_BYTES = MAX_MEMBER_BYTES
"""A single XML file larger than this is refused before it is read (a package member's limit)."""
MAX_ID_CHARS = 64
IMAGE_DIR = "img"
UNDETERMINED = "und"

_ID_RE = re.compile(r"[A-Za-z][A-Za-z0-9._-]*\Z")
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class ImportPathError(Exception):
    """A path given to import does not exist or is nothing import reads (a usage error)."""


# --------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class Source:
    path: Path
    kind: str
    """gift, moodlexml, qti21-file, qti12-file, package (a zip or .imscc), folder (unpacked package)."""

    @property
    def display(self) -> str:
        return self.path.as_posix()


def find_sources(paths: list[Path]) -> list[Source]:
    """What to read, in a stable order; raises ImportPathError for a missing path or a file named
    on the command line that is none of the kinds import reads."""
    out: dict[str, Source] = {}
    for p in paths:
        if p.is_dir():
            for s in _walk(p):
                out.setdefault(s.display, s)
        elif p.is_file():
            name = p.name.lower()
            if not name.endswith(NAMED_SUFFIXES):
                raise ImportPathError(f"{p}: import reads {KINDS}; this file is none of them")
            out.setdefault(p.as_posix(), Source(p, _file_kind(p)))
        else:
            raise ImportPathError(f"{p}: no such file or directory")
    return list(out.values())


def _holds_qti_test(folder: Path) -> bool:
    """Whether a folder holds a QTI 2 assessmentTest: an unpacked package without a manifest,
    whose items are read through the test rather than one by one."""
    for f in folder.iterdir():
        if f.suffix.lower() == ".xml" and f.is_file() and not f.is_symlink():
            with open(f, "rb") as fh:
                head = fh.read(4096)
            if b"<assessmentTest" in head and b"imsqti_v2" in head:
                return True
    return False


def _file_kind(p: Path) -> str:
    name = p.name.lower()
    if name.endswith(PACKAGE_SUFFIXES):
        return "package"
    if name.endswith(XML_SUFFIXES):
        return "xml"
    return "gift"


def _walk(root: Path) -> list[Source]:
    if (root / "imsmanifest.xml").is_file() or _holds_qti_test(root):
        return [Source(root, "folder")]
    found: list[Source] = []
    for child in sorted(root.iterdir(), key=lambda c: c.name):
        if child.name.startswith(".") or child.is_symlink():
            continue
        if child.is_dir():
            found += _walk(child)
        elif child.is_file() and child.name.lower().endswith(
            (*GIFT_SUFFIXES, *XML_SUFFIXES, *PACKAGE_SUFFIXES)
        ):
            found.append(Source(child, _file_kind(child)))
    return found


# --------------------------------------------------------------------------- reading


def read_source(source: Source) -> tuple[Found, str]:
    """One source through its reader: what it found, and what kind of source it was."""
    from .readers.packagefiles import open_folder, open_zip

    display = source.display
    if source.kind in ("package", "folder"):
        if source.kind == "package":
            files, refused = open_zip(source.path, display)
            if files is None:
                return Found(diags=refused), "package"
        else:
            files = open_folder(source.path, display)
        try:
            kind = _package_kind(source.path, display) if source.kind == "package" else _folder_kind(files)
            if kind == "qti21":
                from .readers.qti21 import read_package

                return read_package(files, display), "QTI 2.1 package"
            from .readers.qti12 import read_package as read_qti12

            return read_qti12(files, display), "Common Cartridge" if kind == "cc" else "QTI 1.2 package"
        finally:
            files.close()
    try:
        size = source.path.stat().st_size
        if size > MAX_SOURCE_BYTES and source.kind != "gift":
            return Found(diags=[_too_large(display, size)]), "file"
        data = source.path.read_bytes()
    except OSError as e:
        return Found(
            diags=[Diagnostic(SourceLoc(display), f"cannot read the file: {e.strerror}", rule="import.io")]
        ), "file"
    if source.kind == "gift":
        from .readers.moodle_import import import_gift

        return import_gift(data, display), "GIFT"
    root, problems = _sniff(data, display)
    if root is None:
        return Found(diags=problems), "XML"
    local, namespace = root
    if local == "quiz" and namespace is None:
        from .readers.moodle_import import import_moodlexml

        return import_moodlexml(data, display), "Moodle XML"
    if local == "questestinterop":
        from .readers.qti12 import read_document

        folder = open_folder(source.path.parent, source.path.parent.as_posix())
        return read_document(data, display, folder, source.path.name), "QTI 1.2"
    if (
        local in ("assessmentItem", "assessmentTest")
        and namespace is not None
        and "imsqti_v2" in namespace + "qtiv2"
    ):
        from .readers.qti21 import read_file

        folder = open_folder(source.path.parent, source.path.parent.as_posix())
        return read_file(folder, source.path.name, display), "QTI 2.1"
    if local == "manifest":
        return read_source(Source(source.path.parent, "folder"))
    what = f"<{local}>" + (f" in namespace {namespace}" if namespace else "")
    return (
        Found(
            diags=[
                Diagnostic(
                    SourceLoc(display, 1),
                    f"root element {what} is neither Moodle XML (<quiz>), QTI 1.2 (<questestinterop>) "
                    "nor a QTI 2.1 item or test: nothing to import",
                    rule="import.unknown-kind",
                )
            ]
        ),
        "XML",
    )


def _too_large(display: str, size: int) -> Diagnostic:
    return Diagnostic(
        SourceLoc(display),
        f"the file is {size:,} bytes; the limit for one file is {MAX_SOURCE_BYTES:,} bytes",
        rule="import.too-large",
        hint="split it into several files",
    )


def _sniff(data: bytes, display: str) -> tuple[tuple[str, str | None] | None, list[Diagnostic]]:
    """The root element's name and namespace, parsed under the QTI 1.2 DOCTYPE policy (a bare
    DOCTYPE naming a DTD is accepted, never loaded; an internal subset is refused). Moodle XML
    with any DOCTYPE is refused later by its own reader, as check refuses it."""
    from lxml import etree

    from .validate import parse_without_dtd
    from .validate_qti12 import PROLOG_BYTES, _prolog, parse_untrusted_qti12

    doctype = re.search(r"<!DOCTYPE\s+([^\s\[>]+)", _prolog(data)[:PROLOG_BYTES], re.IGNORECASE)
    if doctype is None or doctype.group(1).split(":")[-1] == "questestinterop":
        tree, problems = parse_untrusted_qti12(data, display)
    else:
        name = doctype.group(1).split(":")[-1]
        hint = {
            "quiz": "Moodle XML needs no DOCTYPE: remove it",
            "assessmentItem": "QTI 2.1 documents are validated against XSDs and need no DOCTYPE: remove it",
            "assessmentTest": "QTI 2.1 documents are validated against XSDs and need no DOCTYPE: remove it",
        }.get(name, "lmsexport reads no DTD: remove the DOCTYPE")
        tree, problems = parse_without_dtd(data, display, hint)
    if tree is None:
        return None, problems
    qname = etree.QName(tree.getroot())
    return (qname.localname, qname.namespace), []


def _package_kind(path: Path, display: str) -> str:
    from .validate_qti12 import package_kind

    return package_kind(path, display)


def _folder_kind(files) -> str:  # type: ignore[no-untyped-def]
    """What an unpacked package is, by its manifest (as validate_qti12.package_kind decides for a zip)."""
    if not files.has("imsmanifest.xml"):
        return "qti21"  # a folder of QTI 2 tests and items without a manifest (_holds_qti_test)
    data = files.read("imsmanifest.xml")
    if data is None:
        return "qti21"
    text = data[:1_000_000].decode("utf-8", "replace")
    if re.search(r"imsqti_v2p|qtiv2p|QTIv2\.|imsqti_(?:item|test)_xmlv2p", text):
        return "qti21"
    if re.search(r"common cartridge|imscc_xmlv1p", text, re.I):
        return "cc"
    return "qti12"


# --------------------------------------------------------------------------- the result


@dataclass
class ImportedQuiz:
    quiz: Quiz
    notes: dict[str, list[str]]
    header: list[str]

    @property
    def path(self) -> str:
        return f"{self.quiz.id}.yaml"


@dataclass
class ImportedAssessment:
    assessment: Assessment
    header: list[str]

    @property
    def path(self) -> str:
        return f"{self.assessment.id}.yaml"


@dataclass
class ImportResult:
    quizzes: list[ImportedQuiz] = field(default_factory=list)
    assessments: list[ImportedAssessment] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    diags: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    """How many source files (packages count as one) were read."""

    @property
    def questions(self) -> int:
        return sum(len(q.quiz.questions) for q in self.quizzes)

    @property
    def failed(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diags)

    def summary(self) -> str:
        """``imported 412 questions from 9 files; skipped 3: 2 cloze, 1 calculated``."""
        n, f = self.questions, self.files
        text = f"imported {n} question{'s' if n != 1 else ''} from {f} file{'s' if f != 1 else ''}"
        if self.assessments:
            k = len(self.assessments)
            text += f" ({k} assessment{'s' if k != 1 else ''})"
        if self.skipped:
            counts = Counter(s.kind for s in self.skipped)
            parts = ", ".join(
                f"{c} {kind}" for kind, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            )
            text += f"; skipped {len(self.skipped)}: {parts}"
        return text


def read_sources(sources: list[Source], lang: str | None = None) -> ImportResult:
    """Read every source and finish the drafts into quizzes and assessments (nothing is written)."""
    found = Found()
    for source in sources:
        one, _ = read_source(source)
        found.extend(one)
    result = finish(found, lang)
    result.files = len(sources)
    if not result.quizzes and not result.failed:
        where = SourceLoc(sources[0].display) if len(sources) == 1 else SourceLoc("import")
        skipped = f" ({len(result.skipped)} skipped)" if result.skipped else ""
        result.diags.append(
            Diagnostic(
                where, f"nothing to import: no question lmsexport can hold{skipped}", rule="import.nothing"
            )
        )
    return result


# --------------------------------------------------------------------------- ids


def slug(text: str) -> str:
    """A valid id made of a text: ASCII letters and digits kept, everything else one '-'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    out = re.sub(r"[^A-Za-z0-9._]+", "-", ascii_text).strip("-._")
    out = re.sub(r"-{2,}", "-", out)
    if out and not out[0].isalpha():
        out = "q-" + out
    return out[:MAX_ID_CHARS].rstrip("-._")


class _Ids:
    """Ids unique ignoring case (they become file names): a taken one gets -2, -3... The ids of
    lmsexport's own files are reserved first, so that no other source's name displaces one."""

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self.reserved: set[str] = set()

    def reserve(self, ident: str | None) -> None:
        if _valid_id(ident):
            self.reserved.add((ident or "").casefold())

    def make(self, wanted: str, own: bool = False) -> str:
        key = wanted.casefold()
        if own and key in self.reserved and key not in self.taken:
            self.taken.add(key)
            return wanted
        base = wanted[: MAX_ID_CHARS - 4]
        candidate, n = wanted, 1
        while candidate.casefold() in self.taken or candidate.casefold() in self.reserved:
            n += 1
            candidate = f"{base}-{n}"
        self.taken.add(candidate.casefold())
        return candidate


def _valid_id(raw: str | None) -> bool:
    return bool(raw) and bool(_ID_RE.match(raw or "")) and len(raw or "") <= MAX_ID_CHARS


# --------------------------------------------------------------------------- finishing


def _lang_ok(tag: str | None) -> bool:
    if not tag:
        return False
    from .langtag import tag_is_valid

    return len(tag) <= 35 and tag_is_valid(tag)


class _Finisher:
    def __init__(self, found: Found, lang: str | None) -> None:
        self.found = found
        self.lang = lang
        self.diags: list[Diagnostic] = []
        self.quiz_ids = _Ids()
        self.question_ids = _Ids()
        self.final: dict[int, str] = {}
        """id(DraftQuestion) -> its final id (for assessments' listed draws)."""
        self.quiz_final: dict[int, str] = {}
        """id(DraftQuiz) -> its quiz's final id (for assessments' pools)."""
        self.by_raw: dict[str, DraftQuestion] = {}
        """The questions of lmsexport's own files by their id there (casefolded): what an own
        assessment's draws name (a quiz's own file first, else the assessment file's copy)."""
        self.imported: list[ImportedQuiz] = []

    def warn(self, loc: SourceLoc | None, message: str, rule: str, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(loc or SourceLoc("import"), message, Severity.WARNING, rule, hint))

    # -- quizzes -----------------------------------------------------------------------

    def quiz_lang(self, draft: DraftQuiz | DraftAssessment) -> str:
        if draft.lang and _lang_ok(draft.lang):
            return draft.lang
        if draft.lang:
            self.warn(
                draft.loc,
                f"language {draft.lang!r} of {draft.title!r} is not a valid BCP 47 tag",
                "import.bad-lang",
            )
        if self.lang:
            return self.lang
        self.warn(
            draft.loc,
            f"{draft.title!r}: the source does not say which language it is in; written as "
            f"'{UNDETERMINED}' (undetermined)",
            "import.no-lang",
            hint="pass --lang (for example --lang ur) to name the language of such sources",
        )
        return UNDETERMINED

    def quiz_id(self, draft: DraftQuiz | DraftAssessment, own: bool) -> str:
        if own and _valid_id(draft.raw_id):
            return self.quiz_ids.make(draft.raw_id or "", own=True)
        candidates = [slug(draft.title).lower(), slug(draft.raw_id or ""), "quiz"]
        return self.quiz_ids.make(next(c for c in candidates if _valid_id(c)))

    def quiz(self, draft: DraftQuiz) -> ImportedQuiz | None:
        lang = self.quiz_lang(draft)
        qid = self.quiz_id(draft, draft.own)
        self.quiz_final[id(draft)] = qid
        notes: dict[str, list[str]] = {}
        questions: list[Question] = []
        for n, dq in enumerate(draft.questions, 1):
            dq.question = _map_choices(
                dq.question, lambda c: replace(c, lang=lang) if c.lang == QUIZ_LANG else c
            )
            q = self.question(dq, draft, qid, lang, n)
            if q is None:
                continue
            questions.append(q)
            if dq.notes:
                notes[q.id] = list(dq.notes)
        if not questions:
            self.warn(
                draft.loc,
                f"{draft.title!r} has no question lmsexport can hold; no file written",
                "import.empty-quiz",
            )
            return None
        title = (draft.title.strip() if draft.own else _one_line(draft.title)) or qid
        if len(title) > 500:
            title = title[:499] + "…"
        category = None
        if draft.category:
            parts = [" ".join(p.split()) for p in draft.category.split("/")]
            category = "/".join(p for p in parts if p) or None
        description = _fit_text(draft.description)
        quiz = Quiz(
            id=qid,
            title=title,
            lang=lang,
            questions=tuple(questions),
            description=description,
            difficulty=draft.difficulty,
            category=category,
            shuffle=draft.shuffle,
            loc=draft.loc,
        )
        quiz = _canonical(quiz)
        quiz = _uniform_markup(quiz)
        header = [f"Imported by lmsexport from {draft.origin} ({draft.kind})."]
        if qid != draft.raw_id and draft.raw_id and not draft.own:
            header.append(f"Its identifier there: {draft.raw_id!r}.")
        return ImportedQuiz(quiz, notes, header)

    # -- questions ---------------------------------------------------------------------

    def question(
        self, dq: DraftQuestion, quiz: DraftQuiz, quiz_id: str, lang: str, n: int
    ) -> Question | None:
        q = dq.question
        loc = q.loc or quiz.loc
        who = (
            f"question {dq.raw_id or dq.name or n!r}"
            if (dq.raw_id or dq.name)
            else f"question {n} of {quiz.title!r}"
        )
        fitted = self.fit(q, who, loc, dq.notes)
        if fitted is None:
            return None
        if _valid_id(dq.raw_id):
            wanted = dq.raw_id or ""
        else:
            wanted = slug(dq.raw_id or "") or slug(dq.name or "").lower() or f"{quiz_id}-{n}"
            if not _valid_id(wanted):
                wanted = f"{quiz_id}-{n}"
        final = self.question_ids.make(wanted, own=quiz.own)
        # The LMS's name travels as the question's `name` (or is the one derived from the stem),
        # so only an id that had to change is noted.
        if dq.raw_id and final != dq.raw_id:
            dq.notes.insert(0, f"id was {dq.raw_id!r}")
        self.final[id(dq)] = final
        return replace(fitted, id=final)

    def fit(self, q: Question, who: str, loc: SourceLoc | None, notes: list[str]) -> Question | None:
        """The question as the loader accepts it, or None (reported) when it cannot be."""

        def skip(why: str) -> None:
            self.warn(loc, f"{who}: {why}; skipped", "import.unfit")

        def drop(what: str) -> None:
            notes.append(f"not carried: {what}")
            self.warn(loc, f"{who}: not carried: {what}", "import.unfit")

        stem = _fit_text(q.stem)
        if stem is None:
            skip("it has no question text")
            return None
        too_long = [t for t in _texts(q) if len(plain_text(t)) > 20_000]
        if too_long:
            skip("a text is longer than 20,000 characters, the source format's limit")
            return None
        q = replace(q, stem=stem, explanation=_fit_text(q.explanation))
        q = self._fit_math(q, drop)
        if isinstance(q.body, Description):
            # A description is worth 0 and has no response: the loader refuses points, feedback,
            # hints and a penalty on one.
            for what, present in (
                ("its feedback", bool(q.feedback)),
                ("its hints", bool(q.hints)),
                ("its penalty", q.penalty is not None),
            ):
                if present:
                    drop(f"{what} (a description has no response)")
            q = replace(q, points=0.0, feedback=OutcomeFeedback(), hints=(), penalty=None)
        elif not (q.points > 0 and q.points < float("inf")):
            drop(f"its points {q.points:g}, written as 1")
            q = replace(q, points=1.0)
        tags = []
        for tag in q.tags:
            tag = tag.strip()
            if not tag or len(tag) > 100 or any(c in tag for c in "[]\n\r") or _XML_BAD.search(tag):
                drop(f"tag {tag[:40]!r}, which the source format cannot hold")
            elif tag not in tags:
                tags.append(tag)
        q = replace(q, tags=tuple(tags))
        if q.lang is not None and not _lang_ok(q.lang):
            drop(f"its language {q.lang!r}, not a valid BCP 47 tag")
            q = replace(q, lang=None)
        match q.body:
            case SingleChoice(raw) | MultipleChoice(raw):
                choices: list[Choice] = []
                for c in raw:
                    text = _fit_text(c.text)
                    if text is None:
                        drop("a choice without text")
                        continue
                    if any(o.text == text for o in choices):
                        skip(f"two choices read {_short(text)!r}")
                        return None
                    lang = c.lang if _lang_ok(c.lang) else None
                    choices.append(replace(c, text=text, feedback=_fit_text(c.feedback), lang=lang))
                right = [c.earns for c in choices]
                if len(choices) < 2:
                    skip(f"it has {len(choices)} choice(s); lmsexport needs at least 2")
                    return None
                if not any(right):
                    skip("no choice is right")
                    return None
                # A single answer question with several full-credit choices, or none, stays one:
                # Moodle imports both (the loader warns, source.several-full-credit / no-full-credit).
                body: SingleChoice | MultipleChoice = replace(q.body, choices=tuple(choices))
                if isinstance(q.body, MultipleChoice) and q.body.default_credits:
                    # A dropped choice changes the counts the default credits come from.
                    body = MultipleChoice(_with_default_credits(choices, right))
                q = replace(q, body=body)
            case ShortAnswer(raw_answers):
                kept: dict[str, Answer] = {}
                for a in raw_answers:
                    if a.text.strip() and not _XML_BAD.search(a.text):
                        kept.setdefault(a.text.strip(), replace(a, text=a.text.strip()))
                if not kept:
                    skip("it has no accepted answer")
                    return None
                q = replace(q, body=replace(q.body, answers=tuple(kept.values())))
            case Numerical(raw_keys):
                if not raw_keys:
                    skip("it has no numeric key")
                    return None
                keys: list[NumericKey] = []
                for key in raw_keys:
                    if key.low is not None and key.high is not None and key.low > key.high:
                        skip(f"its range [{key.low:g}, {key.high:g}] is empty")
                        return None
                    if key.tolerance < 0:
                        key = replace(key, tolerance=-key.tolerance)
                    if (
                        key.low is not None
                        and key.answer is not None
                        and not key.low <= key.answer <= (key.high or key.low)
                    ):
                        key = replace(key, answer=None)
                    keys.append(key)
                q = replace(q, body=replace(q.body, keys=tuple(keys)))
            case Matching(raw_pairs, raw_distractors):
                pairs: list[Pair] = []
                for p in raw_pairs:
                    left, right_text = (
                        _fit_text(p.left),
                        _XML_BAD.sub("", p.right).strip(),
                    )
                    if left is None or not right_text:
                        drop("a pair without text on one side")
                        continue
                    if any(o.left == left for o in pairs):
                        skip(f"two left items read {_short(left)!r}")
                        return None
                    pairs.append(replace(p, left=left, right=right_text))
                if len(pairs) < 2:
                    skip(f"it has {len(pairs)} pair(s); lmsexport needs at least 2")
                    return None
                rights = {p.right for p in pairs}
                distractors = tuple(
                    dict.fromkeys(d.strip() for d in raw_distractors if d.strip() and d.strip() not in rights)
                )
                q = replace(q, body=Matching(tuple(pairs), distractors))
            case Cloze(raw_blanks):
                if gaps_of(q.stem) != tuple(range(1, len(raw_blanks) + 1)):
                    skip("its blanks and the markers in its text do not match (each blank once, in order)")
                    return None
                blanks: list[Blank] = []
                for n, blank in enumerate(raw_blanks, 1):
                    fitted = _fit_blank(blank, n, skip, drop)
                    if fitted is None:
                        return None
                    blanks.append(fitted)
                q = replace(q, body=Cloze(tuple(blanks)))
            case Ordering(raw_items) as ordering:
                items: list[Text] = []
                for item in raw_items:
                    text = _fit_text(item)
                    if text is None:
                        drop("an ordering item without text")
                        continue
                    if text in items:
                        skip(f"two items read {_short(text)!r}")
                        return None
                    items.append(text)
                if len(items) < 2:
                    skip(f"it has {len(items)} item(s); an ordering needs at least 2")
                    return None
                ordering = replace(ordering, items=tuple(items))
                if ordering.select is not OrderingSelect.ALL and not 2 <= ordering.select_count < len(items):
                    drop(f"showing {ordering.select_count} of its {len(items)} items (every item is shown)")
                    ordering = replace(ordering, select=OrderingSelect.ALL, select_count=0)
                elif ordering.select is OrderingSelect.ALL and ordering.select_count:
                    ordering = replace(ordering, select_count=0)
                q = replace(q, body=ordering)
            case Calculated() | CalculatedChoice():
                fitted_q = _fit_parametric(q, skip, drop)
                if fitted_q is None:
                    return None
                q = fitted_q
            case TrueFalse() | Essay() | Description():
                pass
            case _:
                assert_never(q.body)
        return q

    def _fit_math(self, q: Question, drop) -> Question:  # type: ignore[no-untyped-def]
        """Formulas the MathML converter cannot take are kept as their TeX text (the loader would
        refuse the file)."""
        from .mathml import tex_error

        bad: list[str] = []

        def fix(text: Text | None) -> Text | None:
            if not isinstance(text, Rich):
                return text
            return _map_inlines(text, lambda x: _math_as_text(x, bad, tex_error))

        q = _map_texts(q, fix)
        for tex in dict.fromkeys(bad):
            drop(f"formula ${tex[:40]}$ as a formula (TeX lmsexport's converter cannot take; kept as text)")
        return q

    # -- assessments -------------------------------------------------------------------

    def assessment(self, draft: DraftAssessment, aid: str) -> ImportedAssessment | None:
        lang = self.quiz_lang(draft)
        sections = []
        names = _Ids()
        for s_index, s in enumerate(draft.sections, 1):
            draws = []
            for d_index, d in enumerate(s.draws, 1):
                default = f"section{s_index}-draw{d_index}"
                name = slug(d.name or "") or default
                name = names.make(name)
                if d.pick is not None and d.ids:
                    # A random draw of lmsexport's own assessment file: the questions it can yield.
                    finals = self._finals(d.ids)
                    if not finals:
                        self.warn(
                            draft.loc,
                            f"assessment {draft.title!r}: draw {d.name!r} has no question left; dropped",
                            "import.empty-draw",
                        )
                        continue
                    pool = self._pool_of(finals)
                    if pool is None and draft.tagless:
                        pool = self._tag_pool(finals, f"{aid}-{name}", draft, d)
                    if pool is None:
                        self.warn(
                            draft.loc,
                            f"assessment {draft.title!r}: no pool selects exactly the questions draw "
                            f"{d.name!r} can yield (the file holds those, not the pool's conditions); the "
                            "assessment is not imported (its questions are)",
                            "import.assessment-not-carried",
                            hint="keep the assessment's YAML file, or write its draw again with `from:`",
                        )
                        return None
                    points = self._draw_points(d, finals)
                    draws.append(Draw(name=name, pool=pool, pick=min(d.pick, len(finals)), points=points))
                elif d.pool is not None:
                    pool_id = self.quiz_final.get(id(d.pool))
                    count = sum(1 for q in d.pool.questions if id(q) in self.final)
                    if pool_id is None or count == 0:
                        self.warn(
                            draft.loc,
                            f"assessment {draft.title!r}: draw {d.name!r} has no question left; dropped",
                            "import.empty-draw",
                        )
                        continue
                    draws.append(
                        Draw(
                            name=name,
                            pool=Pool(quizzes=(pool_id,)),
                            pick=min(d.pick or 1, count),
                            points=d.points,
                        )
                    )
                else:
                    ids = tuple(self.final[id(q)] for q in d.questions if id(q) in self.final)
                    ids += tuple(self._finals([q.raw_id for q in d.questions if id(q) not in self.final]))
                    ids += tuple(self._finals(d.ids))
                    if not ids:
                        continue
                    draws.append(Draw(name=name, ids=ids, points=self._draw_points(d, ids)))
            if draws:
                title = _one_line(s.title) if s.title else None
                sections.append(Section(title=title or None, shuffle=s.shuffle, draws=tuple(draws)))
        if not sections:
            self.warn(
                draft.loc,
                f"assessment {draft.title!r} has no draw left; no file written",
                "import.empty-assessment",
            )
            return None
        assessment = Assessment(
            id=aid,
            title=_one_line(draft.title) or aid,
            lang=lang,
            sections=tuple(sections),
            description=_fit_text(draft.description),
            loc=draft.loc,
        )
        return ImportedAssessment(assessment, [f"Imported by lmsexport from {draft.origin} ({draft.kind})."])

    def _draw_points(self, d: DraftDraw, finals: Iterable[str]) -> float | None:
        """A draw's points; those read off an own file's items only where some question it can
        yield is worth otherwise on its own."""
        if d.points is None or not d.points_read_off:
            return d.points
        wanted = set(finals)
        own = {q.points for iq in self.imported for q in iq.quiz.questions if q.id in wanted}
        return None if own == {d.points} else d.points

    def _finals(self, raw_ids: Iterable[str | None]) -> list[str]:
        """The final ids of an own file's questions named by their ids there (those imported)."""
        out = []
        for raw in raw_ids:
            dq = self.by_raw.get((raw or "").casefold())
            if dq is not None and id(dq) in self.final and self.final[id(dq)] not in out:
                out.append(self.final[id(dq)])
        return out

    def _tag_pool(self, finals: list[str], tag: str, draft: DraftAssessment, d: DraftDraw) -> Pool:
        """The pool of a random draw read from a format without tags: its candidates get a tag
        named after the assessment and the draw (a note above each says so), which the pool
        selects among their quizzes."""
        wanted = set(finals)
        taken = {t for iq in self.imported for q in iq.quiz.questions if q.id not in wanted for t in q.tags}
        while tag in taken:
            tag += "-"
        quizzes: list[str] = []
        for iq in self.imported:
            if not any(q.id in wanted for q in iq.quiz.questions):
                continue
            quizzes.append(iq.quiz.id)
            questions = []
            for q in iq.quiz.questions:
                if q.id in wanted and tag not in q.tags:
                    q = replace(q, tags=(*q.tags, tag))
                    iq.notes.setdefault(q.id, []).append(
                        f"tag {tag!r} added: assessment {draft.raw_id or draft.title!r} draws from the "
                        f"questions with it (draw {d.name!r}; {draft.kind} has no field for tags)"
                    )
                questions.append(q)
            iq.quiz = replace(iq.quiz, questions=tuple(questions))
        self.warn(
            draft.loc,
            f"assessment {draft.title!r}: draw {d.name!r} picks from {len(wanted)} questions that "
            f"{draft.kind} names without the pool's conditions (it has no field for tags); they are "
            f"given the tag {tag!r} the rebuilt pool selects",
            "import.draw-tag",
        )
        return Pool(quizzes=tuple(quizzes), tags=(tag,))

    def _pool_of(self, finals: list[str]) -> Pool | None:
        """A pool that selects exactly these questions of the imported quizzes (their quizzes;
        then also the tags all of them have; then any of the tags only they have there)."""
        wanted = set(finals)
        questions = [(iq.quiz, q) for iq in self.imported for q in iq.quiz.questions]
        chosen = [(quiz, q) for quiz, q in questions if q.id in wanted]
        quizzes = tuple(dict.fromkeys(quiz.id for quiz, _ in chosen))
        common = [t for t in chosen[0][1].tags if all(t in q.tags for _, q in chosen)] if chosen else []
        among = [q for quiz, q in questions if quiz.id in quizzes]
        only = [
            t
            for t in dict.fromkeys(t for _, q in chosen for t in q.tags)
            if all(q.id in wanted for q in among if t in q.tags)
        ]
        tries = [Pool(quizzes=quizzes)]
        if common:
            tries.append(Pool(quizzes=quizzes, tags=tuple(common)))
        if only:
            tries.append(Pool(quizzes=quizzes, any_tags=tuple(only)))
        for pool in tries:
            if {q.id for quiz, q in questions if pool.matches(quiz, q)} == wanted:
                return pool
        return None


def finish(found: Found, lang: str | None) -> ImportResult:
    """Drafts -> quizzes and assessments the loader accepts, with every diagnostic."""
    f = _Finisher(found, lang)
    result = ImportResult(skipped=list(found.skipped), diags=list(found.diags))
    if any(d.severity is Severity.ERROR for d in found.diags):
        return result
    # An lmsexport assessment's file holds copies of its quizzes' questions: where a quiz's own
    # file is imported too, the copy goes.
    # Its draws name questions by id: a quiz's own file's question first, else the copy.
    for copies in (False, True):
        for draft in found.quizzes:
            if draft.own and draft.copies is copies:
                for dq in draft.questions:
                    if dq.raw_id:
                        f.by_raw.setdefault(dq.raw_id.casefold(), dq)
    for draft in found.quizzes:
        if draft.copies:
            draft.questions = [
                dq for dq in draft.questions if not dq.raw_id or f.by_raw.get(dq.raw_id.casefold()) is dq
            ]
    found.quizzes = [d for d in found.quizzes if d.questions]
    for draft in found.quizzes:
        if draft.own:
            f.quiz_ids.reserve(draft.raw_id)
            for dq in draft.questions:
                f.question_ids.reserve(dq.raw_id)
    for draft_a in found.assessments:
        if draft_a.own:
            f.quiz_ids.reserve(draft_a.raw_id)
    # An assessment is what its test was called: it gets the name first, its quizzes the rest.
    assessment_ids = [f.quiz_id(a, a.own) for a in found.assessments]
    for draft in found.quizzes:
        imported = f.quiz(draft)
        if imported is not None:
            result.quizzes.append(imported)
    f.imported = result.quizzes
    for draft_a, aid in zip(found.assessments, assessment_ids, strict=True):
        imported_a = f.assessment(draft_a, aid)
        if imported_a is not None:
            result.assessments.append(imported_a)
    result.diags += f.diags
    return result


# --------------------------------------------------------------------------- texts


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def _short(text: Text) -> str:
    t = _one_line(plain_text(text))
    return t if len(t) <= 40 else t[:39] + "…"


def _fit_blank(
    blank: Blank, n: int, skip: Callable[[str], None], drop: Callable[[str], None]
) -> Blank | None:
    """A cloze blank as the loader accepts it, or None (skipped: the whole question goes)."""
    if blank.weight < 1:
        drop(f"blank {n}'s weight {blank.weight} (written as 1)")
        blank = replace(blank, weight=1)
    match blank:
        case TextBlank(raw_answers):
            kept: dict[str, Answer] = {}
            for a in raw_answers:
                if a.text.strip() and not _XML_BAD.search(a.text):
                    kept.setdefault(
                        a.text.strip(), replace(a, text=a.text.strip(), feedback=_fit_text(a.feedback))
                    )
            if not any(is_full(a.credit) for a in kept.values()):
                skip(f"blank {n} has no answer that earns full credit")
                return None
            return replace(
                blank, answers=tuple(kept.values()), other_feedback=_fit_text(blank.other_feedback)
            )
        case NumberBlank(raw_keys):
            keys: list[NumericKey] = []
            for key in raw_keys:
                if key.low is not None and key.high is not None and key.low > key.high:
                    skip(f"blank {n}'s range [{key.low:g}, {key.high:g}] is empty")
                    return None
                if key.tolerance < 0:
                    key = replace(key, tolerance=-key.tolerance)
                keys.append(replace(key, feedback=_fit_text(key.feedback)))
            if not any(is_full(k.credit) for k in keys):
                skip(f"blank {n} has no number that earns full credit")
                return None
            return replace(blank, keys=tuple(keys), other_feedback=_fit_text(blank.other_feedback))
        case ChoiceBlank(raw_choices):
            choices: list[Choice] = []
            for c in raw_choices:
                text = _fit_text(c.text)
                if text is None:
                    drop(f"a choice of blank {n} without text")
                    continue
                if any(o.text == text for o in choices):
                    skip(f"two choices of blank {n} read {_short(text)!r}")
                    return None
                lang = c.lang if _lang_ok(c.lang) else None
                choices.append(replace(c, text=text, feedback=_fit_text(c.feedback), lang=lang))
            if len(choices) < 2:
                skip(f"blank {n} has {len(choices)} choice(s); lmsexport needs at least 2")
                return None
            fitted = replace(blank, choices=tuple(choices))
            if fitted.multiple and fitted.display is ChoiceDisplay.DROPDOWN:
                drop(f"blank {n} as a drop-down list (several picks need buttons: shown vertically)")
                fitted = replace(fitted, display=ChoiceDisplay.VERTICAL)
            if fitted.multiple and not any(c.earns for c in choices):
                skip(f"no choice of blank {n} is right")
                return None
            if not fitted.multiple and not any(c.full for c in choices):
                skip(f"blank {n} has no choice that earns full credit")
                return None
            return fitted
        case _:
            assert_never(blank)


def _fit_parametric(q: Question, skip, drop) -> Question | None:  # type: ignore[no-untyped-def]
    """A parametric question as the loader accepts it: a brace of a text that is no placeholder
    of a declared name made literal (a Moodle `{=...}` the reader left, a stray `{`), decimals
    within 0..9, the key shown with its decimals inside the tolerance (decimals raised, as
    Moodle's dataset page asks), at most MAX_VARIANTS variants; then every variant checked as
    the loader checks it (variants.draw with them given), the question skipped with the first
    problem when one remains."""
    from .errors import SourceError
    from .formula import format_value, round_value
    from .source import MAX_VARIANTS, _finest
    from .variants import Given, accepts, draw, escape_problems

    body = q.body
    assert isinstance(body, Calculated | CalculatedChoice)
    params = body.params
    names = {n: "0" for n in [*(v.name for v in params.variables), *(d.name for d in params.derived)]}
    escaped: list[str] = []

    def fix(text: Text | None) -> Text | None:
        if text is None:
            return None
        out, tokens = escape_problems(text, names)
        escaped.extend(t for t in tokens if t not in escaped)
        return out

    q = _map_texts(q, fix)
    if isinstance(body, CalculatedChoice):
        body = replace(body, choices=tuple(replace(c, feedback=fix(c.feedback)) for c in body.choices))
    if escaped:
        shown = ", ".join(repr(t) for t in escaped)
        drop(f"{shown} in its texts, which name no variable: kept as literal text")
    variants = body.variants
    if len(variants) > MAX_VARIANTS:
        drop(f"its variants after the first {MAX_VARIANTS} (of {len(variants)})")
        variants = variants[:MAX_VARIANTS]
    decimals = min(max(body.decimals, 0), 9)
    if decimals != body.decimals:
        drop(f"its {body.decimals} decimals, written as {decimals}")
    tolerance = replace(body.tolerance, value=abs(body.tolerance.value))
    if isinstance(body, Calculated):
        need = max(
            (
                _finest(v.answer, tolerance)
                for v in variants
                if v.answer is not None and not accepts(v.answer, tolerance, round_value(v.answer, decimals))
            ),
            default=decimals,
        )
        if need > decimals:
            drop(
                f"its key shown with {decimals} decimals, outside its tolerance in some variant: shown with "
                f"{min(need, 9)}"
            )
            decimals = min(need, 9)
    names_only = [v.name for v in params.variables]
    given = [Given({n: x for n, x in v.values if n in names_only}) for v in variants]
    try:
        if isinstance(body, Calculated):
            drawn = draw(
                q.id, params, answer=body.answer, tolerance=tolerance, decimals=decimals, given=given
            )
            body = replace(
                body, params=params, decimals=decimals, tolerance=tolerance, variants=drawn.variants
            )
        else:
            drawn = draw(
                q.id,
                params,
                choices=[c.formula for c in body.choices],
                correct=[i for i, c in enumerate(body.choices) if c.earns],
                tolerance=tolerance,
                decimals=decimals,
                given=given,
            )
            for v in drawn.variants:
                texts = [format_value(x, decimals) for x in v.choices]
                if len(set(texts)) < len(texts):
                    skip(f"two of its choices show the same value in variant {v.number}")
                    return None
            body = replace(
                body, params=params, decimals=decimals, tolerance=tolerance, variants=drawn.variants
            )
    except SourceError as exc:
        skip(f"its variants do not check: {exc.diagnostics[0].message}")
        return None
    if isinstance(body, Calculated) and any(
        not accepts(v.answer, tolerance, round_value(v.answer, decimals)) for v in body.variants if v.answer
    ):
        skip("its key, shown with 9 decimals, is still outside its tolerance")
        return None
    return replace(q, body=body)


def _texts(q: Question) -> list[Text]:
    out: list[Text] = [q.stem]
    if q.explanation is not None:
        out.append(q.explanation)
    match q.body:
        case SingleChoice(choices) | MultipleChoice(choices):
            for c in choices:
                out.append(c.text)
                if c.feedback is not None:
                    out.append(c.feedback)
        case Matching(pairs):
            out += [p.left for p in pairs]
        case Ordering(items):
            out += list(items)
        case Cloze(blanks):
            for b in blanks:
                if isinstance(b, ChoiceBlank):
                    for c in b.choices:
                        out.append(c.text)
                        if c.feedback is not None:
                            out.append(c.feedback)
    # Issue 22's texts: feedback on the whole response, hints, answer feedback, essay texts.
    fb = q.feedback
    extra: list[Text | None] = [fb.correct, fb.partial, fb.incorrect, *(h.text for h in q.hints)]
    match q.body:
        case TrueFalse(feedback_true=ft, feedback_false=ff):
            extra += [ft, ff]
        case ShortAnswer(answers, other_feedback=other) | Numerical(answers, other_feedback=other):
            extra += [*(a.feedback for a in answers), other]
        case Essay(template=template, grader_info=info):
            extra += [template, info]
        case Cloze(blanks):
            for b in blanks:
                if isinstance(b, TextBlank):
                    extra += [*(a.feedback for a in b.answers), b.other_feedback]
                elif isinstance(b, NumberBlank):
                    extra += [*(k.feedback for k in b.keys), b.other_feedback]
    return out + [t for t in extra if t is not None]


def _map_choices(q: Question, fn: Callable[[Choice], Choice]) -> Question:
    """The question with fn applied to each of its choices (when it has choices)."""
    match q.body:
        case SingleChoice(choices) | MultipleChoice(choices):
            return replace(q, body=replace(q.body, choices=tuple(fn(c) for c in choices)))
    return q


def _map_texts(q: Question, fn: Callable[[Text | None], Text | None]) -> Question:
    """The question with fn applied to the texts _texts lists, in that order; a text fn maps to
    None stays as it was, an optional one becomes None."""
    q = replace(q, stem=fn(q.stem) or q.stem, explanation=fn(q.explanation))
    q = _map_choices(q, lambda c: replace(c, text=fn(c.text) or c.text, feedback=fn(c.feedback)))
    match q.body:
        case Matching(pairs):
            q = replace(
                q, body=replace(q.body, pairs=tuple(replace(p, left=fn(p.left) or p.left) for p in pairs))
            )
        case TrueFalse(feedback_true=ft, feedback_false=ff):
            q = replace(q, body=replace(q.body, feedback_true=fn(ft), feedback_false=fn(ff)))
        case ShortAnswer(answers, other_feedback=other):
            keyed = tuple(replace(a, feedback=fn(a.feedback)) for a in answers)
            q = replace(q, body=replace(q.body, answers=keyed, other_feedback=fn(other)))
        case Numerical(keys, other_feedback=other):
            keyed_n = tuple(replace(k, feedback=fn(k.feedback)) for k in keys)
            q = replace(q, body=replace(q.body, keys=keyed_n, other_feedback=fn(other)))
        case Essay(template=template, grader_info=info):
            q = replace(q, body=replace(q.body, template=fn(template), grader_info=fn(info)))
        case Ordering(items):
            q = replace(q, body=replace(q.body, items=tuple(fn(t) or t for t in items)))
        case Cloze(blanks):
            q = replace(q, body=Cloze(tuple(_map_blank_texts(b, fn) for b in blanks)))
    fb = q.feedback
    feedback = replace(fb, correct=fn(fb.correct), partial=fn(fb.partial), incorrect=fn(fb.incorrect))
    hints = tuple(replace(h, text=fn(h.text) or h.text) for h in q.hints)
    return replace(q, feedback=feedback, hints=hints)


def _map_blank_texts(blank: Blank, fn: Callable[[Text | None], Text | None]) -> Blank:
    """A cloze blank with fn applied to its texts, in _texts's order."""
    match blank:
        case ChoiceBlank(choices):
            return replace(
                blank,
                choices=tuple(
                    replace(c, text=fn(c.text) or c.text, feedback=fn(c.feedback)) for c in choices
                ),
            )
        case TextBlank(answers, other_feedback=other):
            keyed = tuple(replace(a, feedback=fn(a.feedback)) for a in answers)
            return replace(blank, answers=keyed, other_feedback=fn(other))
        case NumberBlank(keys, other_feedback=other):
            keyed_n = tuple(replace(k, feedback=fn(k.feedback)) for k in keys)
            return replace(blank, keys=keyed_n, other_feedback=fn(other))
        case _:
            assert_never(blank)


def _with_default_credits(choices: list[Choice], right: list[bool]) -> tuple[Choice, ...]:
    """The choices with the default credits of a multiple choice question whose right picks are
    `right` (what their `correct: true` flags give when the file is loaded)."""
    credits = default_multiple_credits(right)
    return tuple(replace(c, credit=x) for c, x in zip(choices, credits, strict=True))


def _fit_text(text: Text | None) -> Text | None:
    """A text as the loader leaves texts: stripped, non-empty; XML-illegal characters removed."""
    if text is None:
        return None
    if isinstance(text, str):
        text = _XML_BAD.sub("", text).strip()
        return text or None
    if not text.blocks or (
        all(isinstance(b, Para) for b in text.blocks) and not plain_text(text).strip() and not media_of(text)
    ):
        return None
    text = _map_inlines(text, lambda x: Str(_XML_BAD.sub("", x.text)) if isinstance(x, Str) else x)
    blocks = tuple(b for b in (_trim_block(b) for b in text.blocks) if b is not None)
    return Rich(blocks) if blocks else None


def _trim_block(block: Block) -> Block | None:
    """A paragraph without line breaks or spaces at its edges (a browser shows none; Markdown
    cannot write a hard break at a paragraph's end); None when nothing is left."""
    if isinstance(block, Para):
        xs = list(block.children)
        while xs and (isinstance(xs[0], LineBreak) or isinstance(xs[0], Str) and not xs[0].text.strip()):
            xs.pop(0)
        while xs and (isinstance(xs[-1], LineBreak) or isinstance(xs[-1], Str) and not xs[-1].text.strip()):
            xs.pop()
        if xs and isinstance(xs[0], Str):
            xs[0] = Str(xs[0].text.lstrip())
        if xs and isinstance(xs[-1], Str):
            xs[-1] = Str(xs[-1].text.rstrip())
        return Para(tuple(xs)) if xs else None
    if isinstance(block, BulletList | OrderedList):
        items = tuple(
            tuple(b for b in (_trim_block(x) for x in item) if b is not None) for item in block.items
        )
        return BulletList(items) if isinstance(block, BulletList) else OrderedList(items, block.start)
    return block


def _map_inlines(rich: Rich, fn) -> Rich:  # type: ignore[no-untyped-def]
    def inlines(xs: tuple[Inline, ...]) -> tuple[Inline, ...]:
        out: list[Inline] = []
        for x in xs:
            if isinstance(x, Emph | Strong):
                x = type(x)(inlines(x.children))
            elif isinstance(x, Link):
                x = replace(x, children=inlines(x.children))
            else:
                x = fn(x)
            if isinstance(x, Str) and out and isinstance(out[-1], Str):
                out[-1] = Str(out[-1].text + x.text)
            else:
                out.append(x)
        return tuple(out)

    def block(b: Block) -> Block:
        if isinstance(b, Para):
            return Para(inlines(b.children))
        if isinstance(b, BulletList):
            return BulletList(tuple(tuple(block(x) for x in item) for item in b.items))
        if isinstance(b, OrderedList):
            return OrderedList(tuple(tuple(block(x) for x in item) for item in b.items), b.start)
        if isinstance(b, Table):
            return Table(
                tuple(inlines(c) for c in b.header),
                tuple(tuple(inlines(c) for c in r) for r in b.rows),
                b.aligns,
            )
        return b

    return Rich(tuple(block(b) for b in rich.blocks))


def _math_as_text(x: Inline, bad: list[str], tex_error) -> Inline:  # type: ignore[no-untyped-def]
    if isinstance(x, Math) and tex_error(x.tex) is not None:
        bad.append(x.tex)
        return Str(f"$${x.tex}$$" if x.display else f"${x.tex}$")
    return x


def _canonical(quiz: Quiz) -> Quiz:
    """A language equal to the enclosing one says nothing (as the loader leaves them)."""
    out = []
    for q in quiz.questions:
        if q.lang == quiz.lang:
            q = replace(q, lang=None)
        lang = q.lang or quiz.lang
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices):
                bare = tuple(replace(c, lang=None) if c.lang == lang else c for c in choices)
                q = replace(q, body=replace(q.body, choices=bare))
            case Cloze(blanks):
                q = replace(
                    q,
                    body=Cloze(
                        tuple(
                            replace(
                                b,
                                choices=tuple(
                                    replace(c, lang=None) if c.lang == lang else c for c in b.choices
                                ),
                            )
                            if isinstance(b, ChoiceBlank)
                            else b
                            for b in blanks
                        )
                    ),
                )
        out.append(q)
    return replace(quiz, questions=tuple(out))


def _uniform_markup(quiz: Quiz) -> Quiz:
    """A file is plain or Markdown as a whole: when any text of a quiz is rich, its plain texts
    become the rich texts a Markdown file would hold for them."""
    texts: list[Text | None] = [quiz.description]
    for q in quiz.questions:
        texts += _texts(q)
        from .writers.source import plain_cloze_stem

        if isinstance(q.body, Cloze) and plain_cloze_stem(q.stem) is not None:
            texts[-len(_texts(q))] = None  # a plain file can hold this cloze stem (writers/source.py)
    if not any(isinstance(t, Rich) for t in texts):
        return quiz

    def r(t: Text | None) -> Text | None:
        return plain_to_rich(t) if isinstance(t, str) else t

    questions = tuple(_map_texts(q, r) for q in quiz.questions)
    return replace(quiz, description=r(quiz.description), questions=questions)


# --------------------------------------------------------------------------- output


def _all_media(quiz: Quiz) -> list[Media]:
    found: dict[str, Media] = {}
    texts: list[Text | None] = [quiz.description]
    for q in quiz.questions:
        texts += _texts(q)
    for t in texts:
        for m in media_of(t):
            found.setdefault(m.digest, m)
    return list(found.values())


def image_path(media: Media) -> str:
    """Where an imported image is written, relative to the YAML files."""
    return f"{IMAGE_DIR}/{media.filename}"


def output_files(result: ImportResult) -> tuple[dict[str, bytes], dict[str, dict[str, list[str]]]]:
    """Every file the import writes (path relative to OUT -> bytes), and per quiz file what
    Markdown could not express exactly of each question."""
    from .writers.source import write_assessment, write_quiz

    files: dict[str, bytes] = {}
    lost: dict[str, dict[str, list[str]]] = {}
    for iq in sorted(result.quizzes, key=lambda x: x.quiz.id):
        media = _all_media(iq.quiz)
        paths = {m.digest: image_path(m) for m in media}
        per_question: dict[str, list[str]] = {}
        text, _ = write_quiz(
            iq.quiz, notes=iq.notes, header=iq.header, image_paths=paths, lost_by_question=per_question
        )
        files[iq.path] = text.encode("utf-8")
        lost[iq.path] = per_question
        for m in media:
            files[image_path(m)] = m.data
    for ia in sorted(result.assessments, key=lambda x: x.assessment.id):
        text, _ = write_assessment(ia.assessment, ia.header)
        files[ia.path] = text.encode("utf-8")
    return dict(sorted(files.items())), lost


def verify(
    folder: Path, result: ImportResult, lost: dict[str, dict[str, list[str]]], out: Path
) -> list[Diagnostic]:
    """Load the written files again from ``folder`` (where they were staged) and compare them with
    what was imported: every difference is a warning naming the question; a file the loader
    refuses is an error (a bug of the importer: nothing is written)."""
    from .source import load_paths

    warnings: list[Diagnostic] = []
    from .source import PathError

    try:
        bank = load_paths([folder], warnings)
    except PathError:
        return []
    except LmsExportError as e:
        return [
            replace(d, loc=replace(d.loc, path=_rebase(d.loc.path, folder, out)), rule="import.reload")
            for d in e.diagnostics
        ]
    out_diags: list[Diagnostic] = []
    loaded = {q.id: q for q in bank.quizzes}
    for iq in result.quizzes:
        back = loaded.get(iq.quiz.id)
        written = (out / iq.path).as_posix()
        if back is None:
            out_diags.append(
                Diagnostic(
                    iq.quiz.loc or SourceLoc(written),
                    f"quiz {iq.quiz.id!r} is missing from {written}",
                    rule="import.reload",
                )
            )
            continue
        for mine, theirs in zip(iq.quiz.questions, back.questions, strict=False):
            if mine == theirs:
                continue
            names = [
                fl.name
                for fl in fields(mine)
                if fl.compare and getattr(mine, fl.name) != getattr(theirs, fl.name)
            ]
            why = lost.get(iq.path, {}).get(mine.id)
            out_diags.append(
                Diagnostic(
                    mine.loc or SourceLoc(written),
                    f"question {mine.id!r} reads back from {written} with a different {', '.join(names)}"
                    + (f" (Markdown cannot express {'; '.join(why)})" if why else ""),
                    Severity.WARNING,
                    "import.round-trip",
                )
            )
        quiz_fields = [
            fl.name
            for fl in fields(iq.quiz)
            if fl.compare and fl.name != "questions" and getattr(iq.quiz, fl.name) != getattr(back, fl.name)
        ]
        if quiz_fields or len(back.questions) != len(iq.quiz.questions):
            out_diags.append(
                Diagnostic(
                    iq.quiz.loc or SourceLoc(written),
                    f"quiz {iq.quiz.id!r} reads back from {written} with a different "
                    + (", ".join(quiz_fields) or "question list"),
                    Severity.WARNING,
                    "import.round-trip",
                )
            )
    assessments = {a.id: a for a in bank.assessments}
    for ia in result.assessments:
        back_a = assessments.get(ia.assessment.id)
        written = (out / ia.path).as_posix()
        if back_a is None or _recipe(back_a) != _recipe(ia.assessment):
            out_diags.append(
                Diagnostic(
                    ia.assessment.loc or SourceLoc(written),
                    f"assessment {ia.assessment.id!r} reads back differently from {written}",
                    Severity.WARNING,
                    "import.round-trip",
                )
            )
    return out_diags


def _recipe(a: Assessment) -> Assessment:
    """An assessment without what resolution fills in (candidates), for comparison."""
    return replace(
        a,
        sections=tuple(
            replace(s, draws=tuple(replace(d, candidates=()) for d in s.draws)) for s in a.sections
        ),
    )


def _rebase(path: str, folder: Path, out: Path) -> str:
    prefix = folder.as_posix().rstrip("/") + "/"
    return (out / path[len(prefix) :]).as_posix() if path.startswith(prefix) else path


__all__ = [
    "ImportPathError",
    "ImportResult",
    "Source",
    "find_sources",
    "image_path",
    "output_files",
    "read_source",
    "read_sources",
    "slug",
    "verify",
]
