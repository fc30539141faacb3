"""What every route shares: :class:`WebState` (reached with :func:`state_of`) and
:func:`blocking`.

A module of its own so that :mod:`.app`, which builds the application from the routes of
:mod:`.pages` and :mod:`.api`, and those routes import it without importing each other.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread
import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from prioris.interfaces.web.jobs import JobRegistry

if TYPE_CHECKING:
    from prioris.library import Library

T = TypeVar("T")


@dataclass
class WebState:
    """What every route needs: the Library, the job registry, templates, the CSRF token."""

    library: Library
    jobs: JobRegistry
    templates: jinja2.Environment
    csrf_token: str

    def render(
        self, request: Request, name: str, status_code: int = 200, **context: Any
    ) -> Response:
        context.setdefault("page", "")
        template = self.templates.get_template(name)
        html = template.render(request=request, csrf_token=self.csrf_token, **context)
        return HTMLResponse(html, status_code=status_code)


def state_of(request: Request) -> WebState:
    """The state :func:`~.app.build_app` put on the application a request reached."""
    return request.app.state.web  # type: ignore[no-any-return]


async def blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking Library call in a worker thread."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
