"""The order of records within one precedence tier (issue 40).

``merge_records`` ranks origins by tier, then the newest ``recorded_at``, then the fixed
order of :data:`PRECEDENCE`. The property test in ``test_editing.py`` takes ``ranked`` as
its oracle, so a wrong order inside a tier went unseen: these tests write the expected
order out (an independent oracle) and pit a newer record against the fixed order.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from prioris.provenance import merge_records, ranked

# the tiers as docs/usage.md and the module text state them, written out here
TIER = {
    "user": 0,
    "zotero": 1,
    "bibtex": 1,
    "ris": 1,
    "import": 1,
    "openalex": 2,
    "europepmc": 2,
    "arxiv": 2,
    "pdf_metadata": 4,
    "printed": 5,
}
FIXED = list(TIER)  # the fixed order breaks a tie of tier and date


def _expected(records: dict[str, dict[str, Any]]) -> list[str]:
    def key(origin: str) -> tuple[Any, ...]:
        date = str(records[origin].get("recorded_at") or "")
        # newest first: the date's characters negated make a descending sort key
        return (
            TIER.get(origin, 3),
            (*(-ord(c) for c in date), 1),
            FIXED.index(origin) if origin in FIXED else 99,
            origin,
        )

    return sorted(records, key=key)


def test_a_newer_record_wins_within_its_tier_against_the_fixed_order() -> None:
    records = {
        "openalex": {"title": "OpenAlex's", "recorded_at": "2024-01-01T00:00:00+00:00"},
        "arxiv": {"title": "arXiv's", "recorded_at": "2025-06-01T00:00:00+00:00"},
        "zotero": {"venue": "Zotero's", "recorded_at": "2023-01-01T00:00:00+00:00"},
        "bibtex": {"venue": "BibTeX's", "recorded_at": "2026-01-01T00:00:00+00:00"},
    }
    merged = merge_records(records)
    assert merged.fields["title"] == "arXiv's" and merged.origins["title"] == "arxiv"
    assert merged.fields["venue"] == "BibTeX's" and merged.origins["venue"] == "bibtex"
    assert ranked(records) == ["bibtex", "zotero", "arxiv", "openalex"]


def test_equal_dates_fall_back_to_the_fixed_order_and_a_dated_record_beats_an_undated() -> None:
    same = "2025-01-01T00:00:00+00:00"
    records = {
        "europepmc": {"title": "Europe PMC's", "recorded_at": same},
        "openalex": {"title": "OpenAlex's", "recorded_at": same},
        "ris": {"pages": "RIS's"},  # no date: older than any dated record of its tier
        "import": {"pages": "import's", "recorded_at": "2020-01-01T00:00:00+00:00"},
    }
    merged = merge_records(records)
    assert merged.origins["title"] == "openalex"
    assert merged.origins["pages"] == "import"
    assert ranked(records) == ["import", "ris", "openalex", "europepmc"]


def test_a_newer_record_of_a_lower_tier_never_wins() -> None:
    records = {
        "printed": {"title": "Printed", "recorded_at": "2026-12-01T00:00:00+00:00"},
        "pdf_metadata": {"title": "Info", "recorded_at": "2026-11-01T00:00:00+00:00"},
        "openalex": {"title": "OpenAlex's", "recorded_at": "2001-01-01T00:00:00+00:00"},
        "zotero": {"year": 2011, "recorded_at": "2000-01-01T00:00:00+00:00"},
        "arxiv": {"year": 2019, "recorded_at": "2026-12-02T00:00:00+00:00"},
    }
    merged = merge_records(records)
    assert merged.origins["title"] == "openalex" and merged.fields["year"] == 2011


_origin = st.sampled_from([*FIXED[1:], "somewhere", "elsewhere"])
_date = st.none() | st.sampled_from(["2024", "2025-03", "2025-03-02", "2026"])


@given(st.dictionaries(_origin, st.fixed_dictionaries({"recorded_at": _date}), min_size=1))
def test_the_ranking_is_tier_then_newest_then_fixed_order(
    records: dict[str, dict[str, Any]],
) -> None:
    records = {o: {**r, "title": o} for o, r in records.items()}
    assert ranked(records) == _expected(records)
    assert merge_records(records).fields["title"] == _expected(records)[0]
