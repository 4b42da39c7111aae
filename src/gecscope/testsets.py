"""Known test-set files, recognised by the SHA-256 of their content.

"My score differs from the paper" is often another version of the test set (one annotator's
M2 instead of the combined one, a re-annotated copy). The registry lists the files the field
scores against, each with the scorer and options its papers report, so ``gecscope check`` can
say which test set a reference file is. It is the JSON file shipped in the package
(``gecscope/data/testsets.json``) plus the user's own entries: files given with
``--registry``, the files listed in ``GECSCOPE_TESTSETS`` (separated by ``os.pathsep``) and
``$XDG_CONFIG_HOME/gecscope/testsets.json`` (default ``~/.config/gecscope/testsets.json``);
a user's entry wins over a shipped one with the same hash. docs/check.md describes the format.

Two hashes are kept: of the bytes, and of a normalised form (:func:`normalised_bytes`: no
BOM, ``\\n`` line ends, no trailing blanks or blank lines at the end), so a copy that went
through Windows still matches, and the match says it was only the normalised form.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from gecscope.errors import ConfigError

#: environment variable: more registry files, separated by ``os.pathsep``
ENV_VAR = "GECSCOPE_TESTSETS"
#: the value of the registry files' ``format`` key
REGISTRY_FORMAT = "gecscope-testsets-1"
_HEX = re.compile(r"^[0-9a-f]{64}$")
_BOM = b"\xef\xbb\xbf"


def normalised_bytes(data: bytes) -> bytes:
    """``data`` without a UTF-8 BOM, with ``\\n`` for CRLF and CR line ends, without blanks at
    line ends and without blank lines at the end; one final newline."""
    data = data.removeprefix(_BOM)
    lines = [ln.rstrip(b" \t") for ln in
             data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")]
    while lines and not lines[-1]:
        lines.pop()
    return b"\n".join(lines) + b"\n" if lines else b""


def digests(data: bytes) -> tuple[str, str]:
    """SHA-256 of ``data`` and of its :func:`normalised_bytes`, in hex."""
    return hashlib.sha256(data).hexdigest(), hashlib.sha256(normalised_bytes(data)).hexdigest()


@dataclass(frozen=True)
class KnownFile:
    """One registry entry: a file of a test set and how the field scores against it."""

    name: str
    sha256: str | None = None
    normalised_sha256: str | None = None
    #: what the file is: ``references``, ``source``, ``system output`` ...
    role: str = "references"
    #: the file's usual name
    file: str = ""
    #: the scorer and options the test set's papers report, in words
    scorer: str = ""
    #: the gecscope flags that give that number
    flags: str = ""
    note: str = ""
    #: a warning for whoever scores against this file (e.g. "one annotator only")
    warning: str = ""
    #: the registry file this entry came from
    origin: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in (("name", self.name), ("role", self.role), ("file", self.file),
                                 ("scorer", self.scorer), ("flags", self.flags),
                                 ("note", self.note), ("warning", self.warning),
                                 ("sha256", self.sha256),
                                 ("normalised_sha256", self.normalised_sha256),
                                 ("origin", self.origin)) if v}
        return {**self.extra, **out}


@dataclass(frozen=True)
class Match:
    """A file recognised: the entry, and whether its bytes matched (``exact``) or only its
    normalised form did (another line end, a BOM, trailing blanks)."""

    entry: KnownFile
    exact: bool


@dataclass(frozen=True)
class Headline:
    """How a test set's papers report their figure (a registry entry's ``headline``)."""

    test_set: str
    metric: str
    fields: tuple[str, ...]
    scale: float = 100.0
    digits: int = 2
    #: the reference file(s) the papers score against, by their usual names
    reference: str = ""
    #: the language the metric runs in (``zh`` for ChERRANT), ``""``: the default (English)
    language: str = ""
    #: metric -> why its number differs from the headline
    differs: Mapping[str, str] = field(default_factory=dict)

    @property
    def figure(self) -> str:
        """The headline field (the last of :attr:`fields`: F0.5 after P and R), the metric's
        main score, which the intervals and tests are of."""
        return self.fields[-1]

    def printed(self, value: float | None) -> str:
        """``value`` as the papers print it (e.g. 0.35012 -> ``35.01``)."""
        if value is None:
            return "-"
        return f"{value * self.scale:.{self.digits}f}"

    def as_dict(self) -> dict[str, Any]:
        return {"test_set": self.test_set, "metric": self.metric, "fields": list(self.fields),
                "scale": self.scale, "digits": self.digits, "reference": self.reference,
                "language": self.language}


def parse_headline(entry: KnownFile) -> Headline | None:
    """The entry's ``headline`` (``None`` without one); a malformed one is a
    :class:`ConfigError` naming the registry file and entry."""
    raw = entry.extra.get("headline")
    if raw is None:
        return None
    where = f"{entry.origin or 'registry'}: {entry.name}: headline"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected an object")
    fields = raw.get("fields")
    if not isinstance(raw.get("metric"), str) or not raw["metric"]:
        raise ConfigError(f"{where}: \"metric\" must be a metric name")
    if not isinstance(fields, list) or not fields or not all(isinstance(f, str) for f in fields):
        raise ConfigError(f"{where}: \"fields\" must be a non-empty list of field names")
    scale, digits = raw.get("scale", 100), raw.get("digits", 2)
    if isinstance(scale, bool) or not isinstance(scale, int | float) or scale <= 0:
        raise ConfigError(f"{where}: \"scale\" must be a positive number")
    if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 8:
        raise ConfigError(f"{where}: \"digits\" must be a whole number from 0 to 8")
    differs = raw.get("differs", {})
    if not isinstance(differs, dict) or not all(isinstance(v, str) for v in differs.values()):
        raise ConfigError(f"{where}: \"differs\" must map metric names to sentences")
    for key in ("test_set", "reference", "language"):
        if key in raw and not isinstance(raw[key], str):
            raise ConfigError(f"{where}: \"{key}\" must be a string")
    return Headline(raw.get("test_set") or entry.name, raw["metric"], tuple(fields),
                    float(scale), digits, raw.get("reference", ""), raw.get("language", ""),
                    dict(differs))


_FIELDS = ("name", "sha256", "normalised_sha256", "role", "file", "scorer", "flags", "note",
           "warning")


def parse_registry(data: Any, origin: str) -> list[KnownFile]:
    """The entries of a registry file's parsed JSON: ``{"format": "gecscope-testsets-1",
    "testsets": [{"name": ..., "sha256": ..., ...}]}`` (a bare list of entries is taken too).
    A malformed entry is a :class:`ConfigError` naming ``origin`` and the entry."""
    rows = data.get("testsets") if isinstance(data, dict) else data
    if isinstance(data, dict) and data.get("format", REGISTRY_FORMAT) != REGISTRY_FORMAT:
        raise ConfigError(f"{origin}: unknown registry format {data.get('format')!r}; "
                          f"expected {REGISTRY_FORMAT!r}")
    if not isinstance(rows, list):
        raise ConfigError(f"{origin}: expected {{\"format\": \"{REGISTRY_FORMAT}\", "
                          "\"testsets\": [...]} or a list of entries")
    out = []
    for k, row in enumerate(rows):
        where = f"{origin}: entry {k + 1}"
        if not isinstance(row, dict) or not isinstance(row.get("name"), str) or \
                not row["name"].strip():
            raise ConfigError(f"{where}: each entry is an object with a \"name\"")
        for key in ("sha256", "normalised_sha256"):
            value = row.get(key)
            if value is not None and not (isinstance(value, str) and _HEX.match(value.lower())):
                raise ConfigError(f"{where} ({row['name']}): {key} must be 64 hex digits "
                                  "(`gecscope check --hash FILE` prints them)")
        if not row.get("sha256") and not row.get("normalised_sha256"):
            raise ConfigError(f"{where} ({row['name']}): give sha256 or normalised_sha256 "
                              "(`gecscope check --hash FILE` prints both)")
        bad = [key for key in _FIELDS[3:] if key in row and not isinstance(row[key], str)]
        if bad:
            raise ConfigError(f"{where} ({row['name']}): {bad[0]} must be a string")
        known = {key: row[key] for key in _FIELDS if key in row}
        for key in ("sha256", "normalised_sha256"):
            if known.get(key):
                known[key] = known[key].lower()
        entry = KnownFile(**known, origin=origin,
                          extra={k: v for k, v in row.items() if k not in _FIELDS})
        parse_headline(entry)  # a malformed headline is this file's error, not a later one's
        out.append(entry)
    return out


def read_registry(path: str | Path) -> list[KnownFile]:
    """The entries of one registry file (see :func:`parse_registry`)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(f"{path}: registry file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the registry file ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    return parse_registry(data, str(path))


def shipped_registry() -> list[KnownFile]:
    """The entries shipped with gecscope (``gecscope/data/testsets.json``)."""
    text = resources.files("gecscope").joinpath("data", "testsets.json").read_text("utf-8")
    return parse_registry(json.loads(text), "gecscope/data/testsets.json")


def user_registry_path() -> Path:
    """``$XDG_CONFIG_HOME/gecscope/testsets.json`` (default ``~/.config/...``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "gecscope" / "testsets.json"


def load_registry(paths: Sequence[str | Path] = (), *, environment: bool = True) -> list[KnownFile]:
    """The registry: the user's entries first (``paths``, then those of ``GECSCOPE_TESTSETS``
    and the user config file when ``environment``), then the shipped ones; the first entry
    with a hash wins."""
    files: list[str | Path] = list(paths)
    if environment:
        files += [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]
        user = user_registry_path()
        if user.is_file():
            files.append(user)
    entries: list[KnownFile] = []
    for p in files:
        entries += read_registry(p)
    return entries + shipped_registry()


def identify(data: bytes, registry: Iterable[KnownFile]) -> Match | None:
    """The registry entry whose hash ``data`` has (its bytes first, then its normalised form),
    or ``None``."""
    raw, norm = digests(data)
    entries = list(registry)
    for e in entries:
        if e.sha256 == raw or (e.normalised_sha256 == norm and e.normalised_sha256 == raw):
            return Match(e, exact=True)
    for e in entries:
        if e.normalised_sha256 == norm or (e.sha256 is not None and e.sha256 == norm):
            return Match(e, exact=False)
    return None


def registry_entry(path: str | Path, name: str = "") -> dict[str, Any]:
    """A registry entry for the file at ``path`` (its hashes, its name and line count), for
    the user to complete with the scorer and flags (``gecscope check --hash FILE``)."""
    data = Path(path).read_bytes()
    raw, norm = digests(data)
    return {"name": name or Path(path).name, "role": "references", "file": Path(path).name,
            "lines": normalised_bytes(data).count(b"\n"), "scorer": "", "flags": "",
            "sha256": raw, "normalised_sha256": norm}
