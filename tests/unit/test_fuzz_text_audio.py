"""Fuzzing the MP3 normaliser and the sentence segmenter: their output must not depend on how the input was chunked."""

from __future__ import annotations

import itertools
import re

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from genx.transformers.audiostream import Normalizer
from genx.transformers.streamkit.segmenter import SentenceSegmenter

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
cuts = st.lists(st.integers(min_value=0, max_value=4000), max_size=20)


def split(data: bytes | str, points: list[int]) -> list[bytes] | list[str]:
    pts = sorted({min(c, len(data)) for c in points} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(pts)]  # type: ignore[return-value]


# -- MP3 normaliser -------------------------------------------------------------------------------------------------
def syncsafe(n: int) -> bytes:
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


@st.composite
def id3v2_tags(draw: st.DrawFn) -> bytes:
    """Complete, truncated (declared longer than it is) and footer-flagged tags, and headers with an invalid size byte."""
    body = draw(st.binary(max_size=80))
    footer = draw(st.booleans())
    declared = len(body) + draw(st.sampled_from([0, 0, 0, 1, 7, 300]))  # > len(body): the tag swallows what follows
    size = syncsafe(declared) if not draw(st.integers(0, 9)) == 0 else b"\x00\x80\x00\x00"
    tag = b"ID3" + bytes([draw(st.integers(2, 4)), 0, 0x10 if footer else 0]) + size + body
    return tag + (b"3DI\x04\x00\x10" + size if footer else b"")


mp3_parts = st.lists(
    st.binary(max_size=200)
    | id3v2_tags()
    | st.sampled_from([b"ID", b"3", b"ID3", b"I", b"D3", b"TAG", b"\xff\xfb\x90\x00"])
    | st.binary(max_size=125).map(lambda b: (b"TAG" + b).ljust(128, b"\x00")),
    max_size=10,
)


def normalise(mime: str, chunks: list[bytes]) -> bytes:
    n = Normalizer(mime)
    return b"".join(n.normalize(c) for c in chunks) + n.flush()


@FUZZ
@given(parts=mp3_parts, points=cuts, mime=st.sampled_from(["audio/mpeg", "audio/MP3", "audio/x-mpeg; layer=3"]))
@example(parts=[b"x" * 140, b"ID", b"3", b"\x04\x00\x00\x00\x00\x00\x05hello", b"y" * 10], points=[141], mime="audio/mpeg")
def test_mp3_normaliser_output_is_the_same_for_every_chunking(parts: list[bytes], points: list[int], mime: str) -> None:
    data = b"".join(parts)
    whole = normalise(mime, [data])
    assert normalise(mime, split(data, points)) == whole  # type: ignore[arg-type]
    assert normalise(mime, [data[i : i + 1] for i in range(len(data))]) == whole
    assert len(whole) <= len(data)


@FUZZ
@given(data=st.binary(max_size=600), points=cuts, mime=st.sampled_from(["audio/L16; rate=16000", "audio/ogg", "audio/wav", "x/y"]))
def test_other_mimes_pass_through_unchanged_however_chunked(data: bytes, points: list[int], mime: str) -> None:
    assert normalise(mime, split(data, points)) == data  # type: ignore[arg-type]


# -- sentence segmenter ---------------------------------------------------------------------------------------------
# Text without markup (no tags, brackets, URLs, markdown markers, list markers): for it the segmenter promises every
# non-space character exactly once, in order. Abbreviations, decimals, ellipses, quotes, CJK and line breaks included.
WORDS = [
    "Hello", "world", "Mr.", "Smith", "e.g.", "U.S.", "3.14", "10:15", "1,000", "Node.js", "ok", "it's", "là", "naïve",
    "你好", "世界", "。", "，", "！", "？", "…", "...", ".", ",", "!", "?", ";", ":", "\"Stop!\"", "'quoted'", "”", "“",
    "—", "-", "–", "a", "I", "J.", "etc.", "vs.", "9", "2024", "%", "&", "@", "=", "/", "«", "»", "¿", "¡",
]  # fmt: skip
SPACES = [" ", " ", " ", "  ", "\n", "\t", "\r\n", "\n\n", ""]
LIST_MARKER = re.compile(r"(?m)^[ \t]*(?:\d{1,3}[.)]|[-*+•])[ \t]")
texts = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SPACES)), max_size=60).map(lambda ws: "".join(w + s for w, s in ws))


def segment(parts: list[str], language: str) -> list[str]:
    seg = SentenceSegmenter(language=language)
    out: list[str] = []
    for p in parts:
        seg.write(p)
        out += seg.segments()
    return out + seg.segments(flush=True)


def squash(s: str) -> str:
    return "".join(s.split())


def speakable(s: str) -> str:
    return "".join(c for c in s if c.isalnum())


@FUZZ
@given(text=texts, points=cuts, language=st.sampled_from(["auto", "en", "zh"]))
@example(text="Mr. Smith paid 3.14 dollars... Then, 你好。", points=[3, 4, 20], language="auto")
@example(text="-- - ", points=[], language="auto")  # nothing speakable: no segment at all
def test_segments_keep_every_letter_and_digit_once_in_order_however_the_text_was_split(text: str, points: list[int], language: str) -> None:
    assume(not LIST_MARKER.search(text))
    for parts in (split(text, points), [text], list(text)):
        out = segment(parts, language)  # type: ignore[arg-type]
        # a segment with nothing speakable (a run of dashes) is dropped; every word's characters stay, once, in order
        assert speakable("".join(out)) == speakable(text)
        it = iter(squash(text))
        assert all(c in it for c in squash("".join(out)))  # and nothing is invented or reordered
        assert all(s and s == s.strip() and len(s) <= 80 for s in out)


MARKUP = [
    "<emotion>", "</emotion>", "<br/>", "<speak>", "</speak>", "<", ">", "</", "[", "]", "(", ")", "（", "）", "[link](http://x.y/z)",
    "https://example.com/a?b=c.", "www.x.org", "**", "*", "_", "~~", "`", "```", "```py\n", "# ", "> ", "- ", "1. ", "---",
    "<https://a.b>", "![alt](u)", "<node id=\"x\" />", "()", "【】", "snake_case", "2*3",
]  # fmt: skip
marked_up = st.lists(st.sampled_from(WORDS + MARKUP) | st.sampled_from(SPACES) | st.text(max_size=3), max_size=60).map("".join)


@FUZZ
@given(text=st.text(max_size=400) | marked_up, points=cuts, language=st.sampled_from(["auto", "zh"]))
def test_any_text_segments_without_raising_and_never_invents_characters(text: str, points: list[int], language: str) -> None:
    out = segment(split(text, points), language)  # type: ignore[arg-type]
    produced = squash("".join(out))
    source = squash(text)
    it = iter(source)
    assert all(c in it for c in produced), (produced, source)  # a subsequence: markup may be dropped, nothing added
