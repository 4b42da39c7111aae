"""MaxMatch (M2) on small hand-checked cases: lattice, gold matching, annotator choice."""

from __future__ import annotations

import random

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError
from gecscope.formats.m2 import parse_m2
from gecscope.metrics.m2 import M2Metric, M2Row, M2SentenceStats, m2_prf, select_rows
from gecscope.metrics.m2.lattice import (
    BIG,
    EPS,
    STEP,
    GoldEdit,
    Lattice,
    _insertion_events,
    _InsertionArcs,
    best_path,
    build_lattice,
    search,
)


def _score(m2: str, hyps: list[str], **options: object) -> tuple[dict, M2Metric, list]:
    data = EvalData.from_m2(parse_m2(m2))
    metric = M2Metric(**options)
    result = metric.evaluate(data, Hypothesis("sys", [tuple(h.split()) for h in hyps]))
    d = result.score.details
    return {"c": d["correct"], "p": d["proposed"], "g": d["gold"]}, metric, result.stats


SVA = "S This are a sentence .\nA 1 2|||SVA|||is|||REQUIRED|||-NONE-|||0\n\n"


def test_exact_match() -> None:
    counts, _, _ = _score(SVA, ["This is a sentence ."])
    assert counts == {"c": 1, "p": 1, "g": 1}


def test_alternatives_any_of_them_is_correct() -> None:
    m2 = "S This are a sentence .\nA 1 2|||SVA|||is||was|||REQUIRED|||-NONE-|||0\n\n"
    assert _score(m2, ["This was a sentence ."])[0] == {"c": 1, "p": 1, "g": 1}
    assert _score(m2, ["This were a sentence ."])[0] == {"c": 0, "p": 1, "g": 1}


def test_unchanged_hypothesis_proposes_nothing() -> None:
    counts, metric, stats = _score(SVA, ["This are a sentence ."])
    assert counts == {"c": 0, "p": 0, "g": 1}
    score = metric.aggregate(stats)
    actual = (score.fields["P"], score.fields["R"], score.fields["F0.5"])
    assert actual == (1.0, 0.0, 0.0)


def test_gold_edit_spanning_an_unchanged_word_is_found() -> None:
    # Dahlmeier & Ng (2012)'s motivating example: Levenshtein aligns an insertion of "a", the
    # gold edit rewrites "word" as "a word"; the transitive arc over "word" matches it.
    m2 = ("S Our baseline system feeds word into PB-SMT pipeline .\n"
          "A 4 5|||ArtOrDet|||a word|||REQUIRED|||-NONE-|||0\n\n")
    counts, _, stats = _score(m2, ["Our baseline system feeds a word into PB-SMT pipeline ."])
    assert counts == {"c": 1, "p": 1, "g": 1}
    assert stats[0].rows[0].proposed_edits == ((4, 5, "word", "a word"),)


def test_non_gold_changes_close_together_count_as_one_edit() -> None:
    # b->X and d->Y are one unchanged word apart: one arc "b c d -> X c Y" (one edit).
    m2 = "S a b c d e\n\n"
    counts, _, stats = _score(m2, ["a X c Y e"])
    assert counts == {"c": 0, "p": 1, "g": 0}
    assert stats[0].rows[0].proposed_edits == ((1, 4, "b c d", "X c Y"),)
    # ...but two edits when no unchanged word may be crossed, or when they are 3 words apart
    assert _score(m2, ["a X c Y e"], max_unchanged_words=0)[0] == {"c": 0, "p": 2, "g": 0}
    assert _score("S a b c d e f\n\n", ["X b c d Y f"])[0] == {"c": 0, "p": 2, "g": 0}


def test_sentence_without_a_lines_is_an_annotator_without_edits() -> None:
    m2 = "S Keeping the Secret\n\n" + SVA
    counts, _, stats = _score(m2, ["Keeping a Secret", "This is a sentence ."])
    assert counts == {"c": 1, "p": 2, "g": 1}
    actual = [r.annotator for s in stats for r in s.rows]
    assert actual == [0, 0]


def test_insertions_and_double_insertion() -> None:
    m2 = "S He went to school .\nA 3 3|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0\n\n"
    assert _score(m2, ["He went to the school ."])[0] == {"c": 1, "p": 1, "g": 1}
    # one gold insertion cannot be matched twice by two consecutive hypothesis insertions
    assert _score(m2, ["He went to the the school ."])[0] == {"c": 1, "p": 2, "g": 1}
    assert _score(m2, ["He went to a school ."])[0] == {"c": 0, "p": 1, "g": 1}


def test_deletion_and_several_gold_edits() -> None:
    m2 = ("S When we are diagonosed out with certain genetic disease .\n"
          "A 3 4|||Mec|||diagnosed|||REQUIRED|||-NONE-|||0\n"
          "A 4 5|||Prep||||||REQUIRED|||-NONE-|||0\n"
          "A 8 9|||Nn|||diseases|||REQUIRED|||-NONE-|||0\n"
          "A 3 5|||Rloc-|||diagnosed|||REQUIRED|||-NONE-|||1\n"
          "A 6 6|||ArtOrDet|||a|||REQUIRED|||-NONE-|||1\n\n")
    counts, metric, stats = _score(m2, ["When we are diagnosed with a certain genetic disease ."])
    rows = stats[0].rows
    # annotator 0: "diagnosed" and the deletion of "out" match (2 of 3 gold edits);
    # annotator 1: the merged span 3-5 and the insertion of "a" match (2 of 2)
    actual = [(r.annotator, r.correct, r.proposed, r.gold) for r in rows]
    assert actual == [
        (0, 2, 3, 3), (1, 2, 2, 2)]
    assert counts == {"c": 2, "p": 2, "g": 2}
    assert metric.details(stats)[0].annotator == 1
    assert rows[1].correct_edits == ((3, 5, "diagonosed out", "diagnosed"), (6, 6, "", "a"))


def test_noop_annotator_wins_for_an_unchanged_sentence() -> None:
    m2 = ("S The opposite is also true .\n"
          "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
          "A 4 5|||Wform|||truth|||REQUIRED|||-NONE-|||1\n\n")
    counts, metric, stats = _score(m2, ["The opposite is also true ."])
    assert counts == {"c": 0, "p": 0, "g": 0}
    assert metric.details(stats)[0].annotator == 0


def test_ignore_whitespace_casing() -> None:
    m2 = "S the cat can not sleep .\nA 2 4|||Sp|||cannot|||REQUIRED|||-NONE-|||0\n\n"
    assert _score(m2, ["The cat can not sleep ."])[0] == {"c": 0, "p": 1, "g": 1}
    assert _score(m2, ["The cat can not sleep ."], ignore_whitespace_casing=True)[0] == {
        "c": 0, "p": 0, "g": 1}
    assert _score(m2, ["the cat Cannot sleep ."], ignore_whitespace_casing=True)[0] == {
        "c": 1, "p": 1, "g": 1}


def test_cumulative_annotator_choice_differs_from_local_choice() -> None:
    prior = M2SentenceStats((M2Row(0, 10, 20, 40),))
    cand = M2SentenceStats((M2Row(0, 1, 1, 5), M2Row(1, 0, 0, 0)))
    # alone, annotator 1 (F = 1) is best; after the first sentence, annotator 0 raises the
    # cumulative F (11/21, 11/45 -> 0.4264 > 10/20, 10/40 -> 0.4167)
    actual = [r.annotator for r in select_rows([prior, cand], 0.5)]
    assert actual == [0, 0]
    actual = [r.annotator for r in select_rows([cand], 0.5)]
    assert actual == [1]


def test_annotator_ties() -> None:
    # equal F: more correct edits win
    tied = M2SentenceStats((M2Row(0, 1, 2, 2), M2Row(1, 2, 4, 4)))
    assert select_rows([tied], 0.5)[0].annotator == 1
    # F = 0 both and no correct edit: smaller proposed + beta^2 * gold wins
    zero = M2SentenceStats((M2Row(0, 0, 3, 2), M2Row(1, 0, 0, 2)))
    assert select_rows([zero], 0.5)[0].annotator == 1


def test_exact_f_ties_are_not_decided_by_rounding() -> None:
    # POST, CoNLL-2014 sentence 55: both annotators give a cumulative F of exactly 10/27, but in
    # floating point annotator 1's value is one ulp larger. m2scorer keeps annotator 0 (the
    # published P/R of POST, 34.51/21.73, need it), so F is compared exactly.
    prior = M2SentenceStats((M2Row(0, 35, 83, 115),))
    tie = M2SentenceStats((M2Row(0, 1, 8, 7), M2Row(1, 1, 7, 11)))
    assert m2_prf(36, 91, 122, 0.5)[2] < m2_prf(36, 90, 126, 0.5)[2]
    actual = [r.annotator for r in select_rows([prior, tie], 0.5)]
    assert actual == [0, 0]


def test_prf_conventions() -> None:
    assert m2_prf(0, 0, 0, 0.5) == (1.0, 1.0, 1.0)
    assert m2_prf(1, 2, 4, 0.5) == pytest.approx((0.5, 0.25, 0.4166666666))
    assert m2_prf(0, 3, 0, 0.5) == (0.0, 1.0, 0.0)


def test_lattice_is_the_union_of_both_substitution_costs() -> None:
    lat = build_lattice(("a", "b"), ("a", "c"))
    # sub cost 1: a=a, b->c; sub cost 2 adds deleting b and inserting c (either order)
    w = lat.width
    actual = [divmod(v, w) for v in lat.nodes]
    assert actual == [(0, 0), (1, 1), (1, 2), (2, 1), (2, 2)]
    assert lat.n_steps == 6  # a=a, b->c, and del b + ins c in both orders


def test_sentence_scores_and_config_validation() -> None:
    _, metric, stats = _score(SVA + "S A b .\n\n", ["This is a sentence .", "A c ."])
    assert metric.sentence_values(stats) == pytest.approx([1.0, 0.0])
    with pytest.raises(ConfigError):
        M2Metric(beta=0)
    with pytest.raises(ConfigError):
        M2Metric(max_unchanged_words=-1)


def test_verbose_details_in_score() -> None:
    data = EvalData.from_m2(parse_m2(SVA))
    hyp = Hypothesis("s", [("This", "is", "a", "sentence", ".")])
    score = M2Metric(verbose=True).score(data, hyp)
    (detail,) = score.details["sentences"]
    actual = (detail.annotator, detail.proposed, detail.gold, detail.correct)
    assert actual == (
        0, ((1, 2, "are", "is"),), ((1, 2, "are", "is"),), ((1, 2, "are", "is"),))


def _scan_reference(arcs: list[tuple[int, int]], golds: list[GoldEdit],
                    labels: dict[tuple[int, int], str]) -> dict[tuple[int, int], str]:
    """The scorer's insertion scan walked step by step (quadratic): gold / eps per visited arc,
    skipped arcs absent."""
    res: dict[tuple[int, int], str] = {}
    lo, hi = 0, len(arcs) - 1
    g_lo, g_hi = 0, len(golds) - 1
    from_left = True
    while lo <= hi:
        arc = arcs[lo if from_left else hi]
        order = range(g_lo, g_hi + 1) if from_left else range(g_hi, g_lo - 1, -1)
        hit = next((g for g in order if labels[arc] in golds[g].corrections), -1)
        res[arc] = "gold" if hit >= 0 else "eps"
        if from_left:
            lo += 1
            if hit >= 0:
                g_lo = hit + 1
                while lo < len(arcs) and arcs[lo][0] == arc[1]:
                    lo += 1
        else:
            hi -= 1
            if hit >= 0:
                g_hi = hit - 1
                while hi >= 0 and arcs[hi][1] == arc[0]:
                    hi -= 1
        from_left = not from_left
    return res


def test_fast_insertion_scan_equals_the_step_by_step_scan() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        n = rng.randint(1, 9)
        chain_end = list(range(n + 1))
        j = 0
        while j < n:
            end = min(n, j + rng.randint(0, 4))
            for x in range(j, end):
                chain_end[x] = end
            j = max(end, j + 1)
        arcs_obj = _InsertionArcs(chain_end)
        arcs = [(a, b) for a in range(n + 1) for b in range(a + 1, chain_end[a] + 1)]
        hyp = [rng.choice("xy") for _ in range(n)]
        golds = [GoldEdit(3, 3, frozenset({" ".join(rng.choice("xy") for _ in range(
            rng.randint(1, 2)))}), 2) for _ in range(rng.randint(1, 3))]
        labels = {(a, b): " ".join(hyp[a:b]) for a, b in arcs}
        wanted = frozenset().union(*(g.corrections for g in golds))
        cands = sorted((arcs_obj.position(a, b), labels[(a, b)]) for a, b in arcs
                       if labels[(a, b)] in wanted)
        gold_pos, skipped = _insertion_events(arcs_obj, golds, cands)
        got = dict.fromkeys(arcs, "eps")
        for p in gold_pos:
            got[arcs_obj.arc(p)] = "gold"
        for p in skipped:
            del got[arcs_obj.arc(p)]
        assert got == _scan_reference(arcs, golds, labels)


def _brute_force_score(src: tuple[str, ...], hyp: tuple[str, ...], golds: list[GoldEdit],
                       max_unchanged: int) -> int:
    """Best path score over explicitly materialised arcs (the scorer's formulation, small
    inputs only): every pair of lattice nodes joined by a path with at most
    ``max_unchanged`` matches (or a single step) is an arc."""
    lat = build_lattice(src, hyp)
    w = lat.width
    nodes = lat.nodes
    steps = {}
    for v in nodes:
        o = lat.out[v]
        i, j = divmod(v, w)
        if o & 1:
            steps.setdefault(v, []).append((v + w + 1, int(src[i] == hyp[j])))
        if o & 2:
            steps.setdefault(v, []).append((v + w, 0))
        if o & 4:
            steps.setdefault(v, []).append((v + 1, 0))
    # fewest steps from u to w for each number of matches crossed
    arcs: dict[tuple[int, int], int] = {}
    for u in nodes:
        frontier = {(u, 0): 0}
        best: dict[tuple[int, int], int] = {}
        while frontier:
            nxt: dict[tuple[int, int], int] = {}
            for (v, k), n in frontier.items():
                for t, match in steps.get(v, ()):
                    key = (t, k + match)
                    if key[1] > max(max_unchanged, 1) or (key[1] > max_unchanged and n > 0):
                        continue
                    if n + 1 < best.get(key, 1 << 30):
                        best[key] = nxt[key] = n + 1
            frontier = nxt
        for (t, k), n in best.items():
            if k <= max_unchanged or n == 1:
                arcs[(u, t)] = min(arcs.get((u, t), 1 << 30), n)
    gold_arcs = set()
    eps_free = set()
    for (u, t) in arcs:
        (ui, uj), (ti, tj) = divmod(u, w), divmod(t, w)
        if ui != ti and any(g.start == ui and g.end == ti and " ".join(hyp[uj:tj]) in
                            g.corrections for g in golds):
            gold_arcs.add((u, t))
    for s in {g.start for g in golds if g.start == g.end}:
        row = sorted((divmod(u, w)[1], divmod(t, w)[1]) for (u, t) in arcs
                     if divmod(u, w)[0] == s == divmod(t, w)[0])
        labels = {a: " ".join(hyp[a[0]:a[1]]) for a in row}
        res = _scan_reference(row, [g for g in golds if g.start == g.end == s], labels)
        for a in row:
            if res.get(a) == "gold":
                gold_arcs.add((s * w + a[0], s * w + a[1]))
            elif a not in res:
                eps_free.add((s * w + a[0], s * w + a[1]))
    score = {nodes[0]: 0}
    for v in nodes:
        if v not in score:
            continue
        for (u, t), n in arcs.items():
            if u != v:
                continue
            (ui, uj), (ti, tj) = divmod(u, w), divmod(t, w)
            if (u, t) in gold_arcs:
                delta = BIG
            else:
                changed = src[ui:ti] != hyp[uj:tj]
                delta = -(n * STEP + (EPS if changed and (u, t) not in eps_free else 0))
            score[t] = max(score.get(t, -(1 << 62)), score[v] + delta)
    return score[nodes[-1]]


def _dp_score(lat: Lattice, golds: list[GoldEdit], max_unchanged: int) -> int:
    return search(lat, golds, max_unchanged)[1]


def test_dynamic_programme_equals_brute_force_over_materialised_arcs() -> None:
    rng = random.Random(3)
    for _ in range(300):
        src = tuple(rng.choice("abc") for _ in range(rng.randint(0, 5)))
        hyp = tuple(rng.choice("abcd") for _ in range(rng.randint(0, 6)))
        golds = []
        for _ in range(rng.randint(0, 3)):
            s = rng.randint(0, len(src))
            e = min(len(src), s + rng.randint(0, 2))
            cor = " ".join(rng.choice("abcd") for _ in range(rng.randint(0 if e > s else 1, 2)))
            golds.append(GoldEdit(s, e, frozenset({cor}), len(cor.split())))
        k = rng.choice([0, 1, 2])
        lat = build_lattice(src, hyp)
        path = best_path(lat, golds, k)
        # the DP's path is contiguous from the first to the last cell
        actual = [(a.start, a.hstart) for a in path[1:]]
        assert actual == [(a.end, a.hend) for a in path[:-1]]
        assert _brute_force_score(src, hyp, golds, k) == _dp_score(lat, golds, k)


def test_one_metric_scoring_two_reference_sets_keeps_them_apart() -> None:
    # the sentence memo is per references object: the same index and hypothesis against other
    # gold edits is scored again, and a pickled metric carries no memo to a worker
    import pickle

    a = EvalData.from_m2(parse_m2("S He go home .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"))
    b = EvalData.from_m2(parse_m2("S He go home .\nA 3 4|||R:NOUN|||house|||REQUIRED|||-NONE-|||0\n"))
    hyp = Hypothesis.from_texts(["He goes home ."], "sys")
    metric = M2Metric()
    first = metric.evaluate(a, hyp).score.fields
    second = metric.evaluate(b, hyp).score.fields
    assert (first["TP"], first["FP"], first["FN"]) == (1, 0, 0)
    assert (second["TP"], second["FP"], second["FN"]) == (0, 1, 1)
    assert metric.evaluate(a, hyp).score.fields == first
    assert "_memo" in vars(metric) and "_memo" not in vars(pickle.loads(pickle.dumps(metric)))
