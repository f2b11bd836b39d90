"""Bookkeeping of turns: utterances, the user's turn and the assistant's answer.

A *turn* is one exchange: the user's words (one or more utterances, or a typed
message) and the assistant's answer. Utterances that start before the turn's
answer began join the turn (the user paused mid-sentence); an utterance that
starts while an answer is running either barges in (the answer ends, the
utterance opens the next turn) or is ignored (barge-in off).

These are plain data holders owned by :class:`~genx.agentkit.loop.VoiceLoop`;
all mutation happens on the event loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from genx.agentkit.metrics import TurnTimeline
from genx.agentkit.pauses import PauseTracker
from genx.agentkit.spoken import SegmentRecorder, join_segments
from genx.stream import Stream, StreamBuilder

if TYPE_CHECKING:
    from genx.agentkit.events import ToolActivity
    from genx.agentkit.over_answer import DuckHint
    from genx.agentkit.speaker import AnswerAudio
    from genx.chunk import Message


@dataclass(slots=True, eq=False)
class Utterance:
    """Audio sent to the ASR as one route ``sid`` (a speech route, or a part of one cut at a pause)."""

    sid: str
    turn: Turn
    source: str  # "vad" | "ptt"
    open: bool = True
    transcribed: bool = False
    text: str = ""
    partial: str = ""
    error: str = ""
    bytes_sent: int = 0  # audio sent to the ASR
    flushed_bytes: int = -1  # audio the last flush covered (-1: none, or speech came after it)
    provisional: str = ""  # the transcript of that flush


@dataclass(slots=True, eq=False)
class SpeechRoute:
    """One stretch of the user's speech without a turn-ending pause: a VAD route or a push-to-talk press.

    Its audio goes to the ASR as one :class:`Utterance` route. At a short pause
    the ASR is asked for the transcript so far (a flush; ``flushed`` until speech
    resumes), so the answer can start before the VAD confirms the end of the turn.
    """

    sid: str
    turn: Turn
    source: str  # "vad" | "ptt"
    open: bool = True
    ptt_sid: str = ""  # push-to-talk: the press's id on the trimmer's input (sid becomes its output route)
    current: Utterance | None = None  # the ASR route receiving the audio
    audio_bytes: int = 0
    capped: bool = False
    pauses: PauseTracker = field(default_factory=PauseTracker)  # voiced audio counted since the start or the last flush
    flushed: bool = False  # the ASR was asked for the transcript of this pause
    # end-of-turn detection (hands-free, with a detector): the last seconds of audio, and the pause being checked
    recent: bytearray = field(default_factory=bytearray)
    pause_seq: int = 0  # bumped when sound resumes: a verdict for an earlier pause is void
    pause_checked: bool = False
    needs_verdict: bool = False  # a detector scores this route's pauses: a held answer waits for the verdict
    pause_verdict: bool | None = None  # the detector's verdict for the current pause (None: none yet)


@dataclass(slots=True, eq=False)
class Answer:
    """The assistant's answer of one turn."""

    route_id: str
    recorder: SegmentRecorder
    generator: str
    task: asyncio.Task[None] | None = None
    gen: Stream | None = None
    text_in: StreamBuilder | None = None
    audio: AnswerAudio | None = None
    generated: list[str] = field(default_factory=list)
    rate: int = 0
    played_samples: int = 0
    heard_samples: int = 0
    spoken: str = ""  # the last AssistantSpoken text
    error: str = ""
    speech_failed: bool = False  # the TTS failed: only part of the answer could be spoken
    started_playing: bool = False
    interrupted: bool = False
    finished: bool = False
    watchdog: asyncio.TimerHandle | None = None
    # preemptive: started on the transcript before the end of the turn; its audio waits for the commit
    held: bool = False
    prompt: str = ""  # the user's words it answers
    run_done: bool = False  # generation ended (the run's task returned)
    kept: str = ""  # when finished: the text the history keeps (what was heard)
    # false-interruption recovery: this answer speaks again the rest of ``resume_of`` (cut by a noise)
    resume_of: Answer | None = None
    resume_prefix: str = ""  # the heard text of ``resume_of`` before the repeated sentence
    tool_events: list[ToolActivity] = field(default_factory=list)  # the tool calls shown (a held answer shows them at commit)
    tool_messages: list[Message] = field(default_factory=list)  # its tool calls and results, for history and the store

    def full_text(self) -> str:
        return "".join(self.generated).strip()


@dataclass(slots=True, eq=False)
class Turn:
    turn_id: str
    conversation_id: str
    timeline: TurnTimeline
    started_wall: float
    typed: bool = False
    user_text: str = ""
    utterances: list[Utterance] = field(default_factory=list)
    routes: list[SpeechRoute] = field(default_factory=list)
    answer: Answer | None = None
    preempted: int = 0  # preemptive answers started for this turn (the last one may be the answer)
    capped: bool = False  # its speech reached max_utterance_s: the first part is answered, it never reopens
    resumed: bool = False  # no user words: it goes on with the previous turn's answer (false-interruption recovery)

    def heard_so_far(self, partial: str = "") -> str:
        """The user's words of this turn so far (finished utterances + a partial)."""
        return join_segments([u.text for u in self.utterances if u.transcribed] + [partial])

    def audio_bytes(self) -> int:
        """Speech audio of the turn so far, over all its routes (a reopened turn has several)."""
        return sum(r.audio_bytes for r in self.routes)

    def waiting_for_words(self) -> bool:
        return any(r.open for r in self.routes) or any(u.open or not u.transcribed for u in self.utterances)


class TurnPort(Protocol):
    """What the router asks of the turn manager."""

    def admit_speech(self, onset: float, why: str, source: str = "vad") -> bool: ...
    def open_route(self, sid: str, source: str, t: float) -> SpeechRoute: ...
    def drop_held(self, turn: Turn, why: str) -> None: ...
    def maybe_answer(self, turn: Turn) -> None: ...
    def heard_words(self, turn: Turn, text: str) -> None: ...
    def voiced(self, route: SpeechRoute) -> None: ...
    def voice_hint(self, now: float) -> DuckHint | None: ...
    def hint_expired(self, hint: DuckHint) -> None: ...
    def judging(self, turn: Turn) -> bool: ...


__all__ = ["Answer", "SpeechRoute", "Turn", "TurnPort", "Utterance"]
