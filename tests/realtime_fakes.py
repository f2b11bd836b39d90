"""A local websocket server for realtime tests: replays recorded sessions or runs scripted ones.

``async with ws_server(handler) as base_url`` serves ``handler(conn)`` for every
connection on 127.0.0.1 (port 0) and yields ``http://127.0.0.1:<port>`` (the
dialects turn it into ``ws://``). :func:`replay` plays one recorded JSONL session
frame by frame: it sends each ``recv`` frame and, for each ``send`` frame, waits
for the client's next frame and records any difference from the recording
(``event_id`` and audio payloads are ignored: the MANIFEST says they vary).

Fixtures: ``$PARLEY_SHARED/fixtures/providers`` when PARLEY_SHARED is set (a
worktree elsewhere), else ``<repo>/../shared/fixtures/providers``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

Handler = Callable[[ServerConnection], Awaitable[None]]
VARYING = frozenset({"event_id"})
AUDIO_FIELDS = (("input_audio_buffer.append", "audio"),)


def fixtures_root() -> Path:
    shared = os.environ.get("PARLEY_SHARED")
    base = Path(shared) if shared else Path(__file__).resolve().parents[1].parent / "shared"
    return base / "fixtures" / "providers"


def load_session(name: str) -> list[dict[str, Any]]:
    path = fixtures_root() / "realtime" / name
    if not path.exists():
        pytest.skip(f"provider fixtures not present ({path})")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def normalise(frame: Any, ignore: frozenset[str] = frozenset()) -> Any:
    """``frame`` without the fields that vary between runs (event ids, audio bytes) and the keys in ``ignore``."""
    if isinstance(frame, dict):
        out = {k: normalise(v, ignore) for k, v in frame.items() if k not in VARYING and k not in ignore}
        if out.get("type") == "input_audio_buffer.append":
            out["audio"] = "<audio>"
        audio = out.get("realtimeInput", {}).get("audio") if isinstance(out.get("realtimeInput"), dict) else None
        if isinstance(audio, dict):
            audio["data"] = "<audio>"
        return out
    if isinstance(frame, list):
        return [normalise(v, ignore) for v in frame]
    return frame


@dataclass
class Replay:
    received: list[Any] = field(default_factory=list)
    skipped: list[Any] = field(default_factory=list)  # client frames ``skip`` set aside (streamed microphone audio)
    mismatches: list[str] = field(default_factory=list)
    finished: asyncio.Event = field(default_factory=asyncio.Event)


def replay(
    frames: list[dict[str, Any]],
    result: Replay,
    *,
    timeout: float = 5.0,
    skip: Callable[[Any], bool] | None = None,
    ignore: frozenset[str] = frozenset(),
) -> Handler:
    """``skip(frame)``: a client frame the recording does not have (set aside, not compared); ``ignore``: keys not compared."""

    async def next_frame(conn: ServerConnection) -> Any:
        while True:
            got = json.loads(await asyncio.wait_for(conn.recv(), timeout))
            if skip is None or not skip(got):
                return got
            result.skipped.append(got)

    async def handler(conn: ServerConnection) -> None:
        try:
            for i, f in enumerate(frames):
                if f["dir"] == "recv":
                    if "close" in f:
                        await conn.close(f["close"].get("code", 1000), f["close"].get("reason", ""))
                        return
                    await conn.send(json.dumps(f["data"]))
                    continue
                got = await next_frame(conn)
                result.received.append(got)
                if normalise(got, ignore) != normalise(f["data"], ignore):
                    result.mismatches.append(f"frame {i}: expected {json.dumps(f['data'])}\n           got {json.dumps(got)}")
            result.finished.set()
            if skip is not None:
                async for raw in conn:
                    result.skipped.append(json.loads(raw))
            await conn.wait_closed()
        except Exception as e:
            result.mismatches.append(f"replay stopped: {type(e).__name__}: {e}")
            raise

    return handler


@asynccontextmanager
async def ws_server(handler: Handler, **kw: Any) -> AsyncIterator[str]:
    async with serve(handler, "127.0.0.1", 0, compression=None, **kw) as server:
        sock = next(iter(server.sockets))
        port = sock.getsockname()[1]
        yield f"http://127.0.0.1:{port}"


async def recv_json(conn: ServerConnection, wait: float = 5.0) -> Any:
    return json.loads(await asyncio.wait_for(conn.recv(), wait))


async def recv_until(conn: ServerConnection, kind: str, seen: list[Any] | None = None, wait: float = 5.0) -> Any:
    """Frames until one of ``type`` ``kind`` (the others go to ``seen``)."""
    while True:
        f = await recv_json(conn, wait)
        if f.get("type") == kind:
            return f
        if seen is not None:
            seen.append(f)


__all__ = ["Replay", "fixtures_root", "load_session", "normalise", "recv_json", "recv_until", "replay", "ws_server"]
