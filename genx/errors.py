"""Typed errors of genx and the end states of a stream.

A stream ends by raising a :class:`State` from ``next()``: :class:`Done`
(normal end), :class:`Truncated`, :class:`Blocked` or :class:`GenerateError`.
The same end error is raised again on every later ``next()``.

Everything else here is a :class:`GenxError`: a mistake a caller or a user can
act on, with a message that names the offending item and what to do.
"""

from __future__ import annotations


class GenxError(Exception):
    """Base of every genx error that is not an end-of-stream state."""


class State(Exception):
    """End state of a stream. ``str(state)`` is the Go original's message."""

    kind: str = "state"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class Done(State):
    """The stream ended normally."""

    kind = "done"

    def __init__(self) -> None:
        super().__init__("genx: generate done")


class Truncated(State):
    """Generation stopped early (e.g. max tokens)."""

    kind = "truncated"

    def __init__(self) -> None:
        super().__init__("genx: generate truncated")


class Blocked(State):
    """Generation was refused (content filter, safety)."""

    kind = "blocked"

    def __init__(self, reason: str = "") -> None:
        self.reason = reason
        super().__init__(f"genx: generate blocked: {reason}")


class GenerateError(State):
    """Generation failed; ``cause`` is the underlying exception."""

    kind = "error"

    def __init__(self, cause: BaseException | str) -> None:
        self.cause = cause
        super().__init__(f"genx: generate error: {cause}")


class StreamClosedError(GenxError):
    """A push or operation on a stream that was already closed."""

    def __init__(self, what: str = "stream") -> None:
        super().__init__(f"{what} is closed; create a new stream to send more chunks")


class UnexpectedEndOfStreamError(GenxError):
    """A provider stream ended without a finish reason / terminal event."""

    def __init__(self, provider: str = "", detail: str = "") -> None:
        who = f"{provider}: " if provider else ""
        extra = f" ({detail})" if detail else ""
        super().__init__(f"{who}unexpected end of stream: the provider closed the stream without a terminal event{extra}")


class InvalidMimeError(GenxError, ValueError):
    """A MIME type that cannot be parsed."""

    def __init__(self, mime: str, why: str) -> None:
        self.mime = mime
        super().__init__(f"invalid MIME type {mime!r}: {why}")


class MuxError(GenxError):
    """Base of mux registration and lookup errors."""


class PatternError(MuxError, ValueError):
    """A registration pattern that breaks the topic-pattern rules."""

    def __init__(self, pattern: str, why: str) -> None:
        self.pattern = pattern
        super().__init__(f"invalid pattern {pattern!r}: {why}")


class AlreadyRegisteredError(MuxError):
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        super().__init__(f"pattern {pattern!r} already registered; use another name or remove the first registration")


class NotFoundError(MuxError, LookupError):
    def __init__(self, name: str, known: list[str] | None = None) -> None:
        self.name = name
        hint = f"; registered: {', '.join(known)}" if known else "; nothing is registered"
        super().__init__(f"not found for {name}{hint}")


class ToolArgumentsError(GenxError, ValueError):
    """Arguments for a tool call that fail the tool's schema."""

    def __init__(self, tool: str, detail: str) -> None:
        self.tool = tool
        self.detail = detail
        super().__init__(f"tool {tool!r}: invalid arguments: {detail}")


class ToolDefinitionError(GenxError, TypeError):
    """A tool whose schema cannot be derived."""

    def __init__(self, tool: str, detail: str) -> None:
        self.tool = tool
        super().__init__(f"tool {tool!r}: {detail}")


class ToolRoundLimitError(GenxError):
    """The model kept calling tools after the last allowed tool round (see :mod:`genx.toolrounds`)."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        super().__init__(
            f"the model kept asking for tools after {rounds} tool round(s) and a request to answer without them; "
            "stopped. Ask a simpler question, or raise max_tool_rounds if the task really needs more steps"
        )


class MatchRuleError(GenxError, ValueError):
    """A match rule (or rule set) that cannot be compiled (see :mod:`genx.match`)."""

    def __init__(self, rule: str, detail: str) -> None:
        self.rule = rule
        self.detail = detail
        super().__init__(f"match rule {rule!r}: {detail}" if rule else f"match rules: {detail}")


class ToolFailure(GenxError):
    """A tool's own answer that it cannot do what was asked ("I don't know the time zone of Atlantis").

    Raised inside a tool function; :meth:`genx.tools.FuncTool.call` turns it into
    an error result whose text is exactly this message (no exception type name),
    so the model, or the voice loop, can say it as it is.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
