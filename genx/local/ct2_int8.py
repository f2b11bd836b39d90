"""CTranslate2 model files with int8 weights: what CTranslate2 computes at load for ``compute_type="int8"``, done once.

A CTranslate2 ``model.bin`` (binary format version 6) holds the model's variables, each with its name, shape, type
and bytes, then aliases (one variable under two names: Whisper's output projection is its token embedding).
:func:`quantize_int8` turns every weight matrix (the ``…/weight`` variables of two or more dimensions: linear layers,
embeddings) of a float16 or float32 model into int8 with one float32 scale per output row, stored as
``…/weight_scale`` (127 over the row's largest magnitude, rounded to nearest even, in float32: CTranslate2's
``quantize_s8``); every other variable keeps its type. Convolutions stay float: CTranslate2 builds with oneDNN (the
PyPI wheels do) run them in float and would dequantize an int8 convolution at load, so quantizing them would only
lose precision (measured: a Whisper base copy with int8 convolutions changed 1 of 8 transcripts). Whisper base:
145 → 76 MB, the same transcripts under the app's ``compute_type = "int8"`` (which quantized the float16 file at
every load) and a faster load.

``python -m genx.local.ct2_int8 SRC_DIR DST_DIR`` writes the int8 copy of a model directory (its other files copied
as they are); the release bundle carries that copy (``packaging/parley.spec``). Never run at app run time.

Does not own: converting other formats to CTranslate2, loading models (:mod:`genx.local.whisper`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from genx.local.models import LocalModelError

BINARY_VERSION = 6  # the version CTranslate2 4.x writes; older files lay variables out differently
# Type ids in the file (CTranslate2's DataType enum order).
_TYPES: tuple[np.dtype[np.generic], ...] = tuple(np.dtype(t) for t in ("float32", "int8", "int16", "int32", "float16"))
_FLOATS = (np.dtype("float32"), np.dtype("float16"))


class Ct2FormatError(LocalModelError):
    """A file that is not a CTranslate2 ``model.bin`` this module can read (truncated, other version, unknown type)."""


@dataclass(slots=True)
class Ct2Model:
    """The contents of one ``model.bin``: variables in file order, then aliases (alias name → variable name)."""

    spec: str
    revision: int
    variables: dict[str, npt.NDArray[np.generic]] = field(default_factory=dict)
    aliases: list[tuple[str, str]] = field(default_factory=list)


class _Reader:
    def __init__(self, data: bytes, path: Path) -> None:
        self.data = data
        self.path = path
        self.at = 0

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise Ct2FormatError(f"{self.path}: truncated at byte {self.at} (wanted {n} more of {len(self.data)})")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def u8(self) -> int:
        return int(self.take(1)[0])

    def u16(self) -> int:
        return int(struct.unpack("<H", self.take(2))[0])

    def u32(self) -> int:
        return int(struct.unpack("<I", self.take(4))[0])

    def string(self) -> str:
        raw = self.take(self.u16())  # the length counts the terminating NUL
        return raw[:-1].decode("utf-8")


def read_model(path: str | Path) -> Ct2Model:
    """Parse ``path``; :class:`Ct2FormatError` when it is not a version-6 CTranslate2 model file."""
    path = Path(path)
    r = _Reader(path.read_bytes(), path)
    version = r.u32()
    if version != BINARY_VERSION:
        raise Ct2FormatError(f"{path}: CTranslate2 binary version {version}; only version {BINARY_VERSION} is supported")
    model = Ct2Model(spec=r.string(), revision=r.u32())
    for _ in range(r.u32()):
        name = r.string()
        shape = tuple(r.u32() for _ in range(r.u8()))
        type_id = r.u8()
        if type_id >= len(_TYPES):
            raise Ct2FormatError(f"{path}: variable {name!r} has type id {type_id}, which this reader does not know")
        raw = r.take(r.u32())
        model.variables[name] = np.frombuffer(raw, dtype=_TYPES[type_id]).reshape(shape)
    model.aliases = [(r.string(), r.string()) for _ in range(r.u32())]
    if r.at != len(r.data):
        raise Ct2FormatError(f"{path}: {len(r.data) - r.at} bytes after the aliases")
    return model


def write_model(model: Ct2Model, path: str | Path) -> None:
    """Write ``model`` to ``path`` in binary version 6, atomically (a temporary file renamed into place)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:

        def string(s: str) -> None:
            raw = s.encode("utf-8") + b"\0"
            f.write(struct.pack("<H", len(raw)) + raw)

        f.write(struct.pack("<I", BINARY_VERSION))
        string(model.spec)
        f.write(struct.pack("<II", model.revision, len(model.variables)))
        for name, value in model.variables.items():
            if value.dtype not in _TYPES:
                raise Ct2FormatError(f"variable {name!r}: type {value.dtype} cannot be stored")
            string(name)
            f.write(struct.pack("<B", value.ndim) + b"".join(struct.pack("<I", d) for d in value.shape))
            raw = np.ascontiguousarray(value).tobytes()
            f.write(struct.pack("<BI", _TYPES.index(value.dtype), len(raw)) + raw)
        f.write(struct.pack("<I", len(model.aliases)))
        for alias, target in model.aliases:
            string(alias)
            string(target)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def quantize_rows(weight: npt.NDArray[np.generic]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """int8 values and one scale per row (the first axis): ``round(w * scale)`` with ``scale = 127 / max |row|``."""
    w = np.asarray(weight, dtype=np.float32).reshape(weight.shape[0], -1)
    amax = np.abs(w).max(axis=1)
    amax[amax == 0] = 127.0  # an all-zero row: scale 1, values 0
    scale = (np.float32(127.0) / np.maximum(amax, np.float32(127.0) / np.finfo(np.float32).max)).astype(np.float32)
    q = np.rint(w * scale[:, None]).astype(np.int8).reshape(weight.shape)
    return q, scale


def quantize_int8(model: Ct2Model) -> Ct2Model:
    """A copy of ``model`` with int8 weight matrices and their row scales; nothing else changes."""
    out = Ct2Model(spec=model.spec, revision=model.revision, aliases=list(model.aliases))
    for name, value in model.variables.items():
        if name.endswith("/weight") and value.ndim >= 2 and value.dtype in _FLOATS and "conv" not in name:
            out.variables[name], out.variables[name + "_scale"] = quantize_rows(value)
        else:
            out.variables[name] = value
    return out


def quantize_dir(src: str | Path, dst: str | Path) -> Path:
    """``dst``: the model directory ``src`` with an int8 ``model.bin`` and its other files copied as they are."""
    src, dst = Path(src), Path(dst)
    if not (src / "model.bin").is_file():
        raise Ct2FormatError(f"{src}: no model.bin (not a CTranslate2 model directory)")
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file() and f.name != "model.bin" and not f.name.startswith("model.bin."):
            shutil.copy2(f, dst / f.name)
    write_model(quantize_int8(read_model(src / "model.bin")), dst / "model.bin")
    return dst


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Write the int8 copy of a CTranslate2 model directory.")
    p.add_argument("src", help="model directory with a float16 or float32 model.bin")
    p.add_argument("dst", help="where to write the copy")
    args = p.parse_args(argv)
    try:
        out = quantize_dir(args.src, args.dst)
    except (OSError, Ct2FormatError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{out / 'model.bin'}: {(out / 'model.bin').stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
