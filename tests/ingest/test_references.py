"""Reference lists read from a work's Markdown: each printed style, broken entries, bad
input, and the real fixture papers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prioris.ingest.reference_entry import parse_entry, split_authors
from prioris.ingest.reference_text import MAX_RAW_CHARS
from prioris.ingest.references import parse_references

from conftest import shared_path

BRACKETED = """# A paper

Some body text that cites [1] and [2].

## References

[1] A. Vaswani, N. Shazeer, and N. Parmar, “Attention is all you need,” in Advances in
Neural Information Processing Systems, 2017, pp. 5998–6008. arXiv:1706.03762v5.

[2] J. Devlin, M. Chang, K. Lee, and K. Toutanova. BERT: Pre-training of deep bidirectional
transformers for language understanding. In NAACL, 2019. doi:10.18653/V1/N19-1423. [3] T. Mikolov,
K. Chen, G. Corrado, and J. Dean. Efficient estimation of word representations in vector
space. CoRR, abs/1301.3781, 2013.

## A Appendix

Proofs [4] here.
"""

NUMBERED = """## References

1. Büchler, A.O.: Software Engineering Repository, Master Thesis, HSR Rapperswil (2017) 2. Kopp, O.,
Armbruster, A., Zimmermann, O.: Markdown Architectural Decision Records: Format and Tool Support.
In: ZEUS. CEUR Workshop Proceedings, vol. 2072. CEUR-WS.org (2018)

Generalized Markdown Architectural Decision Records 57

3. Thurimella, A.K., Schubanz, M.: Guidelines for Managing Requirements Rationales. IEEE
Software 34(1), 82–90 (2017) https://doi.org/10.1109/MS.2015.157.
"""

AUTHOR_YEAR = """## References

Afgan E, Baker D, van den Beek M. 2016. The Galaxy platform for accessible, reproducible and
collaborative biomedical analyses. Nucleic Acids Research 44(W1):W3–W10 DOI
10.1093/nar/gkw343. Altschul SF, Madden TL, Lipman DJ. 1997.

Gapped BLAST and PSI-BLAST: a new generation of protein database search programs. Nucleic
Acids Research 25(17):3389–3402 DOI 10.1093/nar/25.17.3389.

Marwah Alaofi, Luke Gallagher, Mark Sanderson, Falk

Scholer, and Paul Thomas. 2023. Can generative llms create query variants for test collections?
In Proceedings of SIGIR, pages 1869– 1873.

Matos T., and Urena-Lopez L. A. 2001. Phys.Rev.D63:063506, [astro-ph/0006024v2].
"""


def test_bracketed_list_under_a_heading_with_entries_run_together() -> None:
    refs = parse_references(BRACKETED)
    assert [r.ordinal for r in refs] == [1, 2, 3]  # the appendix's [4] is not an entry
    first, second, third = refs
    assert first.title == "Attention is all you need"
    assert first.authors == ["A. Vaswani", "N. Shazeer", "N. Parmar"]
    assert first.year == 2017 and first.arxiv == "1706.03762v5"
    assert second.doi == "10.18653/v1/n19-1423"  # lower-cased, no trailing dot
    assert second.title.startswith("BERT: Pre-training of deep bidirectional")
    assert third.arxiv == "1301.3781" and third.year == 2013  # CoRR abs/ is arXiv
    assert third.authors[0] == "T. Mikolov"


def test_numbered_list_with_a_running_header_inside() -> None:
    refs = parse_references(NUMBERED)
    assert len(refs) == 3
    assert refs[0].authors == ["Büchler, A.O."] and refs[0].year == 2017
    assert refs[1].authors[:2] == ["Kopp, O.", "Armbruster, A."]
    assert refs[1].title == "Markdown Architectural Decision Records: Format and Tool Support"
    assert "Generalized Markdown" not in refs[1].raw  # the page's running header is gone
    assert refs[2].doi == "10.1109/ms.2015.157" and refs[2].year == 2017


def test_author_year_entries_broken_across_paragraphs() -> None:
    refs = parse_references(AUTHOR_YEAR)
    assert [r.authors[0] for r in refs] == ["Afgan E", "Altschul SF", "Marwah Alaofi", "Matos T."]
    galaxy, blast, alaofi, matos = refs
    assert galaxy.doi == "10.1093/nar/gkw343" and galaxy.year == 2016
    assert blast.title.startswith("Gapped BLAST and PSI-BLAST") and blast.year == 1997
    assert "Falk Scholer" in alaofi.authors and alaofi.year == 2023
    assert alaofi.title == "Can generative llms create query variants for test collections?"
    assert matos.arxiv == "astro-ph/0006024v2"  # old style


def test_a_list_without_a_heading_is_found() -> None:
    body = "Body text. " * 200
    markdown = (
        body + "[1] Matos T. Class.Quant.Grav.17:L9-L16, 2000. [2] Guzman F. Phys. Rev. D 73, "
        "021501 (2006). [3] Dodelson S. Modern Cosmology (Academic Press, 2003)."
    )
    refs = parse_references(markdown)
    assert [r.year for r in refs] == [2000, 2006, 2003]


def test_no_list_gives_nothing() -> None:
    assert parse_references("") == []
    assert parse_references("# Title\n\nA short note with no references at all.") == []
    # the JSTOR cover's "REFERENCES Linked references are available" is not a list
    assert parse_references("REFERENCES Linked references are available on JSTOR.\n") == []


def test_ocr_text_reads_the_same_way() -> None:
    ocr = (
        "some scanned body words\n\nREFERENCES\n\n1. Smith J, Jones K: A study of reef corals. "
        "Mar Biol 1999, 12:1-9.\n\n2. Lee M: Coral bleach-\n\ning in hot water. "
        "Reef Sci 2004, 3:4-5."
    )
    refs = parse_references(ocr)
    assert [r.authors[0] for r in refs] == ["Smith J", "Lee M"]
    assert refs[1].title == "Coral bleaching in hot water"  # hyphenation across lines joined


def test_a_10000_character_line_is_cut_not_fatal() -> None:
    line = "[1] " + "Smith J. " + "x" * 10_000 + " 2001. [2] Lee K. A title here. J 2002."
    refs = parse_references("## References\n\n" + line)
    assert len(refs) == 2
    assert all(len(r.raw) <= MAX_RAW_CHARS for r in refs)
    garbage = parse_references("## References\n\n" + "é" * 10_000)
    assert all(len(r.raw) <= MAX_RAW_CHARS for r in garbage)
    assert parse_entry("z" * 50_000, 1).raw == "z" * MAX_RAW_CHARS


def test_many_entries_are_bounded() -> None:
    from prioris.ingest.reference_text import MAX_ENTRIES

    text = " ".join(f"[{i}] Author A. Title number {i}. Venue, 2001." for i in range(1, 1500))
    assert len(parse_references("## References\n\n" + text)) == MAX_ENTRIES


def test_author_names_in_each_order() -> None:
    assert split_authors("Smith, J., Jones, B. and Lee, C.") == [
        "Smith, J.",
        "Jones, B.",
        "Lee, C.",
    ]
    assert split_authors("Afgan E, Baker D, et al.") == ["Afgan E", "Baker D"]
    assert split_authors("A. Gal, C. W. Probst, and M. Franz") == [
        "A. Gal",
        "C. W. Probst",
        "M. Franz",
    ]


# -- the real papers ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_library(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The fixture papers with a reference list, ingested once for the module."""
    folder = shared_path("fixtures", "pdfmeta", "pdfs")
    import os

    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    names = (
        "bluearxiv_csID-1706_03762.pdf",  # Attention is all you need
        "s2orc_2020_acl-main_207.pdf",  # SPECTER, which cites it (author-year)
        "cermine_test6.pdf",  # PeerJ: author-year run together, DOIs
        "grobid_1001__0908_0054.pdf",  # a bracketed list without a heading, old arXiv ids
        "zotero_duplicatesMerge_JSTOR_1.pdf",  # a JSTOR cover
    )
    settings = load_settings(
        {
            "PRIORIS_MCP_ENRICH": "off",
            "PRIORIS_MCP_DATA_DIR": os.fspath(tmp_path_factory.mktemp("r")),
        }
    )
    lib = Library.open(settings, embedder=FakeEmbedder())
    summary = lib.ingest_paths([str(Path(folder, n)) for n in names])
    lib.ids = {Path(r.path).name: r.id for r in summary.ingested}  # type: ignore[attr-defined]
    yield lib
    lib.close()


def test_real_papers_lists_are_read(real_library: Any) -> None:
    lib = real_library
    attention = lib.references("arxiv:1706.03762")
    assert len(attention) == 40  # printed [1]..[40]
    assert attention[0]["arxiv"] == "1607.06450" and attention[0]["year"] == 2016
    peerj = lib.references("doi:10.7717/peerj-cs.118")
    assert peerj[0]["doi"] == "10.1093/nar/gkw343"
    assert sum(1 for r in peerj if r["doi"]) >= 18
    cmb = lib.references("arxiv:0908.0054")
    assert len(cmb) == 19 and cmb[1]["arxiv"] == "gr-qc/9810028"
    # a JSTOR cover ("REFERENCES Linked references are available") is no list; the page
    # footer carrying the paper's own DOI is no entry; a DOI broken at a line end is joined
    jstor = lib.references(lib.ids["zotero_duplicatesMerge_JSTOR_1.pdf"])
    assert len(jstor) == 7  # as printed
    assert [r["doi"] for r in jstor if r["doi"]] == ["10.4060/cb2409en", "10.4060/cb5349en"]


def test_real_papers_are_linked_by_title(real_library: Any) -> None:
    lib = real_library
    specter = lib.ids["s2orc_2020_acl-main_207.pdf"]
    (cited,) = lib.cites(specter)
    assert cited["id"] == lib.resolve_work_id("arxiv:1706.03762")
    assert cited["references"][0]["link_method"] == "title"
    assert [w["id"] for w in lib.cited_by("arxiv:1706.03762")] == [specter]
