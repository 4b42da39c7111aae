"""What the gate finds about an evaluation's inputs, as data: a :class:`Finding` has a code,
a severity, the file and lines it is about, a message and a fix. The same finding is an
:class:`~gecscope.errors.InputWarning` for Python callers, a ``gecscope: warning: ...`` line
on the command line and a block of ``gecscope check``; an error finding is raised as
:class:`InputRefusedError` (exit 65), naming the ``--allow`` code that scores anyway when
there is one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gecscope.errors import ConfigError, FormatError

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (ERROR, WARNING, INFO)
#: line numbers kept per finding (the count is kept whole)
MAX_LINES = 50

#: What ``--allow CODE`` (``allow=[CODE]``) scores anyway, and what it then does.
ALLOWABLE = {
    "other-test-set": "score a hypothesis whose lines are like none of the source sentences "
                      "(the output for another test set?) line by line",
    "misplaced-lines": "score lines that are other source sentences' outputs (swapped, "
                       "shifted, lines lost and added) as they are",
    "uncertain-alignment": "score sentences that realignment could not place with certainty "
                           "as aligned, listed (up to 5% of the sentences)",
}


@dataclass(frozen=True)
class Finding:
    """One thing found: ``code`` names the check (docs/check.md lists them), ``lines`` are
    1-based line numbers of ``file`` (at most :data:`MAX_LINES`; ``count`` is how many there
    were), ``fix`` says what to do (the flag to use)."""

    code: str
    severity: str
    message: str
    fix: str = ""
    file: str | None = None
    system: str | None = None
    lines: tuple[int, ...] = ()
    count: int = 0
    #: a few words for one-line summaries ("lines 40-43 shifted")
    short: str = ""
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    def where(self) -> str:
        """``file:lines`` ("NTHU:40-43", "AMU: 3 lines from 12"), or the file alone."""
        where = self.file or self.system or ""
        if self.lines:
            where += f":{format_lines(self.lines, self.count)}"
        return where

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "system": self.system,
                "file": self.file, "lines": list(self.lines),
                "line_count": self.count or len(self.lines), "message": self.message,
                "fix": self.fix, "data": self.data}


def format_lines(lines: Sequence[int], count: int = 0) -> str:
    """``1-3,7`` for lines 1, 2, 3 and 7, with ``(+N more)`` past the ones kept."""
    parts: list[str] = []
    start = prev = None
    for n in lines:
        if prev is not None and n == prev + 1:
            prev = n
            continue
        if start is not None:
            parts.append(f"{start}-{prev}" if prev != start else f"{start}")
        start = prev = n
    if start is not None:
        parts.append(f"{start}-{prev}" if prev != start else f"{start}")
    more = count - len(lines)
    return ",".join(parts) + (f" (+{more} more)" if more > 0 else "")


def finding(code: str, severity: str, message: str, fix: str = "", *, file: str | None = None,
            system: str | None = None, lines: Sequence[int] = (), short: str = "",
            **data: Any) -> Finding:
    """A :class:`Finding`, its lines cut to :data:`MAX_LINES` (the count kept)."""
    return Finding(code, severity, message, fix, file, system, tuple(lines[:MAX_LINES]),
                   len(lines), short or code, data)


class InputRefusedError(FormatError):
    """An input the gate will not score as given (exit 65): its lines are another test set's,
    lines were lost, added or moved, or realignment could not be certain. ``finding`` is the
    error finding; ``allow`` the ``--allow`` code that scores it anyway (``None``: none
    does, the file must be repaired)."""

    def __init__(self, found: Finding, allow: str | None = None) -> None:
        self.finding = found
        self.allow = allow
        message = found.message
        where = found.file or found.system
        if where == found.system and message.startswith(f"{found.system}: "):
            message = message[len(found.system or "") + 2:]  # not "AMU: AMU: ..."
        if found.fix:
            message += f"; {found.fix}"
        super().__init__(message, where)


def check_allow(allow: Iterable[str] | str | None) -> frozenset[str]:
    """``allow`` as a set of :data:`ALLOWABLE` codes (a comma-separated string is split); an
    unknown code is a :class:`~gecscope.errors.ConfigError` listing the known ones."""
    if allow is None:
        return frozenset()
    items = allow.split(",") if isinstance(allow, str) else list(allow)
    codes = frozenset(c.strip() for c in items if c.strip())
    unknown = sorted(codes - set(ALLOWABLE))
    if unknown:
        raise ConfigError(f"unknown --allow code {unknown[0]!r}; choose from "
                          f"{', '.join(sorted(ALLOWABLE))}")
    return codes


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    """How many findings of each severity."""
    c = {s: 0 for s in SEVERITIES}
    for f in findings:
        c[f.severity] += 1
    return c
