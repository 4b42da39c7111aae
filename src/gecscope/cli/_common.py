"""Helpers shared by the subcommands: option parsing, progress display, table rendering."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
import typing
from collections.abc import Sequence
from typing import Any, TextIO

from gecscope.errors import ConfigError


def parse_options(pairs: Sequence[str], config_cls: type, metric: str) -> dict[str, Any]:
    """Turn ``key=value`` (or ``metric.key=value``) pairs into Config keyword arguments.

    Values are converted by the type of the Config field; options addressed to another metric
    (``other.key=value``) and keys this metric does not have are ignored only when prefixed.
    """
    hints = typing.get_type_hints(config_cls)
    fields = {f.name for f in dataclasses.fields(config_cls)}
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ConfigError(f"--option expects key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        if "." in key:
            target, key = key.split(".", 1)
            if target != metric:
                continue
        elif key not in fields:
            continue
        if key not in fields:
            raise ConfigError(f"metric {metric!r} has no option {key!r}; options: "
                              f"{', '.join(sorted(fields))}")
        out[key] = convert(value, hints[key], key)
    return out


def convert(value: str, hint: Any, key: str) -> Any:
    """Convert a command-line string to the annotated type of a Config field."""
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value.lower() in ("none", "null", "") and type(None) in args:
            return None
        for a in args:
            if a is not type(None):
                return convert(value, a, key)
    if origin is tuple:
        inner = args[0] if args else str
        return tuple(convert(v, inner, key) for v in value.split(",") if v)
    try:
        if hint is bool:
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if hint in (int, float, str):
            return hint(value)
    except ValueError:
        raise ConfigError(f"option {key}: cannot read {value!r} as {hint.__name__}") from None
    return value


class Progress:
    """A one-line progress display on stderr, shown only on a terminal and after 2 seconds."""

    def __init__(self, total: int, desc: str, quiet: bool = False,
                 stream: TextIO | None = None) -> None:
        self.total = total
        self.desc = desc
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self.start = time.monotonic()
        self._last = 0.0

    def __call__(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < 2.0 or now - self._last < 0.1:
            return
        self._last = now
        rate = self.done / max(now - self.start, 1e-9)
        pct = 100.0 * self.done / self.total if self.total else 100.0
        self.stream.write(f"\r{self.desc}: {self.done}/{self.total} ({pct:3.0f}%, "
                          f"{rate:.0f}/s)")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and time.monotonic() - self.start >= 2.0:
            self.stream.write("\n")
            self.stream.flush()


def fmt_value(v: Any, digits: int = 4) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15 and digits == 0:
            return str(int(v))
        return f"{v:.{digits}f}"
    return str(v)


def _count_column(values: list[Any]) -> bool:
    """A column of whole numbers stored as floats (counts), shown without decimals."""
    return all(isinstance(v, float) and v.is_integer() for v in values) and any(
        abs(v) > 1 for v in values)


def render_table(header: Sequence[str], rows: Sequence[Sequence[Any]], digits: int = 4) -> str:
    """Aligned plain-text table: first column left-aligned, the rest right-aligned."""
    counts = {i for i in range(len(header)) if rows and _count_column([r[i] for r in rows])}
    cells = [[str(h) for h in header]] + [
        [str(int(v)) if i in counts else fmt_value(v, digits) for i, v in enumerate(r)]
        for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for n, r in enumerate(cells):
        parts = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_tsv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = ["\t".join(header)]
    for r in rows:
        out.append("\t".join(repr(v) if isinstance(v, float) else str(v) for v in r))
    return "\n".join(out)


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


def use_colour(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ
