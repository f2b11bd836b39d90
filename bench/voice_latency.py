"""Voice-to-voice and barge-in latency of the whole loop, measured on recorded audio.

Runs ``parley``'s loop (:class:`app.headless.Session`, the offline stack) against a
private PulseAudio server (``tests/pulse.py``): questions spoken by espeak-ng are
played into the virtual microphone in real time while both the microphone and the
speaker are recorded. Per turn:

* **voice-to-voice**: the last voiced sample of the question in the microphone
  recording → the first audible sample of the answer in the speaker recording
  (so it includes the end-of-turn silence wait, ASR, LLM, TTS and the devices);
* **barge-in** (every ``--bargein-every``-th turn, on a long answer): the first
  voiced sample of an interruption in the microphone → the speaker silent (the
  start of a ≥ 300 ms quiet stretch, after the loop reported the barge-in);
* **self-interruptions**: barge-ins the loop reported that the bench did not cause;
* the per-stage breakdown from the loop's ``TurnMetrics``, as durations that add
  up to voice-to-voice: ``transcript`` (end of speech → the answer starts: pause
  detection + ASR), ``llm_first_token``, ``tts_first_audio``, ``held`` (first audio
  → handed to the device: waiting for the end of the turn), ``device_out``; and
  ``eot_wait`` (end of speech → the VAD's end of turn), the gate a preemptive
  answer waits for.

Variants run one after the other on the same server and are printed side by side:
``preemptive`` (the app's behaviour: the answer starts at a pause, held until the
end of turn) and ``baseline`` (the answer starts at the end of turn).

Usage: ``python bench/voice_latency.py [--turns 24] [--eot-ms 300] [--turn-detection smart-turn|silence]
[--variants preemptive,baseline] [--echo] [--json]``.
With ``--json`` the last line is one JSON object: the first variant's ``turns``,
``v2v_ms_p50``, ``v2v_ms_p95``, ``bargein_ms_p50``, ``bargein_ms_p95``,
``self_interruptions`` and stages at the top level, every variant under ``variants``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pulse import PA_MIC, PA_SPEAKER, PulseServer, pulse_server  # noqa: E402

from bench.live import STAGES as LOOP_STAGES  # noqa: E402
from bench.live import LiveLoop, prepare  # noqa: E402
from bench.speech import espeak_say  # noqa: E402
from genx.agentkit.events import AssistantDone, BargeIn, LoopState, StateChanged, TurnMetrics  # noqa: E402
from genx.agentkit.metrics import LatencyStats  # noqa: E402
from genx.agentkit.store import ConversationStore  # noqa: E402

QUESTIONS = [
    "What is the capital of France?",
    "How many days are in a week?",
    "What color is the sky?",
    "Name a fruit that is yellow.",
    "What do bees make?",
    "Is the sun a star?",
    "What is two plus two?",
    "Where do penguins live?",
    "What language is spoken in Spain?",
    "How many legs does a spider have?",
    "What is the opposite of hot?",
    "Which animal says moo?",
]
LONG_QUESTIONS = [
    "Tell me a long story about a brave little dragon.",
    "Tell me a long story about a pirate and his parrot.",
    "Describe a day at the beach in many sentences.",
    "Tell me a long story about a robot who learns to paint.",
]
INTERRUPTIONS = ["Stop please.", "Wait, stop.", "Hold on.", "Stop talking."]


def espeak(text: str) -> np.ndarray:
    return np.frombuffer(espeak_say(text, "en-us", 165), dtype="<i2")


@dataclass
class TurnResult:
    kind: str  # "v2v" | "bargein"
    v2v_ms: float | None = None
    bargein_ms: float | None = None
    stages: dict[str, float] = field(default_factory=dict)
    preemptive: bool = False  # the answer was started before the end of the turn
    note: str = ""


class Bench(LiveLoop):
    def __init__(self, server: PulseServer, args: argparse.Namespace, workdir: Path, variant: str = "preemptive") -> None:
        from app.headless import Session
        from app.settings import Settings

        settings = Settings()
        settings.loop.end_of_turn_silence_ms = args.eot_ms
        settings.loop.turn_detection = args.turn_detection
        settings.loop.echo_cancellation = not args.no_aec
        settings.loop.preemptive_generation = variant == "preemptive"
        workdir.mkdir(parents=True, exist_ok=True)
        store = ConversationStore(workdir / "store")
        super().__init__(server, Session(settings, input_device=PA_MIC, output_device=PA_SPEAKER, store=store))
        self.variant = variant
        self.args = args
        self.workdir = workdir
        self.expected_bargeins = 0

    async def v2v_turn(self, text: str) -> TurnResult:
        loop = self.session.loop
        assert loop is not None
        mark = len(self.events)
        audio = espeak(text)
        pb = self.say(audio)
        ok = await self.wait(lambda: any(isinstance(e, StateChanged) and e.state is LoopState.SPEAKING for e in self.events[mark:]), 60)
        if not ok:
            done = self.done_after(mark)
            return TurnResult("v2v", note="no answer" + (f" ({done[0].error})" if done and done[0].error else ""))
        await asyncio.sleep(1.2)
        if not self.done_after(mark):
            self.expected_bargeins += 1
            self.stop_answer()  # enough heard: keep the bench short
        await self.wait(lambda: bool(self.of(AssistantDone, mark)), 20)
        span = self.voiced_span(pb.started_at, pb.duration_s + 1.0)
        if span is None:
            return TurnResult("v2v", note="question not found in the microphone recording")
        heard = self.first_audible_after(span[1] + 0.05)
        res = TurnResult("v2v")
        if heard is not None and heard - span[1] > 15.0:
            heard, res.note = None, "no answer heard within 15 s"
        if heard is not None:
            res.v2v_ms = (heard - span[1]) * 1000
        res.stages = self.stages(mark, span[1], heard)
        ms = self.turn_metrics(mark)
        res.preemptive = bool(ms and ms.preemptive)
        return res

    async def bargein_turn(self, text: str, interruption: str) -> TurnResult:
        loop = self.session.loop
        assert loop is not None
        loop.new_conversation()  # a fresh context: the small model then tells a long story, not "Okay."
        await self.wait(lambda: loop.state is LoopState.LISTENING, 10)
        await asyncio.sleep(0.5)  # the cut answer (if any) has been written
        mark = len(self.events)
        pb = self.say(espeak(text))
        ok = await self.wait(lambda: any(isinstance(e, StateChanged) and e.state is LoopState.SPEAKING for e in self.events[mark:]), 60)
        if not ok:
            return TurnResult("bargein", note="no answer")
        await asyncio.sleep(0.7)
        if self.done_after(mark):
            return TurnResult("bargein", note="answer too short to interrupt")
        self.expected_bargeins += 1
        g = self.session.gate
        g0 = (g.gated, g.passed, g.passed_raw) if g is not None else (0, 0, 0)
        if g is not None and self.args.verbose:
            g.trace = []
        pb2 = self.say(espeak(interruption))
        got = await self.wait(lambda: bool(self.of(BargeIn, mark)), 10)
        await asyncio.sleep(0.8)
        res = TurnResult("bargein")
        span = self.voiced_span(pb2.started_at, pb2.duration_s + 1.0)
        if not got or span is None:
            res.note = "no barge-in reported" if not got else "interruption not found in the microphone"
            if self.args.verbose:
                lp = self.session.loop
                g = self.session.gate
                kinds = [type(e).__name__ for e in self.events[mark:] if type(e).__name__ not in ("InputLevel", "AssistantDelta")]
                res.note += f" [state {lp.state if lp else '?'}, open routes {len(lp.router.routes) if lp else '?'}"
                if g is not None:
                    d = (g.gated - g0[0], g.passed - g0[1], g.passed_raw - g0[2])
                    res.note += f", gate during it {d[0]}/{d[1]}/{d[2]} off {g.offset_db:.0f}/{g.raw_offset_db:.0f}"
                    if g.trace:
                        loud = [x for x in g.trace if x[3] is not None and x[3] > -40][:15]
                        shown = (f"(f{x[1]:.0f} n{x[2]:.0f} r{x[3]:.0f} t{x[4]:.0f}/{x[5]:.0f} {x[6][0]})" for x in loud)
                        res.note += " trace " + " ".join(shown)
                res.note += f", events {kinds[-12:]}]"
            return res
        trace = g.trace if g is not None else None
        if g is not None:
            g.trace = None
        silent = self.silent_after(span[0])
        if self.quiet_before(span[0], 0.15):
            res.note = "the assistant was in a pause when the user started (not counted)"
        elif silent is not None:
            res.bargein_ms = max(0.0, (silent - span[0]) * 1000)
        cut = next((e for e in self.events[mark:] if isinstance(e, StateChanged) and e.state is LoopState.INTERRUPTED), None)
        if self.args.verbose and cut is not None and cut.at - span[0] > 0.3 and trace:
            near = [x for x in trace if span[0] - 0.05 <= x[0] <= cut.at]
            shown = " ".join(
                f"({x[0] - span[0]:+.2f} f{x[1]:.0f} n{x[2]:.0f} r{x[3] if x[3] is None else round(x[3])} {x[6][0]})" for x in near[:40]
            )
            res.note += f" slow detection: {shown}"
        ms = self.of(TurnMetrics, mark)
        if cut is not None:
            res.stages["bi_detect"] = (cut.at - span[0]) * 1000
            if ms and ms[0].playback_stopped is not None:
                res.stages["bi_stop"] = (ms[0].playback_stopped - cut.at) * 1000
                if silent is not None:
                    res.stages["bi_device"] = (silent - ms[0].playback_stopped) * 1000
        _ = pb
        return res

    async def run(self) -> list[TurnResult]:
        self.start_recording()
        await self.start_session()
        results: list[TurnResult] = []
        try:
            await asyncio.sleep(1.0)
            # one uncounted turn: the first decode of each model pays for paging its weights in
            warm = await self.v2v_turn("Hello there, how are you?")
            print(f"warm-up turn: v2v {warm.v2v_ms or 0:.0f} ms (not counted)", flush=True)
            await self.wait_quiet()
            for i in range(self.args.turns):
                every = self.args.bargein_every
                if every and i % every == every - 1:
                    r = await self.bargein_turn(LONG_QUESTIONS[i % len(LONG_QUESTIONS)], INTERRUPTIONS[i % len(INTERRUPTIONS)])
                else:
                    r = await self.v2v_turn(QUESTIONS[i % len(QUESTIONS)])
                results.append(r)
                v = f"{r.v2v_ms:.0f} ms" if r.v2v_ms is not None else "-"
                b = f"{r.bargein_ms:.0f} ms" if r.bargein_ms is not None else "-"
                print(f"turn {i + 1:2d} {r.kind:8s} v2v {v:>8s}  barge-in {b:>8s}  {r.note}", flush=True)
                await self.wait_quiet()
        finally:
            await self.session.close()
            self.stop_recording()
        return results


def summarize(results: list[TurnResult], bench: Bench, args: argparse.Namespace) -> dict[str, Any]:
    v2v = LatencyStats("v2v")
    v2v.extend(r.v2v_ms for r in results)
    bi = LatencyStats("bargein")
    bi.extend(r.bargein_ms for r in results)
    stages = {n: LatencyStats(n) for n in STAGES}
    for r in results:
        for n, v in r.stages.items():
            stages[n].add(v)
    preempted = sum(r.preemptive for r in results)
    self_int = bench.self_interruptions()
    out: dict[str, Any] = {
        "variant": bench.variant,
        "turns": len(results),
        "v2v_turns": len(v2v),
        "bargein_turns": len(bi),
        "v2v_ms_p50": round(v2v.p50, 1),
        "v2v_ms_p95": round(v2v.p95, 1),
        "bargein_ms_p50": round(bi.p50, 1),
        "bargein_ms_p95": round(bi.p95, 1),
        "self_interruptions": self_int,
        "preemptive_turns": preempted,
        "eot_ms": args.eot_ms,
        "turn_detection": args.turn_detection,
        "aec": not args.no_aec,
        "echo_loopback": args.echo,
        "stages_ms_p50": {n: round(s.p50, 1) for n, s in stages.items() if len(s)},
        "stages_ms_p95": {n: round(s.p95, 1) for n, s in stages.items() if len(s)},
        "failures": [r.note for r in results if r.note],
    }
    return out


STAGES = [*LOOP_STAGES, "bi_detect", "bi_stop", "bi_device"]


def print_table(runs: list[dict[str, Any]]) -> None:
    first = runs[0]
    print()
    print(
        f"voice loop latency, {first['turns']} turns per variant (end of turn: {first['turn_detection']}, "
        f"silence rule {first['eot_ms']} ms, "
        f"AEC {'on' if first['aec'] else 'off'}, echo loop-back {'on' if first['echo_loopback'] else 'off'})"
    )
    head = "".join(f"{r['variant'] + ' p50':>16s}{'p95':>8s}" for r in runs)
    print(f"{'measure (ms)':26s}{head}   goal")

    def row(name: str, key50: str, key95: str, goal: str = "", src: str = "") -> None:
        cells = ""
        for r in runs:
            d50, d95 = (r[src], r[src.replace("p50", "p95")]) if src else (r, r)
            v50, v95 = d50.get(key50), d95.get(key95)
            cells += f"{'-' if v50 is None else f'{v50:.0f}':>16s}{'-' if v95 is None else f'{v95:.0f}':>8s}"
        print(f"{name:26s}{cells}   {goal}")

    row("voice-to-voice", "v2v_ms_p50", "v2v_ms_p95", "≤ 600 / ≤ 900")
    row("barge-in", "bargein_ms_p50", "bargein_ms_p95", "≤ 120 / ≤ 200")
    print("v2v = transcript + llm_first_token + tts_first_audio + held + device_out; eot_wait gates a preemptive answer;")
    print("barge-in: bi_detect = onset → the loop's decision, bi_stop = → playback stopped, bi_device = → silent")
    for n in STAGES:
        if any(n in r["stages_ms_p50"] for r in runs):
            row("  " + n, n, n, src="stages_ms_p50")
    counts = (f"{r['variant']} {r['v2v_turns']}/{r['bargein_turns']}/{r['preemptive_turns']}" for r in runs)
    print("turns (v2v / barge-in / preemptive): " + ", ".join(counts))
    print("self-interruptions: " + ", ".join(f"{r['variant']} {r['self_interruptions']}" for r in runs))
    for r in runs:
        if r["failures"]:
            print(f"notes ({r['variant']}): " + "; ".join(r["failures"]))


VARIANTS = ("preemptive", "baseline")


async def amain(args: argparse.Namespace) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="parley-bench-") as tmp:
        work = Path(tmp)
        with pulse_server(work / "pulse") as server:
            mod = None
            if args.echo:
                mod = server.route_speaker_to_mic(gain_db=-10.0, latency_ms=20)
            for variant in args.variants:
                print(f"-- variant {variant}", flush=True)
                bench = Bench(server, args, work / variant, variant)
                results = await bench.run()
                runs.append(summarize(results, bench, args))
            if mod is not None:
                server.unload_module(mod)
    return runs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--turns", type=int, default=24)
    p.add_argument("--bargein-every", type=int, default=2, help="every N-th turn is a barge-in turn (0: none)")
    p.add_argument("--eot-ms", type=int, default=300, help="end-of-turn silence with --turn-detection silence (the app default is 500)")
    p.add_argument("--turn-detection", choices=["smart-turn", "silence"], default="smart-turn", help="end-of-turn rule (the app default)")
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, run in this order: {', '.join(VARIANTS)}")
    p.add_argument("--no-aec", action="store_true", help="run without the echo canceller")
    p.add_argument("--echo", action="store_true", help="loop the speaker back into the microphone at -10 dB")
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", action="store_true", help="explain failed turns")
    args = p.parse_args(argv)
    args.variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown or not args.variants:
        p.error(f"unknown variant(s) {unknown}; choose from {', '.join(VARIANTS)}")
    if not prepare():
        return 2
    runs = asyncio.run(amain(args))
    print_table(runs)
    if args.json:
        print(json.dumps({**runs[0], "variants": {r["variant"]: r for r in runs}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
