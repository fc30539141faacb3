"""The citation graph a snowball reads (OpenAlex's, counted and cached)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class GraphRecords(Protocol):
    def resolve_dois(self, dois: Sequence[str]) -> dict[str, str]: ...  # lower-cased DOI -> "W123"
    def works(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]: ...  # "W123" -> record
    def citing(
        self, ids: Sequence[str], *, limit: int
    ) -> list[dict[str, Any]]: ...  # works citing any of ids

    requests: int  # requests sent (cache hits not counted)
    budget_left: int
    budget_reached: bool  # a request was refused by the daily budget: results are partial
