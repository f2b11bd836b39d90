"""Everyday arithmetic said as a story, rewritten as the sum it asks: prices, rates, having and giving.

:data:`WORD_PROBLEMS` is a list of (pattern, replacement) pairs in the shape of
:mod:`.prematch_numbers`' spoken forms, applied after them to numberised,
lower-case text whose money words are gone ("14.50 dollars" → "14.50", "30 cents" → "(30 / 100)")
and whose question words the calculator's lead and tail patterns may already have cut
("how much will that [be]"). Each pattern is the whole story: a price each and a
count ("if pizzas cost 14.50 each and we order 3, how much is that"), a rate and a
count of its unit ("if I earn 20 an hour and work 8 hours, how much do I make"),
having some and giving or getting some ("I have 20 apples and give away 7, how many
do I have left"), a rate over a stretch of time ("if I save 35 a week, how much will I have after 52 weeks")
and a total shared ("we won 900 and there are 4 of us, how much does each of us get"; "dinner was 60 and
there's 3 of us, how much each"; "we're 4 and the bill came to 80, how much each"), groups of a number each ("3 boxes with
24 eggs in each, how many eggs is that"), a pace from a distance and its time ("if I run 5 km in 27 minutes, how many
minutes per km is that"; the time and the distance must be the ones asked about), and laps of a pool or a track
("how many lengths of a 50 metre pool is 2000 metres"), pieces cut from a length ("if I cut 3 28 inch pieces from a 96 inch
board, how much is left"), a count of things of one length ("each round is 90 seconds and we play 14 rounds, how many
seconds is that") and groups with extras ("4 beds of 8 plants each plus 6 extra"). What is left must
still evaluate before the pre-match claims it.
"""

from __future__ import annotations

import re

from genx.assistant.patterns import rx as _rx

__all__ = ["WORD_PROBLEMS"]


_NUM = r"(\d+(?:\.\d+)?|\(\d+ / 100\))"  # a price: "14.50", "(50 / 100)" (50 cents)
_EACH = r"(?:each|apiece|a piece|a pop|per (?:person|head|ticket|item|piece|one|unit))"
#: The question after a price and a count, its last words perhaps already cut by _CALC_TAIL ("will that [be]").
_HOW_MUCH = (
    r"(?:how much|what)(?:(?:'s| is| are| does| do| would| will)? (?:that|it|the(?: total)?|this|we|i)"
    r"(?: (?:be|cost|come to|pay|owe|spend|need))?)?(?: in total| altogether| all together)?$"
)
_WHO = r"(?:i|we|you|they|she|he)"
_THINGS = r"[a-z]+(?: [a-z]+)?"  # what is counted: "pizzas", "cinema tickets"
#: The question of a shared total: "how much does each of us get", "how much each", "what's that per person".
_EACH_SHARE = (
    r"(?:how much (?:does|do|will|would|should|can) (?:each|everyone|every person|each one)(?: person| one)?(?: of (?:us|them))? "
    r"(?:get|have|take home|receive|take|pay|owe|put in)|(?:how much|what)(?:'s| is)?(?: (?:that|it))? "
    r"(?:each|per (?:person|head)|a head|apiece)(?: then)?)"
)
_DIST = r"(km|kilometre|kilometer|mile|lap|length)s?"  # the unit's singular is group 2, said again after "per"
_SPAN = r"(minute|hour|second)s"
#: A distance done in a time: "I run 5 km in 27 minutes", "she cycled 40 miles in 2 hours".
_DONE = (
    rf"^(?:if )?{_WHO} (?:run|ran|walk|walked|cycle|cycled|ride|rode|swim|swam|drive|drove|do|did|jog|jogged|hike|hiked)s? "
    rf"(\d+(?:\.\d+)?) ?{_DIST} in (\d+(?:\.\d+)?) ?{_SPAN},? "
)
_PACE_END = r"(?: is that| is it| was that| was it| am i doing| are we doing| pace| on average)?$"
_HAVE = rf"^(?:if )?{_WHO} (?:have|had|has|got) (\d+) {_THINGS},? and (?:{_WHO} )?"
_LENGTH = r"(inch|cm|mm|m|metre|meter|centimetre|centimeter|foot|feet|ft|yard)"  # a length's unit, said again for the whole
_LEFT = r"how much (?:is |would be |will be |do (?:i|we) have |have (?:i|we) got |does that leave |is there )?(?:left over|left|remaining)$"

WORD_PROBLEMS: list[tuple[re.Pattern[str], str]] = [
    # a price each and a count: "if pizzas cost 14.50 each and we order 3, how much is that"
    (_rx(rf"^(?:if )?(?:an? |one |the |each |every )?{_THINGS} (?:costs?|are|is|were|was) {_NUM}(?: {_EACH})?(?:,? and|,? so|,)? "
         rf"{_WHO} (?:order|buy|get|need|want|take|have|book)(?: in)? (\d+)(?: of them)?,? {_HOW_MUCH}"),
     r"\1 * \2"),
    # a count at a price: "3 coffees at 4.20 each, how much is that", "how much would 4 tickets at 25 dollars cost"
    (_rx(rf"^(?:(?:i|we) (?:need|want|bought|buy|ordered|order|got|get|am buying|are buying|'re buying|'m buying) )?"
         rf"(\d+) {_THINGS} (?:at|for) {_NUM} {_EACH},? {_HOW_MUCH}"),
     r"\1 * \2"),
    (_rx(rf"^(?:how much )?(?:(?:would|will|do|does|did) )?(\d+) {_THINGS} (?:at|for) {_NUM}(?: {_EACH})? cost"
         r"(?: in total| altogether)?$"),
     r"\1 * \2"),
    # a rate and a count of its unit: "if I earn 20 dollars an hour and work 8 hours, how much do I make"
    (_rx(rf"^(?:if )?{_WHO} (?:earn|make|get|charge|pay|spend|save|burn)s? {_NUM} (?:an?|per) (hour|day|week|month),? and "
         rf"(?:{_WHO} )?(?:work|do|spend|go|walk|run|drive|save|charge|stay|rent)(?:s|es)?(?: for)? (\d+) \2s?,? "
         rf"how much (?:do|would|will|did|does) {_WHO}(?: make| earn| get| spend| save| burn| pay| owe)?(?: in total| altogether)?$"),
     r"\1 * \3"),
    # a rate and how long it runs for: "if I save 35 a week, how much will I have after 52 weeks"
    (_rx(rf"^(?:if )?{_WHO} (?:earn|make|get|charge|pay|spend|save|burn|put (?:away|aside|by))s? {_NUM} (?:an?|per|each|every) "
         rf"(hour|day|week|month|year),? how much (?:do|would|will|did|does|should) {_WHO} (?:have|make|earn|get|spend|save|burn|pay|"
         rf"owe|have saved|have spent|have earned|have paid)(?: in total| altogether)? (?:after|in|over|for|within) (\d+) \2s?"
         r"(?: in total| altogether)?$"),
     r"\1 * \3"),
    # a total and how many share it: "we won 900 in the raffle and there are 4 of us, how much does each of us get",
    # "the bill came to 120 and there's 5 of us, how much each"
    (_rx(rf"^(?:if )?(?:{_WHO} (?:won|win|got|get|have|had|earned|made|raised|found|inherited|collected|received)(?: [a-z]+)?|"
         rf"(?:the |our |my )?[a-z]+(?: [a-z]+)? (?:came to|comes to|come to|was|is|cost|costs|totalled|totaled|added up to|"
         rf"adds up to)) {_NUM}(?: [a-z]+){{0,4}}?,? (?:and|but|so) (?:there(?: are| were| is|'re|'s) |{_WHO}(?: are| were|'re) )(\d+)"
         rf"(?: of (?:us|them)| people| friends)?,? {_EACH_SHARE}$"),
     r"\1 / \2"),
    # how many share it said first: "we're 6 at the table and the bill came to 90, how much is that each"
    (_rx(rf"^{_WHO}(?: are|'re| were) (\d+)(?: [a-z]+){{0,3}}?,? (?:and|but|so) (?:the |our |my )?[a-z]+(?: [a-z]+)? "
         rf"(?:came to|comes to|come to|was|is|cost|costs|totalled|totaled|added up to|adds up to) {_NUM},? {_EACH_SHARE}$"),
     r"\2 / \1"),
    # groups of a number each: "there are 5 crates with 12 bottles in each, how many bottles is that"
    (_rx(rf"^(?:(?:{_WHO}(?:'ve| have)? (?:got|have|had|bought|ordered|need)|there(?: are|'re| were)) )?(\d+) {_THINGS} "
         rf"(?:with|of|holding|containing|that hold|each with) (\d+) {_THINGS}(?: in| inside)?(?: each| each one| every one| apiece)?,? "
         rf"how many(?: {_THINGS})? (?:is that|are there|is it|does that make|do (?:i|we|you) have)"
         r"(?: altogether| in total| all together)?$"),
     r"\1 * \2"),
    # the same with extras: "I need 4 trays of 12 cupcakes each plus 5 spare, how many cupcakes is that"
    (_rx(rf"^(?:(?:{_WHO}(?:'ve| have)? (?:got|have|had|bought|ordered|need)|there(?: are|'re| were)) )?(\d+) {_THINGS} "
         rf"(?:with|of|holding|containing|that hold|each with) (\d+) {_THINGS}(?: in| inside)?(?: each| each one| every one| apiece)?,? "
         rf"(?:plus|and|with) (\d+) (?:extra|more|spare|on top|besides|left over)(?: {_THINGS})?,? "
         rf"how many(?: {_THINGS})? (?:is that|are there|is it|does that make|do (?:i|we|you) (?:have|need))"
         r"(?: altogether| in total| all together)?$"),
     r"\1 * \2 + \3"),
    # one of a count lasts so long: "each round is 90 seconds and we play 14 rounds, how many seconds is that"
    (_rx(rf"^(?:(?:the|a|an|each|every|one) )?([a-z]+) (?:is|lasts|takes|runs)(?: for)? (\d+(?:\.\d+)?) ([a-z]+)(?: long)?,? (?:and|so) "
         rf"(?:{_WHO}(?:'re| are| will| 'll)? (?:play|playing|do|doing|have|run|watch|need|get|want|book|go for|sing|record)|"
         rf"there(?: are| will be|'re| is)) (\d+)(?: of (?:them|those)| \1s?)?,? "
         r"how (?:many \3|much time|long)(?: is that| is it| will that be| would that be| does that make| will it take| does it take|"
         r" do (?:i|we) need)?(?: altogether| in total| all together)?$"),
     r"\2 * \4"),
    # pieces cut from a length: "if I cut three 28 inch pieces from a 96 inch board, how much is left"
    (_rx(rf"^(?:if )?{_WHO} (?:cut|cuts|saw|saws|take|takes|cut off|saw off) (\d+) (\d+(?:\.\d+)?) ?{_LENGTH} "
         rf"(?:pieces|lengths|bits|strips|sections|planks|boards) (?:off|from|out of|off of) (?:an? |the |my )?"
         rf"(\d+(?:\.\d+)?) ?\3(?:es|s)? "
         rf"{_THINGS},? {_LEFT}"),
     r"\4 - \1 * \2"),
    (_rx(rf"^(?:if )?{_WHO} (?:cut|cuts|saw|saws|take|takes|cut off|saw off) (\d+) (?:pieces|lengths|bits|strips|sections) of "
         rf"(\d+(?:\.\d+)?) ?{_LENGTH}(?:es|s)? (?:off|from|out of|off of) (?:an? |the |my )?(\d+(?:\.\d+)?) ?\3(?:es|s)? "
         rf"{_THINGS},? {_LEFT}"),
     r"\4 - \1 * \2"),
    # a pace: "if I run 5 km in 27 minutes how many minutes per km is that" (the same words for the time and the distance)
    (_rx(rf"{_DONE}(?:how many|what(?:'s| is) (?:that|my|the) in) \4s (?:per|a|an|each|every) \2{_PACE_END}"), r"\3 / \1"),
    # a speed: "if she cycled 40 miles in 2 hours, how many miles an hour is that"
    (_rx(rf"{_DONE}how many \2s? (?:per|a|an|each|every) \4{_PACE_END}"), r"\1 / \3"),
    # laps of a pool or a track: "how many lengths of a 50 metre pool is 2000 metres"
    (_rx(r"^how many (?:laps|lengths) (?:of|in) (?:an? |the )?(\d+(?:\.\d+)?) ?(metre|meter|m|yard)s? (?:pool|track)"
         r" (?:is|are|makes?|would be|do i need (?:to (?:swim|run|do) )?(?:for|to make|to do)?) ?(\d+(?:\.\d+)?) ?\2s?$"),
     r"\3 / \1"),
    # having some and giving or getting some: "if I have 20 apples and give away 7, how many do I have left"
    (_rx(rf"{_HAVE}(?:give|gave|lose|lost|eat|ate|use|used|sell|sold|spend|spent|break|broke)(?: away)? (\d+)(?: of them)?,? "
         rf"how many (?:do|would|will|did|does) {_WHO} have(?: left)?$"),
     r"\1 - \2"),
    (_rx(rf"{_HAVE}(?:get|got|buy|bought|find|found|add|added|make|made)(?: another)? (\d+)(?: more)?,? "
         rf"how many (?:do|would|will|did|does) {_WHO} have(?: now| in total| altogether)?$"),
     r"\1 + \2"),
    # a total shared: "we're splitting a bill of 90 3 ways, how much does each person pay"
    (_rx(rf"^(?:{_WHO}(?: are|'re| am|'m)? )?(?:splitting|split|sharing|share|dividing|divide)(?: up)? (?:an? |the |our )?"
         rf"(?:[a-z]+ )?(?:of )?{_NUM} (\d+) ways,? how much (?:does|do|will|would|should) "
         rf"(?:each (?:person|of us|one)|everyone|every person|each)(?: pay| owe| get| put in| have to pay| need to pay)?$"),
     r"\1 / \2"),
    # a price for a count ("a dozen" is 12 by now, "half a dozen" (12 / 2)): "if 6 muffins cost 9, how much is one muffin"
    (_rx(rf"^(?:if )?(\d+|\(\d+ / 2\)) {_THINGS} (?:costs?|are|is|were|was) {_NUM}(?: in total| altogether)?,? "
         r"how much (?:is|does|would|will) "
         r"(?:one|a single|each|an?|1)(?: [a-z]+)?(?: cost| be)?$"),
     r"\2 / \1"),
]  # fmt: skip
