"""The wake word gate on real audio without devices: Piper's "Hey Jarvis", the real detector, the app's VAD.

Deterministic (the audio is fed as fast as it is processed, on a virtual clock). Each clip is fed at several
alignments (leading silence in 10 ms steps), because where the detector fires depends on how the phrase falls
on its 30 ms inference stride: with the 200 ms replay handed to the VAD as it was, the end of the phrase opened an
utterance of its own at some alignments (CI once answered Whisper's "I'm not sure." for it, before the question).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

from genx.agentkit.core import L16_16K, LoopConfig, LoopCore
from genx.agentkit.events import EventBus, WakeChanged
from genx.agentkit.wake import WakeGate, strip_wake_phrase
from genx.chunk import Blob, MessageChunk
from genx.local.vad import SpeechEvent, VadSettings, VadTransformer
from genx.local.wakeword import WakeWordDetector
from genx.stream import collect, stream_of
from tests.integration.conftest import silence

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(600)]

pytest.importorskip("pymicro_wakeword", reason="pip install pymicro-wakeword")
pytest.importorskip("webrtcvad", reason="pip install webrtcvad-wheels")

SKY_QUESTION = "What color is the sky on a clear day?"  # the live wake test's question (test_voice_loop_wake.py)

CHUNK_MS = 20  # the app's capture chunks
ALIGNMENTS_MS = range(500, 590, 10)
T0_MS = 10_000  # chunk timestamps: ms of the clip + T0_MS (the VAD stamps its events on this clock)


class _Clock:
    def __init__(self) -> None:
        self.t = T0_MS / 1000.0

    def __call__(self) -> float:
        return self.t


async def _gate_then_vad(pcm: bytes) -> tuple[list[SpeechEvent], list[bytes], list[WakeChanged]]:
    """``pcm`` through a WakeGate (real detector) into the app's VAD; its events (stamped in clip ms + T0_MS), routes, wakes."""
    clock = _Clock()
    bus = EventBus()
    wakes: list[WakeChanged] = []
    bus.subscribe(lambda e: wakes.append(e) if isinstance(e, WakeChanged) else None)
    core = LoopCore(LoopConfig(), generator=object(), conversation_id="c", clock=clock, wall_clock=clock, bus=bus)  # type: ignore[arg-type]
    to_vad: list[MessageChunk] = []
    with WakeWordDetector() as detector:
        gate = WakeGate(core, detector, to_vad.append)
        step = 16 * CHUNK_MS * 2
        for i in range(0, len(pcm), step):
            clock.t = (T0_MS + i // 32) / 1000.0
            gate.feed(MessageChunk.blob(L16_16K, pcm[i : i + step], timestamp=T0_MS + i // 32))
    vad = VadTransformer(VadSettings(frame_ms=20, aggressiveness=2))  # the app's [vad] "vad/webrtc"
    events: list[SpeechEvent] = []
    out = await collect(await vad.transform(stream_of(*to_vad), on_speech=events.append))
    routes: dict[str, bytes] = {}
    for c in out:
        if isinstance(c.part, Blob):
            routes[c.stream_id] = routes.get(c.stream_id, b"") + c.part.data
    return events, list(routes.values()), wakes


def _spoken_ms(pcm: bytes) -> tuple[int, int]:
    """First and last 10 ms frame of ``pcm`` above -45 dBFS (ms)."""
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    frames = x[: x.size // 160 * 160].reshape(-1, 160)
    loud = np.flatnonzero(20 * np.log10(np.sqrt(np.mean(frames**2, axis=1)) / 32768 + 1e-12) > -45)
    return int(loud[0]) * 10, int(loud[-1] + 1) * 10


@pytest.fixture(scope="module")
def whisper() -> Callable[[bytes], str]:
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    from genx.local.models import ModelNotFoundError
    from genx.local.whisper import WhisperDecoder

    try:
        decoder = WhisperDecoder()
        decoder.decode(np.zeros(1600, dtype=np.float32), final=True)
    except ModelNotFoundError as e:
        pytest.skip(str(e))
    return lambda pcm: decoder.decode(np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768, final=True)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


async def test_the_end_of_the_phrase_before_a_pause_opens_no_utterance_and_the_question_after_it_opens_one(
    say_piper: Callable[[str], bytes],
) -> None:
    question = say_piper(SKY_QUESTION)
    for text in ("Hey Jarvis.", "Hey Jarvis", "Hey Jarvis!"):  # three renderings of the phrase
        phrase = say_piper(text)
        _, phrase_end = _spoken_ms(phrase)
        for lead in ALIGNMENTS_MS:
            question_at = lead + len(phrase) // 32 + 1000
            clip = silence(lead) + phrase + silence(1000) + question + silence(1500)
            events, routes, wakes = await _gate_then_vad(clip)
            assert [w.awake for w in wakes] == [True], f"{text!r} lead {lead} ms: {wakes}"
            starts = [e.timestamp - T0_MS for e in events if e.kind == "start"]
            # one utterance: the question's (it starts with up to 300 ms of the VAD's pre-roll, after the phrase ended)
            assert len(starts) == 1, f"{text!r} lead {lead} ms: utterances at {starts} ms; the phrase ended at {lead + phrase_end} ms"
            assert lead + phrase_end + 300 < starts[0] <= question_at + 100, (text, lead, starts)
            assert len(routes) == 1


async def test_a_question_in_one_breath_with_the_phrase_is_one_utterance_with_all_of_its_words(
    say_piper: Callable[[str], bytes], whisper: Callable[[bytes], str]
) -> None:
    for text in ("Hey Jarvis, what color is the sky on a clear day?", "Hey Jarvis what time is it?"):
        spoken = say_piper(text)
        _, spoken_end = _spoken_ms(spoken)
        for lead in ALIGNMENTS_MS[::3]:
            clip = silence(lead) + spoken + silence(1500)
            events, routes, _ = await _gate_then_vad(clip)
            assert [e.kind for e in events] == ["start", "end"], (text, lead, events)
            # the end, on the samples: the route is a slice of the clip that reaches past its last loud frame
            at = clip.find(routes[0])
            assert at >= 0 and at % 2 == 0, (text, lead, "the route is not a slice of the clip")
            assert (at + len(routes[0])) // 32 >= lead + spoken_end, (text, lead, (at + len(routes[0])) // 32, lead + spoken_end)
            # the start, on the words (where the question starts inside one breath is not known on the samples):
            # each word heard, whatever ending Whisper gave it ("what color is the sky" came back once as "what
            # colors this guy", and on another CPU "a clear day" lost its "day": so no word of the very end is asked)
            words = _words(strip_wake_phrase(whisper(routes[0]), ["Hey Jarvis"]))
            expected = {"what", "color", "clear"} if "color" in text else {"what", "time", "is"}
            missing = [w for w in expected if not any(h.startswith(w) for h in words)]
            assert not missing, (text, lead, words, missing)
