"""Render the diagnostics of a run for people and for pipelines (text, json, github, junit).

Pure functions: diagnostics in, text out. The JSON object is documented in docs/ci.md and
versioned by its "version" field.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
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
    command: str = "check"
    """The command that ran (names the JUnit suite and test cases)."""
    skipped: tuple[tuple[str, int], ...] = ()
    """import: how many questions of each kind lmsexport lacks were left out."""
    ok: bool | None = None
    """The run's verdict when the command decides it otherwise than by severity (lint: every
    finding fails, unless --exit-zero); None: errors fail, and warnings under strict."""


def fails(d: Diagnostic, strict: bool) -> bool:
    """Errors fail a run; warnings only under --strict; notes never."""
    return d.severity is Severity.ERROR or (strict and d.severity is Severity.WARNING)


def failed(diags: Sequence[Diagnostic], strict: bool) -> bool:
    return any(fails(d, strict) for d in diags)


def counts(diags: Sequence[Diagnostic]) -> tuple[int, int, int]:
    """Errors, warnings and notes."""
    by = Counter(d.severity for d in diags)
    return by[Severity.ERROR], by[Severity.WARNING], by[Severity.NOTE]


def summary_line(diags: Sequence[Diagnostic]) -> str:
    """ "2 errors, 1 warning, 3 notes" (empty parts left out)."""
    parts = []
    for n, word in zip(counts(diags), ("error", "warning", "note"), strict=True):
        if n:
            parts.append(f"{n} {word}{'s' if n != 1 else ''}")
    return ", ".join(parts)


@dataclass(frozen=True)
class Printed:
    """Diagnostics as printed: every one formatted a line (or two, with its hint), in order of
    place (Diagnostic.sort_key), as UTF-8 (characters it cannot encode backslash-escaped);
    so one block of lines a path, in order of path."""

    chunks: tuple[bytes | memoryview, ...]
    """The text in the pieces it was made of (a block a path, some of them views of the text
    printed before), never joined: at 100,000 questions of the real-shaped bank 74 MB, which
    are written to standard error, compared with the recorded text and written beside the
    parts files piece by piece."""
    blocks: dict[str, tuple[int, int]]
    """path -> (where its block starts in ``text``, its length in bytes)."""

    @property
    def text(self) -> bytes:
        """The text, joined."""
        return b"".join(self.chunks)

    @property
    def size(self) -> int:
        return sum(len(chunk) for chunk in self.chunks)

    def is_text(self, data: bytes) -> bool:
        """Whether the text is ``data``, compared piece by piece (not joined)."""
        if self.size != len(data):
            return False
        at = 0
        for chunk in self.chunks:
            if not data.startswith(chunk, at):
                return False
            at += len(chunk)
        return True


def printed(diags: Sequence[Diagnostic], kept: Iterable[tuple[str, bytes | memoryview]] = ()) -> Printed:
    """``diags`` as printed, with blocks ``kept`` (path, its lines as printed before: of paths
    none of ``diags`` is at) in their place among them: what printing the diagnostics the
    kept blocks were printed of with ``diags`` gives (a block of lines a path, in order of
    path, each block its diagnostics in order). Blocks are joined 1,000 diagnostics at a time:
    450,000 lines are ~60 MB, and not held as 450,000 strings besides."""
    keys = [d.sort_key() for d in diags]
    order = sorted(range(len(diags)), key=keys.__getitem__)
    blocks: list[tuple[str, bytes | memoryview]] = []
    for path, group in groupby(order, key=lambda i: keys[i][0]):
        at = list(group)
        lines = [
            "".join([f"{diags[i].format()}\n" for i in at[j : j + 1000]]) for j in range(0, len(at), 1000)
        ]
        blocks.append((path, "".join(lines).encode("utf-8", "backslashreplace")))
    blocks += kept
    # (sorted by path alone, a stable sort: a path both among diags and kept, which the caller
    # rules out, keeps its new lines first)
    blocks.sort(key=lambda block: block[0])
    where: dict[str, tuple[int, int]] = {}
    at_byte = 0
    for path, data in blocks:
        if path not in where:
            where[path] = (at_byte, len(data))
        else:  # (the lines of one path in two blocks: not a block of its own)
            where.pop(path)
        at_byte += len(data)
    return Printed(tuple(data for _, data in blocks), where)


def to_text(diags: Sequence[Diagnostic]) -> str:
    return "".join(d.format() + "\n" for d in sorted(diags, key=Diagnostic.sort_key))


def to_json(diags: Sequence[Diagnostic], summary: RunSummary) -> str:
    errors, warnings, notes = counts(diags)
    obj = {
        "version": REPORT_VERSION,
        "tool": "lmsexport",
        "ok": summary.ok if summary.ok is not None else not failed(diags, summary.strict),
        "strict": summary.strict,
        "counts": {
            "errors": errors,
            "warnings": warnings,
            "notes": notes,
            "files": summary.files,
            "quizzes": summary.quizzes,
            "assessments": len(summary.assessments),
            "questions": summary.questions,
        },
        "assessments": list(summary.assessments),
        **({"skipped": dict(summary.skipped)} if summary.command == "import" else {}),
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
        # GitHub's three annotation levels match ours one to one.
        kind = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}[d.severity]
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
    """JUnit XML (GitLab, Jenkins): one test case per checked file or package, a failure per problem."""
    from lxml import etree

    by_file: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in diags:
        # A package member (pkg.zip!items/q1.xml) belongs to its package's test case.
        by_file[d.loc.path.split("!", 1)[0]].append(d)
    names = sorted(set(checked_files) | by_file.keys())
    failing = [n for n in names if failed(by_file.get(n, []), summary.strict)]
    suites = etree.Element("testsuites", name=f"lmsexport {summary.command}")
    suite = etree.SubElement(
        suites,
        "testsuite",
        name=f"lmsexport {summary.command}",
        tests=str(len(names)),
        failures=str(len(failing)),
        errors="0",
        skipped="0",
    )
    for name in names:
        case = etree.SubElement(suite, "testcase", classname=f"lmsexport.{summary.command}", name=name)
        problems = sorted(by_file.get(name, []), key=Diagnostic.sort_key)
        hard = [d for d in problems if fails(d, summary.strict)]
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


# --------------------------------------------------------------------------- SARIF 2.1.0

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


@dataclass(frozen=True)
class RuleInfo:
    """What SARIF says of a rule (a reportingDescriptor)."""

    id: str
    name: str
    summary: str
    """shortDescription: one sentence."""
    description: str
    """fullDescription: why it matters."""
    severity: Severity = Severity.WARNING
    help_uri: str | None = None
    """Absolute URL of the rule's documentation; None leaves helpUri out."""
    help_markdown: str | None = None
    tags: tuple[str, ...] = ()


def _sarif_uri(path: str) -> str:
    from urllib.parse import quote

    return quote(path.replace("\\", "/"), safe="/!$&'()*+,;=:@-._~")


def to_sarif(
    diags: Sequence[Diagnostic],
    rules: Sequence[RuleInfo],
    version: str,
    information_uri: str | None = None,
) -> str:
    """A SARIF 2.1.0 log of one run (GitHub code scanning reads it: `upload-sarif`).

    Every result names its rule by id and index; rules that diagnostics use but ``rules`` does
    not describe (the loader's source.* errors) are described from the diagnostic itself. Paths
    are relative URIs against %SRCROOT% (the repository root when run from it); columns count
    Unicode code points, as every message of lmsexport does.
    """
    import hashlib

    described = {r.id: r for r in rules}
    ordered = list(rules)
    for d in sorted(diags, key=Diagnostic.sort_key):
        if d.rule not in described:
            extra = RuleInfo(d.rule, d.rule, d.rule, d.rule, d.severity)
            described[d.rule] = extra
            ordered.append(extra)
    index = {r.id: i for i, r in enumerate(ordered)}
    descriptors = []
    for r in ordered:
        desc: dict[str, Any] = {
            "id": r.id,
            "name": r.name,
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.description},
            "defaultConfiguration": {"level": _SARIF_LEVEL[r.severity]},
        }
        if r.help_uri:
            desc["helpUri"] = r.help_uri
        if r.help_markdown:
            desc["help"] = {"text": r.description, "markdown": r.help_markdown}
        if r.tags:
            desc["properties"] = {"tags": list(r.tags)}
        descriptors.append(desc)
    results = []
    for d in sorted(diags, key=Diagnostic.sort_key):
        physical: dict[str, Any] = {
            "artifactLocation": {"uri": _sarif_uri(d.loc.path), "uriBaseId": "%SRCROOT%"}
        }
        if d.loc.line > 0:
            region: dict[str, Any] = {"startLine": d.loc.line}
            if d.loc.col > 0:
                region["startColumn"] = d.loc.col
            physical["region"] = region
        text = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        fingerprint = hashlib.sha256(f"{d.rule}\0{d.loc.path}\0{d.message}".encode()).hexdigest()[:32]
        results.append(
            {
                "ruleId": d.rule,
                "ruleIndex": index[d.rule],
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": text},
                "locations": [{"physicalLocation": physical}],
                "partialFingerprints": {"lmsexport/v1": fingerprint},
            }
        )
    driver: dict[str, Any] = {"name": "lmsexport", "version": version, "semanticVersion": version}
    if information_uri:
        driver["informationUri"] = information_uri
    driver["rules"] = descriptors
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "invocations": [{"executionSuccessful": True}],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, ensure_ascii=False, indent=2) + "\n"
