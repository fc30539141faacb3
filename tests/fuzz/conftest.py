"""Hypothesis profiles for the fuzz suite: ``ci`` (default, short) and ``long``.

``ci`` is derandomised (the same inputs on every run, seeded from each test); ``long``
draws new ones. Pick one with ``HYPOTHESIS_PROFILE=long`` (or ``PRIORIS_FUZZ_PROFILE=long``,
which the MCP-arguments test reads) on the benchmark machine; CI runs the default.
Health checks about slow data generation and function-scoped fixtures are relaxed: the
seeds are real documents, and the autouse fixtures (no network, a private data folder)
need no reset between examples.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_RELAXED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]
# ci draws the same examples on every run (derandomize: seeded from each test), so a red CI
# names a change, not a lucky draw; long explores new inputs each time
settings.register_profile(
    "ci", max_examples=40, deadline=None, suppress_health_check=_RELAXED, derandomize=True
)
settings.register_profile("long", max_examples=2000, deadline=None, suppress_health_check=_RELAXED)
# PRIORIS_FUZZ_PROFILE (ci/long) is what the MCP-arguments fuzz test reads; honour it too
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or os.environ.get("PRIORIS_FUZZ_PROFILE") or "ci"
)
