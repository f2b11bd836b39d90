"""Soak: many spoken turns through the virtual devices; does anything grow, drift or get lost?

Drives the real loop (``app.headless.Session`` on the private PulseAudio server, the offline models) with
espeak-ng questions, every ``--bargein-every``-th turn a long answer cut by a spoken "stop" (the turns of
``bench/voice_latency.py``). After every turn it records the process's RSS, open file descriptors, threads
and asyncio tasks, and the turn's voice-to-voice latency (speech end → first answer sample, on the
recordings). Reported: growth from the first turn to the last (``rss_growth_mb``, ``fd_growth``,
``thread_growth``, ``task_growth``), latency median / p95 and drift (median of the last third minus the first
third), ``lost_turns`` (a turn the loop answered that is not in the conversation store at the end) and
``errors`` (turns without an answer, loop errors).

Goals at 200 turns (about an hour): RSS growth ≤ 50 MB, no fd / thread / task growth, 0 lost turns.

Usage: ``python bench/soak.py [--turns 20] [--bargein-every 4] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pulse import pulse_server  # noqa: E402

from bench.live import prepare  # noqa: E402
from bench.voice_latency import INTERRUPTIONS, LONG_QUESTIONS, QUESTIONS, Bench  # noqa: E402
from genx.agentkit.events import AssistantDone, LoopError  # noqa: E402


@dataclass(slots=True)
class Sample:
    turn: int
    kind: str
    rss_mb: float
    fds: int
    threads: int
    tasks: int
    v2v_ms: float | None
    note: str


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.95 * (len(s) - 1) + 0.5))]


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    samples: list[Sample] = []
    with tempfile.TemporaryDirectory(prefix="parley-soak-") as tmp:
        work = Path(tmp)
        with pulse_server(work / "pulse") as server:
            ns = argparse.Namespace(eot_ms=500, turn_detection=args.turn_detection, no_aec=False, verbose=False)
            bench = Bench(server, ns, work / "run")
            bench.start_recording()
            await bench.start_session()
            try:
                await asyncio.sleep(1.0)
                await bench.v2v_turn("Hello there, how are you?")  # warm-up: pages the models in (not counted)
                await bench.wait_quiet()
                for i in range(args.turns):
                    every = args.bargein_every
                    if every and i % every == every - 1:
                        r = await bench.bargein_turn(LONG_QUESTIONS[i % len(LONG_QUESTIONS)], INTERRUPTIONS[i % len(INTERRUPTIONS)])
                    else:
                        r = await bench.v2v_turn(QUESTIONS[i % len(QUESTIONS)])
                    await bench.wait_quiet()
                    gc.collect()
                    s = Sample(i + 1, r.kind, rss_mb(), open_fds(), threading.active_count(), len(asyncio.all_tasks()), r.v2v_ms, r.note)
                    samples.append(s)
                    if not args.json or args.verbose:
                        v = f"{s.v2v_ms:.0f} ms" if s.v2v_ms is not None else "-"
                        print(
                            f"turn {s.turn:3d} {s.kind:8s} v2v {v:>8s} rss {s.rss_mb:7.1f} MB fds {s.fds:4d} "
                            f"threads {s.threads:3d} tasks {s.tasks:3d} {s.note}",
                            flush=True,
                        )
                loop = bench.loop
                await loop.flush_store()
                done = bench.of(AssistantDone)  # every answer the loop finished records one turn
                store = bench.session.store
                stored = sum(len(store.load(cid)) for cid in _conversations(store))
                loop_errors = len(bench.of(LoopError))
            finally:
                await bench.session.close()
                bench.stop_recording()
    lost = max(0, len(done) - stored)
    first, last = samples[0], samples[-1]
    v2v = [s.v2v_ms for s in samples if s.v2v_ms is not None]
    third = max(1, len(v2v) // 3)
    return {
        "turns": len(samples),
        "answered": len(done),
        "rss_start_mb": round(first.rss_mb, 1),
        "rss_growth_mb": round(last.rss_mb - first.rss_mb, 1),
        "fd_growth": last.fds - first.fds,
        "thread_growth": last.threads - first.threads,
        "task_growth": last.tasks - first.tasks,
        "v2v_median_ms": round(statistics.median(v2v), 0) if v2v else None,
        "v2v_p95_ms": round(_p95(v2v), 0) if v2v else None,
        "v2v_drift_ms": round(statistics.median(v2v[-third:]) - statistics.median(v2v[:third]), 0) if len(v2v) >= 3 else None,
        "lost_turns": lost,
        "errors": sum(1 for s in samples if s.note) + loop_errors,
    }


def _conversations(store: Any) -> list[str]:
    root = Path(store.root)
    return [p.stem for p in root.glob("*.jsonl")] if root.is_dir() else []


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--turns", type=int, default=20)
    p.add_argument("--bargein-every", type=int, default=4, help="every N-th turn is a long answer cut by a spoken stop (0: none)")
    p.add_argument("--turn-detection", choices=["smart-turn", "silence"], default="smart-turn")
    p.add_argument("--json", action="store_true", help="print one JSON line at the end")
    p.add_argument("--verbose", action="store_true", help="with --json, still print the per-turn lines")
    args = p.parse_args(argv)
    if not prepare():
        return 2
    t0 = time.monotonic()
    res = asyncio.run(soak(args))
    res["wall_s"] = round(time.monotonic() - t0, 1)
    if args.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:>16}  {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
