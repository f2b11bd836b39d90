"""Piper TTS on the streamkit pipeline, checked by ear: TTS → ASR round trips with the real models."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from genx.chunk import Blob, MessageChunk, Role, Text
from genx.errors import Done
from genx.local.asr import FINAL, AsrTransformer, WhisperDecoder
from genx.local.models import ModelNotFoundError
from genx.local.piper_tts import PiperOptions, PiperSynthesizer, from_config, piper_tts
from genx.stream import StreamBuilder, collect, stream_of
from genx.transformers.audiostream.pcm import resample
from genx.transformers.tts import TTSTransformer
from tests.contract.transformer_contract import ContractCase, check_transformer_contract
from tests.integration.conftest import SENTENCES, normalize, pcm_chunks, wer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def tts() -> TTSTransformer:
    pytest.importorskip("piper", reason="pip install piper-tts")
    t = piper_tts()
    assert isinstance(t.synthesizer, PiperSynthesizer)
    t.synthesizer.voice.get()
    return t


@pytest.fixture(scope="module")
def decoder() -> WhisperDecoder:
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    return WhisperDecoder()


def text_route(sid: str, *pieces: str) -> list[MessageChunk]:
    return [*(MessageChunk.text(p, role=Role.ASSISTANT, stream_id=sid) for p in pieces), MessageChunk.eos(sid, Text(""))]


def audio_of(chunks: list[MessageChunk]) -> bytes:
    return b"".join(c.part.data for c in chunks if isinstance(c.part, Blob))


async def hear(decoder: WhisperDecoder, pcm22k: bytes) -> str:
    pcm = resample(pcm22k, 22050, 16000)
    chunks = [MessageChunk.bos("u"), *pcm_chunks(pcm, stream_id="u"), MessageChunk.eos("u")]
    got = await collect(await AsrTransformer(decoder).transform(stream_of(*chunks)))
    return " ".join(c.part.text for c in got if c.label == FINAL and isinstance(c.part, Text))


async def test_tts_then_asr_recovers_the_sentences(tts: TTSTransformer, decoder: WhisperDecoder) -> None:
    refs, hyps = [], []
    for i, s in enumerate(SENTENCES):
        half = len(s) // 2
        out = await tts.transform(stream_of(*text_route(f"a{i}", s[:half], s[half:])))  # streamed in two pieces
        chunks = await asyncio.wait_for(collect(out), 60)
        refs.append(s)
        hyps.append(await hear(decoder, audio_of(chunks)))
    score = wer(refs, hyps)
    print(f"\nWER piper TTS → ASR over {len(refs)} sentences: {score:.3f}")
    for r, h in zip(refs, hyps, strict=True):
        if normalize(r) != normalize(h):
            print(f"  {r!r} → {h!r}")
    assert score <= 0.15, list(zip(refs, hyps, strict=True))


async def test_audio_is_l16_22k_in_chunks_of_at_most_50_ms_on_the_text_route(tts: TTSTransformer) -> None:
    out = await tts.transform(stream_of(*text_route("r1", "Hello there. This is a test of the voice.")))
    chunks = await collect(out)
    bos, *body, eos = chunks
    assert bos.is_begin_of_stream() and bos.stream_id == "r1" and bos.role == Role.ASSISTANT
    assert eos.is_end_of_stream() and not eos.error
    blobs = [c for c in body if isinstance(c.part, Blob) and c.part.data]
    assert blobs and {c.mime() for c in blobs} == {"audio/l16; channels=1; rate=22050"}
    assert max(len(c.part.data) for c in blobs if isinstance(c.part, Blob)) <= 22050 * 2 * 50 // 1000
    assert len(audio_of(chunks)) > 22050 * 2 * 1  # more than a second of speech


async def test_emoji_markdown_and_urls_are_spoken_as_words(tts: TTSTransformer, decoder: WhisperDecoder) -> None:
    text = "**Good news** 🎉! Read [the weather report](https://example.com/weather?id=3) at https://example.com now."
    out = await tts.transform(stream_of(*text_route("m", text)))
    heard = normalize(await hear(decoder, audio_of(await collect(out))))
    for word in ("good", "news", "weather", "report"):
        assert word in heard, heard
    assert "http" not in heard and "example" not in heard and "asterisk" not in heard


async def test_text_with_nothing_to_say_gives_an_empty_audio_route(tts: TTSTransformer) -> None:
    chunks = await collect(await tts.transform(stream_of(*text_route("e", "🙂 👍", " https://example.com"))))
    assert audio_of(chunks) == b""
    assert chunks[-1].is_end_of_stream() and not chunks[-1].error


async def test_interrupt_drops_the_unsynthesized_sentences(tts: TTSTransformer) -> None:
    src = StreamBuilder()
    out = await tts.transform(src.stream)
    long_text = " ".join(SENTENCES)
    src.push_many(text_route("long", long_text))
    src.done()
    pulled = [await asyncio.wait_for(out.next(), 60) for _ in range(3)]
    assert out.interrupt("long") == ["long"]
    rest: list[MessageChunk] = []
    while True:
        try:
            rest.append(await asyncio.wait_for(out.next(), 30))
        except Done:
            break
    assert rest and rest[-1].is_end_of_stream() and rest[-1].error == "interrupted"
    heard = len(audio_of(pulled + rest))
    full = sum(len(b"".join(c.audio_int16_bytes for c in tts.synthesizer.voice.get().synthesize(s))) for s in SENTENCES)  # type: ignore[attr-defined]
    assert heard < full // 4


async def test_a_missing_voice_file_is_a_typed_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"ghost\.onnx"):
        from_config({"voice": str(tmp_path / "ghost.onnx")})
    with pytest.raises(ModelNotFoundError, match=r"ghost\.onnx"):
        PiperSynthesizer(PiperOptions(voice=str(tmp_path / "ghost.onnx")))


async def test_time_to_first_audio_is_one_sentence_not_the_whole_text(tts: TTSTransformer) -> None:
    synth = tts.synthesizer
    assert isinstance(synth, PiperSynthesizer)
    agen = synth.synthesize(" ".join(SENTENCES[:4]))
    first = await asyncio.wait_for(agen.__anext__(), 30)
    await agen.aclose()
    assert 0 < len(first) <= 22050 * 2 * 50 // 1000
    samples = np.frombuffer(first, dtype="<i2")
    assert samples.size == len(first) // 2


async def test_piper_tts_meets_the_transformer_contract(tts: TTSTransformer) -> None:
    case = ContractCase(
        make_transformer=piper_tts,
        opening=lambda i: [MessageChunk.text("Hello there, my good friend. ", role=Role.ASSISTANT, stream_id=f"in{i}")],
        closing=lambda i: [MessageChunk.text("See you soon.", stream_id=f"in{i}"), MessageChunk.eos(f"in{i}", Text(""))],
        timeout=60,
    )
    await check_transformer_contract(case)


# Run in a fresh interpreter set up as the app sets itself up (malloc arenas capped before any thread): the pytest
# process has run many models' threads by now, and their malloc arenas keep freed memory whatever Piper does.
_ARENA_PROBE = """
import sys
from app.memory_policy import limit_arenas, trim
limit_arenas()
from genx.local.piper_tts import piper_tts

def rss_mb():
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) / 1024.0 for line in f if line.startswith("VmRSS:"))

voice = piper_tts().synthesizer.voice.get()
line = "The little dragon flew over the mountains and looked at the villages far below"

def say(k):
    assert sum(len(c.audio_int16_bytes) for c in voice.synthesize(", ".join([line] * k) + ".")) > 0

say(1)
trim()
before = rss_mb()
for k in (4, 6, 2, 6, 6):
    say(k)
trim()
print(rss_mb() - before)
"""


def test_long_sentences_leave_no_onnxruntime_buffers_behind() -> None:
    import subprocess
    import sys

    pytest.importorskip("piper", reason="pip install piper-tts")
    root = Path(__file__).resolve().parents[2]
    # 160-480 characters: onnxruntime's arena kept 450-650 MB of such sentences' buffers; shrunk after each run,
    # 10-40 MB stay (at times ~200 MB for a while: malloc's arenas of onnxruntime's pool threads)
    proc = subprocess.run([sys.executable, "-c", _ARENA_PROBE], cwd=root, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    grown = float(proc.stdout.strip().splitlines()[-1])
    assert grown < 250, f"RSS grew {grown:.0f} MB over five long sentences"
