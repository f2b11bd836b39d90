"""Parley's log files: a rotating file in the user log dir, secrets redacted before anything is written."""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
from pathlib import Path

import platformdirs

LOG_FILE_NAME = "parley.log"
_FORMAT = "%(asctime)s %(levelname)-7s %(name)s [%(threadName)s] %(message)s"

# Applied in order; each leaves a visible "***" so a log still shows that a secret was there.
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}")
_KEY_VALUE = re.compile(
    r"(?i)\b(api[_-]?key|x-api-key|x-goog-api-key|access[_-]?token|secret|password)([\"']?\s*[:=]\s*[\"']?)(?!\*\*\*)([^\s\"',;}]{6,})"
)
# Key-shaped tokens of common providers (OpenAI sk-/sk-proj-, Anthropic sk-ant-, Groq gsk_, xAI, Google AIza).
_KEY_SHAPE = re.compile(r"\b(sk|pk|rk|gsk|xai|AIza)([-_][A-Za-z0-9_-]{12,}|[A-Za-z0-9_-]{16,})")


def redact(text: str) -> str:
    """``text`` with anything that looks like an API key or token replaced by ``***``."""
    text = _BEARER.sub(r"\1***", text)
    text = _KEY_VALUE.sub(r"\1\2***", text)
    return _KEY_SHAPE.sub(r"\1***", text)


class RedactingFormatter(logging.Formatter):
    """A formatter whose output (message, arguments and traceback) has secrets redacted."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def log_dir() -> Path:
    """Where Parley writes its logs: ``$PARLEY_LOG_DIR`` or ``platformdirs.user_log_path("parley")``."""
    override = os.environ.get("PARLEY_LOG_DIR")
    return Path(override) if override else Path(platformdirs.user_log_path("parley", appauthor=False))


def setup_logging(level: int = logging.INFO, *, directory: Path | None = None, console: bool = True) -> Path:
    """Install a rotating file handler (1 MB x 3) and optionally a stderr handler; returns the log file path.

    Idempotent: handlers installed by an earlier call are replaced, not duplicated. A log directory that
    cannot be written (read-only or missing home) is not fatal: the stderr handler is installed anyway and
    a warning names the directory and ``PARLEY_LOG_DIR``.
    """
    directory = directory or log_dir()
    path = directory / LOG_FILE_NAME
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_parley", False):
            root.removeHandler(h)
            h.close()
    problem = ""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fh = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
    except OSError as e:
        problem = (
            f"cannot write the log file in {directory} ({e.strerror or e}); logging to the terminal only. "
            "Set PARLEY_LOG_DIR to a writable directory"
        )
    else:
        fh.setFormatter(RedactingFormatter(_FORMAT))
        fh._parley = True  # type: ignore[attr-defined]
        root.addHandler(fh)
    if console or problem:
        sh = logging.StreamHandler()
        sh.setFormatter(RedactingFormatter("%(levelname)s %(name)s: %(message)s"))
        sh.setLevel(logging.WARNING)
        sh._parley = True  # type: ignore[attr-defined]
        root.addHandler(sh)
    root.setLevel(level)
    if problem:
        logging.getLogger(__name__).warning(problem)
    return path
