"""What the alerts feature is made of, as small protocols: where candidates come from, how
they are ranked, and where an alert's state is kept. Implementations live beside them in
this package (sources and rankers) or in :mod:`prioris.services` (state over storage)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Candidate:
    """A paper an alert may show: its source's id, what a ranking reads, and the
    identifiers that tell whether the library already holds it."""

    id: str
    title: str
    text: str = ""
    source: str = ""
    published: str | None = None
    identifiers: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class CandidateSource(Protocol):
    """New candidates since a date (bounded, cached and counted by its HTTP layer)."""

    name: str

    def candidates(self, since: str | None) -> Iterable[Candidate]: ...


@runtime_checkable
class CandidateRanker(Protocol):
    """Scores candidates for one profile (a collection, or the whole library): one score
    per candidate, in the candidates' order, higher first when sorted."""

    def scores(self, candidates: Sequence[Candidate]) -> Sequence[float]: ...


@runtime_checkable
class AlertState(Protocol):
    """What an alert remembers between runs."""

    def last_run(self, alert: str) -> str | None: ...

    def dismissed(self, alert: str) -> set[str]: ...

    def record_run(self, alert: str, when: str, ranked: Sequence[Any]) -> None:
        """A successful run at ``when``: its ranked candidates, best first (each at least
        an id and a score: ``(id, score)`` pairs, or the service's result rows)."""
