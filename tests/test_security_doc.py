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


def test_every_tool_and_routes_role_is_the_one_the_docs_table_gives() -> None:
    """The written-out table of tests/interfaces/roles_from_docs.py: each tool's and
    route's word is in the docs' row of its role, and permissions.py agrees entry by entry
    (the enforcement itself is checked in test_mcp_accounts.py and test_web_accounts.py)."""
    from interfaces.roles_from_docs import (
        MCP_ACTIONS,
        MCP_TOOLS,
        WEB_GETS_ABOVE_READER,
        WEB_POSTS,
        doc_rows,
    )
    from prioris.interfaces.permissions import (
        MCP_ACTION_ROLES,
        MCP_TOOL_ROLES,
        WEB_GET_ROLES,
        WEB_POST_ROLES,
    )

    rows = doc_rows()
    assert set(rows) == {"reader", "writer", "admin"}, rows
    for table in (MCP_TOOLS, WEB_POSTS, WEB_GETS_ABOVE_READER, *MCP_ACTIONS.values()):
        for name, (role, word) in table.items():
            if role != "none":
                assert word in rows[role], f"{name}: docs' {role} row does not say {word!r}"
    assert {k: r for k, (r, _) in MCP_TOOLS.items()} == MCP_TOOL_ROLES
    actions = {t: {a: r for a, (r, _) in acts.items()} for t, acts in MCP_ACTIONS.items()}
    assert actions == MCP_ACTION_ROLES
    assert {k: r for k, (r, _) in WEB_POSTS.items()} == WEB_POST_ROLES
    assert {k: r for k, (r, _) in WEB_GETS_ABOVE_READER.items()} == WEB_GET_ROLES
