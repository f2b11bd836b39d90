"""``parley --headless``: the voice loop in a terminal, on real audio devices.

Builds the configured stack from the settings (``app.settings``) through the
model loader and the muxes (offline default: WebRTC VAD, faster-whisper, SmolLM2
on llama.cpp, Piper), opens the microphone and speaker (the system defaults, or
``--input-device`` / ``--output-device``), runs :class:`genx.agentkit.loop.VoiceLoop`
and prints the conversation: partial transcripts on one updating line, final
transcripts, the assistant's words as they are heard, barge-ins, per-turn
latencies and errors (the printing and the keys: :mod:`app.terminal`).
Ctrl-C (or ``--quit-after``) quits cleanly.

Exit codes: 0 normal end, 1 the loop stopped on an error, 2 no usable audio
device (or PortAudio missing), 3 a configuration / model problem.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from app.assistant import Assistant, build_assistant
from app.memory_policy import TurnTrimmer
from app.memory_setup import build_memory, memory_path
from app.terminal import AudioNotices, KeyCommands, TerminalView, device_greeting
from app.turn_setup import build_turn_detector, warm_turn_detector
from genx.agentkit.echo import MILD_VAD, DelayEstimator, EchoCanceller, EchoGate, FarEndTimeline, VadEchoFallback, try_echo_canceller
from genx.agentkit.events import (
    ErrorKind,
    Event,
    LoopState,
    Mode,
)
from genx.agentkit.loop import LoopConfig, VoiceLoop
from genx.agentkit.over_answer import HINT_FRAMES
from genx.agentkit.store import ConversationStore
from genx.agentkit.tts import StreamkitSpeech
from genx.deadline import Deadline
from genx.generators import Generator
from genx.generators.mux import GeneratorMux
from genx.memory import Memory
from genx.transformers import Transformer
from genx.transformers.mux import TransformerMux

log = logging.getLogger("parley.headless")

EXIT_OK, EXIT_ERROR, EXIT_NO_DEVICE, EXIT_CONFIG = 0, 1, 2, 3

# closing a session: the whole budget, what the loop leaves for the devices, and what each device gets at least
CLOSE_TIMEOUT_S = 8.0
DEVICE_RESERVE_S = 1.5
DEVICE_FLOOR_S = 0.5


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
    """The wake word detector of ``[loop] wake_word`` (or None), and a warning when it cannot load: then
    hands-free listens to all speech, as without a wake word."""
    if not loop_s.wake_word:
        return None, ""
    from genx.errors import GenxError
    from genx.local.wakeword import WakeWordDetector

    try:
        return WakeWordDetector([loop_s.wake_word_model], threshold=loop_s.wake_word_threshold), ""
    except (GenxError, OSError) as e:
        return None, f"wake word off, Parley listens to all speech: {e}"


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


async def open_devices(input_device: str | int | None, output_device: str | int | None, *, backend: Any = None) -> tuple[Any, Any]:
    """Start capture (16 kHz: what VAD, ASR and AEC take) and player; raises ``app.audio.AudioDeviceError`` subclasses."""
    from app.audio import Capture, Player

    capture = Capture(input_device, rate=16000, chunk_ms=20, backend=backend)
    player = Player(output_device, block_ms=10, lead_blocks=6, backend=backend)
    await capture.start()
    try:
        await player.start()
    except BaseException:
        await capture.stop()
        raise
    return capture, player


def _device_arg(v: str | int | None) -> str | int | None:
    if isinstance(v, str) and v.strip().isdigit():
        return int(v.strip())
    return v


def make_echo(settings: Any, vad: Any) -> tuple[EchoCanceller | None, EchoGate, VadEchoFallback]:
    """AEC when enabled and available; the residual echo gate and a stricter VAD while speaking, always."""
    far = FarEndTimeline()
    echo = try_echo_canceller(far=far) if settings.loop.echo_cancellation else None
    if echo is not None:
        gate = EchoGate(far, estimator=echo.estimator)
    else:
        gate = EchoGate(far, estimator=DelayEstimator(far), own_estimator=True)
    return echo, gate, VadEchoFallback(vad, MILD_VAD)


class Session:
    """The voice loop on real devices: what ``--headless`` runs (tests and the bench drive it too).

    :meth:`open` builds the stack, opens the devices (``AudioDeviceError`` when it
    cannot), loads the models and starts the loop; :meth:`close` stops everything.
    """

    def __init__(
        self,
        settings: Any,
        *,
        input_device: str | int | None = None,
        output_device: str | int | None = None,
        mode: str | None = None,
        generator: str | None = None,
        store: ConversationStore | None = None,
        backend: Any = None,
        memory: Memory | None = None,
        trim_memory: bool = True,
    ) -> None:
        self.settings = settings
        self.input_device = _device_arg(input_device if input_device is not None else settings.audio.input_device)
        self.output_device = _device_arg(output_device if output_device is not None else settings.audio.output_device)
        self.mode = mode
        self.generator = generator
        self.store = store if store is not None else ConversationStore()
        self.backend = backend
        self.stack: Stack | None = None
        self.capture: Any = None
        self.player: Any = None
        self.echo: EchoCanceller | None = None
        self.gate: EchoGate | None = None
        self.loop: VoiceLoop | None = None
        self.memory = memory  # None: built from [memory] on start, beside the conversation store (app.memory_setup)
        # malloc_trim after every answer (app.memory_policy); off only to measure without it (bench/soak.py --no-trim)
        self.trimmer: TurnTrimmer | None = TurnTrimmer() if trim_memory else None

    def build(self) -> Stack:
        self.stack = build_stack(self.settings, generator=self.generator)
        return self.stack

    async def open_devices(self) -> None:
        self.capture, self.player = await open_devices(self.input_device, self.output_device, backend=self.backend)

    async def start(self, on_event: Callable[[Event], None] | None = None) -> VoiceLoop:
        """Warm the models and start the loop (after :meth:`build` and :meth:`open_devices`)."""
        stack = self.stack or self.build()
        if self.capture is None:
            await self.open_devices()
        await stack.warm()
        cfg = loop_config(self.settings, mode=self.mode, generator=self.generator)
        self.echo, self.gate, fallback = make_echo(self.settings, stack.vad)
        if self.memory is None:
            self.memory = build_memory(self.settings, stack.generators, path=memory_path(self.store), generator=self.generator)
        self.loop = VoiceLoop(
            capture=self.capture.stream,
            vad=stack.vad,
            asr=stack.asr,
            generator=stack.generator,
            speech=stack.speech,
            player=self.player,
            config=cfg,
            ptt_vad=stack.ptt_vad,
            store=self.store,
            echo=self.echo,
            echo_gate=self.gate,
            echo_fallback=fallback,
            turn_detector=stack.turn_detector,
            wake_detector=stack.wake_detector,
            realtime=stack.realtime,
            realtime_tools=stack.realtime_tools,
            memory=self.memory,
        )
        if on_event is not None:
            self.loop.bus.subscribe(on_event)
        if self.trimmer is not None:
            self.loop.bus.subscribe(self.trimmer.on_event)
        await self.loop.start()
        for note in stack.notes:
            self.loop.core.error(ErrorKind.CONFIG, note)
        if stack.assistant is not None:
            stack.assistant.announce = self.loop.announce  # fired timers: a chime and the words (shown by the front end)
            stack.assistant.start()
        return self.loop

    async def close(self, deadline: Deadline | float | None = None) -> None:
        """Stop the loop (the answer cut where it was heard, the history written last), then close the devices
        and the models, all within one ``deadline`` (default ``CLOSE_TIMEOUT_S``); the devices are closed
        whatever happened before (an error, a cancelled caller, a loop that took all its time)."""
        dl = Deadline.of(deadline, CLOSE_TIMEOUT_S)
        try:
            if self.stack is not None and self.stack.assistant is not None:
                await dl.wait(self.stack.assistant.stop())
            if self.loop is not None:  # the loop ends by its deadline; waiting up to ours guards one that does not
                ok, _ = await dl.wait(self.loop.stop(dl.keeping(DEVICE_RESERVE_S)))
                if not ok:
                    log.warning("the voice loop did not stop in time; closing the devices anyway")
            if self.memory is not None:  # the last turn's facts are written first (a few seconds at most)
                await dl.wait(self.memory.aclose(), floor_s=DEVICE_FLOOR_S)
        finally:
            closers = [
                ("the microphone", self.capture.stop if self.capture is not None else None),
                ("the speaker", self.player.close if self.player is not None else None),
                ("the models", self.stack.aclose if self.stack is not None else None),
            ]
            for what, close in closers:
                if close is None:
                    continue
                try:
                    ok, _ = await dl.wait(close(), floor_s=DEVICE_FLOOR_S)
                except Exception as e:
                    log.warning("closing %s failed: %s", what, e)
                    continue
                if not ok:
                    log.warning("closing %s did not finish in time; left it to finish in the background", what)
            if self.stack is not None and self.stack.wake_detector is not None:
                self.stack.wake_detector.close()


async def run_headless(args: argparse.Namespace, *, out: TextIO = sys.stdout, err: TextIO | None = None, backend: Any = None) -> int:
    """The headless session; ``backend`` replaces PortAudio (tests)."""
    from app.audio.errors import AudioDeviceError
    from app.settings import load_or_defaults
    from genx.errors import GenxError

    err = err if err is not None else sys.stderr
    settings, cfg_err = load_or_defaults(getattr(args, "config", None))
    if cfg_err is not None:
        print(f"parley: settings file has errors, using the defaults: {cfg_err}", file=err)
    session = Session(
        settings,
        input_device=getattr(args, "input_device", None),
        output_device=getattr(args, "output_device", None),
        mode=getattr(args, "mode", None),
        generator=getattr(args, "generator", None),
        backend=backend,
    )
    try:
        session.build()
    except (GenxError, TypeError, ValueError) as e:
        print(f"parley: cannot build the model stack: {e}", file=err)
        return EXIT_CONFIG
    try:
        await session.open_devices()
    except AudioDeviceError as e:
        print(f"parley: {e}", file=err)
        return EXIT_NO_DEVICE

    view = TerminalView(out)  # prints announcements too (the loop speaks them)
    print(device_greeting(session.capture, session.player), file=out)
    print("parley: loading models…", file=out, flush=True)
    on_audio = AudioNotices(view)
    for dev in (session.capture, session.player):
        dev.add_listener(on_audio)
    try:
        voice_loop = await session.start(view)
    except (GenxError, OSError, RuntimeError) as e:
        await session.close()
        print(f"parley: cannot load a model: {e}", file=err)
        return EXIT_CONFIG

    aio = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            aio.add_signal_handler(sig, stop.set)
    quit_after = getattr(args, "quit_after", None)
    if quit_after:
        aio.call_later(float(quit_after), stop.set)
    keys = KeyCommands(voice_loop, view, stop.set)
    stdin_attached = False
    if sys.stdin is not None and sys.stdin.isatty():
        with contextlib.suppress(NotImplementedError, OSError, ValueError):
            aio.add_reader(sys.stdin.fileno(), lambda: keys.line(sys.stdin.readline()))
            stdin_attached = True
            view.line(KeyCommands.HELP)

    runner = asyncio.ensure_future(voice_loop.run())
    waiter = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        failed = voice_loop.state is LoopState.ERROR
        await session.close()
        waiter.cancel()
        with contextlib.suppress(BaseException):
            await runner
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                aio.remove_signal_handler(sig)
        if stdin_attached:
            with contextlib.suppress(Exception):
                aio.remove_reader(sys.stdin.fileno())
    print(f"parley: bye ({voice_loop.turns_done} turns)", file=out, flush=True)
    return EXIT_ERROR if failed else EXIT_OK


def main(args: argparse.Namespace) -> int:
    """Entry point of ``parley --headless`` (see :mod:`app.cli`)."""
    from app.logging_setup import setup_logging

    with contextlib.suppress(OSError):
        setup_logging(logging.INFO, console=True)
    try:
        return asyncio.run(run_headless(args))
    except KeyboardInterrupt:
        return EXIT_OK


__all__ = [
    "KeyCommands",
    "Session",
    "Stack",
    "TerminalView",
    "build_stack",
    "loop_config",
    "main",
    "make_echo",
    "open_devices",
    "run_headless",
]
