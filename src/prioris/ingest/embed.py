"""What the model sees, and embedding prepared documents before their transaction.

Ingest and reindex must give the model the same text for a chunk and for a work, or a
reindexed library would rank differently from a freshly ingested one: both take it from
:func:`embedding_text` and :func:`work_text` here.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from prioris.embedding.base import Embedder
from prioris.ingest.prepared import Prepared, StepProgress
from prioris.models import WORK_TEXT_CHARS

EMBED_STEP = 32  # chunks per embedding call when progress is reported (about 1 s on 2 cores)
log = logging.getLogger("prioris.ingest.pipeline")  # the pipeline's name, as ``-v`` shows it


def embedding_text(title: str, text: str) -> str:
    """What the model sees for a chunk: the work's title gives a passage its context."""
    body = re.sub(r"^#{1,6}\s+", "", text, flags=re.MULTILINE)
    if title and not body.startswith(title):
        return f"{title}\n{body}"
    return body


def work_text(title: str, abstract: str | None, markdown: str | None) -> str:
    """What a work's own vector embeds: its title and abstract, else the head of its
    text (a record whose text is its abstract, a paper whose abstract was not found)."""
    head = (markdown or "")[:WORK_TEXT_CHARS]
    return embedding_text(title or "", (abstract or "").strip() or head.strip())


def embed_prepared(
    embedder: Embedder, prepared: Sequence[Prepared], progress: StepProgress | None = None
) -> None:
    """Embed the chunks of several documents together (batching across them), and
    each document's own text (title + abstract, :func:`work_text`).

    A text met twice is embedded once: a short record's one chunk is its work text.
    With ``progress``, the texts are embedded ``EMBED_STEP`` at a time, shortest first
    (so each call pads as little as one big call would), reporting after each call."""
    chunk_texts = [embedding_text(p.work.title, c.text) for p in prepared for c in p.chunks]
    owners = [p for p in prepared if p.chunks]  # a work without chunks is never found
    work_texts = [work_text(p.work.title, p.work.abstract, p.markdown) for p in owners]
    slots: dict[str, int] = {}
    where = [slots.setdefault(t, len(slots)) for t in (*chunk_texts, *work_texts)]
    texts = list(slots)
    started = time.perf_counter()
    if progress is not None:
        progress("embed", 0, len(texts))
    if progress is None or len(texts) <= EMBED_STEP:
        vectors = embedder.embed_passages(texts)
    else:
        vectors = np.empty((len(texts), embedder.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), EMBED_STEP):
            part = order[start : start + EMBED_STEP]
            vectors[part] = embedder.embed_passages([texts[i] for i in part])
            progress("embed", start + len(part), len(texts))
    if progress is not None and len(texts) <= EMBED_STEP:
        progress("embed", len(texts), len(texts))
    log.debug(
        "embedded %d chunks and %d work texts (%d distinct) in %.2f s",
        len(chunk_texts),
        len(work_texts),
        len(texts),
        time.perf_counter() - started,
    )
    vectors = np.asarray(vectors)[np.asarray(where, dtype=np.int64)] if where else vectors
    position = 0
    for item in prepared:
        item.vectors = vectors[position : position + len(item.chunks)]
        position += len(item.chunks)
    for item, text in zip(owners, work_texts, strict=True):
        item.work_vector, item.work_text = vectors[position], text
        position += 1


Vectors = tuple[Any, Any, "str | None"]
"""What embedding gave one document: its chunks' vectors, its own vector and its text."""


def embed_task(
    embedder: Embedder, prepared: Sequence[Prepared], progress: StepProgress | None = None
) -> list[Vectors]:
    """:func:`embed_prepared` as a task for a :class:`~prioris.ingest.tasks.TaskRunner`:
    it returns each document's vectors, since a runner in another process embeds copies
    of the documents (:func:`take_vectors` puts them on the caller's)."""
    embed_prepared(embedder, prepared, progress)
    return [(item.vectors, item.work_vector, item.work_text) for item in prepared]


def embed_texts(embedder: Embedder, texts: Sequence[str]) -> Any:
    """Passages embedded as one task (reindex's batches, :mod:`prioris.ingest.reindex`)."""
    return embedder.embed_passages(texts)


def for_embedding(prepared: Sequence[Prepared]) -> list[Prepared]:
    """Copies of the documents without their original bytes, which embedding never reads:
    what an embedding task sent to a worker elsewhere carries (a PDF's bytes would
    travel there for nothing)."""
    return [replace(item, content=b"") for item in prepared]


def take_vectors(prepared: Sequence[Prepared], vectors: Sequence[Vectors]) -> None:
    """Give each document the vectors :func:`embed_task` made for it (a no-op when the
    task ran in this process on these very documents)."""
    for item, (chunk_vectors, work_vector, text) in zip(prepared, vectors, strict=True):
        item.vectors, item.work_vector, item.work_text = chunk_vectors, work_vector, text
