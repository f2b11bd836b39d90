"""RealtimeTransformer: one provider websocket session per ``transform()`` call.

Input stream (chunks the call reads):

* ``audio/L16`` blobs at any rate / channel count (converted to the provider's
  input rate, mono), role user. With the provider's turn detection they are
  streamed as they come; with manual turns (``turn_detection=None``) each
  audio route (StreamID) is one user turn, committed at its EOS (push-to-talk).
  A control chunk labelled ``commit`` commits the audio so far in either mode.
  Other encodings are an :class:`~genx.transformers.audiostream.AudioFormatError`.
* user text: a text chunk without a StreamID is one message; text on a StreamID
  is gathered until its EOS. Each message is sent and answered.
* tool results: :func:`tool_result_chunk` (or :meth:`RealtimeSessionStream.send_tool_result`).
  When every call a response asked for is answered (and the provider ended
  that response), the next response is requested.

Output: see :mod:`genx.transformers.realtime.responses`. The stream raises the
typed provider error of a fatal failure (bad key, unknown model, a connection
that drops, a server that stops answering) after the queued output.

Timeouts: ``config.timeouts.connect`` for the handshake; the read timeout
(default ``config.timeouts.read``) is the longest gap between two frames while
an answer is awaited (setup, a requested or running response); an idle session
waiting for the user never times out.

Reconnects: a session that drops after Gemini sent a resumption handle is
resumed with it; an OpenAI ``session_expired`` gets a fresh session with the
conversation so far replayed as text. Responses open at that moment end with
an error text; a control chunk labelled ``reconnect`` says what happened.

One call's session is :class:`~genx.transformers.realtime.session_call._Call` (:mod:`.session_call`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from genx.generators.providers.config import ProviderConfig
from genx.stream import Stream
from genx.transformers.realtime import events as ev
from genx.transformers.realtime.events import Dialect
from genx.transformers.realtime.session_call import COMMIT, _Call
from genx.transformers.realtime.settings import RealtimeSettings
from genx.transformers.realtime.stream import TOOL_RESULT, RealtimeSessionStream, tool_result_chunk


class RealtimeTransformer:
    """A configured realtime model; every ``transform()`` call opens its own session."""

    __slots__ = ("config", "history", "make_dialect", "max_reconnects", "output_max_bytes", "read_timeout", "settings")

    def __init__(
        self,
        make_dialect: Callable[[], Dialect],
        config: ProviderConfig,
        settings: RealtimeSettings,
        *,
        read_timeout: float | None = None,
        max_reconnects: int = 3,
        output_max_bytes: int = 0,
        history: Iterable[ev.HistoryItem] = (),
    ) -> None:
        self.make_dialect = make_dialect
        self.config = config
        self.settings = settings
        self.read_timeout = read_timeout if read_timeout is not None else config.timeouts.read
        self.max_reconnects = max_reconnects
        self.output_max_bytes = output_max_bytes
        #: the conversation so far, replayed as text into every new session (a continued conversation)
        self.history = tuple(history)

    async def transform(self, stream: Stream) -> RealtimeSessionStream:
        return _Call(self, stream).start()

    def with_tools(self, tools: Iterable[object]) -> RealtimeTransformer:
        """The same model whose sessions offer ``tools`` (``genx.tools.FuncTool`` s) as functions; the caller runs them."""
        specs = RealtimeSettings.specs_of(self.config.provider, tools)
        return self._copy(dataclasses.replace(self.settings, tools=specs), self.history)

    def with_history(self, history: Iterable[ev.HistoryItem]) -> RealtimeTransformer:
        """The same model whose sessions start with ``history`` (text turns) as their conversation."""
        return self._copy(self.settings, tuple(h for h in history if h.text.strip()))

    def _copy(self, settings: RealtimeSettings, history: tuple[ev.HistoryItem, ...]) -> RealtimeTransformer:
        return RealtimeTransformer(
            self.make_dialect,
            self.config,
            settings,
            read_timeout=self.read_timeout,
            max_reconnects=self.max_reconnects,
            output_max_bytes=self.output_max_bytes,
            history=history,
        )


__all__ = ["COMMIT", "TOOL_RESULT", "RealtimeSessionStream", "RealtimeTransformer", "tool_result_chunk"]
