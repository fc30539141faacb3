"""The hostile-PDF corpus: every case ends as expected, within its CPU and memory bounds.

Each PDF is written by tests/hostile_pdfs.py and parsed in a fresh process, which reports
the outcome, the parse time, the CPU time of itself and of its children (the PDF parser
process, tesseract) and the peak resident memory of both (figures for all cases:
bench/bench_hostile_pdfs.py, docs/benchmarks.md). The bound is on CPU time, not wall-clock
time, which a loaded machine stretches; both bounds are generous, and what they catch is
the difference between seconds and minutes, megabytes and gigabytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hostile_pdfs import CASES, Case, run_case

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_pdf_ends_as_expected_within_bounds(case: Case, tmp_path: Path) -> None:
    result = run_case(case, tmp_path)
    assert result["outcome"] == case.expect, result
    assert case.match in result["message"], result
    assert result["cpu_seconds"] <= case.seconds, result
    assert result["parent_mb"] + result["parser_mb"] <= case.memory_mb, result
