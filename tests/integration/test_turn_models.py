"""End-of-turn detectors with the real models: Smart Turn v3.2 (pipecat-ai's ONNX file) and SmolLM2 (llama.cpp).

Speech is espeak-ng's (deterministic, unlike Piper's sampled noise), trimmed and
followed by the 200 ms pause at which the voice loop checks.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from bench.speech import espeak_say, silence
from genx.errors import GenxError
from genx.generators.llamacpp import LlamaCppGenerator, chat_messages
from genx.local.models import DEFAULT_LLM, ModelNotFoundError
from genx.model import ModelContextBuilder
from genx.turn.combined import CombinedDetector
from genx.turn.detector import TurnModelBusyError
from genx.turn.smart_turn import DEFAULT_SMART_TURN, INPUT_NAME, SmartTurnDetector
from genx.turn.text import TextTurnDetector, end_of_message_probability

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

PAUSE = silence(200)


@pytest.fixture(scope="module")
def smart() -> SmartTurnDetector:
    pytest.importorskip("onnxruntime", reason="pip install onnxruntime")
    try:
        DEFAULT_SMART_TURN.path()
    except GenxError as e:
        pytest.skip(str(e))
    det = SmartTurnDetector()
    det.model.get()
    return det


@pytest.fixture(scope="module")
def llm() -> LlamaCppGenerator:
    pytest.importorskip("llama_cpp", reason="pip install llama-cpp-python")
    try:
        DEFAULT_LLM.path()
    except ModelNotFoundError as e:
        pytest.skip(str(e))
    gen = LlamaCppGenerator()
    gen.model.get()
    return gen


@pytest.fixture(scope="module")
def espeak() -> None:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")


def test_the_packaged_smart_turn_model_takes_80_by_800_log_mels_and_returns_one_probability(smart: SmartTurnDetector) -> None:
    session = smart.model.get()
    (inp,) = session.get_inputs()
    assert (inp.name, inp.shape[1:], inp.type) == (INPUT_NAME, [80, 800], "tensor(float)")
    (out,) = session.get_outputs()
    assert out.shape[1:] == [1]
    batch = np.zeros((2, 80, 800), dtype=np.float32)
    probs = session.run(None, {INPUT_NAME: batch})[0]
    assert probs.shape == (2, 1) and np.all((probs >= 0) & (probs <= 1))  # already a sigmoid, not a logit


@pytest.mark.parametrize(
    ("text", "voice", "wpm"),
    [("What are some good exercises for my back?", "en-gb", 175), ("How do I make a cup of green tea?", "en-us", 160)],
)
async def test_smart_turn_hears_a_finished_question_as_complete(
    smart: SmartTurnDetector, espeak: None, text: str, voice: str, wpm: int
) -> None:
    v = await smart.check(espeak_say(text, voice, wpm) + PAUSE)
    assert v.complete and v.probability > 0.8, v
    assert 0 < v.cost_ms <= v.elapsed_ms


@pytest.mark.parametrize(
    ("text", "voice", "wpm"),
    [("Can you remind me what the", "en-us", 160), ("So I was thinking that maybe", "en-us+f3", 145)],
)
async def test_smart_turn_hears_a_trailing_fragment_as_unfinished(
    smart: SmartTurnDetector, espeak: None, text: str, voice: str, wpm: int
) -> None:
    v = await smart.check(espeak_say(text, voice, wpm) + PAUSE)
    assert not v.complete and v.probability < 0.2, v


COMPLETE = ("What time is it?", "Can you set a timer for ten minutes?", "Tell me a joke about cats.", "Why is the sky blue?")
FRAGMENTS = ("Can you remind me what the", "I would like to book a table for", "So I was thinking that maybe", "Could you tell me how to")


async def test_the_text_signal_separates_finished_questions_from_fragments(llm: LlamaCppGenerator) -> None:
    det = TextTurnDetector(llm, threshold=0.02)
    done = [await det.check(b"", t) for t in COMPLETE]
    cut = [await det.check(b"", t) for t in FRAGMENTS]
    assert all(v.complete for v in done), [(t, v.probability) for t, v in zip(COMPLETE, done, strict=True)]
    assert not any(v.complete for v in cut), [(t, v.probability) for t, v in zip(FRAGMENTS, cut, strict=True)]
    assert min(v.probability for v in done) > 10 * max(v.probability for v in cut)


async def test_after_the_loops_prefill_a_text_check_evaluates_only_the_transcript(llm: LlamaCppGenerator) -> None:
    ctx = ModelContextBuilder().prompt("You are a helpful assistant.", name="system")
    ctx.user("What is the capital of France?").assistant("The capital of France is Paris.")
    history = ctx.build()
    loaded = llm.model.get()
    loaded.llm.reset()
    assert await llm.prefill("offline/smollm2", history)  # type: ignore[arg-type]
    text = "And what is the capital of Italy"
    messages = chat_messages(history, llm.system_prompt)
    p, evaluated = await llm.run_exclusive(lambda m: end_of_message_probability(m, messages, text), wait_s=5)
    transcript_tokens = len(loaded.llm.tokenize(text.encode(), add_bos=False, special=False))
    assert evaluated <= transcript_tokens + 1, (evaluated, transcript_tokens)
    assert p > 0.02
    # the context now holds the prompt up to the transcript, consistently: the next answer reuses it
    tokens = list(loaded.llm.input_ids[: loaded.llm.n_tokens])
    assert loaded.llm.detokenize(tokens[-transcript_tokens:]).decode().strip() == text


async def test_the_text_check_waits_for_the_generation_lock_and_gives_up_typed(llm: LlamaCppGenerator) -> None:
    loaded = llm.model.get()
    det = TextTurnDetector(llm, wait_ms=60)
    with loaded.lock:  # what a running answer holds
        with pytest.raises(TurnModelBusyError, match="busy for 60 ms"):
            await det.check(b"", "What time is it")
    v = await det.check(b"", "What time is it")
    assert v.complete and v.cost_ms > 0


async def test_the_combination_trusts_the_text_over_a_final_falling_intonation(
    smart: SmartTurnDetector, llm: LlamaCppGenerator, espeak: None
) -> None:
    combined = CombinedDetector(smart, TextTurnDetector(llm))
    audio = espeak_say("Could you tell me how to", "en-us+m7", 185) + PAUSE
    fragment = await combined.check(audio, "Could you tell me how to?")
    assert not fragment.complete and fragment.note == "text: clearly unfinished", fragment
    question = await combined.check(espeak_say("Why is the sky blue?", "en-us", 160) + PAUSE, "Why is the sky blue?")
    assert question.complete and [p.detector for p in question.parts] == ["text"]
    unheard = await combined.check(audio, None)  # no transcript yet: Smart Turn alone
    assert unheard.note == "smart-turn decides (no text verdict)" and unheard.probability == pytest.approx(
        (await smart.check(audio)).probability
    )
