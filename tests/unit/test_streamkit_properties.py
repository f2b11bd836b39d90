"""Property tests of interrupt: no data after its EOS, pulled chunks kept, one EOS per opened channel."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from genx.chunk import Blob, MessageChunk, Part, Text
from genx.errors import Done
from genx.transformers.streamkit import InactiveResponseError, Invocation, Response, ResponseConfig

MIMES = ("audio/opus", "text/plain")
SIDS = ("A", "B")

op = st.one_of(
    st.tuples(st.just("emit"), st.sampled_from(SIDS), st.sampled_from(MIMES), st.sampled_from(["bos", "data", "data", "data", "eos"])),
    st.tuples(st.just("pull"), st.just(""), st.just(""), st.just("")),
    st.tuples(st.just("interrupt"), st.sampled_from(SIDS), st.just(""), st.just("")),
    st.tuples(st.just("ctrl_eos"), st.sampled_from(SIDS), st.just(""), st.just("")),
)


def part(mime: str, n: int) -> Part:
    return Text(f"t{n}") if mime == "text/plain" else Blob(mime, bytes([n % 256]))


@dataclass
class Model:
    emitted: dict[str, list[MessageChunk]] = field(default_factory=lambda: {s: [] for s in SIDS})
    interrupted_at: dict[str, int] = field(default_factory=dict)  # sid → len(pulled) when interrupted
    declared: dict[str, set[str]] = field(default_factory=lambda: {s: set() for s in SIDS})


def kind(c: MessageChunk) -> str:
    return "bos" if c.is_begin_of_stream() else "eos" if c.is_end_of_stream() else "data"


@settings(max_examples=400, deadline=None)
@given(ops=st.lists(op, max_size=40), declare=st.lists(st.sampled_from(MIMES), max_size=2, unique=True))
def test_interrupt_properties(ops: list[tuple[str, str, str, str]], declare: list[str]) -> None:
    asyncio.run(_run(ops, declare))


async def _run(ops: list[tuple[str, str, str, str]], declare: list[str]) -> None:
    observed: list[MessageChunk] = []
    inv = Invocation(observers=[observed.append])
    model = Model()
    responses: dict[str, Response] = {s: inv.start_response(ResponseConfig(s), *declare) for s in SIDS}
    for s in SIDS:
        model.declared[s] |= set(declare)
    pulled: list[MessageChunk] = []
    n = 0
    for name, sid, mime, k in ops:
        if name == "pull":
            if len(inv.output):
                pulled.append(await inv.stream.next())
            continue
        r = responses[sid]
        if name == "interrupt":
            if sid in model.interrupted_at:
                continue
            model.interrupted_at[sid] = len(pulled)
            inv.interrupt(r)
            continue
        n += 1
        if name == "ctrl_eos":
            chunk = MessageChunk.eos(sid)
        elif k == "bos":
            chunk = MessageChunk.bos(sid, part(mime, n))
        elif k == "eos":
            chunk = MessageChunk.eos(sid, part(mime, n))
        else:
            chunk = MessageChunk(part=part(mime, n))
        try:
            queued = inv.emit(r, chunk)
        except InactiveResponseError:
            continue
        assert sid not in model.interrupted_at, "emit after interrupt must fail"
        model.emitted[sid].append(queued)
    for s in SIDS:
        if s not in model.interrupted_at:
            inv.finish_response(responses[s])
    inv.close()
    while True:
        try:
            pulled.append(await inv.stream.next())
        except Done:
            break

    # Pulled chunks are exactly the observed ones (nothing handed out goes missing).
    assert [id(c) for c in observed] == [id(c) for c in pulled]

    for s in SIDS:
        mine = [c for c in pulled if c.stream_id == s]
        # Every opened channel gets exactly one EOS; nothing on a channel after its EOS.
        opened = set(model.declared[s]) | {c.mime() for c in model.emitted[s] if c.mime()}
        closed_whole = False
        eos_count = dict.fromkeys(opened, 0)
        for c in mine:
            m = c.mime()
            if c.is_end_of_stream() and not m:
                for mm in opened:
                    if eos_count[mm] == 0:
                        eos_count[mm] = 1
                closed_whole = True
                continue
            assert not closed_whole or c.is_begin_of_stream(), f"{s}: {kind(c)} after the control EOS"
            if m:
                assert eos_count.get(m, 0) == 0, f"{s}/{m}: {kind(c)} after its EOS"
                if c.is_end_of_stream():
                    eos_count[m] = 1
        assert all(v == 1 for v in eos_count.values()), f"{s}: EOS counts {eos_count}"
        # BOS never invented.
        for m in MIMES:
            made = sum(1 for c in mine if c.is_begin_of_stream() and c.mime() == m)
            emitted = sum(1 for c in model.emitted[s] if c.is_begin_of_stream() and c.mime() == m)
            assert made <= emitted, f"{s}/{m}: BOS invented"
        data_out = [c for c in mine if kind(c) == "data"]
        data_in = [c for c in model.emitted[s] if kind(c) == "data"]
        if s in model.interrupted_at:
            cut = model.interrupted_at[s]
            before = [c for c in pulled[:cut] if c.stream_id == s and kind(c) == "data"]
            assert data_out == before, f"{s}: data after the interrupt"
            # The interrupt's EOS chunks carry the interrupt text.
            assert all(c.error == "interrupted" for c in mine[len([c for c in pulled[:cut] if c.stream_id == s]) :] if kind(c) == "eos")
        else:
            assert [id(c) for c in data_out] == [id(c) for c in data_in], f"{s}: data lost"
