"""The transformer contract suite itself catches broken transformers (so passing it means something)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from genx.chunk import MessageChunk, Text
from genx.stream import Stream, StreamBuilder
from genx.transformers.streamkit import Invocation, ResponseConfig
from tests.contract.transformer_contract import (
    ContractCase,
    check_cancel_ends_open_routes,
    check_closing_output_closes_input,
    check_concurrent_calls_are_isolated,
    check_normal_end_closes_every_route,
    check_transformer_contract,
)


class LeakyEcho:
    """Copies input to output but never closes its input when the output is closed."""

    tasks: set[asyncio.Task[None]] = set()  # noqa: RUF012 - cancelled by the fixture below

    async def transform(self, stream: Stream) -> Stream:
        out = StreamBuilder()

        async def pump() -> None:
            try:
                async for c in stream:
                    out.push(c)
                out.done()
            except Exception as exc:
                out.abort(exc)

        self.tasks.add(asyncio.get_running_loop().create_task(pump()))
        return out.stream


@pytest.fixture(autouse=True)
async def _cancel_leaky_pumps() -> AsyncIterator[None]:
    yield
    for t in LeakyEcho.tasks:
        t.cancel()
    LeakyEcho.tasks.clear()


class SharedOutput:
    """Every call writes into one shared invocation: calls are not isolated."""

    def __init__(self) -> None:
        self.inv: Invocation | None = None

    async def transform(self, stream: Stream) -> Stream:
        if self.inv is None:
            self.inv = Invocation(stream)
        inv = self.inv

        async def pump() -> None:
            r = inv.start_response(ResponseConfig(), "text/plain")
            async for c in stream:
                if isinstance(c.part, Text) and c.part.text:
                    inv.emit(r, MessageChunk.text(c.part.text))

        inv.spawn(pump())
        return inv.stream


class NoEOS:
    """Emits data on a route but never ends it."""

    async def transform(self, stream: Stream) -> Stream:
        inv = Invocation(stream)

        async def pump() -> None:
            r = inv.start_response(ResponseConfig(), "text/plain")
            async for _ in stream:
                inv.emit(r, MessageChunk.text("x"))
            inv.output.done()  # ends the stream without finishing the response

        inv.spawn(pump())
        return inv.stream


def case(factory: type) -> ContractCase:
    return ContractCase(
        make_transformer=factory,
        opening=lambda i: [MessageChunk.text(f"hello {i}", stream_id=f"in{i}")],
        closing=lambda i: [MessageChunk.eos(f"in{i}", Text(""))],
        timeout=0.3,
    )


async def test_suite_catches_a_transformer_that_leaves_its_input_open() -> None:
    with pytest.raises((AssertionError, TimeoutError)):
        await check_closing_output_closes_input(case(LeakyEcho))


async def test_suite_catches_calls_that_share_state() -> None:
    with pytest.raises(AssertionError, match="second call"):
        await check_concurrent_calls_are_isolated(case(SharedOutput))


async def test_suite_catches_routes_without_eos() -> None:
    with pytest.raises(AssertionError, match="without EOS"):
        await check_normal_end_closes_every_route(case(NoEOS))


async def test_cancel_check_reports_not_applicable_without_cancel() -> None:
    assert await check_cancel_ends_open_routes(case(LeakyEcho)) is False


async def test_a_minimal_streamkit_transformer_passes() -> None:
    class Upper:
        async def transform(self, stream: Stream) -> Stream:
            inv = Invocation(stream)

            async def pump() -> None:
                routes: dict[str, object] = {}
                async for c in stream:
                    r = inv.response(c.stream_id) or inv.start_response(ResponseConfig(c.stream_id), "text/plain")
                    routes[c.stream_id] = r
                    if isinstance(c.part, Text) and c.part.text:
                        inv.emit(r, MessageChunk.text(c.part.text.upper()))
                    if c.is_end_of_stream():
                        inv.finish_response(r)

            inv.spawn(pump())
            return inv.stream

    await check_transformer_contract(case(Upper))
