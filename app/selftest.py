"""``parley --self-test``: load every offline model, run one spoken round trip, open the audio devices, print a table.

What runs, in order (each row of the table is one check, with its time):

* ``settings``: the settings file is read the way the app reads it; a broken file is a *warning* (the app
  and this test then use the defaults) that names the file and the problem.
* ``log directory``: where the log goes; not writable is a warning (the app then logs to stderr only).
* ``load vad`` / ``load whisper`` / ``load piper`` / ``load llm``: the offline components of the voice
  loop (the configured ones when they are offline kinds, else the defaults that ship with Parley), built
  through :func:`genx.modelloader.load_into` exactly as the app builds them, then warmed (weights loaded).
* ``synthesize``: Piper speaks :data:`SENTENCE` (TTS transformer on a text route).
* ``transcribe``: that audio goes through the VAD and the Whisper ASR transformers, as microphone audio
  does in the app; passes when most of the sentence's words come back.
* ``generate``: the language model answers :data:`QUESTION` (a few tokens, streamed).
* ``portaudio``: the sound library loads (which one, from where: the bundle carries its own).
* ``audio input`` / ``audio output``: the configured (default: the system default) microphone and speaker
  are opened and run for a moment. No device at all is a *skip* with the reason, not a failure.

Exit code: 0 when no check failed (skips and warnings allowed), 1 otherwise. Every check has a time limit,
so the self-test never hangs. With ``PARLEY_SELFTEST_JSON=<file>`` the results are also written there as JSON.

The check runner and report are :mod:`app.selftest_runner`, the audio device checks
:mod:`app.selftest_devices`; this module re-exports their names.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.selftest_devices import DeviceChecks
from app.selftest_runner import Check, CheckResult, CheckSkipped, CheckWarning, Report, Status, run_checks, word_recall, words

log = logging.getLogger(__name__)

SENTENCE = "Hello, this is the Parley self test. The weather is nice today."
QUESTION = "What is the capital of France? Answer in one short sentence."
MIN_WORD_RECALL = 0.6
ENV_JSON = "PARLEY_SELFTEST_JSON"

#: Offline kinds per role (what ships in the bundle; online kinds are not part of the self-test).
OFFLINE_KINDS = {"generator": {"llamacpp"}, "voice": {"piper"}, "asr": {"faster-whisper"}, "vad": {"webrtcvad"}}


# -- which components -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Stack:
    """The offline components under test: one spec per role, and where each choice came from."""

    generator: Any
    voice: Any
    asr: Any
    vad: Any
    notes: dict[str, str] = field(default_factory=dict)

    def model_config(self) -> Any:
        from genx.modelloader import ModelConfig

        return ModelConfig(generators=[self.generator], voices=[self.voice], asr=[self.asr], vad=[self.vad])


def offline_stack(settings: Any) -> Stack:
    """The loop's configured components where they are offline kinds; the shipped defaults otherwise."""
    from app.settings import default_asr, default_generators, default_vad, default_voices

    loop = settings.loop
    notes: dict[str, str] = {}

    def pick(role: str, configured: Any, default: Any) -> Any:
        kind = getattr(configured, "effective_kind", None) or getattr(configured, "kind", None)
        if configured is not None and kind in OFFLINE_KINDS[role]:
            return configured
        if configured is not None:
            notes[role] = f"configured {configured.name!r} is not offline ({kind}); testing the default {default.name!r}"
        return default

    gen = pick("generator", settings.generator(loop.generator), default_generators()[0])
    voice = pick("voice", next((v for v in settings.voices if v.name == loop.voice), None), default_voices()[0])
    asr = pick("asr", next((a for a in settings.asr if a.name == loop.asr), None), default_asr()[0])
    vad = pick("vad", next((v for v in settings.vad if v.name == loop.vad), None), default_vad()[0])
    return Stack(gen, voice, asr, vad, notes)


# -- the real checks ----------------------------------------------------------------------------------------


class SelfTest(DeviceChecks):
    """State shared by the checks of one run: the settings, the loaded components, the synthesized audio."""

    def __init__(self, args: argparse.Namespace, *, audio_backend: Any = None) -> None:
        self.args = args
        self.audio_backend = audio_backend  # None: PortAudio through sounddevice (tests pass a fake)
        self.settings: Any = None
        self.config_error: str = ""
        self.stack: Stack | None = None
        self.generators: Any = None
        self.transformers: Any = None
        self.loaded: dict[str, bool] = {}
        self.audio: list[Any] = []  # the synthesized route: MessageChunks (BOS blob, audio, EOS)
        self.audio_mime = ""
        self.audio_bytes = 0

    def checks(self) -> list[Check]:
        return [
            Check("settings", self.check_settings, 30),
            Check("log directory", self.check_log_dir, 10),
            Check("build components", self.check_build, 60),
            Check("load vad", lambda: self.check_load("vad"), 60),
            Check("load whisper", lambda: self.check_load("asr"), 180),
            Check("load piper", lambda: self.check_load("voice"), 180),
            Check("load llm", lambda: self.check_load("generator"), 180),
            Check("synthesize", self.check_synthesize, 120),
            Check("transcribe", self.check_transcribe, 120),
            Check("generate", self.check_generate, 180),
            Check("portaudio", self.check_portaudio, 20),
            Check("audio input", self.check_audio_input, 20),
            Check("audio output", self.check_audio_output, 20),
        ]

    # settings & environment -------------------------------------------------------------------------
    async def check_settings(self) -> str:
        from app import settings as settings_file

        path = settings_file.config_path(getattr(self.args, "config", None))
        settings, err = await asyncio.to_thread(settings_file.load_or_defaults, path)
        self.settings = settings
        if err is not None:
            self.config_error = str(err)
            raise CheckWarning(f"{path} has errors, so the defaults are used (the file is left as it is): {err}")
        return f"{path}" if path.exists() else f"defaults (no file at {path})"

    async def check_log_dir(self) -> str:
        from app.logging_setup import log_dir

        d = log_dir()
        try:
            d.mkdir(parents=True, exist_ok=True)
            probe = d / ".parley-write-test"
            probe.write_text("ok", encoding="utf-8")
            probe.unlink()
        except OSError as e:
            raise CheckWarning(f"{d} is not writable ({e.strerror or e}); Parley logs to the terminal only. Set PARLEY_LOG_DIR") from e
        return str(d)

    # models ------------------------------------------------------------------------------------------------
    async def check_build(self) -> str:
        from app.settings import Settings
        from genx.generators.mux import GeneratorMux
        from genx.modelloader import load_into
        from genx.transformers.mux import TransformerMux

        settings = self.settings if self.settings is not None else Settings()
        stack = offline_stack(settings)
        self.stack = stack
        gmux, tmux = GeneratorMux(), TransformerMux()
        config = stack.model_config()
        await asyncio.to_thread(load_into, config, gmux, tmux)
        self.generators, self.transformers = gmux, tmux
        names = f"{stack.generator.name}, {stack.voice.name}, {stack.asr.name}, {stack.vad.name}"
        notes = "; ".join(stack.notes.values())
        return names + (f" ({notes})" if notes else "")

    def _component(self, role: str) -> tuple[Any, str]:
        if self.stack is None or self.transformers is None or self.generators is None:
            raise CheckSkipped("not run: the components could not be built (see 'build components')")
        spec = {"generator": self.stack.generator, "voice": self.stack.voice, "asr": self.stack.asr, "vad": self.stack.vad}[role]
        if role == "generator":
            return self.generators.resolve(spec.name), spec.name
        return self.transformers.resolve(spec.name), spec.name

    async def check_load(self, role: str) -> str:
        component, name = self._component(role)
        warm = getattr(component, "warm", None) or getattr(getattr(component, "synthesizer", None), "warm", None)
        if warm is not None:
            await warm()
        self.loaded[role] = True
        spec = getattr(self.stack, role)
        mf = getattr(spec, "model_file", None)
        where = f" from {mf.require()}" if mf is not None else ""
        return f"{name}{where}"

    def _need(self, *roles: str) -> None:
        missing = [r for r in roles if not self.loaded.get(r)]
        if missing:
            raise CheckSkipped(f"not run: loading {', '.join(missing)} failed")

    async def check_synthesize(self) -> str:
        from genx.chunk import Blob, MessageChunk, Role
        from genx.ids import new_stream_id
        from genx.stream import collect, stream_of

        self._need("voice")
        tts, _ = self._component("voice")
        sid = new_stream_id()
        text = stream_of(
            MessageChunk.bos(sid, role=Role.ASSISTANT),
            MessageChunk.text(SENTENCE, role=Role.ASSISTANT, stream_id=sid),
            MessageChunk.eos(sid, role=Role.ASSISTANT),
        )
        out = await collect(await tts.transform(text))
        audio = [c for c in out if isinstance(c.part, Blob)]
        data = sum(len(c.part.data) for c in audio if isinstance(c.part, Blob))
        errors = [c.error for c in out if c.error]
        if errors:
            raise RuntimeError(f"synthesis ended with an error: {errors[0]}")
        if data == 0:
            raise RuntimeError("Piper produced no audio for the test sentence")
        mime = next(c.part.mime for c in audio if isinstance(c.part, Blob) and c.part.data)
        self.audio, self.audio_mime, self.audio_bytes = audio, mime, data
        return f"{_duration_s(mime, data):.1f} s of audio ({mime}) for {len(SENTENCE)} characters"

    async def check_transcribe(self) -> str:
        from genx.chunk import Blob, MessageChunk, Role
        from genx.ids import new_stream_id
        from genx.stream import collect, stream_of

        self._need("vad", "asr")
        if not self.audio:
            raise CheckSkipped("not run: no synthesized audio (see 'synthesize')")
        vad, _ = self._component("vad")
        asr, _ = self._component("asr")
        # One capture route, as the microphone makes it: silence, the sentence, silence.
        sid = new_stream_id()
        silence = bytes(_bytes_per_s(self.audio_mime) // 2 // 2 * 2)  # 0.5 s, whole samples
        chunks = [MessageChunk.bos(sid, role=Role.USER), MessageChunk.blob(self.audio_mime, silence, role=Role.USER, stream_id=sid)]
        for c in self.audio:
            if isinstance(c.part, Blob) and c.part.data:
                chunks.append(MessageChunk.blob(self.audio_mime, c.part.data, role=Role.USER, stream_id=sid))
        chunks += [
            MessageChunk.blob(self.audio_mime, silence * 2, role=Role.USER, stream_id=sid),
            MessageChunk.eos(sid, role=Role.USER),
        ]
        utterances = await vad.transform(stream_of(*chunks))
        out = await collect(await asr.transform(utterances))
        finals = [c.part.text for c in out if c.label == "final" and c.part is not None and hasattr(c.part, "text")]
        heard = " ".join(t.strip() for t in finals if t.strip())
        recall = word_recall(SENTENCE, heard)
        if not heard:
            raise RuntimeError("Whisper returned no text for the synthesized sentence (the VAD found no speech, or ASR failed)")
        if recall < MIN_WORD_RECALL:
            raise RuntimeError(f"heard {heard!r}: only {recall:.0%} of the words match (need {MIN_WORD_RECALL:.0%})")
        return f"heard {heard!r} ({recall:.0%} of the words)"

    async def check_generate(self) -> str:
        from genx.chunk import Text
        from genx.errors import Done, Truncated
        from genx.model import ModelContextBuilder

        self._need("generator")
        assert self.stack is not None
        name = self.stack.generator.name
        ctx = ModelContextBuilder().user(QUESTION).params(max_tokens=32, temperature=0.0).build()
        t0 = time.perf_counter()
        stream = await self.generators.generate_stream(name, ctx)
        first: float | None = None
        parts: list[str] = []
        try:
            while True:
                chunk = await stream.next()
                if isinstance(chunk.part, Text) and chunk.part.text:
                    if first is None:
                        first = time.perf_counter() - t0
                    parts.append(chunk.part.text)
        except (Done, Truncated):
            pass
        finally:
            await stream.close()
        answer = "".join(parts).strip()
        if not answer:
            raise RuntimeError(f"{name} returned an empty answer")
        return f"{answer!r} (first token after {first or 0:.2f} s)"


def _bytes_per_s(mime: str) -> int:
    from genx.mime import mime_params

    p = mime_params(mime)
    return int(p.get("rate", "16000")) * int(p.get("channels", "1")) * 2


def _duration_s(mime: str, nbytes: int) -> float:
    return nbytes / max(1, _bytes_per_s(mime))


# -- entry point -----------------------------------------------------------------------------------------------


def _setup_logging() -> None:
    from app.logging_setup import setup_logging

    try:
        setup_logging(logging.INFO, console=True)
    except OSError:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


def _header() -> str:
    from app import __version__

    bundled = "bundle " + str(getattr(sys, "_MEIPASS", "")) if getattr(sys, "frozen", False) else "Python " + sys.executable
    return f"Parley {__version__} self-test ({bundled})"


def main(args: argparse.Namespace) -> int:
    """``parley --self-test``; returns the exit code (0: every required check passed)."""
    _setup_logging()
    print(_header(), flush=True)

    def progress(r: CheckResult) -> None:
        print(f"  {r.status.upper():<5} {r.name} ({r.seconds:.2f} s)", file=sys.stderr, flush=True)

    report = asyncio.run(run_checks(SelfTest(args).checks(), on_result=progress))
    print(report.table(), flush=True)
    target = os.environ.get(ENV_JSON)
    if target:
        try:
            Path(target).write_text(json.dumps(report.to_json()), encoding="utf-8")
        except OSError as e:
            print(f"cannot write {ENV_JSON}={target}: {e}", file=sys.stderr)
    return report.exit_code()


__all__ = [
    "MIN_WORD_RECALL",
    "OFFLINE_KINDS",
    "QUESTION",
    "SENTENCE",
    "Check",
    "CheckResult",
    "CheckSkipped",
    "CheckWarning",
    "Report",
    "SelfTest",
    "Stack",
    "Status",
    "main",
    "offline_stack",
    "run_checks",
    "word_recall",
    "words",
]
