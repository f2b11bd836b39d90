"""A tool's schema and descriptions: the provider-ready JSON Schema (:func:`clean_schema`) and a Google-style
docstring split into the description and per-parameter descriptions (:func:`parse_docstring`).

Does not own: the tool (:mod:`genx.tools`), validating arguments (:mod:`genx.tool_args`).
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeAlias

from genx.errors import ToolDefinitionError

JsonSchema: TypeAlias = dict[str, Any]

_SECTION_RE = re.compile(r"^(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples?|Notes?|Attributes):\s*$")
_ARGS_SECTIONS = {"Args", "Arguments", "Parameters", "Params"}
_PARAM_RE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {param: description})."""
    lines = doc.splitlines()
    desc: list[str] = []
    params: dict[str, str] = {}
    i = 0
    while i < len(lines) and not _SECTION_RE.match(lines[i].strip()):
        desc.append(lines[i])
        i += 1
    section = ""
    current = ""
    base_indent = -1
    for line in lines[i:]:
        stripped = line.strip()
        m = _SECTION_RE.match(stripped)
        if m and (len(line) - len(line.lstrip())) == 0:
            section, current, base_indent = m.group(1), "", -1
            continue
        if section not in _ARGS_SECTIONS or not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        if base_indent < 0:
            base_indent = indent
        pm = _PARAM_RE.match(stripped)
        if indent == base_indent and pm:
            current = pm.group(1).lstrip("*")
            params[current] = pm.group(2).strip()
        elif current and indent > base_indent:
            params[current] = f"{params[current]} {stripped}".strip()
    return "\n".join(desc).strip(), params


_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames", "unevaluatedProperties")


def clean_schema(schema: JsonSchema, tool: str = "") -> JsonSchema:
    """Provider-ready copy: no ``title`` keys, local ``$ref`` s inlined, root has ``properties`` and ``required``."""
    defs: dict[str, Any] = dict(schema.get("$defs") or {})
    defs.update(schema.get("definitions") or {})

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(x, stack) for x in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            ref = node["$ref"]
            key = (
                ref.rsplit("/", 1)[-1]
                if isinstance(ref, str) and (ref.startswith("#/$defs/") or ref.startswith("#/definitions/"))
                else None
            )
            if key is None or key not in defs:
                raise ToolDefinitionError(tool, f"schema reference {ref!r} cannot be resolved; use a self-contained schema")
            if key in stack:
                raise ToolDefinitionError(tool, f"recursive schema through {key!r}; providers need a finite schema")
            target = walk(defs[key], (*stack, key))
            rest = walk({k: v for k, v in node.items() if k != "$ref"}, stack)
            return {**target, **rest}
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in ("title", "$defs", "definitions"):
                continue
            if k in _SCHEMA_MAPS and isinstance(v, dict):
                out[k] = {name: walk(sub, stack) for name, sub in v.items()}
            elif k in _SCHEMA_LISTS and isinstance(v, list):
                out[k] = [walk(sub, stack) for sub in v]
            elif k in _SCHEMA_ONE and isinstance(v, dict | list):
                out[k] = walk(v, stack)
            else:
                out[k] = json.loads(json.dumps(v)) if isinstance(v, dict | list) else v
        return out

    try:
        root = walk(schema, ())
    except ToolDefinitionError:
        raise
    except (TypeError, ValueError) as e:
        raise ToolDefinitionError(tool, f"schema is not plain JSON: {e}") from e
    if root.get("type") == "object":
        root.setdefault("properties", {})
        root.setdefault("required", [])
    return dict(root)


__all__ = ["JsonSchema", "clean_schema", "parse_docstring"]
