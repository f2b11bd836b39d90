"""Wake phrase candidates from the shape of speech: a short stretch of speech, then a pause.

:class:`PhraseSpotter` proposes the phrase wherever it could have been said alone: webrtcvad (aggressiveness
:data:`AGGRESSIVENESS`, 30 ms frames) finds the speech; a stretch of at least :data:`MIN_SPEECH_MS` voiced, no longer
than :data:`MAX_PHRASE_S` from its onset, followed by :data:`PAUSE_MS` of no speech, is one candidate, stamped at
the pause's start (where the phrase would have ended). It hears nothing by itself: wrapped in
``genx.local.wake_confirm.ConfirmedDetector`` with the Whisper check, it is a wake word engine that does not
depend on how a wake word model was trained (microWakeWord hears no formant voice's "hey jarvis"). A request in
the same breath has no pause after the phrase: that is the other engine's to hear.

Does not own: the check (``genx.local.wake_confirm``), running it off the event loop (``genx.local.wake_ensemble``).
"""

from __future__ import annotations

from collections.abc import Callable

from genx.local.models import require_module
from genx.local.pcm import TARGET_RATE
from genx.local.wakeword import StreamDetector, WakeWordConfigError, WakeWordDetection

__all__ = ["MAX_PHRASE_S", "MIN_SPEECH_MS", "PAUSE_MS", "PhraseSpotter"]

AGGRESSIVENESS = 2
FRAME_MS = 30
MIN_SPEECH_MS = 300  # "hey jarvis" said fast is ~450 ms of voiced frames; a cough or a click is less
MAX_PHRASE_S = 1.6  # onset to pause: a slow "hey jarvis"; longer is a sentence
PAUSE_MS = 150  # no speech this long after the stretch (the comma's pause of "Hey Jarvis, …" is shorter)
MODEL_ID = "spotter"


class PhraseSpotter(StreamDetector):
    """See the module docstring. ``phrase`` is the one proposed (the wake word's, e.g. "Hey Jarvis")."""

    def __init__(self, phrase: str, *, aggressiveness: int = AGGRESSIVENESS, is_speech: Callable[[bytes], bool] | None = None) -> None:
        super().__init__()
        if not phrase.strip():
            raise WakeWordConfigError("the phrase spotter needs a phrase")
        if is_speech is None:
            require_module("webrtcvad", "webrtcvad-wheels", "the wake phrase spotter")
            import webrtcvad

            vad = webrtcvad.Vad(aggressiveness)
            is_speech = lambda frame: bool(vad.is_speech(frame, TARGET_RATE))  # noqa: E731
        self._is_speech = is_speech  # one 30 ms frame of 16 kHz mono int16 -> speech or not
        self._phrase = phrase.strip()
        self._frame = TARGET_RATE * FRAME_MS // 1000 * 2
        self._buf = b""
        self._frames = 0  # frames judged since the start
        self._onset: int | None = None  # frame where the current stretch of speech began
        self._voiced = 0  # voiced frames in it
        self._silent = 0  # unvoiced frames since its last voiced one
        self._last_voiced = 0

    @property
    def phrases(self) -> list[str]:
        return [self._phrase]

    def _detect(self, data: bytes, at_s: float) -> list[WakeWordDetection]:
        self._buf += data
        out: list[WakeWordDetection] = []
        n = len(self._buf) // self._frame
        for i in range(n):
            frame = self._buf[i * self._frame : (i + 1) * self._frame]
            found = self._judge(self._is_speech(frame))
            if found is not None:
                out.append(found)
        self._buf = self._buf[n * self._frame :]
        return out

    def _judge(self, speech: bool) -> WakeWordDetection | None:
        self._frames += 1
        if speech:
            if self._onset is None:
                self._onset, self._voiced = self._frames - 1, 0
            self._voiced += 1
            self._silent = 0
            self._last_voiced = self._frames
            return None
        if self._onset is None:
            return None
        self._silent += 1
        if self._silent * FRAME_MS < PAUSE_MS:
            return None
        onset, voiced = self._onset, self._voiced
        self._onset = None
        length_s = (self._last_voiced - onset) * FRAME_MS / 1000
        if voiced * FRAME_MS < MIN_SPEECH_MS or length_s > MAX_PHRASE_S:
            return None
        return WakeWordDetection(MODEL_ID, self._phrase, self._last_voiced * FRAME_MS / 1000, 0.0)

    def reset(self) -> None:
        super().reset()
        self._buf = b""
        self._frames = 0
        self._onset = None
        self._voiced = self._silent = self._last_voiced = 0
