"""The microphone front end: level meter, echo canceller and gate, mute, push-to-talk pre-roll.

:class:`MicFrontEnd` reads the capture stream and hands every processed chunk to
the speech router (``to_vad``, and ``to_ptt`` for an open push-to-talk press).
It also owns the echo measures that follow the assistant's speech: the stricter
VAD while speaking (:class:`~genx.agentkit.echo.VadEchoFallback`) and the
gate's learned echo, which must not learn from audio that barged in.

Does not own: routes, turns or the VAD itself (:mod:`.router`), the far-end
feed of the played audio (:mod:`.heard`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from genx.agentkit.core import L16_16K, LoopCore
from genx.agentkit.echo import EchoCanceller, EchoGate, FarEndTimeline, LevelMeter, VadEchoFallback
from genx.agentkit.events import ErrorKind, InputLevel
from genx.chunk import Blob, MessageChunk, Role
from genx.stream import Stream


def blob_len(c: MessageChunk) -> int:
    return len(c.part.data) if isinstance(c.part, Blob) else 0


class MicFrontEnd:
    """See the module docstring."""

    def __init__(
        self,
        core: LoopCore,
        *,
        echo: EchoCanceller | None,
        gate: EchoGate | None,
        fallback: VadEchoFallback | None,
        output_latency: Callable[[], float],
    ) -> None:
        self._core = core
        self._echo = echo
        self._gate = gate
        self._fallback = fallback
        self._output_latency = output_latency
        self._meter = LevelMeter(core.config.level_rate_hz)
        self._preroll: deque[MessageChunk] = deque()
        self._preroll_bytes = 0
        self._fallback_off: asyncio.TimerHandle | None = None
        # where the played audio is written for the echo canceller and the gate (one timeline when they share it)
        self.far_ends: list[FarEndTimeline] = []
        for fe in (echo.far if echo is not None else None, gate.far if gate is not None else None):
            if fe is not None and all(fe is not x for x in self.far_ends):
                self.far_ends.append(fe)
        # diagnostics: tap(raw_pcm, processed_pcm, captured_at) for every capture chunk (after echo handling)
        self.mic_taps: list[Callable[[bytes, bytes, float], None]] = []
        self.to_vad: Callable[[MessageChunk], None] = lambda c: None
        self.to_ptt: Callable[[str, bytes, int], None] = lambda mime, data, ts: None

    def preroll(self) -> list[MessageChunk]:
        """The last ``ptt_preroll_ms`` of processed audio (oldest first)."""
        return list(self._preroll)

    async def pump(self, capture: Stream) -> None:
        await self._core.consume(
            capture,
            self._on_capture,
            kind=ErrorKind.DEVICE,
            failed="the microphone stream failed",
            ended="the microphone stream ended; typed messages still work",
            fatal_end=False,
        )

    def _on_capture(self, c: MessageChunk) -> None:
        core = self._core
        part = c.part
        if not isinstance(part, Blob) or not part.data:
            return
        now = core.clock()
        lvl = self._meter.feed(part.data, now)
        if lvl is not None:
            core.emit(InputLevel(dbfs=lvl))
        data = part.data
        if (self._echo is not None or self._gate is not None) and part.mime == L16_16K:
            t_cap = c.timestamp / 1000.0 if c.timestamp else now - len(data) / 32000.0
            if self._echo is not None:
                data = self._echo.process(data, t_cap)
            if self._gate is not None:
                data = self._gate.process(data, t_cap, raw=part.data if self._echo is not None else None)
        for tap in self.mic_taps:
            tap(part.data, data, c.timestamp / 1000.0 if c.timestamp else now)
        if core.muted:
            data = bytes(len(data))
        if not data:
            return
        chunk = MessageChunk.blob(part.mime, data, role=Role.USER, stream_id="mic", timestamp=c.timestamp)
        self.to_vad(chunk)
        self._preroll.append(chunk)
        self._preroll_bytes += len(data)
        preroll_max = 32 * core.config.ptt_preroll_ms
        while self._preroll_bytes > preroll_max and len(self._preroll) > 1:
            self._preroll_bytes -= blob_len(self._preroll.popleft())
        self.to_ptt(part.mime, data, c.timestamp)

    def speaking(self, on: bool) -> None:
        """The assistant's audio started (or ended): the stricter VAD follows it, with an echo tail after the end."""
        fb = self._fallback
        if fb is None:
            return
        if self._fallback_off is not None:
            self._fallback_off.cancel()
            self._fallback_off = None
        if on:
            fb.speaking(True)
        else:
            tail = self._core.config.echo_tail_s + self._output_latency()
            self._fallback_off = asyncio.get_running_loop().call_later(tail, fb.speaking, False)

    def user_barged_in(self) -> None:
        """The audio that just barged in was the user, not echo: the gate must not learn it as echo."""
        if self._gate is not None:
            self._gate.forget_recent()

    def user_over_answer(self, on: bool) -> None:
        """The user talks over the answer without (yet) cutting it (ducked): that audio is not echo either."""
        if self._gate is not None:
            self._gate.hold_learning(on)

    def truncate_far(self, t: float) -> None:
        """Audio scheduled after ``t`` was discarded: it will never be heard, so it is no echo source."""
        for fe in self.far_ends:
            fe.truncate(t)

    def close(self) -> None:
        if self._fallback_off is not None:
            self._fallback_off.cancel()
        if self._fallback is not None:
            self._fallback.speaking(False)


__all__ = ["MicFrontEnd", "blob_len"]
