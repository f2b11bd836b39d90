"""Turn-taking of the whole voice loop, silence rule vs Smart Turn, measured on recorded audio.

Runs ``parley``'s loop (:class:`app.headless.Session`, the app defaults, offline
stack) on a private PulseAudio server (``tests/pulse.py``), once per end-of-turn
detector (``[loop] turn_detection`` = ``silence`` and ``smart-turn``), and plays five
sets of speech it synthesizes itself (Piper joe and espeak-ng voices, some with
noise; :mod:`bench.turn_sets`) into the virtual microphone in real time, recording
the microphone and the speaker (:mod:`bench.turn_runs` says how each is measured):

* (a) complete questions → **voice-to-voice**: the last voiced sample of the
  question → the first audible sample of the answer, with where the time goes
  (the turn's ``TurnMetrics`` stages: eot wait, asr, turn check, llm first token,
  tts first audio, device);
* (b) sentences with a mid-sentence pause of 500–1500 ms → **cut-off rate**: Parley
  made any sound before the sentence really ended;
* (c) backchannels and coughs while Parley tells a story → **false-stop rate**: the
  answer was cut, or the speaker silent > 1 s before its end;
* (d) real interruptions while Parley tells a story → **caught rate**, onset →
  ducked (−20 dB) and onset → silent;
* (e) stories with the speaker looped back into the microphone at −12 dB, each in
  a fresh session (the models kept) → **self-interruptions** (goal 0).

Sets a and b run with the app's system prompt; c, d and e with a storyteller prompt
(as the integration tests do) so the answer lasts.

Usage: ``python bench/turn_taking.py [--sets a,b,c,d,e] [--n 20] [--variants silence,smart-turn] [--quick] [--json]``.
With ``--json`` the last line is one JSON object: the default detector's (smart-turn)
``v2v_ms_p50``, ``v2v_ms_p95``, ``cutoff_rate``, ``backchannel_stop_rate``,
``interrupt_caught_rate``, ``duck_ms_p50``, ``stop_ms_p50``, ``turn_model_ms_p50``,
``self_interruptions`` … at the top level, every variant under ``variants``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pulse import PA_MIC, PA_SPEAKER, PulseServer, pulse_server  # noqa: E402

from bench.live import STAGES, prepare  # noqa: E402
from bench.turn_runs import Item, TurnTakingRun  # noqa: E402
from bench.turn_sets import SETS, STORYTELLER, Material  # noqa: E402
from genx.agentkit.events import TurnMetrics  # noqa: E402
from genx.agentkit.metrics import LatencyStats  # noqa: E402
from genx.agentkit.store import ConversationStore  # noqa: E402

VARIANTS = ("silence", "smart-turn")
DEFAULT_VARIANT = "smart-turn"  # the app's default [loop] turn_detection
ECHO_GAIN_DB = -12.0


def new_session(
    variant: str, store: Path, stack: Any = None, ducking: bool | None = None, asr: str | None = None, listen: bool = True
) -> Any:
    from app.headless import Session
    from app.settings import Settings

    settings = Settings()
    settings.loop.turn_detection = variant  # type: ignore[assignment]
    if ducking is not None:
        settings.loop.backchannel_ducking = ducking
    if asr:
        settings.loop.asr = asr
    if not listen:  # the ASR does not listen for the stop phrases over the answer (genx.local.whisper_verify)
        for spec in settings.asr:
            if spec.name == settings.loop.asr:
                spec.options = {**spec.options, "listen_margin": 0.0}
    session = Session(settings, input_device=PA_MIC, output_device=PA_SPEAKER, store=ConversationStore(store))
    session.stack = stack
    return session


def show(i: int, it: Item, t0: float) -> None:
    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.0f}"

    got = {
        "a": f"v2v {ms(it.v2v_ms)}" + (" CUT-OFF" if it.cut_off else ""),
        "b": f"v2v {ms(it.v2v_ms)}" + (" CUT-OFF" if it.cut_off else "") + (f" reopened {it.reopened}" if it.reopened else ""),
        "c": "STOPPED" if it.stopped else "kept talking" if it.stopped is not None else "-",
        "d": ("caught" if it.stopped else "MISSED" if it.stopped is not None else "-") + f" duck {ms(it.duck_ms)} stop {ms(it.stop_ms)}",
        "e": f"self-interruptions {it.self_interruptions}, onsets {it.self_onsets}",
    }[it.set]
    line = f"  {it.set} {i + 1:2d} {time.monotonic() - t0:5.0f}s {got:34s} {it.label}"
    print(line + (f"  ({it.note})" if it.note else ""), flush=True)


async def run_variant(server: PulseServer, variant: str, args: argparse.Namespace, work: Path, mat: Material) -> dict[str, Any]:
    run = TurnTakingRun(server, new_session(variant, work / "store", ducking=args.ducking, asr=args.asr, listen=args.listen))
    run.verbose = args.verbose
    items: dict[str, list[Item]] = {}
    run.start_recording()
    open_session = run.session
    t0 = time.monotonic()
    try:
        await run.start_session()
        warm = await run.question("a", mat.clip(("Hello there, how are you?",), 0, noisy=False))
        print(f"  warm-up turn: v2v {warm.v2v_ms or 0:.0f} ms (not counted)", flush=True)
        for name in [s for s in args.sets if s in ("a", "b")]:
            items[name] = []
            for i, clip in enumerate(mat.build(name, args.n)):
                items[name].append(await run.question(name, clip))
                show(i, items[name][-1], t0)
        stack = run.session.stack
        stack.generator.resolve(stack.generator_name).system_prompt = STORYTELLER
        for name in [s for s in args.sets if s in ("c", "d")]:
            items[name] = []
            for i, (q, clip) in enumerate(zip(mat.build(name, args.n), mat.during(name, args.n), strict=True)):
                items[name].append(await run.during_answer(name, q, clip))
                show(i, items[name][-1], t0)
        if "e" in args.sets:
            await open_session.close()
            open_session = None
            items["e"] = []
            mod = server.route_speaker_to_mic(gain_db=ECHO_GAIN_DB, latency_ms=20)
            try:
                for i, q in enumerate(mat.build("e", args.n)):
                    open_session = new_session(variant, work / "store", stack, ducking=args.ducking, asr=args.asr, listen=args.listen)
                    await run.start_session(open_session)
                    items["e"].append(await run.echo_answer(q))
                    await open_session.close()
                    open_session = None
                    show(i, items["e"][-1], t0)
            finally:
                server.unload_module(mod)
    finally:
        if open_session is not None:
            await open_session.close()
        run.stop_recording()
    return summarize(variant, items, run)


def _stats(name: str, values: list[float | None]) -> tuple[float | None, float | None, int]:
    s = LatencyStats(name)
    s.extend(values)
    return (round(s.p50, 1), round(s.p95, 1), len(s)) if len(s) else (None, None, 0)


def _rate(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


def summarize(variant: str, items: dict[str, list[Item]], run: TurnTakingRun) -> dict[str, Any]:
    a, b, c, d, e = ([it for it in items.get(s, []) if it.counted] for s in SETS)
    out: dict[str, Any] = {"variant": variant, "items": {s: len(items[s]) for s in items}}
    whole = [it for it in a if not it.cut_off]
    out["v2v_ms_p50"], out["v2v_ms_p95"], out["v2v_n"] = _stats("v2v", [it.v2v_ms for it in whole])
    stages = {n: _stats(n, [it.stages.get(n) for it in whole]) for n in STAGES}
    out["stages_ms_p50"] = {n: s[0] for n, s in stages.items() if s[2]}
    out["stages_ms_p95"] = {n: s[1] for n, s in stages.items() if s[2]}
    out["ended_early"] = sum(it.ended_early for it in whole)
    out["question_cutoffs"] = sum(bool(it.cut_off) for it in a)
    out["cutoff_rate"] = _rate([bool(it.cut_off) for it in b])
    out["cutoffs"], out["paused_n"] = sum(bool(it.cut_off) for it in b), len(b)
    out["paused_v2v_ms_p50"], out["paused_v2v_ms_p95"], _ = _stats("pv2v", [it.v2v_ms for it in b if not it.cut_off])
    out["reopened"] = sum(it.reopened for it in b)
    out["paused_split_turns"] = sum(it.turns > 1 for it in b)
    out["backchannel_stop_rate"] = _rate([bool(it.stopped) for it in c])
    out["backchannel_stops"], out["backchannel_n"] = sum(bool(it.stopped) for it in c), len(c)
    out["interrupt_caught_rate"] = _rate([bool(it.stopped) for it in d])
    out["interrupts_caught"], out["interrupt_n"] = sum(bool(it.stopped) for it in d), len(d)
    out["duck_ms_p50"], out["duck_ms_p95"], out["duck_n"] = _stats("duck", [it.duck_ms for it in d])
    out["stop_ms_p50"], out["stop_ms_p95"], out["stop_n"] = _stats("stop", [it.stop_ms for it in d])
    checks = [m.turn_check_ms for m in run.of(TurnMetrics)]
    out["turn_model_ms_p50"], out["turn_model_ms_p95"], out["turn_model_n"] = _stats("turn_model", checks)
    out["self_interruptions"] = sum(it.self_interruptions for it in e) if "e" in items else None
    out["self_onsets"], out["echo_n"] = sum(it.self_onsets for it in e), len(e)
    out["self_interruptions_other_sets"] = sum(it.self_interruptions for it in a + b + c + d)
    out["notes"] = [f"{it.set}: {it.note} — {it.label}" for s in items.values() for it in s if it.note]
    return out


def print_table(runs: list[dict[str, Any]], n: int) -> None:
    print()
    print(f"turn taking, up to {n} items per set, app defaults (offline stack, AEC on, preemptive answers)")
    print(f"{'measure':34s}" + "".join(f"{r['variant'] + ' p50':>18s}{'p95':>8s}" for r in runs) + "   goal")

    def ms_row(name: str, key: str, goal: str = "", src: str = "") -> None:
        cells = ""
        for r in runs:
            v50, v95 = (r[src].get(key), r[src.replace("p50", "p95")].get(key)) if src else (r[f"{key}_p50"], r[f"{key}_p95"])
            cells += f"{'-' if v50 is None else f'{v50:.0f}':>18s}{'-' if v95 is None else f'{v95:.0f}':>8s}"
        print(f"{name:34s}{cells}   {goal}")

    def count_row(name: str, hits: str, of: str, goal: str = "") -> None:
        cells = ""
        for r in runs:
            h, total = r[hits], r[of]
            cells += f"{f'{h}/{total} ({100 * h / total:.0f}%)' if total else '-':>26s}"
        print(f"{name:34s}{cells}   {goal}")

    ms_row("(a) voice-to-voice ms", "v2v_ms", "≤ 450 / ≤ 700")
    for st in STAGES:
        if any(st in r["stages_ms_p50"] for r in runs):
            ms_row(f"      {st}", st, src="stages_ms_p50")
    count_row("(a) ended early by the detector", "ended_early", "v2v_n")
    count_row("(b) cut-offs at a mid-sentence pause", "cutoffs", "paused_n", "≤ 5%")
    ms_row("(b) v2v after the real end ms", "paused_v2v_ms")
    count_row("(c) backchannel/cough false stops", "backchannel_stops", "backchannel_n", "≤ 10%")
    count_row("(d) real interruptions caught", "interrupts_caught", "interrupt_n", "≥ 95%")
    ms_row("(d) onset → ducked (−20 dB) ms", "duck_ms", "p50 ≤ 80")
    ms_row("(d) onset → silent ms", "stop_ms", "p50 ≤ 400")
    ms_row("turn model call → verdict ms", "turn_model_ms")
    if all(r["self_interruptions"] is not None for r in runs):
        count_row("(e) self-interruptions / stories", "self_interruptions", "echo_n", "0")
    print("stage sum: v2v = transcript + llm_first_token + tts_first_audio + held + device_out; eot_wait, asr, turn_check overlap")
    for r in runs:
        print(
            f"{r['variant']}: (b) reopened turns {r['reopened']}, split into two turns {r['paused_split_turns']}; "
            f"(e) onsets heard while speaking {r['self_onsets']}; self-interruptions in a-d {r['self_interruptions_other_sets']}"
        )
        for note in r["notes"]:
            print(f"  note ({r['variant']}) {note}")


async def amain(args: argparse.Namespace) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="parley-turn-bench-") as tmp:
        work = Path(tmp)
        mat = Material()
        with pulse_server(work / "pulse") as server:
            for variant in args.variants:
                print(f"-- turn_detection = {variant}", flush=True)
                runs.append(await run_variant(server, variant, args, work / variant, mat))
    return runs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sets", default=",".join(SETS), help="comma-separated sets to run: a,b,c,d,e")
    p.add_argument("--n", type=int, default=None, help="items per set (default 20; 4 with --quick)")
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, run in this order: {', '.join(VARIANTS)}")
    p.add_argument("--quick", action="store_true", help="a smoke run: 4 items per set")
    p.add_argument("--listen", choices=("on", "off"), default="on", help="off: the ASR does not listen for stop phrases over the answer")
    p.add_argument("--ducking", choices=("on", "off"), default=None, help="override [loop] backchannel_ducking (default: the app's)")
    p.add_argument("--asr", default=None, help="override [loop] asr, e.g. asr/whisper-tiny-en (default: the app's)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", action="store_true", help="notes with the loop's events around each clip of sets c and d")
    args = p.parse_args(argv)
    args.n = args.n if args.n is not None else 4 if args.quick else 20
    args.ducking = None if args.ducking is None else args.ducking == "on"
    args.listen = args.listen == "on"
    args.sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    args.variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not args.sets or any(s not in SETS for s in args.sets):
        p.error(f"--sets: choose from {', '.join(SETS)}")
    if not args.variants or any(v not in VARIANTS for v in args.variants):
        p.error(f"--variants: choose from {', '.join(VARIANTS)}")
    if args.n < 1:
        p.error("--n must be at least 1")
    if not prepare():
        return 2
    runs = asyncio.run(amain(args))
    print_table(runs, args.n)
    if args.json:
        top = next((r for r in runs if r["variant"] == DEFAULT_VARIANT), runs[0])
        print(json.dumps({**top, "variants": {r["variant"]: r for r in runs}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
