"""The TTS pipeline: text routes in, audio routes out (one pipeline per ``transform()`` call).

Per input StreamID (``genx-behaviours.md`` "TTS pipeline"):

* An empty input StreamID gets a fresh one (again after each of its EOS).
* The first text chunk of a route emits a BOS blob (audio MIME, no data) with the
  input's role, name and label, at once.
* Text is consumed, never forwarded. A :class:`SentenceSegmenter` per route cuts
  it; complete segments are synthesized while the text still streams in. A text
  EOS, any other EOS on that StreamID, or the end of the input flushes the rest
  and emits one audio EOS on the same route. Segments with no letter or digit
  are not synthesized. **fix**: at the end of input, routes end in insertion order.
* Non-text chunks pass through (after the audio of text that came before them)
  and do not flush; a non-text EOS of an active route is forwarded after the
  route's audio EOS.
* A chunk with ``ctrl.error`` on an active StreamID interrupts that route (its
  unpulled audio is dropped, an unpulled BOS is re-emitted, then EOS(error)); the
  error chunk is swallowed. On an unknown StreamID it is forwarded.
* A synthesizer error puts ``error=str(err)`` on that route's EOS (other active
  routes end with the same error), then the stream raises ``err``.
* :meth:`TTSStream.interrupt` (barge-in) drops the unpulled audio of one or all
  routes, stops their synthesis (the running generator is closed, pending
  segments are dropped) and ends them with EOS(error="interrupted"). Text that
  still arrives on an interrupted route is swallowed until that route's EOS;
  text after the EOS starts a new route.
* Text on a StreamID whose previous route is still finishing (its EOS arrived,
  its audio is still being synthesized) starts a route with a fresh StreamID.

Segments are synthesized one at a time, in the order they became complete
across all routes (the synthesizer sees exactly that order).

Look-ahead (backpressure from the consumer): a segment starts only while the
audio queued and not yet pulled is at most ``lookahead_s`` seconds (default
3 s; ``None`` = unbounded). So synthesis runs at most ``lookahead_s`` plus one
segment ahead of the consumer (a player pulls just in time, so: ahead of what
was heard), and a barge-in throws little synthesis work away. A segment, once
started, is synthesized whole, so the segment being heard is complete and its
text/audio alignment exact. Durations are exact for ``audio/L16``; encoded
audio is budgeted at 128 kbit/s (at lower bitrates the look-ahead is longer).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from genx.chunk import Blob, MessageChunk, Text
from genx.errors import Done, GenerateError, State
from genx.mime import parse_mime
from genx.stream import Stream
from genx.transformers.audiostream.normalizer import Normalizer
from genx.transformers.audiostream.pcm import AudioFormatError, PCMFramer, is_l16, pcm_format, pcm_format_from_mime
from genx.transformers.streamkit.errors import ResponseActiveError
from genx.transformers.streamkit.invocation import INTERRUPTED_TEXT, Invocation, InvocationStream
from genx.transformers.streamkit.response import Response, ResponseConfig
from genx.transformers.streamkit.segmenter import SentenceSegmenter, has_speakable

if TYPE_CHECKING:
    from genx.transformers.tts import Synthesizer

log = logging.getLogger(__name__)

DEFAULT_LOOKAHEAD_S = 3.0
ENCODED_BYTES_PER_SECOND = 16_000  # 128 kbit/s: at least the bitrate of speech codecs, so the budget is >= lookahead_s


@dataclass(slots=True, eq=False)
class _Route:
    key: str  # the input StreamID ("" for input without one)
    response: Response
    segmenter: SentenceSegmenter
    interrupted: bool = False
    finished: bool = False  # finish job queued (input EOS seen)


@dataclass(slots=True)
class _Job:
    kind: str  # "say" | "finish" | "forward" | "end"
    route: _Route | None = None
    text: str = ""
    chunk: MessageChunk | None = None
    end: BaseException | None = field(default=None)


class TTSPipeline:
    """Runs one TTS call on an :class:`Invocation`; built by ``TTSTransformer.transform``."""

    __slots__ = (
        "_active",
        "_budget",
        "_current_route",
        "_current_task",
        "_inv",
        "_jobs",
        "_language",
        "_max_chunk_ms",
        "_mime",
        "_room",
        "_routes",
        "_synth",
        "stream",
    )

    def __init__(
        self,
        input: Stream,
        synthesizer: Synthesizer,
        *,
        language: str = "auto",
        max_chunk_ms: float | None = None,
        output_max_bytes: int = 0,
        lookahead_s: float | None = DEFAULT_LOOKAHEAD_S,
    ) -> None:
        self._synth = synthesizer
        self._mime = parse_mime(synthesizer.mime)  # InvalidMimeError names the bad MIME
        if max_chunk_ms is not None and max_chunk_ms <= 0:
            raise ValueError(f"max_chunk_ms must be positive, got {max_chunk_ms}")
        self._budget = lookahead_bytes(self._mime, lookahead_s)
        self._room: asyncio.Future[None] | None = None
        SentenceSegmenter(language=language)  # validates the language early
        self._language = language
        self._max_chunk_ms = max_chunk_ms
        self._inv = Invocation(input, max_bytes=output_max_bytes)
        self._routes: dict[str, _Route] = {}  # by input StreamID, insertion order
        self._active: list[_Route] = []  # routes whose response is not yet finished / interrupted
        self._jobs: asyncio.Queue[_Job] = asyncio.Queue()
        self._current_route: _Route | None = None
        self._current_task: asyncio.Task[None] | None = None
        self.stream = TTSStream(self)
        self._inv.on_cancel(self._stop_synthesis)
        if self._budget:
            self._inv.output.add_observer(self._on_pull)

    @property
    def invocation(self) -> Invocation:
        return self._inv

    def start(self) -> TTSStream:
        inp = self._inv.input
        assert inp is not None
        self._inv.spawn(self._read(inp), name="tts-read")
        self._inv.spawn(self._synthesize_jobs(), name="tts-synthesize")
        return self.stream

    # -- interrupt ----------------------------------------------------------------
    def interrupt(self, stream_id: str | None = None, text: str = INTERRUPTED_TEXT) -> list[str]:
        """Interrupt the route with output StreamID ``stream_id`` (all active routes when None).

        Returns the StreamIDs interrupted (empty when nothing matched or the call ended).
        """
        if not self._inv.is_open:
            return []
        targets = [r for r in self._active if stream_id is None or r.response.stream_id == stream_id]
        for r in targets:
            self._interrupt_route(r, text)
        return [r.response.stream_id for r in targets]

    def _interrupt_route(self, route: _Route, text: str) -> None:
        route.interrupted = True
        route.segmenter.reset()
        if self._current_route is route and self._current_task is not None:
            self._current_task.cancel()
        if route in self._active:
            self._active.remove(route)
        self._inv.interrupt(route.response, text)
        self._wake_if_room()  # its unpulled audio is gone

    def _stop_synthesis(self) -> None:
        t = self._current_task
        if t is not None:
            t.cancel()

    # -- input ------------------------------------------------------------------------
    async def _read(self, inp: Stream) -> None:
        end: BaseException | None = None
        while True:
            try:
                chunk = await inp.next()
            except Done:
                break
            except State as st:
                if isinstance(st, GenerateError):
                    raise
                end = st  # truncated / blocked: speak what came, then end with that state
                break
            self._on_chunk(chunk)
        for route in list(self._routes.values()):
            self._end_route(route)
        self._jobs.put_nowait(_Job("end", end=end))

    def _on_chunk(self, chunk: MessageChunk) -> None:
        key = chunk.stream_id
        route = self._routes.get(key)
        if chunk.error:
            if route is None:
                finishing = [r for r in self._active if r.key == key]
                if not finishing:
                    self._jobs.put_nowait(_Job("forward", chunk=chunk))
                for r in finishing:
                    self._interrupt_route(r, chunk.error)
                return
            if not route.interrupted:
                self._interrupt_route(route, chunk.error)
            if chunk.is_end_of_stream():
                del self._routes[key]
            return
        if isinstance(chunk.part, Text):
            if route is None:
                route = self._open_route(chunk)
            if route.interrupted:
                if chunk.is_end_of_stream():
                    del self._routes[key]
                return
            if chunk.part.text:
                route.segmenter.write(chunk.part.text)
                for seg in route.segmenter.segments():
                    self._jobs.put_nowait(_Job("say", route, seg))
            if chunk.is_end_of_stream():
                self._end_route(route)
            return
        if chunk.is_end_of_stream() and route is not None:
            if route.interrupted:
                del self._routes[key]
            else:
                self._end_route(route)
        self._jobs.put_nowait(_Job("forward", chunk=chunk))

    def _open_route(self, chunk: MessageChunk) -> _Route:
        cfg = ResponseConfig(chunk.stream_id, chunk.role, chunk.name, chunk.label)
        try:
            response = self._inv.start_response(cfg)
        except ResponseActiveError:
            # The previous route on this id is still finishing its audio.
            response = self._inv.start_response(ResponseConfig("", chunk.role, chunk.name, chunk.label))
        route = _Route(chunk.stream_id, response, SentenceSegmenter(language=self._language))
        self._routes[chunk.stream_id] = route
        self._active.append(route)
        self._inv.emit(response, MessageChunk.bos(response.stream_id, Blob(self._mime, b"")))
        return route

    def _end_route(self, route: _Route) -> None:
        if self._routes.get(route.key) is route:
            del self._routes[route.key]
        if route.interrupted or route.finished:
            return
        route.finished = True
        for seg in route.segmenter.segments(flush=True):
            self._jobs.put_nowait(_Job("say", route, seg))
        self._jobs.put_nowait(_Job("finish", route))

    # -- look-ahead ---------------------------------------------------------------------
    def _on_pull(self, chunk: MessageChunk) -> None:
        self._wake_if_room()

    def _wake_if_room(self) -> None:
        room = self._room
        if room is not None and not room.done() and self._inv.output.queued_bytes <= self._budget:
            room.set_result(None)

    async def _wait_for_room(self) -> None:
        """Return once the unpulled output is within the look-ahead budget."""
        while self._budget and self._inv.output.queued_bytes > self._budget:
            room = asyncio.get_running_loop().create_future()
            self._room = room
            try:
                await room
            finally:
                self._room = None

    # -- synthesis ----------------------------------------------------------------------
    async def _synthesize_jobs(self) -> None:
        while True:
            job = await self._jobs.get()
            if job.kind == "end":
                if job.end is not None:
                    self._inv.fail(job.end)
                else:
                    self._inv.close()
                return
            route = job.route
            if job.kind == "forward":
                assert job.chunk is not None
                self._inv.forward(job.chunk)
            elif route is None or route.interrupted:
                continue
            elif job.kind == "finish":
                if route in self._active:
                    self._active.remove(route)
                self._inv.finish_response(route.response)
            elif job.kind == "say" and has_speakable(job.text):
                try:
                    await self._say(route, job.text)
                except asyncio.CancelledError:
                    task = asyncio.current_task()
                    if (task is not None and task.cancelling()) or not self._inv.is_open:
                        raise
                    continue  # only this segment was cancelled (its route was interrupted)
                except Exception as exc:
                    if self._inv.is_open and not route.interrupted:
                        if route in self._active:
                            self._active.remove(route)
                        self._inv.finish_response(route.response, str(exc) or type(exc).__name__)
                        self._inv.fail(exc)
                    return

    async def _say(self, route: _Route, text: str) -> None:
        task = asyncio.get_running_loop().create_task(self._run_synth(route, text))
        self._current_route, self._current_task = route, task
        try:
            await task
        finally:
            self._current_route = self._current_task = None

    async def _run_synth(self, route: _Route, text: str) -> None:
        await self._wait_for_room()  # in this task, so interrupting the route also drops the wait
        gen = self._synth.synthesize(text)
        normalizer = Normalizer(self._mime)
        framer: PCMFramer | None = None
        if self._max_chunk_ms is not None and is_l16(self._mime):
            rate, channels = pcm_format_from_mime(self._mime)
            framer = PCMFramer(rate, self._max_chunk_ms, channels)
        try:
            async for data in gen:
                self._emit_audio(route, normalizer.normalize(data), framer)
            self._emit_audio(route, normalizer.flush(), framer)
            if framer is not None:
                for piece in framer.flush():
                    self._emit_audio(route, piece, None)
        finally:
            await _aclose(gen)

    def _emit_audio(self, route: _Route, data: bytes, framer: PCMFramer | None) -> None:
        if not data or route.interrupted:
            return
        for piece in framer.push(data) if framer is not None else (data,):
            self._inv.emit(route.response, MessageChunk(part=Blob(self._mime, piece)))


class TTSStream(InvocationStream):
    """The output of one TTS call: a genx Stream plus :meth:`interrupt` for barge-in."""

    __slots__ = ("_pipeline",)

    def __init__(self, pipeline: TTSPipeline) -> None:
        super().__init__(pipeline.invocation)
        self._pipeline = pipeline

    def interrupt(self, stream_id: str | None = None, text: str = INTERRUPTED_TEXT) -> list[str]:
        """Cut the answer on ``stream_id`` (all active routes when None) at what was already pulled.

        Drops that route's unpulled audio, stops its synthesis (running generator
        closed, pending segments dropped) and queues EOS(error=text) on its audio
        channel (after a re-emitted BOS if the BOS itself was not pulled yet).
        Returns the StreamIDs interrupted. Later text on that input route is
        swallowed until its EOS. Synchronous: call it from the event loop.
        """
        return self._pipeline.interrupt(stream_id, text)

    def active_stream_ids(self) -> list[str]:
        """Output StreamIDs whose audio route is still open (start order)."""
        return [r.response.stream_id for r in self._pipeline._active]


def lookahead_bytes(mime: str, seconds: float | None) -> int:
    """The byte budget of ``seconds`` of ``mime`` audio (0 = unbounded)."""
    if seconds is None:
        return 0
    if not seconds > 0:
        raise ValueError(f"lookahead_s must be positive (or None for unbounded), got {seconds}")
    rate = ENCODED_BYTES_PER_SECOND
    if is_l16(mime):
        try:
            rate = pcm_format(mime).bytes_per_second
        except AudioFormatError:  # no rate given: budget it like encoded audio
            pass
    return max(1, int(seconds * rate))


async def _aclose(gen: AsyncIterator[bytes]) -> None:
    aclose = getattr(gen, "aclose", None)
    if aclose is None:
        return
    try:
        await aclose()
    except Exception:
        log.exception("closing the synthesizer generator failed")


__all__ = ["DEFAULT_LOOKAHEAD_S", "TTSPipeline", "TTSStream", "lookahead_bytes"]
