"""WebRTC VAD vs Silero VAD v6 on synthetic speech, in quiet and under noise, and on noise alone.

Each VAD runs as the voice loop runs it (app defaults: aggressiveness 2, a
150 ms onset window at 60 %, 500 ms end silence): its frame classifier feeds
:class:`genx.local.vad.UtteranceDetector` frame by frame, so onset and end are
the decisions' own times. Material: ``--sentences`` sentences, each by the Piper
joe voice and by espeak-ng (rotating voices), with 800 ms before and 1,200 ms
after; conditions: clean, and with white / fan / keyboard / music noise mixed
in at ``--noise-dbfs`` (before, under and after the speech). Noise alone: 10 s
of each at the same level.

Per VAD and condition: speech caught (an utterance opened within the speech),
onset decision after the speech starts (ms, median), end decision after the
speech ends (ms, median), utterances opened on noise alone and the share of
noise frames called speech; and the classifier's cost per frame.

Usage: ``python bench/vad_compare.py [--sentences 8] [--noise-dbfs -35] [--json]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: bench.speech beside genx

from bench.speech import ESPEAK_VOICES, NOISES, espeak_say, mix, piper_say, silence  # noqa: E402
from genx.local.vad_segment import END, START, FrameClassifier, UtteranceDetector, VadSettings, WebRtcClassifier  # noqa: E402

SENTENCES = (
    "What is the weather like in Paris today?",
    "Please turn on the lights in the kitchen.",
    "Can you remind me to call my mother tomorrow?",
    "How far is the nearest train station from here?",
    "Set a timer for ten minutes.",
    "I would like a cup of hot tea with lemon.",
    "Read me the latest news about the football match.",
    "Open the window because it is too warm in here.",
    "My favorite color is green and my sister likes blue.",
    "We walked along the beach until the sun went down.",
)
LEAD_MS, TRAIL_MS = 800, 1200


@dataclass(slots=True)
class Run:
    onsets: list[int]  # ms from the clip start when an utterance opened
    ends: list[int]
    voiced: list[bool]
    cost_ms: float


def settings(kind: str) -> VadSettings:
    frame = 32 if kind == "silero" else 20
    return VadSettings(classifier=kind, frame_ms=frame, end_silence_ms=500, aggressiveness=2).validate()  # type: ignore[arg-type]


def classifier_maker(kind: str) -> Callable[[VadSettings], FrameClassifier]:
    if kind == "silero":
        from genx.local.silero_vad import SileroFactory

        return SileroFactory()
    return lambda s: WebRtcClassifier(s.aggressiveness)


def run_vad(kind: str, make: Callable[[VadSettings], FrameClassifier], pcm: bytes) -> Run:
    s = settings(kind)
    clf, det = make(s), UtteranceDetector(s)
    fb = s.frame_bytes
    run = Run([], [], [], 0.0)
    t0 = time.perf_counter()
    for i in range(len(pcm) // fb):
        frame = pcm[i * fb : (i + 1) * fb]
        voiced = clf.is_speech(frame)
        run.voiced.append(voiced)
        kind_, _ = det.feed(frame, voiced)
        if kind_ == START:
            run.onsets.append((i + 1) * s.frame_ms)
        elif kind_ == END:
            run.ends.append((i + 1) * s.frame_ms)
    run.cost_ms = (time.perf_counter() - t0) * 1000.0 / max(1, len(run.voiced))
    return run


def speech_clips(n: int) -> list[tuple[str, bytes]]:
    say = piper_say()
    out: list[tuple[str, bytes]] = []
    for i, text in enumerate(SENTENCES[:n]):
        out.append(("piper", say(text)))
        voice, wpm = ESPEAK_VOICES[i % len(ESPEAK_VOICES)]
        out.append((f"espeak:{voice}", espeak_say(text, voice, wpm)))
    return out


def measure(kind: str, clips: list[tuple[str, bytes]], noise_dbfs: float) -> dict[str, Any]:
    make = classifier_maker(kind)
    result: dict[str, Any] = {"vad": kind, "conditions": {}, "noise_only": {}}
    costs: list[float] = []
    for cond in ("clean", *NOISES):
        caught, onset_ms, end_ms, extra = 0, [], [], 0
        for _, speech in clips:
            clip = silence(LEAD_MS) + speech + silence(TRAIL_MS)
            if cond != "clean":
                clip = mix(clip, NOISES[cond](len(clip) // 32, noise_dbfs))
            start, stop = LEAD_MS, LEAD_MS + len(speech) // 32
            r = run_vad(kind, make, clip)
            costs.append(r.cost_ms)
            inside = [t for t in r.onsets if start <= t <= stop]
            caught += bool(inside)
            extra += len(r.onsets) - len(inside[:1])
            if inside:
                onset_ms.append(inside[0] - start)
                after = [t for t in r.ends if t > inside[0]]
                if after:
                    end_ms.append(after[0] - stop)
        result["conditions"][cond] = {
            "caught": caught,
            "n": len(clips),
            "onset_ms_p50": statistics.median(onset_ms) if onset_ms else None,
            "end_ms_p50": statistics.median(end_ms) if end_ms else None,
            "extra_utterances": extra,
        }
    for name, make_noise in NOISES.items():
        r = run_vad(kind, make, make_noise(10_000, noise_dbfs))
        result["noise_only"][name] = {"utterances": len(r.onsets), "voiced_share": round(sum(r.voiced) / len(r.voiced), 3)}
    result["ms_per_frame"] = round(statistics.median(costs), 4)
    return result


def print_table(results: list[dict[str, Any]], noise_dbfs: float) -> None:
    print(f"\nVAD comparison (speech caught / onset after speech start / end after speech end, noise at {noise_dbfs} dBFS)")
    head = f"{'condition':<10}" + "".join(f" | {r['vad'] + ' caught':>14} {'onset ms':>8} {'end ms':>7} {'extra':>5}" for r in results)
    print(head)
    print("-" * len(head))
    for cond in results[0]["conditions"]:
        line = f"{cond:<10}"
        for r in results:
            c = r["conditions"][cond]
            line += f" | {c['caught']:>9}/{c['n']:<4} {c['onset_ms_p50']!s:>8} {c['end_ms_p50']!s:>7} {c['extra_utterances']:>5}"
        print(line)
    print(f"\nnoise alone (10 s at {noise_dbfs} dBFS): utterances opened / share of frames called speech")
    for name in results[0]["noise_only"]:
        print(
            f"{name:<10}"
            + "".join(
                f" | {r['vad']:>7}: {r['noise_only'][name]['utterances']:>3} {r['noise_only'][name]['voiced_share']:>6}" for r in results
            )
        )
    print("\nms per frame: " + ", ".join(f"{r['vad']} {r['ms_per_frame']}" for r in results))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sentences", type=int, default=8)
    p.add_argument("--noise-dbfs", type=float, default=-35.0)
    p.add_argument("--json", action="store_true", help="print a JSON summary as the last line")
    args = p.parse_args(argv)
    clips = speech_clips(args.sentences)
    results = [measure(kind, clips, args.noise_dbfs) for kind in ("webrtc", "silero")]
    print_table(results, args.noise_dbfs)
    if args.json:
        print(json.dumps({"noise_dbfs": args.noise_dbfs, "clips": len(clips), "vads": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
