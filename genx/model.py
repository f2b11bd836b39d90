"""What one model call needs: params, usage, prompts, and the ModelContext view.

:class:`ModelContext` is a read-only view (a Protocol) with ``prompts()``,
``messages()``, ``cots()``, ``tools()`` and ``params()``.
:class:`ModelContextBuilder` assembles one context; :class:`MultiModelContext`
chains several sources in order (e.g. a persona, the conversation history and
the current turn) without copying them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from genx.chunk import Message, Role, Text

if TYPE_CHECKING:
    from genx.tools import Tool


@dataclass(slots=True)
class ModelParams:
    """Sampling and length settings. ``None`` means "provider default".

    ``extra`` carries provider-specific fields passed through verbatim; adapters
    reject settings their API cannot honour instead of dropping them silently.
    """

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    stop: list[str] | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    repeat_penalty: float | None = None
    seed: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def merged(self, override: ModelParams | None) -> ModelParams:
        """Values of ``override`` where set, else ours (``extra`` merged key by key)."""
        if override is None:
            return replace(self, extra=dict(self.extra))
        out = replace(self, extra={**self.extra, **override.extra})
        for f in fields(self):
            if f.name == "extra":
                continue
            v = getattr(override, f.name)
            if v is not None:
                setattr(out, f.name, v)
        return out


@dataclass(slots=True)
class Usage:
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0  # cache read
    cache_write_tokens: int = 0  # cache creation
    generated_tokens: int = 0
    thinking_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.generated_tokens

    def add(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.cached_prompt_tokens + other.cached_prompt_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.generated_tokens + other.generated_tokens,
            self.thinking_tokens + other.thinking_tokens,
        )


@dataclass(slots=True)
class Prompt:
    """A system prompt (instruction). ``name`` tells several apart in logs."""

    text: str
    name: str = ""


@runtime_checkable
class ModelContext(Protocol):
    def prompts(self) -> Iterator[Prompt]: ...

    def messages(self) -> Iterator[Message]: ...

    def cots(self) -> Iterator[str]: ...

    def tools(self) -> Iterator[Tool]: ...

    def params(self) -> ModelParams | None: ...


@dataclass(slots=True)
class _StaticContext:
    _prompts: list[Prompt]
    _messages: list[Message]
    _cots: list[str]
    _tools: list[Tool]
    _params: ModelParams | None

    def prompts(self) -> Iterator[Prompt]:
        return iter(self._prompts)

    def messages(self) -> Iterator[Message]:
        return iter(self._messages)

    def cots(self) -> Iterator[str]:
        return iter(self._cots)

    def tools(self) -> Iterator[Tool]:
        return iter(self._tools)

    def params(self) -> ModelParams | None:
        return self._params


class ModelContextBuilder:
    """Assembles a :class:`ModelContext`; ``build()`` snapshots the lists."""

    def __init__(self) -> None:
        self._prompts: list[Prompt] = []
        self._messages: list[Message] = []
        self._cots: list[str] = []
        self._tools: list[Tool] = []
        self._params: ModelParams | None = None

    def prompt(self, text: str, name: str = "") -> ModelContextBuilder:
        self._prompts.append(Prompt(text, name))
        return self

    def message(self, *messages: Message) -> ModelContextBuilder:
        self._messages.extend(messages)
        return self

    def messages(self, messages: Iterable[Message]) -> ModelContextBuilder:
        self._messages.extend(messages)
        return self

    def user(self, text: str, name: str = "") -> ModelContextBuilder:
        return self.message(Message(Role.USER, [Text(text)], name=name))

    def assistant(self, text: str, name: str = "") -> ModelContextBuilder:
        return self.message(Message(Role.ASSISTANT, [Text(text)], name=name))

    def cot(self, text: str) -> ModelContextBuilder:
        self._cots.append(text)
        return self

    def tool(self, *tools: Tool) -> ModelContextBuilder:
        self._tools.extend(tools)
        return self

    def params(self, params: ModelParams | None = None, **kw: Any) -> ModelContextBuilder:
        base = params if params is not None else (self._params or ModelParams())
        self._params = replace(base, **kw) if kw else base
        return self

    def build(self) -> ModelContext:
        return _StaticContext(list(self._prompts), list(self._messages), list(self._cots), list(self._tools), self._params)


class MultiModelContext:
    """Chains several contexts in order; params are merged, later sources win."""

    __slots__ = ("_sources",)

    def __init__(self, *sources: ModelContext) -> None:
        self._sources = sources

    def prompts(self) -> Iterator[Prompt]:
        for s in self._sources:
            yield from s.prompts()

    def messages(self) -> Iterator[Message]:
        for s in self._sources:
            yield from s.messages()

    def cots(self) -> Iterator[str]:
        for s in self._sources:
            yield from s.cots()

    def tools(self) -> Iterator[Tool]:
        for s in self._sources:
            yield from s.tools()

    def params(self) -> ModelParams | None:
        out: ModelParams | None = None
        for s in self._sources:
            p = s.params()
            if p is not None:
                out = p if out is None else out.merged(p)
        return out
