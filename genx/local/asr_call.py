"""One ``transform()`` call of the local ASR: reads the utterance routes and keeps one :class:`Utterance` per route.

Does not own: an utterance's audio and decodes (:mod:`genx.local.asr_utterance`),
the transformer and its settings (:mod:`genx.local.asr`, :mod:`genx.local.asr_settings`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from genx.chunk import MessageChunk, Role
from genx.ids import new_stream_id
from genx.local.asr_settings import FLUSH, LISTEN_FOR, OVER_ANSWER, PROMPT, SPEECH_START, AsrSettings
from genx.local.asr_utterance import Utterance
from genx.local.route_input import route_chunks
from genx.local.whisper import Decoder
from genx.stream import Stream, StreamBuilder


class AsrCall:
    __slots__ = ("decoder", "last_final", "live", "out", "routes", "settings", "tasks")

    def __init__(self, decoder: Decoder, settings: AsrSettings) -> None:
        self.decoder = decoder
        self.settings = settings
        self.routes: dict[str, Utterance] = {}  # input StreamID → utterance still receiving audio
        self.live: list[Utterance] = []  # utterances whose output route is not closed yet (incl. finals running)
        self.tasks: set[asyncio.Task[None]] = set()
        self.out: StreamBuilder | None = None
        self.last_final: asyncio.Task[None] | None = None  # finals are pushed in the order their utterances ended

    def spawn(self, coro: Coroutine[Any, Any, None], u: Utterance, name: str) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(self._guard(coro, u), name=name)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def _guard(self, coro: Coroutine[Any, Any, None], u: Utterance) -> None:
        """A failed decode closes its route with the error and ends the whole output with it."""
        try:
            await coro
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            out = self.out
            if out is not None and not out.ended:
                u.close_route(str(exc) or type(exc).__name__)
                out.abort(exc)

    async def run(self, src: Stream, out: StreamBuilder) -> None:
        self.out = out
        routes = self.routes
        try:
            async for c, blob in route_chunks(src, lambda: out.ended):
                sid = c.stream_id
                if blob is not None:
                    u = routes.get(sid) or self._open(sid, c.timestamp)
                    u.audio(blob.mime, blob.data)
                    if c.is_end_of_stream():
                        routes.pop(sid).end(c.error)
                elif c.is_control_only() and c.ctrl is not None and (c.is_begin_of_stream() or sid in routes or c.label == FLUSH):
                    if c.is_begin_of_stream():
                        old = routes.pop(sid, None)
                        if old is not None:
                            old.end("")
                        self._open(sid, c.timestamp, route_prompt(c), over_answer=route_over_answer(c), listen_for=route_listen_for(c))
                    if c.label == FLUSH and sid in routes and not c.is_end_of_stream():
                        routes[sid].flush()
                    if c.is_end_of_stream() and sid in routes:
                        routes.pop(sid).end(c.error)
                else:
                    out.push(c)
            for u in list(routes.values()):
                u.end("")
            routes.clear()
            while self.tasks:
                await asyncio.gather(*list(self.tasks))
        except BaseException as exc:
            for u in list(self.live):
                u.abandon(str(exc) or type(exc).__name__)
            routes.clear()
            for t in list(self.tasks):
                t.cancel()
            raise

    def _open(self, sid: str, ts: int, prompt: str = "", *, over_answer: bool = False, listen_for: tuple[str, ...] = ()) -> Utterance:
        assert self.out is not None
        u = self.routes[sid] = Utterance(self, sid or new_stream_id(), prompt, over_answer=over_answer, listen_for=listen_for)
        self.live.append(u)
        self.out.push(MessageChunk.bos(u.sid, role=Role.USER, label=SPEECH_START, timestamp=ts))
        return u


def route_prompt(c: MessageChunk) -> str:
    """The context text an utterance route's BOS carries (``meta[PROMPT]``), or ""."""
    meta = c.meta if isinstance(c.meta, dict) else {}
    value = meta.get(PROMPT)
    return value.strip() if isinstance(value, str) else ""


def route_over_answer(c: MessageChunk) -> bool:
    """Whether an utterance route's BOS says it is spoken over the assistant's answer (``meta[OVER_ANSWER]``)."""
    meta = c.meta if isinstance(c.meta, dict) else {}
    return meta.get(OVER_ANSWER) is True


def route_listen_for(c: MessageChunk) -> tuple[str, ...]:
    """The phrases an utterance route's BOS says to listen for (``meta[LISTEN_FOR]``; only with ``OVER_ANSWER``)."""
    meta = c.meta if isinstance(c.meta, dict) else {}
    value = meta.get(LISTEN_FOR)
    if not route_over_answer(c) or not isinstance(value, list | tuple):
        return ()
    return tuple(p.strip() for p in value if isinstance(p, str) and p.strip())


__all__ = ["AsrCall", "route_listen_for", "route_over_answer", "route_prompt"]
