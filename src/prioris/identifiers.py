"""Parse and normalise the identifiers users paste: arXiv, Europe PMC, DOI, OpenAlex, files.

Pure functions, no I/O. :func:`parse_identifier` turns any accepted form (SPEC section 3)
into one :class:`Identifier` whose ``canonical`` string is what the library stores;
:func:`find_identifiers_in_text` picks DOIs and arXiv ids out of free text such as the
first page of a PDF.

Normalisation rules, so that two spellings of one paper meet:

* arXiv: ``2401.01234v2`` keeps its version; unversioned input stays unversioned (the
  source client resolves it to the latest version). Old-style ids drop the subject class
  (``math.AG/0601001`` -> ``math/0601001``), as arXiv itself does.
* Europe PMC: ``PMC`` ids upper-cased; PubMed ids become ``MED:<pmid>``; other Europe PMC
  sources keep their ``SRC:id`` form (``PPR:PPR123`` for preprints).
* DOI: lower-cased, percent-decoded when it came from a URL. ``10.48550/arXiv.X`` stays a
  DOI here; :func:`arxiv_id_from_doi` lets routing map it to arXiv without a request.
* OpenAlex: ``W`` ids upper-cased. Files: ``file:`` + 16 lower-case hex digits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from prioris.errors import InvalidRequestError

SCHEMES = ("arxiv", "europepmc", "doi", "openalex", "pmid", "file")
EUROPEPMC_SOURCES = ("MED", "PMC", "PPR", "AGR", "CBA", "CTX", "ETH", "HIR", "PAT", "NBK")

_ARXIV_NEW = r"\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?"
_ARXIV_OLD = r"[a-zA-Z]+(?:-[a-zA-Z]+)?(?:\.[A-Za-z]{2,})?/\d{7}(?:v\d+)?"
_ARXIV_RE = re.compile(rf"^(?:{_ARXIV_NEW}|{_ARXIV_OLD})$")
_VERSION_RE = re.compile(r"v\d+$")
_DOI_RE = re.compile(r"^10\.\d{4,9}/\S+$")
_PMC_RE = re.compile(r"^PMC\d+$", re.IGNORECASE)
_OPENALEX_RE = re.compile(r"^W\d+$", re.IGNORECASE)
_FILE_RE = re.compile(r"^[0-9a-f]{16}$")
_ARXIV_DOI_RE = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)

_ARXIV_HOSTS = ("arxiv.org", "www.arxiv.org", "export.arxiv.org")
_DOI_HOSTS = ("doi.org", "dx.doi.org", "www.doi.org")
_OPENALEX_HOSTS = ("openalex.org", "api.openalex.org")
_PMC_HOSTS = ("www.ncbi.nlm.nih.gov", "ncbi.nlm.nih.gov", "pmc.ncbi.nlm.nih.gov")
_PUBMED_HOSTS = ("pubmed.ncbi.nlm.nih.gov",)
_EUROPEPMC_HOSTS = ("europepmc.org", "www.europepmc.org", "www.ebi.ac.uk")

ACCEPTED_FORMS = (
    "arXiv ids (2401.01234, arxiv:2401.01234v2, hep-th/9901001, https://arxiv.org/abs/...), "
    "PMC123, PMC:123, MED:123, europepmc:MED:123, PMID:123, "
    "DOIs (10.1234/abc, doi:..., https://doi.org/...), "
    "OpenAlex ids (W123, https://openalex.org/W123), file:<16 hex digits>"
)


@dataclass(frozen=True)
class Identifier:
    """One normalised identifier; ``canonical`` is the string stored in the library."""

    scheme: str
    value: str

    @property
    def canonical(self) -> str:
        return f"{self.scheme}:{self.value}"

    @property
    def versionless(self) -> str:
        """The arXiv id without its ``vN`` suffix; other schemes: the value itself."""
        if self.scheme == "arxiv":
            return _VERSION_RE.sub("", self.value)
        return self.value

    @property
    def version(self) -> int | None:
        """The arXiv version number, or None when unversioned / not arXiv."""
        if self.scheme != "arxiv":
            return None
        match = _VERSION_RE.search(self.value)
        return int(match.group(0)[1:]) if match else None

    def __str__(self) -> str:
        return self.canonical


def _invalid(text: str, why: str = "") -> InvalidRequestError:
    shown = text if len(text) <= 120 else text[:117] + "..."
    reason = f" ({why})" if why else ""
    return InvalidRequestError(
        f"unrecognised identifier {shown!r}{reason}; accepted: {ACCEPTED_FORMS}"
    )


def normalise_arxiv(value: str) -> str | None:
    """A valid arXiv id in canonical spelling, or None (``math.AG/0601001`` -> ``math/...``)."""
    value = value.strip()
    if value.lower().endswith(".pdf"):
        value = value[:-4]
    if "/" in value:
        archive, _, number = value.partition("/")
        value = f"{archive.lower()}/{number}"
    if not _ARXIV_RE.match(value):
        return None
    if "/" in value:
        archive, number = value.split("/", 1)
        return f"{archive.split('.', 1)[0].lower()}/{number}"
    return value


def normalise_doi(value: str) -> str | None:
    """A DOI lower-cased and stripped of surrounding space, or None when not a DOI."""
    value = value.strip().lower()
    return value if _DOI_RE.match(value) else None


def arxiv_id_from_doi(doi: str) -> str | None:
    """The arXiv id behind a DataCite arXiv DOI (``10.48550/arXiv.2401.01234``), else None."""
    match = _ARXIV_DOI_RE.match(doi.strip())
    return normalise_arxiv(match.group(1)) if match else None


def _europepmc(value: str) -> Identifier | None:
    """``PMC123``, ``MED:123``, ``PMC:PMC123``, ``PPR:PPR1`` -> a europepmc Identifier."""
    value = value.strip()
    if _PMC_RE.match(value):
        return Identifier("europepmc", value.upper())
    source, sep, rest = value.partition(":")
    source = source.upper()
    if not sep or source not in EUROPEPMC_SOURCES or not rest.strip():
        return None
    rest = rest.strip()
    if source == "PMC":  # PMC:PMC123, or PMC:123 (PriorisMCP's canonical form)
        value = rest.upper() if _PMC_RE.match(rest) else f"PMC{rest}" if rest.isdigit() else None
        return Identifier("europepmc", value) if value else None
    if source == "MED" and not rest.isdigit():
        return None
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", rest):
        return None
    return Identifier("europepmc", f"{source}:{rest.upper() if source == 'PPR' else rest}")


def _from_url(text: str) -> Identifier | None:
    """An Identifier from a provider URL (arXiv, doi.org, OpenAlex, PMC, PubMed, Europe PMC)."""
    try:
        parts = urlsplit(text)
        host = (parts.hostname or "").lower()
    except ValueError:  # "http://[" and other URLs urllib cannot split: no provider's
        return None
    path = unquote(parts.path).strip("/")
    segments = [s for s in path.split("/") if s]
    if host in _ARXIV_HOSTS and len(segments) >= 2 and segments[0] in ("abs", "pdf", "html"):
        value = normalise_arxiv("/".join(segments[1:]))
        return Identifier("arxiv", value) if value else None
    if host in _DOI_HOSTS and path:
        value = normalise_doi(path)
        return Identifier("doi", value) if value else None
    if host in _OPENALEX_HOSTS and segments:
        last = segments[-1]
        return Identifier("openalex", last.upper()) if _OPENALEX_RE.match(last) else None
    if host in _PMC_HOSTS:
        for segment in segments:
            if _PMC_RE.match(segment):
                return Identifier("europepmc", segment.upper())
        return None
    if host in _PUBMED_HOSTS and segments and segments[0].isdigit():
        return Identifier("europepmc", f"MED:{segments[0]}")
    if host in _EUROPEPMC_HOSTS:
        # europepmc.org/article/MED/123, /abstract/MED/123, /article/PMC/PMC123, /articles/PMC1
        for i, segment in enumerate(segments):
            if _PMC_RE.match(segment):
                return Identifier("europepmc", segment.upper())
            if segment.upper() in EUROPEPMC_SOURCES and i + 1 < len(segments):
                return _europepmc(f"{segment}:{segments[i + 1]}")
    return None


def parse_identifier(text: str) -> Identifier:
    """Any accepted spelling -> an :class:`Identifier`; raises InvalidRequestError otherwise."""
    if not isinstance(text, str) or not text.strip():
        raise _invalid(str(text), "empty")
    raw = text.strip()
    lowered = raw.lower()
    if lowered.startswith(("http://", "https://")):
        found = _from_url(raw)
        if found is None:
            raise _invalid(raw, "not a URL of arXiv, doi.org, OpenAlex, PMC or Europe PMC")
        return found
    prefix, sep, rest = raw.partition(":")
    prefix = prefix.strip().lower()
    if sep and prefix in ("arxiv", "europepmc", "doi", "openalex", "pmid", "pmcid", "file"):
        rest = rest.strip()
        if prefix == "arxiv":
            value = normalise_arxiv(rest)
            if value:
                return Identifier("arxiv", value)
        elif prefix == "europepmc":
            found = _europepmc(rest)
            if found:
                return found
        elif prefix == "doi":
            if rest.lower().startswith(("http://", "https://")):
                found = _from_url(rest)
                if found and found.scheme == "doi":
                    return found
            value = normalise_doi(rest)
            if value:
                return Identifier("doi", value)
        elif prefix == "openalex":
            if _OPENALEX_RE.match(rest):
                return Identifier("openalex", rest.upper())
        elif prefix == "pmid":
            if rest.isdigit():
                return Identifier("europepmc", f"MED:{rest}")
        elif prefix == "pmcid":
            if _PMC_RE.match(rest):
                return Identifier("europepmc", rest.upper())
        elif prefix == "file" and _FILE_RE.match(rest.lower()):
            return Identifier("file", rest.lower())
        raise _invalid(raw, f"not a valid {prefix} identifier")
    if sep and prefix.upper() in EUROPEPMC_SOURCES:
        found = _europepmc(raw)  # MED:123, PPR:PPR1: what the Europe PMC tools document
        if found:
            return found
    value = normalise_arxiv(raw)
    if value:
        return Identifier("arxiv", value)
    if _PMC_RE.match(raw):
        return Identifier("europepmc", raw.upper())
    value = normalise_doi(raw)
    if value:
        return Identifier("doi", value)
    if _OPENALEX_RE.match(raw):
        return Identifier("openalex", raw.upper())
    found = _europepmc(raw)  # Europe PMC's own SRC:id (MED:123, PMC:123, PPR:PPR1)
    if found:
        return found
    raise _invalid(raw)


# --- PriorisMCP's names for stored works --------------------------------------------

PROVIDER_OF_SOURCE = {"file": "localfile"}
SOURCE_OF_PROVIDER = {"localfile": "file"}


def provider_of_source(source: str) -> str:
    """The PriorisMCP provider name of a work's source (``file`` -> ``localfile``)."""
    return PROVIDER_OF_SOURCE.get(source, source)


def source_of_provider(provider: str) -> str:
    """The work source a PriorisMCP provider name stands for (``localfile`` -> ``file``)."""
    return SOURCE_OF_PROVIDER.get(provider, provider)


def reference_identifier(work_id: str) -> str:
    """A work id in PriorisMCP's canonical form, as its clients put it in URIs and entries.

    arXiv: the versioned id without prefix (``2401.01234v2``); Europe PMC: ``PMC:{n}`` for
    a PMC article, else ``SRC:id`` (``MED:123``); local files keep their ``file:`` id (the
    id the upload tools return); anything else is the work id itself.
    """
    scheme, sep, value = work_id.partition(":")
    if not sep:
        return work_id
    if scheme == "arxiv":
        return value
    if scheme == "europepmc":
        return f"PMC:{value[3:]}" if _PMC_RE.match(value) else value
    return work_id


# --- free text -----------------------------------------------------------------------

_TEXT_DOI_RE = re.compile(r"\b10\.\d{4,9}/[^\s\"'<>]+", re.IGNORECASE)
_TEXT_ARXIV_RE = re.compile(
    rf"(?:\barxiv\s*:\s*|arxiv\.org/(?:abs|pdf)/)({_ARXIV_NEW}|{_ARXIV_OLD})", re.IGNORECASE
)
_TRAILING = ".,;:!?'\"]}>"


def _strip_trailing(value: str) -> str:
    """Drop sentence punctuation glued to the end, and ``)`` that closes nothing inside."""
    while value:
        unbalanced = value[-1] == ")" and value.count(")") > value.count("(")
        if value[-1] in _TRAILING or unbalanced:
            value = value[:-1]
        else:
            break
    return value


def find_identifiers_in_text(text: str) -> list[Identifier]:
    """DOIs and arXiv ids found in free text, in order of appearance, without duplicates.

    arXiv ids count only with an ``arXiv:`` prefix or an arxiv.org URL (bare numbers such
    as ``2401.01234`` are too often something else on a page). ``10.48550/arXiv.X`` is
    reported both as the DOI and as the arXiv id it names.
    """
    found: list[tuple[int, Identifier]] = []
    for match in _TEXT_DOI_RE.finditer(text):
        value = normalise_doi(_strip_trailing(match.group(0)))
        if value:
            found.append((match.start(), Identifier("doi", value)))
            arxiv = arxiv_id_from_doi(value)
            if arxiv:
                found.append((match.start(), Identifier("arxiv", arxiv)))
    for match in _TEXT_ARXIV_RE.finditer(text):
        value = normalise_arxiv(_strip_trailing(match.group(1)))
        if value:
            found.append((match.start(), Identifier("arxiv", value)))
    found.sort(key=lambda pair: pair[0])
    seen: set[str] = set()
    result: list[Identifier] = []
    for _, ident in found:
        key = ident.canonical.lower()
        if key not in seen:
            seen.add(key)
            result.append(ident)
    return result
