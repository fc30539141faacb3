"""Imported text: cleaned in linear time and bounded as edits are (issue 40).

Linearity is shown without a clock: each input below is one that a cleaner taking time
in the square of its length (a backtracking regular expression, ``html.parser`` on
unclosed constructs, a value grown by concatenation) needs tens of minutes for, at
200,000 to 500,000 characters; the child process that cleans them all has 60 seconds of
CPU (``RLIMIT_CPU``: the kernel stops it past that), which a linear pass needs well
under a second of. So the test passes only if every cleaner is linear, whatever the
machine's load, and no wall-clock time is measured. The outputs are checked too.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import prioris.embedding
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import InvalidRequestError
from prioris.interfaces.cli import main
from prioris.provenance import MAX_TEXT, validate_patch
from prioris.refman.html_text import html_to_text
from prioris.refman.items import RefItem, RefNote

from conftest import start_library

CPU_SECONDS = 60

_CHILD = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_CPU, ({cpu}, {cpu}))
    from prioris.refman.bibtex import parse_bibtex
    from prioris.refman.html_text import html_to_text
    from prioris.refman.ris import parse_ris
    from prioris.text_clean import clean_text

    nowhere = Path("/nonexistent-prioris-test")

    def bib(text):
        items, errors = parse_bibtex(text, base=nowhere, roots=(), encoding="utf-8")
        return items[0]

    def ris(text):
        items, errors = parse_ris(text, base=nowhere, roots=(), encoding="utf-8")
        return items[0]

    out = {{}}
    # a Zotero note: unclosed quoted attributes, unclosed comments
    out["note_quotes"] = html_to_text("<p>kept</p>" + "<a x='" * 200_000)
    out["note_comments"] = html_to_text("<p>kept</p>" + "<!--" * 300_000)
    out["note_tags"] = len(html_to_text("<b>w</b> " * 200_000))
    # BibTeX: an annote of unclosed tags, a note of one long word, a JabRef directory
    # comment of spaces, a keyword list of distinct words
    out["annote"] = [n.text for n in bib(
        "@misc{{k, title={{T}}, annote={{kept " + "<a" * 300_000 + "}}}}\\n").notes]
    out["arxiv_word"] = bib(
        "@misc{{k, title={{T}}, note={{" + "arxiv" * 200_000 + "}}}}\\n").record.get("arxiv")
    bib("@misc{{k, title={{T}}}}\\n@comment{{jabref-meta: fileDirectory:"
        + " " * 500_000 + "x}}\\n")
    out["keywords"] = len(bib("@misc{{k, title={{T}}, keywords={{"
        + ",".join(f"w{{i}}" for i in range(100_000)) + "}}}}\\n").record["keywords"])
    # RIS: a note continued over 300,000 lines, a note of unclosed tags
    out["ris_lines"] = len(ris("TY  - JOUR\\nTI  - T\\nN1  - x\\n" + "word word\\n" * 300_000
        + "ER  - \\n").notes[0].text)
    out["ris_tags"] = [n.text for n in ris(
        "TY  - JOUR\\nTI  - T\\nN1  - kept " + "<a" * 300_000 + "\\nER  - \\n").notes]
    # any imported text: a run of combining marks with no letter after it
    out["marks"] = len(clean_text("\\u0301" * 500_000 + "1"))
    print(json.dumps(out))
    """
)


def test_imported_text_is_cleaned_in_linear_time() -> None:
    child = subprocess.run(
        [sys.executable, "-c", _CHILD.format(cpu=CPU_SECONDS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == 0, (
        f"the cleaners did not finish within {CPU_SECONDS} s of CPU (a square-time "
        f"pass on a pathological input): {child.returncode} {child.stderr[-2000:]}"
    )
    out = json.loads(child.stdout)
    assert out["note_quotes"] == "kept"  # what follows an unclosed quote is no text
    assert out["note_comments"] == "kept"
    assert out["note_tags"] == len("w " * 200_000) - 1
    assert out["annote"] == ["kept"]
    assert out["arxiv_word"] in (None, "")
    assert out["keywords"] == 100_000
    assert out["ris_lines"] == len("x" + " word word" * 300_000)
    assert out["ris_tags"] == ["kept"]
    assert out["marks"] == 500_001


def test_notes_html_reads_as_zotero_writes_it() -> None:
    note = (
        '<div data-schema-version="9"><h1>Reading notes</h1>'
        "<p>Herons &amp; egrets feed at <b>dawn</b>,<br/>not at noon.</p>"
        "<ul><li>first point</li><li>second &lt;point&gt;</li></ul>"
        "<!-- an editor's comment --><script>alert(1)</script><style>p {}</style>"
        '<p><a href="https://example.org/?a=1&amp;b=2" title="x > y">a link</a> 3 < 4</p>'
        "<table><tr><td>cell one</td><td>cell two</td></tr></table></div>"
    )
    assert html_to_text(note).split("\n") == [
        "Reading notes",
        "Herons & egrets feed at dawn,",
        "not at noon.",
        "- first point",
        "- second <point>",
        "a link 3 < 4",
        "cell one cell two",
    ]
    from prioris.refman.html_text import strip_tags

    assert strip_tags("a <i>b</i> &amp; c", " ") == "a  b  & c"


@pytest.fixture
def _fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    monkeypatch.setenv("PRIORIS_MCP_OCR", "never")


@pytest.mark.usefixtures("_fake_model")
def test_an_imported_field_is_bounded_as_an_edit_is_and_the_cut_is_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with pytest.raises(InvalidRequestError):  # the bound an edit is held to
        validate_patch({"abstract": "w" * (MAX_TEXT + 1)})
    start_library()
    bib = tmp_path / "long.bib"
    title = "Long " + "word " * 40_000  # 200,005 characters
    bib.write_text(
        f"@article{{long2020, title = {{{title}}}, author = {{Ray, Ana}}, year = {{2020}},"
        f" abstract = {{{'sentence. ' * 30_000}}}}}\n"
        "@article{short2020, title = {A short title}, year = {2020}}\n",
        encoding="utf-8",
    )
    assert main(["import", str(bib)]) == 0
    out = capsys.readouterr().out
    assert "cut      long2020  title had 200004 characters; the first 100000 are kept" in out
    assert "cut      long2020  abstract had" in out
    assert main(["show", "bibtex:long2020", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["record"]
    assert len(record["title"]) <= MAX_TEXT and record["title"].startswith("Long word")
    assert len(record["abstract"]) <= MAX_TEXT
    # the work can be edited afterwards: what was stored is within the edit's bound
    assert main(["edit", "bibtex:long2020", "--abstract", record["abstract"]]) == 0
    capsys.readouterr()
    # a second import stores nothing again, so it cuts and says nothing again
    assert main(["import", str(bib), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["unchanged"], again["cut"]) == (2, [])


def test_lists_and_notes_are_bounded_too(library) -> None:
    from prioris.services.refsync.bounds import MAX_ENTRIES, MAX_NOTE_TEXT

    item = RefItem(
        source="zotero",
        key="MANY0001",
        record={
            "title": "A paper with a crowd of authors",
            "authors": [f"Author {n}" for n in range(MAX_ENTRIES + 5)],
            "year": 2024,
        },
        version="1",
        tags=tuple(f"tag{n}" for n in range(MAX_ENTRIES + 1)),
        notes=(RefNote("note", "n" * (MAX_NOTE_TEXT + 10), key="NOTE0001"),),
    )
    report = library.refsync.sync("zotero", [item])
    assert report.added == 1 and report.failed == []
    assert [(c["field"], c["length"], c["kept"], c["unit"]) for c in report.cut] == [
        ("authors", MAX_ENTRIES + 5, MAX_ENTRIES, "entries"),
        ("tags", MAX_ENTRIES + 1, MAX_ENTRIES, "entries"),
        ("notes[0].text", MAX_NOTE_TEXT + 10, MAX_NOTE_TEXT, "characters"),
    ]
    work = library.get_work("zotero:MANY0001")
    assert len(work.authors) == MAX_ENTRIES
    stored = library.conn.execute(
        "SELECT length(text) FROM work_notes WHERE work_id = ?", (work.id,)
    ).fetchone()[0]
    assert stored == MAX_NOTE_TEXT
    long_key = RefItem(source="zotero", key="K" * 1001, record={"title": "x"}, version="1")
    failed = library.refsync.sync("zotero", [long_key]).failed
    assert failed and "longer than 1000" in failed[0]["error"]
