"""One utterance of the local ASR: its audio, its segments and the decodes of its partials, flushes and final.

See :mod:`genx.local.asr` for the contract (labels, ordering, long utterances,
how partials are kept from hogging the CPU). Does not own: reading the input
routes (:mod:`genx.local.asr_call`), the decoder (:mod:`genx.local.whisper`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from genx.chunk import MessageChunk, Role
from genx.local.asr_settings import FINAL, PARTIAL, PROVISIONAL
from genx.local.partials import LocalAgreement, join_text
from genx.local.pcm import dbfs, loudest_frame_dbfs, quietest_cut
from genx.local.route_input import RouteConverter

if TYPE_CHECKING:
    from genx.local.asr_call import AsrCall

log = logging.getLogger("genx.local.asr")


@dataclass(slots=True)
class Utterance:
    """One utterance's audio and decode state. Lives on the event loop thread only."""

    call: AsrCall
    sid: str
    prompt: str = ""  # context for the final decodes (the BOS meta's PROMPT)
    over_answer: bool = False  # spoken over the assistant's answer (the BOS meta's OVER_ANSWER)
    listen_for: tuple[str, ...] = ()  # phrases it may be (the BOS meta's LISTEN_FOR)
    buf: bytearray = field(default_factory=bytearray)  # 16 kHz mono int16, the whole utterance
    seg_start: int = 0  # byte offset of the open segment
    closed: list[str] = field(default_factory=list)  # decoded text of closed segments (for the final)
    closed_shown: list[str] = field(default_factory=list)  # what partials showed of them when they closed (never changes)
    commit: asyncio.Task[None] | None = None  # last segment decode in the ordered chain
    partial: asyncio.Task[None] | None = None
    # texts pushed that are newer than any partial still running (provisional and final): a partial that finishes
    # after one of them is stale; one that finishes after a flush or the end started, before its text went out, is not
    newer_texts: int = 0
    last_partial_at: int = 0
    partial_ready_at: float = 0.0  # monotonic time before which no partial starts (duty cycle)
    shown: str = ""
    seg_hypothesis: str = ""  # latest partial of the open segment: the placeholder when it closes
    agreement: LocalAgreement = field(default_factory=LocalAgreement)
    conv: RouteConverter = field(default_factory=RouteConverter)
    ended: bool = False  # the input route ended
    route_closed: bool = False  # the output route got its EOS
    partial_count: int = 0
    # the last flush: (bytes of buf it covered, seg_start then, its decode); the final reuses it when nothing
    # audible came after it
    flushed: tuple[int, int, asyncio.Task[str]] | None = None
    provisional_sent: asyncio.Task[None] | None = None  # the last flush's push: the final goes out after it

    # -- input ------------------------------------------------------------------
    def audio(self, mime: str, data: bytes) -> None:
        tail = self.conv.switch(mime)
        if tail is not None:
            self.buf += tail
        if data:
            self.buf += self.conv.process(data)
        s = self.call.settings
        if len(self.buf) - self.seg_start >= s.segment_max_ms * 32:
            self._roll_segment()
        self._maybe_partial()

    def end(self, error: str) -> None:
        """The utterance's EOS: start the final decode now, or forward the error."""
        if self.ended:
            return
        self.ended = True
        out = self.call.out
        assert out is not None
        if error:
            if self.partial is not None:
                self.partial.cancel()
            self.close_route(error)
            return
        tail = self.conv.flush()
        if tail is not None:
            self.buf += tail
        self.call.last_final = self.call.spawn(self._final(self.call.last_final), self, f"asr.final:{self.sid}")

    def flush(self) -> None:
        """The speaker paused: decode what the route holds now and send it as ``provisional`` text."""
        if self.ended:
            return
        n = len(self.buf)
        if self.flushed is not None and self.flushed[0] == n:
            return
        task = asyncio.get_running_loop().create_task(self._decode_upto(n, final=True), name=f"asr.flush:{self.sid}")
        self.flushed = (n, self.seg_start, task)
        self.provisional_sent = self.call.spawn(self._provisional(task, n), self, f"asr.provisional:{self.sid}")

    async def _decode_upto(self, n: int, final: bool) -> str:
        tail = await self._decode(bytes(self.buf[self.seg_start : n]), final=final)
        if self.commit is not None:
            await self.commit
        return join_text(*self.closed, tail)

    async def _provisional(self, task: asyncio.Task[str], n: int) -> None:
        text = await task
        out = self.call.out
        if self.route_closed or out is None or out.ended or self.flushed is None or self.flushed[2] is not task:
            return
        c = MessageChunk.text(text, role=Role.USER, stream_id=self.sid, label=PROVISIONAL)
        c.meta = {"audio_ms": n // 32}
        self.newer_texts += 1
        out.push(c)

    def _reusable_flush(self) -> asyncio.Task[str] | None:
        """The last flush's decode when the audio after it is all quiet (the final would hear the same)."""
        f = self.flushed
        if f is None or f[1] != self.seg_start:
            return None
        n, _, task = f
        if len(self.buf) > n and loudest_frame_dbfs(self.buf, n) >= self.call.settings.partial_quiet_dbfs:
            return None
        return task

    def abandon(self, error: str) -> None:
        """The input failed: close the route with ``error``; pending decodes are dropped."""
        self.ended = True
        self.close_route(error)

    def close_route(self, error: str = "") -> None:
        """Push this route's one EOS (label ``final``), unless it was pushed already or the output ended."""
        if self.route_closed:
            return
        self.route_closed = True
        if self in self.call.live:
            self.call.live.remove(self)
        out = self.call.out
        if out is not None and not out.ended:
            out.push(MessageChunk.eos(self.sid, role=Role.USER, label=FINAL, error=error))

    # -- decoding -----------------------------------------------------------------
    async def _decode(self, pcm: bytes, final: bool) -> str:
        s = self.call.settings
        samples = np.frombuffer(pcm, dtype=np.int16)
        if samples.size < s.min_decode_ms * 16 or dbfs(samples) < s.silence_dbfs:
            return ""
        audio = samples.astype(np.float32) / 32768.0
        prompt = self.prompt if final else ""
        decode = self.call.decoder.decode
        return await asyncio.to_thread(decode, audio, final, prompt, over_answer=self.over_answer, listen_for=self.listen_for)

    def _maybe_partial(self) -> None:
        s = self.call.settings
        if not s.partials or self.ended or self.partial is not None:
            return
        n = len(self.buf)
        if n - self.seg_start < s.min_partial_ms * 32 or n - self.last_partial_at < s.partial_interval_ms * 32:
            return
        if time.monotonic() < self.partial_ready_at:
            return
        if loudest_frame_dbfs(self.buf, self.last_partial_at) < s.partial_quiet_dbfs:
            self.last_partial_at = n
            return
        if s.partial_pause_ms > 0 and loudest_frame_dbfs(self.buf, max(self.seg_start, n - s.partial_pause_ms * 32)) < s.partial_quiet_dbfs:
            return  # (not consumed: speech after the pause starts the partial)
        self.last_partial_at = n
        pcm = bytes(self.buf[self.seg_start :])
        self.partial = self.call.spawn(self._partial(pcm, self.seg_start, self.newer_texts), self, f"asr.partial:{self.sid}")

    async def _partial(self, pcm: bytes, seg_start: int, newer_texts: int) -> None:
        """Decode the open segment's audio so far and show it; still shown when it finishes after a flush or the end
        started (their decodes can take seconds on a loaded machine, and the loop judges speech over the answer by
        it: a "Stop" read here cuts the answer that the flush's reading would reach too late), not after their text
        went out, nor once the segment closed."""
        t0 = time.monotonic()
        try:
            text = await self._decode(pcm, final=False)
        finally:
            self.partial = None
            t1 = time.monotonic()
            self.partial_ready_at = t1 + (t1 - t0) * self.call.settings.partial_duty
        out = self.call.out
        stale = seg_start != self.seg_start or newer_texts != self.newer_texts
        if stale or self.route_closed or out is None or out.ended:
            log.debug("ASR %s: stale partial dropped", self.sid)
            return
        committed, tentative = self.agreement.update(text)
        self.seg_hypothesis = join_text(committed, tentative)
        shown = join_text(*self.closed_shown, committed, tentative)
        if shown and shown != self.shown:
            self.shown = shown
            self.partial_count += 1
            c = MessageChunk.text(shown, role=Role.USER, stream_id=self.sid, label=PARTIAL)
            c.meta = {"committed": join_text(*self.closed_shown, committed), "tentative": tentative}
            out.push(c)
        self._maybe_partial()

    def _roll_segment(self) -> None:
        s = self.call.settings
        seg = np.frombuffer(bytes(self.buf[self.seg_start :]), dtype=np.int16)
        cut = self.seg_start + 2 * quietest_cut(seg, s.segment_search_ms * 16)
        pcm = bytes(self.buf[self.seg_start : cut])
        self.seg_start = cut
        self.agreement.reset()
        index = len(self.closed)
        self.closed.append("")
        self.closed_shown.append(self.seg_hypothesis)
        self.seg_hypothesis = ""
        self.commit = self.call.spawn(self._commit(self.commit, pcm, index), self, f"asr.segment:{self.sid}")
        self.last_partial_at = self.seg_start

    async def _commit(self, prev: asyncio.Task[None] | None, pcm: bytes, index: int) -> None:
        text = await self._decode(pcm, final=True)
        if prev is not None:
            await prev
        self.closed[index] = text

    async def _final(self, prev: asyncio.Task[None] | None) -> None:
        t0 = time.perf_counter()
        reuse = self._reusable_flush()
        if reuse is not None:
            text = await reuse
        else:
            text = await self._decode_upto(len(self.buf), final=True)
        if prev is not None:
            await asyncio.wait([prev])  # the previous utterance's final goes out first (its failure is its own)
        if self.provisional_sent is not None:
            await asyncio.wait([self.provisional_sent])  # a provisional text never follows its route's final
        out = self.call.out
        if out is None or out.ended:
            return
        c = MessageChunk.text(text, role=Role.USER, stream_id=self.sid, label=FINAL)
        c.meta = {
            "audio_ms": len(self.buf) // 32,
            "decode_ms": round((time.perf_counter() - t0) * 1000),
            "partials": self.partial_count,
            "from_flush": reuse is not None,
        }
        self.newer_texts += 1
        out.push(c)
        self.close_route()


__all__ = ["Utterance"]
