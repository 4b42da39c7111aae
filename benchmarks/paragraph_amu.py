"""Paragraph-level output realigned to sentences: CoNLL-2014 AMU joined into paragraphs, cut
back into the test set's sentences by ``hyp_level="auto"`` and scored; the figures of
docs/raw-text.md ("Paragraph-level output").

    python benchmarks/paragraph_amu.py [--data ../shared/data/conll14] [--system AMU]
                                       [--groups 5,20] [--metrics m2,errant]

The CoNLL-2014 files do not say where the essays' paragraphs begin, so every ``N`` consecutive
sentences of the system's output are joined into one line (``--groups``), tokenised as
submitted and detokenised (sacremoses' Moses detokeniser, ``sacremoses==0.1.1`` as in the dev
dependencies; a simple rule-based one when it is not installed). Each paragraph file is
realigned to the test set's 1,312 sentences (:func:`gecscope.alignment.sentences.align_sentences`
through ``gecscope.evaluate(..., hyp_level="auto")``) and scored with M2 (official combined
M2) and ERRANT (the ERRANT-typed references); the detokenised files are scored with
``hyp_tokenise="auto"`` as well. Printed: the share of sentences whose realigned text is
exactly the original line (whitespace-normalised), the low-confidence count, the alignment's
wall and CPU time, and each corpus F0.5 beside the sentence-level file's (the tokenised
original; the detokenised sentences with ``hyp_tokenise="auto"`` for the detokenised rows).
A last table realigns all 13 submissions (alignment only, the smallest group size), and
one MuCGEC dev's example output (Chinese, paragraphs joined without spaces) when
``../mucgec`` is beside the conll14 folder.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _clock import Clock

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "conll14"
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
           "UFC", "UMC")


def simple_detokenise(tokens: list[str]) -> str:
    """No space before closing punctuation and clitics, none inside brackets and quotes."""
    text = re.sub(r" ([.,!?;:%)\]])", r"\1", " ".join(tokens))
    text = re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", text)
    text = re.sub(r"([(\[]) ", r"\1", text)
    return re.sub(r'" (.*?) "', r'"\1"', text)


def detokeniser() -> tuple[str, object]:
    try:
        import sacremoses
    except ImportError:
        return "simple rules (sacremoses not installed)", simple_detokenise
    return (f"sacremoses {sacremoses.__version__}",
            sacremoses.MosesDetokenizer(lang="en").detokenize)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the conll14 data folder")
    ap.add_argument("--system", default="AMU", help="a CoNLL-2014 submission")
    ap.add_argument("--groups", default="5,20", help="sentences per paragraph, comma-separated")
    ap.add_argument("--metrics", default="m2,errant", help="comma-separated metrics")
    ap.add_argument("--no-all-systems", dest="all_systems", action="store_false",
                    help="skip the alignment-only table of the 13 submissions")
    args = ap.parse_args()
    import gecscope
    from gecscope import EvalData, Hypothesis
    from gecscope.errors import InputWarning
    from gecscope.gate import GateOptions, admit, emit

    official = EvalData.from_files(args.data / "official-2014.combined.m2")
    errant_refs = EvalData.from_files(args.data / "errant" / "references.m2")
    which, detok = detokeniser()
    tokenised = Hypothesis.from_file(args.data / "submissions" / args.system, args.system)
    lines = [" ".join(t) for t in tokenised.tokens]
    detok_lines = [" ".join(detok(list(t)).split()) for t in tokenised.tokens]  # type: ignore[operator]
    metrics = args.metrics.split(",")
    label = {"m2": "M2", "errant": "ERRANT"}

    def score(metric: str, hyp: Hypothesis, tokenise: str) -> float:
        data = errant_refs if metric == "errant" else official
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InputWarning)
            return gecscope.evaluate(metric, data, hyp, hyp_tokenise=tokenise,
                                     allow=["uncertain-alignment"])[0].score.value

    base = {(m, kind): score(m, hyp, tok) for m in metrics for kind, hyp, tok in (
        ("tokenised", tokenised, "none"),
        ("detokenised", Hypothesis.from_texts(detok_lines, args.system), "auto"))}
    print(f"gecscope {gecscope.__version__}, {args.system}, {len(lines)} sentences, "
          f"detokeniser: {which}\n")
    print("| paragraphs of | text | lines | exact | low conf. | moves | alignment time | "
          + " | ".join(f"{label.get(m, m)} F0.5 (sentences) | paragraphs | diff." for m in metrics)
          + " |")
    print("|---" * (7 + 3 * len(metrics)) + "|")
    total = Clock().__enter__()
    for group in (int(g) for g in args.groups.split(",")):
        for kind, sentences in (("tokenised", lines), ("detokenised", detok_lines)):
            paras = [" ".join(sentences[i:i + group]) for i in range(0, len(sentences), group)]
            hyp = Hypothesis.from_texts(paras, args.system)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", InputWarning)
                with Clock() as clock:
                    admitted = admit(official, [hyp], GateOptions(
                        hyp_level="auto", allow=frozenset({"uncertain-alignment"})))
                    emit(admitted.findings)
                    cut = admitted.hypotheses[0]
            note = " ".join(str(w.message) for w in caught)
            low = re.search(r"(\d+) sentence\(s\) aligned with low confidence", note)
            moves = re.search(r"sentences per move ([^)]*)\)", note)
            exact = sum(1 for a, b in zip(cut.tokens, sentences, strict=True)
                        if " ".join(a) == b)
            tok = "auto" if kind == "detokenised" else "none"
            cells = []
            for m in metrics:
                s, p = base[(m, kind)], score(m, hyp, tok)
                cells += [f"{s:.4f}", f"{p:.4f}", f"{p - s:+.4f}"]
            print(f"| {group} | {kind} | {len(paras)} | {exact}/{len(sentences)} "
                  f"({100 * exact / len(sentences):.2f}%) | {low.group(1) if low else 0} | "
                  f"{moves.group(1) if moves else '-'} | {clock.wall:.2f}s wall, "
                  f"{clock.cpu:.2f}s CPU | " + " | ".join(cells) + " |", flush=True)
    if args.all_systems:
        every_system(args.data, official, detok, min(int(g) for g in args.groups.split(",")))
    mucgec = args.data.parent / "mucgec" / "example_pred_dev.txt"
    if mucgec.is_file():
        chinese(mucgec, [int(g) for g in args.groups.split(",")])
    total.__exit__(None, None, None)
    print(f"\ntotal: {total}")


def every_system(data: Path, official: object, detok: object, group: int) -> None:
    """Alignment only, for the 13 submissions: exact re-segmentation and low confidence."""
    from gecscope.alignment.sentences import align_sentences

    sources = [" ".join(t) for t in official.sources]  # type: ignore[attr-defined]
    print(f"\nevery submission, paragraphs of {group} (alignment only)\n")
    print("| system | tokenised: exact | low conf. | detokenised: exact | low conf. | time |")
    print("|---|---|---|---|---|---|")
    for name in SYSTEMS:
        raw = (data / "submissions" / name).read_text(encoding="utf-8").splitlines()
        lines = [" ".join(x.split()) for x in raw]
        cells = []
        with Clock() as clock:
            for sentences in (lines, [" ".join(detok(x.split()).split())  # type: ignore[operator]
                                      for x in lines]):
                paras = [" ".join(sentences[i:i + group])
                         for i in range(0, len(sentences), group)]
                found = align_sentences(sources, paras)
                exact = sum(1 for a, b in zip(found.texts, sentences, strict=True)
                            if " ".join(a.split()) == b)
                cells += [f"{exact}/{len(sentences)}", str(found.failures)]
        print(f"| {name} | " + " | ".join(cells) + f" | {clock} |", flush=True)



def chinese(path: Path, groups: list[int]) -> None:
    """Alignment only: MuCGEC dev's example output (Chinese, no spaces) joined into
    paragraphs without separators, cut back into the sources' sentences."""
    from gecscope.alignment.sentences import align_sentences

    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    sources = [r[1] for r in rows]
    outputs = [r[2] if len(r) > 2 else r[1] for r in rows]
    print(f"\nMuCGEC dev example output ({len(rows)} sentences), paragraphs joined without "
          "spaces (alignment only)\n")
    print("| paragraphs of | lines | exact | low conf. | time |")
    print("|---|---|---|---|---|")
    for group in groups:
        paras = ["".join(outputs[i:i + group]) for i in range(0, len(outputs), group)]
        with Clock() as clock:
            found = align_sentences(sources, paras)
        exact = sum(1 for a, b in zip(found.texts, outputs, strict=True) if a == b)
        print(f"| {group} | {len(paras)} | {exact}/{len(outputs)} | {found.failures} | {clock} |",
              flush=True)


if __name__ == "__main__":
    main()
