"""Re-export of :mod:`gecscope.signature` for report code (``gecscope.reports.signature``)."""

from gecscope.signature import Signature, metric_signature, reference_hash, signature

__all__ = ["Signature", "metric_signature", "reference_hash", "signature"]
