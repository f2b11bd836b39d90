"""Parley's settings file: the genx model configuration plus the app's own sections.

One TOML file (``config_path()``: the ``path`` argument, else ``$PARLEY_CONFIG``,
else ``platformdirs.user_config_path("parley") / "config.toml"``) holds

* the genx model configuration (:class:`genx.modelloader.ModelConfig`:
  ``[providers.*]``, ``[[generators]]``, ``[[voices]]``, ``[asr]``, ``[vad]``),
* ``[audio]`` devices, ``[loop]`` turn taking, ``[ui]`` window options, ``[memory]`` long-term memory.

A missing file means the defaults: the offline stack (SmolLM2 through
llama.cpp, Whisper tiny.en, the Piper voice "joe", WebRTC VAD), all shipped by
PyPI packages. ``app/default_config.toml`` is the same defaults written out
with comments.

Errors: malformed TOML, unknown keys and wrong types raise
:class:`~genx.modelloader.ConfigError` naming the file, the key path and what
is expected. Loading never writes, so a bad file survives for the user to fix;
:func:`load_or_defaults` is the "fall back to defaults and tell the user" path.
Keys that were removed (:data:`DEPRECATED_KEYS`) still load, with a note in
:attr:`Settings.notes` naming what replaced them.

:func:`save` writes atomically and only ever writes secret *references*. It
edits the file rather than rewriting it (:mod:`app.config_edit`): only the keys
the user changed are written, comments and layout stay, defaults the user never
wrote stay absent, and values only overridden for this run (``base``: what the
user was shown, e.g. with ``--mode``) are never written. A file that cannot be
used is never overwritten: it is kept as ``config.toml.bad-<time>`` first
(:attr:`Saved.kept_aside`).

Split by concern: :mod:`app.settings_sections` (the app's ``[audio]``, ``[loop]``, ``[ui]``, ``[memory]``
tables), :mod:`app.settings_model` (:class:`Settings`, the default stack, the per-run derived settings) and
:mod:`app.settings_file` (path, loading, saving). This module is the public face: import from here.
"""

from __future__ import annotations

from app.settings_file import (
    APP_NAME,
    ENV_CONFIG,
    HEADER,
    Saved,
    config_path,
    default_config_text,
    dumps,
    load_or_defaults,
    load_settings,
    save,
)
from app.settings_model import (
    Settings,
    default_asr,
    default_generators,
    default_vad,
    default_voices,
    with_generator_prompts,
    with_overrides,
)
from app.settings_sections import (
    DEPRECATED_KEYS,
    AudioSettings,
    DeviceRef,
    LoopSettings,
    MemorySettings,
    UiSettings,
)
from genx.prompts import DEFAULT_SYSTEM_PROMPT

__all__ = [
    "APP_NAME",
    "DEFAULT_SYSTEM_PROMPT",
    "DEPRECATED_KEYS",
    "ENV_CONFIG",
    "HEADER",
    "AudioSettings",
    "DeviceRef",
    "LoopSettings",
    "MemorySettings",
    "Saved",
    "Settings",
    "UiSettings",
    "config_path",
    "default_asr",
    "default_config_text",
    "default_generators",
    "default_vad",
    "default_voices",
    "dumps",
    "load_or_defaults",
    "load_settings",
    "save",
    "with_generator_prompts",
    "with_overrides",
]
