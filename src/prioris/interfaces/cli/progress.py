"""Progress bars on stderr (rate and ETA), silent when stderr is not a terminal or --json."""

from __future__ import annotations

import sys
from typing import Any


def wants_progress(json_output: bool) -> bool:
    return not json_output and sys.stderr.isatty()


def bar(total: int | None, unit: str, desc: str, enabled: bool) -> Any:
    """A tqdm bar, or a no-op stand-in with the same methods when disabled."""
    if not enabled:
        return _Silent()
    from tqdm import tqdm

    return tqdm(
        total=total, unit=unit, desc=desc, file=sys.stderr, dynamic_ncols=True, smoothing=0.1
    )


class _Silent:
    n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix_str(self, text: str) -> None:
        pass

    def write(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass
