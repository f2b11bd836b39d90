"""The assistant generator's decisions and answers, on scripted generators (no model is loaded)."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import sys
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from toolround_fakes import ScriptedGenerator, Turn, call

from genx.assistant import LOOPING_ANSWER, AssistantGenerator, AssistantStream, Fillers, RouteResult, prematch
from genx.assistant.intents import Intent
from genx.chunk import MessageChunk, Role, Text
from genx.errors import Done, State
from genx.generators.llamacpp import LlamaCppGenerator
from genx.model import ModelContext, ModelContextBuilder
from genx.realtime import ManualClock
from genx.stream import Stream, StreamBuilder
from genx.toolbox import Reminders, offline_tools
from genx.toolrounds import CallStatus, ToolEventKind, tool_event
from genx.tools import FuncTool

PARIS = ZoneInfo("Europe/Paris")
T0_MS = 1_772_532_000_000  # 2026-03-03 11:00 Paris


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0_MS)


@pytest.fixture
def reminders(tmp_path: Path, clock: ManualClock) -> Reminders:
    return Reminders(tmp_path, clock=clock, zone=PARIS)


@pytest.fixture
def tools(reminders: Reminders, clock: ManualClock) -> list[FuncTool]:
    return offline_tools(reminders, clock=clock, zone=PARIS)


def ask(text: str) -> ModelContext:
    return ModelContextBuilder().prompt("You are Parley.").user(text).build()


async def drain(stream: Stream) -> tuple[list[MessageChunk], BaseException]:
    chunks: list[MessageChunk] = []
    while True:
        try:
            chunks.append(await asyncio.wait_for(stream.next(), 5))
        except State as end:
            return chunks, end


def text_of(chunks: list[MessageChunk], *, fillers: bool = True) -> str:
    return "".join(c.part.text for c in chunks if isinstance(c.part, Text) and (fillers or not (c.meta and c.meta.get("filler"))))


class FakeLlama(LlamaCppGenerator):
    """Passes as the in-process model (the assistant routes for it); answers with fixed text, records contexts."""

    def __init__(self, answer: str = "Hello there.") -> None:  # no model: nothing of the real one is used
        self.answer = answer
        self.contexts: list[ModelContext] = []

    def model_bytes(self) -> int | None:
        return 100_000_000  # the size of a small model: the small-model context policy applies

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:  # type: ignore[override]
        self.contexts.append(ctx)
        b = StreamBuilder()
        b.push(MessageChunk(role=Role.ASSISTANT, part=Text(self.answer)))
        b.push(MessageChunk(role=Role.ASSISTANT, meta={"finish_reason": "stop", "usage": None}))
        b.done()
        return b.stream


class FakeRouter:
    def __init__(self, intent: Intent | None, line: str = "none") -> None:
        self.intent = intent
        self.line = line
        self.asked: list[str] = []

    async def route(self, text: str) -> RouteResult:
        self.asked.append(text)
        return RouteResult(self.intent, self.line, 1.0)

    async def warm(self) -> None:
        pass


def local_assistant(tools: list[FuncTool], llama: FakeLlama, router: FakeRouter, **kw: Any) -> AssistantGenerator:
    return AssistantGenerator(llama, tools, router_factory=lambda _llm, _tools: router, **kw)  # type: ignore[arg-type,return-value]


# -- pre-match ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tool", "args"),
    [
        ("What time is it in Tokyo?", "current_time", {"place": "Tokyo"}),
        ("what's the time", "current_time", {}),
        ("What is 17 times 23?", "calculate", {"expression": "17 times 23"}),
        ("Convert 20 kilometers to miles please.", "convert_units", {"value": 20.0, "from_unit": "kilometers", "to_unit": "miles"}),
        ("set a timer for ten minutes", "set_timer", {"duration": "10 minutes"}),
        ("set a pasta timer for 8 minutes", "set_timer", {"duration": "8 minutes", "label": "pasta"}),
        ("what day is 25 December 2026", "date_info", {"date": "25 December 2026"}),
        ("Remind me to call my sister tomorrow morning.", "set_reminder", {"text": "call my sister", "when": "tomorrow morning"}),
        ("cancel the pasta timer", "cancel_timer", {"which": "the pasta timer"}),
        ("what timers do I have", "list_timers", {}),
    ],
)
def test_the_obvious_phrasings_are_matched_without_a_model(text: str, tool: str, args: dict[str, Any]) -> None:
    assert prematch(text) == Intent(tool, args)


@pytest.mark.parametrize(
    "text",
    ["tell me a joke", "how do I stop smoking", "what is 1990", "how many calories in 2 eggs", "what time does the bakery open", ""],
)
def test_anything_else_is_left_to_the_model(text: str) -> None:
    assert prematch(text) is None


# -- the pre-matched path -----------------------------------------------------------------------


async def test_a_prematched_request_runs_its_tool_without_asking_the_model(tools: list[FuncTool]) -> None:
    model = ScriptedGenerator([])  # any call would fail the test
    gen = AssistantGenerator(model, tools)
    stream = await gen.generate_stream("cloud/x", ask("What is 17 times 23?"))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert "391" in text_of(chunks)
    assert stream.decision.path == "prematch"
    kinds = [ev.kind for ev in (tool_event(c) for c in chunks) if ev is not None]
    assert kinds == [ToolEventKind.CALL_START, ToolEventKind.ARGS_DELTA, ToolEventKind.CALL_END, ToolEventKind.RESULT]
    report = await stream.wait_report()
    assert [(c.call.name, c.status) for c in report.calls] == [("calculate", CallStatus.OK)]
    assert "391" in stream.answer
    assert model.contexts == []


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("set a timer for banana minutes", "banana"),
        ("what time is it in Atlantis", "Atlantis"),
        ("set an alarm for yesterday at 7", "passed"),
    ],
)
async def test_bad_values_get_the_tools_spoken_explanation_not_a_crash(tools: list[FuncTool], text: str, says: str) -> None:
    gen = AssistantGenerator(ScriptedGenerator([]), tools)
    stream = await gen.generate_stream("cloud/x", ask(text))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    answer = text_of(chunks)
    assert says.lower() in answer.lower() and answer == stream.answer
    [rec] = (await stream.wait_report()).calls
    assert rec.result.is_error and rec.status is CallStatus.FAILED


async def test_a_prematched_timer_is_really_set(tools: list[FuncTool], reminders: Reminders) -> None:
    gen = AssistantGenerator(ScriptedGenerator([]), tools)
    chunks, _ = await drain(await gen.generate_stream("cloud/x", ask("set a timer for ten minutes")))
    [item] = reminders.store.pending()
    assert item.due_ms == T0_MS + 600_000
    assert "10 minutes" in text_of(chunks)


# -- the in-process model: router, then a plain answer -------------------------------------------


async def test_a_routed_intent_runs_its_tool_and_the_model_does_not_answer(tools: list[FuncTool], reminders: Reminders) -> None:
    llama, router = FakeLlama(), FakeRouter(Intent("set_timer", {"duration": "4 minutes"}, "model"), "set_timer: duration=4 minutes")
    gen = local_assistant(tools, llama, router)
    stream = await gen.generate_stream("offline/smollm2", ask("the tea needs a timer, four minutes I think"))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert router.asked == ["the tea needs a timer, four minutes I think"]
    assert stream.decision.path == "router" and stream.decision.router_line == "set_timer: duration=4 minutes"
    assert llama.contexts == []
    assert [i.due_ms for i in reminders.store.pending()] == [T0_MS + 240_000]
    assert "4 minutes" in text_of(chunks)


async def test_router_none_gives_a_plain_model_answer_with_no_tools_in_its_context(tools: list[FuncTool]) -> None:
    llama, router = FakeLlama("Why did the chicken cross the road?"), FakeRouter(None)
    gen = local_assistant(tools, llama, router)
    ctx = ModelContextBuilder().user("tell me a joke").tool(*tools).build()
    stream = await gen.generate_stream("offline/smollm2", ctx)
    chunks, _ = await drain(stream)
    assert text_of(chunks) == "Why did the chicken cross the road?"
    assert stream.decision.path == "model"
    [seen] = llama.contexts
    assert list(seen.tools()) == []
    assert [m.text() for m in seen.messages()][-1] == "tell me a joke"  # after the small model's few-shot examples


async def test_the_prematch_comes_before_the_router(tools: list[FuncTool]) -> None:
    router = FakeRouter(Intent("list_timers", {}, "model"))
    gen = local_assistant(tools, FakeLlama(), router)
    stream = await gen.generate_stream("offline/smollm2", ask("convert 20 km to miles"))
    chunks, _ = await drain(stream)
    assert router.asked == []
    assert "12.4" in text_of(chunks)


async def test_the_in_process_model_refuses_tools_instead_of_dropping_them(tools: list[FuncTool]) -> None:
    from genx.generators.providers.errors import UnsupportedSettingError

    try:
        llm = LlamaCppGenerator()
    except Exception as e:  # llama-cpp-python or the GGUF missing: nothing to check
        pytest.skip(f"the llama.cpp generator cannot be built here: {e}")
    ctx = ModelContextBuilder().user("what time is it").tool(*tools).build()
    with pytest.raises(UnsupportedSettingError, match="AssistantGenerator"):
        await llm.generate_stream("offline/smollm2", ctx)


# -- cloud generators: native tool calls ------------------------------------------------------------


async def test_a_cloud_model_calls_the_offline_tools_natively(tools: list[FuncTool]) -> None:
    model = ScriptedGenerator(
        [Turn(calls=[call("current_time", json.dumps({"place": "Tokyo"}), "c1")]), Turn(text="It is evening in Tokyo.")]
    )
    gen = AssistantGenerator(model, tools)
    stream = await gen.generate_stream("cloud/x", ask("would my friend in Japan be asleep by now?"))
    chunks, end = await drain(stream)
    assert isinstance(end, Done) and stream.decision.path == "cloud"
    assert text_of(chunks).strip() == "It is evening in Tokyo."
    result = model.contexts[1][-1]
    assert result.role == Role.TOOL and "In Tokyo it's 7:00 PM" in result.text()  # 11:00 Paris = 19:00 Tokyo


async def test_malformed_arguments_and_unknown_tools_become_results_the_model_answers(tools: list[FuncTool]) -> None:
    model = ScriptedGenerator(
        [
            Turn(calls=[call("calculate", '{"expr": 3', "c1"), call("teleport", "{}", "c2")]),
            Turn(text="Sorry, I could not do that."),
        ]
    )
    gen = AssistantGenerator(model, tools)
    stream = await gen.generate_stream("cloud/x", ask("do something odd"))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert text_of(chunks).strip() == "Sorry, I could not do that."
    report = await stream.wait_report()
    assert [c.status for c in report.calls] == [CallStatus.INVALID_ARGUMENTS, CallStatus.UNKNOWN_TOOL]


async def test_a_model_that_keeps_calling_tools_gets_a_spoken_apology(tools: list[FuncTool]) -> None:
    model = ScriptedGenerator([Turn(calls=[call("list_timers", "{}", "c")])], repeat_last=True)
    gen = AssistantGenerator(model, tools, max_tool_rounds=2)
    stream = await gen.generate_stream("cloud/x", ask("loop forever"))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert text_of(chunks) == LOOPING_ANSWER == stream.answer
    assert len(model.contexts) == 4  # two rounds, the "answer now" turn, and the refusal noticed


# -- fillers ------------------------------------------------------------------------------------------


def slow_tool(release: asyncio.Event) -> FuncTool:
    async def lookup(what: str) -> str:
        """Look something up slowly.

        Args:
            what: what to look up.
        """
        await release.wait()
        return f"{what}: found."

    return FuncTool.from_function(lookup)


async def next_text(stream: AssistantStream) -> MessageChunk:
    while True:
        c = await asyncio.wait_for(stream.next(), 5)
        if isinstance(c.part, Text):
            return c


async def test_a_slow_tool_gets_a_spoken_filler_first_which_history_leaves_out() -> None:
    release = asyncio.Event()
    model = ScriptedGenerator([Turn(calls=[call("lookup", '{"what": "the answer"}', "c1")]), Turn(text="Found it.")])
    gen = AssistantGenerator(model, [slow_tool(release)], filler_after_s=0.05, fillers=Fillers(rng=random.Random(3)))
    stream = await gen.generate_stream("cloud/x", ask("look it up"))
    first = await next_text(stream)
    assert first.meta == {"filler": True}
    assert first.part is not None and first.part.text.strip() in gen.fillers.phrases
    release.set()
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert text_of(chunks).strip() == "Found it." == stream.answer.strip()
    assert len(stream.fillers_said) == 1


async def test_a_quick_tool_gets_no_filler(tools: list[FuncTool]) -> None:
    gen = AssistantGenerator(ScriptedGenerator([]), tools, filler_after_s=2.0)
    stream = await gen.generate_stream("cloud/x", ask("what is 2 plus 2"))
    chunks, _ = await drain(stream)
    assert not any(c.meta and c.meta.get("filler") for c in chunks)
    assert stream.fillers_said == []


def test_fillers_are_never_the_same_twice_in_a_row() -> None:
    f = Fillers(rng=random.Random(7))
    said = [f.next() for _ in range(300)]
    assert all(a != b for a, b in itertools.pairwise(said))
    assert set(said) == set(f.phrases)
    with pytest.raises(ValueError):
        Fillers(["One moment."])


async def test_closing_the_answer_during_a_slow_tool_cancels_it_and_keeps_history_consistent() -> None:
    release = asyncio.Event()
    model = ScriptedGenerator([Turn(calls=[call("lookup", '{"what": "x"}', "c1")]), Turn(text="never")])
    gen = AssistantGenerator(model, [slow_tool(release)], filler_after_s=10)
    stream = await gen.generate_stream("cloud/x", ask("look it up"))
    while True:  # wait for the call to start
        ev = tool_event(await asyncio.wait_for(stream.next(), 5))
        if ev is not None and ev.kind is ToolEventKind.CALL_END:
            break
    await stream.close()
    report = await asyncio.wait_for(stream.wait_report(), 5)
    assert report.interrupted
    assert [c.status for c in report.calls] == [CallStatus.CANCELLED]
    assert len(model.contexts) == 1


@pytest.mark.parametrize(
    ("tool", "text", "trusted"),
    [
        ("list_timers", "what is love", False),
        ("current_time", "who won the world cup", False),
        ("set_reminder", "good morning", False),
        ("current_time", "could you tell me the hour in Lima", True),
        ("set_timer", "put a ten minute countdown on", True),
        ("cancel_timer", "get rid of the alarm", True),
        ("calculate", "what's twelve plus thirty", True),
    ],
)
def test_a_routed_tool_is_trusted_only_with_the_words_it_needs(tool: str, text: str, trusted: bool) -> None:
    from genx.assistant.intents import plausible

    assert plausible(Intent(tool, {}), text) is trusted


async def test_the_router_drops_a_tool_named_for_small_talk() -> None:
    from genx.assistant.router import ModelRouter

    class Says:
        def __init__(self, line: str) -> None:
            self.line = line

        async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
            b = StreamBuilder()
            b.push(MessageChunk(role=Role.ASSISTANT, part=Text(self.line)))
            b.done()
            return b.stream

    tools = offline_tools()
    small_talk = await ModelRouter(Says("list_timers"), tools).route("what is love")  # type: ignore[arg-type]
    assert small_talk.intent is None and small_talk.line == "list_timers"
    real = await ModelRouter(Says("current_time: place=Lima"), tools).route("the hour in Lima?")  # type: ignore[arg-type]
    assert real.intent == Intent("current_time", {"place": "Lima"}, "model")
