"""Tool events as stream chunks: the one place their labels are defined.

The runner (:mod:`genx.toolrounds.runner`) reports what happens to each tool
call with part-less chunks on their own labels, next to the answer text on the
normal (unlabelled) channel. Seed 002's event types map one to one:

=========================  ==========================  ===============================
event                      label                       role / payload
=========================  ==========================  ===============================
tool call started          :data:`LABEL_CALL_START`    assistant; name and call id
arguments delta            :data:`LABEL_CALL_ARGS`     assistant; ``arguments`` = the delta
tool call complete         :data:`LABEL_CALL_END`      assistant; ``arguments`` = the whole JSON
tool result                :data:`LABEL_RESULT`        tool; ``result`` and ``status``
=========================  ==========================  ===============================

The payload is a :class:`ToolEvent` in ``chunk.meta["tool_event"]``. The chunks
carry no part (TTS and text views skip them by construction) and no
``tool_call`` (nothing downstream should run a call the runner already handled).
Provider adapters deliver each call whole (their assemblers only emit calls whose
JSON is complete), so each call has one arguments delta holding all of it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from genx.chunk import MessageChunk, Role, StreamCtrl, ToolResult

LABEL_CALL_START = "tool_call_start"
LABEL_CALL_ARGS = "tool_call_args"
LABEL_CALL_END = "tool_call_end"
LABEL_RESULT = "tool_result"

META_KEY = "tool_event"


class ToolEventKind(enum.StrEnum):
    CALL_START = "call_start"
    ARGS_DELTA = "args_delta"
    CALL_END = "call_end"
    RESULT = "result"


LABELS: dict[ToolEventKind, str] = {
    ToolEventKind.CALL_START: LABEL_CALL_START,
    ToolEventKind.ARGS_DELTA: LABEL_CALL_ARGS,
    ToolEventKind.CALL_END: LABEL_CALL_END,
    ToolEventKind.RESULT: LABEL_RESULT,
}
TOOL_EVENT_LABELS = frozenset(LABELS.values())


@dataclass(slots=True, frozen=True)
class ToolEvent:
    """One step in the life of a tool call. ``round`` counts model turns from 1."""

    kind: ToolEventKind
    round: int
    call_id: str
    name: str
    arguments: str = ""
    result: ToolResult | None = None
    status: str = ""  # a CallStatus value on RESULT events
    elapsed_ms: float = 0.0


def event_chunk(event: ToolEvent) -> MessageChunk:
    role = Role.TOOL if event.kind is ToolEventKind.RESULT else Role.ASSISTANT
    return MessageChunk(role=role, name=event.name, ctrl=StreamCtrl(label=LABELS[event.kind]), meta={META_KEY: event})


def tool_event(chunk: MessageChunk) -> ToolEvent | None:
    """The event a chunk carries, or ``None`` for any other chunk."""
    m = chunk.meta
    ev = m.get(META_KEY) if m else None
    return ev if isinstance(ev, ToolEvent) else None


def is_tool_event(chunk: MessageChunk) -> bool:
    return chunk.label in TOOL_EVENT_LABELS and tool_event(chunk) is not None


__all__ = [
    "LABELS",
    "LABEL_CALL_ARGS",
    "LABEL_CALL_END",
    "LABEL_CALL_START",
    "LABEL_RESULT",
    "META_KEY",
    "TOOL_EVENT_LABELS",
    "ToolEvent",
    "ToolEventKind",
    "event_chunk",
    "is_tool_event",
    "tool_event",
]
