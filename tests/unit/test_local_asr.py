"""ASR partial / final scheduling with a fake decoder whose calls the test controls."""

from __future__ import annotations

import asyncio
import itertools
import threading
from dataclasses import dataclass, field

import numpy as np
import pytest

from genx.chunk import MessageChunk, Text
from genx.local.asr import FINAL, PARTIAL, SPEECH_START, AsrConfigError, AsrSettings, AsrTransformer, from_config, quietest_cut
from genx.local.partials import LocalAgreement
from genx.stream import Stream, StreamBuilder, collect, stream_of
from tests.contract.transformer_contract import ContractCase, check_transformer_contract

RATE_MS = 16  # samples per ms at 16 kHz
TONE = (3000).to_bytes(2, "little", signed=True)


def speech(ms: int) -> bytes:
    """Loud enough not to count as silence (a square wave; the fake decoder ignores content)."""
    x = np.where((np.arange(ms * RATE_MS) // 20) % 2 == 0, 3000, -3000).astype("<i2")
    return x.tobytes()


def silence(ms: int) -> bytes:
    return b"\x00\x00" * (ms * RATE_MS)


@dataclass
class FakeDecoder:
    """Returns ``script(n_samples, final)``; partial calls can be held on ``hold_partials``."""

    words: list[str] = field(default_factory=lambda: "one two three four five six seven eight nine ten".split())
    hold_partials: threading.Event | None = None
    hold_finals: threading.Event | None = None
    fail: BaseException | None = None
    calls: list[tuple[int, bool]] = field(default_factory=list)
    prompts: list[tuple[bool, str]] = field(default_factory=list)  # (final, prompt) per call
    over_answer: list[bool] = field(default_factory=list)  # per call
    listen_for: list[tuple[str, ...]] = field(default_factory=list)  # per call
    partial_running: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def decode(  # type: ignore[type-arg]
        self, audio: np.ndarray, final: bool, prompt: str = "", *, over_answer: bool = False, listen_for: tuple[str, ...] = ()
    ) -> str:
        with self.lock:
            self.calls.append((audio.size, final))
            self.prompts.append((final, prompt))
            self.over_answer.append(over_answer)
            self.listen_for.append(listen_for)
        if self.fail is not None:
            raise self.fail
        if not final and self.hold_partials is not None:
            self.partial_running.set()
            self.hold_partials.wait(10)
        if final and self.hold_finals is not None:
            self.hold_finals.wait(10)
        n = max(1, audio.size // (500 * RATE_MS))  # one word per 500 ms of audio
        return " ".join(self.words[:n])


def chunks_of(pcm: bytes, sid: str, size_ms: int = 100) -> list[MessageChunk]:
    step = size_ms * RATE_MS * 2
    return [MessageChunk.blob("audio/L16; rate=16000", pcm[i : i + step], stream_id=sid) for i in range(0, len(pcm), step)]


def utterance(sid: str, pcm: bytes) -> list[MessageChunk]:
    return [MessageChunk.bos(sid, label="utterance"), *chunks_of(pcm, sid), MessageChunk.eos(sid)]


def texts(chunks: list[MessageChunk], label: str) -> list[str]:
    return [c.part.text for c in chunks if isinstance(c.part, Text) and c.label == label]


def fast(**kw: object) -> AsrSettings:
    base: dict[str, object] = {"partial_interval_ms": 300, "min_partial_ms": 300, "partial_duty": 0.0}
    base.update(kw)
    return AsrSettings(**base).validate()  # type: ignore[arg-type]


async def speech_with_a_partial_running(dec: FakeDecoder) -> tuple[StreamBuilder, Stream]:
    """One second of speech on route "u1" with its first partial decode held inside ``dec`` (``hold_partials``)."""
    src = StreamBuilder()
    out = await AsrTransformer(dec, fast()).transform(src.stream)
    src.push(MessageChunk.bos("u1"))
    src.push_many(chunks_of(speech(1000), "u1"))
    assert (await asyncio.wait_for(out.next(), 5)).label == SPEECH_START
    assert await asyncio.to_thread(dec.partial_running.wait, 5), "no partial decode started"
    return src, out


async def test_final_does_not_wait_for_a_running_partial_and_the_stale_partial_is_dropped() -> None:
    hold = threading.Event()
    dec = FakeDecoder(hold_partials=hold)
    src, out = await speech_with_a_partial_running(dec)
    src.push(MessageChunk.eos("u1"))
    final = await asyncio.wait_for(out.next(), 5)  # the partial is still held inside the decoder
    assert final.label == FINAL and isinstance(final.part, Text) and final.part.text == "one two"
    assert not hold.is_set()
    eos = await asyncio.wait_for(out.next(), 5)
    assert eos.is_end_of_stream() and eos.label == FINAL
    hold.set()
    src.done()
    rest = await asyncio.wait_for(collect(out), 5)
    assert rest == [], f"stale partial leaked after the final: {rest}"


async def test_partials_grow_while_audio_arrives_and_the_committed_prefix_never_shrinks() -> None:
    dec = FakeDecoder()
    src = StreamBuilder()
    out = await AsrTransformer(dec, fast()).transform(src.stream)
    src.push(MessageChunk.bos("u1"))
    for piece in chunks_of(speech(3000), "u1"):
        src.push(piece)
        await asyncio.sleep(0.02)  # let each partial finish before more audio comes
    src.push(MessageChunk.eos("u1"))
    src.done()
    got = await asyncio.wait_for(collect(out), 10)
    partials = [c for c in got if c.label == PARTIAL]
    assert len(partials) >= 3
    committed = [c.meta["committed"] for c in partials if c.meta is not None]
    for a, b in itertools.pairwise(committed):
        assert b.startswith(a)
    assert committed[-1] != ""
    assert texts(got, FINAL) == ["one two three four five six"]
    assert got[-1].is_end_of_stream() and got[-1].label == FINAL
    assert all(size >= 300 * RATE_MS for size, final in dec.calls if not final)


async def test_silence_only_gives_an_empty_final_without_decoding() -> None:
    dec = FakeDecoder()
    got = await collect(await AsrTransformer(dec, fast()).transform(stream_of(*utterance("u1", silence(2000)))))
    assert texts(got, FINAL) == [""]
    assert texts(got, PARTIAL) == []
    assert dec.calls == []


async def test_an_utterance_ended_with_an_error_is_forwarded_without_a_final() -> None:
    dec = FakeDecoder()
    chunks = [MessageChunk.bos("u1"), *chunks_of(speech(600), "u1"), MessageChunk.eos("u1", error="interrupted")]
    got = await collect(await AsrTransformer(dec, fast(partials=False)).transform(stream_of(*chunks)))
    assert texts(got, FINAL) == []
    assert got[-1].is_end_of_stream() and got[-1].error == "interrupted"


async def test_each_utterance_gets_its_own_route_and_final() -> None:
    dec = FakeDecoder()
    chunks = [*utterance("a", speech(1000)), *utterance("b", speech(2000)), MessageChunk.text("note", stream_id="t")]
    got = await collect(await AsrTransformer(dec, fast(partials=False)).transform(stream_of(*chunks)))
    finals = {c.stream_id: c.part.text for c in got if c.label == FINAL and isinstance(c.part, Text)}
    assert finals == {"a": "one two", "b": "one two three four"}
    assert any(isinstance(c.part, Text) and c.part.text == "note" for c in got)


async def test_long_utterances_are_decoded_in_segments_and_the_final_joins_them() -> None:
    dec = FakeDecoder(words=[f"w{i}" for i in range(200)])
    settings = fast(partials=False, segment_max_ms=2000, segment_search_ms=500)
    got = await collect(await AsrTransformer(dec, settings).transform(stream_of(*utterance("u1", speech(7000)))))
    assert max(size for size, _ in dec.calls) <= 2000 * RATE_MS
    assert len(dec.calls) >= 4
    (final,) = texts(got, FINAL)
    assert len(final.split()) >= 12  # ~ one word per 500 ms over 7 s, segment by segment


async def test_the_committed_prefix_keeps_growing_across_segment_cuts() -> None:
    dec = FakeDecoder(words=[f"w{i}" for i in range(200)])
    src = StreamBuilder()
    out = await AsrTransformer(dec, fast(segment_max_ms=2000, segment_search_ms=500)).transform(src.stream)
    src.push(MessageChunk.bos("u1"))
    for piece in chunks_of(speech(7000), "u1"):
        src.push(piece)
        await asyncio.sleep(0.01)
    src.push(MessageChunk.eos("u1"))
    src.done()
    got = await asyncio.wait_for(collect(out), 10)
    committed = [c.meta["committed"] for c in got if c.label == PARTIAL and c.meta is not None]
    assert len(committed) >= 6
    for a, b in itertools.pairwise(committed):
        assert b.startswith(a), (a, b)
    assert len(committed[-1].split()) > 4  # words of closed segments stay shown


async def test_48k_stereo_utterance_is_converted_to_16k_mono() -> None:
    dec = FakeDecoder()
    mono = np.frombuffer(speech(1000), dtype="<i2")
    up = np.repeat(np.repeat(mono, 3), 2).astype("<i2").tobytes()  # 48 kHz, 2 channels
    chunks = [MessageChunk.blob("audio/L16; rate=48000; channels=2", up[i : i + 19200], stream_id="u1") for i in range(0, len(up), 19200)]
    got = await collect(await AsrTransformer(dec, fast(partials=False)).transform(stream_of(*chunks, MessageChunk.eos("u1"))))
    assert texts(got, FINAL) == ["one two"]
    ((size, final),) = dec.calls
    assert final and abs(size - 1000 * RATE_MS) < 200


async def test_a_decoder_failure_ends_the_route_and_the_output_with_that_error() -> None:
    dec = FakeDecoder(fail=RuntimeError("model exploded"))
    out = await AsrTransformer(dec, fast(partials=False)).transform(stream_of(*utterance("u1", speech(800))))
    got: list[MessageChunk] = []
    with pytest.raises(RuntimeError, match="model exploded"):
        while True:
            got.append(await asyncio.wait_for(out.next(), 5))
    assert got[-1].is_end_of_stream() and "model exploded" in got[-1].error


async def test_an_input_failure_while_a_final_decodes_still_closes_that_route() -> None:
    hold = threading.Event()
    dec = FakeDecoder(hold_finals=hold)
    src = StreamBuilder()
    out = await AsrTransformer(dec, fast(partials=False)).transform(src.stream)
    src.push_many(utterance("u1", speech(800)))
    assert (await asyncio.wait_for(out.next(), 5)).label == SPEECH_START
    await asyncio.sleep(0.05)  # the final decode is now held in the decoder
    src.abort(ConnectionError("capture died"))
    got: list[MessageChunk] = []
    with pytest.raises(ConnectionError):
        while True:
            got.append(await asyncio.wait_for(out.next(), 5))
    hold.set()
    assert [c.error for c in got if c.is_end_of_stream()] == ["capture died"]


def test_local_agreement_commits_only_what_two_hypotheses_share() -> None:
    la = LocalAgreement()
    assert la.update("the quick") == ("", "the quick")
    assert la.update("the quick brown") == ("the quick", "brown")
    assert la.update("the quack brown fox") == ("the quick", "brown fox")  # a revision never un-commits
    assert la.update("The quick, brown fox jumps") == ("the quick", "brown fox jumps")
    assert la.update("the quick brown fox jumps over") == ("the quick brown fox jumps", "over")


def test_quietest_cut_finds_the_pause() -> None:
    pcm = np.frombuffer(speech(3000) + silence(200) + speech(1000), dtype="<i2")
    cut = quietest_cut(pcm, 2000 * RATE_MS)
    assert 3000 * RATE_MS <= cut <= 3200 * RATE_MS


def test_unknown_or_bad_settings_are_named() -> None:
    with pytest.raises(AsrConfigError, match="segment_max_ms"):
        AsrSettings(segment_max_ms=40_000).validate()
    with pytest.raises(AsrConfigError, match="beam"):
        from_config({"beam": 3}, decoder=FakeDecoder())


def contract_case() -> ContractCase:
    return ContractCase(
        make_transformer=lambda: AsrTransformer(FakeDecoder(), fast()),
        opening=lambda i: [MessageChunk.bos(f"u{i}"), *chunks_of(speech(800), f"u{i}")],
        closing=lambda i: [*chunks_of(speech(200), f"u{i}"), MessageChunk.eos(f"u{i}")],
        timeout=10,
    )


async def test_asr_transformer_meets_the_transformer_contract() -> None:
    await check_transformer_contract(contract_case())


@dataclass
class SlowFirstDecoder(FakeDecoder):
    """The first final decode is held until the second one has finished."""

    second_done: threading.Event = field(default_factory=threading.Event)
    finals_seen: int = 0

    def decode(  # type: ignore[type-arg]
        self, audio: np.ndarray, final: bool, prompt: str = "", *, over_answer: bool = False, listen_for: tuple[str, ...] = ()
    ) -> str:
        if final:
            with self.lock:
                self.finals_seen += 1
                first = self.finals_seen == 1
            if first:
                assert self.second_done.wait(10), "the second final never ran: finals are serialised"
            else:
                text = super().decode(audio, final)
                self.second_done.set()
                return text
        return super().decode(audio, final)


async def test_finals_come_out_in_utterance_order_even_when_a_later_decode_finishes_first() -> None:
    dec = SlowFirstDecoder()
    chunks = [*utterance("a", speech(2000)), *utterance("b", speech(1000))]
    got = await asyncio.wait_for(collect(await AsrTransformer(dec, fast(partials=False)).transform(stream_of(*chunks))), 20)
    assert [(c.stream_id, c.part.text) for c in got if c.label == FINAL and isinstance(c.part, Text)] == [
        ("a", "one two three four"),
        ("b", "one two"),
    ]
    # each route's EOS follows its own final
    ends = [c.stream_id for c in got if c.is_end_of_stream() and c.label == FINAL]
    assert ends == ["a", "b"]


def test_the_encoder_window_is_short_for_short_clips_and_grows_to_30_s() -> None:
    from genx.local.asr import encoder_window_s

    assert encoder_window_s(2.0, 10.0, 4.0) == 10.0
    assert encoder_window_s(6.0, 10.0, 4.0) == 10.0
    assert encoder_window_s(6.5, 10.0, 4.0) == 11.0
    assert encoder_window_s(27.0, 10.0, 4.0) == 30.0
    assert encoder_window_s(2.0, None, 4.0) == 30.0


def test_a_transcript_that_repeats_its_start_or_outruns_the_audio_is_implausible() -> None:
    from genx.local.asr import plausible_transcript

    assert plausible_transcript("What is the capital of France?", 1.7)
    assert plausible_transcript("No, no. I said the other one.", 2.0)  # a one-word repeat is speech
    assert not plausible_transcript("What color is the sky? What color is the sky?", 1.6)
    assert not plausible_transcript("What is the capital of France? What is the", 1.7)
    assert not plausible_transcript(" ".join(["word"] * 3 + [f"w{i}" for i in range(20)]), 2.0)  # 23 words in 2 s
    assert plausible_transcript("", 1.0)
    assert not plausible_transcript("Stop working, clean, clean, clean, clean, clean.", 2.5)
    assert plausible_transcript("Yes, yes, yes, that one.", 2.0)


@pytest.mark.parametrize("pause_ms", [60, 0], ids=["held-at-a-pause", "pause-rule-off"])
async def test_no_partial_starts_while_the_utterance_pauses(pause_ms: int) -> None:
    dec = FakeDecoder()
    src = StreamBuilder()
    out = await AsrTransformer(dec, fast(partial_pause_ms=pause_ms)).transform(src.stream)
    src.push(MessageChunk.bos("u1"))
    # 700 ms of speech then 300 ms of pause, 100 ms at a time, each partial done before more audio comes
    for piece in chunks_of(speech(700) + silence(300), "u1"):
        src.push(piece)
        await asyncio.sleep(0.03)
    partial_sizes = [size for size, final in dec.calls if not final]
    src.push(MessageChunk.eos("u1"))
    src.done()
    await asyncio.wait_for(collect(out), 10)
    assert partial_sizes and partial_sizes[0] == 300 * RATE_MS
    # at 900 ms the new audio (600–900) still holds speech, but its last 60 ms are quiet: a pause
    if pause_ms:
        assert max(partial_sizes) <= 700 * RATE_MS, partial_sizes
    else:
        assert max(partial_sizes) >= 900 * RATE_MS, partial_sizes


def flush(sid: str) -> MessageChunk:
    from genx.chunk import StreamCtrl
    from genx.local.asr import FLUSH

    return MessageChunk(ctrl=StreamCtrl(stream_id=sid, label=FLUSH))


async def test_a_flush_sends_the_transcript_so_far_and_a_quiet_ending_reuses_it_as_the_final() -> None:
    from genx.local.asr import PROVISIONAL

    dec = FakeDecoder()
    src = StreamBuilder()
    out = await AsrTransformer(dec, fast(partials=False)).transform(src.stream)
    src.push(MessageChunk.bos("u1"))
    src.push_many(chunks_of(speech(1000) + silence(200), "u1"))
    src.push(flush("u1"))
    src.push_many(chunks_of(silence(300), "u1"))  # the pause goes on until the end of the turn
    src.push(MessageChunk.eos("u1"))
    src.done()
    got = await asyncio.wait_for(collect(out), 10)
    assert texts(got, PROVISIONAL) == ["one two"]  # 1.2 s of audio when flushed
    assert texts(got, FINAL) == ["one two"]
    final = next(c for c in got if c.label == FINAL and isinstance(c.part, Text))
    assert final.meta is not None and final.meta["from_flush"] is True
    assert [f for _, f in dec.calls] == [True]  # one decode served both
    labels = [c.label for c in got if isinstance(c.part, Text)]
    assert labels.index(PROVISIONAL) < labels.index(FINAL)


async def test_speech_after_a_flush_makes_the_final_decode_everything_again() -> None:
    from genx.local.asr import PROVISIONAL

    dec = FakeDecoder()
    src = StreamBuilder()
    out = await AsrTransformer(dec, fast(partials=False)).transform(src.stream)
    src.push(MessageChunk.bos("u1"))
    src.push_many(chunks_of(speech(1000), "u1"))
    src.push(flush("u1"))
    src.push_many(chunks_of(speech(1000), "u1"))  # the user went on
    src.push(MessageChunk.eos("u1"))
    src.done()
    got = await asyncio.wait_for(collect(out), 10)
    assert texts(got, PROVISIONAL) == ["one two"]
    assert texts(got, FINAL) == ["one two three four"]
    assert [size for size, _ in dec.calls] == [1000 * RATE_MS, 2000 * RATE_MS]


async def test_a_flush_on_an_unknown_route_passes_nothing_and_breaks_nothing() -> None:
    dec = FakeDecoder()
    chunks = [flush("nobody"), *utterance("u1", speech(1000))]
    got = await asyncio.wait_for(collect(await AsrTransformer(dec, fast(partials=False)).transform(stream_of(*chunks))), 10)
    assert texts(got, FINAL) == ["one two"]
    assert all(c.stream_id != "nobody" for c in got)


def test_a_reading_that_only_loops_its_first_words_is_read_as_those_words_once() -> None:
    from genx.local.whisper import said_once

    assert said_once("Stop. Stop. Stop. Stop.") == "Stop."
    assert said_once("Up. Up. Up. Up. Up. Up") == "Up."
    assert said_once("What color is the sky? What color is the sky?") == "What color is the sky?"
    assert said_once("Tell me. Tell me. Tell") == "Tell me."  # cut off in the middle of the loop
    assert said_once("What is the capital of France? What is the") == "What is the capital of France?"


def test_a_reading_with_words_beyond_its_loop_is_not_cut_to_the_loop() -> None:
    from genx.local.whisper import said_once

    assert said_once("Stop working, clean, clean, clean, clean.") is None  # the loop is not at the start
    assert said_once("Stop. Stop. Stop talking.") is None
    assert said_once("one two three four five six seven eight") is None  # too many words, but no loop
    assert said_once("Stop.") is None and said_once("") is None


async def test_a_partial_that_finishes_while_a_flush_decodes_is_still_shown_before_the_flush_text() -> None:
    # over the answer, the loop judges the speech by its partials: a "Stop" read before a slow flush came back
    # must reach it, not be dropped for the flush that will only say it later
    from genx.local.asr import PROVISIONAL

    hold_partial, hold_final = threading.Event(), threading.Event()
    dec = FakeDecoder(hold_partials=hold_partial, hold_finals=hold_final)
    src, out = await speech_with_a_partial_running(dec)
    src.push(flush("u1"))  # its decode is held: the partial finishes first
    hold_partial.set()
    shown = await asyncio.wait_for(out.next(), 5)
    assert shown.label == PARTIAL and isinstance(shown.part, Text) and shown.part.text
    hold_final.set()
    src.push(MessageChunk.eos("u1"))
    src.done()
    rest = await asyncio.wait_for(collect(out), 5)
    labels = [c.label for c in rest if isinstance(c.part, Text)]
    assert texts(rest, PROVISIONAL) == ["one two"] and texts(rest, FINAL) == ["one two"]
    assert PARTIAL not in labels[labels.index(PROVISIONAL) :], labels  # nothing older is shown after the flush text


async def test_a_partial_that_finishes_after_the_flush_text_went_out_is_dropped() -> None:
    from genx.local.asr import PROVISIONAL

    hold_partial = threading.Event()
    dec = FakeDecoder(hold_partials=hold_partial)
    src, out = await speech_with_a_partial_running(dec)
    src.push(flush("u1"))
    provisional = await asyncio.wait_for(out.next(), 5)  # the partial is still held inside the decoder
    assert provisional.label == PROVISIONAL
    hold_partial.set()
    src.push(MessageChunk.eos("u1"))
    src.done()
    rest = await asyncio.wait_for(collect(out), 5)
    assert texts(rest, PARTIAL) == [], f"a partial older than the flush text was shown after it: {rest}"
    assert texts(rest, FINAL) == ["one two"]
