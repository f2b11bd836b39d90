"""Reading a TOML configuration file into a validated pydantic model.

Shared by :func:`genx.modelloader.load_config` and ``app.settings``; every
failure is a :class:`ConfigError` naming the file and, where known, the key.
Reading never writes: a bad file stays exactly as the user left it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from genx.modelloader.errors import ConfigError, from_validation_error

M = TypeVar("M", bound=BaseModel)


def read_toml(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError("file not found", source=p) from None
    except OSError as e:
        raise ConfigError(f"cannot read the file: {e.strerror or e}", source=p) from e
    return loads_toml(raw, source=p)


def loads_toml(raw: bytes | str, *, source: str | Path | None = None) -> dict[str, Any]:
    """Parse TOML bytes (UTF-8) or text; a failure is a ConfigError naming ``source``."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as e:
        raise ConfigError(f"the file is not UTF-8 text (byte {e.start})", source=source) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"invalid TOML: {e}", source=source) from None


def parse_model(model: type[M], data: Mapping[str, Any], *, source: str | Path | None = None, base_dir: Path | None = None) -> M:
    """Validate ``data`` as ``model``; relative model-file paths resolve against ``base_dir``."""
    try:
        return model.model_validate(dict(data), context={"base_dir": base_dir})
    except ValidationError as e:
        raise from_validation_error(e, source=source, root=model) from None


def load_model(model: type[M], path: str | Path) -> M:
    p = Path(path).expanduser()
    return parse_model(model, read_toml(p), source=p, base_dir=p.resolve().parent)


__all__ = ["load_model", "loads_toml", "parse_model", "read_toml"]
