"""Model responses get fresh invocation-local StreamIDs; user chunks keep theirs."""

from __future__ import annotations

import pytest

from genx.chunk import Blob, MessageChunk, Role, Text
from genx.errors import Done
from genx.stream import collect, stream_of
from genx.transformers.streamkit import ResponseIDs, ResponseStream


def model_text(text: str, sid: str) -> MessageChunk:
    return MessageChunk.text(text, role=Role.ASSISTANT, stream_id=sid)


def test_user_chunks_keep_their_stream_id_and_are_not_copied() -> None:
    ids = ResponseIDs()
    c = MessageChunk.text("hi", role=Role.USER, stream_id="u1")
    assert ids.map(c) is c


def test_model_response_gets_a_fresh_id_shared_by_its_channels_and_source_untouched() -> None:
    ids = ResponseIDs()
    a = model_text("hello", "u1")
    out_a = ids.map(a)
    out_b = ids.map(MessageChunk.blob("audio/opus", b"\x01", role=Role.ASSISTANT, stream_id="u1"))
    assert out_a.stream_id not in ("", "u1")
    assert out_b.stream_id == out_a.stream_id
    assert a.stream_id == "u1"


def test_reusing_a_completed_upstream_id_starts_a_new_local_id() -> None:
    ids = ResponseIDs()
    first = ids.map(model_text("one", "p"))
    ids.map(MessageChunk.eos("p", Text(""), role=Role.ASSISTANT))
    second = ids.map(model_text("two", "p"))
    assert second.stream_id != first.stream_id


def test_control_eos_retires_the_mapping() -> None:
    ids = ResponseIDs()
    first = ids.map(model_text("one", "p"))
    end = ids.map(MessageChunk.eos("p", role=Role.ASSISTANT))
    assert end.stream_id == first.stream_id
    assert ids.map(model_text("two", "p")).stream_id != first.stream_id


def test_open_channels_keep_the_same_id_until_all_closed() -> None:
    ids = ResponseIDs()
    a = ids.map(model_text("t", "p"))
    ids.map(MessageChunk.eos("p", Text(""), role=Role.ASSISTANT))  # text closed, nothing else open
    b = ids.map(MessageChunk.bos("p", Blob("audio/opus"), role=Role.ASSISTANT))  # a BOS joins the same response
    assert b.stream_id == a.stream_id


def test_anonymous_model_chunks_get_one_fresh_id() -> None:
    ids = ResponseIDs()
    a = ids.map(model_text("a", ""))
    b = ids.map(model_text("b", ""))
    assert a.stream_id and a.stream_id == b.stream_id


def test_completed_mappings_are_pruned() -> None:
    ids = ResponseIDs()
    for i in range(200):
        ids.map(model_text("x", f"p{i}"))
        ids.map(MessageChunk.eos(f"p{i}", Text(""), role=Role.ASSISTANT))
    assert len(ids._states) <= 65


async def test_response_stream_rewrites_model_ids_and_passes_the_end() -> None:
    src = stream_of(MessageChunk.text("q", role=Role.USER, stream_id="u1"), model_text("a", "u1"))
    out = await collect(ResponseStream(src))
    assert out[0].stream_id == "u1"
    assert out[1].stream_id not in ("", "u1")


async def test_response_stream_close_closes_source() -> None:
    src = stream_of(model_text("a", "u1"))
    rs = ResponseStream(src)
    await rs.close()
    with pytest.raises(Done):
        await src.next()  # the queued chunk was dropped by the close
