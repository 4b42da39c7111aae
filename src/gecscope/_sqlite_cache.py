"""SQLite files used as on-disk caches (the LLM answers of :mod:`gecscope.llm_client`, the
round trips of :mod:`gecscope.rtt.translator`), opened and used the same careful way.

* A busy database (another process holds a lock) is waited on for ``timeout`` seconds, then
  :class:`~gecscope.errors.CacheBusyError` (exit 75, "try again") names the file. Busy is
  never taken for damaged: the other process's work stays where it is.
* Only a regular file that SQLite itself reports as "not a database" or "malformed" is moved
  aside (``NAME.corrupt-TIME``, with a warning) and started anew; a directory or anything else
  that is not a regular file at the cache path is an error, never moved.
* The cache is proven writable when it is opened, by a real write (``PRAGMA user_version``,
  which needs the file and its directory, for the journal): a read-only directory or file
  fails there with :class:`~gecscope.errors.OutputError` (exit 73) naming the path, before any
  paid or slow work is done, not after it.
* :func:`guard` turns an SQLite failure during a later read or write into the same errors.
* :func:`row_digest` is the digest each cache row carries over its fields: a row changed
  after it was written (by hand, by another program) no longer matches it and is not used.
* :class:`SQLiteCache` is the base of both caches: where the file is, opening it, the
  ``digest`` column added to a cache written before rows carried one, its size, closing it.

Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from gecscope.errors import CacheBusyError, GecscopeError, OutputError

#: seconds a busy cache is waited on before giving up
DEFAULT_TIMEOUT = 60.0
_BUSY = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED
_DAMAGED = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB


def row_digest(row_format: str, *fields: str) -> str:
    """SHA-256 over a cache row's format name and fields (its key, its request, its answer),
    stored in the row: a row any field of which was changed after it was written no longer
    matches it. (It detects changes; it is no secret, so it cannot stop a deliberate forgery
    by someone who can write the cache, who could also change the installed code.)"""
    text = json.dumps([row_format, *fields], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def default_cache_dir() -> Path:
    """``$GECSCOPE_CACHE``, else ``$XDG_CACHE_HOME/gecscope``, else ``~/.cache/gecscope``."""
    if os.environ.get("GECSCOPE_CACHE"):
        return Path(os.environ["GECSCOPE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gecscope"


def _code(exc: sqlite3.Error) -> int:
    """The primary SQLite result code of ``exc`` (-1 when unknown)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    text = str(exc)
    if "locked" in text or "busy" in text:
        return 5
    if "not a database" in text:
        return 26
    if "malformed" in text:
        return 11
    return -1


def failure(exc: sqlite3.Error, path: Path, what: str, timeout: float,
            hint: str) -> GecscopeError:
    """The typed error for an SQLite failure on the cache ``path``."""
    code = _code(exc)
    if code in _BUSY:
        return CacheBusyError(path, what, timeout)
    if code in _DAMAGED:
        return OutputError(f"the {what} is damaged ({exc}); it is only a cache: move it away "
                           "or delete it", path)
    return OutputError(f"cannot use the {what} ({exc}); {hint}", path)


@contextmanager
def guard(path: Path, what: str, timeout: float, hint: str) -> Iterator[None]:
    """Raise an SQLite failure inside the block as :func:`failure`'s typed error."""
    try:
        yield
    except sqlite3.Error as exc:
        raise failure(exc, path, what, timeout, hint) from None


def open_cache(path: Path, what: str, schema: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
               hint: str = "", version: int = 1) -> sqlite3.Connection:
    """Open (or create) the cache database ``path``: run ``schema`` (``CREATE ... IF NOT
    EXISTS`` statements) and a write proving it writable, in one transaction.

    ``what`` names the cache in messages, ``hint`` says how to avoid it (another directory,
    no cache); ``version`` is stored as the database's ``user_version``.
    """
    hint = hint or "make it writable or use another cache directory"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the directory of the {what}: "
                          f"{exc.strerror or exc}; {hint}", path.parent) from None
    if os.path.lexists(path) and not path.is_file():
        raise OutputError(f"is not a regular file, so it cannot be the {what} (it is left as "
                          f"it is); remove it, or {hint}", path)
    try:
        return _prepare(path, schema, timeout, version)
    except sqlite3.Error as exc:
        if _code(exc) not in _DAMAGED or not path.is_file():
            raise failure(exc, path, what, timeout, hint) from None
    aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
    try:
        os.replace(path, aside)
        for suffix in ("-journal", "-wal", "-shm"):  # never replayed into the new file
            side = path.with_name(path.name + suffix)
            if side.is_file():
                os.replace(side, aside.with_name(aside.name + suffix))
    except OSError as exc:
        raise OutputError(f"the {what} is damaged and cannot be moved aside: "
                          f"{exc.strerror or exc}; {hint}", path) from None
    warnings.warn(f"the {what} {path} was unreadable; moved it to {aside} and started an "
                  "empty one (SQLite found no database, or a damaged one)", RuntimeWarning,
                  stacklevel=3)
    try:
        return _prepare(path, schema, timeout, version)
    except sqlite3.Error as exc:
        raise failure(exc, path, what, timeout, hint) from None


def _prepare(path: Path, schema: Sequence[str], timeout: float,
             version: int) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=timeout)
    try:
        db.execute("BEGIN IMMEDIATE")  # waits (up to timeout) for another writer
        for statement in schema:
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {int(version)}")  # a write: needs file and directory
        db.commit()
    except BaseException:
        db.close()
        raise
    return db


class SQLiteCache:
    """One SQLite cache file in a directory (default :func:`default_cache_dir`), opened with
    :func:`open_cache` and used inside :meth:`_guard`. A subclass names the file, its table
    (whose rows carry a ``digest`` column) and the messages, and adds its reads and writes;
    rows that fail their digest are listed in ``rejected``."""

    #: what the cache is called in messages, and how to do without it
    WHAT: ClassVar[str]
    HINT: ClassVar[str]
    #: the file name in the cache directory, the table and its ``CREATE TABLE IF NOT EXISTS``
    FILE: ClassVar[str]
    TABLE: ClassVar[str]
    SCHEMA: ClassVar[str]

    def __init__(self, directory: str | os.PathLike[str] | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.directory = Path(directory).expanduser() if directory else default_cache_dir()
        self.path = self.directory / self.FILE
        self.timeout = timeout
        self.rejected: list[Any] = []
        self._db = open_cache(self.path, self.WHAT, [self.SCHEMA], timeout=timeout,
                              hint=self.HINT, version=2)
        with self._guard():
            columns = {row[1] for row in self._db.execute(f"PRAGMA table_info({self.TABLE})")}
            if "digest" not in columns:  # a cache written before rows carried a digest
                self._db.execute(f"ALTER TABLE {self.TABLE} ADD COLUMN digest TEXT")
                self._db.commit()

    def _guard(self) -> Any:
        return guard(self.path, self.WHAT, self.timeout, self.HINT)

    def __len__(self) -> int:
        with self._guard():
            return int(self._db.execute(f"SELECT COUNT(*) FROM {self.TABLE}").fetchone()[0])

    def close(self) -> None:
        self._db.close()
