"""A real HTTP server on the loopback interface, for the tests of gecscope's HTTP clients (LLM
judges, CLEME2.0's LLM weighting, the answer cache): one place starts and stops it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on a free port of 127.0.0.1 while the block runs; yields the
    OpenAI-style API base URL (``http://127.0.0.1:PORT/v1``)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


class JSONHandler(BaseHTTPRequestHandler):
    """A quiet request handler that answers in JSON (the servers' handlers derive from it)."""

    def log_message(self, *args: Any) -> None:
        pass

    def read_json(self) -> Any:
        """The request body, parsed."""
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def send_json(self, status: int, payload: Any) -> None:
        """Answer ``payload`` as JSON with ``status``."""
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
