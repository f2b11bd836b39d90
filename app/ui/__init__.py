"""The Qt window (PySide6 + qasync): main window, settings dialog, first-run and about dialogs.

Owns widgets and their wiring to the voice loop's events: :mod:`.main` (the ``parley`` GUI entry point),
:mod:`.app_controller` (life cycle: background loading, clean quit; settings applied live in
:mod:`.live_settings`),
:mod:`.presenter` (loop events → view, window intents → loop commands), :mod:`.main_window` (its view
state and saved geometry in :mod:`.window_view`, the push-to-talk key in :mod:`.ptt_filter`) and
:mod:`.widgets` (the view), :mod:`.settings_dialog` (its pages in :mod:`.settings_pages`, their behaviour in
:mod:`.settings_editors`) / :mod:`.settings_form` (settings, keys in the keyring),
:mod:`.voice_factory` (builds the loop on :mod:`app.voice_session`'s session, or a text-only one),
:mod:`.preflight` (what is not installed), :mod:`.theme`, :mod:`.dialogs`, :mod:`.tray`, :mod:`.diagnostics`
(opt-in lag probe for the bench) and :mod:`.screenshots` (the README pictures).

Does not own the loop, audio devices or models. Importing it imports no model runtime.
"""
