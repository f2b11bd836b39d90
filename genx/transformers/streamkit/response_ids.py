"""Fresh invocation-local StreamIDs for model responses.

A provider may reuse its own response ids (or reuse the StreamID of a user
transcript it answers). :class:`ResponseIDs` gives every model response
(``role == assistant``) a fresh StreamID, shared by all MIME channels of that
response; when an upstream id whose response already completed (control EOS,
or every channel sent EOS) is used again, the new response gets a new id.
User and other chunks keep their StreamIDs. Source chunks are never mutated.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from genx.chunk import MessageChunk, Role
from genx.ids import new_stream_id
from genx.stream import Stream, StreamBase

MAX_RETAINED_COMPLETED = 64
_ANONYMOUS = "\x00anonymous"


@dataclass(slots=True)
class _State:
    stream_id: str
    channels: dict[str, bool] = field(default_factory=dict)  # MIME → EOS seen
    terminal: bool = False
    last_used: int = 0

    def complete(self) -> bool:
        return self.terminal or (bool(self.channels) and all(self.channels.values()))


class ResponseIDs:
    """Maps upstream model-response StreamIDs to fresh local ones (one mapper per invocation)."""

    __slots__ = ("_new_id", "_roles", "_seq", "_states")

    def __init__(self, roles: frozenset[Role] = frozenset({Role.ASSISTANT}), new_id: Callable[[], str] = new_stream_id) -> None:
        self._roles = roles
        self._new_id = new_id
        self._states: dict[str, _State] = {}
        self._seq = 0

    def map(self, chunk: MessageChunk) -> MessageChunk:
        """``chunk`` itself for non-model roles, else a copy carrying the local StreamID."""
        if chunk.role not in self._roles:
            return chunk
        out = chunk.copy()
        ctrl = out.ensure_ctrl()
        ctrl.stream_id = self._local_id(chunk.stream_id.strip(), chunk)
        return out

    def _local_id(self, upstream: str, chunk: MessageChunk) -> str:
        key = upstream or _ANONYMOUS
        self._seq += 1
        st = self._states.get(key)
        mime = chunk.mime()
        eos = chunk.is_end_of_stream()
        if st is not None and not eos and (st.terminal or (mime and not chunk.is_begin_of_stream() and st.complete())):
            st = None  # a completed upstream id is being reused: a new response
        if st is None:
            st = self._states[key] = _State(self._new_id())
        st.last_used = self._seq
        if mime:
            st.channels[mime] = eos
        elif eos:
            st.terminal = True
        sid = st.stream_id
        if st.terminal:
            del self._states[key]
        else:
            self._prune(key)
        return sid

    def _prune(self, current: str) -> None:
        while len(self._states) > MAX_RETAINED_COMPLETED:
            done = [(s.last_used, k) for k, s in self._states.items() if k != current and s.complete()]
            if not done:
                return
            del self._states[min(done)[1]]

    def clear(self) -> None:
        self._states.clear()


class ResponseStream(StreamBase):
    """Wraps a provider stream so model responses carry fresh local StreamIDs."""

    __slots__ = ("_ids", "_source")

    def __init__(self, source: Stream, ids: ResponseIDs | None = None) -> None:
        self._source = source
        self._ids = ids or ResponseIDs()

    async def next(self) -> MessageChunk:
        return self._ids.map(await self._source.next())

    async def close(self) -> None:
        self._ids.clear()
        await self._source.close()

    async def close_with_error(self, exc: BaseException) -> None:
        self._ids.clear()
        await self._source.close_with_error(exc)

    def __aiter__(self) -> AsyncIterator[MessageChunk]:
        return self


__all__ = ["ResponseIDs", "ResponseStream"]
