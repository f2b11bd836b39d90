"""Per-turn timestamps and the latencies derived from them.

The loop marks each stage on a :class:`TurnTimeline` with its injectable clock
(seconds, monotonic; ``time.monotonic`` by default). Marks are first-wins (a
second ``first_token`` mark is ignored) except ``speech_end`` and ``asr_final``,
which follow the last utterance of the turn. :meth:`TurnTimeline.to_event` derives:

* ``asr_ms`` speech_end → asr_final, ``llm_first_token_ms`` generation_start →
  first_token, ``tts_first_audio_ms`` first_token → first_audio,
  ``playout_ms`` first_audio → first_played;
* ``v2v_ms`` speech_end → first_played + output latency (what the user waits
  for; counted from the end of speech, so the end-of-turn silence wait is in it);
* ``bargein_ms`` barge_in → playback_stopped;
* ``turn_check_ms``: the last end-of-turn check of the turn (call → verdict), and
  ``ended_early``: a detector ended the turn before the VAD's silence did.

:class:`LatencyStats` summarises many turns (median, p95) for logs and the bench.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from genx.agentkit.events import TurnMetrics

log = logging.getLogger("genx.agentkit.metrics")

Clock = Callable[[], float]

STAGES = (
    "speech_start",
    "speech_end",
    "asr_final",
    "generation_start",
    "first_token",
    "first_audio",
    "first_played",
    "answer_end",
    "barge_in",
    "playback_stopped",
)


_LATEST = frozenset({"speech_end", "asr_final"})  # a turn of several utterances: the last one counts


def _ms(a: float | None, b: float | None) -> float | None:
    if a is None or b is None:
        return None
    return round((b - a) * 1000.0, 1)


@dataclass(slots=True)
class TurnTimeline:
    turn_id: str
    output_latency: float = 0.0  # seconds from "handed to the device" to audible
    speech_start: float | None = None
    speech_end: float | None = None
    asr_final: float | None = None
    generation_start: float | None = None
    first_token: float | None = None
    first_audio: float | None = None
    first_played: float | None = None
    answer_end: float | None = None
    barge_in: float | None = None
    playback_stopped: float | None = None
    interrupted: bool = False
    preemptive: bool = False  # the answer was started before the end of the turn
    turn_checks: int = 0  # end-of-turn detector verdicts for this turn
    turn_check_ms: float | None = None  # the last one's call → verdict time
    ended_early: bool = False  # a detector ended the turn before the VAD's silence did

    def mark(self, stage: str, t: float) -> None:
        """Record ``stage`` at ``t`` unless already set (``speech_end`` / ``asr_final`` move to the latest)."""
        if stage not in STAGES:
            raise ValueError(f"unknown turn stage {stage!r}; known: {', '.join(STAGES)}")
        if stage in _LATEST or getattr(self, stage) is None:
            setattr(self, stage, t)

    def clear(self, *stages: str) -> None:
        """Forget ``stages`` (a preemptive answer that was dropped: the next one marks them anew)."""
        for stage in stages:
            if stage not in STAGES:
                raise ValueError(f"unknown turn stage {stage!r}; known: {', '.join(STAGES)}")
            setattr(self, stage, None)

    def to_event(self, at: float = 0.0) -> TurnMetrics:
        first_heard = None if self.first_played is None else self.first_played + self.output_latency
        return TurnMetrics(
            turn_id=self.turn_id,
            at=at,
            speech_start=self.speech_start,
            speech_end=self.speech_end,
            asr_final=self.asr_final,
            generation_start=self.generation_start,
            first_token=self.first_token,
            first_audio=self.first_audio,
            first_played=self.first_played,
            answer_end=self.answer_end,
            barge_in=self.barge_in,
            playback_stopped=self.playback_stopped,
            asr_ms=_ms(self.speech_end, self.asr_final),
            llm_first_token_ms=_ms(self.generation_start, self.first_token),
            tts_first_audio_ms=_ms(self.first_token, self.first_audio),
            playout_ms=_ms(self.first_audio, self.first_played),
            v2v_ms=_ms(self.speech_end, first_heard),
            bargein_ms=_ms(self.barge_in, self.playback_stopped),
            interrupted=self.interrupted,
            preemptive=self.preemptive,
            turn_check_ms=self.turn_check_ms,
            ended_early=self.ended_early,
        )


def format_metrics(m: TurnMetrics) -> str:
    """One log line: ``turn t3: v2v 512 ms (asr 180, llm 150, tts 120, out 40)``."""

    def f(v: float | None) -> str:
        return "-" if v is None else f"{v:.0f}"

    s = f"turn {m.turn_id}: v2v {f(m.v2v_ms)} ms (asr {f(m.asr_ms)}, llm {f(m.llm_first_token_ms)}, "
    s += f"tts {f(m.tts_first_audio_ms)}, out {f(m.playout_ms)})"
    if m.bargein_ms is not None:
        s += f", barge-in {f(m.bargein_ms)} ms"
    return s


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, ``q`` in [0, 100]; NaN for no values."""
    if not values:
        return math.nan
    xs = sorted(values)
    if len(xs) == 1:
        return float(xs[0])
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = math.ceil(pos)
    return float(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo))


@dataclass(slots=True)
class LatencyStats:
    """Collected values (ms) of one latency; median and p95."""

    name: str
    values: list[float] = field(default_factory=list)

    def add(self, v: float | None) -> None:
        if v is not None and math.isfinite(v):
            self.values.append(float(v))

    def extend(self, vs: Iterable[float | None]) -> None:
        for v in vs:
            self.add(v)

    @property
    def p50(self) -> float:
        return percentile(self.values, 50)

    @property
    def p95(self) -> float:
        return percentile(self.values, 95)

    def __len__(self) -> int:
        return len(self.values)


__all__ = ["STAGES", "Clock", "LatencyStats", "TurnTimeline", "format_metrics", "percentile"]
