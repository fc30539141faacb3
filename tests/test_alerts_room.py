"""The alerts room's protocols are satisfied by plain objects (what issue 37 builds on)."""

from __future__ import annotations

from collections.abc import Sequence

from prioris.alerts import AlertState, Candidate, CandidateRanker, CandidateSource


class _Listed:
    name = "file"

    def __init__(self, items: list[Candidate]) -> None:
        self.items = items

    def candidates(self, since: str | None) -> list[Candidate]:
        return [c for c in self.items if since is None or (c.published or "") > since]


class _ByLength:
    def scores(self, candidates: Sequence[Candidate]) -> list[float]:
        return [float(len(c.title)) for c in candidates]


class _Remembered:
    def __init__(self) -> None:
        self.runs: dict[str, str] = {}

    def last_run(self, alert: str) -> str | None:
        return self.runs.get(alert)

    def dismissed(self, alert: str) -> set[str]:
        return set()

    def record_run(self, alert: str, when: str, ranked: Sequence[tuple[str, float]]) -> None:
        self.runs[alert] = when


def test_plain_objects_fit_the_protocols() -> None:
    items = [Candidate("a", "Short", published="2026-01-02"), Candidate("b", "A longer title")]
    source, ranker, state = _Listed(items), _ByLength(), _Remembered()
    assert isinstance(source, CandidateSource)
    assert isinstance(ranker, CandidateRanker) and isinstance(state, AlertState)
    new = list(source.candidates("2026-01-01"))
    assert [c.id for c in new] == ["a"]
    state.record_run("weekly", "2026-01-03", list(zip(["a"], ranker.scores(new), strict=True)))
    assert state.last_run("weekly") == "2026-01-03"


def test_an_object_missing_a_step_is_not_taken_for_one() -> None:
    """The protocols ask for each step: a state that cannot record a run, a source that
    cannot list candidates or a ranker without scores is refused at the seam."""

    class _NoRecord:
        def last_run(self, alert: str) -> str | None:
            return None

        def dismissed(self, alert: str) -> set[str]:
            return set()

    class _Nameless:
        def candidates(self, since: str | None) -> list[Candidate]:
            return []

    assert not isinstance(_NoRecord(), AlertState)
    assert not isinstance(_Nameless(), CandidateSource)  # a source says its name
    assert not isinstance(_Listed([]).candidates, CandidateRanker)


def test_each_step_of_each_protocol_is_asked_for() -> None:
    """Every step the protocols name, one at a time: the plain object that fits, without
    that one step, is refused (so a protocol that stops asking for a step fails here)."""
    steps = {
        AlertState: (_Remembered, ("last_run", "dismissed", "record_run")),
        CandidateSource: (_Listed, ("name", "candidates")),
        CandidateRanker: (_ByLength, ("scores",)),
    }
    for protocol, (fits, names) in steps.items():
        for name in names:
            members = {k: v for k, v in vars(fits).items() if k != name}
            without = type(f"{fits.__name__}Without_{name}", (), members)
            instance = without.__new__(without)
            assert not isinstance(instance, protocol), (protocol.__name__, name)
