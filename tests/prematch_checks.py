"""Checking one pre-matched utterance against the slots it should have, compared by meaning with the bench's scorer."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench.tool_slots import slots_ok
from genx.assistant import prematch


def check_prematch(text: str, tool: str, slots: dict[str, Any]) -> None:
    """``text`` is claimed by the pre-match for ``tool`` with ``slots`` (by meaning: "10 minutes" = "ten minutes")."""
    got = prematch(text)
    assert got is not None, f"{text!r} was not matched"
    assert got.tool == tool, (text, got)
    assert slots_ok(dict(got.arguments), slots), (text, dict(got.arguments), slots)
