"""The voice loop's memory wiring on the scripted rig: recall into the answer's context, turns out to the memory.

A fake memory records what the loop asks of it; the last tests use the real
SQLite memory (``genx.memory.Memory``) under the same rig.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from genx.agentkit.events import AssistantDone, LoopError, SpeechEnded, UserFinal
from genx.agentkit.loop import LoopConfig
from genx.agentkit.testing import GenCall, Reply, Rig
from genx.chunk import Role
from genx.memory import Intent, Memory, MemoryAnswer, TurnInfo

pytestmark = pytest.mark.timeout(60)

NOTE = "The user lives in Berlin."
SLOW = Reply([(0.1 + 0.4 * i, f"Sentence {i} is here. ") for i in range(30)] + [(12.5, "The end.")])
SHORT = Reply([(0.1, "You live in Berlin.")])
PLAIN = LoopConfig(generator="fake/model", system_prompt="Be brief.", preemptive_generation=False)


@dataclass
class Start:
    text: str
    turn_id: str
    conversation_id: str
    read_only: bool


@dataclass
class FakeMemory:
    """Answers every start with ``answer`` (or raises / stalls); records every call."""

    answer: MemoryAnswer = field(default_factory=lambda: MemoryAnswer(instruction=NOTE))
    requests: bool = False  # every start is an explicit "remember that <the words>" request
    fail: BaseException | None = None
    stall: bool = False
    starts: list[Start] = field(default_factory=list)
    carried: list[MemoryAnswer] = field(default_factory=list)
    turns: list[TurnInfo] = field(default_factory=list)
    done_calls: int = 0

    async def start_answer(
        self, user_text: str, *, turn_id: str = "", conversation_id: str = "", at: float | None = None, read_only: bool = False
    ) -> MemoryAnswer:
        self.starts.append(Start(user_text, turn_id, conversation_id, read_only))
        if self.stall:
            await asyncio.Event().wait()
        if self.fail is not None:
            raise self.fail
        return remember_request(user_text) if self.requests else self.answer

    async def carry_out(self, answer: MemoryAnswer) -> MemoryAnswer:
        self.carried.append(answer)
        return answer

    def answer_done(self) -> None:
        self.done_calls += 1

    def after_turn(self, turn: TurnInfo) -> None:
        self.turns.append(turn)


def notes(call: GenCall) -> list[str]:
    """The memory's system messages in the generator's context."""
    return [m.text() for m in call.messages if m.role == Role.SYSTEM and m.name == "memory"]


def remember_request(text: str) -> MemoryAnswer:
    return MemoryAnswer(intent=Intent("remember", text), instruction="You saved this to memory.", pending=TurnInfo(text))


async def _rig(**kw: object) -> Rig:
    rig = Rig(**kw)  # type: ignore[arg-type]
    await rig.start()
    return rig


async def test_recalled_facts_reach_the_generator_just_before_the_question_and_its_prompt_stays() -> None:
    mem = FakeMemory()
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["where do I live"], replies=[SHORT], config=PLAIN, memory=mem)
    await rig.run_until(6.0)
    [call] = rig.gen.calls
    assert call.prompts == ["Be brief."]  # the loop's prompt is kept, not replaced
    assert [(m.role, m.text()) for m in call.messages] == [(Role.SYSTEM, NOTE), (Role.USER, "where do I live")]
    [start] = mem.starts
    assert (start.text, start.turn_id, start.conversation_id, start.read_only) == ("where do I live", "t1", rig.loop.conversation_id, False)
    await rig.stop()


async def test_a_finished_turn_is_handed_to_memory_with_the_whole_answer() -> None:
    mem = FakeMemory()
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["I live in Berlin"], replies=[SHORT], config=PLAIN, memory=mem)
    await rig.run_until(6.0)
    [turn] = mem.turns
    assert (turn.user_text, turn.turn_id, turn.conversation_id) == ("I live in Berlin", "t1", rig.loop.conversation_id)
    assert turn.assistant_text == "You live in Berlin."
    assert turn.at == 1_700_000_000.0  # when the user spoke (the rig's wall clock)
    await rig.stop()


async def test_an_interrupted_answer_hands_memory_only_the_words_that_were_heard() -> None:
    mem = FakeMemory()
    rig = await _rig(
        speech=[(0.5, 2.0), (4.0, 5.0)], transcripts=["tell me a story", "stop"], replies=[SLOW, Reply([(0.1, "Okay.")])], memory=mem
    )
    await rig.run_until(10.0)
    done = rig.of(AssistantDone)[0]
    assert done.interrupted and done.spoken_text and done.spoken_text != done.text
    first = mem.turns[0]
    assert first.user_text == "tell me a story"
    assert first.assistant_text == done.spoken_text
    assert "Sentence 29" not in first.assistant_text
    await rig.stop()


async def test_a_held_answer_only_reads_memory_and_its_request_is_done_when_it_is_committed() -> None:
    mem = FakeMemory(requests=True)
    said = "remember that my key is under the mat"
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=[said], replies=[SHORT], asr_delay=0.05, memory=mem)
    await rig.run_until(2.25)  # the early ASR end passed, the end of turn (2.3 s) did not
    assert [s.read_only for s in mem.starts] == [True]
    assert rig.gen.calls and notes(rig.gen.calls[0]) == ["You saved this to memory."]
    assert rig.of(SpeechEnded) == [] and mem.carried == []  # held: nothing written yet
    await rig.run_until(6.0)
    assert rig.of(UserFinal)
    assert [a.pending.user_text for a in mem.carried if a.pending] == [said]
    await rig.stop()


async def test_a_dropped_held_answer_writes_nothing_and_lets_extraction_go_on() -> None:
    mem = FakeMemory(requests=True)
    rig = await _rig(
        speech=[(0.5, 1.5), (1.72, 2.5)],
        transcripts=[("what is", "what is the time")],
        replies=[SLOW, Reply([(0.1, "It is noon.")])],
        asr_delay=0.02,
        memory=mem,
    )
    await rig.run_until(6.0)
    assert (mem.starts[0].text, mem.starts[0].read_only) == ("what is", True)
    assert mem.done_calls == 1  # the dropped answer let extraction go on
    # the only request carried out is the one of the answer that was heard
    assert [s.text for s in mem.starts] == ["what is", "what is the time"]
    assert [a.pending.user_text for a in mem.carried if a.pending] == ["what is the time"]
    assert [t.user_text for t in mem.turns] == ["what is the time"]
    await rig.stop()


@pytest.mark.parametrize("failure", ["raises", "stalls"])
async def test_a_failing_or_stalled_memory_never_fails_the_answer(failure: str) -> None:
    mem = FakeMemory(fail=RuntimeError("database is on fire") if failure == "raises" else None, stall=failure == "stalls")
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["where do I live"], replies=[SHORT], config=PLAIN, memory=mem)
    rig.loop.memory_link.recall_timeout_s = 0.05
    for _ in range(200):
        await rig.run_until(rig.now + 0.05)
        if rig.of(AssistantDone):
            break
        await asyncio.sleep(0.005)  # the stalled recall's timeout runs on the real clock
    [call] = rig.gen.calls
    assert [m.role for m in call.messages] == [Role.USER]
    assert [d.text for d in rig.of(AssistantDone)] == ["You live in Berlin."]
    assert rig.of(LoopError) == []
    await rig.stop()


# -- the real memory (SQLite in tmp_path) under the rig


async def _until_answered(rig: Rig, n: int = 1) -> None:
    for _ in range(400):
        await rig.run_until(rig.now + 0.05)
        if len(rig.of(AssistantDone)) >= n:
            return
        await asyncio.sleep(0.002)  # recall and writes run in worker threads
    raise AssertionError("no answer")


async def test_a_fact_told_in_one_conversation_reaches_the_generator_in_a_new_one(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    mem = Memory(path)
    first = await _rig(speech=[(0.5, 2.0)], transcripts=["I live in Berlin."], replies=[Reply([(0.1, "Nice.")])], config=PLAIN, memory=mem)
    await _until_answered(first)
    await first.stop()
    await mem.drain()
    await mem.aclose()

    mem2 = Memory(path)  # a restart
    second = await _rig(speech=[(0.5, 2.0)], transcripts=["Which city do I live in?"], replies=[SHORT], config=PLAIN, memory=mem2)
    await _until_answered(second)
    assert second.loop.conversation_id != first.loop.conversation_id
    [call] = second.gen.calls
    [note] = notes(call)
    assert NOTE in note
    assert call.messages[-1].text() == "Which city do I live in?"  # the note comes before the question
    assert call.prompts == ["Be brief."]
    [fact] = await mem2.facts()
    assert (fact.text, fact.conversation_id, fact.turn_id) == (NOTE, first.loop.conversation_id, "t1")
    await second.stop()
    await mem2.aclose()


async def test_memory_switched_off_stores_and_recalls_nothing(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    mem = Memory(path, enabled=False)
    rig = await _rig(
        speech=[(0.5, 2.0), (5.0, 6.5)],
        transcripts=["I live in Berlin.", "Which city do I live in?"],
        replies=[Reply([(0.1, "Nice.")]), SHORT],
        config=PLAIN,
        memory=mem,
    )
    await _until_answered(rig, 2)
    await mem.drain()
    assert all(notes(call) == [] for call in rig.gen.calls)
    await rig.stop()
    await mem.aclose()
    assert not path.exists()
