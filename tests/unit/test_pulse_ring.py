"""The soak recordings' fixed rings: what they give back is what was written, in any split, after any wrap."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse_ring import MarkRing, SampleRing


def _feed(ring: SampleRing, x: np.ndarray, cuts: list[int]) -> None:
    raw = x.astype("<i2").tobytes()
    at = 0
    for c in [*cuts, len(raw)]:
        ring.write(raw[at:c])
        at = c


def test_samples_split_mid_sample_across_reads_come_back_whole() -> None:
    x = np.arange(-50, 50, dtype=np.int16) * 300
    ring = SampleRing(1000)
    _feed(ring, x, [1, 3, 4, 77, 151])  # odd cuts fall between a sample's two bytes
    assert ring.total == 100
    np.testing.assert_array_equal(ring.read(0, 100), x)
    np.testing.assert_array_equal(ring.read(10, 20), x[10:20])


def test_after_wrapping_the_ring_holds_the_last_capacity_samples_at_their_absolute_indices() -> None:
    x = np.arange(2500, dtype=np.int16)
    ring = SampleRing(700)
    _feed(ring, x, list(range(0, 5000, 333)))
    assert ring.base == 1800
    np.testing.assert_array_equal(ring.read(0, 2500), x[1800:])  # older samples are gone: the copy starts at base
    np.testing.assert_array_equal(ring.read(2000, 2100), x[2000:2100])
    assert len(ring.read(2600, 2700)) == 0


def test_one_write_longer_than_the_ring_keeps_its_tail() -> None:
    x = np.arange(50, dtype=np.int16)
    ring = SampleRing(8)
    ring.write(x.tobytes())
    assert ring.total == 50
    np.testing.assert_array_equal(ring.read(0, 50), x[-8:])


def test_marks_come_back_oldest_first_and_only_the_last_capacity_are_held() -> None:
    marks = MarkRing(4)
    for i in range(6):
        marks.add(float(i) / 10, i * 160)
    assert len(marks) == 4
    assert marks.pairs() == [(0.2, 320), (0.3, 480), (0.4, 640), (0.5, 800)]


def test_a_ring_of_no_size_is_refused() -> None:
    with pytest.raises(ValueError, match="positive capacity"):
        SampleRing(0)
