"""What glibc malloc's mmap threshold costs the offline models: decode speed and resident size, side by side.

    python -m bench.memory_policy [--thresholds 0,256] [--rounds 3] [--reps 6] [--json]

Each variant is one value of ``app.memory_policy.apply_at_start(mmap_threshold_kb=…)`` (0: glibc's dynamic
threshold). Every round starts one fresh interpreter per variant, in alternating order (a change in machine load
hits all variants alike), which applies the policy as ``python -m app`` does, loads the app's default models
(the configured ASR, SmolLM2 through the app's generator spec, the Piper voice) and measures:

* ``asr_final_ms``: one final decode (the app's final options: beam search, prompts) of a 2 s and a 5 s clip of
  Piper speech;
* ``llm_first_token_ms`` and ``llm_tokens_per_s``: the bench.model_latency questions, few-shot context kept in
  llama.cpp's prompt cache as in the voice loop;
* ``tts_ms_per_s``: Piper synthesis time per second of audio, sentence by sentence;
* ``rss_mb``: the process's resident size after all of it.

Printed: one row per variant, median and p95 over all rounds. ``--json``: the last line is one object,
``{"variants": {"<kb>": {"asr_final_ms_p50": …, …}}, "rounds": N, "load_avg_1m": …}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.answer_scores import percentile

METRICS = ("asr_final_ms", "llm_first_token_ms", "llm_tokens_per_s", "tts_ms_per_s", "rss_mb")
SENTENCES = (
    "Please turn on the lights in the kitchen.",
    "Can you remind me to call my mother tomorrow morning and then tell me what the weather will be like?",
    "The train leaves from platform seven at noon.",
    "We walked along the beach until the sun went down and the sky turned orange.",
)


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def child(kb: int, reps: int) -> dict[str, list[float]]:
    """One variant in this (fresh) process: the policy first, then the models, then the measurements."""
    from app import memory_policy

    memory_policy.apply_at_start(mmap_threshold_kb=kb)
    import numpy as np

    from app.settings import Settings, with_generator_prompts
    from bench import answer_quality_data as qdata
    from bench.model_latency import one
    from genx.generators.llamacpp import from_config as llm_from_config
    from genx.local.asr import from_config as asr_from_config
    from genx.local.piper_tts import PiperSynthesizer
    from genx.transformers.audiostream.pcm import resample

    settings = with_generator_prompts(Settings())
    asr_spec = next(a for a in settings.asr if a.name == settings.loop.asr)
    decoder: Any = asr_from_config(asr_spec).decoder
    gen_spec = settings.generator(settings.loop.generator)
    if gen_spec is None:
        raise SystemExit(f"generator {settings.loop.generator!r} is not configured")
    gen = llm_from_config(gen_spec)
    synth = PiperSynthesizer()
    voice: Any = synth.voice.get()
    await gen.warm()

    out: dict[str, list[float]] = {m: [] for m in METRICS}
    speech = b"".join(resample(b"".join(c.audio_int16_bytes for c in voice.synthesize(s)), synth.sample_rate, 16000) for s in SENTENCES)
    pcm = np.frombuffer(speech, dtype="<i2").astype(np.float32) / 32768
    clips = [pcm[: 16000 * 2], pcm[16000 : 16000 * 6]]
    decoder.decode(clips[0], True)  # load and first-call costs out of the way
    for _ in range(reps):
        for clip in clips:
            t0 = time.perf_counter()
            decoder.decode(clip, True)
            out["asr_final_ms"].append((time.perf_counter() - t0) * 1000)

    questions = [q for q, _kind, _kw in qdata.QUESTIONS[:: max(1, len(qdata.QUESTIONS) // (reps + 1))]][: reps + 1]
    for i, q in enumerate(questions):
        first, rate, _n, _answer = await one(gen, q)
        if i == 0:
            continue  # the cold prompt cache
        out["llm_first_token_ms"].append(first)
        if rate:
            out["llm_tokens_per_s"].append(rate)

    await synth.warm()
    for i in range(reps):
        t0 = time.perf_counter()
        n = 0
        async for block in synth.synthesize(SENTENCES[i % len(SENTENCES)]):
            n += len(block)
        audio_s = n / 2 / synth.sample_rate
        out["tts_ms_per_s"].append((time.perf_counter() - t0) * 1000 / audio_s)
    out["rss_mb"].append(rss_mb())
    return out


def run_variant(kb: int, reps: int) -> dict[str, list[float]]:
    cmd = [sys.executable, "-m", "bench.memory_policy", "--child", str(kb), "--reps", str(reps)]
    done = subprocess.run(cmd, cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"variant {kb} KiB failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    result: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--thresholds", default="0,256", help="mmap thresholds in KiB, 0 = glibc's dynamic one (default: %(default)s)")
    p.add_argument("--rounds", type=int, default=3, help="fresh processes per variant (default: %(default)s)")
    p.add_argument("--reps", type=int, default=6, help="measurements of each kind per process (default: %(default)s)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is not None:
        print(json.dumps(asyncio.run(child(args.child, args.reps))))
        return 0
    kbs = [int(v) for v in args.thresholds.split(",") if v.strip()]
    runs: dict[int, dict[str, list[float]]] = {kb: {m: [] for m in METRICS} for kb in kbs}
    for r in range(args.rounds):
        order = kbs if r % 2 == 0 else kbs[::-1]
        for kb in order:
            print(f"round {r + 1}/{args.rounds}: mmap threshold {kb or 'dynamic'} …", file=sys.stderr, flush=True)
            for m, vs in run_variant(kb, args.reps).items():
                runs[kb][m] += vs
    summary: dict[str, dict[str, float]] = {}
    for kb in kbs:
        row: dict[str, float] = {}
        for m in METRICS:
            row[f"{m}_p50"] = round(percentile(runs[kb][m], 0.5), 1)
            row[f"{m}_p95"] = round(percentile(runs[kb][m], 0.95), 1)
        summary[str(kb)] = row
    cols = [f"{m}_{q}" for m in METRICS for q in ("p50", "p95")]
    print("mmap threshold KiB".ljust(20) + "".join(f"{c:>24}" for c in cols))
    for kb, row in summary.items():
        print((kb if kb != "0" else "0 (dynamic)").ljust(20) + "".join(f"{row[c]:>24}" for c in cols))
    if args.json:
        print(json.dumps({"variants": summary, "rounds": args.rounds, "load_avg_1m": round(os.getloadavg()[0], 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
