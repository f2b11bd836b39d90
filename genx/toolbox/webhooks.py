"""User tools declared in the config file that call an HTTP webhook: the only toolbox tools that use the network.

A :class:`WebhookSpec` is one ``[[tools.webhooks]]`` table::

    [[tools.webhooks]]
    name = "lights"
    description = "Switch a room's lights on or off."
    method = "POST"                                   # GET and DELETE send the arguments as the query string
    url = "https://home.example/api/lights/{room}"    # {argument} placeholders are filled from the arguments
    parameters = { type = "object", properties = { room = { type = "string" }, on = { type = "boolean" } }, required = ["room", "on"] }
    secret = { env = "HOME_API_TOKEN" }               # optional; see genx.modelloader.secrets
    auth = "bearer"                                   # "bearer" (Authorization: Bearer …) or "header" (secret_header: …)
    timeout_s = 10

:func:`webhook_tool` makes the :class:`~genx.tools.FuncTool`. A call resolves the
secret at that moment (never stored, never logged), sends the validated
arguments, and returns the answer's text: JSON (re-serialised compactly) or
plain text, at most :data:`MAX_RESPONSE_BYTES`. A timeout, an unreachable host,
an HTTP error status, an answer that is not JSON or text, or JSON that does not
parse become error results naming the tool. Redirects are not followed and
proxy variables are ignored: the request goes to the configured URL only.
"""

from __future__ import annotations

import functools
import json
import re
import ssl
import urllib.parse
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from genx.errors import ToolFailure
from genx.modelloader.errors import ConfigError
from genx.modelloader.secrets import SecretRef, SecretStore
from genx.tools import FuncTool, check_tool_name, clean_schema

__all__ = ["MAX_RESPONSE_BYTES", "WebhookSpec", "webhook_tool", "webhook_tools"]

MAX_RESPONSE_BYTES = 64 * 1024
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class WebhookSpec(BaseModel):
    """One webhook tool from the config file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = Field(min_length=1)
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "POST"
    url: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}, "required": []})
    secret: SecretRef | None = None
    auth: Literal["bearer", "header"] = "bearer"
    secret_header: str = "X-Api-Key"
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_s: float = Field(default=10.0, gt=0, le=120)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        try:
            return check_tool_name(value)
        except Exception as e:
            raise ValueError(str(e)) from None

    @field_validator("method", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        parts = urllib.parse.urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("url must be an http:// or https:// address with a host")
        return value

    @field_validator("parameters")
    @classmethod
    def _schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        if value.get("type") != "object":
            raise ValueError('parameters must be a JSON Schema object: { type = "object", properties = { ... } }')
        return clean_schema(value)


def _request_parts(spec: WebhookSpec, args: dict[str, Any]) -> tuple[str, dict[str, str] | None, Any]:
    """(url with placeholders filled, query parameters, JSON body)."""
    rest = dict(args)

    def fill(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in rest:
            raise ToolFailure(f"tool {spec.name!r} needs the argument {key!r} for its address")
        return urllib.parse.quote(str(rest.pop(key)), safe="")

    url = _PLACEHOLDER.sub(fill, spec.url)
    if spec.method in ("GET", "DELETE"):
        query = {k: v if isinstance(v, str) else json.dumps(v) for k, v in rest.items()}
        return url, query or None, None
    return url, None, rest


async def _headers(spec: WebhookSpec, secrets: SecretStore) -> dict[str, str]:
    headers = {"Accept": "application/json, text/plain;q=0.9", **spec.headers}
    if spec.secret is not None:
        try:
            value = (await secrets.aresolve(spec.secret, needed_by=f"webhook tool {spec.name!r}")).get_secret_value()
        except ConfigError as e:
            raise ToolFailure(f"tool {spec.name!r} cannot authenticate: {e}") from None
        if spec.auth == "bearer":
            headers["Authorization"] = f"Bearer {value}"
        else:
            headers[spec.secret_header] = value
    return headers


def _answer(spec: WebhookSpec, response: httpx.Response, body: bytes) -> str:
    who = f"the {spec.name} service"
    ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        text = body.decode(response.encoding or "utf-8")
    except (UnicodeDecodeError, LookupError):
        raise ToolFailure(f"{who} answered with something that is not text ({ctype or 'no content type'}).") from None
    if 300 <= response.status_code < 400:
        raise ToolFailure(f"{who} answered with a redirect (HTTP {response.status_code}); webhook tools only call the configured address.")
    if response.status_code >= 400:
        snippet = re.sub(r"\s+", " ", text)[:200]
        raise ToolFailure(f"{who} answered HTTP {response.status_code}{f': {snippet}' if snippet else ''}.")
    if ctype == "application/json" or ctype.endswith("+json"):
        try:
            return json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))
        except json.JSONDecodeError:
            raise ToolFailure(f"{who} answered with broken JSON; it may be down or misconfigured.") from None
    if ctype in ("text/plain", "") and "\x00" not in text:
        return text.strip() or "done"
    raise ToolFailure(f"{who} answered with {ctype} instead of JSON or plain text.")


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context for every call (building one loads the CA bundle: tens of ms)."""
    return httpx.create_ssl_context()


def webhook_tool(spec: WebhookSpec, secrets: SecretStore | None = None) -> FuncTool:
    """The tool that calls ``spec``'s webhook with the model's (validated) arguments."""
    store = secrets if secrets is not None else SecretStore()

    async def call(args: dict[str, Any]) -> str:
        url, query, body = _request_parts(spec, args)
        headers = await _headers(spec, store)
        who = f"the {spec.name} service"
        try:
            async with (
                httpx.AsyncClient(timeout=spec.timeout_s, follow_redirects=False, trust_env=False, verify=_tls()) as client,
                client.stream(spec.method, url, params=query, json=body, headers=headers) as response,
            ):
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_RESPONSE_BYTES:
                        raise ToolFailure(f"{who} answered with more than {MAX_RESPONSE_BYTES // 1024} KB; that is too much to read.")
                    chunks.append(chunk)
                return _answer(spec, response, b"".join(chunks))
        except httpx.TimeoutException:
            raise ToolFailure(f"{who} did not answer within {spec.timeout_s:g} seconds.") from None
        except httpx.HTTPError as e:
            raise ToolFailure(f"cannot reach {who}: {type(e).__name__}.") from None

    # Anything but GET may change the world: a tool runner must not repeat it for one request.
    return FuncTool(spec.name, spec.description, spec.parameters, call, side_effects=spec.method != "GET")


def webhook_tools(specs: list[WebhookSpec], secrets: SecretStore | None = None) -> list[FuncTool]:
    """One tool per spec; names must be unique."""
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise ConfigError(f"tools.webhooks: two webhook tools are named {spec.name!r}; give each its own name")
        seen.add(spec.name)
    return [webhook_tool(s, secrets) for s in specs]
