"""What the templates put on a page from stored text: escaped, with only our marks added."""

from __future__ import annotations

from prioris.interfaces.web.markdown_view import markdown_html
from prioris.interfaces.web.views import (
    alias_links,
    is_public_https,
    query_string,
    snippet_html,
)


def test_snippets_are_escaped_and_their_matches_marked() -> None:
    html = str(snippet_html('<img src=x onerror="alert(1)"> **tau** and **"amyloid"**'))
    assert "<img" not in html and "&lt;img" in html
    assert "<mark>tau</mark>" in html and "<mark>&#34;amyloid&#34;</mark>" in html


def test_markdown_is_rendered_not_shown_as_markers() -> None:
    text = (
        "# Bigtable\n\n## 2. Data Model\n\nA *sparse*, **distributed** map.\n\n"
        "- rows\n- columns\n\n1. first\n2. second\n\n"
        "| key | value |\n|---|---|\n| a | 1 |\n"
    )
    html = str(markdown_html(text))
    assert "##" not in html and "**" not in html and "| key" not in html
    assert "<h3>Bigtable</h3>" in html and "<h4>2. Data Model</h4>" in html  # below the page's
    assert "<em>sparse</em>" in html and "<strong>distributed</strong>" in html
    assert "<ul>\n<li>rows</li>" in html and "<ol>\n<li>first</li>" in html
    assert '<div class="table-wrap"><table>' in html and "<td>a</td>" in html


def test_paper_text_never_becomes_markup() -> None:
    text = 'Title <script>alert(1)</script>\n\n<img src=x onerror="alert(1)">\n\n![x](https://e.x/i.png)'
    html = str(markdown_html(text + "\n\n[site](javascript:alert(1)) [ok](https://example.org)"))
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    assert (
        '<a rel="noopener noreferrer nofollow" target="_blank" href="https://example.org">' in html
    )


def test_a_passage_is_marked_in_each_piece_of_text_it_covers() -> None:
    text = "# Title\n\n## Results\n\nFirst <b>line</b> with *emphasis* here\n\nafter"
    start, end = text.index("## Results"), text.index("\n\nafter")
    html = str(markdown_html(text, start, end))
    assert html.count('id="passage"') == 1
    assert '<h4><mark id="passage" tabindex="-1">Results</mark></h4>' in html  # still a heading
    assert "<em><mark>emphasis</mark></em>" in html
    assert "<mark>First &lt;b&gt;line&lt;/b&gt; with </mark>" in html
    assert "<p>after</p>" in html and "<h3>Title</h3>" in html
    assert str(markdown_html(text, 5, 500)) == str(markdown_html(text))  # out of range: none
    assert "\ue000" not in str(markdown_html("a\ue000b\ue001c"))  # our sentinels are ours


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
