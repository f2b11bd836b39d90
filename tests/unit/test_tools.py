"""FuncTool schemas, argument validation and calls; SearchWebTool."""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from genx.chunk import FuncCall
from genx.errors import ToolArgumentsError, ToolDefinitionError, ToolFailure
from genx.model import ModelContextBuilder
from genx.tools import FuncTool, SearchWebTool, Tool, clean_schema, parse_docstring


def _keys_anywhere(node: Any, key: str, *, skip_property_names: bool = True) -> list[Any]:
    """Every value stored under ``key`` in a schema node (property *names* are not schema keys)."""
    found: list[Any] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                found.append(v)
            if k == "properties" and skip_property_names and isinstance(v, dict):
                for sub in v.values():
                    found.extend(_keys_anywhere(sub, key))
            else:
                found.extend(_keys_anywhere(v, key))
    elif isinstance(node, list):
        for v in node:
            found.extend(_keys_anywhere(v, key))
    return found


def get_weather(city: str, days: int = 1, unit: Literal["c", "f"] = "c", note: str | None = None) -> dict[str, Any]:
    """Get the weather forecast for a city.

    Args:
        city: Name of the city, e.g. Oslo.
        days (int): How many days
            ahead to forecast.
        unit: Temperature unit.

    Returns:
        The forecast.
    """
    return {"city": city, "days": days, "unit": unit}


class Address(BaseModel):
    street: str = Field(description="Street and number")
    title: str = "home"  # a property called "title" must survive title stripping


class Contact(BaseModel):
    name: str
    address: Address
    tags: list[str] = []


# -- schema from type hints ---------------------------------------------------------


def test_schema_from_function_lists_properties_types_and_only_required_params() -> None:
    t = FuncTool.from_function(get_weather)
    s = t.schema
    assert s["type"] == "object"
    assert s["required"] == ["city"]
    assert s["properties"]["city"]["type"] == "string"
    assert s["properties"]["days"] == {"type": "integer", "default": 1, "description": "How many days ahead to forecast."}
    assert s["properties"]["unit"]["enum"] == ["c", "f"]
    assert {"type": "null"} in s["properties"]["note"]["anyOf"]
    assert s["additionalProperties"] is False


def test_docstring_gives_the_description_and_per_argument_descriptions() -> None:
    t = FuncTool.from_function(get_weather)
    assert t.name == "get_weather"
    assert t.description == "Get the weather forecast for a city."
    assert t.schema["properties"]["city"]["description"] == "Name of the city, e.g. Oslo."
    assert "Returns" not in t.description


def test_explicit_name_and_description_override_the_function() -> None:
    t = FuncTool.from_function(get_weather, name="weather", description="Forecast.")
    assert (t.name, t.description) == ("weather", "Forecast.")


def test_annotated_field_description_wins_over_the_docstring() -> None:
    def f(x: Annotated[int, Field(description="from Field", ge=0)]) -> int:
        """Doc.

        Args:
            x: from docstring
        """
        return x

    prop = FuncTool.from_function(f).schema["properties"]["x"]
    assert prop["description"] == "from Field"
    assert prop["minimum"] == 0


def test_schema_has_no_pydantic_titles_but_keeps_a_property_named_title() -> None:
    t = FuncTool.from_model("save_contact", "Save a contact.", Contact, lambda c: c.name)
    assert _keys_anywhere(t.schema, "title") == []
    assert "title" in t.schema["properties"]["address"]["properties"]


def test_nested_models_are_inlined_without_refs() -> None:
    t = FuncTool.from_model("save_contact", "Save a contact.", Contact, lambda c: c.name)
    assert "$defs" not in t.schema
    assert _keys_anywhere(t.schema, "$ref") == []
    addr = t.schema["properties"]["address"]
    assert addr["type"] == "object"
    assert addr["properties"]["street"]["description"] == "Street and number"
    assert addr["required"] == ["street"]


class Node(BaseModel):
    value: int
    children: list[Node] = []


def test_recursive_models_are_rejected_because_providers_need_a_finite_schema() -> None:
    with pytest.raises(ToolDefinitionError, match="recursive"):
        FuncTool.from_model("tree", "A tree.", Node, lambda n: n)


def test_function_without_parameters_has_an_empty_object_schema() -> None:
    def now() -> str:
        """Current time."""
        return "noon"

    t = FuncTool.from_function(now)
    assert t.schema["properties"] == {}
    assert t.schema["required"] == []
    assert t.validate("") == {}


@pytest.mark.parametrize(
    ("fn", "match"),
    [
        (lambda x: x, "invalid tool name"),
        (lambda: None, "invalid tool name"),
    ],
)
def test_lambdas_need_an_explicit_name(fn: Any, match: str) -> None:
    with pytest.raises(ToolDefinitionError, match=match):
        FuncTool.from_function(fn)


def test_parameter_without_type_hint_is_a_definition_error_naming_it() -> None:
    def f(a: int, b) -> None:  # type: ignore[no-untyped-def]
        """Doc."""

    with pytest.raises(ToolDefinitionError, match="'b' has no type hint"):
        FuncTool.from_function(f)


def test_star_args_are_a_definition_error() -> None:
    def f(*items: int) -> None:
        """Doc."""

    with pytest.raises(ToolDefinitionError, match="items"):
        FuncTool.from_function(f)


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "naïve", "a.b", "a/b"])
def test_names_providers_reject_are_definition_errors(name: str) -> None:
    with pytest.raises(ToolDefinitionError, match="invalid tool name"):
        FuncTool(name, "d", {"type": "object", "properties": {}}, lambda a: a)


@pytest.mark.parametrize("name", ["get_weather", "x" * 64, "A-1_b"])
def test_names_every_provider_accepts_are_fine(name: str) -> None:
    assert FuncTool(name, "d", {"type": "object"}, lambda a: a).name == name


def test_a_non_object_schema_is_a_definition_error() -> None:
    with pytest.raises(ToolDefinitionError, match="type 'object'"):
        FuncTool("f", "d", {"type": "string"}, lambda a: a)


def test_clean_schema_rejects_unresolvable_refs() -> None:
    with pytest.raises(ToolDefinitionError, match="cannot be resolved"):
        clean_schema({"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}})


def test_parse_docstring_handles_continuation_lines_and_sections() -> None:
    desc, params = parse_docstring(
        "Top line.\n\nMore.\n\nArgs:\n    a (int): first\n        cont.\n    b: second\nRaises:\n    ValueError: no\n"
    )
    assert desc == "Top line.\n\nMore."
    assert params == {"a": "first cont.", "b": "second"}


# -- validation ---------------------------------------------------------------------


def test_validate_from_function_returns_coerced_keyword_arguments() -> None:
    t = FuncTool.from_function(get_weather)
    assert t.validate('{"city": "Oslo", "days": "3"}') == {"city": "Oslo", "days": 3, "unit": "c", "note": None}
    assert t.validate({"city": "Bergen"})["days"] == 1


def test_validate_from_model_returns_a_model_instance() -> None:
    t = FuncTool.from_model("save_contact", "Save.", Contact, lambda c: c)
    c = t.validate('{"name": "Ada", "address": {"street": "Main 1"}}')
    assert isinstance(c, Contact)
    assert c.address.street == "Main 1"


def test_missing_required_argument_names_the_tool_and_the_field() -> None:
    t = FuncTool.from_function(get_weather)
    with pytest.raises(ToolArgumentsError, match=r"tool 'get_weather'.*city: field required") as ei:
        t.validate("{}")
    assert ei.value.tool == "get_weather"


def test_wrong_type_names_the_nested_field_path() -> None:
    t = FuncTool.from_model("save_contact", "Save.", Contact, lambda c: c)
    with pytest.raises(ToolArgumentsError, match=r"address\.street"):
        t.validate({"name": "Ada", "address": {"street": 5}})


def test_unexpected_argument_is_rejected_for_function_tools() -> None:
    t = FuncTool.from_function(get_weather)
    with pytest.raises(ToolArgumentsError, match="cty: unexpected argument"):
        t.validate({"city": "Oslo", "cty": "Oslo"})


@pytest.mark.parametrize(("raw", "match"), [("{not json", "not valid JSON"), ("[1, 2]", "must be a JSON object"), ('"x"', "JSON object")])
def test_arguments_that_are_not_a_json_object_are_rejected(raw: str, match: str) -> None:
    with pytest.raises(ToolArgumentsError, match=match):
        FuncTool.from_function(get_weather).validate(raw)


def test_raw_schema_tool_checks_required_types_enums_and_extras() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "mode": {"type": "string", "enum": ["a", "b"]}, "x": {"type": ["number", "null"]}},
        "required": ["n"],
        "additionalProperties": False,
    }
    t = FuncTool("raw", "Raw schema tool.", schema, lambda d: d)
    assert t.validate('{"n": 2, "mode": "a", "x": null}') == {"n": 2, "mode": "a", "x": None}
    with pytest.raises(ToolArgumentsError, match="n: field required"):
        t.validate({})
    with pytest.raises(ToolArgumentsError, match="n: expected integer"):
        t.validate({"n": True})  # a JSON boolean is not an integer
    with pytest.raises(ToolArgumentsError, match="mode: expected one of"):
        t.validate({"n": 1, "mode": "c"})
    with pytest.raises(ToolArgumentsError, match="zz: unexpected argument"):
        t.validate({"n": 1, "zz": 0})


# -- calls --------------------------------------------------------------------------


async def test_call_runs_a_sync_function_in_a_worker_thread() -> None:
    loop_thread = threading.get_ident()
    seen: list[int] = []

    def where(x: int) -> int:
        """Record the thread."""
        seen.append(threading.get_ident())
        return x * 2

    r = await FuncTool.from_function(where).call('{"x": 21}', call_id="c1")
    assert (r.call_id, r.name, r.content, r.is_error) == ("c1", "where", "42", False)
    assert seen and seen[0] != loop_thread


async def test_a_blocking_sync_tool_does_not_block_the_event_loop() -> None:
    released = threading.Event()

    def wait_for_release() -> str:
        """Block until released."""
        return "released" if released.wait(timeout=10) else "timed out"

    async def release_soon() -> None:
        await asyncio.sleep(0.01)  # only runs if the loop is free while the tool blocks
        released.set()

    result, _ = await asyncio.wait_for(asyncio.gather(FuncTool.from_function(wait_for_release).call("{}"), release_soon()), timeout=20)
    assert result.content == "released"


async def test_call_awaits_an_async_function_on_the_loop() -> None:
    async def lookup(key: str) -> dict[str, str]:
        """Async lookup."""
        await asyncio.sleep(0)
        return {"key": key}

    r = await FuncTool.from_function(lookup).call(FuncCall("lookup", '{"key": "k"}', "id-7"))
    assert r.call_id == "id-7"
    assert r.content == '{"key":"k"}'


async def test_call_passes_the_model_instance_to_model_tools_and_serialises_models() -> None:
    t = FuncTool.from_model("echo_contact", "Echo.", Contact, lambda c: c)
    r = await t.call('{"name": "Ada", "address": {"street": "Main 1"}}')
    assert not r.is_error
    assert Contact.model_validate_json(r.content).address.street == "Main 1"


async def test_exception_inside_the_tool_becomes_an_error_result_not_a_raise() -> None:
    def explode(x: int) -> int:
        """Fails."""
        raise RuntimeError(f"disk full at {x}")

    r = await FuncTool.from_function(explode).call('{"x": 3}', call_id="c")
    assert r.is_error
    assert "RuntimeError: disk full at 3" in r.content
    assert r.call_id == "c"


async def test_a_tool_failure_becomes_an_error_result_with_exactly_its_message() -> None:
    def where(place: str) -> str:
        """Refuses."""
        raise ToolFailure(f"I don't know the time zone of {place}.")

    r = await FuncTool.from_function(where).call('{"place": "Atlantis"}', call_id="c")
    assert r.is_error
    assert r.content == "I don't know the time zone of Atlantis."


async def test_invalid_arguments_become_an_error_result_naming_the_field() -> None:
    r = await FuncTool.from_function(get_weather).call('{"days": 2}')
    assert r.is_error
    assert "city: field required" in r.content


async def test_none_and_strings_are_returned_as_text() -> None:
    def nothing() -> None:
        """Nothing."""

    def text() -> str:
        """Text."""
        return "plain"

    assert (await FuncTool.from_function(nothing).call("")).content == "null"
    assert (await FuncTool.from_function(text).call("")).content == "plain"


async def test_cancelling_a_call_cancels_instead_of_returning_an_error_result() -> None:
    started = asyncio.Event()

    async def forever() -> None:
        """Never returns."""
        started.set()
        await asyncio.sleep(3600)

    task = asyncio.create_task(FuncTool.from_function(forever).call(""))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


# -- SearchWebTool / Tool ---------------------------------------------------------------


def test_search_web_tool_is_a_named_marker_usable_in_a_model_context() -> None:
    s = SearchWebTool()
    assert s.name == "web_search"
    tools: list[Tool] = [s, FuncTool.from_function(get_weather)]
    ctx = ModelContextBuilder().tool(*tools).build()
    assert [t.name for t in ctx.tools()] == ["web_search", "get_weather"]


def test_search_web_tool_rejects_invalid_names() -> None:
    with pytest.raises(ToolDefinitionError):
        SearchWebTool(name="web search")
