"""Prioris: a local knowledge base for research literature.

The public API is the :class:`Library` facade, the plain data models and the errors.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("prioris")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

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
