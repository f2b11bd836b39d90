"""MQTT-style topic-pattern mux: pick one registered value for a name.

Rules (``docs`` / genx-behaviours "Mux patterns"):

* names and patterns are split on ``/``; no segment may be empty;
* ``+`` matches exactly one segment; ``#`` matches one or more trailing
  segments and may only be the last segment (``a/#`` does not match ``a``);
* a wildcard is a whole segment: ``a+`` or ``#b`` is an invalid pattern;
* at every depth an exact segment is tried before ``+``, and ``+`` before
  ``#``; the search is depth-first and backtracks, so ``a/b/c`` and
  ``a/+/d`` both serve their names (``a/b/d`` → ``a/+/d``);
* registering a pattern twice raises :class:`~genx.errors.AlreadyRegisteredError`;
  a name nothing matches raises :class:`~genx.errors.NotFoundError`.

Names being looked up are literal: ``+`` or ``#`` in a name only match an
exact ``+`` / ``#`` segment or a wildcard of a pattern.

Registration is meant for start-up (configuration loading); lookups are cheap
(one dict probe per segment plus backtracking) and allocation-free apart from
the split.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from genx.errors import AlreadyRegisteredError, NotFoundError, PatternError

T = TypeVar("T")

SEPARATOR = "/"
SINGLE = "+"
MULTI = "#"


def split_pattern(pattern: str) -> list[str]:
    """Validate a registration pattern and return its segments.

    Raises :class:`PatternError` naming the pattern and the broken rule.
    """
    if not isinstance(pattern, str):
        raise PatternError(repr(pattern), "a pattern must be a string")
    if pattern == "":
        raise PatternError(pattern, "a pattern must not be empty")
    segments = pattern.split(SEPARATOR)
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        if seg == "":
            raise PatternError(pattern, f"segment {i + 1} is empty (no leading, trailing or double '/')")
        if seg == MULTI:
            if i != last:
                raise PatternError(pattern, "'#' may only be the last segment")
            continue
        if seg == SINGLE:
            continue
        if SINGLE in seg or MULTI in seg:
            raise PatternError(pattern, f"segment {seg!r} mixes a wildcard with text; '+' and '#' must be whole segments")
    return segments


def validate_pattern(pattern: str) -> str:
    """Return ``pattern`` unchanged if valid, else raise :class:`PatternError`."""
    split_pattern(pattern)
    return pattern


@dataclass(slots=True)
class _Node(Generic[T]):
    children: dict[str, _Node[T]] = field(default_factory=dict)
    # (pattern, value) registered exactly at this node
    entry: tuple[str, T] | None = None
    # (pattern, value) registered as ``<this node>/#``
    multi: tuple[str, T] | None = None

    def is_empty(self) -> bool:
        return not self.children and self.entry is None and self.multi is None


class TopicMux(Generic[T]):
    """Maps topic patterns to values; :meth:`match` picks the best one for a name."""

    __slots__ = ("_count", "_root")

    def __init__(self) -> None:
        self._root: _Node[T] = _Node()
        self._count = 0

    # -- registration ---------------------------------------------------
    def register(self, pattern: str, value: T) -> None:
        segments = split_pattern(pattern)
        node = self._root
        for seg in segments[:-1]:
            node = node.children.setdefault(seg, _Node())
        tail = segments[-1]
        if tail == MULTI:
            if node.multi is not None:
                raise AlreadyRegisteredError(pattern)
            node.multi = (pattern, value)
        else:
            leaf = node.children.setdefault(tail, _Node())
            if leaf.entry is not None:
                raise AlreadyRegisteredError(pattern)
            leaf.entry = (pattern, value)
        self._count += 1

    def unregister(self, pattern: str) -> T:
        """Remove ``pattern`` (exactly as registered) and return its value."""
        segments = split_pattern(pattern)
        path: list[tuple[_Node[T], str]] = []
        node = self._root
        for seg in segments[:-1]:
            child = node.children.get(seg)
            if child is None:
                raise NotFoundError(pattern, self.patterns())
            path.append((node, seg))
            node = child
        tail = segments[-1]
        value: T
        if tail == MULTI:
            if node.multi is None:
                raise NotFoundError(pattern, self.patterns())
            value = node.multi[1]
            node.multi = None
        else:
            leaf = node.children.get(tail)
            if leaf is None or leaf.entry is None:
                raise NotFoundError(pattern, self.patterns())
            value = leaf.entry[1]
            leaf.entry = None
            if leaf.is_empty():
                del node.children[tail]
        # prune now-empty ancestors so patterns() and lookups stay tight
        for parent, seg in reversed(path):
            child = parent.children[seg]
            if not child.is_empty():
                break
            del parent.children[seg]
        self._count -= 1
        return value

    # -- lookup ---------------------------------------------------------
    def match(self, name: str) -> tuple[str, T]:
        """Return ``(pattern, value)`` of the best registration for ``name``.

        Raises :class:`NotFoundError` ("not found for <name>") on a miss.
        """
        found = self._lookup(name)
        if found is None:
            raise NotFoundError(name, self.patterns())
        return found

    def get(self, name: str) -> T:
        return self.match(name)[1]

    def find(self, name: str) -> T | None:
        """Like :meth:`get` but returns ``None`` on a miss."""
        found = self._lookup(name)
        return None if found is None else found[1]

    def _lookup(self, name: str) -> tuple[str, T] | None:
        segments = name.split(SEPARATOR)
        # An empty segment ("", "a//b", "a/") never matches: registration forbids them.
        if "" in segments:
            return None
        return _search(self._root, segments, 0)

    def has_pattern(self, pattern: str) -> bool:
        """True if exactly ``pattern`` is registered (no matching involved)."""
        segments = split_pattern(pattern)
        node = self._root
        for seg in segments[:-1]:
            child = node.children.get(seg)
            if child is None:
                return False
            node = child
        if segments[-1] == MULTI:
            return node.multi is not None
        leaf = node.children.get(segments[-1])
        return leaf is not None and leaf.entry is not None

    def patterns(self) -> list[str]:
        """Every registered pattern, sorted."""
        return sorted(p for p, _ in self._entries(self._root))

    def items(self) -> list[tuple[str, T]]:
        """Every ``(pattern, value)``, sorted by pattern."""
        return sorted(self._entries(self._root), key=lambda kv: kv[0])

    def __len__(self) -> int:
        return self._count

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def _entries(self, node: _Node[T]) -> Iterator[tuple[str, T]]:
        if node.entry is not None:
            yield node.entry
        if node.multi is not None:
            yield node.multi
        for child in node.children.values():
            yield from self._entries(child)

    def __repr__(self) -> str:
        return f"TopicMux({self.patterns()!r})"


def _search(node: _Node[T], segments: list[str], i: int) -> tuple[str, T] | None:
    """Depth-first: exact, then ``+``, then ``#`` at each depth; backtracks on dead ends."""
    if i == len(segments):
        return node.entry
    seg = segments[i]
    exact = node.children.get(seg)
    if exact is not None:
        found = _search(exact, segments, i + 1)
        if found is not None:
            return found
    # A literal "+" segment already went down the "+" child as its exact match.
    if seg != SINGLE:
        single = node.children.get(SINGLE)
        if single is not None:
            found = _search(single, segments, i + 1)
            if found is not None:
                return found
    # "#" needs at least one remaining segment, and i < len(segments) holds here.
    return node.multi


__all__ = ["TopicMux", "split_pattern", "validate_pattern"]
