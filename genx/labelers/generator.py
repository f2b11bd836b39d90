"""GeneratorLabeler: labels chosen by a model through ``Generator.invoke`` with a JSON-schema'd tool.

The tool's schema lists the candidates as an ``enum`` so constrained decoding
(llama.cpp's grammar) cannot produce anything else; a cloud model that does
anyway gets :class:`~genx.labelers.InvalidLabelError`, as does a score
outside [0, 1]. A timeout or invalid JSON is a
:class:`~genx.structured.StructuredOutputError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genx.generators import Generator
from genx.labelers import Label, nothing_to_label, select_labels, unique
from genx.structured import GeneratorRef, StructuredOutputError, field, generator_ref
from genx.tools import FuncTool

TOOL_NAME = "choose_labels"

SYSTEM = (
    "You pick recall labels for a query. Choose only labels that are clearly about the query; "
    "choosing none is right when none fits. Score each chosen label from 0 (barely) to 1 (certainly)."
)


def labels_tool(candidates: Sequence[str], top_k: int) -> FuncTool:
    schema = {
        "type": "object",
        "properties": {
            "labels": {
                "type": "array",
                "maxItems": top_k,
                "items": {
                    "type": "object",
                    "properties": {
                        "label": {"type": "string", "enum": unique(candidates)},
                        "score": {"type": "number", "minimum": 0, "maximum": 1},
                    },
                    "required": ["label", "score"],
                },
            }
        },
        "required": ["labels"],
    }
    return FuncTool(TOOL_NAME, f"Choose at most {top_k} labels for the query.", schema, lambda args: args)


def parse_labels(data: dict[str, Any], candidates: Sequence[str], top_k: int) -> list[Label]:
    items = field(data, "labels", list, TOOL_NAME)
    chosen: list[tuple[str, float]] = []
    for item in items:
        if not isinstance(item, dict):
            raise StructuredOutputError(TOOL_NAME, f"each label must be an object, got {type(item).__name__}")
        chosen.append((field(item, "label", str, TOOL_NAME), item.get("score", 1.0)))
    return select_labels(chosen, candidates, top_k)


class GeneratorLabeler:
    __slots__ = ("ref",)

    def __init__(self, ref: GeneratorRef) -> None:
        self.ref = ref

    async def label(self, pattern: str, query: str, candidates: Sequence[str], top_k: int) -> list[Label]:
        if nothing_to_label(query, candidates, top_k):
            return []
        tool = labels_tool(candidates, top_k)
        user = f"Query: {query.strip()}\nCandidate labels: {', '.join(unique(candidates))}\nChoose at most {top_k}."
        return parse_labels(await self.ref.call(SYSTEM, user, tool), candidates, top_k)


def from_config(spec: Any, generators: Generator) -> GeneratorLabeler:
    """``[[labelers]] kind = "generator"``: ``generator`` names the generator to ask."""
    return GeneratorLabeler(generator_ref(spec, generators))


__all__ = ["SYSTEM", "TOOL_NAME", "GeneratorLabeler", "from_config", "labels_tool", "parse_labels"]
