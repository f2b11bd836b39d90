"""ProfilerMux: profilers by topic pattern; itself a :class:`~genx.profilers.Profiler`."""

from __future__ import annotations

from collections.abc import Sequence

from genx.profilers import FactChange, Profile, Profiler
from genx.segmentors import Segment
from genx.structured import CapabilityMux


class ProfilerMux(CapabilityMux[Profiler]):
    __slots__ = ()

    async def profile(self, pattern: str, profile: Profile, segments: Sequence[Segment]) -> list[FactChange]:
        return await self.resolve(pattern).profile(pattern, profile, segments)


__all__ = ["ProfilerMux"]
