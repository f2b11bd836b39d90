"""A fake PortAudio backend for unit tests of app.audio: streams whose callbacks the test drives.

``FakeStream.pump()`` calls the stream callback once, exactly as PortAudio would from its own
thread (buffer, frames, time info, status); with ``thread=True`` it really does so from another
thread. Nothing here sleeps or touches real devices.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.audio.backend import OpenRequest
from app.audio.errors import AudioDeviceError


@dataclass
class FakeTime:
    currentTime: float = 1000.0
    inputBufferAdcTime: float = 0.0
    outputBufferDacTime: float = 0.0


@dataclass
class FakeStatus:
    input_overflow: bool = False
    output_underflow: bool = False

    def __bool__(self) -> bool:
        return self.input_overflow or self.output_underflow


class FakeStream:
    def __init__(self, backend: FakeBackend, request: OpenRequest, latency: float) -> None:
        self.backend = backend
        self.request = request
        self.latency = latency
        self.active = False
        self.closed = False
        self.starts = 0
        self.aborts = 0
        self.stops = 0
        self.stream_time = 1000.0

    @property
    def frame_bytes(self) -> int:
        return 2 * self.request.channels

    def start(self) -> None:
        self.active = True
        self.starts += 1

    def stop(self) -> None:
        self.active = False
        self.stops += 1

    def abort(self) -> None:
        self.active = False
        self.aborts += 1

    def close(self) -> None:
        self.active = False
        self.closed = True

    def pump(
        self,
        data: bytes | None = None,
        *,
        frames: int | None = None,
        adc_lag: float = 0.0,
        dac_delay: float = 0.0,
        overflow: bool = False,
        underflow: bool = False,
        thread: bool = False,
    ) -> bytes:
        """Run one callback; input streams get ``data`` (default silence), output streams return what was written."""
        frames = frames if frames is not None else self.request.blocksize
        size = frames * self.frame_bytes
        t = FakeTime(currentTime=self.stream_time)
        t.inputBufferAdcTime = self.stream_time - adc_lag
        t.outputBufferDacTime = self.stream_time + dac_delay
        self.stream_time += frames / self.request.rate
        status = FakeStatus(overflow, underflow)
        if self.request.direction == "input":
            buf: Any = bytes(data) if data is not None else bytes(size)
            assert len(buf) == size, f"input block must be {size} bytes"
        else:
            buf = bytearray(b"\xaa" * size)  # garbage: the callback must overwrite every byte

        def run() -> None:
            self.request.callback(buf, frames, t, status)

        if thread:
            th = threading.Thread(target=run)
            th.start()
            th.join()
        else:
            run()
        return bytes(buf)

    def finish(self) -> None:
        """Simulate PortAudio ending the stream on its own (device unplugged, server gone)."""
        self.active = False
        if self.request.finished_callback is not None:
            self.request.finished_callback()


def device(index: int, name: str, *, ins: int = 2, outs: int = 2, rate: float = 48000.0, hostapi: int = 0) -> dict[str, Any]:
    return {
        "index": index,
        "name": name,
        "hostapi": hostapi,
        "max_input_channels": ins,
        "max_output_channels": outs,
        "default_samplerate": rate,
    }


@dataclass
class FakeBackend:
    """Devices and an ``accept`` rule for formats; records every stream it opened."""

    devices: list[dict[str, Any]] = field(
        default_factory=lambda: [device(0, "Fake Mic", outs=0, rate=16000.0), device(1, "Fake Speaker", ins=0)]
    )
    default_in: int = 0
    default_out: int = 1
    accept: Callable[[OpenRequest], bool] = lambda req: True
    latency: float = 0.03
    streams: list[FakeStream] = field(default_factory=list)
    attempts: list[OpenRequest] = field(default_factory=list)
    unavailable: bool = False  # opening fails, as when the device is gone
    rescans: int = 0

    def query_devices(self) -> list[dict[str, Any]]:
        return [dict(d) for d in self.devices]

    def hostapi_names(self) -> list[str]:
        return ["FakeAPI"]

    def default_index(self, direction: str) -> int:
        return self.default_in if direction == "input" else self.default_out

    def open(self, request: OpenRequest) -> FakeStream:
        self.attempts.append(request)
        if self.unavailable:
            raise AudioDeviceError("Error opening stream: Device unavailable [PaErrorCode -9985]")
        if not self.accept(request):
            raise AudioDeviceError(f"Error opening stream: Invalid sample rate {request.rate} [PaErrorCode -9997]")
        s = FakeStream(self, request, self.latency)
        self.streams.append(s)
        return s

    def open_stream_count(self) -> int:
        return sum(1 for s in self.streams if not s.closed)

    def rescan(self) -> None:
        self.rescans += 1

    @property
    def last(self) -> FakeStream:
        return self.streams[-1]
