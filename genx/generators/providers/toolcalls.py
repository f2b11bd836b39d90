"""Tool calls across the wire: streamed-argument assembly, call-ID pairing, tool specs.

* :class:`ToolCallAssembler` collects streamed tool-call fragments keyed by
  index; :meth:`~ToolCallAssembler.complete` yields a :class:`~genx.chunk.FuncCall`
  only when the arguments are one valid JSON object (``""`` becomes ``{}``);
  anything else is dropped and recorded, never emitted as invalid JSON.
* :func:`pair_tool_results` walks a history and gives every tool result the id
  of the call it answers: an explicit id must match a pending call, a missing one
  takes the oldest pending call (FIFO), and calls without ids get generated ones.
* :func:`function_specs` turns ``ModelContext.tools()`` into (name, description,
  JSON schema) triples; a web-search tool is reported separately.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from genx.chunk import FuncCall, Message, Role
from genx.errors import ToolArgumentsError
from genx.generators.providers.errors import ToolPairingError, UnsupportedSettingError
from genx.generators.providers.framing import loads_json
from genx.tools import SearchWebTool

GENERATED_ID_PREFIX = "call_genx_"


def new_call_id() -> str:
    return GENERATED_ID_PREFIX + uuid.uuid4().hex[:20]


def is_generated_id(call_id: str) -> bool:
    return call_id.startswith(GENERATED_ID_PREFIX)


def normalize_arguments(raw: str | None) -> str | None:
    """The arguments as compact-enough JSON text if they are one JSON object, else ``None``.

    ``""`` / whitespace (Anthropic's empty ``partial_json``) means no arguments: ``"{}"``.
    Valid input is returned as sent (no re-serialisation) to keep the model's bytes.
    """
    if raw is None or not raw.strip():
        return "{}"
    try:
        value = loads_json(raw)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    return raw


@dataclass(slots=True)
class _Slot:
    id: str
    name: str
    parts: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    final: str | None = None  # authoritative full arguments, when the provider sends them


@dataclass(slots=True)
class DroppedCall:
    name: str
    id: str
    arguments: str
    reason: str


class ToolCallAssembler:
    """Per-stream assembly of tool calls whose arguments arrive in fragments."""

    __slots__ = ("_slots", "dropped")

    def __init__(self) -> None:
        self._slots: dict[Any, _Slot] = {}
        self.dropped: list[DroppedCall] = []

    def __contains__(self, key: object) -> bool:
        return key in self._slots

    def __len__(self) -> int:
        return len(self._slots)

    def start(self, key: Any, call_id: str | None, name: str | None, **extra: Any) -> None:
        slot = self._slots.get(key)
        if slot is None:
            self._slots[key] = _Slot(call_id or "", name or "", extra=dict(extra))
            return
        if call_id and not slot.id:
            slot.id = call_id
        if name and not slot.name:
            slot.name = name
        slot.extra.update(extra)

    def append(self, key: Any, fragment: str) -> None:
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot("", "")
        if fragment:
            slot.parts.append(fragment)

    def set_arguments(self, key: Any, arguments: str) -> None:
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot("", "")
        slot.final = arguments

    def complete(self, key: Any) -> tuple[FuncCall, dict[str, Any]] | None:
        """Finish one call: the FuncCall plus its provider extras, or ``None`` if dropped."""
        slot = self._slots.pop(key, None)
        if slot is None:
            return None
        raw = slot.final if slot.final is not None else "".join(slot.parts)
        if not slot.name:
            self.dropped.append(DroppedCall("", slot.id, raw, "tool call without a function name"))
            return None
        args = normalize_arguments(raw)
        if args is None:
            self.dropped.append(DroppedCall(slot.name, slot.id, raw, "arguments are not one complete JSON object"))
            return None
        return FuncCall(slot.name, args, slot.id or new_call_id()), slot.extra

    def complete_all(self) -> list[tuple[FuncCall, dict[str, Any]]]:
        out: list[tuple[FuncCall, dict[str, Any]]] = []
        for key in list(self._slots):
            done = self.complete(key)
            if done is not None:
                out.append(done)
        return out

    def complete_where(self, pred: Any) -> list[tuple[FuncCall, dict[str, Any]]]:
        out: list[tuple[FuncCall, dict[str, Any]]] = []
        for key in [k for k in self._slots if pred(k)]:
            done = self.complete(key)
            if done is not None:
                out.append(done)
        return out


@dataclass(slots=True)
class PairedHistory:
    """A history whose every assistant call and tool result has an id."""

    messages: list[Message]
    call_ids: dict[int, list[str]]  # message index -> ids of its tool_calls, in order
    result_ids: dict[int, str]  # message index -> id of the call its tool_result answers
    result_names: dict[int, str]  # message index -> function name of the answered call


def pair_tool_results(provider: str, messages: Iterable[Message]) -> PairedHistory:
    """Resolve call ids through the history (see module docstring).

    Generated ids are deterministic per history (``call_genx_h<n>``) so the same
    history always yields the same request.
    """
    msgs = list(messages)
    pending: deque[tuple[str, str]] = deque()  # (id, name)
    call_ids: dict[int, list[str]] = {}
    result_ids: dict[int, str] = {}
    result_names: dict[int, str] = {}
    n = 0
    for i, m in enumerate(msgs):
        if m.role == Role.ASSISTANT and m.tool_calls:
            ids: list[str] = []
            for c in m.tool_calls:
                cid = c.id
                if not cid:
                    n += 1
                    cid = f"{GENERATED_ID_PREFIX}h{n}"
                ids.append(cid)
                pending.append((cid, c.name))
            call_ids[i] = ids
        tr = m.tool_result
        if tr is None:
            continue
        if tr.call_id:
            for j, (cid, name) in enumerate(pending):
                if cid == tr.call_id:
                    del pending[j]
                    result_ids[i] = cid
                    result_names[i] = tr.name or name
                    break
            else:
                raise ToolPairingError(
                    provider,
                    f"tool result for call id {tr.call_id!r} ({tr.name or 'unnamed'}) answers no earlier assistant tool call; "
                    "keep the assistant message with that call in the history or fix the id",
                )
        else:
            if not pending:
                raise ToolPairingError(
                    provider,
                    f"tool result {tr.name or '(unnamed)'!r} has no call id and no assistant tool call is waiting for a result",
                )
            cid, name = pending.popleft()
            result_ids[i] = cid
            result_names[i] = tr.name or name
    return PairedHistory(msgs, call_ids, result_ids, result_names)


@runtime_checkable
class FunctionToolLike(Protocol):
    """What adapters need from ``genx.tools.FuncTool``."""

    name: str
    description: str
    schema: dict[str, Any]

    def validate(self, args: Any) -> Any: ...


@dataclass(slots=True, frozen=True)
class FunctionSpec:
    name: str
    description: str
    schema: dict[str, Any]


@dataclass(slots=True)
class ToolSpecs:
    functions: list[FunctionSpec]
    web_search: bool = False


def is_search_tool(tool: object) -> bool:
    return isinstance(tool, SearchWebTool)


def function_spec(tool: object) -> FunctionSpec:
    schema = getattr(tool, "schema", None)
    if callable(schema):
        schema = schema()
    if not isinstance(schema, dict):
        schema = {"type": "object", "properties": {}}
    return FunctionSpec(str(getattr(tool, "name", "")), str(getattr(tool, "description", "") or ""), schema)


def function_specs(provider: str, tools: Iterable[object]) -> ToolSpecs:
    out = ToolSpecs([])
    seen: set[str] = set()
    for t in tools:
        if is_search_tool(t):
            out.web_search = True
            continue
        if not hasattr(t, "schema") or not getattr(t, "name", ""):
            raise UnsupportedSettingError(provider, f"tool {t!r} is neither a function tool (name + JSON schema) nor a web-search tool")
        spec = function_spec(t)
        if spec.name in seen:
            raise UnsupportedSettingError(provider, f"two tools are named {spec.name!r}; tool names must be unique")
        seen.add(spec.name)
        out.functions.append(spec)
    return out


def parse_arguments(provider: str, tool: FunctionToolLike, call: FuncCall) -> dict[str, Any]:
    """Parse and validate a forced call's arguments against ``tool`` (raises ToolArgumentsError)."""
    try:
        value = loads_json(call.arguments or "{}")
    except ValueError as e:
        raise ToolArgumentsError(tool.name, f"{provider} returned arguments that are not JSON: {call.arguments[:200]!r} ({e})") from e
    if not isinstance(value, dict):
        raise ToolArgumentsError(tool.name, f"{provider} returned arguments that are not a JSON object: {call.arguments[:200]!r}")
    tool.validate(value)
    return value


__all__ = [
    "GENERATED_ID_PREFIX",
    "DroppedCall",
    "FunctionSpec",
    "FunctionToolLike",
    "PairedHistory",
    "ToolCallAssembler",
    "ToolSpecs",
    "function_spec",
    "function_specs",
    "is_generated_id",
    "is_search_tool",
    "new_call_id",
    "normalize_arguments",
    "pair_tool_results",
    "parse_arguments",
]
