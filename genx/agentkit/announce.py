"""Announcements: Parley speaking up unasked (a timer, an alarm or a reminder came due) — a chime, then the words.

:meth:`Announcer.announce` queues a sentence and publishes
:class:`~genx.agentkit.events.Announcement` (``phase="queued"``) at once, so the
window and the terminal show it even when nothing can be heard yet. The
sentences are spoken one at a time, politely: only while the floor is free (the
loop listening or idle — muting the microphone does not silence Parley, so a
muted loop announces too), never over the user's speech or an answer; a queued
one waits for the state to come back to listening. Each is one route on the
player: a short two-note chime at the voice's own rate, then the synthesized
sentence (:class:`Chimed`), played through an
:class:`~genx.agentkit.speaker.AnswerAudio` so the echo canceller hears it as
its far end like an answer (:class:`~genx.agentkit.heard.HeardTracker`).
``phase="speaking"`` is published when its audio starts, ``"done"`` when it was
played (or failed: the text was shown). :meth:`Announcer.stop_speaking` cuts the
one playing; the queue goes on.

Announcements are not turns: they are neither in the history nor in the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from genx.agentkit.core import LoopCore
from genx.agentkit.events import Announcement, Event, LoopState, StateChanged
from genx.agentkit.heard import HeardTracker
from genx.agentkit.mic import MicFrontEnd
from genx.agentkit.ports import AudioOutput, Speech
from genx.agentkit.speaker import AnswerAudio
from genx.agentkit.spoken import SegmentRecorder
from genx.agentkit.turns import Answer
from genx.chunk import Blob, MessageChunk, Role, Text
from genx.deadline import within
from genx.ids import new_stream_id
from genx.stream import Stream, StreamBase, StreamBuilder
from genx.transformers.audiostream.pcm import AudioFormatError, frame_pcm, pcm_format_from_mime

log = logging.getLogger("genx.agentkit.loop")

__all__ = ["CHIME_NOTES", "Announcer", "Chimed", "chime_pcm"]

CHIME_NOTES = ((880.0, 0.13), (1318.5, 0.2))  # A5 then E6: a rising fifth
CHIME_GAP_S = 0.18  # silence between the chime and the words
CHIME_LEVEL = 0.25  # of full scale
FREE = (LoopState.LISTENING, LoopState.IDLE)


def chime_pcm(rate: int, *, notes: tuple[tuple[float, float], ...] = CHIME_NOTES, level: float = CHIME_LEVEL) -> bytes:
    """The chime as 16-bit little-endian mono PCM at ``rate``: the notes with soft edges, then a short silence."""
    pieces = []
    for freq, dur in notes:
        n = max(1, int(rate * dur))
        t = np.arange(n) / rate
        env = np.minimum(1.0, np.minimum(t, t[::-1]) / 0.012) * np.exp(-3.0 * t / dur)
        pieces.append(np.sin(2 * np.pi * freq * t) * env)
    pieces.append(np.zeros(int(rate * CHIME_GAP_S)))
    x = np.concatenate(pieces) * (level * 32767)
    return np.rint(x).astype("<i2").tobytes()


class Chimed(StreamBase):
    """``inner`` (a TTS audio stream) with the chime inserted before its first audio, on the same route and MIME."""

    __slots__ = ("_queued", "_started", "inner")

    def __init__(self, inner: Stream) -> None:
        self.inner = inner
        self._queued: deque[MessageChunk] = deque()
        self._started = False

    async def next(self) -> MessageChunk:
        if self._queued:
            return self._queued.popleft()
        c = await self.inner.next()
        part = c.part
        if self._started or not (isinstance(part, Blob) and part.mime.startswith("audio/")):
            return c
        self._started = True
        try:
            rate, channels = pcm_format_from_mime(part.mime)
        except AudioFormatError:
            log.info("announcement: no chime for %s audio", part.mime)
            return c
        pcm = chime_pcm(rate)
        if channels > 1:
            pcm = np.repeat(np.frombuffer(pcm, dtype="<i2"), channels).tobytes()
        chime = [MessageChunk.blob(part.mime, f, role=Role.ASSISTANT, stream_id=c.stream_id) for f in frame_pcm(pcm, rate, 20, channels)]
        if c.is_begin_of_stream():  # the route's opening stays first
            self._queued.extend(chime)
            return c
        self._queued.extend([*chime[1:], c])
        return chime[0]

    async def close(self) -> None:
        await self.inner.close()

    async def close_with_error(self, exc: BaseException) -> None:
        await self.inner.close()


@dataclass(slots=True, eq=False)
class _Item:
    announcement_id: str
    text: str
    answer: Answer | None = None
    done: asyncio.Future[None] | None = None
    started: bool = False
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)


class Announcer:
    """See the module docstring. Its player / state callbacks are wired by the loop."""

    def __init__(self, core: LoopCore, *, speech: Speech, player: AudioOutput, mic: MicFrontEnd, heard: HeardTracker) -> None:
        self._core = core
        self._speech = speech
        self._player = player
        self._mic = mic
        self._heard = heard
        self._queue: deque[_Item] = deque()
        self.current: _Item | None = None
        self._task: asyncio.Task[None] | None = None
        self.last_played: tuple[int, int, bool] | None = None  # the last one's samples handed out, received, interrupted

    def announce(self, text: str) -> str:
        """Queue ``text`` to be spoken after a chime; returns its id (shown at once, spoken when the floor is free)."""
        text = " ".join(text.split())
        item = _Item(new_stream_id(), text)
        if not text:
            return item.announcement_id
        self._queue.append(item)
        self._core.emit(Announcement(announcement_id=item.announcement_id, text=text, phase="queued"))
        self.maybe_start()
        return item.announcement_id

    @property
    def pending(self) -> int:
        return len(self._queue) + (self.current is not None)

    def on_event(self, ev: Event) -> None:
        if isinstance(ev, StateChanged) and ev.state in FREE:
            self.maybe_start()

    def maybe_start(self) -> None:
        core = self._core
        if self._task is not None or not self._queue or not core.running or core.state not in FREE:
            return
        self._task = asyncio.get_running_loop().create_task(self._speak(self._queue.popleft()), name="voice-loop-announce")

    async def _speak(self, item: _Item) -> None:
        core = self._core
        self.current = item
        loop = asyncio.get_running_loop()
        item.done = loop.create_future()
        audio: AnswerAudio | None = None
        try:
            route = new_stream_id()
            rec = SegmentRecorder(clock=core.clock)
            text_in = StreamBuilder()
            text_in.push(MessageChunk.text(item.text, role=Role.ASSISTANT, stream_id=route))
            text_in.push(MessageChunk.eos(route, Text(""), role=Role.ASSISTANT))
            text_in.done()
            tts = await self._speech.speak(text_in.stream, rec)
            audio = AnswerAudio(route, Chimed(tts), on_end=self._audio_ended)
            audio.keep_far = self._heard.keeps_far
            ans = Answer(route, rec, "", audio=audio, prompt=item.text)
            ans.generated.append(item.text)
            item.answer = ans
            self._player.play(audio)
            await within(asyncio.shield(item.done), core.config.answer_timeout_s)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("announcement %r could not be spoken: %s", item.text, e)
        finally:
            if audio is not None and not audio.ended:
                audio.cut()
            if item.started:
                self._mic.speaking(False)
            if item.answer is not None:
                self._heard.forget(item.answer.route_id)
            self.current = None
            self._task = None
            if core.running:
                core.emit(Announcement(announcement_id=item.announcement_id, text=item.text, phase="done"))
                self.maybe_start()

    # -- player callbacks (the loop forwards every position) ------------------------------------
    def _mine(self, pos: Any) -> _Item | None:
        item = self.current
        if item is None or item.answer is None or str(pos.stream_id) != item.answer.route_id:
            return None
        return item

    def on_played(self, pos: Any) -> None:
        item = self._mine(pos)
        if item is None or item.answer is None:
            return
        if int(pos.samples_played) > 0 and not item.started:
            item.started = True
            self._mic.speaking(True)
            self._core.emit(Announcement(announcement_id=item.announcement_id, text=item.text, phase="speaking"))
        self._heard.advance(item.answer, pos)

    def on_route_end(self, pos: Any) -> None:
        item = self._mine(pos)
        if item is not None and item.done is not None and not item.done.done():
            self.last_played = (
                int(pos.samples_played),
                int(getattr(pos, "samples_received", 0) or 0),
                bool(getattr(pos, "interrupted", False)),
            )
            log.info("announcement played: %d of %d samples%s", *self.last_played[:2], " (interrupted)" if self.last_played[2] else "")
            item.done.set_result(None)

    def _audio_ended(self, audio: AnswerAudio, exc: BaseException | None) -> None:
        item = self.current
        if item is None or item.answer is None or item.answer.audio is not audio:
            return
        if exc is not None:
            log.warning("announcement %r: speech synthesis failed: %s", item.text, exc)
        if (exc is not None or not audio.saw_open) and item.done is not None and not item.done.done():
            item.done.set_result(None)  # nothing (more) will reach the player

    # -- commands ---------------------------------------------------------------------------------
    def stop_speaking(self) -> bool:
        """Cut the announcement being spoken (the next queued one still comes); False when none was."""
        item = self.current
        if item is None:
            return False
        ans = item.answer
        if ans is not None and ans.audio is not None:
            ans.audio.cut()
        if item.done is not None and not item.done.done():
            item.done.set_result(None)
        return True

    async def close(self) -> None:
        """Forget the queue and stop the one being spoken (loop shutdown)."""
        self._queue.clear()
        self.stop_speaking()
        task = self._task
        if task is not None:
            with contextlib.suppress(BaseException):
                await within(task, 2.0)
