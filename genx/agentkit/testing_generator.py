"""Test stand-in for the model: answers with tokens released at scripted virtual times, every call recorded."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from genx.agentkit.testing_input import VirtualClock
from genx.chunk import Message, MessageChunk, Role
from genx.model import ModelContext, Usage
from genx.stream import Stream, StreamBuilder


@dataclass
class Reply:
    """One scripted answer: ``tokens`` as (seconds after the call, text); ``error`` raised after them."""

    tokens: list[tuple[float, str]]
    error: BaseException | None = None


@dataclass
class GenCall:
    pattern: str
    messages: list[Message]
    prompts: list[str]
    started: float
    closed: bool = False
    finished: bool = False


class ScriptedGenerator:
    def __init__(self, clock: VirtualClock, replies: Sequence[Reply] = ()) -> None:
        self.clock = clock
        self.replies: deque[Reply] = deque(replies)
        self.calls: list[GenCall] = []
        self.prefills: list[list[Message]] = []
        self._live: list[tuple[GenCall, StreamBuilder, deque[tuple[float, str]], BaseException | None]] = []

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        reply = self.replies.popleft() if self.replies else Reply([(0.05, "I have nothing more to say.")])
        call = GenCall(pattern, list(ctx.messages()), [p.text for p in ctx.prompts()], self.clock())
        self.calls.append(call)
        b = StreamBuilder()

        def closed(_e: BaseException | None) -> None:
            call.closed = True

        b.on_close(closed)
        self._live.append((call, b, deque((call.started + dt, tok) for dt, tok in reply.tokens), reply.error))
        self.tick()
        return b.stream

    async def invoke(self, pattern: str, ctx: ModelContext, tool: Any) -> tuple[Usage, Any]:
        raise NotImplementedError

    async def prefill(self, pattern: str, ctx: ModelContext) -> bool:
        """Records the conversation it was asked to evaluate ahead of the next turn."""
        self.prefills.append(list(ctx.messages()))
        return True

    def tick(self) -> None:
        now = self.clock()
        for entry in list(self._live):
            call, b, due, err = entry
            if b.ended:
                self._live.remove(entry)
                continue
            while due and due[0][0] <= now + 1e-9:
                _, tok = due.popleft()
                b.push(MessageChunk.text(tok, role=Role.ASSISTANT))
            if not due:
                call.finished = True
                if err is not None:
                    b.abort(err)
                else:
                    b.done()
                self._live.remove(entry)
