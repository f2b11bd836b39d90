"""TTS backpressure: synthesis stays a bounded look-ahead past what the consumer pulled (issue 13 #9)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from genx.chunk import Blob, MessageChunk, Text
from genx.errors import Done
from genx.stream import StreamBuilder
from genx.transformers.streamkit.tts_pipeline import lookahead_bytes
from genx.transformers.tts import TTSStream, TTSTransformer
from tests.unit.test_local_piper import FakeVoice, synth_with

RATE = 16_000
BYTES_PER_S = RATE * 2
BLOCK = 3200  # 100 ms
SEGMENT = 2 * BLOCK  # every sentence is 200 ms of audio
T = 5.0


@dataclass
class CountingSynth:
    """Yields 200 ms per segment and checks, before every block, how far it runs ahead of what the consumer pulled."""

    mime: str = f"audio/L16; rate={RATE}; channels=1"
    produced: int = 0
    pulled: int = 0
    limit: int | None = None  # bytes the synthesis may be ahead of the pulls (checked at every block)
    most_ahead: int = 0
    calls: list[str] = field(default_factory=list)

    async def synthesize(self, text: str) -> AsyncIterator[bytes]:
        self.calls.append(text)
        for _ in range(SEGMENT // BLOCK):
            await asyncio.sleep(0)
            ahead = self.produced - self.pulled
            self.most_ahead = max(self.most_ahead, ahead)
            if self.limit is not None:
                assert ahead <= self.limit, f"{ahead} bytes synthesized ahead of the consumer (limit {self.limit})"
            self.produced += BLOCK
            yield b"\x01" * BLOCK


async def let_others_run(rounds: int = 40) -> None:
    """Give the synthesis every chance to run ahead (an adversarially slow consumer; not a synchronisation)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


def answer(n: int, sid: str = "s1") -> list[MessageChunk]:
    text = " ".join(f"Sentence number {i} is here and it is long enough to stand alone." for i in range(n))  # one segment each
    return [MessageChunk.text(text, stream_id=sid), MessageChunk.eos(sid, Text(""))]


async def start(synth: CountingSynth, chunks: list[MessageChunk], lookahead_s: float | None) -> TTSStream:
    src = StreamBuilder()
    src.push_many(chunks)
    src.done()
    return await TTSTransformer(synth, lookahead_s=lookahead_s).transform(src.stream)


async def pull(out: TTSStream, synth: CountingSynth) -> MessageChunk:
    c = await asyncio.wait_for(out.next(), T)
    if isinstance(c.part, Blob):
        synth.pulled += len(c.part.data)
    return c


async def test_synthesis_stays_within_the_lookahead_of_what_a_slow_consumer_pulled() -> None:
    budget = lookahead_bytes(CountingSynth.mime, 1.0)
    assert budget == BYTES_PER_S
    synth = CountingSynth(limit=budget + SEGMENT)  # a segment starts within the budget and is synthesized whole
    out = await start(synth, answer(40), lookahead_s=1.0)
    eos = None
    while eos is None:
        c = await pull(out, synth)
        if c.is_end_of_stream():
            eos = c
        await let_others_run()
    assert eos.error == "" and len(synth.calls) == 40 and synth.pulled == 40 * SEGMENT
    assert synth.most_ahead >= budget - SEGMENT  # it does run ahead: the player is never starved by the bound


@pytest.mark.parametrize(("lookahead_s", "most_synthesized"), [(1.0, 5 + 5 + 2), (None, 40)])
async def test_a_barge_in_after_one_second_finds_little_synthesized_ahead(lookahead_s: float | None, most_synthesized: int) -> None:
    synth = CountingSynth()
    out = await start(synth, answer(40), lookahead_s=lookahead_s)
    while synth.pulled < BYTES_PER_S:  # one second heard (5 segments)
        await pull(out, synth)
        await let_others_run()
    await let_others_run(400)
    synthesized = len(synth.calls)
    interrupted = out.interrupt()  # the barge-in
    await let_others_run(400)
    assert len(synth.calls) == synthesized  # nothing more after it
    if lookahead_s is None:
        assert synthesized == most_synthesized  # without backpressure the whole answer was synthesized already
    else:
        assert interrupted == ["s1"]
        assert synthesized <= most_synthesized  # pulled + look-ahead + the segment in flight
    await out.close()


async def test_an_answer_nobody_pulls_yet_is_synthesized_only_up_to_the_lookahead_then_resumes() -> None:
    synth = CountingSynth()
    out = await start(synth, answer(30), lookahead_s=0.5)
    await let_others_run(600)
    held = len(synth.calls)
    assert 0.5 * BYTES_PER_S <= synth.produced <= 0.5 * BYTES_PER_S + SEGMENT
    assert held <= 4
    got = []
    while True:
        try:
            got.append(await pull(out, synth))
        except Done:
            break
    assert len(synth.calls) == 30 and got[-1].is_end_of_stream() and got[-1].error == ""


async def test_interrupting_a_route_frees_its_budget_for_the_next_route_without_any_pull() -> None:
    synth = CountingSynth()
    out = await start(synth, answer(10, "s1") + answer(10, "s2"), lookahead_s=0.5)
    await let_others_run(600)
    assert all(c.startswith("Sentence") for c in synth.calls) and len(synth.calls) <= 4  # s1 fills the budget
    before = len(synth.calls)
    first = await pull(out, synth)  # s1's BOS
    assert first.is_begin_of_stream()
    assert out.interrupt(first.stream_id) == [first.stream_id]
    await let_others_run(600)
    assert len(synth.calls) > before  # s2 is synthesized: the discarded audio of s1 no longer counts
    await out.close()


def test_lookahead_budget_is_exact_for_pcm_and_conservative_for_encoded_audio() -> None:
    assert lookahead_bytes("audio/L16; rate=48000; channels=2", 1.0) == 192_000
    assert lookahead_bytes("audio/mpeg", 3.0) == 48_000  # 128 kbit/s
    assert lookahead_bytes("audio/L16", 1.0) == 16_000  # no rate: budgeted like encoded audio
    assert lookahead_bytes("audio/L16; rate=16000", None) == 0  # unbounded
    with pytest.raises(ValueError, match="lookahead_s must be positive"):
        TTSTransformer(CountingSynth(), lookahead_s=0)


async def test_piper_stops_synthesizing_when_its_consumer_stops_pulling() -> None:
    voice = FakeVoice(samples=100)
    s = synth_with(voice, sentence_silence_ms=0, chunk_ms=50)
    agen = s.synthesize(" ".join(f"Sentence {i}." for i in range(20)))
    await asyncio.wait_for(agen.__anext__(), T)
    await asyncio.sleep(0.3)  # nothing to await: the worker must *not* run on (cf. test_local_piper's aclose test)
    assert voice.produced <= 3  # the sentence taken + AHEAD_SENTENCES (2) waiting
    rest = [b async for b in agen]
    assert voice.produced == 20 and len(rest) == 19
