"""One realtime session: the state of one :meth:`RealtimeTransformer.transform` call (connection, reconnects,
read timeout, input sent, server events, barge-in). What it reads and writes: :mod:`genx.transformers.realtime.session`."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from genx.chunk import Blob, MessageChunk, Role, Text, ToolResult
from genx.errors import Done
from genx.generators.providers.errors import ProviderError, ProviderTimeoutError
from genx.stream import Stream
from genx.transformers.audiostream.meter import PulledAudioMeter
from genx.transformers.audiostream.pcm import l16_mime
from genx.transformers.realtime import events as ev
from genx.transformers.realtime.events import Frame
from genx.transformers.realtime.input_audio import InputAudio
from genx.transformers.realtime.responses import Interruption, Outputs
from genx.transformers.realtime.stream import TOOL_RESULT, RealtimeSessionStream
from genx.transformers.realtime.transport import Connection, open_connection
from genx.transformers.realtime.watchdog import Watchdog
from genx.transformers.streamkit.invocation import Invocation

if TYPE_CHECKING:
    from genx.transformers.realtime.session import RealtimeTransformer

log = logging.getLogger("genx.transformers.realtime.session")

COMMIT = "commit"


class _Call:
    def __init__(self, owner: RealtimeTransformer, inp: Stream) -> None:
        self.owner = owner
        self.settings = owner.settings
        self.provider = owner.config.provider
        self.inv = Invocation(inp, max_bytes=owner.output_max_bytes)
        self.dialect = owner.make_dialect()
        self.in_mime = l16_mime(self.dialect.input_rate)
        self.outputs = Outputs(self.inv, l16_mime(self.dialect.output_rate), self.dialect.output_rate)
        self.meter = PulledAudioMeter()
        self.inv.output.add_observer(self.meter)
        self.conn: Connection | None = None
        self.ready = asyncio.Event()
        self.after_ready: list[Frame] = []  # frames that wait for the session to be ready
        self.handle = ""
        self.expired = False
        self.closing = False
        self.outstanding = False  # a response was asked for and has not started
        self.reconnects = 0
        self.watchdog = Watchdog(owner.read_timeout, self.timed_out)
        self.unanswered: dict[str, str] = {}  # call id → response id
        self.calls_of: dict[str, set[str]] = {}  # response id → unanswered call ids
        self.ended: set[str] = set()  # response ids with calls whose response the provider ended
        self.audio_in = InputAudio(self.provider, self.in_mime)
        self.texts: dict[str, list[str]] = {}
        self.turns: set[str] = set()  # manual turns (audio StreamIDs) begun
        self.input_done = False
        self.aux: set[asyncio.Task[None]] = set()
        self.unknown: set[str] = set()
        self.stream = RealtimeSessionStream(self)
        self.inv.on_cancel(self.abort)

    def start(self) -> RealtimeSessionStream:
        self.inv.spawn(self.run(), name=f"realtime:{self.provider}")
        return self.stream

    # -- connection --------------------------------------------------------------
    async def run(self) -> None:
        history = list(self.owner.history)
        self.outputs.history.extend(history)  # an expiry replays it too
        await self.connect(history=history or None)
        inp = self.inv.input
        assert inp is not None
        self.inv.spawn(self.write(inp), name=f"realtime:{self.provider}:input")
        await self.read()

    async def connect(self, resume: str = "", history: list[ev.HistoryItem] | None = None) -> None:
        url = self.dialect.url(self.owner.config.base_url, self.settings.model)
        self.conn = await open_connection(url, self.owner.config)
        frames = self.dialect.session_frames(self.settings, resume_handle=resume, history=history)
        await self.conn.send(frames[0])
        self.after_ready = frames[1:] + self.after_ready
        self.watch()

    async def read(self) -> None:
        while self.inv.is_open:
            conn = self.conn
            assert conn is not None
            try:
                frame = await conn.recv()
            except ProviderError as err:
                if self.closing or not self.inv.is_open:
                    return
                if await self.reconnect(err):
                    continue
                raise
            self.watchdog.kick()
            if frame is None:
                continue
            for event in self.dialect.parse(frame):
                await self.on_event(event)
            self.watch()
            self.maybe_finish()

    async def reconnect(self, err: ProviderError) -> bool:
        resume = bool(self.handle) and self.settings.session_resumption
        if not (resume or self.expired) or self.reconnects >= self.owner.max_reconnects:
            return False
        self.reconnects += 1
        self.ready.clear()
        why = "the session expired" if self.expired else f"the connection dropped ({err.message})"
        log.info("%s realtime: %s; reconnecting (%s)", self.provider, why, "resuming" if resume else "fresh session, history replayed")
        self.outputs.end_all(f"{why}; reconnected")
        self.outputs.note(
            f"{why}; {'resumed the session' if resume else 'started a fresh session with the conversation replayed'}", "reconnect"
        )
        history = None if resume else [h for h in self.outputs.history if h.text.strip()]
        self.expired = False
        await self.connect(self.handle if resume else "", history)
        return True

    def abort(self) -> None:
        """The call ended other than normally: close the socket."""
        self.closing = True
        self.watchdog.watch(False)
        self.close_soon()

    def close_soon(self) -> None:
        conn = self.conn
        if conn is not None:
            self.soon(conn.close())

    def soon(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.aux.add(task)
        task.add_done_callback(self._aux_done)

    def _aux_done(self, task: asyncio.Task[None]) -> None:
        self.aux.discard(task)
        if not task.cancelled() and task.exception() is not None and self.inv.is_open:
            self.inv.fail(task.exception())  # type: ignore[arg-type]

    # -- read timeout --------------------------------------------------------------
    def awaiting(self) -> bool:
        return not self.ready.is_set() or self.outstanding or self.outputs.pending()

    def watch(self) -> None:
        self.watchdog.watch(self.awaiting())

    def timed_out(self) -> None:
        what = "the session setup" if not self.ready.is_set() else "an answer"
        self.inv.fail(
            ProviderTimeoutError(self.provider, f"no frame for {self.owner.read_timeout:g}s while waiting for {what} (read timeout)")
        )

    # -- sending -----------------------------------------------------------------
    async def send(self, frames: list[Frame], *, keep: bool = True) -> None:
        """Send ``frames`` once the session is ready; ``keep``: resend them after a reconnect if the socket is gone."""
        if not self.ready.is_set():
            await self.ready.wait()
        conn = self.conn
        assert conn is not None
        for i, f in enumerate(frames):
            try:
                await conn.send(f)
            except ProviderError:
                if keep:
                    self.after_ready.extend(frames[i:])
                else:
                    log.debug("%s realtime: audio dropped, the connection is gone", self.provider)
                return

    # -- input ---------------------------------------------------------------------
    async def write(self, inp: Stream) -> None:
        dialect = self.dialect
        while True:
            try:
                chunk = await inp.next()
            except Done:
                break
            part = chunk.part
            if isinstance(part, Blob) and part.mime.startswith("audio/"):
                sid = chunk.stream_id
                frames: list[Frame] = []
                if self.settings.turn_detection is None and sid not in self.turns:
                    self.turns.add(sid)
                    frames.extend(dialect.begin_turn_frames())
                if part.data:
                    frames.append(dialect.audio_frame(self.audio_in.convert(part)))
                if frames:
                    await self.send(frames, keep=False)
                if chunk.is_end_of_stream():
                    await self.end_turn(sid)
            elif chunk.meta is not None and isinstance(chunk.meta.get(TOOL_RESULT), ToolResult):
                await self.tool_result(chunk.meta[TOOL_RESULT])
            elif isinstance(part, Text) and chunk.role in (Role.USER, Role.NONE):
                await self.user_text(chunk, part)
            elif chunk.is_control_only() and (chunk.label == COMMIT or chunk.is_end_of_stream()):
                if chunk.label == COMMIT or chunk.stream_id in self.turns:
                    await self.end_turn(chunk.stream_id, force=chunk.label == COMMIT)
                if chunk.is_end_of_stream() and chunk.stream_id in self.texts:
                    await self.flush_text(chunk.stream_id)
        self.input_done = True
        self.maybe_finish()

    async def end_turn(self, sid: str, *, force: bool = False) -> None:
        if sid in self.turns or force:
            self.turns.discard(sid)
            self.outstanding = True
            tails = self.audio_in.flush()  # the resampler's tail belongs to this turn: before the commit
            await self.send([*(self.dialect.audio_frame(t) for t in tails), *self.dialect.commit_frames()])
            self.watch()

    async def user_text(self, chunk: MessageChunk, part: Text) -> None:
        sid = chunk.stream_id
        if not sid:
            await self.send_text(part.text)
            return
        self.texts.setdefault(sid, []).append(part.text)
        if chunk.is_end_of_stream():
            await self.flush_text(sid)

    async def flush_text(self, sid: str) -> None:
        await self.send_text("".join(self.texts.pop(sid, [])))

    async def send_text(self, text: str) -> None:
        if not text.strip():
            return
        self.outputs.user_text(text)
        self.outstanding = True
        await self.send(self.dialect.text_frames(text))
        self.watch()

    async def tool_result(self, result: ToolResult) -> None:
        rid = self.unanswered.pop(result.call_id, None)
        if rid is None:
            log.warning("%s realtime: a tool result for unknown call %r is sent anyway", self.provider, result.call_id)
        await self.send(self.dialect.tool_result_frames(result))
        if rid is not None:
            pending = self.calls_of.get(rid)
            if pending is not None:
                pending.discard(result.call_id)
            await self.maybe_respond(rid)

    async def maybe_respond(self, rid: str) -> None:
        """Every call of response ``rid`` is answered and the provider ended it: ask for the next response."""
        if self.calls_of.get(rid) or rid not in self.ended:
            return
        self.calls_of.pop(rid, None)
        self.ended.discard(rid)
        self.outstanding = True
        await self.send(self.dialect.respond_frames())
        self.watch()

    # -- server events ---------------------------------------------------------------
    async def on_event(self, e: ev.Event) -> None:
        out = self.outputs
        if isinstance(e, ev.AudioDelta):
            out.audio(e)
        elif isinstance(e, ev.TranscriptDelta):
            out.transcript(e)
        elif isinstance(e, ev.TextDelta):
            out.text(e)
        elif isinstance(e, ev.ResponseStarted):
            self.outstanding = False
            out.started(e.response_id)
        elif isinstance(e, ev.ResponseDone):
            out.done(e)
            if e.response_id in self.calls_of:
                self.ended.add(e.response_id)
                self.soon(self.maybe_respond(e.response_id))
        elif isinstance(e, ev.ToolCallEvent):
            if out.tool_call(e) is not None:
                self.unanswered[e.call.id] = e.response_id
                self.calls_of.setdefault(e.response_id, set()).add(e.call.id)
        elif isinstance(e, ev.SpeechStarted):
            out.speech_started(e)
        elif isinstance(e, ev.SpeechStopped):
            self.outstanding = self.settings.create_response and self.settings.turn_detection is not None
        elif isinstance(e, ev.InputTranscript):
            out.user_transcript(e)
        elif isinstance(e, ev.ServerInterrupted):
            live = out.live.get(e.response_id)
            if live is not None:
                out.interrupt(live, int(self.meter.pulled_ms(live.stream_id) or 0))
        elif isinstance(e, ev.SessionReady):
            await self.on_ready()
        elif isinstance(e, ev.ServerError):
            self.on_error(e)
        elif isinstance(e, ev.ResumptionHandle):
            if e.resumable:
                self.handle = e.handle
        elif isinstance(e, ev.GoAway):
            log.info("%s realtime: the server will close the session (time left %s)", self.provider, e.time_left or "?")
        elif isinstance(e, ev.Ignored) and e.unknown and e.kind not in self.unknown:
            self.unknown.add(e.kind)
            log.warning("%s realtime: skipped a frame this client does not know (%s)", self.provider, e.kind)

    async def on_ready(self) -> None:
        pending, self.after_ready = self.after_ready, []
        conn = self.conn
        assert conn is not None
        for f in pending:
            await conn.send(f)
        self.reconnects = 0
        self.ready.set()

    def on_error(self, e: ev.ServerError) -> None:
        if e.expired:
            self.expired = True
            self.close_soon()  # the reader reconnects when the socket is closed
        elif e.fatal:
            self.closing = True
            self.inv.fail(e.error)
        else:
            log.warning("%s realtime: %s", self.provider, e.error)
            self.outputs.note(str(e.error), "error")

    def maybe_finish(self) -> None:
        if (
            self.input_done
            and not self.closing
            and self.ready.is_set()
            and not self.awaiting()
            and not self.unanswered
            and not self.calls_of
        ):
            self.closing = True
            self.watchdog.watch(False)
            self.close_soon()

    # -- barge-in ------------------------------------------------------------------
    def interrupt(self, played_ms: float | None, stream_id: str = "") -> Interruption | None:
        live = self.outputs.find(stream_id) if stream_id else self.outputs.target()
        if live is None or not self.inv.is_open:
            return None
        ms = int(played_ms if played_ms is not None else (self.meter.pulled_ms(live.stream_id) or 0))
        frames = self.dialect.interrupt_frames(live.response_id, live.item_id, ms, not live.done)
        cut = self.outputs.interrupt(live, ms)
        if frames and self.ready.is_set():
            self.soon(self.send(frames, keep=False))
        self.watch()
        return cut
