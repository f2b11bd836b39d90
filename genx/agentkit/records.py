"""One finished turn as stored: :class:`TurnRecord`, its strict JSON form, and turn-id numbering.

A record is one JSON object per line (``"v": 1``). Parsing is strict: a field of
the wrong type (``"interrupted": "false"``, a string start time) is a
``ValueError`` naming the field, never a coercion and never another exception.
:func:`next_turn_seq` gives the loop the number of its next turn id (``t<n>``)
after a stored conversation. The files themselves are :mod:`.store`'s.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

_TURN_ID_RE = re.compile(r"^t([0-9]{1,18})$")
RECORD_VERSION = 1


@dataclass(slots=True)
class TurnRecord:
    """One finished exchange.

    ``assistant_text`` is what the history keeps: the spoken text when
    ``interrupted``, else the whole answer. ``generated_text`` is everything the
    model produced (for the record; never fed back when interrupted).
    ``timings`` holds the per-turn metrics (seconds / milliseconds, see
    :class:`~genx.agentkit.events.TurnMetrics`).
    """

    turn_id: str
    user_text: str
    assistant_text: str
    interrupted: bool = False
    generated_text: str = ""
    typed: bool = False
    resumed: bool = False  # no user words: assistant_text replaces the previous turn's (it resumed that answer)
    error: str = ""
    generator: str = ""
    started_at: float = 0.0  # wall clock (epoch seconds)
    timings: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        d = asdict(self)
        d["v"] = RECORD_VERSION
        return json.dumps(d, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> TurnRecord:
        """Parse one line; ``ValueError`` names what is wrong (never another exception)."""
        try:
            d = json.loads(line)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None
        if not isinstance(d, dict):
            raise ValueError("not a JSON object")
        timings = d.get("timings", {})
        if not isinstance(timings, dict):
            raise ValueError("'timings' is not an object")
        return cls(
            turn_id=_str(d, "turn_id", required=True),
            user_text=_str(d, "user_text", required=True),
            assistant_text=_str(d, "assistant_text", required=True),
            interrupted=_bool(d, "interrupted"),
            generated_text=_str(d, "generated_text"),
            typed=_bool(d, "typed"),
            resumed=_bool(d, "resumed"),
            error=_str(d, "error"),
            generator=_str(d, "generator"),
            started_at=_number(d, "started_at"),
            timings=timings,
        )


def _str(d: dict[str, Any], key: str, *, required: bool = False) -> str:
    v = d.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str):
        raise ValueError(f"missing or non-string {key!r}" if required else f"{key!r} is not a string")
    return v


def _bool(d: dict[str, Any], key: str) -> bool:
    v = d.get(key, False)
    if not isinstance(v, bool):
        raise ValueError(f"{key!r} is not true or false: {v!r}"[:200])
    return v


def _number(d: dict[str, Any], key: str) -> float:
    v = d.get(key, 0.0)
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"{key!r} is not a number")
    try:
        f = float(v)
    except OverflowError:
        raise ValueError(f"{key!r} is out of range") from None
    if not math.isfinite(f):
        raise ValueError(f"{key!r} is not finite")
    return f


def next_turn_seq(records: Iterable[TurnRecord]) -> int:
    """The first ``n`` whose turn id ``t<n>`` is not used by ``records`` and comes after all of them (1 when none).

    A loop continuing a stored conversation numbers its next turn with this, so a
    reloaded conversation never repeats a stored turn id.
    """
    last = 0
    for r in records:
        m = _TURN_ID_RE.match(r.turn_id)
        if m:
            last = max(last, int(m.group(1)))
    return last + 1


__all__ = ["RECORD_VERSION", "TurnRecord", "next_turn_seq"]
