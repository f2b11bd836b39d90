"""Sentence segmentation for streaming TTS (English and Chinese).

:class:`SentenceSegmenter` receives model text chunk by chunk and hands out
segments worth synthesizing. Text first goes through
:class:`~genx.transformers.streamkit.spoken_text.SpokenTextFilter` (tags, URLs,
markdown), then the buffer is tidied (whitespace collapsed, no space before
CJK punctuation, empty brackets dropped) and cut at boundaries.

Boundaries (``genx-behaviours.md`` "Sentence segmenter"):

* ``，；。？！…～?!¿¡;~„・`` and line breaks always; ``. : , ：`` only when not
  between two digits (``3.14``, ``10:15``, ``1,000`` stay whole); ``、`` never.
  A run of terminal punctuation (``?!``, ``……``, ``...``) and the closing quotes
  or brackets right after it stay with the segment.
* Strong boundaries: ``。？！…?!``, line breaks, and (English rules) a
  sentence-final ``.``.
* English rules (``language`` "en" or "auto"; "zh" keeps the original rules):
  ``.``, ``?``, ``!`` end a sentence only before whitespace + a character that is
  not a lower-case letter (or before CJK text, or at the end at flush), so
  ``Mr. Smith``, ``e.g. apples``, ``U.S. troops``, ``J. Smith``,
  ``"Stop!" he said`` and ``Node.js`` stay whole; ``...`` is a weak boundary.
  A ``.`` / ``,`` / ``:`` at the very end of the buffer waits for the next
  character (it may be ``3.`` + ``14``).

Cutting:

* The first segment of a route is kept short so speech starts early: the last
  boundary within the first ``first_max_chars`` (32) characters that lies at
  character ≥ ``first_min_chars`` (8; ≥ 4 for a strong boundary); if there is
  none, the earliest such boundary within ``max_chars``.
* Later segments prefer whole sentences: the last strong boundary within
  ``max_chars`` (80); when ``max_chars`` characters are buffered without one,
  the last weak boundary; with no boundary at all, a hard cut (at the last
  space in the second half of the window, else at ``max_chars``).
* A line break always ends a segment (list items and headings are spoken as
  separate phrases).
* ``segments(flush=True)`` also returns the rest.

Segments are returned with whitespace collapsed and trimmed; every non-space
character of text without markup comes out exactly once, in order.
"""

from __future__ import annotations

import re
import unicodedata

from genx.transformers.streamkit.spoken_text import SpokenTextFilter

DEFAULT_MAX_CHARS = 80
DEFAULT_FIRST_MAX_CHARS = 32
DEFAULT_FIRST_MIN_CHARS = 8
DEFAULT_FIRST_MIN_STRONG_CHARS = 4

_CJK_STRONG = frozenset("。？！…")
_ALWAYS_WEAK = frozenset("，；～¿¡;~„・")
_DIGIT_SENSITIVE = frozenset(".:,：")
_TERMINAL_RUN = frozenset("。？！…?!.")
_CLOSERS = frozenset("\"'”’」』）)]】》〉")
_ABBREVIATIONS = frozenset(
    """mr mrs ms mx dr st jr sr prof rev hon gen col lt sgt capt cmdr gov pres sen rep fr messrs mmes
    vs etc al cf viz approx est dept univ assn bros inc ltd co corp no nos vol vols pp fig figs eq ed eds
    mt ft ave blvd rd jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun""".split()
)
_NO_BOUNDARY = (-1, False)
_TIDY_SPACE = re.compile(r"[^\S\n]+")
_SPACE_BEFORE_CJK_PUNCT = re.compile(r" +(?=[，。？！：；、])")
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|（\s*）|\[\s*\]|【\s*】")
_NEWLINE_RUN = re.compile(r" ?\n\s*")


def is_cjk(ch: str) -> bool:
    o = ord(ch)
    return 0x3400 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0x3040 <= o <= 0x30FF or 0xAC00 <= o <= 0xD7AF or 0x20000 <= o <= 0x2FFFF


def has_speakable(text: str) -> bool:
    """True when ``text`` has a letter or a digit (anything else is not synthesized)."""
    return any(unicodedata.category(c)[0] in "LN" for c in text)


class SentenceSegmenter:
    """One segmenter per text route (StreamID). Not thread-safe; cheap to create."""

    __slots__ = ("_buf", "_english", "_filter", "_first", "first_max_chars", "first_min_chars", "first_min_strong_chars", "max_chars")

    def __init__(
        self,
        *,
        language: str = "auto",
        max_chars: int = DEFAULT_MAX_CHARS,
        first_max_chars: int = DEFAULT_FIRST_MAX_CHARS,
        first_min_chars: int = DEFAULT_FIRST_MIN_CHARS,
        first_min_strong_chars: int = DEFAULT_FIRST_MIN_STRONG_CHARS,
    ) -> None:
        if language not in ("auto", "en", "zh"):
            raise ValueError(f"unknown segmenter language {language!r}; use 'auto', 'en' or 'zh'")
        if max_chars < 1:
            raise ValueError(f"max_chars must be >= 1, got {max_chars}")
        self.max_chars = max_chars
        self.first_max_chars = max(1, min(first_max_chars, max_chars))
        self.first_min_chars = first_min_chars
        self.first_min_strong_chars = first_min_strong_chars
        self._english = language != "zh"
        self._filter = SpokenTextFilter()
        self._buf = ""
        self._first = True

    def write(self, text: str) -> None:
        if text:
            self._append(self._filter.feed(text))

    def segments(self, flush: bool = False) -> list[str]:
        """Complete segments now available; with ``flush`` also the rest (then the segmenter is reset)."""
        if flush:
            self._append(self._filter.flush())
        out: list[str] = []
        while True:
            buf = self._buf.lstrip()
            self._buf = buf
            if not buf:
                break
            cut = self._choose_cut(buf, flush)
            if cut is None:
                break
            seg = " ".join(buf[:cut].split())
            self._buf = buf[cut:]
            if seg:
                out.append(seg)
                self._first = False
        if flush:
            self.reset()
        return out

    def reset(self) -> None:
        self._filter.reset()
        self._buf = ""
        self._first = True

    @property
    def buffered(self) -> str:
        """Tidied text waiting for a boundary (without raw text the markup filter holds)."""
        return self._buf

    # -- internals -----------------------------------------------------------
    def _append(self, clean: str) -> None:
        if not clean:
            return
        s = _TIDY_SPACE.sub(" ", self._buf + clean)
        s = _SPACE_BEFORE_CJK_PUNCT.sub("", s)
        s = _EMPTY_BRACKETS.sub("", s)
        self._buf = _NEWLINE_RUN.sub("\n", s)

    def _choose_cut(self, buf: str, flush: bool) -> int | None:
        n = len(buf)
        window = self.max_chars
        bounds = [(e, strong) for e, strong in self._boundaries(buf, flush) if e <= window]
        cut: int | None = None
        if self._first:
            ok = [e for e, strong in bounds if e >= (self.first_min_strong_chars if strong else self.first_min_chars)]
            early = [e for e in ok if e <= self.first_max_chars]
            if early:
                cut = max(early)
            elif ok:
                cut = min(ok)
        else:
            strong_ends = [e for e, strong in bounds if strong]
            if strong_ends:
                cut = max(strong_ends)
        if cut is None:
            if n >= window:
                cut = max((e for e, _ in bounds), default=0) or self._hard_cut(buf)
            elif flush:
                cut = n
        nl = buf.find("\n", 0, window)
        if nl >= 0 and (cut is None or nl + 1 < cut):
            cut = nl + 1
        return cut

    def _hard_cut(self, buf: str) -> int:
        window = self.max_chars
        sp = buf.rfind(" ", window // 2, window)
        return sp + 1 if sp > 0 else window

    def _boundaries(self, buf: str, flush: bool) -> list[tuple[int, bool]]:
        """``(end, strong)`` of every decided boundary in ``buf``."""
        out: list[tuple[int, bool]] = []
        n = len(buf)
        i = 0
        while i < n:
            ch = buf[i]
            if ch == "\n":
                out.append((i + 1, True))
                i += 1
                continue
            if ch in _ALWAYS_WEAK or ch == "、" or (ch not in _TERMINAL_RUN and ch not in _DIGIT_SENSITIVE):
                if ch in _ALWAYS_WEAK:
                    out.append((_skip_closers(buf, i + 1), False))
                i += 1
                continue
            # Terminal punctuation run or a digit-sensitive mark.
            j = i + 1
            if ch in _TERMINAL_RUN:
                while j < n and buf[j] in _TERMINAL_RUN:
                    j += 1
            run = buf[i:j]
            prev = buf[i - 1] if i > 0 else ""
            nxt = buf[j] if j < n else ""
            if ch in _DIGIT_SENSITIVE and len(run) == 1:
                if prev.isdigit() and (nxt.isdigit() or (not nxt and not flush)):
                    i = j
                    continue  # 3.14 / 10:15 / 1,000, or "3." waiting for its next character
            decided = self._judge(buf, i, j, flush)
            if decided is None:
                break  # undecided: wait for more text
            if decided[0] >= 0:
                out.append(decided)
            i = j
        return out

    def _judge(self, buf: str, i: int, j: int, flush: bool) -> tuple[int, bool] | None:
        """Decide the punctuation run ``buf[i:j]``: ``(end, strong)``, :data:`_NO_BOUNDARY` or None (undecided)."""
        run = buf[i:j]
        end = _skip_closers(buf, j)
        if run[0] in ",:：":
            return (end, False)
        ascii_marks = any(c in "?!." for c in run)
        if "?" in run or "!" in run or any(c in _CJK_STRONG for c in run):
            strong = True
        elif len(run) > 1:
            strong = False  # "..." is a pause, not a sentence end
        else:
            strong = self._english  # a lone "." ends an English sentence; the original rules count it weak
        if not ascii_marks or not self._english:
            return (end, strong)
        # English rules need to see what follows the run.
        if end >= len(buf):
            return (end, strong) if flush else None
        after = buf[end]
        if not after.isspace():
            if is_cjk(after):
                return (end, strong)
            return _NO_BOUNDARY  # Node.js, U.S.A, "?" inside a word
        k = end
        while k < len(buf) and buf[k] == " ":
            k += 1
        if k >= len(buf):
            return (end, strong) if flush else None
        if buf[k] == "\n":
            return (end, strong)
        if buf[k].islower():
            return _NO_BOUNDARY  # the sentence goes on: "e.g. apples", "Stop!" he said
        if run == "." and _is_abbreviation(buf, i):
            return _NO_BOUNDARY
        return (end, strong)


def _skip_closers(buf: str, j: int) -> int:
    while j < len(buf) and buf[j] in _CLOSERS:
        j += 1
    return j


def _is_abbreviation(buf: str, dot: int) -> bool:
    """Is the word before the ``.`` at ``dot`` an abbreviation (Mr, e.g, U.S, an initial)?"""
    k = dot
    while k > 0 and (buf[k - 1].isalnum() or buf[k - 1] == "."):
        k -= 1
    word = buf[k:dot]
    if not word:
        return False
    if word.lower() in _ABBREVIATIONS:
        return True
    if len(word) == 1 and word.isalpha() and word.isupper():
        return True  # an initial: "J. Smith"
    return "." in word and word.replace(".", "").isalpha()  # e.g, i.e, U.S, a.m


__all__ = ["SentenceSegmenter", "has_speakable", "is_cjk"]
