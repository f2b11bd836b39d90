"""The voice loop in realtime mode on fakes: a scripted realtime model, the virtual player and clock.

The test plays the provider (tests/realtime_loop_fakes.py); the loop's own parts
(VAD, player, heard tracking, recorder, store) are the cascade's. Expected heard
positions come from the virtual player's own counters, expected heard words from
the transcript's characters at that share of the audio.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from genx.agentkit.events import AssistantDone, BargeIn, LoopError, LoopState, SpeechStarted, TurnMetrics, UserFinal
from genx.agentkit.heard import HEARD_MARGIN_S  # a word counts once its sound ended this long ago
from genx.agentkit.store import ConversationStore
from genx.agentkit.testing import Rig
from genx.chunk import Blob, FuncCall, Role, Text, ToolResult
from genx.generators.providers.config import ProviderConfig, Timeouts
from genx.generators.providers.errors import AuthenticationError
from genx.tools import FuncTool
from genx.transformers.realtime import RealtimeSettings, RealtimeTransformer
from genx.transformers.realtime.openai_realtime import OpenAIRealtimeDialect
from tests.realtime_fakes import ws_server
from tests.realtime_loop_fakes import RATE, ScriptedRealtime, Settings, heard_words, tone_ms

LATENCY_MS = 30  # the rig's virtual player
STORY = "Once upon a time a small fox lived in a deep green forest near a quiet river."


def heard_ms(rig: Rig, sid: str) -> int:
    route = rig.player.route(sid)
    assert route is not None
    return (route.played - LATENCY_MS * RATE // 1000) * 1000 // RATE


async def test_a_spoken_question_is_answered_with_the_sessions_audio_and_the_transcript_is_stored(tmp_path: Path) -> None:
    rt = ScriptedRealtime()
    store = ConversationStore(tmp_path)
    rig = Rig(speech=[(0.2, 1.0)], realtime=rt, store=store)
    await rig.start()
    await rig.run_until(1.5)
    s = rt.session
    # hands-free with the provider's VAD: the processed microphone audio streams to the session as it comes
    assert abs(s.audio_bytes() - 1.5 * RATE * 2) <= 2 * 320
    assert {c.part.mime for c in s.inputs if isinstance(c.part, Blob)} == {"audio/l16; channels=1; rate=16000"}
    s.user_said("What time is it?")
    sid = s.respond("It is noon.", 800)
    await rig.run_until(3.0)
    await rig.loop.flush_store()
    route = rig.player.route(sid)
    assert route is not None and bytes(route.audio) == tone_ms(800)  # every byte of the answer was played, once
    assert [e.text for e in rig.of(UserFinal)] == ["What time is it?"]
    done = rig.of(AssistantDone)
    assert len(done) == 1 and not done[0].interrupted and done[0].spoken_text == "It is noon."
    assert done[0].turn_id == rig.of(SpeechStarted)[0].turn_id
    assert [(t.user_text, t.assistant_text) for t in rig.loop.history.turns()] == [("What time is it?", "It is noon.")]
    recs = store.load(rig.loop.conversation_id)
    assert [(r.user_text, r.assistant_text, r.interrupted) for r in recs] == [("What time is it?", "It is noon.", False)]
    m = rig.of(TurnMetrics)[0]
    assert m.v2v_ms is not None and m.v2v_ms > 0  # voice-to-voice: end of speech → first audio heard
    assert s.interrupts == []
    assert rig.loop.state is LoopState.LISTENING
    await rig.stop()


async def test_a_user_transcript_that_arrives_after_a_short_answer_ended_is_still_stored_with_that_turn(tmp_path: Path) -> None:
    rt = ScriptedRealtime()
    store = ConversationStore(tmp_path)
    rig = Rig(speech=[(0.2, 1.0)], realtime=rt, store=store)
    await rig.start()
    await rig.run_until(1.4)
    s = rt.session
    user = s.speech_started()  # the provider's VAD heard it; its transcription is still running
    s.respond("Yes.", 300)
    await rig.run_until(2.2)
    assert len(rig.of(AssistantDone)) == 1  # heard to the end ...
    assert rig.loop.history.turns() == []  # ... but recorded only with the user's words
    s.transcript(user, "Is it raining?")
    await rig.run_until(2.3)
    await rig.loop.flush_store()
    assert [(t.user_text, t.assistant_text) for t in rig.loop.history.turns()] == [("Is it raining?", "Yes.")]
    assert [(r.user_text, r.assistant_text) for r in store.load(rig.loop.conversation_id)] == [("Is it raining?", "Yes.")]
    await rig.stop()


async def test_speech_over_the_answer_stops_it_truncates_the_item_at_the_heard_ms_and_history_keeps_the_heard_words() -> None:
    rt = ScriptedRealtime()
    rig = Rig(speech=[(0.2, 1.0), (3.0, 3.6)], realtime=rt)
    await rig.start()
    await rig.run_until(1.5)
    s = rt.session
    s.user_said("Tell me a story.")
    sid = s.respond(STORY, 4000)
    await rig.run_until(3.4)
    route = rig.player.route(sid)
    assert route is not None
    ms = heard_ms(rig, sid)
    assert 1000 < ms < 2000  # cut in the middle, at the onset of the new speech
    assert s.interrupts == [(sid, ms)]
    assert len(route.audio) == route.played * 2 < len(tone_ms(4000))  # only the played audio reached the device
    barge = rig.of(BargeIn)
    assert len(barge) == 1 and barge[0].latency_ms < 150
    done = rig.of(AssistantDone)[0]
    assert done.interrupted and done.spoken_text == heard_words(STORY, (ms - 1000 * HEARD_MARGIN_S) / 4000)
    assert done.spoken_text and done.spoken_text != STORY
    assert rig.loop.history.turns()[0].assistant_text == done.spoken_text
    assert len(rig.of(SpeechStarted)) == 2  # the interruption opened the next turn
    await rig.stop()


async def test_audio_the_provider_still_sends_for_a_cut_response_is_dropped_and_never_becomes_a_new_answer() -> None:
    rt = ScriptedRealtime()
    rig = Rig(speech=[(0.2, 1.0), (2.5, 3.0)], realtime=rt)
    await rig.start()
    await rig.run_until(1.5)
    s = rt.session
    s.user_said("Tell me a story.")
    sid = s.respond(STORY, 2000, done=False)  # still streaming when the user speaks again
    await rig.run_until(2.8)
    assert len(rig.of(AssistantDone)) == 1 and rig.of(AssistantDone)[0].interrupted
    route = rig.player.route(sid)
    assert route is not None
    played = route.played
    s.audio(sid, 1500)  # the provider's deltas that were on the way (its cancel had not arrived yet)
    s.end(sid, "cancelled")
    await rig.run_until(4.5)
    assert len(rig.of(AssistantDone)) == 1  # no second answer made of the cut response's tail
    assert route.played == played and len(route.audio) == played * 2
    assert s.interrupts == [(sid, heard_ms(rig, sid))]
    await rig.stop()


async def test_the_providers_speech_start_cuts_the_answer_even_when_the_local_vad_heard_nothing() -> None:
    rt = ScriptedRealtime()
    rig = Rig(speech=[(0.2, 1.0)], realtime=rt)
    await rig.start()
    await rig.run_until(1.5)
    s = rt.session
    s.user_said("Tell me a story.")
    sid = s.respond(STORY, 4000)
    await rig.run_until(2.5)
    s.speech_started()
    await rig.run_until(2.7)
    ms = heard_ms(rig, sid)
    assert s.interrupts == [(sid, ms)] and 500 < ms < 1500
    done = rig.of(AssistantDone)[0]
    assert done.interrupted and done.spoken_text == heard_words(STORY, (ms - 1000 * HEARD_MARGIN_S) / 4000)
    await rig.stop()


async def test_the_providers_own_interruption_cuts_the_playing_answer_at_the_heard_position() -> None:
    rt = ScriptedRealtime(Settings(turn_detection="server_vad"))
    rig = Rig(speech=[(0.2, 1.0)], realtime=rt)
    await rig.start()
    await rig.run_until(1.5)
    s = rt.session
    sid = s.respond(STORY, 3000, done=False)
    await rig.run_until(2.2)
    s.server_interrupted(sid)
    await rig.run_until(2.4)
    done = rig.of(AssistantDone)
    assert len(done) == 1 and done[0].interrupted
    assert s.interrupts == [(sid, heard_ms(rig, sid))]
    await rig.stop()


async def test_a_typed_message_goes_to_the_session_as_text_and_a_text_answer_is_shown_and_stored() -> None:
    rt = ScriptedRealtime()
    rig = Rig(realtime=rt)
    await rig.start()
    rig.loop.send_text("Hello there")
    await rig.run_until(0.1)
    s = rt.session
    typed = [c for c in s.inputs if isinstance(c.part, Text)]
    assert [(c.part.text, c.role) for c in typed if isinstance(c.part, Text)] == [("Hello there", Role.USER)]
    assert [(e.text, e.typed) for e in rig.of(UserFinal)] == [("Hello there", True)]
    s.respond(text="Hi! How can I help?")
    await rig.run_until(0.5)
    done = rig.of(AssistantDone)
    assert len(done) == 1 and done[0].spoken_text == "Hi! How can I help?" and not done[0].interrupted
    assert [(t.user_text, t.assistant_text) for t in rig.loop.history.turns()] == [("Hello there", "Hi! How can I help?")]
    await rig.stop()


async def test_a_tool_call_runs_through_the_tool_runner_and_the_answer_after_it_belongs_to_the_same_turn() -> None:
    def add(a: int, b: int) -> str:
        """Add two numbers."""
        return f"{a + b}"

    tool = FuncTool.from_function(add)
    rt = ScriptedRealtime()
    rig = Rig(realtime=rt, realtime_tools=[tool])
    await rig.start()
    assert [t.name for t in rt.tools] == ["add"]  # the session offers the loop's tools
    rig.loop.send_text("What is two plus three?")
    await rig.run_until(0.1)
    s = rt.session
    s.respond(call=FuncCall("add", '{"a": 2, "b": 3}', "call_1"))
    s.respond(call=FuncCall("add", '{"a": "x"}', "call_2"))
    await s.wait_tool_results(2)
    results = {r.call_id: r for r in s.tool_results}
    assert (results["call_1"].content, results["call_1"].is_error) == ("5", False)
    assert results["call_2"].is_error and "b" in results["call_2"].content  # bad arguments: an error result the model sees
    s.respond("It is five.", 600)
    await rig.run_until(1.5)
    done = rig.of(AssistantDone)
    assert len(done) == 1 and done[0].spoken_text == "It is five."
    assert done[0].turn_id == rig.of(UserFinal)[0].turn_id
    assert [(t.user_text, t.assistant_text) for t in rig.loop.history.turns()] == [("What is two plus three?", "It is five.")]
    assert all(isinstance(r, ToolResult) for r in s.tool_results)
    await rig.stop()


async def test_a_session_that_fails_with_a_wrong_key_is_reported_and_a_later_message_opens_a_fresh_one() -> None:
    rt = ScriptedRealtime()
    rig = Rig(realtime=rt)
    await rig.start()
    rt.session.fail(AuthenticationError("openai", "Incorrect API key provided"))
    await rig.run_until(0.1)
    errors = rig.of(LoopError)
    assert len(errors) == 1 and "Incorrect API key" in errors[0].message and errors[0].recoverable
    assert rig.loop.state is LoopState.LISTENING
    await rig.run_until(4.0)  # after the retry pause
    rig.loop.send_text("Are you there?")  # no session: reported, and a fresh one opens
    await rig.run_until(4.1)
    assert len(rt.sessions) == 2
    rig.loop.send_text("Hello?")
    await rig.run_until(4.2)
    assert rt.session.texts() == ["Hello?"]
    await rig.stop()


async def test_push_to_talk_sends_the_press_as_one_route_ending_at_the_release_and_cuts_the_answer() -> None:
    from genx.agentkit.core import LoopConfig
    from genx.agentkit.events import Mode

    rt = ScriptedRealtime(Settings(turn_detection=None))
    cfg = LoopConfig(mode=Mode.PUSH_TO_TALK, generator="realtime/test")
    rig = Rig(speech=[(0.5, 1.0)], realtime=rt, config=cfg)
    await rig.start()
    await rig.run_until(0.3)
    rig.loop.push_to_talk_down()
    await rig.run_until(1.2)
    rig.loop.push_to_talk_up()
    await rig.run_until(1.3)
    s = rt.session
    routes = {c.stream_id for c in s.inputs if isinstance(c.part, Blob)}
    assert len(routes) == 1
    (ptt,) = routes
    ends = [c for c in s.inputs if c.stream_id == ptt and c.is_end_of_stream()]
    assert len(ends) == 1 and s.inputs[-1] is ends[0]  # the release ends the route: a manual commit
    pressed = sum(len(c.part.data) for c in s.inputs if isinstance(c.part, Blob))
    assert pressed >= 0.9 * RATE * 2  # 0.9 s held (plus the pre-roll)
    sid = s.respond(STORY, 3000)
    await rig.run_until(2.3)
    rig.loop.push_to_talk_down()
    await rig.run_until(2.4)
    assert s.interrupts == [(sid, heard_ms(rig, sid))]
    assert rig.of(AssistantDone)[0].interrupted
    rig.loop.push_to_talk_up()
    await rig.stop()


async def test_a_real_session_refused_for_a_wrong_key_is_reported_with_the_providers_words_and_the_loop_listens() -> None:
    handshakes = 0

    def refuse(conn: ServerConnection, request: Request) -> Response:
        nonlocal handshakes
        handshakes += 1
        body = json.dumps({"error": {"type": "invalid_request_error", "code": "invalid_api_key", "message": "Incorrect API key provided"}})
        return Response(401, "Unauthorized", Headers([("Content-Type", "application/json")]), body.encode())

    async def never(conn: ServerConnection) -> None:  # pragma: no cover - the handshake is refused
        await conn.wait_closed()

    async with ws_server(never, process_request=refuse) as url:
        cfg = ProviderConfig(provider="openai", base_url=url, api_key="sk-wrong", timeouts=Timeouts(connect=5, read=5))
        model = RealtimeTransformer(OpenAIRealtimeDialect, cfg, RealtimeSettings(model="gpt-realtime"))
        rig = Rig(realtime=model)
        failed = asyncio.Event()  # the handshake runs on the real loop, outside the virtual clock
        rig.bus.subscribe(lambda e: failed.set() if isinstance(e, LoopError) else None)
        await rig.start()
        await asyncio.wait_for(failed.wait(), 10)
        err = rig.of(LoopError)[0]
        assert "Incorrect API key" in err.message and err.recoverable
        assert rig.loop.state is LoopState.LISTENING and rig.loop.core.running
        rig.loop.send_text("hello?")  # within the retry pause: reported, no new handshake
        await rig.run_until(0.1)
        assert handshakes == 1
        assert "not connected" in rig.of(LoopError)[-1].message
        await rig.stop()


async def test_a_session_reopened_after_a_failure_starts_with_the_heard_conversation_replayed_as_text() -> None:
    rt = ScriptedRealtime()
    rig = Rig(realtime=rt)
    await rig.start()
    assert rt.histories == []  # the first session starts empty
    rig.loop.send_text("Tell me a story")
    await rig.run_until(0.1)
    sid = rt.session.respond(STORY, 3000)
    await rig.run_until(1.0)
    rig.loop.stop_speaking()  # heard: about the first second of it
    await rig.run_until(1.1)
    heard = rig.of(AssistantDone)[0].spoken_text
    assert heard and heard != STORY and rt.session.interrupts[0][0] == sid
    rt.session.fail(ConnectionResetError("connection reset"))
    await rig.run_until(4.5)
    rig.loop.send_text("Go on")
    await rig.run_until(4.6)
    assert len(rt.sessions) == 2
    assert rt.histories == [[("user", "Tell me a story"), ("assistant", heard)]]  # what was heard, not the whole story
    await rig.stop()
