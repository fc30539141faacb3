"""Citations that keep what the user wrote (issue 39): a .bib imported and exported again
gives back every field the user wrote, as they wrote it: their DOI spelling, their
``url``, brace-protected and corporate names, double surnames, their entry type and the
fields Prioris has no column for. A correction made in Prioris is exported instead.

The shared .bib files (real users' exports, with their PDFs) skip cleanly without
../shared; the made-up entries below always run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prioris.refman.bibtex import parse_bibtex, read_bibtex
from prioris.refman.items import RefItem

from conftest import shared_path

LINKS = {"file", "pdf", "local-url", "groups", "mendeley-groups"}
COMPARED = ("title", "authors", "year", "published", "venue", "volume", "issue", "pages")
COMPARED += ("publisher", "abstract", "keywords", "doi", "arxiv", "url", "type")


def _exported(library, text_or_path: str | Path) -> dict[str, RefItem]:  # type: ignore[no-untyped-def]
    if isinstance(text_or_path, Path):
        report = library.import_references(text_or_path)
    else:
        report = library.import_reference_text(text_or_path, "bibtex")
    assert report["failed"] == [], report["failed"]
    out = library.export(None, "bibtex")
    items, errors = parse_bibtex(out, base=Path("/nonexistent"))
    assert errors == []
    return {item.key: item for item in items}


def _written(item: RefItem) -> dict[str, str]:
    fields = item.record["as_written"]["fields"]
    return {k: " ".join(v.split()) for k, v in fields.items() if k not in LINKS}


def _same(original: RefItem, again: RefItem) -> None:
    """Every field the user wrote, as written; the entry type; the values read from it."""
    assert again.record["as_written"]["type"] == original.record["as_written"]["type"]
    mine, back = _written(original), _written(again)
    missing = {k: v for k, v in mine.items() if back.get(k) != v}
    assert not missing, (original.key, missing, {k: back.get(k) for k in missing})
    for name in COMPARED:  # what the user gave (the library may add what they did not)
        if original.record.get(name) not in (None, "", []):
            assert again.record.get(name) == original.record[name], (original.key, name)
    assert again.record.get("author_parts") == original.record.get("author_parts")


@pytest.mark.parametrize(
    "bib",
    [
        ("ahmedthahir-bbt", "My Library.bib"),
        ("tabassam823-zotero-export", "Exported Items", "Exported Items.bib"),
    ],
    ids=["better-bibtex", "zotero-export"],
)
def test_each_shared_bib_comes_back_as_the_user_wrote_it(library, bib) -> None:  # type: ignore[no-untyped-def]
    path = shared_path("fixtures", "bibtex", *bib)
    originals, errors = read_bibtex(path)
    assert errors == []
    again = _exported(library, path)  # with the PDFs: the printed pages are merged too
    assert sorted(again) == sorted(item.key for item in originals)
    for original in originals:
        _same(original, again[original.key])


MADE_UP = r"""
@article{chazan2021,
  author = {{Chazan-Pantzalis}, Victor and García Márquez, Gabriel and {World Health Organization}},
  title = {Tuberculosis in {Latin} America: the {BCG} question},
  journal = {Revista de Salud},
  year = {2021},
  month = mar,
  volume = {12},
  number = {3},
  pages = {101--110},
  doi = {10.1000/RevSal.2021.ABC},
  url = {https://revistasalud.example.org/articulo/2021/abc},
  isbn = {978-3-16-148410-0},
  note = {Spanish original},
  abstract = {A study that ends without a full stop because the user wrote it so},
}

@techreport{who2020,
  author = {{World Health Organization}},
  title = {Global tuberculosis report 2020},
  institution = {World Health Organization},
  year = {2020},
  doi = {10.5555/WHO.TB.2020},
}
"""


def test_made_up_entries_keep_their_spelling_names_and_fields(library) -> None:  # type: ignore[no-untyped-def]
    originals, _ = parse_bibtex(MADE_UP, base=Path("/nonexistent"))
    again = _exported(library, MADE_UP)
    for original in originals:
        _same(original, again[original.key])
    text = library.export(None, "bibtex")
    assert "doi = {10.1000/RevSal.2021.ABC}" in text  # the user's capitals
    assert "url = {https://revistasalud.example.org/articulo/2021/abc}" in text
    assert "{Chazan-Pantzalis}, Victor and García Márquez, Gabriel" in text
    assert "{World Health Organization}" in text
    assert "month = mar," in text and "isbn = {978-3-16-148410-0}" in text
    # the other formats split the names the user's way too
    [csl] = [
        i
        for i in __import__("json").loads(library.export(None, "csl-json"))
        if "RevSal" in i["DOI"]
    ]
    assert csl["author"] == [
        {"family": "Chazan-Pantzalis", "given": "Victor"},
        {"family": "García Márquez", "given": "Gabriel"},
        {"literal": "World Health Organization"},
    ]
    assert csl["DOI"] == "10.1000/RevSal.2021.ABC"
    assert csl["URL"] == "https://revistasalud.example.org/articulo/2021/abc"
    ris = library.export(None, "ris")
    assert "AU  - García Márquez, Gabriel" in ris and "AU  - World Health Organization" in ris
    apa = library.cite(["bibtex:chazan2021"])["text"]
    assert apa.startswith("Chazan-Pantzalis, V., García Márquez, G., & World Health Organization")


def test_a_correction_in_prioris_is_exported_instead(library) -> None:  # type: ignore[no-untyped-def]
    library.import_reference_text(MADE_UP, "bibtex")
    library.edit_work("bibtex:chazan2021", {"title": "Tuberculosis in Latin America"})
    text = library.export(["bibtex:chazan2021"], "bibtex")
    assert "title = {Tuberculosis in {Latin} America}" in text or (
        "title = {Tuberculosis in Latin America}" in text
    )
    assert "BCG question" not in text
    assert "{Chazan-Pantzalis}, Victor" in text  # the fields not corrected stay the user's


def test_apa_of_a_work_without_authors_names_its_title_once(library) -> None:  # type: ignore[no-untyped-def]
    library.import_records(
        [
            {
                "id": "doi:10.5555/tb.2020",
                "title": "Global tuberculosis report 2020",
                "year": 2020,
                "venue": "Bulletin of Tests",
                "volume": "3",
                "pages": "1-5",
                "text": "x",
            }
        ]
    )
    for style in ("apa", "chicago-author-date"):
        [entry] = library.cite(["doi:10.5555/tb.2020"], style)["items"]
        folded = entry["citation"].casefold()
        assert folded.count("global tuberculosis report 2020") == 1, entry["citation"]


@pytest.mark.parametrize(
    ("printed", "cited"),
    [
        ("Deep learning of cormorant flocks✩", "Deep learning of cormorant flocks"),
        ("Heron colonies in winter*", "Heron colonies in winter"),
        ("Egrets†‡ and their roosts", "Egrets and their roosts"),
        ("Energy as mc²", "Energy as mc²"),
        ("A* search for nesting sites", "A* search for nesting sites"),
    ],
)
def test_a_printed_titles_footnote_markers_stay_out_of_citations(printed, cited) -> None:  # type: ignore[no-untyped-def]
    from prioris.export import render
    from prioris.models import Work

    work = Work(id="file:1", title=printed, authors=["Ann Lee"], year=2020)
    assert f"title = {{{cited}}}" in render([work], "bibtex")
    assert f"TI  - {cited}" in render([work], "ris")
    assert __import__("json").loads(render([work], "csl-json"))[0]["title"] == cited


def test_an_abstract_the_page_cut_mid_sentence_is_left_out() -> None:
    from prioris.export import render
    from prioris.models import Work

    cut = "Herons nest in colonies along the river and we counted"
    whole = "Herons nest in colonies along the river, as we counted."
    for origin, text, kept in [
        ("printed", cut, False),
        ("printed", whole, True),
        ("bibtex", cut, True),  # what the user wrote is theirs
    ]:
        work = Work(
            id="file:1", title="Herons", abstract=text, origins={"abstract": origin}, year=2020
        )
        assert ("abstract = {" in render([work], "bibtex")) is kept, (origin, text)
