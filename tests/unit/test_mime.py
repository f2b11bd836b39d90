"""MIME-channel normalisation: examples from the spec and hypothesis properties."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from genx.chunk import Blob, MessageChunk
from genx.errors import InvalidMimeError
from genx.mime import TEXT_MIME, mime_essence, mime_params, normalize_mime, parse_mime


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (" Audio/OGG; CODECS=opus ", "audio/ogg; codecs=opus"),
        ("audio/L16; rate=16000; channels=1", "audio/l16; channels=1; rate=16000"),
        ("audio/l16;channels=1;rate=16000", "audio/l16; channels=1; rate=16000"),
        ('audio/ogg; codecs="opus"', "audio/ogg; codecs=opus"),
        ("text/plain", "text/plain"),
    ],
)
def test_normalize_lowercases_sorts_parameters_and_removes_spaces(raw: str, expected: str) -> None:
    assert normalize_mime(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "audio/ogg; codecs",
        "audio",
        "audio/",
        "/ogg",
        "audio/ogg;",
        "audio/ogg; =x",
        "audio/ogg; a=1; a=2",
        "au dio/ogg",
        'audio/ogg; c=""',
    ],
)
def test_empty_or_invalid_mime_normalises_to_no_channel(raw: str) -> None:
    assert normalize_mime(raw) == ""


def test_none_normalises_to_no_channel() -> None:
    assert normalize_mime(None) == ""


def test_parse_mime_names_the_offending_mime_and_the_fix() -> None:
    with pytest.raises(InvalidMimeError) as ei:
        parse_mime("audio/ogg; codecs")
    assert "audio/ogg; codecs" in str(ei.value) and "name=value" in str(ei.value)
    with pytest.raises(InvalidMimeError, match="empty"):
        parse_mime("")


def test_mime_params_and_essence() -> None:
    assert mime_params("audio/L16; rate=16000; channels=1") == {"channels": "1", "rate": "16000"}
    assert mime_essence(" Audio/OGG; CODECS=opus ") == "audio/ogg"
    assert mime_params("bad") == {} and mime_essence("bad") == ""


def test_two_spellings_of_one_mime_are_one_blob_channel() -> None:
    a = MessageChunk.blob("audio/L16; rate=16000; channels=1", b"")
    b = MessageChunk.blob("AUDIO/l16;channels=1;  rate=16000", b"")
    assert a.mime() == b.mime() == "audio/l16; channels=1; rate=16000"


def test_text_mime_is_always_text_plain() -> None:
    assert MessageChunk.text("hi").mime() == TEXT_MIME == "text/plain"


def test_invalid_blob_mime_missing_part_and_control_only_chunks_have_no_mime() -> None:
    assert Blob("audio/ogg; codecs").mime == ""
    assert MessageChunk.blob("audio/ogg; codecs", b"x").mime() == ""
    assert MessageChunk().mime() == ""
    assert MessageChunk.eos("s").mime() == ""
    assert MessageChunk.bos("s").mime() == ""


# -- properties ------------------------------------------------------------------------
TOKEN = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.+-", min_size=1, max_size=8)
SPACE = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def mime_spellings(draw: st.DrawFn) -> tuple[str, str, str]:
    """Two spellings of one MIME (random case, spacing, parameter order, optional quotes) and its canonical form."""
    typ, sub = draw(TOKEN), draw(TOKEN)
    keys = draw(st.lists(TOKEN, unique=True, max_size=4))
    params = {k: draw(TOKEN) for k in keys}
    canonical = f"{typ}/{sub}" + "".join(f"; {k}={params[k]}" for k in sorted(params))

    def spell() -> str:
        def case(s: str) -> str:
            flips = draw(st.lists(st.booleans(), min_size=len(s), max_size=len(s)))
            return "".join(c.upper() if f else c for c, f in zip(s, flips, strict=True))

        order = draw(st.permutations(keys))
        out = draw(SPACE) + case(typ) + "/" + case(sub)
        for k in order:
            v = case(params[k])
            if draw(st.booleans()):
                v = f'"{v}"'
            out += ";" + draw(SPACE) + case(k) + draw(SPACE) + "=" + draw(SPACE) + v
        return out + draw(SPACE)

    return spell(), spell(), canonical


@settings(max_examples=300)
@given(mime_spellings())
def test_normalisation_ignores_case_parameter_order_spaces_and_quotes(spellings: tuple[str, str, str]) -> None:
    a, b, canonical = spellings
    assert normalize_mime(a) == normalize_mime(b) == canonical


@settings(max_examples=500)
@given(st.text(max_size=40))
def test_normalisation_is_idempotent_for_any_input(raw: str) -> None:
    once = normalize_mime(raw)
    assert normalize_mime(once) == once


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(blacklist_characters="/"), max_size=30))
def test_text_without_a_slash_is_invalid(raw: str) -> None:
    assert normalize_mime(raw) == ""


@settings(max_examples=300)
@given(mime_spellings(), st.sampled_from([";", "; x", "; =v", ";;"]))
def test_a_broken_parameter_makes_the_whole_mime_invalid(spellings: tuple[str, str, str], junk: str) -> None:
    a, _, _ = spellings
    assume(a.strip())
    assert normalize_mime(a + junk) == ""


@settings(max_examples=500)
@given(TOKEN, TOKEN, st.lists(st.tuples(st.text(alphabet='kK "=', max_size=4), st.text(alphabet='xX "=\t', max_size=6)), max_size=3))
def test_normalisation_is_idempotent_for_odd_parameter_values(typ: str, sub: str, params: list[tuple[str, str]]) -> None:
    raw = f"{typ}/{sub}" + "".join(f"; {k}={v}" for k, v in params)
    once = normalize_mime(raw)
    assert normalize_mime(once) == once
    assert '"' not in once
