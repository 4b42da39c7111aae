"""USIM (Choshen & Abend 2018): semantic faithfulness of a correction to its source.

:mod:`.core` holds the algorithm on UCCA graphs (leaf and node alignment, the score, DISTSIM);
:mod:`.metric` the registered metric that parses sentences and aggregates the scores.
"""

from gecscope.metrics.usim.metric import USimMetric, usim

__all__ = ["USimMetric", "usim"]
