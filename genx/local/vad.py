"""Voice activity detection as a genx transformer: capture audio in, one route per utterance out.

Input: ``audio/L16`` blobs (any rate and channel count; converted to 16 kHz mono),
grouped by input StreamID (each input route has its own detector). Control-only
chunks describe capture routes: a BOS starts a detector (and, in external mode, an
utterance), an EOS flushes it. Every other chunk (text, tool calls) passes
through unchanged. Audio that is not ``audio/L16`` ends the output with
:class:`~genx.transformers.audiostream.pcm.AudioFormatError`.

Output (role user, label :attr:`VadSettings.label`, default ``"utterance"``): per
utterance a fresh StreamID with a control BOS (timestamp = onset), the pre-roll
(audio just before the onset decision) and the live audio as
``audio/l16; channels=1; rate=16000`` blobs, then a control EOS after the
end-of-speech silence (which is part of the utterance).

Modes:

* ``auto`` (hands-free): onset when ``onset_ratio`` of the frames in the last
  ``onset_window_ms`` are voiced (so a click does not open an utterance); end when
  at most ``end_ratio`` of the last ``end_silence_ms`` are voiced.
* ``external`` (push-to-talk): each input route *is* one utterance; the VAD only
  trims leading silence (keeping the pre-roll) and trailing silence (keeping
  ``trailing_keep_ms``). :class:`UtteranceDetector` and :class:`SpeechTrimmer` are
  the pure state machines, usable on their own.

Control: a control-only chunk labelled :data:`END_UTTERANCE` on an input route
ends that route's open utterance at that point of the audio (``end`` event, EOS)
and starts detecting afresh, so speech after it opens a new utterance with a new
onset (the voice loop sends it when an end-of-turn detector ended the turn
before the silence did).

Barge-in: the ``on_speech`` callback gets a :class:`SpeechEvent` synchronously, on
the event loop, in the same step that decides the onset (before the BOS is
queued), i.e. ``ceil(onset_ratio * window)`` voiced frames after speech starts.

Run-time tuning: :meth:`VadTransformer.tune` swaps the settings of every running
call at its next frame (e.g. raise ``aggressiveness`` / ``onset_ratio`` /
``min_energy_dbfs`` while the assistant speaks, as the echo fallback);
``frame_ms`` and ``mode`` apply to routes that start afterwards.

Frame classifiers (``VadSettings.classifier``): ``"webrtc"`` (webrtcvad, 10/20/30 ms
frames, the default) or ``"silero"`` (Silero VAD v6 from faster-whisper's assets,
32 ms frames: :mod:`genx.local.silero_vad`); the segmentation above is the same
for both. Threading: webrtcvad costs a few microseconds per frame and Silero
~0.07 ms, so frames are classified inline on the event loop; that is what keeps
the onset signal prompt.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, Protocol, runtime_checkable

from genx.chunk import Blob, MessageChunk, Role
from genx.errors import Done, GenxError
from genx.ids import new_stream_id
from genx.local.models import config_mapping, require_module
from genx.local.pcm import L16_16K_MONO, TARGET_RATE, converter_to_16k_mono, dbfs, is_audio
from genx.local.pump import spawn_transform
from genx.stream import Stream, StreamBuilder
from genx.transformers.audiostream.pcm import PCMConverter

END_UTTERANCE = "end-utterance"  # control label: end the open utterance now (see the module docstring)
log = logging.getLogger(__name__)

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
    kind: Literal["start", "end"]
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

IDLE, START, SPEECH, END = 0, 1, 2, 3


class UtteranceDetector:
    """Hands-free utterance segmentation over classified frames.

    :meth:`feed` returns ``(kind, audio)``: ``IDLE`` (audio kept as pre-roll, not
    emitted), ``START`` (audio = pre-roll including this frame), ``SPEECH`` (audio =
    this frame), ``END`` (audio = this last frame; the utterance is closed).
    """

    __slots__ = ("_end", "_frames_in_utt", "_onset", "_preroll", "_voiced_end", "_voiced_onset", "frames_seen", "in_speech", "settings")

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
            if voiced and self._voiced_onset >= self.onset_frames_needed:
                audio = b"".join(self._preroll)
                self._preroll.clear()
                self._onset.clear()
                self._voiced_onset = 0
                self.in_speech = True
                self._frames_in_utt = len(audio) // self.settings.frame_bytes
                self._end.clear()
                self._voiced_end = 0
                return START, audio
            return IDLE, b""
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


class VadTransformer:
    """Utterance segmentation with WebRTC VAD; see the module docstring for the stream contract.

    ``classifier_factory(settings)`` makes one frame classifier per input route
    (default: :class:`WebRtcClassifier`); tests pass scripted ones.
    """

    def __init__(
        self,
        settings: VadSettings | None = None,
        *,
        on_speech: SpeechCallback | None = None,
        classifier_factory: Callable[[VadSettings], FrameClassifier] | None = None,
    ) -> None:
        self._settings = (settings or VadSettings()).validate()
        self._on_speech = on_speech
        self._warm: Callable[[], Awaitable[None]] | None = None
        if classifier_factory is None and self._settings.classifier == "silero":
            from genx.local.silero_vad import SileroFactory

            silero = SileroFactory()
            self._warm = silero.warm
            classifier_factory = silero
        elif classifier_factory is None:
            require_module("webrtcvad", "webrtcvad-wheels", "the local VAD")
            classifier_factory = _webrtc_factory
        self._classifier_factory = classifier_factory

    @property
    def settings(self) -> VadSettings:
        return self._settings

    def tune(self, **changes: Any) -> VadSettings:
        """Change thresholds for every running call (from the next frame) and later calls."""
        unknown = set(changes) - {f.name for f in fields(VadSettings)}
        if unknown:
            raise VadConfigError(sorted(unknown)[0], changes[sorted(unknown)[0]], "unknown VAD setting")
        if changes.get("classifier", self._settings.classifier) != self._settings.classifier:
            raise VadConfigError("classifier", changes["classifier"], "is chosen when the VAD is built; configure another [vad] instead")
        self._settings = replace(self._settings, **changes).validate()
        return self._settings

    async def warm(self) -> None:
        """Load the Silero session in a worker thread; webrtcvad has nothing to load."""
        if self._warm is not None:
            await self._warm()

    async def transform(self, stream: Stream, *, on_speech: SpeechCallback | None = None) -> Stream:
        cb = on_speech if on_speech is not None else self._on_speech
        call = _VadCall(self, cb)
        return spawn_transform(stream, lambda out: call.run(stream, out), "vad.transform")


def _webrtc_factory(settings: VadSettings) -> FrameClassifier:
    return WebRtcClassifier(settings.aggressiveness, settings.min_energy_dbfs)


class _VadCall:
    __slots__ = ("_cb", "_owner", "_routes")

    def __init__(self, owner: VadTransformer, cb: SpeechCallback | None) -> None:
        self._owner = owner
        self._cb = cb
        self._routes: dict[str, _Route] = {}

    async def run(self, src: Stream, out: StreamBuilder) -> None:
        routes = self._routes
        try:
            while True:
                try:
                    c = await src.next()
                except Done:
                    break
                sid = c.stream_id
                part = c.part
                if isinstance(part, Blob) and is_audio(part.mime):
                    r = routes.get(sid)
                    if r is None:
                        r = routes[sid] = _Route(self, out)
                    r.audio(part.mime, part.data, c.timestamp)
                    if c.is_end_of_stream():
                        routes.pop(sid).finish(c.error)
                elif c.is_control_only() and c.ctrl is not None:
                    if c.label == END_UTTERANCE and not c.is_begin_of_stream() and not c.is_end_of_stream():
                        open_route = routes.get(sid)
                        if open_route is not None:
                            open_route.end_utterance()
                        continue
                    if c.is_begin_of_stream():
                        old = routes.pop(sid, None)
                        if old is not None:
                            old.finish("")
                        r = routes[sid] = _Route(self, out)
                        r.anchor(c.timestamp)
                        if r.external:
                            r.open_external()
                    if c.is_end_of_stream():
                        r2 = routes.pop(sid, None)
                        if r2 is not None:
                            r2.finish(c.error)
                else:
                    out.push(c)
        except BaseException as exc:
            if not out.ended:
                for r in routes.values():
                    r.finish(str(exc) or type(exc).__name__)
            routes.clear()
            raise
        for r in routes.values():
            r.finish("")
        routes.clear()

    def emit_event(self, ev: SpeechEvent) -> None:
        cb = self._cb
        if cb is None:
            return
        try:
            cb(ev)
        except Exception:
            log.exception("VAD on_speech callback failed for %s", ev)


class _Route:
    """One input route: converter, framer, classifier and (auto) detector or (external) trimmer."""

    __slots__ = (
        "_anchor_ms",
        "_applied",
        "_call",
        "_classifier",
        "_conv",
        "_conv_mime",
        "_detector",
        "_out",
        "_pending",
        "_samples",
        "_spoke",
        "_trimmer",
        "external",
        "out_sid",
        "settings",
    )

    def __init__(self, call: _VadCall, out: StreamBuilder) -> None:
        s = call._owner.settings
        self._call = call
        self._out = out
        self.settings = s
        self._applied = s
        self.external = s.mode == "external"
        self._classifier = call._owner._classifier_factory(s)
        self._detector = UtteranceDetector(s)
        self._trimmer: SpeechTrimmer | None = None
        self._conv: PCMConverter | None = None
        self._conv_mime = ""
        self._pending = bytearray()
        self._samples = 0  # 16 kHz samples framed so far
        self._anchor_ms: int | None = None
        self._spoke = False  # a "start" event was sent for the open utterance
        self.out_sid = ""

    # -- clock ---------------------------------------------------------------
    def anchor(self, ts: int) -> None:
        if ts > 0:
            self._anchor_ms = ts - (self._samples + len(self._pending) // 2) // 16

    def _ts(self, frame_index: int) -> int:
        pos = frame_index * self.settings.frame_ms
        return pos if self._anchor_ms is None else self._anchor_ms + pos

    # -- input ---------------------------------------------------------------
    def audio(self, mime: str, data: bytes, ts: int) -> None:
        if mime != self._conv_mime or self._conv is None:
            if self._conv is not None:
                self._frames(self._conv.flush())
            self._conv = converter_to_16k_mono(mime)
            self._conv_mime = mime
        self.anchor(ts)
        if data:
            self._frames(self._conv.process(data))

    def _frames(self, pcm: bytes) -> None:
        if self.external and not self.out_sid:
            self.open_external()
        self._pending += pcm
        fb = self.settings.frame_bytes
        n = len(self._pending) // fb
        if n == 0:
            return
        batch = bytearray()
        batch_start = -1
        view = bytes(self._pending[: n * fb])
        del self._pending[: n * fb]
        for i in range(n):
            frame = view[i * fb : (i + 1) * fb]
            self._retune_if_needed()
            voiced = self._classifier.is_speech(frame)
            self._samples += fb // 2
            index = self._samples // (fb // 2) - 1
            if self.external:
                audio, started = self._trim(frame, voiced)
                if started:
                    self._flush(batch, batch_start)
                    batch = bytearray(audio)
                    batch_start = index + 1 - len(audio) // fb
                elif audio:
                    if batch_start < 0:
                        batch_start = index + 1 - len(audio) // fb
                    batch += audio
                continue
            kind, audio = self._detector.feed(frame, voiced)
            if kind == IDLE:
                continue
            if kind == START:
                first = self._detector.onset_position_frames(audio)
                self._open(self._ts(first), first * self.settings.frame_ms)
                batch = bytearray(audio)
                batch_start = first
            elif kind == SPEECH:
                if batch_start < 0:
                    batch_start = index
                batch += audio
            else:  # END
                if batch_start < 0:
                    batch_start = index
                batch += audio
                self._flush(batch, batch_start)
                batch, batch_start = bytearray(), -1
                self._close("", index + 1)
        self._flush(batch, batch_start)

    def _trim(self, frame: bytes, voiced: bool) -> tuple[bytes, bool]:
        t = self._trimmer
        if t is None:
            t = self._trimmer = SpeechTrimmer(self.settings)
        audio, started = t.feed(frame, voiced)
        if started:
            self._spoke = True
            pos = self._samples // (self.settings.frame_bytes // 2) - len(audio) // self.settings.frame_bytes
            self._call.emit_event(SpeechEvent("start", self.out_sid, self._ts(pos), pos * self.settings.frame_ms))
        return audio, started

    def _retune_if_needed(self) -> None:
        current = self._call._owner.settings
        if current is self._applied:
            return
        self._applied = current
        self.settings = replace(current, frame_ms=self.settings.frame_ms, mode=self.settings.mode, classifier=self.settings.classifier)
        self._classifier.set_aggressiveness(current.aggressiveness)
        if isinstance(self._classifier, EnergyFloored):
            self._classifier.min_energy_dbfs = current.min_energy_dbfs
        self._detector.retune(self.settings)
        if self._trimmer is not None:
            self._trimmer.retune(self.settings)

    # -- output --------------------------------------------------------------
    def _open(self, ts: int, position_ms: int) -> None:
        sid = self.out_sid = new_stream_id()
        self._spoke = True
        self._call.emit_event(SpeechEvent("start", sid, ts, position_ms))
        self._out.push(MessageChunk.bos(sid, role=Role.USER, label=self.settings.label, timestamp=ts))

    def open_external(self) -> None:
        if self.out_sid:
            return
        sid = self.out_sid = new_stream_id()
        self._trimmer = SpeechTrimmer(self.settings)
        self._out.push(
            MessageChunk.bos(
                sid, role=Role.USER, label=self.settings.label, timestamp=self._ts(self._samples // 16 // self.settings.frame_ms)
            )
        )

    def _flush(self, batch: bytearray, first_frame: int) -> None:
        if batch and self.out_sid:
            self._out.push(
                MessageChunk.blob(
                    L16_16K_MONO,
                    bytes(batch),
                    role=Role.USER,
                    stream_id=self.out_sid,
                    label=self.settings.label,
                    timestamp=self._ts(first_frame),
                )
            )

    def _close(self, error: str, end_frame: int) -> None:
        sid = self.out_sid
        if not sid:
            return
        self.out_sid = ""
        ts = self._ts(end_frame)
        if self._spoke and not error:
            self._call.emit_event(SpeechEvent("end", sid, ts, end_frame * self.settings.frame_ms))
        self._spoke = False
        self._out.push(MessageChunk.eos(sid, role=Role.USER, label=self.settings.label, error=error, timestamp=ts))

    def end_utterance(self) -> None:
        """Close the open utterance here (hands-free) and detect the next one from scratch."""
        if self.external:
            return
        self._close("", self._samples // (self.settings.frame_bytes // 2))
        self._detector = UtteranceDetector(self.settings)

    def finish(self, error: str) -> None:
        """The input route ended: flush the converter and close an open utterance."""
        if self._out.ended:
            return
        if self._conv is not None and not error:
            tail = self._conv.flush()
            if tail:
                self._frames(tail)
        frame_index = self._samples // (self.settings.frame_bytes // 2)
        if self.external and self._trimmer is not None and self.out_sid and not error:
            tail_audio = self._trimmer.finish()
            if tail_audio:
                self._flush(bytearray(tail_audio), frame_index - len(tail_audio) // self.settings.frame_bytes)
        self._close(error, frame_index)


def from_config(spec: object = None, secrets: object = None, *, on_speech: SpeechCallback | None = None) -> VadTransformer:
    """Build from a ``VadSpec`` or a mapping whose keys are :class:`VadSettings` fields."""
    spec = config_mapping(spec, "VAD")
    known = {f.name for f in fields(VadSettings)}
    for key in spec:
        if key not in known:
            raise VadConfigError(key, spec[key], f"unknown VAD setting; known: {', '.join(sorted(known))}")
    return VadTransformer(VadSettings(**spec), on_speech=on_speech)


__all__ = [
    "END_UTTERANCE",
    "EnergyFloored",
    "FrameClassifier",
    "SpeechEvent",
    "SpeechTrimmer",
    "UtteranceDetector",
    "VadConfigError",
    "VadSettings",
    "VadTransformer",
    "WebRtcClassifier",
    "from_config",
]
