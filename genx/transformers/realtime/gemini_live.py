"""Gemini Live (``BidiGenerateContent``) over a websocket.

Client frames: ``setup`` (model, response modality, voice, system instruction,
function declarations in Gemini's schema dialect, input / output audio
transcription, manual activity detection, ``sessionResumption`` with the last
handle on reconnect), ``realtimeInput`` audio (PCM 16 kHz; ``activityStart`` /
``activityEnd`` for manual turns), ``client_content`` text turns and
``tool_response`` (snake case, as the recorded sessions send them; the server
reads both spellings).

Server frames → :mod:`.events`: ``setupComplete`` → ready; ``serverContent``
model audio (24 kHz) / text parts, ``outputTranscription``, ``inputTranscription``
(user text; final when the model answers), ``interrupted`` (the server stopped
the answer), ``turnComplete`` with ``usageMetadata``; ``toolCall`` (ends the
response that asked; the model goes on in a new one after ``tool_response``);
``sessionResumptionUpdate``; ``goAway``. Gemini has no response ids: this
dialect numbers them (``gemini-1``, ``gemini-2`` …). Errors come as close
frames (see the transport).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from genx.chunk import FuncCall, ToolResult
from genx.generators.providers.convert import as_int
from genx.model import Usage
from genx.transformers.realtime.events import (
    AudioDelta,
    Event,
    Frame,
    GoAway,
    HistoryItem,
    Ignored,
    InputTranscript,
    ResponseDone,
    ResponseStarted,
    ResumptionHandle,
    ServerInterrupted,
    SessionReady,
    TextDelta,
    ToolCallEvent,
    TranscriptDelta,
)
from genx.transformers.realtime.settings import RealtimeSettings
from genx.transformers.realtime.wire import as_str, b64decode, b64encode, merged, ws_url

INPUT_RATE = 16000
OUTPUT_RATE = 24000
PATH = "ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
_DROP_KEYS = frozenset({"additionalProperties", "title", "default", "$schema", "examples"})


def gemini_schema(schema: Any) -> Any:
    """A JSON Schema as Gemini's OpenAPI-subset ``Schema``: upper-case types, ``anyOf [X, null]`` → ``X`` + ``nullable``."""
    if isinstance(schema, list):
        return [gemini_schema(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    node = dict(schema)
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        rest = [s for s in any_of if not (isinstance(s, Mapping) and s.get("type") == "null")]
        if len(rest) < len(any_of):
            node.pop("anyOf")
            node["nullable"] = True
            if len(rest) == 1 and isinstance(rest[0], Mapping):
                node = {**dict(rest[0]), **node}
            else:
                node["anyOf"] = rest
    t = node.get("type")
    if isinstance(t, list):
        kinds = [k for k in t if k != "null"]
        if len(kinds) < len(t):
            node["nullable"] = True
        t = kinds[0] if len(kinds) == 1 else t
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in _DROP_KEYS:
            continue
        if k == "type":
            out[k] = t.upper() if isinstance(t, str) else t
        elif k == "properties" and isinstance(v, Mapping):
            out[k] = {name: gemini_schema(s) for name, s in v.items()}
        elif k in ("items", "anyOf"):
            out[k] = gemini_schema(v)
        else:
            out[k] = v
    return out


def gemini_live_usage(u: Any) -> Usage | None:
    if not isinstance(u, Mapping):
        return None
    thoughts = as_int(u.get("thoughtsTokenCount"))
    return Usage(
        prompt_tokens=as_int(u.get("promptTokenCount")),
        cached_prompt_tokens=as_int(u.get("cachedContentTokenCount")),
        generated_tokens=as_int(u.get("responseTokenCount")) + thoughts,
        thinking_tokens=thoughts,
    )


class GeminiLiveDialect:
    """Pure converter for one Gemini Live session; numbers responses and user turns itself."""

    __slots__ = ("_current", "_heard", "_manual", "_seq", "_turn", "_usage", "input_rate", "output_rate", "provider")

    def __init__(self, provider: str = "gemini") -> None:
        self.provider = provider
        self.input_rate = INPUT_RATE
        self.output_rate = OUTPUT_RATE
        self._seq = 0
        self._current = ""  # the open response's id
        self._turn = 0  # user-turn counter (input transcription item ids)
        self._heard: list[str] = []  # input transcription fragments of the open user turn
        self._usage: Usage | None = None
        self._manual = False

    def url(self, base_url: str, model: str) -> str:
        return ws_url(base_url, PATH)

    # -- client frames ---------------------------------------------------------
    def session_frames(
        self, settings: RealtimeSettings, *, resume_handle: str = "", history: list[HistoryItem] | None = None
    ) -> list[Frame]:
        self._manual = settings.turn_detection is None
        model = settings.model if settings.model.startswith("models/") else f"models/{settings.model}"
        gen: dict[str, Any] = {"responseModalities": [m.upper() for m in settings.output_modalities]}
        if settings.voice:
            gen["speechConfig"] = {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": settings.voice}}}
        setup: dict[str, Any] = {"model": model, "generationConfig": gen}
        if settings.instructions:
            setup["systemInstruction"] = {"parts": [{"text": settings.instructions}], "role": "user"}
        if settings.tools:
            decls = [{"description": t.description, "name": t.name, "parameters": gemini_schema(t.schema)} for t in settings.tools]
            setup["tools"] = [{"functionDeclarations": decls}]
        if settings.input_transcription:
            setup["inputAudioTranscription"] = {}
        if settings.output_transcription and settings.audio_out:
            setup["outputAudioTranscription"] = {}
        if self._manual:
            setup["realtimeInputConfig"] = {"automaticActivityDetection": {"disabled": True}}
        if settings.session_resumption:
            setup["sessionResumption"] = {"handle": resume_handle} if resume_handle else {}
        frames: list[Frame] = [{"setup": merged(setup, settings.extra)}]
        if history:
            turns = [{"parts": [{"text": h.text}], "role": "user" if h.role == "user" else "model"} for h in history]
            frames.append({"client_content": {"turns": turns, "turnComplete": False}})
        return frames

    def audio_frame(self, pcm: bytes) -> Frame:
        return {"realtimeInput": {"audio": {"data": b64encode(pcm), "mimeType": f"audio/pcm;rate={INPUT_RATE}"}}}

    def begin_turn_frames(self) -> list[Frame]:
        return [{"realtimeInput": {"activityStart": {}}}] if self._manual else []

    def commit_frames(self) -> list[Frame]:
        return [{"realtimeInput": {"activityEnd": {}}}] if self._manual else [{"realtimeInput": {"audioStreamEnd": True}}]

    def text_frames(self, text: str) -> list[Frame]:
        return [{"client_content": {"turns": [{"parts": [{"text": text}], "role": "user"}], "turnComplete": True}}]

    def tool_result_frames(self, result: ToolResult) -> list[Frame]:
        body = {"error": result.content} if result.is_error else {"output": result.content}
        return [{"tool_response": {"functionResponses": [{"id": result.call_id, "name": result.name, "response": body}]}}]

    def respond_frames(self) -> list[Frame]:
        return []

    def interrupt_frames(self, response_id: str, item_id: str, played_ms: int, in_progress: bool) -> list[Frame]:
        return []  # the server stops on the user's speech itself; there is nothing to truncate

    # -- server frames ---------------------------------------------------------
    def parse(self, frame: Any) -> list[Event]:
        if not isinstance(frame, Mapping) or not frame:
            return [Ignored("malformed", unknown=True)]
        out: list[Event] = []
        if "usageMetadata" in frame:
            self._usage = gemini_live_usage(frame["usageMetadata"])
        known = False
        if "setupComplete" in frame:
            known = True
            out.append(SessionReady())
        sc = frame.get("serverContent")
        if isinstance(sc, Mapping):
            known = True
            out.extend(self._content(sc))
        tc = frame.get("toolCall")
        if isinstance(tc, Mapping):
            known = True
            out.extend(self._tool_call(tc))
        upd = frame.get("sessionResumptionUpdate")
        if isinstance(upd, Mapping):
            known = True
            handle = as_str(upd.get("newHandle"))
            if handle:
                out.append(ResumptionHandle(handle, bool(upd.get("resumable", True))))
        ga = frame.get("goAway")
        if isinstance(ga, Mapping):
            known = True
            out.append(GoAway(as_str(ga.get("timeLeft"))))
        if "toolCallCancellation" in frame:
            known = True
            out.append(Ignored("toolCallCancellation"))
        if not known:
            return [Ignored("usageMetadata")] if "usageMetadata" in frame else [Ignored(",".join(sorted(map(str, frame))), unknown=True)]
        return out

    def _start(self, out: list[Event]) -> str:
        if not self._current:
            self._seq += 1
            self._current = f"gemini-{self._seq}"
            out.extend(self._user_turn_final())
            out.append(ResponseStarted(self._current))
        return self._current

    def _user_turn_final(self) -> list[Event]:
        if not self._heard:
            return []
        text, self._heard = "".join(self._heard).strip(), []
        return [InputTranscript(f"gemini-in-{self._turn}", text, final=True)]

    def _content(self, sc: Mapping[str, Any]) -> list[Event]:
        out: list[Event] = []
        it = sc.get("inputTranscription")
        if isinstance(it, Mapping) and as_str(it.get("text")):
            if not self._heard:
                self._turn += 1
            self._heard.append(as_str(it.get("text")))
            out.append(InputTranscript(f"gemini-in-{self._turn}", as_str(it.get("text"))))
        turn = sc.get("modelTurn")
        parts = turn.get("parts") if isinstance(turn, Mapping) else None
        for p in parts if isinstance(parts, list) else []:
            if not isinstance(p, Mapping) or p.get("thought"):
                continue
            inline = p.get("inlineData")
            if isinstance(inline, Mapping) and as_str(inline.get("mimeType")).startswith("audio/"):
                pcm = b64decode(inline.get("data"))
                rid = self._start(out)
                out.append(AudioDelta(rid, "", pcm) if pcm is not None else Ignored("inlineData (invalid base64)", unknown=True))
            elif as_str(p.get("text")):
                out.append(TextDelta(self._start(out), "", as_str(p.get("text"))))
        ot = sc.get("outputTranscription")
        if isinstance(ot, Mapping) and as_str(ot.get("text")):
            out.append(TranscriptDelta(self._start(out), "", as_str(ot.get("text"))))
        if sc.get("interrupted"):
            if self._current:
                out.append(ServerInterrupted(self._current))
                out.append(self._end("cancelled"))
            else:
                out.append(Ignored("interrupted"))
        if sc.get("turnComplete"):
            out.extend(self._user_turn_final())
            out.append(self._end("completed") if self._current else Ignored("turnComplete"))
        if not out:
            out.append(Ignored("serverContent"))
        return out

    def _tool_call(self, tc: Mapping[str, Any]) -> list[Event]:
        out: list[Event] = []
        calls = tc.get("functionCalls")
        for fc in calls if isinstance(calls, list) else []:
            if not isinstance(fc, Mapping):
                continue
            args = fc.get("args")
            text = json.dumps(args, ensure_ascii=False, separators=(",", ":")) if isinstance(args, Mapping) else "{}"
            out.append(ToolCallEvent(self._start(out), FuncCall(as_str(fc.get("name")), text, as_str(fc.get("id")))))
        if self._current:
            out.append(self._end("tool_call"))
        return out or [Ignored("toolCall")]

    def _end(self, status: str) -> ResponseDone:
        done = ResponseDone(self._current, status, self._usage)
        self._current = ""
        self._usage = None
        return done


__all__ = ["INPUT_RATE", "OUTPUT_RATE", "GeminiLiveDialect", "gemini_live_usage", "gemini_schema"]
