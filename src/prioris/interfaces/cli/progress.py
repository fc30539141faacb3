"""Progress bars on stderr (rate and ETA), silent when stderr is not a terminal or --json."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

from prioris.interfaces.cli.terminal import terminal_safe


def wants_progress(json_output: bool) -> bool:
    return not json_output and sys.stderr.isatty()


def bar(total: int | None, unit: str, desc: str, enabled: bool, **options: Any) -> Any:
    """A tqdm bar, or a no-op stand-in with the same methods when disabled."""
    if not enabled:
        return _Silent()
    from tqdm import tqdm

    options.setdefault("file", sys.stderr)
    return tqdm(total=total, unit=unit, desc=desc, dynamic_ncols=True, smoothing=0.1, **options)


class Follower:
    """An ``on_progress(done, total)`` that moves ``progress`` to ``done`` (the library
    reports how far it is; a bar counts steps); ``done`` keeps the last count."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self.done = 0

    def __call__(self, done: int, _total: int) -> None:
        self.progress.update(done - self.done)
        self.done = done


# how each ingest stage reads on the bar, and what it counts; OCR waits are shown on the
# pages bar (its events interleave with page events: one counter, a changing label)
STAGES = {
    "parse": ("reading pages", "page"),
    "ocr": ("reading pages", "page"),
    "enrich": ("completing metadata", "lookup"),
    "embed": ("embedding", "text"),  # the chunks and each work's own text
    "index": ("indexing", "doc"),
}


class IngestBars:
    """Two bars for ``prioris ingest``: files overall, and the current file's stage.

    The second bar restarts at each stage (pages read with OCR where needed, metadata,
    chunks embedded, the commit), so its rate and ETA are those of the work in progress
    and it never sits frozen while the model runs."""

    def __init__(
        self, files: int, enabled: bool, file: TextIO | None = None, **options: Any
    ) -> None:
        if file is not None:
            options["file"] = file
        self.overall = bar(files, "file", "ingest", enabled, position=0, **options)
        self.current = bar(None, "page", "", enabled, position=1, leave=False, **options)
        self._at: tuple[str, str] | None = None
        self._last_event = time.time()

    def step(self, path: str, stage: str, done: int, total: int) -> None:
        """A report from the Library: ``(path, stage, done, total)``."""
        label, unit = STAGES.get(stage, (stage, "it"))
        name = terminal_safe(Path(path).name[:30])  # a file name is anyone's text
        if self._at != (path, label):
            self._at = (path, label)
            self.current.unit = unit
            self.current.set_description(f"{name}: {label}", refresh=False)
            # an OCR report counts OCR pages, not the pages this bar counts; no total (yet)
            # is a counter without ETA. Set before reset(), which redraws the bar: after
            # it, the new stage was drawn once with the previous stage's total
            self.current.total = None if stage == "ocr" else total or None
            self.current.reset()
            # the stage began at the previous event (a file's first report comes only
            # after its first page), so its rate and ETA must count from there
            self.current.start_t = self.current.last_print_t = self._last_event
        if stage == "ocr":  # waiting for OCR of page `done + 1` of `total` to OCR
            self.current.set_description(f"{name}: OCR {done}/{total} pages", refresh=True)
        else:
            if stage == "parse":
                self.current.set_description(f"{name}: {label}", refresh=False)
                self.current.total = total or None
            self.current.update(done - self.current.n)
        self._last_event = time.time()

    def file_done(self) -> None:
        self.overall.update(1)
        self._last_event = time.time()

    def write(self, line: str) -> None:
        """A result line on stdout, printed above the bars (made terminal-safe, as
        print_line makes every other line)."""
        self.overall.write(terminal_safe(line), file=sys.stdout)

    def close(self) -> None:
        self.current.close()
        self.overall.close()


class _Silent:
    n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def reset(self, total: int | None = None) -> None:
        self.n = 0

    def set_description(self, text: str, refresh: bool = True) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass

    def write(self, text: str, file: Any = None) -> None:
        pass

    def close(self) -> None:
        pass
