"""What OpenAlex's citation graph is given to keep answers and count requests.

:class:`~prioris.sources.openalex_graph.OpenAlexGraph` never keeps anything itself: it is
handed a :class:`ResponseCache` and a :class:`RequestBudget`, two small protocols, because
sources never import storage (the library implements both over its own tables in
:mod:`prioris.services.openalex_graph`). This module holds those protocols and the
in-process implementations a caller without a library (and the tests) use: separate from
the client so the contract the library implements is read, and changed, in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["MemoryBudget", "MemoryCache", "NoCache", "RequestBudget", "ResponseCache"]


class ResponseCache(Protocol):
    """Where OpenAlex's answers are kept: ``get`` gives a body still fresh, else None;
    ``get_many`` and ``put_many`` do the same for many keys at once (a snowball reads and
    keeps thousands of works, and one query or one transaction for all is what keeps a
    warm run quick on PostgreSQL)."""

    def get(self, key: str) -> str | None: ...

    def get_many(self, keys: Sequence[str]) -> dict[str, str]: ...

    def put(self, key: str, body: str) -> None: ...

    def put_many(self, items: Sequence[tuple[str, str]]) -> None: ...


class RequestBudget(Protocol):
    """Today's request allowance: ``take`` counts one request if any is left."""

    def take(self) -> bool: ...

    def left(self) -> int: ...


class NoCache:
    """Keeps nothing (``PRIORIS_MCP_OPENALEX_CACHE_DAYS=0``)."""

    def get(self, key: str) -> str | None:
        return None

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        return {}

    def put(self, key: str, body: str) -> None:
        return None

    def put_many(self, items: Sequence[tuple[str, str]]) -> None:
        return None


class MemoryCache:
    """A cache in a dict: for a Python caller without a library, and for tests."""

    def __init__(self) -> None:
        self.bodies: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.bodies.get(key)

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        return {key: self.bodies[key] for key in keys if key in self.bodies}

    def put(self, key: str, body: str) -> None:
        self.bodies[key] = body

    def put_many(self, items: Sequence[tuple[str, str]]) -> None:
        self.bodies.update(items)


class MemoryBudget:
    """A budget counted in this process only (the library's is shared by every process)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0

    def take(self) -> bool:
        if self.used >= self.budget:
            return False
        self.used += 1
        return True

    def left(self) -> int:
        return max(0, self.budget - self.used)
