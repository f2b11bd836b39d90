"""app.memory_policy: freed heap memory goes back to the system after a turn; the trim runs off the event loop."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app import memory_policy
from genx.agentkit.events import AssistantDone, UserFinal

pytestmark = pytest.mark.skipif(memory_policy._LIBC is None, reason="the C library is not glibc")

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
_libc.free.argtypes = [ctypes.c_void_p]


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) / 1024.0 for line in f if line.startswith("VmRSS:"))


def test_a_trim_gives_back_heap_memory_that_was_freed_below_a_block_still_in_use() -> None:
    # 96 KiB blocks stay under malloc's mmap threshold: they come from the heap, and the one allocated last pins its
    # top, so glibc's own top trimming cannot give the freed ones back (what the models' buffers do between turns)
    blocks = [_libc.malloc(96 * 1024) for _ in range(1200)]
    assert all(blocks)
    for b in blocks:
        ctypes.memset(b, 1, 96 * 1024)  # resident
    *blocks, pin = blocks  # the last block stays: the top of the heap is in use
    for b in blocks:
        _libc.free(b)
    try:
        before = _rss_mb()
        assert memory_policy.trim()
        after = _rss_mb()
        assert before - after > 60, (before, after)  # ~112 MB were freed; most of it is no longer resident
    finally:
        _libc.free(pin)


def test_limiting_the_arenas_is_accepted_by_glibc() -> None:
    assert memory_policy.limit_arenas(memory_policy.ARENA_MAX)


def _done(turn: str) -> AssistantDone:
    return AssistantDone(turn_id=turn, text="hi", interrupted=False, spoken_text="hi")


async def test_a_finished_answer_trims_in_a_worker_thread_and_a_second_one_meanwhile_is_folded_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    threads: list[str] = []

    def slow_trim() -> bool:
        threads.append(threading.current_thread().name)
        release.wait(5)
        return True

    monkeypatch.setattr(memory_policy, "trim", slow_trim)
    trimmer = memory_policy.TurnTrimmer()
    trimmer.on_event(UserFinal(turn_id="t1", text="hello"))
    assert trimmer.trims == 0 and threads == []  # only a finished answer trims
    trimmer.on_event(_done("t1"))
    trimmer.on_event(_done("t2"))  # while the first one runs
    await asyncio.sleep(0)  # the event loop is free while the trim blocks its thread
    release.set()
    await trimmer.settled()
    assert trimmer.trims == 1 and len(threads) == 1 and threads[0] != threading.main_thread().name
    trimmer.on_event(_done("t3"))
    await trimmer.settled()
    assert trimmer.trims == 2


def test_the_policy_at_start_turns_onemkls_buffer_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(memory_policy.MKL_FAST_MM_ENV, raising=False)
    monkeypatch.setattr(memory_policy, "limit_arenas", lambda n=4: True)
    memory_policy.apply_at_start()
    assert memory_policy.os.environ[memory_policy.MKL_FAST_MM_ENV] == "1"


def test_a_users_own_onemkl_setting_is_kept_and_the_bench_can_leave_the_cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_policy, "limit_arenas", lambda n=4: True)
    monkeypatch.setenv(memory_policy.MKL_FAST_MM_ENV, "0")
    memory_policy.apply_at_start()
    assert memory_policy.os.environ[memory_policy.MKL_FAST_MM_ENV] == "0"
    monkeypatch.delenv(memory_policy.MKL_FAST_MM_ENV)
    memory_policy.apply_at_start(mkl_cache=True)
    assert memory_policy.MKL_FAST_MM_ENV not in memory_policy.os.environ


def test_with_a_fixed_mmap_threshold_a_large_buffer_freed_does_not_send_later_ones_to_the_heap() -> None:
    # glibc's dynamic threshold rises to the size of a mapped block when it is freed; after that, blocks up to that
    # size come from the heap and stay there freed. Fixed, a block over the threshold is mapped every time. A fresh
    # interpreter: a fixed threshold cannot be undone, and this process must keep glibc's dynamic one.
    script = f"""
import ctypes, ctypes.util, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from app import memory_policy
from tests.unit.test_memory_policy import _libc, _mapped_bytes
fixed = sys.argv[1] == "fixed"
if fixed:
    assert memory_policy.fix_mmap_threshold(memory_policy.MMAP_THRESHOLD_KB)
big = _libc.malloc(8 * 1024 * 1024)
_libc.free(big)
before = _mapped_bytes()
block = _libc.malloc(2 * memory_policy.MMAP_THRESHOLD_KB * 1024)
grown = _mapped_bytes() - before
_libc.free(block)
print(grown, _mapped_bytes() - before)
"""
    size = 2 * memory_policy.MMAP_THRESHOLD_KB * 1024
    out = {}
    for mode in ("dynamic", "fixed"):
        done = subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True, timeout=60, check=True)
        out[mode] = [int(v) for v in done.stdout.split()]
    assert out["dynamic"][0] == 0  # glibc's threshold rose to 8 MiB: the block came from the heap
    assert out["fixed"][0] >= size  # its own mapping
    assert out["fixed"][1] <= 4096  # gone once freed


def test_the_policy_at_start_keeps_glibcs_dynamic_mmap_threshold_unless_asked_for_a_fixed_one(monkeypatch: pytest.MonkeyPatch) -> None:
    fixed: list[int] = []
    monkeypatch.setattr(memory_policy, "limit_arenas", lambda n=memory_policy.ARENA_MAX: True)
    monkeypatch.setattr(memory_policy, "fix_mmap_threshold", lambda kb: fixed.append(kb) or True)
    monkeypatch.setattr(memory_policy, "no_mkl_buffer_cache", lambda: None)
    memory_policy.apply_at_start()
    memory_policy.apply_at_start(mmap_threshold_kb=1024)
    assert fixed == [1024]


def _mapped_bytes() -> int:
    class MallInfo2(ctypes.Structure):
        names = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")
        _fields_ = [(n, ctypes.c_size_t) for n in names]

    fn = _libc.mallinfo2
    fn.restype = MallInfo2
    return int(fn().hblkhd)
