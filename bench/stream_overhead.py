"""Engine overhead: genx streams vs Pipecat vs a plain asyncio.Queue chain.

Workload: 320-byte audio chunks (audio/L16 16 kHz mono, 10 ms each) through a
chain of N pass-through stages (default 10). Measured, in one run and
interleaved per repetition so machine load hits every variant alike:

* throughput: the source queues every chunk at once ("as fast as it can");
  chunks/s = chunks / (first push → last chunk out of the last stage);
* latency: one chunk in flight; per-chunk time from push to the consumer
  holding it, median over many rounds; the *per-stage* cost is the marginal
  ``(median(N stages) - median(1 stage)) / (N - 1)``, which cancels the fixed
  cost of waking the consumer.

Variants:

* ``genx lazy``: ``StreamBuilder`` source + N ``map_stream`` stages (identity
  function): each ``next()`` awaits the upstream ``next()``, no task per stage;
* ``genx task/stage``: N stages each a task pulling its upstream and pushing
  into its own ``StreamBuilder`` (what a transformer with its own loop costs);
* ``pipecat``: ``PipelineWorker`` (``PipelineTask`` is its deprecated alias)
  with RTVI, turn tracking, idle timeout, metrics, heartbeats and tracing off;
  N ``FrameProcessor`` s that ``push_frame`` each ``OutputAudioRawFrame`` (a
  DataFrame: input task + process task per processor); the Nth one also
  records arrivals. Needs ``pip install parley[bench]``;
* ``asyncio.Queue floor``: N tasks, each ``await get()`` → ``put_nowait()``.

Usage: ``python -m bench.stream_overhead [--quick] [--json] [--stages N] [--reps R]``
(run from the venv that has pipecat for the side-by-side numbers).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from genx.chunk import MessageChunk
from genx.combinators import map_stream
from genx.errors import Done
from genx.stream import Stream, StreamBuilder

MIME = "audio/L16; rate=16000; channels=1"
CHUNK_BYTES = 320  # 10 ms of 16 kHz 16-bit mono

perf_ns = time.perf_counter_ns


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))
    return s[k]


def make_chunks(n: int) -> list[MessageChunk]:
    payload = bytes(CHUNK_BYTES)
    return [MessageChunk.blob(MIME, payload, stream_id="mic") for _ in range(n)]


def _identity(c: MessageChunk) -> MessageChunk:
    return c


# -- genx ----------------------------------------------------------------------
def genx_lazy_chain(src: Stream, stages: int) -> tuple[Stream, list[asyncio.Task[None]]]:
    s = src
    for _ in range(stages):
        s = map_stream(s, _identity)
    return s, []


async def _task_stage(up: Stream, b: StreamBuilder) -> None:
    try:
        while True:
            b.push(await up.next())
    except Done:
        b.done()
    except Exception as e:
        b.abort(e)


def genx_task_chain(src: Stream, stages: int) -> tuple[Stream, list[asyncio.Task[None]]]:
    s = src
    tasks = []
    for _ in range(stages):
        b = StreamBuilder()
        tasks.append(asyncio.get_running_loop().create_task(_task_stage(s, b)))
        s = b.stream
    return s, tasks


Chain = Callable[[Stream, int], tuple[Stream, list[asyncio.Task[None]]]]


async def genx_throughput(chain: Chain, stages: int, n: int) -> float:
    chunks = make_chunks(n)
    b = StreamBuilder()
    out, tasks = chain(b.stream, stages)
    got = 0
    t0 = perf_ns()
    b.push_many(chunks)
    b.done()
    try:
        while True:
            await out.next()
            got += 1
    except Done:
        pass
    t1 = perf_ns()
    await asyncio.gather(*tasks)
    assert got == n, (got, n)
    return n / ((t1 - t0) / 1e9)


async def genx_latency(chain: Chain, stages: int, rounds: int, warmup: int) -> list[float]:
    loop = asyncio.get_running_loop()
    b = StreamBuilder()
    out, tasks = chain(b.stream, stages)
    chunks = make_chunks(rounds + warmup)
    slot: list[asyncio.Future[int]] = []

    async def consumer() -> None:
        try:
            while True:
                await out.next()
                slot[0].set_result(perf_ns())
        except Done:
            pass

    ct = loop.create_task(consumer())
    await asyncio.sleep(0)
    samples: list[float] = []
    for i, c in enumerate(chunks):
        fut: asyncio.Future[int] = loop.create_future()
        slot[:] = [fut]
        t0 = perf_ns()
        b.push(c)
        t1 = await fut
        if i >= warmup:
            samples.append((t1 - t0) / 1e3)
    b.done()
    await asyncio.gather(ct, *tasks)
    return samples


# -- asyncio.Queue floor -----------------------------------------------------------
async def _queue_stage(qin: asyncio.Queue[Any], qout: asyncio.Queue[Any]) -> None:
    while True:
        item = await qin.get()
        qout.put_nowait(item)
        if item is None:
            return


def queue_chain(stages: int) -> tuple[asyncio.Queue[Any], asyncio.Queue[Any], list[asyncio.Task[None]]]:
    loop = asyncio.get_running_loop()
    first: asyncio.Queue[Any] = asyncio.Queue()
    q = first
    tasks = []
    for _ in range(stages):
        nq: asyncio.Queue[Any] = asyncio.Queue()
        tasks.append(loop.create_task(_queue_stage(q, nq)))
        q = nq
    return first, q, tasks


async def queue_throughput(stages: int, n: int) -> float:
    chunks = make_chunks(n)
    first, last, tasks = queue_chain(stages)
    t0 = perf_ns()
    for c in chunks:
        first.put_nowait(c)
    first.put_nowait(None)
    got = 0
    while (await last.get()) is not None:
        got += 1
    t1 = perf_ns()
    await asyncio.gather(*tasks)
    assert got == n
    return n / ((t1 - t0) / 1e9)


async def queue_latency(stages: int, rounds: int, warmup: int) -> list[float]:
    first, last, tasks = queue_chain(stages)
    chunks = make_chunks(rounds + warmup)
    samples: list[float] = []
    for i, c in enumerate(chunks):
        t0 = perf_ns()
        first.put_nowait(c)
        await last.get()
        t1 = perf_ns()
        if i >= warmup:
            samples.append((t1 - t0) / 1e3)
    first.put_nowait(None)
    await last.get()
    await asyncio.gather(*tasks)
    return samples


# -- pipecat -----------------------------------------------------------------------
def pipecat_available() -> bool:
    try:
        from loguru import logger  # type: ignore[import-not-found,unused-ignore]

        logger.remove()  # pipecat logs its banner and every lifecycle step to stderr by default
        import pipecat  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class _Probe:
    """Arrival bookkeeping shared by the last pipecat processor and the driver."""

    expect: int = 0
    seen: int = 0
    fut: asyncio.Future[int] | None = None
    per_frame: bool = False


def _pipecat_classes() -> tuple[Any, ...]:
    from pipecat.frames.frames import OutputAudioRawFrame  # type: ignore[import-not-found,unused-ignore]
    from pipecat.pipeline.pipeline import Pipeline  # type: ignore[import-not-found,unused-ignore]
    from pipecat.pipeline.worker import PipelineParams, PipelineWorker  # type: ignore[import-not-found,unused-ignore]
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor  # type: ignore[import-not-found,unused-ignore]
    from pipecat.workers.runner import WorkerRunner  # type: ignore[import-not-found,unused-ignore]

    class PassThrough(FrameProcessor):  # type: ignore[misc]
        async def process_frame(self, frame: Any, direction: FrameDirection) -> None:
            await super().process_frame(frame, direction)
            await self.push_frame(frame, direction)

    class ProbePassThrough(FrameProcessor):  # type: ignore[misc]
        """The Nth pass-through processor; it also records when audio arrives."""

        def __init__(self, probe: _Probe) -> None:
            super().__init__()
            self.probe = probe

        async def process_frame(self, frame: Any, direction: FrameDirection) -> None:
            await super().process_frame(frame, direction)
            if isinstance(frame, OutputAudioRawFrame):
                p = self.probe
                p.seen += 1
                if (p.per_frame or p.seen == p.expect) and p.fut is not None and not p.fut.done():
                    p.fut.set_result(perf_ns())
            await self.push_frame(frame, direction)

    return OutputAudioRawFrame, Pipeline, PipelineParams, PipelineWorker, WorkerRunner, PassThrough, ProbePassThrough


class PipecatRig:
    """One running pipecat pipeline of ``stages`` pass-through processors."""

    def __init__(self, stages: int) -> None:
        self.stages = stages
        self.probe = _Probe()
        (self.Frame, Pipeline, PipelineParams, PipelineWorker, WorkerRunner, PassThrough, ProbePassThrough) = _pipecat_classes()
        procs = [PassThrough() for _ in range(stages - 1)] + [ProbePassThrough(self.probe)]
        self.worker = PipelineWorker(
            Pipeline(procs),
            params=PipelineParams(enable_metrics=False, enable_usage_metrics=False, enable_heartbeats=False),
            enable_rtvi=False,
            enable_turn_tracking=False,
            enable_tracing=False,
            idle_timeout_secs=None,
            check_dangling_tasks=False,
        )
        self.runner = WorkerRunner(handle_sigint=False, check_dangling_tasks=False)
        self.run_task: asyncio.Task[None] | None = None

    def frames(self, n: int) -> list[Any]:
        payload = bytes(CHUNK_BYTES)
        return [self.Frame(audio=payload, sample_rate=16000, num_channels=1) for _ in range(n)]

    async def __aenter__(self) -> PipecatRig:
        started = asyncio.Event()

        async def _on_started(_w: Any, _f: Any) -> None:
            started.set()

        self.worker.event_handler("on_pipeline_started")(_on_started)
        await self.runner.add_workers(self.worker)
        self.run_task = asyncio.get_running_loop().create_task(self.runner.run())
        await asyncio.wait_for(started.wait(), 30)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.worker.cancel()
        if self.run_task is not None:
            await asyncio.wait_for(self.run_task, 30)


async def pipecat_throughput(stages: int, n: int) -> float:
    async with PipecatRig(stages) as rig:
        frames = rig.frames(n)
        rig.probe.expect = n
        rig.probe.fut = asyncio.get_running_loop().create_future()
        t0 = perf_ns()
        await rig.worker.queue_frames(frames)
        t1 = await asyncio.wait_for(rig.probe.fut, 120)
    return n / ((t1 - t0) / 1e9)


async def pipecat_latency(stages: int, rounds: int, warmup: int) -> list[float]:
    loop = asyncio.get_running_loop()
    async with PipecatRig(stages) as rig:
        rig.probe.per_frame = True
        samples: list[float] = []
        for i, f in enumerate(rig.frames(rounds + warmup)):
            rig.probe.fut = loop.create_future()
            t0 = perf_ns()
            await rig.worker.queue_frame(f)
            t1 = await asyncio.wait_for(rig.probe.fut, 30)
            if i >= warmup:
                samples.append((t1 - t0) / 1e3)
    return samples


# -- driver ------------------------------------------------------------------------
@dataclass
class Variant:
    name: str
    throughput: Callable[[int, int], Awaitable[float]]
    latency: Callable[[int, int, int], Awaitable[list[float]]]
    rates: list[float] = field(default_factory=list)  # chunks/s per repetition
    per_stage: list[float] = field(default_factory=list)  # marginal µs/stage per repetition
    lat_n: list[float] = field(default_factory=list)  # pooled per-chunk latency samples with N stages (µs)
    lat_1: list[float] = field(default_factory=list)


def variants(with_pipecat: bool) -> list[Variant]:
    out = [
        Variant(
            "genx lazy (map_stream)",
            lambda s, n: genx_throughput(genx_lazy_chain, s, n),
            lambda s, r, w: genx_latency(genx_lazy_chain, s, r, w),
        ),
        Variant(
            "genx task/stage",
            lambda s, n: genx_throughput(genx_task_chain, s, n),
            lambda s, r, w: genx_latency(genx_task_chain, s, r, w),
        ),
    ]
    if with_pipecat:
        out.append(Variant("pipecat", pipecat_throughput, pipecat_latency))
    out.append(Variant("asyncio.Queue floor", queue_throughput, queue_latency))
    return out


async def run(stages: int, reps: int, n: int, rounds: int, warmup: int, with_pipecat: bool, log: Callable[[str], None]) -> list[Variant]:
    vs = variants(with_pipecat)
    for rep in range(reps):
        for v in vs:
            gc.collect()
            v.rates.append(await v.throughput(stages, n))
            gc.collect()
            l1 = await v.latency(1, rounds, warmup)
            gc.collect()
            ln = await v.latency(stages, rounds, warmup)
            v.lat_1 += l1
            v.lat_n += ln
            v.per_stage.append((statistics.median(ln) - statistics.median(l1)) / max(1, stages - 1))
        log(f"  rep {rep + 1}/{reps}: " + ", ".join(f"{v.name} {v.rates[-1]:,.0f}/s {v.per_stage[-1]:.2f}µs" for v in vs))
    return vs


def table(vs: list[Variant], stages: int) -> str:
    head = (
        f"{'variant':<24} {'chunks/s med':>13} {'p95-low':>10} {'µs/stage med':>13} {'p95':>7} "
        f"{f'{stages}-stage µs med':>17} {'p95':>8} {'1-stage µs med':>15}"
    )
    lines = [head, "-" * len(head)]
    for v in vs:
        lines.append(
            f"{v.name:<24} {statistics.median(v.rates):>13,.0f} {percentile(v.rates, 5):>10,.0f} "
            f"{statistics.median(v.per_stage):>13.2f} {percentile(v.per_stage, 95):>7.2f} "
            f"{statistics.median(v.lat_n):>17.1f} {percentile(v.lat_n, 95):>8.1f} {statistics.median(v.lat_1):>15.1f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="short run (fewer chunks and rounds, 5 repetitions)")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    ap.add_argument("--stages", type=int, default=10)
    ap.add_argument("--reps", type=int, default=None, help="repetitions (≥5; default 5 quick, 7 full)")
    ap.add_argument("--no-pipecat", action="store_true", help="skip pipecat even if installed")
    args = ap.parse_args(argv)
    if args.stages < 2:
        ap.error("--stages must be at least 2 (the per-stage cost is the marginal between 1 and N stages)")
    reps = max(5, args.reps or (5 if args.quick else 7))
    n, rounds, warmup = (3000, 300, 50) if args.quick else (20000, 2000, 200)
    with_pipecat = not args.no_pipecat and pipecat_available()

    def log(s: str) -> None:
        print(s, file=sys.stderr if args.json else sys.stdout, flush=True)

    print(
        f"stream overhead: {args.stages} pass-through stages, {CHUNK_BYTES}-byte {MIME} chunks (10 ms); "
        f"throughput over {n:,} chunks, latency over {rounds:,} rounds (+{warmup} warm-up), {reps} repetitions"
    )
    if not with_pipecat:
        print("pipecat: not installed (pip install parley[bench])" if not args.no_pipecat else "pipecat: skipped (--no-pipecat)")
    vs = asyncio.run(run(args.stages, reps, n, rounds, warmup, with_pipecat, log))
    print(table(vs, args.stages))
    by = {v.name: v for v in vs}
    lazy, task, floor = by["genx lazy (map_stream)"], by["genx task/stage"], by["asyncio.Queue floor"]
    pc = by.get("pipecat")
    med = statistics.median
    result: dict[str, Any] = {
        "stages": args.stages,
        "chunk_bytes": CHUNK_BYTES,
        "repetitions": reps,
        "genx_chunks_per_s": round(med(lazy.rates)),
        "genx_us_per_stage": round(med(lazy.per_stage), 3),
        "genx_task_chunks_per_s": round(med(task.rates)),
        "genx_task_us_per_stage": round(med(task.per_stage), 3),
        "floor_chunks_per_s": round(med(floor.rates)),
        "floor_us_per_stage": round(med(floor.per_stage), 3),
        "pipecat_frames_per_s": round(med(pc.rates)) if pc else None,
        "pipecat_us_per_stage": round(med(pc.per_stage), 3) if pc else None,
        "ratio": round(med(lazy.rates) / med(pc.rates), 2) if pc else None,
        "task_ratio": round(med(task.rates) / med(pc.rates), 2) if pc else None,
        "latency_ratio": round(med(pc.per_stage) / med(lazy.per_stage), 1) if pc and med(lazy.per_stage) > 0 else None,
    }
    if pc:
        print(
            f"ratios vs pipecat: genx lazy throughput ×{result['ratio']}, genx task/stage throughput ×{result['task_ratio']}; "
            f"per-stage latency pipecat {result['pipecat_us_per_stage']} µs vs genx lazy {result['genx_us_per_stage']} µs "
            f"/ task {result['genx_task_us_per_stage']} µs"
        )
    lazy_x, task_x = med(lazy.rates) / med(floor.rates), med(task.rates) / med(floor.rates)
    print(f"vs asyncio.Queue floor: genx lazy throughput ×{lazy_x:.2f}, task/stage ×{task_x:.2f}")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
