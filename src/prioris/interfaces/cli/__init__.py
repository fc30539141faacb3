"""The ``prioris`` command line: a thin adapter over :class:`prioris.library.Library`."""

from prioris.interfaces.cli.app import main

__all__ = ["main"]
