"""SegmentorMux: segmentors by topic pattern; itself a :class:`~genx.segmentors.Segmentor`."""

from __future__ import annotations

from collections.abc import Sequence

from genx.chunk import Message
from genx.segmentors import Segment, Segmentor
from genx.structured import CapabilityMux


class SegmentorMux(CapabilityMux[Segmentor]):
    __slots__ = ()

    async def segment(self, pattern: str, messages: Sequence[Message]) -> list[Segment]:
        return await self.resolve(pattern).segment(pattern, messages)


__all__ = ["SegmentorMux"]
