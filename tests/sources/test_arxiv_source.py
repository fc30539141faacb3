"""arXiv: Atom parsing on recorded and hand-written feeds, the client through MockTransport."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from prioris.config import load_settings
from prioris.errors import (
    FormatUnavailableError,
    InvalidRequestError,
    NotFoundError,
    ParseError,
    ProviderUnavailableError,
)
from prioris.sources.arxiv import (
    ArxivClient,
    build_query,
    parse_atom,
    parse_list_sets,
    repair_mojibake,
)
from prioris.sources.html_markdown import html_to_markdown
from prioris.sources.http import ProviderHttp, make_client

from conftest import shared_path

API = "https://export.arxiv.test/api/query"
SITE = "https://arxiv.test"
OAI = "https://oai.arxiv.test/oai"


def feed(*entries: str, total: int | None = None, start: int = 0) -> bytes:
    count = len(entries) if total is None else total
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<opensearch:totalResults>{count}</opensearch:totalResults>"
        f"<opensearch:startIndex>{start}</opensearch:startIndex>"
        f"<opensearch:itemsPerPage>{len(entries)}</opensearch:itemsPerPage>"
        + "".join(entries)
        + "</feed>"
    ).encode()


def entry(
    arxiv_id: str,
    title: str = "A title",
    *,
    doi: str | None = None,
    journal: str | None = None,
    published: str = "2024-01-02T10:00:00Z",
    authors: tuple[str, ...] = ("Ada Lovelace", "Alan Turing"),
) -> str:
    extra = f"<arxiv:doi>{doi}</arxiv:doi>" if doi else ""
    extra += f"<arxiv:journal_ref>{journal}</arxiv:journal_ref>" if journal else ""
    return (
        f"<entry><id>http://arxiv.org/abs/{arxiv_id}</id><title>{title}\n  spread</title>"
        f"<updated>2024-02-01T00:00:00Z</updated><published>{published}</published>"
        f"<summary>  Abstract\n text. </summary>"
        + "".join(f"<author><name>{a}</name></author>" for a in authors)
        + f'<link href="https://arxiv.org/abs/{arxiv_id}" rel="alternate" type="text/html"/>'
        f'<link href="https://arxiv.org/pdf/{arxiv_id}" rel="related" type="application/pdf"'
        ' title="pdf"/>'
        '<category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>'
        '<category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>'
        '<arxiv:primary_category term="cs.CL"/>' + extra + "</entry>"
    )


def client(
    handler: Callable[[httpx.Request], httpx.Response], max_pdf_bytes: int | None = None
) -> ArxivClient:
    http = ProviderHttp(
        "arxiv",
        make_client(load_settings(), httpx.MockTransport(handler)),
        min_interval=0,
        backoff_budget=0,
    )
    return ArxivClient(http, API, SITE, OAI, max_pdf_bytes=max_pdf_bytes)


def never(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no request expected, got {request.url}")


# --- parser on recorded fixtures ---------------------------------------------------------


def test_parse_every_recorded_feed() -> None:
    folder = shared_path("fixtures", "api", "arxiv")
    files = sorted(Path(folder).glob("*.xml"))
    assert files
    for path in files:
        data = path.read_bytes()
        if path.name.startswith("id_abc_"):
            with pytest.raises(InvalidRequestError, match="incorrect id format for abc"):
                parse_atom(data)
            continue
        result = parse_atom(data)
        assert result.total >= len(result.works)
        for work in result.works:
            assert work.id.startswith("arxiv:") and work.title and work.authors
            assert work.source == "arxiv" and work.is_preprint is True
            assert work.extra["primary_category"] in work.extra["categories"]
            assert work.extra["pdf_url"].startswith("https://arxiv.org/pdf/")


def test_recorded_search_page_details() -> None:
    path = shared_path("fixtures", "api", "arxiv", "q_testing_s0_m10_bc5a6c384fe9.atom.xml")
    result = parse_atom(path.read_bytes())
    assert (result.total, result.start, len(result.works)) == (214881, 0, 10)
    first = result.works[0]
    assert first.id == "arxiv:2202.12139v1"
    assert first.year == 2022
    assert "doi:10.1109/icstw55395.2022.00035" in first.aliases
    assert first.venue and first.venue.startswith("Artificial Intelligence in Software Testing")
    assert first.extra["primary_category"] == "cs.SE"
    assert result.works[1].authors[0] == "Aurora Ramírez"  # mojibake in the record repaired


def test_recorded_unknown_ids_give_no_entries() -> None:
    empty = shared_path("fixtures", "api", "arxiv", "id_0000.0000_s0_m100_8b51d9633a68.atom.xml")
    assert parse_atom(empty.read_bytes()).works == []
    one = shared_path(
        "fixtures", "api", "arxiv", "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.atom.xml"
    )
    assert [w.id for w in parse_atom(one.read_bytes()).works] == ["arxiv:1707.08567v1"]


# --- parser on hand-written feeds --------------------------------------------------------


def test_parse_written_feed() -> None:
    data = feed(
        entry("2401.01234v2", doi="10.1000/ABC 10.1000/def", journal="J. Test 1 (2024)"),
        entry("hep-th/9901001v1", published="1999-01-01T00:00:00Z"),
        total=57,
        start=20,
    )
    result = parse_atom(data)
    assert (result.total, result.start) == (57, 20)
    work, old = result.works
    assert work.id == "arxiv:2401.01234v2"
    assert work.title == "A title spread"
    assert work.abstract == "Abstract text."
    assert work.authors == ["Ada Lovelace", "Alan Turing"]
    assert work.year == 2024 and work.venue == "J. Test 1 (2024)"
    assert work.aliases == ["doi:10.1000/abc", "doi:10.1000/def"]
    assert work.extra["categories"] == ["cs.CL", "cs.LG"]
    assert work.extra["arxiv_versionless"] == "2401.01234"
    assert work.extra["abs_url"] == "https://arxiv.org/abs/2401.01234v2"
    assert old.id == "arxiv:hep-th/9901001v1" and old.year == 1999


def test_parse_empty_error_and_malformed() -> None:
    assert parse_atom(feed()).works == []
    error = (
        "<entry><id>http://arxiv.org/api/errors#max_results</id><title>Error</title>"
        "<summary>max_results must be less than 30000</summary></entry>"
    )
    with pytest.raises(InvalidRequestError, match="max_results must be"):
        parse_atom(feed(error))
    with pytest.raises(ParseError):
        parse_atom(b"<feed><entry>")
    with pytest.raises(ParseError):
        parse_atom(b"<html><body>maintenance</body></html>")


def test_parse_refuses_entity_expansion() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;">]><feed xmlns="http://www.w3.org/2005/Atom">'
        b"<title>&b;</title></feed>"
    )
    with pytest.raises(ParseError, match="refused"):
        parse_atom(bomb)


def test_repair_mojibake_and_query_building() -> None:
    assert repair_mojibake("WÃ¼bben") == "Wübben"
    assert repair_mojibake("Wübben") == "Wübben"
    assert repair_mojibake("plain") == "plain"
    assert build_query("deep learning") == "all:deep AND all:learning"
    assert build_query("ti:attention AND cat:cs.CL") == "ti:attention AND cat:cs.CL"
    assert build_query('"exact phrase"') == '"exact phrase"'


# --- client -------------------------------------------------------------------------------


def test_search_sends_parameters() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=feed(entry("2401.00001v1"), total=99, start=10))

    result = client(handler).search(
        "graph neural", start=10, max_results=5, sort_by="submittedDate", sort_order="ascending"
    )
    params = seen[0].url.params
    assert params["search_query"] == "all:graph AND all:neural"
    assert (params["start"], params["max_results"]) == ("10", "5")
    assert (params["sortBy"], params["sortOrder"]) == ("submittedDate", "ascending")
    assert result.total == 99 and result.works[0].id == "arxiv:2401.00001v1"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_results": 2001}, "max_results"),
        ({"max_results": 0}, "max_results"),
        ({"start": 29000, "max_results": 1001}, "start \\+ max_results"),
        ({"start": -1}, "start"),
        ({"sort_by": "date"}, "sort_by"),
        ({"sort_order": "up"}, "sort_order"),
    ],
)
def test_search_validates_before_any_request(kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidRequestError, match=message):
        client(never).search("x", **kwargs)
    with pytest.raises(InvalidRequestError):
        client(never).search("   ")


def test_search_limits_at_the_edge_are_allowed() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(200, content=feed())

    client(handler).search("x", start=28000, max_results=2000)
    assert calls == [1]


def test_malformed_feed_is_provider_unavailable() -> None:
    with pytest.raises(ProviderUnavailableError, match="unreadable"):
        client(lambda r: httpx.Response(200, text="<feed><oops")).search("x")


def test_fetch_metadata_batches_and_reports_missing() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.params["id_list"])
        return httpx.Response(200, content=feed(entry("2401.01234v3"), entry("1605.08386v1")))

    arxiv = client(handler)
    works = arxiv.fetch_metadata(["arXiv:2401.01234", "https://arxiv.org/abs/1605.08386v1"])
    assert [w.id for w in works] == ["arxiv:2401.01234v3", "arxiv:1605.08386v1"]
    assert seen == ["2401.01234,1605.08386v1"]
    works, missing = arxiv.fetch_metadata_report(["2401.01234", "0808.05394"])
    assert [w.id for w in works] == ["arxiv:2401.01234v3"] and missing == ["0808.05394"]
    with pytest.raises(NotFoundError, match=r"0808\.05394"):
        arxiv.fetch_metadata(["0808.05394", "2401.01234"])
    with pytest.raises(InvalidRequestError):
        client(never).fetch_metadata(["PMC123"])


def test_list_top_n() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200, content=feed(entry("2402.00003v1"), entry("2402.00002v1"), entry("2402.00001v1"))
        )

    works = client(handler).list_top_n(["cs.CL", "cs.AI"], 2, exclude=["cs.CV", "2402.00003"])
    params = seen[0].url.params
    assert params["search_query"] == "(cat:cs.CL OR cat:cs.AI) ANDNOT cat:cs.CV"
    assert params["sortBy"] == "submittedDate" and params["sortOrder"] == "descending"
    assert params["max_results"] == "3"
    assert [w.id for w in works] == ["arxiv:2402.00002v1", "arxiv:2402.00001v1"]
    with pytest.raises(InvalidRequestError):
        client(never).list_top_n([], 5)
    with pytest.raises(InvalidRequestError):
        client(never).list_top_n(["not a category!"], 5)


def test_fetch_pdf_checks_magic_and_follows_site_redirects() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/pdf/2401.01234":
            return httpx.Response(301, headers={"Location": "/pdf/2401.01234v2"})
        if request.url.path == "/pdf/2401.01234v2":
            return httpx.Response(200, content=b"%PDF-1.7\n...")
        if request.url.path == "/pdf/2401.09999v1":
            return httpx.Response(200, content=b"<html>PDF not ready</html>")
        if request.url.path == "/pdf/2401.08888v1":
            return httpx.Response(302, headers={"Location": "https://evil.example/x.pdf"})
        return httpx.Response(404)

    arxiv = client(handler)
    full = arxiv.fetch_pdf("2401.01234")
    assert full.format == "pdf" and full.content.startswith(b"%PDF")
    assert full.url == f"{SITE}/pdf/2401.01234v2"
    with pytest.raises(ParseError, match="did not return a PDF"):
        arxiv.fetch_pdf("2401.09999v1")
    with pytest.raises(ProviderUnavailableError, match="off the site"):
        arxiv.fetch_pdf("2401.08888v1")
    with pytest.raises(NotFoundError):
        arxiv.fetch_pdf("2401.07777v1")


def test_fetch_pdf_size_cap() -> None:
    from prioris.errors import FileTooLargeError

    arxiv = client(
        lambda r: httpx.Response(200, content=b"%PDF-1.4" + b"0" * 100), max_pdf_bytes=50
    )
    with pytest.raises(FileTooLargeError):
        arxiv.fetch_pdf("2401.01234v1")


HTML = """<!DOCTYPE html><html><head><title>A Paper Title</title><style>x{}</style></head>
<body><nav class="ltx_page_navbar">Contents</nav><article class="ltx_document">
<h1 class="ltx_title">A Paper Title</h1>
<div class="ltx_abstract"><h6>Abstract</h6><p>We study <math alttext="x^2"><mi>x</mi></math>
 things.</p></div>
<section><h2>1 Introduction</h2><p>First&nbsp;paragraph.</p>
<ul><li>point one</li><li>point two</li></ul>
<section><h3>1.1 Detail</h3><p>Deeper.</p></section></section>
<figure><img src="a.png"/><figcaption>Figure 1: A plot.</figcaption></figure>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
</article><footer>arXiv footer</footer><script>alert(1)</script></body></html>"""


def test_html_to_markdown() -> None:
    title, markdown = html_to_markdown(HTML)
    assert title == "A Paper Title"
    assert "# A Paper Title" in markdown
    assert "## 1 Introduction" in markdown and "### 1.1 Detail" in markdown
    assert "We study $x^2$ things." in markdown
    assert "- point one" in markdown and "First paragraph." in markdown
    assert "Figure 1: A plot." in markdown and "a | b" in markdown and "1 | 2" in markdown
    for chrome in ("Contents", "arXiv footer", "alert", "x{}"):
        assert chrome not in markdown


def test_fetch_html_and_missing_html() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/html/2401.01234v1":
            return httpx.Response(200, text=HTML, headers={"Content-Type": "text/html"})
        return httpx.Response(404, text="No HTML for this paper")

    arxiv = client(handler)
    full = arxiv.fetch_html("arxiv:2401.01234v1")
    assert full.format == "html" and full.markdown and "## 1 Introduction" in full.markdown
    with pytest.raises(FormatUnavailableError) as info:
        arxiv.fetch_html("2401.05555v1")
    assert info.value.code == "format_unavailable"


def oai_page(sets: list[tuple[str, str]], token: str | None) -> bytes:
    body = "".join(f"<set><setSpec>{s}</setSpec><setName>{n}</setName></set>" for s, n in sets)
    tok = (
        f'<resumptionToken cursor="0">{token}</resumptionToken>'
        if token
        else "<resumptionToken/>"
        if token == ""
        else ""
    )
    return (
        '<?xml version="1.0"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
        f'<request verb="ListSets">x</request><ListSets>{body}{tok}</ListSets></OAI-PMH>'
    ).encode()


def test_list_categories_follows_resumption_token() -> None:
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        params = dict(request.url.params)
        seen.append(params)
        if "resumptionToken" not in params:
            return httpx.Response(
                200,
                content=oai_page(
                    [("cs", "Computer Science"), ("cs:cs:AI", "Artificial Intelligence")], "tok1"
                ),
            )
        return httpx.Response(
            200, content=oai_page([("physics:hep-th", "High Energy Physics - Theory")], "")
        )

    categories = client(handler).list_categories()
    assert [c.category for c in categories] == ["cs", "cs.AI", "hep-th"]
    assert categories[1].to_dict() == {
        "spec": "cs:cs:AI",
        "name": "Artificial Intelligence",
        "category": "cs.AI",
    }
    assert seen == [{"verb": "ListSets"}, {"verb": "ListSets", "resumptionToken": "tok1"}]


def test_oai_error_and_malformed() -> None:
    error = (
        b'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
        b'<error code="badVerb">Illegal verb</error></OAI-PMH>'
    )
    with pytest.raises(ProviderUnavailableError, match="badVerb"):
        parse_list_sets(error)
    with pytest.raises(ProviderUnavailableError):
        client(lambda r: httpx.Response(200, text="not xml")).list_categories()


def test_list_top_n_with_every_category_and_its_cap() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=feed(entry("2402.00001v1")))

    client(handler).list_top_n(["cs.CL", "cs.LG", "cs.CL"], 5, ["cs.CV", "cs.CV"], match_all=True)
    assert seen[0].url.params["search_query"] == "(cat:cs.CL AND cat:cs.LG) ANDNOT cat:cs.CV"
    with pytest.raises(InvalidRequestError, match="2000"):
        client(never).list_top_n(["cs.CL"], 2001)


def test_affiliations_and_a_mixed_batch() -> None:
    affiliated = entry("2401.01234v3").replace(
        "<author><name>Ada Lovelace</name></author>",
        "<author><name>Ada Lovelace</name><arxiv:affiliation>Analytical Society"
        "</arxiv:affiliation></author>",
    )
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.params["id_list"])
        return httpx.Response(200, content=feed(affiliated))

    works, missing = client(handler).fetch_metadata_report(["2401.01234", "abc", "0808.05394"])
    assert works[0].extra["affiliations"] == ["Analytical Society", None]
    assert missing == ["abc", "0808.05394"]  # as given; "abc" was never sent to arXiv
    assert seen == ["2401.01234,0808.05394"]
