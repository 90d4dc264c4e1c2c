"""Text helpers of the linter: normalisation, words, and the Unicode facts the Urdu rules need.

Normalising a text for comparison (duplicates, clang associations, "does the explanation
mention the key") is: NFKC (presentation forms and full-width letters become the letters they
show), case folding, the Arabic letters Urdu replaces with its own unified with them (ي ى -> ی,
ك -> ک, ه -> ہ, ة -> ۃ), every decimal digit written as an ASCII digit (Urdu ۴ and Arabic ٤ are
both 4), harakat and tatweel removed, invisible characters (zero-width, bidi controls) removed,
punctuation and symbols turned into spaces, and white space collapsed.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import regex

# --------------------------------------------------------------------------- Urdu letters

ARABIC_FOR_URDU: dict[str, tuple[str, str]] = {
    "\u064a": ("\u06cc", "ARABIC LETTER FARSI YEH"),
    "\u0649": ("\u06cc", "ARABIC LETTER FARSI YEH"),
    "\u0643": ("\u06a9", "ARABIC LETTER KEHEH"),
    "\u0647": ("\u06c1", "ARABIC LETTER HEH GOAL"),
    "\u0629": ("\u06c3", "ARABIC LETTER TEH MARBUTA GOAL"),
}
"""Arabic code points that Urdu writes with letters of its own: Arabic -> (Urdu, Urdu's name).

An Urdu keyboard types the Urdu letters; the Arabic ones come from Arabic or Persian keyboard
layouts and from copied text. They look alike (or nearly) but are other characters: search,
sorting, spell checkers and the duplicate detection of every LMS treat them as other words, and
an Urdu Nastaliq font may have no glyph for them.
"""

DO_CHASHMI_HEH = "\u06be"
ASPIRABLE = frozenset("بپتٹجچدڈکگلمنرڑ")
"""Consonants that take do-chashmi he (ھ) to write an aspirate (بھ پھ تھ ...)."""

ARABIC_INDIC_DIGITS = frozenset(chr(c) for c in range(0x0660, 0x066A))
URDU_DIGITS = frozenset(chr(c) for c in range(0x06F0, 0x06FA))
"""Extended Arabic-Indic digits (U+06F0-U+06F9): the ones Urdu (and Persian) write."""

LATIN_FOR_URDU_PUNCT: dict[str, tuple[str, str]] = {
    "?": ("\u061f", "ARABIC QUESTION MARK"),
    ",": ("\u060c", "ARABIC COMMA"),
    ";": ("\u061b", "ARABIC SEMICOLON"),
    ".": ("\u06d4", "ARABIC FULL STOP"),
}
"""Latin punctuation -> what an Urdu sentence uses instead (U+06D4 is Urdu's full stop)."""

# --------------------------------------------------------------------------- invisible characters

BIDI_EMBEDDINGS = {"\u202a": "LRE", "\u202b": "RLE"}
BIDI_OVERRIDES = {"\u202d": "LRO", "\u202e": "RLO"}
BIDI_ISOLATES = {"\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI"}
BIDI_MARKS = {"\u200e": "LRM", "\u200f": "RLM", "\u061c": "ALM"}
PDF, PDI = "\u202c", "\u2069"
BIDI_CONTROLS = {**BIDI_EMBEDDINGS, **BIDI_OVERRIDES, **BIDI_ISOLATES, **BIDI_MARKS, PDF: "PDF", PDI: "PDI"}

ZWSP, ZWNJ, ZWJ, WJ, ZWNBSP = "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"
ZERO_WIDTH = {
    ZWSP: "ZERO WIDTH SPACE",
    ZWNJ: "ZERO WIDTH NON-JOINER",
    ZWJ: "ZERO WIDTH JOINER",
    WJ: "WORD JOINER",
    ZWNBSP: "ZERO WIDTH NO-BREAK SPACE (BOM)",
}


def codepoint(ch: str) -> str:
    """ "U+064A"."""
    return f"U+{ord(ch):04X}"


def describe(ch: str) -> str:
    """ "ي (U+064A ARABIC LETTER YEH)", the character itself left out when it is invisible."""
    name = unicodedata.name(ch, "") or ZERO_WIDTH.get(ch, "")
    shown = "" if ch in ZERO_WIDTH or ch in BIDI_CONTROLS else f"{ch} "
    return f"{shown}({codepoint(ch)} {name})".strip()


# Joining types (Unicode ArabicShaping.txt, through the regex module's Unicode tables): whether a
# letter connects to the letter after it (D, L), before it (D, R), or is skipped (T: marks).
_JOINS_FORWARD = regex.compile(r"[\p{Joining_Type=Dual_Joining}\p{Joining_Type=Left_Joining}]")
_JOINS_BACKWARD = regex.compile(r"[\p{Joining_Type=Dual_Joining}\p{Joining_Type=Right_Joining}]")
_TRANSPARENT = regex.compile(r"\p{Joining_Type=Transparent}")
_JOIN_CAUSING = regex.compile(r"\p{Joining_Type=Join_Causing}")
_EMOJI = regex.compile(r"[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F]")


def _neighbour(text: str, i: int, step: int) -> str:
    """The character next to text[i] in direction step (+1/-1), skipping transparent marks."""
    j = i + step
    while 0 <= j < len(text) and _TRANSPARENT.match(text[j]):
        j += step
    return text[j] if 0 <= j < len(text) else ""


def _is_virama(ch: str) -> bool:
    return bool(ch) and unicodedata.combining(ch) == 9


def zero_width_changes_something(text: str, i: int) -> bool:
    """Whether the zero-width character text[i] changes how the text is shown or broken.

    ZWNJ stops a join: it matters only between a letter that joins forward (joining type D or
    L) and one that joins backward (D or R), marks skipped: IDNA's CONTEXTJ rule (RFC 5892,
    appendix A.1), which is the same shaping fact. In Urdu that is e.g. the ZWNJ of
    ``ہ‌ی`` kept apart; before a space, after a non-joining letter (ا د ر و ے ...) or
    between Latin letters it changes nothing. After a virama (Devanagari ...) it selects a
    half form: it matters.
    ZWJ forces a join: it matters when exactly one side would join by itself (a letter shown
    in its joining form alone, as in Urdu abbreviations), after a virama, and inside emoji
    sequences; between two letters that join anyway, or two that never do, it changes nothing.
    ZWSP and WJ allow or forbid a line break: they matter only between two visible characters
    that are not spaces. U+FEFF inside a text is a deprecated word joiner, and changes
    nothing that WJ would not say better: always reported.
    """
    ch = text[i]
    before, after = _neighbour(text, i, -1), _neighbour(text, i, +1)
    virama = i > 0 and _is_virama(text[i - 1])  # (a virama is itself a transparent mark)
    if ch == ZWNJ:
        if virama:
            return True
        return bool(before and after and _JOINS_FORWARD.match(before) and _JOINS_BACKWARD.match(after))
    if ch == ZWJ:
        if virama or (before and _EMOJI.match(before)) or (after and _EMOJI.match(after)):
            return True
        forward = bool(before) and bool(_JOINS_FORWARD.match(before) or _JOIN_CAUSING.match(before))
        backward = bool(after) and bool(_JOINS_BACKWARD.match(after) or _JOIN_CAUSING.match(after))
        return forward != backward
    if ch in (ZWSP, WJ):
        plain = text[i - 1] if i > 0 else ""
        nxt = text[i + 1] if i + 1 < len(text) else ""
        return bool(plain and nxt and not plain.isspace() and not nxt.isspace())
    return False  # U+FEFF


# --------------------------------------------------------------------------- direction


def strong_directions(text: str) -> set[str]:
    """The strong directions of a text's characters: a subset of {"L", "R"} (AL counts as R);
    bidi controls and marks are left out (they are what is being judged)."""
    found: set[str] = set()
    for ch in text:
        if ch in BIDI_CONTROLS:
            continue
        bidi = unicodedata.bidirectional(ch)
        if bidi == "L":
            found.add("L")
        elif bidi in ("R", "AL"):
            found.add("R")
    return found


def has_numbers(text: str) -> bool:
    """Whether a text holds digits, whose order next to neutrals a bidi control can change."""
    return any(unicodedata.bidirectional(ch) in ("EN", "AN") for ch in text)


_ARABIC_BLOCKS = re.compile("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")


def is_arabic_letter(ch: str) -> bool:
    """Whether ch is a letter of the Arabic script (Urdu's): the Arabic blocks' letters."""
    return bool(ch) and _ARABIC_BLOCKS.match(ch) is not None and ch.isalpha()


# --------------------------------------------------------------------------- normalisation

_HARAKAT = "".join(chr(c) for c in (*range(0x064B, 0x0660), 0x0670, *range(0x06D6, 0x06EE)))
_REMOVE = _HARAKAT + "\u0640" + "".join(BIDI_CONTROLS) + "".join(ZERO_WIDTH) + "\u00ad"


def _table() -> dict[int, str | None]:
    table: dict[int, str | None] = {ord(c): None for c in _REMOVE}
    table.update({ord(a): u for a, (u, _) in ARABIC_FOR_URDU.items()})
    for start in (0x0660, 0x06F0, 0x0966, 0x09E6):  # Arabic-Indic, Urdu, Devanagari, Bengali
        table.update({start + k: str(k) for k in range(10)})
    table[0x066B] = "."  # ARABIC DECIMAL SEPARATOR
    table[0x066C] = ","  # ARABIC THOUSANDS SEPARATOR
    return table


_TABLE = _table()
_PUNCT = re.compile(r"(?<=\d)(\.)(?=\d)|(?<=\d),(?=\d{3}(?!\d))|[^\w\s]|_")
_SPACE = re.compile(r"\s+")
_PUNCT_ONLY = re.compile(r"[^\w\s]|_")
_DIGIT = re.compile(r"\d")


def _punct(m: re.Match[str]) -> str:
    if m.group(1):
        return "."  # a decimal point: 1.5 stays one number
    return "" if m.group(0) == "," else " "  # a thousands separator: 1,000 is 1000


@lru_cache(maxsize=16384)
def normalize(text: str) -> str:
    """A text as it compares: see the module's docstring. A point between digits stays (1.5 is
    one number), a comma before three digits goes (1,000 is 1000)."""
    t = unicodedata.normalize("NFKC", text).casefold().translate(_TABLE)
    if _DIGIT.search(t):
        return _SPACE.sub(" ", _PUNCT.sub(_punct, t)).strip()
    return _SPACE.sub(" ", _PUNCT_ONLY.sub(" ", t)).strip()  # no number to keep whole: faster


_WORD = re.compile(r"[^\W_]+(?:\.\d+)*")


def words(normalized: str) -> list[str]:
    """The words of a normalized text (numbers included, "1.5" one word)."""
    return _WORD.findall(normalized)


NUMBER = re.compile(r"\d+(?:\.\d+)?")


def numbers(normalized: str) -> set[float]:
    """The numbers of a normalized text, as values (so 1.50 mentions 1.5)."""
    out = set()
    for m in NUMBER.findall(normalized):
        try:
            out.add(float(m))
        except ValueError:  # pragma: no cover - the pattern only matches numbers
            continue
    return out


# Function words: what a text says nothing with. Kept short and closed-class (articles,
# pronouns, auxiliaries, prepositions, conjunctions; Urdu postpositions, auxiliaries and
# question words), so that a content word is never dropped.
def _listed(text: str) -> list[str]:
    return text.split()


STOPWORDS_EN = frozenset(
    _listed(
        """a an the this that these those it its is are was were be been being am do does did has have
    had having of in on at to for from by with without about into onto over under between among
    through during before after above below up down out off than then and or but nor so if as
    because while when where which what who whom whose why how all any both each either neither
    every some such no not only own same very can could may might must shall should will would
    i you he she we they me him her us them my your his our their there here also just more most
    other another one following true false statement best correct within across along around per
    via upon onto toward towards against beyond inside outside until since often usually
    typically generally mostly"""
    )
)
STOPWORDS_UR = frozenset(
    normalize(w)
    for w in _listed(
        """کا کی کے کو میں سے پر تک اور یا لیکن مگر بلکہ کہ جو جس جن جب تب تو بھی ہی نے
    ہے ہیں تھا تھی تھے ہو ہوں ہوا ہوئی ہوئے ہوتا ہوتی ہوتے ہونا ہونے گا گی گے رہا رہی رہے
    کر کرتا کرتی کرتے کرنا کرنے کرکے کیا کیے کی گئی گیا گئے دیا دی دیے جاتا جاتی جاتے جانا
    یہ وہ اس ان ایک کون کونسا کونسی کون سا کون سی کیوں کیسے کیسا کیسی کتنا کتنی کتنے کہاں
    لیے لئے والا والی والے ساتھ بارے طرح طور سب کچھ کوئی کسی نہیں نہ بہت زیادہ کم درج ذیل
    مندرجہ بالا اپنا اپنی اپنے ہر صرف درست صحیح غلط بیان دوران ذریعے بغیر علاوہ اکثر عموماً
    عام مختلف جیسے جیسا جیسی کیونکہ چونکہ تاکہ اگر پھر"""
    )
)
STOPWORDS = STOPWORDS_EN | STOPWORDS_UR


def content_words(normalized: str) -> list[str]:
    """Words that carry meaning: not function words, not numbers, not single letters."""
    return list(_content_words(normalized))


@lru_cache(maxsize=16384)
def _content_words(normalized: str) -> tuple[str, ...]:
    out = []
    for w in words(normalized):
        if w in STOPWORDS or w[0].isdigit():
            continue
        if len(w) < (2 if is_arabic_letter(w[0]) else 3):
            continue
        out.append(w)
    return tuple(out)


_UR_ENDINGS = ("یاں", "ئیں", "ؤں", "یں", "وں", "ے", "ا", "ہ", "ی")
_EN_ENDINGS = (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", ""))


@lru_cache(maxsize=65536)
def stem_of(word: str) -> str:
    """A word without its inflectional ending: Urdu plural and oblique endings (مرحلہ, مرحلے,
    مراحل stays; بلبلا, بلبلے, بلبلوں; پرت, پرتیں), English plural and verb endings. At least three
    letters stay; nothing smarter (no dictionary): enough to compare words, not to analyse them."""
    endings = [(e, "") for e in _UR_ENDINGS] if is_arabic_letter(word[:1]) else _EN_ENDINGS
    for ending, repl in endings:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: len(word) - len(ending)] + repl
    return word


def same_word(a: str, b: str) -> bool:
    """Whether two normalized words are one word up to an inflection: equal stems (stem_of), or
    one stem a prefix of the other of at least 3 letters, longer by at most 3 (gradient/gradients,
    پرت/پرتیں, بلبلا/بلبلے)."""
    if a == b:
        return True
    a, b = stem_of(a), stem_of(b)
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 3 and long.startswith(short) and len(long) - len(short) <= 3


def mentions_word(word: str, vocabulary: set[str]) -> bool:
    """Whether a word, up to inflection (same_word), is among vocabulary's words."""
    if word in vocabulary:
        return True
    return any(same_word(word, v) for v in vocabulary if v[:3] == word[:3])
