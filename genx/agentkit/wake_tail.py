"""Where the wake phrase ends: which of the audio around a detection the VAD gets.

The wake word gate (:mod:`.wake`) replays the last ``wake_replay_ms`` before a detection to the VAD, so that a
request said in the same breath as the phrase keeps its first syllable. But the detector fires only ~20-230 ms
after the phrase ends (and, at a low threshold, may fire while its last syllable is still being said), so that
replay usually holds the end of the phrase itself ("…vis"): enough voiced audio for the VAD to open an utterance
of its own when a pause follows, which Whisper then hears as "this." or "I'm not sure.", and which was answered
as a turn before the real question (``tests/integration/test_voice_loop_wake.py`` once in CI).

:class:`PhraseTail` decides where the phrase ended from the audio's own loudness
(:class:`~genx.agentkit.pauses.PauseTracker`: quiet is 25 dB under the peak or under -50 dBFS). It holds the
replay and the audio after the detection until either

* a quiet stretch of :data:`GAP_MS` starts no later than :data:`END_WITHIN_MS` after the detection: the phrase
  ended there. It and that stretch are dropped (the stretch holds the phrase's faint decay, which webrtcvad
  calls voiced down to -90 dBFS: from its start, Piper's tail still opened an utterance); the VAD gets what
  follows, so a request after a pause opens its own utterance; or
* sound goes on past :data:`END_WITHIN_MS` without such a stretch: the request followed in the same breath.
  Everything held goes to the VAD, the phrase's tail included (one utterance; the transcript filter cuts the
  phrase). A request that started before a late detection, after the phrase and a gap, keeps its start.

The VAD is at most ``END_WITHIN_MS + GAP_MS`` (300 ms) behind while it holds; the utterance it then opens is
complete. Piper's "Hey Jarvis" (each rendering at six alignments), a pause, a question, the app's webrtcvad:
the replay as it was opened a second utterance for 5 of 36 clips, this for none of 120
(``tests/integration/test_wake_tail_audio.py``). :data:`GAP_MS` is longer than a comma's pause: Piper pauses
100-140 ms in "Hey Jarvis, what time is it?", and a 100 ms gap dropped that pause and the phrase, so Whisper
heard the request's soft first word alone and read "time is it?" (``bench/wake_tail.py``, 1,000 clips: the first
word lost in 1.1 % at 100 ms, in none at 120-200; the hold 140 / 160 ms p50 / p95 at 150). Pure: no clock, no I/O.

Does not own: the detection (``genx.local.wakeword``), the gate's awake / asleep state (:mod:`.wake`).
"""

from __future__ import annotations

from collections.abc import Sequence

from genx.agentkit.mic import blob_len
from genx.agentkit.pauses import PauseTracker
from genx.chunk import Blob, MessageChunk

GAP_MS = 150.0  # quiet this long ends the phrase (longer than the dips between a request's syllables, and than a comma's pause)
END_WITHIN_MS = 150.0  # a gap that starts later than this after the detection is inside the request


class PhraseTail:
    """See the module docstring. Built at the detection with the replay (oldest first, ending with the chunk that
    completed the detection, or ``lag_ms`` more when the detection was reported that much later: a background
    engine); :meth:`feed` each later chunk until it returns the chunks for the VAD."""

    __slots__ = ("_detected_ms", "_fed_ms", "_held", "_pauses", "decided")

    def __init__(self, replay: Sequence[MessageChunk], *, lag_ms: float = 0.0) -> None:
        self._pauses = PauseTracker()
        self._held: list[tuple[MessageChunk, float]] = []  # chunk, audio position of its start (ms)
        self._fed_ms = 0.0
        self._detected_ms = sum(blob_len(c) for c in replay) / 32.0 - lag_ms
        self.decided: list[MessageChunk] | None = None  # the chunks for the VAD, once known
        for c in replay:
            if self.decided is None:
                self.feed(c)
            else:
                self.decided.append(c)

    def feed(self, chunk: MessageChunk) -> list[MessageChunk] | None:
        """Hold ``chunk``; None while the phrase's end is unknown, then (once) the chunks the VAD gets."""
        if self.decided is not None:
            return [chunk]  # decided already: the chunk passes
        self._held.append((chunk, self._fed_ms))
        part = chunk.part
        if isinstance(part, Blob):
            self._pauses.feed(part.data)
        self._fed_ms += blob_len(chunk) / 32.0
        quiet_from = self._fed_ms - self._pauses.quiet_ms
        if quiet_from > self._detected_ms + END_WITHIN_MS:
            self.decided = [c for c, _ in self._held]  # sound beyond the phrase's end: one breath
        elif self._pauses.quiet_ms >= GAP_MS:
            # the phrase ended at quiet_from: drop it and the gap (its faint decay, which webrtcvad may call voiced)
            self.decided = []
        if self.decided is not None:
            self._held = []
        return self.decided

    def release(self) -> list[MessageChunk]:
        """Undecided, give up (the gate stopped gating): everything held, in order; decided: nothing more."""
        out = [c for c, _ in self._held]
        self._held = []
        return out


__all__ = ["END_WITHIN_MS", "GAP_MS", "PhraseTail"]
