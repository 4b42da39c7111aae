"""The I-measure's fast paths (issue #44) against the plain ones they replace.

* ``margin(decide=True)`` leaves out the grid cells through which no alignment can reach a
  margin of 0 or less (the band) and walks each region's pieces as a trie: its answer to
  "is the decomposition exact" must be the exact margin's, and a margin of 0 or less must be
  the exact number.
* ``pairwise_sync`` (compiled) must pair the tokens as the pure-Python backtrace does.
* On real CoNLL-2014 sentences, the search with the decided certificate must give every
  outcome, witness and reference of the search with the exact certificate.
* :class:`Outcomes` (a decomposed sentence's outcomes as arrays, objects built when asked
  for) must give every outcome, witness, reference and choice of the object-by-object
  search, and the region kernel with the pieces' encoding shared by all systems the
  kernel's answer with its own encoding.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from gecscope.metrics.imeasure import certify, search
from gecscope.metrics.imeasure.align import pairwise_backtrace, pairwise_table
from gecscope.metrics.imeasure.batch import pairwise_sync
from gecscope.metrics.imeasure.certify import margin

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_imeasure_certify import _best, _brute


def _regions(rng: random.Random, vocab: str, n_reg: int, width: int, pieces: int
             ) -> tuple[list[str], list[str], list[Any]]:
    """Source, hypothesis and regions whose pieces share prefixes (so the trie is used) and
    whose costs are the true region optima."""
    src: list[str] = []
    hyp: list[str] = []
    regions = []
    for _ in range(n_reg):
        s_piece = [rng.choice(vocab) for _ in range(rng.randint(1, width))]
        h_piece = [t if rng.random() < 0.7 else rng.choice(vocab) for t in s_piece]
        alts = {tuple(s_piece)}
        for _ in range(rng.randint(0, pieces)):
            cut = rng.randint(0, len(s_piece))
            alts.add(tuple(s_piece[:cut]) + tuple(rng.choice(vocab)
                                                 for _ in range(rng.randint(0, 3))))
        regions.append((len(src), len(src) + len(s_piece), len(hyp), len(hyp) + len(h_piece),
                        [(p, int(_best(s_piece, h_piece, list(p), False))) for p in sorted(alts)]))
        src += s_piece
        hyp += h_piece
    return src, hyp, regions


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_decided_margin_agrees_with_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    signs = set()
    for _ in range(25):
        src, hyp, regions = _regions(rng, "abcd", rng.randint(2, 3), 3, 3)
        exact = _brute(src, hyp, regions, False)
        assert margin(src, hyp, regions, False) == exact
        got = margin(src, hyp, regions, False, decide=True)
        if exact <= 0:
            assert got == exact
        else:
            assert got is None or got > 0
        signs.add(exact > 0)
    assert signs == {True, False}


def test_decided_margin_on_longer_sentences() -> None:
    # longer regions: the band leaves cells out, and the answer stays the exact one's
    rng = random.Random(7)
    pruned = 0
    for _ in range(40):
        src, hyp, regions = _regions(rng, "abcdefgh", rng.randint(3, 5), 6, 4)
        exact = margin(src, hyp, regions, False)
        got = margin(src, hyp, regions, False, decide=True)
        assert (exact is None or exact > 0) == (got is None or got > 0), (src, hyp, regions)
        if exact is not None and exact <= 0:
            assert got == exact
        for j in range(len(regions) - 1):
            check = [k == j for k in range(len(regions) - 1)]
            e = margin(src, hyp, regions, False, check)
            g = margin(src, hyp, regions, False, check, decide=True)
            assert (e is None or e > 0) == (g is None or g > 0)
        import numpy as np

        ids = {t: i for i, t in enumerate(sorted(set(src + hyp)
                                                 | {t for r in regions for p, _ in r[4]
                                                    for t in p}))}
        tok = [ids[t] for r in regions for p, _ in r[4] for t in p]
        off = [0]
        for r in regions:
            for p, _ in r[4]:
                off.append(off[-1] + len(p))
        reg = [0]
        for r in regions:
            reg.append(reg[-1] + len(r[4]))
        a = np.asarray
        lo, hi = certify.band(a([ids[t] for t in src]), a([ids[t] for t in hyp]), a(tok),
                              a(off), a([c for r in regions for _, c in r[4]]), a(reg), regions)
        pruned += sum(len(hyp) + 1 - max(0, h - lo_ + 1) for lo_, h in zip(lo, hi, strict=True))
    assert pruned > 0  # the band is not the whole grid, so the comparison tests it


def test_pairwise_sync_equals_the_backtrace() -> None:
    rng = random.Random(3)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 12))]
        x, y = pairwise_backtrace(pairwise_table(a, b), a, b)
        want: list[int | None] = [None] * len(a)
        i = j = 0
        for p, q in zip(x, y, strict=True):
            if p and q:
                if p == q:
                    want[i] = j
                i += 1
                j += 1
            elif p:
                i += 1
            else:
                j += 1
        assert pairwise_sync(a, b) == want


@pytest.fixture(scope="module")
def gold(conll14: Path):  # type: ignore[no-untyped-def]
    from gecscope.formats.imeasure_xml import m2_to_gold
    from gecscope.formats.m2 import read_m2

    return m2_to_gold(read_m2(conll14 / "official-2014.combined.m2"))


def _outcomes(opts: Any) -> Any:
    return None if opts is None else [(o.counts, o.witness, o.pieces) for o in opts]


@pytest.mark.slow
def test_conll14_decided_certificate_equals_exact(conll14: Path, gold,  # type: ignore[no-untyped-def]
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Sentences 300-419 (the longest, 333-335, among them) of three systems: the search with
    # the band and trie gives the outcomes of the search with the exact, unbanded certificate.
    from gecscope.formats.plain import read_tokens

    rows = range(300, 420)
    systems = {name: read_tokens(conll14 / "submissions" / name, expected=len(gold))
               for name in ("AMU", "CAMB", "POST")}
    fast = {name: [search.decomposed_options(gold.sentences[i], hyps[i]) for i in rows]
            for name, hyps in systems.items()}
    exact_margin = certify.margin

    def plain(*args: Any, decide: bool = False) -> Any:
        return exact_margin(*args)

    monkeypatch.setattr(search, "margin", plain)
    for name, hyps in systems.items():
        for k, i in enumerate(rows):
            slow = search.decomposed_options(gold.sentences[i], hyps[i])
            assert _outcomes(fast[name][k]) == _outcomes(slow), (name, i)


@pytest.mark.slow
def test_conll14_one_token_windows_give_the_two_token_windows_outcomes(
        conll14: Path, gold, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # Where 2-token windows leave a region of more than FINER_ABOVE combinations, one-token
    # windows propose the cuts (each certified): on the sentences that 2-token windows alone
    # left in one large region (id 950: 8,192 candidates; 1275; 13) and the longest ones
    # (333-335), for two systems sharing each sentence's cache, every outcome's counts and
    # witness (and references), and the metric's choice, are those of one-token windows
    # throughout and of 2-token windows alone (the regions, how a reference is cut into
    # pieces, may differ). And the default does cut sentence 950.
    from gecscope.formats.plain import read_tokens
    from gecscope.metrics.imeasure import IMeasureMetric

    ids = {"13", "333", "334", "335", "950", "1275"}
    rows = [i for i, sent in enumerate(gold.sentences) if str(sent.id) in ids]
    assert len(rows) == len(ids)
    one, default = IMeasureMetric(window=1), IMeasureMetric()

    def outcomes(opts: Any) -> Any:
        # every outcome's counts and witness; the references (the witness applied, 28,000
        # long ones per system for sentence 333) of the first 50 and the last
        return ([(o.counts, o.witness) for o in opts],
                [opts[k].reference for k in (*range(min(50, len(opts))), -1)])

    caches: dict[tuple[int, int], list[dict[Any, Any]]] = {}  # shared by the systems
    for name in ("AMU", "POST"):  # a cautious and a bold system
        hyps = read_tokens(conll14 / "submissions" / name, expected=len(gold))
        for i in rows:
            sub = gold.subset(i, i + 1)
            a, = one.sentence_stats_gold(sub, [hyps[i]], caches.setdefault((1, i), [{}]))
            b, = default.sentence_stats_gold(sub, [hyps[i]], caches.setdefault((2, i), [{}]))
            with monkeypatch.context() as m:  # 2-token windows alone (the search itself:
                m.setattr(search, "FINER_ABOVE", 1 << 62)  # the metric caches by options)
                alone = search.decomposed_outcomes(gold.sentences[i], hyps[i], 2,
                                                   cache=caches.setdefault((0, i), [{}])[0])
            want = (outcomes(a.options), a.best, a.reference)
            assert (outcomes(b.options), b.best, b.reference) == want, (name, i)
            assert outcomes(alone) == want[0], (name, i)
    i950 = next(i for i in rows if str(gold.sentences[i].id) == "950")
    for window in (1, 2):
        regions = search.certified_regions(gold.sentences[i950], hyps[i950], window, cache={})
        assert regions is not None and len(regions) > 1
    with monkeypatch.context() as m:
        m.setattr(search, "FINER_ABOVE", 1 << 62)
        assert len(search.certified_regions(gold.sentences[i950], hyps[i950], 2, cache={})) == 1


# -- outcomes as arrays --------------------------------------------------------------------


def _object_search(sentence: Any, hyp: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The search that builds one Option per outcome (the path without numpy), fresh cache."""
    with monkeypatch.context() as m:
        m.setattr(search, "_numpy_or_none", lambda: None)
        return search.decomposed_outcomes(sentence, hyp)


@pytest.mark.slow
def test_conll14_outcome_arrays_equal_object_search(conll14: Path, gold,  # type: ignore[no-untyped-def]
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Sentences 300-419 and 940-959 (949: 8,192 pieces in one region) of two systems, the
    # systems sharing one cache per sentence (so the pieces' encoding is reused): every
    # outcome's counts, witness and pieces and the chosen outcome equal the object search's.
    from gecscope.formats.plain import read_tokens
    from gecscope.metrics.imeasure.core import best_option
    from gecscope.metrics.imeasure.outcomes import Outcomes, counts_of

    rows = [*range(300, 420), *range(940, 960)]
    caches: dict[int, dict[Any, Any]] = {i: {} for i in rows}
    arrays = 0
    for name in ("AMU", "POST"):  # a cautious and a bold system (the harness does all 13)
        hyps = read_tokens(conll14 / "submissions" / name, expected=len(gold))
        for i in rows:
            got = search.decomposed_outcomes(gold.sentences[i], hyps[i], cache=caches[i])
            want = _object_search(gold.sentences[i], hyps[i], monkeypatch)
            assert _outcomes(got) == _outcomes(want), (name, i)
            if got is None:
                continue
            arrays += isinstance(got, Outcomes)
            assert isinstance(want, list) and got == want
            assert [got[k] for k in range(len(got))] == want  # indexing builds the same
            assert got[-1] == want[-1] and got[1:3] == want[1:3]
            for m in ("cwacc", "ci", "df", "ctp"):
                assert best_option(counts_of(got), m[0], m[1:], 1.0, 2.0, "floor") == \
                    best_option([o.counts for o in want], m[0], m[1:], 1.0, 2.0, "floor")
    assert arrays > 100


def test_kernel_with_shared_encoding_equals_its_own() -> None:
    # One region's pieces encoded once (source first, hypothesis tokens unknown to them get
    # fresh ids) and reused for several hypotheses: the same counts and costs as encoding
    # every call itself, in the pieces' order.
    from gecscope._jit import HAVE_NUMBA
    from gecscope.metrics.imeasure.batch import threeway_counts_costs

    if not HAVE_NUMBA:
        pytest.skip("the shared encoding is the compiled engine's (numba not installed)")
    rng = random.Random(5)
    for _ in range(30):
        s = [rng.choice("abcde") for _ in range(rng.randint(0, 6))]
        refs = [tuple(rng.choice("abcdef") for _ in range(rng.randint(0, 7)))
                for _ in range(rng.randint(1, 12))]
        prepared: dict[str, Any] = {}
        for _ in range(3):
            h = [rng.choice("abcdexyz") for _ in range(rng.randint(0, 7))]
            shared = threeway_counts_costs(s, h, refs, prepared=prepared)
            assert shared == threeway_counts_costs(s, h, refs)
            assert shared == threeway_counts_costs(s, h, refs, engine="python")


def test_outcomes_pickle_and_corpus_choice(conll14: Path, gold) -> None:  # type: ignore[no-untyped-def]
    # A sentence's statistics with Outcomes travel to workers by pickle and come back equal;
    # corpus optimisation reads every outcome's counts from them.
    import pickle

    from gecscope.formats.plain import read_tokens
    from gecscope.metrics.imeasure import IMeasureMetric
    from gecscope.metrics.imeasure.metric import IMeasureSentence
    from gecscope.metrics.imeasure.outcomes import Outcomes

    hyps = read_tokens(conll14 / "submissions" / "CAMB", expected=len(gold))
    sub = gold.subset(300, 340)
    metric = IMeasureMetric()
    stats = metric.sentence_stats_gold(sub, hyps[300:340])
    assert any(isinstance(st.options, Outcomes) for st in stats)
    back = pickle.loads(pickle.dumps(stats))
    assert back == stats
    assert [(list(a.options), a.best) for a in back] == [(list(b.options), b.best)
                                                         for b in stats]
    for st in stats:
        if isinstance(st.options, Outcomes):
            assert st.options.counts_list() == [o.counts for o in st.options]
    corpus = IMeasureMetric(optimise="corpus")
    assert corpus.aggregate(stats).fields == corpus.aggregate(
        [IMeasureSentence(tuple(st.options), st.best) for st in stats]).fields
