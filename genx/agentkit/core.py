"""What every part of the voice loop shares: configuration, clocks, the event bus and the loop-wide state.

One :class:`LoopCore` per :class:`~genx.agentkit.loop.VoiceLoop`; the parts
(:mod:`.mic`, :mod:`.router`, :mod:`.turn_manager`, :mod:`.answers`,
:mod:`.recorder`) hold a reference to it and publish through it. Everything here
runs on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from genx.agentkit.events import ErrorKind, Event, EventBus, LoopError, LoopState, Mode, StateChanged
from genx.agentkit.metrics import Clock
from genx.chunk import MessageChunk
from genx.errors import Done
from genx.generators import Generator
from genx.model import ModelParams
from genx.prompts import DEFAULT_SYSTEM_PROMPT
from genx.stream import Stream

log = logging.getLogger("genx.agentkit.loop")

L16_16K = "audio/l16; channels=1; rate=16000"


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
    # hands-free with an end-of-turn detector: at a pause this long (and its provisional transcript) the detector
    # scores the turn; complete → the turn ends now, else the VAD ends it after max_end_of_turn_ms of silence
    turn_check_ms: int = 200
    max_end_of_turn_ms: int = 2500
    # speech that starts after the turn ended but before any of its answer was heard continues that turn
    reopen_turns: bool = True
    # hands-free speech while the answer is heard ducks it (duck_db) instead of stopping it: a backchannel or a
    # cough lets it go on; a stop word, other words, or interrupt_after_ms of voiced speech make it a barge-in
    backchannel_ducking: bool = True
    duck_db: float = -24.0
    interrupt_after_ms: int = 1000
    # a hands-free barge-in that no words follow (the ASR found none in it) within this long of the cut was a
    # noise: the cut answer resumes from the start of the sentence it was in (0: never)
    resume_false_stop_s: float = 3.0
    echo_fallback: bool = True  # stricter VAD while the assistant speaks
    echo_tail_s: float = 0.25  # keep the echo measures this long after the last sample (reverb, latency)
    # hands-free with a wake word detector (VoiceLoop(wake_detector=...)): after the phrase (or the end of an
    # answer) this long without speech, the wake word is needed again; the VAD gets replay_ms from before it
    follow_up_s: float = 8.0
    wake_replay_ms: int = 200
    ptt_preroll_ms: int = 300  # audio from just before push-to-talk down
    history_max_chars: int = 12_000
    answer_timeout_s: float = 60.0  # no token / audio progress for this long → give up the answer
    asr_timeout_s: float = 30.0  # transcript not back this long after the utterance ended → give up
    level_rate_hz: float = 25.0
    stop_timeout_s: float = 8.0  # the whole stop (cut, tasks, history) when the caller gives no deadline


class LoopCore:
    """Shared services and loop-wide state; see the module docstring."""

    def __init__(
        self, config: LoopConfig, *, generator: Generator, conversation_id: str, clock: Clock, wall_clock: Clock, bus: EventBus
    ) -> None:
        self.config = config
        self.clock = clock
        self.wall = wall_clock
        self.bus = bus
        self.generator = generator
        self.generator_name = config.generator
        self.conversation_id = conversation_id
        self.state = LoopState.IDLE
        self.mode = config.mode
        self.muted = False
        self.running = False
        self.stopped: asyncio.Future[None] | None = None
        # the state that follows from what is going on; installed by the facade, which sees every part
        self.settle: Callable[[str], None] = lambda reason: None

    def emit(self, ev: Event) -> None:
        # events are frozen for subscribers; the loop stamps ``at`` once, before publishing
        object.__setattr__(ev, "at", self.clock())
        self.bus.publish(ev)

    def error(self, kind: ErrorKind, message: str, turn_id: str = "", *, level: int = logging.WARNING) -> None:
        log.log(level, "%s", message)
        self.emit(LoopError(kind=kind, message=message, recoverable=True, turn_id=turn_id))

    def fatal(self, kind: ErrorKind, message: str) -> None:
        log.error("%s", message)
        self.emit(LoopError(kind=kind, message=message, recoverable=False))
        self.set_state(LoopState.ERROR, message)
        if self.stopped is not None and not self.stopped.done():
            self.stopped.set_result(None)

    async def consume(
        self,
        stream: Stream,
        on_chunk: Callable[[MessageChunk], None],
        *,
        kind: ErrorKind,
        failed: str,
        ended: str = "",
        fatal_end: bool = True,
    ) -> None:
        """Hand every chunk of ``stream`` to ``on_chunk`` until it ends. While the loop runs, a failure is fatal
        (``failed: <error>``), and so is the end (``ended``; ``fatal_end=False``: reported, the loop goes on)."""
        try:
            while True:
                try:
                    c = await stream.next()
                except Done:
                    break
                on_chunk(c)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if self.running:
                self.fatal(kind, f"{failed}: {e}")
            return
        if self.running and ended:
            if fatal_end:
                self.fatal(kind, ended)
            else:
                self.error(kind, ended)

    def set_state(self, state: LoopState, reason: str = "") -> None:
        if state == self.state:
            return
        prev, self.state = self.state, state
        log.debug("state %s → %s (%s)", prev, state, reason)
        self.emit(StateChanged(state=state, previous=prev, reason=reason))


__all__ = ["DEFAULT_SYSTEM_PROMPT", "L16_16K", "LoopConfig", "LoopCore"]
