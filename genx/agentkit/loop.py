"""The voice loop: microphone → VAD → ASR → turn manager → generator → TTS → speaker.

:class:`VoiceLoop` is the small facade the app uses: it builds the parts, wires
them, runs their tasks and implements :class:`~genx.agentkit.events.LoopControl`.

Data path and parts::

    capture ─▶ MicFrontEnd (level, echo canceller + gate, mute, pre-roll)        mic.py
            ─▶ SpeechRouter (VAD / push-to-talk routes → ASR utterances,         router.py
                             pause flush, utterance cap, ASR timeouts)
            ─▶ TurnManager (turn open/join, barge-in admission, end of turn,     turn_manager.py
                            held answers: commit / drop)
            ─▶ AnswerRunner (generator → TTS → player, watchdog, ordered cut)    answers.py
    player positions ─▶ HeardTracker (heard text, echo far end)                 heard.py
    finished turns ─▶ Recorder (history, store, metrics, prompt prefill)         recorder.py

They share one :class:`~genx.agentkit.core.LoopCore` (config, clocks, events,
state). Turn taking: the VAD's onset opens an utterance (hands-free);
push-to-talk down/up opens/closes one. An utterance that starts while the turn
still waits for its transcript joins the turn. When every utterance of the turn
is transcribed, the joined text starts the answer with the spoken-only history
as context. An empty transcript is reported (``LoopError(kind=input)``) and the
loop listens again.

Barge-in (onset while an answer runs, push-to-talk down, :meth:`stop_speaking`,
:meth:`send_text`, a newer answer): see :mod:`.answers`. History keeps the words
heard up to the player's ``samples_heard``, marked interrupted. A new answer
waits for the cut of the previous one, so history is always consistent.

Everything runs on the event loop; models run in their transformers' workers.
Hang guards: an answer that makes no progress for ``answer_timeout_s`` and an
utterance whose transcript does not arrive within ``asr_timeout_s`` are given up
with a ``LoopError``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from genx.agentkit.announce import Announcer
from genx.agentkit.answers import AnswerRunner
from genx.agentkit.core import DEFAULT_SYSTEM_PROMPT, LoopConfig, LoopCore
from genx.agentkit.echo import EchoCanceller, EchoGate, VadEchoFallback
from genx.agentkit.events import (
    ConversationStarted,
    ErrorKind,
    EventBus,
    GeneratorChanged,
    LoopState,
    Mode,
    ModeChanged,
    MuteChanged,
    WakeChanged,
)
from genx.agentkit.heard import HeardTracker
from genx.agentkit.history import History
from genx.agentkit.loop_conversation import continue_stored, start_new
from genx.agentkit.memory_link import LoopMemory, MemoryLink
from genx.agentkit.metrics import Clock
from genx.agentkit.mic import MicFrontEnd
from genx.agentkit.ports import AudioOutput, EndOfTurnDetector, Speech, SpeechDetector
from genx.agentkit.realtime_mode import RealtimeConversation
from genx.agentkit.realtime_output import PendingRecorder, RealtimeAnswers, TruncatingOutput
from genx.agentkit.recorder import Recorder
from genx.agentkit.router import SpeechRouter
from genx.agentkit.store import ConversationStore, new_conversation_id
from genx.agentkit.turn_manager import TurnManager
from genx.agentkit.wake import WakeDetectorLike, WakeGate, play_earcon
from genx.deadline import Deadline
from genx.generators import Generator
from genx.stream import Stream
from genx.tools import FuncTool
from genx.transformers import Transformer

log = logging.getLogger("genx.agentkit.loop")

# of a stop's time, kept for writing the history last (at most a quarter of it)
STORE_RESERVE_S = 1.5
# a cancelled reader or capture task is given this long to unwind, even past the deadline
_TASK_UNWIND_S = 0.2


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
        turn_detector: EndOfTurnDetector | None = None,
        wake_detector: WakeDetectorLike | None = None,
        memory: LoopMemory | None = None,
        clock: Clock = time.monotonic,
        wall_clock: Clock = time.time,
        bus: EventBus | None = None,
        realtime: Any = None,
        realtime_tools: Sequence[FuncTool] = (),
    ) -> None:
        self.config = cfg = config or LoopConfig()
        self.core = core = LoopCore(
            cfg,
            generator=generator,
            conversation_id=conversation_id or new_conversation_id(),
            clock=clock,
            wall_clock=wall_clock,
            bus=bus or EventBus(),
        )
        self._capture = capture
        self._player = player
        fallback = echo_fallback if (echo_fallback is not None and cfg.echo_fallback) else None
        self.mic = MicFrontEnd(core, echo=echo, gate=echo_gate, fallback=fallback, output_latency=self._output_latency)
        heard = HeardTracker(self.mic.far_ends, clock=clock, output_latency=self._output_latency)
        # realtime mode: a speech-to-speech session answers (realtime_mode.py); a stopped player tells it what was
        # heard, and a turn is recorded once the provider's transcript of the user's words is in
        self.recorder = PendingRecorder(core, store) if realtime is not None else Recorder(core, store)
        output = TruncatingOutput(player) if realtime is not None else player
        runner = RealtimeAnswers if realtime is not None else AnswerRunner
        self.answers = runner(core, speech=speech, player=output, mic=self.mic, heard=heard, recorder=self.recorder)
        self.turns = TurnManager(core, self.answers)
        self.announcer = Announcer(core, speech=speech, player=player, mic=self.mic, heard=heard)
        self.router = SpeechRouter(
            core,
            self.turns,
            vad=vad,
            asr=asr,
            ptt_vad=ptt_vad,
            turn_detector=turn_detector,
            turn_context=self.recorder.check_context,
        )
        self.memory = memory  # long-term memory (the window's Memory panel reaches it here)
        self.memory_link = self.recorder.memory = MemoryLink(memory)  # recall at answer start, recorded turns out to extraction
        self.answers.on_over = self.turns.answer_over
        self.answers.drop_held = self.turns.drop_held
        self.turns.on_dismissed = self.router.end_turn
        self.mic.to_vad = self.router.feed_vad
        # hands-free with a wake word (not in realtime mode): speech reaches the VAD only after the phrase (wake.py)
        use_wake = wake_detector is not None and realtime is None
        self.wake = WakeGate(core, wake_detector, self.router.feed_vad, earcon=self._earcon) if use_wake else None  # type: ignore[arg-type]
        if self.wake is not None:
            self.mic.to_vad = self.wake.feed
            self.router.asr_feed.text_filter = self.wake.strip
        self.mic.to_ptt = self.router.feed_ptt
        self.live: RealtimeConversation | None = None
        if isinstance(output, TruncatingOutput):
            assert isinstance(self.recorder, PendingRecorder) and isinstance(self.answers, RealtimeAnswers)
            live = self.live = RealtimeConversation(
                core, realtime, vad=vad, answers=self.answers, output=output, recorder=self.recorder,
                new_turn=self.turns.new_turn, tools=realtime_tools, name=cfg.generator or "realtime",
            )  # fmt: skip
            self.answers.on_over = live.answer_over
            self.mic.to_vad = live.feed
            self.mic.to_ptt = live.feed_ptt
        core.settle = self._settle_state
        self._tasks: list[asyncio.Task[None]] = []
        self._unsubs: list[Callable[[], None]] = []
        # diagnostics: tap(raw_pcm, processed_pcm, captured_at) for every capture chunk (after echo handling)
        self.mic_taps = self.mic.mic_taps

    def _output_latency(self) -> float:
        return max(0.0, float(getattr(self._player, "latency", 0.0) or 0.0))

    # -- LoopControl: properties ----------------------------------------------------------
    @property
    def bus(self) -> EventBus:
        return self.core.bus

    @property
    def state(self) -> LoopState:
        return self.core.state

    @property
    def mode(self) -> Mode:
        return self.core.mode

    @property
    def muted(self) -> bool:
        return self.core.muted

    @property
    def generator_name(self) -> str:
        return self.core.generator_name

    @property
    def conversation_id(self) -> str:
        return self.core.conversation_id

    @property
    def history(self) -> History:
        return self.recorder.history

    @property
    def turns_done(self) -> int:
        return self.recorder.turns_done

    @property
    def push_to_talk_open(self) -> bool:
        """Push-to-talk is down (an utterance is being recorded)."""
        return (self.live.ptt if self.live is not None else self.router.ptt) is not None

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Start reading the microphone and the transformers; returns once running."""
        core = self.core
        if core.running:
            return
        loop = asyncio.get_running_loop()
        core.stopped = loop.create_future()
        core.running = True
        readers = await (self.live.start() if self.live is not None else self.router.start())
        self._unsubs.append(self._player.on_played(self.answers.on_played))
        self._unsubs.append(self._player.on_route_end(self.answers.on_route_end))
        self._unsubs.append(self._player.on_played(self.announcer.on_played))
        self._unsubs.append(self._player.on_route_end(self.announcer.on_route_end))
        self._unsubs.append(core.bus.subscribe(self.announcer.on_event))
        for coro, name in readers:
            self.spawn(coro, name)
        if self._capture is not None:
            self.spawn(self.mic.pump(self._capture), "voice-loop-capture")
        self.recorder.start()
        core.emit(ConversationStarted(conversation_id=core.conversation_id))
        core.emit(ModeChanged(mode=core.mode))
        if self.wake is not None and self.wake.asleep:
            core.emit(WakeChanged(awake=False, phrase=self.wake.phrases[0], reason="started"))
            core.set_state(LoopState.IDLE, "waiting for the wake word")
        else:
            core.set_state(LoopState.LISTENING, "started")
        self.recorder.schedule_prefill()
        self.announcer.maybe_start()  # announcements made before the start

    async def run(self) -> None:
        """Start (if needed) and wait until :meth:`stop` or a fatal error."""
        await self.start()
        assert self.core.stopped is not None
        await self.core.stopped

    async def stop(self, deadline: Deadline | float | None = None) -> None:
        """Cut any answer (what was heard is recorded), close every stream, write the history last. Idempotent.

        ``deadline`` bounds the whole stop (a :class:`~genx.deadline.Deadline` or seconds; default
        ``LoopConfig.stop_timeout_s``): the cut and the tasks get the time the history writer does not need; a
        cut still running then is ended where the player got to; the writer is never cancelled.
        """
        core = self.core
        if not core.running:
            return
        core.running = False
        dl = Deadline.of(deadline, core.config.stop_timeout_s, core.clock)
        parts_by = dl.keeping(STORE_RESERVE_S)
        if self.turns.collecting is not None:
            self.turns.drop_held(self.turns.collecting, "stopped")
        self.turns.stop_answer(None, "stopped")
        if self.live is not None:
            self.live.stop_answer(None, "stopped")
        await parts_by.wait(self.announcer.close())
        await self.answers.wait_cuts(parts_by)
        self.router.close_inputs()
        if self.live is not None:
            await self.live.close()
        self.recorder.cancel_prefill()
        for t in self._tasks:
            t.cancel()
        if self._tasks:
            late = await parts_by.wait_tasks(self._tasks, floor_s=_TASK_UNWIND_S)
            if late:
                log.warning("%d voice loop task(s) did not end at stop", len(late))
        self._tasks.clear()
        for u in self._unsubs:
            u()
        self._unsubs.clear()
        self.mic.close()
        await self.recorder.close(dl)
        await dl.wait(asyncio.shield(self.memory_link.wait()), floor_s=_TASK_UNWIND_S)  # the last turn's facts
        core.set_state(LoopState.IDLE, "stopped")
        if core.stopped is not None and not core.stopped.done():
            core.stopped.set_result(None)
        core.bus.close()

    def spawn(self, coro: Any, name: str) -> None:
        """Run ``coro`` as one of the loop's tasks (cancelled at :meth:`stop`)."""
        self._tasks.append(asyncio.get_running_loop().create_task(coro, name=name))

    def _earcon(self) -> None:
        play_earcon(self._player, self.mic.far_ends, self.core.clock() + self._output_latency())

    def _settle_state(self, reason: str) -> None:
        """The state that follows from what is going on (after a turn or utterance changed)."""
        core = self.core
        if not core.running:
            return
        live = self.live
        cur = live.current if live is not None else self.turns.current_answer()
        collecting = self.turns.collecting
        if cur is not None:
            st = LoopState.SPEAKING if cur[1].started_playing else LoopState.THINKING
        elif live.hearing if live is not None else self.router.hearing:
            st = LoopState.HEARING
        elif live is not None and live.waiting is not None:
            st = LoopState.THINKING
        elif collecting is not None and collecting.utterances:
            st = LoopState.THINKING
        elif core.muted or (self.wake is not None and self.wake.asleep):
            st = LoopState.IDLE
        else:
            st = LoopState.LISTENING
        core.set_state(st, reason)

    # -- commands ------------------------------------------------------------------------
    def push_to_talk_down(self) -> None:
        (self.live or self.router).push_to_talk_down(self.mic.preroll())

    def push_to_talk_up(self) -> None:
        (self.live or self.router).push_to_talk_up()

    def send_text(self, text: str) -> None:
        text = text.strip()
        if not self.core.running:
            return
        if not text:
            self.core.error(ErrorKind.INPUT, "empty message ignored", level=logging.INFO)
            return
        (self.live or self.turns).typed(text)

    def stop_speaking(self) -> None:
        self.announcer.stop_speaking()
        (self.live or self.turns).stop_answer(self.core.clock(), "stop speaking")

    def announce(self, text: str) -> str:
        """Say ``text`` unasked (a fired timer): shown at once, spoken after a chime when nobody is talking,
        also while the microphone is muted (:mod:`.announce`). Returns the announcement's id."""
        return self.announcer.announce(text)

    def new_conversation(self) -> None:
        start_new(self)

    async def load_conversation(self, conversation_id: str) -> None:
        """Continue a stored conversation (its turns become the history); the file is read on a worker thread."""
        await continue_stored(self, conversation_id)

    def set_mode(self, mode: Mode | str) -> None:
        try:
            m = Mode.parse(mode)
        except ValueError as e:
            self.core.error(ErrorKind.CONFIG, str(e))
            return
        if m is self.core.mode:
            return
        if self.push_to_talk_open:
            self.push_to_talk_up()
        self.core.mode = m
        self.core.emit(ModeChanged(mode=m))
        self._settle_state("mode changed")

    def mute(self, muted: bool) -> None:
        if muted == self.core.muted:
            return
        self.core.muted = muted
        if muted and self.push_to_talk_open:
            self.push_to_talk_up()
        self.core.emit(MuteChanged(muted=muted))
        self._settle_state("muted" if muted else "unmuted")

    def set_generator(self, name: str) -> None:
        name = name.strip()
        resolve = getattr(self.core.generator, "resolve", None)
        if callable(resolve):
            try:
                resolve(name)
            except Exception as e:
                self.core.error(ErrorKind.CONFIG, f"cannot answer with generator {name!r}: {e}")
                return
        self.core.generator_name = name
        self.core.emit(GeneratorChanged(name=name))

    async def flush_store(self) -> None:
        """Wait until every finished turn is written (tests, shutdown)."""
        await self.recorder.flush()


__all__ = ["DEFAULT_SYSTEM_PROMPT", "LoopConfig", "VoiceLoop"]
