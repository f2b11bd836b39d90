"""OpenAI Realtime (GA) over a websocket: ``wss://api.openai.com/v1/realtime?model=…``.

Client frames: ``session.update`` (instructions, output modalities, PCM 24 kHz in
and out, ``server_vad`` / ``semantic_vad`` or manual turns, input transcription,
voice, tools), ``input_audio_buffer.append`` / ``commit``,
``conversation.item.create`` (user text, ``function_call_output``),
``response.create``, and on barge-in ``response.cancel`` plus
``conversation.item.truncate`` with ``audio_end_ms`` = the played position.

Server events → :mod:`.events`: ``session.updated`` → ready;
``response.created`` / ``response.done`` (status, usage) bound a response;
``response.output_audio.delta`` (beta: ``response.audio.delta``), the audio
transcript and text deltas (GA and beta names); ``response.function_call_arguments.done``
→ a tool call (arguments ``""`` mean ``{}``); ``input_audio_buffer.speech_started`` /
``stopped``; input transcription ``delta`` / ``completed``; ``error`` → a typed
error (auth, unknown model and ``session_expired`` are fatal). Bookkeeping events
are ignored by name; unknown or malformed frames are reported as such.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from genx.chunk import FuncCall, ToolResult
from genx.generators.providers.convert import as_int
from genx.generators.providers.errors import AuthenticationError, ModelNotFoundError, PermissionDeniedError, ProviderError, classify
from genx.model import Usage
from genx.transformers.realtime.events import (
    AudioDelta,
    Event,
    Frame,
    HistoryItem,
    Ignored,
    InputTranscript,
    ResponseDone,
    ResponseStarted,
    ServerError,
    SessionReady,
    SpeechStarted,
    SpeechStopped,
    TextDelta,
    ToolCallEvent,
    TranscriptDelta,
)
from genx.transformers.realtime.settings import RealtimeSettings
from genx.transformers.realtime.wire import as_str, b64decode, b64encode, merged, ws_url

RATE = 24000
PCM_FORMAT = {"type": "audio/pcm", "rate": RATE}

_AUDIO = frozenset({"response.output_audio.delta", "response.audio.delta"})
_TRANSCRIPT = frozenset({"response.output_audio_transcript.delta", "response.audio_transcript.delta"})
_TEXT = frozenset({"response.output_text.delta", "response.text.delta"})
_KNOWN_QUIET = frozenset(
    {
        "session.created",
        "conversation.created",
        "conversation.item.added",
        "conversation.item.created",
        "conversation.item.done",
        "conversation.item.retrieved",
        "conversation.item.truncated",
        "conversation.item.deleted",
        "conversation.item.input_audio_transcription.segment",
        "input_audio_buffer.committed",
        "input_audio_buffer.cleared",
        "input_audio_buffer.timeout_triggered",
        "output_audio_buffer.started",
        "output_audio_buffer.stopped",
        "output_audio_buffer.cleared",
        "response.output_item.done",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.done",
        "response.text.done",
        "response.output_audio.done",
        "response.audio.done",
        "response.output_audio_transcript.done",
        "response.audio_transcript.done",
        "response.function_call_arguments.delta",
        "rate_limits.updated",
    }
)
_FATAL = (AuthenticationError, PermissionDeniedError, ModelNotFoundError)


def openai_usage(u: Any) -> Usage | None:
    if not isinstance(u, Mapping):
        return None
    details = u.get("input_token_details")
    cached = as_int(details.get("cached_tokens")) if isinstance(details, Mapping) else 0
    return Usage(prompt_tokens=as_int(u.get("input_tokens")), cached_prompt_tokens=cached, generated_tokens=as_int(u.get("output_tokens")))


class OpenAIRealtimeDialect:
    """Pure converter for one OpenAI Realtime session (keeps only function-call names by item)."""

    __slots__ = ("_names", "input_rate", "output_rate", "provider")

    def __init__(self, provider: str = "openai") -> None:
        self.provider = provider
        self.input_rate = RATE
        self.output_rate = RATE
        self._names: dict[str, str] = {}

    def url(self, base_url: str, model: str) -> str:
        return ws_url(base_url, "realtime", {"model": model})

    # -- client frames ---------------------------------------------------------
    def session_frames(
        self, settings: RealtimeSettings, *, resume_handle: str = "", history: list[HistoryItem] | None = None
    ) -> list[Frame]:
        audio_in: dict[str, Any] = {"format": dict(PCM_FORMAT)}
        if settings.turn_detection is None:
            audio_in["turn_detection"] = None
        else:
            audio_in["turn_detection"] = {
                "type": settings.turn_detection,
                "create_response": settings.create_response,
                "interrupt_response": settings.interrupt_response,
            }
        if settings.input_transcription:
            audio_in["transcription"] = {"model": settings.input_transcription}
        audio_out: dict[str, Any] = {"format": dict(PCM_FORMAT)}
        if settings.voice:
            audio_out["voice"] = settings.voice
        session: dict[str, Any] = {"type": "realtime"}
        if settings.instructions:
            session["instructions"] = settings.instructions
        session["output_modalities"] = list(settings.output_modalities)
        session["audio"] = {"input": audio_in, "output": audio_out}
        if settings.tools:
            session["tools"] = [
                {"type": "function", "name": t.name, "parameters": t.schema, "description": t.description} for t in settings.tools
            ]
        frames: list[Frame] = [{"type": "session.update", "session": merged(session, settings.extra)}]
        for item in history or []:
            kind = "input_text" if item.role == "user" else "output_text"
            frames.append(
                {
                    "type": "conversation.item.create",
                    "item": {"type": "message", "role": item.role, "content": [{"type": kind, "text": item.text}]},
                }
            )
        return frames

    def audio_frame(self, pcm: bytes) -> Frame:
        return {"type": "input_audio_buffer.append", "audio": b64encode(pcm)}

    def begin_turn_frames(self) -> list[Frame]:
        return []

    def commit_frames(self) -> list[Frame]:
        return [{"type": "input_audio_buffer.commit"}, {"type": "response.create"}]

    def text_frames(self, text: str) -> list[Frame]:
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        return [{"type": "conversation.item.create", "item": item}, {"type": "response.create"}]

    def tool_result_frames(self, result: ToolResult) -> list[Frame]:
        item = {"type": "function_call_output", "call_id": result.call_id, "output": result.content}
        return [{"type": "conversation.item.create", "item": item}]

    def respond_frames(self) -> list[Frame]:
        return [{"type": "response.create"}]

    def interrupt_frames(self, response_id: str, item_id: str, played_ms: int, in_progress: bool) -> list[Frame]:
        frames: list[Frame] = []
        if in_progress:
            frames.append({"type": "response.cancel"})
        if item_id:
            frames.append(
                {"type": "conversation.item.truncate", "item_id": item_id, "content_index": 0, "audio_end_ms": max(0, int(played_ms))}
            )
        return frames

    # -- server events ---------------------------------------------------------
    def parse(self, frame: Any) -> list[Event]:
        if not isinstance(frame, Mapping) or not isinstance(frame.get("type"), str):
            return [Ignored("malformed", unknown=True)]
        t: str = frame["type"]
        rid = as_str(frame.get("response_id"))
        item = as_str(frame.get("item_id"))
        if t in _AUDIO:
            pcm = b64decode(frame.get("delta"))
            return [AudioDelta(rid, item, pcm)] if pcm is not None else [Ignored(t + " (invalid base64)", unknown=True)]
        if t in _TRANSCRIPT:
            return [TranscriptDelta(rid, item, as_str(frame.get("delta")))]
        if t in _TEXT:
            return [TextDelta(rid, item, as_str(frame.get("delta")))]
        if t == "response.created":
            return [ResponseStarted(as_str(_obj(frame, "response").get("id")))]
        if t == "response.done":
            return [self._done(_obj(frame, "response"))]
        if t == "response.output_item.added":
            it = _obj(frame, "item")
            if it.get("type") == "function_call":
                self._names[as_str(it.get("id"))] = as_str(it.get("name"))
            return [Ignored(t)]
        if t == "response.function_call_arguments.done":
            name = as_str(frame.get("name")) or self._names.pop(item, "")
            args = as_str(frame.get("arguments"))
            return [ToolCallEvent(rid, FuncCall(name, args if args.strip() else "{}", as_str(frame.get("call_id"))))]
        if t == "input_audio_buffer.speech_started":
            start = frame.get("audio_start_ms")
            return [SpeechStarted(item, start if isinstance(start, int) else None)]
        if t == "input_audio_buffer.speech_stopped":
            return [SpeechStopped(item)]
        if t == "conversation.item.input_audio_transcription.delta":
            return [InputTranscript(item, as_str(frame.get("delta")))]
        if t == "conversation.item.input_audio_transcription.completed":
            return [InputTranscript(item, as_str(frame.get("transcript")), final=True)]
        if t == "conversation.item.input_audio_transcription.failed":
            return [ServerError(classify(self.provider, None, frame))]
        if t == "session.updated":
            return [SessionReady(as_str(_obj(frame, "session").get("id")))]
        if t == "error":
            return [self._error(frame)]
        if t in _KNOWN_QUIET:
            return [Ignored(t)]
        return [Ignored(t, unknown=True)]

    def _done(self, response: Mapping[str, Any]) -> ResponseDone:
        status = as_str(response.get("status")) or "completed"
        error: ProviderError | None = None
        details = response.get("status_details")
        if status == "failed" and isinstance(details, Mapping):
            error = classify(self.provider, None, details)
        return ResponseDone(as_str(response.get("id")), status, openai_usage(response.get("usage")), error)

    def _error(self, frame: Mapping[str, Any]) -> ServerError:
        err = classify(self.provider, None, frame)
        expired = err.code == "session_expired" or "session_expired" in err.type
        return ServerError(err, fatal=expired or isinstance(err, _FATAL), expired=expired)


def _obj(frame: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    v = frame.get(key)
    return v if isinstance(v, Mapping) else {}


__all__ = ["RATE", "OpenAIRealtimeDialect", "openai_usage"]
