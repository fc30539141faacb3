"""Everything that touches SQL for the library file: connection, schema, repositories.

Nothing here imports from sources, ingest or search, so another backend could replace it.
"""

from prioris.storage.db import connect

__all__ = ["connect"]
