"""The citation graph a snowball reads (OpenAlex's, counted and cached)."""

# ruff: noqa: E501
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


# fmt: off
class GraphRecords(Protocol):   # your OpenAlexGraph implements it
    def resolve_dois(self, dois: Sequence[str]) -> dict[str, str]: ...  # lower-cased DOI (no https://doi.org/) -> "W123"; 50 per request (filter=doi:a|b|...)
    def works(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]: ...  # "W123" -> record; batched filter=openalex:W1|W2 (50 per request, select= only the fields needed)
    def citing(self, ids: Sequence[str], *, limit: int) -> list[dict[str, Any]]: ...  # records of works citing any of ids (filter=cites:W1|W2, cursor-paged, at most `limit`)
    requests: int        # requests this object sent (cache hits not counted)
    budget_left: int     # today's budget left (across processes: the library's count)
    budget_reached: bool # True once a request was refused by the budget (results are then partial)
# fmt: on
