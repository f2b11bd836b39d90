"""Real VAD (webrtcvad) → real ASR (faster-whisper tiny.en) on speech made by piper and espeak-ng."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable

import numpy as np
import pytest

from genx.chunk import MessageChunk, Text
from genx.errors import Done
from genx.local.asr import FINAL, PARTIAL, SPEECH_START, AsrTransformer, WhisperDecoder
from genx.local.vad import SpeechEvent, VadTransformer
from genx.stream import Stream, StreamBuilder, collect, stream_of
from tests.contract.transformer_contract import ContractCase, check_transformer_contract
from tests.integration.conftest import SENTENCES, normalize, pcm_chunks, silence, to_rate_channels, wer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def decoder() -> WhisperDecoder:
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    pytest.importorskip("webrtcvad", reason="pip install webrtcvad-wheels")
    dec = WhisperDecoder()
    dec.model.get()
    return dec


def finals(chunks: list[MessageChunk]) -> list[str]:
    return [c.part.text for c in chunks if c.label == FINAL and isinstance(c.part, Text)]


def routes(chunks: list[MessageChunk]) -> dict[str, list[MessageChunk]]:
    out: dict[str, list[MessageChunk]] = {}
    for c in chunks:
        out.setdefault(c.stream_id, []).append(c)
    return out


async def listen(decoder: WhisperDecoder, chunks: list[MessageChunk], vad: VadTransformer | None = None) -> list[MessageChunk]:
    vad = vad or VadTransformer()
    out = await AsrTransformer(decoder).transform(await vad.transform(stream_of(*chunks)))
    return await asyncio.wait_for(collect(out), 120)


async def transcribe_each(decoder: WhisperDecoder, say: Callable[[str], bytes]) -> list[str]:
    hyps = []
    for s in SENTENCES:
        got = await listen(decoder, pcm_chunks(silence(400) + say(s) + silence(1000)))
        hyps.append(" ".join(finals(got)))
    return hyps


async def test_piper_speech_comes_back_as_the_same_words(decoder: WhisperDecoder, say_piper: Callable[[str], bytes]) -> None:
    hyps = await transcribe_each(decoder, say_piper)
    score = wer(SENTENCES, hyps)
    print(f"\nWER piper → VAD → ASR over {len(SENTENCES)} sentences: {score:.3f}")
    assert score <= 0.15, list(zip(SENTENCES, hyps, strict=True))


async def test_espeak_speech_comes_back_as_the_same_words(decoder: WhisperDecoder, say_espeak: Callable[[str], bytes]) -> None:
    hyps = await transcribe_each(decoder, say_espeak)
    score = wer(SENTENCES, hyps)
    print(f"\nWER espeak-ng → VAD → ASR over {len(SENTENCES)} sentences: {score:.3f}")
    assert score <= 0.15, list(zip(SENTENCES, hyps, strict=True))


async def test_two_utterances_separated_by_silence_become_two_routes_with_their_own_finals(
    decoder: WhisperDecoder, say_piper: Callable[[str], bytes]
) -> None:
    a, b = SENTENCES[1], SENTENCES[3]
    events: list[SpeechEvent] = []
    vad = VadTransformer(on_speech=events.append)
    got = await listen(decoder, pcm_chunks(silence(500) + say_piper(a) + silence(1500) + say_piper(b) + silence(1000)), vad)
    by_route = routes(got)
    assert len(by_route) == 2
    for chunks in by_route.values():
        assert chunks[0].is_begin_of_stream() and chunks[0].label == SPEECH_START
        assert chunks[-1].is_end_of_stream() and chunks[-1].label == FINAL
    assert [normalize(t) for t in finals(got)] == [normalize(a), normalize(b)]
    assert [e.kind for e in events] == ["start", "end", "start", "end"]


async def test_speech_onset_is_signalled_while_the_audio_arrives(say_piper: Callable[[str], bytes]) -> None:
    pytest.importorskip("webrtcvad")
    events: list[tuple[SpeechEvent, float]] = []
    src = StreamBuilder()
    out = await VadTransformer().transform(src.stream, on_speech=lambda e: events.append((e, time.monotonic())))
    pcm = silence(600) + say_piper(SENTENCES[0])
    pushed_ms = 0
    for c in pcm_chunks(pcm, chunk_ms=20):
        src.push(c)
        pushed_ms += 20
        await asyncio.sleep(0)
        if events:
            break
    assert events, "no onset while speech was arriving"
    onset = events[0][0]
    # decided within the onset window (150 ms) plus a few frames of the speech start (~600 ms in)
    assert 600 <= pushed_ms <= 600 + 150 + 4 * 30, pushed_ms
    assert onset.position_ms < pushed_ms
    await out.close()


async def test_silence_only_opens_no_utterance(decoder: WhisperDecoder) -> None:
    assert await listen(decoder, pcm_chunks(silence(5000))) == []


async def test_white_noise_and_clipped_speech_end_cleanly(decoder: WhisperDecoder, say_piper: Callable[[str], bytes]) -> None:
    rng = np.random.default_rng(7)
    noise = (rng.standard_normal(16000 * 3) * 3000).clip(-32768, 32767).astype("<i2").tobytes()
    loud = np.frombuffer(say_piper(SENTENCES[2]), dtype="<i2").astype(np.int32) * 8
    clipped = loud.clip(-32768, 32767).astype("<i2").tobytes()
    got = await listen(decoder, pcm_chunks(noise + silence(1000) + clipped + silence(1000)))
    by_route = routes(got)
    assert by_route, "clipped speech was not heard at all"
    for chunks in by_route.values():
        assert chunks[-1].is_end_of_stream() and not chunks[-1].error
    heard = normalize(" ".join(finals(got))).split()
    assert len(set(heard) & set(normalize(SENTENCES[2]).split())) >= 4, heard


@pytest.mark.slow
async def test_a_60_second_monologue_keeps_up_and_its_final_arrives(decoder: WhisperDecoder, say_piper: Callable[[str], bytes]) -> None:
    text: list[str] = []
    pcm = b""
    while len(pcm) < 60 * 32000:
        for s in SENTENCES:
            text.append(s)
            pcm += say_piper(s) + silence(250)
            if len(pcm) >= 60 * 32000:
                break
    src = StreamBuilder()
    utt = "mono"
    out = await AsrTransformer(decoder).transform(src.stream)
    got: list[MessageChunk] = []

    async def reader(stream: Stream) -> None:
        while True:
            try:
                got.append(await stream.next())
            except Done:
                return

    task = asyncio.create_task(reader(out))
    src.push(MessageChunk.bos(utt))
    for c in pcm_chunks(pcm, chunk_ms=100, stream_id=utt):
        src.push(c)
        await asyncio.sleep(0.02)  # 5x real time (no wall-clock assertion: the final only has to arrive)
    t_eos = time.monotonic()
    src.push(MessageChunk.eos(utt))
    src.done()
    await asyncio.wait_for(task, 120)
    final_latency = time.monotonic() - t_eos
    (final,) = finals(got)
    partials = [c for c in got if c.label == PARTIAL]
    print(f"\n60 s monologue: {len(partials)} partials, final {final_latency * 1000:.0f} ms after EOS, {len(final.split())} words")
    assert partials, "no partial transcript during a minute of speech"
    committed = [c.meta["committed"] for c in partials if c.meta is not None]
    assert all(b.startswith(a) for a, b in itertools.pairwise(committed))
    assert wer([" ".join(text)], [final]) <= 0.3
    assert got[-1].is_end_of_stream() and got[-1].label == FINAL


@pytest.mark.parametrize(("rate", "channels"), [(44100, 2), (48000, 2), (8000, 1)])
async def test_other_rates_and_stereo_are_converted(
    decoder: WhisperDecoder, say_piper: Callable[[str], bytes], rate: int, channels: int
) -> None:
    pcm = to_rate_channels(silence(400) + say_piper(SENTENCES[0]) + silence(1000), rate, channels)
    got = await listen(decoder, pcm_chunks(pcm, mime=f"audio/L16; rate={rate}; channels={channels}"))
    assert wer([SENTENCES[0]], [" ".join(finals(got))]) <= 0.2


async def test_real_vad_meets_the_transformer_contract(say_piper: Callable[[str], bytes]) -> None:
    pytest.importorskip("webrtcvad")
    speech = say_piper(SENTENCES[4])
    case = ContractCase(
        make_transformer=VadTransformer,
        opening=lambda i: pcm_chunks(silence(200) + speech[: 16000 * 2], stream_id=f"mic{i}"),
        closing=lambda i: [*pcm_chunks(silence(1000), stream_id=f"mic{i}"), MessageChunk.eos(f"mic{i}")],
    )
    await check_transformer_contract(case)


async def test_real_asr_meets_the_transformer_contract(decoder: WhisperDecoder, say_piper: Callable[[str], bytes]) -> None:
    speech = say_piper(SENTENCES[5])
    case = ContractCase(
        make_transformer=lambda: AsrTransformer(decoder),
        opening=lambda i: [MessageChunk.bos(f"u{i}"), *pcm_chunks(speech[: len(speech) // 2], stream_id=f"u{i}")],
        closing=lambda i: [*pcm_chunks(speech[len(speech) // 2 :], stream_id=f"u{i}"), MessageChunk.eos(f"u{i}")],
        timeout=60,
    )
    await check_transformer_contract(case)


async def test_short_encoder_windows_transcribe_as_well_as_full_30_s_windows(say_piper: Callable[[str], bytes]) -> None:
    from genx.local.asr import WhisperOptions

    short = WhisperDecoder()
    full = WhisperDecoder(WhisperOptions(window_s=None))
    clips = [np.frombuffer(say_piper(s), dtype="<i2").astype(np.float32) / 32768.0 for s in SENTENCES]
    hyp_short = [await asyncio.to_thread(short.decode, a, True) for a in clips]
    hyp_full = [await asyncio.to_thread(full.decode, a, True) for a in clips]
    assert short.short_decodes == len(clips) and short.full_decodes == 0  # every clip took the short path
    assert full.short_decodes == 0 and full.full_decodes == len(clips)
    w_short, w_full = wer(SENTENCES, hyp_short), wer(SENTENCES, hyp_full)
    print(f"\nWER piper → ASR: 10 s windows {w_short:.3f}, 30 s windows {w_full:.3f}")
    assert w_short <= max(0.15, w_full + 0.05), list(zip(SENTENCES, hyp_short, hyp_full, strict=True))
