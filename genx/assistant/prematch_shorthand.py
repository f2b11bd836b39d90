"""Slang, informal spellings and texting shorthand the pre-match reads as the plain words (round 22).

:func:`shorthand_words` rewrites the raw utterance (one line, before the other cleaning) word by word:

- informal spellings: "gimme" → "give me", "wanna" → "want to", "gonna" → "going to", "gotta" → "got to";
- shorthand for a word: "u" → "you", "ur" → "your", "wat"/"wut" → "what", "rn" → "right now", "rite" → "right", "pls"/"plz"
  → "please", "thx" → "thanks", "fer" → "for", "lemme" → "let me", "do u no" → "do you know"; a single "u" between other
  single letters is a spelt word ("u t c") and stays;
- fillers that are no word of the request: "fr", "ngl", "lowkey", "highkey", "tbh", "lol", "lmao", "omg", "ugh", and "bro",
  "bruh", "fam" unless someone's ("my bro", "the fam");
- "let me" before a tool's verb is the request itself ("lemme convert 2 miles …", "let me set a reminder …"); "let me
  see my/the …" is "show me …"; "let me get a/an …" is "get me a/an …";
- "time check" as the whole request is "what time is it"; "(I) need the time/date (in X)" is the question; "what
  <things> I got/I have …" is the list question "what <things> have I got …".

Whole words only, case-insensitively; each rewrite is one linear pass.
"""

from __future__ import annotations

from genx.assistant.patterns import rewrite, rewrites

__all__ = ["shorthand_words"]

#: A tool's verb after "let me": what the speaker asks Parley to do.
_VERB = r"(?:set|start|convert|calculate|work out|check|put|make|cancel|stop|add)"
_SOMEONES = r"(?<!\bmy )(?<!\bur )(?<!\bthe )(?<!\byour )(?<!\bhis )(?<!\bher )(?<!\bour )(?<!\ba )"

_TABLE = rewrites(
    (
        (r"\bdo (?:u|you) no\b", "do you know"),
        # "u" alone; not a letter of a spelt word ("u t c", "a u")
        (r"(?<!\b[a-z] )\bu\b(?! [a-z]\b)", "you"),
        (r"\bur\b", "your"),
        (r"\b(?:wat|wut|wot)\b", "what"),
        (r"\b(?:wats|wuts|wots)\b", "what's"),
        (r"\brn\b", "right now"),
        (r"\brite\b", "right"),
        (r"\b(?:pls|plz|plez)\b", "please"),
        (r"\b(?:thx|thnx|ty)$", "thanks"),
        (r"\bfer\b", "for"),
        (r"\blemme\b", "let me"),
        (r"\bgimme\b", "give me"),
        (r"\bwanna\b", "want to"),
        (r"\bgonna\b", "going to"),
        (r"\bgotta\b", "got to"),
        # fillers: no word of the request, with the pause around them
        (r",? ?\b(?:fr|ngl|lowkey|highkey|tbh|tbf|lol|lmao|omg|ugh|istg|deadass)\b,?", ""),
        (rf",? ?{_SOMEONES}\b(?:bro|bruh|fam|bestie)\b,?", ""),
        (rf"\blet me (?={_VERB}\b)", ""),
        (r"\blet me see (?=(?:my|the|all|what)\b)", "show me "),
        (r"\blet me get (?=(?:a|an)\b)", "get me "),
        (r"^time check$", "what time is it"),
        # the subject dropped, as texted: "need the time in London" (not "need the time off")
        (r"^ *(?:i )?need (?:to know )?the (time|date)(?=$| in )", r"what's the \1"),
        (r"\bwhat (timers|alarms|reminders|countdowns) (?:i|we) (?:got|have|have got)\b", r"what \1 have I got"),
        # "like" before an amount is a filler: "how many ml is like 2 cups"
        (r"\b(is|are|was|'s) like,? (?=\d)", r"\1 "),
    )
)


def shorthand_words(text: str) -> str:
    """``text`` with the module's slang and shorthand said as the plain words (module docstring)."""
    return " ".join(rewrite(text, _TABLE).split()).strip(" ,")
