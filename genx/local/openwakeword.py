"""Wake word detection with openWakeWord models (``pyopen-wakeword``): a second engine beside microWakeWord.

Why a second engine: microWakeWord's models (:mod:`genx.local.wakeword`) score about 0.0 on espeak-ng's
formant voices, whatever the threshold. openWakeWord's classifiers sit on a speech embedding model trained on
far more varied speech, and they hear those voices (``bench/wake_word.py`` measures both, and either of them,
side by side). They cost more: the embedding model takes about 4.7 ms of CPU per 80 ms step, ~6 % of one core
(microWakeWord: ~0.3 %), so the app runs this engine on a thread of its own
(:class:`genx.local.wake_ensemble.BackgroundDetector`), never on the event loop.

:class:`OpenWakeWordDetector` has :class:`~genx.local.wakeword.WakeWordDetector`'s interface and firing rule
(:class:`~genx.local.wakeword.Trigger`): a detection is stamped with the stream time of the end of the chunk
that completed it. It runs one feature front end (melspectrogram and embedding models) for all its models,
on one TensorFlow Lite thread (the library's default of several threads spends ~60 % more CPU for the same
embeddings), with the TensorFlow Lite library of ``pymicro-wakeword`` when that is installed (one runtime per
process).

Models: the five inside the wheel (:data:`BUILTIN`) or the path of an openWakeWord ``.tflite`` classifier.
Licence: ``pyopen-wakeword``'s code is Apache-2.0; openWakeWord's pre-trained wake word models are
CC BY-NC-SA 4.0 (non-commercial), so this engine is opt-in (``[loop] wake_word_engine``), in its own extra,
and never part of the release bundle.

Does not own: combining engines or threads (:mod:`genx.local.wake_ensemble`), the gate (``genx.agentkit.wake``).
"""

from __future__ import annotations

import ctypes
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from genx.errors import GenxError
from genx.local.models import ModelNotFoundError, require_module
from genx.local.wakeword import (
    StreamDetector,
    Trigger,
    WakeWordConfigError,
    WakeWordDetection,
    WakeWordLoadError,
    check_readable,
    check_settings,
    check_tflite,
    tflite_library,
)

log = logging.getLogger(__name__)

BUILTIN: dict[str, str] = {
    "okay_nabu": "Okay Nabu",
    "hey_jarvis": "Hey Jarvis",
    "alexa": "Alexa",
    "hey_mycroft": "Hey Mycroft",
    "hey_rhasspy": "Hey Rhasspy",
}
DEFAULT_THRESHOLD = 0.5  # openWakeWord's own default
# bench/wake_word.py, hey_jarvis over two runs (125 min of non-wake audio): at 0.95, 2 false accepts (a near miss,
# speech in noise), at 0.9 3; missed espeak-ng utterances 21-29 % at 0.95, 12-25 % at 0.9. The fewest false accepts
# of the points measured (a first probe's near miss scored 0.91: it fired at 0.9 and at the library's 0.5)
TUNED_THRESHOLD: dict[str, float] = {"hey_jarvis": 0.95}
TFLITE_THREADS = 1
_VERSION = re.compile(r"v\d[\w.]*", re.IGNORECASE)  # a version tag in a model's file name, "hey_computer_v0.1"


def phrase_of(model: str | Path) -> str:
    """The phrase of a built-in model, or one read from a custom file's name (``hey_computer.tflite``)."""
    name = str(model)
    if name in BUILTIN:
        return BUILTIN[name]
    words = Path(name).stem.replace("-", "_").split("_")
    return " ".join(w.capitalize() for w in words if w and not _VERSION.fullmatch(w))


def _model_file(model: str | Path) -> tuple[str, Path | None]:
    """(id, path): a built-in name has no path; a path is checked to exist and to be a TensorFlow Lite file."""
    name = str(model)
    if name in BUILTIN:
        return name, None
    if not (name.endswith(".tflite") or "/" in name):
        raise WakeWordConfigError(
            f"unknown openWakeWord model {name!r}; built in: {', '.join(BUILTIN)}, or the path of an openWakeWord .tflite"
        )
    path = Path(name).expanduser()
    if not path.is_file():
        raise ModelNotFoundError("openWakeWord model (.tflite)", path=path, hint="give an openWakeWord .tflite file or a built-in name")
    check_tflite(path)
    return path.stem, path


def _library() -> Path | None:
    """``pymicro-wakeword``'s TensorFlow Lite library, or None (``pyopen-wakeword`` then loads its own)."""
    try:
        return tflite_library()
    except GenxError:
        return None


def _runtime(lib: Path | None) -> Any:
    """The loaded TensorFlow Lite C library (``lib``, else ``pyopen-wakeword``'s own)."""
    from pyopen_wakeword.openwakeword import _find_tensorflowlite_c
    from pyopen_wakeword.wakeword import TfLiteWakeWord

    path = lib or _find_tensorflowlite_c()
    try:
        return TfLiteWakeWord(path).lib
    except OSError as exc:
        raise WakeWordLoadError("TensorFlow Lite runtime", path, exc) from exc


def _one_thread(features: Any) -> None:
    """Re-create the front end's two interpreters with :data:`TFLITE_THREADS` threads (``pyopen-wakeword`` 1.1
    creates them with the library's default). Leaves them as they are when its attributes are not there."""
    from pyopen_wakeword.openwakeword import EMB_SHAPE, MEL_SHAPE

    lib = features.lib  # each front end loads its own ctypes.CDLL, so its function prototypes are declared here, per object
    if not all(hasattr(features, f"{n}_{a}") for n in ("mel", "emb") for a in ("model", "interpreter", "input_tensor", "output_tensor")):
        log.info("pyopen-wakeword's front end has another shape: its interpreters keep their default threads")
        return
    lib.TfLiteInterpreterOptionsCreate.restype = ctypes.c_void_p
    lib.TfLiteInterpreterOptionsSetNumThreads.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.TfLiteInterpreterOptionsDelete.argtypes = [ctypes.c_void_p]
    lib.TfLiteInterpreterResizeInputTensor.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32]
    opts = lib.TfLiteInterpreterOptionsCreate()
    lib.TfLiteInterpreterOptionsSetNumThreads(opts, TFLITE_THREADS)
    try:
        for name, shape in (("mel", MEL_SHAPE), ("emb", EMB_SHAPE)):
            interpreter = lib.TfLiteInterpreterCreate(getattr(features, f"{name}_model"), opts)
            dims = (ctypes.c_int32 * len(shape))(*shape)
            lib.TfLiteInterpreterResizeInputTensor(interpreter, ctypes.c_int32(0), dims, ctypes.c_int32(len(shape)))
            lib.TfLiteInterpreterAllocateTensors(interpreter)
            lib.TfLiteInterpreterDelete(getattr(features, f"{name}_interpreter"))
            setattr(features, f"{name}_interpreter", interpreter)
            setattr(features, f"{name}_input_tensor", lib.TfLiteInterpreterGetInputTensor(interpreter, ctypes.c_int32(0)))
            setattr(features, f"{name}_output_tensor", lib.TfLiteInterpreterGetOutputTensor(interpreter, ctypes.c_int32(0)))
    finally:
        lib.TfLiteInterpreterOptionsDelete(opts)


class _Head:
    __slots__ = ("id", "oww", "phrase", "trigger")

    def __init__(self, model: str | Path, threshold: float | None, refractory_s: float, lib: Path | None) -> None:
        from pyopen_wakeword.const import Model
        from pyopen_wakeword.openwakeword import OpenWakeWord

        self.id, path = _model_file(model)
        self.phrase = phrase_of(model)
        if path is not None:
            check_readable(_runtime(lib), path)
        try:
            if path is None:
                self.oww = OpenWakeWord.from_builtin(Model(self.id), libtensorflowlite_c_path=lib)
            else:
                self.oww = OpenWakeWord.from_model(path, lib)
        except (ValueError, RuntimeError, OSError) as exc:
            raise WakeWordLoadError("openWakeWord model (.tflite)", path or self.id, exc) from exc
        th = TUNED_THRESHOLD.get(self.id, DEFAULT_THRESHOLD) if threshold is None else threshold
        self.trigger = Trigger(th, refractory_s)


class OpenWakeWordDetector(StreamDetector):
    """Streaming wake word detection with openWakeWord models for one audio stream (see the module docstring)."""

    def __init__(
        self, models: Sequence[str | Path] = ("hey_jarvis",), *, threshold: float | None = None, refractory_s: float = 1.0
    ) -> None:
        super().__init__()
        if not models:
            raise WakeWordConfigError("no wake word model given")
        check_settings(threshold, refractory_s)
        require_module("pyopen_wakeword", "pyopen-wakeword", "the openWakeWord wake word engine")
        from pyopen_wakeword.openwakeword import OpenWakeWordFeatures

        lib = _library()
        for m in models:
            _model_file(m)  # config errors before any native load
        try:
            self._features = OpenWakeWordFeatures.from_builtin(libtensorflowlite_c_path=lib)
        except (ValueError, RuntimeError, OSError) as exc:
            raise WakeWordLoadError("openWakeWord feature models", lib or "pyopen-wakeword", exc) from exc
        _one_thread(self._features)
        self._heads = [_Head(m, threshold, refractory_s, lib) for m in models]

    @property
    def phrases(self) -> list[str]:
        return [h.phrase for h in self._heads]

    @property
    def thresholds(self) -> list[float]:
        return [h.trigger.threshold for h in self._heads]

    def _detect(self, data: bytes, at_s: float) -> list[WakeWordDetection]:
        out: list[WakeWordDetection] = []
        for embedding in self._features.process_streaming(data):
            for h in self._heads:
                for prob in h.oww.process_streaming(embedding):
                    if h.trigger.fires(prob, at_s):
                        out.append(WakeWordDetection(h.id, h.phrase, at_s, float(prob)))
        return out

    def reset(self) -> None:
        super().reset()
        self._features.reset()
        for h in self._heads:
            h.oww.reset()
            h.trigger.reset()

    def close(self) -> None:
        for h in self._heads:
            h.oww.close()
        self._features.close()


__all__ = ["BUILTIN", "DEFAULT_THRESHOLD", "TUNED_THRESHOLD", "OpenWakeWordDetector", "phrase_of"]
