"""Reports: one data model (:mod:`~gecscope.reports.model`) rendered as text, TSV, JSON or HTML.

Renderers only format a :class:`~gecscope.reports.model.Report`; scoring happens in metrics
and resampling in :mod:`gecscope.stats`.
"""
