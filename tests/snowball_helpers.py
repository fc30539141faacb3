"""A small library with reference lists and links, and a fake OpenAlex graph, shared by
the snowball tests (library, CLI, MCP, web)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prioris.models import Reference
from prioris.storage import references as reference_store
from prioris.storage import works as work_store

WORKS = [
    {
        "_id": "s1",
        "title": "Coral reef bleaching under marine heatwaves",
        "text": "Coral reefs bleach when marine heatwaves warm the water.",
        "year": 2020,
        "doi": "10.1000/s1",
    },
    {
        "_id": "s2",
        "title": "Symbiont loss in heat stressed corals",
        "text": "Heat stress makes corals lose their symbiotic algae.",
        "year": 2021,
    },
    {
        "_id": "lib3",
        "title": "Ocean acidification and calcifying organisms",
        "text": "Acidification slows calcification of shells and skeletons.",
        "year": 2015,
    },
]

# s1 cites: X (twice over the seeds, with s2), lib3 (linked), a fuzzy copy of lib3's title
# (unlinked), Y (arXiv), and a line with nothing to go on
S1_REFS = [
    Reference(
        1,
        "Hughes T. Global warming and recurrent mass bleaching of corals. Nature 2017.",
        ["Hughes T"],
        "Global warming and recurrent mass bleaching of corals",
        2017,
        "Nature",
        "10.1038/nature21707",
    ),
    Reference(
        2,
        "Ocean acidification and calcifying organisms (2015)",
        [],
        "Ocean acidification and calcifying organisms",
        2015,
    ),
    Reference(
        3,
        "Ocean acidification and calcifying organism. 2015",
        [],
        "Ocean acidification and calcifying organism",
        2015,
    ),
    Reference(
        4,
        "Smith J. Coral reef heatwave models. arXiv:2101.00001",
        ["Smith J"],
        "Coral reef heatwave models",
        2021,
        None,
        None,
        "2101.00001",
    ),
    Reference(5, "[5] ibid.", []),
]
S2_REFS = [
    Reference(
        1,
        "T. Hughes et al., Global warming and recurrent mass bleaching of corals, "
        "Nature 543 (2017).",
        ["Hughes T"],
        "Global warming and recurrent mass bleaching of corals",
        2017,
        "Nature",
        "10.1038/NATURE21707",
    ),
    Reference(
        2,
        "Baker A. Symbiont shuffling. 2008",
        ["Baker A"],
        "Coral symbiont shuffling after bleaching",
        2008,
    ),
]


def build(library: Any) -> Any:
    """Three works; s1 and s2 with reference lists, s1's second reference linked to lib3."""
    library.import_records([dict(w) for w in WORKS])
    conn = library.conn
    with library.lock:
        conn.execute("BEGIN IMMEDIATE")
        reference_store.replace_references(conn, "s1", S1_REFS)
        reference_store.replace_references(conn, "s2", S2_REFS)
        rows = reference_store.references_of(conn, "s1")
        linked = next(r for r in rows if r["ordinal"] == 2)
        reference_store.set_links(conn, [(linked["id"], "lib3", "title", 100.0)])
        work_store.add_aliases(conn, "s1", ["openalex:W1"])
        conn.execute("COMMIT")
    return library


def record(wid: str, title: str, **more: Any) -> dict[str, Any]:
    base = {
        "id": wid,
        "title": title,
        "authors": ["A. Author"],
        "year": 2019,
        "doi": None,
        "arxiv": None,
        "pmid": None,
        "pmcid": None,
        "venue": "Journal",
        "type": "article",
        "cited_by_count": 10,
        "referenced_works": [],
        "related_works": [],
        "is_oa": False,
        "pdf_url": None,
        "abstract": None,
    }
    base.update(more)
    return base


class FakeGraph:
    """GraphRecords over a dict of records; each call that needs a record not asked
    before counts one request (a cache, as the real client has), until the budget."""

    def __init__(
        self,
        records: dict[str, dict[str, Any]],
        *,
        budget: int = 100,
        dois: dict[str, str] | None = None,
    ) -> None:
        self.records = records
        self.dois = dois or {}
        self.requests = 0
        self.budget_left = budget
        self.budget_reached = False
        self.calls: list[tuple[str, tuple[str, ...]]] = []
        self.seen: set[str] = set()

    def _spend(self, what: str) -> bool:
        if what in self.seen:
            return True
        if self.budget_left <= 0:
            self.budget_reached = True
            return False
        self.seen.add(what)
        self.requests += 1
        self.budget_left -= 1
        return True

    def resolve_dois(self, dois: Sequence[str]) -> dict[str, str]:
        self.calls.append(("resolve_dois", tuple(dois)))
        if not self._spend("dois:" + "|".join(sorted(dois))):
            return {}
        return {d.lower(): self.dois[d.lower()] for d in dois if d.lower() in self.dois}

    def works(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        self.calls.append(("works", tuple(ids)))
        if not self._spend("works:" + "|".join(sorted(ids))):
            return {}
        return {i: self.records[i] for i in ids if i in self.records}

    def citing(self, ids: Sequence[str], *, limit: int) -> list[dict[str, Any]]:
        self.calls.append(("citing", tuple(ids)))
        if not self._spend("citing:" + "|".join(sorted(ids))):
            return []
        wanted = set(ids)
        found = [r for r in self.records.values() if wanted & set(r["referenced_works"])]
        return found[:limit]


def graph_records() -> dict[str, dict[str, Any]]:
    """s1 is W1 and cites W10 (= the local Hughes reference, by DOI), W11 (new), W12 (=
    lib3 by title); W20 cites W1 (forward); W21 cites W1 and is s2 by DOI? no: W21 is new."""
    return {
        "W1": record(
            "W1", WORKS[0]["title"], doi="10.1000/s1", referenced_works=["W10", "W11", "W12"]
        ),
        "W10": record(
            "W10",
            "Global warming and recurrent mass bleaching of corals",
            doi="10.1038/nature21707",
            year=2017,
            cited_by_count=3000,
            abstract="Mass bleaching of corals under global warming.",
        ),
        "W11": record(
            "W11",
            "Thermal tolerance of reef building corals",
            year=2018,
            arxiv="1801.00002",
            cited_by_count=40,
        ),
        "W12": record("W12", "Ocean acidification and calcifying organisms", year=2015),
        "W20": record(
            "W20",
            "Marine heatwaves and coral reef futures",
            year=2024,
            referenced_works=["W1"],
            is_oa=True,
            pdf_url="https://example.org/w20.pdf",
            cited_by_count=2,
        ),
    }
