"""Pauses inside a speech route, measured on the audio itself (10 ms frames), ahead of the VAD's end of turn.

:class:`PauseTracker` follows one route's loudness: the peak so far, how long
the audio has been quiet (more than 25 dB under the peak, or under -50 dBFS),
and how much voiced audio came since the last mark. The router asks the ASR for
a provisional transcript when a pause is long enough, and voids it when sound
returns. Pure: no clock, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from genx.agentkit.echo import FRAME, frame_db

QUIET_UNDER_PEAK_DB = 25.0
QUIET_FLOOR_DB = -50.0
VOICED_OVER_QUIET_DB = 6.0
FRAME_MS = 10.0


@dataclass(slots=True)
class PauseTracker:
    peak_db: float = -120.0
    quiet_ms: float = 0.0  # quiet audio since the last sound
    voiced_ms: float = 0.0  # voiced audio since the last :meth:`mark`
    total_voiced_ms: float = 0.0  # voiced audio since the start

    def feed(self, pcm: bytes) -> bool:
        """Add 16 kHz mono int16 audio; True when any frame of it was not quiet (the pause, if any, is over)."""
        x = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype="<i2")
        sound = False
        for i in range(0, x.size - FRAME + 1, FRAME):
            db = frame_db(x[i : i + FRAME])
            self.peak_db = max(self.peak_db, db)
            quiet_below = max(QUIET_FLOOR_DB, self.peak_db - QUIET_UNDER_PEAK_DB)
            if db < quiet_below:
                self.quiet_ms += FRAME_MS
                continue
            self.quiet_ms = 0.0
            sound = True
            if db >= quiet_below + VOICED_OVER_QUIET_DB:
                self.voiced_ms += FRAME_MS
                self.total_voiced_ms += FRAME_MS
        return sound

    def mark(self) -> None:
        """Count voiced audio from here on (a flush, or a new ASR route)."""
        self.voiced_ms = 0.0


__all__ = ["PauseTracker"]
