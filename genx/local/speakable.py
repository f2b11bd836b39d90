"""Text a TTS voice can say: markdown, URLs, emoji and symbols removed.

LLM answers arrive with ``**bold**``, ``[links](https://…)``, bullets, code
fences and emoji; a voice would read the markup aloud or choke on it.
:func:`speakable_text` keeps link texts, drops bare URLs, markup characters and
pictographs, and collapses whitespace. Text with no letter or digit left becomes
``""`` (nothing to synthesize).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["is_pictograph", "speakable_text"]

_CODE_FENCE = re.compile(r"^\s*(```|~~~).*$", re.MULTILINE)
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_ANGLE_URL = re.compile(r"<(?:https?://|www\.)[^>\s]*>", re.IGNORECASE)
_URL = re.compile(r"(?:https?://|www\.)[^\s<>()\[\]{}]*[^\s<>()\[\]{}.,;:!?'\"]", re.IGNORECASE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*", re.MULTILINE)
_QUOTE = re.compile(r"^\s*>+\s?", re.MULTILINE)
_BULLET = re.compile(r"^\s*[-*+•]\s+", re.MULTILINE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}.*$", re.MULTILINE)
_EMPHASIS = re.compile(r"(\*{1,3}|_{2,3}|~~|`+)")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<!\w)_(\S(?:[^_]*\S)?)_(?!\w)")
_HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_SPACE = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")

# Symbols a voice should not read besides pictographs; letters, digits, punctuation and spaces stay.
_DROP_CATEGORIES = frozenset({"Sk", "Cs", "Co", "Cn", "Cf", "Me"})
_KEEP_SYMBOLS = frozenset("%$€£+=&@°/")


def is_pictograph(ch: str) -> bool:
    """An emoji, pictograph or other symbol a voice would read by its name: a ``So`` character other than ``°``,
    or a variation selector. The one rule for this, also used by the answer's spoken form
    (:mod:`genx.assistant.spoken_form`)."""
    return (ch != "°" and unicodedata.category(ch) == "So") or "\ufe00" <= ch <= "\ufe0f"


def _drop_symbols(text: str) -> str:
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if is_pictograph(ch) or (unicodedata.category(ch) in _DROP_CATEGORIES and ch not in _KEEP_SYMBOLS):
            continue
        if ch == "|":
            out.append(",")
            continue
        out.append(ch)
    return "".join(out)


def _line(line: str) -> str:
    """A heading or list item becomes its own sentence (ends with a full stop)."""
    stripped = _BULLET.sub("", _HEADING.sub("", line, count=1), count=1)
    if stripped != line and stripped.strip() and stripped.rstrip()[-1] not in ".!?:;,":
        return stripped.rstrip() + "."
    return stripped


def speakable_text(text: str) -> str:
    if not text:
        return ""
    t = _CODE_FENCE.sub(" ", text)
    t = _MD_LINK.sub(r"\1", t)
    t = _ANGLE_URL.sub(" ", t)
    t = _URL.sub(" ", t)
    t = _HTML_TAG.sub(" ", t)
    t = _TABLE_RULE.sub(" ", t)
    t = _QUOTE.sub("", t)
    t = "\n".join(_line(line) for line in t.split("\n"))
    t = _EMPHASIS.sub("", t)
    t = _UNDERSCORE_EMPHASIS.sub(r"\1", t)
    t = _drop_symbols(t)
    t = _SPACE.sub(" ", t).strip()
    t = _SPACE_BEFORE_PUNCT.sub(r"\1", t)
    t = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", t).strip(" ,;:")
    if not any(ch.isalnum() for ch in t):
        return ""
    return t
