"""Fuzzing the JSONL conversation store loader: random bytes and torn files load the valid records or report lines, never crash."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from genx.agentkit.store import ConversationStore, TurnRecord

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ_IO = settings(FUZZ, max_examples=40)  # each example appends (fsync) to a real file

text = st.text(max_size=40)
timing = st.dictionaries(st.text(max_size=8), st.none() | st.floats(allow_nan=False) | st.integers(-(10**6), 10**6), max_size=4)
records = st.builds(
    TurnRecord,
    turn_id=st.from_regex(r"t[0-9]{1,4}", fullmatch=True),
    user_text=text,
    assistant_text=text,
    interrupted=st.booleans(),
    generated_text=text,
    typed=st.booleans(),
    error=text,
    generator=text,
    started_at=st.floats(min_value=0, max_value=4e9),
    timings=timing,
)


def load_bytes(raw: bytes) -> tuple[list[TurnRecord], list[str]]:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "c.jsonl").write_bytes(raw)
        return ConversationStore(d).load_with_errors("c")


@FUZZ
@given(raw=st.binary(max_size=800))
# Found by this fuzzing: lines that made the old loader raise instead of skipping them.
@example(raw=b"[" * 100_000 + b"\n")  # RecursionError in the JSON parser
@example(raw=b'{"turn_id":"t1","user_text":"","assistant_text":"","started_at":1' + b"0" * 400 + b"}\n")  # OverflowError
@example(raw=b'{"turn_id":"t1","user_text":"","assistant_text":"","started_at":1e999}\n')  # loaded as inf before
def test_random_bytes_load_as_valid_records_plus_one_problem_per_bad_line(raw: bytes) -> None:
    recs, problems = load_bytes(raw)
    lines = [ln for ln in raw.split(b"\n") if ln.strip()]
    assert len(recs) + len(problems) <= len(lines)
    assert all(isinstance(r.interrupted, bool) and isinstance(r.turn_id, str) for r in recs)


WRONG: dict[str, list[object]] = {
    **{k: [0, 1.5, [], {}, False] for k in ("turn_id", "user_text", "assistant_text", "generated_text", "error", "generator")},
    **{k: ["false", "true", 0, 1, None, []] for k in ("interrupted", "typed")},
    "started_at": ["0", None, [], True, {}],
    "timings": ["x", 0, [], None],
}


@st.composite
def json_garbage(draw: st.DrawFn) -> bytes:
    """Lines that are JSON but not records: a value of the wrong type in a record's key."""
    d = json.loads(draw(records).to_json())
    key = draw(st.sampled_from(sorted(WRONG)))
    d[key] = draw(st.sampled_from(WRONG[key]))
    return json.dumps(d).encode()


@FUZZ
@given(
    recs=st.lists(records, max_size=6, unique_by=lambda r: r.turn_id),
    garbage=st.lists(st.tuples(st.integers(0, 6), json_garbage()), max_size=3),
)
def test_records_with_fields_of_the_wrong_type_are_reported_and_the_others_load_in_order(
    recs: list[TurnRecord], garbage: list[tuple[int, bytes]]
) -> None:
    lines = [r.to_json().encode() for r in recs]
    for pos, junk in sorted(garbage, reverse=True):
        lines.insert(min(pos, len(lines)), junk)
    loaded, problems = load_bytes(b"\n".join(lines) + b"\n")
    typed_ok = [r for r in loaded if r in recs]
    assert typed_ok == loaded  # nothing loads that was not written as a record
    assert [r for r in recs if r in loaded] == recs  # every record loads, in order
    assert len(loaded) + len(problems) == len(lines)


@FUZZ_IO
@given(recs=st.lists(records, min_size=1, max_size=6, unique_by=lambda r: r.turn_id), cut=st.integers(min_value=0), after=records)
def test_a_file_torn_at_any_byte_loads_its_whole_lines_and_the_next_append_is_intact(
    recs: list[TurnRecord], cut: int, after: TurnRecord
) -> None:
    raw = b"".join((r.to_json() + "\n").encode() for r in recs)
    cut %= len(raw) + 1
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "c.jsonl").write_bytes(raw[:cut])
        store = ConversationStore(d)
        whole = raw[:cut].count(b"\n")
        loaded, problems = store.load_with_errors("c")
        assert loaded[:whole] == recs[:whole]
        assert len(problems) <= 1
        store.append("c", after)
        loaded2, _ = ConversationStore(d).load_with_errors("c")
        assert loaded2[-1] == after
        assert loaded2[:whole] == recs[:whole]


@FUZZ_IO
@given(recs=st.lists(records, max_size=8, unique_by=lambda r: r.turn_id))
def test_appended_records_load_back_equal(recs: list[TurnRecord]) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = ConversationStore(d)
        for r in recs:
            store.append("c", r)
        loaded, problems = ConversationStore(d).load_with_errors("c")
        assert problems == [] and loaded == recs
