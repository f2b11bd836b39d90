"""The offline default stack on this machine: VAD, streaming ASR, local LLM and Piper TTS.

Measured (median and p95 over ``--reps`` runs, default 10):

* model load: each model's first load in this process (n = 1; the OS file cache may be warm);
* VAD: webrtcvad + utterance state machine per 30 ms frame, and the whole ``VadTransformer``
  (stream machinery included) per frame, on 30 s of Piper speech with pauses;
* ASR: one decode (what a partial costs) of 2 / 5 / 10 s of speech; final latency (utterance EOS
  → final transcript) for 2 / 5 / 10 s utterances pushed at once with partials off, and for a 5 s
  utterance plus the VAD's end silence fed at real-time pace with partials on (``asr_final_ms_p50``:
  what a user waits for after the VAD closed the utterance);
* LLM (SmolLM2-135M Q4_1 by default): time to first token and decode tokens/s for short
  questions (a different question each run, so only the system prompt is cached);
* TTS (Piper joe-medium): time to first audio for a ~10-word sentence and real-time factor;
* RSS of the process with all four models loaded.

The speech is Piper's; all runs are offline. ``--json`` prints one JSON object as the last line.

Usage: ``python bench/offline_stack.py [--reps N] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from genx.chunk import MessageChunk, Text
from genx.errors import Done, Truncated
from genx.generators.llamacpp import LlamaCppGenerator
from genx.local.asr import FINAL, AsrSettings, AsrTransformer, WhisperDecoder
from genx.local.piper_tts import PiperSynthesizer
from genx.local.vad import UtteranceDetector, VadSettings, VadTransformer, WebRtcClassifier
from genx.model import ModelContextBuilder
from genx.stream import StreamBuilder, collect, stream_of
from genx.transformers.audiostream.pcm import resample

SENTENCES = (
    "The quick brown fox jumps over the lazy dog.",
    "Please turn on the lights in the kitchen.",
    "What is the weather like in Paris today?",
    "Set a timer for ten minutes and tell me when it is done.",
    "I would like a cup of hot tea with lemon and honey.",
    "Can you remind me to call my mother tomorrow morning?",
    "The train leaves from platform seven at noon.",
    "Open the window because it is too warm in here.",
    "My favorite color is green and my sister likes blue.",
    "How far is the nearest train station from here?",
    "Read me the latest news about the football match.",
    "We walked along the beach until the sun went down.",
)
QUESTIONS = (
    "What is the capital of France?",
    "How many legs does a spider have?",
    "What color is the sky on a clear day?",
    "Name a fruit that is yellow.",
    "What do bees make?",
    "How many days are in a week?",
    "What is the opposite of hot?",
    "Which animal says moo?",
    "What do you use to write on paper?",
    "What is frozen water called?",
    "Where does the sun rise?",
    "What is two plus two?",
)


@dataclass
class Row:
    name: str
    unit: str
    values: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else float("nan")

    @property
    def p95(self) -> float:
        if not self.values:
            return float("nan")
        v = sorted(self.values)
        return v[min(len(v) - 1, max(0, round(0.95 * (len(v) - 1))))]


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def pcm_chunks(pcm: bytes, stream_id: str, chunk_ms: int = 20) -> list[MessageChunk]:
    step = 32 * chunk_ms
    return [MessageChunk.blob("audio/L16; rate=16000", pcm[i : i + step], stream_id=stream_id) for i in range(0, len(pcm), step)]


async def bench(reps: int, log: Callable[[str], None]) -> tuple[list[Row], dict[str, float]]:
    rows: list[Row] = []
    rss0 = rss_mb()

    # -- loads ----------------------------------------------------------------------
    log("loading models …")
    synth = PiperSynthesizer()
    decoder = WhisperDecoder()
    llm = LlamaCppGenerator()
    rows.append(Row("load: webrtcvad", "ms", [timed(lambda: WebRtcClassifier(2))]))
    rows.append(Row("load: whisper tiny.en int8", "ms", [timed(decoder.model.get)]))
    rows.append(Row("load: SmolLM2-135M Q4_1", "ms", [timed(llm.model.get)]))
    rows.append(Row("load: piper joe-medium", "ms", [timed(synth.voice.get)]))
    voice: Any = synth.voice.get()

    # speech material (16 kHz) from Piper
    speech = [resample(b"".join(c.audio_int16_bytes for c in voice.synthesize(s)), 22050, 16000) for s in SENTENCES]
    gap = b"\x00\x00" * (16000 // 2)
    long_pcm = b"".join(s + gap for s in speech)
    while len(long_pcm) < 32000 * 30:
        long_pcm += long_pcm

    # -- VAD ------------------------------------------------------------------------
    log("VAD …")
    frame = 960
    frames = [long_pcm[i : i + frame] for i in range(0, 32000 * 30 - frame + 1, frame)]
    vad_frame = Row("VAD: webrtcvad + detector / 30 ms frame", "µs")
    vad_stream = Row("VAD: VadTransformer / 30 ms frame", "µs")
    for _ in range(reps):
        clf = WebRtcClassifier(2)
        det = UtteranceDetector(VadSettings())
        t0 = time.perf_counter()
        for f in frames:
            det.feed(f, clf.is_speech(f))
        vad_frame.values.append((time.perf_counter() - t0) / len(frames) * 1e6)
        chunks = pcm_chunks(long_pcm[: 32000 * 30], "mic", chunk_ms=30)
        t0 = time.perf_counter()
        await collect(await VadTransformer().transform(stream_of(*chunks)))
        vad_stream.values.append((time.perf_counter() - t0) / len(chunks) * 1e6)
    rows += [vad_frame, vad_stream]

    # -- ASR ------------------------------------------------------------------------
    log("ASR …")
    decoder.decode(np.zeros(16000, dtype=np.float32), True)
    for sec in (2, 5, 10):
        clip = np.frombuffer(long_pcm[: 32000 * sec], dtype="<i2").astype(np.float32) / 32768
        r = Row(f"ASR: one decode of {sec} s (partial cost)", "ms")
        for _ in range(reps):
            r.values.append(timed(lambda clip=clip: decoder.decode(clip, False)))  # type: ignore[misc]
        rows.append(r)
    asr_alone = AsrTransformer(decoder, AsrSettings(partials=False))
    for sec in (2, 5, 10):
        r = Row(f"ASR: final latency, {sec} s utterance, pushed at once", "ms")
        pcm = long_pcm[: 32000 * sec]
        for i in range(reps):
            r.values.append(await final_latency(asr_alone, pcm, f"u{sec}-{i}", paced=False))
        rows.append(r)
    paced = Row("ASR: final latency, 5 s utterance, real-time with partials", "ms")
    asr = AsrTransformer(decoder)
    end_silence = b"\x00\x00" * (16 * VadSettings().end_silence_ms)  # what the VAD keeps before it closes an utterance
    for i in range(reps):
        utterance = long_pcm[32000 * i : 32000 * (i + 5)] + end_silence
        paced.values.append(await final_latency(asr, utterance, f"p{i}", paced=True))
    rows.append(paced)

    # -- LLM ------------------------------------------------------------------------
    log("LLM …")
    ttft = Row("LLM: time to first token", "ms")
    tps = Row("LLM: decode speed", "tokens/s")
    await drain_llm(llm, "Hello!")  # warm the system-prompt prefix
    for i in range(reps):
        first, rate = await drain_llm(llm, QUESTIONS[i % len(QUESTIONS)])
        ttft.values.append(first)
        if rate > 0:
            tps.values.append(rate)
    rows += [ttft, tps]

    # -- TTS ------------------------------------------------------------------------
    log("TTS …")
    first_audio = Row("TTS: time to first audio, ~10 words", "ms")
    rtf = Row("TTS: real-time factor (synthesis / audio)", "x")
    await synth.warm()
    for i in range(reps):
        text = SENTENCES[i % len(SENTENCES)]
        t0 = time.perf_counter()
        first = None
        n = 0
        async for block in synth.synthesize(text):
            if first is None:
                first = (time.perf_counter() - t0) * 1000
            n += len(block)
        total = time.perf_counter() - t0
        first_audio.values.append(first or float("nan"))
        rtf.values.append(total / (n / 2 / synth.sample_rate))
    rows += [first_audio, rtf]

    rss = rss_mb()
    rows.append(Row("process RSS, all models loaded", "MB", [rss]))
    rows.append(Row("process RSS before loading models", "MB", [rss0]))
    summary = {
        "asr_final_ms_p50": round(paced.median, 1),
        "asr_final_alone_5s_ms_p50": round(
            rows[[r.name for r in rows].index("ASR: final latency, 5 s utterance, pushed at once")].median, 1
        ),
        "asr_decode_5s_ms_p50": round(rows[[r.name for r in rows].index("ASR: one decode of 5 s (partial cost)")].median, 1),
        "vad_us_per_frame_p50": round(vad_frame.median, 2),
        "llm_ttft_ms_p50": round(ttft.median, 1),
        "llm_tokens_per_s": round(tps.median, 1),
        "tts_first_audio_ms_p50": round(first_audio.median, 1),
        "tts_rtf_p50": round(rtf.median, 4),
        "rss_mb": round(rss, 1),
        "cpu_count": float(os.cpu_count() or 0),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    return rows, summary


async def final_latency(asr: AsrTransformer, pcm: bytes, sid: str, paced: bool) -> float:
    src = StreamBuilder()
    out = await asr.transform(src.stream)
    src.push(MessageChunk.bos(sid))
    chunks = pcm_chunks(pcm, sid)
    t_start = time.perf_counter()
    for i, c in enumerate(chunks):
        src.push(c)
        if paced:
            delay = t_start + (i + 1) * 0.02 - time.perf_counter()
            await asyncio.sleep(max(0.0, delay))
    t_eos = time.perf_counter()
    src.push(MessageChunk.eos(sid))
    src.done()
    while True:
        c = await out.next()
        if c.label == FINAL and isinstance(c.part, Text):
            latency = (time.perf_counter() - t_eos) * 1000
            break
    await out.close()
    return latency


async def drain_llm(llm: LlamaCppGenerator, question: str) -> tuple[float, float]:
    ctx = ModelContextBuilder().user(question).params(max_tokens=64, temperature=0.0).build()
    t0 = time.perf_counter()
    stream = await llm.generate_stream("offline/bench", ctx)
    first = last = 0.0
    n = 0
    while True:
        try:
            c = await stream.next()
        except (Done, Truncated):
            break
        if isinstance(c.part, Text):
            now = time.perf_counter()
            if n == 0:
                first = now
            last = now
            n += 1
    rate = (n - 1) / (last - first) if n > 1 and last > first else 0.0
    return (first - t0) * 1000, rate


def print_table(rows: list[Row]) -> None:
    width = max(len(r.name) for r in rows)
    print(f"{'measure':<{width}}  {'n':>3}  {'median':>10}  {'p95':>10}  unit")
    for r in rows:
        print(f"{r.name:<{width}}  {len(r.values):>3}  {r.median:>10.2f}  {r.p95:>10.2f}  {r.unit}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=10, help="runs per measurement (default 10)")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("faster_whisper").setLevel(logging.WARNING)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    rows, summary = asyncio.run(bench(max(1, args.reps), log))
    print_table(rows)
    print(f"machine: {os.cpu_count()} CPUs, 1-min load average {summary['load_avg_1m']}")
    if args.json:
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
