"""The pull-based player on a fake device: pulling, underruns, stop/discard, played positions."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from audio_fakes import FakeBackend, FakeStream, device

from app.audio.errors import AudioDeviceError, AudioError
from app.audio.link import AudioEvent
from app.audio.pcm import l16_mime
from app.audio.player import PlayedPosition, Player
from genx.chunk import MessageChunk
from genx.deadline import within
from genx.stream import StreamBuilder

RATE = 16000
BLOCK = 320  # 20 ms at 16 kHz
MIME = l16_mime(RATE)


class CountingStream:
    """Wraps a builder's stream and counts the chunks pulled through it."""

    def __init__(self, builder: StreamBuilder) -> None:
        self.inner = builder.stream
        self.pulled = 0

    async def next(self) -> MessageChunk:
        c = await self.inner.next()
        self.pulled += 1
        return c

    async def close(self) -> None:
        await self.inner.close()

    async def close_with_error(self, exc: BaseException) -> None:
        await self.inner.close_with_error(exc)

    def __aiter__(self) -> CountingStream:
        return self

    async def __anext__(self) -> MessageChunk:
        return await self.next()


def ramp(n: int, start: int = 1) -> bytes:
    """Distinct non-zero samples so that what reaches the device can be checked sample by sample."""
    return (np.arange(start, start + n) % 30000 + 1).astype("<i2").tobytes()


def route(sid: str, pcm: bytes, *, chunk_samples: int = BLOCK, mime: str = MIME, eos: bool = True) -> list[MessageChunk]:
    out = [MessageChunk.bos(sid, None)]
    step = chunk_samples * 2
    out += [MessageChunk.blob(mime, pcm[i : i + step], stream_id=sid) for i in range(0, len(pcm), step)]
    if eos:
        out.append(MessageChunk.eos(sid))
    return out


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


async def started_player(**kw: object) -> tuple[Player, FakeBackend, FakeStream]:
    be = kw.pop("backend", None) or FakeBackend(devices=[device(0, "Fake Speaker", ins=0, rate=float(RATE))], default_out=0)
    assert isinstance(be, FakeBackend)
    kw.setdefault("lead_blocks", 2)
    p = Player(backend=be, block_ms=20, **kw)  # type: ignore[arg-type]
    await p.start()
    return p, be, be.last


async def test_player_pulls_only_the_lead_ahead_of_the_device() -> None:
    p, _, dev = await started_player()
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 50)))
    b.done()
    s = CountingStream(b)
    p.play(s)
    await settle()
    assert s.pulled == 1 + 2  # the BOS, then lead_blocks blocks of audio; the other 48 stay unpulled
    for _ in range(10):
        dev.pump()
        await settle()
    assert s.pulled == 1 + 2 + 10
    await p.close()


async def test_device_receives_the_route_audio_in_order_then_silence() -> None:
    p, _, dev = await started_player()
    pcm = ramp(BLOCK * 3)
    b = StreamBuilder()
    b.push_many(route("r1", pcm, chunk_samples=200))  # chunk size unrelated to the block size
    b.done()
    p.play(b.stream)
    await settle()
    out = b""
    for _ in range(5):
        out += dev.pump()
        await settle()
    assert out[: len(pcm)] == pcm
    assert out[len(pcm) :] == bytes(len(out) - len(pcm))
    await p.close()


async def test_underrun_outputs_silence_counts_it_and_playback_resumes() -> None:
    p, _, dev = await started_player()
    events: list[AudioEvent] = []
    p.add_listener(events.append)
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK), eos=False))
    p.play(b.stream)
    await settle()
    first = dev.pump()
    await settle()
    starved = dev.pump()  # the route is open but the producer is late
    await settle()
    assert first == ramp(BLOCK)
    assert starved == bytes(BLOCK * 2)
    assert p.underruns == 1
    assert [e.kind for e in events if e.kind == "underrun"] == ["underrun"]
    b.push(MessageChunk.blob(MIME, ramp(BLOCK, start=5000), stream_id="r1"))
    await settle()
    assert dev.pump() == ramp(BLOCK, start=5000)
    await p.close()


async def test_an_idle_player_reports_no_underrun_even_when_the_device_flags_one() -> None:
    p, _, dev = await started_player()
    events: list[AudioEvent] = []
    p.add_listener(events.append)
    for _ in range(5):
        assert dev.pump(underflow=True) == bytes(BLOCK * 2)  # nothing plays: idle silence arriving late is silence
    await settle()
    assert (p.underruns, p.device_underflows) == (0, 0)
    assert [e for e in events if e.kind == "underrun"] == []
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 3), eos=False))
    p.play(b.stream)
    await settle()
    dev.pump(underflow=True)  # while an answer plays, the device running dry is real
    await settle()
    assert p.device_underflows == 1 and [e.kind for e in events if e.kind == "underrun"] == ["underrun"]
    await p.close()


async def test_played_positions_count_route_samples_handed_to_the_device_and_end_once_per_route() -> None:
    p, _, dev = await started_player()
    played: list[PlayedPosition] = []
    ended: list[PlayedPosition] = []
    p.on_played(played.append)
    p.on_route_end(ended.append)
    b = StreamBuilder()
    b.push_many(route("a", ramp(BLOCK * 2 + 100)))
    b.push_many(route("b", ramp(BLOCK)))
    b.done()
    p.play(b.stream)
    await settle()
    for _ in range(6):
        dev.pump()
        await settle()
    a_positions = [x.samples_played for x in played if x.stream_id == "a"]
    assert a_positions == sorted(a_positions) and a_positions[0] == BLOCK
    assert [(e.stream_id, e.samples_played, e.samples_received, e.ended, e.interrupted) for e in ended] == [
        ("a", BLOCK * 2 + 100, BLOCK * 2 + 100, True, False),
        ("b", BLOCK, BLOCK, True, False),
    ]
    assert not p.playing
    await p.close()


async def test_route_at_another_rate_is_resampled_and_positions_stay_in_route_samples() -> None:
    be = FakeBackend(devices=[device(0, "48k speaker", ins=0, rate=48000.0)], default_out=0)
    p, _, dev = await started_player(backend=be)
    assert p.device_format is not None and p.device_format.rate == 48000
    ended: list[PlayedPosition] = []
    p.on_route_end(ended.append)
    src_rate = 22050
    t = np.arange(src_rate // 2) / src_rate
    tone = (np.sin(2 * np.pi * 440 * t) * 8000).astype("<i2")
    b = StreamBuilder()
    b.push_many(route("tts", tone.tobytes(), chunk_samples=2205, mime=l16_mime(src_rate)))
    b.done()
    p.play(b.stream)
    await settle()
    out = b""
    for _ in range(40):
        out += dev.pump()
        await settle()
    y = np.frombuffer(out, dtype="<i2")
    voiced = np.flatnonzero(np.abs(y) > 1000)
    assert abs((voiced[-1] - voiced[0]) - 24000) < 100  # 0.5 s at the device rate
    spectrum = np.abs(np.fft.rfft(y[voiced[0] : voiced[0] + 24000]))
    assert abs(np.argmax(spectrum) * 48000 / 24000 - 440) <= 4
    assert ended[0].rate == src_rate and ended[0].samples_played == src_rate // 2
    await p.close()


async def test_stop_discards_the_lead_silences_the_device_and_returns_positions_at_that_moment() -> None:
    p, _, dev = await started_player()
    ended: list[PlayedPosition] = []
    p.on_route_end(ended.append)
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 20)))
    b.done()
    s = CountingStream(b)
    p.play(s)
    await settle()
    for _ in range(3):
        dev.pump()
        await settle()
    result = await p.stop(discard=True)
    assert set(result) == {"r1"}
    pos = result["r1"]
    assert pos.samples_played == 3 * BLOCK and pos.samples_received == 5 * BLOCK
    assert pos.ended and pos.interrupted
    assert dev.aborts == 1 and dev.active  # device buffer dropped, stream restarted
    assert dev.pump() == bytes(BLOCK * 2)
    await settle()
    assert [(e.stream_id, e.interrupted) for e in ended] == [("r1", True)]
    pulled = s.pulled
    await settle()
    assert s.pulled == pulled  # nothing more is consumed after stop
    await p.close()


async def test_stop_in_zeros_mode_keeps_the_device_running_and_counts_device_buffer_as_heard() -> None:
    p, _, dev = await started_player(stop_mode="zeros")
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 10)))
    p.play(b.stream)
    await settle()
    dev.pump(dac_delay=0.5)
    await settle()
    result = await p.stop()
    assert dev.aborts == 0
    assert result["r1"].samples_heard == result["r1"].samples_played == BLOCK
    assert dev.pump() == bytes(BLOCK * 2)
    await p.close()


async def test_heard_position_lags_played_by_the_dac_delay() -> None:
    clock = Clock()
    p, _, dev = await started_player(clock=clock)
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 10)))
    p.play(b.stream)
    await settle()
    dev.pump(dac_delay=0.040)  # block 1 audible from t+40 ms to t+60 ms
    await settle()
    clock.t += 0.020
    dev.pump(dac_delay=0.040)
    await settle()
    clock.t += 0.030  # now = t0+50 ms: block 1 is half heard
    result = await p.stop()
    assert result["r1"].samples_played == 2 * BLOCK
    assert result["r1"].samples_heard == BLOCK // 2


async def test_eos_with_error_drops_only_that_routes_unplayed_audio() -> None:
    p, _, dev = await started_player(lead_blocks=4)
    ended: list[PlayedPosition] = []
    p.on_route_end(ended.append)
    b = StreamBuilder()
    b.push_many(route("a", ramp(BLOCK * 2), eos=False))
    p.play(b.stream)
    await settle()
    dev.pump()
    await settle()
    b.push(MessageChunk.eos("a", error="interrupted"))
    b.push_many(route("b", ramp(BLOCK, start=9000)))
    b.done()
    await settle()
    assert dev.pump() == ramp(BLOCK, start=9000)  # a's second block was dropped, b plays at once
    await settle()
    dev.pump()
    await settle()
    assert [(e.stream_id, e.samples_played, e.samples_received, e.interrupted) for e in ended] == [
        ("a", BLOCK, 2 * BLOCK, True),
        ("b", BLOCK, BLOCK, False),
    ]
    await p.close()


async def test_unsupported_audio_mime_is_reported_and_skipped() -> None:
    p, _, dev = await started_player()
    events: list[AudioEvent] = []
    p.add_listener(events.append)
    ended: list[PlayedPosition] = []
    p.on_route_end(ended.append)
    b = StreamBuilder()
    b.push(MessageChunk.blob("audio/mpeg", b"\xff\xfb" * 100, stream_id="mp3"))
    b.push(MessageChunk.eos("mp3"))
    b.push_many(route("ok", ramp(BLOCK)))
    b.done()
    p.play(b.stream)
    await settle()
    assert dev.pump() == ramp(BLOCK)
    await settle()
    dev.pump()
    await settle()
    assert any(e.kind == "format" and "audio/mpeg" in e.message for e in events)
    assert [(e.stream_id, e.samples_played) for e in ended] == [("mp3", 0), ("ok", BLOCK)]
    await p.close()


async def test_text_chunks_on_a_route_are_ignored() -> None:
    p, _, dev = await started_player()
    b = StreamBuilder()
    b.push(MessageChunk.bos("r", None))
    b.push(MessageChunk.text("Hello", stream_id="r"))
    b.push(MessageChunk.blob(MIME, ramp(BLOCK), stream_id="r"))
    b.push(MessageChunk.eos("r"))
    b.done()
    p.play(b.stream)
    await settle()
    assert dev.pump() == ramp(BLOCK)
    await p.close()


async def test_drain_returns_after_the_last_sample_was_handed_out() -> None:
    p, be, dev = await started_player()
    be.latency = 0.0
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 3)))
    b.done()
    p.play(b.stream)
    drain = asyncio.create_task(p.drain())
    for _ in range(3):
        await settle()
        assert not drain.done()
        dev.pump()
    await settle()
    dev.pump()
    await asyncio.wait_for(drain, 1.0)


async def test_stop_without_discard_plays_out_what_was_pulled() -> None:
    p, _, dev = await started_player()
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 10), eos=False))
    s = CountingStream(b)
    p.play(s)
    await settle()
    pulled = s.pulled
    stop = asyncio.create_task(p.stop(discard=False))
    out = b""
    for _ in range(4):
        await settle()
        out += dev.pump()
    await asyncio.wait_for(stop, 1.0)
    assert out[: 2 * BLOCK * 2] == ramp(2 * BLOCK)
    assert s.pulled == pulled
    assert dev.aborts == 0


async def test_callback_from_a_foreign_thread_reports_on_the_loop() -> None:
    p, _, dev = await started_player()
    seen: list[PlayedPosition] = []
    p.on_played(seen.append)
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 2)))
    p.play(b.stream)
    await settle()
    assert dev.pump(thread=True) == ramp(BLOCK)
    await settle()
    assert [x.samples_played for x in seen] == [BLOCK]
    await p.close()


async def test_output_device_loss_is_reported_and_the_device_reopened() -> None:
    p, be, dev = await started_player(backoff=(0.01, 0.02))
    events: list[AudioEvent] = []
    p.add_listener(events.append)
    be.unavailable = True
    dev.finish()
    await asyncio.sleep(0.05)
    assert [e.kind for e in events][:2] == ["device_lost", "reopen_failed"]
    be.unavailable = False
    for _ in range(50):
        await asyncio.sleep(0.01)
        if any(e.kind == "reopened" for e in events):
            break
    assert any(e.kind == "reopened" for e in events)
    assert be.last is not dev and be.last.active
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK)))
    p.play(b.stream)
    await settle()
    assert be.last.pump() == ramp(BLOCK)
    await p.close()


async def test_play_before_start_and_bad_settings_raise_typed_errors() -> None:
    with pytest.raises(AudioError, match="not started"):
        Player(backend=FakeBackend()).play(StreamBuilder().stream)
    with pytest.raises(AudioError, match="stop_mode"):
        Player(stop_mode="later")  # type: ignore[arg-type]
    be = FakeBackend(devices=[device(0, "Mic only", outs=0)], default_out=-1)
    with pytest.raises(AudioDeviceError, match="no audio output device"):
        await Player(backend=be).start()


async def test_stop_without_detach_drops_the_interrupted_route_and_plays_the_next_one_from_the_same_stream() -> None:
    p, _, dev = await started_player()
    b = StreamBuilder()
    b.push_many(route("answer1", ramp(BLOCK * 10), eos=False))
    p.play(b.stream)
    await settle()
    dev.pump()
    await settle()
    result = await p.stop(discard=True, detach=False)
    assert result["answer1"].samples_played == BLOCK
    # The producer's late chunks of the interrupted route are ignored; the next route plays.
    b.push(MessageChunk.blob(MIME, ramp(BLOCK, start=111), stream_id="answer1"))
    b.push(MessageChunk.eos("answer1", error="interrupted"))
    b.push_many(route("answer2", ramp(BLOCK, start=20000)))
    await settle()
    assert dev.pump() == ramp(BLOCK, start=20000)
    await p.close()


async def test_stop_with_detach_forgets_the_queued_streams() -> None:
    p, _, dev = await started_player()
    b1, b2 = StreamBuilder(), StreamBuilder()
    b1.push_many(route("a", ramp(BLOCK * 10)))
    b2.push_many(route("b", ramp(BLOCK)))
    b1.done()
    b2.done()
    p.play(b1.stream)
    p.play(b2.stream)
    await settle()
    await p.stop()
    await settle()
    assert dev.pump() == bytes(BLOCK * 2)
    assert b2.queued() == 3  # never pulled
    assert not p.playing
    await p.close()


async def test_duck_lowers_the_next_blocks_by_the_given_decibels_and_restoring_brings_full_level_back() -> None:
    p, _, dev = await started_player()
    level = 10_000
    pcm = np.full(BLOCK * 8, level, dtype="<i2").tobytes()
    b = StreamBuilder()
    b.push_many(route("r1", pcm))
    b.done()
    p.play(b.stream)
    await settle()

    async def block_levels() -> list[int]:
        x = np.frombuffer(dev.pump(), dtype="<i2")
        await settle()  # the feeder refills the lead
        return [int(x[0]), int(x[-1])]

    assert await block_levels() == [level, level]
    p.duck(-24.0)
    first = await block_levels()  # ramps down within this one block (no click)
    assert first[0] > first[1] and first[1] == round(level * 10 ** (-24 / 20))
    steady = await block_levels()
    assert steady == [first[1], first[1]]  # at least 20 dB down: 10000 → 630
    assert 20 * np.log10(level / steady[0]) >= 20.0
    p.duck(None)
    up = await block_levels()
    assert up[0] < up[1] == level
    assert await block_levels() == [level, level]
    await p.close()


async def test_a_stream_queued_while_the_last_one_is_still_being_played_out_is_played_too() -> None:
    p, _, dev = await started_player()
    first, second = ramp(BLOCK * 2), ramp(BLOCK * 2, start=5000)
    a = StreamBuilder()
    a.push_many(route("r1", first))
    a.done()
    p.play(a.stream)
    await settle()
    out = dev.pump()  # r1's stream has ended; its last block still waits in the buffer
    await settle()
    b = StreamBuilder()
    b.push_many(route("r2", second))
    b.done()
    p.play(b.stream)  # an announcement right at the end of an answer
    for _ in range(8):
        await settle()
        out += dev.pump()
    await asyncio.wait_for(p.drain(), 2)
    assert out[: len(first) + len(second)] == first + second
    await p.close()


async def test_blocks_handed_out_in_a_burst_are_heard_one_after_the_other_not_all_at_once() -> None:
    # PortAudio over PulseAudio may call back many times in a row to refill a deep server buffer, each call
    # reporting a small DAC delay: the blocks still play in sequence, so about one block is heard 20 ms on
    clock = Clock()
    p, _, dev = await started_player(clock=clock, lead_blocks=12)
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 10)))
    p.play(b.stream)
    await settle()
    for _ in range(8):
        dev.pump(dac_delay=0.040)  # eight blocks in the same instant
        await settle()
    clock.t += 0.060  # the first block (audible from +40 ms) has just ended; the rest wait their turn
    result = await p.stop()
    assert result["r1"].samples_played == 8 * BLOCK
    assert BLOCK <= result["r1"].samples_heard <= BLOCK + BLOCK // 4  # (a block may overlap the last by a few ms)


async def test_a_device_that_takes_long_to_abort_counts_what_it_played_until_it_went_silent() -> None:
    clock = Clock()
    p, _, dev = await started_player(clock=clock, lead_blocks=12)
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 10)))
    p.play(b.stream)
    await settle()
    for _ in range(6):
        dev.pump(dac_delay=0.0)
        await settle()
        clock.t += 0.020
    clock.t -= 0.070  # stop is asked 50 ms into the playback of the six blocks handed out

    def slow_abort() -> None:
        clock.t += 0.040  # the device keeps playing for 40 ms before it drops its buffer
        dev.aborts += 1

    dev.abort = slow_abort  # type: ignore[method-assign]
    result = await p.stop()
    assert dev.aborts == 1
    assert result["r1"].samples_played == 6 * BLOCK
    assert result["r1"].samples_heard == round(4.5 * BLOCK)  # 50 ms + 40 ms at 20 ms a block


@pytest.mark.timeout(20)
async def test_a_stream_queued_while_the_last_one_plays_out_its_tail_does_not_spin_the_event_loop() -> None:
    # The old feeder plays out r1 (its stream ended without EOS; the resampler's tail and the end marker still
    # wait for room) when the next stream's route r2 opens with a BOS and no audio yet: the play-out must wait
    # for r1 only, and yield, not spin on r2 that it cannot move.
    p, _, dev = await started_player()
    src = l16_mime(22050)
    a = StreamBuilder()
    a.push(MessageChunk.bos("r1", None))
    a.push_many([MessageChunk.blob(src, ramp(148), stream_id="r1") for _ in range(6)])
    a.done()
    p.play(a.stream)
    await settle()
    for _ in range(30):
        if p._playing_out and any(not r.marker_queued for r in p._routes.values() if not r.ended):
            break
        dev.pump()
        await settle()
    else:
        pytest.fail("the play-out never waited for room (the case this test is about)")
    b = StreamBuilder()
    b.push(MessageChunk.bos("r2", None))
    p.play(b.stream)  # the next answer's route opens before its first audio
    for _ in range(8):
        dev.pump()
        await settle()  # (before the fix, this never returned: the old feeder spun without awaiting)
    second = ramp(BLOCK * 2, start=7000)
    b.push_many(route("r2", second)[1:])
    b.done()
    out = b""
    for _ in range(8):
        await settle()
        out += dev.pump()
    await within(p.drain(), 2)
    assert second in out
    await p.close()


async def test_audio_handed_out_while_the_device_runs_dry_is_not_heard_until_playback_has_been_clean_again() -> None:
    # Over PulseAudio a device that ran dry drops some of what it was handed then (a CI recording: "…creature, with
    # scales as black" chopped into fragments Whisper could not read, while the history kept those words)
    clock = Clock()
    p, _, dev = await started_player(clock=clock)
    b = StreamBuilder()
    b.push_many(route("r1", ramp(BLOCK * 60)))
    p.play(b.stream)
    await settle()
    for _ in range(3):  # 60 ms played cleanly
        dev.pump()
        await settle()
        clock.t += 0.020
    for _ in range(5):  # then the device runs dry, block after block
        dev.pump(underflow=True)
        await settle()
        clock.t += 0.020
    doubtful = p.positions()["r1"]
    assert doubtful.samples_played == 8 * BLOCK
    assert doubtful.samples_heard == 3 * BLOCK  # what was heard before the device ran dry
    for _ in range(24):  # 480 ms clean: not yet enough
        dev.pump()
        await settle()
        clock.t += 0.020
    assert p.positions()["r1"].samples_heard == 3 * BLOCK
    dev.pump()
    await settle()
    clock.t += 0.020
    assert p.positions()["r1"].samples_heard == 33 * BLOCK  # 500 ms clean: what was played counts again
    await p.close()
