"""The network back-ends' HTTP client against a misbehaving local server (no mocks)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gecscope._http import request_json


class Failure(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    mode = "ok"
    calls = 0

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        type(self).calls += 1
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        mode = type(self).mode
        if mode == "flaky" and type(self).calls == 1 or mode == "error":
            self._send(500, b'{"error": "busy"}')
        elif mode == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()  # no length: streamed until the client stops reading
            try:
                for _ in range(10_000):
                    self.wfile.write(b" " * 65536)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif mode == "drip":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            try:
                for _ in range(100):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.2)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif mode == "latin1":
            self._send(200, '{"a": "caf\u00e9"}'.encode("latin-1"))
        elif mode == "short":
            self.send_response(200)
            self.send_header("Content-Length", "50")
            self.end_headers()
            self.wfile.write(b'{"a": 1')
            self.close_connection = True
        elif mode == "not-json":
            self._send(200, b"<html>oops</html>")
        elif mode == "hugeint":  # valid JSON; Python refuses integers over 4,300 digits
            self._send(200, b'{"created": 1' + b"0" * 5000 + b"}")
        elif mode == "deep":
            self._send(200, b"[" * 100_000 + b"]" * 100_000)
        else:
            self._send(200, b'{"ok": true}')

    def _send(self, code: int, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server() -> Iterator[tuple[str, type[_Handler]]]:
    handler = type("H", (_Handler,), {"mode": "ok", "calls": 0})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/x", handler
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_transient_500_is_retried(server: tuple[str, type[_Handler]]) -> None:
    url, handler = server
    handler.mode = "flaky"
    assert request_json(url, {"q": 1}, error=Failure, backoff=0.05) == {"ok": True}
    assert handler.calls == 2


def test_a_lasting_500_fails_after_the_retries(server: tuple[str, type[_Handler]]) -> None:
    url, handler = server
    handler.mode = "error"
    with pytest.raises(Failure, match=r"HTTP 500.*after 3 attempt"):
        request_json(url, {"q": 1}, error=Failure, backoff=0.01)
    assert handler.calls == 3


@pytest.mark.parametrize(("mode", "message"), [
    ("huge", "larger than the 1,000,000 bytes allowed"),   # was read whole: 6.3 GB
    ("drip", "arriving too slowly"),                        # kept a run alive past 400 s
    ("latin1", "not UTF-8"),                                # was a UnicodeDecodeError
    ("short", "ended early"),                               # was http.client.IncompleteRead
    ("not-json", "not JSON"),
    ("hugeint", "JSON that cannot be read .*4300 digits"),  # was a ValueError traceback
    ("deep", "JSON that cannot be read .*recursion"),       # was a RecursionError
])
def test_misbehaving_answers_are_typed_errors(server: tuple[str, type[_Handler]], mode: str,
                                              message: str) -> None:
    url, handler = server
    handler.mode = mode
    t0 = time.monotonic()
    with pytest.raises(Failure, match=message):
        request_json(url, {"q": 1}, error=Failure, deadline=3.0, max_bytes=1_000_000)
    assert time.monotonic() - t0 < 6.0  # the whole request is bounded


def test_the_api_key_never_appears_in_errors(server: tuple[str, type[_Handler]]) -> None:
    url, handler = server
    handler.mode = "error"
    with pytest.raises(Failure) as err:
        request_json(url, {"q": 1}, headers={"Authorization": "Bearer sk-SECRET"},
                     error=Failure, retries=0)
    assert "SECRET" not in str(err.value)
    with pytest.raises(Failure, match="cannot connect"):
        request_json("http://127.0.0.1:9/x", {"q": 1}, error=Failure, retries=0, deadline=2.0)
