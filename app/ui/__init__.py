"""The Qt window (PySide6 + qasync): main window, settings dialog, first-run and about dialogs.

Owns widgets and their wiring to the voice loop's events. Does not own the loop,
audio devices or models.
"""
