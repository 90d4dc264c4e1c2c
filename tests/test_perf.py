"""The performance work keeps every output byte: fast paths against their reference definitions,
the parallel build against the serial one, and the rebuild cache against changes it must see.

No timings are asserted here (the machine is shared and noisy); benchmarks/bench.py measures.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from lxml import etree
from typer.testing import CliRunner

from lmsexport import build as build_mod
from lmsexport import cache as cache_mod
from lmsexport import moodle, validate
from lmsexport.cli import app
from lmsexport.errors import SourceError
from lmsexport.model import MultipleChoice, Numerical, Question, Quiz, SingleChoice, Text, direction
from lmsexport.package import serialize
from lmsexport.readers import gift as gift_reader
from lmsexport.source import discover, load_paths
from lmsexport.writers import WRITERS, gift, qti21
from lmsexport.writers import qti21_package as package

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import synth  # noqa: E402
from strategies import quizzes  # noqa: E402


def reference_escape_text(text: str, lang: str | None = None) -> str:
    """gift.escape_text as first written, one character at a time: the definition."""

    def html_space(i: int) -> str:
        before = text[i - 1] if i > 0 else "\n"
        after = text[i + 1] if i + 1 < len(text) else "\n"
        return "&nbsp;" if before in " \n" or after in " \n" else " "

    out: list[str] = []
    if lang is not None:
        out.append(f'<span lang="{html.escape(lang)}" dir="{direction(lang)}">')
    for i, ch in enumerate(text):
        if ch == " ":
            out.append(html_space(i))
        elif ch == "\n":
            out.append("<br>")
        elif ch in "\t\r" or i == 0 and ch in "[%":
            out.append(f"&#{ord(ch)};")
        else:
            out.append(html.escape(ch, quote=False))
    if lang is not None:
        out.append("</span>")
    specials = {"\\": "\\\\", "~": "\\~", "=": "\\=", "#": "\\#", "{": "\\{", "}": "\\}", ":": "\\:"}
    return "".join(specials.get(c, "\\n" if c == "\n" else c) for c in "".join(out))


TRICKY = st.text(alphabet=st.sampled_from(list(" \n\t\r[%&<>;a\u0627\u06d4:{}~=#\\")), max_size=16)


@given(TRICKY | st.text(max_size=40), st.sampled_from([None, "ur", "en"]))
def test_escape_text_matches_its_definition(text: str, lang: str | None) -> None:
    assert gift.escape_text(text, lang) == reference_escape_text(text, lang)


@given(TRICKY | st.text(max_size=40))
def test_escape_plain_matches_its_definition(text: str) -> None:
    specials = {"\\": "\\\\", "~": "\\~", "=": "\\=", "#": "\\#", "{": "\\{", "}": "\\}", ":": "\\:"}
    assert gift.escape_plain(text) == "".join(specials.get(c, "\\n" if c == "\n" else c) for c in text)


# ---------------------------------------------------------------------------- parallel build

FORMATS = tuple(WRITERS)  # cc13 included: the bank-wide cartridge is built once, at the end


def _other_texts(question: Question) -> Question:
    """The same shape (line counts, presence, languages, tag count) with every text, tag, the id
    and a numerical question's numbers changed."""

    def other(text: str) -> str:
        return "\n".join(f"<&{line[::-1]}\u200f]]>" for line in text.split("\n"))

    def moved(x: float | None) -> float | None:
        return None if x is None else x * 3.0 + 0.5  # keeps low <= answer <= high

    body = question.body
    if isinstance(body, SingleChoice | MultipleChoice):
        body = replace(
            body,
            choices=tuple(
                replace(c, text=other(c.text), feedback=other(c.feedback) if c.feedback else c.feedback)
                for c in body.choices
            ),
        )
    elif isinstance(body, Numerical):  # other numbers (a plain one's are skeleton slots too)
        body = replace(
            body,
            keys=tuple(
                replace(
                    k, answer=moved(k.answer), low=moved(k.low), high=moved(k.high), tolerance=2 * k.tolerance
                )
                for k in body.keys
            ),
        )

    def other_or_none(text: Text | None) -> Text | None:
        return other(text) if isinstance(text, str) else text

    fb = question.feedback
    return replace(
        question,
        feedback=replace(
            fb,
            correct=other_or_none(fb.correct),
            partial=other_or_none(fb.partial),
            incorrect=other_or_none(fb.incorrect),
        ),
        hints=tuple(replace(h, text=other_or_none(h.text)) for h in question.hints),
        id=question.id + "-b",
        tags=tuple(t + "b" for t in question.tags),
        stem=other(question.stem),
        explanation=other(question.explanation) if question.explanation else question.explanation,
        body=body,
    )


@settings(max_examples=150, deadline=None)
@given(quizzes())
def test_items_from_skeletons_are_the_built_items(quiz: Quiz) -> None:
    """item_tree's skeleton fast path gives build_item_tree's bytes, for a skeleton made from the
    question itself and for one made from another question of the same shape."""
    for q in quiz.questions:
        for source, target in ((q, q), (_other_texts(q), q), (q, _other_texts(q))):
            qti21._SKELETONS.clear()
            qti21.item_tree(quiz, source)  # caches the shape's skeleton, made from `source`
            fast = qti21.item_tree(quiz, target)
            slow = qti21.build_item_tree(quiz, target)
            assert serialize(fast) == serialize(slow)
            assert fast.sourceline is None  # built, never parsed, as validation messages expect
    qti21._SKELETONS.clear()


@settings(max_examples=100, deadline=None)
@given(quizzes())
def test_manifests_from_resource_skeletons_are_the_built_ones(quiz: Quiz) -> None:
    """The manifest's per-item resources copied from cached ones give the built bytes, whichever
    question of the shape the cached resource was made from."""
    package._RESOURCE_SKELETONS.clear()
    package.manifest_tree(replace(quiz, questions=tuple(map(_other_texts, quiz.questions))))
    fast = serialize(package.manifest_tree(quiz))  # from the resources cached for the other texts
    package._RESOURCE_SKELETONS.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(package, "_item_resource", package.build_item_resource)
        slow = serialize(package.manifest_tree(quiz))
    assert fast == slow


@pytest.fixture(scope="module")
def synth_bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("synth")
    synth.write_bank(src, 700)  # several files of 50-500 questions
    shutil.copy(ROOT / "source" / "zero-sharded-optimizers.yaml", src)  # every question type
    return src


def test_only_a_cartridge_build_imports_the_cartridge_writer_before_its_pool(
    synth_bank: Path, tmp_path: Path
) -> None:
    """The process that forks a build's pool compiles what its formats validate with first;
    for QTI 1.2 alone that is the DTD, and the cartridge writer and lxml.isoschematron (~10 ms
    before the first worker starts) are left to the builds that make a cartridge."""
    code = (
        "import sys\nfrom lmsexport.cli import main\nrc = 0\ntry:\n    main()\nexcept SystemExit as e:\n"
        "    rc = e.code\nwanted = ('lmsexport.writers.cc13', 'lxml.isoschematron')\n"
        "print([m for m in wanted if m in sys.modules], rc)"
    )
    env = {**os.environ, "LMSEXPORT_JOBS": "2", "CI": "1"}
    for fmt, imported in (("qti12", []), ("cc11", ["lmsexport.writers.cc13", "lxml.isoschematron"])):
        out = tmp_path / fmt
        argv = [sys.executable, "-c", code, "build", str(synth_bank), "--out", str(out), "--format", fmt]
        result = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert result.stdout.strip().splitlines()[-1] == f"{imported} 0", result.stderr[-2000:]


def test_the_real_shaped_synthetic_bank_is_sound(tmp_path: Path) -> None:
    """benchmarks/synth.py's real-shaped bank (what bench.py measures beside the plain one):
    every fifth question is of one of the kinds this checkout supports, in turn (with hints);
    the same arguments give the same bytes; it loads without a problem and builds in every
    format (every document validated)."""
    from lmsexport.source import load_file

    kinds = synth.real_kinds()
    assert {"single-partial", "multiple-credits", "short-answer", "numerical-units"} <= set(kinds)
    paths = synth.write_bank(tmp_path / "a", 600, shape="real")
    again = synth.write_bank(tmp_path / "b", 600, shape="real")
    assert [p.read_bytes() for p in paths] == [p.read_bytes() for p in again]
    diags: list[object] = []
    warnings: list[object] = []
    quizzes = [load_file(p, diags, warnings, None) for p in paths]
    assert diags == [] and warnings == []
    questions = [q for z in quizzes if isinstance(z, Quiz) for q in z.questions]
    assert len(questions) == 600
    real = [q for q in questions if int(q.id[-4:]) % 5 == 4]
    assert real and all(q.hints or q.type.value in ("cloze", "calculated") for q in real)
    assert not any(q.hints for q in questions if int(q.id[-4:]) % 5 != 4)
    assert {q.type.value for q in real} == {"single", "multiple", "short_answer", "numerical"} | (
        {"cloze"} if "cloze" in kinds else set()
    ) | ({"calculated"} if "calculated" in kinds else set())
    assert "calculated" in kinds  # parametric questions exist: the real-shaped bank has them
    build_mod.build(load_paths(paths), FORMATS, 315532800)


def _collect(paths: list[Path], jobs: int) -> tuple[dict[str, bytes], build_mod.BuildResult]:
    files: dict[str, bytes] = {}

    def emit(rel: str, data: bytes) -> None:
        assert rel not in files
        files[rel] = data

    result = build_mod.build_files(paths, FORMATS, 315532800, emit, jobs=jobs)
    return files, result


@pytest.mark.parametrize("jobs", [1, 2])
def test_streamed_build_gives_the_bytes_of_build(synth_bank: Path, jobs: int) -> None:
    bank = load_paths([synth_bank])
    expected = build_mod.build(bank, FORMATS, 315532800)
    files, result = _collect(discover([synth_bank]), jobs)
    assert not result.errors
    assert files == expected.files
    assert sorted(result.warnings, key=lambda d: d.sort_key()) == sorted(
        expected.warnings, key=lambda d: d.sort_key()
    )
    assert (result.quizzes, result.questions) == (len(bank.quizzes), bank.question_count)
    # the pool's gc.freeze() is undone: nothing this process made stays out of the collector's reach
    assert gc.get_freeze_count() == 0


def test_nested_collector_blocks_unfreeze_only_at_the_outermost() -> None:
    """build.collector_spared: the pool's block inside the CLI's freezes what was made since
    and leaves the outer freeze in place; the outermost block's end undoes all of it."""
    assert gc.get_freeze_count() == 0
    with build_mod.collector_spared():
        outer = gc.get_freeze_count()
        assert outer > 0
        made_between = [[] for _ in range(100)]  # containers: objects the collector tracks
        with build_mod.collector_spared():
            assert gc.get_freeze_count() >= outer + len(made_between)
        assert gc.get_freeze_count() >= outer + len(made_between)  # not undone by the inner block
    assert gc.get_freeze_count() == 0


def test_the_pool_leaves_a_host_programs_own_freeze(synth_bank: Path) -> None:
    """After a host program's own freeze the pool freezes nothing (build.collector_spared): the
    host's freeze stays, and a garbage cycle it made afterwards is still collected."""
    import weakref

    class Node:
        pass

    gc.disable()  # (only the collect() below may find the cycle: not one before any freeze)
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        cycle = Node()
        cycle.me = cycle  # type: ignore[attr-defined]
        alive = weakref.ref(cycle)
        del cycle
        _, result = _collect(discover([synth_bank]), 2)
        assert not result.errors
        gc.collect()
        assert alive() is None
        assert gc.get_freeze_count() > 0  # (some frozen objects may be freed meanwhile)
    finally:
        gc.unfreeze()
        gc.enable()


_POOLED_RUN = """
import json, os, sys
from pathlib import Path
from lmsexport import build
from lmsexport.validate_qti12 import schematron
from lmsexport.writers import WRITERS

bank, report, command = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
formats = tuple(sys.argv[4].split(",")) if len(sys.argv) > 4 else tuple(WRITERS)
WATCHED = ("lmsexport", "langcodes", "yaml", "jinja2", "markupsafe")

def reporting(fn):
    def task(path, *args):
        before = set(sys.modules)
        result = fn(path, *args)
        new = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in WATCHED)
        (report / f"{os.getpid()}-{Path(path).stem}.json").write_text(json.dumps(new))
        return result
    task.__qualname__ = task.__name__ = f"task_{fn.__name__}"  # picklable: a name of __main__
    globals()[task.__name__] = task
    return task

# The real entry points, with their unit of work wrapped to report what each task imports.
build.build_file = reporting(build.build_file)
build.check_file = reporting(build.check_file)
paths = sorted(bank.glob("*.yaml"))
if command == "check":
    found = build.check_files(paths, 0, jobs=2).diagnostics
    assert not [d for d in found if d.severity.name == "ERROR"], found
else:
    result = build.build_files(paths, formats, 0, lambda rel, data: None, jobs=2)
    assert not result.errors, result.errors
(report / "schematron.json").write_text(json.dumps(schematron.cache_info().currsize))
"""


def _pooled_run(bank: Path, tmp_path: Path, command: str, *formats: str) -> tuple[dict[str, list[str]], int]:
    """build_files or check_files of ``bank`` in a pool of two, in a fresh process: what each
    task imported (by worker pid and file), and how many Schematron schemas the parent compiled."""
    script = tmp_path / "pool.py"
    script.write_text(_POOLED_RUN)
    report = tmp_path / "report"
    report.mkdir()
    argv = [sys.executable, str(script), str(bank), str(report), command]
    argv += [",".join(formats)] if formats else []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    compiled = json.loads((report / "schematron.json").read_text())
    reports = {p.stem: json.loads(p.read_text()) for p in report.glob("*.json") if p.stem != "schematron"}
    return reports, compiled


@pytest.mark.parametrize("command", ["build", "check"])
def test_pool_workers_import_nothing_on_their_first_file(
    synth_bank: Path, tmp_path: Path, command: str
) -> None:
    """build_files and check_files import before their pool forks what its tasks import (the
    loader, langcodes, every writer, the HTML template, check's readers): no task of a fresh
    process's pool, the first of each worker included, imports a module of lmsexport or of the
    libraries it loads with."""
    reports, _ = _pooled_run(synth_bank, tmp_path, command)
    assert len(reports) == len(list(synth_bank.glob("*.yaml")))
    found = {name: new for name, new in reports.items() if new}
    assert not found, found


@pytest.mark.parametrize(("formats", "expected"), [(("qti12",), 0), (("qti12", "cc11"), 3)])
def test_a_pool_compiles_the_cartridge_schemas_of_the_formats_built_only(
    synth_bank: Path, tmp_path: Path, formats: tuple[str, ...], expected: int
) -> None:
    """A pooled QTI 1.2 build compiles no cartridge's Schematron before it forks; with the 1.1
    cartridge, that version's three (manifest, QTI, LOM) and not 1.3's."""
    reports, compiled = _pooled_run(synth_bank, tmp_path, "build", *formats)
    assert reports
    assert compiled == expected


def test_a_file_may_be_an_assessment_when_a_line_starts_with_sections(tmp_path: Path) -> None:
    """_may_be_assessment: a line that starts with `sections:` (LF or CRLF, first line or not),
    not one where the word is indented or inside a text; an unreadable file is not one."""
    cases = {
        "sections:\n  - pick: 1\n": True,
        "id: a\r\nsections:\r\n": True,
        "id: a\nsections: []": True,
        "id: a\n  sections:\n": False,
        "stem: 'sections: no'\n": False,
        "id: a\nsection: x\n": False,
        "": False,
    }
    for i, (text, expected) in enumerate(cases.items()):
        path = tmp_path / f"{i}.yaml"
        path.write_bytes(text.encode())
        assert build_mod._may_be_assessment(path) is expected, text
    assert build_mod._may_be_assessment(tmp_path / "missing.yaml") is False


@given(
    st.lists(st.sampled_from(["sections:", "section", "s", ":", " ", "\n", "\r", "\r\n", "x"]), max_size=12)
)
@example(["\r", "sections:"])  # a lone CR ends no line for the regex (nor for the substring search)
def test_may_be_assessment_finds_what_the_multiline_regex_finds(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str]
) -> None:
    """The substring search of _may_be_assessment decides as rb"^sections:" in MULTILINE mode."""
    data = "".join(parts).encode()
    path = tmp_path_factory.mktemp("assessment") / "q.yaml"
    path.write_bytes(data)
    assert build_mod._may_be_assessment(path) is (re.search(rb"^sections:", data, re.MULTILINE) is not None)


def test_the_cli_collects_young_objects_less_often() -> None:
    """cli.main raises the first generation's threshold (cli.GC_THRESHOLD): measured, the default
    700 cost 4-5 % of a cold build's CPU. A subprocess, so that this one's collector is left alone."""
    code = (
        "import gc, sys; from unittest import mock; import lmsexport.cli as c; "
        "sys.argv = ['lmsexport', '--help']\n"
        "with mock.patch.object(c, 'app', lambda: print(gc.get_threshold()[0])): c.main()"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    from lmsexport.cli import GC_THRESHOLD

    assert out.stdout.strip() == str(GC_THRESHOLD) != "700"


@pytest.mark.parametrize("jobs", [1, 2])
def test_streamed_build_reports_every_source_error(synth_bank: Path, tmp_path: Path, jobs: int) -> None:
    src = tmp_path / "src"
    shutil.copytree(synth_bank, src)
    first = sorted(src.glob("synth-*.yaml"))[0]
    (src / "broken.yaml").write_text("id: broken\ntitle: x\nlang: ur\nquestions: 3\n", encoding="utf-8")
    shutil.copy(first, src / "copy.yaml")  # every id again: duplicates across files
    with pytest.raises(SourceError) as caught:
        load_paths([src])
    files, result = _collect(discover([src]), jobs)
    assert result.source_failed and "index.html" not in files
    assert result.errors == caught.value.diagnostics


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_duplicate_quiz_never_emits_a_path_twice(synth_bank: Path, tmp_path: Path, jobs: int) -> None:
    """Two files holding one quiz id (and nothing else wrong): each output path reaches emit
    once (_collect asserts it) and the build fails with the duplicate ids, as load_paths does."""
    src = tmp_path / "src"
    shutil.copytree(synth_bank, src)
    shutil.copy(sorted(src.glob("synth-*.yaml"))[0], src / "copy.yaml")
    with pytest.raises(SourceError) as caught:
        load_paths([src])
    files, result = _collect(discover([src]), jobs)
    assert result.source_failed and "index.html" not in files
    assert result.errors == caught.value.diagnostics


# ---------------------------------------------------------------------------- rebuild cache


def _build(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, ["build", *args], env=env, catch_exceptions=False)


def test_rebuild_cache_never_hides_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src, out = tmp_path / "src", tmp_path / "dist"
    shutil.copytree(ROOT / "source", src)
    quiz = sorted(src.glob("*.yaml"))[0]
    text = quiz.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^    explanation: .*\n", "", text, count=1)  # a warning to remember
    quiz.write_text(text, encoding="utf-8")
    first = _build(str(src), "--out", str(out))
    assert re.search(r" (\d+) files, \1 written, 0 unchanged", first.stdout), first.stdout
    again = _build(str(src), "--out", str(out))
    assert again.exit_code == 0 and "(cached)" in again.stdout
    assert "warning" in first.stderr and again.stderr == first.stderr  # printed again from the cache

    # A changed source file is rebuilt, the others not: written are exactly the files whose bytes
    # changed (its outputs, index.html, which shows its title, and what is made from the whole
    # bank: the cartridges, and the assessment, which draws from it).
    quiz.write_text(text.replace("title: ", "title: X", 1), encoding="utf-8")
    before = _tree(out)
    result = _build(str(src), "--out", str(out))
    after = _tree(out)
    changed = sorted(k for k in after if before.get(k) != after[k])
    assert {f"html/{quiz.stem}.html", f"gift/{quiz.stem}.gift.txt", "index.html"} <= set(changed)
    quizzes = sum(1 for p in src.glob("*.yaml") if not p.read_text(encoding="utf-8").count("\nsections:"))
    assert f", {len(changed)} written, {len(after) - len(changed)} unchanged " in result.stdout, changed
    assert f"({quizzes - 1} of {quizzes} quiz files unchanged, not rebuilt)" in result.stdout
    assert "(cached)" in _build(str(src), "--out", str(out)).stdout

    # Other formats, another SOURCE_DATE_EPOCH, a new lmsexport: never answered from the cache.
    assert "(cached)" not in _build(str(src), "--out", str(out), "--format", "gift").stdout
    assert "(cached)" not in _build(str(src), "--out", str(out)).stdout  # the gift-only key replaced it
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    assert "(cached)" not in _build(str(src), "--out", str(out), env=env).stdout
    _build(str(src), "--out", str(out))
    monkeypatch.setattr(cache_mod, "tool_fingerprint", lambda: "another lmsexport")
    assert "(cached)" not in _build(str(src), "--out", str(out)).stdout
    monkeypatch.undo()

    # Outputs edited, deleted or added by hand are put right by a real build.
    _build(str(src), "--out", str(out))
    gift_file = sorted((out / "gift").iterdir())[0]
    good = gift_file.read_bytes()
    gift_file.write_bytes(b"edited")
    assert "1 written" in _build(str(src), "--out", str(out)).stdout
    assert gift_file.read_bytes() == good
    gift_file.unlink()
    assert "1 written" in _build(str(src), "--out", str(out)).stdout
    (out / "qti21" / "extra.zip").write_bytes(b"PK")
    assert "1 removed" in _build(str(src), "--out", str(out)).stdout
    assert _build("--check", str(src), "--out", str(out)).exit_code == 0


def test_no_progress_bar_when_not_a_terminal(synth_bank: Path, tmp_path: Path) -> None:
    result = _build(str(synth_bank), "--out", str(tmp_path / "dist"))
    assert result.exit_code == 0
    assert "building" not in result.stderr and "\x1b[" not in result.stderr


# --------------------------------------------------------------------------- MathML stand-in

MATHML = "http://www.w3.org/1998/Math/MathML"


def _messages(schema: etree.XMLSchema, tree: etree._Element) -> tuple[bool, list[str]]:
    ok = schema.validate(tree)
    return ok, [e.message for e in schema.error_log]


def _mutations(item: etree._Element) -> list[etree._Element]:
    """The item and broken copies of it: the kinds of mistake a writer bug would make."""
    q = f"{{{qti21.QTI_NS}}}"
    out = [item]
    for mutate in (
        lambda t: t.find(f".//{q}p").set("dir", "rtl"),
        lambda t: t.attrib.pop("identifier"),
        lambda t: t.set("adaptive", "maybe"),
        lambda t: t.find(f"{q}itemBody").insert(0, etree.Element(f"{q}bogus")),
        lambda t: t.find(f"{q}itemBody").append(etree.Element("{urn:other}thing")),
        lambda t: t.find(f".//{q}p").set("{urn:other}attr", "x"),
        lambda t: t.append(etree.Element(f"{q}responseDeclaration", identifier="LATE")),
        lambda t: t.insert(0, t.find(f"{q}itemBody")),  # out of the schema's order
    ):
        broken = copy.deepcopy(item)
        mutate(broken)
        out.append(broken)
    return out


def test_the_mathml_stand_in_gives_the_full_schemas_verdicts(types_quiz: Quiz) -> None:
    """Documents without MathML or XLink: the same verdict and messages from the QTI schema
    compiled with the stand-in MathML as from the full one (validate.py explains why)."""
    full = validate.schema_for("item")
    fast = validate.compiled_schema_without_mathml(validate.SCHEMA_FILES["item"])
    assert fast is not full
    trees = [t for q in types_quiz.questions for t in _mutations(qti21.item_tree(types_quiz, q))]
    trees.append(qti21.test_tree(types_quiz))
    verdicts = [_messages(full, t) for t in trees]
    assert [_messages(fast, t) for t in trees] == verdicts
    assert sum(ok for ok, _ in verdicts) == len(types_quiz.questions) + 1  # only the unbroken ones
    for t in trees:
        assert validate.schema_for_tree("item", t) is fast


@pytest.mark.parametrize(
    ("math", "valid"),
    [
        (f'<m:math xmlns:m="{MATHML}"><m:mi>x</m:mi></m:math>', True),
        (f'<m:math xmlns:m="{MATHML}"><m:bogus/></m:math>', False),  # the stand-in would accept it
        (f'<m:math xmlns:m="{MATHML}" nonsense="1"><m:mi>x</m:mi></m:math>', False),
    ],
)
def test_a_document_with_mathml_is_validated_with_the_full_schema(
    types_quiz: Quiz, math: str, valid: bool
) -> None:
    item = qti21.item_tree(types_quiz, types_quiz.questions[0])
    item.find(f".//{{{qti21.QTI_NS}}}p").append(etree.fromstring(math))
    assert validate.schema_for_tree("item", item) is validate.schema_for("item")
    assert (validate.validate_tree(item, "item", "x.xml") == []) is valid


def test_an_xlink_attribute_is_validated_with_the_full_schema(types_quiz: Quiz) -> None:
    item = qti21.item_tree(types_quiz, types_quiz.questions[0])
    item.find(f".//{{{qti21.QTI_NS}}}p").set("{http://www.w3.org/1999/xlink}href", "x")
    assert validate.schema_for_tree("item", item) is validate.schema_for("item")


def _children(pid: int) -> set[int]:
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:  # the field after the state is the parent's pid
            out.add(int(stat.parent.name))
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_pool_workers_die_with_a_killed_build(tmp_path: Path) -> None:
    """SIGKILL a parallel build: its forked workers must not live on, waiting for work."""
    src = tmp_path / "src"
    synth.write_bank(src, 3000)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from lmsexport.cli import main; main()", "build", str(src), "--out",
         str(tmp_path / "out")],
        cwd=ROOT, env={**os.environ, "LMSEXPORT_JOBS": "2", "CI": "1"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 20
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            workers = _children(proc.pid)
            time.sleep(0.02)
        assert len(workers) >= 2, "the build finished or never forked its pool"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(Path(f"/proc/{w}").exists() for w in workers):
            time.sleep(0.05)
        alive = [
            w
            for w in workers
            if Path(f"/proc/{w}/stat").exists()
            and Path(f"/proc/{w}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        ]
        assert not alive, f"workers {alive} outlived the killed build"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for w in workers:  # ours: do not leave them behind when the assertion fails
            with contextlib.suppress(ProcessLookupError):
                os.kill(w, signal.SIGKILL)


# ---------------------------------------------------------------------------- GIFT reader positions


class _PerChar:
    """The GIFT reader's texts as first written: a position stored for every character. The
    reference definition the reader's lazily computed positions are checked against."""

    def __init__(self, s: str, pos: list[tuple[int, int]]) -> None:
        assert len(s) == len(pos)
        self.s, self.pos = s, pos

    @classmethod
    def join(cls, lines: list[tuple[int, str]]) -> _PerChar:
        chars: list[str] = []
        pos: list[tuple[int, int]] = []
        for k, (lineno, raw) in enumerate(lines):
            stripped = raw.strip(gift_reader._PHP_TRIM)
            col = len(raw) - len(raw.lstrip(gift_reader._PHP_TRIM)) + 1
            if stripped.startswith("//"):
                stripped = " "
            if k:
                chars.append("\n")
                pos.append(pos[-1])
            chars.extend(stripped)
            pos.extend((lineno, col + i) for i in range(len(stripped)))
        return cls("".join(chars), pos).strip()

    def __getitem__(self, key: slice) -> _PerChar:
        return _PerChar(self.s[key], self.pos[key])

    def strip(self) -> _PerChar:
        start = len(self.s) - len(self.s.lstrip(gift_reader._PHP_TRIM))
        end = len(self.s.rstrip(gift_reader._PHP_TRIM))
        return self[start:end] if start < end else self[start:start]

    def unescape(self) -> _PerChar:
        chars: list[str] = []
        pos: list[tuple[int, int]] = []
        i = 0
        for m in gift_reader._TOKEN.finditer(self.s):
            chars.extend(self.s[i : m.start()])
            pos.extend(self.pos[i : m.start()])
            out = gift_reader._UNESCAPED[m.group(0)]
            chars.extend(out)
            pos.extend([self.pos[m.start()]] * len(out))
            i = m.end()
        chars.extend(self.s[i:])
        pos.extend(self.pos[i:])
        return _PerChar("".join(chars), pos)

    def without(self, start: int, end: int, instead: str) -> _PerChar:
        return _PerChar(
            self.s[:start] + instead + self.s[end:],
            self.pos[:start] + [self.pos[start]] * len(instead) + self.pos[end:],
        )


def _same_positions(fast: gift_reader._Text, ref: _PerChar) -> None:
    assert fast.s == ref.s
    assert [fast.at(i) for i in range(len(fast.s))] == ref.pos


_GIFT_LINE = st.text(st.sampled_from(list(" \t\\:#={}~n&092;/x\u0627")), max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(_GIFT_LINE, min_size=1, max_size=6), st.data())
def test_gift_reader_positions_are_the_per_character_ones(lines: list[str], data: st.DataObject) -> None:
    """Joining, trimming, slicing, unescaping and splicing a text give every character the
    position the reader's first, per-character definition gave it."""
    blocks = list(gift_reader._blocks(lines))
    assume(blocks)
    block = blocks[-1]
    fast, _ = gift_reader._Block("t", block, [])._join()
    ref = _PerChar.join(block)
    _same_positions(fast, ref)
    fast, ref = gift_reader._unescape_gift(fast), ref.unescape()
    _same_positions(fast, ref)
    for _ in range(3):
        n = len(ref.s)
        if n == 0:
            break
        start = data.draw(st.integers(0, n - 1))
        end = data.draw(st.integers(start, n))
        op = data.draw(st.sampled_from(["slice", "strip", "without", "unescape"]))
        if op == "slice":
            fast, ref = fast[start:end], ref[start:end]
        elif op == "strip":
            fast, ref = fast.strip(), ref.strip()
        elif op == "without":
            instead = data.draw(st.sampled_from(["", "_____", "~="]))
            fast, ref = fast.without(start, end, instead), ref.without(start, end, instead)
        else:
            fast, ref = gift_reader._unescape_gift(fast), ref.unescape()
        _same_positions(fast, ref)


def _split_lang_by_regex(html_text: str) -> tuple[str | None, str]:
    """moodle.split_lang as first written, with its regex: the definition."""
    m = moodle._LANG_SPAN.match(html_text.strip())
    if m is None or "<span" in m.group(2) or "</span" in m.group(2):
        return None, html_text
    return m.group(1), m.group(2)


_WRAPPED = st.tuples(
    st.sampled_from(["", " ", "\n", "\u2028"]),
    st.sampled_from(['<span lang="', "<span lang=", '<span  lang="', "", '<SPAN lang="']),
    st.sampled_from(["ur", "en-GB", "-", "x" * 35, "x" * 36, "", "u r", 'u"r', "\u00fc", "ur\n"]),
    st.sampled_from(['" dir="rtl">', '" dir="ltr">', '" dir="auto">', '" dir="rtl"', '"dir="rtl">', "", ">"]),
    st.lists(st.sampled_from(["a", "<span", "</span>", "<b>", '"', " ", "\u0627", "</span"]), max_size=4).map(
        "".join
    ),
    st.sampled_from(["</span>", "</span", "", "</span>x", "</span></span>"]),
    st.sampled_from(["", " ", "\t"]),
).map("".join)


@settings(max_examples=1000, deadline=None)
@given(_WRAPPED)
def test_split_lang_matches_its_regex(text: str) -> None:
    assert moodle.split_lang(text) == _split_lang_by_regex(text)


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(list(" \t\n\r\x0c\x0b\xa0\u200f\u2028a<br>&;nbsp")), max_size=20))
def test_html_to_plain_matches_its_definition(text: str) -> None:
    expected = html.unescape(
        moodle._BR.sub("\n", moodle._HTML_SPACE.sub(" ", text).strip(" ").replace("&nbsp;", " "))
    )
    assert moodle.html_to_plain(text) == expected


_GIFT_PIECES = st.sampled_from(
    ["\\:", "\\#", "\\=", "\\{", "\\}", "\\~", "\\n", "\\\\", "\\", "\\a", "&&092;", "&&058;", "&&010", "&&",
     "{", "}", "~", "=", "#", "####", "::", "->", "%50%", "%-100%", "[html]", "[markdown]", "$CATEGORY: ",
     "// [id:q1]", "\n", "\n\n", "\n0\n", " ", "\t", "T", "a", "\u0627", "1..2", "#3:1", "<br>", "&nbsp;",
     "\ud800", "\udc3a", "\x01", "\x10", "\x13", "\x01\x13", "\u2026"]
)  # fmt: skip


def _gift_result(text: str, quick: bool) -> object:
    from lmsexport.errors import GiftSyntaxError

    try:
        got = gift_reader.read_gift(text, "t.gift", quick=quick)
    except GiftSyntaxError as e:
        return ("error", e.diagnostics)
    return (got.items, got.warnings)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_GIFT_PIECES, max_size=25).map("".join))
@example("$CATEGORY: a&&092;b\\\\c\\:d\\n&&058;\n\n::n\\:&&092;::x {=a\\\\\\= ~b}")
@example("::q:: T\\{ \\\\{=x\\#y->z =p->q\\~}\n\n\udb80\\:{T}")
@example("::q:: T\\{ \\\\{=x\\#y->z =p->q\\~}\n\n\x01\\:{T}")  # the stand-ins' first character
@example('::q::[html]<span lang\\="en" dir\\="ltr">a\\n</span>{=\\n b\\=#\\n~c\x13}')
@example("&&092;T{}")  # an escaped backslash starts a TeX command (found by this test)
@example("a\\\\T{}")
def test_gift_escapes_read_the_quick_way_are_read_as_moodle_reads_them(text: str) -> None:
    """Escapes as same-length stand-ins (the quick way) give the items, texts, categories,
    positions and messages of Moodle's own placeholders (the general way)."""
    # Items, GiftTexts and diagnostics all compare their locations too.
    assert _gift_result(text, True) == _gift_result(text, False)


@pytest.mark.parametrize(
    "lines",
    [
        ["// c", "a", "b"],  # lmsexport's blocks: the ID comment first
        ["a", "// c", "b"],  # a comment between two lines: a one-space line of the joined text
        ["a", "b", "// c"],
        ["// c", "  // d", "a\t", "// e", " b", "// f", "// g"],
        ["// c", "// d"],  # comments only: an empty text
        ["a \x0b", "\tb"],
    ],
)
def test_gift_block_joined_has_the_per_character_positions(lines: list[str]) -> None:
    """_Block._join() trims the joined text by joining the lines between the first and the last
    that are no comment: every character keeps the position the per-character definition gives."""
    block = list(enumerate(lines, 1))
    fast, comments = gift_reader._Block("t", block, [])._join()
    _same_positions(fast, _PerChar.join(block))
    assert comments == [
        x.strip(gift_reader._PHP_TRIM) for x in lines if x.strip(gift_reader._PHP_TRIM).startswith("//")
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(["\n", "\r", "a", "\u0627", " "]), max_size=60), st.integers(1, 8))
def test_gift_lines_split_a_chunk_at_a_time_are_the_lines(text: str, chunk: int) -> None:
    """_split_lines() splits the text a chunk at a time (at a separator, or past a longer line):
    the lines str.split gives, with readdata()'s choice of separator and the BOM off."""
    old, gift_reader._LINES_CHUNK = gift_reader._LINES_CHUNK, chunk
    try:
        got = list(gift_reader._split_lines("\ufeff" + text))
    finally:
        gift_reader._LINES_CHUNK = old
    assert got == text.split("\r" if "\n" not in text and "\r" in text else "\n")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.sampled_from(list(" \t\r\x00\x0b0a\u0627")), max_size=4), max_size=12))
def test_gift_blocks_are_split_at_the_lines_trim_leaves_empty_or_0(lines: list[str]) -> None:
    """_blocks() tells most lines from their last character: the blocks PHP's empty() gives."""
    blocks, current = [], []
    for lineno, line in enumerate(lines, 1):
        if line.strip(gift_reader._PHP_TRIM) in ("", "0"):
            if current:
                blocks.append(current)
            current = []
        else:
            current.append((lineno, line))
    if current:
        blocks.append(current)
    assert list(gift_reader._blocks(lines)) == blocks


_HTML_TEXTS = st.one_of(
    _WRAPPED,
    st.lists(
        st.sampled_from(
            list(' \t\n\r\x0c\xa0\u2028a<>&;"=/')
            + ["&nbsp;", "<br>", "  ", '<span lang="ur" dir="rtl">', "</span>"]
        ),
        max_size=12,
    ).map("".join),
)


@settings(max_examples=1000, deadline=None)
@given(_HTML_TEXTS)
@example('<span lang="ur" dir="rtl">a</span>')
@example('<span lang="ur" dir="rtl">a</span></span>')
@example('<span lang="ur" dir="rtl"></span>')
@example('<span lang="u r" dir="rtl">a</span>')
@example('<span lang="ur" dir="ltr">a  b&amp;<br></span>')
def test_gift_html_plain_is_split_lang_then_html_to_plain(text: str) -> None:
    """_html_plain() (a wrapper head checked once, html_to_plain() skipped where it changes
    nothing) gives what moodle.split_lang() and moodle.html_to_plain() give, twice in a row
    (the second time from the cache of heads)."""
    lang, inner = moodle.split_lang(text)
    expected = (moodle.html_to_plain(inner), lang, "<" in inner)
    assert gift_reader._html_plain(text) == expected
    assert gift_reader._html_plain(text) == expected


_FRACTIONS = st.one_of(
    st.sampled_from([gift_reader._ONE, gift_reader._ZERO, *moodle.MOODLE_GRADES]),
    st.fractions(min_value=-2, max_value=2, max_denominator=20),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_FRACTIONS, max_size=6), st.booleans())
def test_gift_choice_credits_match_fraction_arithmetic(fractions: list, single: bool) -> None:
    """choice_credits() tells signs and ones by numerator and denominator, and the reader's own
    1 and 0 by identity: the credits and problems of Fraction's operators."""
    from fractions import Fraction

    from lmsexport.model import default_multiple_credits, exact_credit

    def reference() -> object:
        right = [f > 0 for f in fractions]
        if sum(right) == 0:
            return None
        problems = []
        if single:
            n_full = sum(f == 1 for f in fractions)
            if n_full > 1:
                problems.append(
                    (
                        f"{n_full} choices earn full credit in a single-choice question",
                        "gift.several-full-credit",
                    )
                )
        else:
            best, worst, _ = moodle.multi_answer_weights(sum(right), len(fractions) - sum(right))
            if all(f == (best if r else worst) for f, r in zip(fractions, right, strict=True)):
                return list(default_multiple_credits(right)), problems
            total = sum((f for f in fractions if f > 0), Fraction(0))
            if abs(total - 1) >= moodle.GRADE_TOLERANCE:
                message = (
                    "the positive credits of a multiple-choice question add up to "
                    f"{moodle.format_percent(total)}%, not 100% (Moodle imports it with a warning)"
                )
                problems.append((message, "gift.credits-not-full"))
        return [exact_credit(float(f)) for f in fractions], problems

    assert gift_reader.choice_credits(fractions, single) == reference()


def test_gift_items_and_questions_made_quickly_are_the_ones_init_makes() -> None:
    """GiftItem and Question made by filling their __dict__ (records.Maker) equal
    the ones their __init__ makes, field for field and in the same order, and hash and print the
    same."""
    import dataclasses
    import pickle
    from fractions import Fraction

    from lmsexport.model import SingleChoice, SourceLoc

    loc = SourceLoc("t", 2, 1)
    text = gift_reader.GiftText("a", "moodle", loc)
    answers = (gift_reader.GiftAnswer(text, Fraction(1), None),)
    given = {"qtype": "multichoice", "loc": loc, "comments": ("// [id:q]",), "idnumber": "q", "tags": ("x",),
             "text": text, "answers": answers, "missing_word": True}  # fmt: skip
    for made, expected in [
        (gift_reader._gift_item(given), gift_reader.GiftItem(**given)),
        (
            gift_reader._question(
                {"id": "q", "stem": "s", "points": 2.0}, {"body": SingleChoice(()), "points": 0.0}
            ),
            Question(id="q", stem="s", body=SingleChoice(()), points=0.0),
        ),
    ]:
        assert vars(made) == vars(expected) and list(vars(made)) == list(vars(expected))
        assert made == expected and hash(made) == hash(expected) and repr(made) == repr(expected)
        assert pickle.loads(pickle.dumps(made)) == expected
        assert dataclasses.replace(made) == expected
    with pytest.raises(TypeError):
        gift_reader._gift_item({"qtype": "x", "loc": loc, "no_such_field": 1})
    with pytest.raises(TypeError):
        gift_reader._question({"id": "q"}, {"body": SingleChoice(())})  # no stem
    # which classes are made the quick way: tests/test_records.py


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"-{0,3}[0-9]{1,2}\.?[0-9]{0,8}", fullmatch=True))
@example("--50")
@example("33.33333")
@example("33.3")
def test_gift_weight_grades_are_cached_fraction_arithmetic(raw: str) -> None:
    """_grade(), cached, is the reading of a %w% weight _weight_in() did in place."""
    from fractions import Fraction

    try:
        fraction: Fraction | None = Fraction(raw.lstrip("-")) / 100 * (-1 if raw.startswith("-") else 1)
    except ValueError:
        fraction = None
    if fraction is None or raw.startswith("--"):
        expected: tuple[object, bool] = (None, False)
    else:
        near = moodle.nearest_grade(fraction)
        expected = (near, not abs(near - fraction) >= moodle.GRADE_TOLERANCE)
    assert gift_reader._grade(raw) == expected


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_common_language_tags_are_those_langcodes_calls_valid() -> None:
    """langtag answers COMMON_TAGS without langcodes: each must be one langcodes calls valid."""
    import langcodes

    from lmsexport.langtag import COMMON_TAGS

    assert "ur" in COMMON_TAGS and "en" in COMMON_TAGS
    assert [t for t in sorted(COMMON_TAGS) if not langcodes.tag_is_valid(t)] == []


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.sampled_from(sorted(__import__("lmsexport.langtag").langtag.COMMON_TAGS)),
        st.from_regex(r"[a-zA-Z]{1,4}(-[a-zA-Z0-9]{1,8}){0,3}", fullmatch=True),
        st.text(max_size=12),
    )
)
@example("ur-Latn")
@example("zz")
@example("en-")
def test_langtag_decides_as_langcodes(tag: str) -> None:
    """langtag.tag_is_valid, with or without its shortcut, is langcodes.tag_is_valid."""
    import langcodes

    from lmsexport.langtag import tag_is_valid

    assert tag_is_valid(tag) is bool(langcodes.tag_is_valid(tag))


_LOAD_TAGS = """
import sys
from pathlib import Path
from lmsexport.source import load_paths
from lmsexport.errors import LmsExportError
try:
    bank = load_paths([Path(sys.argv[1])])
    print("loaded", bank.quizzes[0].lang, "langcodes" in sys.modules)
except LmsExportError as e:
    print("refused", [d.rule for d in e.diagnostics], "langcodes" in sys.modules)
"""


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("ur", "loaded ur False"),
        ("ur-Latn", "loaded ur-Latn True"),
        ("ur-zz-zz", "refused ['source.bad-lang'] True"),
    ],
)
def test_a_bank_in_a_common_language_is_loaded_without_langcodes(
    tmp_path: Path, lang: str, expected: str
) -> None:
    """A process loading a quiz in Urdu (and an English question) never imports langcodes (~0.05
    s); a tag outside COMMON_TAGS is still judged by it, both ways."""
    quiz = tmp_path / "q.yaml"
    quiz.write_text(
        f"id: q\ntitle: T\nlang: {lang}\nquestions:\n"
        "  - id: a\n    type: true_false\n    stem: S\n    answer: true\n"
        "  - id: b\n    lang: en\n    type: true_false\n    stem: S\n    answer: false\n",
        encoding="utf-8",
    )
    script = tmp_path / "load.py"
    script.write_text(_LOAD_TAGS)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, str(script), str(quiz)], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == expected


def test_the_gift_reader_benchmark_runs_on_this_checkout() -> None:
    """benchmarks/gift_reader.py (which bench.py runs unless --no-reader) measures this checkout's
    reader by default; a revision whose reader cannot build today's model is an error, not a
    traceback."""
    script = [sys.executable, str(ROOT / "benchmarks" / "gift_reader.py"), "60", "--rounds", "1"]
    own = subprocess.run(script, capture_output=True, text=True, timeout=120)
    assert own.returncode == 0, own.stderr
    assert re.fullmatch(r" *this checkout: \d+\.\d{3} ms a question \(\d+\.\d\d s for 60\)\n", own.stdout)
    old = subprocess.run(
        [*script, "--against", "6269a63"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    if old.returncode == 2 and "error: no reader at 6269a63" in old.stderr:
        pytest.skip("a shallow clone without 6269a63")
    assert old.returncode == 1 and "Traceback" not in old.stderr, old.stderr
    assert "error: the GIFT reader at 6269a63 does not build this checkout's model" in old.stderr


@pytest.mark.parametrize("shape", ["plain", "real", "parametric"])
def test_the_phases_benchmark_runs_on_every_bank_shape(shape: str) -> None:
    """benchmarks/phases.py times each writer's phases on the bank bench.py measures, of each
    shape: a parametric question's QTI 2.1 items are its variants' (qti21.item_questions; the
    writer refuses a parametric question itself), so the item trees are timed as built."""
    script = [sys.executable, str(ROOT / "benchmarks" / "phases.py"), "30", "--shape", shape, "--repeat", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(script, capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    head, *rows = run.stdout.splitlines()
    assert re.fullmatch(rf"30 questions \({shape}\), 1 quizzes", head)
    assert len(rows) >= 12 and "qti21 item trees" in run.stdout
    for row in rows:
        assert re.fullmatch(r".{36} +\d+\.\d{3} s +\d+\.\d{3} ms/question", row), row
    bad = subprocess.run([*script[:2], "0"], capture_output=True, text=True, timeout=60, env=env)
    assert bad.returncode == 2 and "must be at least 1" in bad.stderr


def test_the_benchmark_samples_memory_only_where_it_reports_a_peak() -> None:
    """bench.measure samples the process tree's memory by default (the tables' peak RSS), and
    not at all with peak=False (the rows compared with text2qti, which report no peak: the
    sampler takes CPU the measured command would have had)."""
    import bench

    # A child that holds ~64 MB for ~0.3 s: the sampler (every 50 ms) must see it.
    hold = [
        sys.executable,
        "-c",
        "import time; b = bytearray(64 << 20); b[::4096] = b'x' * len(b[::4096]); time.sleep(0.3)",
    ]
    sampled = bench.measure(hold)
    assert sampled.returncode == 0 and sampled.peak_rss > 60 << 20
    assert sampled.wall >= 0.3 and sampled.cpu > 0
    unsampled = bench.measure(hold, peak=False)
    assert unsampled.returncode == 0 and unsampled.peak_rss == 0
    assert unsampled.wall >= 0.3 and unsampled.cpu > 0


def _lmsexport_run(*args: str, before: str = "") -> subprocess.CompletedProcess[str]:
    """The command as installed (cli.run, the console script's and ``python -m``'s entry)."""
    code = f"import sys\n{before}\nsys.argv = ['lmsexport', *sys.argv[1:]]\n"
    code += "from lmsexport.cli import run\nrun()"
    # (without PYTHONUNBUFFERED, which would make every write reach the pipe at once: the
    # output must come through run()'s own flush)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, timeout=300, env=env
    )


def test_the_command_ends_without_the_interpreters_teardown(tmp_path: Path) -> None:
    """cli.run skips the teardown (os._exit: an atexit handler never runs) once main() is done,
    with the exit codes and every line of output main() gives: 0 and standard output whole
    (a pipe here), 1 with the diagnostics on standard error, 2 for a usage error."""
    atexit = "import atexit; atexit.register(print, 'teardown ran')"
    lint = ["lint", str(ROOT / "source"), "-r", "json", "--exit-zero"]
    ok = _lmsexport_run(*lint, before=atexit)
    assert ok.returncode == 0, ok.stderr
    assert "teardown ran" not in ok.stdout + ok.stderr and len(ok.stdout) > 1000
    assert ok.stdout == CliRunner().invoke(app, lint).stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("quiz: {id: x\n", encoding="utf-8")
    problems = _lmsexport_run("check", str(bad))
    assert problems.returncode == 1 and "Traceback" not in problems.stderr
    assert re.search(r"bad\.yaml:\d+:\d+: error: ", problems.stderr), problems.stderr
    usage = _lmsexport_run("build", str(ROOT / "source"), "--format", "nope")
    assert usage.returncode == 2 and "nope" in usage.stderr
    # no standard output (its descriptor closed when the process started: sys.stdout is None),
    # as Python ends such a process
    closed = _lmsexport_run("lint", str(ROOT / "source"), "--exit-zero", before="sys.stdout = None")
    assert closed.returncode == 0 and "Traceback" not in closed.stderr, closed.stderr
    # an exit code beyond a byte: the status a POSIX parent sees, as sys.exit gives it
    big = _lmsexport_run(before="import lmsexport.cli as c\nc.main = lambda: sys.exit(2**40 + 3)")
    assert big.returncode == 3 and "Traceback" not in big.stderr, big.stderr
    # sys.exit with a message: on standard error, status 1, as Python ends it; with no standard
    # error, the message goes nowhere (not to standard output)
    said = "import lmsexport.cli as c\nc.main = lambda: sys.exit('stopped')"
    message = _lmsexport_run(before=said)
    assert (message.returncode, message.stdout, message.stderr) == (1, "", "stopped\n")
    silent = _lmsexport_run(before=said + "\nsys.stderr = None")
    assert (silent.returncode, silent.stdout, silent.stderr) == (1, "", "")
    # main() itself still ends as typer does, by SystemExit, for a program that embeds it
    embedded = subprocess.run(
        [sys.executable, "-c", f"{atexit}\nimport sys\nsys.argv = ['lmsexport', '--help']\n"
         "from lmsexport.cli import main\nmain()"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert embedded.returncode == 0 and "teardown ran" in embedded.stdout
