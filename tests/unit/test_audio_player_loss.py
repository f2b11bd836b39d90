"""The output device lost mid-answer: only what was audible counts as played, and the loop goes on.

The real :class:`~app.audio.player.Player` on the fake PortAudio backend, on an injected clock that moves 20 ms
per device block; for the loop-level test, the real voice loop around it (scripted generator, tone voice).
"""

from __future__ import annotations

import asyncio

import pytest
from audio_fakes import FakeBackend, FakeStream, device

from app.audio.link import AudioEvent
from app.audio.pcm import l16_mime
from app.audio.player import PlayedPosition, Player
from genx.agentkit.events import AssistantDone, ErrorKind, LoopError
from genx.agentkit.loop import LoopConfig, VoiceLoop
from genx.agentkit.testing import Reply, ScriptedAsr, ScriptedGenerator, ToneSynthesizer, VirtualClock, energy_vad, settle
from genx.agentkit.tts import StreamkitSpeech
from genx.chunk import MessageChunk
from genx.stream import StreamBuilder

pytestmark = pytest.mark.timeout(30)

RATE = 16000
BLOCK = 320  # 20 ms
DAC_DELAY = 0.1  # 100 ms between a block's callback and its first sample becoming audible


def _backend() -> FakeBackend:
    return FakeBackend(devices=[device(0, "Fake Speaker", ins=0, rate=float(RATE))], default_out=0)


def _pump(dev: FakeStream, clock: VirtualClock, blocks: int) -> None:
    for _ in range(blocks):
        dev.pump(dac_delay=DAC_DELAY)
        clock.t += BLOCK / RATE


def _word_ends(text: str) -> list[tuple[str, int]]:
    """Each word and the character count at its last letter (the tone voice: 50 ms per character)."""
    out: list[tuple[str, int]] = []
    pos = 0
    for w in text.split(" "):
        out.append((w, pos + len(w.rstrip("."))))
        pos += len(w) + 1
    return out


async def _until(pred: object, limit: float = 5.0) -> None:
    end = asyncio.get_running_loop().time() + limit
    while not pred():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < end, "timed out"
        await asyncio.sleep(0.01)


async def test_a_lost_device_ends_the_route_counting_only_the_audio_that_was_audible() -> None:
    clock = VirtualClock(100.0)
    be = _backend()
    p = Player(backend=be, block_ms=20, clock=clock, backoff=(0.01, 0.02))
    await p.start()
    dev = be.last
    ends: list[PlayedPosition] = []
    p.on_route_end(ends.append)
    events: list[AudioEvent] = []
    p.add_listener(events.append)
    b = StreamBuilder()
    b.push(MessageChunk.bos("r1", None))
    for _ in range(100):
        b.push(MessageChunk.blob(l16_mime(RATE), b"\x10\x00" * BLOCK, stream_id="r1"))
    p.play(b.stream)
    await settle()
    for _ in range(10):
        dev.pump(dac_delay=DAC_DELAY)
        clock.t += BLOCK / RATE
        await settle()
    # 10 blocks were handed to the device; with 100 ms in the DAC pipeline, 4 of them were audible by the last callback
    be.unavailable = True
    clock.t += 3.0  # noticed late: what the device held then was never played all the same
    dev.finish()
    await _until(lambda: bool(ends))
    assert len(ends) == 1
    end = ends[0]
    assert end.interrupted
    assert 4 * BLOCK - 1 <= end.samples_heard <= end.samples_played <= 4 * BLOCK  # (float clock: one sample of rounding)
    assert "lost" in end.error and "Fake Speaker" in end.error
    assert not p.playing  # nothing waits for the dead device
    assert [e.kind for e in events][:1] == ["device_lost"]
    await p.close()


async def test_a_stream_played_while_the_device_is_gone_ends_after_the_stall_timeout_instead_of_waiting_forever() -> None:
    be = _backend()
    p = Player(backend=be, block_ms=20, stall_timeout=0.2, backoff=(5.0, 5.0))
    await p.start()
    be.unavailable = True
    be.last.finish()
    await settle()
    assert p.state == "lost"
    ends: list[PlayedPosition] = []
    p.on_route_end(ends.append)
    b = StreamBuilder()
    b.push(MessageChunk.bos("r2", None))
    for _ in range(50):
        b.push(MessageChunk.blob(l16_mime(RATE), b"\x10\x00" * BLOCK, stream_id="r2"))
    p.play(b.stream)
    await _until(lambda: bool(ends), 3.0)
    assert (ends[0].interrupted, ends[0].samples_played) == (True, 0)
    assert "gone" in ends[0].error
    await p.close()


async def test_the_loop_records_what_was_heard_when_the_speaker_is_lost_reports_it_and_answers_again_after_reopen(
    tmp_path: object,
) -> None:
    clock = VirtualClock(100.0)
    be = _backend()
    player = Player(backend=be, block_ms=20, clock=clock, backoff=(0.01, 0.02))
    await player.start()
    story = Reply([(0.0, "One two three four five six seven eight nine ten eleven twelve.")])
    gen = ScriptedGenerator(clock, [story, Reply([(0.0, "Back.")])])
    loop = VoiceLoop(
        capture=None,
        vad=energy_vad(),
        asr=ScriptedAsr([]),
        generator=gen,
        speech=StreamkitSpeech(ToneSynthesizer(800), max_chunk_ms=20),
        player=player,
        config=LoopConfig(generator="fake/model", system_prompt="Be brief."),
        clock=clock,
    )
    events: list[object] = []
    loop.bus.subscribe(events.append)
    await loop.start()
    loop.send_text("tell me")
    await settle()
    gen.tick()
    handed = bytearray()
    for _ in range(60):  # 1.2 s of the device (each character is 50 ms of tone)
        await settle()
        handed += be.last.pump(dac_delay=DAC_DELAY)
        clock.t += BLOCK / RATE
    await settle()
    # audible by the last callback: the tone handed out minus the 100 ms still in the DAC pipeline
    tone = sum(1 for i in range(0, len(handed), 2) if handed[i : i + 2] != b"\x00\x00")
    audible_chars = (tone - round(DAC_DELAY * RATE)) // 800
    text = story.tokens[0][1]
    expected = " ".join(w for w, end in _word_ends(text) if end <= audible_chars)
    assert 2 <= len(expected.split()) < 12
    be.unavailable = True
    be.last.finish()
    await _until(lambda: any(isinstance(e, AssistantDone) for e in events))
    done = next(e for e in events if isinstance(e, AssistantDone))
    assert done.interrupted and done.spoken_text == expected
    errors = [e for e in events if isinstance(e, LoopError)]
    assert [(e.kind, e.recoverable) for e in errors] == [(ErrorKind.PLAYER, True)]
    assert "was lost" in errors[0].message
    assert [(t.assistant_text, t.interrupted) for t in loop.history.turns()] == [(expected, True)]

    be.unavailable = False
    await _until(lambda: player.state == "running")
    loop.send_text("are you back")
    await settle()
    gen.tick()
    for _ in range(40):
        await settle()
        be.last.pump(dac_delay=DAC_DELAY)
        clock.t += BLOCK / RATE
    await _until(lambda: len([e for e in events if isinstance(e, AssistantDone)]) == 2)
    last = [e for e in events if isinstance(e, AssistantDone)][-1]
    assert (last.text, last.interrupted, last.spoken_text) == ("Back.", False, "Back.")
    await loop.stop(2.0)
    await player.close()
