"""Soak: many spoken turns through the virtual devices; does anything grow, drift or get lost?

Drives the real loop (``app.headless.Session`` on the private PulseAudio server, the offline models) with
espeak-ng questions, every ``--bargein-every``-th turn a long answer cut by a spoken "stop" (the turns of
``bench/voice_latency.py``). After every turn it records the process's RSS, open file descriptors, threads
and asyncio tasks, and the turn's voice-to-voice latency (speech end → first answer sample, on the
recordings). Reported: growth from the end of the warm-up (``--warmup`` counted turns, default 2: the models'
first allocations, llama.cpp's and onnxruntime's buffers for the longest inputs seen so far) to the last turn
(``rss_growth_mb``, ``fd_growth``, ``thread_growth``, ``task_growth``: the rise of each one's floor, the lowest
of the last few samples, see :func:`floor_growth`; ``rss_growth_last_sample_mb`` to the last sample itself),
the raw RSS growth from the first turn to the last (``rss_growth_raw_mb``) and over the second half
of the run (``rss_growth_second_half_mb``: the steady state, after the first long answers sized the buffers),
latency median / p95 and drift (median of the last third minus the first third),
``lost_turns`` (a turn the loop answered that is not in the conversation store at the end) and ``errors``
(turns the bench noted: no answer, none heard within 15 s, no barge-in reported; plus loop errors; split into
``loop_errors``, ``unanswered``: no answer at all, and the ``notes``).

Where RSS goes (``bench/soak_probe.py``): per turn the anonymous RSS and glibc malloc's bytes in use and free
(``malloc_free_growth_mb``: held free by malloc, resident or already trimmed), the Python objects by type that
grew after the warm-up, and with ``--trace`` tracemalloc's live allocations since the warm-up by source line.
The bench's own state does not grow with the turns: the recordings keep the last two minutes, the events are
counted and dropped after each turn. ``--no-trim`` runs without the app's memory policy (``app.memory_policy``),
``--mkl-cache`` with oneMKL's buffer cache left on, ``--mmap-threshold-kb 256`` with a fixed mmap threshold, to
compare.

Goals at 200 turns (about an hour): RSS growth ≤ 50 MB, no fd / thread / task growth, 0 lost turns.

Usage: ``python bench/soak.py [--turns 20] [--bargein-every 4] [--warmup 2] [--trace] [--no-trim] [--arenas 4]
[--mmap-threshold-kb 256] [--mkl-cache] [--max-minutes M] [--json]``
(``--max-minutes``: end early, summarised over the turns done, ``turns`` says how many).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import concurrent.futures
import gc
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pulse import PulseServer, pulse_server  # noqa: E402

from app import memory_policy  # noqa: E402
from bench.live import prepare  # noqa: E402
from bench.soak_probe import HeapTrace, native, top_growth, type_counts  # noqa: E402
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
    native: dict[str, float] = field(default_factory=dict)
    traced_mb: float = 0.0


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


def floor_growth(xs: list[int]) -> int:
    """How much the floor of a count rose: the lowest of the last few samples minus the lowest of the first few.
    A leak raises every later sample; a task or thread that happens to be running at one sample does not."""
    k = max(1, min(3, len(xs) // 4))
    return min(xs[-k:]) - min(xs[:k])


def thread_names() -> collections.Counter[str]:
    """The running threads by name, digits dropped ("asyncio_3" and "asyncio_4" are one kind)."""
    return collections.Counter("".join(ch for ch in t.name if not ch.isdigit()) for t in threading.enumerate())


async def quiet_counts(readings: int = 5, every_s: float = 0.1) -> tuple[int, int, int]:
    """Open fds, threads and asyncio tasks, each the lowest of a few readings over half a second (a task or
    thread that only passes by, a worker ending, is not counted)."""
    fds, threads, tasks = [], [], []
    for i in range(readings):
        if i:
            await asyncio.sleep(every_s)
        fds.append(open_fds())
        threads.append(threading.active_count())
        tasks.append(len(asyncio.all_tasks()))
    return min(fds), min(threads), min(tasks)


def fill_default_executor(loop: asyncio.AbstractEventLoop) -> int:
    """Give ``loop`` a default executor of Python's own size with every worker already started; its size.

    ``asyncio.to_thread`` starts the default pool's workers lazily, one more each time more calls overlap than ever
    before (a barge-in turn overlaps decodes, the turn check and synthesis), and a worker then lives as long as the
    pool: a pool reaching its bound at turn 40 would read as a leaked thread. Started up front, any later thread is
    one the loop made."""
    size = min(32, (os.cpu_count() or 1) + 4)  # ThreadPoolExecutor's default on this Python
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=size, thread_name_prefix="asyncio")
    everyone = threading.Barrier(size)
    for f in [pool.submit(everyone.wait, 10.0) for _ in range(size)]:
        f.result()  # each wait returns only once all `size` workers are running at once
    loop.set_default_executor(pool)
    return size


KEEP_RECORDING_S = 120.0  # a turn reads back at most its own last minute


async def soak(args: argparse.Namespace, server: PulseServer | None = None) -> dict[str, Any]:
    """Run the soak (on ``server``, or on a private one); the summary, with the per-turn samples under ``samples``."""
    with tempfile.TemporaryDirectory(prefix="parley-soak-") as tmp:
        work = Path(tmp)
        if server is not None:
            return await _soak(args, server, work)
        with pulse_server(work / "pulse") as own:
            return await _soak(args, own, work)


async def _soak(args: argparse.Namespace, server: PulseServer, work: Path) -> dict[str, Any]:
    samples: list[Sample] = []
    trace = HeapTrace() if args.trace else None
    warm_types: collections.Counter[str] | None = None
    warm_threads: collections.Counter[str] = collections.Counter()
    done = loop_errors = 0
    error_notes: list[str] = []  # what each loop error said (the count alone does not tell a defect from a hiccup)
    ns = argparse.Namespace(eot_ms=500, turn_detection=args.turn_detection, no_aec=False, verbose=False)
    bench = Bench(server, ns, work / "run")
    fill_default_executor(asyncio.get_running_loop())
    trimmer = None if args.no_trim else bench.session.trimmer
    bench.session.trimmer = trimmer
    bench.start_recording(keep_s=KEEP_RECORDING_S)
    await bench.start_session()
    try:
        await asyncio.sleep(1.0)
        await bench.v2v_turn("Hello there, how are you?")  # warm-up: pages the models in (not counted)
        await bench.wait_quiet()
        limit_min = float(getattr(args, "max_minutes", 0.0) or 0.0)  # (callers that build their own Namespace)
        deadline = time.monotonic() + limit_min * 60.0 if limit_min else None
        for i in range(args.turns):
            if deadline is not None and time.monotonic() > deadline:
                print(f"--max-minutes {limit_min:g} reached after {i} turns: the summary covers those", file=sys.stderr)
                break
            every = args.bargein_every
            if every and i % every == every - 1:
                r = await bench.bargein_turn(LONG_QUESTIONS[i % len(LONG_QUESTIONS)], INTERRUPTIONS[i % len(INTERRUPTIONS)])
            else:
                r = await bench.v2v_turn(QUESTIONS[i % len(QUESTIONS)])
            await bench.wait_quiet()
            done += len(bench.of(AssistantDone))  # every answer the loop finished records one turn
            errs = bench.of(LoopError)
            loop_errors += len(errs)
            error_notes += [f"turn {i + 1}: loop error ({e.kind.value}): {e.message}" for e in errs]
            bench.events.clear()  # the next turn marks from here (the bench's memory does not grow with the turns)
            gc.collect()
            if trimmer is not None:
                await trimmer.settled()  # the trim this turn's end started (a sample taken after it)
            s = Sample(i + 1, r.kind, rss_mb(), *await quiet_counts(), r.v2v_ms, r.note)
            s.native = native()
            s.traced_mb = trace.traced_mb() if trace is not None else 0.0
            samples.append(s)
            if i + 1 == args.warmup:
                warm_types = type_counts()
                warm_threads = thread_names()
                if trace is not None:
                    trace.start()
            if not args.json or args.verbose:
                v = f"{s.v2v_ms:.0f} ms" if s.v2v_ms is not None else "-"
                nat = s.native
                print(
                    f"turn {s.turn:3d} {s.kind:8s} v2v {v:>8s} rss {s.rss_mb:7.1f} MB (anon {nat.get('anonymous', 0):6.1f} "
                    f"malloc used {nat.get('malloc_in_use', 0):6.1f} free {nat.get('malloc_free', 0):6.1f} "
                    f"mmapped {nat.get('malloc_mmapped', 0):6.1f} "
                    f"py {s.traced_mb:5.1f}) fds {s.fds:4d} threads {s.threads:3d} tasks {s.tasks:3d} {s.note}",
                    flush=True,
                )
        loop = bench.loop
        await loop.flush_store()
        store = bench.session.store
        stored = sum(len(store.load(cid)) for cid in _conversations(store))
        grown_types = top_growth(warm_types, type_counts()) if warm_types is not None else []
        new_threads = sorted((thread_names() - warm_threads).elements())
        heap = trace.report() if trace is not None else []
    finally:
        await bench.session.close()
        bench.stop_recording()
    return summarize(samples, args.warmup, done=done, stored=stored, loop_errors=loop_errors, error_notes=error_notes) | {
        "trim": not args.no_trim,
        "arenas": 0 if args.no_trim else getattr(args, "arenas", 0),
        "mmap_threshold_kb": getattr(args, "mmap_threshold_kb", 0),
        "grown_types": grown_types,
        "new_threads": new_threads,
        "heap_growth_by_line": heap,
        "samples": [asdict(s) for s in samples],
    }


def counts_as_error(note: str) -> bool:
    """A turn's note is an error unless the bench says it did not count the turn (a stop spoken into a pause)."""
    return bool(note) and not note.endswith("(not counted)")


def summarize(
    samples: list[Sample], warmup: int, *, done: int, stored: int, loop_errors: int, error_notes: Sequence[str] = ()
) -> dict[str, Any]:
    first, last = samples[0], samples[-1]
    warm = samples[min(warmup, len(samples)) - 1] if warmup > 0 else first
    after = [s for s in samples if s.turn >= warm.turn]
    mid = samples[(len(samples) - 1) // 2]  # the steady state: does the second half still grow?
    # the lowest RSS of the last few turns: an answer still winding down at its sample (a barge-in the loop missed)
    # holds its buffers for a moment and is not growth; a leak raises all of them
    settled = min(s.rss_mb for s in samples[-max(1, min(3, len(after) // 4)) :])
    v2v = [s.v2v_ms for s in samples if s.v2v_ms is not None]
    third = max(1, len(v2v) // 3)

    def grew(key: str) -> float:
        return round(last.native.get(key, 0.0) - warm.native.get(key, 0.0), 1)

    return {
        "turns": len(samples),
        "answered": done,
        "warmup_turns": warmup,
        "rss_start_mb": round(first.rss_mb, 1),
        "rss_growth_raw_mb": round(last.rss_mb - first.rss_mb, 1),
        "rss_growth_mb": round(settled - warm.rss_mb, 1),
        "rss_growth_per_turn_mb": round((settled - warm.rss_mb) / max(1, last.turn - warm.turn), 2),
        "rss_growth_second_half_mb": round(settled - mid.rss_mb, 1),
        "rss_growth_last_sample_mb": round(last.rss_mb - warm.rss_mb, 1),
        "anon_growth_mb": grew("anonymous"),
        "malloc_in_use_growth_mb": grew("malloc_in_use"),
        "malloc_free_growth_mb": grew("malloc_free"),
        "py_heap_growth_mb": round(last.traced_mb - warm.traced_mb, 1) if last.traced_mb else None,
        "fd_growth": floor_growth([s.fds for s in after]),
        "thread_growth": floor_growth([s.threads for s in after]),
        "task_growth": floor_growth([s.tasks for s in after]),
        "v2v_median_ms": round(statistics.median(v2v), 0) if v2v else None,
        "v2v_p95_ms": round(_p95(v2v), 0) if v2v else None,
        "v2v_drift_ms": round(statistics.median(v2v[-third:]) - statistics.median(v2v[:third]), 0) if len(v2v) >= 3 else None,
        "lost_turns": max(0, done - stored),
        "errors": sum(1 for s in samples if counts_as_error(s.note)) + loop_errors,
        "loop_errors": loop_errors,
        "unanswered": sum(1 for s in samples if s.note.startswith("no answer") and not s.note.startswith("no answer heard")),
        "notes": [f"turn {s.turn}: {s.note}" for s in samples if s.note] + list(error_notes),
    }


def _conversations(store: Any) -> list[str]:
    root = Path(store.root)
    return [p.stem for p in root.glob("*.jsonl")] if root.is_dir() else []


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--turns", type=int, default=20)
    p.add_argument("--bargein-every", type=int, default=4, help="every N-th turn is a long answer cut by a spoken stop (0: none)")
    p.add_argument("--turn-detection", choices=["smart-turn", "silence"], default="smart-turn")
    p.add_argument("--warmup", type=int, default=2, help="growth is measured from the end of this counted turn (models' first allocations)")
    p.add_argument("--trace", action="store_true", help="tracemalloc after the warm-up: the Python heap's growth by source line")
    p.add_argument("--no-trim", action="store_true", help="without the app's memory policy (malloc arenas, trim after each turn)")
    p.add_argument("--arenas", type=int, default=memory_policy.ARENA_MAX, help="malloc arenas (the app's cap; 0: glibc's default)")
    p.add_argument("--mmap-threshold-kb", type=int, default=0, help="a fixed malloc mmap threshold, KiB (0: glibc's dynamic one)")
    p.add_argument("--mkl-cache", action="store_true", help="keep oneMKL's buffer cache on (the app turns it off)")
    p.add_argument("--max-minutes", type=float, default=0.0, help="stop after the turn that ends past this many minutes (0: none)")
    p.add_argument("--json", action="store_true", help="print one JSON line at the end")
    p.add_argument("--verbose", action="store_true", help="with --json, still print the per-turn lines")
    args = p.parse_args(argv)
    if not prepare():
        return 2
    t0 = time.monotonic()
    if not args.no_trim:  # as the app does at start, before the models' threads exist
        memory_policy.apply_at_start(args.arenas, mkl_cache=args.mkl_cache, mmap_threshold_kb=args.mmap_threshold_kb)
    res = asyncio.run(soak(args))
    res["wall_s"] = round(time.monotonic() - t0, 1)
    res.pop("samples")
    for line in res.pop("heap_growth_by_line"):
        print("heap +", line)
    for name, n in res.pop("grown_types"):
        print(f"objects + {n:6d} {name}")
    if args.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:>24}  {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
