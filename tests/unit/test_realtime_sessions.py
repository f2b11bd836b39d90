"""Scripted realtime sessions on a local websocket server: audio, barge-in, errors, drops, timeouts, bad frames, keys, expiry."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Response

from genx.chunk import Blob, MessageChunk, Role, Text
from genx.errors import Done
from genx.generators.providers.config import ProviderConfig, Timeouts
from genx.generators.providers.errors import AuthenticationError, ModelNotFoundError, ProviderConnectionError, ProviderTimeoutError
from genx.stream import StreamBuilder
from genx.transformers.audiostream.pcm import l16_mime
from genx.transformers.realtime import RealtimeSettings, RealtimeTransformer
from genx.transformers.realtime.gemini_live import GeminiLiveDialect
from genx.transformers.realtime.openai_realtime import OpenAIRealtimeDialect
from genx.transformers.realtime.session import RealtimeSessionStream
from tests.realtime_fakes import recv_json, recv_until, ws_server

MANUAL = RealtimeSettings(model="gpt-realtime", turn_detection=None)


def config(base_url: str, read: float = 5.0, provider: str = "openai") -> ProviderConfig:
    return ProviderConfig(provider=provider, base_url=base_url, api_key="test-key", timeouts=Timeouts(connect=5, read=read))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def tone(ms: int, rate: int) -> bytes:
    n = rate * ms // 1000
    return (np.sin(np.arange(n) * 2 * np.pi * 440 / rate) * 8000).astype("<i2").tobytes()


async def openai_setup(conn: ServerConnection) -> dict[str, Any]:
    update = await recv_until(conn, "session.update")
    await conn.send(json.dumps({"type": "session.updated", "session": {"id": "sess_1"}}))
    return update


async def send(conn: ServerConnection, frame: dict[str, Any]) -> None:
    await conn.send(json.dumps(frame))


def delta(rid: str, pcm: bytes, item: str = "item_a") -> dict[str, Any]:
    return {"type": "response.output_audio.delta", "response_id": rid, "item_id": item, "delta": b64(pcm)}


def done(rid: str, status: str = "completed") -> dict[str, Any]:
    return {"type": "response.done", "response": {"id": rid, "status": status, "usage": {"input_tokens": 5, "output_tokens": 7}}}


async def pull_all(out: RealtimeSessionStream) -> tuple[list[MessageChunk], BaseException | None]:
    chunks: list[MessageChunk] = []
    while True:
        try:
            chunks.append(await out.next())
        except Done:
            return chunks, None
        except Exception as e:
            return chunks, e


async def test_a_manual_turn_is_resampled_to_24_khz_committed_and_answered_with_audio_and_transcript() -> None:
    got: dict[str, Any] = {}
    answer = [tone(40, 24000)[i : i + 960] for i in range(0, 1920, 960)]

    async def server(conn: ServerConnection) -> None:
        got["update"] = await openai_setup(conn)
        appended = bytearray()
        seen: list[Any] = []
        await recv_until(conn, "input_audio_buffer.commit", seen)
        for f in seen:
            if f["type"] == "input_audio_buffer.append":
                appended += base64.b64decode(f["audio"])
        got["appended"] = bytes(appended)
        await recv_until(conn, "response.create")
        await send(conn, {"type": "response.created", "response": {"id": "resp_1"}})
        for pcm in answer:
            await send(conn, delta("resp_1", pcm))
        for word in ("Hello", " there."):
            await send(
                conn, {"type": "response.output_audio_transcript.delta", "response_id": "resp_1", "item_id": "item_a", "delta": word}
            )
        await send(conn, done("resp_1"))
        await conn.wait_closed()

    async with ws_server(server) as url:
        inp = StreamBuilder()
        mic = tone(500, 16000)
        for i in range(0, len(mic), 640):
            inp.push(MessageChunk.blob(l16_mime(16000), mic[i : i + 640], role=Role.USER, stream_id="ptt-1"))
        inp.push(MessageChunk.eos("ptt-1", role=Role.USER))
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), MANUAL).transform(inp.stream)
        chunks: list[MessageChunk] = []
        async for c in out:
            chunks.append(c)
            if c.is_end_of_stream() and c.role == Role.ASSISTANT and c.is_control_only():
                inp.done()
    assert got["update"]["session"]["audio"]["input"]["turn_detection"] is None
    assert got["update"]["session"]["audio"]["input"]["format"] == {"type": "audio/pcm", "rate": 24000}
    # 500 ms at 16 kHz arrive as 500 ms at 24 kHz: the resampler's tail is flushed before the commit
    assert abs(len(got["appended"]) // 2 - 12000) <= 2
    audio = [c for c in chunks if isinstance(c.part, Blob) and c.part.data]
    assert b"".join(c.part.data for c in audio if isinstance(c.part, Blob)) == b"".join(answer)
    assert {c.mime() for c in audio} == {l16_mime(24000)}
    assert "".join(c.part.text for c in chunks if isinstance(c.part, Text) and c.label == "transcript") == "Hello there."
    assert len({c.stream_id for c in chunks if c.role == Role.ASSISTANT}) == 1


async def test_a_barge_in_cancels_and_truncates_at_the_played_position_and_keeps_the_pulled_prefix() -> None:
    received: list[Any] = []
    truncated = asyncio.Event()
    block = tone(100, 24000)  # 100 ms per delta

    async def server(conn: ServerConnection) -> None:
        await openai_setup(conn)
        await recv_until(conn, "response.create")
        await send(conn, {"type": "response.created", "response": {"id": "resp_1"}})
        for _ in range(10):
            await send(conn, delta("resp_1", block, "item_42"))
        received.append(await recv_json(conn))
        received.append(await recv_json(conn))
        truncated.set()
        await send(conn, done("resp_1", "cancelled"))
        await conn.wait_closed()

    async with ws_server(server) as url:
        inp = StreamBuilder()
        inp.push(MessageChunk.text("Tell me a long story.", role=Role.USER))
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), MANUAL).transform(inp.stream)
        pulled: list[MessageChunk] = []
        while sum(1 for c in pulled if isinstance(c.part, Blob)) < 3:
            pulled.append(await out.next())
        cut = out.interrupt()
        assert cut is not None and cut.played_ms == 300 and cut.item_id == "item_42"
        rest: list[MessageChunk] = []
        rest.append(await out.next())
        await truncated.wait()
        inp.done()
        more, err = await pull_all(out)
        rest += more
    assert err is None
    assert received == [
        {"type": "response.cancel"},
        {"type": "conversation.item.truncate", "item_id": "item_42", "content_index": 0, "audio_end_ms": 300},
    ]
    assert not any(isinstance(c.part, Blob) and c.part.data for c in rest)  # the unpulled audio is gone
    eos = [c for c in rest if c.is_end_of_stream()]
    assert eos and all(c.error == "interrupted" for c in eos) and eos[0].stream_id == cut.stream_id


async def test_the_truncate_carries_the_played_ms_the_caller_gives() -> None:
    received: list[Any] = []
    got = asyncio.Event()

    async def server(conn: ServerConnection) -> None:
        await openai_setup(conn)
        await recv_until(conn, "response.create")
        await send(conn, {"type": "response.created", "response": {"id": "resp_1"}})
        for _ in range(4):
            await send(conn, delta("resp_1", tone(100, 24000), "item_7"))
        received.append(await recv_json(conn))
        received.append(await recv_json(conn))
        got.set()
        await send(conn, done("resp_1", "cancelled"))
        await conn.wait_closed()

    async with ws_server(server) as url:
        inp = StreamBuilder()
        inp.push(MessageChunk.text("Hi", role=Role.USER))
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), MANUAL).transform(inp.stream)
        while not isinstance((await out.next()).part, Blob):
            pass
        cut = out.interrupt(played_ms=250.7)  # the player's own position, not what was pulled
        await got.wait()
        inp.done()
        await pull_all(out)
    assert cut is not None and cut.played_ms == 250
    assert received[1] == {"type": "conversation.item.truncate", "item_id": "item_7", "content_index": 0, "audio_end_ms": 250}


async def test_a_server_error_event_is_reported_and_the_session_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    async def server(conn: ServerConnection) -> None:
        await openai_setup(conn)
        await recv_until(conn, "response.create")
        err = {"type": "invalid_request_error", "code": "conversation_already_has_active_response", "message": "busy"}
        await send(conn, {"type": "error", "error": err})
        await send(conn, {"type": "response.created", "response": {"id": "resp_1"}})
        await send(conn, {"type": "response.output_text.delta", "response_id": "resp_1", "item_id": "i", "delta": "ok"})
        await send(conn, done("resp_1"))
        await conn.wait_closed()

    async with ws_server(server) as url:
        inp = StreamBuilder()
        inp.push(MessageChunk.text("Hi", role=Role.USER))
        settings = RealtimeSettings(model="gpt-realtime", output_modalities=("text",))
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), settings).transform(inp.stream)
        inp.done()
        chunks, err = await pull_all(out)
    assert err is None
    notes = [c for c in chunks if c.label == "error"]
    assert len(notes) == 1 and "busy" in notes[0].error and "conversation_already_has_active_response" in notes[0].error
    assert "".join(c.part.text for c in chunks if isinstance(c.part, Text)) == "ok"


async def test_an_auth_error_event_ends_the_stream_with_a_typed_auth_error() -> None:
    async def server(conn: ServerConnection) -> None:
        await recv_until(conn, "session.update")
        await send(
            conn, {"type": "error", "error": {"type": "invalid_request_error", "code": "invalid_api_key", "message": "Incorrect API key"}}
        )
        await conn.wait_closed()

    async with ws_server(server) as url:
        inp = StreamBuilder()
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), MANUAL).transform(inp.stream)
        _, err = await pull_all(out)
    assert isinstance(err, AuthenticationError) and "Incorrect API key" in str(err)


async def test_a_refused_handshake_with_a_wrong_key_is_a_typed_auth_error() -> None:
    def refuse(conn: ServerConnection, request: Any) -> Response:
        body = json.dumps({"error": {"type": "invalid_request_error", "code": "invalid_api_key", "message": "Incorrect API key provided"}})
        return Response(401, "Unauthorized", Headers([("Content-Type", "application/json")]), body.encode())

    async def never(conn: ServerConnection) -> None:  # pragma: no cover - the handshake is refused
        await conn.wait_closed()

    async with ws_server(never, process_request=refuse) as url:
        inp = StreamBuilder()
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), MANUAL).transform(inp.stream)
        _, err = await pull_all(out)
    assert isinstance(err, AuthenticationError) and err.status == 401


async def test_a_connection_dropped_mid_response_ends_the_response_and_raises_a_connection_error() -> None:
    async def server(conn: ServerConnection) -> None:
        await openai_setup(conn)
        await recv_until(conn, "response.create")
        await send(conn, {"type": "response.created", "response": {"id": "resp_1"}})
        await send(conn, delta("resp_1", tone(20, 24000)))
        conn.transport.abort()  # no close frame

    async with ws_server(server) as url:
        inp = StreamBuilder()
        inp.push(MessageChunk.text("Hi", role=Role.USER))
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), MANUAL).transform(inp.stream)
        chunks, err = await pull_all(out)
    assert isinstance(err, ProviderConnectionError) and "dropped" in str(err)
    assert any(isinstance(c.part, Blob) and c.part.data for c in chunks)  # what came before the drop is delivered
    assert chunks[-1].is_end_of_stream() and chunks[-1].error  # the open response ends with the error


async def test_a_server_that_stops_answering_times_out_with_a_typed_error() -> None:
    async def server(conn: ServerConnection) -> None:
        await openai_setup(conn)
        await recv_until(conn, "response.create")
        await conn.wait_closed()  # silence

    async with ws_server(server) as url:
        inp = StreamBuilder()
        inp.push(MessageChunk.text("Hi", role=Role.USER))
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url, read=0.3), MANUAL).transform(inp.stream)
        _, err = await pull_all(out)
    assert isinstance(err, ProviderTimeoutError) and "read timeout" in str(err)


async def test_an_idle_session_waiting_for_the_user_does_not_time_out() -> None:
    idle = asyncio.Event()

    async def server(conn: ServerConnection) -> None:
        await openai_setup(conn)
        await asyncio.sleep(0.5)  # longer than the read timeout, nothing asked
        idle.set()
        await recv_until(conn, "response.create")
        await send(conn, {"type": "response.created", "response": {"id": "r"}})
        await send(conn, done("r"))
        await conn.wait_closed()

    async with ws_server(server) as url:
        inp = StreamBuilder()
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url, read=0.2), MANUAL).transform(inp.stream)
        await idle.wait()
        inp.push(MessageChunk.text("Hi", role=Role.USER))
        inp.done()
        chunks, err = await pull_all(out)
    assert err is None and any(c.meta and c.meta.get("status") == "completed" for c in chunks)


async def test_malformed_and_unknown_frames_are_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    async def server(conn: ServerConnection) -> None:
        await openai_setup(conn)
        await recv_until(conn, "response.create")
        await conn.send("this is not json")
        await send(conn, {"type": "response.brand_new_event", "x": 1})
        await send(conn, {"no": "type"})
        await send(conn, {"type": "response.created", "response": {"id": "r"}})
        await send(conn, {"type": "response.output_audio.delta", "response_id": "r", "item_id": "i", "delta": "%%%not base64"})
        await send(conn, delta("r", b"\x01\x00\x02\x00"))
        await send(conn, done("r"))
        await conn.wait_closed()

    caplog.set_level(logging.WARNING)
    async with ws_server(server) as url:
        inp = StreamBuilder()
        inp.push(MessageChunk.text("Hi", role=Role.USER))
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), MANUAL).transform(inp.stream)
        inp.done()
        chunks, err = await pull_all(out)
    assert err is None
    assert [c.part.data for c in chunks if isinstance(c.part, Blob)] == [b"\x01\x00\x02\x00"]
    logged = caplog.text
    assert "not JSON" in logged and "response.brand_new_event" in logged and "malformed" in logged and "invalid base64" in logged


async def test_a_gemini_close_frame_for_a_bad_key_is_a_typed_auth_error() -> None:
    async def server(conn: ServerConnection) -> None:
        await recv_json(conn)
        await conn.close(1008, "API key not valid. Please pass a valid API key.")

    async with ws_server(server) as url:
        inp = StreamBuilder()
        settings = RealtimeSettings(model="gemini-live-x")
        out = await RealtimeTransformer(GeminiLiveDialect, config(url, provider="gemini"), settings).transform(inp.stream)
        _, err = await pull_all(out)
    assert isinstance(err, AuthenticationError) and "API key not valid" in str(err)


async def test_a_gemini_close_frame_for_an_unknown_model_is_a_typed_model_error() -> None:
    async def server(conn: ServerConnection) -> None:
        await recv_json(conn)
        await conn.close(1008, "models/gemini-nope is not found for API version v1beta, or is not supported for bidiGenerateContent.")

    async with ws_server(server) as url:
        inp = StreamBuilder()
        out = await RealtimeTransformer(GeminiLiveDialect, config(url, provider="gemini"), RealtimeSettings(model="gemini-nope")).transform(
            inp.stream
        )
        _, err = await pull_all(out)
    assert isinstance(err, ModelNotFoundError)


async def test_an_expiring_gemini_session_reconnects_with_its_resumption_handle() -> None:
    setups: list[Any] = []

    async def server(conn: ServerConnection) -> None:
        setup = await recv_json(conn)
        setups.append(setup["setup"])
        await send(conn, {"setupComplete": {}})
        if len(setups) == 1:
            await send(conn, {"sessionResumptionUpdate": {"newHandle": "handle-1", "resumable": True}})
            await send(conn, {"goAway": {"timeLeft": "1s"}})
            await conn.close(1000, "session time limit")
            return
        turn = await recv_json(conn)
        assert turn["client_content"]["turns"][0]["parts"][0]["text"] == "Are you still there?"
        await send(conn, {"serverContent": {"outputTranscription": {"text": "Yes."}}})
        await send(
            conn,
            {
                "serverContent": {
                    "modelTurn": {"parts": [{"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": b64(b"\x00\x01" * 8)}}]}
                }
            },
        )
        await send(conn, {"serverContent": {"turnComplete": True}})
        await conn.wait_closed()

    async with ws_server(server) as url:
        inp = StreamBuilder()
        rt = RealtimeTransformer(GeminiLiveDialect, config(url, provider="gemini"), RealtimeSettings(model="gemini-live-x"))
        out = await rt.transform(inp.stream)
        first = await out.next()
        assert first.label == "reconnect" and "resumed" in first.error
        inp.push(MessageChunk.text("Are you still there?", role=Role.USER))
        inp.done()
        chunks, err = await pull_all(out)
    assert err is None
    assert setups[0]["sessionResumption"] == {} and setups[1]["sessionResumption"] == {"handle": "handle-1"}
    assert "".join(c.part.text for c in chunks if isinstance(c.part, Text)) == "Yes."


async def test_an_expired_openai_session_starts_fresh_with_the_conversation_replayed_as_text() -> None:
    sessions: list[list[Any]] = []

    async def server(conn: ServerConnection) -> None:
        seen: list[Any] = []
        sessions.append(seen)
        await openai_setup(conn)
        if len(sessions) == 1:
            await recv_until(conn, "response.create")
            await send(conn, {"type": "response.created", "response": {"id": "r1"}})
            await send(conn, {"type": "response.output_text.delta", "response_id": "r1", "item_id": "i1", "delta": "Paris."})
            await send(conn, done("r1"))
            await send(conn, {"type": "error", "error": {"type": "invalid_request_error", "code": "session_expired", "message": "expired"}})
            await conn.wait_closed()
            return
        await recv_until(conn, "response.create", seen)
        await send(conn, {"type": "response.created", "response": {"id": "r2"}})
        await send(conn, {"type": "response.output_text.delta", "response_id": "r2", "item_id": "i2", "delta": "Lyon."})
        await send(conn, done("r2"))
        await conn.wait_closed()

    async with ws_server(server) as url:
        inp = StreamBuilder()
        inp.push(MessageChunk.text("Capital of France?", role=Role.USER))
        settings = RealtimeSettings(model="gpt-realtime", output_modalities=("text",), turn_detection=None)
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), settings).transform(inp.stream)
        chunks: list[MessageChunk] = []
        async for c in out:
            chunks.append(c)
            if c.label == "reconnect":
                inp.push(MessageChunk.text("And its second city?", role=Role.USER))
                inp.done()
    assert next(c for c in chunks if c.label == "reconnect").error.startswith("the session expired")
    replayed = [f["item"] for f in sessions[1] if f["type"] == "conversation.item.create"]
    assert [(i["role"], i["content"][0]["text"]) for i in replayed] == [
        ("user", "Capital of France?"),
        ("assistant", "Paris."),
        ("user", "And its second city?"),
    ]
    assert "".join(c.part.text for c in chunks if isinstance(c.part, Text)) == "Paris.Lyon."


async def test_a_response_whose_end_was_pulled_is_still_truncated_by_its_stream_id_without_a_cancel() -> None:
    received: list[Any] = []
    got = asyncio.Event()

    async def server(conn: ServerConnection) -> None:
        await openai_setup(conn)
        await recv_until(conn, "response.create")
        await send(conn, {"type": "response.created", "response": {"id": "resp_1"}})
        for _ in range(5):
            await send(conn, delta("resp_1", tone(100, 24000), "item_9"))
        await send(conn, done("resp_1"))
        received.append(await recv_json(conn))
        got.set()
        await conn.wait_closed()

    async with ws_server(server) as url:
        inp = StreamBuilder()
        inp.push(MessageChunk.text("Hi", role=Role.USER))
        out = await RealtimeTransformer(OpenAIRealtimeDialect, config(url), MANUAL).transform(inp.stream)
        chunks: list[MessageChunk] = []
        while not (chunks and chunks[-1].is_end_of_stream() and chunks[-1].role == Role.ASSISTANT):
            chunks.append(await out.next())  # everything, the response's EOS too (a player buffers it)
        sid = chunks[-1].stream_id
        assert out.interrupt(120) is None  # no active response any more
        cut = out.interrupt(120, stream_id=sid)
        await got.wait()
        again = out.interrupt(300, stream_id=sid)
        inp.done()
        await pull_all(out)
    assert cut is not None and (cut.response_id, cut.item_id, cut.played_ms) == ("resp_1", "item_9", 120)
    assert received == [{"type": "conversation.item.truncate", "item_id": "item_9", "content_index": 0, "audio_end_ms": 120}]
    assert again is None  # cut once


async def test_a_model_given_a_history_replays_it_as_text_items_before_the_first_input() -> None:
    from genx.transformers.realtime.events import HistoryItem

    frames: list[Any] = []
    got = asyncio.Event()

    async def server(conn: ServerConnection) -> None:
        await openai_setup(conn)
        frames.extend([await recv_json(conn) for _ in range(4)])
        got.set()
        await conn.wait_closed()

    async with ws_server(server) as url:
        model = RealtimeTransformer(OpenAIRealtimeDialect, config(url), MANUAL).with_history(
            [HistoryItem("user", "Tell me a story"), HistoryItem("assistant", "Once upon a time"), HistoryItem("user", " ")]
        )
        inp = StreamBuilder()
        inp.push(MessageChunk.text("Go on", role=Role.USER))
        out = await model.transform(inp.stream)
        await got.wait()
        inp.done()
        await out.close()
    assert [(f["type"], f.get("item", {}).get("role"), f.get("item", {}).get("content")) for f in frames] == [
        ("conversation.item.create", "user", [{"type": "input_text", "text": "Tell me a story"}]),
        ("conversation.item.create", "assistant", [{"type": "output_text", "text": "Once upon a time"}]),
        ("conversation.item.create", "user", [{"type": "input_text", "text": "Go on"}]),
        ("response.create", None, None),
    ]
