"""Citations through the Library, the CLI and stored originals' file names, on SQLite and
PostgreSQL: what a provider recorded comes back out of storage into every format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
import rispy

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.interfaces.cli import main
from prioris.models import Document, Work
from prioris.services.downloads import download_name
from prioris.storage.works import upsert_work

NOW = "2026-01-01T00:00:00+00:00"
ARTICLE = Work(
    id="doi:10.7717/peerj.4375",
    title="The state of OA: a large-scale analysis of Open Access articles",
    authors=["Heather Piwowar", "Jason Priem"],
    year=2018,
    published="2018-02-13",
    venue="PeerJ",
    volume="6",
    pages="e4375",
    publisher="PeerJ, Inc.",
    keywords=["Open Science", "Citation analysis"],
    type="article",
    source="openalex",
    abstract="Despite growing interest in Open Access, its extent is unknown. Keywords: OA",
    aliases=["doi:10.7717/peerj.4375", "openalex:W2741809807"],
)
PAPER = Work(
    id="arxiv:1706.03762v7",
    title="Attention Is All You Need",
    authors=["Ashish Vaswani", "Noam Shazeer"],
    year=2017,
    venue="Advances in Neural Information Processing Systems",
    pages="5998-6008",
    type="preprint",
    source="arxiv",
    aliases=["arxiv:1706.03762v7"],
)


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


@pytest.fixture
def stocked(library: Any) -> Any:
    with library.lock:
        for work in (ARTICLE, PAPER):
            upsert_work(library.conn, work, NOW)
    return library


def test_stored_fields_reach_every_format(stocked: Any) -> None:
    bib = bibtexparser.parse_string(stocked.export([ARTICLE.id, PAPER.id], "bibtex"))
    assert not bib.failed_blocks
    article, paper = bib.entries
    assert (article.key, article.entry_type) == ("piwowar2018state", "article")
    assert {f.key: f.value for f in article.fields}.items() >= {
        "journal": "PeerJ",
        "volume": "6",
        "pages": "e4375",
        "publisher": "PeerJ, Inc.",
        "keywords": "Open Science, Citation analysis",
        "abstract": "Despite growing interest in Open Access, its extent is unknown.",
        "doi": "10.7717/peerj.4375",
        "month": "feb",
    }.items()
    # an arXiv record whose journal_ref named proceedings is cited as the paper it became
    assert (paper.key, paper.entry_type) == ("vaswani2017attention", "inproceedings")
    assert paper.fields_dict["eprint"].value == "1706.03762v7"
    records = rispy.loads(stocked.export([ARTICLE.id, PAPER.id], "ris"))
    assert [r["type_of_reference"] for r in records] == ["JOUR", "CPAPER"]
    assert records[0]["start_page"] == "e4375" and records[0]["volume"] == "6"
    apa = stocked.export([ARTICLE.id], "text", "apa")
    assert apa.startswith("Piwowar, H., & Priem, J. (2018).") and "PeerJ, 6, e4375." in apa
    ieee = stocked.export([PAPER.id, ARTICLE.id], "text", "ieee")
    assert ieee.splitlines()[0].startswith("[1] A. Vaswani and N. Shazeer,")
    (item,) = json.loads(stocked.export([ARTICLE.id], "csl-json"))
    assert item["type"] == "article-journal" and item["page"] == "e4375"


def test_cite_one_by_one_and_together(stocked: Any) -> None:
    found = stocked.cite(["openalex:W2741809807", PAPER.id], "vancouver")
    assert found["format"] == "text" and found["style"] == "vancouver"
    assert [i["key"] for i in found["items"]] == ["piwowar2018state", "vaswani2017attention"]
    assert found["items"][0]["citation"].startswith("Piwowar H, Priem J.")
    assert found["text"].startswith("1. Piwowar H, Priem J.")
    bib = stocked.cite([ARTICLE.id], None, "bibtex")
    assert bib["style"] is None and bib["items"][0]["citation"].startswith("@article{piwowar")
    with pytest.raises(InvalidRequestError, match="bundled styles"):
        stocked.cite([ARTICLE.id], "no-such-style")
    with pytest.raises(InvalidRequestError, match="at least one"):
        stocked.cite([])
    with pytest.raises(NotFoundError):
        stocked.cite(["doi:10.1/none"])
    with pytest.raises(InvalidRequestError, match="style"):
        stocked.export([ARTICLE.id], "text", "/etc/passwd.csl")  # no files unless allowed


def test_downloads_keep_the_original_file_name(library: Any, tmp_path: Path) -> None:
    import paper_factory

    path = tmp_path / "Okafor et al. – Coral reefs (2019).pdf"
    path.write_bytes(paper_factory.single_column_lncs())
    work_id = library.ingest_file(path).id
    _, documents = library.original(work_id)
    assert documents[0]["name"] == "Okafor et al. – Coral reefs (2019).pdf"
    upload = library.ingest_upload(
        paper_factory.single_column_lncs(title="Another reef paper"), filename="C:\\x\\scan 1.pdf"
    )
    assert library.original(upload.id)[1][0]["name"] == "scan 1.pdf"


def test_download_name_rules() -> None:
    work = Work(id="arxiv:2401.01234v2", title="t")
    doc = Document(sha256="0" * 64, work_id=work.id, format="pdf", size_bytes=1)
    assert download_name(work, doc) == "arxiv_2401.01234v2.pdf"  # fetched: no file name
    assert download_name(work, Document(**{**doc.__dict__, "path": "/a/b/paper"})) == "paper.pdf"
    odd = Document(**{**doc.__dict__, "path": '/a/\x07we"ird<>.pdf'})
    assert download_name(work, odd) == "_we_ird_.pdf"
    named = Work(id="file:1", title="t", extra={"filename": "kept.pdf"})
    assert download_name(named, doc) == "kept.pdf"


# -- the CLI ---------------------------------------------------------------------------------
def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_export_ris_and_text(
    stocked: Any,
    settings: Any,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if settings.db_url:
        monkeypatch.setenv("PRIORIS_MCP_DB", settings.db_url)
    stocked.close()
    code, out, _ = run(capsys, "export", ARTICLE.id, "--format", "ris")
    assert code == 0 and rispy.loads(out)[0]["journal_name"] == "PeerJ"
    code, out, _ = run(capsys, "export", ARTICLE.id, PAPER.id, "--format", "text")
    assert code == 0 and out.startswith("Piwowar, H., & Priem, J. (2018).")  # apa by default
    code, out, _ = run(capsys, "export", PAPER.id, "--format", "text", "--style", "ieee")
    assert code == 0 and out.startswith("[1] A. Vaswani and N. Shazeer,")
    from prioris.export import resolve_style

    own = tmp_path / "mine.csl"
    own.write_bytes(resolve_style("chicago-author-date").read_bytes())
    code, out, _ = run(capsys, "export", ARTICLE.id, "--format", "text", "--style", str(own))
    assert code == 0 and out.startswith("Piwowar, H., and J. Priem. 2018.")
    code, _, err = run(capsys, "export", "--format", "text", "--style", "harvardish")
    assert code == 2 and "error [invalid_request]" in err
    assert "bundled styles: apa, vancouver, ieee, chicago-author-date" in err
    code, _, err = run(capsys, "export", "--format", "bibtex", "--style", "apa")
    assert code == 2 and "--style goes with --format text" in err
