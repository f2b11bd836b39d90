"""The ``calculate`` tool: arithmetic from text, safely ("17 times 23", "15 percent of 80", "sqrt(2)").

No ``eval``: the text is normalised (spoken operators and numbers → symbols and
digits, ``^`` → ``**``, ``x``/``×``/``÷``), parsed with :func:`ast.parse` in
``eval`` mode, and walked by :func:`evaluate`, which knows only numbers, ``+ -
* / // % **``, unary signs, the constants ``pi``/``e``/``tau`` and the functions
in :data:`FUNCTIONS`. Size limits keep every answer fast: the text is at most
:data:`MAX_CHARS` characters, an integer result at most :data:`MAX_BITS` bits
(checked *before* a power is computed, so ``9**9**9`` is refused at once), a
factorial at most of :data:`MAX_FACTORIAL`. Anything else raises
:class:`~genx.errors.ToolFailure` with what went wrong.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable

from genx.errors import ToolFailure
from genx.toolbox.numwords import words_to_numbers
from genx.tools import FuncTool

__all__ = ["FUNCTIONS", "MAX_BITS", "MAX_CHARS", "MAX_FACTORIAL", "calculator_tool", "evaluate", "format_number", "normalise_expression"]

MAX_CHARS = 300
MAX_BITS = 4096  # about 1233 decimal digits
MAX_FACTORIAL = 450

Number = int | float


def _factorial(x: Number) -> Number:
    if isinstance(x, float) and not x.is_integer():
        raise ToolFailure("factorial needs a whole number")
    n = int(x)
    if n < 0:
        raise ToolFailure("factorial needs a number that is not negative")
    if n > MAX_FACTORIAL:
        raise ToolFailure(f"{n}! is too large to work out here (the limit is {MAX_FACTORIAL}!)")
    return math.factorial(n)


def _log(x: Number, base: Number = 10) -> Number:
    return math.log(x, base)


FUNCTIONS: dict[str, Callable[..., Number]] = {
    "sqrt": math.sqrt, "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x), "abs": abs, "round": round,
    "floor": math.floor, "ceil": math.ceil, "exp": math.exp, "ln": math.log, "log": _log, "log10": math.log10,
    "log2": math.log2, "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan, "factorial": _factorial, "min": min, "max": max,
}  # fmt: skip
CONSTANTS: dict[str, Number] = {"pi": math.pi, "e": math.e, "tau": math.tau}

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}  # fmt: skip

# Spoken forms, applied in order on lower-case text whose number words are already digits.
_FILLER = r"\b(?:what is|what's|whats|how much is|calculate|compute|work out|tell me|please|equals?|the result of|the value of)\b"
_NUM = r"(\d+(?:\.\d+)?)"
_PERCENT = r"\s*(?:%(?!\s*[\d(])|percent|per cent)"
_SPOKEN: list[tuple[str, str]] = [
    (_FILLER, " "),
    (rf"\bsubtract {_NUM} from {_NUM}", r"\2 - \1"),
    (rf"\badd {_NUM} to {_NUM}", r"\2 + \1"),
    (rf"\bdivide {_NUM} by {_NUM}", r"\1 / \2"),
    (rf"\bmultiply {_NUM} by {_NUM}", r"\1 * \2"),
    (rf"\b(?:the )?sum of {_NUM} and {_NUM}", r"\1 + \2"),
    (rf"\b(?:the )?product of {_NUM} and {_NUM}", r"\1 * \2"),
    (rf"\b(?:the )?difference between {_NUM} and {_NUM}", r"\1 - \2"),
    (rf"{_NUM}\s*(\+|-|plus|minus)\s*{_NUM}{_PERCENT}", r"\1 \2 (\1*\3/100)"),  # 80 + 15% = 92
    (rf"{_NUM}{_PERCENT}\s+of\b", r"(\1/100)*"),
    (rf"{_NUM}{_PERCENT}", r"(\1/100)"),
    (r"\bsquare root of\b", "sqrt "),
    (r"\bcube root of\b", "cbrt "),
    (r"\b(?:to the power of|raised to the power of|raised to|to the power|to the)\b", "**"),
    (r"\bthe\b", " "),
    (r"\bsquared\b", "**2"),
    (r"\bcubed\b", "**3"),
    (r"\b(?:multiplied by|times|x)\b", "*"),
    (r"\b(?:divided by|over)\b", "/"),
    (r"\b(?:plus|and|add)\b", "+"),
    (r"\b(?:minus|less|subtract)\b", "-"),
    (r"\bmodulo\b|\bmod\b", "%"),
    (r"\bfactorial of\b", "factorial "),
    (r"(\d+(?:\.\d+)?)\s*!", r"factorial(\1)"),
    (r"(\d),(\d{3})\b", r"\1\2"),
]
_CALL = re.compile(rf"\b({'|'.join(FUNCTIONS)})\s+(\d+(?:\.\d+)?|pi|e|tau)")


def normalise_expression(text: str) -> str:
    """Spoken or typed arithmetic → a Python-syntax expression (not yet checked)."""
    t = words_to_numbers(text.lower())
    t = t.replace("×", "*").replace("÷", "/").replace("−", "-").replace("^", "**").replace("²", "**2").replace("³", "**3")
    for pattern, repl in _SPOKEN:
        t = re.sub(pattern, repl, t)
    t = _CALL.sub(r"\1(\2)", t)  # "sqrt 16" → "sqrt(16)"
    t = t.strip().rstrip("?.!= ")
    return re.sub(r"\s+", " ", t)


def _check_int(value: Number) -> Number:
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise ToolFailure(f"the result has more than {MAX_BITS * 30103 // 100000} digits; that is too large to work out here")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolFailure("the result is too large to work out here")
    return value


def _power(base: Number, exp: Number) -> Number:
    if isinstance(base, int) and isinstance(exp, int) and exp > 0 and abs(base) > 1:
        # bits of base**exp ≈ exp * log2|base|; refuse before computing
        if exp * math.log2(abs(base)) > MAX_BITS:
            raise ToolFailure(f"{base}**{exp} has more than {MAX_BITS * 30103 // 100000} digits; that is too large to work out here")
    if isinstance(base, float) or isinstance(exp, float):
        try:
            result = math.pow(base, exp)
        except OverflowError:
            raise ToolFailure("the result is too large to work out here") from None
        except ValueError:
            raise ToolFailure("that power has no real value (a negative number to a fractional power)") from None
        if result == 0 and base != 0:
            raise ToolFailure("the result is too small to show (closer to zero than 10^-308)")
        return result
    exact: Number = base**exp
    if exact == 0 and base != 0:
        raise ToolFailure("the result is too small to show (closer to zero than 10^-308)")
    return exact


def evaluate(expression: str) -> Number:
    """The value of an arithmetic ``expression`` (Python syntax, whitelisted); :class:`ToolFailure` otherwise."""
    if len(expression) > MAX_CHARS:
        raise ToolFailure(f"that expression is too long (at most {MAX_CHARS} characters)")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ToolFailure(f"I can't read {expression!r} as arithmetic") from None
    return _eval(tree.body)


def _eval(node: ast.expr) -> Number:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return _check_int(node.value)
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        try:
            if isinstance(node.op, ast.Pow):
                return _check_int(_power(left, right))
            if isinstance(node.op, ast.Mult) and isinstance(left, int) and isinstance(right, int):
                if left.bit_length() + right.bit_length() > MAX_BITS + 1:
                    raise ToolFailure("the result is too large to work out here")
            return _check_int(_BINARY[type(node.op)](left, right))
        except ZeroDivisionError:
            raise ToolFailure("division by zero has no answer") from None
        except OverflowError:
            raise ToolFailure("the result is too large to work out here") from None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and not node.keywords:
        args = [_eval(a) for a in node.args]
        try:
            return _check_int(FUNCTIONS[node.func.id](*args))
        except ToolFailure:
            raise
        except (ValueError, TypeError, OverflowError) as e:
            raise ToolFailure(f"{node.func.id} cannot take {', '.join(format_number(a) for a in args) or 'no arguments'} ({e})") from None
    raise ToolFailure(f"I can only do arithmetic; {ast.unparse(node)!r} is not a number or an operation I know")


def format_number(value: Number) -> str:
    """Integers as they are; floats to 10 significant digits without trailing zeros or exponent noise."""
    if isinstance(value, int):
        digits = str(value)
        if len(digits.lstrip("-")) > 21:
            return f"{digits} (about {format_number(float(value)) if value.bit_length() < 1000 else _big(digits)})"
        return digits
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.10g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        return f"{mantissa} × 10^{int(exp)}"
    return text


def _big(digits: str) -> str:
    sign = "-" if digits.startswith("-") else ""
    d = digits.lstrip("-")
    return f"{sign}{d[0]}.{d[1:4]} × 10^{len(d) - 1}"


def calculator_tool() -> FuncTool:
    """``calculate(expression)``: arithmetic from a typed or spoken expression."""

    def calculate(expression: str) -> str:
        """Calculate arithmetic exactly: + - * / ** %, percentages, sqrt, powers, factorials, spoken forms like "17 times 23".

        Args:
            expression: the arithmetic, e.g. "17 * 23", "15% of 80", "sqrt(2)", "2 to the power of 10".
        """
        normal = normalise_expression(expression)
        if not normal:
            raise ToolFailure("There is no arithmetic to work out; say it like '17 times 23'.")
        shown = re.sub(r"\s+", " ", re.sub(_FILLER, " ", expression, flags=re.IGNORECASE)).strip().rstrip("?.= ")
        return f"{shown} = {format_number(evaluate(normal))}"

    return FuncTool.from_function(calculate)
