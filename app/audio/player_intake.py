"""The player's route intake: chunks pulled from a stream open, feed and end routes.

A BOS (or the first audio) opens a route; ``audio/L16`` blobs are converted to the device format (soxr resampling,
up-mix) into the route's pending audio; an EOS ends it, and an EOS with an error drops what was not handed out.
"""

from __future__ import annotations

from collections import deque

from app.audio.errors import AudioFormatError
from app.audio.link import AudioEvent
from app.audio.pcm import Resampler, downmix, parse_l16, upmix
from app.audio.player_routes import _Route
from app.audio.player_state import _PlayerState
from genx.chunk import Blob, MessageChunk


class _Intake(_PlayerState):
    """Routes from the chunks of the streams being played (a mixin of ``Player``)."""

    def _handle(self, chunk: MessageChunk) -> None:
        sid = chunk.stream_id
        part = chunk.part
        is_audio = isinstance(part, Blob) and part.mime.startswith("audio/")
        r = self._routes.get(sid)
        if (r is not None and r.eos) or (r is None and sid in self._closed_sids):
            return  # after the route's EOS or stop: nothing more belongs to it
        if r is None:
            # A route starts with a control-only or audio BOS, or with its first audio.
            if not (is_audio or (chunk.is_begin_of_stream() and part is None)):
                return
            r = _Route(sid)
            self._routes[sid] = r
            self._idle.clear()
        if is_audio and isinstance(part, Blob) and part.data and not r.eos:
            self._add_audio(r, part)
        if chunk.is_end_of_stream() and (part is None or is_audio):
            self._end_route(r, error=chunk.error)

    def _add_audio(self, r: _Route, part: Blob) -> None:
        fmt = self._fmt
        if fmt is None or r.bad_format:
            return
        try:
            src = parse_l16(part.mime)
        except AudioFormatError as e:
            r.bad_format = True
            label = self._link.device_label if self._link is not None else "?"
            self._events.emit(AudioEvent("format", "output", label, f"route {r.sid or '(no id)'}: {e}"))
            return
        if r.fmt is None:
            r.fmt = src
        elif r.fmt != src:  # a format change inside a route: flush the old resampler first
            if r.resampler is not None:
                r.pending += upmix(r.resampler.flush(), fmt.channels).tobytes()
            r.resampler = None
            r.fmt = src
        if r.resampler is None or r.resampler.out_rate != fmt.rate:
            r.resampler = Resampler(src.rate, fmt.rate)
        mono = downmix(part.data, src.channels)
        r.received += mono.size
        out = r.resampler.process(mono)
        if out.size:
            r.pending += upmix(out, fmt.channels).tobytes()

    def _end_route(self, r: _Route, *, error: str) -> None:
        if r.eos or r.ended:
            return
        r.eos = True
        if not error:
            if r.resampler is not None and self._fmt is not None:
                r.pending += upmix(r.resampler.flush(), self._fmt.channels).tobytes()
            return
        # An EOS with an error (interrupted upstream): drop what was not handed out yet.
        r.pending.clear()
        r.interrupted = True
        with self._lock:
            kept = deque(s for s in self._buf if s.sid != r.sid)
            self._buffered = sum(len(s.data) - s.offset for s in kept)
            self._buf.clear()
            self._buf.extend(kept)
            frames = self._cb_frames.get(r.sid, r.frames_played)
        r.marker_queued = True
        r.frames_played = frames
        self._finish_route(r, self._position(r, frames, self._clock()))
        self._space.set()
