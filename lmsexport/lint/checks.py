"""The rules that look at one quiz at a time (the bank-wide ones are in dupes.py).

Each check appends Findings; the engine filters them by the selected rules and the ignore
comments. Messages say what was found and where; hints say what to do.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import assert_never

from ..errors import Diagnostic
from ..model import (
    Answer,
    BulletList,
    Calculated,
    CalculatedChoice,
    ChoiceBlank,
    Cloze,
    Code,
    CodeBlock,
    Description,
    Emph,
    Essay,
    Image,
    Inline,
    LineBreak,
    Link,
    Matching,
    Math,
    MultipleChoice,
    NumberBlank,
    Numerical,
    NumericKey,
    OrderedList,
    Ordering,
    Para,
    Question,
    Quiz,
    Rich,
    ShortAnswer,
    SingleChoice,
    SourceLoc,
    Str,
    Strong,
    Table,
    Text,
    TextBlank,
    TrueFalse,
    Variant,
    is_full,
    is_rtl,
    plain_text,
)
from ..scoring import key_interval, text_matches
from . import stats
from .rules import RULES
from .sourcemap import SourceFile
from .text import (
    ARABIC_FOR_URDU,
    ARABIC_INDIC_DIGITS,
    ASPIRABLE,
    BIDI_CONTROLS,
    BIDI_EMBEDDINGS,
    BIDI_ISOLATES,
    BIDI_OVERRIDES,
    DO_CHASHMI_HEH,
    LATIN_FOR_URDU_PUNCT,
    PDF,
    PDI,
    URDU_DIGITS,
    ZERO_WIDTH,
    codepoint,
    content_words,
    describe,
    has_numbers,
    is_arabic_letter,
    mentions_word,
    normalize,
    numbers,
    strong_directions,
    words,
    zero_width_changes_something,
)

DEFAULT_SIGNIFICANCE = 0.01
"""The significance level of the statistical rules (LX101-LX103), [tool.lmsexport.lint]
significance to change it."""


@dataclass(frozen=True)
class Finding:
    diag: Diagnostic
    question: str | None = None
    """The question the finding is about (its id line's ignore comments apply), if any."""


# --------------------------------------------------------------------------- rich text as runs


def runs(text: Text | None) -> list[tuple[str, bool]]:
    """The prose of a text as (characters, emphasized) runs; code and formulas become a space.

    Emphasized means inside **strong** or *emphasis* (a Rich text; a plain text has none).
    """
    if text is None:
        return []
    if isinstance(text, str):
        return [(text, False)]
    out: list[tuple[str, bool]] = []
    for block in text.blocks:
        _block_runs(block, out)
        out.append(("\n", False))
    return out


def _block_runs(block: object, out: list[tuple[str, bool]]) -> None:
    if isinstance(block, Para):
        _inline_runs(block.children, False, out)
    elif isinstance(block, BulletList | OrderedList):
        for item in block.items:
            for b in item:
                _block_runs(b, out)
                out.append(("\n", False))
    elif isinstance(block, Table):
        for row in (block.header, *block.rows):
            for cell in row:
                _inline_runs(cell, False, out)
                out.append(("\n", False))
    elif isinstance(block, CodeBlock):
        out.append(("\n", False))


def _inline_runs(inlines: tuple[Inline, ...], emph: bool, out: list[tuple[str, bool]]) -> None:
    for x in inlines:
        if isinstance(x, Str):
            out.append((x.text, emph))
        elif isinstance(x, Emph | Strong):
            _inline_runs(x.children, True, out)
        elif isinstance(x, Link):
            _inline_runs(x.children, emph, out)
        elif isinstance(x, Code | Math | Image):
            out.append((" ", False))
        elif isinstance(x, LineBreak):
            out.append(("\n", False))


def prose(text: Text | None) -> str:
    """The words of a text without code and formulas."""
    return "".join(t for t, _ in runs(text))


# --------------------------------------------------------------------------- the linter


class QuizLinter:
    """Runs every per-quiz rule over one quiz of one file."""

    def __init__(self, quiz: Quiz, src: SourceFile, enabled: frozenset[str], alpha: float) -> None:
        self.quiz = quiz
        self.src = src
        self.enabled = enabled
        self.alpha = alpha
        self.findings: list[Finding] = []
        import bisect

        starts = sorted({q.loc.line for q in quiz.questions if q.loc})
        self.ends: dict[str, int | None] = {}
        for q in quiz.questions:
            k = bisect.bisect_right(starts, q.loc.line if q.loc else 0)
            self.ends[q.id] = starts[k] if k < len(starts) else None

    def on(self, *rule_ids: str) -> bool:
        return any(r in self.enabled for r in rule_ids)

    def add(
        self, rule_id: str, loc: SourceLoc | None, message: str, hint: str | None, question: str | None
    ) -> None:
        rule = RULES[rule_id]
        where = loc or self.quiz.loc or SourceLoc(self.src.path)
        self.findings.append(Finding(Diagnostic(where, message, rule.severity, rule_id, hint), question))

    def run(self) -> list[Finding]:
        quiz = self.quiz
        if self.on("LX101", "LX102") and not quiz.shuffle:
            self.key_positions()
        if self.on("LX103"):
            self.longest_key()
        for q in quiz.questions:
            if isinstance(q.body, SingleChoice) and self.on("LX105", "LX106"):
                self.single_credits(q, q.body)
            if isinstance(q.body, SingleChoice | MultipleChoice):
                if self.on("LX104"):
                    self.clang(q, q.body)
                if self.on("LX201", "LX202") and quiz.shuffle:
                    self.positional_choices(q, q.body)
            if isinstance(q.body, Cloze) and self.on("LX107", "LX108", "LX109"):
                for n, blank in enumerate(q.body.blanks, 1):
                    self.blank(q, n, blank)
            if isinstance(q.body, Ordering) and self.on("LX204"):
                self.ordering_items(q, q.body)
            if isinstance(q.body, Calculated | CalculatedChoice) and self.on("LX110"):
                self.parametric_variants(q, q.body)
            # A description asks nothing: no stem to word positively, no key to explain.
            if self.on("LX301") and not isinstance(q.body, Description):
                self.negative_stem(q)
            if self.on("LX501", "LX502") and not isinstance(q.body, Description):
                self.explanation(q)
            if self.on("LX401", "LX402", "LX403", "LX404", "LX405", "LX406"):
                for text, lang, start in self.texts(q):
                    self.text_quality(text, lang, start, q)
        if self.on("LX401", "LX402", "LX403", "LX404", "LX405", "LX406"):
            self.text_quality(quiz.title, quiz.lang, lambda: self.src.top_key("title"), None)
            if quiz.description is not None:
                self.text_quality(quiz.description, quiz.lang, lambda: self.src.top_key("description"), None)
        return self.findings

    # ------------------------------------------------------------------ positions

    def field(self, q: Question, key: str) -> SourceLoc | None:
        line = q.loc.line if q.loc else 0
        return self.src.key(key, line, self.ends[q.id]) or q.loc

    def locate(self, needle: str, start: SourceLoc | None, q: Question | None) -> SourceLoc | None:
        end = self.ends.get(q.id) if q is not None else None
        return self.src.find(needle, start, end) or start

    def texts(self, q: Question) -> Iterator[tuple[Text, str, Callable[[], SourceLoc | None]]]:
        """Every text of a question with its language and where it starts (a function: finding
        a position costs a search of the file, done only for a finding)."""
        lang = self.quiz.lang_of(q)
        yield q.stem, lang, lambda: self.field(q, "stem")
        if q.explanation is not None:
            yield q.explanation, lang, lambda: self.field(q, "explanation")
        if q.name is not None:
            yield q.name, lang, lambda: self.field(q, "name")
        for part in (q.feedback.correct, q.feedback.partial, q.feedback.incorrect):
            if part is not None:
                yield part, lang, lambda: self.field(q, "feedback")
        for h in q.hints:
            yield h.text, lang, lambda at=h.loc: at or self.field(q, "hints")  # type: ignore[misc]
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices):
                for c in choices:
                    at = c.loc
                    yield c.text, c.lang or lang, lambda at=at: at  # type: ignore[misc]
                    if c.feedback is not None:
                        yield c.feedback, c.lang or lang, lambda at=at: at  # type: ignore[misc]
            case Matching(pairs, distractors):
                for p in pairs:
                    at = p.loc
                    yield p.left, lang, lambda at=at: at  # type: ignore[misc]
                    yield p.right, lang, lambda at=at: at  # type: ignore[misc]
                for d in distractors:
                    yield d, lang, lambda: self.field(q, "distractors")
            case ShortAnswer(answers, _, other_feedback):
                for a in answers:
                    at = a.loc
                    yield a.text, lang, lambda at=at: at or self.field(q, "answers")  # type: ignore[misc]
                    if a.feedback is not None:
                        yield a.feedback, lang, lambda at=at: at or self.field(q, "answers")  # type: ignore[misc]
                if other_feedback is not None:
                    yield other_feedback, lang, lambda: self.field(q, "other_feedback")
            case TrueFalse(_, feedback_true, feedback_false):
                for key, text in (("feedback_true", feedback_true), ("feedback_false", feedback_false)):
                    if text is not None:
                        yield text, lang, lambda key=key: self.field(q, key)  # type: ignore[misc]
            case Numerical(keys, other_feedback=other_feedback):
                for k in keys:
                    if k.feedback is not None:
                        yield k.feedback, lang, lambda at=k.loc: at or self.field(q, "answers")  # type: ignore[misc]
                if other_feedback is not None:
                    yield other_feedback, lang, lambda: self.field(q, "other_feedback")
            case Essay(template=template, grader_info=grader_info):
                for key, text in (("template", template), ("grader_info", grader_info)):
                    if text is not None:
                        yield text, lang, lambda key=key: self.field(q, key)  # type: ignore[misc]
            case Cloze(blanks):
                for blank in blanks:
                    yield from self._blank_texts(q, blank, lang)
            case Ordering(items):
                for item in items:
                    yield item, lang, lambda: self.field(q, "items")
            case Description() | Calculated():
                pass
            case CalculatedChoice(choices=calc):
                for cc in calc:
                    if cc.feedback is not None:
                        yield cc.feedback, lang, lambda at=cc.loc: at or self.field(q, "choices")  # type: ignore[misc]
            case _:
                assert_never(q.body)

    # ------------------------------------------------------------------ LX110

    def parametric_variants(self, q: Question, body: Calculated | CalculatedChoice) -> None:
        """Two variants whose stems read the same (each instantiated: its values shown with their
        decimals) must have the same key as shown; else the stem does not determine the answer.
        A question whose variants all read the same is reported too."""
        from .. import formula as fm
        from ..variants import shown_values, substitute_text

        def key(v: Variant) -> str:
            if isinstance(body, Calculated):
                return fm.format_value(v.answer if v.answer is not None else math.nan, body.decimals)
            right = [
                fm.format_value(x, body.decimals)
                for x, c in zip(v.choices, body.choices, strict=True)
                if c.earns
            ]
            return ", ".join(right)

        seen: dict[str, Variant] = {}
        for v in body.variants:
            try:
                stem = plain_text(substitute_text(q.stem, shown_values(body.params, v)) or "")
            except ValueError:
                return  # the loader reports a bad placeholder
            first = seen.setdefault(stem, v)
            if first is not v and key(first) != key(v):
                self.add(
                    "LX110",
                    self.field(q, "stem"),
                    f"question '{q.id}': variants {first.number} and {v.number} show the same stem but "
                    f"their keys differ ({key(first)} and {key(v)})",
                    "show every value the key depends on in the stem, as {name}, with enough decimals",
                    q.id,
                )
                return
        if len(body.variants) > 1 and len(seen) == 1:
            self.add(
                "LX110",
                self.field(q, "stem"),
                f"question '{q.id}': all {len(body.variants)} variants show the same stem",
                "write the variables into the stem as {name}: every attempt shows the same numbers",
                q.id,
            )

    def _blank_texts(
        self, q: Question, blank: TextBlank | NumberBlank | ChoiceBlank, lang: str
    ) -> Iterator[tuple[Text, str, Callable[[], SourceLoc | None]]]:
        here = blank.loc

        def at() -> SourceLoc | None:
            return here or self.field(q, "blanks")

        match blank:
            case TextBlank(answers, _, other_feedback):
                for a in answers:
                    yield a.text, lang, lambda a=a: a.loc or at()  # type: ignore[misc]
                    if a.feedback is not None:
                        yield a.feedback, lang, lambda a=a: a.loc or at()  # type: ignore[misc]
                if other_feedback is not None:
                    yield other_feedback, lang, at
            case NumberBlank(keys, other_feedback):
                for k in keys:
                    if k.feedback is not None:
                        yield k.feedback, lang, lambda k=k: k.loc or at()  # type: ignore[misc]
                if other_feedback is not None:
                    yield other_feedback, lang, at
            case ChoiceBlank(choices):
                for c in choices:
                    yield c.text, c.lang or lang, lambda c=c: c.loc or at()  # type: ignore[misc]
                    if c.feedback is not None:
                        yield c.feedback, c.lang or lang, lambda c=c: c.loc or at()  # type: ignore[misc]
            case _:
                assert_never(blank)

    # ------------------------------------------------------------------ LX107-LX109

    def blank(self, q: Question, n: int, blank: TextBlank | NumberBlank | ChoiceBlank) -> None:
        """What no response of blank n can reach (the first match counts: lmsexport.scoring),
        what none can type, and whether any response fills it fully right."""
        where = blank.loc or self.field(q, "blanks")
        what = f"question '{q.id}': blank {n}"
        full = True
        match blank:
            case TextBlank(answers, case_sensitive):
                full = self._text_blank(q, what, where, answers, case_sensitive)
            case NumberBlank(keys):
                seen: list[tuple[float, float]] = []
                reached: list[NumericKey] = []
                for i, k in enumerate(keys, 1):
                    lo, hi = key_interval(k)
                    if _within(lo, hi, seen):
                        message = (
                            f"{what}: key {i} is never reached: the keys before it hold every number it "
                            "holds (the first key that holds a response counts)"
                        )
                        hint = "remove it, or put it before the keys that take its numbers"
                        self.add("LX107", k.loc or where, message, hint, q.id)
                    else:
                        reached.append(k)
                    seen.append((lo, hi))
                full = not keys or any(is_full(k.credit) for k in reached)
            case ChoiceBlank(choices, multiple=multiple):
                if multiple:
                    total = sum(c.credit for c in choices if c.credit > 0)
                    if total < 1 - 1e-6:
                        added = _percent(total)
                        message = (
                            f"{what}: its right choices add up to {added}%, so no picks fill it fully right"
                        )
                        self.add("LX109", where, message, "make the right choices' credits add up to 1", q.id)
                elif choices and not any(c.full for c in choices):
                    message = f"{what}: no choice earns full credit, so no pick fills it fully right"
                    self.add("LX109", where, message, "give the right choice 'credit: 1'", q.id)
            case _:
                assert_never(blank)
        if not full:
            part = "key is reached" if isinstance(blank, NumberBlank) else "answer is reached or can be typed"
            message = f"{what}: no response fills it fully right: no full-credit {part}"
            hint = "give an answer a learner can type 'credit: 1', before any answer that takes its responses"
            self.add("LX109", where, message, hint, q.id)

    def _text_blank(
        self,
        q: Question,
        what: str,
        where: SourceLoc | None,
        answers: tuple[Answer, ...],
        case_sensitive: bool,
    ) -> bool:
        """LX107 and LX108 for a text blank's answers; whether a full-credit one is reached."""
        reachable: list[Answer] = []
        typable: list[tuple[int, Answer]] = []
        for i, a in enumerate(answers, 1):
            bad = untypable(a.text)
            if bad is not None:
                message = (
                    f"{what}: answer {i} {a.text!r} {bad}, so no response typed into the blank matches it"
                )
                hint = "write the answer as a learner types it: on one line, without white space around it"
                self.add("LX108", a.loc or where, message, hint, q.id)
                continue
            first = next((j for j, e in typable if covers(e, a, case_sensitive)), None)
            typable.append((i, a))
            if first is not None:
                message = (
                    f"{what}: answer {i} {a.text!r} is never reached: answer {first} "
                    f"{answers[first - 1].text!r} comes first and matches every response it matches "
                    "(the first match counts)"
                )
                hint = "remove it, or put it before the answer that takes its responses"
                self.add("LX107", a.loc or where, message, hint, q.id)
                continue
            reachable.append(a)
        return not answers or any(is_full(a.credit) for a in reachable)

    # ------------------------------------------------------------------ LX204

    def ordering_items(self, q: Question, body: Ordering) -> None:
        keys = [" ".join(unicodedata.normalize("NFKC", plain_text(x)).split()) for x in body.items]
        shown: dict[str, int] = {}
        for i, key in enumerate(keys, 1):
            if key in shown:
                distinct = len(set(keys))
                more = ""
                if distinct < 2:
                    more = ", so only one item looks different: an ordering with one item, nothing to order"
                message = (
                    f"question '{q.id}': items {shown[key]} and {i} of the ordering read the same "
                    f"({_short(key)!r}): the learner cannot tell which goes where{more}"
                )
                self.add(
                    "LX204",
                    self.field(q, "items"),
                    message,
                    "make each item say what the others do not",
                    q.id,
                )
                return
            shown[key] = i

    # ------------------------------------------------------------------ LX101, LX102

    def _single_keys(self) -> list[tuple[Question, SingleChoice, int]]:
        """(question, its body, the key's index) of each single choice question with one key."""
        return [
            (q, q.body, q.body.key_indexes[0])
            for q in self.quiz.questions
            if isinstance(q.body, SingleChoice) and len(q.body.key_indexes) == 1 and len(q.body.choices) >= 2
        ]

    def key_positions(self) -> None:
        keyed = self._single_keys()
        positions = [k for _, _, k in keyed]
        sizes = [len(body.choices) for _, body, _ in keyed]
        where = self.src.top_key("shuffle") or self.quiz.loc
        test = stats.key_positions_test(positions, sizes) if self.on("LX101") else None
        if test is not None and test.p < self.alpha:
            shown = ", ".join(f"{k + 1}: {o}" for k, o in enumerate(test.observed))
            expected = ", ".join(f"{e:.1f}" for e in test.expected)
            how = "exact" if test.exact else "chi-square approximation"
            self.add(
                "LX101",
                where,
                f"the keys' positions are unbalanced over {len(positions)} questions "
                f"(position: keys {shown}; expected {expected}): chi-square {test.statistic:.2f}, "
                f"{test.df} df, p = {test.p:.2g} ({how}) < {self.alpha:g}",
                "move keys to the under-used positions, or let the LMS shuffle (shuffle: true)",
                None,
            )
        pattern = stats.key_pattern(positions, sizes) if self.on("LX102") else None
        if pattern is not None and pattern.p < self.alpha:
            first = keyed[pattern.start][0]
            last = keyed[pattern.start + pattern.length - 1][0]
            seq = ", ".join(str(p + 1) for p in positions[pattern.start : pattern.start + pattern.length])
            kind = (
                f"the key is at position {positions[pattern.start] + 1} in {pattern.length} questions "
                "in a row"
                if pattern.period == 1
                else f"the keys' positions repeat a cycle of {pattern.period} ({seq})"
            )
            if pattern.whole:
                span = f"over all {len(positions)} single-choice questions, '{first.id}' to '{last.id}'"
                why = f"p = {pattern.p:.2g} that a quiz's keys have so short a period"
            else:
                span = f"from '{first.id}' to '{last.id}'"
                why = f"p = {pattern.p:.2g} corrected for the patterns looked for"
            self.add(
                "LX102",
                first.loc,
                f"{kind}, {span}: chance {pattern.chance:.2g}, {why} (< {self.alpha:g})",
                "reorder some questions' choices so the key positions follow no pattern, "
                "or let the LMS shuffle (shuffle: true)",
                first.id,
            )

    # ------------------------------------------------------------------ LX103

    def longest_key(self) -> None:
        trials: list[float] = []
        hits: list[Question] = []
        for q, body, key in self._single_keys():
            lengths = [len(normalize(plain_text(c.text)).replace(" ", "")) for c in body.choices]
            top = max(lengths)
            if lengths.count(top) != 1:
                continue  # no unique longest choice: the cue cannot exist here
            trials.append(1.0 / len(body.choices))
            if lengths[key] == top:
                hits.append(q)
        if len(trials) < 3 or len(hits) <= sum(trials):
            return
        p = stats.at_least_p(len(hits), trials)
        if p < self.alpha:
            ids = ", ".join(f"'{q.id}'" for q in hits[:6]) + (", ..." if len(hits) > 6 else "")
            self.add(
                "LX103",
                self.src.top_key("questions") or self.quiz.loc,
                f"the key is the longest choice in {len(hits)} of {len(trials)} questions "
                f"(chance: {sum(trials):.1f}); binomial p = {p:.2g} < {self.alpha:g}: {ids}",
                "make the distractors as long and as qualified as the key, or shorten the key",
                None,
            )

    # ------------------------------------------------------------------ LX105, LX106

    def single_credits(self, q: Question, body: SingleChoice) -> None:
        """A single choice question is scored by the one choice picked: its best choice is what
        a learner who knows the answer picks, and a wrong pick is the only other outcome."""
        best = max(body.credits)
        if self.on("LX105") and not body.key_indexes and best > 0:
            choice = body.choices[body.credits.index(best)]
            self.add(
                "LX105",
                choice.loc or self.field(q, "choices"),
                f"question '{q.id}': its best choice '{_short(plain_text(choice.text))}' is only partly "
                f"right ({_percent(best)}%), so no response earns the full points",
                "give the best choice 'credit: 1', or add the fully right choice the question lacks",
                q.id,
            )
        if self.on("LX106"):
            for c in body.choices:
                if c.credit < 0:
                    self.add(
                        "LX106",
                        c.loc or self.field(q, "choices"),
                        f"question '{q.id}': choice '{_short(plain_text(c.text))}' has a negative credit "
                        f"({_percent(c.credit)}%): a wrong pick costs points",
                        "give it credit 0 unless the quiz's instructions announce negative marking; "
                        "formats without negative credits cannot carry it",
                        q.id,
                    )

    # ------------------------------------------------------------------ LX104

    def clang(self, q: Question, body: SingleChoice | MultipleChoice) -> None:
        stem = content_words(normalize(prose(q.stem)))
        right = set(body.key_indexes)
        keys = [c for i, c in enumerate(body.choices) if i in right]
        others = [c for i, c in enumerate(body.choices) if i not in right]
        if not keys or not others:
            return
        key_words = {w for c in keys for w in content_words(normalize(prose(c.text)))}
        other_words = {w for c in others for w in content_words(normalize(prose(c.text)))}
        echoed = []
        for w in dict.fromkeys(stem):
            if mentions_word(w, key_words) and not mentions_word(w, other_words):
                echoed.append(w)
        if not echoed:
            return
        key = next(
            (c for c in keys if any(mentions_word(w, set(words(normalize(prose(c.text))))) for w in echoed)),
            keys[0],
        )
        shown = ", ".join(f"'{w}'" for w in echoed)
        self.add(
            "LX104",
            key.loc or q.loc,
            f"question '{q.id}': the key repeats {shown} from the stem, and no distractor does",
            "use the stem's words in the distractors too, or word the key without them",
            q.id,
        )

    # ------------------------------------------------------------------ LX201, LX202

    def positional_choices(self, q: Question, body: SingleChoice | MultipleChoice) -> None:
        for c in body.choices:
            said = normalize(prose(c.text))
            if ALL_OF_THE_ABOVE.match(said) and "LX201" in self.enabled:
                rule, what = "LX201", "all of the above"
            elif NONE_OF_THE_ABOVE.match(said) and "LX202" in self.enabled:
                rule, what = "LX202", "none of the above"
            else:
                continue
            self.add(
                rule,
                c.loc or q.loc,
                f"question '{q.id}': choice '{plain_text(c.text).strip()}' means '{what}', "
                "but this quiz's choices are shuffled (it may be shown first)",
                "set shuffle: false for this quiz and put the choice last, or replace it with "
                "a choice that stands on its own",
                q.id,
            )

    # ------------------------------------------------------------------ LX301

    def negative_stem(self, q: Question) -> None:
        parts = runs(q.stem)
        text = "".join(t for t, _ in parts)
        flags = [e for t, e in parts for _ in t]
        folded = text.translate(_ONE_TO_ONE)
        for m in NEGATIVE.finditer(folded):
            word = text[m.start() : m.end()]
            if all(flags[m.start() : m.end()]):
                continue
            latin = not is_arabic_letter(word[0])
            if latin and word.isupper() and len(word) > 1:
                continue
            if isinstance(q.stem, Rich):
                hint = f"emphasise it: **{word.upper() if latin else word}**"
            elif latin:
                hint = f"write it in capitals: {word.upper()}"
            else:
                hint = (
                    f"Urdu has no capitals and a plain file no bold: put this quiz in a file with "
                    f"'markup: markdown' and write **{word}**, or word the stem positively"
                )
            self.add(
                "LX301",
                self.locate(word, self.field(q, "stem"), q),
                f"question '{q.id}': the stem asks negatively ('{word}') without emphasis",
                hint,
                q.id,
            )
            return

    # ------------------------------------------------------------------ LX501, LX502

    def explanation(self, q: Question) -> None:
        if q.explanation is None or not plain_text(q.explanation).strip():
            if "LX501" in self.enabled:
                self.add(
                    "LX501",
                    q.loc,
                    f"question '{q.id}' has no explanation",
                    "add 'explanation: ...': why the key is right (and the distractors wrong); "
                    "every format shows it after answering",
                    q.id,
                )
            return
        if "LX502" not in self.enabled:
            return
        said = normalize(plain_text(q.explanation))
        vocabulary = set(words(said))
        keys = self._keys(q)
        if isinstance(q.body, SingleChoice) and len(keys) > 1:
            # Several choices are each fully right (often one answer written two ways): the
            # explanation has to name one of them, not every one.
            if any(_mentions(key, said, vocabulary) for key, _ in keys):
                return
            keys = keys[:1]
        for key, shown in keys:
            if ALL_OF_THE_ABOVE.match(key) or NONE_OF_THE_ABOVE.match(key):
                continue  # the explanation names the choices it covers, not the phrase
            if not _mentions(key, said, vocabulary):
                self.add(
                    "LX502",
                    self.field(q, "explanation"),
                    f"question '{q.id}': the explanation never mentions the key '{shown}' "
                    "(its text, its numbers or its words)",
                    "say in the explanation which answer is right and why",
                    q.id,
                )
                return

    def _keys(self, q: Question) -> list[tuple[str, str]]:
        """(normalized key, as shown) for each key of a question whose key is text or a number."""
        match q.body:
            case SingleChoice(choices) | MultipleChoice(choices):
                keys = [choices[i] for i in q.body.key_indexes]
                return [(normalize(plain_text(c.text)), plain_text(c.text).strip()) for c in keys]
            case ShortAnswer() if q.body.accepted:
                first = q.body.accepted[0]
                return [(normalize(first), first)]
            case Numerical() if q.body.key.answer is not None:
                return [(f"{q.body.key.answer:g}", f"{q.body.key.answer:g}")]
        return []

    # ------------------------------------------------------------------ LX401-LX406

    def text_quality(
        self, text: Text, lang: str, start: Callable[[], SourceLoc | None], q: Question | None
    ) -> None:
        raw = plain_text(text)
        if not raw:
            return
        urdu = lang.lower().split("-")[0] == "ur" and is_rtl(lang)
        special = _SPECIAL.search(raw) is not None
        latin_punct = urdu and _LATIN_PUNCT_AFTER_URDU.search(raw) is not None
        if not special and not latin_punct:
            return  # the common case, decided by two regular expressions
        qid = q.id if q is not None else None
        owner = f"question '{qid}'" if qid else f"quiz '{self.quiz.id}'"

        def at(needle: str) -> SourceLoc | None:
            return self.locate(needle, start(), q)

        if urdu and "LX401" in self.enabled:
            found = [(i, ch) for i, ch in enumerate(raw) if ch in ARABIC_FOR_URDU]
            if found:
                i, ch = found[0]
                urdu_ch, name = ARABIC_FOR_URDU[ch]
                right = f"{urdu_ch} ({codepoint(urdu_ch)} {name})"
                if ch == "\u0647" and i > 0 and raw[i - 1] in ASPIRABLE:
                    right += f", or {DO_CHASHMI_HEH} ({codepoint(DO_CHASHMI_HEH)}) in an aspirate such as بھ"
                kinds = sorted({c for _, c in found})
                listed = ", ".join(describe(c) for c in kinds)
                self.add(
                    "LX401",
                    at(ch),
                    f"{owner}: {len(found)} Arabic letter{'s' if len(found) > 1 else ''} where Urdu "
                    f"has its own: {listed}",
                    f"write {right}"
                    + "".join(
                        f"; {describe(c)} -> {ARABIC_FOR_URDU[c][0]} ({codepoint(ARABIC_FOR_URDU[c][0])})"
                        for c in kinds
                        if c != ch
                    ),
                    qid,
                )
        if "LX402" in self.enabled:
            arabic = [c for c in raw if c in ARABIC_INDIC_DIGITS]
            urdu_digits = [c for c in raw if c in URDU_DIGITS]
            if arabic and (urdu_digits or urdu):
                why = "mixes Arabic-Indic and Urdu digits" if urdu_digits else "uses Arabic-Indic digits"
                fixes = ", ".join(f"{c} -> {chr(ord(c) - 0x0660 + 0x06F0)}" for c in sorted(set(arabic)))
                self.add(
                    "LX402",
                    at(arabic[0]),
                    f"{owner}: the text {why} ({codepoint(arabic[0])} {arabic[0]} ...)",
                    f"write every digit of an Urdu text as Extended Arabic-Indic (U+06F0-U+06F9): {fixes}",
                    qid,
                )
        if self.on("LX403", "LX404"):
            self._bidi(raw, lang, at, owner, qid)
        if "LX405" in self.enabled:
            useless = [
                i for i, ch in enumerate(raw) if ch in ZERO_WIDTH and not zero_width_changes_something(raw, i)
            ]
            if useless:
                ch = raw[useless[0]]
                loc = at(raw[useless[0] - 1 : useless[0] + 1]) if useless[0] else at(ch)
                if useless[0] and loc is not None and loc.col:
                    loc = SourceLoc(loc.path, loc.line, loc.col + 1)
                self.add(
                    "LX405",
                    loc,
                    f"{owner}: {len(useless)} zero-width character{'s' if len(useless) > 1 else ''} "
                    f"that change{'s' if len(useless) == 1 else ''} nothing, first {describe(ch)}",
                    "delete it: it neither changes how letters join nor where lines break here",
                    qid,
                )
        if latin_punct and "LX406" in self.enabled:
            self._punctuation(text, at, owner, qid)

    def _bidi(self, raw: str, lang: str, at: object, owner: str, qid: str | None) -> None:
        locate = at  # type: ignore[assignment]
        stack: list[tuple[str, int]] = []
        problem: tuple[int, str] | None = None
        for i, ch in enumerate(raw):
            if ch in BIDI_OVERRIDES and problem is None:
                problem = (
                    i,
                    f"{BIDI_OVERRIDES[ch]} shows the letters after it in an order other than stored",
                )
            if ch in BIDI_EMBEDDINGS or ch in BIDI_OVERRIDES or ch in BIDI_ISOLATES:
                stack.append((ch, i))
            elif ch == PDF:
                if stack and stack[-1][0] not in BIDI_ISOLATES:
                    stack.pop()
                elif problem is None:
                    problem = (i, "a PDF closes nothing")
            elif ch == PDI:
                if any(c in BIDI_ISOLATES for c, _ in stack):
                    while stack and stack.pop()[0] not in BIDI_ISOLATES:
                        pass
                elif problem is None:
                    problem = (i, "a PDI closes no isolate")
            elif ch in "\n\u2029" and stack and problem is None:
                c, j = stack[0]
                problem = (j, f"{BIDI_CONTROLS[c]} is not closed before the end of its line")
                stack.clear()
        if stack and problem is None:
            c, j = stack[0]
            problem = (j, f"{BIDI_CONTROLS[c]} is never closed")
        if problem is not None:
            if "LX403" in self.enabled:
                i, what = problem
                self.add(
                    "LX403",
                    locate(raw[i]),  # type: ignore[operator]
                    f"{owner}: {what} ({codepoint(raw[i])})",
                    "delete the bidi controls, or close each embedding with PDF (U+202C) and each "
                    "isolate with PDI (U+2069) in the same text",
                    qid,
                )
            return
        controls = [i for i, ch in enumerate(raw) if ch in BIDI_CONTROLS]
        if not controls or "LX404" not in self.enabled:
            return
        direction = "R" if is_rtl(lang) else "L"
        if strong_directions(raw) <= {direction} and not has_numbers(raw):
            ch = raw[controls[0]]
            self.add(
                "LX404",
                locate(ch),  # type: ignore[operator]
                f"{owner}: {len(controls)} bidi control{'s' if len(controls) > 1 else ''} "
                f"({', '.join(sorted({BIDI_CONTROLS[raw[i]] for i in controls}))}) in a text written "
                f"only {'right to left' if direction == 'R' else 'left to right'}, where "
                f"{'they change' if len(controls) > 1 else 'it changes'} nothing",
                "delete it: the output already sets the text's direction from its language",
                qid,
            )

    def _punctuation(self, text: Text, at: object, owner: str, qid: str | None) -> None:
        said = prose(text)
        found: list[tuple[int, int]] = []
        for i, ch in enumerate(said):
            if ch not in LATIN_FOR_URDU_PUNCT:
                continue
            nxt = said[i + 1] if i + 1 < len(said) else ""
            if ch in ".," and (nxt.isdigit() or nxt == "." or (i and said[i - 1] == ".")):
                continue
            j = i - 1
            while j >= 0 and (said[j].isspace() or said[j] in "\"')]»”’"):
                j -= 1
            if j >= 0 and is_arabic_letter(said[j]):
                found.append((j, i))
        if not found:
            return
        j, i = found[0]
        ch = said[i]
        right, name = LATIN_FOR_URDU_PUNCT[ch]
        loc = at(said[j : i + 1])  # type: ignore[operator]
        if loc is not None and loc.line:
            loc = SourceLoc(loc.path, loc.line, loc.col + (i - j))
        kinds = sorted({said[i] for _, i in found})
        self.add(
            "LX406",
            loc,
            f"{owner}: Latin punctuation in Urdu text: {', '.join(repr(k) for k in kinds)} "
            f"({len(found)} time{'s' if len(found) > 1 else ''})",
            f"write {right} ({codepoint(right)} {name}) for '{ch}'"
            + "".join(
                f"; {LATIN_FOR_URDU_PUNCT[k][0]} ({codepoint(LATIN_FOR_URDU_PUNCT[k][0])}) for '{k}'"
                for k in kinds
                if k != ch
            ),
            qid,
        )


_SPECIAL = re.compile(
    "["
    + "".join(ARABIC_FOR_URDU)
    + "".join(ARABIC_INDIC_DIGITS)
    + "".join(BIDI_CONTROLS)
    + "".join(ZERO_WIDTH)
    + "]"
)
"""Any character LX401-LX405 look at: a text without one is skipped at once."""
_LATIN_PUNCT_AFTER_URDU = re.compile("[\u0600-\u06ff\u0750-\u077f][\\s\"')\\]\u00bb\u201d\u2019]*[?,;.]")
"""What LX406 looks at, found fast; the check itself then skips decimals and ellipses."""

_ONE_TO_ONE = str.maketrans({a: u for a, (u, _) in ARABIC_FOR_URDU.items()})

NEGATIVE = re.compile(
    r"(?<!\w)(?:"
    r"(?<!at )least|not(?! only)|never|except|cannot|none|(?<!true or )false|incorrect|untrue|"
    r"\w+n[’']t|"
    r"نہیں|نہ(?! صرف)|سوائے|بجز|(?<!درست یا )(?<!صحیح یا )غلط|سب سے کم"
    r")(?!\w)",
    re.IGNORECASE,
)
"""Negative words of a stem, English and Urdu ('at least', 'not only', 'true or false', 'نہ صرف',
'درست یا غلط' are not)."""

_ABOVE = r"(?:above|these|those|them|options|choices|answers|mentioned)"
_UR_ABOVE = r"(?:(?:مندرجہ|مذکورہ) بالا|اوپر (?:دیے گئے|دیئے گئے|والے|والوں))"
ALL_OF_THE_ABOVE = re.compile(
    rf"^(?:all|both) (?:of )?(?:the )?{_ABOVE}(?: (?:are|is) (?:correct|true|right))?$"
    rf"|^(?:{_UR_ABOVE} |ان میں سے |یہ )?(?:سب|تمام|سبھی)(?: {_UR_ABOVE})?"
    r"(?: (?:جوابات|آپشنز|اختیارات))?(?: (?:درست|صحیح) (?:ہیں|ہے))?$"
)
NONE_OF_THE_ABOVE = re.compile(
    rf"^(?:none|neither) (?:of )?(?:the )?{_ABOVE}(?: (?:are|is) (?:correct|true|right))?$"
    rf"|^(?:(?:ان|{_UR_ABOVE}) میں سے )?کوئی (?:بھی )?(?:(?:درست|صحیح) )?(?:جواب )?نہیں(?: ہے)?$"
)


def _mentions(key: str, said: str, vocabulary: set[str]) -> bool:
    """Whether a normalized explanation mentions a normalized key: its text, one of its
    numbers, or at least a third of its content words (up to inflection): explanations
    paraphrase, and a key translated word for word (آل جمع for all-gather) shares few words
    with an explanation that uses the technical term."""
    if not key:
        return True
    if key in said:
        return True
    wanted = numbers(key)
    if wanted and wanted & numbers(said):
        return True
    key_words = set(content_words(key))
    if not key_words:
        return False
    hits = sum(1 for w in key_words if mentions_word(w, vocabulary))
    return hits * 3 >= len(key_words)


def _short(text: str, n: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _percent(credit: float) -> str:
    text = f"{credit * 100:.5f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


_LINE_BREAKS = "\n\r\x0b\x0c\x85\u2028\u2029"
_TRIMMED = " \t\n\r\0\x0b"
"""What PHP's trim() takes off every response before Moodle compares it (lmsexport.scoring)."""


def untypable(text: str) -> str | None:
    """Why no response typed into a one-line input can match an answer, or None: it is empty,
    holds a line break, a tab (Tab moves on to the next field) or another control character, or
    starts or ends with white space, which the response never keeps (it is trimmed)."""
    if not text:
        return "is empty"
    for c in text:
        if c in _LINE_BREAKS:
            return "holds a line break"
        if c == "\t":
            return "holds a tab (Tab moves on to the next field)"
        if unicodedata.category(c) == "Cc":
            return f"holds the control character U+{ord(c):04X}"
    if text[0] in _TRIMMED or text[-1] in _TRIMMED:
        return "starts or ends with a space, which Moodle trims from every response"
    return None


def covers(earlier: Answer, later: Answer, case_sensitive: bool) -> bool:
    """Whether every response that matches `later` matches `earlier` too: a literal `later`
    that `earlier` matches (lmsexport.scoring.text_matches), or two answers with one pattern
    (the same text, in another case where case does not count), or an earlier answer of stars
    only, which matches anything."""
    if not later.wildcard:
        return text_matches(earlier, case_sensitive, later.text)
    if earlier.wildcard and set(earlier.text) == {"*"}:
        return True
    a = unicodedata.normalize("NFC", earlier.text)
    b = unicodedata.normalize("NFC", later.text)
    return earlier.wildcard and (a == b or not case_sensitive and a.casefold() == b.casefold())


def _within(lo: float, hi: float, intervals: list[tuple[float, float]]) -> bool:
    """Whether [lo, hi] lies inside the union of the closed intervals."""
    at = lo
    covered = False
    for a, b in sorted(intervals):
        if a > at:
            break
        if b >= at:
            at, covered = b, True
        if covered and at >= hi:
            return True
    return False
