"""Render the diagnostics of a run for people and for pipelines (text, json, github, junit).

Pure functions: diagnostics in, text out. The JSON object is documented in docs/ci.md and
versioned by its "version" field.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import Diagnostic, Severity

REPORT_VERSION = 1


@dataclass(frozen=True)
class RunSummary:
    """What a run looked at, for the counts of a report."""

    files: int = 0
    quizzes: int = 0
    questions: int = 0
    strict: bool = False
    assessments: tuple[dict[str, Any], ...] = ()
    """Per assessment, what `check` says of it (assessments.summarize): its size and its pools."""


def failed(diags: Sequence[Diagnostic], strict: bool) -> bool:
    """Errors fail a run; warnings only under --strict."""
    return any(d.severity is Severity.ERROR or strict for d in diags)


def counts(diags: Sequence[Diagnostic]) -> tuple[int, int]:
    errors = sum(d.severity is Severity.ERROR for d in diags)
    return errors, len(diags) - errors


def to_text(diags: Sequence[Diagnostic]) -> str:
    return "".join(d.format() + "\n" for d in sorted(diags, key=Diagnostic.sort_key))


def to_json(diags: Sequence[Diagnostic], summary: RunSummary) -> str:
    errors, warnings = counts(diags)
    obj = {
        "version": REPORT_VERSION,
        "tool": "lmsexport",
        "ok": not failed(diags, summary.strict),
        "strict": summary.strict,
        "counts": {
            "errors": errors,
            "warnings": warnings,
            "files": summary.files,
            "quizzes": summary.quizzes,
            "assessments": len(summary.assessments),
            "questions": summary.questions,
        },
        "assessments": list(summary.assessments),
        "problems": [
            {
                "file": d.loc.path,
                "line": d.loc.line or None,
                "column": d.loc.col or None,
                "severity": d.severity.value,
                "rule": d.rule,
                "message": d.message,
                "hint": d.hint,
            }
            for d in sorted(diags, key=Diagnostic.sort_key)
        ],
    }
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(diags: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands: each problem annotates its file and line in the diff."""
    lines = []
    for d in sorted(diags, key=Diagnostic.sort_key):
        kind = "error" if d.severity is Severity.ERROR else "warning"
        props = [f"file={_gh_prop(d.loc.path)}"]
        if d.loc.line:
            props.append(f"line={d.loc.line}")
        if d.loc.col:
            props.append(f"col={d.loc.col}")
        props.append(f"title={_gh_prop(d.rule)}")
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        lines.append(f"::{kind} {','.join(props)}::{_gh_data(message)}")
    return "".join(line + "\n" for line in lines)


def to_junit(diags: Sequence[Diagnostic], summary: RunSummary, checked_files: Sequence[str] = ()) -> str:
    """JUnit XML (GitLab, Jenkins): one test case per checked file, a failure per problem."""
    from lxml import etree

    by_file: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in diags:
        by_file[d.loc.path].append(d)
    names = sorted(set(checked_files) | by_file.keys())
    failing = [n for n in names if failed(by_file.get(n, []), summary.strict)]
    suites = etree.Element("testsuites", name="lmsexport check")
    suite = etree.SubElement(
        suites,
        "testsuite",
        name="lmsexport check",
        tests=str(len(names)),
        failures=str(len(failing)),
        errors="0",
        skipped="0",
    )
    for name in names:
        case = etree.SubElement(suite, "testcase", classname="lmsexport.check", name=name)
        problems = sorted(by_file.get(name, []), key=Diagnostic.sort_key)
        hard = [d for d in problems if d.severity is Severity.ERROR or summary.strict]
        if hard:
            failure = etree.SubElement(
                case,
                "failure",
                type=hard[0].rule,
                message=f"{len(hard)} problem(s); first: {hard[0].message}",
            )
            failure.text = to_text(hard)
        soft = [d for d in problems if d not in hard]
        if soft:
            etree.SubElement(case, "system-out").text = to_text(soft)
    return etree.tostring(suites, xml_declaration=True, encoding="UTF-8", pretty_print=True).decode("utf-8")
