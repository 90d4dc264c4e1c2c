"""The performance work keeps every output byte: fast paths against their reference definitions,
the parallel build against the serial one, and the rebuild cache against changes it must see.

No timings are asserted here (the machine is shared and noisy); benchmarks/bench.py measures.
"""

from __future__ import annotations

import html

from hypothesis import given
from hypothesis import strategies as st

from lmsexport.model import direction
from lmsexport.writers import gift


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
