"""Why a sentence scored as it did: the score change a system's edits made, shared among them.

:func:`attribute` splits, for each sentence, ``delta = M(S, H) - M(S, S)`` (the metric's
sentence score of the hypothesis minus that of the unchanged source) among the hypothesis'
edits, for any metric with a sentence score: one by one (``add``), leave-one-out (``sub``),
or by Shapley values (``shapley``, exact; ``shapley_sampling``, over sampled edit orders).
The methods are those of gec-metrics' attributors (Goto et al., ACL 2025 SRW); docs/explain.md
shows their use and cost. :func:`corpus_costs` is the corpus view: the sentences (by their
effect on the corpus score, leave-one-out), edits and error types that cost a system most or
earned it most.
"""

from __future__ import annotations

from gecscope.explain.attribution import (
    MAX_EXACT,
    METHODS,
    SAMPLES,
    EditAttribution,
    SentenceAttribution,
    attribute,
    check_options,
    hypothesis_edits,
)
from gecscope.explain.corpus import (
    RANK_BY,
    CorpusCosts,
    EditCost,
    SentenceCost,
    TypeCost,
    corpus_costs,
)

__all__ = ["MAX_EXACT", "METHODS", "RANK_BY", "SAMPLES", "CorpusCosts", "EditAttribution",
           "EditCost", "SentenceAttribution", "SentenceCost", "TypeCost", "attribute",
           "check_options", "corpus_costs", "hypothesis_edits"]
