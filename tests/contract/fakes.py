"""Scripted fakes shared by transformer tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field


class SynthesisFailed(RuntimeError):
    pass


@dataclass
class FakeSynth:
    """A :class:`genx.transformers.tts.Synthesizer` that yields deterministic PCM.

    Each segment yields ``chunks`` blocks of ``chunk_bytes`` bytes; block bytes are
    ``segment index`` so tests can tell segments apart. ``gate`` (if set) is awaited
    before every block, ``permits`` (if set) is acquired once per block, ``encode``
    maps each block (e.g. wraps it in an ID3-tagged MP3 frame), ``fail_on`` raises :class:`SynthesisFailed` for segments
    containing it. ``calls`` lists the segments in call order, ``closed_early``
    the ones whose generator was closed before it finished.
    """

    mime: str = "audio/L16; rate=16000; channels=1"
    chunks: int = 2
    chunk_bytes: int = 320
    gate: asyncio.Event | None = None
    permits: asyncio.Semaphore | None = None
    encode: Callable[[bytes], bytes] | None = None
    fail_on: str | None = None
    calls: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    closed_early: list[str] = field(default_factory=list)

    async def synthesize(self, text: str) -> AsyncIterator[bytes]:
        index = len(self.calls)
        self.calls.append(text)
        done = False
        try:
            for _ in range(self.chunks):
                if self.gate is not None:
                    await self.gate.wait()
                if self.permits is not None:
                    await self.permits.acquire()
                await asyncio.sleep(0)
                if self.fail_on is not None and self.fail_on in text:
                    raise SynthesisFailed(f"voice failed on {text!r}")
                block = bytes([index % 256]) * self.chunk_bytes
                yield self.encode(block) if self.encode is not None else block
            done = True
        finally:
            if done:
                self.finished.append(text)
            else:
                self.closed_early.append(text)
