"""How the pre-match and the router's guards write their patterns: one case-insensitive compile."""

from __future__ import annotations

import re

__all__ = ["rx"]


def rx(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled case-insensitively (what a user says has no fixed case)."""
    return re.compile(pattern, re.IGNORECASE)
