"""Conversation store: one JSON Lines file per conversation, one line per finished turn.

Layout: ``<root>/<conversation_id>.jsonl`` where ``root`` defaults to
``platformdirs.user_data_path("parley") / "conversations"`` (created 0700; files
0600, and the directory is fsynced when a file is created). Every line is one
:class:`TurnRecord` as a JSON object (``"v": 1``).

Writing: each record is one ``os.write`` on an ``O_APPEND`` descriptor, then
fsynced, so a crash loses at most the turn in progress. Before *every* append the
file's last byte is checked: a torn last line (a crash or a failed write) is
terminated in the same write, so it never swallows the following record. A write
that fails (disk full, I/O error) is undone where possible (the file is truncated
back) and the record is *kept*: it is retried, in order, before the next record
of that conversation and by :meth:`ConversationStore.flush`. Nothing is dropped.

Loading skips lines that are not valid records (strictly typed, see
:mod:`.records`: ``"interrupted": "false"`` is not a record), logging a warning that names the file and line
number; a line repeating the record just before it (a retried write whose first
attempt did land) is loaded once. :func:`next_turn_seq` tells a loop continuing a
conversation where its turn ids ``t1, t2, …`` go on. Methods block on file I/O:
call them from a worker thread (``asyncio.to_thread``) when on the event loop.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from genx.agentkit.records import TurnRecord, next_turn_seq
from genx.errors import GenxError

log = logging.getLogger("genx.agentkit.store")

_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
DIR_MODE = 0o700
FILE_MODE = 0o600


class ConversationStoreError(GenxError):
    """The conversation directory or file cannot be used."""


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
    """Append-only JSONL files under ``root`` (created on first write). Thread-safe."""

    __slots__ = ("_lock", "_pending", "root", "title_chars")

    def __init__(self, root: Path | str | None = None, *, title_chars: int = 60) -> None:
        self.root = Path(root) if root is not None else default_root()
        self.title_chars = title_chars
        self._lock = threading.Lock()
        self._pending: dict[str, list[bytes]] = {}  # conversation id → encoded records not yet written, in order

    def path(self, conversation_id: str) -> Path:
        if not _ID_RE.match(conversation_id):
            raise ConversationStoreError(
                f"invalid conversation id {conversation_id!r}: use letters, digits, '-', '_' or '.' (at most 128 characters)"
            )
        return self.root / f"{conversation_id}.jsonl"

    def append(self, conversation_id: str, record: TurnRecord) -> None:
        """Append one turn and fsync it, after any earlier records of this conversation that failed to write.

        On failure :class:`ConversationStoreError` is raised and the record is kept
        for the next :meth:`append` or :meth:`flush`; records of other conversations
        that are still pending are retried too (quietly).
        """
        p = self.path(conversation_id)
        try:
            line = (record.to_json() + "\n").encode("utf-8")
        except (TypeError, ValueError) as e:
            raise ConversationStoreError(f"cannot encode turn {record.turn_id!r} for {p}: {e}") from e
        with self._lock:
            self._pending.setdefault(conversation_id, []).append(line)
            self._write_pending(conversation_id)
            for other in [c for c in self._pending if c != conversation_id]:
                try:
                    self._write_pending(other)
                except ConversationStoreError as e:
                    log.warning("%s", e)

    def flush(self) -> None:
        """Write every pending record (each conversation's in order); raise the first failure, keeping what is left."""
        with self._lock:
            first: ConversationStoreError | None = None
            for cid in list(self._pending):
                try:
                    self._write_pending(cid)
                except ConversationStoreError as e:
                    first = first or e
            if first is not None:
                raise first

    def pending(self, conversation_id: str | None = None) -> int:
        """How many records wait to be written (for one conversation, or all)."""
        with self._lock:
            if conversation_id is not None:
                return len(self._pending.get(conversation_id, ()))
            return sum(len(v) for v in self._pending.values())

    def _write_pending(self, conversation_id: str) -> None:
        lines = self._pending.get(conversation_id)
        if not lines:
            self._pending.pop(conversation_id, None)
            return
        p = self.path(conversation_id)
        try:
            self._ensure_root()
            fd = self._open_append(p)
            try:
                while lines:
                    _append_record(fd, lines[0])
                    del lines[0]
            finally:
                os.close(fd)
        except OSError as e:
            n = len(lines)
            kept = f"; {n} turn{'s' if n != 1 else ''} kept, to be retried" if n else ""
            raise ConversationStoreError(
                f"cannot write conversation file {p}: {e.strerror or e}{kept}; check disk space and permissions"
            ) from e
        del self._pending[conversation_id]

    def _ensure_root(self) -> None:
        if self.root.is_dir():
            return
        self.root.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        _fsync_dir(self.root.parent)

    def _open_append(self, p: Path) -> int:
        """An ``O_APPEND`` descriptor; a new file is created 0600 and its directory fsynced."""
        flags = os.O_RDWR | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)  # read too: the tail check
        try:
            return os.open(p, flags)
        except FileNotFoundError:
            pass
        try:
            fd = os.open(p, flags | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:  # created meanwhile by another writer
            return os.open(p, flags)
        try:
            _fsync_dir(p.parent)
        except OSError:
            os.close(fd)
            raise
        return fd

    def load(self, conversation_id: str) -> list[TurnRecord]:
        """The turns of a conversation, skipping (and logging) corrupt lines. Missing file (and nothing pending) → []."""
        return self.load_with_errors(conversation_id)[0]

    def load_with_errors(self, conversation_id: str) -> tuple[list[TurnRecord], list[str]]:
        """Like :meth:`load`, also returning one message per skipped line.

        Records still waiting to be written (:meth:`pending`) come last: what was
        appended is what loads, even while the disk refuses it.
        """
        p = self.path(conversation_id)
        with self._lock:
            pending = list(self._pending.get(conversation_id, ()))
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raw = b""
        except OSError as e:
            raise ConversationStoreError(f"cannot read conversation file {p}: {e.strerror or e}") from e
        records: list[TurnRecord] = []
        problems: list[str] = []
        previous = b""
        for lineno, bline in enumerate(raw.split(b"\n") + [ln.rstrip(b"\n") for ln in pending], start=1):
            if not bline.strip():
                continue
            if bline == previous:
                continue  # a retried write whose first attempt reached the disk after all
            try:
                records.append(TurnRecord.from_json(bline.decode("utf-8")))
                previous = bline
            except ValueError as e:
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
        p = self.path(conversation_id)
        with self._lock:
            self._pending.pop(conversation_id, None)
            p.unlink(missing_ok=True)

    def _title(self, p: Path) -> str:
        try:
            with open(p, "rb") as f:
                for bline in f:
                    try:
                        rec = TurnRecord.from_json(bline.decode("utf-8"))
                    except ValueError:
                        continue
                    text = " ".join(rec.user_text.split())
                    if text:
                        return text if len(text) <= self.title_chars else text[: self.title_chars - 1].rstrip() + "…"
        except OSError:
            pass
        return ""


def _append_record(fd: int, line: bytes) -> None:
    """One ``os.write`` of ``line`` (after a newline when the file ends in a torn line), then fsync.

    On failure the file is truncated back to its size before the write, so a
    partial line does not stay behind (if even that fails, the next append's tail
    check terminates it).
    """
    size = os.fstat(fd).st_size
    data = line
    if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
        data = b"\n" + line  # terminate a torn line left by a crash or a failed write
    try:
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(errno.EIO, f"short write ({written} of {len(data)} bytes)")
        os.fsync(fd)
    except OSError:
        try:
            os.ftruncate(fd, size)
        except OSError as e:
            log.warning("could not undo a failed write (%s); the torn line will be terminated before the next one", e)
        raise


def _fsync_dir(d: Path) -> None:
    """Make a new directory entry in ``d`` durable (best effort where directories cannot be opened)."""
    try:
        fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


__all__ = [
    "ConversationInfo",
    "ConversationStore",
    "ConversationStoreError",
    "TurnRecord",
    "default_root",
    "new_conversation_id",
    "next_turn_seq",
]
