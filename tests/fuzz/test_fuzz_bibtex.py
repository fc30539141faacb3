"""The BibTeX reader (src/prioris/refman/bibtex/) as a target for hostile .bib files.

What is promised: whatever the bytes, :func:`read_bibtex` returns items and errors, or
raises a PriorisError with a known code; never another exception. Every text it returns
(keys, record values, names, tags, collections, notes, file links and messages) is free
of control characters, every item has a line and a version, and every error a message.

Inputs: real-looking entries (every form the reader handles) mutated byte by byte, entries
built from odd text (control characters, NUL, lone surrogates, unbalanced braces, LaTeX
fragments), huge fields, random bytes, and bytes in the wrong encoding; plus the real
exports in ../shared/fixtures/bibtex mutated (skipped when absent).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from fuzz.mutations import mutated_bytes, outcome
from fuzz.refcheck import LATEX, check_result
from fuzz.strategies import TEXT
from prioris.errors import PriorisError
from prioris.refman.bibtex import read_bibtex
from prioris.refman.items import RefError, RefItem

from conftest import shared_path

SEED = rb"""% a comment
@string{jml = "Journal of Machine Learning"}
@article{schr2020,
  title = {{Schr{\"o}dinger's} {DNA} -- a \emph{test} $\alpha$ 50%},
  author = {M{\"u}ller, J{\"o}rg and {World Health Organization} and van der Berg, Jan and others},
  editor = {Doe, J.},
  journal = jml # { Letters},
  year = 2020, month = jul, day = {4},
  pages = {12--34}, volume = {3}, number = {2},
  doi = {https://doi.org/10.1000/ABC},
  keywords = {a, b; c},
  groups = {Thesis},
  annote = {<p>note &amp; more</p>},
  file = {Full Text PDF:files/12/x.pdf:application/pdf;:papers/a\: b\; c.pdf:PDF;/abs/y.pdf}
}

@misc{arx, title = {P}, eprint = {2401.01234v2}, archivePrefix = {arXiv}, date = {2024-01/2024-02}}
@book{dup, title = "One", title = "Two", annote = {x}, annote = {y}}
@article{broken, title = {unbalanced
@inproceedings{c, booktitle = {Proc.}, file = {:C\:\\Users\\me\\p.pdf:PDF}, pdf = {old.pdf}}
@article{schr2020, title = {duplicate key}}
"""

VALUE = st.one_of(TEXT, st.lists(st.one_of(LATEX, TEXT), max_size=10).map("".join))
FIELD_NAMES = st.sampled_from(
    [
        "title",
        "author",
        "editor",
        "journal",
        "booktitle",
        "year",
        "month",
        "day",
        "date",
        "pages",
        "doi",
        "url",
        "eprint",
        "archiveprefix",
        "keywords",
        "groups",
        "annote",
        "comment",
        "note",
        "file",
        "pdf",
        "abstract",
        "pmid",
        "pmcid",
        "number",
        "bdsk-file-1",
        "local-url",
        "x\x00y",
    ]
)


@st.composite
def entries(draw: st.DrawFn) -> bytes:
    """A .bib of entries whose types, keys, field names and values are odd text."""
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 5))):
        entry_type = draw(st.sampled_from(["article", "misc", "book", "inbook", "x", "", "@"]))
        key = draw(st.one_of(st.sampled_from(["k", "k", "", "a b", "é"]), TEXT))
        fields = []
        for _ in range(draw(st.integers(0, 6))):
            name = draw(FIELD_NAMES)
            value = draw(VALUE)
            opening, closing = draw(st.sampled_from([("{", "}"), ('"', '"'), ("", ""), ("{", "")]))
            fields.append(f"{name} = {opening}{value}{closing}")
        separator = draw(st.sampled_from([",\n", ",", "\n", ", "]))
        parts.append(f"@{entry_type}{{{key},{separator.join(fields)}}}")
    text = "\n".join(parts)
    encoding = draw(st.sampled_from(["utf-8", "utf-16", "latin-1", "cp1252"]))
    return text.encode(encoding, errors="replace")


HUGE = st.builds(
    lambda n, piece: (
        f"@article{{h, title = {{{piece * n}}}, author = {{{'A, B and ' * n}}}}}".encode()
    ),
    st.integers(1000, 20000),
    st.sampled_from(["x", "{", "\\'e", "\\emph{a}", "$", "a--b ", "\x00"]),
)


def _read(tmp_path: Path, data: bytes) -> tuple[list[RefItem], list[RefError]] | PriorisError:
    path = tmp_path / "fuzz.bib"
    path.write_bytes(data)
    return outcome(lambda: read_bibtex(path))


def test_the_seed_reads(tmp_path: Path) -> None:
    """The seed exercises what it should: mutations start from a file that reads."""
    result = _read(tmp_path, SEED)
    assert not isinstance(result, PriorisError)
    items, errors = result
    assert [i.key for i in items] == ["schr2020", "arx", "dup", "c"]
    assert [e.key for e in errors] == ["broken", "schr2020"]
    assert len(items[0].attachments) == 3 and items[0].record["venue"].endswith("Letters")
    check_result(result)


@given(data=mutated_bytes(SEED))
@example(data=SEED)
@example(data=b"")
@example(data=b"@")
@example(data=b"@article{")
@example(data=b"@article{k, title = {" + b"{" * 5000)
@example(data=b"\xef\xbb\xbf@article{k, title={\xff\xfe}}")
@example(data=b"\xff\xfe@\x00a\x00")
def test_mutated_entries(tmp_path: Path, data: bytes) -> None:
    check_result(_read(tmp_path, data))


@given(data=entries())
def test_odd_entries(tmp_path: Path, data: bytes) -> None:
    check_result(_read(tmp_path, data))


@given(data=st.one_of(st.binary(max_size=2000), HUGE))
def test_random_bytes_and_huge_fields(tmp_path: Path, data: bytes) -> None:
    check_result(_read(tmp_path, data))


@given(data=st.data())
def test_mutated_real_exports(tmp_path: Path, data: st.DataObject) -> None:
    folder = shared_path("fixtures", "bibtex")
    seeds = [
        folder / "ahmedthahir-bbt" / "My Library.bib",
        folder / "tabassam823-zotero-export" / "Exported Items" / "Exported Items.bib",
    ]
    seed = data.draw(st.sampled_from(seeds)).read_bytes()
    check_result(_read(tmp_path, data.draw(mutated_bytes(seed))))
