"""An httpx transport spy: every ``httpx.AsyncClient`` created while installed talks to it, and it counts open clients.

``spy = HttpSpy.install(monkeypatch)`` replaces ``httpx.AsyncClient`` with a subclass whose default
transport is a :class:`SpyTransport` (answering with ``handler``, by default an empty event stream) and
records every request. ``spy.open`` is how many of those transports were not closed yet (an
``AsyncClient.aclose()`` closes its transport).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

Handler = Callable[[httpx.Request], httpx.Response]


def empty_stream(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, content=b"", headers={"content-type": "text/event-stream"})


class SpyTransport(httpx.MockTransport):
    def __init__(self, handler: Handler) -> None:
        super().__init__(handler)
        self.closed = False

    async def aclose(self) -> None:
        self.closed = True
        await super().aclose()


class HttpSpy:
    def __init__(self, handler: Handler = empty_stream) -> None:
        self.transports: list[SpyTransport] = []
        self.requests: list[httpx.Request] = []
        self._handler = handler

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self._handler(request)

    @classmethod
    def install(cls, monkeypatch: pytest.MonkeyPatch, handler: Handler = empty_stream) -> HttpSpy:
        spy = cls(handler)
        real = httpx.AsyncClient

        class SpiedClient(real):  # type: ignore[misc, valid-type]
            def __init__(self, **kw: Any) -> None:
                if "transport" not in kw:
                    t = SpyTransport(spy._handle)
                    spy.transports.append(t)
                    kw["transport"] = t
                super().__init__(**kw)

        monkeypatch.setattr(httpx, "AsyncClient", SpiedClient)
        return spy

    @property
    def created(self) -> int:
        return len(self.transports)

    @property
    def open(self) -> int:
        return sum(not t.closed for t in self.transports)
