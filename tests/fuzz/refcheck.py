"""What every reference-file reader keeps, whatever the input: the invariant the BibTeX and
RIS fuzz targets check (tests/fuzz/test_fuzz_bibtex.py, test_fuzz_ris.py), and the LaTeX
and path fragments both build odd values from."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from prioris.errors import PriorisError
from prioris.refman.items import RefAttachment, RefError, RefItem
from prioris.text_clean import has_control

LATEX = st.sampled_from(
    [
        "{",
        "}",
        "\\",
        '{\\"o}',
        "\\'",
        "$",
        "$\\alpha$",
        "--",
        "~",
        "%",
        "#",
        "@",
        ",",
        "=",
        '"',
        "\\emph{",
        "\\href{x}",
        "\\url{",
        " and ",
        "others",
        "\\c",
        "{\\",
        "\x00",
        "\x1b",
        "\ud800",
        "\u00a0",
        "\u02c7c",
        ":",
        ";",
        "\\:",
        "/",
        "files/1/a.pdf",
        "C:\\",
        "file:///x",
        "https://doi.org/10.1/x",
        "arXiv:2401.01234",
    ]
)


def _clean(text: Any, what: str) -> None:
    assert isinstance(text, str), (what, text)
    assert not has_control(text) and "\x00" not in text, (what, text)


def _check_value(value: Any, what: str) -> None:
    if isinstance(value, str):
        _clean(value, what)
    elif isinstance(value, list):
        for element in value:
            _check_value(element, what)
    elif isinstance(value, dict):
        for key, element in value.items():
            _clean(key, what)
            _check_value(element, what)
    else:
        assert isinstance(value, int) and not isinstance(value, bool), (what, value)


def check_result(result: tuple[list[RefItem], list[RefError]] | PriorisError) -> None:
    """The invariant every read keeps (see the module text)."""
    if isinstance(result, PriorisError):
        return
    items, errors = result
    for item in items:
        assert isinstance(item, RefItem) and item.source in ("bibtex", "ris")
        _clean(item.key, "key")
        assert item.key
        assert isinstance(item.version, str) and item.version
        assert item.line is None or item.line >= 1
        for name, value in item.record.items():
            _check_value(value, name)
        year = item.record.get("year")
        assert year is None or 1000 <= year <= 2999
        for text in (*item.tags, *item.collections):
            _clean(text, "tag")
        for note in item.notes:
            _clean(note.text, "note")
        for attachment in item.attachments:
            assert isinstance(attachment, RefAttachment)
            _clean(attachment.key, "link")
            _clean(attachment.title, "link title")
            _clean(attachment.missing, "missing")
            assert (attachment.path is None) == bool(attachment.missing)
    for error in errors:
        assert isinstance(error, RefError) and error.error
        _clean(error.key, "error key")
        _clean(error.error, "error")
        assert error.line is None or error.line >= 1
