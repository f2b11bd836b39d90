"""Parley, the desktop application.

Owns: the command line (``parley``), the Qt window (``app.ui``, PySide6 + qasync),
user settings and their file (``app.settings``; parts in ``settings_sections``,
``settings_model``, ``settings_file``), audio devices through
sounddevice/PortAudio (``app.audio``, with ``parley --list-devices``), the terminal
session (``app.headless``, ``app.terminal``; the stack and the device session it runs,
``app.voice_stack`` and ``app.voice_session``, the window shares), the single-instance lock, the self-test
and packaging entry points.

Does not own: streams, models, providers or the voice loop logic: those are in
``genx``, which never imports ``app``.
"""

__version__ = "0.1.0"
