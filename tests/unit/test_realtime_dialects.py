"""The realtime wire converters alone (no I/O): recorded frames in, typed events out; client frames built from settings."""

from __future__ import annotations

import json

from genx.chunk import ToolResult
from genx.generators.providers.errors import AuthenticationError, ServerError
from genx.model import Usage
from genx.transformers.realtime import events as ev
from genx.transformers.realtime.gemini_live import GeminiLiveDialect, gemini_schema
from genx.transformers.realtime.openai_realtime import OpenAIRealtimeDialect
from genx.transformers.realtime.settings import RealtimeSettings
from tests.realtime_fakes import load_session


def parsed(dialect: object, name: str) -> list[ev.Event]:
    out: list[ev.Event] = []
    for f in load_session(name):
        if f["dir"] == "recv":
            out.extend(dialect.parse(f["data"]))  # type: ignore[attr-defined]
    return out


def test_the_recorded_openai_session_converts_to_one_tool_call_and_two_responses_with_usage() -> None:
    events = parsed(OpenAIRealtimeDialect(), "openai-tool-call-round.jsonl")
    calls = [e for e in events if isinstance(e, ev.ToolCallEvent)]
    assert len(calls) == 1 and calls[0].call.name == "get_weather" and json.loads(calls[0].call.arguments) == {"city": "London"}
    assert calls[0].call.id == "call_uMNE0Myi2tDTPu0w" and calls[0].response_id == "resp_E6U11oof93olA0JOwdA0H"
    dones = [e for e in events if isinstance(e, ev.ResponseDone)]
    assert [(d.status, d.usage) for d in dones] == [
        ("completed", Usage(prompt_tokens=63, generated_tokens=22)),
        ("completed", Usage(prompt_tokens=103, cached_prompt_tokens=64, generated_tokens=13)),
    ]
    assert "".join(e.text for e in events if isinstance(e, ev.TextDelta)) == "It is foggy and 12 degrees in London."
    assert not [e for e in events if isinstance(e, ev.Ignored) and e.unknown]  # every recorded event type is known
    assert sum(isinstance(e, ev.SessionReady) for e in events) == 1


def test_the_recorded_gemini_session_converts_to_a_tool_call_then_a_spoken_response() -> None:
    events = parsed(GeminiLiveDialect(), "gemini-live-tool-call-round.jsonl")
    kinds = [type(e).__name__ for e in events if not isinstance(e, ev.AudioDelta | ev.TranscriptDelta)]
    assert kinds == ["SessionReady", "ResponseStarted", "ToolCallEvent", "ResponseDone", "ResponseStarted", "Ignored", "ResponseDone"]
    audio = [e for e in events if isinstance(e, ev.AudioDelta)]
    assert len(audio) == 52 and {a.response_id for a in audio} == {"gemini-2"}
    assert "".join(e.text for e in events if isinstance(e, ev.TranscriptDelta)) == 'I have recorded a reading of 5 with the note "steady."'
    dones = [e for e in events if isinstance(e, ev.ResponseDone)]
    assert [(d.response_id, d.status) for d in dones] == [("gemini-1", "tool_call"), ("gemini-2", "completed")]
    assert dones[1].usage == Usage(prompt_tokens=1267, generated_tokens=103)


def test_openai_audio_and_transcript_events_are_read_under_their_ga_and_beta_names() -> None:
    d = OpenAIRealtimeDialect()
    for name in ("response.output_audio.delta", "response.audio.delta"):
        (e,) = d.parse({"type": name, "response_id": "r", "item_id": "i", "delta": "AAE="})
        assert e == ev.AudioDelta("r", "i", b"\x00\x01")
    for name in ("response.output_audio_transcript.delta", "response.audio_transcript.delta"):
        assert d.parse({"type": name, "response_id": "r", "item_id": "i", "delta": "hi"}) == [ev.TranscriptDelta("r", "i", "hi")]
    for name in ("response.output_text.delta", "response.text.delta"):
        assert d.parse({"type": name, "response_id": "r", "item_id": "i", "delta": "hi"}) == [ev.TextDelta("r", "i", "hi")]


def test_openai_error_events_are_typed_and_only_session_ending_ones_are_fatal() -> None:
    d = OpenAIRealtimeDialect()
    (auth,) = d.parse({"type": "error", "error": {"type": "invalid_request_error", "code": "invalid_api_key", "message": "bad key"}})
    assert isinstance(auth, ev.ServerError) and auth.fatal and isinstance(auth.error, AuthenticationError)
    (expired,) = d.parse({"type": "error", "error": {"type": "invalid_request_error", "code": "session_expired", "message": "x"}})
    assert isinstance(expired, ev.ServerError) and expired.expired
    (busy,) = d.parse({"type": "error", "error": {"type": "server_error", "message": "oops"}})
    assert isinstance(busy, ev.ServerError) and not busy.fatal and isinstance(busy.error, ServerError)


def test_openai_barge_in_cancels_only_a_running_response_and_truncates_at_the_played_ms() -> None:
    d = OpenAIRealtimeDialect()
    assert d.interrupt_frames("r", "item_1", 1234, True) == [
        {"type": "response.cancel"},
        {"type": "conversation.item.truncate", "item_id": "item_1", "content_index": 0, "audio_end_ms": 1234},
    ]
    assert d.interrupt_frames("r", "item_1", 80, False) == [
        {"type": "conversation.item.truncate", "item_id": "item_1", "content_index": 0, "audio_end_ms": 80}
    ]


def test_gemini_schemas_use_upper_case_types_and_nullable_instead_of_a_null_branch() -> None:
    schema = {
        "type": "object",
        "title": "Args",
        "properties": {
            "n": {"type": "integer", "title": "N"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "description": "free text"},
            "unit": {"type": ["string", "null"]},
        },
        "required": ["n"],
        "additionalProperties": False,
    }
    assert gemini_schema(schema) == {
        "type": "OBJECT",
        "properties": {
            "n": {"type": "INTEGER"},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}},
            "note": {"type": "STRING", "nullable": True, "description": "free text"},
            "unit": {"type": "STRING", "nullable": True},
        },
        "required": ["n"],
    }


def test_gemini_setup_asks_for_resumption_with_the_last_handle_and_manual_turns_use_activity_frames() -> None:
    d = GeminiLiveDialect()
    s = RealtimeSettings(model="gemini-live-x", turn_detection=None, voice="Puck")
    (frame,) = d.session_frames(s, resume_handle="h-9")
    setup = frame["setup"]
    assert setup["model"] == "models/gemini-live-x" and setup["sessionResumption"] == {"handle": "h-9"}
    assert setup["realtimeInputConfig"] == {"automaticActivityDetection": {"disabled": True}}
    assert setup["generationConfig"]["speechConfig"]["voiceConfig"]["prebuiltVoiceConfig"]["voiceName"] == "Puck"
    assert d.begin_turn_frames() == [{"realtimeInput": {"activityStart": {}}}]
    assert d.commit_frames() == [{"realtimeInput": {"activityEnd": {}}}]
    assert d.audio_frame(b"\x00\x01")["realtimeInput"]["audio"] == {"data": "AAE=", "mimeType": "audio/pcm;rate=16000"}


def test_gemini_interrupted_ends_the_response_and_input_transcription_becomes_final_when_the_model_answers() -> None:
    d = GeminiLiveDialect()
    assert d.parse({"serverContent": {"inputTranscription": {"text": "hello "}}}) == [ev.InputTranscript("gemini-in-1", "hello ")]
    events = d.parse({"serverContent": {"outputTranscription": {"text": "Hi"}}})
    assert events == [
        ev.InputTranscript("gemini-in-1", "hello", final=True),
        ev.ResponseStarted("gemini-1"),
        ev.TranscriptDelta("gemini-1", "", "Hi"),
    ]
    assert d.parse({"serverContent": {"interrupted": True}}) == [ev.ServerInterrupted("gemini-1"), ev.ResponseDone("gemini-1", "cancelled")]


def test_gemini_tool_errors_are_sent_as_error_responses() -> None:
    (frame,) = GeminiLiveDialect().tool_result_frames(ToolResult("c1", "f", "no such city", is_error=True))
    assert frame == {"tool_response": {"functionResponses": [{"id": "c1", "name": "f", "response": {"error": "no such city"}}]}}


def test_frames_that_are_not_objects_are_reported_as_malformed() -> None:
    for d in (OpenAIRealtimeDialect(), GeminiLiveDialect()):
        assert d.parse([1, 2]) == [ev.Ignored("malformed", unknown=True)]  # type: ignore[attr-defined]
