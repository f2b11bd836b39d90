"""Streams an answer is made of: opening one safely under cancellation, a stream of known text, error words.

Helpers of :mod:`.answers`; no state of their own beyond the closers still running.
"""

from __future__ import annotations

import asyncio
from typing import Any

from genx.chunk import MessageChunk, Role, Text
from genx.errors import Blocked
from genx.stream import Stream, StreamBuilder

_background: set[asyncio.Future[None]] = set()


def text_stream(text: str, stream_id: str) -> Stream:
    """A finished stream of one assistant text chunk (a resumed answer speaks known words)."""
    b = StreamBuilder()
    if text:
        b.push(MessageChunk.text(text, role=Role.ASSISTANT, stream_id=stream_id))
    b.push(MessageChunk.eos(stream_id, Text(""), role=Role.ASSISTANT))
    b.done()
    return b.stream


async def shielded_open(coro: Any) -> Stream:
    """Await a stream-opening coroutine; when cancelled meanwhile, close the stream it returns later."""
    t: asyncio.Task[Stream] = asyncio.ensure_future(coro)
    try:
        return await asyncio.shield(t)
    except asyncio.CancelledError:

        def close_later(task: asyncio.Task[Stream]) -> None:
            if task.cancelled() or task.exception() is not None:
                return
            closer = asyncio.ensure_future(task.result().close())
            _background.add(closer)
            closer.add_done_callback(_background.discard)

        t.add_done_callback(close_later)
        raise


def describe_error(e: BaseException) -> str:
    if isinstance(e, Blocked):
        return f"blocked: {e.reason}" if e.reason else "blocked"
    return str(e) or type(e).__name__


__all__ = ["describe_error", "shielded_open", "text_stream"]
