"""Section labels: from heading paths, run-in labels and reference-list text, per chunk."""

from __future__ import annotations

import pytest

from prioris.ingest.chunking import PageSpan, chunk_markdown
from prioris.ingest.sections import (
    heading_label,
    label_for_path,
    looks_like_reference_list,
    run_in_label,
    statement_label,
)
from prioris.models import SECTIONS


def words(texts):  # type: ignore[no-untyped-def]
    return [len(t.split()) for t in texts]


@pytest.mark.parametrize(
    ("heading", "label"),
    [
        ("Abstract", "abstract"),
        ("ABSTRACT", "abstract"),
        ("1 Introduction", "body"),
        ("3.2 Attention", "body"),
        ("References", "references"),
        ("REFERENCES", "references"),
        ("7. References and Notes", "references"),
        ("Bibliography", "references"),
        ("Acknowledgments", "acknowledgements"),
        ("**Acknowledgements**", "acknowledgements"),
        ("Acknowledgement", "acknowledgements"),
        ("Funding", "funding"),
        ("Funding information", "funding"),
        ("Financial support", "funding"),
        ("Author contributions", "author_info"),
        ("Authors\u2019 contributions", "author_info"),
        ("Competing interests", "author_info"),
        ("Conflict of Interest", "author_info"),
        ("Declaration of competing interest", "author_info"),
        ("Data availability statement", "author_info"),
        ("Code availability", "author_info"),
        ("Ethics statement", "author_info"),
        ("ADDITIONAL INFORMATION AND DECLARATIONS", "author_info"),
        ("Appendix", "appendix"),
        ("Appendix B: Proofs of the main theorem", "appendix"),
        ("Supplementary material", "appendix"),
        # words that only begin a body heading do not make it back matter
        ("Funding models for open science", "body"),
        ("References to prior work in the literature review", "body"),
        ("Attention Is All You Need", "body"),
    ],
)
def test_heading_labels(heading: str, label: str) -> None:
    assert label_for_path(heading) == label
    assert label in SECTIONS


def test_the_deepest_named_heading_wins() -> None:
    assert label_for_path("Declarations > Funding") == "funding"
    assert label_for_path("Appendix > A.1 Proofs") == "appendix"
    assert label_for_path("Paper title > Abstract") == "abstract"
    assert label_for_path("Paper title > 2 Methods > 2.1 Data") == "body"
    assert label_for_path("") == "body"
    assert heading_label("2.1 Data") is None


@pytest.mark.parametrize(
    ("block", "label"),
    [
        ("Acknowledgements We are grateful to N. K. for comments.", "acknowledgements"),
        ("**Acknowledgments.** We thank the reviewers.", "acknowledgements"),
        ("Acknowledgements\nWe would like to thank L. U.", "acknowledgements"),
        ("Funding This work was undertaken on MARC1.", "funding"),
        ("Funding: The study was supported by grant 123.", "funding"),
        ("Competing Interests The authors have no competing interests.", "author_info"),
        ("Author Contributions \u2022 A. W. performed the experiments.", "author_info"),
        ("Data Availability The following information was supplied.", "author_info"),
        ("References 1. Ovretveit J, Serouri A: Hospital quality.", "references"),
        ("REFERENCES", "references"),
        ("REFERENCES\n\n[Cop87] D. Cope, Experiments in music intelligence.", "references"),
        ("R E F E R E N C E S", "references"),  # letter-spaced, as some journals set it
        ("A C K N O W L E D G E M E N T S We thank R. R.", "acknowledgements"),
        # a cover sheet's sentence is no reference list (JSTOR)
        ("REFERENCES Linked references are available on JSTOR for this article.", None),
        # prose that merely starts with such a word
        ("Funding was scarce in the first year of the programme.", None),
        ("References to earlier designs are given in Section 2.", None),
        ("funding This is lower case prose.", None),
        ("We thank the reviewers.", None),
    ],
)
def test_run_in_labels(block: str, label: str | None) -> None:
    assert run_in_label(block) == label


@pytest.mark.parametrize(
    ("block", "label"),
    [
        ("We thank Kevin Knight and Andrew Anderson for comments.", "acknowledgements"),
        ("The authors would like to thank D. Cossock for discussions.", "acknowledgements"),
        ("We are grateful to the reviewers.", "acknowledgements"),
        ("This work was partially supported by NSF grant 123.", "funding"),
        ("Funding for this cooperative agreement is also provided by DARPA.", "funding"),
        ("We acknowledge that the window bound is loose.", None),
        ("This work was motivated by long documents.", None),
    ],
)
def test_unlabelled_thanks_and_funding_paragraphs(block: str, label: str | None) -> None:
    assert statement_label(block) == label


def test_a_thanks_paragraph_in_the_body_is_a_chunk_of_its_own() -> None:
    body = "Windows over long inputs keep attention linear in the length of the input. " * 6
    markdown = (
        f"# Paper\n\n## 5 Conclusion\n\n{body}\n\nWe thank the reading group for comments."
        f"\n\n## 6 Outlook\n\n{body}"
    )
    chunks = chunk_markdown(markdown, [PageSpan(1, 0, len(markdown))], words)
    assert [c.section for c in chunks] == ["body", "acknowledgements", "body"]


def test_a_cover_sheet_does_not_make_the_paper_an_appendix() -> None:
    body = "Mountain peoples face food insecurity and climate change in many regions. " * 6
    markdown = (
        "# Cover\n\nREFERENCES Linked references are available on JSTOR for this article.\n\n"
        f"## Outlook\n\n{body}\n\n## References\n\n"
        "1. Russo L, Smith J. Vulnerability of mountain peoples. Rome: FAO; 2020.\n"
        "2. Romeo R, Abear S. Mountain livelihoods. Rome: FAO; 2015.\n"
        "3. Manuelli S, Romeo R. Mountain farming. Rome: FAO; 2017.\n\n"
        f"## A Tables\n\n{body}"
    )
    chunks = chunk_markdown(markdown, [PageSpan(1, 0, len(markdown))], words)
    assert [c.section for c in chunks] == ["body", "references", "appendix"]


def test_reference_lists_are_recognised_from_their_lines() -> None:
    entries = "\n".join(
        [
            "[1] J. L. Ba, J. R. Kiros, and G. E. Hinton. Layer normalization. 2016.",
            "[2] D. Bahdanau, K. Cho, and Y. Bengio. Neural machine translation. 2014.",
            "[3] D. Britz, A. Goldie, M. Luong, and Q. Le. Massive exploration. 2017.",
            "[4] J. Cheng, L. Dong, and M. Lapata. Long short-term memory-networks. 2016.",
        ]
    )
    assert looks_like_reference_list(entries)
    run_together = (
        "Afgan E, Baker D, van den Beek M. 2016. The Galaxy platform. Nucleic Acids Research "
        "44:W3-W10. Alvarez-Ponce D, Aguade M, Rozas J. 2009. Network-level molecular "
        "evolutionary analysis. Genome Research 19:234-242. Kim PM, Korbel JO, Gerstein MB. "
        "2007. Positive selection at the protein network periphery. PNAS 104:20274-20279."
    )
    assert looks_like_reference_list(run_together)
    prose = (
        "We train on the WMT 2014 English-German dataset of 4.5 million sentence pairs.\n"
        "Sentences were encoded using byte-pair encoding.\n"
        "Each training batch contained about 25000 source tokens."
    )
    assert not looks_like_reference_list(prose)


PAPER = """# Sparse attention for long inputs

## Abstract

We study sparse attention over long inputs and report its cost.

## 1 Introduction

Sliding windows keep the cost of attention linear in the input length. We measure
how far the window must reach for question answering over whole books.

Acknowledgements We thank the sparse attention reading group for their comments.

## References

[1] A. Author. Dense attention for everything. 2017.

[2] B. Author and C. Author. Windows over books. 2019.

[3] D. Author. Attention in context. 2020.

## A Proofs

The window bound follows from the triangle inequality."""


def test_chunks_carry_their_labels_and_never_mix_two() -> None:
    spans = [PageSpan(1, 0, len(PAPER))]
    chunks = chunk_markdown(PAPER, spans, words)
    labels = [c.section for c in chunks]
    assert labels == ["abstract", "body", "acknowledgements", "references", "appendix"]
    texts = [PAPER[c.char_start : c.char_end] for c in chunks]
    assert texts[2].startswith("Acknowledgements We thank")
    assert "Dense attention for everything" in texts[3]
    # the heading-less title page joins the abstract chunk, which keeps its text
    assert texts[0].startswith("# Sparse attention")


def test_a_reference_list_without_a_heading_is_labelled_by_its_text() -> None:
    markdown = (
        "# A paper\n\n## Results\n\n"
        + "The method works on every dataset we tried, by a wide margin over the baselines. " * 5
        + "\n\n## 6 Conclusion\n\nIt works.\n\n"
        + "\n".join(
            f"[{i}] A. Writer and B. Writer. A cited study number {i}. Journal {i}, 20{i:02d}."
            for i in range(1, 9)
        )
    )
    chunks = chunk_markdown(markdown, [PageSpan(1, 0, len(markdown))], words)
    assert chunks[-1].section == "references"
    assert chunks[0].section == "body"


def test_jats_back_matter_keeps_headings_that_label_it() -> None:
    from prioris.sources.jats import jats_to_markdown

    xml = (
        "<article><front><article-meta><title-group><article-title>Reefs</article-title>"
        "</title-group></article-meta></front><body><sec><title>Results</title>"
        "<p>Corals bleach in hot water.</p></sec></body><back>"
        "<ack><p>We thank the divers.</p></ack>"
        '<sec sec-type="COI-statement"><p>The authors declare no competing interests.</p></sec>'
        '<sec sec-type="funding"><p>Supported by grant 7.</p></sec>'
        "<ref-list><ref><mixed-citation>A. Author. Heat. 2001.</mixed-citation></ref></ref-list>"
        "</back></article>"
    )
    markdown = jats_to_markdown(xml).markdown
    chunks = chunk_markdown(markdown, [PageSpan(1, 0, len(markdown))], words)
    labels = {c.section for c in chunks}
    assert {"body", "acknowledgements", "author_info", "funding", "references"} <= labels
