"""The models the voice loop talks to, built from the settings: :class:`Stack` (:func:`build_stack`), the wake
word detector, the loop's :class:`~genx.agentkit.loop.LoopConfig` (:func:`loop_config`) and the echo handling
(:func:`make_echo`). Shared by ``parley --headless`` (:mod:`app.headless`) and the window (:mod:`app.ui.voice_factory`)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.assistant import Assistant, build_assistant
from app.turn_setup import build_turn_detector, warm_turn_detector
from genx.agentkit.echo import MILD_VAD, DelayEstimator, EchoCanceller, EchoGate, FarEndTimeline, VadEchoFallback, try_echo_canceller
from genx.agentkit.events import Mode
from genx.agentkit.loop import LoopConfig
from genx.agentkit.over_answer import HINT_FRAMES
from genx.agentkit.tts import StreamkitSpeech
from genx.generators import Generator
from genx.generators.mux import GeneratorMux
from genx.transformers import Transformer
from genx.transformers.mux import TransformerMux


@dataclass
class Stack:
    """The models the loop talks to (built from the settings, weights loaded by :meth:`warm`)."""

    generator: Generator  # the assistant generator (tools, router) over the configured generators
    generator_name: str
    vad: Any  # genx.local.vad.VadTransformer (hands-free)
    ptt_vad: Any  # the same settings in "external" mode (push-to-talk trimming)
    asr: Transformer
    speech: StreamkitSpeech
    warmers: list[Callable[[], Any]] = field(default_factory=list)
    turn_detector: Any = None  # genx.turn detector, or None: the silence rule
    notes: list[str] = field(default_factory=list)  # warnings to show once the loop runs
    assistant: Assistant | None = None  # its scheduler announces timers: start it with the loop
    wake_detector: Any = None  # genx.local.wakeword.WakeWordDetector with [loop] wake_word, else None
    # [loop] pipeline = "realtime": the speech-to-speech model (asr, generator and speech are then unused) and its tools
    realtime: Any = None
    realtime_tools: list[Any] = field(default_factory=list)
    generators: GeneratorMux | None = None  # the configured generators (memory extraction calls the answer model by name)

    async def warm(self) -> None:
        """Load every model (in worker threads) so the first turn does not pay for it."""
        if self.turn_detector is not None:
            warned, *_ = await asyncio.gather(warm_turn_detector(self.turn_detector), *(w() for w in self.warmers))
            if warned:
                self.turn_detector = None
                self.notes.append(warned)
        else:
            await asyncio.gather(*(w() for w in self.warmers))

    async def aclose(self) -> None:
        """Release what the models hold open (the HTTP generators' connection pools)."""
        close = getattr(self.generator, "aclose", None)
        if close is not None:
            await close()


def build_stack(settings: Any, *, generator: str | None = None) -> Stack:
    """The configured generator / VAD / ASR / voice (cheap: weights load in :meth:`Stack.warm`).

    Each generator answers with its own ``system_prompt``, else ``[loop] system_prompt``
    (:func:`app.settings.with_generator_prompts`; the loop sends none, see :func:`loop_config`)."""
    from app.model_catalogue import with_optional
    from app.settings import with_generator_prompts
    from genx.local.vad import VadTransformer
    from genx.modelloader import load_into

    settings = with_optional(settings, generator)  # an optional model named here or in [loop] gets its row
    gens = GeneratorMux()
    trs = TransformerMux()
    load_into(with_generator_prompts(settings), gens, trs)
    loop_s = settings.loop
    name = generator or loop_s.generator
    gen_impl = gens.resolve(name)
    vad = trs.resolve(loop_s.vad)
    if not isinstance(vad, VadTransformer):
        raise TypeError(f"[loop] vad = {loop_s.vad!r} is not a VAD transformer; the voice loop needs kind 'webrtcvad' or 'silero'")
    # aggressiveness is the [vad] table's own; with ducking, voiced frames duck the answer ahead of the onset
    vad.tune(end_silence_ms=loop_s.end_of_turn_silence_ms, hint_frames=HINT_FRAMES if loop_s.backchannel_ducking else 0)
    ptt_vad = VadTransformer(dataclasses.replace(vad.settings, mode="external"))
    asr = trs.resolve(loop_s.asr)
    tts = trs.resolve(loop_s.voice)
    synth = getattr(tts, "synthesizer", None)
    if synth is None:
        raise TypeError(f"[loop] voice = {loop_s.voice!r} is not a streamkit TTS voice (no synthesizer)")
    speech = StreamkitSpeech(synth, language=getattr(tts, "language", "auto"), max_chunk_ms=20)
    assistant = build_assistant(settings, gens)
    if loop_s.pipeline == "realtime":
        rt = _realtime_stack(loop_s, trs, assistant, name, vad, ptt_vad, asr, speech)
        rt.generators = gens  # memory extraction still calls the answer model by name
        return rt
    warmers: list[Callable[[], Any]] = [w for w in (getattr(x, "warm", None) for x in (gen_impl, asr, synth, vad)) if w is not None]
    warmers.append(lambda: assistant.generator.warm(name))  # the offline router's own context (no-op for cloud generators)
    detector, warned = build_turn_detector(loop_s, gen_impl)  # the raw in-process model: the text check shares its cache
    wake, wake_warned = build_wake_detector(loop_s)
    return Stack(
        assistant.generator,
        name,
        vad,
        ptt_vad,
        asr,
        speech,
        warmers,
        turn_detector=detector,
        notes=[n for n in (warned, wake_warned) if n],
        assistant=assistant,
        wake_detector=wake,
        generators=gens,
    )


def build_wake_detector(loop_s: Any) -> tuple[Any, str]:
    """The wake word detector of ``[loop] wake_word`` and ``wake_word_engine`` (or None), and a warning when it
    cannot load: then hands-free listens to all speech, as without a wake word. With ``"both"``, an openWakeWord
    half that cannot load leaves microWakeWord alone, with a warning. ``wake_word_threshold`` is the threshold of
    the engine named (of microWakeWord with ``"both"``; openWakeWord keeps its measured one). Unset, with
    ``"both"`` and openWakeWord confirmed, microWakeWord listens at its stricter ``TUNED_BESIDE_CONFIRMED``.

    openWakeWord runs on its own thread, its detections confirmed by Whisper (``wake_word_confirm``,
    ``genx.local.wake_confirm``): the packaged tiny.en, whatever the ASR, since the check's margins were measured
    with it (loaded on that thread when it starts)."""
    if not loop_s.wake_word:
        return None, ""
    from genx.errors import GenxError
    from genx.local.wake_confirm import ConfirmedDetector
    from genx.local.wake_ensemble import AnyOfDetector
    from genx.local.wakeword import TUNED_BESIDE_CONFIRMED, WakeWordDetector

    engine, model, threshold = loop_s.wake_word_engine, loop_s.wake_word_model, loop_s.wake_word_threshold
    notes: list[str] = []
    if engine == "spotter":
        return _micro_and_spotter(model, threshold)
    if engine == "openwakeword":
        try:
            return _openwakeword(loop_s, threshold, notes), "; ".join(notes)
        except (GenxError, OSError) as e:
            return None, f"wake word off, Parley listens to all speech: {e}"
    oww, oww_off = None, ""
    if engine == "both":
        try:
            oww = _openwakeword(loop_s, None, notes)
        except (GenxError, OSError) as e:
            oww_off = f"wake word engine openWakeWord off, microWakeWord alone listens: {e}"
    if threshold is None and oww is not None and isinstance(oww.inner, ConfirmedDetector):
        threshold = TUNED_BESIDE_CONFIRMED.get(str(model))
    try:
        micro = WakeWordDetector([model], threshold=threshold)
    except (GenxError, OSError) as e:
        if oww is not None:
            oww.close()
        return None, f"wake word off, Parley listens to all speech: {e}"
    if oww is None:
        return micro, oww_off
    return AnyOfDetector([micro, oww]), "; ".join(notes)


def _micro_and_spotter(model: str, threshold: float | None) -> tuple[Any, str]:
    """``"spotter"``: microWakeWord, or the phrase said alone (``genx.local.wake_spotter``) as Whisper confirms it, on
    a thread of its own. Beside the spotter microWakeWord listens at ``TUNED_BESIDE_CONFIRMED`` unless a threshold is
    set. Whisper that cannot load leaves microWakeWord alone, with a warning."""
    from genx.errors import GenxError
    from genx.local.wake_confirm import ConfirmedDetector, WhisperWakeCheck
    from genx.local.wake_ensemble import AnyOfDetector, BackgroundDetector
    from genx.local.wake_spotter import PhraseSpotter
    from genx.local.wakeword import TUNED_BESIDE_CONFIRMED, WakeWordDetector
    from genx.local.whisper import WhisperDecoder

    check: WhisperWakeCheck | None = None
    off = ""
    try:
        check = WhisperWakeCheck(WhisperDecoder())
    except (GenxError, OSError) as e:
        off = f"the wake phrase spotter is off, microWakeWord alone listens: {e}"
    if threshold is None and check is not None:
        threshold = TUNED_BESIDE_CONFIRMED.get(model)
    try:
        micro = WakeWordDetector([model], threshold=threshold)
    except (GenxError, OSError) as e:
        return None, f"wake word off, Parley listens to all speech: {e}"
    if check is None:
        return micro, off
    return AnyOfDetector([micro, BackgroundDetector(ConfirmedDetector(PhraseSpotter(micro.phrases[0]), check))]), ""


def _openwakeword(loop_s: Any, threshold: float | None, notes: list[str]) -> Any:
    """openWakeWord on its own thread; confirmed by Whisper unless ``wake_word_confirm`` is off or Whisper cannot
    load (a note says so, and the engine keeps its stricter unconfirmed threshold)."""
    from genx.errors import GenxError
    from genx.local.openwakeword import DEFAULT_THRESHOLD, OpenWakeWordDetector
    from genx.local.wake_confirm import ConfirmedDetector, WhisperWakeCheck
    from genx.local.wake_ensemble import BackgroundDetector
    from genx.local.whisper import WhisperDecoder

    check = None
    if loop_s.wake_word_confirm:
        try:
            check = WhisperWakeCheck(WhisperDecoder())
        except (GenxError, OSError) as e:
            notes.append(f"openWakeWord's detections are not confirmed by Whisper: {e}")
    if check is None:
        return BackgroundDetector(OpenWakeWordDetector([loop_s.wake_word_model], threshold=threshold))
    # confirmed, openWakeWord listens at its model's own threshold: Whisper drops what else it fires on
    oww = OpenWakeWordDetector([loop_s.wake_word_model], threshold=DEFAULT_THRESHOLD if threshold is None else threshold)
    return BackgroundDetector(ConfirmedDetector(oww, check))


def _realtime_stack(
    loop_s: Any, trs: TransformerMux, assistant: Assistant, name: str, vad: Any, ptt_vad: Any, asr: Any, speech: StreamkitSpeech
) -> Stack:
    """The stack of ``[loop] pipeline = "realtime"``: the session answers, the local VAD only cuts (nothing else is loaded)."""
    from genx.tools import FuncTool

    realtime = trs.resolve(loop_s.realtime)
    if not callable(getattr(realtime, "with_tools", None)):
        raise TypeError(f"[loop] realtime = {loop_s.realtime!r} is not a realtime model (kind 'openai-realtime' or 'gemini-live')")
    tools = [t for t in assistant.generator.tools if isinstance(t, FuncTool)]
    warmers = [w for w in (getattr(vad, "warm", None),) if w is not None]
    return Stack(
        assistant.generator, name, vad, ptt_vad, asr, speech, warmers, assistant=assistant, realtime=realtime, realtime_tools=tools
    )


def loop_config(settings: Any, *, mode: str | None = None, generator: str | None = None) -> LoopConfig:
    s = settings.loop
    return LoopConfig(
        mode=Mode.parse(mode or s.mode),
        barge_in=bool(s.barge_in),
        generator=s.realtime if s.pipeline == "realtime" else (generator or s.generator),
        system_prompt="",  # the generators carry it (build_stack): one prompt, never two stacked
        echo_fallback=True,
        preemptive_generation=bool(s.preemptive_generation),
        turn_check_ms=int(s.turn_check_ms),
        max_end_of_turn_ms=int(s.max_end_of_turn_ms),
        backchannel_ducking=bool(s.backchannel_ducking),
        interrupt_after_ms=int(s.interrupt_after_ms),
        follow_up_s=float(s.follow_up_s),
        resume_false_stop_s=float(s.resume_false_stop_s),
    )


def make_echo(settings: Any, vad: Any) -> tuple[EchoCanceller | None, EchoGate, VadEchoFallback]:
    """AEC when enabled and available; the residual echo gate and a stricter VAD while speaking, always."""
    far = FarEndTimeline()
    echo = try_echo_canceller(far=far) if settings.loop.echo_cancellation else None
    if echo is not None:
        gate = EchoGate(far, estimator=echo.estimator)
    else:
        gate = EchoGate(far, estimator=DelayEstimator(far), own_estimator=True)
    return echo, gate, VadEchoFallback(vad, MILD_VAD)
