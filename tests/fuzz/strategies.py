"""Hypothesis strategies shared by the fuzz targets: JSON values, odd text, record lines."""

from __future__ import annotations

import json

from hypothesis import strategies as st

# Text that tends to break things: controls, surrogates, combining marks, RTL, emoji, CJK,
# digits that are not ASCII ("²", "٣"), quotes and FTS5 syntax.
ODD = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "\ud800",
        "\udfff",
        "\u0301",
        "\u202e",
        "🧬",
        "中文",
        "²",
        "٣",
        '"',
        "'",
        "*",
        "(",
        ")",
        "NEAR",
        "AND",
        "NOT",
        "OR",
        "^",
        ":",
        "-",
        "+",
        "\\",
        "%",
        "\n",
        "\t",
        "title:",
        "{",
        "}",
        "[",
        "]",
    ]
)
TEXT = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(ODD, st.text(max_size=8)), max_size=12).map("".join),
    st.text(alphabet="abcdefghij ", min_size=1, max_size=30),
)
HUGE_INT = st.one_of(st.integers(-5, 3000), st.integers(-(10**30), 10**30))

JSON_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    HUGE_INT,
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
JSON_VALUE = st.recursive(
    JSON_SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = (
    "_id",
    "id",
    "title",
    "text",
    "abstract",
    "authors",
    "year",
    "venue",
    "source",
    "metadata",
)


@st.composite
def record(draw: st.DrawFn) -> dict[str, object]:
    """A record with the importer's fields, each right-typed or not."""
    good = {
        "_id": st.one_of(st.text(min_size=1, max_size=12), st.integers(0, 10**6)),
        "title": TEXT,
        "text": TEXT,
        "abstract": st.one_of(st.none(), TEXT),
        "authors": st.one_of(st.lists(TEXT, max_size=3), TEXT),
        "year": st.one_of(st.none(), st.integers(1, 9999), st.integers(1, 9999).map(str)),
        "venue": st.one_of(st.none(), TEXT),
        "source": st.one_of(st.none(), TEXT),
        "metadata": st.dictionaries(st.text(max_size=5), JSON_VALUE, max_size=3),
    }
    out: dict[str, object] = {}
    for name in draw(st.lists(st.sampled_from(FIELDS), unique=True, max_size=len(FIELDS))):
        strategy = good.get(name, good["_id"])
        out[name] = draw(st.one_of(strategy, JSON_VALUE) if draw(st.booleans()) else strategy)
    return out


LINE = st.one_of(
    record().map(lambda r: json.dumps(r, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    record().map(lambda r: json.dumps(r).encode()),
    JSON_VALUE.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=60).filter(lambda b: b"\n" not in b),
    st.sampled_from([b"[" * 5000, b"{" * 3000, b'{"_id": "x", "year": 1e400}', b"%PDF-1.7"]),
)
