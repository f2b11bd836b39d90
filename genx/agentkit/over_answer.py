"""Speech over the answer, as the turn manager keeps it: the candidate, the resumable cut, the voice hint.

Plain records and the two rules that read a speech route: how much of it was
voiced, and the pause that ends it as a backchannel. Pure: no clock, no I/O.

Does not own: the decisions (:mod:`.turn_manager`), what words interrupt (:mod:`.backchannel`).
"""

from __future__ import annotations

from dataclasses import dataclass

from genx.agentkit.turns import Answer, SpeechRoute, Turn

BACKCHANNEL_PAUSE_MS = 600.0  # silence after speech over the answer that ends it as a backchannel
UNFINISHED_PAUSE_MS = 1500.0  # ... when the end-of-turn detector judged its words unfinished (or has not judged yet)
HINT_FRAMES = 2  # the VAD's voice hint the loop ducks on: voiced frames in a row (VadSettings.hint_frames)
HINT_HOLD_S = 0.25  # a duck on a voice hint lasts this long without an onset (the VAD's onset window is 160 ms)


@dataclass(slots=True, eq=False)
class Candidate:
    """Speech that started while ``answer`` was heard: ducked, not yet a barge-in."""

    answer_turn: Turn
    answer: Answer
    onset: float
    turn: Turn | None = None  # the turn the speech opened


@dataclass(slots=True, eq=False)
class Resumable:
    """An answer cut on sound alone: it resumes if the speech that cut it ends without words."""

    answer_turn: Turn
    answer: Answer
    cut_at: float
    by: Turn | None = None  # the turn of the speech that cut it


@dataclass(slots=True, eq=False)
class DuckHint:
    """``answer`` ducked at ``at`` on voiced frames the VAD has not called an onset yet."""

    answer: Answer
    at: float


def dismiss_pause_ms(route: SpeechRoute) -> float:
    """The pause that ends speech over the answer as a backchannel: longer while the end-of-turn detector has not
    found the words complete ("Quiet please, … I have a question" pauses at the comma)."""
    if route.needs_verdict and route.pause_verdict is not True:
        return UNFINISHED_PAUSE_MS
    return BACKCHANNEL_PAUSE_MS


def voiced_ms(turn: Turn) -> float:
    return sum(r.pauses.total_voiced_ms for r in turn.routes)


__all__ = [
    "BACKCHANNEL_PAUSE_MS",
    "HINT_FRAMES",
    "HINT_HOLD_S",
    "UNFINISHED_PAUSE_MS",
    "Candidate",
    "DuckHint",
    "Resumable",
    "dismiss_pause_ms",
    "voiced_ms",
]
