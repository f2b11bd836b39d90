"""One ``transform()`` call: its output queue, responses, worker tasks and input.

A transformer creates one :class:`Invocation` per ``transform()`` call and
returns ``invocation.stream``. Everything mutable of the call lives here, so
concurrent calls of one configured transformer never share state and
cancelling one never touches another. The invocation is loop-affine: call it
from the event loop thread only (worker threads hand results over with
``loop.call_soon_threadsafe``).

Lifecycle (``genx-behaviours.md`` "Invocation / Response"):

* :meth:`start_response` registers a response (fresh StreamID when empty;
  :class:`ResponseActiveError` for a duplicate active id;
  :class:`InvocationClosedError` after the end; a retired id may be reused).
* :meth:`emit` copies the chunk, fills missing role/name/stream_id/label from the
  response config and queues it; a foreign StreamID, a retired response or a
  channel that already sent EOS raise :class:`InactiveResponseError`.
* :meth:`finish_response` ends a response normally (or with an error text).
* :meth:`interrupt` drops the response's unpulled suffix, keeps its pulled
  prefix and ends every open channel with EOS(error="interrupted").
* :meth:`cancel` drops all unpulled output, ends every active response
  interrupt-style and ends the stream; it also runs when a worker task is
  cancelled from outside (text ``"context canceled"``).
* :meth:`fail` keeps the queue, ends every response with the cause as error
  text, then the stream raises the cause.
* :meth:`close` ends every response normally and lets the queue drain.
* The consumer closing ``invocation.stream`` cancels the invocation: workers are
  cancelled, later emits fail, the input stream is closed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from genx.chunk import MessageChunk
from genx.stream import Stream, StreamBase
from genx.transformers.streamkit.errors import InactiveResponseError, InvocationClosedError, ResponseActiveError
from genx.transformers.streamkit.output import OutputQueue, PullObserver
from genx.transformers.streamkit.response import Response, ResponseConfig
from genx.transformers.streamkit.response_ids import ResponseIDs

log = logging.getLogger(__name__)

CANCELED_TEXT = "context canceled"
INTERRUPTED_TEXT = "interrupted"


class Invocation:
    __slots__ = ("_aux", "_input", "_on_cancel", "_responses", "_state", "_tasks", "output", "response_ids", "stream")

    def __init__(self, input: Stream | None = None, *, max_bytes: int = 0, observers: list[PullObserver] | None = None) -> None:
        self.output = OutputQueue(max_bytes, observers)
        self.output.on_close(self._consumer_closed)
        self._input = input
        self._responses: dict[str, Response] = {}
        self._state = "open"
        self._tasks: set[asyncio.Task[None]] = set()
        self._aux: set[asyncio.Task[None]] = set()
        self._on_cancel: list[Callable[[], None]] = []
        # Fresh local StreamIDs for model responses of this call (see response_ids.ResponseStream).
        self.response_ids = ResponseIDs()
        self.stream = InvocationStream(self)

    # -- queries ----------------------------------------------------------
    @property
    def state(self) -> str:
        """``open``, ``closed``, ``failed`` or ``cancelled``."""
        return self._state

    @property
    def is_open(self) -> bool:
        return self._state == "open"

    @property
    def input(self) -> Stream | None:
        return self._input

    def response(self, stream_id: str) -> Response | None:
        """The active response on ``stream_id``, if any."""
        return self._responses.get(stream_id)

    def active_responses(self) -> list[Response]:
        """Active responses in start order."""
        return list(self._responses.values())

    # -- responses ----------------------------------------------------------
    def start_response(self, config: ResponseConfig | None = None, *mimes: str) -> Response:
        if self._state != "open":
            raise InvocationClosedError(self._state)
        r = Response(config or ResponseConfig())
        if r.stream_id in self._responses:
            raise ResponseActiveError(r.stream_id)
        for m in mimes:
            r.declare(m)
        self._responses[r.stream_id] = r
        return r

    def emit(self, response: Response, chunk: MessageChunk) -> MessageChunk:
        """Queue a filled copy of ``chunk`` on ``response``; return the queued copy."""
        self._require_active(response)
        c = response.apply_metadata(chunk)
        why = response.check(c)
        if why:
            raise InactiveResponseError(response.stream_id, why)
        response.accept(c)
        self._push(c, response)
        return c

    def forward(self, chunk: MessageChunk) -> None:
        """Queue ``chunk`` as is, outside any response (pass-through of input chunks)."""
        if self._state != "open":
            raise InvocationClosedError(self._state)
        self._push(chunk, None)

    def finish_response(self, response: Response, error: str = "") -> list[MessageChunk]:
        """End ``response``: one EOS per open channel (sorted by MIME) with ``error``; retire it."""
        self._require_active(response)
        out = response.end(error)
        self._push_terminal(out, response)
        self._retire(response)
        return out

    def interrupt(self, response: Response, text: str = INTERRUPTED_TEXT) -> list[MessageChunk]:
        """Drop ``response``'s unpulled chunks and end its open channels with EOS(error=text).

        The pulled prefix and other responses' chunks stay. Returns the terminal
        chunks queued. Later emits on ``response`` raise InactiveResponseError.
        """
        self._require_active(response)
        if not text.strip():
            text = INTERRUPTED_TEXT
        sid = response.stream_id
        removed = self.output.discard_entries(lambda e: e.owner is response or (e.owner is None and e.chunk.stream_id == sid))
        out = response.end_after_discard(text, [e.chunk for e in removed if e.owner is response])
        self._push_terminal(out, response)
        self._retire(response)
        return out

    # -- whole invocation ----------------------------------------------------
    def cancel(self, cause: BaseException | str | None = None) -> None:
        """Drop unpulled output, end each active response interrupt-style, then end the stream."""
        if self._state != "open":
            return
        self._state = "cancelled"
        text = _error_text(cause) or CANCELED_TEXT
        removed = self.output.discard_entries(lambda e: True)
        if not self.output.ended:
            for r in self._responses.values():
                self._push_terminal(r.end_after_discard(text, [e.chunk for e in removed if e.owner is r]), r)
            self.output.done()
        self._shutdown()

    def fail(self, cause: BaseException) -> None:
        """Keep the queue, end each active response with EOS(error=str(cause)); the stream then raises ``cause``."""
        if self._state != "open":
            return
        self._state = "failed"
        text = _error_text(cause) or type(cause).__name__
        if not self.output.ended:
            for r in self._responses.values():
                self._push_terminal(r.end(text), r)
            self.output.fail(cause)
        self._shutdown()

    def close(self) -> None:
        """End each active response normally; the stream ends after the queue drains."""
        if self._state != "open":
            return
        self._state = "closed"
        if not self.output.ended:
            for r in self._responses.values():
                self._push_terminal(r.end(""), r)
            self.output.done()
        self._shutdown()

    # -- workers ----------------------------------------------------------------
    def spawn(self, coro: Coroutine[Any, Any, None], *, name: str | None = None) -> asyncio.Task[None]:
        """Run a worker owned by this invocation.

        Cancelled with the invocation. A worker cancelled from outside cancels
        the invocation ("context canceled"); a worker raising fails it; when the
        last worker returns while the invocation is still open, it is closed.
        """
        if self._state != "open":
            coro.close()
            raise InvocationClosedError(self._state)
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._worker_done)
        return task

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Run ``callback()`` once when the invocation ends other than by :meth:`close` (cancel, fail, consumer close)."""
        self._on_cancel.append(callback)

    # -- internals --------------------------------------------------------------
    def _require_active(self, response: Response) -> None:
        if self._state != "open":
            raise InactiveResponseError(response.stream_id, f"the invocation is {self._state}")
        if self._responses.get(response.stream_id) is not response:
            raise InactiveResponseError(response.stream_id, "the response was finished, interrupted or belongs to another call")

    def _retire(self, response: Response) -> None:
        if self._responses.get(response.stream_id) is response:
            del self._responses[response.stream_id]

    def _push(self, chunk: MessageChunk, owner: object | None) -> None:
        try:
            self.output.push(chunk, owner)
        except Exception:
            # Overflow (or a consumer that went away): this call is over.
            if self._state == "open":
                self._state = "failed"
                self._shutdown()
            raise

    def _push_terminal(self, chunks: list[MessageChunk], owner: Response) -> None:
        for c in chunks:
            if self.output.ended:
                return
            self._push(c, owner)

    def _consumer_closed(self, exc: BaseException | None) -> None:
        if self._state == "open":
            self._state = "cancelled"
        self._shutdown()

    def _shutdown(self) -> None:
        self._responses.clear()
        if self._state != "closed":
            callbacks, self._on_cancel = self._on_cancel, []
            for cb in callbacks:
                try:
                    cb()
                except Exception:
                    log.exception("invocation cancel callback failed")
        current = _current_task()
        for t in list(self._tasks):
            if t is not current and not t.done():
                t.cancel()
        self._close_input()

    def _close_input(self) -> None:
        inp, self._input = self._input, None
        if inp is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        t = loop.create_task(_close_quietly(inp))
        self._aux.add(t)
        t.add_done_callback(self._aux.discard)

    def _worker_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if self._state != "open":
            return
        if task.cancelled():
            self.cancel(CANCELED_TEXT)
            return
        exc = task.exception()
        if exc is not None:
            self.fail(exc)
        elif not any(not t.done() for t in self._tasks):
            self.close()


class InvocationStream(StreamBase):
    """The consumer side of one invocation (what ``transform()`` returns).

    ``close()`` / ``close_with_error()`` cancel the call and close its input;
    :meth:`cancel` ends every open route with EOS(error="context canceled")
    before the stream ends.
    """

    __slots__ = ("_inv",)

    def __init__(self, invocation: Invocation) -> None:
        self._inv = invocation

    @property
    def invocation(self) -> Invocation:
        return self._inv

    async def next(self) -> MessageChunk:
        return await self._inv.output.next()

    async def close(self) -> None:
        await self._inv.output.close()

    async def close_with_error(self, exc: BaseException) -> None:
        await self._inv.output.close_with_error(exc)

    def cancel(self, cause: BaseException | str | None = None) -> None:
        self._inv.cancel(cause)

    def add_observer(self, observer: PullObserver) -> None:
        """Run ``observer(chunk)`` inside ``next()`` for every chunk handed out."""
        self._inv.output.add_observer(observer)

    def __aiter__(self) -> AsyncIterator[MessageChunk]:
        return self


def _error_text(cause: BaseException | str | None) -> str:
    if cause is None or isinstance(cause, asyncio.CancelledError):
        return ""
    return cause if isinstance(cause, str) else str(cause)


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None


async def _close_quietly(stream: Stream) -> None:
    try:
        await stream.close()
    except Exception:
        log.exception("closing the input stream failed")


__all__ = ["CANCELED_TEXT", "INTERRUPTED_TEXT", "Invocation", "InvocationStream"]
