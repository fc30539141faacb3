"""Prioris: a local knowledge base for research literature.

The public API is the :class:`Library` facade, the plain data models and the errors.
They are imported when first named (``from prioris import Library``), not by ``import
prioris``: a command that only prints its version or help never loads the library, its
services or the model (docs/benchmarks.md, "Start-up").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prioris.config import Settings, load_settings
    from prioris.errors import PriorisError
    from prioris.library import Library
    from prioris.models import Chunk, Document, FullText, Hit, Page, Work

__all__ = [
    "Chunk",
    "Document",
    "FullText",
    "Hit",
    "Library",
    "Page",
    "PriorisError",
    "Settings",
    "Work",
    "__version__",
    "load_settings",
]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    """The public names, each imported the first time it is asked for (PEP 562) and then
    kept in the module, so later look-ups do not come here."""
    value = _load(name)
    globals()[name] = value
    return value


def _load(name: str) -> Any:
    if name == "__version__":  # importlib.metadata costs ~20 ms: only when asked for
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("prioris")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0+unknown"
    if name == "Library":
        from prioris.library import Library

        return Library
    if name in ("Settings", "load_settings"):
        from prioris import config

        return getattr(config, name)
    if name == "PriorisError":
        from prioris.errors import PriorisError

        return PriorisError
    if name in ("Chunk", "Document", "FullText", "Hit", "Page", "Work"):
        from prioris import models

        return getattr(models, name)
    raise AttributeError(f"module 'prioris' has no attribute {name!r}")
