"""model.map_inlines: the one map over a rich text's inlines (variants' substitution and brace
escapes, the Canvas writer's TeX names, the QTI 1.2 reader's placeholders and gaps all use it).
Every block and inline kind is rebuilt around the mapped leaves, leaves the function keeps are
kept, and the identity map gives back an equal text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import MEDIA, RICH

from lmsexport.model import (
    BulletList,
    Code,
    CodeBlock,
    Emph,
    Gap,
    Image,
    Inline,
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
    inlines_of,
    map_inlines,
)

PNG = Media("a.png", b"\x89PNG\r\n\x1a\n", "image/png", 1, 1)
CONTAINERS = (Emph, Strong, Link)


def every_kind(s: str = "a", t: str = "b", u: str = "c") -> Rich:
    """A text with every block and inline kind: the Strs hold s, t, u (to map them by hand)."""
    deep = Link("https://example.org/x", (Emph((Strong((Str(u), Math("y^2"))), Str(s))),), "the title")
    return Rich(
        (
            Para(
                (
                    Str(s),
                    Emph(
                        (Str(t), Strong((Str(u), Code("{s}")))),
                    ),
                    Code("a"),
                    Math("\\frac{a}{b}", display=True),
                    LineBreak(),
                    Image(PNG, "alt a", "img title"),
                    Gap(1),
                    Link("mailto:a@example.org", (Str(t),)),
                )
            ),
            BulletList(
                (
                    (Para((Str(s), deep)), OrderedList(((Para((Gap(2), Str(t))),),), start=3)),
                    (CodeBlock("a b c", "python"),),
                )
            ),
            OrderedList(((Para((Strong((Str(u),)),)),), (BulletList(((Para((Str(s),)),),)),)), start=7),
            CodeBlock("s t u"),
            Table(
                ((Str(s),), (Emph((Str(t),)),)),
                (((deep,), (Str(u), Gap(3))), ((), (Image(PNG, "b"), LineBreak(), Str(s)))),
                ("left", None),
            ),
        )
    )


def leaves(text: Rich) -> list[Inline]:
    return [x for x in inlines_of(text) if not isinstance(x, CONTAINERS)]


def test_identity_maps_give_an_equal_text() -> None:
    text = every_kind()
    assert map_inlines(text, lambda x: None) == text
    assert map_inlines(text, lambda x: x) == text
    assert map_inlines(text, lambda x: (x,)) == text


def test_strs_are_mapped_everywhere_and_every_other_leaf_is_kept() -> None:
    def upper(x: Inline) -> Inline | None:
        return Str({"a": "A", "b": "B", "c": "C"}[x.text]) if isinstance(x, Str) else None

    # Code, TeX, alt texts, code blocks, urls, titles, list starts, alignments: all as they were.
    assert map_inlines(every_kind(), upper) == every_kind("A", "B", "C")


def test_the_function_sees_every_leaf_once_in_reading_order_and_never_a_container() -> None:
    seen: list[Inline] = []

    def record(x: Inline) -> None:
        assert not isinstance(x, CONTAINERS)
        seen.append(x)

    text = every_kind()
    map_inlines(text, record)
    assert seen == leaves(text)
    assert {type(x) for x in seen} == {Str, Code, Math, LineBreak, Image, Gap}


def test_a_leaf_may_become_several_inlines_another_kind_or_none() -> None:
    text = Rich(
        (
            Para((Str("x [1] y"), Emph((Str(""), Math("m"), Str("[1]"))))),
            Table(((Link("https://e.org", (Str("[1]z"),)),),), (), (None,)),
        )
    )

    def f(x: Inline) -> Inline | tuple[Inline, ...] | None:
        match x:
            case Str(text=t):
                parts = t.split("[1]")
                out: list[Inline] = []
                for i, part in enumerate(parts):
                    if i:
                        out.append(Gap(1))
                    if part:
                        out.append(Str(part))
                return tuple(out)  # () for "": the Str is dropped
            case Math(tex=tex):
                return Code(tex)
        return None

    assert map_inlines(text, f) == Rich(
        (
            Para((Str("x "), Gap(1), Str(" y"), Emph((Code("m"), Gap(1))))),
            Table(((Link("https://e.org", (Gap(1), Str("z"))),),), (), (None,)),
        )
    )


def test_results_are_not_mapped_again() -> None:
    calls: list[Inline] = []

    def wrap(x: Inline) -> Inline:
        calls.append(x)
        return Emph((x, Str("!")))

    text = Rich((Para((Str("a"), Strong((Math("x"),)))),))
    assert map_inlines(text, wrap) == Rich(
        (Para((Emph((Str("a"), Str("!"))), Strong((Emph((Math("x"), Str("!"))),)))),)
    )
    assert calls == [Str("a"), Math("x")]


# Every kind, nested as the loader never makes them (lists in lists, gaps, links in cells).
_LEAF: st.SearchStrategy[Inline] = st.one_of(
    st.text("ab {}", max_size=4).map(Str),
    st.text("ab", max_size=3).map(Code),
    st.builds(Math, st.sampled_from(["x", "\\frac{N}{2}"]), st.booleans()),
    st.just(LineBreak()),
    st.builds(Image, MEDIA, st.sampled_from(["alt", "b"]), st.sampled_from([None, "t"])),
    st.integers(1, 3).map(Gap),
)
_RUN = st.lists(
    st.recursive(
        _LEAF,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3).map(lambda xs: Emph(tuple(xs))),
            st.lists(inner, max_size=3).map(lambda xs: Strong(tuple(xs))),
            st.builds(
                Link,
                st.just("https://example.org"),
                st.lists(inner, max_size=2).map(tuple),
                st.sampled_from([None, "t"]),
            ),
        ),
        max_leaves=6,
    ),
    max_size=4,
).map(tuple)
_BLOCK = st.recursive(
    st.one_of(
        _RUN.map(Para),
        st.builds(CodeBlock, st.text("ab{}\n", max_size=5), st.sampled_from([None, "python"])),
        st.builds(
            lambda head, rows: Table(tuple(head), tuple(tuple(r) for r in rows), ("left", None)),
            st.lists(_RUN, min_size=2, max_size=2),
            st.lists(st.lists(_RUN, min_size=2, max_size=2), max_size=2),
        ),
    ),
    lambda inner: st.one_of(
        st.lists(st.lists(inner, max_size=2).map(tuple), max_size=2).map(lambda xs: BulletList(tuple(xs))),
        st.builds(
            lambda xs, start: OrderedList(tuple(xs), start),
            st.lists(st.lists(inner, max_size=2).map(tuple), max_size=2),
            st.integers(1, 4),
        ),
    ),
    max_leaves=5,
)
ANY_RICH = st.one_of(RICH, st.lists(_BLOCK, max_size=3).map(lambda bs: Rich(tuple(bs))))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_RICH)
def test_identity_is_equal_and_leaves_come_in_reading_order(text: Rich) -> None:
    seen: list[Inline] = []

    def keep(x: Inline) -> None:
        seen.append(x)

    assert map_inlines(text, keep) == text
    assert seen == leaves(text)
    assert map_inlines(text, lambda x: (x,)) == text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_RICH)
def test_a_map_changes_only_its_leaves(text: Rich) -> None:
    def mark(x: Inline) -> Inline | None:
        return Str(x.text + "*") if isinstance(x, Str) else None

    out = map_inlines(text, mark)
    before, after = leaves(text), leaves(out)
    assert [type(x) for x in after] == [type(x) for x in before]
    assert after == [Str(x.text + "*") if isinstance(x, Str) else x for x in before]
    # Unmarking gives the text back: the containers and blocks around the leaves are as they were.
    assert map_inlines(out, lambda x: Str(x.text[:-1]) if isinstance(x, Str) else None) == text
