"""Where the library is and how its database is used: the data directory, the SQLite file
or PostgreSQL URL, the engines' tuning (pool, timeouts, postings and vector-copy
thresholds) and the Zotero directories read from disk.

Separate because these are the settings that pick and open a library (``db_url`` decides
the engine, ``library_location`` is what is opened): the first two fields, ``data_dir`` and
``db_path``, have no default and stay the first fields of :class:`~prioris.config.Settings`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from prioris.config.parsing import _integer
from prioris.errors import ConfigurationError

POSTGRES_URL_PREFIXES = ("postgresql://", "postgres://")


@dataclass(frozen=True)
class DatabaseSettings:
    """The library's location and its database engines' settings."""

    data_dir: Path
    db_path: Path
    # a postgresql:// library (PRIORIS_MCP_DB or --db as a URL; docs/postgres.md)
    db_url: str | None = None
    # plain FTS queries ranked from the BM25 postings sidecar (<library>.bm25) from this many
    # chunks on; 0 never builds it (docs/configuration.md)
    postings_min_chunks: int = 100_000
    pg_pool_size: int = 4
    pg_connect_timeout_seconds: int = 10
    pg_statement_timeout_seconds: int = 300
    # recall@10 0.71 against 0.51 at 100 on the realistic 1M corpus, for +4 ms a query
    # (docs/benchmarks.md section 10)
    pg_ef_search: int = 400
    # PostgreSQL ranks plain FTS queries from its BM25 postings table from this many chunks
    # on: BM25 in SQL costs ~150 ms at SciFact's 9,000 passages already (docs/benchmarks.md
    # section 10), where SQLite's FTS5 needs no help until 100,000; 0 never builds it
    pg_postings_min_chunks: int = 1_000
    # ... and answers KNN from an in-process copy of the vectors (exact, or compact with the
    # head rescored: recall@10 0.99) from this many: HNSW found 0.71 of the exact top 10 at
    # a million realistic passages (docs/benchmarks.md section 10); 0 never keeps one
    pg_vector_copy_min_chunks: int = 20_000
    # hot standbys of a postgresql:// library (PRIORIS_MCP_DB_REPLICAS, comma-separated
    # URLs): searches and reads go to one, writes to db_url (docs/deploy.md, "Past one
    # machine"); one lagging more than this many seconds behind is skipped
    db_replicas: tuple[str, ...] = ()
    db_replica_max_lag_seconds: int = 30
    # servers that each hold a share of the works with their passages and vectors
    # (PRIORIS_MCP_DB_SHARDS, comma-separated URLs; db_url keeps the library-wide tables:
    # docs/deploy.md, "Shards"), and what a search does when one is down: fail (naming
    # it) or answer from the others with a missing_shards warning (partial)
    db_shards: tuple[str, ...] = ()
    db_shard_missing: str = "fail"
    # a Zotero data directory (`prioris zotero sync`; default: Zotero's own, ~/Zotero) and
    # its base directory for linked attachments (Zotero's "Linked Attachment Base Directory")
    zotero_dir: Path | None = None
    zotero_base_dir: Path | None = None


def is_postgres_url(location: str) -> bool:
    """A library location that names a PostgreSQL database rather than an SQLite file."""
    return location.startswith(POSTGRES_URL_PREFIXES)


def postgres_urls(env: Mapping[str, str], name: str = "PRIORIS_MCP_DB_REPLICAS") -> tuple[str, ...]:
    """PRIORIS_MCP_DB_REPLICAS (or _SHARDS): postgresql:// URLs (the library opened beside
    them must be one too: :func:`prioris.engines.open_storage` checks, as ``--db`` may
    change it)."""
    raw = (env.get(name) or "").strip()
    # a comma starts the next URL only before its scheme: one URL may hold commas of its
    # own (libpq's multi-host "h1,h2", options=-csearch_path%3Da,public)
    urls = tuple(part.strip() for part in re.split(r",\s*(?=postgres(?:ql)?://)", raw))
    urls = tuple(url for url in urls if url)
    if not urls:
        return ()
    if any(not is_postgres_url(url) for url in urls):
        what = "hot standbys of" if name.endswith("REPLICAS") else "servers beside"
        raise ConfigurationError(
            f"{name} takes comma-separated postgresql:// URLs ({what} the library's server)"
        )
    if len(set(urls)) != len(urls):
        raise ConfigurationError(f"{name} names the same server twice")
    return urls


def _shard_missing(env: Mapping[str, str]) -> str:
    """PRIORIS_MCP_DB_SHARD_MISSING: ``fail`` (default) or ``partial``."""
    value = (env.get("PRIORIS_MCP_DB_SHARD_MISSING") or "fail").strip().lower()
    if value not in ("fail", "partial"):
        raise ConfigurationError(
            f"PRIORIS_MCP_DB_SHARD_MISSING is {value!r}; it takes fail (a search with a shard "
            "down fails, naming it) or partial (it answers from the others, saying which "
            "shards are missing)"
        )
    return value


def _default_data_dir(env: Mapping[str, str]) -> Path:
    xdg = env.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME", str(Path.home()))) / ".local" / "share"
    return base / "prioris"


def database_settings(env: Mapping[str, str]) -> DatabaseSettings:
    """The library's location (``PRIORIS_MCP_DATA_DIR``, ``PRIORIS_MCP_DB``), its engines'
    settings and the Zotero directories, from ``env``."""
    data_dir = Path(env.get("PRIORIS_MCP_DATA_DIR") or _default_data_dir(env)).expanduser()
    db_raw = (env.get("PRIORIS_MCP_DB") or "").strip()
    db_url = db_raw if is_postgres_url(db_raw) else None
    db_path = Path(db_raw if db_raw and not db_url else data_dir / "library.sqlite").expanduser()
    zotero_dir = (env.get("PRIORIS_MCP_ZOTERO_DIR") or "").strip()
    zotero_base = (env.get("PRIORIS_MCP_ZOTERO_BASE_DIR") or "").strip()
    d = DatabaseSettings
    return DatabaseSettings(
        data_dir=data_dir,
        db_path=db_path,
        db_url=db_url,
        postings_min_chunks=_integer(env, "PRIORIS_MCP_POSTINGS_MIN_CHUNKS", d.postings_min_chunks),
        pg_pool_size=_integer(env, "PRIORIS_MCP_PG_POOL_SIZE", d.pg_pool_size),
        pg_connect_timeout_seconds=_integer(
            env, "PRIORIS_MCP_PG_CONNECT_TIMEOUT_SECONDS", d.pg_connect_timeout_seconds
        ),
        pg_statement_timeout_seconds=_integer(
            env,
            "PRIORIS_MCP_PG_STATEMENT_TIMEOUT_SECONDS",
            d.pg_statement_timeout_seconds,
        ),
        pg_ef_search=_integer(env, "PRIORIS_MCP_PG_EF_SEARCH", d.pg_ef_search),
        pg_postings_min_chunks=_integer(
            env, "PRIORIS_MCP_PG_POSTINGS_MIN_CHUNKS", d.pg_postings_min_chunks
        ),
        pg_vector_copy_min_chunks=_integer(
            env, "PRIORIS_MCP_PG_VECTOR_COPY_MIN_CHUNKS", d.pg_vector_copy_min_chunks
        ),
        db_replicas=postgres_urls(env),
        db_replica_max_lag_seconds=_integer(
            env, "PRIORIS_MCP_DB_REPLICA_MAX_LAG_SECONDS", d.db_replica_max_lag_seconds
        ),
        db_shards=postgres_urls(env, "PRIORIS_MCP_DB_SHARDS"),
        db_shard_missing=_shard_missing(env),
        zotero_dir=Path(zotero_dir).expanduser() if zotero_dir else None,
        zotero_base_dir=Path(zotero_base).expanduser() if zotero_base else None,
    )
