"""CLEME and CLEME2.0 (Ye et al. 2023, 2025).

:mod:`.metric` (the two registered metrics and ``explain``), :mod:`.chunks` (the chunk
partition and its classification), :mod:`.weights` (length, similarity and LLM weighting) and
:mod:`.resampling` (the vectorised bootstrap path, length weights recomputed per resample).
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
