"""The soak bench's summary: what counts as an error, and what the notes say."""

from __future__ import annotations

from bench.soak import Sample, summarize


def _sample(turn: int, note: str = "", rss: float = 800.0) -> Sample:
    return Sample(turn, "v2v", rss, 30, 12, 13, 1000.0, note, native={}, traced_mb=0.0)


def test_a_stop_spoken_into_a_pause_is_noted_but_is_not_an_error() -> None:
    samples = [_sample(1), _sample(2), _sample(3, "the assistant was in a pause when the user started (not counted)"),
               _sample(4, "no barge-in reported")]  # fmt: skip
    res = summarize(samples, 2, done=4, stored=4, loop_errors=0)
    assert res["errors"] == 1
    assert len(res["notes"]) == 2


def test_each_loop_error_is_counted_and_its_message_is_in_the_notes() -> None:
    samples = [_sample(1), _sample(2), _sample(3)]
    res = summarize(samples, 2, done=3, stored=3, loop_errors=1, error_notes=["turn 3: loop error (asr): no transcript"])
    assert res["errors"] == 1 and res["loop_errors"] == 1
    assert "turn 3: loop error (asr): no transcript" in res["notes"]


def test_rss_growth_is_measured_from_the_end_of_the_warm_up_to_the_settled_last_turns() -> None:
    rss = [900.0, 800.0, 810.0, 820.0, 830.0, 840.0, 850.0, 860.0, 845.0, 850.0]
    samples = [_sample(i + 1, rss=r) for i, r in enumerate(rss)]
    res = summarize(samples, 2, done=10, stored=10, loop_errors=0)
    # the lowest of the last two (a quarter of the 9 turns from the warm-up's end): 845, minus the warm-up turn's 800
    assert res["rss_growth_mb"] == 45.0
    assert res["rss_growth_raw_mb"] == -50.0  # last sample minus the first


def test_the_filled_default_executor_starts_no_thread_when_its_calls_overlap_as_much_as_it_allows() -> None:
    import asyncio
    import threading

    from bench.soak import fill_default_executor

    async def burst() -> tuple[int, int, int]:
        size = fill_default_executor(asyncio.get_running_loop())
        before = threading.active_count()
        gate = threading.Barrier(size)  # every call waits until `size` of them run at once: the pool's full width
        await asyncio.gather(*(asyncio.to_thread(gate.wait, 10.0) for _ in range(size)))
        return size, before, threading.active_count()

    size, before, after = asyncio.run(burst())
    assert size >= 5  # Python's default is the CPU count + 4
    assert after == before
