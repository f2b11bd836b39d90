"""The in-process llama.cpp generator with the real SmolLM2-135M GGUF."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from genx.chunk import MessageChunk, Role, Text
from genx.errors import Done, Truncated
from genx.generators import Generator
from genx.generators.llamacpp import EmptyPromptError, LlamaCppGenerator, LlamaOptions, LlamaStream
from genx.local.models import DEFAULT_LLM, ModelLoadError, ModelNotFoundError
from genx.model import ModelContextBuilder, ModelParams
from genx.tools import FuncTool

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


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


async def drain(stream: LlamaStream) -> tuple[list[MessageChunk], BaseException]:
    chunks: list[MessageChunk] = []
    while True:
        try:
            chunks.append(await asyncio.wait_for(stream.next(), 60))
        except (Done, Truncated) as end:
            return chunks, end


def text_of(chunks: list[MessageChunk]) -> str:
    return "".join(c.part.text for c in chunks if isinstance(c.part, Text))


async def test_the_generator_satisfies_the_protocol_and_answers_a_question(llm: LlamaCppGenerator) -> None:
    assert isinstance(llm, Generator)
    stream = await llm.generate_stream("offline/smollm2", ModelContextBuilder().user("What is the capital of France?").build())
    chunks, end = await drain(stream)
    assert isinstance(end, Done | Truncated)
    deltas = [c for c in chunks if isinstance(c.part, Text)]
    assert text_of(chunks).strip()
    assert {c.role for c in deltas} == {Role.ASSISTANT}
    assert len({c.stream_id for c in deltas}) == 1 and deltas[0].stream_id
    last = chunks[-1]
    assert last.part is None and last.meta is not None and last.meta["provider"] == "llamacpp"
    assert stream.usage is not None and stream.usage.prompt_tokens > 0 and stream.usage.generated_tokens == len(deltas)


async def test_max_tokens_cuts_the_answer_and_ends_truncated(llm: LlamaCppGenerator) -> None:
    ctx = ModelContextBuilder().user("Tell me a long story about a dragon and a knight.").params(max_tokens=5).build()
    stream = await llm.generate_stream("offline/smollm2", ctx)
    _chunks, end = await drain(stream)
    assert isinstance(end, Truncated)
    assert stream.finish_reason == "length"
    assert stream.usage is not None and 1 <= stream.usage.generated_tokens <= 5


async def test_stop_sequences_and_a_seed_are_honoured(llm: LlamaCppGenerator) -> None:
    base = ModelContextBuilder().user("Count from one to ten in words, separated by commas.")
    ctx = base.params(max_tokens=40, stop=[","], temperature=0.8, seed=7).build()
    a, _ = await drain(await llm.generate_stream("offline/smollm2", ctx))
    b, _ = await drain(await llm.generate_stream("offline/smollm2", ctx))
    assert "," not in text_of(a)
    assert text_of(a) == text_of(b)


async def test_closing_the_stream_stops_decoding_within_one_token(llm: LlamaCppGenerator) -> None:
    ctx = ModelContextBuilder().user("Write a very long essay about the history of the world.").params(max_tokens=400).build()
    stream = await llm.generate_stream("offline/smollm2", ctx)
    for _ in range(3):
        await asyncio.wait_for(stream.next(), 60)
    await stream.close()
    assert await asyncio.to_thread(stream.run_finished.wait, 30), "the decoding thread did not stop"
    assert stream.tokens_after_stop <= 1
    assert stream.finish_reason == "cancelled"
    # the model is free again: the next call answers
    again, _ = await drain(await llm.generate_stream("offline/smollm2", ModelContextBuilder().user("Say hi.").params(max_tokens=8).build()))
    assert text_of(again)


async def test_concurrent_calls_share_the_model_one_at_a_time_and_both_finish(llm: LlamaCppGenerator) -> None:
    ctxs = [ModelContextBuilder().user(q).params(max_tokens=20).build() for q in ("Name a fruit.", "Name a color.")]
    streams = [await llm.generate_stream("offline/smollm2", c) for c in ctxs]
    results = await asyncio.gather(*(drain(s) for s in streams))
    assert all(text_of(chunks) for chunks, _ in results)


async def test_invoke_returns_arguments_valid_against_the_tool_schema(llm: LlamaCppGenerator) -> None:
    def get_weather(city: str, days: int, unit: str = "celsius") -> str:
        """Weather forecast for a city.

        Args:
            city: the city name
            days: how many days to forecast
            unit: celsius or fahrenheit
        """
        return "sunny"

    tool = FuncTool.from_function(get_weather)
    ctx = ModelContextBuilder().user("What will the weather be in Oslo for the next 3 days?").build()
    usage, call = await asyncio.wait_for(llm.invoke("offline/smollm2", ctx, tool), 120)
    assert call.name == "get_weather" and call.id
    args = tool.validate(call.arguments)
    assert isinstance(args["city"], str) and isinstance(args["days"], int)
    assert usage.generated_tokens > 0


async def test_an_empty_prompt_is_a_typed_error(llm: LlamaCppGenerator) -> None:
    with pytest.raises(EmptyPromptError):
        await llm.generate_stream("offline/smollm2", ModelContextBuilder().build())


async def test_a_5000_character_prompt_is_answered_even_when_it_must_be_shortened(caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("llama_cpp")
    long_text = ("The meeting notes say the budget was approved and the team will grow. " * 80)[:5000] + " Summarize in one sentence."
    assert len(long_text) >= 5000
    small = LlamaCppGenerator(LlamaOptions(n_ctx=512))
    with caplog.at_level(logging.WARNING, logger="genx.generators.llamacpp"):
        chunks, _end = await drain(
            await small.generate_stream("offline/smollm2", ModelContextBuilder().user(long_text).params(max_tokens=30).build())
        )
    assert text_of(chunks).strip()
    assert any("does not fit" in r.getMessage() for r in caplog.records)
    full = LlamaCppGenerator(LlamaOptions(n_ctx=2048))
    chunks, _ = await drain(
        await full.generate_stream("offline/smollm2", ModelContextBuilder().user(long_text).params(max_tokens=30).build())
    )
    assert text_of(chunks).strip()


async def test_a_corrupt_gguf_is_a_typed_load_error(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    bad = tmp_path / "corrupt.gguf"
    bad.write_bytes(b"GGUF" + bytes(range(256)) * 64)
    gen = LlamaCppGenerator(LlamaOptions(path=str(bad)))
    stream = await gen.generate_stream("local/bad", ModelContextBuilder().user("hi").build())
    with pytest.raises(ModelLoadError, match=r"corrupt\.gguf"):
        await asyncio.wait_for(stream.next(), 60)


def test_a_missing_gguf_path_is_reported_with_the_path(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    with pytest.raises(ModelNotFoundError, match=r"nothere\.gguf"):
        LlamaCppGenerator(LlamaOptions(path=str(tmp_path / "nothere.gguf")))


async def test_sampling_params_from_the_context_override_the_defaults(llm: LlamaCppGenerator) -> None:
    ctx = ModelContextBuilder().user("Say one word.").params(ModelParams(max_tokens=3, temperature=0.0)).build()
    stream = await llm.generate_stream("offline/smollm2", ctx)
    _, end = await drain(stream)
    assert stream.usage is not None and stream.usage.generated_tokens <= 3
    assert isinstance(end, Done | Truncated)


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


async def test_prefill_caches_the_conversation_so_the_next_prompt_only_evaluates_the_new_message(llm: LlamaCppGenerator) -> None:
    history = [("What is the capital of France?", "The capital of France is Paris."), ("And of Italy?", "Rome is the capital of Italy.")]

    def ctx(extra: str | None) -> object:
        b = ModelContextBuilder().prompt("You are a helpful assistant.", name="system")
        for q, a in history:
            b.user(q).assistant(a)
        if extra is not None:
            b.user(extra)
        return b.build()

    loaded = llm.model.get()
    loaded.llm.reset()
    assert await llm.prefill("offline/smollm2", ctx(None))  # type: ignore[arg-type]
    cached = list(loaded.llm._input_ids)
    question = "What do bees make?"
    stream = await llm.generate_stream("offline/smollm2", ctx(question))  # type: ignore[arg-type]
    chunks, _ = await drain(stream)
    assert text_of(chunks).strip()
    assert stream.usage is not None
    prompt = list(loaded.llm._input_ids[: stream.usage.prompt_tokens])
    new_tokens = len(loaded.llm.tokenize(question.encode(), add_bos=False, special=True))
    reused = _common_prefix(cached, prompt)
    # everything before the new user message (system prompt, both exchanges, the user header) was evaluated already
    assert reused >= len(prompt) - new_tokens - 8, (reused, len(prompt), new_tokens)
    assert reused > len(prompt) // 2


async def test_prefill_is_skipped_while_the_model_is_busy(llm: LlamaCppGenerator) -> None:
    loaded = llm.model.get()
    with loaded.lock:  # a generation holds the model
        ok = await llm.prefill("offline/smollm2", ModelContextBuilder().user("hi").assistant("hello").build())
    assert ok is False
