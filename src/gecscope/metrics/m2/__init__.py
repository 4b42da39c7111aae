"""MaxMatch (M2): the metric (:mod:`.metric`) and its edit lattice (:mod:`.lattice`)."""

from gecscope.metrics.m2.metric import M2Metric, M2Row, M2SentenceStats, m2_prf, select_rows

__all__ = ["M2Metric", "M2Row", "M2SentenceStats", "m2_prf", "select_rows"]
