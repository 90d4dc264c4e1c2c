"""The lint rules: ids, names, severities and what each one is for; and rule selection.

Ids are ruff-like: ``LX`` and three digits, the first digit naming the family. A selector is
an id or any prefix of one (``LX``, ``LX1``, ``LX10``, ``LX101``). docs/lint.md has a section per
rule (its anchor is the lower-case id) saying why it matters, with an example that fires and
one that does not; the tests run those examples.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import Severity

FAMILIES = {
    "LX0": "lint",
    "LX1": "the key",
    "LX2": "the choices",
    "LX3": "the stem",
    "LX4": "Urdu and bidirectional text",
    "LX5": "explanations",
}


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    """kebab-case, for SARIF's `name` and for people."""
    severity: Severity
    summary: str
    """One line: what the rule finds (SARIF shortDescription)."""
    why: str
    """Why it matters (SARIF fullDescription; docs/lint.md says more)."""

    @property
    def family(self) -> str:
        return FAMILIES[self.id[:3]]

    @property
    def anchor(self) -> str:
        return self.id.lower()


W, E = Severity.WARNING, Severity.ERROR

RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "LX001",
            "unknown-rule-in-ignore",
            W,
            "An `# lmsexport: ignore[...]` comment names no rule.",
            "A misspelt id in an ignore comment silences nothing, and the finding it was meant for "
            "goes on firing (or, once fixed, the comment stays behind as noise).",
        ),
        Rule(
            "LX101",
            "key-position-imbalance",
            W,
            "In a quiz with `shuffle: false`, the keys' positions are far from uniform.",
            "When choices are not shuffled, learners who notice that the key is most often in one "
            "position score above their knowledge (Haladyna, Downing & Rodriguez 2002, guideline "
            "20: vary the location of the right answer). A chi-square goodness-of-fit test over the quiz, "
            "against uniform positions given each question's number of choices.",
        ),
        Rule(
            "LX102",
            "key-position-pattern",
            W,
            "In a quiz with `shuffle: false`, the keys' positions repeat a pattern or run.",
            "A run (the key in the same position question after question) or a cycle "
            "(1, 2, 3, 4, 1, 2, 3, 4) is a pattern test-wise learners exploit even when every "
            "position is used equally often, which a balance test cannot see.",
        ),
        Rule(
            "LX103",
            "longest-key",
            W,
            "The key is the longest choice far more often than chance.",
            "Item writers qualify the right answer until it is unarguable, so the longest choice "
            "is a well-known cue (Haladyna et al. 2002, guideline 24: keep the length of choices "
            "about equal). A binomial test over the quiz (Poisson-binomial when questions have "
            "different numbers of choices).",
        ),
        Rule(
            "LX104",
            "clang-association",
            W,
            "A word of the stem is repeated in the key and in no distractor.",
            "A clang association: learners pick the choice that echoes the stem without knowing "
            "the answer (Haladyna et al. 2002, guideline 28b).",
        ),
        Rule(
            "LX105",
            "partial-best-key",
            W,
            "A single-choice question whose best choice is only partly right.",
            "Picking one choice is the whole response, so if no choice earns full credit no learner "
            "can earn the question's points: its real maximum is lower than it says, and item "
            "statistics count it as too hard. Usually a slip (a credit of 0.9 meant as 1), or the "
            "fully right choice was left out.",
        ),
        Rule(
            "LX106",
            "negative-credit-single",
            W,
            "A single-choice question gives a choice a negative credit.",
            "A negative mark for one wrong pick is negative marking (formula scoring): it punishes "
            "guessing, but also partial knowledge and risk-averse learners, so it should be a "
            "deliberate, announced policy (Budescu & Bar-Hillel 1993, on formula scoring). "
            "Formats without negative credits cannot carry it.",
        ),
        Rule(
            "LX107",
            "unreachable-blank-answer",
            W,
            "A cloze blank's answer (or number key) that an earlier one always takes first.",
            "A blank is graded by the first answer that matches (Moodle's shortanswer and numerical "
            "grading, lmsexport.scoring): an answer that an earlier one matches whenever it matches "
            "(the same text in another case when the blank ignores case, a literal answer an earlier "
            "wildcard covers, a key inside the earlier keys' ranges) never gives its credit or its "
            "feedback.",
        ),
        Rule(
            "LX108",
            "untypable-blank-answer",
            E,
            "A cloze blank's answer that no response typed into a one-line input can match.",
            "A blank is a one-line input, and Moodle trims every response before comparing it "
            "(compare_string_with_wildcard()): an answer that holds a line break, a tab or another "
            "control character, or that starts or ends with white space, can never be matched.",
        ),
        Rule(
            "LX109",
            "blank-without-full-credit",
            E,
            "No response fills a cloze blank fully right.",
            "The loader refuses a blank with no full-credit answer; this finds the blanks whose "
            "full-credit answers exist but are never reached (LX107) or cannot be typed (LX108), and "
            "check-box blanks whose right choices add up to less than 100%: the question's real "
            "maximum is then lower than it says.",
        ),
        Rule(
            "LX110",
            "parametric-variants-alike",
            E,
            "Two variants of a parametric question show the same stem but have different keys.",
            "A learner cannot tell the variants apart, so the stem does not determine its answer: "
            "a value the key depends on is not shown (a variable missing from the stem, or shown "
            "with too few decimals). Every variant showing the same numbers defeats the point too.",
        ),
        Rule(
            "LX201",
            "all-of-the-above-shuffled",
            E,
            "A choice says 'all of the above' in a quiz whose choices are shuffled.",
            "Shuffled, 'all of the above' can be shown first, with nothing above it; the choice "
            "is also a known weak option (Haladyna et al. 2002, guideline 26: avoid it).",
        ),
        Rule(
            "LX202",
            "none-of-the-above-shuffled",
            E,
            "A choice says 'none of the above' in a quiz whose choices are shuffled.",
            "Shuffled, 'none of the above' can be shown first, with nothing above it "
            "(Haladyna et al. 2002, guideline 25: use it carefully).",
        ),
        Rule(
            "LX203",
            "identical-choice-sets",
            W,
            "Two questions offer the same set of choices with the same key.",
            "Usually a copy-paste slip (the stem was changed, the choices and key were not); else "
            "two questions that test the same thing and give each other away (Haladyna et al. "
            "2002, guideline 4: keep items independent of each other).",
        ),
        Rule(
            "LX204",
            "ordering-alike-items",
            E,
            "Two items of an ordering read the same.",
            "The learner cannot tell which of two items that look alike goes where, so the grading "
            "is a coin toss (and Moodle keys items by their text, so identical ones break its "
            "grading); when fewer than two items look different, it is an ordering with one item: "
            "there is nothing to order.",
        ),
        Rule(
            "LX301",
            "negative-stem-not-emphasized",
            W,
            "The stem asks negatively (not, except, never, least; نہیں، سوائے) without emphasis.",
            "Learners overlook a negative word and answer the positive question (Haladyna et al. "
            "2002, guideline 17: word the stem positively; if a negative is needed, emphasise it).",
        ),
        Rule(
            "LX302",
            "duplicate-stem",
            W,
            "Two questions have the same stem (after normalisation).",
            "A duplicated question counts twice in a bank, is drawn twice into a random exam, and "
            "its copies drift apart when one is corrected.",
        ),
        Rule(
            "LX303",
            "near-duplicate-stem",
            W,
            "Two questions have nearly the same stem.",
            "A near copy is usually a duplicate that was edited, or a variant that gives the other "
            "one away when both are drawn into one exam.",
        ),
        Rule(
            "LX401",
            "arabic-letter-in-urdu",
            W,
            "An Urdu text uses an Arabic code point where Urdu has a letter of its own.",
            "ي ك ه look like ی ک ہ but are other characters: search, sorting, spell checking and "
            "duplicate detection treat the word as another word, and Nastaliq fonts may lack them.",
        ),
        Rule(
            "LX402",
            "mixed-digits",
            W,
            "A text mixes Arabic-Indic digits with Urdu (Extended Arabic-Indic) ones.",
            "٤٥٦ and ۴۵۶ are other code points that Urdu fonts draw differently; a number typed "
            "half in each is not found by search and reads inconsistently.",
        ),
        Rule(
            "LX403",
            "bidi-unbalanced",
            W,
            "A bidi embedding, override or isolate is not closed, is closed twice, or overrides.",
            "An unclosed embedding reorders text after it; an override shows letters in another "
            "order than they are stored (the 'Trojan Source' trick, CVE-2021-42574).",
        ),
        Rule(
            "LX404",
            "bidi-control-useless",
            W,
            "A bidi control in a text of one direction, where it changes nothing.",
            "Invisible characters that do nothing still break search, duplicate detection and "
            "answer matching (a short answer typed without them is marked wrong).",
        ),
        Rule(
            "LX405",
            "zero-width-useless",
            W,
            "A zero-width character where it changes neither shaping nor line breaking.",
            "ZWNJ and ZWJ matter between letters that would join (or not) by themselves; elsewhere "
            "they are invisible noise that breaks search and answer matching.",
        ),
        Rule(
            "LX406",
            "latin-punctuation-in-urdu",
            W,
            "An Urdu sentence uses Latin punctuation where Urdu has its own (؟ ، ؛ ۔).",
            "Latin ? , ; . are left-to-right-neutral marks drawn for Latin text; Urdu's own marks "
            "have the right shapes (a mirrored question mark) and keep their place in a "
            "right-to-left line.",
        ),
        Rule(
            "LX501",
            "missing-explanation",
            W,
            "A question has no explanation.",
            "The explanation is what a learner reads after answering, in every format; without it "
            "a wrong answer teaches nothing (feedback is the item's teaching part).",
        ),
        Rule(
            "LX502",
            "explanation-misses-key",
            W,
            "The explanation never mentions the key (its text, its numbers or its words).",
            "An explanation that does not name the right answer usually explains another question "
            "(a copy-paste slip) or leaves the learner guessing which choice was right.",
        ),
    )
}


class SelectorError(ValueError):
    """A rule selector that matches no rule (a usage error)."""


def check_selector(selector: str) -> str:
    """The selector upper-cased, or SelectorError with a did-you-mean."""
    s = selector.strip().upper()
    if s == "ALL":
        return "LX"
    if s and any(rule_id.startswith(s) for rule_id in RULES):
        return s
    close = difflib.get_close_matches(s, list(RULES), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else " (see lmsexport lint --list-rules)"
    raise SelectorError(f"unknown rule selector '{selector}'{hint}")


def resolve(select: Iterable[str], ignore: Iterable[str]) -> frozenset[str]:
    """The enabled rules, as ruff resolves them: for each rule, the most specific (longest)
    selector matching it decides; between a select and an ignore of the same length, ignore wins."""
    sel = [check_selector(s) for s in select]
    ign = [check_selector(s) for s in ignore]
    enabled = set()
    for rule_id in RULES:
        best_sel = max((len(s) for s in sel if rule_id.startswith(s)), default=-1)
        best_ign = max((len(s) for s in ign if rule_id.startswith(s)), default=-1)
        if best_sel > best_ign:
            enabled.add(rule_id)
    return frozenset(enabled)


def matches(selectors: Iterable[str], rule_id: str) -> bool:
    return any(rule_id.startswith(s) for s in selectors)


def sarif_rules(docs_url: str | None) -> list[object]:
    """Every rule as report.RuleInfo; helpUri is docs_url#<id> when a documentation URL is known."""
    from ..report import RuleInfo

    out: list[object] = []
    for r in RULES.values():
        where = f"{docs_url}#{r.anchor}" if docs_url else f"docs/lint.md#{r.anchor} in lmsexport's repository"
        out.append(
            RuleInfo(
                id=r.id,
                name=r.name,
                summary=r.summary,
                description=r.why,
                severity=r.severity,
                help_uri=f"{docs_url}#{r.anchor}" if docs_url else None,
                help_markdown=f"**{r.id} {r.name}**: {r.summary}\n\n{r.why}\n\nMore, with examples: {where}.",
                tags=("quality", r.family),
            )
        )
    return out
