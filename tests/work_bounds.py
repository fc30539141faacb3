"""Bounds on the work a piece of code does, for tests that guard against slow algorithms.

No test asserts wall-clock time: on a shared, loaded machine the same run takes one second
or thirty, so a bound in seconds is either too loose to catch anything or fails at random.
What a quadratic algorithm changes is the *amount of work*, and that can be counted:

- :func:`calls` counts every function call made while the code runs, Python functions and
  built-ins alike (``sys.setprofile``): the same on any machine, at any load. A loop that
  does per-element work shows in it; a regular expression or ``str.find`` scanning to the
  end of the input from every position does not (that is one call each).
- :func:`growth` compares that count (or any other measure) at ``n`` and at ``factor * n``:
  linear work grows by about ``factor``, quadratic work by ``factor ** 2``.
- :func:`cpu_growth` does the same with the process's CPU time (``time.process_time``:
  this process's own work, not the time others take from it), each size the least of a few
  runs. Only for code whose costly steps are inside C (regular expressions, string scans),
  where counting calls sees nothing; the bound it is held to is generous.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any


def calls(run: Callable[[], Any]) -> int:
    """How many function calls (Python and built-in) ``run()`` makes, in this thread."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(previous)
    return count


def growth(measure: Callable[[int], float], n: int, factor: int = 4) -> float:
    """``measure(factor * n) / measure(n)``: about ``factor`` for linear work."""
    small = measure(n)
    large = measure(factor * n)
    return large / max(small, 1e-12)


def cpu_seconds(run: Callable[[], Any], repeat: int = 3, least: float = 0.05) -> float:
    """CPU seconds of this process per ``run()``, the least of ``repeat`` measures (the one
    other work on the machine disturbed least); each measure calls ``run()`` until it has
    taken ``least`` CPU seconds, so that a fast run is not lost in the clock's noise."""
    best = float("inf")
    for _ in range(repeat):
        runs = 0
        started = time.process_time()
        while True:
            run()
            runs += 1
            spent = time.process_time() - started
            if spent >= least:
                break
        best = min(best, spent / runs)
    return best


def cpu_growth(run: Callable[[int], Any], n: int, factor: int = 8) -> float:
    """The growth of :func:`cpu_seconds` from ``run(n)`` to ``run(factor * n)``."""
    return growth(lambda size: cpu_seconds(lambda: run(size)), n, factor)
