"""The app's own settings sections: ``[audio]``, ``[loop]``, ``[ui]``, ``[memory]`` (part of :mod:`app.settings`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from genx.modelloader import Spec
from genx.prompts import DEFAULT_SYSTEM_PROMPT

#: Keys that were removed: they still load (with a note naming the replacement) and a save drops them.
DEPRECATED_KEYS = (("audio", "capture_rate"), ("loop", "vad_aggressiveness"))

DeviceRef = str | Annotated[int, Field(ge=0)] | None


class AudioSettings(Spec):
    """``[audio]``: devices by name (a substring of the device name) or index; omitted = the system default."""

    input_device: DeviceRef = None
    output_device: DeviceRef = None
    capture_rate: Any = None  # removed (never read): the microphone is always resampled to 16 kHz


class LoopSettings(Spec):
    """``[loop]``: how turns are taken and which configured components answer."""

    mode: Literal["hands-free", "push-to-talk"] = "hands-free"
    barge_in: bool = True
    echo_cancellation: bool = True
    end_of_turn_silence_ms: int = Field(default=500, gt=0, le=10_000)  # the turn's end with turn_detection = "silence"
    # "smart-turn": a model judges at each pause whether you finished (SmolLM2 on the transcript + Smart Turn on the audio)
    turn_detection: Literal["smart-turn", "silence"] = "smart-turn"
    turn_check_ms: int = Field(default=200, ge=50, le=2_000)  # pause before the model is asked
    max_end_of_turn_ms: int = Field(default=2_500, ge=300, le=10_000)  # silence that ends an unfinished-sounding turn
    turn_text_complete: float = Field(default=0.03, gt=0.0, lt=1.0)  # end-of-message probability: complete at or above
    turn_text_incomplete: float = Field(default=0.01, gt=0.0, lt=1.0)  # ... unfinished at or below (between: Smart Turn)
    turn_audio_threshold: float = Field(default=0.5, gt=0.0, lt=1.0)  # Smart Turn's probability: complete at or above
    preemptive_generation: bool = True
    backchannel_ducking: bool = True  # speech over the answer ducks it; "mm-hm", "okay" or a cough let it go on
    interrupt_after_ms: int = Field(default=1000, ge=200, le=5_000)  # ... this much speech (or a stop word) stops it
    wake_word: bool = False  # hands-free listens only after the wake phrase (then follow_up_s without it)
    wake_word_model: str = Field(default="hey_jarvis", min_length=1)  # okay_nabu, hey_jarvis, alexa, hey_mycroft or a .json path
    wake_word_threshold: float | None = Field(default=None, gt=0.0, lt=1.0)  # unset: the model's own cutoff
    # "micro": microWakeWord; "openwakeword": openWakeWord (pyopen-wakeword, CC BY-NC-SA models); "both": either one;
    # "spotter": microWakeWord or the phrase said alone, spotted by its shape and confirmed by Whisper
    wake_word_engine: Literal["micro", "openwakeword", "both", "spotter"] = "micro"
    # openWakeWord's detections are confirmed by Whisper reading the phrase (it then listens at its model's own threshold)
    wake_word_confirm: bool = True
    follow_up_s: float = Field(default=8.0, ge=1.0, le=120.0)  # after an answer, speech needs no wake word this long
    resume_false_stop_s: float = Field(default=3.0, ge=0.0, le=30.0)  # a stop no words followed resumes the answer (0: off)
    vad_aggressiveness: int | None = Field(default=None, ge=0, le=3)  # removed: [vad] aggressiveness
    # "realtime": one speech-to-speech session (the [[realtime]] model named by `realtime`) replaces asr + generator + voice
    pipeline: Literal["cascade", "realtime"] = "cascade"
    realtime: str = ""
    generator: str = Field(default="offline/smollm2", min_length=1)
    voice: str = Field(default="tts/joe", min_length=1)
    asr: str = Field(default="asr/whisper-base", min_length=1)
    vad: str = Field(default="vad/webrtc", min_length=1)
    system_prompt: str = DEFAULT_SYSTEM_PROMPT


class UiSettings(Spec):
    """``[ui]``: window appearance and the push-to-talk key."""

    theme: Literal["system", "light", "dark"] = "system"
    hotkey: str = Field(default="Space", min_length=1)
    global_hotkey: bool = False  # the hotkey works in other windows too (X11; a key that types nothing, e.g. F9)
    tray: bool = True
    close_to_tray: bool = False  # closing the window hides it (Parley goes on in the tray); quit from the tray menu


class MemorySettings(Spec):
    """``[memory]``: long-term memory of what the user tells Parley (``genx.memory``), kept in the user data dir."""

    enabled: bool = True  # off: nothing is recalled, extracted or written
    extract_with_model: bool = False  # also ask the answer generator for facts (the rules always run); off: SmolLM2 is slow and wrong here
    token_budget: int = Field(default=200, ge=20, le=4000)  # recalled facts per answer, in tokens
