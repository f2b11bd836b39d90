"""Structured inference over ``Generator.invoke``, shared by labelers, segmentors and profilers.

* :func:`invoke_arguments` asks a generator to call one JSON-schema'd
  :class:`~genx.tools.FuncTool` and returns its validated arguments as a dict.
  A timeout, arguments that are not JSON or fail the schema become one typed
  :class:`StructuredOutputError` (callers keep their state unchanged on it);
  other errors (a provider's typed errors, cancellation) pass through.
* :class:`CapabilityMux` is the topic-pattern registry (:mod:`genx.mux`) the
  labeler, segmentor and profiler muxes share; each adds its own protocol method.

Constrained decoding is the generator's business: the llama.cpp generator turns
the tool's schema into a grammar, the HTTP adapters force the tool call.
Nothing here logs the model's arguments (they may hold what the user said).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from genx.errors import GenxError, ToolArgumentsError
from genx.model import ModelContext, ModelContextBuilder, ModelParams
from genx.mux import TopicMux

if TYPE_CHECKING:
    from genx.generators import Generator
    from genx.tools import FuncTool

T = TypeVar("T")

#: Seconds one structured call may take before it counts as failed.
DEFAULT_TIMEOUT_S = 30.0


class StructuredOutputError(GenxError):
    """The model gave no usable structured answer (timeout, invalid JSON, schema mismatch, rule broken)."""

    def __init__(self, what: str, detail: str) -> None:
        self.what = what
        self.detail = detail
        super().__init__(f"{what}: {detail}")


async def invoke_arguments(
    generator: Generator, model: str, ctx: ModelContext, tool: FuncTool, *, timeout_s: float = DEFAULT_TIMEOUT_S
) -> dict[str, Any]:
    """``generator.invoke(model, ctx, tool)`` → the call's arguments, validated against ``tool``'s schema."""
    try:
        async with asyncio.timeout(timeout_s):
            _usage, call = await generator.invoke(model, ctx, tool)
    except TimeoutError:
        raise StructuredOutputError(tool.name, f"no answer from {model!r} within {timeout_s:g} s") from None
    except ToolArgumentsError as e:
        raise StructuredOutputError(tool.name, e.detail) from e
    try:
        data = json.loads(call.arguments or "{}")
    except json.JSONDecodeError as e:
        raise StructuredOutputError(tool.name, f"the arguments are not valid JSON ({e.msg})") from None
    if not isinstance(data, dict):
        raise StructuredOutputError(tool.name, f"the arguments are a JSON {type(data).__name__}, not an object")
    try:
        tool.validate(data)
    except ToolArgumentsError as e:
        raise StructuredOutputError(tool.name, e.detail) from e
    return data


def field(data: Mapping[str, Any], key: str, kind: type, what: str) -> Any:
    """``data[key]`` when it is a ``kind`` (bool is not a number), else :class:`StructuredOutputError`."""
    value = data.get(key)
    ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not ok:
        raise StructuredOutputError(what, f"{key!r} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def _default_params() -> ModelParams:
    return ModelParams(temperature=0.0, max_tokens=384)


@dataclass(frozen=True, slots=True)
class GeneratorRef:
    """Which generator (and model name) a structured capability calls, with its timeout and sampling.

    ``generator`` is usually the app's GeneratorMux: ``model`` is then resolved at
    call time, so the configuration order of generators does not matter.
    """

    generator: Generator
    model: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    params: ModelParams = dc_field(default_factory=_default_params)

    async def call(self, system: str, user: str, tool: FuncTool) -> dict[str, Any]:
        ctx = ModelContextBuilder().prompt(system, name=tool.name).user(user).params(self.params).build()
        return await invoke_arguments(self.generator, self.model, ctx, tool, timeout_s=self.timeout_s)


def generator_ref(spec: Any, generators: Generator) -> GeneratorRef:
    """A :class:`GeneratorRef` from a structured capability's config table (``generator``, ``params``, ``options.timeout_s``)."""
    from genx.modelloader.errors import ConfigError  # the loader imports this module; keep the import one way at load time

    model = getattr(spec, "generator", None)
    if not isinstance(model, str) or not model:
        raise ConfigError('give generator = "<a configured generator name>" (e.g. offline/smollm2)', key="generator")
    options = dict(getattr(spec, "options", None) or {})
    unknown = sorted(set(options) - {"timeout_s"})
    if unknown:
        raise ConfigError(f"unknown option {unknown[0]!r}; known options: timeout_s", key=f"options.{unknown[0]}")
    timeout = options.get("timeout_s", DEFAULT_TIMEOUT_S)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise ConfigError("timeout_s must be a positive number of seconds", key="options.timeout_s")
    params = _default_params().merged(spec.model_params()) if hasattr(spec, "model_params") else _default_params()
    return GeneratorRef(generators, model, float(timeout), params)


class CapabilityMux(Generic[T]):
    """Values by topic pattern (``memory/#``, ``+/labels``); :meth:`resolve` picks one for a name."""

    __slots__ = ("_mux",)

    def __init__(self) -> None:
        self._mux: TopicMux[T] = TopicMux()

    def register(self, pattern: str, value: T) -> None:
        """Raises ``PatternError`` (invalid pattern) or ``AlreadyRegisteredError``."""
        self._mux.register(pattern, value)

    def unregister(self, pattern: str) -> T:
        return self._mux.unregister(pattern)

    def resolve(self, name: str) -> T:
        """The value serving ``name``; ``NotFoundError`` on a miss."""
        return self._mux.get(name)

    def has_pattern(self, pattern: str) -> bool:
        return self._mux.has_pattern(pattern)

    def patterns(self) -> list[str]:
        return self._mux.patterns()

    def __contains__(self, name: object) -> bool:
        return name in self._mux

    def __len__(self) -> int:
        return len(self._mux)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._mux.patterns()!r})"


__all__ = ["DEFAULT_TIMEOUT_S", "CapabilityMux", "GeneratorRef", "StructuredOutputError", "field", "generator_ref", "invoke_arguments"]
