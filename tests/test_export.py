"""Exports: BibTeX escaping and unique keys, CSL-JSON fields, JSON lines round trip."""

from __future__ import annotations

import json
import re

import pytest

from prioris.errors import InvalidRequestError
from prioris.export import (
    citation_key,
    escape_latex,
    render,
    split_name,
    to_bibtex,
    to_csl_json,
    to_jsonl,
)
from prioris.models import Work

ARXIV = Work(
    id="arxiv:2401.01234v2",
    title="Attention Is All You Need",
    authors=["Ashish Vaswani", "Noam Shazeer"],
    year=2024,
    aliases=["arxiv:2401.01234v2", "doi:10.48550/arxiv.2401.01234"],
    source="arxiv",
    is_preprint=True,
    abstract="We propose the Transformer.",
    extra={"primary_category": "cs.CL"},
)
JOURNAL = Work(
    id="openalex:W42",
    title="Cost & benefit of 100% coverage: $5 per #1 hit_rate {revisited}",
    authors=["José Müller", "Ludwig van Beethoven"],
    year=2021,
    venue="Journal of Ümlauts & Things",
    type="article",
    published="2021-03-15",
    aliases=["openalex:W42", "doi:10.1000/x_y", "europepmc:PMC123", "pmid:999"],
    source="openalex",
)


def entries(bib: str) -> list[str]:
    return [e for e in re.split(r"\n(?=@)", bib.strip()) if e]


def braces_balanced(text: str) -> bool:
    depth = 0
    for ch in text:  # BibTeX counts every brace, escaped or not
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def field(entry: str, name: str) -> str | None:
    match = re.search(rf"^  {name} = \{{(.*)\}},$", entry, re.M)
    return match.group(1) if match else None


def test_escape_latex_specials() -> None:
    assert escape_latex("a & b % c $ d # e _ f") == r"a \& b \% c \$ d \# e \_ f"
    assert escape_latex("{x}") == r"\{x\}"
    assert escape_latex("only { open") == r"only \textbraceleft{} open"
    assert escape_latex("Müller – naïve") == "Müller – naïve"


def test_arxiv_work_is_misc_with_eprint() -> None:
    (entry,) = entries(to_bibtex([ARXIV]))
    assert entry.startswith("@misc{vaswani2024attention,")
    assert field(entry, "eprint") == "2401.01234v2"
    assert field(entry, "archiveprefix") == "arXiv"
    assert field(entry, "primaryclass") == "cs.CL"
    assert field(entry, "author") == "Vaswani, Ashish and Shazeer, Noam"
    assert field(entry, "url") == "https://arxiv.org/abs/2401.01234v2"
    assert field(entry, "journal") is None


def test_journal_work_is_article_with_escaping_and_utf8() -> None:
    (entry,) = entries(to_bibtex([JOURNAL]))
    assert entry.startswith("@article{muller2021cost,")
    assert field(entry, "title") == (
        r"Cost \& benefit of 100\% coverage: \$5 per \#1 hit\_rate \{revisited\}"
    )
    assert field(entry, "journal") == r"Journal of Ümlauts \& Things"
    assert field(entry, "author") == "Müller, José and van Beethoven, Ludwig"
    assert field(entry, "doi") == "10.1000/x_y"  # verbatim field: not escaped
    assert braces_balanced(entry)


def test_keys_are_unique_ascii_and_stable() -> None:
    works = [JOURNAL] * 30 + [ARXIV]
    keys = [re.match(r"@\w+\{([^,]+),", e).group(1) for e in entries(to_bibtex(works))]
    assert len(keys) == len(set(keys)) == 31
    assert keys[:3] == ["muller2021cost", "muller2021costa", "muller2021costb"]
    assert keys[27] == "muller2021costaa"
    assert all(re.fullmatch(r"[a-z0-9]+", k) for k in keys)
    assert to_bibtex(works) == to_bibtex(works)


def test_key_and_entry_without_metadata() -> None:
    bare = Work(id="doc-1", title="")
    assert citation_key(bare) == "anonnd"
    (entry,) = entries(to_bibtex([bare]))
    assert entry.startswith("@misc{anonnd,") and braces_balanced(entry)


def test_unbalanced_braces_and_literal_and_stay_parseable() -> None:
    odd = Work(id="x", title="A } odd { title }", authors=["Tom and Jerry Ltd"], year=2000)
    (entry,) = entries(to_bibtex([odd]))
    assert braces_balanced(entry)
    assert "{and}" in field(entry, "author")


def test_split_name() -> None:
    assert split_name("Ludwig van Beethoven") == ("van Beethoven", "Ludwig")
    assert split_name("Smith, John") == ("Smith", "John")
    assert split_name("Plato") == ("Plato", "")
    assert split_name("Schoenfeld JD") == ("Schoenfeld", "J. D.")  # Europe PMC index form
    assert split_name("Weinan E") == ("E", "Weinan")
    assert split_name("Zoë van der Berg") == ("van der Berg", "Zoë")


def test_printed_authors_reach_keys_and_csl_names() -> None:
    work = Work(
        id="file:0123456789abcdef",
        title="Coral Reef Recovery after Repeated Marine Heatwaves",
        authors=["Ngozi Okafor", "José Álvarez-Núñez", "The ATLAS Collaboration"],
        year=2021,
        source="file",
    )
    assert citation_key(work) == "okafor2021coral"
    bib = to_bibtex([work])
    assert bib.startswith("@misc{okafor2021coral,")
    assert "author = {Okafor, Ngozi and Álvarez-Núñez, José and {The ATLAS Collaboration}}" in bib
    (item,) = to_csl_json([work])
    assert item["author"] == [
        {"family": "Okafor", "given": "Ngozi"},
        {"family": "Álvarez-Núñez", "given": "José"},
        {"literal": "The ATLAS Collaboration"},
    ]
    group = Work(id="x", title="Observation of a new particle", authors=["The CMS Collaboration"])
    assert citation_key(group) == "cmsndobservation"  # the group's name, not "collaboration"


def test_csl_json_items() -> None:
    preprint, article = to_csl_json([ARXIV, JOURNAL])
    assert preprint["id"] == "arxiv:2401.01234v2"
    assert preprint["type"] == "article"
    assert preprint["author"][0] == {"family": "Vaswani", "given": "Ashish"}
    assert preprint["issued"] == {"date-parts": [[2024]]}
    assert preprint["DOI"] == "10.48550/arxiv.2401.01234"
    assert preprint["URL"] == "https://arxiv.org/abs/2401.01234v2"
    assert preprint["abstract"] == "We propose the Transformer."
    assert article["type"] == "article-journal"
    assert article["issued"] == {"date-parts": [[2021, 3, 15]]}
    assert article["container-title"] == "Journal of Ümlauts & Things"
    assert article["title"] == JOURNAL.title  # no LaTeX escaping in JSON
    assert (article["DOI"], article["PMCID"], article["PMID"]) == ("10.1000/x_y", "PMC123", "999")
    json.dumps([preprint, article])


def test_jsonl_round_trip() -> None:
    text = to_jsonl([ARXIV, JOURNAL])
    lines = text.splitlines()
    assert len(lines) == 2 and text.endswith("\n")
    records = [json.loads(line) for line in lines]
    # every record carries its collections, tags and notes, [] without the library's
    assert [(r.pop("collections"), r.pop("tags"), r.pop("notes")) for r in records] == [
        ([], [], [])
    ] * 2
    assert [Work(**record) for record in records] == [ARXIV, JOURNAL]
    labelled = to_jsonl([ARXIV], {ARXIV.id: {"collections": ["A / B"], "tags": ["t"]}})
    assert json.loads(labelled)["collections"] == ["A / B"] and json.loads(labelled)["tags"] == [
        "t"
    ]
    assert "Müller" in text  # UTF-8, not \\u escapes
    assert to_jsonl([]) == ""


def test_render_formats() -> None:
    assert render([JOURNAL], "bibtex").startswith("@article{")
    assert json.loads(render([JOURNAL], "csl-json"))[0]["id"] == "openalex:W42"
    assert json.loads(render([JOURNAL], "jsonl"))["id"] == "openalex:W42"
    with pytest.raises(InvalidRequestError):
        render([JOURNAL], "endnote")


def test_an_ingested_pdf_exports_its_printed_authors(library, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import paper_factory

    path = tmp_path / "reef.pdf"
    path.write_bytes(
        paper_factory.single_column_lncs(footer="Proceedings of the Reef Workshop 2019")
    )
    work_id = library.ingest_file(path).id
    bib = library.export([work_id], "bibtex")
    # the printed venue line makes it a conference paper in those proceedings
    assert bib.startswith("@inproceedings{okafor2019coral,")
    assert "booktitle = {Proceedings of the Reef Workshop" in bib
    assert "author = {Okafor, Ngozi and Álvarez-Núñez, José and van der Berg, Zoë}" in bib
    (item,) = json.loads(library.export([work_id], "csl-json"))
    assert item["author"][2] == {"family": "van der Berg", "given": "Zoë"}
    assert item["issued"] == {"date-parts": [[2019]]}
