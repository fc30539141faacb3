"""The packaged offline model for real, its integrity check, and the fake used elsewhere."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from prioris.config import load_settings
from prioris.embedding import build_embedder
from prioris.embedding.fake import FakeEmbedder
from prioris.embedding.fastembed_backend import FastembedEmbedder
from prioris.embedding.offline import (
    DEFAULT_DIM,
    DEFAULT_MODEL_ID,
    assemble_model_dir,
    verify_model_file,
)
from prioris.errors import ConfigurationError


@pytest.fixture(scope="module")
def real_model(tmp_path_factory: pytest.TempPathFactory) -> FastembedEmbedder:
    return FastembedEmbedder(cache_dir=tmp_path_factory.mktemp("models"))


def test_real_model_puts_similar_texts_closer(real_model: FastembedEmbedder) -> None:
    vectors = real_model.embed_passages(
        [
            "The cat sat on the mat.",
            "A kitten is resting on a rug.",
            "Lattice quantum chromodynamics predicts hadron masses.",
        ]
    )
    assert vectors.shape == (3, DEFAULT_DIM) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    similar, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert similar > unrelated + 0.3
    query = real_model.embed_query("where is the cat sleeping")
    assert float(query @ vectors[0]) > float(query @ vectors[2])


def test_real_model_is_deterministic_and_batch_independent(real_model: FastembedEmbedder) -> None:
    texts = [f"sentence number {i} about proteins" for i in range(20)]
    together = real_model.embed_passages(texts)
    alone = real_model.embed_passages(texts[5:6])
    assert np.allclose(together[5], alone[0], atol=1e-5)


def test_token_counts_use_the_model_tokenizer(real_model: FastembedEmbedder) -> None:
    assert real_model.count_tokens(["hello world", "transformers"]) == [2, 1]


def test_default_settings_give_the_offline_model(tmp_path: Path) -> None:
    embedder = build_embedder(load_settings({"PRIORIS_MCP_DATA_DIR": str(tmp_path)}))
    assert embedder.model_id == DEFAULT_MODEL_ID and embedder.dim == DEFAULT_DIM


def test_unknown_model_name_is_a_configuration_error(tmp_path: Path) -> None:
    settings = load_settings(
        {
            "PRIORIS_MCP_DATA_DIR": str(tmp_path),
            "PRIORIS_MCP_EMBEDDING_MODEL": "nobody/no-such-model",
        }
    )
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_EMBEDDING_MODEL"):
        build_embedder(settings)


def test_other_fastembed_models_are_selectable_without_loading() -> None:
    embedder = FastembedEmbedder("BAAI/bge-small-en-v1.5")
    assert embedder.model_id == "BAAI/bge-small-en-v1.5" and embedder.dim == 384


def test_tampered_weights_are_refused(tmp_path: Path) -> None:
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    with pytest.raises(ConfigurationError, match="SHA-256"):
        verify_model_file(fake)


def test_model_dir_holds_weights_and_licensed_tokenizer(tmp_path: Path) -> None:
    folder = assemble_model_dir(tmp_path / "m")
    names = {p.name for p in folder.iterdir()}
    assert {"model.onnx", "tokenizer.json", "LICENSE", "NOTICE"} <= names
    assert "Apache License" in (folder / "LICENSE").read_text()
    assert "all-MiniLM-L6-v2" in (folder / "NOTICE").read_text()
    assert (folder / "model.onnx").resolve().stat().st_size > 20_000_000


def test_fake_embedder_is_deterministic() -> None:
    fake = FakeEmbedder()
    assert np.allclose(fake.embed_query("a b"), fake.embed_passages(["a b"])[0])


def test_processes_starting_at_once_assemble_the_model_dir_without_a_race(
    tmp_path: Path,
) -> None:
    """Two importers starting together on a new data directory once failed with
    "are the same file": one linked a file between the other's check and its link."""
    import threading

    def assemble(target: Path, barrier: threading.Barrier, failures: list[BaseException]) -> None:
        barrier.wait()
        try:
            assemble_model_dir(target)
        except BaseException as exc:
            failures.append(exc)

    for attempt in range(10):
        target, barrier, failures = tmp_path / f"m{attempt}", threading.Barrier(6), []
        threads = [
            threading.Thread(target=assemble, args=(target, barrier, failures)) for _ in range(6)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        assert not [p.name for p in target.iterdir() if p.name.startswith(".")]  # no temporary
        assert (target / "model.onnx").stat().st_size > 20_000_000
