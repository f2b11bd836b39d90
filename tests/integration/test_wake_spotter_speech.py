"""The phrase spotter with the Whisper check (genx.local.wake_spotter + wake_confirm) on synthesized speech: "hey
jarvis" said alone wakes in the neural voice and in espeak-ng's formant voices, which microWakeWord does not hear;
short replies and sentences said alone do not.

Speech is Piper's joe voice and espeak-ng (``conftest.py``), 16 kHz, fed in 20 ms chunks. Expected verdicts come
from what was said.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from genx.local.wake_confirm import ConfirmedDetector, WhisperWakeCheck
from genx.local.wake_spotter import PhraseSpotter
from genx.local.whisper import WhisperDecoder
from tests.integration.conftest import silence
from tests.integration.test_wakeword_speech import feed

pytestmark = pytest.mark.integration

pytest.importorskip("webrtcvad", reason="pip install webrtcvad-wheels")


@pytest.fixture(scope="module")
def check() -> Iterator[WhisperWakeCheck]:
    pytest.importorskip("faster_whisper")
    yield WhisperWakeCheck(WhisperDecoder())


def _spotted(check: WhisperWakeCheck, pcm: bytes) -> tuple[int, int]:
    """Candidates confirmed and rejected on ``pcm`` said alone (silence around it)."""
    det = ConfirmedDetector(PhraseSpotter("Hey Jarvis"), check)
    found = feed(det, silence(800) + pcm + silence(800), chunk_ms=20)
    return len(found), det.rejected


def test_hey_jarvis_alone_in_the_piper_voice_wakes(check: WhisperWakeCheck, say_piper: Callable[[str], bytes]) -> None:
    assert _spotted(check, say_piper("Hey Jarvis."))[0] == 1


@pytest.mark.parametrize(("voice", "wpm"), [("en-us", 170), ("en-us+m3", 150), ("en-gb", 140)])
def test_hey_jarvis_alone_in_espeak_formant_voices_wakes(
    check: WhisperWakeCheck, say_espeak: Callable[..., bytes], voice: str, wpm: int
) -> None:
    confirmed, rejected = _spotted(check, say_espeak("hey jarvis", voice, wpm))
    assert confirmed == 1, (voice, wpm, rejected)


@pytest.mark.parametrize("text", ["Thank you.", "Hey there.", "Yes please.", "Okay, Travis.", "Hello."])
def test_short_replies_said_alone_are_spotted_and_then_rejected(
    check: WhisperWakeCheck, say_piper: Callable[[str], bytes], text: str
) -> None:
    confirmed, rejected = _spotted(check, say_piper(text))
    assert confirmed == 0 and rejected >= 1, (text, confirmed, rejected)  # a candidate was made, and the check said no
