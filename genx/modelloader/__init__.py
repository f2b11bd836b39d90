"""Configuration-driven model loading: one TOML file → registered generators and transformers.

Owns: the configuration schema (:mod:`.specs`: providers, generators, voices,
ASR, VAD; strict, unknown keys are errors naming their key path), model-file
references (:mod:`.files`), secret references and their resolution at use time
(:mod:`.secrets`), the kind registry (:mod:`.registry`) and :func:`load_into`.

Does not own: the generators and transformers themselves (their modules expose
the factories below), the app's own settings (``app.settings`` extends
:class:`ModelConfig`), or deciding which name the voice loop uses.

Factory contract (what a kind's ``"module:function"`` must be)::

    # generator kinds: llamacpp, and every HTTP kind of genx.generators.provider_kinds
    # (openai-chat, openai-responses, anthropic, gemini, ollama, openai-compatible,
    # llamacpp-server), all served by genx.generators.providers.factory:build
    def from_config(spec: GeneratorSpec, provider: ProviderSpec | None, secrets: SecretStore) -> Generator

    # transformer kinds (piper, faster-whisper, webrtcvad); spec is the VoiceSpec /
    # AsrSpec / VadSpec subclass of TransformerSpec
    def from_config(spec: TransformerSpec, secrets: SecretStore) -> Transformer

* ``provider`` is the ``[providers.<name>]`` table the generator references, or
  ``None`` for in-process kinds; ``provider.name`` is the table key.
* ``spec.model`` is the provider's model id; when None, derive it from the
  requested name (the mux passes the full name to ``generate_stream``).
* ``spec.model_file.require(key=...)`` gives an existing ``Path`` (the loader
  already checked it exists); ``spec.model_params()`` the default
  :class:`~genx.model.ModelParams`; ``spec.system_prompt`` an optional override;
  ``spec.options`` / ``provider.options`` kind-specific settings.
* Secrets: call ``secrets.api_key(provider)`` / ``secrets.headers(provider)``
  when a request is made (not in the factory), so a missing key fails that
  request with a ConfigError naming the variable, not the app start. Never log
  the values.
* Factories must be cheap: no weights loading and no network in the factory;
  load lazily (in a worker thread) on first use. Raise :class:`ConfigError`
  (or the provider adapters' ``ProviderConfigError``, whose ``key`` the loader
  keeps) for configuration the kind cannot honour (e.g. unknown ``options`` keys).
* Provider headers whose names look like credentials (``Authorization``,
  ``x-api-key`` …) must be secret references: a plain string there is a
  ConfigError at ``providers.<name>.headers.<Header>`` when the file is parsed.
"""

from genx.modelloader.errors import ConfigError
from genx.modelloader.files import ModelFile
from genx.modelloader.loader import LoadResult, check_model_files, load_config, load_into
from genx.modelloader.registry import BUILTIN_KINDS, KindEntry, KindRegistry, default_registry
from genx.modelloader.secrets import SecretRef, SecretStore
from genx.modelloader.source import load_model, loads_toml, parse_model, read_toml
from genx.modelloader.specs import (
    AsrSpec,
    GeneratorSpec,
    ModelConfig,
    ParamsSpec,
    ProviderSpec,
    Spec,
    TransformerSpec,
    VadSpec,
    VoiceSpec,
)

__all__ = [
    "BUILTIN_KINDS",
    "AsrSpec",
    "ConfigError",
    "GeneratorSpec",
    "KindEntry",
    "KindRegistry",
    "LoadResult",
    "ModelConfig",
    "ModelFile",
    "ParamsSpec",
    "ProviderSpec",
    "SecretRef",
    "SecretStore",
    "Spec",
    "TransformerSpec",
    "VadSpec",
    "VoiceSpec",
    "check_model_files",
    "default_registry",
    "load_config",
    "load_into",
    "load_model",
    "loads_toml",
    "parse_model",
    "read_toml",
]
