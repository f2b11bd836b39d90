"""``parley ask [--conversation ID] [--json] "TEXT"``: one typed turn through the voice loop's assistant, printed.

The same generator as the voice loop (:func:`app.assistant.build_assistant`
over the configured generators: the offline tools, the pre-match and router on
the in-process model, native tool calls on cloud models), with the
conversation's history from the conversation store (tool calls and results
included). The turn is stored like a typed turn of the window (``typed: true``,
its tool calls and results as ``tool_messages``). Without ``--conversation`` each
call starts a new conversation; the answer's conversation id is in the
``--json`` object, the last line printed::

    {"answer": str, "conversation_id": str, "tool_calls": [{"name", "arguments", "result"}], "recalled": [str]}

Long-term memory is the voice loop's (:mod:`app.memory_setup`, ``[memory]``):
the facts recalled for TEXT go into the answer's context (``recalled``: their
sentences), "remember that …" / "forget that …" are carried out, and the turn
is handed to memory after it is stored, so a fact told in one call is recalled
in a later call of a new conversation. A memory that cannot be opened (locked,
corrupt beyond repair) is a warning on stderr; the question is still answered.

Errors go to stderr with a non-zero exit code: 1 the answer failed, 2 bad
arguments or an unknown conversation, 3 a configuration or model problem.
Timers set here are kept in the data directory; a running Parley announces
them after its next start (it watches its own changes, not other processes').
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from typing import Any, TextIO

from app.assistant import build_assistant
from app.memory_setup import build_memory, memory_path
from genx.agentkit.history import History
from genx.agentkit.messages import tool_messages
from genx.agentkit.store import ConversationStore, ConversationStoreError, TurnRecord, new_conversation_id
from genx.errors import Done, GenxError, State
from genx.ids import new_stream_id
from genx.memory import MemoryAnswer, MemoryStoreError, TurnInfo

__all__ = ["ask", "build_parser", "main"]

log = logging.getLogger("parley.ask")

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CONFIG = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="parley ask", description="Ask Parley one question in text and print the answer.")
    p.add_argument("text", metavar="TEXT", help="what to ask")
    p.add_argument("--conversation", metavar="ID", help="continue this stored conversation (default: a new one)")
    p.add_argument("--json", action="store_true", help="print one JSON object (answer, conversation_id, tool_calls) as the last line")
    p.add_argument("--config", metavar="PATH", help="settings file (default: the user config dir, or $PARLEY_CONFIG)")
    p.add_argument("--generator", metavar="NAME", help="generator to answer with (a configured name)")
    return p


class AskError(Exception):
    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


async def ask(
    text: str, *, settings: Any, conversation_id: str | None = None, generator: str | None = None, store: ConversationStore | None = None
) -> dict[str, Any]:
    """Answer ``text``, store the turn, return the ``--json`` object."""
    from app.model_catalogue import with_optional
    from genx.generators.mux import GeneratorMux
    from genx.modelloader import load_into

    text = " ".join(text.split())
    if not text:
        raise AskError("nothing to ask: TEXT is empty", EXIT_USAGE)
    store = store if store is not None else ConversationStore()
    if conversation_id is not None:
        records, _problems = await asyncio.to_thread(store.load_with_errors, conversation_id)
        if not records and not store.path(conversation_id).exists():
            raise AskError(f"no conversation {conversation_id!r} in {store.root}; leave out --conversation to start one", EXIT_USAGE)
    else:
        conversation_id, records = new_conversation_id(), []
    name = generator or settings.loop.generator
    gens = GeneratorMux()
    try:
        settings = with_optional(settings, name)  # an optional model (app.model_catalogue) gets its row
        await asyncio.to_thread(load_into, settings, gens, None)
        assistant = build_assistant(settings, gens)
        gens.resolve(name)
    except (GenxError, TypeError, ValueError) as e:
        raise AskError(f"cannot build the generator {name!r}: {e}", EXIT_CONFIG) from e
    history = History()
    history.add_records(records)
    started = time.time()
    turn_id = new_stream_id()
    memory = build_memory(settings, gens, path=memory_path(store), generator=name)
    try:
        found = await memory.start_answer(text, turn_id=turn_id, conversation_id=conversation_id, at=started)
    except MemoryStoreError as e:
        log.warning("memory is not available, answering without it: %s", e)
        found = MemoryAnswer()
    ctx = found.in_context(history.context(text, system_prompt=settings.loop.system_prompt))
    t0 = time.perf_counter()
    try:
        stream = await assistant.generator.generate_stream(name, ctx)
        try:
            while True:
                c = await stream.next()
                del c  # the answer is read from the report (fillers left out)
        except Done:
            pass
        except State as end:
            if not isinstance(end, Done) and not stream.answer:
                raise
        report = await stream.wait_report()
    except BaseException:
        await memory.aclose()
        raise
    finally:
        await assistant.generator.aclose()
    answer = stream.answer.strip()
    calls = [
        {"name": r.call.name, "arguments": _arguments(r.call.arguments), "result": r.result.content, "status": r.status.value}
        for r in report.calls
    ]
    record = TurnRecord(
        turn_id=turn_id,
        user_text=text,
        assistant_text=answer,
        generated_text=answer,
        typed=True,
        generator=name,
        started_at=started,
        timings={"answer_ms": round((time.perf_counter() - t0) * 1000, 1), "path": stream.decision.path},
        tool_messages=tool_messages(report.messages),
    )
    try:
        await asyncio.to_thread(store.append, conversation_id, record)
        memory.after_turn(TurnInfo(text, turn_id, conversation_id, started, answer))
    finally:
        await memory.aclose()  # writes what the turn told before the process ends
    recalled = [f.text for f in found.recalled.facts]
    return {"answer": answer, "conversation_id": conversation_id, "tool_calls": calls, "recalled": recalled}


def _arguments(raw: str) -> Any:
    try:
        return json.loads(raw or "{}")
    except ValueError:
        return raw


async def run(args: argparse.Namespace, *, out: TextIO, err: TextIO) -> int:
    from app.settings import load_or_defaults

    settings, cfg_err = load_or_defaults(args.config)
    if cfg_err is not None:
        print(f"parley: settings file has errors, using the defaults: {cfg_err}", file=err)
    try:
        result = await ask(args.text, settings=settings, conversation_id=args.conversation, generator=args.generator)
    except AskError as e:
        print(f"parley ask: {e}", file=err)
        return e.code
    except ConversationStoreError as e:
        print(f"parley ask: {e}", file=err)
        return EXIT_USAGE
    except (GenxError, OSError, RuntimeError, State) as e:
        print(f"parley ask: the answer failed: {e}", file=err)
        return EXIT_FAILED
    print(result["answer"], file=out)
    if args.json:
        print(json.dumps(result, ensure_ascii=False), file=out)
    return EXIT_OK


def main(argv: list[str]) -> int:
    """Entry point of ``parley ask`` (see :mod:`app.cli`)."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="parley: %(levelname)s %(name)s: %(message)s")
    return asyncio.run(run(args, out=sys.stdout, err=sys.stderr))
