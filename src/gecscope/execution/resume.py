"""Keeping finished shards for ``--resume`` and checking them before they are reused.

A shard's M2 kept by an interrupted run (``annotate --resume``: ``OUTPUT.parts/shard-<n>-
<digest>.m2``; ``--sharded`` on Ray: the shard's own M2 file) is reused only when its check
record still matches: the shard it belongs to and its input lines, the digest of those lines
with the annotation options (:func:`shard_digest`) and the SHA-256 of the M2 text. So a
changed input or option, a text cut short or edited, or one shard's text saved under another
shard's name is annotated again, never copied into the output.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gecscope._versions import ERRANT_PACKAGES, package_versions
from gecscope.formats.base import atomic_write
from gecscope.types import Tokens


def shard_digest(shard: Sequence[Sequence[Tokens]], options: str) -> str:
    """Digest of a shard's input lines (every file) and the annotation options."""
    h = hashlib.sha256(options.encode("utf-8"))
    for lines in shard:
        h.update(b"\x1e")
        for toks in lines:
            h.update(" ".join(toks).encode("utf-8", "surrogatepass"))
            h.update(b"\n")
    return h.hexdigest()[:16]


def annotation_options(lev: bool, merge: str, files: int) -> str:
    """The options a shard's M2 depends on, as hashed into its digest (:func:`shard_digest`):
    the flags and the installed ERRANT, spaCy and spaCy model versions (a part annotated
    before an upgrade is annotated again, never mixed with parts of the new versions)."""
    versions = ",".join(f"{k}={v}" for k, v in package_versions(*ERRANT_PACKAGES).items())
    return f"errant-annotate-v1|lev={lev}|merge={merge}|files={files}|{versions}"


PART_MARK = b"#gecscope-part "  # starts a check record


@dataclass(frozen=True)
class PartCheck:
    """What a shard's M2 kept for ``--resume`` must match to be reused: the shard it belongs to
    (``shard``: its number, or its file's name for shard files), its input lines
    (``first``, 1-based, and ``count``) and the digest of those lines with the options
    (``input``, :func:`shard_digest`). Its :meth:`record` adds the SHA-256 of the M2 text, so
    a text cut short, edited or swapped with another shard's is recognised (an accident, not
    an attack: the record is not signed)."""

    shard: str
    first: int
    count: int
    input: str

    def _fields(self) -> dict[str, Any]:
        return {"shard": self.shard, "lines": [self.first, self.first + self.count - 1],
                "input": self.input}

    def where(self) -> str:
        """``shard 3 (lines 21-30)``, for messages."""
        return f"shard {self.shard} (lines {self.first}-{self.first + self.count - 1})"

    def record(self, m2: bytes) -> bytes:
        """The one-line record of ``m2``, this shard's M2 text (UTF-8)."""
        fields = {**self._fields(), "m2": hashlib.sha256(m2).hexdigest()}
        return PART_MARK + json.dumps(fields, ensure_ascii=True).encode("ascii") + b"\n"

    def problem(self, record: bytes, m2: bytes) -> str | None:
        """Why ``m2`` with its ``record`` cannot be reused for this shard, or ``None``."""
        try:
            fields = json.loads(record.removeprefix(PART_MARK)) if record.startswith(PART_MARK) \
                else None
        except ValueError:  # not JSON, or not UTF-8
            fields = None
        if not isinstance(fields, dict) or set(fields) != {"shard", "lines", "input", "m2"}:
            return "it has no valid check record (damaged, or written by an older gecscope)"
        if fields["shard"] != self.shard or fields["lines"] != self._fields()["lines"]:
            lines = fields["lines"]
            span = f"{lines[0]}-{lines[1]}" if isinstance(lines, list) and len(lines) == 2 \
                else lines
            return (f"it holds the M2 of shard {fields['shard']} (lines {span}), "
                    f"not of {self.where()}")
        if fields["input"] != self.input:
            return "it was annotated from other input lines or options"
        if fields["m2"] != hashlib.sha256(m2).hexdigest():
            return "its M2 text does not match its digest (cut short or edited)"
        try:
            m2.decode("utf-8")
        except UnicodeDecodeError:
            return "its M2 text is not UTF-8"
        return None


def write_part(path: Path, check: PartCheck, text: str) -> None:
    """Keep a shard's M2 ``text`` at ``path`` (atomically), after its check record."""
    body = text.encode("utf-8")
    atomic_write(path, [check.record(body).decode("ascii"), text])


def read_part(path: Path, check: PartCheck) -> tuple[str | None, str | None]:
    """The M2 text kept at ``path`` if it passes ``check``: (text, None); (None, why not) when
    it fails; (None, None) when there is no such file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"it cannot be read ({exc.strerror or exc})"
    record, _, body = data.partition(b"\n")
    why = check.problem(record, body)
    return (body.decode("utf-8"), None) if why is None else (None, why)


def note_warning(message: str) -> None:
    """The default way to tell that a kept shard was discarded: a warning (the CLI prints a
    note instead)."""
    import warnings

    warnings.warn(message, stacklevel=3)


def make_resume_folder(folder: Path) -> None:
    """Create the folder that keeps finished shards, or say (naming it) why it cannot be."""
    from gecscope.errors import OutputError

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError("exists but is not a folder; --resume keeps the finished shards in "
                          "a folder of that name: move or remove it", folder) from None
    except OSError as exc:
        raise OutputError(f"cannot create the folder that keeps the finished shards "
                          f"(--resume): {exc.strerror or exc}", folder) from None
