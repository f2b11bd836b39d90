"""Microphone capture on a fake device: callback handoff, chunking, timestamps, mute, overflow, loss."""

from __future__ import annotations

import asyncio
import time

import numpy as np
import pytest
from audio_fakes import FakeBackend, device

from app.audio.capture import Capture
from app.audio.errors import AudioError
from app.audio.link import AudioEvent
from app.audio.pcm import SILENCE_DBFS
from genx.chunk import Blob, MessageChunk, Role
from genx.errors import Done


class Clock:
    def __init__(self) -> None:
        self.t = 50.0

    def __call__(self) -> float:
        return self.t


def mic_backend(rate: float = 16000.0, accept_rate: int | None = None) -> FakeBackend:
    return FakeBackend(
        devices=[device(0, "Fake Mic", outs=0, ins=1, rate=rate)],
        default_in=0,
        accept=(lambda r: r.rate == accept_rate) if accept_rate else (lambda r: True),
    )


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def drain_now(stream_chunks: list[MessageChunk]) -> bytes:
    return b"".join(c.part.data for c in stream_chunks if isinstance(c.part, Blob))


async def take(cap: Capture, n: int) -> list[MessageChunk]:
    return [await asyncio.wait_for(cap.stream.next(), 1.0) for _ in range(n)]


def ramp(n: int, start: int = 1) -> bytes:
    return (np.arange(start, start + n) % 30000).astype("<i2").tobytes()


async def test_blocks_become_fixed_size_l16_chunks_in_order() -> None:
    be = mic_backend()
    cap = Capture(backend=be, chunk_ms=20)
    await cap.start()
    dev = be.last
    assert dev.request.rate == 16000 and dev.request.blocksize == 320 and dev.request.channels == 1
    data = ramp(320 * 3)
    for i in range(3):
        dev.pump(data[i * 640 : (i + 1) * 640])
    await settle()
    chunks = await take(cap, 3)
    assert all(c.mime() == "audio/l16; channels=1; rate=16000" for c in chunks)
    assert all(c.role == Role.USER for c in chunks)
    assert [c.content_size() for c in chunks] == [640, 640, 640]
    assert drain_now(chunks) == data
    await cap.stop()


async def test_callback_from_the_portaudio_thread_hands_blocks_to_the_loop() -> None:
    be = mic_backend()
    cap = Capture(backend=be, chunk_ms=20)
    await cap.start()
    be.last.pump(ramp(320), thread=True)
    chunk = await asyncio.wait_for(cap.stream.next(), 1.0)
    assert chunk.part is not None and chunk.part.size() == 640
    await cap.stop()


async def test_device_that_refuses_16k_is_opened_at_48k_and_resampled() -> None:
    be = mic_backend(rate=48000.0, accept_rate=48000)
    cap = Capture(backend=be, chunk_ms=20)
    await cap.start()
    dev = be.last
    assert cap.device_format is not None and cap.device_format.rate == 48000
    assert dev.request.blocksize == 960
    t = np.arange(48000) / 48000
    tone = (np.sin(2 * np.pi * 1000 * t) * 10000).astype("<i2").tobytes()
    for i in range(50):
        dev.pump(tone[i * 1920 : (i + 1) * 1920])
    await settle()
    chunks = await take(cap, 45)
    assert all(c.content_size() == 640 for c in chunks)
    y = np.frombuffer(drain_now(chunks), dtype="<i2")[1600:]  # skip the filter's start-up
    spectrum = np.abs(np.fft.rfft(y))
    assert abs(np.argmax(spectrum) * 16000 / len(y) - 1000) < 5
    await cap.stop()


async def test_stereo_device_is_downmixed() -> None:
    be = FakeBackend(devices=[device(0, "Stereo Mic", outs=0, ins=2, rate=16000.0)], accept=lambda r: r.channels == 2)
    cap = Capture(backend=be)
    await cap.start()
    stereo = np.empty((320, 2), dtype="<i2")
    stereo[:, 0], stereo[:, 1] = 100, 300
    be.last.pump(stereo.tobytes())
    await settle()
    (chunk,) = await take(cap, 1)
    assert isinstance(chunk.part, Blob)
    assert set(np.frombuffer(chunk.part.data, dtype="<i2").tolist()) == {200}
    await cap.stop()


async def test_timestamps_are_adc_time_on_the_monotonic_clock_and_spaced_by_the_sample_count() -> None:
    clock = Clock()
    be = mic_backend()
    cap = Capture(backend=be, clock=clock)
    await cap.start()
    dev = be.last
    for i in range(4):
        clock.t = 50.0 + 0.020 * i + (0.003 if i % 2 else 0.0)  # callback jitter of 3 ms
        dev.pump(adc_lag=0.030)
    await settle()
    chunks = await take(cap, 4)
    assert [c.timestamp for c in chunks] == [49970, 49990, 50010, 50030]
    assert not any(c.meta for c in chunks)
    await cap.stop()


async def test_overflow_is_counted_reported_and_marks_a_discontinuity() -> None:
    clock = Clock()
    be = mic_backend()
    cap = Capture(backend=be, clock=clock)
    events: list[AudioEvent] = []
    cap.add_listener(events.append)
    await cap.start()
    dev = be.last
    dev.pump()
    clock.t += 0.5  # 480 ms of audio lost
    dev.pump(overflow=True)
    await settle()
    first, second = await take(cap, 2)
    assert cap.overflows == 1
    assert [e.kind for e in events if e.kind == "overflow"] == ["overflow"]
    assert second.meta == {"discontinuity": True}
    assert second.timestamp - first.timestamp == 500
    await cap.stop()


async def test_mute_sends_silence_but_keeps_the_timeline_and_the_level_meter() -> None:
    be = mic_backend()
    cap = Capture(backend=be)
    await cap.start()
    loud = (np.ones(320) * 16384).astype("<i2").tobytes()
    cap.muted = True
    be.last.pump(loud)
    await settle()
    (chunk,) = await take(cap, 1)
    assert isinstance(chunk.part, Blob) and chunk.part.data == bytes(640)
    assert abs(cap.level_dbfs - (-6.02)) < 0.1
    cap.muted = False
    be.last.pump(bytes(640))
    await settle()
    await take(cap, 1)
    assert cap.level_dbfs == SILENCE_DBFS
    await cap.stop()


async def test_lost_device_is_reported_and_reopened_when_it_comes_back() -> None:
    be = mic_backend()
    cap = Capture(backend=be, backoff=(0.01, 0.02))
    events: list[AudioEvent] = []
    cap.add_listener(events.append)
    await cap.start()
    dead = be.last
    dead.pump(ramp(320))
    await settle()
    be.unavailable = True
    dead.finish()
    await asyncio.sleep(0.05)
    dead.pump(ramp(320))  # a late block from the dead stream is ignored
    await settle()
    kinds = [e.kind for e in events]
    assert kinds[:3] == ["opened", "device_lost", "reopen_failed"]
    assert cap.state == "lost"
    assert be.rescans >= 1  # no other stream open: PortAudio is re-scanned to find a replugged device
    be.unavailable = False
    for _ in range(100):
        await asyncio.sleep(0.01)
        if cap.state == "running":
            break
    assert "reopened" in [e.kind for e in events]
    fresh = be.last
    assert fresh is not dead and fresh.active and dead.closed
    fresh.pump(ramp(320, start=7))
    await settle()
    _first, second = await take(cap, 2)
    assert isinstance(second.part, Blob) and second.part.data == ramp(320, start=7)
    assert second.meta == {"discontinuity": True}
    await cap.stop()


async def test_a_stalled_callback_counts_as_a_lost_device() -> None:
    be = mic_backend()
    cap = Capture(backend=be, stall_timeout=0.05, backoff=(0.01, 0.02), reopen=False)
    events: list[AudioEvent] = []
    cap.add_listener(events.append)
    await cap.start()
    await asyncio.sleep(0.4)
    assert "device_lost" in [e.kind for e in events]
    assert "no audio callback" in next(e.message for e in events if e.kind == "device_lost")
    await cap.stop()


async def test_a_stall_of_the_whole_process_is_not_a_lost_device_but_silence_after_it_still_is() -> None:
    be = mic_backend()
    cap = Capture(backend=be, stall_timeout=1.0, backoff=(5.0, 5.0), reopen=False)
    events: list[AudioEvent] = []
    cap.add_listener(events.append)
    await cap.start()
    dev = be.last
    dev.pump(ramp(320))
    await asyncio.sleep(0.25)  # the watchdog has run once, on time
    time.sleep(1.5)  # noqa: ASYNC251 (on purpose: the process stalls, a loaded machine: no callbacks, no event loop)
    for _ in range(3):
        await asyncio.sleep(0)  # the loop comes back first: the watchdog wakes 1.5 s late
    dev.pump(ramp(320))  # then the audio thread: callbacks go on
    await asyncio.sleep(0.3)
    assert "device_lost" not in [e.kind for e in events]
    await asyncio.sleep(1.5)  # and now a real silence of more than stall_timeout
    assert "device_lost" in [e.kind for e in events]
    await cap.stop()


async def test_closing_the_stream_stops_the_device_and_stop_ends_it_with_done() -> None:
    be = mic_backend()
    cap = Capture(backend=be)
    stream = await cap.start()
    await stream.close()
    for _ in range(20):
        await asyncio.sleep(0.01)
        if be.last.closed:
            break
    assert be.last.closed

    be2 = mic_backend()
    cap2 = Capture(backend=be2)
    s2 = await cap2.start()
    await cap2.stop()
    with pytest.raises(Done):
        await s2.next()
    assert be2.last.closed


async def test_slow_consumer_loses_the_newest_chunks_beyond_the_queue_limit() -> None:
    be = mic_backend()
    cap = Capture(backend=be, max_queue_ms=100)
    events: list[AudioEvent] = []
    cap.add_listener(events.append)
    await cap.start()
    for _ in range(8):
        be.last.pump()
    await settle()
    assert cap.dropped == 3
    assert [e.kind for e in events].count("dropped") == 1
    chunks = await take(cap, 5)
    assert len(chunks) == 5
    await cap.stop()


def test_bad_settings_are_typed_errors() -> None:
    with pytest.raises(AudioError, match="chunk_ms=40"):
        Capture(chunk_ms=40)
    with pytest.raises(AudioError, match="11025"):
        Capture(rate=11025)
