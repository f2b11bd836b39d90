"""Streaming ASR with faster-whisper: utterance routes in, transcript routes out.

Input: utterance routes (as the VAD makes them): ``audio/L16`` blobs per StreamID
(other rates / channel counts are converted to 16 kHz mono), closed by a
control EOS. Other chunks pass through unchanged. A route's BOS may carry
``meta = {"prompt": text}`` (:data:`PROMPT`): what was said just before (the
conversation's last turn), handed to the decoder for the route's final decodes
(flush, segment, final; never partials), see :class:`~genx.local.whisper.WhisperOptions`;
``meta["over_answer"] = True`` (:data:`OVER_ANSWER`): the route is spoken over the assistant's
answer (decoded without a fixed initial prompt); with it ``meta["listen_for"]`` (:data:`LISTEN_FOR`), the
phrases the speaker may be saying there: a short final reading none of them is checked against them.
The decoder itself (:class:`Decoder`, :class:`WhisperDecoder`) lives in :mod:`genx.local.whisper`;
the settings and labels in :mod:`genx.local.asr_settings`, one call's route reading in
:mod:`genx.local.asr_call`, one utterance's audio and decodes in :mod:`genx.local.asr_utterance`.

Output per utterance, role user, on the utterance's StreamID (a fresh one when the
input has none):

* a control BOS, label ``speech_start``, as soon as the utterance begins;
* ``partial`` text chunks while audio arrives: the whole hypothesis so far, with
  ``meta = {"committed": …, "tentative": …}``. The growing utterance is re-decoded
  every ``partial_interval_ms`` of new audio (never two partial decodes of one
  utterance at once); the committed prefix only grows (local agreement, see
  :mod:`genx.local.partials`);
* on a control chunk labelled ``flush`` (the speaker paused; the caller may start
  answering): one ``provisional`` text chunk, the whole utterance so far decoded
  as a final would be (``meta`` has ``audio_ms``). When nothing audible came after
  it, the final reuses that decode instead of decoding again, so a final asked
  for after a flush is ready as soon as the flush's decode is;
* one ``final`` text chunk at the utterance's EOS (``meta`` has ``audio_ms`` and
  ``decode_ms``), then a control EOS labelled ``final``. The final decode starts at
  once on its own worker thread; a partial decode still running is not awaited; its
  result is still pushed if it comes before the final's (or a flush's provisional)
  text, and dropped after it (nothing older ever follows a newer reading). Finals are
  pushed in the order their utterances ended (decodes overlap, a short final waits
  for a longer one before it). An input EOS with an error is forwarded as the route
  EOS without a final.

Long utterances: Whisper reads 30 s windows, so once the open segment reaches
``segment_max_ms`` it is cut at its quietest point (searched in the last
``segment_search_ms``) and decoded once, in the background, in order; partials and
the final then decode only the open segment. A 60 s monologue therefore costs the
same per partial as a 20 s one and its final decodes at most ``segment_max_ms``.
Partials keep showing a closed segment as it was last shown (so the committed
prefix still only grows); the final uses the segment's own decode.

Threading: decodes run in worker threads (``asyncio.to_thread``); one
``WhisperModel`` is shared process-wide (CTranslate2 models may be used from
several threads). It is loaded with ``num_workers=2`` so a final never queues
behind a running partial inside CTranslate2, and ``cpu_threads`` = all cores so a
decode running alone (the common case, see below) is as fast as it can be.
Measured on 2 cores, 4.3 s clip, decode alone in a 30 s window: 2 threads ≈ 380 ms, 1 thread
≈ 560 ms (a 10 s window, see :class:`WhisperDecoder`, is ~3x faster); a final started while a partial runs: ≈ 650 ms (2 threads x 2 workers)
vs ≈ 600 ms (1 x 2) vs ≈ 730 ms (2 x 1, the final queues). Partials are kept from
hogging the CPU: the next one waits at least as long as the previous decode took
(``partial_duty``), and none starts on new audio that is all quiet (the trailing
silence the VAD waits for before closing) nor during a pause (``partial_pause_ms``
of quiet at the end: the loop may end the route for its final any moment), so a
final rarely overlaps a partial.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from genx.local.asr_call import AsrCall, route_listen_for, route_over_answer, route_prompt
from genx.local.asr_settings import (
    FINAL,
    FLUSH,
    LISTEN_FOR,
    OVER_ANSWER,
    PARTIAL,
    PROMPT,
    PROVISIONAL,
    SPEECH_START,
    AsrConfigError,
    AsrSettings,
)
from genx.local.models import config_mapping
from genx.local.pcm import loudest_frame_dbfs, quietest_cut
from genx.local.pump import spawn_transform
from genx.local.whisper import (
    WHISPER_WINDOW_S,
    Audio,
    Decoder,
    WhisperDecoder,
    WhisperOptions,
    encoder_window_s,
    plausible_transcript,
    whisper_model,
)
from genx.stream import Stream


class AsrTransformer:
    """Streaming transcription of utterance routes; see the module docstring."""

    def __init__(self, decoder: Decoder, settings: AsrSettings | None = None) -> None:
        self.decoder = decoder
        self.settings = (settings or AsrSettings()).validate()

    async def warm(self) -> None:
        warm = getattr(self.decoder, "warm", None)
        if warm is not None:
            await warm()

    async def transform(self, stream: Stream) -> Stream:
        call = AsrCall(self.decoder, self.settings)
        return spawn_transform(stream, lambda out: call.run(stream, out), "asr.transform")


def from_config(spec: object = None, secrets: object = None, *, decoder: Decoder | None = None) -> AsrTransformer:
    """Build from an ``AsrSpec`` or a mapping of :class:`WhisperOptions` / :class:`AsrSettings` keys (``path`` = model dir)."""
    spec = config_mapping(spec, "ASR")
    wkeys = {f.name for f in fields(WhisperOptions)}
    akeys = {f.name for f in fields(AsrSettings)}
    for key in spec:
        if key not in wkeys and key not in akeys:
            raise AsrConfigError(key, spec[key], f"unknown ASR setting; known: {', '.join(sorted(wkeys | akeys))}")
    wopts = {k: v for k, v in spec.items() if k in wkeys}
    if isinstance(wopts.get("path"), Path):
        wopts["path"] = str(wopts["path"])
    settings = AsrSettings(**{k: v for k, v in spec.items() if k in akeys})
    return AsrTransformer(decoder if decoder is not None else WhisperDecoder(WhisperOptions(**wopts)), settings)


__all__ = [
    "FINAL",
    "FLUSH",
    "LISTEN_FOR",
    "OVER_ANSWER",
    "PARTIAL",
    "PROMPT",
    "PROVISIONAL",
    "SPEECH_START",
    "WHISPER_WINDOW_S",
    "AsrConfigError",
    "AsrSettings",
    "AsrTransformer",
    "Audio",
    "Decoder",
    "WhisperDecoder",
    "WhisperOptions",
    "encoder_window_s",
    "from_config",
    "loudest_frame_dbfs",
    "plausible_transcript",
    "quietest_cut",
    "route_listen_for",
    "route_over_answer",
    "route_prompt",
    "whisper_model",
]
