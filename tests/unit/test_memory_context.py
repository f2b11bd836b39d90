"""Where recalled facts go: one system message before the user's words, so the evaluated prefix stays reusable."""

from __future__ import annotations

from genx.agentkit.history import History
from genx.chunk import Role
from genx.generators.llamacpp import chat_messages
from genx.generators.providers.request import system_text
from genx.memory import memory_note, with_memory
from genx.model import ModelContextBuilder

NOTE = "What you remember about the user:\n- The user lives in Berlin."


def history() -> History:
    h = History()
    h.add("Hello there.", "Hi! How can I help?")
    h.add("Tell me a joke.", "Why did the chicken cross the road?")
    return h


def test_the_note_goes_just_before_the_question_and_nothing_else_moves() -> None:
    ctx = history().context("Which city do I live in?", system_prompt="You are Parley.")
    out = with_memory(ctx, NOTE)
    assert [p.text for p in out.prompts()] == ["You are Parley."]
    roles = [(m.role, m.text()) for m in out.messages()]
    assert roles[-2:] == [(Role.SYSTEM, NOTE), (Role.USER, "Which city do I live in?")]
    assert roles[:-2] == [(m.role, m.text()) for m in list(ctx.messages())[:-1]]
    assert memory_note(out) == NOTE and memory_note(ctx) == ""


def test_the_in_process_model_sees_the_prefilled_conversation_as_an_unchanged_prefix() -> None:
    h = history()
    prefilled = chat_messages(h.context("", system_prompt="You are Parley."), "")
    answered = chat_messages(with_memory(h.context("Which city do I live in?", system_prompt="You are Parley."), NOTE), "")
    assert answered[: len(prefilled)] == prefilled  # the cached evaluation covers system prompt and history
    assert answered[len(prefilled) :] == [{"role": "system", "content": NOTE}, {"role": "user", "content": "Which city do I live in?"}]


def test_a_dialect_without_mid_conversation_system_messages_folds_the_note_into_its_system_text() -> None:
    out = with_memory(ModelContextBuilder().prompt("You are Parley.").user("Where do I live?").build(), NOTE)
    assert system_text(out, list(out.messages())) == "You are Parley.\n\n" + NOTE


def test_an_empty_note_leaves_the_context_as_it_is() -> None:
    ctx = ModelContextBuilder().user("Hi").build()
    assert with_memory(ctx, "  ") is ctx
