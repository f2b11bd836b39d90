"""Markup → spoken text, incrementally (the segmenter's first stage).

:class:`SpokenTextFilter` takes raw model text in arbitrary chunks and returns
the text a voice should say:

* XML-ish control elements are dropped with their content (``<emotion>…</emotion>``,
  ``<node id="x" />``); SSML / formatting wrappers (:data:`TRANSPARENT_TAGS`)
  only lose their tags; leftover tags are removed. **fix**: the content of an
  element that is still unclosed when the text ends is spoken, not lost.
* Bracketed URLs ``(https://…)`` / ``（…www.…）``, bare ``http(s)://`` and ``www.``
  URLs (without their trailing sentence punctuation) and autolinks ``<https://…>``
  are dropped.
* Markdown is spoken as plain words: ``[text](url)`` / ``![alt](url)`` → text,
  ``**bold**`` / ``*em*`` / ``_em_`` / ``~~strike~~`` / code spans and fences lose
  their markers, ``# headings``, ``> quotes``, list bullets (``-``, ``*``, ``+``,
  ``•``, ``1.``, ``1)``) and horizontal rules at line start are removed.
* Whitespace runs collapse to one space; runs containing a line break become one
  ``"\\n"`` (a segment boundary downstream).

A construct that may still be completed by the next chunk (an open tag or
element, an unclosed bracket, a URL running to the end, a line-start marker, a
trailing ``_`` / ``~``) is held back until it resolves or :meth:`flush`.
Text without markup passes with every non-space character kept, in order.
"""

from __future__ import annotations

import re

TRANSPARENT_TAGS = frozenset("speak p s prosody emphasis lang say-as voice sub span b i em strong u mark break br".split())
BRACKET_HOLD_LIMIT = 300  # an unclosed bracket older than this is plain text
TAG_HOLD_LIMIT = 256

_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:_-]*(?:\s+[^<>]*)?/?>")
_TAG_PARTS = re.compile(r"(?s)^<\s*(/?)\s*([A-Za-z][A-Za-z0-9:_-]*)([^<>]*?)(/?)\s*>$")
_PARTIAL_TAG = re.compile(r"</?(?:[A-Za-z][A-Za-z0-9:_-]*(?:\s[^<>]*)?/?)?")
_AUTOLINK = re.compile(r"(?i)<(?:https?://|www\.)[^<>\s]*>")
_MD_LINK = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\s]*\)")
_BRACKET_URL = re.compile(r"(?is)[（(][^()（）]{0,300}(?:https?://|www\.)[^()（）]{0,300}[）)]")
_URL_BODY = r"[^\s<>\"'，。！？；、）)\]}]"
_BARE_URL = re.compile(r"(?i)(?<![\w/])(?:https?://|www\.)" + _URL_BODY + r"*")
_BARE_URL_WITH_SPACE = re.compile(r"(?i)([^\S\r\n]*)(?<![\w/])((?:https?://|www\.)" + _URL_BODY + r"*)")
_URL_TRAILING = ".,:;!?"
_URL_PREFIXES = ("http://", "https://", "www.")
_FENCE_LINE = re.compile(r"(?m)^[ \t]*```[\w+-]*[ \t]*$")
_HR = re.compile(r"(?m)^[ \t]*([-*_=])(?:[ \t]*\1){2,}[ \t]*$")
_HEADING = re.compile(r"(?m)^[ \t]*#{1,6}[ \t]*")
_QUOTE = re.compile(r"(?m)^[ \t]*>[ \t]?")
_BULLET = re.compile(r"(?m)^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+")
_UNDERSCORE = re.compile(r"(?<![^\W_])_+|_+(?![^\W_])")
_PARTIAL_LINE_MARKER = re.compile(r"[ \t]*(?:\d{1,3}[.)]?|[-*+•]|([-*_=])(?:[ \t]*\1)+|#{1,6}|>|`{1,3}[\w+-]*)")
_SPACES = re.compile(r"[^\S\r\n]+")
_NEWLINES = re.compile(r" ?[\r\n]\s*")
_OPENERS = {"(": ")", "（": "）", "[": "]"}
_CLOSERS = {")": "(", "）": "（", "]": "["}


class SpokenTextFilter:
    """Incremental markup filter; one per text route."""

    __slots__ = ("_line_start", "_raw")

    def __init__(self) -> None:
        self._raw = ""
        self._line_start = True

    def feed(self, text: str) -> str:
        """Add raw text; return the spoken text that can no longer change."""
        self._raw += text
        return self._drain(final=False)

    def flush(self) -> str:
        """Return everything still held (unclosed constructs resolved as plain text)."""
        return self._drain(final=True)

    def reset(self) -> None:
        self._raw = ""
        self._line_start = True

    @property
    def pending(self) -> str:
        """Raw text held back, waiting for more input."""
        return self._raw

    def _drain(self, final: bool) -> str:
        raw = self._raw
        if not raw:
            return ""
        cut = len(raw) if final else safe_end(raw, self._line_start)
        piece, self._raw = raw[:cut], raw[cut:]
        if not piece:
            return ""
        out = normalize_piece(piece, line_start=self._line_start)
        tail = piece.rstrip(" \t")
        if tail:
            self._line_start = tail[-1] in "\r\n"
        return out


def safe_end(raw: str, line_start: bool) -> int:
    """Length of the prefix of ``raw`` that no later text can change."""
    n = len(raw)
    hold = n
    # Open elements and a partial tag at the end.
    stack: list[tuple[str, int]] = []
    for m in _TAG.finditer(raw):
        parts = _TAG_PARTS.match(m.group())
        if parts is None:
            continue
        closing, name, attrs, slash = parts.group(1) == "/", parts.group(2).lower(), parts.group(3), parts.group(4)
        if slash.strip() == "/" or attrs.strip().endswith("/") or name in TRANSPARENT_TAGS:
            continue
        if closing:
            if stack and stack[-1][0] == name:
                stack.pop()
        else:
            stack.append((name, m.start()))
    if stack:
        hold = min(hold, stack[0][1])
    lt = raw.rfind("<")
    if lt >= 0 and ">" not in raw[lt:] and n - lt <= TAG_HOLD_LIMIT and _PARTIAL_TAG.fullmatch(raw, lt):
        hold = min(hold, lt)
    # Unclosed brackets (bracketed URLs, markdown links) and a "[text]" that a "(url)" may follow.
    opened: list[int] = []
    for i, ch in enumerate(raw):
        if ch in _OPENERS:
            opened.append(i)
        elif ch in _CLOSERS and opened and raw[opened[-1]] == _CLOSERS[ch]:
            j = opened.pop()
            if ch == "]" and i == n - 1:
                hold = min(hold, j)
    for j in opened:
        if n - j <= BRACKET_HOLD_LIMIT:
            hold = min(hold, j)
            break
    # A URL running to the end, or the start of one.
    for m in _BARE_URL.finditer(raw):
        if m.end() == n or raw[m.end() :].strip(_URL_TRAILING) == "":
            hold = min(hold, m.start())
    for i in range(max(0, n - 8), n):
        suffix = raw[i:].lower()
        if (i == 0 or not (raw[i - 1].isalnum() or raw[i - 1] == "/")) and any(p.startswith(suffix) for p in _URL_PREFIXES):
            hold = min(hold, i)
            break
    # A marker at the start of the current line that the next characters decide.
    nl = max(raw.rfind("\n"), raw.rfind("\r"))
    begin = nl + 1 if nl >= 0 else (0 if line_start else -1)
    if begin >= 0:
        line = raw[begin:]
        if line.strip() and _PARTIAL_LINE_MARKER.fullmatch(line):
            hold = min(hold, begin)
    # Emphasis / strike markers whose meaning depends on the next character.
    k = n
    while k > 0 and raw[k - 1] in "_~":
        k -= 1
    if k < n:
        hold = min(hold, k)
    return hold


def normalize_piece(piece: str, *, line_start: bool = True) -> str:
    """Spoken text of ``piece`` (a whole, self-contained run of raw text)."""
    s = piece if line_start else "\x00" + piece  # keeps "^" from matching at a mid-line start
    s = _remove_elements(s)
    s = _AUTOLINK.sub("", s)
    s = _MD_LINK.sub(r"\1", s)
    s = _BRACKET_URL.sub("", s)
    s = _TAG.sub("", s)
    s = _BARE_URL_WITH_SPACE.sub(_url_keep_trailing, s)
    s = _FENCE_LINE.sub("", s)
    s = s.replace("`", "")
    s = _HR.sub("", s)
    s = _HEADING.sub("", s)
    s = _QUOTE.sub("", s)
    s = _BULLET.sub("", s)
    s = s.replace("**", "").replace("__", "").replace("~~", "").replace("*", "")
    s = _UNDERSCORE.sub("", s)
    if s.startswith("\x00"):
        s = s[1:]
    s = _SPACES.sub(" ", s)
    s = _NEWLINES.sub("\n", s)
    return s


def _url_keep_trailing(m: re.Match[str]) -> str:
    """Drop the URL but keep the sentence punctuation after it ("see x.com." → "see.")."""
    space, url = m.group(1), m.group(2)
    trailing = url[len(url.rstrip(_URL_TRAILING)) :]
    return trailing if trailing else space


def _remove_elements(text: str) -> str:
    """Drop non-transparent elements with their content; unclosed ones keep their content."""
    if "<" not in text:
        return text
    out: list[str] = []
    # Each open element collects its content; closing it discards that content.
    frames: list[tuple[str, list[str]]] = []
    last = 0
    for m in _TAG.finditer(text):
        target = frames[-1][1] if frames else out
        if m.start() > last:
            target.append(text[last : m.start()])
        last = m.end()
        parts = _TAG_PARTS.match(m.group())
        if parts is None:
            continue
        closing, name, attrs, slash = parts.group(1) == "/", parts.group(2).lower(), parts.group(3), parts.group(4)
        if slash.strip() == "/" or attrs.strip().endswith("/") or name in TRANSPARENT_TAGS:
            continue
        if closing:
            if frames and frames[-1][0] == name:
                frames.pop()
        else:
            frames.append((name, []))
    target = frames[-1][1] if frames else out
    target.append(text[last:])
    # Unclosed elements (only at the end of the text): their content is spoken.
    for _, content in frames:
        out.extend(content)
    return "".join(out)


__all__ = ["TRANSPARENT_TAGS", "SpokenTextFilter", "normalize_piece", "safe_end"]
