"""A small library with a collection and an alert whose last run stored ranked candidates,
for the tests of where alerts are read (the feed route, the Alerts page, the digest).

The candidates come from a JSONL file (no network); two carry arXiv ids the web tests'
loopback arXiv (``interfaces.web.web_helpers.ProviderStub``) serves, so accepting one
fetches it for real."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

WORKS = [
    {
        "_id": f"fold{i}",
        "title": f"Protein folding study {i}",
        "text": "Protein backbones fold; diffusion models generate protein structures. " * 5,
    }
    for i in range(4)
] + [
    {
        "_id": f"ice{i}",
        "title": f"Glacier study {i}",
        "text": "Glacier moraine sediment records past climate in alpine valleys. " * 5,
    }
    for i in range(4)
]
CANDIDATES = [
    {
        "_id": "arxiv:2401.01234",
        "arxiv": "2401.01234",
        "title": "Denoising diffusion for protein backbones",
        "text": "We generate protein backbones with denoising diffusion models.",
    },
    {
        "_id": "arxiv:2305.00012",
        "arxiv": "2305.00012",
        "title": "Equivariant graph networks for molecules",
        "text": "Equivariant message passing over molecular graphs of atoms and proteins.",
    },
    {
        "_id": "doi:10.5555/moraine",
        "doi": "10.5555/moraine",
        "title": "Moraine sediments of alpine glaciers",
        "text": "Glacier moraine sediment in alpine valleys records climate.",
    },
]


def candidates_file(folder: Path) -> Path:
    path = folder / "candidates.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in CANDIDATES), encoding="utf-8")
    return path


def stock(
    library: Any,
    folder: Path,
    *,
    name: str = "folding",
    account: str | None = None,
    run: bool = True,
) -> dict[str, Any]:
    """The works, the collection "Folding" and the alert ``name`` over the candidates
    file, run once (its results stored) unless ``run`` is false."""
    if not library.list_works():
        library.import_records(WORKS)
        library.create_collection("Folding")
        library.add_to_collection("Folding", [w["_id"] for w in WORKS[:4]])
    path = candidates_file(folder)
    library.alerts_add(name, collection="Folding", sources=f"jsonl:{path}", account=account)
    if run:
        (report,) = library.alerts_run(name, account=account)
        assert report["ok"], report
    return library.alerts_show(name, account=account)
