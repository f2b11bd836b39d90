"""Where remembered facts go in an answer's context: one system message just before the user's words.

:func:`with_memory` returns ``ctx`` with the memory's note as a ``system``
message inserted before its last message (the question), everything else
unchanged. Why there:

* not as a second system *prompt*: a conversation's prompt replaces the
  generator's own (``genx.generators``), so Parley's instructions would be lost;
* not appended to the system prompt (context notes): the in-process model
  reuses its evaluated prefix (system prompt + history, prefilled while the
  user listens); a change at the top would make it evaluate the whole history
  again on every answer with a recalled fact;
* a system message is kept in place by llama.cpp and the OpenAI / Ollama
  dialects, and folded into the system text by Anthropic and Gemini.

Does not own: what the note says (:class:`~genx.memory.service.MemoryAnswer`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from genx.chunk import Message, Role, Text
from genx.model import ModelContext, ModelParams, Prompt

if TYPE_CHECKING:
    from genx.tools import Tool

#: ``Message.name`` of the memory's system message (tests and logs tell it apart by this).
MEMORY_MESSAGE = "memory"


class WithMemory:
    """``ctx`` with ``note`` as a system message before its last message (see the module docstring)."""

    __slots__ = ("_ctx", "_note")

    def __init__(self, ctx: ModelContext, note: str) -> None:
        self._ctx = ctx
        self._note = Message(Role.SYSTEM, [Text(note)], name=MEMORY_MESSAGE)

    def prompts(self) -> Iterator[Prompt]:
        return self._ctx.prompts()

    def messages(self) -> Iterator[Message]:
        messages = list(self._ctx.messages())
        at = len(messages) - 1 if messages and messages[-1].role == Role.USER else len(messages)
        return iter([*messages[:at], self._note, *messages[at:]])

    def cots(self) -> Iterator[str]:
        return self._ctx.cots()

    def tools(self) -> Iterator[Tool]:
        return self._ctx.tools()

    def params(self) -> ModelParams | None:
        return self._ctx.params()


def with_memory(ctx: ModelContext, note: str) -> ModelContext:
    """``ctx`` with the note before the user's words; ``ctx`` itself when the note is empty."""
    return WithMemory(ctx, note) if note.strip() else ctx


def memory_note(ctx: ModelContext) -> str:
    """The memory's note in ``ctx`` ("" when there is none)."""
    return "\n".join(m.text() for m in ctx.messages() if m.role == Role.SYSTEM and m.name == MEMORY_MESSAGE)


__all__ = ["MEMORY_MESSAGE", "WithMemory", "memory_note", "with_memory"]
