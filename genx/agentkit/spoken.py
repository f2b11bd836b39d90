"""Which words of an answer were actually heard: alignment of played samples to text.

The TTS synthesizes an answer segment by segment (sentences); each segment's audio
occupies a byte range of the answer's audio route. The player reports how many
bytes of that route it handed to the device. Without word timings from the TTS,
the heard text is estimated:

* segments whose audio was played to the end are heard whole;
* in the segment being played, the position is mapped proportionally from samples
  to characters, over the segment's *voiced* range when it is known (TTS engines
  pad segments with silence; :class:`SegmentRecorder` measures it), else over the
  whole segment;
* a word counts as heard when the estimated position reached its last character
  (so the history never claims a word the user did not hear to its end).

Words are runs of non-space characters; in CJK text every ideograph / kana /
hangul syllable is its own word. Segments are joined with one space, without
one next to CJK text.

Invariant: :func:`spoken_prefix` is monotonic in ``played_bytes`` and the result is
always a prefix (word-wise) of the full joined text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from genx.agentkit.prefix_match import PrefixMatcher, generated_prefix
from genx.agentkit.words import CJK as _CJK
from genx.agentkit.words import words

_CJK_CHAR = re.compile(rf"[{_CJK}]")
# CJK punctuation glued to the previous word
_CJK_PUNCT = "，。？！；：、…～（）「」『』《》"


@dataclass(slots=True)
class SegmentSpan:
    """One synthesized segment: its text and the byte range of its audio in the route.

    ``voiced_start`` / ``voiced_end`` (bytes, absolute like ``start`` / ``end``)
    bound the part of the audio that is not leading / trailing silence; ``None`` when
    unknown. ``end`` grows while the segment is being synthesized.
    """

    text: str
    start: int
    end: int
    voiced_start: int | None = None
    voiced_end: int | None = None
    complete: bool = True
    # silent pauses inside the voiced range (absolute byte ranges, in order): the voice speaks no character
    # there, so the position is mapped over the voiced time only (a pause at a comma no longer runs ahead)
    gaps: list[tuple[int, int]] = field(default_factory=list)

    def speech_bytes(self, upto: int) -> int:
        """Bytes of ``[voiced_start or start, upto)`` that are not inside a pause."""
        lo = self.voiced_start if self.voiced_start is not None else self.start
        n = max(0, upto - lo)
        for a, b in self.gaps:
            if a >= upto:
                break
            n -= min(b, upto) - a
        return max(0, n)


def _is_cjk(ch: str) -> bool:
    return bool(_CJK_CHAR.match(ch)) or ch in _CJK_PUNCT


def join_segments(texts: Sequence[str]) -> str:
    """Join segment texts as they are spoken: one space between, none next to CJK text."""
    out = ""
    for t in texts:
        t = t.strip()
        if not t:
            continue
        if out and not (_is_cjk(out[-1]) or _is_cjk(t[0])):
            out += " "
        out += t
    return out


def heard_chars(seg: SegmentSpan, played_bytes: int, bytes_per_char: float | None = None) -> float:
    """Estimated number of characters of ``seg.text`` heard after ``played_bytes`` of the route.

    Proportional over the segment's speech: its voiced range without its pauses. For a segment still being
    synthesized (or cut before it was), the audio it will finally have is unknown: ``bytes_per_char`` (the
    speaking rate measured on earlier segments, in speech bytes) extends its expected length so the
    estimate does not run ahead.
    """
    n = len(seg.text)
    if played_bytes <= seg.start or n == 0:
        return 0.0
    if seg.complete and played_bytes >= seg.end:
        return float(n)
    lo = seg.voiced_start if seg.voiced_start is not None else seg.start
    if played_bytes <= lo:
        return 0.0
    if seg.complete:
        hi = seg.voiced_end if seg.voiced_end is not None else seg.end
        if played_bytes >= hi:
            return float(n)
        anchored = _by_clauses(seg, lo, hi, played_bytes)
        if anchored is not None:
            return anchored
        total = float(seg.speech_bytes(hi))
    else:
        total = float(seg.speech_bytes(seg.end))
        if bytes_per_char is not None:
            total = max(total, bytes_per_char * n)
    if total <= 0:
        return 0.0
    return min(float(n), n * seg.speech_bytes(played_bytes) / total)


_CLAUSE_END = re.compile(r"[,;:\u2014]|[.?!](?=\s)|\s-(?=\s)")


def _by_clauses(seg: SegmentSpan, lo: int, hi: int, played_bytes: int) -> float | None:
    """When the segment's pauses match its clause marks one to one (a voice pausing at commas), map each clause
    to its own stretch of speech: a pause is then an exact anchor. ``None`` when they do not match."""
    if not seg.gaps:
        return None
    marks = [m.end() for m in _CLAUSE_END.finditer(seg.text.rstrip()) if m.end() < len(seg.text.rstrip())]
    if len(marks) != len(seg.gaps):
        return None
    char_lo = 0
    start = lo
    for (g0, g1), mark in zip([*seg.gaps, (hi, hi)], [*marks, len(seg.text)], strict=True):
        if played_bytes < g0:
            span = g0 - start
            return char_lo + (mark - char_lo) * max(0, played_bytes - start) / span if span > 0 else float(char_lo)
        if played_bytes < g1:
            return float(mark)  # in the pause after the clause: the clause was heard
        char_lo, start = mark, g1
    return float(len(seg.text))


def segment_heard_text(seg: SegmentSpan, played_bytes: int, bytes_per_char: float | None = None) -> str:
    """The words of ``seg`` heard to their last character."""
    pos = heard_chars(seg, played_bytes, bytes_per_char)
    if pos >= len(seg.text):
        return seg.text.strip()
    last_end = 0
    # tolerance for float rounding at exact word ends
    limit = pos + 1e-9
    for s, e in words(seg.text):
        # trailing punctuation of a word does not need to be "heard" (it is silent)
        core_end = e
        while core_end > s + 1 and not seg.text[core_end - 1].isalnum():
            core_end -= 1
        if core_end <= limit:
            last_end = e
        else:
            break
    return seg.text[:last_end].strip()


def speaking_rate(segments: Sequence[SegmentSpan]) -> float | None:
    """Speech bytes (voiced, pauses excluded) per character over the complete segments, ``None`` without any."""
    nbytes = 0
    nchars = 0
    for seg in segments:
        if not seg.complete or not seg.text.strip():
            continue
        hi = seg.voiced_end if seg.voiced_end is not None else seg.end
        speech = seg.speech_bytes(hi)
        if speech > 0:
            nbytes += speech
            nchars += len(seg.text)
    return nbytes / nchars if nchars else None


def spoken_prefix(segments: Sequence[SegmentSpan], played_bytes: int, bytes_per_char: float | None = None, margin_bytes: int = 0) -> str:
    """The text heard after ``played_bytes`` of the route (segments in route order).

    ``bytes_per_char`` defaults to :func:`speaking_rate` of ``segments``. ``margin_bytes``: in the segment
    being played, a word counts only once its estimated end is this far behind the position (the estimate
    is proportional, real voices are not: the margin keeps it from claiming a word still being spoken); a
    segment played to its end is heard whole.
    """
    if bytes_per_char is None:
        bytes_per_char = speaking_rate(segments)
    parts: list[str] = []
    for seg in segments:
        if played_bytes <= seg.start:
            break
        whole = seg.complete and played_bytes >= seg.end
        t = segment_heard_text(seg, played_bytes if whole else played_bytes - margin_bytes, bytes_per_char)
        if t:
            parts.append(t)
        if not (seg.complete and played_bytes >= seg.end):
            break
    return join_segments(parts)


@dataclass(slots=True)
class VoicedRange:
    """Running estimate of where non-silence begins / ends in a PCM16 byte stream, and its pauses.

    A pause is a silent run of at least ``min_gap`` bytes between voiced samples.
    """

    threshold: int = 500  # |sample| above this is not silence (~ −36 dBFS)
    min_gap: int = 2 * 16000 * 80 // 1000  # 80 ms at 16 kHz; set from the route's rate when known
    first: int | None = None
    last: int | None = None
    gaps: list[tuple[int, int]] = field(default_factory=list)

    def feed(self, offset: int, pcm: bytes) -> None:
        """``pcm`` is little-endian int16 mono starting at byte ``offset`` of the segment's route."""
        if len(pcm) < 2:
            return
        a = np.frombuffer(pcm[: len(pcm) - (len(pcm) % 2)], dtype="<i2")
        idx = np.flatnonzero(np.abs(a.astype(np.int32)) > self.threshold)
        if idx.size == 0:
            return
        pos = offset + idx * 2  # byte offsets of the voiced samples
        if self.first is None:
            self.first = int(pos[0])
        elif self.last is not None and int(pos[0]) - self.last >= self.min_gap:
            self.gaps.append((self.last, int(pos[0])))
        if pos.size > 1:
            d = np.diff(pos)
            for k in np.flatnonzero(d - 2 >= self.min_gap):
                self.gaps.append((int(pos[k]) + 2, int(pos[k + 1])))
        self.last = int(pos[-1]) + 2


class SegmentRecorder:
    """Records, for one answer route, the byte span of every synthesized segment.

    The TTS wrapper calls :meth:`begin` when it starts a segment, :meth:`audio` for
    each block it yields (in route order) and :meth:`end` when the segment is done;
    the loop reads :meth:`spans` and :meth:`spoken`. Loop-thread only.
    """

    __slots__ = ("_clock", "_cur", "_ranges", "_spans", "default_bytes_per_char", "first_audio_at", "silence_threshold", "total_bytes")

    def __init__(
        self, silence_threshold: int = 500, default_bytes_per_char: float | None = None, clock: Callable[[], float] | None = None
    ) -> None:
        self._spans: list[SegmentSpan] = []
        self._ranges: list[VoicedRange] = []
        self._cur: SegmentSpan | None = None
        self.total_bytes = 0
        self._clock = clock
        self.first_audio_at: float | None = None  # clock time of the first synthesized byte
        self.silence_threshold = silence_threshold
        # speaking rate to assume for a cut segment before any segment completed
        self.default_bytes_per_char = default_bytes_per_char

    def begin(self, text: str) -> None:
        if self._cur is not None:
            self.end()
        self._cur = SegmentSpan(text, self.total_bytes, self.total_bytes, complete=False)
        self._spans.append(self._cur)
        self._ranges.append(VoicedRange(self.silence_threshold))

    def audio(self, pcm: bytes) -> None:
        cur = self._cur
        if cur is None:
            # audio outside a segment (should not happen): account for the bytes so offsets stay right
            self.begin("")
            cur = self._cur
            assert cur is not None
        if self.first_audio_at is None and pcm and self._clock is not None:
            self.first_audio_at = self._clock()
        vr = self._ranges[-1]
        vr.feed(self.total_bytes, pcm)
        self.total_bytes += len(pcm)
        cur.end = self.total_bytes
        cur.voiced_start = vr.first
        # the voiced end is only meaningful once the segment is complete
        cur.voiced_end = vr.last
        cur.gaps = vr.gaps

    def end(self) -> None:
        cur = self._cur
        if cur is None:
            return
        cur.complete = True
        self._cur = None

    def spans(self) -> list[SegmentSpan]:
        return list(self._spans)

    def full_text(self) -> str:
        return join_segments([s.text for s in self._spans])

    def spoken(self, played_bytes: int, margin_bytes: int = 0) -> str:
        rate = speaking_rate(self._spans)
        return spoken_prefix(self._spans, played_bytes, rate if rate is not None else self.default_bytes_per_char, margin_bytes)


__all__ = [
    "PrefixMatcher",
    "SegmentRecorder",
    "SegmentSpan",
    "VoicedRange",
    "generated_prefix",
    "heard_chars",
    "join_segments",
    "segment_heard_text",
    "speaking_rate",
    "spoken_prefix",
    "words",
]
