"""A live voice loop on the PulseAudio virtual devices, measured on its recordings (shared by the loop benches).

:class:`LiveLoop` holds a running :class:`app.headless.Session` (``parley``'s loop on
the private server of ``tests/pulse.py``), the loop's events, and recordings of the
microphone and the speaker that last the whole run. It plays audio into the
microphone (:meth:`LiveLoop.say`, remembering when the bench itself spoke or cut an
answer, so barge-ins it did not cause can be counted) and answers what the benches
ask of the recordings, in ``time.monotonic`` seconds (the loop's clock, so events
and recordings compare directly): where a played clip starts in the microphone, the
first audible answer sample after a moment, quiet stretches, the speaker's level, the
moment playback dropped by some dB. :meth:`LiveLoop.stages` splits one turn's
voice-to-voice into the loop's ``TurnMetrics`` stages.

Does not own: what is played when (each bench), the server (``tests/pulse.py``).
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from pulse import MIC_SOURCE, Playback, PulseServer, Recorder, window_rms_dbfs  # noqa: E402

from genx.agentkit.events import (  # noqa: E402
    AssistantDone,
    BargeIn,
    Event,
    LoopState,
    SpeechEnded,
    SpeechStarted,
    StateChanged,
    TurnMetrics,
    TurnReopened,
    UserFinal,
)

RATE = 16000
LOUD_DB = -45.0  # a 10 ms window of the speaker (or microphone) louder than this is audible
WIN = RATE // 100  # samples per 10 ms window


def loud_windows(x: np.ndarray, threshold: float = LOUD_DB) -> np.ndarray:
    return np.flatnonzero(window_rms_dbfs(x, RATE, 10) > threshold)


def mean_db(x: np.ndarray) -> float:
    """The mean power of ``x`` in dBFS (-100 for nothing)."""
    if x.size == 0:
        return -100.0
    p = float(np.mean(x.astype(np.float64) ** 2)) / 32768.0**2
    return max(-100.0, 10 * np.log10(max(p, 1e-12)))


def prepare() -> bool:
    """Quiet logging for a bench run; False (with the reason on stderr) when espeak-ng is missing."""
    if shutil.which("espeak-ng") is None:
        print("espeak-ng is required (apt-get install espeak-ng)", file=sys.stderr)
        return False
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("app.audio").setLevel(logging.ERROR)
    return True


class LiveLoop:
    """See the module docstring. ``session`` may be replaced between items (a fresh session per item)."""

    def __init__(self, server: PulseServer, session: Any) -> None:
        self.server = server
        self.session = session
        self.events: list[Event] = []
        self.user_audio: list[tuple[float, float]] = []  # (start, end) of everything the bench said or cut
        self.mic: Recorder | None = None
        self.spk: Recorder | None = None

    # -- lifecycle -------------------------------------------------------------------
    def start_recording(self, keep_s: float | None = None) -> None:
        """``keep_s``: the recordings hold only about the last ``keep_s`` seconds (a long soak measures the loop's
        memory, not the bench's); the default keeps everything."""
        self.mic = self.server.record(MIC_SOURCE, keep_s=keep_s)
        self.spk = self.server.record(keep_s=keep_s)

    def stop_recording(self) -> None:
        for rec in (self.mic, self.spk):
            if rec is not None:
                rec.stop()

    async def start_session(self, session: Any | None = None) -> None:
        if session is not None:
            self.session = session
        await self.session.start(self.events.append)

    @property
    def loop(self) -> Any:
        loop = self.session.loop
        assert loop is not None, "the session has not started"
        return loop

    # -- what the bench does ------------------------------------------------------------
    def say(self, audio: np.ndarray) -> Playback:
        """Play int16 16 kHz ``audio`` into the microphone now (counted as the bench's own, plus 1 s)."""
        pb = self.server.play_into_mic(audio)
        self.user_audio.append((pb.started_at, pb.started_at + pb.duration_s + 1.0))
        return pb

    def stop_answer(self) -> None:
        """Cut the answer as the stop button does (a barge-in the bench caused)."""
        now = time.monotonic()
        self.user_audio.append((now - 0.1, now + 0.5))
        self.loop.stop_speaking()

    def self_interruptions(self, since: int = 0) -> int:
        """Barge-ins the loop reported while the bench was not talking (nor cutting the answer)."""
        return sum(1 for e in self.of(BargeIn, since) if not any(a <= e.at <= b for a, b in self.user_audio))

    # -- events -----------------------------------------------------------------------
    def of(self, kind: type[Any], since: int = 0) -> list[Any]:
        return [e for e in self.events[since:] if isinstance(e, kind)]

    def reached(self, state: LoopState, since: int = 0, after: float = 0.0) -> bool:
        return any(isinstance(e, StateChanged) and e.state is state and e.at >= after for e in self.events[since:])

    def first_turn(self, since: int) -> str | None:
        finals = self.of(UserFinal, since)
        return finals[0].turn_id if finals else None

    def done_after(self, mark: int) -> list[AssistantDone]:
        """AssistantDone of the turn the bench started after ``mark`` (not of an answer cut meanwhile)."""
        tid = self.first_turn(mark)
        return [d for d in self.of(AssistantDone, mark) if tid is not None and d.turn_id == tid]

    def turn_metrics(self, mark: int) -> TurnMetrics | None:
        """The metrics of the turn the bench started after ``mark``."""
        tid = self.first_turn(mark)
        return next((m for m in self.of(TurnMetrics, mark) if m.turn_id == tid), None)

    def timeline(self, since: int, t0: float) -> str:
        """The turn-taking events after ``since``, seconds from ``t0`` (for --verbose notes)."""
        out = []
        for e in self.events[since:]:
            if isinstance(e, StateChanged):
                what = e.state.value
            elif isinstance(e, UserFinal):
                what = f"final {e.text!r}"
            elif isinstance(e, AssistantDone):
                what = "done" + (" interrupted" if e.interrupted else "")
            elif isinstance(e, SpeechStarted | SpeechEnded | BargeIn | TurnReopened):
                what = type(e).__name__
            else:
                continue
            out.append(f"{e.at - t0:+.2f} {what}")
        return ", ".join(out)

    async def wait(self, pred: Any, limit: float) -> bool:
        deadline = time.monotonic() + limit
        while not pred():
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    async def wait_quiet(self, seconds: float = 0.8, limit: float = 30.0) -> bool:
        """Until the speaker has been quiet for ``seconds`` and the loop listens."""
        assert self.spk is not None
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            n = self.spk.total_bytes // 2
            x = self.spk.samples(n - int(seconds * RATE))
            loop = self.session.loop
            if x.size and loud_windows(x).size == 0 and loop is not None and loop.state is LoopState.LISTENING:
                return True
            await asyncio.sleep(0.1)
        return False

    async def settle(self, limit: float = 30.0) -> bool:
        """Cut whatever answer is running or coming (the bench's own stops), until quiet and listening."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.loop.state in (LoopState.SPEAKING, LoopState.THINKING):
                self.stop_answer()
            if await self.wait_quiet(limit=1.5):
                return True
        return False

    async def caught_up(self, when: float, limit: float = 10.0) -> bool:
        """Until both recordings hold the audio up to monotonic time ``when`` (parec lags on a loaded machine)."""
        await asyncio.sleep(max(0.0, when - time.monotonic()))
        for rec in (self.mic, self.spk):
            if rec is not None and not await self.wait(lambda r=rec: r.total_bytes // 2 >= r.index_at(when), limit):
                return False
        return True

    # -- the recordings ---------------------------------------------------------------
    def clip_start(self, pb: Playback) -> float | None:
        """When the clip of ``pb`` (its first sample loud: trimmed speech, or noise) reached the microphone."""
        assert self.mic is not None
        i0 = self.mic.index_at(pb.started_at)
        idx = loud_windows(self.mic.samples(i0, self.mic.index_at(pb.started_at + pb.duration_s + 1.0)))
        return None if idx.size == 0 else float(self.mic.time_of(i0 + int(idx[0]) * WIN))

    def voiced_span(self, start_t: float, dur: float) -> tuple[float, float] | None:
        """(first, last) voiced time in the microphone recording within [start_t, start_t + dur]."""
        assert self.mic is not None
        i0 = self.mic.index_at(start_t)
        idx = loud_windows(self.mic.samples(i0, self.mic.index_at(start_t + dur)))
        if idx.size == 0:
            return None
        first = i0 + int(idx[0]) * WIN
        last = i0 + (int(idx[-1]) + 1) * WIN
        return float(self.mic.time_of(first)), float(self.mic.time_of(last))

    def _speaker(self, t0: float, t1: float | None = None) -> tuple[int, np.ndarray]:
        assert self.spk is not None
        i0 = self.spk.index_at(t0)
        return i0, self.spk.samples(i0, None if t1 is None else self.spk.index_at(t1))

    def first_audible_after(self, t: float, until: float | None = None) -> float | None:
        assert self.spk is not None
        i0, x = self._speaker(t, until)
        idx = loud_windows(x)
        return None if idx.size == 0 else float(self.spk.time_of(i0 + int(idx[0]) * WIN))

    def audible_between(self, t0: float, t1: float) -> bool:
        return t1 > t0 and loud_windows(self._speaker(t0, t1)[1]).size > 0

    def quiet_before(self, t: float, seconds: float) -> bool:
        return not self.audible_between(t - seconds, t)

    def level_db(self, t0: float, t1: float) -> float:
        """The speaker's mean power over [t0, t1] in dBFS."""
        return mean_db(self._speaker(t0, t1)[1])

    def silent_after(self, t: float, quiet_s: float = 0.3, until: float | None = None) -> float | None:
        """Start of the first ≥ ``quiet_s`` quiet stretch of the speaker after ``t``."""
        return self.dropped_after(t, LOUD_DB, quiet_s, until)

    def dropped_after(self, t: float, level_db: float, hold_s: float, until: float | None = None, smooth_ms: int = 1) -> float | None:
        """Start of the first stretch after ``t`` where the speaker stays at or below ``level_db`` for ``hold_s``
        (levels of 10 ms windows, or their power averaged over ``smooth_ms``, so a word's own dips do not count)."""
        assert self.spk is not None
        i0, x = self._speaker(t, until)
        levels = window_rms_dbfs(x, RATE, 10)
        k = max(1, smooth_ms // 10)
        if k > 1 and levels.size >= k:
            p = np.convolve(10 ** (levels / 10), np.ones(k) / k, mode="same")  # centred: a sharp drop is not delayed
            levels = 10 * np.log10(np.maximum(p, 1e-12))
        need = max(1, int(hold_s * 100))
        run = 0
        for i, low in enumerate(levels <= level_db):
            run = run + 1 if low else 0
            if run >= need:
                return float(self.spk.time_of(i0 + (i - need + 1) * WIN))
        return None

    def longest_quiet(self, t0: float, t1: float) -> float:
        """The longest quiet stretch of the speaker within [t0, t1], seconds."""
        levels = window_rms_dbfs(self._speaker(t0, t1)[1], RATE, 10)
        best = run = 0
        for low in levels <= LOUD_DB:
            run = run + 1 if low else 0
            best = max(best, run)
        return best / 100.0

    def stages(self, mark: int, speech_end: float, heard: float | None) -> dict[str, float]:
        """One turn's voice-to-voice in stages (ms): ``transcript + llm_first_token + tts_first_audio + held +
        device_out`` add up to it; ``eot_wait`` (end of speech → the end of turn), ``asr`` and ``turn_check``
        (the end-of-turn model's call → verdict) overlap them."""
        m = self.turn_metrics(mark)
        if m is None:
            return {}
        ends = [e for e in self.of(SpeechEnded, mark) if e.turn_id == m.turn_id]
        out: dict[str, float] = {}
        if ends:
            out["eot_wait"] = (ends[-1].at - speech_end) * 1000
        if m.asr_final is not None:
            out["asr"] = (m.asr_final - speech_end) * 1000
        if m.turn_check_ms is not None:
            out["turn_check"] = m.turn_check_ms
        if m.generation_start is not None:
            out["transcript"] = (m.generation_start - speech_end) * 1000
        if m.first_token is not None and m.generation_start is not None:
            out["llm_first_token"] = (m.first_token - m.generation_start) * 1000
        if m.first_audio is not None and m.first_token is not None:
            out["tts_first_audio"] = (m.first_audio - m.first_token) * 1000
        if m.first_played is not None and m.first_audio is not None:
            out["held"] = (m.first_played - m.first_audio) * 1000
        if heard is not None and m.first_played is not None:
            out["device_out"] = (heard - m.first_played) * 1000
        return out


STAGES = ("eot_wait", "asr", "turn_check", "transcript", "llm_first_token", "tts_first_audio", "held", "device_out")

__all__ = ["LOUD_DB", "RATE", "STAGES", "LiveLoop", "loud_windows", "mean_db", "prepare"]
