"""A reference-manager entry never takes another stored work's identifier (issue 25).

The same guard as ``enrich``'s: an entry matched to one work that also names a second
stored work's identifier leaves that identifier with its owner, so deleting the second
work and importing it again stores it as itself, not merged into the first."""

from __future__ import annotations

from prioris.library import Library

FIRST = """
@article{first, title = {Peat bog carbon budgets}, author = {Moss, Ann},
  year = {2020}, doi = {10.1234/peat.2020}}
"""
SECOND = """
@article{second, title = {Fen hydrology under drought}, author = {Reed, Ben},
  year = {2021}, eprint = {2101.00002}, archivePrefix = {arXiv}}
"""
# the first paper again, its entry now also naming the second paper's arXiv id
CLAIMING = """
@article{first, title = {Peat bog carbon budgets}, author = {Moss, Ann},
  year = {2020}, doi = {10.1234/peat.2020}, eprint = {2101.00002}, archivePrefix = {arXiv}}
"""


def _owner(library: Library, identifier: str) -> str | None:
    return library.resolve_work_id(identifier)


def test_an_entry_never_takes_another_works_identifier(library: Library) -> None:
    library.import_reference_text(FIRST, "bibtex")
    library.import_reference_text(SECOND, "bibtex")
    first = _owner(library, "doi:10.1234/peat.2020")
    second = _owner(library, "arxiv:2101.00002")
    assert first is not None and second is not None and first != second

    library.import_reference_text(CLAIMING, "bibtex")
    assert _owner(library, "doi:10.1234/peat.2020") == first
    assert _owner(library, "arxiv:2101.00002") == second  # still the second paper's
    owned = library.conn.execute(
        "SELECT count(*) FROM aliases WHERE work_id = ? AND alias LIKE 'arxiv:%'", (first,)
    ).fetchone()[0]
    assert owned == 0

    library.delete([second])
    report = library.import_reference_text(SECOND, "bibtex")
    again = _owner(library, "arxiv:2101.00002")
    assert again is not None and again != first  # stored as itself, not merged
    assert library.status()["works"] == 2, report
