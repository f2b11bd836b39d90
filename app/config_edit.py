"""Minimal, comment-preserving edits of the settings file (``tomlkit``), on plain JSON-like trees.

A *tree* is what ``Settings.model_dump(mode="json", exclude_none=True)`` gives: dicts, lists and scalars.
Two steps make a save:

* :func:`merge3` decides what the file should say: the file's own values, with exactly the changes the user
  made (``base`` → ``new``) applied on top. A value the user did not touch keeps what the file says, so
  one-off overrides present in ``base`` and ``new`` alike (command-line options) never reach the file, and
  edits made to the file meanwhile survive.
* :func:`patch` edits a parsed document from what it says now to that target, touching only the keys that
  differ: every other line, comment and blank line stays as the user wrote it, and a key that equals what
  the file already yields (a default the user never wrote) stays absent.

Lists of named tables (``[[generators]]``, ``[[voices]]``, ``[asr]``, ``[vad]``) are matched by ``name``.
On disk: :func:`keep_aside` copies an unusable file to ``<name>.bad-<time>`` (a good one that could not be edited in
place to ``<name>.old-<time>``) before anything replaces it, and
:func:`write_atomic` writes through a temporary file, fsync and rename. Qt-free and pydantic-free:
:mod:`app.settings` validates before and after.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import AoT, InlineTable, Table

#: Tables whose keys are free-form (kind options, extra params, headers).
FREE_FORM = frozenset({"options", "extra", "headers"})
#: Top-level tables whose values are tables of their own (``[providers.openai]``).
TABLE_OF_TABLES = frozenset({"providers"})

_MISSING: Any = object()


# -- what the file should say ------------------------------------------------------------------------------
def merge3(file: Any, base: Any, new: Any) -> Any:
    """``file`` with the changes from ``base`` to ``new`` applied (a missing key is :data:`MISSING`)."""
    if base == new:
        return file
    if isinstance(new, dict) and isinstance(base, dict) and isinstance(file, dict):
        out: dict[str, Any] = {}
        for k in [*file, *(k for k in new if k not in file)]:
            v = merge3(file.get(k, _MISSING), base.get(k, _MISSING), new.get(k, _MISSING))
            if v is not _MISSING:
                out[k] = v
        return out
    if _named(new) and _named(base) and _named(file):
        return _merge_named(file, base, new)
    return new


def _merge_named(file: list[dict[str, Any]], base: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    in_base = {e["name"]: e for e in base}
    in_new = {e["name"]: e for e in new}
    in_file = {e["name"] for e in file}
    out: list[dict[str, Any]] = []
    for e in file:
        name = e["name"]
        if name not in in_base:
            out.append(e)  # added to the file meanwhile: not ours to drop
        elif name in in_new:
            out.append(merge3(e, in_base[name], in_new[name]))
        # else: the user removed it
    for name, e in in_new.items():
        if name not in in_file and (name not in in_base or in_base[name] != e):
            out.append(e)  # added by the user (or edited by the user after the file dropped it)
    return out


def _named(v: Any) -> bool:
    if not isinstance(v, list) or not all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in v):
        return False
    names = [e["name"] for e in v]
    return len(set(names)) == len(names)


# -- editing the document ----------------------------------------------------------------------------------
def patch(doc: MutableMapping[str, Any], now: Mapping[str, Any], target: Mapping[str, Any]) -> None:
    """Edit ``doc`` (a tomlkit document that yields the tree ``now``) so that it yields ``target``."""
    _patch_table(doc, now, target, ())


def _patch_table(tbl: MutableMapping[str, Any], now: Mapping[str, Any], target: Mapping[str, Any], path: tuple[str, ...]) -> None:
    for k in [k for k in now if k not in target and k in tbl]:
        del tbl[k]
    for k, v in target.items():
        old = now.get(k, _MISSING)
        if old == v:
            continue
        here = (*path, k)
        cur = tbl[k] if k in tbl else None
        if cur is None and isinstance(v, dict) and not v:
            continue  # an empty table says nothing the absent one does not
        if isinstance(v, dict) and isinstance(old, dict):
            if cur is None:
                cur = tomlkit.table(is_super_table=k in TABLE_OF_TABLES and not path) if _is_table(here) else tomlkit.inline_table()
                tbl[k] = cur
                cur = tbl[k]
            if isinstance(cur, Table | InlineTable):
                _patch_table(cur, old, v, here)
                continue
        if cur is not None and _named(v) and _named(old) and _patch_named(cur, old, v, here):
            continue
        tbl[k] = to_item(v, here)


def _patch_named(cur: Any, old: list[dict[str, Any]], new: list[dict[str, Any]], path: tuple[str, ...]) -> bool:
    """Edit an array of tables element by element; False when it must be replaced as a whole."""
    if isinstance(cur, Table):  # [asr] written as one table
        if len(old) == 1 and len(new) == 1 and old[0]["name"] == new[0]["name"]:
            _patch_table(cur, old[0], new[0], path)
            return True
        return False
    if not isinstance(cur, AoT) or len(cur) != len(old):
        return False
    index = {e["name"]: i for i, e in enumerate(old)}
    kept = [e["name"] for e in new if e["name"] in index]
    if kept != [e["name"] for e in old if e["name"] in kept] or [e["name"] for e in new[: len(kept)]] != kept:
        return False  # reordered, or added between rows: rewrite the list
    rows = {e["name"]: cur[i] for i, e in enumerate(old)}
    for i in sorted((index[n] for n in index if n not in kept), reverse=True):
        del cur[i]
    for e in new:
        name = e["name"]
        if name in rows and name in kept:
            _patch_table(rows[name], old[index[name]], e, path)
        else:
            cur.append(_table(e, path, inline_children=True))
    return True


# -- building items ----------------------------------------------------------------------------------------
def to_item(value: Any, path: tuple[str, ...]) -> Any:
    """A tomlkit item for ``value`` written at ``path``: sections and array-of-table rows as tables,
    smaller tables inline (as in ``default_config.toml``); empty tables (defaults) are left out."""
    if isinstance(value, dict):
        if _is_table(path):
            return _table(value, path, inline_children=len(path) > 1 or path[0] not in TABLE_OF_TABLES)
        return _inline(value, free=path[-1] in FREE_FORM)
    if isinstance(value, list) and value and all(isinstance(e, dict) for e in value) and len(path) == 1:
        aot = tomlkit.aot()
        for e in value:
            aot.append(_table(e, path, inline_children=True))
        return aot
    if isinstance(value, list):
        arr = tomlkit.array()
        arr.extend(to_item(e, (*path, "[]")) for e in value)
        return arr
    return tomlkit.item(value)


def _is_table(path: tuple[str, ...]) -> bool:
    return len(path) == 1 or (len(path) == 2 and path[0] in TABLE_OF_TABLES)


def _table(value: Mapping[str, Any], path: tuple[str, ...], *, inline_children: bool) -> Table:
    t = tomlkit.table(is_super_table=not inline_children and len(path) == 1)
    for k, v in _without_empty(value.items(), path[-1] in FREE_FORM):
        t[k] = _inline(v, free=k in FREE_FORM) if inline_children and isinstance(v, dict) else to_item(v, (*path, k))
    t.add(tomlkit.nl())
    return t


def _inline(value: Mapping[str, Any], *, free: bool) -> InlineTable:
    t = tomlkit.inline_table()
    for k, v in _without_empty(value.items(), free):
        t[k] = _inline(v, free=free or k in FREE_FORM) if isinstance(v, dict) else to_item(v, ("", k))
    return t


def _without_empty(items: Iterable[tuple[str, Any]], free: bool) -> Iterable[tuple[str, Any]]:
    # Empty schema tables equal their defaults (options = {}, params = {}); inside free-form tables
    # everything is copied as written. Empty lists are kept (voices = [] means "no voices").
    return ((k, v) for k, v in items if free or not (isinstance(v, dict) and not v))


def new_document(header: str) -> tomlkit.TOMLDocument:
    doc = tomlkit.document()
    for line in header.splitlines():
        doc.add(tomlkit.comment(line.removeprefix("# ")) if line else tomlkit.nl())
    doc.add(tomlkit.nl())
    return doc


# -- the file on disk --------------------------------------------------------------------------------------
def keep_aside(p: Path, raw: bytes, tag: str = "bad") -> Path:
    """Copy ``raw`` (the file as read) to ``<name>.<tag>-<time>``, never replacing an earlier copy; fsync'd."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1000):
        aside = p.with_name(f"{p.name}.{tag}-{stamp}" + (f"-{n}" if n else ""))
        try:
            fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        return aside
    raise FileExistsError(f"cannot keep {p} aside: too many {p.name}.{tag}-{stamp}* files")


MISSING = _MISSING

__all__ = ["FREE_FORM", "MISSING", "keep_aside", "merge3", "new_document", "patch", "to_item"]
