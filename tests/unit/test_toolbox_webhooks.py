"""genx.toolbox.webhooks: config model and the tool, against a real HTTP server on 127.0.0.1 started here."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import ValidationError

from genx.errors import ToolFailure
from genx.modelloader.errors import ConfigError
from genx.modelloader.secrets import SecretStore
from genx.toolbox.webhooks import WebhookSpec, webhook_tool, webhook_tools

RELEASE = threading.Event()  # lets the slow handler finish at teardown (no sleeping server threads left behind)
REQUESTS: list[dict[str, Any]] = []


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _handle(self) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        REQUESTS.append({"method": self.command, "path": url.path, "query": parse_qs(url.query), "body": body,
                         "auth": self.headers.get("Authorization"), "key": self.headers.get("X-Api-Key")})  # fmt: skip
        if url.path == "/echo" or url.path.startswith("/lights/"):
            self._send(200, json.dumps({"path": url.path, "got": body, "query": parse_qs(url.query)}).encode(), "application/json")
        elif url.path == "/text":
            self._send(200, b"Lights on in the kitchen.\n", "text/plain; charset=utf-8")
        elif url.path == "/slow":
            RELEASE.wait(10)
            self._send(200, b"{}", "application/json")
        elif url.path == "/broken-json":
            self._send(200, b"<html>oops</html>", "application/json")
        elif url.path == "/html":
            self._send(200, b"<html>hello</html>", "text/html")
        elif url.path == "/binary":
            self._send(200, b"\x00\x01\xff\xfe", "application/octet-stream")
        elif url.path == "/fail":
            self._send(500, b"database is down", "text/plain")
        elif url.path == "/big":
            self._send(200, b"x" * (100 * 1024), "text/plain")
        elif url.path == "/redirect":
            self._send(302, b"", "text/plain", {"Location": "http://127.0.0.1:9/elsewhere"})
        else:
            self._send(404, b"no such thing", "text/plain")

    do_GET = do_POST = do_PUT = do_DELETE = _handle


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, name="webhook-test-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        RELEASE.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


LIGHTS_SCHEMA = {
    "type": "object",
    "properties": {"room": {"type": "string"}, "on": {"type": "boolean"}},
    "required": ["room", "on"],
    "additionalProperties": False,
}
SECRETS = SecretStore(environ={"HOOK_TOKEN": "s3cret-token"})


def spec(server: str, path: str, **kw: Any) -> WebhookSpec:
    return WebhookSpec(name=kw.pop("name", "hook"), description="A test hook.", url=server + path, **kw)


async def test_a_post_hook_sends_the_arguments_as_json_with_a_bearer_secret(server: str) -> None:
    tool = webhook_tool(spec(server, "/echo", parameters=LIGHTS_SCHEMA, secret={"env": "HOOK_TOKEN"}), SECRETS)
    assert tool.schema["required"] == ["room", "on"]
    r = await tool.call({"room": "kitchen", "on": True})
    assert not r.is_error, r.content
    assert json.loads(r.content)["got"] == {"room": "kitchen", "on": True}
    assert REQUESTS[-1]["auth"] == "Bearer s3cret-token"
    assert "s3cret" not in r.content


async def test_a_get_hook_sends_the_arguments_as_the_query_and_fills_url_placeholders(server: str) -> None:
    s = spec(server, "/lights/{room}", method="get", parameters=LIGHTS_SCHEMA, secret={"env": "HOOK_TOKEN"}, auth="header")
    r = await webhook_tool(s, SECRETS).call({"room": "living room", "on": False})
    answer = json.loads(r.content)
    assert answer["path"] == "/lights/living%20room"
    assert answer["query"] == {"on": ["false"]}
    assert REQUESTS[-1]["key"] == "s3cret-token" and REQUESTS[-1]["auth"] is None


def test_only_get_hooks_are_free_of_side_effects(server: str) -> None:
    assert webhook_tool(spec(server, "/x", method="GET")).side_effects is False
    assert all(webhook_tool(spec(server, "/x", method=m)).side_effects for m in ("POST", "PUT", "PATCH", "DELETE"))


async def test_plain_text_answers_are_returned_as_text(server: str) -> None:
    r = await webhook_tool(spec(server, "/text")).call({})
    assert (r.is_error, r.content) == (False, "Lights on in the kitchen.")


async def test_invalid_arguments_never_reach_the_server(server: str) -> None:
    before = len(REQUESTS)
    r = await webhook_tool(spec(server, "/echo", parameters=LIGHTS_SCHEMA)).call({"room": "kitchen"})
    assert r.is_error and "on: field required" in r.content
    assert len(REQUESTS) == before


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/broken-json", "broken JSON"),
        ("/html", "text/html instead of JSON or plain text"),
        ("/binary", "application/octet-stream"),
        ("/fail", "answered HTTP 500: database is down"),
        ("/big", "more than 64 KB"),
        ("/redirect", "redirect (HTTP 302)"),
        ("/missing", "answered HTTP 404"),
    ],
)
async def test_garbage_and_failures_become_error_results_naming_the_tool(server: str, path: str, message: str) -> None:
    r = await webhook_tool(spec(server, path, name="lights")).call({})
    assert r.is_error
    assert "the lights service" in r.content and message in r.content, r.content


async def test_a_hook_that_does_not_answer_in_time_is_an_error_result(server: str) -> None:
    r = await webhook_tool(spec(server, "/slow", timeout_s=0.3)).call({})
    assert r.is_error and "did not answer within 0.3 seconds" in r.content


async def test_an_unreachable_hook_is_an_error_result(server: str) -> None:
    import socket

    with socket.socket() as s:  # a port on 127.0.0.1 that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = await webhook_tool(spec(f"http://127.0.0.1:{port}", "/x")).call({})
    assert r.is_error and "cannot reach the hook service" in r.content


async def test_a_missing_secret_is_an_error_result_naming_the_variable_not_a_crash(server: str) -> None:
    tool = webhook_tool(spec(server, "/echo", secret={"env": "NOT_SET_TOKEN"}), SecretStore(environ={}))
    r = await tool.call({})
    assert r.is_error and "NOT_SET_TOKEN is not set" in r.content


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"url": "ftp://example.org/x"}, "http:// or https://"),
        ({"url": "http://"}, "http:// or https://"),
        ({"name": "bad name!"}, "invalid tool name"),
        ({"parameters": {"type": "array"}}, "must be a JSON Schema object"),
        ({"secret": "plain-text-token"}, "never stored in the config file"),
        ({"method": "FETCH"}, "method"),
        ({"timeout_s": 0}, "timeout_s"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_webhook_config_is_a_validation_error_naming_the_field(fields: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {"name": "hook", "description": "d", "url": "https://example.org/x"}
    with pytest.raises(ValidationError, match=message):
        WebhookSpec.model_validate({**base, **fields})


def test_two_webhooks_with_one_name_are_a_config_error() -> None:
    s = WebhookSpec(name="hook", description="d", url="https://example.org/x")
    with pytest.raises(ConfigError, match="two webhook tools are named 'hook'"):
        webhook_tools([s, s])


def test_a_missing_url_placeholder_argument_is_a_tool_failure() -> None:
    from genx.toolbox.webhooks import _request_parts

    with pytest.raises(ToolFailure, match="needs the argument 'room'"):
        _request_parts(WebhookSpec(name="h", description="d", url="https://example.org/{room}"), {})
