"""Route and MIME-channel tracking for one Stream.

A *route* is a StreamID; each part MIME on it is a *channel*. The rules
(``genx-behaviours.md``, "Routes and MIME channels"):

* a chunk with a part opens (declares) the channel of its MIME on its route,
  whether it is a BOS, data or anything else that is not an EOS;
* a control-only BOS (no part) *holds* the route open as a whole, so the
  producer may add channels later;
* an EOS with a part closes only that channel;
* a control-only EOS (no part, no tool call) closes the whole route: every
  channel and the hold;
* neither ends the Stream; :meth:`RouteTracker.close_all` models the Stream's end.

A route is *open* while it is held or has at least one open channel. Chunks
without a part and without BOS/EOS (tool calls, bare control) only make the
route known. The tracker is plain bookkeeping: it never raises on odd input,
so callers (streamkit, transformers) decide what counts as a protocol error
by asking :meth:`RouteTracker.channel_state` before they emit.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from genx.chunk import MessageChunk


class ChannelState(enum.Enum):
    UNKNOWN = "unknown"  # never seen on this route
    OPEN = "open"
    CLOSED = "closed"  # an EOS closed it (channel EOS or a control-only EOS of the route)


@dataclass(slots=True)
class Route:
    """Bookkeeping of one StreamID. ``channels`` maps MIME → open?, in first-seen order."""

    stream_id: str
    label: str = ""
    held: bool = False
    channels: dict[str, bool] = field(default_factory=dict)

    @property
    def is_open(self) -> bool:
        return self.held or any(self.channels.values())

    def open_channels(self) -> list[str]:
        """Open MIME channels, sorted by MIME (the order EOS chunks are emitted in)."""
        return sorted(m for m, is_open in self.channels.items() if is_open)


@dataclass(slots=True)
class RouteChange:
    """What one observed chunk changed. ``closed`` lists the channels it closed (sorted)."""

    stream_id: str
    opened: str | None = None  # MIME channel newly opened, if any
    closed: list[str] = field(default_factory=list)
    route_closed: bool = False  # the route went from open to not open


class RouteTracker:
    """Knows, per StreamID, which MIME channels are open, following the EOS rules.

    Routes are kept in first-seen order, so :meth:`open_routes` and
    :meth:`close_all` are deterministic (insertion order, never hash order).
    """

    __slots__ = ("_routes",)

    def __init__(self) -> None:
        self._routes: dict[str, Route] = {}

    def observe(self, chunk: MessageChunk) -> RouteChange:
        """Apply ``chunk`` to the bookkeeping and say what changed."""
        sid = chunk.stream_id
        route = self._routes.get(sid)
        if route is None:
            route = self._routes[sid] = Route(sid)
        if chunk.label and not route.label:
            route.label = chunk.label
        was_open = route.is_open
        change = RouteChange(sid)
        mime = chunk.mime()
        if chunk.is_end_of_stream():
            if chunk.part is None and chunk.tool_call is None:
                change.closed = route.open_channels()
                for m in route.channels:
                    route.channels[m] = False
                route.held = False
            elif mime:
                if route.channels.get(mime):
                    change.closed = [mime]
                route.channels[mime] = False
        elif mime:
            if not route.channels.get(mime):
                change.opened = mime
            route.channels[mime] = True
        elif chunk.is_begin_of_stream():
            route.held = True
        change.route_closed = was_open and not route.is_open
        return change

    def route(self, stream_id: str) -> Route | None:
        return self._routes.get(stream_id)

    def is_open(self, stream_id: str) -> bool:
        r = self._routes.get(stream_id)
        return r is not None and r.is_open

    def channel_state(self, stream_id: str, mime: str) -> ChannelState:
        """State of the channel ``mime`` (normalised) on ``stream_id``."""
        r = self._routes.get(stream_id)
        if r is None or mime not in r.channels:
            return ChannelState.UNKNOWN
        return ChannelState.OPEN if r.channels[mime] else ChannelState.CLOSED

    def open_channels(self, stream_id: str) -> list[str]:
        r = self._routes.get(stream_id)
        return [] if r is None else r.open_channels()

    def open_routes(self) -> list[str]:
        """StreamIDs of open routes, in first-seen order."""
        return [sid for sid, r in self._routes.items() if r.is_open]

    def known_routes(self) -> list[str]:
        return list(self._routes)

    def close_all(self) -> list[tuple[str, list[str]]]:
        """Close every route (the Stream ended); return ``(stream_id, channels that were open)`` per route that was open."""
        out: list[tuple[str, list[str]]] = []
        for sid, r in self._routes.items():
            if r.is_open:
                out.append((sid, r.open_channels()))
                for m in r.channels:
                    r.channels[m] = False
                r.held = False
        return out

    def forget(self, stream_id: str) -> None:
        """Drop all knowledge of ``stream_id`` (a retired id may be reused afresh)."""
        self._routes.pop(stream_id, None)

    def __len__(self) -> int:
        return len(self._routes)
