"""A loopback HTTP server answering fixed routes: the providers' recorded replies, served
for real (sockets, headers, Content-Length) so clients are tested over HTTP."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class RouteServer:
    """``routes`` maps a path (query string ignored) to ``(content type, body)``; any other
    path is a 404. ``paths`` records every request, query string included."""

    def __init__(self, routes: dict[str, tuple[str, bytes]]) -> None:
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
                content_type, body = route
                self.send_response(200)
                self.send_header("Content-Type", content_type)
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
