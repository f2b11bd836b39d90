"""GeneratorProfiler: profile changes from a model through ``Generator.invoke`` with a JSON-schema'd tool.

With an attribute vocabulary (``attributes``) the schema's ``attribute`` is an
``enum`` of it, so a small model under constrained decoding can only name
known attributes; without one any short name is allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genx.generators import Generator
from genx.profilers import OPS, FactChange, Profile, check_changes
from genx.segmentors import Segment
from genx.structured import GeneratorRef, StructuredOutputError, field, generator_ref
from genx.tools import FuncTool

TOOL_NAME = "update_profile"
WHAT = TOOL_NAME

SYSTEM = (
    "You keep a profile of one entity up to date. Given its current facts and new conversation segments, list only "
    "the changes the segments state plainly: add a new fact, change a fact whose value is now different, or retire a "
    "fact that is no longer true. Values are short, in the user's words. No changes is a fine answer."
)


def profile_tool(attributes: Sequence[str] | None = None) -> FuncTool:
    attr: dict[str, Any] = {"type": "string", "enum": list(dict.fromkeys(attributes))} if attributes else {"type": "string"}
    schema = {
        "type": "object",
        "properties": {
            "changes": {
                "type": "array",
                "maxItems": 6,
                "items": {
                    "type": "object",
                    "properties": {
                        "op": {"type": "string", "enum": list(OPS)},
                        "attribute": attr,
                        "value": {"type": "string", "maxLength": 60},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                        "source": {"type": "integer", "minimum": 0},
                    },
                    "required": ["op", "attribute", "value", "confidence"],
                },
            }
        },
        "required": ["changes"],
    }
    return FuncTool(TOOL_NAME, "List the changes to the entity's profile.", schema, lambda args: args)


def parse_changes(data: dict[str, Any], profile: Profile, n_segments: int) -> list[FactChange]:
    changes: list[FactChange] = []
    for item in field(data, "changes", list, WHAT):
        if not isinstance(item, dict):
            raise StructuredOutputError(WHAT, f"each change must be an object, got {type(item).__name__}")
        source = item.get("source", 0)
        if not isinstance(source, int) or isinstance(source, bool):
            raise StructuredOutputError(WHAT, "source must be a segment index")
        changes.append(
            FactChange(
                field(item, "op", str, WHAT),
                field(item, "attribute", str, WHAT),
                str(item.get("value") or ""),
                field(item, "confidence", float, WHAT) if "confidence" in item else 1.0,
                source,
            )
        )
    return check_changes(profile, changes, n_segments)


def describe(profile: Profile, segments: Sequence[Segment]) -> str:
    facts = "\n".join(f"- {f.attribute}: {f.value}" for f in profile.facts) or "- (none yet)"
    segs = "\n".join(f"[{i}] {s.summary}" for i, s in enumerate(segments))
    return f"Entity: {profile.entity} ({profile.type})\nCurrent facts:\n{facts}\nNew segments:\n{segs}"


class GeneratorProfiler:
    __slots__ = ("attributes", "ref")

    def __init__(self, ref: GeneratorRef, attributes: Sequence[str] | None = None) -> None:
        self.ref = ref
        self.attributes = tuple(attributes) if attributes else None

    async def profile(self, pattern: str, profile: Profile, segments: Sequence[Segment]) -> list[FactChange]:
        if not segments:
            return []
        data = await self.ref.call(SYSTEM, describe(profile, segments), profile_tool(self.attributes))
        return parse_changes(data, profile, len(segments))


def from_config(spec: Any, generators: Generator) -> GeneratorProfiler:
    """``[[profilers]] kind = "generator"``: ``generator`` names the generator to ask."""
    return GeneratorProfiler(generator_ref(spec, generators))


__all__ = ["SYSTEM", "TOOL_NAME", "GeneratorProfiler", "describe", "from_config", "parse_changes", "profile_tool"]
