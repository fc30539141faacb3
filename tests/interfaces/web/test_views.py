"""What the templates put on a page from stored text: escaped, with only our marks added."""

from __future__ import annotations

from prioris.interfaces.web.views import (
    alias_links,
    is_public_https,
    passage_html,
    query_string,
    snippet_html,
)


def test_snippets_are_escaped_and_their_matches_marked() -> None:
    html = str(snippet_html('<img src=x onerror="alert(1)"> **tau** and **"amyloid"**'))
    assert "<img" not in html and "&lt;img" in html
    assert "<mark>tau</mark>" in html and "<mark>&#34;amyloid&#34;</mark>" in html


def test_passages_are_marked_line_by_line() -> None:
    text = "# Title\n\nFirst <b>line</b>\nsecond line\n\nafter"
    start, end = text.index("First"), text.index("\n\nafter")
    html = str(passage_html(text, start, end))
    assert html.count("<mark") == 2 and html.count('id="passage"') == 1
    assert '<mark id="passage" tabindex="-1">First &lt;b&gt;line&lt;/b&gt;</mark>' in html
    assert html.endswith("\n\nafter") and html.startswith("# Title")
    assert str(passage_html(text, 5, 500)) == str(passage_html(text, None, None))  # out of range


def test_links_only_to_known_public_pages() -> None:
    links = {
        link["label"]: link["url"]
        for link in alias_links(
            ["arxiv:2401.01234v2", "doi:10.1000/a b", "europepmc:PMC42", "pmid:7", "file:abc"]
        )
    }
    assert links["arXiv"] == "https://arxiv.org/abs/2401.01234v2"
    assert links["DOI"] == "https://doi.org/10.1000/a%20b"
    assert links["PMCID"] == "https://europepmc.org/article/PMC/42"
    assert links["PMID"] == "https://pubmed.ncbi.nlm.nih.gov/7/" and links["file"] is None
    assert is_public_https("https://pdfs.example.org/x.pdf")
    assert not is_public_https("javascript:alert(1)") and not is_public_https("http://10.0.0.1/x")


def test_query_strings_drop_empty_values() -> None:
    assert query_string({"q": "a b", "mode": "fts", "source": "", "passages": False}) == (
        "?q=a+b&mode=fts"
    )
    assert query_string({"id": ["x", "y"]}, all=True) == "?id=x&id=y&all=1"
