"""The ONNX session runs without the memory-pattern planner (peak memory; benchmarks.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime

import prioris.embedding.fastembed_backend as backend
from prioris.embedding.fastembed_backend import FastembedEmbedder


def test_loaded_session_has_the_memory_pattern_planner_off(tmp_path: Path) -> None:
    original = onnxruntime.SessionOptions
    embedder = FastembedEmbedder(cache_dir=tmp_path)
    options = embedder.session_options()
    assert options.enable_mem_pattern is False
    assert options.enable_cpu_mem_arena is True  # the arena still recycles buffers (speed)
    # the swap of onnxruntime.SessionOptions lasted only while loading
    assert onnxruntime.SessionOptions is original


def test_vectors_do_not_depend_on_the_planner(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    texts = ["short text", "a somewhat longer passage about protein folding " * 8]
    without = FastembedEmbedder(cache_dir=tmp_path).embed_passages(texts)
    monkeypatch.setattr(backend, "SESSION_OPTIONS", {"enable_mem_pattern": True})
    planned = FastembedEmbedder(cache_dir=tmp_path)
    assert planned.session_options().enable_mem_pattern is True
    assert np.allclose(planned.embed_passages(texts), without, atol=1e-6)
