"""Settings of one realtime session (provider-neutral; each dialect maps them to its setup frame)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from genx.generators.providers.toolcalls import FunctionSpec, function_specs

TurnDetection = Literal["server_vad", "semantic_vad"] | None


@dataclass(slots=True, frozen=True)
class RealtimeSettings:
    """What the session asks the model for.

    ``turn_detection``: the provider's voice activity detection ends user turns
    (``"server_vad"``; OpenAI also ``"semantic_vad"``), or ``None`` for manual
    turns: the end of each input audio route commits it (push-to-talk).
    ``input_transcription``: OpenAI's transcription model name (``None``: no
    user transcript); Gemini only checks that it is set. ``output_modalities``:
    ``("audio",)`` (speech with its transcript) or ``("text",)``.
    ``extra`` is deep-merged into the provider's session object last (an escape
    hatch for settings this class does not name).
    """

    model: str
    instructions: str = ""
    voice: str | None = None
    output_modalities: tuple[str, ...] = ("audio",)
    turn_detection: TurnDetection = "server_vad"
    create_response: bool = True
    interrupt_response: bool = True
    input_transcription: str | None = None
    output_transcription: bool = True
    tools: tuple[FunctionSpec, ...] = ()
    session_resumption: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise ValueError("a realtime session needs a model name")
        bad = [m for m in self.output_modalities if m not in ("audio", "text")]
        if bad or not self.output_modalities:
            raise ValueError(f"output_modalities must be ('audio',) or ('text',), got {self.output_modalities!r}")

    @property
    def audio_out(self) -> bool:
        return "audio" in self.output_modalities

    @staticmethod
    def specs_of(provider: str, tools: Iterable[object]) -> tuple[FunctionSpec, ...]:
        """Function specs of ``genx.tools.FuncTool`` s (web search is not a realtime tool)."""
        return tuple(function_specs(provider, tools).functions)


__all__ = ["RealtimeSettings", "TurnDetection"]
