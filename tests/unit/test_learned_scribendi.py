"""Scribendi: the string ratios, the decision rule and the whole metric against gec-metrics.

Expected values are computed at test time by gec-metrics 0.1.1 (``Scribendi``; fuzzywuzzy
0.18 and python-Levenshtein 0.27 for the ratios) in its reference venv, on strings generated
here and on a tiny random GPT-2 this module builds (``tests/learned_gpt2.py``): the numbers
depend on the model, not the agreement.
"""

from __future__ import annotations

import functools
import json
import math
import pickle
import random
from pathlib import Path
from typing import Any

import pytest
from gec_metrics_ref import SUBMODULES_ONLY, run_gec_metrics
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gecscope.errors import ConfigError
from gecscope.metrics.learned.fuzzy import (
    full_process,
    indel_distance,
    levenshtein_ratio,
    token_sort_ratio,
)

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from learned_gpt2 import build_tiny_gpt2

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.learned.scribendi import ScribendiMetric, sentence_score

#: Handmade (source, hypothesis) pairs: unchanged, empty lines, case, word order, accents,
#: punctuation only, a rewrite.
HANDMADE = [
    ("He go to school every day .", "He goes to school every day ."),
    ("He go to school every day .", "He go to school every day ."),
    ("", ""),
    ("", "A new sentence appears ."),
    ("", "."),
    ("?", ""),
    ("She like apples and oranges .", ""),
    ("she like apples and oranges .", "She likes apples and oranges ."),
    ("THE CAT SAT ON THE MAT .", "the cat sat on the mat ."),
    ("the cat sat on the mat .", "on the mat the cat sat ."),
    ("Ça va très bien , merci .", "Ca va tres bien , merci ."),
    ("I am agree with you .", "I agree with you ."),
    ("Their is a problem in this sentences .", "There is a problem in these sentences ."),
    ("It is a good idea to go .", "Completely different words were written here instead ."),
    ("Wait ...", "Wait !"),
    ("We discussed about the problem yesterday .", "We discussed the problem yesterday ."),
    ("This sentences contain gramamtical error .",
     "This sentence contains a grammatical error ."),
    ("In conclusion , genetic testing is good .", "In conclusion, genetic testing is good."),
    ("People has many reason to do so .", "People have many reasons to do so ."),
    ("Moreover , it costs alot of money .", "Moreover , it costs a lot of money ."),
]

#: More text for the tokenizer: English sentences with the usual learner errors.
TRAINING_TEXT = [
    "Genetic testing can tell people about the risk of diseases in their family .",
    "However , some people do not want to know their genetic risk .",
    "In my opinion , the government should protect the privacy of patients .",
    "It is important for relatives to be informed about such a disease .",
    "There are many advantages and disadvantages of social media nowadays .",
]


# -- string ratios ------------------------------------------------------------------------------

#: Characters that exercise fuzzywuzzy's cleaning: ASCII letters of both cases, digits, the
#: underscore (a word character), punctuation and whitespace, the Latin-1 supplement (removed
#: by force_ascii; includes NBSP and the multiplication sign), letters beyond it (kept; some
#: change length when lower-cased), symbols, combining marks, CJK, an emoji.
ALPHABET = ("aAbBcCxyz019_ .,;'-!?\t\néÉßñÿ×÷\xa0\u00b5İẞΩωДж中文€™\u0301\u2028😀")

texts = st.text(alphabet=ALPHABET, max_size=40)
words = st.lists(st.sampled_from(["the", "The", "cat", "cats", "sat", "on", "mat", ".", ",",
                                  "café", "CAFÉ", "naïve", "_x_", "a", "A", "42", "İs"]),
                 max_size=12).map(" ".join)


@st.composite
def similar_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A string and an edited copy (character edits, word swaps): ratios near the threshold."""
    a = draw(st.one_of(texts, words))
    b = list(a)
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["ins", "del", "sub"]))
        pos = draw(st.integers(0, len(b)))
        ch = draw(st.sampled_from(ALPHABET))
        if op == "ins":
            b.insert(pos, ch)
        elif b and pos < len(b):
            if op == "del":
                del b[pos]
            else:
                b[pos] = ch
    out = "".join(b)
    if draw(st.booleans()):
        toks = out.split(" ")
        draw(st.randoms(use_true_random=False)).shuffle(toks)
        out = " ".join(toks)
    return a, out


pairs_strategy = st.one_of(st.tuples(texts, texts), st.tuples(words, words), similar_pairs())


def _indel_dp(a: str, b: str) -> int:
    """The textbook dynamic programme: insert/delete 1, substitute 2 (an independent oracle)."""
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j - 1] + (0 if a[i - 1] == b[j - 1] else 2),
                         prev[j] + 1, cur[j - 1] + 1)
        prev = cur
    return prev[-1]


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(pairs_strategy)
def test_indel_distance_equals_dynamic_programme(pair: tuple[str, str]) -> None:
    a, b = pair
    assert indel_distance(a, b) == _indel_dp(a, b) == indel_distance(b, a)


#: Pairs whose ratio times 100 is exactly a half (the LCS is odd, the lengths sum to 16 or 80):
#: fuzzywuzzy rounds them half to even. And the degenerate ones: equal after cleaning (also
#: both empty), one empty.
ROUNDING = [("a" + "b" * 7, "a" + "c" * 7), ("aaa" + "b" * 5, "aaa" + "c" * 5),
            ("a" * 5 + "b" * 3, "a" * 5 + "c" * 3), ("a" * 33 + "b" * 7, "a" * 33 + "c" * 7),
            ("a" * 35 + "b" * 5, "a" * 35 + "c" * 5), (".", ","), ("", "!"), ("abc", ""),
            ("Ab  c", "c ab"), ("é", "ÿ"), ("the cat", "the cat")]


@functools.cache
def _ratio_pairs() -> list[tuple[str, str]]:
    """The rounding cases and 300 pairs drawn by hypothesis (derandomised: the same pairs in
    every run, so the reference run can be given them first)."""
    collected: list[tuple[str, str]] = list(ROUNDING)

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(pairs_strategy)
    def collect(pair: tuple[str, str]) -> None:
        collected.append(pair)

    collect()
    return collected


def test_ratios_equal_fuzzywuzzy_and_levenshtein(reference: dict[str, Any]) -> None:
    """Generated strings (and the rounding cases) through our ratios and through
    fuzzywuzzy.fuzz.token_sort_ratio, fuzzywuzzy.utils.full_process and Levenshtein.ratio."""
    pairs, ref = _ratio_pairs(), reference["ratios"]
    assert len(ref["tsr"]) == len(pairs) > 300
    for (a, b), tsr, lev, proc in zip(pairs, ref["tsr"], ref["lev"], ref["proc"], strict=True):
        assert [full_process(a), full_process(b)] == proc, (a, b)
        assert token_sort_ratio(a, b) == tsr, (a, b)
        assert levenshtein_ratio(a, b) == lev, (a, b)  # the same float, not approximately
    halves = [token_sort_ratio(a, b) for a, b in ROUNDING[:5]]
    # 100 * 2 * LCS / (len + len) = 12.5, 37.5, 62.5, 82.5 (0.825 as a float), 87.5: halves
    # round to even, as Python rounds
    assert halves == ref["tsr"][:5] == [12, 38, 62, 82, 88]
    assert len(set(ref["tsr"])) > 40  # the pairs span the scale


# -- the decision rule, given perplexities --------------------------------------------------------

def _decision_cases(seed: int = 7) -> tuple[dict[str, float], list[tuple[str, str]]]:
    """Sentences with assigned perplexities (ties, NaN, infinity included) and pairs of them:
    each sentence with small edits of itself (ratios near the threshold) and random pairs."""
    rng = random.Random(seed)
    base = list(dict.fromkeys([s for pair in HANDMADE for s in pair] + TRAINING_TEXT))
    pairs = []
    for s in base:
        for _ in range(2):
            toks = s.split()
            for _ in range(rng.randint(1, 3)):
                if toks:
                    k = rng.randrange(len(toks))
                    toks[k] = rng.choice(["a", "the", "is", "are", toks[k].upper(), "", "."])
            pairs.append((s, " ".join(t for t in toks if t)))
    pool = list(dict.fromkeys(base + [h for _, h in pairs]))
    pairs += [(rng.choice(pool), rng.choice(pool)) for _ in range(60)]
    values = [1.0, 2.0, 3.5, math.nan, math.inf]
    ppl = {s: rng.choice(values + [rng.uniform(1, 4) for _ in range(3)]) for s in pool}
    return ppl, pairs


def _decision_payload() -> dict[str, Any]:
    ppl, pairs = _decision_cases()
    return {"ppl": ppl, "pairs": pairs, "thresholds": [0.8, 0.6, 0.95]}


def _decide(ppl: dict[str, float], pairs: list[tuple[str, str]], threshold: float,
            compat: bool) -> list[int]:
    return [0 if s == h else sentence_score(s, h, ppl[s], ppl[h], threshold, compat).score
            for s, h in pairs]


@pytest.mark.parametrize("threshold", [0.8, 0.6, 0.95])
def test_decisions_equal_gec_metrics_in_compat_mode(reference: dict[str, Any],
                                                    threshold: float) -> None:
    """gec-metrics' decisions with the perplexities given (ties, NaN, infinity): equal."""
    payload, ref = _decision_payload(), reference["decisions"]
    ppl, pairs = payload["ppl"], [tuple(p) for p in payload["pairs"]]
    expected = ref["scores"][str(threshold)]
    assert _decide(ppl, pairs, threshold, compat=True) == expected
    assert {1, 0, -1} <= set(expected)  # every branch is exercised
    assert [levenshtein_ratio(s, h) for s, h in pairs if s != h] == ref["ldr"]


def test_default_mode_rejects_undefined_perplexity(reference: dict[str, Any]) -> None:
    """By default a NaN perplexity is never lower: those sentences score -1; every other
    sentence scores as gec-metrics."""
    payload, ref = _decision_payload(), reference["decisions"]
    ppl, pairs = payload["ppl"], [tuple(p) for p in payload["pairs"]]
    ours = _decide(ppl, pairs, 0.8, compat=False)
    nan = [math.isnan(ppl[s]) or math.isnan(ppl[h]) for s, h in pairs]
    differs = 0
    for score, expected, has_nan, (s, h) in zip(ours, ref["scores"]["0.8"], nan, pairs,
                                                strict=True):
        if has_nan and s != h:
            assert score == -1
            differs += score != expected
        else:
            assert score == expected
    assert differs > 0  # gec-metrics accepts some of them (the ratios decide)


# -- the whole metric with a tiny random GPT-2 ------------------------------------------------------

@pytest.fixture(scope="module")
def conll_sample(request: pytest.FixtureRequest) -> tuple[list[str], list[str]] | None:
    """The first 300 CoNLL-2014 sources and AMU's corrections (None without the data)."""
    try:
        conll14: Path = request.getfixturevalue("conll14")
    except pytest.skip.Exception:
        return None
    data = EvalData((str(conll14 / "official-2014.combined.m2"),))
    hyp = Hypothesis.from_file(conll14 / "submissions" / "AMU", "AMU")
    return ([" ".join(t) for t in data.sources[:300]], [" ".join(t) for t in hyp.tokens[:300]])


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory,
              conll_sample: tuple[list[str], list[str]] | None) -> Path:
    texts = [s for pair in HANDMADE for s in pair if s] + TRAINING_TEXT
    if conll_sample is not None:
        texts += conll_sample[0] + conll_sample[1]
    return build_tiny_gpt2(tmp_path_factory.mktemp("scribendi") / "tiny-gpt2", texts, seed=3)


REFERENCE_SCRIPT = SUBMODULES_ONLY + """
import torch
from gec_metrics.metrics.scribendi import Scribendi

torch.set_num_threads(1)  # as gecscope's default (threads=1)


class Recording(Scribendi):
    \"\"\"gec-metrics' Scribendi, keeping the perplexities it computes.\"\"\"

    def ppl(self, sents):
        out = super().ppl(sents)
        self.calls.append(out)
        return out


class GivenPerplexities(Scribendi):
    \"\"\"gec-metrics' decisions with the perplexities given per sentence.\"\"\"

    def __init__(self, config, table):
        self.config = config
        self.table = table

    def ppl(self, sents):
        return [self.table[s] for s in sents]


out = {"model": {}}
m = Recording(Scribendi.Config(model=PAYLOAD["model"], no_cuda=True))
for name, (src, hyp) in PAYLOAD["sets"].items():
    m.calls = []
    sentence = m.score_sentence(src, hyp)
    out["model"][name] = {"sentence": sentence, "ppl_src": m.calls[0] if m.calls else [],
                          "ppl_hyp": m.calls[1] if m.calls else []}
src, hyp = PAYLOAD["sets"]["handmade"]
out["model"]["handmade"]["corpus"] = m.score_corpus(src, hyp)

d = PAYLOAD["decisions"]
src = [s for s, _ in d["pairs"]]
hyp = [h for _, h in d["pairs"]]
scores = {}
for threshold in d["thresholds"]:
    g = GivenPerplexities(Scribendi.Config(threshold=threshold, no_cuda=True), d["ppl"])
    scores[str(threshold)] = g.score_sentence(src, hyp)
ldr = [g.levenshtein_distance_ratio(s, h) for s, h in d["pairs"] if s != h]
out["decisions"] = {"scores": scores, "ldr": ldr}

from fuzzywuzzy import fuzz, utils
import Levenshtein
out["ratios"] = {"tsr": [], "lev": [], "proc": []}
for a, b in PAYLOAD["ratios"]:
    out["ratios"]["tsr"].append(fuzz.token_sort_ratio(a, b))
    out["ratios"]["lev"].append(Levenshtein.ratio(a, b))
    out["ratios"]["proc"].append([utils.full_process(a, force_ascii=True),
                                  utils.full_process(b, force_ascii=True)])
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def reference(tiny_gpt2: Path, conll_sample: tuple[list[str], list[str]] | None
              ) -> dict[str, Any]:
    """Everything gec-metrics computes for this module, in one run (its start-up costs
    seconds): its Scribendi with the tiny model on the handmade pairs and the CoNLL sample,
    its decisions with given perplexities, and fuzzywuzzy's and python-Levenshtein's ratios
    of the generated string pairs."""
    sets = {"handmade": ([s for s, _ in HANDMADE], [h for _, h in HANDMADE])}
    if conll_sample is not None:
        sets["conll"] = conll_sample
    return run_gec_metrics(REFERENCE_SCRIPT,  # type: ignore[no-any-return]
                           {"model": str(tiny_gpt2), "sets": sets,
                            "decisions": _decision_payload(), "ratios": _ratio_pairs()})


def _check_against(metric: ScribendiMetric, src: list[str], hyp: list[str],
                   expected: dict[str, Any]) -> list[int]:
    stats = metric.score_texts(src, hyp)
    changed = [i for i, (s, h) in enumerate(zip(src, hyp)) if s != h]
    got_src = [stats[i].ppl_source for i in changed]
    got_hyp = [stats[i].ppl_hypothesis for i in changed]
    # the same floats (NaN for an empty sentence): the same batches, the same operations
    assert json.dumps(got_src) == json.dumps(expected["ppl_src"])
    assert json.dumps(got_hyp) == json.dumps(expected["ppl_hyp"])
    return [s.score for s in stats]


def test_handmade_equal_gec_metrics(tiny_gpt2: Path, reference: dict[str, Any]) -> None:
    src, hyp = [s for s, _ in HANDMADE], [h for _, h in HANDMADE]
    expected = reference["model"]["handmade"]
    # the default is gec-metrics' (compat=true is its former spelling)
    default = _check_against(ScribendiMetric(model=str(tiny_gpt2)), src, hyp, expected)
    assert default == expected["sentence"]
    assert sum(default) == expected["corpus"]
    assert ScribendiMetric(model=str(tiny_gpt2), compat=True).config == \
        ScribendiMetric(model=str(tiny_gpt2)).config
    fixed = _check_against(ScribendiMetric(model=str(tiny_gpt2), fix_empty_sentences=True),
                           src, hyp, expected)
    for (s, h), ours, ref in zip(HANDMADE, fixed, expected["sentence"], strict=True):
        one_empty = (s == "") != (h == "")
        assert ours == (-1 if one_empty else ref), (s, h)
    # gec-metrics accepts the punctuation-only pairs through their NaN perplexity
    assert [expected["sentence"][HANDMADE.index(p)] for p in [("", "."), ("?", "")]] == [1, 1]
    # the note under a table gets gec-metrics' score from the fixed run's perplexities
    fixed_metric = ScribendiMetric(model=str(tiny_gpt2), fix_empty_sentences=True)
    data, hyps = EvalData.from_texts(src), Hypothesis.from_texts(hyp)
    official = fixed_metric.official_score(data, hyps, fixed_metric.sentence_stats(data, hyps))
    assert official is not None and official.value == expected["corpus"] != sum(fixed)


def test_conll14_sample_equal_gec_metrics(tiny_gpt2: Path, reference: dict[str, Any],
                                          conll_sample: tuple[list[str], list[str]] | None
                                          ) -> None:
    if conll_sample is None:
        pytest.skip("CoNLL-2014 data not available")
    src, hyp = conll_sample
    expected = reference["model"]["conll"]
    metric = ScribendiMetric(model=str(tiny_gpt2))
    scores = _check_against(metric, src, hyp, expected)
    assert scores == expected["sentence"]
    assert {1, 0, -1} <= set(scores)
    data = EvalData.from_texts(src)
    result = metric.evaluate(data, Hypothesis.from_texts(hyp, "AMU"))
    assert result.sentence_scores == [float(x) for x in expected["sentence"]]
    assert result.score.value == sum(expected["sentence"])  # gec-metrics' corpus score: the sum


def test_batch_size_changes_only_the_last_bits(tiny_gpt2: Path) -> None:
    """Batching changes the padding and so the float sums slightly, not the perplexities."""
    texts = [h for _, h in HANDMADE if h]
    a = ScribendiMetric(model=str(tiny_gpt2)).perplexities(texts)
    b = ScribendiMetric(model=str(tiny_gpt2), batch_size=3).perplexities(texts)
    assert b == pytest.approx(a, rel=1e-5)
    assert all(1 < x < math.inf for x in a)


def test_resampling_path_equals_aggregate(tiny_gpt2: Path) -> None:
    from gecscope.stats.resample import bootstrap_interval

    metric = ScribendiMetric(model=str(tiny_gpt2))
    stats = metric.score_texts([s for s, _ in HANDMADE], [h for _, h in HANDMADE])
    totals = metric.resampling().resample_counts(stats).sum(axis=0)[0]
    fields = metric.resampling().score_counts(totals)
    assert {k: float(v) for k, v in fields.items()} == metric.aggregate(stats).fields

    class Slow(ScribendiMetric):
        def resampling(self) -> None:  # type: ignore[override]
            return None

    slow = Slow(model=str(tiny_gpt2))
    fast = bootstrap_interval(metric, stats, n_samples=200, seed=1)
    ref = bootstrap_interval(slow, stats, n_samples=200, seed=1)
    assert (fast.low, fast.high) == (ref.low, ref.high)


def test_pickled_metric_reloads_its_model(tiny_gpt2: Path) -> None:
    metric = ScribendiMetric(model=str(tiny_gpt2))
    src, hyp = [s for s, _ in HANDMADE], [h for _, h in HANDMADE]
    before = metric.score_texts(src, hyp)
    clone = pickle.loads(pickle.dumps(metric))
    assert clone._lm is None
    after = clone.score_texts(src, hyp)
    assert [s.score for s in after] == [s.score for s in before]
    assert json.dumps([s.ppl_hypothesis for s in after]) == \
        json.dumps([s.ppl_hypothesis for s in before])


def test_needs_a_model_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="-o model=DIR"):
        ScribendiMetric()
    with pytest.raises(ConfigError, match="not a directory"):
        ScribendiMetric(model=str(tmp_path / "absent"))
    with pytest.raises(ConfigError, match="no config.json"):
        ScribendiMetric(model=str(tmp_path))


@pytest.mark.parametrize(("option", "value"), [("threshold", 1.5), ("threshold", "high"),
                                               ("batch_size", 0), ("threads", 0),
                                               ("device", ""), ("compat", "perhaps")])
def test_bad_options(tiny_gpt2: Path, option: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=f"scribendi: {option}"):
        ScribendiMetric(model=str(tiny_gpt2), **{option: value})


def test_signature_names_checkpoint_and_versions(tiny_gpt2: Path) -> None:
    extras = ScribendiMetric(model=str(tiny_gpt2)).signature_extras()
    assert extras["checkpoint"].startswith("tiny-gpt2@")
    assert set(extras) == {"checkpoint", "torch", "transformers"}


def test_cli_evaluate(tiny_gpt2: Path, tmp_path: Path,
                      capsys: pytest.CaptureFixture[str]) -> None:
    """``gecscope evaluate -m scribendi`` with a source and no references gives the library's
    score (which the tests above check against gec-metrics); without a model, exit 64."""
    from gecscope.cli.main import main

    keep = [i for i, (s, h) in enumerate(HANDMADE) if s and h]
    (tmp_path / "src.txt").write_text("".join(HANDMADE[i][0] + "\n" for i in keep),
                                      encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("".join(HANDMADE[i][1] + "\n" for i in keep),
                                      encoding="utf-8")
    code = main(["evaluate", "-m", "scribendi", "-o", f"model={tiny_gpt2}", "-s",
                 str(tmp_path / "src.txt"), "--hyp", str(tmp_path / "hyp.txt"), "-q",
                 "--format", "json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    stats = ScribendiMetric(model=str(tiny_gpt2)).score_texts([HANDMADE[i][0] for i in keep],
                                                              [HANDMADE[i][1] for i in keep])
    expected = sum(s.score for s in stats)
    assert out["scores"][0]["value"] == expected
    assert main(["evaluate", "-m", "scribendi", "-s", str(tmp_path / "src.txt"), "--hyp",
                 str(tmp_path / "hyp.txt"), "-q"]) == 64
    assert "-o model=DIR" in capsys.readouterr().err
