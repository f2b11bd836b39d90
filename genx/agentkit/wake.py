"""The wake word gate: in hands-free mode, speech reaches the VAD only after the wake phrase.

:class:`WakeGate` sits between the microphone front end (:mod:`.mic`, echo-cancelled
audio, so Parley's own voice is not what it listens to) and the speech router.
Every processed chunk goes through the wake word detector (any
:class:`WakeDetectorLike`; ``genx.local.wakeword.WakeWordDetector`` in the app).
Asleep, nothing reaches the VAD: no turn opens, whatever is said. A detection wakes
the loop: an earcon plays, :class:`~genx.agentkit.events.WakeChanged` is published,
the loop's state goes from ``idle`` to ``listening``, and from then on the audio
goes to the VAD, starting with the last ``replay_ms`` before the detection (the
detector fires a little after the phrase ends: without it, a request spoken
straight after the phrase loses its first syllable). That replay usually holds the
end of the phrase too: :mod:`.wake_tail` holds it and the audio after the detection
until it knows where the phrase ended, so the end of the phrase never becomes an
utterance of its own (a pause follows) and a request in the same breath keeps all of it.

The echo canceller does not remove every trace of Parley's voice (in a loop-back measurement one of three
"hey jarvis" it said itself still fired), so asleep, a detection while Parley speaks, or within
``echo_tail_s`` + :data:`OWN_VOICE_TAIL_S` after, is ignored.

Awake lasts while anything is going on (the user speaks, Parley thinks or
speaks) and ``follow_up_s`` after it: a follow-up needs no wake word. Then the
gate falls asleep again (another ``WakeChanged``). The wake phrase itself is cut
from the transcripts (:func:`strip_wake_phrase`), in case some of it reached the
VAD. Push-to-talk mode bypasses the gate (the key is the wake word).

Does not own: the detector's model (``genx.local.wakeword``), the VAD and routes
(:mod:`.router`), the echo handling (:mod:`.mic`).
"""

from __future__ import annotations

import difflib
import logging
import math
import re
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from genx.agentkit.core import L16_16K, LoopCore
from genx.agentkit.echo import FarEndTimeline
from genx.agentkit.events import LoopState, Mode, WakeChanged
from genx.agentkit.mic import blob_len
from genx.agentkit.ports import AudioOutput
from genx.agentkit.wake_tail import PhraseTail
from genx.chunk import Blob, MessageChunk
from genx.ids import new_stream_id
from genx.stream import stream_of

log = logging.getLogger("genx.agentkit.loop")

BUSY = frozenset({LoopState.HEARING, LoopState.THINKING, LoopState.SPEAKING, LoopState.INTERRUPTED})
OWN_VOICE_TAIL_S = 0.5  # asleep, detections this long after Parley's own speech (plus the echo tail) are its echo
# a detection reported up to this long after the audio that completed it (a detector on a thread of its own,
# genx.local.wake_ensemble, whose detections Whisper may confirm first: 0.3-0.9 s, genx.local.wake_confirm) still
# replays from its own time: the gate keeps replay_ms + this much while asleep
MAX_LAG_MS = 2000.0
EARCON_RATE = 16000


class WakeDetectionLike(Protocol):
    @property
    def phrase(self) -> str: ...

    @property
    def at_s(self) -> float: ...  # the detector's stream time (audio fed to it) of the audio that completed it


class WakeDetectorLike(Protocol):
    """Streaming wake word detection over 16 kHz mono int16 PCM (``genx.local.wakeword.WakeWordDetector``)."""

    @property
    def phrases(self) -> list[str]: ...

    def process(self, pcm: bytes) -> Sequence[WakeDetectionLike]: ...


def earcon_pcm(rate: int = EARCON_RATE) -> bytes:
    """The "I'm listening" sound: two short rising tones (~180 ms, soft), int16 mono at ``rate``."""
    parts = []
    for freq, secs in ((880.0, 0.07), (1320.0, 0.09)):
        t = np.arange(int(rate * secs)) / rate
        env = np.minimum(1.0, np.minimum(t, secs - t) / 0.01)  # 10 ms ramps: no clicks
        parts.append(0.18 * 32767 * env * np.sin(2 * math.pi * freq * t))
        parts.append(np.zeros(int(rate * 0.015)))
    return np.concatenate(parts).astype("<i2").tobytes()


def play_earcon(player: AudioOutput, far_ends: Sequence[FarEndTimeline], audible_at: float) -> None:
    """The wake word was heard: the earcon on the speaker, and on the echo's far end (it is not the user)."""
    pcm = earcon_pcm()
    for fe in far_ends:
        fe.played(np.frombuffer(pcm, dtype="<i2"), audible_at)
    try:
        sid = new_stream_id()
        player.play(stream_of(MessageChunk.blob(L16_16K, pcm, stream_id=sid), MessageChunk.eos(sid)))
    except Exception as e:  # a closed player: the state indicator still shows it
        log.info("earcon not played: %s", e)


_WORD = re.compile(r"[a-z0-9']+")


def _words(text: str) -> list[tuple[str, int]]:
    """Lower-case words of ``text`` with the offset just after each."""
    return [(m.group(), m.end()) for m in _WORD.finditer(text.lower())]


def _like(a: str, b: str) -> bool:
    return a == b or (len(b) > 3 and difflib.SequenceMatcher(None, a, b).ratio() >= 0.75)


def strip_wake_phrase(text: str, phrases: Sequence[str]) -> str:
    """``text`` without a leading wake phrase ("Hey Jarvis, what time is it?" → "What time is it?").

    A phrase matches when its words start the text, the last word (the name) allowing a near spelling
    ("Jarvis" / "Jervis"); its last word alone counts too (the start of the phrase may have been cut).
    Anything else is returned unchanged."""
    words = _words(text)
    for phrase in phrases:
        target = [w for w, _ in _words(phrase)]
        if not target:
            continue
        for k in (len(target), 1) if len(target) > 1 else (1,):
            want = target[-k:]
            got = words[: len(want)]
            if len(got) == len(want) and all(_like(g, w) for (g, _), w in zip(got, want, strict=True)):
                rest = text[got[-1][1] :].lstrip(" ,.!?;:-—")
                return rest[:1].upper() + rest[1:] if rest else ""
    return text


class WakeGate:
    """See the module docstring. ``feed`` replaces the router's ``feed_vad`` as the mic's ``to_vad``."""

    def __init__(
        self,
        core: LoopCore,
        detector: WakeDetectorLike,
        to_vad: Callable[[MessageChunk], None],
        *,
        earcon: Callable[[], None] | None = None,
    ) -> None:
        self._core = core
        self._detector = detector
        self._to_vad = to_vad
        self._earcon = earcon
        self.awake = False
        self._until = -math.inf
        self._own_voice_until = -math.inf
        self._recent: deque[MessageChunk] = deque()
        self._recent_bytes = 0
        self._tail: PhraseTail | None = None  # just woken: the audio around the detection, until the phrase's end is known
        self._fed_s = 0.0  # audio fed to the detector: its stream clock (it is never reset while the gate lives)

    @property
    def phrases(self) -> list[str]:
        return list(self._detector.phrases)

    @property
    def active(self) -> bool:
        """The gate decides (hands-free); in push-to-talk every chunk passes."""
        return self._core.mode is Mode.HANDS_FREE

    @property
    def asleep(self) -> bool:
        return self.active and not self.awake

    def strip(self, text: str) -> str:
        return strip_wake_phrase(text, self.phrases)

    def feed(self, chunk: MessageChunk) -> None:
        core = self._core
        part = chunk.part
        data = part.data if isinstance(part, Blob) and part.mime == L16_16K else b""
        found = list(self._detector.process(data)) if data else []
        self._fed_s += len(data) / 32_000  # 16 kHz int16
        heard = [d.phrase for d in found]
        if not self.active:
            if self._tail is not None:
                self._pass(self._tail.release())
                self._tail = None
            self._to_vad(chunk)
            return
        now = core.clock()
        if core.state is LoopState.SPEAKING:
            self._own_voice_until = now + core.config.echo_tail_s + OWN_VOICE_TAIL_S
        if heard and not self.awake and now <= self._own_voice_until:
            heard = []  # Parley's own voice through the echo canceller (an answer to a typed question, a reminder)
        if core.state in BUSY or heard:
            self._until = max(self._until, now + core.config.follow_up_s)
        if not self.awake:
            self._keep(chunk)
            if heard:
                self._wake(heard[0], self._lag_ms(found[0]))
            return
        if now > self._until:
            self.awake = False
            self._tail = None
            self._keep(chunk)
            core.emit(WakeChanged(awake=False, phrase=self.phrases[0], reason=f"nothing said for {core.config.follow_up_s:g} s"))
            core.settle("wake word window over")
            return
        tail = self._tail
        if tail is not None:  # just woken: held until the phrase's end is known (wake_tail.py)
            out = tail.feed(chunk)
            if out is not None:
                self._tail = None
                self._pass(out)
            return
        self._to_vad(chunk)

    def _pass(self, chunks: list[MessageChunk]) -> None:
        for c in chunks:
            self._to_vad(c)

    def _keep(self, chunk: MessageChunk) -> None:
        """Asleep: remember the last ``replay_ms`` + :data:`MAX_LAG_MS` (the VAD gets ``replay_ms`` of it before the
        detection's own time, and what came after, when the wake word is heard)."""
        self._recent.append(chunk)
        self._recent_bytes += blob_len(chunk)
        self._trim(self._core.config.wake_replay_ms + MAX_LAG_MS)

    def _trim(self, ms: float) -> None:
        keep = 32 * ms
        while len(self._recent) > 1 and self._recent_bytes - blob_len(self._recent[0]) >= keep:
            self._recent_bytes -= blob_len(self._recent.popleft())

    def _lag_ms(self, detection: WakeDetectionLike) -> float:
        """How long after the audio that completed ``detection`` the gate heard of it (0 inline), at most MAX_LAG_MS."""
        return min(MAX_LAG_MS, max(0.0, (self._fed_s - detection.at_s) * 1000.0))

    def _wake(self, phrase: str, lag_ms: float) -> None:
        self.awake = True
        core = self._core
        core.emit(WakeChanged(awake=True, phrase=phrase, reason="wake word"))
        if self._earcon is not None:
            self._earcon()
        core.settle("wake word")
        self._trim(core.config.wake_replay_ms + lag_ms)  # from replay_ms before the detection's own time to now
        tail = PhraseTail(list(self._recent), lag_ms=lag_ms)
        self._recent.clear()
        self._recent_bytes = 0
        if tail.decided is not None:
            self._pass(tail.decided)
        else:
            self._tail = tail


__all__ = ["BUSY", "WakeDetectorLike", "WakeGate", "earcon_pcm", "play_earcon", "strip_wake_phrase"]
