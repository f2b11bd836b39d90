"""Pre-match phrasings for the clock and the calendar: ``current_time`` and ``date_info``.

Each matcher takes the cleaned utterance (:func:`genx.assistant.prematch.clean_utterance`)
and returns an :class:`~genx.assistant.intents.Intent` when the *whole* text is
one of its phrasings. Phrasings that are loose ("when is X", "what's the date
X") claim the message only when X reads as a date (:func:`~genx.toolbox.dates.parse_date`),
so "when is my dentist appointment" stays with the model. The same holds for a
date said before its question ("three weeks after April 10, what's the date")
and a yes/no question about a day ("is next Friday the 13th", "is tomorrow Saturday"), and a
clause telling when something happened ("I was born on 9 May 1985, what day was that"). A question
about the past asks about the last date of that name ("how long since 6 January" → "last 6 January",
"how many days since Easter" → "last Easter"); a range may be said first ("we're away from 2 May to
the 9th, how many days is that": the end takes the start's month); "that", "then" are no date (the
back-reference, :mod:`.prematch_backref`, resolves them); "a week on Friday" is a week from Friday; a personal day
may be dated after the question ("what day is my birthday next year, it's the 9th of November"). The time "for my brother
in Nairobi" is Nairobi's; "is it the 15th today" asks today's date, "is easter far off" about Easter, and "how many days
to go" after a date question asks about its date ("is easter far off, how many days to go"); "the sun" is no Sunday
(:mod:`.prematch_things`).
"""

from __future__ import annotations

import re

from genx.assistant.intents import Intent
from genx.assistant.patterns import rx as _rx
from genx.assistant.prematch_things import names_a_thing
from genx.assistant.slot_reads import read_match, reads

__all__ = ["match_date", "match_time"]


_NOW = (
    r"(?:(?: right)? now| currently| at the moment| at the minute| at present| today| just now| there| here| over here| back home|"
    r" at home)?"
)
_IN = r"(?:in|at|for|on|over in|over there in|down in|out in|up in|there in|back in|back home in|right now in|now in)"
_PLACE = r"(?P<place>[^?]+?)"
_TIME = [
    _rx(
        r"(?:what(?:'s| is)? |whats )?(?:the )?(?:current |local |exact |present |actual |correct )?(?:time|hour)"
        r"(?: is it|'s it| it is| is it now| now| is it there| there| like| do they have| have they got| would it be| will it be)?"
        + _NOW
        + rf"(?:,? {_IN} {_PLACE})?"
        + _NOW
    ),
    _rx(rf"what time (?:do they have|have they got|is it showing|is it over there) {_IN} {_PLACE}{_NOW}"),
    _rx(rf"(?:(?:what's|what is|whats) )?(?:the )?(?:current |local )?(?:time|clock) (?:in|at) {_PLACE} (?:right )?now"),
    _rx(rf"(?:give me|check|get|say|read|let me know|show me|tell us)(?: me)? (?:the )?(?:current |local )?time(?: {_IN} {_PLACE})?{_NOW}"),
    _rx(r"(?:do you have|have you got|have you|got|you got) (?:the )?time|what time (?:have you got|do you have)"),
    _rx(r"time check|check the time|clock check"),
    _rx(rf"how late is it(?: {_IN} {_PLACE})?{_NOW}"),
    _rx(r"what o'?clock is it"),
    _rx(rf"(?:in {_PLACE}[, ]+)what time is it{_NOW}"),
    _rx(rf"{_PLACE} (?:local )?time{_NOW}"),
]
#: An hour a yes/no question compares the clock with: "after five", "past 10 pm", "before 9 o'clock".
_HOUR = r"(?:after|past|gone|before) (?:[a-z]+|\d{1,2}(?::\d\d)?)(?: o'clock| ?[ap]\.?m\.?)?"
#: Loose phrasings: claimed only for a place with a known zone ("is it morning in Seoul"; "is it night in Narnia" is not).
_TIME_OF_PLACE = [
    _rx(
        rf"is it (?:still |already |too |very |nearly |almost )?(?:morning|afternoon|evening|night|night ?time|day ?time|late|early|"
        rf"(?:the )?middle of the (?:night|day)|midnight|midday|noon|lunch ?time|bedtime|dinner ?time|{_HOUR}) (?:yet )?"
        rf"{_IN} {_PLACE}{_NOW}(?: yet)?"
    ),
    # how far its clock is from ours, which the clock's answer shows: "how many hours behind us is Denver"
    _rx(rf"how many hours (?:ahead|behind|ahead or behind|in front)(?: (?:of )?(?:us|me|here))? (?:is|are) {_PLACE}"),
    _rx(rf"(?:what(?:'s| is) )?the time difference (?:with|to|between here and|between us and|from here to) {_PLACE}"),
    # whether it is a decent hour there: "is it too early to ring my nan in Perth"
    _rx(rf"is it (?:too|very|a bit|still too) (?:late|early) to (?:call|ring|phone|text|message|wake) [a-z' ]+? in {_PLACE}{_NOW}"),
    # the place in a clause around the question, with or without a pause: "I'm calling my sister in Melbourne, what time is it
    # there", "is it too late to ring my nan in Perth what time is it there",
    # "what time is it where my brother lives, in Denver"
    _rx(rf"[^,]* (?:in|from) {_PLACE},? (?:so )?(?:what(?:'s| is) the time|what time is it) (?:there|over there){_NOW}"),
    _rx(rf"(?:what(?:'s| is) the time|what time is it) (?:where|for) [^,]+, (?:in|over in|out in) {_PLACE}"),
    # a place's zone, which the clock's answer names: "what's the time zone in Chicago", "what time zone is Denver in"
    _rx(rf"(?:what(?:'s| is) )?(?:the )?time ?zone (?:in|of|for) {_PLACE}"),
    _rx(rf"what time ?zone is {_PLACE} in"),
    _rx(rf"(?:what(?:'s| is) )?{_PLACE}(?:'s| s) time ?zone"),
    # a zone named by its time: "what's greenwich mean time right now", "central european time"
    _rx(rf"(?:what(?:'s| is) )?(?:the )?(?:current )?(?P<place>[a-z]+ [a-z]+ time){_NOW}"),
    # the place said first: "Tokyo, what time is it there"
    _rx(rf"(?:in |and in |what about )?{_PLACE},? (?:what(?:'s| is) the time|what time is it)(?: there| over there)?{_NOW}"),
]
_HERE = re.compile(
    r"(?:here|home|my (?:place|city|time ?zone|location|area)|the morning|the evening|this place|you|the moment|present)",
    re.IGNORECASE,
)


_COMMON = frozenset(
    "me my your our the a an what which that this next last first every any some one free screen play half prime long good "
    "tea story nap bed dinner lunch breakfast quality closing opening party game show meeting bath lights summer winter "
    "spring fall daylight standard local real run down up over part full".split()
)


def _is_place(text: str) -> bool:
    words = text.lower().split()
    if not words or len(text) < 3 or any(w in _COMMON for w in words):
        return False
    return reads("place", text)


_CLAUSE = re.compile(r"(?:i|i'm|im|we|we're|because|cause|so|since|as|and|my|our|where|for|please)\b", re.IGNORECASE)


def _place_before_clause(place: str) -> str:
    """The longest start of ``place`` that is a place, when a clause follows ("vancouver i want to call my brother")."""
    if reads("place", place):
        return place
    words = place.split()
    for cut in range(min(len(words) - 1, 4), 0, -1):
        head, rest = " ".join(words[:cut]).strip(" ,"), " ".join(words[cut:])
        if _CLAUSE.match(rest) and reads("place", head):
            return head
    return place


#: Someone in a place the time is asked for: "what time is it for my brother in Nairobi" asks Nairobi's time.
_SOMEONE_IN = _rx(
    r"(?:(?:my|our|his|her|their|your|a|the) )?[a-z']+(?: [a-z']+)?(?: who(?:'s| is| lives))? "
    r"(?:in|over in|out in|down in|up in|living in|based in) (?P<place>.+)"
)


def _someone_in(place: str) -> str:
    """The place of someone said for it ("my brother in Nairobi" → "Nairobi"), when only that part is a place."""
    if (m := _SOMEONE_IN.fullmatch(place)) and not reads("place", place) and reads("place", m["place"]):
        return m["place"]
    return place


def match_time(t: str) -> Intent | None:
    for i, rx in enumerate(_TIME):
        m = rx.fullmatch(t)
        if not m:
            continue
        place = (m.groupdict().get("place") or "").strip(" ,")
        if i == len(_TIME) - 1 and (len(place.split()) > 4 or not _is_place(place)):
            continue  # "<place> time" only for a place we know ("Tokyo time"; "dinner time" is not one)
        place = "" if _HERE.fullmatch(place) else _someone_in(_place_before_clause(place))
        if place and t[: m.start("place")].split()[-1:] in (["for"], ["on"], ["at"]) and not reads("place", place):
            continue  # "time for bed", "the time on the oven": a place only after "in", else one we know ("time for Tokyo")
        return Intent("current_time", {"place": place} if place else {})
    if m := read_match(_TIME_OF_PLACE, t, "place", _is_place):
        return Intent("current_time", {"place": m["place"].strip(" ,")})
    return None


_DAY_WORDS = r"(?:day|date|day of the week|weekday|day of week|day of the month|day and (?:the )?date|date and (?:the )?day)"
_YEAR = r"(?P<year> this year| next year| last year| in \d{4})?"  # kept with the date: "christmas next year" is 2027
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend)"
_DATE_EXPR = r"(?P<date>in .+|.+ from (?:now|today)|.+ ago|tomorrow|yesterday|the day after tomorrow|the day before yesterday)"
#: The verb of a day question in either order: "what day will it be …" and, after "tell me", "what day it'll be …".
_IT_BE = (
    r"(?:is it|will it be|would it be|was it|is|was|is it going to be|is it gonna be|it'll be|it will be|it would be|it'd be|"
    r"it was|it is|it's|it's going to be|it is going to be|it's gonna be)"
)
_ORDINAL = (  # a day of the month: "the 13th", "the thirteenth", "the twenty-first"
    r"(?:[12]?\d|3[01])(?:st|nd|rd|th)|(?:(?:twenty|thirty)[- ]?)?"
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|tenth|eleventh|twelfth|thirteenth|fourteenth|"
    r"fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth"
)
_DATE: list[tuple[re.Pattern[str], bool]] = [  # (pattern, its date must parse); a pattern without a date group: today
    (
        _rx(
            rf"(?:what(?:'s| is)? |whats |which )?(?:the |today's |todays )?{_DAY_WORDS}"
            rf"(?: is it| it is| is today| today is| is this)?{_NOW}"
        ),
        False,
    ),
    (_rx(r"what(?:'s| is) (?:the date )?today(?:'s| s)?(?: date)?"), False),
    (_rx(r"what(?:'s| is| was| will be) (?P<date>the day after tomorrow|the day before yesterday|tomorrow|yesterday)"), False),
    (_rx(r"(?:what|which) (?:year|month) (?:is it|is this|are we in)(?: now| today)?"), False),
    (_rx(r"(?:tell me |give me )?(?:the |today's |todays )?date(?: please)?"), False),
    (_rx(rf"(?:what|which) {_DAY_WORDS} {_IT_BE} {_DATE_EXPR}"), False),
    (_rx(rf"what(?:'s| is| was| will be)? the {_DAY_WORDS} (?:be |going to be |will be |would be |is |was )?{_DATE_EXPR}"), False),
    (_rx(rf"what will the {_DAY_WORDS} be {_DATE_EXPR}"), False),
    (  # "what will the date be a week from Friday", "what's the date going to be on Friday"
        _rx(rf"what(?:'s| is| will)? the {_DAY_WORDS} (?:be|going to be|gonna be|will be|would be) (?:on )?(?P<date>.+)"),
        True,
    ),
    (_rx(r"what(?:'s| is| was| will be) (?P<date>\S+ (?:days?|weeks?|months?|years?|fortnights?) (?:from (?:now|today)|ago))"), True),
    (_rx(rf"(?:is|was) it (?:a )?{_WEEKDAY} (?P<date>today|tomorrow|yesterday)"), False),
    (_rx(rf"(?:what|which) {_DAY_WORDS} (?:will it be|is it|it'll be|it will be|it is|it's) (?P<date>.+)"), True),
    (_rx(rf"what(?:'s| is| was| will be) the {_DAY_WORDS} (?:on |of |for )?(?P<date>.+)"), True),
    (
        _rx(
            rf"(?:what|which) {_DAY_WORDS} (?:is|was|will be|falls on|does|did|will|is it on|was it on) (?P<date>.+?)"
            r"(?: fall on| fall| be on| be| land on| land| on| going to be| gonna be)?" + _YEAR
        ),
        True,
    ),
    (_rx(rf"(?:on )?(?:what|which) {_DAY_WORDS} (?:does|did|will) (?P<date>.+?) (?:fall|land|be)(?: on)?{_YEAR}"), False),
    (_rx(rf"(?P<date>.+?) (?:is|was|will be|falls on) (?:on )?(?:what|which) {_DAY_WORDS}{_YEAR}"), True),
    # the statement order, as after "I need to know": "what day the 4th of July falls on", "which day Easter is"
    (
        _rx(
            rf"(?:what|which) {_DAY_WORDS} (?P<date>(?!(?:is|was|will|does|did|it|it's|of)\b).+?) "
            rf"(?:falls on|fell on|will fall on|lands on|is on|was on|is|was|will be){_YEAR}"
        ),
        True,
    ),
    (
        _rx(
            r"how many (?:more )?(?:days|weeks|months|sleeps)"
            r"(?: are there| is it| are left| left| remain| remaining| to go| do we have| do i have)?"
            r" (?:until|till|til|to|before|'til|till it's|until it's|until it is) (?P<date>.+?)(?: left| to go| from (?:now|today))?"
        ),
        False,
    ),
    (_rx(r"(?:count (?:the )?)?(?:days|weeks|sleeps) (?:left )?(?:until|till|til|to) (?P<date>.+?)"), False),
    (_rx(r"how many (?:days|weeks|months) (?:away|off) is (?P<date>.+?)"), True),
    (  # not "… is a fortnight"; "how many days is the 3rd of May from now"
        _rx(r"how many (?:days|weeks|months|sleeps) is (?!an? |one |\d+ |half )(?P<date>.+?)(?: from (?:now|today)| away)?"),
        True,
    ),
    # today's day of the month, asked as a yes/no question: "is it the 15th today", "is today the 3rd or the 4th"
    (
        _rx(rf"(?:is it|is today|is it today) (?:the )?(?:{_ORDINAL})(?: today)?(?:,? or (?:is it )?(?:the )?(?:{_ORDINAL}))?(?: today)?"),
        False,
    ),
    # how near a day is: "is easter far off", "is christmas coming up soon"
    (
        _rx(
            r"(?:is|are) (?P<date>(?!it\b|that\b|this\b|now\b).+?) (?:(?:still |very |too )?far (?:off|away)|a long way (?:off|away)|"
            r"soon|coming up(?: soon)?|close|near|nearly here|almost here)(?: yet| now)?"
        ),
        True,
    ),
    (
        _rx(
            r"how (?:long|much longer|much time) (?:is it |is left |left |is there |do we have |do i have )?"
            r"(?:until|till|til|before) (?P<date>.+?)"
        ),
        True,
    ),
    (
        _rx(
            r"how (?:long|many (?:days|weeks|months|years)) "
            r"(?:ago was|since|has it been since|have passed since|is it since|was it since) (?P<date>.+?)"
        ),
        False,
    ),
    (_rx(r"how many days ago was (?P<date>.+?)"), False),
    (_rx(r"how many (?:days|weeks) (?:are )?(?:left|remaining) in (?:the |this )(?P<date>month|year)"), False),
    (_rx(r"how many (?:days|weeks) (?:are there |are left |is it )?between (?:now|today) and (?P<date>.+?)"), False),
    (
        _rx(
            r"how many (?:days|weeks|months) (?:are there |are |is it |is there |is )?(?:between|from) (?P<from>.+?) "
            r"(?:and|to|until|till) (?P<date>.+?)"
        ),
        True,
    ),
    (  # the range said first, in a clause: "the course runs from 3 May to 21 June, how many weeks is that"
        _rx(
            r"(?:[^,]*? )?(?:from|between) (?P<from>[^,]+?) (?:to|and|until|till|through) (?P<date>[^,]+?),? how many "
            r"(?:days|weeks|months|nights) (?:is that|is it|will that be|would that be|does that make|is that altogether|in total)"
        ),
        True,
    ),
    (  # the date a length of time reaches: "what date does 90 days take me to"
        _rx(r"(?:what|which) (?:date|day) (?:does|will|would) (?P<date>.+?) (?:take|bring|get|put) (?:us|me|you)(?: up)?(?: to)?"),
        True,
    ),
    (_rx(rf"when(?:'s| is| was| will be) (?P<date>.+?){_YEAR}"), True),
    (_rx(rf"how (?:far away|far off|soon|far) is (?P<date>(?!now\b|it\b|that\b).+?){_YEAR}"), True),
    (_rx(r"(?:what(?:'s| is| was) )?the date (?P<date>.+)"), True),
    (_rx(rf"(?:is|was|will) (?P<date>.+?) (?:be )?(?:a |on a |on )?{_WEEKDAY}{_YEAR}"), True),
    (_rx(r"(?:what(?:'s| is| was| will be)|whats|tell me|give me) (?P<date>[a-z0-9' ]+?)(?:'s| s) date"), True),  # "tomorrow's date"
    (_rx(rf"(?:is|was|will) (?P<date>.+?) (?:be )?(?:the|on the) (?:{_ORDINAL})(?: of (?:the|this) month)?{_YEAR}"), True),
    (  # the date said first: "three weeks after April 10, what's the date", "next Tuesday, what day of the month is that"
        _rx(
            rf"(?:on |for )?(?P<date>.+?),? (?:what(?:'s| is| will be| was| would be)? the {_DAY_WORDS}(?: be| then)?|"
            rf"(?:what|which) {_DAY_WORDS} (?:is it|will it be|would it be|was it|is that|will that be|would that be|was that))"
        ),
        True,
    ),
]


def _is_date(text: str) -> bool:
    return reads("date", text)


_PERSONAL = _rx(r"(?:my|our|his|her|their|your) ")
_POSSESSIVE = _rx(r"(?P<day>.+?)(?:'s|s') date")
#: "2 weeks from Friday"; "a fortnight on Friday", "a week on Tuesday" (British) are that long after the day too.
_OFFSET = _rx(r"(?P<offset>.+?) (?P<way>from|after|before|on) (?P<date>.+)")
_EVENT = _rx(r"(?:my|our|his|her|their|the) [a-z' ]+?(?:,| (?:on|is on|which is on|falls on|is),?) (?P<date>.+)")
#: A clause telling when something happened: "I was born on the 9th of May 1985", "we got married on 5 June 2010".
_HAPPENED = _rx(r"(?:i|we|he|she|they|(?:my|our|his|her|their) [a-z]+)(?: [a-z']+){1,4}? (?:on|in) (?P<date>.+)")


def _date_args(when: str) -> dict[str, str]:
    """The slots of a date: "2 weeks from Friday" → date + offset; "my birthday on 12 August" → the date alone."""
    if (m := _OFFSET.fullmatch(when)) and m["date"].lower() not in ("now", "today") and reads("offset", m["offset"]):
        if _is_date(m["date"]) and not re.search(r"\d{4}", m["offset"]):
            return {"date": m["date"], "offset": m["offset"] + (" before" if m["way"].lower() == "before" else "")}
    for rx in (_EVENT, _HAPPENED):
        if not _is_date(when) and (m := rx.fullmatch(when)) and _is_date(m["date"]):
            return {"date": m["date"]}
    return {"date": when} if when else {}


#: Words that point at a date said elsewhere ("how many days ago was that"): the back-reference resolves them, not the tool.
_POINTING = frozenset(("that", "then", "there", "that day", "that date", "this one", "that one"))
#: A question about the past: its date with no year is the last one ("how long since 6 January" → "last 6 January").
_PAST = _rx(r"\b(?:ago|since)\b")
_NO_LAST = _rx(r"\d{4}|\b(?:last|next|this|ago|yesterday|today|tomorrow|now)\b")


_MONTH_NAME = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
)
_BARE_DAY = _rx(rf"(?:the )?(?:{_ORDINAL})")
_ITS_MONTH = _rx(rf"(?:the )?(?:{_ORDINAL}) (?:of )?(?P<month>{_MONTH_NAME})\b.*|(?P<first>{_MONTH_NAME}) (?:the )?(?:{_ORDINAL})\b.*")


def _one_month(day: str, other: str) -> str:
    """A range's end said without its month takes the other end's: "from the 3rd to the 9th of June" → "the 3rd of June"."""
    if _BARE_DAY.fullmatch(day) and (m := _ITS_MONTH.fullmatch(other)):
        return f"{day} of {m['month'] or m['first']}"
    return day


def _in_the_past(day: str) -> str:
    bare = re.sub(r"^(?:(?:on|the)\s+)+", "", day, flags=re.IGNORECASE)
    return f"last {bare}" if not _NO_LAST.search(bare) and _is_date(f"last {bare}") else day


#: A question about a personal day, then its date: "what day will my birthday be next year, it's the 9th of November".
_DATE_SAID_AFTER = _rx(r"(?P<head>.+?), (?:it's|it is|that's|that is|which is|it falls)(?: on)? (?P<date>[^,]+)")
_PERSONAL_DAY = _rx(r"\b(?:my|our|his|her|their) [a-z']+(?: [a-z']+)?")


def _date_said_after(t: str) -> Intent | None:
    """The question with its personal day replaced by the date said after it (shortest name first: "my birthday")."""
    if not (m := _DATE_SAID_AFTER.fullmatch(t)) or not _is_date(m["date"]):
        return None
    for day in _PERSONAL_DAY.finditer(m["head"]):
        for name in sorted({day[0], " ".join(day[0].split()[:2])}, key=len):
            head = m["head"].replace(name, m["date"], 1)
            if (intent := _match_date(head)) is not None and intent.arguments and _is_date(str(intent.arguments.get("date"))):
                return intent
    return None


#: A date question, then how long until it said with no date of its own: "is easter far off, how many days to go".
_HOW_LONG_AFTER = _rx(
    r"(?P<head>.+?),? how (?:many (?:more )?(?:days|weeks|months|sleeps)|long|much longer)"
    r"(?: (?:to go|left|away|off|is that|is it|until then|till then|now))*"
)


def match_date(t: str) -> Intent | None:
    if (m := _HOW_LONG_AFTER.fullmatch(t)) and (intent := _match_date(m["head"])) is not None and intent.arguments:
        return intent
    return _match_date(t) or _date_said_after(t)


def _match_date(t: str) -> Intent | None:
    for rx, must_parse in _DATE:
        m = rx.fullmatch(t)
        if not m:
            continue
        when = (m.group("date") + (m.groupdict().get("year") or "")).strip(" ,") if "date" in rx.groupindex else ""
        if when.lower() in _POINTING:
            continue
        if (day := _POSSESSIVE.fullmatch(when)) and _is_date(day["day"]):  # "what weekday is next friday's date"
            when = day["day"]
        since = (m.groupdict().get("from") or "").strip(" ,")
        if since:
            if since.lower() not in ("now", "today") and not _is_date(since):
                continue
            if since.lower() not in ("now", "today"):
                since, when = _one_month(since, when), _one_month(when, since)
                return Intent("date_info", {**_date_args(when), "from_date": since})
        if when.lower() in ("month", "year"):
            when = f"the end of the {when.lower()}"
        if when.lower().startswith("in ") and not _is_date(when):
            if _is_place(when[3:]):  # "what day is it in Tokyo": the clock there says
                return Intent("current_time", {"place": when[3:].strip()})
            continue
        if names_a_thing((args := _date_args(when)).get("date", "")):  # "how far away is the sun": no day
            continue
        if when and (must_parse or _PERSONAL.match(when)) and "offset" not in args and not _is_date(args["date"]):
            continue  # "when is my dentist appointment", "how many days until my birthday": no date said
        if when.lower() in ("it", "today", "this", "today's date", "now"):
            args = {}
        if "date" in args and "offset" not in args and _PAST.search(t[: m.start("date")]):
            args = {"date": _in_the_past(args["date"])}
        return Intent("date_info", args)
    return None
