"""The voice loop on real audio devices: :class:`Session` (what ``parley --headless`` runs; the window, the tests
and the benches drive it too) and :func:`open_devices`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from app.memory_policy import TurnTrimmer
from app.memory_setup import build_memory, memory_path
from app.voice_stack import Stack, build_stack, loop_config, make_echo
from genx.agentkit.echo import EchoCanceller, EchoGate
from genx.agentkit.events import ErrorKind, Event
from genx.agentkit.loop import VoiceLoop
from genx.agentkit.store import ConversationStore
from genx.deadline import Deadline
from genx.memory import Memory

log = logging.getLogger("parley.headless")

# closing a session: the whole budget, what the loop leaves for the devices, and what each device gets at least
CLOSE_TIMEOUT_S = 8.0
DEVICE_RESERVE_S = 1.5
DEVICE_FLOOR_S = 0.5


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
                # off the loop: an engine on its own thread (openWakeWord) is joined, up to 2 s
                ok, _ = await dl.wait(asyncio.to_thread(self.stack.wake_detector.close), floor_s=DEVICE_FLOOR_S)
                if not ok:
                    log.warning("closing the wake word detector did not finish in time")
