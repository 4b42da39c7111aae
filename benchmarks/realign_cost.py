"""What the gate's realignment costs against input size (#41 item 5): 1k, 2k, 4k and 8k
sentences, CPU seconds beside wall time, and the peak memory of the process.

    python benchmarks/realign_cost.py [--sizes 1000,2000,4000,8000] [--seed 1]

The sentences are synthetic (seeded, so every run builds the same text): a vocabulary of
2,000 made-up words, sentences of 5 to 30 words. Per size, three inputs go through
:func:`gecscope.gate.admit` with the default options (``hyp_level="auto"``):

- ``paragraphs``: the lightly edited sentences joined five to a line (realigned, a warning);
- ``dropped``: one line per sentence with one line lost in the middle (refused, exit 65);
- ``swapped``: one line per sentence with two distant lines swapped (kept, a warning).

Before #41 realignment grew quadratically (6,000 lines: 212 s and 1.16 GB); the band and the
trigram index make it linear or near it: the ``CPU s per 1k`` column should stay flat.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _clock import Clock


def sentences(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(2000)]
    return [" ".join(rng.choice(vocab) for _ in range(rng.randint(5, 30))) + " ."
            for _ in range(n)]


def edited(lines: list[str], seed: int) -> list[str]:
    """Each sentence with one word dropped or doubled one time in three (a system's edits)."""
    rng = random.Random(seed + 1)
    out = []
    for s in lines:
        w = s.split()
        if rng.random() < 1 / 3:
            k = rng.randrange(len(w) - 1)
            w = w[:k] + w[k + 1:] if rng.random() < 0.5 else w[:k] + [w[k]] + w[k:]
        out.append(" ".join(w))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,2000,4000,8000")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    from gecscope.data import EvalData, Hypothesis
    from gecscope.errors import GecscopeError
    from gecscope.gate import admit

    print(f"{'lines':>6}  {'input':<10}  {'outcome':<9}  {'wall s':>7}  {'CPU s':>7}  "
          f"{'CPU s per 1k':>12}  {'peak RSS MB':>11}")
    for n in (int(x) for x in args.sizes.split(",")):
        src = sentences(n, args.seed)
        hyp = edited(src, args.seed)
        para = [" ".join(hyp[i:i + 5]) for i in range(0, n, 5)]
        dropped = hyp[:n // 2] + hyp[n // 2 + 1:]
        swapped = list(hyp)
        swapped[n // 10], swapped[9 * n // 10] = swapped[9 * n // 10], swapped[n // 10]
        for name, lines in (("paragraphs", para), ("dropped", dropped), ("swapped", swapped)):
            data = EvalData.from_texts(src)  # a fresh one: no index or result reused
            with Clock() as c, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    admit(data, [Hypothesis.from_texts(lines, name)])
                    outcome = "scored"
                except GecscopeError as exc:
                    outcome = f"exit {exc.exit_code}"
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{n:>6}  {name:<10}  {outcome:<9}  {c.wall:>7.2f}  {c.cpu:>7.2f}  "
                  f"{c.cpu / n * 1000:>12.3f}  {rss:>11.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
