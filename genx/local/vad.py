"""Voice activity detection as a genx transformer: capture audio in, one route per utterance out.

Input: ``audio/L16`` blobs (any rate and channel count; converted to 16 kHz mono),
grouped by input StreamID (each input route has its own detector). Control-only
chunks describe capture routes: a BOS starts a detector (and, in external mode, an
utterance), an EOS flushes it. Every other chunk (text, tool calls) passes
through unchanged. Audio that is not ``audio/L16`` ends the output with
:class:`~genx.transformers.audiostream.pcm.AudioFormatError`.

Output (role user, label :attr:`VadSettings.label`, default ``"utterance"``): per
utterance a fresh StreamID with a control BOS (timestamp = onset), the pre-roll
(audio just before the onset decision) and the live audio as
``audio/l16; channels=1; rate=16000`` blobs, then a control EOS after the
end-of-speech silence (which is part of the utterance).

Modes (``auto`` hands-free, ``external`` push-to-talk) and frame classifiers (webrtc, silero):
see :mod:`genx.local.vad_segment`.

Control: a control-only chunk labelled :data:`END_UTTERANCE` on an input route
ends that route's open utterance at that point of the audio (``end`` event, EOS)
and starts detecting afresh, so speech after it opens a new utterance with a new
onset (the voice loop sends it when an end-of-turn detector ended the turn
before the silence did).

Barge-in: the ``on_speech`` callback gets a :class:`SpeechEvent` synchronously, on
the event loop, in the same step that decides the onset (before the BOS is
queued), i.e. ``ceil(onset_ratio * window)`` voiced frames after speech starts.

Run-time tuning: :meth:`VadTransformer.tune` swaps the settings of every running
call at its next frame (e.g. raise ``aggressiveness`` / ``onset_ratio`` /
``min_energy_dbfs`` while the assistant speaks, as the echo fallback);
``frame_ms`` and ``mode`` apply to routes that start afterwards.

"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import fields, replace
from typing import Any

from genx.local.models import config_mapping, require_module
from genx.local.pump import spawn_transform
from genx.local.vad_call import END_UTTERANCE, VadCall

# the segmentation (settings, classifiers, state machines) is genx.local.vad_segment; its names are exported here too
from genx.local.vad_segment import (
    EnergyFloored,
    FrameClassifier,
    SpeechCallback,
    SpeechEvent,
    SpeechTrimmer,
    UtteranceDetector,
    VadConfigError,
    VadSettings,
    WebRtcClassifier,
)
from genx.stream import Stream

log = logging.getLogger(__name__)


class VadTransformer:
    """Utterance segmentation with WebRTC VAD; see the module docstring for the stream contract.

    ``classifier_factory(settings)`` makes one frame classifier per input route
    (default: :class:`WebRtcClassifier`); tests pass scripted ones.
    """

    def __init__(
        self,
        settings: VadSettings | None = None,
        *,
        on_speech: SpeechCallback | None = None,
        classifier_factory: Callable[[VadSettings], FrameClassifier] | None = None,
    ) -> None:
        self._settings = (settings or VadSettings()).validate()
        self._on_speech = on_speech
        self._warm: Callable[[], Awaitable[None]] | None = None
        if classifier_factory is None and self._settings.classifier == "silero":
            from genx.local.silero_vad import SileroFactory

            silero = SileroFactory()
            self._warm = silero.warm
            classifier_factory = silero
        elif classifier_factory is None:
            require_module("webrtcvad", "webrtcvad-wheels", "the local VAD")
            classifier_factory = _webrtc_factory
        self._classifier_factory = classifier_factory

    @property
    def settings(self) -> VadSettings:
        return self._settings

    def tune(self, **changes: Any) -> VadSettings:
        """Change thresholds for every running call (from the next frame) and later calls."""
        unknown = set(changes) - {f.name for f in fields(VadSettings)}
        if unknown:
            raise VadConfigError(sorted(unknown)[0], changes[sorted(unknown)[0]], "unknown VAD setting")
        if changes.get("classifier", self._settings.classifier) != self._settings.classifier:
            raise VadConfigError("classifier", changes["classifier"], "is chosen when the VAD is built; configure another [vad] instead")
        self._settings = replace(self._settings, **changes).validate()
        return self._settings

    async def warm(self) -> None:
        """Load the Silero session in a worker thread; webrtcvad has nothing to load."""
        if self._warm is not None:
            await self._warm()

    async def transform(self, stream: Stream, *, on_speech: SpeechCallback | None = None) -> Stream:
        cb = on_speech if on_speech is not None else self._on_speech
        call = VadCall(self, cb)
        return spawn_transform(stream, lambda out: call.run(stream, out), "vad.transform")


def _webrtc_factory(settings: VadSettings) -> FrameClassifier:
    return WebRtcClassifier(settings.aggressiveness, settings.min_energy_dbfs)


def from_config(spec: object = None, secrets: object = None, *, on_speech: SpeechCallback | None = None) -> VadTransformer:
    """Build from a ``VadSpec`` or a mapping whose keys are :class:`VadSettings` fields."""
    spec = config_mapping(spec, "VAD")
    known = {f.name for f in fields(VadSettings)}
    for key in spec:
        if key not in known:
            raise VadConfigError(key, spec[key], f"unknown VAD setting; known: {', '.join(sorted(known))}")
    return VadTransformer(VadSettings(**spec), on_speech=on_speech)


__all__ = [
    "END_UTTERANCE",
    "EnergyFloored",
    "FrameClassifier",
    "SpeechEvent",
    "SpeechTrimmer",
    "UtteranceDetector",
    "VadConfigError",
    "VadSettings",
    "VadTransformer",
    "WebRtcClassifier",
    "from_config",
]
