"""The local web app (``prioris ui``): a third thin interface over the Library."""

from __future__ import annotations

from prioris.interfaces.web.app import build_app, serve

__all__ = ["build_app", "serve"]
