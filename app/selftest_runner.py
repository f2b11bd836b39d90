"""The self-test's check runner: a check, its result, the report (table, JSON) and running checks with time limits.

Does not own: the checks themselves (:mod:`app.selftest`, :mod:`app.selftest_devices`).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from genx.deadline import within

log = logging.getLogger("app.selftest")

Status = Literal["pass", "fail", "skip", "warn"]


class CheckSkipped(Exception):
    """Raised by a check that cannot apply here (e.g. no audio device); the row says why."""


class CheckWarning(Exception):
    """Raised by a check that found a problem the app works around (e.g. a broken settings file)."""


@dataclass(slots=True)
class CheckResult:
    name: str
    status: Status
    seconds: float
    detail: str


@dataclass(slots=True)
class Check:
    """One row: ``run()`` returns the detail text; raising makes it fail (or skip / warn, see above)."""

    name: str
    run: Callable[[], Awaitable[str]]
    timeout_s: float = 120.0


@dataclass(slots=True)
class Report:
    results: list[CheckResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not any(r.status == "fail" for r in self.results)

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status == status)

    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def table(self) -> str:
        width = max([len(r.name) for r in self.results] + [5])
        lines = [f"{'check':<{width}}  result  {'time':>8}  detail", f"{'-' * width}  ------  {'-' * 8}  {'-' * 40}"]
        for r in self.results:
            detail = r.detail.replace("\n", " ")
            lines.append(f"{r.name:<{width}}  {r.status.upper():<6}  {r.seconds:>6.2f} s  {detail}")
        verdict = "PASS" if self.ok else "FAIL"
        lines.append(
            f"self-test {verdict}: {self.count('pass')} passed, {self.count('fail')} failed, "
            f"{self.count('skip')} skipped, {self.count('warn')} warnings in {self.seconds:.1f} s"
        )
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "seconds": round(self.seconds, 3), "checks": [asdict(r) for r in self.results]}


async def run_checks(checks: Sequence[Check], *, on_result: Callable[[CheckResult], None] | None = None) -> Report:
    """Run ``checks`` one after another; an exception or a time-out fails that row only."""
    report = Report()
    t_all = time.perf_counter()
    for check in checks:
        t0 = time.perf_counter()
        status: Status = "pass"
        try:
            detail = await within(check.run(), check.timeout_s)
        except CheckSkipped as e:
            status, detail = "skip", str(e)
        except CheckWarning as e:
            status, detail = "warn", str(e)
        except TimeoutError:
            status, detail = "fail", f"no result within {check.timeout_s:.0f} s"
        except Exception as e:
            status, detail = "fail", _describe(e)
            log.error("self-test check %s failed", check.name, exc_info=e)
        result = CheckResult(check.name, status, time.perf_counter() - t0, detail)
        report.results.append(result)
        if on_result is not None:
            on_result(result)
    report.seconds = time.perf_counter() - t_all
    return report


def _describe(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    return text if type(e).__module__.startswith(("genx", "app")) else f"{type(e).__name__}: {text}"


# -- text comparison -------------------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9']+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("-", " "))


def word_recall(expected: str, heard: str) -> float:
    """Share of ``expected``'s words that occur in ``heard`` (order-free; 1.0 for an empty ``expected``)."""
    want = words(expected)
    if not want:
        return 1.0
    have: dict[str, int] = {}
    for w in words(heard):
        have[w] = have.get(w, 0) + 1
    hits = 0
    for w in want:
        if have.get(w, 0) > 0:
            have[w] -= 1
            hits += 1
    return hits / len(want)


__all__ = ["Check", "CheckResult", "CheckSkipped", "CheckWarning", "Report", "Status", "run_checks", "word_recall", "words"]
