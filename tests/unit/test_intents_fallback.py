"""The model router as a guarded fallback: asked only for messages with a tool's words, trusted only when its values read."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from genx.assistant.fallback import model_fallback, trusted, worth_asking
from genx.assistant.intents import Intent
from genx.assistant.router import RouteResult


class CountingRouter:
    """Stands in for :class:`ModelRouter`: answers one fixed intent and counts the messages it was asked about."""

    def __init__(self, intent: Intent | None) -> None:
        self.intent = intent
        self.asked: list[str] = []

    async def route(self, text: str) -> RouteResult:
        self.asked.append(text)
        return RouteResult(self.intent, "line", 300.0)


def _router(intent: Intent | None) -> Any:
    return CountingRouter(intent)


@pytest.mark.parametrize(
    "text",
    [
        "tell me a joke",
        "how are you today",
        "who invented the alarm clock",
        "how do timers work",
        "why is the sky blue",
        "what is the meaning of life",
        "recommend a good book",
        "what's the difference between a mile and a kilometer",
        "tell me about the history of calendars",
        "the alarm on my watch won't stop beeping, how can I fix it",
        "my reminders never pop up on time, how do we troubleshoot that",
    ],
)
async def test_chit_chat_and_questions_about_things_never_reach_the_model_router(text: str) -> None:
    router = _router(Intent("set_alarm", {"time": "7 am"}, "model"))
    route = await model_fallback(router, text)
    assert route.intent is None
    assert router.asked == [] and not worth_asking(text)


async def test_a_request_the_pre_match_missed_reaches_the_router_and_its_readable_intent_is_kept() -> None:
    intent = Intent("set_timer", {"duration": "4 minutes"}, "model")
    router = _router(intent)
    route = await model_fallback(router, "could I get a little timer going, four minutes")
    assert router.asked == ["could I get a little timer going, four minutes"]
    assert route.intent == intent


@pytest.mark.parametrize(
    ("intent", "text"),
    [
        (Intent("set_timer", {"duration": "banana"}, "model"), "a timer for my banana bread, 4 minutes"),
        (Intent("current_time", {"place": "Narnia Land"}, "model"), "what time is it over in Narnia Land then"),
        (Intent("calculate", {"expression": "love"}, "model"), "what's 3 times love"),
        (Intent("convert_units", {"value": 2.0, "from_unit": "eggs", "to_unit": "calories"}, "model"), "2 eggs is how many calories"),
        (Intent("set_alarm", {"time": "whenever"}, "model"), "alarm whenever you like"),
    ],
)
def test_a_model_intent_whose_values_do_not_read_is_not_trusted(intent: Intent, text: str) -> None:
    assert not trusted(intent, text)


def test_a_model_intent_for_a_message_without_that_tools_words_is_not_trusted() -> None:
    assert not trusted(Intent("list_timers", {}, "model"), "what is 2 plus 2 my friend")
    assert not trusted(Intent("current_time", {"place": "Paris"}, "model"), "I love Paris in the spring")
    assert trusted(Intent("current_time", {"place": "Paris"}, "model"), "hmm the time over in Paris, what is it")


def test_a_model_value_the_message_never_said_is_not_trusted() -> None:
    assert not trusted(Intent("set_reminder", {"text": "feed the fish", "when": "christmas"}, "model"), "remind me to feed the fish")
    assert not trusted(Intent("set_alarm", {"time": "7 am"}, "model"), "alarm please, the usual")
    assert trusted(Intent("set_alarm", {"time": "7 am"}, "model"), "an alarm for seven a.m. if you would")
    assert trusted(Intent("set_timer", {"duration": "4 minutes", "label": "eggs"}, "model"), "timer going for the eggs, four minute")


class StuckRouter:
    """A router that never answers (a grammar-constrained decode crawling beside another model)."""

    def __init__(self) -> None:
        self.cancelled = asyncio.Event()

    async def route(self, text: str) -> RouteResult:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("unreachable")


async def test_a_router_slower_than_its_budget_is_cancelled_and_the_message_gets_no_tool() -> None:
    router = StuckRouter()
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    route = await model_fallback(router, "could I get a little timer going, four minutes", budget_s=0.05)  # type: ignore[arg-type]
    assert route.intent is None
    assert loop.time() - t0 < 1.0  # (a hang guard; the budget is 0.05 s)
    assert router.cancelled.is_set()  # its generation does not run on beside the answer
