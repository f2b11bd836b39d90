"""The repetition guard: an answer that repeats an earlier one, or loops, is caught before it is spoken.

:class:`GuardedGenerator` wraps a generator (the in-process model's path of
:class:`~genx.assistant.AssistantGenerator`). It shapes the context with the
generator's :class:`~genx.assistant.context_policy.ContextPolicy`, then watches
the answer's text while it streams and holds back its last ``hold_words`` (8)
words, so a copy of an earlier answer (an 8-word run in common) is seen before
any of it leaves, that is before any of it reaches the TTS
(:func:`~genx.assistant.repetition.repetition`). The first sentence is not held
by count but by what it shares (:func:`early_release_point`): it leaves a word at
a time while it goes its own way, since its first audio is what the user waits for:

* caught before anything was released: the generation is closed and the answer
  is generated again with another seed, stronger penalties and less history
  (:data:`RETRIES`); when every retry repeats too, :data:`LOST_THREAD` is said;
* caught later (a loop starting mid-answer): the answer ends at what was
  released; the looping words held back are never said.

An answer cut by ``max_tokens`` ends at its last full sentence among the words
still held (none of a half sentence is said when it can be helped).
The first answer of a conversation (no earlier answer to copy) is held back by
only four words, enough to see a word looping.
A short answer (fewer words than the hold) is released at its end, after the
"same answer to a different question" check. Text leaves on one StreamID of its
own whichever attempt made it; the successful attempt's end chunk (usage,
finish reason) is forwarded. Closing the stream closes the running generation.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
from dataclasses import dataclass

from genx.assistant.context_policy import FULL_CONTEXT, ContextPolicy, apply_policy
from genx.assistant.repetition import norm_words, repetition, word_spans
from genx.chunk import FuncCall, MessageChunk, Role, StreamCtrl, Text
from genx.errors import Done, Truncated
from genx.generators import Generator
from genx.ids import new_stream_id
from genx.model import ModelContext, ModelContextBuilder, ModelParams, MultiModelContext, Usage
from genx.stream import Stream, StreamBuilder
from genx.tools import FuncTool

__all__ = ["HOLD_WORDS", "LOST_THREAD", "RETRIES", "GuardedGenerator", "Retry", "early_release_point", "release_point", "sentence_end"]

log = logging.getLogger(__name__)

HOLD_WORDS = 8
LOOP_HOLD_WORDS = 4  # the first answer of a conversation has nothing to copy: a loop shows within four words
LOST_THREAD = "Sorry, I lost my thread there. Could you ask me that again in other words?"


@dataclass(frozen=True, slots=True)
class Retry:
    """How a repeated answer is generated again: sampling overrides and the context it sees."""

    params: ModelParams
    policy: ContextPolicy


_NO_HISTORY = ContextPolicy(max_turns=0)
RETRIES: tuple[Retry, ...] = (
    Retry(ModelParams(seed=7, temperature=0.7, repeat_penalty=1.3, presence_penalty=0.6, frequency_penalty=0.3), _NO_HISTORY),
    Retry(ModelParams(seed=11, temperature=0.9, repeat_penalty=1.4, presence_penalty=0.8, frequency_penalty=0.5), _NO_HISTORY),
)

_WORD_START = re.compile(r"\S+")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def sentence_end(text: str, start: int) -> str:
    """``text[start:]`` up to its last sentence end, or all of it when none is there."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text, start)]
    return text[start : ends[-1]] if ends else text[start:]


def release_point(text: str, hold_words: int) -> int:
    """How much of ``text`` may leave while its last ``hold_words`` words are held (a character index)."""
    starts = [m.start() for m in _WORD_START.finditer(text)]
    return starts[-hold_words] if len(starts) > hold_words else 0


def early_release_point(text: str, earlier_pairs: frozenset[tuple[str, str]]) -> int:
    """How much of ``text``'s first sentence may leave before the hold lets it (a character index).

    Everything before a *break* leaves: a complete word that does not follow the word before it in
    an earlier answer (``earlier_pairs``) or earlier in this answer, and is not that word again. A
    run shared with an earlier answer, or a word looping, cannot reach across a break, so each one
    that holds a word before it was already whole, and seen by
    :func:`~genx.assistant.repetition.repetition`: nothing of a repeat the guard catches leaves
    sooner than with the hold. Only the first sentence goes early (its first audio is what the user
    waits for); the hold keeps the rest, so a cut answer still ends at a full sentence. The point is
    always the start of a word after a space.
    """
    first_end = _SENTENCE_END.search(text)
    limit = first_end.start() if first_end is not None else len(text)
    own: set[tuple[str, str]] = set()
    point = 0
    for (s0, _e0, w0), (s1, e1, w1) in itertools.pairwise(word_spans(text)):
        if s0 > limit or e1 >= len(text) or text[e1] in "'\u2019":  # (the next word may go on in the next token)
            break
        pair = (w0, w1)
        if w0 != w1 and pair not in earlier_pairs and pair not in own:
            point = s1
        own.add(pair)
    return max((m.start() for m in _WORD_START.finditer(text, 0, point + 1) if m.start() <= point), default=0)


def word_pairs(texts: list[str]) -> frozenset[tuple[str, str]]:
    """Every pair of consecutive words in ``texts`` (compared as :func:`~genx.assistant.repetition.norm_words`)."""
    return frozenset(p for t in texts for p in itertools.pairwise(norm_words(t)))


class GuardedGenerator:
    """See the module docstring. ``guard=False`` applies only the context policy."""

    def __init__(
        self,
        inner: Generator,
        *,
        policy: ContextPolicy = FULL_CONTEXT,
        guard: bool = True,
        hold_words: int = HOLD_WORDS,
        retries: tuple[Retry, ...] = RETRIES,
        caught: list[str] | None = None,
    ) -> None:
        self.inner = inner
        self.policy = policy
        self.guard = guard
        self.hold_words = hold_words
        self.retries = retries
        self.caught: list[str] = caught if caught is not None else []  # what the guard caught (tests, the bench)

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        return await self.inner.invoke(pattern, ctx, tool)

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        first = apply_policy(ctx, self.policy)
        if not self.guard:
            return await self.inner.generate_stream(pattern, first)
        earlier = [m.text() for m in ctx.messages() if m.role == Role.ASSISTANT and m.text().strip()]
        attempts: list[ModelContext] = [first]
        for r in self.retries:
            attempts.append(MultiModelContext(apply_policy(ctx, r.policy), ModelContextBuilder().params(r.params).build()))
        hold = self.hold_words if earlier else min(self.hold_words, LOOP_HOLD_WORDS)  # nothing to copy: only loops to see
        pairs = word_pairs(earlier)
        b = StreamBuilder()
        sid = new_stream_id()
        current: list[Stream] = []

        def out(text: str) -> None:
            if text and not b.ended:
                b.push(MessageChunk(role=Role.ASSISTANT, part=Text(text), ctrl=StreamCtrl(stream_id=sid)))

        def end(meta: list[MessageChunk], truncated: bool) -> None:
            if b.ended:
                return
            for m in meta or [MessageChunk(role=Role.ASSISTANT, meta={"usage": Usage(), "finish_reason": "stop", "family": "assistant"})]:
                b.push(m)
            b.truncated() if truncated else b.done()

        async def one(attempt: ModelContext) -> tuple[str, str, list[MessageChunk], bool, int]:
            """(problem, text, end chunks, truncated, characters released) of one generation."""
            stream = await self.inner.generate_stream(pattern, attempt)
            current[:] = [stream]
            text, sent, truncated = "", 0, False
            meta: list[MessageChunk] = []
            try:
                while True:
                    try:
                        c = await stream.next()
                    except Done:
                        break
                    except Truncated:
                        truncated = True
                        break
                    if isinstance(c.part, Text):
                        text += c.part.text
                        problem = repetition(text, earlier, final=False)
                        if problem:
                            return problem, text, meta, truncated, sent
                        cut = max(release_point(text, hold), early_release_point(text, pairs))
                        if cut > sent:
                            out(text[sent:cut])
                            sent = cut
                    elif c.part is None and c.tool_call is None:
                        meta.append(c)
            finally:
                current.clear()
                await stream.close()
            return repetition(text, earlier, final=True), text, meta, truncated, sent

        async def pump() -> None:
            try:
                for i, attempt in enumerate(attempts):
                    problem, text, meta, truncated, sent = await one(attempt)
                    if not problem:
                        out(text[sent:] if not truncated else sentence_end(text, sent))
                        end(meta, truncated)
                        return
                    self.caught.append(problem)
                    log.info("guard: attempt %d %s (%r); %s", i + 1, problem, text[:80], "ending there" if sent else "generating again")
                    if sent:
                        end([], False)
                        return
                out(LOST_THREAD)
                end([], False)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if not b.ended:
                    b.abort(e)

        task = asyncio.get_running_loop().create_task(pump(), name="guarded answer")

        def on_close(_exc: BaseException | None) -> None:
            if not task.done():
                task.cancel()
            for s in current:
                closing = asyncio.get_running_loop().create_task(s.close())
                closing.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

        b.on_close(on_close)
        return b.stream
