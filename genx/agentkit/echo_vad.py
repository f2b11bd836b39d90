"""The VAD fallback against echo: stricter VAD settings while the assistant speaks.

Does not own: the VAD itself (``genx.local.vad``), the canceller and the gate (:mod:`.echo`, :mod:`.echo_gate`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol

log = logging.getLogger("genx.agentkit.echo")


class Tunable(Protocol):
    """What the fallback needs from the VAD (``genx.local.vad.VadTransformer.tune``)."""

    def tune(self, **changes: Any) -> Any: ...


STRICT_VAD: Mapping[str, Any] = {"aggressiveness": 3, "onset_ratio": 0.8, "min_energy_dbfs": -30.0}
# with the echo canceller and the gate in front: only the clearest speech counts. (A faster onset,
# 3 voiced frames of 4, cut barge-in by ~40 ms but let residual echo bursts through on the looped-back
# speaker: the assistant interrupted itself.)
MILD_VAD: Mapping[str, Any] = {"aggressiveness": 3, "min_energy_dbfs": -42.0}


class VadEchoFallback:
    """Stricter VAD while the assistant speaks; restores the previous settings afterwards."""

    __slots__ = ("_active", "_saved", "strict", "vad")

    def __init__(self, vad: Tunable, strict: Mapping[str, Any] = STRICT_VAD) -> None:
        self.vad = vad
        self.strict = dict(strict)
        self._saved: dict[str, Any] | None = None
        self._active = False

    @property
    def active(self) -> bool:
        return self._active

    def speaking(self, on: bool) -> None:
        if on == self._active:
            return
        try:
            if on:
                current = getattr(self.vad, "settings", None)
                self._saved = {k: getattr(current, k) for k in self.strict} if current is not None else None
                self.vad.tune(**self.strict)
            elif self._saved is not None:
                self.vad.tune(**self._saved)
            self._active = on
        except Exception:
            log.exception("could not retune the VAD for echo fallback")


__all__ = ["MILD_VAD", "STRICT_VAD", "Tunable", "VadEchoFallback"]
