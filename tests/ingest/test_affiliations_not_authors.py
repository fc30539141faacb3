"""Affiliations are never taken as authors (issue 40): an institution's name looks like a
person's (two capitalised words), so the header parser tells them apart by the words of
organisations (``names._ORGANISATION`` and ``_NOT_NAME_WORDS``), by the affiliation cue
(``cues.AFFILIATION``) and by what follows the names on a byline. Each layer is checked
here on its own and through a whole first page."""

from __future__ import annotations

import pytest

from ingest.test_pdf_header import _line
from prioris.ingest.header.header import parse_header
from prioris.ingest.header.layout import HeaderPage
from prioris.ingest.header.names import looks_like_name, names_in_byline

AFFILIATIONS = [
    "Stanford University",
    "Google Research",
    "Microsoft Research Asia",
    "Max Planck Institute",
    "Tsinghua University",
    "University of Oxford",
    "Department of Physics",
    "Allen Institute",
    "Carnegie Mellon University",
    "Chinese Academy of Sciences",
    "Harvard Medical School",
    "Bell Labs",
    "Sorbonne Université",
    "Imperial College London",
    "Seoul National University",
    "NVIDIA Corporation",
    "Apple Inc",
    "IBM Research",
    "Technische Universität München",
    "Universidad de Chile",
    "Weizmann Institute of Science",
    "Los Alamos National Laboratory",
    "Cancer Center",
    "General Hospital",
    "Mayo Clinic",
    "Karolinska Institutet",
    "École Polytechnique",
    "Samsung Electronics",
    "Novartis Pharma",
    "Roche Diagnostics",
]


@pytest.mark.parametrize("text", AFFILIATIONS)
def test_an_institution_is_not_a_persons_name(text: str) -> None:
    assert not looks_like_name(text)


@pytest.mark.parametrize(
    ("byline", "names"),
    [
        ("Alice Smith, Bob Jones, Stanford University", ["Alice Smith", "Bob Jones"]),
        ("Alice Smith and Bob Jones, Mayo Clinic", ["Alice Smith", "Bob Jones"]),
        ("Alice Smith, Karolinska Institutet, alice@ki.se", ["Alice Smith"]),
        ("Ngozi Okafor, José Álvarez-Núñez", ["Ngozi Okafor", "José Álvarez-Núñez"]),
    ],
)
def test_what_follows_the_names_on_a_byline_is_their_affiliation(
    byline: str, names: list[str]
) -> None:
    assert names_in_byline(byline) == names


@pytest.mark.parametrize(
    "lines",
    [
        [("Alice Smith^1, Bob Jones^2", 1), ("^1Google Research", 2), ("^2Mayo Clinic", 3)],
        [("Alice Smith, Bob Jones", 1), ("Max Planck Institute for Biology", 1)],
        [("Alice Smith and Bob Jones", 1), ("Karolinska Institutet, Stockholm, Sweden", 2)],
        [("Alice Smith, Bob Jones", 1), ("Mayo Clinic, Rochester", 1)],
        [("Alice Smith, Bob Jones", 1), ("Department of Physics, Imperial College London", 1)],
        [("Alice Smith, Bob Jones", 1), ("Samsung Electronics", 1)],
    ],
)
def test_a_first_page_lists_only_the_people_as_authors(lines: list[tuple[str, int]]) -> None:
    page = HeaderPage(
        [
            _line("Sound Propagation in Shallow Reef Lagoons at Night", 60, 18, bold=True, block=0),
            *[_line(text, 100 + 12 * i, block=block) for i, (text, block) in enumerate(lines)],
            _line("Abstract", 200, 11, bold=True, block=8),
            _line("We listened to reefs at night and found that they are loud.", 215, block=9),
        ],
        width=612,
        height=792,
    )
    assert parse_header(page, body_size=10.0).authors == ["Alice Smith", "Bob Jones"]
