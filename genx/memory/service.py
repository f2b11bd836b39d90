"""The memory service: what the voice loop (and ``parley ask``) calls, and what the user controls.

Two calls from the loop:

* ``await memory.start_answer(user_text, turn_id=…, conversation_id=…)`` when an
  answer starts: explicit requests ("remember that …", "forget that …",
  "forget everything", "what do you know about me") are carried out at once,
  without a model; otherwise the relevant facts are recalled. The result's
  :meth:`MemoryAnswer.in_context` puts them into the answer's context as one
  system message just before the user's words (:mod:`genx.memory.context`
  says why there). It also
  pauses background extraction, cancelling a model call in flight, so the
  answer has the model. ``read_only=True`` (a held, speculative answer) changes
  nothing: an explicit request is only previewed (the instruction says what
  will be done) and :meth:`Memory.carry_out` does it once the answer is
  committed; a dropped held answer leaves the memory as it was.
* ``memory.after_turn(TurnInfo(...))`` after the turn is stored: returns at once;
  the rules run and, when a model extractor is configured, the model runs on a
  background task (the generator decodes in its own thread), then the facts
  are stored from a worker thread. It resumes paused extraction.

User control: :meth:`Memory.remember`, :meth:`edit`, :meth:`forget`, :meth:`forget_matching`,
:meth:`clear`, :meth:`search`, :meth:`facts`; :meth:`set_enabled` pauses
memory (off: nothing is recalled, extracted or written; queued turns are
dropped; the database file is not even created). A database locked by another
process or a full disk keeps the changes in memory and retries them with the
next write (a warning without the facts' words); nothing is logged that a
fact contains.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path

from genx.deadline import within
from genx.embeddings import Embedder
from genx.labelers import Label, Labeler
from genx.memory.extract import ModelExtractor, merge, rule_changes
from genx.memory.intents import Intent, match_intent
from genx.memory.recall import Recalled, Recaller, pack
from genx.memory.requests import TurnInfo, edit, forget_matching, instruction, matching, new_fact, remember_plan, third_person, write
from genx.memory.results import MemoryAnswer, MemoryStats
from genx.memory.rules import Extracted
from genx.memory.store import Fact, MemoryFullError, MemoryLockedError, MemoryStore, NewFact
from genx.memory.vocabulary import USER
from genx.profilers import Profile, ProfileFact

log = logging.getLogger(__name__)


class Memory:
    """See the module docstring."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        enabled: bool = True,
        extractor: ModelExtractor | None = None,
        labeler: Labeler | None = None,
        labeler_name: str = "memory/recall",
        label_timeout_s: float = 0.5,
        embedder: Embedder | None = None,
        embed_timeout_s: float = 2.0,
        token_budget: int = 200,
        max_facts: int = 6,
        busy_timeout_s: float = 2.0,
        clock: Callable[[], float] = time.time,
        rules: bool = True,
    ) -> None:
        self.path = path
        self.rules = rules  # False: the model extractor alone (benches compare the two)
        self._enabled = enabled
        self.extractor = extractor
        self.labeler = labeler
        self.labeler_name = labeler_name
        self.label_timeout_s = label_timeout_s
        self.embedder = embedder
        self.embed_timeout_s = embed_timeout_s
        self.token_budget = token_budget
        self.max_facts = max_facts
        self.busy_timeout_s = busy_timeout_s
        self.clock = clock
        self.stats = MemoryStats()
        self._store: MemoryStore | None = None
        self._recaller: Recaller | None = None
        self._open_lock = asyncio.Lock()
        self._queue: asyncio.Queue[tuple[TurnInfo, int]] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._model_task: asyncio.Task[list[Extracted]] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._pending: list[tuple[list[NewFact], list[Extracted]]] = []

    # -- state --------------------------------------------------------------------------------------
    @property
    def enabled(self) -> bool:
        return self._enabled

    def set_enabled(self, on: bool) -> None:
        """Pause (False) or resume memory. Pausing drops queued turns and cancels a running extraction."""
        self._enabled = on
        if not on:
            while not self._queue.empty():
                self._queue.get_nowait()
                self._queue.task_done()
            self._pending.clear()
            if self._model_task is not None:
                self._model_task.cancel()

    async def _open(self) -> tuple[MemoryStore, Recaller]:
        async with self._open_lock:
            if self._store is None:
                self._store = await asyncio.to_thread(MemoryStore, self.path, busy_timeout_s=self.busy_timeout_s, clock=self.clock)
                self._recaller = Recaller(self._store, token_budget=self.token_budget, max_facts=self.max_facts)
            assert self._recaller is not None
            return self._store, self._recaller

    # -- the loop's calls -----------------------------------------------------------------------------
    async def start_answer(
        self, user_text: str, *, turn_id: str = "", conversation_id: str = "", at: float | None = None, read_only: bool = False
    ) -> MemoryAnswer:
        """Carry out (``read_only``: preview) an explicit request, or recall; pauses background extraction until :meth:`after_turn`."""
        intent = match_intent(user_text)
        if not self._enabled:
            if intent is None:
                return MemoryAnswer()
            return MemoryAnswer(
                intent=intent, instruction="Memory is switched off, so nothing is saved, deleted or recalled. Say so briefly."
            )
        self.pause_extraction()
        turn = TurnInfo(user_text, turn_id, conversation_id, at)
        if intent is None:
            recalled = await self.recall(user_text)
            return MemoryAnswer(recalled)
        if read_only and intent.kind != "list":
            return await self._preview(intent, turn)
        return await self._carry_out(intent, turn)

    async def carry_out(self, answer: MemoryAnswer) -> MemoryAnswer:
        """Do the request a read-only :meth:`start_answer` previewed (nothing when there is none or memory is off)."""
        if answer.intent is None or answer.pending is None or not self._enabled:
            return answer
        return await self._carry_out(answer.intent, answer.pending)

    def pause_extraction(self) -> None:
        self._idle.clear()
        if self._model_task is not None and not self._model_task.done():
            self._model_task.cancel()
            self.stats.cancelled_extractions += 1

    def answer_done(self) -> None:
        """Resume background extraction (also done by :meth:`after_turn`)."""
        self._idle.set()

    def after_turn(self, turn: TurnInfo) -> None:
        """Queue ``turn`` for extraction (returns at once; nothing when memory is off or the turn was a request)."""
        self._idle.set()
        if not self._enabled or not turn.user_text.strip() or match_intent(turn.user_text) is not None:
            return
        if turn.at is None:
            turn = TurnInfo(turn.user_text, turn.turn_id, turn.conversation_id, self.clock(), turn.assistant_text)
        self._queue.put_nowait((turn, 0))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work(), name="memory-extraction")

    async def drain(self) -> None:
        """Wait until every queued turn is extracted and stored (tests, benches, shutdown).

        Model extraction waits while an answer runs: call :meth:`answer_done` / :meth:`after_turn` first.
        """
        await self._queue.join()

    async def aclose(self, timeout_s: float = 5.0) -> None:
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await within(self.drain(), timeout_s)
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._worker
        if self._store is not None:
            await asyncio.to_thread(self._store.close)
            self._store = None

    # -- recall ---------------------------------------------------------------------------------------
    async def recall(self, query: str) -> Recalled:
        if not self._enabled:
            return Recalled()
        t0 = time.perf_counter()
        store, recaller = await self._open()
        labels: list[Label] | None = None
        note = ""
        if self.labeler is not None:
            try:
                candidates = await asyncio.to_thread(store.labels)
                async with asyncio.timeout(self.label_timeout_s):
                    labels = await self.labeler.label(self.labeler_name, query, candidates, recaller.top_labels)
            except (TimeoutError, Exception) as e:  # the keyword labels are the fallback
                note = f"labeler failed: {type(e).__name__}"
        out = await asyncio.to_thread(recaller.recall_now, query, labels=labels)
        if self.embedder is not None:
            out = await self._add_similar(recaller, query, out)
        ms = (time.perf_counter() - t0) * 1000
        self.stats.recall_ms.append(ms)
        return Recalled(out.facts, out.labels, ms, note or out.note)

    async def _add_similar(self, recaller: Recaller, query: str, out: Recalled) -> Recalled:
        assert self.embedder is not None
        try:
            async with asyncio.timeout(self.embed_timeout_s):
                vector = (await self.embedder.embed([query]))[0]
        except (TimeoutError, Exception) as e:
            return Recalled(out.facts, out.labels, out.elapsed_ms, f"embedder failed: {type(e).__name__}")
        similar = await asyncio.to_thread(recaller.similar, vector)
        have = {f.id for f in out.facts}
        extra = tuple(f for f, _ in sorted(similar, key=lambda x: -x[1]) if f.id not in have)
        return Recalled((out.facts + extra)[: self.max_facts], out.labels, out.elapsed_ms, out.note)

    # -- extraction -----------------------------------------------------------------------------------
    async def _work(self) -> None:
        while True:
            turn, tries = await self._queue.get()
            try:
                if self._enabled:
                    await self._extract(turn, tries)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("memory extraction of turn %s failed: %s", turn.turn_id or "?", type(e).__name__)
            finally:
                self._queue.task_done()

    async def _extract(self, turn: TurnInfo, tries: int) -> None:
        t0 = time.perf_counter()
        rules = rule_changes(turn.user_text) if self.rules else []
        self.stats.rules_ms.append((time.perf_counter() - t0) * 1000)
        await self._apply(rules, turn, "rules", 0.9)
        if self.extractor is None:
            return
        await self._idle.wait()
        store, _ = await self._open()
        profile = await asyncio.to_thread(_profile, store, USER)
        t1 = time.perf_counter()
        self._model_task = asyncio.get_running_loop().create_task(self.extractor.changes(turn.user_text, {USER: profile}))
        try:
            found = await asyncio.shield(self._model_task)
        except asyncio.CancelledError:
            if self._model_task.cancelled() and self._enabled and tries < 2:  # an answer started: try again when it is over
                self._queue.put_nowait((turn, tries + 1))
                return
            self._model_task.cancel()
            raise
        finally:
            self._model_task = None
        self.stats.model_ms.append((time.perf_counter() - t1) * 1000)
        extra = [e for e in merge(rules, found) if e not in rules]
        await self._apply(extra, turn, "model", 0.7)

    async def _apply(self, changes: list[Extracted], turn: TurnInfo, source: str, confidence: float) -> list[Fact]:
        new = [
            new_fact(e, turn, source, min(confidence, e.confidence) if source == "model" else confidence) for e in changes if e.op == "add"
        ]
        retire = [e for e in changes if e.op == "retire"]
        if not new and not retire and not self._pending:
            return []
        store, _ = await self._open()
        batches = [*self._pending, (new, retire)]
        self._pending = []
        stored: list[Fact] = []
        for i, (facts, retires) in enumerate(batches):
            try:
                stored += await asyncio.to_thread(write, store, facts, retires)
            except (MemoryLockedError, MemoryFullError) as e:
                self.stats.write_failures += 1
                self._pending = [b for b in batches[i:] if b[0] or b[1]]
                log.warning(
                    "memory: %d change(s) kept for a later write: %s", sum(len(b[0]) + len(b[1]) for b in self._pending), type(e).__name__
                )
                break
        if stored and self.embedder is not None:
            await self._embed(store, stored)
        return stored

    async def _embed(self, store: MemoryStore, facts: list[Fact]) -> None:
        assert self.embedder is not None
        try:
            async with asyncio.timeout(self.embed_timeout_s * 4):
                vectors = await self.embedder.embed([f.text for f in facts])
            for f, v in zip(facts, vectors, strict=False):
                await asyncio.to_thread(store.set_embedding, f.id, pack(v))
        except (TimeoutError, Exception) as e:
            log.info("memory: embedding %d fact(s) failed: %s", len(facts), type(e).__name__)

    # -- explicit requests and user control ----------------------------------------------------------
    async def _carry_out(self, intent: Intent, turn: TurnInfo) -> MemoryAnswer:
        if intent.kind == "remember":
            facts = await self.remember(intent.text, turn=turn)
            return MemoryAnswer(intent=intent, instruction=instruction(intent, [f.text for f in facts]))
        if intent.kind == "forget":
            gone = await self.forget_matching(intent.text)
            return MemoryAnswer(intent=intent, instruction=instruction(intent, gone))
        if intent.kind == "forget_all":
            n = await self.clear()
            return MemoryAnswer(intent=intent, instruction=instruction(intent, n))
        _, recaller = await self._open()
        everything = await asyncio.to_thread(recaller.everything)
        if not everything.facts:
            return MemoryAnswer(everything, intent, "You do not remember anything about the user yet. Say so briefly.")
        return MemoryAnswer(everything, intent, "The user asks what you remember about them: tell them these facts plainly and briefly.")

    async def _preview(self, intent: Intent, turn: TurnInfo) -> MemoryAnswer:
        """What :meth:`_carry_out` would do, without a write (the store is only read)."""
        if intent.kind == "remember":
            done: object = [s for s, _ in remember_plan(intent.text, turn)]
        else:
            store, _ = await self._open()
            if intent.kind == "forget":
                done = await asyncio.to_thread(matching, store, intent.text)
            else:
                done = len(await asyncio.to_thread(store.list))
        return MemoryAnswer(intent=intent, instruction=instruction(intent, done), pending=turn)

    async def remember(self, text: str, *, turn: TurnInfo | None = None) -> list[Fact]:
        """Store what ``text`` says, exactly (rules, else a free-text note). Raises the store's typed errors."""
        if not self._enabled:
            return []
        turn = turn or TurnInfo(text, at=self.clock())
        plan = remember_plan(text, turn)
        retire = [e for e in rule_changes(text) if e.op == "retire"]
        if not plan and not retire:
            return []
        store, _ = await self._open()
        return await asyncio.to_thread(write, store, [nf for _, nf in plan if nf is not None], retire)

    async def forget_matching(self, text: str) -> list[int]:
        """Delete the facts ``text`` describes ("I live in Berlin", "the spare key"); returns their ids."""
        store, _ = await self._open()
        return await asyncio.to_thread(forget_matching, store, text)

    async def forget(self, fact_id: int) -> bool:
        store, _ = await self._open()
        return await asyncio.to_thread(store.forget, fact_id)

    async def edit(self, fact_id: int, value: str) -> Fact | None:
        store, _ = await self._open()
        return await asyncio.to_thread(edit, store, fact_id, value, self.clock())

    async def clear(self) -> int:
        self._pending.clear()
        store, _ = await self._open()
        return await asyncio.to_thread(store.clear)

    async def search(self, query: str) -> list[Fact]:
        store, _ = await self._open()
        return [f for f, _ in await asyncio.to_thread(store.search, query, all_terms=False)]

    async def facts(self, *, include_retired: bool = False) -> list[Fact]:
        store, _ = await self._open()
        return await asyncio.to_thread(store.list, include_retired=include_retired)


def _profile(store: MemoryStore, subject: str) -> Profile:
    facts = store.current(subject)
    return Profile(subject, "user" if subject == USER else "person", tuple(ProfileFact(f.attribute, f.value) for f in facts))


__all__ = ["Memory", "MemoryAnswer", "MemoryStats", "TurnInfo", "third_person"]
