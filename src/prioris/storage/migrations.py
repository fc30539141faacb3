"""Numbered schema migrations, the rules both engines share: names, order, refusals.

Each engine keeps its SQL in the repository's ``migrations/<engine>/`` folder (shipped in
the wheel as ``prioris.migrations``) and applies it its own way; what a migration file is
called, in which order files run and when a library's recorded migrations must be refused
are the same for every engine, so they live here.
"""

from __future__ import annotations

import re
from pathlib import Path

from prioris.errors import ConfigurationError
from prioris.resources import resource_path

_MIGRATION_NAME = re.compile(r"^(\d{4})_[\w-]+\.sql$")


def migrations_dir(engine: str) -> Path:
    """The folder of one engine's migrations (``sqlite``, ``postgres``)."""
    return resource_path("prioris.migrations", engine)


def available_migrations(migrations_dir: Path) -> list[tuple[int, Path]]:
    """Numbered SQL files in order; a badly named file is a configuration error."""
    found = []
    for file in sorted(migrations_dir.glob("*.sql")):
        match = _MIGRATION_NAME.match(file.name)
        if not match:
            raise ConfigurationError(f"migration file name not understood: {file.name}")
        found.append((int(match.group(1)), file))
    return found


def check_applied(recorded: dict[int, str], available: list[tuple[int, Path]], where: str) -> None:
    """Refuse a library whose recorded migrations are not this build's: one made by a
    newer Prioris (its schema is unknown here) or by another build whose migration of
    the same number did something else. Running on it would corrupt or misread it."""
    shipped = {version: file.name for version, file in available}
    newer = sorted(v for v in recorded if v not in shipped and v > max(shipped, default=0))
    if newer:
        raise ConfigurationError(
            f"{where} was written by a newer Prioris (schema migration {newer[-1]}: "
            f"{recorded[newer[-1]]}); upgrade Prioris to open it (--data-dir or --db)"
        )
    for version, name in sorted(recorded.items()):
        if shipped.get(version, name) != name:
            raise ConfigurationError(
                f"{where} records schema migration {version} as {name}, but this Prioris "
                f"ships {shipped[version]} under that number: the library comes from "
                "another build of Prioris; open it with that build, or export and import "
                "it (--data-dir or --db)"
            )
