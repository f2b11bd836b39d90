"""The speech router: VAD and push-to-talk routes → the ASR feed, with the pause flush and the utterance cap.

:class:`SpeechRouter` owns the VAD and push-to-talk trimmer streams. Each speech
route (a VAD route, or one push-to-talk press) sends its audio to the ASR as one
utterance (:class:`~genx.agentkit.asr_feed.AsrFeed`). At a short pause
(``early_asr_ms``, hands-free; measured by the route's
:class:`~genx.agentkit.pauses.PauseTracker`) it asks the feed to flush for a
provisional transcript, and voids it when sound returns. Speech longer than
``max_utterance_s`` is cut (the first part is answered).

What a route *means* for the conversation (which turn it joins, barge-in, when
to answer) is asked of the :class:`~genx.agentkit.turns.TurnPort` (the turn
manager).

Does not own: turns and answers (:mod:`.turn_manager`), transcripts
(:mod:`.asr_feed`), microphone processing (:mod:`.mic`).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from collections.abc import Callable
from typing import Any

from genx.agentkit.asr_feed import UTTERANCE, AsrFeed
from genx.agentkit.core import L16_16K, LoopCore
from genx.agentkit.end_of_turn import TurnEndChecker
from genx.agentkit.events import ErrorKind, Mode, SpeechEnded
from genx.agentkit.over_answer import HINT_HOLD_S
from genx.agentkit.ports import EndOfTurnDetector, SpeechDetector, TurnVerdictLike
from genx.agentkit.turns import SpeechRoute, Turn, TurnPort
from genx.chunk import Blob, MessageChunk, Role, StreamCtrl
from genx.ids import new_stream_id
from genx.model import ModelContext
from genx.stream import Stream, StreamBuilder
from genx.transformers import Transformer

log = logging.getLogger("genx.agentkit.loop")

END_UTTERANCE = "end-utterance"  # to the VAD: end the open utterance here (genx.local.vad.END_UTTERANCE)


class SpeechRouter:
    """See the module docstring."""

    def __init__(
        self,
        core: LoopCore,
        turns: TurnPort,
        *,
        vad: SpeechDetector,
        asr: Transformer,
        ptt_vad: SpeechDetector | None,
        turn_detector: EndOfTurnDetector | None = None,
        turn_context: Callable[[], ModelContext] | None = None,
    ) -> None:
        self._core = core
        self._turns = turns
        self._vad = vad
        self._ptt_vad = ptt_vad
        self._feed = AsrFeed(core, turns, asr, context=turn_context)
        self._eot = (
            TurnEndChecker(
                core,
                turn_detector,
                on_complete=self._end_at_pause,
                on_verdict=lambda route: turns.maybe_answer(route.turn),
                context=turn_context,
            )
            if turn_detector is not None
            else None
        )
        self.routes: dict[str, SpeechRoute] = {}  # VAD / trimmed push-to-talk route id → speech route
        self._ignored: set[str] = set()  # VAD routes not sent to the ASR
        self.ptt: SpeechRoute | None = None
        self._ptt_pending: deque[SpeechRoute] = deque()  # presses awaiting their trimmed route
        self._vad_in: StreamBuilder | None = None
        self._ptt_in: StreamBuilder | None = None
        self._end_silence_s = 0.0
        self._onset_delay_s = 0.0

    @property
    def asr_feed(self) -> AsrFeed:
        return self._feed

    @property
    def hearing(self) -> bool:
        """Some speech route is open (the user is talking, or holds the key)."""
        return bool(self.routes) or self.ptt is not None

    async def start(self) -> list[tuple[Any, str]]:
        """Open the VAD, ASR (and trimmer) streams; returns the reader coroutines to run, with task names."""
        tune = getattr(self._vad, "tune", None)
        if self._eot is not None and callable(tune):
            tune(end_silence_ms=self._core.config.max_end_of_turn_ms)  # the detector ends complete turns sooner
        self._vad_timing()
        self._vad_in = StreamBuilder()
        vad_out = await self._vad.transform(self._vad_in.stream, on_speech=self._on_vad_event)
        readers: list[tuple[Any, str]] = [(self._read_vad(vad_out), "voice-loop-vad"), (await self._feed.start(), "voice-loop-asr")]
        if self._ptt_vad is not None:
            self._ptt_in = StreamBuilder()
            ptt_out = await self._ptt_vad.transform(self._ptt_in.stream)
            readers.append((self._read_ptt(ptt_out), "voice-loop-ptt"))
        return readers

    def close_inputs(self) -> None:
        for b in (self._vad_in, self._ptt_in):
            if b is not None and not b.ended:
                b.done()
        self._feed.close()
        if self._eot is not None:
            self._eot.cancel()

    def forget_turn(self, turn: Turn) -> None:
        """Nothing of ``turn``'s speech reaches the turn manager any more (a new conversation)."""
        self._feed.forget(turn)
        for r in turn.routes:
            if r.open and self.routes.get(r.sid) is r:
                del self.routes[r.sid]
                self._ignored.add(r.sid)
            r.open = False

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

    # -- microphone audio in -------------------------------------------------------------------
    def feed_vad(self, chunk: MessageChunk) -> None:
        if self._vad_in is not None and not self._vad_in.ended:
            self._vad_in.push(chunk)

    def feed_ptt(self, mime: str, data: bytes, ts: int) -> None:
        ptt = self.ptt
        if ptt is not None:
            self._ptt_push(MessageChunk.blob(mime, data, role=Role.USER, stream_id=self._ptt_sid(ptt), timestamp=ts))

    # -- VAD routes ----------------------------------------------------------------------------
    def _on_vad_event(self, ev: Any) -> None:
        core = self._core
        kind = getattr(ev, "kind", "")
        sid = str(getattr(ev, "stream_id", ""))
        ts = int(getattr(ev, "timestamp", 0) or 0)
        t = ts / 1000.0 if ts > 0 else core.clock()
        if kind == "start":
            # the event's timestamp is the start of the pre-roll; the onset is the first voiced frame
            # the detector needed, i.e. onset_delay before the decision (which is now)
            self._vad_timing()  # the echo fallback may have retuned the VAD
            t = core.clock() - self._onset_delay_s
            # (while the talk key is down its route has this audio already: one transcript, not two)
            if not core.running or core.mode is not Mode.HANDS_FREE or core.muted or sid in self.routes or self.ptt is not None:
                self._ignored.add(sid)
                return
            if not self._turns.admit_speech(t, "speech onset"):
                self._ignored.add(sid)
                return
            route = self._turns.open_route(sid, "vad", t)
            route.needs_verdict = self._eot is not None
            self.routes[sid] = route
        elif kind == "voice":
            # voiced frames ahead of an onset: the answer ducks now (the turn manager says whether)
            if core.running and core.mode is Mode.HANDS_FREE and not core.muted and self.ptt is None:
                hint = self._turns.voice_hint(core.clock())
                if hint is not None:
                    asyncio.get_running_loop().call_later(HINT_HOLD_S, self._turns.hint_expired, hint)
        elif kind == "end":
            ended = self.routes.get(sid)
            if ended is not None and ended.open:
                ended.turn.timeline.mark("speech_end", t - self._end_silence_s)

    async def _read_vad(self, vad_out: Stream) -> None:
        await self._core.consume(
            vad_out,
            lambda c: self._route_chunk(c, self.routes.get(c.stream_id), c.stream_id),
            kind=ErrorKind.INTERNAL,
            failed="the VAD failed",
            ended="the VAD stream ended unexpectedly",
        )

    def _route_chunk(self, c: MessageChunk, route: SpeechRoute | None, sid: str) -> None:
        """One chunk of a speech route (VAD or trimmed push-to-talk output) → the ASR."""
        if not self._feed.open:
            return
        if sid in self._ignored:
            if c.is_end_of_stream() and c.is_control_only():
                self._ignored.discard(sid)
            return
        if route is None or not route.open:
            return
        if c.is_begin_of_stream() and c.is_control_only():
            if route.current is None:
                self._feed.start_route(route, c.timestamp)
            return
        part = c.part
        if isinstance(part, Blob) and part.data:
            cfg = self._core.config
            route.audio_bytes += len(part.data)
            self._forward_audio(route, part.mime, part.data, c.timestamp)
            if route.turn.audio_bytes() >= cfg.max_utterance_s * 32000 and not route.capped:
                route.capped = route.turn.capped = True
                cap = f"{cfg.max_utterance_s:.0f} s"
                self._core.error(ErrorKind.INPUT, f"that was more than {cap} of speech; answering the first {cap}", route.turn.turn_id)
                self._ignored.add(sid)
                self._close_route(route, c.timestamp)
            return
        if c.is_end_of_stream() and c.is_control_only():
            self._close_route(route, c.timestamp, error=c.error)

    def _forward_audio(self, route: SpeechRoute, mime: str, data: bytes, ts: int) -> None:
        """Send audio to the route's ASR route; at a pause ask for the transcript so far (see :meth:`.AsrFeed.flush`)."""
        if route.current is None:
            self._feed.start_route(route, ts)
        self._feed.push(route, MessageChunk.blob(mime, data, role=Role.USER, label=UTTERANCE, timestamp=ts))
        early = self._core.config.early_asr_ms if route.source == "vad" and mime == L16_16K else 0
        if not early:
            return
        p = route.pauses
        if p.feed(data) and route.flushed:
            self._feed.resumed(route)
            if self._eot is not None:
                self._eot.resumed(route)
        if not route.flushed and p.quiet_ms >= early and p.voiced_ms >= 100.0:
            self._feed.flush(route)
        self._turns.voiced(route)
        if self._eot is not None:
            self._eot.audio(route, data)
            self._eot.maybe_check(route)

    def end_turn(self, turn: Turn) -> None:
        """``turn`` is over (a dismissed backchannel): its open routes end now, at the VAD too."""
        for route in [r for r in turn.routes if r.open]:
            if route.source == "vad" and self._vad_in is not None and not self._vad_in.ended:
                self._vad_in.push(MessageChunk(role=Role.USER, ctrl=StreamCtrl(stream_id="mic", label=END_UTTERANCE)))
            self._close_route(route, 0)

    def _end_at_pause(self, route: SpeechRoute, verdict: TurnVerdictLike) -> None:
        """The detector found the turn complete at this pause: end it now, and the VAD's utterance with it
        (speech after this is a new onset: a barge-in, or the same turn reopened)."""
        if not route.open:
            return
        if self._vad_in is not None and not self._vad_in.ended:
            self._vad_in.push(MessageChunk(role=Role.USER, ctrl=StreamCtrl(stream_id="mic", label=END_UTTERANCE)))
        tl = route.turn.timeline
        tl.ended_early = True
        tl.mark("speech_end", self._core.clock() - route.pauses.quiet_ms / 1000.0)
        self._close_route(route, 0)

    def _close_route(self, route: SpeechRoute, ts: int, error: str = "") -> None:
        if not route.open:
            return
        core = self._core
        self._feed.end_route(route, ts, error)
        route.open = False
        if self.routes.get(route.sid) is route:
            del self.routes[route.sid]
        t = ts / 1000.0 if ts > 0 else core.clock()
        tl = route.turn.timeline
        if tl.speech_end is None or route.capped:
            tl.mark("speech_end", t - (self._end_silence_s if route.source == "vad" and not route.capped else 0.0))
        core.emit(SpeechEnded(turn_id=route.turn.turn_id))
        core.settle("end of speech")
        self._turns.maybe_answer(route.turn)

    # -- push-to-talk ----------------------------------------------------------------------------
    def push_to_talk_down(self, preroll: list[MessageChunk]) -> None:
        core = self._core
        if not core.running or self.ptt is not None:
            return
        if core.muted:
            core.error(ErrorKind.INPUT, "the microphone is muted; unmute to talk", level=logging.INFO)
            return
        now = core.clock()
        if not self._turns.admit_speech(now, "push-to-talk", "ptt"):
            core.error(ErrorKind.INPUT, "barge-in is off: wait for the answer to finish", level=logging.INFO)
            return
        sid = new_stream_id()
        route = self._turns.open_route(sid, "ptt", now)
        self.ptt = route
        bos = MessageChunk.bos(sid, role=Role.USER, timestamp=int(now * 1000))
        if self._ptt_in is not None:
            self._ptt_pending.append(route)
            self._ptt_in.push(bos)
        else:
            self.routes[sid] = route
            self._route_chunk(bos, route, sid)
        if any(r.open and r.source == "vad" for r in route.turn.routes):
            preroll = []  # a hands-free route of this turn already has that audio
        for c in preroll:
            if isinstance(c.part, Blob):
                self._ptt_push(MessageChunk.blob(c.part.mime, c.part.data, role=Role.USER, stream_id=sid, timestamp=c.timestamp))

    def push_to_talk_up(self) -> None:
        route = self.ptt
        if route is None:
            return
        self.ptt = None
        now = self._core.clock()
        route.turn.timeline.mark("speech_end", now)
        if self._ptt_in is not None:
            self._ptt_in.push(MessageChunk.eos(self._ptt_sid(route), role=Role.USER, timestamp=int(now * 1000)))
        else:
            self._close_route(route, int(now * 1000))

    @staticmethod
    def _ptt_sid(route: SpeechRoute) -> str:
        """The id push-to-talk audio is sent under: the press's own id (the trimmer renames its output route)."""
        return route.ptt_sid or route.sid

    def _ptt_push(self, c: MessageChunk) -> None:
        if self._ptt_in is not None:
            if not self._ptt_in.ended:
                self._ptt_in.push(c)
        else:
            self._route_chunk(c, self.routes.get(c.stream_id), c.stream_id)

    async def _read_ptt(self, ptt_out: Stream) -> None:
        await self._core.consume(ptt_out, self._on_trimmed, kind=ErrorKind.INTERNAL, failed="the push-to-talk trimmer failed")

    def _on_trimmed(self, c: MessageChunk) -> None:
        sid = c.stream_id
        route = self.routes.get(sid)
        if route is None and c.is_begin_of_stream() and self._ptt_pending:
            route = self._ptt_pending.popleft()
            if route.open:
                route.ptt_sid, route.sid = route.sid, sid
                self.routes[sid] = route
        self._route_chunk(c, route, sid)


__all__ = ["SpeechRouter"]
