"""Lint on issue 23's kinds: the blank rules (LX107 unreachable, LX108 untypable, LX109 no
full credit), alike ordering items (LX204), and descriptions, which ask nothing (no LX301, LX501
or LX502) and are worth nothing, so the statistics leave them out."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lmsexport.lint.checks import covers, untypable
from lmsexport.lint.config import LintConfig
from lmsexport.lint.engine import lint_paths
from lmsexport.model import Answer

ROOT = Path(__file__).resolve().parents[1]


def _rules(tmp_path: Path, body: str, markup: str = "plain") -> list[str]:
    head = f"id: demo\ntitle: Demo\nlang: en\nmarkup: {markup}\nquestions:\n"
    (tmp_path / "q.yaml").write_text(head + textwrap.dedent(body), encoding="utf-8")
    result = lint_paths([tmp_path / "q.yaml"], LintConfig())
    assert not [d for d in result.diagnostics if not d.rule.startswith("LX")], result.diagnostics
    return [d.rule for d in result.diagnostics]


def _cloze(blank: str) -> str:
    return f"""
    - id: q1
      type: cloze
      stem: "ZeRO-3 partitions the [[1]] too."
      explanation: "ZeRO-3 partitions the parameters too."
      blanks:
        - {blank}
    """


@pytest.mark.parametrize(
    ("blank", "expected"),
    [
        # a case-insensitive duplicate is never reached; a case-sensitive one is
        ('{type: short_answer, answers: ["parameters", {text: "Parameters", credit: 0.5}]}', ["LX107"]),
        ('{type: short_answer, case_sensitive: true, answers: ["parameters", {text: "Parameters", credit: 0.5}]}', []),  # noqa: E501
        # a literal answer an earlier wildcard matches
        ('{type: short_answer, answers: ["parameters", {text: "param*", wildcard: true, credit: 0}, "params"]}', ["LX107"]),  # noqa: E501
        # the only full-credit answer is taken by an earlier half-credit wildcard
        ('{type: short_answer, answers: [{text: "param*", wildcard: true, credit: 0.5}, "parameters"]}', ["LX107", "LX109"]),  # noqa: E501
        ('{type: short_answer, answers: ["parameters", "the\\tparameters"]}', ["LX108"]),
        ('{type: short_answer, answers: [" parameters", "params"]}', []),  # the loader trims it
        # number keys: inside the earlier keys' ranges
        ("{type: numerical, answers: [{range: [0, 1], credit: 0.5}, {answer: 0.5, tolerance: 0.1}]}", ["LX107", "LX109"]),  # noqa: E501
        ("{type: numerical, answers: [{answer: 0.5, tolerance: 0.1}, {range: [0, 1], credit: 0.5}]}", []),
        # check boxes whose right choices add up to less than 100% (the loader warns; lint errs)
        ("{type: choice, display: vertical, multiple: true, choices: [{text: parameters, credit: 0.5}, {text: gradients, credit: 0.25}, {text: activations}]}", ["LX109"]),  # noqa: E501
        ("{type: choice, choices: [{text: parameters, correct: true}, {text: activations}]}", []),
    ],
)  # fmt: skip
def test_blank_rules(tmp_path: Path, blank: str, expected: list[str]) -> None:
    found = [r for r in _rules(tmp_path, _cloze(blank)) if r in ("LX107", "LX108", "LX109")]
    assert sorted(found) == expected


def test_untypable_and_covers() -> None:
    assert untypable("ZeRO-3") is None
    assert untypable("ZeRO-3 ") == "starts or ends with a space, which Moodle trims from every response"
    assert untypable("a\u2028b") == "holds a line break"
    assert untypable("a\x07") == "holds the control character U+0007"
    assert untypable("") == "is empty"
    assert covers(Answer("ZeRO*", wildcard=True), Answer("zero-3"), case_sensitive=False)
    assert not covers(Answer("ZeRO*", wildcard=True), Answer("zero-3"), case_sensitive=True)
    # a wildcard answer is covered only by one of the same pattern (or of stars only)
    assert not covers(Answer("ZeRO-3"), Answer("ZeRO*", wildcard=True), case_sensitive=False)
    assert covers(Answer("**", wildcard=True), Answer("ZeRO*", wildcard=True), case_sensitive=True)
    assert covers(Answer("zero*", wildcard=True), Answer("ZeRO*", wildcard=True), case_sensitive=False)


def test_alike_ordering_items_and_an_ordering_of_one_item(tmp_path: Path) -> None:
    body = """
    - id: q1
      type: ordering
      stem: "Order the ZeRO stages."
      explanation: "ZeRO-1, then ZeRO-2."
      items: ["ZeRO-1", "**ZeRO-1**"]
    """
    (tmp_path / "q.yaml").write_text(
        "id: demo\ntitle: Demo\nlang: en\nmarkup: markdown\nquestions:\n" + textwrap.dedent(body),
        encoding="utf-8",
    )
    diags = [d for d in lint_paths([tmp_path / "q.yaml"], LintConfig()).diagnostics if d.rule == "LX204"]
    assert len(diags) == 1 and "an ordering with one item" in diags[0].message


def test_descriptions_ask_nothing(tmp_path: Path) -> None:
    """No explanation needed (LX501), no key to mention (LX502), no stem to word positively
    (LX301) in a text that asks nothing."""
    body = """
    - id: d1
      type: description
      stem: "The next questions do not cover ZeRO-Infinity."
    - id: q1
      stem: "Which ZeRO stage partitions the parameters?"
      explanation: "ZeRO-3 partitions the parameters."
      choices: [{text: "ZeRO-3", correct: true}, {text: "ZeRO-1"}, {text: "ZeRO-2"}]
    """
    assert _rules(tmp_path, body) == []


def test_the_structured_case_lints_without_crashing() -> None:
    """Every new kind, descriptions worth 0 points among them, through every rule."""
    result = lint_paths(sorted((ROOT / "tests" / "cases" / "structured").glob("*.yaml")), LintConfig())
    assert not [d for d in result.diagnostics if not d.rule.startswith("LX")], result.diagnostics
