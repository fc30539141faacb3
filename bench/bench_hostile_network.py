"""Cost of hostile network input: a gzip bomb over real loopback HTTP, and malformed HTML.

1. **gzip bomb**: a ~1 MB gzip Atom reply that decodes to 1 GiB, served by a loopback HTTP
   server (streamed, ``Content-Encoding: gzip``) to ``RemoteSources.arxiv.search`` with the
   default settings. A child process does the request; its wall time, peak RSS (and the
   peak RSS of a child that only imports the same modules, for reference) are printed.
2. **malformed HTML**: ``html_to_markdown`` on ``'<a ' * n`` (unclosed start tags, the
   input that made ``html.parser`` quadratic), each size in its own child with a time cap.

``--src`` runs the children against another source tree (e.g. an export of an older
commit: ``git archive main src | tar -x -C /tmp/old``) to get before/after figures:

    .venv/bin/python bench/bench_hostile_network.py
    .venv/bin/python bench/bench_hostile_network.py --src /tmp/old/src --html-kb 15 30 60
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
HEAD = b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>'

CHILD_BOMB = """
import json, resource, sys, time
from prioris.config import load_settings
from prioris.errors import PriorisError
from prioris.sources.remote import RemoteSources
env = {"PRIORIS_MCP_ARXIV_API_URL": sys.argv[1], "PRIORIS_MCP_ARXIV_MIN_INTERVAL_SECONDS": "0"}
sources = RemoteSources(load_settings(env))
if sys.argv[2] == "request":
    started = time.perf_counter()
    try:
        sources.arxiv.search("diffusion")
        outcome = "accepted"
    except PriorisError as exc:
        outcome = f"{exc.code}: {exc.message[:110]}"
    seconds = time.perf_counter() - started
else:
    outcome, seconds = "imports only", 0.0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_rss_mib": rss, "outcome": outcome}))
"""

CHILD_HTML = """
import sys, time
from prioris.sources.html_markdown import html_to_markdown
html = "<a " * (int(float(sys.argv[1]) * 1024) // 3)
started = time.perf_counter()
html_to_markdown(html)
print(time.perf_counter() - started)
"""


def gzip_bomb(decoded_mib: int) -> bytes:
    """HEAD then ``decoded_mib`` MiB of spaces, gzip; built without the decoded bytes."""
    block = b" " * MIB
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    start = deflate.compress(HEAD) + deflate.flush(zlib.Z_FULL_FLUSH)
    piece = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    end = deflate.flush(zlib.Z_FINISH)
    crc = zlib.crc32(HEAD)
    for _ in range(decoded_mib):
        crc = zlib.crc32(block, crc)
    size = (len(HEAD) + decoded_mib * MIB) & 0xFFFFFFFF
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + start + piece * decoded_mib + end + struct.pack("<II", crc, size)


def serve(wire: bytes) -> tuple[ThreadingHTTPServer, list[int]]:
    sent: list[int] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/atom+xml")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(wire)))
            self.end_headers()
            try:
                for offset in range(0, len(wire), 64 * 1024):
                    self.wfile.write(wire[offset : offset + 64 * 1024])
                    sent.append(min(64 * 1024, len(wire) - offset))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading: what a bounded reader does

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, sent


def child(code: str, args: list[str], src: Path, timeout: float) -> str | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env["PYTHONPATH"] = str(src)
    try:
        result = subprocess.run(
            [sys.executable, "-c", code, *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return result.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=REPO / "src", help="source tree to measure")
    parser.add_argument("--bomb-mib", type=int, default=1024, help="decoded size of the bomb")
    parser.add_argument("--html-kb", type=float, nargs="+", default=[15, 30, 60, 600, 6000])
    parser.add_argument("--html-timeout", type=float, default=300.0, help="seconds per size")
    args = parser.parse_args()
    print(f"source tree: {args.src}")

    wire = gzip_bomb(args.bomb_mib)
    server, sent = serve(wire)
    url = f"http://127.0.0.1:{server.server_address[1]}/api/query"
    try:
        base = json.loads(child(CHILD_BOMB, [url, "imports"], args.src, 600) or "{}")
        started = time.perf_counter()
        bomb = json.loads(child(CHILD_BOMB, [url, "request"], args.src, 600) or "{}")
        wall = time.perf_counter() - started
    finally:
        server.shutdown()
        server.server_close()
    print(
        f"gzip bomb: {len(wire) / MIB:.2f} MiB on the wire, {args.bomb_mib} MiB decoded; "
        f"server wrote {sum(sent) / MIB:.2f} MiB"
    )
    print(f"  outcome       {bomb.get('outcome')}")
    print(f"  request time  {bomb.get('seconds', float('nan')):.2f} s (child wall {wall:.1f} s)")
    print(
        f"  peak RSS      {bomb.get('peak_rss_mib', float('nan')):.0f} MiB "
        f"(imports only: {base.get('peak_rss_mib', float('nan')):.0f} MiB)"
    )

    print("malformed HTML: html_to_markdown('<a ' * n)")
    for kb in args.html_kb:
        seconds = child(CHILD_HTML, [str(kb)], args.src, args.html_timeout)
        shown = f"{float(seconds):8.2f} s" if seconds else f"  > {args.html_timeout:.0f} s (cut)"
        print(f"  {kb:>7g} KB  {shown}")


if __name__ == "__main__":
    main()
