"""Language models: the ARPA reader's back-off arithmetic and the pocketsphinx CMU model.

The CMU model's pinned log probabilities are pocketsphinx 5.1.1's own: ``NGramModel.readfile(
os.path.join(pocketsphinx.get_model_path(), "en-us", "en-us.lm.bin")).prob(["the", "of"])``
prints -16085 (``["the", "<s>"]``: -29219), in its log base 1.0001; docs/rtt.md describes the
model.
"""

from __future__ import annotations

import math

import pytest

from gecscope.errors import ConfigError, FormatError
from gecscope.rtt.lm import ArpaLM, load_lm

TRIGRAM = r"""
\data\
ngram 1=5
ngram 2=3
ngram 3=1

\1-grams:
-1.0 <s> -0.5
-0.7 </s>
-0.9 a -0.25
-1.1 b -0.1
-1.3 c

\2-grams:
-0.3 <s> a -0.2
-0.4 a b -0.05
-0.2 b </s>

\3-grams:
-0.1 <s> a b

\end\
"""


@pytest.fixture()
def lm(tmp_path):
    p = tmp_path / "tri.arpa"
    p.write_text(TRIGRAM.lstrip(), encoding="utf-8")
    return ArpaLM(p, oov_log10=-6.0)


def test_arpa_backoff(lm):
    assert lm.order == 3
    assert lm.log10_prob("b", ("<s>", "a")) == pytest.approx(-0.1)        # trigram
    assert lm.log10_prob("b", ("c", "a")) == pytest.approx(-0.4)          # (c a) unseen: bigram
    assert lm.log10_prob("c", ("<s>", "a")) == pytest.approx(-0.2 + -0.25 + -1.3)
    assert lm.log10_prob("c", ("a", "b")) == pytest.approx(-0.05 + -0.1 + -1.3)
    assert lm.log10_prob("zzz", ("a",)) == pytest.approx(-0.25 + -6.0)    # OOV
    # sentence: <s> a b </s> = -0.3 + -0.1 + P(</s> | a b) = bo(a b) + P(</s>|b)
    assert lm.score(["A", "b", "."]) == pytest.approx(-0.3 - 0.1 + (-0.05 - 0.2))
    assert lm.score_per_word(["a", "b"]) == pytest.approx((-0.3 - 0.1 - 0.25) / 3)


def test_lm_tokens(lm):
    assert lm.lm_tokens(["I", "do", "n't", "know", ",", "it", "'s", "3", "!"]) == [
        "i", "do", "not", "know", "it", "'s", "3"]


def test_arpa_errors(tmp_path):
    bad = tmp_path / "bad.arpa"
    bad.write_text("hello\n", encoding="utf-8")
    with pytest.raises(FormatError, match="not an ARPA file"):
        ArpaLM(bad)
    bad.write_text("\\data\\\nngram 1=1\n\n\\1-grams:\nx y\n\\end\\\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"bad.arpa:5"):
        ArpaLM(bad)
    with pytest.raises(ConfigError, match="no such file"):
        load_lm(str(tmp_path / "missing.arpa"))


def test_pocketsphinx_cmu_model():
    pytest.importorskip("pocketsphinx")
    from gecscope.rtt.lm import PocketSphinxLM

    cmu = PocketSphinxLM()
    assert cmu.order == 3
    # Values read from en-us.lm.bin through pocketsphinx 5.1.1 (log base 1.0001):
    # P(the | of) = 1.0001 ** -16085, P(the | <s>) = 1.0001 ** -29219.
    assert cmu.log10_prob("the", ("of",)) == pytest.approx(-16085 * math.log10(1.0001))
    assert cmu.log10_prob("the", ("<s>",)) == pytest.approx(-29219 * math.log10(1.0001))
    assert cmu.log10_prob("xqzqx", ("the",)) == cmu.oov_log10
    assert cmu.score(["he", "goes", "to", "school"]) > cmu.score(["he", "go", "to", "school"])
