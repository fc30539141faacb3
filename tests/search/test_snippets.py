"""Snippets mark only the words the query matched, by Snowball stem, not by prefix."""

from __future__ import annotations

from prioris.search.query import fts5_expression_terms, query_terms
from prioris.search.snippets import make_snippet, stems


def test_cpp_marks_c_and_not_words_starting_with_c() -> None:
    text = "We port the C++ code base: calls and context switches stay cheap in C."
    snippet = make_snippet(text, query_terms("C++"))
    assert snippet.count("**") == 4 and "**C**++" in snippet and "**C**." in snippet
    for word in ("code", "calls", "context", "cheap"):
        assert f"**{word}" not in snippet


def test_inflections_share_a_snowball_stem() -> None:
    assert stems(["retrieval", "retrieved", "Retrieving"]) == ["retriev"] * 3
    snippet = make_snippet("Dense retrieval: documents retrieved early.", ["retrieval"])
    assert "**retrieval**" in snippet and "**retrieved**" in snippet
    assert "documents" in snippet and "**documents**" not in snippet


def test_case_and_diacritics_fold_like_the_index() -> None:
    snippet = make_snippet("Le CAFÉ et les cafés du coin; a cafeteria.", ["cafe"])
    assert "**CAFÉ**" in snippet and "**cafés**" in snippet and "**cafeteria**" not in snippet


def test_prefix_queries_mark_the_words_they_matched() -> None:
    terms = fts5_expression_terms("embed* NOT amyloid")
    snippet = make_snippet("Embeddings, embedded vectors and an emblem.", terms)
    assert "**Embeddings**" in snippet and "**embedded**" in snippet
    assert "**emblem**" not in snippet


def test_window_centres_on_the_matches_and_marks_balance() -> None:
    text = "Intro words here. " * 40 + "Embeddings of proteins predict folding. " + "Outro. " * 50
    snippet = make_snippet(text, ["embeddings", "folding"])
    assert snippet.startswith("… ") and snippet.endswith(" …")
    assert "**Embeddings**" in snippet and "**folding**" in snippet
    assert snippet.count("**") % 2 == 0
    assert make_snippet("no match at all", ["zebra"]) == "no match at all"


def test_the_word_memo_gives_the_same_marks_when_full_and_across_queries(monkeypatch) -> None:
    """Folded forms and stems are memoised per word; a full memo is cleared, not trusted."""
    from prioris.search import snippets

    text = "Retrieval of CAFÉ data; retrieved cafés."
    first = make_snippet(text, ["retrieval"])
    monkeypatch.setattr(snippets, "_KNOWN", {})
    monkeypatch.setattr(snippets, "_KNOWN_MAX", 8)
    assert (
        make_snippet(text, ["retrieval"])
        == first
        == ("**Retrieval** of CAFÉ data; **retrieved** cafés.")
    )
    assert make_snippet(text, ["cafe"]) == "Retrieval of **CAFÉ** data; retrieved **cafés**."
    assert set(snippets._KNOWN) == {"Retrieval", "of", "CAFÉ", "data", "retrieved", "cafés"}
    assert make_snippet("Cafés were studied", ["study"]) == "Cafés were **studied**"
    assert set(snippets._KNOWN) == {"Cafés", "were", "studied"}  # over 8: cleared first
