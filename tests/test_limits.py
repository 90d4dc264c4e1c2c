"""Every documented limit (docs/security.md): at the limit accepted, one over refused with its
message; and memory and time stay bounded on the largest adversarial inputs the limits let in.

The bound checks run each input in a fresh process and read its peak resident memory
(ru_maxrss) and wall time against generous ceilings: they catch blow-ups (a gigabyte, a
minute), not small regressions.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lmsexport import source, validate
from lmsexport.cli import app
from lmsexport.readers import gift, moodlexml

ROOT = Path(__file__).resolve().parents[1]
QUIZ = (ROOT / "source" / "zero-sharded-optimizers.yaml").read_bytes()
GIFT = (ROOT / "dist" / "gift" / "zero-sharded-optimizers.gift.txt").read_bytes()
MOODLE_XML = (ROOT / "dist" / "moodle" / "zero-sharded-optimizers.xml").read_bytes()


def _yaml_rules(data: bytes) -> list[str]:
    diags: list = []
    source.load_bytes(data, "limit.yaml", diags, [])
    return [d.rule for d in diags]


def _quiz_with(question_extra: str = "", stem: str = "x", quiz_extra: str = "") -> bytes:
    return (
        f'id: q\ntitle: "T"\nlang: en\n{quiz_extra}questions:\n'
        f"  - id: q1\n    stem: {json.dumps(stem)}\n    explanation: y\n{question_extra}"
        "    choices:\n      - {text: a, correct: true}\n      - {text: b}\n"
    ).encode()


# --------------------------------------------------------------------------- source (YAML)


def test_file_size_at_and_over_the_limit() -> None:
    padding = source.MAX_FILE_BYTES - len(QUIZ) - 2
    at_limit = QUIZ + b"#" + b"x" * padding + b"\n"  # a comment pads it to the exact size
    assert len(at_limit) == source.MAX_FILE_BYTES
    assert _yaml_rules(at_limit) == []
    assert _yaml_rules(at_limit + b"\n") == ["source.too-large"]


@pytest.mark.parametrize("name", ["big.yaml", "big.gift.txt", "big.xml"])
def test_a_50_mb_file_is_refused_unread(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the CLI, by its size alone: the file is sparse (50 MB on paper, nothing on disk)."""
    monkeypatch.chdir(tmp_path)
    with open(name, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    result = CliRunner().invoke(app, ["check", name], catch_exceptions=False)
    assert result.exit_code == 1
    kind, limit = {
        "big.yaml": ("a source file", "10,485,760"),
        "big.gift.txt": ("a GIFT file", "10,485,760"),
        "big.xml": ("a Moodle XML file", "16,777,216"),
    }[name]
    assert (
        f"{name}: error: the file is 52,428,800 bytes; the limit for {kind} is {limit} bytes" in result.stderr
    )


def test_nesting_depth_at_and_over_the_limit() -> None:
    # The root mapping is level 1, each "[" one more.
    def nested(levels: int) -> bytes:
        inner = levels - 1
        return b"id: q\nx: " + b"[" * inner + b"]" * inner + b"\n"

    assert "source.too-deep" not in _yaml_rules(nested(source.MAX_DEPTH))
    assert "source.too-deep" in _yaml_rules(nested(source.MAX_DEPTH + 1))


def test_text_length_at_and_over_the_limit() -> None:
    assert _yaml_rules(_quiz_with(stem="s" * source.MAX_TEXT_CHARS)) == []
    assert _yaml_rules(_quiz_with(stem="s" * (source.MAX_TEXT_CHARS + 1))) == ["source.too-long"]


def test_id_length_at_and_over_the_limit() -> None:
    def with_id(n: int) -> bytes:
        return _quiz_with().replace(b"id: q1", b"id: q" + b"x" * (n - 1))

    assert _yaml_rules(with_id(source.MAX_ID_CHARS)) == []
    assert _yaml_rules(with_id(source.MAX_ID_CHARS + 1)) == ["source.bad-id"]


def test_tag_length_at_and_over_the_limit() -> None:
    assert _yaml_rules(_quiz_with(f"    tags: [{'t' * source.MAX_TAG_CHARS}]\n")) == []
    assert _yaml_rules(_quiz_with(f"    tags: [{'t' * (source.MAX_TAG_CHARS + 1)}]\n")) == ["source.bad-tag"]


def test_list_entries_at_and_over_the_limit() -> None:
    def tags(n: int) -> str:
        return "    tags: [" + ",".join(f"t{i}" for i in range(n)) + "]\n"

    assert _yaml_rules(_quiz_with(tags(source.MAX_ITEMS))) == []
    assert _yaml_rules(_quiz_with(tags(source.MAX_ITEMS + 1))) == ["source.too-many"]


def test_yaml_values_at_and_over_the_limit() -> None:
    def values(n: int) -> bytes:
        # The root mapping, the key "id", its value "q", the key "x", its list: 5 values; the rest are items.
        return b"id: q\nx: [" + b",".join([b"a"] * (n - 5)) + b"]\n"

    assert "source.too-many-nodes" not in _yaml_rules(values(source.MAX_NODES))
    assert _yaml_rules(values(source.MAX_NODES + 1)) == ["source.too-many-nodes"]


# --------------------------------------------------------------------------- GIFT


def test_gift_size_at_and_over_the_limit() -> None:
    at_limit = GIFT + b"\n// " + b"x" * (gift.MAX_GIFT_BYTES - len(GIFT) - 5) + b"\n"
    assert len(at_limit) == gift.MAX_GIFT_BYTES
    quiz, diags = gift.read_quiz_bytes(at_limit, "limit.gift.txt")
    assert quiz is not None and len(quiz.questions) == 8
    assert [d.severity.value for d in diags if d.severity.value == "error"] == []
    quiz, diags = gift.read_quiz_bytes(at_limit + b"\n", "limit.gift.txt")
    assert quiz is None and [d.rule for d in diags] == ["gift.too-large"]


def test_gift_blocks_at_and_over_the_limit() -> None:
    def blocks(n: int) -> bytes:
        return b"// [id:c]\n\n" * (n - 1) + b"::q::Q {T}\n"

    quiz, diags = gift.read_quiz_bytes(blocks(gift.MAX_GIFT_BLOCKS), "b.gift.txt")
    assert quiz is not None and diags == []
    quiz, diags = gift.read_quiz_bytes(blocks(gift.MAX_GIFT_BLOCKS + 1), "b.gift.txt")
    assert quiz is None and [d.rule for d in diags] == ["gift.too-many"]
    assert str(diags[0].loc) == f"b.gift.txt:{2 * gift.MAX_GIFT_BLOCKS + 1}:1"


def test_gift_errors_at_and_over_the_limit() -> None:
    def errors(n: int) -> bytes:
        return b"{\n\n" * n

    _, diags = gift.read_quiz_bytes(errors(gift.MAX_GIFT_ERRORS - 1), "e.gift.txt")
    assert [d.rule for d in diags] == ["gift.syntax"] * (gift.MAX_GIFT_ERRORS - 1)
    _, diags = gift.read_quiz_bytes(errors(gift.MAX_GIFT_ERRORS + 50), "e.gift.txt")
    assert sorted(d.rule for d in diags) == ["gift.syntax"] * gift.MAX_GIFT_ERRORS + ["gift.too-many-errors"]
    (stop,) = [d for d in diags if d.rule == "gift.too-many-errors"]
    assert stop.message == f"stopping after {gift.MAX_GIFT_ERRORS} errors"
    assert str(stop.loc) == f"e.gift.txt:{2 * gift.MAX_GIFT_ERRORS - 1}"


# --------------------------------------------------------------------------- Moodle XML


def test_moodlexml_size_at_and_over_the_limit() -> None:
    # Comments pad the seed quiz's Moodle XML to the exact size (Moodle's parser skips them).
    comment = b"<!-- " + b"x" * (1 << 20) + b" -->\n"
    fill = moodlexml.MAX_MOODLEXML_BYTES - len(MOODLE_XML)
    at_limit = MOODLE_XML + comment * (fill // len(comment)) + b" " * (fill % len(comment))
    assert len(at_limit) == moodlexml.MAX_MOODLEXML_BYTES
    quiz, diags = moodlexml.read_quiz_bytes(at_limit, "limit.xml")
    assert quiz is not None and len(quiz.questions) == 8 and diags == []
    quiz, diags = moodlexml.read_quiz_bytes(at_limit + b"\n", "limit.xml")
    assert quiz is None and [d.rule for d in diags] == ["moodlexml.too-large"]


def _essays(n: int) -> bytes:
    one = b"<question type='essay'><name><text>n</text></name><questiontext><text>s</text></questiontext>"
    one += b"</question>"
    return b"<quiz>" + one * n + b"</quiz>"


def test_moodlexml_questions_at_and_over_the_limit() -> None:
    quiz, diags = moodlexml.read_quiz_bytes(_essays(moodlexml.MAX_MOODLEXML_QUESTIONS), "q.xml")
    assert quiz is not None and len(quiz.questions) == moodlexml.MAX_MOODLEXML_QUESTIONS and diags == []
    quiz, diags = moodlexml.read_quiz_bytes(_essays(moodlexml.MAX_MOODLEXML_QUESTIONS + 1), "q.xml")
    assert quiz is None and [d.rule for d in diags] == ["moodlexml.too-many"]


def test_moodlexml_errors_at_and_over_the_limit() -> None:
    def errors(n: int) -> bytes:
        return b"<quiz>" + b"<question type='gapfill'/>\n" * n + b"</quiz>"

    _, diags = moodlexml.read_quiz_bytes(errors(moodlexml.MAX_MOODLEXML_ERRORS - 1), "e.xml")
    assert [d.rule for d in diags] == ["moodlexml.unknown-type"] * (moodlexml.MAX_MOODLEXML_ERRORS - 1)
    _, diags = moodlexml.read_quiz_bytes(errors(moodlexml.MAX_MOODLEXML_ERRORS + 50), "e.xml")
    rules = sorted(d.rule for d in diags)
    assert (
        rules == ["moodlexml.too-many-errors"] + ["moodlexml.unknown-type"] * moodlexml.MAX_MOODLEXML_ERRORS
    )
    (stop,) = [d for d in diags if d.rule == "moodlexml.too-many-errors"]
    assert str(stop.loc) == f"e.xml:{moodlexml.MAX_MOODLEXML_ERRORS}"


# --------------------------------------------------------------------------- packages


def _info(name: str, size: int, compressed: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.file_size, info.compress_size = size, compressed
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _entry_rules(infos: list[zipfile.ZipInfo]) -> list[str]:
    return [d.rule for d in validate._check_entries(infos, "p.zip")]


def test_member_size_at_and_over_the_limit() -> None:
    limit = validate.MAX_MEMBER_BYTES
    assert _entry_rules([_info("a.xml", limit, limit)]) == []
    assert _entry_rules([_info("a.xml", limit + 1, limit + 1)]) == ["package.too-large"]


def test_total_size_at_and_over_the_limit() -> None:
    each = validate.MAX_MEMBER_BYTES
    n = validate.MAX_TOTAL_BYTES // each
    infos = [_info(f"m{i}.xml", each, each) for i in range(n)]
    assert _entry_rules(infos) == []
    assert _entry_rules([*infos, _info("one-more.xml", 1, 1)]) == ["package.too-large"]


def test_compression_ratio_at_and_over_the_limit() -> None:
    compressed = validate.RATIO_MIN_BYTES
    size = compressed * validate.MAX_RATIO
    assert _entry_rules([_info("a.xml", size, compressed)]) == []
    assert _entry_rules([_info("a.xml", size, compressed - 1)]) == ["package.ratio"]
    # Below RATIO_MIN_BYTES any ratio passes: 1,000:1 on a tiny file says nothing.
    assert _entry_rules([_info("a.xml", validate.RATIO_MIN_BYTES - 1, 1)]) == []


def test_member_count_at_and_over_the_limit() -> None:
    def package(n: int) -> bytes:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
            for i in range(n):
                zf.writestr(f"d/{i}.txt", b"")
        return buf.getvalue()

    at_limit = [d.rule for d in validate.validate_package(package(validate.MAX_MEMBERS), "p.zip")]
    assert "package.too-many" not in at_limit and at_limit == ["package.no-manifest"]
    over = validate.validate_package(package(validate.MAX_MEMBERS + 1), "p.zip")
    assert [d.rule for d in over] == ["package.too-many"]
    assert over[0].message == f"{validate.MAX_MEMBERS + 1} entries exceed the limit of {validate.MAX_MEMBERS}"


# --------------------------------------------------------------------------- bounded memory and time

_PROLOGUE = """
import resource, sys, time
sys.path.insert(0, {root!r})
start = time.monotonic()
"""
_EPILOGUE = """
print(json.dumps({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "seconds": time.monotonic() - start, "rules": sorted(set(rules))}))
"""

ADVERSARIAL = {
    # 10 MiB of one-character list items: the most YAML values per byte the size limit lets in.
    "yaml-flow-list": """
import json
from lmsexport.source import MAX_FILE_BYTES, load_bytes
data = b"id: q\\nx: [" + b"a," * (MAX_FILE_BYTES // 2 - 8) + b"a]\\n"
diags = []
load_bytes(data, "x.yaml", diags, [])
rules = [d.rule for d in diags]
""",
    # 10 MiB of "key: value" lines: one unknown-key error each, if nothing stopped it.
    "yaml-many-keys": """
import json
from lmsexport.source import MAX_FILE_BYTES, load_bytes
data = b"".join(b"k%07d: a\\n" % i for i in range(MAX_FILE_BYTES // 12))
diags = []
load_bytes(data, "x.yaml", diags, [])
rules = [d.rule for d in diags]
""",
    # One 10 MiB GIFT line: the reader keeps a position for every character.
    "gift-long-line": """
import json
from lmsexport.readers.gift import MAX_GIFT_BYTES, read_quiz_bytes
data = b"::a::" + b"x" * (MAX_GIFT_BYTES - 10) + b"{T}"
quiz, diags = read_quiz_bytes(data, "x.gift.txt")
rules = [d.rule for d in diags] + (["read"] if quiz else [])
""",
    # 10 MiB of unclosed braces and blank lines: a block and an error per few bytes.
    "gift-many-blocks": """
import json
from lmsexport.readers.gift import MAX_GIFT_BYTES, read_quiz_bytes
data = b"{\\n\\n" * (MAX_GIFT_BYTES // 3)
quiz, diags = read_quiz_bytes(data, "x.gift.txt")
rules = [d.rule for d in diags]
""",
    # 16 MiB of tiny questions: the most elements per byte the Moodle XML size limit lets in.
    "moodlexml-many-elements": """
import json
from lmsexport.readers.moodlexml import MAX_MOODLEXML_BYTES, read_quiz_bytes
data = b"<quiz>" + b"<question><a/></question>" * ((MAX_MOODLEXML_BYTES - 20) // 25) + b"</quiz>"
quiz, diags = read_quiz_bytes(data, "x.xml")
rules = [d.rule for d in diags]
""",
    # One 10 MB text (libxml2's limit for a text node without huge_tree, a long embedded image).
    "moodlexml-long-text": """
import json
from lmsexport.readers.moodlexml import read_quiz_bytes
body = b"x" * (10_000_000 - 1)
data = (b"<quiz><question type='essay'><name><text>n</text></name><questiontext><text>" + body
        + b"</text></questiontext></question></quiz>")
quiz, diags = read_quiz_bytes(data, "x.xml")
rules = [d.rule for d in diags] + (["read"] if quiz else [])
""",
    # A 1 GiB member deflated to ~1 MiB: refused from the central directory, never inflated.
    "zip-bomb-1gib": """
import io, json, zipfile, zlib
from lmsexport.validate import validate_package
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
    with zf.open("items/bomb.xml", "w", force_zip64=True) as fh:
        chunk = b"\\0" * (1 << 20)
        for _ in range(1024):
            fh.write(chunk)
rules = [d.rule for d in validate_package(buf.getvalue(), "bomb.zip")]
""",
    # Billion laughs inside a package member: refused at the DOCTYPE, no entity is expanded.
    "xml-billion-laughs": """
import io, json, zipfile
from lmsexport.validate import validate_package
ents = "".join('<!ENTITY l%d "%s">' % (i, ("&l%d;" % (i - 1)) * 10 if i else "lol") for i in range(10))
xml = ('<?xml version="1.0"?><!DOCTYPE a [' + ents + ']><a>&l9;</a>').encode()
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as zf:
    zf.writestr("imsmanifest.xml", xml)
rules = [d.rule for d in validate_package(buf.getvalue(), "lol.zip")]
""",
}
EXPECTED_RULES = {
    "yaml-flow-list": ["source.too-many-nodes"],
    "yaml-many-keys": ["source.too-many-nodes"],
    "gift-long-line": ["read"],
    "gift-many-blocks": ["gift.syntax", "gift.too-many-errors"],
    "moodlexml-many-elements": ["moodlexml.too-many-errors", "moodlexml.unknown-type"],
    "moodlexml-long-text": ["read"],
    "zip-bomb-1gib": ["package.ratio", "package.too-large"],
    "xml-billion-laughs": ["xml.doctype"],
}
MAX_RSS_MB = 700
"""Peak resident memory allowed for one adversarial input (the interpreter, lxml and the
schemas take ~100 MB of it). Before the limits, yaml-flow-list took 1.5 GB."""
MAX_SECONDS = 120


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_memory_and_time_stay_bounded(name: str, tmp_path: Path) -> None:
    code = _PROLOGUE.format(root=str(ROOT)) + textwrap.dedent(ADVERSARIAL[name]) + _EPILOGUE
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=MAX_SECONDS,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    print(name, result)  # shown with -s: the measured numbers behind docs/security.md
    assert result["rules"] == EXPECTED_RULES[name]
    assert result["rss_mb"] < MAX_RSS_MB, result
    assert list(tmp_path.iterdir()) == []
