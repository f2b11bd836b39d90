"""Parley remembers across spoken conversations: the whole voice loop on PulseAudio virtual devices, the offline models.

A fact is told by voice (espeak-ng into the virtual microphone) in one session; a second session (a new
conversation, as after a restart) is asked about it by voice. SmolLM2-135M's wording is not the test: the
recalled fact reaching the answer generator's context is (a spy around the session's generator), and the
fact's record in the memory database.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse import PulseServer
from test_voice_loop_e2e import Live

from genx.agentkit.events import AssistantDone, UserFinal
from genx.memory import Memory, memory_note
from genx.model import ModelContext
from genx.stream import Stream

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(400)]

FACT = "The user lives in Berlin."


class ContextSpy:
    """Wraps the session's answer generator; keeps the memory's note (recalled facts) of every answer."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.notes: list[str] = []

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        self.notes.append(memory_note(ctx))
        return await self.inner.generate_stream(pattern, ctx)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def spoken_turn(pulse_env: PulseServer, store_dir: Path, speech: bytes) -> tuple[Live, ContextSpy]:
    live = Live(pulse_env, store_dir)
    stack = await asyncio.to_thread(live.session.build)
    spy = ContextSpy(stack.generator)
    stack.generator = spy  # type: ignore[assignment]
    async with live:
        await asyncio.sleep(0.5)
        live.say(speech)
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 150, "the answer")
        await live.loop.flush_store()
    return live, spy


async def test_a_fact_told_by_voice_reaches_the_answer_context_in_a_new_spoken_conversation(
    pulse_env: PulseServer, tmp_path: Path, say_espeak: Callable[[str], bytes]
) -> None:
    told, told_spy = await spoken_turn(pulse_env, tmp_path, say_espeak("I live in Berlin."))
    heard = told.of(UserFinal)[0].text
    assert "berlin" in heard.lower(), f"the ASR heard {heard!r}"
    assert told_spy.notes == [""]  # nothing was remembered before
    memory = Memory(tmp_path / "memory.sqlite3")  # the session's memory lives beside its conversation store
    [fact] = await memory.facts()
    assert (fact.text, fact.conversation_id) == (FACT, told.loop.conversation_id)
    await memory.aclose()

    asked, spy = await spoken_turn(pulse_env, tmp_path, say_espeak("Which city do I live in?"))
    assert asked.loop.conversation_id != told.loop.conversation_id
    assert "live" in asked.of(UserFinal)[0].text.lower()
    assert spy.notes and FACT in spy.notes[0], (spy.notes, asked.timeline())
    # the turn that asked is no new fact
    memory = Memory(tmp_path / "memory.sqlite3")
    assert [f.text for f in await memory.facts()] == [FACT]
    await memory.aclose()
