"""Smart Turn v3.2 (Pipecat's open end-of-turn audio model) on onnxruntime.

The weights ship in the ``pipecat-ai`` wheel (BSD-2) at
``pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx``; they are found
through :mod:`genx.resources` without importing ``pipecat`` (install the wheel
with ``pip install --no-deps pipecat-ai``: Parley needs none of its dependencies).

Input, as the model was trained (read from pipecat's own v3 inference code and
the ONNX graph): one tensor ``input_features`` of shape ``(batch, 80, 800)``
float32, the 80-bin Whisper log-mel spectrogram (25 ms window, 10 ms hop) of
exactly the **last 8 s** of the utterance at 16 kHz, **zero-padded at the
front** when shorter, computed after normalising the waveform to zero mean and
unit variance (Whisper's ``do_normalize``), with the trailing STFT frame
dropped (8 s → 800 frames). The log-mel itself is faster-whisper's
:class:`~faster_whisper.feature_extractor.FeatureExtractor` (``padding=0``).
Output ``logits`` ``(batch, 1)`` is already a sigmoid probability that the turn
is complete.

Cost: ~6 ms of features + ~30-75 ms of model on one core (the session uses
``threads`` intra-op threads, default 1: the other core keeps synthesizing).
The session is loaded once per process (:class:`~genx.local.models.SharedModel`);
onnxruntime allows concurrent ``run`` calls, so checks do not take a lock.
"""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from genx.local.models import LocalModelError, PackagedModel, SharedModel, find_model, require_module
from genx.turn.detector import RATE, TurnModelError, TurnVerdict, pcm_to_float, score_on_thread

if TYPE_CHECKING:
    from faster_whisper.feature_extractor import FeatureExtractor

    from genx.model import ModelContext

log = logging.getLogger(__name__)

DEFAULT_SMART_TURN = PackagedModel(
    "Smart Turn v3.2 model",
    "Smart Turn v3 ONNX model",
    "pipecat",
    "audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx",
    "--no-deps pipecat-ai",
)

WINDOW_SECONDS = 8
WINDOW_SAMPLES = WINDOW_SECONDS * RATE
N_MELS = 80
N_FRAMES = WINDOW_SAMPLES // 160  # 10 ms hop, trailing frame dropped
INPUT_NAME = "input_features"
_NORMALIZE_EPS = 1e-7  # Whisper's zero-mean / unit-variance epsilon
_TODO = 'reinstall it with: pip install --no-deps --force-reinstall pipecat-ai, or set [loop] turn_detection = "silence"'


@cache
def _extractor() -> FeatureExtractor:
    require_module("faster_whisper", "faster-whisper", "the Smart Turn features")
    from faster_whisper.feature_extractor import FeatureExtractor

    return FeatureExtractor(feature_size=N_MELS, sampling_rate=RATE, hop_length=160, chunk_length=WINDOW_SECONDS, n_fft=400)


def smart_turn_input(samples: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    """The model's input for float samples at 16 kHz: ``(1, 80, 800)`` float32 (see the module docstring)."""
    x = np.asarray(samples, dtype=np.float32)[-WINDOW_SAMPLES:]
    if x.size < WINDOW_SAMPLES:
        x = np.concatenate([np.zeros(WINDOW_SAMPLES - x.size, dtype=np.float32), x])
    x = (x - x.mean()) / np.sqrt(x.var() + _NORMALIZE_EPS)
    mel = _extractor()(x, padding=0)
    return np.ascontiguousarray(mel[np.newaxis], dtype=np.float32)


def check_session(session: Any, path: Path) -> None:
    """:class:`TurnModelError` unless the session has the one input Smart Turn v3 takes."""
    inputs = [(i.name, list(i.shape)) for i in session.get_inputs()]
    if len(inputs) != 1 or inputs[0][0] != INPUT_NAME or inputs[0][1][1:] != [N_MELS, N_FRAMES]:
        raise TurnModelError(
            f"Smart Turn model {path}",
            f"not a Smart Turn v3 model: its inputs are {inputs}, expected {INPUT_NAME} of shape (batch, {N_MELS}, {N_FRAMES})",
            _TODO,
        )


def smart_turn_model(path: Path, threads: int) -> SharedModel[Any]:
    def load() -> Any:
        require_module("onnxruntime", "onnxruntime", "the Smart Turn model")
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.inter_op_num_threads = 1
        opts.intra_op_num_threads = threads
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3
        try:
            session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own (InvalidProtobuf, Fail, NoSuchFile…)
            raise TurnModelError(f"Smart Turn model {path}", f"onnxruntime cannot load it ({exc})", _TODO) from exc
        check_session(session, path)
        return session

    return SharedModel(("smart-turn", str(path.resolve()), threads), load, f"Smart Turn model {path.name}")


class SmartTurnDetector:
    """Smart Turn v3.2 on the audio alone: complete when its probability is at least ``threshold``.

    ``path`` None = the packaged model; a missing file raises :class:`TurnModelError`
    here, a corrupt one on :meth:`warm` (or the first :meth:`check`).
    """

    __slots__ = ("model", "path", "threshold")

    def __init__(self, path: str | Path | None = None, *, threshold: float = 0.5, threads: int = 1) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"Smart Turn threshold {threshold!r} must be between 0 and 1")
        try:
            self.path = find_model(path, DEFAULT_SMART_TURN)
        except LocalModelError as exc:
            raise TurnModelError("Smart Turn v3.2 model", str(exc), 'or set [loop] turn_detection = "silence"') from exc
        self.threshold = threshold
        self.model = smart_turn_model(self.path, max(1, threads))

    @property
    def name(self) -> str:
        return "smart-turn"

    async def warm(self) -> None:
        await self.model.warm()
        await score_on_thread(lambda: _extractor())

    def probability(self, audio: bytes) -> float:
        """Blocking: the model's probability that ``audio`` (16 kHz int16 PCM) ends a turn."""
        features = smart_turn_input(pcm_to_float(audio))
        out = self.model.get().run(None, {INPUT_NAME: features})
        return float(np.asarray(out[0]).reshape(-1)[0])

    async def check(self, audio: bytes, transcript: str | None = None, *, context: ModelContext | None = None) -> TurnVerdict:
        p, cost, elapsed = await score_on_thread(lambda: self.probability(audio))
        return TurnVerdict(p >= self.threshold, p, self.name, cost, elapsed)


__all__ = [
    "DEFAULT_SMART_TURN",
    "INPUT_NAME",
    "N_FRAMES",
    "N_MELS",
    "WINDOW_SAMPLES",
    "SmartTurnDetector",
    "check_session",
    "smart_turn_input",
]
