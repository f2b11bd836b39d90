"""Realtime mode's versions of cascade parts: a response's heard text, the player that truncates, the recorder that
waits, the answer runner that adopts.

:class:`TranscriptRecorder` is the :class:`~genx.agentkit.spoken.SegmentRecorder`
of one realtime response: the provider sends the response's audio and its
transcript as two unaligned streams, so the whole response is one segment whose
text grows with the transcript and whose byte span grows with the audio. The
heard words are mapped as in the cascade (proportionally over the voiced range,
a word counts once its last letter was heard); while the response is still
arriving, its length is bounded by a speaking rate (``chars_per_s``) so the
estimate never runs ahead of the audio.

:class:`TruncatingOutput` wraps the speaker for the answer runner. When the
runner stops the player (a barge-in, a stop, a newer question), it reads the
positions the player returns and tells the provider, for every realtime response
it was playing, how much of it was heard (``interrupt(played_ms, stream_id=…)``:
OpenAI ``response.cancel`` while it runs and ``conversation.item.truncate`` with
``audio_end_ms``): the provider's conversation then holds what the user heard,
the same position the loop's history keeps.

:class:`RealtimeAnswers` is the loop's :class:`~genx.agentkit.answers.AnswerRunner`
in realtime mode: a provider response's audio is *adopted* (played, tracked,
cut and recorded like a cascade answer) instead of launched from a generator.

:class:`PendingRecorder` is the loop's :class:`~genx.agentkit.recorder.Recorder`
in realtime mode. The provider transcribes the user's speech on its own time
(OpenAI's input transcription often arrives while the answer plays, sometimes
after a short one ended), so a finished turn whose user transcript is still on
its way is recorded when it arrives, or after ``wait_s``; later turns wait
behind it, so history and store stay in turn order.

Does not own: the session (:mod:`.realtime_mode`), the cut's order
(:mod:`.answers`), the history and store themselves (:mod:`.recorder`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from genx.agentkit.answers import AnswerRunner
from genx.agentkit.core import LoopCore
from genx.agentkit.ports import AudioOutput, Ducking, PositionListener
from genx.agentkit.recorder import Recorder
from genx.agentkit.speaker import AnswerAudio
from genx.agentkit.spoken import SegmentRecorder
from genx.agentkit.store import ConversationStore
from genx.agentkit.turns import Answer, Turn
from genx.deadline import Deadline
from genx.stream import Stream

log = logging.getLogger("genx.agentkit.loop")

SPOKEN_CHARS_PER_S = 15.0  # a brisk speaking rate: a cut response is never assumed shorter than this


class TranscriptRecorder(SegmentRecorder):
    """One realtime response as one growing segment (see the module docstring). Loop-thread only."""

    __slots__ = ("_parts", "chars_per_s")

    def __init__(self, *, clock: Callable[[], float] | None = None, chars_per_s: float = SPOKEN_CHARS_PER_S) -> None:
        super().__init__(clock=clock)
        self._parts: list[str] = []
        self.chars_per_s = chars_per_s
        self.begin("")

    def set_rate(self, rate: int) -> None:
        """The response's audio rate (Hz): sizes a response that is still arriving."""
        if rate > 0:
            self.default_bytes_per_char = 2.0 * rate / self.chars_per_s

    def transcript(self, text: str) -> None:
        self._parts.append(text)
        spans = self.spans()
        if spans:
            spans[0].text = "".join(self._parts).strip()

    def text(self) -> str:
        return "".join(self._parts).strip()

    def finish(self) -> None:
        """The provider ended the response: its audio and transcript are whole."""
        self.end()


class RealtimeCutPort(Protocol):
    """What the output needs of the session: cut the response on route ``stream_id`` at ``played_ms``."""

    def truncate(self, stream_id: str, played_ms: int) -> None: ...


class TruncatingOutput:
    """The speaker, as the answer runner sees it in realtime mode (see the module docstring)."""

    __slots__ = ("_inner", "_routes", "port")

    def __init__(self, inner: AudioOutput, port: RealtimeCutPort | None = None) -> None:
        self._inner = inner
        self.port = port
        self._routes: set[str] = set()  # realtime response routes given to the player and not cut yet

    def track(self, stream_id: str) -> None:
        self._routes.add(stream_id)

    def forget(self, stream_id: str) -> None:
        self._routes.discard(stream_id)

    def play(self, stream: Stream) -> None:
        self._inner.play(stream)

    async def stop(self, discard: bool = True) -> Mapping[str, Any]:
        positions = await self._inner.stop(discard)
        routes, self._routes = self._routes, set()
        port = self.port
        for sid in routes:
            pos = positions.get(sid) if hasattr(positions, "get") else None
            ms = 0
            if pos is not None and int(getattr(pos, "rate", 0) or 0) > 0:
                ms = int(int(pos.samples_heard) * 1000 // int(pos.rate))
            if port is not None:
                try:
                    port.truncate(sid, ms)
                except Exception:
                    log.exception("telling the realtime provider what was heard failed")
        return positions

    def duck(self, db: float | None) -> None:
        if isinstance(self._inner, Ducking):
            self._inner.duck(db)

    def on_played(self, listener: PositionListener) -> Callable[[], None]:
        return self._inner.on_played(listener)

    def on_route_end(self, listener: PositionListener) -> Callable[[], None]:
        return self._inner.on_route_end(listener)

    @property
    def latency(self) -> float:
        return float(getattr(self._inner, "latency", 0.0) or 0.0)


class RealtimeAnswers(AnswerRunner):
    """See the module docstring."""

    def adopt(self, turn: Turn, ans: Answer, audio: Stream) -> None:
        """Play ``audio`` as ``ans`` (its text comes from the session), tracked, cut and recorded like any answer."""
        player_audio = ans.audio = AnswerAudio(ans.route_id, audio, on_pull=self._on_pull, on_end=self._on_audio_end)
        player_audio.keep_far = self._heard.keeps_far
        self._answers[ans.route_id] = (turn, ans)
        self.commit(turn, ans)  # as a held answer becomes the answer: played (after any cut in progress), watched


class PendingRecorder(Recorder):
    """See the module docstring. Loop-thread only."""

    def __init__(self, core: LoopCore, store: ConversationStore | None, *, wait_s: float = 3.0) -> None:
        super().__init__(core, store)
        self.wait_s = wait_s
        self._waiting: set[str] = set()  # turn ids whose user transcript is on its way
        self._queue: deque[tuple[Turn, Answer, str, bool]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def expect(self, turn: Turn) -> None:
        """The provider is transcribing ``turn``'s speech."""
        self._waiting.add(turn.turn_id)

    def arrived(self, turn: Turn) -> None:
        """``turn``'s transcript is in (or will never come)."""
        self._waiting.discard(turn.turn_id)
        self._drain()

    def record(self, turn: Turn, ans: Answer, *, kept: str, interrupted: bool) -> None:
        self._queue.append((turn, ans, kept, interrupted))
        self._drain()

    def _drain(self) -> None:
        while self._queue and self._queue[0][0].turn_id not in self._waiting:
            turn, ans, kept, interrupted = self._queue.popleft()
            super().record(turn, ans, kept=kept, interrupted=interrupted)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._queue:
            self._timer = asyncio.get_running_loop().call_later(self.wait_s, self._give_up)

    def _give_up(self) -> None:
        self._timer = None
        if self._queue:
            self.arrived(self._queue[0][0])

    def flush_pending(self) -> None:
        """Record everything now (the loop stops)."""
        self._waiting.clear()
        self._drain()

    async def close(self, deadline: Deadline) -> None:
        self.flush_pending()
        await super().close(deadline)


__all__ = ["SPOKEN_CHARS_PER_S", "PendingRecorder", "RealtimeAnswers", "RealtimeCutPort", "TranscriptRecorder", "TruncatingOutput"]
