"""The ASR feed: speech routes → ASR utterance routes, and the ASR's transcripts back to the turn manager.

:class:`AsrFeed` owns the ASR's input and output streams. Each speech route
sends its audio as one utterance route (BOS, audio, EOS). A ``flush`` control
chunk asks the ASR for the transcript of the audio so far; it answers with
``provisional`` text (only the latest flush's counts, and only while the pause
lasts), and when the pause ends the turn its final reuses that decode. Partials
are published as ``UserPartial``; a transcript that does not come back within
``asr_timeout_s`` after the utterance ended is given up. Each utterance's BOS
carries the conversation's last turn as ``meta["prompt"]`` (for an ASR that
decodes its finals with context, see :mod:`genx.local.whisper`), and speech
over a ducked answer ``meta["over_answer"] = True`` (its words decide whether
the answer stops: no fixed initial prompt for it).

Does not own: when a route opens, pauses or closes (:mod:`.router`), what the
words mean for the turn (:mod:`.turn_manager`, through
:class:`~genx.agentkit.turns.TurnPort`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from genx.agentkit.backchannel import WRITTEN_STOP_PHRASES
from genx.agentkit.core import LoopCore
from genx.agentkit.events import ErrorKind, UserPartial
from genx.agentkit.mic import blob_len
from genx.agentkit.turns import SpeechRoute, Turn, TurnPort, Utterance
from genx.chunk import MessageChunk, Role, StreamCtrl, Text
from genx.ids import new_stream_id
from genx.model import ModelContext
from genx.stream import Stream, StreamBuilder
from genx.transformers import Transformer

PARTIAL = "partial"
FINAL = "final"
FLUSH = "flush"  # to the ASR: transcribe the route so far (genx.local.asr.FLUSH)
PROVISIONAL = "provisional"
UTTERANCE = "utterance"
PROMPT = "prompt"  # utterance BOS meta key: the conversation's last turn (genx.local.asr.PROMPT)
OVER_ANSWER = "over_answer"  # utterance BOS meta key: speech over a ducked answer (genx.local.asr.OVER_ANSWER)
LISTEN_FOR = "listen_for"  # ... and the phrases it may be: the stop phrases (genx.local.asr.LISTEN_FOR)


def last_turn_text(ctx: ModelContext) -> str:
    """The last user and assistant messages' words of ``ctx`` (what was said just before the next utterance)."""
    said = [t for t in (m.text().strip() for m in ctx.messages() if m.role in (Role.USER, Role.ASSISTANT)) if t]
    return " ".join(said[-2:])[-600:].strip()


class AsrFeed:
    """See the module docstring."""

    def __init__(self, core: LoopCore, turns: TurnPort, asr: Transformer, context: Callable[[], ModelContext] | None = None) -> None:
        self._core = core
        self._turns = turns
        self._asr = asr
        self._context = context
        self._in: StreamBuilder | None = None
        self._utterances: dict[str, Utterance] = {}  # ASR route id → utterance
        self.text_filter: Callable[[str], str] = lambda text: text  # every transcript passes (the wake phrase cut)

    async def start(self) -> Any:
        """Open the ASR stream; returns the reader coroutine to run."""
        self._in = StreamBuilder()
        return self._read(await self._asr.transform(self._in.stream))

    @property
    def open(self) -> bool:
        return self._in is not None and not self._in.ended

    def close(self) -> None:
        if self._in is not None and not self._in.ended:
            self._in.done()

    def forget(self, turn: Turn) -> None:
        """Transcripts of ``turn`` are ignored from now on."""
        for u in turn.utterances:
            self._utterances.pop(u.sid, None)

    # -- utterance routes ----------------------------------------------------------------------
    def start_route(self, route: SpeechRoute, ts: int) -> None:
        if self._in is None or self._in.ended:
            return
        self._turns.drop_held(route.turn, "more speech in the turn")
        u = Utterance(new_stream_id(), route.turn, route.source)
        route.turn.utterances.append(u)
        route.current = u
        route.pauses.mark()
        route.flushed = False
        self._utterances[u.sid] = u
        bos = MessageChunk.bos(u.sid, role=Role.USER, label=UTTERANCE, timestamp=ts)
        prompt = last_turn_text(self._context()) if self._context is not None else ""
        meta: dict[str, Any] = {PROMPT: prompt} if prompt else {}
        if self._turns.judging(route.turn):
            meta[OVER_ANSWER] = True
            meta[LISTEN_FOR] = list(WRITTEN_STOP_PHRASES)
        if meta:
            bos.meta = meta
        self._in.push(bos)

    def push(self, route: SpeechRoute, chunk: MessageChunk) -> None:
        u = route.current
        if u is None or self._in is None or self._in.ended:
            return
        c = chunk.copy()
        c.ensure_ctrl().stream_id = u.sid
        u.bytes_sent += blob_len(chunk)
        self._in.push(c)

    def flush(self, route: SpeechRoute) -> None:
        """A pause: the ASR decodes what it has (``provisional`` text, used to start the answer early, held)
        and, if the pause turns out to end the turn, serves the final from that same decode."""
        u = route.current
        if u is None or self._in is None or self._in.ended:
            return
        route.flushed = True
        route.pauses.mark()
        u.flushed_bytes = u.bytes_sent
        u.provisional = ""
        self._in.push(MessageChunk(role=Role.USER, ctrl=StreamCtrl(stream_id=u.sid, label=FLUSH)))

    def resumed(self, route: SpeechRoute) -> None:
        """Sound after a flush: its provisional text no longer covers the utterance."""
        route.flushed = False
        u = route.current
        if u is not None:
            u.flushed_bytes = -1
            u.provisional = ""
        self._turns.drop_held(route.turn, "the user went on talking")

    def end_route(self, route: SpeechRoute, ts: int, error: str = "") -> None:
        u = route.current
        if u is None:
            return
        route.current = None
        u.open = False
        if self._in is not None and not self._in.ended:
            self._in.push(MessageChunk.eos(u.sid, role=Role.USER, label=UTTERANCE, error=error, timestamp=ts))
        asyncio.get_running_loop().call_later(self._core.config.asr_timeout_s, self._overdue, u)

    def _overdue(self, u: Utterance) -> None:
        if u.transcribed or not self._core.running:
            return
        self._utterances.pop(u.sid, None)
        u.transcribed = True
        u.error = "timeout"
        self._core.error(ErrorKind.ASR, f"no transcript within {self._core.config.asr_timeout_s:.0f} s; listening again", u.turn.turn_id)
        self._turns.maybe_answer(u.turn)

    # -- transcripts -----------------------------------------------------------------------------
    async def _read(self, asr_out: Stream) -> None:
        await self._core.consume(
            asr_out,
            self._on_asr_chunk,
            kind=ErrorKind.ASR,
            failed="speech recognition stopped",
            ended="the speech recognition stream ended unexpectedly",
        )

    def _on_asr_chunk(self, c: MessageChunk) -> None:
        u = self._utterances.get(c.stream_id)
        if u is not None:
            self._on_transcript(u, c)

    def _on_transcript(self, u: Utterance, c: MessageChunk) -> None:
        part = c.part
        if isinstance(part, Text):
            text = self.text_filter(part.text.strip())
            if c.label == PROVISIONAL:
                meta = c.meta if isinstance(c.meta, dict) else {}
                # only the transcript of the latest flush, and only while the pause lasts
                if u.open and u.flushed_bytes >= 0 and meta.get("audio_ms") == u.flushed_bytes // 32:
                    u.provisional = text
                    self._turns.heard_words(u.turn, u.turn.heard_so_far(u.provisional))
                    self._turns.maybe_answer(u.turn)
            elif c.label == FINAL:
                u.text = text
                u.turn.timeline.mark("asr_final", self._core.clock())
            elif c.label == PARTIAL and text and text != u.partial:
                u.partial = text
                heard = u.turn.heard_so_far(u.partial)
                self._core.emit(UserPartial(turn_id=u.turn.turn_id, text=heard))
                self._turns.heard_words(u.turn, heard)
        if c.is_end_of_stream() and c.is_control_only():
            self._utterances.pop(c.stream_id, None)
            u.transcribed = True
            if c.error:
                u.error = c.error
                self._core.error(ErrorKind.ASR, f"speech recognition failed: {c.error}", u.turn.turn_id)
            self._turns.maybe_answer(u.turn)


__all__ = ["FINAL", "FLUSH", "PARTIAL", "PROMPT", "PROVISIONAL", "UTTERANCE", "AsrFeed", "last_turn_text"]
