"""The answer's tool traffic in the voice loop: tool events → :class:`~genx.agentkit.events.ToolActivity`, and what history keeps.

The answer's generator (``genx.assistant.AssistantGenerator``, or any
:class:`~genx.toolrounds.ToolRounds`) reports each call with part-less chunks on
the tool-event labels (:mod:`genx.toolrounds.events`). :func:`activity_event`
turns the two a front end shows into loop events: the call complete (status
``"running"``) and its result. :func:`kept_tool_messages` reads the stream's
report once the generation ended: the assistant's tool-call messages and the
results (:func:`genx.agentkit.messages.tool_messages`), which the recorder keeps
in history and in the store. After a cut the rounds may still be finishing a
side-effecting tool; it waits for that, within ``timeout_s``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from genx.agentkit.events import ToolActivity
from genx.agentkit.messages import tool_messages
from genx.chunk import Message, MessageChunk
from genx.deadline import within
from genx.toolrounds import ToolEventKind, tool_event

log = logging.getLogger("genx.agentkit.loop")

__all__ = ["activity_event", "is_tool_chunk", "kept_tool_messages"]


def activity_event(turn_id: str, chunk: MessageChunk) -> ToolActivity | None:
    """The loop event for a tool-event chunk worth showing (``None`` for other chunks and argument deltas)."""
    ev = tool_event(chunk)
    if ev is None:
        return None
    if ev.kind is ToolEventKind.CALL_END:
        return ToolActivity(turn_id=turn_id, call_id=ev.call_id, name=ev.name, arguments=ev.arguments, status="running")
    if ev.kind is ToolEventKind.RESULT:
        r = ev.result
        return ToolActivity(
            turn_id=turn_id,
            call_id=ev.call_id,
            name=ev.name,
            arguments=ev.arguments,
            status=ev.status or ("failed" if r is not None and r.is_error else "ok"),
            result=r.content if r is not None else "",
            is_error=bool(r is not None and r.is_error),
            elapsed_ms=round(ev.elapsed_ms, 1),
        )
    return None


def is_tool_chunk(chunk: MessageChunk) -> bool:
    return tool_event(chunk) is not None


async def kept_tool_messages(gen: Any, timeout_s: float) -> list[Message]:
    """The tool calls and results of a finished (or closed) answer stream; ``[]`` for a stream without a report."""
    report = getattr(gen, "report", None)
    wait = getattr(gen, "wait_report", None)
    if wait is not None and (report is None or getattr(report, "end", None) is None):
        try:
            report = await within(asyncio.shield(asyncio.ensure_future(wait())), timeout_s)
        except TimeoutError:
            log.warning("the answer's tools did not finish within %.0f s; their results are not kept", timeout_s)
        except Exception as e:  # the stream's own error: its report holds what happened until then
            log.debug("the answer's rounds ended with %s", e)
    messages = getattr(report, "messages", None)
    return tool_messages(messages) if isinstance(messages, list) else []
