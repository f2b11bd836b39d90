"""Factories for the offline transformer kinds, adapting config specs to :mod:`genx.local`.

``genx.local`` builds its transformers from plain mappings of its own option
names; these factories map the typed specs onto them (``model_file`` → the
model path, typed keys → their options) and pass ``options`` through, where the
local module rejects unknown keys. Importing this module imports no runtime.
"""

from __future__ import annotations

from typing import Any

from genx.modelloader.errors import ConfigError
from genx.modelloader.secrets import SecretStore
from genx.modelloader.specs import AsrSpec, TransformerSpec, VadSpec, VoiceSpec
from genx.transformers import Transformer


def piper(spec: TransformerSpec, secrets: SecretStore) -> Transformer:
    """kind ``piper``: Piper TTS on the streamkit TTS pipeline (default voice: the packaged joe)."""
    from genx.local import piper_tts

    mapping: dict[str, Any] = dict(spec.options)
    if isinstance(spec, VoiceSpec):
        if spec.model_file is not None:
            mapping["voice"] = str(spec.model_file.require(key=f"voice {spec.name!r} model_file"))
        _put(mapping, "speaker_id", spec.speaker_id)
        _put(mapping, "length_scale", spec.length_scale)
    return piper_tts.from_config(mapping)


def faster_whisper(spec: TransformerSpec, secrets: SecretStore) -> Transformer:
    """kind ``faster-whisper``: streaming Whisper ASR from a local CTranslate2 model directory."""
    from genx.local import asr

    mapping: dict[str, Any] = dict(spec.options)
    if isinstance(spec, AsrSpec):
        if spec.device != "cpu":
            raise ConfigError(f"ASR {spec.name!r}: device {spec.device!r} is not supported; the local ASR runs on 'cpu'")
        if spec.model_file is not None:
            mapping["path"] = str(spec.model_file.require(key=f"asr {spec.name!r} model_file"))
        mapping["compute_type"] = spec.compute_type
        mapping["beam_size"] = spec.beam_size
        _put(mapping, "language", spec.language)
    return asr.from_config(mapping)


def webrtcvad(spec: TransformerSpec, secrets: SecretStore) -> Transformer:
    """kind ``webrtcvad``: WebRTC voice activity detection cutting audio into utterance routes."""
    from genx.local import vad

    mapping: dict[str, Any] = dict(spec.options)
    if isinstance(spec, VadSpec):
        mapping["aggressiveness"] = spec.aggressiveness
        mapping["frame_ms"] = spec.frame_ms
    return vad.from_config(mapping)


def _put(mapping: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        mapping[key] = value


__all__ = ["faster_whisper", "piper", "webrtcvad"]
