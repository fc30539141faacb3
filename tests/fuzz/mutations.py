"""Hypothesis strategies that damage provider answers, and the invariant every parser keeps.

Three ways to break a seed document, from blunt to subtle:

* :func:`mutated_bytes`: flip, drop, duplicate or insert bytes (mostly yields malformed
  XML/JSON: the refusal paths);
* :func:`mutated_xml`: parse the seed and change the tree (odd text in any element, odd
  attributes, elements removed, duplicated, emptied or nested deep), then serialise: the
  document stays well-formed, so the code after parsing is what gets tested;
* :func:`mutated_json`: replace values anywhere in the tree by other JSON values of any
  type, or delete keys.

Seeds are the recorded answers in ``../shared/fixtures/api`` (tests skip when absent)
and small documents written here, so the suite always runs.
"""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import strategies as st

from prioris.errors import ERROR_CODES, PriorisError

T = TypeVar("T")

ODD_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            " ",
            "²",
            "٣٤",
            "２０２４",
            "-1",
            "0",
            "1e999",
            "NaN",
            "9" * 5000,  # past int()'s 4300-digit limit
            "2024-13-45T99:99:99Z",
            "http://arxiv.org/abs/",
            "http://arxiv.org/abs/2401.01234v1",
            "arXiv:../../etc",
            "10.",
            "PMC",
            "W",
            "https://openalex.org/",
            "\u202e\u0000\ufffe",
            "a\nb\tc",
        ]
    ),
)
ODD_BYTES = st.one_of(
    st.binary(max_size=16),
    st.sampled_from(
        [
            b"<",
            b">",
            b"&",
            b"&#0;",
            b"]]>",
            b"<!--",
            b'<!DOCTYPE x [<!ENTITY a "b">]>',
            b"\xff\xfe",
            b"\x00",
            b'"',
            b"{",
            b"[",
            b"}",
            b"null",
            b"-1e999",
            b"99999999999999999999999",
            "²".encode(),
        ]
    ),
)
JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=10**30, max_value=10**40),
        st.floats(allow_nan=False, allow_infinity=False),
        ODD_TEXT,
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(ODD_TEXT, children, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def mutated_bytes(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 6))):
        pos = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["flip", "drop", "insert", "duplicate", "truncate"]))
        if op == "flip" and pos < len(data):
            data[pos] ^= draw(st.integers(1, 255))
        elif op == "drop":
            del data[pos : pos + draw(st.integers(1, 64))]
        elif op == "insert":
            data[pos:pos] = draw(ODD_BYTES)
        elif op == "duplicate":
            piece = data[pos : pos + draw(st.integers(1, 256))]
            data[pos:pos] = piece * draw(st.integers(1, 4))
        elif op == "truncate":
            del data[pos:]
    return bytes(data)


@st.composite
def mutated_xml(draw: st.DrawFn, seed: bytes) -> bytes:
    root = ET.fromstring(seed)  # seeds are trusted, well-formed documents
    for _ in range(draw(st.integers(1, 6))):
        parents = {child: parent for parent in root.iter() for child in parent}
        node = draw(st.sampled_from(list(root.iter())))
        op = draw(st.sampled_from(["text", "tail", "attr", "remove", "dup", "empty", "nest"]))
        parent = parents.get(node)
        if op == "text":
            node.text = draw(ODD_TEXT)
        elif op == "tail":
            node.tail = draw(ODD_TEXT)
        elif op == "attr":
            names = [*node.attrib, "href", "term", "pub-id-type", "rel", "alttext"]
            node.set(draw(st.sampled_from(names)), draw(ODD_TEXT))
        elif op == "remove" and parent is not None:
            parent.remove(node)
        elif op == "dup" and parent is not None:
            parent.insert(list(parent).index(node), copy.deepcopy(node))
        elif op == "empty":
            node.clear()
        elif op == "nest":
            inner = node
            for _ in range(draw(st.integers(1, 300))):
                wrapper = ET.SubElement(inner, node.tag)
                inner = wrapper
            inner.text = draw(ODD_TEXT)
    try:
        return ET.tostring(root, encoding="utf-8")
    except (ValueError, TypeError):  # a value ElementTree itself cannot write
        return seed


def _slots(obj: Any) -> list[tuple[Any, Any]]:
    """(container, key) for every value in a JSON tree, iteratively."""
    found: list[tuple[Any, Any]] = []
    stack = [obj] if isinstance(obj, dict | list) else []
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            found.append((node, key))
            if isinstance(value, dict | list) and value:
                stack.append(value)
    return found


@st.composite
def mutated_json(draw: st.DrawFn, seed: Any) -> bytes:
    obj = copy.deepcopy(seed)
    for _ in range(draw(st.integers(1, 6))):
        slots = _slots(obj)
        if not slots:
            obj = draw(JSON_VALUES)
            continue
        container, key = draw(st.sampled_from(slots))
        if isinstance(container, dict) and draw(st.booleans()):
            del container[key]
        else:
            container[key] = draw(JSON_VALUES)
    return json.dumps(obj).encode()


def outcome(call: Callable[[], T]) -> T | PriorisError:
    """The result of ``call``, or the one PriorisError it raised; anything else escapes."""
    try:
        return call()
    except PriorisError as exc:
        assert exc.code in ERROR_CODES, exc.code
        assert isinstance(exc.message, str) and exc.message
        return exc


def check_work(work: Any) -> None:
    """A parsed work has the types every consumer relies on, and serialises to JSON."""
    assert isinstance(work.id, str) and work.id
    assert isinstance(work.title, str)
    assert all(isinstance(a, str) for a in work.authors)
    assert work.year is None or (isinstance(work.year, int) and not isinstance(work.year, bool))
    assert work.abstract is None or isinstance(work.abstract, str)
    assert work.venue is None or isinstance(work.venue, str)
    assert all(isinstance(a, str) for a in work.aliases)
    assert work.cited_by_count is None or isinstance(work.cited_by_count, int)
    json.dumps(work.to_dict())
