"""Conversation store: one JSON Lines file per conversation, one line per finished turn.

Layout: ``<root>/<conversation_id>.jsonl`` where ``root`` defaults to
``platformdirs.user_data_path("parley") / "conversations"``. Every line is one
:class:`TurnRecord` as a JSON object (``"v": 1``). Each append is flushed and
fsynced before it returns, so a crash loses at most the turn in progress; a torn
last line (crash mid-write) is terminated before the next append so it never
corrupts the following record.

Loading skips lines that are not valid records, logging a warning that names the
file and line number. Methods block on file I/O: call them from a worker thread
(``asyncio.to_thread``) when on the event loop.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from genx.errors import GenxError

log = logging.getLogger("genx.agentkit.store")

_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
RECORD_VERSION = 1


class ConversationStoreError(GenxError):
    """The conversation directory or file cannot be used."""


@dataclass(slots=True)
class TurnRecord:
    """One finished exchange.

    ``assistant_text`` is what the history keeps: the spoken text when
    ``interrupted``, else the whole answer. ``generated_text`` is everything the
    model produced (for the record; never fed back when interrupted).
    ``timings`` holds the per-turn metrics (seconds / milliseconds, see
    :class:`~genx.agentkit.events.TurnMetrics`).
    """

    turn_id: str
    user_text: str
    assistant_text: str
    interrupted: bool = False
    generated_text: str = ""
    typed: bool = False
    error: str = ""
    generator: str = ""
    started_at: float = 0.0  # wall clock (epoch seconds)
    timings: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        d = asdict(self)
        d["v"] = RECORD_VERSION
        return json.dumps(d, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> TurnRecord:
        """Parse one line; ``ValueError`` names what is wrong."""
        d = json.loads(line)
        if not isinstance(d, dict):
            raise ValueError("not a JSON object")
        for key in ("turn_id", "user_text", "assistant_text"):
            if not isinstance(d.get(key), str):
                raise ValueError(f"missing or non-string {key!r}")
        timings = d.get("timings") or {}
        if not isinstance(timings, dict):
            raise ValueError("'timings' is not an object")
        return cls(
            turn_id=d["turn_id"],
            user_text=d["user_text"],
            assistant_text=d["assistant_text"],
            interrupted=bool(d.get("interrupted", False)),
            generated_text=str(d.get("generated_text", "")),
            typed=bool(d.get("typed", False)),
            error=str(d.get("error", "")),
            generator=str(d.get("generator", "")),
            started_at=float(d.get("started_at", 0.0)),
            timings=timings,
        )


@dataclass(slots=True, frozen=True)
class ConversationInfo:
    """For a conversation list: ``title`` is the start of the first user text."""

    conversation_id: str
    title: str
    mtime: float
    path: Path


def default_root() -> Path:
    import platformdirs

    return platformdirs.user_data_path("parley") / "conversations"


def new_conversation_id(now: float | None = None) -> str:
    """Sortable and unique: ``20250101-120000-3fa9c2``."""
    t = time.localtime(time.time() if now is None else now)
    return time.strftime("%Y%m%d-%H%M%S", t) + "-" + secrets.token_hex(3)


class ConversationStore:
    """Append-only JSONL files under ``root`` (created on first write)."""

    __slots__ = ("_checked", "root", "title_chars")

    def __init__(self, root: Path | str | None = None, *, title_chars: int = 60) -> None:
        self.root = Path(root) if root is not None else default_root()
        self.title_chars = title_chars
        self._checked: set[str] = set()  # files whose tail was checked for a torn line

    def path(self, conversation_id: str) -> Path:
        if not _ID_RE.match(conversation_id):
            raise ConversationStoreError(
                f"invalid conversation id {conversation_id!r}: use letters, digits, '-', '_' or '.' (at most 128 characters)"
            )
        return self.root / f"{conversation_id}.jsonl"

    def append(self, conversation_id: str, record: TurnRecord) -> None:
        """Append one turn and fsync it."""
        p = self.path(conversation_id)
        line = record.to_json() + "\n"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with open(p, "ab") as f:
                if conversation_id not in self._checked:
                    self._checked.add(conversation_id)
                    if f.tell() > 0 and _last_byte(p) != b"\n":
                        f.write(b"\n")  # terminate a torn line left by a crash
                f.write(line.encode("utf-8"))
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            raise ConversationStoreError(f"cannot write conversation file {p}: {e.strerror or e}; check disk space and permissions") from e

    def load(self, conversation_id: str) -> list[TurnRecord]:
        """The turns of a conversation, skipping (and logging) corrupt lines. Missing file → []."""
        return self.load_with_errors(conversation_id)[0]

    def load_with_errors(self, conversation_id: str) -> tuple[list[TurnRecord], list[str]]:
        """Like :meth:`load`, also returning one message per skipped line."""
        p = self.path(conversation_id)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            return [], []
        except OSError as e:
            raise ConversationStoreError(f"cannot read conversation file {p}: {e.strerror or e}") from e
        records: list[TurnRecord] = []
        problems: list[str] = []
        for lineno, bline in enumerate(raw.split(b"\n"), start=1):
            if not bline.strip():
                continue
            try:
                records.append(TurnRecord.from_json(bline.decode("utf-8")))
            except (ValueError, UnicodeDecodeError, TypeError) as e:
                msg = f"{p}:{lineno}: skipped a corrupt line ({e})"
                log.warning("%s", msg)
                problems.append(msg)
        return records, problems

    def list_conversations(self) -> list[ConversationInfo]:
        """Conversations, most recently changed first."""
        try:
            paths = [p for p in self.root.glob("*.jsonl") if p.is_file()]
        except OSError:
            return []
        out: list[ConversationInfo] = []
        for p in paths:
            try:
                mtime = p.stat().st_mtime
            except OSError:
                continue
            out.append(ConversationInfo(p.stem, self._title(p), mtime, p))
        out.sort(key=lambda c: (c.mtime, c.conversation_id), reverse=True)
        return out

    def delete(self, conversation_id: str) -> None:
        self.path(conversation_id).unlink(missing_ok=True)
        self._checked.discard(conversation_id)

    def _title(self, p: Path) -> str:
        try:
            with open(p, "rb") as f:
                for bline in f:
                    try:
                        rec = TurnRecord.from_json(bline.decode("utf-8"))
                    except (ValueError, UnicodeDecodeError, TypeError):
                        continue
                    text = " ".join(rec.user_text.split())
                    if text:
                        return text if len(text) <= self.title_chars else text[: self.title_chars - 1].rstrip() + "…"
        except OSError:
            pass
        return ""


def _last_byte(p: Path) -> bytes:
    with open(p, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1)


__all__ = ["ConversationInfo", "ConversationStore", "ConversationStoreError", "TurnRecord", "default_root", "new_conversation_id"]
