"""Wake word engines combined (``AnyOfDetector``, ``merge``) and moved to a thread (``BackgroundDetector``), on
scripted detectors: which detections come out, in what order, and what a failure or close does."""

from __future__ import annotations

import threading

import pytest

from genx.local.wake_ensemble import AnyOfDetector, BackgroundDetector, merge
from genx.local.wakeword import WakeWordConfigError, WakeWordDetection

CHUNK = b"\x00\x00" * 320  # 20 ms


def hit(at: float, phrase: str = "Hey Jarvis", model: str = "hey_jarvis") -> WakeWordDetection:
    return WakeWordDetection(model, phrase, at, 0.99)


class Scripted:
    """Fires the scripted detections when the stream (20 ms per call) passes their time; records its thread."""

    def __init__(self, fire_at: list[float], phrase: str = "Hey Jarvis", fail_at: float | None = None) -> None:
        self._fire = sorted(fire_at)
        self._phrase = phrase
        self._fail_at = fail_at
        self.t = 0.0
        self.threads: set[int] = set()
        self.resets = 0
        self.closed = False

    @property
    def phrases(self) -> list[str]:
        return [self._phrase]

    def process(self, pcm: bytes) -> list[WakeWordDetection]:
        self.threads.add(threading.get_ident())
        self.t = round(self.t + len(pcm) / 2 / 16000, 3)
        if self._fail_at is not None and self.t >= self._fail_at:
            raise RuntimeError("model fell over")
        out = [hit(at, self._phrase) for at in self._fire if at <= self.t]
        self._fire = [at for at in self._fire if at > self.t]
        return out

    def reset(self) -> None:
        self.resets += 1
        self.t = 0.0

    def close(self) -> None:
        self.closed = True


def test_merge_keeps_one_detection_per_utterance_and_a_later_one_after_the_refractory_time() -> None:
    last: dict[str, float] = {}
    found = [hit(2.05), hit(2.0), hit(2.9), hit(3.1), hit(2.5, "Alexa", "alexa")]
    assert [(d.phrase, d.at_s) for d in merge(found, last, 1.0)] == [("Hey Jarvis", 2.0), ("Alexa", 2.5), ("Hey Jarvis", 3.1)]
    assert merge([hit(3.5)], last, 1.0) == []  # within 1 s of the 3.1 kept before: the same utterance
    assert [d.at_s for d in merge([hit(4.2)], last, 1.0)] == [4.2]


def test_merge_treats_phrases_that_differ_only_in_case_as_one() -> None:
    assert len(merge([hit(1.0, "Hey Jarvis"), hit(1.2, "hey jarvis")], {}, 1.0)) == 1


def test_either_engine_hearing_the_phrase_fires_once_and_each_alone_is_heard() -> None:
    a = Scripted([1.0, 6.0])  # hears the first and the third utterance
    b = Scripted([1.08, 3.5])  # hears the first (80 ms later) and the second
    det = AnyOfDetector([a, b])
    got = [d.at_s for _ in range(400) for d in det.process(CHUNK)]
    assert got == [1.0, 3.5, 6.0]


def test_the_phrases_of_several_engines_are_listed_once_each() -> None:
    det = AnyOfDetector([Scripted([], "Hey Jarvis"), Scripted([], "Hey Jarvis"), Scripted([], "Alexa")])
    assert det.phrases == ["Hey Jarvis", "Alexa"]


def test_reset_and_close_reach_every_engine_and_reset_forgets_the_last_detection() -> None:
    a, b = Scripted([0.5]), Scripted([])
    det = AnyOfDetector([a, b])
    assert [d.at_s for _ in range(40) for d in det.process(CHUNK)] == [0.5]
    det.reset()
    a._fire = [0.6]
    assert [d.at_s for _ in range(40) for d in det.process(CHUNK)] == [0.6]  # 0.1 s "after" 0.5 on the new clock
    det.close()
    assert (a.resets, b.resets, a.closed, b.closed) == (1, 1, True, True)


def test_no_engine_is_a_config_error() -> None:
    with pytest.raises(WakeWordConfigError):
        AnyOfDetector([])


def test_a_background_engine_runs_on_another_thread_and_its_detections_come_out_of_a_later_call() -> None:
    inner = Scripted([0.5, 1.7])
    det = BackgroundDetector(inner)
    got: list[float] = []
    for _ in range(150):
        got += [d.at_s for d in det.process(CHUNK)]
    got += [d.at_s for d in det.flush()]  # what the thread completed after the last call
    assert got == [0.5, 1.7]
    assert inner.t == pytest.approx(3.0)
    assert threading.get_ident() not in inner.threads and len(inner.threads) == 1
    det.close()
    assert inner.closed


def test_a_detection_from_audio_before_a_reset_never_comes_out_even_when_the_thread_finishes_it_after() -> None:
    entered, release = threading.Event(), threading.Event()

    class Held(Scripted):
        def process(self, pcm: bytes) -> list[WakeWordDetection]:
            if not entered.is_set():  # the first chunk: the caller resets while the engine is still on it
                entered.set()
                assert release.wait(10)
            return super().process(pcm)

    det = BackgroundDetector(Held([0.02, 0.1]))
    assert det.process(CHUNK) == []
    assert entered.wait(10)
    det.reset()
    release.set()
    assert det.flush() == []  # the stale 0.02 s detection is dropped
    got = [d.at_s for _ in range(10) for d in det.process(CHUNK)] + [d.at_s for d in det.flush()]
    assert got == [0.1]  # the new stream's own detection still comes out
    det.close()


def test_a_failure_on_the_background_thread_is_raised_by_the_next_call() -> None:
    done = threading.Event()

    class Failing(Scripted):
        def process(self, pcm: bytes) -> list[WakeWordDetection]:
            try:
                return super().process(pcm)
            finally:
                if self.t >= 0.1:
                    done.set()

    det = BackgroundDetector(Failing([], fail_at=0.1))
    for _ in range(5):
        det.process(CHUNK)
    assert done.wait(5.0)
    det._thread.join(5.0)
    with pytest.raises(RuntimeError, match="model fell over"):
        det.process(CHUNK)
    det.close()


def test_an_engine_that_cannot_prepare_on_its_thread_is_an_error_raised_by_the_next_call() -> None:
    class Unloadable(Scripted):
        def prepare(self) -> None:
            raise RuntimeError("no model")

    det = BackgroundDetector(Unloadable([]))
    det._thread.join(5.0)
    with pytest.raises(RuntimeError, match="no model"):
        det.process(CHUNK)
    det.close()


def test_a_closed_background_engine_refuses_audio_and_closing_twice_is_harmless() -> None:
    inner = Scripted([])
    det = BackgroundDetector(inner)
    det.close()
    det.close()
    assert inner.closed
    with pytest.raises(RuntimeError, match="closed"):
        det.process(CHUNK)


def test_the_backlog_is_the_audio_handed_over_and_not_yet_processed() -> None:
    gate = threading.Event()

    class Slow(Scripted):
        def process(self, pcm: bytes) -> list[WakeWordDetection]:
            gate.wait(5.0)
            return super().process(pcm)

    det = BackgroundDetector(Slow([]))
    for _ in range(50):
        det.process(CHUNK)
    assert 0.98 <= det.backlog_s <= 1.0  # the first chunk may already be inside process()
    gate.set()
    det.close()
    assert det.backlog_s == 0.0


def test_flushing_either_engine_merges_what_the_background_engine_found_late() -> None:
    inline, late = Scripted([1.0]), Scripted([1.1, 4.0])
    det = AnyOfDetector([inline, BackgroundDetector(late)])
    got = [d.at_s for _ in range(250) for d in det.process(CHUNK)]
    got += [d.at_s for d in det.flush()]
    det.close()
    assert sorted(got) == [1.0, 4.0]  # 1.1 is the utterance inline already heard at 1.0
