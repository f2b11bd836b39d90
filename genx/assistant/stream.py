"""The assistant's answer stream: the tool rounds' chunks, plus a spoken filler while a tool takes long.

:class:`AssistantStream` forwards every chunk of the inner
:class:`~genx.toolrounds.ToolRoundsStream` (answer text, tool events). When a
tool call has started and no result came within ``filler_after_s`` (about
700 ms), it sends a filler sentence first ("One moment."): a Text chunk with
``meta={"filler": True}`` that the voice loop speaks like any text; it is not
part of the answer kept in history (:attr:`AssistantStream.answer`). A model
that kept calling tools past the round limit gets a spoken apology instead of
a silent error. Closing this stream closes the inner one (running tools are
cancelled as :class:`~genx.toolrounds.ToolRounds` does).

With ``spoken_form`` the answer's text is rewritten on its way out
(:class:`~genx.assistant.spoken_form.SpokenForm`: no markup, lists as sentences,
units in words), so the TTS and the chat bubble get the same words, and
:attr:`AssistantStream.answer` is that spoken text.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass

from genx.assistant.fillers import Fillers
from genx.assistant.intents import Intent
from genx.assistant.spoken_form import SpokenForm
from genx.chunk import MessageChunk, Role, Text
from genx.errors import State, ToolRoundLimitError
from genx.stream import BuiltStream, StreamBuilder
from genx.toolrounds import ToolEventKind, ToolRoundsReport, ToolRoundsStream, tool_event

__all__ = ["LOOPING_ANSWER", "AssistantStream", "Decision"]

LOOPING_ANSWER = "Sorry, I couldn't finish that: it kept needing more steps than I allow. Could you ask in a simpler way?"


@dataclass(frozen=True, slots=True)
class Decision:
    """How a request was answered: ``path`` is prematch, router (a routed tool), model (no tool) or cloud (native tool calls)."""

    path: str
    intent: Intent | None = None
    router_line: str = ""
    router_ms: float = 0.0
    said: str = ""  # the answer, decided without a model or tool (path "offline": cannot know that offline)


class AssistantStream(BuiltStream):
    """See the module docstring. ``report`` is the inner rounds' report (complete once the stream ended)."""

    __slots__ = ("_inner", "_task", "decision", "fallback", "fillers_said", "spoken")

    def __init__(self, builder: StreamBuilder, inner: ToolRoundsStream, decision: Decision) -> None:
        super().__init__(builder)
        self._inner = inner
        self.decision = decision
        self.fallback = ""  # said instead of an answer (the tool-round limit)
        self.fillers_said: list[str] = []
        self.spoken: list[str] | None = None  # the spoken form of the answer's text, when rewritten
        self._task: asyncio.Task[None] | None = None

    @property
    def report(self) -> ToolRoundsReport:
        return self._inner.report

    @property
    def answer(self) -> str:
        """The answer as kept in history (fillers left out; in spoken form when rewritten)."""
        if self.spoken is not None:
            return "".join(self.spoken).strip() or self.fallback
        return self._inner.report.answer or self.fallback

    async def wait_report(self) -> ToolRoundsReport:
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait([task])
        return await self._inner.wait_report()


def start(
    inner: ToolRoundsStream, decision: Decision, fillers: Fillers, filler_after_s: float, *, spoken_form: bool = False
) -> AssistantStream:
    """Wrap ``inner`` and start forwarding (on the running loop)."""
    b = StreamBuilder()
    out = AssistantStream(b, inner, decision)
    b.stream = out
    form = SpokenForm() if spoken_form else None
    if form is not None:
        out.spoken = []
    last_text: list[MessageChunk] = []

    def rewrite(c: MessageChunk) -> MessageChunk | None:
        """``c`` in spoken form (None: nothing to say yet); other chunks as they are."""
        part = c.part
        if form is None or out.spoken is None or not isinstance(part, Text) or (c.meta or {}).get("filler") or (c.ctrl and c.ctrl.label):
            return c
        last_text[:] = [c]
        text = form.feed(part.text)
        out.spoken.append(text)
        return dataclasses.replace(c, part=Text(text)) if text else None

    def flush() -> None:
        if form is None or out.spoken is None or b.ended:
            return
        rest = form.flush()
        if rest:
            out.spoken.append(rest)
            like = last_text[0] if last_text else MessageChunk(role=Role.ASSISTANT)
            b.push(dataclasses.replace(like, part=Text(rest), meta=None))

    loop = asyncio.get_running_loop()
    pending: set[str] = set()
    timer: list[asyncio.TimerHandle] = []

    def say_filler() -> None:
        timer.clear()
        if pending and not b.ended:
            text = fillers.next()
            out.fillers_said.append(text)
            b.push(MessageChunk(role=Role.ASSISTANT, part=Text(text + " "), meta={"filler": True}))

    def track(c: MessageChunk) -> None:
        ev = tool_event(c)
        if ev is None:
            return
        if ev.kind is ToolEventKind.CALL_START:
            pending.add(ev.call_id)
            if not timer:
                timer.append(loop.call_later(filler_after_s, say_filler))
        elif ev.kind is ToolEventKind.RESULT:
            pending.discard(ev.call_id)
            if not pending and timer:
                timer.pop().cancel()

    async def pump() -> None:
        try:
            while True:
                c = await inner.next()
                track(c)
                r = rewrite(c)
                if r is not None and not b.ended:
                    b.push(r)
        except ToolRoundLimitError:
            out.fallback = LOOPING_ANSWER
            if not b.ended:
                b.push(MessageChunk(role=Role.ASSISTANT, part=Text(LOOPING_ANSWER)))
                b.done()
        except State as end:
            flush()
            if not b.ended:
                b.abort(end)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if not b.ended:
                b.abort(e)
        finally:
            for t in timer:
                t.cancel()

    task = loop.create_task(pump(), name="assistant answer")
    out._task = task

    def on_close(_exc: BaseException | None) -> None:
        if not task.done():
            task.cancel()
        closing = loop.create_task(inner.close(), name="assistant close")
        closing.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    b.on_close(on_close)
    return out
