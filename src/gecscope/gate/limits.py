"""Bounds on what reaches the metrics: sentences of more than ``max_tokens`` tokens (a system
stuck in a loop, a whole file on one line) make some metrics run for hours, so they are
refused with the file and line, in the hypotheses (or scored as the unchanged source, when
asked) and in the sources and references alike. Never a silent truncation."""

from __future__ import annotations

from gecscope.data import EvalData
from gecscope.errors import ConfigError, FormatError
from gecscope.gate.findings import WARNING, Finding, finding
from gecscope.hypothesis import Hypothesis
from gecscope.types import Slot

#: The default of ``--max-tokens`` and ``max_tokens=`` (0: no limit).
MAX_TOKENS = 1000
#: The choices of ``--long-lines`` and ``long_lines=``.
LONG_LINES = ("error", "source")
#: the limit a data's sources and references were checked against (once per data and limit)
CHECKED: Slot[set[int]] = Slot(__name__, "CHECKED")


def check_limit(limit: int, action: str) -> None:
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise ConfigError(f"max_tokens must be a whole number >= 0 (0: no limit), not {limit!r}")
    if action not in LONG_LINES:
        raise ConfigError(f"unknown long_lines {action!r}; choose one of {', '.join(LONG_LINES)}")


def check_data_lines(data: EvalData, limit: int) -> None:
    """Refuse a source or reference sentence longer than ``limit`` tokens (FormatError naming
    the file and the sentence)."""
    if limit <= 0:
        return
    done = data.slot(CHECKED, set)
    if limit in done:
        return
    origin = (data.reference_paths[0] if data.m2 is not None else data.source_path) or "sources"
    sets = [(origin, data.sources, "source")]
    if data.has_references:
        paths = ([origin] * len(data.references) if data.m2 is not None
                 else list(data.reference_paths))
        sets += [(p, r, f"reference {k}") for k, (p, r) in
                 enumerate(zip(paths, data.references, strict=False))]
    for path, sentences, what in sets:
        for i, toks in enumerate(sentences):
            if len(toks) > limit:
                raise FormatError(f"{what} sentence {i + 1} has {len(toks):,} tokens, more than "
                                  f"--max-tokens {limit} (max_tokens=); raise the limit if it "
                                  "is meant (0: none)", path, i + 1 if data.m2 is None else None)
    done.add(limit)


def guard_long_lines(hyp: Hypothesis, data: EvalData, limit: int,
                     action: str) -> tuple[Hypothesis, Finding | None]:
    """Refuse (or, with ``action="source"``, replace by the source) hypothesis lines longer
    than ``limit`` tokens, and what was done."""
    if limit <= 0:
        return hyp, None
    long = [i for i, toks in enumerate(hyp.tokens) if len(toks) > limit]
    if not long:
        return hyp, None
    i = long[0]
    if action == "error" or hyp.m2 is not None:
        how = ("raise the limit" if hyp.m2 is not None else "raise the limit, or score such "
               "lines as the unchanged source with --long-lines source")
        raise FormatError(f"has {len(hyp.tokens[i]):,} tokens, more than --max-tokens {limit} "
                          f"({len(long)} such line(s)); {how}", hyp.path or hyp.name, i + 1)
    tokens = list(hyp.tokens)
    sources = hyp.sources if hyp.sources is not None else data.sources  # a file's own, if any
    for k in long:
        tokens[k] = tuple(sources[k])
    f = finding("long-lines", WARNING, f"{hyp.name}: {len(long)} line(s) longer than {limit} "
                f"tokens (first: line {i + 1}) scored as the unchanged source (--long-lines "
                "source)", "", file=hyp.path, system=hyp.name, lines=[k + 1 for k in long])
    return hyp.prepared(tokens, f"{len(long)} line(s) over --max-tokens {limit} scored as the "
                                "source"), f
