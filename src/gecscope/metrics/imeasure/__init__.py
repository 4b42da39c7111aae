"""The I-measure (Felice & Briscoe 2015).

:mod:`.metric` (the registered metric), :mod:`.core` (candidate references, counts, scores),
:mod:`.align` (the three-way alignment), :mod:`.batch` (compiled and vectorised alignment
kernels), :mod:`.search` (the decomposed exact search over candidates) and :mod:`.certify`
(the certificate that makes the decomposition exact).
"""

from gecscope.metrics.imeasure.metric import IMeasureMetric

__all__ = ["IMeasureMetric"]
