"""One call of the VAD transformer: its input routes, each with a converter, framer, classifier and state machine.

:class:`VadCall` reads the input stream and keeps one :class:`Route` per input
StreamID; every call owns its own state (no transformer-wide lock).

Does not own: the transformer and its settings (:mod:`genx.local.vad`), the
segmentation state machines (:mod:`genx.local.vad_segment`).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from genx.chunk import MessageChunk, Role
from genx.ids import new_stream_id
from genx.local.pcm import L16_16K_MONO
from genx.local.route_input import RouteConverter, route_chunks

# the segmentation (settings, classifiers, state machines) is genx.local.vad_segment; its names are exported here too
from genx.local.vad_segment import (
    HINT,
    IDLE,
    SPEECH,
    START,
    EnergyFloored,
    SpeechCallback,
    SpeechEvent,
    SpeechTrimmer,
    UtteranceDetector,
)
from genx.stream import Stream, StreamBuilder

if TYPE_CHECKING:
    from genx.local.vad import VadTransformer

END_UTTERANCE = "end-utterance"  # control label: end the open utterance now (see genx.local.vad)
log = logging.getLogger("genx.local.vad")


class VadCall:
    __slots__ = ("_cb", "_owner", "_routes")

    def __init__(self, owner: VadTransformer, cb: SpeechCallback | None) -> None:
        self._owner = owner
        self._cb = cb
        self._routes: dict[str, Route] = {}

    async def run(self, src: Stream, out: StreamBuilder) -> None:
        routes = self._routes
        try:
            async for c, blob in route_chunks(src):
                sid = c.stream_id
                if blob is not None:
                    r = routes.get(sid)
                    if r is None:
                        r = routes[sid] = Route(self, out)
                    r.audio(blob.mime, blob.data, c.timestamp)
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
                        r = routes[sid] = Route(self, out)
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


class Route:
    """One input route: converter, framer, classifier and (auto) detector or (external) trimmer."""

    __slots__ = (
        "_anchor_ms",
        "_applied",
        "_call",
        "_classifier",
        "_conv",
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

    def __init__(self, call: VadCall, out: StreamBuilder) -> None:
        s = call._owner.settings
        self._call = call
        self._out = out
        self.settings = s
        self._applied = s
        self.external = s.mode == "external"
        self._classifier = call._owner._classifier_factory(s)
        self._detector = UtteranceDetector(s)
        self._trimmer: SpeechTrimmer | None = None
        self._conv = RouteConverter()
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
        tail = self._conv.switch(mime)
        if tail is not None:
            self._frames(tail)
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
            if kind == HINT:
                pos = index + 1 - self.settings.hint_frames  # the first frame of the voiced run
                self._call.emit_event(SpeechEvent("voice", "", self._ts(pos), pos * self.settings.frame_ms))
                continue
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
        if not error:
            tail = self._conv.flush()
            if tail:
                self._frames(tail)
        frame_index = self._samples // (self.settings.frame_bytes // 2)
        if self.external and self._trimmer is not None and self.out_sid and not error:
            tail_audio = self._trimmer.finish()
            if tail_audio:
                self._flush(bytearray(tail_audio), frame_index - len(tail_audio) // self.settings.frame_bytes)
        self._close(error, frame_index)


__all__ = ["END_UTTERANCE", "Route", "VadCall"]
