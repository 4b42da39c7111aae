"""Write src/gecscope/data/testsets.json, the registry of known test-set files
(:mod:`gecscope.testsets`), from the shared data and the MuCGEC repository.

    python3 scripts/make_testsets_registry.py [--data ../shared/data] [--mucgec DIR]

``--mucgec``: an export of HillZhang1999/MuCGEC (``git archive HEAD data/MuCGEC
scorers/ChERRANT/samples``); files absent from both places are left out with a note. Only
hashes and descriptions are written, never the files' text.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gecscope.testsets import REGISTRY_FORMAT, digests

ROOT = Path(__file__).resolve().parent.parent

M2 = ("the M2 scorer (MaxMatch) F0.5, beta 0.5, max_unchanged_words 2 (CoNLL-2014 official; "
      "papers since BEA-2019 often add ERRANT F0.5 against the same file)")
GLEU = ("GLEU (Napoles et al.'s compute_gleu, revised 2016, all four references against "
        "the original source)")
CHERRANT = ("ChERRANT character-level F0.5 (compare_m2_for_evaluation.py), MuCGEC's official "
            "metric")

# The figure a test set's papers report (gecscope.reports.headline): the metric at its
# defaults, the fields of the table and their usual print (x100, two decimals), and why the
# other metrics' numbers differ from it.
_CONLL_DIFFERS = {
    "errant": "ERRANT extracts the output's edits with ERRANT and matches them span for span "
              "with the annotators' NUCLE edits, where the M2 scorer picks from the output's "
              "edit lattice the edits that best match them: usually lower, and not comparable "
              "with CoNLL-2014 tables (ERRANT on CoNLL-2014 is scored against an ERRANT-re-typed "
              "M2: gecscope annotate --retype)",
    "gleu": "GLEU counts n-grams shared with the corrected references (JFLEG's metric); "
            "CoNLL-2014 tables do not report it",
    "imeasure": "the I-measure is the improvement in weighted accuracy over the unchanged "
                "source (Felice & Briscoe 2015), on another scale",
    "cleme": "CLEME regroups edits into chunks and scores those (Ye et al. 2023); reported by "
             "CLEME's papers, not by CoNLL-2014 tables",
    "cleme2": "CLEME2.0's scores are chunk-level and weighted (Ye et al. 2025); reported by "
              "its paper, not by CoNLL-2014 tables",
}
HEAD_M2 = {"test_set": "CoNLL-2014 test", "metric": "m2", "fields": ["P", "R", "F0.5"],
           "scale": 100, "digits": 2, "reference": "official-2014.combined.m2",
           "differs": _CONLL_DIFFERS}
HEAD_ERRANT_CONLL = {
    "test_set": "CoNLL-2014 test (ERRANT re-annotation)", "metric": "errant",
    "fields": ["P", "R", "F0.5"], "scale": 100, "digits": 2, "reference": "references.m2",
    "differs": {"m2": "the M2 scorer picks the output's edits that best match these "
                      "ERRANT-made reference edits; CoNLL-2014 tables report it against the "
                      "official NUCLE M2 (official-2014.combined.m2), not this file"}}
_GLEU_DIFFERS = {"errant": "edit-based F0.5 needs references as M2; JFLEG's papers report GLEU",
                 "m2": "edit-based F0.5 needs references as M2; JFLEG's papers report GLEU"}
HEAD_CHERRANT = {"test_set": "MuCGEC dev", "metric": "errant", "language": "zh",
                 "fields": ["P", "R", "F0.5"], "scale": 100, "digits": 2,
                 "reference": "MuCGEC_dev.txt", "differs": {}}


def conll14(data: Path) -> list[dict[str, Any]]:
    c = data / "conll14"
    ref = "CoNLL-2014 test (1,312 sentences, NUS release 3.2)"
    one = ("one official annotator only; the shared task and the papers score against both "
           "(official-2014.combined.m2), which gives higher numbers")
    rows = [
        (c / "official-2014.combined.m2", {
            "name": f"{ref}, official combined M2 (annotators 0 and 1)", "scorer": M2,
            "flags": "-m m2", "headline": HEAD_M2}),
        (c / "official-2014.0.m2", {
            "name": f"{ref}, annotator 0's M2", "scorer": M2, "flags": "-m m2",
            "warning": one}),
        (c / "official-2014.1.m2", {
            "name": f"{ref}, annotator 1's M2", "scorer": M2, "flags": "-m m2",
            "warning": one}),
        (c / "official-2014.combined-withalt.m2", {
            "name": f"{ref}, combined M2 with the participants' alternative annotations "
                    "(annotators 0-4)", "scorer": M2, "flags": "-m m2",
            "note": "the shared task's second ranking; most tables use "
                    "official-2014.combined.m2 without the alternatives"}),
        (c / "submissions" / "INPUT", {
            "name": f"{ref}, source (tokenised, the shared task's INPUT)", "role": "source",
            "scorer": M2, "flags": "-m m2 (with the combined M2 as -r)"}),
        (c / "errant" / "references.m2", {
            "name": f"{ref}, both references re-annotated by ERRANT (CLEME repository)",
            "scorer": "ERRANT F0.5 (errant_compare; CLEME's experiments)", "flags": "-m errant",
            "note": "not the official M2: ERRANT's edit boundaries and types",
            "headline": HEAD_ERRANT_CONLL}),
    ]
    for p in sorted((c / "submissions").iterdir()):
        if p.name != "INPUT":
            rows.append((p, {"name": f"CoNLL-2014 official submission {p.name}",
                             "role": "system output"}))
    return [{"file": p.name, "role": "references", **meta, "_path": p} for p, meta in rows]


def jfleg(data: Path) -> list[dict[str, Any]]:
    rows = []
    for split, n in (("dev", 754), ("test", 747)):
        d = data / "jfleg" / split
        refs = " ".join(f"{split}.ref{k}" for k in range(4))
        flags = f"-m gleu -s {split}.src -r {refs}"
        note = "JFLEG papers report the test split; dev is for tuning"
        rows.append({"_path": d / f"{split}.src", "file": f"{split}.src", "role": "source",
                     "name": f"JFLEG {split} ({n} sentences), source", "scorer": GLEU,
                     "flags": flags, "note": note})
        rows.append({"_path": d / f"{split}.spellchecked.src",
                     "file": f"{split}.spellchecked.src", "role": "source (spell-checked)",
                     "name": f"JFLEG {split}, spell-checked source", "scorer": GLEU,
                     "flags": flags, "warning": f"a system input, not the source GLEU is "
                     f"computed against: give {split}.src as -s"})
        for k in range(4):
            rows.append({"_path": d / f"{split}.ref{k}", "file": f"{split}.ref{k}",
                         "role": "references", "name": f"JFLEG {split}, reference {k} of 4",
                         "scorer": GLEU, "flags": flags,
                         "note": "give all four references together",
                         "set": f"JFLEG {split} references", "set_size": 4,
                         "headline": {"test_set": f"JFLEG {split}", "metric": "gleu",
                                      "fields": ["GLEU"], "scale": 100, "digits": 2,
                                      "reference": refs, "differs": _GLEU_DIFFERS}})
    return rows


def mucgec(data: Path, mirror: Path | None) -> list[dict[str, Any]]:
    demo = ("ChERRANT's demo (HillZhang1999/MuCGEC scorers/ChERRANT/samples; its README: "
            "TP 8, FP 19, FN 35, F0.5 0.2649 for demo.hyp)")
    files = {
        "MuCGEC_dev.txt": {"name": "MuCGEC dev (1,137 sentences, 1-7 references each)",
                           "role": "references (parallel: id, source, targets)",
                           "scorer": CHERRANT, "flags": "--lang zh", "headline": HEAD_CHERRANT},
        "MuCGEC_test.txt": {"name": "MuCGEC test (6,000 sources; references not public)",
                            "role": "source", "scorer": CHERRANT,
                            "note": "scored by the MuCGEC leaderboard"},
        "example_pred_dev.txt": {"name": "MuCGEC repository's example prediction on dev",
                                 "role": "system output"},
        "demo.input": {"name": f"{demo}: source", "role": "source", "scorer": CHERRANT,
                       "flags": "--lang zh"},
        "demo.hyp": {"name": f"{demo}: hypothesis", "role": "system output"},
        "demo.hyp.para": {"name": f"{demo}: hypothesis, parallel format",
                          "role": "system output"},
        "demo.hyp.m2.char": {"name": f"{demo}: hypothesis, char-level M2",
                             "role": "system output"},
        "demo.hyp.m2.word": {"name": f"{demo}: hypothesis, word-level M2",
                             "role": "system output"},
        "demo.ref.m2.char": {"name": f"{demo}: references, char-level M2", "scorer": CHERRANT,
                             "flags": "--lang zh"},
        "demo.ref.m2.word": {"name": f"{demo}: references, word-level M2",
                             "scorer": "ChERRANT word-level F0.5 (the papers use char level)",
                             "flags": "--lang zh"},
        "nlpcc2018_official.ref.m2.char": {
            "name": "NLPCC-2018 test (2,000 sentences) references, ChERRANT char-level M2",
            "scorer": CHERRANT, "flags": "--lang zh",
            "note": "the NLPCC-2018 shared task itself used the M2 scorer on PKUNLP words",
            "headline": {**HEAD_CHERRANT, "test_set": "NLPCC-2018 test (ChERRANT)",
                         "reference": "nlpcc2018_official.ref.m2.char"}},
        "nlpcc2018_official.ref.m2.word": {
            "name": "NLPCC-2018 test references, ChERRANT word-level M2",
            "scorer": "ChERRANT word-level F0.5", "flags": "--lang zh"},
    }
    places = [data / "mucgec", data / "mucgec" / "cherrant-samples"]
    if mirror is not None:
        places += [mirror / "data" / "MuCGEC", mirror / "scorers" / "ChERRANT" / "samples"]
    rows = []
    for name, meta in files.items():
        found = next((d / name for d in places if (d / name).is_file()), None)
        if found is None:
            print(f"not found, left out: {name}", file=sys.stderr)
            continue
        rows.append({"_path": found, "file": name, "role": "references", **meta})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--mucgec", type=Path, help="an export of HillZhang1999/MuCGEC")
    ap.add_argument("-o", "--output", type=Path,
                    default=ROOT / "src" / "gecscope" / "data" / "testsets.json")
    args = ap.parse_args()
    entries = []
    seen: set[str] = set()
    for row in conll14(args.data) + jfleg(args.data) + mucgec(args.data, args.mucgec):
        raw, norm = digests(Path(row.pop("_path")).read_bytes())
        if raw in seen:
            continue
        seen.add(raw)
        entries.append({**row, "sha256": raw, "normalised_sha256": norm})
    doc = {"format": REGISTRY_FORMAT,
           "about": "Known test-set files by SHA-256 (bytes, and the normalised form of "
                    "gecscope.testsets.normalised_bytes). Made by "
                    "scripts/make_testsets_registry.py; see docs/check.md.",
           "testsets": entries}
    args.output.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n",
                           encoding="utf-8")
    print(f"{len(entries)} entries written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
