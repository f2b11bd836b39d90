"""Routes (StreamIDs) and MIME channels: the EOS rules, as chunks and as RouteTracker bookkeeping."""

from __future__ import annotations

from genx.chunk import Blob, MessageChunk, Text
from genx.routes import ChannelState, RouteTracker
from genx.stream import StreamBuilder, collect

OPUS = "audio/ogg; codecs=opus"


def audio(sid: str, mime: str = OPUS) -> MessageChunk:
    return MessageChunk.blob(mime, b"\x00", stream_id=sid)


def test_eos_with_a_part_closes_only_that_mime_channel() -> None:
    rt = RouteTracker()
    rt.observe(MessageChunk.text("hi", stream_id="s1"))
    rt.observe(audio("s1"))
    change = rt.observe(MessageChunk.eos("s1", Text("")))
    assert change.closed == ["text/plain"] and not change.route_closed
    assert rt.channel_state("s1", "text/plain") is ChannelState.CLOSED
    assert rt.channel_state("s1", OPUS) is ChannelState.OPEN
    assert rt.is_open("s1")


def test_control_only_eos_closes_the_whole_route() -> None:
    rt = RouteTracker()
    rt.observe(MessageChunk.bos("s1"))
    rt.observe(MessageChunk.text("hi", stream_id="s1"))
    rt.observe(audio("s1"))
    change = rt.observe(MessageChunk.eos("s1"))
    assert change.closed == [OPUS, "text/plain"] and change.route_closed
    assert not rt.is_open("s1") and rt.open_channels("s1") == []


def test_routes_of_one_stream_are_independent() -> None:
    rt = RouteTracker()
    rt.observe(audio("s1"))
    rt.observe(audio("s2"))
    rt.observe(MessageChunk.eos("s1"))
    assert rt.open_routes() == ["s2"]
    assert rt.channel_state("s2", OPUS) is ChannelState.OPEN


def test_two_spellings_of_a_mime_are_one_channel() -> None:
    rt = RouteTracker()
    rt.observe(audio("s", "audio/L16; rate=16000; channels=1"))
    change = rt.observe(MessageChunk.eos("s", Blob("AUDIO/l16;channels=1;rate=16000")))
    assert change.closed == ["audio/l16; channels=1; rate=16000"] and change.route_closed


def test_a_route_with_only_channels_is_finished_when_every_channel_has_its_eos() -> None:
    rt = RouteTracker()
    rt.observe(MessageChunk.text("a", stream_id="s"))
    rt.observe(audio("s"))
    assert not rt.observe(MessageChunk.eos("s", Text(""))).route_closed
    assert rt.observe(MessageChunk.eos("s", Blob(OPUS))).route_closed
    assert rt.open_routes() == []


def test_control_bos_keeps_the_route_open_for_a_channel_added_after_the_others_finished() -> None:
    rt = RouteTracker()
    rt.observe(MessageChunk.bos("s"))
    rt.observe(MessageChunk.text("a", stream_id="s"))
    rt.observe(MessageChunk.eos("s", Text("")))
    assert rt.is_open("s")
    assert rt.observe(audio("s")).opened == OPUS
    assert rt.observe(MessageChunk.eos("s")).closed == [OPUS]
    assert not rt.is_open("s")


def test_bos_with_a_part_declares_its_channel() -> None:
    rt = RouteTracker()
    change = rt.observe(MessageChunk.bos("s", Blob(OPUS), label="tts"))
    assert change.opened == OPUS
    route = rt.route("s")
    assert route is not None and route.label == "tts"
    assert rt.channel_state("s", "text/plain") is ChannelState.UNKNOWN


def test_eos_of_an_unknown_channel_changes_nothing_open() -> None:
    rt = RouteTracker()
    rt.observe(audio("s"))
    change = rt.observe(MessageChunk.eos("s", Text("")))
    assert change.closed == [] and rt.open_channels("s") == [OPUS]


def test_close_all_closes_every_open_route_in_first_seen_order() -> None:
    rt = RouteTracker()
    rt.observe(audio("b"))
    rt.observe(MessageChunk.text("x", stream_id="a"))
    rt.observe(audio("a"))
    rt.observe(audio("c"))
    rt.observe(MessageChunk.eos("c"))
    assert rt.close_all() == [("b", [OPUS]), ("a", [OPUS, "text/plain"])]
    assert rt.open_routes() == []


def test_forget_lets_a_retired_id_start_afresh() -> None:
    rt = RouteTracker()
    rt.observe(audio("s"))
    rt.observe(MessageChunk.eos("s"))
    rt.forget("s")
    assert rt.channel_state("s", OPUS) is ChannelState.UNKNOWN and len(rt) == 0


async def test_neither_eos_kind_ends_the_stream() -> None:
    b = StreamBuilder()
    b.push(MessageChunk.eos("s1", Text("")))
    b.push(MessageChunk.eos("s1"))
    b.push(MessageChunk.text("after", stream_id="s2"))
    b.done()
    out = await collect(b.stream)
    assert [c.stream_id for c in out] == ["s1", "s1", "s2"]


def test_chunk_queries_for_bos_eos_and_control_only() -> None:
    bos = MessageChunk.bos("s", label="L")
    eos = MessageChunk.eos("s", Text(""), error="interrupted")
    assert bos.is_begin_of_stream() and not bos.is_end_of_stream() and bos.is_control_only()
    assert eos.is_end_of_stream() and not eos.is_control_only() and eos.error == "interrupted"
    plain = MessageChunk.text("x")
    assert plain.ctrl is None and plain.stream_id == "" and plain.label == "" and plain.timestamp == 0


def test_copy_has_its_own_ctrl() -> None:
    c = MessageChunk.blob(OPUS, b"abc", stream_id="s", timestamp=5)
    d = c.copy()
    d.ensure_ctrl().timestamp = 9
    assert c.timestamp == 5 and d.part is c.part and d.content_size() == 3
