"""Meta-evaluation: how well a metric agrees with human rankings of GEC systems (GJG15, SEEDA).

Submodules: :mod:`~gecscope.meta_eval.judgments` (data model), :mod:`~.ranking` (Expected Wins,
TrueSkill, also over a metric's sentence comparisons), :mod:`~.correlation` (system level, window
analysis), :mod:`~.sentence` (pairwise agreement), :mod:`~.benchmarks` (loaders),
:mod:`~.runner` (metrics x benchmarks, the table), :mod:`~.tradeoff` (CLEME2.0 factor search).
Importing this package is cheap; numpy/scipy/trueskill load in the functions that need them.
"""
