"""streamkit Invocation / Response lifecycle: start, emit, finish, interrupt, cancel, fail, close."""

from __future__ import annotations

import asyncio

import pytest

from genx.chunk import Blob, MessageChunk, Role, Text
from genx.errors import Done, InvalidMimeError
from genx.stream import StreamBuilder
from genx.transformers.streamkit import (
    CANCELED_TEXT,
    InactiveResponseError,
    Invocation,
    InvocationClosedError,
    OutputLimitError,
    ResponseActiveError,
    ResponseConfig,
)

OPUS = "audio/opus"


def text_of(c: MessageChunk) -> str:
    return c.part.text if isinstance(c.part, Text) else ""


async def pull(inv: Invocation) -> MessageChunk:
    return await asyncio.wait_for(inv.stream.next(), 5)


async def drain(inv: Invocation) -> list[MessageChunk]:
    out = []
    while True:
        try:
            out.append(await pull(inv))
        except Done:
            return out


def describe(c: MessageChunk) -> tuple[str, str, str, str]:
    kind = "BOS" if c.is_begin_of_stream() else "EOS" if c.is_end_of_stream() else "data"
    return (kind, c.mime(), text_of(c), c.error)


# -- start_response -------------------------------------------------------------------
async def test_empty_stream_id_gets_a_fresh_one_and_two_responses_differ() -> None:
    inv = Invocation()
    a = inv.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain")
    b = inv.start_response(ResponseConfig(role=Role.USER, label="transcript"), OPUS)
    assert a.stream_id and b.stream_id and a.stream_id != b.stream_id


async def test_duplicate_active_stream_id_is_rejected_and_retired_id_reusable() -> None:
    inv = Invocation()
    first = inv.start_response(ResponseConfig("shared"), "text/plain")
    with pytest.raises(ResponseActiveError, match="shared"):
        inv.start_response(ResponseConfig("shared"), "audio/pcm")
    inv.finish_response(first)
    again = inv.start_response(ResponseConfig("shared"), "audio/pcm")
    assert again.stream_id == "shared" and again is not first


async def test_start_response_after_close_raises_closed_error() -> None:
    inv = Invocation()
    inv.close()
    with pytest.raises(InvocationClosedError):
        inv.start_response(ResponseConfig(), "text/plain")


async def test_declaring_an_invalid_mime_is_a_typed_error() -> None:
    inv = Invocation()
    with pytest.raises(InvalidMimeError):
        inv.start_response(ResponseConfig(), "audio/ogg; codecs")


# -- emit ----------------------------------------------------------------------------------
async def test_emit_copies_and_fills_missing_metadata_from_config() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r1", Role.ASSISTANT, "bot", "answer"))
    original = MessageChunk.text("hi")
    queued = inv.emit(r, original)
    assert original.ctrl is None and original.role == Role.NONE  # the producer's chunk is untouched
    got = await pull(inv)
    assert got is queued
    assert (got.role, got.name, got.stream_id, got.label) == (Role.ASSISTANT, "bot", "r1", "answer")


async def test_emit_keeps_metadata_the_producer_set() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r1", Role.ASSISTANT, "bot", "answer"))
    inv.emit(r, MessageChunk.text("hi", role=Role.USER, name="me", stream_id="r1", label="partial"))
    got = await pull(inv)
    assert (got.role, got.name, got.label) == (Role.USER, "me", "partial")


async def test_emit_on_a_foreign_stream_id_is_rejected() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain")
    with pytest.raises(InactiveResponseError, match="another-response"):
        inv.emit(r, MessageChunk.text("wrong", stream_id="another-response"))


async def test_emit_on_a_channel_that_sent_eos_is_rejected_but_other_channels_work() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"), "text/plain", OPUS)
    inv.emit(r, MessageChunk.eos("r", Text("")))
    with pytest.raises(InactiveResponseError, match="text/plain"):
        inv.emit(r, MessageChunk.text("after eos"))
    inv.emit(r, MessageChunk.blob(OPUS, b"\x01"))


async def test_emit_after_control_eos_or_finish_is_rejected() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"))
    inv.emit(r, MessageChunk.eos("r"))
    with pytest.raises(InactiveResponseError):
        inv.emit(r, MessageChunk.text("late"))
    inv.finish_response(r)
    with pytest.raises(InactiveResponseError):
        inv.emit(r, MessageChunk.text("later"))


async def test_a_response_of_another_invocation_is_inactive_here() -> None:
    a, b = Invocation(), Invocation()
    r = a.start_response(ResponseConfig("x"))
    b.start_response(ResponseConfig("x"))
    with pytest.raises(InactiveResponseError):
        b.emit(r, MessageChunk.text("cross"))


# -- finish_response --------------------------------------------------------------------------
async def test_finish_emits_one_eos_per_open_route_sorted_by_mime_with_error() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r", Role.USER, "u", "lbl"), "text/plain", OPUS, "audio/l16; rate=16000")
    inv.finish_response(r, "boom")
    inv.close()
    got = await drain(inv)
    assert [c.mime() for c in got] == ["audio/l16; rate=16000", OPUS, "text/plain"]
    assert all(c.is_end_of_stream() and c.error == "boom" and c.stream_id == "r" for c in got)
    assert all((c.role, c.name, c.label) == (Role.USER, "u", "lbl") for c in got)


async def test_finish_without_routes_emits_one_control_eos() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"))
    inv.finish_response(r)
    inv.close()
    (eos,) = await drain(inv)
    assert eos.is_end_of_stream() and eos.part is None and eos.stream_id == "r"


async def test_finish_with_all_routes_closed_emits_control_eos_only_with_error() -> None:
    inv = Invocation()
    ok = inv.start_response(ResponseConfig("ok"), "text/plain")
    inv.emit(ok, MessageChunk.eos("ok", Text("")))
    assert inv.finish_response(ok) == []
    bad = inv.start_response(ResponseConfig("bad"), "text/plain")
    inv.emit(bad, MessageChunk.eos("bad", Text("")))
    (ctrl,) = inv.finish_response(bad, "late failure")
    assert ctrl.part is None and ctrl.error == "late failure"


async def test_finish_does_not_repeat_an_emitted_route_eos() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"), "text/plain", OPUS)
    inv.emit(r, MessageChunk.eos("r", Text("")))
    out = inv.finish_response(r)
    assert [c.mime() for c in out] == [OPUS]


# -- interrupt ------------------------------------------------------------------------------------
async def test_interrupt_doc_example_keeps_pulled_prefix_and_ends_routes_in_mime_order() -> None:
    observed: list[str] = []
    inv = Invocation(observers=[lambda c: observed.append(text_of(c)) if text_of(c) else None])
    r = inv.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain", OPUS)
    for c in (MessageChunk.text("pulled"), MessageChunk.text("discarded"), MessageChunk.blob(OPUS, b"\x01\x02\x03")):
        inv.emit(r, c)
    assert text_of(await pull(inv)) == "pulled"
    inv.interrupt(r)
    with pytest.raises(InactiveResponseError):
        inv.emit(r, MessageChunk.text("late"))
    inv.close()
    rest = await drain(inv)
    assert [describe(c) for c in rest] == [("EOS", OPUS, "", "interrupted"), ("EOS", "text/plain", "", "interrupted")]
    assert all(c.stream_id == r.stream_id and c.role == Role.USER and c.label == "source" for c in rest)
    assert observed == ["pulled"]


async def test_interrupt_leaves_other_responses_chunks_alone() -> None:
    inv = Invocation()
    a = inv.start_response(ResponseConfig("a"), "text/plain")
    b = inv.start_response(ResponseConfig("b"), "text/plain")
    inv.emit(a, MessageChunk.text("a1"))
    inv.emit(b, MessageChunk.text("b1"))
    inv.emit(a, MessageChunk.text("a2"))
    inv.interrupt(a)
    inv.finish_response(b)
    inv.close()
    got = await drain(inv)
    assert [(c.stream_id, describe(c)) for c in got] == [
        ("b", ("data", "text/plain", "b1", "")),
        ("a", ("EOS", "text/plain", "", "interrupted")),
        ("b", ("EOS", "text/plain", "", "")),
    ]


async def test_interrupt_replaces_a_removed_route_eos() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain", "audio/pcm")
    inv.emit(r, MessageChunk.text("visible"))
    await pull(inv)
    inv.emit(r, MessageChunk.eos(r.stream_id, Text("")))
    inv.interrupt(r)
    inv.close()
    assert [describe(c) for c in await drain(inv)] == [("EOS", "audio/pcm", "", "interrupted"), ("EOS", "text/plain", "", "interrupted")]


async def test_interrupt_sends_nothing_for_a_route_whose_eos_was_pulled() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig(), "text/plain", "audio/pcm")
    inv.emit(r, MessageChunk.eos(r.stream_id, Text("")))
    assert (await pull(inv)).is_end_of_stream()
    inv.interrupt(r)
    inv.close()
    assert [describe(c) for c in await drain(inv)] == [("EOS", "audio/pcm", "", "interrupted")]


async def test_interrupt_reemits_an_unpulled_bos_but_never_invents_one() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"))
    inv.emit(r, MessageChunk.bos("r", Blob(OPUS)))  # producer BOS on opus, not pulled
    inv.emit(r, MessageChunk.blob(OPUS, b"\x01"))
    inv.emit(r, MessageChunk.text("no bos for text"))
    inv.interrupt(r, "barge-in")
    inv.close()
    assert [describe(c) for c in await drain(inv)] == [
        ("BOS", OPUS, "", ""),
        ("EOS", OPUS, "", "barge-in"),
        ("EOS", "text/plain", "", "barge-in"),
    ]


async def test_interrupt_does_not_repeat_a_pulled_bos() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"))
    inv.emit(r, MessageChunk.bos("r", Blob(OPUS)))
    inv.emit(r, MessageChunk.blob(OPUS, b"\x01"))
    assert (await pull(inv)).is_begin_of_stream()
    inv.interrupt(r)
    inv.close()
    assert [describe(c) for c in await drain(inv)] == [("EOS", OPUS, "", "interrupted")]


async def test_interrupt_with_blank_text_says_interrupted_and_without_routes_sends_control_eos() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"))
    (eos,) = inv.interrupt(r, "  ")
    assert eos.part is None and eos.error == "interrupted"


async def test_interrupt_reemits_removed_control_bos_and_eos() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"))
    inv.emit(r, MessageChunk.bos("r"))
    inv.emit(r, MessageChunk.eos("r"))
    inv.interrupt(r)
    inv.close()
    got = await drain(inv)
    assert [(c.is_begin_of_stream(), c.is_end_of_stream(), c.part, c.error) for c in got] == [
        (True, False, None, ""),
        (False, True, None, "interrupted"),
    ]


async def test_interrupt_of_a_retired_response_is_rejected() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"), "text/plain")
    inv.finish_response(r)
    with pytest.raises(InactiveResponseError):
        inv.interrupt(r)


async def test_replacement_response_after_interrupt_gets_a_new_stream_id() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain")
    inv.interrupt(r)
    replacement = inv.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain")
    assert replacement.stream_id != r.stream_id


async def test_interrupt_drops_unpulled_passthrough_on_the_same_route() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"), "text/plain")
    inv.forward(MessageChunk.blob("image/png", b"\x89", stream_id="r"))
    inv.forward(MessageChunk.blob("image/png", b"\x89", stream_id="other"))
    inv.interrupt(r)
    inv.close()
    assert [(c.stream_id, c.mime()) for c in await drain(inv)] == [("other", "image/png"), ("r", "text/plain")]


# -- cancel / fail / close -------------------------------------------------------------------------
async def test_cancel_discards_unpulled_output_and_ends_each_response_interrupt_style() -> None:
    inv = Invocation()
    a = inv.start_response(ResponseConfig("a"), "text/plain")
    b = inv.start_response(ResponseConfig("b"))
    inv.emit(a, MessageChunk.text("never pulled"))
    inv.cancel()
    got = await drain(inv)
    assert [(c.stream_id, describe(c)) for c in got] == [
        ("a", ("EOS", "text/plain", "", CANCELED_TEXT)),
        ("b", ("EOS", "", "", CANCELED_TEXT)),
    ]
    with pytest.raises(InactiveResponseError):
        inv.emit(a, MessageChunk.text("late"))
    assert b.terminal


async def test_cancelling_one_invocation_does_not_touch_another() -> None:
    first, second = Invocation(), Invocation()
    r1 = first.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain")
    r2 = second.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain")
    first.emit(r1, MessageChunk.text("discarded"))
    first.cancel(asyncio.CancelledError())
    second.emit(r2, MessageChunk.text("independent"))
    eos = await pull(first)
    assert eos.is_end_of_stream() and eos.error == CANCELED_TEXT
    with pytest.raises(Done):
        await pull(first)
    assert text_of(await pull(second)) == "independent"


async def test_cancel_with_a_cause_uses_its_text() -> None:
    inv = Invocation()
    inv.start_response(ResponseConfig("a"), "text/plain")
    inv.cancel("user hung up")
    (eos,) = await drain(inv)
    assert eos.error == "user hung up"


async def test_fail_keeps_buffer_ends_responses_with_cause_then_raises_it() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"), "text/plain")
    inv.emit(r, MessageChunk.text("buffered"))
    cause = RuntimeError("provider died")
    inv.fail(cause)
    assert text_of(await pull(inv)) == "buffered"
    eos = await pull(inv)
    assert eos.is_end_of_stream() and eos.error == "provider died"
    with pytest.raises(RuntimeError) as got:
        await pull(inv)
    assert got.value is cause


async def test_close_ends_responses_normally_and_drains() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"), "text/plain")
    inv.emit(r, MessageChunk.text("x"))
    inv.close()
    inv.close()  # idempotent
    assert [describe(c) for c in await drain(inv)] == [("data", "text/plain", "x", ""), ("EOS", "text/plain", "", "")]


async def test_consumer_closing_output_cancels_invocation_and_closes_input() -> None:
    source = StreamBuilder()
    input_closed = asyncio.Event()
    source.on_close(lambda _e: input_closed.set())
    inv = Invocation(source.stream)
    r = inv.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain")
    worker_cancelled = asyncio.Event()

    async def worker() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            worker_cancelled.set()
            raise

    inv.spawn(worker())
    await asyncio.sleep(0)
    await inv.stream.close()
    await asyncio.wait_for(input_closed.wait(), 5)
    await asyncio.wait_for(worker_cancelled.wait(), 5)
    assert inv.state == "cancelled"
    with pytest.raises(InactiveResponseError):
        inv.emit(r, MessageChunk.text("late"))
    with pytest.raises(InvocationClosedError):
        inv.start_response(ResponseConfig(), "text/plain")


async def test_worker_cancelled_from_outside_cancels_invocation_with_context_canceled() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain")
    task = inv.spawn(asyncio.sleep(3600))
    await asyncio.sleep(0)
    task.cancel()
    eos = await pull(inv)
    assert eos.stream_id == r.stream_id and eos.error == CANCELED_TEXT
    with pytest.raises(Done):
        await pull(inv)


async def test_worker_exception_fails_the_invocation() -> None:
    inv = Invocation()
    inv.start_response(ResponseConfig("r"), "text/plain")

    async def broken() -> None:
        raise ValueError("bad frame")

    inv.spawn(broken())
    eos = await pull(inv)
    assert eos.error == "bad frame"
    with pytest.raises(ValueError):
        await pull(inv)


async def test_last_worker_returning_closes_the_invocation() -> None:
    inv = Invocation()
    r = inv.start_response(ResponseConfig("r"), "text/plain")

    async def work() -> None:
        inv.emit(r, MessageChunk.text("done soon"))

    inv.spawn(work())
    assert [describe(c) for c in await drain(inv)] == [("data", "text/plain", "done soon", ""), ("EOS", "text/plain", "", "")]


async def test_output_limit_ends_only_the_affected_invocation() -> None:
    inv = Invocation(max_bytes=1)
    other = Invocation(max_bytes=1)
    r = inv.start_response(ResponseConfig(role=Role.USER, label="source"), "text/plain")
    with pytest.raises(OutputLimitError):
        inv.emit(r, MessageChunk.text("too large"))
    assert not inv.is_open
    with pytest.raises(InvocationClosedError):
        inv.start_response(ResponseConfig(), "text/plain")
    with pytest.raises(OutputLimitError):
        await pull(inv)
    o = other.start_response(ResponseConfig(), "text/plain")
    other.emit(o, MessageChunk.text("k"))
    assert text_of(await pull(other)) == "k"


async def test_stream_cancel_method_cancels_the_invocation() -> None:
    inv = Invocation()
    inv.start_response(ResponseConfig("r"), "text/plain")
    inv.stream.cancel()
    (eos,) = await drain(inv)
    assert eos.error == CANCELED_TEXT
