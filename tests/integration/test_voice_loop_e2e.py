"""The whole voice loop on real audio: PulseAudio virtual devices, the offline models, PortAudio.

The user's questions are spoken by espeak-ng into the virtual microphone in real
time; the assistant's speaker (a null sink) is recorded from its monitor and
transcribed back with faster-whisper. No wall-clock assertions except generous
hang guards; latency is the bench's business (bench/voice_latency.py).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse import PA_MIC, PA_SPEAKER, PulseServer, Recorder, loud_span, window_rms_dbfs

from genx.agentkit.events import AssistantDone, BargeIn, Event, LoopState, StateChanged, UserFinal
from genx.agentkit.store import ConversationStore

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(300)]

RATE = 16000


def norm_words(text: str) -> list[str]:
    import re

    return re.sub(r"[^a-z0-9' ]+", " ", text.lower().replace("-", " ")).split()


class Live:
    """A :class:`app.headless.Session` on the test server, with its events and a speaker recording."""

    def __init__(self, server: PulseServer, store_dir: Path, **settings_changes: Any) -> None:
        from app.headless import Session
        from app.settings import Settings

        settings = Settings()
        settings.loop.end_of_turn_silence_ms = 500
        # greedy decoding: the small model's answer to a given transcript is then always the same
        settings.generators[0].params.temperature = 0.0
        for k, v in settings_changes.items():
            setattr(settings.loop, k, v)
        self.server = server
        self.store = ConversationStore(store_dir)
        self.session = Session(settings, input_device=PA_MIC, output_device=PA_SPEAKER, store=self.store)
        self.events: list[Event] = []
        self.rec: Recorder | None = None

    async def __aenter__(self) -> Live:
        self.rec = self.server.record()
        await self.session.start(self.events.append)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.session.close()
        if self.rec is not None:
            self.rec.stop()

    @property
    def loop(self) -> Any:
        return self.session.loop

    def timeline(self) -> str:
        """The events (no levels) with times relative to the first, for failure messages."""
        from genx.agentkit.events import InputLevel

        if not self.events:
            return "(no events)"
        t0 = self.events[0].at
        return "\n".join(f"{e.at - t0:8.3f} {e}" for e in self.events if not isinstance(e, InputLevel))

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    async def wait_for(self, pred: Callable[[], bool], limit_s: float, what: str) -> None:
        deadline = asyncio.get_running_loop().time() + limit_s
        while not pred():
            if asyncio.get_running_loop().time() > deadline:
                recent = [type(e).__name__ for e in self.events][-30:]
                raise AssertionError(f"timed out after {limit_s:.0f} s waiting for {what}; recent events: {recent}")
            await asyncio.sleep(0.05)

    def say(self, pcm16k: bytes) -> tuple[float, float]:
        """Play speech into the microphone; returns (monotonic time of its first voiced sample, of its last)."""
        x = np.frombuffer(pcm16k, dtype="<i2")
        span = loud_span(x, RATE, -40.0) or (0, x.size)
        pb = self.server.play_into_mic(x)
        return pb.started_at + span[0] / RATE, pb.started_at + span[1] / RATE


def transcribe(x: np.ndarray) -> str:
    from genx.local.asr import WhisperDecoder

    if x.size < RATE // 4:
        return ""
    return WhisperDecoder().decode(x.astype(np.float32) / 32768.0, True)


@pytest.fixture
def speak(say_espeak: Callable[[str], bytes]) -> Callable[[str], bytes]:
    return say_espeak


async def test_a_spoken_question_gets_a_spoken_answer_that_is_heard_on_the_speaker(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    async with Live(pulse_env, tmp_path) as live:
        await asyncio.sleep(0.5)
        # (SmolLM2 answers "the capital of France" in French, which an English ASR cannot check)
        _, q_end = live.say(speak("What color is the sky on a clear day?"))
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 120, "the answer")
        done = live.of(AssistantDone)[0]
        await asyncio.sleep(0.5)
        assert live.rec is not None
        audio = live.rec.samples()
        start = live.rec.index_at(q_end)
        heard = audio[start:]
        await live.loop.flush_store()
    assert live.of(UserFinal) and norm_words(live.of(UserFinal)[0].text)
    assert not done.interrupted and done.spoken_text
    span = loud_span(heard, RATE, -45.0)
    assert span is not None, "nothing was played on the speaker"
    text = await asyncio.to_thread(transcribe, heard[span[0] : span[1]])
    words = norm_words(text)
    assert words, "the recorded answer transcribes to no words"
    # the small model may answer in any language; what was heard must still be what was said
    said = set(norm_words(done.spoken_text))
    assert any(w in said for w in words), (text, done.spoken_text)
    recs = live.store.load(live.loop.conversation_id)
    assert len(recs) == 1 and recs[0].assistant_text == done.spoken_text and not recs[0].interrupted
    assert live.loop.state in (LoopState.IDLE, LoopState.LISTENING)


@pytest.mark.xfail(reason="issue 5 open: the stored spoken text is not always a prefix of the generated answer", strict=False)
async def test_barge_in_silences_the_speaker_and_history_keeps_only_what_was_played(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    async with Live(pulse_env, tmp_path) as live:
        await asyncio.sleep(0.5)
        live.say(speak("Tell me a long story about a brave little dragon who lived in the mountains."))
        await live.wait_for(lambda: any(isinstance(e, StateChanged) and e.state is LoopState.SPEAKING for e in live.events), 120, "speech")
        await asyncio.sleep(2.5)
        if live.of(AssistantDone):
            pytest.skip("the model's answer was too short to interrupt")
        onset, _ = live.say(speak("Stop please."))
        await live.wait_for(lambda: bool(live.of(BargeIn)), 30, "the barge-in")
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 30, "the cut answer")
        await asyncio.sleep(0.6)
        assert live.rec is not None
        audio = live.rec.samples()
        i_onset = live.rec.index_at(onset)
        await live.loop.flush_store()
    done = live.of(AssistantDone)[0]
    assert done.interrupted
    # the speaker went silent soon after the user's onset and stayed silent for a while
    levels = window_rms_dbfs(audio[i_onset:], RATE, 10)
    first_quiet = next((i for i in range(levels.size) if (levels[i : i + 30] <= -45.0).all()), None)
    assert first_quiet is not None, "the speaker never went quiet after the barge-in"
    assert first_quiet * 10 < 1500, f"still playing {first_quiet * 10} ms after the user started speaking"
    # the stored assistant text is what the speaker played before the cut
    recs = live.store.load(live.loop.conversation_id)
    cut = recs[0]
    assert cut.interrupted and cut.assistant_text == done.spoken_text
    assert norm_words(cut.generated_text)[: len(norm_words(cut.assistant_text))] == norm_words(cut.assistant_text)
    assert len(norm_words(cut.assistant_text)) < len(norm_words(cut.generated_text))
    before = audio[: i_onset + first_quiet * RATE // 100]
    span = loud_span(before, RATE, -45.0)
    assert span is not None
    played = norm_words(await asyncio.to_thread(transcribe, before[span[0] :]))
    stored = norm_words(cut.assistant_text)
    assert abs(len(played) - len(stored)) <= 4, (played, stored)
    import jiwer

    assert jiwer.wer(" ".join(stored), " ".join(played) or "<empty>") <= 0.4, (played, stored)


async def test_a_noisy_microphone_never_hangs_the_loop_and_a_question_still_gets_answered(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    from genx.agentkit.events import LoopError

    noise = (np.random.default_rng(7).normal(0, 1000, RATE * 6)).clip(-32768, 32767).astype(np.int16)  # about -30 dBFS of hiss
    async with Live(pulse_env, tmp_path) as live:
        await asyncio.sleep(0.5)
        live.say(noise.tobytes())
        await asyncio.sleep(7.5)
        # noise may open utterances; each ends with "no words" or a (hallucinated) answer, never a stuck state
        await live.wait_for(lambda: live.loop.state in (LoopState.LISTENING, LoopState.SPEAKING), 60, "the loop to recover")
        await live.wait_for(lambda: live.loop.state is LoopState.LISTENING, 90, "listening again")
        n_done = len(live.of(AssistantDone))
        live.say(speak("What is the capital of France?"))
        await live.wait_for(lambda: len(live.of(AssistantDone)) > n_done, 120, "the answer after the noise")
        await live.loop.flush_store()
    assert all(e.recoverable for e in live.of(LoopError))
    recs = live.store.load(live.loop.conversation_id)
    assert len(recs) == len(live.of(AssistantDone))
    assert recs[-1].user_text and norm_words(recs[-1].user_text)


async def test_a_long_monologue_is_cut_at_the_limit_and_its_start_answered(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    from genx.agentkit.events import ErrorKind, LoopError

    sentences = [
        "I want to tell you about my day.",
        "In the morning I walked the dog along the river.",
        "Then I had breakfast with my sister and we talked about the weather.",
        "After that I worked on the garden for a few hours.",
        "In the evening we cooked soup and watched a film together.",
    ]
    monologue = b"".join(speak(s) + bytes(RATE // 10) for s in sentences)  # short pauses only
    async with Live(pulse_env, tmp_path) as live:
        live.loop.config.max_utterance_s = 6.0
        await asyncio.sleep(0.5)
        live.say(monologue)
        await live.wait_for(lambda: bool(live.of(UserFinal)), 120, "the transcript of the first part")
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 120, "the answer")
    errs = [e for e in live.of(LoopError) if e.kind is ErrorKind.INPUT]
    assert errs and "6 s" in errs[0].message
    assert len(live.of(UserFinal)) >= 1
    assert norm_words(live.of(UserFinal)[0].text)
