"""HTTP transport over ``httpx.AsyncClient``: open a streamed POST, retry only before the first byte.

* Timeouts are per phase (connect, write, pool) and per read (``read`` is the idle
  gap between two reads), never a whole-stream limit.
* A request is retried (exponential backoff, or the server's ``Retry-After`` /
  ``retry-after-ms``) on connect failures, on retryable statuses and on a
  connection lost before the first body byte; once a body byte has been
  delivered nothing is retried.
* Every failure becomes a typed :class:`ProviderError`; request headers (the key)
  are never logged or put into messages.
* :meth:`HttpTransport.open` returns an :class:`OpenStream` whose ``aclose()``
  closes the connection at once (used on cancellation).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.errors import (
    ProtocolError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    classify_body,
    parse_retry_after,
)
from genx.generators.providers.framing import loads_json

log = logging.getLogger(__name__)

MAX_ERROR_BODY = 64 * 1024

Sleep = Callable[[float], Awaitable[None]]


@dataclass(slots=True)
class WireRequest:
    """One HTTP call: URL, JSON body and headers (headers hold the key: never log them)."""

    url: str
    body: dict[str, Any]
    headers: dict[str, str]
    #: multipart upload: field → (file name, bytes, MIME); ``body`` then holds the form fields
    files: dict[str, tuple[str, bytes, str]] | None = None

    def __repr__(self) -> str:
        return f"WireRequest(url={self.url!r}, body=<{len(self.body)} keys>)"


def httpx_timeout(config: ProviderConfig) -> httpx.Timeout:
    t = config.timeouts
    return httpx.Timeout(connect=t.connect, read=t.read, write=t.write, pool=t.pool)


def map_httpx_error(provider: str, exc: httpx.HTTPError, config: ProviderConfig, *, in_body: bool) -> ProviderError:
    t = config.timeouts
    if isinstance(exc, httpx.ConnectTimeout):
        return ProviderTimeoutError(provider, f"connecting timed out after {t.connect:g}s")
    if isinstance(exc, httpx.ReadTimeout):
        where = "between two reads of the stream" if in_body else "waiting for the response"
        return ProviderTimeoutError(provider, f"no data for {t.read:g}s {where} (read timeout)")
    if isinstance(exc, httpx.WriteTimeout):
        return ProviderTimeoutError(provider, f"sending the request timed out after {t.write:g}s")
    if isinstance(exc, httpx.PoolTimeout):
        return ProviderTimeoutError(provider, f"no free connection after {t.pool:g}s")
    if isinstance(exc, httpx.TimeoutException):
        return ProviderTimeoutError(provider, f"timed out: {exc}")
    if isinstance(exc, httpx.ConnectError):
        return ProviderConnectionError(provider, f"cannot connect to {config.base_url}: {exc}")
    if isinstance(exc, httpx.DecodingError):
        return ProtocolError(provider, f"cannot decode the response body: {exc}")
    if isinstance(exc, httpx.RemoteProtocolError):
        if in_body:
            return ProviderConnectionError(provider, f"connection closed mid-stream: {exc}")
        return ProtocolError(provider, f"the server sent an invalid HTTP response: {exc}")
    if isinstance(exc, httpx.ReadError | httpx.WriteError | httpx.CloseError):
        return ProviderConnectionError(provider, f"connection lost{' mid-stream' if in_body else ''}: {exc or type(exc).__name__}")
    return ProviderConnectionError(provider, f"{type(exc).__name__}: {exc}")


class OpenStream:
    """A 2xx streamed response whose first body bytes were already read."""

    __slots__ = ("_config", "_first", "_it", "_provider", "response")

    def __init__(self, response: httpx.Response, first: bytes, it: AsyncIterator[bytes], provider: str, config: ProviderConfig) -> None:
        self.response = response
        self._first = first
        self._it = it
        self._provider = provider
        self._config = config

    async def chunks(self) -> AsyncIterator[bytes]:
        if self._first:
            first, self._first = self._first, b""
            yield first
        while True:
            try:
                b = await anext(self._it)
            except StopAsyncIteration:
                return
            except httpx.HTTPError as e:
                raise map_httpx_error(self._provider, e, self._config, in_body=True) from e
            if b:
                yield b

    async def aclose(self) -> None:
        await self.response.aclose()


class HttpTransport:
    """POSTs JSON for one provider over an (injectable) ``httpx.AsyncClient``."""

    def __init__(self, config: ProviderConfig, client: httpx.AsyncClient | None = None, *, sleep: Sleep | None = None) -> None:
        self.config = config
        self._own = client is None
        self.client = client if client is not None else httpx.AsyncClient(timeout=httpx_timeout(config))
        self._sleep: Sleep = sleep or asyncio.sleep

    async def aclose(self) -> None:
        if self._own:
            await self.client.aclose()

    async def _build(self, req: WireRequest) -> httpx.Request:
        cfg = self.config
        auth = await asyncio.to_thread(cfg.auth_headers) if cfg.resolves_secrets else cfg.auth_headers()
        headers = {**req.headers, **auth}
        if req.files is not None:
            form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in req.body.items()}
            return self.client.build_request("POST", req.url, data=form, files=req.files, headers=headers, timeout=httpx_timeout(cfg))
        body = json.dumps(req.body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return self.client.build_request("POST", req.url, content=body, headers=headers, timeout=httpx_timeout(cfg))

    async def _retry_wait(self, err: ProviderError, attempt: int) -> bool:
        """Sleep before the next attempt and return True, or False when ``err`` must surface now."""
        policy = self.config.retry
        if attempt >= policy.max_retries:
            return False
        delay = policy.backoff(attempt)
        if isinstance(err, RateLimitError):
            if "quota" in f"{err.code} {err.type}".lower():
                return False  # a spent quota does not come back by waiting
            if err.retry_after is not None:
                if err.retry_after > policy.max_retry_after:
                    return False
                delay = err.retry_after
        elif err.status is not None and err.status not in policy.statuses:
            return False
        log.info("%s: retrying after %.2fs (attempt %d): %s", self.config.provider, delay, attempt + 1, err.message)
        await self._sleep(delay)
        return True

    async def open(self, req: WireRequest) -> OpenStream:
        """Send ``req`` and wait for the first body bytes, retrying what failed before them."""
        provider = self.config.provider
        request = await self._build(req)
        attempt = 0
        while True:
            response: httpx.Response | None = None
            try:
                response = await self.client.send(request, stream=True)
                if response.status_code >= 400:
                    body = await _read_bounded(response)
                    await response.aclose()
                    err: ProviderError = classify_body(provider, response.status_code, body, response.headers)
                    if response.status_code in self.config.retry.statuses and await self._retry_wait(err, attempt):
                        attempt += 1
                        continue
                    raise err
                it = response.aiter_bytes()
                first = b""
                while not first:
                    try:
                        first = await anext(it)
                    except StopAsyncIteration:
                        break
                return OpenStream(response, first, it, provider, self.config)
            except httpx.HTTPError as e:
                if response is not None:
                    await response.aclose()
                mapped = map_httpx_error(provider, e, self.config, in_body=False)
                retryable = isinstance(e, httpx.ConnectError | httpx.ConnectTimeout | httpx.ReadError | httpx.RemoteProtocolError)
                if retryable and await self._retry_wait(mapped, attempt):
                    attempt += 1
                    continue
                raise mapped from e
            except BaseException:
                if response is not None:
                    await response.aclose()
                raise

    async def post_json(self, req: WireRequest) -> Any:
        """Non-streaming call: the parsed JSON body (same retries and error mapping)."""
        stream = await self.open(req)
        try:
            parts = [b async for b in stream.chunks()]
        finally:
            await stream.aclose()
        raw = b"".join(parts)
        try:
            return loads_json(raw)
        except ValueError as e:
            raise ProtocolError(self.config.provider, f"the response is not JSON: {raw[:200]!r}") from e


async def _read_bounded(response: httpx.Response) -> bytes:
    out = bytearray()
    try:
        async for b in response.aiter_bytes():
            out += b
            if len(out) >= MAX_ERROR_BODY:
                break
    except httpx.HTTPError:
        pass
    return bytes(out)


__all__ = ["HttpTransport", "OpenStream", "WireRequest", "httpx_timeout", "map_httpx_error", "parse_retry_after"]
