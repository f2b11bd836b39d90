"""SSE and NDJSON framing of provider bodies: line endings, splits, EOF without blank line, UTF-8."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genx.generators.providers.framing import NDJSONDecoder, SSEDecoder, SSEEvent


def decode(body: bytes, cuts: list[int] | None = None) -> list[SSEEvent]:
    d = SSEDecoder()
    out: list[SSEEvent] = []
    prev = 0
    for c in sorted(cuts or []):
        out += d.feed(body[prev:c])
        prev = c
    out += d.feed(body[prev:])
    out += d.close()
    return out


def test_lf_framed_events_carry_event_name_and_data() -> None:
    evs = decode(b'event: ping\ndata: {}\n\ndata: {"a":1}\n\n')
    assert [(e.event, e.data) for e in evs] == [("ping", "{}"), ("", '{"a":1}')]


def test_crlf_framing_gives_the_same_events_as_lf() -> None:
    lf = decode(b"data: one\n\nevent: x\ndata: two\n\n")
    crlf = decode(b"data: one\r\n\r\nevent: x\r\ndata: two\r\n\r\n")
    assert [(e.event, e.data) for e in crlf] == [(e.event, e.data) for e in lf]


def test_crlf_split_between_cr_and_lf_does_not_create_an_extra_blank_line() -> None:
    body = b"data: a\r\ndata: b\r\n\r\n"
    cut = body.index(b"\n")  # between the first \r and \n
    evs = decode(body, [cut])
    assert [e.data for e in evs] == ["a\nb"]


def test_lone_cr_line_endings_are_accepted() -> None:
    assert [e.data for e in decode(b"data: x\r\rdata: y\r\r")] == ["x", "y"]


def test_multi_line_data_fields_are_joined_with_newlines() -> None:
    evs = decode(b'data: {"text":\ndata: "hi"}\n\n')
    assert evs[0].data == '{"text":\n"hi"}'


def test_final_event_without_trailing_blank_line_is_dispatched_at_close() -> None:
    evs = decode(b'event: message_delta\ndata: {}\n\nevent: message_stop\ndata: {"type": "message_stop"}')
    assert [e.event for e in evs] == ["message_delta", "message_stop"]
    assert evs[-1].data == '{"type": "message_stop"}'


def test_comments_and_unknown_fields_are_ignored() -> None:
    evs = decode(b": keep-alive\nretry: 10\nfoo: bar\ndata: x\n\n")
    assert [(e.event, e.data) for e in evs] == [("", "x")]


def test_data_without_space_after_colon_keeps_its_value() -> None:
    assert decode(b"data:[DONE]\n\n")[0].data == "[DONE]"


def test_utf8_character_split_across_reads_is_decoded_whole() -> None:
    body = 'data: {"t":"héllo 你好 🎉"}\n\n'.encode()
    for cut in range(1, len(body)):
        evs = decode(body, [cut])
        assert evs[0].data == '{"t":"héllo 你好 🎉"}', cut


@given(st.lists(st.integers(min_value=0, max_value=80), max_size=10), st.booleans())
def test_any_split_of_a_body_yields_the_same_events(cuts: list[int], crlf: bool) -> None:
    body = b"event: a\ndata: 1\n\n: c\ndata: 2\ndata: 3\n\nevent: b\ndata: \xe4\xbd\xa0\n\ndata: end"
    if crlf:
        body = body.replace(b"\n", b"\r\n")
    cuts = [c for c in cuts if c <= len(body)]
    assert [(e.event, e.data) for e in decode(body, cuts)] == [("a", "1"), ("", "2\n3"), ("b", "你"), ("", "end")]


def test_ndjson_lines_are_parsed_across_splits_and_a_last_line_without_newline() -> None:
    d = NDJSONDecoder()
    out = d.feed(b'{"a": 1}\n{"b"')
    out += d.feed(b': 2}\n\n{"c": 3}')
    out += d.close()
    assert out == [{"a": 1}, {"b": 2}, {"c": 3}]


def test_ndjson_garbage_line_raises_value_error_naming_the_line() -> None:
    d = NDJSONDecoder()
    with pytest.raises(ValueError, match="not a JSON line"):
        d.feed(b"<html>oops</html>\n")
