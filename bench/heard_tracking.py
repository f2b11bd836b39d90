"""What following the heard words costs: ``HeardTracker.advance`` at the player's report rate over one long answer.

The player reports every device block (10-20 ms, so 50-100 times a second); each report maps the heard
samples to words of the answer. This drives the real tracker and segment recorder with a synthetic answer
(``--sentences`` sentences, 16 kHz audio at 60 ms per character) and reports the time per report (median,
p95, max) and the total over the answer. No devices, no models.

Usage: ``python bench/heard_tracking.py [--sentences 40] [--report-ms 10] [--json]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import dataclass

from genx.agentkit.heard import HeardTracker
from genx.agentkit.spoken import SegmentRecorder
from genx.agentkit.turns import Answer

RATE = 16000
SAMPLES_PER_CHAR = RATE * 60 // 1000


@dataclass
class _Pos:
    stream_id: str
    rate: int
    samples_played: int
    samples_heard: int
    audible_at: float = 0.0


def run(sentences: int, report_ms: int) -> dict[str, float]:
    texts = [f"This is sentence number {i} of a long answer, with a few more words in it." for i in range(sentences)]
    rec = SegmentRecorder()
    ans = Answer("a1", rec, "bench")
    ans.generated = [t + " " for t in texts]
    for t in texts:  # the whole answer synthesized: the tracker's worst case (most text to map)
        rec.begin(t)
        rec.audio(b"\x00\x10" * (len(t) * SAMPLES_PER_CHAR))
        rec.end()
    tracker = HeardTracker([], clock=time.monotonic, output_latency=lambda: 0.0)
    total = rec.total_bytes // 2
    step = RATE * report_ms // 1000
    times: list[float] = []
    last = ""
    for pos in range(step, total + step, step):
        p = _Pos("a1", RATE, min(pos, total), max(0, min(pos, total) - step))
        t0 = time.perf_counter()
        last = tracker.advance(ans, p)
        times.append(time.perf_counter() - t0)
    last = tracker.advance(ans, _Pos("a1", RATE, total, total))  # the last sample audible
    assert last == ans.full_text(), "the whole answer is heard at its end"
    times.sort()
    return {
        "reports": len(times),
        "answer_s": round(total / RATE, 1),
        "median_us": round(statistics.median(times) * 1e6, 1),
        "p95_us": round(times[int(0.95 * (len(times) - 1))] * 1e6, 1),
        "max_us": round(times[-1] * 1e6, 1),
        "total_ms": round(sum(times) * 1e3, 1),
        "cpu_share_pct": round(100.0 * sum(times) / (total / RATE), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=40)
    ap.add_argument("--report-ms", type=int, default=10)
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    a = ap.parse_args()
    r = run(a.sentences, a.report_ms)
    if a.json:
        print(json.dumps(r))
        return
    for k, v in r.items():
        print(f"{k:>14}  {v}")


if __name__ == "__main__":
    main()
