"""A :class:`~prioris.ingest.tasks.TaskRunner` on a Dask cluster (issue 38).

``--cluster local:N`` starts a ``LocalCluster`` of N worker processes (one thread each)
bound to 127.0.0.1; ``--cluster tcp://HOST:PORT`` joins a running ``dask scheduler``
whose ``dask worker`` processes have the package (and the model's files). Tasks are
sent with ``client.submit(..., pure=False, retries=N)``:

- a worker that dies (killed, out of memory, its machine gone) loses nothing: the
  scheduler sends its tasks to another worker; the writes are never on a worker, so a
  task run twice is only computed twice, never written twice (the one writer commits
  each document once, keyed by its bytes' sha256);
- an expected failure (:class:`~prioris.errors.PriorisError`: a damaged PDF, a record
  that is not valid) is that item's outcome, returned as a value and raised again by
  ``done.result()`` here, so it is not retried: parsing a broken file N times would
  only say the same thing N times; anything else is retried ``retries`` times.

Dask is imported only when a runner is made, so ``prioris --help`` and every command
without ``--cluster`` never load it. The extra ``prioris[cluster]`` installs it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from prioris.config.cluster import check_cluster
from prioris.errors import ConfigurationError, IngestError, PriorisError

T = TypeVar("T")
R = TypeVar("R")

RETRIES = 3  # a task's retries after an unexpected exception (a lost worker is not one)
CONNECT_TIMEOUT_SECONDS = 30


def _run(fn: Callable[[T], R], item: T) -> tuple[bool, Any]:
    """On the worker: ``fn(item)``, an expected failure returned rather than raised."""
    try:
        return True, fn(item)
    except PriorisError as exc:
        return False, exc


class DaskDone:
    """One task sent to the cluster: ``result()`` waits for it."""

    def __init__(self, future: Any) -> None:
        self.future = future

    def result(self) -> Any:
        from distributed import KilledWorker

        try:
            ok, value = self.future.result()
        except KilledWorker as exc:  # the task itself kills workers: this item's failure
            raise IngestError(
                "the task ended every worker that ran it (out of memory, or a crash in "
                f"a parser): {exc}"
            ) from None
        if not ok:
            raise value
        return value


class DaskRunner:
    """Runs tasks on a Dask cluster; see the module docstring."""

    local = False

    def __init__(self, address: str, *, retries: int = RETRIES) -> None:
        address = check_cluster(address, "the cluster")
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ConfigurationError(
                "--cluster needs Dask: pip install 'prioris[cluster]'"
            ) from None
        self.address = address
        self.retries = retries
        self.cluster: Any = None
        self._owns_client = True
        try:
            if address.startswith("local:"):
                self.cluster = LocalCluster(
                    n_workers=int(address.removeprefix("local:")),
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                )
                self.client = Client(self.cluster)
            else:
                self.client = Client(address, timeout=CONNECT_TIMEOUT_SECONDS)
        except OSError as exc:  # no scheduler there, or it did not answer in time
            if self.cluster is not None:
                self.cluster.close()
            raise ConfigurationError(
                f"cannot reach the Dask scheduler at {address}: {exc}"
            ) from None

    @classmethod
    def on(cls, client: Any, *, retries: int = RETRIES) -> DaskRunner:
        """A runner on a client already connected (the tests' one cluster per session);
        :meth:`close` leaves that client open."""
        runner = cls.__new__(cls)
        runner.address, runner.retries, runner.cluster = "(client given)", retries, None
        runner.client = client
        runner._owns_client = False
        return runner

    @property
    def workers(self) -> int:
        """How many workers the scheduler has now (at least 1, for sizing the window)."""
        return max(1, len(self.client.scheduler_info(n_workers=-1).get("workers", {})))

    @property
    def window(self) -> int:
        """Documents kept in flight per stage: two per worker keeps each busy while the
        writer takes the next outcome."""
        return 2 * self.workers

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[DaskDone]:
        """Send every item's task now; the outcomes in the items' order."""
        futures = [
            self.client.submit(_run, fn, item, pure=False, retries=self.retries) for item in items
        ]
        return iter([DaskDone(f) for f in futures])

    def close(self) -> None:
        """Disconnect; a cluster this runner started is stopped."""
        if getattr(self, "_owns_client", True):
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
