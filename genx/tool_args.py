"""How a tool validates its arguments and calls its function: one strategy per way a :class:`~genx.tools.FuncTool`
is built (a pydantic model, keyword arguments from type hints, a hand-written JSON Schema).

Validation failures are :class:`~genx.errors.ToolArgumentsError` naming each bad argument.
Does not own: the tool (:mod:`genx.tools`), its schema (:mod:`genx.tool_schema`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from genx.errors import ToolArgumentsError
from genx.tool_schema import JsonSchema


class Args:
    """How one tool validates arguments and calls its function."""

    def validate(self, tool: str, data: dict[str, Any]) -> Any:
        raise NotImplementedError

    def call(self, fn: Callable[..., Any], args: Any) -> Any:
        raise NotImplementedError


class ModelArgs(Args):
    __slots__ = ("model",)

    def __init__(self, model: type[BaseModel]) -> None:
        self.model = model

    def validate(self, tool: str, data: dict[str, Any]) -> Any:
        try:
            return self.model.model_validate(data)
        except ValidationError as e:
            raise ToolArgumentsError(tool, describe_validation_error(e)) from None

    def call(self, fn: Callable[..., Any], args: Any) -> Any:
        return fn(args)


class KwargsArgs(ModelArgs):
    __slots__ = ("names",)

    def __init__(self, model: type[BaseModel], names: list[str]) -> None:
        super().__init__(model)
        self.names = names

    def validate(self, tool: str, data: dict[str, Any]) -> Any:
        inst = super().validate(tool, data)
        # Attribute access keeps nested models as model instances (model_dump would flatten them).
        return {n: getattr(inst, n) for n in self.names}

    def call(self, fn: Callable[..., Any], args: Any) -> Any:
        return fn(**args)


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


class SchemaArgs(Args):
    """Top-level checks for a hand-written schema (no third-party JSON Schema validator)."""

    __slots__ = ("schema",)

    def __init__(self, schema: JsonSchema) -> None:
        self.schema = schema

    def validate(self, tool: str, data: dict[str, Any]) -> Any:
        props: dict[str, Any] = self.schema.get("properties") or {}
        problems: list[str] = []
        for name in self.schema.get("required") or []:
            if name not in data:
                problems.append(f"{name}: field required")
        if self.schema.get("additionalProperties") is False:
            problems.extend(f"{name}: unexpected argument" for name in data if name not in props)
        for name, value in data.items():
            sub = props.get(name)
            if isinstance(sub, dict):
                why = _check_value(sub, value)
                if why:
                    problems.append(f"{name}: {why} (got {value!r:.60})")
        if problems:
            raise ToolArgumentsError(tool, "; ".join(problems))
        return data

    def call(self, fn: Callable[..., Any], args: Any) -> Any:
        return fn(args)


def _check_value(schema: Mapping[str, Any], value: Any) -> str:
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        ok = False
        for t in names:
            py = _JSON_TYPES.get(t)
            if py is None:
                ok = True  # unknown type keyword: do not guess
                break
            # bool is an int in Python but not a JSON integer/number
            if isinstance(value, py) and not (isinstance(value, bool) and t in ("integer", "number")):
                ok = True
                break
        if not ok:
            return f"expected {' or '.join(names)}"
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return f"expected one of {enum}"
    return ""


def describe_validation_error(e: ValidationError) -> str:
    parts: list[str] = []
    for err in e.errors(include_url=False):
        loc = ".".join(str(x) for x in err["loc"]) or "(arguments)"
        if err["type"] == "extra_forbidden":
            parts.append(f"{loc}: unexpected argument")
        elif err["type"] == "missing":
            parts.append(f"{loc}: field required")
        else:
            parts.append(f"{loc}: {err['msg']} (got {err.get('input')!r:.60})")
    return "; ".join(parts)


__all__ = ["Args", "KwargsArgs", "ModelArgs", "SchemaArgs", "describe_validation_error"]
