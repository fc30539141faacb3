"""A loopback HTTP server answering fixed routes: the providers' recorded replies, served
for real (sockets, headers, Content-Length) so clients are tested over HTTP."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

Answer = tuple[int, dict[str, str], bytes]
"""What a callable route gives: status, headers, body."""


class RouteServer:
    """``routes`` maps a path (query string ignored) to ``(content type, body)``, or to a
    callable given the whole request path (query string included) that returns
    ``(status, headers, body)`` (paging by a query parameter, a redirect); any other path
    is a 404. ``paths`` records every request, query string included."""

    def __init__(self, routes: dict[str, tuple[str, bytes] | Callable[[str], Answer]]) -> None:
        self.routes = routes
        self.paths: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.paths.append(self.path)
                route = outer.routes.get(urlsplit(self.path).path)
                if route is None:
                    self.send_error(404)
                    return
                if callable(route):
                    status, headers, body = route(self.path)
                else:
                    status, headers, body = 200, {"Content-Type": route[0]}, route[1]
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> RouteServer:
        self.thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> RouteServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
