"""Memory bench: recall, update and false-memory rates, extraction cost per turn and recall latency.

Data: ``bench/memory_data.py`` (42 facts told then asked in other words, 12 contradicting updates,
12 questions never told, asked of two personas). Modes, side by side:

* ``rules``: the deterministic path alone (rules + keyword labels + FTS5): the offline default
  (``[memory] extract_with_model = false``), the row the ``--json`` line's top-level numbers are from;
* ``rules+model``: the rules plus the SmolLM2-135M extractor (segmentor +
  profiler through ``genx.generators.llamacpp``, constrained JSON decoding; model found by ``genx.local.models``);
* ``model``: the model extractor without the rules (what the small model contributes on its own).

Metrics: recall accuracy (the told value is in the recalled facts), update accuracy (the new value is
recalled and the old one is not), false-memory rate (a never-told question recalls any fact),
extraction cost per turn (wall ms, and process CPU ms, rules and model together), recall latency
(inside ``Memory.recall``) and answer-start latency (``Memory.start_answer`` as the voice loop calls it,
read-only, the worker-thread hop included: the time memory adds to an answer's start) p50 / p95.

Usage: ``python bench/memory.py [--modes rules,rules+model] [--limit N] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_data import FACTS, NEVER_TOLD, UPDATES

from genx.generators import Generator
from genx.memory import Memory, ModelExtractor, TurnInfo
from genx.memory.extract import MODEL_ATTRIBUTES
from genx.profilers.generator import GeneratorProfiler
from genx.segmentors.generator import GeneratorSegmentor
from genx.structured import GeneratorRef


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


class Run:
    def __init__(self, mode: str, generator: Generator | None, root: Path, timeout_s: float) -> None:
        self.mode = mode
        self.generator = generator
        self.root = root
        self.timeout_s = timeout_s
        self.n = 0
        self.turn_wall_ms: list[float] = []
        self.turn_cpu_ms: list[float] = []
        self.recall_ms: list[float] = []
        self.start_ms: list[float] = []  # Memory.start_answer as the voice loop calls it (wall, the thread hop included)
        self.model_failures = 0

    def memory(self) -> Memory:
        self.n += 1
        extractor = None
        if self.mode != "rules":
            assert self.generator is not None
            ref = GeneratorRef(self.generator, "offline/smollm2", timeout_s=self.timeout_s)
            extractor = ModelExtractor(GeneratorSegmentor(ref), GeneratorProfiler(ref, MODEL_ATTRIBUTES))
        return Memory(self.root / f"{self.mode}-{self.n}.sqlite3", extractor=extractor, rules=self.mode != "model")

    async def tell(self, mem: Memory, text: str, at: float, conversation: str) -> None:
        w0, c0 = time.perf_counter(), time.process_time()
        mem.after_turn(TurnInfo(text, f"t{at:g}", conversation, at))
        await mem.drain()
        self.turn_wall_ms.append((time.perf_counter() - w0) * 1000)
        self.turn_cpu_ms.append((time.process_time() - c0) * 1000)

    async def ask(self, mem: Memory, question: str) -> list[str]:
        t0 = time.perf_counter()
        ans = await mem.start_answer(question, read_only=True)  # what the loop's MemoryLink asks at an answer's start
        self.start_ms.append((time.perf_counter() - t0) * 1000)
        mem.answer_done()
        r = ans.recalled
        self.recall_ms.append(r.elapsed_ms)
        return [f.text.lower() for f in r.facts]

    async def close(self, mem: Memory) -> None:
        if mem.extractor is not None:
            self.model_failures += mem.extractor.stats.failures
        await mem.aclose()


async def run_mode(mode: str, generator: Generator | None, limit: int, timeout_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(mode, generator, Path(tmp), timeout_s)
        facts = FACTS[:limit] if limit else FACTS
        updates = UPDATES[: max(1, limit // 4)] if limit else UPDATES
        hits = 0
        false_memories = 0
        asked_never = 0
        for persona in sorted({p for p, *_ in facts}):
            mem = run.memory()
            mine = [f for f in facts if f[0] == persona]
            for i, (_, statement, _, _) in enumerate(mine):
                await run.tell(mem, statement, float(i + 1), f"conv-{persona}-{i}")
            for _, _, question, value in mine:
                hits += any(value.lower() in t for t in await run.ask(mem, question))
            if len(mine) > 1:
                for question in NEVER_TOLD:
                    asked_never += 1
                    false_memories += bool(await run.ask(mem, question))
            await run.close(mem)
        updated = 0
        for old, new, question, new_value, old_value in updates:
            mem = run.memory()
            await run.tell(mem, old, 1.0, "conv-old")
            await run.tell(mem, new, 2.0, "conv-new")
            texts = await run.ask(mem, question)
            updated += any(new_value.lower() in t for t in texts) and not any(old_value.lower() in t for t in texts)
            await run.close(mem)
    return {
        "mode": mode,
        "facts": len(facts),
        "updates": len(updates),
        "never_told": asked_never,
        "recall_accuracy": hits / len(facts),
        "update_accuracy": updated / len(updates),
        "false_memory_rate": false_memories / max(1, asked_never),
        "extraction_ms_per_turn": statistics.mean(run.turn_wall_ms),
        "extraction_cpu_ms_per_turn": statistics.mean(run.turn_cpu_ms),
        "recall_ms_p50": pct(run.recall_ms, 0.5),
        "recall_ms_p95": pct(run.recall_ms, 0.95),
        "answer_start_ms_p50": pct(run.start_ms, 0.5),
        "answer_start_ms_p95": pct(run.start_ms, 0.95),
        "model_failures": run.model_failures,
    }


def offline_generator() -> Generator:
    from genx.generators.llamacpp import LlamaCppGenerator, LlamaOptions

    return LlamaCppGenerator(LlamaOptions(n_ctx=2048))


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| mode | recall | updates | false memories | extraction ms/turn (CPU ms) | recall ms p50 / p95 "
        "| answer start ms p50 / p95 | model failures |"
    )
    out = [head, "|" + "---|" * 8]
    for r in rows:
        out.append(
            f"| {r['mode']} | {r['recall_accuracy']:.0%} ({r['facts']}) | {r['update_accuracy']:.0%} ({r['updates']}) | "
            f"{r['false_memory_rate']:.0%} ({r['never_told']}) | "
            f"{r['extraction_ms_per_turn']:.1f} ({r['extraction_cpu_ms_per_turn']:.1f}) | "
            f"{r['recall_ms_p50']:.2f} / {r['recall_ms_p95']:.2f} | "
            f"{r['answer_start_ms_p50']:.2f} / {r['answer_start_ms_p95']:.2f} | {r['model_failures']} |"
        )
    return "\n".join(out)


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    generator = None
    if any(m != "rules" for m in modes):
        generator = offline_generator()
        await generator.warm()  # type: ignore[attr-defined]
    rows = []
    for mode in modes:
        rows.append(await run_mode(mode, generator, args.limit, args.timeout))
        print(f"{mode}: done", file=sys.stderr)
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modes", default="rules,rules+model", help="comma-separated: rules, rules+model, model")
    p.add_argument("--limit", type=int, default=0, help="only the first N facts (and N/4 updates), e.g. for a quick model run")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds one structured model call may take")
    p.add_argument("--json", action="store_true", help="print one JSON line last (the offline default's numbers first)")
    args = p.parse_args()
    logging.basicConfig(level=logging.WARNING)
    rows = asyncio.run(main_async(args))
    print(table(rows))
    if args.json:
        default = next((r for r in rows if r["mode"] == "rules"), rows[0])  # [memory] extract_with_model = false
        keys = (
            "recall_accuracy",
            "update_accuracy",
            "false_memory_rate",
            "recall_ms_p50",
            "recall_ms_p95",
            "answer_start_ms_p50",
            "answer_start_ms_p95",
            "extraction_ms_per_turn",
        )
        print(json.dumps({**{k: default[k] for k in keys}, "default_mode": default["mode"], "modes": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
