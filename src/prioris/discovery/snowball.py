"""Snowballing, decided purely: candidate identity, merging, dedupe and the explained score.

A snowball starts from *seeds* (library works) and follows citations both ways: the works
the seeds cite (**backward**) and the works that cite the seeds (**forward**). The same
candidate is often met several times (cited by three seeds; read from a PDF's reference
list and met again through OpenAlex), so each is keyed by its strongest identifier, in
this order: DOI > arXiv id > OpenAlex id > normalised title + year
(:func:`candidate_key`), and two sightings that share any of these are one candidate
(:class:`CandidatePool`). A candidate that is already a library work (by alias, or by a
fuzzy title + year match: :class:`LibraryIndex`) or that the user dismissed is left out.

The score (:func:`score_candidates`) is a weighted sum of four parts in [0, 1]::

    score = 0.40 * links + 0.35 * similarity + 0.10 * recency + 0.15 * citations

    links      = min(1, ln(1 + backward + forward) / ln(1 + min(seeds, 10)))
    similarity = max(0, cosine(candidate vector, mean of the seeds' vectors))
    recency    = 0.5 ** ((this year - year) / 10)     (0 when the year is unknown)
    citations  = min(1, ln(1 + cited_by_count) / ln(1 + 10000))   (0 when unknown)

``backward`` is how many seeds cite the candidate (co-citation over the seeds) and
``forward`` how many seeds it cites (bibliographic coupling). Links weigh most because
being tied to several seeds is the evidence a snowball is for; the log and the cap at ten
seeds keep a large seed set from making every single link look weak. Similarity reads the
candidate's title + abstract embedded the way a work's own vector is, so a candidate
about the seeds' topic rises above one cited in passing. Recency (half-life ten years)
and citations (log-scaled, saturating at 10,000) break ties between otherwise equal
candidates. Every part, its weighted contribution and a sentence saying it in words are
in the candidate's ``why``.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from prioris.discovery.routes import fetch_route
from prioris.identifiers import normalise_arxiv, normalise_doi
from prioris.models import Work

WEIGHTS = {"links": 0.40, "similarity": 0.35, "recency": 0.10, "citations": 0.15}
"""The parts of the score and their weights (they add up to 1)."""
LINK_SEEDS_CAP = 10
RECENCY_HALF_LIFE_YEARS = 10.0
CITATIONS_SATURATE = 10_000
TITLE_MATCH_THRESHOLD = 92.0
"""rapidfuzz ``ratio`` (0-100) of two normalised titles from which, with years within
:data:`YEAR_SLACK`, a candidate is taken for a library work. Measured on the 167 distinct
real titles of the shared fixtures (OpenAlex records, BibTeX and Zotero libraries;
docs/usage.md, "Snowballing"; ``bench/bench_snowball_titles.py``): the closest two
distinct works scored 89.5, while every title with one typo scored 94.1 or more and with
two words run together 97.0 or more."""
YEAR_SLACK = 1
"""A preprint and its published version are often a year apart."""
ID_KINDS = ("doi", "arxiv", "openalex", "pmid", "pmcid")
KEY_PREFIXES = ("doi:", "arxiv:", "openalex:", "title:")
MAX_KEY_CHARS = 600

_LEADING = frozenset({"a", "an", "the", "on", "of", "in", "for", "to", "towards", "toward"})
"""Words skipped when a title's first word picks the block it is compared within."""
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
    keys = [f"{kind}:{ids[kind]}" for kind in ("doi", "arxiv", "openalex") if ids.get(kind)]
    if by_title := title_key(title, year):
        keys.append(by_title)
    return keys


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


@dataclass
class Candidate:
    """One work met by the snowball, merged over every sighting."""

    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    abstract: str | None = None
    ids: dict[str, str] = field(default_factory=dict)
    cited_by_count: int | None = None
    is_oa: bool | None = None
    pdf_url: str | None = None
    cited_by_seeds: set[str] = field(default_factory=set)
    """Seeds whose reference lists hold it (backward)."""
    cites_seeds: set[str] = field(default_factory=set)
    """Seeds it cites (forward)."""
    found_by: set[str] = field(default_factory=set)
    """``local`` (a PDF's reference list) and/or ``openalex``."""
    score: float = 0.0
    why: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return candidate_key(self.ids, self.title, self.year) or ""

    def identities(self) -> list[str]:
        return identity_keys(self.ids, self.title, self.year)

    def merge(self, other: Candidate) -> None:
        """Take what this sighting lacks from ``other``; seed links are united. OpenAlex's
        metadata wins over a parsed reference's (it is a whole record, not a line)."""
        prefer_other = "openalex" in other.found_by and "openalex" not in self.found_by
        for name in ("title", "year", "venue", "abstract", "cited_by_count", "is_oa", "pdf_url"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if theirs not in (None, "") and (mine in (None, "") or prefer_other):
                setattr(self, name, theirs)
        if other.authors and (not self.authors or prefer_other):
            self.authors = list(other.authors)
        for kind, value in other.ids.items():
            self.ids.setdefault(kind, value)
        self.cited_by_seeds |= other.cited_by_seeds
        self.cites_seeds |= other.cites_seeds
        self.found_by |= other.found_by

    def fetch_route(self) -> dict[str, Any]:
        """Discovery's fetch ladder for this candidate (:func:`routes.fetch_route`)."""
        aliases = [
            f"{prefix}{self.ids[kind]}"
            for kind, prefix in (("arxiv", "arxiv:"),)
            if kind in self.ids
        ]
        if self.ids.get("pmcid"):
            aliases.append(f"europepmc:{self.ids['pmcid']}")
        locations = []
        if self.pdf_url and self.is_oa is not False:
            locations.append({"is_oa": True, "pdf_url": self.pdf_url, "version": None})
        work = Work(id=self.key, aliases=aliases, extra={"locations": locations})
        return fetch_route(work)

    def to_dict(self) -> dict[str, Any]:
        """SPEC's candidate: title, authors, year, ids, score, why, fetch_route (+ key)."""
        return {
            "key": self.key,
            "title": self.title,
            "authors": list(self.authors),
            "year": self.year,
            "venue": self.venue,
            "ids": dict(self.ids),
            "cited_by_count": self.cited_by_count,
            "score": self.score,
            "why": self.why,
            "fetch_route": self.fetch_route(),
        }


def from_reference(ref: Mapping[str, Any], seed: str) -> Candidate | None:
    """A candidate from a seed's parsed reference (backward, ``found_by`` local), or None
    when the line gave neither a title nor an identifier."""
    ids = clean_ids({"doi": ref.get("doi"), "arxiv": ref.get("arxiv")})
    title = " ".join(str(ref.get("title") or "").split())
    if not title and not ids:
        return None
    if not title:
        title = " ".join(str(ref.get("raw") or "").split())[:300]
    year = ref.get("year") if isinstance(ref.get("year"), int) else None
    return Candidate(
        title=title,
        authors=[str(a) for a in ref.get("authors") or []],
        year=year,
        venue=ref.get("venue") or None,
        ids=ids,
        cited_by_seeds={seed},
        found_by={"local"},
    )


def from_record(record: Mapping[str, Any]) -> Candidate | None:
    """A candidate from an OpenAlex record (:class:`~prioris.discovery.graph.GraphRecords`);
    the caller adds which seeds it is tied to."""
    ids = clean_ids(record)
    title = " ".join(str(record.get("title") or "").split())
    if not title and not ids:
        return None
    year = record.get("year") if isinstance(record.get("year"), int) else None
    count = record.get("cited_by_count")
    return Candidate(
        title=title,
        authors=[str(a) for a in record.get("authors") or []],
        year=year,
        venue=record.get("venue") or None,
        abstract=record.get("abstract") or None,
        ids=ids,
        cited_by_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
        is_oa=record.get("is_oa") if isinstance(record.get("is_oa"), bool) else None,
        pdf_url=record.get("pdf_url") if isinstance(record.get("pdf_url"), str) else None,
        found_by={"openalex"},
    )


class CandidatePool:
    """Candidates merged by identity: a sighting sharing any key with a known candidate
    (its DOI, arXiv id, OpenAlex id or normalised title + year) is that candidate."""

    def __init__(self) -> None:
        self._all: list[Candidate] = []
        self._by_key: dict[str, Candidate] = {}

    def add(self, candidate: Candidate) -> Candidate:
        keys = candidate.identities()
        found: list[Candidate] = []
        for k in keys:  # every known candidate it shares a key with, once each
            known = self._by_key.get(k)
            if known is None or _conflicting(known.ids, candidate.ids):
                continue  # the same title with another DOI: another work
            if all(known is not f for f in found):
                found.append(known)
        if not found:
            self._all.append(candidate)
            target = candidate
        else:
            target = found[0]
            for twin in found[1:]:  # a sighting that joins two known candidates
                target.merge(twin)
                self._all = [c for c in self._all if c is not twin]
            target.merge(candidate)
        for k in target.identities():
            self._by_key[k] = target
        return target

    def candidates(self) -> list[Candidate]:
        return list(self._all)

    def __len__(self) -> int:
        return len(self._all)

    def merge_similar(self) -> int:
        """Join candidates whose titles are the same work spelt apart (a typo, an OCR
        slip, a year one off between a preprint and its version): a title within
        :data:`TITLE_MATCH_THRESHOLD` and years as :func:`titles_match` allows, and no
        identifier of the same kind that differs (two DOIs are two works). Titles are
        compared within blocks of the same first word, so a whole-library snowball
        stays fast. Returns how many candidates were joined into others."""
        from rapidfuzz import fuzz, process

        blocks: dict[str, list[Candidate]] = {}
        for cand in self._all:
            words = normalise_title(cand.title).split()
            if words:
                head = next((w for w in words if w not in _LEADING), words[0])
                blocks.setdefault(head, []).append(cand)
        gone: set[int] = set()
        for group in blocks.values():
            if len(group) < 2:
                continue
            texts = [normalise_title(c.title) for c in group]
            scores = process.cdist(
                texts, texts, scorer=fuzz.ratio, score_cutoff=TITLE_MATCH_THRESHOLD
            )
            for i, first in enumerate(group):
                if id(first) in gone:
                    continue
                for j in np.nonzero(scores[i, i + 1 :])[0] + i + 1:
                    other = group[int(j)]
                    if id(other) in gone or _conflicting(first.ids, other.ids):
                        continue
                    if titles_match(float(scores[i, j]), first.year, other.year):
                        first.merge(other)
                        gone.add(id(other))
        if gone:
            self._all = [c for c in self._all if id(c) not in gone]
            self._by_key = {k: c for c in self._all for k in c.identities()}
        return len(gone)


def _conflicting(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    return any(kind in a and kind in b and a[kind] != b[kind] for kind in ID_KINDS)


def titles_match(score: float, year: int | None, other_year: int | None) -> bool:
    """Whether a title ``score`` (rapidfuzz ``ratio``) with these years names one work:
    at least :data:`TITLE_MATCH_THRESHOLD` with years at most :data:`YEAR_SLACK` apart,
    or 97 when either year is unknown."""
    if year is None or other_year is None:
        return score >= 97.0
    return score >= TITLE_MATCH_THRESHOLD and abs(year - other_year) <= YEAR_SLACK


@dataclass
class LibraryIndex:
    """What the library already holds: alias strings and (normalised title, year, id)."""

    aliases: set[str]
    titles: list[tuple[str, int | None, str]]
    choices: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.choices = [t for t, _, _ in self.titles]

    @classmethod
    def build(
        cls, aliases: Iterable[str], works: Iterable[tuple[str, str, int | None]]
    ) -> LibraryIndex:
        """From the known alias strings and ``(work id, title, year)`` of every work."""
        titles = [(normalise_title(t), y, w) for w, t, y in works if normalise_title(t)]
        return cls(set(aliases), titles)

    def match(self, candidate: Candidate) -> str | None:
        """The library work this candidate is: an alias it shares, else a title within
        :data:`TITLE_MATCH_THRESHOLD` and a year within :data:`YEAR_SLACK` (an unknown
        year on either side matches only a near-identical title, 97 or more)."""
        for alias in library_aliases(candidate.ids):
            if alias in self.aliases:
                return alias
        norm = normalise_title(candidate.title)
        if not norm or not self.titles:
            return None
        from rapidfuzz import fuzz, process

        for _text, score, index in process.extract_iter(
            norm, self.choices, scorer=fuzz.ratio, score_cutoff=TITLE_MATCH_THRESHOLD
        ):
            _, year, work_id = self.titles[index]
            if titles_match(score, candidate.year, year):
                return work_id
        return None


def _unit(vector: np.ndarray) -> np.ndarray | None:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else None


def seed_centroid(vectors: Sequence[np.ndarray]) -> np.ndarray | None:
    """The normalised mean of the seeds' normalised vectors (None without any)."""
    units = [u for v in vectors if (u := _unit(np.asarray(v, dtype=np.float32))) is not None]
    if not units:
        return None
    return _unit(np.mean(np.stack(units), axis=0))


def _parts(
    candidate: Candidate, seeds: int, similarity: float | None, this_year: int
) -> dict[str, float]:
    links = len(candidate.cited_by_seeds) + len(candidate.cites_seeds)
    cap = math.log1p(max(1, min(seeds, LINK_SEEDS_CAP)))
    recency = 0.0
    if candidate.year:
        age = max(0, this_year - candidate.year)
        recency = 0.5 ** (age / RECENCY_HALF_LIFE_YEARS)
    citations = 0.0
    if candidate.cited_by_count:
        citations = min(1.0, math.log1p(candidate.cited_by_count) / math.log1p(CITATIONS_SATURATE))
    return {
        "links": min(1.0, math.log1p(links) / cap),
        "similarity": max(0.0, similarity or 0.0),
        "recency": recency,
        "citations": citations,
    }


def _words(
    candidate: Candidate,
    parts: dict[str, float],
    seeds: int,
    similarity: float | None,
    titles: Mapping[str, str],
) -> str:
    def named(ids: set[str]) -> str:
        shown = [titles.get(i) or i for i in sorted(ids)][:3]
        more = f" and {len(ids) - 3} more" if len(ids) > 3 else ""
        return "; ".join(f"“{t[:60]}”" for t in shown) + more

    said = []
    if candidate.cited_by_seeds:
        said.append(
            f"cited by {len(candidate.cited_by_seeds)} of your {seeds} seed(s): "
            + named(candidate.cited_by_seeds)
        )
    if candidate.cites_seeds:
        said.append(
            f"cites {len(candidate.cites_seeds)} of your {seeds} seed(s): "
            + named(candidate.cites_seeds)
        )
    if similarity is None:
        said.append("topic not compared (no seed vectors, or past the candidates compared)")
    else:
        level = "close" if similarity >= 0.6 else "related" if similarity >= 0.35 else "distant"
        said.append(f"{level} in topic to the seeds (cosine {similarity:.2f})")
    if candidate.year:
        said.append(f"published {candidate.year}")
    if candidate.cited_by_count is not None:
        said.append(f"cited {candidate.cited_by_count} times")
    return "; ".join(said)


def score_candidates(
    candidates: Sequence[Candidate],
    *,
    seeds: int,
    similarities: Mapping[int, float | None],
    this_year: int,
    seed_titles: Mapping[str, str] | None = None,
) -> list[Candidate]:
    """Score and explain each candidate (see the module text), best first; ties go to the
    more linked, then to the title alphabetically, so the order is stable.
    ``similarities`` maps ``id(candidate)`` to its cosine to the seeds (None: no vector)."""
    titles = seed_titles or {}
    for candidate in candidates:
        similarity = similarities.get(id(candidate))
        parts = _parts(candidate, seeds, similarity, this_year)
        contributions = {name: round(WEIGHTS[name] * value, 4) for name, value in parts.items()}
        candidate.score = round(sum(WEIGHTS[n] * v for n, v in parts.items()), 4)
        candidate.why = {
            "backward": len(candidate.cited_by_seeds),
            "cited_by_seeds": sorted(candidate.cited_by_seeds),
            "forward": len(candidate.cites_seeds),
            "cites_seeds": sorted(candidate.cites_seeds),
            "similarity": None if similarity is None else round(similarity, 4),
            "recency": round(parts["recency"], 4),
            "cited_by_count": candidate.cited_by_count,
            "citations": round(parts["citations"], 4),
            "links": round(parts["links"], 4),
            "contributions": contributions,
            "weights": dict(WEIGHTS),
            "found_by": sorted(candidate.found_by),
            "summary": _words(candidate, parts, seeds, similarity, titles),
        }
    return sorted(
        candidates,
        key=lambda c: (
            -c.score,
            -(len(c.cited_by_seeds) + len(c.cites_seeds)),
            normalise_title(c.title),
            c.key,
        ),
    )


def keep_direction(candidate: Candidate, direction: str) -> bool:
    """Whether a candidate belongs to a snowball of this ``direction``."""
    if direction == "backward":
        return bool(candidate.cited_by_seeds)
    if direction == "forward":
        return bool(candidate.cites_seeds)
    return True
