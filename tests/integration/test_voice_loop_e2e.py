"""The whole voice loop on real audio: PulseAudio virtual devices, the offline models, PortAudio.

The user's questions are spoken by espeak-ng into the virtual microphone in real
time; the assistant's speaker (a null sink) is recorded from its monitor and
transcribed back with faster-whisper. No wall-clock assertions except generous
hang guards; latency is the bench's business (bench/voice_latency.py).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse import PA_MIC, PA_SPEAKER, SPEAKER_SINK, PulseServer, Recorder, loud_span, window_rms_dbfs, write_wav

from genx.agentkit.events import (
    AssistantDelta,
    AssistantDone,
    AssistantSpoken,
    BargeIn,
    Event,
    LoopState,
    StateChanged,
    UserFinal,
)
from genx.agentkit.store import ConversationStore

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(300)]

RATE = 16000
QUIET_DBFS = -45.0  # the speaker counts as silent below this level
LISTEN_BACK_S = 6.0  # how much of the speaker before a cut is transcribed to find where it stopped
# (SmolLM2 answers "the capital of France" in French, which an English ASR cannot check)
SKY_QUESTION = "What color is the sky on a clear day?"
LONG_QUESTION = "Tell me a long story about a brave little dragon who lived in the mountains."
# With this prompt and greedy decoding SmolLM2 answers LONG_QUESTION with 150+ words (up to max_tokens), so a
# barge-in test always has a running answer to cut; without it the model sometimes answers in nine words.
STORYTELLER = "You are a storyteller. Always answer with a long story of at least ten sentences."


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

    def reached(self, state: LoopState) -> bool:
        """Whether the loop has been in ``state`` at some point."""
        return any(isinstance(e, StateChanged) and e.state is state for e in self.events)

    async def wait_for(self, pred: Callable[[], bool], limit_s: float, what: str) -> None:
        deadline = asyncio.get_running_loop().time() + limit_s
        while not pred():
            if asyncio.get_running_loop().time() > deadline:
                recent = [type(e).__name__ for e in self.events][-30:]
                raise AssertionError(f"timed out after {limit_s:.0f} s waiting for {what}; recent events: {recent}")
            await asyncio.sleep(0.05)

    async def recording(self, settle_s: float = 0.5) -> np.ndarray:
        """The speaker recording up to ``settle_s`` from now, once the recorder has caught up with that moment.

        (parec's delivery lags behind on a loaded machine; reading too early would cut the end of the answer off.)
        """
        rec = self.rec
        assert rec is not None
        until = time.monotonic() + settle_s
        await asyncio.sleep(settle_s)
        need = rec.index_at(until)
        deadline = time.monotonic() + 10.0
        while rec.total_bytes // 2 < need:
            if time.monotonic() > deadline:
                raise AssertionError(f"the speaker recorder is {(need - rec.total_bytes // 2) / RATE:.1f} s behind")
            await asyncio.sleep(0.02)
        return rec.samples()[:need]

    def say(self, pcm16k: bytes) -> tuple[float, float]:
        """Play speech into the microphone; returns (monotonic time of its first voiced sample, of its last)."""
        x = np.frombuffer(pcm16k, dtype="<i2")
        span = loud_span(x, RATE, -40.0) or (0, x.size)
        pb = self.server.play_into_mic(x)
        return pb.started_at + span[0] / RATE, pb.started_at + span[1] / RATE


def first_quiet_ms(audio: np.ndarray, start: int, *, hold_ms: int = 300) -> int | None:
    """Milliseconds from sample ``start`` of a speaker recording until it goes quiet (below QUIET_DBFS) for ``hold_ms``.

    None when no such quiet stretch fits in the recording after ``start``.
    """
    levels = window_rms_dbfs(audio[start:], RATE, 10)
    hold = hold_ms // 10
    quiet = levels <= QUIET_DBFS
    return next((i * 10 for i in range(levels.size - hold + 1) if quiet[i : i + hold].all()), None)


async def assert_heard(heard: np.ndarray, spoken_text: str) -> list[str]:
    """The loud part of the speaker recording ``heard`` transcribes to words of ``spoken_text``; returns the heard words."""
    span = loud_span(heard, RATE, QUIET_DBFS)
    assert span is not None, "nothing was played on the speaker"
    text = await asyncio.to_thread(transcribe, heard[span[0] : span[1]])
    words = norm_words(text)
    assert words, f"the recorded answer ({(span[1] - span[0]) / RATE:.1f} s of sound) transcribes to no words"
    # the small model may answer in any language; what was heard must still be what was said
    said = set(norm_words(spoken_text))
    assert any(w in said for w in words), (text, spoken_text)
    return words


def assert_stored_cut_is_a_strict_prefix(live: Live, done: AssistantDone) -> Any:
    """The interrupted answer ``done`` is stored as what was played: a strict word prefix of what was generated."""
    recs = live.store.load(live.loop.conversation_id)
    cut = next(r for r in recs if r.turn_id == done.turn_id)
    assert cut.interrupted and cut.assistant_text == done.spoken_text, (cut, live.timeline())
    stored, generated = norm_words(cut.assistant_text), norm_words(cut.generated_text)
    assert generated[: len(stored)] == stored, (stored, generated)
    assert len(stored) < len(generated), f"nothing of the answer was cut: {stored}\n{live.timeline()}"
    return cut


def heard_cut_point(played: list[str], generated: list[str]) -> tuple[int, float]:
    """Where in ``generated`` the transcript ``played`` ends: (words of ``generated`` up to that point, character error rate).

    The last (up to six) played words are matched against every run of as many generated words; the best run's
    end is the cut point. Characters, not words, are compared, so whisper splitting or misspelling an invented
    name ("Eldrador" → "el verde") costs a few characters, not the match.
    """
    import jiwer

    tail = played[-6:]
    hyp, m = " ".join(tail), len(tail)
    cer, j = min((float(jiwer.cer(" ".join(generated[max(0, j - m) : j]), hyp)), j) for j in range(1, len(generated) + 1))
    return j, cer


async def assert_played_up_to_the_cut(before: np.ndarray, cut: Any, timeline: str = "", save_dir: Path | None = None) -> None:
    """The speaker recording ``before`` (up to where it went quiet after a cut) ends where the stored text ``cut`` ends.

    Only its last LISTEN_BACK_S are transcribed: the end is what the claim is about. ``save_dir``: where that part
    is written (``played-before-cut.wav``) for a look after a failure.
    """
    span = loud_span(before, RATE, QUIET_DBFS)
    assert span is not None, "nothing was played before the cut"
    tail = before[max(span[0], span[1] - round(LISTEN_BACK_S * RATE)) : span[1]]
    if save_dir is not None:
        write_wav(save_dir / "played-before-cut.wav", tail, RATE)
    heard = norm_words(await asyncio.to_thread(transcribe, tail))
    # whisper tiny can loop on a word cut in half ("with s s s s s"): a run of one word counts once
    played = [w for i, w in enumerate(heard) if i == 0 or w != heard[i - 1]]
    assert played, "the answer before the cut transcribes to nothing"
    stored, generated = norm_words(cut.assistant_text), norm_words(cut.generated_text)
    j, cer = heard_cut_point(played, generated)
    saved = f"recording: {save_dir / 'played-before-cut.wav'}\n" if save_dir is not None else ""
    why = f"{saved}heard {played}\nstored {stored}\nbest match ends after {j} generated words, CER {cer:.2f}\n{timeline}"
    assert cer <= 0.35, "the end of what the speaker played is not in the answer:\n" + why
    # whisper may guess the half-played next word or drop a mumbled last one: the heard end is within two words of the cut.
    # It also drops the fragment of a new sentence cut after a few words ("… named Eira. She was a" heard as "… named
    # Eira", with "She was a" loud on the recording): stored words after the stored text's last sentence end may be missing.
    import re

    last_sentence = norm_words(re.split(r"[.!?]\s", cut.assistant_text.strip())[-1])
    short_ok = max(2, min(len(last_sentence), 4)) if re.search(r"[.!?]\s", cut.assistant_text.strip()) else 2
    assert -short_ok <= j - len(stored) <= 2, "the speaker stopped at another point than the stored text ends:\n" + why


async def wait_until_mid_answer(live: Live, *, ahead_words: int = 5, quiet_generator_s: float = 2.0, limit_s: float = 90.0) -> None:
    """Wait until the answer's text is all generated and its audio audibly progressing, at least ``ahead_words`` behind the text.

    A cut then lands on sound being played, with generated words still unplayed. Waiting for the generator to
    go quiet (no AssistantDelta for ``quiet_generator_s``) keeps it from competing with the synthesiser for the
    two cores: under that load the synthesiser falls behind real time and the speaker stutters, which no
    listener (nor whisper) can check words against.
    """
    await live.wait_for(
        lambda: (
            bool(live.of(AssistantDone))
            or (bool(live.of(AssistantDelta)) and time.monotonic() - live.of(AssistantDelta)[-1].at >= quiet_generator_s)
        ),
        limit_s,
        "the answer to be generated",
    )
    seen = len(live.of(AssistantSpoken))

    def ready() -> bool:
        spoken = live.of(AssistantSpoken)
        if len(spoken) <= seen:
            return False
        generated = "".join(e.text for e in live.of(AssistantDelta) if e.turn_id == spoken[-1].turn_id)
        return len(norm_words(generated)) >= len(norm_words(spoken[-1].spoken_text)) + ahead_words

    await live.wait_for(lambda: ready() or bool(live.of(AssistantDone)), limit_s, "the answer to play with text ahead of it")
    assert not live.of(AssistantDone), "the answer ended before it could be interrupted:\n" + live.timeline()


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
        _, q_end = live.say(speak(SKY_QUESTION))
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 120, "the answer")
        done = live.of(AssistantDone)[0]
        audio = await live.recording()
        assert live.rec is not None
        heard = audio[live.rec.index_at(q_end) :]
        await live.loop.flush_store()
    assert live.of(UserFinal) and norm_words(live.of(UserFinal)[0].text)
    assert not done.interrupted and done.spoken_text
    await assert_heard(heard, done.spoken_text)
    recs = live.store.load(live.loop.conversation_id)
    assert len(recs) == 1 and recs[0].assistant_text == done.spoken_text and not recs[0].interrupted
    assert live.loop.state in (LoopState.IDLE, LoopState.LISTENING)


async def test_barge_in_silences_the_speaker_and_history_keeps_only_what_was_played(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    # the stop at the first sound (ducking off): with ducking the cut waits for words, and the speaker recording then
    # holds ducked speech at -24 dB that the check's transcription garbles; test_turn_taking_e2e covers ducking
    async with Live(pulse_env, tmp_path, system_prompt=STORYTELLER, backchannel_ducking=False) as live:
        await asyncio.sleep(0.5)
        live.say(speak(LONG_QUESTION))
        await live.wait_for(lambda: live.reached(LoopState.SPEAKING), 120, "speech")
        await wait_until_mid_answer(live)
        onset, _ = live.say(speak("Stop please."))
        await live.wait_for(lambda: bool(live.of(BargeIn)), 30, "the barge-in")
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 30, "the cut answer")
        audio = await live.recording(0.6)
        assert live.rec is not None
        i_onset = live.rec.index_at(onset)
        await live.loop.flush_store()
    done = live.of(AssistantDone)[0]
    assert done.interrupted, live.timeline()
    assert loud_span(audio[i_onset - RATE : i_onset], RATE, QUIET_DBFS) is not None, "the answer was not playing when the user spoke"
    # the speaker went silent soon after the user's onset and stayed silent for a while
    quiet_ms = first_quiet_ms(audio, i_onset)
    assert quiet_ms is not None, "the speaker never went quiet after the barge-in:\n" + live.timeline()
    assert quiet_ms < 1500, f"still playing {quiet_ms} ms after the user started speaking:\n{live.timeline()}"
    # the stored assistant text is what the speaker played before the cut
    cut = assert_stored_cut_is_a_strict_prefix(live, done)
    await assert_played_up_to_the_cut(audio[: i_onset + quiet_ms * RATE // 1000], cut, live.timeline(), tmp_path)


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


async def test_quitting_mid_answer_stores_what_was_heard_within_one_deadline_and_closes_the_devices(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    from genx.deadline import Deadline

    live = Live(pulse_env, tmp_path, system_prompt=STORYTELLER)
    await live.__aenter__()
    try:
        await asyncio.sleep(0.5)
        live.say(speak(LONG_QUESTION))
        await live.wait_for(lambda: live.reached(LoopState.SPEAKING), 120, "speech")
        await wait_until_mid_answer(live)
        heard_before = live.of(AssistantSpoken)[-1].spoken_text
        t0 = time.monotonic()
        await live.session.close(Deadline.after(3.0))  # what the window does at quit, with a tighter budget
        elapsed = time.monotonic() - t0
    finally:
        if live.rec is not None:
            live.rec.stop()
    assert elapsed < 3.0 + 0.5, f"closing took {elapsed:.2f} s"
    recs = live.store.load(live.loop.conversation_id)  # a fresh read of the file: the turn is on disk
    assert [r.interrupted for r in recs] == [True], live.timeline()
    stored, generated = norm_words(recs[0].assistant_text), norm_words(recs[0].generated_text)
    assert stored and generated[: len(stored)] == stored and len(stored) < len(generated)
    assert len(stored) >= len(norm_words(heard_before))  # nothing heard before the quit was lost
    assert (live.session.player.state, live.session.capture.state) == ("closed", "closed")


async def test_a_speaker_that_stops_mid_answer_keeps_what_was_heard_reports_it_and_parley_answers_again(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    from genx.agentkit.events import ErrorKind, LoopError

    async with Live(pulse_env, tmp_path, system_prompt=STORYTELLER) as live:
        await asyncio.sleep(0.5)
        live.say(speak(LONG_QUESTION))
        await live.wait_for(lambda: live.reached(LoopState.SPEAKING), 120, "speech")
        await wait_until_mid_answer(live)
        lost_at = time.monotonic()
        pulse_env.pactl("suspend-sink", SPEAKER_SINK, "1")  # the speaker stops taking audio, as a dead device does
        try:
            await live.wait_for(lambda: bool(live.of(AssistantDone)), 15, "the answer to end after the loss")
        finally:
            pulse_env.pactl("suspend-sink", SPEAKER_SINK, "0")
        ended_in = time.monotonic() - lost_at
        done = live.of(AssistantDone)[0]
        errors = [e for e in live.of(LoopError) if e.kind is ErrorKind.PLAYER]
        await live.loop.flush_store()
        cut = assert_stored_cut_is_a_strict_prefix(live, done)
        assert ended_in < 10.0, f"the answer ended {ended_in:.1f} s after the loss:\n{live.timeline()}"
        assert errors and all(e.recoverable for e in errors), live.timeline()
        assert cut.error
        # Parley is still there: it reopens the speaker and answers the next question
        await live.wait_for(lambda: live.loop.state is LoopState.LISTENING, 30, "listening again")
        await asyncio.sleep(1.0)
        live.say(speak(SKY_QUESTION))
        await live.wait_for(lambda: len(live.of(AssistantDone)) >= 2, 180, "the next answer")
        assert not live.of(AssistantDone)[1].error, live.timeline()
