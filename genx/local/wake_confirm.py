"""Wake word detections confirmed by a second reading of the audio that fired them.

An engine that hears more voices also fires on more that is not its phrase: openWakeWord, at the threshold where
it hears espeak-ng's formant voices, accepts about two an hour of ordinary speech. :class:`ConfirmedDetector`
wraps such a detector. For each of its detections, the last ``window_s`` of audio up to the detection's own stream
time goes to a :class:`WakeCheck`; a detection the check does not confirm is dropped (and counted). The check
runs on the caller's thread: wrapped in ``genx.local.wake_ensemble.BackgroundDetector``, on the engine's own
thread, so a confirmation delays the detection and never the event loop; the gate replays from the detection's
own time however late it comes (up to ``genx.agentkit.wake.MAX_LAG_MS``).

:class:`WhisperWakeCheck` is the check with Whisper (the loop's own model, shared): the window is read freely,
then the phrase is scored by forced decoding on the same encoded audio (``genx.local.whisper_verify``). The
phrase is confirmed when it scores within ``margin`` of the free reading: Whisper reads a formant voice's "hey
jarvis" as "Hey, Jarmist." or "Hey John this", and the phrase then scores close to that reading, while speech
that is not the phrase scores it far below (measured in ``bench/wake_word.py``).

Does not own: the engines (``genx.local.wakeword``, ``genx.local.openwakeword``), the decoding
(``genx.local.whisper``).
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Self

import numpy as np

from genx.local.pcm import TARGET_RATE, whole_samples
from genx.local.wakeword import WakeWordDetection

if TYPE_CHECKING:
    from genx.local.wake_ensemble import Detector
    from genx.local.whisper import WhisperDecoder

log = logging.getLogger(__name__)

WINDOW_S = 1.5  # audio read before a detection: a slow "hey jarvis" and its onset, little of what came before
MAX_LAG_S = 1.0  # an engine may report a detection this long after the audio that completed it
CHECKS_KEPT = 64
# log-probabilities (bench/wake_word.py): a formant voice's phrase scored 0-6 below Whisper's own reading of it and
# above -12; ordinary speech that fired openWakeWord, 14-17 below and under -18
MARGIN = 8.0
FLOOR = -14.0


class WakeCheck(Protocol):
    def prepare(self) -> None:
        """Load what the check needs (blocking; on the engine's thread)."""
        ...

    def verdict(self, pcm: bytes, phrase: str) -> tuple[bool, str]:
        """Whether ``pcm`` (16 kHz mono int16, ending where the engine fired) ends with ``phrase``, and what it
        read (for logs)."""
        ...


@dataclass(frozen=True, slots=True)
class Checked:
    detection: WakeWordDetection
    confirmed: bool
    reason: str  # what the check read, for logs and the bench


class ConfirmedDetector:
    """``inner``'s detections that ``check`` confirms (see the module docstring). One caller at a time."""

    def __init__(self, inner: Detector, check: WakeCheck, *, window_s: float = WINDOW_S) -> None:
        self._inner = inner
        self._check = check
        self._window = int(window_s * TARGET_RATE) * 2
        self._keep = self._window + int(MAX_LAG_S * TARGET_RATE) * 2
        self._ring = bytearray()  # the last audio fed, ending at stream byte self._fed (an even offset from the start)
        self._fed = 0
        self._odd = b""
        self.confirmed = 0
        self.rejected = 0
        self._failed = False
        self.checked: deque[Checked] = deque(maxlen=CHECKS_KEPT)  # the last checks, newest last

    @property
    def phrases(self) -> list[str]:
        return self._inner.phrases

    @property
    def inner(self) -> Detector:
        return self._inner

    def process(self, pcm: bytes) -> list[WakeWordDetection]:
        found = self._inner.process(pcm)
        data, self._odd = whole_samples(self._odd, pcm)
        self._ring += data
        self._fed += len(data)
        # the window and the lag, and the chunk: a detection may end before the chunk that reported it
        excess = len(self._ring) - self._keep - len(data)
        if excess > 0:
            del self._ring[:excess]
        return [d for d in found if self._confirm(d)]

    def _window_before(self, at_s: float) -> bytes:
        end = len(self._ring) - max(0, self._fed - round(at_s * TARGET_RATE) * 2)
        end = max(0, min(len(self._ring), end))
        return bytes(self._ring[max(0, end - self._window) : end])

    def prepare(self) -> None:
        """Load the check's model now rather than at the first detection (``BackgroundDetector`` calls it on its
        thread); a failure is logged, and each detection is then checked, and fails, as below."""
        try:
            self._check.prepare()
        except Exception as exc:
            log.warning("the wake word check cannot load (%s): openWakeWord's detections will not wake Parley", exc)

    def _confirm(self, detection: WakeWordDetection) -> bool:
        try:
            ok, reason = self._check.verdict(self._window_before(detection.at_s), detection.phrase)
        except Exception as exc:  # a check that fails confirms nothing: no false wakes, and the stream goes on
            ok, reason = False, f"the check failed: {exc}"
            if not self._failed:
                self._failed = True
                log.warning("wake word check failed (%s); detections it cannot check are dropped", exc)
        self.checked.append(Checked(detection, ok, reason))
        if ok:
            self.confirmed += 1
        else:
            self.rejected += 1
            log.info("wake word %r at %.2f s not confirmed: %s", detection.phrase, detection.at_s, reason)
        return ok

    def reset(self) -> None:
        self._inner.reset()
        self._ring.clear()
        self._fed = 0
        self._odd = b""

    def close(self) -> None:
        self._inner.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class WhisperWakeCheck:
    """:class:`WakeCheck` by Whisper: the phrase's forced-decoding score within ``margin`` of the free reading's
    and at least ``floor`` (a reading that cannot be scored leaves the floor alone)."""

    def __init__(self, decoder: WhisperDecoder, *, margin: float = MARGIN, floor: float = FLOOR) -> None:
        self._decoder = decoder
        self._margin = margin
        self._floor = floor

    @staticmethod
    def _texts(phrase: str) -> list[str]:
        base = phrase.strip().rstrip(".!?")
        return list(dict.fromkeys([f"{base}.", _comma(base) + "."]))

    def prepare(self) -> None:
        self._decoder.model.get()

    def verdict(self, pcm: bytes, phrase: str) -> tuple[bool, str]:
        audio = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        if audio.size < TARGET_RATE // 4:
            return False, "less than 250 ms of audio"
        text, free, best = self._decoder.phrase_scores(audio, self._texts(phrase))
        ok = best >= max(free - self._margin, self._floor)
        return ok, f"read {text!r} ({free:.1f}), the phrase scores {best:.1f}"


def _comma(phrase: str) -> str:
    """ "Hey Jarvis" -> "Hey, Jarvis": Whisper writes a greeting before a name with a comma as often as not."""
    words = phrase.split()
    return f"{words[0]}, {' '.join(words[1:])}" if len(words) > 1 else phrase


__all__ = ["FLOOR", "MARGIN", "WINDOW_S", "Checked", "ConfirmedDetector", "WakeCheck", "WhisperWakeCheck"]
