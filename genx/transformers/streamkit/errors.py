"""Typed errors of the streamkit runtime."""

from __future__ import annotations

from genx.errors import GenxError, StreamClosedError


class OutputLimitError(GenxError):
    """Queued, not yet pulled output exceeded the byte limit of one call's output queue.

    The queue is discarded; every later ``next()`` raises this same error.
    """

    def __init__(self, queued: int, next_bytes: int, max_bytes: int) -> None:
        self.queued = queued
        self.next_bytes = next_bytes
        self.max_bytes = max_bytes
        super().__init__(
            f"output buffer limit exceeded: queued={queued} next={next_bytes} max={max_bytes}; "
            "pull the output faster or raise the output byte limit (output_max_bytes)"
        )


class ResponseActiveError(GenxError):
    """``start_response`` with a StreamID that another active response of the call already uses."""

    def __init__(self, stream_id: str) -> None:
        self.stream_id = stream_id
        super().__init__(f"response is already active: stream_id={stream_id!r}; finish or interrupt it first, or use another StreamID")


class InactiveResponseError(GenxError):
    """Output for a response that cannot take it (retired, interrupted, foreign StreamID, closed channel)."""

    def __init__(self, stream_id: str, why: str) -> None:
        self.stream_id = stream_id
        self.why = why
        super().__init__(f"response is not active: stream_id={stream_id!r}: {why}")


class InvocationClosedError(StreamClosedError):
    """An operation on an invocation that was closed, failed or cancelled."""

    def __init__(self, state: str = "closed") -> None:
        GenxError.__init__(self, f"invocation is {state}; start a new transform() call to produce more output")
