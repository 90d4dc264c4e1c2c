"""GIFT and Moodle XML files -> draft quizzes for `lmsexport import`.

Parsing is the check readers' (readers/gift.py ``read_gift``, readers/moodlexml.py
``read_moodlexml``): a file Moodle itself would refuse is refused here too, with the same
messages. What differs from `check`'s mapping (each reader's ``read_quiz``) is what an import
needs:

* one quiz per category (``$CATEGORY:``, ``<question type="category">``), titled after the
  category's last name, with the category path kept; questions before any category form a quiz
  named after the file;
* texts keep their markup: HTML (and Moodle's Markdown) becomes the model's rich text through
  readers/richhtml.py, with images from ``@@PLUGINFILE@@`` files and ``data:`` URIs, TeX in
  MathJax delimiters as formulas; a foreign text that is only words stays plain text;
* ids come from ``[id:...]`` and ID numbers; a question without one is named after its
  ``::name::`` / ``<name>`` (the importer makes both valid and unique);
* what the model has no place for is a warning naming the question and a note above it in the
  YAML, and question types lmsexport lacks (image drag and drop, plugin types) are
  skipped (GIFT's descriptions and qtype_ordering questions are read, and lmsexport's own
  missing-word form of a one-blank cloze back as that cloze: readers/gift.py); a Moodle XML
  question is mapped as `check` maps it (readers/moodlexml.py ``to_model``: credits,
  feedback, hints, units, essay options, names);
* lmsexport's own files (with its ``lmsexport-quiz`` metadata) come back exactly: quiz id,
  title, language, description, difficulty, category, shuffling, points, tags, case
  sensitivity, ranges, distractors.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import replace
from pathlib import PurePosixPath

from ..errors import Diagnostic, GiftSyntaxError, MoodleXmlError
from ..media import media_from_bytes, media_from_data_uri
from ..model import (
    Choice,
    Description,
    Difficulty,
    Essay,
    Matching,
    Media,
    MultipleChoice,
    Pair,
    Question,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Text,
)
from .drafts import (
    QUIZ_LANG,
    DraftQuestion,
    DraftQuiz,
    Found,
    Images,
    html_text,
    markdown_text,
    with_image,
)
from .moodlexml import MoodleFile, MoodleText

SKIPPED_KINDS = {
    "multianswer": "cloze",
    "cloze": "cloze",
    "ddwtos": "drag-and-drop",
    "ddimageortext": "drag-and-drop",
    "ddmarker": "drag-and-drop",
    "gapselect": "select missing words",
    "randomsamatch": "random short-answer matching",
    "description": "description",
}
"""Moodle question types -> how the import summary names them (others by their own name)."""


def _file_stem(path: str) -> str:
    name = PurePosixPath(path.replace("\\", "/")).name
    for suffix in (".gift.txt", ".gift", ".txt", ".xml"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


class _Texts:
    """Moodle texts -> model texts for one question, collecting what was lost."""

    def __init__(self, found: Found, foreign: bool) -> None:
        self.found = found
        self.foreign = foreign
        self.lost: list[str] = []
        self.images = Images(media_from_data_uri)

    def convert(
        self, text: str, fmt: str, files: tuple[MoodleFile, ...] = ()
    ) -> tuple[Text | None, str | None]:
        """A text in one of Moodle's formats as a model text and the language it is marked with."""
        if not text.strip():
            return None, None
        self.images = Images(self._resolver(files))
        lang = None
        if fmt == "html" or fmt == "moodle" and _has_tags(text):
            html = text if fmt == "html" else text.replace("\n", "<br>")
            found, lang, lost = html_text(html, self.foreign, self.images)
        elif fmt == "markdown":
            found, lost = markdown_text(text, self.images)
        else:
            if fmt == "wiki":
                self._lose("Moodle's wiki-like markup (kept as written)")
            found, lost = text.strip() or None, []
        for what in lost:
            self._lose(what)
        return found, lang

    def _resolver(self, files: tuple[MoodleFile, ...]):  # type: ignore[no-untyped-def]
        by_path = {f.path + f.name: f for f in files}

        def resolve(src: str) -> Media | None:
            if src.startswith("@@PLUGINFILE@@/"):
                from urllib.parse import unquote

                key = "/" + unquote(src[len("@@PLUGINFILE@@/") :].split("?")[0])
                found = by_path.get(key)
                if found is None:
                    return None
                name, raw = found.name, found.data
                try:
                    data = base64.b64decode("".join(raw.split()), validate=True)
                except (binascii.Error, ValueError):
                    from ..media import MediaError

                    raise MediaError("its base64 data cannot be decoded") from None
                return media_from_bytes(data, name)
            return media_from_data_uri(src)

        return resolve

    def _lose(self, what: str) -> None:
        if what not in self.lost:
            self.lost.append(what)


def _label(raw_id: str | None, name: str | None) -> str:
    """How messages name a question: by its source's id, else its name."""
    if raw_id:
        return f"question {raw_id!r}"
    return f"question {name!r}" if name else "the question"


def _has_tags(text: str) -> bool:
    from ..moodle import MARKUP

    return bool(MARKUP.search(text))


class _Builder:
    """Shared by both formats: one question's draft, its notes and its warnings."""

    def __init__(
        self, found: Found, own: bool, loc: SourceLoc, label: str, quiz_lang: str | None = None
    ) -> None:
        self.found = found
        self.own = own
        self.quiz_lang = quiz_lang or QUIZ_LANG
        """Unmarked text is in the quiz's language (lmsexport's GIFT and Moodle XML mark every text
        in another one): its language, or a placeholder the importer fills in."""
        self.loc = loc
        self.label = label
        self.notes: list[str] = []
        self.texts = _Texts(found, not own)

    def drop(self, what: str, rule: str = "import.not-carried") -> None:
        """Something of the question lmsexport cannot hold: a warning and a note in the YAML."""
        if f"not carried: {what}" in self.notes:
            return
        self.notes.append(f"not carried: {what}")
        self.found.warn(self.loc, f"{self.label}: not carried: {what}", rule)

    def finish(self) -> None:
        """Report what the question's texts lost (markup lmsexport has no place for, images)."""
        for what in self.texts.lost:
            self.notes.append(f"not carried: {what}")
            self.found.warn(self.loc, f"{self.label}: not carried: {what}", "import.markup-lost")


# --------------------------------------------------------------------------- GIFT


def import_gift(data: bytes, path: str) -> Found:
    """A GIFT file's quizzes (one per category); never raises for bad input."""
    from ..readers.gift import MAX_GIFT_BYTES, _meta, gift_too_large, read_gift
    from ..source import decode_source

    found = Found()
    if len(data) > MAX_GIFT_BYTES:
        found.diags.append(gift_too_large(path, len(data)))
        return found
    decode: list[Diagnostic] = []
    text = decode_source(data, path, decode)
    if text is None:
        found.diags += [
            replace(
                d,
                rule=d.rule.replace("source.", "gift.", 1),
                message=d.message.replace("source files must", "GIFT files must"),
            )
            for d in decode
        ]
        return found
    try:
        gift = read_gift(text, path)
    except GiftSyntaxError as e:
        found.diags += e.diagnostics
        return found
    found.diags += gift.warnings
    meta: dict[str, object] = {}
    recipe: dict[str, object] = {}
    for item in gift.items:
        meta = meta or _meta(item.comments, "lmsexport-quiz:")
        recipe = recipe or _meta(item.comments, "lmsexport-assessment:")
    if recipe:
        meta = recipe
    own = bool(meta)
    quizzes: dict[str, DraftQuiz] = {}
    current = ""

    def quiz_for(key: str) -> DraftQuiz:
        return _category_quiz(quizzes, key, path, "GIFT")

    for item in gift.items:
        if item.qtype == "category":
            current = item.category or ""
            continue
        if item.qtype == "comment":
            continue
        draft = _gift_question(found, item, own, str(meta["lang"]) if "lang" in meta else None)
        if draft is not None:
            quiz_for("" if own else current).questions.append(draft)
    if own:
        quiz = quiz_for("")
        _apply_quiz_meta(quiz, meta)
        if isinstance(meta.get("description_html"), str):
            # A rich description, as lmsexport's GIFT writes it (images as data: URIs).
            b = _Builder(found, own, quiz.loc or SourceLoc(path), f"quiz {quiz.raw_id!r}: description")
            quiz.description = b.texts.convert(str(meta["description_html"]), "html")[0]
            b.finish()
        if recipe:
            from .gift import read_assessment

            _own_assessment(found, quiz, lambda: read_assessment(text, path)[0], "GIFT")
    found.quizzes += [q for q in quizzes.values() if q.questions]
    return found


def _own_assessment(found: Found, quiz: DraftQuiz, read, kind: str) -> None:  # type: ignore[no-untyped-def]
    """An assessment's file written by lmsexport: its questions are copies of its quizzes' (dropped
    where those are imported too); its draws keep their question ids, a random draw the ids of
    every question it can yield (the file holds those, not its pool's conditions: the importer
    rebuilds a pool that selects exactly them)."""
    from ..errors import LmsExportError
    from .drafts import DraftAssessment, DraftDraw, DraftSection

    quiz.copies = True
    quiz.raw_id = f"{quiz.raw_id or 'assessment'}-questions"
    try:
        assessment = read()
    except LmsExportError as e:
        found.diags += e.diagnostics
        return
    sections = [
        DraftSection(
            s.title,
            s.shuffle,
            [
                DraftDraw(
                    d.name,
                    ids=[c.question.id for c in d.candidates] if d.is_random else list(d.ids),
                    pick=d.pick if d.is_random else None,
                    points=d.points,
                )
                for d in s.draws
            ],
        )
        for s in assessment.sections
    ]
    found.assessments.append(
        DraftAssessment(
            raw_id=assessment.id,
            title=assessment.title,
            lang=assessment.lang,
            sections=sections,
            description=assessment.description,
            origin=quiz.origin,
            kind=kind,
            loc=quiz.loc,
            own=True,
        )
    )


def _category_names(path: str) -> list[str]:
    from .moodlexml import split_category_path

    return [n for n in split_category_path(path) if n]


def _apply_quiz_meta(quiz: DraftQuiz, meta: dict[str, object]) -> None:
    """lmsexport's own quiz metadata (GIFT's `// lmsexport-quiz:` or Moodle XML's comment)."""
    quiz.own = True
    quiz.raw_id = str(meta["id"]) if "id" in meta else quiz.raw_id
    quiz.title = str(meta.get("title") or quiz.title)
    quiz.lang = str(meta["lang"]) if "lang" in meta else quiz.lang
    if isinstance(meta.get("description"), str):
        quiz.description = str(meta["description"])
    if isinstance(meta.get("difficulty"), str):
        quiz.difficulty = Difficulty(str(meta["difficulty"]))
    quiz.category = str(meta["category"]) if isinstance(meta.get("category"), str) else None
    quiz.shuffle = bool(meta.get("shuffle", True))


def _gift_question(found: Found, item, own: bool, quiz_lang: str | None) -> DraftQuestion | None:  # type: ignore[no-untyped-def]
    """One GIFT question as a draft: its answers as readers/gift.py maps them for `check` (credits,
    feedback, wildcards, the feedback for any other answer, ranges, distractors), its texts
    converted for the import, and what lmsexport's own metadata restores."""
    from . import gift as g

    meta = g._meta(item.comments, g.QUESTION_META)
    label = _label(item.idnumber, item.name)
    b = _Builder(found, own, item.loc, label, quiz_lang)
    stem, stem_lang = b.texts.convert(item.text.text, item.text.format) if item.text else (None, None)
    if stem is None:
        found.warn(item.loc, f"{label} has no question text; skipped", "import.empty-stem")
        return None

    def text(t) -> Text | None:  # type: ignore[no-untyped-def]
        return b.texts.convert(t.text, t.format)[0] if t is not None else None

    def warn(problems: list[tuple[str, str]]) -> None:
        if not own:  # lmsexport's own files were checked when they were written
            for message, rule in problems:
                found.warn(item.loc, f"{label}: {message}", rule)

    explanation = text(item.general_feedback)
    q = Question(
        id="",
        stem=stem,
        body=Essay(),
        explanation=explanation,
        points=float(meta["points"]) if "points" in meta else 1.0,  # type: ignore[arg-type]
        lang=stem_lang,
        tags=tuple(meta.get("tags", item.tags)),  # type: ignore[arg-type]
        loc=item.loc,
        **g.header_from_meta(meta),
    )
    cloze = meta.get("cloze") if own and item.missing_word else None
    if item.missing_word and not isinstance(cloze, dict):
        b.notes.append("a missing-word question: the blank is shown as _____ in the stem")
    typed: Question | None = q
    if item.qtype == "description":
        # readquestion(): no answer block; worth nothing. lmsexport's metadata keeps the
        # explanation GIFT cannot hold.
        explained = g.meta_text(meta.get("explanation")) if own else None
        typed = replace(q, body=Description(), points=0.0, explanation=explained or explanation)
    elif item.qtype == "ordering":
        items = []
        for t in item.ordering.items:
            converted, _ = b.texts.convert(t.text, "html" if own else t.format)
            items.append(converted if converted is not None else t.text)
        typed = replace(q, body=g.ordering_body(item.ordering, tuple(items), meta))
    elif item.qtype == "essay":
        typed = replace(q, body=g.essay_from_meta(meta))
    elif item.qtype == "truefalse":
        wrong, right = (text(f) for f in item.true_false_feedback)
        typed = replace(q, body=g.true_false(item.truth, wrong, right))
    elif item.qtype == "multichoice":
        credits = g.choice_credits([a.fraction for a in item.answers], item.single)
        if credits is None:
            found.warn(item.loc, f"{label} has no answer that earns credit; skipped", "import.no-key")
            return None
        warn(credits[1])
        qlang = q.lang or b.quiz_lang
        choices = []
        for a, credit in zip(item.answers, credits[0], strict=True):
            choice, lang = b.texts.convert(a.text.text, a.text.format)
            if choice is None:
                b.drop("an empty answer")
                continue
            lang = lang or b.quiz_lang
            choices.append(
                Choice(choice, credit, text(a.feedback), lang=lang if lang != qlang else None, loc=a.text.loc)
            )
        single = item.single or bool(meta.get("single"))
        typed = replace(q, body=(SingleChoice if single else MultipleChoice)(tuple(choices)))
    elif item.qtype == "shortanswer":
        found_answers = [(a.text.text, a.fraction, text(a.feedback), a.text.loc) for a in item.answers]
        answers = g.short_answers(found_answers)
        if answers is None:
            found.warn(item.loc, f"{label} has no answer worth 100%; skipped", "import.no-key")
            return None
        warn(answers[2])
        case_sensitive = bool(meta.get("case_sensitive", False))
        typed = replace(q, body=ShortAnswer(answers[0], case_sensitive, other_feedback=answers[1]))
    elif item.qtype == "numerical":
        keys = g.numeric_keys([(a.numeric, a.fraction, text(a.feedback)) for a in item.answers], meta)
        if keys is None:
            found.warn(item.loc, f"{label} has no numeric answer; skipped", "import.no-key")
            return None
        warn(keys[2])
        typed = replace(q, body=g.numerical_from_meta(meta, keys[0], keys[1]))
    elif item.qtype == "match":
        pairs, distractors = [], []
        for left, right in item.pairs:
            converted, _ = b.texts.convert(left.text, left.format)
            if converted is None:
                distractors.append(right)
            else:
                pairs.append(Pair(converted, right, loc=left.loc))
        raw = meta.get("distractors")  # lmsexport's files from before GIFT carried them
        if isinstance(raw, list):
            distractors += [str(d) for d in raw]
        typed = replace(q, body=Matching(tuple(pairs), tuple(distractors)))
    if typed is None:
        return None
    if isinstance(cloze, dict):
        # lmsexport's missing-word form of a cloze of one blank (writers/gift.py _cloze).
        typed = g.cloze_from_missing_word(typed, cloze) or typed
    if item.name and not g.is_derived_name(item.name, typed):
        typed = replace(typed, name=item.name)
    b.finish()
    return DraftQuestion(typed, raw_id=item.idnumber or None, name=item.name, notes=b.notes)


# --------------------------------------------------------------------------- Moodle XML


def import_moodlexml(data: bytes, path: str) -> Found:
    """A Moodle XML file's quizzes (one per category); never raises for bad input."""
    from .moodlexml import (
        MAX_MOODLEXML_BYTES,
        moodlexml_too_large,
        read_moodlexml,
    )

    found = Found()
    if len(data) > MAX_MOODLEXML_BYTES:
        found.diags.append(moodlexml_too_large(path, len(data)))
        return found
    try:
        mx = read_moodlexml(data, path, lenient=True)
    except MoodleXmlError as e:
        found.diags += e.diagnostics
        return found
    found.diags += mx.warnings
    for qtype, loc, name in mx.skipped:
        kind = SKIPPED_KINDS.get(qtype, qtype or "untyped")
        why = "lmsexport has no such question type" if qtype else "the question has no type"
        found.skip(kind, loc, name or None, why, "import.skipped")
    own = bool(mx.meta or mx.assessment_meta)
    if mx.assessment_meta:
        mx.meta = {**mx.assessment_meta, **mx.meta}
    quizzes: dict[str, DraftQuiz] = {}
    shuffles: dict[str, list[bool]] = {}
    current = ""
    for mq in mx.questions:
        if mq.qtype == "category":
            current = "" if own else (mq.category or "")
            quiz = _category_quiz(quizzes, current, path, "Moodle XML")
            if mq.info is not None and mq.info.text and quiz.description is None:
                b = _Builder(found, own, mq.loc, f"category {mq.category!r}")
                quiz.description = b.texts.convert(mq.info.text, mq.info.format, mq.info.files)[0]
                b.finish()
            continue
        draft = _moodle_question(found, mq, own, str(mx.meta["lang"]) if "lang" in mx.meta else None)
        if draft is None:
            continue
        _category_quiz(quizzes, current, path, "Moodle XML").questions.append(draft)
        if mq.shuffle is not None:
            shuffles.setdefault(current, []).append(mq.shuffle)
    for key, quiz in quizzes.items():
        values = shuffles.get(key, [])
        quiz.shuffle = all(values)
        if len(set(values)) > 1:
            found.warn(
                quiz.loc or SourceLoc(path),
                f"the questions of category {quiz.category or quiz.title!r} disagree on shuffling; an "
                "lmsexport quiz has one setting: not shuffled",
                "import.mixed-shuffle",
            )
    if own:
        quiz = _category_quiz(quizzes, "", path, "Moodle XML")
        description = quiz.description
        _apply_quiz_meta(quiz, mx.meta)
        quiz.description = description if description is not None else quiz.description
        if mx.assessment_meta:
            from .moodlexml import read_assessment

            _own_assessment(found, quiz, lambda: read_assessment(data, path)[0], "Moodle XML")
    found.quizzes += [q for q in quizzes.values() if q.questions]
    return found


def _category_quiz(quizzes: dict[str, DraftQuiz], key: str, path: str, kind: str) -> DraftQuiz:
    """The quiz of a Moodle question category (its path ``key``; "" for none) in a GIFT or Moodle
    XML file, made on first use: titled after the category's last name, or the file's."""
    if key not in quizzes:
        names = _category_names(key)
        quizzes[key] = DraftQuiz(
            raw_id=None,
            title=names[-1] if names else _file_stem(path),
            lang=None,
            category="/".join(names) if names else None,
            origin=path,
            kind=kind,
            loc=SourceLoc(path),
        )
    return quizzes[key]


class _MoodleTexts:
    """Moodle XML's texts for readers.moodlexml.to_model(), converted as the import converts them;
    what a question loses is a note above it and a warning."""

    def __init__(self, b: _Builder) -> None:
        self.b = b

    def text(self, t: MoodleText | None) -> tuple[Text | None, str | None]:
        if t is None:
            return None, None
        return self.b.texts.convert(t.text, t.format, t.files)

    def lose(self, what: str) -> None:
        self.b.drop(what)

    def unreachable(self, what: str) -> None:
        message = f"{what} left out: Moodle tries answers in order, and no response reaches it"
        self.b.notes.append(message)
        self.b.found.warn(self.b.loc, f"{self.b.label}: {message}", "import.unreachable-answer")


_NO_BODY = {
    "shortanswer": "has no answer worth 100%",
    "numerical": "has no numeric answer",
    "truefalse": "has no answers",
}
"""Why readers.moodlexml.to_model() found no body (the XML reader refuses the others)."""


def _moodle_question(found: Found, mq, own: bool, quiz_lang: str | None) -> DraftQuestion | None:  # type: ignore[no-untyped-def]
    """One Moodle XML question as a draft: mapped by readers.moodlexml.to_model() as `check` maps
    it (credits, feedback, hints, wildcards, units, essay options, names, penalties), its texts
    converted for the import."""
    from .moodlexml import to_model

    meta = mq.meta
    label = _label((mq.idnumber or "").strip(), mq.name)
    b = _Builder(found, own, mq.loc, label, quiz_lang)
    t = mq.text
    stem, stem_lang = b.texts.convert(t.text, t.format, t.files) if t is not None else (None, None)
    if stem is None:
        found.warn(mq.loc, f"{label} has no question text; skipped", "import.empty-stem")
        return None
    if mq.old_image is not None:
        name, raw = mq.old_image
        try:
            data = base64.b64decode("".join(raw.split()), validate=True)
            media = media_from_bytes(data, name or "image")
            stem = with_image(stem, media, name or "image")
        except (binascii.Error, ValueError) as e:
            b.texts._lose(f"the image of the old <image> field ({e})")
    explanation = None
    g = mq.general_feedback
    if g is not None:
        explanation, _ = b.texts.convert(g.text, g.format, g.files)
    points = mq.mark
    if not points > 0 and mq.qtype != "description":
        b.drop(f"its mark {points:g} (lmsexport needs points above 0: written as 1)")
        points = 1.0
    difficulty = meta.get("difficulty")
    q = Question(
        id="",
        stem=stem,
        body=Essay(),
        explanation=explanation,
        points=points,
        lang=stem_lang,
        tags=tuple(meta.get("tags", mq.tags)),
        difficulty=Difficulty(difficulty) if isinstance(difficulty, str) else None,
        loc=mq.loc,
    )
    typed = to_model(mq, q, _MoodleTexts(b), b.quiz_lang)
    if typed is None:
        why = _NO_BODY.get(mq.qtype, "has nothing lmsexport can hold")
        found.warn(mq.loc, f"{label} {why}; skipped", "import.no-key")
        return None
    if mq.qtype == "ddwtos":
        from .moodlexml import DRAGGING_LOST

        found.warn(mq.loc, f"{label}: {DRAGGING_LOST}", "moodlexml.dragging-not-carried")
    for what in mq.dropped:
        if what == "embedded files":
            continue  # images are carried (also the old <image> field); a lost one is reported
        b.drop(what)
    b.finish()
    raw_id = (mq.idnumber or "").strip() or None
    return DraftQuestion(typed, raw_id=raw_id, name=mq.name or None, notes=b.notes)
