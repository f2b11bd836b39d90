"""Keeping libasound's own error messages off the user's terminal.

ALSA prints every error it recovers from (``ALSA lib pcm.c:…(snd_pcm_recover) underrun
occurred``, unknown PCMs probed while PortAudio enumerates devices) straight to stderr through
its default error handler. Parley reports what matters in its own words (the player's underrun
events, the device errors), so :func:`silence_alsa_errors` installs a handler that drops those
lines and only counts them. It runs once, before PortAudio initialises
(:func:`app.audio.backend.load_backend`). ``PARLEY_ALSA_DEBUG=1`` keeps ALSA's messages.

Does not own PortAudio or any device handling; on systems without libasound it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys
import threading

log = logging.getLogger(__name__)

# void (*snd_lib_error_handler_t)(const char *file, int line, const char *function, int err, const char *fmt, ...)
# The variadic tail is never read: on the Linux ABIs the fixed arguments arrive as for a plain call.
_HANDLER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p)

_lock = threading.Lock()
_installed: object | None = None  # the ctypes callback; kept alive as long as libasound may call it
_suppressed = 0


def _drop(file: bytes | None, line: int, function: bytes | None, err: int, fmt: bytes | None) -> None:
    global _suppressed
    _suppressed += 1  # no logging here: this runs on PortAudio's real-time thread


def suppressed_count() -> int:
    """How many ALSA error messages were kept off stderr so far."""
    return _suppressed


def silence_alsa_errors() -> bool:
    """Install the quiet ALSA error handler (once per process); True when it is in place."""
    global _installed
    with _lock:
        if _installed is not None:
            return True
        if not sys.platform.startswith("linux") or os.environ.get("PARLEY_ALSA_DEBUG") == "1":
            return False
        name = ctypes.util.find_library("asound") or "libasound.so.2"
        try:
            lib = ctypes.CDLL(name)
            set_handler = lib.snd_lib_error_set_handler
        except (OSError, AttributeError) as e:
            log.debug("libasound not available (%s); ALSA messages are not silenced", e)
            return False
        set_handler.argtypes = [_HANDLER_TYPE]
        set_handler.restype = ctypes.c_int
        handler = _HANDLER_TYPE(_drop)
        if set_handler(handler) != 0:
            log.debug("snd_lib_error_set_handler refused the handler")
            return False
        _installed = handler
        return True


__all__ = ["silence_alsa_errors", "suppressed_count"]
