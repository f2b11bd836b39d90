"""A device open that finishes after the caller gave up (timeout, cancellation) must not leak a running stream."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from audio_fakes import FakeBackend, FakeStream, device

from app.audio.backend import OpenRequest
from app.audio.errors import AudioDeviceError
from app.audio.link import DeviceLink, EventHub
from genx.threads import start_thread


class ClosingStream(FakeStream):
    """A fake stream that tells its backend (thread-safely) when it is closed."""

    backend: SlowOpenBackend

    def close(self) -> None:
        super().close()
        self.backend.closed.set()


class SlowOpenBackend(FakeBackend):
    """``open`` blocks until the test releases it, then returns a stream (as a hung sound server that recovers)."""

    def __init__(self) -> None:
        super().__init__(devices=[device(0, "Slow Mic", outs=0, ins=1, rate=16000.0)], default_in=0)
        self.entered = threading.Event()
        self.release = threading.Event()
        self.closed = threading.Event()

    def open(self, request: OpenRequest) -> ClosingStream:
        self.entered.set()
        assert self.release.wait(10), "the test never released the open"
        s = ClosingStream(self, request, self.latency)
        self.streams.append(s)
        return s


def _link(backend: FakeBackend, opened: list[Any], *, timeout: float) -> DeviceLink:
    return DeviceLink(
        direction="input",
        spec=None,
        rate=16000,
        latency="low",
        backend=backend,
        blocksize=lambda fmt: 320,
        make_callback=lambda fmt, gen: lambda *a: None,
        on_opened=lambda dev, fmt, stream, gen: opened.append(stream),
        on_lost=lambda: None,
        events=EventHub(),
        control_timeout=timeout,
    )


async def _wait_thread_event(ev: threading.Event) -> bool:
    return await asyncio.to_thread(ev.wait, 5.0)


async def test_an_open_that_times_out_closes_the_stream_it_returns_late() -> None:
    be = SlowOpenBackend()
    opened: list[Any] = []
    link = _link(be, opened, timeout=0.05)
    with pytest.raises(AudioDeviceError, match="did not finish"):
        await link.open()
    assert link.state == "idle"
    be.release.set()  # the hung open now returns a started stream that nobody owns
    assert await _wait_thread_event(be.closed), "the late stream was left open (the microphone stays on)"
    (stream,) = be.streams
    assert stream.starts == 1 and not stream.active and be.open_stream_count() == 0
    assert opened == []  # the link never adopted it


async def test_a_cancelled_open_closes_the_stream_it_returns_late() -> None:
    be = SlowOpenBackend()
    opened: list[Any] = []
    link = _link(be, opened, timeout=30.0)
    task = asyncio.create_task(link.open())
    assert await _wait_thread_event(be.entered)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    be.release.set()
    assert await _wait_thread_event(be.closed), "the late stream was left open (the microphone stays on)"
    assert be.open_stream_count() == 0 and opened == []


async def test_an_open_in_time_keeps_its_stream_open() -> None:
    be = SlowOpenBackend()
    be.release.set()
    opened: list[Any] = []
    link = _link(be, opened, timeout=5.0)
    await link.open()
    try:
        assert len(opened) == 1 and be.open_stream_count() == 1 and link.state == "running"
    finally:
        await link.close()
    assert be.open_stream_count() == 0


async def test_start_thread_hands_a_result_nobody_awaits_any_more_to_on_abandoned() -> None:
    release, released = threading.Event(), threading.Event()
    got: list[object] = []

    def work() -> str:
        release.wait(10)
        return "late result"

    def abandoned(value: str) -> None:
        got.append((value, threading.current_thread() is threading.main_thread()))
        released.set()

    fut = start_thread(work, name="late", daemon=True, on_abandoned=abandoned)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(fut, 0.01)
    release.set()
    assert await _wait_thread_event(released)
    assert got == [("late result", False)]  # released off the event-loop thread


async def test_start_thread_does_not_call_on_abandoned_for_a_result_that_was_taken() -> None:
    called: list[object] = []
    fut = start_thread(lambda: 7, name="quick", daemon=True, on_abandoned=called.append)
    assert await fut == 7
    assert called == []
