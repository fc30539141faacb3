"""No test asserts wall-clock time: on a shared, loaded machine a bound in seconds either
catches nothing or fails at random (issue 40: `make test` failed on a fresh clone when a
30 s bound was missed under load). Tests bound the work done instead (tests/work_bounds.py:
calls, CPU time growth, SQL statements, retries); figures in seconds belong in bench/.

This reads every test module and refuses an ``assert`` that compares a difference of
clock readings (``time.monotonic() - started < 5``), directly or through a name that holds
one (``took = time.perf_counter() - t0 ... assert took < 60``). Waiting for something with
a deadline (``while time.monotonic() < deadline``, ``thread.join(30)``, a subprocess
``timeout=``) only stops a hang and is not refused.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}


def _is_clock_call(node: ast.AST) -> bool:
    """``time.monotonic()``, ``time.perf_counter()``, ``time.time()`` (any module path)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCKS
        and isinstance(node.func.value, ast.Name | ast.Attribute)
        and (node.func.value.id if isinstance(node.func.value, ast.Name) else node.func.value.attr)
        == "time"
    )


def _clock_difference(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` holds ``<clock> - x`` or ``x - <clock>``, or a name bound to one."""
    for inner in ast.walk(node):
        if _is_difference(inner):
            return True
        if isinstance(inner, ast.Name) and inner.id in names:
            return True
    return False


def _is_difference(node: ast.AST) -> bool:
    """``<clock> - x`` itself (a duration), not an expression that merely uses one."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Sub)
        and (_is_clock_call(node.left) or _is_clock_call(node.right))
    )


def wall_clock_asserts(source: str) -> list[int]:
    """Lines of the asserts in ``source`` that bound a clock difference."""
    tree = ast.parse(source)
    found: list[int] = []
    for scope in ast.walk(tree):
        if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module):
            continue
        names: set[str] = set()
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign) and _is_difference(node.value):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for node in ast.walk(scope):
            if isinstance(node, ast.Assert) and _clock_difference(node.test, names):
                found.append(node.lineno)
    return sorted(set(found))


def test_the_check_sees_the_forms_it_refuses() -> None:
    refused = """
def f():
    started = time.monotonic()
    run()
    assert time.monotonic() - started < 5
    t0 = time.perf_counter()
    took = time.perf_counter() - t0
    line = queue.get(timeout=max(0.1, deadline - time.monotonic()))
    assert took < 60, took
    assert elapsed_ok(mod.time.time() - t0)
"""
    allowed = """
def g():
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert time.monotonic() < deadline, "timed out"
        line = queue.get(timeout=max(0.1, deadline - time.monotonic()))
        assert line is not None
    thread.join(30)
    assert not thread.is_alive()
"""
    assert wall_clock_asserts(refused) == [5, 9, 10]
    assert wall_clock_asserts(allowed) == []


def test_no_test_asserts_wall_clock_time() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        lines = wall_clock_asserts(path.read_text(encoding="utf-8"))
        offenders += [f"{path.relative_to(TESTS.parent)}:{line}" for line in lines]
    assert offenders == [], "bound the work done instead (tests/work_bounds.py): " + ", ".join(
        offenders
    )
