"""Kind registry: configuration ``kind`` → factory, imported lazily as ``"module:function"``.

Importing a kind's module is deferred until a configuration uses it, so a
missing optional dependency (llama-cpp-python, piper-tts…) only matters for
the kinds that need it, and the error says what to install. The HTTP kinds
are the provider kinds table's (:data:`genx.generators.provider_kinds.KINDS`,
a light module), all served by :func:`genx.generators.providers.factory.build`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from genx.errors import AlreadyRegisteredError
from genx.generators.provider_kinds import KINDS as HTTP_KINDS
from genx.modelloader.errors import ConfigError
from genx.modelloader.files import pip_name

Role = Literal["generator", "transformer", "segmentor", "profiler", "labeler"]


@dataclass(frozen=True, slots=True)
class KindEntry:
    kind: str
    role: Role
    #: ``"package.module:function"`` (imported on first use) or the factory itself.
    target: str | Callable[..., Any]
    #: What to install when the module's dependencies are missing, e.g. ``"parley[offline]"``.
    install: str = ""


# Generator factories: (spec: GeneratorSpec, provider: ProviderSpec | None, secrets: SecretStore) -> Generator
# Transformer factories: (spec: TransformerSpec subclass, secrets: SecretStore) -> Transformer
# Segmentor / profiler / labeler factories: (spec: StructuredSpec, generators: Generator) -> the capability
# A kind name is unique per role: "generator" is a segmentor kind, a profiler kind and a labeler kind.
#: Every HTTP kind of the provider kinds table is built by the one provider factory.
HTTP_FACTORY = "genx.generators.providers.factory:build"

BUILTIN_KINDS: tuple[KindEntry, ...] = (
    KindEntry("llamacpp", "generator", "genx.generators.llamacpp:from_config", "llama-cpp-python[server]"),
    *(KindEntry(kind, "generator", HTTP_FACTORY) for kind in HTTP_KINDS),
    # Offline transformers: genx.local's factories take the spec objects directly.
    KindEntry("piper", "transformer", "genx.local.piper_tts:from_config", "piper-tts"),
    KindEntry("faster-whisper", "transformer", "genx.local.asr:from_config", "faster-whisper"),
    KindEntry("webrtcvad", "transformer", "genx.local.vad:from_config", "webrtcvad-wheels"),
    KindEntry("silero", "transformer", "genx.local.silero_vad:from_config", "faster-whisper"),
    # Cloud speech and realtime transformers (keys and hosts from the kinds table's OpenAI / Gemini rows).
    KindEntry("openai-speech", "transformer", "genx.transformers.cloud.openai_speech:from_config"),
    KindEntry("openai-transcribe", "transformer", "genx.transformers.cloud.openai_transcribe:from_config"),
    KindEntry("openai-realtime", "transformer", "genx.transformers.realtime.factory:from_config", "websockets"),
    KindEntry("gemini-live", "transformer", "genx.transformers.realtime.factory:from_config", "websockets"),
    # Structured inference over any configured generator (genx.segmentors / profilers / labelers).
    KindEntry("generator", "segmentor", "genx.segmentors.generator:from_config"),
    KindEntry("generator", "profiler", "genx.profilers.generator:from_config"),
    KindEntry("generator", "labeler", "genx.labelers.generator:from_config"),
    KindEntry("keywords", "labeler", "genx.labelers.keywords:from_config"),
)


class KindRegistry:
    """Maps kinds to factories. Not shared: :func:`default_registry` returns a fresh copy."""

    __slots__ = ("_entries", "_loaded")

    def __init__(self, entries: Iterable[KindEntry] = ()) -> None:
        self._entries: dict[tuple[str, str], KindEntry] = {}
        self._loaded: dict[tuple[str, str], Callable[..., Any]] = {}
        for e in entries:
            self.add(e)

    def add(self, entry: KindEntry, *, replace: bool = False) -> None:
        key = (entry.role, entry.kind)
        if key in self._entries and not replace:
            raise AlreadyRegisteredError(entry.kind)
        if isinstance(entry.target, str) and entry.target.count(":") != 1:
            raise ValueError(f"kind {entry.kind!r}: target must be 'module:function', got {entry.target!r}")
        self._entries[key] = entry
        self._loaded.pop(key, None)

    def register(self, kind: str, target: str | Callable[..., Any], *, role: Role, install: str = "", replace: bool = False) -> None:
        self.add(KindEntry(kind, role, target, install), replace=replace)

    def kinds(self, role: Role | None = None) -> list[str]:
        return sorted({k for (r, k) in self._entries if role is None or r == role})

    def __contains__(self, kind: object) -> bool:
        return any(k == kind for _, k in self._entries)

    def entry(self, kind: str, role: Role, *, key: str = "") -> KindEntry:
        e = self._entries.get((role, kind))
        if e is not None:
            return e
        other = next((r for (r, k) in self._entries if k == kind), None)
        if other is not None:
            raise ConfigError(f"kind {kind!r} makes a {other}, not a {role}; {role} kinds: {', '.join(self.kinds(role))}", key=key or None)
        raise ConfigError(f"unknown {role} kind {kind!r}; known {role} kinds: {', '.join(self.kinds(role)) or 'none'}", key=key or None)

    def factory(self, kind: str, role: Role, *, key: str = "") -> Callable[..., Any]:
        """The factory for ``kind``, importing its module now. Failures are ConfigErrors."""
        e = self.entry(kind, role, key=key)
        cached = self._loaded.get((role, kind))
        if cached is not None:
            return cached
        if callable(e.target):
            fn = e.target
        else:
            fn = _import_target(e, key)
        self._loaded[(role, kind)] = fn
        return fn

    def copy(self) -> KindRegistry:
        return KindRegistry(self._entries.values())


def default_registry() -> KindRegistry:
    return KindRegistry(BUILTIN_KINDS)


def _import_target(e: KindEntry, key: str) -> Callable[..., Any]:
    assert isinstance(e.target, str)
    module, _, func = e.target.partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module == missing or module.startswith(missing + ".")):
            raise ConfigError(
                f"kind {e.kind!r} is implemented by module {module!r}, which is not part of this installation; "
                "update Parley or pick another kind",
                key=key or None,
            ) from exc
        install = e.install or pip_name(missing)
        raise ConfigError(
            f"kind {e.kind!r} needs the Python module {missing!r}, which is not installed; install it with: pip install {install}",
            key=key or None,
        ) from exc
    except ImportError as exc:
        hint = f" (try: pip install {e.install})" if e.install else ""
        raise ConfigError(f"kind {e.kind!r}: importing {module!r} failed: {exc}{hint}", key=key or None) from exc
    fn = getattr(mod, func, None)
    if not callable(fn):
        raise ConfigError(f"kind {e.kind!r}: module {module!r} has no factory function {func!r}", key=key or None)
    return fn  # type: ignore[no-any-return]


__all__ = ["BUILTIN_KINDS", "HTTP_FACTORY", "KindEntry", "KindRegistry", "Role", "default_registry"]
