"""A placeholder shown while a part of the app is not built yet: it says what is missing."""

from __future__ import annotations

import sys


def show_missing(what: str, *, headless: bool) -> int:
    msg = f"Parley: {what}."
    if headless:
        print(msg, file=sys.stderr)
        return 2
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication(sys.argv)
    label = QLabel(msg)
    label.setWindowTitle("Parley")
    label.setMargin(24)
    label.show()
    return int(app.exec())
