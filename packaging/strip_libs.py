"""Strip the shared libraries of a bundle (``strip --strip-unneeded``, as Debian does) without breaking any.

Some wheels ship libraries with debug info (CTranslate2's binding: 68 MB → 1 MB). But libraries that
auditwheel rewrote with patchelf can come out of ``strip`` with a PT_LOAD segment whose address and file
offset disagree modulo the page size, which the dynamic loader refuses ("ELF load command address/offset
not page-aligned"). So every library is stripped into a copy, the copy's LOAD segments are checked with
``readelf -lW`` for exactly the loader's condition, and only a valid, smaller copy replaces the original.

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


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if shutil.which("strip") is None or shutil.which("readelf") is None:
        print("strip/readelf not found (binutils): libraries left as they are", file=sys.stderr)
        return 0
    bundle = Path(sys.argv[1]) / "_internal"
    stripped, kept, before, after = strip_bundle(bundle)
    print(
        f"stripped {stripped} libraries ({before / 1e6:.0f} → {after / 1e6:.0f} MB); "
        f"{kept} left as they are because stripping would break their load segments"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
