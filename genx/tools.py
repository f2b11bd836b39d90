"""Tools a model may use: function tools run by the caller, and provider-side web search.

A :class:`FuncTool` holds a name, a description, a plain JSON Schema for its
arguments and the Python function that runs it. The generator only *proposes*
calls (:class:`~genx.chunk.FuncCall`); whoever owns the tool validates the
arguments (:meth:`FuncTool.validate`) and runs it (:meth:`FuncTool.call`).

Three ways to build one:

* ``FuncTool.from_function(fn)``: schema from the type hints of ``fn``
  (defaults make a parameter optional; the docstring gives the description and,
  in a Google-style ``Args:`` section, per-parameter descriptions). ``validate``
  returns the keyword arguments as a dict; ``fn`` is called as ``fn(**kwargs)``.
* ``FuncTool.from_model(name, description, Model, fn)``: schema from a pydantic
  model; ``validate`` returns a ``Model`` instance; ``fn`` is called as ``fn(args)``.
* ``FuncTool(name, description, schema, fn)``: a hand-written JSON Schema;
  ``validate`` checks the top level (object, required, property types, enums,
  ``additionalProperties: false``) and returns the dict; ``fn`` gets that dict.

Two flags tell a tool runner (:mod:`genx.toolrounds`) how to treat a tool:
``return_direct`` (its successful result is the answer: no further model round)
and ``side_effects`` (it changes the world, e.g. sets a timer: it is never run
twice for one request and is let finish rather than abandoned on a barge-in).

The schema is the plain object schema every provider accepts (``type: object``,
``properties``, ``required``): pydantic's ``title`` noise is removed and local
``$ref`` s are inlined (recursive models are rejected).

The schema and docstring parsing are :mod:`genx.tool_schema`, the argument validation
:mod:`genx.tool_args`; this module re-exports their public names.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, TypeAlias, get_args, get_origin, get_type_hints

import pydantic_core
from pydantic import BaseModel, ConfigDict, create_model
from pydantic.fields import FieldInfo

from genx.chunk import FuncCall, ToolResult
from genx.errors import ToolArgumentsError, ToolDefinitionError, ToolFailure
from genx.tool_args import Args, KwargsArgs, ModelArgs, SchemaArgs
from genx.tool_schema import JsonSchema, clean_schema, parse_docstring

log = logging.getLogger(__name__)

#: What OpenAI accepts for function names; Anthropic and Gemini accept a superset.
TOOL_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def check_tool_name(name: str) -> str:
    """Return ``name`` if every provider accepts it, else raise :class:`ToolDefinitionError`."""
    if not isinstance(name, str) or not TOOL_NAME_RE.fullmatch(name):
        raise ToolDefinitionError(
            str(name), "invalid tool name: use 1-64 characters from a-z, A-Z, 0-9, '_' and '-' (providers reject anything else)"
        )
    return name


# -- FuncTool --------------------------------------------------------------------


class FuncTool:
    """A function the model may call. Immutable after construction."""

    __slots__ = ("_args", "description", "fn", "name", "return_direct", "schema", "side_effects")

    name: str
    description: str
    schema: JsonSchema
    fn: Callable[..., Any]
    return_direct: bool
    side_effects: bool

    def __init__(
        self,
        name: str,
        description: str,
        schema: Mapping[str, Any],
        fn: Callable[..., Any],
        *,
        return_direct: bool = False,
        side_effects: bool = False,
        _args: Args | None = None,
    ) -> None:
        check_tool_name(name)
        if not callable(fn):
            raise ToolDefinitionError(name, f"fn must be callable, got {type(fn).__name__}")
        if not isinstance(schema, Mapping):
            raise ToolDefinitionError(name, "schema must be a JSON Schema object (a dict)")
        clean = clean_schema(dict(schema), name)
        if clean.get("type") != "object":
            raise ToolDefinitionError(name, f"the arguments schema must have type 'object', got {clean.get('type')!r}")
        self.name = name
        self.description = description
        self.schema = clean
        self.fn = fn
        self.return_direct = bool(return_direct)
        self.side_effects = bool(side_effects)
        self._args = _args if _args is not None else SchemaArgs(clean)

    # -- constructors -------------------------------------------------------
    @classmethod
    def from_model(
        cls,
        name: str,
        description: str,
        model: type[BaseModel],
        fn: Callable[[Any], Any],
        *,
        return_direct: bool = False,
        side_effects: bool = False,
    ) -> FuncTool:
        """Arguments validated into ``model``; ``fn(model_instance)`` runs the tool."""
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ToolDefinitionError(name, f"from_model needs a pydantic BaseModel subclass, got {model!r}")
        try:
            raw = model.model_json_schema()
        except Exception as e:  # pydantic raises several types for unschematisable fields
            raise ToolDefinitionError(name, f"cannot derive a JSON Schema from {model.__name__}: {e}") from e
        return cls(name, description, raw, fn, return_direct=return_direct, side_effects=side_effects, _args=ModelArgs(model))

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        *,
        return_direct: bool = False,
        side_effects: bool = False,
    ) -> FuncTool:
        """Schema from ``fn``'s type hints; every parameter needs a hint; defaults make it optional."""
        tool_name = name if name is not None else getattr(fn, "__name__", "")
        check_tool_name(tool_name)
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError) as e:
            raise ToolDefinitionError(tool_name, f"cannot read the signature of {fn!r}: {e}") from e
        target = fn if inspect.isfunction(fn) or inspect.ismethod(fn) else getattr(fn, "__call__", fn)  # noqa: B004
        try:
            hints = get_type_hints(target, include_extras=True)
        except Exception as e:
            raise ToolDefinitionError(tool_name, f"cannot resolve the type hints of {fn!r}: {e}") from e
        doc_text, doc_params = parse_docstring(inspect.getdoc(fn) or "")
        fields: dict[str, Any] = {}
        names: list[str] = []
        for p in sig.parameters.values():
            if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                raise ToolDefinitionError(
                    tool_name, f"parameter {p.name!r}: *args / **kwargs cannot be described to a model; list the arguments"
                )
            if p.kind is inspect.Parameter.POSITIONAL_ONLY:
                raise ToolDefinitionError(tool_name, f"parameter {p.name!r} is positional-only; tool arguments are passed by name")
            if p.name.startswith("_"):
                raise ToolDefinitionError(tool_name, f"parameter {p.name!r}: names starting with '_' are not allowed in a tool schema")
            if p.name not in hints:
                raise ToolDefinitionError(tool_name, f"parameter {p.name!r} has no type hint; add one so the model knows what to send")
            hint = hints[p.name]
            default = ... if p.default is inspect.Parameter.empty else p.default
            desc = doc_params.get(p.name)
            if desc and not _has_description(hint):
                fields[p.name] = (hint, FieldInfo(default=default, description=desc))
            else:
                fields[p.name] = (hint, default)
            names.append(p.name)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # field names shadowing BaseModel attributes are fine here
                model = create_model(  # type: ignore[call-overload]
                    f"{tool_name}_arguments",
                    __config__=ConfigDict(extra="forbid", protected_namespaces=(), arbitrary_types_allowed=False),
                    **fields,
                )
                raw = model.model_json_schema()
        except ToolDefinitionError:
            raise
        except Exception as e:
            raise ToolDefinitionError(tool_name, f"cannot derive a JSON Schema from the parameters of {fn!r}: {e}") from e
        desc_text = description if description is not None else doc_text
        return cls(tool_name, desc_text, raw, fn, return_direct=return_direct, side_effects=side_effects, _args=KwargsArgs(model, names))

    # -- use ------------------------------------------------------------------
    def validate(self, arguments: str | Mapping[str, Any]) -> Any:
        """Validated arguments (a model instance or a dict, see the module doc).

        ``arguments`` is the JSON text of a :class:`FuncCall` or an already
        decoded dict; an empty string means no arguments. Raises
        :class:`ToolArgumentsError` naming this tool and each failing field.
        """
        return self._args.validate(self.name, self._decode(arguments))

    async def call(self, arguments: str | Mapping[str, Any] | FuncCall, *, call_id: str = "") -> ToolResult:
        """Validate and run; never raises (except cancellation).

        Invalid arguments or an exception inside ``fn`` give a ToolResult with
        ``is_error=True`` and a readable message the model can act on; a
        :class:`~genx.errors.ToolFailure` gives its message unchanged. A sync
        ``fn`` runs in a worker thread so it cannot block the event loop.
        """
        if isinstance(arguments, FuncCall):
            call_id = call_id or arguments.id
            arguments = arguments.arguments
        try:
            args = self.validate(arguments)
        except ToolArgumentsError as e:
            return self.invalid_arguments_result(e, call_id)
        return await self.run(args, call_id=call_id)

    def invalid_arguments_result(self, error: ToolArgumentsError, call_id: str = "") -> ToolResult:
        """The error result a model sees for arguments that failed :meth:`validate`."""
        return ToolResult(call_id, self.name, f"{error}. Call the tool again with arguments that match its schema.", is_error=True)

    async def run(self, args: Any, *, call_id: str = "") -> ToolResult:
        """Run already validated ``args`` (what :meth:`validate` returned); never raises (except cancellation).

        An exception inside ``fn`` gives an error result; a sync ``fn`` runs in a
        worker thread (which cannot be stopped: cancelling the await abandons it).
        """
        try:
            if _is_async_callable(self.fn):
                value = await self._args.call(self.fn, args)
            else:
                value = await asyncio.to_thread(self._args.call, self.fn, args)
                if inspect.isawaitable(value):
                    value = await value
        except ToolFailure as e:
            return ToolResult(call_id, self.name, str(e), is_error=True)
        except Exception as e:
            log.warning("tool %r raised %s", self.name, type(e).__name__, exc_info=True)
            return ToolResult(call_id, self.name, f"tool {self.name!r} failed: {type(e).__name__}: {e}", is_error=True)
        return ToolResult(call_id, self.name, result_to_text(value))

    def _decode(self, arguments: str | Mapping[str, Any]) -> dict[str, Any]:
        if isinstance(arguments, Mapping):
            return dict(arguments)
        if not isinstance(arguments, str):
            raise ToolArgumentsError(self.name, f"arguments must be a JSON object string or a dict, got {type(arguments).__name__}")
        if arguments.strip() == "":
            return {}
        try:
            data = json.loads(arguments)
        except json.JSONDecodeError as e:
            raise ToolArgumentsError(self.name, f"arguments are not valid JSON ({e.msg} at position {e.pos}): {arguments!r:.80}") from None
        if not isinstance(data, dict):
            raise ToolArgumentsError(self.name, f"arguments must be a JSON object, got {type(data).__name__}")
        return data

    def __repr__(self) -> str:
        return f"FuncTool(name={self.name!r}, description={self.description!r:.60})"


@dataclass(frozen=True, slots=True)
class SearchWebTool:
    """Ask the provider to search the web itself (OpenAI/Anthropic/Gemini server-side search).

    A marker: the caller runs nothing; adapters whose API has no such tool reject it.
    """

    name: str = "web_search"
    description: str = "Search the web for up-to-date information."

    def __post_init__(self) -> None:
        check_tool_name(self.name)


Tool: TypeAlias = FuncTool | SearchWebTool


# -- helpers ----------------------------------------------------------------------


def result_to_text(value: Any) -> str:
    """Tool return value → message content: str as is, models and data as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    try:
        return pydantic_core.to_json(value).decode("utf-8")
    except Exception:
        return str(value)


def _is_async_callable(fn: Callable[..., Any]) -> bool:
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004
    return call is not None and inspect.iscoroutinefunction(call)


def _has_description(hint: Any) -> bool:
    if get_origin(hint) is not Annotated:
        return False
    return any(isinstance(m, FieldInfo) and m.description for m in get_args(hint)[1:])


__all__ = [
    "TOOL_NAME_RE",
    "FuncTool",
    "JsonSchema",
    "SearchWebTool",
    "Tool",
    "check_tool_name",
    "clean_schema",
    "parse_docstring",
    "result_to_text",
]
