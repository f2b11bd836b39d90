"""What of a request said right after the wake phrase reaches Whisper (``genx.agentkit.wake_tail``), on Piper's voice.

Each request is rendered ``--renders`` times by the Piper joe voice (its sampling noise makes every rendering
different: the pause after "Hey Jarvis," runs from under 80 to over 150 ms), each rendering fed at several
alignments (leading silence in 20 ms steps) through the app's path: the wake word gate with the real
microWakeWord detector, then webrtcvad as the app sets it, then Whisper tiny.en on the utterance, then the
transcript filter that cuts the phrase. Per ``GAP_MS`` variant (the quiet that ends the phrase), side by side
on the same clips:

* ``first lost``: the request's first word is not in the transcript ("time is it?");
* ``first wrong``: it is there, but something comes before it (the phrase's tail read as "just" or "That's");
* ``split``: the audio opened more than one utterance; ``unheard``: no wake, or no utterance;
* ``hold ms``: from the detection to when the VAD got audio again (the tail deciding), median and p95.

Fed as fast as it runs, on the audio's clock. The last line with ``--json`` is one JSON object:
``{"clips": N, "variants": {"<gap>": {"first_lost_pct", "first_wrong_pct", "split", "unheard", "hold_ms_p50",
"hold_ms_p95"}}}``.

Usage: ``python bench/wake_tail.py [--renders 40] [--gaps 100,150] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from genx.agentkit import wake_tail
from genx.agentkit.core import L16_16K, LoopConfig, LoopCore
from genx.agentkit.events import EventBus, WakeChanged
from genx.agentkit.wake import WakeGate, strip_wake_phrase
from genx.chunk import Blob, MessageChunk
from genx.local.vad import VadSettings, VadTransformer
from genx.local.wakeword import WakeWordDetector
from genx.stream import collect, stream_of
from genx.transformers.audiostream.pcm import resample

RATE = 16000
CHUNK = RATE * 20 // 1000 * 2  # bytes per 20 ms
LEADS_MS = (500, 520, 540, 560, 580)
REQUESTS = (
    "Hey Jarvis what time is it?",
    "Hey Jarvis, what time is it?",
    "Hey Jarvis turn off the lights.",
    "Hey Jarvis, set a timer for ten minutes.",
    "Hey Jarvis. What's the weather like tomorrow?",
)


@dataclass(slots=True)
class Tally:
    clips: int = 0
    first_lost: int = 0
    first_wrong: int = 0
    split: int = 0
    unheard: int = 0
    holds_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        holds = sorted(self.holds_ms) or [0.0]
        return {
            "first_lost_pct": 100.0 * self.first_lost / max(1, self.clips),
            "first_wrong_pct": 100.0 * self.first_wrong / max(1, self.clips),
            "split": self.split,
            "unheard": self.unheard,
            "hold_ms_p50": statistics.median(holds),
            "hold_ms_p95": holds[min(len(holds) - 1, int(0.95 * len(holds)))],
        }


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


async def utterances(pcm: bytes) -> tuple[list[bytes], float | None]:
    """``pcm`` through the gate and the VAD: each utterance's audio, and how long the VAD was held after the wake."""
    t = [0.0]
    bus = EventBus()
    woke: list[float] = []
    bus.subscribe(lambda e: woke.append(t[0]) if isinstance(e, WakeChanged) and e.awake else None)
    core = LoopCore(LoopConfig(), generator=object(), conversation_id="b", clock=lambda: t[0], wall_clock=lambda: t[0], bus=bus)  # type: ignore[arg-type]
    to_vad: list[MessageChunk] = []
    resumed: list[float] = []

    def passed(c: MessageChunk) -> None:
        if woke and not resumed:
            resumed.append(t[0])
        to_vad.append(c)

    with WakeWordDetector() as detector:
        gate = WakeGate(core, detector, passed)
        for i in range(0, len(pcm), CHUNK):
            t[0] = i / (2 * RATE)
            gate.feed(MessageChunk.blob(L16_16K, pcm[i : i + CHUNK], timestamp=i // 32))
    out = await collect(await VadTransformer(VadSettings(frame_ms=20, aggressiveness=2)).transform(stream_of(*to_vad)))
    routes: dict[str, bytes] = {}
    for c in out:
        if isinstance(c.part, Blob):
            routes[c.stream_id] = routes.get(c.stream_id, b"") + c.part.data
    hold = (resumed[0] - woke[0]) * 1000.0 if woke and resumed else None
    return list(routes.values()), hold


async def run(renders: int, gaps: list[float]) -> tuple[int, dict[str, Tally]]:
    from genx.local.piper_tts import PiperSynthesizer
    from genx.local.whisper import WhisperDecoder

    voice = PiperSynthesizer().voice.get()
    decoder = WhisperDecoder()
    tallies = {f"{g:g}": Tally() for g in gaps}
    silence = bytes(2 * RATE * 3 // 2)
    for text in REQUESTS:
        first = words(text)[2]
        for _ in range(renders):
            spoken = resample(b"".join(c.audio_int16_bytes for c in voice.synthesize(text)), 22050, RATE)
            for lead in LEADS_MS:
                clip = bytes(2 * RATE * lead // 1000) + spoken + silence
                for gap in gaps:
                    wake_tail.GAP_MS = gap  # the variant: PhraseTail reads the module's constant at each chunk
                    tally = tallies[f"{gap:g}"]
                    tally.clips += 1
                    routes, hold = await utterances(clip)
                    if hold is not None:
                        tally.holds_ms.append(hold)
                    if not routes:
                        tally.unheard += 1
                        continue
                    tally.split += len(routes) > 1
                    x = np.frombuffer(routes[-1], dtype="<i2").astype(np.float32) / 32768
                    heard = words(strip_wake_phrase(await asyncio.to_thread(decoder.decode, x, True), ["Hey Jarvis"]))
                    if first not in heard:
                        tally.first_lost += 1
                    elif heard[0] != first:
                        tally.first_wrong += 1
    return sum(t.clips for t in tallies.values()) // max(1, len(gaps)), tallies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--renders", type=int, default=40, help="Piper renderings of each request")
    ap.add_argument("--gaps", default=f"100,{wake_tail.GAP_MS:g}", help="GAP_MS values to compare (ms, comma-separated)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    gaps = sorted({float(g) for g in args.gaps.split(",") if g.strip()})
    clips, tallies = asyncio.run(run(args.renders, gaps))
    print(f"{clips} clips ({len(REQUESTS)} requests x {args.renders} renderings x {len(LEADS_MS)} alignments), each per variant")
    print(f"{'GAP_MS':>7} | {'first lost %':>12} | {'first wrong %':>13} | {'split':>5} | {'unheard':>7} | {'hold p50 / p95 ms':>17}")
    summaries = {k: t.summary() for k, t in tallies.items()}
    for k, s in summaries.items():
        print(
            f"{k:>7} | {s['first_lost_pct']:12.1f} | {s['first_wrong_pct']:13.1f} | {s['split']:5.0f} | {s['unheard']:7.0f} | "
            f"{s['hold_ms_p50']:7.0f} / {s['hold_ms_p95']:<7.0f}"
        )
    if args.json:
        print(json.dumps({"clips": clips, "variants": summaries}))


if __name__ == "__main__":
    main()
