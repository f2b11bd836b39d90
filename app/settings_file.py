"""The settings file: where it is, loading it, and saving by editing it in place (part of :mod:`app.settings`)."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import platformdirs
import tomlkit
from tomlkit.exceptions import TOMLKitError

from app import config_edit
from app.settings_model import Settings
from app.settings_sections import DEPRECATED_KEYS
from genx.files import write_atomic
from genx.modelloader import ConfigError, load_model, loads_toml, parse_model

log = logging.getLogger("app.settings")

APP_NAME = "parley"
ENV_CONFIG = "PARLEY_CONFIG"


def config_path(path: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None) -> Path:
    """Where the settings live: ``path``, else ``$PARLEY_CONFIG``, else the user config dir."""
    if path is not None:
        return Path(path).expanduser()
    env = os.environ if environ is None else environ
    override = env.get(ENV_CONFIG)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def load_settings(path: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None) -> Settings:
    """The settings in the file, or the defaults when there is no file. Bad file → ConfigError (file untouched)."""
    p = config_path(path, environ=environ)
    if not p.exists():
        return Settings()
    settings = load_model(Settings, p)
    for note in settings.notes:
        log.warning("%s: %s", p, note)
    return settings


def load_or_defaults(
    path: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> tuple[Settings, ConfigError | None]:
    """Like :func:`load_settings`, but a bad file gives the defaults plus the error to show the user."""
    try:
        return load_settings(path, environ=environ), None
    except ConfigError as e:
        return Settings(), e


HEADER = (
    "# Parley settings. Parley writes only what you change here and keeps your comments;\n"
    "# every key and its default is explained in default_config.toml (app/default_config.toml).\n"
)


def dumps(settings: Settings) -> str:
    """The whole of ``settings`` as TOML (app sections first): secret references only, unset values omitted."""
    doc = config_edit.new_document(HEADER)
    config_edit.patch(doc, {}, _tree(settings))
    return tomlkit.dumps(doc)


@dataclass(frozen=True, slots=True)
class Saved:
    """What :func:`save` did: the file written, the previous file kept aside (if any), removed keys dropped."""

    path: Path
    kept_aside: Path | None = None
    dropped: tuple[str, ...] = ()
    rewritten: bool = False  # a good file that could not be edited in place: written afresh, the old one kept

    @property
    def message(self) -> str:
        """What to tell the user ("" when nothing needs saying)."""
        parts: list[str] = []
        if self.rewritten and self.kept_aside is not None:
            parts.append(
                f"Parley could not edit {self.path} in place, so it wrote your settings afresh; the previous file, "
                f"with its comments, is kept as {self.kept_aside}."
            )
        elif self.kept_aside is not None:
            parts.append(
                f"The settings file {self.path} had errors, so Parley did not overwrite it: it is kept as {self.kept_aside}. "
                "The new file holds the settings you just saved; copy anything else you need from the old one."
            )
        if self.dropped:
            parts.append(f"Removed keys Parley no longer reads: {', '.join(self.dropped)}.")
        return "\n\n".join(parts)


def save(
    settings: Settings,
    path: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    base: Settings | None = None,
) -> Saved:
    """Make the file say ``settings`` where they differ from ``base`` (what the user was shown; default: the file).

    Edits the file in place (comments, layout and untouched keys stay), drops removed keys (moving their value
    where it now belongs), keeps an unusable file aside as ``<name>.bad-<time>`` instead of overwriting it, and
    writes atomically (temporary file in the same directory, fsync, rename). Raises OSError when it cannot
    write, ConfigError when the merged result would not load.
    """
    p = config_path(path, environ=environ)
    try:
        raw: bytes | None = p.read_bytes()
    except FileNotFoundError:
        raw = None
    on_file, doc, bad = Settings(), None, False
    if raw is not None:
        try:
            on_file = _parse(raw, p)
            doc = tomlkit.parse(raw.decode("utf-8"))
        except (ConfigError, TOMLKitError, UnicodeDecodeError) as e:
            log.warning("settings file %s cannot be used (%s); keeping it aside before saving", p, e)
            bad = True
    now = on_file if doc is not None else Settings()  # what the document yields before the edit
    if doc is None:
        doc = config_edit.new_document(HEADER)
    dropped = tuple(f"{t}.{k}" for t, k in DEPRECATED_KEYS if _drop(doc, t, k))
    if dropped:
        now = _parse(tomlkit.dumps(doc), p)
    target = config_edit.merge3(_tree(on_file), _tree(base if base is not None else on_file), _tree(settings))
    text, afresh = _render(doc, _tree(now), target, p)
    kept = config_edit.keep_aside(p, raw, "bad" if bad else "old") if raw is not None and (bad or afresh) else None
    write_atomic(p, text)
    return Saved(p, kept, dropped, rewritten=afresh and not bad)


def default_config_text() -> str:
    """The commented example file shipped with the app (equal to the defaults)."""
    return resources.files("app").joinpath("default_config.toml").read_text(encoding="utf-8")


_APP_SECTIONS = ("audio", "loop", "ui", "memory")


def _tree(settings: Settings) -> dict[str, Any]:
    """The settings as plain data (TOML has no null: unset values are left out), app sections first."""
    data = settings.model_dump(mode="json", exclude_none=True)
    return {k: data[k] for k in (*_APP_SECTIONS, *(k for k in data if k not in _APP_SECTIONS)) if k in data}


def _parse(raw: bytes | str, p: Path) -> Settings:
    return parse_model(Settings, loads_toml(raw, source=p), source=p, base_dir=p.resolve().parent)


def _drop(doc: Any, table: str, key: str) -> bool:
    t = doc.get(table)
    if isinstance(t, MutableMapping) and key in t:
        del t[key]
        return True
    return False


def _render(doc: Any, now: dict[str, Any], target: dict[str, Any], p: Path) -> tuple[str, bool]:
    """The edited document's text, checked to load as ``target``; True when it had to be written afresh."""
    try:
        config_edit.patch(doc, now, target)
        text: str = tomlkit.dumps(doc)
        if _tree(_parse(text, p)) == target:
            return text, False
    except (ConfigError, TOMLKitError, ValueError, TypeError, KeyError) as e:
        log.error("editing %s in place failed: %s", p, e)
    # Not expected: an edit the patcher could not express. Nothing may be lost: the settings are written
    # afresh (only what differs from the defaults) and the caller keeps the previous file aside.
    log.error("editing %s in place did not give the saved settings; writing it afresh", p)
    fresh = config_edit.new_document(HEADER)
    config_edit.patch(fresh, _tree(Settings()), target)
    text = tomlkit.dumps(fresh)
    _parse(text, p)  # ConfigError when the merged settings themselves do not load
    return text, True
