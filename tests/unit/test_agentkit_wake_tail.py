"""Where the wake phrase ends (genx.agentkit.wake_tail): what of the audio around a detection reaches the VAD."""

from __future__ import annotations

from genx.agentkit.core import L16_16K
from genx.agentkit.testing import tone
from genx.agentkit.wake_tail import PhraseTail
from genx.chunk import MessageChunk


def _chunks(script: str) -> list[MessageChunk]:
    """One 20 ms chunk per character: ``#`` speech (a loud tone), ``.`` silence, ``-`` quiet noise 30 dB under it."""
    out = []
    for i, ch in enumerate(script):
        if ch == "#":
            data = tone(320, 8000, i * 320)
        elif ch == "-":
            data = tone(320, 250, i * 320)
        else:
            data = bytes(640)
        out.append(MessageChunk.blob(L16_16K, data, timestamp=1000 + i))
    return out


def _run(replay: str, after: str) -> tuple[list[int], int]:
    """The indexes of the chunks the VAD gets, and how many chunks after the detection it took to decide."""
    chunks = _chunks(replay + after)
    tail = PhraseTail(chunks[: len(replay)])
    out, waited = tail.decided, 0
    passed = list(out) if out is not None else []
    for c in chunks[len(replay) :]:
        if out is not None:
            passed.append(c)  # decided: the gate passes the chunk itself
            continue
        waited += 1
        out = tail.feed(c)
        passed = list(out) if out is not None else []
    assert out is not None, "undecided"
    return [c.timestamp - 1000 for c in passed], waited


def test_the_tail_and_the_gap_after_it_are_dropped_and_the_vad_gets_what_follows() -> None:
    got, waited = _run("#######...", "..........")  # 140 ms of "…vis", detected 60 ms into the pause
    assert got == list(range(15, 20))  # the quiet may hold the phrase's faint decay, which webrtcvad calls voiced
    assert waited == 5  # decided once 150 ms were quiet


def test_a_detection_before_the_phrase_ended_drops_the_rest_of_the_phrase_after_it() -> None:
    got, _ = _run("##########", "###........###")  # the phrase goes on 60 ms after the detection
    assert got == list(range(21, 24))


def test_a_request_in_the_same_breath_gets_everything_held_the_tail_included() -> None:
    got, waited = _run("########.#", "##########")  # a 20 ms dip is no gap
    assert got == list(range(20))
    assert waited == 8  # sound 150 ms after the detection: decided then


def test_a_request_that_began_before_a_late_detection_keeps_its_start() -> None:
    got, _ = _run("#........#", "###.......")  # phrase tail, a pause, the request's first 20 ms before the detection
    assert got == list(range(9, 20))


def test_a_gap_that_starts_after_the_phrase_could_have_ended_is_inside_the_request() -> None:
    # "Hey Jarvis stop", then a pause: the quiet after "stop" is not the phrase's end
    got, _ = _run("##########", "##########......")
    assert got == list(range(26))


def test_a_comma_pause_between_the_phrase_and_the_request_is_no_gap_so_the_request_keeps_its_first_word() -> None:
    # "Hey Jarvis, what time is it?": Piper's comma pause after the phrase is 100-140 ms, and "what" alone after it
    # was read "time is it?" by Whisper; with the phrase's tail before it, "what time is it?"
    got, _ = _run("########..", "....######")  # 120 ms quiet, then the request
    assert got == list(range(20))


def test_quiet_means_far_under_the_speech_not_digital_silence() -> None:
    got, _ = _run("#######---", "----------")
    assert got == list(range(15, 20))
