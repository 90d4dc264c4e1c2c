"""`markup: markdown`: the Markdown reader builds the model's Rich tree, the shared renderer and
the HTML reader are exact inverses, images are sniffed and checked. Refusals with their exact
messages are in the bad-input corpus (tests/bad/yaml/markdown-*)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import RICH, _tiny_png, cloze_stem

from lmsexport.errors import SourceError
from lmsexport.media import MAX_IMAGE_BYTES, MediaError, sniff
from lmsexport.model import (
    BulletList,
    Code,
    CodeBlock,
    Emph,
    LineBreak,
    Link,
    Math,
    Media,
    OrderedList,
    Para,
    Rich,
    Str,
    Strong,
    Table,
    has_math,
    media_of,
    plain_text,
)
from lmsexport.readers.richhtml import read_html
from lmsexport.source import load_paths, load_text
from lmsexport.writers.richtext import Flavour, to_html

ROOT = Path(__file__).resolve().parents[1]
RICH_CASE = ROOT / "tests" / "cases" / "rich" / "bank.yaml"

HEADER = (
    "id: md\ntitle: T\nlang: en\nmarkup: markdown\nquestions:\n"
    "  - id: q1\n    type: essay\n    explanation: e\n"
)


def _stem(stem_yaml: str, path: str = "q.yaml"):
    quiz = load_text(HEADER + stem_yaml, path)
    return quiz.questions[0].stem  # type: ignore[union-attr]


def test_every_construct_becomes_its_node() -> None:
    stem = _stem(
        "    stem: |\n"
        '      Hello *em* **strong** `code` $x^2$ [link](https://e.org "t")\\\n'
        "      next line\n"
        "\n"
        "      $$\\frac{a}{b}$$\n"
        "\n"
        "      ```python\n"
        "      print(1)\n"
        "      ```\n"
        "\n"
        "      3. three\n"
        "      4. four\n"
        "\n"
        "      - a\n"
        "      - b\n"
        "\n"
        "      | h1 | h2 |\n"
        "      |:--:|---|\n"
        "      | 1 |\n"
    )
    assert stem == Rich(
        (
            Para(
                (
                    Str("Hello "),
                    Emph((Str("em"),)),
                    Str(" "),
                    Strong((Str("strong"),)),
                    Str(" "),
                    Code("code"),
                    Str(" "),
                    Math("x^2"),
                    Str(" "),
                    Link("https://e.org", (Str("link"),), "t"),
                    LineBreak(),
                    Str("next line"),
                )
            ),
            Para((Math("\\frac{a}{b}", display=True),)),
            CodeBlock("print(1)", "python"),
            OrderedList(((Para((Str("three"),)),), (Para((Str("four"),)),)), start=3),
            BulletList(((Para((Str("a"),)),), (Para((Str("b"),)),))),
            Table(((Str("h1"),), (Str("h2"),)), (((Str("1"),), ()),), ("center", None)),
        )
    )


def test_plain_files_keep_plain_text() -> None:
    quiz = load_text(
        "id: p\ntitle: T\nlang: en\nquestions:\n"
        "  - {id: q, type: essay, stem: '*not* $x$ <b>', explanation: e}\n",
        "p.yaml",
    )
    assert quiz.questions[0].stem == "*not* $x$ <b>"  # type: ignore[union-attr]


def test_soft_breaks_are_spaces_and_escapes_are_text() -> None:
    assert _stem("    stem: |\n      one\n      two \\*three\\* \\$4\\$ \\<b>\n") == Rich(
        (Para((Str("one two *three* $4$ <b>"),)),)
    )


def test_helpers_see_through_the_tree() -> None:
    stem = load_paths([RICH_CASE]).quizzes[0].questions[3].stem
    assert [m.name for m in media_of(stem)] == ["img/stages.svg", "img/bar.png"]
    assert not has_math(stem)
    assert "GPU 1 waits" in plain_text(stem) and "Two pipeline stages" in plain_text(stem)


def test_the_rich_case_loads_with_its_images() -> None:
    bank = load_paths([RICH_CASE])
    (quiz,) = bank.quizzes
    assert quiz.description == Rich(
        (
            Para(
                (
                    Strong((Str("Markdown"),)),
                    Str("، ریاضی ("),
                    Math("\\Psi"),
                    Str(")، کوڈ اور تصاویر کا ایک نمونہ۔"),
                )
            ),
        )
    )
    images = {m.name: m for q in quiz.questions for m in media_of(q.stem)}
    assert images["img/stages.svg"].mime == "image/svg+xml"
    assert (images["img/stages.svg"].width, images["img/stages.svg"].height) == (240, 80)
    assert (images["img/bar.png"].mime, images["img/bar.png"].width, images["img/bar.png"].height) == (
        "image/png",
        48,
        12,
    )


# ----------------------------------------------------------------------- positions


@pytest.mark.parametrize(
    ("stem_yaml", "expected"),
    [
        ('    stem: "a <b>x</b>"\n', "q.yaml:9:14"),  # double-quoted: the column of '<b>'
        ("    stem: a <i>x</i>\n", "q.yaml:9:13"),  # plain scalar
        ("    stem: |\n      ok\n\n      and <u>x</u>\n", "q.yaml:12:11"),  # block scalar, third line
        ("    stem: >\n      folded\n      <s>x</s>\n", "q.yaml:11:7"),  # folded scalar
    ],
)
def test_a_problem_is_located_inside_the_text(stem_yaml: str, expected: str) -> None:
    with pytest.raises(SourceError) as e:
        _stem(stem_yaml)
    assert str(e.value).startswith(expected + ": error: stem: raw HTML"), str(e.value)


def test_two_equal_problems_get_two_positions() -> None:
    with pytest.raises(SourceError) as e:
        _stem('    stem: "[a](ftp://x) [b](ftp://x)"\n')
    lines = [d.loc.col for d in e.value.diagnostics]
    assert lines == [16, 29]


# ----------------------------------------------------------------------- inverse round trip

TEX_FLAVOUR = Flavour(
    math=lambda m: ("\\[%s\\]" if m.display else "\\(%s\\)") % m.tex,
    image_src=lambda i: f"data:{i.media.mime};base64,{base64.b64encode(i.media.data).decode()}",
)


def _data_uri(src: str) -> Media | None:
    if not src.startswith("data:"):
        return None
    raw = base64.b64decode(src.split(",", 1)[1])
    found = sniff(raw)
    return Media("", raw, found.mime, found.width, found.height)


@settings(max_examples=300, deadline=None)
@given(RICH)
def test_html_reader_inverts_the_renderer(rich: Rich) -> None:
    html, lost = to_html(rich, TEX_FLAVOUR)
    assert lost == []
    back, unread = read_html(html, _data_uri)
    assert unread == []
    assert back == rich, html


def test_foreign_html_is_read_leniently_and_names_what_it_drops() -> None:
    rich, lost = read_html(
        "<div><h2>Title</h2><p style='color:red'>Some   <b>bold</b>\n<i>it</i> <u>u</u></p>"
        "<iframe src='https://x'></iframe><script>alert(1)</script><a href='javascript:x'>j</a></div>",
        foreign=True,
    )
    assert rich == Rich(
        (
            Para((Str("Title"),)),
            Para((Str("Some "), Strong((Str("bold"),)), Str(" "), Emph((Str("it"),)), Str(" u"))),
            Para((Str("j"),)),
        )
    )
    assert lost == ["<div>", "<h2>", "<iframe>", "<script>", "a link that is not http, https or mailto"]


# ----------------------------------------------------------------------- images


def test_sniffing_judges_bytes_not_names(tmp_path: Path) -> None:
    assert sniff(_tiny_png(7, 3)) == type(sniff(_tiny_png(1, 1)))("image/png", 7, 3)
    gif = b"GIF89a" + (5).to_bytes(2, "little") + (6).to_bytes(2, "little") + b"\x00" * 10
    assert (sniff(gif).mime, sniff(gif).width, sniff(gif).height) == ("image/gif", 5, 6)
    jpeg = b"\xff\xd8\xff\xe0\x00\x04ab\xff\xc0\x00\x11\x08\x00\x09\x00\x0c" + b"\x00" * 12
    assert (sniff(jpeg).mime, sniff(jpeg).width, sniff(jpeg).height) == ("image/jpeg", 12, 9)
    webp = (
        b"RIFF\x00\x00\x00\x00WEBPVP8X"
        + b"\x00" * 8
        + (99).to_bytes(3, "little")
        + (49).to_bytes(3, "little")
    )
    assert (sniff(webp).mime, sniff(webp).width, sniff(webp).height) == ("image/webp", 100, 50)
    svg = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 10" height="20"/>'
    assert (sniff(svg).mime, sniff(svg).width, sniff(svg).height) == ("image/svg+xml", 60, 20)
    with pytest.raises(MediaError, match="limit is"):
        sniff(_tiny_png(2, 2) + b"\x00" * MAX_IMAGE_BYTES)


def test_an_image_too_large_on_disk_is_refused_before_it_is_read(tmp_path: Path) -> None:
    (tmp_path / "big.png").write_bytes(_tiny_png(2, 2) + b"\x00" * MAX_IMAGE_BYTES)
    (tmp_path / "q.yaml").write_text(HEADER + "    stem: '![big](big.png)'\n", encoding="utf-8")
    with pytest.raises(SourceError, match="is 2,097,.* bytes; the limit is 2,097,152"):
        load_paths([tmp_path])


def test_a_link_out_of_the_bank_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.png"
    outside.write_bytes(_tiny_png(2, 2))
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "in.png").symlink_to(outside)
    (bank / "q.yaml").write_text(HEADER + "    stem: '![x](in.png)'\n", encoding="utf-8")
    with pytest.raises(SourceError, match="leaves the bank's folder \\(through a link\\)"):
        load_paths([bank])


# --------------------------------------------------------------------------- cloze markers (issue 23)


class _Ctx:
    """Just enough of the loader's context for read_markdown: collect errors, no files."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def error(self, loc, message: str, rule: str, hint: str | None = None) -> None:  # type: ignore[no-untyped-def]
        self.errors.append(rule)

    def locate(self, node, needle):  # type: ignore[no-untyped-def]
        return None

    def media(self, loc, src, what):  # type: ignore[no-untyped-def]
        return None


def test_markers_are_gaps_only_in_a_cloze_stem() -> None:
    from lmsexport.model import Gap
    from lmsexport.readers.markdown import read_markdown

    text = "a [[1]] **[[2]]** `[[3]]` \\[[4]] [[x]]\n\n| h |\n|---|\n| [[3]] |"
    ctx = _Ctx()
    rich = read_markdown(ctx, None, text, "stem", gaps=True)
    assert ctx.errors == [] and rich is not None
    para, table = rich.blocks
    assert para == Para(
        (Str("a "), Gap(1), Str(" "), Strong((Gap(2),)), Str(" "), Code("[[3]]"), Str(" [[4]] [[x]]"))
    )
    assert table.rows == (((Gap(3),),),)  # type: ignore[union-attr]
    assert read_markdown(ctx, None, text, "stem").blocks[0] == Para(  # type: ignore[union-attr]
        (Str("a [[1]] "), Strong((Str("[[2]]"),)), Str(" "), Code("[[3]]"), Str(" [[4]] [[x]]"))
    )


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 4).flatmap(lambda n: cloze_stem(n, rich=True)))
def test_a_cloze_stem_written_as_markdown_reads_back_as_the_same_tree(stem: Rich) -> None:
    """writers/markdown.py writes Gap(n) as `[[n]]` and escapes every literal `[`; the reader with
    gaps reads the same tree back (the words hold `[[`, `[[1]]`, `\\[[` and cloze specials)."""
    from lmsexport.readers.markdown import read_markdown
    from lmsexport.writers.markdown import to_markdown

    text, lost = to_markdown(stem)
    ctx = _Ctx()
    assert not lost and read_markdown(ctx, None, text, "stem", gaps=True) == stem, text
    assert ctx.errors == []
