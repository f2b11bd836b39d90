"""The voice loop: microphone → VAD → ASR → turn manager → generator → TTS → speaker.

:class:`VoiceLoop` wires the parts (see :mod:`genx.agentkit.ports`) with genx
streams and implements :class:`~genx.agentkit.events.LoopControl`.

Data path::

    capture ─┬─(level, echo canceller)─▶ VAD (hands-free) ──▶┐
             └─(push-to-talk route)───▶ VAD (external, trims)─┴─▶ ASR ─▶ turns
    turns ─▶ generator ─▶ text route ─▶ TTS ─▶ AnswerAudio ─▶ player ─▶ positions ─▶ spoken text

Turn taking: the VAD's onset callback opens an utterance (hands-free); push-to-talk
down/up opens/closes one. An utterance that starts while the turn still waits for
its transcript joins the turn. When every utterance of the turn is transcribed,
the joined text starts the answer with the spoken-only history as context. An
empty transcript is reported (``LoopError(kind=input)``) and the loop listens again.

Barge-in (onset while an answer runs, push-to-talk down, :meth:`stop_speaking`,
:meth:`send_text`, a newer answer): (1) the player stops and discards its buffer,
(2) the streamkit interrupt drops the unpulled suffix of the answer's route,
(3) the generation is cancelled (its stream closed), (4) the TTS stream is closed
(synthesis stops). History keeps the words heard up to the player's ``samples_heard``
(:mod:`genx.agentkit.spoken`), marked interrupted. A new answer waits for the cut
of the previous one, so history is always consistent.

Everything runs on the event loop; models run in their transformers' workers.
Hang guards: an answer that makes no progress for ``answer_timeout_s`` and an
utterance whose transcript does not arrive within ``asr_timeout_s`` are given up
with a ``LoopError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from genx.agentkit.echo import FRAME, EchoCanceller, EchoGate, FarEndTimeline, LevelMeter, Resampler16k, VadEchoFallback, frame_db
from genx.agentkit.events import (
    AssistantDelta,
    AssistantDone,
    AssistantSpoken,
    BargeIn,
    ConversationStarted,
    ErrorKind,
    Event,
    EventBus,
    GeneratorChanged,
    InputLevel,
    LoopError,
    LoopState,
    Mode,
    ModeChanged,
    MuteChanged,
    SpeechEnded,
    SpeechStarted,
    StateChanged,
    UserFinal,
    UserPartial,
)
from genx.agentkit.history import History
from genx.agentkit.metrics import Clock, TurnTimeline, format_metrics
from genx.agentkit.ports import AudioOutput, Speech, SpeechDetector
from genx.agentkit.speaker import AnswerAudio
from genx.agentkit.spoken import SegmentRecorder, generated_prefix, join_segments
from genx.agentkit.store import ConversationStore, ConversationStoreError, TurnRecord, new_conversation_id
from genx.agentkit.turns import Answer, SpeechRoute, Turn, Utterance
from genx.chunk import Blob, MessageChunk, Role, StreamCtrl, Text
from genx.errors import Blocked, Done, GenxError, Truncated
from genx.generators import Generator
from genx.ids import new_stream_id
from genx.model import ModelParams
from genx.stream import Stream, StreamBuilder
from genx.transformers import Transformer

log = logging.getLogger("genx.agentkit.loop")

L16_16K = "audio/l16; channels=1; rate=16000"
PARTIAL = "partial"
FINAL = "final"
FLUSH = "flush"  # to the ASR: transcribe the route so far (genx.local.asr.FLUSH)
PROVISIONAL = "provisional"
UTTERANCE = "utterance"
DEFAULT_SYSTEM_PROMPT = (
    "You are Parley, a friendly voice assistant. Your answers are spoken aloud: keep them short and conversational, "
    "use plain sentences without lists, markdown, code or emojis."
)


@dataclass(slots=True)
class LoopConfig:
    mode: Mode = Mode.HANDS_FREE
    barge_in: bool = True
    generator: str = ""
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    params: ModelParams | None = None
    max_utterance_s: float = 30.0  # longer speech is cut: the first part is answered
    # hands-free: after this much pause ask the ASR for the transcript so far (0: only at the VAD's end of turn)
    early_asr_ms: int = 100
    # hands-free: start the answer on the transcript of a pause before the end-of-turn silence ran out;
    # its audio waits for the end of the turn and is dropped unheard if the user goes on talking
    preemptive_generation: bool = True
    echo_fallback: bool = True  # stricter VAD while the assistant speaks
    echo_tail_s: float = 0.25  # keep the echo measures this long after the last sample (reverb, latency)
    ptt_preroll_ms: int = 300  # audio from just before push-to-talk down
    history_max_chars: int = 12_000
    answer_timeout_s: float = 60.0  # no token / audio progress for this long → give up the answer
    asr_timeout_s: float = 30.0  # transcript not back this long after the utterance ended → give up
    level_rate_hz: float = 25.0


class VoiceLoop:
    """The device-free voice loop; see the module docstring. Create, ``await start()``, ``await stop()``."""

    def __init__(
        self,
        *,
        capture: Stream | None,
        vad: SpeechDetector,
        asr: Transformer,
        generator: Generator,
        speech: Speech,
        player: AudioOutput,
        config: LoopConfig | None = None,
        ptt_vad: SpeechDetector | None = None,
        store: ConversationStore | None = None,
        conversation_id: str | None = None,
        echo: EchoCanceller | None = None,
        echo_gate: EchoGate | None = None,
        echo_fallback: VadEchoFallback | None = None,
        clock: Clock = time.monotonic,
        wall_clock: Clock = time.time,
        bus: EventBus | None = None,
    ) -> None:
        self.config = config or LoopConfig()
        self._capture = capture
        self._vad = vad
        self._ptt_vad = ptt_vad
        self._asr = asr
        self._generator = generator
        self._speech = speech
        self._player = player
        self._store = store
        self._echo = echo
        self._gate = echo_gate
        # where the played audio is written for the echo canceller and the gate (one timeline when they share it)
        self._far_ends: list[FarEndTimeline] = []
        for fe in (echo.far if echo is not None else None, echo_gate.far if echo_gate is not None else None):
            if fe is not None and all(fe is not x for x in self._far_ends):
                self._far_ends.append(fe)
        self._fallback = echo_fallback if (echo_fallback is not None and self.config.echo_fallback) else None
        self._clock = clock
        self._wall = wall_clock
        self._bus = bus or EventBus()
        self._history = History(self.config.history_max_chars)
        self._conversation_id = conversation_id or new_conversation_id()
        self._state = LoopState.IDLE
        self._mode = self.config.mode
        self._muted = False
        self._generator_name = self.config.generator
        self._turn_seq = 0
        self._collecting: Turn | None = None  # the user's turn being heard / transcribed
        self._answering: Turn | None = None  # the turn whose answer runs
        self._cutting: set[asyncio.Task[None]] = set()
        self._utterances: dict[str, Utterance] = {}  # ASR route id → utterance
        self._routes: dict[str, SpeechRoute] = {}  # VAD / trimmed push-to-talk route id → speech route
        self._ignored: set[str] = set()  # VAD routes not sent to the ASR
        self._ptt: SpeechRoute | None = None
        self._ptt_pending: deque[SpeechRoute] = deque()  # presses awaiting their trimmed route
        self._preroll: deque[MessageChunk] = deque()
        self._preroll_bytes = 0
        self._answers: dict[str, tuple[Turn, Answer]] = {}  # answer route id → turn, answer
        self._far_rs: dict[str, Resampler16k] = {}
        self._meter = LevelMeter(self.config.level_rate_hz)
        self._vad_in: StreamBuilder | None = None
        self._asr_in: StreamBuilder | None = None
        self._ptt_in: StreamBuilder | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._unsubs: list[Callable[[], None]] = []
        self._store_q: asyncio.Queue[tuple[str, TurnRecord] | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._prefill_task: asyncio.Task[None] | None = None
        self._stopped: asyncio.Future[None] | None = None
        self._running = False
        self._fallback_off: asyncio.TimerHandle | None = None
        self._end_silence_s = 0.0
        self._onset_delay_s = 0.0
        # diagnostics: tap(raw_pcm, processed_pcm, captured_at) for every capture chunk (after echo handling)
        self.mic_taps: list[Callable[[bytes, bytes, float], None]] = []
        self.turns_done = 0

    # -- LoopControl: properties ----------------------------------------------------------
    @property
    def bus(self) -> EventBus:
        return self._bus

    @property
    def state(self) -> LoopState:
        return self._state

    @property
    def mode(self) -> Mode:
        return self._mode

    @property
    def muted(self) -> bool:
        return self._muted

    @property
    def generator_name(self) -> str:
        return self._generator_name

    @property
    def conversation_id(self) -> str:
        return self._conversation_id

    @property
    def history(self) -> History:
        return self._history

    @property
    def push_to_talk_open(self) -> bool:
        """Push-to-talk is down (an utterance is being recorded)."""
        return self._ptt is not None

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Start reading the microphone and the transformers; returns once running."""
        if self._running:
            return
        loop = asyncio.get_running_loop()
        self._stopped = loop.create_future()
        self._running = True
        self._vad_timing()
        self._vad_in = StreamBuilder()
        vad_out = await self._vad.transform(self._vad_in.stream, on_speech=self._on_vad_event)
        self._asr_in = StreamBuilder()
        asr_out = await self._asr.transform(self._asr_in.stream)
        self._unsubs.append(self._player.on_played(self._on_played))
        self._unsubs.append(self._player.on_route_end(self._on_route_end))
        self._spawn(self._read_vad(vad_out), "voice-loop-vad")
        self._spawn(self._read_asr(asr_out), "voice-loop-asr")
        if self._ptt_vad is not None:
            self._ptt_in = StreamBuilder()
            ptt_out = await self._ptt_vad.transform(self._ptt_in.stream)
            self._spawn(self._read_ptt(ptt_out), "voice-loop-ptt")
        if self._capture is not None:
            self._spawn(self._pump_capture(self._capture), "voice-loop-capture")
        self._writer = loop.create_task(self._write_store(), name="voice-loop-store")
        self._emit(ConversationStarted(conversation_id=self._conversation_id))
        self._emit(ModeChanged(mode=self._mode))
        self._set_state(LoopState.LISTENING, "started")
        self._schedule_prefill()

    def _vad_timing(self) -> None:
        """How long after the last voiced sample the VAD ends an utterance, and after speech onset it reports it."""
        settings = getattr(self._vad, "settings", None)
        self._end_silence_s = float(getattr(settings, "end_silence_ms", 0) or 0) / 1000.0
        frame = float(getattr(settings, "frame_ms", 0) or 0)
        window = float(getattr(settings, "onset_window_ms", 0) or 0)
        ratio = float(getattr(settings, "onset_ratio", 0) or 0)
        if frame > 0 and window > 0:
            self._onset_delay_s = max(1, math.ceil(ratio * math.ceil(window / frame) - 1e-9)) * frame / 1000.0
        else:
            self._onset_delay_s = 0.0

    async def run(self) -> None:
        """Start (if needed) and wait until :meth:`stop` or a fatal error."""
        await self.start()
        assert self._stopped is not None
        await self._stopped

    async def stop(self) -> None:
        """Cut any answer, flush the store, close every stream. Idempotent."""
        if not self._running:
            return
        self._running = False
        if self._collecting is not None:
            self._drop_held(self._collecting, "stopped")
        turn = self._answering
        if turn is not None and turn.answer is not None:
            self._cut(turn, turn.answer, None, "stopped")
        for t in list(self._cutting):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(t), 5.0)
        for b in (self._vad_in, self._asr_in, self._ptt_in):
            if b is not None and not b.ended:
                b.done()
        if self._prefill_task is not None:
            self._prefill_task.cancel()
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(BaseException):
                await t
        self._tasks.clear()
        for u in self._unsubs:
            u()
        self._unsubs.clear()
        if self._fallback_off is not None:
            self._fallback_off.cancel()
        if self._fallback is not None:
            self._fallback.speaking(False)
        self._store_q.put_nowait(None)
        if self._writer is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._writer, 10.0)
        self._set_state(LoopState.IDLE, "stopped")
        if self._stopped is not None and not self._stopped.done():
            self._stopped.set_result(None)
        self._bus.close()

    def _spawn(self, coro: Any, name: str) -> None:
        self._tasks.append(asyncio.get_running_loop().create_task(coro, name=name))

    def _fatal(self, kind: ErrorKind, message: str) -> None:
        log.error("%s", message)
        self._emit(LoopError(kind=kind, message=message, recoverable=False))
        self._set_state(LoopState.ERROR, message)
        if self._stopped is not None and not self._stopped.done():
            self._stopped.set_result(None)

    # -- events ------------------------------------------------------------------------
    def _emit(self, ev: Event) -> None:
        # events are frozen for subscribers; the loop stamps ``at`` once, before publishing
        object.__setattr__(ev, "at", self._clock())
        self._bus.publish(ev)

    def _error(self, kind: ErrorKind, message: str, turn_id: str = "", *, level: int = logging.WARNING) -> None:
        log.log(level, "%s", message)
        self._emit(LoopError(kind=kind, message=message, recoverable=True, turn_id=turn_id))

    def _set_state(self, state: LoopState, reason: str = "") -> None:
        if state == self._state:
            return
        prev, self._state = self._state, state
        log.debug("state %s → %s (%s)", prev, state, reason)
        self._emit(StateChanged(state=state, previous=prev, reason=reason))

    def _settle_state(self, reason: str) -> None:
        """The state that follows from what is going on (after a turn or utterance changed)."""
        if not self._running:
            return
        if self._answering is not None and self._answering.answer is not None:
            st = LoopState.SPEAKING if self._answering.answer.started_playing else LoopState.THINKING
        elif self._routes or self._ptt is not None:
            st = LoopState.HEARING
        elif self._collecting is not None and self._collecting.utterances:
            st = LoopState.THINKING
        elif self._muted:
            st = LoopState.IDLE
        else:
            st = LoopState.LISTENING
        self._set_state(st, reason)

    # -- capture -------------------------------------------------------------------------
    async def _pump_capture(self, capture: Stream) -> None:
        assert self._vad_in is not None
        preroll_max = 32 * self.config.ptt_preroll_ms
        try:
            while True:
                try:
                    c = await capture.next()
                except Done:
                    break
                part = c.part
                if not isinstance(part, Blob) or not part.data:
                    continue
                now = self._clock()
                lvl = self._meter.feed(part.data, now)
                if lvl is not None:
                    self._emit(InputLevel(dbfs=lvl))
                data = part.data
                if (self._echo is not None or self._gate is not None) and part.mime == L16_16K:
                    t_cap = c.timestamp / 1000.0 if c.timestamp else now - len(data) / 32000.0
                    if self._echo is not None:
                        data = self._echo.process(data, t_cap)
                    if self._gate is not None:
                        data = self._gate.process(data, t_cap, raw=part.data if self._echo is not None else None)
                for tap in self.mic_taps:
                    tap(part.data, data, c.timestamp / 1000.0 if c.timestamp else now)
                if self._muted:
                    data = bytes(len(data))
                if not data:
                    continue
                chunk = MessageChunk.blob(part.mime, data, role=Role.USER, stream_id="mic", timestamp=c.timestamp)
                if not self._vad_in.ended:
                    self._vad_in.push(chunk)
                self._preroll.append(chunk)
                self._preroll_bytes += len(data)
                while self._preroll_bytes > preroll_max and len(self._preroll) > 1:
                    self._preroll_bytes -= _blob_len(self._preroll.popleft())
                ptt = self._ptt
                if ptt is not None:
                    self._ptt_push(MessageChunk.blob(part.mime, data, role=Role.USER, stream_id=self._ptt_sid(ptt), timestamp=c.timestamp))
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if self._running:
                self._fatal(ErrorKind.DEVICE, f"the microphone stream failed: {e}")
            return
        if self._running:
            self._error(ErrorKind.DEVICE, "the microphone stream ended; typed messages still work")

    # -- VAD / speech routes ------------------------------------------------------------------
    def _on_vad_event(self, ev: Any) -> None:
        kind = getattr(ev, "kind", "")
        sid = str(getattr(ev, "stream_id", ""))
        ts = int(getattr(ev, "timestamp", 0) or 0)
        t = ts / 1000.0 if ts > 0 else self._clock()
        if kind == "start":
            # the event's timestamp is the start of the pre-roll; the onset is the first voiced frame
            # the detector needed, i.e. onset_delay before the decision (which is now)
            self._vad_timing()  # the echo fallback may have retuned the VAD
            t = self._clock() - self._onset_delay_s
            if not self._running or self._mode is not Mode.HANDS_FREE or self._muted or sid in self._routes:
                self._ignored.add(sid)
                return
            if not self._admit_speech(t, "speech onset"):
                self._ignored.add(sid)
                return
            self._routes[sid] = self._open_route(sid, "vad", t)
        elif kind == "end":
            ended = self._routes.get(sid)
            if ended is not None and ended.open:
                ended.turn.timeline.mark("speech_end", t - self._end_silence_s)

    def _admit_speech(self, onset: float, why: str) -> bool:
        """New user speech: barge in on a running answer, or refuse it (barge-in off)."""
        turn = self._answering
        if turn is None or turn.answer is None or turn.answer.finished:
            return True
        if not self.config.barge_in:
            log.info("%s while the assistant speaks ignored (barge-in is off)", why)
            return False
        self._cut(turn, turn.answer, onset, why)
        return True

    def _open_route(self, sid: str, source: str, t: float) -> SpeechRoute:
        turn = self._collecting
        if turn is None:
            turn = self._new_turn()
            self._collecting = turn
        turn.timeline.mark("speech_start", t)
        route = SpeechRoute(sid, turn, source)
        turn.routes.append(route)
        self._emit(SpeechStarted(turn_id=turn.turn_id))
        self._set_state(LoopState.HEARING, "speech")
        return route

    def _new_turn(self, typed: bool = False) -> Turn:
        self._turn_seq += 1
        return Turn(f"t{self._turn_seq}", self._conversation_id, TurnTimeline(f"t{self._turn_seq}"), self._wall(), typed=typed)

    async def _read_vad(self, vad_out: Stream) -> None:
        try:
            while True:
                try:
                    c = await vad_out.next()
                except Done:
                    break
                self._route_chunk(c, self._routes.get(c.stream_id), c.stream_id)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if self._running:
                self._fatal(ErrorKind.INTERNAL, f"the VAD failed: {e}")
            return
        if self._running:
            self._fatal(ErrorKind.INTERNAL, "the VAD stream ended unexpectedly")

    def _route_chunk(self, c: MessageChunk, route: SpeechRoute | None, sid: str) -> None:
        """One chunk of a speech route (VAD or trimmed push-to-talk output) → the ASR."""
        asr_in = self._asr_in
        if asr_in is None or asr_in.ended:
            return
        if sid in self._ignored:
            if c.is_end_of_stream() and c.is_control_only():
                self._ignored.discard(sid)
            return
        if route is None or not route.open:
            return
        if c.is_begin_of_stream() and c.is_control_only():
            if route.current is None:
                self._start_asr_route(route, c.timestamp)
            return
        part = c.part
        if isinstance(part, Blob) and part.data:
            route.audio_bytes += len(part.data)
            self._forward_audio(route, part.mime, part.data, c.timestamp)
            if route.audio_bytes >= self.config.max_utterance_s * 32000 and not route.capped:
                route.capped = True
                cap = f"{self.config.max_utterance_s:.0f} s"
                self._error(ErrorKind.INPUT, f"that was more than {cap} of speech; answering the first {cap}", route.turn.turn_id)
                self._ignored.add(sid)
                self._close_route(route, c.timestamp)
            return
        if c.is_end_of_stream() and c.is_control_only():
            self._close_route(route, c.timestamp, error=c.error)

    def _forward_audio(self, route: SpeechRoute, mime: str, data: bytes, ts: int) -> None:
        """Send audio to the route's ASR route; at a pause ask for the transcript so far (see :meth:`_flush_asr`)."""
        if route.current is None:
            self._start_asr_route(route, ts)
        self._push_asr(route, MessageChunk.blob(mime, data, role=Role.USER, label=UTTERANCE, timestamp=ts))
        early = self.config.early_asr_ms if route.source == "vad" and mime == L16_16K else 0
        if not early:
            return
        x = np.frombuffer(data[: len(data) - len(data) % 2], dtype="<i2")
        for i in range(0, x.size - FRAME + 1, FRAME):
            db = frame_db(x[i : i + FRAME])
            route.peak_db = max(route.peak_db, db)
            quiet_below = max(-50.0, route.peak_db - 25.0)
            if db < quiet_below:
                route.quiet_ms += 10.0
                continue
            route.quiet_ms = 0.0
            if route.flushed:
                self._speech_resumed(route)
            if db >= quiet_below + 6.0:
                route.voiced_ms += 10.0
        if not route.flushed and route.quiet_ms >= early and route.voiced_ms >= 100.0:
            self._flush_asr(route)

    def _flush_asr(self, route: SpeechRoute) -> None:
        """A pause: the ASR decodes what it has (``provisional`` text, used to start the answer early, held)
        and, if the pause turns out to end the turn, serves the final from that same decode."""
        u = route.current
        asr_in = self._asr_in
        if u is None or asr_in is None or asr_in.ended:
            return
        route.flushed = True
        route.voiced_ms = 0.0
        u.flushed_bytes = u.bytes_sent
        u.provisional = ""
        asr_in.push(MessageChunk(role=Role.USER, ctrl=StreamCtrl(stream_id=u.sid, label=FLUSH)))

    def _speech_resumed(self, route: SpeechRoute) -> None:
        route.flushed = False
        u = route.current
        if u is not None:
            u.flushed_bytes = -1
            u.provisional = ""
        self._drop_held(route.turn, "the user went on talking")

    def _push_asr(self, route: SpeechRoute, chunk: MessageChunk) -> None:
        u = route.current
        asr_in = self._asr_in
        if u is None or asr_in is None or asr_in.ended:
            return
        c = chunk.copy()
        c.ensure_ctrl().stream_id = u.sid
        u.bytes_sent += _blob_len(chunk)
        asr_in.push(c)

    def _start_asr_route(self, route: SpeechRoute, ts: int) -> None:
        asr_in = self._asr_in
        if asr_in is None or asr_in.ended:
            return
        self._drop_held(route.turn, "more speech in the turn")
        u = Utterance(new_stream_id(), route.turn, route.source)
        route.turn.utterances.append(u)
        route.current = u
        route.voiced_ms = 0.0
        route.flushed = False
        self._utterances[u.sid] = u
        asr_in.push(MessageChunk.bos(u.sid, role=Role.USER, label=UTTERANCE, timestamp=ts))

    def _end_asr_route(self, route: SpeechRoute, ts: int, error: str = "") -> None:
        u = route.current
        if u is None:
            return
        route.current = None
        u.open = False
        asr_in = self._asr_in
        if asr_in is not None and not asr_in.ended:
            asr_in.push(MessageChunk.eos(u.sid, role=Role.USER, label=UTTERANCE, error=error, timestamp=ts))
        asyncio.get_running_loop().call_later(self.config.asr_timeout_s, self._asr_overdue, u)

    def _close_route(self, route: SpeechRoute, ts: int, error: str = "") -> None:
        if not route.open:
            return
        self._end_asr_route(route, ts, error)
        route.open = False
        if self._routes.get(route.sid) is route:
            del self._routes[route.sid]
        t = ts / 1000.0 if ts > 0 else self._clock()
        tl = route.turn.timeline
        if tl.speech_end is None or route.capped:
            tl.mark("speech_end", t - (self._end_silence_s if route.source == "vad" and not route.capped else 0.0))
        self._emit(SpeechEnded(turn_id=route.turn.turn_id))
        self._settle_state("end of speech")
        self._maybe_answer(route.turn)

    def _asr_overdue(self, u: Utterance) -> None:
        if u.transcribed or not self._running:
            return
        self._utterances.pop(u.sid, None)
        u.transcribed = True
        u.error = "timeout"
        self._error(ErrorKind.ASR, f"no transcript within {self.config.asr_timeout_s:.0f} s; listening again", u.turn.turn_id)
        self._maybe_answer(u.turn)

    # -- push-to-talk ---------------------------------------------------------------------
    def push_to_talk_down(self) -> None:
        if not self._running or self._ptt is not None:
            return
        if self._muted:
            self._error(ErrorKind.INPUT, "the microphone is muted; unmute to talk", level=logging.INFO)
            return
        now = self._clock()
        if not self._admit_speech(now, "push-to-talk"):
            self._error(ErrorKind.INPUT, "barge-in is off: wait for the answer to finish", level=logging.INFO)
            return
        sid = new_stream_id()
        route = self._open_route(sid, "ptt", now)
        self._ptt = route
        bos = MessageChunk.bos(sid, role=Role.USER, timestamp=int(now * 1000))
        if self._ptt_in is not None:
            self._ptt_pending.append(route)
            self._ptt_in.push(bos)
        else:
            self._routes[sid] = route
            self._route_chunk(bos, route, sid)
        for c in list(self._preroll):
            if isinstance(c.part, Blob):
                self._ptt_push(MessageChunk.blob(c.part.mime, c.part.data, role=Role.USER, stream_id=sid, timestamp=c.timestamp))

    def push_to_talk_up(self) -> None:
        route = self._ptt
        if route is None:
            return
        self._ptt = None
        now = self._clock()
        route.turn.timeline.mark("speech_end", now)
        if self._ptt_in is not None:
            self._ptt_in.push(MessageChunk.eos(self._ptt_sid(route), role=Role.USER, timestamp=int(now * 1000)))
        else:
            self._close_route(route, int(now * 1000))

    def _ptt_sid(self, route: SpeechRoute) -> str:
        """The id push-to-talk audio is sent under: the press's own id (the trimmer renames its output route)."""
        return route.ptt_sid or route.sid

    def _ptt_push(self, c: MessageChunk) -> None:
        if self._ptt_in is not None:
            if not self._ptt_in.ended:
                self._ptt_in.push(c)
        else:
            self._route_chunk(c, self._routes.get(c.stream_id), c.stream_id)

    async def _read_ptt(self, ptt_out: Stream) -> None:
        try:
            while True:
                try:
                    c = await ptt_out.next()
                except Done:
                    break
                sid = c.stream_id
                route = self._routes.get(sid)
                if route is None and c.is_begin_of_stream() and self._ptt_pending:
                    route = self._ptt_pending.popleft()
                    if route.open:
                        route.ptt_sid, route.sid = route.sid, sid
                        self._routes[sid] = route
                self._route_chunk(c, route, sid)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if self._running:
                self._fatal(ErrorKind.INTERNAL, f"the push-to-talk trimmer failed: {e}")

    # -- ASR -------------------------------------------------------------------------------
    async def _read_asr(self, asr_out: Stream) -> None:
        try:
            while True:
                try:
                    c = await asr_out.next()
                except Done:
                    break
                u = self._utterances.get(c.stream_id)
                if u is None:
                    continue
                part = c.part
                if isinstance(part, Text):
                    if c.label == PROVISIONAL:
                        meta = c.meta if isinstance(c.meta, dict) else {}
                        # only the transcript of the latest flush, and only while the pause lasts
                        if u.open and u.flushed_bytes >= 0 and meta.get("audio_ms") == u.flushed_bytes // 32:
                            u.provisional = part.text.strip()
                            self._maybe_answer(u.turn)
                    elif c.label == FINAL:
                        u.text = part.text.strip()
                        u.turn.timeline.mark("asr_final", self._clock())
                    elif c.label == PARTIAL and part.text.strip() and part.text.strip() != u.partial:
                        u.partial = part.text.strip()
                        self._emit(UserPartial(turn_id=u.turn.turn_id, text=u.turn.heard_so_far(u.partial)))
                if c.is_end_of_stream() and c.is_control_only():
                    self._utterances.pop(c.stream_id, None)
                    u.transcribed = True
                    if c.error:
                        u.error = c.error
                        self._error(ErrorKind.ASR, f"speech recognition failed: {c.error}", u.turn.turn_id)
                    self._maybe_answer(u.turn)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if self._running:
                self._fatal(ErrorKind.ASR, f"speech recognition stopped: {e}")
            return
        if self._running:
            self._fatal(ErrorKind.ASR, "the speech recognition stream ended unexpectedly")

    def _maybe_answer(self, turn: Turn) -> None:
        if turn is not self._collecting:
            return
        if turn.waiting_for_words():
            self._maybe_preempt(turn)
            return
        self._collecting = None
        text = turn.heard_so_far()
        held = turn.answer if turn.answer is not None and turn.answer.held else None
        if held is not None and (held.prompt != text or held.finished):
            self._drop_held(turn, "the transcript changed")
            held = None
        if not text:
            if not any(u.error for u in turn.utterances):
                self._error(ErrorKind.INPUT, "heard something but no words; listening again", turn.turn_id, level=logging.INFO)
            self._settle_state("nothing recognised")
            return
        turn.user_text = text
        self._emit(UserFinal(turn_id=turn.turn_id, text=text))
        if held is not None:
            self._commit_held(turn, held)
        else:
            self._start_answer(turn)

    def _maybe_preempt(self, turn: Turn) -> None:
        """The user paused and the ASR has every word so far, but the VAD still waits for the end of the turn:
        start the answer, held (:meth:`_commit_held` when the turn ends as assumed, :meth:`_drop_held` if not)."""
        if not self.config.preemptive_generation or not self._running or turn.answer is not None:
            return
        open_routes = [r for r in turn.routes if r.open]
        if not open_routes or any(r.source != "vad" or not r.flushed for r in open_routes):
            return
        pending = [u for u in turn.utterances if not u.transcribed]
        if any(not u.open or not u.provisional for u in pending):
            return
        text = join_segments([u.text if u.transcribed else u.provisional for u in turn.utterances])
        if not text:
            return
        turn.preempted += 1
        turn.timeline.preemptive = True
        self._start_answer(turn, held=True, prompt=text)

    def _commit_held(self, turn: Turn, ans: Answer) -> None:
        """The turn ended as the held answer assumed: it becomes the answer, its audio goes to the player."""
        prev = self._answering
        if prev is not None and prev is not turn and prev.answer is not None:
            self._cut(prev, prev.answer, None, "a newer question")
        ans.held = False
        self._answering = turn
        text = ans.full_text()
        if ans.error:
            self._error(ErrorKind.GENERATOR, f"the answer failed: {ans.error}", turn.turn_id)
        if ans.generated:
            self._emit(AssistantDelta(turn_id=turn.turn_id, text="".join(ans.generated)))
        log.debug("turn %s: preemptive answer committed (%d characters ready)", turn.turn_id, len(text))
        if ans.audio is not None:
            self._player.play(ans.audio)
        elif ans.run_done:
            self._finish_answer(turn, ans, interrupted=False)  # nothing to play (an error or an empty answer)
            return
        self._set_state(LoopState.THINKING, "answering")
        self._arm_watchdog(turn, ans)

    def _drop_held(self, turn: Turn, why: str) -> None:
        """Forget the held answer of ``turn``: nothing of it was played, nothing is recorded."""
        ans = turn.answer
        if ans is None or not ans.held:
            return
        turn.answer = None
        ans.finished = ans.interrupted = True
        if ans.watchdog is not None:
            ans.watchdog.cancel()
        self._answers.pop(ans.route_id, None)
        turn.timeline.clear("generation_start", "first_token", "first_audio")
        turn.timeline.preemptive = False
        log.debug("turn %s: preemptive answer dropped (%s)", turn.turn_id, why)
        if ans.task is not None and not ans.task.done():
            ans.task.cancel()  # its finally closes the generation
        if ans.audio is not None:
            ans.audio.cut()  # closes the TTS stream: synthesis stops

    # -- typed input and other commands ---------------------------------------------------------
    def send_text(self, text: str) -> None:
        text = text.strip()
        if not self._running:
            return
        if not text:
            self._error(ErrorKind.INPUT, "empty message ignored", level=logging.INFO)
            return
        turn = self._new_turn(typed=True)
        turn.user_text = text
        turn.timeline.mark("asr_final", self._clock())
        self._emit(UserFinal(turn_id=turn.turn_id, text=text, typed=True))
        self._start_answer(turn)

    def stop_speaking(self) -> None:
        turn = self._answering
        if turn is not None and turn.answer is not None:
            self._cut(turn, turn.answer, self._clock(), "stop speaking")

    def new_conversation(self) -> None:
        turn = self._answering
        if turn is not None and turn.answer is not None:
            self._cut(turn, turn.answer, None, "new conversation")
        if self._collecting is not None:
            self._drop_held(self._collecting, "new conversation")
            for u in self._collecting.utterances:
                self._utterances.pop(u.sid, None)
            for r in self._collecting.routes:
                if r.open and self._routes.get(r.sid) is r:
                    del self._routes[r.sid]
                    self._ignored.add(r.sid)
                r.open = False
            self._collecting = None
        if self._ptt is not None:
            self.push_to_talk_up()
        self._history.clear()
        self._schedule_prefill()
        self._conversation_id = new_conversation_id()
        self._emit(ConversationStarted(conversation_id=self._conversation_id))
        self._settle_state("new conversation")

    def load_conversation(self, conversation_id: str) -> None:
        """Continue a stored conversation (its turns become the history)."""
        if self._store is None:
            self._error(ErrorKind.STORE, "no conversation store configured")
            return
        try:
            records = self._store.load(conversation_id)
        except (ConversationStoreError, GenxError) as e:
            self._error(ErrorKind.STORE, str(e))
            return
        self.new_conversation()
        self._conversation_id = conversation_id
        self._history.add_records(records)
        self._schedule_prefill()
        self._emit(ConversationStarted(conversation_id=conversation_id))

    def set_mode(self, mode: Mode | str) -> None:
        try:
            m = Mode.parse(mode)
        except ValueError as e:
            self._error(ErrorKind.CONFIG, str(e))
            return
        if m is self._mode:
            return
        if self._ptt is not None:
            self.push_to_talk_up()
        self._mode = m
        self._emit(ModeChanged(mode=m))

    def mute(self, muted: bool) -> None:
        if muted == self._muted:
            return
        self._muted = muted
        if muted and self._ptt is not None:
            self.push_to_talk_up()
        self._emit(MuteChanged(muted=muted))
        self._settle_state("muted" if muted else "unmuted")

    def set_generator(self, name: str) -> None:
        name = name.strip()
        resolve = getattr(self._generator, "resolve", None)
        if callable(resolve):
            try:
                resolve(name)
            except Exception as e:
                self._error(ErrorKind.CONFIG, f"cannot answer with generator {name!r}: {e}")
                return
        self._generator_name = name
        self._emit(GeneratorChanged(name=name))

    # -- the answer ---------------------------------------------------------------------------
    def _start_answer(self, turn: Turn, *, held: bool = False, prompt: str = "") -> None:
        """Answer ``turn.user_text``; ``held``: answer ``prompt`` before the turn ended (see :meth:`_maybe_preempt`)."""
        ans = Answer(new_stream_id(), SegmentRecorder(clock=self._clock), self._generator_name, held=held, prompt=prompt or turn.user_text)
        turn.answer = ans
        if not held:
            prev = self._answering
            if prev is not None and prev.answer is not None:
                self._cut(prev, prev.answer, None, "a newer question")
            self._answering = turn
            self._set_state(LoopState.THINKING, "answering")
        self._answers[ans.route_id] = (turn, ans)
        ans.task = asyncio.get_running_loop().create_task(self._run_answer(turn, ans), name=f"voice-loop-answer-{turn.turn_id}")
        self._arm_watchdog(turn, ans)

    async def _run_answer(self, turn: Turn, ans: Answer) -> None:
        tl = turn.timeline
        try:
            while self._cutting:  # history must hold the previous (cut) answer first
                await asyncio.gather(*self._cutting, return_exceptions=True)
            ctx = self._history.context(ans.prompt, system_prompt=self.config.system_prompt, params=self.config.params)
            tl.mark("generation_start", self._clock())
            ans.gen = await _shielded_open(self._generator.generate_stream(ans.generator, ctx))
            ans.text_in = StreamBuilder()
            inner = await _shielded_open(self._speech.speak(ans.text_in.stream, ans.recorder))
            audio = AnswerAudio(ans.route_id, inner, on_pull=self._on_pull, on_end=self._on_audio_end)
            audio.keep_far = bool(self._far_ends)
            ans.audio = audio
            if not ans.held:
                self._player.play(audio)
            while True:
                try:
                    c = await ans.gen.next()
                except Done:
                    break
                except Truncated:
                    log.info("turn %s: the answer was truncated (max tokens)", turn.turn_id)
                    break
                part = c.part
                if isinstance(part, Text) and part.text:
                    tl.mark("first_token", self._clock())
                    ans.generated.append(part.text)
                    if not ans.held:
                        self._emit(AssistantDelta(turn_id=turn.turn_id, text=part.text))
                    ans.text_in.push(MessageChunk.text(part.text, role=Role.ASSISTANT, stream_id=ans.route_id))
                    self._arm_watchdog(turn, ans)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            ans.error = _describe(e)
            if not ans.held:  # (a held answer's error is reported when it is committed)
                self._error(ErrorKind.GENERATOR, f"the answer failed: {ans.error}", turn.turn_id)
        finally:
            ans.run_done = True
            gen = ans.gen
            if gen is not None:
                with contextlib.suppress(Exception):
                    await gen.close()
            b = ans.text_in
            if b is not None and not b.ended and not ans.interrupted:
                b.push(MessageChunk.eos(ans.route_id, Text(""), role=Role.ASSISTANT))
                b.done()
        if ans.audio is None and not ans.finished and not ans.held:
            self._finish_answer(turn, ans, interrupted=False)

    def _arm_watchdog(self, turn: Turn, ans: Answer) -> None:
        if ans.watchdog is not None:
            ans.watchdog.cancel()
        if ans.finished:
            return
        ans.watchdog = asyncio.get_running_loop().call_later(self.config.answer_timeout_s, self._answer_stalled, turn, ans)

    def _answer_stalled(self, turn: Turn, ans: Answer) -> None:
        if ans.finished:
            return
        if ans.held:
            self._drop_held(turn, "no progress")
            return
        ans.error = ans.error or f"no progress for {self.config.answer_timeout_s:.0f} s"
        self._error(ErrorKind.GENERATOR, f"the answer stalled ({ans.error}); giving up", turn.turn_id)
        self._cut(turn, ans, None, "stalled")

    def _on_pull(self, audio: AnswerAudio, c: MessageChunk) -> None:
        entry = self._answers.get(audio.stream_id)
        if entry is None:
            return
        turn, ans = entry
        if isinstance(c.part, Blob) and c.part.data:
            turn.timeline.mark("first_audio", ans.recorder.first_audio_at or self._clock())
            self._arm_watchdog(turn, ans)
        if c.is_end_of_stream() and c.error and not ans.interrupted and not ans.error:
            # the TTS ended the route with an error (the stream raises it next)
            ans.error = c.error
            self._error(ErrorKind.TTS, f"speech synthesis failed: {c.error}", turn.turn_id)

    def _on_audio_end(self, audio: AnswerAudio, exc: BaseException | None) -> None:
        entry = self._answers.get(audio.stream_id)
        if entry is None:
            return
        turn, ans = entry
        if ans.finished or ans.interrupted:
            return
        if exc is not None and not ans.error:
            ans.error = _describe(exc)
            self._error(ErrorKind.TTS, f"speech synthesis failed: {ans.error}", turn.turn_id)
        if not audio.saw_open:
            # no audio route reached the player: nothing will be played
            self._finish_answer(turn, ans, interrupted=False)

    def _on_played(self, pos: Any) -> None:
        sid = str(pos.stream_id)
        entry = self._answers.get(sid)
        if entry is None:
            return
        turn, ans = entry
        if ans.finished:
            return
        rate = int(pos.rate or 0)
        played = int(pos.samples_played)
        heard = int(pos.samples_heard)
        now = self._clock()
        if rate:
            ans.rate = rate
        if played > 0 and not ans.started_playing:
            ans.started_playing = True
            tl = turn.timeline
            tl.mark("first_played", now)
            audible_at = float(getattr(pos, "audible_at", 0.0) or 0.0)
            if audible_at > 0 and rate:
                tl.output_latency = max(0.0, audible_at - played / rate - now)
            else:
                tl.output_latency = max(0.0, float(getattr(self._player, "latency", 0.0) or 0.0))
            self._echo_speaking(True)
            self._set_state(LoopState.SPEAKING, "first audio")
        self._feed_far(ans, pos, played)
        ans.played_samples = max(ans.played_samples, played)
        ans.heard_samples = max(ans.heard_samples, heard)
        self._arm_watchdog(turn, ans)
        spoken = self._in_generated_words(ans.full_text(), ans.recorder.spoken(ans.heard_samples * 2))
        if spoken != ans.spoken:
            ans.spoken = spoken
            self._emit(AssistantSpoken(turn_id=turn.turn_id, spoken_text=spoken))

    def _feed_far(self, ans: Answer, pos: Any, played: int) -> None:
        audio = ans.audio
        if not self._far_ends or audio is None or not ans.rate or played <= ans.played_samples:
            return
        pcm = audio.take_far(ans.played_samples * 2, played * 2)
        if not pcm:
            return
        rs = self._far_rs.get(ans.route_id)
        if rs is None or rs.rate != ans.rate:
            rs = self._far_rs[ans.route_id] = Resampler16k(ans.rate)
        x = rs(pcm)
        audible_at = float(getattr(pos, "audible_at", 0.0) or 0.0)
        if audible_at <= 0:
            audible_at = self._clock() + float(getattr(self._player, "latency", 0.0) or 0.0)
        for fe in self._far_ends:
            fe.played(x, audible_at - x.size / 16000.0)

    def _on_route_end(self, pos: Any) -> None:
        entry = self._answers.get(str(pos.stream_id))
        if entry is None:
            return
        turn, ans = entry
        if ans.finished or ans.interrupted:
            return
        ans.played_samples = max(ans.played_samples, int(pos.samples_played))
        if bool(getattr(pos, "interrupted", False)):
            # cut by an upstream error or by the output itself (not by the user): keep what was heard
            ans.heard_samples = max(ans.heard_samples, int(pos.samples_heard))
            if not ans.error:
                ans.error = "playback stopped"
                self._error(ErrorKind.PLAYER, "playback of the answer stopped early", turn.turn_id)
            self._finish_answer(turn, ans, interrupted=False, spoken=ans.recorder.spoken(ans.heard_samples * 2))
            return
        self._finish_answer(turn, ans, interrupted=False)

    def _echo_speaking(self, on: bool) -> None:
        fb = self._fallback
        if fb is None:
            return
        if self._fallback_off is not None:
            self._fallback_off.cancel()
            self._fallback_off = None
        if on:
            fb.speaking(True)
        else:
            tail = self.config.echo_tail_s + float(getattr(self._player, "latency", 0.0) or 0.0)
            self._fallback_off = asyncio.get_running_loop().call_later(tail, fb.speaking, False)

    # -- barge-in / cut ---------------------------------------------------------------------------
    def _cut(self, turn: Turn, ans: Answer, onset: float | None, why: str) -> None:
        """End ``ans`` now, keeping what was heard (see the module docstring)."""
        if ans.finished or ans.interrupted:
            return
        ans.interrupted = True
        if self._answering is turn:
            self._answering = None
        if onset is not None:
            turn.timeline.mark("barge_in", onset)
            if self._gate is not None:
                self._gate.forget_recent()  # the audio that barged in was the user, not echo
        self._set_state(LoopState.INTERRUPTED, why)
        if ans.task is not None and not ans.task.done():
            ans.task.cancel()  # (3) generation: its stream is closed in the task's finally
        t = asyncio.get_running_loop().create_task(self._do_cut(turn, ans, onset, why), name=f"voice-loop-cut-{turn.turn_id}")
        self._cutting.add(t)
        t.add_done_callback(self._cutting.discard)

    async def _do_cut(self, turn: Turn, ans: Answer, onset: float | None, why: str) -> None:
        positions: Any = {}
        audio = ans.audio
        try:
            if audio is not None:
                try:
                    positions = await self._player.stop(discard=True)  # (1)
                except Exception as e:
                    self._error(ErrorKind.PLAYER, f"could not stop playback: {e}", turn.turn_id)
                t_stop = self._clock()
                turn.timeline.mark("playback_stopped", t_stop)
                for fe in self._far_ends:
                    fe.truncate(t_stop)  # the discarded audio will never be heard: it is no echo source
                if self._gate is not None and onset is not None:
                    self._gate.forget_recent()
                try:
                    self._speech.interrupt(audio.inner, ans.route_id)  # (2)
                except Exception:
                    log.exception("TTS interrupt failed")
                audio.cut()  # (4) closes the TTS stream: synthesis stops
            else:
                t_stop = self._clock()
                turn.timeline.mark("playback_stopped", t_stop)
            pos = positions.get(ans.route_id) if hasattr(positions, "get") else None
            if pos is not None:
                ans.heard_samples = max(ans.heard_samples, int(pos.samples_heard))
                ans.played_samples = max(ans.played_samples, int(pos.samples_played))
            if onset is not None:
                latency = max(0.0, (t_stop - onset) * 1000.0)
                self._emit(BargeIn(turn_id=turn.turn_id, latency_ms=round(latency, 1)))
                log.info("turn %s: barge-in (%s), playback stopped %.0f ms after onset", turn.turn_id, why, latency)
            if ans.task is not None and not ans.task.done():
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(asyncio.shield(ans.task), 5.0)
        finally:
            self._finish_answer(turn, ans, interrupted=True, spoken=ans.recorder.spoken(ans.heard_samples * 2))
            if audio is not None:
                with contextlib.suppress(Exception):
                    await audio.wait_closed()

    @staticmethod
    def _in_generated_words(generated: str, spoken: str) -> str:
        """The heard segments' text as a prefix of the generated answer (its own wording); see spoken.generated_prefix."""
        if not spoken:
            return ""
        mapped = generated_prefix(generated, spoken)
        return mapped if mapped else spoken

    def _finish_answer(self, turn: Turn, ans: Answer, *, interrupted: bool, spoken: str | None = None) -> None:
        """``spoken``: the heard text when only part of the answer was heard (else the whole answer counts)."""
        if ans.finished:
            return
        ans.finished = True
        if ans.watchdog is not None:
            ans.watchdog.cancel()
        if self._answering is turn:
            self._answering = None
        self._answers.pop(ans.route_id, None)
        self._far_rs.pop(ans.route_id, None)
        full = ans.full_text()
        kept = full if spoken is None else self._in_generated_words(full, spoken)
        tl = turn.timeline
        tl.mark("answer_end", self._clock())
        tl.interrupted = interrupted
        if spoken is None and kept and kept != ans.spoken:
            ans.spoken = kept
            self._emit(AssistantSpoken(turn_id=turn.turn_id, spoken_text=kept))
        self._emit(AssistantDone(turn_id=turn.turn_id, text=full, interrupted=interrupted, spoken_text=kept, error=ans.error))
        if turn.conversation_id == self._conversation_id:
            self._history.add(turn.user_text, kept, interrupted=interrupted)
            self._schedule_prefill()
        metrics = tl.to_event()
        self._emit(metrics)
        log.info("%s", format_metrics(metrics))
        self.turns_done += 1
        if self._store is not None:
            rec = TurnRecord(
                turn_id=turn.turn_id,
                user_text=turn.user_text,
                assistant_text=kept,
                interrupted=interrupted,
                generated_text=full,
                typed=turn.typed,
                error=ans.error,
                generator=ans.generator,
                started_at=turn.started_wall,
                timings={k: v for k, v in _metrics_dict(metrics).items() if v is not None},
            )
            self._store_q.put_nowait((turn.conversation_id, rec))
        self._echo_speaking(False)
        self._settle_state("answer done")

    def _schedule_prefill(self) -> None:
        """Let the generator evaluate the conversation so far while the user listens (see LlamaCppGenerator.prefill)."""
        fn = getattr(self._generator, "prefill", None)
        if fn is None or not self._running or not self._generator_name:
            return
        if self._prefill_task is not None and not self._prefill_task.done():
            self._prefill_task.cancel()  # the history changed again: prefill the newer one
        ctx = self._history.context("", system_prompt=self.config.system_prompt, params=self.config.params)
        self._prefill_task = asyncio.get_running_loop().create_task(self._prefill(fn, ctx), name="voice-loop-prefill")

    async def _prefill(self, fn: Callable[[str, Any], Any], ctx: Any) -> None:
        try:
            await fn(self._generator_name, ctx)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # an optimisation only: the answer will evaluate the prompt itself
            log.debug("prompt prefill skipped: %s", e)

    async def _write_store(self) -> None:
        store = self._store
        while True:
            item = await self._store_q.get()
            try:
                if item is None:
                    return
                if store is None:
                    continue
                cid, rec = item
                try:
                    await asyncio.to_thread(store.append, cid, rec)
                except Exception as e:
                    self._error(ErrorKind.STORE, f"could not save the turn: {e}", rec.turn_id)
            finally:
                self._store_q.task_done()

    async def flush_store(self) -> None:
        """Wait until every finished turn is written (tests, shutdown)."""
        await self._store_q.join()


_background: set[asyncio.Future[None]] = set()


async def _shielded_open(coro: Any) -> Stream:
    """Await a stream-opening coroutine; when cancelled meanwhile, close the stream it returns later."""
    t: asyncio.Task[Stream] = asyncio.ensure_future(coro)
    try:
        return await asyncio.shield(t)
    except asyncio.CancelledError:

        def close_later(task: asyncio.Task[Stream]) -> None:
            if task.cancelled() or task.exception() is not None:
                return
            closer = asyncio.ensure_future(task.result().close())
            _background.add(closer)
            closer.add_done_callback(_background.discard)

        t.add_done_callback(close_later)
        raise


def _blob_len(c: MessageChunk) -> int:
    return len(c.part.data) if isinstance(c.part, Blob) else 0


def _describe(e: BaseException) -> str:
    if isinstance(e, Blocked):
        return f"blocked: {e.reason}" if e.reason else "blocked"
    return str(e) or type(e).__name__


def _metrics_dict(m: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in m.__dataclass_fields__:
        if name in ("turn_id", "at"):
            continue
        out[name] = getattr(m, name)
    return out


__all__ = ["DEFAULT_SYSTEM_PROMPT", "LoopConfig", "VoiceLoop"]
