"""Pre-match phrasings for numbers: ``calculate`` and ``convert_units``.

Both are checked by the tool's own parser before a message is claimed:
arithmetic must evaluate with the calculator's parser and contain an operator
("what is 1990" is not a sum; "who won the world cup in 2018" has no
operator), and a conversion's two units must be known to pint and convertible
("how many calories in 2 eggs", "how many kilometers is a marathon" are not
conversions); money between two currencies is claimed too, and the tool says
it has no exchange rates offline. Spoken numbers are read first ("seventeen times twenty three"),
fractions are values ("a quarter cup", "one and a half pounds"), and an amount in two units is
said in the first ("6 feet 2 inches" → 6.1667 feet, "11 stone 4" → 11.2857 stone); a race's "10k" is 10 km. Sums told as a story
(prices, rates, having and giving: :mod:`.prematch_word_problems`) are rewritten first; an amount said in
a clause may be converted by a question pointing back at it ("… 180 degrees celsius, what's that in fahrenheit"). The
statement word order after "tell me" is the question's too ("what 10 stone is in kilograms").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.patterns import rx as _rx
from genx.assistant.prematch_word_problems import WORD_PROBLEMS
from genx.errors import ToolFailure
from genx.toolbox.calc import evaluate, normalise_expression
from genx.toolbox.numwords import parse_number, words_to_numbers
from genx.toolbox.units import convert, meant_units, money_pair

__all__ = ["match_calc", "match_convert"]


# Words around arithmetic that are not part of it: "what do you get if you multiply …", "… equal?".
_CALC_LEAD = _rx(
    r"^(?:(?:what|how much) (?:do you get|do i get|does it make|would it be|would be|will it be|is it) (?:if|when) (?:you |i |we )?|"
    r"what(?:'s| is| does| do) (?:the )?(?:answer|result|total|value) (?:to|of|for) |"
    r"(?:what(?:'s| is| does| do)|whats|how much (?:is|does|do|are)|how much's|"
    r"(?:calculate|compute|work out|figure out)(?: for me| for us)?|solve|"
    r"evaluate|do the math(?: on| for)?|quick math[,:]?|math[,:]?|can you (?:calculate|compute|work out|do)|"
    r"what|how much) )+"  # bare "what": the statement order after "tell me" ("what 5 times 7 is"); the rest must evaluate
)
_CALC_TAIL = _rx(
    r"(?: (?:equal|equals|make|makes|come to|comes to|give|give you|give me|add up to|is|are|be|exactly|in total|total|what|"
    r"what is that|is what))+$"
)
_DENOMINATORS = {"halves": 2, "thirds": 3, "quarters": 4, "fourths": 4, "fifths": 5, "sixths": 6, "sevenths": 7, "eighths": 8,
                 "ninths": 9, "tenths": 10}  # fmt: skip
#: One part of a whole, as words_to_numbers leaves it ("a third" → "a 3rd"): its denominator.
_ONE_PART = {"3rd": 3, "third": 3, "quarter": 4, "4th": 4, "fourth": 4, "5th": 5, "fifth": 5, "6th": 6, "sixth": 6, "7th": 7,
             "seventh": 7, "8th": 8, "eighth": 8, "9th": 9, "ninth": 9, "10th": 10, "tenth": 10}  # fmt: skip
_SUM_WORD = _rx(r"\b(?:plus|minus|times|multiplied|divided|over|add|subtract|take away)\b|[-+*/]")


def _in_sum(m: re.Match[str], part: str) -> str:
    """``part`` for a fraction said in a sum; the words as said elsewhere."""
    return part if _SUM_WORD.search(m.string) else m[0]


_TAKE = r"(?:take|start with|think of) (\d+(?:\.\d+)?),? (?:and |then |and then )"
_Rewrite = tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]
#: Phrasings the calculator's own normaliser does not know, applied to numberised lower-case text.
_SPOKEN: list[_Rewrite] = [
    (_rx(r"\b(?:a|1) dozen\b"), "12"),
    (_rx(r"\b(\d+) dozen\b"), r"(\1 * 12)"),
    (_rx(r"\b(\d+) and a half\b"), r"\1.5"),
    (_rx(r"\b(\d+) and a quarter\b"), r"\1.25"),
    (_rx(r"\b(\d+) and 3 quarters\b"), r"\1.75"),
    (_rx(r"^(.+?)(?:,? all|,) (divided by|over|times|multiplied by|squared)\b"), r"(\1) \2"),  # "40 plus 60 (all), divided by 10"
    (_rx(r"\bhalf of (\d+(?:\.\d+)?)"), r"\1 / 2"),
    (_rx(r"\bhalf (\d+(?:\.\d+)?)"), r"(\1 / 2)"),  # "half a dozen" once the dozen is 12
    (_rx(r"\b(?:a|1) half\b"), "0.5"),
    (_rx(r"\b(?:a|1) (?:third|3rd) of (\d+(?:\.\d+)?)"), r"\1 / 3"),
    (_rx(r"\b(?:a|1) (?:quarter|4th|fourth) of (\d+(?:\.\d+)?)"), r"\1 / 4"),
    (_rx(r"\b(?:a|1) (\d+)th of (\d+(?:\.\d+)?)"), r"\2 / \1"),  # "a fifth of 100", "a tenth of 50"
    (_rx(r"\b(?:double|twice) (\d+(?:\.\d+)?)"), r"2 * \1"),
    (_rx(r"\btriple (\d+(?:\.\d+)?)"), r"3 * \1"),
    (_rx(r"\b(\d+(?:\.\d+)?) (?:multiplied|times) by (\d+(?:\.\d+)?)"), r"\1 * \2"),
    (_rx(r"\b(?:take|subtract) (\d+(?:\.\d+)?) (?:away )?from (\d+(?:\.\d+)?)"), r"\2 - \1"),
    (_rx(r"\b(\d+(?:\.\d+)?) (?:take away|less) (\d+(?:\.\d+)?)"), r"\1 - \2"),
    (_rx(r"\b(?:add|sum) (\d+(?:\.\d+)?) (?:and|plus|to|with) (\d+(?:\.\d+)?)"), r"\1 + \2"),
    (_rx(r"\bmultiply (\d+(?:\.\d+)?) (?:and|with) (\d+(?:\.\d+)?)"), r"\1 * \2"),
    (_rx(r"^times (\d+(?:\.\d+)?) by (\d+(?:\.\d+)?)$"), r"\1 * \2"),  # British: "times 365 by 24"
    # a number taken, then an operation on "it": "take 1000 and divide it by 8", "start with 50 then add 7 to it"
    (_rx(rf"^{_TAKE}(?:divide|divides) (?:it |that )?by (\d+(?:\.\d+)?)$"), r"\1 / \2"),
    (_rx(rf"^{_TAKE}(?:multiply|multiplies|times) (?:it |that )?by (\d+(?:\.\d+)?)$"), r"\1 * \2"),
    (_rx(rf"^{_TAKE}add (\d+(?:\.\d+)?)(?: to (?:it|that))?$"), r"\1 + \2"),
    (_rx(rf"^{_TAKE}(?:subtract|take away|take) (\d+(?:\.\d+)?)(?: from (?:it|that)| away)?$"), r"\1 - \2"),
    (
        _rx(
            r"^(?:if )?(?:we|i|you|they) (?:split|share|divide) (.+?) (?:(?:between|among|by|into) )?(\d+)"
            r"(?: people| persons| ways| friends| of us)?,? how much (?:(?:does|do|will|would|should) (?:each|every)"
            r"(?: one| person| of us| of them| one of us)? (?:pay|get|owe|have|be|cost)|(?:is (?:that|it) |would (?:that|it) be )?"
            r"(?:each|per person|a head|apiece))"
        ),
        r"\1 / \2",
    ),
    # "a 45 dollar bill", before the splits: "split a 90 euro bill 3 ways"
    (_rx(r"\ban? (\d+(?:\.\d+)?) (?:dollar|euro|pound) (?:bill|check|cheque|meal|tab)\b"), r"\1"),
    (_rx(r"\bdivide (\d+(?:\.\d+)?) (?:by|into) (\d+(?:\.\d+)?)"), r"\1 / \2"),
    (_rx(r"\b(?:split|share|divide) (\d+(?:\.\d+)?) (\d+) ways\b"), r"\1 / \2"),
    (_rx(r"^(?:split|share|divide) (\d+(?:\.\d+)?) (?:between|among|amongst) (\d+)(?: people| persons| friends| of us)?$"), r"\1 / \2"),
    (_rx(r"\b(\d+(?:\.\d+)?) (?:divided into|split (?:into|between|among|by)|shared (?:between|among|by)) (\d+(?:\.\d+)?)"), r"\1 / \2"),
    (_rx(r"\b(\d+) factorial\b"), r"factorial(\1)"),
    *((_rx(rf"\b(\d+) {word} of (\d+(?:\.\d+)?)"), rf"(\1 / {d}) * \2") for word, d in _DENOMINATORS.items()),
    # parts in a sum: "3 eighths plus 1 quarter" (alone, "what's a quarter" asks what the word means)
    (_rx(rf"\b(\d+) ({'|'.join(_DENOMINATORS)})\b"), lambda m: _in_sum(m, f"({m[1]} / {_DENOMINATORS[m[2]]})")),
    (_rx(rf"\b(?:an?|1) ({'|'.join(_ONE_PART)})\b(?! of)"), lambda m: _in_sum(m, f"(1 / {_ONE_PART[m[1]]})")),
    (_rx(r"\bsqrt of\b"), "sqrt"),
    (_rx(r"\bnegative (?=\d)"), "-"),
    (_rx(r"\b(\d+)/(\d+) of (\d+(?:\.\d+)?)"), r"(\1 / \2) * \3"),
    (_rx(r"\b(\d+)(?: ?(?:cents|pence)|p)\b"), r"(\1 / 100)"),  # "50 cents each", "30p"
    (_rx(r"[$£€] ?(?=\d)|(?<=\d) ?(?:dollars|euros|bucks|pounds|quid|usd|eur|gbp|€|\$|£)(?!\w)"), ""),
    (_rx(r"\bthe square of (\d+(?:\.\d+)?)"), r"\1 ** 2"),
    (_rx(r"\b(\d+(?:\.\d+)?) to the (?:2nd|second)(?: power)?"), r"\1 ** 2"),
    (_rx(r"\b(\d+(?:\.\d+)?) to the (?:3rd|third)(?: power)?"), r"\1 ** 3"),
    (_rx(r"\b(\d+(?:\.\d+)?) (?:raised )?to the (\d+)(?:st|nd|rd|th)(?: power)?"), r"\1 ** \2"),
    (
        _rx(
            r"^(?:how much )?(?:should |do |would |must )?(?:(?:i|we) (?:should )?)?tip on (\d+(?:\.\d+)?)"
            r"(?: dollars| euros| pounds| bucks)? at (\d+(?:\.\d+)?) ?(?:percent|per cent|%)"
        ),
        r"\2% of \1",
    ),
    (_rx(r"\b(\d+(?:\.\d+)?) ?(?:percent|per cent|%) (?:tip )?on (\d+(?:\.\d+)?)"), r"\1% of \2"),
    (_rx(r"\b(\d+(?:\.\d+)?) ?(?:percent|per cent|%) (?:discount )?off (\d+(?:\.\d+)?)"), r"\2 - \1%"),
    *WORD_PROBLEMS,  # after the money words are gone
]
_OPERATOR = re.compile(r"[-+*/%]|\b(?:sqrt|cbrt|factorial|log|ln|sin|cos|tan)\b")


#: A list to total, its numbers parted by commas or by "and" each time: "add 48, 67 and 125", "add 35 and 47 and 18".
_NUMBER_LIST = _rx(r"\b(?:add(?: up)?|sum(?: up)?|total(?: up)?|the (?:sum|total) of) ((?:\d+(?:\.\d+)?(?:,? | and ))+and \d+(?:\.\d+)?)$")


#: A list of numbers asked for its total in the question's order: "what do 19, 27 and 33 add up to".
_LIST_ADDED = _rx(
    r"^(?:what|how much) (?:do|does|would|will) ((?:\d+(?:\.\d+)?,? )+and \d+(?:\.\d+)?) (?:all )?(?:add up to|come to|make|sum to|total)$"
)


_NUMBER_AVERAGE = _rx(r"\b(?:the )?(?:average|mean) of ((?:\d+(?:\.\d+)?,? )+and \d+(?:\.\d+)?)$")


def _list_sum(m: re.Match[str]) -> str:
    return " + ".join(re.findall(r"\d+(?:\.\d+)?", m[1]))


def _list_average(m: re.Match[str]) -> str:
    numbers = re.findall(r"\d+(?:\.\d+)?", m[1])
    return f"({' + '.join(numbers)}) / {len(numbers)}"


def _arithmetic(t: str) -> str:
    """The arithmetic part of ``t``, numberised, with our extra spoken forms rewritten ("double 21" → "2 * 21")."""
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", words_to_numbers(t.lower()))  # "2,400": a thousands separator
    s = _NUMBER_LIST.sub(_list_sum, s)  # "add up 48, 67 and 125"
    s = _LIST_ADDED.sub(_list_sum, s)  # "what do 19, 27 and 33 add up to"
    s = _NUMBER_AVERAGE.sub(_list_average, s)  # "the average of 3, 5 and 10"
    s = _CALC_TAIL.sub("", _CALC_LEAD.sub("", s)).strip(" ,?")
    s = re.sub(r"^(?:is|the) ", "", s)
    for rx, repl in _SPOKEN:
        s = rx.sub(repl, s)
    return re.sub(r"^an? (?=\d)", "", s)  # "a 20 percent tip on 85"


def match_calc(t: str) -> Intent | None:
    expr = _arithmetic(t)
    normal = normalise_expression(expr)
    if not re.search(r"\d", normal) or not _OPERATOR.search(normal) or re.match(r"\s*[+*/%]", normal):
        return None  # no operator, or one with nothing before it ("plus 6" is a part of a sum, not one)
    if not _evaluates(normal) and not _evaluates(_ZERO_DIVISOR.sub("/ 1", normal)):
        return None  # well-formed but for a zero divisor: the calculator's own answer says why
    return Intent("calculate", {"expression": expr})


_ZERO_DIVISOR = re.compile(r"/\s*0+(?:\.0+)?(?![\d.])")


def _evaluates(normal: str) -> bool:
    try:
        evaluate(normal)
    except (ToolFailure, ArithmeticError, ValueError, TypeError):
        return False
    return True


_VALUE = (  # longest first: "a quarter cup" is a quarter of a cup, not one "quarter cup"
    r"(?P<value>(?:\d+ |an? |one )?(?:quarters?|thirds?|3rds?)(?: of)?(?: an?)?|-?\d+(?:[.,]\d+)?(?: and (?:a half|a quarter|3 quarters))?|"
    r"half an?|an?|one)"
)
_FRACTION = _rx(r"(?:(?P<n>\d+) |an? |one )?(?P<part>quarter|third|3rd)s?(?: of)?(?: an?)?")
_AND_PART = _rx(r"(?P<whole>-?\d+(?:\.\d+)?) and (?P<part>a half|a quarter|3 quarters)")
#: An amount with its part after the unit: "a mile and a quarter", "2 hours and a half".
_UNIT_AND_PART = _rx(r"\b(an?|\d+(?:\.\d+)?) ([a-z]+) and (a half|a quarter|3 quarters)\b")
_PARTS = {"a half": 0.5, "a quarter": 0.25, "3 quarters": 0.75, "quarter": 0.25, "third": 1 / 3, "3rd": 1 / 3}
_UNIT = r"[a-z°µ][a-z°µ./²³' -]{0,30}?"
_AS = r"(?:to|into|in|as|in terms of|converted to|converted into|expressed in)"
_AS_WORD = r"(?:to|into|in|as)"
#: A length, weight or time said in two units ("6 feet 2", "11 stone 4 pounds", "2 hours 30 minutes") → the first unit.
_COMPOUND = [
    (_rx(rf"\b(\d+) ({big}) (?:and )?(\d+(?:\.\d+)?)(?: (?:{small}))?(?= {_AS_WORD} | (?:is|are|equals?|makes?) |$)"), per, unit)
    for big, small, per, unit in (
        ("feet|foot|ft", "inches|inch", 12, "feet"),
        ("stones?|st", "pounds?|lbs?", 14, "stone"),
        ("pounds?|lbs?", "ounces?|oz", 16, "pounds"),
        ("hours?|hrs?", "minutes?|mins?", 60, "hours"),
        ("minutes?|mins?", "seconds?|secs?", 60, "minutes"),
    )
]
_WHAT = (
    r"(?:what(?:'s| is| are| would be| will be)|whats|how much (?:is|are|would be)|how many is|tell me|"
    r"how (?:heavy|long|far|big|hot|cold|tall|fast|much) (?:is|are))"
)
_VERB = r"(?:convert|change|turn|translate|switch|(?:what(?:'s| is) )?(?:the )?conversion (?:of|for))"
_CONVERT = [
    _rx(rf"{_VERB}(?: me)? {_VALUE} ?(?P<from>{_UNIT}) {_AS} (?P<to>{_UNIT})"),
    _rx(rf"(?:how many|how much) (?P<to>{_UNIT}) (?:are |is )?(?:there )?(?:in|to|per) {_VALUE} ?(?P<from>{_UNIT})"),
    _rx(
        rf"(?:how many|how much) (?P<to>{_UNIT}) (?:is|are|make|makes|make up|equals?|equal to|would be|will be|is that|do i get for|"
        rf"are there in|fit in|go into|in|does it take to make|does it make|would it be|is it) {_VALUE} ?(?P<from>{_UNIT})"
    ),
    _rx(rf"(?:how many|how much) (?P<to>{_UNIT}) (?:are|is) {_VALUE} ?(?P<from>{_UNIT}) (?:equal to|worth|in total)"),
    _rx(rf"(?:{_WHAT} )?{_VALUE} ?(?P<from>{_UNIT}) {_AS} (?P<to>{_UNIT})"),
    _rx(rf"{_VALUE} ?(?P<from>{_UNIT}) (?:is|are|equals?|makes?|in) how many (?P<to>{_UNIT})"),
    _rx(rf"(?:{_WHAT} )?{_VALUE} ?(?P<from>{_UNIT}) (?:in|to) (?P<to>{_UNIT})"),
    _rx(rf"(?:in|into) (?P<to>{_UNIT}),? (?:how much|how many|what) (?:is|are|would be) {_VALUE} ?(?P<from>{_UNIT})"),
    _rx(rf"how much (?:does|do|would|will) {_VALUE} ?(?P<from>{_UNIT}) (?:weigh|measure|come to|be) (?:in|as) (?P<to>{_UNIT})"),
    # the question's words in statement order, as after "tell me" or "I wonder": "what 10 stone is in kilograms"
    _rx(
        rf"(?:what|how much) {_VALUE} ?(?P<from>{_UNIT}) (?:is|are|would be|will be|comes to|makes|works out (?:to|as)) "
        rf"{_AS} (?P<to>{_UNIT})"
    ),
    _rx(rf"(?:how many|how much) (?P<to>{_UNIT}) {_VALUE} ?(?P<from>{_UNIT}) (?:is|are|makes|would be|will be|comes to|works out to)"),
    # the amount in a clause, then the question points back at it: "the recipe says 180 degrees celsius, what's that in fahrenheit"
    _rx(
        rf"(?:[^\d,]+ )?(?P<value>-?\d+(?:[.,]\d+)?) ?(?P<from>{_UNIT}),? (?:so |and )?"
        rf"(?:what(?:'s| is| would be| will be)|how much is|how much would be) (?:that|this|it) {_AS} (?P<to>{_UNIT})"
    ),
]


def _value(raw: str) -> float | None:
    raw = raw.strip().lower()
    if raw in ("a", "an", "one"):
        return 1.0
    if raw.startswith("half"):
        return 0.5
    if m := _AND_PART.fullmatch(raw):
        return float(m["whole"]) + _PARTS[m["part"]]
    if m := _FRACTION.fullmatch(raw):
        return int(m["n"] or 1) * _PARTS[m["part"]]
    return parse_number(raw.replace(",", "."))


def _one_unit(text: str) -> str:
    """Two-unit amounts in their first unit: "6 feet 2 in cm" → "6.166666666666667 feet in cm", "5'11\"" too;
    "a mile and a half" → "1.5 mile", "2 pounds and a quarter" → "2.25 pounds"."""
    text = re.sub(r"\b(\d)' ?(\d{1,2})\b(?:\"|'')?", r"\1 feet \2", text)
    text = _UNIT_AND_PART.sub(lambda m: f"{float(1 if m[1][0].isalpha() else m[1]) + _PARTS[m[3]]!r} {m[2]}", text)
    for rx, per, unit in _COMPOUND:
        text = rx.sub(functools.partial(_in_first_unit, per=per, unit=unit), text)
    return text


def _in_first_unit(m: re.Match[str], *, per: int, unit: str) -> str:
    return f"{int(m[1]) + float(m[3]) / per!r} {unit}"


#: What is measured is not a unit: "how many grams of sugar is 3 ounces" converts grams (mass to mass only: pint checks).
_SUBSTANCE = _rx(r"(?<=[a-z]) of (?:the |my )?[a-z]+(?: [a-z]+)?$")


#: A temperature said in two parts, as oven dials are read: "four twenty five fahrenheit" is 425.
_OVEN = _rx(r"\b([1-9]) ([2-9]\d)(?= (?:degrees|fahrenheit|celsius|centigrade)\b)")


#: A distance said as races are, "my run was 10k", "convert 5k to miles", "how far is a 5k (run) in miles": kilometres (only
#: where the amount ends, so "10k yen" is not).
_RACE = _rx(r"\b(?:an? )?(\d+(?:\.\d+)?) ?k(?: (?:run|race|walk|fun run|route))?\b(?=,|$| (?:to|in|into|as)\b)")  # "a 5k (run)": 5 km


def match_convert(t: str) -> Intent | None:
    low = words_to_numbers(t.lower()).replace("°", " degrees ").replace("  ", " ")
    low = re.sub(r"\b(\d+(?:\.\d+)?)-(?=[a-z])", r"\1 ", low)
    low = _OVEN.sub(r"\1\2", low)
    low = _RACE.sub(r"\1 km", low)
    low = re.sub(r"\b(?:an? )?couple of (?=[a-z])", "2 ", low)  # "a couple of kilos in pounds"
    low = _one_unit(re.sub(r"(?:^|(?<= ))(?:minus|negative) (?=\d)", "-", low))
    for rx in _CONVERT:
        m = rx.fullmatch(low.strip())
        if not m:
            continue
        value = _value(m.group("value"))
        src = _SUBSTANCE.sub("", re.sub(r"^(?:of |the )", "", m.group("from").strip()))
        dst = _SUBSTANCE.sub("", re.sub(r"^(?:the |of )", "", m.group("to").strip()))
        if value is None or not src or not dst:
            continue
        try:
            convert(value, src, dst)
            src, dst = meant_units(src, dst)  # "15 degrees in fahrenheit": degrees Celsius
        except (ToolFailure, ValueError, ArithmeticError, TypeError):
            if not money_pair(src, dst):  # "50 euros to dollars": the tool says it has no exchange rates
                continue
        return Intent("convert_units", {"value": value, "from_unit": src, "to_unit": dst})
    return None
