"""How results read in a terminal: one renderer for ``prioris search`` and ``prioris demo``.

Kept in one place so the demo shows exactly what the real command prints (whole snippets,
ids, pages where a document has pages) and counts read as English ("1 hit", "2 hits").
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from prioris.models import Hit, display_title


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 hit``, ``2 hits``, ``0 hits``; ``plural_form`` for irregular words."""
    word = singular if count == 1 else plural_form or f"{singular}s"
    return f"{count} {word}"


def authors_short(authors: Sequence[str], shown: int = 3) -> str:
    """The first ``shown`` authors, then "et al."."""
    return ", ".join(authors[:shown]) + (" et al." if len(authors) > shown else "")


def page_label(hit: Hit) -> str:
    """``p. 3`` or ``pp. 3-4``; empty when the pages are not real."""
    if hit.page_start is None:
        return ""
    if hit.page_end and hit.page_end != hit.page_start:
        return f"pp. {hit.page_start}-{hit.page_end}"
    return f"p. {hit.page_start}"


def render_hits(hits: Sequence[Hit], paginated: Collection[str]) -> list[str]:
    """Three lines per hit: number, title and id; authors, year, pages, score and offset;
    the snippet whole, matched words in ``**bold**``. ``paginated`` names the works whose
    pages are real (PDFs): an imported record or an HTML full text has no "p. 1". A
    passage from outside the body says which part of the paper it is (``abstract``,
    ``references``, ``acknowledgements``, ...); body text, most of what is shown, does not."""
    lines = []
    for number, hit in enumerate(hits, start=1):
        pages = page_label(hit) if hit.id in paginated else ""
        meta = [authors_short(hit.authors), str(hit.year or ""), pages]
        lines.append(f"{number:>2}. {display_title(hit.title)}  [{hit.id}]")
        if hit.section and hit.section != "body":
            meta.append(hit.section.replace("_", " "))
        details = " · ".join([*(m for m in meta if m), f"score {hit.score:.4g}"])
        lines.append(f"    {details} · offset {hit.offset}")
        lines.append(f"    {hit.snippet}")
    return lines


def search_summary(count: int, took_ms: float, mode: str) -> str:
    """The line after the hits: ``2 hits in 3.1 ms (hybrid)``."""
    return f"{plural(count, 'hit')} in {took_ms:.1f} ms ({mode})"
