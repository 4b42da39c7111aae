"""JSON over HTTP for the network back-ends (the LLM weighting of CLEME2.0, the HTTP translator
of ``gecscope correct``), with the limits a long unattended run needs.

* one deadline for the whole request, retries included (a server that drips one byte at a time
  cannot keep a run alive: the socket time-out alone is per read);
* a cap on the size of the answer (a runaway server cannot fill the memory);
* bounded retries with backoff for transient failures (HTTP 429 and 5xx, a reset or closed
  connection);
* every failure raised as the caller's typed error, never a traceback: HTTP errors, refused
  connections, time-outs, a short body (``IncompleteRead``), invalid UTF-8, invalid JSON
  (and JSON Python cannot read: an integer of thousands of digits, nesting too deep).

Standard library only.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

MAX_BYTES = 16 * 1024 * 1024
TRANSIENT = frozenset({429, 500, 502, 503, 504})


def request_json(url: str, payload: Any | None = None, *, headers: Mapping[str, str] | None = None,
                 deadline: float = 60.0, max_bytes: int = MAX_BYTES, retries: int = 2,
                 error: Callable[[str], Exception] = RuntimeError,
                 backoff: float = 0.5) -> Any:
    """POST ``payload`` as JSON (GET when None) and return the decoded JSON answer.

    ``deadline`` bounds the whole call in seconds, retries included; ``max_bytes`` the answer;
    ``retries`` the extra attempts after a transient failure (waiting ``backoff``, then twice
    as long, ...). Failures raise ``error(message)``; the message names the URL, never the
    headers (which may hold an API key).
    """
    start = time.monotonic()
    headers = headers or {}
    data = None if payload is None else json.dumps(payload).encode("utf-8")
    wait = backoff
    attempt = 0
    while True:
        attempt += 1
        left = deadline - (time.monotonic() - start)
        if left <= 0:
            raise error(f"{url}: no complete answer within {deadline:g} s")
        try:
            return _once(url, data, headers, left, start + deadline, max_bytes, error)
        except _Transient as exc:
            if attempt > retries or time.monotonic() - start + wait >= deadline:
                raise error(f"{url}: {exc} (after {attempt} attempt(s))") from None
            time.sleep(wait)
            wait *= 2


class _Transient(Exception):
    """A failure worth another attempt."""


def _once(url: str, data: bytes | None, headers: Mapping[str, str], timeout: float,
          deadline: float, max_bytes: int, error: Callable[[str], Exception]) -> Any:
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET",
                                 headers={"Content-Type": "application/json",
                                          "Accept": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=max(0.001, timeout)) as resp:
            body = _read(resp, deadline, max_bytes, url, error)
    except urllib.error.HTTPError as exc:
        detail = exc.read(300).decode("utf-8", "replace") if exc.fp is not None else ""
        if exc.code in TRANSIENT:
            raise _Transient(f"HTTP {exc.code}: {detail[:200]}") from None
        raise error(f"{url}: HTTP {exc.code}: {detail[:200]}") from None
    except (ConnectionResetError, http.client.RemoteDisconnected, BrokenPipeError) as exc:
        raise _Transient(f"connection closed ({exc.__class__.__name__})") from None
    except http.client.IncompleteRead as exc:
        raise error(f"{url}: the answer ended early ({len(exc.partial)} bytes of "
                    f"{(exc.expected or 0) + len(exc.partial)})") from None
    except TimeoutError:
        raise error(f"{url}: no answer within the time limit") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            raise error(f"{url}: no answer within the time limit") from None
        raise error(f"{url}: cannot connect ({reason})") from None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{url}: the answer is not UTF-8 (byte offset {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise error(f"{url}: the answer is not JSON: {text[:200]!r}") from None
    except (ValueError, RecursionError) as exc:  # an integer too long to convert, deep nesting
        raise error(f"{url}: the answer is JSON that cannot be read ({str(exc)[:120]}): "
                    f"{text[:200]!r}") from None


def _read(resp: Any, deadline: float, max_bytes: int, url: str,
          error: Callable[[str], Exception]) -> bytes:
    length = resp.headers.get("Content-Length")
    if length is not None and length.isdigit() and int(length) > max_bytes:
        raise error(f"{url}: the answer would be {int(length):,} bytes, more than the "
                    f"{max_bytes:,} allowed")
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise error(f"{url}: the answer is arriving too slowly (deadline passed after "
                        f"{size:,} bytes)")
        chunk = resp.read1(65536)
        if not chunk:
            break
        size += len(chunk)
        if size > max_bytes:
            raise error(f"{url}: the answer is larger than the {max_bytes:,} bytes allowed")
        chunks.append(chunk)
    if length is not None and length.isdigit() and size < int(length):
        raise http.client.IncompleteRead(b"".join(chunks), int(length) - size)
    return b"".join(chunks)
