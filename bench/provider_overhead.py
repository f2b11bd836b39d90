"""Provider adapter overhead on the recorded streams: parse+convert cost per event, added latency per chunk,
and end-to-end cost per event next to the official SDKs (``openai``, ``anthropic``) in the same run.

Measures, per adapter (streams from ``../shared/fixtures/providers``; Ollama uses a synthetic NDJSON
stream because no recording exists):

* parse+convert: a whole body through framing + the pure converter (no I/O), µs per event;
* added latency: one event's bytes in → its chunks out, µs per event (what a token waits for genx);
* end to end: ``generate_stream`` over ``httpx.MockTransport`` + asyncio + StreamBuilder, µs per event.

SDK comparison on the same bodies, both ways: stream parsing (genx parse+convert vs the SDK's own
``Stream`` over a ready response: SSE decoding + typed event objects; this is ``ratio_vs_sdk``) and end to
end through a mock transport (request building included; ``ratio_vs_sdk_e2e``). SDKs: OpenAI
(``ChatCompletionChunk`` / ``ResponseStreamEvent``) and Anthropic (``RawMessageStreamEvent``; recordings
without ``event:`` lines are skipped because that SDK dispatches on event names). A ratio < 1 means genx
is faster.
Install the SDKs with the ``bench`` extra (``.venv-bench``); without them only genx numbers are reported.

Usage: ``python bench/provider_overhead.py [--reps N] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import re
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

from genx.generators.providers import (
    AnthropicGenerator,
    GeminiGenerator,
    OllamaGenerator,
    OpenAIChatGenerator,
    OpenAIResponsesGenerator,
    openai_compatible,
)
from genx.generators.providers.anthropic import AnthropicConverter
from genx.generators.providers.compat import COMPAT_ROWS
from genx.generators.providers.convert import ConverterBase
from genx.generators.providers.framing import NDJSONDecoder, SSEDecoder
from genx.generators.providers.gemini import GeminiConverter
from genx.generators.providers.generator import HttpGenerator, convert_bytes, feed_ndjson, feed_sse
from genx.generators.providers.ollama import OllamaConverter
from genx.generators.providers.openai_chat import OPENAI_QUIRKS, ChatConverter
from genx.generators.providers.openai_responses import ResponsesConverter
from genx.model import ModelContextBuilder

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared/fixtures/providers"
logging.getLogger("genx.generators.providers").setLevel(logging.ERROR)
Framing = Literal["sse", "ndjson"]


@dataclass
class Adapter:
    name: str
    folder: str
    framing: Framing
    converter: Callable[[], ConverterBase]
    generator: Callable[[httpx.AsyncClient], HttpGenerator]
    sdk: str | None  # which SDK can replay these bodies


ADAPTERS = [
    Adapter(
        "openai-chat",
        "openai-chat",
        "sse",
        lambda: ChatConverter("openai", OPENAI_QUIRKS),
        lambda c: OpenAIChatGenerator(api_key="k", model="m", client=c),
        "openai",
    ),
    Adapter(
        "openai-compatible (groq row)",
        "openai-compatible",
        "sse",
        lambda: ChatConverter("groq", COMPAT_ROWS["groq"].quirks),
        lambda c: openai_compatible("groq", api_key="k", model="m", client=c),
        "openai",
    ),
    Adapter(
        "openai-responses",
        "openai-responses",
        "sse",
        lambda: ResponsesConverter("openai"),
        lambda c: OpenAIResponsesGenerator(api_key="k", model="m", client=c),
        "openai-responses",
    ),
    Adapter(
        "anthropic",
        "anthropic",
        "sse",
        lambda: AnthropicConverter("anthropic"),
        lambda c: AnthropicGenerator(api_key="k", model="m", client=c),
        "anthropic",
    ),
    Adapter(
        "gemini", "gemini", "sse", lambda: GeminiConverter("gemini"), lambda c: GeminiGenerator(api_key="k", model="m", client=c), None
    ),
    Adapter(
        "ollama (synthetic)",
        "",
        "ndjson",
        lambda: OllamaConverter("ollama"),
        lambda c: OllamaGenerator(model="m", client=c),
        None,
    ),
]


def synthetic_ollama(tokens: int = 200) -> bytes:
    words = ("The quick brown fox jumps over the lazy dog. " * 40).split(" ")
    lines = [
        json.dumps(
            {"model": "m", "created_at": "2025-01-01T00:00:00Z", "message": {"role": "assistant", "content": w + " "}, "done": False}
        )
        for w in words[:tokens]
    ]
    lines.append(
        json.dumps(
            {
                "model": "m",
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "done_reason": "stop",
                "prompt_eval_count": 20,
                "eval_count": tokens,
            }
        )
    )
    return ("\n".join(lines) + "\n").encode()


def bodies(a: Adapter) -> list[tuple[str, bytes]]:
    if not a.folder:
        return [("synthetic-200-tokens.ndjson", synthetic_ollama())]
    return [(p.name, p.read_bytes()) for p in sorted((FIXTURES / a.folder).glob("*.sse"))]


_EVENT_END = re.compile(rb"(?:\r\n\r\n|\n\n|\r\r)")


def event_pieces(body: bytes, framing: Framing) -> list[bytes]:
    """The body cut right after each event (the bytes that complete one event arrive together)."""
    if framing == "ndjson":
        return [line + b"\n" for line in body.split(b"\n") if line.strip()]
    out, prev = [], 0
    for m in _EVENT_END.finditer(body):
        out.append(body[prev : m.end()])
        prev = m.end()
    if prev < len(body):
        out.append(body[prev:])
    return out


def count_events(body: bytes, framing: Framing) -> int:
    if framing == "ndjson":
        return len([line for line in body.split(b"\n") if line.strip()])
    d = SSEDecoder()
    return len([e for e in d.feed(body) + d.close() if e.data])


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


@dataclass
class Row:
    adapter: str
    streams: int = 0
    events: int = 0
    parse: list[float] = field(default_factory=list)  # µs per event, one value per (stream, rep)
    latency: list[float] = field(default_factory=list)  # µs per event piece
    e2e: list[float] = field(default_factory=list)  # µs per event


def measure_parse(a: Adapter, body: bytes, events: int, reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        conv = a.converter()
        t0 = time.perf_counter_ns()
        convert_bytes(conv, a.framing, [body])
        out.append((time.perf_counter_ns() - t0) / 1000 / events)
    return out


def measure_latency(a: Adapter, body: bytes, reps: int) -> list[float]:
    pieces = event_pieces(body, a.framing)
    out: list[float] = []
    for _ in range(reps):
        conv = a.converter()
        dec: Any = SSEDecoder() if a.framing == "sse" else NDJSONDecoder()
        feed: Any = feed_sse if a.framing == "sse" else feed_ndjson
        chunks: list[Any] = []
        try:
            for p in pieces:
                t0 = time.perf_counter_ns()
                feed(conv, dec, p, chunks)
                out.append((time.perf_counter_ns() - t0) / 1000)
                chunks.clear()
                if conv.finished:
                    break
        except Exception:
            pass  # an error event ends the stream; its cost was not timed
    return out


def mock_client(body: bytes) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.MockTransport(lambda r: httpx.Response(200, content=body, headers={"content-type": "text/event-stream"}))
    )


async def time_async(fn: Callable[[], Awaitable[None]], reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        await fn()
        out.append((time.perf_counter_ns() - t0) / 1000)
    return out


async def genx_e2e(a: Adapter, body: bytes, reps: int) -> list[float]:
    ctx = ModelContextBuilder().user("hi").build()
    async with mock_client(body) as client:
        gen = a.generator(client)

        async def once() -> None:
            stream = await gen.generate_stream("m", ctx)
            try:
                async for _ in stream:
                    pass
            except Exception:
                pass

        await once()  # warm-up
        return await time_async(once, reps)


async def sdk_e2e(kind: str, body: bytes, reps: int) -> list[float] | None:
    try:
        if kind == "anthropic":
            import anthropic
            import httpx2  # the Anthropic SDK ships its own httpx fork

            hc: Any = httpx2.AsyncClient(
                transport=httpx2.MockTransport(lambda r: httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"}))
            )
            client: Any = anthropic.AsyncAnthropic(api_key="k", base_url="http://bench.invalid", http_client=hc, max_retries=0)

            async def call() -> Any:
                return await client.messages.create(model="m", max_tokens=16, messages=[{"role": "user", "content": "hi"}], stream=True)

        else:
            import openai

            hc = mock_client(body)
            client = openai.AsyncOpenAI(api_key="k", base_url="http://bench.invalid/v1", http_client=hc, max_retries=0)
            if kind == "openai-responses":

                async def call() -> Any:
                    return await client.responses.create(model="m", input="hi", stream=True)

            else:

                async def call() -> Any:
                    return await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)

    except ImportError:
        return None

    async def once() -> None:
        try:
            stream = await call()
            async for _ in stream:
                pass
        except Exception:
            pass  # recorded error events raise in the SDK as in genx

    await once()
    out = await time_async(once, reps)
    await hc.aclose()
    return out


def sdk_parse(kind: str, body: bytes, reps: int) -> list[float] | None:
    """The SDK's own stream parsing: its ``Stream`` over a ready response (SSE decoding + typed event objects)."""
    try:
        import httpx2

        if kind == "anthropic":
            import anthropic
            from anthropic.types import RawMessageStreamEvent

            mod: Any = anthropic
            client: Any = anthropic.Anthropic(api_key="k", base_url="http://bench.invalid")
            cast: Any = RawMessageStreamEvent
        else:
            import openai
            from openai.types.chat import ChatCompletionChunk
            from openai.types.responses import ResponseStreamEvent

            mod = openai
            client = openai.OpenAI(api_key="k", base_url="http://bench.invalid/v1")
            cast = ResponseStreamEvent if kind == "openai-responses" else ChatCompletionChunk
    except ImportError:
        return None
    request = httpx2.Request("POST", "http://bench.invalid/v1")

    def once() -> None:
        response = httpx2.Response(200, content=body, request=request, headers={"content-type": "text/event-stream"})
        try:
            for _ in mod.Stream(cast_to=cast, response=response, client=client):
                pass
        except Exception:
            pass  # recorded error events raise in the SDK as in genx

    once()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        once()
        out.append((time.perf_counter_ns() - t0) / 1000)
    client.close()
    return out


def sdk_versions() -> dict[str, str]:
    out = {}
    for mod in ("openai", "anthropic"):
        try:
            out[mod] = __import__(mod).__version__
        except ImportError:
            pass
    return out


async def run(reps: int) -> dict[str, Any]:
    rows: list[Row] = []
    sdk_pairs: dict[str, list[tuple[float, float]]] = {"openai": [], "anthropic": []}  # end to end (genx µs/req, sdk µs/req) medians
    parse_pairs: dict[str, list[tuple[float, float]]] = {"openai": [], "anthropic": []}  # parse only, per stream medians
    sdk_events: dict[str, int] = {"openai": 0, "anthropic": 0}
    missing: set[str] = set()
    gc.disable()
    try:
        for a in ADAPTERS:
            row = Row(a.name)
            for _name, body in bodies(a):
                n = count_events(body, a.framing)
                row.streams += 1
                row.events += n
                parse = measure_parse(a, body, n, reps)
                row.parse += parse
                row.latency += measure_latency(a, body, max(3, reps // 10))
                e2e = await genx_e2e(a, body, max(5, reps // 4))
                row.e2e += [v / n for v in e2e]
                gc.collect()
                if a.sdk is None:
                    continue
                if a.sdk == "anthropic" and b"event:" not in body:
                    continue
                sdk_name = "anthropic" if a.sdk == "anthropic" else "openai"
                s = await sdk_e2e(a.sdk, body, max(5, reps // 4))
                if s is None:
                    missing.add(sdk_name)
                    continue
                for key in (sdk_name, f"  {a.name}"):
                    sdk_pairs.setdefault(key, []).append((statistics.median(e2e), statistics.median(s)))
                    sdk_events[key] = sdk_events.get(key, 0) + n
                p = sdk_parse(a.sdk, body, max(5, reps // 4))
                if p is not None:
                    for key in (sdk_name, f"  {a.name}"):
                        parse_pairs.setdefault(key, []).append((statistics.median(parse) * n, statistics.median(p)))
                gc.collect()
            rows.append(row)
    finally:
        gc.enable()

    def summary(pairs: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, float]]:
        return {
            k: {
                "genx_us_per_event": sum(g for g, _ in v) / sdk_events[k],
                "sdk_us_per_event": sum(s for _, s in v) / sdk_events[k],
                "ratio": sum(g for g, _ in v) / sum(s for _, s in v),
                "streams": len(v),
            }
            for k, v in pairs.items()
            if v
        }

    return {"rows": rows, "parse": summary(parse_pairs), "e2e": summary(sdk_pairs), "missing": sorted(missing)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=200, help="repetitions of the pure measurements per stream (default 200)")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args()
    if not FIXTURES.is_dir():
        print(f"provider fixtures not found at {FIXTURES}; only the synthetic Ollama stream is measured", file=sys.stderr)
        ADAPTERS[:] = [a for a in ADAPTERS if not a.folder]
    res = asyncio.run(run(args.reps))
    rows: list[Row] = res["rows"]
    print(f"genx provider overhead (python {sys.version.split()[0]}, httpx {httpx.__version__}; SDKs: {sdk_versions() or 'not installed'})")
    print()
    head = f"{'adapter':30} {'streams':>7} {'events':>7} | {'parse+convert µs/event':>22} | {'added latency µs/chunk':>22} | "
    head += f"{'end-to-end µs/event':>20}"
    print(head)
    print(f"{'':30} {'':>7} {'':>7} | {'median':>10} {'p95':>11} | {'median':>10} {'p95':>11} | {'median':>9} {'p95':>10}")
    print("-" * len(head))
    for r in rows:
        print(
            f"{r.adapter:30} {r.streams:>7} {r.events:>7} | {statistics.median(r.parse):>10.2f} {pct(r.parse, 0.95):>11.2f} | "
            f"{statistics.median(r.latency):>10.2f} {pct(r.latency, 0.95):>11.2f} | "
            f"{statistics.median(r.e2e):>9.2f} {pct(r.e2e, 0.95):>10.2f}"
        )
    print()
    for title, key in (("stream parsing", "parse"), ("end to end via mock transport", "e2e")):
        if not res[key]:
            continue
        print(f"{'vs SDK: ' + title:40} {'streams':>7} {'genx µs/event':>14} {'SDK µs/event':>13} {'ratio':>7}")
        for k, v in sorted(res[key].items(), key=lambda kv: (kv[0].strip().startswith("anthropic"), kv[0].startswith(" "), kv[0])):
            print(f"{k:40} {v['streams']:>7.0f} {v['genx_us_per_event']:>14.2f} {v['sdk_us_per_event']:>13.2f} {v['ratio']:>7.3f}")
        print()
    if res["missing"]:
        print(f"SDKs not installed ({', '.join(res['missing'])}): run with the bench venv (.venv-bench) to compare.")
    if args.json:
        out = {
            "us_per_event": {r.adapter: round(statistics.median(r.parse), 3) for r in rows},
            "us_per_event_p95": {r.adapter: round(pct(r.parse, 0.95), 3) for r in rows},
            "added_latency_us": {
                r.adapter: {"median": round(statistics.median(r.latency), 3), "p95": round(pct(r.latency, 0.95), 3)} for r in rows
            },
            "e2e_us_per_event": {r.adapter: round(statistics.median(r.e2e), 3) for r in rows},
            "ratio_vs_sdk": {k: round(v["ratio"], 4) for k, v in res["parse"].items() if not k.startswith(" ")},
            "sdk_us_per_event": {k: round(v["sdk_us_per_event"], 3) for k, v in res["parse"].items() if not k.startswith(" ")},
            "ratio_vs_sdk_e2e": {k: round(v["ratio"], 4) for k, v in res["e2e"].items() if not k.startswith(" ")},
            "ratio_vs_sdk_by_adapter": {k.strip(): round(v["ratio"], 4) for k, v in res["parse"].items() if k.startswith(" ")},
            "sdk_missing": res["missing"],
        }
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
