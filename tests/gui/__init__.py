"""GUI tests (pytest-qt, offscreen): the window, its dialogs and its wiring to the voice loop."""
