"""Alignment of played audio to the words of the answer (genx.agentkit.spoken)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from genx.agentkit.spoken import (
    SegmentRecorder,
    SegmentSpan,
    heard_chars,
    join_segments,
    speaking_rate,
    spoken_prefix,
    words,
)


def _tone(n_samples: int, amp: int = 8000) -> bytes:
    t = np.arange(n_samples)
    return (amp * np.sin(t * 0.1)).astype("<i2").tobytes()


def _silence(n_samples: int) -> bytes:
    return b"\x00\x00" * n_samples


def test_words_split_latin_on_spaces_and_keep_punctuation_attached() -> None:
    text = "Hello, world! How's it going?"
    assert [text[s:e] for s, e in words(text)] == ["Hello,", "world!", "How's", "it", "going?"]


def test_words_make_each_cjk_character_a_word_with_its_punctuation() -> None:
    text = "好的，我来。OK"
    assert [text[s:e] for s, e in words(text)] == ["好", "的，", "我", "来。", "OK"]


def test_join_segments_adds_one_space_between_latin_segments_and_none_next_to_cjk() -> None:
    assert join_segments(["Hello there.", " How are you? ", ""]) == "Hello there. How are you?"
    assert join_segments(["好的，", "我来讲一个。"]) == "好的，我来讲一个。"


def test_nothing_played_means_nothing_heard() -> None:
    segs = [SegmentSpan("Hello there.", 0, 1000)]
    assert spoken_prefix(segs, 0) == ""


def test_a_fully_played_segment_is_heard_whole_and_the_next_one_not_at_all() -> None:
    segs = [SegmentSpan("First sentence here.", 0, 1000), SegmentSpan("Second one.", 1000, 2000)]
    assert spoken_prefix(segs, 1000) == "First sentence here."


def test_partial_segment_keeps_only_words_played_to_their_last_character() -> None:
    # "one two three four" : 18 chars over 1800 bytes → 100 bytes per char.
    segs = [SegmentSpan("one two three four", 0, 1800)]
    # "one" ends at char 3 → byte 300
    assert spoken_prefix(segs, 299) == ""
    assert spoken_prefix(segs, 300) == "one"
    # "two" ends at char 7 → byte 700
    assert spoken_prefix(segs, 699) == "one"
    assert spoken_prefix(segs, 700) == "one two"
    assert spoken_prefix(segs, 1799) == "one two three four"[:13]


def test_trailing_punctuation_does_not_need_to_be_played_for_the_word_to_count() -> None:
    segs = [SegmentSpan("Yes. No.", 0, 800)]  # "Yes" ends at char 3 → byte 300; "." is silent
    assert spoken_prefix(segs, 300) == "Yes."


def test_voiced_range_excludes_leading_and_trailing_silence_from_the_mapping() -> None:
    # 1000 bytes of lead silence, 1000 bytes of speech for "ab cd" (5 chars), 1000 bytes trailing silence
    seg = SegmentSpan("ab cd", 0, 3000, voiced_start=1000, voiced_end=2000)
    assert spoken_prefix([seg], 999) == ""
    # "ab" ends at char 2 → 1000 + 2/5*1000 = 1400
    assert spoken_prefix([seg], 1399) == ""
    assert spoken_prefix([seg], 1400) == "ab"
    # end of voice → whole segment, even though trailing silence is still unplayed
    assert spoken_prefix([seg], 2000) == "ab cd"


def test_later_segment_offsets_are_relative_to_the_route() -> None:
    segs = [SegmentSpan("Hi.", 0, 600), SegmentSpan("one two", 600, 1300)]
    # second: 7 chars over 700 bytes; "one" ends at char 3 → 600 + 300
    assert spoken_prefix(segs, 899) == "Hi."
    assert spoken_prefix(segs, 900) == "Hi. one"


def test_incomplete_segment_uses_the_measured_speaking_rate_instead_of_its_partial_length() -> None:
    done = SegmentSpan("abcdefghij", 0, 1000)  # 100 bytes/char
    cut = SegmentSpan("one two three four", 1000, 1400, complete=False)  # only 400 bytes synthesized so far
    assert speaking_rate([done, cut]) == pytest.approx(100.0)
    # without the rate, 400 bytes played would claim the whole sentence; with it, "one" (300 bytes) only
    assert spoken_prefix([done, cut], 1400) == "abcdefghij one"


def test_heard_chars_is_zero_for_empty_text() -> None:
    assert heard_chars(SegmentSpan("", 0, 100), 50) == 0.0


@given(
    texts=st.lists(st.text(alphabet="abc xyz,.好的", min_size=0, max_size=30), min_size=1, max_size=5),
    sizes=st.lists(st.integers(min_value=0, max_value=3000), min_size=5, max_size=5),
    a=st.integers(min_value=0, max_value=16000),
    b=st.integers(min_value=0, max_value=16000),
)
def test_spoken_prefix_is_monotonic_and_always_a_prefix_of_the_full_text(texts: list[str], sizes: list[int], a: int, b: int) -> None:
    segs = []
    off = 0
    for t, n in zip(texts, sizes, strict=False):
        segs.append(SegmentSpan(t, off, off + n))
        off += n
    lo, hi = sorted((a, b))
    s_lo = spoken_prefix(segs, lo)
    s_hi = spoken_prefix(segs, hi)
    full = spoken_prefix(segs, off + 1)
    assert full == join_segments(texts)
    assert s_hi.startswith(s_lo)
    assert full.startswith(s_hi)


def test_recorder_tracks_segment_byte_spans_and_voiced_range() -> None:
    rec = SegmentRecorder()
    rec.begin("Hello there.")
    rec.audio(_silence(100))
    rec.audio(_tone(400))
    rec.audio(_silence(100))
    rec.end()
    rec.begin("Bye.")
    rec.audio(_tone(200))
    rec.end()
    a, b = rec.spans()
    assert (a.start, a.end) == (0, 1200)
    assert a.voiced_start is not None and 200 <= a.voiced_start <= 220
    assert a.voiced_end is not None and 990 <= a.voiced_end <= 1000
    assert (b.start, b.end) == (1200, 1600)
    assert rec.total_bytes == 1600
    assert rec.full_text() == "Hello there. Bye."
    assert rec.spoken(1000) == "Hello there."
    assert rec.spoken(1200) == "Hello there."


def test_recorder_spoken_text_for_a_cut_segment_stays_conservative() -> None:
    rec = SegmentRecorder()
    rec.begin("aaaa bbbb")  # 9 chars, 900 bytes → 100 bytes/char
    rec.audio(_tone(450))
    rec.end()
    rec.begin("cccc dddd eeee ffff")  # cut after 500 bytes of audio (~5 characters at the measured rate)
    rec.audio(_tone(250))
    assert rec.spoken(900 + 500) == "aaaa bbbb cccc"


def test_generated_prefix_keeps_the_models_wording_of_what_was_heard() -> None:
    from genx.agentkit.spoken import generated_prefix

    gen = "Here is **bold** text, see https://example.com for more. Then the rest."
    heard = "Here is bold text, see for more."  # markdown and the URL were not spoken
    assert generated_prefix(gen, heard) == "Here is **bold** text, see https://example.com for more."
    assert generated_prefix(gen, "Here is bold") == "Here is **bold**"


def test_generated_prefix_never_claims_a_word_that_was_not_heard() -> None:
    from genx.agentkit.spoken import generated_prefix

    assert generated_prefix("One two three.", "") == ""
    assert generated_prefix("One two three.", "zebra") == ""
    assert generated_prefix("One, two; three!", "one two") == "One, two;"
    assert generated_prefix("好的，我来讲一个。", "好的，我") == "好的，我"


def _uneven_voice(text: str, seed: int = 7) -> tuple[bytes, list[tuple[str, int]]]:
    """A voice unlike the estimator's assumption: every character 25-95 ms (random), 20 ms between words, a
    350 ms pause after each comma. Returns the audio and each word with the byte where its sound ends."""
    import random

    rnd = random.Random(seed)
    rate = 16000
    out = bytearray()
    ends: list[tuple[str, int]] = []
    for w in text.split(" "):
        for ch in w:
            if ch.isalnum():
                n = rnd.randint(25, 95) * rate // 1000
                out += (np.full(n, 8000 if len(out) % 4 == 0 else -8000, dtype="<i2")).tobytes()
        ends.append((w, len(out)))
        pause_ms = 350 if w.endswith(",") else 20
        out += bytes(2 * pause_ms * rate // 1000)
    return bytes(out), ends


@pytest.mark.parametrize("seed", range(24))
def test_the_heard_text_never_claims_a_word_whose_sound_has_not_ended_with_an_uneven_voice(seed: int) -> None:
    from genx.agentkit.heard import HEARD_MARGIN_S

    text = "Well, I think the answer is yes, most of the time, but it depends on the weather."
    pcm, ends = _uneven_voice(text, seed)
    rec = SegmentRecorder()
    rec.begin(text)
    for i in range(0, len(pcm), 640):
        rec.audio(pcm[i : i + 640])
    rec.end()
    margin = 2 * round(HEARD_MARGIN_S * 16000)
    worst_missing = 0
    for played in range(0, len(pcm) + 320, 320):  # every 10 ms
        heard = rec.spoken(played, margin).split()
        truly = [w for w, end in ends if end <= played]
        assert heard == [w for w, _ in ends[: len(heard)]]
        over = [w for w, end in ends[: len(heard)] if end > played]
        assert not over, f"at {played / 32000:.2f} s claimed {over} before its sound ended"
        worst_missing = max(worst_missing, len(truly) - len(heard))
    assert rec.spoken(len(pcm)) == text
    assert worst_missing <= 2  # conservative, not blind
