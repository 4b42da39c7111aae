#!/usr/bin/env python
"""Automatic USIM on JFLEG dev (Choshen & Abend 2018, sec. 4.5): valid vs unfaithful corrections.

Each JFLEG dev source is compared with (a) its four human references (valid corrections) and
(b) corrections made unfaithful on purpose from reference 0, with a fixed seed:

* ``truncated``: only the first half of the reference's tokens;
* ``phrase-deleted``: a random contiguous third of the tokens removed;
* ``every-other-word``: every other word (from the second on) replaced by a word drawn from
  other references of the corpus;
* ``shuffled``: the reference's words in a random order;
* ``other-sentence``: the reference of a different source sentence.

Both sides are parsed by the chosen backend(s) (``ucca``: the trained parser; ``approx-spacy``:
the dependency-derived approximation) and USIM (average of the two alignment directions,
paper node weights) is averaged over sentences. Prints a table and writes JSON.

    python scripts/usim_jfleg.py --jfleg ../shared/data/jfleg/dev --parsers ucca approx-spacy
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from gecscope.metrics.usim.core import USimGraph, USimOptions, usim_graphs
from gecscope.semantics.parser import get_parser


def corruptions(refs: list[list[str]], seed: int) -> dict[str, list[list[str]]]:
    """Unfaithful versions of each reference (see the module docstring)."""
    rng = random.Random(seed)
    pool = [w for r in refs for w in r if w.isalpha()]
    out: dict[str, list[list[str]]] = {"truncated": [], "phrase-deleted": [],
                                       "every-other-word": [], "shuffled": [],
                                       "other-sentence": []}
    n = len(refs)
    for k, r in enumerate(refs):
        out["truncated"].append(r[:max(1, len(r) // 2)])
        third = max(1, len(r) // 3)
        start = rng.randrange(0, max(1, len(r) - third + 1))
        out["phrase-deleted"].append((r[:start] + r[start + third:]) or r[:1])
        out["every-other-word"].append([rng.choice(pool) if i % 2 == 1 and w.isalpha() else w
                                        for i, w in enumerate(r)])
        sh = list(r)
        rng.shuffle(sh)
        out["shuffled"].append(sh)
        out["other-sentence"].append(refs[(k + 1 + rng.randrange(n - 1)) % n] if n > 1 else r)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jfleg", default="../shared/data/jfleg/dev")
    ap.add_argument("--parsers", nargs="+", default=["ucca", "approx-spacy"])
    ap.add_argument("--limit", type=int, default=0, help="first N sentences only (0: all)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--json", default="", help="write the results here")
    args = ap.parse_args()

    d = Path(args.jfleg)
    stem = d.name

    def read(name: str) -> list[list[str]]:
        lines = (d / f"{stem}.{name}").read_text(encoding="utf-8").splitlines()
        return [line.split() for line in lines]

    src = read("src")
    refs = {f"ref{i}": read(f"ref{i}") for i in range(4)}
    if args.limit:
        src = src[:args.limit]
        refs = {k: v[:args.limit] for k, v in refs.items()}
    systems: dict[str, list[list[str]]] = {"source (identity)": src, **refs,
                                           **corruptions(refs["ref0"], args.seed)}
    opts = USimOptions()
    results: dict[str, dict[str, float]] = {}
    for pname in args.parsers:
        parser = get_parser(pname)
        uniq: dict[tuple[str, ...], USimGraph] = {}
        todo = sorted({tuple(s) for sents in systems.values() for s in sents if s})
        t0 = time.time()
        labels: dict[str, int] = {}
        for toks, p in zip(todo, parser.parse([list(t) for t in todo]), strict=True):
            uniq[toks] = USimGraph(p, opts, labels)
        secs = time.time() - t0
        print(f"[{pname}] parsed {len(todo)} distinct sentences in {secs:.1f}s "
              f"({len(todo) / secs:.1f}/s)", file=sys.stderr)
        res: dict[str, float] = {}
        for name, sents in systems.items():
            scores = []
            for s, c in zip(src, sents, strict=True):
                if not s or not c:
                    scores.append(1.0 if s == c else 0.0)
                    continue
                scores.append(usim_graphs(uniq[tuple(s)], uniq[tuple(c)], opts).average)
            res[name] = sum(scores) / len(scores)
        results[pname] = res
    names = list(systems)
    print(f"{'correction':22}" + "".join(f"{p:>14}" for p in args.parsers))
    for name in names:
        print(f"{name:22}" + "".join(f"{results[p][name]:14.3f}" for p in args.parsers))
    if args.json:
        Path(args.json).write_text(json.dumps({"sentences": len(src), "seed": args.seed,
                                               "usim": results}, indent=2) + "\n",
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
