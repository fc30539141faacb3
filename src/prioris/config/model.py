"""The embedding model: which one (a fastembed name or a local directory) and its batch size.

Separate because these settings choose what the vectors are: a library's vectors are only
comparable with a query embedded by the same model, so they are read in one place and
nothing else rides along with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from prioris.config.parsing import _integer


@dataclass(frozen=True)
class ModelSettings:
    """The embedding model (``None``: the packaged offline model) and its batch size."""

    embedding_model: str | None = None
    embedding_model_path: Path | None = None
    embedding_batch_size: int = 16


def model_settings(env: Mapping[str, str]) -> ModelSettings:
    """The embedding model's settings from ``env``."""
    model_path = env.get("PRIORIS_MCP_EMBEDDING_MODEL_PATH")
    return ModelSettings(
        embedding_model=(env.get("PRIORIS_MCP_EMBEDDING_MODEL") or "").strip() or None,
        embedding_model_path=Path(model_path).expanduser() if model_path else None,
        embedding_batch_size=_integer(
            env, "PRIORIS_MCP_EMBEDDING_BATCH_SIZE", ModelSettings.embedding_batch_size
        ),
    )
