"""Alerts that run and remember, through the Library on SQLite and PostgreSQL, against
loopback providers answering with recorded replies (arXiv, Europe PMC; skipped without
../shared) and an RSS feed written from its documented format: add/list/show/remove; a
run stores ranked results with why and in_library; the next run asks from the last one;
a source failing half-way keeps the previous results and last run and names the source;
dismissals hide and push similar candidates down; accepting fetches through the real fetch
path; and in accounts mode an alert is its owner's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import InvalidRequestError, NotFoundError
from prioris.library import Library
from prioris.storage.transaction import immediate

from alert_world import RECORDS, RSS_ITEMS, Clock, World, providers, rss
from route_server import RouteServer

FIRST = "2026-03-02T09:00:00+00:00"
SECOND = "2026-03-03T09:00:00+00:00"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    with providers(tmp_path) as found:
        for name, value in found.env().items():
            monkeypatch.setenv(name, value)
        yield found


@pytest.fixture(params=["sqlite", "postgresql"])
def lib(request: pytest.FixtureRequest, data_dir: Path) -> Iterator[tuple[Library, Clock]]:
    if "world" in request.fixturenames:  # the providers' settings first
        request.getfixturevalue("world")
    settings = load_settings()
    if request.param == "postgresql":
        settings = settings.with_library(request.getfixturevalue("pg_url"))
    clock = Clock(FIRST)
    library = Library.open(settings, embedder=FakeEmbedder(), now=clock)
    summary = library.import_records(RECORDS)
    assert not summary.failed
    yield library, clock
    library.close()


def sources(world: World, *extra: str) -> str:
    return ",".join(
        ['arxiv:"testing"', 'europepmc:"cancer"', f"feed:{world.base}/feed.xml", *extra]
    )


def test_add_list_show_and_remove(lib: tuple[Library, Clock], world: World) -> None:
    library, _ = lib
    made = library.alerts_add("testing", collection="Software testing", sources=sources(world))
    assert made["collection"] == "Software testing" and made["last_run"] is None
    assert made["results"] == [] and made["sources"].startswith('arxiv:"testing",')
    searched = library.alerts_add("fuzz", search="fuzzing")
    assert searched["sources"] == 'search:"fuzzing"' and searched["collection"] is None
    listed = library.alerts_list()
    assert [a["name"] for a in listed] == ["fuzz", "testing"]
    assert {a["results"] for a in listed} == {0}
    with pytest.raises(InvalidRequestError, match="exists already"):
        library.alerts_add("testing", collection="Oncology", sources="arxiv:cs.LG")
    with pytest.raises(InvalidRequestError, match="one of them"):
        library.alerts_add("both", collection="Oncology", search="x", sources="arxiv:cs.LG")
    with pytest.raises(InvalidRequestError, match="needs --sources"):
        library.alerts_add("bare", collection="Oncology")
    with pytest.raises(NotFoundError, match="no collection 'Nope'"):
        library.alerts_add("nope", collection="Nope", sources="arxiv:cs.LG")
    with pytest.raises(InvalidRequestError, match="unknown kind"):
        library.alerts_add("bad", collection="Oncology", sources="gopher:x")
    with pytest.raises(InvalidRequestError, match="alert name"):
        library.alerts_add("no spaces", collection="Oncology", sources="arxiv:cs.LG")
    assert library.alerts_remove("fuzz") == {"removed": "fuzz"}
    assert [a["name"] for a in library.alerts_list()] == ["testing"]
    with pytest.raises(NotFoundError, match="no alert 'fuzz'"):
        library.alerts_show("fuzz")


def test_a_run_stores_ranked_results_then_asks_from_the_last_run(
    lib: tuple[Library, Clock], world: World
) -> None:
    library, clock = lib
    library.alerts_add("testing", collection="Software testing", sources=sources(world))
    lines: list[str] = []
    (report,) = library.alerts_run("testing", on_progress=lines.append)
    assert report["ok"] and report["error"] is None and report["since"] is None
    assert report["last_run"] == FIRST and report["candidates"] == 10 + 25 + 2
    assert any("asking europepmc" in line for line in lines)
    shown = library.alerts_show("testing")
    results = shown["results"]
    assert shown["last_run"] == FIRST and len(results) == report["results"] == 37
    assert [r["place"] for r in results] == list(range(1, 38))
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    # the collection is software testing: its best candidates are arXiv's testing papers
    # and the feed's, never Europe PMC's cancer papers
    assert {r["source"] for r in results[:5]} <= {'arxiv:"testing"', f"feed:{world.base}/feed.xml"}
    assert results[-1]["source"] == 'europepmc:"cancer"' or results[0]["score"] > 0
    top = results[0]
    assert top["why"]["nearest"] and {n["id"] for n in top["why"]["nearest"]} <= {
        "t-mutation",
        "t-fuzz",
        "t-deep",
    }
    assert top["why"]["terms"] and top["text"] and top["identifiers"]
    by_id = {r["id"]: r for r in results}
    fuzz = by_id["arxiv:2005.14124v2"]  # the library holds it (same title and year)
    assert fuzz["in_library"] is True and fuzz["url"]
    assert sum(r["in_library"] for r in results) == 1
    feed_items = [r for r in results if r["source"].startswith("feed:")]
    assert {r["url"] for r in feed_items} == {
        "https://feeds.test/items/1",
        "https://feeds.test/items/2",
    }
    assert "doi:10.1101/2026.03.02.000001" in {i for r in feed_items for i in r["identifiers"]}

    clock.moment = SECOND
    asked_before = len(world.asked("/rest/search"))
    (again,) = library.alerts_run("testing")
    assert again["ok"] and again["since"] == FIRST and again["last_run"] == SECOND
    sent = world.asked("/rest/search")[asked_before]
    assert "FIRST_PDATE:[2026-03-02 TO " in sent["query"]  # from the last run's day
    # only the feed's item of 2 March 10:00 is newer than the first run (09:00)
    stored = library.alerts_show("testing")["results"]
    assert again["candidates"] == 1 and [r["title"] for r in stored] == [
        "Metamorphic testing of autonomous driving software"
    ]
    (forced,) = library.alerts_run("testing", since="2025-12-01")
    assert forced["since"] == "2025-12-01"
    assert "FIRST_PDATE:[2025-12-01 TO " in world.asked("/rest/search")[-2]["query"]


@pytest.mark.parametrize("broken", ["broken.xml", "garbled.xml"])
def test_a_source_failing_half_way_keeps_the_previous_results(
    lib: tuple[Library, Clock], world: World, broken: str
) -> None:
    library, clock = lib
    library.alerts_add("onco", collection="Oncology", sources='europepmc:"cancer"')
    (first,) = library.alerts_run("onco")
    assert first["ok"]
    before = library.alerts_show("onco")
    # the alert now also reads a feed that fails, after Europe PMC answered
    with library.lock, immediate(library.conn):
        library.conn.execute(
            "UPDATE alerts SET sources = ? WHERE name = ?",
            (f'europepmc:"cancer",feed:{world.base}/{broken}', "onco"),
        )
    clock.moment = SECOND
    asked = len(world.asked("/rest/search"))
    (report,) = library.alerts_run("onco")
    assert len(world.asked("/rest/search")) > asked  # the first source was asked
    assert report["ok"] is False and report["last_run"] == FIRST
    error = report["error"]
    assert error["source"] == f"feed:{world.base}/{broken}"
    assert error["code"] in {"provider_unavailable", "parse_error"}
    assert broken in error["message"]
    after = library.alerts_show("onco")
    assert after["results"] == before["results"] and after["last_run"] == FIRST
    assert after["last_error"] == error
    listed = library.alerts_list()[0]
    assert listed["last_error"]["source"] == error["source"]


def test_dismissed_candidates_never_return_and_pull_similar_ones_down(
    lib: tuple[Library, Clock], tmp_path: Path
) -> None:
    library, _ = lib
    pool = [
        {"_id": "c-mut", "title": "Mutation testing at scale", "text": "mutants and test suites"},
        {
            "_id": "c-gui",
            "title": "GUI testing of mobile apps with record and replay scripts",
            "text": "record and replay of GUI test scripts on mobile apps",
        },
        {
            "_id": "c-gui2",
            "title": "Replay scripts for GUI testing on mobile devices",
            "text": "GUI test scripts record and replay on mobile devices",
        },
        {"_id": "c-fuzz", "title": "Grammar-based fuzzing", "text": "fuzzing test generation"},
    ]
    file = tmp_path / "pool.jsonl"
    file.write_text("".join(json.dumps(r) + "\n" for r in pool))
    library.alerts_add("t", collection="Software testing", sources=f"jsonl:{file}")
    library.alerts_run("t")
    before = {r["id"]: r for r in library.alerts_show("t")["results"]}
    assert library.alerts_dismiss("t", "c-gui") == {"alert": "t", "dismissed": "c-gui"}
    shown = library.alerts_show("t")
    assert "c-gui" not in {r["id"] for r in shown["results"]} and shown["dismissed"] == ["c-gui"]
    library.alerts_run("t")  # the file still offers it: it stays hidden
    after = {r["id"]: r for r in library.alerts_show("t")["results"]}
    assert "c-gui" not in after and set(after) == {"c-mut", "c-gui2", "c-fuzz"}
    # its near twin, a negative's neighbour now, scores lower than it did
    assert after["c-gui2"]["score"] < before["c-gui2"]["score"]
    with pytest.raises(NotFoundError, match="no candidate 'c-gui'"):
        library.alerts_dismiss("t", "c-gui")


def test_accept_fetches_through_the_fetch_path(lib: tuple[Library, Clock], world: World) -> None:
    library, _ = lib
    library.alerts_add("testing", collection="Software testing", sources='arxiv:"testing"')
    library.alerts_run("testing")
    done = library.alerts_accept("testing", "arxiv:2202.12139v1")
    assert done["accepted"] == "arxiv:2202.12139v1" and done["status"] == "ingested"
    work = library.get_work(library.resolve_work_id("arxiv:2202.12139"))
    assert work.title.startswith("Testing Deep Learning Models")
    assert any(p.startswith("/pdf/2202.12139v1") for p in world.server.paths)
    shown = library.alerts_show("testing")
    assert shown["accepted"] == ["arxiv:2202.12139v1"]
    assert {r["id"]: r["in_library"] for r in shown["results"]}["arxiv:2202.12139v1"] is True
    # a candidate with nothing to fetch by is refused, and nothing is remembered
    with library.lock, immediate(library.conn):
        library.conn.execute(
            "UPDATE alert_results SET candidate = 'plain', identifiers = '[]' "
            "WHERE alert = 'testing' AND candidate = 'arxiv:1205.1866v1'"
        )
    with pytest.raises(InvalidRequestError, match="no identifier Prioris can fetch"):
        library.alerts_accept("testing", "plain")
    assert library.alerts_show("testing")["accepted"] == ["arxiv:2202.12139v1"]


def test_in_accounts_mode_an_alert_is_its_owners(lib: tuple[Library, Clock], world: World) -> None:
    library, _ = lib
    library.add_account("ann", "writer")
    library.add_account("bob", "writer")
    library.add_account("root", "admin")
    library.alerts_add("anns", collection="Oncology", sources='europepmc:"cancer"', account="ann")
    assert library.alerts_show("anns", account="ann")["owner"] == "ann"
    assert library.alerts_list(account="bob") == []
    assert [a["name"] for a in library.alerts_list(account="root")] == ["anns"]
    assert [a["name"] for a in library.alerts_list()] == ["anns"]  # the local user
    for call in (
        lambda: library.alerts_show("anns", account="bob"),
        lambda: library.alerts_run("anns", account="bob"),
        lambda: library.alerts_remove("anns", account="bob"),
        lambda: library.alerts_feed("anns", account="bob"),
    ):
        with pytest.raises(NotFoundError, match="no alert 'anns'"):
            call()
    assert library.alerts_run(account="bob") == []  # every alert bob sees: none
    (report,) = library.alerts_run("anns", account="root")
    assert report["ok"]
    # an account's file sources must lie in the server's import folders
    with pytest.raises(NotFoundError, match="import folders"):
        library.alerts_add(
            "file", collection="Oncology", sources="jsonl:/etc/passwd", account="ann"
        )


def feed_of(library: Library, name: str) -> Any:
    import feedparser

    return feedparser.parse(library.alerts_feed(name))


def test_the_feed_of_stored_results_parses(lib: tuple[Library, Clock], world: World) -> None:
    library, _ = lib
    library.alerts_add("testing", collection="Software testing", sources=sources(world))
    empty = feed_of(library, "testing")
    assert not empty.bozo and empty.entries == []
    library.alerts_run("testing", k=5)
    parsed = feed_of(library, "testing")
    results = library.alerts_show("testing")["results"]
    assert not parsed.bozo and parsed.version == "atom10"
    assert parsed.feed.title == "Prioris alerts: testing"
    assert [e.title for e in parsed.entries] == [r["title"] for r in results]
    assert parsed.entries[0].link == results[0]["url"]
    assert "Near:" in parsed.entries[0].summary


def test_migrate_to_carries_the_alerts(pg_url: str, tmp_path: Path, world: World) -> None:
    from prioris.library import migrate_library

    source = load_settings().with_library(tmp_path / "source.sqlite")  # the loopback providers
    with Library.open(source, embedder=FakeEmbedder(), now=Clock(FIRST)) as library:
        library.import_records(RECORDS)
        library.alerts_add("onco", collection="Oncology", sources='europepmc:"cancer"')
        assert library.alerts_run("onco", k=5)[0]["ok"]
        library.alerts_dismiss("onco", library.alerts_show("onco")["results"][0]["id"])
        before = library.alerts_show("onco")
    migrate_library(source, pg_url)
    migrate_library(source, pg_url)  # resumed: nothing twice
    with Library.open(load_settings({}).with_library(pg_url), embedder=FakeEmbedder()) as copy:
        assert copy.alerts_show("onco") == before
        assert len(before["results"]) == 4 and len(before["dismissed"]) == 1


def test_without_recorded_replies_a_failing_feed_keeps_the_results(
    lib: tuple[Library, Clock], tmp_path: Path
) -> None:
    """The same promise on a feed and a file alone (runs without ../shared): the RSS feed
    answers, then answers 500 after the file source was read."""
    library, clock = lib
    file = tmp_path / "pool.jsonl"
    file.write_text(json.dumps({"_id": "c-1", "title": "Fuzzing compilers", "text": "fuzz"}))
    answers = {"status": 200}

    def feed(_path: str) -> tuple[int, dict[str, str], bytes]:
        return answers["status"], {"Content-Type": "application/rss+xml"}, rss(RSS_ITEMS)

    with RouteServer({"/feed.xml": feed}) as server:
        spec = f"jsonl:{file},feed:{server.base}/feed.xml"
        library.alerts_add("t", collection="Software testing", sources=spec)
        (first,) = library.alerts_run("t")
        assert first["ok"] and first["candidates"] == 3
        before = library.alerts_show("t")
        answers["status"] = 500
        clock.moment = SECOND
        (failed,) = library.alerts_run("t")
    assert failed["ok"] is False and failed["error"]["source"] == f"feed:{server.base}/feed.xml"
    assert failed["error"]["code"] == "provider_unavailable"
    after = library.alerts_show("t")
    assert after["results"] == before["results"] and after["last_run"] == FIRST
