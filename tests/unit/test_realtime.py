"""RealtimeStream: timestamp ordering, delay release, late drops, supersession, window, close.

Time is a ManualClock (ms); nothing here sleeps except one short real-clock test of the timer path.
"""

from __future__ import annotations

import asyncio

import pytest

from genx.chunk import MessageChunk, Text
from genx.errors import Done, GenerateError, StreamClosedError
from genx.realtime import DEFAULT_DELAY_MS, DEFAULT_WINDOW_MS, ManualClock, RealtimeStream, is_audio_chunk
from genx.stream import Stream, collect

PCM = "audio/L16; rate=16000; channels=1"


def txt(name: str, ts: int = 0, sid: str = "", label: str = "") -> MessageChunk:
    c = MessageChunk.text(name, stream_id=sid, label=label)
    if ts:
        c.ensure_ctrl().timestamp = ts
    return c


def audio(name: str, ts: int = 0, sid: str = "", label: str = "", mime: str = PCM) -> MessageChunk:
    c = MessageChunk.blob(mime, name.encode(), stream_id=sid, label=label, timestamp=ts)
    return c


def name(c: MessageChunk) -> str:
    if c.is_end_of_stream() and c.part is None:
        return f"EOS@{c.timestamp}"
    if c.is_begin_of_stream() and c.part is None:
        return f"BOS:{c.stream_id}"
    p = c.part
    return p.text if isinstance(p, Text) else p.data.decode()  # type: ignore[union-attr]


async def drain(rt: RealtimeStream) -> list[str]:
    rt.done()
    return [name(c) for c in await asyncio.wait_for(collect(rt), 2)]


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def rt0(clock: ManualClock | None = None, **kw: float) -> RealtimeStream:
    return RealtimeStream(delay_ms=kw.pop("delay_ms", 0), clock=clock or ManualClock(1_000_000), **kw)


def test_defaults_are_80_ms_delay_and_a_two_minute_window() -> None:
    assert (DEFAULT_DELAY_MS, DEFAULT_WINDOW_MS) == (80, 120_000)


async def test_realtime_stream_is_a_stream() -> None:
    assert isinstance(rt0(), Stream)


# -- the spec's examples (delay 0) -----------------------------------------------------
async def test_example_eos_at_300_then_100_and_200_come_out_100_200_300() -> None:
    rt = rt0()
    rt.push(MessageChunk.eos("s", timestamp=300))
    rt.push(txt("100", 100))
    rt.push(txt("200", 200))
    assert await drain(rt) == ["100", "200", "EOS@300"]


async def test_example_after_200_is_emitted_a_push_of_100_is_dropped() -> None:
    rt = rt0()
    rt.push(txt("200", 200))
    assert name(await rt.next()) == "200"
    assert rt.push(txt("100", 100)) is False
    rt.push(txt("300", 300))
    assert await drain(rt) == ["300"]


async def test_example_window_100_ms_evicts_100_when_250_arrives() -> None:
    rt = rt0(window_ms=100)
    for ts in (100, 150, 250):
        rt.push(txt(str(ts), ts))
    assert await drain(rt) == ["150", "250"]


# -- ordering and release --------------------------------------------------------------
async def test_equal_timestamps_keep_push_order() -> None:
    rt = rt0()
    for n in ("a", "b", "c"):
        rt.push(txt(n, 500))
    rt.push(txt("early", 400))
    assert await drain(rt) == ["early", "a", "b", "c"]


async def test_a_chunk_is_held_until_its_timestamp_plus_delay() -> None:
    clock = ManualClock(0)
    rt = RealtimeStream(clock=clock)  # default 80 ms delay
    rt.push(txt("x", 100))
    task = asyncio.ensure_future(rt.next())
    await settle()
    clock.set(179)
    await settle()
    assert not task.done()
    clock.set(180)
    assert name(await asyncio.wait_for(task, 2)) == "x"


async def test_a_waiting_next_is_woken_by_a_push_that_is_already_due() -> None:
    clock = ManualClock(1000)
    rt = RealtimeStream(delay_ms=80, clock=clock)
    task = asyncio.ensure_future(rt.next())
    await settle()
    assert not task.done()
    rt.push(txt("old", 500))  # 500 + 80 <= 1000
    assert name(await asyncio.wait_for(task, 2)) == "old"


async def test_an_earlier_push_overtakes_a_held_chunk() -> None:
    clock = ManualClock(0)
    rt = RealtimeStream(delay_ms=80, clock=clock)
    rt.push(txt("late", 200))
    task = asyncio.ensure_future(rt.next())
    await settle()
    rt.push(txt("early", 100))
    clock.set(180)
    assert name(await asyncio.wait_for(task, 2)) == "early"


async def test_close_releases_everything_at_once_in_order_then_ends() -> None:
    clock = ManualClock(0)
    rt = RealtimeStream(delay_ms=80, clock=clock)
    rt.push(txt("b", 10_000))
    rt.push(txt("a", 5_000))
    task = asyncio.ensure_future(collect(rt))
    await settle()
    assert not task.done()
    await rt.close()
    assert [name(c) for c in await asyncio.wait_for(task, 2)] == ["a", "b"]
    with pytest.raises(Done):
        await rt.next()


async def test_close_with_error_drains_then_raises_the_error_every_time() -> None:
    rt = rt0(ManualClock(0), delay_ms=80)
    rt.push(txt("a", 50))
    err = GenerateError("mic unplugged")
    await rt.close_with_error(err)
    assert name(await rt.next()) == "a"
    for _ in range(2):
        with pytest.raises(GenerateError) as ei:
            await rt.next()
        assert ei.value is err


async def test_push_after_close_fails_with_stream_closed_error() -> None:
    rt = rt0()
    await rt.close()
    with pytest.raises(StreamClosedError, match="realtime stream is closed"):
        rt.push(txt("late", 1))


async def test_real_clock_timer_wakes_a_waiting_next() -> None:
    rt = RealtimeStream(delay_ms=5)  # default wall clock; no subscriber, only the call_later timer
    rt.push(txt("x"))
    assert name(await asyncio.wait_for(rt.next(), 2)) == "x"


async def test_wake_rechecks_a_plain_callable_clock() -> None:
    now = [0.0]
    rt = RealtimeStream(delay_ms=80, clock=lambda: now[0])
    rt.push(txt("x", 100))
    task = asyncio.ensure_future(rt.next())
    await settle()
    now[0] = 180
    rt.wake()
    assert name(await asyncio.wait_for(task, 2)) == "x"


# -- timestamps ------------------------------------------------------------------------
async def test_missing_timestamp_gets_now_and_is_written_into_the_chunk() -> None:
    rt = rt0(ManualClock(1234.9))
    c = txt("x")
    rt.push(c)
    assert c.timestamp == 1234
    assert (await rt.next()) is c


async def test_missing_timestamp_is_raised_to_last_emitted_plus_one() -> None:
    clock = ManualClock(100)
    rt = rt0(clock)
    rt.push(txt("future", 500))
    clock.set(600)
    await rt.next()
    clock.set(300)  # the clock is behind what was already emitted
    c = txt("now")
    assert rt.push(c) is True
    assert c.timestamp == 501


async def test_a_chunk_as_old_as_last_emitted_is_kept() -> None:
    rt = rt0()
    rt.push(txt("a", 200))
    await rt.next()
    assert rt.push(txt("same", 200)) is True
    assert await drain(rt) == ["same"]


async def test_eos_without_timestamp_is_raised_above_the_max_seen() -> None:
    clock = ManualClock(100)
    rt = rt0(clock)
    rt.push(txt("ahead", 900))
    eos = MessageChunk.eos("s")
    rt.push(eos)
    assert eos.timestamp == 901
    assert await drain(rt) == ["ahead", "EOS@901"]


async def test_late_chunk_on_the_active_bos_route_is_clamped_not_dropped() -> None:
    rt = rt0()
    rt.push(MessageChunk.bos("u1", timestamp=100))
    rt.push(txt("t200", 200, sid="u1"))
    assert name(await rt.next()) == "BOS:u1"
    assert name(await rt.next()) == "t200"
    late = audio("late", 150, sid="u1")
    assert rt.push(late) is True
    assert late.timestamp == 201
    other = txt("other-late", 150, sid="u2")
    assert rt.push(other) is False
    assert await drain(rt) == ["late"]


# -- supersession by a BOS -------------------------------------------------------------
async def test_bos_removes_queued_audio_of_other_routes_with_the_same_label_and_rejects_their_later_audio() -> None:
    rt = rt0(ManualClock(0), delay_ms=80)
    rt.push(MessageChunk.bos("old", timestamp=10, label="tts"))
    rt.push(audio("old-pcm", 20, sid="old", label="tts"))
    rt.push(audio("old-ogg", 21, sid="old", label="tts", mime="application/ogg"))
    rt.push(MessageChunk.eos("old", timestamp=22, label="tts"))  # control EOS counts as audio
    rt.push(txt("old-text", 23, sid="old", label="tts"))  # not audio: stays
    rt.push(audio("other-label", 24, sid="x", label="music"))  # other label: stays
    rt.push(audio("no-id", 25, label="tts"))  # empty StreamID: stays
    rt.push(MessageChunk.bos("new", timestamp=30, label="tts"))
    assert rt.push(audio("old-again", 40, sid="old", label="tts")) is False
    assert rt.push(audio("new-pcm", 41, sid="new", label="tts")) is True
    assert await drain(rt) == ["BOS:old", "old-text", "other-label", "no-id", "BOS:new", "new-pcm"]


async def test_bos_with_empty_label_supersedes_audio_of_any_label() -> None:
    rt = rt0(ManualClock(0), delay_ms=80)
    rt.push(audio("a", 10, sid="s1", label="x"))
    rt.push(audio("b", 11, sid="s2", label="y"))
    rt.push(MessageChunk.bos("s3", timestamp=12))
    assert await drain(rt) == ["BOS:s3"]


async def test_bos_with_empty_stream_id_removes_nothing() -> None:
    rt = rt0(ManualClock(0), delay_ms=80)
    rt.push(audio("a", 10, sid="s1"))
    rt.push(MessageChunk.bos("", timestamp=12))
    assert await drain(rt) == ["a", "BOS:"]


def test_audio_means_audio_star_application_ogg_or_a_control_eos() -> None:
    assert is_audio_chunk(audio("x", mime="audio/opus"))
    assert is_audio_chunk(audio("x", mime="Application/Ogg; codecs=opus"))
    assert is_audio_chunk(MessageChunk.eos("s"))
    assert not is_audio_chunk(MessageChunk.eos("s", Text("")))
    assert not is_audio_chunk(MessageChunk.bos("s"))
    assert not is_audio_chunk(audio("x", mime="image/png"))
    assert not is_audio_chunk(txt("x"))


# -- window ----------------------------------------------------------------------------
async def test_window_eviction_keeps_items_exactly_at_the_threshold() -> None:
    rt = rt0(window_ms=100)
    rt.push(txt("99", 99))
    rt.push(txt("100", 100))
    rt.push(txt("200", 200))
    assert await drain(rt) == ["100", "200"]


async def test_default_window_is_used_for_a_non_positive_window() -> None:
    rt = rt0(window_ms=0)
    rt.push(txt("a", 1))
    rt.push(txt("b", 100_000))
    assert await drain(rt) == ["a", "b"]
