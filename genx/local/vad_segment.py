"""Voice activity segmentation without I/O: settings, frame classifiers and the utterance state machines.

:class:`VadSettings` (validated settings), :class:`WebRtcClassifier` (webrtcvad with
an energy floor), :class:`UtteranceDetector` (hands-free onset / end of an
utterance over voiced frames) and :class:`SpeechTrimmer` (push-to-talk: trims the
silence around one utterance). Pure state machines fed one frame at a time.

Modes:

* ``auto`` (hands-free): onset when ``onset_ratio`` of the frames in the last
  ``onset_window_ms`` are voiced (so a click does not open an utterance); end when
  at most ``end_ratio`` of the last ``end_silence_ms`` are voiced.
* ``external`` (push-to-talk): each input route *is* one utterance; the VAD only
  trims leading silence (keeping the pre-roll) and trailing silence (keeping
  ``trailing_keep_ms``). :class:`UtteranceDetector` and :class:`SpeechTrimmer` are
  the pure state machines, usable on their own.

Frame classifiers (``VadSettings.classifier``): ``"webrtc"`` (webrtcvad, 10/20/30 ms
frames, the default) or ``"silero"`` (Silero VAD v6 from faster-whisper's assets,
32 ms frames: :mod:`genx.local.silero_vad`); the segmentation above is the same
for both. Threading: webrtcvad costs a few microseconds per frame and Silero
~0.07 ms, so frames are classified inline on the event loop; that is what keeps
the onset signal prompt.

Does not own: the genx transformer around them (routes, chunks, control labels:
:mod:`genx.local.vad`), Silero (:mod:`genx.local.silero_vad`).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, Protocol, runtime_checkable

from genx.errors import GenxError
from genx.local.models import require_module
from genx.local.pcm import TARGET_RATE, dbfs

Mode = Literal["auto", "external"]
Classifier = Literal["webrtc", "silero"]
_FRAME_MS: dict[str, tuple[int, ...]] = {"webrtc": (10, 20, 30), "silero": (32,)}


class VadConfigError(GenxError, ValueError):
    def __init__(self, field: str, value: object, why: str) -> None:
        self.field = field
        super().__init__(f"VAD setting {field}={value!r}: {why}")


@dataclass(frozen=True, slots=True)
class VadSettings:
    aggressiveness: int = 2  # webrtcvad mode: 0 (least) … 3 (most aggressive in rejecting non-speech)
    frame_ms: int = 30  # webrtc: 10, 20 or 30; silero: 32
    onset_window_ms: int = 150
    onset_ratio: float = 0.6  # voiced share of the onset window that opens an utterance
    end_silence_ms: int = 600
    end_ratio: float = 0.1  # at most this voiced share of the end window closes it
    preroll_ms: int = 300
    min_energy_dbfs: float | None = None  # quieter frames count as unvoiced (echo fallback)
    max_utterance_ms: int | None = None  # split longer utterances
    trailing_keep_ms: int = 200  # external mode: trailing silence kept at the end
    mode: Mode = "auto"
    label: str = "utterance"
    classifier: Classifier = "webrtc"  # the frame classifier: webrtcvad, or Silero VAD v6 (32 ms frames)
    hint_frames: int = 0  # this many voiced frames in a row before an onset: a "voice" event (0: none)

    def validate(self) -> VadSettings:
        if self.aggressiveness not in (0, 1, 2, 3):
            raise VadConfigError("aggressiveness", self.aggressiveness, "must be 0, 1, 2 or 3")
        if self.classifier not in _FRAME_MS:
            raise VadConfigError("classifier", self.classifier, "must be 'webrtc' or 'silero'")
        if self.frame_ms not in _FRAME_MS[self.classifier]:
            sizes = " or ".join(str(n) for n in _FRAME_MS[self.classifier])
            raise VadConfigError("frame_ms", self.frame_ms, f"the {self.classifier} classifier takes {sizes} ms frames")
        for name in ("onset_window_ms", "end_silence_ms"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < self.frame_ms:
                raise VadConfigError(name, v, f"must be an integer of at least frame_ms ({self.frame_ms})")
        for name in ("preroll_ms", "trailing_keep_ms"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 0:
                raise VadConfigError(name, v, "must be a non-negative integer (milliseconds)")
        if not 0.0 < self.onset_ratio <= 1.0:
            raise VadConfigError("onset_ratio", self.onset_ratio, "must be in (0, 1]")
        if not 0.0 <= self.end_ratio < 1.0:
            raise VadConfigError("end_ratio", self.end_ratio, "must be in [0, 1)")
        if self.max_utterance_ms is not None and self.max_utterance_ms < self.onset_window_ms + self.frame_ms:
            raise VadConfigError("max_utterance_ms", self.max_utterance_ms, "must be longer than the onset window")
        if self.min_energy_dbfs is not None and not -120.0 <= self.min_energy_dbfs <= 0.0:
            raise VadConfigError("min_energy_dbfs", self.min_energy_dbfs, "must be between -120 and 0 dBFS")
        if not isinstance(self.hint_frames, int) or self.hint_frames < 0:
            raise VadConfigError("hint_frames", self.hint_frames, "must be a non-negative integer (0: no voice hints)")
        if self.mode not in ("auto", "external"):
            raise VadConfigError("mode", self.mode, "must be 'auto' (hands-free) or 'external' (push-to-talk)")
        return self

    @property
    def frame_bytes(self) -> int:
        return TARGET_RATE // 1000 * self.frame_ms * 2

    def frames(self, ms: int) -> int:
        return max(1, math.ceil(ms / self.frame_ms))


@dataclass(frozen=True, slots=True)
class SpeechEvent:
    kind: Literal["start", "end", "voice"]  # "voice": a hint, voiced frames that may become an onset (no route)
    stream_id: str  # the utterance route
    timestamp: int  # ms; the input's clock when it carries timestamps, else audio position
    position_ms: int  # audio position in the input route


SpeechCallback = Callable[[SpeechEvent], None]


class FrameClassifier(Protocol):
    def is_speech(self, frame: bytes) -> bool: ...

    def set_aggressiveness(self, level: int) -> None: ...


@runtime_checkable
class EnergyFloored(Protocol):
    """A classifier with an energy floor the echo fallback tunes at run time."""

    min_energy_dbfs: float | None


class WebRtcClassifier:
    """webrtcvad on 16 kHz int16 frames, with an optional energy floor."""

    __slots__ = ("_vad", "min_energy_dbfs")

    def __init__(self, aggressiveness: int, min_energy_dbfs: float | None = None) -> None:
        require_module("webrtcvad", "webrtcvad-wheels", "the local VAD")
        import webrtcvad

        self._vad = webrtcvad.Vad(aggressiveness)
        self.min_energy_dbfs = min_energy_dbfs

    def set_aggressiveness(self, level: int) -> None:
        self._vad.set_mode(level)

    def is_speech(self, frame: bytes) -> bool:
        floor = self.min_energy_dbfs
        if floor is not None and dbfs(frame) < floor:
            return False
        return bool(self._vad.is_speech(frame, TARGET_RATE))


# -- pure state machines -----------------------------------------------------------

IDLE, START, SPEECH, END, HINT = 0, 1, 2, 3, 4


class UtteranceDetector:
    """Hands-free utterance segmentation over classified frames.

    :meth:`feed` returns ``(kind, audio)``: ``IDLE`` (audio kept as pre-roll, not
    emitted), ``START`` (audio = pre-roll including this frame), ``SPEECH`` (audio =
    this frame), ``END`` (audio = this last frame; the utterance is closed),
    ``HINT`` (as ``IDLE``, and this frame made ``hint_frames`` voiced frames in a
    row before an onset: speech may be starting; once per run of voiced frames).
    """

    __slots__ = (
        "_end",
        "_frames_in_utt",
        "_onset",
        "_preroll",
        "_run",
        "_voiced_end",
        "_voiced_onset",
        "frames_seen",
        "in_speech",
        "settings",
    )

    def __init__(self, settings: VadSettings) -> None:
        self.settings = settings
        self.in_speech = False
        self.frames_seen = 0
        self._frames_in_utt = 0
        self._onset: deque[bool] = deque(maxlen=settings.frames(settings.onset_window_ms))
        self._end: deque[bool] = deque(maxlen=settings.frames(settings.end_silence_ms))
        self._preroll: deque[bytes] = deque(maxlen=max(settings.frames(settings.preroll_ms), self._onset.maxlen or 1))
        self._voiced_onset = 0
        self._voiced_end = 0
        self._run = 0  # voiced frames in a row while idle

    def retune(self, settings: VadSettings) -> None:
        """Adopt new thresholds, keeping the recent history (frame size stays as it was)."""
        settings = replace(settings, frame_ms=self.settings.frame_ms)
        self.settings = settings
        self._onset = deque(self._onset, maxlen=settings.frames(settings.onset_window_ms))
        self._end = deque(self._end, maxlen=settings.frames(settings.end_silence_ms))
        self._preroll = deque(self._preroll, maxlen=max(settings.frames(settings.preroll_ms), self._onset.maxlen or 1))
        self._voiced_onset = sum(self._onset)
        self._voiced_end = sum(self._end)

    @property
    def onset_frames_needed(self) -> int:
        n = self._onset.maxlen or 1
        return max(1, math.ceil(self.settings.onset_ratio * n - 1e-9))

    def feed(self, frame: bytes, voiced: bool) -> tuple[int, bytes]:
        self.frames_seen += 1
        if not self.in_speech:
            self._push_onset(voiced)
            self._preroll.append(frame)
            self._run = self._run + 1 if voiced else 0
            if voiced and self._voiced_onset >= self.onset_frames_needed:
                audio = b"".join(self._preroll)
                self._preroll.clear()
                self._onset.clear()
                self._voiced_onset = 0
                self.in_speech = True
                self._frames_in_utt = len(audio) // self.settings.frame_bytes
                self._end.clear()
                self._voiced_end = 0
                self._run = 0
                return START, audio
            hint = self.settings.hint_frames
            return (HINT, b"") if hint and self._run == hint else (IDLE, b"")
        self._frames_in_utt += 1
        self._push_end(voiced)
        end = self._end
        if not voiced and len(end) == end.maxlen and self._voiced_end <= self.settings.end_ratio * len(end):
            self.in_speech = False
            return END, frame
        cap = self.settings.max_utterance_ms
        if cap is not None and self._frames_in_utt * self.settings.frame_ms >= cap:
            self.in_speech = False
            return END, frame
        return SPEECH, frame

    def onset_position_frames(self, start_audio: bytes) -> int:
        """Frame index (from the route start) of the first frame of a START's audio."""
        return self.frames_seen - len(start_audio) // self.settings.frame_bytes

    def _push_onset(self, voiced: bool) -> None:
        q = self._onset
        if len(q) == q.maxlen and q[0]:
            self._voiced_onset -= 1
        q.append(voiced)
        self._voiced_onset += voiced

    def _push_end(self, voiced: bool) -> None:
        q = self._end
        if len(q) == q.maxlen and q[0]:
            self._voiced_end -= 1
        q.append(voiced)
        self._voiced_end += voiced


class SpeechTrimmer:
    """Push-to-talk trimming: drop leading silence (keep the pre-roll) and trailing silence.

    :meth:`feed` returns the audio to emit now (maybe empty) and whether speech
    started with this frame; :meth:`finish` returns the held trailing audio to keep.
    """

    __slots__ = ("_held", "_held_cap", "_onset", "speaking")

    def __init__(self, settings: VadSettings) -> None:
        self._onset = UtteranceDetector(replace(settings, max_utterance_ms=None))
        self.speaking = False
        self._held: deque[bytes] = deque()
        self._held_cap = settings.frames(30_000)

    def retune(self, settings: VadSettings) -> None:
        self._onset.retune(replace(settings, max_utterance_ms=None))

    @property
    def settings(self) -> VadSettings:
        return self._onset.settings

    def feed(self, frame: bytes, voiced: bool) -> tuple[bytes, bool]:
        if not self.speaking:
            kind, audio = self._onset.feed(frame, voiced)
            if kind == START:
                self.speaking = True
                return audio, True
            return b"", False
        if voiced:
            if self._held:
                self._held.append(frame)
                audio = b"".join(self._held)
                self._held.clear()
                return audio, False
            return frame, False
        self._held.append(frame)
        if len(self._held) > self._held_cap:
            return self._held.popleft(), False
        return b"", False

    def finish(self) -> bytes:
        s = self.settings
        keep = min(len(self._held), s.trailing_keep_ms // s.frame_ms) if self.speaking else 0
        audio = b"".join(list(self._held)[:keep])
        self._held.clear()
        return audio


# -- the transformer ---------------------------------------------------------------


__all__ = [
    "END",
    "HINT",
    "IDLE",
    "SPEECH",
    "START",
    "Classifier",
    "EnergyFloored",
    "FrameClassifier",
    "Mode",
    "SpeechCallback",
    "SpeechEvent",
    "SpeechTrimmer",
    "UtteranceDetector",
    "VadConfigError",
    "VadSettings",
    "WebRtcClassifier",
]
