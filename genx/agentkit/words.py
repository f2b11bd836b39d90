"""Words of an answer's text as character spans: runs of non-space characters, every CJK character a word of its own.

Shared by the heard-text estimate (:mod:`.spoken`) and the generated-prefix match (:mod:`.prefix_match`).
"""

from __future__ import annotations

import re

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(rf"[{CJK}](?:[^\w\s]|_)*|[^\s{CJK}]+")


def words(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the words of ``text``."""
    # the first alternative of _WORD makes every CJK character its own word (with trailing punctuation)
    return [(m.start(), m.end()) for m in _WORD.finditer(text)]


__all__ = ["CJK", "words"]
