"""The memory service: recall across conversations, explicit requests, background extraction, privacy."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest
from invoke_fakes import InvokeScript

from genx.chunk import Role
from genx.memory import Memory, ModelExtractor, TurnInfo, memory_note
from genx.model import ModelContextBuilder
from genx.profilers.generator import GeneratorProfiler
from genx.segmentors.generator import GeneratorSegmentor
from genx.structured import GeneratorRef

SEGMENT = {"segments": [{"summary": "The user talks about their work.", "entities": [{"name": "user", "type": "user"}], "relations": []}]}


def model_memory(path: Path, *answers: object, timeout_s: float = 1.0) -> tuple[Memory, InvokeScript]:
    gen = InvokeScript(*answers)
    ref = GeneratorRef(gen, "offline/smollm2", timeout_s=timeout_s)
    return Memory(path, extractor=ModelExtractor(GeneratorSegmentor(ref), GeneratorProfiler(ref))), gen


async def values(memory: Memory, question: str) -> list[str]:
    return [f.value for f in (await memory.recall(question)).facts]


async def test_a_fact_told_in_one_conversation_is_recalled_in_a_new_one_after_a_restart(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    m.after_turn(TurnInfo("I moved to Berlin last spring.", "t1", "conv-1"))
    await m.drain()
    await m.aclose()
    m2 = Memory(tmp_path / "m.sqlite3")
    ans = await m2.start_answer("Which city do I live in?", turn_id="t9", conversation_id="conv-2")
    assert [f.value for f in ans.recalled.facts] == ["Berlin"]
    ctx = ans.in_context(ModelContextBuilder().user("Which city do I live in?").build())
    assert list(ctx.prompts()) == []  # a system prompt would replace the generator's own
    note, question = list(ctx.messages())
    assert (note.role, question.text()) == (Role.SYSTEM, "Which city do I live in?")
    assert "The user lives in Berlin." in note.text() and memory_note(ctx) == note.text()
    [fact] = await m2.facts()
    assert (fact.turn_id, fact.conversation_id, fact.source) == ("t1", "conv-1", "rules")
    await m2.aclose()


async def test_an_update_replaces_the_old_fact_in_recall(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    m.after_turn(TurnInfo("I live in Lisbon.", at=1.0))
    m.after_turn(TurnInfo("I moved to Berlin.", at=2.0))
    await m.drain()
    assert await values(m, "where do I live now") == ["Berlin"]
    await m.aclose()


async def test_a_question_about_something_never_told_recalls_nothing(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    for t in ("My sister's name is Anna.", "My favourite colour is green.", "I work as a nurse."):
        m.after_turn(TurnInfo(t))
    await m.drain()
    for q in ("What's my brother's name?", "What's my favourite movie?", "How old am I?"):
        assert await values(m, q) == [], q
    await m.aclose()


async def test_recall_stays_within_the_token_budget(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3", token_budget=40)
    for i, thing in enumerate(["jazz", "hiking", "chess", "cooking", "long walks on the beach at sunset", "painting"]):
        m.after_turn(TurnInfo(f"I love {thing}.", at=float(i)))
    await m.drain()
    recalled = await m.recall("what do I like to do for fun?")
    assert 0 < len(recalled.facts) < 6 and len(recalled.text()) / 4 <= 40
    await m.aclose()


async def test_remember_that_stores_the_words_exactly_without_a_model(tmp_path: Path) -> None:
    m, gen = model_memory(tmp_path / "m.sqlite3")
    ans = await m.start_answer("Remember that the spare key is under the blue flower pot.")
    assert ans.intent is not None and "The spare key is under the blue flower pot." in ans.instruction
    m.after_turn(TurnInfo("Remember that the spare key is under the blue flower pot."))
    await m.drain()
    assert gen.calls == []  # neither the request nor its turn went to the model
    assert await values(m, "where is the spare key?") == ["The spare key is under the blue flower pot."]
    listing = await m.start_answer("What do you know about me?")
    assert "spare key" in listing.recalled.text()
    await m.aclose()


async def test_a_deleted_fact_never_comes_back(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    m.after_turn(TurnInfo("I live in Lisbon.", at=1.0))
    m.after_turn(TurnInfo("I moved to Berlin.", at=2.0))
    await m.drain()
    ans = await m.start_answer("Forget that I live in Berlin.")
    assert "deleted 1 fact" in ans.instruction
    m.after_turn(TurnInfo("Forget that I live in Berlin."))
    m.after_turn(TurnInfo("I moved to Berlin.", at=2.0))  # a late extraction of the old turn
    await m.drain()
    assert await values(m, "where do I live") == [] and await m.facts(include_retired=True) == []
    raw = await asyncio.to_thread(lambda: b"".join(p.read_bytes() for p in tmp_path.glob("m.sqlite3*")))
    for word in (b"Berlin", b"berlin", b"Lisbon", b"lisbon"):  # secure_delete, index merge, WAL emptied: gone from the files
        assert word not in raw
    await m.aclose()


async def test_forget_everything_clears_memory(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    m.after_turn(TurnInfo("I work as a nurse."))
    await m.drain()
    ans = await m.start_answer("Forget everything.")
    assert "(1 facts)" in ans.instruction and await m.facts() == []
    await m.aclose()


async def test_memory_off_writes_nothing_not_even_the_file(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3", enabled=False)
    m.after_turn(TurnInfo("I live in Berlin."))
    ans = await m.start_answer("Remember that my name is Sam.")
    assert "switched off" in ans.instruction
    assert (await m.recall("where do I live")).facts == ()
    assert await m.remember("my name is Sam") == []
    await m.drain()
    await m.aclose()
    assert await asyncio.to_thread(lambda: list(tmp_path.iterdir())) == []


async def test_pausing_memory_drops_queued_turns(tmp_path: Path) -> None:
    m, gen = model_memory(tmp_path / "m.sqlite3", 5.0)
    m.after_turn(TurnInfo("I work as a nurse."))
    m.after_turn(TurnInfo("I work as a pilot."))
    await asyncio.wait_for(gen.started.wait(), 2)
    m.set_enabled(False)
    await asyncio.wait_for(m.drain(), 2)
    assert [f.value for f in await m.facts()] == ["nurse"]  # the rules ran before the pause; nothing after
    await m.aclose()


async def test_the_model_adds_grounded_facts_and_its_invented_values_are_dropped(tmp_path: Path) -> None:
    changes = {
        "changes": [
            {"op": "add", "attribute": "employer", "value": "Acme Robotics", "confidence": 0.9},
            {"op": "add", "attribute": "age", "value": "42", "confidence": 0.9},  # never said
        ]
    }
    m, gen = model_memory(tmp_path / "m.sqlite3", SEGMENT, changes)
    m.after_turn(TurnInfo("These days I build robots over at Acme Robotics."))
    await m.drain()
    [fact] = await m.facts()
    assert (fact.attribute, fact.value, fact.source, fact.confidence) == ("employer", "Acme Robotics", "model", 0.7)
    assert [c.tool.name for c in gen.calls] == ["segment_conversation", "update_profile"]
    await m.aclose()


@pytest.mark.parametrize("bad", ["{not json", {"segments": "nope"}, 3.0])
async def test_invalid_json_or_a_timeout_from_the_model_changes_nothing(tmp_path: Path, bad: object) -> None:
    m, _ = model_memory(tmp_path / "m.sqlite3", bad, timeout_s=0.2)
    m.after_turn(TurnInfo("These days I build robots over at Acme Robotics."))
    await asyncio.wait_for(m.drain(), 5)
    assert await m.facts() == []
    assert m.extractor is not None and m.extractor.stats.failures == 1
    await m.aclose()


async def test_an_answer_starting_cancels_the_model_extraction_which_runs_again_afterwards(tmp_path: Path) -> None:
    m, gen = model_memory(
        tmp_path / "m.sqlite3", 5.0, SEGMENT, {"changes": [{"op": "add", "attribute": "employer", "value": "Acme", "confidence": 1}]}
    )
    m.after_turn(TurnInfo("I build robots at Acme."))
    await asyncio.wait_for(gen.started.wait(), 2)
    await m.start_answer("How are you?")
    assert gen.cancelled == 1 and m.stats.cancelled_extractions == 1
    await asyncio.sleep(0)
    assert len(gen.calls) == 1  # paused while the answer runs
    m.answer_done()
    await asyncio.wait_for(m.drain(), 5)
    assert [f.value for f in await m.facts()] == ["Acme"]
    await m.aclose()


async def test_a_locked_database_keeps_the_change_and_writes_it_later(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    m = Memory(path, busy_timeout_s=0.1)
    await m.facts()  # create the file
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    m.after_turn(TurnInfo("I work as a nurse."))
    await m.drain()
    assert m.stats.write_failures == 1
    other.execute("ROLLBACK")
    other.close()
    m.after_turn(TurnInfo("I live in Oslo."))
    await m.drain()
    assert sorted(f.value for f in await m.facts()) == ["Oslo", "nurse"]
    await m.aclose()


async def test_no_fact_is_ever_written_to_the_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    m, _ = model_memory(tmp_path / "m.sqlite3", SEGMENT, "{broken", SEGMENT, {"changes": []})
    with caplog.at_level(logging.DEBUG):
        m.after_turn(TurnInfo("My name is Zebulon and I live in Quagmire Falls."))
        await m.start_answer("Remember that my locker code is 7413.")
        m.answer_done()
        await m.drain()
        await m.start_answer("What do you know about me?")
        await m.start_answer("Forget that I live in Quagmire Falls.")
        m.answer_done()
        await m.aclose()
    logged = " ".join(r.getMessage() for r in caplog.records)
    for secret in ("Zebulon", "Quagmire", "7413", "locker"):
        assert secret not in logged
