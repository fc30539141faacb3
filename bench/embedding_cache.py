"""A disk cache of embeddings by exact text, so a benchmark corpus is embedded once.

Building a BEIR library with the real model takes minutes to an hour on a shared 2-core
machine, and experiments that re-chunk, re-index or embed extra units (titles, whole
abstracts) ask for many of the same texts again. :class:`CachingEmbedder` wraps the real
embedder and keeps every vector it computes in one SQLite file keyed by the model id and the
SHA-256 of the text, so a rebuilt library (after a migration, another tokenizer, another
chunk layout) re-embeds only texts never seen before. The vectors are the model's own:
the cache changes when work is done, never what comes out.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def text_key(model_id: str, kind: str, text: str) -> str:
    return hashlib.sha256(f"{model_id}\0{kind}\0{text}".encode()).hexdigest()


class VectorStore:
    """``key -> float32 vector`` in one SQLite file (stdlib sqlite3: no extension needed)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False, timeout=120)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, v BLOB)")
        self._lock = threading.Lock()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = list(keys[start : start + 500])
                marks = ", ".join("?" for _ in part)
                for key, blob in self._conn.execute(
                    f"SELECT key, v FROM vectors WHERE key IN ({marks})", part
                ):
                    found[key] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        with self._lock:
            self._conn.executemany(
                "INSERT OR REPLACE INTO vectors (key, v) VALUES (?, ?)",
                [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()],
            )
            self._conn.commit()

    def close(self) -> None:
        self._conn.close()


class CachingEmbedder:
    """The Embedder protocol over another embedder, every vector memoised on disk."""

    def __init__(self, inner: Any, store: VectorStore) -> None:
        self.inner = inner
        self.store = store
        self.computed = 0
        self.reused = 0

    @property
    def model_id(self) -> str:
        return str(self.inner.model_id)

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key(self.model_id, "passage", t) for t in texts]
        found = self.store.get_many(list(dict.fromkeys(keys)))
        missing = [i for i, key in enumerate(keys) if key not in found]
        if missing:
            fresh = self.inner.embed_passages([texts[i] for i in missing])
            new = {keys[i]: fresh[row] for row, i in enumerate(missing)}
            self.store.put_many(new)
            found.update(new)
        self.computed += len(missing)
        self.reused += len(texts) - len(missing)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([found[key] for key in keys]).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        key = text_key(self.model_id, "query", text)
        found = self.store.get_many([key])
        if key in found:
            self.reused += 1
            return found[key]
        vector = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        self.store.put_many({key: vector})
        self.computed += 1
        return vector

    def embed_queries(self, texts: Sequence[str]) -> None:
        """Fill the cache for many queries in one pass (a benchmark's warm-up)."""
        keys = [text_key(self.model_id, "query", t) for t in texts]
        found = self.store.get_many(keys)
        for text, key in zip(texts, keys, strict=True):
            if key not in found:
                self.embed_query(text)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return list(self.inner.count_tokens(texts))
