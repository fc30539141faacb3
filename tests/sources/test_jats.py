"""JATS -> Markdown on the recorded Europe PMC article and on hand-written documents."""

from __future__ import annotations

import pytest

from prioris.errors import ParseError
from prioris.sources.jats import jats_to_markdown
from prioris.sources.xml import parse_xml

from conftest import shared_path

ARTICLE = b"""<?xml version="1.0"?>
<article xmlns:mml="http://www.w3.org/1998/Math/MathML" xmlns:xlink="http://www.w3.org/1999/xlink">
<front><journal-meta><journal-title-group><journal-title>J Test</journal-title>
</journal-title-group></journal-meta><article-meta>
<article-id pub-id-type="pmid">111</article-id><article-id pub-id-type="pmc">222</article-id>
<article-id pub-id-type="doi">10.9/ABC</article-id>
<title-group><article-title>On <italic>things</italic></article-title></title-group>
<contrib-group><contrib contrib-type="author"><name><surname>Doe</surname>
<given-names>Jane</given-names></name></contrib></contrib-group>
<pub-date><year>2020</year></pub-date>
<abstract><sec><title>Background</title><p>Why.</p></sec><sec><title>Results</title>
<p>What.</p></sec></abstract>
<abstract abstract-type="graphical"><p>Ignore me.</p></abstract>
</article-meta></front>
<body><p>Lead paragraph.</p>
<sec><label>1</label><title>Methods</title><p>We used <inline-formula><tex-math>\\alpha + 1
</tex-math></inline-formula> and <inline-formula><mml:math alttext="x^2"><mml:mi>x</mml:mi>
</mml:math></inline-formula>.</p>
<sec><title>Data</title><p>Items:<list><list-item><p>one</p></list-item>
<list-item><p>two</p></list-item></list></p>
<disp-formula><tex-math>E=mc^2</tex-math></disp-formula></sec></sec>
<sec><title>Results</title><fig id="f1"><label>Figure 1</label><caption><p>A curve.</p></caption>
<graphic xlink:href="f1.jpg"/></fig>
<table-wrap><label>Table 1</label><caption><p>Numbers</p></caption><table><thead><tr><th>a</th>
<th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table></table-wrap></sec>
</body>
<back><ack><title>Acknowledgements</title><p>Thanks.</p></ack><ref-list><title>References</title>
<ref id="r1"><mixed-citation>Smith J. A mixed citation. 2001.</mixed-citation></ref>
<ref id="r2"><element-citation><person-group><name><surname>Lee</surname>
<given-names>K</given-names></name></person-group><article-title>Element title</article-title>
<source>Nature</source><year>1999</year><volume>5</volume><fpage>1</fpage><lpage>9</lpage>
<pub-id pub-id-type="doi">10.1/ref</pub-id></element-citation></ref></ref-list></back>
</article>"""


def test_written_article() -> None:
    doc = jats_to_markdown(ARTICLE)
    assert doc.title == "On things"
    assert (doc.doi, doc.pmid, doc.pmcid, doc.year, doc.journal) == (
        "10.9/abc",
        "111",
        "PMC222",
        2020,
        "J Test",
    )
    assert doc.authors == ["Jane Doe"]
    assert doc.abstract == "Why.\n\nWhat."
    blocks = doc.markdown.split("\n\n")
    assert blocks[:6] == [
        "# Abstract",
        "## Background",
        "Why.",
        "## Results",
        "What.",
        "Lead paragraph.",
    ]
    assert "# 1 Methods" in blocks and "## Data" in blocks and "# Results" in blocks
    assert "We used $\\alpha + 1$ and $x^2$ ." in blocks
    assert "Items:" in blocks and "- one" in blocks and "- two" in blocks
    assert "$E=mc^2$" in blocks
    assert "Figure 1: A curve." in blocks
    assert "Table 1: Numbers" in blocks and "a | b\n1 | 2" in blocks
    assert "# Acknowledgements" in blocks and "Thanks." in blocks
    assert "Ignore me." not in doc.markdown
    refs = doc.markdown.split("# References\n\n", 1)[1]
    assert refs.startswith("1. Smith J. A mixed citation. 2001.")
    assert "2. Lee K. (1999). Element title. Nature. 5. 1-9. doi:10.1/ref" in refs


def test_recorded_article() -> None:
    path = shared_path("fixtures", "api", "europepmc", "PMC3339582.xml")
    doc = jats_to_markdown(path.read_bytes())  # has a DOCTYPE line: tolerated, never loaded
    assert doc.title.startswith("Cloning, expression and characterization of l-asparaginase")
    assert doc.pmcid == "PMC3339582" and doc.doi == "10.1007/s13205-011-0003-y"
    assert len(doc.authors) == 4 and doc.year == 2011
    assert doc.abstract.startswith("l-Asparaginase (E.C. 3.5.1.1)")
    for heading in (
        "# Introduction",
        "# Materials and methods",
        "## Purification of WsA",
        "# Discussion",
        "# References",
    ):
        assert f"\n{heading}\n" in doc.markdown
    assert "Table 1: Purification of recombinant l-asparaginase" in doc.markdown
    assert doc.markdown.count("\n22. ") == 1  # 22 references, numbered


def test_hardening() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE article [<!ENTITY a "x">]>'
        b"<article><body><p>&a;</p></body></article>"
    )
    with pytest.raises(ParseError, match="refused"):
        jats_to_markdown(bomb)
    external = (
        b'<?xml version="1.0"?><!DOCTYPE article [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
        b"<article><body><p>&e;</p></body></article>"
    )
    with pytest.raises(ParseError):
        jats_to_markdown(external)
    with pytest.raises(ParseError, match="more than the limit"):
        jats_to_markdown(ARTICLE, max_bytes=100)
    with pytest.raises(ParseError, match="malformed"):
        jats_to_markdown(b"<article><body>")
    with pytest.raises(ParseError, match="not a JATS article"):
        jats_to_markdown(b"<html/>")
    with pytest.raises(ParseError, match="no abstract"):
        jats_to_markdown(b"<article><front/></article>")
    with pytest.raises(ParseError, match="empty"):
        parse_xml(b"  ")
