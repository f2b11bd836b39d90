"""The heard tracker: the player's positions → what the user heard of an answer, and the played audio → the echo's far end.

The player reports, per answer route, samples handed to the device and samples
*heard* (past the DAC). :class:`HeardTracker` keeps the answer's counters, maps
the heard samples to words of the generated answer (in the model's own wording,
:func:`~genx.agentkit.spoken.generated_prefix`) and writes the newly played audio,
resampled to 16 kHz, onto the far-end timelines of the echo canceller and gate.

Does not own: the player or the answer's lifecycle (:mod:`.answers`), the echo
processing of the microphone (:mod:`.mic`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from genx.agentkit.echo import FarEndTimeline, Resampler16k
from genx.agentkit.metrics import Clock
from genx.agentkit.spoken import PrefixMatcher, generated_prefix
from genx.agentkit.turns import Answer

# a word in the segment being played counts as heard only this long after its estimated end (see spoken_prefix)
HEARD_MARGIN_S = 0.12


def in_generated_words(generated: str, spoken: str) -> str:
    """The heard segments' text as a prefix of the generated answer (its own wording); see spoken.generated_prefix.
    Always a prefix of ``generated``: heard words that match none of it claim nothing."""
    if not spoken:
        return ""
    return generated_prefix(generated, spoken)


def spoken_text(ans: Answer, samples: int, *, to_the_end: bool = False) -> str:
    """The segments' text heard after ``samples`` of ``ans``'s route, conservatively (``HEARD_MARGIN_S``);
    ``to_the_end``: the route was played out to its last sample (no word is still being spoken)."""
    margin = 2 * round(HEARD_MARGIN_S * ans.rate) if ans.rate and not to_the_end else 0
    return ans.recorder.spoken(samples * 2, margin)


class HeardTracker:
    """See the module docstring."""

    def __init__(self, far_ends: list[FarEndTimeline], *, clock: Clock, output_latency: Callable[[], float]) -> None:
        self._far_ends = far_ends
        self._clock = clock
        self._output_latency = output_latency
        self._far_rs: dict[str, Resampler16k] = {}
        self._matchers: dict[str, PrefixMatcher] = {}  # per answer route
        # the output gain the player applies now (ducking): the far end must hold what is audible,
        # else the echo gate keeps a threshold 20+ dB above the real echo and gates the user out
        self.far_gain = 1.0

    @property
    def keeps_far(self) -> bool:
        """The played audio must be kept for the far end (there is an echo canceller or gate)."""
        return bool(self._far_ends)

    def advance(self, ans: Answer, pos: Any) -> str:
        """A new position of ``ans``'s route: update its counters and the far end; returns the heard text so far."""
        rate = int(pos.rate or 0)
        played = int(pos.samples_played)
        if rate:
            ans.rate = rate
        self._feed_far(ans, pos, played)
        ans.played_samples = max(ans.played_samples, played)
        ans.heard_samples = max(ans.heard_samples, int(pos.samples_heard))
        spoken = spoken_text(ans, ans.heard_samples)
        if not spoken:
            return ""
        matcher = self._matchers.get(ans.route_id)
        if matcher is None:
            matcher = self._matchers[ans.route_id] = PrefixMatcher()
        return matcher(ans.full_text(), spoken)  # incremental: only new words are matched

    def _feed_far(self, ans: Answer, pos: Any, played: int) -> None:
        audio = ans.audio
        if not self._far_ends or audio is None or not ans.rate or played <= ans.played_samples:
            return
        pcm = audio.take_far(ans.played_samples * 2, played * 2)
        if not pcm:
            return
        rs = self._far_rs.get(ans.route_id)
        if rs is None or rs.rate != ans.rate:
            rs = self._far_rs[ans.route_id] = Resampler16k(ans.rate)
        x = rs(pcm)
        if self.far_gain != 1.0:
            x = (x.astype(np.float32) * self.far_gain).astype(np.int16)
        audible_at = float(getattr(pos, "audible_at", 0.0) or 0.0)
        if audible_at <= 0:
            audible_at = self._clock() + self._output_latency()
        for fe in self._far_ends:
            fe.played(x, audible_at - x.size / 16000.0)

    def forget(self, route_id: str) -> None:
        self._far_rs.pop(route_id, None)
        self._matchers.pop(route_id, None)


__all__ = ["HEARD_MARGIN_S", "HeardTracker", "in_generated_words", "spoken_text"]
