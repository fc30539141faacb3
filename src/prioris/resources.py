"""Where the files shipped beside the code are: migrations and the vendored tokenizer.

They live in the repository's top-level ``migrations/`` and ``data/`` folders, which the
build maps to the packages ``prioris.migrations`` and ``prioris.data`` (setup.py). Asking
``importlib.resources`` for those packages finds them the same way in an editable checkout
(the editable install maps the folders) and in an installed wheel (they are inside it).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from prioris.errors import ConfigurationError


def resource_path(package: str, *parts: str) -> Path:
    """A folder or file of a resource package, as a path on disk.

    Prioris reads its migrations with ``glob`` and links tokenizer files, so a resource
    must be a real file: a zipped install (not supported) fails here, clearly."""
    try:
        found = Path(str(files(package).joinpath(*parts)))
    except ModuleNotFoundError as exc:
        raise ConfigurationError(
            f"{package} is not installed beside the code (reinstall Prioris: "
            "pip install -e . in a checkout)"
        ) from exc
    if not found.exists():
        raise ConfigurationError(f"{found} is missing from this installation of Prioris")
    return found
