"""The narrow interfaces the voice loop needs from its parts (structural Protocols).

* :class:`AudioOutput`: the speaker. It pulls audio chunks from the streams it is
  given only as the device needs them (so "pulled" ≈ "played") and reports, per
  StreamID, how many samples it handed to the device and how many are audible
  (:class:`PlayedPositionLike`). ``app.audio.Player`` fits as is; tests use a fake
  driven by a virtual clock.
* :class:`SpeechDetector`: the VAD transformer (``genx.local.vad.VadTransformer``):
  ``transform(stream, on_speech=cb)`` with a prompt onset callback; ``tune`` /
  ``settings`` are optional (the echo fallback and end-of-speech timing use them).
* :class:`Speech`: text → audio for one answer, recording which text each audio
  byte belongs to (:class:`~genx.agentkit.spoken.SegmentRecorder`), with an
  interrupt that drops the unpulled suffix of the answer's route
  (:mod:`genx.agentkit.tts` adapts the streamkit TTS transformer).
* :class:`EndOfTurnDetector`: is the user's turn complete at this pause?
  (``genx.turn``'s detectors fit): ``check(audio, transcript)`` scores the
  utterance so far off the event loop and returns a verdict with ``complete``.
* ASR is a plain :class:`~genx.transformers.Transformer` (utterance routes in,
  transcript routes out), the LLM a :class:`~genx.generators.Generator`.

All callbacks are called on the event-loop thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from genx.agentkit.spoken import SegmentRecorder
from genx.model import ModelContext
from genx.stream import Stream


class PlayedPositionLike(Protocol):
    """How far one route got (``app.audio.PlayedPosition`` has these fields), in samples at ``rate``."""

    @property
    def stream_id(self) -> str: ...

    @property
    def rate(self) -> int: ...

    @property
    def samples_played(self) -> int:
        """Handed to the device."""
        ...

    @property
    def samples_heard(self) -> int:
        """Estimated audible by the time of the report (≤ samples_played)."""
        ...

    @property
    def ended(self) -> bool: ...

    @property
    def interrupted(self) -> bool: ...

    @property
    def audible_at(self) -> float:
        """Clock time when the last handed sample becomes audible (0 when unknown)."""
        ...


PositionListener = Callable[[Any], None]


@runtime_checkable
class AudioOutput(Protocol):
    """The speaker (``app.audio.Player`` fits as is)."""

    def play(self, stream: Stream) -> None:
        """Queue ``stream``; its audio routes are pulled just in time and played. Returns at once."""
        ...

    async def stop(self, discard: bool = True) -> Mapping[str, Any]:
        """Stop consuming the queued streams; ``discard``: silence now. Returns the positions at that moment."""
        ...

    def on_played(self, listener: PositionListener) -> Callable[[], None]:
        """``listener(position)`` on the loop after every device block that played a route's audio."""
        ...

    def on_route_end(self, listener: PositionListener) -> Callable[[], None]:
        """``listener(position)`` once per route: its last sample was handed out, or it was stopped."""
        ...

    @property
    def latency(self) -> float:
        """Output latency in seconds (0 when unknown)."""
        ...


@runtime_checkable
class Ducking(Protocol):
    """An output that can lower its volume at once (``app.audio.Player``): ``duck(-24.0)``, ``duck(None)`` to restore."""

    def duck(self, db: float | None) -> None: ...


@runtime_checkable
class SpeechDetector(Protocol):
    async def transform(self, stream: Stream, *, on_speech: Callable[[Any], None] | None = None) -> Stream: ...


@runtime_checkable
class Speech(Protocol):
    async def speak(self, text: Stream, recorder: SegmentRecorder) -> Stream:
        """Synthesize the text routes of ``text``; record each segment's audio span in ``recorder``."""
        ...

    def interrupt(self, audio: Stream, stream_id: str) -> bool:
        """Drop the unpulled suffix of route ``stream_id`` of ``audio`` (returned by :meth:`speak`).

        The route then ends with EOS(error="interrupted"). False when ``audio``
        cannot be interrupted (the loop then just closes it).
        """
        ...


class TurnVerdictLike(Protocol):
    @property
    def complete(self) -> bool: ...

    @property
    def probability(self) -> float: ...


class EndOfTurnDetector(Protocol):
    """Scores a pause: ``audio`` is the utterance so far (16 kHz mono int16 PCM), ``transcript`` its provisional text."""

    @property
    def name(self) -> str: ...

    async def check(self, audio: bytes, transcript: str | None = None, *, context: ModelContext | None = None) -> TurnVerdictLike: ...


__all__ = [
    "AudioOutput",
    "Ducking",
    "EndOfTurnDetector",
    "PlayedPositionLike",
    "PositionListener",
    "Speech",
    "SpeechDetector",
    "TurnVerdictLike",
]
