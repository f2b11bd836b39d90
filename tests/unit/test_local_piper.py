"""PiperSynthesizer around a fake voice: chunking, sentence streaming, stopping on aclose, errors."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from genx.local.models import ModelLoadError, ModelNotFoundError, SharedModel
from genx.local.piper_tts import PiperConfigError, PiperOptions, PiperSynthesisError, PiperSynthesizer, options_from_mapping


@dataclass
class FakeChunk:
    audio_int16_bytes: bytes


@dataclass
class FakeVoice:
    """One 'sentence' per '.'; each is ``samples`` samples of value = sentence index; ``gate`` paces sentences."""

    samples: int = 5000
    gate: threading.Semaphore | None = None
    texts: list[str] = field(default_factory=list)
    produced: int = 0
    fail: bool = False

    def synthesize(self, text: str, syn_config: Any = None) -> Iterator[FakeChunk]:
        self.texts.append(text)
        if self.fail:
            raise RuntimeError("onnx blew up")
        for i, _ in enumerate(s for s in text.split(".") if s.strip()):
            if self.gate is not None:
                self.gate.acquire(timeout=5)
            self.produced += 1
            yield FakeChunk(bytes([i + 1, 0]) * self.samples)


def synth_with(voice: FakeVoice, **opts: Any) -> PiperSynthesizer:
    s = PiperSynthesizer(PiperOptions(**opts))
    s.voice = SharedModel(("fake-voice", id(voice)), lambda: voice, "fake voice")  # type: ignore[assignment]
    return s


async def collect_audio(s: PiperSynthesizer, text: str) -> list[bytes]:
    return [b async for b in s.synthesize(text)]


async def test_audio_is_cut_into_chunks_of_at_most_chunk_ms_at_the_voice_rate() -> None:
    s = synth_with(FakeVoice(samples=5000), chunk_ms=40, sentence_silence_ms=0)
    assert s.mime == "audio/L16; rate=22050; channels=1"
    out = await collect_audio(s, "One sentence.")
    assert b"".join(out) == bytes([1, 0]) * 5000
    assert max(len(b) for b in out) == 22050 * 40 // 1000 * 2
    assert all(len(b) % 2 == 0 for b in out)


async def test_sentences_are_yielded_as_they_are_synthesized_with_a_pause_between() -> None:
    gate = threading.Semaphore(0)
    voice = FakeVoice(samples=100, gate=gate)
    s = synth_with(voice, sentence_silence_ms=10)
    agen = s.synthesize("First. Second.")
    gate.release()
    first = await asyncio.wait_for(agen.__anext__(), 5)
    assert first == bytes([1, 0]) * 100  # the second sentence is not synthesized yet
    assert voice.produced == 1
    gate.release()
    second = await asyncio.wait_for(agen.__anext__(), 5)
    assert second.startswith(b"\x00\x00" * 220) and second.endswith(bytes([2, 0]) * 100)
    await agen.aclose()


async def test_aclose_stops_synthesis_before_the_next_sentence() -> None:
    gate = threading.Semaphore(0)
    voice = FakeVoice(samples=100, gate=gate)
    s = synth_with(voice)
    agen = s.synthesize("One. Two. Three. Four.")
    gate.release()
    await asyncio.wait_for(agen.__anext__(), 5)
    await agen.aclose()
    for _ in range(3):
        gate.release()
    await asyncio.sleep(0.2)
    assert voice.produced <= 2  # the one in flight may finish; the rest never start


async def test_markup_is_cleaned_and_text_without_words_is_not_synthesized() -> None:
    voice = FakeVoice(samples=10)
    s = synth_with(voice)
    assert await collect_audio(s, "🙂 https://example.com") == []
    await collect_audio(s, "**Bold** [link](http://x.y) 🎉 text.")
    assert voice.texts == ["Bold link text."]


async def test_a_voice_failure_is_a_typed_error_naming_the_text() -> None:
    s = synth_with(FakeVoice(fail=True))
    with pytest.raises(PiperSynthesisError, match="Hello there"):
        await collect_audio(s, "Hello there.")


def test_a_missing_voice_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"missing\.onnx"):
        PiperSynthesizer(PiperOptions(voice=str(tmp_path / "missing.onnx")))


def test_a_voice_without_its_json_config_says_both_files_are_needed(tmp_path: Path) -> None:
    onnx = tmp_path / "v.onnx"
    onnx.write_bytes(b"x")
    with pytest.raises(ModelNotFoundError, match=r"v\.onnx\.json"):
        PiperSynthesizer(PiperOptions(voice=str(onnx)))


def test_a_broken_voice_config_is_a_load_error(tmp_path: Path) -> None:
    onnx = tmp_path / "v.onnx"
    onnx.write_bytes(b"x")
    (tmp_path / "v.onnx.json").write_text(json.dumps({"audio": {}}))
    with pytest.raises(ModelLoadError, match="sample_rate"):
        PiperSynthesizer(PiperOptions(voice=str(onnx)))


def test_options_are_validated_and_unknown_keys_named() -> None:
    with pytest.raises(PiperConfigError, match="chunk_ms"):
        PiperOptions(chunk_ms=80).validate()
    with pytest.raises(PiperConfigError, match="speed"):
        options_from_mapping({"speed": 2})
    assert options_from_mapping({"path": "/x/v.onnx", "length_scale": 1.2}) == PiperOptions(voice="/x/v.onnx", length_scale=1.2)


class _RecordingSession:
    def __init__(self) -> None:
        self.calls: list[tuple[object, object, object]] = []
        self.inputs = ["input"]

    def run(self, output_names: object, input_feed: object, run_options: object = None) -> list[str]:
        self.calls.append((output_names, input_feed, run_options))
        return ["audio"]


def test_every_piper_run_asks_onnxruntime_to_give_its_cpu_arena_back_afterwards() -> None:
    ort = pytest.importorskip("onnxruntime")
    from genx.local.piper_tts import ShrinkingSession

    inner = _RecordingSession()
    session = ShrinkingSession(inner, ort.RunOptions())
    assert session.run(None, {"input": 1}) == ["audio"]
    opts = inner.calls[0][2]
    assert isinstance(opts, ort.RunOptions)
    assert opts.get_run_config_entry("memory.enable_memory_arena_shrinkage") == "cpu:0"
    own = ort.RunOptions()
    session.run(["out"], {"input": 2}, own)  # a caller's own options are the caller's
    assert inner.calls[1] == (["out"], {"input": 2}, own)
    assert session.inputs == ["input"]  # everything else is the session's
