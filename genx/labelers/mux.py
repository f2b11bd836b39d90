"""LabelerMux: labelers by topic pattern; itself a :class:`~genx.labelers.Labeler`."""

from __future__ import annotations

from collections.abc import Sequence

from genx.labelers import Label, Labeler
from genx.structured import CapabilityMux


class LabelerMux(CapabilityMux[Labeler]):
    """``label("memory/recall", …)`` is served by the labeler registered for a matching pattern."""

    __slots__ = ()

    async def label(self, pattern: str, query: str, candidates: Sequence[str], top_k: int) -> list[Label]:
        return await self.resolve(pattern).label(pattern, query, candidates, top_k)


__all__ = ["LabelerMux"]
