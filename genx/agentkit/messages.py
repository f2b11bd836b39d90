"""Messages as stored: the strict JSON form of the tool traffic a turn keeps (assistant tool calls, tool results).

A turn's answer can be more than its text: the assistant's tool-call messages and
the tool results that led to it. :mod:`.records` keeps them on the
:class:`~genx.agentkit.records.TurnRecord` (``tool_messages``) in this form, so a
reloaded conversation sends them back to the model as the messages they were:

``{"role": "assistant" | "tool", "parts": [{"text": …} | {"thinking": …, "signature": …}],
"name": …, "tool_calls": [{"id", "name", "arguments"}], "tool_result": {"call_id", "name", "content", "is_error"},
"meta": {…}}`` — empty fields are left out. ``meta`` keeps the provider round-trip state
(Gemini's ``thought_signatures``, ``provider_family``, Responses ``reasoning_items``) and
flags (``interrupted``, ``return_direct``); values that are not JSON are dropped.

Parsing is strict like the records': a wrong type is a ``ValueError`` naming the
field. :func:`tool_messages` picks from a rounds report what a turn keeps.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from genx.chunk import FuncCall, Message, Part, Role, Text, Thinking, ToolResult

log = logging.getLogger("genx.agentkit.store")

__all__ = ["message_from_json", "message_to_json", "messages_from_json", "tool_messages"]

_ROLES = {"assistant": Role.ASSISTANT, "tool": Role.TOOL}


def message_to_json(m: Message) -> dict[str, Any]:
    """``m`` as a JSON-ready dict (module docstring). Blob parts are not kept (tool traffic has none)."""
    d: dict[str, Any] = {"role": str(m.role)}
    parts: list[dict[str, str]] = []
    for p in m.parts:
        if isinstance(p, Text):
            parts.append({"text": p.text})
        elif isinstance(p, Thinking):
            parts.append({"thinking": p.text, "signature": p.signature} if p.signature else {"thinking": p.text})
    if parts:
        d["parts"] = parts
    if m.name:
        d["name"] = m.name
    if m.tool_calls:
        d["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls]
    r = m.tool_result
    if r is not None:
        d["tool_result"] = {"call_id": r.call_id, "name": r.name, "content": r.content, "is_error": r.is_error}
    meta = {}
    for k, v in m.meta.items():
        try:
            json.dumps(v)
        except (TypeError, ValueError):
            log.debug("message meta %r is not JSON; not stored", k)
            continue
        meta[str(k)] = v
    if meta:
        d["meta"] = meta
    return d


def message_from_json(d: Any) -> Message:
    """Parse one stored message; ``ValueError`` names what is wrong (never another exception)."""
    if not isinstance(d, dict):
        raise ValueError("a tool message is not a JSON object")
    role = _ROLES.get(d.get("role"))  # type: ignore[arg-type]
    if role is None:
        raise ValueError(f"a tool message has the role {d.get('role')!r}; expected 'assistant' or 'tool'"[:200])
    parts: list[Part] = []
    for p in _list(d, "parts"):
        if not isinstance(p, dict):
            raise ValueError("a message part is not an object")
        if "text" in p:
            parts.append(Text(_s(p, "text")))
        elif "thinking" in p:
            parts.append(Thinking(_s(p, "thinking"), _s(p, "signature")))
        else:
            raise ValueError("a message part has neither 'text' nor 'thinking'")
    calls = []
    for c in _list(d, "tool_calls"):
        if not isinstance(c, dict):
            raise ValueError("a tool call is not an object")
        calls.append(FuncCall(_s(c, "name", required=True), _s(c, "arguments"), _s(c, "id")))
    result = None
    r = d.get("tool_result")
    if r is not None:
        if not isinstance(r, dict):
            raise ValueError("'tool_result' is not an object")
        err = r.get("is_error", False)
        if not isinstance(err, bool):
            raise ValueError("'tool_result.is_error' is not true or false")
        result = ToolResult(_s(r, "call_id"), _s(r, "name"), _s(r, "content"), err)
    if role is Role.TOOL and result is None:
        raise ValueError("a tool message has no 'tool_result'")
    meta = d.get("meta", {})
    if not isinstance(meta, dict):
        raise ValueError("'meta' of a tool message is not an object")
    return Message(role, parts, name=_s(d, "name"), tool_calls=calls, tool_result=result, meta=dict(meta))


def messages_from_json(v: Any) -> list[Message]:
    if v is None:
        return []
    if not isinstance(v, list):
        raise ValueError("'tool_messages' is not a list")
    return [message_from_json(x) for x in v]


def tool_messages(messages: Iterable[Message]) -> list[Message]:
    """What a turn keeps of its rounds' messages: everything up to the last tool result.

    The final answer (text after the last result) is the turn's ``assistant_text``
    (only the heard words when cut), so it is left out here; a turn without tool
    results keeps nothing.
    """
    msgs = list(messages)
    last = max((i for i, m in enumerate(msgs) if m.role == Role.TOOL), default=-1)
    return msgs[: last + 1]


def _list(d: dict[str, Any], key: str) -> list[Any]:
    v = d.get(key, [])
    if not isinstance(v, list):
        raise ValueError(f"{key!r} is not a list")
    return v


def _s(d: dict[str, Any], key: str, *, required: bool = False) -> str:
    v = d.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str):
        raise ValueError(f"{key!r} of a tool message is not a string")
    return v
