"""Semantic structures for USIM: UCCA passages, DAG F-score and parser backends.

Submodules are imported on use: :mod:`gecscope.semantics.ucca` (data model and XML),
:mod:`gecscope.semantics.graph` (evaluation views), :mod:`gecscope.semantics.dagf`
(inter-annotator DAG F-score) and :mod:`gecscope.semantics.parser` (gold / approximate parsers).
"""
