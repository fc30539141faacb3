"""PostgreSQL's accent folding: the fast path returns exactly what translate() gave."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prioris.engines.postgres.storage import PostgresStorage

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations" / "postgres"


def _table() -> tuple[str, str]:
    """The from- and to-letters of the first folding migration (0005)."""
    text = (MIGRATIONS / "0005_folded_fts.sql").read_text(encoding="utf-8")
    found = re.search(r"translate\(t,\s*'([^']*)',\s*'([^']*)'\)", text)
    assert found is not None
    return found.group(1), found.group(2)


@pytest.mark.parametrize(
    "text",
    [
        "plain ASCII text about peat bogs",
        "Ångström, café, naïve, Dvořák, Łódź? (no: Ł is not folded), Şişli, Nguyễn",
        "µ ± – “quotes” ∑ 日本語 and no accented letter at all",
        "",
        "é",
        "x" * 5000 + "é",
    ],
)
def test_the_fast_fold_equals_translate(pg_url: str, text: str) -> None:
    frm, to = _table()
    storage = PostgresStorage(pg_url)
    try:
        conn = storage.connect()
        folded, reference = conn.execute(
            "SELECT prioris_fold(?), translate(?, ?, ?)", (text, text, frm, to)
        ).fetchone()
        assert folded == reference
        conn.close()
    finally:
        storage.close()


def test_every_letter_of_the_table_is_folded(pg_url: str) -> None:
    frm, to = _table()
    storage = PostgresStorage(pg_url)
    try:
        conn = storage.connect()
        for letter, plain in zip(frm, to, strict=True):
            assert conn.execute("SELECT prioris_fold(?)", (letter,)).fetchone()[0] == plain
        conn.close()
    finally:
        storage.close()
