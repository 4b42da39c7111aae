"""CLEME and CLEME2.0 (Ye et al. 2023, 2025).

:mod:`.metric` (the two registered metrics and ``explain``), :mod:`.chunks` (the chunk
partition and its classification) and :mod:`.weights` (length, similarity and LLM weighting).
"""

from gecscope.metrics.cleme.metric import (
    CLEME2Metric,
    CLEMEMetric,
    CLEMEStats,
    RefChunkStats,
    explain,
    partitions,
    similarity_scorer,
)

__all__ = ["CLEME2Metric", "CLEMEMetric", "CLEMEStats", "RefChunkStats", "explain", "partitions",
           "similarity_scorer"]
