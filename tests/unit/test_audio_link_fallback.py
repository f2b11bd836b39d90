"""A chosen device that goes away: the system default stands in, with a notice, until the chosen one is back."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from audio_fakes import FakeBackend, device

from app.audio.link import AudioEvent, DeviceLink, EventHub

HEADSET = 2


def _backend() -> FakeBackend:
    return FakeBackend(
        devices=[device(0, "Built-in Mic", outs=0, rate=16000.0), device(1, "Speaker", ins=0), device(HEADSET, "USB Headset Mic", outs=0)]
    )


def _link(be: FakeBackend, spec: str | None, events: list[AudioEvent], *, can_return: Callable[[], bool] = lambda: True) -> DeviceLink:
    hub = EventHub()
    hub.add(events.append)
    link = DeviceLink(
        direction="input",
        spec=spec,
        rate=16000,
        latency="low",
        backend=be,
        blocksize=lambda fmt: fmt.rate // 50,
        make_callback=lambda fmt, gen: lambda *a: None,
        on_opened=lambda *a: None,
        on_lost=lambda: None,
        events=hub,
        backoff=(0.01, 0.02),
        return_interval=0.02,
        can_return=can_return,
    )
    return link


async def _until(pred: Callable[[], bool], limit_s: float = 2.0) -> None:
    deadline = asyncio.get_running_loop().time() + limit_s
    while not pred():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def test_an_unplugged_headset_falls_back_to_the_default_and_is_used_again_when_it_returns() -> None:
    be = _backend()
    events: list[AudioEvent] = []
    link = _link(be, "headset", events)
    await link.open()
    assert link.device is not None and link.device.index == HEADSET
    be.accept = lambda req: req.device != HEADSET  # unplugged
    be.last.finish()
    await _until(lambda: "fallback" in [e.kind for e in events])
    assert link.state == "running" and link.on_fallback
    assert link.device is not None and link.device.index == 0
    notice = next(e for e in events if e.kind == "fallback")
    assert "USB Headset Mic is not available" in notice.message and "system default microphone" in notice.message
    on_default = be.last
    assert on_default.request.device == 0 and on_default.active

    be.accept = lambda req: True  # plugged in again
    await _until(lambda: "returned" in [e.kind for e in events])
    assert link.device is not None and link.device.index == HEADSET and not link.on_fallback
    assert be.last.request.device == HEADSET and be.last.active
    await _until(lambda: on_default.closed)
    assert be.open_stream_count() == 1
    assert [e.kind for e in events if e.kind in ("device_lost", "fallback", "returned")] == ["device_lost", "fallback", "returned"]
    await link.close()


async def test_the_switch_back_waits_while_the_owner_holds_it() -> None:
    be = _backend()
    events: list[AudioEvent] = []
    hold = [True]
    link = _link(be, "USB Headset Mic", events, can_return=lambda: not hold[0])
    await link.open()
    be.accept = lambda req: req.device != HEADSET
    be.last.finish()
    await _until(lambda: link.on_fallback)
    be.accept = lambda req: True
    await asyncio.sleep(0.1)
    assert link.on_fallback and "returned" not in [e.kind for e in events]
    hold[0] = False
    await _until(lambda: not link.on_fallback)
    await link.close()


async def test_following_the_system_default_never_falls_back_it_just_reopens_the_default() -> None:
    be = _backend()
    events: list[AudioEvent] = []
    link = _link(be, None, events)
    await link.open()
    assert link.device is not None and link.device.index == 0
    be.default_in = HEADSET  # the system default changed meanwhile
    be.last.finish()
    await _until(lambda: "reopened" in [e.kind for e in events])
    assert link.device is not None and link.device.index == HEADSET
    assert "fallback" not in [e.kind for e in events] and not link.on_fallback
    await link.close()


async def test_a_listed_device_that_does_not_open_at_start_is_stood_in_for_but_an_unknown_name_is_an_error() -> None:
    import pytest

    from app.audio.errors import AudioDeviceError

    be = _backend()
    be.accept = lambda req: req.device != HEADSET
    events: list[AudioEvent] = []
    link = _link(be, "USB Headset", events)
    await link.open()
    assert [e.kind for e in events][:2] == ["fallback", "opened"] and link.on_fallback
    be.accept = lambda req: True
    await _until(lambda: "returned" in [e.kind for e in events])
    assert link.device is not None and link.device.index == HEADSET
    await link.close()

    with pytest.raises(AudioDeviceError, match="no input device matches 'Studio Mic'"):
        await _link(be, "Studio Mic", []).open()
