"""The editor schema (`lmsexport schema`) agrees with the loader: it accepts every file the loader
accepts and rejects every shape error the loader rejects. Both come from sourcespec.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from lmsexport.cli import app
from lmsexport.editor_schema import schema, schema_text
from lmsexport.errors import Diagnostic, Severity
from lmsexport.source import check_ids, load_file

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "lmsexport" / "data" / "source.schema.json"
VALIDATOR = jsonschema.Draft7Validator(schema())

SHAPE_RULES = frozenset(
    {
        "source.unknown-key",
        "source.missing-key",
        "source.wrong-type",
        "source.foreign-key",
        "source.bad-type",
        "source.bad-difficulty",
        "source.bad-markup",
        "source.bad-pick",
        "source.bad-id",
        "source.bad-points",
        "source.bad-tolerance",
        "source.too-few-choices",
        "source.too-few-pairs",
        "source.no-questions",
        "source.no-sections",
        "source.no-draws",
        "source.draw-kind",
        "source.tolerance-and-range",
        "source.correct-and-credit",
        "source.answer-and-answers",
        "source.bad-count",
        "source.bad-penalty",
        "source.bad-unit-grading",
        "source.bad-unit-input",
        "source.bad-response-format",
        "source.too-long",
        "source.empty-text",
        # issue 23: cloze blanks, orderings
        "source.bad-blank-type",
        "source.bad-display",
        "source.no-blanks",
        "source.too-few-items",
        "source.bad-grading",
        "source.bad-layout",
        "source.bad-numbering",
    }
)
"""Loader rules about the shape of a file, which the schema can express too."""


def _loader_rules(path: Path) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    ids: list = []
    load_file(path, diags, [], ids)
    check_ids(ids, diags)
    return [d for d in diags if d.severity is Severity.ERROR]


def _documents() -> list[tuple[str, object]]:
    """Every YAML document the loader accepts: the bank, the test cases, the docs' examples."""
    files = sorted(ROOT.glob("source/*.yaml"))
    # every test case the loader accepts (tests/cases/bad is the bad corpus, ci/broken is broken)
    for f in sorted(ROOT.glob("tests/cases/*/*.yaml")):
        if f.parent.name != "bad" and not _loader_rules(f):
            files.append(f)
    out = [(f.relative_to(ROOT).as_posix(), yaml.safe_load(f.read_text(encoding="utf-8-sig"))) for f in files]
    docs = (ROOT / "docs" / "source-format.md").read_text(encoding="utf-8")
    for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", docs, re.S)):
        if block.lstrip().startswith("- id:"):
            block = "id: example\ntitle: T\nlang: ur\nquestions:\n" + block
        block = block.replace("  - ...\n", "  - {id: q1, type: essay, stem: s, explanation: e}\n")
        out.append((f"docs/source-format.md#{i}", yaml.safe_load(block)))
    return out


DOCUMENTS = _documents()


def test_the_shipped_schema_is_the_generated_one_and_valid_draft_07() -> None:
    assert SHIPPED.read_text(encoding="utf-8") == schema_text(), "run: lmsexport schema > " + str(SHIPPED)
    jsonschema.Draft7Validator.check_schema(schema())
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0 and json.loads(result.stdout) == schema()


@pytest.mark.parametrize(("name", "document"), DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
def test_every_accepted_file_and_example_validates(name: str, document: object) -> None:
    errors = [e.message for e in VALIDATOR.iter_errors(document)]
    assert errors == [], name


def _bad_cases() -> list[Path]:
    cases = []
    for p in sorted((ROOT / "tests" / "bad" / "yaml").iterdir()):
        if p.suffix in (".yaml", ".yml"):
            cases.append(p)
    return cases


@pytest.mark.parametrize("case", _bad_cases(), ids=lambda p: p.name)
def test_shape_errors_of_the_bad_corpus_are_schema_errors_too(case: Path) -> None:
    errors = _loader_rules(case)
    assert errors, "a bad case the loader accepts"
    try:
        document = yaml.safe_load(case.read_bytes())
    except yaml.YAMLError:
        pytest.skip("not YAML a schema could look at (the loader refuses it before any shape check)")
    if not all(d.rule in SHAPE_RULES for d in errors):
        pytest.skip(
            "errors the schema cannot express: " + ", ".join(sorted({d.rule for d in errors} - SHAPE_RULES))
        )
    assert list(VALIDATOR.iter_errors(document)), (
        f"the schema accepts {case.name}, the loader says: {errors[0]}"
    )


def test_enough_of_the_corpus_is_shape_errors() -> None:
    """The check above must not pass by skipping everything."""
    shape = 0
    for case in _bad_cases():
        errors = _loader_rules(case)
        if errors and all(d.rule in SHAPE_RULES for d in errors):
            shape += 1
    assert shape >= 30


@pytest.mark.parametrize(
    ("question", "accepted"),
    [
        ({"type": "cloze", "blanks": [{"type": "numerical", "answer: ": 1}]}, False),
        (
            {
                "type": "cloze",
                "blanks": [{"type": "numerical", "answer": 0.2, "tolerance": 0.005, "weight": 2}],
            },
            True,
        ),
        ({"type": "cloze", "blanks": [{"type": "numerical", "tolerance": 1, "range": [0, 2]}]}, False),
        ({"type": "cloze", "blanks": [{"type": "short_answer", "answers": ["a"], "choices": []}]}, False),
        (
            {
                "type": "cloze",
                "blanks": [
                    {"type": "choice", "display": "inline", "choices": [{"text": "a"}, {"text": "b"}]}
                ],
            },
            False,
        ),
        ({"type": "cloze", "blanks": [{"answers": ["a"]}]}, False),
        ({"type": "cloze", "blanks": [{"type": "short_answer", "answers": ["a"], "weight": 0}]}, False),
        ({"type": "cloze", "blanks": []}, False),
        (
            {
                "type": "ordering",
                "items": ["a", "b", "c"],
                "select": {"type": "random", "count": 2},
                "numbering": "iii",
            },
            True,
        ),
        ({"type": "ordering", "items": ["a"]}, False),
        ({"type": "ordering", "items": ["a", "b"], "grading": "per_item"}, False),
        ({"type": "ordering", "items": ["a", "b"], "select": {"type": "all", "count": 2}}, False),
        ({"type": "description"}, True),
        ({"type": "description", "points": 1}, False),
        ({"type": "description", "hints": ["h"]}, False),
        ({"type": "description", "blanks": []}, False),
    ],
)
def test_the_new_kinds_shapes(question: dict, accepted: bool) -> None:
    """Issue 23's shapes: a blank's keys follow its `type`, an ordering's `select`, and a
    description takes no points, feedback, hints or penalty; the loader agrees on each."""
    import json as _json

    doc = {
        "id": "q",
        "title": "T",
        "lang": "en",
        "questions": [{"id": "a", "stem": "[[1]]", "explanation": "e", **question}],
    }
    assert (list(VALIDATOR.iter_errors(doc)) == []) is accepted, question
    from lmsexport.errors import SourceError
    from lmsexport.source import load_text

    text = _json.dumps(doc, ensure_ascii=False)  # JSON is YAML
    if accepted:
        load_text(text, "q.yaml")
    else:
        with pytest.raises(SourceError):
            load_text(text, "q.yaml")


_CALC = {"type": "calculated", "stem": "{N} {G}", "variables": {"N": {"min": 1, "max": 70}, "G": [8, 16]}}


@pytest.mark.parametrize(
    ("question", "accepted"),
    [
        ({**_CALC, "answer": "16*N/G"}, True),
        ({**_CALC, "answer": {"formula": "16*N/G", "tolerance": "1%", "decimals": 3}, "variants": 5}, True),
        ({**_CALC, "answer": {"formula": "16*N/G", "tolerance": 0.05}, "variants": [{"N": 7, "G": 8}]}, True),
        ({**_CALC, "answer": 42, "derived": {"t": "16*N", "u": {"formula": "t/G", "decimals": 1}}}, True),
        ({**_CALC, "answer": "N", "constraints": ["G <= 8*N"], "units": [{"unit": "GB"}]}, True),
        ({**_CALC, "answer": {"formula": "N", "tolerance": "about 1%"}}, False),
        ({**_CALC, "answer": {"formula": "N", "decimals": 12}}, False),
        ({**_CALC, "answer": {"tolerance": 0.1}}, False),
        ({**_CALC, "answer": "N", "variants": 0}, False),
        ({**_CALC, "answer": "N", "variants": [{"N": "seven"}]}, False),
        ({**_CALC, "answer": "N", "variables": {"N": {"min": 1, "max": 2, "values": [1]}}}, False),
        ({**_CALC, "answer": "N", "variables": {"N": 8}}, False),
        ({**_CALC, "answer": "N", "variables": {"2N": [1]}}, False),
        ({**_CALC, "answer": "N", "choices": []}, False),
        ({**_CALC}, False),
        (
            {
                **_CALC,
                "type": "calculated_choice",
                "multiple": True,
                "decimals": 1,
                "tolerance": "0.5%",
                "choices": [{"formula": "N", "correct": True}, {"formula": "N + 1", "feedback": "{G}"}],
            },
            True,
        ),
        ({**_CALC, "type": "calculated_choice", "choices": [{"formula": "N", "correct": True}]}, False),
        ({**_CALC, "type": "calculated_choice", "choices": [{"text": "a"}, {"text": "b"}]}, False),
        ({**_CALC, "type": "calculated_choice", "answer": "N", "choices": []}, False),
    ],
)
def test_the_parametric_shapes(question: dict, accepted: bool) -> None:
    """Issue 24's shapes: variables (a range or a list), derived values, constraints, variants
    (a count or a list), the answer (a formula, or {formula, tolerance, decimals}), choices as
    formulas; the loader agrees on each."""
    import json as _json

    doc = {"id": "q", "title": "T", "lang": "en", "questions": [{"id": "a", "explanation": "e", **question}]}
    assert (list(VALIDATOR.iter_errors(doc)) == []) is accepted, question
    from lmsexport.errors import SourceError
    from lmsexport.source import load_text

    text = _json.dumps(doc, ensure_ascii=False)  # JSON is YAML
    if accepted:
        load_text(text, "q.yaml")
    else:
        with pytest.raises(SourceError):
            load_text(text, "q.yaml")
