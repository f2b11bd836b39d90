"""The provider-neutral realtime protocol: typed events from a session, and the dialect contract.

A :class:`Dialect` turns the session's intents into wire frames (JSON objects)
and each received frame into a list of :class:`Event` s. Dialects are pure: no
I/O, no clock, no state beyond what the wire itself needs (Gemini has no
response ids, so its dialect numbers the responses it sees). The session
(:mod:`genx.transformers.realtime.session_call`) drives a dialect over the transport.

``response_id`` is the provider's id of one model response (OpenAI
``resp_…``; Gemini: ``gemini-<n>``, numbered by the dialect). ``item_id`` is the
conversation item that holds a response's audio (OpenAI ``item_…``; what
``conversation.item.truncate`` names).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from genx.chunk import FuncCall, ToolResult
from genx.generators.providers.errors import ProviderError
from genx.model import Usage
from genx.transformers.realtime.settings import RealtimeSettings

Frame = dict[str, Any]


@dataclass(slots=True)
class SessionReady:
    """The provider accepted the session settings (OpenAI ``session.updated``, Gemini ``setupComplete``)."""

    session_id: str = ""


@dataclass(slots=True)
class ResponseStarted:
    response_id: str


@dataclass(slots=True)
class AudioDelta:
    response_id: str
    item_id: str
    pcm: bytes  # at the dialect's output rate, mono 16-bit little endian


@dataclass(slots=True)
class TranscriptDelta:
    """Text of what the model says in its audio (OpenAI output audio transcript, Gemini outputTranscription)."""

    response_id: str
    item_id: str
    text: str


@dataclass(slots=True)
class TextDelta:
    """Text output (text modality)."""

    response_id: str
    item_id: str
    text: str


@dataclass(slots=True)
class ToolCallEvent:
    response_id: str
    call: FuncCall


@dataclass(slots=True)
class ResponseDone:
    """The response ended: ``status`` ``completed`` | ``cancelled`` | ``incomplete`` | ``failed`` | ``tool_call``."""

    response_id: str
    status: str = "completed"
    usage: Usage | None = None
    error: ProviderError | None = None


@dataclass(slots=True)
class SpeechStarted:
    """The provider's VAD heard the user start speaking (a barge-in cue)."""

    item_id: str = ""
    audio_start_ms: int | None = None


@dataclass(slots=True)
class SpeechStopped:
    item_id: str = ""


@dataclass(slots=True)
class InputTranscript:
    """What the user said: a ``delta`` fragment, or the whole utterance when ``final``."""

    item_id: str
    text: str
    final: bool = False


@dataclass(slots=True)
class ServerInterrupted:
    """The provider stopped the current response itself (Gemini ``interrupted``)."""

    response_id: str


@dataclass(slots=True)
class ServerError:
    """An error event. ``fatal``: the session cannot go on (bad key, unknown model, expired)."""

    error: ProviderError
    fatal: bool = False
    expired: bool = False


@dataclass(slots=True)
class ResumptionHandle:
    """Gemini ``sessionResumptionUpdate``: the handle a reconnect sends to continue this session."""

    handle: str
    resumable: bool = True


@dataclass(slots=True)
class GoAway:
    """The server will close the connection soon (Gemini ``goAway``)."""

    time_left: str = ""


@dataclass(slots=True)
class Ignored:
    """A frame with nothing for the session (rate limits, item bookkeeping); ``kind`` names it for logs."""

    kind: str
    unknown: bool = False  # a frame type this dialect does not know at all


Event = (
    SessionReady
    | ResponseStarted
    | AudioDelta
    | TranscriptDelta
    | TextDelta
    | ToolCallEvent
    | ResponseDone
    | SpeechStarted
    | SpeechStopped
    | InputTranscript
    | ServerInterrupted
    | ServerError
    | ResumptionHandle
    | GoAway
    | Ignored
)


@dataclass(slots=True)
class HistoryItem:
    """One turn replayed as text into a fresh session after an expiry without resumption."""

    role: str  # "user" | "assistant"
    text: str


class Dialect(Protocol):
    """One provider's realtime wire protocol (pure)."""

    provider: str
    input_rate: int  # Hz of the PCM the provider accepts
    output_rate: int  # Hz of the PCM it sends

    def url(self, base_url: str, model: str) -> str: ...

    def session_frames(
        self, settings: RealtimeSettings, *, resume_handle: str = "", history: list[HistoryItem] | None = None
    ) -> list[Frame]: ...

    def audio_frame(self, pcm: bytes) -> Frame: ...

    def begin_turn_frames(self) -> list[Frame]:
        """Start of a manual (push-to-talk) user turn (Gemini ``activityStart``; OpenAI needs none)."""
        ...

    def commit_frames(self) -> list[Frame]:
        """End of a manual (push-to-talk) user turn: commit the audio and ask for a response."""
        ...

    def text_frames(self, text: str) -> list[Frame]: ...

    def tool_result_frames(self, result: ToolResult) -> list[Frame]: ...

    def respond_frames(self) -> list[Frame]:
        """Ask for the next response once every tool call of a response is answered (Gemini goes on by itself)."""
        ...

    def interrupt_frames(self, response_id: str, item_id: str, played_ms: int, in_progress: bool) -> list[Frame]: ...

    def parse(self, frame: Any) -> list[Event]: ...


__all__ = [
    "AudioDelta",
    "Dialect",
    "Event",
    "Frame",
    "GoAway",
    "HistoryItem",
    "Ignored",
    "InputTranscript",
    "ResponseDone",
    "ResponseStarted",
    "ResumptionHandle",
    "ServerError",
    "ServerInterrupted",
    "SessionReady",
    "SpeechStarted",
    "SpeechStopped",
    "TextDelta",
    "ToolCallEvent",
    "TranscriptDelta",
]
