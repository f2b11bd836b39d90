"""The conversation as the model sees it: spoken-only history → ModelContext.

Each finished turn adds a user message (the final transcript) and an assistant
message holding only what was heard (``meta["interrupted"] = True`` when cut).
Building the context for the next turn:

* an assistant message with nothing heard (cut before its first word) is left out
  and its user message is merged into the next user message, so the model sees
  the user's words once and no empty assistant turn;
* the oldest turns are dropped to stay within ``max_chars`` (the system prompt and
  the current user text always stay).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from genx.agentkit.store import TurnRecord
from genx.chunk import Message, Role
from genx.model import ModelContext, ModelContextBuilder, ModelParams


@dataclass(slots=True)
class HistoryTurn:
    user_text: str
    assistant_text: str
    interrupted: bool = False


class History:
    __slots__ = ("_turns", "max_chars")

    def __init__(self, max_chars: int = 12_000) -> None:
        self._turns: list[HistoryTurn] = []
        self.max_chars = max_chars

    def add(self, user_text: str, assistant_text: str, *, interrupted: bool = False, resumes: bool = False) -> None:
        """``resumes``: the answer went on after a false interruption; ``assistant_text`` (the whole heard answer)
        replaces the previous turn's."""
        if resumes and self._turns:
            last = self._turns[-1]
            last.assistant_text, last.interrupted = assistant_text, interrupted
            return
        self._turns.append(HistoryTurn(user_text, assistant_text, interrupted))

    def add_records(self, records: Iterable[TurnRecord]) -> None:
        for r in records:
            self.add(r.user_text, r.assistant_text, interrupted=r.interrupted, resumes=r.resumed)

    def clear(self) -> None:
        self._turns.clear()

    def turns(self) -> list[HistoryTurn]:
        return list(self._turns)

    def __len__(self) -> int:
        return len(self._turns)

    def messages(self, pending_user: str | None = None) -> list[Message]:
        """History as messages, ending with ``pending_user`` (the current turn) when given."""
        out: list[Message] = []
        carry = ""  # user words whose answer was never heard
        for t in self._turns:
            user = _join(carry, t.user_text)
            if not t.assistant_text.strip():
                carry = user
                continue
            carry = ""
            if user:
                out.append(Message.user(user))
            a = Message.assistant(t.assistant_text)
            if t.interrupted:
                a.meta["interrupted"] = True
            out.append(a)
        last = _join(carry, pending_user or "")
        if last:
            out.append(Message.user(last))
        return self._trim(out)

    def _trim(self, msgs: list[Message]) -> list[Message]:
        total = sum(len(m.text()) for m in msgs)
        i = 0
        # drop whole (user, assistant) pairs from the front; never the last message
        while total > self.max_chars and i < len(msgs) - 1:
            total -= len(msgs[i].text())
            i += 1
        while i < len(msgs) - 1 and msgs[i].role != Role.USER:
            i += 1
        return msgs[i:]

    def context(self, pending_user: str, *, system_prompt: str = "", params: ModelParams | None = None) -> ModelContext:
        b = ModelContextBuilder()
        if system_prompt.strip():
            b.prompt(system_prompt.strip(), name="system")
        b.messages(self.messages(pending_user))
        if params is not None:
            b.params(params)
        return b.build()


def _join(a: str, b: str) -> str:
    a, b = a.strip(), b.strip()
    if a and b:
        return f"{a} {b}"
    return a or b


__all__ = ["History", "HistoryTurn"]
