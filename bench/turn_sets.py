"""The spoken material of the turn-taking bench (``bench/turn_taking.py``), synthesized by the bench itself.

Five sets, ``n`` clips each (the texts rotate when ``n`` exceeds them):

* ``a``: complete questions (:data:`bench.turn_detect.COMPLETE`);
* ``b``: sentences with a mid-sentence pause of 500–1500 ms ("So I was thinking
  that maybe … we could talk about planets");
* ``c``: backchannels ("mm-hm", "uh-huh", "okay", "yeah", "right") and a cough
  burst, played while Parley tells a long story;
* ``d``: real interruptions ("Wait, stop that.", "Actually, tell me about dogs
  instead."), played while Parley tells a long story;
* ``e``: long-story requests (the speaker is then looped back into the microphone).

Voices rotate through the Piper joe voice and the espeak-ng voices and speeds of
:data:`bench.speech.ESPEAK_VOICES`; every third clip has noise (fan, keyboard,
music, white) mixed in at :data:`NOISE_DBFS` over its whole length, pause included.
Each :class:`Clip` knows where its speech is (seconds from the clip's first
sample, measured on the clean audio), so the bench finds it in the microphone
recording from the clip's start even under noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bench.speech import ESPEAK_VOICES, NOISES, RATE, cough, espeak_say, mix, piper_say, silence
from bench.turn_detect import COMPLETE

NOISE_DBFS = -42.0  # about 20 dB under the voices
# As in tests/integration: with this prompt SmolLM2 answers a story request with a long story (up to max_tokens).
STORYTELLER = "You are a storyteller. Always answer with a long story of at least ten sentences."

PAUSED: tuple[tuple[str, str], ...] = (
    ("So I was thinking that maybe", "we could talk about planets."),
    ("I would like to book a table for", "four people tonight."),
    ("Can you remind me what the", "capital of Canada is?"),
    ("My favorite kind of music is", "jazz, what is yours?"),
    ("Could you tell me how to", "make a cup of green tea?"),
    ("I need to buy some", "bread and milk, can you remind me?"),
    ("What is the name of the", "tallest mountain in the world?"),
    ("Tomorrow I have to go to the", "dentist, what should I ask?"),
    ("How far is it from the", "moon to the earth?"),
    ("Can you explain why the", "sky is blue?"),
    ("I was wondering if you could", "tell me a joke about cats."),
    ("The thing I keep forgetting is", "how many legs a spider has."),
    ("Please tell me what the", "weather is like in Paris."),
    ("If I leave at noon and drive for", "two hours, when do I arrive?"),
    ("What I really want to know is", "why cats purr."),
    ("Could you help me find a", "good name for my dog?"),
    ("I think the best way to learn a", "language is to speak it, right?"),
    ("When my sister comes to visit we", "should cook something nice, any ideas?"),
    ("Tell me about the", "biggest animal in the ocean."),
    ("Before we go out, could you check if", "it is going to rain?"),
)
BACKCHANNELS: tuple[str, ...] = ("Mm-hm.", "Uh-huh.", "Okay.", "Yeah.", "Right.", "*cough*")
INTERRUPTIONS: tuple[str, ...] = (
    "Wait, stop that.",
    "Actually, tell me about dogs instead.",
    "Hold on a second.",
    "No, no, that is enough.",
    "Stop, please.",
    "Can you tell me about the moon instead?",
    "Sorry to interrupt, what time is it?",
    "Quiet please, I have a question.",
    "Hang on, let us talk about something else.",
    "Actually, what is the capital of Italy?",
)
STORIES: tuple[str, ...] = (
    "Tell me a long story about a brave little dragon.",
    "Tell me a long story about a pirate and his parrot.",
    "Tell me a long story about a robot who learns to paint.",
    "Tell me a long story about a girl who finds a secret garden.",
    "Tell me a long story about a fox and a crow in the forest.",
    "Tell me a long story about a lighthouse keeper and a storm.",
)
SETS = ("a", "b", "c", "d", "e")
VOICES: tuple[str, ...] = ("piper", *(f"{v}/{s}" for v, s in ESPEAK_VOICES))
NOISE_KINDS = ("fan", "keyboard", "music", "white")


@dataclass(slots=True)
class Clip:
    """One thing the bench says: int16 16 kHz ``audio`` whose first sample is loud (trimmed speech, or noise)."""

    text: str
    voice: str
    noise: str  # "" or a kind of NOISES
    audio: np.ndarray  # type: ignore[type-arg]
    speech_end_s: float  # the last voiced sample of the speech, from the clip's first sample
    pause_ms: int = 0  # set b: the mid-sentence pause

    @property
    def duration_s(self) -> float:
        return self.audio.size / RATE

    def label(self) -> str:
        noise = f" +{self.noise}" if self.noise else ""
        pause = f" (pause {self.pause_ms} ms)" if self.pause_ms else ""
        return f"[{self.voice}{noise}] {self.text}{pause}"


class Material:
    """Synthesizes the sets' clips (the Piper voice loads on first use)."""

    def __init__(self) -> None:
        self._piper: Callable[[str], bytes] | None = None

    def speak(self, text: str, voice: str) -> bytes:
        if text == "*cough*":
            return cough(seed=5 + len(voice))
        if voice == "piper":
            if self._piper is None:
                self._piper = piper_say()
            return self._piper(text)
        name, speed = voice.split("/")
        return espeak_say(text, name, int(speed))

    def clip(self, parts: tuple[str, ...], i: int, *, pause_ms: int = 0, noisy: bool = True) -> Clip:
        voice = VOICES[i % len(VOICES)]
        noise = NOISE_KINDS[(i // 3) % len(NOISE_KINDS)] if noisy and i % 3 == 2 else ""
        pcm = silence(pause_ms).join(self.speak(p, voice) for p in parts)
        end_s = len(pcm) / 2 / RATE  # every part is trimmed: the last sample is the speech's last voiced one
        if noise:
            pcm = mix(pcm, NOISES[noise](round(end_s * 1000) + 10, NOISE_DBFS))
        return Clip(" … ".join(parts), voice, noise, np.frombuffer(pcm, dtype="<i2").copy(), end_s, pause_ms)

    def build(self, name: str, n: int) -> list[Clip]:
        """``n`` clips of set ``name``; for c and d, pairs are made by :meth:`during` (this gives the long questions)."""
        if name == "a":
            return [self.clip((COMPLETE[i % len(COMPLETE)],), i) for i in range(n)]
        if name == "b":
            return [self.clip(PAUSED[i % len(PAUSED)], i, pause_ms=pause_of(i, n)) for i in range(n)]
        if name in ("c", "d", "e"):
            # the story request in a clean voice: the bench measures what follows it, not the request
            return [self.clip((STORIES[i % len(STORIES)],), i, noisy=False) for i in range(n)]
        raise ValueError(f"unknown set {name!r}; choose from {', '.join(SETS)}")

    def during(self, name: str, n: int) -> list[Clip]:
        """What set c (backchannels, coughs) or d (interruptions) plays while Parley speaks."""
        texts = BACKCHANNELS if name == "c" else INTERRUPTIONS
        return [self.clip((texts[i % len(texts)],), i + 1) for i in range(n)]


def pause_of(i: int, n: int) -> int:
    """The mid-sentence pause of clip ``i`` of ``n``: spread evenly over 500–1500 ms, in a shuffled order."""
    steps = max(1, n - 1)
    return 500 + round(1000 * ((i * 7) % n) / steps) if n > 1 else 1000


__all__ = ["SETS", "STORYTELLER", "Clip", "Material", "pause_of"]
