"""The output side of a realtime call: provider events → chunks on fresh response routes.

Per provider response (``response_id``) one streamkit response with a fresh
StreamID, role ``assistant``: a control BOS when it starts, its audio
(``audio/L16`` at the provider's output rate), the audio transcript (text,
label ``transcript``), text output (text, no label) and tool calls
(``tool_call=FuncCall``, no part). When the provider ends the response a
control EOS carries ``meta = {"usage", "status", "response_id"}`` (an error
text for a failed or cancelled response). The streamkit response stays active
until the consumer pulls that EOS, so a barge-in after the provider finished
(it generates faster than the speaker plays) still drops exactly the unpulled
audio and keeps the pulled prefix.

User speech (the provider's VAD and input transcription) goes on its own route
per utterance, role ``user``: a control BOS labelled ``speech_start``,
``partial`` text (the whole transcript so far), then ``final`` text and a
control EOS labelled ``final`` — the local ASR's contract.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from genx.chunk import Blob, MessageChunk, Role
from genx.ids import new_stream_id
from genx.model import Usage
from genx.transformers.audiostream.pcm import bytes_to_ms
from genx.transformers.realtime.events import (
    AudioDelta,
    HistoryItem,
    InputTranscript,
    ResponseDone,
    SpeechStarted,
    TextDelta,
    ToolCallEvent,
    TranscriptDelta,
)
from genx.transformers.streamkit.invocation import INTERRUPTED_TEXT, Invocation
from genx.transformers.streamkit.response import Response, ResponseConfig

log = logging.getLogger(__name__)

TRANSCRIPT = "transcript"
SPEECH_START = "speech_start"
PARTIAL = "partial"
FINAL = "final"
RECENT_KEPT = 8


@dataclass(slots=True, eq=False)
class LiveResponse:
    response_id: str
    response: Response
    item_id: str = ""
    audio_bytes: int = 0
    transcript: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)  # call ids asked in this response
    done: bool = False  # the provider ended it (its control EOS is queued)
    history_index: int = -1  # where its text went into the replay history
    carry: bytes = b""  # an odd trailing byte: audio chunks out are whole 16-bit samples

    @property
    def stream_id(self) -> str:
        return self.response.stream_id

    def said(self) -> str:
        return "".join(self.transcript) or "".join(self.text)


@dataclass(slots=True, frozen=True)
class Interruption:
    """What a barge-in cut: the route, the provider's ids and the played position sent to the provider."""

    stream_id: str
    response_id: str
    item_id: str
    played_ms: int
    transcript: str  # everything the model had said on this response so far (not only the heard part)


@dataclass(slots=True)
class _UserRoute:
    stream_id: str
    heard: list[str] = field(default_factory=list)


class Outputs:
    """Owns the response and user routes of one call (loop-affine)."""

    __slots__ = ("_by_sid", "_cut", "_inv", "_mime", "_rate", "_recent", "_users", "history", "live", "usage")

    def __init__(self, inv: Invocation, mime: str, rate: int) -> None:
        self._inv = inv
        self._mime = mime
        self._rate = rate
        self.live: dict[str, LiveResponse] = {}  # by provider response id, start order
        self._by_sid: dict[str, LiveResponse] = {}
        self._cut: set[str] = set()  # provider ids cut by a barge-in: their late events are dropped
        # ended responses whose EOS the consumer pulled, by StreamID: a player still plays them, and a barge-in
        # must still truncate them at the played position (newest last, a few kept)
        self._recent: dict[str, LiveResponse] = {}
        self._users: dict[str, _UserRoute] = {}
        self.history: list[HistoryItem] = []
        self.usage = Usage()
        inv.output.add_observer(self._pulled)

    # -- responses -------------------------------------------------------------
    def started(self, response_id: str) -> LiveResponse | None:
        if response_id in self._cut:
            return None
        live = self.live.get(response_id)
        if live is None:
            r = self._inv.start_response(ResponseConfig(role=Role.ASSISTANT))
            live = self.live[response_id] = LiveResponse(response_id, r)
            self._by_sid[r.stream_id] = live
            self._inv.emit(r, MessageChunk.bos(r.stream_id))
        return live

    def _open(self, response_id: str) -> LiveResponse | None:
        live = self.live.get(response_id)
        if live is not None:
            return None if live.done else live
        return self.started(response_id)

    def audio(self, ev: AudioDelta) -> None:
        live = self._open(ev.response_id)
        if live is None or not ev.pcm:
            return
        if ev.item_id:
            live.item_id = ev.item_id
        pcm = live.carry + ev.pcm if live.carry else ev.pcm
        usable = len(pcm) & ~1
        live.carry = pcm[usable:]
        if not usable:
            return
        live.audio_bytes += usable
        self._inv.emit(live.response, MessageChunk(part=Blob(self._mime, pcm[:usable] if live.carry else pcm)))

    def transcript(self, ev: TranscriptDelta) -> None:
        live = self._open(ev.response_id)
        if live is None or not ev.text:
            return
        if ev.item_id and not live.item_id:
            live.item_id = ev.item_id
        live.transcript.append(ev.text)
        self._inv.emit(live.response, MessageChunk.text(ev.text, label=TRANSCRIPT))

    def text(self, ev: TextDelta) -> None:
        live = self._open(ev.response_id)
        if live is None or not ev.text:
            return
        live.text.append(ev.text)
        self._inv.emit(live.response, MessageChunk.text(ev.text))

    def tool_call(self, ev: ToolCallEvent) -> LiveResponse | None:
        live = self._open(ev.response_id)
        if live is None:
            return None
        live.calls.append(ev.call.id)
        self._inv.emit(live.response, MessageChunk(tool_call=ev.call))
        return live

    def done(self, ev: ResponseDone) -> LiveResponse | None:
        """The provider ended the response: queue its control EOS (retired once pulled)."""
        if ev.usage is not None:
            self.usage = self.usage.add(ev.usage)
        live = self.live.get(ev.response_id)
        if ev.response_id in self._cut or live is None or live.done:
            return live
        live.done = True
        error = ""
        if ev.error is not None:
            error = str(ev.error)
        elif ev.status not in ("completed", "tool_call"):
            error = ev.status
        said = live.said()
        if said:
            live.history_index = len(self.history)
            self.history.append(HistoryItem("assistant", said))
        eos = MessageChunk.eos(live.stream_id, error=error)
        eos.meta = {"usage": ev.usage, "status": ev.status, "response_id": ev.response_id}
        self._inv.emit(live.response, eos)
        return live

    def interrupt(self, live: LiveResponse, played_ms: int, text: str = INTERRUPTED_TEXT) -> Interruption:
        """Drop ``live``'s unpulled output, keep the pulled prefix, end its channels with EOS(error=text)."""
        said = live.said()
        total = bytes_to_ms(live.audio_bytes, self._rate)
        share = min(1.0, played_ms / total) if total > 0 else 1.0
        heard = said[: round(len(said) * share)].strip()  # an estimate, for replaying into a fresh session only
        if live.history_index >= 0:
            self.history[live.history_index] = HistoryItem("assistant", heard)
        elif heard:
            self.history.append(HistoryItem("assistant", heard))
        self._forget(live)
        self._recent.pop(live.stream_id, None)
        self._cut.add(live.response_id)
        if self._inv.is_open and self._inv.response(live.stream_id) is live.response:
            self._inv.interrupt(live.response, text)
        return Interruption(live.stream_id, live.response_id, live.item_id, played_ms, said)

    def find(self, stream_id: str) -> LiveResponse | None:
        """The response on route ``stream_id``: active, or ended and pulled but not cut yet."""
        return self._by_sid.get(stream_id) or self._recent.get(stream_id)

    def target(self) -> LiveResponse | None:
        """The response a barge-in cuts: the newest one still active with audio, else the newest active one."""
        active = [lv for lv in self.live.values() if self._inv.response(lv.stream_id) is lv.response]
        with_audio = [lv for lv in active if lv.audio_bytes]
        pick = with_audio or active
        return pick[-1] if pick else None

    def pending(self) -> bool:
        """A response the provider has not ended yet."""
        return any(not lv.done for lv in self.live.values())

    def end_all(self, error: str) -> None:
        """The connection is gone: end every response the provider did not end, with ``error``."""
        for live in [lv for lv in self.live.values() if not lv.done]:
            live.done = True
            if self._inv.is_open and self._inv.response(live.stream_id) is live.response:
                self._inv.finish_response(live.response, error)
            self._forget(live)

    def _pulled(self, chunk: MessageChunk) -> None:
        if not (chunk.is_end_of_stream() and chunk.is_control_only()):
            return
        live = self._by_sid.get(chunk.stream_id)
        if live is not None and live.done:
            self._forget(live)
            self._recent[live.stream_id] = live
            while len(self._recent) > RECENT_KEPT:
                del self._recent[next(iter(self._recent))]
            if self._inv.is_open and self._inv.response(live.stream_id) is live.response:
                self._inv.finish_response(live.response)  # already terminal: only retires it

    def _forget(self, live: LiveResponse) -> None:
        self.live.pop(live.response_id, None)
        self._by_sid.pop(live.stream_id, None)

    # -- user speech -------------------------------------------------------------
    def speech_started(self, ev: SpeechStarted) -> None:
        self._user(ev.item_id or new_stream_id())

    def user_transcript(self, ev: InputTranscript) -> None:
        route = self._user(ev.item_id)
        if ev.final:
            self._users.pop(ev.item_id, None)
            text = ev.text.strip() or "".join(route.heard).strip()
            self._inv.forward(MessageChunk.text(text, role=Role.USER, stream_id=route.stream_id, label=FINAL))
            self._inv.forward(MessageChunk.eos(route.stream_id, role=Role.USER, label=FINAL))
            if text:
                self.history.append(HistoryItem("user", text))
            return
        if ev.text:
            route.heard.append(ev.text)
            self._inv.forward(MessageChunk.text("".join(route.heard), role=Role.USER, stream_id=route.stream_id, label=PARTIAL))

    def user_text(self, text: str) -> None:
        self.history.append(HistoryItem("user", text))

    def _user(self, item_id: str) -> _UserRoute:
        route = self._users.get(item_id)
        if route is None:
            route = self._users[item_id] = _UserRoute(new_stream_id())
            self._inv.forward(MessageChunk.bos(route.stream_id, role=Role.USER, label=SPEECH_START))
        return route

    def note(self, text: str, label: str) -> None:
        """A control chunk outside any response (a non-fatal provider error, a reconnect)."""
        c = MessageChunk(ctrl=None)
        ctrl = c.ensure_ctrl()
        ctrl.label = label
        ctrl.error = text
        self._inv.forward(c)


__all__ = ["FINAL", "PARTIAL", "SPEECH_START", "TRANSCRIPT", "Interruption", "LiveResponse", "Outputs"]
