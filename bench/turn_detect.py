"""End-of-turn detectors on synthetic speech: Smart Turn v3.2, the SmolLM2 text signal, and both combined.

Material: ``COMPLETE`` questions and ``FRAGMENTS`` (a sentence cut before its end,
"Can you remind me what the"), each spoken by the Piper joe voice and by
espeak-ng (voices and speeds rotating through :data:`bench.speech.ESPEAK_VOICES`),
trimmed, followed by ``--pause-ms`` of silence (what the detector hears when the
voice loop checks a pause). The provisional transcript is Whisper tiny.en's
(the app's ASR) on that audio, and, as a second row, the written text.

Per detector: share of complete utterances judged complete, share of fragments
judged incomplete, and milliseconds per call (call → verdict on a worker
thread; median and p95). The probability spread (lowest on complete, highest on
fragments) shows how much room each threshold has.

Usage: ``python bench/turn_detect.py [--pause-ms 200] [--transcripts asr|text|both] [--json]``
(needs ``pip install --no-deps pipecat-ai`` for the Smart Turn weights and espeak-ng).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: bench.speech beside genx

from bench.speech import ESPEAK_VOICES, espeak_say, piper_say, silence  # noqa: E402
from genx.turn.combined import CombinationRule, CombinedDetector  # noqa: E402
from genx.turn.detector import TurnDetector, TurnVerdict  # noqa: E402
from genx.turn.smart_turn import SmartTurnDetector  # noqa: E402
from genx.turn.text import DEFAULT_THRESHOLD, TextTurnDetector  # noqa: E402

COMPLETE: tuple[str, ...] = (
    "What is the weather like in Paris today?",
    "Can you remind me to call my mother tomorrow?",
    "How far is the nearest train station from here?",
    "What time does the pharmacy close tonight?",
    "Could you tell me a short story about a dragon?",
    "Why is the sky blue?",
    "How do I make a cup of green tea?",
    "What is the capital of Australia?",
    "Can you set a timer for ten minutes?",
    "Who wrote the book Pride and Prejudice?",
    "What should I cook for dinner tonight?",
    "How many planets are there in the solar system?",
    "Is it going to rain this weekend?",
    "What is the best way to learn a new language?",
    "Can you explain how a rainbow forms?",
    "Where can I buy fresh bread near me?",
    "What is the square root of sixty four?",
    "How long does it take to boil an egg?",
    "Tell me a joke about cats.",
    "What are some good exercises for my back?",
    "Can you recommend a good movie for tonight?",
    "How do airplanes stay in the air?",
    "What is the difference between a frog and a toad?",
    "Please play some relaxing music.",
)

FRAGMENTS: tuple[str, ...] = (
    "Can you remind me what the",
    "I would like to book a table for",
    "So I was thinking that maybe",
    "What is the name of the",
    "Could you tell me how to",
    "I need to buy some",
    "How far is it from the",
    "My favorite kind of music is",
    "Can you explain why the",
    "Tomorrow I have to go to the",
    "What do you think about the",
    "I was wondering if you could",
)


@dataclass(slots=True)
class Clip:
    text: str
    complete: bool
    engine: str  # "piper" or "espeak:<voice>@<wpm>"
    pcm: bytes
    heard: str = ""  # Whisper's transcript


@dataclass(slots=True)
class Row:
    name: str
    verdicts: list[tuple[Clip, TurnVerdict]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        comp = [v for c, v in self.verdicts if c.complete]
        frag = [v for c, v in self.verdicts if not c.complete]
        ms = [v.elapsed_ms for _, v in self.verdicts]
        cost = [v.cost_ms for _, v in self.verdicts]
        return {
            "complete_right": sum(v.complete for v in comp),
            "complete_n": len(comp),
            "fragment_right": sum(not v.complete for v in frag),
            "fragment_n": len(frag),
            "ms_p50": round(statistics.median(ms), 1),
            "ms_p95": round(float(np.percentile(ms, 95)), 1),
            "cost_ms_p50": round(statistics.median(cost), 1),
            "p_complete_min": round(min(v.probability for v in comp), 5),
            "p_fragment_max": round(max(v.probability for v in frag), 5),
        }


def synthesize() -> list[Clip]:
    say = piper_say()
    clips: list[Clip] = []
    for i, (text, complete) in enumerate([(t, True) for t in COMPLETE] + [(t, False) for t in FRAGMENTS]):
        clips.append(Clip(text, complete, "piper", say(text)))
        voice, wpm = ESPEAK_VOICES[i % len(ESPEAK_VOICES)]
        clips.append(Clip(text, complete, f"espeak:{voice}@{wpm}", espeak_say(text, voice, wpm)))
    return clips


def transcribe(clips: list[Clip]) -> None:
    from genx.local.asr import WhisperDecoder

    decoder = WhisperDecoder()
    for c in clips:
        c.heard = decoder.decode(np.frombuffer(c.pcm, dtype="<i2").astype(np.float32) / 32768.0, True).strip()


async def run(detector: TurnDetector, name: str, clips: list[Clip], pause: bytes, written: bool) -> Row:
    row = Row(name)
    for c in clips:
        v = await detector.check(c.pcm + pause, c.text if written else c.heard)
        row.verdicts.append((c, v))
    return row


def print_table(rows: list[dict[str, Any]], n_clips: int, pause_ms: int) -> None:
    print(f"\nEnd-of-turn detectors on {n_clips} synthetic utterances (piper joe + espeak-ng), {pause_ms} ms pause")
    head = (
        f"{'detector':<26} {'complete':>10} {'fragments':>10} {'ms p50':>8} {'ms p95':>8} {'cost p50':>9}"
        f" {'min p(compl)':>13} {'max p(frag)':>12}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['name']:<26} {r['complete_right']:>4}/{r['complete_n']:<5} {r['fragment_right']:>4}/{r['fragment_n']:<5}"
            f" {r['ms_p50']:>8} {r['ms_p95']:>8} {r['cost_ms_p50']:>9} {r['p_complete_min']:>13} {r['p_fragment_max']:>12}"
        )


def misjudged(row: Row) -> list[str]:
    return [
        f"  {row.name}: {'complete' if c.complete else 'fragment'} [{c.engine}] {c.text!r} heard {c.heard!r}: p={v.probability:.4f}"
        for c, v in row.verdicts
        if v.complete != c.complete
    ]


async def amain(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    from genx.generators.llamacpp import LlamaCppGenerator

    t0 = time.perf_counter()
    clips = synthesize()
    print(f"synthesized {len(clips)} clips in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if args.transcripts in ("asr", "both"):
        t0 = time.perf_counter()
        transcribe(clips)
        print(f"transcribed in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    smart = SmartTurnDetector(threshold=args.audio_threshold)
    text = TextTurnDetector(LlamaCppGenerator(), threshold=args.text_threshold, wait_ms=5000)
    rule = CombinationRule(args.text_complete, args.text_incomplete, args.audio_threshold)
    combined = CombinedDetector(smart, text, rule)
    await combined.warm()
    await text.check(b"", "Warm the prompt cache with the system prompt")
    pause = silence(args.pause_ms)
    rows = [await run(smart, "smart-turn", clips, pause, False)]
    sources = {"asr": [False], "text": [True], "both": [False, True]}[args.transcripts]
    for written in sources:
        tag = "written" if written else "asr"
        rows.append(await run(text, f"text ({tag})", clips, pause, written))
        rows.append(await run(combined, f"combined ({tag})", clips, pause, written))
    summaries = [{"name": r.name, **r.summary()} for r in rows]
    print_table(summaries, len(clips), args.pause_ms)
    print(
        f"\nrule: text >= {rule.text_complete} complete, <= {rule.text_incomplete} unfinished, else smart-turn >= {rule.audio_threshold};"
        f" text alone: >= {args.text_threshold}"
    )
    clip_lines = [
        json.dumps(
            {
                "detector": r.name,
                "text": c.text,
                "complete": c.complete,
                "engine": c.engine,
                "heard": c.heard,
                "p": round(v.probability, 6),
                "parts": {p.detector: round(p.probability, 6) for p in v.parts},
            }
        )
        for r in rows
        for c, v in r.verdicts
    ]
    if args.verbose:
        print("\nmisjudged:")
        for r in rows:
            print("\n".join(misjudged(r)) or f"  {r.name}: none")
    return {"pause_ms": args.pause_ms, "clips": len(clips), "detectors": summaries}, clip_lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pause-ms", type=int, default=200, help="silence after the speech when the check runs")
    p.add_argument("--transcripts", choices=("asr", "text", "both"), default="both")
    p.add_argument("--audio-threshold", type=float, default=CombinationRule().audio_threshold)
    p.add_argument("--text-threshold", type=float, default=DEFAULT_THRESHOLD, help="text detector alone")
    p.add_argument("--text-complete", type=float, default=CombinationRule().text_complete)
    p.add_argument("--text-incomplete", type=float, default=CombinationRule().text_incomplete)
    p.add_argument("--clips", help="write every verdict as a JSON line to this file")
    p.add_argument("--verbose", action="store_true", help="list every misjudged utterance")
    p.add_argument("--json", action="store_true", help="print a JSON summary as the last line")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    result, clip_lines = asyncio.run(amain(args))
    if args.clips:
        with open(args.clips, "w", encoding="utf-8") as f:
            f.write("\n".join(clip_lines) + "\n")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
