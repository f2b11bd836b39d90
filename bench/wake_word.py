"""Wake word detection (``genx.local.wakeword``, microWakeWord models) on speech and noise generated here.

Measured:

* false accepts per hour: every built-in model runs over at least ``--minutes`` (default 60) of audio that
  contains none of the wake phrases: espeak-ng speech (12 voice / speed settings), flite speech (4 voices at
  3 speeds, when flite is installed) and Piper speech (the joe
  voice at several speeds and noise settings) of sentences drawn from a grammar and a list of assistant
  requests, near misses ("hey Travis", "a jar of this", ...), babble (three espeak voices at once),
  music-like tones (melodies and chords of harmonic notes), and noise (white, pink, brown, mains hum), some
  speech mixed with noise;
* false rejects: ``--positives`` (default 80) wake utterances "hey jarvis" (or ``--model``'s phrase) from
  Piper (speed, noise and pitch varied, alone or leading a request), flite (4 voices × 3 speeds, alone or
  leading a request) and espeak-ng (8 voices × speeds),
  half of them over noise at 10–20 dB SNR; a hit counts from the phrase's start to 1.5 s after its end;
* detection latency: the detection's stream time minus the end of the spoken phrase (last 10 ms frame above
  -45 dBFS) — the audio the detector needs after the phrase; the compute per chunk comes on top;
* CPU per second of audio (process CPU time of the detector alone) and per 20 ms chunk, for one model and
  for all four sharing one feature front end;
* the same for the phrase spotter (``genx.local.wake_spotter``: a short stretch of speech, then a pause, checked
  by Whisper) alone and beside microWakeWord (``[loop] wake_word_engine = "spotter"``), and for openWakeWord
  and "either engine" when ``pyopen-wakeword`` is installed; the Whisper check's wall time per candidate.

espeak-ng's default male voices (en-us, en-gb, en-029, en-gb-x-rp, +m3, +Annie) score about 0.0 on "hey jarvis" at
any speed: formant speech is far from the neural voices microWakeWord models are trained on; its false rejects are
reported in their own column so they do not hide how the detector does on more natural voices.

Audio is generated at bench time (nothing is downloaded) and fed as fast as the detector runs, in 20 ms
chunks; the clock is the audio's. The last line with ``--json`` is one JSON object.

Usage: ``python bench/wake_word.py [--minutes 60] [--positives 80] [--model hey_jarvis] [--seed 1] [--json]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FLITE = shutil.which("flite") is not None
sys.path.insert(0, str(ROOT))

from genx.local.wake_confirm import ConfirmedDetector  # noqa: E402
from genx.local.wake_ensemble import merge  # noqa: E402
from genx.local.wake_spotter import PhraseSpotter  # noqa: E402
from genx.local.wakeword import BUILTIN, StreamDetector, WakeWordDetection, WakeWordDetector  # noqa: E402
from genx.transformers.audiostream.pcm import resample  # noqa: E402

RATE = 16000
CHUNK = RATE * 20 // 1000 * 2  # bytes per 20 ms
HIT_AFTER_S = 1.5

ESPEAK_NEG = [(v, s) for v in ("en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-us+f2") for s in (140, 185)]
ESPEAK_POS = ["en-us", "en-gb", "en-us+f3", "en-us+f4", "en-us+m3", "en-gb-x-rp", "en-029", "en-us+Annie"]
PIPER_STYLES = [(ls, ns, nw) for ls in (0.85, 1.0, 1.2) for ns, nw in ((0.667, 0.8), (0.4, 0.5), (0.9, 1.0))]

REQUESTS = [
    "What is the weather like tomorrow in Lisbon?",
    "Set a timer for twelve minutes.",
    "Turn off the lights in the living room.",
    "Remind me to water the plants on Sunday.",
    "How many grams are in a pound?",
    "Play some quiet music while I read.",
    "What time does the bakery close tonight?",
    "Tell me a short story about a dragon.",
    "Can you spell the word necessary?",
    "Add milk, eggs and bread to my shopping list.",
    "Who wrote the novel about the white whale?",
    "How do I say thank you in Japanese?",
    "Translate good morning into Spanish.",
    "What is the capital of Australia?",
    "Call my brother when I get home.",
    "Is it going to rain this afternoon?",
    "Read my last message again, please.",
    "What is fifteen percent of eighty?",
    "Wake me up at half past six.",
    "How long should I boil an egg?",
]
NEAR_MISSES = [
    "Hey Travis, pass me the salt.",
    "Hey Marvin, are you coming?",
    "There is a jar of this jam in the pantry.",
    "The harvest was early this year.",
    "Hey, just a minute, please.",
    "Jars and vases were on the shelf.",
    "He is nervous about the service.",
    "Hey there, how is it going?",
    "Mister Davis arrived at noon.",
    "Charles Jarvis wrote a letter.",
]
SUBJECTS = "the old man|my neighbour|a small child|the teacher|our team|the doctor|my cousin|the pilot|a stranger|the cat".split("|")
VERBS = "found|painted|carried|forgot|wanted|repaired|described|ordered|borrowed|noticed".split("|")
OBJECTS = "a red umbrella|the broken radio|three letters|a warm blanket|the garden gate|an old map|the kitchen table|a paper boat".split(
    "|"
)
TAILS = "yesterday|after lunch|in the rain|before the meeting|near the station|on the way home|at the market|last winter".split("|")


def grammar_sentences(rng: np.random.Generator, n: int) -> list[str]:
    out = []
    for _ in range(n):
        s = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}."
        out.append(s[0].upper() + s[1:])
    return out


# -- speech ------------------------------------------------------------------------------------------------------


def espeak(text: str, voice: str, wpm: int) -> bytes:
    """16 kHz PCM of ``text`` (several sentences allowed) in an espeak-ng voice."""
    wav = subprocess.run(["espeak-ng", "-v", voice, "-s", str(wpm), "--stdout", text], capture_output=True, check=True, timeout=300).stdout
    data = wav[wav.index(b"data") + 8 :]  # espeak's streamed WAV header has no valid sizes
    return resample(data[: len(data) // 2 * 2], 22050, RATE)


FLITE_VOICES = ["kal16", "awb", "rms", "slt"]  # flite's US / Scottish male and US female voices (Debian: apt-get install flite)


def flite(text: str, voice: str, stretch: float = 1.0) -> bytes:
    """16 kHz PCM of ``text`` in a flite voice, ``stretch`` > 1 slower."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "say.wav"
        cmd = ["flite", "-voice", voice, "--setf", f"duration_stretch={stretch}", "-t", text, "-o", str(out)]
        subprocess.run(cmd, capture_output=True, check=True, timeout=300)
        with wave.open(str(out)) as w:
            rate, pcm = w.getframerate(), w.readframes(w.getnframes())
    return resample(pcm, rate, RATE)


class Piper:
    def __init__(self) -> None:
        from genx.local.piper_tts import PiperSynthesizer

        synth = PiperSynthesizer()
        self.voice = synth.voice.get()
        self.rate = synth.sample_rate

    def say(self, text: str, length_scale: float = 1.0, noise_scale: float = 0.667, noise_w: float = 0.8) -> bytes:
        from piper.config import SynthesisConfig

        cfg = SynthesisConfig(length_scale=length_scale, noise_scale=noise_scale, noise_w_scale=noise_w)
        pcm = b"".join(c.audio_int16_bytes for c in self.voice.synthesize(text, syn_config=cfg))
        return resample(pcm, self.rate, RATE)


def pitch(pcm: bytes, semitones: float) -> bytes:
    """Pitch (and tempo) shift by resampling: another voice height, the way a tape speeds up."""
    factor = 2 ** (semitones / 12)
    return resample(pcm, int(RATE * factor), RATE)


# -- noise and tones -----------------------------------------------------------------------------------------------


def to_pcm(x: np.ndarray) -> bytes:  # type: ignore[type-arg]
    return np.clip(x, -32768, 32767).astype("<i2").tobytes()


def colored_noise(rng: np.random.Generator, seconds: float, exponent: float, level: float) -> np.ndarray:  # type: ignore[type-arg]
    """1/f^exponent noise (0 white, 1 pink, 2 brown) at RMS ``level``."""
    n = int(RATE * seconds)
    spec = np.fft.rfft(rng.normal(size=n))
    f = np.fft.rfftfreq(n, 1 / RATE)
    f[0] = f[1]
    x = np.fft.irfft(spec / f ** (exponent / 2), n)
    return x / (np.sqrt(np.mean(x**2)) + 1e-9) * level


def music(rng: np.random.Generator, seconds: float) -> np.ndarray:  # type: ignore[type-arg]
    """Melodies and chords of harmonic notes with attack/decay envelopes, tempo and timbre varied."""
    out: list[np.ndarray] = []  # type: ignore[type-arg]
    total = 0
    while total < seconds * RATE:
        note_s = float(rng.uniform(0.12, 0.6))
        n = int(note_s * RATE)
        t = np.arange(n) / RATE
        roots = 220 * 2 ** (rng.integers(-12, 13, size=int(rng.integers(1, 4))) / 12)  # 1-3 voices: melody or chord
        harmonics = rng.uniform(0.1, 0.8, size=6) ** np.arange(1, 7)
        tone = sum(h * np.sin(2 * np.pi * r * (k + 1) * t) for r in roots for k, h in enumerate(harmonics))
        env = np.minimum(1, t / 0.01) * np.exp(-t * rng.uniform(1, 8))
        out.append(tone * env * rng.uniform(2000, 8000) / len(roots))
        total += n
    return np.concatenate(out)


def mix(speech: bytes, noise: np.ndarray, snr_db: float) -> bytes:  # type: ignore[type-arg]
    s = np.frombuffer(speech, dtype="<i2").astype(np.float64)
    n = np.resize(noise, s.size)
    ps, pn = np.mean(s**2) + 1e-9, np.mean(n**2) + 1e-9
    return to_pcm(s + n * np.sqrt(ps / pn / 10 ** (snr_db / 10)))


# -- corpora -------------------------------------------------------------------------------------------------------


@dataclass
class Segment:
    kind: str
    pcm: bytes


def negatives(rng: np.random.Generator, minutes: float, piper: Piper) -> Iterator[Segment]:
    """≥ ``minutes`` of non-wake audio, in segments of one kind each."""
    budget = minutes * 60
    share = {
        "espeak speech": 0.40 - (0.10 if FLITE else 0.0),
        "flite speech": 0.10 if FLITE else 0.0,
        "piper speech": 0.18,
        "near misses": 0.04,
        "babble": 0.06,
        "music": 0.14,
        "noise": 0.12,
        "speech+noise": 0.06,
    }
    done: dict[str, float] = dict.fromkeys(share, 0.0)
    texts = REQUESTS + grammar_sentences(rng, 400)

    def need(kind: str) -> bool:
        return done[kind] < share[kind] * budget

    def emit(kind: str, pcm: bytes) -> Segment:
        done[kind] += len(pcm) / 2 / RATE
        return Segment(kind, pcm)

    i = 0
    while need("espeak speech"):
        voice, wpm = ESPEAK_NEG[i % len(ESPEAK_NEG)]
        yield emit("espeak speech", espeak(" ".join(rng.choice(texts, 12)), voice, wpm))
        i += 1
    i = 0
    while need("flite speech"):
        voice = FLITE_VOICES[i % len(FLITE_VOICES)]
        yield emit("flite speech", flite(" ".join(rng.choice(texts, 8)), voice, [0.9, 1.0, 1.15][i % 3]))
        i += 1
    i = 0
    while need("piper speech"):
        ls, ns, nw = PIPER_STYLES[i % len(PIPER_STYLES)]
        yield emit("piper speech", piper.say(" ".join(rng.choice(texts, 4)), ls, ns, nw) + b"\x00\x00" * (RATE // 4))
        i += 1
    i = 0
    while need("near misses"):
        text = NEAR_MISSES[i % len(NEAR_MISSES)]
        if i % 2:
            yield emit("near misses", piper.say(text, *PIPER_STYLES[i % len(PIPER_STYLES)]) + b"\x00\x00" * (RATE // 2))
        else:
            yield emit("near misses", espeak(text, *ESPEAK_NEG[i % len(ESPEAK_NEG)]) + b"\x00\x00" * (RATE // 2))
        i += 1
    while need("babble"):
        parts = [
            np.frombuffer(espeak(" ".join(rng.choice(texts, 6)), v, int(rng.integers(140, 190))), dtype="<i2")
            for v in ("en-us", "en-gb+f3", "en-029")
        ]
        n = min(p.size for p in parts)
        yield emit("babble", to_pcm(sum(p[:n].astype(np.float64) for p in parts) / 2))
    while need("music"):
        yield emit("music", to_pcm(music(rng, 60)))
    k = 0
    while need("noise"):
        kind = k % 4
        if kind == 3:
            t = np.arange(RATE * 60) / RATE
            hum = 3000 * np.sin(2 * np.pi * 50 * t) + 1500 * np.sin(2 * np.pi * 100 * t) + 800 * np.sin(2 * np.pi * 150 * t)
            yield emit("noise", to_pcm(hum + colored_noise(rng, 60, 1, 300)))
        else:
            yield emit("noise", to_pcm(colored_noise(rng, 60, float(kind), float(rng.uniform(500, 5000)))))
        k += 1
    i = 0
    while need("speech+noise"):
        speech = espeak(" ".join(rng.choice(texts, 8)), *ESPEAK_NEG[i % len(ESPEAK_NEG)])
        noise = colored_noise(rng, len(speech) / 2 / RATE, float(i % 3), 1000) if i % 2 else music(rng, len(speech) / 2 / RATE)
        yield emit("speech+noise", mix(speech, noise, float(rng.uniform(5, 20))))
        i += 1


@dataclass
class Positive:
    source: str
    pcm: bytes
    noisy: bool
    alone: bool  # the phrase alone (its end is the end of the audio: latency is measured on these)


def positives(rng: np.random.Generator, count: int, phrase: str, piper: Piper) -> list[Positive]:
    """``count`` wake utterances: Piper (styles, pitch, carrier phrases), flite's four voices at three speeds (when
    flite is installed) and espeak-ng voices: 40 / 30 / 30 % (60 / 0 / 40 % without flite)."""
    out: list[Positive] = []
    carriers = ["", ", what time is it?", "", ", turn on the lights."]
    n_piper = round(count * (0.4 if FLITE else 0.6))
    n_flite = round(count * 0.3) if FLITE else 0
    for i in range(n_piper):
        ls, ns, nw = PIPER_STYLES[i % len(PIPER_STYLES)]
        carrier = carriers[i % len(carriers)]
        pcm = piper.say(phrase + (carrier or str(rng.choice([".", "!", "?"]))), ls, ns, nw)
        shift = [0.0, -2.0, 2.0, -3.5, 3.0][i % 5]
        out.append(Positive(f"piper{f' {shift:+.1f} st' if shift else ''}", pitch(pcm, shift) if shift else pcm, False, not carrier))
    for i in range(n_flite):
        voice = FLITE_VOICES[i % len(FLITE_VOICES)]
        stretch = [1.0, 0.85, 1.2][(i // len(FLITE_VOICES)) % 3]
        carrier = carriers[(i // 3) % len(carriers)]
        out.append(Positive(f"flite {voice} x{stretch}", flite(phrase.lower() + carrier, voice, stretch), False, not carrier))
    for i in range(count - n_piper - n_flite):
        voice = ESPEAK_POS[i % len(ESPEAK_POS)]
        wpm = [140, 170, 200][(i // len(ESPEAK_POS)) % 3]
        out.append(Positive(f"espeak {voice} {wpm}", espeak(phrase.lower(), voice, wpm), False, True))
    for j, p in enumerate(out):  # every other one over noise or music at 10-20 dB SNR
        if j % 2:
            secs = len(p.pcm) / 2 / RATE
            noise = colored_noise(rng, secs, float(j % 3), 1000) if j % 4 == 1 else music(rng, secs)
            out[j] = Positive(p.source, mix(p.pcm, noise, float(rng.uniform(10, 20))), True, p.alone)
    return out


# -- measuring -----------------------------------------------------------------------------------------------------


def spoken_end_s(pcm: bytes) -> float:
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float32)
    frames = x[: len(x) // 160 * 160].reshape(-1, 160)
    loud = np.flatnonzero(np.sqrt((frames**2).mean(axis=1)) > 32768 * 10 ** (-45 / 20))
    return float((loud[-1] + 1) * 160 / RATE) if loud.size else 0.0


class TimedCheck:
    """The app's Whisper check of openWakeWord's detections, timed per call (wall and CPU)."""

    def __init__(self) -> None:
        from genx.local.wake_confirm import WhisperWakeCheck
        from genx.local.whisper import WhisperDecoder

        self.inner = WhisperWakeCheck(WhisperDecoder())
        self.wall_s: list[float] = []
        self.cpu_s = 0.0

    def prepare(self) -> None:
        self.inner.prepare()

    def verdict(self, pcm: bytes, phrase: str) -> tuple[bool, str]:
        t0, c0 = time.perf_counter(), time.process_time()
        out = self.inner.verdict(pcm, phrase)
        self.wall_s.append(time.perf_counter() - t0)
        self.cpu_s += time.process_time() - c0
        return out


@dataclass
class Probe:
    """One detector over the whole corpus: its detections and CPU time. With ``confirmed`` (a ``ConfirmedDetector``
    around the engine), ``hits`` are the confirmed detections and ``rejected`` the ones the check dropped."""

    label: str
    det: StreamDetector | ConfirmedDetector
    hits: list[tuple[str, WakeWordDetection]] = field(default_factory=list)
    cpu_s: float = 0.0
    rejected: list[tuple[str, WakeWordDetection, str]] = field(default_factory=list)
    readings: list[tuple[str, WakeWordDetection, str]] = field(default_factory=list)  # confirmed: what Whisper read
    check: TimedCheck | None = None  # the check's CPU time is not the engine's

    def feed(self, kind: str, pcm: bytes) -> None:
        c0, k0 = time.process_time(), self.check.cpu_s if self.check else 0.0
        for i in range(0, len(pcm), CHUNK):
            self.hits += [(kind, h) for h in self.det.process(pcm[i : i + CHUNK])]
        self.cpu_s += time.process_time() - c0 - ((self.check.cpu_s - k0) if self.check else 0.0)
        if isinstance(self.det, ConfirmedDetector):
            self.rejected += [(kind, c.detection, c.reason) for c in self.det.checked if not c.confirmed]
            self.readings += [(kind, c.detection, c.reason) for c in self.det.checked if c.confirmed]
            self.det.checked.clear()

    def unconfirmed(self, label: str) -> Probe:
        """The engine's own detections (confirmed or not): what it does without the check."""
        hits = sorted(self.hits + [(k, d) for k, d, _ in self.rejected], key=lambda kh: kh[1].at_s)
        return Probe(label, self.det, hits, self.cpu_s)


def probes(model: str, check: TimedCheck | None) -> list[Probe]:
    """All four models at their own thresholds (one shared front end), ``model`` alone at each sweep threshold, and
    openWakeWord's ``model`` at each of its sweep thresholds (when ``pyopen-wakeword`` is installed), each with
    the Whisper check around it (its unconfirmed detections are kept: :meth:`Probe.unconfirmed`)."""
    out = [Probe("all four models", WakeWordDetector(list(BUILTIN)))]
    out += [Probe(micro_label(model, t), WakeWordDetector([model], threshold=t)) for t in SWEEP]
    if check is not None:
        out.append(Probe(SPOTTER + CONFIRMED, ConfirmedDetector(PhraseSpotter(BUILTIN[model]), check), check=check))
    if OWW and check is not None:
        from genx.local.openwakeword import OpenWakeWordDetector

        out += [
            Probe(oww_label(t, True), ConfirmedDetector(OpenWakeWordDetector([model], threshold=t), check), check=check) for t in SWEEP_OWW
        ]
    return out


def with_unconfirmed(ps: list[Probe]) -> list[Probe]:
    """``ps`` and, after each confirmed openWakeWord probe, the same engine without the check."""
    out = []
    for p in ps:
        if isinstance(p.det, ConfirmedDetector):
            out.append(p.unconfirmed(p.label.removesuffix(CONFIRMED)))
        out.append(p)
    return out


SWEEP: list[float | None] = [None, 0.97, 0.9, 0.8, 0.7, 0.6, 0.5]  # None: Parley's default (TUNED_THRESHOLD or the model's)
SWEEP_OWW: list[float | None] = [None, 0.5]  # openWakeWord, ~10x microWakeWord's CPU each: two points
OWW = importlib.util.find_spec("pyopen_wakeword") is not None
CONFIRMED = " + whisper"


SPOTTER = "phrase spotter"
#: microWakeWord thresholds scored beside the Whisper-confirmed phrase spotter (every model of it permissively licensed)
SPOTTER_PAIRS: list[float | None] = [None, 0.8]


def spotter_label(m: float | None) -> str:
    return f"either @ {'default' if m is None else m} + {SPOTTER}{CONFIRMED}"


def oww_label(t: float | None, confirmed: bool = False) -> str:
    return f"openwakeword @ {'default' if t is None else t}{CONFIRMED if confirmed else ''}"


def either(micro: Probe, oww: Probe) -> list[tuple[str, WakeWordDetection]]:
    """The detections of both engines on one stream as the app's ``AnyOfDetector`` combines them (``merge``)."""
    kinds = {id(h): k for k, h in micro.hits + oww.hits}
    return [(kinds[id(h)], h) for h in merge([h for _, h in micro.hits + oww.hits], {}, 1.0)]


def run_negatives(
    rng: np.random.Generator, minutes: float, piper: Piper, model: str, check: TimedCheck | None
) -> tuple[list[Probe], dict[str, float], float]:
    ps = probes(model, check)
    by_kind: dict[str, float] = {}
    gen_s = 0.0
    t0 = time.perf_counter()
    for seg in negatives(rng, minutes, piper):
        gen_s += time.perf_counter() - t0
        for p in ps:
            p.feed(seg.kind, seg.pcm)
        by_kind[seg.kind] = by_kind.get(seg.kind, 0.0) + len(seg.pcm) / 2 / RATE
        t0 = time.perf_counter()
    return with_unconfirmed(ps), by_kind, gen_s


def run_positives(model: str, items: list[Positive], check: TimedCheck | None) -> dict[str, list[dict[str, object]]]:
    """Each utterance with 1.5 s of lead-in and 2.5 s after it, in one stream; per sweep probe and utterance: hit,
    latency (and "either" rows: microWakeWord at its default or openWakeWord at each of its thresholds)."""
    stream = bytearray()
    spans: list[tuple[float, float]] = []
    for it in items:
        start = len(stream) / 2 / RATE + 1.5
        stream += b"\x00\x00" * int(RATE * 1.5) + it.pcm + b"\x00\x00" * int(RATE * 2.5)
        spans.append((start, start + spoken_end_s(it.pcm)))

    def rows_of(hits: list[tuple[str, WakeWordDetection]]) -> list[dict[str, object]]:
        rows = []
        for it, (start, end) in zip(items, spans, strict=True):
            got = [h.at_s for _, h in hits if start <= h.at_s <= end + HIT_AFTER_S]
            latency = round(got[0] - end, 3) if got and it.alone else None
            rows.append({"source": it.source, "noisy": it.noisy, "hit": bool(got), "latency_s": latency})
        return rows

    out: dict[str, list[dict[str, object]]] = {}
    done = {}
    fed = probes(model, check)[1:]
    for p in fed:
        p.feed("wake", bytes(stream))
        p.det.close()
        for _, d, why in p.rejected:
            print(f"  {p.label}: wake utterance at {d.at_s:.1f} s not confirmed: {why}")
    for p in with_unconfirmed(fed):
        out[p.label] = rows_of(p.hits)
        done[p.label] = p
    for m, t, c in EITHER if OWW else []:
        out[either_label(m, t, c)] = rows_of(either(done[micro_label(model, m)], done[oww_label(t, c)]))
    for m in SPOTTER_PAIRS if check is not None else []:
        out[spotter_label(m)] = rows_of(either(done[micro_label(model, m)], done[SPOTTER + CONFIRMED]))
    return out


def either_label(m: float | None, t: float | None, confirmed: bool = False) -> str:
    return f"either @ {'default' if m is None else m} + {oww_label(t, confirmed).removeprefix('openwakeword @ ')}"


def micro_label(model: str, t: float | None) -> str:
    return f"{model} @ {'default' if t is None else t}"


# "either engine" pairs (microWakeWord threshold, openWakeWord threshold), scored on the probes' own detections
EITHER: list[tuple[float | None, float | None, bool]] = [(m, t, c) for m in (None, 0.8) for t in SWEEP_OWW for c in (False, True)]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def rate(rows: list[dict[str, object]]) -> float:
    return sum(1 for r in rows if not r["hit"]) / max(1, len(rows))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=60.0, help="minutes of non-wake audio (false accepts)")
    ap.add_argument("--positives", type=int, default=80, help="wake utterances (false rejects)")
    ap.add_argument("--model", default="hey_jarvis", choices=list(BUILTIN), help="the model whose false rejects and latency are measured")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if shutil.which("espeak-ng") is None:
        raise SystemExit("espeak-ng is needed: apt-get install espeak-ng")
    rng = np.random.default_rng(args.seed)
    t_start = time.perf_counter()
    piper = Piper()

    items = positives(rng, args.positives, BUILTIN[args.model], piper)
    check = TimedCheck()
    pos = run_positives(args.model, items, check)
    pos_checks = list(check.wall_s) if check else []
    neg, by_kind, gen_s = run_negatives(rng, args.minutes, piper, args.model, check)
    neg_s = sum(by_kind.values())
    hours = neg_s / 3600
    default = f"{args.model} @ default"

    print(f"wake word bench: {neg_s / 60:.1f} min of non-wake audio, {len(items)} wake utterances of {BUILTIN[args.model]!r}")
    print("  non-wake audio: " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in by_kind.items()))
    fa_by_model = {m: [(k, h.at_s) for k, h in neg[0].hits if h.model == m] for m in BUILTIN}
    print(f"\n{'model (own threshold)':<24} {'false accepts':>13} {'per hour':>9}   in")
    for m, fas in fa_by_model.items():
        print(f"{m:<24} {len(fas):>13} {len(fas) / hours:>9.2f}   {', '.join(sorted({k for k, _ in fas})) or '-'}")
    print(f"\n{args.model + ' threshold':<40} {'FA/h':>6} {'FR all':>7} {'FR piper':>9} {'FR flite':>9} {'FR espeak':>10} {'FR noisy':>9}")
    sweep: dict[str, dict[str, object]] = {}
    negs = [(p.label, p.hits) for p in neg[1:]]
    by_label = {p.label: p for p in neg}
    negs += [
        (either_label(m, t, c), either(by_label[micro_label(args.model, m)], by_label[oww_label(t, c)]))
        for m, t, c in (EITHER if OWW else [])
    ]
    negs += [(spotter_label(m), either(by_label[micro_label(args.model, m)], by_label[SPOTTER + CONFIRMED])) for m in SPOTTER_PAIRS]
    for label, hits in negs:
        rows = pos[label]
        fam = {f: rate([r for r in rows if str(r["source"]).startswith(f)]) for f in ("piper", "flite", "espeak")}
        noisy = rate([r for r in rows if r["noisy"]])
        sweep[label] = {
            "fa_per_h": round(len(hits) / hours, 2),
            "fa_kinds": sorted(k for k, _ in hits),
            "fr": round(rate(rows), 3),
            "fr_piper": round(fam["piper"], 3),
            "fr_flite": round(fam["flite"], 3),
            "fr_espeak": round(fam["espeak"], 3),
            "fr_noisy": round(noisy, 3),
        }
        s = sweep[label]
        frs = f"{s['fr']:>7.1%} {s['fr_piper']:>9.1%} {s['fr_flite']:>9.1%} {s['fr_espeak']:>10.1%} {s['fr_noisy']:>9.1%}"
        print(f"{label:<40} {s['fa_per_h']:>6.2f} {frs}")
    rows = pos[default]
    missed = sorted(str(r["source"]) for r in rows if not r["hit"])
    print(f"  missed at the default threshold: {', '.join(missed) or '-'}")
    lat = [float(str(r["latency_s"])) for r in rows if r["latency_s"] is not None]
    if lat:
        p50, p95 = statistics.median(lat) * 1000, pct(lat, 0.95) * 1000
        print(f"\ndetection latency after the phrase ends (audio time, n={len(lat)}): p50 {p50:.0f} ms, p95 {p95:.0f} ms")
    one = next(p for p in neg if p.label == default)
    chunks = neg_s * 50
    print(f"CPU: {one.cpu_s / neg_s * 1000:.2f} ms per audio second with one model ({one.cpu_s * 1000 / chunks:.3f} ms per 20 ms chunk);")
    print(f"     {neg[0].cpu_s / neg_s * 1000:.2f} ms per audio second with all four ({neg[0].cpu_s * 1000 / chunks:.3f} ms per chunk)")
    oww_one = next((p for p in neg if p.label == oww_label(None)), None)
    oww_cpu = round(oww_one.cpu_s / neg_s * 1000, 3) if oww_one else None
    if oww_one:
        print(f"     {oww_cpu:.2f} ms per audio second with openWakeWord's {args.model} (one TensorFlow Lite thread)")
    for p in neg:
        for kind, d, why in p.rejected:
            print(f"  {p.label}: not confirmed at {d.at_s:.1f} s in {kind}: {why}")
        for kind, d, why in p.readings:
            print(f"  {p.label}: confirmed at {d.at_s:.1f} s in {kind}: {why}")
    checks = sorted(check.wall_s) if check else []
    check_ms = (
        {"n": len(checks), "p50": round(statistics.median(checks) * 1000), "p95": round(pct(checks, 0.95) * 1000)} if checks else None
    )
    if check_ms:
        print(f"Whisper check of a candidate: p50 {check_ms['p50']} ms, p95 {check_ms['p95']} ms wall (n={len(checks)})")
    lat_by = {}
    for label in (
        oww_label(None),
        oww_label(0.5, True),
        either_label(None, None),
        either_label(0.8, 0.5, True),
        *map(spotter_label, SPOTTER_PAIRS),
    ):
        got = [float(str(r["latency_s"])) for r in pos.get(label, []) if r["latency_s"] is not None]
        if got:
            lat_by[label] = {"p50": round(statistics.median(got) * 1000), "p95": round(pct(got, 0.95) * 1000)}
            print(f"detection latency, {label}: p50 {lat_by[label]['p50']} ms, p95 {lat_by[label]['p95']} ms (n={len(got)})")
    print(f"bench took {time.perf_counter() - t_start:.0f} s (generating the non-wake audio: {gen_s:.0f} s)")
    result = {
        "negative_minutes": round(neg_s / 60, 1),
        "negative_minutes_by_kind": {k: round(v / 60, 1) for k, v in by_kind.items()},
        "false_accepts_per_hour": {m: round(len(v) / hours, 2) for m, v in fa_by_model.items()},
        "false_accept_kinds": {m: [k for k, _ in v] for m, v in fa_by_model.items()},
        "model": args.model,
        "positives": len(items),
        "false_reject_rate": sweep[default]["fr"],
        "sweep": sweep,
        "missed": missed,
        "latency_ms_p50": round(statistics.median(lat) * 1000) if lat else None,
        "latency_ms_p95": round(pct(lat, 0.95) * 1000) if lat else None,
        "cpu_ms_per_audio_s_one_model": round(one.cpu_s / neg_s * 1000, 3),
        "cpu_ms_per_chunk_one_model": round(one.cpu_s * 1000 / chunks, 4),
        "cpu_ms_per_audio_s_four_models": round(neg[0].cpu_s / neg_s * 1000, 3),
        "cpu_ms_per_audio_s_openwakeword": oww_cpu,
        "latency_ms_by_variant": lat_by,
        "whisper_check_ms": check_ms,
        "whisper_checks_on_wake_utterances": len(pos_checks),
        "goals": {"false_accepts_per_hour_max": 0.5, "false_reject_rate_max": 0.05},
    }
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
