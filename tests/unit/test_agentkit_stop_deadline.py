"""One deadline for the whole shutdown: the loop's stop, the history writer, the session's devices.

Hung parts are fakes on the rig's virtual clock: a part that "takes 30 s" moves the clock 30 s and then never
returns, so the deadline is seen to pass at once and no test waits for real seconds.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app.headless import Session
from genx.agentkit.events import AssistantSpoken, LoopError
from genx.agentkit.store import ConversationStore, TurnRecord
from genx.agentkit.testing import Position, Reply, Rig, VirtualClock, VirtualPlayer
from genx.deadline import Deadline

pytestmark = pytest.mark.timeout(30)

SLOW = Reply([(0.1 + 0.4 * i, f"Sentence {i} is here. ") for i in range(30)])
SLOW_TEXT = "".join(t for _, t in SLOW.tokens).strip()


class _HungPlayer(VirtualPlayer):
    """Its stop takes 30 s of the clock and never returns (a device that does not answer)."""

    async def stop(self, discard: bool = True) -> dict[str, Position]:
        self.stops += 1
        self.clock.t += 30.0
        await asyncio.Event().wait()
        return {}


class _SlowDisk(ConversationStore):
    """Appends wait for ``release``; ``written`` counts the appends that finished."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.release = threading.Event()
        self.written = 0
        self.cond = threading.Condition()

    def append(self, conversation_id: str, record: TurnRecord) -> None:
        self.release.wait(10)
        super().append(conversation_id, record)
        with self.cond:
            self.written += 1
            self.cond.notify_all()

    def wait_written(self, n: int) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.written >= n, 10)


async def test_a_stop_whose_player_never_stops_ends_by_its_deadline_and_stores_what_was_heard(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    rig = Rig(speech=[(0.5, 2.0)], transcripts=["tell me a story"], replies=[SLOW], store=store, player_class=_HungPlayer)
    player = rig.player
    await rig.start()
    await rig.run_until(6.0)
    heard = rig.of(AssistantSpoken)[-1].spoken_text
    assert heard and len(heard) < len(SLOW_TEXT)

    t0 = time.monotonic()
    await rig.loop.stop(Deadline.after(8.0, rig.clock))
    elapsed = time.monotonic() - t0
    rig.mic.builder.done()

    assert player.stops == 1
    assert elapsed < 2.0, f"the stop took {elapsed:.2f} s after its deadline had passed"
    recs = store.load(rig.loop.conversation_id)
    assert [(r.user_text, r.assistant_text, r.interrupted) for r in recs] == [("tell me a story", heard, True)]


async def test_the_history_writer_goes_on_when_the_stop_waiting_for_it_is_cancelled(tmp_path: Path) -> None:
    disk = _SlowDisk(tmp_path)
    quick = [Reply([(0.1, "One.")]), Reply([(0.1, "Two.")])]
    rig = Rig(speech=[(0.5, 1.5), (4.0, 5.0)], transcripts=["first", "second"], replies=quick, store=disk)
    await rig.start()
    await rig.run_until(8.0)
    assert rig.loop.turns_done == 2  # the first turn's append waits for the disk, the second is queued behind it

    stopping = asyncio.ensure_future(rig.loop.stop(Deadline.after(8.0, rig.clock)))
    await asyncio.sleep(0.1)  # let the stop reach the history (only its wait is cancelled, not the writer)
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    disk.release.set()
    assert await asyncio.to_thread(disk.wait_written, 2)
    rig.mic.builder.done()
    recs = disk.load(rig.loop.conversation_id)
    assert [(r.user_text, r.assistant_text) for r in recs] == [("first", "One."), ("second", "Two.")]


async def test_a_history_write_past_the_deadline_is_reported_and_still_finishes(tmp_path: Path) -> None:
    disk = _SlowDisk(tmp_path)
    rig = Rig(speech=[(0.5, 1.5)], transcripts=["first"], replies=[Reply([(0.1, "One.")])], store=disk)
    await rig.start()
    await rig.run_until(5.0)
    clock: VirtualClock = rig.clock

    t0 = time.monotonic()
    await rig.loop.stop(Deadline(clock.t, clock))  # no time left at all
    elapsed = time.monotonic() - t0
    errors = [e.message for e in rig.of(LoopError)]
    assert any("writing the conversation is taking long" in m for m in errors), errors
    assert elapsed < 1.5
    disk.release.set()
    assert await asyncio.to_thread(disk.wait_written, 1)
    rig.mic.builder.done()
    assert [r.assistant_text for r in disk.load(rig.loop.conversation_id)] == ["One."]


class _Device:
    def __init__(self, log: list[str], name: str) -> None:
        self.log = log
        self.name = name

    async def stop(self) -> None:
        self.log.append(f"{self.name} closed")

    async def close(self) -> None:
        self.log.append(f"{self.name} closed")


class _HungLoop:
    """A loop whose stop ignores its deadline and never returns."""

    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.deadline: Deadline | None = None

    async def stop(self, deadline: Deadline | None = None) -> None:
        self.deadline = deadline
        self.log.append("loop stopping")
        await asyncio.Event().wait()


def _session(tmp_path: Path) -> Session:
    settings: Any = SimpleNamespace(audio=SimpleNamespace(input_device=None, output_device=None))
    return Session(settings, store=ConversationStore(tmp_path))


async def test_the_devices_are_closed_within_the_sessions_deadline_even_when_the_loop_never_stops(tmp_path: Path) -> None:
    events: list[str] = []
    s = _session(tmp_path)
    s.loop = _HungLoop(events)  # type: ignore[assignment]
    s.capture, s.player = _Device(events, "microphone"), _Device(events, "speaker")

    t0 = time.monotonic()
    await s.close(Deadline.after(1.0))
    elapsed = time.monotonic() - t0

    assert events == ["loop stopping", "microphone closed", "speaker closed"]
    assert 0.9 < elapsed < 1.6
    loop_deadline = s.loop.deadline  # type: ignore[attr-defined]
    assert loop_deadline is not None and loop_deadline.at < t0 + 1.0  # the loop was told to leave time for the devices


async def test_the_devices_are_closed_when_the_close_is_cancelled_while_the_loop_stops(tmp_path: Path) -> None:
    events: list[str] = []
    s = _session(tmp_path)
    s.loop = _HungLoop(events)  # type: ignore[assignment]
    s.capture, s.player = _Device(events, "microphone"), _Device(events, "speaker")
    closing = asyncio.ensure_future(s.close(Deadline.after(5.0)))
    await asyncio.sleep(0.1)
    closing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await closing
    assert events == ["loop stopping", "microphone closed", "speaker closed"]
