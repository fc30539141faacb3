"""docs/security.md keeps the sections issue 25 asked for, each naming what guards it."""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "security.md"

SECTIONS = {  # heading -> words its text must keep (what a reader comes for)
    "Untrusted text in terminals": ["--json", "OSC"],
    "Secrets in PostgreSQL URLs": ["password"],
    "Identifiers stay with their owner": ["enrich", "reference manager"],
    "Caches beside the library, and what is trusted in them": [
        "postings",
        "symlink",
        "regular file",
    ],
    "Settings are bounded": ["configuration.md", "NUL"],
    "Fuzzing": ["make fuzz"],
}


def _sections() -> dict[str, str]:
    found: dict[str, str] = {}
    heading = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
            found[heading] = ""
        elif heading is not None:
            found[heading] += line + "\n"
    return found


def test_the_second_rounds_sections_are_there_and_say_what_they_are_for() -> None:
    sections = _sections()
    for heading, words in SECTIONS.items():
        assert heading in sections, f"docs/security.md lost its section {heading!r}"
        for word in words:
            assert word.lower() in sections[heading].lower(), (heading, word)
