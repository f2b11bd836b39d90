"""Turn a validated :class:`ModelConfig` into registered generators and transformers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genx.generators import Generator
from genx.generators.mux import GeneratorMux
from genx.modelloader.errors import ConfigError
from genx.modelloader.files import ModelFile
from genx.modelloader.registry import KindRegistry, default_registry
from genx.modelloader.secrets import SecretStore
from genx.modelloader.source import load_model
from genx.modelloader.specs import GeneratorSpec, ModelConfig, TransformerSpec
from genx.transformers import Transformer
from genx.transformers.mux import TransformerMux


def load_config(path: str | Path) -> ModelConfig:
    """Read and validate a genx model configuration file (TOML)."""
    return load_model(ModelConfig, path)


@dataclass(slots=True)
class LoadResult:
    """Names registered by :func:`load_into`, in file order."""

    generators: list[str] = field(default_factory=list)
    transformers: list[str] = field(default_factory=list)


def check_model_files(config: ModelConfig, *, source: str | Path | None = None, generators: bool = True, transformers: bool = True) -> None:
    """Every ``model_file`` of the halves checked must exist: else a ConfigError naming the file and its key."""
    for key, mf in _model_files(config, generators=generators, transformers=transformers):
        mf.require(key=key, source=source)


def load_into(
    config: ModelConfig,
    generator_mux: GeneratorMux | None,
    transformer_mux: TransformerMux | None,
    *,
    secrets: SecretStore | None = None,
    registry: KindRegistry | None = None,
    source: str | Path | None = None,
) -> LoadResult:
    """Build every configured generator / transformer and register it under its name.

    All or nothing: kinds, factory imports, model files and name clashes with
    what the muxes already hold are checked first, then every instance is
    built, then all are registered; on any error nothing is registered.
    A ``None`` mux skips that half of the configuration.

    Runs factories synchronously: factories must be cheap (load weights lazily
    in a worker thread), or call this through ``asyncio.to_thread``.
    """
    secrets = secrets if secrets is not None else SecretStore()
    registry = registry if registry is not None else default_registry()
    check_model_files(config, source=source, generators=generator_mux is not None, transformers=transformer_mux is not None)

    gen_plan: list[tuple[str, GeneratorSpec, Callable[..., Any]]] = []
    if generator_mux is not None:
        for i, g in enumerate(config.generators):
            key = f"generators[{i}]"
            kind = g.effective_kind
            if not kind:
                raise ConfigError(f"generator {g.name!r} has no kind and no provider", source=source, key=key)
            _check_free(generator_mux.has_pattern(g.name), g.name, key, source)
            gen_plan.append((key, g, _factory(registry, kind, "generator", f"{key}.kind" if g.kind else f"{key}.provider", source)))
    tr_plan: list[tuple[str, TransformerSpec, Callable[..., Any]]] = []
    if transformer_mux is not None:
        for key, t in config.transformers():
            _check_free(transformer_mux.has_pattern(t.name), t.name, key, source)
            tr_plan.append((key, t, _factory(registry, t.kind, "transformer", f"{key}.kind", source)))

    generators: list[tuple[str, Generator]] = []
    for key, g, make in gen_plan:
        provider = config.providers.get(g.provider) if g.provider else None
        gen = _build(make, (g, provider, secrets), what=f"generator {g.name!r}", key=key, source=source)
        generators.append((g.name, gen))
    transformers: list[tuple[str, Transformer]] = []
    for key, t, make in tr_plan:
        transformers.append((t.name, _build(make, (t, secrets), what=f"transformer {t.name!r}", key=key, source=source)))

    result = LoadResult()
    for name, gen in generators:
        assert generator_mux is not None
        generator_mux.register(name, gen)
        result.generators.append(name)
    for name, tr in transformers:
        assert transformer_mux is not None
        transformer_mux.register(name, tr)
        result.transformers.append(name)
    return result


def _model_files(config: ModelConfig, *, generators: bool, transformers: bool) -> list[tuple[str, ModelFile]]:
    out: list[tuple[str, ModelFile]] = []
    for i, g in enumerate(config.generators if generators else ()):
        if g.model_file is not None:
            out.append((f"generators[{i}].model_file", g.model_file))
    for key, t in config.transformers() if transformers else ():
        mf = getattr(t, "model_file", None)
        if isinstance(mf, ModelFile):
            out.append((f"{key}.model_file", mf))
    return out


def _check_free(taken: bool, name: str, key: str, source: str | Path | None) -> None:
    if taken:
        raise ConfigError(f"{name!r} is already registered; pick another name", source=source, key=f"{key}.name")


def _factory(registry: KindRegistry, kind: str, role: Any, key: str, source: str | Path | None) -> Callable[..., Any]:
    try:
        return registry.factory(kind, role, key=key)
    except ConfigError as e:
        raise ConfigError(e.detail, source=source, key=key) from e.__cause__


def _build(make: Callable[..., Any], args: tuple[Any, ...], *, what: str, key: str, source: str | Path | None) -> Any:
    try:
        return make(*args)
    except ConfigError as e:
        if e.source is None and source is not None:
            raise ConfigError(e.detail, source=source, key=e.key or key) from e
        raise
    except Exception as e:
        raise _as_config_error(e, what=what, key=key, source=source) from e


def _as_config_error(e: Exception, *, what: str, key: str, source: str | Path | None) -> ConfigError:
    """A factory's failure as a ConfigError; a ``ProviderConfigError`` keeps its message at the key it names."""
    # Imported here rather than at the top: genx.generators.providers pulls in httpx and every adapter
    # (the app imports the loader at start-up), and it is loaded already whenever its factory raised.
    from genx.generators.providers.errors import ProviderConfigError

    if isinstance(e, ProviderConfigError):
        return ConfigError(e.message, source=source, key=_join_key(key, e.key))
    return ConfigError(f"{what} failed to load: {type(e).__name__}: {e}", source=source, key=key)


def _join_key(table: str, key: str | None) -> str:
    """``key`` relative to the generator's ``table``, unless it is already absolute (``providers.…``)."""
    if not key:
        return table
    return key if key.startswith("providers.") else f"{table}.{key}"


__all__ = ["LoadResult", "check_model_files", "load_config", "load_into"]
