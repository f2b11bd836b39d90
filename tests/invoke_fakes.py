"""A scripted Generator for structured-inference tests: ``invoke`` answers queued argument objects."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from genx.chunk import FuncCall
from genx.model import ModelContext, Usage
from genx.stream import Stream
from genx.tools import FuncTool


@dataclass
class Invocation:
    pattern: str
    prompts: list[str]
    user: str
    tool: FuncTool


@dataclass
class InvokeScript:
    """Each answer is a dict (sent as JSON), a str (sent raw), an exception (raised) or a float (sleep that long, then {})."""

    answers: deque[Any] = field(default_factory=deque)
    calls: list[Invocation] = field(default_factory=list)
    started: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: int = 0

    def __init__(self, *answers: Any) -> None:
        self.answers = deque(answers)
        self.calls = []
        self.started = asyncio.Event()
        self.cancelled = 0

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        raise NotImplementedError

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        self.calls.append(Invocation(pattern, [p.text for p in ctx.prompts()], "\n".join(m.text() for m in ctx.messages()), tool))
        self.started.set()
        answer = self.answers.popleft() if self.answers else {}
        if isinstance(answer, float):
            try:
                await asyncio.sleep(answer)
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
            answer = {}
        if isinstance(answer, BaseException):
            raise answer
        text = answer if isinstance(answer, str) else json.dumps(answer)
        return Usage(generated_tokens=len(text) // 4), FuncCall(tool.name, text, "call_1")
