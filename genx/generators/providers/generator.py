"""The generic HTTP :class:`~genx.generators.Generator`: a :class:`Dialect` over :class:`HttpTransport`.

``generate_stream`` builds the request at once (so unsupported settings raise
from the call), then a task per stream reads the body, frames it (SSE or
NDJSON), converts events to chunks and pushes them as they arrive. Closing the
returned stream cancels that task, which closes the HTTP connection.

The returned :class:`ProviderStream` exposes, once the stream has ended,
``usage`` (:class:`~genx.model.Usage` or ``None``), ``finish_reason`` (the
provider's raw reason), ``response_id`` and ``dropped_tool_calls``. The same
facts arrive as the last chunk of every stream, a part-less chunk whose
``meta`` is ``{"usage": Usage | None, "finish_reason": str, "provider": str,
"family": str, "response_id": str}`` (plus ``"dropped_tool_calls"`` / ``"refusal"`` when present).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Literal, Protocol

import httpx

from genx.chunk import FuncCall, MessageChunk
from genx.errors import Truncated
from genx.generators.provider_kinds import KINDS
from genx.generators.providers.config import ProviderConfig, Timeouts, kind_config
from genx.generators.providers.convert import ASSISTANT, ConverterBase
from genx.generators.providers.errors import ProtocolError, ProviderError
from genx.generators.providers.framing import NDJSONDecoder, SSEDecoder, loads_json
from genx.generators.providers.toolcalls import DroppedCall, FunctionToolLike, parse_arguments
from genx.generators.providers.transport import HttpTransport, Sleep, WireRequest
from genx.model import ModelContext, ModelContextBuilder, ModelParams, MultiModelContext, Usage
from genx.stream import BuiltStream, StreamBuilder

log = logging.getLogger(__name__)


class NoToolCallError(ProviderError):
    """``invoke`` got an answer without a valid call of the requested tool."""


class Dialect(Protocol):
    """One wire API: request building and conversion, no I/O."""

    @property
    def framing(self) -> Literal["sse", "ndjson"]: ...

    def stream_request(self, config: ProviderConfig, model: str, ctx: ModelContext) -> WireRequest: ...

    def invoke_request(self, config: ProviderConfig, model: str, ctx: ModelContext, tool: FunctionToolLike) -> WireRequest: ...

    def new_converter(self, provider: str) -> ConverterBase: ...

    def convert_response(self, provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, ConverterBase]: ...


class ProviderStream(BuiltStream):
    """The stream returned by :meth:`HttpGenerator.generate_stream` (see module docstring)."""

    __slots__ = ("dropped_tool_calls", "finish_reason", "provider", "response_id", "usage")

    def __init__(self, builder: StreamBuilder, provider: str) -> None:
        super().__init__(builder)
        self.provider = provider
        self.usage: Usage | None = None
        self.finish_reason = ""
        self.response_id = ""
        self.dropped_tool_calls: list[DroppedCall] = []


def _final_meta(conv: ConverterBase) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "usage": conv.usage,
        "finish_reason": conv.finish_reason,
        "provider": conv.provider,
        "family": conv.family,
        "response_id": conv.response_id,
    }
    if conv.dropped_calls:
        meta["dropped_tool_calls"] = list(conv.dropped_calls)
    if conv.refusal:
        meta["refusal"] = conv.refusal
    return meta


def feed_sse(conv: ConverterBase, decoder: SSEDecoder, data: bytes, out: list[MessageChunk], *, eof: bool = False) -> None:
    """Decode SSE bytes and append the chunks of every complete event to ``out``.

    Raises the converter's ProviderError (``out`` keeps what came before it) or a
    ProtocolError for an event whose data is not JSON.
    """
    try:
        events = decoder.feed(data) if data else []
        if eof:
            events += decoder.close()
    except ValueError as e:  # FrameTooLargeError
        raise ProtocolError(conv.provider, f"malformed event stream: {e}") from e
    for ev in events:
        raw = ev.data
        if not raw:
            continue
        if raw == "[DONE]" or raw.strip() == "[DONE]":
            out += conv.on_done()
            continue
        try:
            obj = loads_json(raw)
        except ValueError as e:
            raise ProtocolError(conv.provider, f"malformed event: data is not JSON: {raw[:200]!r}") from e
        out += convert_event(conv, ev.event, obj)
        if conv.finished:
            return


def feed_ndjson(conv: ConverterBase, decoder: NDJSONDecoder, data: bytes, out: list[MessageChunk], *, eof: bool = False) -> None:
    """NDJSON counterpart of :func:`feed_sse`."""
    try:
        objs = decoder.feed(data) if data else []
        if eof:
            objs += decoder.close()
    except ValueError as e:
        raise ProtocolError(conv.provider, f"malformed event: {e}") from e
    for obj in objs:
        out += convert_event(conv, "", obj)
        if conv.finished:
            return


_SHAPE_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError, ArithmeticError)


def convert_event(conv: ConverterBase, event: str, obj: Any) -> list[MessageChunk]:
    """``conv.feed(event, obj)``; an event of a shape the converter cannot read is a ProtocolError naming it.

    The converters read the documented shapes; a provider (or a proxy) sending
    something else must end the stream with a typed error, not crash the converter.
    """
    try:
        return conv.feed(event, obj)
    except ProviderError:
        raise
    except _SHAPE_ERRORS as e:
        what = f"event {event!r}" if event else "event"
        raise ProtocolError(conv.provider, f"malformed {what}: unexpected shape ({type(e).__name__}: {e}): {obj!r:.200}") from e


def close_converter(conv: ConverterBase) -> tuple[list[MessageChunk], BaseException]:
    """``conv.close()``, with the same protection as :func:`convert_event` for state built from odd events."""
    try:
        return conv.close()
    except ProviderError:
        raise
    except _SHAPE_ERRORS as e:
        raise ProtocolError(conv.provider, f"malformed stream: cannot finish it ({type(e).__name__}: {e})") from e


def convert_bytes(
    conv: ConverterBase, framing: Literal["sse", "ndjson"], pieces: Iterable[bytes]
) -> tuple[list[MessageChunk], BaseException]:
    """Convert a whole recorded body (in any split) without I/O: ``(chunks, end)``, exactly as the generator would."""
    out: list[MessageChunk] = []
    feed = feed_sse if framing == "sse" else feed_ndjson
    decoder: Any = SSEDecoder() if framing == "sse" else NDJSONDecoder()
    try:
        for data in pieces:
            feed(conv, decoder, data, out)
            if conv.finished:
                break
        else:
            feed(conv, decoder, b"", out, eof=True)
        tail, end = close_converter(conv)
        out += tail
    except ProviderError as e:
        end = e
    return out, end


class HttpGenerator:
    """A genx Generator for one configured provider endpoint and wire dialect.

    ``client`` (an ``httpx.AsyncClient``, e.g. with ``httpx.MockTransport``) is
    injectable; without it the generator owns a client (``aclose()`` closes it).
    """

    def __init__(
        self,
        config: ProviderConfig,
        dialect: Dialect,
        *,
        client: httpx.AsyncClient | None = None,
        sleep: Sleep | None = None,
        params: ModelParams | None = None,
        system_prompt: str | None = None,
    ) -> None:
        self.config = config
        self.dialect = dialect
        self.transport = HttpTransport(config, client, sleep=sleep)
        self._tasks: set[asyncio.Task[None]] = set()
        self._defaults: ModelContext | None = None
        self._prompted: ModelContext | None = None
        if params is not None:
            self._defaults = ModelContextBuilder().params(params).build()
        if system_prompt:
            b = ModelContextBuilder().prompt(system_prompt, name="model")
            if params is not None:
                b.params(params)
            self._prompted = b.build()

    def context(self, ctx: ModelContext) -> ModelContext:
        """``ctx`` over this generator's defaults: its params (ctx params win), and its system prompt only when
        ``ctx`` brings none (a conversation's own system prompt replaces the generator's, never stacks on it)."""
        own = self._prompted if self._prompted is not None and not any(p.text.strip() for p in ctx.prompts()) else self._defaults
        return ctx if own is None else MultiModelContext(own, ctx)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"

    @property
    def provider(self) -> str:
        return self.config.provider

    def model_for(self, pattern: str) -> str:
        return self.config.model or pattern

    async def aclose(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        await self.transport.aclose()

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> ProviderStream:
        req = self.dialect.stream_request(self.config, self.model_for(pattern), self.context(ctx))
        builder = StreamBuilder()
        stream = ProviderStream(builder, self.provider)
        builder.stream = stream
        task = asyncio.get_running_loop().create_task(self._run(builder, stream, req))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

        def _cancel(_exc: BaseException | None) -> None:
            if not task.done():
                task.cancel()

        builder.on_close(_cancel)
        return stream

    async def _run(self, builder: StreamBuilder, stream: ProviderStream, req: WireRequest) -> None:
        conv = self.dialect.new_converter(self.provider)
        end: BaseException
        opened = None
        out: list[MessageChunk] = []
        feed = feed_sse if self.dialect.framing == "sse" else feed_ndjson
        decoder: Any = SSEDecoder() if self.dialect.framing == "sse" else NDJSONDecoder()
        try:
            opened = await self.transport.open(req)
            async for data in opened.chunks():
                feed(conv, decoder, data, out)
                if out and not builder.ended:
                    builder.push_many(out)
                out.clear()
                if conv.finished:
                    break
            else:
                feed(conv, decoder, b"", out, eof=True)
            tail, end = close_converter(conv)
            out += tail
        except ProviderError as e:
            # Chunks converted before the error are delivered; pending (unfinished) tool calls are not.
            end = e
        except Exception as e:  # a converter bug must not hang the consumer
            log.exception("%s: stream conversion failed", self.provider)
            end = ProtocolError(self.provider, f"internal error while converting the stream: {type(e).__name__}: {e}")
        finally:
            if opened is not None:
                await opened.aclose()
        if out and not builder.ended:
            builder.push_many(out)
        stream.usage = conv.usage
        stream.finish_reason = conv.finish_reason
        stream.response_id = conv.response_id
        stream.dropped_tool_calls = list(conv.dropped_calls)
        if isinstance(end, ProviderError):
            log.info("%s: stream ended with %s", self.provider, end)
        if builder.ended:
            return
        builder.push(MessageChunk(role=ASSISTANT, meta=_final_meta(conv)))
        builder.abort(end)

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FunctionToolLike) -> tuple[Usage, FuncCall]:
        """Force a call of ``tool`` (non-streaming); arguments are validated against its schema."""
        req = self.dialect.invoke_request(self.config, self.model_for(pattern), self.context(ctx), tool)
        body = await self.transport.post_json(req)
        chunks, end, conv = self.dialect.convert_response(self.provider, body)
        if isinstance(end, ProviderError):
            raise end
        calls = [c.tool_call for c in chunks if c.tool_call is not None]
        call = next((c for c in calls if c.name == tool.name), None)
        if call is None:
            if isinstance(end, Truncated):
                why = "the answer was cut by max_tokens before the arguments were complete; raise max_tokens"
            elif conv.dropped_calls:
                why = f"its arguments were not valid JSON: {conv.dropped_calls[0].arguments[:200]!r}"
            else:
                names = ", ".join(c.name for c in calls) or "none"
                why = f"the model called: {names} (finish reason {conv.finish_reason or 'unknown'!r})"
            raise NoToolCallError(self.provider, f"no valid call of tool {tool.name!r}: {why}")
        parse_arguments(self.provider, tool, call)
        return (conv.usage or Usage(), call)


class KindGenerator(HttpGenerator):
    """An :class:`HttpGenerator` whose defaults are the provider kinds table's row for ``KIND``.

    ``Adapter(base_url=None, api_key=None, model=None, headers=, timeouts=, provider=)``:
    ``base_url`` defaults to the row's; without ``api_key`` the row's environment
    variable is read, for the default host only. ``config=`` replaces all of
    these; ``dialect=`` replaces :meth:`new_dialect`; the rest goes to :class:`HttpGenerator`.
    """

    KIND: ClassVar[str]

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        timeouts: Timeouts | Mapping[str, Any] | float | None = None,
        provider: str | None = None,
        config: ProviderConfig | None = None,
        dialect: Dialect | None = None,
        **kw: Any,
    ) -> None:
        if config is None:
            row = KINDS[self.KIND]
            config = kind_config(
                row, base_url=base_url, api_key=api_key, model=model, headers=headers, timeouts=timeouts, provider=provider
            )
        super().__init__(config, dialect if dialect is not None else self.new_dialect(), **kw)

    def new_dialect(self) -> Dialect:
        raise NotImplementedError


__all__ = [
    "Dialect",
    "HttpGenerator",
    "KindGenerator",
    "NoToolCallError",
    "ProviderStream",
    "close_converter",
    "convert_bytes",
    "convert_event",
    "feed_ndjson",
    "feed_sse",
]
