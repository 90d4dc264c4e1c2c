"""Incremental builds and the safety of the rebuild cache (lmsexport/cache.py).

A rebuild makes again only what an edit changed, and its result is always the bytes of a
build from scratch; the cache is never trusted beyond what it can prove: another lmsexport,
other libraries, formats or SOURCE_DATE_EPOCH, a corrupted or edited record, an output
changed by hand, each means building again. No timings here (benchmarks/bench.py measures).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lmsexport import build as build_mod
from lmsexport import cache as cache_mod
from lmsexport.cli import app
from lmsexport.errors import Severity
from lmsexport.model import Quiz
from lmsexport.source import discover

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import synth  # noqa: E402
from strategies import quizzes  # noqa: E402

FROM_CACHE = "quiz files unchanged, not rebuilt"


def build(*args: str, env: dict[str, str] | None = None):
    result = CliRunner().invoke(app, ["build", *args], env=env, catch_exceptions=False)
    return result


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def stamps(root: Path) -> dict[str, tuple[int, int]]:
    """(inode, mtime) of every file: which files a build rewrote."""
    return {
        p.relative_to(root).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def fresh(src: Path, tmp: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, bytes]:
    """What a build from scratch (no cache, empty output) writes."""
    out = tmp / "scratch"
    shutil.rmtree(out, ignore_errors=True)
    cache_mod.cache_path(out).unlink(missing_ok=True)
    result = build(str(src), "--out", str(out), *args, env=env)
    assert result.exit_code == 0, result.stderr
    files = tree(out)
    shutil.rmtree(out)
    cache_mod.cache_path(out).unlink(missing_ok=True)
    return files


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    """Four quizzes: three synthetic ones and the seed quiz with every question type."""
    src = tmp_path / "src"
    src.mkdir()
    rng = random.Random(3)
    for i in range(3):
        (src / f"synth-{i:04d}.yaml").write_text(synth.make_quiz(i, 30, rng), encoding="utf-8")
    shutil.copy(ROOT / "source" / "zero-sharded-optimizers.yaml", src)
    assert len(list(src.glob("*.yaml"))) == 4
    return src


def built(src: Path, out: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = build(str(src), "--out", str(out), *args, env=env)
    assert result.exit_code == 0, result.stderr
    return str(result.stdout)


def of_quiz(files: dict[str, object], quiz_id: str) -> set[str]:
    """The outputs of one quiz, whatever the formats: the files named after it."""
    return {rel for rel in files if rel.rsplit("/", 1)[-1].split(".")[0] == quiz_id}


def of_bank(files: dict[str, object]) -> set[str]:
    """The outputs made from every quiz (bank-wide formats: the cartridge)."""
    from lmsexport.writers import BANK_WIDE, folder_of

    return {rel for rel in files if rel.split("/")[0] in {folder_of(f) for f in BANK_WIDE}}


def edit_stem(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('stem: "', 'stem: "edited ', 1), encoding="utf-8")


# ---------------------------------------------------------------------------- incremental


def test_an_edited_file_rebuilds_only_its_outputs(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    built(bank, out)
    assert "(cached)" in built(bank, out)
    before = stamps(out)
    edited = bank / "synth-0001.yaml"
    edit_stem(edited)
    stdout = built(bank, out)
    # A stem is not in index.html (titles and counts are): the quiz's own files, and those made
    # from the whole bank.
    expected = of_quiz(before, "synth-0001") | of_bank(before)
    assert len(of_quiz(before, "synth-0001")) >= 3
    assert (
        f", {len(expected)} written, {len(before) - len(expected)} unchanged (3 of 4 {FROM_CACHE})" in stdout
    )
    after = stamps(out)
    rewritten = {rel for rel in after if after[rel] != before[rel]}
    assert rewritten == expected
    assert tree(out) == fresh(bank, tmp_path)
    assert "(cached)" in built(bank, out)


def test_an_edit_validates_a_manifest_of_the_same_bytes_once(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cartridges' manifests list the quizzes, not their questions: after an edit of a stem
    they are the bytes the last build validated, and are not validated again; a new title
    changes them, and they are. A build from scratch and ``build --check`` validate them."""
    from lmsexport import validate_qti12

    seen: list[str] = []
    real = validate_qti12.validate_cc_tree

    def counting(tree, kind, name, *args, **kwargs):  # type: ignore[no-untyped-def]
        if kind == "cc-manifest":
            seen.append(name)
        return real(tree, kind, name, *args, **kwargs)

    monkeypatch.setattr(validate_qti12, "validate_cc_tree", counting)
    out = tmp_path / "dist"
    built(bank, out)
    manifests = sorted(seen)
    assert manifests == ["cc/bank.imscc!imsmanifest.xml", "cc11/bank-cc11.imscc!imsmanifest.xml"]
    assert len(_record(out)["units"]["bank"]["valid"]) == 2
    seen.clear()
    edit_stem(bank / "synth-0001.yaml")
    assert FROM_CACHE in built(bank, out)
    assert seen == []
    assert tree(out) == fresh(bank, tmp_path)
    seen.clear()
    path = bank / "synth-0002.yaml"
    path.write_text(
        re.sub(r"(?m)^title: .*$", 'title: "A new title"', path.read_text("utf-8"), count=1), "utf-8"
    )
    assert FROM_CACHE in built(bank, out)
    assert sorted(seen) == manifests
    seen.clear()
    result = build(str(bank), "--out", str(out), "--check")
    assert result.exit_code == 0, result.stderr
    assert sorted(seen) == manifests


_EDIT_BUILD = """
import sys
from lmsexport import build
from lmsexport.cli import main

build.POOL_MIN_BYTES = 0  # the edited file's build in a worker, as in a large bank
sys.argv = ["lmsexport", "build", sys.argv[1], "--out", sys.argv[2]]
try:
    main()
finally:
    print("jinja2" in sys.modules, "lmsexport.writers.html" in sys.modules, file=sys.stderr)
"""


def test_an_edit_that_keeps_index_html_does_not_load_its_writer(bank: Path, tmp_path: Path) -> None:
    """The edited file is built in a worker; the build's own process then needs neither
    jinja2 nor the HTML writer (~0.05 s) when index.html stays as it was."""
    import subprocess

    out = tmp_path / "dist"
    built(bank, out)
    edit_stem(bank / "synth-0001.yaml")
    script = tmp_path / "edit.py"
    script.write_text(_EDIT_BUILD)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LMSEXPORT_JOBS": "2", "CI": "1"}
    argv = [sys.executable, str(script), str(bank), str(out)]
    run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert FROM_CACHE in run.stdout
    assert run.stderr.split() == ["False", "False"], run.stderr
    assert tree(out) == fresh(bank, tmp_path)


_SPLIT_EDIT = """
import json, os, sys
from pathlib import Path
from lmsexport import build
from lmsexport.cli import main

build.POOL_MIN_BYTES = 0  # the edited file's build in workers, as in a large bank
log = Path(sys.argv[3])

def logged(fn):
    def task(path, formats, *args):
        line = [fn.__name__, Path(path).name, list(formats), list(args), os.getpid()]
        with log.open("a") as f:
            f.write(json.dumps(line) + "\\n")
        return fn(path, formats, *args)
    task.__qualname__ = task.__name__ = f"task_{fn.__name__}"  # picklable: a name of __main__
    globals()[task.__name__] = task
    return task

build.build_file = logged(build.build_file)
build.reload_file = logged(build.reload_file)
assemble = build._BankBuild.bank_outputs

def bank_outputs(self, *args):
    # what assembling the cartridges imports, imported while the pool worked (prepare_reused)
    print("validator before assembly:", "lmsexport.validate_qti12" in sys.modules, file=sys.stderr)
    return assemble(self, *args)

build._BankBuild.bank_outputs = bank_outputs
sys.argv = ["lmsexport", "build", sys.argv[1], "--out", sys.argv[2]]
try:
    main()
finally:
    from lmsexport import validate, validate_qti12
    compiled = [validate.compiled_schema, validate.compiled_schema_without_mathml, validate_qti12.schematron]
    print("compiled here:", sum(f.cache_info().currsize for f in compiled), file=sys.stderr)
"""


def test_a_lone_edited_file_is_built_by_two_workers_with_the_bytes_of_one(bank: Path, tmp_path: Path) -> None:
    """An edit of one file that the bank's cartridges include: its own formats in one worker,
    its parts in the other (each loading it), in a fresh process as in a large bank. The
    outputs are a build from scratch's, and so are the parts recorded for it: a later edit of
    another file assembles the cartridges from them."""
    import json
    import subprocess

    out = tmp_path / "dist"
    built(bank, out)
    edit_stem(bank / "synth-0001.yaml")
    script, log = tmp_path / "edit.py", tmp_path / "tasks.jsonl"
    script.write_text(_SPLIT_EDIT)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LMSEXPORT_JOBS": "2", "CI": "1"}
    run = subprocess.run(
        [sys.executable, str(script), str(bank), str(out), str(log)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert f"(3 of 4 {FROM_CACHE})" in run.stdout
    tasks = sorted(json.loads(line) for line in log.read_text().splitlines())
    assert [t[:2] for t in tasks] == [["build_file", "synth-0001.yaml"], ["reload_file", "synth-0001.yaml"]]
    own, parts = tasks
    assert own[3][-1] is False  # no parts made there
    assert parts[2] == ["cc13", "cc11"]
    assert own[4] != parts[4]  # two workers
    # each compiled the schemas it validates with; this process none (the cartridges'
    # manifests are those the last build validated)
    assert "compiled here: 0" in run.stderr, run.stderr
    assert "validator before assembly: True" in run.stderr, run.stderr
    assert tree(out) == fresh(bank, tmp_path)
    assert "(cached)" in built(bank, out)
    edit_stem(bank / "synth-0002.yaml")
    assert f"(3 of 4 {FROM_CACHE})" in built(bank, out)
    assert tree(out) == fresh(bank, tmp_path)


def test_a_new_title_rebuilds_index_html_too(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    built(bank, out)
    before = stamps(out)
    path = bank / "synth-0002.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace('title: "', 'title: "new ', 1), encoding="utf-8")
    expected = of_quiz(before, "synth-0002") | of_bank(before) | {"index.html"}
    stdout = built(bank, out)
    assert (
        f", {len(expected)} written, {len(before) - len(expected)} unchanged (3 of 4 {FROM_CACHE})" in stdout
    )
    after = stamps(out)
    assert {rel for rel in after if after[rel] != before[rel]} == expected
    assert tree(out) == fresh(bank, tmp_path)


def test_added_removed_and_renamed_sources(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    built(bank, out)
    text = (bank / "synth-0000.yaml").read_text(encoding="utf-8")
    (bank / "extra.yaml").write_text(
        text.replace("synth-0000", "extra-quiz").replace("s0000-", "x0000-"), "utf-8"
    )
    assert f"(4 of 5 {FROM_CACHE})" in built(bank, out)
    assert tree(out) == fresh(bank, tmp_path)
    gone = of_quiz(tree(out), "synth-0000")
    (bank / "synth-0000.yaml").unlink()
    stdout = built(bank, out)
    assert f", {len(gone)} removed" in stdout and f"(4 of 4 {FROM_CACHE})" in stdout
    assert tree(out) == fresh(bank, tmp_path)
    (bank / "extra.yaml").rename(bank / "renamed.yaml")  # same quiz, another path: built again
    assert f"(3 of 4 {FROM_CACHE})" in built(bank, out)
    assert tree(out) == fresh(bank, tmp_path)


def test_problems_across_files_are_those_of_a_build_from_scratch(bank: Path, tmp_path: Path) -> None:
    """An edited file that reuses an id of an unchanged one fails as a full build fails (the
    unchanged file's ids come from its summary), and warnings of unchanged files are printed
    again."""
    out = tmp_path / "dist"
    seed = bank / "zero-sharded-optimizers.yaml"
    text = seed.read_text(encoding="utf-8")
    seed.write_text(re.sub(r"(?m)^    explanation: .*\n", "", text, count=1), encoding="utf-8")
    first = build(str(bank), "--out", str(out))
    assert first.exit_code == 0 and "has no explanation" in first.stderr
    again = build(str(bank), "--out", str(out))
    assert "(cached)" in again.stdout and again.stderr == first.stderr
    edit_stem(bank / "synth-0001.yaml")
    partly = build(str(bank), "--out", str(out))
    assert FROM_CACHE in partly.stdout and partly.stderr == first.stderr
    # Now a question id of synth-0000.yaml (unchanged, from the cache) used again in synth-0001.
    path = bank / "synth-0001.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("id: s0001-q0003", "id: s0000-q0003"), "utf-8")
    before = tree(out)
    incremental = build(str(bank), "--out", str(out))
    scratch = tmp_path / "scratch"
    full = build(str(bank), "--out", str(scratch))
    assert incremental.exit_code == full.exit_code == 1
    assert "duplicate question id 's0000-q0003'" in incremental.stderr
    assert incremental.stderr == full.stderr.replace(str(scratch), str(out))
    assert tree(out) == before


def test_cache_when_the_build_fails_is_kept(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    built(bank, out)
    path = bank / "synth-0001.yaml"
    good = path.read_text(encoding="utf-8")
    path.write_text(good.replace("questions:", "questions: 3\nbroken:", 1), encoding="utf-8")
    assert build(str(bank), "--out", str(out)).exit_code == 1
    path.write_text(good, encoding="utf-8")
    assert "(cached)" in built(bank, out)


def test_a_file_changed_while_it_is_built_is_not_recorded(bank: Path, tmp_path: Path) -> None:
    """A source edited after the build digested it but before it was built: its outputs are
    of the edited text, so they must not be recorded under the digest of the first one (put
    the first text back and they would be kept, stale)."""
    from lmsexport.stage import Stager

    out = tmp_path / "dist"
    sources = discover([bank])
    rc = cache_mod.RebuildCache(out, build_mod.WRITERS, 315532800)
    rc.open(sources)
    original = sources[1].read_bytes()
    edit_stem(sources[1])
    stager = Stager(out)
    result = build_mod.build_files(
        sources, build_mod.WRITERS, 315532800, stager.add, reuse=rc, keep=stager.keep
    )
    stager.commit(set())
    rc.save(result)
    sources[1].write_bytes(original)
    again = cache_mod.RebuildCache(out, build_mod.WRITERS, 315532800)
    again.open(sources)
    assert again.summary(sources[0].as_posix()) is not None
    assert again.summary(sources[1].as_posix()) is None


@settings(max_examples=60, deadline=None)
@given(quizzes())
def test_quiz_headers_survive_the_record(quiz) -> None:  # type: ignore[no-untyped-def]
    """What the cache keeps of a quiz (everything but its questions) reads back equal, so
    index.html made from recorded headers is the one made from loaded quizzes."""
    from dataclasses import replace

    header = replace(quiz, questions=())
    back = cache_mod.decode(json.loads(json.dumps(cache_mod.encode(header))))
    assert back == header and repr(back) == repr(header) and back.loc == header.loc
    assert build_mod.index_digest([(back, 3)], ("html",)) == build_mod.index_digest([(header, 3)], ("html",))


# ---------------------------------------------------------------------------- safety


def test_another_tool_or_library_means_a_full_build(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "dist"
    built(bank, out)
    assert "(cached)" in built(bank, out)
    # lmsexport's own code: any file of the package (a writer edited without a version bump).
    with monkeypatch.context() as patched:
        patched.setattr(cache_mod, "tool_fingerprint", lambda: "another lmsexport")
        stdout = built(bank, out)
        assert "(cached)" not in stdout and FROM_CACHE not in stdout
    stdout = built(bank, out)  # and back: the record is the other lmsexport's now
    assert "(cached)" not in stdout and FROM_CACHE not in stdout
    assert "(cached)" in built(bank, out)
    # A library installed, upgraded or downgraded: a new name-version.dist-info on sys.path.
    site = tmp_path / "site"
    (site / "lxml-0.0.1.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))
    stdout = built(bank, out)
    assert "(cached)" not in stdout and FROM_CACHE not in stdout
    (site / "lxml-0.0.1.dist-info").rename(site / "lxml-0.0.2.dist-info")
    stdout = built(bank, out)
    assert "(cached)" not in stdout and FROM_CACHE not in stdout
    assert "(cached)" in built(bank, out)


def test_the_fingerprint_covers_code_and_distributions(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = cache_mod.tool_fingerprint()
    assert cache_mod.tool_fingerprint() == first
    site = tmp_path / "site"
    (site / "jinja2-9.9.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))
    assert "jinja2-9.9.dist-info" in cache_mod.installed_distributions()
    assert cache_mod.tool_fingerprint() != first


def test_other_formats_or_source_date_epoch_mean_a_full_build(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    built(bank, out)
    stdout = built(bank, out, "--format", "gift")
    assert "(cached)" not in stdout and FROM_CACHE not in stdout
    stdout = built(bank, out)
    assert "(cached)" not in stdout and FROM_CACHE not in stdout
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    zips = [rel for rel in tree(out) if rel.endswith((".zip", ".imscc"))]  # what holds the date
    stdout = built(bank, out, env=env)
    assert "(cached)" not in stdout and FROM_CACHE not in stdout and f", {len(zips)} written" in stdout
    assert tree(out) == fresh(bank, tmp_path, env=env)
    assert "(cached)" in built(bank, out, env=env)
    assert f", {len(zips)} written" in built(bank, out)
    assert tree(out) == fresh(bank, tmp_path)


def _forge(record_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    """Edit the record's JSON by hand, keeping its first line (the checksum) as it was."""
    checksum, _, text = record_path.read_bytes().partition(b"\n")
    record = json.loads(text)
    change(record)
    record_path.write_bytes(checksum + b"\n" + json.dumps(record).encode())


def test_a_hand_edited_record_is_not_trusted(bank: Path, tmp_path: Path) -> None:
    """Edit a source, then make the record claim the edited bytes are what the outputs were
    built from: without the record's checksum the stale outputs would be kept."""
    out = tmp_path / "dist"
    built(bank, out)
    path = bank / "synth-0001.yaml"
    edit_stem(path)
    new_digest = cache_mod.file_digest(path)
    key = path.as_posix()

    def claim(record: dict) -> None:  # type: ignore[type-arg]
        record["sources"][key]["sha256"] = new_digest
        record["units"]["source:" + key]["inputs"][key] = new_digest

    _forge(cache_mod.cache_path(out), claim)
    stdout = built(bank, out)
    assert FROM_CACHE not in stdout and "(cached)" not in stdout
    assert tree(out) == fresh(bank, tmp_path)


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # truncated
        lambda raw: b"",
        lambda raw: b"\x00\xff" * 100,  # not text
        lambda raw: raw.replace(b'"sha256":"', b'"sha256":"0', 1),  # one character
        lambda raw: raw.split(b"\n", 1)[1],  # no checksum line
    ],
    ids=["truncated", "empty", "binary", "one-character", "no-checksum"],
)
def test_a_corrupted_record_means_a_full_build(bank: Path, tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "dist"
    built(bank, out)
    path = bank / "synth-0001.yaml"
    edit_stem(path)  # so that trusting a damaged record would leave a stale output
    record = cache_mod.cache_path(out)
    record.write_bytes(damage(record.read_bytes()))
    stdout = built(bank, out)
    assert FROM_CACHE not in stdout and "(cached)" not in stdout
    assert tree(out) == fresh(bank, tmp_path)
    assert "(cached)" in built(bank, out)


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["sources"].update({k: {"sha256": 5} for k in r["sources"]}),
        lambda r: [u.update(outputs=[1, 2]) for u in r["units"].values()],
        lambda r: [s.update(ids="nope") for s in r["sources"].values()],
        lambda r: [s.update(quiz={"dataclass": "Path", "fields": {}}) for s in r["sources"].values()],
        lambda r: [s.update(questions="7") for s in r["sources"].values()],
        lambda r: [u.update(assessments=None) for u in r["units"].values()],
        lambda r: r.update(units=None),
        lambda r: [u.update(valid=["not a digest"]) for u in r["units"].values()],
    ],
)
def test_a_record_of_the_wrong_shape_is_ignored_even_with_a_good_checksum(
    bank: Path, tmp_path: Path, change
) -> None:  # type: ignore[no-untyped-def]
    """Shape checks, not only the checksum: a record written by another version, or forged
    with a recomputed checksum, never crashes a build nor makes anything but a class of the
    model."""
    import hashlib

    out = tmp_path / "dist"
    built(bank, out)
    record_path = cache_mod.cache_path(out)
    record = json.loads(record_path.read_bytes().partition(b"\n")[2])
    change(record)
    text = json.dumps(record).encode()
    record_path.write_bytes(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)
    stdout = built(bank, out)
    assert "(cached)" not in stdout
    assert tree(out) == fresh(bank, tmp_path)


def _same_size_same_mtime_edit(target: Path) -> bytes:
    good = target.read_bytes()
    st = target.stat()
    target.write_bytes(good.replace(b"synth", b"SYNTH", 1))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert target.stat().st_size == st.st_size and target.stat().st_mtime_ns == st.st_mtime_ns
    return good


@pytest.mark.parametrize("settled", [False, True], ids=["same-tick", "settled"])
def test_an_output_changed_by_hand_is_rebuilt(bank: Path, tmp_path: Path, settled: bool) -> None:
    """Same size, mtime put back: still found.

    settled: the output predates the last build, so an edit moves its ctime (which nothing
    can set back). same-tick: an edit in the very clock tick the build recorded the file in
    leaves even ctime as recorded; here the record is made to hold the edited file's times
    (as the build would have seen them), and the file, written by that build, is hashed."""
    out = tmp_path / "dist"
    built(bank, out)
    if settled:
        assert "(cached)" in built(bank, out)  # now the files predate the last build
    target = out / "gift" / "synth-0001.gift.txt"
    good = _same_size_same_mtime_edit(target)
    if not settled:
        import hashlib

        record_path = cache_mod.cache_path(out)
        record = json.loads(record_path.read_bytes().partition(b"\n")[2])
        st = target.stat()
        unit = record["units"]["source:" + (bank / "synth-0001.yaml").as_posix()]
        unit["outputs"]["gift/synth-0001.gift.txt"][:4] = [
            st.st_size,
            st.st_mtime_ns,
            st.st_ctime_ns,
            st.st_ino,
        ]
        assert record["started"] <= st.st_mtime_ns
        text = json.dumps(record).encode()
        record_path.write_bytes(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)
    stdout = built(bank, out)
    assert "(cached)" not in stdout and ", 1 written" in stdout and f"(3 of 4 {FROM_CACHE})" in stdout
    assert target.read_bytes() == good


def test_outputs_deleted_or_added_by_hand(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    built(bank, out)
    (out / "html" / "synth-0002.html").unlink()
    (out / "index.html").unlink()
    assert ", 2 written" in built(bank, out)
    (out / "qti21" / "stray.zip").write_bytes(b"PK")
    assert ", 1 removed" in built(bank, out)
    assert tree(out) == fresh(bank, tmp_path)


def test_build_check_never_reads_the_cache(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "dist"
    built(bank, out)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("build --check used the rebuild cache")

    monkeypatch.setattr(cache_mod.RebuildCache, "__init__", refuse)
    result = build("--check", str(bank), "--out", str(out))
    assert result.exit_code == 0 and "up to date" in result.stdout
    # A stale output the record would vouch for (same size and mtime) is still named.
    monkeypatch.undo()
    target = out / "html" / "synth-0001.html"
    st = target.stat()
    target.write_bytes(target.read_bytes().replace(b"<", b">", 1))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    result = build("--check", str(bank), "--out", str(out))
    assert result.exit_code == 1 and f"{target}: error: stale" in result.stderr


# ---------------------------------------------------------------------------- the cartridges' parts


@pytest.fixture
def parts_made(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(format's cartridge path, quiz id) of every cartridge part a build makes (the builds of
    these small banks run in this process)."""
    from lmsexport.writers import cc13

    made: list[tuple[str, str]] = []
    original = cc13.cc_part

    def counting(quiz, version):  # type: ignore[no-untyped-def]
        made.append((version.cartridge_path, quiz.id))
        return original(quiz, version)

    monkeypatch.setattr(cc13, "cc_part", counting)
    return made


def ids_made(made: list[tuple[str, str]]) -> list[str]:
    """The quizzes parts were made of, once per quiz whatever the number of cartridges."""
    return sorted({quiz for _, quiz in made})


def parts_files(out: Path) -> list[Path]:
    return sorted(cache_mod.parts_path(out).glob("*.parts"))


def test_an_edit_makes_the_cartridge_parts_of_that_file_only(
    bank: Path, tmp_path: Path, parts_made: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cartridges are made from every quiz; after an edit to one file the parts of the
    others come from their parts files (no other file is even read), and the cartridges are
    those of a build from scratch."""
    out = tmp_path / "dist"
    built(bank, out)
    assert len(parts_made) == 2 * 4  # cc13 and cc11, four quizzes
    assert len(parts_files(out)) == 4
    assert not any(p.name.endswith(".lmsexport-cache.d") for p in out.iterdir())
    reloaded: list[str] = []
    original = build_mod.reload_file
    monkeypatch.setattr(
        build_mod, "reload_file", lambda path, *a: reloaded.append(path) or original(path, *a)
    )
    parts_made.clear()
    edit_stem(bank / "synth-0001.yaml")
    built(bank, out)
    assert ids_made(parts_made) == ["synth-0001"] and len(parts_made) == 2
    assert reloaded == []
    assert tree(out) == fresh(bank, tmp_path)
    assert len(parts_files(out)) == 4  # the edited file's old parts file is gone
    # Nothing changed: nothing made, the parts files stay.
    before = parts_files(out)
    parts_made.clear()
    assert "(cached)" in built(bank, out)
    assert parts_made == [] and parts_files(out) == before
    # Two edits in a row, in another file: still one file's parts each time.
    edit_stem(bank / "synth-0002.yaml")
    built(bank, out)
    edit_stem(bank / "synth-0002.yaml")
    built(bank, out)
    assert ids_made(parts_made) == ["synth-0002"] and len(parts_made) == 4
    assert tree(out) == fresh(bank, tmp_path)


_PIDS: list[Path] = []
"""Where _build_file_noting_pid notes the process it ran in (a file: it runs in a worker)."""
_BUILD_FILE = build_mod.build_file


def _build_file_noting_pid(*args: Any, **kwargs: Any) -> Any:
    with open(_PIDS[0], "a", encoding="ascii") as fh:
        fh.write(f"{os.getpid()}\n")
    return _BUILD_FILE(*args, **kwargs)


def test_an_edit_is_built_in_a_worker_while_the_parts_files_are_read(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With more than one job, the one edited file is built in a worker while this process
    reads the other files' parts files (the two overlap instead of following each other), and
    the outputs are those of a build from scratch."""
    out = tmp_path / "dist"
    built(bank, out)
    monkeypatch.setenv("LMSEXPORT_JOBS", "2")
    monkeypatch.setattr(build_mod, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(build_mod, "build_file", _build_file_noting_pid)
    monkeypatch.setattr(sys.modules[__name__], "_PIDS", [tmp_path / "pids"])
    read_in: list[int] = []
    parts = cache_mod.RebuildCache.parts
    monkeypatch.setattr(
        cache_mod.RebuildCache, "parts", lambda self, *a: read_in.append(os.getpid()) or parts(self, *a)
    )
    edit_stem(bank / "synth-0001.yaml")
    assert "(3 of 4 quiz files unchanged" in built(bank, out)
    workers = {int(pid) for pid in (tmp_path / "pids").read_text(encoding="ascii").split()}
    assert workers and os.getpid() not in workers
    assert len(read_in) == 3 and set(read_in) == {os.getpid()}
    assert tree(out) == fresh(bank, tmp_path)


def test_outputs_deleted_by_hand_keep_the_parts(
    bank: Path, tmp_path: Path, parts_made: list[tuple[str, str]]
) -> None:
    """A quiz file built again because its own outputs went is built without its parts when
    the cartridges are intact; its parts file stays for the next edit."""
    out = tmp_path / "dist"
    built(bank, out)
    (out / "html" / "synth-0002.html").unlink()
    parts_made.clear()
    assert ", 1 written" in built(bank, out)
    assert parts_made == []
    edit_stem(bank / "synth-0000.yaml")
    built(bank, out)
    assert ids_made(parts_made) == ["synth-0000"]
    assert tree(out) == fresh(bank, tmp_path)


def _name_of(out: Path, source: Path) -> str:
    record = json.loads(cache_mod.cache_path(out).read_bytes().partition(b"\n")[2])
    name = record["sources"][source.as_posix()]["parts"]
    assert isinstance(name, str)
    return name


def _rename_parts_file(out: Path, source: Path, data: bytes) -> None:
    """Put ``data`` in place of the parts file of ``source`` under its sha256, and have the
    record (checksum recomputed) name it: a forger who rewrites both."""
    import hashlib

    name = hashlib.sha256(data).hexdigest()
    (cache_mod.parts_path(out) / cache_mod.parts_file_name(name)).write_bytes(data)
    record_path = cache_mod.cache_path(out)
    record = json.loads(record_path.read_bytes().partition(b"\n")[2])
    record["sources"][source.as_posix()]["parts"] = name
    text = json.dumps(record).encode()
    record_path.write_bytes(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)


def _with_header(own: bytes, change: Callable[[dict[str, Any]], None]) -> bytes:
    """A parts file whose JSON header (its second line) went through ``change``."""
    magic, header, blob = own.split(b"\n", 2)
    record = json.loads(header)
    change(record)
    return magic + b"\n" + json.dumps(record).encode() + b"\n" + blob


def _swap_bank_idents(own: bytes, other: bytes) -> bytes:
    return _with_header(own, lambda r: r["parts"]["cc13"][0].__setitem__(3, "not a tuple"))


def _point_outside(own: bytes, other: bytes) -> bytes:
    """The assessment member said to end past the file's bytes."""
    return _with_header(own, lambda r: r["parts"]["cc13"][0][1].__setitem__(0, r["blob"]))


@pytest.mark.parametrize(
    "damage",
    [
        lambda path, other: path.write_bytes(path.read_bytes()[:-40]),  # truncated
        lambda path, other: path.write_bytes(path.read_bytes()[:-1] + bytes([path.read_bytes()[-1] ^ 1])),
        lambda path, other: path.write_bytes(b""),
        lambda path, other: path.unlink(),
        lambda path, other: path.write_bytes(other.read_bytes()),  # another file's, under this name
        lambda path, other: shutil.rmtree(path.parent),
    ],
    ids=["truncated", "edited", "empty", "missing", "another-file", "no-directory"],
)
def test_a_damaged_parts_file_is_not_trusted(bank: Path, tmp_path: Path, parts_made, damage) -> None:  # type: ignore[no-untyped-def]
    """Whatever happened to a parts file, the parts are made again (from its source, loaded
    again) and the cartridges are those of a build from scratch; the next build has them."""
    out = tmp_path / "dist"
    built(bank, out)
    victim, other = bank / "synth-0000.yaml", bank / "synth-0002.yaml"
    parts = cache_mod.parts_path(out)
    name = cache_mod.parts_file_name
    damage(parts / name(_name_of(out, victim)), parts / name(_name_of(out, other)))
    parts_made.clear()
    edit_stem(bank / "synth-0001.yaml")
    built(bank, out)
    assert "synth-0000" in ids_made(parts_made) and "synth-0001" in ids_made(parts_made)
    assert tree(out) == fresh(bank, tmp_path)
    assert len(parts_files(out)) == 4
    parts_made.clear()
    edit_stem(bank / "synth-0001.yaml")
    built(bank, out)
    assert ids_made(parts_made) == ["synth-0001"]


@pytest.mark.parametrize(
    "forge",
    [
        lambda own, other: other,  # a good parts file, of another source file
        lambda own, other: own.replace(b'"key":"', b'"key":"0', 1),  # of another build's key
        _swap_bank_idents,  # of the wrong shape
        _point_outside,  # a member beyond the file's bytes
        lambda own, other: own.replace(b'"dataclass":"Quiz"', b'"dataclass":"Path"', 1),
    ],
    ids=["other-source", "other-key", "wrong-shape", "outside", "not-our-class"],
)
def test_a_parts_file_named_by_a_forged_record_is_checked(
    bank: Path, tmp_path: Path, parts_made, forge
) -> None:  # type: ignore[no-untyped-def]
    """Even when the record and the file's name agree with its bytes (both rewritten), a parts
    file is used only for the source file, digest and key it names, with the shape of parts."""
    out = tmp_path / "dist"
    built(bank, out)
    victim, other = bank / "synth-0000.yaml", bank / "synth-0002.yaml"
    parts = cache_mod.parts_path(out)
    name = cache_mod.parts_file_name
    own = (parts / name(_name_of(out, victim))).read_bytes()
    _rename_parts_file(out, victim, forge(own, (parts / name(_name_of(out, other))).read_bytes()))
    parts_made.clear()
    edit_stem(bank / "synth-0001.yaml")
    built(bank, out)
    assert ids_made(parts_made) == ["synth-0000", "synth-0001"]
    assert tree(out) == fresh(bank, tmp_path)


def test_other_formats_or_source_date_epoch_make_every_part(
    bank: Path, tmp_path: Path, parts_made: list[tuple[str, str]]
) -> None:
    out = tmp_path / "dist"
    built(bank, out)
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    for args, environ, formats in [
        ((), env, 2),
        (("--format", "cc13"), env, 1),
        (("--format", "cc13", "--format", "cc11"), env, 2),
        ((), None, 2),
    ]:
        parts_made.clear()
        built(bank, out, *args, env=environ)
        assert len(parts_made) == 4 * formats and len(parts_files(out)) == 4, args
        parts_made.clear()
        edit_stem(bank / "synth-0001.yaml")
        built(bank, out, *args, env=environ)
        assert ids_made(parts_made) == ["synth-0001"] and len(parts_made) == formats, args
        scratch = fresh(bank, tmp_path, *args, env=environ)
        assert {rel: data for rel, data in tree(out).items() if rel in scratch} == scratch


def test_a_bank_with_assessments_and_images_rebuilds_from_parts(
    tmp_path: Path, parts_made: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seed bank: an assessment drawing from three of its four quizzes, images. After an
    edit the other quiz files the assessment draws from are loaded again (it needs their
    questions), the one it does not draw from is not (its recorded question headers say so),
    and no parts are made again; the outputs are those of a build from scratch."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "source", src)
    out = tmp_path / "dist"
    built(src, out)
    reloaded: list[str] = []
    original = build_mod.reload_file
    monkeypatch.setattr(
        build_mod, "reload_file", lambda path, *a: reloaded.append(path) or original(path, *a)
    )
    parts_made.clear()
    path = src / "zero-sharded-optimizers.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace('title: "', 'title: "new ', 1), encoding="utf-8")
    built(src, out)
    assert ids_made(parts_made) == ["zero-sharded-optimizers"]
    assert sorted(Path(p).name for p in reloaded) == [
        "deepspeed-megatron-stacks.yaml",
        "model-pipeline-parallelism.yaml",
    ]  # not zero-memory-arithmetic.yaml: no draw selects its questions
    assert tree(out) == fresh(src, tmp_path)


def test_cartridge_parts_survive_their_file() -> None:
    """A part read back from its JSON is the part (images with their names and bytes,
    compressed members, warnings): what cc_assemble makes of it is the same."""
    from lmsexport.source import load_file
    from lmsexport.writers import cc13

    quiz = load_file(ROOT / "source" / "zero-memory-arithmetic.yaml", [], None, None)
    assert quiz is not None
    parts = cc13.cc_parts(build_mod.Bank((quiz,)), build_mod.WriteContext(("cc13",)), "cc13")
    assert parts[0].media and parts[0].warnings
    back = cache_mod.decode(json.loads(json.dumps(cache_mod.encode(parts))))
    assert back == parts and repr(back) == repr(parts)
    assert [m.name for m in back[0].media.values()] == [m.name for m in parts[0].media.values()]
    ctx = build_mod.WriteContext(("cc13",))
    assert cc13.cc_assemble(back, (), ctx, "cc13").files == cc13.cc_assemble(parts, (), ctx, "cc13").files
    # The same through a parts file's layout (a JSON line, then the members' raw bytes).
    head = {"key": "k", "source": "s", "sha256": "d", "media": {}}
    data = cache_mod.parts_to_bytes(head, {"cc13": parts, "cc11": parts[:0]})
    header, made = cache_mod.parts_from_bytes(data)
    assert made == {"cc13": parts, "cc11": []}
    # (the members are views of the file's bytes, not copies: as bytes, the parts themselves)
    assert all(type(p.assessment.data) is memoryview for p in made["cc13"])

    def as_bytes(part: Any) -> Any:
        from dataclasses import replace

        def member(d: Any) -> Any:
            return None if d is None else replace(d, data=bytes(d.data))

        return replace(part, assessment=member(part.assessment), bank=member(part.bank))

    assert repr([as_bytes(p) for p in made["cc13"]]) == repr(parts)
    assert {k: header[k] for k in head} == head
    assert [m.name for m in made["cc13"][0].media.values()] == [m.name for m in parts[0].media.values()]
    assert (
        cc13.cc_assemble(made["cc13"], (), ctx, "cc13").files
        == cc13.cc_assemble(parts, (), ctx, "cc13").files
    )


def test_a_parts_file_lists_every_field_of_a_part() -> None:
    """The parts file's layout names CcPart's fields in order: a field added to CcPart must be
    added to it (else its parts would not survive their file)."""
    from dataclasses import fields

    from lmsexport.writers import cc13

    assert tuple(f.name for f in fields(cc13.CcPart)) == cache_mod._CC_PART_FIELDS


def test_an_image_in_a_quiz_description_is_recorded(tmp_path: Path) -> None:
    """A quiz header holding an image (bytes) goes into the record and index.html's digest
    (it once stopped the build with a TypeError)."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "source" / "img", src / "img")
    text = (ROOT / "source" / "zero-memory-arithmetic.yaml").read_text(encoding="utf-8")
    text = re.sub(r'(?m)^(description: ".*)"$', r'\1 ![diagram](img/1f1b-schedule.svg)"', text, count=1)
    assert "![diagram]" in text
    (src / "quiz.yaml").write_text(text, encoding="utf-8")
    shutil.copy(ROOT / "source" / "zero-sharded-optimizers.yaml", src)
    out = tmp_path / "dist"
    built(src, out)
    assert "(cached)" in built(src, out)
    edit_stem(src / "zero-sharded-optimizers.yaml")
    assert f"(1 of 2 {FROM_CACHE})" in built(src, out)
    assert tree(out) == fresh(src, tmp_path)


# ---------------------------------------------------------------------------- image files

PICS = """\
id: pics
title: "Pictures"
lang: en
markup: markdown
questions:
  - id: pics-dot
    type: true_false
    stem: "The dot is blue: ![a dot](img/dot.svg)"
    answer: true
    explanation: "It is #336699."
  - id: pics-schedule
    type: true_false
    stem: "The schedule has 4 stages: ![the schedule](img/1f1b-schedule.svg)"
    answer: true
    explanation: "GPU 0 to GPU 3."
"""
"""A quiz file showing an image of its own (img/dot.svg) and the one zero-memory-arithmetic
shows (img/1f1b-schedule.svg)."""

DOT = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">'
    b'<circle cx="10" cy="10" r="8" fill="#336699"/></svg>\n'
)


@pytest.fixture
def pictures(bank: Path) -> Path:
    """The four quizzes of ``bank``, zero-memory-arithmetic (its stem shows the schedule) and
    pics (the schedule and a dot): six quiz files, two using images, one image used by both."""
    shutil.copytree(ROOT / "source" / "img", bank / "img")
    shutil.copy(ROOT / "source" / "zero-memory-arithmetic.yaml", bank)
    (bank / "pics.yaml").write_text(PICS, encoding="utf-8")
    (bank / "img" / "dot.svg").write_bytes(DOT)
    return bank


def recolour(image: Path) -> None:
    """Another colour in an SVG: other bytes, the same size and the same name."""
    data = image.read_bytes()
    colour = re.search(rb'fill="#[0-9a-fA-F]{6}"', data)
    assert colour is not None
    image.write_bytes(data.replace(colour.group(0), b'fill="#123456"', 1))
    assert image.read_bytes() != data


def test_an_edited_image_rebuilds_the_outputs_that_show_it(pictures: Path, tmp_path: Path) -> None:
    """An image used by one quiz file: that quiz's outputs and the cartridges are made again
    (the others are left as they are), the same bytes as a build from scratch; --check agrees."""
    out = tmp_path / "dist"
    built(pictures, out)
    assert "(cached)" in built(pictures, out)
    before = stamps(out)
    recolour(pictures / "img" / "dot.svg")
    stdout = built(pictures, out)
    expected = of_quiz(before, "pics") | of_bank(before)
    assert len(of_quiz(before, "pics")) >= 5
    assert (
        f", {len(expected)} written, {len(before) - len(expected)} unchanged (5 of 6 {FROM_CACHE})" in stdout
    )
    after = stamps(out)
    assert {rel for rel in after if after[rel] != before[rel]} == expected
    assert tree(out) == fresh(pictures, tmp_path)
    assert "(cached)" in built(pictures, out)
    check = build(str(pictures), "--out", str(out), "--check")
    assert check.exit_code == 0, check.stderr


def test_an_image_used_by_two_quiz_files(pictures: Path, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    built(pictures, out)
    before = stamps(out)
    recolour(pictures / "img" / "1f1b-schedule.svg")
    stdout = built(pictures, out)
    expected = of_quiz(before, "pics") | of_quiz(before, "zero-memory-arithmetic") | of_bank(before)
    assert (
        f", {len(expected)} written, {len(before) - len(expected)} unchanged (4 of 6 {FROM_CACHE})" in stdout
    )
    after = stamps(out)
    assert {rel for rel in after if after[rel] != before[rel]} == expected
    assert tree(out) == fresh(pictures, tmp_path)
    assert "(cached)" in built(pictures, out)


def _replace_by_link(image: Path, tmp_path: Path) -> None:
    """The same bytes, through a link to a file outside the bank's folder."""
    outside = tmp_path / "elsewhere.svg"
    outside.write_bytes(image.read_bytes())
    image.unlink()
    image.symlink_to(outside)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda image, tmp: image.unlink(), "does not exist"),
        (lambda image, tmp: (image.unlink(), image.mkdir()), "is not a file"),
        (lambda image, tmp: image.write_bytes(b"GIF89a"), "is refused"),
        (lambda image, tmp: image.write_bytes(DOT + b" " * (2 * 1024 * 1024)), "the limit is"),
        (_replace_by_link, "leaves the bank's folder (through a link)"),
    ],
    ids=["deleted", "a-folder", "not-an-image", "too-large", "link-outside"],
)
def test_an_image_gone_or_refused_gives_the_loaders_error(  # type: ignore[no-untyped-def]
    pictures: Path, tmp_path: Path, damage, message: str
) -> None:
    """An image deleted or no longer acceptable: not a crash of the cache, but the loader's
    positioned error, exit 1, OUT and the record as they were; as from scratch (a link to a
    file elsewhere with the same bytes too: the record has the path it resolved to)."""
    out = tmp_path / "dist"
    built(pictures, out)
    before, record = tree(out), cache_mod.cache_path(out).read_bytes()
    image = pictures / "img" / "dot.svg"
    damage(image, tmp_path)
    result = build(str(pictures), "--out", str(out))
    assert result.exit_code == 1
    line = next(n for n, text in enumerate(PICS.splitlines(), 1) if "img/dot.svg" in text)
    where = f"{(pictures / 'pics.yaml').as_posix()}:{line}:"
    assert re.search(rf"(?m)^{re.escape(where)}\d+: error: stem: image 'img/dot\.svg' ", result.stderr)
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.rstrip().endswith("nothing written")
    assert tree(out) == before and cache_mod.cache_path(out).read_bytes() == record
    scratch = build(str(pictures), "--out", str(tmp_path / "scratch"))
    assert scratch.exit_code == 1 and scratch.stderr == result.stderr


def test_an_image_edited_and_put_back(pictures: Path, tmp_path: Path) -> None:
    """The record follows the bytes the outputs were made from: an image edited and put back
    between builds is built each time, and OUT is always that of a build from scratch."""
    out = tmp_path / "dist"
    image = pictures / "img" / "dot.svg"
    built(pictures, out)
    original = tree(out)
    recolour(image)
    assert f"(5 of 6 {FROM_CACHE})" in built(pictures, out)
    image.write_bytes(DOT)
    assert f"(5 of 6 {FROM_CACHE})" in built(pictures, out)
    assert tree(out) == original


def test_an_image_edited_while_the_build_runs(pictures: Path, tmp_path: Path) -> None:
    """An image edited after the cache hashed it: the outputs kept were made from the bytes
    recorded, so the next build finds the image changed; put back, they are up to date."""
    from lmsexport.stage import Stager

    out = tmp_path / "dist"
    built(pictures, out)
    sources = discover([pictures])
    pics = (pictures / "pics.yaml").as_posix()
    image = pictures / "img" / "dot.svg"
    rc = cache_mod.RebuildCache(out, build_mod.WRITERS, 315532800)
    rc.open(sources)
    assert rc.summary(pics) is not None
    recolour(image)
    stager = Stager(out)
    result = build_mod.build_files(
        sources, build_mod.WRITERS, 315532800, stager.add, reuse=rc, keep=stager.keep
    )
    assert pics in result.reused
    stager.commit(set())
    rc.save(result)
    again = cache_mod.RebuildCache(out, build_mod.WRITERS, 315532800)
    again.open(sources)
    assert again.summary(pics) is None
    assert again.summary((pictures / "synth-0000.yaml").as_posix()) is not None
    image.write_bytes(DOT)
    again = cache_mod.RebuildCache(out, build_mod.WRITERS, 315532800)
    again.open(sources)
    assert again.summary(pics) is not None


def test_an_edited_image_makes_the_parts_of_its_quiz_files(
    pictures: Path, tmp_path: Path, parts_made: list[tuple[str, str]]
) -> None:
    """The parts file of a quiz file names its images: after one changes, the parts of the
    quiz files that show it are made again (the others come from their files), and the next
    edit elsewhere uses the new parts files."""
    out = tmp_path / "dist"
    built(pictures, out)
    sources = discover([pictures])
    formats = ("cc13", "cc11")
    recolour(pictures / "img" / "1f1b-schedule.svg")
    rc = cache_mod.RebuildCache(out, build_mod.WRITERS, 315532800)
    rc.open(sources)
    users = {(pictures / f).as_posix() for f in ("pics.yaml", "zero-memory-arithmetic.yaml")}
    for path in sources:
        fresh_parts = rc.parts(path.as_posix(), formats)
        assert (fresh_parts is None) == (path.as_posix() in users), path
    parts_made.clear()
    built(pictures, out)
    assert ids_made(parts_made) == ["pics", "zero-memory-arithmetic"] and len(parts_made) == 4
    assert tree(out) == fresh(pictures, tmp_path)
    assert len(parts_files(out)) == 6
    parts_made.clear()
    edit_stem(pictures / "synth-0001.yaml")
    built(pictures, out)
    assert ids_made(parts_made) == ["synth-0001"]
    assert tree(out) == fresh(pictures, tmp_path)


def test_a_parts_file_of_other_images_is_not_used(pictures: Path, tmp_path: Path) -> None:
    """Even when the record says the images are as they are now (rewritten, checksum and all),
    a parts file made from other images than the record's is not used."""
    import hashlib

    out = tmp_path / "dist"
    built(pictures, out)
    pics = pictures / "pics.yaml"
    sources = discover([pictures])
    record_path = cache_mod.cache_path(out)
    record = json.loads(record_path.read_bytes().partition(b"\n")[2])
    unit = record["units"][f"source:{pics.as_posix()}"]
    dot = (pictures / "img" / "dot.svg").as_posix()
    recolour(pictures / "img" / "dot.svg")
    unit["media"][dot][0] = cache_mod.file_digest(pictures / "img" / "dot.svg")
    text = json.dumps(record).encode()
    record_path.write_bytes(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)
    rc = cache_mod.RebuildCache(out, build_mod.WRITERS, 315532800)
    rc.open(sources)
    assert rc.parts(pics.as_posix(), ("cc13", "cc11")) is None
    assert rc.parts((pictures / "synth-0000.yaml").as_posix(), ("cc13", "cc11")) is not None


def test_an_edited_image_in_a_bank_with_an_assessment(tmp_path: Path) -> None:
    """The seed bank: its assessment draws from every quiz, so the whole bank's outputs are made
    again; OUT is that of a build from scratch and --check agrees."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "source", src)
    out = tmp_path / "dist"
    built(src, out)
    recolour(src / "img" / "1f1b-schedule.svg")
    assert f"(4 of 5 {FROM_CACHE})" in built(src, out)
    assert tree(out) == fresh(src, tmp_path)
    check = build(str(src), "--out", str(out), "--check")
    assert check.exit_code == 0, check.stderr
    assert "(cached)" in built(src, out)


def test_an_image_read_twice_with_other_bytes_is_never_up_to_date() -> None:
    from lmsexport.source import merge_media

    media = {"a.svg": ("1" * 64, "/x/a.svg")}
    merge_media(media, {"a.svg": ("1" * 64, "/x/a.svg"), "b.svg": ("2" * 64, "/x/b.svg")})
    assert media == {"a.svg": ("1" * 64, "/x/a.svg"), "b.svg": ("2" * 64, "/x/b.svg")}
    merge_media(media, {"a.svg": ("3" * 64, "/x/a.svg")})
    assert media["a.svg"] == ("", "/x/a.svg")
    merge_media(media, {"a.svg": ("1" * 64, "/x/a.svg")})
    assert media["a.svg"] == ("", "/x/a.svg")


# ------------------------------------------------------------- issue 25: no-op and edit at 100,000


def _record(out: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(cache_mod.cache_path(out).read_bytes().partition(b"\n")[2])  # type: ignore[no-any-return]


def _write_record(out: Path, record: dict) -> None:  # type: ignore[type-arg]
    import hashlib

    text = json.dumps(record).encode()
    cache_mod.cache_path(out).write_bytes(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)


def test_a_build_in_process_leaves_the_collector_as_it_found_it(bank: Path, tmp_path: Path) -> None:
    """build freezes what the process holds once it has the rebuild cache (build.collector_spared)
    and undoes it when the command ends, in-process too. After a host program's own freeze it
    freezes nothing: a garbage cycle the host made afterwards is still collected."""
    import gc
    import weakref

    class Node:
        pass

    out = tmp_path / "dist"
    before = gc.get_freeze_count()
    built(bank, out)
    assert "(cached)" in built(bank, out)
    assert gc.get_freeze_count() == before
    gc.disable()  # (only the collect() below may find the cycle: not one before any freeze)
    gc.freeze()
    try:
        host = gc.get_freeze_count()
        assert host > 0
        cycle = Node()
        cycle.me = cycle  # type: ignore[attr-defined]
        alive = weakref.ref(cycle)
        del cycle
        assert "(cached)" in built(bank, out)
        gc.collect()
        assert alive() is None  # not frozen by the build
        assert gc.get_freeze_count() > 0  # the host's freeze stays
    finally:
        gc.unfreeze()
        gc.enable()


def test_an_unchanged_record_is_left_unwritten(bank: Path, tmp_path: Path) -> None:
    """The first rebuild after a build finds its outputs racily clean (written after it
    started), hashes them and writes the record again; from then on a rebuild that changes
    nothing leaves the record as it is."""
    out = tmp_path / "dist"
    built(bank, out)
    assert "(cached)" in built(bank, out)
    record = cache_mod.cache_path(out)
    before = record.stat()
    assert "(cached)" in built(bank, out)
    after = record.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    edit_stem(bank / "synth-0001.yaml")
    assert FROM_CACHE in built(bank, out)
    assert record.stat().st_mtime_ns != before.st_mtime_ns


def test_a_settled_source_is_not_read_again(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source with the size, mtime, ctime and inode recorded, all before the recording build
    started, keeps its recorded digest unread; one edited since is read."""
    out = tmp_path / "dist"
    built(bank, out)
    built(bank, out)  # now every file predates the record's start
    hashed: list[str] = []
    original = cache_mod.file_digest
    monkeypatch.setattr(cache_mod, "file_digest", lambda p: hashed.append(Path(p).name) or original(p))
    assert "(cached)" in built(bank, out)
    assert not [name for name in hashed if name.endswith(".yaml")]
    edit_stem(bank / "synth-0002.yaml")
    hashed.clear()
    assert f"(3 of 4 {FROM_CACHE})" in built(bank, out)
    assert "synth-0002.yaml" in hashed and "synth-0001.yaml" not in hashed
    assert tree(out) == fresh(bank, tmp_path)


@pytest.mark.parametrize("settled", [False, True], ids=["same-tick", "settled"])
def test_a_source_edited_with_the_same_size_and_mtime_is_rebuilt(
    bank: Path, tmp_path: Path, settled: bool
) -> None:
    """settled: the edit moves the file's ctime (nothing can set it back), so its times are not
    those recorded: it is read. same-tick: an edit in the very clock tick the build stat'ed the
    file leaves even ctime as recorded; the record is made to hold the edited file's times (as
    the build would have seen them): they are not earlier than that build's start, so the file
    is read (git's "racily clean" entries) and the edit found."""
    out = tmp_path / "dist"
    built(bank, out)
    built(bank, out)
    source = bank / "synth-0001.yaml"
    _same_size_same_mtime_edit(source)
    if not settled:
        record = _record(out)
        st = source.stat()
        entry = record["sources"][source.as_posix()]
        entry["stat"] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        assert record["started"] > 0
        record["started"] = min(record["started"], st.st_mtime_ns)
        _write_record(out, record)
    stdout = built(bank, out)
    assert f"(3 of 4 {FROM_CACHE})" in stdout
    assert tree(out) == fresh(bank, tmp_path)


def test_a_duplicate_id_from_an_edit_names_both_positions(bank: Path, tmp_path: Path) -> None:
    """The reused files' ids are checked against the edited file's without their positions;
    a collision then reports both, as a build from scratch does: the quiz id of an unchanged
    file taken (in other letter case) by the edited one, and a question id."""
    out = tmp_path / "dist"
    built(bank, out)
    built(bank, out)
    path = bank / "synth-0002.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("id: synth-0002", "id: SYNTH-0000", 1).replace(
        "id: s0002-q0004", "id: s0001-q0007", 1
    )
    path.write_text(text, encoding="utf-8")
    incremental = build(str(bank), "--out", str(out))
    scratch = tmp_path / "scratch"
    full = build(str(bank), "--out", str(scratch))
    assert incremental.exit_code == full.exit_code == 1
    assert incremental.stderr == full.stderr.replace(str(scratch), str(out))
    other = (bank / "synth-0001.yaml").read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(other, 1) if t.endswith("id: s0001-q0007"))
    edited = text.splitlines()
    at = next(i for i, t in enumerate(edited, 1) if t.endswith("id: s0001-q0007"))
    assert f"{path}:{at}:" in incremental.stderr
    assert f"(first defined at {bank / 'synth-0001.yaml'}:{line}:" in incremental.stderr
    assert "differs only by letter case from 'synth-0000'" in incremental.stderr


POOLED = """\
id: pooled-exam
title: "Pooled"
lang: en
sections:
  - title: "One"
    draws:
      - name: marked
        pick: 1
        from:
          tags: [marked]
"""


def _tag_first_question(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    stem: ", "    tags: [marked]\n    stem: ", 1), encoding="utf-8")


def test_an_assessment_loads_only_the_quiz_files_it_draws_from(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit, the unchanged quiz files whose recorded question headers no draw selects
    are not loaded again; when the edit makes a pool gain a question of another file, the
    assessment's outputs change, and they are those of a build from scratch."""
    _tag_first_question(bank / "synth-0000.yaml")
    (bank / "exam.yaml").write_text(POOLED, encoding="utf-8")
    out = tmp_path / "dist"
    built(bank, out)
    loaded: list[str] = []
    original = build_mod.reload_file
    monkeypatch.setattr(
        build_mod, "reload_file", lambda path, *a: loaded.append(Path(path).name) or original(path, *a)
    )
    edit_stem(bank / "synth-0002.yaml")
    built(bank, out)
    assert loaded == ["synth-0000.yaml"]  # the only file the pool draws from
    assert tree(out) == fresh(bank, tmp_path)
    before = tree(out)
    loaded.clear()
    _tag_first_question(bank / "synth-0001.yaml")  # the pool gains a question of another file
    built(bank, out)
    assert loaded == ["synth-0000.yaml"]
    after = tree(out)
    assert after == fresh(bank, tmp_path)
    exam = {rel for rel in after if "pooled-exam" in rel}
    assert exam and any(after[rel] != before.get(rel) for rel in exam)


def test_an_assessment_problem_after_an_edit_has_the_messages_of_a_full_build(
    bank: Path, tmp_path: Path
) -> None:
    """A pool left empty by an edit: its hint (a did-you-mean over the whole bank's tags) is
    that of a build from scratch, although the files it drew from were not all loaded."""
    _tag_first_question(bank / "synth-0000.yaml")
    (bank / "exam.yaml").write_text(POOLED, encoding="utf-8")
    out = tmp_path / "dist"
    built(bank, out)
    path = bank / "synth-0000.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("tags: [marked]", "tags: [marke]"), "utf-8")
    incremental = build(str(bank), "--out", str(out))
    scratch = tmp_path / "scratch"
    full = build(str(bank), "--out", str(scratch))
    assert incremental.exit_code == full.exit_code == 1
    assert "selects no question" in incremental.stderr
    assert incremental.stderr == full.stderr.replace(str(scratch), str(out))


def test_a_quiz_of_descriptions_only_stays_out_of_the_cartridge_after_an_edit(tmp_path: Path) -> None:
    """CcPart.empty (a quiz the cartridge profiles cannot hold: only descriptions) survives its
    parts file: after an edit of another quiz, the cartridges are those of a build from scratch
    (before `empty` was in the parts file's layout, the reused part came back not empty)."""
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "intro.yaml").write_text(
        "id: intro\ntitle: Intro\nlang: en\nquestions:\n"
        "  - id: intro-text\n    type: description\n    stem: Read the case first.\n",
        encoding="utf-8",
    )
    quiz = (
        "id: q\ntitle: Q\nlang: en\nquestions:\n  - id: q1\n    type: true_false\n"
        "    stem: ZeRO-3 partitions the parameters.\n    answer: true\n"
    )
    (bank / "q.yaml").write_text(quiz, encoding="utf-8")
    out = tmp_path / "dist"
    built(bank, out)
    (bank / "q.yaml").write_text(quiz.replace("partitions", "shards"), encoding="utf-8")
    assert f"(1 of 2 {FROM_CACHE})" in built(bank, out)
    assert tree(out) == fresh(bank, tmp_path)


def test_an_edit_records_the_unchanged_files_headers_as_read(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit the record names every file's quiz header again: the reused files' as the
    last record had them (RebuildCache.headers), not encoded again; only the edited file's is
    encoded. The record it writes serves the next build (a no-op from it)."""
    out = tmp_path / "dist"
    built(bank, out)
    edit_stem(bank / "synth-0002.yaml")
    encoded: list[str] = []
    encode = cache_mod.encode

    def counted(value: object) -> object:
        # (the record's headers only: index.html's digest and the parts files encode theirs)
        if isinstance(value, Quiz) and sys._getframe(1).f_code.co_name == "_header":
            encoded.append(value.id)
        return encode(value)

    monkeypatch.setattr(cache_mod, "encode", counted)
    assert "(3 of 4 " in built(bank, out)
    assert encoded == ["synth-0002"]
    monkeypatch.setattr(cache_mod, "encode", encode)
    assert "(cached)" in built(bank, out)
    assert tree(out) == fresh(bank, tmp_path)


# ------------------------------------------------------------------ a no-op's printed warnings


@pytest.fixture
def warned(tmp_path: Path) -> Path:
    """A bank whose build warns a lot: the real-shaped synthetic one (what Canvas, GIFT and the
    cartridges cannot carry, named per question), in four files."""
    src = tmp_path / "warned"
    src.mkdir()
    rng = random.Random(5)
    for i in range(4):
        (src / f"synth-{i:04d}.yaml").write_text(synth.make_quiz(i, 40, rng, synth.real_kinds()), "utf-8")
    return src


def test_a_no_op_prints_the_recorded_text_and_decodes_no_warning(
    warned: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a no-op prints is byte for byte what the build it repeats printed, and it is the
    recorded text: not one recorded warning is decoded."""
    out = tmp_path / "dist"
    first = build(str(warned), "--out", str(out))
    assert first.exit_code == 0 and first.stderr.count(": warning: ") > 200
    [printed] = cache_mod.parts_path(out).glob("*.printed")
    assert printed.read_text(encoding="utf-8") == first.stderr

    def refuse(self: object) -> None:
        raise AssertionError("a no-op decoded recorded warnings")

    monkeypatch.setattr(cache_mod.RecordedWarnings, "decode", refuse)
    again = build(str(warned), "--out", str(out))
    assert "(cached)" in again.stdout and again.stderr == first.stderr
    # An edit prints the other files' warnings as they were printed (their blocks of the
    # recorded text, copied: not one decoded) among the edited file's, as a build from scratch
    # prints them all; the no-op after it prints that build's text.
    edit_stem(sorted(warned.glob("*.yaml"))[1])
    partly = build(str(warned), "--out", str(out))
    monkeypatch.undo()
    scratch = tmp_path / "scratch"
    full = build(str(warned), "--out", str(scratch))
    assert FROM_CACHE in partly.stdout and partly.stderr == full.stderr.replace(str(scratch), str(out))
    monkeypatch.setattr(cache_mod.RecordedWarnings, "decode", refuse)
    assert build(str(warned), "--out", str(out)).stderr == partly.stderr
    # and so does the next edit, of another file
    edit_stem(sorted(warned.glob("*.yaml"))[2])
    again = build(str(warned), "--out", str(out))
    monkeypatch.undo()
    full = build(str(warned), "--out", str(scratch))
    assert FROM_CACHE in again.stdout and again.stderr == full.stderr.replace(str(scratch), str(out))
    assert len(list(cache_mod.parts_path(out).glob("*.printed"))) == 1  # the old one removed


def test_a_damaged_printed_file_is_not_printed(warned: Path, tmp_path: Path) -> None:
    """The printed file is trusted by its times, else by its sha256 (its name): one edited by
    hand is not printed, the warnings are decoded and printed instead, and the file written
    again."""
    out = tmp_path / "dist"
    first = build(str(warned), "--out", str(out))
    [printed] = cache_mod.parts_path(out).glob("*.printed")
    assert build(str(warned), "--out", str(out)).stderr == first.stderr  # its times now settled
    data = printed.read_bytes()
    printed.write_bytes(data.replace(b"warning", b"WARNING", 1))
    again = build(str(warned), "--out", str(out))
    assert "(cached)" in again.stdout and again.stderr == first.stderr
    assert printed.read_bytes() == data
    assert build(str(warned), "--out", str(out)).stderr == first.stderr


def _rewrite_record(out: Path, change: Callable[[dict[str, Any]], None]) -> None:
    import hashlib

    record_path = cache_mod.cache_path(out)
    record = json.loads(record_path.read_bytes().partition(b"\n")[2])
    change(record)
    text = json.dumps(record, ensure_ascii=False).encode()
    record_path.write_bytes(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)


def _forge_warnings(out: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Change the recorded warnings file's units (given to ``change`` as unit -> [how many
    the loader's, their JSON text]) and name the new file in the record (with its checksum
    made again): what a forger, or a bug of save, could leave. An entry ``change`` leaves of
    another shape goes into the file's index as it is."""
    import hashlib

    record = json.loads(cache_mod.cache_path(out).read_bytes().partition(b"\n")[2])
    old = cache_mod.parts_path(out) / cache_mod.warnings_file_name(record["warnings"]["name"])
    found = cache_mod.WarningsFile.from_bytes(old.read_bytes())
    units: dict[str, Any] = {}
    for unit in found.index:
        n_source, _, text = found.entry(unit)
        units[unit] = [n_source, bytes(text).decode("utf-8")]
    change(units)
    index: dict[str, Any] = {}
    body = b""
    for unit, entry in units.items():
        if type(entry) is list and len(entry) == 2 and type(entry[1]) is str:
            text = entry[1].encode("utf-8")
            try:
                count = len(json.loads(text))
            except (ValueError, TypeError, RecursionError):
                count = 0
            index[unit] = [entry[0], count, len(body), len(text)]
            body += text
        else:
            index[unit] = entry
    data = json.dumps(index).encode() + b"\n" + body
    name = hashlib.sha256(data).hexdigest()
    (cache_mod.parts_path(out) / cache_mod.warnings_file_name(name)).write_bytes(data)
    _rewrite_record(out, lambda r: r["warnings"].update(name=name))


def test_the_printed_text_is_of_the_recorded_warnings(warned: Path, tmp_path: Path) -> None:
    """The record binds its printed text to the warnings file it was made from: with another
    warnings file named (one file's warnings changed, the record's checksum made again), the
    text is not printed; the warnings the record now has are."""
    out = tmp_path / "dist"
    first = build(str(warned), "--out", str(out))
    key = sorted(warned.glob("*.yaml"))[0].as_posix()
    claimed = [key, 1, 1, "a warning only the record has", "warning", "loss", None]

    def claim(units: dict[str, Any]) -> None:
        n_source, text = units["source:" + key]
        units["source:" + key] = [n_source + 1, json.dumps([claimed, *json.loads(text)])]

    _forge_warnings(out, claim)
    again = build(str(warned), "--out", str(out))
    assert "(cached)" in again.stdout
    assert again.stderr == f"{key}:1:1: warning: a warning only the record has\n" + first.stderr


@pytest.mark.parametrize(
    "bad",
    [
        [0, "[[1, 2, 3]]"],
        [0, '[["p", "1", 1, "m", "warning", "r", null]]'],
        [0, '[["p", 1, 1, "m", "fatal", "r", null]]'],
        [0, '[["p", 1, 1, "m", "warning", "r", 7]]'],
        [0, "not json"],
        [0, "{}"],
        [0, "[" * 100_000],
        [5, "[]"],
        [-1, "[]"],
        ["0", "[]"],
        [0, []],
        "[]",
        None,
    ],
    ids=["short", "line-not-int", "fatal", "hint-not-str", "not-json", "not-a-list", "deep",
         "more-loader-than-all", "negative", "count-not-int", "not-a-text", "not-an-entry", "none"],
)  # fmt: skip
def test_recorded_warnings_that_do_not_decode_mean_building_the_file(
    warned: Path, tmp_path: Path, bad: Any
) -> None:
    out = tmp_path / "dist"
    first = build(str(warned), "--out", str(out))
    key = sorted(warned.glob("*.yaml"))[0].as_posix()
    _forge_warnings(out, lambda units: units.update({"source:" + key: bad}))
    again = build(str(warned), "--out", str(out))
    assert again.exit_code == 0 and f"(3 of 4 {FROM_CACHE})" in again.stdout
    assert again.stderr == first.stderr
    assert tree(out) == fresh(warned, tmp_path)


def test_recorded_bank_warnings_that_do_not_decode_mean_making_the_bank_outputs(
    warned: Path, tmp_path: Path
) -> None:
    out = tmp_path / "dist"
    first = build(str(warned), "--out", str(out))
    _forge_warnings(out, lambda units: units.update(bank=[0, "[7]"]))
    again = build(str(warned), "--out", str(out))
    assert again.exit_code == 0 and "(cached)" not in again.stdout and again.stderr == first.stderr
    assert tree(out) == fresh(warned, tmp_path)


@pytest.mark.parametrize("damage", ["edited", "deleted"])
def test_a_damaged_warnings_file_means_building_what_needs_it(
    warned: Path, tmp_path: Path, damage: str
) -> None:
    """The warnings file is read only when a build needs the recorded warnings: a no-op
    prints the recorded text without it; an edit that finds it damaged (trusted by its
    times, else by its sha256) builds every file, as without a record."""
    out = tmp_path / "dist"
    first = build(str(warned), "--out", str(out))
    assert "(cached)" in built(warned, out)  # its times settled
    [file] = cache_mod.parts_path(out).glob("*.warnings")
    if damage == "edited":
        file.write_bytes(file.read_bytes().replace(b"warning", b"WARNING", 1))
    else:
        file.unlink()
    again = build(str(warned), "--out", str(out))
    assert "(cached)" in again.stdout and again.stderr == first.stderr
    edit_stem(sorted(warned.glob("*.yaml"))[1])
    edited = build(str(warned), "--out", str(out))
    scratch = tmp_path / "scratch"
    full = build(str(warned), "--out", str(scratch))
    assert edited.exit_code == 0 and FROM_CACHE not in edited.stdout
    assert edited.stderr == full.stderr.replace(str(scratch), str(out))
    assert tree(out) == tree(scratch)
    assert "(cached)" in built(warned, out)


@pytest.mark.parametrize(
    "forged",
    [
        None,
        {"name": 5, "of": "", "stat": None, "blocks": {}},
        {"name": "", "of": "0" * 64, "stat": None, "blocks": {}},
        {"name": "f" * 64, "of": None, "stat": None, "blocks": {}},
        {"name": "../x", "of": None, "stat": None, "blocks": {}},
        {"name": ""},
        [1, 2],
    ],
    ids=["none", "name-not-str", "empty-other-of", "no-file", "not-a-digest", "keys", "list"],
)
def test_a_printed_record_of_the_wrong_shape_is_not_printed(
    warned: Path, tmp_path: Path, forged: Any
) -> None:
    """A forged "printed" never crashes a no-op nor is printed: the warnings are decoded."""
    out = tmp_path / "dist"
    first = build(str(warned), "--out", str(out))
    of = json.loads(cache_mod.cache_path(out).read_bytes().partition(b"\n")[2])["printed"]["of"]
    if isinstance(forged, dict) and forged.get("of") is None and "of" in forged:
        forged["of"] = of  # (the right digest: only the file is wrong)
    _rewrite_record(out, lambda r: r.update(printed=forged))
    again = build(str(warned), "--out", str(out))
    assert again.exit_code == 0 and "(cached)" in again.stdout and again.stderr == first.stderr


_PATHS = ["a.yaml", "b.yaml", "b.yaml.x", "c/d.yaml", "ü.yaml", "ا.yaml"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_PATHS),
            st.integers(1, 4),
            st.integers(1, 3),
            st.sampled_from(["m", "n", "سوال 'q1'", "x \udc80", ""]),
            st.sampled_from(list(Severity)),
            st.sampled_from([None, "fix it", "ہ"]),
        ),
        max_size=30,
    ),
    st.sets(st.sampled_from(_PATHS)),
)
def test_printing_with_kept_blocks_prints_what_printing_all_does(
    listed: list[tuple[str, int, int, str, Severity, str | None]], kept: set[str]
) -> None:
    """report.printed: the text of any diagnostics is that of every one formatted a line in
    order of place (as UTF-8, backslash-escaped where it cannot be), with one block a path;
    and the diagnostics at some paths left out, their blocks of that text given instead, it
    prints the same bytes with the same blocks."""
    from lmsexport.errors import Diagnostic
    from lmsexport.model import SourceLoc
    from lmsexport.report import printed

    diags = [Diagnostic(SourceLoc(p, line, col), m, sev, "r", hint) for p, line, col, m, sev, hint in listed]
    whole = printed(diags)
    expected = "".join(f"{d.format()}\n" for d in sorted(diags, key=Diagnostic.sort_key))
    assert whole.text == expected.encode("utf-8", "backslashreplace")
    assert set(whole.blocks) == {d.loc.path for d in diags}
    for path, (start, length) in whole.blocks.items():
        assert {line.split(":")[0] for line in whole.text[start : start + length].decode().splitlines()} <= {
            path,
            "hint",
        }
    text = whole.text
    view = memoryview(text)
    blocks = [(p, view[a : a + n]) for p, (a, n) in whole.blocks.items() if p in kept]
    rest = printed([d for d in diags if d.loc.path not in kept], blocks)
    assert rest.text == text and rest.blocks == whole.blocks and rest.size == len(text)
    # Printed.is_text compares piece by piece: the text itself, and nothing else
    assert rest.is_text(text) and whole.is_text(text)
    assert not rest.is_text(text + b"x")
    if text:
        assert not rest.is_text(bytes([text[0] ^ 1]) + text[1:])
        assert not rest.is_text(text[:-1] + bytes([text[-1] ^ 1]))
    swapped = b"".join(reversed(rest.chunks))  # every piece there, in another order
    assert rest.is_text(swapped) is (swapped == text)


def _blocks_forged(out: Path, change: Callable[[dict[str, Any]], None]) -> None:
    _rewrite_record(out, lambda r: change(r["printed"]["blocks"]))


@pytest.mark.parametrize(
    "forge",
    [
        lambda b: b.clear() or b.update(units=[]),  # (the key of no unit)
        lambda b: [b.__setitem__(u, None) for u in list(b)],
        lambda b: [b.__setitem__(u, [[p, a, n + 10**9] for p, a, n in v]) for u, v in b.items()],
        lambda b: [b.__setitem__(u, [[p, -1, n] for p, a, n in v]) for u, v in b.items()],
        lambda b: [b.__setitem__(u, [[p, a, 0] for p, a, n in v]) for u, v in b.items()],
        lambda b: [b.__setitem__(u, [[7, a, n] for p, a, n in v]) for u, v in b.items()],
        lambda b: [b.__setitem__(u, [[p, str(a), n] for p, a, n in v]) for u, v in b.items()],
        lambda b: [b.__setitem__(u, [[p, a] for p, a, n in v]) for u, v in b.items()],
    ],
    ids=["no-unit", "none", "past-the-end", "negative", "empty", "path-not-str", "start-not-int", "short"],
)
def test_printed_blocks_of_the_wrong_shape_mean_decoding_the_warnings(
    warned: Path, tmp_path: Path, forge: Callable[[dict[str, Any]], None]
) -> None:
    """An edit copies a file's recorded blocks only if they are of the shape it writes: any
    other and that file's warnings are decoded, and the build prints what a build from
    scratch prints."""
    out = tmp_path / "dist"
    built(warned, out)
    _blocks_forged(out, forge)
    edit_stem(sorted(warned.glob("*.yaml"))[1])
    edited = build(str(warned), "--out", str(out))
    scratch = tmp_path / "scratch"
    full = build(str(warned), "--out", str(scratch))
    assert edited.exit_code == 0 and FROM_CACHE in edited.stdout and "Traceback" not in edited.stderr
    assert edited.stderr == full.stderr.replace(str(scratch), str(out))
    assert tree(out) == tree(scratch)


@pytest.mark.parametrize("first", ["build", "parts"])
def test_a_lone_files_build_in_two_workers_prints_its_cartridge_losses(
    warned: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """An edit of one file is built in two workers, its parts in the second: the parts'
    warnings (what the cartridges lose of its questions) are the file's, whichever worker's
    result comes first, and the build prints what a build from scratch prints."""
    out = tmp_path / "dist"
    built(warned, out)
    monkeypatch.setenv("LMSEXPORT_JOBS", "2")
    monkeypatch.setattr(build_mod, "POOL_MIN_BYTES", 0)
    run_pool = build_mod._run_pool

    def in_order(tasks: list[Any], jobs: int, take: Callable[[Any], None], **kwargs: Any) -> None:
        if len(tasks) != 2 or {fn for _, fn, _ in tasks} != {build_mod.build_file, build_mod.reload_file}:
            return run_pool(tasks, jobs, take, **kwargs)
        held: list[Any] = []
        wanted = build_mod.build_file if first == "build" else build_mod.reload_file
        run_pool(tasks, jobs, held.append, **kwargs)
        for fr in sorted(held, key=lambda fr: fr.reloaded != (wanted is build_mod.reload_file)):
            take(fr)

    monkeypatch.setattr(build_mod, "_run_pool", in_order)
    edit_stem(sorted(warned.glob("*.yaml"))[1])
    edited = build(str(warned), "--out", str(out))
    monkeypatch.undo()
    scratch = tmp_path / "scratch"
    full = build(str(warned), "--out", str(scratch))
    assert FROM_CACHE in edited.stdout and ": warning: question 's0001-" in edited.stderr
    assert edited.stderr == full.stderr.replace(str(scratch), str(out))
    assert tree(out) == tree(scratch)


def _shift(b: dict[str, Any]) -> None:
    unit = next(u for u, v in b.items() if v)
    path, start, length = b[unit][0]
    b[unit][0] = [path, start + 1, length - 1]


def _twice(b: dict[str, Any]) -> None:
    unit = next(u for u, v in b.items() if v)
    b[unit].append(b[unit][0])


def _swap(b: dict[str, Any]) -> None:
    first, second = [u for u, v in b.items() if v and u.startswith("source:")][:2]
    (p1, *at1), (p2, *at2) = b[first][0], b[second][0]
    b[first][0], b[second][0] = [p1, *at2], [p2, *at1]


def _other(b: dict[str, Any]) -> None:
    first, second = [u for u, v in b.items() if v and u.startswith("source:")][:2]
    b[first].append(b[second][0])


def _none(b: dict[str, Any]) -> None:
    unit = next(u for u, v in b.items() if v and u.startswith("source:"))
    b[unit] = []


def _half(b: dict[str, Any]) -> None:
    unit = next(u for u, v in b.items() if v and u.startswith("source:"))
    path, start, length = b[unit][0]
    b[unit][0] = [path, start, length // 2]


@pytest.mark.parametrize(
    "forge",
    [_shift, _twice, _swap, _other, _none, _half],
    ids=["shift", "twice", "swap", "other", "none", "half"],
)
def test_printed_blocks_of_the_right_shape_but_not_whole_lines_are_not_copied(
    warned: Path, tmp_path: Path, forge: Callable[[dict[str, Any]], None]
) -> None:
    """Blocks of the shape save writes but not what it would write (a bug of save): one that
    does not start at a line of its path, or not end at the end of its path's lines, a path
    twice in a file's blocks or in two files', no block for a file with warnings. That file's
    warnings are decoded (or the files' that claim one path), and the edit prints what a build
    from scratch prints."""
    out = tmp_path / "dist"
    built(warned, out)
    _blocks_forged(out, forge)
    edit_stem(sorted(warned.glob("*.yaml"))[3])
    edited = build(str(warned), "--out", str(out))
    scratch = tmp_path / "scratch"
    full = build(str(warned), "--out", str(scratch))
    assert edited.exit_code == 0 and FROM_CACHE in edited.stdout
    assert edited.stderr == full.stderr.replace(str(scratch), str(out))


def _noting_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files read by Path.read_bytes from now on (until monkeypatch.undo)."""
    import pathlib

    reads: list[str] = []
    read_bytes = pathlib.Path.read_bytes

    def noting(self: pathlib.Path) -> bytes:
        reads.append(self.name)
        return read_bytes(self)

    monkeypatch.setattr(pathlib.Path, "read_bytes", noting)
    return reads


def test_a_damaged_printed_file_is_read_once_by_an_edit(
    warned: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A printed file found not as recorded (its times and its sha256) is not read again for
    every file whose blocks an edit asks for."""
    out = tmp_path / "dist"
    built(warned, out)
    assert "(cached)" in built(warned, out)  # its times settled
    [printed] = cache_mod.parts_path(out).glob("*.printed")
    printed.write_bytes(printed.read_bytes() + b"x")
    reads = _noting_reads(monkeypatch)
    edit_stem(sorted(warned.glob("*.yaml"))[1])
    edited = build(str(warned), "--out", str(out))
    monkeypatch.undo()
    scratch = tmp_path / "scratch"
    full = build(str(warned), "--out", str(scratch))
    assert edited.stderr == full.stderr.replace(str(scratch), str(out))
    assert reads.count(printed.name) == 1


def test_an_edit_that_copies_and_decodes_nothing_does_not_read_the_warnings_file(
    warned: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every quiz file edited (so none reused) and index.html kept: the warnings file is not
    read, for no unit needs its recorded warnings (index.html's are its own)."""
    out = tmp_path / "dist"
    built(warned, out)
    assert list(cache_mod.parts_path(out).glob("*.warnings"))
    reads = _noting_reads(monkeypatch)
    for path in sorted(warned.glob("*.yaml")):
        edit_stem(path)
    edited = build(str(warned), "--out", str(out))
    monkeypatch.undo()
    assert edited.exit_code == 0 and FROM_CACHE not in edited.stdout
    assert not [name for name in reads if name.endswith(".warnings")]
    assert tree(out) == fresh(warned, tmp_path)


def test_a_copied_file_whose_blocks_meet_this_builds_warnings_is_decoded(
    warned: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file's blocks are copied only where no warning of this build is at their paths: a
    file whose recorded blocks claim the path of the edited file (a block another build's
    warnings would be printed among) is decoded, its warnings printed in their place."""
    out = tmp_path / "dist"
    built(warned, out)
    first, edited_file = sorted(warned.glob("*.yaml"))[:2]
    unit = "source:" + first.as_posix()

    def claim(blocks: dict[str, Any]) -> None:
        path, start, length = blocks[unit][0]
        blocks[unit].append([edited_file.as_posix(), start, length])

    _blocks_forged(out, claim)
    decoded: list[str] = []
    decode = cache_mod.RecordedWarnings.decode

    def noting(self: cache_mod.RecordedWarnings) -> Any:
        decoded.append(self.unit)
        return decode(self)

    monkeypatch.setattr(cache_mod.RecordedWarnings, "decode", noting)
    edit_stem(edited_file)
    edited = build(str(warned), "--out", str(out))
    scratch = tmp_path / "scratch"
    full = build(str(warned), "--out", str(scratch))
    assert decoded == [unit]
    assert edited.exit_code == 0 and edited.stderr == full.stderr.replace(str(scratch), str(out))


def test_the_warnings_file_holds_each_units_text_as_it_is(warned: Path, tmp_path: Path) -> None:
    """The warnings file's index names where each unit's text is; an edit writes the other
    units' texts again byte for byte, and every text decodes to its unit's count, the
    cartridges' losses of a quiz among its own file's warnings (no parts file keeps any)."""
    out = tmp_path / "dist"
    built(warned, out)
    [before] = cache_mod.parts_path(out).glob("*.warnings")
    old = cache_mod.WarningsFile.from_bytes(before.read_bytes())
    edited_file = sorted(warned.glob("*.yaml"))[1]
    edit_stem(edited_file)
    built(warned, out)
    [after] = cache_mod.parts_path(out).glob("*.warnings")
    new = cache_mod.WarningsFile.from_bytes(after.read_bytes())
    assert new.index.keys() == old.index.keys()
    for unit in new.index:
        n_source, count, text = new.entry(unit)
        listed = json.loads(bytes(text))
        assert len(listed) == count and 0 <= n_source <= count
        if unit.startswith("source:"):
            assert any(d[5].startswith("cc13.") for d in listed)
        if unit not in ("source:" + edited_file.as_posix(), "bank"):
            assert bytes(text) == bytes(old.entry(unit)[2])
    for parts_file in cache_mod.parts_path(out).glob("*.parts"):
        _, made = cache_mod.parts_from_bytes(parts_file.read_bytes())
        assert all(part.warnings == [] for parts in made.values() for part in parts)


def test_an_unchanged_record_and_its_printed_file_are_left_unwritten(warned: Path, tmp_path: Path) -> None:
    """As test_an_unchanged_record_is_left_unwritten, for a bank with warnings: the printed
    and warnings files, written after the build that records them started, are hashed by the
    next build, which records their times; from then on none of them is written again."""
    out = tmp_path / "dist"
    built(warned, out)
    assert "(cached)" in built(warned, out)
    record = cache_mod.cache_path(out)
    [printed] = cache_mod.parts_path(out).glob("*.printed")
    before = [record.stat(), printed.stat()]
    [warnings] = cache_mod.parts_path(out).glob("*.warnings")
    before.append(warnings.stat())
    for _ in range(2):
        assert "(cached)" in built(warned, out)
        after = [record.stat(), printed.stat(), warnings.stat()]
        assert [(s.st_ino, s.st_mtime_ns) for s in after] == [(s.st_ino, s.st_mtime_ns) for s in before]


@pytest.mark.parametrize(
    ("encoding", "linesep"), [("utf-8", "\n"), ("ascii", "\n"), ("latin-1", "\n"), ("utf-8", "\r\n")]
)
def test_printed_bytes_read_as_the_text_would(
    encoding: str, linesep: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The printed text is kept as UTF-8 bytes, encoded as standard error encodes (errors
    replaced by backslash escapes); written to a standard error of any encoding, they read as
    the text itself written there would (a stream that writes "\\n" as "\\r\\n" included, as
    on Windows)."""
    import io

    from lmsexport import cli

    text = "a.yaml:1:1: warning: سوال 'q1' ¿ \udc80\nb.yaml:2:1: warning: two\n"

    def written(write: Callable[[], None]) -> bytes:
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="backslashreplace", newline=linesep)
        monkeypatch.setattr(sys, "stderr", stream)
        monkeypatch.setattr(os, "linesep", linesep)
        write()
        stream.flush()
        monkeypatch.undo()
        return raw.getvalue()

    expected = written(lambda: sys.stderr.write(text))
    data = text.encode("utf-8", "backslashreplace")
    assert written(lambda: cli._write_utf8([data])) == expected
    # in pieces (report.Printed.chunks), one of them a view, one cut inside a character
    cut = data.index("سوال".encode()) + 1
    pieces = [data[:cut], memoryview(data)[cut:-3], data[-3:]]
    assert written(lambda: cli._write_utf8(pieces)) == expected


@pytest.mark.parametrize(
    "forged",
    [
        {"name": "../warnings", "stat": None},
        {"name": "a\0b", "stat": None},
        {"name": "f" * 64},
        {"name": "f" * 64, "stat": None, "more": 1},
        None,
        "f" * 64,
    ],
    ids=["a-path", "a-nul", "no-stat", "more-keys", "none", "not-a-dict"],
)
def test_a_warnings_record_of_the_wrong_shape_never_crashes_a_no_op(
    warned: Path, tmp_path: Path, forged: Any
) -> None:
    """The record's "warnings" forged, and the printed text said to be made from it: the text
    is not printed, no path but a digest's is ever opened, and the build is what it would be
    without a record of the warnings."""
    out = tmp_path / "dist"
    first = build(str(warned), "--out", str(out))

    def forge(record: dict[str, Any]) -> None:
        record["warnings"] = forged
        if isinstance(forged, dict):
            record["printed"]["of"] = forged["name"]

    _rewrite_record(out, forge)
    again = build(str(warned), "--out", str(out))
    assert again.exit_code == 0 and again.stderr == first.stderr and "Traceback" not in again.stderr
    assert tree(out) == fresh(warned, tmp_path)
    assert "(cached)" in built(warned, out)


def test_files_added_and_removed_print_what_a_build_from_scratch_prints(warned: Path, tmp_path: Path) -> None:
    """A file added or removed since the printed text was recorded: that text is not printed;
    the warnings are those of a build from scratch, and the no-op after it prints them."""
    out = tmp_path / "dist"
    scratch = tmp_path / "scratch"
    built(warned, out)
    first = sorted(warned.glob("*.yaml"))[0]
    text = first.read_text(encoding="utf-8")
    (warned / "extra.yaml").write_text(
        text.replace("synth-0000", "extra-quiz").replace("s0000-", "x0000-"), "utf-8"
    )
    for change in ("added", "removed"):
        if change == "removed":
            first.unlink()
        edited = build(str(warned), "--out", str(out))
        full = build(str(warned), "--out", str(scratch))
        assert FROM_CACHE in edited.stdout
        assert edited.stderr == full.stderr.replace(str(scratch), str(out)) and ": warning: " in edited.stderr
        again = build(str(warned), "--out", str(out))
        assert "(cached)" in again.stdout and again.stderr == edited.stderr


def test_a_bank_with_an_assessment_prints_its_warnings_on_every_build(tmp_path: Path) -> None:
    """The seed bank: its assessment file is built on every build (only quiz files are
    reused), so nothing is replayed; what every build prints is that of the first."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "source", src)
    out = tmp_path / "dist"
    first = build(str(src), "--out", str(out))
    assert first.exit_code == 0 and ": warning: " in first.stderr
    for _ in range(2):
        again = build(str(src), "--out", str(out))
        assert again.exit_code == 0 and again.stderr == first.stderr


def test_an_edit_that_changes_no_warning_neither_joins_nor_writes_the_files_again(
    warned: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stem edited (every warning as recorded): the warnings file is found to be the recorded
    one without its other units' texts being read (WarningsFile.holds) and the printed text
    without being hashed, and neither is written again; what the edit prints is what a build
    from scratch prints."""
    out = tmp_path / "dist"
    built(warned, out)
    assert "(cached)" in built(warned, out)  # their times settled: read, not hashed
    parts = cache_mod.parts_path(out)
    [printed] = parts.glob("*.printed")
    [warnings] = parts.glob("*.warnings")
    before = [(p.stat().st_ino, p.stat().st_mtime_ns) for p in (printed, warnings)]
    bodies: list[int] = []
    body = cache_mod.WarningsFile.body

    def reading(self: cache_mod.WarningsFile) -> Any:
        bodies.append(self.size)
        return body.fget(self)  # type: ignore[attr-defined]

    hashed: list[int] = []
    sha256 = cache_mod.hashlib.sha256

    class Hashing:
        """sha256, noting how many bytes each digest was of."""

        def __init__(self, data: bytes = b"") -> None:
            self.digest, self.size = sha256(data), len(data)

        def update(self, data: bytes) -> None:
            self.digest.update(data)
            self.size += len(data)

        def hexdigest(self) -> str:
            hashed.append(self.size)
            return self.digest.hexdigest()

    monkeypatch.setattr(cache_mod.WarningsFile, "body", property(reading))
    import types

    monkeypatch.setattr(
        cache_mod, "hashlib", types.SimpleNamespace(sha256=Hashing, file_digest=cache_mod.hashlib.file_digest)
    )
    edit_stem(sorted(warned.glob("*.yaml"))[1])
    edited = build(str(warned), "--out", str(out))
    monkeypatch.undo()
    assert edited.exit_code == 0 and "(3 of 4 " in edited.stdout
    assert bodies == []  # (the warnings file's texts not read: only the edited file's)
    assert printed.stat().st_size not in hashed and warnings.stat().st_size not in hashed
    assert [(p.stat().st_ino, p.stat().st_mtime_ns) for p in (printed, warnings)] == before
    scratch = tmp_path / "scratch"
    full = build(str(warned), "--out", str(scratch))
    assert edited.stderr == full.stderr.replace(str(scratch), str(out))


def test_an_edit_that_changes_a_warning_but_not_its_length_records_the_new_one(
    warned: Path, tmp_path: Path
) -> None:
    """A question renamed to an id of the same length: the edited file's warnings have the
    lengths they had, but another text; the warnings file and the printed text recorded are
    those a build from scratch records, byte for byte, and so is what the next no-op prints."""
    out = tmp_path / "dist"
    scratch = tmp_path / "scratch"
    built(warned, out)
    path = sorted(warned.glob("*.yaml"))[1]
    text = path.read_text(encoding="utf-8")
    full = build(str(warned), "--out", str(scratch))
    warned_ids = [q for q in re.findall(r"- id: (s\d{4}-q\d{4})\n", text) if f"'{q}'" in full.stderr]
    assert warned_ids
    renamed = warned_ids[0].replace("-q", "-x")
    path.write_text(text.replace(f"- id: {warned_ids[0]}\n", f"- id: {renamed}\n"), encoding="utf-8")
    edited = build(str(warned), "--out", str(out))
    assert edited.exit_code == 0 and f"'{renamed}'" in edited.stderr
    shutil.rmtree(scratch)
    cache_mod.cache_path(scratch).unlink(missing_ok=True)
    full = build(str(warned), "--out", str(scratch))
    assert edited.stderr == full.stderr.replace(str(scratch), str(out))
    for kind in ("*.warnings", "*.printed"):
        [ours] = cache_mod.parts_path(out).glob(kind)
        [theirs] = cache_mod.parts_path(scratch).glob(kind)
        assert ours.read_bytes() == theirs.read_bytes()
    again = build(str(warned), "--out", str(out))
    assert "(cached)" in again.stdout and again.stderr == edited.stderr


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.binary(max_size=12), min_size=1, max_size=6),
    st.data(),
)
def test_a_warnings_file_holds_entries_exactly_when_it_is_their_bytes(texts: list[bytes], data: Any) -> None:
    """WarningsFile.holds: with every text but those ``made`` taken from the file as read, it
    answers whether the file of the entries is the file's bytes; and so does the file read
    from disk (from_file), without reading the texts it does not compare."""
    import tempfile

    entries: dict[str, tuple[int, int, bytes | memoryview]] = {
        f"source:{i}": (0, len(t), t) for i, t in enumerate(texts)
    }
    raw = cache_mod.WarningsFile.to_bytes(entries)
    old = cache_mod.WarningsFile.from_bytes(raw)
    own = data.draw(st.sets(st.sampled_from(sorted(entries))))
    new: dict[str, tuple[int, int, bytes | memoryview]] = {}
    for unit in entries:
        if unit in own:
            text = data.draw(st.binary(max_size=12))
            new[unit] = (0, data.draw(st.sampled_from([len(text), len(text) + 1])), text)
        else:
            new[unit] = old.entry(unit)
    head = cache_mod.WarningsFile.head_of({u: (n, c, len(t)) for u, (n, c, t) in new.items()})
    made = {u: bytes(new[u][2]) for u in own}
    same = cache_mod.WarningsFile.to_bytes(new) == raw
    assert old.holds(head, made) is same
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "w.warnings"
        path.write_bytes(raw)
        st_ = path.stat()
        lazy = cache_mod.WarningsFile.from_file(
            path, [st_.st_size, st_.st_mtime_ns, st_.st_ctime_ns, st_.st_ino]
        )
        assert lazy.index == old.index and lazy.size == old.size
        assert lazy.holds(head, made) is same
        assert lazy._body is None  # (only the texts compared were read)
        assert all(lazy.entry(u) == old.entry(u) for u in entries) and lazy._body is not None


def test_a_warnings_file_changed_after_its_index_was_read_is_not_read(tmp_path: Path) -> None:
    """A warnings file read lazily (from_file) that is no longer the file it was found as (its
    size, times or inode) gives ValueError for its texts, not another file's bytes."""
    raw = cache_mod.WarningsFile.to_bytes({"source:a": (0, 1, b'[["x"]]'), "bank": (0, 0, b"[]")})
    path = tmp_path / "w.warnings"
    path.write_bytes(raw)
    st_ = path.stat()
    found = cache_mod.WarningsFile.from_file(
        path, [st_.st_size, st_.st_mtime_ns, st_.st_ctime_ns, st_.st_ino]
    )
    assert bytes(found.text(*found.spans("source:a")[2:])) == b'[["x"]]'
    path.write_bytes(raw.replace(b"x", b"y"))  # in place: the same size and inode, other times
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 10**9))
    with pytest.raises(ValueError):
        found.text(*found.spans("source:a")[2:])
    with pytest.raises(ValueError):
        found.entry("bank")
    other = tmp_path / "other"
    other.write_bytes(raw)
    os.utime(other, ns=(st_.st_atime_ns, st_.st_mtime_ns))
    os.replace(other, path)  # the same bytes and mtime, another inode
    with pytest.raises(ValueError):
        found.text(0, 1)
    path.unlink()
    with pytest.raises(ValueError):
        found.text(0, 1)
