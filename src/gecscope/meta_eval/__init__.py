"""Meta-evaluation: how well a metric agrees with human rankings of GEC systems (GJG15, SEEDA).

Submodules: :mod:`~.ranking` (Expected Wins, TrueSkill, also over a metric's sentence
comparisons), :mod:`~.correlation` (system level, window analysis), :mod:`~.sentence` (pairwise
agreement), :mod:`~.benchmarks` (loaders), :mod:`~.runner` (metrics x benchmarks, the table),
:mod:`~.tradeoff` (CLEME2.0 factor search). The human judgments they read are
:mod:`gecscope.judgments` (the data model, below the format that reads them).
Importing this package is cheap; numpy/scipy/trueskill load in the functions that need them.
"""
