"""Plain data shared by every layer: works, documents, pages, chunks, hits, full texts.

No I/O here. Dataclasses rather than pydantic models keep the core free of validation
cost on hot paths; the interfaces validate their own inputs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

SourceName = Literal["arxiv", "europepmc", "openalex", "file", "import", "zotero", "bibtex", "ris"]
DocumentFormat = Literal["pdf", "html", "xml", "text"]
UNTITLED = "Untitled"

# What part of a paper a chunk comes from (``chunks.section``): labelled at ingest from the
# headings (:mod:`prioris.ingest.sections`). The back matter stays searchable but ranks
# below a work's other passages, so a search shows what answers rather than boilerplate.
WORK_TEXT_CHARS = 4000
"""The head of a work without an abstract that its vector reads: well past the 256 word
pieces MiniLM (the default model) reads, so the cut never shortens what it sees. Here, not
in storage, because embedding it is a task a worker without the database runs."""

SECTIONS = (
    "abstract",
    "body",
    "references",
    "acknowledgements",
    "funding",
    "author_info",
    "appendix",
    "note",  # the researcher's own note about the work (a reference manager's child note)
    "highlight",  # a passage the researcher highlighted in the PDF, with their comment
)
BACK_MATTER = frozenset(("references", "acknowledgements", "funding", "author_info"))


def display_title(title: str | None) -> str:
    """How a work without a title is shown to people, the same in listings and citations."""
    return (title or "").strip() or UNTITLED


@dataclass
class Work:
    """Bibliographic record of one paper; ``id`` is canonical, ``aliases`` resolve to it.

    ``aliases`` hold canonical identifier strings (``doi:10.1/x``, ``arxiv:2401.01234v2``,
    ``europepmc:PMC123``, ``pmid:123``, ``openalex:W1``) so the same paper met through two
    providers is stored once.
    """

    id: str
    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    abstract: str | None = None
    aliases: list[str] = field(default_factory=list)
    source: str = "import"
    published: str | None = None
    type: str | None = None
    is_oa: bool | None = None
    oa_status: str | None = None
    pdf_url: str | None = None
    cited_by_count: int | None = None
    concepts: list[str] = field(default_factory=list)
    is_preprint: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    keywords: list[str] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)
    created_at: str | None = None
    updated_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary (the shape used by ``list --json`` and the MCP tools)."""
        return asdict(self)


@dataclass
class Page:
    """One page of a document as Markdown; ``ocr`` says whether tesseract produced it."""

    number: int
    text: str
    ocr: bool = False


@dataclass
class FullText:
    """Full text as a provider delivered it, before ingest.

    ``content`` is the original bytes (stored content-addressed). For ``html`` and ``xml``
    the source client also supplies ``markdown``; PDFs are converted by the ingest layer.
    """

    format: DocumentFormat
    content: bytes
    url: str | None = None
    markdown: str | None = None


@dataclass
class Document:
    """Stored original of a work's full text, content-addressed by SHA-256."""

    sha256: str
    work_id: str
    format: str
    size_bytes: int
    page_count: int = 0
    ocr_pages: int = 0
    parser_version: str = ""
    path: str | None = None
    url: str | None = None
    created_at: str | None = None


@dataclass
class Chunk:
    """A passage of a work's Markdown: what FTS5 and the vector index see."""

    work_id: str
    document_sha256: str | None
    ordinal: int
    text: str
    page_start: int
    page_end: int
    char_start: int
    char_end: int
    heading: str = ""
    token_count: int = 0
    id: int | None = None
    section: str = "body"  # one of SECTIONS


@dataclass
class Hit:
    """One search result: a work (best chunk) or a passage with ``--chunks``."""

    id: str
    title: str
    authors: list[str]
    year: int | None
    score: float
    ranks: dict[str, int | None]
    snippet: str
    page_start: int | None
    page_end: int | None
    offset: int | None
    chunk_id: int | None
    source: str | None = None
    section: str | None = None  # the passage's part of the paper (SECTIONS)
    # each leg's own score beside its rank (BM25, higher is better; cosine similarity), so
    # a caller can fuse lists its own way; None where the hit is not in that leg's list
    scores: dict[str, float | None] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary with the contract's hit fields."""
        return asdict(self)


@dataclass
class Reference:
    """One entry of a work's reference list, as printed (``raw``) and parsed; the parsed
    fields are None (or empty) where the entry did not say or the parser could not tell."""

    ordinal: int  # its position in the list, from 1
    raw: str
    authors: list[str] = field(default_factory=list)
    title: str | None = None
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    url: str | None = None
