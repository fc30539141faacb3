"""How one document's write merges with what the library holds: ids, titles, same bytes.

A PDF that names a DOI is merged into the work that owns the DOI only when the titles
agree; the same bytes met again through a provider add that provider's record to the work
holding them; records are parsed with their loose author and year fields.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prioris.errors import InvalidRequestError
from prioris.ingest.embed import embedding_text
from prioris.ingest.write import titles_agree
from prioris.library import Library
from prioris.models import Work

from pdf_factory import make_text_pdf

NOW = "2026-01-01T00:00:00+00:00"


@pytest.mark.parametrize(
    ("a", "b", "agree"),
    [
        ("Deep learning for protein folding", "Deep Learning for Protein Folding!", True),
        ("Glacier surge dynamics", "Glacier surge dynamics in Svalbard", True),  # 3/4
        ("Glacier surge dynamics", "Glacier surge models of Svalbard fjords", False),  # 2/6
        ("alpha beta gamma delta", "alpha beta zeta theta", False),  # 2/6 below one half
        ("alpha beta gamma", "alpha beta delta zeta", False),  # 2/5
        ("alpha beta gamma delta", "alpha beta gamma theta", True),  # 3/5
        ("", "Anything at all", False),
        ("An of to", "An of to", False),  # only words of three letters or more count
    ],
)
def test_titles_agree_on_half_their_words(a: str, b: str, agree: bool) -> None:
    assert titles_agree(a, b) is agree
    assert titles_agree(b, a) is agree


def test_titles_agree_at_exactly_one_half() -> None:
    assert titles_agree("alpha beta gamma", "alpha beta delta")  # 2 shared of 4: 0.5


def test_embedding_text_puts_the_title_before_the_passage() -> None:
    assert embedding_text("Glaciers", "## Methods\nCores were drilled.") == (
        "Glaciers\nMethods\nCores were drilled."
    )
    assert embedding_text("Glaciers", "Glaciers surge.") == "Glaciers surge."
    assert embedding_text("", "# Title\ntext") == "Title\ntext"


def _pdf(tmp_path: Path, name: str, title: str, doi: str) -> Path:
    body = f"This article, doi {doi}, studies {title.lower()} in detail. " * 20
    return make_text_pdf(tmp_path / name, title, [body])


def test_a_pdf_naming_a_stored_doi_merges_only_when_the_titles_agree(
    library: Library, tmp_path: Path
) -> None:
    library.pipeline.store(
        library.pipeline.prepare_metadata_only(
            Work(
                id="europepmc:PMC5",
                title="Fjord sediment cores record glacier retreat",
                aliases=["doi:10.1234/fjord"],
                source="europepmc",
                year=2019,
            )
        )
    )
    same = library.ingest_file(
        _pdf(tmp_path, "same.pdf", "Fjord sediment cores record glacier retreat", "10.1234/fjord")
    )
    assert same.id == "europepmc:PMC5"  # one paper, one work
    other = library.ingest_file(
        _pdf(tmp_path, "other.pdf", "Soil nematodes in alpine meadows", "10.1234/fjord")
    )
    assert other.id.startswith("file:") and other.status == "ingested"
    assert library.resolve_work_id("doi:10.1234/fjord") == "europepmc:PMC5"
    assert library.get_work(other.id).aliases == []  # the cited DOI is not its own
    assert library.status()["works"] == 2
    merged = library.get_work("europepmc:PMC5")
    assert merged.year == 2019 and merged.source == "europepmc"
    assert [d["format"] for d in library.original("europepmc:PMC5")[1]] == ["pdf"]
    hits = library.search("fjord sediment cores", mode="fts").hits
    assert hits[0].id == "europepmc:PMC5"


def test_the_same_bytes_from_a_provider_join_the_work_that_holds_them(
    library: Library, tmp_path: Path
) -> None:
    pdf = make_text_pdf(tmp_path / "p.pdf", "Peatland methane", ["Peat emits methane. " * 40])
    first = library.ingest_file(pdf)
    chunks = library.status()["chunks"]
    record = Work(
        id="arxiv:2403.00007v1",
        title="Peatland methane",
        authors=["R. Moss"],
        year=2024,
        aliases=["doi:10.48550/arxiv.2403.00007"],
        source="arxiv",
    )
    again = library.pipeline.store(library.pipeline.prepare_pdf(pdf.read_bytes(), work=record))
    assert (again.id, again.status, again.reason) == (
        first.id,
        "skipped",
        "identical bytes already stored",
    )
    work = library.get_work("arxiv:2403.00007v1")
    assert work.id == first.id
    assert {"arxiv:2403.00007v1", "doi:10.48550/arxiv.2403.00007"} <= set(work.aliases)
    # what the file lacked is filled in (its page prints no author, and the info
    # dictionary's placeholder author is not taken for one)
    assert work.year == 2024 and work.authors == ["R. Moss"]
    assert work.title == "Peatland methane"
    assert library.status()["chunks"] == chunks and library.status()["documents"] == 1
    # the same bytes as a file again: a no-op, no alias added
    assert library.ingest_file(pdf).status == "skipped"
    assert len(library.get_work(first.id).aliases) == len(work.aliases)


def test_records_with_loose_fields(library: Library) -> None:
    prepared = library.pipeline.prepare_record(
        {
            "id": "r1",
            "title": "  Lichens  ",
            "abstract": "Lichens grow slowly.",
            "authors": "Ann Lee; ; Bo Chen ",
            "year": "2011",
            "venue": "Flora",
            "metadata": {"k": 1},
        }
    )
    work = prepared.work
    assert (work.id, work.title, work.authors, work.year) == (
        "r1",
        "Lichens",
        ["Ann Lee", "Bo Chen"],
        2011,
    )
    assert work.venue == "Flora" and work.extra == {"k": 1} and work.source == "import"
    assert prepared.markdown == "# Lichens\n\nLichens grow slowly."
    assert (
        library.pipeline.prepare_record({"_id": "r2", "text": "x", "year": "n.d."}).work.year
        is None
    )
    untitled = library.pipeline.prepare_record({"_id": "r3", "text": "bare text", "year": 1999})
    assert untitled.markdown == "bare text" and untitled.work.year == 1999
    with pytest.raises(InvalidRequestError, match="record has no '_id' or 'id'"):
        library.pipeline.prepare_record({"title": "t"})
    with pytest.raises(InvalidRequestError, match="record 'r4' has neither title nor text"):
        library.pipeline.prepare_record({"_id": "r4", "title": " "})


def test_upsert_fills_gaps_refreshes_counts_and_merges_extra(library: Library) -> None:
    from prioris.storage.works import get_work, upsert_work

    conn = library.conn
    upsert_work(
        conn,
        Work(
            id="w1",
            title="Kept title",
            source="openalex",
            cited_by_count=3,
            extra={"a": 1, "b": 1},
        ),
        NOW,
    )
    upsert_work(
        conn,
        Work(
            id="w1",
            title="Another title",
            abstract="Now known.",
            source="arxiv",
            cited_by_count=9,
            is_oa=True,
            extra={"b": 2, "c": 3},
        ),
        "2026-02-02T00:00:00+00:00",
    )
    work = get_work(conn, "w1")
    assert work is not None
    assert (work.title, work.source, work.abstract) == ("Kept title", "openalex", "Now known.")
    assert (work.cited_by_count, work.is_oa) == (9, True)  # refreshed by the provider
    assert work.extra == {"a": 1, "b": 1, "c": 3}  # stored keys win, new keys join
    assert work.updated_at == "2026-02-02T00:00:00+00:00" and work.created_at == NOW
    upsert_work(conn, Work(id="w1", title="x", source="x", cited_by_count=None), "2027")
    after = get_work(conn, "w1")
    assert after is not None and after.cited_by_count == 9 and after.updated_at != "2027"


def test_the_model_sees_each_passage_with_its_work_title(settings) -> None:  # type: ignore[no-untyped-def]
    from prioris.embedding.fake import FakeEmbedder

    from conftest import FakeOcr

    class Recording(FakeEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.texts: list[str] = []

        def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            self.texts.extend(texts)
            return super().embed_passages(texts)

    embedder = Recording()
    library = Library.open(settings, embedder=embedder, ocr=FakeOcr())
    try:
        text = "\n\n".join(f"## Part {i}\n\n" + "Sediment accumulates. " * 80 for i in range(3))
        library.import_records(
            [
                {"_id": "a", "title": "Fjords", "text": text},
                {"_id": "b", "title": "Karst", "text": "Caves dissolve."},
            ]
        )
        chunks = library.status()["chunks"]
    finally:
        library.close()
    # every passage, then each work's own text: Karst's is its one passage (embedded once)
    assert len(embedder.texts) == chunks + 1 and chunks >= 3
    passages, own = embedder.texts[:chunks], embedder.texts[chunks:]
    # a later passage does not start with the title: it is put in front of it
    assert passages[1].startswith("Fjords\nPart 1\n\nSediment")
    assert all(t.startswith("Fjords") for t in passages[:-1])
    assert passages[-1] == "Karst\n\nCaves dissolve."
    # no abstract: the head of the text (4,000 characters, past what MiniLM reads)
    assert len(own) == 1 and own[0].startswith("Fjords\n\nPart 0\n\nSediment")
    assert len(own[0]) <= 4000
