"""What the voice loop tells the outside world, and what the outside world may ask of it.

Events are frozen, slotted dataclasses published on an :class:`~genx.agentkit.event_bus.EventBus`
(its own module, re-exported here: sync subscribers and async iterators).

Every event carries ``at``: the loop clock (seconds, monotonic) when it was made.
``turn_id`` ties the user's utterance, the assistant's answer and the metrics of
one exchange together (``"t1"``, ``"t2"`` …, unique per loop).

:class:`~genx.agentkit.control.LoopControl` (re-exported here) is the command
surface of the loop (what a window or a terminal front end calls).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TypeAlias

from genx.agentkit.control import LoopControl
from genx.agentkit.event_bus import EventBus, Subscriber


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
class ToolActivity(Event):
    """A tool call of the answer: ``status`` is ``"running"`` when the model made the call, then its outcome
    (a :class:`genx.toolrounds.CallStatus` value: ``"ok"``, ``"failed"``, ``"timeout"``, ``"cancelled"`` …) with ``result``."""

    turn_id: str
    call_id: str
    name: str
    arguments: str  # JSON
    status: str
    result: str = ""
    is_error: bool = False
    elapsed_ms: float = 0.0


@dataclass(slots=True, frozen=True)
class Announcement(Event):
    """Parley speaks up unasked (a timer, alarm or reminder came due): ``phase`` is ``"queued"`` when it came
    (shown at once, also while muted), ``"speaking"`` when its chime starts, ``"done"`` when it was played."""

    announcement_id: str
    text: str
    phase: str


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
    | ToolActivity
    | Announcement
    | BargeIn
    | TurnMetrics
    | LoopError
)

__all__ = [
    "Announcement",
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
    "ToolActivity",
    "TurnMetrics",
    "TurnReopened",
    "UserFinal",
    "UserPartial",
    "WakeChanged",
]
