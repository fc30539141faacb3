"""The linear HTML tokenizer: same tokens as html.parser on well-formed HTML, linear on junk."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prioris.sources.html_markdown import html_to_markdown
from prioris.sources.html_tokens import MAX_ATTRIBUTES, LinearHTMLParser
from work_bounds import cpu_growth

Token = tuple[str, object]


def _merge(tokens: list[Token]) -> list[Token]:
    """Adjacent text pieces as one (either parser may split a run of text)."""
    merged: list[Token] = []
    for kind, value in tokens:
        if kind == "data" and merged and merged[-1][0] == "data":
            merged[-1] = ("data", str(merged[-1][1]) + str(value))
        elif kind != "data" or value:
            merged.append((kind, value))
    return merged


class _Recorder:
    def __init__(self) -> None:
        self.tokens: list[Token] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tokens.append(("start", (tag, list(attrs))))

    def handle_endtag(self, tag: str) -> None:
        self.tokens.append(("end", tag))

    def handle_data(self, data: str) -> None:
        self.tokens.append(("data", data))


class StdlibRecorder(_Recorder, HTMLParser):
    def __init__(self) -> None:
        _Recorder.__init__(self)
        HTMLParser.__init__(self, convert_charrefs=True)


class LinearRecorder(_Recorder, LinearHTMLParser):
    def __init__(self) -> None:
        _Recorder.__init__(self)
        LinearHTMLParser.__init__(self)


def tokens(parser_cls: type, text: str) -> list[Token]:
    parser = parser_cls()
    parser.feed(text)
    parser.close()
    return _merge(parser.tokens)


# -- well-formed documents: both tokenizers must agree ----------------------------------
NAMES = st.sampled_from(["p", "div", "a", "span", "h2", "li", "td", "math", "section", "B"])
ATTR_NAMES = st.sampled_from(["class", "href", "alttext", "id", "data-x", "DISABLED"])
WORDS = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="<&\r\x00"), max_size=12
)
ENTITIES = st.sampled_from(["&amp;", "&lt;", "&gt;", "&quot;", "&#233;", "&#x3b1;", "&nbsp;"])
TEXT = st.lists(st.one_of(WORDS, ENTITIES), max_size=4).map("".join)


@st.composite
def attribute(draw: st.DrawFn) -> str:
    name = draw(ATTR_NAMES)
    form = draw(st.sampled_from(["bare", "double", "single", "unquoted"]))
    value = draw(TEXT)
    if form == "bare":
        return name
    if form == "double":
        return f'{name}="{value.replace(chr(34), "")}"'
    if form == "single":
        return f"{name}='{value.replace(chr(39), '')}'"
    return f"{name}={draw(st.from_regex(r'[a-z0-9.]{1,8}', fullmatch=True))}"


def element(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        name = draw(NAMES)
        attrs = draw(st.lists(attribute(), max_size=3))
        opening = f"<{name}{''.join(' ' + a for a in attrs)}>"
        inner = "".join(draw(st.lists(children, max_size=4)))
        return f"{opening}{inner}</{name}>"

    return build()


DOCUMENTS = st.recursive(
    st.one_of(
        TEXT,
        st.just("<br/>"),
        st.just("<!-- a comment -->"),
        st.just("<script>if (a < b && c) {}</script>"),
    ),
    element,
    max_leaves=25,
).map(lambda body: "<!DOCTYPE html><html><body>" + body + "</body></html>")


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS)
def test_same_tokens_as_the_stdlib_on_well_formed_html(document: str) -> None:
    assert tokens(LinearRecorder, document) == tokens(StdlibRecorder, document)


def test_known_cases() -> None:
    doc = (
        '<P CLASS="x&amp;y" hidden data-a=1>caf&eacute; &lt;b&gt;</P><br/>'
        "<style>p > a { }</style><!-- gone --><?pi x?><![CDATA[z]]>a < b</x>"
    )
    assert tokens(LinearRecorder, doc) == [
        ("start", ("p", [("class", "x&y"), ("hidden", None), ("data-a", "1")])),
        ("data", "café <b>"),
        ("end", "p"),
        ("start", ("br", [])),
        ("end", "br"),
        ("start", ("style", [])),
        ("data", "p > a { }"),
        ("end", "style"),
        ("data", "a < b"),
        ("end", "x"),
    ]


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ("<p>text<a href='never closed", [("start", ("p", [])), ("data", "text")]),
        ("<p>x<!-- never closed <b>bold</b>", [("start", ("p", [])), ("data", "x")]),
        ("a</p", [("data", "a")]),
        ("<script>never closed <p>", [("start", ("script", [])), ("data", "never closed <p>")]),
        ("<a <a <a", []),
        ("</ x>y<//>z</>w", [("data", "yzw")]),
        ("<!-->a<!--->b", [("data", "ab")]),
    ],
)
def test_unfinished_constructs_follow_the_html_standard(doc: str, expected: list) -> None:
    assert tokens(LinearRecorder, doc) == expected


def test_attributes_past_the_cap_are_skipped_not_misread() -> None:
    many = " ".join(f'a{i}="v>{i}"' for i in range(MAX_ATTRIBUTES + 50))
    found = tokens(LinearRecorder, f"<div {many}>text</div><br {many}/>")
    start, text, end, br, br_end = found
    assert start[0] == "start" and len(start[1][1]) == MAX_ATTRIBUTES
    assert start[1][1][-1] == (f"a{MAX_ATTRIBUTES - 1}", f"v>{MAX_ATTRIBUTES - 1}")
    assert (text, end) == (("data", "text"), ("end", "div"))
    assert br[0] == "start" and br_end == ("end", "br")  # "/>" still closes it


HOSTILE = {  # each built from a repeat count; the test runs it at 1/8 and at the full count
    "unclosed start tags": (lambda k: "<a " * k, 100_000),
    "unclosed attribute quote": (lambda k: "<a href='" + "x" * k, 300_000),
    "nested never closed": (lambda k: "<div>" * k + "</x>" * k, 60_000),
    "one huge row": (lambda k: "<table><tr>" + "<td>x" * k, 60_000),
    "stray end tags": (lambda k: "</p>" * k, 75_000),
    "comment openers": (lambda k: "<!--" * k, 75_000),
    "lone brackets": (lambda k: "< " * k, 150_000),
    "entity soup": (lambda k: "&amp" * k, 75_000),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_html_costs_linear_time(name: str) -> None:
    """~300 KB of each: the stdlib path took hours on the first (it re-scans to the end of
    the input from every ``<``, inside C). Eight times the input must cost about eight
    times the CPU, not sixty-four: the bound is loose on purpose (CPU time, not wall-clock,
    and the least of three runs), it only tells linear from quadratic."""
    build, full = HOSTILE[name]
    assert cpu_growth(lambda k: html_to_markdown(build(k)), full // 8, factor=8) < 24


def test_the_linear_time_check_catches_the_stdlib_parser() -> None:
    """The check above fails on what it guards against: html.parser on unclosed tags."""

    def stdlib(k: int) -> None:
        parser = HTMLParser()
        parser.feed("<a " * k)
        parser.close()

    assert cpu_growth(stdlib, 300, factor=8) > 24


def test_entities_and_markdown_unchanged_for_a_real_page() -> None:
    page = (
        "<html><head><title>T &amp; U</title></head><body><h2>Intro</h2>"
        "<p>Fish &amp; chips &#8212; <math alttext='x+1'><mi>x</mi></math> done.</p>"
        "<table><tr><td>a</td><td></td><td>c</td></tr></table></body></html>"
    )
    _, markdown = html_to_markdown(page)
    assert "## Intro" in markdown
    assert "Fish & chips — $x+1$ done." in markdown
    assert "a | | c" in markdown  # as before: an empty cell keeps its separator
