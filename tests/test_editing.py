"""Editing with provenance: the merge's precedence, edits, undo, and an edit surviving every
path that merges a work's records again (re-ingest, --force, enrich, reindex, import,
migrate-to both ways). Providers answer through httpx.MockTransport; PDFs are made here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paper_factory as papers
from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import InvalidRequestError, NotFoundError
from prioris.ingest.embed import work_text
from prioris.library import Library, migrate_library
from prioris.provenance import PRECEDENCE, merge_records, ranked, validate_patch
from prioris.storage import work_vectors as work_vector_store

from conftest import FAKE_PROVIDER_ENV, FakeOcr

DOI = "10.5555/reef.2019.7"
OPENALEX_WORK = {
    "id": "https://openalex.org/W42",
    "doi": f"https://doi.org/{DOI}",
    "title": "Coral Reef Recovery after Repeated Marine Heatwaves: A Six-Year Survey",
    "publication_year": 2019,
    "type": "article",
    "primary_location": {"source": {"display_name": "Journal of Reef Studies"}},
    "authorships": [{"author": {"display_name": "Ngozi Okafor"}}],
}


def openalex(request: httpx.Request) -> httpx.Response:
    """OpenAlex as a MockTransport handler (every other provider: 404)."""
    if request.url.host == "openalex.test":
        return httpx.Response(200, json=OPENALEX_WORK)
    return httpx.Response(404)


# -- the pure merge ---------------------------------------------------------------------------
def test_precedence_user_reference_manager_provider_pdf_metadata_printed() -> None:
    assert PRECEDENCE == (
        "user",
        "zotero",
        "bibtex",
        "ris",
        "import",
        "openalex",
        "europepmc",
        "arxiv",
        "pdf_metadata",
        "printed",
    )
    records = {
        "printed": {"title": "Journal of Reef Studies", "year": 2018, "venue": "Printed venue"},
        "pdf_metadata": {"title": "Coral Reef Recovery", "authors": ["N. Okafor"]},
        "openalex": {"title": "Coral Reef Recovery: A Survey", "year": 2019, "abstract": ""},
        "zotero": {"pages": "1-9"},
        "user": {"pages": "10-19", "venue": None, "doi": "10.1234/x"},
    }
    merged = merge_records(records, base={"title": "file name", "abstract": "kept"})
    assert merged.fields["title"] == "Coral Reef Recovery: A Survey"
    assert merged.fields["authors"] == ["N. Okafor"]  # the provider has none: next source
    assert merged.fields["year"] == 2019
    assert merged.fields["venue"] is None  # the user cleared it: the printed one stays out
    assert merged.fields["pages"] == "10-19" and merged.fields["doi"] == "10.1234/x"
    assert merged.fields["abstract"] == "kept"  # no source has one: the stored value
    assert merged.origins == {
        "title": "openalex",
        "authors": "pdf_metadata",
        "year": "openalex",
        "venue": "user",
        "pages": "user",
        "doi": "user",
    }


def test_newest_provider_wins_and_ids_come_from_aliases() -> None:
    records = {
        "arxiv": {"title": "Old", "recorded_at": "2024-01-01T00:00:00+00:00"},
        "openalex": {
            "title": "New",
            "id": "openalex:W42",
            "aliases": ["doi:10.1234/a", "europepmc:MED:77"],
            "recorded_at": "2025-01-01T00:00:00+00:00",
        },
        "printed": {"arxiv_id": "2401.01234v1", "doi": "10.1234/A"},
    }
    merged = merge_records(records)
    assert merged.fields["title"] == "New" and merged.origins["title"] == "openalex"
    assert merged.fields["openalex"] == "W42" and merged.fields["pmid"] == "77"
    assert merged.fields["doi"] == "10.1234/a" and merged.fields["arxiv"] == "2401.01234v1"
    assert merged.origins["arxiv"] == "printed"


_origins = st.sampled_from([o for o in PRECEDENCE if o != "user"] + ["somewhere"])
_records = st.dictionaries(
    _origins,
    st.fixed_dictionaries(
        {},
        optional={
            "title": st.text(max_size=5),
            "year": st.none() | st.integers(1900, 2030),
            "venue": st.none() | st.text(max_size=5),
            "recorded_at": st.sampled_from(["2024", "2025", "2026"]),
        },
    ),
)


@given(
    records=_records,
    user=st.dictionaries(
        st.sampled_from(["title", "year", "venue"]), st.none() | st.integers(1900, 2030).map(str)
    ),
)
def test_the_user_always_wins_and_every_origin_is_a_source_that_had_the_value(
    records: dict[str, dict[str, Any]], user: dict[str, Any]
) -> None:
    user = {k: (int(v) if k == "year" and v else v) for k, v in user.items()}
    merged = merge_records({**records, "user": user} if user else records)
    for name in ("title", "year", "venue"):
        if name in user:
            assert merged.origins[name] == "user" and merged.fields[name] == user[name]
        elif name in merged.origins:
            origin = merged.origins[name]
            assert records[origin][name] == merged.fields[name]
            order = ranked(records)
            higher = order[: order.index(origin)]  # every source ranked above it had none
            assert all(records[o].get(name) in (None, "") for o in higher)
        else:
            assert all(r.get(name) in (None, "") for r in records.values())


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"titel": "x"}, "unknown field(s) titel"),
        ({"year": "20x4"}, "year must be a four-digit year"),
        ({"year": 99999}, "year must be a four-digit year"),
        ({"year": True}, "year must be a whole number"),
        ({"title": "  "}, "title cannot be empty"),
        ({"title": None}, "title cannot be empty"),
        ({"published": "May 2019"}, "published must be an ISO date"),
        ({"doi": "not a doi"}, "doi: 'not a doi' is not a valid doi"),
        ({"arxiv": "10.1234/x"}, "is not a arxiv"),
        ({}, "nothing to change"),
        ([], "must be a JSON object"),
        ({"authors": 3}, "authors must be a list of text"),
    ],
)
def test_bad_patches_are_refused(patch: Any, message: str) -> None:
    with pytest.raises(InvalidRequestError, match=message.replace("(", r"\(").replace(")", r"\)")):
        validate_patch(patch)


def test_patch_is_normalised() -> None:
    clean = validate_patch(
        {
            "title": "  A   title ",
            "year": "2019",
            "authors": ["Ada Lovelace", " ", "Alan Turing"],
            "doi": "https://doi.org/10.5555/ABC",
            "pmcid": "PMC123",
            "venue": "",
            "keywords": "reefs",
        }
    )
    assert clean == {
        "title": "A title",
        "year": 2019,
        "authors": ["Ada Lovelace", "Alan Turing"],
        "doi": "10.5555/abc",
        "pmcid": "PMC123",
        "venue": None,
        "keywords": ["reefs"],
    }


# -- edits and undo, on both engines ------------------------------------------------------------
@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


def _own_vector(library: Library, work_id: str) -> np.ndarray | None:
    with library.lock:
        return work_vector_store.read(library.conn, [work_id]).get(work_id)


def _ingest(library: Library, tmp_path: Path, name: str = "reef.pdf", **kw: Any) -> str:
    path = tmp_path / name
    path.write_bytes(papers.single_column_lncs(**kw))
    return library.ingest_file(path).id


def test_edit_undo_history_and_origins(library: Library, tmp_path: Path) -> None:
    work_id = _ingest(library, tmp_path, doi=DOI)
    printed = library.get_work(work_id)
    assert printed.origins["title"] == "printed" and printed.title == papers.LNCS_TITLE
    assert library.work_fields(work_id)["doi"] == DOI

    first = library.edit_work(
        work_id,
        {"title": "Coral Reefs After Heatwaves", "authors": ["Ngozi Okafor", "Kenji Tanaka"]},
    )
    assert first.title == "Coral Reefs After Heatwaves"
    assert first.authors == ["Ngozi Okafor", "Kenji Tanaka"]
    assert first.origins["title"] == first.origins["authors"] == "user"
    second = library.edit_work(work_id, {"year": 2019, "venue": "Reef Studies", "keywords": ["a"]})
    assert (second.year, second.venue, second.keywords) == (2019, "Reef Studies", ["a"])
    assert second.title == "Coral Reefs After Heatwaves"  # the first edit stays
    view = library.work_fields(work_id)
    assert view["origins"]["year"] == "user" and view["origins"]["doi"] == "printed"
    assert view["edits"] == 2
    assert library.metadata_records(work_id)["user"]["venue"] == "Reef Studies"

    history = library.edit_history(work_id)
    assert [h["changes"] for h in history] == [
        {"year": 2019, "venue": "Reef Studies", "keywords": ["a"]},
        {"title": "Coral Reefs After Heatwaves", "authors": ["Ngozi Okafor", "Kenji Tanaka"]},
    ]
    assert history[0]["previous"] == {"year": None, "venue": None, "keywords": []}

    undone = library.undo_edit(work_id)  # newest first
    assert (undone.year, undone.venue, undone.keywords) == (None, None, [])
    assert undone.title == "Coral Reefs After Heatwaves" and "year" not in undone.origins
    undone = library.undo_edit(work_id)
    assert undone.title == papers.LNCS_TITLE and undone.origins["title"] == "printed"
    assert undone.authors == printed.authors
    assert "user" not in library.metadata_records(work_id)
    with pytest.raises(NotFoundError, match="no edit to undo"):
        library.undo_edit(work_id)


def test_edit_reembeds_the_work_and_updates_the_indexes(library: Library, tmp_path: Path) -> None:
    work_id = _ingest(library, tmp_path)
    library.edit_work(work_id, {"title": "Zanzibar Lagoon Acoustics", "year": 2011})
    work = library.get_work(work_id)
    own = _own_vector(library, work_id)
    assert own is not None  # embedded again in the edit's transaction, not left to reindex
    expected = library.embedder.embed_passages([work_text(work.title, work.abstract, None)])[0]
    np.testing.assert_allclose(own, expected, atol=1e-3)  # stored as float16
    assert [h.id for h in library.search("Zanzibar", mode="fts").hits] == [work_id]
    hits = library.search("coral reefs", mode="vector", from_year=2011, to_year=2011).hits
    assert [h.id for h in hits] == [work_id]  # the vectors' year copy follows
    library.undo_edit(work_id)
    assert library.search("Zanzibar", mode="fts").hits == []
    assert _own_vector(library, work_id) is not None


def test_an_abstract_edit_alone_reembeds_the_work_and_undo_embeds_the_old_text(
    library: Library, tmp_path: Path
) -> None:
    """A correction of a field other than the title keeps the work's vector current: the
    abstract is part of the work's own vector (``work_text``), so editing it alone must
    embed again in the edit's transaction (the trigger dropped the old vector), and undo
    must give back the vector of the text before. A venue edit leaves the vector as is."""
    work_id = _ingest(library, tmp_path)
    work = library.get_work(work_id)
    before = _own_vector(library, work_id)
    assert before is not None
    abstract = "Zanzibar lagoon acoustics recorded by hydrophones over three monsoons."
    edited = library.edit_work(work_id, {"abstract": abstract})
    assert edited.title == work.title and edited.abstract == abstract
    own = _own_vector(library, work_id)
    assert own is not None  # not left missing until the next reindex
    expected = library.embedder.embed_passages([work_text(work.title, abstract, None)])[0]
    np.testing.assert_allclose(own, expected, atol=1e-3)
    assert not np.allclose(own, before, atol=1e-3)  # the abstract changed the vector
    library.edit_work(work_id, {"venue": "Lagoon Letters"})
    np.testing.assert_allclose(_own_vector(library, work_id), own, atol=1e-6)
    library.undo_edit(work_id)
    library.undo_edit(work_id)
    back = _own_vector(library, work_id)
    assert back is not None
    old = library.embedder.embed_passages([work_text(work.title, work.abstract, None)])[0]
    np.testing.assert_allclose(back, old, atol=1e-3)


def test_ids_become_aliases_and_another_works_id_is_refused(
    library: Library, tmp_path: Path
) -> None:
    work_id = _ingest(library, tmp_path, doi=DOI)
    other = _ingest(
        library, tmp_path, "other.pdf", title="Lattice Hadron Masses", doi="10.5555/lattice.1"
    )
    edited = library.edit_work(work_id, {"doi": "10.5555/reef.2019.8", "arxiv": "2401.01234"})
    assert "doi:10.5555/reef.2019.8" in edited.aliases and f"doi:{DOI}" not in edited.aliases
    assert "arxiv:2401.01234" in edited.aliases
    assert library.resolve_work_id("10.5555/reef.2019.8") == work_id
    before = library.work_fields(work_id)
    with pytest.raises(InvalidRequestError, match=f"belongs to another work \\({other}\\)"):
        library.edit_work(work_id, {"title": "Changed", "doi": "10.5555/lattice.1"})
    assert library.work_fields(work_id) == before  # nothing changed
    cleared = library.edit_work(work_id, {"arxiv": None})
    assert not any(a.startswith("arxiv:") for a in cleared.aliases)
    library.undo_edit(work_id)
    library.undo_edit(work_id)
    restored = library.get_work(work_id)
    assert f"doi:{DOI}" in restored.aliases and "doi:10.5555/reef.2019.8" not in restored.aliases
    with pytest.raises(NotFoundError):
        library.edit_work("doi:10.9/none", {"title": "x"})


# -- an edit survives what merges the records again -----------------------------------------------
def test_edit_survives_reingest_another_pdf_force_and_reindex(
    library: Library, tmp_path: Path
) -> None:
    work_id = _ingest(library, tmp_path, doi=DOI)
    library.edit_work(work_id, {"title": "Corrected Title", "authors": ["Only Author"]})
    same = library.ingest_file(tmp_path / "reef.pdf")
    assert same.status == "skipped"
    footer = "A second printing of the same paper."
    another = _ingest(library, tmp_path, "second.pdf", doi=DOI, footer=footer)
    assert another == work_id  # merged through its DOI
    forced = library.ingest_file(tmp_path / "reef.pdf", force=True)
    assert forced.id == work_id and forced.reason == "re-extracted"
    library.reindex()
    work = library.get_work(work_id)
    assert work.title == "Corrected Title" and work.authors == ["Only Author"]
    assert work.origins["title"] == "user" and work.origins["doi"] == "printed"
    assert library.metadata_records(work_id)["printed"]["title"] == papers.LNCS_TITLE
    assert [h.id for h in library.search("Corrected", mode="fts").hits] == [work_id]
    assert _own_vector(library, work_id) is not None


def test_edit_survives_reimport_of_a_record(library: Library) -> None:
    record = {"_id": "doi:10.5555/rec.1", "title": "Imported", "text": "Reef.", "year": 2001}
    library.import_records([record])
    library.edit_work("doi:10.5555/rec.1", {"year": 2002})
    library.import_records([{**record, "title": "Imported v2", "text": "Reef v2."}])
    work = library.get_work("doi:10.5555/rec.1")
    assert (work.title, work.year) == ("Imported v2", 2002)
    assert work.origins == {"title": "import", "year": "user", "doi": "import"}


@pytest.fixture
def provider_library(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Any:
    for name, value in FAKE_PROVIDER_ENV.items():
        monkeypatch.setenv(name, value)
    opened: list[Library] = []

    def make() -> Library:
        library = Library.open(
            load_settings().with_library(settings.library_location),
            embedder=FakeEmbedder(),
            ocr=FakeOcr(),
            http_transport=httpx.MockTransport(openalex),
        )
        opened.append(library)
        return library

    yield make
    for library in opened:
        library.close()


def test_edit_survives_enrich(provider_library: Any, tmp_path: Path) -> None:
    library = provider_library()
    work_id = _ingest(library, tmp_path, doi=DOI)
    library.edit_work(work_id, {"title": "My Own Title", "venue": None})
    (report,) = library.enrich([work_id])
    assert report["status"] == "enriched" and "title" not in report["changed"]
    work = library.get_work(work_id)
    assert work.title == "My Own Title" and work.venue is None  # the user's clear holds
    assert work.year == 2019 and work.origins["year"] == "openalex"  # the provider fills
    assert library.metadata_records(work_id)["openalex"]["title"] == OPENALEX_WORK["title"]
    assert _own_vector(library, work_id) is not None
    assert library.undo_edit(work_id).title == OPENALEX_WORK["title"]  # the provider's again


def test_edit_and_history_survive_migrate_to_both_ways(pg_url: str, tmp_path: Path) -> None:
    settings = load_settings({"PRIORIS_MCP_ENRICH": "off"})
    source = tmp_path / "source.db"
    with Library.open(settings.with_library(source), embedder=FakeEmbedder()) as library:
        work_id = _ingest(library, tmp_path, doi=DOI)
        library.edit_work(work_id, {"title": "First Edit"})
        library.edit_work(work_id, {"title": "Second Edit", "year": 2020})
    migrate_library(settings.with_library(source), pg_url)
    back = tmp_path / "back.db"
    with Library.open(settings.with_library(pg_url), embedder=FakeEmbedder()) as copied:
        work = copied.get_work(work_id)
        assert (work.title, work.year, work.origins["title"]) == ("Second Edit", 2020, "user")
        assert [h["changes"]["title"] for h in copied.edit_history(work_id)] == [
            "Second Edit",
            "First Edit",
        ]
        copied.ingest_file(tmp_path / "reef.pdf", force=True)
        assert copied.get_work(work_id).title == "Second Edit"
    migrate_library(settings.with_library(pg_url), back)
    with Library.open(settings.with_library(back), embedder=FakeEmbedder()) as library:
        assert library.get_work(work_id).title == "Second Edit"
        assert library.undo_edit(work_id).title == "First Edit"
        assert library.undo_edit(work_id).title == papers.LNCS_TITLE
        library.edit_work(work_id, {"title": "After The Round Trip"})
        assert len(library.edit_history(work_id)) == 1
