"""Bench of what Parley says: repetition, topic, facts, honesty, spoken form, length and first-token latency.

    python -m bench.answer_quality [--quick] [--configs off,floor,...] [--generator NAME] [--model NAME=GGUF ...]
                                   [--verbose] [--json]

Every answer comes from the same agent as ``parley ask`` and the voice loop
(:func:`app.assistant.build_assistant` over the configured generators: pre-match,
router, tools, the in-process model), on the context the voice loop builds
(:class:`genx.agentkit.history.History`: spoken-only, an interrupted answer kept
as the words heard before the cut, here the first half of it). The sets are in
:mod:`bench.answer_quality_data`: single questions (each its own conversation)
and conversations of six or seven turns. Scores: :mod:`bench.answer_scores`.

Configurations (``--configs``) run side by side on one loaded model: ``off``
(no floor: the answer path before issue 17), ``floor`` (every part on: the
default), ``floor`` without one part each (``-policy``, ``-guard``,
``-spoken``, ``-honesty``) and sampler settings on top of the floor
(``+penalties``: presence/frequency penalties; llama-cpp-python 0.3 exposes no
DRY sampler). ``--model NAME=PATH`` adds a GGUF generator and runs the
configurations on it too. ``--quick``: a fifth of the questions and four
conversations (about two minutes per configuration on 2 idle cores).

Prints a table; with ``--json`` the last line is one JSON object: the ``floor``
configuration's scores at the top level (``repetition_rate``, ``on_topic_rate``,
``factual_accuracy``, ``honesty_rate``, ``format_violations``, ``answer_s_p50``,
``answer_s_p95``, ``first_token_ms_p50`` …) and every run under ``runs``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the repo root is not on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import answer_quality_data as data
from bench.answer_scores import factual, honest, on_topic, percentile, repeated, spoken_seconds, violations
from genx.agentkit.core import LoopConfig
from genx.agentkit.history import History
from genx.assistant import AssistantGenerator
from genx.assistant.generator import FLOOR_OFF, Floor
from genx.chunk import Text
from genx.errors import State
from genx.model import ModelParams
from genx.toolbox import match_command

PENALTIES = ModelParams(presence_penalty=0.4, frequency_penalty=0.4, repeat_penalty=1.15)


@dataclass(frozen=True, slots=True)
class Config:
    floor: Floor
    params: ModelParams | None = None


CONFIGS: dict[str, Config] = {
    "off": Config(FLOOR_OFF),
    "floor": Config(Floor()),
    "floor-policy": Config(Floor(context_policy=False)),
    "floor-guard": Config(Floor(guard=False)),
    "floor-spoken": Config(Floor(spoken_form=False)),
    "floor-honesty": Config(Floor(honesty=False)),
    "floor+penalties": Config(Floor(), PENALTIES),
}
DEFAULT_CONFIGS = ("off", "floor", "floor-policy", "floor-guard", "floor+penalties")


@dataclass(slots=True)
class Answered:
    question: str
    answer: str
    path: str
    first_token_ms: float
    total_ms: float
    kind: str = ""
    keywords: tuple[str, ...] = ()
    repeated: bool = False
    on_topic: bool = True
    violations: list[str] = field(default_factory=list)


def factual_hit(a: Answered) -> bool:
    """A right answer is on topic even when it shares no word with the question ("The answer is 8.")."""
    return bool(a.keywords) and factual(a.answer, a.keywords)


async def answer_one(gen: AssistantGenerator, name: str, history: History, text: str, params: ModelParams | None) -> Answered:
    """One turn as the voice loop runs it: the spoken-only history's context → the assistant's stream."""
    ctx = history.context(text, system_prompt="", params=params)  # the generator carries the system prompt, as in the loop
    t0 = time.perf_counter()
    first = 0.0
    stream = await gen.generate_stream(name, ctx)
    try:
        while True:
            c = await stream.next()
            if isinstance(c.part, Text) and c.part.text.strip() and not (c.meta or {}).get("filler") and not first:
                first = (time.perf_counter() - t0) * 1000
    except State:
        pass
    finally:
        await stream.close()
    await stream.wait_report()
    total = (time.perf_counter() - t0) * 1000
    return Answered(text, stream.answer.strip(), stream.decision.path, first or total, total)


async def run_config(
    gen: AssistantGenerator, name: str, cfg: Config, questions: list[Any], conversations: dict[str, Any]
) -> list[Answered]:
    gen.floor = cfg.floor
    out: list[Answered] = []
    singles: list[tuple[str, str]] = []
    for q, kind, keywords in questions:
        a = await answer_one(gen, name, History(LoopConfig().history_max_chars), q, cfg.params)
        a.kind, a.keywords = kind, keywords
        a.repeated = repeated(a.answer, q, singles, unknowable=kind == "unknowable", same_conversation=False)
        tool = kind == "tool" and a.path in ("prematch", "router")
        a.on_topic = on_topic(q, a.answer, tool=tool, unknowable=kind == "unknowable") or factual_hit(a)
        singles.append((q, a.answer))
        out.append(a)
    unknowable = {q for q, kind, _ in data.QUESTIONS if kind == "unknowable"}
    for turns in conversations.values():
        history = History(LoopConfig().history_max_chars)
        earlier: list[tuple[str, str]] = []
        previous = ""
        for text, interrupted, keywords in turns:
            if match_command(text) is not None:  # the app carries out commands without an answer
                continue
            a = await answer_one(gen, name, history, text, cfg.params)
            a.kind, a.keywords = ("unknowable" if text in unknowable else "fact" if keywords else "open"), keywords
            a.repeated = repeated(a.answer, text, earlier, unknowable=a.kind == "unknowable")
            tool = a.path in ("prematch", "router")
            a.on_topic = on_topic(text, a.answer, previous=previous, tool=tool, unknowable=a.kind == "unknowable") or factual_hit(a)
            words = a.answer.split()
            heard = " ".join(words[: max(1, len(words) // 2)]) if interrupted else a.answer
            history.add(text, heard, interrupted=interrupted)
            earlier.append((text, heard))
            previous = text
            out.append(a)
    for a in out:
        a.violations = violations(a.answer)
    return out


def summarize(answers: list[Answered], seconds: float, caught: int) -> dict[str, Any]:
    n = max(1, len(answers))
    facts = [a for a in answers if a.keywords]
    unknown = [a for a in answers if a.kind == "unknowable"]
    spoken = [spoken_seconds(a.answer) for a in answers]
    model = [a.first_token_ms for a in answers if a.path == "model"]
    return {
        "answers": len(answers),
        "repetition_rate": round(sum(a.repeated for a in answers) / n, 3),
        "on_topic_rate": round(sum(a.on_topic for a in answers) / n, 3),
        "factual_accuracy": round(sum(factual(a.answer, a.keywords) for a in facts) / max(1, len(facts)), 3),
        "honesty_rate": round(sum(honest(a.answer) for a in unknown) / max(1, len(unknown)), 3),
        "format_violations": sum(bool(a.violations) for a in answers),
        "answer_s_p50": round(percentile(spoken, 0.5), 1),
        "answer_s_p95": round(percentile(spoken, 0.95), 1),
        "first_token_ms_p50": round(percentile([a.first_token_ms for a in answers], 0.5), 1),
        "first_token_ms_p95": round(percentile([a.first_token_ms for a in answers], 0.95), 1),
        "model_first_token_ms_p50": round(percentile(model, 0.5), 1),
        "guard_caught": caught,
        "run_s": round(seconds, 1),
    }


COLUMNS = (
    ("repetition_rate", "repeat"),
    ("on_topic_rate", "on-topic"),
    ("factual_accuracy", "facts"),
    ("honesty_rate", "honest"),
    ("format_violations", "format"),
    ("answer_s_p50", "spoken p50 s"),
    ("answer_s_p95", "p95 s"),
    ("first_token_ms_p50", "1st tok ms"),
    ("model_first_token_ms_p50", "model 1st ms"),
    ("guard_caught", "caught"),
    ("run_s", "run s"),
)


def table(runs: dict[str, dict[str, Any]]) -> str:
    width = max(len(k) for k in runs) + 2
    head = "run".ljust(width) + "".join(f"{label:>14}" for _, label in COLUMNS)
    rows = [head] + [k.ljust(width) + "".join(f"{v[key]:>14}" for key, _ in COLUMNS) for k, v in runs.items()]
    return "\n".join(rows)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    from app.assistant import build_assistant
    from app.settings import Settings, load_settings, with_generator_prompts
    from genx.generators.mux import GeneratorMux
    from genx.modelloader import load_into

    settings = load_settings(args.config) if args.config else Settings()
    extra = []
    for spec in args.model:
        label, _, path = spec.partition("=")
        base = next(g for g in settings.generators if g.name == settings.loop.generator)
        extra.append(base.model_copy(update={"name": f"bench/{label}", "model_file": path}))
        settings = settings.model_copy(update={"generators": [*settings.generators, *extra[-1:]]})
    gens = GeneratorMux()
    load_into(with_generator_prompts(settings), gens, None)
    names = [args.generator or settings.loop.generator] + [g.name for g in extra]
    questions = data.QUESTIONS[:: max(1, len(data.QUESTIONS) // data.QUICK_QUESTIONS)] if args.quick else data.QUESTIONS
    conversations = {k: v for k, v in data.CONVERSATIONS.items() if not args.quick or k in data.QUICK_CONVERSATIONS}
    runs: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="parley-bench-") as tmp:
        assistant = build_assistant(settings, gens, data_dir=Path(tmp))
        gen = assistant.generator
        for name in names:
            await gen.warm(name)
            for cfg_name in args.configs.split(","):
                before = len(gen.guard_caught)
                t0 = time.perf_counter()
                answers = await run_config(gen, name, CONFIGS[cfg_name], questions, conversations)
                key = cfg_name if name == names[0] else f"{name.removeprefix('bench/')}:{cfg_name}"
                runs[key] = summarize(answers, time.perf_counter() - t0, len(gen.guard_caught) - before)
                print(f"{key}: {runs[key]}", file=sys.stderr, flush=True)
                if args.verbose:
                    for a in answers:
                        flags = ("R" if a.repeated else "") + ("" if a.on_topic else "T") + ("F" if a.violations else "")
                        print(f"  [{a.path}:{flags}] {a.question} → {a.answer}", file=sys.stderr)
        await gen.aclose()
    top = runs.get("floor") or next(iter(runs.values()))
    return {**top, "generator": names[0], "quick": bool(args.quick), "runs": runs}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--quick", action="store_true", help="a fifth of the questions and four conversations")
    p.add_argument("--configs", default=",".join(DEFAULT_CONFIGS), help=f"comma-separated, of: {', '.join(CONFIGS)}")
    p.add_argument("--generator", help="the configured generator to measure (default: [loop] generator)")
    p.add_argument("--model", action="append", default=[], metavar="NAME=GGUF", help="also measure this GGUF file")
    p.add_argument("--config", help="settings file (default: the built-in defaults)")
    p.add_argument("--verbose", action="store_true", help="print every answer (stderr)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    for c in args.configs.split(","):
        if c not in CONFIGS:
            p.error(f"unknown configuration {c!r}; known: {', '.join(CONFIGS)}")
    result = asyncio.run(main_async(args))
    print(table(result["runs"]))
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
