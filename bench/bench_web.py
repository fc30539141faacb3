"""The web app's Search page on the SciFact library: time from request to rendered results.

The SciFact library (5,183 abstracts, real model) is the one ``bench_scifact.py`` builds and
caches in ``bench/out/scifact``. The app is served by uvicorn on 127.0.0.1 in this process
(as ``prioris ui`` serves it), over the real model. Three figures per mode, k=10:

* **server**: request to the last byte of the results fragment (``/api/search``, what the
  page fetches when a search is submitted), measured by an HTTP client on loopback: query
  parsing, ``Library.search`` (embedding, FTS, KNN, fusion, snippets) and the template;
* the ``Server-Timing`` share of that spent inside ``Library.search``;
* **browser** (when Chromium is installed): in Chromium driven by Playwright, from the
  search's submit to the results being in the page (``performance.now()`` in the page's
  own script, so polling from here does not count), including the fetch and the DOM swap.

Each mode is warmed with a few queries first (model load, in-memory vector copy).
"""

from __future__ import annotations

import argparse
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

MODES = ("fts", "vector", "hybrid")
CHROMIUM = Path("/usr/bin/chromium")
_DUR = re.compile(r"search;dur=([\d.]+)")


class Served:
    """The web app over ``library`` on a free loopback port, in a thread."""

    def __init__(self, library: Any) -> None:
        import uvicorn

        from prioris.interfaces.web.app import bind, build_app

        self.app = build_app(library)
        sock = bind(0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.app.state.web.jobs.close()


def summary(times: list[float]) -> tuple[str, str, str]:
    p50, p95 = common.percentile(times, 50), common.percentile(times, 95)
    return f"{p50:.1f}", f"{p95:.1f}", f"{sum(times) / len(times):.1f}"


def measure_http(url: str, queries: list[str], warmup: int) -> list[tuple[Any, ...]]:
    import httpx

    rows = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for mode in MODES:
            for query in queries[:warmup]:
                client.get("/api/search", params={"q": query, "mode": mode}).raise_for_status()
            total, inside = [], []
            for query in queries:
                started = time.perf_counter()
                response = client.get("/api/search", params={"q": query, "mode": mode})
                response.raise_for_status()
                total.append((time.perf_counter() - started) * 1000)
                found = _DUR.search(response.headers.get("server-timing", ""))
                inside.append(float(found.group(1)) if found else float("nan"))
            rows.append((mode, len(total), *summary(total), summary(inside)[0]))
    return rows


def measure_browser(url: str, queries: list[str], warmup: int) -> list[tuple[Any, ...]] | None:
    if not CHROMIUM.exists():
        print(f"browser: SKIPPED, no Chromium at {CHROMIUM} (apt-get install -y chromium)")
        return None
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for mode in MODES:
            page.goto(f"{url}/?{urlencode({'mode': mode})}")
            times = []
            for number, query in enumerate(queries[:warmup] + queries):
                page.evaluate("document.body.dataset.searchMs = ''")
                page.fill("#q", query)
                page.press("#q", "Enter")
                while True:
                    value = page.evaluate("document.body.dataset.searchMs")
                    if value:
                        break
                    page.wait_for_timeout(2)
                if number >= warmup:
                    times.append(float(value))
            rows.append((mode, len(times), *summary(times)))
        browser.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=200, help="queries per mode")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--no-browser", action="store_true", help="HTTP figures only")
    parser.add_argument(
        "--embed-threads",
        type=int,
        help="ONNX threads of the query embedder (default: fastembed's, all cores)",
    )
    args = parser.parse_args(argv)
    common.require_scifact()
    import bench_scifact

    data_dir = common.OUT / "scifact"
    info = bench_scifact.build_library(data_dir, rebuild=False)
    queries = list(common.load_queries().values())[: args.queries]
    embedder = None
    if args.embed_threads:
        from prioris.embedding.fastembed_backend import FastembedEmbedder

        embedder = FastembedEmbedder(cache_dir=data_dir, threads=args.embed_threads)
    with common.open_library(data_dir, embedder=embedder) as library:
        served = Served(library)
        try:
            http_rows = measure_http(served.url, queries, args.warmup)
            browser_rows = (
                None if args.no_browser else measure_browser(served.url, queries, args.warmup)
            )
        finally:
            served.close()
    threads = f", {args.embed_threads} embedding thread(s)" if args.embed_threads else ""
    print(
        f"\nSciFact library ({info['docs']} works, {info['chunks']} chunks, {info['model']}"
        f"{threads}), {len(queries)} queries per mode, k=10, ms"
    )
    print("\nserver: GET /api/search over loopback, request to last byte of the results")
    headers = ["mode", "queries", "p50", "p95", "mean", "p50 in Library.search"]
    common.print_table(headers, http_rows)
    if browser_rows:
        print("\nbrowser: Search page in Chromium, submit to results in the page")
        common.print_table(["mode", "queries", "p50", "p95", "mean"], browser_rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
