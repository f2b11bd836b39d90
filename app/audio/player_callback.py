"""The player's PortAudio side: the callback that hands buffered blocks to the device, and its reports on the loop.

The callback runs on PortAudio's thread; it only copies bytes under the lock and posts one report per block to the
loop. The report turns the block's DAC time into each route's timeline (what is audible when), counts underruns and
passes positions to the listeners.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import numpy as np

from app.audio.backend import StreamCallback
from app.audio.devices import StreamFormat
from app.audio.link import AudioEvent, DeviceLink
from app.audio.pcm import SILENCE_DBFS
from app.audio.player_routes import DOUBT_CLEARS_S, _heard_frames, _Report, _Route
from app.audio.player_state import _call, _PlayerState

_EVENT_COALESCE_S = 1.0


class _Callback(_PlayerState):
    """The PortAudio callback and the per-block accounting of the routes it played (a mixin of ``Player``)."""

    # -- PortAudio thread -----------------------------------------------------------
    def _make_callback(self, fmt: StreamFormat, gen: int) -> StreamCallback:
        loop = self._loop
        link = self._link
        assert loop is not None and link is not None
        frame_bytes = 2 * fmt.channels
        rate = fmt.rate
        lock = self._lock
        buf = self._buf
        counts = self._cb_frames
        report = self._on_consumed
        clock = self._clock
        applied = [1.0]  # the gain the last block ended on (ramp from it: no click)

        def callback(outdata: Any, frames: int, time_info: Any, status: Any) -> None:
            now = clock()
            link.last_callback = time.monotonic()
            need = frames * frame_bytes
            written = 0
            reports: list[_Report] | None = None
            level = SILENCE_DBFS
            with lock:
                while buf and (written < need or buf[0].end):
                    seg = buf[0]
                    sid = seg.sid
                    before = counts.get(sid, 0)
                    if seg.end:
                        buf.popleft()
                        f = written // frame_bytes
                        (reports := reports or []).append((sid, before, before, f, f, True))
                        continue
                    n = min(len(seg.data) - seg.offset, need - written)
                    outdata[written : written + n] = memoryview(seg.data)[seg.offset : seg.offset + n]
                    seg.offset += n
                    after = before + n // frame_bytes
                    counts[sid] = after
                    (reports := reports or []).append((sid, before, after, written // frame_bytes, (written + n) // frame_bytes, False))
                    written += n
                    level = seg.level
                    if seg.offset >= len(seg.data):
                        buf.popleft()
                self._buffered -= written
                underrun = written < need and self._cb_active
                gain = self._gain
            if written and (gain != 1.0 or applied[0] != 1.0):
                _apply_gain(outdata, written, applied[0], gain)
                applied[0] = gain
            if written < need:
                zeros = self._zeros
                if len(zeros) < need - written:
                    zeros = self._zeros = bytes(need)
                outdata[written:need] = memoryview(zeros)[: need - written]
            try:
                delay = float(time_info.outputBufferDacTime) - float(time_info.currentTime)
                if not 0.0 <= delay < 2.0 or time_info.outputBufferDacTime <= 0:
                    delay = _fallback_delay(link)
            except (AttributeError, TypeError, ValueError):
                delay = _fallback_delay(link)
            # the device ran dry: heard only while a route plays (idle silence that arrives late is silence)
            device_underflow = bool(getattr(status, "output_underflow", False)) and (self._cb_active or reports is not None)
            if reports is not None or underrun or device_underflow:
                with contextlib.suppress(RuntimeError):  # loop closed
                    loop.call_soon_threadsafe(report, gen, reports, now + delay, rate, level, underrun, device_underflow, delay, frames)

        return callback

    # -- event loop: reports --------------------------------------------------------
    def _on_consumed(
        self,
        gen: int,
        reports: list[_Report] | None,
        dac_at: float,
        rate: int,
        level: float,
        underrun: bool,
        device_underflow: bool,
        delay: float,
        frames: int,
    ) -> None:
        link = self._link
        if link is None or gen != link.generation:
            return
        self._last_block_at = dac_at - delay  # when the device last asked for audio (it was running then)
        dac_at = self._after_previous_block(gen, dac_at, frames / rate if rate else 0.0)
        self.output_delay = delay
        self.level_dbfs = level if reports else SILENCE_DBFS
        if underrun or device_underflow:
            self.underruns += int(underrun)
            self.device_underflows += int(device_underflow)
            if dac_at - self._last_underrun_event >= _EVENT_COALESCE_S:
                self._last_underrun_event = dac_at
                what = "the stream did not deliver audio in time" if underrun else "the device ran dry"
                self._events.emit(
                    AudioEvent(
                        "underrun", "output", link.device_label, f"{what}; silence inserted", count=self.underruns + self.device_underflows
                    )
                )
        if device_underflow:
            for dry in self._routes.values():
                if dry.started and not dry.ended:
                    dry.clean_frames = 0
                    if dry.doubt_from is None:
                        dry.doubt_from = _heard_frames(dry.timeline, dac_at)  # what was audible before the gap
        if reports:
            self._space.set()
            now = self._clock()
            touched: dict[str, _Route] = {}
            for sid, before, after, f0, f1, ended in reports:
                r = self._routes.get(sid)
                if r is None or r.ended:
                    continue
                r.frames_played = after
                if r.doubt_from is not None and not device_underflow:
                    r.clean_frames += after - before
                    if r.clean_frames >= DOUBT_CLEARS_S * rate:
                        r.doubt_from = None
                t0, t1 = dac_at + f0 / rate, dac_at + f1 / rate
                if after > before:
                    r.timeline.append((t0, t1, before, after))
                r.audible_at = t1
                if ended:
                    touched.pop(sid, None)
                    pos = self._position(r, after, now)
                    pos.samples_played = r.received  # the whole route was handed out
                    self._finish_route(r, pos)
                else:
                    touched[sid] = r
            for r in touched.values():
                pos = self._position(r, r.frames_played, now)
                for cb in list(self._played_listeners):
                    _call(cb, pos)
        self._update_idle()

    def _after_previous_block(self, gen: int, dac_at: float, duration: float) -> float:
        """When a block handed out now becomes audible: not before the block before it has played.

        Over PulseAudio a loaded machine gets its callbacks in bursts that refill a deep server buffer while each
        reports a small DAC delay; taken alone those delays would count seconds still queued as heard. The
        reported delay jitters too, so a block may start up to ``_DAC_JITTER_S`` before the last one's end: the
        rule then never pushes the timeline later by more than one jitter (no ratchet from late estimates)."""
        if gen != self._dev_gen:
            self._dev_gen, self._dev_end = gen, 0.0
        start = max(dac_at, self._dev_end - _DAC_JITTER_S)
        self._dev_end = start + duration
        return start


def _apply_gain(outdata: Any, nbytes: int, start: float, end: float) -> None:
    """Scale the first ``nbytes`` of int16 ``outdata`` in place, ramping the gain from ``start`` to ``end``."""
    x = np.frombuffer(outdata, dtype="<i2", count=nbytes // 2)
    ramp = np.linspace(start, end, x.size, dtype=np.float32) if start != end else np.float32(end)
    x[:] = np.clip(np.rint(x * ramp), -32768, 32767).astype("<i2")


# how much earlier than the previous block's end a block's reported DAC time may say it starts, and still be believed
_DAC_JITTER_S = 0.004


def _fallback_delay(link: DeviceLink) -> float:
    stream = link.stream
    return stream.latency if stream is not None else 0.0
