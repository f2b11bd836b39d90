"""Strip the shared libraries of a bundle (``strip --strip-unneeded``, as Debian does) without breaking any.

Some wheels ship libraries with debug info (CTranslate2's binding: 68 MB → 1 MB). But libraries that
auditwheel rewrote with patchelf can come out of ``strip`` with a PT_LOAD segment whose address and file
offset disagree modulo the page size, which the dynamic loader refuses ("ELF load command address/offset
not page-aligned"). So every library is stripped into a copy, the copy's LOAD segments are checked with
``readelf -lW`` for exactly the loader's condition, and only a valid, smaller copy replaces the original.

Then the CUDA kernels are blanked: CTranslate2's wheel is built with CUDA, and its library carries its GPU
kernels in a ``.nv_fatbin`` section (15 MB, 6 MB of the xz'd download). Parley runs its local models on the
CPU only (``genx.local.models`` refuses any other ``device``), so no CUDA context is ever created and no kernel
loaded. The section is allocated (inside a LOAD segment), so it cannot be removed without moving what follows:
its bytes are overwritten with zeros in place, which keeps every address and the file's layout (the
installed size stays, the compressed download shrinks). The CUDA runtime reads a fatbin only to load its
kernels into a context, which Parley never creates: with the section zeroed the library loads, reports its
CUDA device count, and Whisper decodes on the CPU as before (the bundle's self-test).

Usage: ``python strip_libs.py BUNDLE_DIR`` (prints one summary line). Never touches the executable, whose
archive is appended to it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

_LOAD = re.compile(r"^\s*LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+\S+\s+0x([0-9a-f]+)", re.I | re.M)
MAX_PAGE = 65536  # the largest page size a Linux target may use (aarch64 64K); 4K pages then hold too
_SECTION = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)\s", re.I | re.M)
GPU_CODE = frozenset({".nv_fatbin"})  # CUDA fat binaries (kernels), never run: Parley's models run on the CPU


def is_elf(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4) == b"\x7fELF"


def loads_ok(path: Path) -> bool:
    """True when every PT_LOAD has (vaddr - offset) divisible by its alignment (the loader's rule)."""
    out = subprocess.run(["readelf", "-lW", str(path)], capture_output=True, text=True, check=False).stdout
    segments = _LOAD.findall(out)
    if not segments:
        return False
    for offset, vaddr, align in segments:
        a = min(int(align, 16), MAX_PAGE) or 1
        if (int(vaddr, 16) - int(offset, 16)) % a:
            return False
    return True


def strip_bundle(bundle: Path) -> tuple[int, int, int, int]:
    """(stripped, kept because stripping would break them, bytes before, bytes after)."""
    stripped = kept = 0
    before = after = 0
    with tempfile.TemporaryDirectory(prefix="parley-strip-") as tmp:
        for path in sorted(bundle.rglob("*.so*")):
            if path.is_symlink() or not path.is_file() or not is_elf(path):
                continue
            size = path.stat().st_size
            before += size
            copy = Path(tmp) / "lib.so"
            shutil.copy2(path, copy)
            ok = subprocess.run(["strip", "--strip-unneeded", str(copy)], capture_output=True, check=False).returncode == 0
            new = copy.stat().st_size
            if ok and new < size and loads_ok(copy):
                os.replace(copy, path)
                stripped += 1
                after += new
            else:
                if ok and new < size:
                    kept += 1
                after += size
    return stripped, kept, before, after


def blank_gpu_code(bundle: Path) -> tuple[int, int]:
    """Zero the CUDA kernel sections of the bundle's libraries in place: (libraries changed, bytes zeroed)."""
    changed = zeroed = 0
    for path in sorted(bundle.rglob("*.so*")):
        if path.is_symlink() or not path.is_file() or not is_elf(path):
            continue
        out = subprocess.run(["readelf", "-SW", str(path)], capture_output=True, text=True, check=False).stdout
        spans = [
            (int(off, 16), int(size, 16)) for name, kind, off, size in _SECTION.findall(out) if name in GPU_CODE and kind == "PROGBITS"
        ]
        spans = [(off, size) for off, size in spans if size and off + size <= path.stat().st_size]
        if not spans:
            continue
        with path.open("r+b") as f:
            for off, size in spans:
                f.seek(off)
                f.write(bytes(size))
                zeroed += size
        changed += 1
    return changed, zeroed


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if shutil.which("strip") is None or shutil.which("readelf") is None:
        print("strip/readelf not found (binutils): libraries left as they are", file=sys.stderr)
        return 0
    bundle = Path(sys.argv[1]) / "_internal"
    stripped, kept, before, after = strip_bundle(bundle)
    blanked, zeroed = blank_gpu_code(bundle)
    print(
        f"stripped {stripped} libraries ({before / 1e6:.0f} → {after / 1e6:.0f} MB); "
        f"{kept} left as they are because stripping would break their load segments; "
        f"CUDA kernels zeroed in {blanked} ({zeroed / 1e6:.0f} MB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
