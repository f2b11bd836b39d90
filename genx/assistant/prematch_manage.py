"""Pre-match phrasings that list or cancel timers, alarms and reminders: ``list_timers``, ``cancel_timer``.

Each matcher takes the cleaned utterance (:func:`genx.assistant.prematch.clean_utterance`)
and returns an :class:`~genx.assistant.intents.Intent` when the *whole* text is
one of its phrasings. A list question may say "right now" or "currently", be
indirect ("check whether I've got an alarm set") or name a timer by what it
times ("how long is left on the brisket"); a
cancel may follow second thoughts ("actually, never mind, cancel it"), say it is final ("for good") or come after a clause
naming the item ("the 6 pm alarm, get rid of it": the 6 pm alarm; with no pause too, "I'm done with the pasta timer you
can stop it"), or name it by when it was set ("the first one", "the third alarm"); not wanting one at all ("I don't need a
reminder for that") cancels nothing; "is my alarm set for 7" is a list question. What a
cancel names ("the pasta timer", "tomorrow's alarm", "it") is the ``which``
slot, read by the tool (:func:`genx.toolbox.reminders.choose.choose`).
"""

from __future__ import annotations

import re

from genx.assistant.intents import Intent
from genx.assistant.patterns import rx as _rx
from genx.toolbox.numwords import words_to_numbers

__all__ = ["match_cancel", "match_list", "taken_back"]


_KINDS = r"(?:timers?|alarms?|reminders?|countdowns?)"
_DAYS = r"(?:today|tomorrow|tonight|this week|the morning|tomorrow morning|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MINE = (
    r"(?:my |the |all |all my |all the |all of my |any |all of the |every |each )?"
    r"(?:current |active |pending |running |upcoming |set |existing |open )?"
    r"(?:recurring |repeating |daily |weekly |weekday |weekend |morning )?"
)
#: An indirect yes/no question, in statement order: "(check) whether I've got an alarm set", "see if there are any timers"
#: ("if" only after its verb: "would you mind if I set a timer" asks no question of the list).
_ASK = r"(?:check|see|find out|look|tell me|let me know|know)"
_ASK_WHETHER = rf"(?:(?:{_ASK} )?whether|{_ASK} if) "
_WHETHER = (
    rf"{_ASK_WHETHER}(?:i have|i've got|i've set|i got|i set|you set|you've set|you have|there (?:is|are)|there's|do i have|have i got)"
)
#: Things with time left that no timer of ours times.
_NOT_TIMED = (
    r"(?:lease|contract|warranty|subscription|meter|parking|clock|battery|game|match|loan|mortgage|visa|licen[cs]e|plan|card|term|"
    r"semester|trial|offer|sale|deal|auction|ticket|pass|insurance|policy|membership|movie|film|show|episode|series|song|album|"
    r"podcast|video|book|audiobook|flight|trip|journey|drive|ride|download|upload|update|install|installation|class|lesson|lecture|"
    r"course|meeting|call|shift|exam|test|quiz|half|quarter|period|season|year|month|week|day|road|bus|train|tram|car|plane|taxi|"
    r"uber|cab|wait|queue|line|repair|delivery|order|package|parcel|appointment|surgery|operation|report|homework|project|room)"
)
_TIMED = rf"(?!(?:[a-z]+ )?{_NOT_TIMED}\b)[a-z]+(?: [a-z]+)?"  # a timer's name: "the brisket", "my roast chicken"
_LIST = [
    _rx(rf"(?:list|show|show me|read|read out|read me|tell me|check|give me|display|see|view|what are|go through|go over|review|"
        r"pull up|bring up|(?:run|take|walk|talk) (?:me )?through)(?: all)?(?: of)? "
        rf"{_MINE}{_KINDS}(?: and {_KINDS})*(?: (?:(?:that )?(?:i have|i've set|i set|i've got|i have got|i got|you have|you've got)"
        r"(?: set| going| running| on)?|that are set|that are running|running|going|set|pending|left|"
        r"for today|for tomorrow|for tonight|for this week|today|tomorrow|please|now))?(?: so far)?"),
    _rx(rf"(?:what|which|any|how many) {_KINDS}(?: and {_KINDS})? (?:do i have|are (?:set|running|there|on|active|pending|left|coming up|"
        r"going|ticking|counting down|in progress|scheduled|queued)|"
        r"have i (?:got|set)|did i set|i have|have i|are coming up|are still running|are set for|are there for)"
        rf"(?: (?:set|running|going|on|left|remaining|pending|coming up))?(?: (?:for |on )?{_DAYS})?"),
    _rx(rf"(?:do i have|are there|have i (?:got|set)|did i set|did you set|is there|got|any|{_WHETHER}|"
        rf"did i (?:remember|forget) to set|have i (?:remembered|forgotten) to set) (?:any |an |a )?{_KINDS}"
        r"(?: set| running| on| left| active| pending| today| tomorrow| going)?"
        rf"(?: (?:for |on )?{_DAYS})?(?: (?:about|for|to) [a-z0-9' ]+)?"),
    _rx(rf"{_ASK_WHETHER}(?:any|the|my) {_KINDS} (?:is|are) (?:still )?(?:set|running|on|going|active|pending)"
        rf"(?: (?:for |on )?{_DAYS})?"),  # "check whether any timers are running"
    _rx(r"how (?:much time is|long is|much time|long|much longer|many (?:minutes|seconds|hours)(?: are| is)?)"
        r"(?: left| remaining| to go)? (?:on|for|in) "
        r"(?:my |the )?(?:[a-z0-9]+ )?(?:timers?|countdowns?)"),
    _rx(r"(?:what's |what is )?(?:the )?time (?:left|remaining) on (?:my |the )?(?:[a-z0-9]+ )?(?:timers?|countdowns?)"),
    _rx(r"how long (?:do i have |have i got |is it )?(?:until|till|before) (?:my |the )(?:next )?(?:[a-z0-9]+ )?(?:timer|alarm|countdown)s?"
        r"(?: goes off| go off| rings?| is done| ends| finishes)?"),
    _rx(r"how(?:'s| is| are) (?:my|the) (?:[a-z0-9]+ )?(?:timer|countdown)s? (?:doing|going|getting on|coming along)"),
    _rx(r"(?:is|are|has|have|did) (?:my|the) (?:[a-z0-9]+ )?(?:timer|countdown)s? (?:(?:almost|nearly|about|just about) )?"
        r"(?:done|finished|finish|up|over|gone off|go off|rung|ring)(?: yet)?"),
    _rx(r"check (?:on|in on) (?:my|the) (?:[a-z0-9]+ )?(?:timer|countdown|alarm|reminder)s?"),
    _rx(rf"are any {_KINDS} (?:set|running|on|active|pending)(?: now)?"),
    # whether what was asked was done: "did you actually set my alarm for 6 tomorrow", "have you really started the pasta timer"
    _rx(r"(?:did|have) you (?:actually |really |definitely |already |even )?(?:set|set up|start|started|make|made|put on|add|added|"
        r"create|created) (?:my|the|that|an?) (?:[a-z0-9:']+ ){0,2}?(?:alarm|timer|reminder|countdown)s?"
        r"(?: (?:for|at|on) [a-z0-9: ]+)?"),
    _rx(r"(?:is|are) (?:my|the|an?|any) (?:[a-z0-9]+ )?(?:alarm|timer|reminder|countdown)s? (?:still )?"
        rf"(?:set|on|running|going|active|ticking|counting)(?: now| still)?(?: (?:for |on )?{_DAYS}|"
        r" (?:for|to|at) [a-z0-9: ]+)?"),  # "is my alarm set for 7", "is the timer on for 5 minutes"
    _rx(rf"what(?:'s| is) (?:the )?status of (?:my |the )?{_KINDS}"),
    # nothing named: "what have I got set", "do I have anything scheduled for tomorrow", "anything set, timers or alarms"
    _rx(rf"(?:what (?:have i got|do i have|have i|did i|is there|have you got)|"
        rf"(?:(?:do i have|have i got|is there|are there) )?anything|(?:do i have|have i got|is there|are there) something) "
        rf"(?:set|scheduled|set up|booked in|running|ticking|coming up)(?: (?:for |on )?{_DAYS})?"
        rf"(?:,? (?:(?:or |and )?(?:{_KINDS}|anything)|and))*"),
    _rx(r"what(?:'s| is) (?:pending|scheduled|running|ticking)(?: right now| now)?|what are you timing(?: right now| now)?|"
        r"(?:list|show me|tell me|show) (?:everything|all) (?:you're|you are|that you're|that is) (?:timing|counting down)|"
        r"(?:list|show me|tell me|show|read me|read out|go through) (?:everything|all|what)"
        r"(?: that's| that is| i've| i have| you've| you have)?"
        r"(?: got)? (?:set|scheduled|running|pending|on)(?: up)?(?: right now| now)?"),
    _rx(r"how much (?:time is|time do i have|longer is) left|how long is left"),
    # a timer named by what it times: "how long is left on the brisket"; not a lease, a film or a flight
    _rx(rf"(?:how (?:much time is|much time's|long is|long's|much longer is) (?:left|remaining) (?:on|for)|how much longer on) "
        rf"(?:my |the ){_TIMED}"),
    _rx(rf"how long (?:until|till|before) (?:my |the ){_TIMED} (?:is|are|will be) (?:done|ready|finished|cooked)|"
        rf"(?:is|are) (?:my |the ){_TIMED} (?:nearly |almost )?(?:done|ready|finished|cooked)(?: yet)?"),
    # what the reminders say: "what did I ask you to remind me about"
    _rx(r"what (?:did|have) i (?:ask|asked|tell|told|get|got) you to remind me(?: about| of| to do)?(?: today| tomorrow)?|"
        r"what (?:are|were) you (?:supposed|meant|going) to remind me (?:about|of)(?: today| tomorrow)?|"
        r"what did you say you(?:'d| would) remind me (?:about|of)|what (?:did|do|will) you (?:have to )?remind me (?:about|of)"),
    _rx(r"(?:what's|what is|how much is|how much time is) (?:left|remaining) on (?:my |the )?(?:[a-z0-9]+ )?(?:timers?|countdowns?)"),
    _rx(rf"what(?:'s| is| are) (?:on )?(?:my|the) (?:{_KINDS}(?: list)?|list of {_KINDS})|(?:show me |read me |read )?my {_KINDS} list|"
        rf"(?:my |the )?{_KINDS} status|status of (?:my |the )?{_KINDS}|my {_KINDS}"),
    _rx(r"when(?:'s| is| does) (?:my|the) (?:next )?(?:alarm|timer|reminder)(?: set for| go off| ring)?"),
    _rx(r"(?:for )?what time (?:is|are|does|do|will) (?:my|the) (?:next )?(?:[a-z0-9]+ )?(?:alarm|timer|reminder)s? "
        r"(?:set for|set to|for|going to go off|going off|go off|ring|due)"),
]  # fmt: skip
_CANCEL_VERB = (
    r"(?:cancel|stop|delete|remove|clear|turn off|switch off|shut off|take off|kill|dismiss|get rid of|disable|scrap|drop|erase|"
    r"abort|forget|forget about|silence|never ?mind|i don'?t need|we don'?t need|i don'?t want|i no longer need|no need for|"
    r"no more)"
)
#: Words after a cancel that say it is final: "turn off the weekday alarm for good" cancels "the weekday alarm".
_FOR_GOOD = r"(?: anymore| any more| for good| for ever| forever| permanently| once and for all)"
_WHICH = (
    rf"(?P<which>(?:(?:the|my|all|all of|of|that|this|every|both|those|these)\s)*(?:[a-z0-9:']+ ){{0,3}}?{_KINDS}"
    rf"(?: \d+| number \d+|(?!{_FOR_GOOD}$) (?:called|named|for|about|at|to|on) [a-z0-9: ]+)?)"
)
#: Second thoughts said before a cancel, any number of them: "actually, never mind, cancel it", "forget it, stop the timer".
_RETHINK = (
    r"(?:(?:never ?mind|no|nope|nah|naw|wait|no wait|hold on|actually|oh|ok|okay|hmm|sorry|forget it|forget that|scratch that|"
    r"on second thoughts?|i changed my mind|changed my mind|i've changed my mind|oops|whoops|that was wrong|that's wrong|"
    r"my mistake|my bad|that was a mistake)[ ,]+)*"
)
#: The request taken back after a pause, at its end: "set a timer for 10 minutes, never mind". Nothing is set and
#: nothing is cancelled (nothing was set yet). The pause is what makes it a retraction: "remind me to tell him never
#: mind" is a reminder.
_RETRACTED = (
    r"(?:never ?mind|forget it|forget that|scratch that|don't bother|do not bother|ignore that|ignore me|cancel that|"
    r"i changed my mind|changed my mind|i've changed my mind)"
)
#: ... or found needless: a retraction after a request to set something, a reason after a cancel ("cancel the timer,
#: not needed anymore" cancels it).
_NEEDLESS = r"(?:no need|not needed|(?:i )?don't need (?:it|that|one)|(?:it )?doesn't matter)"
_TAKEN_BACK = _rx(
    rf"(?P<request>.+?), (?:(?:actually|oh|no|nah|wait|hmm|um|sorry|oops|ok|okay)[ ,]+)*"
    rf"(?:(?P<retracted>{_RETRACTED})|{_NEEDLESS})(?: any ?more| after all| then| now| actually)?"
)
_CANCEL_START = _rx(rf"{_RETHINK}{_CANCEL_VERB}\b")
_ONLY_RETHINK = _rx(_RETHINK)


def taken_back(t: str) -> bool:
    """``t`` (a cleaned utterance) takes its own request back at the end, after a pause (see :data:`_TAKEN_BACK`)."""
    m = _TAKEN_BACK.fullmatch(t)
    if m is None or _ONLY_RETHINK.fullmatch(m["request"] + ", "):  # "never mind, cancel that" cancels what was set
        return False
    return m["retracted"] is not None or not _CANCEL_START.match(m["request"])


_CANCEL = [
    _rx(rf"{_RETHINK}{_CANCEL_VERB} {_WHICH}(?:{_FOR_GOOD}| please| now)?"),
    _rx(rf"(?:turn|switch|shut) {_WHICH} off"),
    _rx(rf"{_RETHINK}{_CANCEL_VERB} (?P<which>(?:the )?number \d+)"),  # "cancel number 3": the list's third
]


#: Words that only say "at present" ("are there any timers running right now", "what alarms are currently set").
_AT_PRESENT = _rx(r",? \b(?:right now|just now|at the moment|at present|currently|as of now|now)\b")


def _is_list(t: str) -> bool:
    bare = " ".join(_AT_PRESENT.sub(" ", t).split())
    return any(rx.fullmatch(s) for rx in _LIST for s in (t, bare))


def match_list(t: str) -> Intent | None:
    """Also two list questions in a row: "is the stew nearly done, how long is left"."""
    parts = t.split(", ")
    return Intent("list_timers", {}) if _is_list(t) or (len(parts) == 2 and all(map(_is_list, parts))) else None


#: "cancel it", "never mind": no item named; the tool takes the only one or the one just set, else asks which.
_CANCEL_IT = _rx(
    rf"{_RETHINK}(?:(?:cancel|delete|remove|scrap|scratch|undo|call off|drop|kill|get rid of|dismiss|silence|abort|erase|clear) "
    r"(?:it|that|this|that one|this one)"
    r"(?: please| now| actually)?|never ?mind(?: that| it)?)"
)
#: Everything there is to cancel: the tool's "all".
_CANCEL_ALL = _rx(
    rf"{_RETHINK}(?:cancel (?:everything|all of them|them all|all of it|the lot)|"
    rf"(?:cancel|delete|clear|wipe|remove|get rid of) (?:every|each) (?:single )?(?:one|timer|alarm|reminder|countdown)"
    r"(?: (?:i have|i've got|i've set|i set|you have|there is))?)(?: please| now)?"
)
_MADE = r"(?:i|you) (?:just )?(?:set|made|added|started|created|put on)"
#: "the first one", "the third alarm": the tool counts them in the order they were set.
_NTH = r"(?:first|second|third|fourth|fifth|\d+(?:st|nd|rd|th))"
_CANCEL_LAST = _rx(
    rf"{_RETHINK}(?:{_CANCEL_VERB}|undo) (?P<which>the (?:last|latest|most recent|{_NTH}) (?:one|timer|alarm|reminder)|"
    rf"the (?:one|timer|alarm|reminder|countdown) (?:i|you) just (?:set|made|added|started|created))(?: {_MADE})?"
)


_POSSESSIVE = re.compile(r"(?<=\w)'s\b")  # "tomorrow's alarm" is the alarm for tomorrow


#: An item named in a clause before "cancel it": "the 6 pm alarm, get rid of it", "I don't need the gym alarm any more, delete it".
_NAMED_ITEM = _rx(
    r"\b(?P<which>(?:the|my|that|this) (?:(?:[a-z0-9:']+ ){1,3}?(?:timer|alarm|reminder|countdown)\b|"
    r"(?:timer|alarm|reminder|countdown)(?= anymore| any more| any longer|,|$)))"
)  # the bare kind only where the clause ends: "I don't need the alarm anymore …", not "I don't like the alarm sound"


#: "turn it off" after a clause naming the item ("I don't need the alarm anymore turn it off"); alone it names nothing.
_OFF_IT = _rx(r"(?:(?:turn|switch|shut) (?:it|that) off|(?:turn|switch|shut) off (?:it|that))(?: please| now)?")
#: Where "cancel it" starts after a clause said with no pause: "… the laundry timer anymore you can cancel it".
_IT_AFTER = _rx(r" (?:(?:so|just|you can|you can just|please|go ahead and) )?(?=\S)")


def _named_before(t: str) -> Intent | None:
    scene, _, rest = t.rpartition(", ")
    if not scene or not (_CANCEL_IT.fullmatch(rest) or _OFF_IT.fullmatch(rest)):
        cuts = [m for m in _IT_AFTER.finditer(t) if _CANCEL_IT.fullmatch(t, m.end()) or _OFF_IT.fullmatch(t, m.end())]
        if not cuts:
            return None
        scene = t[: cuts[0].start()]
    named = list(_NAMED_ITEM.finditer(words_to_numbers(scene)))
    return Intent("cancel_timer", {"which": _POSSESSIVE.sub("", named[0]["which"])}) if len(named) == 1 else None


#: Not wanting an item at all ("I don't need a reminder for that", "no need for an alarm") declines one: nothing to cancel.
#: An item named by its time may be one that is set: "I don't need an alarm tomorrow" cancels tomorrow's.
_DECLINE = _rx(rf"{_RETHINK}(?:(?:i|we) (?:don'?t|do not) (?:need|want)|no need for) (?:an?|any) {_KINDS}(?: for (?:that|it|this|me|now))?")


def match_cancel(t: str) -> Intent | None:
    if _DECLINE.fullmatch(t):
        return None
    if (intent := _named_before(t)) is not None:
        return intent
    if _CANCEL_IT.fullmatch(t):
        return Intent("cancel_timer", {})
    if _CANCEL_ALL.fullmatch(t):
        return Intent("cancel_timer", {"which": "all"})
    if m := _CANCEL_LAST.fullmatch(t):
        return Intent("cancel_timer", {"which": m["which"]})
    for rx in _CANCEL:
        if m := rx.fullmatch(words_to_numbers(t)):
            return Intent("cancel_timer", {"which": _POSSESSIVE.sub("", re.sub(r"\bnumber (?=\d)", "", m["which"])).strip()})
    return None
