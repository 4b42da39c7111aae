#!/usr/bin/env python
"""Train the UCCA parser shipped in src/gecscope/semantics/ucca_parser/model (not run in CI).

Data: UCCA English-Web-Treebank, standard split (train.txt/dev.txt/test.txt), optionally plus
UCCA English-20K (all of it) for training. Model selection on EWT dev (labelled primary
DAG F1 over whole passages); the selected model is evaluated once on EWT test. Every number is
printed and written to --report (JSON).

    python scripts/train_ucca_parser.py --data ../shared/data/ucca --epochs 30 --seed 1
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch

from gecscope.semantics.dagf import DagFResult, dag_f
from gecscope.semantics.ucca import Passage
from gecscope.semantics.ucca_parser.backend import (
    META,
    MODEL_DIR,
    WEIGHTS,
    as_dict,
    predict_spans,
)
from gecscope.semantics.ucca_parser.data import (
    ewt_split,
    gold_chunks,
    inference_chunks,
    load_passages,
)
from gecscope.semantics.ucca_parser.features import Featurizer
from gecscope.semantics.ucca_parser.model import SpanScorer, pad_batch
from gecscope.semantics.ucca_parser.tree import CHAIN_SEP, spans_to_passage


def log(*a: object) -> None:
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def featurize(fz: Featurizer, sents: list[list[str]], cache: Path,
              layers: tuple[int, ...]) -> list:
    """Features of ``sents``, cached with the featuriser's layers, sliced to ``layers``."""
    if cache.is_file():
        with cache.open("rb") as fh:
            feats = pickle.load(fh)
    else:
        t0 = time.time()
        feats = fz(sents)
        log(f"featurised {len(sents)} sentences in {time.time() - t0:.1f}s")
        cache.parent.mkdir(parents=True, exist_ok=True)
        with cache.open("wb") as fh:
            pickle.dump(feats, fh, protocol=4)
    pick = [fz.layers.index(x) for x in layers]
    for f in feats:
        f.vectors = np.ascontiguousarray(f.vectors[:, pick])
    return feats


def label_vocab(chunks: list, min_count: int) -> tuple[list[str], dict[str, str]]:
    counts = Counter(lab for c in chunks for lab in c.spans.values())
    labels = ["", *sorted(lab for lab, n in counts.items() if n >= min_count)]
    keep = set(labels)
    remap = {}
    for lab in counts:
        if lab in keep:
            continue
        parts = lab.split(CHAIN_SEP)
        while parts and CHAIN_SEP.join(parts) not in keep:
            parts = parts[:-1]
        remap[lab] = CHAIN_SEP.join(parts)
    return labels, remap


def targets(chunk, lab_index: dict[str, int], remap: dict[str, str]) -> torch.Tensor:
    n = len(chunk.tokens)
    t = torch.zeros((n + 1, n + 1), dtype=torch.long)
    for (a, b), lab in chunk.spans.items():
        t[a, b] = lab_index.get(remap.get(lab, lab), 0)
    return t


def predict(model: SpanScorer, feats: list, labels: list[str], bs: int = 32) -> list[dict]:
    return predict_spans(model.to_numpy(), feats, labels, bs)


def evaluate(model, passages: list[Passage], chunk_index: list, feats: list,
             labels: list[str]) -> DagFResult:
    spans = predict(model, feats, labels)
    by_passage: dict[int, list] = {}
    for (k, off), sp in zip(chunk_index, spans, strict=True):
        by_passage.setdefault(k, []).append((off, sp))
    total = DagFResult.zero()
    for k, gold in enumerate(passages):
        flags = [t.punct for t in gold.terminals]
        p = Passage.from_tokens(gold.id, gold.tokens, flags)
        spans_to_passage(p, by_passage.get(k, []), punct=flags)
        total = total + dag_f(p, gold)
    return total


def summary(r: DagFResult) -> dict:
    return {f"{'labeled' if lab else 'unlabeled'}_{kind}": round(
        (r.labeled if lab else r.unlabeled)[kind].f, 4)
        for lab in (True, False) for kind in ("primary", "remote")} | {
        "labeled_primary_p": round(r.labeled["primary"].precision, 4),
        "labeled_primary_r": round(r.labeled["primary"].recall, 4)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data/ucca")
    ap.add_argument("--out", default=str(MODEL_DIR))
    ap.add_argument("--cache", default="/tmp/gecscope-ucca-cache")
    ap.add_argument("--report", default="ucca_parser_train_report.json")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--time-budget", type=float, default=40.0, help="minutes of training")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--min-label-count", type=int, default=2)
    ap.add_argument("--no-20k", action="store_true", help="train on EWT train only")
    ap.add_argument("--eval-every", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--finalize", action="store_true",
                    help="no training: tune the empty-label bias of the model in --out on dev, "
                         "evaluate it on dev and test, rewrite its metadata and the report")
    ap.add_argument("--neg-rate", type=float, default=0.2,
                    help="share of non-unit spans in the loss (importance-corrected)")
    ap.add_argument("--layers", default="2,4", help="MiniLM layers used by the model")
    ap.add_argument("--cache-layers", default="2,4,6",
                    help="MiniLM layers computed and cached (a superset of --layers)")
    args = ap.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    data = Path(args.data)
    split = ewt_split(data / "english-ewt")
    ewt = {s: load_passages(data / "english-ewt", ids) for s, ids in split.items()}
    train_p = list(ewt["train"])
    if not args.no_20k and (data / "english-20k").is_dir():
        train_p += load_passages(data / "english-20k")
    train_chunks = [c for p in train_p for c in gold_chunks(p)]
    log(f"train: {len(train_p)} passages, {len(train_chunks)} chunks, "
        f"{sum(len(c.tokens) for c in train_chunks)} tokens")
    labels, remap = label_vocab(train_chunks, args.min_label_count)
    lab_index = {lab: i for i, lab in enumerate(labels)}
    log(f"{len(labels)} labels (incl. empty); {len(remap)} rare chains remapped")

    layers = tuple(int(x) for x in args.layers.split(","))
    fz = Featurizer(layers=tuple(int(x) for x in args.cache_layers.split(",")))
    cache = Path(args.cache)
    tag = "ewt" if args.no_20k else "ewt20k"
    train_feats = featurize(fz, [c.tokens for c in train_chunks], cache / f"train-{tag}.pkl",
                            layers)
    evalsets = {}
    for s in ("dev", "test"):
        index, sents = [], []
        for k, p in enumerate(ewt[s]):
            for off, toks in inference_chunks(list(p.tokens)):
                index.append((k, off))
                sents.append(toks)
        evalsets[s] = (index, featurize(fz, sents, cache / f"{s}.pkl", layers))

    if args.finalize:
        from safetensors.torch import load_file

        meta = json.loads((Path(args.out) / META).read_text(encoding="utf-8"))
        cfg = dict(meta["model"])
        model = SpanScorer(cfg.pop("n_labels"), cfg.pop("sizes"), **cfg)
        model.load_state_dict(load_file(str(Path(args.out) / WEIGHTS)))
        labels = meta["labels"]
        history = meta.get("history", [])
        best_epoch = meta["train"]["epoch"]
        t_start = time.time()
    else:
        model, history, best_epoch, t_start = train(args, labels, layers, fz, train_chunks,
                                                    train_feats, lab_index, remap, ewt,
                                                    evalsets)
    # the empty label's bias: tuned on dev (labelled primary F1) over a small grid
    base = float(-np.log(args.neg_rate))
    tuning = {}
    for bias in (base + 1.0, base + 0.5, base, base - 0.5, base - 1.0, base - 1.5, base - 2.0,
                 base - 2.5, base - 3.0):
        model.empty_bias = bias
        tuning[round(bias, 3)] = round(evaluate(model, ewt["dev"], *evalsets["dev"],
                                                labels).labeled["primary"].f, 4)
        log(f"  empty-label bias {bias:.2f}: dev labelled primary F1 {tuning[round(bias, 3)]}")
    model.empty_bias = max(tuning, key=lambda b: (tuning[b], b))
    model.config["empty_bias"] = model.empty_bias
    results = {s: summary(evaluate(model, ewt[s], *evalsets[s], labels)) for s in ("dev", "test")}
    report = {"seed": args.seed, "best_epoch": best_epoch, "labels": len(labels),
              "train_passages": len(train_p), "train_chunks": len(train_chunks),
              "with_20k": not args.no_20k, "history": history, "bias_tuning": tuning,
              "empty_bias": model.empty_bias, "results": results,
              "minutes": round((time.time() - t_start) / 60, 1)}
    save(model, model.state_dict(), labels, Path(args.out), args, best_epoch, history, results)
    Path(args.report).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    log(json.dumps(results, indent=2))
    return 0


def train(args, labels, layers, fz, train_chunks, train_feats, lab_index, remap, ewt, evalsets):
    """The training loop; returns the best model on dev, the history, its epoch, start time."""
    train_y = [targets(c, lab_index, remap) for c in train_chunks]
    model = SpanScorer(len(labels), fz.sizes, n_layers_in=len(layers),
                       empty_bias=float(-np.log(args.neg_rate)))
    gen = torch.Generator().manual_seed(args.seed)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=2)
    rng = random.Random(args.seed)
    best, best_epoch, best_state = -1.0, 0, None
    history = []
    t_start = time.time()
    out_dir = Path(args.out)
    for epoch in range(1, args.epochs + 1):
        model.train()
        order = sorted(range(len(train_chunks)), key=lambda i: len(train_chunks[i].tokens))
        batches = [order[i:i + args.batch] for i in range(0, len(order), args.batch)]
        rng.shuffle(batches)
        total_loss, t0, nb = 0.0, time.time(), 0
        for bi in batches:
            bi = [i for i in bi if train_chunks[i].tokens]
            if not bi:
                continue
            states = model.token_states(pad_batch([as_dict(train_feats[i]) for i in bi]))
            loss = torch.zeros(())
            n_spans = 0
            for r, i in enumerate(bi):
                n = len(train_chunks[i].tokens)
                iu = torch.triu_indices(n + 1, n + 1, offset=1)
                y = train_y[i][iu[0], iu[1]]
                if args.neg_rate < 1:
                    keep = (y > 0) | (torch.rand(len(y), generator=gen) < args.neg_rate)
                    iu, y = iu[:, keep], y[keep]
                s = model.pair_scores(states[r], n, iu[0], iu[1])
                loss = loss + torch.nn.functional.cross_entropy(s, y, reduction="sum")
                n_spans += len(y)
            opt.zero_grad()
            (loss / len(bi)).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            total_loss += loss.item()
            nb += 1
            if nb % 50 == 0:
                log(f"  batch {nb}/{len(batches)}")
        minutes = (time.time() - t_start) / 60
        log(f"epoch {epoch}: loss {total_loss / len(train_chunks):.3f} "
            f"({time.time() - t0:.0f}s, {minutes:.1f} min total)")
        last = epoch == args.epochs or minutes >= args.time_budget
        if epoch % args.eval_every == 0 or last:
            r = evaluate(model, ewt["dev"], *evalsets["dev"], labels)
            f = r.labeled["primary"].f
            history.append({"epoch": epoch, "minutes": round(minutes, 1)} | summary(r))
            log(f"  dev labelled primary F1 {f:.4f} (unlabelled {r.unlabeled['primary'].f:.4f})")
            sched.step(f)
            if f > best:
                best, best_epoch = f, epoch
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
                save(model, best_state, labels, out_dir, args, epoch, history)
        if last:
            break
    assert best_state is not None
    model.load_state_dict(best_state)
    return model, history, best_epoch, t_start


def save(model: SpanScorer, state: dict, labels: list[str], out_dir: Path, args, epoch: int,
         history: list, results: dict | None = None) -> None:
    from safetensors.torch import save_file

    out_dir.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in state.items()}, str(out_dir / WEIGHTS))
    meta = {"version": f"ewt-seed{args.seed}-epoch{epoch}", "labels": labels,
            "layers": [int(x) for x in args.layers.split(",")],
            "model": model.config, "train": {"seed": args.seed, "epoch": epoch,
                                             "with_20k": not args.no_20k, "lr": args.lr,
                                             "batch": args.batch, "neg_rate": args.neg_rate},
            "history": history}
    if results is not None:
        meta["results"] = results
    (out_dir / META).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
