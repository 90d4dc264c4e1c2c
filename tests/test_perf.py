"""The performance work keeps every output byte: fast paths against their reference definitions,
the parallel build against the serial one, and the rebuild cache against changes it must see.

No timings are asserted here (the machine is shared and noisy); benchmarks/bench.py measures.
"""

from __future__ import annotations

import contextlib
import copy
import html
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
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from typer.testing import CliRunner

from lmsexport import build as build_mod
from lmsexport import validate
from lmsexport.cli import app
from lmsexport.errors import SourceError
from lmsexport.model import Question, Quiz, direction
from lmsexport.package import serialize
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
    """The same shape (line counts, presence, languages, tag count) with every text, tag and the id
    changed."""

    def other(text: str) -> str:
        return "\n".join(f"<&{line[::-1]}\u200f]]>" for line in text.split("\n"))

    return replace(
        question,
        id=question.id + "-b",
        tags=tuple(t + "b" for t in question.tags),
        stem=other(question.stem),
        explanation=other(question.explanation) if question.explanation else question.explanation,
        choices=tuple(
            replace(c, text=other(c.text), feedback=other(c.feedback) if c.feedback else c.feedback)
            for c in question.choices
        ),
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

    # A changed source file is rebuilt.
    quiz.write_text(text.replace("title: ", "title: X", 1), encoding="utf-8")
    result = _build(str(src), "--out", str(out))
    assert "(cached)" not in result.stdout and " 0 written" not in result.stdout
    assert "(cached)" in _build(str(src), "--out", str(out)).stdout

    # Other formats, another SOURCE_DATE_EPOCH, a new lmsexport: never answered from the cache.
    assert "(cached)" not in _build(str(src), "--out", str(out), "--format", "gift").stdout
    assert "(cached)" not in _build(str(src), "--out", str(out)).stdout  # the gift-only key replaced it
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    assert "(cached)" not in _build(str(src), "--out", str(out), env=env).stdout
    _build(str(src), "--out", str(out))
    monkeypatch.setattr(build_mod, "tool_fingerprint", lambda: "another lmsexport")
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
