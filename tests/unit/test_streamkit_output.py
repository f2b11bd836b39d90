"""streamkit output queue: non-blocking push, byte limit, end semantics, discard, pull observers."""

from __future__ import annotations

import asyncio

import pytest

from genx.chunk import MessageChunk, Text
from genx.errors import Done, StreamClosedError
from genx.stream import Stream
from genx.transformers.streamkit import OutputLimitError, OutputQueue


def texts(chunks: list[MessageChunk]) -> list[str]:
    return [c.part.text for c in chunks if isinstance(c.part, Text)]


async def drain(q: OutputQueue) -> list[MessageChunk]:
    out = []
    while True:
        try:
            out.append(await asyncio.wait_for(q.next(), 5))
        except Done:
            return out


def test_output_queue_is_a_genx_stream() -> None:
    assert isinstance(OutputQueue(), Stream)


async def test_push_never_waits_for_a_pull_and_done_drains_then_ends() -> None:
    q = OutputQueue()
    for t in ("one", "two", "three"):
        q.push(MessageChunk.text(t))
    q.done()
    assert texts(await drain(q)) == ["one", "two", "three"]
    with pytest.raises(Done):
        await q.next()


async def test_byte_limit_example_max_4_push_1234_ok_push_5_fails_and_next_fails() -> None:
    q = OutputQueue(max_bytes=4)
    q.push(MessageChunk.text("1234"))
    with pytest.raises(OutputLimitError) as err:
        q.push(MessageChunk.text("5"))
    assert str(err.value).startswith("output buffer limit exceeded: queued=4 next=1 max=4")
    with pytest.raises(OutputLimitError):
        await q.next()
    with pytest.raises(OutputLimitError):
        await q.next()
    with pytest.raises(OutputLimitError):
        q.push(MessageChunk.text(""))


async def test_byte_limit_counts_only_unpulled_bytes_and_utf8_length() -> None:
    q = OutputQueue(max_bytes=6)
    q.push(MessageChunk.text("你好"))  # 6 UTF-8 bytes
    await q.next()
    q.push(MessageChunk.blob("audio/l16; rate=16000", b"\x00" * 6))
    q.push(MessageChunk.eos("s1"))  # control chunks count 0
    assert q.queued_bytes == 6
    with pytest.raises(OutputLimitError):
        q.push(MessageChunk.blob("audio/l16; rate=16000", b"\x00"))


async def test_next_waits_for_a_later_push() -> None:
    q = OutputQueue()
    waiter = asyncio.create_task(q.next())
    await asyncio.sleep(0)
    assert not waiter.done()
    q.push(MessageChunk.text("late"))
    got = await asyncio.wait_for(waiter, 5)
    assert texts([got]) == ["late"]


async def test_fail_drains_then_raises_the_cause_every_time() -> None:
    q = OutputQueue()
    q.push(MessageChunk.text("kept"))
    cause = RuntimeError("provider broke")
    q.fail(cause)
    assert texts([await q.next()]) == ["kept"]
    for _ in range(2):
        with pytest.raises(RuntimeError) as got:
            await q.next()
        assert got.value is cause


async def test_fail_without_cause_is_a_normal_end() -> None:
    q = OutputQueue()
    q.push(MessageChunk.text("a"))
    q.fail(None)
    assert texts(await drain(q)) == ["a"]


async def test_abort_discards_queue_and_raises_at_once() -> None:
    q = OutputQueue()
    q.push(MessageChunk.text("never seen"))
    err = ValueError("stop")
    q.abort(err)
    with pytest.raises(ValueError):
        await q.next()
    assert len(q) == 0


async def test_consumer_close_with_error_raises_it_and_runs_on_close_callbacks() -> None:
    q = OutputQueue()
    seen: list[BaseException | None] = []
    q.on_close(seen.append)
    q.push(MessageChunk.text("dropped"))
    err = RuntimeError("consumer gone")
    await q.close_with_error(err)
    with pytest.raises(RuntimeError):
        await q.next()
    assert seen == [err]


async def test_consumer_close_ends_stream_rejects_pushes_and_wakes_a_waiting_next() -> None:
    q = OutputQueue()
    closed: list[BaseException | None] = []
    q.on_close(closed.append)
    waiter = asyncio.create_task(q.next())
    await asyncio.sleep(0)
    await q.close()
    with pytest.raises(Done):
        await asyncio.wait_for(waiter, 5)
    assert closed == [None]
    with pytest.raises(StreamClosedError):
        q.push(MessageChunk.text("x"))
    await q.close()  # twice is harmless
    assert closed == [None]


async def test_push_after_done_raises_stream_closed() -> None:
    q = OutputQueue()
    q.done()
    with pytest.raises(StreamClosedError):
        q.push(MessageChunk.text("x"))


async def test_discard_by_predicate_keeps_order_and_returns_removed_chunks() -> None:
    q = OutputQueue()
    for t in ("old", "keep", "old"):
        q.push(MessageChunk.text(t, stream_id=t))
    removed = q.discard(lambda c: c.stream_id == "old")
    assert texts(removed) == ["old", "old"]
    q.done()
    assert texts(await drain(q)) == ["keep"]


async def test_discard_frees_limit_bytes() -> None:
    q = OutputQueue(max_bytes=4)
    q.push(MessageChunk.text("1234", stream_id="a"))
    q.discard(lambda c: c.stream_id == "a")
    q.push(MessageChunk.text("5678"))
    assert q.queued_bytes == 4


async def test_pull_observer_sees_exactly_the_object_returned_and_not_discarded_ones() -> None:
    seen: list[MessageChunk] = []
    q = OutputQueue(observers=[seen.append])
    chunks = [MessageChunk.text(t) for t in ("keep", "discard", "last")]
    for c in chunks:
        q.push(c)
    q.discard(lambda c: c is chunks[1])
    assert seen == []  # pushing is not pulling
    first = await q.next()
    assert seen == [first] and seen[0] is first is chunks[0]
    second = await q.next()
    assert [id(c) for c in seen] == [id(first), id(second)]
    assert texts(seen) == ["keep", "last"]


async def test_pull_observer_runs_after_dequeue_inside_next() -> None:
    q = OutputQueue()
    lengths: list[int] = []
    q.add_observer(lambda c: lengths.append(len(q)))
    q.push(MessageChunk.text("a"))
    q.push(MessageChunk.text("b"))
    await q.next()
    assert lengths == [1]  # the chunk had already left the queue


async def test_raising_observer_does_not_cost_the_consumer_its_chunk() -> None:
    def bad(_c: MessageChunk) -> None:
        raise RuntimeError("observer bug")

    q = OutputQueue(observers=[bad])
    q.push(MessageChunk.text("still delivered"))
    assert texts([await q.next()]) == ["still delivered"]


async def test_two_queues_are_independent() -> None:
    a, b = OutputQueue(max_bytes=1), OutputQueue()
    with pytest.raises(OutputLimitError):
        a.push(MessageChunk.text("too long"))
    b.push(MessageChunk.text("fine"))
    b.done()
    assert texts(await drain(b)) == ["fine"]


def test_negative_limit_is_rejected() -> None:
    with pytest.raises(ValueError):
        OutputQueue(max_bytes=-1)
