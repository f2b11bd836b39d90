"""A held (speculative) answer only reads memory: explicit requests are previewed and done only when carried out."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.memory_setup import build_memory, memory_path, remote_generator
from app.settings import Settings
from genx.agentkit.store import ConversationStore, default_root
from genx.memory import Memory, TurnInfo, default_path


async def told(path: Path, *texts: str) -> Memory:
    m = Memory(path)
    for i, t in enumerate(texts):
        m.after_turn(TurnInfo(t, f"t{i}", "conv-1", float(i + 1)))
    await m.drain()
    return m


async def test_a_previewed_remember_writes_nothing_until_it_is_carried_out(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    said = "Remember that the spare key is under the blue flower pot."
    held = await m.start_answer(said, turn_id="t1", conversation_id="c1", read_only=True)
    assert held.pending is not None and "The spare key is under the blue flower pot." in held.instruction
    assert await m.facts() == []
    done = await m.carry_out(held)
    assert done.instruction == held.instruction  # the answer said what was then done
    [fact] = await m.facts()
    key = "The spare key is under the blue flower pot."
    assert (fact.text, fact.turn_id, fact.conversation_id, fact.source) == (key, "t1", "c1", "explicit")
    await m.aclose()


async def test_a_previewed_forget_keeps_the_fact_until_it_is_carried_out(tmp_path: Path) -> None:
    m = await told(tmp_path / "m.sqlite3", "I live in Berlin.", "I work as a nurse.")
    held = await m.start_answer("Forget that I live in Berlin.", read_only=True)
    assert "deleted 1 fact" in held.instruction
    assert sorted(f.value for f in await m.facts()) == ["Berlin", "nurse"]
    await m.carry_out(held)
    assert [f.value for f in await m.facts()] == ["nurse"]
    await m.aclose()


async def test_a_previewed_forget_everything_counts_but_deletes_nothing(tmp_path: Path) -> None:
    m = await told(tmp_path / "m.sqlite3", "I live in Berlin.", "I work as a nurse.")
    held = await m.start_answer("Forget everything.", read_only=True)
    assert "(2 facts)" in held.instruction and len(await m.facts()) == 2
    await m.carry_out(held)
    assert await m.facts() == []
    await m.aclose()


async def test_a_read_only_start_recalls_like_any_other(tmp_path: Path) -> None:
    m = await told(tmp_path / "m.sqlite3", "I live in Berlin.")
    held = await m.start_answer("Which city do I live in?", read_only=True)
    assert [f.value for f in held.recalled.facts] == ["Berlin"] and held.pending is None
    assert "The user lives in Berlin." in held.note()
    await m.aclose()


async def test_carrying_out_after_memory_was_paused_does_nothing(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    held = await m.start_answer("Remember that my locker is number 12.", read_only=True)
    m.set_enabled(False)
    await m.carry_out(held)
    m.set_enabled(True)
    assert await m.facts() == []
    await m.aclose()


# -- app.memory_setup


def test_the_memory_lives_in_the_user_data_dir_or_beside_a_test_store(tmp_path: Path) -> None:
    assert memory_path(None) == default_path()
    assert memory_path(ConversationStore(default_root())) == default_path()
    assert memory_path(ConversationStore(tmp_path / "conv")) == tmp_path / "conv" / "memory.sqlite3"


def test_memory_off_in_the_settings_builds_a_memory_that_keeps_nothing(tmp_path: Path) -> None:
    s = Settings.model_validate({"memory": {"enabled": False, "token_budget": 77}})
    m = build_memory(s, path=tmp_path / "m.sqlite3")
    assert (m.enabled, m.token_budget, m.extractor) == (False, 77, None)


def test_model_extraction_is_built_only_when_asked_for(tmp_path: Path) -> None:
    from genx.generators.mux import GeneratorMux

    off = build_memory(Settings(), GeneratorMux(), path=tmp_path / "m.sqlite3")
    on = build_memory(Settings.model_validate({"memory": {"extract_with_model": True}}), GeneratorMux(), path=tmp_path / "m.sqlite3")
    assert off.extractor is None and on.extractor is not None


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, ""),
        (
            {
                "providers": {"openai": {"kind": "openai-chat"}},
                "generators": [{"name": "openai/gpt", "provider": "openai", "model": "m"}],
                "loop": {"generator": "openai/gpt"},
            },
            "openai",
        ),
        (
            {
                "providers": {"box": {"kind": "llamacpp-server", "base_url": "http://127.0.0.1:8080/v1"}},
                "generators": [{"name": "box/m", "provider": "box", "model": "m"}],
                "loop": {"generator": "box/m"},
            },
            "box (http://127.0.0.1:8080/v1)",
        ),
    ],
)
def test_a_generator_off_this_process_is_named_as_the_one_that_sees_recalled_facts(config: dict[str, object], expected: str) -> None:
    assert remote_generator(Settings.model_validate(config)) == expected


async def test_editing_a_note_keeps_the_words_typed_and_an_unknown_or_empty_edit_changes_nothing(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    [note] = await m.remember("the spare key is under the blue flower pot")
    edited = await m.edit(note.id, "The spare key is in the garage.")
    assert edited is not None and (edited.attribute, edited.text) == ("note", "The spare key is in the garage.")
    assert await m.edit(edited.id + 1000, "again") is None  # no such fact
    assert await m.edit(edited.id, "   ") is None
    assert [f.text for f in await m.facts()] == ["The spare key is in the garage."]
    await m.aclose()
