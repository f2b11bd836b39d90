"""First-token latency and decoding speed of the offline models, on the answer-quality bench's questions.

    python -m bench.model_latency [--models smollm2,gemma3-270m] [--all] [--json]

Each model (a configured generator name, ``smollm2`` short for ``offline/smollm2``;
an optional model of :mod:`app.model_catalogue` is added when installed) answers
the ``--quick`` questions of :mod:`bench.answer_quality_data` (``--all``: every
question) straight from the in-process llama.cpp generator, without tools or
guards, on the context it sees in the voice loop: its system prompt and the
small-model context policy (few-shot examples), greedy, 64 tokens at most. The
examples stay in llama.cpp's prompt cache from one question to the next, as the
voice loop's prefill keeps them, so the first token costs the question's tokens.
Reported: load time, first token p50 / p95 (the first question, with the cold
cache, is left out and shown on its own), decode tokens/s p50 after the first token.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import answer_quality_data as data
from bench.answer_scores import percentile
from genx.assistant.context_policy import apply_policy, policy_for
from genx.chunk import Text
from genx.errors import State
from genx.generators.llamacpp import LlamaCppGenerator, from_config
from genx.model import ModelContextBuilder, ModelParams


async def one(gen: LlamaCppGenerator, question: str) -> tuple[float, float, int, str]:
    """First token ms, decode tokens/s, tokens, the answer."""
    ctx = ModelContextBuilder().user(question).params(ModelParams(max_tokens=64, temperature=0.0)).build()
    ctx = apply_policy(ctx, policy_for(gen))
    t0 = time.perf_counter()
    stream = await gen.generate_stream("bench/latency", ctx)
    first = last = 0.0
    parts: list[str] = []
    try:
        while True:
            c = await stream.next()
            if isinstance(c.part, Text) and c.part.text:
                last = time.perf_counter()
                first = first or last
                parts.append(c.part.text)
    except State:
        pass
    finally:
        await stream.close()
    n = stream.usage.generated_tokens if stream.usage is not None else len(parts)
    rate = (n - 1) / (last - first) if n > 1 and last > first else 0.0
    return ((first or time.perf_counter()) - t0) * 1000, rate, n, "".join(parts).strip()


async def measure(name: str, spec: Any, questions: list[str], verbose: bool) -> dict[str, Any]:
    gen = from_config(spec)
    t0 = time.perf_counter()
    await gen.warm()
    load_ms = (time.perf_counter() - t0) * 1000
    firsts: list[float] = []
    rates: list[float] = []
    cold = 0.0
    for i, q in enumerate(questions):
        first, rate, n, answer = await one(gen, q)
        if verbose:
            print(f"  [{name} {first:.0f} ms, {n} tok] {q} → {answer}", file=sys.stderr)
        if i == 0:
            cold = first
            continue
        firsts.append(first)
        if rate:
            rates.append(rate)
    return {
        "load_ms": round(load_ms),
        "cold_first_token_ms": round(cold, 1),
        "first_token_ms_p50": round(percentile(firsts, 0.5), 1),
        "first_token_ms_p95": round(percentile(firsts, 0.95), 1),
        "tokens_per_s_p50": round(percentile(rates, 0.5), 1),
        "questions": len(questions),
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    from app.model_catalogue import with_optional
    from app.settings import Settings, load_settings, with_generator_prompts

    settings = load_settings(args.config) if args.config else Settings()
    names = [m if "/" in m else f"offline/{m}" for m in args.models.split(",") if m]
    settings = with_generator_prompts(with_optional(settings, *names))
    step = 1 if args.all else max(1, len(data.QUESTIONS) // data.QUICK_QUESTIONS)
    questions = [q for q, _kind, _kw in data.QUESTIONS[::step]]
    out: dict[str, Any] = {}
    for name in names:
        spec = settings.generator(name)
        if spec is None or spec.effective_kind != "llamacpp":
            raise SystemExit(f"{name!r} is not a configured in-process llama.cpp generator")
        out[name.removeprefix("offline/")] = await measure(name, spec, questions, args.verbose)
        print(f"{name}: {out[name.removeprefix('offline/')]}", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--models", default="smollm2,gemma3-270m", help="comma-separated generator names (default: %(default)s)")
    p.add_argument("--all", action="store_true", help="every question, not the quick fifth")
    p.add_argument("--config", help="settings file (default: the built-in defaults)")
    p.add_argument("--verbose", action="store_true", help="print every answer (stderr)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    runs = asyncio.run(main_async(args))
    cols = ("load_ms", "cold_first_token_ms", "first_token_ms_p50", "first_token_ms_p95", "tokens_per_s_p50")
    width = max(len(k) for k in runs) + 2
    print("model".ljust(width) + "".join(f"{c:>22}" for c in cols))
    for k, v in runs.items():
        print(k.ljust(width) + "".join(f"{v[c]:>22}" for c in cols))
    if args.json:
        print(json.dumps(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
