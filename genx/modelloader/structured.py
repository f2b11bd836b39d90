"""Register the configured segmentors, profilers and labelers (``[[segmentors]]`` …) into their muxes.

Each table's ``kind`` is looked up in the kind registry under its role
(``segmentor`` / ``profiler`` / ``labeler``); the factory gets the table and
the generator mux, and calls ``generator`` by name when it runs (so any
configured generator, offline or cloud, can serve it). All or nothing, like
:func:`~genx.modelloader.load_into`: every name, kind and generator reference
is checked before anything is registered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genx.generators.mux import GeneratorMux
from genx.labelers.mux import LabelerMux
from genx.modelloader.errors import ConfigError
from genx.modelloader.registry import KindRegistry, Role, default_registry
from genx.modelloader.specs import ModelConfig, StructuredSpec
from genx.profilers.mux import ProfilerMux
from genx.segmentors.mux import SegmentorMux
from genx.structured import CapabilityMux


@dataclass(slots=True)
class StructuredResult:
    """Names registered by :func:`load_structured`, per role, in file order."""

    segmentors: list[str] = field(default_factory=list)
    profilers: list[str] = field(default_factory=list)
    labelers: list[str] = field(default_factory=list)


def load_structured(
    config: ModelConfig,
    generators: GeneratorMux,
    *,
    segmentors: SegmentorMux | None = None,
    profilers: ProfilerMux | None = None,
    labelers: LabelerMux | None = None,
    registry: KindRegistry | None = None,
    source: str | Path | None = None,
) -> StructuredResult:
    """Build and register every configured structured capability; a ``None`` mux skips its section."""
    registry = registry if registry is not None else default_registry()
    sections: list[tuple[Role, str, list[StructuredSpec], CapabilityMux[Any] | None]] = [
        ("segmentor", "segmentors", config.segmentors, segmentors),
        ("profiler", "profilers", config.profilers, profilers),
        ("labeler", "labelers", config.labelers, labelers),
    ]
    built: list[tuple[str, str, CapabilityMux[Any], Any]] = []
    for role, section, specs, mux in sections:
        if mux is None:
            continue
        for i, spec in enumerate(specs):
            key = f"{section}[{i}]"
            if mux.has_pattern(spec.name):
                raise ConfigError(f"{spec.name!r} is already registered; pick another name", source=source, key=f"{key}.name")
            if spec.generator is not None and spec.generator not in generators:
                have = ", ".join(generators.patterns()) or "none"
                raise ConfigError(
                    f"{spec.generator!r} matches no configured generator (configured: {have})", source=source, key=f"{key}.generator"
                )
            try:
                make: Callable[..., Any] = registry.factory(spec.kind, role, key=f"{key}.kind")
                value = make(spec, generators)
            except ConfigError as e:
                sub = e.key if e.key and e.key.startswith(section) else f"{key}.{e.key}" if e.key else key
                raise ConfigError(e.detail, source=source, key=sub) from e
            except Exception as e:
                raise ConfigError(f"{role} {spec.name!r} failed to load: {type(e).__name__}: {e}", source=source, key=key) from e
            built.append((section, spec.name, mux, value))
    result = StructuredResult()
    for section, name, mux, value in built:
        mux.register(name, value)
        getattr(result, section).append(name)
    return result


__all__ = ["StructuredResult", "load_structured"]
