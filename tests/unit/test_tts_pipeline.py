"""TTS pipeline through TTSTransformer with a scripted synthesizer."""

from __future__ import annotations

import asyncio

import pytest

from genx.chunk import Blob, MessageChunk, Role, Text
from genx.errors import Done, GenerateError, Truncated
from genx.stream import Stream, StreamBuilder
from genx.transformers import Transformer
from genx.transformers.streamkit import OutputLimitError
from genx.transformers.tts import Synthesizer, TTSStream, TTSTransformer
from tests.contract.fakes import FakeSynth, SynthesisFailed

PCM = "audio/l16; channels=1; rate=16000"
T = 5.0


def txt(text: str, sid: str = "s1", **kw: object) -> MessageChunk:
    return MessageChunk.text(text, stream_id=sid, **kw)  # type: ignore[arg-type]


def text_eos(sid: str = "s1", text: str = "") -> MessageChunk:
    return MessageChunk.eos(sid, Text(text))


async def drain(stream: Stream) -> list[MessageChunk]:
    out = []
    while True:
        try:
            out.append(await asyncio.wait_for(stream.next(), T))
        except Done:
            return out


def release(sem: asyncio.Semaphore, n: int) -> None:
    for _ in range(n):
        sem.release()


def kinds(chunks: list[MessageChunk]) -> list[tuple[str, str, str]]:
    out = []
    for c in chunks:
        kind = "BOS" if c.is_begin_of_stream() else "EOS" if c.is_end_of_stream() else "data"
        out.append((kind, c.stream_id, c.mime()))
    return out


async def start(synth: FakeSynth, *chunks: MessageChunk, end: bool = True, **kw: object) -> tuple[StreamBuilder, TTSStream]:
    src = StreamBuilder()
    src.push_many(chunks)
    if end:
        src.done()
    out = await TTSTransformer(synth, **kw).transform(src.stream)  # type: ignore[arg-type]
    return src, out


def test_fake_synth_satisfies_the_protocol_and_transformer_is_a_transformer() -> None:
    assert isinstance(FakeSynth(), Synthesizer)
    assert isinstance(TTSTransformer(FakeSynth()), Transformer)


async def test_text_route_becomes_bos_audio_eos_on_the_same_route_with_metadata() -> None:
    synth = FakeSynth()
    _, out = await start(
        synth,
        txt("Hello there, my friend. ", role=Role.ASSISTANT, name="bot", label="answer"),
        txt("How are you today?", role=Role.ASSISTANT, name="bot", label="answer"),
        text_eos(),
    )
    got = await drain(out)
    assert synth.calls == ["Hello there,", "my friend.", "How are you today?"]
    assert kinds(got) == [("BOS", "s1", PCM)] + [("data", "s1", PCM)] * 6 + [("EOS", "s1", PCM)]
    bos, eos = got[0], got[-1]
    assert isinstance(bos.part, Blob) and bos.part.data == b""
    assert all((c.role, c.name, c.label) == (Role.ASSISTANT, "bot", "answer") for c in got)
    assert eos.error == ""
    assert not any(isinstance(c.part, Text) for c in got)  # text is consumed, never forwarded


async def test_complete_sentences_are_synthesized_before_the_input_ends() -> None:
    synth = FakeSynth()
    src, out = await start(synth, txt("The first sentence is complete. And"), end=False)
    first = [await asyncio.wait_for(out.next(), T) for _ in range(3)]
    assert kinds(first) == [("BOS", "s1", PCM), ("data", "s1", PCM), ("data", "s1", PCM)]
    assert synth.calls == ["The first sentence is complete."]
    src.push(text_eos())
    src.done()
    rest = await drain(out)
    assert synth.calls[-1] == "And"
    assert kinds(rest)[-1] == ("EOS", "s1", PCM)


async def test_empty_input_stream_id_gets_a_fresh_id_per_route() -> None:
    synth = FakeSynth()
    _, out = await start(synth, txt("One sentence here.", ""), text_eos(""), txt("Another one here.", ""), text_eos(""))
    got = await drain(out)
    ids = [c.stream_id for c in got if c.is_begin_of_stream()]
    assert len(ids) == 2 and all(ids) and ids[0] != ids[1]
    assert [c.stream_id for c in got if c.is_end_of_stream()] == ids


async def test_interleaved_chinese_routes_doc_example() -> None:
    synth = FakeSynth()
    _, out = await start(
        synth,
        txt("好的，", "s1"),
        txt("第二条消息已经来了，", "s2"),
        txt("我来讲一个。", "s1"),
        text_eos("s1"),
        text_eos("s2"),
    )
    got = await drain(out)
    assert synth.calls == ["第二条消息已经来了，", "好的，我来讲一个。"]
    audio = [(c.stream_id, c.part.data[0]) for c in got if isinstance(c.part, Blob) and c.part.data]
    assert audio == [("s2", 0), ("s2", 0), ("s1", 1), ("s1", 1)]
    assert [c.stream_id for c in got if c.is_end_of_stream()] == ["s1", "s2"]


async def test_end_of_input_ends_routes_in_insertion_order() -> None:
    synth = FakeSynth()
    _, out = await start(synth, txt("zed route text", "z"), txt("alpha route text", "a"), txt("mid route text", "m"))
    got = await drain(out)
    assert [c.stream_id for c in got if c.is_end_of_stream()] == ["z", "a", "m"]
    assert synth.calls == ["zed route text", "alpha route text", "mid route text"]


async def test_segments_without_letters_or_digits_are_not_synthesized() -> None:
    synth = FakeSynth()
    _, out = await start(synth, txt("……。！"), text_eos())
    assert kinds(await drain(out)) == [("BOS", "s1", PCM), ("EOS", "s1", PCM)]
    assert synth.calls == []


async def test_non_text_chunks_pass_through_in_order_and_do_not_flush() -> None:
    synth = FakeSynth()
    image = MessageChunk.blob("image/png", b"\x89PNG", stream_id="s1")
    _, out = await start(synth, txt("好的，"), image, txt("我来讲一个。"), text_eos())
    got = await drain(out)
    assert synth.calls == ["好的，我来讲一个。"]  # the image did not flush "好的，"
    assert kinds(got) == [("BOS", "s1", PCM), ("data", "s1", "image/png"), ("data", "s1", PCM), ("data", "s1", PCM), ("EOS", "s1", PCM)]
    assert got[1] is image


async def test_non_text_eos_on_an_active_route_flushes_and_is_forwarded_after_audio_eos() -> None:
    synth = FakeSynth()
    _, out = await start(synth, txt("Unfinished words"), MessageChunk.eos("s1"))
    got = await drain(out)
    assert synth.calls == ["Unfinished words"]
    assert kinds(got)[-2:] == [("EOS", "s1", PCM), ("EOS", "s1", "")]


async def test_error_chunk_on_active_route_interrupts_it_with_bos_then_eos_and_no_audio() -> None:
    synth = FakeSynth(gate=asyncio.Event())
    err = MessageChunk.eos("s1", Text(""), error="asr failed")
    src, out = await start(synth, txt("Hello there, my friend. More"), end=False)
    await asyncio.sleep(0.01)  # the first segment is now waiting in the synthesizer
    src.push(err)
    src.done()
    got = await drain(out)
    assert kinds(got) == [("BOS", "s1", PCM), ("EOS", "s1", PCM)]
    assert got[-1].error == "asr failed"
    assert synth.closed_early == ["Hello there, my friend."]
    assert all(c is not err for c in got)  # swallowed


async def test_error_chunk_on_unknown_stream_id_is_forwarded() -> None:
    synth = FakeSynth()
    err = MessageChunk.eos("elsewhere", error="vad broke")
    _, out = await start(synth, err)
    assert await drain(out) == [err]


async def test_provider_error_ends_route_with_error_then_stream_raises_it() -> None:
    synth = FakeSynth(fail_on="boom")
    _, out = await start(synth, txt("This works fine, really. Then it goes boom. Never said."), end=False)
    got = []
    with pytest.raises(SynthesisFailed):
        while True:
            got.append(await asyncio.wait_for(out.next(), T))
    assert kinds(got) == [("BOS", "s1", PCM), ("data", "s1", PCM), ("data", "s1", PCM), ("EOS", "s1", PCM)]
    assert "boom" in got[-1].error


async def test_barge_in_keeps_pulled_audio_drops_the_rest_and_stops_synthesis() -> None:
    permits = asyncio.Semaphore(0)
    synth = FakeSynth(permits=permits, chunks=3)
    src, out = await start(synth, txt("The first sentence is here. The second one is here. Third"), end=False)
    assert (await asyncio.wait_for(out.next(), T)).is_begin_of_stream()
    permits.release()
    first_audio = await asyncio.wait_for(out.next(), T)
    assert isinstance(first_audio.part, Blob) and first_audio.part.data
    permits.release()
    await asyncio.sleep(0.01)  # a second block is queued, not pulled
    assert out.interrupt() == ["s1"]
    eos = await asyncio.wait_for(out.next(), T)
    assert (eos.is_end_of_stream(), eos.stream_id, eos.mime(), eos.error) == (True, "s1", PCM, "interrupted")
    src.push(txt(" more words after the barge-in."))  # swallowed
    src.push(text_eos())
    src.done()
    release(permits, 10)
    assert await drain(out) == []
    assert synth.calls == ["The first sentence is here."]  # the pending segment was never synthesized
    assert synth.closed_early == ["The first sentence is here."]


async def test_interrupt_one_route_leaves_the_other_running() -> None:
    synth = FakeSynth()
    src, out = await start(synth, txt("Route one talks here.", "a"), txt("Route two talks here.", "b"), end=False)
    await asyncio.sleep(0.01)
    assert out.interrupt("a", "user spoke") == ["a"]
    src.push_many([text_eos("a"), text_eos("b")])
    src.done()
    got = await drain(out)
    a_eos = [c for c in got if c.stream_id == "a" and c.is_end_of_stream()]
    assert len(a_eos) == 1 and a_eos[0].error == "user spoke"
    assert not any(c.stream_id == "a" and isinstance(c.part, Blob) and c.part.data for c in got)
    b_audio = [c for c in got if c.stream_id == "b" and isinstance(c.part, Blob) and c.part.data]
    assert len(b_audio) == 2 and [c.error for c in got if c.stream_id == "b" and c.is_end_of_stream()] == [""]


async def test_interrupt_reaches_a_route_whose_text_already_ended() -> None:
    permits = asyncio.Semaphore(0)
    synth = FakeSynth(permits=permits)
    src, out = await start(synth, txt("Already complete text here."), text_eos(), end=False)
    await asyncio.wait_for(out.next(), T)  # BOS
    assert out.active_stream_ids() == ["s1"]
    assert out.interrupt() == ["s1"]
    assert out.active_stream_ids() == []
    src.done()
    release(permits, 5)
    got = await drain(out)
    assert kinds(got) == [("EOS", "s1", PCM)] and got[0].error == "interrupted"


async def test_unpulled_bos_is_reemitted_before_the_interrupt_eos() -> None:
    synth = FakeSynth(gate=asyncio.Event())
    src, out = await start(synth, txt("Nothing pulled yet here."), end=False)
    await asyncio.sleep(0)
    out.interrupt()
    src.done()
    got = await drain(out)
    assert kinds(got) == [("BOS", "s1", PCM), ("EOS", "s1", PCM)]


async def test_text_after_route_eos_starts_a_new_route() -> None:
    synth = FakeSynth()
    src, out = await start(synth, txt("First answer here."), text_eos(), end=False)
    first = [await asyncio.wait_for(out.next(), T) for _ in range(4)]
    assert kinds(first)[-1] == ("EOS", "s1", PCM)
    src.push_many([txt("Second answer here."), text_eos()])
    src.done()
    got = await drain(out)
    assert kinds(got) == [("BOS", "s1", PCM), ("data", "s1", PCM), ("data", "s1", PCM), ("EOS", "s1", PCM)]


async def test_text_on_an_id_whose_audio_is_still_finishing_gets_a_fresh_route() -> None:
    synth = FakeSynth(gate=asyncio.Event())
    _, out = await start(synth, txt("First answer here."), text_eos(), txt("Second answer here."), text_eos())
    assert synth.gate is not None
    synth.gate.set()
    got = await drain(out)
    bos_ids = [c.stream_id for c in got if c.is_begin_of_stream()]
    assert bos_ids[0] == "s1" and bos_ids[1] not in ("", "s1")
    assert [c.stream_id for c in got if c.is_end_of_stream()] == bos_ids


async def test_max_chunk_ms_frames_pcm_audio() -> None:
    synth = FakeSynth(chunk_bytes=1001, chunks=2)
    _, out = await start(synth, txt("Frame me please."), text_eos(), max_chunk_ms=10)
    got = await drain(out)
    sizes = [len(c.part.data) for c in got if isinstance(c.part, Blob) and c.part.data]
    assert max(sizes) <= 320 and all(s % 2 == 0 for s in sizes)
    assert sum(sizes) == 2002


async def test_mp3_segments_lose_their_id3_tags() -> None:
    tag = b"ID3\x04\x00\x00\x00\x00\x00\x05hello"
    synth = FakeSynth(mime="audio/mpeg", chunk_bytes=200, chunks=1, encode=lambda b: tag + b)
    _, out = await start(synth, txt("One sentence here. Two sentence here."), text_eos())
    got = await drain(out)
    data = b"".join(c.part.data for c in got if isinstance(c.part, Blob))
    assert b"ID3" not in data and len(data) == 400


async def test_output_limit_ends_the_call_with_output_limit_error() -> None:
    synth = FakeSynth(chunk_bytes=1000)
    _, out = await start(synth, txt("Too much audio for the limit."), text_eos(), output_max_bytes=1500)
    with pytest.raises(OutputLimitError):
        await drain(out)


async def test_truncated_input_speaks_what_came_then_raises_truncated() -> None:
    src = StreamBuilder()
    src.push(txt("Partial answer"))
    src.truncated()
    synth = FakeSynth()
    out = await TTSTransformer(synth).transform(src.stream)
    got = []
    with pytest.raises(Truncated):
        while True:
            got.append(await asyncio.wait_for(out.next(), T))
    assert synth.calls == ["Partial answer"] and kinds(got)[-1] == ("EOS", "s1", PCM)


async def test_input_generate_error_ends_routes_with_error_and_raises_it() -> None:
    src = StreamBuilder()
    src.push(txt("Some words"))
    err = GenerateError("llm crashed")
    src.abort(err)
    out = await TTSTransformer(FakeSynth()).transform(src.stream)
    got = []
    with pytest.raises(GenerateError):
        while True:
            got.append(await asyncio.wait_for(out.next(), T))
    assert got[-1].is_end_of_stream() and "llm crashed" in got[-1].error


def test_invalid_settings_are_rejected() -> None:
    with pytest.raises(ValueError):
        TTSTransformer(FakeSynth(), language="xx")
    with pytest.raises(ValueError):
        TTSTransformer(FakeSynth(), max_chunk_ms=0)
    with pytest.raises(ValueError):
        TTSTransformer(FakeSynth(), output_max_bytes=-1)


async def test_invalid_synthesizer_mime_is_rejected_at_transform() -> None:
    with pytest.raises(ValueError, match="MIME"):
        await TTSTransformer(FakeSynth(mime="not a mime")).transform(StreamBuilder().stream)
