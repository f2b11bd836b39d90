"""The end-of-turn detector the settings ask for (``[loop] turn_detection``), or the silence rule with a reason.

``"smart-turn"`` (the default) combines the in-process SmolLM2's end-of-message
probability of the provisional transcript with the Smart Turn v3.2 audio model
(:class:`genx.turn.combined.CombinedDetector`); with a generator that is not the
in-process llama.cpp model, Smart Turn decides alone. ``"silence"`` is the plain
rule: the turn ends after ``end_of_turn_silence_ms`` of silence.

A model that cannot be loaded never stops Parley: :func:`build_turn_detector`
and :func:`warm_turn_detector` return ``None`` with a message to show, and the
loop falls back to the silence rule.
"""

from __future__ import annotations

import logging
from typing import Any

from genx.errors import GenxError

log = logging.getLogger("parley.turns")

FALLBACK = "falling back to the silence rule ([loop] end_of_turn_silence_ms)"


def build_turn_detector(loop_settings: Any, generator: Any) -> tuple[Any | None, str]:
    """``(detector or None, warning)``: None with no warning for ``"silence"``; None with a warning when it failed."""
    if loop_settings.turn_detection != "smart-turn":
        return None, ""
    from genx.generators.llamacpp import LlamaCppGenerator
    from genx.generators.llamacpp_qa import QA_CHAT_FORMAT
    from genx.turn.combined import CombinationRule, CombinedDetector
    from genx.turn.smart_turn import SmartTurnDetector
    from genx.turn.text import TextTurnDetector

    try:
        audio = SmartTurnDetector(threshold=loop_settings.turn_audio_threshold)
        if not isinstance(generator, LlamaCppGenerator) or generator.options.chat_format == QA_CHAT_FORMAT:
            return audio, ""  # the text signal needs the model's own chat template; a base model (Q/A format) has none
        text = TextTurnDetector(generator, threshold=loop_settings.turn_text_complete)
        rule = CombinationRule(
            text_complete=loop_settings.turn_text_complete,
            text_incomplete=loop_settings.turn_text_incomplete,
            audio_threshold=loop_settings.turn_audio_threshold,
        )
        return CombinedDetector(audio, text, rule), ""
    except (GenxError, ValueError, OSError) as e:
        log.warning("end-of-turn detection unavailable: %s", e)
        return None, f"Smart end-of-turn detection is unavailable ({e}); {FALLBACK}."


async def warm_turn_detector(detector: Any) -> str:
    """Load the detector's models now; a warning (and the caller drops the detector) when that fails."""
    try:
        await detector.warm()
    except Exception as e:
        log.warning("end-of-turn model failed to load: %s", e)
        return f"The end-of-turn model could not be loaded ({e}); {FALLBACK}."
    return ""


__all__ = ["build_turn_detector", "warm_turn_detector"]
