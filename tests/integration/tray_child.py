"""Run by test_tray_x11.py under Xvfb (QT_QPA_PLATFORM=xcb): build the tray for a window, print what Qt saw as JSON."""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.ui.main_window import MainWindow
from app.ui.tray import Tray


def main() -> int:
    app = QApplication(sys.argv)
    w = MainWindow()
    tray = Tray(w)
    out: dict[str, object] = {"available": tray.available()}
    tray.set_enabled(True)
    out["icon"] = tray.icon is not None

    polls = [0]

    def report() -> None:
        polls[0] += 1
        if tray.icon is not None and tray.icon.geometry().width() <= 0 and polls[0] < 100:
            QTimer.singleShot(50, report)  # the tray host has not embedded the icon yet
            return
        if tray.icon is not None:
            tray.set_state("speaking")
            g = tray.icon.geometry()
            out.update(visible=tray.icon.isVisible(), width=g.width(), height=g.height(), tooltip=tray.icon.toolTip())
        print(json.dumps(out), flush=True)
        app.quit()

    QTimer.singleShot(0, report)
    app.exec()
    return 0


if __name__ == "__main__":
    sys.exit(main())
