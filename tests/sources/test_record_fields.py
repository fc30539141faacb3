"""Provider records carry what a citation needs: venue, volume, issue, pages, publisher,
keywords and a type, checked on recorded real replies (../shared/fixtures/api)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from prioris.export import entry_kind
from prioris.models import Work
from prioris.sources.arxiv_feed import parse_atom
from prioris.sources.enrich import merge_provider
from prioris.sources.europepmc import parse_search
from prioris.sources.openalex_records import parse_openalex_work
from prioris.sources.record_fields import europepmc_fields, page_text, parse_journal_ref

from conftest import shared_path


def recorded(*parts: str) -> Any:
    return json.loads(shared_path("fixtures", "api", *parts).read_text("utf-8"))


def test_openalex_work_from_biblio_and_primary_source() -> None:
    work = parse_openalex_work(recorded("openalex-graph", "bibgraph_work_W2741809807.json"))
    assert work.type == "article" and work.venue == "PeerJ"
    assert (work.volume, work.issue, work.pages) == ("6", None, "e4375")
    assert work.publisher == "PeerJ, Inc."
    assert work.keywords[:2] == ["Scholarly Communication", "Web of science"]
    assert work.extra["source_type"] == "journal"
    assert entry_kind(work) == "article"


def test_every_recorded_openalex_work_keeps_its_biblio() -> None:
    folder = shared_path("fixtures", "api", "openalex-graph")
    seen = 0
    for path in sorted(folder.glob("*work_W*.json")):
        obj = json.loads(path.read_text("utf-8"))
        if not isinstance(obj, dict) or "id" not in obj:
            continue
        work = parse_openalex_work(obj)
        biblio = obj.get("biblio") or {}
        assert work.volume == (biblio.get("volume") or None), path.name
        first, last = biblio.get("first_page"), biblio.get("last_page")
        if first:
            assert work.pages == (first if last in (None, first) else f"{first}-{last}")
        seen += 1
    assert seen >= 3


def test_europepmc_journal_info_page_info_and_types() -> None:
    page = parse_search(recorded("europepmc", "pyeuropepmc_search_cancer_core.json"))
    first = page.works[0]
    assert (first.venue, first.volume, first.issue, first.pages) == (
        "Lancet (London, England)",
        "404",
        "10471",
        "2603-2604",
    )
    assert entry_kind(first) == "article"
    by_id = {w.id: w for w in page.works}
    electronic = by_id["europepmc:MED:40468710"]
    assert (electronic.volume, electronic.issue, electronic.pages) == ("30", "3", "e12807")
    assert electronic.keywords  # keywordList
    # an article ahead of print: "Forthcoming" is no issue, an article id is no page
    ahead = by_id["europepmc:MED:40464630"]
    assert ahead.issue is None and ahead.pages is None
    assert sum(1 for w in page.works if w.pages) >= 18


def test_europepmc_fields_reject_placeholders() -> None:
    found = europepmc_fields(
        {"journalInfo": {"volume": "12", "issue": "Forthcoming"}, "pageInfo": "101–110"}
    )
    assert (found["volume"], found["issue"], found["pages"]) == ("12", None, "101-110")


def test_arxiv_journal_refs_from_a_recorded_feed() -> None:
    xml = shared_path("fixtures", "api", "arxiv", "q_testing_s0_m10_bc5a6c384fe9.atom.xml")
    works = {w.id.split(":", 1)[1]: w for w in parse_atom(xml.read_bytes()).works}
    proc = works["2405.13786v1"]
    assert proc.pages == "66-69"
    assert proc.venue == (
        "Proc. 2023 IEEE International Conference on Software Testing, Verification and "
        "Validation Workshops (ICSTW)"
    )
    assert entry_kind(proc) == "inproceedings"
    journal = works["1202.4527v1"]
    assert (journal.volume, journal.issue) == ("3", "1")
    assert journal.venue.startswith("International Journal of Software Engineering & Applications")
    assert entry_kind(journal) == "article"
    assert works["2005.14124v2"].pages == "14-26"
    plain = works["2503.05378v2"]  # no journal_ref: a preprint
    assert plain.venue is None and entry_kind(plain) == "preprint"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Phys. Rev. D 76, 013009 (2007)",
            {"venue": "Phys. Rev. D", "volume": "76", "pages": "013009", "year": "2007"},
        ),
        (
            "Nature 521, 436-444 (2015)",
            {"venue": "Nature", "volume": "521", "pages": "436-444", "year": "2015"},
        ),
        (
            "Astrophys. J. 701 (2009) 1057-1067",
            {"venue": "Astrophys. J.", "volume": "701", "pages": "1057-1067", "year": "2009"},
        ),
        (
            "J. Mach. Learn. Res. 15(1):1929-1958, 2014",
            {
                "venue": "J. Mach. Learn. Res.",
                "volume": "15",
                "issue": "1",
                "pages": "1929-1958",
                "year": "2014",
            },
        ),
        ("Proceedings of ACL 2019", {"venue": "Proceedings of ACL 2019"}),
        ("", {}),
        (None, {}),
    ],
)
def test_parse_journal_ref(text: str | None, expected: dict[str, str]) -> None:
    assert parse_journal_ref(text) == expected


def test_page_text() -> None:
    assert page_text("436", "444") == "436-444"
    assert page_text("e4375", "e4375") == "e4375"
    assert page_text(12, None) == "12"
    assert page_text(None, "3") is None


def test_merge_provider_carries_the_citation_fields() -> None:
    printed = Work(id="file:1", title="Printed title", source="file")
    provider = Work(
        id="openalex:W1",
        title="Provider title",
        venue="PeerJ",
        volume="6",
        issue="2",
        pages="e4375",
        publisher="PeerJ, Inc.",
        keywords=["Open Science"],
        extra={"source_type": "journal"},
        source="openalex",
    )
    merged = merge_provider(printed, provider)
    assert (merged.volume, merged.issue, merged.pages) == ("6", "2", "e4375")
    assert merged.publisher == "PeerJ, Inc." and merged.keywords == ["Open Science"]
    assert merged.extra["source_type"] == "journal"
