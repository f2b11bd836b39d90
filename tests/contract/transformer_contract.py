"""The Transformer contract, as reusable async checks.

Every genx Transformer (TTS, VAD, ASR, piper TTS, realtime …) must:

1. serve concurrent ``transform()`` calls of one configured instance in
   isolation: closing one call's output leaves the other running to its normal end;
2. close its input stream when the consumer closes the output (and end the
   output at once, without hanging);
3. raise the consumer's error after ``close_with_error(exc)`` and close the input;
4. where the output has ``cancel()`` (streamkit ``InvocationStream``): end every
   open route with EOS(error="context canceled"), then end normally;
5. end every route it opened with exactly one EOS per MIME channel (or one
   control EOS), never sending data on a channel after its EOS;
6. end (not hang) when the input fails.

How a transformer's tests use it::

    from tests.contract.transformer_contract import ContractCase, check_transformer_contract

    def case() -> ContractCase:
        return ContractCase(
            make_transformer=lambda: MyTransformer(...),
            # chunks that make call i produce output while its input stays open;
            # use StreamIDs unique per i
            opening=lambda i: [MessageChunk.text("Hello there, friend. ", stream_id=f"in{i}")],
            # chunks that let call i finish its routes (the input then ends)
            closing=lambda i: [MessageChunk.eos(f"in{i}", Text(""))],
        )

    async def test_my_transformer_meets_the_contract() -> None:
        await check_transformer_contract(case())

or call the single ``check_*`` coroutines from separate tests. A VAD
transformer's ``opening`` is a few hundred ms of speech frames (its first output
is the utterance BOS); an ASR transformer's is an utterance route of audio
frames long enough for a partial; a piper TTS's is a sentence of text. Every
wait is guarded by ``case.timeout`` seconds, so a broken transformer fails
instead of hanging.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from genx.chunk import MessageChunk
from genx.errors import Done, StreamClosedError
from genx.stream import Stream, StreamBuilder
from genx.transformers import Transformer

CANCELED_TEXT = "context canceled"


@dataclass
class ContractCase:
    make_transformer: Callable[[], Transformer]
    opening: Callable[[int], Sequence[MessageChunk]]
    closing: Callable[[int], Sequence[MessageChunk]]
    timeout: float = 30.0


@dataclass
class ProbeInput:
    """An input stream the test feeds by hand and that records being closed."""

    builder: StreamBuilder = field(default_factory=StreamBuilder)
    closed: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.builder.on_close(lambda _exc: self.closed.set())

    @property
    def stream(self) -> Stream:
        return self.builder.stream

    def feed(self, chunks: Sequence[MessageChunk]) -> None:
        self.builder.push_many(chunks)

    def end(self) -> None:
        self.builder.done()


class RouteBook:
    """Checks rule 5 on a sequence of output chunks."""

    def __init__(self) -> None:
        self.open: dict[str, set[str]] = {}  # stream id → open MIME channels
        self.eos_count: dict[tuple[str, str], int] = {}
        self.opened: set[tuple[str, str]] = set()
        self.errors: list[str] = []

    def observe(self, c: MessageChunk) -> None:
        sid, mime = c.stream_id, c.mime()
        chans = self.open.setdefault(sid, set())
        if c.is_end_of_stream():
            if mime:
                if (sid, mime) not in self.opened:
                    self.opened.add((sid, mime))
                    chans.add(mime)
                if mime not in chans:
                    self.errors.append(f"second EOS on {sid}/{mime}")
                chans.discard(mime)
                self.eos_count[(sid, mime)] = self.eos_count.get((sid, mime), 0) + 1
            elif c.is_control_only():
                for m in chans:
                    self.eos_count[(sid, m)] = self.eos_count.get((sid, m), 0) + 1
                chans.clear()
            return
        if mime:
            if (sid, mime) in self.opened and mime not in chans:
                self.errors.append(f"chunk on {sid}/{mime} after its EOS")
            self.opened.add((sid, mime))
            chans.add(mime)

    def check_all_closed(self, where: str) -> None:
        still = sorted(f"{s}/{m}" for s, ms in self.open.items() for m in ms)
        assert not still, f"{where}: routes without EOS: {still}"
        assert not self.errors, f"{where}: {self.errors}"
        bad = {k: n for k, n in self.eos_count.items() if n != 1}
        assert not bad, f"{where}: channels with EOS count != 1: {bad}"

    def stream_ids(self) -> set[str]:
        return set(self.open)


async def _next(stream: Stream, limit: float) -> MessageChunk:
    return await asyncio.wait_for(stream.next(), limit)


async def _drain(stream: Stream, book: RouteBook, limit: float) -> list[MessageChunk]:
    out: list[MessageChunk] = []
    while True:
        try:
            c = await _next(stream, limit)
        except Done:
            return out
        book.observe(c)
        out.append(c)


async def _start(case: ContractCase, transformer: Transformer, i: int) -> tuple[ProbeInput, Stream]:
    probe = ProbeInput()
    probe.feed(case.opening(i))
    out = await asyncio.wait_for(transformer.transform(probe.stream), case.timeout)
    return probe, out


async def check_concurrent_calls_are_isolated(case: ContractCase) -> None:
    t = case.make_transformer()
    (p0, o0), (p1, o1) = await asyncio.gather(_start(case, t, 0), _start(case, t, 1))
    b0, b1 = RouteBook(), RouteBook()
    b0.observe(await _next(o0, case.timeout))
    b1.observe(await _next(o1, case.timeout))
    await o0.close()
    await asyncio.wait_for(p0.closed.wait(), case.timeout)
    assert not p1.closed.is_set(), "closing one call's output closed another call's input"
    p1.feed(case.closing(1))
    p1.end()
    rest = await _drain(o1, b1, case.timeout)
    b1.check_all_closed("second call")
    assert rest, "the second call produced nothing after the first was closed"
    leaked = (b0.stream_ids() & b1.stream_ids()) - {""}
    assert not leaked, f"calls share output StreamIDs {leaked}"
    await asyncio.wait_for(p1.closed.wait(), case.timeout)


async def check_closing_output_closes_input(case: ContractCase) -> None:
    t = case.make_transformer()
    probe, out = await _start(case, t, 0)
    await _next(out, case.timeout)
    await out.close()
    await asyncio.wait_for(probe.closed.wait(), case.timeout)
    try:
        c = await _next(out, case.timeout)
    except Done:
        pass
    else:
        raise AssertionError(f"output yielded {c!r} after the consumer closed it")
    try:
        probe.feed(case.closing(0))
    except StreamClosedError:
        pass
    else:
        raise AssertionError("the input still accepts chunks after the output was closed")


async def check_close_with_error_raises_it_and_closes_input(case: ContractCase) -> None:
    t = case.make_transformer()
    probe, out = await _start(case, t, 0)
    await _next(out, case.timeout)
    err = RuntimeError("consumer gave up")
    await out.close_with_error(err)
    await asyncio.wait_for(probe.closed.wait(), case.timeout)
    try:
        await _next(out, case.timeout)
    except RuntimeError as got:
        assert got is err, f"expected the consumer's error, got {got!r}"
    else:
        raise AssertionError("output did not raise the consumer's error")


async def check_cancel_ends_open_routes(case: ContractCase) -> bool:
    """Rule 4; returns False (nothing checked) when the output has no ``cancel()``."""
    t = case.make_transformer()
    probe, out = await _start(case, t, 0)
    cancel = getattr(out, "cancel", None)
    if cancel is None:
        await out.close()
        return False
    book = RouteBook()
    book.observe(await _next(out, case.timeout))
    open_before = {(s, m) for s, ms in book.open.items() for m in ms}
    cancel()
    after = await _drain(out, book, case.timeout)
    book.check_all_closed("after cancel")
    for c in after:
        if c.is_end_of_stream() and (c.stream_id, c.mime()) in open_before:
            assert c.error == CANCELED_TEXT, f"cancel EOS carries error {c.error!r}, want {CANCELED_TEXT!r}"
    ended = {(c.stream_id, c.mime()) for c in after if c.is_end_of_stream()}
    assert open_before <= ended, f"open routes {open_before - ended} got no EOS after cancel"
    await asyncio.wait_for(probe.closed.wait(), case.timeout)
    return True


async def check_normal_end_closes_every_route(case: ContractCase) -> None:
    t = case.make_transformer()
    probe, out = await _start(case, t, 0)
    probe.feed(case.closing(0))
    probe.end()
    book = RouteBook()
    chunks = await _drain(out, book, case.timeout)
    assert chunks, "no output for a complete input"
    book.check_all_closed("normal end")
    await asyncio.wait_for(probe.closed.wait(), case.timeout)


async def check_input_error_ends_output(case: ContractCase) -> None:
    t = case.make_transformer()
    probe, out = await _start(case, t, 0)
    err = ConnectionError("upstream broke")
    probe.builder.abort(err)
    book = RouteBook()
    try:
        await _drain(out, book, case.timeout)
    except ConnectionError as got:
        assert got is err
    book.check_all_closed("input error")


async def check_transformer_contract(case: ContractCase) -> None:
    """Run every check above (each on fresh calls)."""
    await check_concurrent_calls_are_isolated(case)
    await check_closing_output_closes_input(case)
    await check_close_with_error_raises_it_and_closes_input(case)
    await check_cancel_ends_open_routes(case)
    await check_normal_end_closes_every_route(case)
    await check_input_error_ends_output(case)


__all__ = [
    "ContractCase",
    "ProbeInput",
    "RouteBook",
    "check_cancel_ends_open_routes",
    "check_close_with_error_raises_it_and_closes_input",
    "check_closing_output_closes_input",
    "check_concurrent_calls_are_isolated",
    "check_input_error_ends_output",
    "check_normal_end_closes_every_route",
    "check_transformer_contract",
]
