"""Identifier parsing on arbitrary and near-miss input: an Identifier or one PriorisError."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fuzz.strategies import TEXT
from prioris.errors import PriorisError
from prioris.identifiers import parse_identifier

PREFIXES = st.sampled_from(
    [
        "",
        "arXiv:",
        "arxiv.org/abs/",
        "https://arxiv.org/pdf/",
        "10.",
        "doi:10.",
        "https://doi.org/10.",
        "PMC",
        "PMID:",
        "pmid:",
        "W",
        "https://openalex.org/W",
        "openalex:",
        "file:",
        "hep-th/",
        "http://",
        "ftp://",
    ]
)
BODIES = st.one_of(
    TEXT,
    st.from_regex(r"[0-9]{4}\.[0-9]{4,6}(v[0-9]{1,3})?", fullmatch=True),
    st.from_regex(r"[0-9]{1,12}", fullmatch=True),
    st.from_regex(r"[0-9]{4,5}/[^\s]{0,20}", fullmatch=True),
)


@given(text=st.one_of(TEXT, st.tuples(PREFIXES, BODIES, TEXT).map("".join)))
def test_parse_identifier_returns_an_identifier_or_one_prioris_error(text: str) -> None:
    try:
        ident = parse_identifier(text)
    except PriorisError as exc:
        assert exc.code in ("invalid_request", "unsupported_provider", "not_found"), exc
        return
    assert ident.canonical and ident.scheme


@given(text=st.one_of(TEXT, st.tuples(PREFIXES, BODIES).map("".join)))
def test_resolving_any_text_in_the_library_is_an_id_or_not_found(library, text: str) -> None:  # type: ignore[no-untyped-def]
    try:
        library.resolve_work_id(text)
    except PriorisError as exc:
        assert exc.code in ("invalid_request", "not_found"), exc
