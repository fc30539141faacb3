"""The ONNX session runs without the memory-pattern planner (peak memory; benchmarks.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
import pytest

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


def test_intra_op_threads_do_not_spin(tmp_path: Path) -> None:
    """Idle ONNX Runtime threads sleep instead of spinning on the cores a hybrid search's
    other half and other jobs need (issue 26)."""
    options = FastembedEmbedder(cache_dir=tmp_path).session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_vectors_do_not_depend_on_spinning(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    texts = ["short text", "a somewhat longer passage about protein folding " * 8]
    without = FastembedEmbedder(cache_dir=tmp_path).embed_passages(texts)
    monkeypatch.setattr(backend, "SESSION_CONFIG", {})
    spinning = FastembedEmbedder(cache_dir=tmp_path)
    with pytest.raises(RuntimeError):  # no entry: ORT's default (spinning)
        spinning.session_options().get_session_config_entry("session.intra_op.allow_spinning")
    assert np.allclose(spinning.embed_passages(texts), without, atol=1e-6)
