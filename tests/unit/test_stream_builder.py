"""StreamBuilder / BuiltStream contract, end states and StreamID allocation."""

from __future__ import annotations

import asyncio

import pytest

from genx.chunk import MessageChunk
from genx.errors import Blocked, Done, GenerateError, StreamClosedError, Truncated
from genx.ids import StreamIDAllocator, base62, new_stream_id
from genx.stream import Stream, StreamBuilder, collect, stream_of


def texts(chunks: list[MessageChunk]) -> list[str]:
    out = []
    for c in chunks:
        assert c.part is not None
        out.append(getattr(c.part, "text", ""))
    return out


async def test_next_returns_pushed_chunks_in_order_then_done() -> None:
    b = StreamBuilder()
    b.push_many([MessageChunk.text("a"), MessageChunk.text("b")])
    b.done()
    assert texts(await collect(b.stream)) == ["a", "b"]


async def test_built_stream_satisfies_the_stream_protocol() -> None:
    assert isinstance(StreamBuilder().stream, Stream)


@pytest.mark.parametrize(
    ("end", "exc_type", "message"),
    [
        (lambda b: b.done(), Done, "genx: generate done"),
        (lambda b: b.truncated(), Truncated, "genx: generate truncated"),
        (lambda b: b.blocked("policy"), Blocked, "genx: generate blocked: policy"),
        (lambda b: b.abort(GenerateError("boom")), GenerateError, "genx: generate error: boom"),
    ],
)
async def test_end_error_repeats_on_every_next_with_the_go_message(end, exc_type, message) -> None:  # type: ignore[no-untyped-def]
    b = StreamBuilder()
    b.push(MessageChunk.text("x"))
    end(b)
    assert texts([await b.stream.next()]) == ["x"]
    for _ in range(3):
        with pytest.raises(exc_type) as ei:
            await b.stream.next()
        assert str(ei.value) == message


async def test_abort_raises_the_producer_exception_as_is_after_queued_chunks() -> None:
    err = ConnectionResetError("peer gone")
    b = StreamBuilder()
    b.push(MessageChunk.text("kept"))
    b.abort(err)
    assert texts([await b.stream.next()]) == ["kept"]
    with pytest.raises(ConnectionResetError) as ei:
        await b.stream.next()
    assert ei.value is err


async def test_first_end_wins() -> None:
    b = StreamBuilder()
    b.truncated()
    b.done()
    b.abort(RuntimeError("late"))
    with pytest.raises(Truncated):
        await b.stream.next()


async def test_push_after_end_raises_stream_closed_error() -> None:
    b = StreamBuilder()
    b.done()
    with pytest.raises(StreamClosedError, match="closed"):
        b.push(MessageChunk.text("late"))


async def test_discard_drops_matching_queued_chunks_and_returns_how_many() -> None:
    b = StreamBuilder()
    b.push(MessageChunk.text("1", stream_id="old"))
    b.push(MessageChunk.text("2", stream_id="keep"))
    b.push(MessageChunk.text("3", stream_id="old"))
    assert b.discard(lambda c: c.stream_id == "old") == 2
    nxt = await b.stream.next()
    assert nxt.stream_id == "keep"
    assert b.queued() == 0


async def test_discard_never_touches_pulled_chunks() -> None:
    b = StreamBuilder()
    b.push(MessageChunk.text("pulled", stream_id="old"))
    await b.stream.next()
    assert b.discard(lambda c: c.stream_id == "old") == 0


async def test_waiting_next_is_woken_by_push() -> None:
    b = StreamBuilder()
    t = asyncio.ensure_future(b.stream.next())
    await asyncio.sleep(0)
    assert not t.done()
    b.push(MessageChunk.text("late"))
    assert texts([await asyncio.wait_for(t, 2)]) == ["late"]


async def test_waiting_next_is_woken_by_end() -> None:
    b = StreamBuilder()
    t = asyncio.ensure_future(b.stream.next())
    await asyncio.sleep(0)
    b.blocked("nope")
    with pytest.raises(Blocked):
        await asyncio.wait_for(t, 2)


async def test_consumer_close_releases_the_producer() -> None:
    b = StreamBuilder()
    seen: list[BaseException | None] = []
    b.on_close(seen.append)
    b.push(MessageChunk.text("unpulled"))
    await b.stream.close()
    assert seen == [None]
    assert b.ended and b.closed_by_consumer
    with pytest.raises(StreamClosedError):
        b.push(MessageChunk.text("more"))
    with pytest.raises(Done):
        await b.stream.next()


async def test_consumer_close_with_error_makes_next_raise_it_and_tells_the_producer() -> None:
    b = StreamBuilder()
    seen: list[BaseException | None] = []
    b.on_close(seen.append)
    err = RuntimeError("consumer gave up")
    await b.stream.close_with_error(err)
    assert seen == [err]
    with pytest.raises(RuntimeError, match="consumer gave up"):
        await b.stream.next()


async def test_on_close_registered_after_close_runs_at_once() -> None:
    b = StreamBuilder()
    await b.stream.close()
    seen: list[BaseException | None] = []
    b.on_close(seen.append)
    assert seen == [None]


async def test_closing_twice_is_harmless_and_callbacks_run_once() -> None:
    b = StreamBuilder()
    calls: list[BaseException | None] = []
    b.on_close(calls.append)
    await b.stream.close()
    await b.stream.close()
    assert calls == [None]


async def test_close_wakes_a_waiting_next() -> None:
    b = StreamBuilder()
    t = asyncio.ensure_future(b.stream.next())
    await asyncio.sleep(0)
    await b.stream.close()
    with pytest.raises(Done):
        await asyncio.wait_for(t, 2)


async def test_async_for_ends_quietly_on_done() -> None:
    got = [c async for c in stream_of(MessageChunk.text("a"), MessageChunk.text("b"))]
    assert texts(got) == ["a", "b"]


async def test_async_for_raises_truncated() -> None:
    got: list[MessageChunk] = []
    with pytest.raises(Truncated):
        async for c in stream_of(MessageChunk.text("a"), end=Truncated()):
            got.append(c)
    assert texts(got) == ["a"]


async def test_async_with_closes_the_stream() -> None:
    b = StreamBuilder()
    async with b.stream:
        pass
    assert b.closed_by_consumer


async def test_collect_propagates_non_done_end_errors() -> None:
    with pytest.raises(Blocked):
        await collect(stream_of(MessageChunk.text("a"), end=Blocked("x")))


# -- StreamIDs ---------------------------------------------------------------------
@pytest.mark.parametrize(("n", "expected"), [(0, "0"), (9, "9"), (10, "A"), (61, "z"), (62, "10"), (62 * 62, "100")])
def test_base62_renders_the_counter(n: int, expected: str) -> None:
    assert base62(n) == expected


def test_base62_rejects_negative_numbers() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        base62(-1)


def test_allocated_stream_ids_are_short_unique_and_non_empty() -> None:
    alloc = StreamIDAllocator()
    ids = [alloc.new() for _ in range(5000)]
    assert len(set(ids)) == len(ids)
    assert all(ids) and max(map(len, ids)) <= 3


def test_allocator_prefix_keeps_allocators_apart() -> None:
    a, b = StreamIDAllocator(prefix="a"), StreamIDAllocator(prefix="b")
    assert {a.new() for _ in range(100)}.isdisjoint({b.new() for _ in range(100)})


def test_new_stream_id_is_unique_process_wide() -> None:
    ids = {new_stream_id() for _ in range(1000)}
    assert len(ids) == 1000 and "" not in ids
