"""What the player consumes for one answer: a pull-through view of the answer's TTS stream.

:class:`AnswerAudio` forwards each ``next()`` of the player to the TTS output, so
the player's pull *is* the pull of the TTS output: nothing is prefetched, and what
the player has not pulled is still in the TTS queue, where the streamkit interrupt
can drop it.

:meth:`AnswerAudio.cut` (barge-in) detaches at once: the inner stream is closed
(cancelling synthesis); a player still pulling gets one ``EOS(error="interrupted")``
for the route if it had seen the route open and not its end, then Done, and never
any more audio of this answer.

The pulled PCM is kept (for the echo canceller's far end) until :meth:`take_far`
consumed it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from genx.chunk import Blob, MessageChunk, Role
from genx.errors import Done
from genx.stream import Stream, StreamBase

log = logging.getLogger("genx.agentkit.speaker")

EndCallback = Callable[["AnswerAudio", "BaseException | None"], None]
PullCallback = Callable[["AnswerAudio", MessageChunk], None]


class AnswerAudio(StreamBase):
    __slots__ = (
        "_closing",
        "_cut",
        "_end",
        "_far",
        "_far_offset",
        "_pending",
        "inner",
        "keep_far",
        "mime",
        "on_end",
        "on_pull",
        "pulled_bytes",
        "saw_eos",
        "saw_open",
        "stream_id",
    )

    def __init__(self, stream_id: str, inner: Stream, *, on_pull: PullCallback | None = None, on_end: EndCallback | None = None) -> None:
        self.stream_id = stream_id
        self.inner = inner
        self.on_pull = on_pull
        self.on_end = on_end
        self.mime = ""
        self.pulled_bytes = 0
        self.saw_open = False
        self.saw_eos = False
        self.keep_far = False
        self._far = bytearray()
        self._far_offset = 0
        self._cut = False
        self._end: BaseException | None = None
        self._pending: MessageChunk | None = None
        self._closing: asyncio.Task[None] | None = None

    @property
    def is_cut(self) -> bool:
        return self._cut

    @property
    def ended(self) -> bool:
        return self._end is not None

    def cut(self) -> None:
        """Detach now (see the module docstring); idempotent."""
        if self._cut:
            return
        self._cut = True
        if self.saw_open and not self.saw_eos:
            self.saw_eos = True
            part = Blob(self.mime, b"") if self.mime else None
            self._pending = MessageChunk.eos(self.stream_id, part, role=Role.ASSISTANT, error="interrupted")
        self._closing = asyncio.get_running_loop().create_task(_close_quietly(self.inner))

    def take_far(self, start: int, end: int) -> bytes:
        """Pulled PCM bytes ``[start, end)`` of the route; everything before ``end`` is forgotten."""
        buf = self._far
        lo = max(start - self._far_offset, 0)
        hi = min(end - self._far_offset, len(buf))
        out = bytes(buf[lo:hi]) if hi > lo else b""
        drop = min(max(end - self._far_offset, 0), len(buf))
        if drop:
            del buf[:drop]
            self._far_offset += drop
        return out

    async def next(self) -> MessageChunk:
        if self._cut:
            p = self._pending
            if p is not None:
                self._pending = None
                return p
            raise Done()
        if self._end is not None:
            raise self._end
        try:
            c = await self.inner.next()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            self._finish(exc)
            if self._cut:
                return await self.next()
            raise
        if self._cut:  # cut while the pull was in flight
            return await self.next()
        part = c.part
        if c.stream_id == self.stream_id or not c.stream_id:
            if isinstance(part, Blob) and part.mime.startswith("audio/"):
                self.saw_open = True
                if not self.mime:
                    self.mime = part.mime
                if part.data:
                    if self.keep_far:
                        self._far += part.data
                    self.pulled_bytes += len(part.data)
            elif c.is_begin_of_stream():
                self.saw_open = True
            if c.is_end_of_stream() and (part is None or isinstance(part, Blob)):
                self.saw_eos = True
        if self.on_pull is not None:
            try:
                self.on_pull(self, c)
            except Exception:
                log.exception("answer audio pull observer failed")
        return c

    def _finish(self, exc: BaseException) -> None:
        if self._end is not None:
            return
        self._end = exc
        if self.on_end is not None:
            try:
                self.on_end(self, None if isinstance(exc, Done) else exc)
            except Exception:
                log.exception("answer audio end observer failed")

    async def close(self) -> None:
        if not self._cut:
            self._cut = True
            self._pending = None
            await _close_quietly(self.inner)

    async def close_with_error(self, exc: BaseException) -> None:
        await self.close()

    async def wait_closed(self) -> None:
        t = self._closing
        if t is not None:
            await t


async def _close_quietly(s: Stream) -> None:
    try:
        await s.close()
    except Exception:
        log.debug("closing an answer's audio stream failed", exc_info=True)


__all__ = ["AnswerAudio"]
