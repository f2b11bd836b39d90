"""What the voice loop tells the outside world, and what the outside world may ask of it.

Events are frozen, slotted dataclasses published on an :class:`EventBus`:

* sync subscribers (:meth:`EventBus.subscribe`) run inside :meth:`EventBus.publish`
  on the event-loop thread, in subscription order; an exception in one is logged
  and never reaches the loop or the other subscribers;
* async consumers iterate :meth:`EventBus.events` (one private queue per
  iterator; the iteration ends when the bus is closed).

Every event carries ``at``: the loop clock (seconds, monotonic) when it was made.
``turn_id`` ties the user's utterance, the assistant's answer and the metrics of
one exchange together (``"t1"``, ``"t2"`` …, unique per loop).

:class:`LoopControl` is the command surface of the loop (what a window or a
terminal front end calls). Commands are plain methods, safe to call from the
event-loop thread at any time; they never block and report failures as
:class:`LoopError` events instead of raising.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias, runtime_checkable

log = logging.getLogger("genx.agentkit")


class LoopState(enum.StrEnum):
    IDLE = "idle"  # not started, stopped, or muted
    LISTENING = "listening"  # waiting for the user
    HEARING = "hearing"  # the user is speaking (an utterance route is open)
    THINKING = "thinking"  # transcript final, waiting for the first audio of the answer
    SPEAKING = "speaking"  # the answer is being played
    INTERRUPTED = "interrupted"  # barge-in: the answer was cut, the user has the floor
    ERROR = "error"  # an unrecoverable error stopped the loop (a LoopError says which)


class Mode(enum.StrEnum):
    HANDS_FREE = "hands-free"
    PUSH_TO_TALK = "push-to-talk"

    @classmethod
    def parse(cls, value: str | Mode) -> Mode:
        """``"hands-free"``, ``"hands_free"``, ``"ptt"``, ``"push-to-talk"`` … → Mode; ValueError names the accepted values."""
        if isinstance(value, Mode):
            return value
        v = value.strip().lower().replace("_", "-")
        if v in ("ptt", "push-to-talk", "pushtotalk"):
            return cls.PUSH_TO_TALK
        if v in ("hands-free", "handsfree", "vad"):
            return cls.HANDS_FREE
        raise ValueError(f"unknown loop mode {value!r}; use 'hands-free' or 'push-to-talk'")


class ErrorKind(enum.StrEnum):
    DEVICE = "device"  # audio device missing, refused, vanished
    ASR = "asr"
    GENERATOR = "generator"
    TTS = "tts"
    PLAYER = "player"
    STORE = "store"  # the conversation file could not be written or read
    CONFIG = "config"  # unknown generator / voice, bad setting
    INPUT = "input"  # the user's input was unusable (empty transcript, too long, noise)
    INTERNAL = "internal"


@dataclass(slots=True, frozen=True)
class Event:
    """Base of every loop event. ``at`` is the loop clock in seconds."""

    at: float = field(default=0.0, kw_only=True)


@dataclass(slots=True, frozen=True)
class StateChanged(Event):
    state: LoopState
    previous: LoopState
    reason: str = ""


@dataclass(slots=True, frozen=True)
class ModeChanged(Event):
    mode: Mode


@dataclass(slots=True, frozen=True)
class MuteChanged(Event):
    muted: bool


@dataclass(slots=True, frozen=True)
class WakeChanged(Event):
    """Hands-free with a wake word: ``awake`` (the phrase was heard: speech is listened to) or asleep again
    (at the start, or ``follow_up_s`` passed with nothing said); ``phrase``: the wake phrase heard, or to say."""

    awake: bool
    phrase: str = ""
    reason: str = ""


@dataclass(slots=True, frozen=True)
class GeneratorChanged(Event):
    name: str


@dataclass(slots=True, frozen=True)
class ConversationStarted(Event):
    """A new (empty) conversation began; ``conversation_id`` names its store file."""

    conversation_id: str


@dataclass(slots=True, frozen=True)
class InputLevel(Event):
    """Microphone level of the last capture block, dBFS (−120 … 0), ~20–50 per second."""

    dbfs: float


@dataclass(slots=True, frozen=True)
class SpeechStarted(Event):
    """The VAD heard speech onset (hands-free) or the push-to-talk key went down."""

    turn_id: str


@dataclass(slots=True, frozen=True)
class SpeechEnded(Event):
    """The utterance route closed (end of turn silence elapsed, or key up)."""

    turn_id: str


@dataclass(slots=True, frozen=True)
class UserPartial(Event):
    """Partial transcript of the utterance in progress (replaces the previous partial)."""

    turn_id: str
    text: str


@dataclass(slots=True, frozen=True)
class UserFinal(Event):
    """Final transcript; ``typed`` when it came from :meth:`LoopControl.send_text`."""

    turn_id: str
    text: str
    typed: bool = False


@dataclass(slots=True, frozen=True)
class SpeechDismissed(Event):
    """Speech while Parley spoke was a backchannel or a noise ("mm-hm", a cough): not a turn; the answer went on."""

    turn_id: str
    text: str = ""


@dataclass(slots=True, frozen=True)
class TurnReopened(Event):
    """The user went on talking after the turn ended but before any of its answer was heard: the answer is
    dropped unheard (its deltas are void) and the turn continues; a later ``UserFinal`` has the joined words."""

    turn_id: str


@dataclass(slots=True, frozen=True)
class AssistantDelta(Event):
    """Generated text as it arrives (ahead of the audio)."""

    turn_id: str
    text: str


@dataclass(slots=True, frozen=True)
class AssistantSpoken(Event):
    """Everything of the answer heard so far (grows word by word; replaces the previous one)."""

    turn_id: str
    spoken_text: str


@dataclass(slots=True, frozen=True)
class AssistantDone(Event):
    """The answer ended. ``text`` is what was generated, ``spoken_text`` what was heard.

    ``spoken_text`` is what the history keeps when ``interrupted``; ``error`` is set
    when the answer ended because something failed (generator, TTS, player).
    """

    turn_id: str
    text: str
    interrupted: bool
    spoken_text: str
    error: str = ""


@dataclass(slots=True, frozen=True)
class BargeIn(Event):
    """The user cut the answer. ``latency_ms``: onset (or key down) → playback stopped."""

    turn_id: str
    latency_ms: float


@dataclass(slots=True, frozen=True)
class TurnMetrics(Event):
    """Per-turn timings. Timestamps are loop-clock seconds (``None`` = did not happen).

    ``v2v_ms``: end of the user's speech → first sample of the answer handed to the
    device (plus the device's output latency when the player knows it).
    """

    turn_id: str
    speech_start: float | None = None
    speech_end: float | None = None
    asr_final: float | None = None
    generation_start: float | None = None
    first_token: float | None = None
    first_audio: float | None = None
    first_played: float | None = None
    answer_end: float | None = None
    barge_in: float | None = None
    playback_stopped: float | None = None
    asr_ms: float | None = None  # speech_end → asr_final
    llm_first_token_ms: float | None = None  # generation_start → first_token
    tts_first_audio_ms: float | None = None  # first_token → first_audio
    playout_ms: float | None = None  # first_audio → first_played
    v2v_ms: float | None = None
    bargein_ms: float | None = None
    interrupted: bool = False
    preemptive: bool = False  # generation started on the transcript before the end-of-turn silence ran out
    turn_check_ms: float | None = None  # the turn's last end-of-turn check, call → verdict
    ended_early: bool = False  # an end-of-turn detector ended the turn before the VAD's silence did


@dataclass(slots=True, frozen=True)
class LoopError(Event):
    """Something went wrong. ``recoverable``: the loop carries on (back to listening)."""

    kind: ErrorKind
    message: str
    recoverable: bool = True
    turn_id: str = ""


LoopEvent: TypeAlias = (
    StateChanged
    | ModeChanged
    | MuteChanged
    | GeneratorChanged
    | WakeChanged
    | ConversationStarted
    | InputLevel
    | SpeechStarted
    | SpeechEnded
    | UserPartial
    | UserFinal
    | TurnReopened
    | SpeechDismissed
    | AssistantDelta
    | AssistantSpoken
    | AssistantDone
    | BargeIn
    | TurnMetrics
    | LoopError
)

Subscriber = Callable[[Event], None]


class _Closed:
    pass


_CLOSED = _Closed()


class EventBus:
    """Fan-out of loop events to sync callbacks and async iterators (event-loop thread only)."""

    __slots__ = ("_closed", "_queues", "_subs", "max_queued")

    def __init__(self, max_queued: int = 10_000) -> None:
        self._subs: list[Subscriber] = []
        self._queues: list[_Queue] = []
        self._closed = False
        # an async consumer that stops reading loses its oldest events beyond this many
        self.max_queued = max_queued

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(event)`` for every later event; returns the unsubscribe function."""
        self._subs.append(callback)

        def unsubscribe() -> None:
            if callback in self._subs:
                self._subs.remove(callback)

        return unsubscribe

    def publish(self, event: Event) -> None:
        if self._closed:
            return
        for cb in tuple(self._subs):
            try:
                cb(event)
            except Exception:
                log.exception("event subscriber %r failed on %s", cb, type(event).__name__)
        for q in self._queues:
            q.put(event, self.max_queued)

    def events(self) -> AsyncIterator[Event]:
        """An async iterator of every event published from now on; ends when the bus closes."""
        q = _Queue()
        self._queues.append(q)
        if self._closed:
            q.put(_CLOSED, 0)
        return self._iterate(q)

    async def _iterate(self, q: _Queue) -> AsyncIterator[Event]:
        try:
            while True:
                item = await q.get()
                if isinstance(item, _Closed):
                    return
                yield item
        finally:
            if q in self._queues:
                self._queues.remove(q)

    def close(self) -> None:
        """End every async iteration (after the events already queued); later publishes are dropped."""
        if self._closed:
            return
        self._closed = True
        for q in self._queues:
            q.put(_CLOSED, 0)

    @property
    def closed(self) -> bool:
        return self._closed


class _Queue:
    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Event | _Closed] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: Event | _Closed, limit: int) -> None:
        self._items.append(item)
        if limit and len(self._items) > limit:
            self._items.popleft()
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    async def get(self) -> Event | _Closed:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()


@runtime_checkable
class LoopControl(Protocol):
    """Commands a front end may send to the running voice loop (event-loop thread)."""

    @property
    def bus(self) -> EventBus: ...

    @property
    def state(self) -> LoopState: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def muted(self) -> bool: ...

    @property
    def generator_name(self) -> str: ...

    @property
    def conversation_id(self) -> str: ...

    def push_to_talk_down(self) -> None:
        """Open an utterance (and barge in if the assistant is speaking); any mode."""
        ...

    def push_to_talk_up(self) -> None:
        """Close the utterance opened by :meth:`push_to_talk_down`; the turn ends."""
        ...

    def set_mode(self, mode: Mode | str) -> None: ...

    def stop_speaking(self) -> None:
        """Cut the current answer like a barge-in (history keeps what was heard)."""
        ...

    def send_text(self, text: str) -> None:
        """A typed user message: starts a turn without speech (cuts a running answer)."""
        ...

    def new_conversation(self) -> None:
        """Cut any answer, forget the history and start a new conversation file."""
        ...

    def mute(self, muted: bool) -> None:
        """Muted: the microphone is ignored (no VAD, no barge-in); typed messages still work."""
        ...

    def set_generator(self, name: str) -> None:
        """Answer the next turns with the generator ``name`` (a LoopError when unknown)."""
        ...


__all__ = [
    "AssistantDelta",
    "AssistantDone",
    "AssistantSpoken",
    "BargeIn",
    "ConversationStarted",
    "ErrorKind",
    "Event",
    "EventBus",
    "GeneratorChanged",
    "InputLevel",
    "LoopControl",
    "LoopError",
    "LoopEvent",
    "LoopState",
    "Mode",
    "ModeChanged",
    "MuteChanged",
    "SpeechDismissed",
    "SpeechEnded",
    "SpeechStarted",
    "StateChanged",
    "Subscriber",
    "TurnMetrics",
    "TurnReopened",
    "UserFinal",
    "UserPartial",
    "WakeChanged",
]
