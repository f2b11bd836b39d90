"""Combinators: merge, merge_interleaved, composite_seq, split, tee, map_stream, iter_chunks."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genx.chunk import Blob, MessageChunk, Text, Thinking
from genx.combinators import composite_seq, empty_stream, iter_chunks, map_stream, merge, merge_interleaved, passthrough, split, tee
from genx.errors import Blocked, Done, GenerateError, Truncated
from genx.stream import Stream, StreamBuilder, collect, stream_of


def t(s: str, sid: str = "") -> MessageChunk:
    return MessageChunk.text(s, stream_id=sid)


def of(*words: str, end: BaseException | None = None) -> Stream:
    return stream_of(*(t(w) for w in words), end=end)


def words(chunks: list[MessageChunk]) -> list[str]:
    out = []
    for c in chunks:
        if c.is_end_of_stream():
            out.append(f"EOS({c.mime()})")
        else:
            assert isinstance(c.part, Text)
            out.append(c.part.text)
    return out


class Recorder:
    """A Stream that records close calls (to check close reaches every child)."""

    def __init__(self, inner: Stream) -> None:
        self.inner = inner
        self.closed: list[BaseException | None] = []

    async def next(self) -> MessageChunk:
        return await self.inner.next()

    async def close(self) -> None:
        self.closed.append(None)
        await self.inner.close()

    async def close_with_error(self, exc: BaseException) -> None:
        self.closed.append(exc)
        await self.inner.close_with_error(exc)

    def __aiter__(self) -> Recorder:
        return self

    async def __anext__(self) -> MessageChunk:
        try:
            return await self.next()
        except Done:
            raise StopAsyncIteration from None


# -- merge -------------------------------------------------------------------------
async def test_merge_drains_streams_one_after_another() -> None:
    assert words(await collect(merge(of("a", "b"), of("c"), of("d", "e")))) == ["a", "b", "c", "d", "e"]


async def test_merge_of_zero_streams_ends_at_once() -> None:
    s = merge()
    for _ in range(2):
        with pytest.raises(Done):
            await s.next()


async def test_merge_of_one_stream_is_that_stream() -> None:
    s = of("a")
    assert merge(s) is s


async def test_merge_raises_a_non_done_error_at_once_without_reading_later_streams() -> None:
    later = StreamBuilder()
    later.push(t("never"))
    s = merge(of("a", end=Blocked("filter")), later.stream)
    assert words([await s.next()]) == ["a"]
    for _ in range(2):
        with pytest.raises(Blocked):
            await s.next()
    assert later.queued() == 1


async def test_merge_truncated_child_is_an_error_not_an_end() -> None:
    with pytest.raises(Truncated):
        await collect(merge(of("a", end=Truncated()), of("b")))


async def test_merge_close_reaches_every_child() -> None:
    kids = [Recorder(of("a")), Recorder(of("b")), Recorder(of("c"))]
    s = merge(*kids)
    await s.next()
    await s.close()
    assert [k.closed for k in kids] == [[None], [None], [None]]
    with pytest.raises(Done):
        await s.next()


async def test_merge_close_with_error_reaches_every_child_and_is_raised() -> None:
    kids = [Recorder(of("a")), Recorder(of("b"))]
    s = merge(*kids)
    err = RuntimeError("stop")
    await s.close_with_error(err)
    assert [k.closed for k in kids] == [[err], [err]]
    with pytest.raises(RuntimeError, match="stop"):
        await s.next()


async def test_merge_waits_for_a_slow_child() -> None:
    b = StreamBuilder()
    s = merge(b.stream, of("z"))
    task = asyncio.ensure_future(collect(s))
    await asyncio.sleep(0)
    b.push(t("late"))
    b.done()
    assert words(await asyncio.wait_for(task, 2)) == ["late", "z"]


# -- merge_interleaved -----------------------------------------------------------------
async def test_merge_interleaved_takes_one_chunk_per_stream_per_turn() -> None:
    assert words(await collect(merge_interleaved(of("1", "3"), of("2", "4")))) == ["1", "2", "3", "4"]


async def test_merge_interleaved_continues_with_the_streams_still_running() -> None:
    got = words(await collect(merge_interleaved(of("a1"), of("b1", "b2", "b3"), of("c1", "c2"))))
    assert got == ["a1", "b1", "c1", "b2", "c2", "b3"]


async def test_merge_interleaved_of_zero_streams_ends_and_of_one_is_itself() -> None:
    with pytest.raises(Done):
        await merge_interleaved().next()
    s = of("x")
    assert merge_interleaved(s) is s


async def test_merge_interleaved_raises_a_child_error_at_once_and_repeats_it() -> None:
    s = merge_interleaved(of("1", end=GenerateError("x")), of("2", "3", "4"))
    assert words([await s.next(), await s.next()]) == ["1", "2"]
    for _ in range(2):
        with pytest.raises(GenerateError):
            await s.next()


async def test_merge_interleaved_close_reaches_every_child() -> None:
    kids = [Recorder(of("a")), Recorder(of("b"))]
    await merge_interleaved(*kids).close()
    assert [k.closed for k in kids] == [[None], [None]]


# -- composite_seq -----------------------------------------------------------------
async def test_composite_seq_inserts_one_eos_between_streams_and_none_after_the_last() -> None:
    assert words(await collect(composite_seq(of("a"), of("b")))) == ["a", "EOS(text/plain)", "b"]


async def test_composite_seq_eos_carries_the_mime_of_the_previous_streams_last_chunk() -> None:
    first = stream_of(t("caption"), MessageChunk.blob("Audio/OGG; CODECS=opus", b"\x01", stream_id="tts", label="L"))
    out = await collect(composite_seq(first, of("b")))
    eos = out[2]
    assert eos.is_end_of_stream()
    assert isinstance(eos.part, Blob) and eos.part.mime == "audio/ogg; codecs=opus" and eos.part.data == b""
    assert (eos.stream_id, eos.label) == ("tts", "L")
    assert words(out[3:]) == ["b"]


async def test_composite_seq_thinking_channel_gets_a_thinking_eos() -> None:
    first = stream_of(MessageChunk(part=Thinking("hmm")))
    out = await collect(composite_seq(first, of("b")))
    assert out[1].is_end_of_stream() and isinstance(out[1].part, Thinking)


async def test_composite_seq_stream_without_mime_gets_a_text_eos() -> None:
    out = await collect(composite_seq(stream_of(MessageChunk.bos("r")), stream_of(), of("c")))
    assert [c.mime() for c in out if c.is_end_of_stream() and not c.is_begin_of_stream()] == ["text/plain", "text/plain"]
    assert len(out) == 4  # BOS, EOS, EOS, c


async def test_composite_seq_raises_a_child_error_and_stops() -> None:
    s = composite_seq(of("a", end=Blocked("no")), of("b"))
    assert words([await s.next()]) == ["a"]
    with pytest.raises(Blocked):
        await s.next()
    with pytest.raises(Blocked):
        await s.next()


async def test_composite_seq_of_one_stream_is_itself_and_close_reaches_children() -> None:
    s = of("x")
    assert composite_seq(s) is s
    kids = [Recorder(of("a")), Recorder(of("b"))]
    await composite_seq(*kids).close()
    assert [k.closed for k in kids] == [[None], [None]]


# -- split -------------------------------------------------------------------------
async def test_split_routes_by_predicate_and_both_end_when_the_source_ends() -> None:
    src = of("a1", "b1", "a2", "b2")
    matched, rest = split(src, lambda c: isinstance(c.part, Text) and c.part.text.startswith("a"))
    m, r = await asyncio.wait_for(asyncio.gather(collect(matched), collect(rest)), 2)
    assert words(m) == ["a1", "a2"]
    assert words(r) == ["b1", "b2"]


async def test_split_source_error_ends_both_outputs_with_that_error() -> None:
    err = GenerateError("provider down")
    matched, rest = split(of("a", "b", end=err), lambda c: words([c]) == ["a"])
    assert words([await matched.next()]) == ["a"]
    with pytest.raises(GenerateError) as e1:
        await asyncio.wait_for(matched.next(), 2)
    assert words([await rest.next()]) == ["b"]
    with pytest.raises(GenerateError) as e2:
        await asyncio.wait_for(rest.next(), 2)
    assert e1.value is err and e2.value is err


async def test_split_predicate_error_ends_both_outputs_with_it() -> None:
    def bad(_: MessageChunk) -> bool:
        raise ValueError("bad predicate")

    matched, rest = split(of("a"), bad)
    with pytest.raises(ValueError, match="bad predicate"):
        await asyncio.wait_for(matched.next(), 2)
    with pytest.raises(ValueError, match="bad predicate"):
        await asyncio.wait_for(rest.next(), 2)


async def test_split_does_not_close_the_source() -> None:
    src = Recorder(of("a", "b"))
    matched, rest = split(src, lambda c: True)
    await asyncio.wait_for(asyncio.gather(collect(matched), collect(rest)), 2)
    await matched.close()
    await rest.close()
    await asyncio.sleep(0)
    assert src.closed == []


async def test_split_keeps_feeding_one_output_after_the_other_is_closed() -> None:
    b = StreamBuilder()
    matched, rest = split(b.stream, lambda c: words([c])[0].startswith("m"))
    await rest.close()
    b.push_many([t("m1"), t("r1"), t("m2")])
    b.done()
    assert words(await asyncio.wait_for(collect(matched), 2)) == ["m1", "m2"]


async def test_split_reader_stops_pulling_when_both_outputs_are_closed() -> None:
    b = StreamBuilder()
    matched, rest = split(b.stream, lambda c: True)
    await asyncio.sleep(0)
    await matched.close()
    await rest.close()
    for _ in range(3):
        await asyncio.sleep(0)
    b.push(t("unread"))
    await asyncio.sleep(0)
    assert b.queued() == 1 and not b.closed_by_consumer


# -- tee ---------------------------------------------------------------------------
async def test_tee_mirrors_each_chunk_and_marks_the_builder_done() -> None:
    mirror = StreamBuilder()
    out = await collect(tee(of("a", "b"), mirror))
    assert words(out) == ["a", "b"]
    assert words(await collect(mirror.stream)) == ["a", "b"]


async def test_tee_aborts_the_builder_with_the_source_error() -> None:
    mirror = StreamBuilder()
    err = Blocked("unsafe")
    with pytest.raises(Blocked):
        await collect(tee(of("a", end=err), mirror))
    assert words([await mirror.stream.next()]) == ["a"]
    with pytest.raises(Blocked) as ei:
        await mirror.stream.next()
    assert ei.value is err


async def test_tee_keeps_forwarding_after_the_mirror_consumer_closed() -> None:
    mirror = StreamBuilder()
    s = tee(of("a", "b"), mirror)
    await mirror.stream.close()
    assert words(await collect(s)) == ["a", "b"]


async def test_tee_close_closes_the_source_and_truncates_the_mirror() -> None:
    mirror = StreamBuilder()
    src = Recorder(of("a", "b"))
    s = tee(src, mirror)
    await s.next()
    await s.close()
    assert src.closed == [None]
    assert words([await mirror.stream.next()]) == ["a"]
    with pytest.raises(Truncated):
        await mirror.stream.next()


# -- map_stream / passthrough / iter_chunks ------------------------------------------------
async def test_map_stream_applies_fn_lazily_and_none_drops_the_chunk() -> None:
    calls: list[str] = []

    def upper_unless_x(c: MessageChunk) -> MessageChunk | None:
        w = words([c])[0]
        calls.append(w)
        return None if w == "x" else t(w.upper())

    s = map_stream(of("a", "x", "b"), upper_unless_x)
    assert calls == []
    assert words([await s.next()]) == ["A"]
    assert calls == ["a"]
    assert words(await collect(s)) == ["B"]


async def test_map_stream_passes_the_upstream_end_error_through() -> None:
    with pytest.raises(Truncated):
        await collect(map_stream(of("a", end=Truncated()), lambda c: c))


async def test_map_stream_has_no_task_hop() -> None:
    """A chunk already queued upstream comes out of a 50-stage chain without yielding to the loop."""
    b = StreamBuilder()
    s: Stream = b.stream
    for _ in range(50):
        s = map_stream(s, lambda c: c)
    b.push(t("x"))
    coro = s.next()
    with pytest.raises(StopIteration) as ei:
        coro.send(None)  # completes in one step: nothing awaited a future
    assert words([ei.value.value]) == ["x"]


async def test_passthrough_close_reaches_the_source() -> None:
    src = Recorder(of("a"))
    await passthrough(map_stream(src)).close()
    assert src.closed == [None]


async def test_iter_chunks_ends_quietly_on_done_and_raises_other_ends() -> None:
    assert words([c async for c in iter_chunks(of("a", "b"))]) == ["a", "b"]
    with pytest.raises(Blocked):
        _ = [c async for c in iter_chunks(of("a", end=Blocked("x")))]


async def test_empty_stream_ends_at_once_and_repeats() -> None:
    s = empty_stream()
    for _ in range(2):
        with pytest.raises(Done):
            await s.next()


# -- conservation properties ------------------------------------------------------------
lists_of_words = st.lists(st.lists(st.text(min_size=1, max_size=3), max_size=8), max_size=5)


def _streams(groups: list[list[str]]) -> list[Stream]:
    return [of(*g) for g in groups]


@settings(max_examples=60, deadline=None)
@given(lists_of_words)
def test_merge_conserves_every_chunk_in_order(groups: list[list[str]]) -> None:
    out = asyncio.run(collect(merge(*_streams(groups))))
    assert words(out) == [w for g in groups for w in g]


@settings(max_examples=60, deadline=None)
@given(lists_of_words)
def test_merge_interleaved_conserves_every_chunk_and_each_streams_order(groups: list[list[str]]) -> None:
    tagged = [[f"{i}:{w}" for w in g] for i, g in enumerate(groups)]
    out = words(asyncio.run(collect(merge_interleaved(*_streams(tagged)))))
    assert sorted(out) == sorted(w for g in tagged for w in g)
    for i, g in enumerate(tagged):
        assert [w for w in out if w.split(":", 1)[0] == str(i)] == g
    expected: list[str] = []  # round robin: the k-th chunk of every stream before any (k+1)-th
    for k in range(max((len(g) for g in tagged), default=0)):
        expected += [g[k] for g in tagged if k < len(g)]
    assert out == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=3), max_size=20), st.integers(min_value=0, max_value=3))
def test_split_conserves_every_chunk_exactly_once_in_order(ws: list[str], mod: int) -> None:
    tagged = [f"{i}:{w}" for i, w in enumerate(ws)]

    def pred(c: MessageChunk) -> bool:
        return mod > 0 and int(words([c])[0].split(":", 1)[0]) % (mod + 1) == 0

    async def go() -> tuple[list[MessageChunk], list[MessageChunk]]:
        m, r = split(of(*tagged), pred)
        return await asyncio.wait_for(asyncio.gather(collect(m), collect(r)), 5)

    m, r = asyncio.run(go())
    mw, rw = words(m), words(r)
    assert sorted(mw + rw) == sorted(tagged)
    assert mw == [w for w in tagged if w in set(mw)]
    assert rw == [w for w in tagged if w in set(rw)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=3), max_size=20))
def test_tee_conserves_every_chunk_on_both_sides(ws: list[str]) -> None:
    async def go() -> tuple[list[MessageChunk], list[MessageChunk]]:
        mirror = StreamBuilder()
        out = await collect(tee(of(*ws), mirror))
        return out, await collect(mirror.stream)

    out, mirrored = asyncio.run(go())
    assert words(out) == ws and words(mirrored) == ws
    assert all(a is b for a, b in zip(out, mirrored, strict=True))
