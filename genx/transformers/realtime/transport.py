"""The thin websocket transport of a realtime session (the ``websockets`` asyncio client).

* ``connect`` opens the socket within ``timeouts.connect`` seconds, sending the
  credentials as headers (``config.auth_headers()``, resolved in a worker thread
  when a resolver may block); no compression (audio frames are base64 and do not
  shrink, deflate only costs CPU per frame).
* Every failure is a typed :class:`~genx.generators.providers.errors.ProviderError`:
  a refused handshake is classified by its HTTP status and body (401 →
  ``AuthenticationError`` …); a close frame by its reason text (Gemini closes
  with 1008 "API key not valid", 1007 "model … not found"); a socket dropped
  without a close frame is a ``ProviderConnectionError``.
* Frames are JSON text; a frame that is not JSON comes back as ``None`` (the
  session logs and skips it). Keys are never logged.

The read timeout is the session's (it only applies while an answer is awaited).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.errors import (
    BadRequestError,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    classify,
    classify_body,
)

log = logging.getLogger(__name__)

MAX_FRAME = 16 * 1024 * 1024


class SessionClosedError(ProviderConnectionError):
    """The server closed the session (``code`` None: the socket dropped without a close frame)."""

    def __init__(self, provider: str, message: str, *, code: int | None, reason: str) -> None:
        super().__init__(provider, message)
        self.close_code = code
        self.close_reason = reason


def closed_error(provider: str, code: int | None, reason: str) -> ProviderError:
    """The typed error for a session that ended with close ``code`` / ``reason``."""
    if code is None or code == 1006:
        return SessionClosedError(provider, "the connection dropped (no close frame)", code=code, reason=reason)
    if reason:
        err = classify(provider, None, {"error": {"message": reason, "code": str(code)}})
        if type(err) not in (ProviderError, BadRequestError):
            err.close_code = code  # type: ignore[attr-defined]
            return err
    text = f"the server closed the session (code {code}{': ' + reason if reason else ''})"
    return SessionClosedError(provider, text, code=code, reason=reason)


class Connection:
    """One open websocket: JSON frames out, parsed frames in."""

    __slots__ = ("_ws", "provider")

    def __init__(self, ws: ClientConnection, provider: str) -> None:
        self._ws = ws
        self.provider = provider

    async def send(self, frame: dict[str, Any]) -> None:
        await self.send_text(json.dumps(frame, ensure_ascii=False, separators=(",", ":")))

    async def send_text(self, text: str) -> None:
        try:
            await self._ws.send(text)
        except ConnectionClosed as e:
            raise self._closed(e) from e

    async def recv(self) -> Any:
        """The next frame, parsed (``None`` for a frame that is not JSON); raises the typed close error at the end."""
        try:
            raw = await self._ws.recv()
        except ConnectionClosed as e:
            raise self._closed(e) from e
        try:
            return json.loads(raw)
        except ValueError:
            log.warning("%s realtime: a frame that is not JSON was skipped (%d bytes)", self.provider, len(raw))
            return None

    def _closed(self, e: ConnectionClosed) -> ProviderError:
        rcvd = e.rcvd
        if rcvd is None:
            return closed_error(self.provider, None, "")
        return closed_error(self.provider, rcvd.code, rcvd.reason)

    async def close(self) -> None:
        try:
            await self._ws.close()
        except Exception:  # closing a broken socket: nothing left to do
            log.debug("%s realtime: close failed", self.provider, exc_info=True)


async def open_connection(url: str, config: ProviderConfig, *, extra_headers: dict[str, str] | None = None) -> Connection:
    """Connect to ``url`` with ``config``'s credentials and connect timeout."""
    provider = config.provider
    auth = await asyncio.to_thread(config.auth_headers) if config.resolves_secrets else config.auth_headers()
    headers = {**(extra_headers or {}), **auth}
    timeout = config.timeouts.connect
    try:
        ws = await connect(
            url,
            additional_headers=headers,
            compression=None,
            open_timeout=timeout,
            max_size=MAX_FRAME,
            user_agent_header="parley-genx",
        )
    except InvalidStatus as e:
        r = e.response
        raise classify_body(provider, r.status_code, bytes(r.body or b""), dict(r.headers.raw_items())) from e
    except InvalidURI as e:
        raise ProviderConfigError(provider, f"invalid realtime URL {url!r}: {e}", key="base_url") from e
    except TimeoutError as e:
        raise ProviderTimeoutError(provider, f"connecting timed out after {timeout:g}s") from e
    except InvalidHandshake as e:
        raise ProviderConnectionError(provider, f"the websocket handshake failed: {e}") from e
    except OSError as e:
        raise ProviderConnectionError(provider, f"cannot connect to {config.base_url}: {e}") from e
    return Connection(ws, provider)


__all__ = ["Connection", "SessionClosedError", "closed_error", "open_connection"]
