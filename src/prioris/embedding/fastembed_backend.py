"""fastembed backend of :class:`Embedder`, loading its ONNX session lazily.

Lazy loading keeps ``prioris status`` and ``--help`` instant; ``model_id`` and ``dim`` are
known from the model description without opening the session.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from prioris.embedding.offline import (
    DEFAULT_DIM,
    DEFAULT_MODEL_ID,
    TOKENIZER_DIR,
    assemble_model_dir,
)
from prioris.errors import ConfigurationError

_register_lock = threading.Lock()
_session_options_lock = threading.Lock()

# ONNX Runtime's memory pattern planner keeps a pre-planned allocation per input shape it
# has seen. Our batches are sorted by length, so almost every batch has a new shape and
# the plans pile up: one 14-page PDF ingest (98 chunks) peaked at 1,028 MiB with it,
# 736 MiB without (docs/benchmarks.md, section 3 (d)). The arena (on) still recycles
# buffers; bulk embedding measured 11-13% more CPU without the planner under heavy load.
SESSION_OPTIONS = {"enable_mem_pattern": False}
# ONNX Runtime's intra-op threads spin after each parallel step, waiting for the next one.
# On two cores that spin takes the core hybrid search's FTS half (and any other job) needs:
# with the machine loaded, a query embedding took 71 ms p50 spinning and 35 without, hybrid
# search 310 against 218 ms (issue 26, docs/benchmarks.md section 8, third round).
SESSION_CONFIG = {"session.intra_op.allow_spinning": "0"}


@contextmanager
def _session_options(options: dict[str, Any]) -> Iterator[None]:
    """Make the ``SessionOptions`` fastembed creates while loading carry ``options``.

    fastembed exposes only ``enable_cpu_mem_arena``; it builds its options with
    ``onnxruntime.SessionOptions()``, so for the duration of the load (under a lock) that
    name gives a subclass that sets ours. Checked after loading (see ``session_options``)."""
    import onnxruntime

    original = onnxruntime.SessionOptions

    class _Configured(original):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            for name, value in options.items():
                setattr(self, name, value)
            for key, entry in SESSION_CONFIG.items():
                self.add_session_config_entry(key, entry)

    with _session_options_lock:
        onnxruntime.SessionOptions = _Configured
        try:
            yield
        finally:
            onnxruntime.SessionOptions = original


def _register_default_model() -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        known = {m["model"] for m in TextEmbedding.list_supported_models()}
        if DEFAULT_MODEL_ID in known:
            return
        TextEmbedding.add_custom_model(
            model=DEFAULT_MODEL_ID,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
            dim=DEFAULT_DIM,
            model_file="model.onnx",
            description="all-MiniLM-L6-v2, int8 ONNX, packaged offline by Prioris",
            license="apache-2.0",
        )


def _model_dim(model_name: str) -> int:
    from fastembed import TextEmbedding

    for desc in TextEmbedding.list_supported_models():
        if desc["model"].lower() == model_name.lower():
            return int(desc["dim"])
    raise ConfigurationError(
        f"PRIORIS_MCP_EMBEDDING_MODEL={model_name!r} is not a fastembed text model; "
        "see `fastembed.TextEmbedding.list_supported_models()`"
    )


class FastembedEmbedder:
    """Embedder over fastembed's ``TextEmbedding``; the default is the packaged offline model."""

    def __init__(
        self,
        model_name: str | None = None,
        *,
        model_path: Path | None = None,
        cache_dir: Path | None = None,
        batch_size: int = 16,
        threads: int | None = None,
    ) -> None:
        self._is_default = model_name is None or model_name == DEFAULT_MODEL_ID
        self._model_name = DEFAULT_MODEL_ID if self._is_default else str(model_name)
        self._model_path = model_path
        self._cache_dir = cache_dir
        self._batch_size = batch_size
        self._threads = threads
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        if self._is_default:  # registered with fastembed when the session loads
            self._dim = DEFAULT_DIM
        else:
            self._dim = _model_dim(self._model_name)

    @property
    def model_id(self) -> str:
        return self._model_name

    @property
    def dim(self) -> int:
        return self._dim

    def _load(self) -> Any:
        with self._lock:
            if self._model is not None:
                return self._model
            from fastembed import TextEmbedding

            if self._is_default:
                _register_default_model()
            path = self._model_path
            if self._is_default and path is None:
                base = self._cache_dir or Path.home() / ".cache" / "prioris"
                path = assemble_model_dir(base / "models" / "all-MiniLM-L6-v2-int8")
            kwargs: dict[str, Any] = {"threads": self._threads}
            if path is not None:
                kwargs["specific_model_path"] = str(path)
            if self._cache_dir is not None:
                kwargs["cache_dir"] = str(self._cache_dir / "fastembed")
            try:
                with _session_options(SESSION_OPTIONS):
                    self._model = TextEmbedding(model_name=self._model_name, **kwargs)
            except Exception as exc:  # fastembed raises plain exceptions on download failure
                raise ConfigurationError(
                    f"could not load embedding model {self._model_name!r}: {exc}. Without "
                    "internet, use the default model or set PRIORIS_MCP_EMBEDDING_MODEL_PATH"
                ) from exc
            return self._model

    def session_options(self) -> Any:
        """The loaded ONNX session's options (to check what it runs with)."""
        return self._load().model.model.get_session_options()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        model = self._load()
        # batches of similar length pad less: measured 1.5x faster on mixed chunk lengths,
        # with identical vectors (padding is masked out of the mean pooling)
        order = np.argsort([len(t) for t in texts], kind="stable")
        rows = list(model.embed([texts[i] for i in order], batch_size=self._batch_size))
        vectors = np.empty((len(texts), self._dim), dtype=np.float32)
        vectors[order] = np.vstack(rows)
        return _normalise(vectors)

    def embed_query(self, text: str) -> np.ndarray:
        model = self._load()
        embed = getattr(model, "query_embed", None) or model.embed
        vector = next(iter(embed([text])))
        return _normalise(np.asarray(vector, dtype=np.float32)[None, :])[0]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        tokenizer = self._get_tokenizer()
        encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]

    def _get_tokenizer(self) -> Any:
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            # a model directory's own tokenizer when it has one; else the vendored BERT
            # uncased one (chunk sizing only needs a close count for other models)
            own = self._model_path / "tokenizer.json" if self._model_path else None
            source = own if own is not None and own.exists() else TOKENIZER_DIR / "tokenizer.json"
            tokenizer = Tokenizer.from_file(str(source))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            self._tokenizer = tokenizer
        return self._tokenizer


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms
