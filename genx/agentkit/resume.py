"""False-interruption recovery: where a wrongly cut answer goes on, and what the history keeps of it.

A barge-in that no words follow (a door, a cough fit, a chair: the VAD heard
sound, the ASR found no words) was not the user taking the turn. The turn
manager then *resumes* the cut answer: a new answer that speaks again from the
start of the sentence the user was hearing, through the end of what the model
had generated. The history holds one assistant message for both: the heard
text before that sentence joined with what is heard of the resumed part.

Pure text functions; the decision lives in :mod:`.turn_manager`, the playing in
:mod:`.answers`.
"""

from __future__ import annotations

import re

# the end of a sentence: terminal punctuation (with closing quotes / brackets), then whitespace
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*\s+")


def resume_split(full: str, kept: str) -> tuple[str, str]:
    """``(prefix, rest)`` for an answer whose text is ``full``, cut after the heard prefix ``kept``.

    ``rest`` starts at the beginning of the sentence ``kept`` ends in (a sentence
    heard to its end is not repeated); ``prefix`` is what comes before it. When
    ``kept`` is not a prefix of ``full`` (it should be), its length is used.
    The rest ends where the generation ended: a cut cancels the generation, so an
    answer cut before the model finished resumes only what it had written.
    """
    full = full.strip()
    kept = kept.strip()
    if len(kept) >= len(full):
        return full, ""
    upto = min(len(full), len(kept) + 1)  # + the whitespace after a sentence heard to its end
    start = 0
    for m in _SENTENCE_END.finditer(full, 0, upto):
        start = m.end()
    return full[:start].strip(), full[start:].strip()


def join_resumed(prefix: str, heard: str) -> str:
    """The history's text of a resumed answer: the heard prefix, then what was heard of the resumed part."""
    prefix, heard = prefix.strip(), heard.strip()
    return f"{prefix} {heard}" if prefix and heard else prefix or heard


__all__ = ["join_resumed", "resume_split"]
