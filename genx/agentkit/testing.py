"""Deterministic stand-ins for the voice loop's parts, driven by a virtual clock.

For unit tests, demos and UI development without models or audio devices:

* :class:`VirtualClock`: seconds, advanced by the test.
* :class:`ScriptedMic`: capture chunks (16 kHz, 10 ms) from a speech script
  (``[(start, end), …]`` seconds of "speech" = a loud tone, silence elsewhere),
  timestamped with the virtual clock.
* :class:`EnergyClassifier`: a VAD frame classifier (voiced = loud), for the
  real ``genx.local.vad.VadTransformer``.
* :class:`ScriptedAsr`: utterance routes → ``partial`` / ``final`` transcript
  routes with scripted texts (one per utterance, in order).
* :class:`ScriptedGenerator`: answers with tokens released at scripted virtual
  times after the call (optionally failing after them); records every context
  and whether the stream was closed (cancelled).
* :class:`ToneSynthesizer`: a streamkit ``Synthesizer`` with a fixed number of
  samples per character (so the test knows which bytes are which words).
* :class:`VirtualPlayer`: an ``AudioOutput`` that pulls at device pace as the
  clock advances, keeps ``lead_ms`` of audio buffered, reports played / heard
  samples (heard lags by ``latency_ms``) and records what it handed to the
  "device" per route.
* :class:`Rig`: all of the above around a :class:`~genx.agentkit.loop.VoiceLoop`,
  with :meth:`Rig.run_until` stepping time in 10 ms ticks.

The stand-ins live in :mod:`.testing_input` (clock, tone, mic, VAD classifier), :mod:`.testing_asr`,
:mod:`.testing_generator` and :mod:`.testing_output` (voice, player); this module has :class:`Rig` and re-exports
them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from genx.agentkit.events import Event, EventBus
from genx.agentkit.loop import LoopConfig, VoiceLoop
from genx.agentkit.store import ConversationStore
from genx.agentkit.testing_asr import ScriptedAsr
from genx.agentkit.testing_generator import GenCall, Reply, ScriptedGenerator
from genx.agentkit.testing_input import MIME, RATE, EnergyClassifier, ScriptedMic, VirtualClock, energy_vad, tone
from genx.agentkit.testing_output import Position, ToneSynthesizer, VirtualPlayer
from genx.agentkit.tts import StreamkitSpeech
from genx.chunk import Message, Text


async def settle(rounds: int = 60) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


class Rig:
    """A voice loop on fakes. ``await rig.start()``, ``await rig.run_until(t)``, inspect ``rig.events``."""

    def __init__(
        self,
        *,
        speech: Sequence[tuple[float, float]] = (),
        transcripts: Sequence[str | Sequence[str]] = (),
        replies: Sequence[Reply] = (),
        config: LoopConfig | None = None,
        samples_per_char: int = 800,
        end_silence_ms: int = 300,
        store: ConversationStore | None = None,
        synthesizer: Any = None,
        latency_ms: int = 30,
        ptt_vad: bool = False,
        asr_delay: float = 0.0,
        turn_detector: Any = None,
        wake_detector: Any = None,
        memory: Any = None,
        echo_gate: Any = None,
        realtime: Any = None,
        realtime_tools: Sequence[Any] = (),
        player_class: type[VirtualPlayer] | None = None,
        generator: Any = None,
    ) -> None:
        self.clock = VirtualClock()
        t0 = self.clock.t
        self.mic = ScriptedMic(self.clock, [(t0 + a, t0 + b) for a, b in speech])
        self.vad = energy_vad(end_silence_ms)
        self.ptt_vad = energy_vad(end_silence_ms, mode="external") if ptt_vad else None
        self.asr = ScriptedAsr(transcripts, clock=self.clock, final_delay=asr_delay)
        self.gen = ScriptedGenerator(self.clock, replies)
        self.synth = synthesizer or ToneSynthesizer(samples_per_char)
        self.player = (player_class or VirtualPlayer)(self.clock, latency_ms=latency_ms)
        self.bus = EventBus()
        self.events: list[Event] = []
        self.bus.subscribe(self.events.append)
        cfg = config or LoopConfig(generator="fake/model", system_prompt="Be brief.")
        self.loop = VoiceLoop(
            capture=self.mic.stream,
            vad=self.vad,
            asr=self.asr,
            generator=generator if generator is not None else self.gen,  # e.g. tool rounds over a scripted model
            speech=StreamkitSpeech(self.synth, max_chunk_ms=20),
            player=self.player,
            config=cfg,
            ptt_vad=self.ptt_vad,
            store=store,
            turn_detector=turn_detector,
            wake_detector=wake_detector,
            memory=memory,
            echo_gate=echo_gate,
            realtime=realtime,
            realtime_tools=realtime_tools,
            clock=self.clock,
            wall_clock=lambda: 1_700_000_000.0,
            bus=self.bus,
        )
        self.t0 = t0

    async def start(self) -> None:
        await self.loop.start()
        await settle()

    @property
    def now(self) -> float:
        """Seconds since the rig's start."""
        return self.clock.t - self.t0

    async def step(self, dt: float = 0.01) -> None:
        t = self.clock.t
        self.clock.t = t + dt
        self.mic.tick(t, dt)
        self.gen.tick()
        self.asr.tick()
        await settle(10)
        self.player.tick(dt)
        await settle()

    async def run_until(self, t: float, dt: float = 0.01) -> None:
        """Advance to ``t`` seconds after the start."""
        while self.now < t - 1e-9:
            await self.step(dt)

    async def stop(self) -> None:
        await self.loop.stop()
        self.mic.builder.done()

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def text_of(self, m: Message) -> str:
        return "".join(p.text for p in m.parts if isinstance(p, Text))


__all__ = [
    "MIME",
    "RATE",
    "EnergyClassifier",
    "GenCall",
    "Position",
    "Reply",
    "Rig",
    "ScriptedAsr",
    "ScriptedGenerator",
    "ScriptedMic",
    "ToneSynthesizer",
    "VirtualClock",
    "VirtualPlayer",
    "energy_vad",
    "settle",
    "tone",
]
