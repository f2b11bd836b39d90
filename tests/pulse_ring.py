"""Fixed-size storage for a long recording: the last samples and the read marks, allocated and touched up front.

A soak measures the loop's resident memory; a recording that grows (or is trimmed and regrown) for its first
minutes would add its own growth to the figure. These rings take their whole size when made, so the bench's
memory is flat from the first sample on. Indices are absolute (sample ``i`` of the whole recording).
"""

from __future__ import annotations

import numpy as np


def _capacity(n: int) -> int:
    if n <= 0:
        raise ValueError(f"a ring needs a positive capacity, not {n}")
    return n


def _touched(n: int, dtype: str) -> np.ndarray:
    a = np.empty(n, dtype=dtype)
    a.fill(0)  # writing every page makes it resident now, not when the recording first reaches it
    return a


class SampleRing:
    """The last ``capacity`` int16 samples of a stream, fed with raw little-endian bytes in any split."""

    def __init__(self, capacity: int) -> None:
        self.capacity = _capacity(capacity)
        self._a = _touched(capacity, "<i2")
        self.total = 0  # samples written so far
        self._odd = b""  # a sample's first byte, when a read ended between its two bytes

    @property
    def base(self) -> int:
        """Absolute index of the oldest sample still held."""
        return max(0, self.total - self.capacity)

    def write(self, data: bytes) -> None:
        data = self._odd + data
        whole = len(data) - len(data) % 2
        self._odd = data[whole:]
        x = np.frombuffer(data[:whole], dtype="<i2")
        if len(x) > self.capacity:
            self.total += len(x) - self.capacity
            x = x[-self.capacity :]
        at = self.total % self.capacity
        first = min(len(x), self.capacity - at)
        self._a[at : at + first] = x[:first]
        self._a[: len(x) - first] = x[first:]
        self.total += len(x)

    def read(self, start: int, stop: int) -> np.ndarray:
        """A copy of samples ``[start:stop]``, clipped to what is held."""
        begin, end = max(self.base, start), min(self.total, stop)
        if end <= begin:
            return np.zeros(0, dtype="<i2")
        idx = np.arange(begin, end) % self.capacity
        return self._a[idx]


class MarkRing:
    """The last ``capacity`` (read time, samples received) pairs, oldest first when read back."""

    def __init__(self, capacity: int) -> None:
        self.capacity = _capacity(capacity)
        self._t = _touched(capacity, "f8")
        self._n = _touched(capacity, "i8")
        self.count = 0  # marks added so far

    def add(self, when: float, received: int) -> None:
        i = self.count % self.capacity
        self._t[i], self._n[i] = when, received
        self.count += 1

    def __len__(self) -> int:
        return min(self.count, self.capacity)

    def pairs(self) -> list[tuple[float, int]]:
        held = len(self)
        order = (np.arange(self.count - held, self.count)) % self.capacity
        return list(zip(self._t[order].tolist(), self._n[order].tolist(), strict=True))
