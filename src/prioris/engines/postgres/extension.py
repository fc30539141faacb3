"""The ``vector`` extension of a PostgreSQL library: present, new enough, on the path.

Prioris needs pgvector 0.8 or later: filtered searches use its iterative index scans
(:mod:`prioris.engines.postgres.search`). A database without the extension gets it
(``CREATE EXTENSION``) when the role may; one with an older version is updated
(``ALTER EXTENSION vector UPDATE``) when the server has 0.8 installed, else refused with
what to install; each connection registers the ``vector`` type with the driver.
"""

from __future__ import annotations

import re
from typing import Any

from prioris.engines.postgres.connection import redact
from prioris.errors import ConfigurationError

MIN_PGVECTOR = (0, 8)  # HNSW with iterative index scans (filtered KNN, search.py)
INSTALL_PGVECTOR = (
    "install pgvector 0.8 or later on the server (Debian/Ubuntu with the PGDG repository: "
    "apt install postgresql-16-pgvector; Docker: a current pgvector/pgvector image; see "
    "docs/deploy.md, Supported versions), then run CREATE EXTENSION vector in the database "
    "as its owner"
)


def register_vector_type(raw: Any, url: str) -> None:
    from pgvector.psycopg import register_vector

    try:
        register_vector(raw)
    except Exception as exc:  # psycopg.ProgrammingError: vector type not found
        raise ConfigurationError(
            f"the PostgreSQL library {redact(url)} has no vector type: {INSTALL_PGVECTOR}"
        ) from exc


def ensure_vector_extension(raw: Any, url: str) -> None:
    """``CREATE EXTENSION vector`` when it can; otherwise say how to get it."""
    import psycopg

    row = raw.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if row is None:
        available = raw.execute(
            "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
        if available is None:
            raise ConfigurationError(
                f"the PostgreSQL server of {redact(url)} does not have pgvector: {INSTALL_PGVECTOR}"
            )
        # in public when the library's path has it: libraries in other schemas of the same
        # database (search_path=theirs,public) then see the one extension too
        shared = raw.execute("SELECT 'public' = ANY(current_schemas(false))").fetchone()[0]
        try:
            raw.execute(
                f"CREATE EXTENSION IF NOT EXISTS vector{' SCHEMA public' if shared else ''}"
            )
        except psycopg.Error as exc:
            raise ConfigurationError(
                f"cannot create the vector extension in {redact(url)} "
                f"({str(exc).strip().splitlines()[0]}): {INSTALL_PGVECTOR}"
            ) from None
        row = raw.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if _version(row[0]) < MIN_PGVECTOR:
        _update_vector_extension(raw, url, str(row[0]))
    if raw.execute("SELECT to_regtype('vector') IS NULL").fetchone()[0]:
        schema = raw.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace"
            " WHERE e.extname = 'vector'"
        ).fetchone()[0]
        raise ConfigurationError(
            f"the vector extension of {redact(url)} is installed in schema {schema!r}, which "
            f"is not on this connection's search_path: add it to the URL (for example "
            f"options=-csearch_path%3Dyour_schema,{schema}) or move the extension with "
            f"ALTER EXTENSION vector SET SCHEMA public"
        )


def _version(text: object) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", str(text))[:2])


def _update_vector_extension(raw: Any, url: str, installed: str) -> None:
    """``ALTER EXTENSION vector UPDATE`` when the server has a new enough pgvector but the
    database still runs an older one; otherwise refuse, saying what to install."""
    import psycopg

    available = raw.execute(
        "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
    ).fetchone()
    if available is not None and _version(available[0]) >= MIN_PGVECTOR:
        try:
            raw.execute("ALTER EXTENSION vector UPDATE")
            return
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[0]
            raise ConfigurationError(
                f"{redact(url)} has pgvector {installed} and the server offers "
                f"{available[0]}, but ALTER EXTENSION vector UPDATE failed ({reason}): run it "
                "as the database's owner"
            ) from None
    raise ConfigurationError(
        f"{redact(url)} has pgvector {installed}, older than 0.8 (no iterative index scans: "
        f"filtered searches would lose results): {INSTALL_PGVECTOR}"
    )
