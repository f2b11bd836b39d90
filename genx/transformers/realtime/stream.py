"""The consumer side of a realtime call: the output stream plus barge-in and tool results."""

from __future__ import annotations

from typing import TYPE_CHECKING

from genx.chunk import MessageChunk, Role, Text, ToolResult
from genx.model import Usage
from genx.transformers.realtime.events import HistoryItem
from genx.transformers.realtime.responses import Interruption
from genx.transformers.streamkit.invocation import InvocationStream

if TYPE_CHECKING:
    from genx.transformers.realtime.session_call import _Call

TOOL_RESULT = "tool_result"


def tool_result_chunk(result: ToolResult) -> MessageChunk:
    """The input chunk that answers a tool call of a realtime session."""
    return MessageChunk(role=Role.TOOL, name=result.name, part=Text(result.content), meta={TOOL_RESULT: result})


class RealtimeSessionStream(InvocationStream):
    """The output of one realtime call, plus barge-in and tool results."""

    __slots__ = ("_call",)

    def __init__(self, call: _Call) -> None:
        super().__init__(call.inv)
        self._call = call

    def interrupt(self, played_ms: float | None = None, *, stream_id: str = "") -> Interruption | None:
        """Barge-in: cut the playing response at ``played_ms`` (default: the audio pulled from this stream).

        ``stream_id`` names the response (its route): one whose EOS was already
        pulled (a player that buffers still plays it) is truncated all the same.

        Drops its unpulled output (the pulled prefix stays), ends its channels
        with EOS(error="interrupted") and tells the provider (OpenAI:
        ``response.cancel`` while it runs, ``conversation.item.truncate`` at
        ``played_ms``). None when no response is active. Call from the event loop.
        """
        return self._call.interrupt(played_ms, stream_id)

    def send_tool_result(self, result: ToolResult) -> None:
        """Answer a tool call (same as pushing :func:`tool_result_chunk` into the input)."""
        self._call.soon(self._call.tool_result(result))

    @property
    def usage(self) -> Usage:
        """Usage summed over the responses so far (:class:`genx.model.Usage`)."""
        return self._call.outputs.usage

    @property
    def history(self) -> list[HistoryItem]:
        """The conversation as text (what a fresh session would be replayed)."""
        return list(self._call.outputs.history)


__all__ = ["TOOL_RESULT", "RealtimeSessionStream", "tool_result_chunk"]
