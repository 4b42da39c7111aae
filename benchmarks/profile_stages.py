#!/usr/bin/env python
"""Where the CPU seconds of the whole CoNLL-2014 evaluation go, stage by stage.

Runs ``gecscope evaluate`` in this process (``--jobs 1``, a fresh cache directory, so nothing
is reused from an earlier run) on the 13 CoNLL-2014 outputs with errant, m2, gleu, imeasure,
cleme and cleme2 against the official M2, with a CPU timer around the functions of each
stage. Times are exclusive: a stage's seconds do not include those of the stages it calls
(the spaCy parse that an edit extraction triggers is the parse's). Prints one table: stage,
CPU seconds, share, and the total against the process's own CPU time (the remainder is
"other": imports, argument parsing, the gate's checks outside the stages named).

    python benchmarks/profile_stages.py [--data ../shared/data] [--metrics errant m2 ...]
        [--systems K] [--json FILE]

The physical floor of the job is the spaCy parse of its distinct sentences plus reading the
files; the table shows how far each other stage is above it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clock import Clock

METRICS = ("errant", "m2", "gleu", "imeasure", "cleme", "cleme2")


class StageTimer:
    """Exclusive CPU seconds per stage: a call of a wrapped function charges its time to its
    stage, minus the time of the wrapped calls inside it (charged to theirs)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._stack: list[list[float]] = []  # per open call: [start, time of nested calls]

    def wrap(self, owner: Any, name: str, stage: str) -> None:
        """Replace ``owner.name`` (a function or method) by a timed one."""
        inner = getattr(owner, name)
        if getattr(inner, "_staged", False):
            return
        timer = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            frame = [time.process_time(), 0.0]
            timer._stack.append(frame)
            try:
                return inner(*args, **kwargs)
            finally:
                timer._stack.pop()
                spent = time.process_time() - frame[0]
                timer.seconds[stage] = timer.seconds.get(stage, 0.0) + spent - frame[1]
                timer.calls[stage] = timer.calls.get(stage, 0) + 1
                if timer._stack:
                    timer._stack[-1][1] += spent

        timed._staged = True  # type: ignore[attr-defined]
        if isinstance(owner, type) and isinstance(owner.__dict__.get(name), staticmethod):
            setattr(owner, name, staticmethod(timed))
        elif isinstance(owner, type) and isinstance(owner.__dict__.get(name), classmethod):
            setattr(owner, name, classmethod(lambda cls, *a, **k: timed(cls, *a, **k)))
        else:
            setattr(owner, name, timed)


def wrap_everywhere(timer: StageTimer, module: Any, name: str, stage: str) -> None:
    """Wrap ``module.name`` and every ``from module import name`` copy of it in gecscope's
    loaded modules (a function imported by name is looked up in the importing module)."""
    original = getattr(module, name)
    timer.wrap(module, name, stage)
    timed = getattr(module, name)
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("gecscope") and mod is not module and \
                getattr(mod, name, None) is original:
            setattr(mod, name, timed)


def instrument_metrics(timer: StageTimer, metrics: list[str], label: str = "{} statistics"
                       ) -> None:
    """Time each metric's statistics (its methods that score and check), one stage each."""
    from gecscope.alignment import errant as errant_align
    from gecscope.registry import get_metric

    for name in ("parse_many", "doc"):
        timer.wrap(errant_align.ErrantAnnotator, name, "spaCy parse")
    for name in ("_annotate", "retype_corpus"):
        timer.wrap(errant_align.ErrantAnnotator, name, "edit extraction (ERRANT)")
    for m in metrics:
        cls = get_metric(m)
        for meth in ("prepare_systems", "sentence_stats", "range_stats", "aggregate",
                     "sentence_values", "check_inputs", "check_hypothesis"):
            if meth in vars(cls) or any(meth in vars(b) for b in cls.__mro__[1:-1]):
                timer.wrap(cls, meth, label.format(m))


def instrument(timer: StageTimer, metrics: list[str]) -> None:
    """Wrap the functions of each stage (the modules are imported here, before the run)."""
    import gecscope.cli._inputs as inputs
    import gecscope.cli.check as check_cli
    import gecscope.cli.evaluate as evaluate_cli
    from gecscope import gate
    from gecscope.alignment import errant as errant_align
    from gecscope.reports import model, tables

    timer.wrap(inputs, "load_inputs", "reading (references, hypotheses)")
    timer.wrap(gate, "admit", "gate (input checks, realignment)")
    timer.wrap(check_cli, "print_summary", "check summary line")
    timer.wrap(errant_align, "load_nlp", "loading spaCy")
    instrument_metrics(timer, metrics)
    timer.wrap(model, "build_report", "reporting (report model)")
    timer.wrap(tables, "format_evaluation", "reporting (tables)")
    timer.wrap(evaluate_cli, "build_metrics", "building the metrics")


@contextlib.contextmanager
def fresh_cache() -> Iterator[str]:
    """A new, empty cache directory for the run (no result reused from an earlier one)."""
    with tempfile.TemporaryDirectory(prefix="gecscope-profile-") as d:
        old = os.environ.get("GECSCOPE_CACHE")
        os.environ["GECSCOPE_CACHE"] = d
        try:
            yield d
        finally:
            if old is None:
                os.environ.pop("GECSCOPE_CACHE", None)
            else:
                os.environ["GECSCOPE_CACHE"] = old


def run(argv: list[str], call: Callable[[list[str]], int]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = call(argv)
    return rc, out.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--metrics", nargs="+", default=list(METRICS))
    ap.add_argument("--systems", type=int, default=0, help="the first K outputs only")
    ap.add_argument("--json", type=Path, help="also write the table as JSON")
    args = ap.parse_args()
    conll = args.data / "conll14"
    hyps = sorted(str(p) for p in (conll / "submissions").iterdir())
    if args.systems:
        hyps = hyps[:args.systems]
    timer = StageTimer()
    with Clock() as load:
        from gecscope.cli.main import main as gecscope_main

        instrument(timer, args.metrics)
    argv = ["evaluate", "-q", "--jobs", "1", "-r", str(conll / "official-2014.combined.m2"),
            "--hyp", *hyps]
    for m in args.metrics:
        argv += ["-m", m]
    with fresh_cache(), Clock() as clock:
        rc, _ = run(argv, gecscope_main)
    if rc != 0:
        print(f"gecscope evaluate failed (exit {rc})", file=sys.stderr)
        return rc
    total = clock.cpu
    named = sum(timer.seconds.values())
    rows = sorted(timer.seconds.items(), key=lambda kv: -kv[1])
    rows.append(("other (imports, gate, glue)", total - named))
    print(f"{len(hyps)} systems x {', '.join(args.metrics)} on CoNLL-2014, --jobs 1, cold "
          f"cache: {clock} (importing gecscope's CLI before: {load})")
    print()
    print("| stage | CPU s | share | calls |")
    print("|---|---:|---:|---:|")
    for stage, sec in rows:
        print(f"| {stage} | {sec:.2f} | {sec / total:.0%} | {timer.calls.get(stage, '')} |")
    print(f"| **total** | **{total:.2f}** | 100% | |")
    if args.json:
        args.json.write_text(json.dumps({"wall": clock.wall, "cpu": total,
                                         "stages": dict(rows)}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
