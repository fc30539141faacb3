"""Candidates read from files (JSONL, Atom, RSS; bad input named by line, oversized refused),
the library's works recognised by title and year, and a ranking written as Atom that a
real feed reader's parser (feedparser) reads back entry by entry."""

from __future__ import annotations

import json
from pathlib import Path

import feedparser
import pytest

from prioris.alerts import candidate_file
from prioris.alerts.atom import atom_feed
from prioris.alerts.candidate_file import read_candidates
from prioris.alerts.known import match_titles
from prioris.alerts.protocols import Candidate
from prioris.errors import InvalidRequestError, NotFoundError

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>bioRxiv: Ecology</title>
  <id>urn:example:feed</id>
  <updated>2026-03-02T00:00:00Z</updated>
  <entry>
    <title>Honey bee &lt;i&gt;foraging&lt;/i&gt; under heat</title>
    <id>https://doi.org/10.1101/2026.03.01.123456</id>
    <link rel="alternate" href="https://www.biorxiv.org/content/10.1101/2026.03.01.123456v1"/>
    <published>2026-03-01T08:00:00Z</published>
    <summary type="html">&lt;p&gt;Foragers &lt;b&gt;slow&lt;/b&gt; down when it is hot.&lt;/p&gt;
    </summary>
  </entry>
</feed>
"""
RSS = """<?xml version="1.0"?>
<rss version="2.0"><channel><title>Journal TOC</title>
  <item>
    <title>Coral bleaching in 2025</title>
    <link>https://arxiv.org/abs/2503.01234</link>
    <guid>tag:journal,2025:42</guid>
    <description>Reefs bleached again.</description>
    <pubDate>Tue, 04 Mar 2025 10:00:00 GMT</pubDate>
  </item>
</channel></rss>
"""


def test_jsonl_atom_and_rss_files(tmp_path: Path) -> None:
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text(
        json.dumps({"_id": "x1", "title": "A  title", "text": "body", "doi": "10.1/x"})
        + "\n\n"
        + json.dumps({"id": 7, "title": "Another", "abstract": "its abstract", "year": 2024})
        + "\n"
    )
    first, second = read_candidates(jsonl)
    assert (first.id, first.title, first.text, first.identifiers) == (
        "x1",
        "A title",
        "body",
        ("10.1/x",),
    )
    assert (second.id, second.text, second.published) == ("7", "its abstract", "2024")

    atom = tmp_path / "feed.atom"
    atom.write_text(ATOM)
    (entry,) = read_candidates(atom)
    assert entry.title == "Honey bee foraging under heat"
    assert entry.text == "Foragers slow down when it is hot."
    assert entry.published == "2026-03-01"
    assert "doi:10.1101/2026.03.01.123456" in entry.identifiers
    assert entry.extra["link"].startswith("https://www.biorxiv.org/")

    rss = tmp_path / "feed.rss"
    rss.write_text(RSS)
    (item,) = read_candidates(rss)
    assert (item.id, item.published) == ("tag:journal,2025:42", "2025-03-04")
    assert item.identifiers == ("arxiv:2503.01234",)


def test_bad_files_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"_id": "a", "title": "ok", "text": ""}\n{not json\n')
    with pytest.raises(InvalidRequestError, match=r"bad.jsonl:2: not JSON"):
        read_candidates(bad)
    bad.write_text('{"title": "no id"}\n')
    with pytest.raises(InvalidRequestError, match="_id"):
        read_candidates(bad)
    broken = tmp_path / "broken.xml"
    broken.write_text("<feed><entry>")
    with pytest.raises(InvalidRequestError, match="neither JSONL nor a readable feed"):
        read_candidates(broken)
    bomb = tmp_path / "bomb.xml"
    bomb.write_text(
        '<!DOCTYPE x [<!ENTITY a "aaaa">]>'
        "<rss><channel><item><title>&a;</title></item></channel></rss>"
    )
    with pytest.raises(InvalidRequestError):
        read_candidates(bomb)
    with pytest.raises(NotFoundError):
        read_candidates(tmp_path / "absent.jsonl")
    monkeypatch.setattr(candidate_file, "MAX_BYTES", 10)
    with pytest.raises(InvalidRequestError, match="at most 10"):
        read_candidates(bad)


def test_titles_match_the_library_fuzzily_within_a_year() -> None:
    library = [
        ("w1", "Waggle dance of honey bees: a review", 2024),
        ("w2", "Editorial", 2020),
        ("w3", "Coral reef bleaching across the Pacific", None),
    ]
    candidates = [
        Candidate("a", "Waggle Dance of Honey-Bees — A Review", published="2025-01-05"),
        Candidate("b", "Waggle dance of honey bees: a review", published="2019"),
        Candidate("c", "editorial", published="2020"),
        Candidate("d", "Editorials", published="2020"),
        Candidate("e", "Coral reef bleaching accross the Pacific."),
        Candidate("f", "Something else entirely", published="2024"),
    ]
    assert match_titles(library, candidates) == {"a": "w1", "c": "w2", "e": "w3"}


def test_the_atom_feed_reads_back_in_feedparser() -> None:
    ranked = [
        {
            "id": "https://doi.org/10.1101/1",
            "title": "Bees & <heat>",
            "score": 1.25,
            "why": {
                "nearest": [{"id": "b1", "title": "Waggle dance", "similarity": 0.8}],
                "terms": [{"term": "honey bee", "weight": 0.3}],
            },
            "in_library": False,
        },
        {"id": "plain-id", "title": "Second", "score": 0.5, "why": {}, "in_library": True},
    ]
    xml = atom_feed("Thesis / Bees", ranked, "2026-03-02T06:00:00Z")
    parsed = feedparser.parse(xml)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    assert parsed.feed.title == "Prioris alerts: Thesis / Bees"
    first, second = parsed.entries
    assert first.title == "Bees & <heat>" and first.link == "https://doi.org/10.1101/1"
    assert "Waggle dance" in first.summary and "honey bee" in first.summary
    assert (
        second.id.startswith("urn:prioris:alerts:") and "already in the library" in second.summary
    )
    assert parsed.entries[0].updated == "2026-03-02T06:00:00Z"
