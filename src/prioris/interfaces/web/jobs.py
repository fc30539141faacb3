"""Long work of the web app (uploads, folder ingests, fetches, imports, re-index) as jobs.

A job is queued, run by one worker thread and observed by polling: its snapshot (state,
overall progress, one row per file or identifier with its stage and result) is what
``/api/jobs`` returns. The registry outlives any page, so reloading the page or opening it
in a second tab shows the same progress. Jobs run one at a time: OCR and embedding already
use the machine's cores, and one writer is what SQLite allows anyway; searches run beside
them on their own read connections.

Nothing here knows what a job does: the routes hand in a function that calls the
Library and reports through :class:`JobContext`.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from prioris.errors import PriorisError

log = logging.getLogger(__name__)
KEEP_FINISHED = 200


class JobCancelled(Exception):
    """Raised inside a job's progress callbacks when the server shuts down."""


@dataclass
class JobItem:
    """One file, identifier or step of a job."""

    name: str
    state: str = "queued"  # queued, running, ingested, skipped, failed, done
    stage: str = ""
    done: int = 0
    total: int = 0
    message: str = ""
    work_id: str | None = None
    error_code: str | None = None


@dataclass
class Job:
    id: str
    kind: str
    title: str
    state: str = "queued"  # queued, running, done, failed, cancelled
    created: float = field(default_factory=time.time)
    finished: float | None = None
    done: int = 0
    total: int = 0
    message: str = ""
    items: list[JobItem] = field(default_factory=list)

    def snapshot(self) -> dict[str, Any]:
        data = asdict(self)
        data["active"] = self.state in ("queued", "running")
        return data


class JobContext:
    """What a running job reports through; every call checks for shutdown."""

    def __init__(self, registry: JobRegistry, job: Job) -> None:
        self._registry = registry
        self.job = job

    def _check(self) -> None:
        if self._registry.stopping.is_set():
            raise JobCancelled()

    def progress(self, done: int, total: int, message: str | None = None) -> None:
        self._check()
        with self._registry.lock:
            self.job.done, self.job.total = done, total
            if message is not None:
                self.job.message = message

    def item(self, index: int, **changes: Any) -> None:
        """Update item ``index`` (state, stage, done, total, message, work_id, error_code)."""
        self._check()
        with self._registry.lock:
            item = self.job.items[index]
            for name, value in changes.items():
                setattr(item, name, value)

    def add_item(self, name: str, **changes: Any) -> int:
        with self._registry.lock:
            self.job.items.append(JobItem(name=name, **changes))
            return len(self.job.items) - 1

    def fail_item(self, index: int, error: PriorisError) -> None:
        self.item(index, state="failed", stage="", message=error.message, error_code=error.code)


JobFunction = Callable[[JobContext], str | None]


class JobRegistry:
    """Queued jobs, one worker thread, snapshots for the pages that poll them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._jobs: dict[str, Job] = {}
        self._queue: queue.Queue[tuple[Job, JobFunction] | None] = queue.Queue()
        self._ids = itertools.count(1)
        self._worker = threading.Thread(target=self._run, name="prioris-web-jobs", daemon=True)
        self._worker.start()

    def submit(
        self, kind: str, title: str, function: JobFunction, items: Sequence[str] = ()
    ) -> Job:
        """Queue ``function(context)``; its return value becomes the job's final message."""
        with self.lock:
            job = Job(
                id=f"{kind}-{next(self._ids)}",
                kind=kind,
                title=title,
                items=[JobItem(name=name) for name in items],
            )
            self._jobs[job.id] = job
            self._forget_old()
        self._queue.put((job, function))
        return job

    def get(self, job_id: str) -> dict[str, Any] | None:
        with self.lock:
            job = self._jobs.get(job_id)
            return job.snapshot() if job else None

    def list(self, kinds: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Snapshots, newest first (only ``kinds`` when given)."""
        with self.lock:
            jobs = [j for j in self._jobs.values() if not kinds or j.kind in kinds]
            return [j.snapshot() for j in sorted(jobs, key=lambda j: j.created, reverse=True)]

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.finished is not None]
        for job in sorted(finished, key=lambda j: j.finished or 0)[:-KEEP_FINISHED]:
            del self._jobs[job.id]

    def _run(self) -> None:
        while True:
            entry = self._queue.get()
            if entry is None:
                return
            job, function = entry
            if self.stopping.is_set():
                self._finish(job, "cancelled", "the server stopped before this job ran")
                continue
            with self.lock:
                job.state = "running"
            try:
                message = function(JobContext(self, job))
            except JobCancelled:
                self._finish(job, "cancelled", "stopped with the server; run it again to finish")
            except PriorisError as exc:
                self._finish(job, "failed", f"{exc.code}: {exc.message}")
            except Exception as exc:  # a bug must not kill the worker or reach the page raw
                log.exception("job %s failed", job.id)
                self._finish(job, "failed", f"internal error: {type(exc).__name__}")
            else:
                self._finish(job, _outcome(job), message or "")

    def _finish(self, job: Job, state: str, message: str) -> None:
        with self.lock:
            job.state, job.message, job.finished = state, message, time.time()
            for item in job.items:
                if item.state in ("queued", "running"):
                    item.state = "cancelled" if state == "cancelled" else "failed"
                    item.stage = ""
                    item.message = item.message or message

    def close(self, timeout: float = 30.0) -> None:
        """Stop after the running job's next progress report; queued jobs are cancelled."""
        self.stopping.set()
        self._queue.put(None)
        self._worker.join(timeout)


def _outcome(job: Job) -> str:
    """How a job that ran to its end ended: ``failed`` when every item it had failed (a
    folder of broken PDFs is no success), ``partial`` when some did, else ``done``."""
    states = [item.state for item in job.items]
    failed = states.count("failed")
    if states and failed == len(states):
        return "failed"
    return "partial" if failed else "done"
