"""Local (offline) models as genx transformers: VAD, streaming ASR and Piper TTS.

Owns: finding the offline models in their pip packages or at a configured path
(:mod:`genx.local.models`, including the process-wide load-once cache and the
typed "model not found / not loadable" errors), the VAD transformer
(:mod:`genx.local.vad`, webrtcvad frames or Silero VAD v6 frames from
:mod:`genx.local.silero_vad`), the faster-whisper streaming ASR transformer
(:mod:`genx.local.asr`: settings in :mod:`~genx.local.asr_settings`, one call in
:mod:`~genx.local.asr_call`, one utterance in :mod:`~genx.local.asr_utterance`, partial
stabilisation in :mod:`genx.local.partials`),
the Piper synthesizer for the streamkit TTS pipeline (:mod:`genx.local.piper_tts`,
text cleanup in :mod:`genx.local.speakable`), the wake word engines (microWakeWord in
:mod:`genx.local.wakeword`, ``pymicro-wakeword``; openWakeWord in :mod:`genx.local.openwakeword`;
either one and a thread of their own in :mod:`genx.local.wake_ensemble`; detections confirmed by
Whisper in :mod:`genx.local.wake_confirm`; the phrase said alone, spotted by the shape of speech, in
:mod:`genx.local.wake_spotter`), and two small shared pieces: the
16 kHz mono input format (:mod:`genx.local.pcm`), reading utterance routes
(:mod:`genx.local.route_input`, the VAD's and the ASR's) and the per-call task wiring of
a transform (:mod:`genx.local.pump`); and the release build's converters of model files
(:mod:`genx.local.ct2_int8`: Whisper with int8 weights; :mod:`genx.local.onnx_half`: ONNX
weights stored as float16), which the app never runs.

Does not own: the in-process llama.cpp generator (``genx.generators.llamacpp``,
which uses :mod:`genx.local.models` for discovery), the TTS segmentation and
interrupt machinery (``genx.transformers.streamkit`` / ``genx.transformers.tts``),
audio devices, where the wake word sits on the capture path (``genx.agentkit``), and
which model is chosen (config / ``genx.modelloader``).

Importing this package never imports a model runtime (webrtcvad, onnxruntime, faster-whisper,
piper, llama.cpp, pymicro-wakeword, pyopen-wakeword): each is imported when a model is first loaded, so a missing
runtime shows up as a typed :class:`~genx.local.models.MissingPackageError`.
"""

from genx.local.models import (
    DEFAULT_LLM,
    DEFAULT_PIPER_VOICE,
    DEFAULT_WHISPER,
    LocalModelError,
    MissingPackageError,
    ModelLoadError,
    ModelNotFoundError,
    PackagedModel,
    SharedModel,
    find_model,
    resource_path,
)

__all__ = [
    "DEFAULT_LLM",
    "DEFAULT_PIPER_VOICE",
    "DEFAULT_WHISPER",
    "LocalModelError",
    "MissingPackageError",
    "ModelLoadError",
    "ModelNotFoundError",
    "PackagedModel",
    "SharedModel",
    "find_model",
    "resource_path",
]
