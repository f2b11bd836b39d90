"""llama.cpp generator helpers that need no model: messages, context fitting, params, file checks."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from genx.chunk import FuncCall, Message, ToolResult
from genx.generators.llamacpp import (
    SPOKEN_STYLE,
    EmptyPromptError,
    LlamaCppGenerator,
    LlamaOptions,
    UnsupportedLlamaSettingError,
    chat_messages,
    check_gguf,
    fit_messages,
    sampling_kwargs,
)
from genx.local.models import ModelLoadError
from genx.model import ModelContextBuilder, ModelParams


def words(text: str) -> int:
    return len(text.split())


def test_without_a_system_prompt_the_spoken_style_is_used_and_tool_traffic_becomes_text() -> None:
    ctx = (
        ModelContextBuilder()
        .user("weather?")
        .message(Message.assistant("", tool_calls=[FuncCall("get_weather", '{"city":"Oslo"}', "c1")]))
        .message(Message.tool(ToolResult("c1", "get_weather", "rain")))
        .build()
    )
    msgs = chat_messages(ctx, SPOKEN_STYLE)
    assert msgs[0] == {"role": "system", "content": SPOKEN_STYLE}
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert "get_weather" in msgs[2]["content"] and "rain" in msgs[3]["content"]


def test_context_prompts_replace_the_default_system_prompt_and_empty_turns_are_skipped() -> None:
    ctx = ModelContextBuilder().prompt("Be a pirate.").user("").user("hi").build()
    assert chat_messages(ctx, SPOKEN_STYLE) == [{"role": "system", "content": "Be a pirate."}, {"role": "user", "content": "hi"}]


def test_fit_drops_the_oldest_turns_first_and_keeps_system_and_the_last_message() -> None:
    msgs = [{"role": "system", "content": "sys"}]
    for i in range(10):
        msgs.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"turn{i} " + "w " * 20})
    fitted, note = fit_messages(msgs, words, budget=100)
    assert fitted[0]["role"] == "system" and fitted[-1]["content"].startswith("turn9")
    assert len(fitted) < len(msgs) and "oldest" in note
    assert sum(words(m["content"]) + 8 for m in fitted) <= 100


def test_fit_shortens_one_huge_message_keeping_its_head_and_tail() -> None:
    text = "START " + "filler " * 2000 + "what is the question END"
    fitted, note = fit_messages([{"role": "system", "content": "sys"}, {"role": "user", "content": text}], words, budget=300)
    content = fitted[-1]["content"]
    assert content.startswith("START") and content.endswith("END") and " … " in content
    assert words(content) + 8 + 9 <= 300 and "shortened" in note


def test_fit_leaves_a_conversation_that_fits_untouched() -> None:
    msgs = [{"role": "user", "content": "hello there"}]
    assert fit_messages(msgs, words, budget=100) == (msgs, "")


def test_model_params_map_to_llama_sampling_and_unknown_extras_are_rejected() -> None:
    kw = sampling_kwargs(
        ModelParams(max_tokens=7, temperature=0.1, top_p=0.5, stop=["\n"], repeat_penalty=1.3, seed=4, extra={"min_p": 0.1})
    )
    assert kw == {"max_tokens": 7, "temperature": 0.1, "top_p": 0.5, "stop": ["\n"], "repeat_penalty": 1.3, "seed": 4, "min_p": 0.1}
    with pytest.raises(UnsupportedLlamaSettingError, match="reasoning_effort"):
        sampling_kwargs(ModelParams(extra={"reasoning_effort": "high"}))


def test_a_file_that_is_not_gguf_is_a_typed_load_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"PK\x03\x04 definitely a zip")
    with pytest.raises(ModelLoadError, match="not a GGUF file"):
        check_gguf(bad)
    with pytest.raises(ModelLoadError, match="folder"):
        check_gguf(tmp_path)


async def test_an_empty_prompt_is_a_typed_error_before_any_decoding(tmp_path: Path) -> None:
    f = tmp_path / "never-loaded.gguf"
    f.write_bytes(b"GGUF")
    gen = LlamaCppGenerator(LlamaOptions(path=str(f)))
    with pytest.raises(EmptyPromptError, match="user message"):
        await gen.generate_stream("local", ModelContextBuilder().user("   ").build())
    assert not gen.model.loaded


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux only")
async def test_decoding_runs_in_its_own_lower_priority_thread_and_errors_reach_the_caller() -> None:
    import os
    import threading

    from genx.generators.llamacpp import run_in_own_thread

    seen: dict[str, object] = {}

    def work(tag: str) -> None:
        seen["tag"] = tag
        seen["thread"] = threading.current_thread().name
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    loop = asyncio.get_running_loop()
    await asyncio.wait_for(run_in_own_thread(loop, 10, work, "x"), 10)
    assert seen["tag"] == "x" and seen["thread"] == "llama.cpp-decode"
    assert seen["nice"] == min(19, base + 10)
    # the caller's own thread keeps its priority
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base

    def boom() -> None:
        raise ValueError("decode failed")

    with pytest.raises(ValueError, match="decode failed"):
        await asyncio.wait_for(run_in_own_thread(loop, 10, boom), 10)
