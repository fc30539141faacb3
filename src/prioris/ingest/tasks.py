"""Where an ingest's compute runs: the task-runner seam between the pipeline and its steps.

The pipeline's work before the one write transaction (preparing a document: parsing, OCR,
chunking; embedding a group of documents) is CPU-bound and needs no database, so it can
run elsewhere: on a Dask cluster (``client.map``, issue 38) as well as in the calling
thread. :class:`~prioris.ingest.pipeline.IngestPipeline` hands those steps to a
:class:`TaskRunner` and keeps the writes in its one writer; it never knows where a task
ran. This module is separate so that a worker needs only it and the steps, never the
database: a contract in ``pyproject.toml`` forbids it to import ``prioris.storage`` or
``prioris.engines``.

A runner's contract, fit for ``client.map`` later:

- ``map(fn, items)`` runs ``fn(item)`` for each item and gives back one :class:`Done` per
  item, **in the order of the items**; ``done.result()`` is the value, or raises the
  exception that task raised, so one task failing is that item's outcome and the caller
  decides, item by item, what it means (as a ``concurrent.futures`` or Dask future);
- ``fn`` and the items must be picklable for a runner in other processes (a module-level
  function or a :func:`functools.partial` of one); the in-process runner pickles nothing;
- a task returns what it made: a runner elsewhere works on copies, so what a task changes
  in its arguments is lost there;
- ``local`` says whether tasks run in this process on the very objects given: only then
  may a task carry a callback (a progress bar's closure), which a worker elsewhere could
  neither unpickle nor call back through.

:class:`~prioris.ingest.dask_runner.DaskRunner` is the runner elsewhere; the pipeline
keeps a few documents in flight on it at once (:func:`start` each, then their outcomes
in order), where the in-process runner runs each as it is started.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class Done(Protocol[R_co]):
    """One task's outcome (a ``concurrent.futures.Future`` and a Dask future are ones)."""

    def result(self) -> R_co:
        """The task's value; raises the exception the task raised."""
        ...


class TaskRunner(Protocol):
    """Runs the pipeline's tasks: in this thread, or elsewhere (see the module docstring)."""

    local: bool
    """True when tasks run in this process on the objects given (callbacks work)."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[Done[R]]:
        """``fn(item)`` for each item, one :class:`Done` per item in the items' order."""
        ...


@dataclass(frozen=True)
class Finished(Generic[R]):
    """A task already run: its value, or the exception it raised."""

    value: R | None = None
    error: Exception | None = None

    def result(self) -> R:
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


class InProcessRunner:
    """The default: each task runs in the calling thread, when the caller asks for its
    outcome (lazily, one at a time), exactly as if the caller had called ``fn`` itself.

    A caller that stops at a failed item never runs the items after it; an interrupt
    (``KeyboardInterrupt``, ``SystemExit``) is never held as an outcome."""

    local = True

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[Done[R]]:
        for item in items:
            try:
                done: Finished[R] = Finished(fn(item))
            except Exception as exc:
                done = Finished(error=exc)
            yield done


def run_one(runner: TaskRunner, fn: Callable[[T], R], item: T) -> R:
    """``fn(item)`` as one task on ``runner``: its value, or its exception raised here."""
    return next(iter(runner.map(fn, [item]))).result()


def start(runner: TaskRunner, fn: Callable[[T], R], item: T) -> Done[R]:
    """``fn(item)`` started as one task: the in-process runner runs it now, a runner
    elsewhere only sends it, so several started before their outcomes are asked for run
    side by side."""
    return next(iter(runner.map(fn, [item])))


def runner_for(cluster: str | None) -> TaskRunner:
    """The runner the ``cluster`` setting names: in this thread when unset, else a Dask
    cluster (``local:N`` or ``tcp://HOST:PORT``; Dask is imported only then)."""
    if not cluster:
        return InProcessRunner()
    from prioris.ingest.dask_runner import DaskRunner

    return DaskRunner(cluster)
