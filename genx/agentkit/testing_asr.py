"""Test stand-in for the ASR: utterance routes in, scripted ``partial`` / ``provisional`` / ``final`` texts out."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence

import numpy as np

from genx.agentkit.testing_input import RATE, VirtualClock
from genx.chunk import Blob, MessageChunk, Role
from genx.errors import Done
from genx.stream import Stream, StreamBuilder


class ScriptedAsr:
    """Utterance routes in → ``partial`` then ``final`` text per route, scripted texts in order.

    With a ``clock`` and ``final_delay`` the final comes ``final_delay`` seconds after the
    utterance's EOS (released by :meth:`tick`), like a real decoder's latency.

    A ``flush`` control chunk gets a ``provisional`` text ``final_delay`` later. A
    transcript given as a sequence scripts them: the k-th flush of the route gets
    its k-th item, the final is the last item (a plain string serves both). Like
    the real ASR, a final asked for when nothing loud came after the last flush
    reuses that flush's decode: it is due when the provisional was.
    """

    def __init__(
        self,
        transcripts: Sequence[str | Sequence[str]],
        partial_every_ms: int = 200,
        clock: VirtualClock | None = None,
        final_delay: float = 0.0,
    ) -> None:
        self.transcripts: deque[str | Sequence[str]] = deque(transcripts)
        self.flushes: list[tuple[str, int]] = []  # (route id, audio bytes when flushed)
        self.partial_every = partial_every_ms * RATE // 1000 * 2
        self.utterances: list[tuple[str, int]] = []  # (route id, audio bytes)
        self.prompts: list[str] = []  # each utterance route's BOS ``meta["prompt"]`` ("" when none)
        self.over_answer: list[bool] = []  # each utterance route's BOS ``meta["over_answer"]`` (False when none)
        self.listen_for: list[list[str]] = []  # ... and its ``meta["listen_for"]`` ([] when none)
        self.clock = clock
        self.final_delay = final_delay
        self._due: list[tuple[float, StreamBuilder, list[MessageChunk]]] = []

    def tick(self) -> None:
        if self.clock is None:
            return
        now = self.clock()
        for item in list(self._due):
            t, out, chunks = item
            if t <= now + 1e-9:
                self._due.remove(item)
                if not out.ended:
                    out.push_many(chunks)

    async def transform(self, stream: Stream) -> Stream:
        out = StreamBuilder()

        def due(delay: float) -> float | None:
            return None if self.clock is None or delay <= 0 else self.clock() + delay

        def release(at: float | None, chunks: list[MessageChunk]) -> None:
            if at is None:
                out.push_many(chunks)
            else:
                self._due.append((at, out, chunks))

        async def run() -> None:
            seen: dict[str, int] = {}
            texts: dict[str, str] = {}
            script: dict[str, list[str]] = {}
            flushed: dict[str, tuple[int, float | None]] = {}  # route → (flushes so far, provisional due)
            loud_after_flush: dict[str, bool] = {}
            try:
                while True:
                    try:
                        c = await stream.next()
                    except Done:
                        break
                    sid = c.stream_id
                    if c.is_begin_of_stream() and c.is_control_only():
                        seen[sid] = 0
                        self.prompts.append(str((c.meta or {}).get("prompt", "")))
                        self.over_answer.append((c.meta or {}).get("over_answer") is True)
                        self.listen_for.append(list((c.meta or {}).get("listen_for") or []))
                        entry = self.transcripts.popleft() if self.transcripts else ""
                        script[sid] = [entry] if isinstance(entry, str) else list(entry) or [""]
                        texts[sid] = script[sid][-1]
                        continue
                    if sid not in seen:
                        continue
                    if c.is_control_only() and c.label == "flush" and not c.is_end_of_stream():
                        k = flushed[sid][0] + 1 if sid in flushed else 1
                        items = script[sid]
                        text = items[min(k, len(items)) - 1]
                        at = due(self.final_delay)
                        flushed[sid] = (k, at)
                        loud_after_flush[sid] = False
                        self.flushes.append((sid, seen[sid]))
                        chunk = MessageChunk.text(text, role=Role.USER, stream_id=sid, label="provisional")
                        chunk.meta = {"audio_ms": seen[sid] // 32}
                        release(at, [chunk])
                        continue
                    if isinstance(c.part, Blob) and c.part.data:
                        if sid in flushed and np.abs(np.frombuffer(c.part.data, dtype="<i2")).max(initial=0) > 1000:
                            loud_after_flush[sid] = True
                        before = seen[sid]
                        seen[sid] += len(c.part.data)
                        if before // self.partial_every != seen[sid] // self.partial_every and texts[sid]:
                            words = texts[sid].split()
                            k = max(1, min(len(words), seen[sid] // self.partial_every))
                            out.push(MessageChunk.text(" ".join(words[:k]), role=Role.USER, stream_id=sid, label="partial"))
                    if c.is_end_of_stream():
                        n = seen.pop(sid)
                        self.utterances.append((sid, n))
                        chunks = []
                        if not c.error:
                            chunks.append(MessageChunk.text(texts.pop(sid), role=Role.USER, stream_id=sid, label="final"))
                        chunks.append(MessageChunk.eos(sid, role=Role.USER, label="final", error=c.error))
                        if sid in flushed and not loud_after_flush.get(sid, True):
                            release(flushed[sid][1], chunks)  # the flush's decode serves the final
                        else:
                            release(due(self.final_delay), chunks)
                if not out.ended:
                    out.done()
            except asyncio.CancelledError:
                pass

        task = asyncio.get_running_loop().create_task(run())
        out.on_close(lambda _e: _cancel(task))
        return out.stream


def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
