"""A tool call in a few words, for the chat window and the terminal: ``current_time(city="Tokyo")`` → ``It's 17:35 in Tokyo.``

Qt-free so that ``--headless`` (:mod:`app.terminal`) and the window
(:mod:`app.ui.widgets.tool_calls`) show tool activity the same way.
"""

from __future__ import annotations

import json

__all__ = ["STATUS_WORDS", "call_summary", "clip", "pretty_arguments", "status_words", "tool_line"]

STATUS_WORDS = {
    "running": "running…",
    "ok": "done",
    "failed": "failed",
    "invalid_arguments": "refused: bad arguments",
    "unknown_tool": "refused: no such tool",
    "timeout": "timed out",
    "cancelled": "cancelled",
    "reused": "already done for this request",
    "refused": "not run",
}


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def call_summary(name: str, arguments: str, *, limit: int = 80) -> str:
    """``name(key=value, …)`` from the JSON arguments (the raw text when they are not a JSON object)."""
    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return f"{name}({clip(arguments, limit)})"
    if not isinstance(args, dict):
        return f"{name}({clip(arguments, limit)})"
    inner = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return f"{name}({clip(inner, limit)})"


def pretty_arguments(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments or "{}"), indent=2, ensure_ascii=False)
    except ValueError:
        return arguments


def status_words(status: str) -> str:
    return STATUS_WORDS.get(status, status or "done")


def tool_line(name: str, arguments: str, status: str, result: str = "", *, limit: int = 100, args_limit: int = 80) -> str:
    """One line: ``current_time(city="Tokyo") → It's 17:35 in Tokyo.`` (or ``… → timed out: …``, ``… running…``)."""
    head = call_summary(name, arguments, limit=args_limit)
    if status == "running":
        return f"{head} {status_words(status)}"
    if status == "ok":
        return f"{head} → {clip(result, limit)}" if result else f"{head} → done"
    detail = f": {clip(result, limit)}" if result else ""
    return f"{head} → {status_words(status)}{detail}"
