"""A scripted realtime model for the voice loop's realtime-mode unit tests.

:class:`ScriptedRealtime` fits what :class:`genx.agentkit.realtime_mode.RealtimeConversation`
asks of a model (``transform`` → a session stream with ``interrupt`` and
``send_tool_result``; ``settings.turn_detection``). The test plays the provider:
``session.user_said(...)``, ``session.respond(...)``; what the loop sent (input
chunks, interrupts, tool results) is recorded on the session. The output follows
the real transformer's contract (genx.transformers.realtime.responses): a control
BOS per response, audio blobs, transcript text (label ``transcript``), tool calls,
a control EOS with ``meta["status"]``; user speech on its own route (BOS
``speech_start``, ``partial`` / ``final`` text, EOS ``final``).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from genx.agentkit.spoken import words
from genx.chunk import Blob, FuncCall, MessageChunk, Role, StreamCtrl, ToolResult
from genx.errors import Done
from genx.ids import new_stream_id
from genx.stream import Stream, StreamBuilder
from genx.transformers.realtime.responses import Interruption

RATE = 16000
MIME = "audio/l16; channels=1; rate=16000"


def tone_ms(ms: int, amp: int = 8000) -> bytes:
    import numpy as np

    n = RATE * ms // 1000
    return (np.sin(np.arange(n) * 2 * np.pi * 300 / RATE) * amp).astype("<i2").tobytes()


def heard_words(text: str, share: float) -> str:
    """The words of ``text`` whose last letter lies within ``share`` of its characters (the cascade's rule)."""
    pos = share * len(text)
    end = 0
    for s, e in words(text):
        core = e
        while core > s + 1 and not text[core - 1].isalnum():
            core -= 1
        if core > pos + 1e-9:
            break
        end = e
    return text[:end].strip()


@dataclass
class Settings:
    turn_detection: str | None = "server_vad"
    input_transcription: str | None = "gpt-4o-mini-transcribe"


class ScriptedSession:
    """One session's output stream plus what the loop sent it."""

    def __init__(self, inp: Stream) -> None:
        self._out = StreamBuilder()
        self.inputs: list[MessageChunk] = []
        self.interrupts: list[tuple[str, int]] = []
        self.tool_results: list[ToolResult] = []
        self._results_changed = asyncio.Event()
        self.responses: dict[str, dict[str, Any]] = {}  # route → {"item", "done"}
        self.closed = False
        self._reader = asyncio.get_running_loop().create_task(self._read(inp))

    async def _read(self, inp: Stream) -> None:
        while True:
            try:
                self.inputs.append(await inp.next())
            except Done:
                return

    # -- the provider's side (the test) ------------------------------------------------
    def user_said(self, text: str, *, item: str = "") -> str:
        sid = item or new_stream_id()
        self.speech_started(sid)
        self._out.push(MessageChunk.text(text, role=Role.USER, stream_id=sid, label="final"))
        self._out.push(MessageChunk.eos(sid, role=Role.USER, label="final"))
        return sid

    def transcript(self, sid: str, text: str) -> None:
        """The provider's transcript of speech it reported earlier (``speech_started(sid)``)."""
        self._out.push(MessageChunk.text(text, role=Role.USER, stream_id=sid, label="final"))
        self._out.push(MessageChunk.eos(sid, role=Role.USER, label="final"))

    def speech_started(self, sid: str = "") -> str:
        sid = sid or new_stream_id()
        self._out.push(MessageChunk.bos(sid, role=Role.USER, label="speech_start"))
        return sid

    def respond(self, transcript: str = "", audio_ms: int = 0, *, text: str = "", call: FuncCall | None = None, done: bool = True) -> str:
        """One response: ``audio_ms`` of tone in 100 ms deltas with ``transcript``, or ``text``, or a tool call."""
        sid = new_stream_id()
        self.responses[sid] = {"item": f"item_{len(self.responses) + 1}", "done": False}
        self._out.push(MessageChunk.bos(sid, role=Role.ASSISTANT))
        self.audio(sid, audio_ms)
        if transcript:
            self._out.push(MessageChunk.text(transcript, role=Role.ASSISTANT, stream_id=sid, label="transcript"))
        if text:
            self._out.push(MessageChunk.text(text, role=Role.ASSISTANT, stream_id=sid))
        if call is not None:
            self._out.push(MessageChunk(role=Role.ASSISTANT, tool_call=call, ctrl=StreamCtrl(stream_id=sid)))
        if done:
            self.end(sid, "tool_call" if call is not None else "completed")
        return sid

    def audio(self, sid: str, ms: int) -> None:
        """``ms`` more of the response's audio, in 100 ms deltas."""
        pcm = tone_ms(ms)
        step = RATE * 2 // 10
        for i in range(0, len(pcm), step):
            self._out.push(MessageChunk(role=Role.ASSISTANT, part=Blob(MIME, pcm[i : i + step]), ctrl=StreamCtrl(stream_id=sid)))

    def end(self, sid: str, status: str = "completed") -> None:
        self.responses[sid]["done"] = True
        eos = MessageChunk.eos(sid, role=Role.ASSISTANT)
        eos.meta = {"status": status}
        self._out.push(eos)

    def server_interrupted(self, sid: str) -> None:
        """Gemini's ``interrupted``: the transformer ends the running response with EOS(error="interrupted")."""
        self._out.push(MessageChunk.eos(sid, role=Role.ASSISTANT, error="interrupted"))

    def fail(self, exc: BaseException) -> None:
        self._out.abort(exc)

    def finish(self) -> None:
        self._out.done()

    # -- the stream the loop reads -------------------------------------------------------
    async def next(self) -> MessageChunk:
        return await self._out.stream.next()

    async def close(self) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            await self._out.stream.close()
        self._reader.cancel()

    def interrupt(self, played_ms: float | None = None, *, stream_id: str = "") -> Interruption | None:
        ms = int(played_ms or 0)
        self.interrupts.append((stream_id, ms))
        r = self.responses.get(stream_id)
        if r is None:
            return None
        return Interruption(stream_id, stream_id, r["item"], ms, "")

    def send_tool_result(self, result: ToolResult) -> None:
        self.tool_results.append(result)
        self._results_changed.set()

    async def wait_tool_results(self, n: int, limit_s: float = 10.0) -> list[ToolResult]:
        async with asyncio.timeout(limit_s):
            while len(self.tool_results) < n:
                self._results_changed.clear()
                await self._results_changed.wait()
        return self.tool_results

    def texts(self) -> list[str]:
        return [c.part.text for c in self.inputs if c.part is not None and hasattr(c.part, "text")]

    def audio_bytes(self) -> int:
        return sum(len(c.part.data) for c in self.inputs if isinstance(c.part, Blob))


@dataclass
class ScriptedRealtime:
    """The model: every ``transform`` opens a :class:`ScriptedSession` (or raises ``fail_with``)."""

    settings: Settings = field(default_factory=Settings)
    sessions: list[ScriptedSession] = field(default_factory=list)
    tools: list[Any] = field(default_factory=list)
    histories: list[list[tuple[str, str]]] = field(default_factory=list)  # what each with_history() was given

    async def transform(self, stream: Stream) -> ScriptedSession:
        s = ScriptedSession(stream)
        self.sessions.append(s)
        return s

    def with_tools(self, tools: list[Any]) -> ScriptedRealtime:
        self.tools = list(tools)
        return self

    def with_history(self, items: list[Any]) -> ScriptedRealtime:
        self.histories.append([(h.role, h.text) for h in items])
        return self

    @property
    def session(self) -> ScriptedSession:
        return self.sessions[-1]


__all__ = ["MIME", "RATE", "ScriptedRealtime", "ScriptedSession", "Settings", "heard_words", "tone_ms"]
