"""GeneratorSegmentor: segments from a model through ``Generator.invoke`` with a JSON-schema'd tool."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genx.chunk import Message, Role
from genx.generators import Generator
from genx.segmentors import Segment, has_text, parse_segments
from genx.structured import GeneratorRef, generator_ref
from genx.tools import FuncTool

TOOL_NAME = "segment_conversation"

SYSTEM = (
    "You split a conversation into segments. For each segment write a one-sentence summary, list the entities it "
    "mentions (the user as name 'user' with type 'user'; people, places and things by name with their type) and the "
    "relations between them as subject, predicate, object. Use only what the conversation says."
)

_ENTITY = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 40}, "type": {"type": "string", "enum": ["user", "person", "place", "thing"]}},
    "required": ["name", "type"],
}
_RELATION = {
    "type": "object",
    "properties": {
        "subject": {"type": "string", "maxLength": 40},
        "predicate": {"type": "string", "maxLength": 40},
        "object": {"type": "string", "maxLength": 40},
    },
    "required": ["subject", "predicate", "object"],
}
SCHEMA = {
    "type": "object",
    "properties": {
        "segments": {
            "type": "array",
            "maxItems": 4,
            "items": {
                "type": "object",
                "properties": {
                    "summary": {"type": "string", "maxLength": 160},  # bounded: a small model otherwise runs to max_tokens
                    "entities": {"type": "array", "maxItems": 6, "items": _ENTITY},
                    "relations": {"type": "array", "maxItems": 6, "items": _RELATION},
                },
                "required": ["summary", "entities", "relations"],
            },
        }
    },
    "required": ["segments"],
}


def segments_tool() -> FuncTool:
    return FuncTool(TOOL_NAME, "Split the conversation into segments with entities and relations.", SCHEMA, lambda args: args)


def transcript(messages: Sequence[Message]) -> str:
    names = {Role.USER: "User", Role.ASSISTANT: "Assistant"}
    return "\n".join(f"{names.get(m.role, m.role.value or 'Other')}: {m.text().strip()}" for m in messages if m.text().strip())


class GeneratorSegmentor:
    __slots__ = ("ref",)

    def __init__(self, ref: GeneratorRef) -> None:
        self.ref = ref

    async def segment(self, pattern: str, messages: Sequence[Message]) -> list[Segment]:
        if not has_text(messages):
            return []
        return parse_segments(await self.ref.call(SYSTEM, "Conversation:\n" + transcript(messages), segments_tool()))


def from_config(spec: Any, generators: Generator) -> GeneratorSegmentor:
    """``[[segmentors]] kind = "generator"``: ``generator`` names the generator to ask."""
    return GeneratorSegmentor(generator_ref(spec, generators))


__all__ = ["SCHEMA", "SYSTEM", "TOOL_NAME", "GeneratorSegmentor", "from_config", "segments_tool", "transcript"]
