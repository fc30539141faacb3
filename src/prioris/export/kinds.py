"""What kind of publication a work is, the same answer for BibTeX, CSL and RIS.

A work's ``type`` comes from many vocabularies: OpenAlex (``article``, ``book-chapter``,
``dissertation``, ``preprint``…), Crossref (``journal-article``, ``proceedings-article``),
Europe PMC's publication types (``Journal Article``, ``research-article``, ``Preprint``),
CSL (``paper-conference``) or a BibTeX type a person typed (``inproceedings``). They are
all mapped onto one kind (:data:`KINDS`), refined by what else is known: Crossref's type
behind OpenAlex's, the venue's own type (``conference``), and the venue's name ("Proc.",
"Symposium", "Workshop" make a conference paper; "Journal", "Transactions" an article).

arXiv preprints are the ``preprint`` kind: ``@misc`` with ``eprint``, ``archivePrefix``
and ``primaryClass`` in BibTeX (what arXiv's own export and biblatex expect), ``article``
in CSL (its preprint type), ``UNPB`` in RIS. A preprint whose record names a journal or
proceedings that is not a preprint server (arXiv's ``journal_ref``) has been published,
and is cited as that publication (keeping its eprint). ``misc`` is left for works where
nothing better is known.
"""

from __future__ import annotations

import re
from typing import Any

from prioris.export.names import arxiv_id
from prioris.models import Work

KINDS = (
    "article",
    "inproceedings",
    "book",
    "incollection",
    "phdthesis",
    "mastersthesis",
    "techreport",
    "preprint",
    "misc",
)

_TYPES = {
    # journal articles (OpenAlex, Crossref, CSL, BibTeX, Europe PMC publication types)
    **dict.fromkeys(
        (
            "article",
            "journal-article",
            "article-journal",
            "journal article",
            "research-article",
            "research article",
            "review",
            "review-article",
            "letter",
            "editorial",
            "erratum",
            "published erratum",
            "retraction",
            "case reports",
            "case-report",
            "comment",
            "systematic review",
            "meta-analysis",
            "clinical trial",
            "randomized controlled trial",
            "brief-report",
            "article-magazine",
            "article-newspaper",
        ),
        "article",
    ),
    **dict.fromkeys(
        (
            "proceedings-article",
            "paper-conference",
            "inproceedings",
            "conference",
            "conference paper",
            "conference-paper",
            "cpaper",
        ),
        "inproceedings",
    ),
    **dict.fromkeys(
        ("book", "monograph", "edited-book", "reference-book", "proceedings", "book-set"),
        "book",
    ),
    **dict.fromkeys(
        (
            "book-chapter",
            "chapter",
            "incollection",
            "inbook",
            "book-section",
            "book-part",
            "reference-entry",
            "entry-encyclopedia",
            "entry-dictionary",
        ),
        "incollection",
    ),
    **dict.fromkeys(
        ("dissertation", "thesis", "phdthesis", "doctoral thesis", "phd thesis"), "phdthesis"
    ),
    **dict.fromkeys(("mastersthesis", "master's thesis", "masters thesis"), "mastersthesis"),
    **dict.fromkeys(
        ("report", "techreport", "technical report", "report-series", "working paper", "rprt"),
        "techreport",
    ),
    **dict.fromkeys(("preprint", "posted-content", "unpublished", "unpb"), "preprint"),
    **dict.fromkeys(
        (
            "misc",
            "other",
            "dataset",
            "standard",
            "paratext",
            "software",
            "peer-review",
            "grant",
            "supplementary-materials",
            "component",
            "libguides",
            "webpage",
            "online",
        ),
        "misc",
    ),
}
_PREPRINT_SERVER = re.compile(
    r"arxiv|biorxiv|medrxiv|chemrxiv|psyarxiv|socarxiv|techrxiv|ssrn|research\s*square"
    r"|preprints\.org|osf\s+preprints|zenodo|hal\b|\bpreprint",
    re.I,
)
_JOURNAL_WORDS = re.compile(r"\b(?:journal|transactions|letters|review|annals|bulletin)\b", re.I)
_CONFERENCE = re.compile(
    r"\b(?:proceedings|proc\.|conference|conf\.|symposium|workshops?|congress|meeting"
    r"|neurips|nips|icml|iclr|cvpr|iccv|eccv|emnlp|naacl|acl|coling|sigir|sigmod|kdd|aaai"
    r"|ijcai|vldb|osdi|sosp|nsdi|usenix|advances\s+in\s+neural\s+information)\b",
    re.I,
)
_THESIS = re.compile(r"\b(?:thesis|dissertation)\b", re.I)
_MASTERS = re.compile(r"\bmaster'?s?\b|\bm\.\s?sc\b|\bmsc\b", re.I)
_REPORT = re.compile(
    r"\b(?:technical\s+report|tech\.\s*rep\.?|report\s+no\.|working\s+paper)\b", re.I
)


def _mapped(value: Any) -> str | None:
    return _TYPES.get(value.strip().lower()) if isinstance(value, str) and value.strip() else None


def is_preprint_server(venue: str | None) -> bool:
    """The venue is arXiv, bioRxiv, SSRN or another preprint server, not a publication."""
    return bool(venue and _PREPRINT_SERVER.search(venue))


def _by_venue(venue: str) -> str:
    """The kind a venue's name suggests: a conference, a thesis, a report or a journal."""
    if _THESIS.search(venue):
        return "mastersthesis" if _MASTERS.search(venue) else "phdthesis"
    if _REPORT.search(venue):
        return "techreport"
    if _CONFERENCE.search(venue) and not _JOURNAL_WORDS.search(venue):
        return "inproceedings"
    return "article"


def entry_kind(work: Work) -> str:
    """One of :data:`KINDS` for ``work``, from its type, its venue and its identifiers."""
    extra = work.extra if isinstance(work.extra, dict) else {}
    venue = (work.venue or "").strip()
    published_venue = venue if venue and not is_preprint_server(venue) else ""
    kind = _mapped(work.type)
    crossref = _mapped(extra.get("type_crossref"))
    if kind is None:
        pub_types = extra.get("pub_types")
        for value in pub_types if isinstance(pub_types, list) else []:
            kind = _mapped(value)
            if kind:
                break
    if kind is None and work.is_preprint:
        kind = "preprint"
    if kind == "preprint" or (kind is None and arxiv_id(work) and not published_venue):
        # a preprint that names its journal or proceedings has been published there
        return _by_venue(published_venue) if published_venue else "preprint"
    if kind == "article":
        if venue and not published_venue and not work.volume:
            return "preprint"  # an "article" whose only venue is arXiv or another server
        if crossref == "inproceedings" or extra.get("source_type") == "conference":
            return "inproceedings"
        if published_venue and _by_venue(published_venue) == "inproceedings":
            return "inproceedings"
        return "article"
    if kind in ("phdthesis", "mastersthesis"):
        hints = " ".join(str(v) for v in (work.type, venue, work.publisher) if v)
        return "mastersthesis" if _MASTERS.search(hints) else kind
    if kind is not None and kind != "misc":
        return kind
    if crossref and crossref != "misc":
        return crossref
    if kind is None and published_venue:
        return _by_venue(published_venue)
    return "misc"
