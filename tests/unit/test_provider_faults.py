"""Transport faults against a real local TCP server on 127.0.0.1: each ends in the right typed error, in time.

The server speaks just enough HTTP/1.1 to script one response per connection:
a 429 / 500 before success, a connection reset mid-stream, a stall past the read
timeout, garbage instead of HTTP, garbage inside a 200 body, and a consumer
that closes the stream (the server must see the connection close).
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from genx.chunk import MessageChunk, Text
from genx.errors import Done
from genx.generators.providers import (
    OllamaGenerator,
    ProtocolError,
    ProviderConnectionError,
    ProviderTimeoutError,
    RateLimitError,
    StreamEndedError,
    Timeouts,
    openai_compatible,
)
from genx.generators.providers.config import RetryPolicy
from genx.generators.providers.generator import HttpGenerator, ProviderStream
from genx.model import ModelContextBuilder

pytestmark = pytest.mark.timeout(30)

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
EVENT = b'data: {"choices":[{"index":0,"delta":{"content":"tok"},"finish_reason":null}]}\n\n'
FINISH = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def chunked(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return await reader.readexactly(length) if length else b""


def reset(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


@dataclass
class Script:
    """One handler per incoming connection, in order; ``connections`` counts them."""

    handlers: list[Handler]
    connections: int = 0
    closed: asyncio.Event = field(default_factory=asyncio.Event)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        i = self.connections
        self.connections += 1
        try:
            await read_request(reader)
            await self.handlers[min(i, len(self.handlers) - 1)](reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            if not writer.transport.is_closing():
                writer.close()


async def ok_stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(SSE_HEAD + chunked(EVENT) + chunked(FINISH) + b"0\r\n\r\n")
    await writer.drain()


def status(code: int, reason: str, body: bytes, extra: str = "") -> Handler:
    async def h(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(
            f"HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n{extra}\r\n".encode() + body
        )
        await writer.drain()

    return h


@pytest.fixture
async def server() -> AsyncIterator[Callable[[list[Handler]], Awaitable[tuple[Script, str]]]]:
    servers: list[asyncio.Server] = []

    async def start(handlers: list[Handler]) -> tuple[Script, str]:
        script = Script(handlers)
        srv = await asyncio.start_server(script.serve, "127.0.0.1", 0)
        servers.append(srv)
        port = srv.sockets[0].getsockname()[1]
        return script, f"http://127.0.0.1:{port}/v1"

    yield start
    for s in servers:
        s.close()
        await s.wait_closed()


def make(base_url: str, sleeps: list[float] | None = None, read: float = 5.0) -> HttpGenerator:
    async def sleep(s: float) -> None:
        if sleeps is not None:
            sleeps.append(s)

    return openai_compatible("llamacpp", base_url=base_url, model="m", timeouts=Timeouts(connect=2.0, read=read), sleep=sleep)


async def drain(stream: ProviderStream) -> tuple[list[MessageChunk], BaseException]:
    out: list[MessageChunk] = []
    while True:
        try:
            out.append(await asyncio.wait_for(stream.next(), 10))
        except BaseException as e:
            return out, e


def ctx() -> object:
    return ModelContextBuilder().user("hi").build()


async def test_429_with_retry_after_then_success(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    script, url = await server([status(429, "Too Many Requests", b'{"error":{"message":"slow down"}}', "Retry-After: 1\r\n"), ok_stream])
    sleeps: list[float] = []
    gen = make(url, sleeps)
    chunks, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, Done) and [c.part for c in chunks if c.part] == [Text("tok")]
    assert sleeps == [1.0] and script.connections == 2


async def test_500_then_success_backs_off_once(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    script, url = await server([status(500, "Internal Server Error", b'{"error":{"message":"boom"}}'), ok_stream])
    sleeps: list[float] = []
    gen = make(url, sleeps)
    _, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, Done) and sleeps == [RetryPolicy().backoff(0)] and script.connections == 2


async def test_retry_after_longer_than_the_cap_surfaces_rate_limit_with_retry_after(
    server: Callable[..., Awaitable[tuple[Script, str]]],
) -> None:
    script, url = await server([status(429, "Too Many Requests", b'{"error":{"message":"later"}}', "Retry-After: 3600\r\n")])
    gen = make(url, [])
    _, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, RateLimitError) and end.retry_after == 3600.0 and script.connections == 1


async def test_connection_reset_mid_stream_is_a_connection_error_and_not_retried(
    server: Callable[..., Awaitable[tuple[Script, str]]],
) -> None:
    async def reset_mid(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD + chunked(EVENT))
        await writer.drain()
        await asyncio.sleep(0.1)
        reset(writer)

    script, url = await server([reset_mid, ok_stream])
    gen = make(url, [])
    chunks, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert [c.part for c in chunks if c.part] == [Text("tok")]  # the received prefix is delivered
    assert isinstance(end, ProviderConnectionError) and "mid-stream" in str(end)
    assert script.connections == 1  # bytes were delivered: no retry


async def test_reset_before_the_first_byte_is_retried(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    async def reset_now(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        reset(writer)

    script, url = await server([reset_now, ok_stream])
    gen = make(url, [])
    _, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, Done) and script.connections == 2


async def test_stall_past_the_read_timeout_is_a_timeout_error(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD + chunked(EVENT))
        await writer.drain()
        await asyncio.sleep(20)

    _script, url = await server([stall])
    gen = make(url, [], read=0.3)
    chunks, end = await asyncio.wait_for(drain(await gen.generate_stream("m", ctx())), 10)  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, ProviderTimeoutError) and "read timeout" in str(end)
    assert [c.part for c in chunks if c.part] == [Text("tok")]


async def test_slow_but_steady_stream_is_not_cut_by_the_read_timeout(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    async def steady(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD)
        for _ in range(6):
            writer.write(chunked(EVENT))
            await writer.drain()
            await asyncio.sleep(0.1)
        writer.write(chunked(FINISH) + b"0\r\n\r\n")
        await writer.drain()

    _, url = await server([steady])
    gen = make(url, [], read=0.35)  # whole stream takes longer than one read timeout
    chunks, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, Done) and len([c for c in chunks if c.part]) == 6


async def test_garbage_instead_of_http_is_a_protocol_error(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"\x00\xff\xfeNOT HTTP AT ALL\r\n\r\n")
        await writer.drain()

    _, url = await server([garbage])
    gen = make(url, [])
    _, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, ProtocolError) and "invalid HTTP response" in str(end)


async def test_garbage_inside_a_200_body_is_a_protocol_error(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    async def garbage_body(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD + chunked(EVENT + b"data: \x8f\x00{{{garbage\n\n") + b"0\r\n\r\n")
        await writer.drain()

    _, url = await server([garbage_body])
    gen = make(url, [])
    _chunks, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, ProtocolError) and "malformed event" in str(end)


async def test_body_that_just_ends_is_a_stream_ended_error(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    async def short(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD + chunked(EVENT) + b"0\r\n\r\n")
        await writer.drain()

    _, url = await server([short])
    gen = make(url, [])
    _, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, StreamEndedError)


async def test_connection_refused_is_a_connection_error_naming_the_url() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    gen = make(f"http://127.0.0.1:{port}/v1", [])
    _, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, ProviderConnectionError) and f"127.0.0.1:{port}" in str(end)


async def test_closing_the_stream_closes_the_http_connection_at_once(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    seen_close = asyncio.Event()

    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD)
        try:
            while True:
                writer.write(chunked(EVENT))
                await writer.drain()
                if reader.at_eof():
                    break
                try:
                    await asyncio.wait_for(reader.read(1), 0.05)
                except TimeoutError:
                    continue
                if reader.at_eof():
                    break
        except ConnectionError:
            pass
        seen_close.set()

    _, url = await server([endless])
    gen = make(url, [])
    stream = await gen.generate_stream("m", ctx())  # type: ignore[arg-type]
    assert (await asyncio.wait_for(stream.next(), 5)).part == Text("tok")
    await stream.close()
    await asyncio.wait_for(seen_close.wait(), 5)
    await gen.aclose()


async def test_ollama_ndjson_reset_mid_stream_is_a_connection_error(server: Callable[..., Awaitable[tuple[Script, str]]]) -> None:
    async def nd(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n")
        writer.write(chunked(b'{"message":{"role":"assistant","content":"x'))  # a line cut in half
        await writer.drain()
        await asyncio.sleep(0.1)
        reset(writer)

    _, url = await server([nd])
    gen = OllamaGenerator(base_url=url.removesuffix("/v1"), model="m")
    _, end = await drain(await gen.generate_stream("m", ctx()))  # type: ignore[arg-type]
    await gen.aclose()
    assert isinstance(end, ProviderConnectionError)
