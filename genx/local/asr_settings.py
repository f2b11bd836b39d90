"""The local ASR's settings and the labels of its routes (see :mod:`genx.local.asr` for what they mean)."""

from __future__ import annotations

from dataclasses import dataclass

from genx.errors import GenxError

PARTIAL = "partial"
FINAL = "final"
FLUSH = "flush"  # input control label: transcribe what the route holds so far (the speaker paused)
PROVISIONAL = "provisional"
SPEECH_START = "speech_start"
PROMPT = "prompt"  # input BOS meta key: text said before the utterance (the conversation's last turn), for its finals
# input BOS meta key, True: the utterance is spoken over the assistant's answer and its words decide whether it stops
# (a stop phrase, a backchannel): decoded without a fixed initial prompt, whose conversational words prime listener
# talk ("Hold on." read "Got it.")
OVER_ANSWER = "over_answer"
# input BOS meta key, a list of phrases (with OVER_ANSWER): what the speaker may be saying over the answer (the stop
# phrases); a short final that reads as none of them is checked against them (genx.local.whisper_verify)
LISTEN_FOR = "listen_for"


class AsrConfigError(GenxError, ValueError):
    def __init__(self, field: str, value: object, why: str) -> None:
        self.field = field
        super().__init__(f"ASR setting {field}={value!r}: {why}")


@dataclass(frozen=True, slots=True)
class AsrSettings:
    partials: bool = True
    partial_interval_ms: int = 400
    min_partial_ms: int = 500  # no partial for less audio than this (Whisper guesses on tiny clips)
    partial_duty: float = 1.0  # idle time after a partial decode, as a multiple of its duration
    partial_quiet_dbfs: float = -45.0  # no partial when every 30 ms of the new audio is quieter than this
    partial_pause_ms: int = 60  # nor while the last this-many ms are that quiet (a pause: the final may be asked for next)
    segment_max_ms: int = 20_000
    segment_search_ms: int = 4_000
    silence_dbfs: float = -55.0  # quieter clips are "" without decoding
    min_decode_ms: int = 100

    def validate(self) -> AsrSettings:
        if self.partial_interval_ms < 50:
            raise AsrConfigError("partial_interval_ms", self.partial_interval_ms, "must be at least 50 ms")
        if not 2_000 <= self.segment_max_ms <= 28_000:
            raise AsrConfigError("segment_max_ms", self.segment_max_ms, "must be 2,000 … 28,000 ms (Whisper reads 30 s windows)")
        if not 200 <= self.segment_search_ms < self.segment_max_ms:
            raise AsrConfigError("segment_search_ms", self.segment_search_ms, "must be at least 200 ms and below segment_max_ms")
        return self


__all__ = ["FINAL", "FLUSH", "PARTIAL", "PROMPT", "PROVISIONAL", "SPEECH_START", "AsrConfigError", "AsrSettings"]
