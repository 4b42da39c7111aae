"""Metrics. Each turns (sources, hypothesis, references) into per-sentence statistics and
aggregates them into a corpus :class:`~gecscope.metrics.base.Score`."""
