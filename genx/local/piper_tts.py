"""Piper neural TTS as a synthesizer for the streamkit TTS pipeline.

:class:`PiperSynthesizer` implements the ``Synthesizer`` protocol of
``genx.transformers.tts``: ``mime`` (``audio/l16; channels=1; rate=<voice rate>``,
22.05 kHz for the default en_US-joe-medium) and ``synthesize(text)``, an async
generator of PCM bytes for one segment. The text is made speakable first
(:func:`~genx.local.speakable.speakable_text`); Piper then synthesizes it sentence
by sentence in a worker thread and each sentence is yielded as soon as it is
ready, cut into chunks of at most ``chunk_ms`` (default 40 ms) so a player pulls
finely. The worker runs at most :data:`AHEAD_SENTENCES` sentences ahead of the
generator's consumer (it waits when they are not taken), so a consumer that stops
pulling also stops synthesis. ``aclose()`` on the generator stops the worker
before its next sentence; the sentence in flight (one ONNX run, tens of ms) is
discarded.

The voice (``.onnx`` + ``.onnx.json`` beside it) is loaded once per process and
shared: ``InferenceSession.run`` is thread-safe and Piper guards its espeak-ng
phonemizer with a lock, so concurrent segments need no lock of ours. Every run
gives onnxruntime's CPU arena back (:class:`ShrinkingSession`): its buffers are sized
by the sentence, and an arena that kept the largest sentence's (and the fragments
between them) grew the process by ~650 MB over a few long answers.

:func:`piper_tts` / :func:`from_config` build ``TTSTransformer(PiperSynthesizer(…))``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genx.errors import GenxError
from genx.local.models import (
    DEFAULT_PIPER_VOICE,
    ModelLoadError,
    ModelNotFoundError,
    SharedModel,
    config_mapping,
    find_model,
    require_module,
)
from genx.local.speakable import speakable_text

if TYPE_CHECKING:
    from piper import PiperVoice

    from genx.transformers.tts import TTSTransformer

log = logging.getLogger(__name__)


class PiperConfigError(GenxError, ValueError):
    def __init__(self, field: str, value: object, why: str) -> None:
        self.field = field
        super().__init__(f"Piper setting {field}={value!r}: {why}")


@dataclass(frozen=True, slots=True)
class PiperOptions:
    voice: str | None = None  # path to a Piper .onnx voice; None = the packaged en_US-joe-medium
    speaker_id: int | None = None
    length_scale: float | None = None  # > 1 speaks slower
    noise_scale: float | None = None
    noise_w_scale: float | None = None
    volume: float = 1.0
    chunk_ms: int = 40  # largest audio chunk yielded (≤ 50 ms)
    sentence_silence_ms: int = 120  # pause between sentences within one segment
    threads: int = 0  # onnxruntime intra-op threads; 0 = onnxruntime's default

    def validate(self) -> PiperOptions:
        if not 5 <= self.chunk_ms <= 50:
            raise PiperConfigError("chunk_ms", self.chunk_ms, "must be 5 … 50 ms")
        if not 0 <= self.sentence_silence_ms <= 2000:
            raise PiperConfigError("sentence_silence_ms", self.sentence_silence_ms, "must be 0 … 2000 ms")
        if self.length_scale is not None and not 0.1 <= self.length_scale <= 5.0:
            raise PiperConfigError("length_scale", self.length_scale, "must be 0.1 … 5.0")
        if not 0.0 < self.volume <= 4.0:
            raise PiperConfigError("volume", self.volume, "must be in (0, 4]")
        if self.threads < 0:
            raise PiperConfigError("threads", self.threads, "must be 0 (default) or a positive count")
        return self


def voice_paths(voice: str | Path | None) -> tuple[Path, Path]:
    """The ``.onnx`` voice and its ``.onnx.json`` config; :class:`ModelNotFoundError` when either is missing."""
    model = find_model(voice, DEFAULT_PIPER_VOICE)
    if model.is_dir():
        onnx = sorted(model.glob("*.onnx"))
        if not onnx:
            raise ModelNotFoundError("Piper voice (.onnx file)", path=model, hint="put the .onnx voice and its .onnx.json in that folder")
        model = onnx[0]
    config = model.with_name(model.name + ".json")
    if not config.exists():
        raise ModelNotFoundError(
            "Piper voice config", path=config, hint=f"the .onnx.json config must sit next to {model.name}; download both files of the voice"
        )
    return model, config


def read_sample_rate(config: Path) -> int:
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
        rate = int(data["audio"]["sample_rate"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelLoadError("Piper voice config (.onnx.json)", config, exc) from exc
    if not 8000 <= rate <= 48000:
        raise ModelLoadError("Piper voice config (.onnx.json)", config, f"sample rate {rate} is out of range")
    return rate


#: onnxruntime run option: at the end of each run, free the arena's chunks beyond the first (device "cpu:0")
ARENA_SHRINKAGE = ("memory.enable_memory_arena_shrinkage", "cpu:0")


class ShrinkingSession:
    """An onnxruntime ``InferenceSession`` whose every ``run`` shrinks the CPU arena afterwards.

    Piper's input length varies with each sentence; without shrinkage the arena keeps the buffers of the longest
    one and the pieces between them for the life of the process (measured with the default voice, eight sentences
    of 80-480 characters, malloc trimmed after each: 146 → 808 MB RSS; with shrinkage 146 → 154-184 MB, at times
    ~350 MB for a sentence or two; synthesis time alike within the noise of a loaded machine).
    Everything else is the wrapped session's.
    """

    __slots__ = ("_options", "_session")

    def __init__(self, session: Any, run_options: Any) -> None:
        run_options.add_run_config_entry(*ARENA_SHRINKAGE)
        self._session = session
        self._options = run_options

    def run(self, output_names: Any, input_feed: Any, run_options: Any = None) -> Any:
        return self._session.run(output_names, input_feed, run_options if run_options is not None else self._options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def piper_voice(model: Path, config: Path, threads: int = 0) -> SharedModel[PiperVoice]:
    """The shared, lazily loaded voice."""
    require_module("piper", "piper-tts", "the local TTS")

    def load() -> PiperVoice:
        import onnxruntime  # type: ignore[import-untyped]
        from piper import PiperVoice
        from piper.config import PiperConfig

        try:
            cfg = PiperConfig.from_dict(json.loads(config.read_text(encoding="utf-8")))
        except Exception as exc:
            raise ModelLoadError("Piper voice config (.onnx.json)", config, exc) from exc
        opts = onnxruntime.SessionOptions()
        # Idle pool threads sleep instead of spinning: on 2 cores a spinning pool steals CPU from
        # Whisper / llama.cpp running at the same time (measured: ~30 % less CPU, same latency).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads > 0:
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
        try:
            session = onnxruntime.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ModelLoadError("Piper voice (.onnx)", model, exc) from exc
        return PiperVoice(session=ShrinkingSession(session, onnxruntime.RunOptions()), config=cfg)

    return SharedModel(("piper", str(model.resolve()), str(config.resolve()), threads), load, f"Piper voice {model.name}")


_END = object()
AHEAD_SENTENCES = 2  # a worker synthesizes at most this many sentences ahead of the generator's consumer


class PiperSynthesizer:
    """Piper voice behind the streamkit ``Synthesizer`` protocol (see the module docstring)."""

    def __init__(self, options: PiperOptions | None = None) -> None:
        self.options = (options or PiperOptions()).validate()
        self.model_path, self.config_path = voice_paths(self.options.voice)
        self.sample_rate = read_sample_rate(self.config_path)
        self.voice = piper_voice(self.model_path, self.config_path, self.options.threads)
        self._mime = f"audio/L16; rate={self.sample_rate}; channels=1"
        self._chunk_bytes = max(2, self.sample_rate * self.options.chunk_ms // 1000 * 2)

    @property
    def mime(self) -> str:
        return self._mime

    async def warm(self) -> None:
        """Load the voice and run one short synthesis (first-call costs out of the way)."""
        voice = await self.voice.aget()
        await asyncio.to_thread(lambda: sum(1 for _ in voice.synthesize("Ready.")))

    def _syn_config(self) -> Any:
        from piper.config import SynthesisConfig

        o = self.options
        return SynthesisConfig(
            speaker_id=o.speaker_id, length_scale=o.length_scale, noise_scale=o.noise_scale, noise_w_scale=o.noise_w_scale, volume=o.volume
        )

    async def synthesize(self, text: str) -> AsyncIterator[bytes]:
        clean = speakable_text(text)
        if not clean:
            return
        voice = await self.voice.aget()
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        stop = threading.Event()
        slots = threading.Semaphore(AHEAD_SENTENCES)  # sentences synthesized but not yet taken by the consumer
        syn_config = self._syn_config()
        silence = b"\x00\x00" * (self.sample_rate * self.options.sentence_silence_ms // 1000)

        def post(item: object) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is gone: nobody is listening
                stop.set()

        def work() -> None:
            try:
                first = True
                sentences = iter(voice.synthesize(clean, syn_config=syn_config))
                while True:
                    # Wait until the consumer took an earlier sentence; give up when it is gone (a pool thread
                    # blocked for ever would hold the interpreter at exit).
                    while not slots.acquire(timeout=0.5):
                        if stop.is_set() or loop.is_closed():
                            return
                    if stop.is_set():
                        return
                    chunk = next(sentences, None)
                    if chunk is None or stop.is_set():
                        return
                    pcm = chunk.audio_int16_bytes
                    post(pcm if first or not silence else silence + pcm)
                    first = False
            except BaseException as exc:
                post(exc)
            finally:
                post(_END)

        worker = loop.run_in_executor(None, work)
        step = self._chunk_bytes
        try:
            while True:
                item = await queue.get()
                slots.release()
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    raise PiperSynthesisError(clean, item) from item
                assert isinstance(item, bytes)
                for i in range(0, len(item), step):
                    yield item[i : i + step]
        finally:
            stop.set()
            slots.release()  # a worker waiting for a slot sees the stop
            if worker.done() and not worker.cancelled():
                worker.exception()


class PiperSynthesisError(GenxError):
    def __init__(self, text: str, cause: BaseException) -> None:
        self.cause = cause
        short = text if len(text) <= 60 else text[:57] + "…"
        super().__init__(f"Piper could not synthesize {short!r}: {cause}")


def piper_tts(options: PiperOptions | None = None) -> TTSTransformer:
    """``TTSTransformer(PiperSynthesizer(options))`` on the streamkit TTS pipeline."""
    from genx.transformers.tts import TTSTransformer

    synth = PiperSynthesizer(options)
    return TTSTransformer(synth, max_chunk_ms=synth.options.chunk_ms)


def options_from_mapping(spec: object) -> PiperOptions:
    """:class:`PiperOptions` from a ``VoiceSpec`` or a mapping (``path`` is accepted for ``voice``)."""
    spec = config_mapping(spec, "Piper TTS")
    known = {f.name for f in fields(PiperOptions)}
    if "path" in spec and "voice" not in spec:
        spec["voice"] = spec.pop("path")
    for key in spec:
        if key not in known:
            raise PiperConfigError(key, spec[key], f"unknown Piper setting; known: {', '.join(sorted(known))}")
    if isinstance(spec.get("voice"), Path):
        spec["voice"] = str(spec["voice"])
    return PiperOptions(**spec)


def from_config(spec: object = None, secrets: object = None) -> TTSTransformer:
    """Build the Piper TTS transformer from a mapping of :class:`PiperOptions` keys (``voice`` or ``path``)."""
    return piper_tts(options_from_mapping(spec))


__all__ = [
    "PiperConfigError",
    "PiperOptions",
    "PiperSynthesisError",
    "PiperSynthesizer",
    "from_config",
    "options_from_mapping",
    "piper_tts",
    "piper_voice",
    "voice_paths",
]
