"""The RIS reader (src/prioris/refman/ris.py) and the format dispatch
(src/prioris/refman/references.py) as targets for hostile .ris files.

What is promised: whatever the bytes, :func:`read_ris` and :func:`read_references` return
items and errors, or raise a PriorisError with a known code; never another exception
(rispy's own failures included). Every text returned is free of control characters
(:func:`fuzz.refcheck.check_result`, the same invariant as BibTeX's).

Inputs: a record in the forms Zotero, EndNote and Prioris write, mutated byte by byte;
records built from odd tags and values (continuation lines, tags without values, records
cut off, ``ER`` before ``TY``); random bytes, huge values and wrong encodings.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from fuzz.mutations import mutated_bytes, outcome
from fuzz.refcheck import LATEX, check_result
from fuzz.strategies import TEXT
from prioris.errors import PriorisError
from prioris.refman.references import read_references
from prioris.refman.ris import read_ris

SEED = b"""1.
TY  - JOUR
ID  - vaswani2017
TI  - Attention is all you need
  continued
AU  - Vaswani, Ashish
AU  - Doe, John, Jr.
A2  - Editor, Erin
T2  - Advances in Neural Information Processing Systems
DA  - 2017/12/04/
PY  - 2017///
VL  - 30
SP  - 5998
EP  - 6008
DO  - https://doi.org/10.5555/3295222.3295349
AB  - The dominant sequence transduction models
KW  - transformers
N1  - <p>My <strong>note</strong></p>
N1  - arXiv:1706.03762
UR  - https://papers.nips.cc/paper/7181
L1  - files/3/Vaswani - 2017.pdf
L1  - file:///home/me/x%20y.pdf
L1  - internal-pdf://1234/e.pdf
L2  - https://example.org/related
ER  -\x20

TY  - UNPB
AU  - Roe, R.
TI  - No id
ER  -\x20
TY  - BOOK
TI  - cut off
"""

TAGS = st.sampled_from(
    ["TY", "ER", "ID", "TI", "T1", "AU", "A1", "A2", "A4", "PY", "DA", "Y1", "SP", "EP", "DO",
     "UR", "L1", "L2", "L4", "KW", "N1", "AB", "N2", "JO", "T2", "JF", "VL", "IS", "PB", "LA",
     "XX", "12", "ty"]
)  # fmt: skip
VALUE = st.one_of(TEXT, st.lists(st.one_of(LATEX, TEXT), max_size=8).map("".join))


@st.composite
def records(draw: st.DrawFn) -> bytes:
    """Lines of odd tags and values, records opened and closed anywhere."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 30))):
        kind = draw(st.sampled_from(["tag", "tag", "tag", "open", "close", "free", "blank"]))
        if kind == "open":
            lines.append(f"TY  - {draw(st.sampled_from(['JOUR', 'BOOK', '', 'X', 'UNPB']))}")
        elif kind == "close":
            lines.append(draw(st.sampled_from(["ER  - ", "ER  -", "ER -", "ER"])))
        elif kind == "free":
            lines.append(draw(VALUE))
        elif kind == "blank":
            lines.append("")
        else:
            separator = draw(st.sampled_from(["  - ", "  -", " - ", "-", "  -  "]))
            lines.append(f"{draw(TAGS)}{separator}{draw(VALUE)}")
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    encoding = draw(st.sampled_from(["utf-8", "utf-16", "latin-1", "cp1252"]))
    return newline.join(lines).encode(encoding, errors="replace")


HUGE = st.builds(
    lambda n, piece: f"TY  - JOUR\nTI  - {piece * n}\nAU  - {'A, B' * n}\nER  - \n".encode(),
    st.integers(1000, 50000),
    st.sampled_from(["x", "\x00", "é", "{", "-"]),
)


def _read(tmp_path: Path, data: bytes, name: str = "fuzz.ris") -> object:
    path = tmp_path / name
    path.write_bytes(data)
    return outcome(lambda: read_ris(path) if name.endswith(".ris") else read_references(path))


def test_the_seed_reads(tmp_path: Path) -> None:
    """The seed exercises what it should: mutations start from a file that reads."""
    result = _read(tmp_path, SEED)
    assert not isinstance(result, PriorisError)
    items, errors = result  # type: ignore[misc]
    assert [i.key for i in items] == ["vaswani2017", items[1].key]
    assert items[1].key.startswith("ris:roe")
    assert [e.line for e in errors] == [31]  # TY  - BOOK, cut off
    check_result(result)  # type: ignore[arg-type]


@given(data=mutated_bytes(SEED))
@example(data=SEED)
@example(data=b"")
@example(data=b"TY  -")
@example(data=b"ER  - \nTY  - JOUR\n")
@example(data=b"TY  - JOUR\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00ER  - ")
@example(data=b"\xff\xfeT\x00Y\x00")
def test_mutated_records(tmp_path: Path, data: bytes) -> None:
    check_result(_read(tmp_path, data))  # type: ignore[arg-type]


@given(data=records())
def test_odd_records(tmp_path: Path, data: bytes) -> None:
    check_result(_read(tmp_path, data))  # type: ignore[arg-type]


@given(data=st.one_of(st.binary(max_size=2000), HUGE), name=st.sampled_from(["f.ris", "f.txt"]))
def test_random_bytes_huge_values_and_sniffing(tmp_path: Path, data: bytes, name: str) -> None:
    check_result(_read(tmp_path, data, name))  # type: ignore[arg-type]
