"""Realtime transformer overhead: added latency and CPU per audio chunk in and per audio delta out.

One local websocket server (127.0.0.1, OpenAI Realtime frames) and, in the same run
and event loop, two clients:

* **bare**: a plain ``websockets`` client that base64-encodes each chunk into an
  ``input_audio_buffer.append`` frame and decodes each ``response.output_audio.delta``;
* **genx**: :class:`~genx.transformers.realtime.RealtimeTransformer` (OpenAI dialect):
  a chunk pushed into its input stream, a delta pulled from its output stream.

Chunk in: the time from handing a 20 ms PCM chunk to the client to the server
receiving its frame (one chunk in flight at a time; same clock, same process).
Delta out: the time from the server sending a 20 ms delta to the client's
consumer holding the audio. CPU: process CPU time per chunk over the whole
phase (the server's share is the same in both rows, so the difference is the
client's). Also ``genx-16k``: chunks at 16 kHz, resampled to 24 kHz on the way.

Usage: ``python bench/realtime_overhead.py [--n 400] [--json]``; the last line
with ``--json`` has ``added_ms_per_chunk_p50`` and ``ratio_vs_bare`` (chunk-in
p50 latency, genx / bare). Goal: ≤ 0.5 ms added per chunk, ratio ≤ 1.5.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from genx.chunk import Blob, MessageChunk, Role
from genx.generators.providers.config import ProviderConfig, Timeouts
from genx.stream import StreamBuilder
from genx.transformers.audiostream.pcm import l16_mime
from genx.transformers.realtime import RealtimeSettings, RealtimeTransformer
from genx.transformers.realtime.openai_realtime import OpenAIRealtimeDialect


@dataclass
class Phase:
    lat_ms: list[float]
    cpu_ms: float  # process CPU per item

    def p(self, q: float) -> float:
        s = sorted(self.lat_ms)
        return s[min(len(s) - 1, int(q * len(s)))]


class Server:
    """Records when each append frame arrives; sends deltas one at a time when asked."""

    def __init__(self) -> None:
        self.arrived = asyncio.Event()
        self.t_arrived = 0.0
        self.conn: ServerConnection | None = None
        self.connected = asyncio.Event()

    async def handler(self, conn: ServerConnection) -> None:
        self.conn = conn
        async for raw in conn:
            f = json.loads(raw)
            t = f.get("type")
            if t == "input_audio_buffer.append":
                self.t_arrived = time.perf_counter()
                self.arrived.set()
            elif t == "session.update":
                await conn.send(json.dumps({"type": "session.updated", "session": {"id": "s"}}))
                self.connected.set()
            elif t == "response.create":
                await conn.send(json.dumps({"type": "response.created", "response": {"id": "r"}}))
        if self.conn is conn:
            self.conn = None


def tone(ms: int, rate: int) -> bytes:
    n = rate * ms // 1000
    return (np.sin(np.arange(n) * 2 * np.pi * 220 / rate) * 6000).astype("<i2").tobytes()


async def chunks_in(server: Server, n: int, send: Callable[[], Awaitable[None]]) -> Phase:
    lat: list[float] = []
    gc.collect()
    c0 = time.process_time()
    for _ in range(n):
        server.arrived.clear()
        t0 = time.perf_counter()
        await send()
        await server.arrived.wait()
        lat.append((server.t_arrived - t0) * 1000)
    return Phase(lat, (time.process_time() - c0) * 1000 / n)


async def deltas_out(server: Server, n: int, pcm: bytes, received: Callable[[], Awaitable[None]]) -> Phase:
    conn = server.conn
    assert conn is not None
    frame = json.dumps({"type": "response.output_audio.delta", "response_id": "r", "item_id": "i", "delta": base64.b64encode(pcm).decode()})
    lat: list[float] = []
    gc.collect()
    c0 = time.process_time()
    for _ in range(n):
        t0 = time.perf_counter()
        await conn.send(frame)
        await received()
        lat.append((time.perf_counter() - t0) * 1000)
    return Phase(lat, (time.process_time() - c0) * 1000 / n)


async def bare(url: str, server: Server, n: int) -> tuple[Phase, Phase]:
    pcm = tone(20, 24000)
    async with connect(url.replace("http", "ws") + "/realtime", compression=None) as ws:
        await ws.send(json.dumps({"type": "session.update", "session": {}}))
        await ws.recv()

        async def send() -> None:
            # what a hand-written client does per chunk: encode, frame, send (awaited inline: no task hop)
            await ws.send(json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm).decode()}))

        p_in = await chunks_in(server, n, send)
        await ws.send(json.dumps({"type": "response.create"}))
        await ws.recv()

        async def received() -> None:
            f = json.loads(await ws.recv())
            base64.b64decode(f["delta"])

        p_out = await deltas_out(server, n, pcm, received)
    return p_in, p_out


async def genx_client(url: str, server: Server, n: int, rate: int) -> tuple[Phase, Phase]:
    cfg = ProviderConfig(provider="openai", base_url=url, api_key="bench", timeouts=Timeouts(connect=5, read=30))
    rt = RealtimeTransformer(OpenAIRealtimeDialect, cfg, RealtimeSettings(model="bench", turn_detection="server_vad"))
    inp = StreamBuilder()
    out = await rt.transform(inp.stream)
    pcm = tone(20, rate)
    mime = l16_mime(rate)
    server.arrived.clear()
    inp.push(MessageChunk.blob(mime, pcm, role=Role.USER))  # warm-up: connect and become ready
    await server.arrived.wait()

    async def send() -> None:
        inp.push(MessageChunk(role=Role.USER, part=Blob(mime, pcm)))  # the session's writer task sends it

    p_in = await chunks_in(server, n, send)
    inp.push(MessageChunk.text("go", role=Role.USER))
    first = await out.next()  # the response's BOS
    assert first.is_begin_of_stream()

    async def received() -> None:
        c = await out.next()
        assert isinstance(c.part, Blob) and c.part.data

    p_out = await deltas_out(server, n, tone(20, 24000), received)
    await out.close()
    return p_in, p_out


async def run(n: int) -> dict[str, Any]:
    server = Server()
    async with serve(server.handler, "127.0.0.1", 0, compression=None) as srv:
        port = next(iter(srv.sockets)).getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        results: dict[str, tuple[Phase, Phase]] = {}
        for _ in range(2):  # the second round is the measured one (imports, JIT-free warm caches)
            results["bare"] = await bare(url, server, n)
            results["genx"] = await genx_client(url, server, n, 24000)
            results["genx-16k"] = await genx_client(url, server, n, 16000)
    return {k: {"in": v[0], "out": v[1]} for k, v in results.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=400, help="chunks (and deltas) per client")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args()
    res = asyncio.run(run(args.n))
    print(f"realtime overhead, {args.n} x 20 ms chunks per client (ms; CPU = process CPU per chunk)")
    print(f"{'client':<10} {'in p50':>8} {'in p95':>8} {'in CPU':>8} {'out p50':>8} {'out p95':>8} {'out CPU':>8}")
    for name, ph in res.items():
        i, o = ph["in"], ph["out"]
        print(f"{name:<10} {i.p(0.5):8.3f} {i.p(0.95):8.3f} {i.cpu_ms:8.3f} {o.p(0.5):8.3f} {o.p(0.95):8.3f} {o.cpu_ms:8.3f}")
    b, g, g16 = res["bare"], res["genx"], res["genx-16k"]
    summary = {
        "n": args.n,
        "added_ms_per_chunk_p50": round(g["in"].p(0.5) - b["in"].p(0.5), 4),
        "added_ms_per_chunk_p95": round(g["in"].p(0.95) - b["in"].p(0.95), 4),
        "added_ms_per_delta_p50": round(g["out"].p(0.5) - b["out"].p(0.5), 4),
        "added_ms_per_delta_p95": round(g["out"].p(0.95) - b["out"].p(0.95), 4),
        "added_cpu_ms_per_chunk": round(g["in"].cpu_ms - b["in"].cpu_ms, 4),
        "added_cpu_ms_per_delta": round(g["out"].cpu_ms - b["out"].cpu_ms, 4),
        "added_ms_per_chunk_16k_p50": round(g16["in"].p(0.5) - b["in"].p(0.5), 4),
        "ratio_vs_bare": round(g["in"].p(0.5) / b["in"].p(0.5), 3),
        "ratio_vs_bare_out": round(g["out"].p(0.5) / b["out"].p(0.5), 3),
        "ratio_cpu_vs_bare": round(g["in"].cpu_ms / b["in"].cpu_ms, 3),
    }
    print(
        f"added per chunk in: p50 {summary['added_ms_per_chunk_p50']:.3f} ms (goal <= 0.5), "
        f"ratio {summary['ratio_vs_bare']:.2f} (goal <= 1.5); "
        f"per delta out: p50 {summary['added_ms_per_delta_p50']:.3f} ms"
    )
    if args.json:
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
