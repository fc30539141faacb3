"""The one decorator of :class:`prioris.compose.Composition`: a service built the first time
it is asked for. Apart so the composition root holds only the wiring."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def part(build: Callable[[Any], T]) -> property:
    """A service built by ``build`` the first time it is asked for, then kept.

    Built under the composition's own lock (never the library's write lock, which a long
    ingest holds: a first search must not wait for it); builders take no other lock."""
    name = build.__name__

    def get(self: Any) -> T:  # a Composition (not imported: it imports this)
        found = self.built.get(name)
        if found is not None:
            return found  # type: ignore[no-any-return]
        with self.build_lock:
            if name not in self.built:
                self.built[name] = build(self)
            return self.built[name]  # type: ignore[no-any-return]

    return property(get, doc=build.__doc__)
