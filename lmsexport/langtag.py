"""Whether a text is a valid BCP 47 language tag: langcodes decides.

langcodes builds its registry tables and compiles one 18 KB regular expression when it is
imported: ~0.05 s, paid by every process that checks a tag (the build's, and each pool worker
that loads a file), while a bank names a handful of tags, nearly always among a few common ones.
So the common tags below are answered without importing it; any other tag goes to langcodes.
Only "valid" is ever answered here: a tag missing from the set is not judged, it is asked.
tests/test_perf.py checks that langcodes calls every one of them valid, and that both answer
alike.
"""

from __future__ import annotations

import functools

from .model import RTL_LANGUAGES

COMMON_TAGS = RTL_LANGUAGES | frozenset(
    {
        # the languages of the bank's content, with their usual regions and scripts
        "ur-PK",
        "ur-IN",
        "ur-Arab",
        "ur-Arab-PK",
        "en",
        "en-US",
        "en-GB",
        "en-IN",
        "en-PK",
        # other common ones
        "ar-SA",
        "ar-EG",
        "fa-IR",
        "he-IL",
        "bn",
        "de",
        "es",
        "fr",
        "hi",
        "id",
        "it",
        "ja",
        "ko",
        "ms",
        "nl",
        "pa",
        "pl",
        "pt",
        "pt-BR",
        "ru",
        "sw",
        "ta",
        "tr",
        "uk",
        "zh",
        "zh-Hans",
        "zh-Hant",
    }
)
"""Tags langcodes calls valid (tests check it), answered without importing it."""


@functools.lru_cache(maxsize=256)
def tag_is_valid(tag: str) -> bool:
    """langcodes.tag_is_valid(tag), without importing langcodes for a tag of COMMON_TAGS."""
    if tag in COMMON_TAGS:
        return True
    import langcodes

    return bool(langcodes.tag_is_valid(tag))
