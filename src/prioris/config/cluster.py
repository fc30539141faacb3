"""Where an ingest's compute runs: in the calling process, or on a Dask cluster (issue 38).

Separate because it is the one setting that sends work (the library's PDFs and records)
to other processes, possibly other machines: ``local:N`` starts N worker processes here,
``tcp://HOST:PORT`` names a running ``dask scheduler`` (docs/deploy.md, "Distributed
ingest"). The writes never leave the calling process.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from prioris.errors import ConfigurationError

_ADDRESS = re.compile(r"^(local:(\d+)|tcp://[^\s/:]+(:\d+)?)$")


@dataclass(frozen=True)
class ClusterSettings:
    """The Dask cluster ingest, import and reindex run their tasks on (None: here)."""

    cluster: str | None = None


def check_cluster(value: str, name: str = "PRIORIS_MCP_CLUSTER") -> str:
    """``local:N`` (1 to 256 worker processes) or ``tcp://HOST:PORT``, else a
    ConfigurationError naming ``name`` and what it takes."""
    value = value.strip()
    found = _ADDRESS.match(value)
    if found is not None and (found.group(2) is None or 1 <= int(found.group(2)) <= 256):
        return value
    raise ConfigurationError(
        f"{name} is {value!r}; it takes local:N (N Dask worker processes on this machine, "
        "1 to 256) or tcp://HOST:PORT (a running `dask scheduler`)"
    )


def cluster_settings(env: Mapping[str, str]) -> ClusterSettings:
    """The cluster setting from ``env`` (``PRIORIS_MCP_CLUSTER``)."""
    raw = (env.get("PRIORIS_MCP_CLUSTER") or "").strip()
    return ClusterSettings(cluster=check_cluster(raw) if raw else None)
