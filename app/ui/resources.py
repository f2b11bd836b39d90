"""Find bundled assets (icons) whether Parley runs from a checkout, an installed wheel or a PyInstaller bundle.

(``genx.local.models.resource_path`` finds files inside Python packages; ``assets/`` is not one.)
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from PySide6.QtGui import QIcon

_APP_DIR = Path(__file__).resolve().parent.parent


def _candidates(name: str) -> list[Path]:
    out: list[Path] = []
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:
        base = Path(meipass)
        out += [base / "assets" / name, base / "app" / "resources" / name, base / name]
    out += [_APP_DIR / "resources" / name, _APP_DIR.parent / "assets" / name]
    return out


def asset_path(name: str) -> Path | None:
    """The first existing copy of asset ``name`` (e.g. ``"parley.svg"``), or ``None`` when none ships."""
    for p in _candidates(name):
        if p.is_file():
            return p
    return None


@cache
def app_icon() -> QIcon:
    """Parley's window icon (SVG preferred, PNG fallback); an empty icon when neither ships."""
    icon = QIcon()
    for name in ("parley.svg", "parley.png"):
        p = asset_path(name)
        if p is not None:
            icon.addFile(str(p))
    return icon
