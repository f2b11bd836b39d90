"""The PortAudio backend seam: what capture and player need from sounddevice, behind a small protocol.

Tests inject a fake :class:`AudioBackend`; the application uses :func:`load_backend`, which
imports sounddevice lazily so that ``import app.audio`` works without PortAudio and a missing
library becomes :class:`~app.audio.errors.PortAudioMissingError` with the fix.

Threading: PortAudio is not thread-safe for open/close/terminate. Every such call of
:class:`SoundDeviceBackend` runs under one process-wide lock; callbacks never take it. A call waits
at most ``LOCK_WAIT_S`` for that lock and then fails with :class:`AudioDeviceError`: a PortAudio call
can block for ever inside a driver, and every later device call would otherwise wait behind it.
Callbacks receive ``(buffer, frames, time_info, status)`` exactly as sounddevice's raw
streams pass them (``time_info`` has ``inputBufferAdcTime``, ``outputBufferDacTime`` and
``currentTime`` in PortAudio stream-clock seconds; ``status`` has ``input_overflow`` and
``output_underflow``).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from app.audio.alsa import silence_alsa_errors
from app.audio.errors import AudioDeviceError, PortAudioMissingError

Direction = Literal["input", "output"]
# (buffer, frames, time_info, status); the buffer is writable for output streams.
StreamCallback = Callable[[Any, int, Any, Any], None]
FinishedCallback = Callable[[], None]


class RawStream(Protocol):
    """The part of ``sounddevice.RawInputStream`` / ``RawOutputStream`` we use."""

    @property
    def latency(self) -> float: ...

    @property
    def active(self) -> bool: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def abort(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class OpenRequest:
    """One attempt to open a stream: device index, format and the callbacks."""

    direction: Direction
    device: int
    rate: int
    channels: int
    blocksize: int
    latency: float | str
    callback: StreamCallback
    finished_callback: FinishedCallback | None = None


class AudioBackend(Protocol):
    def query_devices(self) -> list[dict[str, Any]]:
        """Every device as sounddevice describes it (keys: index, name, hostapi, max_*_channels, default_samplerate)."""
        ...

    def hostapi_names(self) -> list[str]: ...

    def default_index(self, direction: Direction) -> int:
        """Index of the default device for ``direction``; -1 when there is none."""
        ...

    def open(self, request: OpenRequest) -> RawStream:
        """Open (not start) a raw int16 stream; raise :class:`AudioDeviceError` when PortAudio refuses."""
        ...

    def open_stream_count(self) -> int:
        """Streams opened by this backend and not closed yet."""
        ...

    def rescan(self) -> None:
        """Re-enumerate devices (PortAudio re-initialisation); only with no stream open."""
        ...


#: How long a device call waits for the one before it. Seen: ``Pa_StartStream`` on PulseAudio's ALSA plugin never
#: returning after a source was added; without a bound, closing, listing and re-scanning then hung behind it.
LOCK_WAIT_S = 10.0


class SoundDeviceBackend:
    """:class:`AudioBackend` over the real sounddevice module."""

    def __init__(self, sd: Any) -> None:
        self._sd = sd
        self._lock = threading.RLock()
        self._open: weakref.WeakSet[Any] = weakref.WeakSet()

    @contextmanager
    def held(self, what: str) -> Iterator[None]:
        """The backend lock for ``what``, or :class:`AudioDeviceError` when another device call keeps it too long."""
        if not self._lock.acquire(timeout=LOCK_WAIT_S):
            raise AudioDeviceError(
                f"the audio system did not answer: another audio device call has not returned for {LOCK_WAIT_S:.0f} s "
                f"({what} not done); if this goes on, restart Parley"
            )
        try:
            yield
        finally:
            self._lock.release()

    def query_devices(self) -> list[dict[str, Any]]:
        with self.held("listing the devices"):
            try:
                return [dict(d) for d in self._sd.query_devices()]
            except self._sd.PortAudioError as e:
                raise AudioDeviceError(f"PortAudio could not list the audio devices: {e}") from e

    def hostapi_names(self) -> list[str]:
        with self.held("listing the host APIs"):
            try:
                return [str(h["name"]) for h in self._sd.query_hostapis()]
            except self._sd.PortAudioError as e:
                raise AudioDeviceError(f"PortAudio could not list the audio host APIs: {e}") from e

    def default_index(self, direction: Direction) -> int:
        with self.held("finding the default device"):
            try:
                return int(self._sd.query_devices(kind=direction)["index"])
            except (self._sd.PortAudioError, ValueError, KeyError):
                return -1

    def open(self, request: OpenRequest) -> RawStream:
        cls = self._sd.RawInputStream if request.direction == "input" else self._sd.RawOutputStream
        with self.held("opening a stream"):
            try:
                stream = cls(
                    samplerate=request.rate,
                    blocksize=request.blocksize,
                    device=request.device,
                    channels=request.channels,
                    dtype="int16",
                    latency=request.latency,
                    callback=request.callback,
                    finished_callback=request.finished_callback,
                )
            except (self._sd.PortAudioError, ValueError) as e:
                raise AudioDeviceError(str(e)) from e
            self._open.add(stream)
        return _LockedStream(stream, self)

    def open_stream_count(self) -> int:
        return sum(1 for s in list(self._open) if not s.closed)

    def rescan(self) -> None:
        with self.held("re-scanning the devices"):
            if self.open_stream_count():
                raise AudioDeviceError("cannot re-scan audio devices while streams are open; stop capture and playback first")
            self._sd._terminate()
            self._sd._initialize()


class _LockedStream:
    """A sounddevice stream whose control calls take the backend lock; errors become AudioDeviceError."""

    __slots__ = ("_backend", "_s")

    def __init__(self, stream: Any, backend: SoundDeviceBackend) -> None:
        self._s = stream
        self._backend = backend

    @property
    def latency(self) -> float:
        return float(self._s.latency)

    @property
    def active(self) -> bool:
        try:
            return bool(self._s.active)
        except Exception:  # a closed or broken stream is not active
            return False

    def _call(self, name: str) -> None:
        with self._backend.held(f"the stream's {name}"):
            try:
                getattr(self._s, name)()
            except self._backend._sd.PortAudioError as e:
                raise AudioDeviceError(f"{name} failed: {e}") from e

    def start(self) -> None:
        self._call("start")

    def stop(self) -> None:
        self._call("stop")

    def abort(self) -> None:
        self._call("abort")

    def close(self) -> None:
        self._call("close")


_backend: SoundDeviceBackend | None = None
_backend_lock = threading.Lock()


def load_backend() -> SoundDeviceBackend:
    """The process-wide sounddevice backend; raises :class:`PortAudioMissingError` with the fix."""
    global _backend
    with _backend_lock:
        if _backend is None:
            silence_alsa_errors()  # before Pa_Initialize (at import): its device probing already prints
            try:
                import sounddevice
            except OSError as e:  # sounddevice raises OSError when libportaudio cannot be loaded
                raise PortAudioMissingError(e) from e
            except ImportError as e:
                raise PortAudioMissingError(f"the Python package sounddevice is not installed: {e}; run 'pip install sounddevice'") from e
            _backend = SoundDeviceBackend(sounddevice)
        return _backend


def loaded_backend() -> SoundDeviceBackend | None:
    """The backend if sounddevice was already loaded by :func:`load_backend`, else None."""
    return _backend
