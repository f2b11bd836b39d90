"""Builds the real voice loop for the window: the headless session's wiring (:mod:`app.headless`) with
per-model progress, or a text-only loop (no microphone, speaker or TTS: typed messages get written answers).

Nothing heavy happens at import time: model runtimes are imported and loaded in worker threads during
:meth:`VoiceLoopFactory.build`. Qt-free.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import logging
from collections.abc import Callable
from typing import Any

from app.settings import Settings
from genx.agentkit.events import EventBus, LoopState, Mode
from genx.agentkit.store import ConversationStore
from genx.chunk import MessageChunk
from genx.deadline import Deadline
from genx.errors import Done
from genx.stream import Stream, StreamBuilder

log = logging.getLogger(__name__)

Progress = Callable[[str, "float | None"], None]


async def _import(name: str) -> Any:
    """Import in a worker thread: model runtimes (onnxruntime, ctranslate2, llama.cpp) take a while to import."""
    return await asyncio.to_thread(importlib.import_module, name)


class RunningLoop:
    """The loop plus what it runs on. ``aclose``: stop the loop (the turn in progress is stored), then close the
    microphone and the speaker."""

    def __init__(
        self, loop: Any, *, session: Any = None, voice: bool = True, generators: Any = None, assistant: Any = None, memory: Any = None
    ) -> None:
        self.inner = loop
        self.session = session  # app.headless.Session owning the devices and models (None: text only)
        self.voice = voice
        self.generators = generators  # text only: the GeneratorMux to close with the loop
        # app.assistant.Assistant: its `announce` hook is the loop's announce (the voice session's stack holds it otherwise)
        self.assistant = assistant if assistant is not None else getattr(getattr(session, "stack", None), "assistant", None)
        self.memory = memory if memory is not None else getattr(session, "memory", None)  # genx.memory.Memory (the window's panel)
        self._closed = False

    def __getattr__(self, name: str) -> Any:  # LoopControl commands and properties come from the loop
        return getattr(self.inner, name)

    @property
    def bus(self) -> EventBus:
        return self.inner.bus  # type: ignore[no-any-return]

    @property
    def state(self) -> LoopState:
        return self.inner.state  # type: ignore[no-any-return]

    @property
    def mode(self) -> Mode:
        return self.inner.mode  # type: ignore[no-any-return]

    @property
    def muted(self) -> bool:
        return bool(self.inner.muted)

    @property
    def generator_name(self) -> str:
        return str(self.inner.generator_name)

    @property
    def conversation_id(self) -> str:
        return str(self.inner.conversation_id)

    async def aclose(self, deadline: Deadline | float | None = None) -> None:
        """Close within ``deadline`` (a :class:`~genx.deadline.Deadline` or seconds; default 8 s)."""
        if self._closed:
            return
        self._closed = True
        dl = Deadline.of(deadline, 8.0)
        if self.session is not None:
            await self.session.close(dl)  # stops the loop (the turn in progress is stored), then capture, player, models
            return
        try:
            if self.assistant is not None:
                await dl.wait(self.assistant.stop())
            await self.inner.stop(dl)
            if self.memory is not None:
                await dl.wait(self.memory.aclose(), floor_s=0.5)
        finally:
            if self.generators is not None:
                await dl.wait(self.generators.aclose(), floor_s=0.5)


class SilentSpeech:
    """Text-only mode's Speech: consumes the answer text and produces no audio."""

    async def speak(self, text: Stream, recorder: Any) -> Stream:
        b = StreamBuilder()

        async def drain() -> None:
            with contextlib.suppress(Exception):
                while True:
                    try:
                        await text.next()
                    except Done:
                        break
            if not b.ended:
                b.done()

        task = asyncio.ensure_future(drain())

        def cancel(_exc: BaseException | None) -> None:
            task.cancel()

        b.on_close(cancel)
        return b.stream

    def interrupt(self, audio: Stream, stream_id: str) -> bool:
        return False


class SilentPlayer:
    """Text-only mode's player: pulls what it is given to the end and plays nothing."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def on_played(self, cb: Any) -> Callable[[], None]:
        return lambda: None

    def on_route_end(self, cb: Any) -> Callable[[], None]:
        return lambda: None

    def play(self, stream: Stream) -> None:
        async def drain() -> None:
            with contextlib.suppress(Exception):
                while True:
                    c: MessageChunk = await stream.next()
                    del c

        t = asyncio.ensure_future(drain())
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    async def stop(self, discard: bool = True) -> dict[str, Any]:
        for t in list(self._tasks):
            t.cancel()
        return {}

    @property
    def latency(self) -> float:
        return 0.0

    output_latency = latency

    async def close(self) -> None:
        await self.stop()


class VoiceLoopFactory:
    """:class:`app.ui.app_controller.LoopFactory` for the real stack.

    Voice: :class:`app.headless.Session` (the same wiring as ``parley --headless``): devices are opened first, so
    a missing microphone fails fast, then every model is loaded in worker threads with progress per model.
    Text only: the configured generator, no devices.
    """

    def __init__(self, *, store: ConversationStore | None = None, backend: Any = None) -> None:
        self.store = store if store is not None else ConversationStore()
        self.backend = backend  # an app.audio backend (tests); None = PortAudio

    async def build(self, settings: Settings, *, progress: Progress, voice: bool) -> RunningLoop:
        if not voice:
            return await self._text_only(settings, progress)
        progress("Preparing the models…", 0.02)
        headless = await _import("app.headless")
        session = headless.Session(settings, store=self.store, backend=self.backend)
        stack = await asyncio.to_thread(session.build)
        progress("Opening the microphone and speaker…", 0.08)
        await session.open_devices()
        try:
            names = [_warmer_name(w) for w in stack.warmers]
            ready: list[str] = []

            def wrap(w: Callable[[], Any], name: str) -> Callable[[], Any]:
                async def run() -> None:
                    await w()
                    ready.append(name)
                    waiting = [n for n in names if n not in ready]
                    head = f"Loading {', '.join(waiting)}…" if waiting else "Starting…"
                    progress(f"{head} ({len(ready)} of {len(names)} ready)", 0.1 + 0.85 * len(ready) / max(1, len(names)))

                return run

            progress(f"Loading {', '.join(names)}…", 0.1)
            stack.warmers = [wrap(w, n) for w, n in zip(stack.warmers, names, strict=True)]
            await session.start()
        except BaseException:
            await session.close()
            raise
        progress("Ready", 1.0)
        return RunningLoop(session.loop, session=session)

    async def _text_only(self, settings: Settings, progress: Progress) -> RunningLoop:
        from app.assistant import build_assistant
        from app.model_catalogue import with_optional
        from app.settings import with_generator_prompts
        from genx.agentkit.loop import VoiceLoop
        from genx.generators.mux import GeneratorMux
        from genx.modelloader import load_into

        progress("Loading the language model…", 0.1)
        settings = with_optional(settings)  # [loop] generator may name an optional model (app.model_catalogue)
        gen_mux = GeneratorMux()
        await asyncio.to_thread(load_into, with_generator_prompts(settings), gen_mux, None)
        assistant = build_assistant(settings, gen_mux)
        await assistant.generator.warm(settings.loop.generator)
        vad_mod = await _import("genx.local.vad")
        headless = await _import("app.headless")
        config = dataclasses.replace(headless.loop_config(settings), echo_fallback=False)  # the same loop settings as voice
        from app.memory_setup import build_memory, memory_path

        memory = build_memory(settings, gen_mux, path=memory_path(self.store))
        loop = VoiceLoop(
            capture=None,
            vad=vad_mod.VadTransformer(classifier_factory=lambda s: _Unvoiced()),
            asr=_NoAsr(),
            generator=assistant.generator,
            speech=SilentSpeech(),  # type: ignore[arg-type]
            player=SilentPlayer(),  # type: ignore[arg-type]
            config=config,
            store=self.store,
            memory=memory,
        )
        await loop.start()
        assistant.announce = loop.announce  # shown in the chat (this loop has no voice)
        assistant.start()
        progress("Ready for typing", 1.0)
        return RunningLoop(loop, voice=False, generators=gen_mux, assistant=assistant, memory=memory)


def _warmer_name(w: Callable[[], Any]) -> str:
    owner = type(getattr(w, "__self__", None)).__name__.lower()
    for key, words in (
        ("llama", "the language model"),
        ("whisper", "speech recognition"),
        ("asr", "speech recognition"),
        ("piper", "the voice"),
        ("vad", "voice activity detection"),
    ):
        if key in owner:
            return words
    return "a model"


class _Unvoiced:
    """A VAD classifier for the text-only loop, which has no microphone."""

    def is_speech(self, frame: bytes) -> bool:
        return False

    def set_aggressiveness(self, level: int) -> None:
        pass


class _NoAsr:
    """The text-only loop's ASR: passes its (empty) input through."""

    async def transform(self, stream: Stream) -> Stream:
        return stream
