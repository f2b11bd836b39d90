"""Wake word detection on 16 kHz mono int16 PCM with microWakeWord models (``pymicro-wakeword``).

:class:`WakeWordDetector` is a streaming detector: :meth:`~WakeWordDetector.process` takes the next chunk of
``audio/L16; rate=16000; channels=1`` (any length; the capture path's 10–20 ms chunks are typical) and returns
the :class:`WakeWordDetection` s that fired in it, each stamped with the stream time (seconds of audio fed since
the start or the last :meth:`~WakeWordDetector.reset`) of the end of the chunk that completed it, which is a
little after the end of the spoken phrase (``bench/wake_word.py`` measures how much).

Cost: one 10 ms feature frame (the micro front end, C) per 10 ms of audio and one TensorFlow Lite inference per
30 ms; about 0.04 ms of CPU per 10 ms chunk and model on a laptop core, so :meth:`aprocess` runs it inline on the
event loop and moves to a worker thread only when the measured cost exceeds :data:`INLINE_BUDGET_S` per call
(a slow machine, several models).

Threshold: the model's own ``probability_cutoff``, or Parley's measured one (:data:`TUNED_THRESHOLD`), or the
caller's. Models: the four built into the wheel (:data:`BUILTIN`, Apache-2.0, by Kevin Ahrendt / the Open Home
Foundation), or a microWakeWord ``.json`` manifest with its ``.tflite`` beside it. Loading fails with a typed
error a user can act on: :class:`~genx.local.models.MissingPackageError` (the runtime is not installed),
:class:`WakeWordConfigError` (an unknown name or a bad threshold), :class:`~genx.local.models.ModelNotFoundError`
and :class:`WakeWordLoadError` (a manifest or model that is corrupt or not a streaming wake word model; checked
before the native interpreter sees it, which does not check for itself).

After a detection the model's probability stays high for a while (over a second for "hey mycroft"): a model
fires again only once its probability has fallen under :data:`REARM_BELOW` (it wavers around the threshold
before it falls) and ``refractory_s`` (default 1 s) has passed. One detector is one stream: not thread-safe, never share it.
"""

from __future__ import annotations

import abc
import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from genx.errors import GenxError
from genx.local.models import ModelLoadError, ModelNotFoundError, require_module, resource_path
from genx.local.pcm import TARGET_RATE, whole_samples

if TYPE_CHECKING:
    from pymicro_wakeword import MicroWakeWord, MicroWakeWordFeatures

BUILTIN: dict[str, str] = {"okay_nabu": "Okay Nabu", "hey_jarvis": "Hey Jarvis", "alexa": "Alexa", "hey_mycroft": "Hey Mycroft"}
DEFAULT_MODEL = "hey_jarvis"
INLINE_BUDGET_S = 0.001  # above this mean cost per call, aprocess() leaves the event loop
# Parley's thresholds where bench/wake_word.py measured the model's own cutoff as too strict: hey_jarvis at its
# 0.97 missed 3-9 % of Piper and 25 % of flite utterances, at 0.6 none of them; false accepts in 62 min of non-wake
# speech, music and noise: none at any threshold down to 0.5 in the first run, one (music) at 0.8 and below in a
# later one, none at 0.9 (models not listed keep their own cutoff)
TUNED_THRESHOLD: dict[str, float] = {"hey_jarvis": 0.6}
# beside openWakeWord confirmed by Whisper (``[loop] wake_word_engine = "both"``): openWakeWord hears what a stricter
# microWakeWord misses, and microWakeWord's false accepts (in music) are the ones left (bench/wake_word.py, three runs)
TUNED_BESIDE_CONFIRMED: dict[str, float] = {"hey_jarvis": 0.8}
REARM_BELOW = 0.5  # after a detection, a model fires again only once its probability fell under this
FEATURES = 40  # the micro front end's feature count per 10 ms frame (the models' input width)
_TFLITE_ID = b"TFL3"  # FlatBuffers file identifier of a TensorFlow Lite model (bytes 4..8)


class WakeWordConfigError(GenxError, ValueError):
    """A wake word setting that cannot work (unknown model name, threshold out of range)."""


class WakeWordLoadError(ModelLoadError):
    """A wake word model (manifest or ``.tflite``) that exists but cannot be loaded."""


@dataclass(frozen=True, slots=True)
class WakeWordDetection:
    model: str  # model id, e.g. "hey_jarvis"
    phrase: str  # what the user said, e.g. "Hey Jarvis"
    at_s: float  # stream time of the end of the chunk that completed the detection
    probability: float  # the model's smoothed probability when it fired


@dataclass(frozen=True, slots=True)
class _Manifest:
    id: str
    phrase: str
    tflite: Path
    cutoff: float
    window: int


def _manifest(model: str | Path) -> _Manifest:
    """The manifest of a built-in model name, or of a ``.json`` path."""
    name = str(model)
    if name in BUILTIN:
        path = resource_path("pymicro_wakeword", f"models/{name}.json")
    elif name.endswith(".json") or "/" in name:
        path = Path(name).expanduser()
        if not path.is_file():
            raise ModelNotFoundError(
                "wake word model manifest (.json)", path=path, hint="give a microWakeWord .json file or a built-in name"
            )
    else:
        raise WakeWordConfigError(f"unknown wake word model {name!r}; built in: {', '.join(BUILTIN)}, or the path of a microWakeWord .json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        micro = data["micro"]
        tflite = path.parent / str(data["model"])
        found = _Manifest(
            Path(str(data["model"])).stem,
            str(data["wake_word"]),
            tflite,
            float(micro["probability_cutoff"]),
            int(micro["sliding_window_size"]),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise WakeWordLoadError("wake word model manifest (.json)", path, exc) from exc
    if not tflite.is_file():
        raise ModelNotFoundError("wake word model (.tflite)", path=tflite, hint=f"it must sit next to {path.name}")
    check_tflite(tflite)
    return found


def check_tflite(path: Path) -> None:
    """:class:`WakeWordLoadError` unless ``path`` starts like a TensorFlow Lite file (the native interpreter
    does not check before it reads)."""
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError as exc:
        raise WakeWordLoadError("wake word model (.tflite)", path, exc) from exc
    if head[4:8] != _TFLITE_ID:
        raise WakeWordLoadError("wake word model (.tflite)", path, "not a TensorFlow Lite file")


def check_readable(lib: Any, path: Path) -> None:
    """:class:`WakeWordLoadError` unless TensorFlow Lite (``lib``, a loaded C library) can read the model at
    ``path``: the native interpreter dereferences a failed model load, so the file is tried on its own first."""
    probe = lib.TfLiteModelCreateFromFile(str(path).encode())
    if not probe:
        raise WakeWordLoadError("wake word model (.tflite)", path, "TensorFlow Lite cannot read it")
    lib.TfLiteModelDelete(probe)


def tflite_library() -> Path:
    """The TensorFlow Lite C library in ``pymicro-wakeword``'s wheel: every engine in the process loads this one."""
    return _tflite_library()


def _tflite_library() -> Path:
    return resource_path("pymicro_wakeword", "lib/libtensorflowlite_c.so")


def _load(m: _Manifest) -> MicroWakeWord:
    from pymicro_wakeword import MicroWakeWord
    from pymicro_wakeword.wakeword import TfLiteWakeWord

    lib_path = _tflite_library()
    try:
        lib = TfLiteWakeWord(lib_path).lib
    except OSError as exc:
        raise WakeWordLoadError("TensorFlow Lite runtime", lib_path, exc) from exc
    check_readable(lib, m.tflite)
    try:
        mww = MicroWakeWord(
            m.id,
            wake_word=m.phrase,
            tflite_model=m.tflite,
            probability_cutoff=m.cutoff,
            sliding_window_size=m.window,
            trained_languages=[],
            libtensorflowlite_c_path=lib_path,
        )
    except (ValueError, RuntimeError, OSError) as exc:
        raise WakeWordLoadError("wake word model (.tflite)", m.tflite, exc) from exc
    dims = [lib.TfLiteTensorDim(mww.input_tensor, i) for i in range(lib.TfLiteTensorNumDims(mww.input_tensor))]
    if len(dims) != 3 or dims[2] != FEATURES or lib.TfLiteTensorByteSize(mww.output_tensor) != 1:
        mww.close()
        raise WakeWordLoadError(
            "wake word model (.tflite)", m.tflite, f"input shape {dims} is not a streaming microWakeWord model's [1, n, {FEATURES}]"
        )
    return mww


class Trigger:
    """When one model's probabilities fire: above ``threshold`` while armed and ``refractory_s`` after the last
    detection; armed again once the probability fell under :data:`REARM_BELOW` (the phrase is over). Shared by
    every wake word engine (``genx.local.openwakeword`` too)."""

    __slots__ = ("armed", "last_at", "refractory_s", "threshold")

    def __init__(self, threshold: float, refractory_s: float) -> None:
        self.threshold = threshold
        self.refractory_s = refractory_s
        self.armed = True
        self.last_at = -1e9

    def fires(self, prob: float, at_s: float) -> bool:
        if prob < REARM_BELOW:
            self.armed = True
        elif prob > self.threshold and self.armed and at_s - self.last_at >= self.refractory_s:
            self.armed = False
            self.last_at = at_s
            return True
        return False

    def reset(self) -> None:
        self.armed = True
        self.last_at = -1e9


def check_settings(threshold: float | None, refractory_s: float) -> None:
    """:class:`WakeWordConfigError` for a threshold outside (0, 1) or a negative refractory time."""
    if threshold is not None and not 0.0 < threshold < 1.0:
        raise WakeWordConfigError(f"wake word threshold {threshold!r} must be between 0 and 1 (default: the model's own)")
    if refractory_s < 0:
        raise WakeWordConfigError(f"refractory_s {refractory_s!r} must be ≥ 0")


class _Model:
    __slots__ = ("frames", "manifest", "mww", "trigger")

    def __init__(self, manifest: _Manifest, threshold: float | None, refractory_s: float) -> None:
        self.manifest = manifest
        self.mww = _load(manifest)
        self.trigger = Trigger(TUNED_THRESHOLD.get(manifest.id, manifest.cutoff) if threshold is None else threshold, refractory_s)
        self.frames = 0  # feature frames fed; the model runs on every ``stride``-th and answers 0.0 in between

    def probability(self, features: Any) -> float | None:
        """The smoothed probability when this frame completed an inference, else None."""
        prob = self.mww.process_streaming_prob(features)
        self.frames += 1
        return prob if self.frames % self.mww.stride == 0 else None


class StreamDetector(abc.ABC):
    """What every wake word engine shares: the stream clock (samples fed), odd bytes carried to the next chunk,
    the mean cost per call, and :meth:`aprocess`. A subclass implements :meth:`_detect` on whole samples."""

    def __init__(self) -> None:
        self._samples = 0
        self._odd = b""
        self._cost_s = 0.0  # exponentially weighted mean CPU time per process() call
        self._calls = 0

    @property
    @abc.abstractmethod
    def phrases(self) -> list[str]: ...

    @property
    def stream_s(self) -> float:
        """Seconds of audio fed since the start or the last :meth:`reset`."""
        return self._samples / TARGET_RATE

    @property
    def mean_cost_s(self) -> float:
        return self._cost_s

    @abc.abstractmethod
    def _detect(self, data: bytes, at_s: float) -> list[WakeWordDetection]:
        """Run the engine on ``data`` (whole samples); ``at_s`` is the stream time at its end."""

    def process(self, pcm: bytes) -> list[WakeWordDetection]:
        """Feed the next chunk of 16 kHz mono int16 PCM; the detections it completed (usually none)."""
        t0 = time.perf_counter()
        data, self._odd = whole_samples(self._odd, pcm)
        self._samples += len(data) // 2
        out = self._detect(data, self.stream_s)
        cost = time.perf_counter() - t0
        self._calls += 1
        self._cost_s = cost if self._calls == 1 else 0.95 * self._cost_s + 0.05 * cost
        return out

    async def aprocess(self, pcm: bytes) -> list[WakeWordDetection]:
        """:meth:`process` from the event loop: inline while cheap, else in a worker thread (in order: await each)."""
        if self._cost_s <= INLINE_BUDGET_S:
            return self.process(pcm)
        return await asyncio.to_thread(self.process, pcm)

    def reset(self) -> None:
        """Start a new stream: forget buffered audio, model state and the clock."""
        self._samples = 0
        self._odd = b""

    def close(self) -> None:  # noqa: B027 (a hook: an engine that holds native state releases it here)
        """Release what the engine holds; the base holds nothing."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class WakeWordDetector(StreamDetector):
    """Streaming wake word detection with microWakeWord models for one audio stream (see the module docstring)."""

    def __init__(
        self, models: Sequence[str | Path] = (DEFAULT_MODEL,), *, threshold: float | None = None, refractory_s: float = 1.0
    ) -> None:
        super().__init__()
        if not models:
            raise WakeWordConfigError("no wake word model given")
        check_settings(threshold, refractory_s)
        require_module("pymicro_wakeword", "pymicro-wakeword", "wake word detection")
        from pymicro_wakeword import MicroWakeWordFeatures

        manifests = [_manifest(m) for m in models]
        self._models = [_Model(m, threshold, refractory_s) for m in manifests]
        self._features: MicroWakeWordFeatures = MicroWakeWordFeatures()

    @property
    def phrases(self) -> list[str]:
        return [m.manifest.phrase for m in self._models]

    @property
    def thresholds(self) -> list[float]:
        return [m.trigger.threshold for m in self._models]

    def _detect(self, data: bytes, at_s: float) -> list[WakeWordDetection]:
        out: list[WakeWordDetection] = []
        for features in self._features.process_streaming(data):
            for m in self._models:
                prob = m.probability(features)
                if prob is not None and m.trigger.fires(prob, at_s):
                    out.append(WakeWordDetection(m.manifest.id, m.manifest.phrase, at_s, float(prob)))
        return out

    def reset(self) -> None:
        super().reset()
        self._features.reset()
        for m in self._models:
            m.mww.reset()
            m.trigger.reset()
            m.frames = 0

    def close(self) -> None:
        for m in self._models:
            m.mww.close()


__all__ = [
    "BUILTIN",
    "DEFAULT_MODEL",
    "TUNED_BESIDE_CONFIRMED",
    "TUNED_THRESHOLD",
    "StreamDetector",
    "Trigger",
    "WakeWordConfigError",
    "WakeWordDetection",
    "WakeWordDetector",
    "WakeWordLoadError",
    "check_readable",
    "check_settings",
    "check_tflite",
    "tflite_library",
]
