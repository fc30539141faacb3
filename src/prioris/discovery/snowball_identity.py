"""A snowball candidate's identity: its identifiers cleaned, its keys, its library aliases.

The same work is met under many spellings (``https://doi.org/10.1/X`` and ``10.1/x``,
``https://openalex.org/W1`` and ``W1``, a title with and without its colon), so every
sighting is first brought to one form (:func:`clean_ids`, :func:`normalise_title`) and
keyed by its strongest identifier: DOI > arXiv id > OpenAlex id > normalised title + year
(:func:`candidate_key`). Kept apart from the candidates, the merging and the score because
it is what all of them (and dismissing a candidate, :func:`is_candidate_key`) agree on;
pure functions over :mod:`prioris.identifiers`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from prioris.identifiers import normalise_arxiv, normalise_doi

ID_KINDS = ("doi", "arxiv", "openalex", "pmid", "pmcid")
KEY_PREFIXES = ("doi:", "arxiv:", "openalex:", "title:")
MAX_KEY_CHARS = 600

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
_OPENALEX_ID = re.compile(r"^W\d+$")


@functools.lru_cache(maxsize=100_000)
def normalise_title(title: str | None) -> str:
    """Lower case, ``&`` read as "and", accents and punctuation gone, spaces collapsed:
    the form titles are compared in (``"Deep Learning: A Review."`` ->
    ``"deep learning a review"``). Cached: a whole-library snowball meets the same
    reference title many times."""
    if not title:
        return ""
    plain = title.replace("&", " and ")
    if not plain.isascii():
        decomposed = unicodedata.normalize("NFKD", plain)
        plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NON_WORD.sub(" ", plain.casefold()).split())


def openalex_short(value: str | None) -> str | None:
    """``W123`` from ``https://openalex.org/W123``, ``openalex:W123`` or ``w123``."""
    if not value or not isinstance(value, str):
        return None
    tail = value.strip().rstrip("/").rsplit("/", 1)[-1]
    if tail.lower().startswith("openalex:"):
        tail = tail[len("openalex:") :]
    tail = tail.upper()
    return tail if _OPENALEX_ID.match(tail) else None


def clean_ids(raw: Mapping[str, Any]) -> dict[str, str]:
    """The identifiers of a record or reference in one spelling: ``doi`` lower-cased
    without its resolver, ``arxiv`` canonical, ``openalex`` as ``W123``, ``pmid`` digits,
    ``pmcid`` as ``PMC123``; anything malformed is dropped."""
    ids: dict[str, str] = {}
    doi = raw.get("doi")
    if isinstance(doi, str) and doi.strip():
        text = re.sub(r"^(https?://(dx\.)?doi\.org/|doi:)", "", doi.strip(), flags=re.I)
        if found := normalise_doi(text):
            ids["doi"] = found
    arxiv_doi = re.match(r"^10\.48550/arxiv\.(.+)$", ids.get("doi", ""))
    if arxiv_doi:  # arXiv's own DOI names the preprint: its arXiv id, not a journal DOI
        del ids["doi"]
        if found := normalise_arxiv(arxiv_doi.group(1)):
            ids["arxiv"] = found
    arxiv = raw.get("arxiv")
    if isinstance(arxiv, str) and arxiv.strip():
        text = re.sub(r"^(arxiv:)", "", arxiv.strip(), flags=re.I)
        if found := normalise_arxiv(text):
            ids["arxiv"] = found
    if found := openalex_short(raw.get("openalex") or raw.get("id")):
        ids["openalex"] = found
    pmid = raw.get("pmid")
    if pmid is not None:
        digits = str(pmid).strip().rsplit("/", 1)[-1]
        if digits.isdigit():
            ids["pmid"] = digits
    pmcid = raw.get("pmcid")
    if pmcid is not None:
        text = str(pmcid).strip().rsplit("/", 1)[-1].upper()
        if re.fullmatch(r"PMC\d+", text):
            ids["pmcid"] = text
        elif text.isdigit():
            ids["pmcid"] = f"PMC{text}"
    return ids


def title_key(title: str | None, year: int | None) -> str | None:
    """``title:<normalised title>|<year or ?>``, or None for a title too short to name a
    work by itself (fewer than three words and 20 characters)."""
    norm = normalise_title(title)
    if not norm or (len(norm.split()) < 3 and len(norm) < 20):
        return None
    return f"title:{norm[: MAX_KEY_CHARS - 20]}|{year if year else '?'}"


def identity_keys(ids: Mapping[str, str], title: str | None, year: int | None) -> list[str]:
    """Every key a candidate answers to, strongest first (its key is the first)."""
    keys = [
        f"{kind}:{same_id(kind, ids[kind])}"
        for kind in ("doi", "arxiv", "openalex")
        if ids.get(kind)
    ]
    if by_title := title_key(title, year):
        keys.append(by_title)
    return keys


def same_id(kind: str, value: str) -> str:
    """An identifier as identity compares it: an arXiv id without its version (``v2``
    and ``v5`` of one preprint are one work)."""
    return re.sub(r"v\d+$", "", value) if kind == "arxiv" else value


def candidate_key(ids: Mapping[str, str], title: str | None, year: int | None) -> str | None:
    """The candidate's identity: DOI > arXiv > OpenAlex id > normalised title + year."""
    keys = identity_keys(ids, title, year)
    return keys[0] if keys else None


def is_candidate_key(key: Any) -> bool:
    """Whether ``key`` has the shape of a candidate key (what dismissing accepts)."""
    return (
        isinstance(key, str)
        and 0 < len(key) <= MAX_KEY_CHARS
        and key.startswith(KEY_PREFIXES)
        and len(key.split(":", 1)[1].strip()) > 0
        and not any(ord(ch) < 32 for ch in key)
    )


def library_aliases(ids: Mapping[str, str]) -> list[str]:
    """The alias strings a library work with these identifiers would have."""
    aliases = []
    for kind, prefix in (
        ("doi", "doi:"),
        ("arxiv", "arxiv:"),
        ("openalex", "openalex:"),
        ("pmid", "pmid:"),
        ("pmcid", "europepmc:"),
    ):
        if ids.get(kind):
            aliases.append(prefix + ids[kind])
    if ids.get("arxiv") and re.search(r"v\d+$", ids["arxiv"]):  # the versionless one too
        aliases.append("arxiv:" + re.sub(r"v\d+$", "", ids["arxiv"]))
    return aliases
