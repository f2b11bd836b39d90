"""The deterministic pre-match: the obvious phrasings of each offline tool, recognised without a model.

:func:`prematch` returns an :class:`~genx.assistant.intents.Intent` when the
*whole* message is one of the phrasings (after dropping politeness: "could you
please", "hey Parley,", "do one thing,", "reckon you could", "be so kind as to", "hurry up and", trailing "please", "thank
you very much", "and be quick about it";
a hesitation inside it, "what's, uh, 6 times 8", and "like" before a value, "a timer for like 3 minutes"; a lead "quick",
"quick maths" (before a question), a hesitation, "er", an exclamation, "ugh", "oops";
"would you mind setting …" is "set …";
"whats", "dont" are "what's", "don't"; letters said one by one are one word, "u t c" → "utc"; a question
mark between two questions is a comma; regional words are the common ones, :mod:`.prematch_regional`; slang is the plain
words and a number heard as a word is the number where only a number stands, "gimme", "a timer for to minutes",
:mod:`.prematch_slang`;
a correction mid-sentence, "eight minutes, actually make it twelve", "five no make that eight minutes", is the request it
makes, and a request said anew after a marker, "what's 9 times 8 no wait 9 times 7", is the request,
:mod:`.prematch_correction`; words said twice are said once, "set a set a timer", and what is said to Parley
after talk to others is the request, "Okay kids, quiet. Parley, …", :mod:`.prematch_speech`; a pet name after it,
", dear", is none of it, nor one with no pause, "… darling"; 24-hour times read as 12-hour ones, "zero six thirty",
:mod:`.prematch_hours`; a request said twice or echoed, an aside to someone else, two requests in one breath,
:mod:`.prematch_asides`; a yes/no question about the speaker or about the hour or the day before the time or the date, "am I
late what's the time", "is it late already what time is it", :mod:`.prematch_questions`; terse, non-native and misheard
phrasings, "time Tokyo", "which time is now in Moscow", "remember me to …", "can sell the timer", "did I already set an
alarm", a yes/no check after the time or the date, a parent called after a question, :mod:`.prematch_plain`; "an hour
and a quarter", a request, then "please" and a clause or "so I don't …", :mod:`.prematch_everyday`; "half seven", "what
the time is in …", "to day", "said an alarm", "which day falls Easter", "if I divide 96 by 8, what I get",
:mod:`.prematch_idioms`; "… lah", "… eh", "can set … or not", "sweet as, …", a clause after a pause saying what a question's
value is, ", that's when my visa runs out", ", not needed anymore" after a cancel, :mod:`.prematch_particles`; "u", "wat",
"rn", "ngl", "bro", "lemme", "time check", :mod:`.prematch_shorthand`; stutters, restarts after a pause, hesitations and a
stray last word, "what's the, um, what's the time", :mod:`.prematch_disfluency`; the value said first, "ten minutes. set a
timer", a clause of context around a whole request, "where my sister lives in X", :mod:`.prematch_context`), else ``None`` and the
model router (or the cloud model) decides. The phrasings live with their tools:
:mod:`.prematch_clock` (time, dates), :mod:`.prematch_numbers` (arithmetic,
conversions), :mod:`.prematch_timers` (setting timers, alarms, reminders),
:mod:`.prematch_manage` (listing and cancelling them). Slots are the words as said, spoken numbers as digits; the
tools read them ("10 minutes", "tomorrow at 8", "Tokyo"), so a phrasing that is
clearly a request for a tool goes to the tool even when a value is bad ("a timer
for banana minutes" → the timer tool's own answer about it). Loose phrasings
are claimed only when the tool's parser reads their value (each module says
which). Matching the whole message is what keeps questions that merely mention
a tool's words ("who invented the alarm clock", "what time does the bakery
open") with the model; a clause that only sets the scene may come first ("I'm
putting the pizza in, set a timer for 12 minutes", "the rice is on so set a timer …"; with no pause only a clause with its
own subject or a thing doing something before a command it does not bind, "I just glued it set a timer …", "the kettle's on
set a timer …", not "I forgot to set …" nor a habit, "I usually wake up at 7", or a clause with its own subject or about
someone before a question that says its own value, "we're splitting it 4 ways what's 84 divided by 4", "my son lives in Rome
… what time is it there now in Rome", or before the time or the date when the clause names no place, "I lost track of time
what time is it"; what someone said, "mum said …, so set a timer …"; a clause about a thing, "the kids keep asking, how
many sleeps until christmas", only before a request that says its own value; :mod:`.prematch_scene`), thinking aloud may
come before a command once it is settled ("what was it, oh yes, remind me …"), and a reason may follow
("…, the recipe's American"; with no pause a clause with its own subject, "… at 5.30 I've got a flight", how the thing
stands, "cancel the egg timer they're done (early)", a clause after "before", "because" …, "… next Monday before we book
it" (a reminder's when said before it), or after a question about a value what it is for, "… in celsius for my mash", a
clause about someone, "how many days until easter my kids keep asking", or what the value is, "… that's my birthday").
Microseconds to a few hundred a call (no model, no I/O) once
:func:`warm_prematch` has loaded the unit registry and the place table (about a second, once).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.prematch_asides import echoed, first_of_two, without_aside
from genx.assistant.prematch_backref import match_back_reference
from genx.assistant.prematch_clock import match_date, match_time
from genx.assistant.prematch_context import around_context, context_words
from genx.assistant.prematch_correction import corrected, restarts
from genx.assistant.prematch_disfluency import fluent
from genx.assistant.prematch_everyday import before_tail, everyday_words
from genx.assistant.prematch_hours import twelve_hour
from genx.assistant.prematch_idioms import idiom_words
from genx.assistant.prematch_manage import match_cancel, match_list, taken_back
from genx.assistant.prematch_numbers import match_calc, match_convert
from genx.assistant.prematch_particles import after_whole_request, particle_words
from genx.assistant.prematch_plain import before_check, match_still_set, match_terse_time, usual_words, without_kin
from genx.assistant.prematch_questions import after_own_question
from genx.assistant.prematch_regional import standard_words
from genx.assistant.prematch_scene import COMMAND, REQUEST, after_scene
from genx.assistant.prematch_shorthand import shorthand_words
from genx.assistant.prematch_slang import match_nudge, plain_words
from genx.assistant.prematch_speech import addressed, collapse_repeats, said_twice, unaddressed
from genx.assistant.prematch_timers import match_alarm, match_reminder, match_timer
from genx.assistant.slot_reads import reads

__all__ = ["clean_utterance", "prematch", "warm_prematch"]

#: What "I want to …" is a request to do: work something out, or set one of the tools' things.
_TO_DO = r"convert|calculate|work out|know|figure|set (?:a|an|the|my)\b|start (?:a|an|the)\b"
_LEAD = re.compile(
    r"^(?:(?:(?:hey|hi|hiya|hello|howdy)(?: there)?|ok|okay|so(?: like)?|and|um|umm|oh (?:man|boy|no)|uh|uhh|uhm|er|erm|hmm|"
    r"well|oh|alright|right|yo|"
    r"parley|ugh|argh|oops|whoops|phew|gosh|jeez|"
    r"assistant|computer|excuse me|sorry|good (?:morning|afternoon|evening)|yes|yeah|yep|yup|sure|google|alexa|siri|quick one|"
    r"(?:quick )?maths?(?: question| problem)?(?: for you)?(?=,? (?:what|how|calculate|work out|\d))|quick sums?|quick(?:ly)?(?! question)|"
    r"let's see|let me see|(?:my )?dear|darling|sweetie|sweetheart)"
    r"\b[ ,]*)*"
    r"(?:(?:can|could|would|will) you(?: please| maybe| possibly| perhaps| just| mind)*(?: quickly)?(?: be able to)?"
    r"(?: tell me| let me know| check| say)?(?! (?:if|whether)\b) |please,? |kindly |"
    r"you (?=(?:set|make|start|remind|wake|cancel|tell|give|put|create|calculate|convert)\b)|"
    r"(?:(?:can|could|would) you )?do me a fav(?:ou)?r and |"
    r"i want to know |i'd like to know |i would like to know |i wanna know |i need to know |i was wondering |i wonder |"
    r"i'm wondering |i am wondering |"
    r"(?:if|whether) you (?:could|can|would|might)(?: please)?(?: tell me| let me know| check)?(?! (?:if|whether)\b) |"
    r"i'd love to know |i'm curious[ ,]+|"
    r"tell me (?!(?:if|whether)\b)|do you know |quick question[ ,]*|just |would you mind |do you mind |"
    r"be a dear and |(?:please )?be so kind as to |"
    r"go ahead and |i'd like you to |do one thing[ ,]+|(?:(?:do )?you |i )?reckon you (?:could|can|'d be able to) |"
    r"i want you to |i need you to |(?:do you )?mind telling me |any idea |(?:have you )?got any idea |do you happen to know |"
    rf"i need to (?={_TO_DO})|(?:i )?want to (?={_TO_DO})|i'd like to (?={_TO_DO})|"
    r"(?:sorry )?to (?:bother|trouble|interrupt) you,? (?:but )?|give me (?=[\d.]+ (?:times|plus|minus|divided by|over|multiplied by)\b)|"
    r"remind me (?=what(?:'s| is)? (?:the )?(?:date|time|day)\b|what (?:alarms|timers|reminders|countdowns)\b)|"
    r"you can (?:go ahead and )?(?=cancel|stop|delete|set|turn off)|"
    r"(?:(?:can|could) you )?help me (?=convert|calculate|work out|set|figure)|"
    r"(?:hurry(?: up)?|come on|go on)(?:,? and)?,? (?=(?:just )?(?:set|start|put|give|make|remind|wake|cancel|stop|tell|what|how)\b))*",
    re.IGNORECASE,
)
_TAIL = re.compile(
    r"(?:[ ,]+(?:please|thanks|thank you|"
    r"thank you very much|thanks very much|thank you so much|thanks so much|many thanks|and thanks|and thank you|thanks a lot|"
    r"cheers|for me|parley|ok|okay|if you can|if you could|if you would(?: be so kind)?|if you don't mind|"
    r"real quick|quickly|i wonder|do you know|by any chance|"
    r"would you|could you|can you|mate|buddy|roughly|approximately|exactly|more or less|or so|"
    r"and (?:please )?(?:be quick|hurry)(?: about it| up)?|(?:as )?(?:quick|fast) as you can))+$",
    re.IGNORECASE,
)
#: Someone spoken to by a pet name after a pause: "what time is it, dear", "a timer for 5 minutes, love".
_VOCATIVE = re.compile(r", (?:my )?(?:dear|love|honey|sweetie|sweetheart|darling|pet)$", re.IGNORECASE)


#: A request asked as "would you mind setting …" is the command "set …": the gerunds of the tools' verbs.
_BASE = {
    "setting": "set", "starting": "start", "putting": "put", "making": "make", "creating": "create", "cancelling": "cancel",
    "canceling": "cancel", "stopping": "stop", "deleting": "delete", "removing": "remove", "turning": "turn",
    "switching": "switch", "checking": "check", "telling": "tell", "converting": "convert", "calculating": "calculate",
    "working": "work", "waking": "wake", "getting": "get", "reminding": "remind", "listing": "list", "showing": "show",
    "giving": "give", "adding": "add",
}  # fmt: skip
_MIND_GERUND = re.compile(rf"\b((?:would|do) you mind(?: just| also)? )({'|'.join(_BASE)})\b", re.IGNORECASE)


#: Contractions heard or typed without their apostrophe ("whats the date in 3 weeks"); only words that are no other word.
_BARE_CONTRACTION = re.compile(
    r"\b(what|when|where|how|that|there|today|tomorrow|yesterday|tonight)s\b|\b(i)m\b|\b(i|you|we|they)ve\b|\b(do|does|did|is|are|ca|was|were|would|could|should)nt\b",
    re.IGNORECASE,
)


#: Letters said one by one are one word: "u t c" is "utc", "8 a m" is "8 am" (a run of two or more single letters).
_SPELT = re.compile(r"(?<![\w'])[a-z](?: [a-z](?![\w']))+", re.IGNORECASE)
#: "again" at the end asks once more ("what time is it again"), except in a reminder, where it is what to do again.
_AGAIN = re.compile(r"[ ,]+again$", re.IGNORECASE)
_REMINDING = re.compile(r"\b(?:remind|reminder|forget|remember)", re.IGNORECASE)
#: A hesitation inside the sentence is no word of it: "what's, uh, 6 times 8" (at the start it is a lead, :data:`_LEAD`).
_HESITATION = re.compile(r",? \b(?:uh|uhh|um|umm|uhm|erm|er)\b,?(?= )", re.IGNORECASE)
#: "like" said before a value is a filler ("a timer for like 3 minutes", "remind me in like an hour"), not a word of it.
_LIKE = re.compile(r"\b(for|in|at|by|until|till|about|around) like,? (?=\S)", re.IGNORECASE)
_COMMAND_AFTER = re.compile(r" (?:just |now |please )?(?:set|start|remind|wake|cancel|stop|delete)\b", re.IGNORECASE)


def _hesitation(m: re.Match[str]) -> str:
    """A pause before the hesitation stays ("…holiday, um what day is it"); one around it is no pause ("what's, uh, 6 …")."""
    if m[0].startswith(",") and (not m[0].endswith(",") or _COMMAND_AFTER.match(m.string, m.end())):
        return ","  # "I'm on the phone, um, just set a timer …": the pause ends a scene before a command
    return ""


def _spelt(m: re.Match[str]) -> str:
    letters = m[0].split()
    return "".join(letters) if len(set(map(str.lower, letters))) > 1 else m[0]  # "I I need a timer" is a stammer


def _apostrophe(m: re.Match[str]) -> str:
    if m[1]:
        return f"{m[1]}'s"
    if m[2]:
        return f"{m[2]}'m"
    if m[3]:
        return f"{m[3]}'ve"
    return f"{m[4]}n't"


def clean_utterance(text: str) -> str:
    """One line, politeness and final punctuation removed, case kept (places and labels keep their spelling)."""
    t = text.replace("’", "'").replace("‘", "'")
    t = re.sub(r":\s+", ", ", t)  # "a reminder for noon: lunch with Dave" is a pause; 7:30 stays
    t = re.sub(r"(?<!\d):|:(?!\d)", " ", t)
    t = fluent(shorthand_words(" ".join(t.split()).strip(" ?!.,")))  # stutters, restarts, slang: before the rest reads words
    t = collapse_repeats(said_twice(t))
    t = re.sub(r"[?!]+ +", ", ", t)  # two questions in a row are two clauses: "is it late in Rome? what time is it there"
    t = _SPELT.sub(_spelt, t)
    t = _BARE_CONTRACTION.sub(_apostrophe, t)
    t = _MIND_GERUND.sub(lambda m: m[1] + _BASE[m[2].lower()], t)
    t = twelve_hour(standard_words(plain_words(_LIKE.sub(r"\1 ", _HESITATION.sub(_hesitation, t)))))
    for _ in range(3):
        t = context_words(
            particle_words(
                idiom_words(everyday_words(usual_words(_TAIL.sub("", _VOCATIVE.sub("", unaddressed(_LEAD.sub("", t)))).strip(" ?!.,"))))
            )
        )
        if not _REMINDING.search(t):
            t = _AGAIN.sub("", t)
    return t


#: In order: the specific phrasings first (a reminder "in 20 minutes" before a timer, a list before a cancel,
#: "how long is left on the timer" before a date).
_MATCHERS: tuple[Callable[[str], Intent | None], ...] = (
    match_reminder,
    match_nudge,
    match_list,
    match_still_set,
    match_cancel,
    match_timer,
    match_alarm,
    match_time,
    match_terse_time,
    match_date,
    match_convert,
    match_calc,
)


def prematch(text: str) -> Intent | None:
    """The tool ``text`` clearly asks for, with its arguments, or ``None`` (module docstring)."""
    intent = _prematch(text)
    if intent is None and (to_parley := addressed(text)) is not None:  # "Okay kids, quiet please. Parley, …"
        return _prematch(to_parley)
    return intent


def _prematch(text: str) -> Intent | None:
    t = clean_utterance(text)
    if not t or len(t) > 200 or taken_back(t):
        return None
    if (fixed := corrected(t)) is not None:  # "… eight minutes, actually make it twelve": the request is the rewrite
        t = fixed
    direct = _match(t)
    if direct is not None and not all(reads(name, value) for name, value in direct.arguments.items()):
        # "a timer for hold on Sam put that down ten minutes"; "how many days until easter my kids keep asking"
        # "… in Perth, that's where my brother lives": the value clause after a pause is no part of the place
        direct = (
            without_aside(t, _match)
            or _before_reason(t)
            or without_kin(t, _match)
            or before_tail(t, _match)
            or after_whole_request(t, clean_utterance, _match)
            or direct
        )
    return (
        first_of_two(t, _match)
        or echoed(t, _match, amounts=False)
        or direct
        or without_kin(t, _match)
        or before_check(t, _match)
        or _restarted(t)
        or after_scene(t, clean_utterance, _match)
        or after_own_question(t, _match)
        or _after_recall(t)
        or match_back_reference(t, _match)
        or _before_reason(t)
        or before_tail(t, _match)
        or without_aside(t, _match)
        or echoed(t, _match)
        or after_whole_request(t, clean_utterance, _match)
        or around_context(t, clean_utterance, _match)
    )


def _restarted(t: str) -> Intent | None:
    """A request begun, then said anew after a correction marker: "set a no wait can you set a timer for 12 minutes",
    "what's 9 times 8 no wait 9 times 7": the whole request said last is the request. Not "…, actually never mind": that
    takes back the request itself, and cancels nothing that is set."""
    if not REQUEST.match(t):
        return None
    for rest in restarts(t):
        if (intent := _match(clean_utterance(rest))) is not None:
            return None if intent.tool == "cancel_timer" and not intent.arguments else intent
    return None


def _match(t: str) -> Intent | None:
    for match in _MATCHERS:
        intent = match(t)
        if intent is not None:
            return intent
    return None


#: Thinking aloud settled ("…, oh yes, …", "…, yeah …"): the command after it is the request, whatever came before.
_RECALL = re.compile(r", (?:oh |ah )?(?:yes|yeah|yep|that's it|got it)\b[ ,]*", re.IGNORECASE)


def _after_recall(t: str) -> Intent | None:
    """A command after thinking aloud: "hmm what was it, oh yes, remind me to …", "…, twelve minutes I think, yeah set a timer …".

    Only a command ("set", "remind", "cancel" …): "what was it, oh yes, what's the date" asks a question of its own."""
    ends = list(_RECALL.finditer(t))
    if not ends:
        return None
    rest = clean_utterance(t[ends[-1].end() :])
    return _match(rest) if COMMAND.match(rest) else None


#: A reason said after the request: "when's easter this year, I need to book the time off" (not "you know, …"),
#: a clause about a thing ("…, the recipe's American", "…, the meeting finished early"), or what it is for ("…, for the tip").
_REASON = re.compile(
    r"(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|because|cause|so i|so we|(?:the|my|our) [a-z]+(?:'s| is| are)|"
    r"(?:the|my|our) [a-z]+ (?:[a-z]+ed|went|got|ran|came|began|was|were|have|has|had)|[a-z]+s (?:have|are|were|had|keep|kept) [a-z']+|"
    r"for (?:the|my|our|a) [a-z]+$)\b",
    re.IGNORECASE,
)


#: A reason said with no pause: a clause with its own subject and a verb ("… at 5.30 I've got a flight"), how the thing
#: stands ("cancel the pasta timer it's done", "… it's done early"), or, after a question about a value, what it is for
#: ("… in celsius for my mash"; after a timer "for the eggs" is its name), a clause about someone ("… until easter my kids
#: keep asking", "… to celsius the recipe's american") or what the value is to the speaker ("… 9 August 2026 that's my
#: birthday"); or a clause with its own subject after a word saying when or why, "before we book the holiday",
#: "because I'm out" (group ``clause``).
_SAID_REASON = re.compile(
    r" (?=(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|because|cause) [a-z']+ [a-z']+)|"
    r" (?=(?:i'm|we're|i am|we are) [a-z]+ing$)|"
    r" (?=(?:it's|it is|they're|they are|that's|that is|i'm|i am|we're|we are) (?:all |both |already |just |now )?[a-z]+"
    r"(?: (?:early|already|now|anyway|too|again|today|tonight|tomorrow))?$)|"
    r" (?=for (?:the|my|our|a) [a-z]+(?: [a-z]+)?$)|"
    r" (?P<clause>(?=(?:before|after|because|since|once|when|while) (?:i|we|you|he|she|they) [a-z']+))|"
    r" (?P<about>(?=(?:the|my|our|his|her|their) [a-z]+ [a-z']+ [a-z']+|(?:that's|that is|it's|it is) (?:my|our|his|her|their) [a-z']+|"
    r"(?:the|my|our|his|her|their) [a-z]+(?:'s| is| are| was| were) [a-z]+$))",
    re.IGNORECASE,
)
_VALUE_TOOLS = frozenset(("convert_units", "calculate", "current_time", "date_info"))


def _reads(intent: Intent) -> bool:
    return all(reads(k, v) for k, v in intent.arguments.items())


def _ends_with_when(intent: Intent, head: str) -> bool:
    """A reminder's clause after its when is no part of its task ("remind me to renew it next monday before we book"):
    the task is said before the when; "remind me to call mum before she leaves" keeps the clause as the task."""
    when = str(intent.arguments.get("when", ""))
    return intent.tool != "set_reminder" or (bool(when) and head.lower().endswith(when.lower()))


def _before_reason(t: str) -> Intent | None:
    """A whole request said as one (a command or a question), then a clause saying why: the request alone decides.

    Not a statement ("I don't need a reminder, I'll remember it myself" cancels nothing)."""
    for comma in re.finditer(r", ", t):
        head = clean_utterance(t[: comma.start()])  # "… in Auckland please, I want to ring my aunt"
        if REQUEST.match(head) and _REASON.match(t[comma.end() :]) and (intent := _match(head)) is not None:
            return intent
    for cut in _SAID_REASON.finditer(t):
        head = clean_utterance(t[: cut.start()])
        if not REQUEST.match(head) or (intent := _match(head)) is None:
            continue
        if cut["about"] is not None:  # a clause about someone only after a question that says its own value
            if intent.tool in _VALUE_TOOLS and intent.arguments and _reads(intent):
                return intent
        elif cut["clause"] is not None:  # "before we …": every slot reads, a reminder's when said last
            if _reads(intent) and _ends_with_when(intent, head):
                return intent
        elif not t[cut.end() :].lower().startswith("for ") or intent.tool in _VALUE_TOOLS:
            return intent
    return None


def warm_prematch() -> None:
    """Load what the matchers read (pint's registry, the place table) so that no request pays for it; blocking."""
    prematch("convert 1 km to miles")
    prematch("Tokyo time")
