"""No anonymous works where a source knows better (issue 39), on both engines.

A work without authors after ingest takes them from any other source it has (the PDF's
own metadata, a reference manager's record of the same paper); a citation key starts with
``anon`` only when no author is known at all, whatever script the names are in; and
``status`` counts the works without authors or year and suggests ``enrich``.
"""

from __future__ import annotations

import pytest

from prioris.export.keys import citation_key
from prioris.models import Work

from pdf_factory import make_text_pdf


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


def _key(library, ref: str) -> str:  # type: ignore[no-untyped-def]
    text = library.export([library.resolve_work_id(ref)], "bibtex")
    return text.split("{", 1)[1].split(",", 1)[0]


def test_a_pdf_without_a_byline_takes_its_authors_from_its_own_metadata(library, tmp_path):
    pdf = make_text_pdf(
        tmp_path / "report.pdf",
        "Heron Colonies of the Danube Delta",
        ["Herons nest in colonies along the river banks; we counted them each spring."],
        author="Maria Popescu; Ion Vasilescu",
    )
    [result] = library.ingest_paths([pdf]).ingested
    work = library.get_work(result.id)
    assert work.authors == ["Maria Popescu", "Ion Vasilescu"]
    assert _key(library, work.id) == "popescund" + "heron"
    assert library.status()["works_without_authors"] == 0


def test_a_manager_record_of_the_same_paper_names_the_authors(library, tmp_path):
    library.import_records(
        [{"id": "doi:10.5555/egret.7", "title": "Egret roosts", "text": "Egrets roost."}]
    )
    assert _key(library, "doi:10.5555/egret.7").startswith("anon")
    status = library.status()
    assert status["works_without_authors"] == 1 and status["works_without_year"] == 1
    assert status["works_incomplete"] == 1
    assert any("prioris enrich" in line for line in status["suggestions"])
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{x, title={Egret roosts}, author={Иванов, Пётр and Smith, Jo},"
        " year={2003}, doi={10.5555/egret.7}}\n",
        encoding="utf-8",
    )
    library.import_references(bib)
    work = library.get_work("doi:10.5555/egret.7")
    assert work.authors[0] == "Пётр Иванов"
    status = library.status()
    assert status["works_incomplete"] == 0 and status["suggestions"] == []
    # the key of the merged work: the user's own (bibtex:x) wins; without it, the
    # transliterated family name, never anon
    assert _key(library, work.id) == "x"
    assert citation_key(Work(id="w", title="Egret roosts", authors=work.authors, year=2003)) == (
        "ivanov2003egret"
    )


@pytest.mark.parametrize(
    ("author", "key"),
    [
        ("王小明", "u738b2021deep"),
        ("Γιώργος Παπαδόπουλος", "papadopoulos2021deep"),
        ("Иванов, Пётр", "ivanov2021deep"),
        ("Søren Müller", "muller2021deep"),
        ("김민준", "uae402021deep"),
    ],
)
def test_a_key_never_says_anon_when_an_author_is_known(author: str, key: str) -> None:
    work = Work(id="w", title="Deep roots", authors=[author], year=2021)
    assert citation_key(work) == key
    assert citation_key(Work(id="w", title="Deep roots", year=2021)) == "anon2021deep"


def test_status_on_the_cli_prints_the_hint(data_dir, capsys) -> None:  # type: ignore[no-untyped-def]
    """The CLI (on the default SQLite library) prints the counts and the hint."""
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.interfaces.cli import main
    from prioris.library import Library

    with Library.open(load_settings(), embedder=FakeEmbedder()) as library:
        library.import_records([{"id": "doi:10.5555/undated", "title": "Undated", "text": "x"}])
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "works_without_authors" in out
    assert "hint: 1 work(s) without authors or year" in out and "prioris enrich" in out
    assert main(["status", "--json"]) == 0
    assert '"works_incomplete": 1' in capsys.readouterr().out
