"""The tests' Dask cluster: one ``LocalCluster`` for the whole session (starting one costs
seconds), two worker processes bound to 127.0.0.1; a library reaches it through the
``cluster`` setting (``tcp://127.0.0.1:PORT``), as ``prioris ingest --cluster`` would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[Any]:
    """The session's LocalCluster (skips when Dask is not installed)."""
    try:
        from distributed import LocalCluster
    except ImportError:
        pytest.skip("distributed ingest needs Dask: pip install -e '.[dev]' (or '.[cluster]')")
    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def dask_client(dask_cluster: Any) -> Iterator[Any]:
    """A client of the session's cluster, for a test to look at (and kill) its workers."""
    from distributed import Client

    client = Client(dask_cluster)
    try:
        yield client
    finally:
        client.close()
