"""Sentence-level meta-evaluation: does the metric order pairs of outputs as the judges did?

For every ranking item (one judge, one sentence) and every pair of the chosen systems that the
judge ranked differently, the metric agrees when its sentence scores order the pair the same
way. Accuracy = agreements / pairs; the Kendall-like tau = (agreements - disagreements) / pairs
(Kobayashi et al. 2024, SEEDA; WMT's segment-level tau).

A metric tie is not an agreement with a strict human preference. ``ties="disagree"`` (default)
counts it as a disagreement, in the accuracy and in tau. ``ties="first-loses"`` reproduces
SEEDA's ``corr_sentence.py`` and gec-metrics: a tie is read as "the first system of the pair
(in the order of ``systems``, alphabetical in SEEDA) is worse" (better when lower scores are
better), so it agrees or disagrees depending on the system names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gecscope.errors import ConfigError
from gecscope.judgments import Judgments

TIE_POLICIES = ("disagree", "first-loses")


@dataclass(frozen=True)
class SentenceAgreement:
    """Pairwise agreement counts and the two summary figures."""

    pairs: int
    agree: int
    disagree: int
    ties: int
    tie_policy: str

    @property
    def accuracy(self) -> float:
        return self.agree / self.pairs if self.pairs else float("nan")

    @property
    def kendall(self) -> float:
        return (self.agree - self.disagree) / self.pairs if self.pairs else float("nan")

    def as_dict(self) -> dict[str, object]:
        return {"accuracy": self.accuracy, "kendall": self.kendall, "pairs": self.pairs,
                "agree": self.agree, "disagree": self.disagree, "metric_ties": self.ties,
                "tie_policy": self.tie_policy}


def sentence_agreement(judgments: Judgments, sentence_scores: Mapping[str, Sequence[float]],
                       systems: Sequence[str], *, rows: Mapping[int, int] | None = None,
                       ties: str = "disagree", higher_is_better: bool = True) -> SentenceAgreement:
    """Agreement of a metric's sentence scores with the human rankings in ``judgments``.

    ``sentence_scores[system][row]`` is the metric's score of ``system`` on a sentence;
    ``rows`` maps a judged sentence (0-based test-set position) to its row (identity when
    None, i.e. scores cover the whole test set). Only ``systems`` are compared; pairs are
    oriented in the order of ``systems``. ``ties`` is ``"disagree"`` or ``"first-loses"``
    (see the module doc). Metric ties are counted in ``ties`` under both policies; under
    ``"disagree"`` they are also in ``disagree``.
    """
    if ties not in TIE_POLICIES:
        raise ConfigError(f"ties must be one of {', '.join(TIE_POLICIES)}, got {ties!r}")
    order = {s: i for i, s in enumerate(dict.fromkeys(systems))}
    missing = [s for s in order if s not in sentence_scores]
    if missing:
        raise ConfigError(f"no sentence scores for system(s) {', '.join(missing)}")
    sign = 1.0 if higher_is_better else -1.0
    tie_vote = -1 if higher_is_better else 1
    pairs = agree = disagree = metric_ties = 0
    for item in judgments:
        row = item.sentence if rows is None else rows.get(item.sentence)
        if row is None:
            raise ConfigError(f"judged sentence {item.sentence} (0-based) has no metric score row")
        ranked = sorted(((order[s], s, r) for s, r in item.ranks.items() if s in order))
        for i, (_, a, ra) in enumerate(ranked):
            sa = sentence_scores[a][row]
            for _, b, rb in ranked[i + 1:]:
                if ra == rb:
                    continue
                pairs += 1
                human = 1 if ra < rb else -1
                d = sign * (sa - sentence_scores[b][row])
                if d == 0:
                    metric_ties += 1
                    if ties == "disagree":
                        disagree += 1
                        continue
                    vote = tie_vote
                else:
                    vote = 1 if d > 0 else -1
                if vote == human:
                    agree += 1
                else:
                    disagree += 1
    return SentenceAgreement(pairs, agree, disagree, metric_ties, ties)
