"""One logical response: a StreamID, its metadata and the state of its MIME channels.

A :class:`Response` is created by :meth:`Invocation.start_response` and only
used through the invocation. It tracks, per MIME channel ("route" in the
original), whether the channel is open or already sent its EOS, and whether a
control-only EOS ended the whole response. It builds the terminal chunks that
``finish_response``, ``interrupt``, ``cancel`` and ``fail`` emit, carrying the
response's role, name and label (streamkit never invents a role or label).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from genx.chunk import Blob, MessageChunk, Part, Role, Text, Thinking
from genx.ids import new_stream_id
from genx.mime import TEXT_MIME, THINKING_MIME, parse_mime
from genx.routes import ChannelState, RouteTracker


@dataclass(slots=True)
class ResponseConfig:
    """Metadata of one response. An empty ``stream_id`` is replaced by a fresh one."""

    stream_id: str = ""
    role: Role = Role.NONE
    name: str = ""
    label: str = ""


def empty_part(mime: str) -> Part:
    """A part without content on channel ``mime`` (for synthesized BOS / EOS chunks)."""
    if mime == TEXT_MIME:
        return Text("")
    if mime == THINKING_MIME:
        return Thinking("")
    return Blob(mime, b"")


class Response:
    """Channel bookkeeping of one response (loop-affine; owned by one Invocation)."""

    __slots__ = ("_config", "_routes", "terminal")

    def __init__(self, config: ResponseConfig) -> None:
        sid = config.stream_id.strip() or new_stream_id()
        self._config = ResponseConfig(sid, config.role, config.name, config.label)
        # Per-MIME channel state; a control-only EOS is tracked in ``terminal`` and
        # never fed to the tracker, so channels keep "closed by their own EOS" apart
        # from "ended with the whole response".
        self._routes = RouteTracker()
        self.terminal = False

    @property
    def stream_id(self) -> str:
        return self._config.stream_id

    @property
    def config(self) -> ResponseConfig:
        return self._config

    def declare(self, mime: str) -> str:
        """Open channel ``mime`` (normalised; raises InvalidMimeError). Returns the normalised MIME."""
        norm = parse_mime(mime)
        if self.channel_state(norm) is ChannelState.UNKNOWN:
            self._routes.observe(MessageChunk(part=empty_part(norm), ctrl=None))
        return norm

    def channels(self) -> list[str]:
        r = self._routes.route("")
        return sorted(r.channels) if r is not None else []

    def open_channels(self) -> list[str]:
        return self._routes.open_channels("")

    def channel_state(self, mime: str) -> ChannelState:
        return self._routes.channel_state("", mime)

    # -- emit path ----------------------------------------------------------
    def apply_metadata(self, chunk: MessageChunk) -> MessageChunk:
        """A copy of ``chunk`` with missing role, name, stream_id and label filled from the config."""
        c = chunk.copy()
        cfg = self._config
        if c.role == Role.NONE:
            c.role = cfg.role
        if not c.name:
            c.name = cfg.name
        ctrl = c.ensure_ctrl()
        if not ctrl.stream_id.strip():
            ctrl.stream_id = cfg.stream_id
        if not ctrl.label:
            ctrl.label = cfg.label
        return c

    def check(self, chunk: MessageChunk) -> str:
        """Why ``chunk`` (already filled) cannot enter this response, or ``""`` when it can."""
        if self.terminal:
            return "the response already ended with a control-only EOS"
        sid = chunk.stream_id.strip()
        if sid and sid != self.stream_id:
            return f"chunk carries the foreign StreamID {sid!r}"
        mime = chunk.mime()
        if mime and self.channel_state(mime) is ChannelState.CLOSED:
            return f"MIME channel {mime!r} already sent its EOS"
        return ""

    def accept(self, chunk: MessageChunk) -> None:
        """Record ``chunk`` (checked with :meth:`check`) in the channel bookkeeping."""
        if chunk.is_end_of_stream() and chunk.is_control_only():
            self.terminal = True
            return
        if chunk.mime():
            self._routes.observe(_keyless(chunk))

    # -- terminal chunks -------------------------------------------------------
    def end(self, error: str) -> list[MessageChunk]:
        """Terminal chunks of ``finish_response``: one EOS per open channel (sorted by MIME).

        No channel at all → one control-only EOS; every channel already closed →
        a control-only EOS only when ``error`` is set; already terminal → nothing.
        """
        if self.terminal:
            return []
        self.terminal = True
        if not self.channels():
            return [self.control_eos(error)]
        open_ = self.open_channels()
        if not open_:
            return [self.control_eos(error)] if error else []
        for m in open_:
            self._close(m)
        return [self.channel_eos(m, error) for m in open_]

    def end_after_discard(self, error: str, removed: Iterable[MessageChunk]) -> list[MessageChunk]:
        """Terminal chunks of an interrupt, given this response's removed (never pulled) chunks.

        In MIME order, each channel still open or whose EOS was removed gets: an
        empty BOS if its BOS was removed (never one the producer did not emit),
        then EOS(error). A channel whose EOS was pulled gets nothing.
        """
        removed_bos: set[str] = set()
        removed_eos: set[str] = set()
        removed_ctrl_bos = removed_ctrl_eos = False
        for c in removed:
            m = c.mime()
            if c.is_begin_of_stream():
                if m:
                    removed_bos.add(m)
                elif c.is_control_only():
                    removed_ctrl_bos = True
            if c.is_end_of_stream():
                if m:
                    removed_eos.add(m)
                elif c.is_control_only():
                    removed_ctrl_eos = True
        was_terminal = self.terminal
        self.terminal = True
        if was_terminal and not removed_ctrl_eos:
            return []
        out: list[MessageChunk] = []
        if removed_ctrl_bos:
            out.append(self.control_bos())
        channels = self.channels()
        targets = [m for m in channels if self.channel_state(m) is ChannelState.OPEN or m in removed_eos]
        for m in targets:
            if m in removed_bos:
                out.append(self.channel_bos(m))
            out.append(self.channel_eos(m, error))
            self._close(m)
        if not targets and (not channels or removed_ctrl_bos or removed_ctrl_eos):
            out.append(self.control_eos(error))
        return out

    def control_bos(self) -> MessageChunk:
        cfg = self._config
        return MessageChunk.bos(cfg.stream_id, role=cfg.role, name=cfg.name, label=cfg.label)

    def control_eos(self, error: str) -> MessageChunk:
        cfg = self._config
        return MessageChunk.eos(cfg.stream_id, role=cfg.role, name=cfg.name, label=cfg.label, error=error)

    def channel_bos(self, mime: str) -> MessageChunk:
        cfg = self._config
        return MessageChunk.bos(cfg.stream_id, empty_part(mime), role=cfg.role, name=cfg.name, label=cfg.label)

    def channel_eos(self, mime: str, error: str) -> MessageChunk:
        cfg = self._config
        return MessageChunk.eos(cfg.stream_id, empty_part(mime), role=cfg.role, name=cfg.name, label=cfg.label, error=error)

    def _close(self, mime: str) -> None:
        self._routes.observe(MessageChunk.eos("", empty_part(mime)))

    def __repr__(self) -> str:
        return f"Response(stream_id={self.stream_id!r}, channels={self.channels()!r}, terminal={self.terminal})"


def _keyless(chunk: MessageChunk) -> MessageChunk:
    """The chunk as seen by the single-route tracker (keyed by the empty StreamID)."""
    ctrl = chunk.ctrl
    if ctrl is None or not ctrl.stream_id:
        return chunk
    return MessageChunk(part=chunk.part, ctrl=type(ctrl)("", "", "", ctrl.begin_of_stream, ctrl.end_of_stream))


__all__ = ["Response", "ResponseConfig", "empty_part"]
