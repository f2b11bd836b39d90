"""The voice loop in realtime mode: one speech-to-speech session replaces ASR + generator + TTS.

:class:`RealtimeConversation` is the part :class:`~genx.agentkit.loop.VoiceLoop`
uses instead of the speech router and turn manager when it is given a realtime
model (``genx.transformers.realtime.RealtimeTransformer``, or anything with its
``transform`` and output-stream contract). It keeps the cascade's guarantees by
reusing its parts: each provider response becomes an
:class:`~genx.agentkit.turns.Answer` that the :class:`~genx.agentkit.answers.AnswerRunner`
plays, tracks (heard text, echo far end, state, events), cuts and records, so
barge-in, the spoken-only history and the metrics are the cascade's own.

Input: hands-free, with the provider's turn detection, every processed
microphone chunk goes to the session (resampled by the transformer); with manual
turns (``turn_detection = "manual"``) each local VAD utterance is one user turn,
committed at its end. Push-to-talk sends the audio of the press (with the
pre-roll) as one route; with manual turns its release commits it. Typed text is
a user message of its own.

Barge-in: the local VAD's onset (hands-free), the provider's speech start (its
VAD), the provider's own interruption (Gemini), push-to-talk down, typed text
and :meth:`stop_answer` cut the playing answer through the runner: the player
stops at once and discards its buffer, then :class:`~.realtime_output.TruncatingOutput`
tells the provider the heard position (OpenAI ``response.cancel`` +
``conversation.item.truncate`` with ``audio_end_ms``), and the turn is recorded
with the words heard up to that position.

The session itself, its tool calls (through :class:`genx.toolrounds.execute.CallBatch`)
and reopening it after a failure are :class:`~.realtime_session.RealtimeLink`'s.
A failed session (a wrong key, an unknown model, a dropped connection the
transformer could not resume) is reported as a :class:`~.events.LoopError`; the
loop listens again and the next speech, key press or message opens a fresh one.

Does not own: the wire protocol (``genx.transformers.realtime``), playback and
the cut (:mod:`.answers`), history and store (:mod:`.recorder`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import Any

from genx.agentkit.core import LoopCore
from genx.agentkit.events import AssistantDelta, ErrorKind, Mode, SpeechEnded, SpeechStarted, UserFinal, UserPartial
from genx.agentkit.ports import SpeechDetector
from genx.agentkit.realtime_output import PendingRecorder, RealtimeAnswers, TranscriptRecorder, TruncatingOutput
from genx.agentkit.realtime_session import RealtimeLink
from genx.agentkit.turns import Answer, Turn
from genx.chunk import Blob, MessageChunk, Role, Text
from genx.errors import StreamClosedError
from genx.stream import Stream, StreamBuilder
from genx.tools import FuncTool
from genx.transformers.audiostream.pcm import frame_pcm, pcm_format_from_mime

log = logging.getLogger("genx.agentkit.loop")

TRANSCRIPT, PARTIAL, FINAL, INTERRUPTED = "transcript", "partial", "final", "interrupted"
CHUNK_MS = 20  # audio to the player in pieces of this length


class RealtimeConversation:
    """See the module docstring."""

    def __init__(
        self,
        core: LoopCore,
        model: Any,
        *,
        vad: SpeechDetector,
        answers: RealtimeAnswers,
        output: TruncatingOutput,
        recorder: PendingRecorder,
        new_turn: Callable[[bool], Turn],
        tools: Sequence[FuncTool] = (),
        name: str = "realtime",
    ) -> None:
        self._core = core
        self.link = RealtimeLink(
            core, model, on_chunk=self._on_chunk, on_failed=self._session_failed, tools=tools, history=self._history_texts
        )
        self.provider_vad = self.link.provider_vad
        self._vad = vad
        self._answers = answers
        self._output = output
        output.port = self.link
        self._recorder = recorder
        self._new_turn = new_turn
        self._name = name
        self._vad_in: StreamBuilder | None = None
        self.current: tuple[Turn, Answer] | None = None  # the answer being generated / played
        self.waiting: Turn | None = None  # the user's turn, heard and not answered yet
        self._utterances: set[str] = set()  # local VAD routes admitted as speech
        self.ptt: str | None = None  # the open push-to-talk route
        self._ptt_seq = 0
        self._user_turns: dict[str, Turn] = {}  # provider user-speech route → turn
        self._live: dict[str, tuple[Turn, Answer, StreamBuilder]] = {}  # response route → its answer

    def _history_texts(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for t in self._recorder.history.turns():
            out += [("user", t.user_text), ("assistant", t.assistant_text)]
        return out

    @property
    def hearing(self) -> bool:
        return bool(self._utterances) or self.ptt is not None

    async def start(self) -> list[tuple[Any, str]]:
        """Open the local VAD and the session; returns the reader coroutines to run, with task names."""
        self._vad_in = StreamBuilder()
        vad_out = await self._vad.transform(self._vad_in.stream, on_speech=self._on_vad_event)
        await self.link.open()
        return [(self._read_vad(vad_out), "voice-loop-realtime-vad")]

    async def restart(self) -> None:
        await self.link.restart()

    async def close(self) -> None:
        if self._vad_in is not None and not self._vad_in.ended:
            self._vad_in.done()
        await self.link.close()

    def _session_failed(self, e: BaseException) -> None:
        cur = self.current
        if cur is not None:
            cur[1].error = cur[1].error or (str(e) or type(e).__name__)
            self._answers.cut(cur[0], cur[1], None, "the realtime session failed")
        self.waiting = None
        self._core.error(ErrorKind.GENERATOR, f"the realtime session failed: {e}")
        self._core.settle("realtime session failed")

    # -- input -------------------------------------------------------------------------
    def feed(self, chunk: MessageChunk) -> None:
        """A processed microphone chunk (hands-free path): to the local VAD, and to the session under its VAD."""
        if self._vad_in is not None and not self._vad_in.ended:
            self._vad_in.push(chunk)
        if self.provider_vad and self._core.mode is Mode.HANDS_FREE:
            self.link.send(chunk)

    def feed_ptt(self, mime: str, data: bytes, ts: int) -> None:
        if self.ptt is not None:
            self.link.send(MessageChunk.blob(mime, data, role=Role.USER, stream_id=self.ptt, timestamp=ts))

    def push_to_talk_down(self, preroll: list[MessageChunk]) -> None:
        core = self._core
        if not core.running or core.muted or self.ptt is not None:
            return
        self.link.ensure()
        now = core.clock()
        self._barge_in(now, "push-to-talk")
        self._ptt_seq += 1
        self.ptt = sid = f"ptt-rt-{self._ptt_seq}"
        self._user_speech(now)
        for c in preroll:
            if isinstance(c.part, Blob):
                self.link.send(MessageChunk.blob(c.part.mime, c.part.data, role=Role.USER, stream_id=sid, timestamp=c.timestamp))

    def push_to_talk_up(self) -> None:
        sid, self.ptt = self.ptt, None
        if sid is None:
            return
        self.link.send(MessageChunk.eos(sid, role=Role.USER))  # manual turns: the transformer commits the press
        self._speech_ended()

    def typed(self, text: str) -> None:
        core = self._core
        self.link.ensure()
        self._barge_in(None, "typed message")
        turn = self._new_turn(True)
        turn.user_text = text
        turn.timeline.mark("speech_end", core.clock())
        core.emit(UserFinal(turn_id=turn.turn_id, text=text, typed=True))
        self.waiting = turn
        if not self.link.connected:
            core.error(ErrorKind.GENERATOR, "the realtime session is not connected; try again in a moment", turn.turn_id)
            self.waiting = None
            return
        self.link.send(MessageChunk.text(text, role=Role.USER))
        core.settle("typed message")

    def stop_answer(self, onset: float | None, why: str) -> None:
        cur = self.current
        if cur is not None:
            self._answers.cut(cur[0], cur[1], onset, why)

    def answer_over(self, turn: Turn) -> None:
        """The runner cut or finished ``turn``'s answer."""
        cur = self.current
        if cur is not None and cur[0] is turn:
            self.current = None
            entry = self._live.get(cur[1].route_id)
            if entry is not None and entry[2].ended:  # its route ended: no more chunks (else they are dropped there)
                del self._live[cur[1].route_id]
            if not cur[1].interrupted:  # played to its end: nothing to truncate (a cut stops the player next)
                self._output.forget(cur[1].route_id)

    # -- local VAD -----------------------------------------------------------------------
    def _on_vad_event(self, ev: Any) -> None:
        core = self._core
        kind = getattr(ev, "kind", "")
        sid = str(getattr(ev, "stream_id", ""))
        if kind != "start" or not core.running or core.mode is not Mode.HANDS_FREE or core.muted or self.ptt is not None:
            return
        self._utterances.add(sid)
        self.link.ensure()
        now = core.clock()
        self._barge_in(now, "speech onset")
        self._user_speech(now)

    async def _read_vad(self, vad_out: Stream) -> None:
        await self._core.consume(
            vad_out, self._vad_chunk, kind=ErrorKind.INTERNAL, failed="the VAD failed", ended="the VAD stream ended unexpectedly"
        )

    def _vad_chunk(self, c: MessageChunk) -> None:
        sid = c.stream_id
        if sid not in self._utterances:
            return
        if not self.provider_vad:  # manual turns: the utterance is the user's turn, committed at its end
            if isinstance(c.part, Blob) and c.part.data:
                self.link.send(MessageChunk.blob(c.part.mime, c.part.data, role=Role.USER, stream_id=sid, timestamp=c.timestamp))
            elif c.is_end_of_stream():
                self.link.send(MessageChunk.eos(sid, role=Role.USER))
        if c.is_end_of_stream() and c.is_control_only():
            self._utterances.discard(sid)
            self._speech_ended()

    # -- turns ---------------------------------------------------------------------------
    def _barge_in(self, onset: float | None, why: str) -> None:
        cur = self.current
        if cur is None:
            return
        if onset is not None and not self._core.config.barge_in:
            return
        self._answers.cut(cur[0], cur[1], onset, why)

    def _user_speech(self, t: float) -> Turn:
        """The user started talking: the waiting turn goes on, or a new one opens."""
        turn = self.waiting
        if turn is None or turn.typed:
            turn = self.waiting = self._new_turn(False)
            turn.timeline.mark("speech_start", t)
            self._core.emit(SpeechStarted(turn_id=turn.turn_id))
        self._core.settle("speech")
        return turn

    def _speech_ended(self) -> None:
        turn = self.waiting
        if turn is not None and not self.hearing:
            turn.timeline.mark("speech_end", self._core.clock())
            self._core.emit(SpeechEnded(turn_id=turn.turn_id))
        self._core.settle("speech ended")

    def _user_chunk(self, c: MessageChunk) -> None:
        """The provider's side of the user's speech: its VAD's start, the transcription."""
        sid = c.stream_id
        turn = self._user_turns.get(sid)
        if turn is None:
            if c.is_begin_of_stream() and self.provider_vad and self._core.mode is Mode.HANDS_FREE:
                self._barge_in(self._core.clock(), "the provider heard speech")
            bound = set(self._user_turns.values())
            cur = self.current
            if self.waiting is not None and self.waiting not in bound and not self.waiting.typed:
                turn = self.waiting
            elif cur is not None and cur[0] not in bound and not cur[0].typed and not cur[0].user_text:
                turn = cur[0]  # the transcript of the speech this answer answers arrived after the answer began
            else:
                turn = self._user_speech(self._core.clock())
            self._user_turns[sid] = turn
            if self.link.transcribes:
                self._recorder.expect(turn)  # its record waits for the transcript
        part = c.part
        if isinstance(part, Text) and c.label == PARTIAL:
            self._core.emit(UserPartial(turn_id=turn.turn_id, text=part.text))
        elif isinstance(part, Text) and c.label == FINAL:
            turn.user_text = part.text.strip()
            turn.timeline.mark("asr_final", self._core.clock())
            if turn.user_text:
                self._core.emit(UserFinal(turn_id=turn.turn_id, text=turn.user_text))
            self._recorder.arrived(turn)
        if c.is_end_of_stream() and c.is_control_only():
            self._user_turns.pop(sid, None)
            self._recorder.arrived(turn)

    # -- the session's output ------------------------------------------------------------
    def _on_chunk(self, c: MessageChunk) -> None:
        if c.role == Role.USER:
            self._user_chunk(c)
        elif c.role == Role.ASSISTANT and c.stream_id:
            self._response_chunk(c)
        elif c.is_control_only() and c.error:
            log.warning("realtime %s: %s", c.label or "note", c.error)
            if c.label == "reconnect":
                self._core.error(ErrorKind.GENERATOR, f"realtime: {c.error}", level=logging.INFO)

    def _response_chunk(self, c: MessageChunk) -> None:
        sid = c.stream_id
        entry = self._live.get(sid)
        part = c.part
        content = (isinstance(part, Blob) and bool(part.data)) or (isinstance(part, Text) and bool(part.text))
        if entry is None and content:
            entry = self._begin_answer(sid)
        if entry is None:
            if c.is_end_of_stream() and c.is_control_only() and self.waiting is not None:
                self._core.settle("response ended")  # a tool-call response: the answer follows in the next one
            return
        turn, ans, buf = entry
        if ans.interrupted or ans.finished:  # the rest of a cut response (until its EOS): dropped
            if c.is_end_of_stream() and c.is_control_only():
                self._live.pop(sid, None)
            return
        if c.is_end_of_stream() and c.error == INTERRUPTED:  # the provider stopped it itself (Gemini ``interrupted``)
            self._answers.cut(turn, ans, self._core.clock(), "the provider stopped the answer")
            return
        rec = ans.recorder
        if content:  # the model's first output, audio or text ("llm" in the metrics; realtime has no separate TTS)
            turn.timeline.mark("first_token", self._core.clock())
        if isinstance(part, Blob) and part.data:
            if rec.total_bytes == 0:
                self._open_route(ans, buf, part.mime)
            rec.audio(part.data)
            # the player pulls just in time in blocks: deltas (often 100 ms and more) go in as 20 ms pieces, as the TTS does
            for piece in frame_pcm(part.data, ans.rate, CHUNK_MS):
                self._push(buf, MessageChunk.blob(part.mime, piece, role=Role.ASSISTANT, stream_id=sid))
        elif isinstance(part, Text) and part.text:
            ans.generated.append(part.text)
            if isinstance(rec, TranscriptRecorder):
                rec.transcript(part.text)
            self._core.emit(AssistantDelta(turn_id=turn.turn_id, text=part.text))
        if c.is_end_of_stream() and c.is_control_only():
            if c.error:
                ans.error = c.error
                self._core.error(ErrorKind.GENERATOR, f"the realtime answer failed: {c.error}", turn.turn_id)
            rec.end()
            if rec.total_bytes:
                self._push(buf, MessageChunk.eos(sid, role=Role.ASSISTANT))
            with contextlib.suppress(Exception):
                buf.done()

    def _begin_answer(self, sid: str) -> tuple[Turn, Answer, StreamBuilder]:
        core = self._core
        prev = self.current
        turn = self.waiting
        if turn is None:
            # the model goes on after a tool result, or speaks unprompted: the same turn if one is answered
            turn = prev[0] if prev is not None else self._new_turn(False)
        self.waiting = None
        if prev is not None and prev[0] is not turn:
            self._answers.cut(prev[0], prev[1], None, "a newer answer")
        ans = Answer(sid, TranscriptRecorder(clock=core.clock), self._name, prompt=turn.user_text)
        turn.timeline.mark("generation_start", core.clock())
        buf = StreamBuilder()
        turn.answer = ans
        self.current = (turn, ans)
        self._live[sid] = (turn, ans, buf)
        self._output.track(sid)
        self._answers.adopt(turn, ans, buf.stream)
        return self._live[sid]

    def _open_route(self, ans: Answer, buf: StreamBuilder, mime: str) -> None:
        rec = ans.recorder
        ans.rate = pcm_format_from_mime(mime)[0]
        if isinstance(rec, TranscriptRecorder):
            rec.set_rate(ans.rate)
        self._push(buf, MessageChunk.bos(ans.route_id, role=Role.ASSISTANT))

    @staticmethod
    def _push(buf: StreamBuilder, c: MessageChunk) -> None:
        if not buf.ended:
            with contextlib.suppress(StreamClosedError):
                buf.push(c)


__all__ = ["RealtimeConversation"]
