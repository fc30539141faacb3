"""PDF header metadata: title, authors, year and identifiers against printed ground truth.

Reads ``../shared/fixtures/pdfmeta/truth.jsonl`` (real papers with the metadata they
print; see its SOURCES.md), or ``pdfmeta2/`` (a second, disjoint set of the same schema,
taken from other parsers' test suites: ``--set pdfmeta2``), and runs each PDF through the
ingest parser (:func:`prioris.ingest.pdf.reader.extract_pdf`, OCR ``auto`` as ingest does),
then scores:

* title: exact match after normalisation (Unicode NFKC, ligatures expanded, case-folded,
  whitespace collapsed, curly quotes and dashes made plain);
* authors: precision / recall / F1 per name (normalised the same way), micro-averaged
  over every name of the set (macro F1 per paper is printed beside it);
* exact author lists: papers whose whole normalised author list equals the truth, in
  order (a paper with one name missing, extra or out of place counts as wrong);
* year: exact, where "no year" is right only when the truth has none ("year acc"), and
  apart over the papers that print a year ("printed yr": right / papers with a year),
  the held-out goal's measure;
* DOI and arXiv id: exact (DOI case-folded, arXiv id without version), none = none.

``--set refman`` scores instead the PDFs attached in the reference-manager fixtures
(``../shared/fixtures/bibtex/*/truth.json`` and ``../shared/fixtures/zotero/*/truth.json``,
each PDF once) against the record the user's reference manager keeps. That record is not
"as printed" (title case, LaTeX accents, initials for given names), so this set compares
titles by their letters and digits only and names by their first initial and family
name, both without case or diacritics; it is a check that the rules generalise, scored
apart from the printed set. ``--set all`` runs the three sets, each scored apart.

``--stage parser`` (the default) scores the header parser's record alone; ``--stage stored``
(or ``--stored``) the work as ingest stores it (header, the PDF's own metadata and their
merge); ``--stage both`` prints both rows for each set.

``--enrich recorded`` adds the provider step (arXiv for arXiv ids, OpenAlex then Europe PMC
for DOIs) the way ``Library`` runs it, answered by the recorded responses in
``../shared/fixtures/api`` through an ``httpx.MockTransport``; a request with no recording
fails as an unreachable provider would, so the figures show what can be measured offline.
``--enrich live`` asks the real providers (needs the network). ``--ocr always
--first-pages 2`` measures the scanned-page path: the first two pages of each paper are
OCR'd by tesseract and read without fonts. ``-v`` lists every miss.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

PDFMETA = common.SHARED / "fixtures" / "pdfmeta"
PDFMETA2 = common.SHARED / "fixtures" / "pdfmeta2"
REFMAN = (common.SHARED / "fixtures" / "bibtex", common.SHARED / "fixtures" / "zotero")
API = common.SHARED / "fixtures" / "api"
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "‐": "-"})


def norm(text: str | None) -> str:
    """Comparison form: NFKC (expands ligatures), plain quotes/dashes, case-folded, spaces."""
    text = unicodedata.normalize("NFKC", text or "").translate(_QUOTES)
    return " ".join(text.casefold().split())


def _plain(text: str | None) -> str:
    """Letters and digits only, without case or diacritics (a reference manager's form)."""
    text = unicodedata.normalize("NFKD", norm(text))
    # accents go, also the spacing ones a LaTeX ``\\textasciicaron`` leaves (``Hubaˇcek``)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Mn", "Sk", "Lm"))
    text = text.replace("ø", "o").replace("ł", "l").replace("ß", "ss").replace("đ", "d")
    return " ".join(re.sub(r"[^\w]+|_", " ", text).split())


def refman_title(text: str | None) -> str:
    """A title as letters and digits (``Sports {{Analytics}}`` = ``Sports analytics``)."""
    return _plain(text).replace(" ", "")


def refman_name(text: str | None) -> str:
    """A name as first initial + family name (``Dobson, S. M.`` = ``Stephen Dobson``)."""
    words = _plain(text).split()
    return f"{words[0][0]} {words[-1]}" if len(words) > 1 else " ".join(words)


def norm_doi(doi: str | None) -> str | None:
    return doi.strip().lower() if doi else None


def norm_arxiv(value: str | None) -> str | None:
    return re.sub(r"v\d+$", "", value.strip()) if value else None


@dataclass
class Scores:
    """Running totals over the set."""

    papers: int = 0
    titles: int = 0
    years: int = 0
    printed_years: int = 0
    printed_years_right: int = 0
    dois: int = 0
    arxivs: int = 0
    matched: int = 0
    predicted: int = 0
    expected: int = 0
    exact_lists: int = 0
    paper_f1: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    title_key: Any = norm
    name_key: Any = norm

    def add(self, truth: dict[str, Any], got: dict[str, Any]) -> None:
        name = truth["file"]
        self.papers += 1
        if self.title_key(got["title"]) == self.title_key(truth["title"]):
            self.titles += 1
        else:
            self.misses.append(f"{name}: title {got['title']!r} != {truth['title']!r}")
        expected = [self.name_key(a) for a in truth["authors"]]
        predicted = [self.name_key(a) for a in got["authors"]]
        self.exact_lists += expected == predicted
        pool = list(expected)
        matched = 0
        for author in predicted:
            if author in pool:
                pool.remove(author)
                matched += 1
        self.matched += matched
        self.predicted += len(predicted)
        self.expected += len(expected)
        p = matched / len(predicted) if predicted else (1.0 if not expected else 0.0)
        r = matched / len(expected) if expected else 1.0
        self.paper_f1.append(2 * p * r / (p + r) if p + r else 0.0)
        if matched != len(expected) or matched != len(predicted):
            self.misses.append(f"{name}: authors {got['authors']} != {truth['authors']}")
        self.printed_years += truth["year"] is not None
        if got["year"] == truth["year"]:
            self.years += 1
            self.printed_years_right += truth["year"] is not None
        else:
            self.misses.append(f"{name}: year {got['year']} != {truth['year']}")
        if norm_doi(got["doi"]) == norm_doi(truth["doi"]):
            self.dois += 1
        else:
            self.misses.append(f"{name}: doi {got['doi']} != {truth['doi']}")
        if norm_arxiv(got["arxiv_id"]) == norm_arxiv(truth["arxiv_id"]):
            self.arxivs += 1
        else:
            self.misses.append(f"{name}: arxiv {got['arxiv_id']} != {truth['arxiv_id']}")

    def row(self, label: str, seconds: float) -> list[Any]:
        precision = self.matched / self.predicted if self.predicted else 0.0
        recall = self.matched / self.expected if self.expected else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        n = self.papers or 1
        return [
            label,
            self.papers,
            f"{self.titles / n:.3f}",
            f"{precision:.3f}",
            f"{recall:.3f}",
            f"{f1:.3f}",
            f"{sum(self.paper_f1) / n:.3f}",
            f"{self.exact_lists}/{self.papers}",
            f"{self.years / n:.3f}",
            f"{self.printed_years_right / (self.printed_years or 1):.3f} "
            f"({self.printed_years_right}/{self.printed_years})",
            f"{self.dois / n:.3f}",
            f"{self.arxivs / n:.3f}",
            f"{seconds:.1f}",
        ]


def identifiers_of(aliases: list[str]) -> tuple[str | None, str | None]:
    doi = next((a[4:] for a in aliases if a.startswith("doi:")), None)
    arxiv = next((a[6:] for a in aliases if a.startswith("arxiv:")), None)
    return doi, arxiv


def printed_record(path: Path, ocr_mode: str, first_pages: int | None = None) -> Any:
    """What the PDF's ingest finds in it (before any provider step); ``first_pages`` cuts
    the PDF to its first pages (to time OCR of headers without OCR'ing whole papers)."""
    import pymupdf

    from prioris.ingest.ocr import TesseractOcr
    from prioris.ingest.pdf.reader import extract_pdf

    data = path.read_bytes()
    if first_pages:
        source = pymupdf.open(stream=data)
        cut = pymupdf.open()
        cut.insert_pdf(source, to_page=min(first_pages, source.page_count) - 1)
        cut.set_metadata(source.metadata or {})
        data = cut.tobytes()
    content = extract_pdf(data, ocr_mode=ocr_mode, ocr=TesseractOcr())
    return content.metadata


def recorded_transport() -> Any:
    """An httpx.MockTransport answering from ../shared/fixtures/api (else: unreachable)."""
    import httpx

    from prioris.sources.openalex import normalize_doi

    arxiv = {}
    for file in (API / "arxiv").glob("id_*.atom.xml"):
        ids = file.name.split("_s0_")[0][3:].split("_")
        for ident in ids:
            arxiv[ident] = file.read_bytes()
    openalex = {}
    for file in (API / "openalex").glob("*.json"):
        data = json.loads(file.read_text(encoding="utf-8"))
        for item in data.get("results", [data]):
            doi = normalize_doi(item.get("doi"))
            if doi and "id" in item:
                openalex[doi] = item

    def handler(request: httpx.Request) -> httpx.Response:
        if "arxiv" in request.url.host:
            ids = request.url.params.get("id_list", "")
            key = ids.split(",")[0]
            if key in arxiv:
                return httpx.Response(200, content=arxiv[key])
        if "openalex" in request.url.host and "/works/doi:" in request.url.path:
            doi = normalize_doi(request.url.path.split("/works/doi:", 1)[1])
            if doi in openalex:
                return httpx.Response(200, json=openalex[doi])
        raise httpx.ConnectError("no recorded response (offline)", request=request)

    return httpx.MockTransport(handler)


def enriched(meta: Any, enricher: Any) -> dict[str, Any]:
    """The work after the provider step (``Library``'s merge: the provider wins)."""
    from prioris.models import Work
    from prioris.sources.enrich import merge_provider, same_paper

    work = Work(
        id="file:bench",
        title=meta.title or "",
        authors=list(meta.authors),
        year=meta.year,
        aliases=list(meta.identifiers),
        source="file",
    )
    found = enricher.lookup(work.aliases)
    if found.work is not None and same_paper(meta.title, found.work.title):
        work = merge_provider(work, found.work)
    doi, arxiv = identifiers_of(work.aliases)
    return {
        "title": work.title,
        "authors": work.authors,
        "year": work.year,
        "doi": doi,
        "arxiv_id": arxiv,
        "provider": found.provider if work.extra.get("enriched_from") else None,
    }


def pdfmeta_truths(folder: Path = PDFMETA) -> list[dict[str, Any]]:
    """The printed truth of ``pdfmeta`` or ``pdfmeta2`` (empty when ../shared is absent)."""
    truth_file = folder / "truth.jsonl"
    if not truth_file.is_file():
        return []
    return [{**truth, "path": folder / truth["file"]} for truth in common.read_jsonl(truth_file)]


def _latex(text: str | None) -> str:
    """BibTeX text as Unicode (``{\\'C}wiklinski`` -> ``Ćwiklinski``), braces dropped."""
    if not text:
        return ""
    from pylatexenc.latex2text import LatexNodes2Text

    return " ".join(LatexNodes2Text().latex_to_text(text).split())


def _bibtex_names(field: str | None) -> list[str]:
    names = []
    for part in re.split(r"\s+and\s+", _latex(field)) if field else []:
        family, _, given = part.partition(",")
        names.append(" ".join(f"{given} {family}".split()))
    return [name for name in names if name]


def refman_truths() -> list[dict[str, Any]]:
    """Each PDF attached in the BibTeX and Zotero fixtures once, with its entry's record."""
    import hashlib

    truths: dict[str, dict[str, Any]] = {}

    def add(path: Path, label: str, record: dict[str, Any]) -> None:
        if path.suffix.lower() != ".pdf" or not path.is_file():
            return
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        truths.setdefault(sha, {"file": label, "path": path, **record})

    bibtex, zotero = REFMAN
    for truth_file in sorted(bibtex.glob("*/truth.json")):
        data = json.loads(truth_file.read_text(encoding="utf-8"))
        for entry in data.get("entries", []):
            record = {
                "title": _latex(entry.get("title")),
                "authors": _bibtex_names(entry.get("author")),
                "year": int(entry["year"]) if str(entry.get("year") or "").isdigit() else None,
                "doi": entry.get("doi"),
                "arxiv_id": None,
            }
            for attachment in entry.get("files", []):
                if attachment.get("exists"):
                    path = truth_file.parent / attachment["fixture_path"]
                    add(path, f"{truth_file.parent.name}/{entry['key']}", record)
    for truth_file in sorted(zotero.glob("*/truth.json")):
        data = json.loads(truth_file.read_text(encoding="utf-8"))
        for item in data.get("items", []):
            authors = [
                " ".join(f"{c.get('firstName') or ''} {c.get('lastName') or ''}".split())
                for c in item.get("creators", [])
                if c.get("creatorType") == "author"
            ]
            record = {
                "title": item.get("title") or "",
                "authors": authors,
                "year": item.get("year"),
                "doi": item.get("DOI") or item.get("doi_in_extra"),
                "arxiv_id": None,
            }
            for attachment in item.get("attachments", []):
                if attachment.get("exists") and attachment.get("file"):
                    path = truth_file.parent / attachment["file"]
                    add(path, f"{truth_file.parent.name}/{item['key']}", record)
    return list(truths.values())


def stored_library(args: Any) -> Any:
    """A fresh library in a temp folder (fake embedder, no provider) for ``--stored``."""
    import tempfile

    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    folder = Path(tempfile.mkdtemp(prefix="bench-metadata-"))
    settings = load_settings({"PRIORIS_MCP_DATA_DIR": str(folder), "PRIORIS_MCP_ENRICH": "off"})
    settings = settings.with_overrides(ocr_mode=args.ocr)
    return Library.open(settings, embedder=FakeEmbedder())


def run_set(
    name: str, truths: list[dict[str, Any]], args: Any, enricher: Any, stored: bool
) -> list[list[Any]]:
    """Score one set at one stage: its table rows (its misses printed with ``-v``)."""
    keys: dict[str, Any] = {"title_key": refman_title, "name_key": refman_name}
    kwargs = keys if name == "refman" else {}
    offline, online = Scores(**kwargs), Scores(**kwargs)
    started = time.perf_counter()
    online_seconds = 0.0
    providers = 0
    library = stored_library(args) if stored else None
    for truth in truths:
        if library is not None:  # what a user sees: the work as stored, records merged
            work = library.get_work(library.ingest_file(truth["path"]).id)
            doi, arxiv = identifiers_of([work.id, *work.aliases])
            got = {
                "title": work.title,
                "authors": work.authors,
                "year": work.year,
                "doi": doi,
                "arxiv_id": arxiv,
            }
        else:
            meta = printed_record(truth["path"], args.ocr, args.first_pages)
            doi, arxiv = identifiers_of(meta.identifiers)
            got = {
                "title": meta.title,
                "authors": meta.authors,
                "year": meta.year,
                "doi": doi,
                "arxiv_id": arxiv,
            }
        if name == "refman":  # the record knows no arXiv id; score a DOI only where it has one
            got["arxiv_id"] = None
            got["doi"] = got["doi"] if truth["doi"] else None
        offline.add(truth, got)
        if enricher is not None and library is None:
            step = time.perf_counter()
            after = enriched(meta, enricher)
            online_seconds += time.perf_counter() - step
            providers += after["provider"] is not None
            online.add(truth, after)
    seconds = time.perf_counter() - started - online_seconds
    if library is not None:
        library.close()
    label = "printed (offline" + (", OCR of every page" if args.ocr == "always" else "")
    if stored:
        label = "stored work (ingested, records merged"
    label += f", first {args.first_pages} pages)" if args.first_pages else ")"
    label = f"{name}: {label}"
    rows = [offline.row(label, seconds)]
    if enricher is not None and not stored:
        label = f"+ enrichment ({args.enrich}; {providers}/{len(truths)} answered)"
        rows.append(online.row(label, online_seconds))
    if args.verbose:
        for miss in offline.misses:
            print(f"miss ({'stored' if stored else 'parser'}):", miss)
        if enricher is not None and not stored:
            for miss in online.misses:
                print("miss after enrichment:", miss)
    return rows


HEADERS = [
    "run",
    "papers",
    "title acc",
    "author P",
    "author R",
    "author F1",
    "F1/paper",
    "exact lists",
    "year acc",
    "printed yr",
    "DOI acc",
    "arXiv acc",
    "seconds",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ocr", default="auto", choices=("auto", "always", "never"))
    parser.add_argument(
        "--enrich",
        default="off",
        choices=("off", "recorded", "live"),
        help="provider step: off, recorded responses (offline) or live providers",
    )
    parser.add_argument(
        "--first-pages",
        type=int,
        help="keep only the first N pages of each PDF (e.g. 2 with --ocr always)",
    )
    parser.add_argument(
        "--set",
        default="pdfmeta",
        choices=("pdfmeta", "pdfmeta2", "refman", "all"),
        help="pdfmeta, pdfmeta2: printed truth; refman: the reference managers' records; "
        "all: the three, each scored apart",
    )
    parser.add_argument(
        "--stage",
        default="parser",
        choices=("parser", "stored", "both"),
        help="parser: the header parser's record; stored: the work as ingest stores it; "
        "both: a row for each",
    )
    parser.add_argument(
        "--stored",
        action="store_true",
        help="same as --stage stored: score the works as ingest stores them (the header, "
        "the PDF's own metadata and the merge of their records)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    args = parser.parse_args(argv)
    sets = ("pdfmeta", "pdfmeta2", "refman") if args.set == "all" else (args.set,)
    stage = "stored" if args.stored else args.stage
    stages = (False, True) if stage == "both" else (stage == "stored",)
    enricher = None
    if args.enrich != "off":
        from prioris.config import load_settings
        from prioris.sources.enrich import ProviderLookup
        from prioris.sources.remote import RemoteSources

        settings = load_settings()
        transport = recorded_transport() if args.enrich == "recorded" else None
        enricher = ProviderLookup(RemoteSources(settings, transport))
    folders = {"pdfmeta": PDFMETA, "pdfmeta2": PDFMETA2}
    for name in sets:
        truths = pdfmeta_truths(folders[name]) if name in folders else refman_truths()
        if not truths:
            where = folders.get(name) or " and ".join(map(str, REFMAN))
            print(f"SKIPPED: {name}: truth not found at {where} (../shared)")
            continue
        if len(sets) > 1 or len(stages) > 1:
            print(f"\n{name} ({len(truths)} PDFs)")
        rows = [row for stored in stages for row in run_set(name, truths, args, enricher, stored)]
        common.print_table(HEADERS, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
