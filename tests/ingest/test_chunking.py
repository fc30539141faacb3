"""Chunking: size bounds, exact offsets, headings, pages and overlap."""

from __future__ import annotations

from prioris.embedding.fake import FakeEmbedder
from prioris.ingest.chunking import MAX_TOKENS, PageSpan, chunk_markdown

COUNT = FakeEmbedder().count_tokens


def _doc() -> tuple[str, list[PageSpan]]:
    page1 = (
        "# A study of things\n\nIntro paragraph about things. "
        + "filler words " * 40
        + "\n\n## Methods\n\n"
        + "We measured carefully. " * 120
    )
    page2 = "## Results\n\n" + "The effect was large. " * 30
    text = page1 + "\n\n" + page2
    return text, [PageSpan(1, 0, len(page1)), PageSpan(2, len(page1) + 2, len(text))]


def test_chunks_are_exact_slices_within_the_token_bound() -> None:
    text, spans = _doc()
    chunks = chunk_markdown(text, spans, COUNT)
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk.token_count <= MAX_TOKENS
        assert text[chunk.char_start : chunk.char_end].strip()
        assert 0 <= chunk.char_start < chunk.char_end <= len(text)


def test_headings_start_new_chunks_and_are_recorded() -> None:
    text, spans = _doc()
    chunks = chunk_markdown(text, spans, COUNT)
    headings = [c.heading for c in chunks]
    assert headings[0] == "A study of things"
    assert any(h == "A study of things > Methods" for h in headings)
    results = [c for c in chunks if c.heading.endswith("Results")]
    assert results and all(c.page_start == 2 for c in results)
    assert text[results[0].char_start :].startswith("## Results")


def test_long_sections_overlap_and_cover_all_text() -> None:
    text, spans = _doc()
    chunks = chunk_markdown(text, spans, COUNT)
    methods = [c for c in chunks if c.heading.endswith("Methods")]
    assert len(methods) >= 2
    assert methods[1].char_start < methods[0].char_end  # overlap
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.char_start, chunk.char_end))
    words = [i for i, ch in enumerate(text) if not ch.isspace()]
    assert all(i in covered for i in words)


def test_page_numbers_follow_the_spans() -> None:
    text, spans = _doc()
    for chunk in chunk_markdown(text, spans, COUNT):
        assert 1 <= chunk.page_start <= chunk.page_end <= 2


def test_a_single_huge_sentence_is_split_by_words() -> None:
    text = "word " * 2000
    chunks = chunk_markdown(text, [PageSpan(1, 0, len(text))], COUNT)
    assert len(chunks) > 5
    assert all(c.token_count <= MAX_TOKENS for c in chunks)


def test_empty_text_gives_no_chunks_and_a_bare_title_one() -> None:
    assert chunk_markdown("", [PageSpan(1, 0, 0)], COUNT) == []
    only_title = chunk_markdown("# Only a heading", [PageSpan(1, 0, 16)], COUNT)
    assert [(c.char_start, c.char_end, c.heading) for c in only_title] == [
        (0, 16, "Only a heading")
    ]
